#!/usr/bin/env bats
# plot.sh: gnuplot input and data; the PNGs when gnuplot is installed.

setup() {
	S=$BATS_TEST_DIRNAME/..
	F=$BATS_TEST_DIRNAME/fixtures
	T=$BATS_TEST_TMPDIR
	cp -r "$F/ipistorm-6.1" "$F/ipistorm-6.12" "$T/"
	# a small known histogram: two senders, two runs
	mkdir "$T/h"
	cp "$F/ipistorm-6.1/meta.txt" "$T/h/"
	for i in 001 002; do
		printf 'format=ipistorm/1\nstatus=complete\nruntime_ns=1\nsender0.lat_hist_ns.1024=10\nsender0.lat_hist_ns.1088=5\nsender1.lat_hist_ns.96=1\nsender0.lat_hist_ns.131072=2\n' >"$T/h/iter-$i.txt"
	done
}

@test "plot: histogram data sums buckets over senders and runs" {
	run "$S/plot.sh" -n hist "$T/h"
	[ "$status" -eq 0 ]
	[ "$(grep -v '^#' "$T/h/latency-hist.dat")" = "96 2
1024 20
1088 10
131072 4" ]
	grep -q "set logscale x" "$T/h/latency-hist.gp"
	grep -q "plot '$T/h/latency-hist.dat' using 1:2 with steps" "$T/h/latency-hist.gp"
	[ ! -e "$T/h/latency-hist.png" ]
	run "$S/plot.sh" -n hist "$T/h"
	[ "$status" -eq 1 ]
	[[ $output == *"exists: refusing to overwrite"* ]]
}

@test "plot: nohz_csd kick delays, every balance counted once, higher is better" {
	cp -r "$F/nohz_csd-6.1" "$F/nohz_csd-6.12" "$T/"
	run "$S/plot.sh" -n hist "$T/nohz_csd-6.1"
	[ "$status" -eq 0 ]
	n=$(cat "$T"/nohz_csd-6.1/iter-*.txt | awk -F= '$1 ~ /^cpu[0-9]+\.delay_n$/ { s += $2 } END { print s }')
	[ "$n" -gt 0 ]
	[ "$(awk '!/^#/ { s += $2 } END { print s }' "$T/nohz_csd-6.1/latency-hist.dat")" -eq "$n" ]
	run "$S/plot.sh" -n -o "$T/nc" bars "$T/nohz_csd-6.1" "$T/nohz_csd-6.12"
	[ "$status" -eq 0 ]
	grep -q 'total.balanced / baseline mean (higher is better)' "$T/nc.gp"
}

@test "plot: results without histogram lines are refused" {
	mkdir "$T/nohist"
	for f in "$T"/ipistorm-6.1/*; do
		grep -v '_hist_ns\.' "$f" >"$T/nohist/${f##*/}"
	done
	run "$S/plot.sh" -n hist "$T/nohist"
	[ "$status" -eq 1 ]
	[[ $output == *"no lat_hist_ns lines"* ]]
}

@test "plot: bars from compare.sh's CSV" {
	run "$S/plot.sh" -n -o "$T/cmp" bars "$T/ipistorm-6.1" "$T/ipistorm-6.12"
	[ "$status" -eq 0 ]
	[ "$(cat "$T/cmp.dat")" = '0 "6.1.0-50-amd64" 1.000000 0.001111
1 "6.12.95+deb12-amd64" 0.879093 0.000290' ]
	head -n 1 "$T/cmp.csv" | grep -q '^format,record,name,'
	grep -q "yerrorbars" "$T/cmp.gp"
	run "$S/plot.sh" -n -o "$T/cmp" bars "$T/ipistorm-6.1" "$T/ipistorm-6.12"
	[ "$status" -eq 1 ]
	run "$S/plot.sh" -n -o "$T/bad" bars "$T/ipistorm-6.1" "$T/missing"
	[ "$status" -eq 1 ]
	[[ $output == *"compare.sh refused"* ]]
}

@test "plot: PNGs with gnuplot" {
	command -v gnuplot >/dev/null || skip "no gnuplot (apt-get install gnuplot-nox)"
	run "$S/plot.sh" hist "$T/h"
	[ "$status" -eq 0 ]
	run "$S/plot.sh" bars "$T/ipistorm-6.1" "$T/ipistorm-6.12"
	[ "$status" -eq 0 ]
	for f in "$T/h/latency-hist.png" "$T/compare-ipistorm-6.1-vs-ipistorm-6.12.png"; do
		[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '211PNG' ]
	done
}

@test "plot: usage" {
	run "$S/plot.sh" -h
	[ "$status" -eq 2 ]
	run "$S/plot.sh" pie "$T/h"
	[ "$status" -eq 2 ]
	[[ $output == *"unknown plot 'pie'"* ]]
}
