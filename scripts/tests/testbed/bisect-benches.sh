#!/bin/bash
# tests/testbed/bisect-benches.sh [BENCH...]: scripts/bisect.sh -b BENCH on real boots,
# each over a synthetic 16-commit tree whose commits select a test bed
# kernel through a build hook (commits 1-10 the old kernel, 11-16 the new
# one); the bisect must name commit 11. BENCH (default both):
#   idle_reentry  a removal of SM_IDLE: Debian 6.12 (SM_IDLE), then 6.1
#                 (none); metric total.fast_pct
#   nohz_csd      a pre-fix nohz_csd_func(): Debian 6.12, then
#                 6.12-needresched (vm/prefix-kernels.sh builds it; skipped
#                 when it is not registered); the polling aid is loaded by
#                 bisect.sh's default; metric total.dropped/total.kicks
# Prints TAP with each bisect's output as comments, and its wall time.
# Real-time TCG, about 7 boots a bench: 10 to 30 minutes on a shared
# 2-core host, so not part of vm/test.sh.
set -euo pipefail
# shellcheck source=../../../vm/lib.sh
. "$(dirname "$0")/../../../vm/lib.sh"

# shellcheck disable=SC2034 # read by the usage helpers of scripts/lib.sh
USAGE="$PROG [-h] [idle_reentry|nohz_csd...]"
only_help "$@"
benches=${*:-idle_reentry nohz_csd}
for b in $benches; do
	case $b in idle_reentry | nohz_csd) ;; *) usage_error "unknown bench '$b'" ;; esac
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

# tree DIR OLD NEW: commits 1-10 select kernel OLD, 11-16 NEW.
tree() {
	git init -q "$1"
	for i in $(seq 1 16); do
		if [ "$i" -ge 11 ]; then echo "$3"; else echo "$2"; fi >"$1/kernel"
		echo "$i" >"$1/number"
		git -C "$1" add -A
		git -C "$1" -c user.name=test -c user.email=test@localhost \
			commit -q -m "commit $i: $(cat "$1/kernel")"
	done
}

for b in $benches; do
	case $b in
	idle_reentry) old=6.12 new=6.1 ;;
	nohz_csd) old=6.12 new=6.12-needresched ;;
	esac
	for k in $old $new; do
		if [ -f "$(kernel_dir "$k")/kernel.env" ]; then
			continue
		elif [ "$(matrix_field "$k" 1 2>/dev/null)" = "$k" ]; then
			"$VM_DIR/fetch-kernel.sh" "$k" >/dev/null
		fi
	done
	n=$((n + 1))
	if [ ! -f "$(kernel_dir "$new")/kernel.env" ]; then
		echo "ok $n $b # SKIP kernel $new not registered (vm/prefix-kernels.sh)"
		continue
	fi
	t=$tmp/$b
	tree "$t/tree" "$old" "$new"
	# shellcheck disable=SC2016 # expanded by the hook's shell
	hook='sed -n "s/^vmlinuz=//p; s/^kdir=//p" "'"$CACHE"'/kernels/$(cat kernel)/kernel.env"'
	t0=$(date +%s)
	rc=0
	"$TOP/scripts/bisect.sh" -b "$b" -d "$t/state" -B "$t/kbuild" -H "$hook" \
		"$t/tree" "$(git -C "$t/tree" rev-parse HEAD~15)" "$(git -C "$t/tree" rev-parse HEAD)" \
		>"$t/out" 2>&1 || rc=$?
	wall=$(($(date +%s) - t0))
	first=$(sed -n 's/^first new commit: [0-9a-f]* \(commit [0-9]*\):.*/\1/p' "$t/out")
	if [ "$rc" = 0 ] && [ "$first" = "commit 11" ]; then
		echo "ok $n $b: $old to $new bisected to commit 11 in $wall s"
	else
		echo "not ok $n $b: $old to $new: exit $rc, named ${first:-nothing}, $wall s"
		failed=$((failed + 1))
	fi
	sed 's/^/# /' "$t/out"
done
echo "1..$n"
[ "$failed" = 0 ]
