#!/bin/sh
# run.sh: run one benchmark configuration N times, as root, on the measured
# machine, and keep every raw result with the machine's state (busybox sh).
#
#   run.sh [-n N] [-o DIR] [-m MODDIR] [-g DESCRIBE] [-s STORM] [-T SECONDS] [-p | -P WHAT] BENCH [PARAM=VALUE...]
#     BENCH      a benchmark folder of the suite (one with a bench.conf);
#                what run.sh knows of it is its declaration,
#                BENCH/bench.conf (docs/bench.md). A module's PARAMs go to
#                its insmod (one declared duration=yes needs duration=
#                unless -s); a program's (kind=program) are its declared
#                params=, put into its command line, e.g. hackbench groups=8
#     -n N       iterations, 1 to 999 (default 5); the module is loaded and unloaded
#                once per iteration, the program run once
#     -w N       warm-up iterations before them, 0 to 99 (default 1), kept as
#                warmup-NNN.txt and left out of comparisons: the first storm
#                after boot can meet deferred boot work
#     -o DIR     result directory, must not exist
#                (default results/BENCH-<kernel release>-<date>)
#     -m MODDIR  where <module>/<module>.ko are (default: this tree)
#     -T SECONDS a program's iteration at most, 1 to 86400 (default its
#                declaration's timeout=): past it the program's process
#                group is killed and the iteration is status=timeout
#     -g DESC    `git describe` of the measured kernel, recorded in meta.txt
#     -s STORM   parameters of the storm module a benchmark declares
#                (storm=; idle_reentry's is ipistorm), run while it
#                measures, e.g. idle_reentry -s "pairs=0:1 numipi=20000"
#     -p         prepare the machine, preset quiet: disable C-states deeper
#                than C1, performance governor, boost off (global and per
#                policy); the previous values are saved in
#                /run/ipistorm/saved first and restored on exit, also on
#                HUP, INT, QUIT, TERM, PIPE, USR1, USR2 and ALRM; refused
#                while a saved state exists
#     -P WHAT    prepare what WHAT says (implies -p): comma-separated
#                presets and knobs, applied in order to knobs that start
#                as keep: presets quiet (what -p does), epyc (the SM_IDLE
#                thread's EPYC setup: boost=on,cstate=C1,governor=keep),
#                xeon (its Xeon setup: boost=off,cstate=C1,
#                governor=performance); knobs boost=on|off|keep,
#                cstate=NAME|LATENCY_US|keep (the deepest idle state
#                allowed: deeper ones, by exit latency, are disabled),
#                governor=NAME|keep; e.g. -P xeon,governor=keep
#   run.sh -r    restore the settings an interrupted -p run saved (after a
#                kill -9, the OOM killer or a crash)
#
# One run.sh at a time: /run/ipistorm/lock (the owner's pid) makes a second
# one refuse. Writes DIR/iter-NNN.txt (the module's debugfs result, raw;
# a program's: ipistorm-program/2, its output read by BENCH/parse.awk into
# KEY=value lines, the output itself kept as DIR/out-iter-NNN.txt and a
# server's, started before the first iteration and stopped at the end, as
# DIR/server.txt),
# with -s DIR/storm-iter-NNN.txt (the storm module's debugfs result, raw,
# read before its rmmod), per iteration DIR/irq-iter-NNN.txt
# (ipistorm-irq/1: /proc/interrupts deltas of the measured CPUs),
# DIR/idle-iter-NNN.txt (ipistorm-idle/1: the deltas of the cpuidle
# counters of the measured CPUs and their frequency, APERF/MPERF through
# /dev/cpu/N/msr where it is readable, else scaling_cur_freq) and
# DIR/meta.txt (format ipistorm-run/2, see README.md); warm-ups likewise as
# warmup-NNN.txt, storm-warmup-NNN.txt, irq-warmup-NNN.txt,
# idle-warmup-NNN.txt. Both results
# of an iteration must say status=complete, or the run fails. Exit status: 0 every run completed, 1 a run failed or was
# interrupted, or the machine could not be prepared or restored, 2 usage.
#
# For tests: IPISTORM_SYSROOT prefixes /sys, /proc, /boot, /run and /dev,
# IPISTORM_INSMOD and IPISTORM_RMMOD replace insmod and rmmod, IPISTORM_STEP
# is run with the name of each step of the run as it is reached.
set -eu
# A signal before the traps below: nothing is changed yet. Every signal a
# shell can catch (SIGNALS below) ends the run.
trap 'exit 1' HUP INT QUIT TERM PIPE USR1 USR2 ALRM

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
HERE=$(dirname "$0")
TOP=$HERE/..
BENCHES=$(suite_benches "$TOP" | tr '\n' ' ')
USAGE="$PROG [-n N] [-w N] [-o DIR] [-m MODDIR] [-g DESCRIBE] [-s STORM] [-T SECONDS] [-p | -P WHAT] $(echo "$BENCHES" | sed 's/ *$//; s/ /|/g') [PARAM=VALUE...] | $PROG -r"

ROOT=${IPISTORM_SYSROOT:-}
SYS=$ROOT/sys
PROC=$ROOT/proc
BOOT=$ROOT/boot
CPU=$SYS/devices/system/cpu
DEV=$ROOT/dev
STATE=$ROOT/run/ipistorm
SAVED=$STATE/saved
LOCK=$STATE/lock

# ---- one run at a time, signals, and the end of every run -------------------

TMP=""
_rc=0 loaded="" locked=0 saved_mine=0 meta="" status="" failure="" sig="" in_cleanup=0 server_pid="" guard_pid="" prog_pid="" dog_pid=""

# A signal ends the run: it is recorded, and the EXIT trap unloads the
# modules, restores the machine and records the end. During that cleanup a
# signal is only recorded: nothing may stop the restore. dash and busybox
# sh run the EXIT trap on exit from a signal trap, not on the signal itself.
# HUP is an ssh connection that dropped; PIPE is a log reader (tee) that
# went with it: in the cleanup it is only recorded too, and the writes to
# stderr fail quietly. QUIT is Ctrl-\ (dash would die of it with the
# machine prepared, bash and busybox sh ignore it), USR1, USR2 and ALRM end
# a shell that does not catch them.
SIGNALS="HUP INT QUIT TERM PIPE USR1 USR2 ALRM"
on_signal() {
	[ -n "$sig" ] || sig=$1
	[ "$in_cleanup" = 1 ] || exit 1
}

# ---- saved settings: save, change, read back, restore -----------------------

# The saved state, format ipistorm-saved/1: a format= line, an owner= line,
# then one "PATH VALUE" line per setting (PATH without IPISTORM_SYSROOT),
# restored in that order: C-states, global boost, per-policy boost,
# no_turbo, governors, the governors' tunables, scaling_setspeed and EPP
# (global boost first: writing it sets every policy's boost).

# restore_saved: write back each saved value that differs, read it back;
# failures as "PATH WANTED READ" lines in $TMP/unrestored. The state is
# removed when all came back, else it keeps the failed lines for -r.
restore_saved() {
	: >"$TMP/unrestored"
	: >"$TMP/kept"
	nrestored=0
	while read -r _f _w; do
		case $_f in format=* | owner=*) echo "$_f${_w:+ $_w}" >>"$TMP/kept"; continue ;; esac
		[ -n "$_w" ] || continue
		rd "$ROOT$_f"
		if [ "$v" != "$_w" ]; then
			echo "$_w" 2>/dev/null >"$ROOT$_f" || :
			rd "$ROOT$_f"
			nrestored=$((nrestored + 1))
			[ "$nrestored" != 1 ] || step restore
		fi
		if [ "$v" != "$_w" ]; then
			echo "$_f $_w ${v:-unknown}" >>"$TMP/unrestored"
			echo "$_f $_w" >>"$TMP/kept"
		fi
	done <"$SAVED"
	if [ -s "$TMP/unrestored" ]; then
		mv "$TMP/kept" "$SAVED.new" && mv "$SAVED.new" "$SAVED"
		return 1
	fi
	rm -f "$SAVED"
}

# cleanup, the EXIT trap: $_rc is the status the shell was to exit with.
cleanup() {
	set +e
	for _m in $loaded; do
		unload_module "$_m" 2>/dev/null || warn "rmmod $_m failed"
	done
	loaded=""
	if [ -n "$prog_pid" ]; then
		# a program's iteration in progress: its process group ends now,
		# the iteration interrupted
		stop_program
		program_result interrupted "SIG${sig:-TERM} to run.sh while ${pcommand%% *} ran"
	fi
	# a watchdog outliving its program would kill a group of that id
	[ -z "$dog_pid" ] || kill "$dog_pid" 2>/dev/null
	stop_server
	if [ "$saved_mine" = 1 ]; then
		if restore_saved; then
			log "restored the machine's idle and frequency settings ($nrestored written)"
		else
			warn "could not restore $(grep -c . "$TMP/unrestored") settings, kept in $SAVED (run.sh -r retries):"
			sed 's/^/  /' "$TMP/unrestored" >&2
		fi
	fi
	if [ -n "$sig" ]; then
		log "interrupted by SIG$sig"
	elif [ "$status" = ok ] && [ -s "$TMP/unrestored" ]; then
		status=failed failure="could not restore the machine's settings (restore_failed=)"
	elif [ -z "$status" ] && [ -n "$meta" ]; then
		status=failed failure="run.sh stopped with status $_rc"
	fi
	[ "$locked" = 0 ] || lock_release "$LOCK"
	# The end is recorded last: a signal up to here makes it interrupted.
	if [ -n "$sig" ]; then
		status=interrupted failure=SIG$sig
	fi
	if [ -n "$meta" ]; then
		{
			echo "date_end=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
			[ ! -s "$TMP/unrestored" ] || sed 's/^/restore_failed=/' "$TMP/unrestored"
			echo "status=$status"
			[ -z "$failure" ] || echo "failure=$failure"
		} >>"$meta"
	fi
	[ -z "$TMP" ] || rm -rf "$TMP"
	case $status in
	ok) exit 0 ;;
	'') exit "$_rc" ;;
	*) exit 1 ;;
	esac
}

# step NAME: for tests, IPISTORM_STEP is run with the name of each step
# of a run as it is reached: prepare (after the first setting written),
# warmup-N and iteration-N (the module loaded), after-warmup-N and
# after-iteration-N (before the next one), restore (after the first value
# written back), so that a test can hold the run there.
step() {
	[ -z "${IPISTORM_STEP:-}" ] || "$IPISTORM_STEP" "$1"
}

# failed MSG: the run failed in iteration $i.
failed() {
	_it="iteration $i"
	[ "$i" -gt 0 ] || _it="warm-up $((i + warmup))"
	run_failed "$_it: $*"
}
# run_failed MSG: the run failed.
run_failed() {
	log "$*"
	status=failed failure="$*"
	exit 1
}
# failed_as STATUS MSG: the run ended in iteration $i with STATUS
# (interrupted, timeout: its program's).
failed_as() {
	_it="iteration $i"
	[ "$i" -gt 0 ] || _it="warm-up $((i + warmup))"
	log "$_it: $2"
	status=$1 failure="$_it: $2"
	exit 1
}

trap '_rc=$?; in_cleanup=1; cleanup' EXIT
for _s in $SIGNALS; do
	# shellcheck disable=SC2064 # the signal's name, now
	trap "on_signal $_s" "$_s"
done

# parse_args "$@": the options (getopts: OPTIND tells main where they end).
parse_args() {
	n=5 warmup=1 out="" moddir=$TOP describe="" storm="" prepare=0 restore=0 what=quiet timeout=""
	while getopts n:w:o:m:g:s:T:pP:rh opt; do
		case $opt in
		n) n=$OPTARG ;;
		w) warmup=$OPTARG ;;
		o) out=$OPTARG ;;
		m) moddir=$OPTARG ;;
		g) describe=$OPTARG ;;
		s) storm=$OPTARG ;;
		T) timeout=$OPTARG ;;
		p) prepare=1 ;;
		P) prepare=1 what=$OPTARG ;;
		r) restore=1 ;;
		*) usage_opt "$opt" ;;
		esac
	done
}

# check_args BENCH PARAMS... (or nothing with -r): usage errors exit 2;
# sets bench and stormmod.
check_args() {
	if [ "$restore" = 1 ]; then
		{ [ $# -eq 0 ] && [ "$OPTIND" -eq 2 ]; } || usage_error "-r goes alone"
	else
		[ $# -ge 1 ] || usage_error "no benchmark named"
		bench=$1
		shift
		case " $BENCHES" in
		*" $bench "*) ;;
		*) usage_error "unknown benchmark '$bench' (one of: $BENCHES)" ;;
		esac
		bench_check "$TOP" "$bench" || die "refusing to run $bench: its declaration $bench/bench.conf is broken"
		kind=$(bench_kind "$TOP" "$bench")
		stormmod=$(bench_get "$TOP" "$bench" storm)
		parse_uint -n "$n" 999 1
		parse_uint -w "$warmup" 99
		# What lands in meta.txt (and -o's DIR in the saved state's
		# owner line) is one line of text.
		check_text -g "$describe"
		check_text -o "$out"
		check_text -s "$storm"
		check_text -P "$what"
		check_params "$@"
		set -f
		# shellcheck disable=SC2086 # the storm is a list of parameters
		check_params $storm
		set +f
		if [ -n "$storm" ] && [ -z "$stormmod" ]; then
			usage_error "-s: $bench takes no storm (its declaration has no storm=)"
		fi
		# Without a storm to stop it, a benchmark declared duration=yes
		# measures until duration= ends; without one the result is read while
		# it still watches.
		if [ "$(bench_get "$TOP" "$bench" duration)" = yes ] && [ -z "$storm" ]; then
			dur=""
			for p in "$@"; do
				case $p in duration=*) dur=${p#duration=} ;; esac
			done
			case $dur in
			'' | 0 | *[!0-9]*)
				or=""
				[ -z "$stormmod" ] || or=", or a storm with -s"
				usage_error "$bench needs duration=SECONDS (1 or more)$or"
				;;
			esac
		fi
		[ -z "$timeout" ] || parse_uint -T "$timeout" 86400 1
		if [ "$kind" = program ]; then
			program_args "$@"
		else
			[ -z "$timeout" ] || usage_error "-T: $bench is a module: its iteration ends with its storm or duration="
			for m in "$bench" ${storm:+"$stormmod"}; do
				[ -f "$moddir/$m/$m.ko" ] || usage_error "no $moddir/$m/$m.ko (build with make, or give -m)"
			done
		fi
		[ "$prepare" = 0 ] || knobs "$what"
	fi
}

# program_args PARAM=VALUE...: lib.sh's program_params; sets
# pcommand and pserver, the declared command lines with each {NAME} its
# value, pport the server's port, and checks that the declared programs
# are installed.
program_args() {
	program_params "$TOP" "$bench" "$@"
	_pa_ch=$(bench_get "$TOP" "$bench" choices)
	for p in "$@"; do
		for _pa in $_pa_ch; do
			[ "${_pa%%:*}" = "${p%%=*}" ] || continue
			case ,$(echo "${_pa#*:}" | sed 's/=[^,]*//g'), in
			*",${p#*=},"*) ;;
			*) usage_error "parameter '$p': $bench's ${p%%=*} is one of $(echo "${_pa#*:}" | sed 's/=[^,]*//g; s/,/, /g')" ;;
			esac
		done
	done
	pcommand=$(expand_params command "$@")
	# the iteration's time at most: -T, else the declaration's sum
	if [ -z "$timeout" ]; then
		timeout=$(expand_params timeout "$@" | awk '{
			for (i = 1; i <= NF; i++) {
				if ($i !~ /^([0-9]+\*)?[0-9]+$/) { print "bad " $i; exit }
				f = split($i, w, "*")
				t += f == 2 ? w[1] * w[2] : w[1]
			}
			print t + 0
		}')
		case $timeout in
		bad*) usage_error "$bench's timeout= ($(bench_get "$TOP" "$bench" timeout)) needs numbers: '${timeout#bad }'" ;;
		0 | '') timeout=3600 ;;
		esac
	fi
	pserver=$(expand_params server "$@")
	pport=$(expand_params server_port "$@")
	[ -z "$pport" ] || parse_uint server_port "$pport" 65535 1
	# a taken port before anything is made
	[ -z "$pport" ] || ! listening "$pport" || port_taken
	for _pa in $(bench_get "$TOP" "$bench" programs); do
		bench_program "$TOP" "$bench" "$_pa" >/dev/null ||
			usage_error "$bench needs $_pa, which is not installed ($(bench_program_from "$TOP" "$bench"))"
	done
	# the suite's own programs run from their folder
	if [ -z "$(bench_get "$TOP" "$bench" package)" ]; then
		PATH=$(CDPATH='' cd -P -- "$TOP/$bench" && pwd -P):$PATH
		export PATH
	fi
}
# expand_params KEY PARAM=VALUE...: the declared KEY with each {NAME} the
# given value of NAME, else its declared default; of a parameter with
# choices= (NAME:VALUE=WORD,...), the value's word (maybe none).
expand_params() {
	_ep=$1
	shift
	param_values "$@" | awk -v t="$(bench_get "$TOP" "$bench" "$_ep")" -v ch="$(bench_get "$TOP" "$bench" choices)" '
		{ eq = index($0, "="); val[substr($0, 1, eq - 1)] = substr($0, eq + 1) }
		END {
			n = split(ch, c, " ")
			for (i = 1; i <= n; i++) {
				p = substr(c[i], 1, index(c[i], ":") - 1)
				m = split(substr(c[i], index(c[i], ":") + 1), it, ",")
				for (j = 1; j <= m; j++) {
					eq = index(it[j], "=")
					if (eq) word[p, substr(it[j], 1, eq - 1)] = substr(it[j], eq + 1)
				}
			}
			o = ""
			while (match(t, /\{[a-z][a-z0-9_]*\}/)) {
				p = substr(t, RSTART + 1, RLENGTH - 2)
				o = o substr(t, 1, RSTART - 1) ((p, val[p]) in word ? word[p, val[p]] : val[p])
				t = substr(t, RSTART + RLENGTH)
			}
			o = o t
			gsub(/  +/, " ", o)
			sub(/^ /, "", o)
			sub(/ $/, "", o)
			print o
		}'
}
# param_values PARAM=VALUE...: the declared NAME=DEFAULT words, then the
# given ones, a line each (a later NAME overrides an earlier one).
param_values() {
	# shellcheck disable=SC2046 # the declared NAME=DEFAULT words
	printf '%s\n' $(bench_get "$TOP" "$bench" params) "$@"
}
# parse_vars PARAM=VALUE...: "-v param_NAME=VALUE" words of every
# parameter's value for parse.awk.
parse_vars() {
	param_values "$@" | awk '
		{ eq = index($0, "="); val[substr($0, 1, eq - 1)] = substr($0, eq + 1) }
		END { for (k in val) printf "-v param_%s=%s\n", k, val[k] }' | sort | tr '\n' ' '
}

# The presets of -P: named knob values. quiet is what -p prepares; epyc and
# xeon are the two setups the SM_IDLE patch thread published its figures
# with: "boost on, C2 disabled" (acpi_idle's POLL, C1, C2: C1 the deepest
# allowed) and "C-states >= C1E disabled, performance governor, turbo off"
# (intel_idle's POLL, C1, C1E, C6...: POLL and C1 allowed), the same knobs
# as quiet.
PRESETS="quiet epyc xeon"
preset() {
	case $1 in
	quiet | xeon) echo "boost=off cstate=C1 governor=performance" ;;
	epyc) echo "boost=on cstate=C1 governor=keep" ;;
	*) return 1 ;;
	esac
}
KNOBS="boost=on|off|keep, cstate=NAME|LATENCY_US|keep, governor=NAME|keep"

# knobs WHAT: -P's argument, comma-separated presets and KNOB=VALUE, applied
# in order to knobs that start as keep; sets k_boost, k_cstate, k_governor
# and prepare_preset (the preset named last when the knobs are its own, else
# custom). Anything else is a usage error.
knobs() {
	k_boost=keep k_cstate=keep k_governor=keep prepare_preset=custom
	case $1 in '' | ,* | *, | *,,*) usage_error "-P: '$1' is not a comma-separated list of presets and knobs ($PRESETS; $KNOBS)" ;; esac
	_named=""
	set -f
	_ifs=$IFS
	IFS=,
	# shellcheck disable=SC2086 # split at the commas
	set -- $1
	IFS=$_ifs
	set +f
	for _w in "$@"; do
		case $_w in
		boost=on | boost=off | boost=keep) k_boost=${_w#*=} ;;
		boost=*) usage_error "-P: $_w: boost is on, off or keep" ;;
		cstate=*)
			k_cstate=${_w#*=}
			case $k_cstate in
			[A-Za-z]*[!A-Za-z0-9_-]* | '' | [!A-Za-z0-9]* | [0-9]*[!0-9]*)
				usage_error "-P: $_w: cstate is an idle state's name (C1, C1E, POLL), an exit latency in us or keep"
				;;
			[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]*) usage_error "-P: $_w: an exit latency of 1000 s or more" ;;
			esac
			;;
		governor=*)
			k_governor=${_w#*=}
			case $k_governor in
			'' | [!a-z]* | *[!a-z0-9_]*) usage_error "-P: $_w: governor is a cpufreq governor's name (performance, schedutil) or keep" ;;
			esac
			;;
		*=*) usage_error "-P: unknown knob '${_w%%=*}' (knobs: $KNOBS)" ;;
		*)
			_k=$(preset "$_w") || usage_error "-P: unknown preset '$_w' (presets: $PRESETS; knobs: $KNOBS)"
			_named=$_w
			for _kv in $_k; do
				case $_kv in
				boost=*) k_boost=${_kv#*=} ;;
				cstate=*) k_cstate=${_kv#*=} ;;
				governor=*) k_governor=${_kv#*=} ;;
				esac
			done
			;;
		esac
	done
	if [ "$k_boost $k_cstate $k_governor" = "keep keep keep" ]; then
		usage_error "-P: nothing to prepare, every knob is keep"
	fi
	if [ -n "$_named" ] && [ "$(preset "$_named")" = "boost=$k_boost cstate=$k_cstate governor=$k_governor" ]; then
		prepare_preset=$_named
	fi
}

# in_dir DIR PATTERNS...: FILE:VALUE lines of the first non-empty line of
# each readable FILE the PATTERNS match in DIR (FILE relative to DIR), in
# one pass. Quote the patterns: they are globbed in DIR.
in_dir() (
	cd "$1" 2>/dev/null || exit 0
	shift
	set +f
	# shellcheck disable=SC2048,SC2086 # globbed here
	grep -s -H -m 1 . $* || :
)

# open_run: the kernel release, the result directory's name, the
# temporary directory and the lock.
open_run() {
	release=$(get "$PROC/sys/kernel/osrelease")
	[ "$release" != unknown ] || release=$(uname -r)
	if [ "$restore" = 0 ]; then
		[ -n "$out" ] || out="results/$bench-$release-$(date +%Y%m%d-%H%M%S)"
		[ ! -e "$out" ] || usage_error "$out exists: refusing to overwrite a result"
	fi

	# the machine's own /sys, /run and modules: root's
	if [ -z "$ROOT" ] && [ "$(id -u)" != 0 ]; then
		die "run.sh runs as root: it loads modules, writes /sys and takes $LOCK (uid $(id -u) here: sudo?)"
	fi
	TMP=$(mktemp -d)
	mkdir -p "$STATE" 2>/dev/null || die "cannot create $STATE"
	if ! lock_take "$LOCK"; then
		[ -n "$LOCK_OWNER" ] ||
			die "$LOCK has been neither held by a live run.sh nor free for 10 s (remove it and $LOCK.break if no run.sh runs)"
		die "another run.sh (pid $LOCK_OWNER) holds $LOCK: one run at a time (remove $LOCK if no run.sh runs)"
	fi
	locked=1
}

# restore_mode: -r, restore what an interrupted -p run saved, and exit.
restore_mode() {
	[ -f "$SAVED" ] || { log "nothing to restore ($SAVED does not exist)"; exit 0; }
	log "restoring the settings $(sed -n 's/^owner=//p' "$SAVED")"
	in_cleanup=1
	if restore_saved; then
		log "restored ($nrestored written, the others held their saved value)"
		exit 0
	fi
	warn "could not restore $(grep -c . "$TMP/unrestored") settings, kept in $SAVED:"
	sed 's/^/  /' "$TMP/unrestored" >&2
	exit 1
}

# prep_warn MSG: a warning of preparing, also recorded in meta.txt.
prep_warn() { warn "$1"; echo "$1" >>"$TMP/notes"; }

# open_result: the result directory, refused while a saved state says
# an interrupted -p run has not been restored and -p is asked for.
open_result() {
	if [ -f "$SAVED" ]; then
		if [ "$prepare" = 1 ]; then
			die "$SAVED holds the settings of an interrupted -p run ($(sed -n 's/^owner=//p' "$SAVED")): restore them first with run.sh -r"
		fi
	fi
	mkdir -p "$(dirname "$out")"
	mkdir "$out" || die "cannot create $out"
	meta=$out/meta.txt
	[ ! -f "$SAVED" ] || prep_warn "the settings an interrupted -p run changed are still in force (run.sh -r restores them)"
}

# plan FILE [VALUE]: save FILE's value (the saved line goes to stdout);
# with VALUE, FILE is to hold VALUE: "FILE VALUE OLD" in $TMP/plan.
plan() {
	rd "$1"
	[ -n "$v" ] || return 0
	echo "${1#"$ROOT"} $v"
	[ $# -lt 2 ] || echo "$1 $2 $v" >>"$TMP/plan"
}

# cstate_latency: the exit latency (us) of the deepest idle state the
# cstate knob allows, in $lat: a latency as given; the state of that name on
# cpu0 (C1: C1 or C1_ACPI, else the shallowest non-POLL state); empty for
# keep or on a machine without idle states. A name cpu0 lacks is refused
# (exit 1) before anything is written.
cstate_latency() {
	lat=""
	case $k_cstate in
	keep) return 0 ;;
	[0-9]*)
		lat=$k_cstate
		return 0
		;;
	esac
	lat=$(for _s in "$CPU"/cpu0/cpuidle/state*; do
		[ -d "$_s" ] || continue
		echo "$(get "$_s/name") $(get "$_s/latency")"
	done | awk -v want="$k_cstate" '
		$2 !~ /^[0-9]+$/ { next }
		{ names = names " " $1 }
		$1 == want || (want == "C1" && $1 == "C1_ACPI") { c = $2 }
		$1 != "POLL" && (min == "" || $2 < min) { min = $2 }
		END {
			if (c == "" && want == "C1") c = min
			if (c == "" && names != "") { print "!" names; exit }
			print c
		}')
	case $lat in
	!*) die "-P cstate=$k_cstate: cpu0 has no idle state $k_cstate (its states:${lat#!}): give one of them, or an exit latency in us" ;;
	esac
}

# prepare_machine: -p, save, change and read back the idle and
# frequency settings.
prepare_machine() {
	: >"$TMP/plan"
	{
		echo "format=ipistorm-saved/1"
		echo "owner=pid $$, $(date -u +%Y-%m-%dT%H:%M:%SZ), $out"
		for s in "$CPU"/cpu[0-9]*/cpuidle/state[0-9]*; do
			[ -n "$lat" ] || break
			rd "$s/latency"
			case $v in '' | *[!0-9]*) continue ;; esac
			[ "$v" -le "$lat" ] || plan "$s/disable" 1
		done
		# Boost is global (acpi-cpufreq, amd-pstate), per policy (newer
		# kernels' policyN/boost) or intel_pstate's no_turbo.
		if [ "$k_boost" != keep ]; then
			bv=0 nt=1
			[ "$k_boost" = off ] || bv=1 nt=0
			for b in "$CPU/cpufreq/boost" "$CPU"/cpufreq/policy[0-9]*/boost; do
				[ ! -f "$b" ] || plan "$b" "$bv"
			done
			[ ! -f "$CPU/intel_pstate/no_turbo" ] || plan "$CPU/intel_pstate/no_turbo" "$nt"
		fi
		# A governor's tunables go with it: saved (with userspace's
		# frequency and the EPP) to come back after the governor.
		if [ "$k_governor" != keep ]; then
			govs=""
			for g in "$CPU"/cpu[0-9]*/cpufreq/scaling_governor; do
				[ -f "$g" ] || continue
				plan "$g" "$k_governor"
				case " $govs " in *" $v "*) ;; *) govs="$govs $v" ;; esac
			done
			for g in $govs; do
				[ "$g" != "$k_governor" ] || continue
				for t in "$CPU/cpufreq/$g"/* "$CPU"/cpufreq/policy[0-9]*/"$g"/*; do
					[ ! -f "$t" ] || plan "$t"
				done
				[ "$g" != userspace ] || for t in "$CPU"/cpu[0-9]*/cpufreq/scaling_setspeed; do
					[ ! -f "$t" ] || plan "$t"
				done
			done
			for e in "$CPU"/cpu[0-9]*/cpufreq/energy_performance_preference; do
				[ ! -f "$e" ] || plan "$e"
			done
		fi
	} >"$TMP/saved"
	# Complete before the first write: a kill -9 leaves all or nothing.
	saved_mine=1
	mv "$TMP/saved" "$SAVED.new"
	mv "$SAVED.new" "$SAVED"
	# Write, read back: a refused write (as root [ -w ] is always true)
	# is recorded; what holds is checked again after each iteration.
	: >"$TMP/want"
	: >"$TMP/unwritten"
	boosts=0 nwritten=0
	while read -r f w old; do
		v=$old
		if [ "$old" != "$w" ]; then
			echo "$w" 2>/dev/null >"$f" || :
			rd "$f"
			nwritten=$((nwritten + 1))
			[ "$nwritten" != 1 ] || step prepare
		fi
		if [ "$v" = "$w" ]; then
			echo "$f $w" >>"$TMP/want"
			case $f in */boost | */no_turbo) boosts=$((boosts + 1)) ;; esac
		else
			echo "${f#"$ROOT"} $w ${v:-unknown}" >>"$TMP/unwritten"
		fi
	done <"$TMP/plan"
	if [ -s "$TMP/unwritten" ]; then
		prep_warn "$(grep -c . "$TMP/unwritten") settings could not be prepared (write_failed=)"
	fi
	[ "$k_boost" = keep ] || [ "$boosts" -gt 0 ] ||
		prep_warn "could not turn boost $k_boost: no writable cpufreq/boost, policy*/boost or intel_pstate/no_turbo"
}

# ---- the machine's state ----------------------------------------------------

# ---- the machine's state ----------------------------------------------------

# record KEY VALUE: append KEY=VALUE to meta.txt.
record() { echo "$1=$2" >>"$meta"; }
note_warn() {
	warn "$1"
	record warning "$1"
}
cpuinfo() {
	_c=$(sed -n "s/^$1[[:space:]]*: *//p" "$PROC/cpuinfo" 2>/dev/null | head -n 1)
	echo "${_c:-unknown}"
}
# ndirs PATHS...: how many of the arguments are directories.
ndirs() {
	_n=0
	for _d in "$@"; do [ -d "$_d" ] && _n=$((_n + 1)); done
	echo "$_n"
}

# measured_cpus ARGS...: the senders and targets of the run (and of the
# storm), by the rules of the benchmarks' declarations (cpus=): the first
# rule whose parameter is given decides; pairs:P both ends of P's A:B pairs,
# list:P[:Q...] the CPU lists P (and Q...), shift:P:O:D:K=V when K=V the
# list P and each of its CPUs plus O (default D); all online CPUs where no
# rule applies (ipistorm's single=0 targets every CPU; idle_reentry and
# nohz_csd without cpulist= watch all).
measured_cpus() {
	echo "$bench $* ${storm:+; $stormmod $storm}" | awk -v online="$(get "$CPU/online")" \
		-v rules0="$(bench_get "$TOP" "$bench" cpus)" \
		-v rules1="${storm:+$(bench_get "$TOP" "$stormmod" cpus)}" -f "$HERE/cpulist.awk" -f "$HERE/run-cpus.awk" | sort -n | join_lines ' '
}

# cstates CPUS...: a cstates.cpuN= line per CPU: NAME:LATENCY_US:DISABLE
# of each idle state, ","-separated.
cstates() {
	_p=""
	for _c in "$@"; do
		_p="$_p cpu$_c/cpuidle/state*/name cpu$_c/cpuidle/state*/latency cpu$_c/cpuidle/state*/disable"
	done
	set -f
	# shellcheck disable=SC2086 # patterns, globbed by in_dir
	set -- $_p
	set +f
	[ $# -eq 0 ] || in_dir "$CPU" "$@" | awk -F : -v cpus="$measured" -f "$HERE/run-cstates.awk"
}
kconf() { sed -n "s/^CONFIG_$1=//p" "$config" | head -n 1; }
# irqs_of CPU: the IRQs whose (effective) affinity holds CPU.
irq_affinity() {
	_p=""
	for _i in "$PROC"/irq/[0-9]*; do
		_p="$_p ${_i##*/}/effective_affinity_list ${_i##*/}/smp_affinity_list"
	done
	set -f
	# shellcheck disable=SC2086 # file names
	set -- $_p
	set +f
	[ $# -gt 0 ] || return 0
	# the effective affinity where there is one, in the order of the IRQs
	in_dir "$PROC/irq" "$@" | awk -F : -v cpus="$measured" -f "$HERE/run-irqs.awk"
}

# machine_state PARAMS...: what the meta.txt lines are made of.
machine_state() {
	cmdline=$(get "$PROC/cmdline")

	idle=none preempt_arg=""
	for w in $cmdline; do
		case $w in
		idle=*) idle=${w#idle=} ;;
		preempt=*) preempt_arg=${w#preempt=} ;;
		esac
	done
	measured=$(measured_cpus "$@")

	# The kernel's configuration, when it exposes it.
	config=$TMP/config
	kernel_config "$config" "$PROC" "$BOOT" "$release"
	config_hash=unknown
	[ ! -s "$config" ] || config_hash=sha256:$(sha256sum <"$config" | cut -d ' ' -f 1)
	hz=$(kconf HZ)
	no_hz=unknown
	if [ "$(kconf NO_HZ_FULL)" = y ]; then no_hz=full
	elif [ "$(kconf NO_HZ_IDLE)" = y ]; then no_hz=idle
	elif [ "$(kconf HZ_PERIODIC)" = y ]; then no_hz=periodic
	fi
	# Preemption: the live mode of a PREEMPT_DYNAMIC kernel in debugfs
	# ("none (voluntary) full"), else preempt= of the command line, else the
	# configuration, else the version string.
	preempt=$(sed -n 's/.*(\([a-z_]*\)).*/\1/p' "$SYS/kernel/debug/sched/preempt" 2>/dev/null | head -n 1)
	kversion=$(get "$PROC/sys/kernel/version")
	if [ -z "$preempt" ] && [ -n "$preempt_arg" ]; then preempt=$preempt_arg
	elif [ -n "$preempt" ]; then :
	elif [ "$(kconf PREEMPT_RT)" = y ]; then preempt=rt
	elif [ "$(kconf PREEMPT)" = y ]; then preempt=full
	elif [ "$(kconf PREEMPT_VOLUNTARY)" = y ]; then preempt=voluntary
	elif [ "$(kconf PREEMPT_NONE)" = y ]; then preempt=none
	else
		case $kversion in
		*PREEMPT_RT*) preempt=rt ;;
		*PREEMPT_DYNAMIC*) preempt=dynamic ;;
		*PREEMPT*) preempt=full ;;
		*) preempt=unknown ;;
		esac
	fi
	sched_features=$(get "$SYS/kernel/debug/sched/features")
	[ "$sched_features" != unknown ] || sched_features=$(get "$SYS/kernel/debug/sched_features")
	pstate=""
	for _d in amd_pstate intel_pstate; do
		[ -r "$CPU/$_d/status" ] && pstate="$pstate${pstate:+;}$_d:$(get "$CPU/$_d/status")"
	done
	boost_policies=$(in_dir "$CPU/cpufreq" 'policy[0-9]*/boost' | sed 's|/boost:|=|' | join_lines ';')
	irqbalance="not running"
	! grep -s -q -x irqbalance "$PROC"/[0-9]*/comm || irqbalance=running
	# what the preflight said of this run's benchmarks, in the state it
	# runs in (after -p): preflight.BENCH= lines (its exit is the verdict)
	# shellcheck disable=SC2086 # one word, or none
	sh "$HERE/preflight.sh" -m "$moddir" "$bench" ${storm:+$stormmod} >"$TMP/preflight" 2>&1 || :
	awk -v fmt=ipistorm-preflight/1 '
		NR == 1 && $0 != "format=" fmt { print "preflight.error=" $0; exit }
		/^[a-z0-9_]+: (valid|degraded|invalid)$/ { b = substr($1, 1, length($1) - 1); print "preflight." b "=" $2 }
		/^  - / && b != "" { print "preflight." b ".reason=" substr($0, 5) }' "$TMP/preflight" >"$TMP/preflight.meta"
}

# dma_latency: the CPU latency limit in us that the PM QoS requests held
# through /dev/cpu_dma_latency make (2000000000: none held), as the
# device reads, a native 32-bit integer; unknown when it cannot be read.
# Reading adds no request that limits: open adds one at the default.
dma_latency() {
	_dl=$(od -An -t d4 -N 4 "$DEV/cpu_dma_latency" 2>/dev/null | tr -d ' ') || _dl=""
	case $_dl in
	'' | *[!0-9-]* | ?*-*) echo unknown ;;
	*) echo "$_dl" ;;
	esac
}

# write_meta PARAMS...: meta.txt's lines.
write_meta() {
	echo "format=ipistorm-run/2"
	echo "bench=$bench"
	echo "params=$*"
	echo "storm=$storm"
	echo "iterations=$n"
	echo "warmup=$warmup"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "hostname=$(get "$PROC/sys/kernel/hostname")"
	echo "kernel=$release"
	echo "kernel_version=$kversion"
	echo "kernel_describe=${describe:-unknown}"
	echo "config_hash=$config_hash"
	echo "preempt=$preempt"
	echo "hz=${hz:-unknown}"
	echo "no_hz=$no_hz"
	echo "nohz_full=$(get "$CPU/nohz_full")"
	echo "cmdline=$cmdline"
	echo "idle=$idle"
	echo "prepared=$prepare"
	if [ "$prepare" = 1 ]; then
		echo "prepare_spec=$what"
		echo "prepare_preset=$prepare_preset"
		echo "prepare_boost=$k_boost"
		echo "prepare_cstate=$k_cstate"
		echo "prepare_cstate_latency_us=${lat:-unknown}"
		echo "prepare_governor=$k_governor"
	else
		echo "prepare_preset=none"
	fi
	echo "cpu_model=$(cpuinfo 'model name')"
	echo "microcode=$(cpuinfo microcode)"
	echo "bios=$(get "$SYS/class/dmi/id/bios_vendor") $(get "$SYS/class/dmi/id/bios_version") $(get "$SYS/class/dmi/id/bios_date")"
	echo "product=$(get "$SYS/class/dmi/id/sys_vendor") $(get "$SYS/class/dmi/id/product_name")"
	echo "memory_kb=$(sed -n 's/^MemTotal: *\([0-9]*\) kB$/\1/p' "$PROC/meminfo" 2>/dev/null | grep . || echo unknown)"
	echo "loadavg_before=$(cut -d ' ' -f 1-3 "$PROC/loadavg" 2>/dev/null || echo unknown)"
	echo "cpus_online=$(get "$CPU/online")"
	echo "sockets=$(count "$CPU"/cpu[0-9]*/topology/physical_package_id)"
	echo "cores=$(count "$CPU"/cpu[0-9]*/topology/core_cpus_list "$CPU"/cpu[0-9]*/topology/thread_siblings_list)"
	echo "threads=$(ndirs "$CPU"/cpu[0-9]*/topology)"
	echo "smt_control=$(get "$CPU/smt/control")"
	echo "smt_active=$(get "$CPU/smt/active")"
	echo "numa_nodes=$(ndirs "$SYS"/devices/system/node/node[0-9]*)"
	for d in "$SYS"/devices/system/node/node[0-9]*; do
		[ -d "$d" ] && rd "$d/cpulist" && echo "${d##*/}.cpulist=${v:-unknown}"
	done
	echo "llc=$(for d in "$CPU"/cpu[0-9]*; do llc_list "$d"; done | sort -u | grep . | join_lines ';')"
	echo "clocksource=$(get "$SYS/devices/system/clocksource/clocksource0/current_clocksource")"
	for v in "$CPU"/vulnerabilities/*; do
		[ -r "$v" ] && echo "vuln.${v##*/}=$(get "$v")"
	done
	echo "sched_features=$sched_features"
	echo "cpufreq_driver=$(get "$CPU/cpu0/cpufreq/scaling_driver")"
	echo "pstate_status=${pstate:-unknown}"
	epp=$(uniq_lines "$CPU"/cpu[0-9]*/cpufreq/energy_performance_preference)
	echo "epp=${epp:-unknown}"
	echo "governor=$(get "$CPU/cpu0/cpufreq/scaling_governor")"
	echo "governors=$(uniq_lines "$CPU"/cpu[0-9]*/cpufreq/scaling_governor)"
	echo "boost=$(get "$CPU/cpufreq/boost")"
	echo "boost_policies=${boost_policies:-unknown}"
	echo "no_turbo=$(get "$CPU/intel_pstate/no_turbo")"
	echo "cpuidle_driver=$(get "$CPU/cpuidle/current_driver")"
	echo "cpuidle_governor=$(get "$CPU/cpuidle/current_governor_ro")"
	for s in "$CPU"/cpu0/cpuidle/state*; do
		[ -d "$s" ] || continue
		echo "cpuidle.${s##*/}=$(get "$s/name") latency_us=$(get "$s/latency") disable=$(get "$s/disable")"
	done
	echo "cpu_dma_latency_us=$(dma_latency)"
	echo "measured_cpus=$measured"
	# shellcheck disable=SC2086 # a list of CPUs
	cstates $measured
	echo "irqbalance=$irqbalance"
	irq_affinity
	cat "$TMP/preflight.meta"
	[ ! -s "$TMP/notes" ] || sed 's/^/warning=/' "$TMP/notes"
	[ ! -s "$TMP/unwritten" ] || sed 's/^/write_failed=/' "$TMP/unwritten"
}

# state_warnings: the state makes the results doubtful.
state_warnings() {
	deep="" poll=0
	for s in "$CPU"/cpu0/cpuidle/state*; do
		[ -d "$s" ] || continue
		rd "$s/disable"
		[ "$v" = 0 ] || continue
		rd "$s/name"
		case $v in
		POLL) poll=1 ;;
		C1 | C1_ACPI) ;;
		*) deep="$deep $v" ;;
		esac
	done
	hint_c="run with -p" hint_g="run with -p"
	[ "$prepare" = 0 ] || hint_c="prepared cstate=$k_cstate" hint_g="prepared governor=$k_governor"
	[ -z "$deep" ] || note_warn "deep C-states enabled:$deep ($hint_c)"
	gov=$(uniq_lines "$CPU"/cpu[0-9]*/cpufreq/scaling_governor)
	[ -z "$gov" ] || [ "$gov" = performance ] ||
		note_warn "cpufreq governor is $gov, not performance ($hint_g)"
	drv=$(get "$CPU/cpuidle/current_driver")
	if [ "$idle" != poll ] && [ "$poll" = 0 ] && [ "$drv" != intel_idle ]; then
		note_warn "no idle=poll and no polling idle state: the target will not poll (cpuidle driver $drv)"
	fi
}

# ---- the runs ---------------------------------------------------------------

# load M PARAMS...: insmod M. M counts as loaded from before insmod: a
# signal lands while insmod runs, the trap runs when it has loaded M.
load() {
	loaded="$1 $loaded"
	load_module "$moddir" "$@" && return 0
	forget "$1"
	return 1
}
unload() {
	unload_module "$1" || return 1
	forget "$1"
}
forget() {
	_l=""
	for _x in $loaded; do [ "$_x" = "$1" ] || _l="$_l$_x "; done
	loaded=$_l
}
# changed: "PATH WANTED READ" of each prepared setting that no longer holds
# (another program, or a run.sh that did not take the lock), in one pass.
changed() {
	awk -v root="$ROOT" '{
		f = $1; w = substr($0, length(f) + 2); v = ""
		if ((getline v <f) <= 0) v = "unknown"
		close(f)
		if (v != w) print substr(f, length(root) + 1), w, v
	}' <"$TMP/want"
}
# module_info M: its version and parameters, once, while it is loaded.
module_info() {
	grep -q "^module\\.$1\\." "$meta" && return 0
	record "module.$1.srcversion" "$(get "$SYS/module/$1/srcversion")"
	record "module.$1.version" "$(get "$SYS/module/$1/version")"
	for _p in "$SYS/module/$1"/parameters/*; do
		[ -r "$_p" ] && record "module.$1.param.${_p##*/}" "$(get "$_p")"
	done
	return 0
}

# irq_delta BEFORE AFTER: the ipistorm-irq/1 lines of the measured CPUs:
# function call (CAL), rescheduling (RES), local timer (LOC) and TLB
# shootdown (TLB) interrupts between two copies of /proc/interrupts. Only
# online CPUs have a column; the header names them.
irq_delta() {
	echo "format=ipistorm-irq/1"
	B=$1 A=$2 awk -v cpus="$measured" -f "$HERE/run-irq-delta.awk"
}

# The idle states and frequency of the measured CPUs, read around each
# iteration (never inside it): the cpuidle counters of each state, and the
# MSRs IA32_MPERF (0xE7) and IA32_APERF (0xE8) through the msr driver, whose
# file offset is the register (a dd per read: 8 bytes at offset 231 and
# 232). A read of an MSR is a call-function IPI to its CPU: they are read
# before the idle counters and /proc/interrupts at the start, after them at
# the end, outside both windows. At most MSR_MAX CPUs are read so (beyond,
# the frequency is scaling_cur_freq's). The frequency files are read at the
# end only.
MSR_MAX=64

# idle_setup: the in_dir patterns of the counters (idle_pat) and of the
# frequency files (freq_pat) of the measured CPUs, and the CPUs whose MSRs
# are read (msr_cpus).
idle_setup() {
	idle_pat="" freq_pat="" msr_cpus="" _n=0
	for _c in $measured; do
		for _f in name usage time above below; do
			idle_pat="$idle_pat cpu$_c/cpuidle/state*/$_f"
		done
		for _f in scaling_cur_freq base_frequency cpuinfo_max_freq scaling_driver; do
			freq_pat="$freq_pat cpu$_c/cpufreq/$_f"
		done
		[ ! -e "$DEV/cpu/$_c/msr" ] || msr_cpus="$msr_cpus $_c"
		_n=$((_n + 1))
	done
	[ "$_n" -le "$MSR_MAX" ] || msr_cpus=""
}
# in_cpu PATTERNS: in_dir of the CPU directory, the patterns a list.
in_cpu() {
	set -f
	# shellcheck disable=SC2086 # patterns, globbed by in_dir
	set -- $1
	set +f
	[ $# -eq 0 ] || in_dir "$CPU" "$@"
}
# msr_read: "cpuN/msr/mperf:V" and "cpuN/msr/aperf:V" of msr_cpus, read
# as unsigned 64-bit numbers (one od for all); nothing of a CPU where a
# read failed (conv=sync pads a short one, a failed one reads as 0).
msr_read() {
	[ -n "$msr_cpus" ] || return 0
	for _c in $msr_cpus; do
		for _r in 231 232; do
			dd if="$DEV/cpu/$_c/msr" bs=8 count=1 skip="$_r" iflag=skip_bytes conv=sync 2>/dev/null ||
				dd if=/dev/zero bs=8 count=1 2>/dev/null
		done
	done | od -A n -v -t u8 | awk -v cpus="$msr_cpus" '
		{ for (i = 1; i <= NF; i++) v[++n] = $i }
		END {
			k = split(cpus, c, " ")
			if (n != 2 * k) exit
			for (j = 1; j <= k; j++)
				if (v[2 * j - 1] > 0 && v[2 * j] > 0)
					print "cpu" c[j] "/msr/mperf:" v[2 * j - 1] "\ncpu" c[j] "/msr/aperf:" v[2 * j]
		}'
}

# hook_users WHEN FILE: while the measuring module holds its hooks (with
# -s: after its insmod, WHEN start, and after the storm, WHEN end), the
# ftrace users of each kernel function it hooks (enabled_functions'
# count; a function it did not hook here is not listed) as WHEN.FUNC=N
# lines of FILE (ipistorm-hooks/1). A function with another user is not
# reached the way its hook's cost was calibrated: the iteration fails.
hook_users() {
	[ -n "$hooked" ] && [ -r "$tracing/enabled_functions" ] || return 0
	[ -s "$2" ] || echo format=ipistorm-hooks/1 >"$2"
	# the record lines (not the "direct-->" ones below them) of the hooked
	# functions, a suffix (.isra.0) taken off
	printf '%s\n' "$hooked" | awk -v when="$1" '
		NR == FNR { h[$0] = 1; next }
		/^[^ \t]/ && $2 ~ /^\([0-9]+\)$/ {
			f = $1; sub(/\.[a-z]+\.[0-9]+$/, "", f)
			if (f in h) { n = $2; gsub(/[()]/, "", n); print when "." f "=" n }
		}' - "$tracing/enabled_functions" >>"$2"
	_shared=$(awk -F = -v w="$1." 'index($1, w) == 1 && $2 > 1 {
		printf "%s%s (%d users)", (n++ ? ", " : ""), substr($1, length(w) + 1), $2 }' "$2")
	[ -z "$_shared" ] ||
		failed "at its $1, $bench shares $_shared with another ftrace user (a tracer, a BPF program, a module): those hooks are not reached the way their cost was calibrated, so its times cannot be corrected (${2##*/}; scripts/preflight.sh names the users)"
}
# keep_result RESULT FILE: a module's debugfs RESULT copied to FILE; what
# failed said: the result not there (debugfs), or FILE not written (the
# disk or directory).
keep_result() {
	cat "$1" >"$TMP/result" 2>/dev/null || failed "no $1 (is debugfs mounted?)"
	# (a subshell: the shell's own word on a redirection that failed)
	(cat "$TMP/result" >"$2") 2>"$TMP/write.err" ||
		failed "cannot write $2: $(head -n 1 "$TMP/write.err" | sed 's/^.*: //') (a full disk? a read-only directory?)"
}

# run_iterations PARAMS...: the warm-up iterations, then the measured
# ones; a failure ends the run (failed).
run_iterations() {
	dbg=$SYS/kernel/debug
	# the declared summary keys, an extended regex
	summary=$(bench_get "$TOP" "$bench" summary | sed 's/\./\\./g; s/ /|/g')
	ssummary=""
	[ -z "$storm" ] || ssummary=$(bench_get "$TOP" "$stormmod" summary | sed 's/\./\\./g; s/ /|/g')
	idle_setup
	# the functions the measuring module hooks, and where ftrace lists them
	hooked=""
	[ "$kind" != module ] || hooked=$(module_hooks "$TOP" "$bench")
	tracing=$SYS/kernel/tracing
	[ -r "$tracing/enabled_functions" ] || tracing=$SYS/kernel/debug/tracing
	i=$((1 - warmup))
	while [ "$i" -le "$n" ]; do
		if [ "$i" -le 0 ]; then
			f=$(printf '%s/warmup-%03d.txt' "$out" $((i + warmup)))
			it=warmup-$((i + warmup))
		else
			f=$(printf '%s/iter-%03d.txt' "$out" "$i")
			it=iteration-$i
		fi
		{
			msr_read
			in_cpu "$idle_pat"
		} >"$TMP/idle.before"
		cat "$PROC/interrupts" >"$TMP/irq.before" 2>/dev/null || :
		if [ "$kind" = program ]; then
			run_program "$@"
		elif [ -n "$storm" ]; then
			load "$bench" "$@" || failed "insmod $bench $* failed (root? see dmesg)"
			module_info "$bench"
			hook_users start "$out/hooks-${f##*/}"
			step "$it"
			set -f
			# shellcheck disable=SC2086 # the storm is a list of parameters
			load "$stormmod" $storm || failed "insmod $stormmod $storm failed (root? see dmesg)"
			set +f
			module_info "$stormmod"
			# the storm's own result, read before its rmmod drops it
			sf=$out/storm-${f##*/}
			keep_result "$dbg/$stormmod/result" "$sf"
			unload "$stormmod" || failed "rmmod $stormmod failed"
			hook_users end "$out/hooks-${f##*/}"
			echo stop >"$dbg/$bench/control" ||
				failed "cannot stop $bench through $dbg/$bench/control"
		else
			load "$bench" "$@" || failed "insmod $bench $* failed (root? see dmesg)"
			module_info "$bench"
			step "$it"
		fi
		if [ "$kind" = module ]; then
			keep_result "$dbg/$bench/result" "$f"
			unload "$bench" || failed "rmmod $bench failed"
		fi
		if [ -s "$TMP/want" ]; then
			changed >"$TMP/changed"
			if [ -s "$TMP/changed" ]; then
				sed 's/^/settings_changed=/' "$TMP/changed" >>"$meta"
				failed "$(grep -c . "$TMP/changed") prepared settings changed during the run, e.g. $(head -n 1 "$TMP/changed") (PATH WANTED READ)"
			fi
		fi
		if cat "$PROC/interrupts" >"$TMP/irq.after" 2>/dev/null && [ -s "$TMP/irq.before" ]; then
			irq_delta "$TMP/irq.before" "$TMP/irq.after" >"$out/irq-${f##*/}"
		fi
		{
			in_cpu "$idle_pat"
			in_cpu "$freq_pat"
			msr_read
		} >"$TMP/idle.after"
		B=$TMP/idle.before A=$TMP/idle.after awk -v cpus="$measured" -f "$HERE/run-idle.awk" >"$out/idle-${f##*/}"
		st=$(sed -n 's/^status=//p' "$f")
		case $kind:$st in
		*:complete) ;;
		# a program's run ends as its iteration did
		program:interrupted | program:timeout) failed_as "$st" "result status=$st$(sed -n 's/^failure=/: /p' "$f"), see $f" ;;
		*) failed "result status=${st:-missing}$(sed -n 's/^failure=/: /p' "$f"), see $f" ;;
		esac
		if [ -n "$storm" ]; then
			st=$(sed -n 's/^status=//p' "$sf")
			[ "$st" = complete ] || failed "storm result status=${st:-missing}, see $sf"
		fi
		echo "run.sh: $f: $(grep -E "^($summary)=" "$f" | join_lines ' ')" >&2
		[ -z "$storm" ] || echo "run.sh: $sf: $(grep -E "^($ssummary)=" "$sf" | join_lines ' ')" >&2
		[ "$i" -ge "$n" ] || step "after-$it"
		i=$((i + 1))
	done
}

# ---- a program's runs -------------------------------------------------------

# run_program PARAMS...: run the program's command (the iteration), its
# output into $out/out-<result's name>, and write the result $f
# (ipistorm-program/2, program_result). The program runs in the
# background in its own session (setsid), so that run.sh hears a signal
# at once and ends the program's whole process group (cleanup), and
# under a watchdog that kills the group after $timeout seconds. The
# iteration is complete only when the program exited 0 and the parser,
# given the parameters (param_NAME), found every declared metric and the
# output that of an undisturbed run of what was asked; else interrupted
# (the program ended by a signal, or said it caught one), timeout, or
# failed, with failure=.
run_program() {
	_raw=$out/out-${f##*/}
	_prc=0
	rm -f "$TMP/timedout"
	if [ -n "$server_pid" ] && ! kill -0 "$server_pid" 2>/dev/null; then
		_prc=""
		program_result failed "the server ${pserver%% *} died before the iteration, its last output: $(tail -n 3 "$out/server.txt" 2>/dev/null | tr '\n' ' ' | sed 's/ *$//')"
		return 0
	fi
	# The watchdog first, and the program once its TERM trap is set: a
	# TERM that reaches a subshell before it has reset its parent's traps
	# is lost (dash drops it), and a watchdog that missed run.sh's TERM at
	# the end of a quick program slept on to its timeout, holding run.sh
	# in its wait and then calling the iteration timed out.
	rm -f "$TMP/dog.ready" "$TMP/prog.pgid"
	watchdog "$timeout" </dev/null >/dev/null 2>&1 &
	dog_pid=$!
	await_file "$TMP/dog.ready" 100 0.01 || run_failed "the iteration's watchdog did not start"
	set -f
	# shellcheck disable=SC2086 # the declared command's words
	if command -v setsid >/dev/null 2>&1; then
		setsid $pcommand >"$_raw" 2>&1 </dev/null &
	else
		$pcommand >"$_raw" 2>&1 </dev/null &
	fi
	prog_pid=$!
	set +f
	# for the watchdog, and the server's guard: the group to end
	echo "$prog_pid" >"$TMP/prog.pgid"
	while :; do
		_prc=0
		wait "$prog_pid" || _prc=$?
		kill -0 "$prog_pid" 2>/dev/null || break
	done
	# what it left running in its group does not outlive the iteration
	rm -f "$TMP/prog.pgid"
	kill -KILL "-$prog_pid" 2>/dev/null || :
	prog_pid=""
	kill "$dog_pid" 2>/dev/null || :
	wait "$dog_pid" 2>/dev/null || :
	dog_pid=""
	step "$it"
	if [ -e "$TMP/timedout" ]; then
		program_result timeout "${pcommand%% *} ran past the iteration's $timeout s (-T, or timeout= of $bench/bench.conf): its process group killed, see ${_raw##*/}"
		return 0
	fi
	# shellcheck disable=SC2046 # -v words of plain values
	awk $(parse_vars "$@") -f "$TOP/$bench/parse.awk" <"$_raw" >"$TMP/parsed" 2>"$TMP/parse.err" || _prc=parser
	_miss=""
	for _pm in $(bench_metrics "$TOP" "$bench"); do
		grep -q "^${_pm%:*}=" "$TMP/parsed" || _miss="$_miss ${_pm%:*}"
	done
	_said=$(sed -n 's/^interrupted=//p' "$TMP/parsed" | head -n 1)
	_bad=$(sed -n 's/^failure=//p' "$TMP/parsed" | head -n 1)
	if [ "$_prc" = parser ]; then
		program_result failed "$bench/parse.awk failed: $(head -n 1 "$TMP/parse.err")"
	elif [ "$_prc" -gt 128 ] && [ "$_prc" -lt 193 ]; then
		program_result interrupted "${pcommand%% *} ended by signal $((_prc - 128)) (exit $_prc), see ${_raw##*/}"
	elif [ -n "$_said" ]; then
		program_result interrupted "$_said, see ${_raw##*/}"
	elif [ "$_prc" != 0 ]; then
		program_result failed "${pcommand%% *} exited with status $_prc, see ${_raw##*/}"
	elif [ -n "$_bad" ]; then
		program_result failed "$_bad, see ${_raw##*/}"
	elif [ -n "$_miss" ]; then
		program_result failed "no$_miss in the output, see ${_raw##*/}"
	else
		program_result complete ""
	fi
	# a server that died during the iteration answered nothing of it
	if [ -n "$server_pid" ] && ! kill -0 "$server_pid" 2>/dev/null; then
		program_result failed "the server ${pserver%% *} died during the iteration, its last output: $(tail -n 3 "$out/server.txt" 2>/dev/null | tr '\n' ' ' | sed 's/ *$//')"
	fi
}
# program_result STATUS FAILURE: the result $f of the iteration, with
# status=STATUS and failure=FAILURE; the parsed lines of a complete one.
program_result() {
	{
		echo "format=ipistorm-program/2"
		echo "bench=$bench"
		echo "command=$pcommand"
		echo "exit=${_prc:-unknown}"
		# no figure of an iteration that is not complete
		[ "$1" != complete ] ||
			grep -v '^\(format\|bench\|command\|exit\|status\|failure\|interrupted\)=' "$TMP/parsed" || :
		echo "status=$1"
		[ -z "$2" ] || echo "failure=$2"
	} >"$f"
}
# watchdog SECONDS: after SECONDS, TERM to the process group of the
# program $TMP/prog.pgid names (the pid alone without one), KILL a
# second later; $TMP/timedout says it fired. Its TERM trap is set before
# $TMP/dog.ready says it started. One sleep, nothing woken while the
# program runs; a TERM to the watchdog ends its sleep too.
watchdog() {
	_wd=""
	trap 'kill $_wd 2>/dev/null; exit 0' TERM
	sleep "$1" &
	_wd=$!
	echo ready >"$TMP/dog.ready"
	wait "$_wd" || exit 0
	_pg=$(cat "$TMP/prog.pgid" 2>/dev/null) && [ -n "$_pg" ] || exit 0
	: >"$TMP/timedout"
	kill -TERM "-$_pg" 2>/dev/null || kill -TERM "$_pg" 2>/dev/null || :
	sleep 1
	kill -KILL "-$_pg" 2>/dev/null || kill -KILL "$_pg" 2>/dev/null || :
}
# stop_program: end the program's process group (TERM, then KILL after a
# second), the watchdog too.
stop_program() {
	[ -z "$dog_pid" ] || kill "$dog_pid" 2>/dev/null || :
	kill -TERM "-$prog_pid" 2>/dev/null || kill -TERM "$prog_pid" 2>/dev/null || :
	_sp=0
	while kill -0 "$prog_pid" 2>/dev/null && [ "$_sp" -lt 10 ]; do
		sleep 0.1
		_sp=$((_sp + 1))
	done
	kill -KILL "-$prog_pid" 2>/dev/null || kill -KILL "$prog_pid" 2>/dev/null || :
	wait "$prog_pid" 2>/dev/null || :
	prog_pid="" dog_pid=""
}

# program_info: the programs' paths, hashes and packages' versions (where
# dpkg-query answers), and the command lines, in meta.txt.
program_info() {
	record program.command "$pcommand"
	record program.server "$pserver"
	for _pi in $(bench_get "$TOP" "$bench" programs); do
		_pp=$(command -v "$_pi")
		record "program.$_pi.path" "$_pp"
		record "program.$_pi.sha256" "$(sha256sum <"$_pp" | cut -d ' ' -f 1)"
	done
	for _pi in $(bench_get "$TOP" "$bench" package); do
		# shellcheck disable=SC2016 # dpkg-query's format
		_pv=$(dpkg-query -W -f '${Version}' "$_pi" 2>/dev/null) || _pv=unknown
		record "package.$_pi" "${_pv:-unknown}"
	done
}

# listening PORT: a TCP socket of this machine listens on PORT.
listening() {
	cat "$PROC/net/tcp" "$PROC/net/tcp6" 2>/dev/null |
		awk -v p=":$(printf '%04X' "$1")" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }'
}

# port_taken: the server's port listens already: say who may hold it and
# how to go around it, exit 1.
port_taken() {
	_pt_s=${pserver%% *} _pt_who=""
	for _pt in "$PROC"/[0-9]*/comm; do
		[ "$(cat "$_pt" 2>/dev/null)" = "$_pt_s" ] || continue
		_pt=${_pt%/comm}
		_pt_who="$_pt_who ${_pt##*/}"
	done
	_pt_msg="port $pport is already listening"
	[ -z "$_pt_who" ] || _pt_msg="$_pt_msg, and $_pt_s runs (pid$_pt_who: a system service?)"
	_pt_msg="$_pt_msg: stop what listens there"
	case $(bench_get "$TOP" "$bench" server_port) in
	'{'*'}')
		_pt_p=$(bench_get "$TOP" "$bench" server_port | tr -d '{}')
		_pt_msg="$_pt_msg, or give another $_pt_p= (e.g. $_pt_p=$((pport == 65535 ? 65534 : pport + 1)))"
		;;
	esac
	run_failed "$_pt_msg"
}

# start_server: the declared server, in the background, its output in
# $out/server.txt, until it listens on its port (at most 10 s). No other
# socket may listen there before: a server left by someone else would
# answer instead.
start_server() {
	[ -n "$pserver" ] || return 0
	! listening "$pport" || port_taken
	set -f
	# shellcheck disable=SC2086 # the declared server's words
	# The server runs under a guard that waits for it (nothing is woken
	# meanwhile): should it end during an iteration, the guard ends the
	# program's process group at once, where a client of a dead server
	# would wait for its own timeout.
	(
		$pserver >"$out/server.txt" 2>&1 </dev/null &
		echo "$!" >"$TMP/server.pid"
		wait "$!" || :
		[ -e "$TMP/server.stopping" ] || [ ! -s "$TMP/prog.pgid" ] ||
			kill -TERM "-$(cat "$TMP/prog.pgid")" 2>/dev/null || :
	) &
	guard_pid=$!
	set +f
	await_file "$TMP/server.pid" 100 0.1 || run_failed "the server ${pserver%% *} did not start"
	server_pid=$(cat "$TMP/server.pid")
	_sw=0
	until listening "$pport"; do
		kill -0 "$server_pid" 2>/dev/null || run_failed "the server ${pserver%% *} ended, see $out/server.txt"
		_sw=$((_sw + 1))
		[ "$_sw" -le 100 ] || run_failed "the server ${pserver%% *} does not listen on port $pport after 10 s"
		sleep 0.1
	done
}
# stop_server: stop the server run.sh started, if any.
stop_server() {
	[ -n "$guard_pid" ] || return 0
	: >"$TMP/server.stopping"
	[ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || :
	wait "$guard_pid" 2>/dev/null || :
	server_pid="" guard_pid=""
}

# main: each step a function, called where set -e holds (never on the
# left of || or &&, which would turn it off inside the function).
main() {
	parse_args "$@"
	shift $((OPTIND - 1))
	check_args "$@"
	if [ "$restore" = 0 ]; then
		shift
	fi
	open_run
	if [ "$restore" = 1 ]; then
		restore_mode
	fi
	if [ "$prepare" = 1 ]; then
		cstate_latency
	fi
	open_result
	if [ "$prepare" = 1 ]; then
		prepare_machine
	fi
	machine_state "$@"
	write_meta "$@" >"$meta"
	state_warnings
	if [ "$kind" = program ]; then
		program_info
		start_server
	fi
	run_iterations "$@"
	stop_server
	echo "$out"
	status=ok
}

main "$@"
