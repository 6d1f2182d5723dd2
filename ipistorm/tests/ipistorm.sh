# shellcheck shell=sh
# Tests of ipistorm.ko, sourced by scripts/selftest.sh. CPUs are picked
# from the online ones, so the tests run on a 4-CPU VM as on a server.

# The checks every finished run must pass, whatever its parameters.
# shellcheck disable=SC2154 # vals sets the variables
check_run() {
	_f=$TMP/ipistorm
	[ "$(val ipistorm format)" = ipistorm/3 ] || fail "unknown result format"
	_n=$(val ipistorm senders)
	_i=0
	while [ "$_i" -lt "$_n" ]; do
		_p=sender$_i
		vals ipistorm "$_p." _sent=sent _errs=errors \
			_exp=expected_callbacks _cb=callbacks _poll=cb_poll \
			_irq=cb_irq _oth=cb_other _el=elapsed_ns \
			_rate=ipis_per_sec _nsp=ns_per_ipi
		check "$_cb == $_exp" "$_p: $_cb callbacks ran, $_exp expected"
		check "$_poll + $_irq + $_oth == $_cb" \
			"$_p: delivery counts do not sum to the callbacks"
		check "$_el > 0" "$_p: no elapsed time"
		if [ "$_sent" -gt 0 ]; then
			check "$_rate >= $_sent * 1e9 / $_el * 0.999 - 1 && \
				$_rate <= $_sent * 1e9 / $_el * 1.001 + 1" \
				"$_p: rate $_rate/s disagrees with $_sent calls in $_el ns"
			check "$_nsp >= $_el / $_sent - 0.06 && $_nsp <= $_el / $_sent + 0.06" \
				"$_p: $_nsp ns/IPI disagrees with $_sent calls in $_el ns"
		fi
		if [ "$(val ipistorm witness)" = 1 ]; then
			check_witness "$_p"
		elif has ipistorm "$_p.sent_no_ipi"; then
			fail "$_p: sender-side delivery reported with witness=0"
		fi
		if [ "$(val ipistorm timing)" = 1 ]; then
			# A failed call is timed; a sender found off its CPU
			# (error -6 before the call) made no call.
			_ln=$(val ipistorm "$_p.lat_n")
			check "$_ln == $_sent + $_errs || ($_errs == 1 && $_ln == $_sent)" \
				"$_p: $_ln calls timed, $_sent sent and $_errs failed"
			check_lat "$_p" "$_ln" "$_el"
		elif has ipistorm "$_p.lat_n"; then
			fail "$_p: latency reported with timing=0"
		fi
		_i=$((_i + 1))
	done
	_sum=$(awk -F= '/^sender[0-9]+\.sent=/ { s += $2 } END { print s + 0 }' "$_f")
	check "$(val ipistorm total.sent) == $_sum" "total.sent is not the sum"
	_sum=$(awk -F= '/^sender[0-9]+\.callbacks=/ { s += $2 } END { print s + 0 }' "$_f")
	check "$(val ipistorm total.callbacks) == $_sum" "total.callbacks is not the sum"
	_sum=$(awk -F= '/^sender[0-9]+\.irqs_other_(cpu|target)=/ { s += $2 } END { print s + 0 }' "$_f")
	check "$(val ipistorm total.irqs_other) == $_sum" "total.irqs_other is not the sum"
	check "$_sum < 4e9" "a negative count of other interrupts ($_sum)"
	if [ "$(val ipistorm witness)" = 1 ] && ! has ipistorm total.witness_invalid; then
		check_witness total
	fi
	_el=$(awk -F= '/^sender[0-9]+\.elapsed_ns=/ && $2 > m { m = $2 } END { print m + 0 }' "$_f")
	check "$(val ipistorm runtime_ns) >= $_el" "runtime shorter than a sender's storm"
}

# check_witness PREFIX: the sender's view of how each call was notified
# (no IPI to a polling target, an IPI, or neither: the target's queue was
# not empty), as the kernel guarantees it: counted, none negative (a view
# that would be is not reported: witness_invalid=1), summing to the calls.
# Not against the target's view: a call notified without an IPI may still
# run in hard IRQ when another CPU's IPI (another sender's, or any
# call-function IPI) flushes the target's queue first; test_ipistorm_
# witness_agrees compares the two where delivery is deterministic.
check_witness() {
	! has ipistorm "$1.witness_invalid" ||
		fail "$1: the sender-side counts went negative (witness_invalid=1)"
	_ni=$(val ipistorm "$1.sent_no_ipi")
	_ip=$(val ipistorm "$1.sent_ipi")
	_qu=$(val ipistorm "$1.sent_queued")
	check "$_ni < 4e18 && $_ip < 4e18 && $_qu < 4e18" \
		"$1: negative sender-side count ($_ni/$_ip/$_qu)"
	check "$_ni + $_ip + $_qu == $(val ipistorm "$1.sent")" \
		"$1: the sender's view does not sum to the calls"
	[ "$(val ipistorm timing)" = 1 ] || return 0
	check_paths "$1" "$_ni" "$_ip" "$_qu"
}

# check_paths PREFIX NO_IPI IPI QUEUED: with timing=1 every call sent is
# timed in the histogram of the path the witness saw: each path's count is
# that path's sender-side count, and the paths add up to the sender's (or
# the totals') lat_n, which is then the calls sent (a failed call is in no
# path).
check_paths() {
	_pn=0
	for _pp in no_ipi:$2 ipi:$3 queued:$4; do
		_pk=lat_${_pp%%:*}
		_pc=$(val ipistorm "$1.${_pk}_n")
		check "$_pc == ${_pp#*:}" "$1: $_pk holds $_pc calls, the witness counted ${_pp#*:}"
		if [ "$_pc" -gt 0 ]; then
			check "$(val ipistorm "$1.${_pk}_min_ns") <= $(val ipistorm "$1.${_pk}_mean_ns") && \
				$(val ipistorm "$1.${_pk}_mean_ns") <= $(val ipistorm "$1.${_pk}_max_ns")" \
				"$1: $_pk mean outside its minimum and maximum"
			check "$(val ipistorm "$1.${_pk}_p50_ns") <= $(val ipistorm "$1.${_pk}_p99_ns")" \
				"$1: $_pk p50 above its p99"
		fi
		_pn=$((_pn + _pc))
	done
	check "$_pn == $(val ipistorm "$1.lat_n")" "$1: the paths hold $_pn calls, lat_n $(val ipistorm "$1.lat_n")"
	check "$_pn == $(val ipistorm "$1.sent")" "$1: the paths hold $_pn calls, $(val ipistorm "$1.sent") sent"
}

# check_lat PREFIX CALLS ELAPSED: the latency histogram of one sender; a
# failed call is timed too.
check_lat() {
	check_hist ipistorm "$1.lat" "$2"
	[ "$2" -gt 0 ] || return 0
	# Calls are timed inside the storm: their sum cannot exceed it.
	check "$(val ipistorm "$1.lat_mean_ns") * $2 <= $3" \
		"$1: the timed calls last longer than the storm"
}

test_ipistorm_single_wait1() {
	need_cpus 2
	storm numipi=20000 single=1 wait=1 cpulist="$(cpu 0)" offset=1
	check_run
	[ "$(val ipistorm status)" = complete ] || fail "status is not complete"
	check "$(val ipistorm sender0.sent) == 20000" "not 20000 calls"
	check "$(val ipistorm sender0.target) == $(($(cpu 0) + 1))" "wrong target"
	note "$(val ipistorm sender0.ns_per_ipi) ns/IPI, poll/irq/other" \
		"$(val ipistorm total.cb_poll)/$(val ipistorm total.cb_irq)/$(val ipistorm total.cb_other)"
}

test_ipistorm_single_wait0() {
	need_cpus 2
	storm numipi=20000 single=1 wait=0 cpulist="$(cpu 0)" offset=1 witness=1
	check_run
	check "$(val ipistorm sender0.callbacks) == 20000" "callbacks lost with wait=0"
}

test_ipistorm_many_wait1() {
	need_cpus 3
	storm numipi=2000 single=0 wait=1 cpulist="$(cpu 0)"
	check_run
	[ "$(val ipistorm sender0.target)" = all ] || fail "target is not all"
	check "$(val ipistorm sender0.callbacks) == 2000 * ($(ncpus) - 1)" \
		"not one callback per other online CPU and call"
}

storming() { [ "$(cat /sys/module/ipistorm/initstate 2>/dev/null)" = coming ]; }

# single=0 while a CPU comes online: smp_call_function_many() calls every
# CPU online at the time of the call, which a CPU coming online joins
# between the sender's count of the online CPUs and the call unless the
# sender holds the hotplug lock. A CPU onlined and offlined again and
# again during the storm (each online a chance to land in that window):
# callbacks == expected_callbacks (check_run), and some calls reached it.
test_ipistorm_many_cpu_online() {
	need_cpus 4
	s=$(cpu 0) c=$(cpu 3)
	f=/sys/devices/system/cpu/cpu$c/online
	[ -w "$f" ] || skip "CPU $c cannot go offline"
	echo 0 >"$f"
	unload ipistorm
	insmod "$(ko ipistorm)" timeout="${IPISTORM_ONLINE_S:-8}" single=0 \
		wait=1 cpulist="$s" &
	pid=$!
	sleep 1
	# (insmod, once done, stays a zombie until waited for: the module's
	# state tells whether its init, the storm, still runs.)
	ups=0
	while storming; do
		echo 1 >"$f"
		! storming || ups=$((ups + 1))
		echo 0 >"$f"
	done
	echo 1 >"$f"
	rc=0
	wait "$pid" || rc=$?
	check "$rc == 0" "insmod failed"
	cat /sys/kernel/debug/ipistorm/result >"$TMP/ipistorm"
	unload ipistorm
	check_run
	[ "$(val ipistorm status)" = complete ] || fail "status=$(val ipistorm status)"
	sent=$(val ipistorm sender0.sent) exp=$(val ipistorm sender0.expected_callbacks)
	note "CPU $c onlined $ups times during $sent calls: $exp callbacks expected," \
		"$(val ipistorm sender0.callbacks) ran"
	check "$ups >= 1" "CPU $c never came online during the storm"
	check "$exp > 2 * $sent" "no call reached CPU $c while it was online"
}

# single=0 with one other online CPU: smp_call_function_many() notifies a
# lone target as smp_call_function_single() does, so under idle=poll its
# callbacks run in the polling idle task, as note= says.
test_ipistorm_many_one_target() {
	need_cpus 2
	cmdline_has idle=poll || skip "boot with idle=poll"
	[ "$(ncpus)" = 2 ] || skip "needs exactly 2 online CPUs, have $(ncpus)"
	storm numipi=20000 single=0 wait=1 cpulist="$(cpu 0)"
	check_run
	pct=$(val ipistorm total.poll_pct)
	note "single=0, one other CPU: polled $pct % (want >= ${IPISTORM_MIN_POLL_PCT:-10})"
	check "$pct >= ${IPISTORM_MIN_POLL_PCT:-10}" "a lone target of smp_call_function_many() was not polled"
}

test_ipistorm_many_wait0_two_senders() {
	need_cpus 3
	storm numipi=2000 single=0 wait=0 cpulist="$(cpu 0),$(cpu 1)"
	check_run
	check "$(val ipistorm senders) == 2" "not two senders"
	check "$(val ipistorm total.callbacks) == 2 * 2000 * ($(ncpus) - 1)" \
		"callbacks lost"
}

test_ipistorm_timed() {
	need_cpus 2
	t0=$(date +%s)
	storm timeout=2 single=1 cpulist="$(cpu 0)" offset=1
	t1=$(date +%s)
	check_run
	[ "$(val ipistorm mode)" = timed ] || fail "mode is not timed"
	el=$(val ipistorm sender0.elapsed_ns)
	check "$el >= 2e9 && $el < 2.5e9" "a 2 s storm lasted $el ns"
	check "$t1 - $t0 <= 4" "insmod took $((t1 - t0)) s for a 2 s storm"
	check "$(val ipistorm sender0.sent) > 0" "no calls in 2 s"
}

test_ipistorm_pairs() {
	need_cpus 4
	a=$(cpu 0) b=$(cpu 1) c=$(cpu 2) d=$(cpu 3)
	storm numipi=5000 pairs="$a:$c,$d:$b"
	check_run
	[ "$(val ipistorm single)" = 1 ] || fail "pairs= did not imply single=1"
	[ "$(val ipistorm sender0.cpu):$(val ipistorm sender0.target)" = "$a:$c" ] ||
		fail "first pair is not $a:$c"
	[ "$(val ipistorm sender1.cpu):$(val ipistorm sender1.target)" = "$d:$b" ] ||
		fail "second pair is not $d:$b"
	check "$(val ipistorm total.callbacks) == 10000" "not 2 x 5000 callbacks"
}

# The published command line, with sender and offset scaled to this machine.
test_ipistorm_published_shape() {
	need_cpus 2
	n=$(ncpus)
	off=$((n / 2))
	storm numipi=20000 single=1 offset=$off cpulist="$(cpu 0)" wait=1
	check_run
	check "$(val ipistorm sender0.target) == $(cpu 0) + $off" "target is not sender + offset"
	note "runtime $(val ipistorm runtime_ns) ns for 20000 IPIs $(cpu 0) -> $(($(cpu 0) + off))"
}

# The published command line exactly as written: CPU8 to CPU16.
test_ipistorm_published_exact() {
	need_cpus 17
	storm numipi=100000 single=1 offset=8 cpulist=8 wait=1
	check_run
	check "$(val ipistorm sender0.cpu) == 8 && $(val ipistorm sender0.target) == 16" \
		"not CPU8 -> CPU16"
	check "$(val ipistorm sender0.callbacks) == 100000" "not 100000 callbacks"
	note "runtime $(val ipistorm runtime_ns) ns, poll share $(val ipistorm total.poll_pct) %"
}

test_ipistorm_untimed() {
	need_cpus 2
	storm numipi=20000 single=1 cpulist="$(cpu 0)" offset=1 timing=0
	check_run
}

# The start line names every parameter in the order ipistorm_main.c
# declares them, whatever order the compiler gave its __param section
# (GCC's is the reverse of clang's).
test_ipistorm_start_line() {
	need_cpus 2
	mark=$(dmesg_mark)
	storm numipi=100 single=1 cpulist="$(cpu 0)" offset=1
	got=$(dmesg_since "$mark" | sed -n 's/.*ipistorm: start //p' | tr ' ' '\n' |
		sed 's/=.*//' | tr '\n' ' ')
	want="numipi timeout time_cap cpulist offset pairs single wait delay timing witness idle_states "
	[ "$got" = "$want" ] || fail "start line's parameters: '$got', not '$want'"
	dmesg_since "$mark" | grep -q "ipistorm: start numipi=100 timeout=0 time_cap=0 cpulist=$(cpu 0) offset=1 pairs=(null) single=Y wait=Y delay=0 timing=Y witness=N idle_states=N\$" ||
		fail "the start line does not read as documented (docs/ipistorm.md)"
}

# Interrupts during a storm other than its own IPIs: by the kernel's
# counts, less the call-function IPIs that ran a callback of the storm.
# A storm by IPI (a halting target) brings few; one whose every pause
# ends with the sender's timer interrupt (delay=) one a call at least,
# which the timed calls may hold at most as many of (no bound with a
# target shared by two senders); and no more than
# /proc/interrupts counted on the CPU around the whole insmod (a second
# witness, its every line: a superset).
test_ipistorm_irqs_other() {
	need_cpus 2
	c=$(cpu 0) t=$(($(cpu 0) + 1))
	storm numipi=2000 single=1 wait=1 cpulist="$c" offset=1
	check_run
	o=$(val ipistorm total.irqs_other)
	note "2000 calls, $(val ipistorm total.cb_irq) by IPI: $o other interrupts" \
		"($(val ipistorm sender0.irqs_other_cpu) on CPU $c, $(val ipistorm sender0.irqs_other_target) on $t)," \
		"spans_interrupted_max=$(val ipistorm total.spans_interrupted_max)"
	check "$o * 10 < 2000" "$o other interrupts in a storm of 2000 calls"
	check "$(val ipistorm total.spans_interrupted_max) == $o" "spans_interrupted_max is not every other interrupt with wait=1"
	i0=$(irq_col "$c")
	storm numipi=200 single=1 wait=1 cpulist="$c" offset=1 delay=100
	i1=$(irq_col "$c")
	check_run
	o=$(val ipistorm sender0.irqs_other_cpu)
	note "200 calls 100 us apart: $o other interrupts on CPU $c ($((i1 - i0)) in /proc/interrupts)," \
		"spans_interrupted_max=$(val ipistorm total.spans_interrupted_max)"
	check "$o <= $i1 - $i0" "$o other interrupts on CPU $c, more than /proc/interrupts counted there ($((i1 - i0)))"
	check "$o >= 200" "200 pauses, each ended by a timer interrupt, and $o other interrupts on the sender's CPU"
	check "$(val ipistorm total.spans_interrupted_max) >= $o" "spans_interrupted_max below the sender's other interrupts"
	# Two senders to one target: one IPI may run both their calls, and
	# the bound is not given.
	[ "$(ncpus)" -ge 3 ] || return 0
	storm numipi=200 single=1 wait=1 pairs="$c:$(cpu 2),$t:$(cpu 2)"
	check_run
	! has ipistorm total.spans_interrupted_max || fail "spans_interrupted_max given with a target shared"
}

test_ipistorm_delay() {
	need_cpus 2
	storm numipi=200 single=1 cpulist="$(cpu 0)" offset=1 delay=100
	check_run
	check "$(val ipistorm sender0.elapsed_ns) >= 200 * 100000" \
		"200 calls 100 us apart took less than 20 ms"
}

# The result stays in debugfs, root-only, until rmmod and goes with it.
test_ipistorm_debugfs_lifetime() {
	need_cpus 2
	unload ipistorm
	load ipistorm numipi=100 single=1 cpulist="$(cpu 0)" offset=1
	f=/sys/kernel/debug/ipistorm/result
	perm=$(stat -c %a "$f")
	[ "$perm" = 400 ] || fail "$f has mode $perm, not 400"
	cmp -s "$f" "$TMP/ipistorm" || fail "the result changed between reads"
	unload ipistorm
	[ ! -e "$f" ] || fail "$f outlived rmmod"
}

# Polling delivery: with idle=poll an idle target polls with
# TIF_POLLING_NRFLAG set, so callbacks run in its idle task. Under
# instruction counting nearly all do; in real time the next call often
# lands while the target is still in schedule_idle(), so only a share.
# idle_states=1: every callback counted by the idle state its CPU was in
# when its call reached it (the last state entered since its previous
# callback; none: awake), and with wait=1 every call timed by it: the
# states hold the callbacks of each context and the timed calls, no more,
# no fewer. Halting idle: the IPIs' callbacks found the target in halt;
# idle=poll: the polled ones in poll; with a cpuidle driver, cpuidle's own
# entries bound each state (check_idle_witness).
test_ipistorm_idle_states() {
	need_cpus 2
	t=$(($(cpu 0) + 1))
	drv=$(cpuidle_driver)
	u0=$(cpuidle_usage "$t")
	storm numipi=5000 single=1 wait=1 cpulist="$(cpu 0)" offset=1 idle_states=1
	u1=$(cpuidle_usage "$t")
	check_run
	[ "$(val ipistorm idle_states)" = 1 ] || fail "idle_states=$(val ipistorm idle_states)"
	[ "$(val ipistorm idle_driver)" = "$drv" ] || fail "idle_driver=$(val ipistorm idle_driver), the CPU's is $drv"
	[ "$(val ipistorm idle_driver_changed)" = 0 ] || fail "idle_driver_changed=$(val ipistorm idle_driver_changed)"
	sp=0 si=0 so=0 sn=0 st=""
	ks=$(sed -n 's/^total\.idle_\([A-Za-z0-9_]*\)\.callbacks=.*/\1/p' "$TMP/ipistorm")
	for k in $ks; do
		vals ipistorm "total.idle_$k." p=cb_poll i=cb_irq o=cb_other c=callbacks n=lat_n
		# shellcheck disable=SC2154 # vals sets them
		check "$p + $i + $o == $c" "idle_$k: $p + $i + $o callbacks by context, $c in all"
		[ "$n" = 0 ] || check_quantiles ipistorm "total.idle_$k.lat"
		sp=$((sp + p)) si=$((si + i)) so=$((so + o)) sn=$((sn + n))
		st="$st $k=$p/$i/$o/$(val ipistorm "total.idle_$k.lat_p50_ns")ns"
	done
	vals ipistorm total. cp=cb_poll ci=cb_irq co=cb_other
	# shellcheck disable=SC2154 # vals sets them
	check "$sp == $cp && $si == $ci && $so == $co" \
		"the states hold $sp/$si/$so callbacks polled/IPI/other, the target ran $cp/$ci/$co"
	check "$sn == $(val ipistorm total.lat_n)" "the states' histograms hold $sn calls of $(val ipistorm total.lat_n)"
	note "by idle state (polled/IPI/other/p50):$st"
	if [ "$drv" != none ]; then
		check_idle_witness ipistorm total.idle_STATE.callbacks "$t" "$u0" "$u1"
	elif cmdline_has idle=poll; then
		has ipistorm total.idle_poll.cb_poll || fail "no polled callback found its CPU in poll"
		check "$(val ipistorm total.idle_poll.cb_poll) * 2 >= $cp" "most polled callbacks not in poll, the only idle here"
	else
		has ipistorm total.idle_halt.cb_irq || fail "no IPI's callback found its CPU in halt"
		check "$(val ipistorm total.idle_halt.cb_irq) * 2 >= $ci" "most IPIs' callbacks not in halt, the only idle here"
	fi
}

test_ipistorm_delivery_poll() {
	need_cpus 2
	cmdline_has idle=poll || skip "boot with idle=poll"
	storm numipi=20000 single=1 wait=1 cpulist="$(cpu 0)" offset=1
	check_run
	pct=$(val ipistorm total.poll_pct)
	note "polled: $pct % (want >= ${IPISTORM_MIN_POLL_PCT:-10})"
	check "$pct >= ${IPISTORM_MIN_POLL_PCT:-10}" "too few callbacks ran from the polling idle task"
}

# Both ends agree: a call notified without an IPI ran in the target's idle
# task (check_witness). Exactly, under instruction counting with idle=poll,
# where every call finds its target polling, but for calls queued behind
# another one, which run with that one's batch. Elsewhere a few callbacks
# notified by an IPI (or queued behind one) still ran in the idle task,
# which was already flushing the queue when the IPI came: the difference
# is reported, not judged.
test_ipistorm_witness_agrees() {
	need_cpus 2
	storm numipi=20000 single=1 wait=1 cpulist="$(cpu 0)" offset=1 witness=1
	check_run
	ni=$(val ipistorm total.sent_no_ipi) ip=$(val ipistorm total.sent_ipi)
	qu=$(val ipistorm total.sent_queued)
	poll=$(val ipistorm total.cb_poll) irq=$(val ipistorm total.cb_irq)
	note "sender: no IPI $ni, IPI $ip, queued $qu; target: polled $poll, hard IRQ $irq"
	# The paths' histograms against the target's view: one callback per
	# timed call, whatever its path.
	pn=$(val ipistorm total.lat_no_ipi_n) pi=$(val ipistorm total.lat_ipi_n)
	pq=$(val ipistorm total.lat_queued_n)
	check "$pn + $pi + $pq == $poll + $irq + $(val ipistorm total.cb_other)" \
		"the paths hold $pn/$pi/$pq calls, the target ran $poll/$irq callbacks"
	note "paths (n, mean ns): no IPI $pn $(key total.lat_no_ipi_mean_ns "$TMP/ipistorm")," \
		"IPI $pi $(key total.lat_ipi_mean_ns "$TMP/ipistorm")," \
		"queued $pq $(key total.lat_queued_mean_ns "$TMP/ipistorm")"
	if [ "${IPISTORM_EXACT_DELIVERY:-0}" = 1 ]; then
		# A queued call rides with the batch of the call it queued
		# behind, polled or not: polled = no IPI + some of the queued.
		check "$poll >= $ni && $poll <= $ni + $qu" \
			"polled callbacks outside calls notified without IPI (+ queued)"
		check "$poll >= $pn && $poll <= $pn + $pq && $irq <= $pi + $pq" \
			"polled/hard-IRQ callbacks outside the no-IPI/IPI paths (+ queued)"
	fi
}

# Two senders to one target with witness=1: each sender's view counts its
# own calls only, and a call of one notified without an IPI may run in the
# hard IRQ of the other's IPI (so sent_no_ipi may exceed cb_poll): every
# view is valid and sums to its sender's calls.
test_ipistorm_witness_two_senders() {
	need_cpus 3
	t=$(cpu 2)
	storm numipi=20000 pairs="$(cpu 0):$t,$(cpu 1):$t" wait=1 witness=1
	check_run
	[ "$(val ipistorm status)" = complete ] || fail "status=$(val ipistorm status)"
	for p in sender0 sender1; do
		note "$p: no IPI $(val ipistorm $p.sent_no_ipi), IPI $(val ipistorm $p.sent_ipi)," \
			"queued $(val ipistorm $p.sent_queued); polled $(val ipistorm $p.cb_poll)," \
			"hard IRQ $(val ipistorm $p.cb_irq)"
	done
}

# witness=1 with a pause between calls (the sender sleeps, the target goes
# back to idle before each call): every view valid, summing to the calls.
test_ipistorm_witness_delay() {
	need_cpus 2
	storm numipi=500 single=1 cpulist="$(cpu 0)" offset=1 delay=100 wait=1 witness=1
	check_run
	[ "$(val ipistorm status)" = complete ] || fail "status=$(val ipistorm status)"
	note "no IPI $(val ipistorm total.sent_no_ipi), IPI $(val ipistorm total.sent_ipi)," \
		"queued $(val ipistorm total.sent_queued); polled $(val ipistorm total.cb_poll)"
}

# Without idle=poll the idle target halts with TIF_POLLING clear, so a real
# IPI is needed and the callbacks run in hard IRQ.
test_ipistorm_delivery_irq() {
	need_cpus 2
	! cmdline_has idle=poll || skip "booted with idle=poll"
	[ "$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null)" = none ] ||
		skip "a cpuidle driver may pick polling states"
	storm numipi=20000 single=1 wait=1 cpulist="$(cpu 0)" offset=1
	check_run
	check "$(val ipistorm total.cb_irq) > $(val ipistorm total.cb_poll)" \
		"halting idle CPUs should mostly take real IPIs"
}

# Each set must fail with EINVAL, print one error naming its parameter and
# leave nothing behind. The bool switches take 0, 1, n, N, y or Y only:
# the kernel's own bool reads one character, so wait=10, timing=yes or
# witness=on-please would load; each of those is refused with one error
# (busybox's insmod may print it twice: one distinct line).
test_ipistorm_hostile_params() {
	need_cpus 2
	c0=$(cpu 0) c1=$(cpu 1)
	bools="wait=10 timing=yes witness=on-please single=true wait=Yes timing=00 idle_states=2"
	for b in $bools; do
		mark=$(dmesg_mark)
		# shellcheck disable=SC2086 # the storm's words
		if insmod "$(ko ipistorm)" numipi=10 single=1 cpulist="$c0" $b 2>/dev/null; then
			rmmod ipistorm
			fail "$b was accepted"
		fi
		# (The first load of a boot also logs the taint: not an error.)
		n=$(dmesg_since "$mark" | grep "ipistorm: .*${b%%=*}" | sed 's/^\[[^]]*\] //' |
			sort -u | wc -l)
		dmesg_since "$mark" | grep -q "ipistorm: .*\`${b#*=}' invalid for parameter \`${b%%=*}'" ||
			fail "$b: no error naming ${b%%=*} and its value"
		check "$n == 1" "$b: $n distinct error lines name ${b%%=*}"
	done
	hostile ipistorm 38 ipistorm <<-EOF
	numipi|cpulist=$c0
	numipi|numipi=10 timeout=1 cpulist=$c0
	cpulist|numipi=10
	cpulist|numipi=10 single=1 cpulist=
	cpulist|numipi=10 single=1 cpulist=abc
	cpulist|numipi=10 single=1 cpulist=99999
	cpulist|numipi=10 cpulist=$c0 pairs=$c0:$c1
	offset|numipi=10 single=1 cpulist=$c0 offset=0
	offset|numipi=10 single=1 cpulist=$c0 offset=-99999
	offset|numipi=10 single=1 cpulist=$c0 offset=99999
	pairs|numipi=10 pairs=$c0:$c0
	pairs|numipi=10 pairs=$c0:$c1,$c0:$c1
	pairs|numipi=10 pairs=$c0-$c1
	pairs|numipi=10 pairs=$c0:x
	pairs|numipi=10 pairs=$c0:99999
	pairs|numipi=10 pairs=,
	single|numipi=10 single=0 pairs=$c0:$c1
	numipi|numipi=2000000000 cpulist=$c0
	numipi|numipi=-1 cpulist=$c0
	timeout|timeout=100000 cpulist=$c0
	delay|numipi=10 cpulist=$c0 delay=5000000
	wait|numipi=10 cpulist=$c0 wait=2
	single|numipi=10 cpulist=$c0 single=2
	timing|numipi=10 cpulist=$c0 timing=7
	single|numipi=10 cpulist=$c0
	offset|numipi=10 single=0 cpulist=$c0 offset=2
	offset|numipi=10 pairs=$c0:$c1 offset=1
	time_cap|timeout=1 single=1 cpulist=$c0 time_cap=5
	time_cap|numipi=10 single=1 cpulist=$c0 time_cap=99999
	witness|numipi=10 single=0 cpulist=$c0 witness=1
	witness|numipi=10 single=1 cpulist=$c0 witness=3
	wait|numipi=10 single=1 cpulist=$c0 wait=10
	timing|numipi=10 single=1 cpulist=$c0 timing=yes
	witness|numipi=10 single=1 cpulist=$c0 witness=on-please
	single|numipi=10 cpulist=$c0 single=true
	wait|numipi=10 single=1 cpulist=$c0 wait
	timing|numipi=10 single=1 cpulist=$c0 timing=
	pairs|numipi=10 pairs=$(awk 'BEGIN { for (i = 0; i < 4100; i++) printf "0:1," }')
	offset|numipi=10 single=1 cpulist=$c0 offset=-2147483648
	single|numipi=10 pairs=$c0:$c1 single=-1
	cpulist|numipi=10 single=1 cpulist=$(awk 'BEGIN { for (i = 0; i < 33000; i++) printf "0," }')
	EOF
}

# A cpulist longer than a charp parameter's 1024 characters (every CPU of
# a 512-CPU machine, listed one by one, takes 1891): the sender 600 times.
test_ipistorm_long_cpulist() {
	need_cpus 2
	c=$(cpu 0)
	l=$(seq 600 | sed "s/.*/$c/" | tr '\n' , | sed 's/,$//')
	storm numipi=10 single=1 cpulist="$l"
	check_run
	[ "$(val ipistorm senders)" = 1 ] ||
		fail "cpulist of ${#l} characters read as $(val ipistorm senders) senders"
	[ "$(val ipistorm sender0.cpu)" = "$c" ] ||
		fail "cpulist of ${#l} characters read as CPU $(val ipistorm sender0.cpu)"
	note "a cpulist of ${#l} characters is parsed"
}

# An offline sender CPU is refused like a bad parameter.
test_ipistorm_offline_sender() {
	need_cpus 3
	c=$(cpu 2)
	[ -w "/sys/devices/system/cpu/cpu$c/online" ] || skip "CPU $c cannot go offline"
	echo 0 >"/sys/devices/system/cpu/cpu$c/online"
	mark=$(dmesg_mark)
	if insmod "$(ko ipistorm)" numipi=10 single=1 cpulist="$c" 2>/dev/null; then
		echo 1 >"/sys/devices/system/cpu/cpu$c/online"
		rmmod ipistorm
		fail "a storm from offline CPU $c was accepted"
	fi
	echo 1 >"/sys/devices/system/cpu/cpu$c/online"
	dmesg_since "$mark" | grep -q "ipistorm: cpulist=$c: CPU $c is offline" ||
		fail "no error naming the offline CPU"
	! loaded ipistorm || fail "module loaded"
}

# A signal to insmod stops the storm at once and leaves nothing running.
test_ipistorm_interrupt() {
	need_cpus 2
	interrupted ipistorm ipistorm timeout=60 single=1 cpulist="$(cpu 0)" offset=1
	dmesg_since "$mark" | grep -q "ipistorm: status=interrupted$" ||
		fail "no interrupted status in the log"
	# The module must load again after that.
	storm numipi=100 single=1 cpulist="$(cpu 0)" offset=1
	check_run
}

# offline_midrun ROLE WAIT: the sender's target (ROLE target) or the
# sender's own CPU (ROLE sender) goes offline mid-run; the sender ends with
# ENXIO (a call to an offline CPU fails with it; a sender that finds itself
# moved off its CPU stops with it), the module still loads and reports.
offline_midrun() {
	need_cpus 3
	s=$(cpu 0) t=$(cpu 2) off=$(cpu 2)
	[ "$1" = sender ] && s=$(cpu 2) t=$(cpu 0)
	[ -w "/sys/devices/system/cpu/cpu$off/online" ] || skip "CPU $off cannot go offline"
	unload ipistorm
	t0=$(date +%s)
	insmod "$(ko ipistorm)" timeout=30 pairs="$s:$t" wait="$2" witness=1 &
	pid=$!
	sleep 2
	echo 0 >"/sys/devices/system/cpu/cpu$off/online"
	rc=0
	wait "$pid" || rc=$?
	t1=$(date +%s)
	echo 1 >"/sys/devices/system/cpu/cpu$off/online"
	check "$rc == 0" "insmod failed"
	cat /sys/kernel/debug/ipistorm/result >"$TMP/ipistorm"
	unload ipistorm
	check "$t1 - $t0 <= 10" "the sender did not stop when its $1 CPU went"
	check_run
	[ "$(val ipistorm status)" = errors ] || fail "status is not errors"
	check "$(val ipistorm sender0.errors) == 1" "no error counted"
	check "$(val ipistorm sender0.error) == -6" "error $(val ipistorm sender0.error), not -ENXIO"
	note "error $(val ipistorm sender0.error) after $(val ipistorm sender0.sent) calls"
}

test_ipistorm_offline_target_wait1() { offline_midrun target 1; }
test_ipistorm_offline_target_wait0() { offline_midrun target 0; }
test_ipistorm_offline_sender_wait1() { offline_midrun sender 1; }

# Fixed-count mode ends at its time cap, with a status of its own.
test_ipistorm_time_cap() {
	need_cpus 2
	t0=$(date +%s)
	storm numipi=1000000000 single=1 cpulist="$(cpu 0)" offset=1 time_cap=1
	t1=$(date +%s)
	check_run
	[ "$(val ipistorm status)" = capped ] || fail "status $(val ipistorm status), not capped"
	check "$(val ipistorm sender0.capped) == 1" "the sender is not marked capped"
	check "$(val ipistorm sender0.sent) < 1000000000" "all calls made in 1 s"
	check "$t1 - $t0 <= 4" "insmod took $((t1 - t0)) s for a 1 s cap"
}

# pairs= takes what a 512-CPU server needs: 256 pairs, longer than a
# charp parameter's 1024 characters. This guest has fewer CPUs: the list is
# parsed up to its first pair naming a CPU it lacks, and the error names
# that pair.
test_ipistorm_pairs_256() {
	need_cpus 2
	n=$(ncpus)
	[ "$(cpu $((n - 1)))" = $((n - 1)) ] || skip "online CPUs are not 0-$((n - 1))"
	list=$(awk -v n="$n" 'BEGIN { for (i = 0; i < 256; i++)
		printf "%s%d:%d", i ? "," : "", i, i < n ? (i + 1) % n : i + 256 }')
	check "${#list} > 1024" "a 256-pair list of ${#list} characters"
	mark=$(dmesg_mark)
	if insmod "$(ko ipistorm)" numipi=10 pairs="$list" 2>/dev/null; then
		rmmod ipistorm
		[ "$n" -ge 512 ] || fail "pairs naming absent CPUs were accepted"
		return 0
	fi
	dmesg_since "$mark" | grep -q "ipistorm: pairs=...: pair $((n + 1)) $n:$((n + 256)) names a CPU that is not online" ||
		fail "the list was not parsed up to pair $((n + 1)): $(dmesg_since "$mark" | tail -n 2)"
	! loaded ipistorm || fail "module loaded"
}

# logged_storm PARAMS...: a storm whose kernel-log lines are counted: at
# most 20 whatever the number of CPUs (the detail is in debugfs).
logged_storm() {
	mark=$(dmesg_mark)
	storm "$@"
	lines=$(log_lines "$mark" ipistorm)
	check "$lines <= 20" "$lines kernel-log lines for one run"
	dmesg_since "$mark" | tail -n 1 | grep -q "ipistorm: status=" ||
		fail "the log does not end with the status line"
}

# Every online CPU storms every other: each callback accounted.
test_ipistorm_all_cpus() {
	need_cpus 2
	n=$(ncpus)
	logged_storm numipi=20 single=0 wait=1 cpulist="$(cat /sys/devices/system/cpu/online)"
	check_run
	check "$(val ipistorm total.callbacks) == 20 * $n * ($n - 1)" "callbacks lost"
	note "$n senders, $(val ipistorm total.callbacks) callbacks, $lines log lines"
}

# Up to 32 pairs from the first NUMA node to the second.
test_ipistorm_cross_node_pairs() {
	[ -r /sys/devices/system/node/node1/cpulist ] || skip "one NUMA node"
	list=$(for node in 0 1; do
		cpu_list=$(cat "/sys/devices/system/node/node$node/cpulist")
		echo "$cpu_list" | tr ',' '\n' | awk -F- '{ hi = NF > 1 ? $2 : $1
			for (c = $1; c <= hi; c++) printf "%d ", c }'
		echo
	done | awk 'NR == 1 { n = split($0, a, " ") } NR == 2 { m = split($0, b, " ") }
		END { k = n < m ? n : m; if (k > 32) k = 32
		for (i = 1; i <= k; i++) printf "%s%d:%d", (i > 1 ? "," : ""), a[i], b[i] }')
	[ -n "$list" ] || skip "no CPUs on the second node"
	logged_storm numipi=2000 pairs="$list"
	check_run
	k=$(val ipistorm senders)
	check "$(val ipistorm total.callbacks) == 2000 * $k" "callbacks lost"
	note "$k cross-node pairs, $lines log lines"
}

# Loading and unloading many times leaks no memory: a leaked sender
# (about 5 kB of slab and a 16 kB stack each), result text (vmalloc) or
# per-CPU counters would add up over 100 runs of one sender per CPU.
#
# Exited threads free their task and stack after an RCU grace period, and
# each CPU caches up to two freed stacks (vmalloc memory), so the counters
# are read when settled (the least of three readings a second apart) and
# vmalloc may move by two stacks per CPU. A leak of one page per run
# (400 kB) stays well beyond that on the test bed's 4 CPUs.
meminfo() {
	for _r in 1 2 3; do
		sleep 1
		awk '/^(SUnreclaim|VmallocUsed|Percpu):/ { printf "%s ", $2 }' /proc/meminfo
		echo
	done | awk '{ for (i = 1; i <= NF; i++) if (NR == 1 || $i < m[i]) m[i] = $i }
		END { printf "%d %d %d", m[1], m[2], m[3] }'
}

# Kernel stack size in kB: KernelStack over the number of threads, to the
# nearest power of two (idle tasks have stacks but no /proc entry).
stack_kb() {
	_t=$(cat /proc/[0-9]*/task/[0-9]*/stat 2>/dev/null | wc -l)
	awk -v t="$_t" '/^KernelStack:/ { s = $2 / t; k = 4
		while (k * 1.5 < s) k *= 2; print k }' /proc/meminfo
}

# Every allocation of a load failed once, in each shape that allocates
# differently (alloc_failures: a debug kernel's fail-nth; skipped without):
# one pair timed, pairs untimed, every CPU, the witness, the bare module.
# shellcheck disable=SC2154 # alloc_failures_each sets af_each
test_ipistorm_alloc_failures() {
	need_cpus 4
	unload ipistorm
	alloc_failures_each ipistorm "numipi=50 single=1 cpulist=$(cpu 1)" \
		"numipi=50 single=1 pairs=$(cpu 0):$(cpu 1),$(cpu 2):$(cpu 3) timing=0" \
		"numipi=20 single=0 cpulist=$(cat /sys/devices/system/cpu/online)" \
		"numipi=50 single=1 cpulist=$(cpu 1) witness=1" \
		"numipi=50 single=1 cpulist=$(cpu 1) idle_states=1"
	alloc_failures ipistorm_bare numipi=50 cpu="$(cpu 0)" target="$(cpu 1)"
	note "injection points per shape:$af_each; ipistorm_bare $af_points"
}

test_ipistorm_no_leak() {
	need_cpus 2
	unload ipistorm
	all=$(cat /sys/devices/system/cpu/online)
	ncpu=$(grep -c '^processor' /proc/cpuinfo)
	slack=$((2 * ncpu * $(stack_kb) + 64))
	i=0
	while [ $i -lt 110 ]; do
		[ $i = 10 ] && before=$(meminfo)
		storm numipi=10 single=0 cpulist="$all"
		i=$((i + 1))
	done
	after=$(meminfo)
	note "SUnreclaim, VmallocUsed, Percpu (kB): before $before, after $after; vmalloc slack $slack kB"
	# shellcheck disable=SC2086 # three numbers each
	set -- $before $after
	check "$4 <= $1 + 1024" "unreclaimable slab grew by $(($4 - $1)) kB"
	check "$5 <= $2 + $slack" "vmalloc grew by $(($5 - $2)) kB"
	check "$6 <= $3 + 64" "per-CPU memory grew by $(($6 - $3)) kB"
}

# A long storm must not trip the soft-lockup, RCU-stall or hung-task
# detectors (the test bed boots with watchdog_thresh=2 and a 5 s RCU stall
# timeout, and sets a 10 s hung-task timeout).
test_ipistorm_long() {
	need_cpus 2
	storm numipi="${IPISTORM_LONG_NUMIPI:-10000000}" single=1 wait=1 \
		cpulist="$(cpu 0)" offset=1 timing=0
	check_run
	note "$(val ipistorm sender0.sent) calls in $(val ipistorm runtime_ns) ns"
}
