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
own_source "$CACHE/prefix-6.12" "$@"

# Only nohz_csd_func() is changed: it is the one function with these lines.
own_core 6.12-needresched 's/^\(\t*\)if (rq->idle_balance) {$/\1if (rq->idle_balance \&\& !need_resched()) {/'
own_build 6.12-needresched 1
own_core 6.12-raise '/^static void nohz_csd_func/,/^}/s/__raise_softirq_irqoff(SCHED_SOFTIRQ)/raise_softirq_irqoff(SCHED_SOFTIRQ)/'
own_build 6.12-raise 1
own_pristine kernel/sched/core.c
