#!/bin/sh
# compare.sh: compare result directories of run.sh against a baseline.
#
#   compare.sh [-f text|csv|json] [-l LABEL,...] [-a ALPHA] [-t PCT] [-m welch|mmtests]
#              [-s FACTOR] [-M] [-x] BASELINE OTHER...
#     -f  output format (default text); csv and json are ipistorm-compare/5
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
# run (a program's command, defaults and order aside; a module's
# parameters in any order) and storm; a directory with fewer than 2 runs is not comparable
# (report written, exit 2). A value must be 0 or of a magnitude from
# 1e-20 to 1e20, a directory name and meta.txt UTF-8 (else exit 2).
# Statistics are over the
# iterations: arithmetic mean, sample standard deviation, median with its
# 95% interval (order statistics), and against the baseline Welch's t-test
# or mmtests' rule, the Mann-Whitney U test (exact to 40 runs in all), the
# SD ratio and the Brown-Forsythe test of equal spread. Differences of
# meta.txt that change IPI cost (CPU, microcode, command line, frequency
# and idle control, SMT, mitigations, preemption, HZ, clocksource) are
# reported: those of the machine's state (what it was set to) warned about
# on stderr and making the directories not comparable, those of the
# kernels' identity (a scheduler feature one kernel lacks, the test bed's
# IPISTORM_* words, HZ; differences() below) in a section of their own,
# never a reason to refuse. Where run.sh kept idle-iter-*.txt
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

# same_run BASE DIR: DIR ran what BASE ran. A program's run is its
# command (program.command: the declared defaults and the given values
# put in, whatever the order or whether a default was typed); a module's,
# its parameters in any order, or, where both recorded them, the loaded
# module's parameters (module.BENCH.param.*).
same_run() {
	_a=$(meta "$1" program.command) _b=$(meta "$2" program.command)
	if [ -n "$_a$_b" ]; then
		[ "$_a" = "$_b" ] ||
			bad "$2: command '$_b' differs from the baseline's '$_a' ($1)"
		return 0
	fi
	_a=$(meta "$1" params) _b=$(meta "$2" params)
	[ "$_a" != "$_b" ] || return 0
	[ "$(echo "$_a" | tr ' ' '\n' | sort)" != "$(echo "$_b" | tr ' ' '\n' | sort)" ] || return 0
	_m=module.$(meta "$1" bench).param.
	_pa=$(grep "^$_m" "$1/meta.txt" | sort) _pb=$(grep "^$_m" "$2/meta.txt" | sort)
	[ -z "$_pa" ] || [ "$_pa" != "$_pb" ] || return 0
	bad "$2: params '$_b' differs from the baseline's '$_a' ($1)"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/diffs"
: >"$tmp/kdiffs"
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

# differences BASE OTHER: "CLASS<TAB>key<TAB>baseline<TAB>value" for each
# key of meta.txt that changes IPI cost and differs; a key recorded in one
# only (ipistorm-run/1 against /2) is not a known difference. CLASS is
# "state", what the machine was set to (compare.awk's differences: not
# comparable, fatal with -x), or "kernel", what differs because the kernels
# (or the test bed's own words) differ, a setting could not make them equal:
#   sched_features  a feature named in one kernel's list only (kernel: the
#                   names as recorded, NO_ when off); one in both lists but
#                   switched differently (state: FEAT against NO_FEAT); a
#                   value that is no feature list ("unknown") compared whole
#   cmdline         without the kernel image (BOOT_IMAGE=, initrd=, a
#                   leading path), the words the kernel reads (state);
#                   cmdline.marker: the IPISTORM_*= words, which the kernel
#                   hands to init's environment and the test bed's guest
#                   reads, those of one side only (kernel); cmdline.init:
#                   what follows "--", init's arguments (kernel)
#   hz, no_hz       CONFIG_HZ and CONFIG_NO_HZ_*, of the build (kernel)
#   preempt         kernel when neither side could be set to the other's
#                   mode: rt (run.sh's from the config: no live mode) only
#                   rt; a kernel_version with PREEMPT_DYNAMIC any mode but
#                   rt; one with PREEMPT_RT and a live mode full or lazy;
#                   any other only its own; a side without kernel_version,
#                   or a mode "dynamic" or "unknown", any (state)
# Files are read through getline, so no path is an assignment.
differences() {
	A=$1/meta.txt B=$2/meta.txt awk '
	function out(c, k, x, y) {
		gsub(/\t/, " ", x); gsub(/\t/, " ", y)
		print c "\t" k "\t" x "\t" y
	}
	# cmdline(v, p): p["k"], the kernel parameters of command line v,
	# p["m"], its IPISTORM_*= markers, p["i"], what follows "--"
	function cmdline(v, p,    n, w, i, o) {
		p["k"] = p["m"] = p["i"] = ""
		n = split(v, w, " ")
		for (i = 1; i <= n; i++) {
			o = w[i] == "--" ? "i" : o == "i" ? "i" : w[i] ~ /^IPISTORM_[A-Z0-9_]+=/ ? "m" : "k"
			if (o == "k" && (w[i] ~ /^(BOOT_IMAGE|initrd)=/ || (i == 1 && w[i] ~ /^\//))) continue
			if (w[i] == "--" && p["i"] == "") continue
			p[o] = p[o] (p[o] == "" ? "" : " ") w[i]
		}
	}
	# only(x, y): the words of x not in y
	function only(x, y,    n, w, i, s, o) {
		split("", s)
		n = split(y, w, " ")
		for (i = 1; i <= n; i++) s[w[i]] = 1
		n = split(x, w, " ")
		for (i = 1; i <= n; i++) if (!(w[i] in s)) o = o (o == "" ? "" : " ") w[i]
		return o
	}
	# feats(v, f): f[NAME] = the word of feature NAME in list v (NAME or
	# NO_NAME); 0 when v is no list of feature words
	function feats(v, f,    n, w, i) {
		split("", f)
		n = split(v, w, " ")
		if (!n) return 0
		for (i = 1; i <= n; i++) {
			if (w[i] !~ /^[A-Z][A-Z0-9_]*$/) return 0
			f[w[i] ~ /^NO_/ ? substr(w[i], 4) : w[i]] = w[i]
		}
		return 1
	}
	function features(x, y,    fa, fb, f, oa, ob, ta, tb) {
		if (!feats(x, fa) || !feats(y, fb)) { out("state", "sched_features", x, y); return }
		for (f in fa)
			if (!(f in fb)) oa = oa " " fa[f]
			else if (fa[f] != fb[f]) { ta = ta " " fa[f]; tb = tb " " fb[f] }
		for (f in fb) if (!(f in fa)) ob = ob " " fb[f]
		# in the order of the lists
		if (ta != "") out("state", "sched_features", inorder(x, ta), inorder(y, tb))
		if (oa != "" || ob != "") out("kernel", "sched_features", inorder(x, oa), inorder(y, ob))
	}
	# inorder(v, s): the words of v that are in s, in the order of v
	function inorder(v, s) { return only(v, only(v, s)) }
	# reach(mode, version, m): whether a kernel recorded with this mode and
	# kernel_version could be set to mode m
	function reach(mode, version, m) {
		if (version == "" || version == "unknown" || mode == "dynamic" || mode == "unknown") return 1
		if (mode == "rt") return m == "rt"
		if (index(version, "PREEMPT_DYNAMIC")) return m != "rt"
		if (index(version, "PREEMPT_RT")) return m == "full" || m == "lazy"
		return m == mode
	}
	function load(f, a,    line, eq, k) {
		while ((getline line < f) > 0) {
			eq = index(line, "=")
			if (!eq) continue
			k = substr(line, 1, eq - 1)
			if ((k !~ KEYS && k != "kernel_version") || (k in a)) continue
			a[k] = substr(line, eq + 1)
			if (f == ENVIRON["A"] && k != "kernel_version") order[++n] = k
		}
		close(f)
	}
	BEGIN {
		KEYS = "^(cpu_model|microcode|cmdline|idle|cpufreq_driver|governor|governors|boost|no_turbo|" \
			"boost_policies|pstate_status|epp|cpuidle_driver|cpuidle_governor|cpuidle\\.state[0-9]+|" \
			"cstates\\.cpu[0-9]+|smt_control|smt_active|threads|cores|sockets|numa_nodes|node[0-9]+\\.cpulist|llc|" \
			"bios|irqbalance|vuln\\..*|preempt|hz|no_hz|nohz_full|sched_features|clocksource|cpu_dma_latency_us|" \
			"package\\..*|program\\.[^.]+\\.sha256|preflight\\.[a-z0-9_]+)$"
		load(ENVIRON["A"], a); load(ENVIRON["B"], b)
		for (i = 1; i <= n; i++) {
			k = order[i]
			if (!(k in b) || a[k] == b[k]) continue
			if (k == "cmdline") {
				cmdline(a[k], pa); cmdline(b[k], pb)
				if (pa["k"] != pb["k"]) out("state", k, pa["k"], pb["k"])
				if (only(pa["m"], pb["m"]) != "" || only(pb["m"], pa["m"]) != "")
					out("kernel", "cmdline.marker", only(pa["m"], pb["m"]), only(pb["m"], pa["m"]))
				if (pa["i"] != pb["i"]) out("kernel", "cmdline.init", pa["i"], pb["i"])
			} else if (k == "sched_features")
				features(a[k], b[k])
			else if (k == "hz" || k == "no_hz")
				out("kernel", k, a[k], b[k])
			else if (k == "preempt")
				out(reach(a[k], a["kernel_version"], b[k]) || reach(b[k], b["kernel_version"], a[k]) ? "state" : "kernel", k, a[k], b[k])
			else
				out("state", k, a[k], b[k])
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
	for k in bench storm; do
		[ "$(meta "$d" "$k")" = "$(meta "$base" "$k")" ] ||
			bad "$d: $k '$(meta "$d" "$k")' differs from the baseline's '$(meta "$base" "$k")' ($base)"
	done
	same_run "$base" "$d"
	if [ -n "$labels" ]; then
		l=$(sed -n "$((i + 1))p" "$tmp/given")
		text "-l: label $((i + 1))" "$l"
	else
		l=$(meta "$d" kernel)
		[ -n "$l" ] || l=$d
	fi
	printf '%s\n' "$l" >>"$tmp/labels"
	printf '%s\n' "$d" >>"$tmp/dirs"
	# the differences of the machine state to diffs, of the kernels to kdiffs
	[ "$i" -eq 0 ] || differences "$base" "$d" | S=$tmp/diffs K=$tmp/kdiffs awk -v i="$i" '
		{ c = $0; sub(/\t.*/, "", c); sub(/^[^\t]*\t/, ""); print i "\t" $0 >>ENVIRON[c == "kernel" ? "K" : "S"] }'
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
case " $(suite_benches "$top" | tr '\n' ' ')" in
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
		awk -v fmt="$fmt" -v alpha="$alpha" -v bench="$bench" -f "$(dirname "$0")/stats.awk" -f "$(dirname "$0")/json.awk" -f "$(dirname "$0")/shift_share.awk" "$@" >"$out" || rc=$?
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
	CMP_BENCH=$bench CMP_PARAMS=$(meta "$base" params) CMP_DIFFS=$tmp/diffs CMP_KDIFFS=$tmp/kdiffs \
	awk -v metrics="$metrics" -v primary="$primary" -v title="$title" -v fmt="$fmt" -v alpha="$alpha" \
	-v thresh="$thresh" -v rule="$rule" -v strict="$strict" -v sdfactor="$sdfactor" -v meansonly="$meansonly" \
	-v instrument="$instrument" -f "$(dirname "$0")/stats.awk" -f "$(dirname "$0")/json.awk" -f "$(dirname "$0")/compare.awk" \
	-f "$(dirname "$0")/compare-idle.awk" "$@" >"$out" || rc=$?
# Output only when the input was good; 3 is a strict failure on a
# difference of the machine state, with its report.
[ "$rc" -eq 2 ] || cat "$out"
[ "$rc" -ne 3 ] || rc=2
exit "$rc"
