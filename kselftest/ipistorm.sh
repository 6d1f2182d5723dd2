#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kselftest wrapper: run the suite's tests from IPISTORM_DIR (default: the
# tree this folder belongs to) on the running kernel. Exit codes are
# kselftest's: 0 pass, 1 fail, 4 skip (not root, modules not built for the
# running kernel). Extra arguments go to selftest.sh (test name patterns).
set -eu

KSFT_SKIP=4
here=$(cd "$(dirname "$0")" && pwd)
dir=${IPISTORM_DIR:-$here/..}

skip() {
	echo "# SKIP: $*"
	exit "$KSFT_SKIP"
}

[ "$(id -u)" = 0 ] || skip "needs root"
[ -x "$dir/scripts/selftest.sh" ] || skip "no suite at $dir (set IPISTORM_DIR)"
# shellcheck source=../scripts/lib.sh
. "$dir/scripts/lib.sh"
for m in $(suite_kmods "$dir"); do
	ko=$dir/$m/$m.ko
	[ -f "$ko" ] || skip "$ko is not built (make -C $dir)"
	built=$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)
	[ "$built" = "$(uname -r)" ] ||
		skip "$ko is built for ${built:-an unknown kernel}, this is $(uname -r)"
done
rc=0
"$dir/scripts/selftest.sh" "$@" || rc=$?
exit "$rc"
