#!/bin/sh
# install.sh: install the suite's MMTests integration into an MMTests
# checkout, or remove it again (POSIX sh).
#
#   install.sh [-s SUITE] MMTESTS_DIR      install (again: idempotent)
#   install.sh -u MMTESTS_DIR              uninstall
#     -s SUITE  the suite's source tree the configs build from at run time
#               (IPISTORM_SOURCE; default: the tree holding this script)
#
# Installs, for each benchmark whose declaration (<module>/bench.conf,
# docs/bench.md) names it mmtests=NAME (ipistorm, idle_reentry, nohz_csd),
# the shellpack sources shellpack_src/src/NAME/ and drivers/driver-NAME.sh,
# and configs/config-ipistorm-*, and lists them in
# MMTESTS_DIR/.ipistorm-files; a shellpack or driver here that no
# declaration names, or a name without them, is refused.
# Uninstalling removes exactly those files, the shellpacks run-mmtests.sh
# generated from them (shellpacks/shellpack-{bench,install}-NAME), the
# directories install made and the list, which leaves the checkout as it
# was (results under work/ are kept). A file of the checkout's own that
# install would overwrite is refused. Exit: 0 done, 1 refused or failed,
# 2 usage.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../scripts/lib.sh
. "$HERE/../scripts/lib.sh"
USAGE="$PROG [-s SUITE] MMTESTS_DIR | $PROG -u MMTESTS_DIR"
install_args "$(cd "$HERE/.." && pwd)" "$@"

# The benchmarks' MMTests names, from their declarations; each has its
# shellpack and driver here, and nothing else has.
TESTS=""
for m in $(suite_modules "$HERE/.."); do
	bench_check "$HERE/.." "$m" || die "$m/bench.conf, $m's declaration, is broken"
	t=$(bench_get "$HERE/.." "$m" mmtests)
	[ -n "$t" ] || continue
	{ [ -d "$HERE/shellpack_src/src/$t" ] && [ -f "$HERE/drivers/driver-$t.sh" ]; } ||
		die "$m/bench.conf declares mmtests=$t, but there is no mmtests/shellpack_src/src/$t/ and mmtests/drivers/driver-$t.sh"
	TESTS="$TESTS${TESTS:+ }$t"
done
for f in "$HERE"/shellpack_src/src/* "$HERE"/drivers/driver-*.sh; do
	t=${f##*/}
	t=${t#driver-}
	t=${t%.sh}
	case " $TESTS " in
	*" $t "*) ;;
	*) die "mmtests/${f#"$HERE"/} is no declared benchmark's (no <module>/bench.conf with mmtests=$t)" ;;
	esac
done
{ [ -f "$dest/run-mmtests.sh" ] && [ -d "$dest/shellpack_src/src" ] && [ -d "$dest/drivers" ]; } ||
	die "$dest is not an MMTests checkout (no run-mmtests.sh, shellpack_src/src, drivers)"
list=$dest/.ipistorm-files

# ours: the integration's files, relative paths.
ours() { (cd "$HERE" && find shellpack_src drivers configs -type f | LC_ALL=C sort); }

# remove: delete the listed files and generated shellpacks, then the
# directories install created, when empty.
remove() {
	[ -f "$list" ] || return 0
	while read -r f; do
		[ -n "$f" ] && rm -f "$dest/$f"
	done <"$list"
	for t in $TESTS; do
		rm -f "$dest/shellpacks/shellpack-bench-$t" "$dest/shellpacks/shellpack-install-$t"
		[ ! -d "$dest/shellpack_src/src/$t" ] || rmdir "$dest/shellpack_src/src/$t" 2>/dev/null ||
			echo "install.sh: kept $dest/shellpack_src/src/$t: it holds files not installed here" >&2
	done
	rm -f "$list"
}

install_prepare "$list" ""
for t in $TESTS; do
	if [ -d "$dest/shellpack_src/src/$t" ] && [ ! -f "$list" ]; then
		die "$dest/shellpack_src/src/$t exists and was not installed here"
	fi
done
esc=$(printf '%s\n' "$suite" | sed 's/[\\|&]/\\&/g')
ours >"$list.new"
for f in $(ours); do
	mkdir -p "$dest/$(dirname "$f")"
	case $f in
	configs/*) sed "s|@IPISTORM_SOURCE@|$esc|g" "$HERE/$f" >"$dest/$f" ;;
	*) cp "$HERE/$f" "$dest/$f" ;;
	esac
	if [ -x "$HERE/$f" ]; then chmod 755 "$dest/$f"; else chmod 644 "$dest/$f"; fi
done
mv "$list.new" "$list"
echo "install.sh: installed $(and_list "$TESTS") into $dest (suite: $suite)"
