#!/usr/bin/env bats
# The MMTests integration: install.sh into a copy of the MMTests snapshot
# (MMTESTS_SNAPSHOT, default /work/shared/third_party/mmtests; skipped when
# absent) and the parse-results of each shellpack on the suite's fixture
# results.

bats_require_minimum_version 1.5.0

setup() {
	M=$BATS_TEST_DIRNAME/..
	F=$BATS_TEST_DIRNAME/../../scripts/tests/fixtures
	T=$BATS_TEST_TMPDIR
	SNAP=${MMTESTS_SNAPSHOT:-/work/shared/third_party/mmtests}
}

need_snapshot() {
	[ -f "$SNAP/run-mmtests.sh" ] || skip "no MMTests snapshot at $SNAP (set MMTESTS_SNAPSHOT)"
	cp -a "$SNAP" "$T/mm"
}

# tree DIR: every path with its type, mode and content hash.
tree() {
	(cd "$1" && find . -printf '%p %y %m %l\n' | LC_ALL=C sort &&
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}

# logdir BENCH FIXTURE: a shellpack logs directory holding FIXTURE as run/.
logdir() {
	mkdir -p "$T/$2"
	ln -sfn "$F/$2" "$T/$2/run"
	echo "$T/$2"
}

@test "install.sh: -h is usage, an unknown option exit 2" {
	run "$M/install.sh" -h
	[ "$status" -eq 0 ]
	[[ $output == *"install.sh [-s SUITE] MMTESTS_DIR"* ]]
	run "$M/install.sh" -z "$T"
	[ "$status" -eq 2 ]
	run "$M/install.sh"
	[ "$status" -eq 2 ]
}

@test "install.sh: refuses a directory that is not MMTests" {
	run "$M/install.sh" "$T"
	[ "$status" -eq 1 ]
	[[ $output == *"not an MMTests checkout"* ]]
}

@test "install.sh: install twice, uninstall: the checkout is byte-identical" {
	need_snapshot
	tree "$T/mm" >"$T/before"
	"$M/install.sh" "$T/mm"
	tree "$T/mm" >"$T/once"
	"$M/install.sh" "$T/mm"
	tree "$T/mm" >"$T/twice"
	cmp "$T/once" "$T/twice"
	[ -x "$T/mm/shellpack_src/src/ipistorm/ipistorm-bench" ]
	[ -f "$T/mm/drivers/driver-idle_reentry.sh" ]
	grep -qx "export IPISTORM_SOURCE=\${IPISTORM_SOURCE:-$(cd "$M/.." && pwd)}" \
		"$T/mm/configs/config-ipistorm-cross-socket"
	# run-mmtests.sh generates the shellpacks; uninstall removes them too.
	"$T/mm/shellpack_src/src/refresh.sh" ipistorm
	"$T/mm/shellpack_src/src/refresh.sh" idle_reentry
	[ -x "$T/mm/shellpacks/shellpack-bench-ipistorm" ]
	"$M/install.sh" -u "$T/mm"
	tree "$T/mm" >"$T/after"
	diff "$T/before" "$T/after"
	run "$M/install.sh" -u "$T/mm"
	[ "$status" -eq 1 ]
}

@test "install.sh: refuses to overwrite a file of the checkout's own" {
	need_snapshot
	echo mine >"$T/mm/drivers/driver-ipistorm.sh"
	run "$M/install.sh" "$T/mm"
	[ "$status" -eq 1 ]
	[[ $output == *"was not installed here"* ]]
	[ "$(cat "$T/mm/drivers/driver-ipistorm.sh")" = mine ]
	[ ! -e "$T/mm/.ipistorm-files" ]
}

@test "parse-results: ipistorm's time metrics, one line per iteration" {
	d=$(logdir ipistorm ipistorm-6.12)
	run "$M/shellpack_src/src/ipistorm/parse-results" "$d"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 20 ]
	want=$(sed -n 's/^runtime_ns=//p' "$F/ipistorm-6.12/iter-003.txt")
	[ "${lines[8]}" = "$(printf 'runtime\t_\t_\t3\t%s\t_' "$want")" ]
	run "$M/shellpack_src/src/ipistorm/parse-results-delivery" "$d"
	[ "$status" -eq 0 ]
	[[ ${lines[1]} == "$(printf 'poll_pct\t_\t_\t1\t')"* ]]
}

@test "parse-results: idle_reentry's slow path and fast path, nohz_csd's kicks" {
	run "$M/shellpack_src/src/idle_reentry/parse-results" "$(logdir idle_reentry idle_reentry-6.1)"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 30 ]
	[ "${lines[0]}" = "$(printf 'pick_fair_pct\t_\t_\t1\t100.0\t_')" ]
	run "$M/shellpack_src/src/idle_reentry/parse-results-fastpath" "$(logdir idle_reentry idle_reentry-6.12)"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 5 ]
	[ "${lines[4]}" = "$(printf 'fast_pct\t_\t_\t5\t100.0\t_')" ]
	run "$M/shellpack_src/src/nohz_csd/parse-results" "$(logdir nohz_csd nohz_csd-6.12)"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 10 ]
	run "$M/shellpack_src/src/nohz_csd/parse-results-balanced" "$(logdir nohz_csd nohz_csd-6.12)"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 5 ]
}

@test "parse-results: a result without the metric fails, naming it" {
	run "$M/shellpack_src/src/idle_reentry/parse-results-fastpath" "$(logdir ipistorm ipistorm-6.1)"
	[ "$status" -eq 1 ]
	[[ $output == *"no number for total.fast_pct"* ]]
	run "$M/shellpack_src/src/ipistorm/parse-results" "$T"
	[ "$status" -eq 1 ]
	[[ $output == *"no run.sh result"* ]]
}
