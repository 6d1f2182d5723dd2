#!/bin/sh
# pivot.sh: the cells of sweeps (sweep.sh) as rows, their kernels as
# columns: one table and one verdict over the grid.
#
#   pivot.sh [-f text|csv|json] [-k METRIC] [-a ALPHA] [-t PCT] BASELINE_SWEEP OTHER_SWEEP...
#     -f  output format (default text); csv and json are ipistorm-pivot/1
#     -k  the result key compared (default the bench's primary metric);
#         its direction is the declaration's (docs/bench.md)
#     -a  significance level, 0.000000001 to 0.5 (default 0.05)
#     -t  regression threshold in percent (default 5)
#
# Every sweep must be of the same bench, fixed parameters, storm and grid
# (sweep.txt, ipistorm-sweep/2 or /1), each cell complete (meta.txt status=ok,
# as many iter-*.txt as its iterations=, at least 2) and run with the
# index's parameters; a cell's parameters may differ between the sweeps
# only in its own grid values (the pairs a class has on each machine).
# Per cell and sweep: the mean and its coefficient of variation over the
# runs; against the baseline (the first sweep): the mean's ratio, its gain
# in percent in the metric's direction (pct imp, positive: better), and
# the two-sided Mann-Whitney U test (scripts/stats.awk, exact to 40 runs in
# all), its p adjusted by Holm-Bonferroni over every test of the table
# (each cell of each other sweep); a geometric-mean row over the cells.
# A sweep given twice (by another name, or the baseline among res/*)
# counts once: left out with a note. Exit: 0 no cell regressed, 1 a cell
# regressed significantly (adjusted p < ALPHA) by more than PCT percent
# (each named on stderr), 2 usage or bad input (nothing written on
# stdout), among it runs too few for any cell to be significant after the
# correction (the runs per cell that would do named). POSIX sh and awk.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
HERE=$(dirname "$0")
TOP=$HERE/..
USAGE="$PROG [-f text|csv|json] [-k METRIC] [-a ALPHA] [-t PCT] BASELINE_SWEEP OTHER_SWEEP..."
nl='
'

# bad MSG: bad input, exit 2.
bad() {
	log "$*"
	exit 2
}
# number WHAT VALUE MIN MAX: VALUE a decimal number from MIN to MAX.
number() {
	case $2 in
	'' | *[!0-9.]* | *.*.* | .* | *.) usage_error "$1: '$2' is not a number" ;;
	esac
	awk -v x="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(x + 0 >= lo && x + 0 <= hi) }' ||
		usage_error "$1: $2 is out of range, want $3 to $4"
}

fmt=text metric="" alpha=0.05 thresh=5
while getopts f:k:a:t:h opt; do
	case $opt in
	f)
		fmt=$OPTARG
		case $fmt in text | csv | json) ;; *) usage_error "-f: unknown format '$fmt'" ;; esac
		;;
	k)
		metric=$OPTARG
		case $metric in '' | *[!A-Za-z0-9_.]*) usage_error "-k: '$metric' is not a result key" ;; esac
		;;
	a) number -a "$OPTARG" 0.000000001 0.5 && alpha=$OPTARG ;;
	t) number -t "$OPTARG" 0 1000000 && thresh=$OPTARG ;;
	*) usage_opt "$opt" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || usage_error "give a baseline sweep and at least one other"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# index DIR KEY: a key of DIR/sweep.txt.
index() { key "$2" "$1/sweep.txt"; }
# grid DIR: the lines of DIR/sweep.txt that make its grid.
grid() { grep -E '^(bench|params|storm|pairs_param|topology_options|axis|cells)=' "$1/sweep.txt"; }
# text WHAT VALUE: one line of UTF-8 text without control characters.
text() {
	_p=$(text_problem "$2")
	case $_p in '|'*) return 0 ;; esac
	bad "$1 ${_p%%|*}: '${_p#*|}'"
}

# A sweep counts once: a directory given again (the baseline among
# res/*, or twice by name) is left out with a note, never compared with
# itself and never counted among the tests of the correction.
: >"$tmp/real"
: >"$tmp/args"
for d in "$@"; do
	case $d in *"$nl"*) bad "a directory name holds a newline" ;; esac
	text "a sweep's name" "$d"
	[ -d "$d" ] || bad "$d: no such directory"
	r=$(cd "$d" && pwd -P) || bad "$d: cannot enter it"
	f=$(awk -v r="$r" '$0 == r { print NR; exit }' "$tmp/real")
	if [ -n "$f" ]; then
		log "note: $d is $(sed -n "${f}p" "$tmp/args") given again: left out (a sweep counts once)"
		continue
	fi
	printf '%s\n' "$r" >>"$tmp/real"
	printf '%s\n' "$d" >>"$tmp/args"
done
set --
while IFS= read -r d; do set -- "$@" "$d"; done <"$tmp/args"
[ $# -ge 2 ] || bad "$1 is the only sweep once repeats are left out: give a baseline sweep and at least one other"

base=$1
: >"$tmp/labels"
: >"$tmp/dirs"
: >"$tmp/params"
: >"$tmp/files"
s=0
for d in "$@"; do
	[ -f "$d/sweep.txt" ] || bad "$d: no sweep.txt (not a sweep.sh directory)"
	case $(index "$d" format) in
	ipistorm-sweep/1 | ipistorm-sweep/2) ;;
	*) bad "$d/sweep.txt: format is '$(index "$d" format)', want ipistorm-sweep/2 (or /1)" ;;
	esac
	# only a line with a byte beyond printable ASCII needs a closer look
	LC_ALL=C grep '[^ -~]' "$d/sweep.txt" >"$tmp/odd" || :
	while IFS= read -r l; do text "$d/sweep.txt: ${l%%=*}" "$l"; done <"$tmp/odd"
	if [ "$s" -gt 0 ]; then
		grid "$base" >"$tmp/g0"
		grid "$d" >"$tmp/g"
		_d=$(awk 'NR == FNR { a[NR] = $0; n = NR; next }
			{ if (a[FNR] != $0) { print a[FNR] "|" $0; found = 1; exit } m = FNR }
			END { if (!found && m != n) print a[m + 1] "|" }' "$tmp/g0" "$tmp/g")
		[ -z "$_d" ] || bad "$d is a sweep of another bench or grid: '${_d#*|}', the baseline's '${_d%%|*}' ($base)"
	fi
	kernel=$(index "$d" kernel)
	# the cells, in the baseline's order: each complete, run with the
	# index's parameters on the sweep's kernel: its release, and from
	# ipistorm-sweep/2 on, its build (version string, modules' srcversion)
	{
		echo "bench:$(index "$d" bench)"
		echo "kernel:$kernel"
		if [ "$(index "$d" format)" = ipistorm-sweep/2 ]; then
			echo "kernel_version:$(index "$d" kernel_version)"
			for m in $(index "$d" modules); do
				[ "${m#*:}" = unknown ] || echo "module.${m%%:*}.srcversion:${m#*:}"
			done
		else
			# an index of /1 names no build: its cells' must be one
			m=$d/$(sed -n 's/^cell=\([^ ]*\) .*/\1/p' "$d/sweep.txt" | head -n 1)/meta.txt
			[ ! -f "$m" ] || echo "kernel_version:$(key kernel_version "$m")"
		fi
	} >"$tmp/ids"
	c=0
	grep '^cell=' "$d/sweep.txt" | sed 's/^cell=//' >"$tmp/cells.$s"
	while read -r cell params; do
		cd=$d/$cell
		m=$cd/meta.txt
		[ -f "$m" ] || bad "$cd: no meta.txt: the cell was not run (resume the sweep)"
		[ "$(key status "$m")" = ok ] || bad "$m: status is '$(key status "$m")', not ok: the cell is incomplete (resume the sweep)"
		{
			cat "$tmp/ids"
			echo "params:$params"
		} | while IFS= read -r k; do
			[ "$(key "${k%%:*}" "$m")" = "${k#*:}" ] ||
				bad "$m: ${k%%:*} is '$(key "${k%%:*}" "$m")', the sweep's index says '${k#*:}'"
		done || exit 2
		printf '%s\n' "$params" >>"$tmp/params"
		echo "s=$s c=$c" >>"$tmp/files"
		nf=0
		for f in "$cd"/iter-[0-9]*.txt; do
			[ -e "$f" ] || continue
			case $f in /*) ;; *) f=./$f ;; esac
			printf '%s\n' "$f" >>"$tmp/files"
			nf=$((nf + 1))
		done
		it=$(key iterations "$m")
		[ "$it" = "$nf" ] || bad "$m: iterations=$it but $nf iter-*.txt files"
		c=$((c + 1))
	done <"$tmp/cells.$s"
	printf '%s\n' "${kernel:-$d}" >>"$tmp/labels"
	printf '%s\n' "$d" >>"$tmp/dirs"
	s=$((s + 1))
done

# A cell's parameters differ between the sweeps only in its grid values:
# the pairs of a class are each machine's (said on stderr).
pp=$(index "$base" pairs_param)
s=1
while [ "$s" -lt $# ]; do
	paste -d '|' "$tmp/cells.0" "$tmp/cells.$s" | while IFS='|' read -r a b; do
		printf '%s\n%s\n' "$a" "$b" | awk -v pp="$pp" -v other="$(sed -n "$((s + 1))p" "$tmp/dirs")" -v base="$base" '
			{ c[NR] = $1; for (i = 2; i <= NF; i++) if (pp == "" || index($i, pp "=") != 1) w[NR] = w[NR] " " $i; else pr[NR] = $i }
			END {
				if (w[1] != w[2]) { printf "pivot.sh: %s: parameters%s in %s differ from the baseline'"'"'s%s (%s) beyond the cell'"'"'s grid values\n", c[1], w[2], other, w[1], base >"/dev/stderr"; exit 1 }
				if (pr[1] != pr[2]) printf "pivot.sh: note: %s: %s in %s, %s in the baseline (%s): the class'"'"'s pairs on each machine\n", c[1], pr[2], other, pr[1], base >"/dev/stderr"
			}' || exit 2
	done || exit 2
	s=$((s + 1))
done

# Labels tell the sweeps apart: a kernel twice gets the directory's name.
twice=$(sort "$tmp/labels" | uniq -d)
if [ -n "$twice" ]; then
	paste -d '|' "$tmp/labels" "$tmp/dirs" | awk -F '|' '{ l[NR] = $1; d[NR] = $2; n[$1]++ }
		END {
			for (i = 1; i <= NR; i++) {
				x = d[i]; sub(/\/+$/, "", x); sub(/.*\//, "", x)
				if (n[l[i]] > 1) l[i] = l[i] " (" x ")"
				m[l[i]]++
			}
			# the same directory twice: its position too
			for (i = 1; i <= NR; i++) print l[i] (m[l[i]] > 1 ? " #" i : "")
		}' >"$tmp/l"
	cat "$tmp/l" >"$tmp/labels"
fi

bench=$(index "$base" bench)
case " $(suite_benches "$TOP" | tr '\n' ' ')" in
*" $bench "*) ;;
*) bad "$base/sweep.txt: unknown bench '$bench'" ;;
esac
bench_check "$TOP" "$bench" || bad "cannot pivot $bench: its declaration $bench/bench.conf is broken"
[ -n "$metric" ] || metric=$(bench_get "$TOP" "$bench" primary)

# awk's arguments: s=SWEEP c=CELL, then that cell's files
set --
while IFS= read -r f; do
	case $f in
	's='*)
		# shellcheck disable=SC2086 # the two assignments
		set -- "$@" $f
		;;
	*) set -- "$@" "$f" ;;
	esac
done <"$tmp/files"
rc=0
PIV_LABELS=$(cat "$tmp/labels") PIV_DIRS=$(cat "$tmp/dirs") PIV_CELLS=$(cut -d ' ' -f 1 "$tmp/cells.0") \
	PIV_PARAMS=$(cat "$tmp/params") PIV_BENCH=$bench PIV_FIXED=$(index "$base" params) \
	awk -v metric="$metric" -v direction="$(bench_direction "$TOP" "$bench" "$metric")" \
	-v unit="$(bench_unit "$TOP" "$bench" "$metric")" -v fmt="$fmt" -v alpha="$alpha" -v thresh="$thresh" \
	-f "$HERE/stats.awk" -f "$HERE/json.awk" -f "$HERE/pivot.awk" "$@" >"$tmp/out" || rc=$?
[ "$rc" -eq 2 ] || cat "$tmp/out"
exit "$rc"
