#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# check.sh -d: the benchmarks' declarations and wirings, and dkms.conf
# against them, on a copy of the tree.

setup() {
	S=$BATS_TEST_DIRNAME/..
	T=$BATS_TEST_TMPDIR
	# shellcheck source=../lib.sh
	. "$S/lib.sh"
	mkdir -p "$T/t/scripts"
	cp "$S"/*.sh "$S"/*.awk "$T/t/scripts/"
	cp "$S/../Kbuild" "$S/../dkms.conf" "$T/t/"
	# three of the suite's declarations, a fixed set whatever folders the
	# tree gains
	for m in idle_reentry ipistorm nohz_csd; do
		mkdir -p "$T/t/$m"
		cp "$S/../$m/bench.conf" "$S/../$m/wiring.conf" "$T/t/$m/"
	done
}

# newmod NAME DKMS: a module folder NAME copied from ipistorm's, its
# wiring's dkms= DKMS, its testbed= empty.
newmod() {
	mkdir "$T/t/$1"
	sed "s/^name=.*/name=$1/" "$S/../ipistorm/bench.conf" >"$T/t/$1/bench.conf"
	sed "s/^dkms=.*/dkms=$2/; s/^testbed=.*/testbed=/" "$S/../ipistorm/wiring.conf" >"$T/t/$1/wiring.conf"
}

@test "check: the tree's declarations and dkms.conf agree" {
	run "$S/check.sh" -d
	[ "$status" -eq 0 ]
	[[ $output == *"check: clean (declarations only)"* ]]
	run "$T/t/scripts/check.sh" -d
	[ "$status" -eq 0 ]
}

# dkms.conf names no module: it computes its arrays from the wirings'
# dkms= when dkms sources it (bash's ".", from any directory), so a new
# folder is installed without an edit, and a module line written into it
# (the old way) is a drift check.sh -d shows.
@test "check: dkms.conf computes its modules from the wirings, from any directory" {
	run ! grep -E '^(BUILT_MODULE_NAME|BUILT_MODULE_LOCATION|DEST_MODULE_LOCATION)\[[0-9]' "$S/../dkms.conf"
	run bash -c 'cd / && . "$1" >/dev/null && echo "${BUILT_MODULE_NAME[*]}|${BUILT_MODULE_LOCATION[*]}|${DEST_MODULE_LOCATION[*]}"' _ "$T/t/dkms.conf"
	[ "$output" = "idle_reentry ipistorm nohz_csd|idle_reentry/ ipistorm/ nohz_csd/|/updates/dkms /updates/dkms /updates/dkms" ]
	# a new folder with dkms=, another without: the first is installed
	newmod newbench newbench
	newmod aid ""
	run bash -c 'cd / && . "$1" >/dev/null && echo "${BUILT_MODULE_NAME[*]}|${BUILT_MODULE_LOCATION[2]}"' _ "$T/t/dkms.conf"
	[ "$output" = "idle_reentry ipistorm newbench nohz_csd|newbench/" ]
	run "$T/t/scripts/check.sh" -d
	[ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "check: dkms.conf drifting from the wirings fails" {
	# a module line of its own, another module's folder wrong
	printf '%s\n' 'BUILT_MODULE_NAME[3]="extra"' 'BUILT_MODULE_LOCATION[3]="extra/"' \
		'DEST_MODULE_LOCATION[3]="/updates/dkms"' 'BUILT_MODULE_LOCATION[1]="idle/"' >>"$T/t/dkms.conf"
	run "$T/t/scripts/check.sh" -d
	[ "$status" -eq 1 ]
	[[ $output == *'-BUILT_MODULE_LOCATION[1]="ipistorm/"'* ]]
	[[ $output == *'+BUILT_MODULE_LOCATION[1]="idle/"'* ]]
	[[ $output == *'+BUILT_MODULE_NAME[3]="extra"'* ]]
	[[ $output == *"dkms.conf differs from the wirings"* ]]
	[[ $output == *"check: FAILED"* ]]
	# the old, listing dkms.conf misses a new folder's module
	cat >"$T/t/dkms.conf" <<-'EOF'
	PACKAGE_NAME="ipistorm"
	PACKAGE_VERSION="1.0"
	BUILT_MODULE_NAME[0]="idle_reentry"
	BUILT_MODULE_LOCATION[0]="idle_reentry/"
	DEST_MODULE_LOCATION[0]="/updates/dkms"
	BUILT_MODULE_NAME[1]="ipistorm"
	BUILT_MODULE_LOCATION[1]="ipistorm/"
	DEST_MODULE_LOCATION[1]="/updates/dkms"
	BUILT_MODULE_NAME[2]="nohz_csd"
	BUILT_MODULE_LOCATION[2]="nohz_csd/"
	DEST_MODULE_LOCATION[2]="/updates/dkms"
	EOF
	run "$T/t/scripts/check.sh" -d
	[ "$status" -eq 0 ]
	newmod zbench zbench
	run "$T/t/scripts/check.sh" -d
	[ "$status" -eq 1 ]
	[[ $output == *'-BUILT_MODULE_NAME[3]="zbench"'* ]]
}

@test "check: a missing or wrong declaration fails, naming the defect" {
	sed -i 's/^name=.*/name=other/; s/^metrics=runtime_ns:lower:ns/metrics=runtime_ns:faster:ns/' "$T/t/ipistorm/bench.conf"
	run "$T/t/scripts/check.sh" -d
	[ "$status" -eq 1 ]
	[[ $output == *"ipistorm/bench.conf: line "*": name is 'other', not its folder's 'ipistorm'"* ]]
	[[ $output == *"ipistorm/bench.conf: line "*": metric 'runtime_ns:faster:ns' is not KEY:lower|higher|none:ns|pct|count|per_sec"* ]]
	[[ $output == *"check: FAILED"* ]]
	# a folder is a module by its declaration: without one it is none
	rm "$T/t/nohz_csd/bench.conf"
	run suite_benches "$T/t"
	[ "$output" = "idle_reentry
ipistorm" ]
	run bench_check "$T/t" nohz_csd
	[ "$status" -eq 1 ]
	[[ $output == *"nohz_csd/bench.conf: no such file"* ]]
}

# One format: a declaration of an older one is refused, naming what it
# lacks and that its wiring moved; instrument= holds result keys.
@test "check: an older format is refused, naming what to change; instrument= holds result keys" {
	d=$T/t/idle_reentry/bench.conf
	grep -qx 'instrument=total.hook_hits_per_reentry total.hook_cost_ns' "$d"
	[ -z "$(bench_get "$S/.." ipistorm instrument)" ]
	[ "$(bench_get "$S/.." nohz_csd instrument)" = total.probe_cost_ppm ]
	cp "$d" "$T/conf"
	# an older declaration, its wiring keys still in it
	cat "$T/conf" "$T/t/idle_reentry/wiring.conf" | grep -v '^format=ipistorm-wiring' >"$T/old"
	local moved=" and move its wiring (testbed=, bisect_*=, dkms=, mmtests=, lkp=) to wiring.conf beside it (docs/bench.md)"
	while IFS='|' read -r fmt drop want; do
		sed "s|^format=.*|format=$fmt|; $drop" "$T/old" >"$d"
		run bench_check "$T/t" idle_reentry
		[ "$status" -eq 1 ]
		[[ $output == *"idle_reentry/bench.conf: line "*": format is $fmt, no longer read: make it format=ipistorm-bench/7$want$moved"* ]] ||
			{ echo "$fmt: $output"; false; }
		[[ $output == *"idle_reentry/bench.conf: line "*": testbed= is wiring, no longer a key of bench.conf: it goes in wiring.conf beside it (docs/bench.md)"* ]]
	done <<-'EOF'
	ipistorm-bench/6|/^kind=/s/x/x/|
	ipistorm-bench/5|/^kind=/s/x/x/|
	ipistorm-bench/4|/^kind=/s/x/x/|, add choices= and timeout= (a program's),
	ipistorm-bench/3|/^kind=/d|, add kind=module,
	ipistorm-bench/2|/^kind=/d; /^tail=/d; /^tail_label=/d|, add kind=module, tail= and tail_label=,
	ipistorm-bench/1|/^kind=/d; /^instrument=/d; /^tail=/d; /^tail_label=/d|, add kind=module, instrument=, tail= and tail_label=,
	EOF
	# what they lack is named too
	sed 's|^format=.*|format=ipistorm-bench/3|; /^kind=/d' "$T/conf" >"$d"
	run bench_check "$T/t" idle_reentry
	[[ $output == *": $d: no kind= line"* ]]
	sed '/^instrument=/d' "$T/conf" >"$d"
	run bench_check "$T/t" idle_reentry
	[ "$status" -eq 1 ]
	[[ $output == *": $d: no instrument= line" ]]
	sed 's/^instrument=.*/instrument=total.hook_cost_ns 3x/' "$T/conf" >"$d"
	run bench_check "$T/t" idle_reentry
	[ "$status" -eq 1 ]
	[[ $output == *"instrument key '3x' is not a result key" ]]
	sed 's|^format=.*|format=ipistorm-bench/8|' "$T/conf" >"$d"
	run bench_check "$T/t" idle_reentry
	[ "$status" -eq 1 ]
	[[ $output == *"format is 'ipistorm-bench/8', want ipistorm-bench/7" ]]
	# the tree's own are of /7, their wirings of ipistorm-wiring/1
	cp "$T/conf" "$d"
	run "$T/t/scripts/check.sh" -d
	[ "$status" -eq 0 ]
	local f
	for f in "$S"/../*/bench.conf; do
		grep -qx 'format=ipistorm-bench/7' "$f" || { echo "$f: not of ipistorm-bench/7"; false; }
	done
	for f in "$S"/../*/wiring.conf; do
		grep -qx 'format=ipistorm-wiring/1' "$f" || { echo "$f: not of ipistorm-wiring/1"; false; }
	done
}

# The wiring, apart from what the metrics mean: a module's is required, a
# program's may be absent; each key of its kind present; bisect_storm=
# needs the declaration's storm=.
@test "check: the wiring is checked as the declaration is" {
	w=$T/t/nohz_csd/wiring.conf
	cp "$w" "$T/wiring"
	rm "$w"
	run "$T/t/scripts/check.sh" -d
	[ "$status" -eq 1 ]
	[[ $output == *"nohz_csd/wiring.conf: no such file: every module folder wires itself in there (docs/bench.md#wiring)"* ]]
	sed '/^testbed=/d; /^dkms=/d; s/^format=.*/format=ipistorm-wiring/' "$T/wiring" >"$w"
	echo 'metrics=x:lower:ns' >>"$w"
	run wiring_check "$T/t" nohz_csd
	[ "$status" -eq 1 ]
	[[ $output == *": $w: no testbed= line"* ]]
	[[ $output == *": $w: no dkms= line"* ]]
	[[ $output == *"format is 'ipistorm-wiring', want ipistorm-wiring/1"* ]]
	[[ $output == *"unknown key 'metrics'"* ]]
	sed 's/^bisect_storm=.*/bisect_storm=numipi=1/; s/^bisect_metric=.*/bisect_metric=a\/b\/c/' "$T/wiring" >"$w"
	run wiring_check "$T/t" nohz_csd
	[ "$status" -eq 1 ]
	[[ $output == *"bisect_storm without a storm= module in bench.conf"* ]]
	[[ $output == *"bisect_metric 'a/b/c' is not KEY[:lower|:higher] or A/B"* ]]
	# a program's: testbed= alone, and none at all is none wired
	mkdir "$T/t/prog"
	sed 's/^name=.*/name=prog/' "$S/../hackbench/bench.conf" >"$T/t/prog/bench.conf"
	cp "$S/../hackbench/parse.awk" "$T/t/prog/"
	run wiring_check "$T/t" prog
	[ "$status" -eq 0 ]
	[ -z "$(wiring_get "$T/t" prog testbed)" ]
	printf '%s\n' format=ipistorm-wiring/1 testbed=poll:prog_x dkms=prog >"$T/t/prog/wiring.conf"
	run wiring_check "$T/t" prog
	[ "$status" -eq 1 ]
	[[ $output == *"dkms= is a key of a module's wiring, not of a program's"* ]]
	sed -i '/^dkms=/d' "$T/t/prog/wiring.conf"
	run wiring_check "$T/t" prog
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(bench_testbed "$T/t" poll | tail -n 1)" = prog_x ]
}

# tail=, tail_label= and testbed= are required; tail= and tail_label= go
# together.
@test "check: tail=, tail_label= and testbed= are required" {
	d=$T/t/nohz_csd/bench.conf
	[ "$(bench_get "$S/.." ipistorm tail)" = "total.lat_p%_ns" ]
	[ "$(bench_get "$S/.." nohz_csd tail_label)" = "nohz idle balance kick delay" ]
	sed -i '/^tail=/d; s/^tail_label=.*/tail_label=x/' "$d"
	sed -i '/^testbed=/d' "$T/t/nohz_csd/wiring.conf"
	run bench_check "$T/t" nohz_csd
	[ "$status" -eq 1 ]
	[[ $output == *": $d: no tail= line"* ]]
	[[ $output == *"tail= and tail_label= go together: both empty or neither"* ]]
	run wiring_check "$T/t" nohz_csd
	[ "$status" -eq 1 ]
	[[ $output == *"nohz_csd/wiring.conf: no testbed= line"* ]]
}

@test "check: tail= and testbed= values of the wrong shape are refused" {
	local bad want d f
	while IFS='|' read -r bad want; do
		f=bench.conf
		[[ $bad != testbed=* ]] || f=wiring.conf
		d=$T/t/ipistorm/$f
		cp "$S/../ipistorm/bench.conf" "$S/../ipistorm/wiring.conf" "$T/t/ipistorm/"
		sed -i "s|^${bad%%=*}=.*|$bad|" "$d"
		run bash -c '. "$1/scripts/lib.sh" && bench_check "$1" ipistorm && wiring_check "$1" ipistorm' _ "$T/t"
		[ "$status" -eq 1 ] || { echo "accepted: $bad"; false; }
		[[ $output == *"$want"* ]] || { echo "$bad: $output"; false; }
	done <<-'EOF'
	tail=total.lat_p_ns|tail pattern 'total.lat_p_ns' is not a result key with one % for the percentile
	tail=total.lat_p%_%|tail pattern 'total.lat_p%_%' is not a result key with one % for the percentile
	tail=total.lat_p%_ns total.lat_p%_ns|tail pattern total.lat_p%_ns listed twice
	testbed=poll|testbed word 'poll' is not BOOT:GLOB
	testbed=poll:ipistorm_a:b|testbed word 'poll:ipistorm_a:b' is not BOOT:GLOB
	testbed=Poll:ipistorm_a|testbed word 'Poll:ipistorm_a' is not BOOT:GLOB
	testbed=poll:ipistorm_[ab]|testbed word 'poll:ipistorm_[ab]' is not BOOT:GLOB
	testbed=functional:ipistorm_a|functional runs every test, it takes no list
	testbed=poll:*|the glob must start with ipistorm_ (this benchmark's own tests)
	testbed=poll:trace_*|the glob must start with ipistorm_ (this benchmark's own tests)
	testbed=poll:ipistorm_a poll:ipistorm_a|testbed word poll:ipistorm_a listed twice
	tail_label=|tail= and tail_label= go together: both empty or neither
	EOF
	# empty together is good: no tail to plot, no boot but functional
	sed -i 's|^tail=.*|tail=|; s|^tail_label=.*|tail_label=|' "$T/t/ipistorm/bench.conf"
	sed -i 's|^testbed=.*|testbed=|' "$T/t/ipistorm/wiring.conf"
	run bench_check "$T/t" ipistorm
	[ "$status" -eq 0 ]
	run wiring_check "$T/t" ipistorm
	[ "$status" -eq 0 ]
}

@test "check: -h is usage, an unknown option exit 2" {
	run "$S/check.sh" -h
	[ "$status" -eq 0 ]
	[[ $output == *"check.sh [-d]"* ]]
	run "$S/check.sh" -z
	[ "$status" -eq 2 ]
}

# kbuild_modules TOP [DIR]: the obj-m of TOP/Kbuild as kbuild reads it,
# included by its path from make's working directory DIR (default TOP),
# the path written as kbuild writes it there: absolute (6.1 to 6.12) or
# relative (./Kbuild, M= as the working directory, from 6.13).
kbuild_modules() {
	local top=$1 dir=${2:-$1} file=$1/Kbuild
	[ "$dir" != "$top" ] || file=./Kbuild
	# shellcheck disable=SC2016 # make's $(...)
	printf 'include %s\n$(info $(obj-m))\nall: ;\n' "$file" >"$T/kbuild.mk"
	make -s -C "$dir" -f "$T/kbuild.mk" srctree=/nonexistent
}

# The top Kbuild lists no module: it builds every folder holding a
# declaration of a module, the folders suite_kmods lists, in the same order.
@test "check: the top Kbuild builds the folders suite_kmods lists, named nowhere" {
	run ! grep -E '^obj-m.*(ipistorm|idle_reentry|nohz_csd)' "$S/../Kbuild"
	run kbuild_modules "$S/.."
	[ "$output" = "$(suite_kmods "$S/.." | sed 's|$|/|' | tr '\n' ' ' | sed 's/ $//')" ]
	run kbuild_modules "$T/t"
	[ "$output" = "idle_reentry/ ipistorm/ nohz_csd/" ]
	mkdir "$T/t/a_new" "$T/t/common"
	sed 's/^name=.*/name=a_new/' "$S/../ipistorm/bench.conf" >"$T/t/a_new/bench.conf"
	for dir in "$T/t" "$T" /; do
		run kbuild_modules "$T/t" "$dir"
		[ "$output" = "a_new/ idle_reentry/ ipistorm/ nohz_csd/" ] || { echo "from $dir: $output"; false; }
	done
	[ "$(suite_benches "$T/t" | sed 's|$|/|' | tr '\n' ' ')" = "a_new/ idle_reentry/ ipistorm/ nohz_csd/ " ]
}
