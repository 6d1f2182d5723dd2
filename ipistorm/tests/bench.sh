# shellcheck shell=sh
# Benchmarks of ipistorm.ko, run by `scripts/selftest.sh -b` (vm/bench.sh
# runs them under instruction counting, where a run repeats to ~0.1 %).

# bare N A B: runtime in ns of a bare loop of N waited calls from A to B.
bare() {
	mark=$(dmesg_mark)
	insmod "$MODDIR/ipistorm/ipistorm_bare.ko" numipi="$1" cpu="$2" target="$3" ||
		fail "ipistorm_bare did not run"
	rmmod ipistorm_bare
	dmesg_since "$mark" | sed -n 's/.*ipistorm_bare: runtime_ns=\([0-9]*\) .*/\1/p' |
		tail -n 1 | grep . || fail "ipistorm_bare printed no runtime"
}

# ipistorm's runtime against a bare smp_call_function_single() loop: with
# per-call timing and the sender-side witness, with timing alone (the
# default), with neither, and with timing and the idle state of each call
# (idle_states=1, whose probe runs at every idle entry and exit); three
# interleaved rounds, medians.
bench_ipistorm_overhead() {
	need_cpus 2
	a=$(cpu 0) b=$(cpu 1) n=${IPISTORM_BENCH_NUMIPI:-20000}
	bare "$n" "$a" "$b" >/dev/null
	storm numipi="$n" pairs="$a:$b" timing=0 witness=0
	rb="" rw="" rt="" ru="" ri=""
	for _ in 1 2 3; do
		rb="$rb $(bare "$n" "$a" "$b")"
		storm numipi="$n" pairs="$a:$b" timing=1 witness=1
		rw="$rw $(val ipistorm runtime_ns)"
		storm numipi="$n" pairs="$a:$b" timing=1 witness=0
		rt="$rt $(val ipistorm runtime_ns)"
		storm numipi="$n" pairs="$a:$b" timing=0 witness=0
		ru="$ru $(val ipistorm runtime_ns)"
		storm numipi="$n" pairs="$a:$b" timing=1 idle_states=1
		ri="$ri $(val ipistorm runtime_ns)"
	done
	# shellcheck disable=SC2086 # three numbers each
	mb=$(median3 $rb) mw=$(median3 $rw) mt=$(median3 $rt) mu=$(median3 $ru) \
		mi=$(median3 $ri)
	note "runs (ns): bare$rb; timing=1 witness=1$rw; timing=1$rt; timing=0$ru; idle_states=1$ri"
	awk -v k="$(uname -r)" -v n="$n" -v c="$(val ipistorm clock)" -v b="$mb" \
		-v w="$mw" -v t="$mt" -v u="$mu" -v i="$mi" 'BEGIN {
		printf "bench kernel=%s numipi=%d clock=%s bare_ns_per_ipi=%.1f", k, n, c, b / n
		printf " witness1_ns_per_ipi=%.1f timing1_ns_per_ipi=%.1f timing0_ns_per_ipi=%.1f",
			w / n, t / n, u / n
		printf " idle1_ns_per_ipi=%.1f", i / n
		printf " ratio_witness1=%.4f ratio_timing1=%.4f ratio_timing0=%.4f ratio_idle1=%.4f\n",
			w / b, t / b, u / b, i / b }'
	check "$mb > 0 && $mw > 0 && $mt > 0 && $mu > 0 && $mi > 0" "a run reported no time"
}
