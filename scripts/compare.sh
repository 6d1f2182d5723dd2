#!/bin/sh
# compare.sh: compare result directories of run.sh against a baseline.
#
#   compare.sh [-f text|csv|json] [-l LABEL,...] [-a ALPHA] [-t PCT] [-m welch|mmtests]
#              [-s FACTOR] [-M] [-x] BASELINE OTHER...
#     -f  output format (default text); csv and json are ipistorm-compare/4
#     -l  labels of the directories, comma-separated, unique, UTF-8
#         (default: the kernel release in each meta.txt, made unique)
#     -a  significance level, 0.000000001 to 0.5 (default 0.05)
#     -t  regression threshold in percent (default 5)
#     -m  significance rule: welch (default, Welch's two-sided t-test) or
#         mmtests (compare-kernels' rule: mean +- z*stddev intervals apart,
#         the harmonic mean and its stddev where higher is better, the
#         arithmetic ones, said on stderr, where a run is 0 or less)
#     -s  SD ratio of a variance regression (default 2): the run-to-run SD
#         at least FACTOR times the baseline's and the Brown-Forsythe test
#         significant
#     -M  judge the means only (the spread is shown, never a verdict)
#     -x  strict: any difference of the machine state is fatal (exit 2)
#     -d  ipistorm with per-path figures (witness=1 timing=1): the
#         shift-share decomposition of the mean latency per call instead
#         (scripts/shift_share.awk; csv and json are ipistorm-shift-share/2);
#         of idle_reentry's directories run beside such a storm (run.sh -s,
#         its storm-iter-*.txt), with the re-entry phases' change next to it
#
# The metrics, their directions and the primary one are those of the
# bench's declaration (BENCH/bench.conf, docs/bench.md). Every directory
# must hold meta.txt (ipistorm-run/1 or /2) and as many iter-*.txt as its
# iterations= says, of the same bench with the same
# params and storm; a directory with fewer than 2 runs is not comparable
# (report written, exit 2). A value must be 0 or of a magnitude from
# 1e-20 to 1e20, a directory name and meta.txt UTF-8 (else exit 2).
# Statistics are over the
# iterations: arithmetic mean, sample standard deviation, median with its
# 95% interval (order statistics), and against the baseline Welch's t-test
# or mmtests' rule, the Mann-Whitney U test (exact to 40 runs in all), the
# SD ratio and the Brown-Forsythe test of equal spread. Differences of
# meta.txt that change IPI cost (CPU, microcode, command line, frequency
# and idle control, SMT, mitigations, preemption, HZ, clocksource) are
# reported, and warned about on stderr. Where run.sh kept idle-iter-*.txt
# (ipistorm-idle/1), a section shows per measured CPU each idle state's
# share of the idle time and the effective frequency over the iterations,
# marking one that differs from the baseline's or splits a directory's
# iterations in two groups (scripts/compare-idle.awk); no verdict. A key
# the bench declares of its instrument's own load (instrument=) whose mean
# differs between directories by more than its last digit is noted, on
# stderr too. Exit: 0 no significant regression
# beyond the threshold, 1 some metric regressed significantly by more than
# -t percent, or its spread by -s (each named on stderr), 2 usage or bad
# input (nothing written on stdout then), a directory with fewer than 2
# runs, or with -x a difference of the machine state (the report is
# written, the differences named on stderr). POSIX sh and awk: runs under
# busybox on the measured machine.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG [-f text|csv|json] [-l LABEL,...] [-a ALPHA] [-t PCT] [-m welch|mmtests] [-s FACTOR] [-M] [-x] [-d] BASELINE_DIR OTHER_DIR..."
nl='
'

# bad MSG: bad input, exit 2 (nothing written on stdout).
bad() {
	log "$*"
	exit 2
}
# text NAME VALUE: VALUE is one line of UTF-8 text with no control
# character (lib.sh's text_problem, the rule of run.sh's values); else bad
# input, NAME and VALUE escaped named. A label or a value goes into JSON as
# it stands.
text() {
	_p=$(text_problem "$2")
	case $_p in '|'*) return 0 ;; esac
	bad "$1 ${_p%%|*}: '${_p#*|}'"
}
# matches STRING ERE: STRING, one line, matches the extended regex ERE.
matches() {
	case $1 in *"$nl"*) return 1 ;; esac
	printf '%s\n' "$1" | awk -v re="$2" '{ exit !($0 ~ re) }'
}

fmt=text labels="" alpha=0.05 thresh=5 rule=welch strict=0 sdfactor=2 meansonly=0 decompose=0
while getopts f:l:a:t:m:s:Mxdh opt; do
	case $opt in
	f)
		fmt=$OPTARG
		case $fmt in text | csv | json) ;; *) usage_error "-f: unknown format '$fmt'" ;; esac
		;;
	l) labels=$OPTARG ;;
	a)
		alpha=$OPTARG
		# from 1e-9 (the smallest p worth a verdict; 1 - alpha/2 must
		# stay below 1 for the interval's quantile) to 0.5
		if ! matches "$alpha" '^0?\.[0-9]*[1-9][0-9]*$' ||
			! awk -v a="$alpha" 'BEGIN { exit !(a >= 1e-9 && a <= 0.5) }'; then
			usage_error "-a: '$alpha' is not a level between 0.000000001 and 0.5"
		fi
		;;
	t)
		thresh=$OPTARG
		matches "$thresh" '^[0-9]+(\.[0-9]+)?$' ||
			usage_error "-t: '$thresh' is not a percentage"
		;;
	m)
		rule=$OPTARG
		case $rule in welch | mmtests) ;; *) usage_error "-m: unknown rule '$rule' (welch or mmtests)" ;; esac
		;;
	s)
		sdfactor=$OPTARG
		if ! matches "$sdfactor" '^[0-9]+(\.[0-9]+)?$' || ! awk -v f="$sdfactor" 'BEGIN { exit !(f > 1) }'; then
			usage_error "-s: '$sdfactor' is not a factor above 1"
		fi
		;;
	M) meansonly=1 ;;
	x) strict=1 ;;
	d) decompose=1 ;;
	*) usage_opt "$opt" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || usage_error "give a baseline and at least one other directory"
base=$1 nd=$#

# meta DIR KEY: a key of DIR/meta.txt (empty when absent).
meta() { key "$2" "$1/meta.txt"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/diffs"
: >"$tmp/labels"
: >"$tmp/dirs"
# -l: one label a line; a label never holds a newline (the lists below
# are one a line)
if [ -n "$labels" ]; then
	case $labels in *"$nl"*) bad "-l: a label holds a newline" ;; esac
	printf '%s\n' "$labels" | tr , '\n' >"$tmp/given"
	nlab=$(wc -l <"$tmp/given")
	[ "$nlab" -eq "$nd" ] || bad "-l gives $nlab labels for $nd directories"
fi

# differences BASE OTHER: "key<TAB>baseline<TAB>value" for each key of
# meta.txt that changes IPI cost and differs; a key recorded in one only
# (ipistorm-run/1 against /2) is not a known difference. The command line
# is compared without the kernel image (BOOT_IMAGE=, initrd=, a leading
# path). Files are read through getline, so no path is an assignment.
differences() {
	A=$1/meta.txt B=$2/meta.txt awk '
	function norm(k, v,    n, w, i, o) {
		if (k != "cmdline") return v
		n = split(v, w, " ")
		for (i = 1; i <= n; i++) {
			if (w[i] ~ /^(BOOT_IMAGE|initrd)=/ || (i == 1 && w[i] ~ /^\//)) continue
			o = o (o == "" ? "" : " ") w[i]
		}
		return o
	}
	function load(f, a,    line, eq, k) {
		while ((getline line < f) > 0) {
			eq = index(line, "=")
			if (!eq) continue
			k = substr(line, 1, eq - 1)
			if (k !~ KEYS || (k in a)) continue
			a[k] = norm(k, substr(line, eq + 1))
			if (f == ENVIRON["A"]) order[++n] = k
		}
		close(f)
	}
	BEGIN {
		KEYS = "^(cpu_model|microcode|cmdline|idle|cpufreq_driver|governor|governors|boost|no_turbo|" \
			"boost_policies|pstate_status|epp|cpuidle_driver|cpuidle_governor|cpuidle\\.state[0-9]+|" \
			"cstates\\.cpu[0-9]+|smt_control|smt_active|threads|cores|sockets|numa_nodes|node[0-9]+\\.cpulist|llc|" \
			"bios|irqbalance|vuln\\..*|preempt|hz|no_hz|nohz_full|sched_features|clocksource)$"
		load(ENVIRON["A"], a); load(ENVIRON["B"], b)
		for (i = 1; i <= n; i++) {
			k = order[i]
			if ((k in b) && a[k] != b[k]) {
				gsub(/\t/, " ", a[k]); gsub(/\t/, " ", b[k])
				print k "\t" a[k] "\t" b[k]
			}
		}
	}'
}

i=0
for d in "$@"; do
	case $d in *"$nl"*) bad "a directory name holds a newline" ;; esac
	text "directory $((i + 1)): its name" "$d"
	[ -d "$d" ] || bad "$d: no such directory"
	[ -f "$d/meta.txt" ] || bad "$d: no meta.txt (not a run.sh result directory)"
	# its values name the directory (kernel) and go into JSON
	# only a line with a byte beyond printable ASCII needs a closer look
	LC_ALL=C grep '[^ -~]' "$d/meta.txt" >"$tmp/odd" || true
	while IFS= read -r k; do text "$d/meta.txt: ${k%%=*}" "$k"; done <"$tmp/odd"
	case $(meta "$d" format) in
	ipistorm-run/1 | ipistorm-run/2) ;;
	*) bad "$d/meta.txt: format is '$(meta "$d" format)', want ipistorm-run/1 or ipistorm-run/2" ;;
	esac
	[ "$(meta "$d" status)" = ok ] ||
		bad "$d/meta.txt: status is '$(meta "$d" status)', not ok: the run did not complete"
	# awk takes an argument NAME=VALUE for an assignment: give it paths
	# that cannot be one.
	n=0
	: >"$tmp/files.$i"
	for f in "$d"/iter-[0-9]*.txt; do
		[ -e "$f" ] || continue
		[ -s "$f" ] || bad "$f: empty result file"
		case $f in /*) ;; *) f=./$f ;; esac
		printf '%s\n' "$f" >>"$tmp/files.$i"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || bad "$d: no iter-*.txt result files"
	# A run cut short, or files lost or added since: the count run.sh
	# recorded must be the count found.
	it=$(meta "$d" iterations)
	[ -z "$it" ] || [ "$it" = "$n" ] ||
		bad "$d/meta.txt: iterations=$it but $n iter-*.txt files"
	for k in bench params storm; do
		[ "$(meta "$d" "$k")" = "$(meta "$base" "$k")" ] ||
			bad "$d: $k '$(meta "$d" "$k")' differs from the baseline's '$(meta "$base" "$k")' ($base)"
	done
	if [ -n "$labels" ]; then
		l=$(sed -n "$((i + 1))p" "$tmp/given")
		text "-l: label $((i + 1))" "$l"
	else
		l=$(meta "$d" kernel)
		[ -n "$l" ] || l=$d
	fi
	printf '%s\n' "$l" >>"$tmp/labels"
	printf '%s\n' "$d" >>"$tmp/dirs"
	[ "$i" -eq 0 ] || differences "$base" "$d" | awk -v i="$i" '{ print i "\t" $0 }' >>"$tmp/diffs"
	i=$((i + 1))
done

# Labels must tell the directories apart: "X worse than X" helps nobody.
# Given ones must be unique; a release shared by two builds gets the
# directory's name, then its position.
twice=$(sort "$tmp/labels" | uniq -d)
if [ -n "$twice" ]; then
	[ -z "$labels" ] || bad "-l: label '$(printf '%s\n' "$twice" | head -n 1)' is given twice"
	# unique LABELS DIRS PASS: "label (dirname)" for a label twice (pass
	# 1), "label #position" for one still twice (pass 2) (files read through getline:
	# no path is an assignment)
	unique() {
		L=$1 D=$2 awk -v pass="$3" '
		function load() {
			n = 0; split("", c)
			while ((getline x < ENVIRON["L"]) > 0) { lab[++n] = x; c[x]++ }
			close(ENVIRON["L"])
		}
		BEGIN {
			load()
			i = 0
			while ((getline x < ENVIRON["D"]) > 0) {
				i++; sub(/\/+$/, "", x); sub(/.*\//, "", x)
				print (c[lab[i]] > 1 ? (pass == 1 ? lab[i] " (" x ")" : lab[i] " #" i) : lab[i])
			}
		}'
	}
	unique "$tmp/labels" "$tmp/dirs" 1 >"$tmp/labels1"
	unique "$tmp/labels1" "$tmp/dirs" 2 >"$tmp/labels"
	# A position can be another's release ("X (a) #2"): then every label
	# takes its position, which no two share.
	if [ -n "$(sort "$tmp/labels" | uniq -d)" ]; then
		awk '{ print $0 " #" NR }' <"$tmp/labels" >"$tmp/labels1"
		cat "$tmp/labels1" >"$tmp/labels"
	fi
fi

# What is compared, and which way is better: the bench's declaration.
bench=$(meta "$base" bench)
top=$(dirname "$0")/..
case " $(suite_modules "$top" | tr '\n' ' ')" in
*" $bench "*) ;;
*) bad "$base/meta.txt: unknown bench '$bench'" ;;
esac
bench_check "$top" "$bench" || bad "cannot compare $bench: its declaration $bench/bench.conf is broken"
title=$(bench_get "$top" "$bench" title)
primary=$(bench_get "$top" "$bench" primary)
metrics=$(bench_metrics "$top" "$bench")
instrument=$(bench_get "$top" "$bench" instrument)

# awk's arguments: d=INDEX, then that directory's files, for each
set --
i=0
while [ "$i" -lt "$nd" ]; do
	set -- "$@" "d=$i"
	while IFS= read -r f; do set -- "$@" "$f"; done <"$tmp/files.$i"
	i=$((i + 1))
done

out=$tmp/out
rc=0
# -d: the decomposition alone, no verdict (exit 0, or 2 on bad input), of
# ipistorm's results, or of the storm's beside idle_reentry's (run.sh -s
# keeps them as storm-iter-NNN.txt), its phases then next to it.
if [ "$decompose" = 1 ]; then
	if [ "$bench" != ipistorm ]; then
		[ "$(bench_get "$top" "$bench" storm)" = ipistorm ] ||
			bad "-d: decomposes ipistorm results, or idle_reentry's beside an ipistorm storm (run.sh -s), not $bench"
		[ -n "$(meta "$base" storm)" ] ||
			bad "-d: $bench ran without a storm ($base/meta.txt: storm= is empty): no storm results to decompose"
		set --
		i=0
		while IFS= read -r d; do
			set -- "$@" "d=$i" src=storm
			while IFS= read -r f; do
				s=${f%/*}/storm-${f##*/}
				[ -f "$s" ] ||
					bad "$s: no storm result beside ${f#./} (run.sh kept none before it kept the storm's)"
				set -- "$@" "$s"
			done <"$tmp/files.$i"
			# and no storm result without its idle_reentry one
			for s in "$d"/storm-iter-[0-9]*.txt; do
				[ -e "$s" ] || continue
				f=${s%/*}/${s##*/storm-}
				[ -f "$f" ] || bad "$s: a storm result without its ${f##*/}"
			done
			set -- "$@" src=phase
			while IFS= read -r f; do set -- "$@" "$f"; done <"$tmp/files.$i"
			i=$((i + 1))
		done <"$tmp/dirs"
	fi
	CMP_LABELS=$(cat "$tmp/labels") CMP_DIRS=$(cat "$tmp/dirs") \
		awk -v fmt="$fmt" -v alpha="$alpha" -v bench="$bench" -f "$(dirname "$0")/stats.awk" -f "$(dirname "$0")/shift_share.awk" "$@" >"$out" || rc=$?
	[ "$rc" -ne 0 ] || cat "$out"
	exit "$rc"
fi
# compare.awk's: d=INDEX src=, then that directory's files, then src=idle
# and the idle-iter-NNN.txt beside them (run.sh's, ipistorm-idle/1; none
# in directories of a run.sh before them), for each
set --
i=0
while [ "$i" -lt "$nd" ]; do
	set -- "$@" "d=$i" src=
	while IFS= read -r f; do set -- "$@" "$f"; done <"$tmp/files.$i"
	set -- "$@" src=idle
	while IFS= read -r f; do
		f=${f%/*}/idle-${f##*/}
		[ ! -f "$f" ] || set -- "$@" "$f"
	done <"$tmp/files.$i"
	i=$((i + 1))
done
CMP_LABELS=$(cat "$tmp/labels") CMP_DIRS=$(cat "$tmp/dirs") \
	CMP_BENCH=$bench CMP_PARAMS=$(meta "$base" params) CMP_DIFFS=$tmp/diffs \
	awk -v metrics="$metrics" -v primary="$primary" -v title="$title" -v fmt="$fmt" -v alpha="$alpha" \
	-v thresh="$thresh" -v rule="$rule" -v strict="$strict" -v sdfactor="$sdfactor" -v meansonly="$meansonly" \
	-v instrument="$instrument" -f "$(dirname "$0")/stats.awk" -f "$(dirname "$0")/compare.awk" \
	-f "$(dirname "$0")/compare-idle.awk" "$@" >"$out" || rc=$?
# Output only when the input was good; 3 is a strict failure on a
# difference of the machine state, with its report.
[ "$rc" -eq 2 ] || cat "$out"
[ "$rc" -ne 3 ] || rc=2
exit "$rc"
