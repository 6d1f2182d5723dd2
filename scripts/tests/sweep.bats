#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# sweep.sh on a fake machine: fixtures/sysfs-2s16 (2 sockets x 2 LLCs x
# 2 cores x SMT2) as its /sys and /proc, and a fake run.sh
# (IPISTORM_RUN) that logs its arguments and writes a complete result
# directory; one test runs the real run.sh with fake insmod and rmmod.

setup() {
	# shellcheck source=fixtures/sysfs.bash
	. "$BATS_TEST_DIRNAME/fixtures/sysfs.bash"
	sysfs_fixtures
	S=$BATS_TEST_DIRNAME/..
	F=$BATS_TEST_DIRNAME/fixtures
	T=$BATS_TEST_TMPDIR
	R=$T/root
	cp -r "$SYSFS/sysfs-2s16" "$R"
	mkdir -p "$T/mods/ipistorm" "$T/mods/idle_reentry" "$T/bin"
	# stand-in modules: ipistorm's carries a srcversion, as modpost writes it
	printf 'ELF\0srcversion=0123456789ABCDEF0123456\0depends=\0' >"$T/mods/ipistorm/ipistorm.ko"
	touch "$T/mods/idle_reentry/idle_reentry.ko"
	# the fake run.sh: its arguments a line in $R/calls; -o DIR gets a
	# meta.txt and -n iter-NNN.txt as run.sh writes them; FAIL=PATTERN
	# fails the cells whose parameters match (status=failed), REFUSE=1
	# refuses like run.sh (exit 2, nothing made), REFUSE=made after making
	# DIR; HANG=1 writes $R/hang and waits for a signal (TERM and INT
	# logged in $R/calls)
	cat >"$T/bin/run.sh" <<-'SH'
	#!/bin/sh
	echo "$*" >>"$R/calls"
	while getopts n:w:o:m:g:s:P: o; do
		case $o in o) d=$OPTARG ;; n) n=$OPTARG ;; esac
	done
	shift $((OPTIND - 1))
	case ${REFUSE:-} in 1) exit 2 ;; made) mkdir "$d"; exit 2 ;; esac
	b=$1
	shift
	mkdir "$d" || exit 2
	printf '%s\n' format=ipistorm-run/2 "bench=$b" "params=$*" "iterations=$n" \
		"kernel=$(cat "$R/proc/sys/kernel/osrelease")" "kernel_version=$(cat "$R/proc/sys/kernel/version")" >"$d/meta.txt"
	if [ -n "${HANG:-}" ]; then
		trap 'echo TERM >>"$R/calls"; echo status=interrupted >>"$d/meta.txt"; exit 1' TERM
		trap 'echo INT >>"$R/calls"; exit 1' INT
		: >"$R/hang"
		i=0
		while [ "$i" -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
		exit 0
	fi
	i=1
	while [ "$i" -le "$n" ]; do
		printf 'status=complete\nruntime_ns=%d\n' $((1000 + i)) >"$d/iter-00$i.txt"
		i=$((i + 1))
	done
	case " $* " in
	*" ${FAIL:-none} "*) echo status=failed >>"$d/meta.txt"; exit 1 ;;
	esac
	echo status=ok >>"$d/meta.txt"
	SH
	chmod +x "$T/bin/run.sh"
	export R IPISTORM_SYSROOT=$R IPISTORM_RUN=$T/bin/run.sh
	cd "$T" || return
}

# sweep ARGS...: sweep.sh -m the fake modules ARGS, under $SH (default
# sh).
sweep() {
	local -a sh
	read -ra sh <<<"${SH:-sh}"
	"${sh[@]}" "$S/sweep.sh" -m "$T/mods" "$@"
}

@test "sweep: -t all and two lists, every shell: the cells, their names and parameters, the index" {
	for SH in dash "busybox sh" bash; do
		rm -rf "$T/sw" "$R/calls"
		run sweep -n 3 -o sw -t all -l delay=0,1000 -l timing=0,1 ipistorm numipi=2000 wait=1
		[ "$status" -eq 0 ] || { echo "$SH: $output"; false; }
		[ "${lines[-1]}" = sw ]
		# sysfs-2s16 has no cross-node and no cross-die pair
		[[ $output == *"no cross-node pair on this machine: class cross-node skipped"* ]]
		[[ $output == *"no cross-die pair on this machine: class cross-die skipped"* ]]
		[ "$(grep -c . "$R/calls")" = 16 ]
		[ "$(sed -n '1p;2p;16p' "$R/calls")" = "-o sw/class=smt,delay=0,timing=0 -n 3 -w 1 -m $T/mods ipistorm numipi=2000 wait=1 pairs=0:8 delay=0 timing=0
-o sw/class=smt,delay=0,timing=1 -n 3 -w 1 -m $T/mods ipistorm numipi=2000 wait=1 pairs=0:8 delay=0 timing=1
-o sw/class=cross-socket,delay=1000,timing=1 -n 3 -w 1 -m $T/mods ipistorm numipi=2000 wait=1 pairs=0:4 delay=1000 timing=1" ]
		[ "$(grep -v -e '^cell=' -e '^date=' sw/sweep.txt)" = "format=ipistorm-sweep/2
bench=ipistorm
kernel=6.12.0-test
kernel_version=#1 SMP PREEMPT_DYNAMIC Debian 6.12.0-1
modules=ipistorm:0123456789ABCDEF0123456
moddir=$T/mods
kernel_describe=unknown
params=numipi=2000 wait=1
storm=
iterations=3
warmup=1
prepare=none
classes=smt llc cross-llc cross-node cross-die cross-socket
pairs_param=pairs
topology_options=
skipped=cross-node cross-die
axis=class smt llc cross-llc cross-socket
axis=delay 0 1000
axis=timing 0 1
cells=16" ]
		[ "$(grep -c '^cell=' sw/sweep.txt)" = 16 ]
		grep -qx 'cell=class=llc,delay=1000,timing=0 numipi=2000 wait=1 pairs=0:1 delay=1000 timing=0' sw/sweep.txt
		grep -qx 'params=numipi=2000 wait=1 pairs=0:2 delay=0 timing=1' 'sw/class=cross-llc,delay=0,timing=1/meta.txt'
	done
}

@test "sweep: -a, -x and run.sh's options go where they belong" {
	run sweep -n 2 -w 0 -g v6.12-rc1 -p -a -x -o sw -t cross-socket,smt ipistorm numipi=10
	[ "$status" -eq 0 ]
	[ "$(cat "$R/calls")" = "-o sw/class=cross-socket -n 2 -w 0 -m $T/mods -g v6.12-rc1 -P quiet ipistorm numipi=10 pairs=1:4,2:5,3:6,7:8,9:12,10:13,11:14
-o sw/class=smt -n 2 -w 0 -m $T/mods -g v6.12-rc1 -P quiet ipistorm numipi=10 pairs=1:9,2:10,3:11,4:12,5:13,6:14,7:15" ]
	grep -qx 'topology_options=-a -n' sw/sweep.txt
	grep -qx 'axis=class cross-socket smt' sw/sweep.txt
	grep -qx 'prepare=quiet' sw/sweep.txt
	# a list alone, no class
	run sweep -n 2 -o sw2 -l delay=5,0 ipistorm pairs=0:1 numipi=10
	[ "$status" -eq 0 ]
	[ "$(grep '^cell=' sw2/sweep.txt)" = "cell=delay=5 pairs=0:1 numipi=10 delay=5
cell=delay=0 pairs=0:1 numipi=10 delay=0" ]
}

@test "sweep: rerun, complete cells are skipped, incomplete ones redone and kept aside" {
	FAIL=delay=1000 run sweep -n 2 -o sw -t smt,llc -l delay=0,1000 ipistorm numipi=10
	[ "$status" -eq 1 ]
	[[ $output == *"2 of 4 cells failed: class=smt,delay=1000 class=llc,delay=1000; rerun the same command to redo them"* ]]
	[ "$(grep -c . "$R/calls")" = 4 ]
	# a cell cut short (no status) is incomplete too
	sed -i '/^status=/d' 'sw/class=llc,delay=0/meta.txt'
	: >"$R/calls"
	run sweep -n 2 -o sw -t smt,llc -l delay=0,1000 ipistorm numipi=10
	[ "$status" -eq 0 ]
	[ "$(cut -d ' ' -f 2 "$R/calls")" = "sw/class=smt,delay=1000
sw/class=llc,delay=0
sw/class=llc,delay=1000" ]
	[[ $output == *"cell 1/4 class=smt,delay=0: complete, skipped"* ]]
	[ "$(cat sw/class=*,delay=0/meta.txt sw/class=*,delay=1000/meta.txt | grep -c '^status=')" = 4 ]
	[ "$(cat sw/class=*,delay=0/meta.txt sw/class=*,delay=1000/meta.txt | grep -cx 'status=ok')" = 4 ]
	[ "$(cat sw/*.incomplete-1/meta.txt | grep -cx 'status=failed')" = 2 ]
	[ -d 'sw/class=llc,delay=0.incomplete-1' ]
	# all complete: nothing runs
	: >"$R/calls"
	run sweep -n 2 -o sw -t smt,llc -l delay=0,1000 ipistorm numipi=10
	[ "$status" -eq 0 ]
	[ ! -s "$R/calls" ]
}

@test "sweep: another kernel, another grid or a foreign cell is refused, exit 2, nothing run" {
	run sweep -n 2 -o sw -t smt -l delay=0,1000 ipistorm numipi=10
	[ "$status" -eq 0 ]
	rm 'sw/class=smt,delay=1000/meta.txt'
	: >"$R/calls"
	echo 6.1.0-test >"$R/proc/sys/kernel/osrelease"
	run sweep -n 2 -o sw -t smt -l delay=0,1000 ipistorm numipi=10
	[ "$status" -eq 2 ]
	[ "$output" = "sweep.sh: sw is a sweep on kernel 6.12.0-test, this is 6.1.0-test: refusing to mix kernels in one sweep (give a new -o)" ]
	echo 6.12.0-test >"$R/proc/sys/kernel/osrelease"
	while IFS='|' read -r args want; do
		# shellcheck disable=SC2086 # the options, words
		run sweep -o sw $args
		[ "$status" -eq 2 ] || { echo "$args: $status $output"; false; }
		[ "$output" = "sweep.sh: sw is another sweep: $want: refusing to change a sweep's grid (give a new -o)" ] ||
			{ echo "$args: $output"; false; }
	done <<-'EOF'
	-n 2 -t smt -l delay=0,100 ipistorm numipi=10|its 'axis=delay 0 1000' against 'axis=delay 0 100' here
	-n 3 -t smt -l delay=0,1000 ipistorm numipi=10|its 'iterations=2' against 'iterations=3' here
	-n 2 -t smt -l delay=0,1000 ipistorm numipi=20|its 'params=numipi=10' against 'params=numipi=20' here
	-n 2 -t smt,llc -l delay=0,1000 ipistorm numipi=10|its 'classes=smt' against 'classes=smt llc' here
	-n 2 -t smt ipistorm numipi=10|its 'axis=delay 0 1000' against 'cells=1' here
	EOF
	[ ! -s "$R/calls" ]
	# a complete cell of another run put in place of one of the sweep's
	sed -i 's/^params=.*/params=numipi=99/' 'sw/class=smt,delay=0/meta.txt'
	run sweep -n 2 -o sw -t smt -l delay=0,1000 ipistorm numipi=10
	[ "$status" -eq 2 ]
	[ "$output" = "sweep.sh: sw/class=smt,delay=0 is not this sweep's cell: its params is 'numipi=99', want 'numipi=10 pairs=0:8 delay=0'" ]
	# another build of the same release: its version string, its module,
	# the modules' directory
	sed -i 's/^params=.*/params=numipi=10 pairs=0:8 delay=0/' 'sw/class=smt,delay=0/meta.txt'
	cp "$R/proc/sys/kernel/version" version
	echo '#2 SMP PREEMPT_DYNAMIC Debian 6.12.0-1' >"$R/proc/sys/kernel/version"
	run sweep -n 2 -o sw -t smt -l delay=0,1000 ipistorm numipi=10
	[ "$status" -eq 2 ]
	[ "$output" = "sweep.sh: sw is a sweep on another build of 6.12.0-test: its kernel_version is '#1 SMP PREEMPT_DYNAMIC Debian 6.12.0-1', here '#2 SMP PREEMPT_DYNAMIC Debian 6.12.0-1': refusing to mix kernel builds in one sweep (give a new -o)" ]
	cp version "$R/proc/sys/kernel/version"
	cp -r "$T/mods" "$T/mods2"
	run sweep -n 2 -o sw -t smt -l delay=0,1000 -m "$T/mods2" ipistorm numipi=10
	[ "$status" -eq 2 ]
	[ "$output" = "sweep.sh: sw is a sweep on another build of 6.12.0-test: its moddir is '$T/mods', here '$T/mods2': refusing to mix kernel builds in one sweep (give a new -o)" ]
	printf 'ELF\0srcversion=FEDCBA9876543210FEDCBA9\0' >"$T/mods/ipistorm/ipistorm.ko"
	run sweep -n 2 -o sw -t smt -l delay=0,1000 ipistorm numipi=10
	[ "$status" -eq 2 ]
	[ "$output" = "sweep.sh: sw is a sweep on another build of 6.12.0-test: its modules is 'ipistorm:0123456789ABCDEF0123456', here 'ipistorm:FEDCBA9876543210FEDCBA9': refusing to mix kernel builds in one sweep (give a new -o)" ]
	# a sweep of format 1 says no build: not resumed
	sed -i 's/^format=.*/format=ipistorm-sweep\/1/' sw/sweep.txt
	run sweep -n 2 -o sw -t smt -l delay=0,1000 ipistorm numipi=10
	[ "$status" -eq 2 ]
	[ "$output" = "sweep.sh: sw is a sweep of format ipistorm-sweep/1, which does not say its kernel build: it cannot be resumed (give a new -o)" ]
	[ ! -s "$R/calls" ]
	mkdir other
	run sweep -n 2 -o other -t smt ipistorm numipi=10
	[ "$status" -eq 2 ]
	[ "$output" = "sweep.sh: other exists and is not a sweep directory (no sweep.txt): refusing to write into it" ]
	[ ! -s "$R/calls" ]
}

@test "sweep: usage errors before anything is made" {
	while IFS='|' read -r args want; do
		# shellcheck disable=SC2086 # the options, words
		run sweep -o sw $args
		[ "$status" -eq 2 ] || { echo "$args: $status"; false; }
		[ "${lines[0]}" = "sweep.sh: $want" ] || { echo "$args: ${lines[0]}"; false; }
		[ ! -e sw ]
	done <<-'EOF'
	ipistorm numipi=10|no grid: give -t CLASSES or -l PARAM=LIST
	-t smt idle_reentry cpulist=1|-t: idle_reentry takes no CPU pairs (cpus= of idle_reentry/bench.conf has no pairs:PARAM rule)
	-t smt,numa ipistorm|-t: unknown class 'numa' (classes: smt llc cross-llc cross-node cross-die cross-socket, or all)
	-t smt,smt ipistorm|-t: class smt given twice
	-t smt ipistorm pairs=0:1|-t: pairs= is given as a fixed parameter too
	-l delay=0,1 ipistorm delay=5|-l: delay= is given as a fixed parameter too
	-l delay=0,,1 ipistorm|-l: '0,,1' is not a comma-separated list of values made of letters, digits, '.', '_', '+' and '-'
	-l delay=0,a/b ipistorm|-l: '0,a/b' is not a comma-separated list of values made of letters, digits, '.', '_', '+' and '-'
	-l delay ipistorm|-l: 'delay' is not PARAM=V1,V2,...
	-l delay=1,1 ipistorm|-l: delay lists a value twice
	-l delay=1 -l delay=2 ipistorm|-l: delay is listed twice
	-t smt -l pairs=0:1 ipistorm|-l: '0:1' is not a comma-separated list of values made of letters, digits, '.', '_', '+' and '-'
	-t smt -l class=1,2 ipistorm|-l: class is the axis of -t
	-a -l delay=1 ipistorm|-a and -x choose the pairs of -t
	-n 0 -t smt ipistorm|-n: 0 is out of range, want 1 to 999
	-l delay=5,010 ipistorm|delay: '010' is not a decimal integer (digits, no sign, no leading zero)
	-l delay=5 ipistorm numipi=08|numipi: '08' is not a decimal integer (digits, no sign, no leading zero)
	-l groups=1,2 hackbench nosuch=1|hackbench has no parameter 'nosuch' (its parameters: groups fds loops datasize mode ipc)
	-l nosuch=1,2 hackbench|hackbench has no parameter 'nosuch' (its parameters: groups fds loops datasize mode ipc)
	-l loops=16,-3 hackbench|loops: '-3' is not a decimal integer (digits, no sign, no leading zero)
	-l loops=x hackbench|loops: 'x' is not a decimal integer (digits, no sign, no leading zero)
	EOF
	# the benchmarks the tree declares, whichever they are
	run sweep -o sw -t smt fakebench
	[ "$status" -eq 2 ]
	[[ ${lines[0]} == "sweep.sh: unknown benchmark 'fakebench' (one of: "*" ipistorm "*")" ]]
	[ ! -e sw ]
	run sweep -o sw -t smt wakeup
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "sweep.sh: no $T/mods/wakeup/wakeup.ko (build with make, or give -m)" ]
	[ ! -e sw ]
	# the storm's module too
	rm "$T/mods/ipistorm/ipistorm.ko"
	run sweep -o sw -s numipi=10 -l delay=1,2 idle_reentry cpulist=1
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "sweep.sh: no $T/mods/ipistorm/ipistorm.ko (build with make, or give -m)" ]
	[ ! -e sw ]
	[ ! -e "$R/calls" ]
}

@test "sweep: run.sh refusing the command at the first cell leaves no sweep behind" {
	for how in 1 made; do
		rm -f "$R/calls"
		REFUSE=$how run sweep -o sw -t smt,llc ipistorm numipi=10 duration=x
	[ "$status" -eq 2 ] || { echo "$how $status $output"; false; }
		[[ $output == *"run.sh refused the command of cell class=smt (exit 2): the sweep stops, sw removed (nothing had run)"* ]]
		[ "$(grep -c . "$R/calls")" = 1 ]
		[ ! -e sw ]
		# and the same command, fixed, runs
		run sweep -o sw -t smt,llc ipistorm numipi=10
		[ "$status" -eq 0 ]
		rm -rf sw
	done
}

@test "sweep: a program benchmark, its cells through run.sh" {
	run sweep -n 5 -w 0 -o sw -l groups=1,2 -l mode=process,threads hackbench loops=10
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cut -d " " -f 2,9- "$R/calls")" = "sw/groups=1,mode=process hackbench loops=10 groups=1 mode=process
sw/groups=1,mode=threads hackbench loops=10 groups=1 mode=threads
sw/groups=2,mode=process hackbench loops=10 groups=2 mode=process
sw/groups=2,mode=threads hackbench loops=10 groups=2 mode=threads" ]
	grep -qx 'modules=' sw/sweep.txt
	# pivot takes it
	cp -r sw sw2
	run "$S/pivot.sh" sw sw2
	[[ $output == *"hackbench loops=10"* ]] || { echo "$output"; false; }
}

# The signals a shell can catch (as run.bats's start).
SIGNALS=HUP,INT,QUIT,TERM,PIPE,USR1,USR2,ALRM

# A signal to the sweep (the whole group, as a terminal or an ssh drop
# sends it, or its pid alone, as kill or timeout does) ends the run in
# progress through SIGTERM, then the sweep: exit 1, the lock released.
@test "sweep: TERM, INT and HUP under dash and busybox sh end the run in progress, then the sweep" {
	for sh in dash "busybox sh"; do
		for how in group pid; do
			for sig in TERM INT HUP; do
				rm -rf sw "$R/calls" "$R/hang"
				set -m
				# shellcheck disable=SC2086 # the shell and its argument
				HANG=1 env --default-signal="$SIGNALS" $sh "$S/sweep.sh" -m "$T/mods" -o sw -t smt,llc ipistorm numipi=10 2>"$T/err" &
				pid=$!
				set +m
				for _ in $(seq 300); do [ -e "$R/hang" ] && break; sleep 0.1; done
				[ -e "$R/hang" ]
				if [ "$how" = group ]; then kill -"$sig" -- "-$pid"; else kill -"$sig" "$pid"; fi
				rc=0
				wait "$pid" 2>/dev/null || rc=$?
				[ "$rc" -eq 1 ] || { echo "$sh $how SIG$sig: exit $rc"; cat "$T/err"; false; }
				# the run got TERM (a HUP to the group reaches it first)
				[ "$how $sig" = "group HUP" ] || grep -qx TERM "$R/calls" || { echo "$sh $how SIG$sig"; cat "$R/calls"; false; }
				[ "$(grep -c '^-o' "$R/calls")" = 1 ]
				[ "$(tail -n 1 "$T/err")" = "sweep.sh: interrupted by SIG$sig: rerun the same command to resume" ]
				[ ! -e "$R/run/ipistorm/sweep-lock" ]
				[ -f sw/sweep.txt ]
			done
		done
	done
}

@test "sweep: one sweep at a time" {
	mkdir -p "$R/run/ipistorm/sweep-lock"
	sleep 60 &
	echo $! >"$R/run/ipistorm/sweep-lock/pid"
	run sweep -o sw -t smt ipistorm numipi=10
	kill %1
	[ "$status" -eq 1 ]
	[[ $output == *"another sweep.sh (pid "*") holds $R/run/ipistorm/sweep-lock: one sweep at a time"* ]]
	[ ! -e "$R/calls" ]
}

# The real run.sh, its insmod and rmmod faked: each cell is a run.sh
# result directory whose meta.txt records the cell's parameters.
@test "sweep: with run.sh itself, a result directory per cell" {
	unset IPISTORM_RUN
	cat >"$T/bin/insmod" <<-'SH'
	#!/bin/sh
	m=$(basename "$1" .ko)
	mkdir -p "$R/sys/kernel/debug/$m" "$R/sys/module/$m/parameters"
	cp "$F/ipistorm-6.1/iter-001.txt" "$R/sys/kernel/debug/$m/result"
	SH
	# shellcheck disable=SC2016 # expanded by the fake rmmod
	printf '#!/bin/sh\nrm -rf "$R/sys/kernel/debug/$1"\n' >"$T/bin/rmmod"
	chmod +x "$T/bin/insmod" "$T/bin/rmmod"
	export F IPISTORM_INSMOD=$T/bin/insmod IPISTORM_RMMOD=$T/bin/rmmod
	run sweep -n 2 -w 0 -o sw -t llc,cross-socket ipistorm numipi=20000 wait=1
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	for c in llc:0:1 cross-socket:0:4; do
		m=sw/class=${c%%:*}/meta.txt
		grep -qx status=ok "$m"
		grep -qx "params=numipi=20000 wait=1 pairs=${c#*:}" "$m"
		grep -qx "measured_cpus=${c#*:}" <(sed 's/ /:/' "$m")
		[ -f "sw/class=${c%%:*}/iter-002.txt" ]
	done
}
