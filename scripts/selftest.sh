#!/bin/sh
# selftest.sh: the suite's test runner. Run it as root from the top of the
# tree after `make` (or from /suite inside the test bed's guest): it loads
# the modules, checks what they measure and prints KTAP.
#
#   selftest.sh [-l] [-k] [-b] [PATTERN...]
#     -l  list the tests and exit
#     -b  run the benchmarks (functions bench_<name>) instead of the tests
#     -k  keep going after a kernel splat (default: fail the test that
#         caused it and run no later one: they want a fresh boot, which
#         the test bed gives them)
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
USAGE="$PROG [-l] [-k] [-b] [PATTERN...]"

list=0
keep=0
kind="test"
while getopts lkbh opt; do
	case $opt in
	l) list=1 ;;
	k) keep=1 ;;
	b) kind=bench ;;
	*) usage_opt "$opt" ;;
	esac
done
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
# log_lines MARK MODULE: how many kernel-log lines MODULE printed since MARK.
log_lines() { dmesg_since "$1" | grep -c "] $2: " || true; }

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
	case $_how in
	param) echo 1 >"/sys/module/$_sm/parameters/stop" ;;
	debugfs) echo stop >"/sys/kernel/debug/$_sm/control" ;;
	rmmod) rmmod "$_sm" ;;
	esac || fail "stop through $_how failed"
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

# median3 A B C: the middle one.
median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

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

total=$(($(echo "$selected" | wc -w) + $(echo "$unmatched" | wc -w)))
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
	if dmesg_since "$mark" | grep -E "$SPLAT" | grep -v -F "$SPLAT_BENIGN" >"$TMP/splat"; then
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

[ "$splatted" = 0 ] || echo "# kernel splat in the test above; not run, for a fresh boot:$left"
echo "# Totals: pass:$pass fail:$failed xfail:0 xpass:0 skip:$skipped error:0"
[ "$failed" -eq 0 ] || exit 1
[ "$pass" -gt 0 ] || [ "$total" -eq 0 ] || exit 4
exit 0
