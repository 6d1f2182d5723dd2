#!/bin/bash
# fetch-kernel.sh NAME: download Debian's kernel image and headers for the
# matrix entry NAME (6.1, 6.12, 7.3; 6.1-rt, 6.12-rt: PREEMPT_RT), the
# ones linux-image-FLAVOUR of its suite depends on, with apt-get download,
# unpack them with dpkg-deb into the cache and print the entry's
# kernel.env. Idempotent.
# Kernels built by the trixie toolchain also get the trixie build root.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG NAME"
one_kernel "$@"
dir=$(kernel_dir "$name")
# A kernel of the user's own (vm/demo.sh KERNELS=label=IMAGE:BUILD) has
# its kernel.env already.
if [ -f "$dir/kernel.env" ] && [ "$(key builder "$dir/kernel.env")" = own ]; then
	cat "$dir/kernel.env"
	exit 0
fi
suite=$(matrix_field "$name" 2)
builder=$(matrix_field "$name" 3)
flavour=$(matrix_field "$name" 5)

if [ "$builder" = trixie ]; then
	"$VM_DIR/trixie-root.sh" >&2
fi
if [ -f "$dir/kernel.env" ]; then
	cat "$dir/kernel.env"
	exit 0
fi

"$VM_DIR/apt-suites.sh"

# Depends: lines of PKG in SUITE matching the extended regex RE.
deps() {
	apt-cache depends -t "$suite" "$1" |
		awk -v re="$3" '$1 == "Depends:" && $2 ~ re { print $2 }' | sort -u
}

image=$(deps "linux-image-$flavour" "$suite" '^linux-image-[0-9]' | head -n 1)
[ -n "$image" ] || die "$suite: no linux-image-$flavour dependency found"
abi=${image#linux-image-}
headers=linux-headers-$abi
mapfile -t pkgs < <(printf '%s\n' "$image" "$headers"
	deps "$image" "$suite" '^linux-binary-'
	deps "$headers" "$suite" '^linux-(headers-.*-common|kbuild-|base-[0-9])')

tmp=$dir.tmp
rm -rf "$tmp"
mkdir -p "$tmp/debs" "$tmp/root"
log "$name: downloading ${pkgs[*]} from $suite"
(cd "$tmp/debs" && apt-get download -q -t "$suite" "${pkgs[@]}") 2>&1 |
	{ grep -v -e 'unsandboxed' -e '^Get:' -e '^Fetched' || true; } >&2

for deb in "$tmp"/debs/*.deb; do
	case ${deb##*/} in
	linux-image-*|linux-binary-*)
		# Only the kernel image and its config are needed, not the
		# hundreds of MB of modules.
		dpkg-deb --fsys-tarfile "$deb" |
			tar -x -C "$tmp/root" --wildcards --no-anchored \
				'vmlinuz*' "config-$abi" 2>/dev/null || true
		;;
	*)
		dpkg-deb -x "$deb" "$tmp/root"
		;;
	esac
done
version=$(dpkg-deb -f "$tmp"/debs/"$image"_*.deb Version)
rm -rf "$tmp/debs"

vmlinuz=$(find "$tmp/root" -name "vmlinuz*" -type f | head -n 1)
[ -n "$vmlinuz" ] || die "$name: no vmlinuz in $image"
kdir=$tmp/root/usr/src/linux-headers-$abi
[ -f "$kdir/Makefile" ] || die "$name: no headers at $kdir"

# Debian's header Makefiles name /usr/src by absolute path: point them at
# the cache (the final location, after the rename below).
grep -rl --include=Makefile '/usr/src/' "$tmp/root/usr/src" |
	while read -r mk; do
		sed -i "s|/usr/src/|$dir/root/usr/src/|g" "$mk"
	done

cat >"$tmp/kernel.env" <<ENV
name=$name
suite=$suite
builder=$builder
flavour=$flavour
abi=$abi
version=$version
vmlinuz=$dir/root/${vmlinuz#"$tmp/root/"}
kdir=$dir/root/usr/src/linux-headers-$abi
ENV
rm -rf "$dir"
mv "$tmp" "$dir"
cat "$dir/kernel.env"
