#!/bin/bash
# enforcing-kernel.sh [OUT]: build, from Debian's linux-source-6.12 (the
# test bed's 6.12.95), a kernel that checks what the Debian kernels of the
# matrix cannot, and register it with the test bed as 6.12-enforce:
#   - module signatures enforced (CONFIG_MODULE_SIG_FORCE), trusting only
#     the key its build generated, OUT/build/certs/signing_key.pem: the
#     suite's modules load once signed with it (make sign), as on a Secure
#     Boot server with an enrolled key, and are refused unsigned;
#   - core scheduling built in (CONFIG_SCHED_CORE), none of the matrix's
#     kernels has it;
#   - without SM_IDLE's fast path in __schedule(), as before 6.12, so that
#     a pick the kernel makes through core scheduling is seen as a pick.
# The fragment is vm/enforcing.config. The build directory is OUT/build
# (default OUT: the cache). Then, for example:
#   vm/boot.sh -c 2 6.12-enforce -- sign_*
#   IPISTORM_SIGN=1 vm/boot.sh -c 2 6.12-enforce -- idle_reentry_*
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG [OUT]"
own_source "$CACHE/enforce-6.12" "$@"

# SM_IDLE's one test: the idle task's __schedule() with nothing runnable
# goes on to pick_next_task(), as before 6.12.
own_core 6.12-enforce 's/^\(\t*\)if (!rq->nr_running && !scx_enabled()) {$/\1if (0 \&\& !rq->nr_running \&\& !scx_enabled()) {/'
own_build 6.12-enforce 0 -f "$VM_DIR/enforcing.config"
log "6.12-enforce: its module key is $out/build/certs/signing_key.pem," \
	"its certificate $out/build/certs/signing_key.x509"
