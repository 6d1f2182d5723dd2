#!/usr/bin/env bats
# The generated test of the drivers (fixtures/drivers-gen/drivers-gen.sh):
# sweep, pivot, validate and run.sh's program path on generated grids,
# sizes, changes, signals and failures, against the rules of their docs,
# and (from 20 A/A trials of a kind, thousands of cases) the A/A false
# alarms of pivot and validate within alpha's bound.
# DRIVERS_GEN_CASES cases (default 24) from seed DRIVERS_GEN_SEED
# (default 1); thousands outside CI (docs/validate.md).

bats_require_minimum_version 1.5.0

setup() {
	# shellcheck source=fixtures/sysfs.bash
	. "$BATS_TEST_DIRNAME/fixtures/sysfs.bash"
	sysfs_fixtures
	D=$BATS_TEST_DIRNAME/fixtures/drivers-gen
	S=$BATS_TEST_DIRNAME/..
	T=$BATS_TEST_TMPDIR
	cp -r "$SYSFS/sysfs-2s16" "$T/root"
	export IPISTORM_SYSROOT=$T/root
}

@test "drivers-gen: sweep, pivot, validate and the program path hold their rules on generated cases" {
	run "$D/drivers-gen.sh" "${DRIVERS_GEN_SEED:-1}" "${DRIVERS_GEN_CASES:-24}" "$T/cases"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *" cases, 0 failures;"* ]]
}

@test "drivers-gen: a broken rule is caught and its seed printed" {
	# run.sh's number rule of a program's parameters taken out, in a copy
	# of what the drivers read
	local R=$T/repo m
	mkdir -p "$R"
	cp -r "$S" "$R/scripts"
	# shellcheck source=../lib.sh
	for m in $(. "$S/lib.sh" && suite_benches "$S/.."); do
		mkdir "$R/$m"
		cp "$S/../$m/bench.conf" "$S/../$m"/*.awk "$R/$m/" 2>/dev/null || cp "$S/../$m/bench.conf" "$R/$m/"
	done
	sed -i '/^\t\t\*) parse_uint "\${_pp%%=\*}" "\${_pp#\*=}" 9223372036854775807 ;;$/d' "$R/scripts/lib.sh"
	run ! cmp -s "$R/scripts/lib.sh" "$S/lib.sh"
	# some of the first 12 sweeps list a value only that rule refuses
	# (1.5, -3, x)
	run "$R/scripts/tests/fixtures/drivers-gen/drivers-gen.sh" -k sweep 1 12 "$T/cases"
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q '^FAIL seed=[0-9]* -k sweep: sweep: -l loops=[^ ]*: exit 1, want 2$' <<<"$output"
	[[ $output == *"again: scripts/tests/fixtures/drivers-gen/drivers-gen.sh -k KIND SEED 1"* ]]
}
