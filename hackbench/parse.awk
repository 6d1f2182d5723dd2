# parse.awk: hackbench's output (rt-tests) into the suite's KEY=value
# result lines (docs/bench.md, kind=program); POSIX awk (busybox), the
# output on stdin:
#   Running in process mode with 4 groups using 40 file descriptors each (== 160 tasks)
#   Each sender will pass 100 messages of 100 bytes
#   Time: 0.578
# Each of a group's fds/2 senders passes its messages to each of its fds/2
# receivers: groups x (fds/2)^2 x messages in all.
/^Running in [a-z]+ mode with [0-9]+ groups using [0-9]+ file descriptors each/ {
	mode = $3
	groups = $6
	fds = $9
}
/^Each sender will pass [0-9]+ messages of [0-9]+ bytes/ {
	loops = $5
	bytes = $8
}
/^Time: [0-9.]+$/ { t = $2 }
END {
	if (mode == "" || loops == "" || t == "") exit
	print "mode=" mode
	print "groups=" groups
	print "tasks=" groups * fds
	print "loops=" loops
	print "datasize=" bytes
	msgs = groups * (fds / 2) * (fds / 2) * loops
	print "total.msgs=" msgs
	# hackbench prints ms: the time in ns, an integer
	printf "runtime_ns=%.0f\n", t * 1e9
	if (t > 0) printf "total.msgs_per_sec=%.0f\n", msgs / t
}
