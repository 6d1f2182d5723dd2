// SPDX-License-Identifier: GPL-2.0
/*
 * idle_reentry: the hook set, its calibration functions, the dispatch.
 * Part of idle_reentry_main.c's unit: included there, in its order.
 */

/*
 * The calibration's functions: empty, one for each IR_CAL() of hooks.h,
 * which the hook set hooks with the calibration's hooks, and one left
 * unhooked; and the decoy, never called, where test_misname= puts a hook.
 * Each body differs, so that the compiler folds no two into one.
 */
#define IR_CAL_FN(name, n)			\
static noinline void name(void)			\
{						\
	asm volatile("" : : "i" (n));		\
}

IR_CAL_FN(ir_cal_plain, IR_NR_HOOKS)
#define IR_CAL(id, fn, ...)	IR_CAL_FN(ir_cal_fn_##fn, IR_CAL_##id)
#include "hooks.h"

static noinline __used void ir_decoy(void)
{
	asm volatile("" : : "i" (IR_NR_HOOKS + 1));
}

/*
 * The set's table: phases=1's callbacks until ir_hooks_choose(), and
 * each hook's flags and kind (IR_*).
 */
static struct ips_hook ir_hooks[IR_NR_HOOKS] = {
#define IR_HOOK(id, kind, cb, f, nm)					\
	[IR_HOOK_##id] = {						\
		.names = nm,						\
		.func = ir_##cb,					\
		.flags = (f) | IR_KIND_##kind,				\
	},
#define IR_CAL(id, fn, ...)						\
	[IR_NR_REAL + IR_CAL_##id] = {					\
		.names = IPS_HOOK_NAMES(__stringify(ir_cal_fn_##fn)),	\
		.own = (unsigned long)ir_cal_fn_##fn,			\
		.required = true,					\
		.quiet = true,						\
	},
#include "hooks.h"
};

/* The light instrument's callbacks, of the hooks it has. */
#define IR_L_FN(id, cb)							\
	[IR_HOOK_##id] = ir_l_##cb,

static const ips_hook_fn ir_light_fn[IR_NR_REAL] = {
#define IR_HOOK(id, kind, cb, ...)	IR_IN_LIGHT_##kind(IR_L_FN, id, cb)
#include "hooks.h"
};

/* The calibration's: its functions, and each hook's counterparts. */
struct ir_cal {
	void (*fn)(void);
	u8 of[2];	/* light, phases=1: a hook, or IR_HOOK_NONE */
};

static const struct ir_cal ir_cals[IR_NR_CAL] = {
#define IR_CAL(id, fn, light, phases)					\
	[IR_CAL_##id] = {						\
		ir_cal_fn_##fn, { IR_HOOK_##light, IR_HOOK_##phases }	\
	},
#include "hooks.h"
};

/*
 * The calibration's rounds of this run's instrument (ir_hooks_choose()):
 * a fast re-entry's ([0]) and one with a pick ([1]), and the same calls
 * of the plain function.
 */
struct ir_cal_round {
	void (*fn[IR_NR_CAL])(void);
	unsigned int n;
};

static struct ir_cal_round ir_cal_rounds[2], ir_cal_plain_rounds[2];

static struct ips_hook_set ir_hook_set = {
	.hooks = ir_hooks,
	.n = ARRAY_SIZE(ir_hooks),
	.direct = true,
	.decoy = "ir_decoy",
};

/*
 * The hot hooks as the direct calls reach them: by their call sites
 * (ir_hot_ip[], by hook index), each instrument its own chain of tests,
 * which a call site of neither leaves to the set's lookup. The sites are
 * the real ones, once their first hit went through the set, or, while
 * the calibration runs, each calibration hook's where its counterpart's
 * is (ir_calibrate()), which thereby takes the very same path.
 */
/* The first eight hooks' sites, every BOTH hook's among them, in one cache line. */
static unsigned long ir_hot_ip[IR_NR_REAL] __read_mostly __aligned(SMP_CACHE_BYTES);
static DEFINE_STATIC_KEY_FALSE(ir_calibrating);

/* The calibration hook that stands in for hook @h, or IR_HOOK_NONE. */
static unsigned int ir_cal_hook_of(unsigned int h)
{
	unsigned int i;

	for (i = 0; i < IR_NR_CAL; i++)
		if (ir_cals[i].of[ir_phases] == h)
			return IR_NR_REAL + i;
	return IR_HOOK_NONE;
}

/* Take the call sites the set knows of the real hooks, or of the calibration's (@cal). */
static void ir_hot_learn(bool cal)
{
	unsigned int i, h;

	for (i = 0; i < IR_NR_REAL; i++) {
		if (!(ir_hooks[i].flags & IR_HOT))
			continue;
		h = cal ? ir_cal_hook_of(i) : i;
		WRITE_ONCE(ir_hot_ip[i], h < IR_NR_HOOKS ? READ_ONCE(ir_hooks[h].ips[0]) : 0);
	}
}

/*
 * Every other hook: through the set, which learns the call site on its
 * first hit; the chains then take it.
 */
static noinline notrace void ir_direct_other(unsigned long ret,
					     unsigned long parent_ip,
					     unsigned long arg0)
{
	unsigned int resolved = READ_ONCE(ir_hook_set.resolved);

	ips_hook_direct_dispatch(ret, parent_ip, arg0);
	if (READ_ONCE(ir_hook_set.resolved) != resolved &&
	    !static_branch_unlikely(&ir_calibrating))
		ir_hot_learn(false);
}

/* ip is hot hook @h's call site. */
#define IR_AT(ip, h)	((ip) == READ_ONCE(ir_hot_ip[h]))

/* A chain's test of hot hook ID at ip, and its call: then return. */
#define IR_L_TRY(id, cb)						\
	{								\
		if (IR_AT(ip, IR_HOOK_##id)) {				\
			ir_l_##cb##_hot();				\
			return;						\
		}							\
	}

#define IR_P_TRY(id, cb)						\
	{								\
		if (IR_AT(ip, IR_HOOK_##id)) {				\
			ir_##cb(ip, parent_ip, arg0);			\
			return;						\
		}							\
	}

/*
 * What the direct trampoline calls (common/hook.c; Kbuild names it): the
 * hot hooks' tests in hooks.h's order. The light instrument's lean
 * trampoline passes the return address alone; phases=1's the hooked
 * function's return address and first argument too.
 */
notrace void ir_direct(unsigned long ret, unsigned long parent_ip,
		       unsigned long arg0)
{
	unsigned long ip = ret - MCOUNT_INSN_SIZE;

	if (static_branch_likely(&ir_light)) {
#define IR_HOOK(id, kind, cb, ...)	IR_IN_LIGHT_##kind(IR_L_TRY, id, cb)
#include "hooks.h"
		ir_direct_other(ret, 0, 0);
		return;
	}
#define IR_HOOK(id, kind, cb, ...)	IR_IF_HOT_##kind(IR_P_TRY, id, cb)
#include "hooks.h"
	ir_direct_other(ret, parent_ip, arg0);
}

/* What hooks.h must hold: a bit of struct ir_cpu's @fired for each hook. */
static_assert(sizeof_field(struct ir_cpu, fired) * BITS_PER_BYTE >= IR_NR_HOOKS);

/* A BOTH hook's site in ir_hot_ip[]'s first cache line. */
#define IR_CHECK_LINE(id)						\
	{								\
		BUILD_BUG_ON(IR_HOOK_##id >=				\
			     SMP_CACHE_BYTES / sizeof(ir_hot_ip[0]));	\
	}

/*
 * The rules of hooks.h that the build checks: the BOTH hooks' sites in
 * one cache line; the fair pick before core scheduling's, which names
 * its function too. (That a calibration hook stands in for a hook of
 * its instrument, ir_hooks_choose() checks.)
 */
static void ir_hooks_check(void)
{
#define IR_HOOK(id, kind, ...)	IR_IN_LIGHT_##kind(IR_CHECK_LINE, id)
#include "hooks.h"
	BUILD_BUG_ON(IR_HOOK_PICK > IR_HOOK_PICK_CORE);
}

/*
 * The instrument's callbacks and hooks: the light ones where it has
 * them, each calibration hook its counterpart's; the calibration's rounds.
 * -EINVAL where hooks.h makes a calibration hook stand in for a hook the
 * instrument leaves out.
 */
static int ir_hooks_choose(void)
{
	struct ir_cal_round *r = ir_cal_rounds;
	unsigned int i, j;

	ir_hooks_check();
	if (ir_phases)
		static_branch_disable(&ir_light);
	/* The light hooks take no argument. */
	ir_hook_set.direct_lean = !ir_phases;
	for (i = 0; i < IR_NR_REAL; i++) {
		struct ips_hook *h = &ir_hooks[i];
		unsigned int f = h->flags;

		if (!ir_phases)
			h->func = ir_light_fn[i];
		h->unused = !ir_phases && !(f & IR_IN_LIGHT);
		h->skip = !ir_pick_hook && (f & IR_PICK);
		/* Without its hooks, a pick is nowhere required. */
		h->required = !h->skip &&
			      ((f & IR_REQ) || (!ir_phases && (f & IR_REQ_LIGHT)));
	}
	for (i = 0; i < IR_NR_CAL; i++) {
		struct ips_hook *h = &ir_hooks[IR_NR_REAL + i];
		unsigned int of = ir_cals[i].of[ir_phases];

		h->unused = of == IR_HOOK_NONE;
		if (h->unused)
			continue;
		if (ir_hooks[of].unused) {
			pr_err("hooks.h: %s stands in for %s, which phases=%d leaves out\n",
			       h->names[0], ir_hooks[of].names[0], ir_phases);
			return -EINVAL;
		}
		h->func = ir_hooks[of].func;
		/* A fast re-entry's round makes no pick. */
		if (!(ir_hooks[of].flags & IR_PICK))
			r[0].fn[r[0].n++] = ir_cals[i].fn;
		r[1].fn[r[1].n++] = ir_cals[i].fn;
	}
	for (i = 0; i < ARRAY_SIZE(ir_cal_plain_rounds); i++) {
		ir_cal_plain_rounds[i].n = r[i].n;
		for (j = 0; j < r[i].n; j++)
			ir_cal_plain_rounds[i].fn[j] = ir_cal_plain;
	}
	return 0;
}

/*
 * Whether every probe is gone. Where ftrace or a tracepoint refused to
 * remove one, it may still run and write the per-CPU state: the state is
 * then never freed, and the module stays loaded (pinned).
 */
static bool ir_unhooked = true;

/*
 * Remove every probe, their grace periods at once; 0 once no CPU is
 * inside any (else the hooks stay and so must the state they write:
 * ir_unhooked false).
 */
static int ir_unhook(void)
{
	int ret, err;

	ips_hooks_unregister_start(&ir_hook_set);
	err = ips_tp_unprobe_all(ir_tps, ARRAY_SIZE(ir_tps));
	ret = ips_hooks_unregister_wait(&ir_hook_set);
	if (ret || err) {
		/* ips_hooks_unregister_wait() pins the module on its own error. */
		if (!ret && ir_unhooked) {
			pr_err("a tracepoint probe stays in: the state is kept and the module stays loaded\n");
			__module_get(THIS_MODULE);
		}
		ir_unhooked = false;
		ret = ret ?: err;
	}
	/* No hook queues test_interrupt's work now: none may run after us. */
	if (!ret && static_branch_unlikely(&ir_test_irq))
		ips_test_irq_sync(&ir_test_work);
	return ret;
}

/*
 * Register every hook of the instrument chosen. The order does not
 * matter: nothing is counted until the session measures.
 */
static int ir_hook(void)
{
	int ret;

	ret = ips_tp_probe_all(&ir_tps[IR_TP_SWITCH], 1, NULL);
	if (ret)
		return ret;
	if (ir_idle_states) {
		ret = ips_tp_probe_all(&ir_tps[IR_TP_IDLE], 1, "idle_states=1");
		if (ret) {
			ir_unhook();
			return ret;
		}
	}
	ir_hook_set.misname = ir_test_misname;
	ir_hook_set.skipname = ir_test_skip;
	ret = ips_hooks_register(&ir_hook_set);
	if (ret)
		ir_unhook();
	return ret;
}
