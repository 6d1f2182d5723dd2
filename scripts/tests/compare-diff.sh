#!/bin/bash
# compare-diff.sh: the differential test of compare.sh's statistics
# against R and MMTests' Stat.pm (docs/compare.md, "Differential testing").
#
#   compare-diff.sh [-b] SEED COUNT [DIR]
#
# Makes COUNT cases of seeds SEED..SEED+COUNT-1 (compare-diff.R gen), runs
# compare.sh -f csv on each (and -f json on a quarter of them, checked by
# python3 -m json.tool), MMTests' figures of the -m mmtests cases
# (compare-diff-mmtests.pl, with the snapshot of MMTESTS_SNAPSHOT, default
# ../shared/third_party/mmtests beside the repository; those checks are
# left out without it) and judges them (compare-diff.R check): exit 1 on
# any failure, each printed with its seed. One case again:
# compare-diff.sh SEED 1. -b: busybox's sh and awk run compare.sh. DIR
# (default a temporary one, removed) keeps the cases.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
busybox=0
if [ "${1:-}" = -b ]; then
	busybox=1
	shift
fi
[ $# -ge 2 ] || { echo "usage: $0 [-b] SEED COUNT [DIR]" >&2; exit 2; }
seed=$1 count=$2
if [ $# -ge 3 ]; then
	dir=$3
	mkdir -p "$dir"
else
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
fi
snap=${MMTESTS_SNAPSHOT:-$top/../shared/third_party/mmtests}

Rscript "$here/compare-diff.R" gen "$seed" "$count" "$dir"

if [ "$busybox" = 1 ]; then
	mkdir -p "$dir/bin"
	for t in sh awk; do ln -sf "$(command -v busybox)" "$dir/bin/$t"; done
	PATH=$dir/bin:$PATH
fi
for c in "$dir"/[0-9]*; do
	read -r rule alpha _ json <"$c/args"
	rc=0
	timeout 60 sh "$top/scripts/compare.sh" -f csv -m "$rule" -a "$alpha" "$c/base" "$c/new" \
		>"$c/out.csv" 2>"$c/err" || rc=$?
	echo "$rc" >"$c/rc"
	if [ "$json" = 1 ] && [ "$rc" != 124 ] && [ "$rc" != 2 ]; then
		rc=0
		timeout 60 sh "$top/scripts/compare.sh" -f json -m "$rule" -a "$alpha" "$c/base" "$c/new" 2>/dev/null |
			python3 -m json.tool >/dev/null 2>"$c/json.err" || rc=$?
		echo "$rc" >"$c/json.rc"
	fi
done
if [ -d "$snap/bin/lib/MMTests" ]; then
	perl "$here/compare-diff-mmtests.pl" "$snap" "$dir"
else
	echo "compare-diff.sh: no MMTests snapshot at $snap: -m mmtests not compared with it" >&2
fi
rc=0
Rscript "$here/compare-diff.R" check "$dir" || rc=$?
[ "$rc" -eq 0 ] || echo "again: scripts/tests/compare-diff.sh$([ "$busybox" = 1 ] && echo ' -b') SEED 1 (the seed of a failure above)"
exit "$rc"
