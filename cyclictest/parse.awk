# parse.awk: cyclictest's summary (rt-tests, -q -N: times in ns) into the
# suite's KEY=value result lines (docs/bench.md, kind=program); POSIX awk
# (busybox), the output on stdin, one line per timer thread:
#   T: 0 (11492) P:80 I:1000 C:   2000 Min:  14137 Act:   17203 Avg:   28059 Max:  118425
# The totals: the least Min, the greatest Max, the Avg of the threads
# weighted by their cycles C. A thread twice is not -q's summary (the
# running status lines): failure=, no figure. Given the parameters
# (run.sh's -v param_NAME=VALUE), fewer threads than asked, or a thread
# with fewer than half the cycles duration / interval make, is a run cut
# short: failure= (a late wake-up skips the intervals it slept through,
# so a loaded machine loses some, never half).
/^T: *[0-9]+ / {
	s = $0
	gsub(/:/, ": ", s)
	n = split(s, w, " ")
	split("", f)
	for (i = 1; i < n; i++) if (w[i] ~ /:$/) f[substr(w[i], 1, length(w[i]) - 1)] = w[i + 1]
	t = f["T"]
	if (t !~ /^[0-9]+$/ || f["C"] !~ /^[0-9]+$/ || f["Max"] !~ /^[0-9]+$/) next
	if (t in seen) { twice = t; next }
	seen[t] = 1
	if (param_duration != "" && f["I"] > 0 && f["C"] < param_duration * 1e6 / f["I"] / 2 && short == "")
		short = "thread " t " ran " f["C"] " cycles, of the " int(param_duration * 1e6 / f["I"]) " that " param_duration " s at " f["I"] " us make: cut short"
	p = "thread" t "."
	print p "priority=" f["P"]
	print p "interval_us=" f["I"]
	print p "cycles=" f["C"]
	print p "lat_min_ns=" f["Min"]
	print p "lat_avg_ns=" f["Avg"]
	print p "lat_max_ns=" f["Max"]
	threads++
	cycles += f["C"]
	sum += f["Avg"] * f["C"]
	if (min == "" || f["Min"] + 0 < min) min = f["Min"] + 0
	if (max == "" || f["Max"] + 0 > max) max = f["Max"] + 0
}
END {
	if (twice != "") { print "failure=thread " twice " is in the output twice: not cyclictest -q's summary"; exit }
	if (param_threads != "" && threads && threads != param_threads)
		print "failure=" threads " threads in the output, the command asked " param_threads
	else if (short != "") print "failure=" short
	if (!threads || !cycles) exit
	print "threads=" threads
	print "total.cycles=" cycles
	print "total.lat_min_ns=" min
	printf "total.lat_avg_ns=%.0f\n", sum / cycles
	print "total.lat_max_ns=" max
}
