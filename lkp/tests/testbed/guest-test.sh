# shellcheck shell=dash
# The test bed's lkp-tests run, a test of the suite's runner (selftest.sh):
# the test bed's image holds it as lkp/tests/lkp.sh beside a copy of
# lkp-tests at /lkp with the integration installed (lkp/tests/testbed/testbed.sh).
# The kernel command line names the program, the number of runs and the
# file of the job's parameters (NAME=VALUE lines from the split atom):
#   LKP_PROGRAM=NAME LKP_RUNS=N LKP_PARAMS=/lkp/PARAMS
# Each run is what job.sh's run side does for the atom: the parameters
# exported, lkp's bin/run-test (/bin/sh) running programs/NAME/run with
# its stdout teed into TMP_RESULT_ROOT/NAME. The setup step's build is the
# test bed's own (the suite's modules in /suite, linked where
# ipistorm-modules puts them). The runs' result roots come back as a
# gzipped tar in base64 between the lines LKP_RESULT_BEGIN and
# LKP_RESULT_END.

test_lkp_run() {
	[ -n "${LKP_PROGRAM:-}" ] || skip "no LKP_PROGRAM= on the kernel command line"
	[ -f /lkp/bin/run-test ] || skip "no lkp-tests at /lkp"
	command -v bash >/dev/null || skip "no bash in the image (lkp's programs are bash)"
	[ -f "${LKP_PARAMS:-}" ] || fail "no LKP_PARAMS= file on the kernel command line"
	_runs=${LKP_RUNS:-3}
	_top=$TMP/lkp
	mkdir -p "$_top/tmp" "$_top/result"
	# ipistorm-modules' tree: TMP/ipistorm-$(uname -r), the suite built.
	ln -s /suite "$_top/tmp/ipistorm-$(uname -r)"
	_rc=0 _n=0
	while [ "$_n" -lt "$_runs" ]; do
		_rr=$_top/result/$_n
		mkdir -p "$_rr"
		(
			export LKP_SRC=/lkp TMP="$_top/tmp" TMP_RESULT_ROOT="$_rr" \
				RESULT_ROOT="$_rr" BENCHMARK_ROOT=/suite IPISTORM_SOURCE=/suite
			while IFS= read -r _kv; do
				# shellcheck disable=SC2163 # NAME=VALUE
				[ -z "$_kv" ] || export "$_kv"
			done <"$LKP_PARAMS"
			sh /lkp/bin/run-test "$LKP_PROGRAM" >/dev/null 2>"$_rr/stderr"
		) || _rc=$?
		# run-test's tee ends when the program closes its stdout.
		_w=0
		while [ -f "$_top/tmp/.pid-pipes" ] && [ "$_w" -lt 50 ]; do
			_alive=0
			while read -r _p; do
				! kill -0 "$_p" 2>/dev/null || _alive=1
			done <"$_top/tmp/.pid-pipes"
			[ "$_alive" = 1 ] || break
			sleep 0.1
			_w=$((_w + 1))
		done
		echo "run $_n: exit $_rc, $(grep -c '^==> iter-' "$_rr/$LKP_PROGRAM" 2>/dev/null || echo 0) iterations"
		[ ! -s "$_rr/stderr" ] || sed 's/^/stderr: /' "$_rr/stderr" | head -n 20
		[ "$_rc" = 0 ] || break
		_n=$((_n + 1))
	done
	echo LKP_RESULT_BEGIN
	tar -C "$_top/result" -cf - . | gzip -c | base64
	echo LKP_RESULT_END
	[ "$_rc" = 0 ] || fail "run $_n of $LKP_PROGRAM failed (exit $_rc)"
}
