# shellcheck shell=sh
# Benchmarks of wakeup.ko, run by `scripts/selftest.sh -b` (vm/bench.sh
# runs them under instruction counting, where a run repeats to ~0.1 %).
# Uses wake() from wakeup/tests/wakeup.sh, and selftest.sh's helpers.

# wk_bare N A B: runtime in ns of the bare wake loop, N wake-ups of a task
# on B from A.
wk_bare() {
	mark=$(dmesg_mark)
	insmod "$MODDIR/wakeup/wakeup_bare.ko" numwake="$1" cpu="$2" target="$3" ||
		fail "wakeup_bare did not run"
	rmmod wakeup_bare
	dmesg_since "$mark" | sed -n 's/.*wakeup_bare: runtime_ns=\([0-9]*\) .*/\1/p' |
		tail -n 1 | grep . || fail "wakeup_bare printed no runtime"
}

# wakeup's runtime against the bare wake loop, timed (probes, clock reads,
# histograms) and untimed (timing=0: no probe); three interleaved rounds,
# medians. The target is a timed ratio of at most 1.08: 1.04 before the
# split by idle state, whose tracepoint fires twice a wake-up on the
# target, 1.06 before the interrupt counts of spans_interrupted, three
# reads of a CPU's counts a wake-up, outside the span (6.12 under
# instruction counting: 5534, 5632, then 5731 ns a wake-up).
bench_wakeup_overhead() {
	need_cpus 2
	a=$(cpu 0) b=$(cpu 1) n=${WAKEUP_BENCH_NUMWAKE:-20000}
	wk_bare "$n" "$a" "$b" >/dev/null
	wake numwake="$n" pairs="$a:$b" timing=0
	rb="" rt="" ru=""
	for _ in 1 2 3; do
		rb="$rb $(wk_bare "$n" "$a" "$b")"
		wake numwake="$n" pairs="$a:$b" timing=1
		rt="$rt $(val wakeup runtime_ns)"
		split=$(wk_split)
		cost=$(val wakeup total.probe_cost_ns)
		wake numwake="$n" pairs="$a:$b" timing=0
		ru="$ru $(val wakeup runtime_ns)"
	done
	# shellcheck disable=SC2086 # three numbers each
	mb=$(median3 $rb) mt=$(median3 $rt) mu=$(median3 $ru)
	note "runs (ns): bare$rb; timing=1$rt; timing=0$ru"
	note "timing=1 paths:$split; probe cost $cost ns a wake-up"
	awk -v k="$(uname -r)" -v n="$n" -v c="$(val wakeup clock)" -v b="$mb" \
		-v t="$mt" -v u="$mu" 'BEGIN {
		printf "bench kernel=%s numwake=%d clock=%s bare_ns_per_wakeup=%.1f", k, n, c, b / n
		printf " timing1_ns_per_wakeup=%.1f timing0_ns_per_wakeup=%.1f", t / n, u / n
		printf " ratio_timing1=%.4f ratio_timing0=%.4f\n", t / b, u / b }'
	check "$mb > 0 && $mt > 0 && $mu > 0" "a run reported no time"
}
