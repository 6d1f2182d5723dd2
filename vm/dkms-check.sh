#!/bin/bash
# dkms-check.sh NAME: add the suite to DKMS from a copy of this tree, as
# version VERSION.check (VERSION from dkms.conf), build it against matrix
# kernel NAME's downloaded headers, check every module the wirings give
# DKMS (dkms= of <module>/wiring.conf, which dkms.conf reads) came out,
# and remove it again. Root; needs dkms.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG NAME"
one_kernel "$@"
command -v dkms >/dev/null || die "dkms is not installed"
fetch_kernel "$name"
kdir=$(kernel_key kdir)
abi=$(kernel_key abi)
pkg=$(sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' "$TOP/dkms.conf")
# A version of its own: an installed ipistorm is never touched, and what
# a check killed before its cleanup left is its own to remove.
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf").check
src=/usr/src/$pkg-$ver

cleanup() {
	dkms remove "$pkg/$ver" --all >/dev/null 2>&1 || true
	rm -rf "$src"
}
cleanup
trap cleanup EXIT
mkdir -p "$src"
tar -C "$TOP" --exclude=./build --exclude=./.git -cf - . | tar -C "$src" -xf -
sed -i "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$ver\"/" "$src/dkms.conf"
dkms add "$pkg/$ver" >&2
dkms build "$pkg/$ver" -k "$abi" --kernelsourcedir "$kdir" >&2
for m in $(suite_kmods "$TOP"); do
	m=$(wiring_get "$TOP" "$m" dkms)
	[ -n "$m" ] || continue
	ko=$(find "/var/lib/dkms/$pkg/$ver/$abi" -name "$m.ko*" | head -n 1)
	[ -n "$ko" ] || die "DKMS built no $m.ko for $abi"
	echo "dkms: $abi: $ko"
done
