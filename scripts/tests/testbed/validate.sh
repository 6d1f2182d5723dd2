#!/bin/bash
# tests/testbed/validate.sh [-b] [-o DIR] [BASELINE OTHER]: scripts/validate.sh in
# the test bed. Per kernel (default 6.1 and 6.12) one boot, 2 vCPUs with
# idle=poll in real time (under instruction counting each second the
# battery measures would last a minute), runs
# validate.sh with the test bed's sizes (-n 3 -w 0 -i 20000 -d 1 -l 20:
# the storm CPU0 -> CPU1, the battery at 1 and 2) and sends its directory
# back into DIR/KERNEL; then validate.sh -r DIR/OTHER DIR/BASELINE writes
# the report, DIR/report.txt, and prints it.
#   -b      reuse the kernels' images of vm/mkinitramfs.sh when built
#   -o DIR  where everything goes (default build/validate-<date>)
#
# Exit: 0 every step of both kernels ran and was compared (the report's
# exit 0 or 1: a step may regress between two kernels, and in real time
# the storm's runtime follows the host's load, not SM_IDLE: the demo
# shows that under instruction counting); 1 else; 2 usage.
set -euo pipefail
# shellcheck source=../../../vm/lib.sh
. "$(dirname "$0")/../../../vm/lib.sh"

# shellcheck disable=SC2034 # read by the usage helpers of scripts/lib.sh
USAGE="$PROG [-b] [-o DIR] [BASELINE OTHER]"
out="" reuse=0
while getopts bo:h opt; do
	case $opt in
	b) reuse=1 ;;
	o) out=$OPTARG ;;
	*) usage_opt "$opt" ;;
	esac
done
shift $((OPTIND - 1))
case $# in
0) set -- 6.1 6.12 ;;
2) ;;
*) usage_error "name a baseline and another kernel, or none" ;;
esac
out=${out:-$BUILD/validate-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"

for k in "$@"; do
	[ ! -e "$out/$k" ] || die "$out/$k exists: give a new -o"
	"$VM_DIR/fetch-kernel.sh" "$k" >/dev/null
	kernel_image "$reuse" "$k"
	rc=0
	"$VM_DIR/boot.sh" -c 2 -p -T 900 -a "IPISTORM_SM_IDLE=$(sm_idle "$k")" \
		-l "$out/console-$k.log" "$k" -- validate -n 3 -w 0 -i 20000 -d 1 -l 20 \
		>"$out/guest-$k.txt" || rc=$?
	unpack_block IPISTORM_RESULT_BEGIN IPISTORM_RESULT_END "$out/guest-$k.txt" "$out/$k.tar" 2>"$out/guest-$k.log" ||
		{ cat "$out/guest-$k.log" >&2; die "$k: no validate directory came back (boot exit $rc)"; }
	mkdir -p "$out/tmp-$k"
	tar -C "$out/tmp-$k" -xf "$out/$k.tar"
	mv "$out/tmp-$k/result" "$out/$k"
	rmdir "$out/tmp-$k"
	rm "$out/$k.tar"
	[ "$rc" = 0 ] || { cat "$out/guest-$k.log" >&2; die "$k: validate.sh failed in the guest (exit $rc)"; }
done

rc=0
"$TOP/scripts/validate.sh" -r "$out/$2" "$out/$1" >"$out/report.txt" 2>"$out/report.err" || rc=$?
cat "$out/report.txt"
[ "$rc" -le 1 ] || { cat "$out/report.err" >&2; die "the report compared not every step (exit $rc)"; }
# a row per step of the plan, each with a verdict
[ "$(sed -n 's/^step=//p' "$out/$2/validate.txt" | cut -d'|' -f1 | tr '\n' ' ')" = \
	"$(awk '$NF == "regression" || $NF == "better" || $NF == "worse" || $NF == "REGRESSED" { print $1 }' "$out/report.txt" | tr '\n' ' ')" ] ||
	die "the report's table does not hold every step of the plan"
echo "# validate: $2 against $1, report $out/report.txt (exit $rc)"
