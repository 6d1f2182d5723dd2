#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# "Adding a benchmark is one folder" (docs/bench.md), tested: a copy of
# the tree gains a made-up benchmark, fakebench/ (its Kbuild, its
# declaration with made-up metrics and tail, its wiring with made-up
# testbed values, a test file), and nothing else changes; every tool then
# knows it from the two files alone. Its results are made up as run.sh writes them.
# No kernel, no guest: the Kbuild is evaluated by make, dkms.conf read as
# dkms reads it, the test bed's boots stubbed.

setup_file() {
	R=$BATS_FILE_TMPDIR/tree
	local top=$BATS_TEST_DIRNAME/../..
	mkdir -p "$R"
	tar -C "$top" --exclude=./.git --exclude=./build -cf - . | tar -C "$R" -xf -
	# the tree's files before the folder is added
	(cd "$R" && find . -type f | LC_ALL=C sort | xargs md5sum) >"$BATS_FILE_TMPDIR/before"
	mkdir -p "$R/fakebench/tests"
	echo 'obj-m := fakebench.o' >"$R/fakebench/Kbuild"
	cat >"$R/fakebench/bench.conf" <<-'CONF'
	# A made-up benchmark: nothing outside this folder names it.
	format=ipistorm-bench/7
	name=fakebench
	kind=module
	metrics=total.wake_mean_ns:lower:ns total.wakes_per_sec:higher:per_sec total.missed:lower:count total.spin_pct:none:pct
	directions=total.wake_*_ns:lower
	primary=total.wake_mean_ns
	primary_label=mean made-up wakeup time
	title=wakeups
	summary=total.wake_mean_ns total.missed
	hist=wake
	hist_label=made-up wakeup latency
	cpus=list:cpulist
	duration=yes
	storm=
	instrument=total.probe_ns
	tail=total.wake_p%_ns total.spin_p%_ns
	tail_label=made-up wakeup time
	CONF
	cat >"$R/fakebench/wiring.conf" <<-'CONF'
	format=ipistorm-wiring/1
	testbed=poll:fakebench_poll* icount:fakebench_exact big:fakebench_many bench:fakebench_*
	bisect_params=cpulist=1 duration=3
	bisect_storm=
	bisect_boot=-c 3 -p
	bisect_metric=total.missed/total.wakes
	dkms=fakebench
	mmtests=
	lkp=
	CONF
	printf '%s\n' 'test_fakebench_poll_one() { :; }' 'test_fakebench_exact() { :; }' \
		'test_fakebench_many() { :; }' 'bench_fakebench_cost() { :; }' >"$R/fakebench/tests/fakebench.sh"
	# two result directories as run.sh writes them, 3 runs each: the new
	# kernel's wakeups faster (lower is better), more of them (higher), as
	# many missed, more spinning (no direction)
	mkres "$BATS_FILE_TMPDIR/res/base" 6.1-made-up 1000 2 50
	mkres "$BATS_FILE_TMPDIR/res/new" 6.12-made-up 800 2 70
	export R
}

# mkres DIR KERNEL MEAN MISSED SPIN: a fakebench result directory.
mkres() {
	local d=$1 i m
	mkdir -p "$d"
	printf '%s\n' format=ipistorm-run/2 bench=fakebench 'params=cpulist=1 duration=3' storm= \
		iterations=3 warmup=0 "kernel=$2" cmdline=made-up status=ok >"$d/meta.txt"
	for i in 1 2 3; do
		m=$(($3 + 10 * i))
		printf '%s\n' format=fakebench/1 status=complete "total.wake_mean_ns=$m" \
			"total.wakes_per_sec=$((1000000000 / m))" "total.missed=$4" "total.wakes=1000" \
			"total.spin_pct=$5.$i" total.probe_ns=40 \
			"total.wake_p50_ns=$m" "total.wake_p99_ns=$((m * 3))" "total.wake_p999_ns=$((m * 9))" \
			"total.spin_p50_ns=$((m / 2))" "total.spin_p90_ns=$m" \
			"cpu1.wake_hist_ns.512=$i" "cpu1.wake_hist_ns.1024=$((100 - i))" "cpu1.wake_hist_ns.4096=2" \
			>"$d/iter-00$i.txt"
	done
}

# others: the tree's other module folders (each with a bench.conf that
# is no program's, all with dkms=), sorted, space-separated; fakebench
# sorts before them.
others() {
	(cd "$R" && for c in */bench.conf; do
		[ "${c%/bench.conf}" = fakebench ] || grep -q -x kind=program "$c" || printf '%s\n' "${c%/bench.conf}"
	done) | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'
}

setup() {
	T=$BATS_TEST_TMPDIR
	RES=$BATS_FILE_TMPDIR/res
	# shellcheck source=../lib.sh
	. "$R/scripts/lib.sh"
}

@test "bench: suite_kmods and the top Kbuild find the new folder" {
	[ "$(suite_kmods "$R" | tr '\n' ' ')" = "fakebench $(others) " ]
	# shellcheck disable=SC2016 # make's $(...)
	printf 'include %s\n$(info $(obj-m))\nall: ;\n' "$R/Kbuild" >"$T/kbuild.mk"
	run make -s -f "$T/kbuild.mk" srctree=/nonexistent
	[ "$output" = "fakebench/ $(others | sed 's| |/ |g; s|$|/|')" ]
}

@test "bench: check.sh -d accepts it, and dkms picks it up" {
	run "$R/scripts/check.sh" -d
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# dkms.conf as dkms reads it: bash's ".", from another directory
	run bash -c 'cd / && . "$1" >/dev/null && echo "${BUILT_MODULE_NAME[*]}|${BUILT_MODULE_LOCATION[0]}|${DEST_MODULE_LOCATION[0]}"' _ "$R/dkms.conf"
	[ "$output" = "fakebench $(others)|fakebench/|/updates/dkms" ]
}

@test "bench: run.sh's argument checks know it" {
	run "$R/scripts/run.sh" -h
	[[ $output == *" $(suite_benches "$R" | tr '\n' '|' | sed 's/|$//') [PARAM=VALUE...]"* ]]
	[[ $output == *"|fakebench|"* ]]
	mkdir -p "$T/mods/fakebench"
	: >"$T/mods/fakebench/fakebench.ko"
	# duration=yes: refused without duration=; no storm=: -s refused
	run "$R/scripts/run.sh" -m "$T/mods" -o "$T/out" fakebench cpulist=1
	[ "$status" -eq 2 ]
	[[ $output == *"fakebench needs duration=SECONDS (1 or more)"* ]]
	[[ $output != *"or a storm"* ]]
	run "$R/scripts/run.sh" -m "$T/mods" -o "$T/out" -s numipi=1 fakebench cpulist=1 duration=1
	[ "$status" -eq 2 ]
	[[ $output == *"-s: fakebench takes no storm (its declaration has no storm=)"* ]]
	run "$R/scripts/run.sh" -o "$T/out" -m "$T/none" fakebench cpulist=1 duration=1
	[ "$status" -eq 2 ]
	[[ $output == *"no $T/none/fakebench/fakebench.ko"* ]]
	[ ! -e "$T/out" ]
}

@test "bench: compare.sh compares its results with the declared directions and primary metric" {
	run "$R/scripts/compare.sh" -f csv "$RES/base" "$RES/new"
	[ "$status" -eq 0 ] || [ "$status" -eq 1 ] || { echo "$output"; false; }
	# its metrics, in the declared order, with the declared directions
	[ "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["record"] == "metric" && $c["label"] ~ /6.12/ { printf "%s:%s ", $c["name"], $c["direction"] }' <<<"$output")" = \
		"total.wake_mean_ns:lower total.wakes_per_sec:higher total.missed:lower total.spin_pct:none " ]
	# the text report: the primary metric's headline and its verdict column
	run "$R/scripts/compare.sh" "$RES/base" "$RES/new"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"kernel:        wakeups [pct imp]"* ]]
	[[ $output == *"6.12-made-up       0.80 [19.61%]*"* ]]
	[[ $output == *"total.wake_mean_ns (lower is better)"* ]]
	[[ $output == *"total.wakes_per_sec (higher is better)"* ]]
	[[ $output == *"total.spin_pct (change shown, no direction)"* ]]
	[[ $output == *"6.12-made-up total.wake_mean_ns: mean 19.61% better"* ]]
	# and the instrument the declaration names: the same in both
	[[ $output != *"the instrument differs"* ]]
}

@test "bench: plot.sh runs, tail and hist draw it" {
	run "$R/scripts/plot.sh" -n -o "$T/runs" runs "$RES/base" "$RES/new"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -qF 'set title "mean made-up wakeup time (ns), lower is better: every run' "$T/runs.gp"
	run "$R/scripts/plot.sh" -n -o "$T/tail" tail "$RES/base" "$RES/new"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -qF 'set title "made-up wakeup time (ns), percentile tail' "$T/tail.gp"
	[ "$(grep -c 'with linespoints' "$T/tail.gp")" -eq 4 ]
	grep -q 'title "6.12-made-up: total.spin_p%_ns"' "$T/tail.gp"
	# base's wake p99: the mean of 3 * 1010, 3 * 1020, 3 * 1030
	awk -v RS= 'NR == 1' "$T/tail.dat" | grep -qx '99 2.000000 3060 3'
	run "$R/scripts/plot.sh" -n -o "$T/hist" hist "$RES/base" "$RES/new"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -qF 'set title "made-up wakeup latency (ns), tail distribution' "$T/hist.gp"
	grep -qx '512 6 1' "$T/hist.dat"
}

@test "bench: bisect.sh -b takes its defaults from the wiring" {
	git init -q "$T/src"
	echo 1 >"$T/src/value"
	git -C "$T/src" add -A
	git -C "$T/src" -c user.name=test -c user.email=test@localhost commit -q -m one
	echo 2 >"$T/src/value"
	git -C "$T/src" -c user.name=test -c user.email=test@localhost commit -q -am two
	old=$(git -C "$T/src" rev-parse HEAD~1) new=$(git -C "$T/src" rev-parse HEAD)
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "QEMU emulator version 7.2.0"\n' >"$T/bin/qemu-system-x86_64"
	chmod +x "$T/bin/qemu-system-x86_64"
	# the build hook fails: nothing is measured, the state says what would be
	PATH="$T/bin:$PATH" IPISTORM_CACHE=$T/cache IPISTORM_BUILD=$T/build \
		run "$R/scripts/bisect.sh" -b fakebench -H false -d "$T/state" -B "$T/kbuild" "$T/src" "$old" "$new"
	grep -qx 'bench=fakebench' "$T/state/ident" || { echo "$output"; false; }
	grep -qx 'params=cpulist=1 duration=3' "$T/state/ident"
	grep -qx 'storm=' "$T/state/ident"
	grep -qx 'boot=-c 3 -p' "$T/state/ident"
	grep -q '^declare -- metric="total.missed/total.wakes"' "$T/state/run.env"
	run "$R/scripts/bisect.sh" -b nosuch "$T/src" "$old" "$new"
	[ "$status" -eq 2 ]
	[[ $output == *"one of: fakebench idle_reentry ipistorm nohz_csd"* ]]
}

# The test bed in a copy whose builds, boots, bats and DKMS check are
# stubs: the boot.sh stub logs its arguments.
@test "bench: the test bed's boots run its tests, by their globs" {
	cp -r "$R" "$T/tree"
	mkdir -p "$T/bin" "$T/b/6.1"
	for f in vm/build-modules.sh vm/mkinitramfs.sh vm/dkms-check.sh; do
		printf '#!/bin/sh\n' >"$T/tree/$f"
	done
	printf '#!/bin/sh\necho "1..0"\n' >"$T/bin/bats"
	printf '#!/bin/sh\necho "$*" >>"%s/boots"\necho "1..0"\n' "$T" >"$T/tree/vm/boot.sh"
	chmod +x "$T/bin/bats"
	echo format=ipistorm-steps/1 >"$T/steps"
	PATH="$T/bin:$PATH" IPISTORM_CACHE=$T/cache IPISTORM_BUILD=$T/b run "$T/tree/vm/test.sh" -j 1 -S "$T/steps" 6.1
	echo "$output"
	# poll, icount and big (big boots 6.12 only) run its globs
	grep -q -- '-p -a IPISTORM_SM_IDLE=0 -l .*/console-poll.log 6.1 -- .*fakebench_poll\*' "$T/boots" || { cat "$T/boots"; false; }
	grep -q -- '/console-icount.log 6.1 -- .*fakebench_exact' "$T/boots"
	PATH="$T/bin:$PATH" IPISTORM_CACHE=$T/cache IPISTORM_BUILD=$T/b run "$T/tree/vm/test.sh" -j 1 -S "$T/steps" 6.12
	echo "$output"
	grep -q -- '/console-big.log 6.12 -- .*fakebench_many' "$T/boots" || { cat "$T/boots"; false; }
	# the runner selects its tests by those globs
	run "$R/scripts/selftest.sh" -l 'fakebench_poll*' fakebench_exact
	[ "$output" = "fakebench_poll_one
fakebench_exact" ]
	# vm/bench.sh's -b list
	: >"$T/boots"
	IPISTORM_CACHE=$T/cache IPISTORM_BUILD=$T/b run "$T/tree/vm/bench.sh" 6.1
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $(cat "$T/boots") == *" 6.1 -- -b fakebench_* ipistorm_* nohz_csd_*"* ]] || { cat "$T/boots"; false; }
}

# MMTests and lkp-tests: fakebench wires mmtests= and lkp= empty here;
# a benchmark with only its declaration is taken through both installers,
# compare-kernels.sh and lkp's stats by mmtests/tests/mmtests.bats and
# lkp/tests/lkp.bats ("a benchmark with only its declaration gets ...").

# Checked last, after every tool ran (each writes only into the result
# directories or the test's own folder).
@test "bench: no file but the new folder's changed" {
	(cd "$R" && find . -type f -not -path './fakebench/*' | LC_ALL=C sort | xargs md5sum) >"$T/after"
	diff "$BATS_FILE_TMPDIR/before" "$T/after"
}
