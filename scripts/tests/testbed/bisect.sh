#!/bin/bash
# tests/testbed/bisect.sh: scripts/bisect.sh on a synthetic kernel tree, with real boots
# under instruction counting. Its 16 commits select the test bed's Debian
# 6.1 kernel (commits 1-10) or 6.12 (11-16) through a build hook that
# prints the cached image and headers; commit 8 does not build. Every
# decision comes from storms measured in QEMU; a wrapper in PATH counts the
# boots. Prints TAP; exits 1 when a test failed. Needs the 6.1 and 6.12
# kernels fetched (vm/fetch-kernel.sh). About 9 boots.
set -euo pipefail
# shellcheck source=../../../vm/lib.sh
. "$(dirname "$0")/../../../vm/lib.sh"

# shellcheck disable=SC2034 # read by the usage helpers of scripts/lib.sh
USAGE="$PROG [-h]"
only_help "$@"
[ $# -eq 0 ] || usage_error "unexpected argument '$1'"

"$VM_DIR/fetch-kernel.sh" 6.1 >/dev/null
"$VM_DIR/fetch-kernel.sh" 6.12 >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The tree: file "kernel" names the matrix kernel, "broken" fails the build.
tree=$tmp/tree
git init -q "$tree"
for i in $(seq 1 16); do
	if [ "$i" -ge 11 ]; then echo 6.12; else echo 6.1; fi >"$tree/kernel"
	if [ "$i" = 8 ]; then : >"$tree/broken"; else rm -f "$tree/broken"; fi
	echo "$i" >"$tree/number"
	git -C "$tree" add -A
	git -C "$tree" -c user.name=test -c user.email=test@localhost \
		commit -q -m "commit $i"
done
c() { git -C "$tree" rev-parse "HEAD~$((16 - $1))"; }

# Every qemu run and every build is counted.
mkdir -p "$tmp/bin"
qemu=$(command -v qemu-system-x86_64)
# (bisect.sh's "qemu-system-x86_64 --version", for its ident, is no boot)
# shellcheck disable=SC2016 # expanded by the wrapper
printf '#!/bin/sh\n[ "$1" = --version ] || echo boot >>"%s"\nexec "%s" "$@"\n' "$tmp/boots" "$qemu" \
	>"$tmp/bin/qemu-system-x86_64"
chmod +x "$tmp/bin/qemu-system-x86_64"
export PATH="$tmp/bin:$PATH"
: >"$tmp/boots"
: >"$tmp/builds"
# shellcheck disable=SC2016 # expanded by the hook's shell
hook='echo "$BISECT_COMMIT" >>'"$tmp/builds"' && test ! -f broken &&
	sed -n "s/^vmlinuz=//p; s/^kdir=//p" "'"$CACHE"'/kernels/$(cat kernel)/kernel.env"'
state=$tmp/state
# 50000 calls a storm: a kernel's stray work (a few hundred us in one run of
# some boots, under instruction counting) is then 0.5 % of a run, and the
# ends stay apart by 10 times the noise; with 5000 (6 ms a storm) one such
# run made 6.1's two runs 3.2 % apart and the bisect rightly refused.
bisect() {
	"$TOP/scripts/bisect.sh" -d "$state" -H "$hook" -n 2 \
		-P "numipi=50000 single=1 offset=1 cpulist=0 wait=1" "$@"
}
boots() { wc -l <"$tmp/boots"; }

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
# nok NAME [FILE]: a failure, with FILE (the run's output) as comments.
nok() {
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n $1"
	[ $# = 1 ] || sed 's/^/# /' "$2"
}
# run NAME ARGS...: run bisect.sh, its exit in $rc, its output in $tmp/NAME.
run() {
	local name=$1
	shift
	rc=0
	bisect "$@" >"$tmp/$name" 2>&1 || rc=$?
}

bad_opt=0
"$TOP/scripts/bisect.sh" -Q "$tree" "$(c 1)" "$(c 16)" >/dev/null 2>&1 || bad_opt=$?
if "$TOP/scripts/bisect.sh" -h >/dev/null && [ "$bad_opt" = 2 ]; then
	ok "usage: -h exits 0, an unknown option 2"
else
	nok "usage: -h exits 0, an unknown option 2 (got $bad_opt)"
fi

# Ends that measure the same: refused, with the figures.
b0=$(boots)
run equal "$tree" "$(c 1)" "$(c 5)"
if [ "$rc" = 1 ] && grep -q "refusing to bisect: runtime_ns differs by" "$tmp/equal" &&
	grep -q "times the noise" "$tmp/equal" && [ "$(($(boots) - b0))" = 2 ]; then
	ok "equal ends (6.1 twice) are refused"
	sed -n 's/^bisect.sh: refusing/# refusing/p; s/^bisect.sh: \(.* times the noise\)/# \1/p' "$tmp/equal"
else
	nok "equal ends (6.1 twice) are refused (exit $rc)" "$tmp/equal"
fi

# Interrupted after three commits (commit 1 is measured already).
b1=$(boots)
run stopped -x 3 "$tree" "$(c 1)" "$(c 16)"
b2=$(boots)
if [ "$rc" = 3 ] && grep -q '^\[old\] .*(cached)$' "$tmp/stopped"; then
	ok "stopped after 3 commits built or measured (exit 3)"
else
	nok "stopped after 3 commits built or measured (exit $rc)" "$tmp/stopped"
fi
if ! git -C "$tree" bisect log >/dev/null 2>&1 &&
	[ "$(git -C "$tree" rev-parse HEAD)" = "$(c 16)" ]; then
	ok "the stopped run left no bisect in the tree"
else
	nok "the stopped run left no bisect in the tree"
fi

# Resumed: nothing measured before is built or booted again.
run resumed "$tree" "$(c 1)" "$(c 16)"
b3=$(boots)
first=$(sed -n 's/^first new commit: \([0-9a-f]*\) .*/\1/p' "$tmp/resumed")
if [ "$rc" = 0 ] && [ "$first" = "$(c 11)" ]; then
	ok "the resumed bisect names commit 11"
	sed -n '/^commit  *subject/,$s/^/# /p' "$tmp/resumed"
else
	nok "the resumed bisect names commit 11 (exit $rc, named ${first:-none})" "$tmp/resumed"
fi
steps=$(sed -n 's/^steps: \([0-9]*\) after the two ends.*/\1/p' "$tmp/resumed")
if [ -n "$steps" ] && [ "$steps" -le 5 ]; then
	ok "in at most 5 steps ($steps)"
else
	nok "in at most 5 steps (${steps:-none})" "$tmp/resumed"
fi
if grep -q "^$(c 8 | cut -c1-12)  commit 8 .*build-failed  *skip\$" "$tmp/resumed" &&
	[ "$(cat "$state/steps/$(c 8)/status")" = build-failed ] &&
	grep -qx "git bisect skip $(c 8)" "$state/bisect.log"; then
	ok "the commit that does not build is skipped"
else
	nok "the commit that does not build is skipped" "$tmp/resumed"
fi
builds=$(wc -l <"$tmp/builds")
built=$(sort -u "$tmp/builds" | wc -l)
if [ "$builds" = "$built" ]; then
	ok "every commit was built once ($builds builds)"
else
	nok "every commit was built once ($builds builds of $built commits)" "$tmp/builds"
fi
# NEW is booted twice (the noise between boots), every other commit once
# unless it lay between the ends (steps/COMMIT/again).
measured=$(grep -l '^ok$' "$state"/steps/*/status | wc -l)
again=$(cat "$state"/steps/*/again/status 2>/dev/null | grep -c '^ok$' || true)
if [ "$((b3 - b0))" = "$((measured + again))" ] && [ -f "$state/steps/$(c 16)/again/status" ]; then
	ok "every boot is a measurement kept in the state ($measured commits, $again second boots)"
else
	nok "every boot is a measurement kept in the state ($((b3 - b0)) boots, $measured commits and $again second boots measured)" "$tmp/resumed"
fi
cached=$(grep -c '(cached)$' "$tmp/resumed" || true)
if [ "$((b2 - b1))" -ge 2 ] && [ "$cached" -ge 4 ]; then
	ok "the resumed run reused what the stopped one measured ($((b2 - b1)) boots then, $((b3 - b2)) now, $cached commits cached)"
else
	nok "the resumed run reused what the stopped one measured ($((b2 - b1)) boots then, $((b3 - b2)) now, $cached commits cached)" "$tmp/resumed"
fi
wrong=$(awk '$2 == "commit" && (($3 >= 11 && / old/) || ($3 < 11 && / new/))' "$tmp/resumed")
if [ -z "$wrong" ]; then
	ok "every 6.1 commit was called old, every 6.12 one new"
else
	nok "every 6.1 commit was called old, every 6.12 one new" "$tmp/resumed"
fi

echo "1..$n"
[ "$failed" = 0 ]
