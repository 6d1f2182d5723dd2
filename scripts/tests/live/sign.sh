# shellcheck shell=sh
# Module signatures on the running kernel, sourced by scripts/selftest.sh:
# booted with module.sig_enforce=1 or lockdown=integrity, the suite's
# unsigned build is refused and the loaders say how to sign it, in one
# message.

# The loaders' insmod (scripts/lib.sh's load_module, which run.sh, the
# kselftest wrapper and the fleet programs use) on an unsigned module.
test_sign_refused_unsigned() {
	# (the test bed's init mounts no securityfs, a server's does)
	[ -e /sys/kernel/security/lockdown ] ||
		mount -t securityfs securityfs /sys/kernel/security 2>/dev/null || true
	[ "$(cat /sys/module/module/parameters/sig_enforce 2>/dev/null)" = Y ] ||
		grep -q '\[integrity\]' /sys/kernel/security/lockdown 2>/dev/null ||
		skip "signatures not enforced (boot with module.sig_enforce=1 or lockdown=integrity)"
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
