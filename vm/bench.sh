#!/bin/bash
# bench.sh [KERNEL...]: the benchmarks (the runner's -b) on the test bed,
# under instruction counting with idle=poll on 2 vCPUs, for each kernel
# (default: all). Prints the "bench ..." key=value lines of every kernel.
# Which benchmarks: each module's wiring's testbed= words bench:GLOB
# (<module>/wiring.conf, docs/bench.md); none wired, nothing to run.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG [KERNEL...]"
only_help "$@"

rc=0
globs=$(bench_testbed "$TOP" bench | tr '\n' ' ')
[ -n "$globs" ] || die "no wiring names a benchmark to run (testbed= bench:GLOB in <module>/wiring.conf)"
# shellcheck disable=SC2086 # a list of names
[ $# -gt 0 ] || set -- $KERNELS_DEFAULT
for k in "$@"; do
	"$VM_DIR/build-modules.sh" "$k" >/dev/null
	"$VM_DIR/mkinitramfs.sh" "$k" >/dev/null
	# An Intel family 6 CPU of models 0x0e to 0x3a (Ivy Bridge) gets a
	# constant TSC from the kernel's early_init_intel() on every kernel
	# of the matrix, which QEMU's TCG cannot report through CPUID (it has
	# no invtsc): ipistorm then times calls with the TSC, as on a server.
	# idle=poll keeps the idle routine as it was.
	# shellcheck disable=SC2086 # test name patterns, unexpanded
	(set -f && exec "$VM_DIR/boot.sh" -c 2 -p -i -x vendor=GenuineIntel,family=6,model=58 \
		-l "$BUILD/$k/console-bench.log" "$k" -- \
		-b $globs) >"$BUILD/$k/bench.ktap" || rc=1
	sed -n 's/^# bench /bench /p; /^not ok/p' "$BUILD/$k/bench.ktap"
done
exit "$rc"
