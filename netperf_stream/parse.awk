# parse.awk: the KEY=value output of a netperf bulk-transfer test (-k,
# the selectors of netperf_stream/bench.conf's command) into the suite's
# result lines (docs/bench.md, kind=program); POSIX awk (busybox), the
# output on stdin:
#   THROUGHPUT_UNITS=10^6bits/s
#   LOCAL_SEND_THROUGHPUT=15983.50
#   REMOTE_RECV_THROUGHPUT=8523.59
#   LOCAL_BYTES_SENT=3996286976
#   REMOTE_BYTES_RECVD=2131116032
# The rates in bytes a second (netperf's 10^6 bits/s over its own elapsed
# time); the loss, the share of the bytes sent that the receiver never
# read (UDP's datagrams dropped or left unread at the end; 0 for TCP),
# from the two counts. No rates in another unit. A run that received
# nothing, more than was sent, or over TCP less, or, given the
# parameters (run.sh's -v param_NAME=VALUE), an elapsed time short of
# -l's by more than 5 % (netperf ends early, its figures of the part it
# ran, when signalled), another test or send size than asked: failure=.
index($0, "=") > 1 {
	eq = index($0, "=")
	v[substr($0, 1, eq - 1)] = substr($0, eq + 1)
}
function num(s) { return s ~ /^[0-9]+(\.[0-9]+)?$/ }
END {
	mbit = v["THROUGHPUT_UNITS"] == "10^6bits/s"
	sent = v["LOCAL_BYTES_SENT"]
	recvd = v["REMOTE_BYTES_RECVD"]
	if (v["THROUGHPUT_UNITS"] != "" && !mbit)
		print "failure=netperf printed its throughput in " v["THROUGHPUT_UNITS"] ", not 10^6bits/s"
	else if (num(recvd) && recvd + 0 == 0)
		print "failure=netperf's receiver read no bytes"
	else if (num(sent) && num(recvd) && recvd + 0 > sent + 0)
		print "failure=netperf's receiver read " recvd " bytes of the " sent " sent"
	else if (v["PROTOCOL"] == "TCP" && num(sent) && num(recvd) && recvd + 0 != sent + 0)
		print "failure=netperf's TCP receiver read " recvd " bytes of the " sent " sent: a stream loses none"
	else if (param_duration != "" && num(v["ELAPSED_TIME"]) && v["ELAPSED_TIME"] + 0 < param_duration * 0.95)
		print "failure=netperf ran " v["ELAPSED_TIME"] " s of the " param_duration " s asked (-l): cut short"
	else if (param_test != "" && v["PROTOCOL"] != "" && v["PROTOCOL"] != substr(param_test, 1, 3))
		print "failure=netperf ran a " v["PROTOCOL"] " test, the command asked " param_test
	else if (param_size != "" && num(v["LOCAL_SEND_SIZE"]) && v["LOCAL_SEND_SIZE"] + 0 != param_size + 0)
		print "failure=netperf sent " v["LOCAL_SEND_SIZE"] " bytes a call, the command asked " param_size
	if (v["PROTOCOL"] != "") print "protocol=" v["PROTOCOL"]
	if (num(v["LOCAL_SEND_SIZE"])) print "send_size_bytes=" v["LOCAL_SEND_SIZE"]
	if (num(v["ELAPSED_TIME"])) printf "elapsed_ns=%.0f\n", v["ELAPSED_TIME"] * 1e9
	if (num(v["LOCAL_SEND_CALLS"])) print "total.send_calls=" v["LOCAL_SEND_CALLS"]
	if (num(v["REMOTE_RECV_CALLS"])) print "total.recv_calls=" v["REMOTE_RECV_CALLS"]
	if (num(sent)) print "total.sent_bytes=" sent
	if (num(recvd)) print "total.recv_bytes=" recvd
	if (mbit && num(v["LOCAL_SEND_THROUGHPUT"]))
		printf "total.send_bytes_per_sec=%.0f\n", v["LOCAL_SEND_THROUGHPUT"] * 125000
	if (mbit && num(v["REMOTE_RECV_THROUGHPUT"]))
		printf "total.recv_bytes_per_sec=%.0f\n", v["REMOTE_RECV_THROUGHPUT"] * 125000
	if (num(sent) && num(recvd) && sent + 0 > 0 && recvd + 0 <= sent + 0)
		printf "total.loss_pct=%.2f\n", (sent - recvd) * 100 / sent
}
