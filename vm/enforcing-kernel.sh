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
only_help "$@"
[ $# -le 1 ] || usage_error "unexpected argument '$2'"

version=6.12.95-1~bpo12+1
out=${1:-$CACHE/enforce-6.12}
src=$out/linux-source-6.12
linux_source "$version" "$out"

core=$src/kernel/sched/core.c
[ -f "$core.orig" ] || cp "$core" "$core.orig"
# SM_IDLE's one test: the idle task's __schedule() with nothing runnable
# goes on to pick_next_task(), as before 6.12.
sed 's/^\(\t*\)if (!rq->nr_running && !scx_enabled()) {$/\1if (0 \&\& !rq->nr_running \&\& !scx_enabled()) {/' \
	"$core.orig" >"$core"
cmp -s "$core" "$core.orig" && die "the change did not apply to $core"
diff -u "$core.orig" "$core" | sed -n '/^[-+][^-+]/p' >&2 || true

log "6.12-enforce: building (the first build takes about half an hour on 2 cores)"
t0=$(date +%s)
image=$("$VM_DIR/build-kernel.sh" -f "$VM_DIR/enforcing.config" "$src" "$out/build")
log "6.12-enforce: built in $(($(date +%s) - t0)) s"
cp "$image" "$out/vmlinuz-6.12-enforce"
register_own_kernel 6.12-enforce "$out/vmlinuz-6.12-enforce" "$out/build" 0
log "6.12-enforce: its module key is $out/build/certs/signing_key.pem," \
	"its certificate $out/build/certs/signing_key.x509"
