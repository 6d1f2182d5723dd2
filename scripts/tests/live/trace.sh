# shellcheck shell=sh
# trace.sh on the running kernel, sourced by scripts/selftest.sh (the bats
# tests cover its options and summary on recorded text): around a storm it
# must record how every call reached the target.

# trace_storm: a traced 2000-call storm from the first CPU to the next; the
# summary in $TMP/trace/summary.txt, the result in $TMP/ipistorm.
trace_storm() {
	need_cpus 2
	command -v bash >/dev/null || skip "no bash"
	command -v trace-cmd >/dev/null || skip "no trace-cmd"
	unload ipistorm
	rm -rf "$TMP/trace"
	if ! bash "$SUITE/scripts/trace.sh" -o "$TMP/trace" -- \
		insmod "$(ko ipistorm)" numipi=2000 single=1 wait=1 \
		cpulist="$(cpu 0)" offset=1 >"$TMP/trace.out" 2>&1; then
		sed 's/^/# /' "$TMP/trace.out"
		fail "trace.sh failed"
	fi
	cat /sys/kernel/debug/ipistorm/result >"$TMP/ipistorm"
	unload ipistorm
}

# tr_count EVENT CPU: the summary's count of EVENT on CPU (0 when absent).
tr_count() {
	awk -v e="$1" -v c="cpu$2" '
		NR == 1 { for (i = 2; i <= NF; i++) col[$i] = i; next }
		$1 == e && (c in col) { n = $col[c] } END { print n + 0 }' \
		"$TMP/trace/summary.txt"
}

# Every call the idle task picked up by polling was sent as a
# sched_wake_idle_without_ipi on the sender, every other one as a real IPI
# taken on the target.
test_trace_storm() {
	trace_storm
	s=$(cpu 0) t=$(($(cpu 0) + 1))
	poll=$(val ipistorm total.cb_poll) irq=$(val ipistorm total.cb_irq)
	wake=$(tr_count sched_wake_idle_without_ipi "$s")
	cfs=$(tr_count call_function_single_entry "$t")
	note "callbacks poll $poll irq $irq; events: wake_idle_without_ipi $wake on cpu$s, call_function_single_entry $cfs on cpu$t"
	check "$wake >= $poll && $wake <= $poll * 1.1 + 20" \
		"$wake wake_idle_without_ipi events for $poll polled callbacks"
	check "$cfs >= $irq && $cfs <= $irq * 1.1 + 20" \
		"$cfs call-function IPIs taken for $irq callbacks in hard IRQ"
}
