#!/bin/sh
# validate.sh: validate a kernel the way its reviewers will, on one
# prepared machine, as root: the ipistorm storm in the published command
# line's shape, the idle re-entry check beside that storm, where the
# scheduler places a task woken from the sender (placement.ko), alone and
# beside bursty load on the target's LLC, and the
# companion battery (hackbench, cyclictest, tbench, netperf) at two load
# levels, N runs each through run.sh, one result directory per step; and,
# given a baseline validate directory, one report: compare.sh per step,
# one verdict and exit status (busybox sh).
#
#   validate.sh [-n N] [-w N] [-o DIR | -S SERIES] [-m MODDIR] [-g DESCRIBE] [-p | -P WHAT]
#               [-c SENDER:TARGET] [-i NUMIPI] [-L LOW,HIGH] [-d SECONDS] [-l LOOPS]
#               [-b BASELINE]
#   validate.sh -r DIR BASELINE
#     -n N       runs per step, 2 to 999 (default 5); -w N warm-ups (default 1)
#     -o DIR     the validate directory (default results/validate-<kernel
#                release>-<date>); an existing one of the same plan is
#                resumed: the steps whose run completed are kept
#     -S SERIES  one validation a boot, over several boots: this boot's
#                is SERIES/boot-K (SERIES/series.txt, format
#                ipistorm-validate-series/1, lists the boots); a report
#                of two series takes each boot's mean as one sample
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
#     -r         the report alone, of DIR against BASELINE (two validate
#                directories, or two series)
#
# DIR/validate.txt (format ipistorm-validate/2, docs/validate.md) is the
# plan: its options and one "step=NAME|BENCH|PARAMS|STORM|EXERCISED" line
# per step (EXERCISED: KEY>=N, each result of the step must meet it, else
# the step is not exercised and never compared),
# each a run.sh directory DIR/NAME. The report: per step compare.sh's text
# report, then a table of the steps (the primary metric's change, its
# significance, the step's verdict) and the verdict, over every test of
# every step as one family: p adjusted by Holm-Bonferroni
# (validate.awk). A resumed DIR's kept steps must be of this kernel build
# (release, version string, modules' srcversion). Exit status: 0 the runs
# completed (with -b, -r: and no step regressed), 1 a run failed or a
# step regressed, 2 usage, a DIR of another kernel build, a DIR or
# BASELINE that is no validate directory nor series, a series that
# cannot be pooled (under 2 boots, two plans, builds or machine states, a
# boot in both), or with -b, -r a step that could not be compared
# (missing, of another plan, compare.sh's exit 2) or was not exercised,
# and none regressed.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
HERE=$(dirname "$0")
TOP=$HERE/..
USAGE="$PROG [-n N] [-w N] [-o DIR | -S SERIES] [-m MODDIR] [-g DESCRIBE] [-p | -P WHAT] [-c SENDER:TARGET] [-i NUMIPI] [-L LOW,HIGH] [-d SECONDS] [-l LOOPS] [-b BASELINE] | $PROG -r DIR BASELINE"

n=5 warmup=1 out="" series="" moddir="" describe="" prep="" what="" pair="" numipi=100000 levels="" dur=5 loops=100 base="" report=0
while getopts n:w:o:S:m:g:pP:c:i:L:d:l:b:rh opt; do
	case $opt in
	n) n=$OPTARG ;;
	w) warmup=$OPTARG ;;
	o) out=$OPTARG ;;
	S) series=$OPTARG ;;
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

# llc_peers S T: the online CPUs of T's last-level cache (lib.sh's
# llc_list) but S, as a cpulist (T where sysfs names no cache).
llc_peers() {
	_llc=$(llc_list "$CPU/cpu$2")
	{ cat "$CPU/online"; echo "${_llc:-$2}"; } |
		awk -v s="$1" "$(cat "$HERE/cpulist.awk")"'
		NR == 1 { cpulist_expand($0, online) }
		NR == 2 { cpulist_expand($0, llc) }
		END {
			for (c in llc) if (c + 0 != s + 0 && (c in online)) peers[c] = 1
			print cpulist_compress(peers)
		}'
}

# plan: the plan's lines on stdout, from the options.
plan() {
	echo "format=ipistorm-validate/2"
	echo "runs=$n"
	echo "warmup=$warmup"
	echo "pair=$s:$t"
	echo "numipi=$numipi"
	echo "levels=$lo,$hi"
	echo "duration=$dur"
	echo "loops=$loops"
	# the storm's point is the polling target; the re-entry check's, the
	# re-entries (a percent of the storm's calls at least)
	echo "step=storm|ipistorm|numipi=$numipi single=1 offset=$((t - s)) cpulist=$s wait=1||total.poll_pct>=1"
	echo "step=reentry|idle_reentry|cpulist=$t|pairs=$s:$t numipi=$numipi|total.reentries>=$(((numipi + 99) / 100))"
	# a tenth of the storm's calls as wake-ups, the kernel choosing
	# between the waker's CPU and the target's
	echo "step=placement|placement|numwake=$(((numipi + 9) / 10)) waker=$s cpulist=$s,$t||total.wakeups>=1"
	# and beside bursty load (200 us on, 200 us asleep) on the target's
	# LLC: a kernel that calls busy CPUs idle puts wakees behind bursts
	_l=$(llc_peers "$s" "$t")
	echo "step=placement-burst|placement|numwake=$(((numipi + 9) / 10)) waker=$s cpulist=${_l:-$t} busy=${_l:-$t} busy_run_us=200 busy_sleep_us=200||total.wakeups>=1"
	for l in "$lo" "$hi"; do
		echo "step=hackbench-$l|hackbench|groups=$l loops=$loops||"
		echo "step=cyclictest-$l|cyclictest|threads=$l duration=$dur||"
		echo "step=tbench-$l|tbench|clients=$l duration=$((dur < 2 ? 2 : dur))||"
	done
	echo "step=netperf-tcp_rr|netperf|test=TCP_RR duration=$dur||"
	echo "step=netperf-udp_rr|netperf|test=UDP_RR duration=$dur||"
}

# steps DIR: DIR's steps, "NAME|BENCH|PARAMS|STORM|EXERCISED" lines
# (ipistorm-validate/1's have no EXERCISED).
steps() { sed -n 's/^step=//p' "$1/validate.txt"; }

# ---- the report -------------------------------------------------------------

# bad MSG: bad input, exit 2.
bad() {
	log "$*"
	exit 2
}

# exercised DIR RULE: every result of DIR meets RULE, "KEY>=N" (a step's
# measurement was exercised: a storm that polled, re-entries that
# happened); else its reason on stdout, exit 1. No RULE: exercised.
exercised() {
	[ -n "$2" ] || return 0
	_ek=${2%%>=*}
	# each result's value, a line ("" where it has none), then the least
	for _ef in "$1"/iter-[0-9]*.txt; do
		[ ! -f "$_ef" ] || echo "v=$(key "$_ek" "$_ef")"
	done | awk -v k="$_ek" -v n="${2#*>=}" -v d="$1" '
		{ v = substr($0, 3) }
		v == "" { none = 1 }
		v != "" && (m == "" || v + 0 < m) { m = v + 0 }
		END {
			if (none || m == "") { print "no " k " in a result of " d; exit 1 }
			if (m < n + 0) { print k " is " m " in a result of " d ", want " n " or more"; exit 1 }
		}'
}

# ---- series -----------------------------------------------------------------

# series_boots SERIES: its boots' validate directories, in boot order.
series_boots() {
	sed -n 's/^boot=\([0-9]*\)|.*/\1/p' "$1/series.txt" | sort -n | while read -r _sb; do
		printf '%s/boot-%s\n' "$1" "$_sb"
	done
}

# members DIR: the validate directories DIR stands for, a line each:
# itself, or a series' boots.
members() {
	if [ -f "$1/series.txt" ]; then series_boots "$1"; else echo "$1"; fi
}

# build META: the kernel build a run.sh directory's meta.txt names: its
# release, version string and modules' srcversion.
build() { grep -E '^(kernel|kernel_version|module\.[^.]*\.srcversion)=' "$1" | sort; }

# pool SERIES OUT: OUT, a validate directory of SERIES' plan whose step
# STEP holds a run per boot, iter-K.txt the mean of boot K's runs (of
# every key each run has, numbers averaged, text the first run's, a key
# of numbers and text in none), so
# that compare.sh's tests take the boot as the unit: the variation
# between boots is in the sample. A step some boot did not complete is
# left out (said): not compared. Each boot's step must be of the first's
# kernel build and machine state (compare.sh -x), else exit 2.
pool() {
	[ "$(first_line "$1/series.txt")" = format=ipistorm-validate-series/1 ] ||
		bad "$1/series.txt: not of format ipistorm-validate-series/1"
	_pb=$(series_boots "$1")
	_pn=$(printf '%s\n' "$_pb" | grep -c . || :)
	[ "$_pn" -ge 2 ] ||
		bad "$1: a series of $_pn boot(s): its boot is the unit, 2 at least a side (3 or more to see a change; run validate.sh -S $1 again after a reboot)"
	_p1=$(printf '%s\n' "$_pb" | head -n 1)
	mkdir -p "$2"
	while read -r _b; do
		[ -f "$_b/validate.txt" ] || bad "$_b: no validate.txt (a boot of the series $1 that did not start)"
		cmp -s "$_b/validate.txt" "$_p1/validate.txt" || bad "$_b has another plan than $_p1: a series is one plan"
	done <<-EOF
	$_pb
	EOF
	cp "$_p1/validate.txt" "$2/validate.txt"
	while IFS='|' read -r _ps _rest; do
		_j=0
		mkdir -p "$2/$_ps"
		while read -r _b; do
			if [ "$(key status "$_b/$_ps/meta.txt" 2>/dev/null)" != ok ]; then
				warn "$_b/$_ps: not completed: the step is left out of $1"
				rm -r "${2:?}/$_ps"
				break
			fi
			if [ "$_b" != "$_p1" ]; then
				[ "$(build "$_b/$_ps/meta.txt")" = "$(build "$_p1/$_ps/meta.txt")" ] ||
					bad "$_b/$_ps was run on another kernel build than $_p1/$_ps ($(build "$_b/$_ps/meta.txt" | join_lines ' ')): a series is one build"
				"$HERE/compare.sh" -x -f csv "$_p1/$_ps" "$_b/$_ps" >/dev/null 2>"$2/.why" </dev/null ||
					[ $? = 1 ] || bad "$_b/$_ps is not of $_p1/$_ps's machine and command (compare.sh -x: $(grep -v '^compare.sh: note' "$2/.why" | head -n 1)): a series is one machine state"
			fi
			_j=$((_j + 1))
			awk '
				FNR == 1 { nf++ }
				{
					i = index($0, "=")
					if (!i) next
					k = substr($0, 1, i - 1)
					v = substr($0, i + 1)
					if ((nf, k) in seen) next
					seen[nf, k] = 1
					if (!(k in n)) { order[++nk] = k; first[k] = v }
					n[k]++
					if (v ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/) { sum[k] += v; num[k] = 1 }
					else text[k] = 1
				}
				END {
					# a key every run has; a number in some, text in
					# others (a "nan"): none
					for (j = 1; j <= nk; j++) {
						k = order[j]
						if (n[k] < nf || ((k in text) && (k in num))) continue
						if (k in text) print k "=" first[k]
						else printf "%s=%.15g\n", k, sum[k] / nf
					}
				}' "$_b/$_ps"/iter-[0-9]*.txt >"$2/$_ps/iter-$(printf %03d "$_j").txt"
		done <<-EOF
		$_pb
		EOF
		[ ! -d "$2/$_ps" ] || sed "s/^iterations=.*/iterations=$_j/" "$_p1/$_ps/meta.txt" >"$2/$_ps/meta.txt"
	done <<-EOF
	$(steps "$_p1")
	EOF
}

# order DIR BASE: the two series' boots in the order they began, A a
# boot of DIR, B of BASE ("A B A B": interleaved); exit 2 when a boot is
# in both.
order() {
	{
		sed -n 's/^boot=[0-9]*|\([^|]*\)|\([0-9]*\)$/\2 \1 A/p' "$1/series.txt"
		sed -n 's/^boot=[0-9]*|\([^|]*\)|\([0-9]*\)$/\2 \1 B/p' "$2/series.txt"
	} | sort -n | awk '
		seen[$2]++ { print "boot " $2 " is in both series"; bad = 1; exit }
		{ o = o (NR > 1 ? " " : "") $3 }
		END { if (bad) exit 2; print o }'
}

# each_exercised DIR STEP RULE: exercised, in every validation DIR stands
# for (each boot of a series).
each_exercised() {
	while read -r _eb; do
		exercised "$_eb/$2" "$3" || return 1
	done <<-EOF
	$(members "$1")
	EOF
}

# report DIR BASE: the report of DIR against BASE; its exit status the
# verdict's. compare.sh reports each step; the verdict is over every
# test of every step at once (validate.awk: Holm-Bonferroni over the
# family), a step that was not exercised never compared.
report() {
	for _d in "$1" "$2"; do
		[ -d "$_d" ] || bad "$_d: no such directory"
		[ -f "$_d/validate.txt" ] || [ -f "$_d/series.txt" ] ||
			bad "$_d: no validate.txt (not a validate directory) and no series.txt (not a series)"
	done
	[ "$(cd "$1" && pwd -P)" != "$(cd "$2" && pwd -P)" ] || bad "$1 is the baseline itself: give two validations"
	_tab=$(mktemp -d)
	trap 'rm -rf "$_tab"' EXIT
	_order=""
	if [ -f "$1/series.txt" ] && [ -f "$2/series.txt" ]; then
		_order=$(order "$1" "$2") || { bad "$1 and $2: $_order: a boot validates one kernel"; }
		_o1=$1 _o2=$2
		pool "$1" "$_tab/a"
		pool "$2" "$_tab/b"
		set -- "$_tab/a" "$_tab/b"
	elif [ -f "$1/series.txt" ] || [ -f "$2/series.txt" ]; then
		bad "$1 and $2: a series against a single validation: compare a series with a series (the boot the unit) or a validation with a validation"
	else
		_o1=$1 _o2=$2
	fi
	if [ -n "$_order" ]; then
		_series="Series: $(members "$_o1" | grep -c .) boots of $_o1 (A) against $(members "$_o2" | grep -c .) of $_o2 (B, the baseline), begun in the order $_order; a sample is a boot's mean of its runs"
		echo "$_series"
		echo
	fi
	if [ "$(grep -v '^step=' "$1/validate.txt" | grep -v '^runs=\|^warmup=')" != "$(grep -v '^step=' "$2/validate.txt" | grep -v '^runs=\|^warmup=')" ]; then
		warn "$_o1 and $_o2 have different plans (validate.txt): the steps are compared by name"
	fi
	: >"$_tab/rows"
	_prim="" _k=0
	while IFS='|' read -r name bench params storm exercise; do
		echo "== $name: $bench $params${storm:+ (storm: $storm)}"
		_crc=0
		if [ ! -f "$2/$name/meta.txt" ] || [ ! -f "$1/$name/meta.txt" ]; then
			echo "(no completed step $name in $([ -f "$2/$name/meta.txt" ] && echo "$_o1" || echo "$_o2"))"
			_crc=2
		elif ! _why=$(each_exercised "$_o1" "$name" "$exercise") || ! _why=$(each_exercised "$_o2" "$name" "$exercise"); then
			echo "(not exercised: $_why: not compared)"
			_crc=3
		else
			"$HERE/compare.sh" ${_order:+-l "B (baseline),A"} "$2/$name" "$1/$name" </dev/null || _crc=$?
		fi
		echo
		if [ "$_crc" -le 1 ]; then
			_k=$((_k + 1))
			"$HERE/compare.sh" -f csv ${_order:+-l "B (baseline),A"} "$2/$name" "$1/$name" >"$_tab/$_k.csv" 2>/dev/null </dev/null || :
			printf '%s\n' "$name" >"$_tab/$_k.step"
		fi
		_pm=$(bench_get "$TOP" "$bench" primary)
		_prim="$_prim $name=$_pm"
		echo "$name $bench $_pm $_crc" >>"$_tab/rows"
	done <<-EOF
	$(steps "$1")
	EOF
	# awk's arguments: step=NAME, then that step's CSV
	_i=1
	while [ "$_i" -le "$_k" ]; do
		set -- "$@" "step=$(cat "$_tab/$_i.step")" "$_tab/$_i.csv"
		_i=$((_i + 1))
	done
	_dir=$1 _base=$2
	shift 2
	awk -v alpha=0.05 -v primaries="$_prim" -f "$HERE/stats.awk" -f "$HERE/validate.awk" "$@" </dev/null >"$_tab/verdicts"
	regressed="" uncompared="" unexercised=""
	echo "Validation of $(key kernel "$_dir/storm/meta.txt" 2>/dev/null || echo "$_o1") against $(key kernel "$_base/storm/meta.txt" 2>/dev/null || echo "$_o2")"
	[ -z "$_order" ] || echo "$_series"
	printf '%-18s %-12s %-24s %10s %4s  %s\n' step bench "primary metric" "gain %" sig verdict
	while read -r name bench pm _rr; do
		g=n/a sg=no
		case $_rr in
		2) v="not compared" uncompared="$uncompared $name" ;;
		3) v="not exercised" unexercised="$unexercised $name" ;;
		*)
			read -r _s g sg v <<-EOF
			$(grep "^$name " "$_tab/verdicts")
			EOF
			case $sg in 1) sg=yes ;; *) sg=no ;; esac
			[ "$v" != REGRESSED ] || regressed="$regressed $name"
			;;
		esac
		printf '%-18s %-12s %-24s %10s %4s  %s\n' "$name" "$bench" "$pm" "$g" "$sg" "$v"
	done <"$_tab/rows"
	_nt=$(sed -n 's/^tests //p' "$_tab/verdicts")
	_ns=$(steps "$_dir" | grep -c .)
	rm -rf "$_tab"
	echo "gain %: the primary metric's change over the baseline's mean (positive: better); sig: significant at alpha 0.05 after Holm-Bonferroni over the ${_nt:-0} tests of every step (each directed metric's mean, Welch's t-test, and spread, Brown-Forsythe; compare.sh's reports above show each p unadjusted); verdict: REGRESSED when a regression compare.sh found stays significant after the adjustment, better or worse the primary metric's significant change, not exercised a step whose measurement did not happen (never compared)"
	if [ -n "$regressed" ]; then
		echo "Verdict: REGRESSED:$regressed${uncompared:+ (not compared:$uncompared)}${unexercised:+ (not exercised:$unexercised)}"
		return 1
	elif [ -n "$uncompared" ]; then
		echo "Verdict: not comparable:$uncompared${unexercised:+ (not exercised:$unexercised)}"
		return 2
	elif [ -n "$unexercised" ]; then
		echo "Verdict: not exercised:$unexercised"
		return 2
	fi
	echo "Verdict: no regression in $_ns steps"
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
[ -z "$base" ] || [ -f "$base/validate.txt" ] || [ -f "$base/series.txt" ] ||
	usage_error "-b: $base is not a validate directory (no validate.txt) nor a series (no series.txt)"
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
check_text -S "$series"
[ -z "$out" ] || [ -z "$series" ] || usage_error "-o and -S: one or the other"
check_text -g "$describe"
release=$(cat "${IPISTORM_SYSROOT:-}/proc/sys/kernel/osrelease" 2>/dev/null || uname -r)
kversion=$(first_line "${IPISTORM_SYSROOT:-}/proc/sys/kernel/version" unknown)
# this_build D BENCH: the completed step D was run on this kernel build:
# its release, its version string and its modules' srcversion (where
# both are known); else exit 2.
this_build() {
	[ "$(key kernel "$1/meta.txt")" = "$release" ] ||
		bad "$1 was run on kernel $(key kernel "$1/meta.txt"), this is $release: one kernel a validate directory"
	[ "$(key kernel_version "$1/meta.txt")" = "$kversion" ] ||
		bad "$1 was run on another build of $release: its kernel_version is '$(key kernel_version "$1/meta.txt")', this is '$kversion': one kernel a validate directory"
	for _m in $2 $(bench_get "$TOP" "$2" storm); do
		_was=$(key "module.$_m.srcversion" "$1/meta.txt")
		_ko=${moddir:-$TOP}/$_m/$_m.ko
		[ -f "$_ko" ] || continue
		_now=$(ko_srcversion "$_ko")
		case $_was:$_now in '':* | *:unknown | unknown:*) continue ;; esac
		[ "$_was" = "$_now" ] ||
			bad "$1 was run with another $_m module: its srcversion $_was, $_ko's $_now: one build a validate directory"
	done
}

# A series: this boot's validation is SERIES/boot-K, K this boot's
# (resumed) or the next; every boot of the series of this plan and build.
if [ -n "$series" ]; then
	bootid=$(first_line "${IPISTORM_SYSROOT:-}/proc/sys/kernel/random/boot_id")
	[ -n "$bootid" ] || bad "no boot id (/proc/sys/kernel/random/boot_id): a series needs to tell its boots apart"
	if [ ! -f "$series/series.txt" ]; then
		[ ! -e "$series" ] || [ -z "$(ls -A "$series")" ] ||
			bad "$series exists and is not a series (no series.txt): give a new -S"
		mkdir -p "$series"
		echo "format=ipistorm-validate-series/1" >"$series/series.txt"
	fi
	[ "$(first_line "$series/series.txt")" = format=ipistorm-validate-series/1 ] ||
		bad "$series/series.txt: not of format ipistorm-validate-series/1"
	_pl=$(plan)
	while read -r _b; do
		[ -n "$_b" ] || continue
		[ ! -f "$_b/validate.txt" ] || [ "$(cat "$_b/validate.txt")" = "$_pl" ] ||
			die "$_b holds another plan (validate.txt): a series is one plan; give a new -S, or the options it was made with"
		while IFS='|' read -r name bench _rest; do
			[ "$(key status "$_b/$name/meta.txt" 2>/dev/null)" != ok ] || this_build "$_b/$name" "$bench"
		done <<-EOF
		$(printf '%s\n' "$_pl" | sed -n 's/^step=//p')
		EOF
	done <<-EOF
	$(series_boots "$series")
	EOF
	k=$(sed -n "s/^boot=\([0-9]*\)|$bootid|.*/\1/p" "$series/series.txt")
	if [ -z "$k" ]; then
		k=$(($(sed -n 's/^boot=\([0-9]*\)|.*/\1/p' "$series/series.txt" | sort -n | tail -n 1) + 1))
		echo "boot=$k|$bootid|$(date +%s)" >>"$series/series.txt"
		log "$series: boot $k"
	fi
	out=$series/boot-$k
fi

[ -n "$out" ] || out="results/validate-$release-$(date +%Y%m%d-%H%M%S)"
[ -n "$series" ] || [ ! -f "$(dirname "$out")/series.txt" ] ||
	bad "$out is a boot of the series $(dirname "$out"): run -S $(dirname "$out"), in the boot it is of"

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
while IFS='|' read -r name bench params storm _exercised; do
	d=$out/$name
	if [ "$(key status "$d/meta.txt" 2>/dev/null)" = ok ]; then
		this_build "$d" "$bench"
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
[ -z "$failed" ] || [ -n "$series" ] || die "runs failed:$failed (run validate.sh -o $out again to redo them)"
[ -z "$failed" ] || die "runs failed:$failed (run validate.sh -S $series again in this boot to redo them; after a reboot, remove $out and its line in $series/series.txt to drop this boot)"
if [ -n "$base" ]; then
	rc=0
	report "${series:-$out}" "$base" || rc=$?
	exit "$rc"
fi
exit 0
