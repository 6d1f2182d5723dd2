# shellcheck shell=dash
# The test bed's MMTests run, a test of the suite's runner (selftest.sh):
# the test bed's image holds it as mmtests/tests/mmtests.sh beside a copy
# of MMTests at /mmtests with the integration installed and the suite's
# modules as its installed build (mmtests/tests/testbed/testbed.sh). The kernel
# command line names the run and its configs:
#   MMTESTS_RUN=NAME MMTESTS_CONFIGS=CONFIG[,CONFIG...]
# The run's log directory, work/log/NAME, comes back as a gzipped tar in
# base64 between the lines MMTESTS_LOG_BEGIN and MMTESTS_LOG_END.

test_mmtests_run() {
	[ -n "${MMTESTS_RUN:-}" ] || skip "no MMTESTS_RUN= on the kernel command line"
	[ -x /mmtests/bin/run-single-test.sh ] || skip "no MMTests at /mmtests"
	command -v bash >/dev/null || skip "no bash in the image"
	_configs=""
	for _c in $(echo "${MMTESTS_CONFIGS:-}" | tr ',' ' '); do
		_configs="$_configs /mmtests/$_c"
	done
	[ -n "$_configs" ] || fail "no MMTESTS_CONFIGS= on the kernel command line"
	_rc=0
	# shellcheck disable=SC2086 # a list of configs
	bash /mmtests/guest-run.sh /mmtests "$MMTESTS_RUN" $_configs >"$TMP/mmtests.out" 2>&1 || _rc=$?
	grep -E '^(Installing|Starting) test|^test exit|^FATAL|^ERROR|run\.sh: ' "$TMP/mmtests.out" | head -n 40
	echo MMTESTS_LOG_BEGIN
	tar -C /mmtests/work/log -cf - "$MMTESTS_RUN" | gzip -c | base64
	echo MMTESTS_LOG_END
	[ "$_rc" = 0 ] || tail -n 30 "$TMP/mmtests.out"
	[ "$_rc" = 0 ] || fail "the MMTests run failed (exit $_rc)"
}
