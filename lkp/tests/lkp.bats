#!/usr/bin/env bats
# The lkp-tests integration: install.sh into a copy of the lkp-tests
# snapshot (LKP_SNAPSHOT, default ../shared/third_party/lkp-tests beside
# the repository; skipped when absent), then lkp's own tools on what it
# installed: sbin/split-job on every job file, bin/program-options on
# every run, the stats spec on the suite's parse fixtures and the
# file-sorting spec (Debian's ruby, ruby-rspec ...: vm/install-deps.sh).

bats_require_minimum_version 1.5.0

# One installed copy for the tests that only read it: the suite's
# integration and the generic program of fake_bench (below), a made-up
# benchmark, installed from a copy of the suite that declares it.
setup_file() {
	SNAP=${LKP_SNAPSHOT:-$BATS_TEST_DIRNAME/../../../shared/third_party/lkp-tests}
	[ -x "$SNAP/sbin/split-job" ] || return 0
	cp -a "$SNAP" "$BATS_FILE_TMPDIR/lkp"
	chmod -R u+w "$BATS_FILE_TMPDIR/lkp"
	L=$BATS_TEST_DIRNAME/.. REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	fake_bench "$BATS_FILE_TMPDIR/s"
	"$BATS_FILE_TMPDIR/s/lkp/install.sh" "$BATS_FILE_TMPDIR/lkp" >/dev/null
}

setup() {
	L=$BATS_TEST_DIRNAME/..
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	F=$REPO/scripts/tests/fixtures
	T=$BATS_TEST_TMPDIR
	SNAP=${LKP_SNAPSHOT:-$REPO/../shared/third_party/lkp-tests}
	JOBS="ipistorm ipistorm-published idle_reentry-fastpath nohz_csd-nohz-kick"
	BENCHES="ipistorm idle_reentry nohz_csd"
}

need_snapshot() {
	[ -x "$SNAP/sbin/split-job" ] || skip "no lkp-tests snapshot at $SNAP (set LKP_SNAPSHOT)"
	cp -a "$SNAP" "$T/lkp"
	chmod -R u+w "$T/lkp"
}

need_ruby() {
	command -v ruby >/dev/null || skip "no ruby (vm/install-deps.sh installs Debian's)"
	ruby -e 'require "active_support"; require "git"; require "tty-command"' 2>/dev/null ||
		skip "no ruby-activesupport, ruby-git or ruby-tty-command (vm/install-deps.sh)"
}

need_rspec() {
	need_ruby
	command -v rspec >/dev/null || skip "no rspec (ruby-rspec, vm/install-deps.sh)"
}

installed() {
	[ -x "$SNAP/sbin/split-job" ] || skip "no lkp-tests snapshot at $SNAP (set LKP_SNAPSHOT)"
	ln -s "$BATS_FILE_TMPDIR/lkp" "$T/lkp"
	export LKP_SRC=$BATS_FILE_TMPDIR/lkp
}

# tree DIR: every path with its type, mode and content hash.
tree() {
	(cd "$1" && find . -printf '%p %y %m %l\n' | LC_ALL=C sort &&
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}

# params PROGRAM JOB: the parameters JOB gives PROGRAM (its YAML hash).
params() {
	ruby -ryaml -e 'h = YAML.load_file(ARGV[1])[ARGV[0]]; puts((h || {}).keys)' "$1" "$2"
}

@test "install.sh: -h is usage, an unknown option exit 2" {
	run "$L/install.sh" -h
	[ "$status" -eq 0 ]
	[[ $output == *"install.sh [-s SUITE] LKP_DIR"* ]]
	run "$L/install.sh" -z "$T"
	[ "$status" -eq 2 ]
	run "$L/install.sh"
	[ "$status" -eq 2 ]
}

@test "install.sh: refuses a directory that is not lkp-tests" {
	run "$L/install.sh" "$T"
	[ "$status" -eq 1 ]
	[[ $output == *"not an lkp-tests checkout"* ]]
}

@test "install.sh: install twice, uninstall: the checkout is byte-identical" {
	need_snapshot
	tree "$T/lkp" >"$T/before"
	"$L/install.sh" "$T/lkp"
	tree "$T/lkp" >"$T/once"
	"$L/install.sh" "$T/lkp"
	tree "$T/lkp" >"$T/twice"
	cmp "$T/once" "$T/twice"
	for b in $BENCHES; do
		[ -x "$T/lkp/programs/$b/run" ] && [ -x "$T/lkp/programs/$b/parse" ]
		[ -f "$T/lkp/programs/$b/meta.yaml" ] && [ -f "$T/lkp/programs/$b/include" ]
		[ -f "$T/lkp/programs/$b/pkg/PKGBUILD" ]
		[ "$(grep -cx "$b" "$T/lkp/etc/linux-perf-test-cases")" = 1 ]
	done
	[ -x "$T/lkp/programs/ipistorm-modules/setup" ]
	grep -qxF "ipistorm_source=\"\${IPISTORM_SOURCE:-$REPO}\"" "$T/lkp/lib/tests/ipistorm.sh"
	grep -qxF 'ipistorm\.runtime_ns: -1' "$T/lkp/etc/index-perf-all.yaml"
	"$L/install.sh" -u "$T/lkp"
	tree "$T/lkp" >"$T/after"
	diff "$T/before" "$T/after"
	run "$L/install.sh" -u "$T/lkp"
	[ "$status" -eq 1 ]
}

@test "install.sh: refuses to overwrite a file or repeat a line of the checkout's own" {
	need_snapshot
	mkdir -p "$T/lkp/programs/nohz_csd"
	echo mine >"$T/lkp/programs/nohz_csd/run"
	tree "$T/lkp" >"$T/before"
	run "$L/install.sh" "$T/lkp"
	[ "$status" -eq 1 ]
	[[ $output == *"programs/nohz_csd/run exists and was not installed here"* ]]
	tree "$T/lkp" >"$T/after"
	diff "$T/before" "$T/after"
	rm -r "$T/lkp/programs/nohz_csd"
	echo ipistorm >>"$T/lkp/etc/linux-perf-test-cases"
	tree "$T/lkp" >"$T/before"
	run "$L/install.sh" "$T/lkp"
	[ "$status" -eq 1 ]
	[[ $output == *"already has the line 'ipistorm'"* ]]
	tree "$T/lkp" >"$T/after"
	diff "$T/before" "$T/after"
}

@test "lkp sbin/split-job: every job file, one atom per pair class" {
	installed
	need_ruby
	for j in $JOBS; do
		mkdir "$T/$j"
		(cd "$T/lkp" && ruby sbin/split-job -t lkp-skl-d01 -o "$T/$j" "jobs/$j.yaml") >"$T/$j.log" 2>&1
		! grep -v 'WARN -- skip non-executable' "$T/$j.log" | grep -v " => $T/$j/" || false
		ls "$T/$j"/*.yaml >/dev/null
		for atom in "$T/$j"/*.yaml; do
			grep -qx 'ipistorm-modules:' "$atom"
			grep -qx 'category: functional' "$atom"
			grep -qx -- '- MODULE_SIG_FORCE: "n"' "$atom"
		done
	done
	[ "$(find "$T/ipistorm" -name '*.yaml' | wc -l)" = 4 ]
	for c in smt llc cross-llc cross-socket; do
		grep -qx "  pair: $c" "$T/ipistorm"/*-"$c"-*.yaml
	done
	grep -qx '  cpulist: 8' "$T/ipistorm-published"/*.yaml
	grep -qx '  offset: 8' "$T/ipistorm-published"/*.yaml
	grep -qx 'kernel_cmdline: idle=poll' "$T/idle_reentry-fastpath"/*.yaml
	grep -qx '  idle: poll' "$T/idle_reentry-fastpath"/*.yaml
	grep -qx -- '- KPROBES: "y"' "$T/nohz_csd-nohz-kick"/*.yaml
}

@test "lkp bin/program-options: every run takes what the jobs give it, as meta.yaml lists" {
	installed
	need_ruby
	for b in $BENCHES; do
		"$T/lkp/bin/program-options" "$T/lkp/programs/$b/run" | sed 's/^- //' >"$T/$b.options"
		[ -s "$T/$b.options" ]
		ruby -ryaml -e 'puts YAML.load_file(ARGV[0])["parameters"].keys' \
			"$T/lkp/programs/$b/meta.yaml" | diff "$T/$b.options" -
	done
	for j in $JOBS; do
		b=${j%%-*}
		params "$b" "$T/lkp/jobs/$j.yaml" >"$T/$j.params"
		[ -s "$T/$j.params" ]
		while read -r p; do
			grep -qx "$p" "$T/$b.options" || { echo "jobs/$j.yaml: $b has no parameter $p"; false; }
		done <"$T/$j.params"
	done
	[ -z "$(params ipistorm-modules "$T/lkp/jobs/ipistorm.yaml")" ]
	[ -z "$("$T/lkp/bin/program-options" "$T/lkp/programs/ipistorm-modules/setup")" ]
}

@test "lkp spec/unit/lib/stats_spec.rb: the suite's parse fixtures" {
	installed
	need_rspec
	cd "$LKP_SRC"
	run rspec --no-color spec/unit/lib/stats_spec.rb \
		-e 'fixtures/stats/ipistorm/' -e 'fixtures/stats/idle_reentry/' -e 'fixtures/stats/nohz_csd/'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"6 examples, 0 failures"* ]]
}

@test "lkp spec/unit/lib/file_sorting_spec.rb: etc/ and pkg depends kept sorted" {
	installed
	need_rspec
	cd "$LKP_SRC"
	run rspec --no-color spec/unit/lib/file_sorting_spec.rb
	[ "$status" -eq 0 ] || { echo "$output" | grep -A8 'Failures:'; false; }
	[[ $output == *" 0 failures"* ]]
	# The check covers what install added.
	run rspec --no-color spec/unit/lib/file_sorting_spec.rb -e 'etc/index-perf-all.yaml' \
		-e 'programs/ipistorm/pkg/depends'
	[[ $output == *"2 examples, 0 failures"* ]]
}

@test "parse: the fixtures are current, each iteration's stats are its result's" {
	need_ruby
	"$L/tests/fixtures/make-fixtures.sh" "$T/stats"
	diff -r "$L/spec/fixtures/stats" "$T/stats"
	s=$L/spec/fixtures/stats
	grep -h '^runtime_ns=' "$F"/ipistorm-6.1/iter-*.txt | sed 's/=/: /' | diff - <(grep '^runtime_ns:' "$s/ipistorm/qemu-6.1.yaml")
	grep -h '^total.lat_p99_ns=' "$F"/ipistorm-6.12/iter-*.txt | sed 's/^total.//; s/=/: /' |
		diff - <(grep '^lat_p99_ns:' "$s/ipistorm/qemu-6.12.yaml")
	grep -h '^total.fast_pct=' "$F"/idle_reentry-light-6.12/iter-*.txt | sed 's/^total.//; s/=/: /' |
		diff - <(grep '^fast_pct:' "$s/idle_reentry/qemu-6.12.yaml")
	grep -h '^total.kicks=' "$F"/nohz_csd-6.1/iter-*.txt | sed 's/^total.//; s/=/: /' |
		diff - <(grep '^kicks:' "$s/nohz_csd/qemu-6.1.yaml")
	# meta.yaml's results are what parse prints, in its order.
	for b in $BENCHES; do
		for y in "$s/$b"/*.yaml; do
			ruby -ryaml -e 'puts YAML.load_file(ARGV[0])["results"].keys' "$L/programs/$b/meta.yaml" |
				diff - <(cut -d: -f1 "$y" | awk '!seen[$0]++')
		done
	done
	for y in "$s"/*/*.yaml; do
		# Only aggregates, the same stats in every iteration (5 each), no
		# name lkp takes for a failure.
		! grep -E '^(cpu|sender)[0-9]|^[^:]*\.' "$y" || false
		[ -z "$(cut -d: -f1 "$y" | sort | uniq -c | awk '$1 != 5')" ]
		! grep -E '^[^:]*(error|warn|fail):' "$y" || false
	done
}

@test "parse: a result not complete or of another format fails, a missing mean is left out" {
	need_ruby
	s=$L/spec/fixtures/stats
	sed '0,/^status=complete$/s//status=stopped/' "$s/ipistorm/qemu-6.12" >"$T/stopped"
	run -1 env LKP_SRC="$L" "$L/programs/ipistorm/parse" <"$T/stopped"
	[[ $output == *"iteration 1: status=stopped"* ]]
	sed 's|^format=idle_reentry/4$|format=idle_reentry/9|' "$s/idle_reentry/qemu-6.1" >"$T/v9"
	run -1 env LKP_SRC="$L" "$L/programs/idle_reentry/parse" <"$T/v9"
	[[ $output == *"not idle_reentry/1 or idle_reentry/2 or idle_reentry/3 or idle_reentry/4 or idle_reentry/5 or idle_reentry/6"* ]]
	# Iterations of different formats are not one record.
	sed '0,\|^format=idle_reentry/4$|s||format=idle_reentry/3|' "$s/idle_reentry/qemu-6.1" >"$T/mixed"
	run -1 env LKP_SRC="$L" "$L/programs/idle_reentry/parse" <"$T/mixed"
	[[ $output == *"iteration 2: format=idle_reentry/4, not idle_reentry/3 as iteration 1"* ]]
	# An iteration with no balance has no delay mean: no delay stat at all.
	awk '/^==> iter-002/ { n = 1 } n && /^total.delay_/ && !/_n=/ { next } { print }' \
		"$s/nohz_csd/qemu-6.12" >"$T/nodelay"
	LKP_SRC="$L" "$L/programs/nohz_csd/parse" <"$T/nodelay" >"$T/nodelay.stats"
	! grep '^delay_' "$T/nodelay.stats" || false
	[ "$(grep -c '^kicks:' "$T/nodelay.stats")" = 5 ]
}

@test "parse: each program reads the format its module writes now" {
	need_ruby
	for b in $BENCHES; do
		fmt=$(sed -n 's/^#define [A-Z_]*FORMAT[[:space:]]*"\(.*\)"$/\1/p' "$REPO/$b/${b}_main.c")
		[ -n "$fmt" ]
		sed "s|^format=$b/[0-9]*\$|format=$fmt|" "$L/spec/fixtures/stats/$b/qemu-6.12" >"$T/$b"
		run env LKP_SRC="$L" "$L/programs/$b/parse" <"$T/$b"
		[ "$status" -eq 0 ] || { echo "$b: $output"; false; }
	done
	# and a real record of nohz_csd/3 (the test bed, 6.12.95, 4 vCPUs,
	# run.sh -n 2 -w 0 nohz_csd load_cpus=0 duration=2)
	for f in "$L"/tests/fixtures/nohz_csd-6.12/iter-*.txt; do
		echo "==> ${f##*/} <=="
		cat "$f"
	done >"$T/record"
	grep -q '^format=nohz_csd/3$' "$T/record"
	LKP_SRC="$L" "$L/programs/nohz_csd/parse" <"$T/record" >"$T/stats"
	[ "$(grep -c '^balanced: ' "$T/stats")" = 2 ]
}

# mean KEY FILE...: the mean of KEY= over the result files, as %.6g.
mean() {
	k=$1
	shift
	awk -F= -v k="$k" '$1 == k { s += $2; n++ } END { printf "%.6g\n", s / n }' "$@"
}

@test "lkp's result-root pipeline: dump-stat, create-stats-matrix keep each stat's mean" {
	installed
	need_ruby
	for j in ipistorm-published idle_reentry-fastpath nohz_csd-nohz-kick; do
		b=${j%%-*}
		mkdir "$T/$j"
		(cd "$LKP_SRC" && ruby sbin/split-job -t lkp-skl-d01 -o "$T/$j" "jobs/$j.yaml") >/dev/null 2>&1
		for k in 6.1 6.12; do
			R=$T/rr/$b-$k
			mkdir -p "$R"
			cp "$T/$j"/*.yaml "$R/job.yaml"
			cp "$LKP_SRC/spec/fixtures/stats/$b/qemu-$k" "$R/$b"
			# dump-stat writes $b.json, it does not read $b.
			# shellcheck disable=SC2094
			(cd "$R" && export RESULT_ROOT=$R &&
				"$LKP_SRC/programs/$b/parse" <"$b" | "$LKP_SRC/sbin/dump-stat" "$b" &&
				ruby "$LKP_SRC/bin/create-stats-matrix" "$R") >"$T/$b-$k.log" 2>&1 ||
				{ cat "$T/$b-$k.log"; false; }
			[ -f "$R/stats.json" ]
		done
	done
	# lkp drops a stat that is 0 in every iteration: "absent".
	stat() {
		ruby -rjson -e 'v = JSON.parse(File.read(ARGV[0]))[ARGV[1]]; puts(v ? format("%.6g", v) : "absent")' "$1" "$2"
	}
	for k in 6.1 6.12; do
		[ "$(stat "$T/rr/ipistorm-$k/stats.json" ipistorm.runtime_ns)" = \
			"$(mean runtime_ns "$F/ipistorm-$k"/iter-*.txt)" ]
		[ "$(stat "$T/rr/idle_reentry-$k/stats.json" idle_reentry.total_mean_ns)" = \
			"$(mean total.total_mean_ns "$F/idle_reentry-light-$k"/iter-*.txt)" ]
		[ "$(stat "$T/rr/nohz_csd-$k/stats.json" nohz_csd.kicks)" = \
			"$(mean total.kicks "$F/nohz_csd-$k"/iter-*.txt)" ]
	done
	# The fast path: none on 6.1, every re-entry on 6.12; the zero side of
	# each is not in stats.json.
	[ "$(stat "$T/rr/idle_reentry-6.1/stats.json" idle_reentry.fast_pct)" = absent ]
	[ "$(stat "$T/rr/idle_reentry-6.1/stats.json" idle_reentry.pick_idle_pct)" = 100 ]
	[ "$(stat "$T/rr/idle_reentry-6.12/stats.json" idle_reentry.fast_pct)" = 100 ]
	[ "$(stat "$T/rr/idle_reentry-6.12/stats.json" idle_reentry.pick_idle_pct)" = absent ]
}

# fake_run BENCH STATUS: run programs/BENCH/run as lkp would, with a
# stand-in scripts/run.sh copying the suite's fixture results (their
# status set to STATUS) in the tree ipistorm-modules builds.
fake_run() {
	installed
	mkdir -p "$T/tmp" "$T/result"
	tree=$T/tmp/ipistorm-$(uname -r)
	mkdir -p "$tree/scripts" "$tree/$1"
	: >"$tree/$1/$1.ko"
	cat >"$tree/scripts/run.sh" <<-EOF
		#!/bin/sh
		while getopts n:w:o:s: o; do [ "\$o" != o ] || out=\$OPTARG; done
		shift \$((OPTIND - 1))
		echo "\$*" >"$T/run.args"
		mkdir -p "\$out" && cp "$F/$1-6.12"/meta.txt "$F/$1-6.12"/iter-*.txt "\$out"
		sed -i 's/^status=complete\$/status=$2/' "\$out"/iter-002.txt
		echo "run.sh: a line on stderr" >&2
	EOF
	run --separate-stderr env LKP_SRC="$T/lkp" TMP="$T/tmp" TMP_RESULT_ROOT="$T/result" \
		BENCHMARK_ROOT="$T/none" cpulist=0 offset=1 load_cpus=0 duration=2 \
		bash "$T/lkp/programs/$1/run"
}

@test "run: a clean run writes nothing on stderr, a result not complete dies" {
	fake_run ipistorm complete
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(cat "$T/run.args")" = "ipistorm numipi=100000 single=1 wait=1 cpulist=0 offset=1" ]
	[ -f "$T/result/ipistorm.meta.txt" ]
	echo "$output" | LKP_SRC="$T/lkp" "$T/lkp/programs/ipistorm/parse" >"$T/stats"
	[ "$(grep -c '^runtime_ns:' "$T/stats")" = 5 ]
	fake_run nohz_csd failed
	[ "$status" -eq 99 ]
	[[ $stderr == *"iter-002.txt: status=failed"* ]]
	[ "$(cat "$T/run.args")" = "nohz_csd load_cpus=0 duration=2" ]
}

@test "run: idle= the job asks for is checked against the kernel's command line" {
	installed
	grep -q ' idle=poll\b' /proc/cmdline && skip "this kernel runs with idle=poll"
	run --separate-stderr env LKP_SRC="$T/lkp" TMP="$T/tmp" TMP_RESULT_ROOT="$T" idle=poll \
		bash "$T/lkp/programs/idle_reentry/run"
	[ "$status" -eq 99 ]
	[[ $stderr == *"the job asks for idle=poll"* ]]
}

@test "the programs' shell scripts are shellcheck clean" {
	command -v shellcheck >/dev/null || skip "no shellcheck"
	cd "$L"
	shellcheck -x -P SCRIPTDIR programs/*/run programs/*/setup lib/tests/ipistorm.sh
}

# copy DIR: the integration, the suite's scripts, Kbuild and the
# declarations of every module it lists.
copy() {
	mkdir -p "$1/scripts"
	cp -a "$L" "$1/lkp"
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

@test "install.sh: programs and etc/ that drift from the declarations are refused" {
	copy "$T/s"
	mkdir "$T/dest"
	sed -i 's/^ipistorm\\\.runtime_ns: -1$/ipistorm\\.runtime_ns: 1/' "$T/s/lkp/etc/index-perf-all.yaml"
	run "$T/s/lkp/install.sh" "$T/dest"
	[ "$status" -eq 1 ]
	[[ $output == *'ipistorm\.runtime_ns: 1: against the declaration wired lkp=ipistorm, whose metrics= has runtime_ns:lower'* ]]
	[[ $output == *"the lkp directions differ from the declarations"* ]]
	cp "$L/etc/index-perf-all.yaml" "$T/s/lkp/etc/"
	sed -i '/^nohz_csd$/d' "$T/s/lkp/etc/linux-perf-test-cases"
	run "$T/s/lkp/install.sh" "$T/dest"
	[ "$status" -eq 1 ]
	[[ $output == *"nohz_csd/wiring.conf declares lkp=nohz_csd, but lkp/etc/linux-perf-test-cases does not list it"* ]]
	cp "$L/etc/linux-perf-test-cases" "$T/s/lkp/etc/"
	sed -i 's/^lkp=.*/lkp=/' "$T/s/idle_reentry/wiring.conf"
	run "$T/s/lkp/install.sh" "$T/dest"
	[ "$status" -eq 1 ]
	[[ $output == *"lkp/programs/idle_reentry is no declared benchmark's"* ]]
	[ -z "$(ls -A "$T/dest")" ]
}

# fake_bench DIR: a copy of the suite (copy) with a benchmark of its own,
# fake_bench: a folder with only its declaration (lkp=fake_bench), its
# metrics of each direction (ns, per_sec, pct, count; runtime_ns without
# total.), a storm and no hand-written file.
fake_bench() {
	copy "$1"
	mkdir -p "$1/fake_bench"
	cat >"$1/fake_bench/bench.conf" <<-'CONF'
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
	CONF
	cat >"$1/fake_bench/wiring.conf" <<-'CONF'
		format=ipistorm-wiring/1
		bisect_params=cpulist=1 duration=2
		bisect_storm=pairs=0:1 numipi=20000
		bisect_boot=-c 2 -s 2 -p
		bisect_metric=total.wake_mean_ns
		dkms=
		mmtests=fake-bench
		lkp=fake_bench
		testbed=
	CONF
}

@test "install.sh: a benchmark with only its declaration gets a generic program, job, testcase and signs" {
	need_snapshot
	fake_bench "$T/s"
	tree "$T/lkp" >"$T/before"
	run "$T/s/lkp/install.sh" "$T/lkp"
	[ "$status" -eq 0 ]
	[[ $output == *"generated from the declarations: fake_bench"* ]]
	# Again: the same files and lines (the whole tree's check is the test
	# of the hand-written programs').
	p=$T/lkp/programs/fake_bench
	gen() { cat "$T/lkp/.ipistorm-files" "$T/lkp"/etc/linux-perf-test-cases "$T/lkp"/etc/index-perf-all.yaml "$p"/[!p]* "$T/lkp/jobs/fake_bench.yaml"; }
	gen >"$T/once"
	"$T/s/lkp/install.sh" "$T/lkp" >/dev/null
	gen | cmp "$T/once" -
	[ -x "$p/run" ] && [ -x "$p/parse" ] && [ -f "$p/meta.yaml" ] && [ -f "$p/include" ]
	[ "$(readlink "$p/pkg")" = ../ipistorm/pkg ]
	[ "$(grep -cx fake_bench "$T/lkp/etc/linux-perf-test-cases")" = 1 ]
	# A sign per metric with a direction, none for the one without.
	grep '^fake_bench' "$T/lkp/etc/index-perf-all.yaml" | LC_ALL=C sort >"$T/signs"
	printf '%s\n' 'fake_bench\.hit_pct: 1' 'fake_bench\.runtime_ns: -1' \
		'fake_bench\.wake_mean_ns: -1' 'fake_bench\.wakeups_per_sec: 1' | diff - "$T/signs"
	# shellcheck disable=SC2016 # the text of run
	grep -qxF ': "${params:=cpulist=1 duration=2}"' "$p/run"
	# shellcheck disable=SC2016
	grep -qxF ': "${storm=pairs=0:1 numipi=20000}"' "$p/run"
	grep -qxF "  params: 'cpulist=1 duration=2'" "$T/lkp/jobs/fake_bench.yaml"
	if command -v shellcheck >/dev/null; then
		(cd "$T/lkp" && shellcheck -x -P SCRIPTDIR programs/fake_bench/run)
	fi
	"$T/s/lkp/install.sh" -u "$T/lkp"
	tree "$T/lkp" >"$T/after"
	diff "$T/before" "$T/after"
	# A testcase line here for it, without a program here, is refused.
	echo fake_bench >>"$T/s/lkp/etc/linux-perf-test-cases"
	run "$T/s/lkp/install.sh" "$T/lkp"
	[ "$status" -eq 1 ]
	[[ $output == *"lists fake_bench, which has no lkp/programs/fake_bench/"* ]]
}

@test "generic program: run.sh's results into lkp's stats, with the declared directions" {
	installed
	need_ruby
	# A stand-in run.sh in the tree ipistorm-modules builds: three
	# iterations of WAKE 100, 110, 120 ns (wakeups_per_sec 1e6/WAKE,
	# hit_pct 100-WAKE/10, misses 0 but in the first) and a warm-up.
	tree=$T/tmp/ipistorm-$(uname -r)
	mkdir -p "$tree/scripts" "$tree/fake_bench" "$T/result"
	: >"$tree/fake_bench/fake_bench.ko"
	cat >"$tree/scripts/run.sh" <<-EOF
		#!/bin/sh
		while getopts n:w:o:s: o; do
			case \$o in o) out=\$OPTARG ;; s) echo "\$OPTARG" >"$T/run.storm" ;; esac
		done
		shift \$((OPTIND - 1))
		echo "\$*" >"$T/run.args"
		mkdir -p "\$out"
		printf 'format=ipistorm-run/2\nbench=fake_bench\n' >"\$out/meta.txt"
		printf 'format=fake_bench/1\nstatus=complete\nruntime_ns=5\n' >"\$out/warmup-001.txt"
		i=1
		for w in 100 110 120; do
			printf 'format=fake_bench/1\nstatus=complete\nruntime_ns=%s\ntotal.wake_mean_ns=%s\ntotal.wakeups_per_sec=%s\ntotal.hit_pct=%s\ntotal.misses=%s\ncpu1.wake_mean_ns=7\n' \
				\$((w * 1000)) \$w \$((1000000 / w)) \$((100 - w / 10)) \$((i == 1)) >"\$out/iter-00\$i.txt"
			i=\$((i + 1))
		done
	EOF
	run --separate-stderr env LKP_SRC="$T/lkp" TMP="$T/tmp" TMP_RESULT_ROOT="$T/result" BENCHMARK_ROOT="$T/none" \
		bash "$T/lkp/programs/fake_bench/run"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(cat "$T/run.args")" = "fake_bench cpulist=1 duration=2" ]
	[ "$(cat "$T/run.storm")" = "pairs=0:1 numipi=20000" ]
	[ -f "$T/result/fake_bench.meta.txt" ]
	# parse: each declared metric once per iteration, no warm-up, no cpuN.
	R=$T/rr
	mkdir -p "$R"
	echo "$output" >"$R/fake_bench"
	"$T/lkp/programs/fake_bench/parse" <"$R/fake_bench" >"$T/stats"
	[ "$(wc -l <"$T/stats")" = 15 ]
	head -n 5 "$T/stats" | diff - <(printf '%s\n' 'wake_mean_ns: 100' 'wakeups_per_sec: 10000' \
		'runtime_ns: 100000' 'misses: 1' 'hit_pct: 90')
	# lkp's own tools on what was generated: its job splits into one atom
	# with the setup, run takes what meta.yaml lists and the job gives
	# (the file-sorting spec on etc/ is the test above's, on this copy).
	mkdir "$T/atoms"
	(cd "$T/lkp" && ruby sbin/split-job -t lkp-skl-d01 -o "$T/atoms" jobs/fake_bench.yaml) >/dev/null 2>&1
	[ "$(find "$T/atoms" -name '*.yaml' | wc -l)" = 1 ]
	grep -qx '  storm: pairs=0:1 numipi=20000' "$T/atoms"/fake_bench-*.yaml
	grep -qx 'ipistorm-modules:' "$T/atoms"/fake_bench-*.yaml
	grep -qx 'category: functional' "$T/atoms"/fake_bench-*.yaml
	p=$T/lkp/programs/fake_bench
	"$T/lkp/bin/program-options" "$p/run" | sed 's/^- //' >"$T/options"
	ruby -ryaml -e 'puts YAML.load_file(ARGV[0])["parameters"].keys' "$p/meta.yaml" | diff "$T/options" -
	params fake_bench "$T/lkp/jobs/fake_bench.yaml" | diff "$T/options" -
	# lkp's result-root pipeline: stats.json holds each stat's mean (a
	# stat 0 in every iteration would be dropped; misses is not).
	cp "$T/atoms"/*.yaml "$R/job.yaml"
	# shellcheck disable=SC2094 # dump-stat writes fake_bench.json
	(cd "$R" && "$LKP_SRC/programs/fake_bench/parse" <fake_bench |
		RESULT_ROOT=$R "$LKP_SRC/sbin/dump-stat" fake_bench &&
		RESULT_ROOT=$R ruby "$LKP_SRC/bin/create-stats-matrix" "$R") >"$T/pipeline.log" 2>&1 ||
		{ cat "$T/pipeline.log"; false; }
	# lkp's reading of each stat: its mean, and the direction etc/'s signs
	# give a 10 % rise (lkp's kpi_stat_direction): the declared ones.
	(cd "$LKP_SRC" && ruby -rjson -e 'require "./lib/stats"
		s = JSON.parse(File.read(ARGV[0]))
		%w[wake_mean_ns wakeups_per_sec runtime_ns misses hit_pct].each do |k|
		  n = "fake_bench.#{k}"
		  puts "#{n} #{format("%.6g", s[n])} #{kpi_stat_direction(n, 10)}"
		end' "$R/stats.json") >"$T/read"
	cat "$T/read"
	diff - "$T/read" <<-'EOF'
		fake_bench.wake_mean_ns 110 regression
		fake_bench.wakeups_per_sec 9141 improvement
		fake_bench.runtime_ns 110000 regression
		fake_bench.misses 0.333333 undefined
		fake_bench.hit_pct 89 improvement
	EOF
	# A result of another module's format, or not complete, is refused.
	sed 's|^format=fake_bench/1$|format=ipistorm/1|' "$R/fake_bench" >"$T/other"
	run -1 "$LKP_SRC/programs/fake_bench/parse" <"$T/other"
	[[ $output == *"iteration 1: format=ipistorm/1, not fake_bench/N"* ]]
	sed '0,/^status=complete$/s//status=stopped/' "$R/fake_bench" >"$T/stopped"
	run -1 "$LKP_SRC/programs/fake_bench/parse" <"$T/stopped"
	[[ $output == *"iteration 1: status=stopped"* ]]
}
