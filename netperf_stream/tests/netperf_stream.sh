# shellcheck shell=sh
# Tests of the netperf_stream benchmark (a program,
# netperf_stream/bench.conf), sourced by scripts/selftest.sh; battery_run
# is hackbench's (hackbench/tests/hackbench.sh).

# udp_mib NAME: the kernel's UDP counter NAME (/proc/net/snmp).
udp_mib() {
	awk -v k="$1" '$1 == "Udp:" && !n { for (i = 2; i <= NF; i++) c[i] = $i; n = 1; next }
		$1 == "Udp:" { for (i = 2; i <= NF; i++) if (c[i] == k) print $i }' /proc/net/snmp
}

# TCP_STREAM and UDP_STREAM, once each for a second, against netserver
# on 127.0.0.1, started and stopped by run.sh: the loss the share of the
# bytes sent the receiver did not read. UDP's datagrams are also counted
# by the kernel, a second witness: the datagrams the kernel sent are the
# sends netperf counted and its few end-of-test ones (3 on 6.12; nothing
# else in the guest sends UDP), and those it received (read or not) are
# at least the reads netperf counted.
# shellcheck disable=SC2154 # vals sets the variables
test_netperf_stream() {
	for t in TCP_STREAM UDP_STREAM; do
		out0=$(udp_mib OutDatagrams) in0=$(udp_mib InDatagrams)
		battery_run 1 netperf_stream test="$t" duration=1 size=8192
		out=$(($(udp_mib OutDatagrams) - out0)) in=$(($(udp_mib InDatagrams) - in0))
		[ "$(val netperf_stream protocol)" = "${t%_STREAM}" ] ||
			fail "$t: protocol=$(val netperf_stream protocol)"
		[ "$(val netperf_stream send_size_bytes)" = 8192 ] ||
			fail "$t: send_size_bytes=$(val netperf_stream send_size_bytes)"
		vals netperf_stream total. sent=sent_bytes recvd=recv_bytes loss=loss_pct \
			rx=recv_bytes_per_sec sends=send_calls reads=recv_calls
		check "$loss - ($sent - $recvd) * 100 / $sent < 0.006 && ($sent - $recvd) * 100 / $sent - $loss < 0.006" \
			"$t: loss_pct $loss is not the share of $((sent - recvd)) bytes of $sent"
		note "$t: $rx bytes/s received, loss $loss %; the kernel's UDP datagrams out $out, in $in"
		if [ "$t" = UDP_STREAM ]; then
			check "$out >= $sends && $out <= $sends + 8" "$t: netperf counted $sends sends, the kernel sent $out datagrams"
			check "$in >= $reads && $in <= $out" "$t: the kernel received $in datagrams, netperf read $reads of $out"
		else
			check "$out == 0" "$t: the kernel sent $out UDP datagrams"
		fi
	done
	if grep -q '^netserver$' /proc/[0-9]*/comm 2>/dev/null; then
		fail "netserver left running"
	fi
}
