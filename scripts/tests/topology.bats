#!/usr/bin/env bats
# topology.sh on fake sysfs trees (tests/fixtures/sysfs-*, see make-fixtures.sh).

setup() {
	S=$BATS_TEST_DIRNAME/..
	F=$BATS_TEST_DIRNAME/fixtures
}

@test "topology: first pair of each class on 2 sockets, 2 LLCs each, SMT2" {
	run "$S/topology.sh" -r "$F/sysfs-2s16"
	[ "$status" -eq 0 ]
	[ "$output" = "class=smt pair=0:8
class=llc pair=0:1
class=node pair=0:2
class=cross-node pair=0:4
class=cross-socket pair=0:4" ]
}

@test "topology: -a lists up to 8 pairs per class" {
	run "$S/topology.sh" -a -r "$F/sysfs-2s16"
	[ "$status" -eq 0 ]
	[[ $output == *"class=smt pairs=0:8,1:9,2:10,3:11,4:12,5:13,6:14,7:15"* ]]
	[[ $output == *"class=llc pairs=0:1,0:9,1:8,2:3,2:11,3:10,4:5,4:13"* ]]
}

@test "topology: -c prints S:T for pairs=, under busybox sh too" {
	run busybox sh "$S/topology.sh" -r "$F/sysfs-2s16" -c cross-socket
	[ "$status" -eq 0 ]
	[ "$output" = "0:4" ]
	run "$S/topology.sh" -r "$F/sysfs-2s16" -c smt -a
	[ "$output" = "0:8,1:9,2:10,3:11,4:12,5:13,6:14,7:15" ]
}

@test "topology: a single CPU has no pair" {
	run "$S/topology.sh" -r "$F/sysfs-1cpu"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'pair=none$' <<<"$output")" -eq 5 ]
	run "$S/topology.sh" -r "$F/sysfs-1cpu" -c smt
	[ "$status" -eq 1 ]
	[[ $output == *"no smt pair"* ]]
}

@test "topology: offline CPUs are left out" {
	cp -r "$F/sysfs-2s16" "$BATS_TEST_TMPDIR/m"
	echo 0 >"$BATS_TEST_TMPDIR/m/sys/devices/system/cpu/cpu8/online"
	run "$S/topology.sh" -r "$BATS_TEST_TMPDIR/m" -c smt
	[ "$output" = "1:9" ]
}

@test "topology: usage on -h and bad arguments" {
	run "$S/topology.sh" -h
	[ "$status" -eq 2 ]
	[[ $output == usage:* ]]
	run "$S/topology.sh" -c far
	[ "$status" -eq 2 ]
	[[ $output == *"unknown class 'far'"* ]]
	run "$S/topology.sh" extra
	[ "$status" -eq 2 ]
	run "$S/topology.sh" -r /nonexistent
	[ "$status" -eq 1 ]
	[[ $output == *"no /nonexistent/sys/devices/system/cpu"* ]]
}
