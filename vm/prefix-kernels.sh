#!/bin/bash
# prefix-kernels.sh [OUT]: build, from Debian's linux-source-6.12 (the
# test bed's 6.12.95), the two kernels without the nohz_csd_func() fixes
# that nohz_csd.ko must detect, and register them with the test bed as
# kernels of one's own:
#   6.12-needresched  nohz_csd_func() drops a kick when need_resched() is
#                     set, as before "sched/core: Remove the unnecessary
#                     need_resched() check in nohz_csd_func()"
#   6.12-raise        nohz_csd_func() raises SCHED_SOFTIRQ with
#                     raise_softirq_irqoff(), which wakes ksoftirqd when
#                     called from the polling idle task, as before
#                     "sched/core: Prevent wakeup of ksoftirqd during idle
#                     load balance"
# Both share one build directory in OUT (default: the cache), so the
# second build is incremental. Then run, for example:
#   vm/boot.sh -c 4 6.12-needresched -- nohz_csd_polled
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG [OUT]"
only_help "$@"
[ $# -le 1 ] || usage_error "unexpected argument '$2'"

version=6.12.95-1~bpo12+1
out=${1:-$CACHE/prefix-6.12}
src=$out/linux-source-6.12
mkdir -p "$out"

linux_source "$version" "$out"

core=$src/kernel/sched/core.c
[ -f "$core.orig" ] || cp "$core" "$core.orig"

# variant NAME SED: build core.c.orig changed by SED, register NAME.
variant() {
	sed "$2" "$core.orig" >"$core"
	cmp -s "$core" "$core.orig" && die "$1: the change did not apply to $core"
	diff -u "$core.orig" "$core" | sed -n '/^[-+][^-+]/p' >&2 || true
	log "$1: building (the first build takes about half an hour on 2 cores)"
	t0=$(date +%s)
	image=$("$VM_DIR/build-kernel.sh" "$src" "$out/build")
	log "$1: built in $(($(date +%s) - t0)) s"
	cp "$image" "$out/vmlinuz-$1"
	register_own_kernel "$1" "$out/vmlinuz-$1" "$out/build" 1
}

# Only nohz_csd_func() is changed: it is the one function with these lines.
variant 6.12-needresched 's/^\(\t*\)if (rq->idle_balance) {$/\1if (rq->idle_balance \&\& !need_resched()) {/'
variant 6.12-raise '/^static void nohz_csd_func/,/^}/s/__raise_softirq_irqoff(SCHED_SOFTIRQ)/raise_softirq_irqoff(SCHED_SOFTIRQ)/'
cp "$core.orig" "$core"
