#!/bin/bash
# test.sh [KERNEL...]: the suite's tests. First the scripts' bats tests on
# the host; then, for each kernel of the matrix (default: all), fetch it,
# build the modules, and boot it under QEMU in each configuration below,
# running the suite's runner inside; last, when 6.1 and 6.12 are both
# tested, scripts/run.sh in each (instruction counting, idle=poll) and
# scripts/compare.sh on the two result directories, which must find 6.12
# (SM_IDLE) faster. Prints every step's TAP/KTAP and ends with
# "total: N passed, N failed, N skipped"; exits 1 when anything failed.
#
# Boot configurations: name | boot.sh options | runner arguments
#   functional  4 vCPUs, idle CPUs halt: every test
#   poll        2 vCPUs, idle=poll: callbacks reach a polling idle task
#   icount      2 vCPUs, idle=poll, instruction counting: nearly every
#               callback takes the polling path. No ftrace hooks here: under
#               -icount, registering and removing them repeatedly has hung
#               or reset a 6.12 guest.
# Every boot gets IPISTORM_SM_IDLE from the matrix: whether the kernel has
# SM_IDLE, which idle_reentry_fast_path asserts.
#   published   18 vCPUs on 2 sockets: the published command line as is
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

BOOTS="
functional|-c 4|
poll|-c 2 -p|ipistorm_delivery_poll ipistorm_single_wait1 idle_reentry_* nohz_csd_idle_poll_explains
icount|-c 2 -p -i -a IPISTORM_MIN_POLL_PCT=99|ipistorm_delivery_poll ipistorm_single_wait*
published|-c 18 -s 2|ipistorm_published_exact
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

echo "# === scripts (bats)"
mkdir -p "$BUILD"
bats --tap "$TOP/scripts/tests" >"$BUILD/bats.tap" 2>&1 || true
sed "s/^/    /" "$BUILD/bats.tap"
count "$BUILD/bats.tap"
grep -q '^1\.\.[1-9]' "$BUILD/bats.tap" || { echo "not ok bats did not run"; failed=$((failed + 1)); }

for k in $kernels; do
	echo "# === kernel $k"
	sm_idle=$(matrix_field "$k" 4)
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

# run.sh on the baseline and the SM_IDLE kernel, compare.sh on the two.
case " $kernels " in
*" 6.1 "*" 6.12 "*)
	echo "# === run.sh on 6.1 and 6.12, compare.sh"
	res=$BUILD/compare
	rm -rf "$res"
	ok=1
	for k in 6.1 6.12; do
		"$VM_DIR/run-in-vm.sh" "$k" "$res/$k" -n 5 ipistorm \
			numipi=20000 single=1 wait=1 cpulist=0 offset=1 \
			>/dev/null 2>"$res.$k.err" || { sed "s/^/    # /" "$res.$k.err"; ok=0; }
	done
	rc=0
	[ "$ok" = 1 ] && "$TOP/scripts/compare.sh" "$res/6.1" "$res/6.12" >"$res.txt" || rc=$?
	sed "s/^/    # /" "$res.txt" 2>/dev/null || true
	norm=$(awk '$1 ~ /^6\.12\./ && $3 ~ /^\[/ { print $2; exit }' "$res.txt" 2>/dev/null || true)
	if [ "$ok" = 1 ] && [ "$rc" = 0 ] && awk -v n="${norm:-9}" 'BEGIN { exit !(n < 1) }'; then
		echo "ok 1 compare: 6.12 runs the storm in $norm of 6.1's time"
		pass=$((pass + 1))
	else
		echo "not ok 1 compare: 6.12 not faster (normalized ${norm:-?}, compare exit $rc)"
		failed=$((failed + 1))
	fi
	;;
esac

echo "# test bed: $(($(date +%s) - t_start)) s"
echo "total: $pass passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
