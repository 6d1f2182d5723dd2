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

# fake_trace_cmd: trace-cmd in $T/bin that logs its calls to $T/calls;
# record writes -o's file and sets tracing_on, then with HANG writes
# $T/hang and waits for $T/go, with FAIL exits 3; report prints the
# fixture report, with FAIL_REPORT fails.
fake_trace_cmd() {
	mkdir -p "$T/bin" "$T/fs/events/sched/sched_switch" "$T/fs/events/ipi"
	echo 0 >"$T/fs/tracing_on"
	cat >"$T/bin/trace-cmd" <<-'SH'
	#!/bin/sh
	echo "$1" >>"$T/calls"
	case $1 in
	record)
		echo 1 >"$T/fs/tracing_on"
		echo dat >"$3"
		if [ -n "${HANG:-}" ]; then
			: >"$T/hang"
			n=0
			while [ ! -e "$T/go" ] && [ "$n" -lt 600 ]; do
				sleep 0.1
				n=$((n + 1))
			done
		fi
		[ -z "${FAIL:-}" ] || exit 3
		;;
	report)
		[ -z "${FAIL_REPORT:-}" ] || exit 1
		cat "$F/trace-report.txt"
		;;
	esac
	SH
	chmod +x "$T/bin/trace-cmd"
	export T F IPISTORM_TRACEFS=$T/fs PATH=$T/bin:$PATH
}

# off: trace-cmd reset ran last and tracing is off.
off() {
	[ "$(tail -n 1 "$T/calls")" = reset ] || { cat "$T/calls"; false; }
	[ "$(cat "$T/fs/tracing_on")" = 0 ]
}

@test "trace: tracing is off and reset on every exit" {
	fake_trace_cmd
	run "$S/trace.sh" -o "$T/out" -- true
	[ "$status" -eq 0 ]
	[[ $output == *"sched_switch"* ]]
	[ "$(head -n 2 "$T/calls")" = "record
report" ]
	off
	# the command (or trace-cmd record) fails
	rm "$T/calls"
	FAIL=1 run "$S/trace.sh" -o "$T/out2" -- true
	[ "$status" -eq 1 ]
	off
	# an error after recording: trace-cmd report fails
	rm "$T/calls"
	FAIL_REPORT=1 run "$S/trace.sh" -o "$T/out3" -- true
	[ "$status" -eq 1 ]
	[[ $output == *"trace-cmd report failed"* ]]
	off
	# INT (Ctrl-C), TERM, HUP (ssh), QUIT (Ctrl-\), USR1, USR2, ALRM
	# while recording, to the whole group
	for sig in INT TERM HUP QUIT USR1 USR2 ALRM; do
		rm -f "$T/calls" "$T/hang"
		rm -rf "$T/out4"
		set -m
		HANG=1 env --default-signal=INT,TERM,HUP,QUIT,USR1,USR2,ALRM "$S/trace.sh" -o "$T/out4" -- true 2>"$T/err" &
		pid=$!
		set +m
		for _ in $(seq 600); do [ ! -e "$T/hang" ] || break; sleep 0.1; done
		[ -e "$T/hang" ]
		kill -"$sig" -- "-$pid"
		rc=0
		wait "$pid" || rc=$?
		[ "$rc" -eq 1 ] || { echo "SIG$sig: exit $rc"; cat "$T/err"; false; }
		grep -q "interrupted by SIG$sig" "$T/err"
		off
	done
}
