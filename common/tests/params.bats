#!/usr/bin/env bats
# The start line's order (common/result.c, ips_result_log_params()): each
# module lists its parameters in ips_params_order[], which must name them
# all, in the order the module declares them. The kernel's own order, the
# module's __param section, is the compiler's (GCC: last declared first;
# clang: first declared first), so the table is what holds it on both.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
}

# declared FILE: the names of FILE's module parameters, in its order.
declared() {
	sed -n 's/^module_param\(_named\|_cb\)\{0,1\}(\([a-z0-9_]*\),.*/\2/p' "$1"
}

# listed FILE: the names in FILE's ips_params_order[], in its order.
listed() {
	awk '/^const char \* const ips_params_order\[\] = \{/ { on = 1; next }
		on && /^\};/ { exit }
		on { while (match($0, /"[a-z0-9_]+"/)) {
			print substr($0, RSTART + 1, RLENGTH - 2)
			$0 = substr($0, RSTART + RLENGTH) } }' "$1"
}

# order_problems ROOT: one line per module source of ROOT whose table and
# declarations differ, or that declares parameters and has no table.
order_problems() {
	local f
	for f in "$1"/*/*_main.c; do
		[ -f "$f" ] || continue
		[ -n "$(declared "$f")" ] || continue
		if ! grep -q '^const char \* const ips_params_order\[\] = {' "$f"; then
			echo "${f#"$1"/}: no ips_params_order[]"
		elif [ "$(declared "$f" | tr '\n' ' ')" != "$(listed "$f" | tr '\n' ' ')" ]; then
			echo "${f#"$1"/}: ips_params_order[] is $(listed "$f" | tr '\n' ' ')but the declarations are $(declared "$f" | tr '\n' ' ')"
		fi
	done
}

@test "params: every module's start-line table lists its parameters as declared" {
	run order_problems "$TOP"
	[ "$status" -eq 0 ]
	[ -z "$output" ] || { echo "$output"; false; }
	# the check saw the modules
	[ "$(declared "$TOP/ipistorm/ipistorm_main.c" | tr '\n' ' ')" = \
		"numipi timeout time_cap cpulist offset pairs single wait delay timing witness idle_states " ]
	[ "$(listed "$TOP/idle_reentry/idle_reentry_main.c" | head -n 1)" = cpulist ]
	[ "$(listed "$TOP/nohz_csd/nohz_csd_main.c" | tail -n 1)" = stop ]
}

@test "params: a reordered, incomplete or missing table is reported" {
	local t=$BATS_TEST_TMPDIR/tree
	mkdir -p "$t/a" "$t/b" "$t/c" "$t/d"
	cat >"$t/a/a_main.c" <<-'EOF'
	static int a_wait;
	module_param_named(wait, a_wait, int, 0444);
	module_param(delay, uint, 0444);
	module_param_cb(stop, &ops, &s, 0644);
	const char * const ips_params_order[] = {
		"wait", "stop", "delay", NULL,
	};
	EOF
	sed 's/"wait", "stop", "delay"/"wait", "delay"/' "$t/a/a_main.c" >"$t/b/b_main.c"
	grep -v ips_params_order "$t/a/a_main.c" | grep -v '"wait"' | grep -v '^};' >"$t/c/c_main.c"
	sed 's/"wait", "stop", "delay"/"wait", "delay", "stop"/' "$t/a/a_main.c" >"$t/d/d_main.c"
	run order_problems "$t"
	[ "$output" = "a/a_main.c: ips_params_order[] is wait stop delay but the declarations are wait delay stop 
b/b_main.c: ips_params_order[] is wait delay but the declarations are wait delay stop 
c/c_main.c: no ips_params_order[]" ] || { echo "$output"; false; }
}
