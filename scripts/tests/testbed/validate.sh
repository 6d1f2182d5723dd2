#!/bin/bash
# tests/testbed/validate.sh [-b] [-B BOOTS] [-n RUNS] [-o DIR] [-c CPUS] [-s SOCKETS]
#                           [-V OPTIONS] [BASELINE OTHER]:
# scripts/validate.sh in the test bed, a series a kernel (default 6.1 and
# 6.12): BOOTS boots of each (default 2), interleaved (BASELINE, OTHER,
# BASELINE, OTHER ...), each CPUS vCPUs (default 2) on SOCKETS sockets
# (default 1) with idle=poll in real time (under
# instruction counting each second the battery measures would last a
# minute), running validate.sh -S with the test bed's sizes (-n RUNS, default
# 2, -w 0 -i 20000 -d 1 -l 20: the storm CPU0 -> CPU1, the battery at 1
# and 2); each boot's validation comes back into its kernel's series,
# DIR/KERNEL (DIR/KERNEL-a and DIR/KERNEL-b when both are one kernel: an
# A/A); a boot whose validation failed (a run the host's load cut short)
# is kept aside and booted once more. Then validate.sh -r DIR/OTHER DIR/BASELINE writes the report,
# DIR/report.txt, and prints it.
#   -b      reuse the kernels' images of vm/mkinitramfs.sh when built
#   -B BOOTS  boots a kernel (2 to 20: the boot is the report's unit)
#   -n RUNS   validate.sh's runs a step and boot (2 to 20)
#   -o DIR  where everything goes (default build/validate-<date>)
#   -c CPUS, -s SOCKETS  the guest's (boot.sh's -c and -s)
#   -V OPTIONS  more options of validate.sh, words (e.g. "-c 0:2", the
#           storm's and placement's CPUs)
#
# Exit: 0 every step of both kernels ran and was compared (the report's
# exit 0 or 1: a step may regress between two kernels, and in real time
# the storm's runtime follows the host's load, not SM_IDLE: the demo
# shows that under instruction counting); 1 else; 2 usage.
set -euo pipefail
# shellcheck source=../../../vm/lib.sh
. "$(dirname "$0")/../../../vm/lib.sh"

# shellcheck disable=SC2034 # read by the usage helpers of scripts/lib.sh
USAGE="$PROG [-b] [-B BOOTS] [-n RUNS] [-o DIR] [-c CPUS] [-s SOCKETS] [-V OPTIONS] [BASELINE OTHER]"
out="" reuse=0 boots=2 runs=2 cpus=2 sockets=1 vopts=()
while getopts bB:n:o:c:s:V:h opt; do
	case $opt in
	b) reuse=1 ;;
	B) boots=$OPTARG ;;
	n) runs=$OPTARG ;;
	o) out=$OPTARG ;;
	c) cpus=$OPTARG ;;
	s) sockets=$OPTARG ;;
	V) read -ra vopts <<<"$OPTARG" ;;
	*) usage_opt "$opt" ;;
	esac
done
shift $((OPTIND - 1))
parse_uint -B "$boots" 20 2
parse_uint -n "$runs" 20 2
parse_uint -c "$cpus" 64 2
parse_uint -s "$sockets" "$cpus" 1
case $# in
0) set -- 6.1 6.12 ;;
2) ;;
*) usage_error "name a baseline and another kernel, or none" ;;
esac
out=${out:-$BUILD/validate-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
base=$1 other=$2
if [ "$1" = "$2" ]; then base=$1-a other=$2-b; fi
for s in "$base" "$other"; do
	[ ! -e "$out/$s" ] || die "$out/$s exists: give a new -o"
done
for k in "$@"; do
	"$VM_DIR/fetch-kernel.sh" "$k" >/dev/null
	kernel_image "$reuse" "$k"
done

# add SERIES GUEST: the guest's series GUEST (this boot's, boot 1) added
# to SERIES as its next boot.
add() {
	local n
	[ -f "$1/series.txt" ] || head -n 1 "$2/series.txt" >"$1/series.txt"
	n=$(($(grep -c '^boot=' "$1/series.txt" || :) + 1))
	sed -n "s/^boot=1|/boot=$n|/p" "$2/series.txt" >>"$1/series.txt"
	mv "$2/boot-1" "$1/boot-$n"
}

# boot SIDE KERNEL I: boot I of SIDE's series; its validation added to the
# series when it completed, else kept aside as DIR/SIDE.failed-I-TRY
# (a run the host's load cut short: cyclictest's half-cycles rule) and
# the boot tried once more; a second failure ends the test.
boot() {
	local s=$1 k=$2 i=$3 t rc
	for t in 1 2; do
		rc=0
		"$VM_DIR/boot.sh" -c "$cpus" -s "$sockets" -p -T 900 -a "IPISTORM_SM_IDLE=$(sm_idle "$k")" \
			-l "$out/console-$s-$i-$t.log" "$k" -- validate-series -n "$runs" -w 0 -i 20000 -d 1 -l 20 "${vopts[@]}" \
			>"$out/guest-$s-$i-$t.txt" || rc=$?
		unpack_block IPISTORM_RESULT_BEGIN IPISTORM_RESULT_END "$out/guest-$s-$i-$t.txt" "$out/$s.tar" 2>"$out/guest-$s-$i-$t.log" ||
			{ cat "$out/guest-$s-$i-$t.log" >&2; die "$k: no validate directory came back (boot $i, exit $rc)"; }
		mkdir -p "$out/tmp" "$out/$s"
		tar -C "$out/tmp" -xf "$out/$s.tar"
		rm "$out/$s.tar"
		if [ "$rc" = 0 ]; then
			add "$out/$s" "$out/tmp/result"
			rm -r "$out/tmp"
			return 0
		fi
		mv "$out/tmp/result" "$out/$s.failed-$i-$t"
		rm -r "$out/tmp"
		cat "$out/guest-$s-$i-$t.log" >&2
		log "$k: validate.sh failed in the guest (boot $i, try $t, exit $rc): kept as $out/$s.failed-$i-$t"
	done
	die "$k: validate.sh failed in the guest twice (boot $i)"
}

i=1
while [ "$i" -le "$boots" ]; do
	boot "$base" "$1" "$i"
	boot "$other" "$2" "$i"
	i=$((i + 1))
done

rc=0
"$TOP/scripts/validate.sh" -r "$out/$other" "$out/$base" >"$out/report.txt" 2>"$out/report.err" || rc=$?
cat "$out/report.txt"
[ "$rc" -le 1 ] || { cat "$out/report.err" >&2; die "the report compared not every step (exit $rc)"; }
# a row per step of the plan, each with a verdict, over the series
[ "$(sed -n 's/^step=//p' "$out/$other/boot-1/validate.txt" | cut -d'|' -f1 | tr '\n' ' ')" = \
	"$(awk '$NF == "regression" || $NF == "better" || $NF == "worse" || $NF == "REGRESSED" { print $1 }' "$out/report.txt" | tr '\n' ' ')" ] ||
	die "the report's table does not hold every step of the plan"
grep -q "^Series: $boots boots of $out/$other (A) against $boots of $out/$base (B, the baseline), begun in the order B A\( B A\)*;" "$out/report.txt" ||
	die "the report is not of two interleaved series of $boots boots"
echo "# validate: $2 against $1, $boots boots each, report $out/report.txt (exit $rc)"
