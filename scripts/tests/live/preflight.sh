# shellcheck shell=sh
# preflight.sh on the running kernel, sourced by scripts/selftest.sh (the
# bats tests judge fake EPYC and Xeon servers): what it says of this boot
# must be what the modules then do here.

# preflight_of BENCH...: preflight.sh's table in $TMP/preflight, its exit
# in $pf_rc.
preflight_of() {
	pf_rc=0
	sh "$SUITE/scripts/preflight.sh" -m "$MODDIR" "$@" >"$TMP/preflight" 2>&1 || pf_rc=$?
	sed 's/^/# /' "$TMP/preflight"
	case $pf_rc in 0 | 1 | 3) ;; *) fail "preflight.sh exited $pf_rc" ;; esac
	[ "$(head -n 1 "$TMP/preflight")" = format=ipistorm-preflight/1 ] || fail "no format line"
}
# pf_verdict BENCH: its verdict in $TMP/preflight.
pf_verdict() { sed -n "s/^$1: //p" "$TMP/preflight"; }
# pf_has BENCH TEXT: one of BENCH's reasons or notes holds TEXT.
pf_has() {
	awk -v b="$1:" '$1 == b { on = 1; next } /^[^ ]/ { on = 0 } on' "$TMP/preflight" | grep -q -- "$2"
}

# The verdict on loading agrees with insmod: invalid (an unsigned build
# where signatures are enforced) and refused, or not and loaded; and the
# machine is what the table says (virtual or not, idle=).
test_preflight_loading() {
	need_cpus 2
	unload ipistorm
	preflight_of ipistorm
	v=$(pf_verdict ipistorm)
	_rc=0
	load_module "$MODDIR" ipistorm numipi=10 single=1 wait=1 cpulist="$(cpu 0)" offset=1 >"$TMP/load" 2>&1 || _rc=$?
	unload ipistorm
	note "verdict $v, insmod exit $_rc"
	if [ "$v" = invalid ]; then
		check "$_rc != 0" "the preflight said invalid and ipistorm loaded"
		pf_has ipistorm "make sign" || fail "invalid, and not for the signature"
	else
		check "$_rc == 0" "the preflight said $v and ipistorm did not load: $(cat "$TMP/load")"
	fi
	if grep -q '^flags.* hypervisor' /proc/cpuinfo; then
		grep -q '^machine  *virtual' "$TMP/preflight" || fail "a virtual machine not said to be one"
	else
		grep -q '^machine  *bare metal' "$TMP/preflight" || fail "bare metal not said to be"
	fi
	_idle=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^idle=//p')
	grep -q "^idle  *idle=${_idle:-none} " "$TMP/preflight" || fail "idle= not as on the command line"
}

# What the preflight says of polling is what a storm then meets: with no
# polling idle state, (nearly) no callback runs from a polling idle task;
# with one, some do. And the storm times with the clock it said (the TSC,
# or the clocksource's ordered read where the TSC is not constant and
# stable).
test_preflight_polling_claim() {
	need_cpus 2
	preflight_of ipistorm
	[ "$(pf_verdict ipistorm)" != invalid ] || skip "ipistorm cannot load here"
	storm numipi=2000 single=1 wait=1 cpulist="$(cpu 0)" offset=1
	pct=$(val ipistorm total.poll_pct)
	if pf_has ipistorm "no enabled idle state polls"; then
		note "no polling idle state said; polled: $pct %"
		check "$pct < 10" "the preflight said nothing polls, and $pct % of the callbacks were polled"
	else
		note "a polling idle state or idle=poll; polled: $pct %"
		check "$pct > 0" "the preflight said the target polls, and no callback was polled"
	fi
	_want=tsc
	! pf_has ipistorm "a call is timed with ktime_get_mono_fast_ns" || _want=ktime
	_clock=$(val ipistorm clock)
	note "clock: $_clock (the preflight: $_want)"
	[ "$_clock" = "$_want" ] || fail "ipistorm timed with $_clock, the preflight said $_want"
}

# A second ftrace user on do_idle (the function tracer, filtered to it) is
# named for the two modules that hook do_idle, and gone with it.
test_preflight_second_ftrace_user() {
	t=/sys/kernel/tracing
	[ -w "$t/set_ftrace_filter" ] || skip "no tracefs to write"
	grep -q '^do_idle$' "$t/available_filter_functions" || skip "do_idle cannot be traced here"
	unload idle_reentry
	unload nohz_csd
	echo do_idle >"$t/set_ftrace_filter" 2>/dev/null || skip "tracefs refuses writes"
	if ! echo function >"$t/current_tracer"; then
		: >"$t/set_ftrace_filter"
		skip "no function tracer"
	fi
	preflight_of idle_reentry nohz_csd ipistorm
	echo nop >"$t/current_tracer"
	: >"$t/set_ftrace_filter"
	for m in idle_reentry nohz_csd; do
		pf_has "$m" "do_idle is already traced" || fail "$m: the second user of do_idle not named"
		[ "$(pf_verdict "$m")" != valid ] || fail "$m: valid beside another user of do_idle"
	done
	pf_has ipistorm "current_tracer=function" || fail "ipistorm: the function tracer not named"
	preflight_of idle_reentry nohz_csd
	! pf_has idle_reentry "already traced" || fail "a user named after it left"
}

# The functions the preflight takes each module to hook (lib.sh's
# module_hooks, read from its C and hooks.h) are the ones its hooks sit on: every
# kernel function enabled_functions shows with a direct call into the
# module, while it measures; and the module times with the clock the
# preflight said.
test_preflight_hook_list() {
	t=/sys/kernel/tracing
	[ -r "$t/enabled_functions" ] || skip "no tracefs"
	[ -z "$(cat "$t/enabled_functions")" ] || skip "another ftrace user is here"
	preflight_of idle_reentry nohz_csd >/dev/null
	for m in idle_reentry nohz_csd; do
		unload "$m"
		case $m in
		idle_reentry) load_module "$MODDIR" idle_reentry cpulist="$(cpu 0)" || fail "insmod idle_reentry" ;;
		nohz_csd) load_module "$MODDIR" nohz_csd || fail "insmod nohz_csd" ;;
		esac
		# FUNCTION lines of the records whose direct call goes to $m
		awk -v m="[$m]" '
			/^[^ \t]/ { f = $1; next }
			index($0, "direct-->") && index($0, m) && f !~ /^[a-z_]+_cal_fn_/ { print f }' \
			"$t/enabled_functions" | sed 's/\.[a-z]*\.[0-9]*$//' >"$TMP/sites"
		echo stop >"/sys/kernel/debug/$m/control" 2>/dev/null || :
		cat "/sys/kernel/debug/$m/result" >"$TMP/$m" 2>/dev/null || fail "no result of $m"
		unload "$m"
		_want=tsc
		! pf_has "$m" "the hooks time with sched_clock" || _want=sched_clock
		[ "$(val "$m" clock)" = "$_want" ] || fail "$m timed with $(val "$m" clock), the preflight said $_want"
		note "$m: direct calls on $(tr '\n' ' ' <"$TMP/sites")"
		[ -s "$TMP/sites" ] || fail "$m: no direct call seen"
		module_hooks "$SUITE" "$m" >"$TMP/listed"
		while read -r f; do
			grep -qx -e "$f" "$TMP/listed" || fail "$m hooks $f, which module_hooks does not list"
		done <"$TMP/sites"
	done
}
