#!/usr/bin/env bats
# selftest.sh's KTAP frame, without loading anything: a pattern that
# selects no test.

@test "selftest: KTAP header and kselftest's Totals line, under busybox sh" {
	run busybox sh "$BATS_TEST_DIRNAME/../selftest.sh" no_such_test
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "KTAP version 1" ]
	[ "${lines[1]}" = "1..0" ]
	[ "${lines[${#lines[@]} - 1]}" = "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:0" ]
}

@test "selftest: -l lists the tests of every module" {
	run busybox sh "$BATS_TEST_DIRNAME/../selftest.sh" -l
	[ "$status" -eq 0 ]
	[[ $output == *ipistorm_* ]]
	[[ $output == *idle_reentry_* ]]
	[[ $output == *nohz_csd_* ]]
}
