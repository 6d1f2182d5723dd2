#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# preflight.sh on two fake servers that fixtures/make-fixtures.sh builds
# here (an EPYC with acpi_idle, a Xeon with intel_idle), each test on a
# copy it changes, with module files built for the fake kernel.

setup_file() {
	for k in epyc xeon; do
		(cd "$BATS_TEST_DIRNAME/fixtures" && sh make-fixtures.sh server "$k" "$BATS_FILE_TMPDIR/$k")
	done
}

setup() {
	S=$BATS_TEST_DIRNAME/..
	T=$BATS_TEST_TMPDIR
	# shellcheck source=../lib.sh
	. "$S/lib.sh"
	for m in $(suite_kmods "$S/.."); do
		mkdir -p "$T/mods/$m"
		printf 'license=GPL\0vermagic=6.12.0-test SMP preempt mod_unload modversions \0' >"$T/mods/$m/$m.ko"
	done
}

# server KIND: a copy of the fake server KIND as the machine, in $R.
server() {
	R=$T/$1
	rm -rf "$R"
	cp -r "$BATS_FILE_TMPDIR/$1" "$R"
	export IPISTORM_SYSROOT=$R
	C=$R/sys/devices/system/cpu
}

pf() { run --separate-stderr "$S/preflight.sh" -m "$T/mods" "$@"; }

# verdict BENCH: BENCH's verdict in the last text output.
verdict() { sed -n "s/^$1: //p" <<<"$output"; }
# reasons BENCH: BENCH's reasons and notes in the last text output.
reasons() { awk -v b="$1:" '$1 == b { on = 1; next } /^[^ ]/ { on = 0 } on' <<<"$output"; }
# disable STATE...: disable those cpuidle states on every CPU (run.sh -P).
disable() {
	for s in "$@"; do
		for f in "$C"/cpu[0-9]*/cpuidle/state"$s"/disable; do echo 1 >"$f"; done
	done
}

@test "preflight: the EPYC server, acpi_idle's C1 polls and C2 does not; -P epyc's state is valid" {
	server epyc
	pf ipistorm idle_reentry nohz_csd wakeup
	[ "$status" -eq 3 ]
	[ -z "$stderr" ]
	[ "${lines[0]}" = format=ipistorm-preflight/1 ]
	grep -qx 'idle_states  *POLL:0:poll:on,C1:1:poll:on,C2:350:halt:on' <<<"$output"
	grep -qx 'pair_classes  *smt llc cross-llc cross-socket' <<<"$output"
	grep -qx 'machine  *bare metal (no CPUID hypervisor bit)' <<<"$output"
	for b in ipistorm idle_reentry nohz_csd wakeup; do
		[ "$(verdict $b)" = degraded ] || { echo "$b: $(verdict $b)"; false; }
		reasons $b | grep -q '^  - degraded: idle states deeper than C1 enabled (C2)'
	done
	reasons ipistorm | grep -q "^  note: acpi_idle (EPYC): .*'poll' means a C1 exit, 'ipi' mostly a C2 exit"
	reasons wakeup | grep -q '^  note: 2 sockets: the kernel.s TSC warp test checked one CPU per package'
	# -P epyc: C2 off, boost kept
	disable 2
	pf ipistorm idle_reentry nohz_csd wakeup
	[ "$status" -eq 0 ]
	for b in ipistorm idle_reentry nohz_csd wakeup; do [ "$(verdict $b)" = valid ]; done
	reasons ipistorm | grep -q '^  note: boost on'
}

@test "preflight: the Xeon server, every intel_idle state polls; -P xeon's state is valid" {
	server xeon
	pf ipistorm wakeup
	[ "$status" -eq 3 ]
	grep -qx 'idle_states  *POLL:0:poll:on,C1:2:poll:on,C1E:10:poll:on,C6:170:poll:on' <<<"$output"
	grep -qx 'pair_classes  *smt llc cross-node cross-socket' <<<"$output"
	reasons ipistorm | grep -q '^  - degraded: idle states deeper than C1 enabled (C1E C6)'
	reasons ipistorm | grep -q "^  note: polling states deeper than C1 enabled (C1E C6): a 'polled' call may wake the target from them"
	reasons ipistorm | grep -q "^  note: intel_idle: every state polls"
	disable 2 3
	pf ipistorm wakeup
	[ "$status" -eq 0 ]
	[ "$(verdict ipistorm)" = valid ]
	run ! grep -q 'note: polling states deeper' <<<"$output"
	# the governor and irqbalance
	echo powersave >"$C/cpu3/cpufreq/scaling_governor"
	echo irqbalance >"$R/proc/812/comm"
	pf ipistorm
	[ "$status" -eq 3 ]
	reasons ipistorm | grep -q '^  - degraded: cpufreq governor performance;powersave, not performance'
	reasons ipistorm | grep -q '^  - degraded: irqbalance runs'
}

@test "preflight: JSON says what the table says, under busybox sh" {
	server xeon
	run --separate-stderr busybox sh "$S/preflight.sh" -m "$T/mods"
	text=$output tstatus=$status
	run --separate-stderr busybox sh "$S/preflight.sh" -j -m "$T/mods"
	[ "$status" -eq "$tstatus" ]
	TEXT=$text python3 -c '
import json, os, re, sys
d = json.load(sys.stdin)
assert d["format"] == "ipistorm-preflight/1", d["format"]
text = os.environ["TEXT"]
for c in d["checks"]:
    assert re.search("^" + re.escape(c["name"]) + " +" + re.escape(c["value"]) + "$", text, re.M), c
assert [b["name"] for b in d["benchmarks"]] == re.findall(r"^([a-z_]+): (?:valid|degraded|invalid)$", text, re.M)
for b in d["benchmarks"]:
    assert b["name"] + ": " + b["verdict"] in text.split("\n"), b
    for r in b["reasons"]:
        assert r["level"] in ("degraded", "invalid"), r
        assert "  - " + r["level"] + ": " + r["text"] in text, r
    assert (b["verdict"] == "invalid") == any(r["level"] == "invalid" for r in b["reasons"]), b
    assert not b["reasons"] == (b["verdict"] != "valid")
' <<<"$output"
}

@test "preflight: a module that cannot load is invalid, saying why" {
	server xeon
	disable 2 3
	while IFS='|' read -r file value want; do
		server xeon
		disable 2 3
		[ -z "$file" ] || echo "$value" >"$R/$file"
		pf ipistorm
		[ "$status" -eq 1 ] || { echo "$file=$value: exit $status"; false; }
		reasons ipistorm | grep -q "^  - invalid: .*$want" || { echo "$file=$value: $output"; false; }
		rm -rf "$R"
	done <<-'EOF'
	sys/module/module/parameters/sig_enforce|Y|is unsigned: make sign KEY=... CERT=...
	sys/kernel/security/lockdown|none [integrity] confidentiality|lockdown=integrity) and .* is unsigned: make sign
	proc/sys/kernel/modules_disabled|1|kernel.modules_disabled=1
	proc/sys/kernel/osrelease|6.12.1-other|is built for 6.12.0-test, this kernel is 6.12.1-other (make clean; make)
	proc/mounts|sysfs /sys sysfs rw 0 0|debugfs is not mounted
	EOF
	# signed, it loads where signatures are enforced
	server xeon
	disable 2 3
	echo Y >"$R/sys/module/module/parameters/sig_enforce"
	printf '~Module signature appended~\n' >>"$T/mods/ipistorm/ipistorm.ko"
	pf ipistorm
	[ "$status" -eq 0 ]
	grep -q '^module.ipistorm  *built for 6.12.0-test, signed$' <<<"$output"
	rm "$T/mods/ipistorm/ipistorm.ko"
	pf ipistorm
	[ "$status" -eq 1 ]
	reasons ipistorm | grep -q "^  - invalid: $T/mods/ipistorm/ipistorm.ko is not built, and no headers of 6.12.0-test"
}

@test "preflight: another ftrace user on a hooked function degrades the modules that hook it" {
	server epyc
	disable 2
	printf 'do_idle (1)   \t->function_trace_call+0x0/0x160\nschedule_idle.isra.0 (2)  R  \nvfs_read (1)  \n' \
		>"$R/sys/kernel/tracing/enabled_functions"
	pf ipistorm idle_reentry nohz_csd
	[ "$status" -eq 3 ]
	[ "$(verdict ipistorm)" = valid ]
	grep -q '^ftrace_users  *3 functions traced, 2 of them hooked by the suite$' <<<"$output"
	reasons idle_reentry | grep -q '^  - degraded: do_idle is already traced (do_idle (1) ->function_trace_call+0x0/0x160): a second ftrace user makes its hook go through the ftrace_ops list'
	reasons idle_reentry | grep -q '^  - degraded: schedule_idle is already traced (schedule_idle.isra.0 (2) R )'
	reasons nohz_csd | grep -q '^  - degraded: do_idle is already traced'
	run ! grep -q 'vfs_read is' <<<"$output"
	# a tracer on: every benchmark
	echo function >"$R/sys/kernel/tracing/current_tracer"
	pf ipistorm hackbench
	reasons ipistorm | grep -q '^  - degraded: current_tracer=function'
	reasons hackbench | grep -q '^  - degraded: current_tracer=function'
}

@test "preflight: clocks, a TSC the kernel distrusts and a warp test it skipped" {
	server epyc
	disable 2
	pf wakeup ipistorm
	[ "$status" -eq 0 ]
	pf placement
	reasons placement | grep -q '^  note: 2 sockets: other_node latencies are read on two sockets. TSCs'
	sed -i 's/quiet$/quiet tsc=reliable/' "$R/proc/cmdline"
	pf wakeup ipistorm placement
	[ "$status" -eq 3 ]
	[ "$(verdict ipistorm)" = valid ]
	reasons wakeup | grep -q '^  - degraded: 2 sockets and the kernel.s TSC warp test skipped (tsc=reliable'
	reasons placement | grep -q '^  - degraded: 2 sockets and the kernel.s TSC warp test skipped (tsc=reliable.*: an other_node latency'
	echo '[    5.100000] tsc: Marking TSC unstable due to check_tsc_sync_source failed' >>"$R/dmesg"
	pf wakeup ipistorm idle_reentry
	[ "$status" -eq 3 ]
	reasons wakeup | grep -q '^  - degraded: the TSC is not a constant, stable clock (tsc: Marking TSC unstable due to check_tsc_sync_source failed): a wake-up is timed with ktime_get_mono_fast_ns() on clocksource tsc'
	reasons ipistorm | grep -q '^  - degraded: the TSC is not a constant, stable clock (tsc: Marking TSC unstable due to check_tsc_sync_source failed): a call is timed with ktime_get_mono_fast_ns() on clocksource tsc'
	reasons idle_reentry | grep -q '^  - degraded: the TSC is not a constant, stable clock (tsc: Marking TSC unstable .*): the hooks time with sched_clock()'
	# a virtual machine without constant_tsc: every module keeps the TSC
	server epyc
	disable 2
	sed -i 's/^flags.*/flags\t\t: fpu tsc msr apic hypervisor/' "$R/proc/cpuinfo"
	pf wakeup ipistorm idle_reentry
	[ "$(verdict wakeup) $(verdict idle_reentry) $(verdict ipistorm)" = "valid valid valid" ]
	# bare metal without it: none does
	sed -i 's/^flags.*/flags\t\t: fpu tsc msr apic/' "$R/proc/cpuinfo"
	pf wakeup ipistorm idle_reentry
	reasons ipistorm | grep -q '^  - degraded: the TSC is not a constant, stable clock (no constant_tsc): a call is timed with ktime_get_mono_fast_ns()'
	reasons wakeup | grep -q '^  - degraded: the TSC is not a constant, stable clock (no constant_tsc): a wake-up is timed'
}

@test "preflight: idle=poll, and a machine whose idle never polls" {
	server epyc
	disable 2
	sed -i 's/quiet$/quiet idle=poll/' "$R/proc/cmdline"
	pf ipistorm idle_reentry nohz_csd placement
	[ "$status" -eq 1 ]
	reasons ipistorm | grep -q '^  - degraded: idle=poll: every callback is polled, but the tick never stops'
	reasons placement | grep -q '^  - degraded: idle=poll: every idle target polls'
	reasons nohz_csd | grep -q '^  - invalid: idle=poll: the tick is never stopped'
	# acpi_idle with C1 by HLT and POLL off
	server epyc
	disable 0 2
	for f in "$C"/cpu[0-9]*/cpuidle/state1/desc; do echo "ACPI HLT" >"$f"; done
	pf ipistorm idle_reentry nohz_csd
	[ "$status" -eq 1 ]
	grep -qx 'idle_states  *POLL:0:poll:off,C1:1:halt:on,C2:350:halt:off' <<<"$output"
	reasons ipistorm | grep -q '^  - degraded: no enabled idle state polls (cpuidle driver acpi_idle): every call reaches the target by IPI'
	reasons idle_reentry | grep -q '^  - invalid: no enabled idle state polls'
	reasons nohz_csd | grep -q '^  - degraded: no enabled idle state polls'
}

@test "preflight: isolation, a program not installed; usage" {
	server xeon
	disable 2 3
	echo 2-7 >"$C/nohz_full"
	echo 4-7 >"$C/isolated"
	# a PATH of every program but hackbench
	mkdir "$T/path"
	for f in /usr/local/bin/* /usr/bin/* /bin/* /usr/sbin/* /sbin/*; do
		[ "${f##*/}" = hackbench ] || ln -sf "$f" "$T/path/"
	done
	PATH=$T/path pf nohz_csd hackbench placement
	[ "$status" -eq 1 ]
	reasons placement | grep -q '^  - degraded: isolcpus=4-7: no scheduling domain covers those CPUs'
	reasons nohz_csd | grep -q '^  - degraded: nohz_full=2-7: those CPUs are left out of idle load balancing'
	reasons nohz_csd | grep -q '^  - degraded: isolcpus=4-7'
	reasons hackbench | grep -q '^  - invalid: hackbench is not installed (package rt-tests)'
	pf nosuch
	[ "$status" -eq 2 ]
	[[ $stderr == *"unknown benchmark 'nosuch'"* ]]
	pf -m "$T/none" ipistorm
	[ "$status" -eq 2 ]
	run "$S/preflight.sh" -h
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "usage: preflight.sh [-j] [-m MODDIR] [BENCH...]" ]]
}

# Installed without its C (a tree of scripts and declarations only), a
# module that links the hooks cannot say what it hooks: said, not passed.
@test "preflight: a hooking module whose C is not here is degraded, not judged blind" {
	server epyc
	disable 2
	mkdir "$T/tree"
	cp -r "$S" "$T/tree/scripts"
	for b in $(suite_benches "$S/.."); do
		mkdir "$T/tree/$b"
		cp "$S/../$b/bench.conf" "$T/tree/$b/"
		[ ! -f "$S/../$b/parse.awk" ] || cp "$S/../$b/parse.awk" "$T/tree/$b/"
	done
	printf 'ips_hook_resolve\0' >>"$T/mods/idle_reentry/idle_reentry.ko"
	run --separate-stderr "$T/tree/scripts/preflight.sh" -m "$T/mods" idle_reentry wakeup
	[ "$status" -eq 3 ]
	reasons idle_reentry | grep -q "^  - degraded: which kernel functions it hooks is unknown here (no C in $T/tree/scripts/../idle_reentry"
	[ "$(verdict wakeup)" = valid ]
	# with its C, the hooks are named and looked for
	pf idle_reentry
	[ "$status" -eq 0 ]
}
