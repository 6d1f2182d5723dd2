#!/usr/bin/env bats
# topology.sh on fake sysfs trees (tests/fixtures/sysfs-*, see make-fixtures.sh).

setup() {
	# shellcheck source=fixtures/sysfs.bash
	. "$BATS_TEST_DIRNAME/fixtures/sysfs.bash"
	sysfs_fixtures
	S=$BATS_TEST_DIRNAME/..
}

@test "topology: first pair of each class on 2 sockets, 2 LLCs each, SMT2" {
	run "$S/topology.sh" -r "$SYSFS/sysfs-2s16"
	[ "$status" -eq 0 ]
	[ "$output" = "class=smt pair=0:8
class=llc pair=0:1
class=cross-llc pair=0:2
class=cross-node pair=none
class=cross-die pair=none
class=cross-socket pair=0:4" ]
}

# The pairs of every class on each fake machine, under each shell: usable
# as pairs= (no CPU twice), and keyed on what the class names.
@test "topology: -a on EPYC NPS1/NPS4, SNC Xeon, 2-die packages" {
	while IFS='|' read -r tree class want; do
		for sh in dash "busybox sh"; do
			# shellcheck disable=SC2086 # the shell and its argument
			run $sh "$S/topology.sh" -a -r "$SYSFS/$tree" -c "$class"
			[ "$output" = "${want:-topology.sh: no $class pair on this machine}" ] ||
				{ echo "$sh $tree $class: '$output', want '$want'"; false; }
			[ "$status" -eq "$([ -n "$want" ] && echo 0 || echo 1)" ]
		done
		[ "$want" = "" ] && continue
		# no CPU twice: ipistorm refuses a repeated sender
		[ -z "$(tr ',:' '\n' <<<"$want" | sort | uniq -d)" ]
	done <<-'EOF'
	sysfs-epyc-nps1|llc|0:1,2:3,4:5,6:7,8:9,10:11,12:13,14:15
	sysfs-epyc-nps1|cross-llc|0:2,1:3,4:6,5:7,8:10,9:11,12:14,13:15
	sysfs-epyc-nps1|cross-node|
	sysfs-epyc-nps1|cross-socket|0:16,1:17,2:18,3:19,4:20,5:21,6:22,7:23
	sysfs-epyc-nps4|smt|0:32,1:33,2:34,3:35,4:36,5:37,6:38,7:39
	sysfs-epyc-nps4|cross-llc|0:2,1:3,4:6,5:7,8:10,9:11,12:14,13:15
	sysfs-epyc-nps4|cross-node|0:4,1:5,2:6,3:7,8:12,9:13,10:14,11:15
	sysfs-epyc-nps4|cross-socket|0:16,1:17,2:18,3:19,4:20,5:21,6:22,7:23
	sysfs-xeon-snc|smt|0:8,1:9,2:10,3:11,4:12,5:13,6:14,7:15
	sysfs-xeon-snc|llc|0:1,2:3,4:5,6:7,8:9,10:11,12:13,14:15
	sysfs-xeon-snc|cross-llc|
	sysfs-xeon-snc|cross-node|0:2,1:3,4:6,5:7,8:10,9:11,12:14,13:15
	sysfs-xeon-snc|cross-socket|0:4,1:5,2:6,3:7,8:12,9:13,10:14,11:15
	sysfs-2die|cross-die|0:2,1:3,4:6,5:7
	sysfs-2die|cross-socket|0:4,1:5,2:6,3:7
	sysfs-2s16|llc|0:1,2:3,4:5,6:7,8:9,10:11,12:13,14:15
	EOF
}

@test "topology: -c prints S:T for pairs=, under busybox sh too" {
	run busybox sh "$S/topology.sh" -r "$SYSFS/sysfs-2s16" -c cross-socket
	[ "$status" -eq 0 ]
	[ "$output" = "0:4" ]
	run "$S/topology.sh" -r "$SYSFS/sysfs-2s16" -c smt -a
	[ "$output" = "0:8,1:9,2:10,3:11,4:12,5:13,6:14,7:15" ]
	# the old name of cross-llc
	run "$S/topology.sh" -r "$SYSFS/sysfs-epyc-nps4" -c node
	[ "$output" = "0:2" ]
}

@test "topology: -n leaves CPU0 out" {
	run "$S/topology.sh" -n -r "$SYSFS/sysfs-epyc-nps4"
	[ "$status" -eq 0 ]
	[ "$output" = "class=smt pair=1:33
class=llc pair=1:32
class=cross-llc pair=1:2
class=cross-node pair=1:4
class=cross-die pair=none
class=cross-socket pair=1:16" ]
	run "$S/topology.sh" -n -a -r "$SYSFS/sysfs-xeon-snc" -c smt
	[ "$output" = "1:9,2:10,3:11,4:12,5:13,6:14,7:15" ]
}

@test "topology: a single CPU has no pair" {
	run "$S/topology.sh" -r "$SYSFS/sysfs-1cpu"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'pair=none$' <<<"$output")" -eq 6 ]
	run "$S/topology.sh" -r "$SYSFS/sysfs-1cpu" -c smt
	[ "$status" -eq 1 ]
	[[ $output == *"no smt pair"* ]]
}

@test "topology: offline CPUs are left out" {
	cp -r "$SYSFS/sysfs-2s16" "$BATS_TEST_TMPDIR/m"
	echo 0 >"$BATS_TEST_TMPDIR/m/sys/devices/system/cpu/cpu8/online"
	run "$S/topology.sh" -r "$BATS_TEST_TMPDIR/m" -c smt
	[ "$output" = "1:9" ]
}

@test "topology: usage on -h and bad arguments" {
	run "$S/topology.sh" -h
	[ "$status" -eq 0 ]
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
