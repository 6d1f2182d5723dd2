#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# check.sh -d: the benchmarks' declarations and dkms.conf against them, on
# a copy of the tree.

setup() {
	S=$BATS_TEST_DIRNAME/..
	T=$BATS_TEST_TMPDIR
	# shellcheck source=../lib.sh
	. "$S/lib.sh"
	mkdir -p "$T/t/scripts"
	cp "$S"/*.sh "$S"/*.awk "$T/t/scripts/"
	cp "$S/../Kbuild" "$S/../dkms.conf" "$T/t/"
	for m in $(suite_modules "$S/.."); do
		mkdir -p "$T/t/$m"
		cp "$S/../$m/bench.conf" "$T/t/$m/"
	done
}

@test "check: the tree's declarations and dkms.conf agree" {
	run "$S/check.sh" -d
	[ "$status" -eq 0 ]
	[[ $output == *"check: clean (declarations only)"* ]]
	run "$T/t/scripts/check.sh" -d
	[ "$status" -eq 0 ]
}

@test "check: dkms.conf drifting from the declarations fails" {
	# a module left out, another's folder wrong
	sed -i '/^BUILT_MODULE_NAME\[2\]/d; s|^BUILT_MODULE_LOCATION\[1\]=.*|BUILT_MODULE_LOCATION[1]="idle/"|' "$T/t/dkms.conf"
	run "$T/t/scripts/check.sh" -d
	[ "$status" -eq 1 ]
	[[ $output == *'-BUILT_MODULE_LOCATION[1]="idle_reentry/"'* ]]
	[[ $output == *'+BUILT_MODULE_LOCATION[1]="idle/"'* ]]
	[[ $output == *'-BUILT_MODULE_NAME[2]="nohz_csd"'* ]]
	[[ $output == *"dkms.conf differs from the declarations"* ]]
	[[ $output == *"check: FAILED"* ]]
	# a module of Kbuild that dkms.conf does not install
	cp "$S/../dkms.conf" "$T/t/"
	mkdir "$T/t/newbench"
	echo 'obj-m += newbench/' >>"$T/t/Kbuild"
	sed 's/^name=.*/name=newbench/; s/^dkms=.*/dkms=newbench/' "$S/../ipistorm/bench.conf" >"$T/t/newbench/bench.conf"
	run "$T/t/scripts/check.sh" -d
	[ "$status" -eq 1 ]
	[[ $output == *'-BUILT_MODULE_NAME[3]="newbench"'* ]]
}

@test "check: a missing or wrong declaration fails, naming the defect" {
	sed -i 's/^name=.*/name=other/; s/^metrics=runtime_ns:lower:ns/metrics=runtime_ns:faster:ns/' "$T/t/ipistorm/bench.conf"
	rm "$T/t/nohz_csd/bench.conf"
	run "$T/t/scripts/check.sh" -d
	[ "$status" -eq 1 ]
	[[ $output == *"ipistorm/bench.conf: line "*": name is 'other', not its folder's 'ipistorm'"* ]]
	[[ $output == *"ipistorm/bench.conf: line "*": metric 'runtime_ns:faster:ns' is not KEY:lower|higher|none:ns|pct|count|per_sec"* ]]
	[[ $output == *"nohz_csd/bench.conf: no such file"* ]]
	[[ $output == *"check: FAILED"* ]]
}

# ipistorm-bench/2 requires instrument=; a /1 declaration, which has none,
# is still read (instrument empty); /1 with it, /2 without it, or a key
# that is not a result key are refused.
@test "check: instrument= is required by ipistorm-bench/2, unknown to /1" {
	d=$T/t/idle_reentry/bench.conf
	grep -qx 'instrument=total.hook_hits_per_reentry total.hook_cost_ns' "$d"
	[ -z "$(bench_get "$S/.." ipistorm instrument)" ]
	[ "$(bench_get "$S/.." nohz_csd instrument)" = total.probe_cost_ppm ]
	sed -i 's|^format=.*|format=ipistorm-bench/1|; /^instrument=/d' "$d"
	run "$T/t/scripts/check.sh" -d
	[ "$status" -eq 0 ]
	run bench_get "$T/t" idle_reentry instrument
	[ -z "$output" ]
	echo instrument= >>"$d"
	run bench_check "$T/t" idle_reentry
	[ "$status" -eq 1 ]
	[[ $output == *"idle_reentry/bench.conf: line "*": instrument= is a key of ipistorm-bench/2, not of ipistorm-bench/1" ]]
	sed -i 's|^format=.*|format=ipistorm-bench/2|; /^instrument=/d' "$d"
	run bench_check "$T/t" idle_reentry
	[ "$status" -eq 1 ]
	[[ $output == *": $d: no instrument= line" ]]
	echo 'instrument=total.hook_cost_ns 3x' >>"$d"
	run bench_check "$T/t" idle_reentry
	[ "$status" -eq 1 ]
	[[ $output == *"instrument key '3x' is not a result key" ]]
	sed -i 's|^format=.*|format=ipistorm-bench/3|; s|^instrument=.*|instrument=|' "$d"
	run bench_check "$T/t" idle_reentry
	[ "$status" -eq 1 ]
	[[ $output == *"format is 'ipistorm-bench/3', want ipistorm-bench/2 (or /1)" ]]
}

@test "check: -h is usage, an unknown option exit 2" {
	run "$S/check.sh" -h
	[ "$status" -eq 0 ]
	[[ $output == *"check.sh [-d]"* ]]
	run "$S/check.sh" -z
	[ "$status" -eq 2 ]
}
