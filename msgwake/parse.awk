# parse.awk: msgwake's output (format msgwake/1, msgwake/msgwake.c) into
# the suite's KEY=value result lines (docs/bench.md, kind=program); POSIX
# awk (busybox), the output on stdin. msgwake prints its figures as
# KEY=value lines already; they become total.* keys:
#   wake.p99_ns=...        -> total.wake_p99_ns (and min, max, mean, p50 ... p999)
#   req.*, late.*          -> total.req_*, total.late_* (late: -r only)
#   requests=...           -> total.requests, total.requests_per_sec
#   wake.samples=...       -> total.wakeups (requests_unslept: taken by a
#                             worker that had not slept since its last;
#                             wakes_stale: a worker woken by a wake meant
#                             for an earlier wait, no wake-up)
#   requests_dropped=...   -> total.requests_dropped (-r: not given 1 s
#                             past the end)
#   workers_nvcsw=...      -> total.workers_nvcsw, the kernel's count of
#                             the workers' voluntary switches
#   place.same_cpu=...     -> total.place_same_cpu and total.place_same_cpu_pct
# Given the parameters (run.sh's -v param_NAME=VALUE), a run of other
# threads, rate, time or work is a failure=, as are output of another
# format, counts that do not add up, at a rate a schedule it fell behind
# (requests dropped), a run without requests, a percentile
# past the histogram (overflows), and a run shorter than asked; a signal
# caught is an interrupted=.
function num(k) { return (k in v) && v[k] ~ /^[0-9]+(\.[0-9]+)?$/ }
# x K: K's value as a number (the values are strings: compared as they
# stand, "999" > "1000")
function x(k) { return v[k] + 0 }
function fail(why) { if (failure == "") failure = why }
/^[a-z_]+(\.[a-z0-9_]+)?=/ {
	eq = index($0, "=")
	v[substr($0, 1, eq - 1)] = substr($0, eq + 1)
}
END {
	if (!("format" in v)) exit
	if (v["format"] != "msgwake/1") {
		print "failure=msgwake's output is format " v["format"] ", want msgwake/1"
		exit
	}
	intr = x("interrupted") != 0
	if (intr)
		print "interrupted=msgwake caught signal " v["interrupted"] ": its figures are of a run cut short"
	else if (num("elapsed_ns") && num("duration_s") && x("elapsed_ns") < x("duration_s") * 1e9)
		fail("msgwake ran " v["elapsed_ns"] " ns of " v["duration_s"] " s")
	if (param_msg != "" && (x("msg_threads") != param_msg || x("workers") != param_msg * param_workers ||
	    x("rps") != param_rps || x("duration_s") != param_duration || x("work_us") != param_work))
		fail("msgwake ran " v["msg_threads"] " message threads, " v["workers"] " workers, " v["rps"] " requests a second, " \
		    v["duration_s"] " s, " v["work_us"] " us of work; the command asked " param_msg ", " \
		    param_msg * param_workers ", " param_rps ", " param_duration ", " param_work)
	n = x("requests")
	if (!num("requests") || n == 0)
		fail("msgwake made no request")
	else if (x("rps") > 0 && x("requests_scheduled") != n + x("requests_dropped"))
		fail("msgwake gave " n " requests and dropped " x("requests_dropped") " of the " v["requests_scheduled"] " its schedule held")
	else if (x("rps") > 0 && x("requests_dropped") > 0 && !intr)
		fail("msgwake fell behind its schedule: " v["requests_dropped"] " of its " v["requests_scheduled"] \
		    " requests not given 1 s past its end, more requests a second than this machine served")
	else if (x("requests_done") != n || x("wake.samples") + x("requests_unslept") != n || x("req.samples") != n ||
	    (x("rps") > 0 && x("late.samples") != n) ||
	    x("place.same_cpu") + x("place.same_llc") + x("place.other_llc") + x("place.unknown") != n)
		fail("msgwake's counts do not add up: " n " requests, " v["requests_done"] " done, " \
		    v["wake.samples"] " wake-ups and " v["requests_unslept"] " taken unslept, " v["req.samples"] " request times")
	split("wake req late", hs, " ")
	np = split("50 75 90 95 99 995 999", ps, " ")
	for (h = 1; h <= 3; h++) {
		if (!((hs[h] ".samples") in v)) continue
		if (x(hs[h] ".overflows") > 0)
			fail("msgwake's " hs[h] " histogram overflowed " v[hs[h] ".overflows"] " times: its percentiles past it are missing")
		if (x(hs[h] ".samples") == 0) continue
		for (k = 1; k <= np; k++)
			if (num(hs[h] ".p" ps[k] "_ns")) print "total." hs[h] "_p" ps[k] "_ns=" v[hs[h] ".p" ps[k] "_ns"]
		split("min max mean", ms, " ")
		for (k = 1; k <= 3; k++)
			if (num(hs[h] "." ms[k] "_ns")) print "total." hs[h] "_" ms[k] "_ns=" v[hs[h] "." ms[k] "_ns"]
	}
	if (failure != "") print "failure=" failure
	print "msg_threads=" v["msg_threads"]
	print "workers=" v["workers"]
	print "rps=" v["rps"]
	print "work_us=" v["work_us"]
	print "clock_read_ns=" v["clock_read_ns"]
	if (!num("requests") || n == 0) exit
	print "total.requests=" v["requests"]
	if (num("requests_dropped")) print "total.requests_dropped=" v["requests_dropped"]
	print "total.requests_unslept=" v["requests_unslept"]
	print "total.wakeups=" v["wake.samples"]
	print "total.wakes_stale=" v["wakes_stale"]
	if (num("workers_nvcsw")) print "total.workers_nvcsw=" v["workers_nvcsw"]
	if (x("elapsed_ns") > 0) printf "total.requests_per_sec=%.0f\n", n * 1e9 / x("elapsed_ns")
	split("same_cpu same_llc other_llc unknown migrated", pl, " ")
	for (k = 1; k <= 5; k++) {
		print "total.place_" pl[k] "=" v["place." pl[k]]
		printf "total.place_%s_pct=%.1f\n", pl[k], 100 * x("place." pl[k]) / n
	}
}
