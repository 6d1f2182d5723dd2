#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
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
	# 36 calls: share in the bucket or above
	[ "$(grep -v '^#' "$T/h/latency-hist.dat")" = "96 2 1
1024 20 0.944444444
1088 10 0.388888889
131072 4 0.111111111" ]
	grep -q "set logscale x" "$T/h/latency-hist.gp"
	grep -q "plot '$T/h/latency-hist.dat' index 0 using 1:3 with steps" "$T/h/latency-hist.gp"
	[ ! -e "$T/h/latency-hist.png" ]
	run "$S/plot.sh" -n hist "$T/h"
	[ "$status" -eq 1 ]
	[[ $output == *"exists: refusing to overwrite"* ]]
}

# Several directories share one set of axes, one legend entry per kernel,
# and the title names the quantity and its unit once.
@test "plot: hist of several directories on one set of axes" {
	cp -r "$F/idle_reentry-6.1" "$F/idle_reentry-6.12" "$T/"
	cp -r "$T/ipistorm-6.12" "$T/rebuild"
	while IFS='|' read -r dirs title legend; do
		rm -f "$T/p".*
		# shellcheck disable=SC2086 # directories without blanks
		run "$S/plot.sh" -n -o "$T/p" hist $dirs
		[ "$status" -eq 0 ]
		[ "$(grep -c ' index [0-9] using 1:3 with steps' "$T/p.gp")" -eq "$(wc -w <<<"$dirs")" ]
		grep -qxF "set title \"$title\"" "$T/p.gp" || { grep title "$T/p.gp"; false; }
		[ "$(grep -v '^set title' "$T/p.gp" | grep -o 'title "[^"]*"' | tr '\n' '|')" = "$legend" ]
		run ! grep -qi "lat latency" "$T/p.gp"
		grep -qx "set logscale x" "$T/p.gp"
		grep -qx "set logscale y" "$T/p.gp"
	done <<-EOF
	$T/ipistorm-6.1 $T/ipistorm-6.12|ipistorm call latency (ns), tail distribution over all runs|title "6.1.0-50-amd64"|title "6.12.95+deb12-amd64"|
	$T/idle_reentry-6.12 $T/idle_reentry-6.1|idle re-entry time (ns), tail distribution over all runs|title "6.12.95+deb12-amd64"|title "6.1.0-50-amd64"|
	$T/ipistorm-6.12 $T/rebuild|ipistorm call latency (ns), tail distribution over all runs|title "6.12.95+deb12-amd64 (ipistorm-6.12)"|title "6.12.95+deb12-amd64 (rebuild)"|
	EOF
	# by default beside the first directory
	run "$S/plot.sh" -n hist "$T/ipistorm-6.1" "$T/ipistorm-6.12"
	[ "$output" = "$T/hist-ipistorm-6.1-vs-ipistorm-6.12.gp" ]
	run "$S/plot.sh" -n hist "$T/ipistorm-6.1" "$T/idle_reentry-6.1"
	[ "$status" -eq 1 ]
	[[ $output == *"bench 'idle_reentry', not ipistorm"* ]]
}

@test "plot: nohz_csd kick delays, every balance counted once, higher is better" {
	cp -r "$F/nohz_csd-6.1" "$F/nohz_csd-6.12" "$T/"
	run "$S/plot.sh" -n hist "$T/nohz_csd-6.1"
	[ "$status" -eq 0 ]
	n=$(cat "$T"/nohz_csd-6.1/iter-*.txt | awk -F= '$1 ~ /^cpu[0-9]+\.delay_n$/ { s += $2 } END { print s }')
	[ "$n" -gt 0 ]
	[ "$(awk '!/^#/ && NF { s += $2 } END { print s }' "$T/nohz_csd-6.1/latency-hist.dat")" -eq "$n" ]
	run "$S/plot.sh" -n -o "$T/nc" bars "$T/nohz_csd-6.1" "$T/nohz_csd-6.12"
	[ "$status" -eq 0 ]
	grep -q 'set ylabel "mean / baseline mean (higher is better)"' "$T/nc.gp"
	grep -q 'set title "kicks that ended in a nohz idle balance (count), normalized' "$T/nc.gp"
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
	[ "$(cat "$T/cmp.dat")" = '0 "6.1.0-50-amd64" 1.000000 0.001111 "baseline"
1 "6.12.95+deb12-amd64" 0.879093 0.000290 "+12.09% *"' ]
	head -n 1 "$T/cmp.csv" | grep -q '^format,record,name,'
	grep -q "yerrorbars" "$T/cmp.gp"
	grep -qF 'set title "storm runtime (ns), normalized to the baseline\nbars: mean, error bars: stddev, *: significant (compare.sh)"' "$T/cmp.gp"
	run "$S/plot.sh" -n -o "$T/cmp" bars "$T/ipistorm-6.1" "$T/ipistorm-6.12"
	[ "$status" -eq 1 ]
	run "$S/plot.sh" -n -o "$T/bad" bars "$T/ipistorm-6.1" "$T/missing"
	[ "$status" -eq 1 ]
	[[ $output == *"compare.sh refused"* ]]
}

@test "plot: bars of one run have no error bar, a zero baseline plots absolute means" {
	mkdir "$T/one"
	cp "$T/ipistorm-6.12/meta.txt" "$T/ipistorm-6.12/iter-001.txt" "$T/one/"
	sed -i 's/^iterations=.*/iterations=1/' "$T/one/meta.txt"
	run "$S/plot.sh" -n -o "$T/one-bars" bars "$T/ipistorm-6.1" "$T/one"
	[ "$status" -eq 0 ]
	[ "$(sed -n 2p "$T/one-bars.dat")" = '1 "6.12.95+deb12-amd64" 0.878874 NaN "+12.11%, n/a: 1 run"' ]
	cp -r "$F/nohz_csd-6.1" "$F/nohz_csd-6.12" "$T/"
	sed -i 's/^total.balanced=.*/total.balanced=0/' "$T"/nohz_csd-6.1/iter-*.txt
	run "$S/plot.sh" -n -o "$T/zero" bars "$T/nohz_csd-6.1" "$T/nohz_csd-6.12"
	[ "$status" -eq 0 ]
	[ "$(sed -n 2p "$T/zero.dat")" = '1 "6.12.95+deb12-amd64" 49.0000 7.3824 "+49.00 abs *"' ]
	grep -q 'the baseline mean is 0' "$T/zero.gp"
}

@test "plot: PNGs with gnuplot" {
	command -v gnuplot >/dev/null || skip "no gnuplot (apt-get install gnuplot-nox)"
	run "$S/plot.sh" hist "$T/h"
	[ "$status" -eq 0 ]
	run "$S/plot.sh" hist "$T/ipistorm-6.1" "$T/ipistorm-6.12"
	[ "$status" -eq 0 ]
	run "$S/plot.sh" bars "$T/ipistorm-6.1" "$T/ipistorm-6.12"
	[ "$status" -eq 0 ]
	run "$S/plot.sh" tail "$T/ipistorm-6.1" "$T/ipistorm-6.12"
	[ "$status" -eq 0 ]
	for f in "$T/h/latency-hist.png" "$T/hist-ipistorm-6.1-vs-ipistorm-6.12.png" "$T/compare-ipistorm-6.1-vs-ipistorm-6.12.png" \
		"$T/tail-ipistorm-6.1-vs-ipistorm-6.12.png"; do
		[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '211PNG' ]
	done
}

@test "plot: usage" {
	run "$S/plot.sh" -h
	[ "$status" -eq 0 ]
	run "$S/plot.sh" pie "$T/h"
	[ "$status" -eq 2 ]
	[[ $output == *"unknown plot 'pie'"* ]]
}

# Every run of each directory: the published SM_IDLE runtimes (10 runs a
# side; fixtures/README), one row per kernel, medians and means as R has
# them (median() and mean() of the same numbers).
@test "plot: runs draws every run of each directory on one axis" {
	cp -r "$F/sm_idle-published/without" "$F/sm_idle-published/with" "$T/"
	run "$S/plot.sh" -n runs "$T/without" "$T/with"
	[ "$status" -eq 0 ]
	[ "$output" = "$T/runs-without-vs-with.gp" ]
	d=$T/runs-without-vs-with.dat
	# 20 runs, each once, with its row
	[ "$(awk 'NF == 0 { exit } !/^#/' "$d" | wc -l)" -eq 20 ]
	[ "$(awk 'NF == 0 { exit } !/^#/ && $1 == 0' "$d" | awk '{ print $2 }' | sort -n | tr '\n' ' ')" = \
		"113086433 158490995 302454894 399824606 677283357 729767478 731262790 737869191 743681976 830949261 " ]
	grep -qx '0 703525417.5 542467098.1' "$d"
	grep -qx '1 147670677 142852063.7' "$d"
	grep -q 'set ytics ("without-SM_IDLE" 0, "with-SM_IDLE" 1)' "$T/runs-without-vs-with.gp"
	grep -q 'storm runtime (ns), lower is better: every run' "$T/runs-without-vs-with.gp"
	# -m another metric, refused where a run lacks it; never overwrites
	run "$S/plot.sh" -n -o "$T/p99" -m total.lat_p99_ns runs "$T/ipistorm-6.1" "$T/ipistorm-6.12"
	[ "$status" -eq 0 ]
	[ "$(awk 'NF == 0 { exit } !/^#/' "$T/p99.dat" | wc -l)" -eq 10 ]
	run "$S/plot.sh" -n -o "$T/none" -m total.nothing runs "$T/ipistorm-6.1"
	[ "$status" -eq 1 ]
	[[ $output == *"no number for total.nothing"* ]]
	run "$S/plot.sh" -n runs "$T/without" "$T/with"
	[ "$status" -eq 1 ]
	[[ $output == *"exists: refusing to overwrite"* ]]
	run "$S/plot.sh" -n -m 'a b' runs "$T/without"
	[ "$status" -eq 2 ]
	if command -v gnuplot >/dev/null; then
		run "$S/plot.sh" -o "$T/png" runs "$T/without" "$T/with"
		[ "$status" -eq 0 ]
		[ "$(head -c 4 "$T/png.png" | od -An -c | tr -d ' ')" = '211PNG' ]
	fi
}

# A directory's name is a label of the plot and the prefix a file name of
# the gnuplot input: a newline in either ended a gnuplot command and made
# the rest of the line one of its own.
@test "plot: a newline or control character in a DIR or -o is refused, exit 2" {
	d="$T/x
set output 'elsewhere'"
	cp -r "$T/h" "$d"
	for what in hist runs tail; do
		run "$S/plot.sh" -n "$what" "$T/h" "$d"
		[ "$status" -eq 2 ] || { echo "$what: exit $status: $output"; false; }
		[[ ${lines[0]} == "plot.sh: DIR: '$T/x\\nset output 'elsewhere'' holds a newline" ]] || { echo "$output"; false; }
	done
	run "$S/plot.sh" -n -o "$(printf '%s/p\033[1m' "$T")" hist "$T/h"
	[ "$status" -eq 2 ]
	[[ ${lines[0]} == "plot.sh: -o: '$T/p\\x1b[1m' holds a control character" ]] || { echo "$output"; false; }
	[ -z "$(find "$T" -name '*.gp')" ]
}

# The percentile tail: the mean over the runs that have it of each key at
# each percentile, on the nines axis (-log10(1 - p)); 995 is 99.5, a
# percentile no run has is not drawn, a key outside the list is ignored.
@test "plot: tail, the mean of each percentile over the runs on a nines axis" {
	cp -r "$F/tail" "$T/"
	run "$S/plot.sh" -n tail "$T/tail"
	[ "$status" -eq 0 ]
	[ "$output" = "$T/tail/tail.gp" ]
	[ "$(grep -v '^#' "$T/tail/tail.dat")" = "50 0.301030 1100 2
75 0.602060 1200 2
95 1.301030 1500 1
99 2.000000 5000 2
99.5 2.301030 10000 2
99.9 3.000000 50000 2" ]
	grep -qxF 'set xtics ("50" 0.301030, "75" 0.602060, "95" 1.301030, "99" 2.000000, "99.5" 2.301030, "99.9" 3.000000)' "$T/tail/tail.gp"
	grep -qxF 'set title "ipistorm call latency (ns), percentile tail, mean over all runs"' "$T/tail/tail.gp"
	grep -qx 'set logscale y' "$T/tail/tail.gp"
	grep -qF "plot '$T/tail/tail.dat' index 0 using 2:3 with linespoints lw 2 title \"made-up\"" "$T/tail/tail.gp"
	[ ! -e "$T/tail/tail.png" ]
	run "$S/plot.sh" -n tail "$T/tail"
	[ "$status" -eq 1 ]
	[[ $output == *"exists: refusing to overwrite"* ]]
}

# A line per key pattern and directory, one legend entry each; the
# means are those of the fixtures' iterations.
@test "plot: tail of several directories and patterns" {
	cp -r "$F/idle_reentry-6.1" "$F/idle_reentry-6.12" "$T/"
	run "$S/plot.sh" -n -o "$T/ir" tail "$T/idle_reentry-6.1" "$T/idle_reentry-6.12"
	[ "$status" -eq 0 ]
	[ "$(grep -c ' using 2:3 with linespoints' "$T/ir.gp")" -eq 6 ]
	[ "$(grep -v '^set title' "$T/ir.gp" | grep -o 'title "[^"]*"' | tr '\n' '|')" = 'title "6.1.0-50-amd64: total.total_p%_ns"|title "6.1.0-50-amd64: total.sched_p%_ns"|title "6.1.0-50-amd64: total.flush_p%_ns"|title "6.12.95+deb12-amd64: total.total_p%_ns"|title "6.12.95+deb12-amd64: total.sched_p%_ns"|title "6.12.95+deb12-amd64: total.flush_p%_ns"|' ]
	# block 4 (6.12's sched): the mean of total.sched_p99_ns over its runs
	want=$(cat "$T"/idle_reentry-6.12/iter-*.txt | awk -F= '$1 == "total.sched_p99_ns" { s += $2; n++ } END { printf "%.10g %d", s / n, n }')
	[ "$(awk -v RS= 'NR == 5' "$T/ir.dat" | awk '$1 == 99 { print $3, $4 }')" = "$want" ]
	# by default beside the first directory; another bench is refused
	run "$S/plot.sh" -n tail "$T/idle_reentry-6.1" "$T/idle_reentry-6.12"
	[ "$output" = "$T/tail-idle_reentry-6.1-vs-idle_reentry-6.12.gp" ]
	run "$S/plot.sh" -n tail "$T/idle_reentry-6.1" "$T/ipistorm-6.1"
	[ "$status" -eq 1 ]
	[[ $output == *"bench 'ipistorm', not idle_reentry"* ]]
}

# A bench without a declared tail, or results without its keys: one
# message, exit 1, nothing written.
@test "plot: tail refuses a bench with an empty tail= and results without its keys" {
	mkdir -p "$T/t/scripts" "$T/t/ipistorm"
	cp "$S"/*.sh "$S"/*.awk "$T/t/scripts/"
	sed 's/^tail=.*/tail=/; s/^tail_label=.*/tail_label=/' "$S/../ipistorm/bench.conf" >"$T/t/ipistorm/bench.conf"
	run "$T/t/scripts/plot.sh" -n tail "$T/ipistorm-6.1"
	[ "$status" -eq 1 ]
	[ "$output" = "plot.sh: ipistorm declares no percentile tail (tail= of ipistorm/bench.conf is empty): nothing to plot" ]
	[ -z "$(find "$T/ipistorm-6.1" -name 'tail*')" ]
	mkdir "$T/notail"
	for f in "$T"/ipistorm-6.1/*; do
		grep -v '^total\.lat_p' "$f" >"$T/notail/${f##*/}"
	done
	run "$S/plot.sh" -n tail "$T/notail"
	[ "$status" -eq 1 ]
	[[ $output == *"$T/notail: no total.lat_p<percentile>_ns in its results (percentiles 50 75 90 95 99 995 999)"* ]]
	[ -z "$(find "$T/notail" -name 'tail*')" ]
}

# The pivot of sweeps: a block of bars per other sweep, at its place in
# each cell's group, with pivot.sh's gain and mark; the cells as tics.
@test "plot: pivot of three sweeps, from pivot.sh's CSV" {
	# shellcheck source=fixtures/mksweep.bash
	. "$F/mksweep.bash"
	cd "$T" || return
	mksweep a 6.1 llc:0:1:100,101,102,103,104 cross-socket:0:2:200,201,202,203,204
	mksweep b 6.12 llc:0:1:88,89,90,91,92 cross-socket:0:2:200,201,202,203,204
	mksweep c 7.3 llc:0:1:100,101,102,103,104 cross-socket:0:2:300,301,302,303,304
	run "$S/plot.sh" -n pivot a b c
	[ "$status" -eq 0 ]
	[ "$output" = ./pivot-a-vs-c.gp ]
	[ "$(grep -v '^#' pivot-a-vs-c.dat | grep .)" = '-0.2000 0.882353 0.015501 "+11.76% *" "class=llc"
0.8000 1.000000 0.007827 "+0.00%" "class=cross-socket"
0.2000 1.000000 0.015501 "+0.00%" "class=llc"
1.2000 1.495050 0.007828 "-49.51% *" "class=cross-socket"' ]
	grep -qxF 'set xtics rotate by 25 right ("class=llc" 0, "class=cross-socket" 1)' pivot-a-vs-c.gp
	grep -qF "'' index 1 using 1:(\$2 + \$3):4 with labels" pivot-a-vs-c.gp
	grep -qF 'title "6.12"' pivot-a-vs-c.gp
	grep -qF 'set title "storm runtime (ns), mean per cell normalized to 6.1\nipistorm numipi=20000 wait=1, sweep.sh cells' pivot-a-vs-c.gp
	head -n 1 pivot-a-vs-c.csv | grep -q '^format,record,cell,'
	# refused sweeps: one message, exit 1
	sed -i 's/^params=.*/params=numipi=1/' c/sweep.txt
	run "$S/plot.sh" -n -o bad pivot a c
	[ "$status" -eq 1 ]
	[ "$output" = "plot.sh: pivot.sh refused the sweeps (run it for why)" ]
	command -v gnuplot >/dev/null || skip "no gnuplot (apt-get install gnuplot-nox)"
	run "$S/plot.sh" -o png pivot a b
	[ "$status" -eq 0 ]
	[ "$(head -c 4 png.png | tail -c 3)" = PNG ]
}
