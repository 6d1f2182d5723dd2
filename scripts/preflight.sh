#!/bin/sh
# preflight.sh: before a run, on the measured machine, what the suite's
# figures will be worth there: the state the benchmarks depend on, one
# check a line, and a verdict per benchmark, valid, degraded or invalid,
# with its reasons. It loads nothing and writes nothing (busybox sh).
#
#   preflight.sh [-j] [-m MODDIR] [BENCH...]
#     -j         JSON (format ipistorm-preflight/1) instead of the table
#     -m MODDIR  where <module>/<module>.ko are (default: this tree)
#     BENCH      the benchmarks to judge (default: every one of the tree)
#
# Verdicts: valid, nothing known changes what the benchmark measures;
# degraded, it runs, and a figure carries a stated bias or stays
# unproven (the reasons say which, and what would lift it); invalid, it
# will not run, or would not measure what it is for. Notes say what a
# reader of the figures should know and changes no verdict.
# Exit status: 0 every benchmark valid, 3 one degraded and none invalid,
# 1 one invalid, 2 usage.
#
# For tests: IPISTORM_SYSROOT prefixes /sys, /proc and /boot, as for
# run.sh; with it the kernel log is the file IPISTORM_SYSROOT/dmesg, not
# dmesg's.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
HERE=$(dirname "$0")
TOP=$HERE/..
USAGE="$PROG [-j] [-m MODDIR] [BENCH...]"

ROOT=${IPISTORM_SYSROOT:-}
SYS=$ROOT/sys
PROC=$ROOT/proc
CPU=$SYS/devices/system/cpu

json=0 moddir=$TOP
while getopts jm:h opt; do
	case $opt in
	j) json=1 ;;
	m) moddir=$OPTARG ;;
	*) usage_opt "$opt" ;;
	esac
done
shift $((OPTIND - 1))
all=$(suite_benches "$TOP" | tr '\n' ' ' | sed 's/ $//')
benches=${*:-$all}
for b in $benches; do
	case " $all " in *" $b "*) ;; *) usage_error "unknown benchmark '$b' (the suite's: ${all% })" ;; esac
done
[ -d "$moddir" ] || usage_error "-m: no directory '$moddir'"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
: >"$TMP/checks"
: >"$TMP/findings"

# check NAME VALUE: a line of the table.
check() { printf '%s\t%s\n' "$1" "$2" >>"$TMP/checks"; }
# found SCOPE LEVEL REASON: what the state does to the benchmarks of SCOPE
# (a benchmark's name, "module", "program", "hooked": the modules that
# hook kernel functions, "timed": every benchmark), LEVEL degraded,
# invalid or note.
found() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$TMP/findings"; }

release=$(get "$PROC/sys/kernel/osrelease")
[ "$release" != unknown ] || release=$(uname -r)
cmdline=$(get "$PROC/cmdline")
arg() {
	for _w in $cmdline; do
		case $_w in "$1="*) echo "${_w#*=}"; return ;; esac
	done
	echo none
}
flags=" $(sed -n 's/^flags[[:space:]]*: *//p' "$PROC/cpuinfo" 2>/dev/null | head -n 1) "
has_flag() { case $flags in *" $1 "*) return 0 ;; esac; return 1; }
kernel_config "$TMP/config" "$PROC" "$ROOT/boot" "$release"
kconf() { sed -n "s/^CONFIG_$1=//p" "$TMP/config" | head -n 1; }
if [ -n "$ROOT" ]; then
	cat "$ROOT/dmesg" >"$TMP/log" 2>/dev/null || : >"$TMP/log"
else
	dmesg >"$TMP/log" 2>/dev/null || : >"$TMP/log"
fi
sockets=$(count "$CPU"/cpu[0-9]*/topology/physical_package_id)
check kernel "$release ($(get "$PROC/sys/kernel/version"))"
check cpus "$(get "$CPU/online") online, $sockets sockets"

# ---- loading the modules ----------------------------------------------------

mods=""
for b in $benches; do [ "$(bench_kind "$TOP" "$b")" != module ] || mods="$mods $b"; done
[ "$(id -u)" = 0 ] || found timed invalid "not root: run.sh loads modules and writes /sys as root"
disabled=$(get "$PROC/sys/kernel/modules_disabled")
[ "$disabled" != 1 ] || found module invalid "kernel.modules_disabled=1: no module loads until a reboot"
enforce=$(get "$SYS/module/module/parameters/sig_enforce")
lockdown=$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' "$SYS/kernel/security/lockdown" 2>/dev/null | head -n 1)
[ -n "$lockdown" ] || lockdown=unknown
case $(arg lockdown) in integrity | confidentiality) [ "$lockdown" != unknown ] || lockdown=$(arg lockdown) ;; esac
[ "$enforce" = Y ] || [ "$(arg module.sig_enforce)" != 1 ] || enforce=Y
check signatures "sig_enforce=$enforce lockdown=$lockdown"
case $lockdown in
integrity | confidentiality)
	found module degraded "lockdown=$lockdown: debugfs refuses files that can be written, so a module's control file (stop) is refused; a run ends by its duration=" ;;
esac
headers=$ROOT/lib/modules/$release/build
for m in $mods; do
	ko=$moddir/$m/$m.ko
	if [ ! -f "$ko" ]; then
		if [ -f "$headers/Makefile" ]; then
			found "$m" invalid "$ko is not built (make: the headers of $release are installed)"
		else
			found "$m" invalid "$ko is not built, and no headers of $release ($headers): install linux-headers-$release, then make"
		fi
		check "module.$m" "not built"
		continue
	fi
	# sed quits at the first: the rest of the .ko is not read (tr's
	# write error then, where SIGPIPE is ignored, is not ours to show)
	magic=$(tr '\000' '\n' <"$ko" 2>/dev/null | sed -n -e '/^vermagic=/{' -e 's/^vermagic=\([^ ]*\).*/\1/p' -e q -e '}')
	signed=unsigned
	! tail -c 28 "$ko" | grep -q '~Module signature appended~' || signed=signed
	check "module.$m" "built for ${magic:-unknown}, $signed"
	[ "$magic" = "$release" ] ||
		found "$m" invalid "$ko is built for ${magic:-an unknown kernel}, this kernel is $release (make clean; make)"
	if [ "$signed" = unsigned ] && { [ "$enforce" = Y ] || [ "$lockdown" = integrity ] || [ "$lockdown" = confidentiality ]; }; then
		found "$m" invalid "the kernel loads only signed modules (sig_enforce=$enforce, lockdown=$lockdown) and $ko is unsigned: make sign KEY=... CERT=... (docs/packaging.md)"
	fi
done
if grep -q ' debugfs ' "$PROC/mounts" 2>/dev/null; then
	check debugfs mounted
else
	check debugfs "not mounted"
	found module invalid "debugfs is not mounted: the results are read there (mount -t debugfs debugfs /sys/kernel/debug)"
fi

# ---- ftrace: the hooks of idle_reentry and nohz_csd ----------------------------

tracing=$SYS/kernel/tracing
[ -r "$tracing/enabled_functions" ] || tracing=$SYS/kernel/debug/tracing
tracer=$(get "$tracing/current_tracer")
case $tracer in
unknown | nop) ;;
*) found timed degraded "current_tracer=$tracer: a tracer runs on the functions it traces, the storm's and the idle path's among them" ;;
esac
hooked=""
for m in $mods; do
	h=$(module_hooks "$TOP" "$m")
	[ -z "$h" ] || hooked="$hooked $m"
	eval "hooks_$m=\$h"
	# a module that links the hooks, whose C is not here to name them
	if [ -z "$h" ] && ! ls "$TOP/$m"/*.c >/dev/null 2>&1 && [ -f "$moddir/$m/$m.ko" ] &&
		grep -q ips_hook_resolve "$moddir/$m/$m.ko"; then
		found "$m" degraded "which kernel functions it hooks is unknown here (no C in $TOP/$m, where they are named): another ftrace user on them is not looked for"
	fi
done
if [ -n "$hooked" ]; then
	direct=ftrace_ops
	[ "$(kconf DYNAMIC_FTRACE_WITH_DIRECT_CALLS)" != y ] || direct=direct
	[ -s "$TMP/config" ] || direct=unknown
	ftrace_on=$(get "$PROC/sys/kernel/ftrace_enabled")
	check ftrace "ftrace_enabled=$ftrace_on hooks_via=$direct current_tracer=$tracer"
	[ "$ftrace_on" != 0 ] || found hooked invalid "kernel.ftrace_enabled=0: no hook can be put in"
	[ "$direct" != ftrace_ops ] ||
		found hooked note "no DYNAMIC_FTRACE_WITH_DIRECT_CALLS: the hooks are ftrace_ops callbacks (hooks_via=ftrace_ops), slower, calibrated as such"
	if [ -r "$tracing/enabled_functions" ]; then
		shared=" "
		for m in $hooked; do
			eval "h=\$hooks_$m"
			for f in $h; do
				line=$(grep -E "^$f(\.[a-z]+\.[0-9]+)* \(" "$tracing/enabled_functions" | head -n 1 || :)
				[ -n "$line" ] || continue
				case $shared in *" $f "*) ;; *) shared="$shared$f " ;; esac
				found "$m" degraded "$f is already traced ($(echo "$line" | tr -s ' \t' ' ')): a second ftrace user makes its hook go through the ftrace_ops list, not the direct call whose cost was calibrated"
			done
		done
		# shellcheck disable=SC2086 # a list of names
		set -- $shared
		check ftrace_users "$(grep -c . "$tracing/enabled_functions" || :) functions traced, $# of them hooked by the suite"
	else
		check ftrace_users "unknown (no enabled_functions: tracefs not mounted?)"
		found hooked note "tracefs is not readable: whether another ftrace user shares a hooked function is unknown"
	fi
	# shellcheck disable=SC2086 # a list of names
	set -- $hooked
	[ $# -lt 2 ] || found hooked note "idle_reentry and nohz_csd both hook do_idle: loaded together, neither gets its direct call there (run them apart)"
fi

# ---- clocks -----------------------------------------------------------------

tsc=""
for f in tsc constant_tsc nonstop_tsc tsc_reliable tsc_known_freq; do has_flag "$f" && tsc="$tsc${tsc:+ }$f"; done
clocksource=$(get "$SYS/devices/system/clocksource/clocksource0/current_clocksource")
tscarg=$(arg tsc)
grep -E "TSC unstable|'tsc' as unstable|TSC warp|TSC ADJUST|TSC synchronization|Measured [0-9]+ cycles TSC" "$TMP/log" |
	sed 's/^\[[^]]*\] *//' | head -n 4 >"$TMP/tsclog" || :
check tsc "flags=${tsc:-none} clocksource=$clocksource tsc=$tscarg log=$(grep -c . "$TMP/tsclog" || :) lines"
# The clock every module times with (common/clock.c, one rule): the TSC
# with constant_tsc, or in a virtual machine, unless the kernel marked it
# unstable. Else the hooks read sched_clock(), ipistorm and wakeup
# ktime_get_mono_fast_ns() (the clocksource's read, ordered).
unstable=$(grep -E "TSC unstable|'tsc' as unstable" "$TMP/tsclog" | head -n 1 || :)
has_flag tsc || unstable="no TSC"
if [ -n "$unstable" ] || { ! has_flag constant_tsc && ! has_flag hypervisor; }; then
	why=${unstable:-no constant_tsc}
	found ipistorm degraded "the TSC is not a constant, stable clock ($why): a call is timed with ktime_get_mono_fast_ns() on clocksource $clocksource, whose reads enter every call's time"
	found idle_reentry degraded "the TSC is not a constant, stable clock ($why): the hooks time with sched_clock(), whose reads cost more"
	found nohz_csd degraded "the TSC is not a constant, stable clock ($why): the hooks time with sched_clock(), whose reads cost more"
	found wakeup degraded "the TSC is not a constant, stable clock ($why): a wake-up is timed with ktime_get_mono_fast_ns() on clocksource $clocksource, whose reads enter every latency"
	found placement degraded "the TSC is not a constant, stable clock ($why): a wake-up is timed with ktime_get_mono_fast_ns() on clocksource $clocksource, whose reads enter every latency"
elif grep -q -E 'TSC warp|TSC ADJUST|Measured [0-9]+ cycles' "$TMP/tsclog"; then
	found wakeup degraded "the kernel log reports TSC offsets between CPUs ($(grep -E 'warp|ADJUST|Measured' "$TMP/tsclog" | head -n 1)): latencies across them carry the offset"
	found placement degraded "the kernel log reports TSC offsets between CPUs ($(grep -E 'warp|ADJUST|Measured' "$TMP/tsclog" | head -n 1)): latencies across them carry the offset, which placement.ko does not bound"
elif [ "$sockets" -gt 1 ] && { [ "$tscarg" = reliable ] || has_flag tsc_reliable; }; then
	found wakeup degraded "$sockets sockets and the kernel's TSC warp test skipped (tsc=$tscarg, flags: $tsc): a cross-socket wake-up latency carries the sockets' unmeasured TSC offset (docs/hardware.md)"
	found placement degraded "$sockets sockets and the kernel's TSC warp test skipped (tsc=$tscarg, flags: $tsc): an other_node latency carries the sockets' unmeasured TSC offset (docs/hardware.md)"
elif [ "$sockets" -gt 1 ]; then
	found wakeup note "$sockets sockets: the kernel's TSC warp test checked one CPU per package at boot; the suite measures no skew per pair (docs/hardware.md)"
	found placement note "$sockets sockets: other_node latencies are read on two sockets' TSCs, whose skew placement.ko does not bound (clock_skew=not_bounded)"
fi

# ---- idle -------------------------------------------------------------------

idle=$(arg idle)
driver=$(get "$CPU/cpuidle/current_driver")
governor=$(get "$CPU/cpuidle/current_governor_ro")
[ "$governor" != unknown ] || governor=$(get "$CPU/cpuidle/current_governor")
# each state of cpu0: NAME:LATENCY:poll|halt|unknown:on|off. A state polls
# when its enter() runs with TIF_POLLING set: POLL, intel_idle's MWAIT
# states, acpi_idle's FFH (MWAIT) ones, the suite's test aid's.
states="" polling="" deep=""
c1=""
for s in "$CPU"/cpu0/cpuidle/state[0-9]*; do
	[ -d "$s" ] || continue
	name=$(get "$s/name") desc=$(get "$s/desc") lat=$(get "$s/latency") dis=$(get "$s/disable")
	case $name:$driver:$desc in
	POLL:*) how=poll ;;
	*:intel_idle:* | *:polling_idle:* | *:acpi_idle:*FFH* | *:acpi_idle:*MWAIT*) how=poll ;;
	*:acpi_idle:*IOPORT* | *:acpi_idle:*HLT* | *:haltpoll:*) how=halt ;;
	*) how=unknown ;;
	esac
	on=on
	[ "$dis" = 0 ] || on=off
	states="$states${states:+,}$name:$lat:$how:$on"
	[ "$on" = off ] || [ "$how" != poll ] || polling="$polling${polling:+ }$name"
	case $name in C1 | C1_ACPI) [ -n "$c1" ] || c1=$lat ;; esac
	echo "$name $lat $on $how" >>"$TMP/states"
done
if [ -s "$TMP/states" ]; then
	# above C1's exit latency (else the shallowest non-POLL state's): deep
	[ -n "$c1" ] || c1=$(awk '$1 != "POLL" { print $2; exit }' "$TMP/states")
	deep=$(awk -v c1="$c1" '$3 == "on" && $2 > c1 { printf "%s%s", (n++ ? " " : ""), $1 }' "$TMP/states")
	deep_poll=$(awk -v c1="$c1" '$3 == "on" && $2 > c1 && $4 == "poll" { printf "%s%s", (n++ ? " " : ""), $1 }' "$TMP/states")
fi
check idle "idle=$idle cpuidle_driver=$driver governor=$governor"
check idle_states "${states:-none}"
case $idle in
poll)
	found ipistorm degraded "idle=poll: every callback is polled, but the tick never stops and the cpuidle governor is bypassed, an idle no server runs (README)"
	found idle_reentry degraded "idle=poll: re-entries of an idle loop that never stops the tick, not a server's"
	found wakeup degraded "idle=poll: every idle CPU polls; no wake-up takes the IPI path a server's deep states take"
	found placement degraded "idle=poll: every idle target polls; an idle target's latency is a poll's, never a deep state's exit"
	found nohz_csd invalid "idle=poll: the tick is never stopped, so no CPU joins the idle-balance mask and no kick reaches an idle CPU"
	;;
*)
	if [ -z "$polling" ]; then
		why="no enabled idle state polls (cpuidle driver $driver)"
		[ "$idle" = none ] || why="idle=$idle, $why"
		found ipistorm degraded "$why: every call reaches the target by IPI; the polled path SM_IDLE shortens is never taken (poll_pct near 0)"
		found idle_reentry invalid "$why: no call-function is polled, so no idle re-entry of that path happens to be timed"
		found nohz_csd degraded "$why: idle-balance kicks arrive by IPI only; the polled kick (the need_resched() bail-out) is never exercised"
		found wakeup note "$why: wake-ups of idle CPUs take the IPI path only"
	fi
	;;
esac
if [ -n "$deep" ]; then
	found timed degraded "idle states deeper than C1 enabled ($deep): their exit times enter the figures (run.sh -p, or -P epyc|xeon)"
fi
if [ -n "${deep_poll:-}" ]; then
	found ipistorm note "polling states deeper than C1 enabled ($deep_poll): a 'polled' call may wake the target from them, so poll vs ipi is also shallow vs deep"
	found wakeup note "polling states deeper than C1 enabled ($deep_poll): the poll path's latencies include their exits"
fi
case $driver in
acpi_idle) found ipistorm note "acpi_idle (EPYC): its MWAIT (FFH) states poll and its I/O-port and HLT states do not: 'poll' means a C1 exit, 'ipi' mostly a C2 exit" ;;
intel_idle) found ipistorm note "intel_idle: every state polls (MWAIT), so 'poll' includes exits from C6; read the idle states of meta.txt (cstates.cpuN) beside poll_pct" ;;
esac

# ---- what else runs on the CPUs -----------------------------------------------

nohz_full=$(get "$CPU/nohz_full")
isolated=$(get "$CPU/isolated")
case $nohz_full in unknown | "(null)" | "") nohz_full=none ;; esac
[ -n "$isolated" ] && [ "$isolated" != unknown ] || isolated=none
check isolation "nohz_full=$nohz_full isolated=$isolated"
[ "$nohz_full" = none ] ||
	found nohz_csd degraded "nohz_full=$nohz_full: those CPUs are left out of idle load balancing; watch CPUs outside the list"
if [ "$isolated" != none ]; then
	found nohz_csd degraded "isolcpus=$isolated: no scheduling domain balances those CPUs; watch CPUs outside the list"
	found wakeup note "isolcpus=$isolated: a wakee bound there is never moved; wake-ups there are of bound tasks only"
	found placement degraded "isolcpus=$isolated: no scheduling domain covers those CPUs, so a wakee allowed there is not placed by the wake-up's search; keep cpulist outside them"
fi
smt=$(get "$CPU/smt/active")
check smt "active=$smt control=$(get "$CPU/smt/control")"
[ "$smt" != 1 ] || found timed note "SMT on: a sibling's load slows its core; choose pairs by class (topology.sh)"
govs=$(uniq_lines "$CPU"/cpu[0-9]*/cpufreq/scaling_governor)
boost=$(get "$CPU/cpufreq/boost")
no_turbo=$(get "$CPU/intel_pstate/no_turbo")
check cpufreq "driver=$(get "$CPU/cpu0/cpufreq/scaling_driver") governors=${govs:-none} boost=$boost no_turbo=$no_turbo"
[ -z "$govs" ] || [ "$govs" = performance ] ||
	found timed degraded "cpufreq governor $govs, not performance: the clock follows the load (run.sh -p)"
if [ "$boost" = 1 ] || [ "$no_turbo" = 0 ]; then
	found timed note "boost on: the clock depends on the package's load and heat (run.sh -P xeon turns it off; -P epyc keeps it, as the SM_IDLE thread's EPYC figures)"
fi
irqbalance="not running"
! grep -s -q -x irqbalance "$PROC"/[0-9]*/comm || irqbalance=running
nmi=$(get "$PROC/sys/kernel/nmi_watchdog")
check interrupts "irqbalance=$irqbalance nmi_watchdog=$nmi"
[ "$irqbalance" = "not running" ] ||
	found timed degraded "irqbalance runs: it may move device interrupts onto the measured CPUs during a run (stop it; meta.txt records irqs.cpuN)"
[ "$nmi" != 1 ] ||
	found timed note "the NMI watchdog is on: its NMI (one per CPU every watchdog_thresh s) lands inside a timed span now and then, unflagged"

# ---- the kernel and the machine ---------------------------------------------

case $(get "$PROC/sys/kernel/version") in
*PREEMPT_RT*)
	rt=1
	found hooked note "PREEMPT_RT: the modules calibrate their hooks at insmod and again at the stop, one CPU at a time, in stretches with interrupts off of about 20 us (calib_irqs_off_max_ns in the result)"
	;;
*) rt=0 ;;
esac
if has_flag hypervisor; then
	check machine "virtual (CPUID hypervisor bit)"
	found timed note "a virtual machine: the host preempts vCPUs inside timed spans; idle is the host's"
else
	check machine "bare metal (no CPUID hypervisor bit)"
fi
classes=$(sh "$HERE/topology.sh" ${ROOT:+-r "$ROOT"} 2>/dev/null | sed -n 's/^class=\([^ ]*\) pair=[0-9].*/\1/p' | tr '\n' ' ' | sed 's/ $//')
check pair_classes "${classes:-none}"

# ---- programs -----------------------------------------------------------------

for b in $benches; do
	[ "$(bench_kind "$TOP" "$b")" = program ] || continue
	for p in $(bench_get "$TOP" "$b" programs); do
		if path=$(bench_program "$TOP" "$b" "$p"); then
			check "program.$p" "$path"
		else
			check "program.$p" "not installed"
			found "$b" invalid "$p is not installed ($(bench_program_from "$TOP" "$b"))"
		fi
	done
done

# ---- the verdicts ---------------------------------------------------------------

for b in $benches; do
	scopes="$b timed $(bench_kind "$TOP" "$b")"
	case " $hooked " in *" $b "*) scopes="$scopes hooked" ;; esac
	echo "$b $scopes"
done >"$TMP/benches"
awk -F '\t' -v json="$json" -v fmt=ipistorm-preflight/1 -v release="$release" -v rt="$rt" \
	-f "$HERE/json.awk" -f "$HERE/preflight.awk" "$TMP/benches" "$TMP/checks" "$TMP/findings"
