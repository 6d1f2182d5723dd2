# shellcheck shell=sh
# Tests of idle_reentry.ko, sourced by scripts/selftest.sh. Uses cpu(),
# storm() and check_lat-style helpers from ipistorm/tests/ipistorm.sh.

IR_CTL=/sys/kernel/debug/idle_reentry/control

# ir_stop: stop an until_stop measurement and keep its result in $TMP.
ir_stop() {
	echo stop >"$IR_CTL" || fail "cannot write $IR_CTL"
	cat /sys/kernel/debug/idle_reentry/result >"$TMP/idle_reentry" ||
		fail "no idle_reentry result after stop"
	unload idle_reentry
}


# The checks every result must pass.
check_ir() {
	[ "$(val idle_reentry format)" = idle_reentry/1 ] || fail "unknown result format"
	hooked=$(val idle_reentry hooked)
	for f in do_idle flush_smp_call_function_queue schedule_idle pick_; do
		case ",$hooked," in *",$f"*) ;; *) fail "$f was not hooked" ;; esac
	done
	for c in $(sed -n 's/^cpu\([0-9]*\)\.rounds=.*/\1/p' "$TMP/idle_reentry") total; do
		p=cpu$c.
		[ "$c" = total ] && p=total.
		r=$(val idle_reentry "${p}reentries")
		check "$r + $(val idle_reentry "${p}switched") <= $(val idle_reentry "${p}rounds")" \
			"$p: more re-entries and switches than idle rounds"
		w=0
		for k in wake_poll wake_ipi wake_timer wake_other; do
			w=$((w + $(val idle_reentry "$p$k")))
		done
		check "$w == $r" "$p: wake reasons sum to $w, not $r re-entries"
		check "$(val idle_reentry "${p}pick_fair") <= $r" "$p: more pick_next_task_fair re-entries than re-entries"
		[ "$c" = total ] && continue
		for h in flush sched total; do
			check_hist idle_reentry "$p$h" "$r"
		done
	done
}

# The suite's functional proof that it sees SM_IDLE: with idle=poll and a
# storm to the measured CPU, nearly every re-entry calls
# pick_next_task_fair() without SM_IDLE (6.1) and nearly none with it
# (6.12 on). The test bed says which to expect with IPISTORM_SM_IDLE.
test_idle_reentry_fast_path() {
	need_cpus 2
	cmdline_has idle=poll || skip "boot with idle=poll"
	a=$(cpu 0) t=$(cpu 1)
	unload idle_reentry
	insmod "$(ko idle_reentry)" cpulist="$t" || fail "insmod idle_reentry failed"
	storm numipi=20000 pairs="$a:$t" wait=1
	ir_stop
	check_ir
	r=$(val idle_reentry total.reentries)
	pf=$(val idle_reentry total.pick_fair_pct)
	polled=$(val ipistorm total.cb_poll)
	note "re-entries $r, polled callbacks $polled, pick_next_task_fair in $pf %," \
		"total p50 $(val idle_reentry "cpu$t.total_p50_ns") ns," \
		"p99 $(val idle_reentry "cpu$t.total_p99_ns") ns," \
		"hook $(val idle_reentry hook_ns) ns"
	# Every polled callback ends its idle round in a re-entry (several
	# queued callbacks may share one).
	check "$r >= $polled * 0.5" "$r re-entries for $polled polled callbacks"
	check "$(val idle_reentry total.wake_poll) >= $polled * 0.5" \
		"the polling wakes were not seen"
	case ${IPISTORM_SM_IDLE:-} in
	0) check "$pf >= 95" "without SM_IDLE, only $pf % of re-entries called pick_next_task_fair" ;;
	1) check "$pf <= 5" "with SM_IDLE, $pf % of re-entries still called pick_next_task_fair" ;;
	*) note "IPISTORM_SM_IDLE unset: $pf % of re-entries called pick_next_task_fair" ;;
	esac
}

# Passive: whatever an idle machine does for 2 s, with sane counts.
test_idle_reentry_passive() {
	need_cpus 2
	unload idle_reentry
	load idle_reentry cpulist="$(cat /sys/devices/system/cpu/online)" duration=2
	unload idle_reentry
	check_ir
	m=$(val idle_reentry measured_ns)
	check "$m >= 2e9 && $m < 3e9" "a 2 s measurement lasted $m ns"
	check "$(val idle_reentry total.rounds) > 0" "no idle rounds in 2 s"
	check "$(val idle_reentry hook_ns) > 0" "hook cost not measured"
	note "rounds $(val idle_reentry total.rounds), re-entries $(val idle_reentry total.reentries)," \
		"switched $(val idle_reentry total.switched), hook $(val idle_reentry hook_ns) ns"
}

test_idle_reentry_hostile_params() {
	need_cpus 2
	c=$(cpu 1)
	hostile idle_reentry 6 <<-EOF
	cpulist|duration=1
	cpulist|cpulist= duration=1
	cpulist|cpulist=abc duration=1
	cpulist|cpulist=99999 duration=1
	duration|cpulist=$c duration=100000
	duration|cpulist=$c duration=-1
	EOF
}

# rmmod while a storm hits the measured CPU: every hook is gone before the
# state is freed, so nothing may fire into freed memory.
test_idle_reentry_unload_during_storm() {
	need_cpus 2
	a=$(cpu 0) t=$(cpu 1)
	unload idle_reentry
	unload ipistorm
	i=0
	while [ $i -lt 3 ]; do
		insmod "$(ko idle_reentry)" cpulist="$t" || fail "insmod idle_reentry failed"
		insmod "$(ko ipistorm)" timeout=3 pairs="$a:$t" &
		pid=$!
		sleep 1
		rmmod idle_reentry || fail "rmmod during a storm failed"
		wait "$pid" || fail "the storm failed"
		rmmod ipistorm
		i=$((i + 1))
	done
	! loaded idle_reentry || fail "still loaded"
}

# A signal to insmod ends a timed measurement at once.
test_idle_reentry_interrupt() {
	need_cpus 2
	interrupted idle_reentry - cpulist="$(cpu 1)" duration=60
}
