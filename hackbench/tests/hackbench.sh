# shellcheck shell=sh
# Tests of the hackbench benchmark (a program, hackbench/bench.conf),
# sourced by scripts/selftest.sh; battery_run serves the battery's other
# tests too (cyclictest, netperf, netperf_stream, tbench).

# battery_run N BENCH PARAMS...: run.sh BENCH PARAMS, N iterations and no
# warm-up, into $TMP/BENCH-run; every iteration's result complete with
# every declared metric a number; the last one in $TMP/BENCH for val. A
# machine without the benchmark's programs skips the test.
battery_run() {
	_bn=$1 _br=$2
	shift 2
	for _bp in $(bench_get "$SUITE" "$_br" programs); do
		bench_program "$SUITE" "$_br" "$_bp" >/dev/null ||
			skip "needs $_bp ($(bench_program_from "$SUITE" "$_br"))"
	done
	_bd=$TMP/$_br-run
	rm -rf "$_bd"
	if ! sh "$SUITE/scripts/run.sh" -n "$_bn" -w 0 -o "$_bd" "$_br" "$@" >"$TMP/$_br-run.log" 2>&1; then
		sed 's/^/# /' "$TMP/$_br-run.log"
		for _bo in "$_bd"/out-iter-*.txt "$_bd"/server.txt; do
			[ ! -f "$_bo" ] || sed "s|^|# ${_bo##*/}: |" "$_bo"
		done
		fail "run.sh $_br $* failed"
	fi
	[ "$(key status "$_bd/meta.txt")" = ok ] || fail "$_bd/meta.txt: status is not ok"
	_bi=0
	while [ "$_bi" -lt "$_bn" ]; do
		_bi=$((_bi + 1))
		_bf=$(printf '%s/iter-%03d.txt' "$_bd" "$_bi")
		[ "$(key format "$_bf")" = ipistorm-program/2 ] || fail "$_bf: not ipistorm-program/2"
		[ "$(key status "$_bf")" = complete ] || fail "$_bf: status $(key status "$_bf")"
		for _bm in $(bench_metrics "$SUITE" "$_br"); do
			_bv=$(key "${_bm%:*}" "$_bf")
			case $_bv in
			'' | *[!0-9.]* | *.*.*) fail "$_bf: ${_bm%:*} is '$_bv', not a number" ;;
			esac
		done
	done
	[ ! -e "$(printf '%s/iter-%03d.txt' "$_bd" $((_bn + 1)))" ] || fail "more than $_bn iterations"
	cp "$_bf" "$TMP/$_br"
	note "$(grep -E '^(command|runtime_ns|total\.[a-z_]+)=' "$TMP/$_br" | tr '\n' ' ')"
}

# The least load: one group of 5 senders and 5 receivers, 400 messages
# each (some 100 ms under TCG: a run below 10 ms fails on hackbench's 1 ms
# resolution; 20 loops took 5 ms in threads over pipes), twice; once in
# threads over pipes.
test_hackbench_run() {
	battery_run 2 hackbench groups=1 fds=5 loops=400
	[ "$(val hackbench tasks)" = 10 ] || fail "tasks=$(val hackbench tasks), want 10"
	# 5 senders x 5 receivers x 400 messages
	[ "$(val hackbench total.msgs)" = 10000 ] || fail "total.msgs=$(val hackbench total.msgs), want 10000"
	check "$(val hackbench runtime_ns) >= 10000000" "a run below 10 ms passed"
	battery_run 1 hackbench groups=1 fds=5 loops=400 mode=threads ipc=pipe
	[ "$(val hackbench mode)" = threads ] || fail "mode=$(val hackbench mode), want threads"
	[ "$(val hackbench ipc)" = pipe ] || fail "ipc=$(val hackbench ipc), want pipe"
}
