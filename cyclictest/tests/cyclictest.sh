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

# One second of 2 threads with a histogram up to 10 ms: the percentiles
# ordered, between the least and the greatest latency (the histogram and
# the summary lines, two witnesses of the same samples), each thread's
# samples at most the 1000 wake-ups a second at 1 ms makes (at least half:
# the parser's rule).
# shellcheck disable=SC2154 # vals sets the variables
test_cyclictest_hist() {
	battery_run 1 cyclictest threads=2 interval=1000 duration=1 hist=10ms
	[ "$(val cyclictest hist_range_us)" = 10000 ] || fail "hist_range_us=$(val cyclictest hist_range_us)"
	vals cyclictest total. lo=lat_min_ns hi=lat_max_ns over=hist_overflows
	prev=$lo
	for p in 50 75 90 95 99 995 999; do
		has cyclictest "total.lat_p${p}_ns" || {
			check "$over > 0" "no p$p with no sample past the histogram"
			break
		}
		v=$(val cyclictest "total.lat_p${p}_ns")
		check "$v >= $prev" "p$p $v below $prev"
		check "$v <= $hi" "p$p $v above the greatest latency $hi"
		prev=$v
	done
	note "p50 $(val cyclictest total.lat_p50_ns) ns, p99 $(val cyclictest total.lat_p99_ns) ns, max $hi ns, $over samples past 10 ms"
	for t in 0 1; do
		c=$(val cyclictest "thread$t.cycles")
		check "$c >= 500 && $c <= 1001" "thread $t: $c cycles in 1 s at 1 ms"
	done
}
