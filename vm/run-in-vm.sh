#!/bin/bash
# run-in-vm.sh [boot.sh options] NAME OUTDIR [RUN.SH ARGS...]: boot matrix
# kernel NAME (by default 2 vCPUs, idle=poll, instruction counting: the
# timing mode), run scripts/run.sh ARGS inside it and unpack the result
# directory into OUTDIR, which must not exist.
#
#   run-in-vm.sh 6.12 results/6.12 -n 5 ipistorm numipi=20000 pairs=0:1 wait=1
#
# IPISTORM_PREBUILT=1 boots the kernel's initramfs of mkinitramfs.sh as it
# is, when there is one, instead of building the modules and the image
# afresh (vm/test.sh does, so that other guests can boot them meanwhile).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG [boot.sh options] NAME OUTDIR [RUN.SH ARGS...]"

opts=()
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do
	case $1 in
	-h) usage_help ;;
	-p | -i | -M) opts+=("$1"); shift ;;
	-[cstmaxTl]) [ $# -ge 2 ] || usage_error "$1 needs a value"
		opts+=("$1" "$2"); shift 2 ;;
	*) usage_error "unknown option $1" ;;
	esac
done
[ ${#opts[@]} -gt 0 ] || opts=(-c 2 -p -i)
[ $# -ge 2 ] || usage_error "name a kernel and a new result directory"
name=$1
dest=$2
shift 2
[ ! -e "$dest" ] || die "$dest exists: choose a new result directory"

kernel_image "${IPISTORM_PREBUILT:-0}" "$name"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
"$VM_DIR/boot.sh" "${opts[@]}" -a "IPISTORM_SM_IDLE=$(sm_idle "$name")" \
	-l "$BUILD/$name/console-run-$$.log" "$name" -- run "$@" >"$tmp/out" || rc=$?
unpack_block IPISTORM_RESULT_BEGIN IPISTORM_RESULT_END "$tmp/out" "$tmp/result.tar" ||
	die "$name: no result came back (boot exit $rc)"
mkdir -p "$(dirname "$dest")"
tar -C "$tmp" -xf "$tmp/result.tar"
mv "$tmp/result" "$dest"
printf '%s\n' "$dest"
exit "$rc"
