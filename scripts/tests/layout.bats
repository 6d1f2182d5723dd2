#!/usr/bin/env bats
# The tree's layout (docs/testbed.md#the-tests-folders): every tests/
# folder holds one contract, the test bed (vm/) names nothing that lies
# above it, and every step of testbed.steps is a test-bed program.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
}

# contract ROOT DIR: the contract of tests/ folder DIR (relative to ROOT)
# by its place: ktap, bats, testbed, fixtures or lkp-lib; none: unknown.
contract() {
	case $2 in
	*/tests/live) echo ktap ;;
	*/tests/host) echo bats ;;
	*/tests/testbed) echo testbed ;;
	*/tests/fixtures | */tests/fixtures/*) echo fixtures ;;
	lkp/lib/tests) echo lkp-lib ;;
	*/tests)
		if [ -f "$1/${2%/tests}/bench.conf" ]; then
			echo ktap
		else
			echo bats
		fi
		;;
	*) echo none ;;
	esac
}

# layout_problems ROOT: one line per file of ROOT's tests/ folders that
# breaks its folder's contract, and per file of ROOT/vm that names what
# lies above the test bed; nothing when all hold.
layout_problems() {
	local root=$1 d f c
	(cd "$root" && find . -path ./.git -prune -o -path ./build -prune -o -type d \
		\( -name tests -o -path '*/tests/*' \) -print) | sed 's|^\./||' | sort |
		while read -r d; do
			c=$(contract "$root" "$d")
			for f in "$root/$d"/*; do
				[ -f "$f" ] || continue
				f=${f#"$root"/}
				case $c in
				ktap)
					case $f in
					*.sh) [ ! -x "$root/$f" ] || echo "$f: an executable in a KTAP folder" ;;
					*) echo "$f: not a KTAP test file (*.sh) in a KTAP folder" ;;
					esac
					;;
				bats) case $f in *.bats) ;; *) echo "$f: not a bats file in a bats folder" ;; esac ;;
				testbed) case $f in *.bats) echo "$f: a bats file in a test-bed folder" ;; esac ;;
				fixtures | lkp-lib) ;;
				*) echo "$f: in $d, a tests/ folder of no known contract" ;;
				esac
			done
		done
	grep -lE '(^|[^a-z_])(mmtests|lkp)/|scripts/bisect|tests/testbed' -r "$root/vm" |
		sed "s|^$root/||; s|\$|: names what lies above the test bed|"
}

@test "layout: every tests/ folder holds one contract; vm/ names nothing above it" {
	run layout_problems "$TOP"
	[ "$status" -eq 0 ]
	[ -z "$output" ] || { echo "$output"; false; }
	# the check saw the contracts
	[ "$(contract "$TOP" ipistorm/tests)" = ktap ]
	[ "$(contract "$TOP" scripts/tests)" = bats ]
}

@test "layout: a mixed folder, an unknown folder or a loop is reported" {
	local t=$BATS_TEST_TMPDIR/tree
	mkdir -p "$t/mod/tests" "$t/tool/tests/testbed" "$t/vm" "$t/tool/other/tests/x"
	: >"$t/mod/bench.conf"
	: >"$t/mod/tests/mod.sh"
	install /dev/null "$t/mod/tests/bed.sh"
	: >"$t/tool/tests/tool.bats"
	: >"$t/tool/tests/live.sh"
	: >"$t/tool/tests/testbed/run.sh"
	: >"$t/tool/other/tests/x/y"
	# shellcheck disable=SC2016 # a line of the fake vm/test.sh
	echo 'exec "$TOP/mmtests/tests/testbed/testbed.sh"' >"$t/vm/test.sh"
	run layout_problems "$t"
	[ "$output" = "mod/tests/bed.sh: an executable in a KTAP folder
tool/other/tests/x/y: in tool/other/tests/x, a tests/ folder of no known contract
tool/tests/live.sh: not a bats file in a bats folder
vm/test.sh: names what lies above the test bed" ] || { echo "$output"; false; }
}

@test "layout: every step of testbed.steps is an executable of a tests/testbed folder" {
	local name cmd prog n=0
	while IFS='|' read -r name _ _ _ _ cmd; do
		case $name in '#'* | format=* | '') continue ;; esac
		read -r prog _ <<<"$cmd"
		[[ $prog == */tests/testbed/* ]] || { echo "$name: $prog"; false; }
		[ -x "$TOP/$prog" ] || { echo "$name: $prog is not executable"; false; }
		n=$((n + 1))
	done <"$TOP/testbed.steps"
	[ "$n" -ge 1 ]
}
