#!/usr/bin/env bats
# trace.sh: the summarizer on a fixture report, and clean failures.

setup() {
	S=$BATS_TEST_DIRNAME/..
	F=$BATS_TEST_DIRNAME/fixtures
	T=$BATS_TEST_TMPDIR
}

@test "trace: summary counts events per CPU" {
	run "$S/trace.sh" -S "$F/trace-report.txt"
	[ "$status" -eq 0 ]
	[[ ${lines[0]} =~ ^event\ +cpu0\ +cpu1\ +total$ ]]
	[[ $output =~ csd_queue_cpu\ +2\ +0\ +2 ]]
	[[ $output =~ cpu_idle\ +0\ +2\ +2 ]]
	[[ $output =~ call_function_single_entry\ +0\ +1\ +1 ]]
	[[ $output =~ sched_switch\ +2\ +0\ +2 ]]
	[ "${#lines[@]}" -eq 10 ]
}

@test "trace: a report without events fails" {
	echo "cpus=2" >"$T/r"
	run "$S/trace.sh" -S "$T/r"
	[ "$status" -eq 1 ]
	[[ $output == *"no events"* ]]
}

@test "trace: missing trace-cmd is named" {
	mkdir "$T/bin"
	for t in bash dirname date mkdir; do ln -s "$(command -v "$t")" "$T/bin/$t"; done
	PATH=$T/bin run "$T/bin/bash" "$S/trace.sh" -o "$T/out" -- true
	[ "$status" -eq 1 ]
	[[ $output == *"trace-cmd not found: install it (Debian package trace-cmd)"* ]]
	[ ! -e "$T/out" ]
}

@test "trace: never overwrites, records only existing events" {
	command -v trace-cmd >/dev/null || skip "no trace-cmd"
	mkdir -p "$T/out" "$T/fs/events/sched/sched_switch"
	IPISTORM_TRACEFS=$T/fs run "$S/trace.sh" -o "$T/out" -- true
	[ "$status" -eq 1 ]
	[[ $output == *"$T/out exists"* ]]
	[[ $output == *"no csd event, skipped"* ]]
	IPISTORM_TRACEFS=$T/none run "$S/trace.sh" -o "$T/out2" -- true
	[ "$status" -eq 1 ]
	[[ $output == *"no tracefs events"* ]]
}

@test "trace: usage" {
	run "$S/trace.sh" -h
	[ "$status" -eq 0 ]
	run "$S/trace.sh"
	[ "$status" -eq 2 ]
	[[ $output == *"no command to trace"* ]]
	run "$S/trace.sh" -S /nonexistent
	[ "$status" -eq 1 ]
}
