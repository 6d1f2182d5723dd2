#!/bin/bash
# placement-kernels.sh [OUT]: build, from Debian's linux-source-6.12 (the
# test bed's 6.12.95), three kernels of one config, and register them with
# the test bed, so that a change of where the scheduler puts a woken task
# is validated against its own source (docs/testbed.md):
#   6.12-base        the source unchanged: the baseline
#   6.12-idlerecent  vm/patches/6.12-idlerecent.patch: available_idle_cpu()
#                    calls a CPU idle for 1 ms after it left idle while it
#                    runs one task, so wake-ups land on CPUs busy again
#   6.12-llcpull     vm/patches/6.12-llcpull.patch: wake_affine() puts a
#                    wakee whose previous CPU is in another LLC than its
#                    waker's in the waker's LLC (cache-aware placement)
# One build directory in OUT (default: the cache): the first build took
# 10 minutes on 2 idle cores, the others about 20 s. Then validate each
# against 6.12-base in the test bed, on 4 vCPUs on 2 sockets (the command
# and what it said: docs/validate.md, "Placement kernels").
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG [OUT]"
own_source "$CACHE/placement-6.12" "$@"
patches=("$VM_DIR/patches/6.12-idlerecent.patch" "$VM_DIR/patches/6.12-llcpull.patch")
for p in "${patches[@]}"; do own_unpatch "$p"; done
own_build 6.12-base 1
for p in "${patches[@]}"; do
	own_patch "$p"
	k=$(basename "$p" .patch)
	own_build "$k" 1
	own_unpatch "$p"
done
