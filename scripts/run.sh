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
#                governor, boost off; everything is restored on exit
#
# Writes DIR/iter-NNN.txt (the module's debugfs result, raw) and
# DIR/meta.txt (format ipistorm-run/1, see scripts/README-scripts.md).
# Exit status: 0 every run completed, 1 a run failed, 2 usage.
#
# For tests: IPISTORM_SYSROOT prefixes /sys and /proc, IPISTORM_INSMOD and
# IPISTORM_RMMOD replace insmod and rmmod.
set -eu

ROOT=${IPISTORM_SYSROOT:-}
SYS=$ROOT/sys
PROC=$ROOT/proc
CPU=$SYS/devices/system/cpu
INSMOD=${IPISTORM_INSMOD:-insmod}
RMMOD=${IPISTORM_RMMOD:-rmmod}

usage() {
	echo "usage: $0 [-n N] [-w N] [-o DIR] [-m MODDIR] [-g DESCRIBE] [-s STORM] [-p] ipistorm|idle_reentry|nohz_csd [PARAM=VALUE...]" >&2
	exit 2
}
die() { echo "run.sh: $*" >&2; exit 1; }
bad() { echo "run.sh: $*" >&2; usage; }
warn() { echo "run.sh: warning: $*" >&2; }

n=5 warmup=1 out="" moddir="$(dirname "$0")/.." describe="" storm="" prepare=0
while getopts n:w:o:m:g:s:ph opt; do
	case $opt in
	n) n=$OPTARG ;;
	w) warmup=$OPTARG ;;
	o) out=$OPTARG ;;
	m) moddir=$OPTARG ;;
	g) describe=$OPTARG ;;
	s) storm=$OPTARG ;;
	p) prepare=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || bad "no benchmark named"
bench=$1
shift
case $bench in
ipistorm | idle_reentry | nohz_csd) ;;
*) bad "unknown benchmark '$bench' (ipistorm, idle_reentry or nohz_csd)" ;;
esac
case $n in
'' | *[!0-9]*) bad "-n: '$n' is not a number of iterations" ;;
esac
{ [ "$n" -ge 1 ] && [ "$n" -le 999 ]; } || bad "-n: $n iterations, want 1 to 999"
case $warmup in
'' | *[!0-9]*) bad "-w: '$warmup' is not a number of iterations" ;;
esac
[ "$warmup" -le 99 ] || bad "-w: $warmup warm-up iterations, want 0 to 99"
for p in "$@"; do
	case $p in
	[a-z]*=*) ;;
	*) bad "parameter '$p' is not PARAM=VALUE" ;;
	esac
done
if [ -n "$storm" ] && [ "$bench" != idle_reentry ]; then
	bad "-s: a storm only goes with idle_reentry"
fi
for m in "$bench" ${storm:+ipistorm}; do
	[ -f "$moddir/$m/$m.ko" ] || bad "no $moddir/$m/$m.ko (build with make, or give -m)"
done

# get FILE: its first line, or "unknown".
get() {
	if [ -r "$1" ] && _g=$(head -n 1 "$1" 2>/dev/null) && [ -n "$_g" ]; then
		echo "$_g"
	else
		echo unknown
	fi
}

release=$(get "$PROC/sys/kernel/osrelease")
[ "$release" != unknown ] || release=$(uname -r)
if [ -z "$out" ]; then
	out="results/$bench-$release-$(date +%Y%m%d-%H%M%S)"
fi
if [ -e "$out" ]; then
	bad "$out exists: refusing to overwrite a result"
fi
mkdir -p "$(dirname "$out")"
mkdir "$out" || die "cannot create $out"
meta=$out/meta.txt

# ---- prepare mode: save, change, restore ----------------------------------

TMP=$(mktemp -d)
saved=$TMP/saved
: >"$saved"
loaded=""

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
trap cleanup EXIT
trap 'echo "run.sh: interrupted" >&2; echo "status=interrupted" >>"$meta"; exit 1' INT TERM

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
	set_sys "$CPU/cpufreq/boost" 0
	set_sys "$CPU/intel_pstate/no_turbo" 1
fi

# ---- the machine's state ----------------------------------------------------

kv() { echo "$1=$2" >>"$meta"; }
note_warn() {
	warn "$1"
	kv warning "$1"
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

idle=none
for w in $cmdline; do
	case $w in idle=*) idle=${w#idle=} ;; esac
done

{
	echo "format=ipistorm-run/1"
	echo "bench=$bench"
	echo "params=$*"
	echo "storm=$storm"
	echo "iterations=$n"
	echo "warmup=$warmup"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "kernel=$release"
	echo "kernel_describe=${describe:-unknown}"
	echo "cmdline=$cmdline"
	echo "idle=$idle"
	echo "prepared=$prepare"
	echo "cpu_model=$(cpuinfo 'model name')"
	echo "microcode=$(cpuinfo microcode)"
	echo "cpus_online=$(get "$CPU/online")"
	echo "sockets=$(count "$CPU"/cpu[0-9]*/topology/physical_package_id)"
	echo "cores=$(count "$CPU"/cpu[0-9]*/topology/core_cpus_list "$CPU"/cpu[0-9]*/topology/thread_siblings_list)"
	echo "threads=$(ndirs "$CPU"/cpu[0-9]*/topology)"
	echo "numa_nodes=$(ndirs "$SYS"/devices/system/node/node[0-9]*)"
	for d in "$SYS"/devices/system/node/node[0-9]*; do
		[ -d "$d" ] && echo "${d##*/}.cpulist=$(get "$d/cpulist")"
	done
	echo "llc=$(uniq_lines "$CPU"/cpu[0-9]*/cache/index3/shared_cpu_list)"
	echo "cpufreq_driver=$(get "$CPU/cpu0/cpufreq/scaling_driver")"
	echo "governor=$(get "$CPU/cpu0/cpufreq/scaling_governor")"
	echo "governors=$(uniq_lines "$CPU"/cpu[0-9]*/cpufreq/scaling_governor)"
	echo "boost=$(get "$CPU/cpufreq/boost")"
	echo "no_turbo=$(get "$CPU/intel_pstate/no_turbo")"
	echo "cpuidle_driver=$(get "$CPU/cpuidle/current_driver")"
	echo "cpuidle_governor=$(get "$CPU/cpuidle/current_governor_ro")"
	for s in "$CPU"/cpu0/cpuidle/state*; do
		[ -d "$s" ] || continue
		echo "cpuidle.${s##*/}=$(get "$s/name") latency_us=$(get "$s/latency") disable=$(get "$s/disable")"
	done
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

ko() { echo "$moddir/$1/$1.ko"; }
load() {
	_m=$1
	shift
	"$INSMOD" "$(ko "$_m")" "$@" || return 1
	loaded="$_m $loaded"
}
unload() {
	"$RMMOD" "$1" || return 1
	_l=""
	for _x in $loaded; do [ "$_x" = "$1" ] || _l="$_l$_x "; done
	loaded=$_l
}
# module_info M: its version and parameters, once, while it is loaded.
module_info() {
	grep -q "^module\\.$1\\." "$meta" && return 0
	kv "module.$1.srcversion" "$(get "$SYS/module/$1/srcversion")"
	kv "module.$1.version" "$(get "$SYS/module/$1/version")"
	for _p in "$SYS/module/$1"/parameters/*; do
		[ -r "$_p" ] && kv "module.$1.param.${_p##*/}" "$(get "$_p")"
	done
	return 0
}
failed() {
	_it="iteration $i"
	[ "$i" -gt 0 ] || _it="warm-up $((i + warmup))"
	echo "run.sh: $_it: $*" >&2
	kv status "failed"
	kv failure "$_it: $*"
	exit 1
}

dbg=$SYS/kernel/debug
i=$((1 - warmup))
while [ "$i" -le "$n" ]; do
	if [ "$i" -le 0 ]; then
		f=$(printf '%s/warmup-%03d.txt' "$out" $((i + warmup)))
	else
		f=$(printf '%s/iter-%03d.txt' "$out" "$i")
	fi
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
	st=$(sed -n 's/^status=//p' "$f")
	[ "$st" = complete ] || failed "result status=${st:-missing}, see $f"
	echo "run.sh: $f: $(grep -E '^(runtime_ns|total\.total_mean_ns|total\.reentries|total\.kicks|total\.balanced)=' "$f" | join_lines ' ')" >&2
	i=$((i + 1))
done
kv status ok
echo "$out"
