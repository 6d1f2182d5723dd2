#!/bin/bash
# plot.sh: gnuplot PNGs of run.sh results.
#
#   plot.sh [-n] hist DIR...
#       latency histogram of each result directory, summed over its
#       iterations (ipistorm: *.lat_hist_ns.*, idle_reentry:
#       *.total_hist_ns.*, nohz_csd: *.delay_hist_ns.*), log x:
#       DIR/latency-hist.{dat,gp,png}
#   plot.sh [-n] [-o PREFIX] bars BASELINE OTHER...
#       normalized primary metric, mean +- stddev, per directory, from
#       `compare.sh -f csv`: PREFIX.{csv,dat,gp,png}
#       (default PREFIX: BASELINE's parent/compare-BASELINE-vs-LAST)
#     -n  write the data and the gnuplot input only, do not run gnuplot
#
# Existing files are never overwritten. Exit: 0 ok, 1 failure (no
# histogram lines, gnuplot missing or failing, compare.sh refusing), 2 usage.
set -euo pipefail

usage() {
	echo "usage: $0 [-n] hist DIR... | $0 [-n] [-o PREFIX] bars BASELINE OTHER..." >&2
	exit 2
}
die() { echo "plot.sh: $*" >&2; exit 1; }
here=$(dirname "$0")

render=1 prefix=""
while getopts no:h opt; do
	case $opt in
	n) render=0 ;;
	o) prefix=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
(($# >= 2)) || usage
what=$1
shift
((render == 0)) || command -v gnuplot >/dev/null ||
	die "gnuplot not found: install it (Debian package gnuplot-nox), or use -n"

# fresh FILE...: refuse to overwrite.
fresh() {
	for f in "$@"; do [[ ! -e $f ]] || die "$f exists: refusing to overwrite it"; done
}
run_gnuplot() { ((render == 0)) || gnuplot "$1" || die "gnuplot $1 failed"; }

hist() {
	local d=$1 key label
	[[ -f $d/meta.txt ]] || die "$d: no meta.txt (not a run.sh result directory)"
	case $(sed -n 's/^bench=//p' "$d/meta.txt") in
	ipistorm) key=lat ;;
	idle_reentry) key=total ;;
	nohz_csd) key=delay ;;
	*) die "$d/meta.txt: unknown bench" ;;
	esac
	label=$(sed -n 's/^kernel=//p' "$d/meta.txt")
	fresh "$d/latency-hist.dat" "$d/latency-hist.gp" "$d/latency-hist.png"
	local tmp
	tmp=$(mktemp)
	# lower bound, calls in the bucket, summed over senders/CPUs and runs
	cat "$d"/iter-[0-9]*.txt 2>/dev/null | awk -F= -v re="\\\\.${key}_hist_ns\\\\.[0-9]+$" '
		$1 ~ re { b = $1; sub(/.*\./, "", b); n[b + 0] += $2 }
		END { for (b in n) print b, n[b] }' | sort -n >"$tmp"
	if [[ ! -s $tmp ]]; then
		rm -f "$tmp"
		die "$d: no ${key}_hist_ns lines (results from the kernel log have none; use run.sh's debugfs results)"
	fi
	{ echo "# ${key}_hist_ns: lower_ns calls (all iterations of $d)"; cat "$tmp"; } >"$d/latency-hist.dat"
	rm -f "$tmp"
	cat >"$d/latency-hist.gp" <<EOF
set terminal pngcairo noenhanced size 900,500
set output '$d/latency-hist.png'
set title "${key} latency, ${label//\"/}"
set xlabel "ns (bucket lower bound)"
set ylabel "calls"
set logscale x
set grid
plot '$d/latency-hist.dat' using 1:2 with steps title "${label//\"/}"
EOF
	run_gnuplot "$d/latency-hist.gp"
	if ((render)); then echo "$d/latency-hist.png"; else echo "$d/latency-hist.gp"; fi
}

bars() {
	local base=$1 last=${*: -1}
	prefix=${prefix:-$(dirname "$base")/compare-$(basename "$base")-vs-$(basename "$last")}
	fresh "$prefix.csv" "$prefix.dat" "$prefix.gp" "$prefix.png"
	local csv rc=0
	csv=$("$here/compare.sh" -f csv "$@") || rc=$?
	((rc != 2)) || die "compare.sh refused the directories"
	printf '%s\n' "$csv" >"$prefix.csv"
	# the primary metric is the first one of the CSV; columns by name
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["record"] != "metric" { next }
		m == "" { m = $c["name"] } $c["name"] != m { exit }
		{ l = $c["label"]; gsub(/"/, "", l); printf "%d \"%s\" %s %s\n", n++, l, $c["norm_mean"], $c["norm_stddev"] }' \
		"$prefix.csv" >"$prefix.dat"
	local metric dir
	metric=$(awk -F, 'NR == 2 { print $3 }' "$prefix.csv")
	dir=$(awk -F, 'NR == 2 { print $4 }' "$prefix.csv")
	cat >"$prefix.gp" <<EOF
set terminal pngcairo noenhanced size 900,500
set output '$prefix.png'
set title "$metric normalized to the baseline (mean, stddev)"
set ylabel "$metric / baseline mean ($dir is better)"
set style fill solid 0.5
set boxwidth 0.6
set yrange [0:*]
set grid y
plot '$prefix.dat' using 1:3:xtic(2) with boxes notitle, \\
     '' using 1:3:4 with yerrorbars notitle
EOF
	run_gnuplot "$prefix.gp"
	if ((render)); then echo "$prefix.png"; else echo "$prefix.gp"; fi
}

case $what in
hist) for d in "$@"; do hist "$d"; done ;;
bars) bars "$@" ;;
*) echo "plot.sh: unknown plot '$what'" >&2; usage ;;
esac
