#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# The companion battery: the benchmarks that are programs (kind=program,
# docs/bench.md) and run.sh running them. Each parser reads the real
# output of its program, recorded on a Debian 12 host (2 vCPUs) into
# BENCH/tests/fixtures/ by the command its declaration runs:
#   hackbench/tests/fixtures/process.txt  hackbench -g 4 -f 20 -l 100 -s 100 --process
#   hackbench/tests/fixtures/threads.txt  hackbench -g 2 -f 10 -l 100 -s 100 --threads
#   cyclictest/tests/fixtures/threads2.txt  cyclictest -q -N -m -t 2 -i 1000 -d 0 -D 2 -p 80
#   cyclictest/tests/fixtures/distance500.txt  cyclictest -q -N -m -t 2 -i 1000 -d 500 -D 1 -p 80
#   cyclictest/tests/fixtures/hist1ms.txt  cyclictest -q -h1000 -m -t 2 -i 1000 -d 0 -D 2 -p 80
#   cyclictest/tests/fixtures/hist30us.txt  cyclictest -q -h30 -m -t 2 -i 1000 -d 0 -D 1 -p 80
#   tbench/tests/fixtures/clients2.txt    tbench -t 3 2 127.0.0.1 (tbench_srv beside it)
#   netperf/tests/fixtures/TCP_RR.txt, UDP_RR.txt  netperf ... -t TCP_RR -l 2 -- -r 1,1 -k ...
#     (netserver -D -L 127.0.0.1 beside it; the selectors of netperf/bench.conf)
#   netperf_stream/tests/fixtures/TCP_STREAM.txt, UDP_STREAM.txt
#     netperf ... -t TCP_STREAM -l 2 -- -m 16384 -k ... (netserver beside it;
#     the selectors of netperf_stream/bench.conf)
# run.sh is run against a fake machine (fixtures/sysfs-2s16 as /sys and
# /proc) with stand-ins of the programs that print those outputs, and once
# with the real hackbench when it is installed.

setup() {
	# shellcheck source=fixtures/sysfs.bash
	. "$BATS_TEST_DIRNAME/fixtures/sysfs.bash"
	sysfs_fixtures
	S=$BATS_TEST_DIRNAME/..
	TOP=$S/..
	T=$BATS_TEST_TMPDIR
	R=$T/root
	# shellcheck source=../lib.sh
	. "$S/lib.sh"
	cp -r "$SYSFS/sysfs-2s16" "$R"
	mkdir -p "$T/bin"
	export R IPISTORM_SYSROOT=$R
}

# parse BENCH FIXTURE [AWK]: BENCH's parser on its recorded output.
parse() {
	${3:-awk} -f "$TOP/$1/parse.awk" <"$TOP/$1/tests/fixtures/$2"
}

# fake PROGRAM BENCH FIXTURE: a stand-in PROGRAM in $T/bin that logs its
# arguments to $R/calls and prints the recorded output.
fake() {
	# shellcheck disable=SC2016 # expanded by the stand-in
	printf '#!/bin/sh\necho "%s $*" >>"$R/calls"\ncat "%s"\n' "$1" "$TOP/$2/tests/fixtures/$3" >"$T/bin/$1"
	chmod +x "$T/bin/$1"
}

# fake_server PROGRAM PORT: a stand-in server that listens on PORT in the
# fake /proc/net/tcp while it runs, its pid in $R/server.pid.
fake_server() {
	cat >"$T/bin/$1" <<-SH
	#!/bin/sh
	echo "$1 \$*" >>"\$R/calls"
	echo \$\$ >"\$R/server.pid"
	mkdir -p "\$R/proc/net"
	printf '  sl  local_address rem_address   st\n   0: 0100007F:%04X 00000000:0000 0A\n' $2 >"\$R/proc/net/tcp"
	trap 'rm -f "\$R/proc/net/tcp"; exit 0' TERM
	# 30 s at most: one left running ends, its port still listed
	n=0
	while [ \$n -lt 300 ]; do sleep 0.1; n=\$((n + 1)); done
	SH
	chmod +x "$T/bin/$1"
}

@test "battery: the program benchmarks are declared, apart from the module folders" {
	[ "$(suite_benches "$TOP" | tr '\n' ' ')" = "cyclictest hackbench idle_reentry ipistorm msgwake netperf netperf_stream nohz_csd placement tbench wakeup " ]
	[ "$(suite_kmods "$TOP" | tr '\n' ' ')" = "idle_reentry ipistorm nohz_csd placement wakeup " ]
	for b in cyclictest hackbench msgwake netperf netperf_stream tbench; do
		bench_check "$TOP" "$b"
		[ "$(bench_kind "$TOP" "$b")" = program ]
		[ -f "$TOP/$b/parse.awk" ]
	done
	# the top Kbuild builds the module folders alone
	# shellcheck disable=SC2016 # make's $(...)
	printf 'include %s\n$(info $(obj-m))\nall: ;\n' "$TOP/Kbuild" >"$T/kbuild.mk"
	run make -s -f "$T/kbuild.mk" srctree=/nonexistent
	[ "$output" = "idle_reentry/ ipistorm/ nohz_csd/ placement/ wakeup/" ]
}

@test "battery: every parser gives every declared metric from its real output, under busybox awk too" {
	local b f n=0 m
	for b in $(suite_benches "$TOP"); do
		[ "$(bench_kind "$TOP" "$b")" = program ] || continue
		for f in "$TOP/$b"/tests/fixtures/*.txt; do
			f=${f##*/}
			parse "$b" "$f" >"$T/gnu"
			if command -v busybox >/dev/null; then
				parse "$b" "$f" "busybox awk" >"$T/bb"
				diff -u "$T/gnu" "$T/bb"
			fi
			for m in $(bench_metrics "$TOP" "$b"); do
				grep -q "^${m%:*}=[0-9.]*$" "$T/gnu" || { echo "$b $f: no ${m%:*}"; false; }
			done
			n=$((n + 1))
		done
	done
	[ "$n" -eq 13 ]
}

@test "battery: hackbench's time in ns and its messages per second" {
	run parse hackbench process.txt
	[[ $output == *$'\nruntime_ns=679000000\n'* ]]
	# 4 groups of 20 senders passing 100 messages to each of 20 receivers
	[[ $output == *$'\ntotal.msgs=160000\n'* ]]
	[[ $output == *$'\ntotal.msgs_per_sec=235641'* ]]
	[[ $output == *$'\ntasks=160\n'* ]]
	run parse hackbench threads.txt
	[[ $output == mode=threads$'\n'* ]]
	[[ $output == *$'\ntotal.msgs=20000\n'* ]]
	[[ $output == *$'\nruntime_ns=46000000\n'* ]]
	# no Time: line (hackbench killed), no time
	run awk -f "$TOP/hackbench/parse.awk" < <(head -n 2 "$TOP/hackbench/tests/fixtures/process.txt")
	[ -z "$output" ]
}

@test "battery: cyclictest's threads and their totals" {
	run parse cyclictest threads2.txt
	[[ $output == *$'\nthread1.lat_max_ns=132165\n'* ]]
	[[ $output == thread0.priority=80$'\n'* ]]
	[[ $output == *$'\ntotal.cycles=4000\n'* ]]
	[[ $output == *$'\ntotal.lat_min_ns=12059\n'* ]]
	# (28059 x 2000 + 28323 x 2000) / 4000
	[[ $output == *$'\ntotal.lat_avg_ns=28191\n'* ]]
	[[ $output == *$'\ntotal.lat_max_ns=132165' ]]
	# threads of other intervals, other cycle counts; a Max: of 8 digits
	# joined to its colon
	run parse cyclictest distance500.txt
	[[ $output == *$'\nthread0.lat_max_ns=27874004\n'* ]]
	[[ $output == *$'\nthread1.interval_us=1500\n'* ]]
	[[ $output == *$'\ntotal.cycles=1620\n'* ]]
	# (48513 x 972 + 75829 x 648) / 1620
	[[ $output == *$'\ntotal.lat_avg_ns=59439\n'* ]]
}

@test "battery: cyclictest's histogram: its percentiles, none past its buckets, its totals checked" {
	run parse cyclictest hist1ms.txt
	[ "$status" -eq 0 ]
	[[ $output != *failure=* ]]
	# a thread's cycles are its samples in the buckets and beyond them
	[[ $output == thread0.cycles=1999$'\n'thread0.hist_overflows=1$'\n'* ]]
	[[ $output == *$'\nthread0.lat_max_ns=1168000\n'* ]]
	[[ $output == *$'\ndma_latency_us=0\n'* ]]
	# (35 x 1999 + 28 x 2000) / 3999 us
	[[ $output == *$'\ntotal.lat_avg_ns=31499\n'* ]]
	# the ranks ceil(p x 3999) of the summed columns, found by hand: the
	# last one's bucket holds a single sample, past 93 us
	[[ $output == *$'\nhist_range_us=1000\ntotal.hist_overflows=1\ntotal.lat_p50_ns=30000\ntotal.lat_p75_ns=38000\ntotal.lat_p90_ns=43000\ntotal.lat_p95_ns=50000\ntotal.lat_p99_ns=72000\ntotal.lat_p995_ns=93000\ntotal.lat_p999_ns=603000' ]]
	# 477 of 2000 samples past 30 us: p90 and above are not known
	run parse cyclictest hist30us.txt
	[[ $output == *$'\ntotal.cycles=2000\n'* ]]
	[[ $output == *$'\ntotal.hist_overflows=477\ntotal.lat_p50_ns=25000\ntotal.lat_p75_ns=29000' ]]
	[[ $output != *lat_p90* ]]
	# no -N figures beside it; the buckets hold what the Total lines say
	local f=$TOP/cyclictest/tests/fixtures/hist1ms.txt
	run awk -f "$TOP/cyclictest/parse.awk" < <(cat "$f" "$TOP/cyclictest/tests/fixtures/threads2.txt")
	[ "${lines[-1]}" = "failure=T: lines and a histogram in one output: not cyclictest -q's summary" ]
	[[ $output != *total.* ]]
	run awk -f "$TOP/cyclictest/parse.awk" < <(sed 's/^000030 000081/000030 000082/' "$f")
	[ "$output" = "failure=thread 0's buckets hold 1999 samples, its Total line 1998" ]
	run awk -f "$TOP/cyclictest/parse.awk" < <(grep -v '^0' "$f")
	[ "$output" = "failure=a histogram's summary without its buckets" ]
	# one line, of the thread that lacks it, and no other figure
	run awk -f "$TOP/cyclictest/parse.awk" < <(sed 's/^# Max Latencies: 01168 00577$/# Max Latencies: 01168/' "$f")
	[ "$output" = "failure=thread 1 lacks a figure of the histogram's summary" ]
	# rt-tests after 2.4: no empty bucket, no Total line; the same figures,
	# the range the one asked
	grep -v -e $'^[0-9]* 000000\t000000$' -e '^# Total' "$f" >"$T/new.txt"
	[ "$(wc -l <"$T/new.txt")" -lt 200 ]
	run awk -f "$TOP/cyclictest/parse.awk" "$T/new.txt"
	[ "$output" = "$(awk -f "$TOP/cyclictest/parse.awk" "$f" | grep -v '^hist_range_us=')" ]
	run awk -v param_hist=1ms -f "$TOP/cyclictest/parse.awk" "$T/new.txt"
	[[ $output == *$'\nhist_range_us=1000\n'* ]]
	# cut short: a thread's cycles against duration / interval
	run awk -v param_duration=5 -v param_interval=1000 -f "$TOP/cyclictest/parse.awk" "$f"
	[[ $output == *$'\nfailure=thread 0 ran 1999 cycles, of the 5000 that 5 s at 1000 us make: cut short\n'* ]]
}

@test "battery: tbench's throughput, latency and operations" {
	run parse tbench clients2.txt
	[[ $output == *$'\ntotal.mb_per_sec=622.614\n'* ]]
	[[ $output == *$'\ntotal.max_latency_ns=6630000' ]]
	[[ $output == *$'\nop.readx.count=90854\n'* ]]
	[[ $output == *$'\nop.readx.lat_max_ns=6626000\n'* ]]
	# a run that ended before its first second was measured: no figure
	run awk -f "$TOP/tbench/parse.awk" < <(sed 's/^Throughput [0-9.]*/Throughput 0/' "$TOP/tbench/tests/fixtures/clients2.txt")
	[[ $output != *total.mb_per_sec* ]]
	run parse tbench clients2.txt
	[ "$(sed -n 's/^total.ops=//p' <<<"$output")" = \
		"$(awk '$1 ~ /^[A-Z]/ && $2 ~ /^[0-9]+$/ && NF == 4 { s += $2 } END { print s }' "$TOP/tbench/tests/fixtures/clients2.txt")" ]
}

@test "battery: netperf's transaction rate and latencies in ns, a rate of transactions only" {
	run parse netperf TCP_RR.txt
	[[ $output == protocol=TCP$'\n'* ]]
	[[ $output == *$'\ntotal.trans_per_sec=50220.13\n'* ]]
	[[ $output == *$'\ntotal.lat_mean_ns=19870\n'* ]]
	[[ $output == *$'\ntotal.lat_p99_ns=41000\n'* ]]
	run parse netperf UDP_RR.txt
	[[ $output == protocol=UDP$'\n'* ]]
	[[ $output == *$'\ntotal.lat_p50_ns=12000\n'* ]]
	# a throughput in another unit (a _STREAM test's) is no transaction rate
	run awk -f "$TOP/netperf/parse.awk" < <(sed 's|^THROUGHPUT_UNITS=.*|THROUGHPUT_UNITS=10^6bits/s|' "$TOP/netperf/tests/fixtures/TCP_RR.txt")
	[[ $output != *trans_per_sec* ]]
}

@test "battery: netperf_stream's rates in bytes a second, its loss from the bytes each side counted" {
	run parse netperf_stream TCP_STREAM.txt
	[[ $output == protocol=TCP$'\n'* ]]
	[[ $output == *$'\ntotal.sent_bytes=2538520576\ntotal.recv_bytes=2538520576\n'* ]]
	# 10140.68 10^6 bits/s: 1267585000 bytes a second
	[[ $output == *$'\ntotal.send_bytes_per_sec=1267585000\ntotal.recv_bytes_per_sec=1267585000\n'* ]]
	[[ $output == *$'\ntotal.loss_pct=0.00' ]]
	[[ $output != *failure=* ]]
	run parse netperf_stream UDP_STREAM.txt
	[[ $output == protocol=UDP$'\n'* ]]
	[[ $output == *$'\ntotal.recv_bytes_per_sec=1065448750\n'* ]]
	# (3996286976 - 2131116032) / 3996286976: 46.67 % of the bytes dropped
	[[ $output == *$'\ntotal.loss_pct=46.67' ]]
	local f=$TOP/netperf_stream/tests/fixtures/UDP_STREAM.txt
	run awk -v param_duration=2 -v param_test=TCP_STREAM -f "$TOP/netperf_stream/parse.awk" "$f"
	[ "${lines[0]}" = "failure=netperf ran a UDP test, the command asked TCP_STREAM" ]
	run awk -v param_duration=4 -f "$TOP/netperf_stream/parse.awk" "$f"
	[ "${lines[0]}" = "failure=netperf ran 2.00 s of the 4 s asked (-l): cut short" ]
	run awk -v param_size=8192 -f "$TOP/netperf_stream/parse.awk" "$f"
	[ "${lines[0]}" = "failure=netperf sent 16384 bytes a call, the command asked 8192" ]
	run awk -v param_size=16384 -v param_duration=2 -v param_test=UDP_STREAM -f "$TOP/netperf_stream/parse.awk" "$f"
	[[ $output != *failure=* ]]
	run awk -f "$TOP/netperf_stream/parse.awk" < <(sed 's/^REMOTE_BYTES_RECVD=.*/REMOTE_BYTES_RECVD=0/' "$f")
	[ "${lines[0]}" = "failure=netperf's receiver read no bytes" ]
	run awk -f "$TOP/netperf_stream/parse.awk" < <(sed 's/^REMOTE_BYTES_RECVD=.*/REMOTE_BYTES_RECVD=3996286977/' "$f")
	[ "${lines[0]}" = "failure=netperf's receiver read 3996286977 bytes of the 3996286976 sent" ]
	[[ $output != *loss_pct* ]]
	run awk -f "$TOP/netperf_stream/parse.awk" < <(sed 's/^REMOTE_BYTES_RECVD=.*/REMOTE_BYTES_RECVD=2538520575/' "$TOP/netperf_stream/tests/fixtures/TCP_STREAM.txt")
	[ "${lines[0]}" = "failure=netperf's TCP receiver read 2538520575 bytes of the 2538520576 sent: a stream loses none" ]
	# another unit: no rate, and a failure
	run awk -f "$TOP/netperf_stream/parse.awk" < <(sed 's|^THROUGHPUT_UNITS=.*|THROUGHPUT_UNITS=10^3bits/s|' "$f")
	[ "${lines[0]}" = "failure=netperf printed its throughput in 10^3bits/s, not 10^6bits/s" ]
	[[ $output != *bytes_per_sec* ]]
}

@test "battery: run.sh runs cyclictest with a histogram: -h for -N, the percentiles in the result" {
	fake cyclictest cyclictest hist1ms.txt
	PATH=$T/bin:$PATH run "$S/run.sh" -n 1 -w 0 -o "$T/out" cyclictest duration=2 hist=1ms
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cat "$R/calls")" = "cyclictest -q -h1000 -m -t 2 -i 1000 -d 0 -D 2 -p 80" ]
	grep -qx total.lat_p99_ns=72000 "$T/out/iter-001.txt"
	grep -qx status=complete "$T/out/iter-001.txt"
	PATH=$T/bin:$PATH run "$S/run.sh" -n 1 -w 0 -o "$T/out2" cyclictest hist=5ms
	[ "$status" -eq 2 ]
}

@test "battery: run.sh runs netperf_stream's command with its server" {
	fake netperf netperf_stream UDP_STREAM.txt
	fake_server netserver 12866
	PATH=$T/bin:$PATH run "$S/run.sh" -n 1 -w 0 -o "$T/out" netperf_stream test=UDP_STREAM duration=2 size=16384
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(head -n 1 "$R/calls")" = "netserver -D -L 127.0.0.1 -p 12866" ]
	[ "$(sed -n 2p "$R/calls")" = "netperf -P 0 -H 127.0.0.1 -L 127.0.0.1 -p 12866 -t UDP_STREAM -l 2 -- -m 16384 -k THROUGHPUT_UNITS,LOCAL_SEND_THROUGHPUT,REMOTE_RECV_THROUGHPUT,LOCAL_SEND_SIZE,LOCAL_SEND_CALLS,REMOTE_RECV_CALLS,LOCAL_BYTES_SENT,REMOTE_BYTES_RECVD,PROTOCOL,ELAPSED_TIME" ]
	grep -qx total.loss_pct=46.67 "$T/out/iter-001.txt"
	grep -qx status=complete "$T/out/iter-001.txt"
	# a test it cannot parse is refused
	PATH=$T/bin:$PATH run "$S/run.sh" -n 1 -w 0 -o "$T/out2" netperf_stream test=TCP_RR
	[ "$status" -eq 2 ]
}

@test "battery: run.sh runs a program N times into iter-NNN.txt, its output and state kept" {
	fake hackbench hackbench process.txt
	PATH=$T/bin:$PATH run "$S/run.sh" -n 2 -w 1 -o "$T/out" hackbench groups=4 loops=100
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cat "$R/calls")" = "hackbench -g 4 -f 20 -l 100 -s 100 --process
hackbench -g 4 -f 20 -l 100 -s 100 --process
hackbench -g 4 -f 20 -l 100 -s 100 --process" ]
	for f in warmup-001 iter-001 iter-002; do
		[ "$(head -n 4 "$T/out/$f.txt")" = "format=ipistorm-program/2
bench=hackbench
command=hackbench -g 4 -f 20 -l 100 -s 100 --process
exit=0" ]
		[ "$(tail -n 1 "$T/out/$f.txt")" = status=complete ]
		grep -qx runtime_ns=679000000 "$T/out/$f.txt"
		cmp "$T/out/out-$f.txt" "$TOP/hackbench/tests/fixtures/process.txt"
		[ -f "$T/out/idle-$f.txt" ]
	done
	grep -qx 'params=groups=4 loops=100' "$T/out/meta.txt"
	grep -qx 'program.command=hackbench -g 4 -f 20 -l 100 -s 100 --process' "$T/out/meta.txt"
	grep -qx "program.hackbench.path=$T/bin/hackbench" "$T/out/meta.txt"
	grep -q '^program.hackbench.sha256=[0-9a-f]\{64\}$' "$T/out/meta.txt"
	grep -qx status=ok "$T/out/meta.txt"
	[[ $output == *"iter-002.txt: runtime_ns=679000000 total.msgs_per_sec=235641"* ]]
	# compare.sh takes the directory as it takes a module's
	cp -r "$T/out" "$T/out2"
	run "$S/compare.sh" -f csv "$T/out" "$T/out2"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *runtime_ns* ]]
}

@test "battery: a program's parameters are its declared ones, of plain words" {
	fake hackbench hackbench process.txt
	PATH=$T/bin:$PATH run "$S/run.sh" -n 2 -o "$T/o1" hackbench numipi=5
	[ "$status" -eq 2 ]
	[[ $output == *"hackbench has no parameter 'numipi' (its parameters: groups fds loops datasize mode ipc)"* ]]
	PATH=$T/bin:$PATH run "$S/run.sh" -n 2 -o "$T/o2" hackbench 'mode=process;reboot'
	[ "$status" -eq 2 ]
	[[ $output == *"a value of hackbench's is letters, digits and _.,:+-"* ]]
	# a number where the default is one: hackbench -l x runs no loop
	for v in x -3 1.5 010; do
		PATH=$T/bin:$PATH run "$S/run.sh" -n 2 -o "$T/o3" hackbench "loops=$v"
		[ "$status" -eq 2 ]
		[ "${lines[-1]}" = "run.sh: loops: '$v' is not a decimal integer (digits, no sign, no leading zero)" ] ||
			[ "${lines[-2]}" = "run.sh: loops: '$v' is not a decimal integer (digits, no sign, no leading zero)" ]
	done
	# text where the default is text
	PATH=$T/bin:$PATH run "$S/run.sh" -n 2 -o "$T/o4" netperf size=x
	[[ $output != *"is not a decimal integer"* ]]
	[ ! -e "$R/calls" ]
}

@test "battery: a program that is not installed is named with its package" {
	# a copy of the tree whose hackbench declaration runs a program no
	# machine has
	mkdir -p "$T/t/hackbench"
	cp -r "$S" "$T/t/scripts"
	sed 's/hackbench -g/no-such-hackbench -g/; s/^programs=.*/programs=no-such-hackbench/' \
		"$TOP/hackbench/bench.conf" >"$T/t/hackbench/bench.conf"
	cp "$TOP/hackbench/parse.awk" "$T/t/hackbench/"
	run "$T/t/scripts/run.sh" -n 2 -o "$T/o" hackbench
	[ "$status" -eq 2 ]
	[[ $output == *"hackbench needs no-such-hackbench, which is not installed (package rt-tests)"* ]]
	[ ! -e "$T/o" ]
}

@test "battery: a program that fails, or whose output lacks a metric, fails the run" {
	printf '#!/bin/sh\nhead -n 2 "%s"\n' "$TOP/hackbench/tests/fixtures/process.txt" >"$T/bin/hackbench"
	chmod +x "$T/bin/hackbench"
	PATH=$T/bin:$PATH run "$S/run.sh" -n 2 -w 0 -o "$T/out" hackbench
	[ "$status" -eq 1 ]
	grep -qx status=failed "$T/out/iter-001.txt"
	grep -qx 'failure=no runtime_ns total.msgs_per_sec in the output, see out-iter-001.txt' "$T/out/iter-001.txt"
	grep -qx status=failed "$T/out/meta.txt"
	[[ $output == *"iteration 1: result status=failed: no runtime_ns total.msgs_per_sec in the output"* ]]
	printf '#!/bin/sh\ncat "%s"\nexit 3\n' "$TOP/hackbench/tests/fixtures/process.txt" >"$T/bin/hackbench"
	PATH=$T/bin:$PATH run "$S/run.sh" -n 2 -w 0 -o "$T/out2" hackbench
	[ "$status" -eq 1 ]
	grep -qx 'failure=hackbench exited with status 3, see out-iter-001.txt' "$T/out2/iter-001.txt"
}

@test "battery: run.sh starts a program's server, waits for its port, and stops it" {
	fake netperf netperf TCP_RR.txt
	fake_server netserver 12865
	PATH=$T/bin:$PATH run "$S/run.sh" -n 2 -w 0 -o "$T/out" netperf duration=1
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(head -n 1 "$R/calls")" = "netserver -D -L 127.0.0.1 -p 12865" ]
	[ "$(sed -n 2p "$R/calls")" = "netperf -P 0 -H 127.0.0.1 -L 127.0.0.1 -p 12865 -t TCP_RR -l 1 -- -r 1,1 -k THROUGHPUT,THROUGHPUT_UNITS,TRANSACTION_RATE,MEAN_LATENCY,MIN_LATENCY,P50_LATENCY,P90_LATENCY,P99_LATENCY,MAX_LATENCY,STDDEV_LATENCY,PROTOCOL,REQUEST_SIZE,RESPONSE_SIZE,ELAPSED_TIME" ]
	grep -qx total.trans_per_sec=50220.13 "$T/out/iter-002.txt"
	# stopped: its process gone, its port closed
	run ! kill -0 "$(cat "$R/server.pid")"
	[ ! -e "$R/proc/net/tcp" ]
	# another port: the parameter goes to both
	fake netperf netperf UDP_RR.txt
	fake_server netserver 12999
	PATH=$T/bin:$PATH run "$S/run.sh" -n 2 -w 0 -o "$T/out2" netperf port=12999 test=UDP_RR duration=2
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -qx 'program.server=netserver -D -L 127.0.0.1 -p 12999' "$T/out2/meta.txt"
}

@test "battery: a server that dies, or a port already taken, fails the run" {
	fake netperf netperf TCP_RR.txt
	printf '#!/bin/sh\necho cannot bind >&2\nexit 1\n' >"$T/bin/netserver"
	chmod +x "$T/bin/netserver"
	PATH=$T/bin:$PATH run "$S/run.sh" -n 2 -o "$T/out" netperf
	[ "$status" -eq 1 ]
	[[ $output == *"the server netserver ended, see $T/out/server.txt"* ]]
	grep -qx 'cannot bind' "$T/out/server.txt"
	mkdir -p "$R/proc/net"
	printf '  sl  local_address rem_address   st\n   0: 00000000:3241 00000000:0000 0A\n' >"$R/proc/net/tcp"
	PATH=$T/bin:$PATH run "$S/run.sh" -n 2 -o "$T/out2" netperf
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "run.sh: port 12865 is already listening: stop what listens there, or give another port= (e.g. port=12866)" ]
	# refused before anything is made
	[ ! -e "$T/out2" ]
	# a netserver of the system's (Debian's starts one on 12865): named
	mkdir -p "$R/proc/4242"
	echo netserver >"$R/proc/4242/comm"
	PATH=$T/bin:$PATH run "$S/run.sh" -n 2 -o "$T/out2" netperf
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "run.sh: port 12865 is already listening, and netserver runs (pid 4242: a system service?): stop what listens there, or give another port= (e.g. port=12866)" ]
}

@test "battery: run.sh runs the real hackbench" {
	command -v hackbench >/dev/null || skip "rt-tests is not installed"
	# loops=2000: some 80 ms here, far above hackbench's 1 ms resolution
	run "$S/run.sh" -n 2 -w 0 -o "$T/out" hackbench groups=1 fds=5 loops=2000
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -qx 'tasks=10' "$T/out/iter-002.txt"
	grep -qx status=complete "$T/out/iter-002.txt"
	# 10 loops take about 1 ms, which hackbench may print as 0.000: a
	# run that short is a failure that says so, never a rate of 0 s
	printf 'Running in process mode with 1 groups using 10 file descriptors each (== 10 tasks)\nEach sender will pass 10 messages of 100 bytes\nTime: 0.000\n' |
		awk -v param_groups=1 -v param_loops=10 -f "$TOP/hackbench/parse.awk" >"$T/short"
	grep -qx "failure=hackbench's Time: 0.000 s is below 10 ms, where its 1 ms resolution is above 10 %: give it more loops= or groups=" "$T/short"
}

@test "battery: the declaration of a program is checked as a module's is" {
	local d=$T/t
	mkdir -p "$d/scripts" "$d/prog"
	cp "$S/bench.awk" "$d/scripts/"
	sed 's/^name=.*/name=prog/' "$TOP/netperf/bench.conf" >"$d/prog/bench.conf"
	: >"$d/prog/parse.awk"
	bench_check "$d" prog
	printf '%s\n' hist=lat storm=ipistorm >>"$d/prog/bench.conf"
	sed -i 's/^command=netperf /command=ls {nothing} /; s/^server_port=.*/server_port=/' "$d/prog/bench.conf"
	run bench_check "$d" prog
	[ "$status" -eq 1 ]
	[[ $output == *"hist= is a key of a module's declaration, not of a program's"* ]]
	[[ $output == *"storm= is a key of a module's declaration, not of a program's"* ]]
	[[ $output == *"command: runs 'ls', which is not one of programs="* ]]
	[[ $output == *"command: {nothing} is no parameter of params="* ]]
	[[ $output == *"server= and server_port= go together"* ]]
	# a module's declaration takes no program's key, and says its kind
	sed 's/^name=.*/name=prog/; /^kind=/d' "$TOP/ipistorm/bench.conf" >"$d/prog/bench.conf"
	run bench_check "$d" prog
	[ "$status" -eq 1 ]
	[[ $output == *"no kind= line"* ]]
	printf '%s\n' kind=module command=ls >>"$d/prog/bench.conf"
	run bench_check "$d" prog
	[ "$status" -eq 1 ]
	[[ $output == *"command= is a key of a program's declaration, not of a module's"* ]]
	# /5's choices= and timeout=: checked; a /4 declaration is refused,
	# naming them
	sed 's/^name=.*/name=prog/; s/^choices=.*/choices=test:TCP_RR,UDP_RR size:a=-x nothing:1,2 test:UDP_RR/; s/^timeout=.*/timeout=60 2*{duration} {size} 2*3 0/' \
		"$TOP/netperf/bench.conf" >"$d/prog/bench.conf"
	run bench_check "$d" prog
	[ "$status" -eq 1 ]
	[[ $output == *"choices: size's default 1,1 is not one of its choices"* ]]
	[[ $output == *"choices: 'nothing:1,2' is not PARAM:VALUE[=WORD],... of a parameter of params="* ]]
	[[ $output == *"choices: test listed twice"* ]]
	[[ $output == *"timeout: '2*3' is not SECONDS, {NAME} or N*{NAME} of a parameter of params="* ]]
	[[ $output == *"timeout: '0' is not SECONDS, {NAME} or N*{NAME} of a parameter of params="* ]]
	[[ $output != *"timeout: '{size}'"* ]]
	sed 's/^name=.*/name=prog/; s/^format=.*/format=ipistorm-bench\/4/' "$TOP/netperf/bench.conf" >"$d/prog/bench.conf"
	run bench_check "$d" prog
	[ "$status" -eq 1 ]
	[[ $output == *"format is ipistorm-bench/4, no longer read: make it format=ipistorm-bench/7, add choices= and timeout= (a program's), and move its wiring (testbed=, bisect_*=, dkms=, mmtests=, lkp=) to wiring.conf beside it (docs/bench.md)"* ]]
	sed -i '/^choices=/d; /^timeout=/d; s/^format=.*/format=ipistorm-bench\/5/' "$d/prog/bench.conf"
	run bench_check "$d" prog
	[ "$status" -eq 1 ]
	[[ $output == *"no choices= line"* ]]
	[[ $output == *"no timeout= line"* ]]
	# a program without its parser
	sed 's/^name=.*/name=prog/' "$TOP/netperf/bench.conf" >"$d/prog/bench.conf"
	rm "$d/prog/parse.awk"
	run bench_check "$d" prog
	[ "$status" -eq 1 ]
	[[ $output == *"prog/parse.awk: no such file"* ]]
}

# waitfor PATTERN [N]: N processes (default 1) whose command line matches
# PATTERN run (30 s at most).
waitfor() {
	local _
	for _ in $(seq 300); do
		[ "$(pgrep -c -f "$1")" -lt "${2:-1}" ] || return 0
		sleep 0.1
	done
	echo "not ${2:-1} processes '$1'"
	return 1
}

# gone PATTERN: no process whose command line matches PATTERN is left
# (a killed one may take a moment on a busy host: 5 s at most).
gone() {
	local _
	for _ in $(seq 50); do
		pgrep -f "$1" >/dev/null || return 0
		sleep 0.1
	done
	pgrep -a -f "$1"
	return 1
}

# The signals a shell can catch (as run.bats's and sweep.bats's): reset
# to their defaults for the run.sh under test, which a background step
# of the test bed's driver would otherwise start with SIGINT ignored (a
# shell cannot trap a signal ignored at its start).
SIGNALS=HUP,INT,QUIT,TERM,PIPE,USR1,USR2,ALRM

# A signal to run.sh, to its pid (kill, timeout) or to its group (a
# terminal, an ssh drop), ends the program at once: its process group is
# its own (setsid), killed by run.sh; the iteration and the run are
# interrupted, no process of the program is left.
@test "battery: a signal to run.sh ends the real hackbench at once, the iteration interrupted" {
	command -v hackbench >/dev/null || skip "rt-tests is not installed"
	local sh how sig pid rc t0
	for sh in dash "busybox sh"; do
		for how in pid group; do
			for sig in TERM INT; do
				rm -rf "$T/out"
				set -m
				# shellcheck disable=SC2086 # the shell and its argument
				env --default-signal="$SIGNALS" $sh "$S/run.sh" -n 1 -w 0 -T 60 -o "$T/out" hackbench groups=1 fds=5 loops=100000000 2>"$T/err" &
				pid=$!
				set +m
				waitfor 'hackbench -g 1 -f 5 -l 100000000'
				t0=$(date +%s%N)
				if [ "$how" = group ]; then kill -"$sig" -- "-$pid"; else kill -"$sig" "$pid"; fi
				rc=0
				wait "$pid" || rc=$?
				[ "$rc" -eq 1 ] || { echo "$sh $how $sig: exit $rc"; cat "$T/err"; false; }
				# at once: the program would run for minutes; within the
				# second of TERM before KILL and the cleanup, on a busy host
				[ $((($(date +%s%N) - t0) / 1000000)) -lt 20000 ]
				gone 'hackbench -g 1 -f 5 -l 100000000'
				grep -qx status=interrupted "$T/out/iter-001.txt"
				grep -qx "failure=SIG$sig to run.sh while hackbench ran" "$T/out/iter-001.txt"
				grep -qx status=interrupted "$T/out/meta.txt"
				# nothing of the cut run is a figure
				run ! grep -q '^runtime_ns=' "$T/out/iter-001.txt"
			done
		done
	done
}

@test "battery: the program signalled alone: hackbench's caught signal, killed by one, both interrupted" {
	command -v hackbench >/dev/null || skip "rt-tests is not installed"
	local sig rc
	for sig in TERM KILL; do
		rm -rf "$T/out"
		"$S/run.sh" -n 1 -w 0 -T 60 -o "$T/out" hackbench groups=1 fds=5 loops=100000000 2>"$T/err" &
		waitfor 'hackbench -g 1 -f 5 -l 100000000' 11
		sleep 1
		pkill "-$sig" -o -f 'hackbench -g 1 -f 5 -l 100000000'
		rc=0
		wait "$!" || rc=$?
		[ "$rc" -eq 1 ]
		grep -qx status=interrupted "$T/out/iter-001.txt"
		grep -qx status=interrupted "$T/out/meta.txt"
		pkill -KILL -f 'hackbench -g 1 -f 5 -l 100000000' || :
		gone 'hackbench -g 1 -f 5 -l 100000000'
	done
	# TERM: hackbench says so, and prints a Time: of the part it ran
	rm -rf "$T/out"
	"$S/run.sh" -n 1 -w 0 -T 60 -o "$T/out" hackbench groups=1 fds=5 loops=100000000 2>"$T/err" &
	waitfor 'hackbench -g 1 -f 5 -l 100000000' 11
	sleep 1
	pkill -TERM -o -f 'hackbench -g 1 -f 5 -l 100000000'
	wait "$!" || :
	grep -q '^Time: ' "$T/out/out-iter-001.txt"
	grep -qx "failure=hackbench caught signal 15: its Time: is of a run cut short, see out-iter-001.txt" "$T/out/iter-001.txt"
}

# A program that overruns its iteration's time: its whole process group
# killed (TERM, then KILL: a child that ignores TERM too), status=timeout.
@test "battery: an iteration past its timeout is killed, process tree and all, status timeout" {
	cat >"$T/bin/hackbench" <<-'SH'
	#!/bin/sh
	trap '' TERM
	sleep 31.25 &
	sleep 31.5
	SH
	chmod +x "$T/bin/hackbench"
	local t0
	t0=$(date +%s)
	PATH=$T/bin:$PATH run "$S/run.sh" -n 1 -w 0 -T 2 -o "$T/out" hackbench
	[ "$status" -eq 1 ]
	# the stand-in would sleep 31 s
	[ $(($(date +%s) - t0)) -lt 25 ]
	gone 'sleep 31\.'
	grep -qx status=timeout "$T/out/iter-001.txt"
	grep -qx "failure=hackbench ran past the iteration's 2 s (-T, or timeout= of hackbench/bench.conf): its process group killed, see out-iter-001.txt" "$T/out/iter-001.txt"
	grep -qx status=timeout "$T/out/meta.txt"
	# the declared timeout, from the parameters: 60 + 2 x duration
	[ "$(bench_get "$TOP" cyclictest timeout)" = "60 2*{duration}" ]
	run "$S/run.sh" -n 1 -T 0 -o "$T/o2" hackbench
	[ "$status" -eq 2 ]
	[[ $output == *"-T: 0 is out of range, want 1 to 86400"* ]]
	run "$S/run.sh" -n 1 -T 5 -o "$T/o2" ipistorm
	[ "$status" -eq 2 ]
	[[ $output == *"-T: ipistorm is a module: its iteration ends with its storm or duration="* ]]
}

@test "battery: a cyclictest cut short is failed, not complete; output not of -q is refused" {
	command -v cyclictest >/dev/null || skip "rt-tests is not installed"
	local rc
	"$S/run.sh" -n 1 -w 0 -o "$T/out" cyclictest threads=1 duration=8 2>"$T/err" &
	waitfor 'cyclictest -q -N -m -t 1 -i 1000 -d 0 -D 8'
	sleep 1
	pkill -TERM -f 'cyclictest -q -N -m -t 1 -i 1000 -d 0 -D 8'
	rc=0
	wait "$!" || rc=$?
	[ "$rc" -eq 1 ]
	grep -q '^exit=0$' "$T/out/iter-001.txt"
	grep -qx status=failed "$T/out/iter-001.txt"
	grep -q '^failure=thread 0 ran [0-9]* cycles, of the 8000 that 8 s at 1000 us make: cut short, see out-iter-001.txt$' "$T/out/iter-001.txt"
	# without -q, the status line repeats each thread: refused
	run awk -v param_threads=1 -f "$TOP/cyclictest/parse.awk" <<-'EOF'
	T: 0 ( 1318) P:80 I:1000 C:    972 Min:   8476 Act:   13332 Avg:   48513 Max:   27874
	T: 0 ( 1318) P:80 I:1000 C:   1972 Min:   8476 Act:   13332 Avg:   48513 Max:   27874
	EOF
	grep -qx "failure=thread 0 is in the output twice: not cyclictest -q's summary" <<<"$output"
	# fewer threads than asked
	run awk -v param_threads=2 -v param_duration=1 -f "$TOP/cyclictest/parse.awk" <<<"T: 0 ( 1318) P:80 I:1000 C:    972 Min:   8476 Act:   13332 Avg:   48513 Max:   27874"
	grep -qx "failure=1 threads in the output, the command asked 2" <<<"$output"
	# the recorded runs are whole: no failure
	run awk -v param_threads=2 -v param_duration=1 -f "$TOP/cyclictest/parse.awk" "$TOP/cyclictest/tests/fixtures/distance500.txt"
	[[ $output != *failure=* ]]
}

@test "battery: netperf's and tbench's short or empty runs, and hackbench's other mode, are failures" {
	local np=$TOP/netperf/tests/fixtures/TCP_RR.txt
	run awk -v param_duration=4 -v param_test=TCP_RR -f "$TOP/netperf/parse.awk" "$np"
	[ "${lines[0]}" = "failure=netperf ran 2.00 s of the 4 s asked (-l): cut short" ]
	run awk -v param_duration=2 -v param_test=UDP_RR -f "$TOP/netperf/parse.awk" "$np"
	[ "${lines[0]}" = "failure=netperf ran a TCP test, the command asked UDP_RR" ]
	run awk -v param_duration=2 -v param_test=TCP_RR -f "$TOP/netperf/parse.awk" < <(sed 's/^THROUGHPUT=.*/THROUGHPUT=0.00/' "$np")
	[ "${lines[0]}" = "failure=netperf measured 0 transactions a second" ]
	run awk -v param_duration=2 -v param_test=TCP_RR -f "$TOP/netperf/parse.awk" "$np"
	[[ $output != *failure=* ]]
	# the elapsed time a number, not a string: "10.00" is not below "9.5",
	# "5.00" is below 11.4
	local b
	for b in netperf/TCP_RR netperf_stream/TCP_STREAM; do
		f=$TOP/${b%/*}/tests/fixtures/${b#*/}.txt
		run awk -v param_duration=10 -f "$TOP/${b%/*}/parse.awk" < <(sed 's/^ELAPSED_TIME=.*/ELAPSED_TIME=10.00/' "$f")
		[[ $output != *failure=* ]]
		run awk -v param_duration=12 -f "$TOP/${b%/*}/parse.awk" < <(sed 's/^ELAPSED_TIME=.*/ELAPSED_TIME=5.00/' "$f")
		[ "${lines[0]}" = "failure=netperf ran 5.00 s of the 12 s asked (-l): cut short" ]
	done
	local tb=$TOP/tbench/tests/fixtures/clients2.txt
	run awk -v param_duration=10 -f "$TOP/tbench/parse.awk" "$tb"
	grep -qx "failure=tbench executed 2 s of the 10 s asked: cut short" <<<"$output"
	run awk -v param_duration=3 -f "$TOP/tbench/parse.awk" < <(sed 's/^Throughput [0-9.]* MB/Throughput 0 MB/' "$tb")
	grep -qx "failure=tbench measured 0 MB/s: no second of its run was measured (a duration below 2 s, or a server that answered nothing)" <<<"$output"
	run awk -v param_mode=threads -v param_groups=4 -v param_loops=100 -f "$TOP/hackbench/parse.awk" "$TOP/hackbench/tests/fixtures/process.txt"
	[ "${lines[0]}" = "failure=hackbench ran in process mode, the command asked threads" ]
	run awk -v param_mode=process -v param_groups=8 -v param_loops=100 -f "$TOP/hackbench/parse.awk" "$TOP/hackbench/tests/fixtures/process.txt"
	[ "${lines[0]}" = "failure=hackbench ran 4 groups of 100 loops, the command asked 8 of 100" ]
}

@test "battery: modes are declared: pipe with threads expressible, another mode refused, the command's recorded" {
	fake hackbench hackbench threads.txt
	PATH=$T/bin:$PATH run "$S/run.sh" -n 1 -w 0 -o "$T/out" hackbench groups=2 fds=10 mode=threads ipc=pipe
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cat "$R/calls")" = "hackbench -g 2 -f 10 -l 100 -s 100 --threads --pipe" ]
	grep -qx mode=threads "$T/out/iter-001.txt"
	grep -qx ipc=pipe "$T/out/iter-001.txt"
	grep -qx 'command=hackbench -g 2 -f 10 -l 100 -s 100 --threads --pipe' "$T/out/iter-001.txt"
	# the default: socket pairs, no word for them
	fake hackbench hackbench process.txt
	PATH=$T/bin:$PATH run "$S/run.sh" -n 1 -w 0 -o "$T/out2" hackbench
	[ "$status" -eq 0 ]
	grep -qx 'command=hackbench -g 4 -f 20 -l 100 -s 100 --process' "$T/out2/iter-001.txt"
	grep -qx ipc=socket "$T/out2/iter-001.txt"
	: >"$R/calls"
	for p in mode=help mode=pipe ipc=inet; do
		PATH=$T/bin:$PATH run "$S/run.sh" -n 1 -o "$T/o-$p" hackbench "$p"
		[ "$status" -eq 2 ]
		case $p in
		mode=*) [[ $output == *"parameter '$p': hackbench's mode is one of process, threads"* ]] ;;
		*) [[ $output == *"parameter '$p': hackbench's ipc is one of socket, pipe"* ]] ;;
		esac
	done
	PATH=$T/bin:$PATH run "$S/run.sh" -n 1 -o "$T/o-np" netperf test=TCP_STREAM
	[ "$status" -eq 2 ]
	[[ $output == *"parameter 'test=TCP_STREAM': netperf's test is one of TCP_RR, UDP_RR"* ]]
	[ ! -s "$R/calls" ]
}

@test "battery: a server that dies during an iteration fails it, with its last output" {
	# the iteration takes a second; the server dies in it
	printf '#!/bin/sh\nsleep 1\ncat "%s"\n' "$TOP/netperf/tests/fixtures/TCP_RR.txt" >"$T/bin/netperf"
	cat >"$T/bin/netserver" <<-'SH'
	#!/bin/sh
	mkdir -p "$R/proc/net"
	printf '  sl  local_address rem_address   st\n   0: 0100007F:3241 00000000:0000 0A\n' >"$R/proc/net/tcp"
	echo "netserver: starting"
	sleep 0.5
	echo "netserver: out of memory"
	exit 1
	SH
	chmod +x "$T/bin/netperf" "$T/bin/netserver"
	PATH=$T/bin:$PATH run "$S/run.sh" -n 2 -w 0 -o "$T/out" netperf duration=1
	[ "$status" -eq 1 ]
	grep -qx 'failure=the server netserver died during the iteration, its last output: netserver: starting netserver: out of memory' "$T/out/iter-001.txt"
}

# A program that ends at once used to race its watchdog's start: the
# watchdog missed run.sh's TERM (a subshell drops a signal that reaches it
# before it resets its parent's traps), slept to the timeout with run.sh
# waiting for it, then called the iteration timed out (seen in CI as
# "cyclictest ran past the iteration's 64 s"; 600 s for hackbench). The
# race needs load: many instant iterations under two busy loops.
@test "battery: instant programs never wait for their watchdog" {
	fake hackbench hackbench process.txt
	timeout 120 sh -c 'while :; do :; done' &
	b1=$!
	timeout 120 sh -c 'while :; do :; done' &
	b2=$!
	t0=$(date +%s)
	PATH=$T/bin:$PATH run busybox sh "$S/run.sh" -n 60 -w 0 -T 90 -o "$T/out" hackbench
	t=$(($(date +%s) - t0))
	kill "$b1" "$b2" 2>/dev/null || :
	echo "# 60 instant iterations beside two busy loops: $t s" >&3
	[ "$status" -eq 0 ] || { echo "$output" | tail -n 3; false; }
	[ "$t" -lt 90 ]
	run ! grep -l '^status=timeout' "$T"/out/iter-*.txt
}

# A client of a dead server waits for its own timeout (tbench's 60 s and
# more): the server's guard ends the iteration's program at once.
@test "battery: a server that dies ends the iteration's program at once" {
	printf '#!/bin/sh\nsleep 30\ncat "%s"\n' "$TOP/netperf/tests/fixtures/TCP_RR.txt" >"$T/bin/netperf"
	cat >"$T/bin/netserver" <<-'SH'
	#!/bin/sh
	mkdir -p "$R/proc/net"
	printf '  sl  local_address rem_address   st\n   0: 0100007F:3241 00000000:0000 0A\n' >"$R/proc/net/tcp"
	echo "netserver: starting"
	sleep 1
	echo "netserver: killed"
	exit 1
	SH
	chmod +x "$T/bin/netperf" "$T/bin/netserver"
	t0=$(date +%s)
	PATH=$T/bin:$PATH run busybox sh "$S/run.sh" -n 2 -w 0 -o "$T/out" netperf duration=1
	t=$(($(date +%s) - t0))
	echo "# a dead server's iteration ended after $t s (the client would have taken 30 s)" >&3
	[ "$status" -eq 1 ]
	[ "$t" -lt 15 ]
	grep -qx 'failure=the server netserver died during the iteration, its last output: netserver: starting netserver: killed' "$T/out/iter-001.txt"
	run ! pgrep -f "$T/bin/netperf"
}

# Two runs are the same when the same command ran: defaults typed or
# not, parameters in any order. Another version or binary of the program
# is a difference of the machine's state: shown, fatal with -x.
# shellcheck disable=SC2154 # run --separate-stderr sets stderr
@test "battery: compare.sh judges a program's runs by the command that ran, its package and binary" {
	fake hackbench hackbench process.txt
	PATH=$T/bin:$PATH "$S/run.sh" -n 2 -w 0 -o "$T/a" hackbench 2>/dev/null
	PATH=$T/bin:$PATH "$S/run.sh" -n 2 -w 0 -o "$T/b" hackbench loops=100 groups=4 mode=process 2>/dev/null
	run --separate-stderr "$S/compare.sh" "$T/a" "$T/b"
	[ "$status" -eq 0 ]
	run --separate-stderr "$S/compare.sh" -x "$T/a" "$T/b"
	[ "$status" -eq 0 ]
	# another package version, another binary: said, and -x refuses
	cp -r "$T/b" "$T/c"
	sed -i 's/^package\.rt-tests=.*/package.rt-tests=9.9-1/; s/^program\.hackbench\.sha256=.*/program.hackbench.sha256=0000/' "$T/c/meta.txt"
	run --separate-stderr "$S/compare.sh" "$T/a" "$T/c"
	[ "$status" -eq 0 ]
	[[ $stderr == *"package.rt-tests"*"9.9-1"* ]] || { echo "$stderr"; false; }
	[[ $stderr == *"program.hackbench.sha256"*"0000"* ]]
	run --separate-stderr "$S/compare.sh" -x "$T/a" "$T/c"
	[ "$status" -eq 2 ]
	# another command: another run, refused
	cp -r "$T/b" "$T/d"
	sed -i 's/^program\.command=hackbench -g 4/program.command=hackbench -g 8/' "$T/d/meta.txt"
	run --separate-stderr "$S/compare.sh" "$T/a" "$T/d"
	[ "$status" -eq 2 ]
	[[ $stderr == *"$T/d: command 'hackbench -g 8 -f 20 -l 100 -s 100 --process' differs from the baseline's 'hackbench -g 4 -f 20 -l 100 -s 100 --process' ($T/a)" ]] || { echo "$stderr"; false; }
}
