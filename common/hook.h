/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace hooks shared by the suite's modules: one ftrace_ops per hooked
 * function, found by the first of several candidate names that the running
 * kernel can trace (names differ between kernel versions, and static
 * functions may carry suffixes such as .isra.0, which a glob matches).
 * The functions are in hook.c, which each module's
 * common.c builds into it.
 *
 * A set of hooks asks for ftrace's direct calls (@direct) where the kernel
 * has them (x86-64, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, as BPF
 * trampolines use): the hooked functions then call a trampoline of this
 * file, which saves the argument registers and calls the set's dispatcher,
 * with none of ftrace's own register saving and list walking. Measured in
 * the test bed under instruction counting (an empty callback): 23-26
 * instructions a hit through a direct call, 37-42 through an ftrace_ops.
 * One set of a module at a time uses it; another set, or a kernel where
 * registering it fails (another direct caller, BPF, on one of the
 * functions: EBUSY), gets an ftrace_ops with the same callbacks.
 */
#ifndef IPISTORM_HOOK_H
#define IPISTORM_HOOK_H

#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/linkage.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/seq_buf.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/workqueue.h>

#if defined(CONFIG_X86_64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS)
#define IPS_HOOK_DIRECT 1
#include <asm/ibt.h>
#include <asm/linkage.h>
#include <asm/nospec-branch.h>
#else
#define IPS_HOOK_DIRECT 0
#endif

#define IPS_HOOK_IPS	4	/* call sites per hook: clones a glob matched */
#define IPS_HOOK_MAP_BITS	6	/* call-site slots of a set: 64 */

/*
 * A hook's callback: the call site hit (the hooked function's ftrace
 * location), where that function returns to, and its first argument.
 */
typedef void (*ips_hook_fn)(unsigned long ip, unsigned long parent_ip,
			    unsigned long arg0);

struct ips_hook {
	const char * const *names;	/* candidates, the first found is hooked */
	ips_hook_fn func;
	bool required;			/* insmod fails without it */
	bool skip;			/* not hooked in this run */
	bool quiet;			/* the instrument's own: not listed */
	bool unused;			/* not asked for in this run: not listed */
	/*
	 * The module's own function to hook, by its address (names[0] its
	 * name): an allocation failure then fails the load, where a name's
	 * filter can lose it in silence (6.12's ftrace_set_hash() ignores
	 * ftrace_match_records()'s -ENOMEM).
	 */
	unsigned long own;
	unsigned int flags;		/* the module's own: its hook list's */
	const char *hooked;		/* the candidate that matched */
	unsigned long ips[IPS_HOOK_IPS];	/* its call sites, as they are hit */
};

/*
 * A call site seen, and its hook: the set's map from call site to hook. A
 * slot is claimed by its call site (@ip) and holds the site for the run;
 * @hook follows.
 */
struct ips_hook_site {
	unsigned long ip;
	struct ips_hook *hook;
};

/*
 * Every hook of a module in one ftrace_ops: removing a module's ftrace_ops
 * waits for RCU-tasks grace periods (tenths of a second each), so one ops
 * for all keeps a stop or an rmmod within a second. Its callback finds
 * the hook by the call site, in a hash of the call sites seen (the same
 * few instructions for every hook); @func, when set, is the ftrace_ops'
 * callback instead (a set of one hook, which needs no lookup; never
 * through direct calls).
 */
struct ips_hook_set {
	struct ips_hook *hooks;
	unsigned int n;
	ftrace_func_t func;
	bool direct;			/* ask for direct calls (see above) */
	bool direct_lean;		/* its functions take two arguments at most */
	/*
	 * Test only: the hook whose names[0] is @misname is put on @decoy, a
	 * function the measurement never calls, to show that its proof
	 * reads unproven.
	 */
	const char *misname;
	const char *decoy;
	/* Test only: the hook whose names[0] is @skipname is left unhooked. */
	const char *skipname;
	unsigned long flags;		/* FTRACE_OPS_FL_* for its ftrace_ops */
	bool registered;
	bool via_direct;		/* registered with direct calls */
	int unhook_ret;			/* what removing the hooks returned */
	unsigned int resolved;		/* call sites mapped so far */
	atomic_t unmapped;		/* hits the full map had no slot for */
	struct ftrace_ops ops;
	struct work_struct unhook;
	struct ips_hook_site map[1 << IPS_HOOK_MAP_BITS];
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

bool ips_hook_name_is(const char *sym, const char *name);
struct ips_hook *ips_hook_resolve(struct ips_hook_set *set, unsigned long ip);
void ips_hook_set_func(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *op, struct ftrace_regs *fregs);

/*
 * Inline, with ips_hook_enter(), ips_hook_exit() and ips_hook_arg0()
 * above: every hit of every hook goes through them, a lookup of a few
 * instructions in the set's map of call sites.
 */
static __always_inline struct ips_hook *ips_hook_find(struct ips_hook_set *set,
						      unsigned long ip)
{
	unsigned int i, slot = hash_long(ip, IPS_HOOK_MAP_BITS);

	for (i = 0; i < ARRAY_SIZE(set->map); i++) {
		const struct ips_hook_site *e = &set->map[(slot + i) & (ARRAY_SIZE(set->map) - 1)];
		unsigned long v = READ_ONCE(e->ip);

		if (v == ip) {
			/*
			 * Pairs with ips_hook_resolve(); NULL while the CPU
			 * that claimed the slot has not yet set the hook.
			 */
			struct ips_hook *h = smp_load_acquire(&e->hook);

			if (likely(h))
				return h;
			break;
		}
		if (!v)
			break;
	}
	return ips_hook_resolve(set, ip);
}

static __always_inline void ips_hook_dispatch(struct ips_hook_set *set,
					      unsigned long ip,
					      unsigned long parent_ip,
					      unsigned long arg0)
{
	struct ips_hook *h = ips_hook_find(set, ip);

	if (h->func)
		h->func(ip, parent_ip, arg0);
}

#if IPS_HOOK_DIRECT
/* The set whose hooks the trampoline serves; one a module. */
extern struct ips_hook_set *ips_hook_direct_set;

/* The direct trampolines, in hook.c's asm. */
void ips_hook_tramp(void);
void ips_hook_tramp_lean(void);

/*
 * The dispatch of a direct call: @ret is the address the hooked
 * function's ftrace location returns to, @parent_ip the address the hooked
 * function returns to, @arg0 its first argument. Inline: a module's own
 * handler (IPS_HOOK_DIRECT_HANDLER) hands it the hooks it does not serve.
 */
static __always_inline void ips_hook_direct_dispatch(unsigned long ret,
						     unsigned long parent_ip,
						     unsigned long arg0)
{
	struct ips_hook_set *set = READ_ONCE(ips_hook_direct_set);

	if (set)
		ips_hook_dispatch(set, ret - MCOUNT_INSN_SIZE, parent_ip, arg0);
}
#endif

/*
 * What the direct trampoline (hook.c) calls: ips_hook_direct_call(), or a
 * module's own function of the same arguments that serves its hottest
 * hooks without the lookup and the indirect call and hands the others to
 * ips_hook_direct_dispatch(). The module names it in its Kbuild, for both
 * of its units, the one that defines it and the common.c that builds the
 * trampoline: ccflags-y += -DIPS_HOOK_DIRECT_HANDLER=name.
 */
#ifndef IPS_HOOK_DIRECT_HANDLER
#define IPS_HOOK_DIRECT_HANDLER ips_hook_direct_call
#define IPS_HOOK_DIRECT_DEFAULT 1
#endif
void IPS_HOOK_DIRECT_HANDLER(unsigned long ret, unsigned long parent_ip,
			     unsigned long arg0);

int ips_hooks_register_direct(struct ips_hook_set *set);
int ips_hooks_unregister_direct(struct ips_hook_set *set);
bool ips_hook_held(const struct ips_hook_set *set, unsigned int n,
		   const char *name);
int ips_hooks_try(struct ips_hook_set *set, bool direct);
int ips_hooks_register(struct ips_hook_set *set);
void ips_hooks_unregister_start(struct ips_hook_set *set);
int ips_hooks_unregister_wait(struct ips_hook_set *set);
int ips_hooks_unregister(struct ips_hook_set *set);

/*
 * What a module's init returns for @ret once it has tried to remove its
 * hooks and probes, @pinned where ftrace or a tracepoint refused to remove
 * one (the module then took a reference on itself, as
 * ips_hooks_unregister_wait() does). A failed init frees the module
 * whatever its reference count, and its text with it, which such a hook
 * still calls: the init succeeds instead, and the module stays loaded,
 * pinned, keeping the state the hook writes. The modules with ftrace hooks
 * (idle_reentry, nohz_csd, ipistorm's witness) follow this rule, written
 * here only, and for their tracepoint probes, whose removal
 * ips_tp_unprobe_all() reports. wakeup, placement and ipistorm's idle
 * probe still take a tracepoint probe's removal as done.
 */
static inline int ips_init_ret(int ret, bool pinned)
{
	return pinned ? 0 : ret;
}

const char *ips_hooks_how(const struct ips_hook_set *set);

/*
 * What a figure can claim of the hook it depends on: proven (the hook
 * fired where the figure counts), unproven (an independent sign says its
 * function ran there, and the hook never fired: the symbol hooked is not
 * the one called, e.g. a call site the compiler inlined) or untested
 * (neither). An absent optional hook has no figure and no proof.
 */
enum ips_hook_proof {
	IPS_HOOK_UNTESTED, IPS_HOOK_PROVEN, IPS_HOOK_UNPROVEN,
	IPS_HOOK_MISSING,	/* a figure reported rests on a hook not in place */
};

enum ips_hook_proof ips_hook_prove(bool fired, bool expected);
unsigned int ips_hooks_emit_proofs(struct seq_buf *sb,
				   const struct ips_hook_set *set,
				   const enum ips_hook_proof *proofs);
void ips_hooks_emit(struct seq_buf *sb, const struct ips_hook_set *set,
		    const char *also);

#endif /* IPISTORM_HOOK_H */
