#!/usr/bin/env bats
# selftest.sh's KTAP frame, without loading anything: patterns that
# select no test.

@test "selftest: KTAP header and kselftest's Totals line, under busybox sh; a pattern of no test fails" {
	# a pattern that matches no test is a result, failed: a misspelt
	# name in a boot's list must not pass as 1..0
	run busybox sh "$BATS_TEST_DIRNAME/../selftest.sh" no_such_test 'no_such_*'
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "KTAP version 1" ]
	[ "${lines[1]}" = "1..2" ]
	[[ $output == *$'\n'"# no test is named no_such_test"$'\n'"not ok 1 no_such_test"$'\n'* ]]
	[[ $output == *$'\n'"not ok 2 no_such_*"$'\n'* ]]
	[ "${lines[${#lines[@]} - 1]}" = "# Totals: pass:0 fail:2 xfail:0 xpass:0 skip:0 error:0" ]
	run busybox sh "$BATS_TEST_DIRNAME/../selftest.sh" -l 'ipistorm_pair*' no_such_test
	[ "$status" -eq 1 ]
	[[ $output == *ipistorm_pairs* ]]
	[[ $output == *"selftest.sh: no test is named no_such_test"* ]]
}

@test "selftest: -l lists the tests of every module" {
	run busybox sh "$BATS_TEST_DIRNAME/../selftest.sh" -l
	[ "$status" -eq 0 ]
	[[ $output == *ipistorm_* ]]
	[[ $output == *idle_reentry_* ]]
	[[ $output == *nohz_csd_* ]]
}

@test "selftest: -a and -f keep the selection after or from a test, for the test bed's fresh boots" {
	run busybox sh "$BATS_TEST_DIRNAME/../selftest.sh" -l 'ipistorm_p*'
	[ "$status" -eq 0 ]
	all=$output
	first=${lines[0]} second=${lines[1]}
	run busybox sh "$BATS_TEST_DIRNAME/../selftest.sh" -l -f "$first" 'ipistorm_p*'
	[ "$output" = "$all" ]
	run busybox sh "$BATS_TEST_DIRNAME/../selftest.sh" -l -a "$first" 'ipistorm_p*'
	[ "$output" = "$(sed 1d <<<"$all")" ]
	[ "${lines[0]}" = "$second" ]
	# every test after one: the functional boot's restart, no pattern
	run busybox sh "$BATS_TEST_DIRNAME/../selftest.sh" -l -a "$first"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" != "$first" ]
	[[ $output == *"$second"* ]]
	run busybox sh "$BATS_TEST_DIRNAME/../selftest.sh" -l -a no_such_test 'ipistorm_p*'
	[ "$status" -eq 2 ]
	run busybox sh "$BATS_TEST_DIRNAME/../selftest.sh" -l -a "$first" -f "$first"
	[ "$status" -eq 2 ]
}
