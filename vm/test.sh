#!/bin/bash
# test.sh [KERNEL...]: the suite's tests on the test bed. For each kernel of
# the matrix (default: all), fetch it, build the modules, and boot it under
# QEMU in each configuration below, running the suite's runner inside.
# Prints every boot's KTAP and ends with "total: N passed, N failed,
# N skipped"; exits 1 when anything failed.
#
# Boot configurations: name | boot.sh options | runner arguments
#   functional  4 vCPUs, idle CPUs halt: every test
#   poll        2 vCPUs, idle=poll: callbacks reach a polling idle task
#   icount      2 vCPUs, idle=poll, instruction counting: nearly every
#               callback takes the polling path; re-entry timing
# Every boot gets IPISTORM_SM_IDLE from the matrix: whether the kernel has
# SM_IDLE, which idle_reentry_fast_path asserts.
#   published   18 vCPUs on 2 sockets: the published command line as is
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

BOOTS="
functional|-c 4|
poll|-c 2 -p|ipistorm_delivery_poll ipistorm_single_wait1 idle_reentry_* nohz_csd_idle_poll_explains
icount|-c 2 -p -i -a IPISTORM_MIN_POLL_PCT=99|ipistorm_delivery_poll ipistorm_single_wait* idle_reentry_fast_path
published|-c 18 -s 2|ipistorm_published_exact
"

kernels=${*:-$KERNELS_DEFAULT}
pass=0 failed=0 skipped=0
t_start=$(date +%s)

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
		p=$(grep -c '^ok .*[^P]$' "$BUILD/$k/$boot.ktap" || true)
		s=$(grep -c '^ok .*# SKIP$' "$BUILD/$k/$boot.ktap" || true)
		f=$(grep -c '^not ok ' "$BUILD/$k/$boot.ktap" || true)
		if [ "$rc" -ge 2 ]; then
			# A splat or a guest that never reported: the boot fails
			# as a whole, whatever its tests said.
			sed "s/^/    # /" "$BUILD/$k/$boot.err"
			f=$((f + 1))
		fi
		pass=$((pass + p)) skipped=$((skipped + s)) failed=$((failed + f))
		echo "# $k/$boot: $p passed, $f failed, $s skipped in $(($(date +%s) - t0)) s (exit $rc, console $logf)"
	done <<<"$BOOTS"
done

echo "# test bed: $(($(date +%s) - t_start)) s"
echo "total: $pass passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
