#!/bin/bash
# bench.sh [KERNEL...]: ipistorm's benchmarks on the test bed, under
# instruction counting with idle=poll on 2 vCPUs, for each kernel (default:
# all). Prints the "bench ..." key=value lines of every kernel.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

rc=0
# shellcheck disable=SC2086 # a list of names
[ $# -gt 0 ] || set -- $KERNELS_DEFAULT
for k in "$@"; do
	"$VM_DIR/build-modules.sh" "$k" >/dev/null
	"$VM_DIR/mkinitramfs.sh" "$k" >/dev/null
	# An Intel vendor string makes the kernel flag the TSC as constant
	# (family 15, early_init_intel()), which QEMU's TCG cannot say
	# through CPUID (it has no invtsc); ipistorm then times calls with the
	# TSC, as on a server. idle=poll keeps the idle routine unchanged.
	"$VM_DIR/boot.sh" -c 2 -p -i -x vendor=GenuineIntel \
		-l "$BUILD/$k/console-bench.log" "$k" -- \
		-b 'ipistorm_*' >"$BUILD/$k/bench.ktap" || rc=1
	sed -n 's/^# bench /bench /p; /^not ok/p' "$BUILD/$k/bench.ktap"
done
exit "$rc"
