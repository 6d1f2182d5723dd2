#!/bin/bash
# guest-run.sh MMTESTS_DIR RUNNAME CONFIG...: run the tests of the MMTests
# configs CONFIG... (MMTESTS=) as run-mmtests.sh does, in the test bed's
# busybox guest: install step, then bin/run-single-test.sh NAME RUNNAME
# with the activity and timestamp records run-mmtests.sh writes, into
# work/log/RUNNAME/iter-0. run-mmtests.sh itself is not run there: it
# installs packages through a Perl helper and collects machine details
# with tools the guest lacks (no Perl, no package manager); its shellpacks
# are generated on the host beforehand (shellpack_src/src/refresh.sh needs
# Perl too). A second call with the same RUNNAME adds to that run (the
# test bed runs ipistorm and idle_reentry in two boots, one timing mode
# each). Exit: 0 every test passed, 1 one failed.
# No set -eu: MMTests' common.sh, sourced here, relies on unset variables
# and failing commands.
cd "$1" || exit 1
RUNNAME=$2
shift 2
export SCRIPTDIR=$PWD
export PATH=$SCRIPTDIR/bin:$PATH
# shellcheck disable=SC2034 # read by import_configs
CONFIGS=("$@")
# shellcheck source=/dev/null
. shellpacks/common.sh
# shellcheck source=/dev/null
. shellpacks/common-config.sh
import_configs
setup_dirs

export SHELLPACK_LOG_RUNBASE=$SHELLPACK_LOG_BASE/$RUNNAME
export SHELLPACK_LOG=$SHELLPACK_LOG_RUNBASE/iter-0
export SHELLPACK_ACTIVITY=$SHELLPACK_LOG/tests-activity
export SHELLPACK_LOGFILE=$SHELLPACK_LOG/tests-timestamp
export SHELLPACK_SYSSTATEFILE=$SHELLPACK_LOG/tests-sysstate
export MMTESTS_ACTIVITY=$SHELLPACK_LOG_RUNBASE/mmtests-activity
mkdir -p "$SHELLPACK_LOG"
if [ ! -e "$SHELLPACK_ACTIVITY" ]; then
	activity_log "run-mmtests: Start"
	activity_log "run-mmtests: Iteration 1 start"
	teststate_log "start :: $(date +%s)"
	uname -r >"$SHELLPACK_LOG/kernel"
fi

rc=0
for TEST in $MMTESTS; do
	export CURRENT_TEST=$TEST
	echo "Installing test $TEST"
	INSTALL_ONLY=yes ./bin/run-single-test.sh "$TEST" "$RUNNAME" || { rc=1; continue; }
	echo "Starting test $TEST"
	teststate_log "test begin :: $TEST $(date +%s)"
	activity_log "run-mmtests: test start :: $TEST $(date +%s)"
	# As run-mmtests.sh: time(1)'s record is what the report's
	# Duration rows read (busybox's time takes the same -f and -o).
	"$(type -P time)" -f "time :: $TEST %U user %S system %e elapsed" \
		-o "$SHELLPACK_LOG/timestamp" ./bin/run-single-test.sh "$TEST" "$RUNNAME"
	EXIT_CODE=$?
	activity_log "run-mmtests: test end :: $TEST $(date +%s) $EXIT_CODE"
	teststate_log "test end :: $TEST $(date +%s) $EXIT_CODE"
	teststate_log "$(cat "$SHELLPACK_LOG/timestamp")"
	rm -f "$SHELLPACK_LOG/timestamp"
	echo "test exit :: $TEST $EXIT_CODE"
	[ "$EXIT_CODE" = 0 ] || rc=1
done
exit $rc
