#!/bin/bash
# test.sh [KERNEL...]: the suite's tests. First the bats tests of the
# scripts, the kselftest wrapper and vm/bisect.sh (a fake measurement) on
# the host; then, for each kernel of
# the matrix (default: all), fetch it, build the modules, and boot it under
# QEMU in each configuration below, running the suite's runner inside;
# then, when 6.1 and 6.12 are both tested, the demo (vm/demo.sh), whose
# verdict must hold, the suite under MMTests (mmtests/vm/testbed.sh),
# whose compare-kernels.sh report must show the same, the suite as
# lkp-tests jobs (lkp/vm/testbed.sh), whose ncompare must too, and vm/bisect.sh's
# tests (vm/tests/bisect.sh); last, DKMS builds against the downloaded
# headers.
# Prints every step's TAP/KTAP and ends with "total: N passed, N failed,
# N skipped"; exits 1 when anything failed.
#
# Boot configurations: name | boot.sh options | runner arguments
#   functional  4 vCPUs, idle CPUs halt: every test
#   poll        2 vCPUs, idle=poll: callbacks reach a polling idle task
#   icount      2 vCPUs, idle=poll, instruction counting: nearly every
#               callback takes the polling path. No ftrace hooks here: under
#               -icount, registering and removing them repeatedly has hung
#               or reset a 6.12 guest. The guest is an Intel family 6
#               model 0x3a, whose TSC the kernel flags as constant, so
#               ipistorm times calls with the TSC here (vm/bench.sh).
# Every boot gets IPISTORM_SM_IDLE from the matrix: whether the kernel has
# SM_IDLE, which idle_reentry_fast_path asserts.
#   published   18 vCPUs on 2 sockets: the published command line as is
#   big         64 vCPUs on 2 sockets: every CPU storms, 32 cross-node pairs,
#               idle_reentry and nohz_csd on every CPU; one host thread
#               runs 64 vCPUs, so the kernel's own boot-time loops (freeing
#               init memory, the deferred memmap) last 64 times longer in
#               guest time: the lockup detectors get watchdog_thresh=10,
#               not 2, and the RCU stall detector 20 s, not 5;
#               each run's callbacks accounted and its log lines at most 20
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG [KERNEL...]"
only_help "$@"

BOOTS="
functional|-c 4|
poll|-c 2 -p|ipistorm_delivery_poll ipistorm_single_wait1 ipistorm_witness_agrees ipistorm_witness_delay idle_reentry_* nohz_csd_idle_poll_explains trace_*
icount|-c 2 -p -i -x vendor=GenuineIntel,family=6,model=58 -a IPISTORM_MIN_POLL_PCT=99 -a IPISTORM_EXACT_DELIVERY=1|ipistorm_delivery_poll ipistorm_single_wait* ipistorm_witness_agrees
published|-c 18 -s 2|ipistorm_published_exact
big|-c 64 -s 2 -m 2048 -a watchdog_thresh=10 -a rcupdate.rcu_cpu_stall_timeout=20|ipistorm_all_cpus ipistorm_cross_node_pairs ipistorm_pairs_256 idle_reentry_all_cpus nohz_csd_all_cpus
"

kernels=${*:-$KERNELS_DEFAULT}
pass=0 failed=0 skipped=0
t_start=$(date +%s)

# count FILE: add FILE's TAP results to the totals.
count() {
	p=$(grep -c '^ok .*[^P]$' "$1" || true)
	s=$(grep -c '^ok .*# [Ss][Kk][Ii][Pp]' "$1" || true)
	f=$(grep -c '^not ok ' "$1" || true)
	pass=$((pass + p)) skipped=$((skipped + s)) failed=$((failed + f))
}

echo "# === scripts and kselftest wrapper (bats)"
mkdir -p "$BUILD"
bats --tap "$TOP/scripts/tests" "$TOP/kselftest/tests" "$TOP/mmtests/tests" "$TOP/lkp/tests" "$TOP/vm/tests" >"$BUILD/bats.tap" 2>&1 || true
sed "s/^/    /" "$BUILD/bats.tap"
count "$BUILD/bats.tap"
grep -q '^1\.\.[1-9]' "$BUILD/bats.tap" || { echo "not ok bats did not run"; failed=$((failed + 1)); }

for k in $kernels; do
	echo "# === kernel $k"
	sm_idle=$(sm_idle "$k")
	if ! "$VM_DIR/build-modules.sh" "$k" >/dev/null ||
		! "$VM_DIR/mkinitramfs.sh" "$k" >/dev/null; then
		echo "not ok $k build"
		failed=$((failed + 1))
		continue
	fi
	while IFS='|' read -r boot opts args; do
		[ -n "$boot" ] || continue
		t0=$(date +%s)
		logf=$BUILD/$k/console-$boot.log
		rc=0
		# shellcheck disable=SC2086 # options and test names are words
		"$VM_DIR/boot.sh" $opts -a "IPISTORM_SM_IDLE=$sm_idle" \
			-l "$logf" "$k" -- $args \
			>"$BUILD/$k/$boot.ktap" 2>"$BUILD/$k/$boot.err" || rc=$?
		sed "s/^/    /" "$BUILD/$k/$boot.ktap"
		before=$((pass + failed + skipped))
		count "$BUILD/$k/$boot.ktap"
		if [ "$rc" -ge 2 ]; then
			# A splat or a guest that never reported: the boot fails
			# as a whole, whatever its tests said.
			sed "s/^/    # /" "$BUILD/$k/$boot.err"
			failed=$((failed + 1))
		fi
		echo "# $k/$boot: $((pass + failed + skipped - before)) results in $(($(date +%s) - t0)) s (exit $rc, console $logf)"
	done <<<"$BOOTS"
done

# The demo on the baseline and the SM_IDLE kernel: run.sh, compare.sh,
# idle_reentry's fast path and the verdict, which must hold.
case " $kernels " in
*" 6.1 "*) case " $kernels " in *" 6.12 "*) demo=1 ;; *) demo=0 ;; esac ;;
*) demo=0 ;;
esac
case $demo in
1)
	echo "# === demo: 6.1 against 6.12"
	rc=0
	KERNELS="6.1 6.12" "$VM_DIR/demo.sh" >"$BUILD/demo.txt" 2>&1 || rc=$?
	sed "s/^/    # /" "$BUILD/demo.txt"
	if [ "$rc" = 0 ]; then
		echo "ok 1 demo: SM_IDLE reproduced on 6.12 against 6.1"
		pass=$((pass + 1))
	else
		echo "not ok 1 demo: verdict not reached (exit $rc)"
		failed=$((failed + 1))
	fi
	echo "# === bisect.sh on a tree of 6.1 and 6.12 commits"
	"$VM_DIR/tests/bisect.sh" >"$BUILD/bisect.tap" 2>&1 || true
	sed "s/^/    /" "$BUILD/bisect.tap"
	count "$BUILD/bisect.tap"
	grep -q '^1\.\.[1-9]' "$BUILD/bisect.tap" || { echo "not ok bisect tests did not run"; failed=$((failed + 1)); }
	;;
esac

# The suite under MMTests on the same kernels, reported by MMTests' own
# compare-kernels.sh, whose tables must show the demo's result.
if [ "$demo" = 1 ]; then
	echo "# === MMTests: 6.1 against 6.12"
	rm -rf "$BUILD/mmtests-test"
	rc=0
	"$TOP/mmtests/vm/testbed.sh" -b -o "$BUILD/mmtests-test" 6.1 6.12 \
		>"$BUILD/mmtests.txt" 2>&1 || rc=$?
	sed "s/^/    # /" "$BUILD/mmtests.txt"
	case $rc in
	0) echo "ok 1 mmtests: compare-kernels.sh shows 6.12 faster and the fast path"; pass=$((pass + 1)) ;;
	4) echo "ok 1 mmtests # SKIP $(tail -n 1 "$BUILD/mmtests.txt")"; skipped=$((skipped + 1)) ;;
	*) echo "not ok 1 mmtests: exit $rc"; failed=$((failed + 1)) ;;
	esac
fi

# The suite as lkp-tests jobs on the same kernels, 3 runs each, compared
# by lkp's own ncompare, whose rows must show the same.
if [ "$demo" = 1 ]; then
	echo "# === lkp-tests: 6.1 against 6.12"
	rm -rf "$BUILD/lkp-test"
	rc=0
	"$TOP/lkp/vm/testbed.sh" -b -o "$BUILD/lkp-test" 6.1 6.12 \
		>"$BUILD/lkp.txt" 2>&1 || rc=$?
	sed "s/^/    # /" "$BUILD/lkp.txt"
	case $rc in
	0) echo "ok 1 lkp: ncompare shows 6.12 faster and the fast path"; pass=$((pass + 1)) ;;
	4) echo "ok 1 lkp # SKIP $(tail -n 1 "$BUILD/lkp.txt")"; skipped=$((skipped + 1)) ;;
	*) echo "not ok 1 lkp: exit $rc"; failed=$((failed + 1)) ;;
	esac
fi

# DKMS builds against the downloaded headers of the host-built kernels
# (7.3 needs trixie's compiler, which only its build root has).
if command -v dkms >/dev/null; then
	for k in $kernels; do
		[ "$(matrix_field "$k" 3)" = host ] || continue
		if "$VM_DIR/dkms-check.sh" "$k" >"$BUILD/dkms-$k.txt" 2>&1; then
			echo "ok 1 dkms build against $k"
			pass=$((pass + 1))
		else
			sed "s/^/    # /" "$BUILD/dkms-$k.txt"
			echo "not ok 1 dkms build against $k"
			failed=$((failed + 1))
		fi
	done
fi

echo "# test bed: $(($(date +%s) - t_start)) s"
echo "total: $pass passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
