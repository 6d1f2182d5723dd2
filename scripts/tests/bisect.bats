#!/usr/bin/env bats
# scripts/bisect.sh's decisions with a fake measurement: a copy of the tree
# whose vm/run-in-vm.sh is fixtures/fake-run-in-vm.sh, over synthetic 16-commit
# trees whose commits carry the value runtime_ns measures at them; a build
# hook copies it into the build directory as the "kernel image". No boot;
# seconds per test.

bats_require_minimum_version 1.5.0

setup_file() {
	R=$BATS_FILE_TMPDIR/repo
	mkrepo "$R"
	export R
}

# mkrepo DIR: a copy of the suite whose run-in-vm.sh is the fake.
mkrepo() {
	local top=$BATS_TEST_DIRNAME/../..
	mkdir -p "$1"
	tar -C "$top" --exclude=./.git --exclude=./build -cf - . | tar -C "$1" -xf -
	cp "$top/scripts/tests/fixtures/fake-run-in-vm.sh" "$1/vm/run-in-vm.sh"
}

setup() {
	T=$BATS_TEST_TMPDIR
	FAKE=$T/fake
	mkdir -p "$FAKE/kdir" "$FAKE/bin" "$T/cache"
	: >"$FAKE/kdir/Makefile"
	: >"$FAKE/boots"
	: >"$FAKE/builds"
	# shellcheck disable=SC2016 # expanded by the fake qemu
	printf '#!/bin/sh\necho "QEMU emulator version $(cat "%s/qemu-version" 2>/dev/null || echo 7.2.0)"\n' \
		"$FAKE" >"$FAKE/bin/qemu-system-x86_64"
	chmod +x "$FAKE/bin/qemu-system-x86_64"
	export FAKE PATH="$FAKE/bin:$PATH" IPISTORM_CACHE=$T/cache IPISTORM_BUILD=$T/build
	# shellcheck disable=SC2016 # expanded by the hook's shell
	HOOK='echo "$BISECT_COMMIT" >>"$FAKE/builds" && test ! -f broken &&
		echo "$(cat value) $(cat number)" >"$BISECT_BUILD/image" &&
		echo "$BISECT_BUILD/image" && echo "$FAKE/kdir"'
}

# mktree DIR VALUE...: commit i of DIR has value VALUE_i; "broken" keeps
# the value before and fails the build.
mktree() {
	local d=$1 i=0 v
	shift
	git init -q "$d"
	for v in "$@"; do
		i=$((i + 1))
		rm -f "$d/broken"
		if [ "$v" = broken ]; then
			: >"$d/broken"
		else
			echo "$v" >"$d/value"
		fi
		echo "$i" >"$d/number"
		git -C "$d" add -A
		git -C "$d" -c user.name=test -c user.email=test@localhost commit -q -m "commit $i"
	done
}

# c TREE I: commit I of a 16-commit tree.
c() { git -C "$1" rev-parse "HEAD~$((16 - $2))"; }

# step_tree DIR: commits 1-10 at 1000000 ns, 11-16 at 1200000 ns.
step_tree() {
	mktree "$1" 1000000 1000000 1000000 1000000 1000000 1000000 1000000 \
		1000000 1000000 1000000 1200000 1200000 1200000 1200000 1200000 1200000
}

# gradual_tree DIR: +2 % a commit.
gradual_tree() {
	# shellcheck disable=SC2046 # one value a word
	mktree "$1" $(awk 'BEGIN { for (i = 0; i < 16; i++) printf "%d ", 1000000 * (1 + 0.02 * i) }')
}

# first_step TREE: the number of the commit git bisect measures first.
first_step() {
	git -C "$1" show "$(git -C "$1" rev-list --bisect "$(c "$1" 16)" "^$(c "$1" 1)"):number"
}

# bisect ARGS...: bisect.sh of the copy, state and build directory in $T.
bisect() {
	"$R/scripts/bisect.sh" -d "$T/state" -B "$T/kbuild" -H "$HOOK" "$@"
}

@test "a step change is named, exit 0" {
	step_tree "$T/tree"
	echo 0.0001 >"$FAKE/jitter"
	run bisect "$T/tree" "$(c "$T/tree" 1)" "$(c "$T/tree" 16)"
	echo "$output"
	[ "$status" = 0 ]
	[[ $output == *"first new commit: $(c "$T/tree" 11) commit 11"* ]]
}

@test "a commit that does not build at the change: no single first new commit, exit 1" {
	mktree "$T/tree" 1000000 1000000 1000000 1000000 1000000 1000000 1000000 \
		1000000 1000000 1000000 broken 1200000 1200000 1200000 1200000 1200000
	echo 0.0001 >"$FAKE/jitter"
	run bisect "$T/tree" "$(c "$T/tree" 1)" "$(c "$T/tree" 16)"
	echo "$output"
	[ "$status" = 1 ]
	[[ $output != *"first new commit:"* ]]
	[[ $output == *"no single first new commit"* ]]
	[[ $output == *"only 'skip'ped commits left"* ]]
}

@test "a step that cannot write its status ends the bisect: no verdict, no commit named" {
	step_tree "$T/tree"
	echo 0.0001 >"$FAKE/jitter"
	first_step "$T/tree" >"$FAKE/break-at"
	run bisect "$T/tree" "$(c "$T/tree" 1)" "$(c "$T/tree" 16)"
	echo "$output"
	[ "$status" != 0 ]
	[[ $output != *"first new commit:"* ]]
	[[ $output == *"error"* ]]
	run ! grep -q "^git bisect new $(c "$T/tree" "$(cat "$FAKE/break-at")")" "$T/state/bisect.log"
}

@test "a full file system for the state directory ends the bisect: no verdict" {
	[ "$(id -u)" = 0 ] || skip "mounting a small tmpfs needs root"
	mkdir "$T/small"
	mount -t tmpfs -o size=4m tmpfs "$T/small" || skip "cannot mount a tmpfs"
	step_tree "$T/tree"
	echo 0.0001 >"$FAKE/jitter"
	first_step "$T/tree" >"$FAKE/fill-at"
	rc=0
	"$R/scripts/bisect.sh" -d "$T/small/state" -B "$T/kbuild" -H "$HOOK" \
		"$T/tree" "$(c "$T/tree" 1)" "$(c "$T/tree" 16)" >"$T/out" 2>&1 || rc=$?
	cat "$T/out"
	umount "$T/small"
	[ "$rc" != 0 ]
	run ! grep -q "^first new commit:" "$T/out"
	grep -q "error" "$T/out"
}

@test "gradual change (+2 % a commit): not a single step, non-zero" {
	gradual_tree "$T/tree"
	echo 0.0001 >"$FAKE/jitter"
	run bisect "$T/tree" "$(c "$T/tree" 1)" "$(c "$T/tree" 16)"
	echo "$output"
	[ "$status" = 1 ]
	[[ $output != *"first new commit:"* ]]
	[[ $output == *"not a single step"* ]]
	[[ $output == *"commit  "*"subject"* ]]
}

@test "two-part change (40 % at commit 5, 60 % at 12): not a single step, non-zero" {
	mktree "$T/tree" 1000000 1000000 1000000 1000000 1080000 1080000 1080000 \
		1080000 1080000 1080000 1080000 1200000 1200000 1200000 1200000 1200000
	echo 0.0001 >"$FAKE/jitter"
	run bisect "$T/tree" "$(c "$T/tree" 1)" "$(c "$T/tree" 16)"
	echo "$output"
	[ "$status" = 1 ]
	[[ $output != *"first new commit:"* ]]
	[[ $output == *"not a single step"* ]]
	[[ $output == *"ambiguous (40.0 %, 40.0 % again)"* ]]
}

@test "an ambiguous step is measured again in a fresh boot" {
	gradual_tree "$T/tree"
	echo 0.0001 >"$FAKE/jitter"
	run bisect "$T/tree" "$(c "$T/tree" 1)" "$(c "$T/tree" 16)"
	n=$(first_step "$T/tree")
	[ "$(grep -c "^$n " "$FAKE/boots")" = 2 ]
}

@test "two bisects of one tree, or of one build directory: the second is refused" {
	step_tree "$T/tree"
	git clone -q "$T/tree" "$T/tree2"
	c1=$(c "$T/tree" 1) c16=$(c "$T/tree" 16)
	echo 0.0001 >"$FAKE/jitter"
	: >"$FAKE/block"
	bisect "$T/tree" "$c1" "$c16" >"$T/a.out" 2>&1 &
	a=$!
	for _ in $(seq 100); do [ -d "$FAKE/blocked" ] && break; sleep 0.1; done
	rc1=0 rc2=0
	timeout 60 "$R/scripts/bisect.sh" -d "$T/state2" -B "$T/kbuild2" -H "$HOOK" \
		"$T/tree" "$c1" "$c16" >"$T/b.out" 2>&1 || rc1=$?
	timeout 60 "$R/scripts/bisect.sh" -d "$T/state3" -B "$T/kbuild" -H "$HOOK" \
		"$T/tree2" "$c1" "$c16" >"$T/c.out" 2>&1 || rc2=$?
	rm -f "$FAKE/block"
	rca=0
	wait "$a" || rca=$?
	cat "$T/a.out" "$T/b.out" "$T/c.out"
	[ "$rca" = 0 ]
	grep -q "first new commit: $(c "$T/tree" 11) commit 11" "$T/a.out"
	[ "$rc1" = 1 ]
	grep -q "in use by another bisect" "$T/b.out"
	[ "$rc2" = 1 ]
	grep -q "in use by another bisect" "$T/c.out"
}

# interrupted SIGNAL-TO: bisect a step tree in the background, in a
# process group of its own, until the boot of its first step hangs; then
# send SIGINT to SIGNAL-TO ("boot": that boot only; "all": the group) and
# check the bisect failed and left that commit ($n) without a status.
interrupted() {
	local pid rc=0 commit
	step_tree "$T/tree"
	echo 0.0001 >"$FAKE/jitter"
	n=$(first_step "$T/tree")
	echo "$n" >"$FAKE/hang-at"
	# SIGINT at its default, whatever the test runs under: a shell ignores
	# it in what it starts in the background (the test bed's steps), and a
	# signal ignored on entry cannot be trapped.
	set -m
	env --default-signal=INT,TERM,HUP "$R/scripts/bisect.sh" -d "$T/state" -B "$T/kbuild" -H "$HOOK" \
		"$T/tree" "$(c "$T/tree" 1)" "$(c "$T/tree" 16)" >"$T/int.out" 2>&1 &
	pid=$!
	set +m
	for _ in $(seq 300); do [ -s "$FAKE/hanging" ] && break; sleep 0.1; done
	[ -s "$FAKE/hanging" ]
	case $1 in
	boot) kill -INT "$(cat "$FAKE/hanging")" ;;
	all) kill -INT -- -"$pid" ;;
	esac
	wait "$pid" || rc=$?
	cat "$T/int.out"
	[ "$rc" != 0 ]
	commit=$(git -C "$T/tree" log --format=%H --grep="^commit $n\$")
	[ ! -f "$T/state/steps/$commit/status" ]
	rm "$FAKE/hang-at"
}

@test "Ctrl-C during a boot leaves no status; the resumed bisect measures that commit" {
	# The interrupt reaches the guest first, whose boot then fails as an
	# ordinary one does, and the step only as it writes that failure
	# down: mv passes it on, once, right after moving a status.tmp that
	# says boot-failed into place.
	# shellcheck disable=SC2016 # expanded by the wrapper
	printf '%s\n' '#!/bin/sh' '/bin/mv "$@" || exit' \
		'case $1 in */status.tmp) ;; *) exit 0 ;; esac' \
		'[ "$(cat "$2")" = boot-failed ] && rm "$FAKE/interrupt-late" 2>/dev/null || exit 0' \
		'kill -INT "$PPID"' >"$FAKE/bin/mv"
	chmod +x "$FAKE/bin/mv"
	: >"$FAKE/interrupt-late"
	interrupted boot
	[ ! -f "$FAKE/interrupt-late" ]
	rm "$FAKE/bin/mv"
	run bisect "$T/tree" "$(c "$T/tree" 1)" "$(c "$T/tree" 16)"
	echo "$output"
	[ "$status" = 0 ]
	[[ $output == *"first new commit: $(c "$T/tree" 11) commit 11"* ]]
	grep -q "^$n " "$FAKE/boots"
}

@test "Ctrl-C to every process during a boot leaves no status either" {
	interrupted all
}

@test "a resume after a change of module source, kernel.config or QEMU is refused" {
	step_tree "$T/tree"
	echo 0.0001 >"$FAKE/jitter"
	mkrepo "$T/repo"
	R=$T/repo
	run bisect -x 3 "$T/tree" "$(c "$T/tree" 1)" "$(c "$T/tree" 16)"
	[ "$status" = 3 ]
	echo "/* changed */" >>"$R/ipistorm/ipistorm_main.c"
	run bisect "$T/tree" "$(c "$T/tree" 1)" "$(c "$T/tree" 16)"
	echo "$output"
	[ "$status" = 1 ]
	[[ $output == *"measured otherwise"* ]]
	mkrepo "$T/repo"
	echo "# changed" >>"$R/vm/kernel.config"
	run bisect "$T/tree" "$(c "$T/tree" 1)" "$(c "$T/tree" 16)"
	echo "$output"
	[ "$status" = 1 ]
	[[ $output == *"measured otherwise"* ]]
	mkrepo "$T/repo"
	echo 9.9.9 >"$FAKE/qemu-version"
	run bisect "$T/tree" "$(c "$T/tree" 1)" "$(c "$T/tree" 16)"
	echo "$output"
	[ "$status" = 1 ]
	[[ $output == *"measured otherwise"* ]]
}

@test "ends with no spread 0.1 % apart are refused, not 'inf times the noise'" {
	mktree "$T/tree" 1000000 1000000 1000000 1000000 1000000 1000000 1000000 \
		1000000 1000000 1000000 1001000 1001000 1001000 1001000 1001000 1001000
	run bisect "$T/tree" "$(c "$T/tree" 1)" "$(c "$T/tree" 16)"
	echo "$output"
	[ "$status" = 1 ]
	[[ $output == *"refusing to bisect"* ]]
	[[ $output != *"inf times"* ]]
}

@test "the noise includes the spread between two boots of an end" {
	step_tree "$T/tree"
	echo 0.05 >"$FAKE/boot-step"
	run bisect "$T/tree" "$(c "$T/tree" 1)" "$(c "$T/tree" 16)"
	echo "$output"
	[ "$status" = 1 ]
	[[ $output == *"refusing to bisect"* ]]
	[[ $output == *"between"*"boots"* ]]
}

@test "numbers and text run.sh would refuse mid-bisect are refused up front, exit 2" {
	mktree "$T/src" 1000000 1000000
	local a
	for a in "-n 08" "-n 1" "-w 010" "-x +1" "-n 1000"; do
		# shellcheck disable=SC2086 # option and value are words
		run -2 bisect $a "$T/src" HEAD~1 HEAD
		[[ $output == *"${a%% *}: "* ]] || { echo "$a: $output"; false; }
	done
	run -2 bisect -P "numipi=10
status=ok" "$T/src" HEAD~1 HEAD
	[[ $output == *"-P: "*'\n'* ]] || { echo "$output"; false; }
	[ ! -e "$T/state" ]
}
