#!/usr/bin/env bats
# vm/boot.sh telling the host from the suite, with a fake QEMU: each boot
# N "runs" by writing the console log and the runner's output fabricated
# in $FAKE/N.console and $FAKE/N.out (and, with $FAKE/N.hang, waits for
# the hard timeout). A splat before the suite starts, or a boot the host
# starved, is retried once and said so; after a splat in a test only
# that test fails, and a fresh boot runs the tests after it. No guest;
# seconds.

bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR
	FAKE=$T/fake
	mkdir -p "$FAKE/bin" "$T/cache/kernels/6.12" "$T/build/6.12"
	printf '%s\n' name=6.12 builder=host vmlinuz=/dev/null >"$T/cache/kernels/6.12/kernel.env"
	: >"$T/build/6.12/initramfs.gz"
	: >"$FAKE/boots"
	# The fake QEMU: boot N writes N.console to the first serial port's
	# file and N.out, with \r\n as the guest's tty does, to the second's;
	# it logs the runner's arguments (the command line after "--").
	# shellcheck disable=SC2016 # expanded by the fake
	printf '%s\n' '#!/bin/bash' 'files=() cmdline=""' \
		'while [ $# -gt 0 ]; do' \
		'	case $1 in -serial) files+=("${2#file:}"); shift ;; -append) cmdline=$2; shift ;; esac' \
		'	shift' \
		'done' \
		'echo "${cmdline#* -- }" >>"$FAKE/boots"' \
		'n=$(wc -l <"$FAKE/boots")' \
		'cat "$FAKE/$n.console" >"${files[0]}" 2>/dev/null || :' \
		'sed "s/\$/\r/" "$FAKE/$n.out" >"${files[1]}" 2>/dev/null || :' \
		'[ ! -f "$FAKE/$n.hang" ] || exec sleep 30' >"$FAKE/bin/qemu-system-x86_64"
	chmod +x "$FAKE/bin/qemu-system-x86_64"
	export FAKE PATH="$FAKE/bin:$PATH" IPISTORM_CACHE=$T/cache IPISTORM_BUILD=$T/build
	# shellcheck source=../lib.sh
	. "$BATS_TEST_DIRNAME/../lib.sh"
}

# console N [LINES...]: boot N's console: a boot, the suite's start, LINES.
console() {
	local n=$1
	shift
	printf '%s\n' '[    0.000000] Linux version 6.12.95+deb12-amd64' \
		'[    1.200000] Run /init as init process' \
		"[    1.300000] $SUITE_START" "$@" >"$FAKE/$n.console"
}

# out N RESULTS...: boot N's runner output: KTAP of the results given as
# "ok NAME", "not ok NAME" or "stop NAME...": the stop line of a splat.
out() {
	local n=$1 r i=0 pass=0 fail=0
	shift
	{
		echo "KTAP version 1"
		echo "1..$#"
		for r in "$@"; do
			case $r in
			"stop "*) echo "# kernel splat in the test above; not run, for a fresh boot:${r#stop}" ;;
			"not ok "*) i=$((i + 1)) fail=$((fail + 1)); echo "# kernel: WARNING: at somewhere"; echo "not ok $i ${r#not ok }" ;;
			"ok "*) i=$((i + 1)) pass=$((pass + 1)); echo "ok $i ${r#ok }" ;;
			esac
		done
		echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
		echo "IPISTORM_EXIT=$((fail > 0))"
	} >"$FAKE/$n.out"
}

boot() { run "$BATS_TEST_DIRNAME/../boot.sh" -c 2 -l "$T/console.log" 6.12 -- "$@"; }

# results: the result lines of the last boot.sh run.
results() { grep -E '^(not )?ok ' <<<"$output"; }

LOCKUP=('[   23.000000] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [swapper/0:1]'
	'[   23.000010] Call Trace:'
	'[   23.000020]  jent_entropy_init+0x5c/0x180'
	'[   23.000030]  do_one_initcall+0x58/0x300')
STALL=('[   40.000000] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:'
	'[   40.000010] Call Trace:'
	'[   40.000020]  default_idle_call+0x30/0x120'
	'[   40.000030]  do_idle+0x1e0/0x220')
MODULE_STALL=('[   40.000000] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:'
	'[   40.000010] Call Trace:'
	'[   40.000020]  storm_thread+0x88/0x1d0 [ipistorm]'
	'[   40.000030]  kthread+0xd4/0x100')
WARN=('[   40.000000] WARNING: CPU: 1 PID: 300 at ipistorm/ipistorm_main.c:100 storm+0x10/0x20 [ipistorm]'
	'[   40.000010] Call Trace:'
	'[   40.000020]  storm+0x10/0x20 [ipistorm]')

@test "splat_kind: none, early, host or suite, from the console alone" {
	console 1 '[    9.000000] WARNING: polling idle and HT enabled, performance may degrade'
	[ "$(splat_kind "$FAKE/1.console")" = none ]
	{ printf '%s\n' '[    0.000000] Linux version' "${LOCKUP[@]}"; echo "[   30.000000] $SUITE_START"; } >"$FAKE/1.console"
	[ "$(splat_kind "$FAKE/1.console")" = early ]
	console 1 "${STALL[@]}"
	[ "$(splat_kind "$FAKE/1.console")" = host ]
	console 1 "${LOCKUP[@]}"
	[ "$(splat_kind "$FAKE/1.console")" = host ]
	console 1 "${MODULE_STALL[@]}"
	[ "$(splat_kind "$FAKE/1.console")" = suite ]
	console 1 "${WARN[@]}"
	[ "$(splat_kind "$FAKE/1.console")" = suite ]
	console 1 "${STALL[@]}" "${WARN[@]}"
	[ "$(splat_kind "$FAKE/1.console")" = suite ]
}

@test "boot.sh: a clean boot is one boot, its output as the runner wrote it" {
	console 1
	out 1 "ok a" "ok b"
	boot a b
	echo "$output"
	[ "$status" = 0 ]
	[ "$(wc -l <"$FAKE/boots")" = 1 ]
	[ "$output" = "$(grep -v IPISTORM_EXIT "$FAKE/1.out")" ]
}

@test "boot.sh: after a splat in a test only that test fails; a fresh boot runs the tests after it" {
	console 1 "${WARN[@]}"
	out 1 "ok a" "not ok b" "stop c d"
	console 2
	out 2 "ok c" "ok d"
	boot a b c d
	echo "$output"
	[ "$status" = 1 ]
	[ "$(sed -n 2p "$FAKE/boots")" = "-a b a b c d" ]
	[ "$(results)" = "ok 1 a
not ok 2 b
ok 3 c
ok 4 d" ]
	[[ $output == *"# boot 2: restarted after the kernel splat in b, for the tests after it"* ]]
	[ "$(grep -c '^1\.\.' <<<"$output")" = 1 ]
	[[ $output == *"# Totals: pass:3 fail:1 xfail:0 xpass:0 skip:0 error:0" ]]
}

@test "boot.sh: a splat before the suite started is retried once and said so" {
	{ printf '%s\n' '[    0.000000] Linux version' "${LOCKUP[@]}"; echo "[   30.000000] $SUITE_START"; } >"$FAKE/1.console"
	out 1 "not ok a" "stop b"
	console 2
	out 2 "ok a" "ok b"
	boot -k a b
	echo "$output"
	[ "$status" = 0 ]
	[ "$(sed -n 2p "$FAKE/boots")" = "-k a b" ]
	[ "$(results)" = "ok 1 a
ok 2 b" ]
	[[ $output == *"# boot 2: retried: a kernel splat before the suite started (console $T/console.log)"* ]]
}

@test "boot.sh: a lockup outside the suite's code in a test retries that test once" {
	console 1 "${STALL[@]}"
	out 1 "ok a" "not ok b" "stop c"
	console 2
	out 2 "ok b" "ok c"
	boot a b c
	echo "$output"
	[ "$status" = 0 ]
	[ "$(sed -n 2p "$FAKE/boots")" = "-f b a b c" ]
	[ "$(results)" = "ok 1 a
ok 2 b
ok 3 c" ]
	[[ $output == *"# boot 2: retried from b: the host starved the guest"* ]]
}

@test "boot.sh: a second early splat is not retried again: the boot fails" {
	{ printf '%s\n' '[    0.000000] Linux version' "${LOCKUP[@]}"; echo "[   30.000000] $SUITE_START"; } >"$FAKE/1.console"
	cp "$FAKE/1.console" "$FAKE/2.console"
	out 1 "ok a"
	out 2 "ok a"
	boot a
	echo "$output"
	[ "$status" = 2 ]
	[ "$(wc -l <"$FAKE/boots")" = 2 ]
}

@test "boot.sh: a guest timed out with its clock far behind is retried once; a hung one, or one under -i, is not" {
	console 1
	: >"$FAKE/1.hang"
	console 2
	out 2 "ok a"
	run "$BATS_TEST_DIRNAME/../boot.sh" -c 2 -T 4 -l "$T/console.log" 6.12 -- a
	echo "$output"
	[ "$status" = 0 ]
	[ "$(wc -l <"$FAKE/boots")" = 2 ]
	[[ $output == *"# boot 2: retried: the host starved the guest (its clock at 1 s of the 4 s timeout"* ]]
	# the first boot said nothing: the note follows the retry's KTAP header
	[ "${lines[0]}" = "KTAP version 1" ]
	[[ ${lines[2]} == "# boot 2: retried"* ]]
	: >"$FAKE/boots"
	console 1 '[    3.500000] still going'
	run "$BATS_TEST_DIRNAME/../boot.sh" -c 2 -T 4 -l "$T/console.log" 6.12 -- a
	[ "$status" = 3 ]
	[ "$(wc -l <"$FAKE/boots")" = 1 ]
	# under instruction counting the guest's clock is behind anyway
	: >"$FAKE/boots"
	console 1
	run "$BATS_TEST_DIRNAME/../boot.sh" -c 2 -i -T 4 -l "$T/console.log" 6.12 -- a
	[ "$status" = 3 ]
	[ "$(wc -l <"$FAKE/boots")" = 1 ]
}

@test "the guest's runner: after a splat in a test it fails that test and runs no later one" {
	[ "$(id -u)" = 0 ] || skip "a private /dev/kmsg needs root"
	local s=$T/suite
	mkdir -p "$s/scripts" "$s/fake/tests"
	cp "$BATS_TEST_DIRNAME/../../scripts/selftest.sh" "$BATS_TEST_DIRNAME/../../scripts/lib.sh" "$s/scripts/"
	printf '%s\n' 'test_one() { :; }' 'test_two() { echo "WARNING: CPU: 1 PID: 9 at x.c:1" >>/dev/kmsg; }' \
		'test_three() { :; }' 'test_four() { :; }' >"$s/fake/tests/fake.sh"
	printf '#!/bin/sh\ncat /dev/kmsg\n' >"$FAKE/bin/dmesg"
	chmod +x "$FAKE/bin/dmesg"
	# /dev/kmsg a file of its own: each mark truncates it, a splat is appended
	: >"$T/kmsg"
	# shellcheck disable=SC2016 # expanded by that shell
	run unshare -m sh -c 'mount --bind "$1" /dev/kmsg && exec sh "$2/scripts/selftest.sh"' - "$T/kmsg" "$s"
	echo "$output"
	[ "$status" = 1 ]
	[ "$(grep -E '^(not )?ok ' <<<"$output")" = "ok 1 one
not ok 2 two" ]
	[[ $output == *"# kernel splat in the test above; not run, for a fresh boot: three four"* ]]
}
