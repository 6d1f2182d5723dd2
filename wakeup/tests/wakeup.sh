# shellcheck shell=sh
# Tests of wakeup.ko, sourced by scripts/selftest.sh (whose helpers,
# cpu() and uptime_cs() among them, they use).

WK_CTL=/sys/kernel/debug/wakeup/control
WK_RESULT=/sys/kernel/debug/wakeup/result
WK_FEAT=/sys/kernel/debug/sched/features
WK_PATHS="wl_poll wl_ipi rq_poll rq_ipi busy"
WK_PCTS="p50 p75 p90 p95 p99 p995 p999"

# wake PARAMS...: a counted run that must load, its result in $TMP/wakeup.
wake() {
	unload wakeup
	load wakeup "$@"
	unload wakeup
}

# The checks every finished run must pass: every wake-up sent woke the
# wakee (woken == sent) and, timed, sits in exactly one path (the paths
# add up to the total, none unclassified), per sender and in total.
# shellcheck disable=SC2154 # vals sets the variables
check_wake() {
	[ "$(val wakeup format)" = wakeup/4 ] || fail "unknown result format"
	_n=$(val wakeup senders)
	_i=0 _sum=0
	while [ "$_i" -lt "$_n" ]; do
		_p=sender$_i
		vals wakeup "$_p." _sent=sent _woken=woken
		check "$_woken == $_sent" "$_p: $_woken woken of $_sent sent"
		_sum=$((_sum + _sent))
		if [ "$(val wakeup timing)" = 1 ]; then
			check "$(val wakeup "$_p.unclassified") == 0" "$_p: unclassified wake-ups"
			# One clock (the test bed's single TSC): none backwards.
			check "$(val wakeup "$_p.clock_backwards") == 0" "$_p: wake-ups timed backwards"
			_ps=0
			for _q in $WK_PATHS; do
				_ps=$((_ps + $(val wakeup "$_p.$_q.wakeups")))
			done
			check "$_ps == $_woken" "$_p: the paths hold $_ps wake-ups, $_woken woken"
			_si=$(val wakeup "$_p.spans_interrupted")
			check "$_si <= $_woken" "$_p: $_si spans interrupted of $_woken"
			check_hist wakeup "$_p.lat" "$_woken"
			check_skew "$_p"
		fi
		_i=$((_i + 1))
	done
	check "$(val wakeup total.sent) == $_sum" "total.sent is not the sum"
	check "$(val wakeup total.woken) == $(val wakeup total.sent)" "total: woken != sent"
	[ "$(val wakeup timing)" = 1 ] || return 0
	check "$(val wakeup total.unclassified) == 0" "unclassified wake-ups"
	check "$(val wakeup total.clock_backwards) == 0" "wake-ups timed backwards"
	_t=$(val wakeup total.wakeups)
	check "$_t == $(val wakeup total.woken)" "total.wakeups is not total.woken"
	_ps=0 _sh=0 _si=0
	for _q in $WK_PATHS; do
		_c=$(val wakeup "$_q.wakeups")
		_ps=$((_ps + _c))
		_i=$(val wakeup "$_q.spans_interrupted")
		_si=$((_si + _i))
		check "$_i <= $_c" "$_q: $_i spans interrupted of $_c"
		_sh=$(awk -v a="$_sh" -v b="$(val wakeup "$_q.share_pct")" 'BEGIN { print a + b }')
		[ "$_c" -gt 0 ] || continue
		_prev=$(val wakeup "$_q.lat_min_ns")
		for _k in $WK_PCTS max; do
			_v=$(val wakeup "$_q.lat_${_k}_ns")
			check "$_v >= $_prev" "$_q: lat_$_k ($_v) below the previous ($_prev)"
			_prev=$_v
		done
	done
	check "$_ps == $_t" "the paths hold $_ps wake-ups, total $_t"
	check "$_si == $(val wakeup total.spans_interrupted)" "the paths hold $_si interrupted spans, total $(val wakeup total.spans_interrupted)"
	[ "$_t" = 0 ] || check "$_sh >= 99.7 && $_sh <= 100.3" "the shares add up to $_sh %"
	if grep -q '^proof\..*=unproven$' "$TMP/wakeup"; then
		fail "unproven probes: $(grep '^proof\.' "$TMP/wakeup" | tr '\n' ' ')"
	fi
	case $(val wakeup status) in
	complete | stopped | errors) ;;
	unproven) wk_skew_excused || fail "status=unproven" ;;
	*) fail "status=$(val wakeup status)" ;;
	esac
}

# wk_skew_excused: whether an unproven status is the clock skew's alone
# on a boot of many vCPUs. TCG runs them in turn, in their order: a pair's
# wake-up goes to the next vCPU, but the skew exchange's way back passes
# every other one, tens of microseconds at 64 vCPUs, and the module rightly
# cannot bound the skew below its limit there.
wk_skew_excused() {
	[ "$(ncpus)" -gt 8 ] && [ "$(val wakeup total.clock_skew_over)" -gt 0 ] &&
		[ "$(val wakeup total.clock_backwards)" = 0 ] &&
		! grep -q '^proof\..*=unproven$' "$TMP/wakeup" || return 1
	note "unproven by the clock skew alone on $(ncpus) vCPUs (round robin): $(val wakeup total.clock_skew_over) pairs over the limit, bound up to $(val wakeup total.clock_skew_max_ns) ns"
}

# check_skew PREFIX: sender PREFIX's clock skew. rpc=0 bounds it before
# the run: every round answered (the test bed's vCPUs hand the line over
# at once), and the offset, 0 under the test bed's one TSC, inside the
# bound; the module's verdict (above its limit's share of the pair's
# fastest wake-up) agrees with its own figures. rpc=1 reads one CPU.
# shellcheck disable=SC2154 # vals sets the variables
check_skew() {
	if [ "$(val wakeup rpc)" = 1 ]; then
		[ "$(val wakeup clock_reads)" = one_cpu ] || fail "rpc=1: clock_reads=$(val wakeup clock_reads)"
		! has wakeup "$1.clock_skew_rounds" || fail "rpc=1: $1 has a clock skew"
		return 0
	fi
	[ "$(val wakeup clock_reads)" = two_cpus ] || fail "rpc=0: clock_reads=$(val wakeup clock_reads)"
	vals wakeup "$1." _r=clock_skew_rounds _b=clock_skew_bounded _o=clock_skew_over
	check "$_r == 64 && $_b == 1" "$1: $_r rounds of 64 answered, bounded=$_b"
	vals wakeup "$1." _lo=clock_offset_lo_ns _hi=clock_offset_hi_ns _sk=clock_skew_ns
	check "$_lo <= 0 && $_hi >= 0" "$1: one TSC, and its offset is in [$_lo, $_hi] ns, not 0"
	check "$_sk == ($_hi > -($_lo) ? $_hi : -($_lo))" "$1: clock_skew_ns $_sk is not the larger end of [$_lo, $_hi]"
	has wakeup "$1.clock_skew_pct_of_lat_min" || return 0
	_pct=$(val wakeup "$1.clock_skew_pct_of_lat_min")
	_lim=$(val wakeup clock_skew_limit_pct)
	check "$_o == ($_pct > $_lim)" "$1: clock_skew_over=$_o with the skew $_pct % of its fastest wake-up (limit $_lim %)"
}

# wk_split: the path split of the last run, as a note line.
wk_split() {
	_s=""
	for _q in $WK_PATHS; do
		_s="$_s $_q=$(val wakeup "$_q.wakeups")"
	done
	echo "$_s p50=$(val wakeup total.lat_p50_ns) p99=$(val wakeup total.lat_p99_ns)"
}

# wk_main_path: the path holding most wake-ups.
wk_main_path() {
	for _q in $WK_PATHS; do
		echo "$(val wakeup "$_q.wakeups") $_q"
	done | sort -n | tail -n 1 | cut -d' ' -f2
}

# wk_halting: whether idle CPUs halt (no idle=poll, no cpuidle driver that
# may pick a polling state).
wk_halting() {
	! cmdline_has idle=poll &&
		[ "$(cpuidle_driver)" = none ]
}

# wk_queue: the prefix of the paths a wake-up of an idle CPU takes: wl
# with the scheduler feature TTWU_QUEUE on, rq without it (PREEMPT_RT
# kernels have it off by default: the waker enqueues the wakee itself).
wk_queue() {
	if [ -r "$WK_FEAT" ]; then
		grep -qw TTWU_QUEUE "$WK_FEAT" && echo wl || echo rq
	else
		case $(uname -v) in *PREEMPT_RT*) echo rq ;; *) echo wl ;; esac
	fi
}

# wk_expect PATHS...: most wake-ups took one of PATHS.
wk_expect() {
	_m=$(wk_main_path)
	for _w in "$@"; do
		[ "$_m" != "$_w" ] || return 0
	done
	fail "most wake-ups took $_m, not $*:$(wk_split)"
}

# Exact accounting: two pairs, every wake-up woke its task and is in one
# path, counted per sender and in total.
test_wakeup_accounting() {
	need_cpus 4
	wake numwake=5000 pairs="$(cpu 0):$(cpu 1),$(cpu 2):$(cpu 3)"
	check_wake
	[ "$(val wakeup status)" = complete ] || fail "status=$(val wakeup status)"
	check "$(val wakeup total.sent) == 10000" "not 2 x 5000 wake-ups"
	note "2 pairs:$(wk_split)"
}

# The path under the boot's idle: halting, a real IPI; polling, none.
# Each kernel of the test bed (Debian's 6.1 too) queues a wake-up of an
# idle CPU sharing the waker's LLC on its wake list, but with TTWU_QUEUE
# off (PREEMPT_RT's default), where the waker enqueues it remotely.
test_wakeup_path_split() {
	need_cpus 2
	wake numwake=20000 cpulist="$(cpu 0)"
	check_wake
	q=$(wk_queue)
	note "$(uname -r):$(wk_split); probe cost $(val wakeup total.probe_cost_ns) ns," \
		"$(val wakeup total.probe_hits_per_wakeup) hits a wake-up; expected path ${q}_*"
	if wk_halting; then
		wk_expect "${q}_ipi"
	elif cmdline_has idle=poll; then
		wk_expect "${q}_poll"
	else
		note "a cpuidle driver picks the idle state: no path expected"
	fi
}

# wk_states SCOPE: SCOPE's split by idle state, "state=count/p50 ...", and
# checks that the states hold the scope's wake-ups, no more, no fewer.
wk_states() {
	_all=$(val wakeup "$1.wakeups")
	_st="" _sum=0
	_ks=$(sed -n "s/^$1\.idle_\([A-Za-z0-9_]*\)\.wakeups=.*/\1/p" "$TMP/wakeup")
	for _k in $_ks; do
		_c=$(val wakeup "$1.idle_$_k.wakeups")
		_sum=$((_sum + _c))
		_st="$_st $_k=$_c/$(val wakeup "$1.idle_$_k.lat_p50_ns")ns"
		check_quantiles wakeup "$1.idle_$_k.lat"
	done
	check "$_sum == $_all" "$1: its idle states hold $_sum wake-ups of $_all"
	echo "$_st"
}

# The idle state each wake-up found the wakee's CPU in: every scope's
# states add up to it; the driver named is the CPU's. With a cpuidle
# driver, a second witness: no state holds more wake-ups than cpuidle
# counted entries into it on the target (sysfs usage), one entry each.
# Without one, the kernel's own loops: idle=poll's (poll), else HLT
# (halt). With the polling aid, idle that lasts (delay=, 2 ms against its
# POLLTIF state's 100 us residency) moves wake-ups to its deep state.
test_wakeup_idle_states() {
	need_cpus 2
	drv=$(cpuidle_driver)
	t=$(cpu 1)
	for d in 0 2000; do
		u0=$(cpuidle_usage "$t")
		wake numwake=2000 delay=$d pairs="$(cpu 0):$t"
		u1=$(cpuidle_usage "$t")
		check_wake
		[ "$(val wakeup idle_driver)" = "$drv" ] || fail "idle_driver=$(val wakeup idle_driver), the CPU's is $drv"
		[ "$(val wakeup idle_driver_changed)" = 0 ] || fail "idle_driver_changed=$(val wakeup idle_driver_changed)"
		[ "$(val wakeup proof.cpu_idle)" = proven ] || fail "proof.cpu_idle=$(val wakeup proof.cpu_idle): its probe counted no idle entry"
		note "delay=$d:$(wk_split)"
		for q in total $WK_PATHS; do
			s=$(wk_states "$q")
			[ -z "$s" ] || note "  $q by idle state (wake-ups/p50):$s"
		done
		if [ "$drv" = none ]; then
			# the paths of that idle: halting, IPIs; else polled
			# (a wake-up may come before the CPU's entry: none)
			want=halt p1=wl_ipi p2=rq_ipi
			! cmdline_has idle=poll || want=poll p1=wl_poll p2=rq_poll
			n=$(($(val wakeup $p1.wakeups) + $(val wakeup $p2.wakeups)))
			w=0
			for q in $p1 $p2; do
				! has wakeup "$q.idle_$want.wakeups" || w=$((w + $(val wakeup "$q.idle_$want.wakeups")))
			done
			check "$w * 2 >= $n && $n > 0" "$w of $n $p1/$p2 wake-ups found the CPU in $want, the only idle here"
			continue
		fi
		check_idle_witness wakeup total.idle_STATE.wakeups "$t" "$u0" "$u1"
		tif=0
		! has wakeup total.idle_POLLTIF.wakeups || tif=$(val wakeup total.idle_POLLTIF.wakeups)
		eval "tif_$d=$tif"
	done
	# rpc=1: the calls by the target's state, the wake-ups back by the
	# sender's CPU's.
	wake numwake=2000 rpc=1 pairs="$(cpu 0):$t"
	check_wake
	for q in total $WK_PATHS call_poll call_ipi call_other; do
		s=$(wk_states "$q")
		case $q in call_*) [ -z "$s" ] || note "rpc=1: $q by the target's idle state (calls/p50):$s" ;; esac
	done
	[ "$drv" = polling_idle ] || return 0
	# shellcheck disable=SC2154 # set by the eval above
	check "$tif_2000 > $tif_0" "lasting idle did not reach POLLTIF more often ($tif_2000 against $tif_0 wake-ups)"
}

# idle_states=0 leaves the idle probe out: no state split, no cpu_idle
# probe or proof, and fewer probe hits in each wake-up than the same run
# with it (the probe's own, at the target's idle entries and exits).
test_wakeup_idle_states_off() {
	need_cpus 2
	p="$(cpu 0):$(cpu 1)"
	wake numwake=2000 delay=2000 pairs="$p"
	check_wake
	on=$(val wakeup total.probe_hits_per_wakeup)
	wake numwake=2000 delay=2000 pairs="$p" idle_states=0
	check_wake
	[ "$(val wakeup idle_states)" = 0 ] || fail "idle_states=$(val wakeup idle_states)"
	! grep -q '^[a-z_.]*idle_\(driver\|[A-Za-z0-9_]*\.wakeups\)' "$TMP/wakeup" ||
		fail "idle_states=0, yet a state split: $(grep -m 1 '\.idle_' "$TMP/wakeup")"
	! has wakeup proof.cpu_idle || fail "idle_states=0, yet proof.cpu_idle=$(val wakeup proof.cpu_idle)"
	off=$(val wakeup total.probe_hits_per_wakeup)
	note "probe hits a wake-up: $on with the idle probe, $off without"
	check "$off < $on" "the idle probe left out, $off probe hits a wake-up against $on with it"
}

# wk_intr: interrupted spans of the last run, as a note.
wk_intr() {
	echo "$(val wakeup total.spans_interrupted) of $(val wakeup total.wakeups) spans interrupted"
}

# Spans an interrupt came into: an interrupt of the module's own inside
# every timed wake-up (test_interrupt=1, a self-IPI on the sender; 2, a
# reschedule IPI to the target; rpc=1 too) flags every span; without it,
# only the few that met the kernel's own (the sender's tick).
test_wakeup_spans_interrupted() {
	need_cpus 2
	p="$(cpu 0):$(cpu 1)"
	wake numwake=2000 pairs="$p"
	check_wake
	base=$(val wakeup total.spans_interrupted)
	note "alone: $(wk_intr)"
	check "$base * 10 < $(val wakeup total.wakeups)" "alone, $(wk_intr)"
	for ti in 1 2; do
		for r in 0 1; do
			wake numwake=2000 rpc=$r test_interrupt=$ti pairs="$p"
			check_wake
			[ "$(val wakeup test_interrupt)" = "$ti" ] || fail "test_interrupt=$(val wakeup test_interrupt)"
			note "test_interrupt=$ti rpc=$r: $(wk_intr);$(wk_split)"
			check "$(val wakeup total.spans_interrupted) * 100 >= 99 * $(val wakeup total.wakeups)" \
				"test_interrupt=$ti rpc=$r: $(wk_intr)"
		done
	done
}

# TTWU_QUEUE off: the waker enqueues the wakee itself, so wake-ups move
# from the wake list (wl_*) to the remote enqueue (rq_*). A PREEMPT_RT
# kernel has the feature off by default: it is switched on for the first
# run there. The feature is restored whatever happens.
test_wakeup_ttwu_queue() {
	need_cpus 2
	[ -w "$WK_FEAT" ] || skip "no $WK_FEAT"
	was=TTWU_QUEUE
	grep -qw TTWU_QUEUE "$WK_FEAT" || was=NO_TTWU_QUEUE
	rc=0
	echo TTWU_QUEUE >"$WK_FEAT"
	(wake numwake=5000 cpulist="$(cpu 0)") || rc=$?
	[ "$rc" != 0 ] || mv "$TMP/wakeup" "$TMP/wakeup.on"
	echo NO_TTWU_QUEUE >"$WK_FEAT"
	[ "$rc" != 0 ] || (wake numwake=5000 cpulist="$(cpu 0)") || rc=$?
	echo "$was" >"$WK_FEAT"
	grep -qw "$was" "$WK_FEAT" || fail "$was not restored"
	check "$rc == 0" "a run failed (TTWU_QUEUE switched on, then off; the kernel had $was)"
	check_wake
	off=$(wk_split) offm=$(wk_main_path)
	note "NO_TTWU_QUEUE:$off"
	case $offm in rq_*) ;; *) fail "without TTWU_QUEUE most wake-ups took $offm" ;; esac
	check "$(val wakeup wl_poll.wakeups) + $(val wakeup wl_ipi.wakeups) == 0" \
		"wake-list paths without TTWU_QUEUE:$off"
	mv "$TMP/wakeup.on" "$TMP/wakeup"
	check_wake
	on=$(wk_split) onm=$(wk_main_path)
	note "TTWU_QUEUE:$on"
	case $onm in wl_*) ;; *) fail "with TTWU_QUEUE most wake-ups took $onm" ;; esac
}

# RPC: the call and the wake-up back, each in one path, adding up; the
# wake-up back in the path wakeup_path_split expects.
# insmod on the target's CPU: the sender's start (its wake-up, run.go's)
# is then counted there on a kernel that enqueues it from there (no wake
# list: PREEMPT_RT), before the first call; it must stay out of the first
# round trip, which check_wake sees as one activation of the sender. Then
# a pause between round trips (delay=), which ends with a wake-up of the
# sender by its timer: in no round trip's counts either.
test_wakeup_rpc() {
	need_cpus 2
	printf '#!/bin/sh\nexec taskset -c %s insmod "$@"\n' "$(($(cpu 0) + 1))" >"$TMP/insmod-target"
	chmod +x "$TMP/insmod-target"
	# shellcheck disable=SC2034 # load_module (scripts/lib.sh) reads it
	IPISTORM_INSMOD=$TMP/insmod-target
	wake numwake=5000 rpc=1 cpulist="$(cpu 0)"
	check_wake
	[ "$(val wakeup status)" = complete ] || fail "status=$(val wakeup status)"
	c=0
	for q in call_poll call_ipi call_other; do
		c=$((c + $(val wakeup "$q.wakeups")))
	done
	check "$c == $(val wakeup total.woken)" "the calls' paths hold $c round trips"
	note "rpc: wake-up back$(wk_split); call poll/ipi/other" \
		"$(val wakeup call_poll.wakeups)/$(val wakeup call_ipi.wakeups)/$(val wakeup call_other.wakeups)"
	if wk_halting; then
		check "$(val wakeup call_ipi.wakeups) > $c / 2" "halting target: the calls were not IPIs"
		wk_expect "$(wk_queue)_ipi"
	elif cmdline_has idle=poll; then
		check "$(val wakeup call_poll.wakeups) > $c / 2" "polling target: the calls were not polled"
		wk_expect "$(wk_queue)_poll"
	fi
	wake numwake=1000 rpc=1 delay=10 cpulist="$(cpu 0)"
	check_wake
	[ "$(val wakeup status)" = complete ] || fail "delay=10: status=$(val wakeup status)"
}

test_wakeup_untimed() {
	need_cpus 2
	wake numwake=5000 cpulist="$(cpu 0)" timing=0
	check_wake
	! has wakeup wl_ipi.wakeups || fail "paths reported with timing=0"
	! has wakeup total.lat_p50_ns || fail "latency reported with timing=0"
	[ "$(val wakeup total.wakeups)" = 5000 ] || fail "not 5000 wake-ups"
}

# wk_stop_params HOW: a run until stopped, whatever the way it is stopped.
wk_stop_params() { echo cpulist="$(cpu 0)"; }

# A run until stopped ends within 1 s of a stop, whichever way.
test_wakeup_stop() {
	need_cpus 2
	stop_within wakeup wk_stop_params check_wake
	# A count stopped through debugfs mid-run: status=stopped.
	unload wakeup
	insmod "$(ko wakeup)" numwake=100000000 cpulist="$(cpu 0)" &
	pid=$!
	sleep 2
	echo stop >"$WK_CTL" || fail "cannot write $WK_CTL"
	wait "$pid" || fail "insmod failed after a stop"
	cat "$WK_RESULT" >"$TMP/wakeup"
	unload wakeup
	check_wake
	[ "$(val wakeup status)" = stopped ] || fail "status=$(val wakeup status), not stopped"
}

# A signal to insmod ends a count at once, unreported, nothing left.
test_wakeup_interrupt() {
	need_cpus 2
	interrupted wakeup wakeup numwake=100000000 cpulist="$(cpu 0)"
	dmesg_since "$mark" | grep -q "wakeup: status=interrupted$" ||
		fail "no interrupted status in the log"
}

test_wakeup_timed() {
	need_cpus 2
	t0=$(date +%s)
	wake duration=2 cpulist="$(cpu 0)"
	t1=$(date +%s)
	check_wake
	[ "$(val wakeup mode)" = timed ] || fail "mode=$(val wakeup mode)"
	check "$t1 - $t0 <= 4" "insmod took $((t1 - t0)) s for 2 s"
	check "$(val wakeup sender0.elapsed_ns) >= 2e9" "a 2 s run lasted $(val wakeup sender0.elapsed_ns) ns"
}

test_wakeup_hostile_params() {
	need_cpus 3
	c0=$(cpu 0) c1=$(cpu 1) c2=$(cpu 2)
	hostile wakeup 28 wakeup <<-EOF
	numwake|numwake=10 duration=1 cpulist=$c0
	numwake|numwake=200000000 cpulist=$c0
	numwake|numwake=-1 cpulist=$c0
	duration|duration=100000 cpulist=$c0
	delay|numwake=10 cpulist=$c0 delay=5000000
	cpulist|numwake=10
	cpulist|numwake=10 cpulist=
	cpulist|numwake=10 cpulist=abc
	cpulist|numwake=10 cpulist=99999
	cpulist|numwake=10 cpulist=$c0 pairs=$c0:$c1
	offset|numwake=10 cpulist=$c0 offset=0
	offset|numwake=10 cpulist=$c0 offset=99999
	offset|numwake=10 cpulist=$c0 offset=-99999
	offset|numwake=10 pairs=$c0:$c1 offset=1
	offset|numwake=10 cpulist=$c0,$c1 offset=1
	pairs|numwake=10 pairs=$c0:$c0
	pairs|numwake=10 pairs=$c0:$c1,$c1:$c2
	pairs|numwake=10 pairs=$c0:$c1,$c0:$c2
	pairs|numwake=10 pairs=$c0-$c1
	pairs|numwake=10 pairs=$c0:x
	pairs|numwake=10 pairs=$c0:99999
	pairs|numwake=10 pairs=,
	rpc|numwake=10 cpulist=$c0 rpc=2
	rpc|numwake=10 cpulist=$c0 rpc=yes
	timing|numwake=10 cpulist=$c0 timing=7
	timing|numwake=10 cpulist=$c0 timing=
	idle_states|numwake=10 cpulist=$c0 idle_states=2
	idle_states|numwake=10 cpulist=$c0 timing=0 idle_states=0
	stop|numwake=10 cpulist=$c0 stop=1
	test_interrupt|numwake=10 cpulist=$c0 test_interrupt=3
	test_interrupt|numwake=10 cpulist=$c0 timing=0 test_interrupt=1
	EOF
}

# A CPU going offline mid-run ends the run cleanly: the target (the wakee
# runs elsewhere, the sender stops) or the sender (off its CPU, it stops),
# with ENXIO and status=errors.
wk_offline() {
	need_cpus 3
	s=$(cpu 0) t=$(cpu 2) off=$(cpu 2)
	[ "$1" = sender ] && s=$(cpu 2) t=$(cpu 0)
	[ -w "/sys/devices/system/cpu/cpu$off/online" ] || skip "CPU $off cannot go offline"
	unload wakeup
	# shellcheck disable=SC2086 # one word or none
	insmod "$(ko wakeup)" duration=30 pairs="$s:$t" $2 &
	pid=$!
	sleep 2
	echo 0 >"/sys/devices/system/cpu/cpu$off/online"
	sleep 1
	echo 1 >"/sys/devices/system/cpu/cpu$off/online"
	# The run ends when its sender does, well before its 30 s.
	t0=$(date +%s)
	wait "$pid" || fail "insmod failed"
	check "$(date +%s) - $t0 <= 10" "insmod still ran $(($(date +%s) - t0)) s after"
	cat "$WK_RESULT" >"$TMP/wakeup"
	unload wakeup
	check_wake
	[ "$(val wakeup status)" = errors ] || fail "status=$(val wakeup status), not errors"
	check "$(val wakeup sender0.error) == -6" "error $(val wakeup sender0.error), not -ENXIO"
	check "$(val wakeup sender0.elapsed_ns) < 10e9" "the sender did not stop when its $1 CPU went"
	note "$1 CPU offline ${2:-}: error after $(val wakeup sender0.sent) wake-ups"
}

test_wakeup_offline_target() { wk_offline target ""; }
test_wakeup_offline_sender() { wk_offline sender ""; }
test_wakeup_offline_target_rpc() { wk_offline target rpc=1; }
test_wakeup_offline_sender_rpc() { wk_offline sender rpc=1; }

# Every allocation of a load failed once, in each shape that allocates
# differently (alloc_failures: a debug kernel's fail-nth; skipped without):
# one pair timed, two pairs untimed, rpc, the bare module.
# shellcheck disable=SC2154 # alloc_failures_each sets af_each
test_wakeup_alloc_failures() {
	need_cpus 4
	unload wakeup
	alloc_failures_each wakeup "numwake=50 cpulist=$(cpu 0)" \
		"numwake=50 pairs=$(cpu 0):$(cpu 1),$(cpu 2):$(cpu 3) timing=0" \
		"numwake=50 cpulist=$(cpu 0) rpc=1"
	alloc_failures wakeup_bare numwake=50 cpu="$(cpu 0)" target="$(cpu 1)"
	note "injection points per shape:$af_each; wakeup_bare $af_points"
}

# Every CPU in a pair, summary log bounded whatever the number of CPUs.
test_wakeup_all_cpus() {
	need_cpus 2
	n=$(ncpus)
	list=$(awk -v n="$n" 'BEGIN { for (i = 0; i + 1 < n; i += 2) printf "%s%d:%d", i ? "," : "", i, i + 1 }')
	mark=$(dmesg_mark)
	wake numwake=500 pairs="$list"
	lines=$(log_lines "$mark" wakeup)
	check_wake
	check "$lines <= 30" "$lines kernel-log lines for one run"
	dmesg_since "$mark" | tail -n 1 | grep -q "wakeup: status=" ||
		fail "the log does not end with the status line"
	note "$(val wakeup senders) pairs, $lines log lines"
}

# A long run trips no lockup, stall or hung-task detector.
test_wakeup_long() {
	need_cpus 2
	wake numwake="${WAKEUP_LONG_NUMWAKE:-300000}" cpulist="$(cpu 0)"
	check_wake
	note "$(val wakeup total.sent) wake-ups in $(val wakeup runtime_ns) ns"
}

# idle_reentry beside wakeup on the target: each wake-up ends an idle
# round that switches to the wakee (a fair task) through a full pick,
# never a re-entry through SM_IDLE's fast path.
test_wakeup_idle_reentry() {
	need_cpus 2
	a=$(cpu 0) t=$(cpu 1)
	unload idle_reentry
	unload wakeup
	insmod "$(ko idle_reentry)" cpulist="$t" || fail "insmod idle_reentry failed"
	load wakeup numwake=2000 pairs="$a:$t"
	unload wakeup
	echo stop >/sys/kernel/debug/idle_reentry/control || fail "cannot stop idle_reentry"
	cat /sys/kernel/debug/idle_reentry/result >"$TMP/idle_reentry"
	unload idle_reentry
	check_wake
	w=$(val wakeup total.woken)
	sw=$(val idle_reentry total.switched_fair)
	sp=$(val idle_reentry total.switched_pick)
	note "wake-ups $w; idle rounds switched to a fair task $sw, with a pick $sp," \
		"re-entries $(val idle_reentry total.reentries), fast path $(val idle_reentry total.fast_pct) %," \
		"pick_hook=$(val idle_reentry pick_hook)"
	[ "$(val idle_reentry pick_hook)" = proven ] || fail "pick_hook=$(val idle_reentry pick_hook)"
	check "$sw >= $w" "$w wake-ups, only $sw rounds switched to a fair task"
	check "$sp >= $w" "$w wake-ups, only $sp switched rounds made a pick"
}
