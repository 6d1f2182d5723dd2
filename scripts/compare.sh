#!/bin/bash
# compare.sh: compare result directories of run.sh against a baseline.
#
#   compare.sh [-f text|csv|json] [-l LABEL,...] [-a ALPHA] [-t PCT] BASELINE OTHER...
#     -f  output format (default text); csv and json are ipistorm-compare/1
#     -l  labels of the directories, comma-separated (default: the kernel
#         release in each meta.txt)
#     -a  significance level of Welch's t-test (default 0.05)
#     -t  regression threshold in percent (default 5)
#
# Every directory must hold meta.txt and iter-*.txt of the same bench with
# the same params and storm. Statistics are over the iterations: arithmetic
# mean, sample standard deviation, Welch's two-sided t-test against the
# baseline. Exit: 0 no significant regression beyond the threshold, 1 some
# metric regressed significantly by more than -t percent (named on stderr),
# 2 usage or bad input (nothing written on stdout then).
set -euo pipefail

usage() {
	echo "usage: $0 [-f text|csv|json] [-l LABEL,...] [-a ALPHA] [-t PCT] BASELINE_DIR OTHER_DIR..." >&2
	exit 2
}
bad() { echo "compare.sh: $*" >&2; exit 2; }

fmt=text labels="" alpha=0.05 thresh=5
while getopts f:l:a:t:h opt; do
	case $opt in
	f) fmt=$OPTARG ;;
	l) labels=$OPTARG ;;
	a) alpha=$OPTARG ;;
	t) thresh=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[[ $fmt == text || $fmt == csv || $fmt == json ]] || { echo "compare.sh: -f: unknown format '$fmt'" >&2; usage; }
[[ $alpha =~ ^0?\.[0-9]+$ ]] || { echo "compare.sh: -a: '$alpha' is not a level between 0 and 1" >&2; usage; }
[[ $thresh =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "compare.sh: -t: '$thresh' is not a percentage" >&2; usage; }
(($# >= 2)) || { echo "compare.sh: give a baseline and at least one other directory" >&2; usage; }

# meta DIR KEY: a key of DIR/meta.txt (empty when absent).
meta() { sed -n "s/^$2=//p" "$1/meta.txt" | head -n 1; }

IFS=, read -r -a lab <<<"$labels"
if [[ -n $labels ]] && ((${#lab[@]} != $#)); then
	bad "-l gives ${#lab[@]} labels for $# directories"
fi
args=()
i=0
for d in "$@"; do
	[[ -d $d ]] || bad "$d: no such directory"
	[[ -f $d/meta.txt ]] || bad "$d: no meta.txt (not a run.sh result directory)"
	[[ $(meta "$d" format) == ipistorm-run/1 ]] ||
		bad "$d/meta.txt: format is '$(meta "$d" format)', want ipistorm-run/1"
	[[ $(meta "$d" status) == ok ]] ||
		bad "$d/meta.txt: status is '$(meta "$d" status)', not ok: the run did not complete"
	shopt -s nullglob
	iters=("$d"/iter-[0-9]*.txt)
	shopt -u nullglob
	((${#iters[@]} > 0)) || bad "$d: no iter-*.txt result files"
	for f in "${iters[@]}"; do
		[[ -s $f ]] || bad "$f: empty result file"
	done
	for k in bench params storm; do
		[[ $(meta "$d" "$k") == $(meta "$1" "$k") ]] ||
			bad "$d: $k '$(meta "$d" "$k")' differs from the baseline's '$(meta "$1" "$k")' ($1)"
	done
	label=${lab[i]:-$(meta "$d" kernel)}
	[[ -n $label ]] || label=$d
	args+=("d=$i" "label=$label" "dir=$d" "${iters[@]}")
	i=$((i + 1))
done

bench=$(meta "$1" bench)
case $bench in
ipistorm)
	title=time primary=runtime_ns
	metrics="runtime_ns:lower total.ns_per_ipi:lower total.ipis_per_sec:higher total.lat_p50_ns:lower total.lat_p99_ns:lower total.poll_pct:higher"
	;;
idle_reentry)
	title=time primary=total.total_mean_ns
	metrics="total.total_mean_ns:lower total.total_p50_ns:lower total.total_p99_ns:lower total.sched_mean_ns:lower total.flush_mean_ns:lower total.fast_pct:higher total.reentries:none"
	;;
nohz_csd)
	# Counts over the same duration and load: kicks that ended in a nohz
	# idle balance, kicks dropped, ksoftirqd woken from a kick.
	title=balances primary=total.balanced
	metrics="total.balanced:higher total.kicks:none total.kick_poll:none total.dropped:lower total.ksoftirqd_wakeups:lower"
	;;
*) bad "$1/meta.txt: unknown bench '$bench'" ;;
esac

out=$(mktemp)
trap 'rm -f "$out"' EXIT
set +e
awk -v metrics="$metrics" -v primary="$primary" -v title="$title" -v fmt="$fmt" -v alpha="$alpha" \
	-v thresh="$thresh" -v bench="$bench" -v params="$(meta "$1" params)" \
	-f "$(dirname "$0")/compare.awk" "${args[@]}" >"$out"
rc=$?
set -e
# Output only when the input was good.
((rc == 2)) || cat "$out"
exit "$rc"
