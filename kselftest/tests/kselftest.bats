#!/usr/bin/env bats
# The kselftest wrapper's exit codes, on fake suite trees.

setup() {
	K=$BATS_TEST_DIRNAME/../ipistorm.sh
	T=$BATS_TEST_TMPDIR
	mkdir -p "$T/suite/scripts" "$T/bin"
	top=$BATS_TEST_DIRNAME/../..
	cp "$top/Kbuild" "$T/suite/"
	cp "$top/scripts/lib.sh" "$T/suite/scripts/"
	# shellcheck source=../../scripts/lib.sh
	. "$top/scripts/lib.sh"
	# each module folder with its declaration, which makes it one
	for m in $(suite_benches "$top"); do
		mkdir -p "$T/suite/$m"
		cp "$top/$m/bench.conf" "$T/suite/$m/"
		: >"$T/suite/$m/$m.ko"
	done
	# modinfo and id answer as on a root shell of the running kernel.
	printf '#!/bin/sh\necho "%s SMP mod_unload"\n' "$(uname -r)" >"$T/bin/modinfo"
	printf '#!/bin/sh\necho 0\n' >"$T/bin/id"
	chmod +x "$T/bin/modinfo" "$T/bin/id"
	export PATH="$T/bin:$PATH" IPISTORM_DIR=$T/suite
}

selftest() {
	printf '#!/bin/sh\necho "KTAP version 1"\nexit %s\n' "$1" >"$T/suite/scripts/selftest.sh"
	chmod +x "$T/suite/scripts/selftest.sh"
}

@test "kselftest: passes selftest.sh's pass, fail and skip through" {
	for rc in 0 1 4; do
		selftest "$rc"
		run "$K"
		[ "$status" -eq "$rc" ]
		[ "${lines[0]}" = "KTAP version 1" ]
	done
}

@test "kselftest: skips (4) when a module is missing or built for another kernel" {
	selftest 0
	rm "$T/suite/nohz_csd/nohz_csd.ko"
	run "$K"
	[ "$status" -eq 4 ]
	[[ $output == *"nohz_csd.ko is not built"* ]]
	: >"$T/suite/nohz_csd/nohz_csd.ko"
	printf '#!/bin/sh\necho "0.0.0-other SMP"\n' >"$T/bin/modinfo"
	run "$K"
	[ "$status" -eq 4 ]
	[[ $output == *"built for 0.0.0-other"* ]]
}

@test "kselftest: skips (4) without root" {
	selftest 0
	printf '#!/bin/sh\necho 1000\n' >"$T/bin/id"
	run "$K"
	[ "$status" -eq 4 ]
	[[ $output == *"needs root"* ]]
}
