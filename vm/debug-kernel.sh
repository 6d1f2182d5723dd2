#!/bin/bash
# debug-kernel.sh [OUT]: build, from Debian's linux-source-6.12 (the test
# bed's 6.12.95, unchanged), a kernel with the kernel's own checkers
# (vm/debug.config: KASAN, lockdep, DEBUG_ATOMIC_SLEEP, kmemleak,
# DEBUG_OBJECTS, fault injection with fail-nth, full preemption) and
# register it with the test bed as 6.12-debug. The build directory is
# OUT/build (default OUT: the cache); the first build takes about 40
# minutes on 2 cores. Then `make test-debug` runs the suite's tests there.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG [OUT]"
own_source "$CACHE/debug-6.12" "$@"
own_build 6.12-debug 1 -f "$VM_DIR/debug.config"
