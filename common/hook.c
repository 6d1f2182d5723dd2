// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace hooks shared by the suite's modules (hook.h): what runs once a
 * call site, or once a run. Built into each module by its common.c, which
 * defines pr_fmt first.
 */
#include "hook.h"

/*
 * Whether @sym, a symbol as sprint_symbol_no_offset() prints it, with any
 * suffix (".isra.0") or module (" [mod]"), is @name's symbol.
 */
bool ips_hook_name_is(const char *sym, const char *name)
{
	size_t len = strcspn(name, ".*");

	return !strncmp(sym, name, len) &&
	       (sym[len] == '\0' || sym[len] == '.' || sym[len] == ' ');
}

/* Hooks no call site resolves to: a call site of none, looked up once. */
static struct ips_hook ips_hook_none;

/*
 * The first hit of a call site: find its hook by the symbol it lies in,
 * keep it among the hook's call sites and in the set's map. Several CPUs
 * may hit a site first at once: each looks the symbol up, but the site
 * takes one slot, the first claim of it (by its address, so a claim sees
 * the site's other claims on its way); a CPU that finds the slot claimed
 * and the hook not yet set returns the hook it looked up.
 */
noinline notrace struct ips_hook *ips_hook_resolve(struct ips_hook_set *set,
						   unsigned long ip)
{
	unsigned int i, j, slot = hash_long(ip, IPS_HOOK_MAP_BITS);
	struct ips_hook *found = &ips_hook_none;
	char sym[KSYM_SYMBOL_LEN];

	sprint_symbol_no_offset(sym, ip);
	for (i = 0; i < set->n; i++) {
		struct ips_hook *h = &set->hooks[i];

		if (!h->hooked || !ips_hook_name_is(sym, h->hooked))
			continue;
		for (j = 0; j < IPS_HOOK_IPS; j++) {
			unsigned long old = cmpxchg(&h->ips[j], 0UL, ip);

			if (!old || old == ip)
				break;
		}
		found = h;
		break;
	}
	for (i = 0; i < ARRAY_SIZE(set->map); i++) {
		struct ips_hook_site *e = &set->map[(slot + i) & (ARRAY_SIZE(set->map) - 1)];
		unsigned long old = cmpxchg(&e->ip, 0UL, ip);

		if (!old) {
			/* Pairs with ips_hook_find(): the hook once it is set. */
			smp_store_release(&e->hook, found);
			WRITE_ONCE(set->resolved, READ_ONCE(set->resolved) + 1);
			break;
		}
		if (old == ip)
			break;
	}
	if (i == ARRAY_SIZE(set->map))
		atomic_inc(&set->unmapped);
	return found;
}

/* The callback of a set's ftrace_ops. */
notrace void ips_hook_set_func(unsigned long ip, unsigned long parent_ip,
			       struct ftrace_ops *op,
			       struct ftrace_regs *fregs)
{
	struct ips_hook_set *set = container_of(op, struct ips_hook_set, ops);

	ips_hook_dispatch(set, ip, parent_ip, ips_hook_arg0(fregs));
}

#if IPS_HOOK_DIRECT
struct ips_hook_set *ips_hook_direct_set;

#ifdef IPS_HOOK_DIRECT_DEFAULT
/* The trampoline's handler where the module names none of its own. */
notrace void ips_hook_direct_call(unsigned long ret, unsigned long parent_ip,
				  unsigned long arg0)
{
	ips_hook_direct_dispatch(ret, parent_ip, arg0);
}

#endif

#ifndef CALL_DEPTH_ACCOUNT
#define CALL_DEPTH_ACCOUNT ""
#endif

/*
 * The direct trampolines: entered by a call from the hooked function's
 * first instruction (its ftrace location), before its prologue, so only
 * the argument registers (and %rax, which may hold a vararg count) are
 * live; they save them, call IPS_HOOK_DIRECT_HANDLER and return into the
 * hooked function. No frame pointer: the unwinder follows them by the
 * stack offsets objtool records. The lean one saves the first two
 * arguments only, for a set whose functions take no more (@direct_lean),
 * and passes the return address alone: its handler's @parent_ip and @arg0
 * hold nothing, and a lean set's callbacks must not read them.
 * @args: the moves of the handler's arguments once the registers are saved.
 */
#define IPS_HOOK_TRAMP(name, save, restore, args)			\
	"	.pushsection	.text, \"ax\", @progbits\n"		\
	"	.type		" #name ", @function\n"			\
	#name ":\n"							\
	ASM_ENDBR							\
	CALL_DEPTH_ACCOUNT						\
	save								\
	args								\
	"	call	" __stringify(IPS_HOOK_DIRECT_HANDLER) "\n"	\
	restore								\
	ASM_RET								\
	"	.size		" #name ", .-" #name "\n"		\
	"	.popsection\n"

asm(IPS_HOOK_TRAMP(ips_hook_tramp,
		   "	pushq	%rdi\n	pushq	%rsi\n	pushq	%rdx\n"
		   "	pushq	%rcx\n	pushq	%r8\n	pushq	%r9\n"
		   "	pushq	%rax\n",
		   "	popq	%rax\n	popq	%r9\n	popq	%r8\n"
		   "	popq	%rcx\n	popq	%rdx\n	popq	%rsi\n"
		   "	popq	%rdi\n",
		   "	movq	%rdi, %rdx\n	movq	56(%rsp), %rdi\n"
		   "	movq	64(%rsp), %rsi\n"));
asm(IPS_HOOK_TRAMP(ips_hook_tramp_lean,
		   "	pushq	%rdi\n	pushq	%rsi\n",
		   "	popq	%rsi\n	popq	%rdi\n",
		   "	movq	16(%rsp), %rdi\n"));

/* Before Linux 6.5 (Kbuild tells): the _multi names. */
#ifdef IPS_FTRACE_DIRECT_MULTI
#define ips_register_direct(ops, addr)	register_ftrace_direct_multi(ops, addr)
#define ips_unregister_direct(ops, addr) unregister_ftrace_direct_multi(ops, addr)
#else
#define ips_register_direct(ops, addr)	register_ftrace_direct(ops, addr)
#define ips_unregister_direct(ops, addr) unregister_ftrace_direct(ops, addr, false)
#endif

/* Register @set's ops with direct calls: 0, or fall back to an ftrace_ops. */
int ips_hooks_register_direct(struct ips_hook_set *set)
{
	int ret;

	if (!set->direct || set->func ||
	    cmpxchg(&ips_hook_direct_set, NULL, set))
		return -EBUSY;
	/* A direct ops gets its callback and flags from ftrace. */
	set->ops.func = NULL;
	ret = ips_register_direct(&set->ops, set->direct_lean ?
				  (unsigned long)ips_hook_tramp_lean :
				  (unsigned long)ips_hook_tramp);
	if (ret) {
		WRITE_ONCE(ips_hook_direct_set, NULL);
		return ret;
	}
	set->via_direct = true;
	return 0;
}

int ips_hooks_unregister_direct(struct ips_hook_set *set)
{
	int ret = ips_unregister_direct(&set->ops, set->direct_lean ?
					(unsigned long)ips_hook_tramp_lean :
					(unsigned long)ips_hook_tramp);

	if (!ret)
		WRITE_ONCE(ips_hook_direct_set, NULL);
	return ret;
}

#else
int ips_hooks_register_direct(struct ips_hook_set *set)
{
	return -EOPNOTSUPP;
}

int ips_hooks_unregister_direct(struct ips_hook_set *set)
{
	return -EOPNOTSUPP;
}

#endif

/* Whether a hook of @set before the @n-th holds the function @name. */
bool ips_hook_held(const struct ips_hook_set *set, unsigned int n,
		   const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (set->hooks[i].hooked && !strcmp(set->hooks[i].hooked, name))
			return true;
	return false;
}

/*
 * Find the first traceable candidate of every hook not skipped and put
 * them all in place at once, through direct calls when @direct; 0 also
 * when optional ones are absent (and no ftrace_ops when every hook is: an
 * empty filter would trace all). A hook whose first traceable candidate
 * an earlier hook holds already is skipped: its call sites resolve to the
 * earlier one (ips_hook_resolve()). -EAGAIN: direct calls were refused,
 * nothing is left in place.
 */
int ips_hooks_try(struct ips_hook_set *set, bool direct)
{
	unsigned int i, found = 0;
	int ret;

	memset(&set->ops, 0, sizeof(set->ops));
	memset(set->map, 0, sizeof(set->map));
	set->resolved = 0;
	atomic_set(&set->unmapped, 0);
	set->ops.func = set->func ?: ips_hook_set_func;
	set->ops.flags = set->flags;
	set->via_direct = false;
	for (i = 0; i < set->n; i++) {
		struct ips_hook *h = &set->hooks[i];
		const char * const *name;

		h->hooked = NULL;
		memset(h->ips, 0, sizeof(h->ips));
		if (h->skip || h->unused ||
		    (set->skipname && !strcmp(set->skipname, h->names[0])))
			continue;
		if (set->misname && set->decoy &&
		    !strcmp(set->misname, h->names[0])) {
			unsigned char buf[64];

			strscpy(buf, set->decoy, sizeof(buf));
			if (!ftrace_set_filter(&set->ops, buf, strlen(buf), 0)) {
				h->hooked = set->decoy;
				found++;
				continue;
			}
		}
		if (h->own) {
			ret = ftrace_set_filter_ip(&set->ops, h->own, 0, 0);
			if (ret) {
				pr_err("cannot hook %s: %d\n", h->names[0], ret);
				goto err;
			}
			h->hooked = h->names[0];
			found++;
			continue;
		}
		for (name = h->names; *name; name++) {
			unsigned char buf[64];

			if (ips_hook_held(set, i, *name)) {
				h->skip = true;
				break;
			}
			/* The filter parser may write into its buffer. */
			strscpy(buf, *name, sizeof(buf));
			ret = ftrace_set_filter(&set->ops, buf, strlen(buf), 0);
			if (!ret) {
				h->hooked = *name;
				found++;
				break;
			}
			/* -EINVAL: no such traceable function; else a failure */
			if (ret != -EINVAL) {
				pr_err("cannot hook %s: %d\n", *name, ret);
				goto err;
			}
		}
		if (!h->hooked && h->required) {
			pr_err("no traceable %s on this kernel\n", h->names[0]);
			ret = -ENOENT;
			goto err;
		}
	}
	if (!found)
		return 0;
	if (direct) {
		ret = ips_hooks_register_direct(set);
		if (ret) {
			ret = -EAGAIN;
			goto err;
		}
	} else {
		ret = register_ftrace_function(&set->ops);
		if (ret) {
			pr_err("cannot hook %s: %d\n", set->hooks[0].names[0],
			       ret);
			goto err;
		}
	}
	set->registered = true;
	return 0;
err:
	ftrace_free_filter(&set->ops);
	for (i = 0; i < set->n; i++)
		set->hooks[i].hooked = NULL;
	return ret;
}

/*
 * Put every hook of @set in place (ips_hooks_try()), through direct calls
 * where the set asks for them and the kernel takes them.
 */
int ips_hooks_register(struct ips_hook_set *set)
{
	unsigned int i;
	int ret = -EAGAIN;

	if (IPS_HOOK_DIRECT && set->direct && !set->func)
		ret = ips_hooks_try(set, true);
	if (ret == -EAGAIN)
		ret = ips_hooks_try(set, false);
	for (i = 0; !ret && set->decoy && i < set->n; i++)
		if (set->hooks[i].hooked == set->decoy)
			pr_warn("test: %s hooked on %s\n",
				set->hooks[i].names[0], set->decoy);
	return ret;
}

static void ips_hooks_unhook_work(struct work_struct *work)
{
	struct ips_hook_set *set = container_of(work, struct ips_hook_set, unhook);

	if (set->via_direct)
		set->unhook_ret = ips_hooks_unregister_direct(set);
	else
		set->unhook_ret = unregister_ftrace_function(&set->ops);
}

/*
 * Start removing every hook: a worker waits for ftrace's grace periods
 * while the caller removes its other probes, whose grace periods then run
 * at the same time. ips_hooks_unregister_wait() returns once no CPU is inside
 * any of the hooks.
 */
void ips_hooks_unregister_start(struct ips_hook_set *set)
{
	if (!set->registered)
		return;
	INIT_WORK(&set->unhook, ips_hooks_unhook_work);
	/* Not system_unbound_wq, which 7.x warns of as deprecated. */
	schedule_work(&set->unhook);
}

/*
 * 0 once no CPU is inside any of the hooks. When ftrace refused to remove
 * them, the hooks may still run: an error, with the module pinned (it can
 * no longer be removed, where it was not already on its way out) and the
 * set left registered. The caller must then keep everything the hooks
 * touch: freeing it would let a hook write into freed memory.
 */
int ips_hooks_unregister_wait(struct ips_hook_set *set)
{
	if (!set->registered)
		return 0;
	flush_work(&set->unhook);
	if (set->unhook_ret) {
		pr_err("ftrace cannot remove the hooks (%d): their state is kept and the module stays loaded\n",
		       set->unhook_ret);
		__module_get(THIS_MODULE);
		return set->unhook_ret;
	}
	ftrace_free_filter(&set->ops);
	set->registered = false;
	return 0;
}

/* Remove every hook; 0 once no CPU is inside any of them (see above). */
int ips_hooks_unregister(struct ips_hook_set *set)
{
	ips_hooks_unregister_start(set);
	return ips_hooks_unregister_wait(set);
}

/* How the hooks were put in place: "direct" or "ftrace_ops". */
const char *ips_hooks_how(const struct ips_hook_set *set)
{
	return set->via_direct ? "direct" : "ftrace_ops";
}

enum ips_hook_proof ips_hook_prove(bool fired, bool expected)
{
	if (fired)
		return IPS_HOOK_PROVEN;
	return expected ? IPS_HOOK_UNPROVEN : IPS_HOOK_UNTESTED;
}

/*
 * "proof.NAME=" for every hook hooked, NAME its first candidate, from
 * @proofs (one per hook), and "symbol.NAME=" with the symbol its first
 * call site hit lies in (the name on this kernel, clones' suffixes
 * included); "proof.NAME=missing" for a hook not in place whose figure is
 * reported. Returns how many are unproven or missing.
 */
unsigned int ips_hooks_emit_proofs(struct seq_buf *sb,
				   const struct ips_hook_set *set,
				   const enum ips_hook_proof *proofs)
{
	static const char * const what[] = {
		[IPS_HOOK_UNTESTED] = "untested",
		[IPS_HOOK_PROVEN] = "proven",
		[IPS_HOOK_UNPROVEN] = "unproven",
		[IPS_HOOK_MISSING] = "missing",
	};
	unsigned int i, unproven = 0;

	/* A word for every proof: IPS_HOOK_MISSING is the last. */
	BUILD_BUG_ON(ARRAY_SIZE(what) != IPS_HOOK_MISSING + 1);
	for (i = 0; i < set->n; i++) {
		const struct ips_hook *h = &set->hooks[i];
		unsigned long ip = READ_ONCE(h->ips[0]);
		char sym[KSYM_SYMBOL_LEN];

		if (h->quiet || (!h->hooked && proofs[i] != IPS_HOOK_MISSING))
			continue;
		seq_buf_printf(sb, "proof.%s=%s\n", h->names[0],
			       what[proofs[i]]);
		unproven += proofs[i] == IPS_HOOK_UNPROVEN ||
			    proofs[i] == IPS_HOOK_MISSING;
		if (!ip || !h->hooked)
			continue;
		sprint_symbol_no_offset(sym, ip);
		seq_buf_printf(sb, "symbol.%s=%s\n", h->names[0], sym);
	}
	return unproven;
}

/*
 * "hook_sites=": the call sites in @set's map; "hook_slots=": the slots they
 * hold (one each: a site in two slots was claimed twice); "hook_unmapped=":
 * the hits of sites the full map had no slot for (each looked up anew).
 */
static void ips_hooks_emit_map(struct seq_buf *sb, const struct ips_hook_set *set)
{
	unsigned int i, j, sites = 0, slots = 0;

	for (i = 0; i < ARRAY_SIZE(set->map); i++) {
		unsigned long ip = READ_ONCE(set->map[i].ip);

		if (!ip)
			continue;
		slots++;
		sites++;
		for (j = 0; j < i; j++) {
			if (READ_ONCE(set->map[j].ip) == ip) {
				sites--;
				break;
			}
		}
	}
	seq_buf_printf(sb, "hook_sites=%u\nhook_slots=%u\nhook_unmapped=%d\n",
		       sites, slots, atomic_read(&set->unmapped));
}

/*
 * "hooked=" with @also (probes of other kinds, or "") and the names hooked,
 * then "missing=" with the optional hooks this kernel lacks, then the call
 * sites' map (ips_hooks_emit_map()).
 */
void ips_hooks_emit(struct seq_buf *sb, const struct ips_hook_set *set,
		    const char *also)
{
	const struct ips_hook *hooks = set->hooks;
	const char *sep = *also ? "," : "";
	unsigned int i, n = set->n;

	seq_buf_printf(sb, "hooked=%s", also);
	for (i = 0; i < n; i++) {
		if (!hooks[i].hooked || hooks[i].quiet)
			continue;
		seq_buf_printf(sb, "%s%s", sep, hooks[i].hooked);
		sep = ",";
	}
	seq_buf_printf(sb, "\nmissing=");
	sep = "";
	for (i = 0; i < n; i++) {
		if (hooks[i].hooked || hooks[i].quiet || hooks[i].unused)
			continue;
		seq_buf_printf(sb, "%s%s", sep, hooks[i].names[0]);
		sep = ",";
	}
	seq_buf_printf(sb, "\n");
	ips_hooks_emit_map(sb, set);
}
