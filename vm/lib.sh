# shellcheck shell=bash
# Shared by the host-side test bed scripts (bash): the kernel matrix, the
# cache and the test bed's helpers; the suite's shared helpers (die, key,
# usage, the splat pattern) come from scripts/lib.sh. Sourced, not run.

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$VM_DIR/.." && pwd)
# shellcheck source=../scripts/lib.sh
. "$TOP/scripts/lib.sh"
CACHE=${IPISTORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ipistorm}
# shellcheck disable=SC2034 # used by the scripts that source this
BUILD=${IPISTORM_BUILD:-$TOP/build}

# The kernel matrix, one kernel a line:
#   name     the test bed's name for it
#   suite    the Debian suite it comes from
#   builder  what builds modules for it: the host's gcc, or trixie's
#   SM_IDLE  1 when __schedule() has SM_IDLE (the fast path), else 0
#   flavour  Debian's flavour: the image is what linux-image-FLAVOUR of
#            the suite depends on (amd64; rt-amd64, PREEMPT_RT)
#   tests    what vm/test.sh runs on it unless -a: "all", or the boots
#            and demo shapes it gets (demo-poll, demo-mwait; dkms);
#            the rest runs with vm/test.sh -a (make test-rt)
# name    suite               builder SM_IDLE flavour   tests
KERNEL_MATRIX="
6.1	bookworm		host	0	amd64		all
6.12	bookworm-backports	host	1	amd64		all
7.3	trixie-backports	trixie	1	amd64		all
6.1-rt	bookworm		host	0	rt-amd64	demo-poll
6.12-rt	bookworm-backports	host	1	rt-amd64	functional,demo-poll
"

# Every kernel of the matrix; KERNELS_DEFAULT, those of Debian's default
# flavour (the kernels a benchmark is run on unless named).
KERNELS_ALL=$(printf '%s\n' "$KERNEL_MATRIX" | awk 'NF { printf "%s ", $1 }')
# shellcheck disable=SC2034 # used by the scripts that source this
KERNELS_DEFAULT=$(printf '%s\n' "$KERNEL_MATRIX" | awk '$5 == "amd64" { printf "%s ", $1 }')

# The line vm/init writes into the kernel log as it starts the suite: a
# splat on the console before it is the boot's, none of the suite's.
SUITE_START='ipistorm: the suite starts'
# Reports of a CPU or a task that did not run for too long: a host that
# starves the guest makes them, in whatever code the guest was running.
SPLAT_STARVED='soft lockup|hard LOCKUP|rcu: INFO|detected stall|blocked for more than'

# splat_kind LOG: what the guest's console LOG shows: "none"; "early", a
# splat before SUITE_START (or without it); "host", after it only reports
# of SPLAT_STARVED whose backtraces name no module (the guest loads the
# suite's modules only): the host starved the guest; else "suite". A
# backtrace an injected allocation failure dumps is none (unexcused).
splat_kind() {
	unexcused <"$1" | awk -v splat="$SPLAT" -v benign="$SPLAT_BENIGN" -v start="$SUITE_START" \
		-v starved="$SPLAT_STARVED" '
		index($0, start) { started = 1; next }
		$0 ~ splat && !index($0, benign) {
			if (!started) early = 1
			else if ($0 ~ starved) host = 1
			else if ($0 ~ /Call Trace/) trace = 1
			else other = 1
		}
		started && /\+0x[0-9a-f]+\/0x[0-9a-f]+ \[[A-Za-z0-9_]+\]/ { module = 1 }
		END {
			if (early) print "early"
			else if (other || host && module || trace && !host) print "suite"
			else if (host) print "host"
			else print "none"
		}'
}

# guest_seconds LOG: the guest's clock, whole seconds, at the last line of
# its console LOG (0: none).
guest_seconds() {
	sed -n 's/^\[ *\([0-9]*\)\.[0-9]*\].*/\1/p' "$1" 2>/dev/null | tail -n 1 | grep . || echo 0
}

# sm_idle NAME: 1 or 0 from the matrix, or what a kernel of the user's own
# declared (empty: unknown).
sm_idle() {
	local env
	env=$(kernel_dir "$1")/kernel.env
	if [ -f "$env" ] && [ "$(key builder "$env")" = own ]; then
		key sm_idle "$env"
	else
		matrix_field "$1" 4
	fi
}

# matrix_field NAME COLUMN
matrix_field() {
	printf '%s\n' "$KERNEL_MATRIX" |
		awk -v n="$1" -v c="$2" '$1 == n { print $c; found = 1 }
			END { exit !found }' ||
		die "unknown kernel '$1' (known: $KERNELS_ALL)"
}

# kernel_name ARGS...: the kernel a script is given first, in $name, or
# exit 2; one_kernel ARGS... also takes -h and refuses more arguments.
kernel_name() {
	[ $# -ge 1 ] || usage_error "name a kernel (one of: $KERNELS_ALL)"
	# shellcheck disable=SC2034 # the caller reads it
	name=$1
}
one_kernel() {
	only_help "$@"
	[ $# -le 1 ] || usage_error "unexpected argument '$2'"
	kernel_name "$@"
}

# fetch_kernel NAME: fetch it (fetch-kernel.sh) and keep its kernel.env;
# kernel_key KEY: one key of it.
fetch_kernel() { kernel_env=$("$VM_DIR/fetch-kernel.sh" "$1"); }
kernel_key() { key "$1" <(printf '%s\n' "$kernel_env"); }

kernel_dir() { printf '%s/kernels/%s\n' "$CACHE" "$1"; }
trixie_root() { printf '%s/trixie-root\n' "$CACHE"; }

# The mirror already configured for bookworm (deb822 or one-line format).
apt_mirror() {
	{
		awk '/^URIs:/ { u = $2 }
		     /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") print u }' \
			/etc/apt/sources.list.d/*.sources 2>/dev/null
		awk '$1 == "deb" && $3 == "bookworm" { print $2 }' \
			/etc/apt/sources.list 2>/dev/null
	} | head -n 1 || true
}

# register_own_kernel LABEL IMAGE BUILD [SM_IDLE]: make a kernel one built
# oneself known to the test bed under LABEL, like a fetched one.
register_own_kernel() {
	local dir
	[ -f "$2" ] || die "$1: no kernel image $2"
	[ -f "$3/Makefile" ] || die "$1: $3 is not a kernel build directory"
	dir=$(kernel_dir "$1")
	mkdir -p "$dir"
	printf '%s\n' "name=$1" "builder=own" "abi=$1" "sm_idle=${4:-}" \
		"vmlinuz=$(realpath "$2")" "kdir=$(realpath "$3")" >"$dir/kernel.env"
}

# linux_source VERSION OUT: Debian's linux-source-6.12 of VERSION (from
# bookworm-backports, the .deb kept in the cache) unpacked into
# OUT/linux-source-6.12, unless it is there already.
linux_source() {
	local deb
	[ -d "$2/linux-source-6.12/kernel/sched" ] && return 0
	"$VM_DIR/apt-suites.sh"
	mkdir -p "$CACHE/src" "$2"
	deb=$(find "$CACHE/src" -name "linux-source-6.12_${1}_all.deb" | head -n 1)
	if [ -z "$deb" ]; then
		(cd "$CACHE/src" && apt-get download -q -t bookworm-backports \
			"linux-source-6.12=$1") >&2
		deb=$(find "$CACHE/src" -name "linux-source-6.12_*_all.deb" | head -n 1)
	fi
	log "unpacking $deb"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$2" --wildcards '*.tar.xz' \
		--strip-components 3
	tar -xJf "$2/linux-source-6.12.tar.xz" -C "$2"
	rm -f "$2/linux-source-6.12.tar.xz"
}

# The builders of kernels of one's own from Debian's linux-source-6.12 of
# the test bed's 6.12 (prefix-kernels.sh, enforcing-kernel.sh, each a
# change of kernel/sched/core.c; placement-kernels.sh, patches of
# vm/patches/):
#
# own_source DEFAULT_OUT ARGS...: their command line, [OUT] (default
# DEFAULT_OUT); the source unpacked into OUT, kernel/sched/core.c as the
# source has it (own_pristine); sets out, src and core.
own_source() {
	only_help "${@:2}"
	[ $# -le 2 ] || usage_error "unexpected argument '$3'"
	out=${2:-$1}
	src=$out/linux-source-6.12
	core=$src/kernel/sched/core.c
	mkdir -p "$out"
	linux_source 6.12.95-1~bpo12+1 "$out"
	own_pristine kernel/sched/core.c
}

# own_pristine FILE...: each FILE of src (a path in it) as the source has
# it, from a copy FILE.orig kept before its first change, so that every
# build starts from the source, also after a run stopped with a change
# in, whole or in part.
own_pristine() {
	local f
	for f in "$@"; do
		[ -f "$src/$f" ] || die "no $f in $src"
		[ -f "$src/$f.orig" ] || cp "$src/$f" "$src/$f.orig"
		cmp -s "$src/$f.orig" "$src/$f" || cp "$src/$f.orig" "$src/$f"
		rm -f "$src/$f.rej"
	done
}

# own_core LABEL SED: core.c is core.c.orig changed by SED, which must
# change it; the change on stderr.
own_core() {
	sed "$2" "$core.orig" >"$core"
	cmp -s "$core" "$core.orig" && die "$1: the change did not apply to $core"
	diff -u "$core.orig" "$core" | sed -n '/^[-+][^-+]/p' >&2 || true
}

# own_patch PATCH: apply PATCH (-p1) to src, printed on stderr;
# own_unpatch PATCH: PATCH's files as the source has them (own_pristine).
own_patch() {
	own_unpatch "$1"
	patch -d "$src" -p1 -N -s <"$1" || die "$1 does not apply to $src"
	sed -n '/^[-+][^-+]/p' "$1" >&2
}
own_unpatch() {
	local files
	mapfile -t files < <(sed -n 's|^+++ b/||p' "$1")
	[ "${#files[@]}" -gt 0 ] || die "$1: names no file"
	own_pristine "${files[@]}"
}

# own_build LABEL SM_IDLE [BUILD-KERNEL.SH OPTIONS...]: build src in
# out/build, keep the image as out/vmlinuz-LABEL and register it as LABEL.
own_build() {
	local t0 image
	log "$1: building (the first build takes about half an hour on 2 cores)"
	t0=$(date +%s)
	image=$("$VM_DIR/build-kernel.sh" "${@:3}" "$src" "$out/build")
	log "$1: built in $(($(date +%s) - t0)) s"
	cp "$image" "$out/vmlinuz-$1"
	register_own_kernel "$1" "$out/vmlinuz-$1" "$out/build" "$2"
}

# unpack_block BEGIN END FILE OUT: print FILE on stderr but for the block
# from the line BEGIN to the line END, and decode the base64 between them
# (a "# " before each line, as KTAP diagnostics carry, removed) into OUT.
# Fails when the decoding does.
unpack_block() {
	sed "/^$1\$/,/^$2\$/d" "$3" >&2
	sed -n "/^$1\$/,/^$2\$/p" "$3" | sed '1d;$d;s/^# //' | base64 -d >"$4"
}

# kernel_image REUSE NAME: build NAME's modules and its image of
# mkinitramfs.sh, unless REUSE is 1 and there is one already.
kernel_image() {
	if [ "$1" != 1 ] || [ ! -f "$BUILD/$2/initramfs.gz" ]; then
		"$VM_DIR/build-modules.sh" "$2" >/dev/null
		"$VM_DIR/mkinitramfs.sh" "$2" >/dev/null
	fi
}

# A test bed of a harness above the test bed (one that drives a fleet's
# benchmark harness in the guest) boots the test bed's image with the
# harness added:
#
# bed_images REUSE OVERLAY OUT KERNEL...: pack the directory OVERLAY into
# OUT/overlay.gz, a second archive the kernel unpacks over the image, and
# give each KERNEL OUT/build/KERNEL/initramfs.gz: its image of
# mkinitramfs.sh (built afresh unless REUSE is 1 and there is one), then
# the overlay.
bed_images() {
	local reuse=$1 overlay=$2 out=$3 k
	shift 3
	(cd "$overlay" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out/overlay.gz"
	for k in "$@"; do
		kernel_image "$reuse" "$k"
		mkdir -p "$out/build/$k"
		cat "$BUILD/$k/initramfs.gz" "$out/overlay.gz" >"$out/build/$k/initramfs.gz"
	done
}

# bed_boot OUT KERNEL NAME TEST ARGS OPTS: boot KERNEL's image of
# bed_images with vm/boot.sh options OPTS (words) and kernel arguments
# ARGS, running the guest's test TEST; its output in OUT/KERNEL-NAME.ktap
# and .err, its exit in .rc, its console in OUT/console-KERNEL-NAME.log.
bed_boot() {
	local f=$1/$2-$3 rc=0
	# shellcheck disable=SC2086 # boot options are words
	IPISTORM_BUILD=$1/build "$VM_DIR/boot.sh" $6 -T 600 \
		-a "IPISTORM_SM_IDLE=$(sm_idle "$2") $5" \
		-l "$1/console-$2-$3.log" "$2" -- "$4" >"$f.ktap" 2>"$f.err" || rc=$?
	echo "$rc" >"$f.rc"
}

# bed_result OUT KERNEL NAME MARK: the block "# MARK_BEGIN" to "# MARK_END"
# of that boot's output, decoded into OUT/KERNEL-NAME.tar.gz; dies with
# the boot's messages when the block is missing or the boot failed.
bed_result() {
	local f=$1/$2-$3 rc
	rc=$(cat "$f.rc")
	unpack_block "# $4_BEGIN" "# $4_END" "$f.ktap" "$f.tar.gz" 2>"$f.txt" ||
		die "$2: $3: nothing came back (boot exit $rc, see $f.err)"
	[ "$rc" = 0 ] || { cat "$f.txt" "$f.err" >&2; die "$2: $3: boot exit $rc"; }
}
