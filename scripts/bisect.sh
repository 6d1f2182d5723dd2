#!/bin/bash
# bisect.sh [options] SRC OLD NEW: find the first commit of kernel git tree
# SRC between OLD and NEW that changed a measured metric, with one boot per
# step under instruction counting. Each commit is built out of tree in one
# reused build directory, the suite's modules are built against it, it is
# booted on the demo's emulated 2-socket machine (vm/demo.sh) and scripts/
# run.sh measures N storms. OLD and NEW are measured first, NEW in two
# boots: they must be separated by K times the noise (the largest of the
# ends' standard deviations, the difference between NEW's two boots and the
# floor -f). Every later commit is placed between them (0 % at OLD, 100 % at
# NEW) and called old from -25 % to 25 %, new from 75 % to 125 %; anywhere
# else it is measured again in a fresh boot, and when the two boots' mean
# stays there the bisect stops: not a single step. `git bisect run` (terms
# old and new: a regression or an improvement) does the rest; a commit that
# does not build, boot or measure is skipped (exit 125); any other failure
# of a step, or an interruption, ends the bisect without a verdict. Each
# commit's results stay in the state directory, keyed by commit: a rerun,
# after an interruption too, neither rebuilds nor re-measures what is
# there. Prints a line per step, a table and the first new commit. The tree
# must have no uncommitted changes to tracked files; one bisect at a time
# uses a tree, a build directory or a state directory.
#
#   -c CONFIG  a full .config for every step (default: x86_64_defconfig and
#              the test bed's fragment vm/kernel.config, vm/build-kernel.sh)
#   -B DIR     build directory, reused by every step (default
#              build/bisect/kbuild)
#   -H CMD     build hook instead of building: run by sh in SRC with the
#              commit checked out, BISECT_COMMIT and BISECT_BUILD (the -B
#              directory) in its environment; its last two lines of output
#              are the kernel image and a build directory to build modules
#              against (relative to SRC unless absolute); a non-zero exit
#              means the commit does not build
#   -d DIR     state directory (default build/bisect/state); it is tied to
#              the measurement options (a rerun with others is refused) but
#              not to OLD, NEW, -m or -k
#   -b BENCH   a module folder of the suite (one with a bench.conf; default
#              ipistorm)
#   -P PARAMS  the module's parameters, one string (defaults below)
#   -s STORM   idle_reentry: the storm run beside it (run.sh -s)
#   -n N       measured runs per step (default 3), after -w warm-up runs
#   -w N       warm-up runs per step (default 1)
#   -O OPTS    vm/boot.sh options (defaults below)
#   -m METRIC  KEY[:lower|:higher] of the result format, or A/B (100 * A / B,
#              percent) of two keys, whose direction is A's; without a
#              suffix the direction is the bench's declaration's; default
#              per bench below
#   -k K       separation of the ends required, in noise units (default 10)
#   -f PCT     noise floor, percent of the larger end's mean (default 0.1):
#              the smallest change bisected is K times it
#   -x N       stop after N commits built or measured (exit 3): resume by
#              running the same command again
#   -h         this help
#
# Defaults per bench (params | storm | boot options | metric), from its
# wiring BENCH/wiring.conf (bisect_params, bisect_storm, bisect_boot,
# bisect_metric; docs/bench.md); today:
#   ipistorm      numipi=20000 single=1 offset=1 cpulist=0 wait=1 | - |
#                 -c 2 -s 2 -p -i | runtime_ns (lower)
#   idle_reentry  cpulist=1 | pairs=0:1 numipi=20000 | -c 2 -s 2 -p (no
#                 ftrace hooks under instruction counting) | total.fast_pct
#                 (higher)
#   nohz_csd      load_cpus=0 duration=2 | - | -c 4 -a IPISTORM_POLLING_IDLE=1
#                 (idle CPUs poll with the tick stopped: polling_idle.ko) |
#                 total.dropped/total.kicks (lower)
#
# Output: state/steps/COMMIT/{status,build.log,run.log,result/,times}, and
# the same in steps/COMMIT/again/ for a second boot; status is ok,
# build-failed or boot-failed (none: not measured, or cut short); result/
# is run.sh's result directory (iter-NNN.txt, meta.txt). Exit: 0 the first
# new commit named; 1 no commit named: refused (ends not separated, an end
# that does not build or boot), not a single step, skipped commits left
# more than one candidate, interrupted, or an error; 2 usage; 3 stopped by
# -x.
set -euo pipefail
# The test bed's helpers (and through them scripts/lib.sh's): this tool
# drives the test bed, vm/.
# shellcheck source=../vm/lib.sh
. "$(dirname "$0")/../vm/lib.sh"

USAGE="$PROG [options] SRC OLD NEW (-h: help)"

# values DIR METRIC: the metric of each iter-NNN.txt in run.sh's result DIR,
# one a line; fails when a run lacks it.
values() {
	local f m=${2%:*}
	for f in "$1"/iter-*.txt; do
		[ -f "$f" ] || return 1
		awk -F= -v m="$m" '
			BEGIN { n = split(m, k, "/") }
			{ v[$1] = $2 }
			END {
				for (i = 1; i <= n; i++)
					if (!(k[i] in v) || v[k[i]] !~ /^-?[0-9.]+$/) exit 1
				if (n == 1) { print v[k[1]]; exit 0 }
				if (n != 2 || v[k[2]] == 0) exit 1
				printf "%.6f\n", 100 * v[k[1]] / v[k[2]]
			}' "$f" || return 1
	done
}

# stats: "n mean sd" of the numbers on stdin (sd 0 for one number).
stats() {
	awk '{ x[++n] = $1; s += $1 }
		END {
			if (!n) exit 1
			m = s / n
			for (i = 1; i <= n; i++) q += (x[i] - m) ^ 2
			printf "%d %.6f %.6f\n", n, m, (n > 1 ? sqrt(q / (n - 1)) : 0)
		}'
}

# measure_step COMMIT [again]: build (unless the build directory holds
# COMMIT already), boot and measure COMMIT, checked out in SRC, into
# steps/COMMIT (or steps/COMMIT/again, a second boot), unless its status
# says it was done. Sets $fresh to 1 when it did work, $stop to 1 when -x
# stops it first. The status is written last, and only for a step that
# ended by itself: a step cut short by a signal has none.
measure_step() {
	local c=$1 dir=$state/steps/$1${2:+/$2} t0 t1 image kdir rc label out desc
	fresh=0 stop=0
	[ -f "$dir/status" ] && return 0
	if [ "$stop_after" -gt 0 ] && [ "$(cat "$state/run-count")" -ge "$stop_after" ]; then
		log "stopping before ${c:0:12}: -x $stop_after reached; run the same command again to resume"
		stop=1
		return 0
	fi
	fresh=1
	echo $(($(cat "$state/run-count") + 1)) >"$state/run-count"
	if [ -z "${2:-}" ]; then
		rm -rf "$dir"
	else
		rm -rf "$dir/again"
	fi
	mkdir -p "$dir"
	[ "$(git -C "$src" rev-parse HEAD)" = "$c" ] || git -C "$src" checkout -q "$c"
	desc=$(git -C "$src" describe --always --tags)
	t0=$(date +%s)
	rc=0
	if [ "$({ sed -n 1p "$built" 2>/dev/null || true; })" = "$c $ident_md5" ]; then
		# What the build directory holds is this commit's, built so.
		image=$(sed -n 2p "$built")
		kdir=$(sed -n 3p "$built")
		: >"$dir/build.log"
	elif [ -n "$hook" ]; then
		rm -f "$built"
		(cd "$src" && BISECT_COMMIT=$c BISECT_BUILD=$kbuild sh -c "$hook") \
			>"$dir/hook.out" 2>"$dir/build.log" </dev/null || rc=$?
		image=$(tail -n 2 "$dir/hook.out" | head -n 1)
		kdir=$(tail -n 1 "$dir/hook.out")
		case $image in /*) ;; *) image=$src/$image ;; esac
		case $kdir in /*) ;; *) kdir=$src/$kdir ;; esac
	else
		rm -f "$built"
		image=$(build_kernel "$dir/build.log") || rc=$?
		kdir=$kbuild
	fi
	t1=$(date +%s)
	interrupted "$rc"
	if [ "$rc" != 0 ] || [ ! -f "$image" ] || [ ! -f "$kdir/Makefile" ]; then
		printf 'build_s=%d\n' $((t1 - t0)) >"$dir/times"
		set_status "$dir" build-failed
		return 0
	fi
	printf '%s\n' "$c $ident_md5" "$image" "$kdir" >"$built"
	label=bisect-$(printf '%s' "$state" | md5sum | cut -c1-8)
	register_own_kernel "$label" "$image" "$kdir" ""
	storm_opt=()
	[ -z "$storm" ] || storm_opt=(-s "$storm")
	out=$dir/result.tmp
	rm -rf "$out"
	rc=0
	# shellcheck disable=SC2086 # boot options and parameters are words
	"$VM_DIR/run-in-vm.sh" $bootopts "$label" "$out" -n "$runs" -w "$warmup" \
		-g "$desc" "${storm_opt[@]}" "$bench" $params \
		>/dev/null 2>"$dir/run.log" </dev/null || rc=$?
	interrupted "$rc"
	rm -rf "$(kernel_dir "$label")"
	printf 'build_s=%d\nmeasure_s=%d\n' $((t1 - t0)) $(($(date +%s) - t1)) >"$dir/times"
	if [ "$rc" = 0 ] && [ -d "$out" ]; then
		rm -rf "$dir/result"
		mv "$out" "$dir/result"
		set_status "$dir" ok
	else
		set_status "$dir" boot-failed
	fi
}

# interrupted RC: a child that a signal ended (RC 128 and up) cuts the
# step short; so does a signal to us, whose trap ends the step before the
# next command.
interrupted() {
	[ "$1" -lt 128 ] || end interrupted "a signal ended a build or a boot (exit $1)" 130
}

# set_status DIR STATUS: written whole, or not at all. A failure is
# remembered until the process ends: the signal that failed a build or a
# boot may reach this shell only after the child's ordinary exit status
# did, even after the status is written, and the traps then drop it
# (drop_failure), so that no interrupt caches a failure.
set_status() {
	printf '%s\n' "$2" >"$1/status.tmp"
	[ "$2" = ok ] || failed_status=$1/status
	mv "$1/status.tmp" "$1/status"
}

# drop_failure: the traps' first act; the next run redoes the step.
# shellcheck disable=SC2317 # run by the traps
drop_failure() {
	[ -z "$failed_status" ] || rm -f "$failed_status"
}

# build_kernel LOG: build the checked-out commit in $kbuild; prints the image.
build_kernel() {
	"$VM_DIR/build-kernel.sh" ${config:+-c "$config"} "$src" "$kbuild" 2>"$1" </dev/null
}

# summary COMMIT [again]: "status n mean sd" of COMMIT's step (n mean sd
# are - when the step has no metric).
summary() {
	local dir=$state/steps/$1${2:+/$2} st s
	st=$(cat "$dir/status" 2>/dev/null || echo none)
	if [ "$st" = ok ] && s=$(values "$dir/result" "$metric" | stats); then
		echo "ok $s"
	elif [ "$st" = ok ]; then
		echo "no-metric - - -"
	else
		echo "$st - - -"
	fi
}

# position MEAN: where MEAN lies, 0 % at OLD's mean and 100 % at NEW's.
position() {
	awk -v m="$1" -v o="$old_mean" -v n="$new_mean" 'BEGIN {
		p = 100 * (m - o) / (n - o)
		printf "%.1f\n", p == 0 ? 0 : p }'
}

# verdict POSITION: old (-25 % to 25 %), new (75 % to 125 %) or ambiguous.
verdict() {
	awk -v p="$1" 'BEGIN {
		if (p >= -25 && p <= 25) print "old"
		else if (p >= 75 && p <= 125) print "new"
		else print "ambiguous" }'
}

# fmt_metric N MEAN SD
fmt_metric() {
	awk -v n="$1" -v m="$2" -v s="$3" '
		function f(x) { return x >= 1000 || x <= -1000 ? sprintf("%.0f", x) : sprintf("%.4g", x) }
		BEGIN {
			cv = m != 0 ? 100 * s / (m < 0 ? -m : m) : 0
			printf "%s +- %s (%.3f %%, %d runs)", f(m), f(s), cv, n }'
}

subject() { git -C "$src" log -1 --format=%s "$1" | cut -c1-50; }

# report_step LABEL COMMIT VERDICT [POSITION [again]]: the step's line; the
# first boot's also goes to the visited list.
report_step() {
	local dir=$state/steps/$2${5:+/$5} st n m s times what
	read -r st n m s <<<"$(summary "$2" "${5:-}")"
	times=$(tr '\n' ' ' <"$dir/times" 2>/dev/null | sed 's/_s=/ /g; s/ \([0-9]*\) / \1 s, /g; s/, $//')
	[ "$fresh" = 1 ] || times="cached"
	case $st in
	ok) what="$metric_key $(fmt_metric "$n" "$m" "$s")${4:+, at $4 % of the way to new}" ;;
	*) what=$st ;;
	esac
	printf '[%s] %s %s: %s: %s (%s)\n' "$1${5:+, $5}" "${2:0:12}" "$(subject "$2")" \
		"$what" "$3" "$times" >&2
}

# visit COMMIT VERDICT [POSITIONS]: one line of the table.
visit() { printf '%s\t%s\t%s\n' "$1" "$2" "${3:--}" >>"$state/visited"; }

# end REASON DETAIL [EXIT]: a step ends the bisect without a verdict; the
# driver reads why from step-end.
end() {
	ended=1
	printf '%s\t%s\n' "$1" "$2" >"$state/step-end" || true
	exit "${3:-128}"
}

# on_error LINE COMMAND: what set -e would exit on; logged once, not in
# subshells, and never an exit status that means a verdict.
# shellcheck disable=SC2317 # run by the ERR trap
on_error() {
	if [ "$BASH_SUBSHELL" = 0 ]; then
		log "error: line $1: '$2' failed"
		if [ "$mode" = step ]; then
			end error "line $1: '$2' failed"
		fi
	fi
	exit "$error_exit"
}

old_mean="" new_mean="" mode=driver ended=0 error_exit=1 failed_status=""

# step_setup: the step's mode and traps, set before run.env is read.
step_setup() {
	mode=step error_exit=128
	set -E
	trap 'on_error "$LINENO" "$BASH_COMMAND"' ERR
	# shellcheck disable=SC2317 # run by the traps
	trap 'drop_failure; [ "$ended" = 1 ] || end interrupted "a signal ended the step" 130' INT TERM HUP
}

# run_step: the bisect run's step, with run.env read: measure HEAD and
# exit 0 (old), 1 (new) or 125 (skip) as its verdict. Anything else
# (stopped by -x, not a single step, an interruption, an error) ends it
# with 128 or 130, which abort git bisect run, and a line in step-end.
run_step() {
	c=$(git -C "$src" rev-parse HEAD)
	step=$(($(wc -l <"$state/visited") - 1))
	measure_step "$c"
	[ "$stop" = 0 ] || end stopped "-x $stop_after"
	read -r st n m s <<<"$(summary "$c")"
	if [ "$st" != ok ]; then
		report_step "step $step" "$c" skip
		visit "$c" skip
		exit 125
	fi
	p=$(position "$m")
	v=$(verdict "$p")
	report_step "step $step" "$c" "$v" "$p"
	pos="$p %"
	if [ "$v" = ambiguous ]; then
		# A fresh boot: the mean of the two boots decides.
		measure_step "$c" again
		[ "$stop" = 0 ] || end stopped "-x $stop_after"
		read -r st2 _ m2 _ <<<"$(summary "$c" again)"
		if [ "$st2" != ok ]; then
			report_step "step $step" "$c" skip "" again
			visit "$c" skip "$pos, then $st2"
			exit 125
		fi
		p2=$(position "$m2")
		p=$(position "$(awk -v a="$m" -v b="$m2" 'BEGIN { printf "%.6f", (a + b) / 2 }')")
		v=$(verdict "$p")
		report_step "step $step" "$c" "$v" "$p2" again
		pos="$pos, $p2 % again"
	fi
	visit "$c" "$v" "$pos"
	case $v in
	old) exit 0 ;;
	new) exit 1 ;;
	esac
	end ambiguous "$c"
}

# parse_args "$@": the options and SRC OLD NEW; usage errors exit 2.
parse_args() {
	config="" kbuild=$BUILD/bisect/kbuild hook="" state=$BUILD/bisect/state bench=ipistorm
	params=- storm=- runs=3 warmup=1 bootopts=- metric="" sep=10 floor=0.1 stop_after=0
	while getopts c:B:H:d:b:P:s:n:w:O:m:k:f:x:h opt; do
		case $opt in
		c) config=$OPTARG ;;
		B) kbuild=$OPTARG ;;
		H) hook=$OPTARG ;;
		d) state=$OPTARG ;;
		b) bench=$OPTARG ;;
		P) params=$OPTARG ;;
		s) storm=$OPTARG ;;
		n) runs=$OPTARG ;;
		w) warmup=$OPTARG ;;
		O) bootopts=$OPTARG ;;
		m) metric=$OPTARG ;;
		k) sep=$OPTARG ;;
		f) floor=$OPTARG ;;
		x) stop_after=$OPTARG ;;
		*) usage_opt "$opt" ;;
		esac
	done
	shift $((OPTIND - 1))
	[ $# = 3 ] || usage_error "want SRC OLD NEW"
	src=$1
	case " $(suite_kmods "$TOP" | tr '\n' ' ')" in
	*" $bench "*) ;;
	*) usage_error "-b: unknown benchmark '$bench' (one of: $(suite_kmods "$TOP" | tr '\n' ' ' | sed 's/ $//'))" ;;
	esac
	bench_check "$TOP" "$bench" || die "cannot bisect $bench: its declaration $bench/bench.conf is broken"
	wiring_check "$TOP" "$bench" || die "cannot bisect $bench: its wiring $bench/wiring.conf is broken"
	[ "$params" != - ] || params=$(wiring_get "$TOP" "$bench" bisect_params)
	[ "$storm" != - ] || storm=$(wiring_get "$TOP" "$bench" bisect_storm)
	[ "$bootopts" != - ] || bootopts=$(wiring_get "$TOP" "$bench" bisect_boot)
	[ -n "$metric" ] || metric=$(wiring_get "$TOP" "$bench" bisect_metric)
	metric_key=${metric%:lower}
	metric_key=${metric_key%:higher}
	case $metric_key in
	[a-z]*[a-z0-9_] | [a-z]*[a-z0-9_]/[a-z]*[a-z0-9_]) ;;
	*) usage_error "-m: '$metric' is not KEY[:lower|:higher] or A/B" ;;
	esac
	# run.sh's own rules, up front: a value it would refuse mid-bisect
	parse_uint -n "$runs" 999 2
	parse_uint -w "$warmup" 99
	parse_uint -x "$stop_after"
	check_text -P "$params"
	check_text -s "$storm"
	check_text -O "$bootopts"
	check_text -m "$metric"
	awk -v k="$sep" 'BEGIN { exit !(k ~ /^[0-9.]+$/ && k > 0) }' || usage_error "-k: '$sep' is not a positive number"
	awk -v f="$floor" 'BEGIN { exit !(f ~ /^[0-9.]+$/ && f > 0) }' || usage_error "-f: '$floor' is not a positive number"
	[ -z "$config" ] || [ -f "$config" ] || usage_error "-c: no file $config"
	[ -z "$config" ] || config=$(realpath "$config")
	[ -z "$hook" ] || [ -z "$config" ] || usage_error "-c and -H exclude each other"
	git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || die "$src is not a git tree"
	src=$(git -C "$src" rev-parse --show-toplevel)
	old=$(git -C "$src" rev-parse --verify -q "$2^{commit}") || die "OLD: no commit $2 in $src"
	new=$(git -C "$src" rev-parse --verify -q "$3^{commit}") || die "NEW: no commit $3 in $src"
	[ "$old" != "$new" ] || die "OLD and NEW are the same commit"
	git -C "$src" merge-base --is-ancestor "$old" "$new" || die "OLD ($2) is not an ancestor of NEW ($3)"
}

# shellcheck disable=SC2317 # run by the EXIT trap
restore() {
	if [ -f "$state/bisecting" ]; then
		git -C "$src" bisect reset >/dev/null 2>&1 || true
		rm -f "$state/bisecting"
	fi
	git -C "$src" checkout -q "$start_head" || true
}

# open_state: the ERR trap, the locks, the measurement's identity, run.env
# and the tree ready to bisect.
open_state() {
	set -E
	trap 'on_error "$LINENO" "$BASH_COMMAND"' ERR
	mkdir -p "$state" "$kbuild"
	state=$(realpath "$state")
	kbuild=$(realpath "$kbuild")
	gitdir=$(git -C "$src" rev-parse --absolute-git-dir)

	# One bisect per state directory, per tree and per build directory.
	exec 9>"$state/lock"
	flock -n 9 || die "$state is in use by another bisect"
	exec 8>"$gitdir/ipistorm-bisect.lock"
	flock -n 8 || die "$src is in use by another bisect"
	exec 7>"$kbuild/.ipistorm-bisect.lock"
	flock -n 7 || die "$kbuild is in use by another bisect"

	# The measurement's identity: results made otherwise are not reused.
	md5() { md5sum | cut -d' ' -f1; }
	# shellcheck disable=SC2046 # the module folders
	modules=$(cd "$TOP" && find Kbuild Makefile common $(suite_kmods .) \
		-type f \( -name '*.[ch]' -o -name Kbuild -o -name Makefile \) | LC_ALL=C sort |
		while read -r f; do printf '%s %s\n' "$f" "$(md5 <"$f")"; done | md5)
	if [ -n "$config" ]; then
		kconfig=$(md5 <"$config")
	else
		kconfig="fragment $(md5 <"$VM_DIR/kernel.config")"
	fi
	qemu=$(qemu-system-x86_64 --version 2>/dev/null | head -n 1 || true)
	ident=$(printf '%s\n' "format=ipistorm-bisect/2" "src=$src" "bench=$bench" "params=$params" "storm=$storm" \
		"runs=$runs" "warmup=$warmup" "boot=$bootopts" "hook=$hook" "config=$kconfig" \
		"kbuild=$kbuild" "modules=$modules" "qemu=${qemu:-none}")
	if [ -f "$state/ident" ] && [ "$(cat "$state/ident")" != "$ident" ]; then
		diff "$state/ident" <(printf '%s\n' "$ident") | sed -n 's/^[<>]/ &/p' >&2 || true
		die "$state holds results measured otherwise (above: < then, > now): choose another -d"
	fi
	printf '%s\n' "$ident" >"$state/ident"
	ident_md5=$(md5 <"$state/ident")
	built=$kbuild/.ipistorm-bisect-built
	declare -p src bench params storm runs warmup bootopts hook config kbuild state \
		metric metric_key stop_after ident_md5 built >"$state/run.env"
	echo 0 >"$state/run-count"
	: >"$state/visited"
	rm -f "$state/step-end"

	# A bisect left by a killed driver is ours to reset; any other is not.
	if [ -f "$gitdir/BISECT_START" ]; then
		[ -f "$state/bisecting" ] || die "a bisect is in progress in $src: finish it (git bisect reset) first"
		git -C "$src" bisect reset >/dev/null
	fi
	if [ -n "$(git -C "$src" status --porcelain --untracked-files=no)" ]; then
		die "$src has uncommitted changes to tracked files"
	fi
	start_head=$(git -C "$src" symbolic-ref -q --short HEAD || git -C "$src" rev-parse HEAD)
	trap restore EXIT
	trap 'drop_failure; log "interrupted: what was cut short has no status and is redone by the same command"; exit 130' INT
	trap 'drop_failure; exit 143' TERM
	trap 'drop_failure; exit 129' HUP
	t_start=$(date +%s)
}

# table: every commit visited, in that order (the two ends first).
table() {
	local c v p st n m s mm
	echo
	printf '%-12s  %-50s  %-44s  %s\n' commit subject "$metric_key (mean +- sd)" verdict
	while IFS=$'\t' read -r c v p; do
		read -r st n m s <<<"$(summary "$c")"
		case $st in
		ok) mm="$(fmt_metric "$n" "$m" "$s")" ;;
		*) mm=$st ;;
		esac
		[ "$p" = - ] || v="$v ($p)"
		printf '%-12s  %-50s  %-44s  %s\n' "${c:0:12}" "$(subject "$c")" "$mm" "$v"
	done <"$state/visited"
	echo
	echo "steps: $(($(wc -l <"$state/visited") - 2)) after the two ends; $(cat "$state/run-count") built or measured now; $(($(date +%s) - t_start)) s; results in $state"
}

# end_ref END COMMIT [again]: measure an end; refuse when it has no metric.
end_ref() {
	measure_step "$2" ${3:+"$3"}
	if [ "$stop" = 1 ]; then
		echo "stopped by -x $stop_after: run the same command again to resume"
		exit 3
	fi
	read -r st n m s <<<"$(summary "$2" "${3:-}")"
	report_step "$1" "$2" "$1" "" ${3:+"$3"}
	[ "$st" = ok ] || die "the $1 end ${2:0:12} is $st${3:+ in its second boot} (see $state/steps/$2): nothing to compare with"
}

# separated: whether the ends are K times the noise apart; sets the figures.
separated() {
	read -r diff noise ratio o n nfloor <<<"$(awk -v o="$old_mean" -v n="$new_mean" \
		-v so="$old_sd" -v sn="$new_sd" -v b="$between" -v f="$floor" '
		function f4(x) { return x >= 1000 || x <= -1000 ? sprintf("%.0f", x) : sprintf("%.4g", x) }
		function abs(x) { return x < 0 ? -x : x }
		BEGIN {
			d = abs(n - o)
			fl = f / 100 * (abs(o) > abs(n) ? abs(o) : abs(n))
			z = so > sn ? so : sn
			if (b != "" && b > z) z = b
			if (fl > z) z = fl
			r = z > 0 ? sprintf("%.1f", d / z) : 0
			printf "%s %s %s %s %s %s\n", f4(d), f4(z), r, f4(o), f4(n), f4(fl) }')"
	awk -v d="$diff" -v r="$ratio" -v k="$sep" 'BEGIN { exit !(d > 0 && r + 0 >= k) }'
}

# refuse: why the ends are not separated.
refuse() {
	log "refusing to bisect: $metric_key differs by $diff between the ends (old $o, new $n),"
	log "$ratio times the noise ($noise: the largest of the ends' standard deviations of $runs runs,$1"
	log "and the floor $nfloor, -f $floor % of the larger mean); -k asks for $sep"
	exit 1
}

# references: OLD, NEW, and NEW again in a fresh boot (no rebuild); they
# must be separated.
references() {
	end_ref old "$old"
	read -r _ _ old_mean old_sd <<<"$(summary "$old")"
	visit "$old" old
	end_ref new "$new"
	read -r _ _ new_mean new_sd <<<"$(summary "$new")"
	visit "$new" new
	between=""
	separated || refuse ""
	end_ref new "$new" again
	read -r _ _ new2_mean _ <<<"$(summary "$new" again)"
	between=$(awk -v a="$new_mean" -v b="$new2_mean" 'BEGIN { d = a - b; printf "%.6f", d < 0 ? -d : d }')
	between_f=$(awk -v b="$between" 'BEGIN { printf (b >= 1000 ? "%.0f" : "%.4g"), b }')
	separated || refuse " the difference between NEW's two boots, $between_f,"
	declare -p old_mean new_mean >>"$state/run.env"
	dir=$(bench_direction "$TOP" "$bench" "$metric")
	change=$(awk -v o="$old_mean" -v n="$new_mean" -v d="$dir" 'BEGIN {
		p = o != 0 ? sprintf(" (%+.2f %%)", 100 * (n - o) / (o < 0 ? -o : o)) : ""
		w = d == "none" ? "changed" : ((n > o) == (d == "higher") ? "improved" : "regressed")
		printf "%s%s", w, p }')
	log "$metric_key $change from old to new: $ratio times the noise ($noise; between NEW's two boots $between_f); bisecting"
}

# run_bisect: git bisect run, on the terms old and new, then the table
# and the verdict.
run_bisect() {
	touch "$state/bisecting"
	git -C "$src" bisect start --term-old=old --term-new=new "$new" "$old" >/dev/null
	set +e
	trap - ERR
	(cd "$src" && git bisect run "$TOP/scripts/bisect.sh" _step "$state") 2>&1 |
		tee "$state/bisect-run.log" |
		grep --line-buffered -v -e '^running ' -e '^Bisecting:' -e '^\[[0-9a-f]\{40\}\]' \
			-e 'bisect run failed' >&2
	rc=${PIPESTATUS[0]}
	set -e
	trap 'on_error "$LINENO" "$BASH_COMMAND"' ERR
	first=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first new commit$/\1/p' "$state/bisect-run.log")
	git -C "$src" bisect log >"$state/bisect.log" 2>/dev/null || true
	why="" detail=""
	if [ -f "$state/step-end" ]; then
		IFS=$'\t' read -r why detail <"$state/step-end"
	fi

	table
	case $why in
	stopped)
		echo "stopped by $detail: run the same command again to resume"
		exit 3
		;;
	ambiguous)
		echo "not a single step: ${detail:0:12} $(subject "$detail") lies between old and new in two boots;"
		echo "the change is gradual or in parts, or boots differ more than the ends showed:"
		echo "bisect $(git -C "$src" rev-parse --short "$old")..${detail:0:12} and ${detail:0:12}..$(git -C "$src" rev-parse --short "$new") apart, or look at the table"
		exit 1
		;;
	interrupted)
		echo "interrupted ($detail): no verdict; what was cut short has no status and the same command redoes it"
		exit 1
		;;
	error)
		echo "error in a step ($detail): the bisect ends without a verdict"
		exit 1
		;;
	esac
	if [ "$rc" = 0 ] && [ -n "$first" ]; then
		echo "first new commit: $first $(git -C "$src" log -1 --format=%s "$first")"
		exit 0
	fi
	if grep -q 'only .skip.ped commits left' "$state/bisect-run.log"; then
		echo "no single first new commit (git bisect run exit $rc): see $state/bisect-run.log"
		sed -n '/only .skip.ped commits left/,$p' "$state/bisect-run.log"
		exit 1
	fi
	echo "error: git bisect run ended with exit $rc and no reason from a step (see $state/bisect-run.log): no verdict"
	exit 1
}

main() {
	parse_args "$@"
	open_state
	references
	run_bisect
}

# The bisect run calls this script with _step STATE for each step.
if [ "${1:-}" = _step ]; then
	step_setup
	# shellcheck source=/dev/null
	. "$2/run.env"
	run_step
fi
main "$@"
