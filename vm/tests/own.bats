#!/usr/bin/env bats
# vm/lib.sh's helpers of the kernels of one's own (prefix-kernels.sh,
# enforcing-kernel.sh, placement-kernels.sh), on a made-up source tree:
# every build starts from the source as Debian ships it, whatever change
# an earlier build, or one stopped half-way, left in. No kernel; seconds.

setup() {
	T=$BATS_TEST_TMPDIR
	src=$T/src
	mkdir -p "$src/kernel/sched"
	printf 'a\nb\nc\n' >"$src/kernel/sched/core.c"
	printf 'x\ny\n' >"$src/kernel/sched/fair.c"
}

# own CODE: CODE in bash with vm/lib.sh sourced and src, core set.
own() {
	bash -c ". '$BATS_TEST_DIRNAME/../lib.sh'; src='$src' core='$src/kernel/sched/core.c'; $1"
}

@test "own: own_core changes the source's core.c, again from the source each time, and refuses a change that does nothing" {
	run own "own_pristine kernel/sched/core.c; own_core one 's/^b\$/B/' 2>/dev/null; own_core two 's/^c\$/C/' 2>/dev/null; cat \"\$core\""
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'a\nb\nC')" ]
	run own "own_core three 's/^z\$/Z/'"
	[ "$status" -ne 0 ]
	[[ $output == *"three: the change did not apply"* ]]
}

@test "own: own_patch starts from the source, whatever an earlier patch left in, and own_unpatch restores it" {
	cat >"$T/p1" <<-'EOF'
	--- a/kernel/sched/fair.c
	+++ b/kernel/sched/fair.c
	@@ -1,2 +1,2 @@
	-x
	+X
	 y
	EOF
	run own "own_patch '$T/p1' 2>/dev/null && own_patch '$T/p1' 2>/dev/null && cat '$src/kernel/sched/fair.c'"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'X\ny')" ]
	# a half-applied state and a reject file left by a stopped run
	printf 'x\nyy\n' >"$src/kernel/sched/fair.c"
	: >"$src/kernel/sched/fair.c.rej"
	run own "own_unpatch '$T/p1'; cat '$src/kernel/sched/fair.c'"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'x\ny')" ]
	[ ! -e "$src/kernel/sched/fair.c.rej" ]
	# the source's copy is the first one kept, never a changed file
	[ "$(cat "$src/kernel/sched/fair.c.orig")" = "$(printf 'x\ny')" ]
}

@test "own: own_pristine refuses a file the source does not have" {
	run own "own_pristine kernel/sched/none.c"
	[ "$status" -ne 0 ]
	[[ $output == *"no kernel/sched/none.c in"* ]]
}
