#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# scripts/lib.sh, the helpers the scripts and the test bed share, under
# busybox sh as in the guest.

setup() {
	L=$BATS_TEST_DIRNAME/../lib.sh
	T=$BATS_TEST_TMPDIR
}

# lib CODE: run CODE in busybox sh with the library sourced.
lib() {
	busybox sh -c ". \"$L\"; $1"
}

@test "lib: SPLAT takes every kernel report the suite fails on, not a clean log" {
	while IFS= read -r line; do
		run lib "echo '$line' | grep -qE \"\$SPLAT\""
		[ "$status" -eq 0 ] || { echo "not a splat: $line"; false; }
	done <<-'EOF'
	[   12.3] WARNING: CPU: 1 PID: 80 at kernel/smp.c:912 smp_call_function_single+0x1/0x2
	[   12.3] BUG: kernel NULL pointer dereference, address: 0000000000000008
	[   12.3] Oops: 0002 [#1] PREEMPT SMP NOPTI
	[   12.3] Call Trace:
	[   12.3] Kernel panic - not syncing: hung_task: blocked tasks
	[   12.3] watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [insmod:90]
	[   12.3] Watchdog detected hard LOCKUP on cpu 1
	[   12.3] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
	[   12.3] INFO: task insmod:90 blocked for more than 10 seconds.
	[   12.3] general protection fault, probably for non-canonical address
	[   12.3] UBSAN: shift-out-of-bounds in ipistorm/ipistorm_main.c:10:2
	[   12.3] BUG: KASAN: slab-out-of-bounds in ipistorm_run+0x1/0x2
	[   12.3] WARNING: possible circular locking dependency detected
	[   12.3] WARNING: possible recursive locking detected
	EOF
	run lib "printf '%s\n' '[    1.0] ipistorm: 20000 calls' '[    1.0] smpboot: Allowing 4 CPUs' | grep -E \"\$SPLAT\""
	[ "$status" -eq 1 ]
}

@test "lib: SPLAT_BENIGN lets through x86's idle=poll with SMT note only" {
	run lib "printf '%s\n' '[    0.0] process: WARNING: polling idle and HT enabled, performance may degrade' |
		grep -E \"\$SPLAT\" | grep -v -F \"\$SPLAT_BENIGN\""
	[ "$status" -eq 1 ]
	run lib "printf '%s\n' '[   12.3] WARNING: CPU: 1 PID: 80 at kernel/smp.c:912 f+0x1/0x2' |
		grep -E \"\$SPLAT\" | grep -v -F \"\$SPLAT_BENIGN\""
	[ "$status" -eq 0 ]
}

@test "lib: splat_lines: unexcused takes the one backtrace of an injected allocation failure, no other report" {
	# the allocator's dump after an injected failure: no splat
	run lib "printf '%s\n' '[ 5.0] FAULT_INJECTION: forcing a failure.' \
		'[ 5.0] insmod: vmalloc error: size 4096, vm_struct allocation failed' \
		'[ 5.0] Call Trace:' '[ 5.0]  <TASK>' '[ 5.0]  dump_stack_lvl+0x1/0x2' '[ 5.0]  </TASK>' |
		splat_lines"
	[ "$status" -eq 1 ]
	# a report after the injection, the next trace, or a trace alone: splats
	for log in "'[ 5.0] FAULT_INJECTION: forcing a failure.' '[ 5.0] BUG: KASAN: use-after-free in f+0x1/0x2' '[ 5.0] Call Trace:'" \
		"'[ 5.0] FAULT_INJECTION: forcing a failure.' '[ 5.0] Call Trace:' '[ 5.0]  </TASK>' '[ 6.0] Call Trace:'" \
		"'[ 5.0] Call Trace:'"; do
		run lib "printf '%s\n' $log | splat_lines"
		[ "$status" -eq 0 ] || { echo "no splat in: $log"; false; }
	done
	# numbered, the benign line left out
	run lib "printf '%s\n' '[ 5.0] FAULT_INJECTION: forcing a failure.' '[ 5.0] BUG: KASAN: x' \
		'[ 5.1] WARNING: polling idle and HT enabled, performance may degrade' '[ 5.0] Call Trace:' | splat_lines -n"
	[ "$status" -eq 0 ]
	[ "$output" = "2:[ 5.0] BUG: KASAN: x
4:[ 5.0] Call Trace:" ]
}

@test "lib: key reads the first KEY=value line, exactly, from any path" {
	mkdir "$T/k=1"
	printf 'a.b=1\naxb=2\na.b=3\nc=x=y\n' >"$T/k=1/f"
	run lib "key a.b '$T/k=1/f'; key c '$T/k=1/f'; key none '$T/k=1/f'"
	[ "$status" -eq 0 ]
	[ "$output" = "1
x=y" ]
}

# The module folders are the folders holding a declaration, in byte
# order whatever the locale; Kbuild lists none.
@test "lib: suite_benches finds the folders holding a bench.conf, in byte order" {
	mkdir -p "$T/two" "$T/one" "$T/one_b" "$T/One" "$T/none" "$T/deep/x"
	touch "$T/two/bench.conf" "$T/one/bench.conf" "$T/one_b/bench.conf" "$T/One/bench.conf" "$T/deep/x/bench.conf"
	printf 'obj-m += none/\n' >"$T/Kbuild"
	run lib "suite_benches '$T'"
	[ "$output" = "One
one
one_b
two" ]
	run env LC_ALL=C.UTF-8 bash -c ". '$L' && suite_benches '$T' | tr '\n' ' '"
	[ "$output" = "One one one_b two " ]
}

@test "lib: first_line and its default" {
	printf 'x\ny\n' >"$T/f"
	: >"$T/empty"
	run lib "first_line '$T/f'; first_line '$T/empty' unknown; first_line '$T/none' unknown"
	[ "$output" = "x
unknown
unknown" ]
}

@test "lib: unload_module skips a module /proc/modules does not list" {
	mkdir -p "$T/proc"
	echo "ipistorm 16384 0 - Live 0x0" >"$T/proc/modules"
	run lib "IPISTORM_SYSROOT='$T' IPISTORM_RMMOD=echo; unload_module idle_reentry; unload_module ipistorm"
	[ "$status" -eq 0 ]
	[ "$output" = ipistorm ]
}

@test "lib: one name per knob: INSMOD and RMMOD still work, deprecated once" {
	mkdir -p "$T/proc"
	echo "ipistorm 16384 0 - Live 0x0" >"$T/proc/modules"
	run --separate-stderr lib "IPISTORM_SYSROOT='$T' INSMOD=echo RMMOD=echo; load_module /m ipistorm a=1; load_module /m ipistorm; unload_module ipistorm; unload_module ipistorm"
	[ "$status" -eq 0 ]
	[ "$output" = "/m/ipistorm/ipistorm.ko a=1
/m/ipistorm/ipistorm.ko
ipistorm
ipistorm" ]
	[ "$stderr" = "sh: warning: INSMOD is deprecated, set IPISTORM_INSMOD instead
sh: warning: RMMOD is deprecated, set IPISTORM_RMMOD instead" ]
	# the new name wins, silently
	run --separate-stderr lib "INSMOD=false IPISTORM_INSMOD=echo; load_module /m ipistorm"
	[ "$status" -eq 0 ]
	[ "$output" = /m/ipistorm/ipistorm.ko ]
	[ -z "$stderr" ]
}

@test "lib: lock_take refuses a live owner, takes over a dead one's lock" {
	run lib "lock_take '$T/lock' && cat '$T/lock/pid' && lock_take '$T/lock2' && lock_release '$T/lock' && [ ! -e '$T/lock' ] && echo released"
	[ "$status" -eq 0 ]
	[[ ${lines[1]} == released ]]
	# held by a live process (this test's shell)
	mkdir "$T/lock"
	echo "$$" >"$T/lock/pid"
	run lib "lock_take '$T/lock' || { echo \"refused, owner \$LOCK_OWNER\"; exit 1; }"
	[ "$status" -eq 1 ]
	[ "$output" = "refused, owner $$" ]
	# not released by another shell
	run lib "lock_release '$T/lock'"
	[ -d "$T/lock" ]
	# held by a process that is gone
	sh -c 'exit 0' &
	dead=$!
	wait "$dead"
	echo "$dead" >"$T/lock/pid"
	run lib "lock_take '$T/lock' && cat '$T/lock/pid'"
	[ "$status" -eq 0 ]
	[ "$output" != "$dead" ]
	[ ! -e "$T/lock.break" ]
}

# A taker killed while it breaks a stale lock leaves lock.break behind:
# empty (killed before it wrote its pid) or naming a process that is gone.
# Later takers take it over too, instead of giving up after 10 s with a
# message naming the dead owner.
@test "lib: a lock.break left by a killed taker does not block the takeover" {
	sh -c 'exit 0' &
	dead=$!
	wait "$dead"
	for left in empty dead; do
		rm -rf "$T/lock" "$T/lock.break"
		mkdir "$T/lock" "$T/lock.break"
		echo "$dead" >"$T/lock/pid"
		[ "$left" = empty ] || echo "$dead" >"$T/lock.break/pid"
		run lib "lock_take '$T/lock' || { echo \"refused, owner \$LOCK_OWNER\"; exit 1; }; cat '$T/lock/pid'"
		[ "$status" -eq 0 ] || { echo "$left lock.break: $output"; false; }
		[ "$output" != "$dead" ]
		[ ! -e "$T/lock.break" ]
	done
	# a break whose taker lives is waited for, not taken over
	rm -rf "$T/lock" "$T/lock.break"
	mkdir "$T/lock" "$T/lock.break"
	echo "$dead" >"$T/lock/pid"
	echo "$$" >"$T/lock.break/pid"
	(sleep 2 && rm -rf "$T/lock.break") &
	run lib "lock_take '$T/lock' && cat '$T/lock/pid'"
	[ "$status" -eq 0 ]
	[ "$output" != "$dead" ]
}

@test "lib: load_module turns a refused signature into one message on signing" {
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "insmod: ERROR: could not insert module x.ko: Key was rejected by service" >&2\nexit 1\n' >"$T/bin/insmod"
	printf '#!/bin/sh\necho "insmod: ERROR: could not insert module x.ko: Invalid parameters" >&2\nexit 1\n' >"$T/bin/insmod-inval"
	printf '#!/bin/sh\nexit 0\n' >"$T/bin/insmod-ok"
	chmod +x "$T"/bin/*
	run lib "IPISTORM_INSMOD=$T/bin/insmod load_module /m ipistorm numipi=1"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == *"ipistorm.ko is not signed by a key this kernel trusts"*"make sign"* ]]
	# any other failure keeps insmod's own words and status
	run lib "IPISTORM_INSMOD=$T/bin/insmod-inval load_module /m ipistorm numipi=1"
	[ "$status" -eq 1 ]
	[[ $output == *"Invalid parameters"* ]]
	[[ $output != *"make sign"* ]]
	run lib "IPISTORM_INSMOD=$T/bin/insmod-ok load_module /m ipistorm"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "lib: load_module names lockdown when it refuses an unsigned module" {
	mkdir -p "$T/bin" "$T/root/sys/kernel/security"
	printf '#!/bin/sh\necho "insmod: ERROR: could not insert module x.ko: Operation not permitted" >&2\nexit 1\n' >"$T/bin/insmod"
	chmod +x "$T/bin/insmod"
	echo "none [integrity] confidentiality" >"$T/root/sys/kernel/security/lockdown"
	run lib "IPISTORM_SYSROOT=$T/root IPISTORM_INSMOD=$T/bin/insmod load_module /m nohz_csd"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == *"nohz_csd.ko is not signed"*"kernel lockdown"*"make sign"* ]]
	# without lockdown, EPERM is a missing right: insmod's words
	echo "[none] integrity confidentiality" >"$T/root/sys/kernel/security/lockdown"
	run lib "IPISTORM_SYSROOT=$T/root IPISTORM_INSMOD=$T/bin/insmod load_module /m nohz_csd"
	[ "$status" -eq 1 ]
	[[ $output == *"Operation not permitted"* ]]
	[[ $output != *"make sign"* ]]
}

# in_shells CODE WANT: CODE with the library sourced (the program named t)
# under dash, busybox sh and bash, in the C and a UTF-8 locale, prints
# "STATUS: OUTPUT" (stdout and stderr) equal to WANT; each that does not is
# shown.
in_shells() {
	local sh loc out rc bad=0
	for loc in C C.UTF-8; do
		for sh in dash "busybox sh" bash; do
			# shellcheck disable=SC2086 # a shell and its argument
			out=$(LC_ALL=$loc $sh -c ". \"$L\"; PROG=t; $1" 2>&1) && rc=0 || rc=$?
			[ "$rc: $out" = "$2" ] || { echo "LC_ALL=$loc $sh: $rc: $out"; bad=1; }
		done
	done
	return "$bad"
}

@test "lib: parse_uint takes decimal integers without leading zeros, up to a bound" {
	for v in 0 1 7 10 999 2147483647; do
		in_shells "parse_uint -n '$v' && echo ok" "0: ok" || { echo "'$v' refused, want: 0: ok"; false; }
	done
	in_shells "parse_uint -w 99 99 && parse_uint -n 1 999 1 && parse_uint x 9223372036854775807 9223372036854775807 && echo ok" "0: ok"
	while IFS='|' read -r v args msg; do
		in_shells "parse_uint -n '$v' $args; echo ok" "2: t: -n: $msg
usage: t" || { echo "'$v', want: t: -n: $msg"; false; }
	done <<-'EOF'
	08||'08' is not a decimal integer (digits, no sign, no leading zero)
	00||'00' is not a decimal integer (digits, no sign, no leading zero)
	+1||'+1' is not a decimal integer (digits, no sign, no leading zero)
	-1||'-1' is not a decimal integer (digits, no sign, no leading zero)
	 1||' 1' is not a decimal integer (digits, no sign, no leading zero)
	1 ||'1 ' is not a decimal integer (digits, no sign, no leading zero)
	1e3||'1e3' is not a decimal integer (digits, no sign, no leading zero)
	0x10||'0x10' is not a decimal integer (digits, no sign, no leading zero)
	||'' is not a decimal integer (digits, no sign, no leading zero)
	2147483648||2147483648 is out of range, want 0 to 2147483647
	99999999999999999999999||99999999999999999999999 is out of range, want 0 to 2147483647
	1000|999 1|1000 is out of range, want 1 to 999
	0|999 1|0 is out of range, want 1 to 999
	9999999999999999999|9223372036854775807|9999999999999999999 is out of range, want 0 to 9223372036854775807
	9223372036854775808|9223372036854775807|9223372036854775808 is out of range, want 0 to 9223372036854775807
	EOF
	# a newline is shown escaped: the message is one line
	in_shells "parse_uint -n \"\$(printf '1\\n2')\"" "2: t: -n: '1\n2' is not a decimal integer (digits, no sign, no leading zero)
usage: t"
}

@test "lib: check_text refuses a newline, a control character or invalid UTF-8" {
	for v in "" "v6.12-rc1-5-gabc" "pairs=0:1 numipi=20000" "/tmp/res/base" "µs é ✓ 𝄞" "a\\b"; do
		in_shells "check_text -g '$v' && echo ok" "0: ok" || { echo "'$v' refused"; false; }
	done
	while IFS='|' read -r v msg; do
		in_shells "check_text -g \"\$(printf '$v')\"; echo ok" "2: t: -g: $msg
usage: t" || { echo "'$v', want: t: -g: $msg"; false; }
	done <<-'EOF'
	v1\nstatus=ok\nx|'v1\nstatus=ok\nx' holds a newline
	a\tb|'a\tb' holds a control character
	a\rb|'a\rb' holds a control character
	a\033[1mb|'a\x1b[1mb' holds a control character
	a\177b|'a\x7fb' holds a control character
	a\302\205b|'a\xc2\x85b' holds a control character
	a\377b|'a\xffb' is not valid UTF-8
	a\303|'a\xc3' is not valid UTF-8
	a\300\257|'a\xc0\xaf' is not valid UTF-8
	a\355\240\200|'a\xed\xa0\x80' is not valid UTF-8
	a\364\220\200\200|'a\xf4\x90\x80\x80' is not valid UTF-8
	EOF
}

@test "lib: llc_list takes the highest cache level's CPUs, the last index without levels, none without caches" {
	c=$T/cpu3/cache
	mkdir -p "$c/index0" "$c/index2" "$c/index3" "$T/cpu4/cache/index1" "$T/cpu5"
	echo 3 >"$c/index0/shared_cpu_list"
	echo 1 >"$c/index0/level"
	echo 2-3 >"$c/index2/shared_cpu_list"
	echo 2 >"$c/index2/level"
	echo 0-7 >"$c/index3/shared_cpu_list"
	echo 3 >"$c/index3/level"
	echo 4,5 >"$T/cpu4/cache/index1/shared_cpu_list"
	run lib "llc_list '$T/cpu3'; llc_list '$T/cpu4'; llc_list '$T/cpu5'; echo end"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '0-7\n4,5\n\nend')" ]
	# a level 3 listed first still wins over a later level 2
	mv "$c/index2" "$c/index9"
	run lib "llc_list '$T/cpu3'"
	[ "$output" = 0-7 ]
}

@test "lib: cpulist.awk expands and compresses the kernel's CPU lists, busybox awk too" {
	# shellcheck disable=SC2016 # awk's program, not the shell's
	echo '{ split("", s); cpulist_expand($0, s); print "[" cpulist_compress(s) "]" }' >"$T/p.awk"
	for a in "busybox awk" mawk; do
		run sh -c "printf '0-3,8\n5,7-9,12\n\n100-102,3\nx,4-5\n' | $a -f '$BATS_TEST_DIRNAME/../cpulist.awk' -f '$T/p.awk'"
		[ "$status" -eq 0 ]
		[ "$output" = "$(printf '[0-3,8]\n[5,7-9,12]\n[]\n[3,100-102]\n[4-5]')" ] || { echo "$a: $output"; false; }
	done
}

@test "lib: module_hooks names each hooked function once, lists over lines, calibration hooks aside, in linear time" {
	mkdir -p "$T/tree/m"
	cat >"$T/tree/m/hooks.h" <<'C'
/* IPS_HOOK_NAMES(): the function's names */
M_HOOK(A, IPS_HOOK_NAMES("first", "first.cold"))
M_HOOK(B, IPS_HOOK_NAMES("second",
			 "second.isra.*"))
M_HOOK(C, IPS_HOOK_NAMES(__stringify(m_cal_fn_a), "m_cal_fn_b"))
M_HOOK(D, IPS_HOOK_NAMES("first"))
C
	printf '%s\n' 'static struct kprobe kp = { .symbol_name = "third" };' \
		'static struct kretprobe rp = { .kp.symbol_name =' '	"fourth", };' \
		'static struct kprobe kq = { .symbol_name' '	= "fifth" };' >"$T/tree/m/m.c"
	for a in "busybox sh" bash; do
		run $a -c ". '$L'; module_hooks '$T/tree' m"
		[ "$status" -eq 0 ]
		[ "$output" = "$(printf 'first\nfirst.cold\nsecond\nsecond.isra.*\nthird\nfourth\nfifth')" ] || { echo "$a: $output"; false; }
	done
	# A megabyte of C (the whole text as one awk string took a minute).
	for _ in $(seq 15); do cat "$BATS_TEST_DIRNAME"/../../idle_reentry/*.c; done >"$T/tree/m/big.c"
	s=$(date +%s)
	run lib "module_hooks '$T/tree' m"
	[ "$status" -eq 0 ]
	[ "$(date +%s)" -le $((s + 10)) ]
	[ "$(echo "$output" | wc -l)" -eq 7 ]
}
