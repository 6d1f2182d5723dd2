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

# copy DIR: the integration, the suite's scripts, Kbuild and every declaration.
copy() {
	local REPO=$M/..
	mkdir -p "$1/scripts"
	cp -a "$M" "$1/mmtests"
	cp "$REPO"/scripts/*.sh "$REPO"/scripts/*.awk "$1/scripts/"
	cp "$REPO/Kbuild" "$1/"
	local c d
	for c in "$REPO"/*/bench.conf; do
		d=${c%/bench.conf} d=${d##*/}
		mkdir -p "$1/$d"
		cp "$c" "$1/$d/"
		[ ! -f "$REPO/$d/wiring.conf" ] || cp "$REPO/$d/wiring.conf" "$1/$d/"
	done
}

@test "install.sh: shellpacks that drift from the declarations are refused" {
	copy "$T/s"
	mkdir "$T/dest"
	# A name without a shellpack is generated now: nohz_csd's own is left
	# no declared benchmark's.
	sed -i 's/^mmtests=.*/mmtests=nohz/' "$T/s/nohz_csd/wiring.conf"
	run "$T/s/mmtests/install.sh" "$T/dest"
	[ "$status" -eq 1 ]
	[[ $output == *"mmtests/shellpack_src/src/nohz_csd is no declared benchmark's (no <module>/wiring.conf with mmtests=nohz_csd)"* ]]
	sed -i 's/^mmtests=.*/mmtests=/' "$T/s/nohz_csd/wiring.conf"
	run "$T/s/mmtests/install.sh" "$T/dest"
	[ "$status" -eq 1 ]
	[[ $output == *"mmtests/shellpack_src/src/nohz_csd is no declared benchmark's"* ]]
	# Half a hand-written integration is no generic one.
	sed -i 's/^mmtests=.*/mmtests=nohz_csd/' "$T/s/nohz_csd/wiring.conf"
	rm "$T/s/mmtests/drivers/driver-nohz_csd.sh"
	run "$T/s/mmtests/install.sh" "$T/dest"
	[ "$status" -eq 1 ]
	[[ $output == *"declares mmtests=nohz_csd: mmtests/ has one of shellpack_src/src/nohz_csd/ and drivers/driver-nohz_csd.sh, not both"* ]]
	[ -z "$(ls -A "$T/dest")" ]
}

# fake_bench DIR: a copy of the suite (copy) with a benchmark of its own,
# fake_bench: a folder with only its declaration, which names it
# mmtests=fake-bench, its metrics of each direction (ns, per_sec, pct,
# count; runtime_ns without total.), a storm and no hand-written file.
fake_bench() {
	copy "$1"
	mkdir -p "$1/fake_bench"
	cat >"$1/fake_bench/bench.conf" <<-'EOF'
		# A made-up benchmark: its declaration and wiring only.
		format=ipistorm-bench/7
		name=fake_bench
		kind=module
		metrics=total.wake_mean_ns:lower:ns total.wakeups_per_sec:higher:per_sec runtime_ns:lower:ns total.misses:none:count total.hit_pct:higher:pct
		directions=total.wake_*_ns:lower
		primary=total.wake_mean_ns
		primary_label=mean wake-up latency
		title=time
		summary=total.wake_mean_ns
		hist=wake
		hist_label=wake-up latency
		cpus=list:cpulist
		duration=yes
		storm=ipistorm
		instrument=
		tail=
		tail_label=
	EOF
	cat >"$1/fake_bench/wiring.conf" <<-'EOF'
		format=ipistorm-wiring/1

	EOF
	cat >"$1/fake_bench/wiring.conf" <<-'EOF'
		format=ipistorm-wiring/1
		bisect_params=cpulist=1 duration=2
		bisect_storm=pairs=0:1 numipi=20000
		bisect_boot=-c 2 -s 2 -p
		bisect_metric=total.wake_mean_ns
		dkms=
		mmtests=fake-bench
		lkp=fake_bench
		testbed=
	EOF
}

@test "install.sh: a benchmark with only its declaration gets a generic shellpack, driver and config" {
	need_snapshot
	fake_bench "$T/s"
	tree "$T/mm" >"$T/before"
	run "$T/s/mmtests/install.sh" "$T/mm"
	[ "$status" -eq 0 ]
	[[ $output == *"generated from the declarations: fake-bench"* ]]
	# Again: the same files (the whole tree's check is the test of the
	# hand-written shellpacks').
	g=$T/mm/shellpack_src/src/fake-bench
	gen() { (cd "$T/mm" && cat .ipistorm-files && sha256sum "$g"/* drivers/driver-fake-bench.sh configs/config-ipistorm-fake-bench); }
	gen >"$T/once"
	"$T/s/mmtests/install.sh" "$T/mm" >/dev/null
	gen | cmp "$T/once" -
	(cd "$g" && ls) >"$T/files"
	printf '%s\n' fake-bench-bench parse-results parse-results-higher parse-results-none \
		shellpack-higher.yaml shellpack-none.yaml shellpack.yaml | diff - "$T/files"
	# The declared parameters and storm are the defaults, and the
	# config's; the suite's tree in the config.
	grep -qx 'FAKE_BENCH_PARAMS="cpulist=1 duration=2"' "$g/fake-bench-bench"
	grep -qx 'FAKE_BENCH_STORM="pairs=0:1 numipi=20000"' "$g/fake-bench-bench"
	grep -qx 'export MMTESTS="fake-bench"' "$T/mm/configs/config-ipistorm-fake-bench"
	grep -qx 'export FAKE_BENCH_PARAMS="cpulist=1 duration=2"' "$T/mm/configs/config-ipistorm-fake-bench"
	grep -qx "export IPISTORM_SOURCE=\${IPISTORM_SOURCE:-$T/s}" "$T/mm/configs/config-ipistorm-fake-bench"
	grep -qx 'default-metric: wake_mean_ns' "$g/shellpack.yaml"
	grep -qx "  title: 'mean wake-up latency'" "$g/shellpack.yaml"
	grep -qx 'preferhigher: true' "$g/shellpack-higher.yaml"
	! grep -q preferhigher "$g/shellpack.yaml" "$g/shellpack-none.yaml" || false
	# MMTests generates the shellpack; what it runs is run.sh with them.
	"$T/mm/shellpack_src/src/refresh.sh" fake-bench
	bash -n "$T/mm/shellpacks/shellpack-bench-fake-bench"
	# shellcheck disable=SC2016 # the shellpack's text
	grep -qF -- '-o $LOGDIR_RESULTS/run ${STORM:+-s "$STORM"} fake_bench $PARAMS >' "$T/mm/shellpacks/shellpack-bench-fake-bench"
	grep -q 'shellpack-bench-fake-bench' "$T/mm/drivers/driver-fake-bench.sh"
	if command -v shellcheck >/dev/null; then
		shellcheck "$T/mm/drivers/driver-fake-bench.sh"
	fi
	"$T/s/mmtests/install.sh" -u "$T/mm"
	tree "$T/mm" >"$T/after"
	diff "$T/before" "$T/after"
}

# fake_run K WAKE...: run.sh's result directory of fake_bench on kernel K
# in MMTests' logs (the test fake-bench): one iteration per WAKE (ns),
# wakeups_per_sec 1e6/WAKE, hit_pct 100-WAKE/10, misses the iteration's
# number; and a warm-up, which is left out.
fake_run() {
	local k=$1 i=1 w d=$T/mm/work/log/$1/iter-0/fake-bench/logs/run
	shift
	mkdir -p "$d"
	printf '1700000000 run-mmtests: Start\n1700000001 run-mmtests: test start :: fake-bench\n1700000002 run-mmtests: Iteration 1 end\n' >"$T/mm/work/log/$k/iter-0/tests-activity"
	echo 1700000000 >"$T/mm/work/log/$k/iter-0/tests-timestamp"
	printf 'format=ipistorm-run/2\nbench=fake_bench\nparams=cpulist=1 duration=2\nstorm=pairs=0:1 numipi=20000\nkernel=%s\nstatus=ok\n' "$k" >"$d/meta.txt"
	printf 'format=fake_bench/1\nstatus=complete\nruntime_ns=1\ntotal.wake_mean_ns=1\n' >"$d/warmup-001.txt"
	for w in "$@"; do
		printf 'format=fake_bench/1\nstatus=complete\nruntime_ns=%s\ntotal.wake_mean_ns=%s\ntotal.wakeups_per_sec=%s\ntotal.hit_pct=%s\ntotal.misses=%s\ncpu1.wake_mean_ns=7\n' \
			$((w * 1000)) "$w" $((1000000 / w)) $((100 - w / 10)) "$i" >"$d/iter-$(printf %03d "$i").txt"
		i=$((i + 1))
	done
}

# gain REPORT STAT METRIC: the compared run's gain on METRIC's STAT row of
# MMTests' text (direction aware, positive when better), "+" or "-", and
# 1 when it is marked significant ("*x%*") else 0.
gain() {
	awk -v stat="$2" -v metric="$3" '$1 == stat && $2 == metric {
		split($0, w, ")"); match(w[2], /-?[0-9.]+%/)
		print (substr(w[2], RSTART, 1) == "-" ? "-" : "+") (index(w[2], "*") > 0) }' "$1"
}

@test "generic parse-results: every declared metric, compare-kernels.sh with its direction" {
	need_snapshot
	fake_bench "$T/s"
	"$T/s/mmtests/install.sh" "$T/mm" >/dev/null
	g=$T/mm/shellpack_src/src/fake-bench
	fake_run base 100 102 98 101 99
	fake_run new 80 82 78 81 79
	# parse-run's lines: the lower-is-better metrics by default, the
	# others by direction, every iteration and no warm-up.
	run "$g/parse-results" "$T/mm/work/log/new/iter-0/fake-bench/logs"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 10 ]
	[ "${lines[0]}" = "$(printf 'wake_mean_ns\t_\t_\t1\t80\t_')" ]
	[ "${lines[9]}" = "$(printf 'runtime_ns\t_\t_\t5\t79000\t_')" ]
	run "$g/parse-results-higher" "$T/mm/work/log/new/iter-0/fake-bench/logs"
	[ "${lines[0]}" = "$(printf 'wakeups_per_sec\t_\t_\t1\t12500\t_')" ]
	[ "${lines[1]}" = "$(printf 'hit_pct\t_\t_\t1\t92\t_')" ]
	run "$g/parse-results-none" "$T/mm/work/log/new/iter-0/fake-bench/logs"
	[ "${lines[4]}" = "$(printf 'misses\t_\t_\t5\t5\t_')" ]
	# MMTests' own reports: the new kernel is better on every metric with
	# a direction (lower times, higher rates), each a gain; no change on
	# the one without.
	# (compare-kernels.sh puts its bin/ first in PATH itself)
	mm() { (cd "$T/mm/work/log" && ASSUME_PACKAGE_INSTALLED=yes "$@"); }
	mm ../../compare-kernels.sh --baseline base --compare new >"$T/ck" 2>/dev/null
	grep -qx 'fake-bench' "$T/ck"
	grep -Eq '^Amean +wake_mean_ns +100\.0 .* 80\.0 ' "$T/ck"
	mm ../../bin/compare-mmtests.pl -d . -b fake-bench -a higher -n base,new >"$T/hi" 2>/dev/null
	mm ../../bin/compare-mmtests.pl -d . -b fake-bench -a none -n base,new >"$T/none" 2>/dev/null
	# Higher is better is summarised by the harmonic mean.
	grep -Eq '^Hmean +wakeups_per_sec +9999\.6 .* 12499\.7 ' "$T/hi"
	r=$(command -v R >/dev/null && echo 1 || echo '[01]')
	[[ "$(gain "$T/ck" Amean wake_mean_ns)" == +$r ]]
	[[ "$(gain "$T/ck" Amean runtime_ns)" == +$r ]]
	[[ "$(gain "$T/hi" Hmean wakeups_per_sec)" == +$r ]]
	[[ "$(gain "$T/hi" Hmean hit_pct)" == +$r ]]
	grep -Eq '^Amean +misses +3\.0 \( +0\.00%\) +3\.0 \( +0\.00%\)' "$T/none"
	# The hand-written reports are the same as before.
	! grep -q 'fake-bench\|wake_mean' "$g/../ipistorm/parse-results" || false
}
