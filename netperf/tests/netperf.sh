# shellcheck shell=sh
# Tests of the netperf benchmark (a program, netperf/bench.conf), sourced
# by scripts/selftest.sh; battery_run is hackbench's
# (hackbench/tests/hackbench.sh).

# TCP_RR twice and UDP_RR once, for a second each, against netserver on
# 127.0.0.1, started and stopped by run.sh.
# shellcheck disable=SC2154 # vals sets the variables
test_netperf_rr() {
	for t in TCP_RR:2 UDP_RR:1; do
		battery_run "${t#*:}" netperf test="${t%:*}" duration=1
		t=${t%:*}
		[ "$(val netperf protocol)" = "${t%_RR}" ] || fail "$t: protocol=$(val netperf protocol)"
		vals netperf total. rate=trans_per_sec p50=lat_p50_ns p99=lat_p99_ns
		check "$rate > 0" "$t: no transactions"
		check "$p50 <= $p99" "$t: p50 $p50 above p99 $p99"
	done
	if grep -q '^netserver$' /proc/[0-9]*/comm 2>/dev/null; then
		fail "netserver left running"
	fi
}
