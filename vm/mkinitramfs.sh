#!/bin/bash
# mkinitramfs.sh NAME: pack busybox, the suite's runner, scripts and tests
# and the modules built for matrix kernel NAME (build/NAME) into
# build/NAME/initramfs.gz, laid out as in the source tree under /suite, plus
# the host's bash and trace-cmd with their libraries when installed (for
# trace.sh) and vm/core-cookie.c, built. Prints the image's path.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG NAME"
one_kernel "$@"
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
cp "$TOP/Kbuild" "$root/suite/"
# each module's declaration, which run.sh reads
for mod in $(suite_modules "$TOP"); do
	mkdir -p "$root/suite/$mod"
	cp "$TOP/$mod/bench.conf" "$root/suite/$mod/"
done
cp "$TOP"/scripts/*.sh "$TOP"/scripts/*.awk "$root/suite/scripts/"
mkdir -p "$root/suite/scripts/tests/live"
cp "$TOP"/scripts/tests/live/*.sh "$root/suite/scripts/tests/live/"

# host_bin PROGRAM: copy a dynamically linked host program and the shared
# libraries it needs, at their paths (bash and trace-cmd, for trace.sh).
host_bin() {
	local p lib
	p=$(command -v "$1") || return 0
	cp -L "$p" "$root/bin/"
	for lib in $(ldd "$p" | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
host_bin bash
host_bin trace-cmd
# The test bed's core-scheduling aid, static (idle_reentry_core_sched).
gcc -static -O2 -Wall -Werror -o "$root/bin/core-cookie" "$VM_DIR/core-cookie.c"
for ko in "$out"/*/*.ko; do
	[ -f "$ko" ] || die "no modules in $out: run build-modules.sh $name"
	mod=$(basename "$(dirname "$ko")")
	mkdir -p "$root/suite/$mod"
	cp "$ko" "$root/suite/$mod/"
	[ -d "$TOP/$mod/tests" ] && cp -r "$TOP/$mod/tests" "$root/suite/$mod/"
done
# Renamed into place: a guest booting the old image meanwhile keeps it.
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out/initramfs.gz.new"
mv "$out/initramfs.gz.new" "$out/initramfs.gz"
printf '%s\n' "$out/initramfs.gz"
