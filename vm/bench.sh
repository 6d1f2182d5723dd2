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
	"$VM_DIR/boot.sh" -c 2 -p -i -l "$BUILD/$k/console-bench.log" "$k" -- \
		-b 'ipistorm_*' >"$BUILD/$k/bench.ktap" || rc=1
	sed -n 's/^# bench /bench /p; /^not ok/p' "$BUILD/$k/bench.ktap"
done
exit "$rc"
