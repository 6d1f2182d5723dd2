# shellcheck shell=dash
# The test bed's sweep, a test of the suite's runner (selftest.sh): the
# test bed's image holds it as sweep/tests/sweep.sh
# (scripts/tests/testbed/sweep.sh puts it there). With SWEEP_RUN=N on the
# kernel command line it runs a sweep of ipistorm over every pair class
# the guest has, N runs a cell, and sends the sweep directory back as a
# gzipped tar in base64 between the lines SWEEP_RESULT_BEGIN and
# SWEEP_RESULT_END.

test_sweep_run() {
	[ -n "${SWEEP_RUN:-}" ] || skip "no SWEEP_RUN= on the kernel command line"
	_rc=0
	sh "$SUITE/scripts/sweep.sh" -o /tmp/sweep -n "$SWEEP_RUN" -w 1 -m "$MODDIR" -t all \
		ipistorm numipi=2000 wait=1 >"$TMP/sweep.out" 2>&1 || _rc=$?
	grep -v '^run.sh: .*iter-' "$TMP/sweep.out" || :
	if [ -f /tmp/sweep/sweep.txt ]; then
		echo SWEEP_RESULT_BEGIN
		tar -C /tmp -cf - sweep | gzip -c | base64
		echo SWEEP_RESULT_END
	fi
	[ "$_rc" = 0 ] || fail "sweep.sh failed (exit $_rc)"
}
