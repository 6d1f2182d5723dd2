#!/bin/sh
# selftest.sh: the suite's test runner. Run it as root from the top of the
# tree after `make` (or from /suite inside the test bed's guest): it loads
# the modules, checks what they measure and prints KTAP.
#
#   selftest.sh [-l] [-k] [-b] [-a TEST | -f TEST] [PATTERN...]
#     -l  list the tests and exit
#     -b  run the benchmarks (functions bench_<name>) instead of the tests
#     -k  keep going after a kernel splat (default: fail the test that
#         caused it and run no later one: they want a fresh boot, which
#         the test bed gives them)
#     -a TEST  only the selected tests after TEST, -f TEST from TEST on:
#         the test bed's fresh boot after a splat in TEST, and its retry
#         of a test the host starved (a list of the tests left could
#         pass the kernel's 32 init arguments)
#     PATTERN  shell patterns on test names (default: every test)
#
# Tests live beside what they test, in <module>/tests/*.sh (and the
# scripts' own on a running kernel in scripts/tests/live/*.sh), as
# functions named test_<name>; those folders hold nothing else
# (docs/testbed.md#the-tests-folders). A test fails through fail(), skips through skip(), and
# also fails when the kernel log gains a WARNING, BUG, Oops, panic,
# lockup, stall, hung-task, sanitizer or lockdep report while it runs
# (SPLAT of lib.sh, the pattern the test bed scans the console with).
#
# Exit status (kselftest's): 0 all ran tests passed, 1 a test failed,
# 4 every test was skipped; 2 usage. The closing line is KTAP's
# "# Totals: pass:N fail:N xfail:0 xpass:0 skip:N error:0".
# The helpers below are called by the sourced test files.
# shellcheck disable=SC2317
set -eu

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG [-l] [-k] [-b] [-a TEST | -f TEST] [PATTERN...]"

list=0
keep=0
kind="test"
after="" from=""
while getopts lkba:f:h opt; do
	case $opt in
	l) list=1 ;;
	k) keep=1 ;;
	b) kind=bench ;;
	a) after=$OPTARG ;;
	f) from=$OPTARG ;;
	*) usage_opt "$opt" ;;
	esac
done
[ -z "$after" ] || [ -z "$from" ] || usage_error "-a and -f exclude each other"
shift $((OPTIND - 1))

SUITE=$(cd "$(dirname "$0")/.." && pwd)
MODDIR=${IPISTORM_MODDIR:-$SUITE}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# ---- helpers for the tests ------------------------------------------------

note() { echo "# $*"; }
fail() { echo "# FAIL: $*" >&2; exit 1; }
skip() { echo "# SKIP: $*"; exit 4; }

ncpus() { grep -c '^processor' /proc/cpuinfo; }
need_cpus() { [ "$(ncpus)" -ge "$1" ] || skip "needs $1 online CPUs, have $(ncpus)"; }
need_root() { [ "$(id -u)" = 0 ] || skip "needs root"; }
cmdline_has() { tr ' ' '\n' </proc/cmdline | grep -qx "$1"; }

loaded() { grep -q "^$1 " /proc/modules; }
ko() { echo "$MODDIR/$1/$1.ko"; }

# load MODULE PARAMS...: insmod; the module's result lands in $TMP/MODULE.
load() {
	_m=$1
	shift
	load_module "$MODDIR" "$_m" "$@" || fail "insmod $_m $* failed"
	cat "/sys/kernel/debug/$_m/result" >"$TMP/$_m" ||
		fail "no /sys/kernel/debug/$_m/result"
}

unload() { unload_module "$1" || fail "rmmod $1 failed"; }

# val MODULE KEY: one key of the last result of MODULE.
val() {
	_v=$(key "$2" "$TMP/$1")
	[ -n "$_v" ] || fail "$1: no $2 in the result"
	echo "$_v"
}

# vals MODULE PREFIX VAR=KEY...: set each VAR to val MODULE PREFIXKEY.
vals() {
	_vm=$1 _vp=$2
	shift 2
	for _va in "$@"; do
		eval "${_va%%=*}=\$(val \"\$_vm\" \"\${_vp}${_va#*=}\")"
	done
}

# has MODULE KEY: whether the last result of MODULE has KEY.
has() { grep -q "^$2=" "$TMP/$1"; }

# check EXPR MESSAGE: fail unless the awk expression EXPR is true.
check() {
	awk "BEGIN { exit !($1) }" </dev/null || fail "$2 ($1)"
}

# dmesg_mark writes a unique line into the kernel log and prints it;
# dmesg_since MARK prints the kernel log lines after it. (Counting lines
# would not do: once the log buffer is full, its line count stops growing.)
dmesg_mark() {
	_mark="selftest.sh: mark $(cat /proc/sys/kernel/random/uuid)"
	echo "$_mark" >/dev/kmsg
	echo "$_mark"
}
dmesg_since() { dmesg | sed -n "\|$1|,\$p" | tail -n +2; }
# module_log MARK MODULE: the kernel-log lines MODULE printed since MARK,
# without their "[time] MODULE: ", the kernel's lines on the first
# out-of-tree module of a boot ("... taints kernel") aside.
module_log() {
	dmesg_since "$1" | sed -n "s/^\[[^]]*\] $2: //p" | grep -v 'taints kernel\|tainting kernel' || :
}
# log_lines MARK MODULE: how many kernel-log lines MODULE printed since MARK.
log_lines() { module_log "$1" "$2" | grep -c . || :; }

# No thread named NAME/... may be left.
no_threads() {
	if cat /proc/[0-9]*/comm 2>/dev/null | grep -q "^$1/"; then
		fail "$1 threads left running"
	fi
}

# check_hist MODULE KEY N: the histogram KEY (e.g. sender0.lat) of the last
# result of MODULE holds N values, in its summary and in its buckets, with
# ordered quantiles.
check_hist() {
	check "$(val "$1" "$2_n") == $3" "$2 holds $(val "$1" "$2_n") values, not $3"
	[ "$3" -gt 0 ] || return 0
	_hn=$(awk -F= -v p="$2_hist_ns." 'index($1, p) == 1 { s += $2 } END { print s + 0 }' \
		"$TMP/$1")
	check "$_hn == $3" "$2 histogram holds $_hn values, not $3"
	check_quantiles "$1" "$2"
}

# cpuidle_driver: the cpuidle driver that owns the CPUs' idle, or none.
cpuidle_driver() {
	cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none
}

# cpuidle_usage CPU: for each idle state of CPU in order, how often
# cpuidle entered it or had it refused (usage + rejected), "u0 u1 ...":
# empty without a cpuidle driver.
cpuidle_usage() {
	for _d in /sys/devices/system/cpu/cpu"$1"/cpuidle/state*; do
		[ -r "$_d/usage" ] || continue
		_r=0
		[ ! -r "$_d/rejected" ] || _r=$(cat "$_d/rejected")
		echo $(($(cat "$_d/usage") + _r))
	done | tr '\n' ' '
}

# check_idle_witness MODULE KEY CPU BEFORE AFTER: cpuidle's entries into
# each idle state of CPU (cpuidle_usage BEFORE and AFTER a run) are a
# second witness of MODULE's split by idle state: no state holds more
# samples (KEY with STATE for the state's name as a key part, e.g.
# total.idle_STATE.wakeups; absent: none) than entries into it, as each
# sample found its CPU in a state entered since the previous one. A
# sample's state is the one requested, and acpi_idle may enter a
# shallower one (its C2 to C1 fallback, its bus-master demotion): there
# the states from the shallowest to each are compared, summed. A state
# whose name the module made sN (empty or repeated) is not checked.
check_idle_witness() {
	_cum=0
	[ "$(cpuidle_driver)" != acpi_idle ] || _cum=1
	_i=0 _ns=0 _es=0
	for _a in $4; do
		_b=$(echo "$5" | cut -d' ' -f$((_i + 1)))
		_k=$(tr -c 'A-Za-z0-9_\n' _ <"/sys/devices/system/cpu/cpu$3/cpuidle/state$_i/name")
		_kk=$(echo "$2" | sed "s/STATE/$_k/")
		_n=0
		! has "$1" "$_kk" || _n=$(val "$1" "$_kk")
		if [ "$_cum" = 1 ]; then
			_ns=$((_ns + _n)) _es=$((_es + _b - _a))
			check "$_ns <= $_es" "states 0 to $_i: $_ns samples found CPU $3 there, cpuidle counted $_es entries"
		else
			check "$_n <= $_b - $_a" "state$_i ($_k): $_n samples found CPU $3 there, cpuidle counted $((_b - _a)) entries"
		fi
		_i=$((_i + 1))
	done
}

# check_quantiles MODULE NAME: NAME's summary (NAME_min_ns to NAME_max_ns)
# in MODULE's last result never falls from one quantile to the next.
check_quantiles() {
	_prev=$(val "$1" "$2_min_ns")
	for _q in p50 p90 p99 p999 max; do
		_v=$(val "$1" "$2_${_q}_ns")
		check "$_v >= $_prev" "$2 $_q ($_v) below the previous quantile ($_prev)"
		_prev=$_v
	done
}

# interrupted MODULE THREADS PARAMS...: insmod MODULE PARAMS in the
# background (a run of a minute or more), signal it after 2 s; insmod must
# fail within 3 s, leaving the module unloaded and no THREADS/... kthread
# ("-": none to check). $mark is where the kernel log stood before.
interrupted() {
	_m=$1 _t=$2
	shift 2
	unload "$_m"
	mark=$(dmesg_mark)
	insmod "$(ko "$_m")" "$@" &
	_pid=$!
	sleep 2
	_t0=$(date +%s)
	# SIGTERM: background jobs of a script ignore SIGINT; Ctrl-C at a
	# prompt works the same way.
	kill -TERM "$_pid"
	_rc=0
	wait "$_pid" || _rc=$?
	_t1=$(date +%s)
	check "$_rc != 0" "insmod $_m succeeded after a signal"
	check "$_t1 - $_t0 <= 3" "$_m took $((_t1 - _t0)) s to stop"
	! loaded "$_m" || fail "$_m still loaded"
	[ "$_t" = - ] || no_threads "$_t"
}

# hostile MODULE MIN [THREADS] <<EOF: every "PARAM|params" line on stdin
# must make insmod fail with EINVAL and print an error naming PARAM, and
# leave the module unloaded and no THREADS/... kthread behind; at least MIN
# sets must run.
hostile() {
	_bad=0 _count=0
	while IFS='|' read -r _key _params; do
		[ -n "$_key" ] || continue
		_count=$((_count + 1))
		_mark=$(dmesg_mark)
		# shellcheck disable=SC2086 # params are split on purpose
		if _err=$(insmod "$(ko "$1")" $_params 2>&1); then
			note "accepted: $_params"
			rmmod "$1"
			_bad=$((_bad + 1))
			continue
		fi
		case $_err in
		*"nvalid argument"*) ;;
		*) note "$_params: not EINVAL: $_err"; _bad=$((_bad + 1)) ;;
		esac
		if ! dmesg_since "$_mark" | grep -q "$1: .*$_key"; then
			note "$_params: no error naming $_key"
			_bad=$((_bad + 1))
		fi
		if loaded "$1"; then
			note "$_params: module loaded"
			_bad=$((_bad + 1))
		fi
		[ -z "${3:-}" ] || no_threads "$3"
	done
	note "$_count hostile parameter sets"
	check "$_count >= $2" "too few parameter sets ran"
	check "$_bad == 0" "$_bad of $_count parameter sets misbehaved"
}

# ---- the helpers of every module's tests ---------------------------------
# (CPUs are picked from the online ones, so the tests run on a 4-CPU VM as
# on a server.)

# cpu N: the Nth online CPU (0-based).
cpu() {
	_online=$(cat /sys/devices/system/cpu/online)
	echo "$_online" | tr ',' '\n' | awk -F- -v n="$1" '
		{ hi = NF > 1 ? $2 : $1; for (c = $1; c <= hi; c++) l[k++] = c }
		END { if (n < k) print l[n]; else exit 1 }'
}

# storm PARAMS...: a run that must load, leaving its result in $TMP.
storm() {
	unload ipistorm
	load ipistorm "$@"
	unload ipistorm
}

# irq_col CPU: every count /proc/interrupts holds for CPU, summed (the
# lines of one count for all CPUs, ERR and MIS, are not per CPU): a
# superset of what a module's irqs_other counts there (common/irqs.h).
irq_col() {
	awk -v c="CPU$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i + 1; n = NF; next }
		NF > n && $k ~ /^[0-9]+$/ { s += $k } END { print s + 0 }' /proc/interrupts
}

# uptime_cs: the time since boot in centiseconds (busybox's date cannot
# print fractions of a second everywhere).
uptime_cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }

# storm_pairs PARAMS...: a storm with PARAMS from every even-numbered
# online CPU to the next, so that half the CPUs re-enter idle at once.
storm_pairs() {
	_pairs="" _i=0
	while _s=$(cpu "$_i") && _t=$(cpu $((_i + 1))); do
		_pairs="$_pairs${_pairs:+,}$_s:$_t"
		_i=$((_i + 2))
	done
	storm pairs="$_pairs" "$@"
}

# check_map MODULE: the module's call-site map (common/hook.c): every call
# site hit holds one slot, and none went without one. Adds the sites and
# slots to $map_sites and $map_slots.
check_map() {
	_si=$(val "$1" hook_sites) _sl=$(val "$1" hook_slots)
	check "$_sl == $_si" "$1: $_si call sites hold $_sl slots"
	check "$(val "$1" hook_unmapped) == 0" "$1: $(val "$1" hook_unmapped) hits found the map full"
	map_sites=$((${map_sites:-0} + _si)) map_slots=$((${map_slots:-0} + _sl))
}

# check_calib MODULE KEY: the module's two calibrations (common/calib.h),
# before the run and after it. Every CPU of the run is calibrated before
# it and, unless the run was interrupted, after it; each CPU's drifts are
# the ones its figures give (calib_KEY_ns against calib_end_KEY_ns: the
# cost's; and the cost's share of calib_plain_ns, the verdict's), a CPU
# above the limit is counted, and makes the result unproven. Every
# stretch with interrupts off is within the limit under instruction
# counting, where the guest's clock counts its own instructions;
# elsewhere the clock runs on while the host translates code met for the
# first time or runs another vCPU, and a stretch above it is noted.
check_calib() {
	_cf=$TMP/$1
	_cn=$(grep -c '^cpu[0-9]*\.calib_calls=' "$_cf")
	check "$(val "$1" calib_cpus) == $_cn" "$1: $(val "$1" calib_cpus) of $_cn CPUs calibrated"
	_lim=$(val "$1" calib_irqs_off_limit_ns)
	for _s in calib_irqs_off_max_ns calib_end_irqs_off_max_ns; do
		_v=$(val "$1" "$_s")
		if [ "${IPISTORM_ICOUNT:-0}" = 1 ]; then
			check "$_v <= $_lim" "$1: a stretch with interrupts off of $_v ns ($_s)"
		elif [ "$_v" -gt "$_lim" ]; then
			note "$1: $_s=$_v ns, above $_lim ns in real guest time (translation, other vCPUs)"
		fi
	done
	[ "$(val "$1" status)" != interrupted ] || return 0
	check "$(val "$1" calib_end_cpus) == $_cn" "$1: $(val "$1" calib_end_cpus) of $_cn CPUs calibrated after the run"
	# Each CPU's drifts from its figures, each rounded to 0.1 ns: within
	# what that rounding moves them. Prints "CPUs over, the largest
	# drift, CPUs whose drifts are not the ones reported".
	_cr=$(awk -F= -v k="$2" -v lim="$(val "$1" calib_drift_limit_pct)" '
		function abs(x) { return x < 0 ? -x : x }
		# whether drift d (%) is within rounding of cost c0 -> c1
		# as a share of plain p0 -> p1
		function fits(d, c0, c1, p0, p1,   lo, hi, a, b) {
			if (c0 < 0.1 || p0 < 0.1 || p1 < 0.1) return 1
			hi = ((c1 + .05) / (p1 - .05)) / ((c0 - .05) / (p0 + .05))
			lo = ((c1 - .05) / (p1 + .05)) / ((c0 + .05) / (p0 - .05))
			a = abs(lo - 1) * 100; b = abs(hi - 1) * 100
			if (lo <= 1 && hi >= 1) return d <= (a > b ? a : b) + 0.1
			return d >= (a < b ? a : b) - 0.1 && d <= (a > b ? a : b) + 0.1
		}
		{ split($1, p, "."); if (p[1] !~ /^cpu[0-9]+$/) next }
		p[2] == "calib_" k "_ns" { s[p[1]] = $2 }
		p[2] == "calib_end_" k "_ns" { e[p[1]] = $2 }
		p[2] == "calib_plain_ns" { ps[p[1]] = $2 }
		p[2] == "calib_end_plain_ns" { pe[p[1]] = $2 }
		p[2] == "calib_drift_pct" { d[p[1]] = $2 }
		p[2] == "calib_cost_drift_pct" { dc[p[1]] = $2 }
		p[2] == "calib_calls" { cpus[p[1]] = 1 }
		END {
			# a CPU without a calibration after the run has no drift,
			# and is over
			for (c in cpus) if (!(c in d)) over++
			for (c in d) {
				if (!fits(d[c], s[c], e[c], ps[c], pe[c]) ||
				    !fits(dc[c], s[c], e[c], 1e9, 1e9)) bad++
				if (d[c] + 0 > lim + 0) over++
				if (d[c] + 0 > max + 0) max = d[c]
			}
			printf "%d %s %d\n", over, max == "" ? "0.0" : max, bad
		}' "$_cf")
	read -r _co _cm _cb <<-EOF
	$_cr
	EOF
	check "$_cb == 0" "$1: $_cb CPUs' calib_drift_pct or calib_cost_drift_pct is not their figures' drift"
	check "$_co == $(val "$1" calib_drift_over)" "$1: $_co CPUs drifted over the limit, calib_drift_over=$(val "$1" calib_drift_over)"
	check "$_cm == $(val "$1" calib_drift_max_pct)" "$1: the largest drift is $_cm %, calib_drift_max_pct=$(val "$1" calib_drift_max_pct)"
	[ "$_co" = 0 ] || [ "$(val "$1" status)" = unproven ] ||
		fail "$1: $_co CPUs drifted over the limit, and the result is $(val "$1" status)"
}

# drift_excused MODULE [WHY]: whether the module's result is unproven by
# its calibration's drift alone (no hook's proof is unproven or missing):
# what a calibration after the run beside a storm that still runs may
# read, or WHY. Noted.
drift_excused() {
	[ "$(val "$1" status)" = unproven ] && [ "$(val "$1" calib_drift_over)" -gt 0 ] &&
		! grep -q '^proof\..*=\(unproven\|missing\)$' "$TMP/$1" || return 1
	note "$1: unproven by the calibration's drift alone, $(val "$1" calib_drift_max_pct) %: ${2:-the storm still ran when it was calibrated again}"
}

# stop_by MODULE HOW: stop MODULE's run through HOW: param (1 to its stop
# parameter), debugfs ("stop" to its control file) or rmmod.
stop_by() {
	case $2 in
	param) echo 1 >"/sys/module/$1/parameters/stop" ;;
	debugfs) echo stop >"/sys/kernel/debug/$1/control" ;;
	rmmod) rmmod "$1" ;;
	esac || fail "stop through $2 failed"
}

# stop_storm_once MODULE HOW PARAMS...: load MODULE with PARAMS (measuring
# until stopped), start a 60 s storm from CPU 0 to CPU 1 and stop MODULE
# 1 s into it through HOW: param (its stop parameter), debugfs (its control
# file) or rmmod. Sets $stop_cs to how long the stop took (centiseconds)
# and $stop_ran to 1 if the storm still ran when it returned. A guard ends
# the storm 4 s in, so that a stop that waits for the storm fails the test
# rather than hanging it for a minute.
stop_storm_once() {
	_sm=$1 _how=$2
	shift 2
	unload "$_sm"
	unload ipistorm
	insmod "$(ko "$_sm")" "$@" || fail "insmod $_sm $* failed"
	insmod "$(ko ipistorm)" timeout=60 pairs="$(cpu 0):$(cpu 1)" &
	_spid=$!
	# From the storm's start, which a loaded host can delay.
	_i=0
	until loaded ipistorm; do
		_i=$((_i + 1))
		[ "$_i" -le 100 ] || fail "the storm did not start"
		usleep 100000
	done
	rm -f "$TMP/guard"
	(sleep 4 && : >"$TMP/guard" && kill -TERM "$_spid") 2>/dev/null &
	_gpid=$!
	sleep 1
	loaded ipistorm || fail "the storm is not running"
	_t0=$(uptime_cs)
	stop_by "$_sm" "$_how"
	stop_cs=$(($(uptime_cs) - _t0))
	kill "$_gpid" 2>/dev/null || true
	stop_ran=1
	[ ! -e "$TMP/guard" ] || stop_ran=0
	kill -TERM "$_spid" 2>/dev/null || true
	wait "$_spid" || true
	unload "$_sm"
	unload ipistorm
}

# stop_mid_storm MODULE HOW PARAMS...: stop_storm_once must return within
# 1 s, the storm still running. Under emulation on a loaded host one grace
# period can take twice its time: the better of two attempts counts (a
# stop that waits for the storm takes 3 s on each).
stop_mid_storm() {
	_n=0 _best=
	while [ "$_n" -lt 2 ]; do
		stop_storm_once "$@"
		note "$1: stop through $2 1 s into a 60 s storm: ${stop_cs}0 ms"
		check "$stop_ran == 1" "the storm had ended (the guard ended it 4 s in) when the stop returned"
		[ -n "$_best" ] && [ "$_best" -le "$stop_cs" ] || _best=$stop_cs
		[ "$_best" -ge 100 ] || break
		_n=$((_n + 1))
	done
	check "$_best < 100" "stop through $2 took ${_best}0 ms"
}

# stop_within MODULE PARAMS_FN CHECK_FN: MODULE's run until stopped
# (insmod with the words "PARAMS_FN HOW" prints) ends within 1 s of a stop
# 1 s in through HOW: debugfs ("stop" to its control file), param (1 to
# its stop parameter) and rmmod, the better of two attempts each, as a
# loaded host may delay one. A stopped run's result, in $TMP/MODULE,
# passes CHECK_FN and sent something (total.sent); no thread is left.
stop_within() {
	for _how in debugfs param rmmod; do
		_best=1000
		for _ in 1 2; do
			unload "$1"
			# shellcheck disable=SC2046 # the parameters' words
			insmod "$(ko "$1")" $("$2" "$_how") || fail "insmod $1 failed"
			sleep 1
			_t0=$(uptime_cs)
			stop_by "$1" "$_how"
			_cs=$(($(uptime_cs) - _t0))
			if [ "$_how" != rmmod ]; then
				cat "/sys/kernel/debug/$1/result" >"$TMP/$1" ||
					fail "no result after stop"
				unload "$1"
				"$3"
				check "$(val "$1" total.sent) > 0" "nothing sent in 1 s"
			fi
			no_threads "$1"
			[ "$_cs" -ge "$_best" ] || _best=$_cs
			[ "$_best" -ge 100 ] || break
		done
		note "stop through $_how 1 s in: ${_best}0 ms"
		check "$_best < 100" "stop through $_how took ${_best}0 ms"
	done
}

# median3 A B C: the middle one.
median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

# Kernel memory leaks (kmemleak, on a debug kernel: vm/debug-kernel.sh).
# leaks: after a scan, how many objects kmemleak holds unreferenced and
# not cleared (empty without kmemleak). An object is reported once it is
# 5 s old: wait that long after the code under test allocated.
KMEMLEAK=/sys/kernel/debug/kmemleak
leaks() {
	[ -w "$KMEMLEAK" ] || return 0
	echo scan >"$KMEMLEAK" 2>/dev/null || return 0
	grep -c '^unreferenced object' "$KMEMLEAK" || true
}

# result_keys FILE: the keys of a result, histogram buckets aside, sorted.
result_keys() { sed -n '/_hist_/d; s/=.*//p' "$1" | sort -u; }
# missing_keys RESULT KEYS: the keys of the file KEYS that RESULT lacks,
# but a histogram's summary (min, mean, quantiles, max), which a histogram
# without values leaves out (ips_hist_emit_summary()), the split by idle
# state (a key part idle_STATE), which has the states that held a sample
# in that run, and a hook's symbol (symbol.NAME), which only a hook that
# fired in that run has (ips_hooks_emit_proofs()): a lost histogram shows
# by its count (NAME_n), a lost block by its other keys, a lost hook by
# its proof.
missing_keys() {
	awk -F= 'NR == FNR { v[$1] = $2; next }
		!($1 in v) && $1 !~ /_(min|mean|max|p[0-9]+)_ns$/ &&
		$1 !~ /\.idle_[A-Za-z0-9_]+\./ && $1 !~ /^symbol\./ { print $1 }' "$1" "$2"
}

# alloc_failures_each MODULE SHAPE...: alloc_failures MODULE with each
# SHAPE's parameters (words of one argument); af_each, the points of each.
alloc_failures_each() {
	_ae_m=$1
	shift
	af_each=""
	for _ae_s in "$@"; do
		# shellcheck disable=SC2086 # the shape's parameters are words
		alloc_failures "$_ae_m" $_ae_s
		af_each="$af_each $af_points"
	done
}

# hooks_state: a checksum of the kernel's ftrace hooks, kprobes and
# cpuidle driver.
hooks_state() {
	cat /sys/kernel/tracing/enabled_functions /sys/kernel/debug/kprobes/list \
		/sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null | sort | md5sum
}

# alloc_failures MODULE PARAMS...: the load of MODULE with PARAMS, the Nth
# fault-injection point it reaches failed (slab and page allocations of
# every order and gfp; vm/fail-nth.c, /proc/thread-self/fail-nth), for
# N = 1, 2, ... until a load reaches no Nth point. The points are the
# allocations with module code on their stack (above the kernel's image:
# the module's own, and the kernel's on its behalf), not the loader's
# (some 430 for ipistorm.ko on 6.12, each a second; IPISTORM_FAIL_LOADER=1
# counts them too). A refused load must give an errno and leave nothing
# behind: no module, debugfs directory, thread, ftrace hook, kprobe or
# cpuidle driver, and at most one log line of the module beside its start
# line (refused after its run, for the result's memory: the run's lines,
# then the one that says its result is lost). A load the failure
# did not stop is unloaded; a result it published that reads
# status=complete must hold every key of the result of a load with
# nothing failed (a histogram's buckets and summary aside). No object
# leaks (kmemleak).
# Then a load with nothing failed must work. Sets af_points (the points
# reached), af_refused, af_absorbed.
alloc_failures() {
	_af_m=$1
	shift
	command -v fail-nth >/dev/null || skip "no fail-nth (vm/fail-nth.c, the test bed's aid)"
	[ -w /proc/self/fail-nth ] || skip "no fault injection in this kernel (vm/debug-kernel.sh builds one)"
	_af_d=/sys/kernel/debug
	for _af_k in failslab fail_page_alloc; do
		[ -d "$_af_d/$_af_k" ] || skip "no $_af_d/$_af_k"
		echo N >"$_af_d/$_af_k/ignore-gfp-wait"
		# one line per injected failure, each one (a failure's dump of
		# the kernel's allocator is then excused by the splat check)
		echo 1 >"$_af_d/$_af_k/verbose"
		echo 0 >"$_af_d/$_af_k/verbose_ratelimit_interval_ms"
	done
	echo N >"$_af_d/fail_page_alloc/ignore-gfp-highmem"
	echo 0 >"$_af_d/fail_page_alloc/min-order"
	# hexadecimal: busybox's arithmetic is signed
	_af_from=0 _af_to=0xffffffffffffffff
	if [ "${IPISTORM_FAIL_LOADER:-0}" != 1 ]; then
		_af_end=$(sed -n 's/^\([0-9a-f]*\) . _end$/\1/p' /proc/kallsyms)
		case $_af_end in
		'' | 0000000000000000) skip "no address of _end in /proc/kallsyms (kptr_restrict)" ;;
		esac
		_af_from=0x$_af_end
	fi
	for _af_k in failslab fail_page_alloc; do
		[ -e "$_af_d/$_af_k/require-start" ] ||
			skip "no stack trace filter (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER)"
		echo "$_af_from" >"$_af_d/$_af_k/require-start"
		echo "$_af_to" >"$_af_d/$_af_k/require-end"
	done
	_af_ko=$(ko "$_af_m")
	[ -f "$_af_ko" ] || _af_ko=$(find "$MODDIR" -name "$_af_m.ko" | head -n 1)
	[ -f "$_af_ko" ] || fail "no $_af_m.ko under $MODDIR"
	_af_before=$(hooks_state) _af_leaks=$(leaks)
	# a call that failed before this one (fail ends its test) left its
	# results: not this load's to check
	rm -f "$TMP"/af-res-*
	af_points=0 af_refused=0 af_absorbed=0
	_af_n=1
	while :; do
		[ "$_af_n" -le 10000 ] || fail "$_af_m $*: still failing at point $_af_n"
		_af_mark=$(dmesg_mark)
		_af_r=$(fail-nth "$_af_n" "$_af_ko" "$@") || fail "fail-nth: $_af_r"
		case $_af_r in
		"loaded=1 errno=0 injected=0")
			unload "$_af_m"
			break
			;;
		"loaded=1 errno=0 injected=1")
			af_absorbed=$((af_absorbed + 1))
			if grep -qx 'status=complete' "$_af_d/$_af_m/result" 2>/dev/null; then
				cp "$_af_d/$_af_m/result" "$TMP/af-res-$_af_n"
			fi
			unload "$_af_m"
			;;
		"loaded=0 errno="*" injected=1")
			af_refused=$((af_refused + 1))
			_af_at="$_af_m $*, point $_af_n failed (${_af_r#* })"
			! loaded "$_af_m" || fail "$_af_at: the module is in"
			[ ! -e "$_af_d/$_af_m" ] || fail "$_af_at: $_af_d/$_af_m left"
			no_threads "$_af_m"
			[ "$(hooks_state)" = "$_af_before" ] ||
				fail "$_af_at: a hook, kprobe or cpuidle driver left"
			module_log "$_af_mark" "$_af_m" >"$TMP/af-log"
			# the start line aside, one line; refused after its run
			# (the result's memory, sized by the run), the run's lines
			# and the one that says its result is lost
			if ! grep -q "^no memory for the result .* result is lost" "$TMP/af-log"; then
				_af_l=$(grep -vc "^start " "$TMP/af-log" || :)
				[ "$_af_l" -le 1 ] || fail "$_af_at: $_af_l log lines"
			fi
			;;
		*) fail "$_af_m $*, point $_af_n: $_af_r" ;;
		esac
		_af_n=$((_af_n + 1))
	done
	af_points=$((_af_n - 1))
	insmod "$_af_ko" "$@" || fail "$_af_m $*: no load after the failed ones"
	result_keys "$_af_d/$_af_m/result" >"$TMP/af-keys" 2>/dev/null || :
	unload "$_af_m"
	for _af_k in "$TMP"/af-res-*; do
		[ -f "$_af_k" ] || continue
		_af_l=$(missing_keys "$_af_k" "$TMP/af-keys" | head -n 5 | tr '\n' ' ')
		rm -f "$_af_k"
		[ -z "$_af_l" ] ||
			fail "$_af_m $*, point ${_af_k##*-} failed: a result read complete without $_af_l"
	done
	if [ -n "$_af_leaks" ]; then
		sleep 6
		_af_l=$(leaks)
		if [ "$_af_l" -gt "$_af_leaks" ]; then
			sed 's/^/# /' "$KMEMLEAK" | head -n 40
			fail "$_af_m $*: $((_af_l - _af_leaks)) objects leaked (kmemleak)"
		fi
	fi
	note "$_af_m $*: $af_points injection points; $af_refused loads refused, $af_absorbed went on"
}

# ---- the runner ------------------------------------------------------------

tests=""
for f in "$SUITE"/*/tests/*.sh "$SUITE"/*/tests/live/*.sh; do
	[ -f "$f" ] || continue
	# shellcheck disable=SC1090 # test files are found at run time
	. "$f"
	tests="$tests $(sed -n "s/^${kind}_\\([A-Za-z0-9_]*\\)().*/\\1/p" "$f")"
done

selected=""
for n in $tests; do
	if [ $# -eq 0 ]; then
		selected="$selected $n"
		continue
	fi
	for p in "$@"; do
		# shellcheck disable=SC2254 # the patterns are meant to match
		case $n in $p) selected="$selected $n"; break ;; esac
	done
done
# -a, -f: the selected tests after TEST, or from it on; the patterns that
# select no test were reported by the boot that ran TEST.
if [ -n "$after$from" ]; then
	_skip=1 _rest=""
	for n in $selected; do
		[ "$n" != "$from" ] || _skip=0
		[ "$_skip" = 1 ] || _rest="$_rest $n"
		[ "$n" != "$after" ] || _skip=0
	done
	case " $selected " in
	*" $after$from "*) ;;
	*) usage_error "-a/-f: $after$from is not among the selected tests" ;;
	esac
	selected=$_rest
	set --
fi
# The patterns that select no test: a test asked for that does not run
# fails, or a misspelt name in a boot's list would pass as "1..0".
unmatched=""
for p in "$@"; do
	_hit=0
	for n in $tests; do
		# shellcheck disable=SC2254 # the patterns are meant to match
		case $n in $p) _hit=1; break ;; esac
	done
	[ "$_hit" = 1 ] || unmatched="$unmatched $p"
done

if [ "$list" = 1 ]; then
	for n in $selected; do echo "$n"; done
	set -f
	for p in $unmatched; do echo "selftest.sh: no test is named $p" >&2; done
	[ -z "$unmatched" ] || exit 1
	exit 0
fi

# On a kernel with kmemleak (a debug kernel), the objects leaked while the
# tests ran are one more result, the last: the boot's own are cleared first.
leakcheck=0
if [ "$kind" = test ] && [ -n "$(leaks)" ]; then
	echo clear >"$KMEMLEAK"
	leakcheck=1
fi
total=$(($(echo "$selected" | wc -w) + $(echo "$unmatched" | wc -w) + leakcheck))
echo "KTAP version 1"
echo "1..$total"
echo "# kernel $(uname -r), $(ncpus) CPUs, cmdline: $(cat /proc/cmdline)"

i=0 pass=0 failed=0 skipped=0 splatted=0 left=""
set -f
for p in $unmatched; do
	i=$((i + 1))
	echo "# no test is named $p"
	echo "not ok $i $p"
	failed=$((failed + 1))
done
set +f
for n in $selected; do
	if [ "$splatted" = 1 ]; then
		left="$left $n"
		continue
	fi
	i=$((i + 1))
	mark=$(dmesg_mark)
	start=$(date +%s)
	set +e
	(set -e; "${kind}_$n") >"$TMP/out" 2>&1
	rc=$?
	set -e
	sed 's/^\([^#]\)/# \1/' "$TMP/out"
	# shellcheck disable=SC2119 # no grep option
	if dmesg_since "$mark" | splat_lines >"$TMP/splat"; then
		sed 's/^/# kernel: /' "$TMP/splat"
		rc=1
		[ "$keep" = 1 ] || splatted=1
	fi
	echo "# $n: $(($(date +%s) - start)) s"
	case $rc in
	0) echo "ok $i $n"; pass=$((pass + 1)) ;;
	4) echo "ok $i $n # SKIP"; skipped=$((skipped + 1)) ;;
	*) echo "not ok $i $n"; failed=$((failed + 1)) ;;
	esac
done

if [ "$leakcheck" = 1 ] && [ "$splatted" = 0 ]; then
	i=$((i + 1))
	sleep 6
	if [ "$(leaks)" = 0 ]; then
		echo "ok $i kmemleak"
		pass=$((pass + 1))
	else
		sed 's/^/# /' "$KMEMLEAK" | head -n 60
		echo "not ok $i kmemleak"
		failed=$((failed + 1))
	fi
fi
[ "$splatted" = 0 ] || echo "# kernel splat in the test above; not run, for a fresh boot:$left"
echo "# Totals: pass:$pass fail:$failed xfail:0 xpass:0 skip:$skipped error:0"
[ "$failed" -eq 0 ] || exit 1
[ "$pass" -gt 0 ] || [ "$total" -eq 0 ] || exit 4
exit 0
