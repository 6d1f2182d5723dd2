#!/bin/bash
# race.sh [-c N] [-n ROUNDS] [KERNEL...]: the races of the modules' state
# on the test bed: N vCPUs (default 8) under multi-threaded TCG (vm/boot.sh
# -M), so that several really run at once, for each kernel (default: 6.12
# and 7.3; 6.1 loops on a stale int3, below, in most such boots), running
# the tests that race CPUs on one another's state: the first hits of the
# hook modules' call sites (*_concurrent_resolve) and every module's runs
# on every CPU (*_all_cpus), ROUNDS boots each (default 1). Prints each
# boot's results; exit 0 when every boot passed, 1 when a test failed, 2
# when a boot splatted or never reported.
#
# Outside CI (make test-race): QEMU 7.2's multi-threaded TCG can run a
# stale copy of kernel text that ftrace, kprobes or static calls patch
# under it (an "Oops: int3" at a patched site's first bytes, or a call
# through a half-patched one): a splat of the emulator's, not of the
# suite's, which single-threaded TCG never shows (docs/testbed.md).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG [-c N] [-n ROUNDS] [KERNEL...]"

cpus=8 rounds=1
while getopts c:n:h opt; do
	case $opt in
	c) cpus=$OPTARG ;;
	n) rounds=$OPTARG ;;
	*) usage_opt "$opt" ;;
	esac
done
shift $((OPTIND - 1))
case $cpus in '' | *[!0-9]* | [0-3]) usage_error "-c takes 4 vCPUs or more, not '$cpus'" ;; esac
case $rounds in '' | *[!0-9]* | 0) usage_error "-n takes a positive number, not '$rounds'" ;; esac
# shellcheck disable=SC2086 # a list of names
[ $# -gt 0 ] || set -- 6.12 7.3
for k in "$@"; do matrix_field "$k" 1 >/dev/null 2>&1 || usage_error "unknown kernel '$k' (known: $KERNELS_ALL)"; done

rc=0
for k in "$@"; do
	"$VM_DIR/build-modules.sh" "$k" >/dev/null
	"$VM_DIR/mkinitramfs.sh" "$k" >/dev/null
	for ((r = 1; r <= rounds; r++)); do
		out=$BUILD/$k/race-$r.ktap
		b=0
		# The vCPUs share the host's cores: the lockup and stall
		# detectors get the big boot's slack (vm/test.sh).
		"$VM_DIR/boot.sh" -M -c "$cpus" -T 1200 -a "IPISTORM_SM_IDLE=$(sm_idle "$k")" \
			-a watchdog_thresh=10 -a rcupdate.rcu_cpu_stall_timeout=20 \
			-l "$BUILD/$k/console-race-$r.log" "$k" -- \
			'*_concurrent_resolve' '*_all_cpus' >"$out" 2>"$out.err" || b=$?
		echo "# === $k/race $r (exit $b, console $BUILD/$k/console-race-$r.log)"
		sed 's/^/    /' "$out"
		[ "$b" -lt 2 ] || sed 's/^/    # /' "$out.err"
		case $b in
		0 | 4) ;;
		1) [ "$rc" -ge 1 ] || rc=1 ;;
		*) rc=2 ;;
		esac
	done
done
exit "$rc"
