# shellcheck shell=sh
# Tests of the msgwake benchmark (the suite's own program,
# msgwake/bench.conf), sourced by scripts/selftest.sh; battery_run is
# hackbench's (hackbench/tests/hackbench.sh).

# msgwake_witness: the kernel's count of the workers' voluntary switches
# against msgwake's of their wake-ups: a wake-up is one, unless it came
# between the worker's queueing on the futex and its switch (7.3: 1 of
# 33586); so is a stale wake (one meant for an earlier wait), and a
# worker has at most two more (its start and its stop). On
# PREEMPT_RT the futex's own locks sleep too (6.1-rt: 9867 switches for
# 9840 wake-ups of 8 workers): there the switches bound the wake-ups
# alone.
msgwake_witness() {
	_mw=$(val msgwake total.wakeups)
	_ms=$(val msgwake total.workers_nvcsw)
	note "wake-ups $_mw, the workers' voluntary switches $_ms ($(val msgwake workers) workers)"
	check "$_ms >= $_mw - $_mw / 100" "the workers switched out $_ms times for $_mw wake-ups"
	case $(uname -v) in *PREEMPT_RT*) return 0 ;; esac
	check "$_ms <= $_mw + $(val msgwake total.wakes_stale) + 2 * $(val msgwake workers)" \
		"the workers switched out $_ms times for $_mw wake-ups: sleeps not counted"
}

# At a rate: every request of the schedule given (2 message threads, 100
# requests a second each, 1 s: 200), each a wake-up or a request taken
# unslept, and its percentiles; as fast as possible, the same accounting.
test_msgwake_run() {
	battery_run 1 msgwake msg=2 workers=2 rps=200 duration=1
	[ "$(val msgwake total.requests)" = 200 ] || fail "total.requests=$(val msgwake total.requests), want 200"
	check "$(val msgwake total.wakeups) + $(val msgwake total.requests_unslept) == 200" "wake-ups and unslept requests are not the requests"
	msgwake_witness
	note "at 200/s: wake-up p50 $(val msgwake total.wake_p50_ns) p99 $(val msgwake total.wake_p99_ns)" \
		"p99.9 $(val msgwake total.wake_p999_ns) ns, request p99 $(val msgwake total.req_p99_ns) ns," \
		"lateness p99 $(val msgwake total.late_p99_ns) ns, same CPU $(val msgwake total.place_same_cpu_pct) %"
	battery_run 1 msgwake msg=2 workers=4 duration=1
	check "$(val msgwake total.requests) > 0" "no request"
	msgwake_witness
}

# Where a worker ran: on one CPU, every wake-up on its waker's CPU, none
# migrated; on two, some on another.
test_msgwake_placement() {
	need_cpus 2
	_one=$(cpu 1)
	_bd=$TMP/msgwake-one
	rm -rf "$_bd"
	taskset -c "$_one" sh "$SUITE/scripts/run.sh" -n 1 -w 0 -o "$_bd" msgwake msg=1 workers=2 rps=100 duration=1 \
		>"$TMP/msgwake-one.log" 2>&1 || { sed 's/^/# /' "$TMP/msgwake-one.log"; fail "run.sh msgwake on CPU $_one failed"; }
	_f=$_bd/iter-001.txt
	[ "$(key status "$_f")" = complete ] || fail "status $(key status "$_f")"
	[ "$(key total.place_same_cpu "$_f")" = 100 ] ||
		fail "on CPU $_one alone: $(key total.place_same_cpu "$_f") of 100 on the waker's CPU"
	[ "$(key total.place_migrated "$_f")" = 0 ] || fail "on CPU $_one alone: $(key total.place_migrated "$_f") migrated"
	taskset -c "$(cpu 0),$_one" sh "$SUITE/scripts/run.sh" -n 1 -w 0 -o "$_bd-2" msgwake msg=1 workers=2 rps=0 work=200 duration=1 \
		>"$TMP/msgwake-one.log" 2>&1 || { sed 's/^/# /' "$TMP/msgwake-one.log"; fail "run.sh msgwake on two CPUs failed"; }
	_f=$_bd-2/iter-001.txt
	note "on two CPUs: same CPU $(key total.place_same_cpu_pct "$_f") %, same LLC $(key total.place_same_llc_pct "$_f") %," \
		"other LLC $(key total.place_other_llc_pct "$_f") %, migrated $(key total.place_migrated "$_f")"
	check "$(key total.place_same_llc "$_f") + $(key total.place_other_llc "$_f") > 0" \
		"two workers busy 200 us each on two CPUs, none ran off the waker's CPU"
}
