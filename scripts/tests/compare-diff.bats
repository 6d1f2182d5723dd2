#!/usr/bin/env bats
# The differential test of compare.sh's statistics
# (fixtures/compare-diff/compare-diff.sh):
# generated data sets against R and MMTests' Stat.pm. CMP_DIFF_CASES
# cases (default 240) from seed CMP_DIFF_SEED (default 1); docs/compare.md.

bats_require_minimum_version 1.5.0

setup() {
	command -v Rscript >/dev/null || skip "no Rscript (r-base-core)"
	command -v perl >/dev/null || skip "no perl"
	D=$BATS_TEST_DIRNAME/fixtures/compare-diff
	S=$BATS_TEST_DIRNAME/..
}

@test "compare-diff: compare.sh agrees with R and MMTests on generated data" {
	run "$D/compare-diff.sh" "${CMP_DIFF_SEED:-1}" "${CMP_DIFF_CASES:-240}" "$BATS_TEST_TMPDIR/cases"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *" cases, 0 failures"* ]]
}

@test "compare-diff: busybox sh and awk agree too" {
	command -v busybox >/dev/null || skip "no busybox"
	run "$D/compare-diff.sh" -b "$((${CMP_DIFF_SEED:-1} + 100000))" "$(((${CMP_DIFF_CASES:-240} + 5) / 6))" "$BATS_TEST_TMPDIR/cases"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *" cases, 0 failures"* ]]
}

@test "compare-diff: a failure is caught and its seed printed" {
	# compare.sh made wrong on purpose: its Welch p doubled
	# (a copy of what compare.sh reads, beside the real snapshot's place)
	R=$BATS_TEST_TMPDIR/repo
	mkdir -p "$R/scripts/tests/fixtures/compare-diff"
	cp "$S/../Kbuild" "$R/"
	cp "$S"/*.sh "$S"/*.awk "$R/scripts/"
	cp "$D"/* "$R/scripts/tests/fixtures/compare-diff/"
	# shellcheck source=../lib.sh
	(. "$S/lib.sh" && suite_benches "$S/..") | while read -r m; do
		mkdir "$R/$m"
		cp "$S/../$m/bench.conf" "$R/$m/"
	done
	sed -i 's/^\tP = betai(DF \/ 2, 0.5, DF \/ (DF + T \* T))$/\tP = 2 * betai(DF \/ 2, 0.5, DF \/ (DF + T * T)); if (P > 1) P = 1/' "$R/scripts/compare.awk"
	run ! cmp -s "$R/scripts/compare.awk" "$S/compare.awk"
	MMTESTS_SNAPSHOT=$S/../../shared/third_party/mmtests run "$R/scripts/tests/fixtures/compare-diff/compare-diff.sh" 7 12
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"FAIL seed="*" welch-p: "* ]]
	[[ $output == *"again: scripts/tests/fixtures/compare-diff/compare-diff.sh SEED 1"* ]]
}
