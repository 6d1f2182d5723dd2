#!/bin/bash
# build-kernel.sh [-c CONFIG] [-f FRAGMENT] SRC OUT: build the kernel
# source tree SRC out of tree in OUT (reused: later builds are incremental)
# with x86_64_defconfig and the test bed's fragment vm/kernel.config,
# ccache when installed. Prints the path of the kernel image. OUT then
# serves as KDIR for the suite's modules.
#   -c CONFIG    a whole .config instead (completed by make olddefconfig)
#   -f FRAGMENT  a fragment merged after vm/kernel.config
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG [-c CONFIG] [-f FRAGMENT] SRC OUT"
config=""
fragments=("$VM_DIR/kernel.config")
while getopts c:f:h opt; do
	case $opt in
	c) config=$OPTARG ;;
	f)
		[ -f "$OPTARG" ] || die "-f: no file $OPTARG"
		fragments+=("$(realpath "$OPTARG")")
		;;
	*) usage_opt "$opt" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || usage_error "give the kernel source tree and the build directory"

src=$1
out=$2
if [ ! -f "$src/Makefile" ] || [ ! -d "$src/kernel/sched" ]; then
	die "$src is not a kernel source tree"
fi
for tool in flex bison; do
	command -v "$tool" >/dev/null ||
		die "building a kernel needs $tool: apt-get install -t bookworm flex bison libssl-dev"
done
mkdir -p "$out"
out=$(realpath "$out")

# newer_than FILE FRAGMENT...: one of the fragments is newer than FILE.
newer_than() {
	local f=$1
	shift
	for frag; do [ "$frag" -nt "$f" ] && return 0; done
	return 1
}
mk=(make -C "$src" O="$out" -j"$(nproc)")
command -v ccache >/dev/null && mk+=(CC="ccache gcc")

if [ -n "$config" ]; then
	[ -f "$config" ] || die "-c: no file $config"
	cmp -s "$config" "$out/.config" || cp "$config" "$out/.config"
	"${mk[@]}" olddefconfig >/dev/null
elif [ ! -f "$out/.config" ] || newer_than "$out/.config" "${fragments[@]}"; then
	"${mk[@]}" x86_64_defconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
		"${fragments[@]}" >/dev/null
	"${mk[@]}" olddefconfig >/dev/null
	# merge_config.sh -m leaves what the fragments asked for but Kconfig
	# refused: name it instead of building something else (the last
	# fragment to set an option decides).
	while IFS= read -r line; do
		case $line in
		CONFIG_*=n) grep -qx "# ${line%=n} is not set" "$out/.config" ||
			! grep -q "^${line%=n}=" "$out/.config" || die "kernel.config: $line refused" ;;
		CONFIG_*) grep -qx "$line" "$out/.config" || die "kernel.config: $line refused" ;;
		esac
	done < <(awk -F= '/^CONFIG_/ { if (!($1 in v)) o[n++] = $1; v[$1] = $0 }
		END { for (i = 0; i < n; i++) print v[o[i]] }' "${fragments[@]}")
fi
"${mk[@]}" >"$out/build.log" 2>&1 || { tail -n 40 "$out/build.log" >&2; die "build failed (see $out/build.log)"; }
printf '%s\n' "$out/arch/x86/boot/bzImage"
