#!/bin/sh
# validate.sh: validate a kernel the way its reviewers will, on one
# prepared machine, as root: the ipistorm storm in the published command
# line's shape, the idle re-entry check beside that storm and the
# companion battery (hackbench, cyclictest, tbench, netperf) at two load
# levels, N runs each through run.sh, one result directory per step; and,
# given a baseline validate directory, one report: compare.sh per step,
# one verdict and exit status (busybox sh).
#
#   validate.sh [-n N] [-w N] [-o DIR] [-m MODDIR] [-g DESCRIBE] [-p | -P WHAT]
#               [-c SENDER:TARGET] [-i NUMIPI] [-L LOW,HIGH] [-d SECONDS] [-l LOOPS]
#               [-b BASELINE]
#   validate.sh -r DIR BASELINE
#     -n N       runs per step, 2 to 999 (default 5); -w N warm-ups (default 1)
#     -o DIR     the validate directory (default results/validate-<kernel
#                release>-<date>); an existing one of the same plan is
#                resumed: the steps whose run completed are kept
#     -m, -g, -p, -P  run.sh's, for every step (one preparation a step:
#                the same state each time, restored after each)
#     -c S:T     the storm's sender and target CPUs (default 8:16 when
#                CPU 16 is online, else 0:1): ipistorm numipi=NUMIPI
#                single=1 offset=T-S cpulist=S wait=1, and idle_reentry
#                watching T beside a storm pairs=S:T
#     -i NUMIPI  calls of each storm (default 100000, the published figure)
#     -L LOW,HIGH  the battery's two load levels (default 1 and the online
#                CPUs): hackbench groups, cyclictest threads, tbench
#                clients; netperf runs TCP_RR and UDP_RR (one stream)
#     -d SECONDS  cyclictest's, tbench's and netperf's duration (default 5;
#                tbench's 2 at least: it measures whole seconds)
#     -l LOOPS   hackbench's loops (default 100)
#     -b BASELINE  after the runs, the report against BASELINE, a validate
#                directory of the same plan (its kernel the baseline)
#     -r         the report alone, of DIR against BASELINE
#
# DIR/validate.txt (format ipistorm-validate/1, docs/validate.md) is the
# plan: its options and one "step=NAME|BENCH|PARAMS|STORM" line per step,
# each a run.sh directory DIR/NAME. The report: per step compare.sh's text
# report, then a table of the steps (the primary metric's change, its
# significance, compare.sh's verdict, better or worse by the primary
# metric's sign) and the verdict. A resumed DIR's kept steps must be of
# this kernel build (release, version string, modules' srcversion). Exit
# status: 0 the runs completed (with -b, -r: and no step regressed), 1 a
# run failed or a step regressed (compare.sh's exit 1), 2 usage, a DIR of
# another kernel build, a DIR or BASELINE that is no validate directory,
# or with -b, -r a step that could not be compared (missing, of another
# plan, compare.sh's exit 2) and none regressed.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
HERE=$(dirname "$0")
TOP=$HERE/..
USAGE="$PROG [-n N] [-w N] [-o DIR] [-m MODDIR] [-g DESCRIBE] [-p | -P WHAT] [-c SENDER:TARGET] [-i NUMIPI] [-L LOW,HIGH] [-d SECONDS] [-l LOOPS] [-b BASELINE] | $PROG -r DIR BASELINE"

n=5 warmup=1 out="" moddir="" describe="" prep="" what="" pair="" numipi=100000 levels="" dur=5 loops=100 base="" report=0
while getopts n:w:o:m:g:pP:c:i:L:d:l:b:rh opt; do
	case $opt in
	n) n=$OPTARG ;;
	w) warmup=$OPTARG ;;
	o) out=$OPTARG ;;
	m) moddir=$OPTARG ;;
	g) describe=$OPTARG ;;
	p) prep=-p ;;
	P) prep=-P what=$OPTARG ;;
	c) pair=$OPTARG ;;
	i) numipi=$OPTARG ;;
	L) levels=$OPTARG ;;
	d) dur=$OPTARG ;;
	l) loops=$OPTARG ;;
	b) base=$OPTARG ;;
	r) report=1 ;;
	*) usage_opt "$opt" ;;
	esac
done
shift $((OPTIND - 1))

# ---- the plan ---------------------------------------------------------------

CPU=${IPISTORM_SYSROOT:-}/sys/devices/system/cpu
# ncpus: the online CPUs, counted from cpu/online's ranges.
ncpus() {
	tr ',' '\n' <"$CPU/online" | awk -F - '{ n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n + 0 }'
}
online() { [ "$(cat "$CPU/cpu$1/online" 2>/dev/null || echo 1)" = 1 ] && [ -d "$CPU/cpu$1" ]; }

# plan: the plan's lines on stdout, from the options.
plan() {
	echo "format=ipistorm-validate/1"
	echo "runs=$n"
	echo "warmup=$warmup"
	echo "pair=$s:$t"
	echo "numipi=$numipi"
	echo "levels=$lo,$hi"
	echo "duration=$dur"
	echo "loops=$loops"
	echo "step=storm|ipistorm|numipi=$numipi single=1 offset=$((t - s)) cpulist=$s wait=1|"
	echo "step=reentry|idle_reentry|cpulist=$t|pairs=$s:$t numipi=$numipi"
	for l in "$lo" "$hi"; do
		echo "step=hackbench-$l|hackbench|groups=$l loops=$loops|"
		echo "step=cyclictest-$l|cyclictest|threads=$l duration=$dur|"
		echo "step=tbench-$l|tbench|clients=$l duration=$((dur < 2 ? 2 : dur))|"
	done
	echo "step=netperf-tcp_rr|netperf|test=TCP_RR duration=$dur|"
	echo "step=netperf-udp_rr|netperf|test=UDP_RR duration=$dur|"
}

# steps DIR: DIR's steps, "NAME|BENCH|PARAMS|STORM" lines.
steps() { sed -n 's/^step=//p' "$1/validate.txt"; }

# ---- the report -------------------------------------------------------------

# bad MSG: bad input, exit 2.
bad() {
	log "$*"
	exit 2
}

# primary DIR BASE: "GAIN SIGNIFICANT" of the step's primary metric from
# compare.sh's CSV (ipistorm-compare/4: the first metric record of the
# second directory; quoted fields may hold commas).
primary() {
	"$HERE/compare.sh" -f csv "$2" "$1" 2>/dev/null | awk '
	function fields(s,    n, q, c, i, f) {
		n = 1; q = 0; f = ""
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c == "\"") q = !q
			else if (c == "," && !q) { F[n++] = f; f = "" }
			else f = f c
		}
		F[n] = f
		return n
	}
	fields($0) >= 23 && F[2] == "metric" {
		if (name == "") name = F[3]
		if (F[3] == name && ++row == 2) { printf "%s %s\n", F[16], F[22]; exit }
	}'
}

# report DIR BASE: the report of DIR against BASE; its exit status the
# verdict's.
report() {
	for _d in "$1" "$2"; do
		[ -d "$_d" ] || bad "$_d: no such directory"
		[ -f "$_d/validate.txt" ] || bad "$_d: no validate.txt (not a validate directory)"
	done
	if [ "$(grep -v '^step=' "$1/validate.txt" | grep -v '^runs=\|^warmup=')" != "$(grep -v '^step=' "$2/validate.txt" | grep -v '^runs=\|^warmup=')" ]; then
		warn "$1 and $2 have different plans (validate.txt): the steps are compared by name"
	fi
	_tab=$(mktemp)
	regressed="" uncompared=""
	while IFS='|' read -r name bench params storm; do
		echo "== $name: $bench $params${storm:+ (storm: $storm)}"
		rc=0
		if [ ! -f "$2/$name/meta.txt" ]; then
			echo "(no step $name in $2)"
			rc=2
		else
			"$HERE/compare.sh" "$2/$name" "$1/$name" </dev/null || rc=$?
		fi
		echo
		g=""
		[ "$rc" = 2 ] || g=$(primary "$1/$name" "$2/$name")
		case $rc in
		0) v="no regression" ;;
		1) v=REGRESSED regressed="$regressed $name" ;;
		*) v="not compared" uncompared="$uncompared $name" ;;
		esac
		# a significant change of the primary metric that compare.sh
		# passed: its sign says which (worse: within the threshold)
		if [ "$rc" = 0 ] && [ "${g#* }" = 1 ]; then
			case ${g%% *} in -*) v=worse ;; *) v=better ;; esac
		fi
		printf '%-18s %-12s %-24s %10s %4s  %s\n' "$name" "$bench" "$(bench_get "$TOP" "$bench" primary)" \
			"${g%% *}" "$(case ${g#* } in 1) echo yes ;; *) echo no ;; esac)" "$v" >>"$_tab"
	done <<-EOF
	$(steps "$1")
	EOF
	echo "Validation of $(key kernel "$1/storm/meta.txt" 2>/dev/null || echo "$1") against $(key kernel "$2/storm/meta.txt" 2>/dev/null || echo "$2")"
	printf '%-18s %-12s %-24s %10s %4s  %s\n' step bench "primary metric" "gain %" sig verdict
	cat "$_tab"
	rm -f "$_tab"
	echo "gain %: the primary metric's change over the baseline's mean (positive: better); sig: significant (compare.sh, Welch's t-test, alpha 0.05); verdict: compare.sh's over every metric of the step (better, worse: the primary metric's significant change where compare.sh found no regression beyond its threshold)"
	if [ -n "$regressed" ]; then
		echo "Verdict: REGRESSED:$regressed${uncompared:+ (not compared:$uncompared)}"
		return 1
	elif [ -n "$uncompared" ]; then
		echo "Verdict: not comparable:$uncompared"
		return 2
	fi
	echo "Verdict: no regression in $(steps "$1" | grep -c .) steps"
}

if [ "$report" = 1 ]; then
	[ $# -eq 2 ] || usage_error "-r takes DIR and BASELINE"
	rc=0
	report "$1" "$2" || rc=$?
	exit "$rc"
fi
[ $# -eq 0 ] || usage_error "unexpected argument '$1'"

# ---- the runs ---------------------------------------------------------------

parse_uint -n "$n" 999 2
parse_uint -w "$warmup" 99
parse_uint -i "$numipi" 2147483647 1
parse_uint -d "$dur" 3600 1
parse_uint -l "$loops" 1000000 1
[ -z "$base" ] || [ -f "$base/validate.txt" ] || usage_error "-b: $base is not a validate directory (no validate.txt)"
if [ -z "$pair" ]; then
	if online 16 && online 8; then pair=8:16; else pair=0:1; fi
fi
case $pair in
*:*) s=${pair%%:*} t=${pair#*:} ;;
*) usage_error "-c: '$pair' is not SENDER:TARGET" ;;
esac
parse_uint -c "$s" 8191
parse_uint -c "$t" 8191
[ "$t" -gt "$s" ] || usage_error "-c: the target ($t) must be above the sender ($s): the published shape is cpulist=SENDER offset=TARGET-SENDER"
[ -n "$levels" ] || levels=1,$(ncpus)
case $levels in
*,*) lo=${levels%%,*} hi=${levels#*,} ;;
*) usage_error "-L: '$levels' is not LOW,HIGH" ;;
esac
parse_uint -L "$lo" 1024 1
parse_uint -L "$hi" 1024 1
[ "$hi" -gt "$lo" ] || usage_error "-L: HIGH ($hi) must be above LOW ($lo)"
check_text -o "$out"
check_text -g "$describe"
release=$(cat "${IPISTORM_SYSROOT:-}/proc/sys/kernel/osrelease" 2>/dev/null || uname -r)
kversion=$(first_line "${IPISTORM_SYSROOT:-}/proc/sys/kernel/version" unknown)
[ -n "$out" ] || out="results/validate-$release-$(date +%Y%m%d-%H%M%S)"

mkdir -p "$out"
plan >"$out/validate.txt.new"
if [ -f "$out/validate.txt" ]; then
	cmp -s "$out/validate.txt" "$out/validate.txt.new" ||
		{ rm -f "$out/validate.txt.new"; die "$out holds another plan (validate.txt): give a new -o, or the options it was made with"; }
	rm -f "$out/validate.txt.new"
	log "resuming $out"
else
	mv "$out/validate.txt.new" "$out/validate.txt"
fi

failed=""
while IFS='|' read -r name bench params storm; do
	d=$out/$name
	if [ "$(key status "$d/meta.txt" 2>/dev/null)" = ok ]; then
		[ "$(key kernel "$d/meta.txt")" = "$release" ] ||
			bad "$d was run on kernel $(key kernel "$d/meta.txt"), this is $release: one kernel a validate directory"
		# and one build of it: its version string, the modules'
		# srcversion (where both are known)
		[ "$(key kernel_version "$d/meta.txt")" = "$kversion" ] ||
			bad "$d was run on another build of $release: its kernel_version is '$(key kernel_version "$d/meta.txt")', this is '$kversion': one kernel a validate directory"
		for _m in $bench $(bench_get "$TOP" "$bench" storm); do
			_was=$(key "module.$_m.srcversion" "$d/meta.txt")
			_ko=${moddir:-$TOP}/$_m/$_m.ko
			[ -f "$_ko" ] || continue
			_now=$(ko_srcversion "$_ko")
			case $_was:$_now in '':* | *:unknown | unknown:*) continue ;; esac
			[ "$_was" = "$_now" ] ||
				bad "$d was run with another $_m module: its srcversion $_was, $_ko's $_now: one build a validate directory"
		done
		log "$name: done before, kept"
		continue
	fi
	# a run that did not complete is kept aside, never overwritten
	if [ -e "$d" ]; then
		k=1
		while [ -e "$d.failed-$k" ]; do k=$((k + 1)); done
		mv "$d" "$d.failed-$k"
		log "$name: the incomplete run kept as $d.failed-$k"
	fi
	log "$name: $bench $params${storm:+ -s \"$storm\"}"
	set -f
	# shellcheck disable=SC2086 # the step's parameters, a list
	set -- $params
	set +f
	rc=0
	sh "$HERE/run.sh" -n "$n" -w "$warmup" -o "$d" ${moddir:+-m "$moddir"} ${describe:+-g "$describe"} \
		${prep:+$prep} ${what:+"$what"} ${storm:+-s "$storm"} "$bench" "$@" >/dev/null </dev/null || rc=$?
	[ "$rc" = 0 ] || failed="$failed $name"
	[ "$rc" != 2 ] || die "$name: run.sh refused its arguments"
done <<EOF
$(steps "$out")
EOF
echo "$out"
[ -z "$failed" ] || die "runs failed:$failed (run validate.sh -o $out again to redo them)"
if [ -n "$base" ]; then
	rc=0
	report "$out" "$base" || rc=$?
	exit "$rc"
fi
exit 0
