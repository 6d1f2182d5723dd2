#!/bin/bash
# boot.sh [options] NAME [-- RUNNER ARGS]: boot matrix kernel NAME under QEMU
# with single-threaded TCG (-M: multi-threaded) and the initramfs of mkinitramfs.sh, run the
# suite's runner inside with RUNNER ARGS, print its output (KTAP) and exit
# with its status. The kernel console goes to the log file; a console that
# shows a kernel splat fails the boot whatever the runner said.
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
#               host's load (not with -i)
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
# The kernel hands what follows "--" to init word by word; a word with
# spaces goes in double quotes, which the kernel strips.
cmdline="$cmdline$extra --"
for a in "$@"; do
	case $a in
	*" "*) cmdline="$cmdline \"$a\"" ;;
	*) cmdline="$cmdline $a" ;;
	esac
done

rm -f "$logf" "$out"
rc=0
timeout -k 10 "$tmo" qemu-system-x86_64 "${accel[@]}" -cpu "$cpu" -m "${mem}M" \
	"${smp[@]}" "${numa[@]}" -kernel "$vmlinuz" -initrd "$initrd" \
	-append "$cmdline" -display none -monitor none -no-reboot \
	-serial "file:$logf" -serial "file:$out" </dev/null || rc=$?

# The guest's tty turns \n into \r\n.
[ -f "$out" ] && sed -i 's/\r$//' "$out"
grep -v '^IPISTORM_EXIT=' "$out" 2>/dev/null || true
status=$(sed -n 's/^IPISTORM_EXIT=\([0-9]*\)$/\1/p' "$out" 2>/dev/null | tail -n 1)

if grep -E -n "$SPLAT" "$logf" | grep -v -F "$SPLAT_BENIGN" >&2; then
	log "$name: kernel splat in $logf"
	exit 2
fi
if [ -z "$status" ]; then
	log "$name: the guest did not report (qemu exit $rc); tail of $logf:"
	tail -n 30 "$logf" >&2 || true
	exit 3
fi
exit "$status"
