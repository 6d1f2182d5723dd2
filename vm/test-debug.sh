#!/bin/bash
# test-debug.sh [-n ROUNDS] [-c N] [PATTERN...]: the suite's tests on the
# debug kernel, 6.12-debug (vm/debug-kernel.sh: KASAN, lockdep,
# DEBUG_ATOMIC_SLEEP, kmemleak, DEBUG_OBJECTS, fail-nth), `make test-debug`.
# The modules are built against it, then it boots, ROUNDS times each
# (default 1):
#   functional  N vCPUs (default 4), idle CPUs halt: every test of the
#               runner (or those PATTERNs select): the stops and unloads
#               mid-run, CPU hotplug (*_offline_*), every CPU at once, and
#               *_alloc_failures, every allocation of each module's load in
#               each shape failed once (fail-nth), which run only here;
#               then kmemleak over the whole run, the runner's last result
#   poll        2 vCPUs, idle=poll: the tests the wirings give
#               test.sh's poll boot (testbed=poll), and trace_*
# Any KASAN, lockdep, DEBUG_OBJECTS or atomic-sleep report is a splat and
# fails its boot (vm/boot.sh). Outside CI (a kernel build does not fit in
# it, docs/testbed.md). Exit 0 when every boot passed, 1 when a test
# failed, 2 when a boot splatted or never reported.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG [-n ROUNDS] [-c N] [PATTERN...]"
K=6.12-debug
rounds=1 cpus=4
while getopts n:c:h opt; do
	case $opt in
	n) rounds=$OPTARG ;;
	c) cpus=$OPTARG ;;
	*) usage_opt "$opt" ;;
	esac
done
shift $((OPTIND - 1))
for v in "$rounds" "$cpus"; do
	case $v in '' | *[!0-9]* | 0) usage_error "-n and -c take a positive number, not '$v'" ;; esac
done
[ -f "$(kernel_dir "$K")/kernel.env" ] ||
	die "no $K: build it first with vm/debug-kernel.sh (about 40 minutes on 2 cores)"
t0=$(date +%s)
kernel_image 0 "$K"
# The debug kernel runs some five times slower than Debian's under TCG:
# the lockup and stall detectors get the big boot's thresholds, and the
# long storm a tenth of its calls.
slow=(-T 10800 -a watchdog_thresh=10 -a rcupdate.rcu_cpu_stall_timeout=20
	-a IPISTORM_LONG_NUMIPI=300000 -a "IPISTORM_SM_IDLE=$(sm_idle "$K")")
worst=0
for r in $(seq "$rounds"); do
	for boot in functional poll; do
		case $boot in
		functional) opts=(-c "$cpus") tests=("$@") ;;
		poll)
			opts=(-c 2 -p)
			read -r -d '' -a tests < <(bench_testbed "$TOP" poll; echo 'trace_*') || true
			;;
		esac
		[ "$boot" = functional ] || [ $# -eq 0 ] || continue
		log "$K/$boot, round $r"
		rc=0
		"$VM_DIR/boot.sh" "${opts[@]}" "${slow[@]}" -l "$BUILD/$K/console-$boot-$r.log" \
			"$K" -- "${tests[@]}" | tee "$BUILD/$K/$boot-$r.ktap" || rc=$?
		echo "# $K/$boot round $r: exit $rc (console $BUILD/$K/console-$boot-$r.log)"
		case $rc in 0 | 4) ;; 1) [ "$worst" = 2 ] || worst=1 ;; *) worst=2 ;; esac
	done
done
p=$(cat "$BUILD/$K"/*-*.ktap | grep '^ok ' | grep -vc '# SKIP' || true)
s=$(cat "$BUILD/$K"/*-*.ktap | grep -c '^ok .*# SKIP' || true)
f=$(cat "$BUILD/$K"/*-*.ktap | grep -c '^not ok ' || true)
echo "total: $p passed, $f failed, $s skipped in $(($(date +%s) - t0)) s"
exit "$worst"
