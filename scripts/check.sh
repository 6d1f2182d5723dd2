#!/bin/bash
# check.sh: the suite's static checks, all of which must be clean:
#   - every benchmark's declaration, <bench>/bench.conf, and wiring,
#     <bench>/wiring.conf (docs/bench.md), and dkms.conf against them: dkms.conf read as dkms reads it (bash's
#     "." from another directory, its output discarded) must make, for each
#     declared dkms=NAME in suite_kmods' order, BUILT_MODULE_NAME[i]=
#     "NAME", BUILT_MODULE_LOCATION[i]="<module>/", DEST_MODULE_LOCATION[i]=
#     "/updates/dkms", and nothing else
#   - checkpatch.pl --strict on every C file and header
#   - shellcheck on every shell script
#   - W=1 and sparse (C=1) builds against every kernel of the test bed's
#     matrix, the PREEMPT_RT ones included (vm/build-modules.sh -l;
#     sparse where the kernel's headers can run it)
#   - a made-up hook, one line added to idle_reentry's hook list, is
#     enough: built against 6.12, the module's table of hooks and the
#     direct calls' chain of tests each grow by one (docs/design.md)
# CHECKPATCH=path/to/checkpatch.pl uses that one; otherwise it is taken
# from Debian's linux-source package into the cache. KERNELS= limits the
# matrix (default: all); KERNELS=none skips the builds. The builds are the
# test bed's (vm/build-modules.sh), run as a program.
#
#   check.sh [-d] [-h]
#     -d  the declarations and dkms.conf only
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="[CHECKPATCH=...] [KERNELS=...] $PROG [-d]"
declonly=0
while getopts dh opt; do
	case $opt in
	d) declonly=1 ;;
	*) usage_opt "$opt" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage_error "unexpected argument '$1'"

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
failed=0

# dkms_want: the dkms.conf module lines the declarations make.
dkms_want() {
	local m d i=0
	for m in $(suite_kmods .); do
		d=$(wiring_get . "$m" dkms)
		[ -n "$d" ] || continue
		printf '%s\n' "BUILT_MODULE_NAME[$i]=\"$d\"" "BUILT_MODULE_LOCATION[$i]=\"$m/\"" \
			"DEST_MODULE_LOCATION[$i]=\"/updates/dkms\""
		i=$((i + 1))
	done
}

# dkms_read FILE: FILE's module lines as dkms sees them: sourced by bash
# in a subshell, from another directory, with its output discarded
# (safe_source of dkms 3.0 and 3.2).
dkms_read() {
	(
		cd / && set +eu
		unset BUILT_MODULE_NAME BUILT_MODULE_LOCATION DEST_MODULE_LOCATION
		# shellcheck disable=SC1090 # dkms.conf, read as dkms reads it
		. "$1" >/dev/null
		for i in "${!BUILT_MODULE_NAME[@]}"; do
			printf '%s\n' "BUILT_MODULE_NAME[$i]=\"${BUILT_MODULE_NAME[i]}\"" \
				"BUILT_MODULE_LOCATION[$i]=\"${BUILT_MODULE_LOCATION[i]:-}\"" \
				"DEST_MODULE_LOCATION[$i]=\"${DEST_MODULE_LOCATION[i]:-}\""
		done
	)
}

echo "== declarations (<bench>/bench.conf), wirings (<bench>/wiring.conf) and dkms.conf"
decl_ok=1
for m in $(suite_benches .); do
	bench_check . "$m" || decl_ok=0
	wiring_check . "$m" || decl_ok=0
done
if [ "$decl_ok" = 1 ]; then
	if ! diff -u --label 'the wirings (dkms=)' --label 'dkms.conf, as dkms reads it' <(dkms_want) \
		<(dkms_read "$TOP/dkms.conf"); then
		log "dkms.conf differs from the wirings (above: - wired, + dkms.conf): it must compute its modules from <module>/wiring.conf's dkms=, naming none"
		decl_ok=0
	fi
fi
[ "$decl_ok" = 1 ] || failed=1
if [ "$declonly" = 1 ]; then
	[ "$failed" = 0 ] || { echo "check: FAILED"; exit 1; }
	echo "check: clean (declarations only)"
	exit 0
fi

checkpatch=${CHECKPATCH:-}
if [ -z "$checkpatch" ]; then
	dir=${IPISTORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ipistorm}/checkpatch
	checkpatch=$dir/scripts/checkpatch.pl
	if [ ! -x "$checkpatch" ]; then
		vm/apt-suites.sh
		tmp=$(mktemp -d)
		(cd "$tmp" && apt-get download -q -t bookworm-backports \
			linux-source-6.12) 2>&1 | { grep -v unsandboxed || true; } >&2
		mkdir -p "$dir"
		dpkg-deb --fsys-tarfile "$tmp"/linux-source-6.12_*.deb |
			tar -xO --wildcards '*/linux-source-6.12.tar.xz' |
			tar -xJ -C "$dir" --strip-components=1 \
				linux-source-6.12/scripts/checkpatch.pl \
				linux-source-6.12/scripts/spelling.txt \
				linux-source-6.12/scripts/const_structs.checkpatch
		rm -rf "$tmp"
	fi
fi

echo "== checkpatch --strict"
mapfile -t csrc < <(git ls-files -co --exclude-standard '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]' -not -path './build/*')
if ! "$checkpatch" --strict --no-tree --quiet --terse --show-types \
	--ignore SPDX_LICENSE_TAG -f "${csrc[@]}"; then
	failed=1
fi

echo "== shellcheck"
mapfile -t shsrc < <(
	{ git ls-files -co --exclude-standard 2>/dev/null || find . -type f -not -path './build/*'; } |
		while read -r f; do
			case $f in
			*.sh | *.bats | .ci/run | vm/init) echo "$f" ;;
			esac
		done)
shellcheck -x -P SCRIPTDIR "${shsrc[@]}" || failed=1

# Two builds at a time; each one's errors are shown after its heading.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pids=() names=()
for k in ${KERNELS:-$(vm/build-modules.sh -l)}; do
	[ "$k" = none ] && continue
	[ ${#pids[@]} -lt 2 ] || { wait "${pids[-2]}" || true; }
	(vm/build-modules.sh -s "$k" >/dev/null 2>"$tmp/$k.err" || echo failed >"$tmp/$k.rc") &
	pids+=("$!") names+=("$k")
done
for i in "${!pids[@]}"; do
	k=${names[$i]}
	wait "${pids[$i]}" || true
	echo "== build against $k (W=1, sparse where its headers run it)"
	cat "$tmp/$k.err"
	[ ! -e "$tmp/$k.rc" ] || failed=1
done

# The made-up hook: a hot one of phases=1, on a function no kernel has.
hook_line_check() {
	local k=6.12 d=$tmp/hook base new n0 n1 s0 s1
	base=${IPISTORM_BUILD:-$TOP/build}/$k/idle_reentry/idle_reentry.ko
	new=$d/build/$k/idle_reentry/idle_reentry.ko
	[ -f "$base" ] || { echo "no $base: build against $k first"; return 1; }
	mkdir -p "$d/src" || return 1
	# shellcheck disable=SC2046 # one word per module folder
	if ! cp -r Kbuild common $(suite_kmods "$TOP") "$d/src/"; then
		echo "cannot copy the sources into $d/src"
		return 1
	fi
	sed -i '/^IR_HOOK(NEWIDLE,/a IR_HOOK(MADE_UP, HOT, newidle, 0, IPS_HOOK_NAMES("made_up_fn"))' \
		"$d/src/idle_reentry/hooks.h"
	grep -q MADE_UP "$d/src/idle_reentry/hooks.h" || { echo "no NEWIDLE line in hooks.h"; return 1; }
	IPISTORM_BUILD=$d/build vm/build-modules.sh -t "$d/src" "$k" >/dev/null || return 1
	n0=$(objdump -d --disassemble=ir_direct "$base" | grep -c $'\tcmp ')
	n1=$(objdump -d --disassemble=ir_direct "$new" | grep -c $'\tcmp ')
	s0=$((0x$(nm -S "$base" | awk '$4 == "ir_hooks" { print $2 }')))
	s1=$((0x$(nm -S "$new" | awk '$4 == "ir_hooks" { print $2 }')))
	echo "ir_direct's tests $n0 -> $n1, ir_hooks $s0 -> $s1 bytes"
	[ "$n1" -eq $((n0 + 1)) ] && [ "$s1" -gt "$s0" ] && [ $((s0 % (s1 - s0))) -eq 0 ] &&
		grep -q made_up_fn "$new"
}

echo "== a made-up hook, one line of idle_reentry/hooks.h"
if [[ " ${names[*]} " != *" 6.12 "* ]] || [ -e "$tmp/6.12.rc" ]; then
	echo "skipped: no 6.12 build (KERNELS=)"
else
	hook_line_check || { echo "the made-up hook did not reach every part"; failed=1; }
fi

if [ "$failed" != 0 ]; then
	echo "check: FAILED"
	exit 1
fi
echo "check: clean"
