# parse.awk: the KEY=value output of a netperf request/response test (-k,
# the selectors of netperf/bench.conf's command) into the suite's result
# lines (docs/bench.md, kind=program); POSIX awk (busybox), the output on
# stdin:
#   THROUGHPUT=50220.13
#   THROUGHPUT_UNITS=Trans/s
#   MEAN_LATENCY=19.87
#   P99_LATENCY=41
# Latencies (netperf's us) in ns, integers; no rate unless its unit is
# Trans/s (a _STREAM test's is not a transaction rate). A rate of 0, or,
# given the parameters (run.sh's -v param_NAME=VALUE), an elapsed time
# short of -l's by more than 5 % (netperf ends early, its figures of
# the part it ran, when signalled) or another test than asked: failure=.
index($0, "=") > 1 {
	eq = index($0, "=")
	v[substr($0, 1, eq - 1)] = substr($0, eq + 1)
}
function num(s) { return s ~ /^[0-9]+(\.[0-9]+)?$/ }
function ns(key, name) {
	if (num(v[key])) printf "total.%s=%.0f\n", name, v[key] * 1000
}
END {
	if (v["THROUGHPUT_UNITS"] == "Trans/s" && num(v["THROUGHPUT"]) && v["THROUGHPUT"] + 0 == 0)
		print "failure=netperf measured 0 transactions a second"
	else if (param_duration != "" && num(v["ELAPSED_TIME"]) && v["ELAPSED_TIME"] + 0 < param_duration * 0.95)
		print "failure=netperf ran " v["ELAPSED_TIME"] " s of the " param_duration " s asked (-l): cut short"
	else if (param_test != "" && v["PROTOCOL"] != "" && v["PROTOCOL"] != substr(param_test, 1, 3))
		print "failure=netperf ran a " v["PROTOCOL"] " test, the command asked " param_test
	if (v["PROTOCOL"] != "") print "protocol=" v["PROTOCOL"]
	if (num(v["REQUEST_SIZE"])) print "request_bytes=" v["REQUEST_SIZE"]
	if (num(v["RESPONSE_SIZE"])) print "response_bytes=" v["RESPONSE_SIZE"]
	if (num(v["ELAPSED_TIME"])) printf "elapsed_ns=%.0f\n", v["ELAPSED_TIME"] * 1e9
	if (v["THROUGHPUT_UNITS"] == "Trans/s" && num(v["THROUGHPUT"]))
		print "total.trans_per_sec=" v["THROUGHPUT"]
	ns("MEAN_LATENCY", "lat_mean_ns")
	ns("STDDEV_LATENCY", "lat_stddev_ns")
	ns("MIN_LATENCY", "lat_min_ns")
	ns("P50_LATENCY", "lat_p50_ns")
	ns("P90_LATENCY", "lat_p90_ns")
	ns("P99_LATENCY", "lat_p99_ns")
	ns("MAX_LATENCY", "lat_max_ns")
}
