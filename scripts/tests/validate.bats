#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# validate.sh against a fake machine (fixtures/sysfs-2s16 as /sys and
# /proc, CPUs 0-15): fake insmod and rmmod publish the recorded results of
# ipistorm and idle_reentry (fixtures/*-6.1), stand-ins of the battery's
# programs print their recorded outputs (BENCH/tests/fixtures), the
# servers listen in the fake /proc/net/tcp.

setup() {
	# shellcheck source=fixtures/sysfs.bash
	. "$BATS_TEST_DIRNAME/fixtures/sysfs.bash"
	sysfs_fixtures
	S=$BATS_TEST_DIRNAME/..
	TOP=$S/..
	F=$BATS_TEST_DIRNAME/fixtures
	T=$BATS_TEST_TMPDIR
	R=$T/root
	cp -r "$SYSFS/sysfs-2s16" "$R"
	mkdir -p "$T/bin" "$T/mods"
	# shellcheck source=../lib.sh
	. "$S/lib.sh"
	for m in $(suite_kmods "$TOP"); do
		mkdir -p "$T/mods/$m"
		: >"$T/mods/$m/$m.ko"
	done
	cat >"$T/bin/insmod" <<-'SH'
	#!/bin/sh
	m=$(basename "$1" .ko)
	echo "insmod $m ${*#* }" >>"$R/calls"
	mkdir -p "$R/sys/kernel/debug/$m" "$R/sys/module/$m/parameters"
	cp "$F/$m-6.1/iter-001.txt" "$R/sys/kernel/debug/$m/result"
	# the srcversion the module file carries, as the kernel shows it
	tr '\000' '\n' <"$1" | sed -n 's/^srcversion=//p' >"$R/sys/module/$m/srcversion"
	SH
	cat >"$T/bin/rmmod" <<-'SH'
	#!/bin/sh
	rm -rf "$R/sys/kernel/debug/$1"
	SH
	prog() {
		# shellcheck disable=SC2016 # expanded by the stand-in
		printf '#!/bin/sh\necho "%s $*" >>"$R/calls"\ncat "%s"\n' "$1" "$TOP/$2/tests/fixtures/$3" >"$T/bin/$1"
	}
	prog tbench tbench clients2.txt
	# hackbench, cyclictest and netperf say what their command asked for
	# (the parsers check it): the recorded outputs with its numbers
	cat >"$T/bin/hackbench" <<-'SH'
	#!/bin/sh
	echo "hackbench $*" >>"$R/calls"
	printf 'Running in process mode with %d groups using %d file descriptors each (== %d tasks)\n' "$2" $(($4 * 2)) $(($2 * $4 * 2))
	printf 'Each sender will pass %d messages of %d bytes\nTime: 0.679\n' "$6" "$8"
	SH
	cat >"$T/bin/cyclictest" <<-'SH'
	#!/bin/sh
	echo "cyclictest $*" >>"$R/calls"
	t=0
	while [ "$t" -lt "$5" ]; do
		printf 'T: %d (11492) P:80 I:%d C: %6d Min:  14137 Act:   17203 Avg:   28059 Max:  118425\n' "$t" "$7" $((${11} * 1000000 / $7))
		t=$((t + 1))
	done
	SH
	cat >"$T/bin/netperf" <<-SH
	#!/bin/sh
	echo "netperf \$*" >>"\$R/calls"
	case " \$* " in
	*" UDP_RR "*) cat "$TOP/netperf/tests/fixtures/UDP_RR.txt" ;;
	*) cat "$TOP/netperf/tests/fixtures/TCP_RR.txt" ;;
	esac
	SH
	for sv in tbench_srv:7003 netserver:12865; do
		cat >"$T/bin/${sv%:*}" <<-SH
		#!/bin/sh
		mkdir -p "\$R/proc/net"
		printf '  sl  local_address rem_address   st\n   0: 0100007F:%04X 00000000:0000 0A\n' ${sv#*:} >"\$R/proc/net/tcp"
		trap 'rm -f "\$R/proc/net/tcp"; exit 0' TERM
		n=0
		while [ \$n -lt 300 ]; do sleep 0.1; n=\$((n + 1)); done
		SH
	done
	chmod +x "$T"/bin/*
	export R F PATH=$T/bin:$PATH IPISTORM_SYSROOT=$R IPISTORM_INSMOD=$T/bin/insmod IPISTORM_RMMOD=$T/bin/rmmod
}

# validate OUT: validate.sh with small sizes into OUT.
validate() {
	"$S/validate.sh" -n 2 -w 0 -m "$T/mods" -i 20000 -d 2 -l 20 -o "$@"
}

@test "validate: the storm, the re-entry check, placement and the battery at two loads, one run.sh directory each" {
	run validate "$T/v"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(sed -n 's/^step=//p' "$T/v/validate.txt" | cut -d'|' -f1 | tr '\n' ' ')" = \
		"storm reentry placement placement-burst hackbench-1 cyclictest-1 tbench-1 hackbench-16 cyclictest-16 tbench-16 netperf-tcp_rr netperf-udp_rr " ]
	for d in storm reentry placement hackbench-1 cyclictest-16 tbench-16 netperf-udp_rr; do
		grep -qx status=ok "$T/v/$d/meta.txt"
		[ -f "$T/v/$d/iter-002.txt" ]
	done
	# the published command line's shape, CPU0 -> CPU1 (no CPU16 here)
	grep -qx 'insmod ipistorm numipi=20000 single=1 offset=1 cpulist=0 wait=1' "$R/calls"
	grep -qx 'storm=pairs=0:1 numipi=20000' "$T/v/reentry/meta.txt"
	grep -qx 'insmod idle_reentry cpulist=1' "$R/calls"
	# a tenth of the storm's calls as wake-ups from the sender's CPU
	grep -qx 'insmod placement numwake=2000 waker=0 cpulist=0,1' "$R/calls"
	# beside bursts on CPU1's LLC (0-1,8-9) but the waker's CPU
	grep -qx 'insmod placement numwake=2000 waker=0 cpulist=1,8-9 busy=1,8-9 busy_run_us=200 busy_sleep_us=200' "$R/calls"
	grep -qx 'hackbench -g 16 -f 20 -l 20 -s 100 --process' "$R/calls"
	grep -qx 'params=threads=1 duration=2' "$T/v/cyclictest-1/meta.txt"
	grep -qx 'params=test=UDP_RR duration=2' "$T/v/netperf-udp_rr/meta.txt"
	[ "$(tail -n 1 <<<"$output")" = "$T/v" ]
}

@test "validate: a directory is resumed, its completed steps kept; another plan is refused" {
	validate "$T/v" -L 1,2
	mv "$T/v/tbench-2" "$T/keep"
	sed -i 's/^status=ok$/status=failed/' "$T/v/hackbench-2/meta.txt"
	: >"$R/calls"
	run validate "$T/v" -L 1,2
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# only the two steps run again, the failed run kept aside
	[ "$(grep -c '^hackbench ' "$R/calls")" = 2 ]
	[ "$(grep -c '^tbench ' "$R/calls")" = 2 ]
	[ "$(wc -l <"$R/calls")" = 4 ]
	[ -d "$T/v/hackbench-2.failed-1" ]
	grep -qx status=ok "$T/v/hackbench-2/meta.txt"
	[[ $output == *"storm: done before, kept"* ]]
	run validate "$T/v" -L 1,3
	[ "$status" -eq 1 ]
	[[ $output == *"holds another plan (validate.txt)"* ]]
	# another build of the same release, or another module: refused
	sed -i 's/^status=ok$/status=failed/' "$T/v/tbench-2/meta.txt"
	cp "$R/proc/sys/kernel/version" "$T/version"
	echo '#2 SMP PREEMPT_DYNAMIC Debian 6.12.0-1' >"$R/proc/sys/kernel/version"
	: >"$R/calls"
	run validate "$T/v" -L 1,2
	[ "$status" -eq 2 ]
	[ "${lines[-1]}" = "validate.sh: $T/v/storm was run on another build of 6.12.0-test: its kernel_version is '#1 SMP PREEMPT_DYNAMIC Debian 6.12.0-1', this is '#2 SMP PREEMPT_DYNAMIC Debian 6.12.0-1': one kernel a validate directory" ]
	cp "$T/version" "$R/proc/sys/kernel/version"
	printf 'ELF\0srcversion=0123456789ABCDEF0123456\0' >"$T/mods/ipistorm/ipistorm.ko"
	rm -r "$T/v"
	validate "$T/v" -L 1,2
	sed -i 's/^status=ok$/status=failed/' "$T/v/tbench-2/meta.txt"
	printf 'ELF\0srcversion=FEDCBA9876543210FEDCBA9\0' >"$T/mods/ipistorm/ipistorm.ko"
	: >"$R/calls"
	run validate "$T/v" -L 1,2
	[ "$status" -eq 2 ]
	[ "${lines[-1]}" = "validate.sh: $T/v/storm was run with another ipistorm module: its srcversion 0123456789ABCDEF0123456, $T/mods/ipistorm/ipistorm.ko's FEDCBA9876543210FEDCBA9: one build a validate directory" ]
	[ ! -s "$R/calls" ]
}

# slower DIR STEP KEY PCT: every iteration of STEP's KEY PCT % higher, a
# few units apart from each other.
slower() {
	local f i=0
	for f in "$1/$2"/iter-*.txt; do
		i=$((i + 1))
		awk -v k="$3=" -v p="$4" -v i="$i" 'index($0, k) == 1 { v = substr($0, length(k) + 1); $0 = k int(v * (100 + p) / 100 + i) } { print }' "$f" >"$f.new"
		mv "$f.new" "$f"
	done
}

# pair: a validation $T/v at loads 1 and 2, its results given a little
# spread (the same in each step), and its copy $T/base.
pair() {
	local f
	validate "$T/v" -L 1,2 >/dev/null
	for f in "$T"/v/*/iter-*.txt; do
		awk -v i="${f##*iter-}" '/^(runtime_ns|total\.[a-z_]+)=[0-9]+$/ { split($0, kv, "="); $0 = kv[1] "=" kv[2] + int(i) } { print }' "$f" >"$f.new"
		mv "$f.new" "$f"
	done
	cp -r "$T/v" "$T/base"
}

@test "validate: the report, compare.sh per step, one verdict and exit status" {
	pair
	# the baseline's storm slower: better now
	slower "$T/base" storm runtime_ns 30
	run "$S/validate.sh" -r "$T/v" "$T/base"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *"== storm: ipistorm numipi=20000 single=1 offset=1 cpulist=0 wait=1"* ]]
	[[ $output == *"== reentry: idle_reentry cpulist=1 (storm: pairs=0:1 numipi=20000)"* ]]
	grep -q '^storm  *ipistorm  *runtime_ns  *23\.[0-9]*  *yes  better$' <<<"$output"
	grep -q '^hackbench-2  *hackbench  *runtime_ns  *0\.0*  *no  no regression$' <<<"$output"
	[ "$(tail -n 1 <<<"$output")" = "Verdict: no regression in 12 steps" ]
	# a step significantly worse by less than the threshold is worse,
	# never better
	slower "$T/v" hackbench-2 runtime_ns 3
	run "$S/validate.sh" -r "$T/v" "$T/base"
	[ "$status" -eq 0 ]
	grep -q '^hackbench-2  *hackbench  *runtime_ns  *-3\.0000  *yes  worse$' <<<"$output"
	[ "$(tail -n 1 <<<"$output")" = "Verdict: no regression in 12 steps" ]
	# a step slower now: regressed, exit 1
	slower "$T/v" tbench-1 total.max_latency_ns 50
	run "$S/validate.sh" -r "$T/v" "$T/base"
	[ "$status" -eq 1 ]
	grep -q '^tbench-1  *tbench  .* REGRESSED$' <<<"$output"
	[ "$(tail -n 1 <<<"$output")" = "Verdict: REGRESSED: tbench-1" ]
	# a step the baseline lacks: not compared, exit 2 (a regression wins)
	rm -r "$T/base/netperf-udp_rr"
	run "$S/validate.sh" -r "$T/v" "$T/base"
	[ "$status" -eq 1 ]
	[ "$(tail -n 1 <<<"$output")" = "Verdict: REGRESSED: tbench-1 (not compared: netperf-udp_rr)" ]
	rm -r "$T/v/tbench-1" "$T/base/tbench-1"
	cp -r "$T/v/tbench-2" "$T/v/tbench-1"
	cp -r "$T/v/tbench-2" "$T/base/tbench-1"
	run "$S/validate.sh" -r "$T/v" "$T/base"
	[ "$status" -eq 2 ]
	[ "$(tail -n 1 <<<"$output")" = "Verdict: not comparable: netperf-udp_rr" ]
}

# setkey DIR STEP KEY V1 V2: STEP's KEY, V1 in its first iteration, V2 in
# its second.
setkey() {
	sed -i "s/^$3=.*/$3=$4/" "$1/$2/iter-001.txt"
	sed -i "s/^$3=.*/$3=$5/" "$1/$2/iter-002.txt"
}

# One family: the verdict holds its false-alarm chance at alpha over every
# test of every step, not per step. A regression compare.sh finds at
# p 0.02 in one step of 46 tests (2 runs a side, Welch) is no regression
# of the validation; one at p 1e-6 is.
@test "validate: the verdict is corrected over every test of every step; a step not exercised is never compared" {
	pair
	setkey "$T/base" tbench-1 total.max_latency_ns 1000 1100
	setkey "$T/v" tbench-1 total.max_latency_ns 1542 1642
	# compare.sh alone: a regression
	run "$S/compare.sh" "$T/base/tbench-1" "$T/v/tbench-1"
	[ "$status" -eq 1 ]
	run "$S/validate.sh" -r "$T/v" "$T/base"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -q '^tbench-1  *tbench  *total.mb_per_sec  *0\.0*  *no  no regression$' <<<"$output"
	[[ $output == *"after Holm-Bonferroni over the 46 tests of every step"* ]]
	[ "$(tail -n 1 <<<"$output")" = "Verdict: no regression in 12 steps" ]
	setkey "$T/v" tbench-1 total.max_latency_ns 100000 100001
	run "$S/validate.sh" -r "$T/v" "$T/base"
	[ "$status" -eq 1 ]
	[ "$(tail -n 1 <<<"$output")" = "Verdict: REGRESSED: tbench-1" ]
	setkey "$T/v" tbench-1 total.max_latency_ns 1000 1100
	# a storm that never polled, re-entries that did not happen: not
	# exercised, never compared, the validation not passed (exit 2)
	setkey "$T/v" storm total.poll_pct 0 0
	setkey "$T/base" reentry total.reentries 3 0
	run "$S/validate.sh" -r "$T/v" "$T/base"
	[ "$status" -eq 2 ]
	[[ $output == *"(not exercised: total.poll_pct is 0 in a result of $T/v/storm, want 1 or more: not compared)"* ]]
	[[ $output == *"(not exercised: total.reentries is 0 in a result of $T/base/reentry, want 200 or more: not compared)"* ]]
	grep -q '^storm  *ipistorm  *runtime_ns  *n/a  *no  not exercised$' <<<"$output"
	[ "$(tail -n 1 <<<"$output")" = "Verdict: not exercised: storm reentry" ]
	# the plan says each step's rule
	grep -qx 'step=storm|ipistorm|numipi=20000 single=1 offset=1 cpulist=0 wait=1||total.poll_pct>=1' "$T/v/validate.txt"
	grep -qx 'step=reentry|idle_reentry|cpulist=1|pairs=0:1 numipi=20000|total.reentries>=200' "$T/v/validate.txt"
	grep -qx 'step=placement|placement|numwake=2000 waker=0 cpulist=0,1||total.wakeups>=1' "$T/v/validate.txt"
	grep -qx 'step=placement-burst|placement|numwake=2000 waker=0 cpulist=1,8-9 busy=1,8-9 busy_run_us=200 busy_sleep_us=200||total.wakeups>=1' "$T/v/validate.txt"
}

# boot ID: the fake machine's boot is ID from now on.
boot() {
	mkdir -p "$R/proc/sys/kernel/random"
	echo "$1" >"$R/proc/sys/kernel/random/boot_id"
}

# vseries SERIES [OPTION...]: validate.sh -S with small sizes, loads 1 and 2.
vseries() {
	"$S/validate.sh" -n 2 -w 0 -m "$T/mods" -i 20000 -d 2 -l 20 -L 1,2 -S "$@"
}

# shift_boot DIR ADD: every run of every step of DIR ADD higher in each
# time, count and rate (a boot's own level), the runs 1 apart.
shift_boot() {
	local f
	for f in "$1"/*/iter-*.txt; do
		awk -v i="${f##*iter-}" -v a="$2" '/^(runtime_ns|total\.[a-z_]+)=[0-9]+$/ { split($0, kv, "="); $0 = kv[1] "=" kv[2] + a + int(i) } { print }' "$f" >"$f.new"
		mv "$f.new" "$f"
	done
}

# as_series SERIES START BOOT_ID:DIR...: a series of the validations DIR,
# made by hand (each DIR's boot BOOT_ID, begun at START, START + 10 ...).
as_series() {
	local s=$1 t=$2 k=0 b
	shift 2
	mkdir -p "$s"
	echo format=ipistorm-validate-series/1 >"$s/series.txt"
	for b; do
		k=$((k + 1))
		cp -r "${b#*:}" "$s/boot-$k"
		echo "boot=$k|${b%%:*}|$((t + k * 10))" >>"$s/series.txt"
	done
}

@test "validate: a series, one validation a boot, resumed in its boot, one plan and build" {
	boot aaaa-1
	run vseries "$T/s"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "${lines[-1]}" = "$T/s/boot-1" ]
	[ "$(head -n 1 "$T/s/series.txt")" = format=ipistorm-validate-series/1 ]
	grep -q '^boot=1|aaaa-1|[0-9]*$' "$T/s/series.txt"
	grep -qx status=ok "$T/s/boot-1/netperf-udp_rr/meta.txt"
	# the same boot again: its validation resumed, no new boot
	sed -i 's/^status=ok$/status=failed/' "$T/s/boot-1/hackbench-2/meta.txt"
	: >"$R/calls"
	run vseries "$T/s"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(grep -c '^boot=' "$T/s/series.txt")" = 1 ]
	[ "$(grep -c '^hackbench ' "$R/calls")" = 2 ]
	[ "$(wc -l <"$R/calls")" = 2 ]
	# another boot: the next validation of the series
	boot bbbb-2
	run vseries "$T/s"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "${lines[-1]}" = "$T/s/boot-2" ]
	grep -q '^boot=2|bbbb-2|[0-9]*$' "$T/s/series.txt"
	# another plan, another build: refused, nothing run
	cp "$R/proc/sys/kernel/version" "$T/version"
	boot cccc-3
	: >"$R/calls"
	run vseries "$T/s" -i 30000
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "validate.sh: $T/s/boot-1 holds another plan (validate.txt): a series is one plan; give a new -S, or the options it was made with" ]
	echo '#2 SMP PREEMPT_DYNAMIC Debian 6.12.0-1' >"$R/proc/sys/kernel/version"
	run vseries "$T/s"
	[ "$status" -eq 2 ]
	[ "${lines[-1]}" = "validate.sh: $T/s/boot-1/storm was run on another build of 6.12.0-test: its kernel_version is '#1 SMP PREEMPT_DYNAMIC Debian 6.12.0-1', this is '#2 SMP PREEMPT_DYNAMIC Debian 6.12.0-1': one kernel a validate directory" ]
	[ ! -s "$R/calls" ]
	[ "$(grep -c '^boot=' "$T/s/series.txt")" = 2 ]
	# no boot id, a directory that is no series, -o with -S, -o into a
	# boot of a series
	rm "$R/proc/sys/kernel/random/boot_id"
	run vseries "$T/s2"
	[ "$status" -eq 2 ]
	[[ ${lines[-1]} == *"no boot id"* ]]
	boot dddd-4
	run vseries "$T/s/boot-1"
	[ "$status" -eq 2 ]
	[[ ${lines[-1]} == *"is not a series (no series.txt)"* ]]
	run "$S/validate.sh" -o "$T/x" -S "$T/y"
	[ "$status" -eq 2 ]
	[[ ${lines[0]} == "validate.sh: -o and -S: one or the other" ]]
	cp "$T/version" "$R/proc/sys/kernel/version" 2>/dev/null || :
	run "$S/validate.sh" -n 2 -w 0 -m "$T/mods" -i 20000 -d 2 -l 20 -L 1,2 -o "$T/s/boot-1"
	[ "$status" -eq 2 ]
	[ "${lines[-1]}" = "validate.sh: $T/s/boot-1 is a boot of the series $T/s: run -S $T/s, in the boot it is of" ]
	# a name with the characters sed takes apart
	boot eeee-5
	run vseries "$T/a&b|c"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "${lines[-1]}" = "$T/a&b|c/boot-1" ]
	boot ffff-6
	run vseries "$T/a&b|c" -i 30000
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "validate.sh: $T/a&b|c/boot-1 holds another plan (validate.txt): a series is one plan; give a new -S, or the options it was made with" ]
}

# A kernel against itself, where each boot has a level of its own (as in
# real time under TCG): one boot a side reads a regression the runs of
# one boot cannot tell from the boot's level; a series, whose sample is
# the boot, does not. A real change, larger than the boots' levels, is
# seen by the series.
@test "validate: a report of two series takes the boot as the unit; an A/A with boot levels passes" {
	boot aaaa-1
	vseries "$T/s" >/dev/null
	mv "$T/s/boot-1" "$T/one"
	rm -r "$T/s"
	local b
	for b in 1:0 2:4000 3:2000 4:6000; do
		cp -r "$T/one" "$T/b${b%%:*}"
		shift_boot "$T/b${b%%:*}" "${b#*:}"
	done
	# one boot a side: boot 4's level over boot 1's is a regression
	run "$S/validate.sh" -r "$T/b4" "$T/b1"
	[ "$status" -eq 1 ] || { echo "$output"; false; }
	[[ ${lines[-1]} == "Verdict: REGRESSED: "* ]]
	# boots 1 and 2 against 3 and 4, the same kernel, interleaved: no
	# regression
	as_series "$T/base" 1000 "id-1:$T/b1" "id-2:$T/b2"
	as_series "$T/new" 1005 "id-3:$T/b3" "id-4:$T/b4"
	run "$S/validate.sh" -r "$T/new" "$T/base"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "${lines[0]}" = "Series: 2 boots of $T/new (A) against 2 of $T/base (B, the baseline), begun in the order B A B A; a sample is a boot's mean of its runs" ]
	grep -q '^storm  *ipistorm  *runtime_ns  .*  no  no regression$' <<<"$output"
	[ "${lines[-1]}" = "Verdict: no regression in 12 steps" ]
	# the same bytes under busybox sh and awk, as on the measured machine
	local want=$output
	mkdir "$T/bb"
	ln -s "$(command -v busybox)" "$T/bb/awk"
	run env PATH="$T/bb:$PATH" busybox sh "$S/validate.sh" -r "$T/new" "$T/base"
	[ "$status" -eq 0 ]
	[ "$output" = "$want" ]
	# a sample is a boot's mean: the storm's two samples a side, boot 3's
	# and boot 4's means of their runs, 4000 apart
	local m3 m4
	m3=$(cat "$T/b3"/storm/iter-*.txt | awk -F= '$1 == "runtime_ns" { s += $2; n++ } END { printf "%.2f", s / n }')
	m4=$(cat "$T/b4"/storm/iter-*.txt | awk -F= '$1 == "runtime_ns" { s += $2; n++ } END { printf "%.2f", s / n }')
	[ "$(awk -v a="$m3" -v b="$m4" 'BEGIN { print b - a }')" = 4000 ]
	grep -q "^Min  *[0-9.]*  *$m3\$" <<<"$output"
	grep -q "^Max  *[0-9.]*  *$m4\$" <<<"$output"
	# a change beyond the boots' levels: the series sees it
	slower "$T/new/boot-1" storm runtime_ns 30
	slower "$T/new/boot-2" storm runtime_ns 30
	run "$S/validate.sh" -r "$T/new" "$T/base"
	[ "$status" -eq 1 ] || { echo "$output"; false; }
	[ "${lines[-1]}" = "Verdict: REGRESSED: storm" ]
	# a step one boot did not complete: left out, said, not compared
	sed -i 's/^status=ok$/status=failed/' "$T/base/boot-2/tbench-1/meta.txt"
	run "$S/validate.sh" -r "$T/new" "$T/base"
	[ "$status" -eq 1 ]
	[[ $output == *"$T/base/boot-2/tbench-1: not completed: the step is left out of $T/base"* ]]
	[[ $output == *"(no completed step tbench-1 in $T/base)"* ]]
	[ "${lines[-1]}" = "Verdict: REGRESSED: storm (not compared: tbench-1)" ]
}

@test "validate: series the report refuses" {
	boot aaaa-1
	vseries "$T/s" >/dev/null
	cp -r "$T/s/boot-1" "$T/one"
	as_series "$T/A" 1000 "id-1:$T/one" "id-2:$T/one"
	as_series "$T/B" 1005 "id-3:$T/one" "id-2:$T/one"
	run "$S/validate.sh" -r "$T/B" "$T/A"
	[ "$status" -eq 2 ]
	[ "$output" = "validate.sh: $T/B and $T/A: boot id-2 is in both series: a boot validates one kernel" ]
	run "$S/validate.sh" -r "$T/A" "$T/A/"
	[ "$status" -eq 2 ]
	[ "$output" = "validate.sh: $T/A is the baseline itself: give two validations" ]
	run "$S/validate.sh" -r "$T/A" "$T/one"
	[ "$status" -eq 2 ]
	[[ $output == *"a series against a single validation"* ]]
	run "$S/validate.sh" -r "$T/s" "$T/A"
	[ "$status" -eq 2 ]
	[[ $output == *"$T/s: a series of 1 boot(s): its boot is the unit, 2 at least a side"* ]]
	as_series "$T/C" 1000 "id-5:$T/one" "id-6:$T/one"
	sed -i 's/^runs=2$/runs=3/' "$T/C/boot-2/validate.txt"
	run "$S/validate.sh" -r "$T/C" "$T/A"
	[ "$status" -eq 2 ]
	[[ $output == *"$T/C/boot-2 has another plan than $T/C/boot-1: a series is one plan"* ]]
	# a boot of another build, or of another machine state
	as_series "$T/D" 1000 "id-7:$T/one" "id-8:$T/one"
	sed -i 's/^kernel_version=.*/kernel_version=#2 other/' "$T/D/boot-2/hackbench-1/meta.txt"
	run "$S/validate.sh" -r "$T/D" "$T/A"
	[ "$status" -eq 2 ]
	[[ $output == *"$T/D/boot-2/hackbench-1 was run on another kernel build than $T/D/boot-1/hackbench-1 ("*"kernel_version=#2 other"*"): a series is one build"* ]]
	as_series "$T/E" 1000 "id-9:$T/one" "id-10:$T/one"
	sed -i 's/^governor=.*/governor=performance/' "$T/E/boot-2/storm/meta.txt"
	run "$S/validate.sh" -r "$T/E" "$T/A"
	[ "$status" -eq 2 ]
	[[ $output == *"$T/E/boot-2/storm is not of $T/E/boot-1/storm's machine and command (compare.sh -x: "*"): a series is one machine state"* ]]
}

@test "validate: usage errors" {
	run "$S/validate.sh" -n 1
	[ "$status" -eq 2 ]
	run "$S/validate.sh" -c 3:2
	[ "$status" -eq 2 ]
	[[ $output == *"the target (2) must be above the sender (3)"* ]]
	run "$S/validate.sh" -L 2,2
	[ "$status" -eq 2 ]
	run "$S/validate.sh" -r "$T/nothing"
	[ "$status" -eq 2 ]
	# a report against a baseline that is not there: exit 2, named
	mkdir "$T/v"
	: >"$T/v/validate.txt"
	run "$S/validate.sh" -r "$T/v" "$T/nothing"
	[ "$status" -eq 2 ]
	[ "$output" = "validate.sh: $T/nothing: no such directory" ]
	mkdir "$T/empty"
	run "$S/validate.sh" -r "$T/v" "$T/empty"
	[ "$status" -eq 2 ]
	[ "$output" = "validate.sh: $T/empty: no validate.txt (not a validate directory) and no series.txt (not a series)" ]
	run "$S/validate.sh" -b "$T/nothing"
	[ "$status" -eq 2 ]
	[ ! -e results ]
}
