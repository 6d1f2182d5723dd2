#!/bin/bash
# mkinitramfs.sh NAME: pack busybox, the suite's runner, scripts and tests
# and the modules built for matrix kernel NAME (build/NAME) into
# build/NAME/initramfs.gz, laid out as in the source tree under /suite
# (each module's .ko beside its C sources), plus
# the host's bash and trace-cmd with their libraries when installed (for
# trace.sh), vm/core-cookie.c and vm/fail-nth.c, built, and the benchmarks that are programs
# (kind=program: their parsers and tests, and the host's programs they
# declare with their libraries and data files, at their paths, or the
# suite's own built static into their folders; a program
# the host lacks is an error naming its package). Prints the image's path.
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
# each benchmark's declaration, which run.sh reads
for mod in $(suite_benches "$TOP"); do
	mkdir -p "$root/suite/$mod"
	cp "$TOP/$mod/bench.conf" "$root/suite/$mod/"
done
cp "$TOP"/scripts/*.sh "$TOP"/scripts/*.awk "$root/suite/scripts/"
mkdir -p "$root/suite/scripts/tests/live"
cp "$TOP"/scripts/tests/live/*.sh "$root/suite/scripts/tests/live/"

# host_bin PROGRAM: copy a dynamically linked host program and the shared
# libraries it needs, at their paths (bash and trace-cmd, for trace.sh);
# status 1 when the host has no PROGRAM.
host_bin() {
	local p lib
	p=$(command -v "$1") || return 1
	cp -L "$p" "$root/bin/"
	for lib in $(ldd "$p" | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
host_bin bash || :
host_bin trace-cmd || :
# The benchmarks that are programs: parser, tests, programs, data.
for b in $(suite_benches "$TOP"); do
	[ "$(bench_kind "$TOP" "$b")" = program ] || continue
	cp "$TOP/$b/parse.awk" "$root/suite/$b/"
	[ ! -d "$TOP/$b/tests" ] || cp -r "$TOP/$b/tests" "$root/suite/$b/"
	for p in $(bench_get "$TOP" "$b" programs); do
		if [ -z "$(bench_get "$TOP" "$b" package)" ]; then
			# the suite's own, static, where run.sh runs it, beside
			# its C (which its declaration names)
			# shellcheck disable=SC2086 # flags are words
			gcc -static -O2 $PROGRAM_CFLAGS -o "$root/suite/$b/$p" "$TOP/$b/$p.c"
			cp "$TOP/$b/$p.c" "$root/suite/$b/"
		else
			host_bin "$p" || die "$b needs $p, which is not installed (package $(bench_get "$TOP" "$b" package): vm/install-deps.sh)"
		fi
	done
	for f in $(bench_get "$TOP" "$b" data); do
		[ -f "$f" ] || die "$b needs $f, which is not installed (package $(bench_get "$TOP" "$b" package): vm/install-deps.sh)"
		mkdir -p "$root$(dirname "$f")"
		cp -L "$f" "$root$f"
	done
done
# The test bed's core-scheduling aid, static (idle_reentry_core_sched).
gcc -static -O2 -Wall -Werror -o "$root/bin/core-cookie" "$VM_DIR/core-cookie.c"
# The fault-injection aid, static (the tests' alloc_failures).
gcc -static -O2 -Wall -Wextra -Werror -o "$root/bin/fail-nth" "$VM_DIR/fail-nth.c"
for ko in "$out"/*/*.ko; do
	[ -f "$ko" ] || die "no modules in $out: run build-modules.sh $name"
	mod=$(basename "$(dirname "$ko")")
	mkdir -p "$root/suite/$mod"
	cp "$ko" "$root/suite/$mod/"
	# its C and its hook list, where the suite's scripts read what it hooks
	for f in "$TOP/$mod"/*.c "$TOP/$mod"/*.h; do
		[ ! -f "$f" ] || cp "$f" "$root/suite/$mod/"
	done
	[ -d "$TOP/$mod/tests" ] && cp -r "$TOP/$mod/tests" "$root/suite/$mod/"
done
# Renamed into place: a guest booting the old image meanwhile keeps it.
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out/initramfs.gz.new"
mv "$out/initramfs.gz.new" "$out/initramfs.gz"
printf '%s\n' "$out/initramfs.gz"
