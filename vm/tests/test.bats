#!/usr/bin/env bats
# vm/test.sh's pool with every step a stub: a copy of the tree whose
# builds, boots, demo, DKMS check, bats and listed steps log when they
# start and end and print fixed TAP. Every step must run once, in the
# pool's order, no more of them at once than the slots allow, and the
# report must count every result. No guest; seconds.

bats_require_minimum_version 1.5.0

# The copy: vm/ and scripts/lib.sh, which test.sh sources, the
# declarations and wirings (<module>/bench.conf, <module>/wiring.conf,
# whose testbed= the boots run) and their check, one bats folder beside vm/tests and a tests/ folder of no
# bats file.
setup_file() {
	R=$BATS_FILE_TMPDIR/repo
	local top=$BATS_TEST_DIRNAME/../.. m
	mkdir -p "$R/scripts/tests" "$R/other/tests"
	cp -r "$BATS_TEST_DIRNAME/.." "$R/vm"
	cp "$top/scripts/lib.sh" "$top/scripts/bench.awk" "$R/scripts/"
	for m in ipistorm idle_reentry nohz_csd; do
		mkdir -p "$R/$m"
		cp "$top/$m/bench.conf" "$top/$m/wiring.conf" "$R/$m/"
	done
	: >"$R/scripts/tests/a.bats"
	: >"$R/other/tests/a.sh"
	export R
}

setup() {
	T=$BATS_TEST_TMPDIR
	mkdir -p "$T/bin"
	LOG=$T/log
	: >"$LOG"
	export LOG IPISTORM_BUILD=$T/build IPISTORM_CACHE=$T/cache PATH="$T/bin:$PATH"
	# stub FILE WHAT [EXIT [TAP]]: FILE logs "start WHAT ARGS" and "end
	# WHAT" around a short sleep and prints TAP (default: one ok).
	stub "$R/vm/build-modules.sh" build
	stub "$R/vm/mkinitramfs.sh" image
	stub "$R/vm/boot.sh" boot 0 'KTAP version 1\n1..2\nok 1 a\nok 2 b # SKIP\n'
	stub "$R/vm/demo.sh" demo
	stub "$R/vm/dkms-check.sh" dkms
	stub "$T/bin/bats" bats 0 '1..3\nok 1 x\nnot ok 2 y\nok 3 z # skip\n'
	stub "$T/bin/dkms" dkms-tool
}

stub() {
	# shellcheck disable=SC2016 # expanded by the stub
	printf '#!/bin/sh\necho "start %s $*" >>"$LOG"\nsleep 0.1\nprintf "%s"\necho "end %s" >>"$LOG"\nexit %s\n' \
		"$2" "${4:-1..1\\nok 1 $2\\n}" "$2" "${3:-0}" >"$1"
	chmod +x "$1"
}

# most_at_once: the most steps the log shows running at once, builds and
# images aside (they run inside one build step), a boot counted once.
most_at_once() {
	awk '$2 == "build" || $2 == "image" || $2 == "dkms-tool" { next }
		$1 == "start" { n++; if (n > m) m = n } $1 == "end" { n-- } END { print m }' "$LOG"
}

@test "test.sh: the list's steps run with the test bed's, each once, in order, within the slots" {
	mkdir -p "$R/fake"
	stub "$R/fake/tap.sh" tap 0 '1..2\nok 1 p\nok 2 q\n'
	stub "$R/fake/good.sh" good 0 'compare ok\n'
	stub "$R/fake/wide.sh" wide 4 'skip: no snapshot\n'
	printf '%s\n' '# steps' format=ipistorm-steps/1 \
		'tap|1|tap|6.1 6.12|a tap step|fake/tap.sh' \
		'good|1|verdict|6.1 6.12|it held|fake/good.sh -b -o @OUT@ 6.1 6.12' \
		'wide|2|verdict|6.1 6.12|it held too|fake/wide.sh -o @OUT@' >"$T/steps"
	run "$R/vm/test.sh" -j 2 -S "$T/steps" 6.1 6.12
	echo "$output"
	[ "$status" = 1 ]
	local total=${lines[-1]}
	# the steps' reports, in the pool's order: bats, builds, the long
	# boots, the listed steps in their order, the demo, the other boots,
	# DKMS
	run grep '^# === ' <<<"$output"
	[ "$output" = "# === scripts and kselftest wrapper (bats)
# === kernel 6.1: build
# === kernel 6.12: build
# === 6.1/functional
# === 6.12/functional
# === 6.12/big
# === a tap step
# === good
# === wide
# === demo-poll
# === demo-mwait
# === 6.1/poll
# === 6.12/poll
# === 6.1/icount
# === 6.12/icount
# === 6.1/published
# === 6.12/published
# === 6.1/sigenforce
# === 6.12/sigenforce
# === 6.1/lockdown
# === 6.12/lockdown
# === 6.1/metal
# === 6.12/metal
# === DKMS" ]
	# 15 boots of 2 results (1 skipped; big on 6.12 only), bats 1 of 3
	# failed and 1 skipped, the tap step 2, good 1, wide skipped, the
	# demo's two shapes 1 each, DKMS 2
	[ "$total" = "total: 23 passed, 1 failed, 17 skipped" ]
	grep -qx "start good -b -o $T/build/good-test 6.1 6.12" "$LOG"
	grep -qx "start wide -o $T/build/wide-test" "$LOG"
	# the bats step takes every tests/ folder holding bats files
	grep -qx "start bats --tap $R/scripts/tests $R/vm/tests" "$LOG"
	[ "$(most_at_once)" -le 2 ]
	# wide takes two slots: it runs alone
	awk '$1 == "start" && $2 == "wide" { on = 1; next } on && $1 == "start" { exit 1 }
		$1 == "end" && $2 == "wide" { exit }' "$LOG"
}

@test "test.sh: a step is listed only with the kernels it needs; -j 1 runs one at a time" {
	printf '%s\n' '# a comment' 'format=ipistorm-steps/1' \
		'one|1|verdict|6.12|it holds|vm/demo.sh @OUT@' \
		'two|1|tap|6.1 6.12|two kernels|vm/demo.sh' >"$T/steps"
	run "$R/vm/test.sh" -j 1 -S "$T/steps" 6.12
	echo "$output"
	[[ $output == *"ok 1 one: it holds"* ]]
	[[ $output != *"two kernels"* ]]
	grep -qx "start demo $T/build/one-test" "$LOG"
	[ "$(most_at_once)" = 1 ]
}

@test "test.sh: a malformed steps list is refused before anything runs" {
	local bad
	for bad in 'one|1|tap|6.1|t' 'one|0|tap|6.1|t|vm/demo.sh' 'one|1|both|6.1|t|vm/demo.sh' \
		'one|1|tap|9.9|t|vm/demo.sh' 'one|1|tap|6.1|t|vm/none.sh' 'o/ne|1|tap|6.1|t|vm/demo.sh'; do
		printf '%s\n' format=ipistorm-steps/1 "$bad" >"$T/steps"
		run "$R/vm/test.sh" -S "$T/steps" 6.1
		[ "$status" = 1 ] || { echo "accepted: $bad"; false; }
	done
	printf '%s\n' format=ipistorm-steps/9 >"$T/steps"
	run "$R/vm/test.sh" -S "$T/steps" 6.1
	[ "$status" = 1 ]
	[[ $output == *"not format ipistorm-steps/1"* ]]
	[ ! -s "$LOG" ]
}

# The boots' runner arguments: the tests of no module from BOOTS, each
# module's from its wiring (testbed=), as they were when BOOTS listed
# them itself (the same tests in the same boots).
@test "test.sh: -l, the boots' tests come from the wirings" {
	run "$R/vm/test.sh" -l
	[ "$status" -eq 0 ]
	[ "$output" = "functional|-c 4 -T 1800 -a IPISTORM_LONG_NUMIPI=3000000||
poll|-c 2 -p|idle_reentry_* ipistorm_delivery_poll ipistorm_single_wait1 ipistorm_witness_agrees ipistorm_witness_delay nohz_csd_idle_poll_explains trace_* preflight_loading preflight_polling_claim|
icount|-c 2 -p -i -x vendor=GenuineIntel,family=6,model=58 -a IPISTORM_MIN_POLL_PCT=99 -a IPISTORM_EXACT_DELIVERY=1|idle_reentry_perturbation ipistorm_delivery_poll ipistorm_single_wait* ipistorm_witness_agrees|
published|-c 18 -s 2|ipistorm_published_exact|
big|-c 64 -s 2 -m 2048 -T 1800 -a watchdog_thresh=10 -a rcupdate.rcu_cpu_stall_timeout=20|idle_reentry_all_cpus ipistorm_all_cpus ipistorm_cross_node_pairs ipistorm_pairs_256 nohz_csd_all_cpus|6.12
sigenforce|-c 2 -a module.sig_enforce=1|sign_* preflight_loading|
lockdown|-c 2 -a lockdown=integrity|sign_* preflight_loading|
metal|-c 2 -x -hypervisor|nohz_csd_polling_aid_bare_metal preflight_loading preflight_polling_claim|" ] || { echo "$output"; false; }
	# test.sh and bench.sh name no module's test but in comments
	run grep -E '^[^#]*(ipistorm_|idle_reentry_|nohz_csd_)' "$R/vm/test.sh" "$R/vm/bench.sh"
	[ "$status" -eq 1 ] || { echo "$output"; false; }
}

@test "test.sh: a boot no wiring gives a test is not booted; an unknown boot is refused" {
	local t=$BATS_TEST_TMPDIR/repo
	cp -r "$R" "$t"
	sed -i 's/^testbed=.*/testbed=/' "$t/ipistorm/wiring.conf"
	run "$t/vm/test.sh" -l
	[[ $output == *"published|-c 18 -s 2||"* ]]
	echo format=ipistorm-steps/1 >"$T/steps"
	run "$t/vm/test.sh" -j 2 -S "$T/steps" 6.1
	echo "$output"
	[[ $output == *"# === 6.1/icount"* ]]
	[[ $output != *"# === 6.1/published"* ]]
	grep -q '^start boot .* 6.1 -- idle_reentry_perturbation$' "$LOG"
	sed -i 's/^testbed=.*/testbed=polll:ipistorm_x/' "$t/ipistorm/wiring.conf"
	: >"$LOG"
	run "$t/vm/test.sh" -l
	[ "$status" -eq 1 ]
	[[ $output == *"ipistorm/wiring.conf: testbed= names boot 'polll', which the test bed has not (its boots: poll icount published big sigenforce lockdown metal bench)"* ]]
	run "$t/vm/test.sh" -S "$T/steps" 6.1
	[ "$status" -eq 1 ]
	[ ! -s "$LOG" ]
	sed -i 's/^testbed=.*/testbed=poll:trace_*/' "$t/ipistorm/wiring.conf"
	run "$t/vm/test.sh" -l
	[ "$status" -eq 1 ]
	[[ $output == *"the glob must start with ipistorm_"* ]]
}

@test "bench.sh: the benchmarks the wirings name (testbed= bench:GLOB)" {
	mkdir -p "$T/build/6.1"
	run "$R/vm/bench.sh" 6.1
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -qx "start boot -c 2 -p -i -x vendor=GenuineIntel,family=6,model=58 -l $T/build/6.1/console-bench.log 6.1 -- -b ipistorm_\* nohz_csd_\*" "$LOG" ||
		{ cat "$LOG"; false; }
	local t=$BATS_TEST_TMPDIR/repo
	cp -r "$R" "$t"
	sed -i 's/^testbed=.*/testbed=/' "$t"/*/wiring.conf
	: >"$LOG"
	run "$t/vm/bench.sh" 6.1
	[ "$status" -eq 1 ]
	[[ $output == *"no wiring names a benchmark to run"* ]]
	[ ! -s "$LOG" ]
}

# The PREEMPT_RT kernels get what their matrix entries' tests column
# names (6.12-rt functional, both demo-poll on 6.1-rt against 6.12-rt),
# every other boot and shape only with -a; DKMS with -a too.
@test "test.sh: the RT kernels get their matrix entries' tests; -a every boot and shape" {
	local t=$BATS_TEST_TMPDIR/repo
	cp -r "$R" "$t"
	# shellcheck disable=SC2016 # expanded by the stub
	printf '%s\n' '#!/bin/sh' 'echo "demo $KERNELS $IDLE" >>"$LOG"' 'echo ok' >"$t/vm/demo.sh"
	echo format=ipistorm-steps/1 >"$T/steps"
	run "$t/vm/test.sh" -j 2 -S "$T/steps" 6.1 6.12 6.1-rt 6.12-rt
	echo "$output"
	run grep '^# === .*rt' <<<"$output"
	[ "$output" = "# === kernel 6.1-rt: build
# === kernel 6.12-rt: build
# === 6.12-rt/functional
# === demo-rt-poll" ]
	run grep '^demo ' "$LOG"
	[ "$output" = "demo 6.1 6.12 poll
demo 6.1 6.12 mwait
demo 6.1-rt 6.12-rt poll" ]
	: >"$LOG"
	run "$t/vm/test.sh" -a -j 2 -S "$T/steps" 6.1-rt 6.12-rt
	echo "$output"
	run grep '^# === ' <<<"$output"
	[ "$output" = "# === scripts and kselftest wrapper (bats)
# === kernel 6.1-rt: build
# === kernel 6.12-rt: build
# === 6.1-rt/functional
# === 6.12-rt/functional
# === demo-rt-poll
# === demo-rt-mwait
# === 6.1-rt/poll
# === 6.12-rt/poll
# === 6.1-rt/icount
# === 6.12-rt/icount
# === 6.1-rt/published
# === 6.12-rt/published
# === 6.1-rt/sigenforce
# === 6.12-rt/sigenforce
# === 6.1-rt/lockdown
# === 6.12-rt/lockdown
# === 6.1-rt/metal
# === 6.12-rt/metal
# === DKMS" ]
	grep -qx 'start dkms 6.1-rt' "$LOG"
	grep -qx 'start dkms 6.12-rt' "$LOG"
}
