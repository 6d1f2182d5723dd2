# shellcheck shell=sh
# Tests of placement.ko, sourced by scripts/selftest.sh (whose helpers,
# cpu() and uptime_cs() among them, they use).

PL_CTL=/sys/kernel/debug/placement/control
PL_RESULT=/sys/kernel/debug/placement/result
PL_RELS="same_cpu same_llc other_llc other_node"
PL_NOTIFY="poll ipi none both"

# place PARAMS...: a counted run that must load, its result in $TMP/placement.
place() {
	unload placement
	load placement "$@"
	unload placement
}

# pl_split PREFIX NAMES: the wake-ups of the scopes PREFIX.NAME summed.
pl_split() {
	_s=0
	for _k in $2; do
		_s=$((_s + $(val placement "$1.$_k.wakeups")))
	done
	echo "$_s"
}

# The checks every finished run must pass: every wake-up sent woke its
# wakee, was seen enqueued once and run, on the CPU the wakee itself
# read, inside cpulist, timed forwards; each split adds up to the total.
# shellcheck disable=SC2154 # vals sets the variables
check_pl() {
	[ "$(val placement format)" = placement/1 ] || fail "unknown result format"
	vals placement total. _sent=sent _woken=woken _n=wakeups
	check "$_woken == $_sent" "$_woken woken of $_sent sent"
	for _k in unclassified outside_cpulist witness_mismatch clock_backwards; do
		check "$(val placement "total.$_k") == 0" "total.$_k=$(val placement "total.$_k")"
	done
	check "$_n == $_sent" "total.wakeups=$_n of $_sent sent"
	check "$(pl_split target "idle busy") == $_n" "idle and busy targets do not add up to $_n"
	check "$(pl_split waker "$PL_RELS") == $_n" "the relations to the waker do not add up to $_n"
	check "$(pl_split prev "$PL_RELS") == $_n" "the relations to the previous CPU do not add up to $_n"
	check "$(pl_split notify "$PL_NOTIFY") == $_n" "the notifications do not add up to $_n"
	_placed=$(awk -F= '/^cpu[0-9]+\.placed=/ { s += $2 } END { print s + 0 }' "$TMP/placement")
	check "$_placed == $_n" "cpuN.placed adds up to $_placed, not $_n"
	check_hist placement sender0.lat "$_n"
	[ "$(val placement total.lat_includes_probes)" = 1 ] || fail "no lat_includes_probes"
	[ "$(val placement clock_skew)" = not_bounded ] || fail "clock_skew=$(val placement clock_skew)"
	case $(val placement status) in
	complete | stopped) ;;
	*) fail "status=$(val placement status)" ;;
	esac
}

# pl_share KEY: KEY's wake-ups in percent of the total, rounded down.
pl_share() {
	echo $(($(val placement "$1.wakeups") * 100 / $(val placement total.wakeups)))
}

# pl_irqs CPU...: the reschedule and call-function interrupts the kernel
# counted on the CPUs (/proc/interrupts' RES and CAL rows).
pl_irqs() {
	awk -v cpus=" $* " '
		NR == 1 { for (i = 1; i <= NF; i++) if (index(cpus, " " substr($i, 4) " ")) col[i + 1] = 1; next }
		$1 == "RES:" || $1 == "CAL:" { for (i in col) s += $i }
		END { print s + 0 }' /proc/interrupts
}

# Every allowed CPU idle: the targets are idle, and the wakee runs after
# idle, not behind a task, most of the time (a kworker may be running).
# The kernel's own IPI counts on those CPUs (a second witness) hold at
# least the wake-ups said notified by IPI.
test_placement_idle_targets() {
	need_cpus 4
	irq0=$(pl_irqs "$(cpu 1)" "$(cpu 2)" "$(cpu 3)")
	place numwake=3000 waker="$(cpu 0)" cpulist="$(cpu 1)-$(cpu 3)"
	irqs=$(($(pl_irqs "$(cpu 1)" "$(cpu 2)" "$(cpu 3)") - irq0))
	check_pl
	ipi=$(($(val placement notify.ipi.wakeups) + $(val placement notify.both.wakeups)))
	check "$irqs >= $ipi" "the kernel counted $irqs IPIs on the targets, the module $ipi wake-ups by IPI"
	note "kernel's IPI count on the targets: $irqs; wake-ups by IPI: $ipi"
	check "$(pl_share target.idle) >= 90" "idle targets: $(pl_share target.idle) %"
	check "$(val placement total.behind) * 10 <= $(val placement total.wakeups)" \
		"$(val placement total.behind) wake-ups ran behind a task"
	note "idle targets: $(pl_share target.idle) %, notified poll $(pl_share notify.poll) % ipi $(pl_share notify.ipi) % none $(pl_share notify.none) %; p50 $(val placement target.idle.lat_p50_ns) ns, p99 $(val placement target.idle.lat_p99_ns) ns"
}

# Every allowed CPU busy with the module's own thread: every target is
# busy at the enqueue and every wake-up runs after that task, exactly.
test_placement_busy_targets() {
	need_cpus 4
	l="$(cpu 1)-$(cpu 3)"
	place numwake=600 waker="$(cpu 0)" cpulist="$l" busy="$l"
	check_pl
	n=$(val placement total.wakeups)
	check "$(val placement target.busy.wakeups) == $n" "busy targets: $(val placement target.busy.wakeups) of $n"
	check "$(val placement total.behind) == $n" "behind a task: $(val placement total.behind) of $n"
	note "busy targets: p50 $(val placement target.busy.lat_p50_ns) ns, p99 $(val placement target.busy.lat_p99_ns) ns, wait p50 $(val placement target.busy.wait_p50_ns) ns"
}

# Two of three allowed CPUs busy: the kernel finds the idle one.
test_placement_finds_idle() {
	need_cpus 4
	idle=$(cpu 3)
	place numwake=2000 waker="$(cpu 0)" cpulist="$(cpu 1)-$idle" busy="$(cpu 1),$(cpu 2)"
	check_pl
	check "$(pl_share target.idle) >= 80" "idle targets: $(pl_share target.idle) %"
	check "$(val placement "cpu$idle.placed") * 100 >= $(val placement total.wakeups) * 80" \
		"CPU $idle, the idle one, took $(val placement "cpu$idle.placed") of $(val placement total.wakeups)"
	note "idle CPU $idle took $(val placement "cpu$idle.placed"); busy CPUs $(val placement "cpu$(cpu 1).placed") and $(val placement "cpu$(cpu 2).placed")"
}

# Every allowed CPU busy in bursts (200 us on, 200 us asleep): unlike
# spinning threads (test_placement_busy_targets, every target busy), the
# kernel finds CPUs idle between bursts. The threads slept, and no more
# often than bursts as long as asked allow in insmod's time.
test_placement_bursty() {
	need_cpus 4
	l="$(cpu 1)-$(cpu 3)"
	t0=$(uptime_cs)
	place numwake=2000 waker="$(cpu 0)" cpulist="$l" busy="$l" busy_run_us=200 busy_sleep_us=200
	cs=$(($(uptime_cs) - t0 + 1))
	check_pl
	[ "$(val placement busy_run_us)" = 200 ] || fail "busy_run_us=$(val placement busy_run_us)"
	s=$(val placement total.busy_sleeps)
	check "$s >= 1" "the bursty threads never slept"
	# 3 threads, a cycle of 400 us: 25 a centisecond each at most
	check "$s <= 75 * $cs + 3" "$s sleeps in ${cs}0 ms: bursts shorter than asked"
	check "$(val placement target.idle.wakeups) >= 1" "no idle target beside bursty threads"
	note "bursty: $s sleeps in ${cs}0 ms; idle targets $(pl_share target.idle) %, behind $(val placement total.behind); busy p50 $(val placement target.busy.lat_p50_ns) ns, idle p50 $(val placement target.idle.lat_p50_ns) ns"
}

# Two wakees on the waker's CPU and another: one starts on each, the
# waker's last, as each wakee reads its own CPU when it starts. (Where
# they go next is the kernel's: the one beside the waker stays there
# while the waker's CPU runs nothing else, a per-CPU kthread's wakee.)
test_placement_start() {
	need_cpus 2
	c0=$(cpu 0) c1=$(cpu 1)
	place numwake=1000 waker="$c0" cpulist="$c0,$c1" wakees=2
	check_pl
	check "$(val placement "cpu$c1.started") == 1 && $(val placement "cpu$c0.started") == 1" \
		"wakees started on CPU $c1: $(val placement "cpu$c1.started"), on the waker's: $(val placement "cpu$c0.started"); want 1 and 1"
	note "start: $(val placement waker.same_cpu.wakeups) of $(val placement total.wakeups) wake-ups on the waker's CPU, $(val placement "cpu$c1.placed") on CPU $c1"
}

# The waker's own CPU only: every wake-up is there, behind the waker.
test_placement_same_cpu() {
	need_cpus 2
	c=$(cpu 1)
	place numwake=1000 waker="$c" cpulist="$c" wakees=3
	check_pl
	n=$(val placement total.wakeups)
	for k in waker.same_cpu prev.same_cpu target.busy; do
		check "$(val placement "$k.wakeups") == $n" "$k: $(val placement "$k.wakeups") of $n"
	done
	check "$(val placement total.behind) == $n" "behind a task: $(val placement total.behind) of $n"
	# neither polled nor sent an IPI, but for a stray IPI in the window
	check "$(val placement notify.none.wakeups) * 100 >= $n * 99" "notified: $(val placement notify.none.wakeups) of $n none"
}

# The module's LLC and node of every CPU agree with sysfs: two CPUs share
# an LLC id when each is in the other's last cache level's
# shared_cpu_list, and a node when it lists them. One awk pass, as a
# 64-CPU boot has thousands of pairs.
pl_check_topology() {
	: >"$TMP/placement-topo"
	_cpus=$(sed -n 's/^cpu\([0-9]*\)\.llc=.*/\1/p' "$TMP/placement")
	for c in $_cpus; do
		d=/sys/devices/system/cpu/cpu$c
		idx=
		for i in "$d"/cache/index*; do [ ! -e "$i" ] || idx=$i; done
		[ -n "$idx" ] || skip "no cache topology in sysfs"
		node=0
		for i in "$d"/node*; do [ ! -e "$i" ] || node=${i##*node}; done
		echo "$c $node $(cat "$idx/shared_cpu_list")" >>"$TMP/placement-topo"
	done
	awk -F'[=. ]' '
		NR == FNR { if ($1 ~ /^cpu[0-9]+$/ && ($2 == "llc" || $2 == "node")) v[substr($1, 4), $2] = $3; next }
		{
			c = $1
			if (v[c, "node"] != $2) { print "CPU " c ": node " v[c, "node"] ", sysfs " $2; bad = 1 }
			split("", shared)
			n = split($3, r, ",")
			for (i = 1; i <= n; i++) {
				m = split(r[i], b, "-")
				for (x = b[1] + 0; x <= (m > 1 ? b[2] : b[1]) + 0; x++) shared[x] = 1
			}
			for (k in v) {
				split(k, kk, SUBSEP)
				if (kk[2] != "llc") continue
				same = v[kk[1], "llc"] == v[c, "llc"]
				if (same != ((kk[1] + 0) in shared)) { print "CPUs " c " and " kk[1] ": same LLC id " same ", sysfs " $3; bad = 1 }
			}
		}
		END { exit bad }' "$TMP/placement" "$TMP/placement-topo" >"$TMP/placement-topo-bad" ||
		fail "$(head -n 3 "$TMP/placement-topo-bad" | tr '\n' ';')"
}

test_placement_topology() {
	need_cpus 2
	place numwake=100 waker="$(cpu 0)" cpulist="$(cpu 1)-$(cpu $(($(ncpus) - 1)))"
	check_pl
	pl_check_topology
	note "llcs=$(val placement llcs) nodes=$(val placement nodes)"
}

# Two sockets (the big boot): the other socket is another node and LLC,
# the waker's own socket its LLC; the module's topology is sysfs's.
test_placement_sockets() {
	need_cpus 4
	n=$(ncpus)
	half=$((n / 2))
	place numwake=500 waker=0 cpulist="$half-$((n - 1))"
	[ "$(val placement nodes)" -ge 2 ] || skip "one node"
	check_pl
	pl_check_topology
	check "$(val placement waker.other_node.wakeups) == 500" \
		"other socket: $(val placement waker.other_node.wakeups) of 500 in another node"
	place numwake=500 waker=0 cpulist="1-$((half - 1))"
	check_pl
	check "$(val placement waker.same_llc.wakeups) == 500" \
		"own socket: $(val placement waker.same_llc.wakeups) of 500 in the waker's LLC"
	place numwake=2000 waker=0 cpulist="1-$((n - 1))" wakees=4 busy="1-$((half - 1))"
	check_pl
	note "all CPUs, own socket busy: same_llc $(pl_share waker.same_llc) % other_node $(pl_share waker.other_node) %; idle $(pl_share target.idle) %"
}

# pl_stop_params HOW: a run until stopped, beside a busy thread. Through
# param the thread is bursty and asleep 10 s after each 1 ms: unless the
# stop wakes it, the stop takes seconds.
pl_stop_params() {
	echo waker="$(cpu 0)" cpulist="$(cpu 1)" busy="$(cpu 1)"
	[ "$1" != param ] || echo busy_run_us=1000 busy_sleep_us=10000000
}

# A run until stopped ends within 1 s of a stop, whichever way, its busy
# thread too.
test_placement_stop() {
	need_cpus 2
	stop_within placement pl_stop_params check_pl
	unload placement
	insmod "$(ko placement)" numwake=100000000 waker="$(cpu 0)" cpulist="$(cpu 1)" &
	pid=$!
	sleep 2
	_n=0
	while [ ! -e "$PL_CTL" ] && [ "$_n" -lt 20 ]; do
		sleep 1
		_n=$((_n + 1))
	done
	echo stop >"$PL_CTL" || fail "cannot write $PL_CTL"
	wait "$pid" || fail "insmod failed after a stop"
	cat "$PL_RESULT" >"$TMP/placement"
	unload placement
	check_pl
	[ "$(val placement status)" = stopped ] || fail "status=$(val placement status), not stopped"
}

# Stops at once after the start, again and again: a stop that lands
# during a wake-up leaves no thread, no splat, and the next load works.
test_placement_stop_repeated() {
	need_cpus 4
	i=0
	while [ "$i" -lt 10 ]; do
		unload placement
		insmod "$(ko placement)" waker="$(cpu 0)" cpulist="$(cpu 1)-$(cpu 3)" wakees=3 ||
			fail "insmod placement failed"
		echo 1 >/sys/module/placement/parameters/stop || fail "stop failed"
		rmmod placement || fail "rmmod failed"
		no_threads placement
		i=$((i + 1))
	done
	place numwake=100 waker="$(cpu 0)" cpulist="$(cpu 1)-$(cpu 3)"
	check_pl
}

# A signal to insmod ends a count at once, unreported, nothing left.
test_placement_interrupt() {
	need_cpus 2
	interrupted placement placement numwake=100000000 waker="$(cpu 0)" \
		cpulist="$(cpu 1)" busy="$(cpu 1)"
	dmesg_since "$mark" | grep -q "placement: status=interrupted$" ||
		fail "no interrupted status in the log"
}

test_placement_timed() {
	need_cpus 2
	t0=$(date +%s)
	place duration=2 waker="$(cpu 0)" cpulist="$(cpu 1)"
	t1=$(date +%s)
	check_pl
	[ "$(val placement mode)" = timed ] || fail "mode=$(val placement mode)"
	check "$t1 - $t0 <= 4" "insmod took $((t1 - t0)) s for 2 s"
	# the waker starts once its threads are ready, after the session
	check "$(val placement runtime_ns) >= 1.5e9" "a 2 s run lasted $(val placement runtime_ns) ns"
}

test_placement_hostile_params() {
	need_cpus 3
	c0=$(cpu 0) c1=$(cpu 1) c2=$(cpu 2)
	hostile placement 23 placement <<-EOF
	numwake|numwake=10 duration=1 waker=$c0 cpulist=$c1
	numwake|numwake=200000000 waker=$c0 cpulist=$c1
	numwake|numwake=-1 waker=$c0 cpulist=$c1
	duration|duration=100000 waker=$c0 cpulist=$c1
	waker|numwake=10 cpulist=$c1
	waker|numwake=10 waker=99999 cpulist=$c1
	waker|numwake=10 waker=-2 cpulist=$c1
	cpulist|numwake=10 waker=$c0
	cpulist|numwake=10 waker=$c0 cpulist=
	cpulist|numwake=10 waker=$c0 cpulist=abc
	cpulist|numwake=10 waker=$c0 cpulist=99999
	wakees|numwake=10 waker=$c0 cpulist=$c1 wakees=0
	wakees|numwake=10 waker=$c0 cpulist=$c1 wakees=100000
	busy|numwake=10 waker=$c0 cpulist=$c1 busy=$c2
	busy|numwake=10 waker=$c0 cpulist=$c1 busy=$c0
	busy|numwake=10 waker=$c0 cpulist=$c1 busy=
	busy|numwake=10 waker=$c0 cpulist=$c1 busy=99999
	busy_run_us|numwake=10 waker=$c0 cpulist=$c1 busy=$c1 busy_run_us=100
	busy_sleep_us|numwake=10 waker=$c0 cpulist=$c1 busy=$c1 busy_sleep_us=100
	busy_run_us|numwake=10 waker=$c0 cpulist=$c1 busy_run_us=100 busy_sleep_us=100
	busy_run_us|numwake=10 waker=$c0 cpulist=$c1 busy=$c1 busy_run_us=10000001 busy_sleep_us=100
	busy_sleep_us|numwake=10 waker=$c0 cpulist=$c1 busy=$c1 busy_run_us=100 busy_sleep_us=10000001
	stop|numwake=10 waker=$c0 cpulist=$c1 stop=1
	EOF
}

# A CPU of cpulist, busy, going offline mid-run: the kernel places the
# wakee elsewhere, the busy thread stops, the run completes. The waker's
# CPU going offline ends the run with ENXIO.
test_placement_offline() {
	need_cpus 4
	off=$(cpu 2)
	[ -w "/sys/devices/system/cpu/cpu$off/online" ] || skip "CPU $off cannot go offline"
	unload placement
	insmod "$(ko placement)" duration=4 waker="$(cpu 0)" cpulist="$(cpu 1)-$(cpu 3)" \
		busy="$off" wakees=2 &
	pid=$!
	sleep 1
	echo 0 >"/sys/devices/system/cpu/cpu$off/online"
	sleep 1
	echo 1 >"/sys/devices/system/cpu/cpu$off/online"
	wait "$pid" || fail "insmod failed"
	cat "$PL_RESULT" >"$TMP/placement"
	unload placement
	check_pl
	no_threads placement
	unload placement
	insmod "$(ko placement)" duration=30 waker="$off" cpulist="$(cpu 1)" &
	pid=$!
	sleep 1
	echo 0 >"/sys/devices/system/cpu/cpu$off/online"
	t0=$(date +%s)
	wait "$pid" || fail "insmod failed"
	echo 1 >"/sys/devices/system/cpu/cpu$off/online"
	check "$(date +%s) - $t0 <= 10" "insmod still ran $(($(date +%s) - t0)) s after"
	cat "$PL_RESULT" >"$TMP/placement"
	unload placement
	[ "$(val placement status)" = errors ] || fail "status=$(val placement status), not errors"
	check "$(val placement total.error) == -6" "error $(val placement total.error), not -ENXIO"
	no_threads placement
}

# A run's log: bounded, ending with its status line.
test_placement_log() {
	need_cpus 2
	mark=$(dmesg_mark)
	place numwake=200 waker="$(cpu 0)" cpulist="$(cpu 0)-$(cpu $(($(ncpus) - 1)))"
	lines=$(log_lines "$mark" placement)
	check "$lines <= 40" "$lines kernel-log lines for one run"
	dmesg_since "$mark" | tail -n 1 | grep -q "placement: status=" ||
		fail "the log does not end with the status line"
}

# Every allocation of a load failed once (a debug kernel's fail-nth;
# skipped without).
# shellcheck disable=SC2154 # alloc_failures sets af_points
test_placement_alloc_failures() {
	need_cpus 3
	unload placement
	alloc_failures placement numwake=50 waker="$(cpu 0)" cpulist="$(cpu 1),$(cpu 2)" busy="$(cpu 1)"
	note "injection points: $af_points"
}

# The suite's tools take the benchmark from its declaration: run.sh runs
# it twice with the machine's state, compare.sh compares the two runs
# (the same run, as of two kernels) and shows the split.
test_placement_run_compare() {
	need_cpus 4
	_d=$TMP/placement-run
	rm -rf "$_d-a" "$_d-b"
	for w in a b; do
		sh "$SUITE/scripts/run.sh" -n 3 -w 0 -m "$MODDIR" -o "$_d-$w" placement numwake=300 \
			waker="$(cpu 0)" cpulist="$(cpu 1)-$(cpu 3)" busy="$(cpu 1)" >"$TMP/placement-run.log" 2>&1 ||
			{ sed 's/^/# /' "$TMP/placement-run.log"; fail "run.sh placement ($w) failed"; }
	done
	grep -q '^total\.lat_p50_ns=' "$_d-a/iter-001.txt" || fail "no latency in run.sh's iteration"
	_rc=0
	sh "$SUITE/scripts/compare.sh" "$_d-a" "$_d-b" >"$TMP/placement-cmp" 2>&1 || _rc=$?
	case $_rc in
	0 | 1) sed -n '/^Verdict/,$s/^/# /p' "$TMP/placement-cmp" ;;
	*) sed 's/^/# /' "$TMP/placement-cmp"; fail "compare.sh exited $_rc" ;;
	esac
	grep -q 'target\.busy\.share_pct' "$TMP/placement-cmp" || fail "no busy share in the comparison"
	grep -q 'total\.lat_p50_ns' "$TMP/placement-cmp" || fail "no median latency in the comparison"
}
