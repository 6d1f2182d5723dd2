# shellcheck shell=sh
# Module signatures on the running kernel, sourced by scripts/selftest.sh:
# booted with module.sig_enforce=1 or lockdown=integrity, the suite's
# unsigned build is refused and the loaders say how to sign it, in one
# message; on a kernel that enforces signatures and trusts the key the
# suite was signed with (make sign; vm/enforcing-kernel.sh), it loads.

# sign_enforced: the running kernel refuses unsigned modules.
sign_enforced() {
	# (the test bed's init mounts no securityfs, a server's does)
	[ -e /sys/kernel/security/lockdown ] ||
		mount -t securityfs securityfs /sys/kernel/security 2>/dev/null || true
	[ "$(cat /sys/module/module/parameters/sig_enforce 2>/dev/null)" = Y ] ||
		grep -q '\[integrity\]' /sys/kernel/security/lockdown 2>/dev/null
}

# signed KO: KO carries an appended signature (make sign).
signed() {
	tail -c 28 "$1" | grep -q '~Module signature appended~'
}

# The loaders' insmod (scripts/lib.sh's load_module, which run.sh, the
# kselftest wrapper and the fleet programs use) on an unsigned module.
test_sign_refused_unsigned() {
	sign_enforced ||
		skip "signatures not enforced (boot with module.sig_enforce=1 or lockdown=integrity)"
	! signed "$(ko ipistorm)" || skip "the suite's build is signed"
	unload ipistorm
	_rc=0
	_out=$(load_module "$MODDIR" ipistorm numipi=10 single=1 wait=1 2>&1) || _rc=$?
	printf '%s\n' "$_out" | sed 's/^/# /'
	if loaded ipistorm; then
		unload ipistorm
		fail "an unsigned module loaded"
	fi
	check "$_rc != 0" "load_module returned 0"
	case $_out in
	*"make sign"*) ;;
	*) fail "the message does not say how to sign" ;;
	esac
	check "$(printf '%s\n' "$_out" | wc -l) == 1" "more than one line"
}

# Signed with a key the kernel trusts, the suite loads and measures where
# signatures are enforced.
test_sign_signed_loads() {
	need_cpus 2
	sign_enforced || skip "signatures not enforced"
	signed "$(ko ipistorm)" || skip "the suite's build is unsigned (make sign)"
	unload ipistorm
	_rc=0
	_out=$(load_module "$MODDIR" ipistorm numipi=10 single=1 wait=1 pairs="$(cpu 0):$(cpu 1)" 2>&1) || _rc=$?
	[ -z "$_out" ] || printf '%s\n' "$_out" | sed 's/^/# /'
	check "$_rc == 0" "a signed module was refused"
	unload ipistorm
}
