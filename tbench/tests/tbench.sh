# shellcheck shell=sh
# Tests of the tbench benchmark (a program, tbench/bench.conf), sourced by
# scripts/selftest.sh; battery_run is hackbench's
# (hackbench/tests/hackbench.sh).

# One client for two seconds (tbench measures whole seconds) against tbench_srv over loopback, started and
# stopped by run.sh.
test_tbench_run() {
	battery_run 2 tbench clients=1 duration=2
	[ "$(val tbench clients)" = 1 ] || fail "clients=$(val tbench clients), want 1"
	check "$(val tbench total.mb_per_sec) > 0" "no throughput"
	check "$(val tbench total.ops) > 0" "no operations"
	if grep -q '^tbench_srv$' /proc/[0-9]*/comm 2>/dev/null; then
		fail "tbench_srv left running"
	fi
}
