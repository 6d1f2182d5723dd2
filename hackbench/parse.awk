# parse.awk: hackbench's output (rt-tests) into the suite's KEY=value
# result lines (docs/bench.md, kind=program); POSIX awk (busybox), the
# output on stdin:
#   Running in process mode with 4 groups using 40 file descriptors each (== 160 tasks)
#   Each sender will pass 100 messages of 100 bytes
#   Time: 0.578
# Each of a group's fds/2 senders passes its messages to each of its fds/2
# receivers: groups x (fds/2)^2 x messages in all. Given the parameters
# (run.sh's -v param_NAME=VALUE), mode= and ipc= are the command's, and
# a banner of other groups, loops or mode is a failure=; hackbench's
# "Signal N caught" (it then prints a Time: of the run cut short) is an
# interrupted=; a Time: below 10 ms (it prints ms) is a failure=.
/^Signal [0-9]+ caught/ { sig = $2 }
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
	if (sig != "") print "interrupted=hackbench caught signal " sig ": its Time: is of a run cut short"
	if (mode == "" || loops == "" || t == "") exit
	# the banner's process or threaded
	m = mode == "threaded" ? "threads" : mode
	if (param_mode != "" && m != param_mode)
		print "failure=hackbench ran in " mode " mode, the command asked " param_mode
	else if (param_groups != "" && (groups != param_groups || loops != param_loops))
		print "failure=hackbench ran " groups " groups of " loops " loops, the command asked " param_groups " of " param_loops
	# Time: is in ms (three decimals): below 10 ms its resolution is
	# above 10 % of the time, at 0 there is no rate at all
	else if (t < 0.010)
		print "failure=hackbench's Time: " t " s is below 10 ms, where its 1 ms resolution is above 10 %: give it more loops= or groups="
	print "mode=" (param_mode != "" ? param_mode : m)
	if (param_ipc != "") print "ipc=" param_ipc
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
