# parse.awk: tbench's output (dbench 4) into the suite's KEY=value result
# lines (docs/bench.md, kind=program); POSIX awk (busybox), the output on
# stdin: its table of operations (count, mean and max latency in ms),
#    NTCreateX      58128     0.016     3.577
# and its closing line,
#   Throughput 622.614 MB/sec  2 clients  2 procs  max_latency=6.630 ms
# Latencies in ns (integers), the throughput in tbench's MB/s; nothing of
# a run whose throughput is 0 (it ended before its first second was
# measured), and a failure= saying so. Given the parameters (run.sh's -v
# param_NAME=VALUE), a run whose last "execute N sec" line is short of
# duration - 1 s was cut short: failure=.
/ MB\/sec +execute +[0-9]+ sec / {
	for (i = 1; i < NF; i++) if ($i == "execute") last = $(i + 1)
}
/^ Operation +Count +AvgLat +MaxLat$/ { table = 1; next }
table && NF == 4 && $1 ~ /^[A-Za-z]+$/ && $2 ~ /^[0-9]+$/ {
	k = "op." tolower($1)
	print k ".count=" $2
	printf "%s.lat_avg_ns=%.0f\n", k, $3 * 1e6
	printf "%s.lat_max_ns=%.0f\n", k, $4 * 1e6
	ops += $2
	next
}
/^Throughput [0-9.]+ MB\/sec +[0-9]+ clients +[0-9]+ procs +max_latency=[0-9.]+ ms$/ {
	mb = $2
	clients = $4
	procs = $6
	lat = $8
	sub(/^max_latency=/, "", lat)
}
END {
	if (mb != "" && mb + 0 == 0)
		print "failure=tbench measured 0 MB/s: no second of its run was measured (a duration below 2 s, or a server that answered nothing)"
	else if (param_duration != "" && mb != "" && last + 1 < param_duration + 0)
		print "failure=tbench executed " (last + 0) " s of the " param_duration " s asked: cut short"
	# 0 MB/sec: no second of the run was measured (a duration of 1 s)
	if (mb == "" || mb + 0 == 0 || !table) exit
	print "clients=" clients
	print "procs=" procs
	print "total.ops=" ops
	print "total.mb_per_sec=" mb
	printf "total.max_latency_ns=%.0f\n", lat * 1e6
}
