# shellcheck shell=sh
# lib.sh: the helpers the suite's scripts and the test bed share (POSIX sh:
# busybox sh sources it in the guest). Sourced, not run:
#
#   . "$(dirname "$0")/lib.sh"
#
#   log MSG...            "PROG: MSG" on stderr
#   warn MSG...           "PROG: warning: MSG" on stderr
#   die MSG...            log MSG, exit 1
#   usage_help            -h: "usage: $USAGE" and the script's head comment
#                         on stdout, exit 0
#   usage_error [MSG...]  log MSG (when given) and "usage: $USAGE" on
#                         stderr, exit 2
#   usage_opt OPT         getopts' catch-all: -h usage_help, else usage_error
#   parse_uint NAME VALUE [MAX [MIN]]  a decimal integer without leading
#                         zeros, MIN (0) to MAX (2147483647), else a usage
#                         error naming NAME and VALUE (exit 2)
#   check_text NAME VALUE  one line of valid UTF-8 without control
#                         characters (what goes into meta.txt or a label),
#                         else a usage error naming NAME and VALUE (exit 2)
#   only_help "$@"        -h and unknown options of a script without any
#   install_args SUITE "$@"  the options of the fleet installers
#                         (mmtests/install.sh, lkp/install.sh: [-s SUITE]
#                         DIR | -u DIR): sets suite (default SUITE),
#                         uninstall (0 or 1) and dest
#   install_prepare LIST LISTED  their -u, and their checks of -s and of
#                         the files they would overwrite
#   and_list WORDS...     "a, b and c"
#   key KEY FILE          the value of the first KEY=value line of FILE
#   first_line FILE [DEF] FILE's first line, or DEF when FILE is unreadable
#                         or empty
#   rd FILE               FILE's first line in $v, "" when unreadable or
#                         empty (the read builtin: no process)
#   get FILE              FILE's first line, or "unknown"
#   firsts FILES...       the first non-empty line of each readable FILE
#   uniq_lines FILES...   their distinct first lines, ";"-separated
#   llc_list CPUDIR       the CPUs sharing CPUDIR's last-level cache (the
#                         highest cache/index* level), a cpulist, or empty
#   join_lines SEP        the lines of stdin joined by SEP
#   kernel_config OUT PROC BOOT RELEASE  the kernel's configuration into
#                         OUT: PROC/config.gz, else BOOT/config-RELEASE,
#                         else empty
#   module_hooks TOP MODULE  the kernel functions MODULE hooks through
#                         ftrace (the quoted names of its IPS_HOOK_NAMES()
#                         lists and of its kprobes' symbol_name, its own
#                         calibration functions left out), one a line
#   suite_benches TOP     the benchmark folders of TOP, one a line: every
#                         folder holding a bench.conf, a module's or a
#                         program's (kind=), in byte order
#   suite_kmods TOP       the module folders alone (kind=module, what the
#                         top Kbuild builds), in byte order
#   bench_kind TOP BENCH  module or program (its kind=; a module without
#                         one, which bench_check refuses)
#   bench_testbed TOP BOOT  the test globs the wirings give the test
#                         bed's boot BOOT (their testbed= words BOOT:GLOB),
#                         one a line, in suite_benches' order
#   bench_check TOP BENCH check TOP/BENCH/bench.conf, the benchmark's
#                         declaration (docs/bench.md): its defects on
#                         stderr and status 1, or silent and 0
#   bench_get TOP BENCH KEY  KEY's value in that declaration
#   wiring_check TOP BENCH  check TOP/BENCH/wiring.conf, where the suite
#                         wires the benchmark in (docs/bench.md#wiring),
#                         as bench_check does; a module's is required, a
#                         program's may be absent (no key of its is set)
#   wiring_get TOP BENCH KEY  KEY's value in that wiring (empty: none)
#   bench_metrics TOP BENCH  its metrics as KEY:DIRECTION words
#   bench_direction TOP BENCH METRIC  lower, higher or none: a :lower or
#                         :higher suffix, else the declared direction (of
#                         the numerator of an A/B ratio)
#   bench_unit TOP BENCH METRIC  its declared unit, else from its suffix
#                         (_ns ns, _pct pct), else count
#   SPLAT                 extended regex of a kernel report that fails a test
#   SPLAT_BENIGN          the one line SPLAT takes that does not (x86's
#                         idle=poll with SMT note)
#   load_module MODDIR MODULE [PARAMS...]  insmod MODDIR/MODULE/MODULE.ko;
#                         a module the kernel refuses unsigned is one
#                         message saying how to sign it
#   unload_module MODULE  rmmod MODULE unless /proc/modules says it is not
#                         loaded
#
# A script sets USAGE (its synopsis, without "usage: ") before calling the
# usage helpers. IPISTORM_INSMOD and IPISTORM_RMMOD name the programs
# load_module and unload_module run (default insmod and rmmod); their old
# names INSMOD and RMMOD still work, with a warning.

PROG=${0##*/}

log() { printf '%s: %s\n' "$PROG" "$*" >&2; }
warn() { log "warning: $*"; }
die() {
	log "$*"
	exit 1
}

# parse_uint NAME VALUE [MAX [MIN]]: VALUE is a decimal integer from MIN
# (default 0) to MAX (default 2147483647; at most 9223372036854775807, what
# every shell's arithmetic holds): digits, no sign, no blank, no leading zero
# (a shell or the kernel reads 010 as octal, and 08 not at all); else a
# usage error naming NAME (the option) and VALUE, exit 2.
parse_uint() {
	_pu_max=${3:-2147483647} _pu_min=${4:-0}
	case $2 in
	'' | *[!0-9]* | 0?*)
		_pu=$(text_problem "$2")
		usage_error "$1: '${_pu#*|}' is not a decimal integer (digits, no sign, no leading zero)"
		;;
	esac
	# a longer number than MAX is above it, and may not fit the arithmetic;
	# one of MAX's length above 2^63 - 1 makes test fail (an error, not
	# false): only a test that holds lets it through
	if [ "${#2}" -gt "${#_pu_max}" ] || ! { [ "$2" -le "$_pu_max" ] 2>/dev/null && [ "$2" -ge "$_pu_min" ]; }; then
		usage_error "$1: $2 is out of range, want $_pu_min to $_pu_max"
	fi
}

# check_text NAME VALUE: VALUE (one that goes into meta.txt or a label) is
# one line of text: no newline, no other control character (C0, DEL, C1),
# valid UTF-8; else a usage error naming NAME and VALUE (its bytes escaped
# as \n, \t, \r, \xNN), exit 2.
check_text() {
	# Letters, digits and the usual punctuation, listed one by one (a
	# range's meaning depends on the locale): nothing to look at closer.
	case $2 in
	*[!abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,:=/+@%~\ -]*) ;;
	*) return 0 ;;
	esac
	_ct=$(text_problem "$2")
	case $_ct in '|'*) return 0 ;; esac
	usage_error "$1: '${_ct#*|}' ${_ct%%|*}"
}

# text_problem VALUE: "PROBLEM|ESCAPED": what is wrong with VALUE as a line
# of text (empty when nothing) and VALUE escaped. Its bytes are read by od
# and awk in the C locale, whatever the shell's own.
text_problem() {
	printf '%s' "$1" | LC_ALL=C od -A n -v -t u1 | LC_ALL=C awk '
	function bad(k, what) {
		if (why == "") why = what
		for (; k > 0; k--) e = e sprintf("\\x%02x", b[i++])
	}
	function cont(k, lo, hi) {
		return k < n && b[k] >= lo && b[k] <= hi
	}
	{ for (j = 1; j <= NF; j++) b[n++] = $j + 0 }
	END {
		for (i = 0; i < n;) {
			c = b[i]; len = 0
			if (c == 10) { if (why == "") why = "holds a newline"; e = e "\\n"; i++; continue }
			if (c == 9) { if (why == "") why = "holds a control character"; e = e "\\t"; i++; continue }
			if (c == 13) { if (why == "") why = "holds a control character"; e = e "\\r"; i++; continue }
			if (c < 32 || c == 127) { bad(1, "holds a control character"); continue }
			if (c < 128) len = 1
			else if (c >= 194 && c <= 223 && cont(i + 1, 128, 191)) len = 2
			else if (c >= 224 && c <= 239 && cont(i + 1, c == 224 ? 160 : 128, c == 237 ? 159 : 191) && cont(i + 2, 128, 191)) len = 3
			else if (c >= 240 && c <= 244 && cont(i + 1, c == 240 ? 144 : 128, c == 244 ? 143 : 191) && cont(i + 2, 128, 191) && cont(i + 3, 128, 191)) len = 4
			if (len == 0) { bad(1, "is not valid UTF-8"); continue }
			# U+0080 to U+009F, the C1 controls
			if (c == 194 && b[i + 1] < 160) { bad(2, "holds a control character"); continue }
			for (; len > 0; len--) e = e sprintf("%c", b[i++])
		}
		print why "|" e
	}'
}

usage_help() {
	echo "usage: ${USAGE:-$PROG}"
	# The head comment: from the line after the shebang to the first
	# line that is not a comment.
	sed -n '2,$ { /^#/!q; /^# shellcheck/d; s/^# \{0,1\}//p; }' "$0"
	exit 0
}

usage_error() {
	[ $# -eq 0 ] || log "$*"
	echo "usage: ${USAGE:-$PROG}" >&2
	exit 2
}

# Every script's own options are in getopts' string; -h is usage_help and
# anything else usage_error, e.g.
#   while getopts n:h opt; do case $opt in n) ... ;; *) usage_opt "$opt" ;; esac; done
usage_opt() {
	[ "$1" = h ] && usage_help
	usage_error
}

# only_help "$@": for a script without options of its own: -h is
# usage_help, another option usage_error.
only_help() {
	case ${1:-} in
	-h) usage_help ;;
	-?*) usage_error "unknown option $1" ;;
	esac
}

# shellcheck disable=SC2034 # suite, uninstall and dest are the caller's
install_args() {
	suite=$1 uninstall=0
	shift
	OPTIND=1
	while getopts us:h _ia; do
		case $_ia in
		u) uninstall=1 ;;
		s) suite=$OPTARG ;;
		*) usage_opt "$_ia" ;;
		esac
	done
	shift $((OPTIND - 1))
	[ $# -eq 1 ] || usage_error
	case $1 in -*) usage_error "unknown option $1" ;; esac
	dest=$1
}

# install_prepare LIST LISTED: the fleet installers' step after their own
# checks; remove and ours are theirs (undo what their list LIST says; the
# files they install), LISTED how LIST names a file (its prefix). With -u,
# remove and exit; else check -s's tree and refuse a file of $dest that
# install would overwrite unless LIST holds it.
install_prepare() {
	if [ "$uninstall" = 1 ]; then
		[ -f "$1" ] || die "nothing installed in $dest (no ${1##*/})"
		remove
		echo "$PROG: removed the integration from $dest"
		exit 0
	fi
	[ -f "$suite/scripts/run.sh" ] || die "$suite is not the suite's source tree (no scripts/run.sh)"
	suite=$(cd "$suite" && pwd)
	for _ip in $(ours); do
		if { [ -e "$dest/$_ip" ] || [ -L "$dest/$_ip" ]; } &&
			! grep -qxF "$2$_ip" "$1" 2>/dev/null; then
			die "$dest/$_ip exists and was not installed here: refusing to overwrite it"
		fi
	done
}

and_list() {
	echo "$*" | sed 's/ \([^ ]*\)$/ and \1/; s/ \([^ ]*\) and/, \1 and/g; s/ \([^ ]*\),/, \1,/g'
}

# (FILE is read through a redirection: awk takes a name with "=" for an
# assignment.)
key() {
	awk -v k="$1=" 'index($0, k) == 1 { print substr($0, length(k) + 1); exit }' <"$2"
}

first_line() {
	if [ -r "$1" ] && _fl=$(head -n 1 "$1" 2>/dev/null) && [ -n "$_fl" ]; then
		echo "$_fl"
	else
		echo "${2:-}"
	fi
}

rd() {
	v=""
	IFS= read -r v 2>/dev/null <"$1" || :
}
get() {
	rd "$1"
	echo "${v:-unknown}"
}
# llc_list CPUDIR: the CPUs that share CPUDIR's (a
# /sys/devices/system/cpu/cpuN) last-level cache, as sysfs lists them: the
# shared_cpu_list of its cache/index* of the highest level (the last of
# them where no level is given: index3, the L3, on x86); empty where
# sysfs names no cache. The read builtin: no process per file.
llc_list() {
	_lv=-1 _ll=""
	for _ld in "$1"/cache/index*; do
		[ -r "$_ld/shared_cpu_list" ] || continue
		rd "$_ld/level"
		case $v in '' | *[!0-9]*) v=0 ;; esac
		[ "$v" -ge "$_lv" ] || continue
		_lv=$v
		rd "$_ld/shared_cpu_list"
		_ll=$v
	done
	echo "$_ll"
}
# (one grep for every file: 512 CPUs have thousands of them)
firsts() { grep -s -h -m 1 . "$@" || :; }
uniq_lines() { firsts "$@" | sort -u | join_lines ';'; }
# count FILES...: number of distinct first lines of the readable FILES.
count() { firsts "$@" | sort -u | grep -c . || :; }
# await_file FILE TRIES STEP: wait until FILE is there and not empty,
# checking TRIES times STEP seconds apart; fails when it never is.
await_file() {
	_aw=0
	until [ -s "$1" ]; do
		_aw=$((_aw + 1))
		[ "$_aw" -le "$2" ] || return 1
		sleep "$3"
	done
}
join_lines() { awk -v s="$1" '{ o = o (NR > 1 ? s : "") $0 } END { print o }'; }

kernel_config() {
	if [ -r "$2/config.gz" ]; then
		gzip -dc "$2/config.gz" >"$1" 2>/dev/null || : >"$1"
	elif [ -r "$3/config-$4" ]; then
		cat "$3/config-$4" >"$1"
	else
		: >"$1"
	fi
}

# The hooks are named where they are declared, in the module's C or its
# hook list (hooks.h; a list may span lines); a name with _cal_fn_ is one
# of the module's own functions, hooked to calibrate. Read a line at a
# time, keeping only the text of a list not closed yet: the whole C as one
# string took busybox awk seconds on a slow machine.
module_hooks() {
	cat "$1/$2"/*.[ch] 2>/dev/null | awk '
		{
			s = s " " $0
			gsub(/symbol_name[ \t]*=[ \t]*"[^"]*"/, "IPS_HOOK_NAMES(&)", s)
			while (match(s, /IPS_HOOK_NAMES\([^)]*\)/)) {
				l = substr(s, RSTART + 15, RLENGTH - 16)
				s = substr(s, RSTART + RLENGTH)
				# the quoted names (the storm module witness=1 hook,
				# named by a macro, is an option of its own)
				n = split(l, w, /"/)
				for (i = 2; i <= n; i += 2)
					if (w[i] !~ /_cal_fn_/ && !(w[i] in seen)) { seen[w[i]] = 1; print w[i] }
			}
			if ((i = index(s, "IPS_HOOK_NAMES(")) > 0)
				s = substr(s, i)
			else if (match(s, /symbol_name[ \t]*(=[ \t]*)?$/))
				s = substr(s, RSTART)
			else
				s = ""
		}'
}

# check_params PARAM=VALUE...: each is one line of text, PARAM a name, and
# a VALUE of digits a decimal integer (the kernel reads 010 as octal).
check_params() {
	for _cp in "$@"; do
		check_text parameter "$_cp"
		case $_cp in
		[a-z]*=*) ;;
		*) usage_error "parameter '$_cp' is not PARAM=VALUE" ;;
		esac
		case ${_cp#*=} in
		*[!0-9]*) ;;
		*) parse_uint "${_cp%%=*}" "${_cp#*=}" 9223372036854775807 ;;
		esac
	done
}

# program_params TOP BENCH PARAM=VALUE...: a program's parameters are
# those its declaration lists (params=NAME=DEFAULT...), each value of
# letters, digits and _.,:+- (a word of its command line, never read by a
# shell), and a decimal integer where the default is one (a program reads
# "x" or "-3" as it likes: hackbench's -l x runs no loop); else a usage
# error naming the parameter, exit 2.
program_params() {
	_pp_top=$1 _pp_bench=$2
	shift 2
	_pp_decl=$(bench_get "$_pp_top" "$_pp_bench" params)
	for _pp in "$@"; do
		case " $_pp_decl" in
		*" ${_pp%%=*}="*) ;;
		*) usage_error "$_pp_bench has no parameter '${_pp%%=*}' (its parameters: $(echo "$_pp_decl" | sed 's/=[^ ]*//g'))" ;;
		esac
		case ${_pp#*=} in
		'' | *[!A-Za-z0-9_.,:+-]*) usage_error "parameter '$_pp': a value of $_pp_bench's is letters, digits and _.,:+-" ;;
		esac
		# the default: the word after " PARAM="
		_pp_def=" $_pp_decl "
		_pp_def=${_pp_def#*" ${_pp%%=*}="}
		case ${_pp_def%% *} in
		'' | *[!0-9]*) ;;
		*) parse_uint "${_pp%%=*}" "${_pp#*=}" 9223372036854775807 ;;
		esac
	done
}

# ko_srcversion FILE: the srcversion a module file carries (modpost's
# digest of its sources, what /sys/module/M/srcversion shows once it is
# loaded), read from its .modinfo strings; "unknown" without one.
ko_srcversion() {
	_ks=$(tr '\000' '\n' <"$1" 2>/dev/null | sed -n 's/^srcversion=\([0-9A-F]*\)$/\1/p' | head -n 1)
	echo "${_ks:-unknown}"
}

# A benchmark is a folder with a declaration: the folders are found, not
# listed (the top Kbuild finds the same ones, docs/bench.md). (A subshell:
# the folders are found by a glob, also under a caller's set -f.)
suite_benches() (
	set +f
	for _sm in "$1"/*/bench.conf; do
		[ -f "$_sm" ] || continue
		_sm=${_sm%/bench.conf}
		printf '%s\n' "${_sm##*/}"
	done | LC_ALL=C sort
)

# A program's declaration says kind=program; every other one is a
# module's (the top Kbuild reads kind= the same way).
suite_kmods() {
	for _sk in $(suite_benches "$1"); do
		[ "$(bench_kind "$1" "$_sk")" != module ] || printf '%s\n' "$_sk"
	done
}

# suite_programs TOP: the suite's own programs, BENCH/PROGRAM a line, in
# suite_benches' order: each of programs= of a program's declaration
# without package= (docs/bench.md), which make programs builds and the
# test bed builds static, both with PROGRAM_CFLAGS.
suite_programs() {
	for _sp in $(suite_benches "$1"); do
		[ "$(bench_kind "$1" "$_sp")" = program ] || continue
		[ -z "$(bench_get "$1" "$_sp" package)" ] || continue
		for _spp in $(bench_get "$1" "$_sp" programs); do
			printf '%s/%s\n' "$_sp" "$_spp"
		done
	done
}
# shellcheck disable=SC2034 # read by the Makefile and vm/mkinitramfs.sh
PROGRAM_CFLAGS="-Wall -Wextra -Werror -pthread"

bench_kind() {
	_bk=$(bench_get "$1" "$2" kind)
	echo "${_bk:-module}"
}

bench_testbed() {
	for _bt in $(suite_benches "$1"); do
		wiring_get "$1" "$_bt" testbed
	done | tr ' ' '\n' | awk -v b="$2:" 'index($0, b) == 1 { print substr($0, length(b) + 1) }'
}

# The declarations are read, never run: awk takes the value as it stands.
bench_check() {
	_bc=$1/$2/bench.conf
	if [ ! -f "$_bc" ]; then
		log "$_bc: no such file: every module folder declares itself there (docs/bench.md)"
		return 1
	fi
	awk -v prog="$PROG" -v file="$_bc" -v name="$2" -v mods="$(suite_kmods "$1" | tr '\n' ' ')" \
		-f "$1/scripts/bench.awk" <"$_bc" || return 1
	# a program's output is read by the parser in its folder
	[ "$(bench_kind "$1" "$2")" = module ] || [ -f "$1/$2/parse.awk" ] || {
		log "$1/$2/parse.awk: no such file: a program's folder holds the parser of its output (docs/bench.md)"
		return 1
	}
}

bench_get() { key "$3" "$1/$2/bench.conf"; }

# The wiring is the host's: the test bed, bisect.sh, DKMS and the
# integrations read it, the measured machine never does.
wiring_check() {
	_wc=$1/$2/wiring.conf
	_wk=$(bench_kind "$1" "$2")
	if [ ! -f "$_wc" ]; then
		[ "$_wk" = program ] && return 0
		log "$_wc: no such file: every module folder wires itself in there (docs/bench.md#wiring)"
		return 1
	fi
	awk -v part=wiring -v prog="$PROG" -v file="$_wc" -v name="$2" -v kind="$_wk" \
		-v storm="$(bench_get "$1" "$2" storm)" -f "$1/scripts/bench.awk" <"$_wc"
}

wiring_get() {
	[ ! -f "$1/$2/wiring.conf" ] || key "$3" "$1/$2/wiring.conf"
}

# bench_program TOP BENCH PROGRAM: the path of a program BENCH runs, or
# status 1 when there is none: a declaration without package= runs the
# suite's own, built by make into its folder (TOP/BENCH/PROGRAM), any
# other the one PATH finds.
bench_program() {
	if [ -n "$(bench_get "$1" "$2" package)" ]; then
		command -v "$3" 2>/dev/null
	elif [ -f "$1/$2/$3" ] && [ -x "$1/$2/$3" ]; then
		echo "$1/$2/$3"
	else
		return 1
	fi
}

# bench_program_from TOP BENCH: where BENCH's programs come from, for a
# message: its Debian packages, or make.
bench_program_from() {
	_bpf=$(bench_get "$1" "$2" package)
	if [ -n "$_bpf" ]; then
		echo "package $_bpf"
	else
		echo "the suite's own: make programs"
	fi
}

bench_metrics() {
	bench_get "$@" metrics | awk '{ for (i = 1; i <= NF; i++) { split($i, f, ":"); printf "%s%s:%s", (i > 1 ? " " : ""), f[1], f[2] } print "" }'
}

# (a subshell: the declared globs are not expanded)
bench_direction() (
	set -f
	case $3 in
	*:lower | *:higher)
		echo "${3##*:}"
		exit 0
		;;
	esac
	_bd_m=${3%%/*}
	for _bd in $(bench_get "$1" "$2" metrics); do
		case $_bd in "$_bd_m":*)
			_bd=${_bd#*:}
			echo "${_bd%%:*}"
			exit 0
			;;
		esac
	done
	for _bd in $(bench_get "$1" "$2" directions); do
		# shellcheck disable=SC2254 # the declared glob
		case $_bd_m in ${_bd%:*})
			echo "${_bd##*:}"
			exit 0
			;;
		esac
	done
	echo none
)

bench_unit() {
	for _bu in $(bench_get "$1" "$2" metrics); do
		case $_bu in "$3":*)
			echo "${_bu##*:}"
			return 0
			;;
		esac
	done
	case $3 in
	*_ns) echo ns ;;
	*_pct) echo pct ;;
	*) echo count ;;
	esac
}

# A kernel warning, bug, oops, panic, lockup, RCU stall, hung task,
# sanitizer or lockdep report.
# shellcheck disable=SC2034 # used by the scripts that source this
SPLAT='WARNING:|BUG:|Oops|Call Trace|Kernel panic|soft lockup|hard LOCKUP|rcu: INFO|detected stall|blocked for more than|general protection fault|UBSAN:|KASAN:|circular locking|recursive locking'
# The one line SPLAT takes that reports nothing wrong: x86's note at boot
# that idle=poll meets SMT siblings (vm/boot.sh -p -t 2).
# shellcheck disable=SC2034 # used by the scripts that source this
SPLAT_BENIGN='WARNING: polling idle and HT enabled, performance may degrade'

# unexcused: the kernel log on stdin as it is, but for the one backtrace
# that the kernel may dump after a failure the fault injection forced
# (FAULT_INJECTION's line, verbose=1: vmalloc's, percpu's allocation
# failure reports), whose "Call Trace" becomes "Call-Trace (injected)";
# any other report in between (WARNING:, BUG: ...) ends the excuse.
unexcused() {
	awk -v splat="$SPLAT" '
		/FAULT_INJECTION: forcing a failure/ { excuse = 1; print; next }
		excuse && /Call Trace/ { sub(/Call Trace/, "Call-Trace (injected)"); print; next }
		excuse && /<\/TASK>/ { excuse = 0 }
		$0 ~ splat { excuse = 0 }
		{ print }'
}

# splat_lines [GREP_OPTION...]: of the kernel log on stdin, the lines that
# report something wrong (SPLAT, but SPLAT_BENIGN and an injected
# failure's backtrace; -n: with their line numbers); exit 1 when there is
# none.
splat_lines() {
	unexcused | grep -E "$@" -e "$SPLAT" | grep -v -F "$SPLAT_BENIGN"
}

# old_knob OLD NEW VALUE_OF_OLD VALUE_OF_NEW: NEW's value, else OLD's, with
# a warning (once a shell) that OLD is deprecated.
old_knob() {
	if [ -z "$4" ] && [ -n "$3" ]; then
		case " ${_ok_warned:-} " in *" $1 "*) ;; *) warn "$1 is deprecated, set $2 instead" ;; esac
		_ok_warned="${_ok_warned:-} $1"
		_ok=$3
	else
		_ok=$4
	fi
}

# A kernel that enforces module signatures (Secure Boot,
# module.sig_enforce=1) refuses an unsigned or untrusted module with
# EKEYREJECTED (ENOKEY under older rules), one in lockdown with EPERM:
# load_module says what to do instead of insmod's words.
load_module() {
	_lm_dir=$1 _lm=$2
	shift 2
	old_knob INSMOD IPISTORM_INSMOD "${INSMOD:-}" "${IPISTORM_INSMOD:-}"
	_lm_rc=0
	# insmod's stderr is read, its stdout left as it is
	{ _lm_err=$("${_ok:-insmod}" "$_lm_dir/$_lm/$_lm.ko" "$@" 2>&1 >&3) || _lm_rc=$?; } 3>&1
	_lm_why=""
	case $_lm_rc:$_lm_err in
	0:*) ;;
	*"Key was rejected by service"* | *"Required key not available"*)
		_lm_why="Secure Boot or module.sig_enforce=1"
		;;
	*"Operation not permitted"*)
		# Lockdown without enforced signatures refuses an unsigned
		# module with EPERM, as it does a user without the right.
		_lm_lock=$(cat "${IPISTORM_SYSROOT:-}/sys/kernel/security/lockdown" 2>/dev/null) || _lm_lock=""
		case $_lm_lock in
		*"[integrity]"* | *"[confidentiality]"*) _lm_why="kernel lockdown: $_lm_lock" ;;
		esac
		;;
	esac
	if [ -n "$_lm_why" ]; then
		log "$_lm.ko is not signed by a key this kernel trusts ($_lm_why): sign it with make sign KEY=... CERT=..., or install it through DKMS with its enrolled key (docs/packaging.md)"
	elif [ -n "$_lm_err" ]; then
		printf '%s\n' "$_lm_err" >&2
	fi
	return "$_lm_rc"
}

unload_module() {
	_um=${IPISTORM_SYSROOT:-}/proc/modules
	if [ -r "$_um" ] && ! grep -q "^$1 " "$_um"; then
		return 0
	fi
	old_knob RMMOD IPISTORM_RMMOD "${RMMOD:-}" "${IPISTORM_RMMOD:-}"
	"${_ok:-rmmod}" "$1"
}

# lock_take DIR: take the lock DIR, a directory holding the owner's pid
# (mkdir is atomic everywhere; busybox builds may lack flock). A lock whose
# owner is gone (kill -9, a crash) is taken over. Fails while the owner
# runs, with its pid in LOCK_OWNER, or after 10 s of a lock that is neither
# held nor free, with LOCK_OWNER empty.
lock_take() {
	_lk_n=0 _lk_e=0
	while ! mkdir "$1" 2>/dev/null; do
		_lk_n=$((_lk_n + 1))
		if [ "$_lk_n" -gt 10 ]; then
			LOCK_OWNER=""
			return 1
		fi
		if ! lock_stale "$1" "$_lk_n"; then
			# a live owner, or one that has not written its pid yet
			[ -z "$LOCK_OWNER" ] || return 1
			sleep 1
			continue
		fi
		# Stale: removed under a second lock, DIR.break, so that of two
		# takers only one removes it, and only while it is the stale
		# one. DIR.break holds its taker's pid: one left by a taker that
		# was killed is stale in turn, and removed.
		_lk_o=$LOCK_OWNER
		if mkdir "$1.break" 2>/dev/null; then
			echo "$$" >"$1.break/pid"
			_lk_p=""
			read -r _lk_p 2>/dev/null <"$1/pid" || :
			[ "$_lk_p" != "$_lk_o" ] || rm -rf "$1"
			rm -rf "$1.break"
		else
			[ -s "$1.break/pid" ] && _lk_e=0 || _lk_e=$((_lk_e + 1))
			if lock_stale "$1.break" "$_lk_e"; then
				rm -rf "$1.break"
			else
				sleep 1
			fi
		fi
	done
	echo "$$" >"$1/pid"
}

# lock_stale DIR ROUNDS: the lock (or break) DIR is stale: its pid names a
# process that is gone, or it has had no pid for more than 3 ROUNDS of
# 1 s (made, its pid not yet written: a live taker writes it at once, so
# its taker was killed in between). The pid read is in LOCK_OWNER, empty when none.
lock_stale() {
	LOCK_OWNER=""
	read -r LOCK_OWNER 2>/dev/null <"$1/pid" || :
	case $LOCK_OWNER in
	'' | *[!0-9]*)
		LOCK_OWNER=""
		[ "$2" -gt 3 ]
		;;
	*) ! kill -0 "$LOCK_OWNER" 2>/dev/null && [ ! -d "/proc/$LOCK_OWNER" ] ;;
	esac
}

# lock_release DIR: drop the lock DIR if this shell holds it.
lock_release() {
	_lk_p=""
	read -r _lk_p 2>/dev/null <"$1/pid" || :
	[ "$_lk_p" != "$$" ] || rm -rf "$1"
}
