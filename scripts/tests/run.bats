#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# run.sh against a fake machine: a copy of fixtures/sysfs-2s16 as /sys and
# /proc, and fake insmod/rmmod that log their calls and publish a result.

setup() {
	S=$BATS_TEST_DIRNAME/..
	F=$BATS_TEST_DIRNAME/fixtures
	T=$BATS_TEST_TMPDIR
	R=$T/root
	cp -r "$F/sysfs-2s16" "$R"
	for m in ipistorm idle_reentry nohz_csd; do
		mkdir -p "$T/mods/$m"
		touch "$T/mods/$m/$m.ko"
	done
	mkdir -p "$T/bin"
	# fake insmod: log, snapshot C-state 3 and the governor, publish
	# fixtures/ipistorm-6.1/iter-001.txt, fixtures/nohz_csd-6.1/iter-001.txt
	# (with STATUS as its status, if set) or an idle_reentry result
	cat >"$T/bin/insmod" <<-'SH'
	#!/bin/sh
	m=$(basename "$1" .ko)
	echo "insmod $*" >>"$R/calls"
	[ -z "${FAIL_INSMOD:-}" ] || exit 1
	echo "$(cat "$R/sys/devices/system/cpu/cpu5/cpuidle/state3/disable") $(cat "$R/sys/devices/system/cpu/cpu5/cpufreq/scaling_governor")" >>"$R/during"
	mkdir -p "$R/sys/kernel/debug/$m" "$R/sys/module/$m/parameters"
	echo ABCDEF0123 >"$R/sys/module/$m/srcversion"
	echo 1.0 >"$R/sys/module/$m/version"
	case $m in
	ipistorm) cp "$F/ipistorm-6.1/iter-001.txt" "$R/sys/kernel/debug/$m/result" ;;
	nohz_csd) sed "s/^status=.*/status=${STATUS:-complete}/" "$F/nohz_csd-6.1/iter-001.txt" >"$R/sys/kernel/debug/$m/result" ;;
	*) printf 'format=idle_reentry/1\nstatus=complete\ntotal.total_mean_ns=700\n' >"$R/sys/kernel/debug/$m/result" ;;
	esac
	[ -z "${HANG_INSMOD:-}" ] || sleep 30
	SH
	cat >"$T/bin/rmmod" <<-'SH'
	#!/bin/sh
	c=$R/sys/kernel/debug/$1/control
	[ ! -f "$c" ] || echo "control: $(cat "$c")" >>"$R/calls"
	echo "rmmod $*" >>"$R/calls"
	rm -rf "$R/sys/kernel/debug/$1"
	SH
	chmod +x "$T/bin/insmod" "$T/bin/rmmod"
	export R F IPISTORM_SYSROOT=$R IPISTORM_INSMOD=$T/bin/insmod IPISTORM_RMMOD=$T/bin/rmmod
}

@test "run: N iterations, raw results and meta.txt, under busybox sh" {
	run busybox sh "$S/run.sh" -n 3 -w 0 -o "$T/out" -m "$T/mods" -g v6.12-rc1-5-gabc ipistorm numipi=20000 single=1 cpulist=0 offset=1 wait=1
	[ "$status" -eq 0 ]
	[ "$(ls "$T/out")" = "iter-001.txt
iter-002.txt
iter-003.txt
meta.txt" ]
	cmp "$T/out/iter-002.txt" "$F/ipistorm-6.1/iter-001.txt"
	[ "$(grep -c '^insmod .*/ipistorm.ko numipi=20000 single=1 cpulist=0 offset=1 wait=1$' "$R/calls")" -eq 3 ]
	[ "$(grep -c '^rmmod ipistorm$' "$R/calls")" -eq 3 ]
	m=$T/out/meta.txt
	for kv in format=ipistorm-run/1 bench=ipistorm "params=numipi=20000 single=1 cpulist=0 offset=1 wait=1" \
		iterations=3 kernel=6.12.0-test kernel_describe=v6.12-rc1-5-gabc "cmdline=console=ttyS0 quiet" \
		idle=none "cpu_model=Fake CPU @ 2.0GHz" microcode=0x2b000620 sockets=2 cores=8 threads=16 \
		numa_nodes=2 node0.cpulist=0-3,8-11 "llc=0-1,8-9;2-3,10-11;4-5,12-13;6-7,14-15" \
		governor=powersave boost=1 cpuidle_driver=intel_idle \
		"cpuidle.state3=C6 latency_us=170 disable=0" module.ipistorm.srcversion=ABCDEF0123 \
		"warning=deep C-states enabled: C1E C6 (run with -p)" \
		"warning=cpufreq governor is powersave, not performance (run with -p)" status=ok; do
		grep -qxF "$kv" "$m" || { echo "missing: $kv"; cat "$m"; false; }
	done
	[[ $output == *"warning: deep C-states enabled"* ]]
	[[ ${lines[-1]} == "$T/out" ]]
}

@test "run: missing sysfs files are recorded as unknown" {
	rm -rf "$R/sys/devices/system/cpu/cpu"*/cpufreq "$R/sys/devices/system/cpu/cpu"*/cpuidle "$R/proc/cpuinfo"
	run "$S/run.sh" -n 1 -o "$T/out" -m "$T/mods" ipistorm numipi=10 cpulist=0
	[ "$status" -eq 0 ]
	grep -qx governor=unknown "$T/out/meta.txt"
	grep -qx cpu_model=unknown "$T/out/meta.txt"
	grep -qx cpuidle_driver=intel_idle "$T/out/meta.txt"
	run ! grep -q "^warning=" "$T/out/meta.txt"
	grep -q '^status=ok' "$T/out/meta.txt"
}

@test "run: no polling state and no idle=poll is warned about" {
	echo acpi_idle >"$R/sys/devices/system/cpu/cpuidle/current_driver"
	echo 1 >"$R/sys/devices/system/cpu/cpu0/cpuidle/state0/disable"
	run "$S/run.sh" -n 1 -o "$T/out" -m "$T/mods" ipistorm numipi=10 cpulist=0
	[ "$status" -eq 0 ]
	grep -q "^warning=no idle=poll and no polling idle state" "$T/out/meta.txt"
}

@test "run: -p disables deep C-states and sets performance, then restores" {
	run busybox sh "$S/run.sh" -p -n 2 -o "$T/out" -m "$T/mods" ipistorm numipi=10 cpulist=0
	[ "$status" -eq 0 ]
	[ "$(sort -u "$R/during")" = "1 performance" ]
	grep -qx "cpuidle.state1=C1 latency_us=2 disable=0" "$T/out/meta.txt"
	grep -qx "cpuidle.state2=C1E latency_us=10 disable=1" "$T/out/meta.txt"
	run ! grep -q "^warning=" "$T/out/meta.txt"
	for c in 0 5 15; do
		d=$R/sys/devices/system/cpu/cpu$c
		[ "$(cat "$d/cpuidle/state2/disable") $(cat "$d/cpuidle/state3/disable")" = "0 0" ]
		[ "$(cat "$d/cpufreq/scaling_governor")" = powersave ]
	done
	[ "$(cat "$R/sys/devices/system/cpu/cpufreq/boost")" = 1 ]
}

@test "run: -p restores on Ctrl-C (SIGINT)" {
	# job control: the run gets its own process group, as at a terminal,
	# and Ctrl-C reaches the whole group
	set -m
	HANG_INSMOD=1 busybox sh "$S/run.sh" -p -n 1 -o "$T/out" -m "$T/mods" ipistorm numipi=10 cpulist=0 2>"$T/err" &
	pid=$!
	for _ in $(seq 50); do [ -s "$R/during" ] && break; sleep 0.1; done
	kill -INT -- "-$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 1 ]
	grep -q restored "$T/err"
	[ "$(cat "$R/sys/devices/system/cpu/cpu3/cpuidle/state3/disable")" = 0 ]
	[ "$(cat "$R/sys/devices/system/cpu/cpu3/cpufreq/scaling_governor")" = powersave ]
	grep -qx status=interrupted "$T/out/meta.txt"
}

@test "run: idle_reentry with a storm alongside" {
	run busybox sh "$S/run.sh" -n 1 -w 0 -o "$T/out" -m "$T/mods" -s "pairs=0:1 numipi=20000" idle_reentry cpulist=1
	[ "$status" -eq 0 ]
	[ "$(sed 's|/[^ ]*/||' "$R/calls")" = "insmod idle_reentry.ko cpulist=1
insmod ipistorm.ko pairs=0:1 numipi=20000
rmmod ipistorm
control: stop
rmmod idle_reentry" ]
	grep -qx "storm=pairs=0:1 numipi=20000" "$T/out/meta.txt"
	grep -qx "total.total_mean_ns=700" "$T/out/iter-001.txt"
}

@test "run: nohz_csd, and a result that is not complete fails the run" {
	run busybox sh "$S/run.sh" -n 2 -w 0 -o "$T/out" -m "$T/mods" nohz_csd load_cpus=0 duration=2
	[ "$status" -eq 0 ]
	[ "$(sed 's|/[^ ]*/||' "$R/calls")" = "insmod nohz_csd.ko load_cpus=0 duration=2
rmmod nohz_csd
insmod nohz_csd.ko load_cpus=0 duration=2
rmmod nohz_csd" ]
	grep -qx bench=nohz_csd "$T/out/meta.txt"
	cmp "$T/out/iter-002.txt" "$F/nohz_csd-6.1/iter-001.txt"
	[[ $output == *"total.kicks="*"total.balanced="* ]]
	STATUS=interrupted run busybox sh "$S/run.sh" -n 2 -w 0 -o "$T/out2" -m "$T/mods" nohz_csd duration=2
	[ "$status" -eq 1 ]
	[[ $output == *"iteration 1: result status=interrupted"* ]]
	grep -qx status=failed "$T/out2/meta.txt"
	[ "$(grep -c '^rmmod nohz_csd$' "$R/calls")" -eq 3 ]
}

@test "run: warm-up iterations are kept apart" {
	run busybox sh "$S/run.sh" -n 1 -w 2 -o "$T/out" -m "$T/mods" ipistorm numipi=10 cpulist=0
	[ "$status" -eq 0 ]
	[ "$(ls "$T/out")" = "iter-001.txt
meta.txt
warmup-001.txt
warmup-002.txt" ]
	[ "$(grep -c '^insmod ' "$R/calls")" -eq 3 ]
	grep -qx warmup=2 "$T/out/meta.txt"
	grep -qx iterations=1 "$T/out/meta.txt"
}

@test "run: a failing insmod exits 1 and says so" {
	FAIL_INSMOD=1 run "$S/run.sh" -n 2 -w 0 -o "$T/out" -m "$T/mods" ipistorm numipi=10 cpulist=0
	[ "$status" -eq 1 ]
	[[ $output == *"iteration 1: insmod ipistorm numipi=10 cpulist=0 failed"* ]]
	grep -qx status=failed "$T/out/meta.txt"
}

@test "run: never overwrites, usage on bad arguments" {
	mkdir "$T/out"
	run "$S/run.sh" -o "$T/out" -m "$T/mods" ipistorm numipi=10 cpulist=0
	[ "$status" -eq 2 ]
	[[ $output == *"$T/out exists: refusing to overwrite"* ]]
	[ -z "$(ls "$T/out")" ]
	run "$S/run.sh" -h
	[ "$status" -eq 2 ]
	[[ $output == usage:* ]]
	run "$S/run.sh" -m "$T/mods" nosuch
	[ "$status" -eq 2 ]
	[[ $output == *"unknown benchmark 'nosuch'"* ]]
	run "$S/run.sh" -n x -m "$T/mods" ipistorm
	[ "$status" -eq 2 ]
	run "$S/run.sh" -m "$T/mods" ipistorm numipi
	[[ $output == *"'numipi' is not PARAM=VALUE"* ]]
	run "$S/run.sh" -m "$T/nomods" ipistorm numipi=1
	[ "$status" -eq 2 ]
	[[ $output == *"no $T/nomods/ipistorm/ipistorm.ko"* ]]
	run "$S/run.sh" -m "$T/mods" -s numipi=1 ipistorm numipi=1
	[[ $output == *"only goes with idle_reentry"* ]]
}
