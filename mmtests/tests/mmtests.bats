#!/usr/bin/env bats
# The MMTests integration: install.sh into a copy of the MMTests snapshot
# (MMTESTS_SNAPSHOT, default ../shared/third_party/mmtests beside the
# repository; skipped when
# absent) and the parse-results of each shellpack on the suite's fixture
# results.

bats_require_minimum_version 1.5.0

setup() {
	M=$BATS_TEST_DIRNAME/..
	F=$BATS_TEST_DIRNAME/../../scripts/tests/fixtures
	T=$BATS_TEST_TMPDIR
	SNAP=${MMTESTS_SNAPSHOT:-$BATS_TEST_DIRNAME/../../../shared/third_party/mmtests}
}

need_snapshot() {
	[ -f "$SNAP/run-mmtests.sh" ] || skip "no MMTests snapshot at $SNAP (set MMTESTS_SNAPSHOT)"
	cp -a "$SNAP" "$T/mm"
}

# tree DIR: every path with its type, mode and content hash.
tree() {
	(cd "$1" && find . -printf '%p %y %m %l\n' | LC_ALL=C sort &&
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}

# logdir BENCH FIXTURE: a shellpack logs directory holding FIXTURE as run/.
logdir() {
	mkdir -p "$T/$2"
	ln -sfn "$F/$2" "$T/$2/run"
	echo "$T/$2"
}

@test "install.sh: -h is usage, an unknown option exit 2" {
	run "$M/install.sh" -h
	[ "$status" -eq 0 ]
	[[ $output == *"install.sh [-s SUITE] MMTESTS_DIR"* ]]
	run "$M/install.sh" -z "$T"
	[ "$status" -eq 2 ]
	run "$M/install.sh"
	[ "$status" -eq 2 ]
}

@test "install.sh: refuses a directory that is not MMTests" {
	run "$M/install.sh" "$T"
	[ "$status" -eq 1 ]
	[[ $output == *"not an MMTests checkout"* ]]
}

@test "install.sh: install twice, uninstall: the checkout is byte-identical" {
	need_snapshot
	tree "$T/mm" >"$T/before"
	"$M/install.sh" "$T/mm"
	tree "$T/mm" >"$T/once"
	"$M/install.sh" "$T/mm"
	tree "$T/mm" >"$T/twice"
	cmp "$T/once" "$T/twice"
	[ -x "$T/mm/shellpack_src/src/ipistorm/ipistorm-bench" ]
	[ -f "$T/mm/drivers/driver-idle_reentry.sh" ]
	grep -qx "export IPISTORM_SOURCE=\${IPISTORM_SOURCE:-$(cd "$M/.." && pwd)}" \
		"$T/mm/configs/config-ipistorm-cross-socket"
	# run-mmtests.sh generates the shellpacks; uninstall removes them too.
	"$T/mm/shellpack_src/src/refresh.sh" ipistorm
	"$T/mm/shellpack_src/src/refresh.sh" idle_reentry
	[ -x "$T/mm/shellpacks/shellpack-bench-ipistorm" ]
	"$M/install.sh" -u "$T/mm"
	tree "$T/mm" >"$T/after"
	diff "$T/before" "$T/after"
	run "$M/install.sh" -u "$T/mm"
	[ "$status" -eq 1 ]
}

@test "install.sh: refuses to overwrite a file of the checkout's own" {
	need_snapshot
	echo mine >"$T/mm/drivers/driver-ipistorm.sh"
	run "$M/install.sh" "$T/mm"
	[ "$status" -eq 1 ]
	[[ $output == *"was not installed here"* ]]
	[ "$(cat "$T/mm/drivers/driver-ipistorm.sh")" = mine ]
	[ ! -e "$T/mm/.ipistorm-files" ]
}

@test "parse-results: ipistorm's time metrics, one line per iteration" {
	d=$(logdir ipistorm ipistorm-6.12)
	run "$M/shellpack_src/src/ipistorm/parse-results" "$d"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 20 ]
	want=$(sed -n 's/^runtime_ns=//p' "$F/ipistorm-6.12/iter-003.txt")
	[ "${lines[8]}" = "$(printf 'runtime\t_\t_\t3\t%s\t_' "$want")" ]
	run "$M/shellpack_src/src/ipistorm/parse-results-delivery" "$d"
	[ "$status" -eq 0 ]
	[[ ${lines[1]} == "$(printf 'poll_pct\t_\t_\t1\t')"* ]]
}

@test "parse-results: idle_reentry's slow path and fast path, nohz_csd's kicks" {
	run "$M/shellpack_src/src/idle_reentry/parse-results" "$(logdir idle_reentry idle_reentry-light-6.1)"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 15 ]
	[ "${lines[0]}" = "$(printf 'pick_idle_pct\t_\t_\t1\t100.0\t_')" ]
	want=$(sed -n 's/^total.total_mean_ns=//p' "$F/idle_reentry-light-6.1/iter-001.txt")
	[ "${lines[1]}" = "$(printf 'total_mean\t_\t_\t1\t%s\t_' "$want")" ]
	run "$M/shellpack_src/src/idle_reentry/parse-results-fastpath" "$(logdir idle_reentry idle_reentry-light-6.12)"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 5 ]
	[ "${lines[4]}" = "$(printf 'fast_pct\t_\t_\t5\t100.0\t_')" ]
	run "$M/shellpack_src/src/nohz_csd/parse-results" "$(logdir nohz_csd nohz_csd-6.12)"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 10 ]
	run "$M/shellpack_src/src/nohz_csd/parse-results-balanced" "$(logdir nohz_csd nohz_csd-6.12)"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 5 ]
}

@test "parse-results: a result without the metric fails, naming it" {
	run "$M/shellpack_src/src/idle_reentry/parse-results-fastpath" "$(logdir ipistorm ipistorm-6.1)"
	[ "$status" -eq 1 ]
	[[ $output == *"no number for total.fast_pct"* ]]
	run "$M/shellpack_src/src/ipistorm/parse-results" "$T"
	[ "$status" -eq 1 ]
	[[ $output == *"no run.sh result"* ]]
}

# mmrun K BALANCED DROPPED: a result of kernel K for MMTests' logs and
# compare.sh both: run.sh's directory at K/iter-0/nohz_csd/logs/run, one
# iteration per pair of total.balanced (higher is better, MMTests'
# harmonic mean) and total.dropped (lower is better, its arithmetic mean).
mmrun() {
	local k=$1 d=$T/mm/work/log/$1 i=0 b
	read -r -a b <<<"$2"
	rm -rf "$d"
	mkdir -p "$d/iter-0/nohz_csd/logs/run"
	printf '1700000000 run-mmtests: Start\n1700000001 run-mmtests: test start :: nohz_csd\n1700000002 run-mmtests: Iteration 1 end\n' >"$d/iter-0/tests-activity"
	echo 1700000000 >"$d/iter-0/tests-timestamp"
	printf 'format=ipistorm-run/2\nbench=nohz_csd\nparams=duration=2\nstorm=\nkernel=%s\nstatus=ok\n' "$k" >"$d/iter-0/nohz_csd/logs/run/meta.txt"
	for v in $3; do
		printf 'format=nohz_csd/1\nstatus=complete\ntotal.balanced=%s\ntotal.dropped=%s\ntotal.ksoftirqd_wakeups=0\n' "${b[i]}" "$v" \
			>"$d/iter-0/nohz_csd/logs/run/iter-$(printf %03d $((i + 1))).txt"
		i=$((i + 1))
	done
}

# mmrow REPORT STAT METRIC: "VALUE MARK RATIO" of the new kernel in
# MMTests' text: the mean, 1 when it is marked significant ("*x%*"), and
# from the Significant row the CI ratio.
mmrow() {
	awk -v stat="$2" -v metric="$3" '
	$1 == stat && $2 == metric { split($0, w, ")"); split(w[2], o, " "); v = o[1]; mark = index($0, "*") > 0 }
	$1 == "Significant" && $2 == metric { r = $NF; gsub(/[()%]/, "", r) }
	END { print v, mark + 0, r }' "$1"
}

# MMTests' own programs on the same data as compare.sh -m mmtests:
# compare-kernels.sh (its nohz_csd report: total.dropped, lower is better)
# and the compare-mmtests.pl it runs per report, on the balanced report
# (shellpack-balanced.yaml: higher is better, compare-kernels.sh shows
# only a test's default report). The mean, the significance and the CI
# ratio, with its sign, agree to MMTests' 2 decimals.
@test "compare.sh -m mmtests: MMTests' compare-kernels.sh on the same data" {
	need_snapshot
	command -v R >/dev/null || skip "MMTests' interval needs R"
	"$M/install.sh" "$T/mm" >/dev/null
	S=$BATS_TEST_DIRNAME/../../scripts
	export PATH=$T/mm/bin:$PATH ASSUME_PACKAGE_INSTALLED=yes
	while IFS='|' read -r bb bn db dn; do
		mmrun base "$bb" "$db"
		mmrun new "$bn" "$dn"
		(cd "$T/mm/work/log" && ../../compare-kernels.sh --baseline base --compare new) >"$T/ck" 2>"$T/ck.err"
		(cd "$T/mm/work/log" && compare-mmtests.pl -d . -b nohz_csd -n base,new --print-significance) >"$T/lo" 2>/dev/null
		(cd "$T/mm/work/log" && compare-mmtests.pl -d . -b nohz_csd -a balanced -n base,new --print-significance) >"$T/hi" 2>/dev/null
		run --separate-stderr "$S/compare.sh" -m mmtests -f csv "$T/mm/work/log/base/iter-0/nohz_csd/logs/run" "$T/mm/work/log/new/iter-0/nohz_csd/logs/run"
		[ "$status" -le 1 ]
		for m in balanced:Hmean:hi dropped:Amean:lo; do
			IFS=: read -r name stat file <<<"$m"
			r=$(awk -F, -v n="total.$name" '$2 == "metric" && $3 == n && $5 == "\"new\"" { print NR }' <<<"$output")
			mine=$(awk -F, -v r="$r" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == r { printf "%.2f %d %.2f\n", $c["mmtests_mean"], $c["significant"], $c["ci_ratio"] }' <<<"$output")
			theirs=$(mmrow "$T/$file" "$stat" "$name")
			# compare-kernels.sh itself marks the default report's row
			[ "$name" = balanced ] || [ "$(mmrow "$T/ck" "$stat" "$name" | cut -d' ' -f1,2)" = "$(cut -d' ' -f1,2 <<<"$theirs")" ]
			echo "$bb / $bn | $db / $dn: $name compare.sh $mine MMTests $theirs" >>"$T/table"
			[ "$mine" = "$theirs" ] || { cat "$T/table"; false; }
		done
	done <<-'EOF2'
	30 31 29 30 30|20 21 19 20 20|10 11 9 10 10|14 15 13 14 14
	100 120 80 110 90|95 115 85 105 70|10 12 8 11 9|11 13 9 12 10
	30 31 29 30 30|27.4 28.4 26.4 27.4 27.4|10 11 9 10 10|9 10 8 9 9
	20 21 19 20 20|30 31 29 30 30|14 15 13 14 14|10 11 9 10 10
	EOF2
	cat "$T/table"
}

@test "install.sh: shellpacks that drift from the declarations are refused" {
	REPO=$M/..
	mkdir -p "$T/s/scripts" "$T/dest"
	cp -a "$M" "$T/s/mmtests"
	cp "$REPO"/scripts/*.sh "$REPO"/scripts/*.awk "$T/s/scripts/"
	cp "$REPO/Kbuild" "$T/s/"
	for m in ipistorm idle_reentry nohz_csd; do
		mkdir -p "$T/s/$m"
		cp "$REPO/$m/bench.conf" "$T/s/$m/"
	done
	sed -i 's/^mmtests=.*/mmtests=nohz/' "$T/s/nohz_csd/bench.conf"
	run "$T/s/mmtests/install.sh" "$T/dest"
	[ "$status" -eq 1 ]
	[[ $output == *"nohz_csd/bench.conf declares mmtests=nohz, but there is no mmtests/shellpack_src/src/nohz/"* ]]
	sed -i 's/^mmtests=.*/mmtests=/' "$T/s/nohz_csd/bench.conf"
	run "$T/s/mmtests/install.sh" "$T/dest"
	[ "$status" -eq 1 ]
	[[ $output == *"mmtests/shellpack_src/src/nohz_csd is no declared benchmark's"* ]]
	[ -z "$(ls -A "$T/dest")" ]
}
