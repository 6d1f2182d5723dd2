#!/bin/bash
# boot.sh [options] NAME [-- RUNNER ARGS]: boot matrix kernel NAME under QEMU
# with single-threaded TCG (-M: multi-threaded) and the initramfs of mkinitramfs.sh, run the
# suite's runner inside with RUNNER ARGS, print its output (KTAP) and exit
# with its status. The kernel console goes to the log file; a console that
# shows a kernel splat fails the boot whatever the runner said, but for
# what boot.sh tells from the suite's doing, said in a "# boot N: ..."
# line of the output (boot N's console log is the log file with .N before
# its .log):
#   - a splat before the suite started (vm/init's SUITE_START line), or a
#     boot the host starved (only lockup and stall reports, in no
#     module's code; or, without -i, a guest the timeout killed before
#     its clock had run half of it) is retried once, from the test it cut
#     short;
#   - after a splat in a test, which the runner fails and then stops, a
#     fresh boot runs the tests after it; the results are numbered on.
#
#   -c N        vCPUs (default 4)
#   -s N        sockets, one NUMA node each (default 1)
#   -t N        threads per core (default 1)
#   -m MB       memory (default 1024)
#   -p          idle=poll: idle CPUs poll with TIF_POLLING_NRFLAG set
#   -i          instruction counting (-icount shift=0): guest time follows
#               the instructions executed; boots with maxcpus=1 and the
#               guest onlines the other CPUs (SMP bring-up hangs otherwise)
#   -M          multi-threaded TCG (-accel tcg,thread=multi): the vCPUs run
#               in parallel, one host thread each, so a sender's next call
#               can race its target's idle re-entry; times then follow the
#               host's load (not with -i); the guest's tests see
#               IPISTORM_MTTCG=1
#   -a ARGS     more kernel command-line arguments
#   -x PROPS    more -cpu properties, e.g. vendor=GenuineIntel
#   -T SEC      hard timeout (default 900)
#   -l FILE     console log (default build/NAME/console-<pid>.log)
#
# Exit: the runner's status (0 pass, 1 fail, 4 skip), 2 for a splat,
# 3 when the guest never reported (hang, timeout or crash).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG [-c N] [-s N] [-t N] [-m MB] [-p] [-i] [-M] [-a ARGS] [-x PROPS] [-T SEC] [-l FILE] NAME [-- RUNNER ARGS]"

cpus=4 sockets=1 threads=1 mem=1024 poll=0 icount=0 mttcg=0 extra="" tmo=900 logf=""
cpu_extra=""
while getopts c:s:t:m:piMa:x:T:l:h opt; do
	case $opt in
	c) cpus=$OPTARG ;;
	s) sockets=$OPTARG ;;
	t) threads=$OPTARG ;;
	m) mem=$OPTARG ;;
	p) poll=1 ;;
	i) icount=1 ;;
	M) mttcg=1 ;;
	a) extra="$extra $OPTARG" ;;
	x) cpu_extra="$cpu_extra,$OPTARG" ;;
	T) tmo=$OPTARG ;;
	l) logf=$OPTARG ;;
	*) usage_opt "$opt" ;;
	esac
done
shift $((OPTIND - 1))
[ "$icount" = 0 ] || [ "$mttcg" = 0 ] ||
	usage_error "-i and -M: QEMU counts instructions only with single-threaded TCG"
kernel_name "$@"
shift
[ "${1:-}" = -- ] && shift

fetch_kernel "$name"
vmlinuz=$(kernel_key vmlinuz)
initrd=$BUILD/$name/initramfs.gz
[ -f "$initrd" ] || die "no $initrd: run mkinitramfs.sh $name"
[ -n "$logf" ] || logf=$BUILD/$name/console-$$.log
out=${logf%.log}.out

per_socket=$((cpus / sockets))
cores=$((per_socket / threads))
[ $((cores * threads * sockets)) -eq "$cpus" ] ||
	die "-c $cpus does not split into $sockets sockets of $threads-thread cores"
smp=(-smp "$cpus,sockets=$sockets,cores=$cores,threads=$threads")
numa=()
if [ "$sockets" -gt 1 ]; then
	for ((n = 0; n < sockets; n++)); do
		numa+=(-object "memory-backend-ram,id=m$n,size=$((mem / sockets))M"
			-numa "node,nodeid=$n,memdev=m$n,cpus=$((n * per_socket))-$(((n + 1) * per_socket - 1))")
	done
fi

accel=(-accel "tcg,thread=single")
[ "$mttcg" = 0 ] || accel=(-accel "tcg,thread=multi")
# No CMPXCHG16B: QEMU 7.2's TCG computes the flags of cmpxchg16b from a
# stale condition-code state, so an interrupt taken right after one (the
# SLUB fast path runs it on every allocation) can push garbage EFLAGS; seen
# as a double fault in kmem_cache_alloc under -icount. Without CX16 the
# kernel takes its generic paths.
cpu=max,-cx16$cpu_extra
cmdline="console=ttyS0 panic=-1 tsc=reliable watchdog_thresh=2"
cmdline="$cmdline rcupdate.rcu_cpu_stall_timeout=5"
if [ "$icount" = 1 ]; then
	accel+=(-icount shift=0)
	# The guest's tests that time under instruction counting ask for it.
	cmdline="$cmdline maxcpus=1 IPISTORM_ICOUNT=1"
fi
[ "$poll" = 1 ] && cmdline="$cmdline idle=poll"
# The guest's tests of races ask whether the vCPUs run in parallel.
[ "$mttcg" = 0 ] || cmdline="$cmdline IPISTORM_MTTCG=1"
cmdline="$cmdline$extra --"

# The runner's options (selftest.sh's leading -k, -b) and tests; "run"
# (run.sh in the guest) has no tests to restart from.
opts=() tests=()
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do opts+=("$1"); shift; done
tests=("$@")

# boot LOG OUT RUNNER-ARGS...: one boot; its runner's output in OUT (\r
# removed), the console in LOG; sets rc (QEMU's, 124 on the timeout),
# status (the runner's exit, empty when the guest never reported), kind
# (splat_kind) and left (the runner stopped after a splat in a test:
# "stop" and the tests it did not run; else empty).
boot() {
	local log=$1 o=$2 a line=$cmdline
	shift 2
	# The kernel hands what follows "--" to init word by word; a word
	# with spaces goes in double quotes, which the kernel strips.
	for a in "$@"; do
		case $a in
		*" "*) line="$line \"$a\"" ;;
		*) line="$line $a" ;;
		esac
	done
	rm -f "$log" "$o"
	rc=0
	timeout -k 10 "$tmo" qemu-system-x86_64 "${accel[@]}" -cpu "$cpu" -m "${mem}M" \
		"${smp[@]}" "${numa[@]}" -kernel "$vmlinuz" -initrd "$initrd" \
		-append "$line" -display none -monitor none -no-reboot \
		-serial "file:$log" -serial "file:$o" </dev/null || rc=$?
	# The guest's tty turns \n into \r\n.
	[ -f "$o" ] && sed -i 's/\r$//' "$o"
	touch "$log" "$o"
	status=$(sed -n 's/^IPISTORM_EXIT=\([0-9]*\)$/\1/p' "$o" | tail -n 1)
	kind=$(splat_kind "$log")
	left=$(sed -n 's/^# kernel splat in the test above; not run, for a fresh boot:/stop/p' "$o" | tail -n 1)
}

# emit OUT FROM MORE: a boot's runner output for the report: results
# renumbered after the $shown before it; from its result FROM on (0:
# none) commented out, for the boot that redoes them; its KTAP header
# only when none was shown, its Totals only when it is the one boot
# (MORE 0, no boot before); $note, why it was booted, after the header.
# Adds its results kept to $shown.
shown=0 header=0 note=""
emit() {
	local k
	awk -v off="$shown" -v from="$2" -v head="$header" -v totals=$((shown + $3 == 0 && n == 1)) \
		-v note="$note" '
		NR == FNR { if (from && /^(not )?ok [0-9]+ / && $(2 + /^not/) + 0 == from - 1) cut = FNR; next }
		FNR == 1 && (head || !/^KTAP version /) && note != "" { print note; note = "" }
		/^IPISTORM_EXIT=/ { next }
		from && FNR > cut { print "# " $0; next }
		/^KTAP version / || /^1\.\.[0-9]+$/ {
			if (!head) print
			if (!head && /^1/ && note != "") { print note; note = "" }
			next
		}
		/^# Totals: / { if (totals) print; next }
		/^(not )?ok [0-9]+ / && off { i = 1 + /^not/; $(i + 1) += off }
		{ print }
		END { if (note != "") print note }' "$1" "$1"
	note=""
	k=$(grep -c -E '^(not )?ok [0-9]+ ' "$1" || true)
	[ "$2" = 0 ] || k=$(($2 - 1))
	[ "$2" = 1 ] || header=1
	shown=$((shown + k))
}

# splat LOG: the splat's lines on stderr.
splat() {
	splat_lines -n <"$1" >&2 || true
}

# Boot until the runner's tests are done: a splat before the suite
# started, or a boot the host starved (reports of lockups and stalls in no
# module's code; a guest killed by the timeout when its clock had not run
# half of it), is retried once, from the test it cut short; after a splat
# the runner put down to a test, a fresh boot runs the tests after it.
n=0 retried=0 report=$(mktemp)
trap 'rm -f "$report"' EXIT
args=("${opts[@]}" "${tests[@]}")
while :; do
	n=$((n + 1))
	log=$logf o=$out
	[ "$n" = 1 ] || log=${logf%.log}.$n.log o=${out%.out}.$n.out
	boot "$log" "$o" "${args[@]}"
	why=""
	# Real-time TCG: the guest's clock stands still while the host does
	# not run QEMU. (Under instruction counting it follows the
	# instructions, slower than the host's anyway: no sign there.)
	if [ "$kind" = none ] && [ -z "$status" ] && [ "$rc" = 124 ] && [ "$icount" = 0 ] &&
		[ $(($(guest_seconds "$log") * 2)) -lt "$tmo" ]; then
		kind=clock
		why="the host starved the guest (its clock at $(guest_seconds "$log") s of the $tmo s timeout)"
	fi
	case $kind in none | clock) ;; *) splat "$log" ;; esac
	# the test the runner stopped after a splat in, and the rest
	failed=$({ grep -E '^(not )?ok [0-9]+ ' "$o" || true; } | tail -n 1 |
		sed 's/^\(not \)\{0,1\}ok [0-9]* //; s/ .*//')
	case $retried$kind$left in
	0early*)
		why="a kernel splat before the suite started"
		;&
	0clock*)
		emit "$o" 1 1 >>"$report"
		note="# boot $((n + 1)): retried: $why (console $log)"
		retried=1
		continue
		;;
	0hoststop*)
		emit "$o" "$(grep -c -E '^(not )?ok [0-9]+ ' "$o")" 1 >>"$report"
		note="# boot $((n + 1)): retried from $failed: the host starved the guest (lockups or stalls outside the suite's code; console $log)"
		# the same selection from the test on (selftest.sh -f): a list
		# of the tests left could pass the kernel's 32 init arguments
		args=("${opts[@]}" -f "$failed" "${tests[@]}")
		retried=1
		continue
		;;
	0host*)
		emit "$o" 1 1 >>"$report"
		note="# boot $((n + 1)): retried: the host starved the guest (lockups or stalls outside the suite's code; console $log)"
		retried=1
		continue
		;;
	*early*) ;;
	*clock*) kind=none ;;
	*stop?*)
		emit "$o" 0 1 >>"$report"
		note="# boot $((n + 1)): restarted after the kernel splat in $failed, for the tests after it (console $log)"
		args=("${opts[@]}" -a "$failed" "${tests[@]}")
		continue
		;;
	*stop) kind=none ;;
	esac
	emit "$o" 0 0 >>"$report"
	break
done
cat "$report"
if [ "$n" -gt 1 ]; then
	awk '/^ok .*# SKIP/ { s++; next } /^ok / { p++ } /^not ok / { f++ }
		END { printf "# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n", p, f, s }' "$report"
fi

if [ "$kind" != none ]; then
	log "$name: kernel splat in $log"
	exit 2
fi
if [ -z "$status" ]; then
	log "$name: the guest did not report (qemu exit $rc); tail of $log:"
	tail -n 30 "$log" >&2 || true
	exit 3
fi
if [ "$n" -gt 1 ]; then
	# the runner's status, over the boots
	grep -q '^not ok ' "$report" && exit 1
	grep -v '# SKIP' "$report" | grep -q '^ok ' && exit 0
	exit 4
fi
exit "$status"
