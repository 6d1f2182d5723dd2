# parse.awk: cyclictest's summary (rt-tests, -q) into the suite's KEY=value
# result lines (docs/bench.md, kind=program); POSIX awk (busybox), the
# output on stdin. Without a histogram (-N: times in ns), one line per
# timer thread:
#   T: 0 (11492) P:80 I:1000 C:   2000 Min:  14137 Act:   17203 Avg:   28059 Max:  118425
# The totals: the least Min, the greatest Max, the Avg of the threads
# weighted by their cycles C. A thread twice is not -q's summary (the
# running status lines): failure=, no figure. Given the parameters
# (run.sh's -v param_NAME=VALUE), fewer threads than asked, or a thread
# with fewer than half the cycles duration / interval make, is a run cut
# short: failure= (a late wake-up skips the intervals it slept through,
# so a loaded machine loses some, never half).
# With a histogram (-h US: times in us, 1-us buckets up to US), the
# buckets, a column per thread, then per thread its samples in them
# (Total), beyond them (Histogram Overflows), its Min, Avg and Max:
#   000012 000134	000187
#   # Total: 000001999 000002000
#   # Min Latencies: 00011 00011
# (rt-tests after 2.4 print no empty bucket and no Total line: a
# thread's samples in the buckets are then its column's sum, and the
# range, hist_range_us, is the one param_hist asked.)
# The same figures in ns (to the us), a thread's cycles its samples in
# and beyond the buckets, and the percentiles of all the threads' samples
# (p50 to p999, total.lat_pN_ns): the start of the bucket that holds the
# sample of that rank, the latency at most 999 ns above; a rank beyond
# the buckets has no percentile. The /dev/cpu_dma_latency value it set:
# dma_latency_us=.
/^# \/dev\/cpu_dma_latency set to [0-9]+us$/ {
	dma = $NF
	sub(/us$/, "", dma)
	next
}
# dec: a decimal of leading zeros as a number (busybox awk reads 0-led
# digits as octal).
function dec(d) {
	sub(/^0+/, "", d)
	return d == "" ? 0 : d + 0
}
/^[0-9]+[ \t]/ {
	nb = split($0, w, /[ \t]+/)
	b = dec(w[1])
	for (i = 2; i <= nb; i++) {
		bucket[b] += dec(w[i])
		col[i - 2] += dec(w[i])
	}
	if (b > top) top = b
	hist = 1
	next
}
/^# (Total|Histogram Overflows|Min Latencies|Avg Latencies|Max Latencies): / {
	k = $2 == "Total:" ? "total" : $2 == "Histogram" ? "over" : $2
	o = k == "total" ? 3 : 4
	for (i = o; i <= NF && $i ~ /^[0-9]+$/; i++)
		h[k, i - o] = dec($i)
	if (i - o > ht) ht = i - o
	next
}
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
	if (param_duration != "" && f["I"] + 0 > 0 && f["C"] + 0 < param_duration * 1e6 / f["I"] / 2 && short == "")
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
# hist_threads: the -h summary's threads as T: lines' figures (us in
# ns), or why it cannot be read (nothing printed then).
function hist_threads(t, c) {
	for (t = 0; t < ht; t++) {
		if (!((("over", t) in h) && (("Min", t) in h) && (("Avg", t) in h) && (("Max", t) in h)))
			return "thread " t " lacks a figure of the histogram's summary"
		if ((("total", t) in h) && h["total", t] != col[t] + 0)
			return "thread " t "'s buckets hold " col[t] + 0 " samples, its Total line " h["total", t]
	}
	for (t = 0; t < ht; t++) {
		c = col[t] + h["over", t]
		if (param_duration != "" && param_interval > 0 && c < param_duration * 1e6 / param_interval / 2 && short == "")
			short = "thread " t " ran " c " cycles, of the " int(param_duration * 1e6 / param_interval) " that " param_duration " s at " param_interval " us make: cut short"
		p = "thread" t "."
		print p "cycles=" c
		print p "hist_overflows=" h["over", t]
		print p "lat_min_ns=" h["Min", t] * 1000
		print p "lat_avg_ns=" h["Avg", t] * 1000
		print p "lat_max_ns=" h["Max", t] * 1000
		threads++
		cycles += c
		overflows += h["over", t]
		sum += h["Avg", t] * 1000 * c
		if (min == "" || h["Min", t] * 1000 < min) min = h["Min", t] * 1000
		if (max == "" || h["Max", t] * 1000 > max) max = h["Max", t] * 1000
	}
	return ""
}
# percentiles: the tenths of a percent PS, of the buckets' samples and
# the overflows beyond them (cycles); each rank ceil(p x cycles) walked
# up the buckets, none past them.
function percentiles(ps, n, q, i, b, cum, r) {
	n = split(ps, q, " ")
	b = 0
	cum = bucket[0]
	for (i = 1; i <= n; i++) {
		r = int((q[i] * cycles + 999) / 1000)
		while (cum < r && b < top) cum += bucket[++b]
		if (cum < r) break
		print "total.lat_p" (q[i] % 10 ? q[i] : q[i] / 10) "_ns=" b * 1000
	}
}
END {
	if (twice != "") { print "failure=thread " twice " is in the output twice: not cyclictest -q's summary"; exit }
	if (hist && threads) { print "failure=T: lines and a histogram in one output: not cyclictest -q's summary"; exit }
	if (hist || ht) {
		if (!hist) { print "failure=a histogram's summary without its buckets"; exit }
		why = hist_threads()
		if (why != "") { print "failure=" why; exit }
	}
	if (param_threads != "" && threads && threads != param_threads)
		print "failure=" threads " threads in the output, the command asked " param_threads
	else if (short != "") print "failure=" short
	if (dma != "") print "dma_latency_us=" dma
	if (!threads || !cycles) exit
	print "threads=" threads
	print "total.cycles=" cycles
	print "total.lat_min_ns=" min
	printf "total.lat_avg_ns=%.0f\n", sum / cycles
	print "total.lat_max_ns=" max
	if (!hist) exit
	if (param_hist ~ /^[0-9]+ms$/)
		print "hist_range_us=" substr(param_hist, 1, length(param_hist) - 2) * 1000
	else if (("total", 0) in h)
		print "hist_range_us=" top + 1
	print "total.hist_overflows=" overflows
	percentiles("500 750 900 950 990 995 999")
}
