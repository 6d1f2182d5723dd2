#!/bin/sh
# lib/tests/ipistorm.sh: what the suite's programs (ipistorm, idle_reentry,
# nohz_csd and those lkp/install.sh generates) and the ipistorm-modules
# setup share (POSIX sh, sourced).
#
# The suite's source tree is IPISTORM_SOURCE (default: where lkp install
# unpacked the package, $BENCHMARK_ROOT/ipistorm); ipistorm-modules copies
# it to ipistorm_tree and builds the modules there for the running kernel.

# shellcheck source=/dev/null
. "$LKP_SRC"/lib/debug.sh

# The tree lkp/install.sh was run from, when it is there.
ipistorm_source="${IPISTORM_SOURCE:-@IPISTORM_SOURCE@}"
[ -n "${IPISTORM_SOURCE:-}" ] || [ -f "$ipistorm_source/scripts/run.sh" ] ||
	ipistorm_source="$BENCHMARK_ROOT/ipistorm"
ipistorm_tree="${TMP:-/tmp}/ipistorm-$(uname -r)"

# ipistorm_check_idle IDLE: die unless the kernel runs with idle=IDLE
# (kernel_cmdline is not part of lkp's result path, the idle parameter is).
ipistorm_check_idle()
{
	[ -n "$1" ] || return 0
	case " $(cat /proc/cmdline) " in
	*" idle=$1 "*) ;;
	*) die "the job asks for idle=$1, the kernel runs with: $(cat /proc/cmdline)" ;;
	esac
}

# ipistorm_pair CLASS: "SENDER TARGET", the first pair of that distance
# class scripts/topology.sh finds on this machine; die when it has none.
ipistorm_pair()
{
	_pair=$(sh "$ipistorm_tree/scripts/topology.sh" -c "$1" 2>&1) ||
		die "no $1 pair of CPUs on this machine: $_pair"
	_pair=${_pair##*pair=}
	echo "${_pair%%:*} ${_pair##*:}"
}

# ipistorm_run BENCH RUNSH_OPTION... -- PARAM...: the suite's scripts/run.sh
# with the modules ipistorm-modules built; prints each measured iteration
# as "==> iter-NNN.txt <==" and its result (the record parse reads), keeps
# meta.txt flat in TMP_RESULT_ROOT as BENCH.meta.txt, and dies when run.sh
# fails or a result's status is not complete.
ipistorm_run()
{
	_bench=$1
	shift
	[ -f "$ipistorm_tree/$_bench/$_bench.ko" ] ||
		die "no $ipistorm_tree/$_bench/$_bench.ko: the job must run the ipistorm-modules setup first"
	_out="${TMP:-/tmp}/ipistorm-run.$$"
	rm -rf "$_out"
	echo "sh $ipistorm_tree/scripts/run.sh -o $_out $*"
	_rc=0
	sh "$ipistorm_tree/scripts/run.sh" -o "$_out" "$@" 2>&1 || _rc=$?
	for _f in "$_out"/iter-*.txt; do
		[ -f "$_f" ] || continue
		echo "==> ${_f##*/} <=="
		cat "$_f"
	done
	[ ! -f "$_out/meta.txt" ] || cp "$_out/meta.txt" "$TMP_RESULT_ROOT/$_bench.meta.txt"
	[ "$_rc" = 0 ] || die "scripts/run.sh failed with exit status $_rc"
	for _f in "$_out"/iter-*.txt; do
		[ -f "$_f" ] || die "scripts/run.sh wrote no result"
		grep -qx 'status=complete' "$_f" ||
			die "${_f##*/}: $(grep '^status=' "$_f" || echo 'no status')"
	done
	rm -rf "$_out"
}
