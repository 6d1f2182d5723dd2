#!/bin/bash
# trixie-root.sh: a minimal Debian trixie tree with gcc-14, pahole >= 1.26
# and sparse, to build modules for kernels that Debian builds with trixie's
# toolchain (bookworm's gcc-12 and pahole 1.24 cannot). Made once with
# debootstrap from the mirror configured in /etc/apt; idempotent.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG"
only_help "$@"
[ $# -eq 0 ] || usage_error "unexpected argument '$1'"

root=$(trixie_root)
[ -f "$root/.ready" ] && exit 0
command -v debootstrap >/dev/null || die "debootstrap is not installed"
mirror=$(apt_mirror)
[ -n "$mirror" ] || die "no bookworm mirror found in /etc/apt"

rm -rf "$root"
log "debootstrap trixie into $root"
debootstrap --variant=minbase \
	--include=gcc-14,make,dwarves,libc6-dev,libelf-dev,sparse,bc \
	trixie "$root" "$mirror" >"$CACHE/debootstrap.log" 2>&1 ||
	die "debootstrap failed, see $CACHE/debootstrap.log"
touch "$root/.ready"
