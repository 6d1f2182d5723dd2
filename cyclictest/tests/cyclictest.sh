# shellcheck shell=sh
# Tests of the cyclictest benchmark (a program, cyclictest/bench.conf),
# sourced by scripts/selftest.sh; battery_run is hackbench's
# (hackbench/tests/hackbench.sh).

# One second of 2 threads woken every ms: each thread's cycles counted,
# its latencies ordered.
# shellcheck disable=SC2154 # vals sets the variables
test_cyclictest_run() {
	battery_run 2 cyclictest threads=2 interval=1000 duration=1
	[ "$(val cyclictest threads)" = 2 ] || fail "threads=$(val cyclictest threads), want 2"
	for t in 0 1; do
		vals cyclictest "thread$t." c=cycles lo=lat_min_ns avg=lat_avg_ns hi=lat_max_ns
		check "$c > 0" "thread $t ran no cycle"
		check "$lo <= $avg && $avg <= $hi" "thread $t: min $lo, avg $avg, max $hi not ordered"
	done
	check "$(val cyclictest total.cycles) > 0" "no cycles"
}
