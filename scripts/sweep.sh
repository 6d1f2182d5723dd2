#!/bin/sh
# sweep.sh: run one benchmark over a grid of configurations, as root, on
# the measured machine: CPU pairs by distance class (topology.sh) and lists
# of parameter values, N runs per cell through run.sh, one result
# directory per cell, resumable (busybox sh).
#
#   sweep.sh [-n N] [-w N] [-o DIR] [-m MODDIR] [-g DESCRIBE] [-s STORM] [-p | -P WHAT]
#            [-t CLASSES] [-a] [-x] [-l PARAM=V1,V2,...]... BENCH [PARAM=VALUE...]
#     BENCH, PARAMs, -n, -w, -m, -g, -s, -p, -P
#                what run.sh takes (docs/run.md), a module or a program
#                benchmark, given to every cell's run.sh; the PARAMs are
#                the grid's fixed parameters, they and the lists' values
#                held to run.sh's rules before anything is made
#     -o DIR     the sweep directory (default
#                results/sweep-BENCH-<kernel release>-<date>); an existing
#                one is resumed: the same command skips its complete cells
#     -t CLASSES CPU pair classes, comma-separated (smt, llc, cross-llc,
#                cross-node, cross-die, cross-socket) or all: an axis
#                "class" whose cells run topology.sh -c CLASS's pair(s) as
#                the pairs parameter the bench declares (cpus= pairs:P);
#                a class the machine lacks is said and skipped
#     -a         each class's pairs: up to 8 (topology.sh -a), not one
#     -x         leave CPU0 out of the pairs (topology.sh -n)
#     -l P=LIST  an axis: parameter P takes each value of LIST in turn
#                (comma-separated, each of letters, digits, . _ + -);
#                repeatable: the grid is the cartesian product of the
#                axes, class first, then the lists in the order given
#
# One cell is one run.sh result directory, DIR/NAME, NAME its grid
# values: class=smt,delay=1000 (the axes in order). DIR/sweep.txt is the
# index (format ipistorm-sweep/2, docs/sweep.md): bench, kernel build, the
# grid, each cell's name and parameters. Rerun on an existing DIR, the
# same command skips each cell whose meta.txt says status=ok and redoes
# the others (an incomplete cell directory is kept as NAME.incomplete-N);
# a DIR of another kernel (release, version string, the modules'
# srcversion and directory), of another grid or holding a cell that is
# not the index's is refused (exit 2) before anything runs. One
# sweep.sh at a time: /run/ipistorm/sweep-lock (the owner's pid); the
# runs take run.sh's own lock. A signal ends the sweep: the run in
# progress gets SIGTERM (a run started in the background ignores SIGINT
# and SIGQUIT) and cleans up as run.sh does; the cell stays incomplete.
# Prints DIR at the end. Exit: 0 every cell complete, 1 a cell failed
# (the others were run; rerun to redo it) or the sweep was interrupted,
# 2 usage or a DIR that cannot be resumed.
#
# For tests: IPISTORM_SYSROOT as run.sh's (topology.sh -r reads its
# /sys), IPISTORM_RUN replaces run.sh.
set -eu
trap 'exit 1' HUP INT QUIT TERM PIPE USR1 USR2 ALRM

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
HERE=$(dirname "$0")
TOP=$HERE/..
BENCHES=$(suite_benches "$TOP" | tr '\n' ' ')
USAGE="$PROG [-n N] [-w N] [-o DIR] [-m MODDIR] [-g DESCRIBE] [-s STORM] [-p | -P WHAT] [-t CLASSES] [-a] [-x] [-l PARAM=V1,V2,...]... $(echo "$BENCHES" | sed 's/ *$//; s/ /|/g') [PARAM=VALUE...]"
CLASSES="smt llc cross-llc cross-node cross-die cross-socket"
RUN=${IPISTORM_RUN:-$HERE/run.sh}
ROOT=${IPISTORM_SYSROOT:-}
LOCK=$ROOT/run/ipistorm/sweep-lock
nl='
'

# ---- signals and the end of the sweep ---------------------------------------

sig="" child="" locked=0 TMP=""
SIGNALS="HUP INT QUIT TERM PIPE USR1 USR2 ALRM"
# on_signal SIG: recorded and passed on to the run in progress as SIGTERM;
# the sweep ends when that run has cleaned up (run_cell).
on_signal() {
	[ -n "$sig" ] || sig=$1
	[ -z "$child" ] || { kill -TERM "$child" 2>/dev/null || :; return 0; }
	exit 1
}
# refuse MSG: the sweep directory cannot be resumed so, exit 2.
refuse() {
	log "$*"
	exit 2
}
cleanup() {
	set +e
	[ "$locked" = 0 ] || lock_release "$LOCK"
	[ -z "$TMP" ] || rm -rf "$TMP"
	[ -z "$sig" ] || log "interrupted by SIG$sig: rerun the same command to resume"
}
trap 'cleanup' EXIT
for _s in $SIGNALS; do
	# shellcheck disable=SC2064 # the signal's name, now
	trap "on_signal $_s" "$_s"
done


# ---- the command line -------------------------------------------------------

n=5 warmup=1 out="" moddir=$TOP describe="" storm="" what="" classes="" allpairs=0 nocpu0=0 lists=""
while getopts n:w:o:m:g:s:pP:t:axl:h opt; do
	case $opt in
	n) n=$OPTARG ;;
	w) warmup=$OPTARG ;;
	o) out=$OPTARG ;;
	m) moddir=$OPTARG ;;
	g) describe=$OPTARG ;;
	s) storm=$OPTARG ;;
	p) what=quiet ;;
	P) what=$OPTARG ;;
	t) classes=$OPTARG ;;
	a) allpairs=1 ;;
	x) nocpu0=1 ;;
	l)
		check_text -l "$OPTARG"
		case $OPTARG in
		[a-z]*=?*) ;;
		*) usage_error "-l: '$OPTARG' is not PARAM=V1,V2,..." ;;
		esac
		case ${OPTARG%%=*} in *[!a-z0-9_]*) usage_error "-l: '${OPTARG%%=*}' is not a parameter's name" ;; esac
		case ${OPTARG#*=} in
		*[!A-Za-z0-9._+,-]* | ,* | *, | *,,*)
			usage_error "-l: '${OPTARG#*=}' is not a comma-separated list of values made of letters, digits, '.', '_', '+' and '-'"
			;;
		esac
		lists="$lists${lists:+$nl}$OPTARG"
		;;
	*) usage_opt "$opt" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage_error "no benchmark named"
bench=$1
shift
case " $BENCHES" in
*" $bench "*) ;;
*) usage_error "unknown benchmark '$bench' (one of: $BENCHES)" ;;
esac
bench_check "$TOP" "$bench" || die "refusing to sweep $bench: its declaration $bench/bench.conf is broken"
parse_uint -n "$n" 999 1
parse_uint -w "$warmup" 99
check_text -o "$out"
check_text -m "$moddir"
check_text -g "$describe"
check_text -s "$storm"
check_text -P "$what"
# The fixed parameters are words of the index and of each cell's line.
for p in "$@"; do
	check_text parameter "$p"
	case $p in
	*[[:space:]]*) usage_error "parameter '$p' holds a blank" ;;
	[a-z]*=*) ;;
	*) usage_error "parameter '$p' is not PARAM=VALUE" ;;
	esac
done
fixed="$*"
kind=$(bench_kind "$TOP" "$bench")
# run_rules PARAM=VALUE...: run.sh's rules for them (lib.sh), before anything
# is made: a value a cell's run.sh would refuse is refused here.
run_rules() {
	check_params "$@"
	[ "$kind" != program ] || program_params "$TOP" "$bench" "$@"
}
run_rules "$@"
# The modules a cell loads, from MODDIR: the bench's (a module) and its
# storm's (-s).
mods=""
[ "$kind" != module ] || mods=$bench
[ -z "$storm" ] || mods="$mods $(bench_get "$TOP" "$bench" storm)"
for _m in $mods; do
	[ -f "$moddir/$_m/$_m.ko" ] || usage_error "no $moddir/$_m/$_m.ko (build with make, or give -m)"
done

# given NAME: a fixed parameter sets NAME.
given() {
	for _g in $fixed; do
		[ "${_g%%=*}" != "$1" ] || return 0
	done
	return 1
}

# The class axis: the bench's pairs parameter (cpus= pairs:P), the
# classes asked, each once.
pairparam=""
if [ -n "$classes" ]; then
	for _w in $(bench_get "$TOP" "$bench" cpus); do
		case $_w in pairs:*)
			pairparam=${_w#pairs:}
			break
			;;
		esac
	done
	[ -n "$pairparam" ] ||
		usage_error "-t: $bench takes no CPU pairs (cpus= of $bench/bench.conf has no pairs:PARAM rule)"
	! given "$pairparam" || usage_error "-t: $pairparam= is given as a fixed parameter too"
	[ "$classes" != all ] || classes=$(echo "$CLASSES" | tr ' ' ,)
	case $classes in '' | ,* | *, | *,,*) usage_error "-t: '$classes' is not a comma-separated list of classes" ;; esac
	_cl=""
	for _c in $(echo "$classes" | tr , ' '); do
		case " $CLASSES " in
		*" $_c "*) ;;
		*) usage_error "-t: unknown class '$_c' (classes: $CLASSES, or all)" ;;
		esac
		case " $_cl " in *" $_c "*) usage_error "-t: class $_c given twice" ;; esac
		_cl="$_cl $_c"
	done
	classes=${_cl# }
elif [ "$allpairs$nocpu0" != 00 ]; then
	usage_error "-a and -x choose the pairs of -t"
fi
# The lists: "PARAM V1 V2 ..." lines, in the order given.
axes="" _seen=""
while IFS= read -r _l; do
	[ -n "$_l" ] || continue
	_p=${_l%%=*}
	case " $_seen " in *" $_p "*) usage_error "-l: $_p is listed twice" ;; esac
	_seen="$_seen $_p"
	! given "$_p" || usage_error "-l: $_p= is given as a fixed parameter too"
	[ -z "$classes" ] || [ "$_p" != "$pairparam" ] || usage_error "-l: $_p is the pairs of -t"
	[ -z "$classes" ] || [ "$_p" != class ] || usage_error "-l: class is the axis of -t"
	_v=$(echo "${_l#*=}" | tr , ' ')
	# shellcheck disable=SC2086 # the values, words
	[ -z "$(printf '%s\n' $_v | sort | uniq -d)" ] || usage_error "-l: $_p lists a value twice"
	for _x in $_v; do run_rules "$_p=$_x"; done
	axes="$axes${axes:+$nl}$_p $_v"
done <<EOT
$lists
EOT
[ -n "$classes" ] || [ -n "$axes" ] || usage_error "no grid: give -t CLASSES or -l PARAM=LIST"

release=$(first_line "$ROOT/proc/sys/kernel/osrelease")
[ -n "$release" ] || release=$(uname -r)
# The kernel build, beyond its release: its version string (the build's
# number and date) and the modules' srcversion (a digest of their
# sources, from the .ko), with the directory they are loaded from.
kversion=$(first_line "$ROOT/proc/sys/kernel/version" unknown)
modules=""
for _m in $mods; do
	modules="$modules $_m:$(ko_srcversion "$moddir/$_m/$_m.ko")"
done
modules=${modules# }
moddir_abs=$(cd "$moddir" && pwd -P)
[ -n "$out" ] || out="results/sweep-$bench-$release-$(date +%Y%m%d-%H%M%S)"
if [ -e "$out" ] && [ ! -f "$out/sweep.txt" ]; then
	refuse "$out exists and is not a sweep directory (no sweep.txt): refusing to write into it"
fi

# ---- one sweep at a time, the grid ------------------------------------------

TMP=$(mktemp -d)
mkdir -p "$ROOT/run/ipistorm" 2>/dev/null || die "cannot create $ROOT/run/ipistorm"
if ! lock_take "$LOCK"; then
	[ -n "$LOCK_OWNER" ] ||
		die "$LOCK has been neither held by a live sweep.sh nor free for 10 s (remove it and $LOCK.break if no sweep.sh runs)"
	die "another sweep.sh (pid $LOCK_OWNER) holds $LOCK: one sweep at a time (remove $LOCK if no sweep.sh runs)"
fi
locked=1

# The classes' pairs on this machine, "CLASS PAIRS" lines; a class it
# lacks is said and left out.
topts=""
[ "$allpairs" = 0 ] || topts="$topts -a"
[ "$nocpu0" = 0 ] || topts="$topts -n"
: >"$TMP/pairs"
skipped=""
for _c in $classes; do
	_rc=0
	# shellcheck disable=SC2086 # options, words
	_pr=$("$HERE/topology.sh" ${ROOT:+-r "$ROOT"} $topts -c "$_c" 2>/dev/null) || _rc=$?
	case $_rc in
	0) echo "$_c $_pr" >>"$TMP/pairs" ;;
	1)
		log "no $_c pair on this machine: class $_c skipped"
		skipped="$skipped $_c"
		;;
	*) die "topology.sh -c $_c failed (exit $_rc)" ;;
	esac
done
if [ -n "$classes" ]; then
	[ -s "$TMP/pairs" ] || die "no class of -t has a pair on this machine ($classes)"
	axes="class $(cut -d ' ' -f 1 "$TMP/pairs" | tr '\n' ' ' | sed 's/ $//')${axes:+$nl$axes}"
fi

# The cells, "NAME PARAMS" lines, the first axis outermost: NAME the grid
# values, PARAMS the fixed ones and the cell's.
printf '%s\n' "$axes" | PAIRS=$TMP/pairs awk -v fixed="$fixed" -v pp="$pairparam" '
	BEGIN { while ((getline l <ENVIRON["PAIRS"]) > 0) { split(l, w, " "); pair[w[1]] = w[2] } }
	{ name[NR] = $1; nv[NR] = NF - 1; for (i = 2; i <= NF; i++) v[NR, i - 1] = $i }
	END {
		for (i = 1; i <= NR; i++) at[i] = 1
		while (1) {
			c = ""; p = fixed
			for (i = 1; i <= NR; i++) {
				x = v[i, at[i]]
				c = c (i > 1 ? "," : "") name[i] "=" x
				p = p (p == "" ? "" : " ") (name[i] == "class" && pp != "" ? pp "=" pair[x] : name[i] "=" x)
			}
			print c " " p
			for (i = NR; i >= 1 && at[i] == nv[i]; i--) at[i] = 1
			if (i < 1) break
			at[i]++
		}
	}' >"$TMP/cells"
ncells=$(grep -c . "$TMP/cells")

# The index, format ipistorm-sweep/2 (docs/sweep.md): every line but
# date= is the sweep's identity, compared when it is resumed.
{
	echo "format=ipistorm-sweep/2"
	echo "bench=$bench"
	echo "kernel=$release"
	echo "kernel_version=$kversion"
	echo "modules=$modules"
	echo "moddir=$moddir_abs"
	echo "kernel_describe=${describe:-unknown}"
	echo "params=$fixed"
	echo "storm=$storm"
	echo "iterations=$n"
	echo "warmup=$warmup"
	echo "prepare=${what:-none}"
	echo "classes=$classes"
	echo "pairs_param=$pairparam"
	echo "topology_options=${topts# }"
	echo "skipped=${skipped# }"
	printf '%s\n' "$axes" | sed 's/^/axis=/'
	echo "cells=$ncells"
	sed 's/^/cell=/' "$TMP/cells"
} >"$TMP/index"

made=0
if [ -f "$out/sweep.txt" ]; then
	# resumed: the same kernel, the same grid, cells of the index only
	_was=$(key kernel "$out/sweep.txt")
	[ "$_was" = "$release" ] ||
		refuse "$out is a sweep on kernel ${_was:-unknown}, this is $release: refusing to mix kernels in one sweep (give a new -o)"
	[ "$(key format "$out/sweep.txt")" = ipistorm-sweep/2 ] ||
		refuse "$out is a sweep of format $(key format "$out/sweep.txt"), which does not say its kernel build: it cannot be resumed (give a new -o)"
	for _k in kernel_version modules moddir; do
		_was=$(key "$_k" "$out/sweep.txt")
		_now=$(awk -v k="$_k=" 'index($0, k) == 1 { print substr($0, length(k) + 1); exit }' "$TMP/index")
		[ "$_was" = "$_now" ] ||
			refuse "$out is a sweep on another build of $release: its $_k is '$_was', here '$_now': refusing to mix kernel builds in one sweep (give a new -o)"
	done
	grep -v '^date=' "$out/sweep.txt" >"$TMP/was"
	_d=$(awk 'NR == FNR { a[NR] = $0; n = NR; next }
		{ if (FNR > n || a[FNR] != $0) { print a[FNR] "|" $0; found = 1; exit } m = FNR }
		END { if (!found && m < n) print a[m + 1] "|" }' "$TMP/was" "$TMP/index")
	[ -z "$_d" ] ||
		refuse "$out is another sweep: its '${_d%%|*}' against '${_d#*|}' here: refusing to change a sweep's grid (give a new -o)"
	while read -r _c _p; do
		_m=$out/$_c/meta.txt
		{ [ -f "$_m" ] && [ "$(key status "$_m")" = ok ]; } || continue
		for _k in bench:"$bench" kernel:"$release" kernel_version:"$kversion" params:"$_p" iterations:"$n"; do
			[ "$(key "${_k%%:*}" "$_m")" = "${_k#*:}" ] ||
				refuse "$out/$_c is not this sweep's cell: its ${_k%%:*} is '$(key "${_k%%:*}" "$_m")', want '${_k#*:}'"
		done
	done <"$TMP/cells"
	log "resuming $out: $ncells cells"
else
	mkdir -p "$out" || die "cannot create $out"
	made=1
	{
		cat "$TMP/index"
		echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	} >"$out/sweep.txt.new"
	mv "$out/sweep.txt.new" "$out/sweep.txt"
fi

# ---- the runs ---------------------------------------------------------------

# run_cell DIR PARAMS...: run.sh into DIR, in the background so that a
# signal reaches this shell at once (on_signal passes it on); its exit in
# rc once it has ended.
run_cell() {
	_d=$1
	shift
	"$RUN" -o "$_d" -n "$n" -w "$warmup" -m "$moddir" ${describe:+-g "$describe"} \
		${storm:+-s "$storm"} ${what:+-P "$what"} "$bench" "$@" >/dev/null &
	child=$!
	while :; do
		rc=0
		wait "$child" || rc=$?
		# a signal interrupts wait: wait again until the run has ended
		{ [ "$rc" != 127 ] && kill -0 "$child" 2>/dev/null; } || break
	done
	child=""
}

i=0 failed="" complete=0
while read -r cell params; do
	i=$((i + 1))
	d=$out/$cell
	if [ -f "$d/meta.txt" ] && [ "$(key status "$d/meta.txt")" = ok ]; then
		log "cell $i/$ncells $cell: complete, skipped"
		complete=$((complete + 1))
		continue
	fi
	if [ -e "$d" ]; then
		k=1
		while [ -e "$d.incomplete-$k" ]; do k=$((k + 1)); done
		mv "$d" "$d.incomplete-$k"
		log "cell $i/$ncells $cell: incomplete ($(key status "$d.incomplete-$k/meta.txt" 2>/dev/null || :)), kept as $d.incomplete-$k"
	fi
	log "cell $i/$ncells $cell: $params"
	set -f
	# shellcheck disable=SC2086 # the cell's parameters, words
	run_cell "$d" $params
	set +f
	[ -z "$sig" ] || exit 1
	if [ "$rc" = 2 ]; then
		# run.sh refused the command: every cell would be. A sweep that
		# has run nothing leaves no directory behind (this sweep made DIR:
		# all in it is its own); else DIR stays, resumable.
		if [ "$made" = 1 ] && [ "$complete" = 0 ]; then
			rm -rf "$out"
			log "run.sh refused the command of cell $cell (exit 2): the sweep stops, $out removed (nothing had run)"
		else
			log "run.sh refused the command of cell $cell (exit 2): the sweep stops; rerun to resume $out, or remove it"
		fi
		exit 2
	fi
	if [ "$rc" = 0 ] && [ "$(key status "$d/meta.txt" 2>/dev/null)" = ok ]; then
		complete=$((complete + 1))
	else
		log "cell $i/$ncells $cell failed (run.sh exit $rc, see $d/meta.txt)"
		failed="$failed $cell"
	fi
done <"$TMP/cells"
if [ -n "$failed" ]; then
	log "$(echo "$failed" | wc -w) of $ncells cells failed:$failed; rerun the same command to redo them"
	exit 1
fi
log "$ncells cells complete${skipped:+, classes without a pair:$skipped}"
echo "$out"
