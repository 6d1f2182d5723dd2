# shellcheck shell=sh
# Tests of ipistorm.ko, sourced by scripts/selftest.sh.

test_ipistorm_speed() {
	for w in 1 0; do
		load ipistorm numipi=20000 single=1 cpulist=0 offset=1 wait=$w
		cat "$TMP/ipistorm" | grep -v hist_ns
		unload ipistorm
	done
}
