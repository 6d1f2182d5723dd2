#!/bin/bash
# build-modules.sh [-s] NAME [make arguments]: build the suite's modules
# against the headers of matrix kernel NAME into build/NAME, with W=1, and
# fail on any compiler, sparse or modpost warning. Prints the output
# directory. Extra arguments go to make (C=1 runs sparse on every file).
#   -s  sparse (C=1) where the kernel's headers can run it: the kernels the
#       host builds for (the matrix's builder "host")
#   -l  list the matrix's kernels and exit
#   -t DIR  build the module sources in DIR (Kbuild, common/ and the module
#       folders, as the tree has them) instead of the tree's: a changed
#       copy, for a check (IPISTORM_BUILD= then keeps its output apart)
# On a kernel of one's own that enforces module signatures with its build
# key (vm/enforcing-kernel.sh), the modules are signed with that key
# (make sign), unless IPISTORM_UNSIGNED=1.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG [-s] [-t DIR] NAME [make args] | $PROG -l"

sparse=0
src=$TOP
while getopts slt:h opt; do
	case $opt in
	s) sparse=1 ;;
	t) src=$OPTARG ;;
	l) echo "$KERNELS_ALL"; exit 0 ;;
	*) usage_opt "$opt" ;;
	esac
done
shift $((OPTIND - 1))
# A changed copy's modules must not take the tree's place in build/.
[ "$src" = "$TOP" ] || [ -n "${IPISTORM_BUILD:-}" ] || die "-t needs IPISTORM_BUILD= (an output apart from build/)"
kernel_name "$@"
shift
fetch_kernel "$name"
kdir=$(kernel_key kdir)
builder=$(kernel_key builder)
out=$BUILD/$name
[ "$sparse" = 0 ] || [ "$builder" != host ] || set -- "$@" C=1

# A fresh copy of the module sources: kbuild writes its objects beside them.
rm -rf "$out"
mkdir -p "$out"
dirs=$(suite_kmods "$TOP")
# shellcheck disable=SC2086 # one word per module folder
(cd "$src" && cp -r Kbuild common $dirs "$out/")
find "$out" -name '*.sh' -path '*/tests/*' -delete

cmd=(make -C "$kdir" M="$out" W=1 "$@" modules)
if [ "$builder" = trixie ]; then
	# Debian builds this kernel with trixie's gcc-14 and pahole: build in
	# the trixie tree, with the cache and build folders bind-mounted at
	# the same paths, in a private mount namespace that dies with it.
	root=$(trixie_root)
	kroot=$(kernel_dir "$name")
	mkdir -p "$root$kroot" "$root$out"
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --propagation private sh -c '
		mount --bind "$1" "$2$1" && mount --bind "$3" "$2$3" &&
		mount -t proc proc "$2/proc" &&
		shift 3 && exec chroot "$0" "$@"' \
		"$root" "$kroot" "$root" "$out" "${cmd[@]}" >"$out/build.log" 2>&1 ||
		{ cat "$out/build.log" >&2; die "$name: build failed"; }
else
	"${cmd[@]}" >"$out/build.log" 2>&1 ||
		{ cat "$out/build.log" >&2; die "$name: build failed"; }
fi

# Debian's headers carry no vmlinux before 7.x: BTF is skipped, not wrong.
if grep -v 'Skipping BTF generation' "$out/build.log" |
	grep -E -i 'warning|error:' >&2; then
	die "$name: the build is not warning-free (see $out/build.log)"
fi
# A kernel of one's own that enforces signatures and trusts the key its
# build made (vm/enforcing-kernel.sh) gets the modules signed with it, by
# make sign, unless IPISTORM_UNSIGNED=1 (to see them refused).
if grep -qx CONFIG_MODULE_SIG_FORCE=y "$kdir/.config" 2>/dev/null &&
	[ -f "$kdir/certs/signing_key.pem" ] && [ "${IPISTORM_UNSIGNED:-0}" != 1 ]; then
	make -s -C "$out" -f "$TOP/Makefile" sign KDIR="$kdir" \
		KEY="$kdir/certs/signing_key.pem" CERT="$kdir/certs/signing_key.x509" >&2
fi
printf '%s\n' "$out"
