#!/bin/bash
# mkinitramfs.sh NAME: pack busybox, the suite's runner and tests and the
# modules built for matrix kernel NAME (build/NAME) into build/NAME/initramfs.gz,
# laid out as in the source tree under /suite. Prints the image's path.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

name=${1:?usage: mkinitramfs.sh NAME}
out=$BUILD/$name
busybox=$(command -v busybox || true)
[ -n "$busybox" ] || die "busybox is not installed (package busybox-static)"
file -L "$busybox" 2>/dev/null | grep -q 'statically linked' ||
	die "$busybox is not static (package busybox-static)"

root=$out/initramfs
rm -rf "$root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp,suite/scripts}
cp "$busybox" "$root/bin/busybox"
install -m 755 "$VM_DIR/init" "$root/init"
cp "$TOP"/scripts/*.sh "$root/suite/scripts/"
for ko in "$out"/*/*.ko; do
	[ -f "$ko" ] || die "no modules in $out: run build-modules.sh $name"
	mod=$(basename "$(dirname "$ko")")
	mkdir -p "$root/suite/$mod"
	cp "$ko" "$root/suite/$mod/"
	[ -d "$TOP/$mod/tests" ] && cp -r "$TOP/$mod/tests" "$root/suite/$mod/"
done
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out/initramfs.gz"
printf '%s\n' "$out/initramfs.gz"
