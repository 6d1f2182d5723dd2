#!/bin/bash
# trace.sh: record the idle-path events around a command with trace-cmd,
# as root, and summarize them per event and CPU.
#
#   trace.sh [-o DIR] [-g] -- COMMAND [ARG...]
#     -o DIR  output directory, must not exist (default trace-<date>)
#     -g      add function_graph on schedule_idle alone: its duration per
#             call, callees not traced
#   trace.sh -S REPORT
#           only summarize an existing `trace-cmd report` text
#
# Events, each where the running kernel has it: sched:sched_switch,
# sched:sched_wakeup, sched:sched_wake_idle_without_ipi, ipi:*, csd:* (6.12+),
# power:cpu_idle, irq:softirq_raise/entry/exit,
# irq_vectors:call_function_single_entry/exit.
# Writes DIR/trace.dat, DIR/report.txt and DIR/summary.txt (also printed).
# From the recording on, every exit (normal, error, any signal a shell
# can catch) runs `trace-cmd reset` and leaves tracing_on at 0.
# Exit: 0 ok, 1 trace-cmd missing or failed, the command failed or a
# signal, 2 usage.
# IPISTORM_TRACEFS overrides the tracefs directory (tests).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG [-o DIR] [-g] -- COMMAND [ARG...] | $PROG -S REPORT"


# summarize REPORT: event x CPU counts of a trace-cmd report.
summarize() {
	awk '
	{
		cpu = ""
		for (i = 1; i < NF; i++)
			if ($i ~ /^\[[0-9]+\]$/) { cpu = substr($i, 2, length($i) - 2) + 0; break }
		if (cpu == "") next
		for (i++; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) break
		if (i >= NF) next
		ev = $(i + 1); sub(/:$/, "", ev)
		n[ev, cpu]++; evs[ev] = 1; cpus[cpu] = 1; tot[ev]++; all++
		if (maxcpu == "" || cpu > maxcpu) maxcpu = cpu
	}
	END {
		if (!all) { print "trace.sh: no events in the report" >"/dev/stderr"; exit 1 }
		ne = 0
		for (e in evs) name[++ne] = e
		for (i = 2; i <= ne; i++)
			for (j = i; j > 1 && name[j - 1] > name[j]; j--) { x = name[j]; name[j] = name[j - 1]; name[j - 1] = x }
		printf "%-36s", "event"
		for (c = 0; c <= maxcpu; c++) if (c in cpus) printf " %8s", "cpu" c
		printf " %9s\n", "total"
		for (i = 1; i <= ne; i++) {
			printf "%-36s", name[i]
			for (c = 0; c <= maxcpu; c++) if (c in cpus) printf " %8d", n[name[i], c]
			printf " %9d\n", tot[name[i]]
		}
	}' "$1"
}

out="" graph=0 report=""
while getopts o:gS:h opt; do
	case $opt in
	o) out=$OPTARG ;;
	g) graph=1 ;;
	S) report=$OPTARG ;;
	*) usage_opt "$opt" ;;
	esac
done
shift $((OPTIND - 1))

if [[ -n $report ]]; then
	(($# == 0)) || usage_error
	[[ -r $report ]] || die "cannot read $report"
	summarize "$report"
	exit
fi
(($# > 0)) || usage_error "no command to trace"
command -v trace-cmd >/dev/null ||
	die "trace-cmd not found: install it (Debian package trace-cmd)"

tracefs=${IPISTORM_TRACEFS:-}
if [[ -z $tracefs ]]; then
	for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[[ -d $t/events ]] && { tracefs=$t; break; }
	done
fi
[[ -n $tracefs && -d $tracefs/events ]] ||
	die "no tracefs events (mount tracefs on /sys/kernel/tracing; root?)"

events=()
for e in sched/sched_switch sched/sched_wakeup sched/sched_wake_idle_without_ipi \
	ipi csd power/cpu_idle irq/softirq_raise irq/softirq_entry irq/softirq_exit \
	irq_vectors/call_function_single_entry irq_vectors/call_function_single_exit; do
	if [[ -d $tracefs/events/$e ]]; then
		[[ $e == */* ]] && events+=(-e "${e/\//:}") || events+=(-e "$e")
	else
		echo "trace.sh: this kernel has no ${e/\//:} event, skipped" >&2
	fi
done
((${#events[@]} > 0)) || die "none of the events exists in $tracefs/events"
# Only schedule_idle() is patched (-l): a graph of all its callees would
# patch every function of the kernel and weigh on every call measured.
((graph == 0)) || events+=(-p function_graph -g schedule_idle -l schedule_idle)

out=${out:-trace-$(date +%Y%m%d-%H%M%S)}
[[ ! -e $out ]] || die "$out exists: refusing to overwrite it"
mkdir -p "$(dirname "$out")"
mkdir "$out"

# tracing_off: trace-cmd reset (events, tracers, filters, buffers) and
# tracing_on at 0, whatever happened; signals wait until it is done.
tracing_off() {
	trap '' INT TERM HUP PIPE QUIT USR1 USR2 ALRM
	trace-cmd reset >/dev/null 2>&1 || echo "trace.sh: trace-cmd reset failed" >&2
	if [[ -e $tracefs/tracing_on ]]; then
		echo 0 2>/dev/null >"$tracefs/tracing_on" ||
			echo "trace.sh: cannot write 0 to $tracefs/tracing_on" >&2
	fi
}
interrupted() {
	echo "trace.sh: interrupted by SIG$1" >&2
	exit 1
}
trap 'rc=$?; tracing_off; exit "$rc"' EXIT
trap 'interrupted INT' INT
trap 'interrupted TERM' TERM
trap 'interrupted HUP' HUP
trap 'interrupted QUIT' QUIT
trap 'interrupted USR1' USR1
trap 'interrupted USR2' USR2
trap 'interrupted ALRM' ALRM

rc=0
trace-cmd record -o "$out/trace.dat" "${events[@]}" "$@" || rc=$?
((rc == 0)) || echo "trace.sh: trace-cmd record (or the command) failed with status $rc" >&2
[[ -s $out/trace.dat ]] || die "no $out/trace.dat written"
trace-cmd report -i "$out/trace.dat" >"$out/report.txt" 2>"$out/report.err" ||
	die "trace-cmd report failed, see $out/report.err"
summarize "$out/report.txt" | tee "$out/summary.txt"
((rc == 0)) || exit 1
