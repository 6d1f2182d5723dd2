#!/bin/sh
# run.sh: run one benchmark configuration N times, as root, on the measured
# machine, and keep every raw result with the machine's state (busybox sh).
#
#   run.sh [-n N] [-o DIR] [-m MODDIR] [-g DESCRIBE] [-s STORM] [-p] BENCH [PARAM=VALUE...]
#     BENCH      ipistorm, idle_reentry or nohz_csd; PARAMs go to its insmod
#                (idle_reentry and nohz_csd need duration= unless -s)
#     -n N       iterations (default 5); the module is loaded and unloaded
#                once per iteration
#     -w N       warm-up iterations before them (default 1), kept as
#                warmup-NNN.txt and left out of comparisons: the first storm
#                after boot can meet deferred boot work
#     -o DIR     result directory, must not exist
#                (default results/BENCH-<kernel release>-<date>)
#     -m MODDIR  where <module>/<module>.ko are (default: this tree)
#     -g DESC    `git describe` of the measured kernel, recorded in meta.txt
#     -s STORM   idle_reentry only: ipistorm parameters of a storm run while
#                idle_reentry measures, e.g. -s "pairs=0:1 numipi=20000"
#     -p         prepare: disable C-states deeper than C1, performance
#                governor, boost off (global and per policy); everything
#                is restored on exit, also on HUP, INT and TERM
#
# Writes DIR/iter-NNN.txt (the module's debugfs result, raw), per
# iteration DIR/irq-iter-NNN.txt (ipistorm-irq/1: /proc/interrupts deltas
# of the measured CPUs) and DIR/meta.txt (format ipistorm-run/2, see
# README.md). Exit status: 0 every run completed, 1 a run failed or was
# interrupted, 2 usage.
#
# For tests: IPISTORM_SYSROOT prefixes /sys, /proc and /boot,
# IPISTORM_INSMOD and IPISTORM_RMMOD replace insmod and rmmod.
set -eu

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
TOP=$(dirname "$0")/..
BENCHES=$(suite_modules "$TOP" | tr '\n' ' ')
USAGE="$PROG [-n N] [-w N] [-o DIR] [-m MODDIR] [-g DESCRIBE] [-s STORM] [-p] $(echo "$BENCHES" | sed 's/ *$//; s/ /|/g') [PARAM=VALUE...]"

ROOT=${IPISTORM_SYSROOT:-}
SYS=$ROOT/sys
PROC=$ROOT/proc
BOOT=$ROOT/boot
CPU=$SYS/devices/system/cpu
INSMOD=${IPISTORM_INSMOD:-insmod}
RMMOD=${IPISTORM_RMMOD:-rmmod}

n=5 warmup=1 out="" moddir=$TOP describe="" storm="" prepare=0
while getopts n:w:o:m:g:s:ph opt; do
	case $opt in
	n) n=$OPTARG ;;
	w) warmup=$OPTARG ;;
	o) out=$OPTARG ;;
	m) moddir=$OPTARG ;;
	g) describe=$OPTARG ;;
	s) storm=$OPTARG ;;
	p) prepare=1 ;;
	*) usage_opt "$opt" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage_error "no benchmark named"
bench=$1
shift
case " $BENCHES" in
*" $bench "*) ;;
*) usage_error "unknown benchmark '$bench' (one of: $BENCHES)" ;;
esac
case $n in
'' | *[!0-9]*) usage_error "-n: '$n' is not a number of iterations" ;;
esac
{ [ "$n" -ge 1 ] && [ "$n" -le 999 ]; } || usage_error "-n: $n iterations, want 1 to 999"
case $warmup in
'' | *[!0-9]*) usage_error "-w: '$warmup' is not a number of iterations" ;;
esac
[ "$warmup" -le 99 ] || usage_error "-w: $warmup warm-up iterations, want 0 to 99"
for p in "$@"; do
	case $p in
	[a-z]*=*) ;;
	*) usage_error "parameter '$p' is not PARAM=VALUE" ;;
	esac
done
if [ -n "$storm" ] && [ "$bench" != idle_reentry ]; then
	usage_error "-s: a storm only goes with idle_reentry"
fi
# Without a storm to stop it, idle_reentry and nohz_csd measure until
# duration= ends; without one the result is read while they still watch.
if [ "$bench" = nohz_csd ] || { [ "$bench" = idle_reentry ] && [ -z "$storm" ]; }; then
	dur=""
	for p in "$@"; do
		case $p in duration=*) dur=${p#duration=} ;; esac
	done
	case $dur in
	'' | 0 | *[!0-9]*)
		or=""
		[ "$bench" = nohz_csd ] || or=", or a storm with -s"
		usage_error "$bench needs duration=SECONDS (1 or more)$or"
		;;
	esac
fi
for m in "$bench" ${storm:+ipistorm}; do
	[ -f "$moddir/$m/$m.ko" ] || usage_error "no $moddir/$m/$m.ko (build with make, or give -m)"
done

# get FILE: its first line, or "unknown".
get() { first_line "$1" unknown; }

release=$(get "$PROC/sys/kernel/osrelease")
[ "$release" != unknown ] || release=$(uname -r)
if [ -z "$out" ]; then
	out="results/$bench-$release-$(date +%Y%m%d-%H%M%S)"
fi
if [ -e "$out" ]; then
	usage_error "$out exists: refusing to overwrite a result"
fi
mkdir -p "$(dirname "$out")"
mkdir "$out" || die "cannot create $out"
meta=$out/meta.txt

# ---- prepare mode: save, change, restore ----------------------------------

TMP=$(mktemp -d)
saved=$TMP/saved
: >"$saved"
loaded=""

# prep_warn MSG: a warning of preparing, also recorded in meta.txt.
prep_warn() { warn "$1"; echo "$1" >>"$TMP/notes"; }

# set FILE VALUE: remember FILE's value, then write VALUE to it.
set_sys() {
	[ -w "$1" ] || return 0
	_old=$(get "$1")
	[ "$_old" != "$2" ] || return 0
	echo "$1 $_old" >>"$saved"
	echo "$2" >"$1" 2>/dev/null || warn "cannot write $2 to $1"
}

cleanup() {
	for _m in $loaded; do
		"$RMMOD" "$_m" 2>/dev/null || warn "rmmod $_m failed"
	done
	loaded=""
	# Restore in reverse order, so a file changed twice gets its first value.
	if [ -s "$saved" ]; then
		sed -n '1!G;h;$p' "$saved" | while read -r _f _v; do
			echo "$_v" >"$_f" 2>/dev/null || warn "cannot restore $_f to $_v"
		done
		: >"$saved"
		echo "run.sh: restored the machine's idle and frequency settings" >&2
	fi
	rm -rf "$TMP"
}
# A signal records the interruption and exits, which runs the EXIT trap:
# dash and busybox sh run it on exit from a signal trap, not on the signal
# itself. HUP is an ssh connection that dropped.
interrupted() {
	trap '' HUP INT TERM
	echo "run.sh: interrupted by SIG$1" >&2
	echo "status=interrupted" >>"$meta"
	echo "failure=SIG$1" >>"$meta"
	exit 1
}
trap cleanup EXIT
trap 'interrupted HUP' HUP
trap 'interrupted INT' INT
trap 'interrupted TERM' TERM

# C1's exit latency: the state named C1 (C1_ACPI), else the shallowest
# non-POLL state.
c1_latency() {
	for _s in "$CPU"/cpu0/cpuidle/state*; do
		[ -d "$_s" ] || continue
		echo "$(get "$_s/name") $(get "$_s/latency")"
	done | awk '
		$1 == "POLL" || $2 !~ /^[0-9]+$/ { next }
		$1 == "C1" || $1 == "C1_ACPI" { c1 = $2 }
		min == "" || $2 < min { min = $2 }
		END { print (c1 != "" ? c1 : min) }'
}

if [ "$prepare" = 1 ]; then
	lat=$(c1_latency)
	for s in "$CPU"/cpu[0-9]*/cpuidle/state*; do
		{ [ -d "$s" ] && [ -n "$lat" ]; } || continue
		l=$(get "$s/latency")
		case $l in '' | *[!0-9]*) continue ;; esac
		[ "$l" -le "$lat" ] || set_sys "$s/disable" 1
	done
	for g in "$CPU"/cpu[0-9]*/cpufreq/scaling_governor; do
		[ -f "$g" ] && set_sys "$g" performance
	done
	# Boost is global (acpi-cpufreq, amd-pstate), per policy (newer
	# kernels' policyN/boost) or intel_pstate's no_turbo; say so when
	# none of them could be turned off.
	boosts=0
	for b in "$CPU/cpufreq/boost" "$CPU"/cpufreq/policy[0-9]*/boost; do
		[ -f "$b" ] || continue
		if [ -w "$b" ]; then
			set_sys "$b" 0
			boosts=$((boosts + 1))
		else
			prep_warn "cannot turn boost off: $b is not writable"
		fi
	done
	if [ -w "$CPU/intel_pstate/no_turbo" ]; then
		set_sys "$CPU/intel_pstate/no_turbo" 1
		boosts=$((boosts + 1))
	fi
	[ "$boosts" -gt 0 ] || prep_warn "could not turn boost off: no writable cpufreq/boost, policy*/boost or intel_pstate/no_turbo"
fi

# ---- the machine's state ----------------------------------------------------

# record KEY VALUE: append KEY=VALUE to meta.txt.
record() { echo "$1=$2" >>"$meta"; }
note_warn() {
	warn "$1"
	record warning "$1"
}

cmdline=$(get "$PROC/cmdline")
cpuinfo() {
	_c=$(sed -n "s/^$1[[:space:]]*: *//p" "$PROC/cpuinfo" 2>/dev/null | head -n 1)
	echo "${_c:-unknown}"
}
# count FILES...: number of distinct first lines of the readable FILES.
count() {
	for _f in "$@"; do [ -r "$_f" ] && head -n 1 "$_f"; done | sort -u | grep -c . || :
}
# uniq_lines FILES...: distinct first lines, separated by ";".
uniq_lines() {
	for _f in "$@"; do [ -r "$_f" ] && head -n 1 "$_f"; done | sort -u | join_lines ';'
}
join_lines() { awk -v s="$1" '{ o = o (NR > 1 ? s : "") $0 } END { print o }'; }
# ndirs PATHS...: how many of the arguments are directories.
ndirs() {
	_n=0
	for _d in "$@"; do [ -d "$_d" ] && _n=$((_n + 1)); done
	echo "$_n"
}

idle=none preempt_arg=""
for w in $cmdline; do
	case $w in
	idle=*) idle=${w#idle=} ;;
	preempt=*) preempt_arg=${w#preempt=} ;;
	esac
done

# measured_cpus ARGS...: the senders and targets of the run (and of the
# storm): pairs=, cpulist= (with single=1 also cpulist + offset=),
# load_cpus=; all online CPUs where the parameters leave them open
# (ipistorm's single=0 targets every CPU; idle_reentry and nohz_csd without
# cpulist= watch all).
measured_cpus() {
	echo "$bench $* ${storm:+; ipistorm $storm}" | awk -v online="$(get "$CPU/online")" '
	function expand(list, set,    n, i, r, a, b) {
		n = split(list, r, ",")
		for (i = 1; i <= n; i++)
			if (split(r[i], a, "-") == 2) { for (b = a[1] + 0; b <= a[2] + 0; b++) set[b] = 1 }
			else if (r[i] ~ /^[0-9]+$/) set[r[i] + 0] = 1
	}
	function group(    k, c, n, p, x, set) {
		if (b == "ipistorm" && ("pairs" in v) && v["pairs"] ~ /[0-9]/) {
			n = split(v["pairs"], p, ",")
			for (k = 1; k <= n; k++) { split(p[k], x, ":"); cpus[x[1] + 0]; cpus[x[2] + 0] }
		} else if (b == "ipistorm" && ("cpulist" in v) && v["single"] == 1) {
			expand(v["cpulist"], set)
			for (c in set) { cpus[c]; cpus[c + ("offset" in v ? v["offset"] : 1)] }
		} else if (b == "nohz_csd" && ("cpulist" in v)) {
			expand(v["cpulist"] "," v["load_cpus"], cpus)
		} else if (b == "idle_reentry" && ("cpulist" in v)) {
			expand(v["cpulist"], cpus)
		} else all = 1
		split("", v)
	}
	{
		for (i = 1; i <= NF; i++) {
			if ($i == ";") { group(); b = ""; continue }
			if (b == "") { b = $i; continue }
			eq = index($i, "=")
			if (eq) v[substr($i, 1, eq - 1)] = substr($i, eq + 1)
		}
		group()
	}
	END {
		if (all) expand(online, cpus)
		for (c in cpus) print c
	}' | sort -n | join_lines ' '
}
measured=$(measured_cpus "$@")

# cstates CPU: NAME:LATENCY_US:DISABLE of each idle state, ","-separated.
cstates() {
	for _s in "$CPU/cpu$1"/cpuidle/state*; do
		[ -d "$_s" ] && echo "$(get "$_s/name"):$(get "$_s/latency"):$(get "$_s/disable")"
	done | join_lines ,
}

# The kernel's configuration, when it exposes it.
config=$TMP/config
if [ -r "$PROC/config.gz" ]; then
	gzip -dc "$PROC/config.gz" >"$config" 2>/dev/null || : >"$config"
elif [ -r "$BOOT/config-$release" ]; then
	cat "$BOOT/config-$release" >"$config"
else
	: >"$config"
fi
kconf() { sed -n "s/^CONFIG_$1=//p" "$config" | head -n 1; }
config_hash=unknown
[ ! -s "$config" ] || config_hash=sha256:$(sha256sum <"$config" | cut -d ' ' -f 1)
hz=$(kconf HZ)
no_hz=unknown
if [ "$(kconf NO_HZ_FULL)" = y ]; then no_hz=full
elif [ "$(kconf NO_HZ_IDLE)" = y ]; then no_hz=idle
elif [ "$(kconf HZ_PERIODIC)" = y ]; then no_hz=periodic
fi
# Preemption: the live mode of a PREEMPT_DYNAMIC kernel in debugfs
# ("none (voluntary) full"), else preempt= of the command line, else the
# configuration, else the version string.
preempt=$(sed -n 's/.*(\([a-z_]*\)).*/\1/p' "$SYS/kernel/debug/sched/preempt" 2>/dev/null | head -n 1)
kversion=$(get "$PROC/sys/kernel/version")
if [ -z "$preempt" ] && [ -n "$preempt_arg" ]; then preempt=$preempt_arg
elif [ -n "$preempt" ]; then :
elif [ "$(kconf PREEMPT_RT)" = y ]; then preempt=rt
elif [ "$(kconf PREEMPT)" = y ]; then preempt=full
elif [ "$(kconf PREEMPT_VOLUNTARY)" = y ]; then preempt=voluntary
elif [ "$(kconf PREEMPT_NONE)" = y ]; then preempt=none
else
	case $kversion in
	*PREEMPT_RT*) preempt=rt ;;
	*PREEMPT_DYNAMIC*) preempt=dynamic ;;
	*PREEMPT*) preempt=full ;;
	*) preempt=unknown ;;
	esac
fi
sched_features=$(get "$SYS/kernel/debug/sched/features")
[ "$sched_features" != unknown ] || sched_features=$(get "$SYS/kernel/debug/sched_features")
pstate=""
for _d in amd_pstate intel_pstate; do
	[ -r "$CPU/$_d/status" ] && pstate="$pstate${pstate:+;}$_d:$(get "$CPU/$_d/status")"
done
boost_policies=""
for _b in "$CPU"/cpufreq/policy[0-9]*/boost; do
	[ -r "$_b" ] || continue
	_p=${_b%/boost}
	boost_policies="$boost_policies${boost_policies:+;}${_p##*/}=$(get "$_b")"
done
irqbalance="not running"
for _c in "$PROC"/[0-9]*/comm; do
	[ "$(get "$_c")" = irqbalance ] && irqbalance=running && break
done
# irqs_of CPU: the IRQs whose (effective) affinity holds CPU.
irq_affinity() {
	for _i in "$PROC"/irq/[0-9]*; do
		[ -d "$_i" ] || continue
		_a=$_i/effective_affinity_list
		[ -r "$_a" ] || _a=$_i/smp_affinity_list
		[ -r "$_a" ] && echo "${_i##*/} $(get "$_a")"
	done | awk -v cpus="$measured" '
	function has(list, c,    n, i, r, a) {
		n = split(list, r, ",")
		for (i = 1; i <= n; i++)
			if (split(r[i], a, "-") == 2) { if (c >= a[1] + 0 && c <= a[2] + 0) return 1 }
			else if (r[i] == c "") return 1
		return 0
	}
	{ irq[++n] = $1; aff[n] = $2 }
	END {
		nc = split(cpus, cl, " ")
		for (j = 1; j <= nc; j++) {
			o = ""
			for (i = 1; i <= n; i++) if (has(aff[i], cl[j])) o = o (o == "" ? "" : ",") irq[i]
			print "irqs.cpu" cl[j] "=" (o == "" ? "none" : o)
		}
	}'
}

{
	echo "format=ipistorm-run/2"
	echo "bench=$bench"
	echo "params=$*"
	echo "storm=$storm"
	echo "iterations=$n"
	echo "warmup=$warmup"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "hostname=$(get "$PROC/sys/kernel/hostname")"
	echo "kernel=$release"
	echo "kernel_version=$kversion"
	echo "kernel_describe=${describe:-unknown}"
	echo "config_hash=$config_hash"
	echo "preempt=$preempt"
	echo "hz=${hz:-unknown}"
	echo "no_hz=$no_hz"
	echo "nohz_full=$(get "$CPU/nohz_full")"
	echo "cmdline=$cmdline"
	echo "idle=$idle"
	echo "prepared=$prepare"
	echo "cpu_model=$(cpuinfo 'model name')"
	echo "microcode=$(cpuinfo microcode)"
	echo "bios=$(get "$SYS/class/dmi/id/bios_vendor") $(get "$SYS/class/dmi/id/bios_version") $(get "$SYS/class/dmi/id/bios_date")"
	echo "product=$(get "$SYS/class/dmi/id/sys_vendor") $(get "$SYS/class/dmi/id/product_name")"
	echo "memory_kb=$(sed -n 's/^MemTotal: *\([0-9]*\) kB$/\1/p' "$PROC/meminfo" 2>/dev/null | grep . || echo unknown)"
	echo "loadavg_before=$(cut -d ' ' -f 1-3 "$PROC/loadavg" 2>/dev/null || echo unknown)"
	echo "cpus_online=$(get "$CPU/online")"
	echo "sockets=$(count "$CPU"/cpu[0-9]*/topology/physical_package_id)"
	echo "cores=$(count "$CPU"/cpu[0-9]*/topology/core_cpus_list "$CPU"/cpu[0-9]*/topology/thread_siblings_list)"
	echo "threads=$(ndirs "$CPU"/cpu[0-9]*/topology)"
	echo "smt_control=$(get "$CPU/smt/control")"
	echo "smt_active=$(get "$CPU/smt/active")"
	echo "numa_nodes=$(ndirs "$SYS"/devices/system/node/node[0-9]*)"
	for d in "$SYS"/devices/system/node/node[0-9]*; do
		[ -d "$d" ] && echo "${d##*/}.cpulist=$(get "$d/cpulist")"
	done
	echo "llc=$(uniq_lines "$CPU"/cpu[0-9]*/cache/index3/shared_cpu_list)"
	echo "clocksource=$(get "$SYS/devices/system/clocksource/clocksource0/current_clocksource")"
	for v in "$CPU"/vulnerabilities/*; do
		[ -r "$v" ] && echo "vuln.${v##*/}=$(get "$v")"
	done
	echo "sched_features=$sched_features"
	echo "cpufreq_driver=$(get "$CPU/cpu0/cpufreq/scaling_driver")"
	echo "pstate_status=${pstate:-unknown}"
	epp=$(uniq_lines "$CPU"/cpu[0-9]*/cpufreq/energy_performance_preference)
	echo "epp=${epp:-unknown}"
	echo "governor=$(get "$CPU/cpu0/cpufreq/scaling_governor")"
	echo "governors=$(uniq_lines "$CPU"/cpu[0-9]*/cpufreq/scaling_governor)"
	echo "boost=$(get "$CPU/cpufreq/boost")"
	echo "boost_policies=${boost_policies:-unknown}"
	echo "no_turbo=$(get "$CPU/intel_pstate/no_turbo")"
	echo "cpuidle_driver=$(get "$CPU/cpuidle/current_driver")"
	echo "cpuidle_governor=$(get "$CPU/cpuidle/current_governor_ro")"
	for s in "$CPU"/cpu0/cpuidle/state*; do
		[ -d "$s" ] || continue
		echo "cpuidle.${s##*/}=$(get "$s/name") latency_us=$(get "$s/latency") disable=$(get "$s/disable")"
	done
	echo "measured_cpus=$measured"
	for c in $measured; do
		echo "cstates.cpu$c=$(cstates "$c")"
	done
	echo "irqbalance=$irqbalance"
	irq_affinity
	[ ! -s "$TMP/notes" ] || sed 's/^/warning=/' "$TMP/notes"
} >"$meta"

# Warnings: the state makes the results doubtful.
deep="" poll=0
for s in "$CPU"/cpu0/cpuidle/state*; do
	[ -d "$s" ] || continue
	name=$(get "$s/name")
	[ "$(get "$s/disable")" = 0 ] || continue
	case $name in
	POLL) poll=1 ;;
	C1 | C1_ACPI) ;;
	*) deep="$deep $name" ;;
	esac
done
[ -z "$deep" ] || note_warn "deep C-states enabled:$deep (run with -p)"
gov=$(uniq_lines "$CPU"/cpu[0-9]*/cpufreq/scaling_governor)
[ -z "$gov" ] || [ "$gov" = performance ] ||
	note_warn "cpufreq governor is $gov, not performance (run with -p)"
drv=$(get "$CPU/cpuidle/current_driver")
if [ "$idle" != poll ] && [ "$poll" = 0 ] && [ "$drv" != intel_idle ]; then
	note_warn "no idle=poll and no polling idle state: the target will not poll (cpuidle driver $drv)"
fi

# ---- the runs ---------------------------------------------------------------

load() {
	load_module "$moddir" "$@" || return 1
	loaded="$1 $loaded"
}
unload() {
	unload_module "$1" || return 1
	_l=""
	for _x in $loaded; do [ "$_x" = "$1" ] || _l="$_l$_x "; done
	loaded=$_l
}
# module_info M: its version and parameters, once, while it is loaded.
module_info() {
	grep -q "^module\\.$1\\." "$meta" && return 0
	record "module.$1.srcversion" "$(get "$SYS/module/$1/srcversion")"
	record "module.$1.version" "$(get "$SYS/module/$1/version")"
	for _p in "$SYS/module/$1"/parameters/*; do
		[ -r "$_p" ] && record "module.$1.param.${_p##*/}" "$(get "$_p")"
	done
	return 0
}
failed() {
	_it="iteration $i"
	[ "$i" -gt 0 ] || _it="warm-up $((i + warmup))"
	echo "run.sh: $_it: $*" >&2
	record date_end "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	record status "failed"
	record failure "$_it: $*"
	exit 1
}

# irq_delta BEFORE AFTER: the ipistorm-irq/1 lines of the measured CPUs:
# function call (CAL), rescheduling (RES), local timer (LOC) and TLB
# shootdown (TLB) interrupts between two copies of /proc/interrupts. Only
# online CPUs have a column; the header names them.
irq_delta() {
	echo "format=ipistorm-irq/1"
	B=$1 A=$2 awk -v cpus="$measured" '
	function load(f, t,    line, w, n, i, k) {
		while ((getline line < f) > 0) {
			n = split(line, w, " ")
			if (w[1] ~ /^CPU[0-9]+$/) { for (i = 1; i <= n; i++) col[f, i] = substr(w[i], 4) + 0; continue }
			k = w[1]; sub(/:$/, "", k)
			if (k !~ /^(CAL|RES|LOC|TLB)$/) continue
			for (i = 2; i <= n && w[i] ~ /^[0-9]+$/; i++) t[col[f, i - 1], k] = w[i]
		}
		close(f)
	}
	BEGIN {
		load(ENVIRON["B"], b); load(ENVIRON["A"], a)
		nc = split(cpus, cl, " "); split("CAL RES LOC TLB", ks, " ")
		for (j = 1; j <= nc; j++)
			for (k = 1; k <= 4; k++)
				if (((cl[j], ks[k]) in a) && ((cl[j], ks[k]) in b))
					print "cpu" cl[j] "." ks[k] "=" a[cl[j], ks[k]] - b[cl[j], ks[k]]
	}'
}

dbg=$SYS/kernel/debug
i=$((1 - warmup))
while [ "$i" -le "$n" ]; do
	if [ "$i" -le 0 ]; then
		f=$(printf '%s/warmup-%03d.txt' "$out" $((i + warmup)))
	else
		f=$(printf '%s/iter-%03d.txt' "$out" "$i")
	fi
	cat "$PROC/interrupts" >"$TMP/irq.before" 2>/dev/null || :
	if [ -n "$storm" ]; then
		load idle_reentry "$@" || failed "insmod idle_reentry $* failed (root? see dmesg)"
		module_info idle_reentry
		set -f
		# shellcheck disable=SC2086 # the storm is a list of parameters
		load ipistorm $storm || failed "insmod ipistorm $storm failed (root? see dmesg)"
		set +f
		module_info ipistorm
		unload ipistorm || failed "rmmod ipistorm failed"
		echo stop >"$dbg/idle_reentry/control" ||
			failed "cannot stop idle_reentry through $dbg/idle_reentry/control"
	else
		load "$bench" "$@" || failed "insmod $bench $* failed (root? see dmesg)"
		module_info "$bench"
	fi
	cat "$dbg/$bench/result" >"$f" 2>/dev/null ||
		failed "no $dbg/$bench/result (is debugfs mounted?)"
	unload "$bench" || failed "rmmod $bench failed"
	if cat "$PROC/interrupts" >"$TMP/irq.after" 2>/dev/null && [ -s "$TMP/irq.before" ]; then
		irq_delta "$TMP/irq.before" "$TMP/irq.after" >"$out/irq-${f##*/}"
	fi
	st=$(sed -n 's/^status=//p' "$f")
	[ "$st" = complete ] || failed "result status=${st:-missing}, see $f"
	echo "run.sh: $f: $(grep -E '^(runtime_ns|total\.total_mean_ns|total\.reentries|total\.kicks|total\.balanced)=' "$f" | join_lines ' ')" >&2
	i=$((i + 1))
done
record date_end "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
record status ok
echo "$out"
