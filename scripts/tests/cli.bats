#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# Every entry point, found by listing (each executable .sh of scripts/ and
# vm/): -h prints its usage on stdout and exits 0, an unknown option exits
# 2; and make names the package to install when the kernel headers are
# missing.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
}

entry_points() {
	local f
	for f in "$TOP"/scripts/*.sh "$TOP"/vm/*.sh; do
		[ -x "$f" ] && echo "$f"
	done
}

@test "cli: at least one entry point each in scripts/ and vm/" {
	run entry_points
	[[ $output == *"/scripts/run.sh"* ]]
	[[ $output == *"/vm/boot.sh"* ]]
}

@test "cli: -h prints the usage on stdout and exits 0" {
	local f bad=""
	for f in $(entry_points); do
		run --separate-stderr "$f" -h
		if [ "$status" -ne 0 ] || [[ $output != usage:* ]]; then
			bad="$bad ${f#"$TOP"/}($status)"
		fi
	done
	[ -z "$bad" ] || { echo "wrong -h:$bad"; false; }
}

# shellcheck disable=SC2154 # run --separate-stderr sets stderr
@test "cli: an unknown option exits 2 with the usage on stderr" {
	local f bad=""
	for f in $(entry_points); do
		run --separate-stderr "$f" -Z
		if [ "$status" -ne 2 ] || [ -n "$output" ] || [[ $stderr != *usage:* ]]; then
			bad="$bad ${f#"$TOP"/}($status)"
		fi
	done
	[ -z "$bad" ] || { echo "wrong unknown option:$bad"; false; }
}

@test "cli: make without kernel headers says what to install and KDIR=" {
	run --separate-stderr make -C "$TOP" --no-print-directory KDIR="$BATS_TEST_TMPDIR/none" modules
	[ "$status" -ne 0 ]
	[[ $stderr == *"no kernel headers at $BATS_TEST_TMPDIR/none: install linux-headers-$(uname -r), or build against another tree with KDIR="* ]]
}

@test "cli: make help prints the targets" {
	run make -s -C "$TOP" --no-print-directory help
	[ "$status" -eq 0 ]
	[[ $output == *"make check"* ]]
}
