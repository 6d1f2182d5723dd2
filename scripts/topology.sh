#!/bin/sh
# topology.sh: CPU pairs of each distance class, from sysfs, for ipistorm's
# pairs= parameter (busybox sh).
#
#   topology.sh [-a] [-n] [-r ROOT] [-c CLASS]
#     -a       up to 8 pairs of a class, comma-separated, no CPU in two
#              pairs (ipistorm refuses a repeated sender, and a sender that
#              is another pair's target measures both at once)
#     -n       leave CPU0 out (the housekeeping CPU: timers, RCU, IRQs)
#     -c CLASS print only that class's pair(s) as S:T, e.g.
#              run.sh ipistorm pairs=$(topology.sh -c cross-socket) numipi=100000
#     -r ROOT  read ROOT/sys instead of /sys (fake trees in tests)
#
# Classes (S < T, online CPUs, lowest first), each pair in exactly one:
#   smt           SMT siblings (same core)
#   llc           same last-level cache (lib.sh's llc_list), different core
#   cross-llc     same NUMA node, different LLC (CCX to CCX on EPYC;
#                 -c node is the old name)
#   cross-node    same die, different NUMA node (NPS2/4, SNC)
#   cross-die     same package, different die
#   cross-socket  different package (physical_package_id)
# Output: `class=NAME pair=S:T` (pair=none when there is none); with -a
# `class=NAME pairs=S:T,S:T,...`. Exit: 0, 1 when -c's class has no pair,
# 2 usage.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG [-a] [-n] [-r ROOT] [-c smt|llc|cross-llc|cross-node|cross-die|cross-socket]"


all=0 root="" class="" nocpu0=0
while getopts anc:r:h opt; do
	case $opt in
	a) all=1 ;;
	n) nocpu0=1 ;;
	c) class=$OPTARG ;;
	r) root=$OPTARG ;;
	*) usage_opt "$opt" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage_error "unexpected argument '$1'"
case $class in
node) class=cross-llc ;;
esac
case $class in
'' | smt | llc | cross-llc | cross-node | cross-die | cross-socket) ;;
*) usage_error "unknown class '$class'" ;;
esac

CPU=$root/sys/devices/system/cpu
NODE=$root/sys/devices/system/node
[ -d "$CPU" ] || die "no $CPU"

# One line per online CPU: cpu package core llc, then node lines.
{
	for d in "$CPU"/cpu[0-9]*; do
		[ -d "$d/topology" ] || continue
		[ "$(first_line "$d/online")" != 0 ] || continue
		c=${d##*/cpu}
		pkg=$(first_line "$d/topology/physical_package_id")
		die=$(first_line "$d/topology/die_id")
		core=$(first_line "$d/topology/core_cpus_list")
		[ -n "$core" ] || core=$(first_line "$d/topology/thread_siblings_list")
		llc=$(llc_list "$d")
		[ "$nocpu0" = 0 ] || [ "$c" != 0 ] || continue
		echo "cpu $c ${pkg:-0} ${pkg:-0}.${die:-0} ${core:-$c} ${llc:-$c}"
	done
	for d in "$NODE"/node[0-9]*; do
		[ -d "$d" ] && echo "node ${d##*/node} $(first_line "$d/cpulist")"
	done
	:
} | awk -v all="$all" -v want="$class" "$(cat "$(dirname "$0")/cpulist.awk")"'
$1 == "cpu" { ncpu++; id[ncpu] = $2 + 0; pkg[$2 + 0] = $3; die[$2 + 0] = $4; core[$2 + 0] = $5; llc[$2 + 0] = $6 }
$1 == "node" { split("", cs); cpulist_expand($3, cs); for (c in cs) node[c] = $2 }
function classof(s, t) {
	if (pkg[s] != pkg[t]) return "cross-socket"
	if (die[s] != die[t]) return "cross-die"
	if (node[s] != node[t]) return "cross-node"
	if (core[s] == core[t]) return "smt"
	if (llc[s] == llc[t]) return "llc"
	return "cross-llc"
}
# add(): the first pair of a class, and with -a up to 8 pairs whose CPUs
# are all distinct (greedy, lowest first).
function add(k, s, t) {
	if (first[k] == "") first[k] = s ":" t
	if (cnt[k] >= 8 || used[k, s] || used[k, t]) return
	used[k, s] = used[k, t] = 1
	pairs[k] = pairs[k] (cnt[k] ? "," : "") s ":" t
	cnt[k]++
}
END {
	# sort the CPUs numerically (insertion sort, no asort in busybox awk)
	for (i = 2; i <= ncpu; i++)
		for (j = i; j > 1 && id[j - 1] > id[j]; j--) { x = id[j]; id[j] = id[j - 1]; id[j - 1] = x }
	for (i = 1; i <= ncpu; i++) {
		s = id[i]
		if (!(s in node)) node[s] = 0
	}
	for (i = 1; i <= ncpu; i++)
		for (j = i + 1; j <= ncpu; j++) {
			s = id[i]; t = id[j]
			add(classof(s, t), s, t)
		}
	n = split("smt llc cross-llc cross-node cross-die cross-socket", names, " ")
	for (i = 1; i <= n; i++) {
		k = names[i]
		p = all ? pairs[k] : first[k]
		if (want != "") {
			if (k != want) continue
			if (p == "") exit 1
			print p
		} else
			print "class=" k " " (all ? "pairs=" : "pair=") (p == "" ? "none" : p)
	}
}' || { echo "topology.sh: no $class pair on this machine" >&2; exit 1; }
