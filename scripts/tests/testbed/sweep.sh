#!/bin/bash
# tests/testbed/sweep.sh [-b] [-o DIR] [-n RUNS] [-C DIR] [BASELINE OTHER]: a
# topology sweep of ipistorm in the test bed, and its pivot report. Boots
# each kernel (default 6.1 and 6.12) once, 4 vCPUs on 2 sockets with
# idle=poll under instruction counting (vm/boot.sh -c 4 -s 2 -p -i): the
# guest runs scripts/sweep.sh -t all over ipistorm numipi=2000 wait=1,
# RUNS runs a cell (default 5; scripts/tests/testbed/guest-sweep.sh), and
# the sweep directories come back as DIR/BASELINE/sweep and
# DIR/OTHER/sweep. Then scripts/pivot.sh, BASELINE first
# (DIR/pivot.txt, .csv, .json), must say that no cell regressed (exit 0)
# and show OTHER's storm faster in every cell of the guest's classes,
# significant, with a geometric mean below 1 (SM_IDLE: 6.12 against
# 6.1); the other way round (DIR/pivot-reversed.txt) it must name every
# cell as a regression (exit 1).
#   -b       reuse the kernels' images of vm/mkinitramfs.sh when built
#   -o DIR   where everything goes (default build/sweep-<date>)
#   -n RUNS  runs per cell (default 5: with fewer, no cell can be
#            significant after the correction)
#   -C DIR   boot nothing: only check the sweeps of an earlier run's DIR,
#            as above (the reports into a temporary directory)
#
# Exit: 0 the reports show that, 1 they do not or a step failed, 2 usage.
set -euo pipefail
# shellcheck source=../../../vm/lib.sh
. "$(dirname "$0")/../../../vm/lib.sh"

# shellcheck disable=SC2034 # read by the usage helpers of scripts/lib.sh
USAGE="$PROG [-b] [-o DIR] [-n RUNS] [-C DIR] [BASELINE OTHER]"
out="" reuse=0 runs=5 check=""
while getopts bo:n:C:h opt; do
	case $opt in
	b) reuse=1 ;;
	o) out=$OPTARG ;;
	n) runs=$OPTARG ;;
	C) check=$OPTARG ;;
	*) usage_opt "$opt" ;;
	esac
done
parse_uint -n "$runs" 99 2
kernels=("${@:OPTIND}")
case ${#kernels[@]} in
0) kernels=(6.1 6.12) ;;
2) ;;
*) usage_error "name two kernels, the baseline first, or none" ;;
esac
t0=$(date +%s)
step() { log "[$(($(date +%s) - t0)) s] $*"; }
if [ -n "$check" ]; then
	src=$check
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
else
	out=${out:-$BUILD/sweep-$(date +%Y%m%d-%H%M%S)}
	[ ! -e "$out" ] || die "$out exists: choose a new directory"
	mkdir -p "$out"
	# The guest's addition: the sweep's test, as a test folder of the suite.
	overlay=$out/overlay
	mkdir -p "$overlay/suite/sweep/tests"
	cp "$TOP/scripts/tests/testbed/guest-sweep.sh" "$overlay/suite/sweep/tests/sweep.sh"
	bed_images "$reuse" "$overlay" "$out" "${kernels[@]}"
	for k in "${kernels[@]}"; do
		step "$k: sweep ($runs runs a cell)"
		bed_boot "$out" "$k" sweep sweep_run "SWEEP_RUN=$runs" "-c 4 -s 2 -p -i"
		bed_result "$out" "$k" sweep SWEEP_RESULT
		mkdir -p "$out/$k"
		tar -C "$out/$k" -xzf "$out/$k-sweep.tar.gz"
		grep -v '^# [A-Za-z0-9+/=]*$' "$out/$k-sweep.ktap" | grep -E '^# sweep.sh: ' >&2 || true
	done
	src=$out
fi
a=$src/${kernels[0]}/sweep b=$src/${kernels[1]}/sweep

step "pivot.sh ${kernels[0]} ${kernels[1]}"
rc=0
"$TOP/scripts/pivot.sh" "$a" "$b" >"$out/pivot.txt" 2>"$out/pivot.err" || rc=$?
cat "$out/pivot.txt" "$out/pivot.err"
[ "$rc" = 0 ] || die "pivot.sh exit $rc, want 0: ${kernels[1]} regressed somewhere"
"$TOP/scripts/pivot.sh" -f csv "$a" "$b" >"$out/pivot.csv"
"$TOP/scripts/pivot.sh" -f json "$a" "$b" >"$out/pivot.json"
# The shape: a row per cell of the index, each with OTHER faster and
# significant (the CSV's columns by name), the geometric mean below 1.
cells=$(grep -c '^cell=' "$a/sweep.txt")
[ "$cells" -ge 2 ] || die "the guest's sweep has $cells cells, want 2 classes or more"
awk -F, -v cells="$cells" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["record"] == "cell" && $c["p"] != "" {
		n++
		if (!($c["gain_pct"] > 0) || $c["significant"] != 1) { print "cell " $c["cell"] ": gain " $c["gain_pct"] "%, significant " $c["significant"]; bad = 1 }
	}
	# the last geomean record: OTHER
	$c["record"] == "geomean" { gm = $c["norm_mean"] }
	END {
		if (n != cells) { print n " cells compared, want " cells; bad = 1 }
		if (!(gm > 0 && gm < 1)) { print "geomean " gm ", want below 1"; bad = 1 }
		exit bad
	}' "$out/pivot.csv" || die "the pivot report does not show ${kernels[1]} faster in every cell ($out/pivot.csv)"
[ "$(grep -c ' \*$' "$out/pivot.txt")" = "$cells" ] || die "the text report does not mark $cells cells significant"
grep -qx 'Verdict (threshold 5%): no significant regression' "$out/pivot.txt" || die "the text report's verdict is not 'no significant regression'"

step "pivot.sh ${kernels[1]} ${kernels[0]}: every cell a regression"
rc=0
"$TOP/scripts/pivot.sh" "$b" "$a" >"$out/pivot-reversed.txt" 2>"$out/pivot-reversed.err" || rc=$?
[ "$rc" = 1 ] || die "pivot.sh the other way round: exit $rc, want 1"
[ "$(grep -c '^pivot.sh: regression: ' "$out/pivot-reversed.err")" = "$cells" ] ||
	die "pivot.sh the other way round names $(grep -c '^pivot.sh: regression: ' "$out/pivot-reversed.err") of $cells cells"
step "verdict: ${kernels[1]} faster than ${kernels[0]} in each of the $cells cells, significant after Holm-Bonferroni (sweeps in $src)"
