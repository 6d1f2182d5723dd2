#!/bin/sh
# make-fixtures.sh [DIR]: lkp's parse fixtures of the three programs,
# spec/fixtures/stats/BENCH/qemu-KVER (the record run prints: the
# command and each measured iteration of the suite's real test-bed
# results scripts/tests/fixtures/BENCH-KVER) and qemu-KVER.yaml (what
# programs/BENCH/parse prints for it, the expectation lkp's
# spec/unit/lib/stats_spec.rb checks). Run after a change of the record or
# of parse; tests/lkp.bats checks the fixtures are current, written into
# DIR instead of spec/fixtures/stats. (POSIX sh)
set -eu
HERE=$(cd "$(dirname "$0")/.." && pwd)
F=$HERE/../scripts/tests/fixtures
case ${1:-} in
-h) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' && exit 0 ;;
-*) echo "usage: $0 [DIR]" >&2 && exit 2 ;;
esac
[ $# -le 1 ] || { echo "usage: $0 [DIR]" >&2 && exit 2; }
OUT=${1:-$HERE/spec/fixtures/stats}

# record DIR: what ipistorm_run prints for the result directory DIR.
record() {
	bench=$(sed -n 's/^bench=//p' "$1/meta.txt")
	echo "sh /tmp/lkp/ipistorm-$(sed -n 's/^kernel=//p' "$1/meta.txt")/scripts/run.sh -o /tmp/lkp/ipistorm-run.1 $bench $(sed -n 's/^params=//p' "$1/meta.txt")"
	for f in "$1"/iter-*.txt; do
		echo "==> ${f##*/} <=="
		cat "$f"
	done
}

for bench in ipistorm idle_reentry nohz_csd; do
	mkdir -p "$OUT/$bench"
	for k in 6.1 6.12; do
		out=$OUT/$bench/qemu-$k
		record "$F/$bench-$k" >"$out"
		LKP_SRC=$HERE "$HERE/programs/$bench/parse" <"$out" >"$out.yaml"
	done
done
