/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace hooks shared by the suite's modules: one ftrace_ops per hooked
 * function, found by the first of several candidate names that the running
 * kernel can trace (names differ between kernel versions, and static
 * functions may carry suffixes such as .isra.0, which a glob matches).
 * Include after defining pr_fmt.
 */
#ifndef IPISTORM_HOOK_H
#define IPISTORM_HOOK_H

#include <linux/errno.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/printk.h>
#include <linux/seq_buf.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#define IPS_HOOK_IPS	4	/* call sites per hook: clones a glob matched */

struct ips_hook {
	const char * const *names;	/* candidates, the first found is hooked */
	ftrace_func_t func;
	bool required;			/* insmod fails without it */
	bool skip;			/* not hooked in this run */
	const char *hooked;		/* the candidate that matched */
	unsigned long ips[IPS_HOOK_IPS];	/* its call sites, as they are hit */
};

/*
 * Every hook of a module in one ftrace_ops: removing a module's ftrace_ops
 * waits for RCU-tasks grace periods (tenths of a second each), so one ops
 * for all keeps a stop or an rmmod within a second. Its callback finds
 * the hook by the call site; @func, when set, is the callback instead (a
 * set of one hook, which needs no lookup).
 */
struct ips_hook_set {
	struct ips_hook *hooks;
	unsigned int n;
	ftrace_func_t func;
	/*
	 * Test only: the hook whose names[0] is @misname is put on @decoy, a
	 * function the measurement never calls, to show that its proof
	 * reads unproven.
	 */
	const char *misname;
	const char *decoy;
	unsigned long flags;		/* FTRACE_OPS_FL_* for its ftrace_ops */
	bool registered;
	struct ftrace_ops ops;
	struct work_struct unhook;
};

#define IPS_HOOK_NAMES(...) ((const char * const []){ __VA_ARGS__, NULL })

/*
 * Every hook callback of the suite starts with ips_hook_enter() and, when
 * that returned 0 or more, ends with ips_hook_exit() of what it returned:
 * the recursion lock, which also keeps preemption off, guards against
 * recursion through anything the callback calls.
 */
static __always_inline int ips_hook_enter(unsigned long ip,
					  unsigned long parent_ip)
{
	return ftrace_test_recursion_trylock(ip, parent_ip);
}

static __always_inline void ips_hook_exit(int bit)
{
	ftrace_test_recursion_unlock(bit);
}

/* The first argument of the hooked function, at its entry. */
static __always_inline unsigned long ips_hook_arg0(struct ftrace_regs *fregs)
{
#ifdef ftrace_regs_get_argument
	return ftrace_regs_get_argument(fregs, 0);
#else
	/* 6.1: x86-64's ftrace_regs holds the argument registers. */
	return fregs->regs.di;
#endif
}

/*
 * Whether @sym, a symbol as sprint_symbol_no_offset() prints it, with any
 * suffix (".isra.0") or module (" [mod]"), is @name's symbol.
 */
static inline bool ips_hook_name_is(const char *sym, const char *name)
{
	size_t len = strcspn(name, ".*");

	return !strncmp(sym, name, len) &&
	       (sym[len] == '\0' || sym[len] == '.' || sym[len] == ' ');
}

/*
 * The first hit of a call site: find its hook by the symbol it lies in
 * and keep it among the hook's call sites. Once per call site and run.
 */
static noinline struct ips_hook *ips_hook_resolve(struct ips_hook_set *set,
						  unsigned long ip)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned int i, j;

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
		return h;
	}
	return NULL;
}

static __always_inline struct ips_hook *ips_hook_find(struct ips_hook_set *set,
						      unsigned long ip)
{
	unsigned int i, j;

	for (i = 0; i < set->n; i++) {
		/* Call sites fill a hook's slots in order. */
		for (j = 0; j < IPS_HOOK_IPS; j++) {
			unsigned long v = READ_ONCE(set->hooks[i].ips[j]);

			if (v == ip)
				return &set->hooks[i];
			if (!v)
				break;
		}
	}
	return ips_hook_resolve(set, ip);
}

/* The callback of a set of several hooks: the hook of the call site hit. */
static void ips_hook_set_func(unsigned long ip, unsigned long parent_ip,
			      struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct ips_hook_set *set = container_of(op, struct ips_hook_set, ops);
	struct ips_hook *h = ips_hook_find(set, ip);

	if (h)
		h->func(ip, parent_ip, op, fregs);
}

/* Whether a hook of @set before the @n-th holds the function @name. */
static inline bool ips_hook_held(const struct ips_hook_set *set, unsigned int n,
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
 * them all in place at once; 0 also when optional ones are absent (and
 * no ftrace_ops when every hook is: an empty filter would trace all). A
 * hook whose first traceable candidate an earlier hook holds already is
 * skipped: its call sites resolve to the earlier one (ips_hook_resolve()).
 */
static inline int ips_hooks_register(struct ips_hook_set *set)
{
	unsigned int i, found = 0;
	int ret;

	memset(&set->ops, 0, sizeof(set->ops));
	set->ops.func = set->func ?: ips_hook_set_func;
	set->ops.flags = set->flags;
	for (i = 0; i < set->n; i++) {
		struct ips_hook *h = &set->hooks[i];
		const char * const *name;

		h->hooked = NULL;
		memset(h->ips, 0, sizeof(h->ips));
		if (h->skip)
			continue;
		if (set->misname && set->decoy &&
		    !strcmp(set->misname, h->names[0])) {
			unsigned char buf[64];

			strscpy(buf, set->decoy, sizeof(buf));
			if (!ftrace_set_filter(&set->ops, buf, strlen(buf), 0)) {
				pr_warn("test: %s hooked on %s\n", h->names[0],
					set->decoy);
				h->hooked = set->decoy;
				found++;
				continue;
			}
		}
		for (name = h->names; *name; name++) {
			unsigned char buf[64];

			if (ips_hook_held(set, i, *name)) {
				h->skip = true;
				break;
			}
			/* The filter parser may write into its buffer. */
			strscpy(buf, *name, sizeof(buf));
			if (!ftrace_set_filter(&set->ops, buf, strlen(buf), 0)) {
				h->hooked = *name;
				found++;
				break;
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
	ret = register_ftrace_function(&set->ops);
	if (ret) {
		pr_err("cannot hook %s: %d\n", set->hooks[0].names[0], ret);
		goto err;
	}
	set->registered = true;
	return 0;
err:
	ftrace_free_filter(&set->ops);
	for (i = 0; i < set->n; i++)
		set->hooks[i].hooked = NULL;
	return ret;
}

static inline void ips_hooks_unhook_work(struct work_struct *work)
{
	struct ips_hook_set *set = container_of(work, struct ips_hook_set, unhook);

	unregister_ftrace_function(&set->ops);
}

/*
 * Start removing every hook: a worker waits for ftrace's grace periods
 * while the caller removes its other probes, whose grace periods then run
 * at the same time. ips_hooks_unregister_wait() returns once no CPU is inside
 * any of the hooks.
 */
static inline void ips_hooks_unregister_start(struct ips_hook_set *set)
{
	if (!set->registered)
		return;
	INIT_WORK(&set->unhook, ips_hooks_unhook_work);
	/* Not system_unbound_wq, which 7.x warns of as deprecated. */
	schedule_work(&set->unhook);
}

static inline void ips_hooks_unregister_wait(struct ips_hook_set *set)
{
	if (!set->registered)
		return;
	flush_work(&set->unhook);
	ftrace_free_filter(&set->ops);
	set->registered = false;
}

/* Remove every hook; returns once no CPU is inside any of them. */
static inline void ips_hooks_unregister(struct ips_hook_set *set)
{
	ips_hooks_unregister_start(set);
	ips_hooks_unregister_wait(set);
}

/*
 * What a figure can claim of the hook it depends on: proven (the hook
 * fired where the figure counts), unproven (an independent sign says its
 * function ran there, and the hook never fired: the symbol hooked is not
 * the one called, e.g. a call site the compiler inlined) or untested
 * (neither). An absent optional hook has no figure and no proof.
 */
enum ips_hook_proof { IPS_HOOK_UNTESTED, IPS_HOOK_PROVEN, IPS_HOOK_UNPROVEN };

static inline enum ips_hook_proof ips_hook_prove(bool fired, bool expected)
{
	if (fired)
		return IPS_HOOK_PROVEN;
	return expected ? IPS_HOOK_UNPROVEN : IPS_HOOK_UNTESTED;
}

/*
 * "proof.NAME=" for every hook hooked, NAME its first candidate, from
 * @proofs (one per hook), and "symbol.NAME=" with the symbol its first
 * call site hit lies in (the name on this kernel, clones' suffixes
 * included). Returns how many are unproven.
 */
static inline unsigned int ips_hooks_emit_proofs(struct seq_buf *sb,
						 const struct ips_hook_set *set,
					     const enum ips_hook_proof *proofs)
{
	static const char * const what[] = {
		[IPS_HOOK_UNTESTED] = "untested",
		[IPS_HOOK_PROVEN] = "proven",
		[IPS_HOOK_UNPROVEN] = "unproven",
	};
	unsigned int i, unproven = 0;

	for (i = 0; i < set->n; i++) {
		const struct ips_hook *h = &set->hooks[i];
		unsigned long ip = READ_ONCE(h->ips[0]);
		char sym[KSYM_SYMBOL_LEN];

		if (!h->hooked)
			continue;
		seq_buf_printf(sb, "proof.%s=%s\n", h->names[0],
			       what[proofs[i]]);
		unproven += proofs[i] == IPS_HOOK_UNPROVEN;
		if (!ip)
			continue;
		sprint_symbol_no_offset(sym, ip);
		seq_buf_printf(sb, "symbol.%s=%s\n", h->names[0], sym);
	}
	return unproven;
}

/*
 * "hooked=" with @also (probes of other kinds, or "") and the names hooked,
 * then "missing=" with the optional hooks this kernel lacks.
 */
static inline void ips_hooks_emit(struct seq_buf *sb, const struct ips_hook_set *set,
				  const char *also)
{
	const struct ips_hook *hooks = set->hooks;
	const char *sep = *also ? "," : "";
	unsigned int i, n = set->n;

	seq_buf_printf(sb, "hooked=%s", also);
	for (i = 0; i < n; i++) {
		if (!hooks[i].hooked)
			continue;
		seq_buf_printf(sb, "%s%s", sep, hooks[i].hooked);
		sep = ",";
	}
	seq_buf_printf(sb, "\nmissing=");
	sep = "";
	for (i = 0; i < n; i++) {
		if (hooks[i].hooked)
			continue;
		seq_buf_printf(sb, "%s%s", sep, hooks[i].names[0]);
		sep = ",";
	}
	seq_buf_printf(sb, "\n");
}

#endif /* IPISTORM_HOOK_H */
