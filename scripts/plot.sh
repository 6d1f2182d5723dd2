#!/bin/bash
# plot.sh: gnuplot PNGs of run.sh results.
#
#   plot.sh [-n] [-o PREFIX] hist DIR...
#       latency distribution of each result directory, summed over its
#       iterations (the *.KEY_hist_ns.* lines, KEY the bench's
#       declared hist=: ipistorm lat, idle_reentry total, nohz_csd
#       delay), all directories on one set of axes as tail distributions
#       (share of calls in or above each bucket, steps: the main bucket
#       and the tail on one picture), log scales where the data span a
#       decade or more, one legend entry per kernel: PREFIX.{dat,gp,png}
#       (default PREFIX: DIR/latency-hist for one directory, else the first
#       one's parent/hist-FIRST-vs-LAST)
#   plot.sh [-n] [-o PREFIX] tail DIR...
#       percentile tail of each result directory: the mean over its
#       iterations of each key of the bench's declared tail= (patterns,
#       % the percentile: 50 75 90 95 99 995 999, 995 = 99.5), x the
#       percentile on a nines axis (50, 90, 99, 99.9 spaced as
#       -log10(1 - p)), y the latency in ns, a line per key pattern and
#       directory, log y where the means span a decade or more; a
#       percentile no run has is not drawn: PREFIX.{dat,gp,png}
#       (default PREFIX: DIR/tail for one directory, else the first one's
#       parent/tail-FIRST-vs-LAST); a bench with an empty tail= is refused
#   plot.sh [-n] [-o PREFIX] bars BASELINE OTHER...
#       primary metric per directory, mean +- stddev normalized to the
#       baseline (absolute when the baseline mean is 0), from
#       `compare.sh -f csv`; each bar carries its gain, "*" when the
#       difference is significant, "n/a" instead of an error bar for one
#       run: PREFIX.{csv,dat,gp,png}
#       (default PREFIX: BASELINE's parent/compare-BASELINE-vs-LAST)
#   plot.sh [-n] [-o PREFIX] [-m METRIC] runs DIR...
#       every run of each directory on one axis, a row per directory (a
#       strip plot: a point per iteration, the median as a bar, the mean as
#       a diamond), so a bimodal kernel shows at a glance; METRIC (default
#       the bench's declared primary one: runtime_ns, total.total_mean_ns,
#       total.balanced) from each iter-*.txt: PREFIX.{dat,gp,png}
#       (default PREFIX: DIR/runs for one directory, else the first one's
#       parent/runs-FIRST-vs-LAST)
#   plot.sh [-n] [-o PREFIX] [-m METRIC] pivot BASELINE_SWEEP OTHER_SWEEP...
#       the pivot of sweeps (sweep.sh), from `pivot.sh -f csv`: a group of
#       bars per cell, a bar per other sweep, its mean normalized to the
#       baseline's (a dashed line at 1) +- its stddev over the baseline
#       mean, above each its gain, "*" when significant after pivot.sh's
#       correction; METRIC (default the bench's primary one) is pivot.sh's
#       -k: PREFIX.{csv,dat,gp,png} (default PREFIX: BASELINE_SWEEP's
#       parent/pivot-BASELINE_SWEEP-vs-LAST)
#     -n  write the data and the gnuplot input only, do not run gnuplot
#     -m  the metric of `runs` and `pivot`
#
# Existing files are never overwritten. Exit: 0 ok, 1 failure (no
# histogram lines or tail keys, no tail declared, gnuplot missing or
# failing, compare.sh or pivot.sh refusing), 2 usage.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG [-n] [-o PREFIX] hist DIR... | $PROG [-n] [-o PREFIX] tail DIR... | $PROG [-n] [-o PREFIX] bars BASELINE OTHER... | $PROG [-n] [-o PREFIX] [-m METRIC] runs DIR... | $PROG [-n] [-o PREFIX] [-m METRIC] pivot BASELINE_SWEEP OTHER_SWEEP..."

here=$(dirname "$0")
top=$here/..

render=1 prefix="" metric=""
while getopts no:m:h opt; do
	case $opt in
	n) render=0 ;;
	o) prefix=$OPTARG ;;
	m)
		metric=$OPTARG
		[[ $metric =~ ^[A-Za-z0-9_.]+$ ]] || usage_error "-m: '$metric' is not a metric name"
		;;
	*) usage_opt "$opt" ;;
	esac
done
shift $((OPTIND - 1))
(($# >= 2)) || usage_error
what=$1
shift
# The directories' names are labels, the prefix names the gnuplot input's
# files: a newline in either would end a gnuplot command.
check_text -o "$prefix"
for d in "$@"; do
	check_text DIR "$d"
done
((render == 0)) || command -v gnuplot >/dev/null ||
	die "gnuplot not found: install it (Debian package gnuplot-nox), or use -n"

# fresh FILE...: refuse to overwrite.
fresh() {
	for f in "$@"; do [[ ! -e $f ]] || die "$f exists: refusing to overwrite it"; done
}
run_gnuplot() { ((render == 0)) || gnuplot "$1" || die "gnuplot $1 failed"; }
# gq STRING: STRING for a gnuplot double-quoted string.
gq() {
	local s=${1//\\/\\\\}
	printf '%s' "${s//\"/\\\"}"
}
meta() { key "$2" "$1/meta.txt"; }
# declared DIR BENCH: BENCH is a module of the suite with a good
# declaration (BENCH/bench.conf, docs/bench.md).
declared() {
	[[ " $(suite_benches "$top" | tr '\n' ' ')" == *" $2 "* ]] || die "$1/meta.txt: unknown bench '$2'"
	bench_check "$top" "$2" || die "cannot plot $2: its declaration $2/bench.conf is broken"
}

# one_bench DIR...: every DIR a run.sh result directory of one benchmark,
# declared and sound; sets the caller's bench to its name.
one_bench() {
	local d
	bench=""
	for d in "$@"; do
		[[ -f $d/meta.txt ]] || die "$d: no meta.txt (not a run.sh result directory)"
		[[ -z $bench || $(meta "$d" bench) == "$bench" ]] ||
			die "$d: bench '$(meta "$d" bench)', not $bench as $1"
		bench=$(meta "$d" bench)
	done
	declared "$1" "$bench"
}

hist() {
	local d key what bench="" n=0 labels=() dirs=("$@") tmp i j logx
	one_bench "${dirs[@]}"
	for d in "${dirs[@]}"; do labels+=("$(meta "$d" kernel)"); done
	key=$(bench_get "$top" "$bench" hist)
	what=$(bench_get "$top" "$bench" hist_label)
	# One legend entry per kernel: a release shared by two directories
	# gets the directory's name.
	for ((i = 0; i < ${#labels[@]}; i++)); do
		[[ -n ${labels[i]} ]] || labels[i]=${dirs[i]}
	done
	local orig=("${labels[@]}")
	for ((i = 0; i < ${#labels[@]}; i++)); do
		for ((j = 0; j < ${#labels[@]}; j++)); do
			if ((i != j)) && [[ ${orig[i]} == "${orig[j]}" ]]; then
				labels[i]="${orig[i]} ($(basename -- "${dirs[i]}"))"
				break
			fi
		done
	done
	if [[ -z $prefix ]]; then
		if ((${#dirs[@]} == 1)); then
			prefix=${dirs[0]}/latency-hist
		else
			prefix=$(dirname -- "${dirs[0]}")/hist-$(basename -- "${dirs[0]}")-vs-$(basename -- "${dirs[-1]}")
		fi
	fi
	fresh "$prefix.dat" "$prefix.gp" "$prefix.png"
	tmp=$(mktemp)
	for d in "${dirs[@]}"; do
		# lower bound, calls in the bucket (summed over senders/CPUs and
		# runs), share of all calls in it or above; a gnuplot index each
		cat -- "$d"/iter-[0-9]*.txt 2>/dev/null | awk -F= -v re="\\\\.${key}_hist_ns\\\\.[0-9]+$" '
			$1 ~ re { b = $1; sub(/.*\./, "", b); n[b + 0] += $2 }
			END { for (b in n) print b, n[b] }' | sort -n | awk -v dir="$d" '
			{ b[NR] = $1; c[NR] = $2; t += $2 }
			END {
				if (!NR) exit 1
				printf "# %s: lower_ns calls share_at_or_above\n", dir
				for (i = 1; i <= NR; i++) { printf "%d %d %.9g\n", b[i], c[i], (t - s) / t; s += c[i] }
				printf "\n\n"
			}' >>"$tmp" || {
			rm -f "$tmp"
			die "$d: no ${key}_hist_ns lines (results from the kernel log have none; use run.sh's debugfs results)"
		}
		n=$((n + 1))
	done
	{ echo "# ${key}_hist_ns: one block (gnuplot index) per directory, in order"; cat "$tmp"; } >"$prefix.dat"
	rm -f "$tmp"
	# log x when the buckets span a decade or more, log y when the shares do
	logx=$(awk '!/^#/ && NF == 3 { if (min == "" || $1 < min) min = $1; if ($1 > max) max = $1
			if (ymin == "" || $3 < ymin) ymin = $3 }
		END { print (min > 0 && max / min >= 10) ? "set logscale x" : "unset logscale x"
			print ymin <= 0.1 ? "set logscale y\nset yrange [*:1.5]" : "set yrange [0:1.05]" }' "$prefix.dat")
	{
		cat <<EOF
set terminal pngcairo noenhanced size 900,500
set output '$prefix.png'
set title "$(gq "$what") (ns), tail distribution over all runs"
set xlabel "bucket lower bound"
set ylabel "share of calls in the bucket or above"
$logx
set key top right
set grid
set format y "%g"
set format x "%.0s%c"
EOF
		for ((i = 0; i < n; i++)); do
			((i)) && printf ', \\\n     ' || printf 'plot '
			printf "'%s' index %d using 1:3 with steps lw 2 title \"%s\"" "$prefix.dat" "$i" "$(gq "${labels[i]}")"
		done
		printf '\n'
	} >"$prefix.gp"
	run_gnuplot "$prefix.gp"
	if ((render)); then echo "$prefix.png"; else echo "$prefix.gp"; fi
}

# describe BENCH METRIC: what it is, with its unit, once: the declared
# label of the primary metric, else the key.
describe() {
	local unit name=$2
	unit=$(bench_unit "$top" "$1" "$2")
	if [[ $2 == "$(bench_get "$top" "$1" primary)" ]]; then
		name=$(bench_get "$top" "$1" primary_label)
	else
		case $unit in
		ns) name=${2%_ns} ;;
		pct) name=${2%_pct} ;;
		esac
	fi
	case $unit in
	pct) unit=% ;;
	per_sec) unit=1/s ;;
	esac
	echo "$name ($unit)"
}

bars() {
	local base=$1 last=${*: -1} csv rc=0 norm metric dir what ylabel
	prefix=${prefix:-$(dirname "$base")/compare-$(basename "$base")-vs-$(basename "$last")}
	fresh "$prefix.csv" "$prefix.dat" "$prefix.gp" "$prefix.png"
	csv=$("$here/compare.sh" -f csv "$@" 2>/dev/null) || rc=$?
	# 2 with a report: not comparable (one run), still drawn
	((rc != 2)) || [[ -n $csv ]] || die "compare.sh refused the directories"
	printf '%s\n' "$csv" >"$prefix.csv"
	# The primary metric is the first one of the CSV (columns by name).
	# Normalized to the baseline mean unless that is 0.
	norm=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["record"] == "metric" { print ($c["norm_mean"] == "" ? 0 : 1); exit }' "$prefix.csv")
	# x, label, value, error (NaN for one run: no bar), the mark above it
	awk -F, -v norm="$norm" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["record"] != "metric" { next }
		m == "" { m = $c["name"] } $c["name"] != m { exit }
		{
			l = $c["label"]; gsub(/"/, "", l)
			v = norm ? $c["norm_mean"] : $c["mean"]; e = norm ? $c["norm_stddev"] : $c["stddev"]
			g = $c["gain_pct"] != "" ? sprintf("%+.2f%%", $c["gain_pct"]) : sprintf("%+.2f abs", $c["abs_change"])
			mark = n == 0 ? "baseline" : g ($c["significant"] ? " *" : "")
			if (e == "") mark = mark ", n/a: 1 run"
			printf "%d \"%s\" %s %s \"%s\"\n", n++, l, v, e == "" ? "NaN" : e, mark
		}' "$prefix.csv" >"$prefix.dat"
	metric=$(awk -F, 'NR == 2 { print $3 }' "$prefix.csv")
	dir=$(awk -F, 'NR == 2 { print $4 }' "$prefix.csv")
	what=$(describe "$(meta "$base" bench)" "$metric")
	if ((norm)); then
		ylabel="mean / baseline mean ($dir is better)"
		what="$what, normalized to the baseline"
	else
		ylabel="mean ($dir is better; the baseline mean is 0)"
	fi
	cat >"$prefix.gp" <<EOF
set terminal pngcairo noenhanced size 900,500
set output '$prefix.png'
set title "$(gq "$what")\\nbars: mean, error bars: stddev, *: significant (compare.sh)"
set ylabel "$(gq "$ylabel")"
set style fill solid 0.5
set boxwidth 0.6
set yrange [0:*]
set offsets 0.5, 0.5, graph 0.15, 0
set grid y
plot '$prefix.dat' using 1:3:xtic(2) with boxes notitle, \\
     '' using 1:3:4 with yerrorbars lc rgb "black" pt -1 notitle, \\
     '' using 1:(\$3 + (valid(4) && \$4 == \$4 ? \$4 : 0)):5 with labels offset 0,1 notitle
EOF
	run_gnuplot "$prefix.gp"
	if ((render)); then echo "$prefix.png"; else echo "$prefix.gp"; fi
}

# labels DIR...: LABELS, the kernel release of each directory, the
# directory's name added where two share one.
labels() {
	local i j d orig
	LABELS=()
	for d in "$@"; do
		LABELS+=("$(meta "$d" kernel)")
		[[ -n ${LABELS[-1]} ]] || LABELS[-1]=$d
	done
	orig=("${LABELS[@]}")
	for ((i = 0; i < ${#LABELS[@]}; i++)); do
		for ((j = 0; j < ${#LABELS[@]}; j++)); do
			if ((i != j)) && [[ ${orig[i]} == "${orig[j]}" ]]; then
				LABELS[i]="${orig[i]} ($(basename -- "${!i}"))"
				break
			fi
		done
	done
}

runs() {
	local d bench="" dirs=("$@") i n=$# better tics="" f
	one_bench "${dirs[@]}"
	metric=${metric:-$(bench_get "$top" "$bench" primary)}
	case $(bench_direction "$top" "$bench" "$metric") in
	lower) better="lower is better" ;;
	higher) better="higher is better" ;;
	*) better="no direction" ;;
	esac
	labels "${dirs[@]}"
	if [[ -z $prefix ]]; then
		if ((n == 1)); then
			prefix=${dirs[0]}/runs
		else
			prefix=$(dirname -- "${dirs[0]}")/runs-$(basename -- "${dirs[0]}")-vs-$(basename -- "${dirs[-1]}")
		fi
	fi
	fresh "$prefix.dat" "$prefix.gp" "$prefix.png"
	# Block 0: a line per run, "row value offset": the runs of a row
	# sorted, consecutive ones spread over 5 heights so that close values
	# stay apart. Block 1: "row median mean" per directory.
	{
		echo "# $metric: row value offset (every run), then row median mean"
		for ((i = 0; i < n; i++)); do
			d=${dirs[i]}
			for f in "$d"/iter-[0-9]*.txt; do
				[[ -f $f ]] || die "$d: no iter-*.txt result files"
				awk -v k="$metric=" -v f="$f" 'index($0, k) == 1 { v = substr($0, length(k) + 1); found = 1 }
					END { if (!found || v !~ /^-?[0-9]+(\.[0-9]+)?$/) { print f ": no number for " substr(k, 1, length(k) - 1) >"/dev/stderr"; exit 1 }
						print v }' <"$f" || die "$f: no $metric"
			done | sort -g | awk -v row="$i" '{ printf "%d %s %.2f\n", row, $1, ((NR - 1) % 5 - 2) * 0.07 }'
		done
		printf '\n\n'
		for ((i = 0; i < n; i++)); do
			d=${dirs[i]}
			cat -- "$d"/iter-[0-9]*.txt | awk -v k="$metric=" -v row="$i" 'index($0, k) == 1 { v[++n] = substr($0, length(k) + 1) + 0; s += v[n] }
				END {
					for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
					printf "%d %.10g %.10g\n", row, n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2, s / n
				}'
		done
	} >"$prefix.dat"
	for ((i = 0; i < n; i++)); do
		tics+="${tics:+, }\"$(gq "${LABELS[i]}")\" $i"
	done
	cat >"$prefix.gp" <<EOF
set terminal pngcairo noenhanced size 900,$((160 + 70 * n))
set output '$prefix.png'
set title "$(gq "$(describe "$bench" "$metric")"), $better: every run\\npoints: runs, bar: median, diamond: mean"
set xlabel "$(gq "$(describe "$bench" "$metric")")"
set ytics ($tics)
set yrange [$n - 0.5:-0.5]
set grid x
set format x "%.1s%c"
set key off
plot '$prefix.dat' index 0 using 2:(\$1 + \$3):(\$1 + 1) with points pt 7 ps 1.3 lc variable, \\
     '' index 1 using 2:(\$1 - 0.3):(0):(0.6) with vectors nohead lw 3 lc rgb "black", \\
     '' index 1 using 3:1 with points pt 13 ps 2 lc rgb "black"
EOF
	run_gnuplot "$prefix.gp"
	if ((render)); then echo "$prefix.png"; else echo "$prefix.gp"; fi
}

# tail DIR...: the percentile tail of each directory, the mean over its
# iterations of each declared tail= key at each percentile, on a nines
# axis.
tail_plot() {
	local d bench="" dirs=("$@") i j n=0 pats what pat ticks logy
	one_bench "${dirs[@]}"
	read -r -a pats <<<"$(bench_get "$top" "$bench" tail)"
	((${#pats[@]})) || die "$bench declares no percentile tail (tail= of $bench/bench.conf is empty): nothing to plot"
	what=$(bench_get "$top" "$bench" tail_label)
	labels "${dirs[@]}"
	if [[ -z $prefix ]]; then
		if ((${#dirs[@]} == 1)); then
			prefix=${dirs[0]}/tail
		else
			prefix=$(dirname -- "${dirs[0]}")/tail-$(basename -- "${dirs[0]}")-vs-$(basename -- "${dirs[-1]}")
		fi
	fi
	fresh "$prefix.dat" "$prefix.gp" "$prefix.png"
	# A gnuplot block per directory and pattern: "percentile nines mean
	# runs" at each percentile some run has, the mean over those runs.
	trap 'rm -f "$prefix.dat.tmp"' EXIT
	{
		echo "# percentile tail (${pats[*]}): one block (gnuplot index) per directory and pattern, in order"
		for d in "${dirs[@]}"; do
			for f in "$d"/iter-[0-9]*.txt; do
				[[ -f $f ]] || die "$d: no iter-*.txt result files"
			done
			for pat in "${pats[@]}"; do
				cat -- "$d"/iter-[0-9]*.txt | awk -F= -v pat="$pat" -v dir="$d" '
					BEGIN {
						np = split("50 75 90 95 99 995 999", ps, " ")
						for (i = 1; i <= np; i++) { k = pat; sub(/%/, ps[i], k); at[k] = i }
					}
					($1 in at) && $2 ~ /^-?[0-9]+(\.[0-9]+)?$/ { i = at[$1]; s[i] += $2; c[i]++ }
					END {
						printf "# %s %s: percentile nines mean_ns runs\n", dir, pat
						for (i = 1; i <= np; i++) {
							if (!c[i]) continue
							p = substr(ps[i], 1, 2) (length(ps[i]) > 2 ? "." substr(ps[i], 3) : "")
							printf "%s %.6f %.10g %d\n", p, -log(1 - p / 100) / log(10), s[i] / c[i], c[i]
							any = 1
						}
						printf "\n\n"
						exit !any
					}' || die "$d: no ${pat//%/<percentile>} in its results (percentiles 50 75 90 95 99 995 999)"
				n=$((n + 1))
			done
		done
	} >"$prefix.dat.tmp"
	mv "$prefix.dat.tmp" "$prefix.dat"
	trap - EXIT
	# the tics at the percentiles drawn, log y where the means span a decade
	ticks=$(awk '!/^#/ && NF == 4 && !($1 in t) { t[$1] = 1; printf "%s\"%s\" %s", (n++ ? ", " : ""), $1, $2 }' "$prefix.dat")
	logy=$(awk '!/^#/ && NF == 4 { if (min == "" || $3 < min) min = $3; if ($3 > max) max = $3 }
		END { print (min > 0 && max / min >= 10) ? "set logscale y" : "unset logscale y" }' "$prefix.dat")
	{
		cat <<EOF
set terminal pngcairo noenhanced size 900,500
set output '$prefix.png'
set title "$(gq "$what") (ns), percentile tail, mean over all runs"
set xlabel "percentile (nines: 90, 99, 99.9 evenly spaced)"
set ylabel "latency (ns)"
set xtics ($ticks)
set xrange [0:3.2]
$logy
set key top left
set grid
set format y "%.0s%c"
EOF
		for ((i = 0, j = 0; i < ${#dirs[@]}; i++)); do
			for pat in "${pats[@]}"; do
				((j)) && printf ', \\\n     ' || printf 'plot '
				if ((${#pats[@]} > 1)); then
					printf "'%s' index %d using 2:3 with linespoints lw 2 title \"%s\"" "$prefix.dat" "$j" "$(gq "${LABELS[i]}: $pat")"
				else
					printf "'%s' index %d using 2:3 with linespoints lw 2 title \"%s\"" "$prefix.dat" "$j" "$(gq "${LABELS[i]}")"
				fi
				j=$((j + 1))
			done
		done
		printf '\n'
	} >"$prefix.gp"
	run_gnuplot "$prefix.gp"
	if ((render)); then echo "$prefix.png"; else echo "$prefix.gp"; fi
}

# pivot BASELINE OTHER...: the sweeps' cells, a group of bars each.
pivot() {
	local base=$1 last=${*: -1} csv rc=0 bench nb ncell dir what i
	prefix=${prefix:-$(dirname -- "$base")/pivot-$(basename -- "$base")-vs-$(basename -- "$last")}
	fresh "$prefix.csv" "$prefix.dat" "$prefix.gp" "$prefix.png"
	csv=$("$here/pivot.sh" -f csv ${metric:+-k "$metric"} "$@" 2>/dev/null) || rc=$?
	# 1 is a verdict (a regression), drawn as any other
	((rc != 2)) || die "pivot.sh refused the sweeps (run it for why)"
	printf '%s\n' "$csv" >"$prefix.csv"
	bench=$(key bench "$base/sweep.txt")
	metric=${metric:-$(bench_get "$top" "$bench" primary)}
	# A gnuplot block per other sweep: "x norm err mark cell", x its bar's
	# place in the cell's group. The CSV's quoted fields may hold commas
	# (a cell's name): split by hand.
	awk '
	function fields(line, f,    n, q, ch, k, cur) {
		n = 0; q = 0; cur = ""
		for (k = 1; k <= length(line); k++) {
			ch = substr(line, k, 1)
			if (q && ch == "\"" && substr(line, k + 1, 1) == "\"") { cur = cur ch; k++ }
			else if (ch == "\"") q = !q
			else if (!q && ch == ",") { f[++n] = cur; cur = "" }
			else cur = cur ch
		}
		f[++n] = cur
		return n
	}
	NR == 1 { n = fields($0, h); for (k = 1; k <= n; k++) c[h[k]] = k; next }
	{ fields($0, f) }
	f[c["record"]] != "cell" { next }
	{
		if (!(f[c["cell"]] in ci)) { ci[f[c["cell"]]] = nc++; cname[nc - 1] = f[c["cell"]] }
		if (!(f[c["label"]] in si)) { si[f[c["label"]]] = ns++; sname[ns - 1] = f[c["label"]] }
		i = ci[f[c["cell"]]]; j = si[f[c["label"]]]
		norm[i, j] = f[c["norm_mean"]]
		err[i, j] = f[c["norm_mean"]] * f[c["cov_pct"]] / 100
		mark[i, j] = (f[c["gain_pct"]] == "" ? "n/a" : sprintf("%+.2f%%", f[c["gain_pct"]])) (f[c["significant"]] == 1 ? " *" : "")
	}
	END {
		k = ns - 1; bw = 0.8 / k
		for (j = 1; j < ns; j++) {
			printf "# %s: x norm_mean norm_stddev mark cell\n", sname[j]
			for (i = 0; i < nc; i++)
				printf "%.4f %s %.6f \"%s\" \"%s\"\n", i + (j - 1 - (k - 1) / 2) * bw, norm[i, j] == "" ? "NaN" : norm[i, j], err[i, j], mark[i, j], cname[i]
			printf "\n\n"
		}
		for (j = 0; j < ns; j++) printf "# label %d: %s\n", j, sname[j]
		for (i = 0; i < nc; i++) printf "# cell %d %s\n", i, cname[i]
	}' "$prefix.csv" >"$prefix.dat"
	nb=$(($# - 1))
	ncell=$(grep -c '^cell=' "$base/sweep.txt")
	case $(bench_direction "$top" "$bench" "$metric") in
	lower) dir="lower is better" ;;
	higher) dir="higher is better" ;;
	*) dir="no direction" ;;
	esac
	what=$(describe "$bench" "$metric")
	# pivot.sh's labels, one per sweep (a kernel twice told apart)
	mapfile -t LABELS < <(sed -n 's/^# label [0-9]*: //p' "$prefix.dat")
	{
		cat <<EOF
set terminal pngcairo noenhanced size $((800 + 60 * ncell * nb)),550
set output '$prefix.png'
set title "$(gq "$what"), mean per cell normalized to $(gq "${LABELS[0]}")\\n$(gq "$bench $(key params "$base/sweep.txt")"), sweep.sh cells\\nbars: mean, error bars: stddev, *: significant after Holm-Bonferroni (pivot.sh)"
set ylabel "mean / baseline mean ($dir)"
set style fill solid 0.5
set boxwidth $(awk -v n="$nb" 'BEGIN { printf "%.4f", 0.8 / n }')
set xrange [-0.6:$ncell - 0.4]
set yrange [0:*]
set offsets 0, 0, graph 0.15, 0
set xtics rotate by 25 right ($(awk '/^# cell /{ sub(/^# cell /, ""); i = $1; sub(/^[0-9]+ /, ""); printf "%s\"%s\" %d", n++ ? ", " : "", $0, i }' "$prefix.dat"))
set grid y
set key below
EOF
		printf 'plot 1 with lines dt 2 lc rgb "black" title "%s (baseline)"' "$(gq "${LABELS[0]}")"
		for ((i = 1; i <= nb; i++)); do
			printf ", \\\\\n     '%s' index %d using 1:2 with boxes title \"%s\"" "$prefix.dat" $((i - 1)) "$(gq "${LABELS[i]}")"
			printf ", \\\\\n     '' index %d using 1:2:3 with yerrorbars lc rgb \"black\" pt -1 notitle" $((i - 1))
			printf ", \\\\\n     '' index %d using 1:(\$2 + \$3):4 with labels offset 0,1 notitle" $((i - 1))
		done
		printf '\n'
	} >"$prefix.gp"
	run_gnuplot "$prefix.gp"
	if ((render)); then echo "$prefix.png"; else echo "$prefix.gp"; fi
}

case $what in
hist) hist "$@" ;;
pivot) pivot "$@" ;;
tail) tail_plot "$@" ;;
bars) bars "$@" ;;
runs) runs "$@" ;;
*) usage_error "unknown plot '$what'" ;;
esac
