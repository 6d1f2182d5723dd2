// SPDX-License-Identifier: GPL-2.0
/*
 * idle_reentry - time idle re-entry on chosen CPUs through ftrace hooks.
 *
 * A re-entry is one round of the idle loop that left the polling loop,
 * restarted the tick (tick_nohz_idle_exit()), ran what was queued
 * (flush_smp_call_function_queue()), called schedule_idle() and came back
 * to the top of do_idle() without running another task. Per CPU it times
 * the phases of each re-entry, counts how many called
 * pick_next_task_fair() and sched_balance_newidle() and how many made a
 * pick at all, which ends in the idle class's pick on an empty runqueue
 * whatever path the kernel took to it (the fair class's shortcut, core
 * scheduling, sched_ext): SM_IDLE, Linux 6.12, skips the pick when the
 * runqueue is empty. It also tells what pulled the CPU out of idle: a
 * call-function "IPI" taken by polling, a real IPI, a timer interrupt or
 * something else.
 *
 *   insmod idle_reentry.ko cpulist=16 duration=10   # measure 10 s, then report
 *   insmod idle_reentry.ko cpulist=16               # measure until stopped:
 *   echo stop > /sys/kernel/debug/idle_reentry/control
 *   echo 1 > /sys/module/idle_reentry/parameters/stop   # the same, no debugfs
 *
 * A summary is printed to the kernel log; the whole result is kept in
 * /sys/kernel/debug/idle_reentry/result until rmmod.
 *
 * Rounds are counted only while every hook is in place: the measurement
 * starts once all hooks are registered and stops, at one instant, before
 * any is removed. A round is counted only if it both began and ended while
 * measuring, so no round is counted half-hooked.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/hardirq.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/prio.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/trace_recursion.h>
#include <linux/tracepoint.h>
#include <linux/utsname.h>
#include <linux/vmalloc.h>

#include "../common/hist.h"
#include "../common/hook.h"
#include "../common/param.h"
#include "../common/result.h"
#include "../common/session.h"
#include "../common/tp.h"

#define IR_FORMAT		"idle_reentry/3"
#define MAX_DURATION_S		3600U
#define CALIB_CALLS		20000

/* ---- parameters -------------------------------------------------------- */

/*
 * The CPUs to measure, in a string of any length up to IPS_MAX_CPULIST_LEN:
 * every CPU of a large machine, one by one, is longer than a charp's 1024
 * characters.
 */
static struct ips_long_string cpulist = { .max = IPS_MAX_CPULIST_LEN };
module_param_cb(cpulist, &ips_long_string_ops, &cpulist, 0444);
MODULE_PARM_DESC(cpulist, "CPUs to measure, kernel cpulist syntax such as 16 or 8-15 (required)");

/* A fixed length for scripts; 0 measures whatever the user runs meanwhile. */
static unsigned int duration;
module_param(duration, uint, 0444);
MODULE_PARM_DESC(duration, "Measure for this long inside insmod, then report (seconds, default 0: measure until stopped through the stop parameter, debugfs control or rmmod; max 3600)");

/* Without the pick hook a fast_pct of 100 proves nothing: show that it says so. */
static bool pick_hook = true;
module_param(pick_hook, bool, 0444);
MODULE_PARM_DESC(pick_hook, "0: leave the fair class's pick unhooked, to check that a result without it is reported unproven (default 1)");

/* A hook on a wrong function must read unproven: show that it does. */
static char *test_misname;
module_param(test_misname, charp, 0444);
MODULE_PARM_DESC(test_misname, "Test only: put the hook of this function (such as schedule_idle) on one never called, to check that its proof reads unproven (default unset)");

/* Ends an until-stopped measurement where debugfs refuses writes (lockdown). */
static void ir_finish(bool interrupted);
static struct ips_session ir_session __read_mostly =
	IPS_SESSION_INIT(ir_session, ir_finish);
module_param_cb(stop, &ips_session_stop_ops, &ir_session, 0644);
MODULE_PARM_DESC(stop, "Write 1 to end a measurement that runs until stopped, as writing stop to the debugfs control file does; reads 1 once it has ended");

/* ---- state ------------------------------------------------------------- */

/* What pulled the CPU out of idle during one round. */
enum {
	WAKE_POLL,	/* call-function queue flushed by the polling idle task */
	WAKE_IPI,	/* call-function IPI taken in hard IRQ */
	WAKE_TIMER,	/* hrtimer interrupt */
	WAKE_OTHER,
	NR_WAKE
};

static const char * const wake_name[NR_WAKE] = {
	"wake_poll", "wake_ipi", "wake_timer", "wake_other",
};

/* Counts of rounds that began and ended while measuring. */
enum {
	IR_ROUNDS,
	IR_REENTRIES,
	IR_SWITCHED,
	IR_SWITCHED_FAIR,	/* switched rounds that ran a fair task first */
	IR_SWITCHED_PICK,	/* switched rounds that hit the pick hook */
	IR_PICK_FAIR,		/* re-entries that reached the fair pick */
	IR_PICK_IDLE,		/* re-entries that reached the idle class's pick */
	IR_NEWIDLE,
	IR_PICKED,		/* re-entries that made any pick: not fast */
	IR_WOKE,		/* IR_WOKE + WAKE_*: what pulled the CPU out */
	IR_NR_COUNT = IR_WOKE + NR_WAKE
};

/* The result's keys of the counts before IR_PICKED, in their order. */
static const char * const ir_count_name[IR_PICKED] = {
	"rounds", "reentries", "switched", "switched_fair", "switched_pick",
	"pick_fair", "pick_idle", "newidle",
};

struct ir_count {
	u64 v[IR_NR_COUNT];
};

/*
 * Per measured CPU; written only by hooks running on that CPU. Each is its
 * own allocation, cache-line aligned, so CPUs never share a line.
 */
struct ir_cpu {
	/* The round in progress. */
	u64 t_tick;
	u64 t_flush;
	u64 t_sched;
	unsigned long nivcsw;
	bool armed;		/* began while measuring */
	bool to_fair;		/* schedule_idle() switched to a fair task */
	unsigned int phase;
	unsigned int wake;
	unsigned int pick_fair;
	unsigned int pick_idle;
	unsigned int newidle;
	unsigned int fired;	/* BIT(hook index) of every hook hit here */
	bool idle_ran;		/* the idle task ran here while measuring */

	struct ir_count n;
	struct ips_hist tick;
	struct ips_hist flush;
	struct ips_hist sched;
	struct ips_hist total;
} ____cacheline_aligned_in_smp;

enum { PHASE_NONE, PHASE_TICK, PHASE_FLUSH, PHASE_SCHED };

enum {
	IR_HOOK_DO_IDLE, IR_HOOK_FLUSH, IR_HOOK_SCHEDULE_IDLE, IR_HOOK_PICK, IR_HOOK_NEWIDLE,
	IR_HOOK_WAKE_POLL, IR_HOOK_WAKE_IPI, IR_HOOK_WAKE_TIMER, IR_HOOK_TICK,
	IR_HOOK_PICK_IDLE, IR_HOOK_PICK_IDLE_NEXT, IR_HOOK_PICK_CORE, IR_NR_HOOKS
};

static struct ir_cpu **ir_state __read_mostly;	/* [nr_cpu_ids], NULL when unmeasured */
static cpumask_var_t ir_mask;
static u64 ir_hook_ps;		/* measured cost of one hook hit, ps */

/* ---- the measurement --------------------------------------------------- */

static inline struct ir_cpu *ir_this(void)
{
	return ir_state[raw_smp_processor_id()];
}

/*
 * Hooks: each callback works on this CPU's state. They run with preemption
 * off (idle task, runqueue lock or hard IRQ); the recursion lock that
 * ir_hook_enter() takes keeps that true and guards against recursion
 * through anything they call.
 */

/*
 * The start of every counting hook: the recursion lock and this CPU's
 * state. NULL (nothing held) when the hook recursed or the CPU is not
 * measured; otherwise the hook ends with ips_hook_exit(*bit).
 */
static __always_inline struct ir_cpu *ir_hook_enter(unsigned long ip,
						    unsigned long parent_ip,
						    int *bit)
{
	struct ir_cpu *c;

	*bit = ips_hook_enter(ip, parent_ip);
	if (*bit < 0)
		return NULL;
	c = ir_this();
	if (!c)
		ips_hook_exit(*bit);
	return c;
}

static void ir_round_end(struct ir_cpu *c, u64 now)
{
	u64 *n = c->n.v;
	unsigned int w;

	n[IR_ROUNDS]++;
	if (c->phase != PHASE_SCHED)
		return;
	if (current->nivcsw != c->nivcsw) {
		/* schedule_idle() ran another task before coming back. */
		n[IR_SWITCHED]++;
		n[IR_SWITCHED_FAIR] += c->to_fair;
		n[IR_SWITCHED_PICK] += !!c->pick_fair;
		return;
	}
	n[IR_REENTRIES]++;
	ips_hist_add(&c->tick, c->t_flush - c->t_tick);
	ips_hist_add(&c->flush, c->t_sched - c->t_flush);
	ips_hist_add(&c->sched, now - c->t_sched);
	ips_hist_add(&c->total, now - c->t_tick);
	n[IR_PICK_FAIR] += !!c->pick_fair;
	n[IR_PICK_IDLE] += !!c->pick_idle;
	n[IR_PICKED] += c->pick_fair || c->pick_idle;
	n[IR_NEWIDLE] += !!c->newidle;
	for (w = 0; w < WAKE_OTHER; w++)
		if (c->wake & BIT(w))
			break;
	n[IR_WOKE + w]++;
}

/*
 * Only the do_idle() hook reads whether the session measures: at the top of
 * each round it both ends the previous round, which counts only if it
 * began and ends while measuring, and arms the next.
 */
static void ir_do_idle(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct ir_cpu *c;
	bool measuring;
	int bit;

	c = ir_hook_enter(ip, parent_ip, &bit);
	if (!c)
		return;
	measuring = ips_session_measuring(&ir_session);
	c->fired |= BIT(IR_HOOK_DO_IDLE);
	if (measuring && c->armed)
		ir_round_end(c, sched_clock());
	c->armed = measuring;
	c->to_fair = false;
	c->phase = PHASE_NONE;
	c->wake = 0;
	c->pick_fair = 0;
	c->pick_idle = 0;
	c->newidle = 0;
	ips_hook_exit(bit);
}

/*
 * The CPU left the polling loop: do_idle() restarts the tick, which the
 * idle entry may have stopped, and clears the polling flag before it runs
 * what was queued. With the tick stopped the restart reprograms the timer.
 */
static void ir_tick(unsigned long ip, unsigned long parent_ip,
		    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct ir_cpu *c;
	int bit;

	c = ir_hook_enter(ip, parent_ip, &bit);
	if (!c)
		return;
	c->fired |= BIT(IR_HOOK_TICK);
	if (c->phase == PHASE_NONE && is_idle_task(current) && !in_hardirq()) {
		c->t_tick = sched_clock();
		c->phase = PHASE_TICK;
	}
	ips_hook_exit(bit);
}

/* Without the tick's hook (a kernel without NO_HZ) the round starts here. */
static void ir_flush(unsigned long ip, unsigned long parent_ip,
		     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct ir_cpu *c;
	int bit;

	c = ir_hook_enter(ip, parent_ip, &bit);
	if (!c)
		return;
	c->fired |= BIT(IR_HOOK_FLUSH);
	if (c->phase <= PHASE_TICK && is_idle_task(current) && !in_hardirq()) {
		c->t_flush = sched_clock();
		if (c->phase == PHASE_NONE)
			c->t_tick = c->t_flush;
		c->phase = PHASE_FLUSH;
	}
	ips_hook_exit(bit);
}

static void ir_schedule_idle(unsigned long ip, unsigned long parent_ip,
			     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct ir_cpu *c;
	int bit;

	c = ir_hook_enter(ip, parent_ip, &bit);
	if (!c)
		return;
	c->fired |= BIT(IR_HOOK_SCHEDULE_IDLE);
	if (c->phase == PHASE_FLUSH) {
		c->t_sched = sched_clock();
		c->nivcsw = current->nivcsw;
		c->phase = PHASE_SCHED;
	}
	ips_hook_exit(bit);
}

/*
 * A pick made while the idle task is inside schedule_idle(), seen by the
 * hook @h, of the idle class or the fair one: in a re-entry the picks tell the slow path from
 * SM_IDLE's fast one; in a round that switched to a task they prove that
 * the hook fires at all.
 */
static __always_inline void ir_pick(unsigned long ip, unsigned long parent_ip,
				    unsigned int h, bool idle_class)
{
	struct ir_cpu *c;
	int bit;

	c = ir_hook_enter(ip, parent_ip, &bit);
	if (!c)
		return;
	c->fired |= BIT(h);
	if (c->phase == PHASE_SCHED && is_idle_task(current)) {
		if (idle_class)
			c->pick_idle++;
		else
			c->pick_fair++;
	}
	ips_hook_exit(bit);
}

static void ir_pick_fair(unsigned long ip, unsigned long parent_ip,
			 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	ir_pick(ip, parent_ip, IR_HOOK_PICK, false);
}

/*
 * Core scheduling picks through the class's pick_task(), the fair class's
 * pick_task_fair(), never through pick_next_task_fair(): counted as the
 * fair pick, where the fair pick's hook is on pick_next_task_fair().
 */
static void ir_pick_core(unsigned long ip, unsigned long parent_ip,
			 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	ir_pick(ip, parent_ip, IR_HOOK_PICK_CORE, false);
}

/*
 * The idle class's pick: where every pick on an empty runqueue ends,
 * through the fair class's shortcut (__pick_next_task()), the loop over
 * the classes, core scheduling's pick_task() or with sched_ext enabled,
 * none of which calls pick_next_task_fair(). It fires wherever a task
 * leaves the CPU idle (its proof); counted in a re-entry like the fair
 * pick. 6.12 has one, pick_task_idle(); 6.1 two: pick_next_task_idle()
 * and pick_task_idle(), which only core scheduling calls.
 */
static void ir_pick_task_idle(unsigned long ip, unsigned long parent_ip,
			      struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	ir_pick(ip, parent_ip, IR_HOOK_PICK_IDLE, true);
}

static void ir_pick_next_task_idle(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op,
				   struct ftrace_regs *fregs)
{
	ir_pick(ip, parent_ip, IR_HOOK_PICK_IDLE_NEXT, true);
}

static void ir_newidle(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct ir_cpu *c;
	int bit;

	c = ir_hook_enter(ip, parent_ip, &bit);
	if (!c)
		return;
	c->fired |= BIT(IR_HOOK_NEWIDLE);
	if (c->phase == PHASE_SCHED && is_idle_task(current))
		c->newidle++;
	ips_hook_exit(bit);
}

/*
 * What pulled the CPU out of idle since the round began, @w, seen by the
 * hook @h. The queue flush only counts as a polling wake-up when the idle
 * task itself runs it.
 */
static __always_inline void ir_wake(unsigned long ip, unsigned long parent_ip,
				    unsigned int h, unsigned int w)
{
	struct ir_cpu *c;
	int bit;

	c = ir_hook_enter(ip, parent_ip, &bit);
	if (!c)
		return;
	c->fired |= BIT(h);
	if (w != WAKE_POLL || (is_idle_task(current) && !in_hardirq()))
		c->wake |= BIT(w);
	ips_hook_exit(bit);
}

static void ir_wake_poll(unsigned long ip, unsigned long parent_ip,
			 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	ir_wake(ip, parent_ip, IR_HOOK_WAKE_POLL, WAKE_POLL);
}

static void ir_wake_ipi(unsigned long ip, unsigned long parent_ip,
			struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	ir_wake(ip, parent_ip, IR_HOOK_WAKE_IPI, WAKE_IPI);
}

static void ir_wake_timer(unsigned long ip, unsigned long parent_ip,
			  struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	ir_wake(ip, parent_ip, IR_HOOK_WAKE_TIMER, WAKE_TIMER);
}

/*
 * sched_switch away from the idle task inside schedule_idle(): whether the
 * task it switched to is a fair one, whose pick goes through the fair
 * class's pick (a stop, real-time or deadline task's does not: the soft
 * lockup watchdog, for one, runs in the stop class on every CPU).
 */
static void ir_switch_probe(void *data, bool preempt, struct task_struct *prev,
			    struct task_struct *next, unsigned int prev_state)
{
	struct ir_cpu *c;

	if (!is_idle_task(prev))
		return;
	c = ir_this();
	if (!c)
		return;
	if (ips_session_measuring(&ir_session))
		c->idle_ran = true;
	if (c->phase == PHASE_SCHED)
		c->to_fair = next->prio >= MAX_RT_PRIO;
}

static struct tracepoint *ir_tp_switch;

static struct ips_hook ir_hooks[] = {
	[IR_HOOK_DO_IDLE] = {
		.names = IPS_HOOK_NAMES("do_idle"),
		.func = ir_do_idle,
		.required = true,
	},
	[IR_HOOK_FLUSH] = {
		.names = IPS_HOOK_NAMES("flush_smp_call_function_queue"),
		.func = ir_flush,
		.required = true,
	},
	[IR_HOOK_SCHEDULE_IDLE] = {
		.names = IPS_HOOK_NAMES("schedule_idle"),
		.func = ir_schedule_idle,
		.required = true,
	},
	/* 7.x inlines pick_next_task_fair(); the fair class's pick remains. */
	[IR_HOOK_PICK] = {
		.names = IPS_HOOK_NAMES("pick_next_task_fair", "pick_task_fair"),
		.func = ir_pick_fair,
		.required = true,
	},
	[IR_HOOK_NEWIDLE] = {
		.names = IPS_HOOK_NAMES("sched_balance_newidle",
					"newidle_balance"),
		.func = ir_newidle,
	},
	[IR_HOOK_WAKE_POLL] = {
		.names = IPS_HOOK_NAMES("__flush_smp_call_function_queue"),
		.func = ir_wake_poll,
	},
	[IR_HOOK_WAKE_IPI] = {
		.names = IPS_HOOK_NAMES("generic_smp_call_function_single_interrupt"),
		.func = ir_wake_ipi,
	},
	[IR_HOOK_WAKE_TIMER] = {
		.names = IPS_HOOK_NAMES("hrtimer_interrupt"),
		.func = ir_wake_timer,
	},
	/* Absent where the kernel has no NO_HZ: no tick phase then. */
	[IR_HOOK_TICK] = {
		.names = IPS_HOOK_NAMES("tick_nohz_idle_exit"),
		.func = ir_tick,
	},
	[IR_HOOK_PICK_IDLE] = {
		.names = IPS_HOOK_NAMES("pick_task_idle"),
		.func = ir_pick_task_idle,
		.required = true,
	},
	/* 6.1 only; 6.2 and later pick the idle task with pick_task_idle(). */
	[IR_HOOK_PICK_IDLE_NEXT] = {
		.names = IPS_HOOK_NAMES("pick_next_task_idle"),
		.func = ir_pick_next_task_idle,
	},
	/*
	 * Absent without CONFIG_SCHED_CORE before 6.12; on 7.x the fair
	 * pick's own hook, which then keeps it (ips_hooks_register()).
	 */
	[IR_HOOK_PICK_CORE] = {
		.names = IPS_HOOK_NAMES("pick_task_fair"),
		.func = ir_pick_core,
	},
};

static struct ips_hook_set ir_hook_set = {
	.hooks = ir_hooks,
	.n = ARRAY_SIZE(ir_hooks),
	.decoy = "ir_calib_target",
};

/*
 * Remove every probe, their grace periods at once; returns once no CPU is
 * inside any.
 */
static void ir_unhook(void)
{
	ips_hooks_unregister_start(&ir_hook_set);
	if (ir_tp_switch) {
		tracepoint_probe_unregister(ir_tp_switch, (void *)ir_switch_probe,
					    NULL);
		tracepoint_synchronize_unregister();
		ir_tp_switch = NULL;
	}
	ips_hooks_unregister_wait(&ir_hook_set);
}

/*
 * Register every hook (the fair pick only with pick_hook=1). The order does
 * not matter: nothing is counted until the session measures.
 */
static int ir_hook(void)
{
	int ret;

	ir_tp_switch = ips_tp_find("sched_switch");
	if (!ir_tp_switch) {
		pr_err("no sched_switch tracepoint on this kernel\n");
		return -ENOENT;
	}
	ret = tracepoint_probe_register(ir_tp_switch, (void *)ir_switch_probe,
					NULL);
	if (ret) {
		pr_err("cannot attach to sched_switch: %d\n", ret);
		ir_tp_switch = NULL;
		return ret;
	}
	ir_hooks[IR_HOOK_PICK].skip = !pick_hook;
	ir_hooks[IR_HOOK_PICK_CORE].skip = !pick_hook;
	ir_hook_set.misname = test_misname;
	ret = ips_hooks_register(&ir_hook_set);
	if (ret)
		ir_unhook();
	return ret;
}

/*
 * Hook overhead: time calls of an empty function with and without a hook
 * like the counting ones on it; the best of three runs of each.
 */
static noinline void ir_calib_target(void)
{
	barrier();
}

static struct ir_cpu *ir_calib_state;

static inline struct ir_cpu *ir_calib_this(void)
{
	return READ_ONCE(ir_calib_state);
}

/* Like a counting hook: the recursion lock, the state, one clock read. */
static void ir_calib_hook(unsigned long ip, unsigned long parent_ip,
			  struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	int bit = ips_hook_enter(ip, parent_ip);
	struct ir_cpu *c;

	if (bit < 0)
		return;
	c = ir_calib_this();
	if (c && c->phase == PHASE_NONE)
		c->t_flush = sched_clock();
	ips_hook_exit(bit);
}

static u64 ir_calib_run(void)
{
	u64 best = U64_MAX, t0;
	int r, i;

	for (r = 0; r < 3; r++) {
		preempt_disable();
		t0 = sched_clock();
		for (i = 0; i < CALIB_CALLS; i++)
			ir_calib_target();
		best = min(best, sched_clock() - t0);
		preempt_enable();
		cond_resched();
	}
	return best;
}

static struct ips_hook ir_calib_hooks[] = {
	{
		.names = IPS_HOOK_NAMES("ir_calib_target"),
		.func = ir_calib_hook,
		.required = true,
	},
};

/* Through a set, as the counting hooks: their lookup is in the cost. */
static struct ips_hook_set ir_calib_set = {
	.hooks = ir_calib_hooks,
	.n = ARRAY_SIZE(ir_calib_hooks),
};

static void ir_calibrate(void)
{
	u64 plain, hooked;

	ir_calib_state = kzalloc(sizeof(*ir_calib_state), GFP_KERNEL);
	if (!ir_calib_state)
		return;
	plain = ir_calib_run();
	if (!ips_hooks_register(&ir_calib_set) && ir_calib_set.registered) {
		hooked = ir_calib_run();
		ips_hooks_unregister(&ir_calib_set);
		if (hooked > plain)
			ir_hook_ps = div_u64((hooked - plain) * 1000,
					     CALIB_CALLS);
	}
	kfree(ir_calib_state);
	ir_calib_state = NULL;
}

/* ---- the report -------------------------------------------------------- */

static void ir_emit_count(struct seq_buf *sb, const char *pfx,
			  const struct ir_count *n)
{
	const u64 *v = n->v;
	unsigned int i;

	for (i = 0; i < IR_PICKED; i++)
		seq_buf_printf(sb, "%s%s=%llu\n", pfx, ir_count_name[i], v[i]);
	ips_result_pct(sb, pfx, "pick_fair_pct", v[IR_PICK_FAIR],
		       v[IR_REENTRIES]);
	ips_result_pct(sb, pfx, "pick_idle_pct", v[IR_PICK_IDLE],
		       v[IR_REENTRIES]);
	ips_result_pct(sb, pfx, "fast_pct", v[IR_REENTRIES] - v[IR_PICKED],
		       v[IR_REENTRIES]);
	for (i = 0; i < NR_WAKE; i++)
		seq_buf_printf(sb, "%s%s=%llu\n", pfx, wake_name[i],
			       v[IR_WOKE + i]);
}

static void ir_emit_hists(struct seq_buf *sb, const char *pfx,
			  const struct ir_cpu *c, bool buckets)
{
	if (ir_hooks[IR_HOOK_TICK].hooked)
		ips_hist_emit(sb, pfx, "tick", &c->tick, buckets);
	ips_hist_emit(sb, pfx, "flush", &c->flush, buckets);
	ips_hist_emit(sb, pfx, "sched", &c->sched, buckets);
	ips_hist_emit(sb, pfx, "total", &c->total, buckets);
}

static void ir_count_add(struct ir_count *sum, const struct ir_count *n)
{
	unsigned int i;

	for (i = 0; i < IR_NR_COUNT; i++)
		sum->v[i] += n->v[i];
}

/*
 * Whether the pick hook showed that it fires: a measurement whose rounds
 * switched to a fair task without one pick hit cannot tell SM_IDLE's fast
 * path from a hook that never fires, so its fast_pct is unproven.
 */
static const char *ir_pick_proof(const struct ir_count *t)
{
	if (t->v[IR_SWITCHED_PICK] || t->v[IR_PICK_FAIR])
		return "proven";
	if (t->v[IR_SWITCHED_FAIR])
		return "unproven";
	return "untested";
}

/*
 * Every hook's proof, from where it fired on the measured CPUs and an
 * independent sign that its function ran there: the idle task ran
 * (sched_switch) for do_idle; a round ended (do_idle again) for the tick's
 * restart, the flush and schedule_idle(), which every round calls; a
 * re-entry called the fair pick, which calls the newidle balance when it
 * finds nothing; a real IPI came
 * (generic_smp_call_function_single_interrupt) for the queue flush, which
 * that handler calls. The fair pick keeps its own proof above; the
 * IPI and timer hooks have no such sign: fired or untested.
 */
static void ir_proofs(const struct ir_count *t, enum ips_hook_proof *p)
{
	unsigned int fired = 0;
	bool idle_ran = false;
	int cpu;

	for_each_cpu(cpu, ir_mask) {
		fired |= ir_state[cpu]->fired;
		idle_ran |= ir_state[cpu]->idle_ran;
	}
#define FIRED(h) (!!(fired & BIT(h)))
	p[IR_HOOK_DO_IDLE] = ips_hook_prove(FIRED(IR_HOOK_DO_IDLE), idle_ran);
	p[IR_HOOK_FLUSH] = ips_hook_prove(FIRED(IR_HOOK_FLUSH), t->v[IR_ROUNDS]);
	p[IR_HOOK_SCHEDULE_IDLE] = ips_hook_prove(FIRED(IR_HOOK_SCHEDULE_IDLE), t->v[IR_ROUNDS]);
	p[IR_HOOK_PICK] = !strcmp(ir_pick_proof(t), "proven") ? IPS_HOOK_PROVEN :
		       !strcmp(ir_pick_proof(t), "unproven") ? IPS_HOOK_UNPROVEN :
		       IPS_HOOK_UNTESTED;
	p[IR_HOOK_NEWIDLE] = ips_hook_prove(FIRED(IR_HOOK_NEWIDLE), t->v[IR_PICK_FAIR]);
	p[IR_HOOK_WAKE_POLL] = ips_hook_prove(FIRED(IR_HOOK_WAKE_POLL),
					      FIRED(IR_HOOK_WAKE_IPI));
	p[IR_HOOK_WAKE_IPI] = ips_hook_prove(FIRED(IR_HOOK_WAKE_IPI), false);
	p[IR_HOOK_WAKE_TIMER] = ips_hook_prove(FIRED(IR_HOOK_WAKE_TIMER), false);
	p[IR_HOOK_TICK] = ips_hook_prove(FIRED(IR_HOOK_TICK), t->v[IR_ROUNDS]);
	/*
	 * A round that switched to a task came back to idle through a pick
	 * (the idle class's, once the task left): 6.1's pick_task_idle()
	 * only with core scheduling, fired or untested.
	 */
	p[IR_HOOK_PICK_IDLE_NEXT] = ips_hook_prove(FIRED(IR_HOOK_PICK_IDLE_NEXT),
						   t->v[IR_SWITCHED]);
	p[IR_HOOK_PICK_CORE] = ips_hook_prove(FIRED(IR_HOOK_PICK_CORE), false);
	p[IR_HOOK_PICK_IDLE] = ips_hook_prove(FIRED(IR_HOOK_PICK_IDLE),
					      t->v[IR_SWITCHED] &&
				       !ir_hooks[IR_HOOK_PICK_IDLE_NEXT].hooked);
#undef FIRED
}

static unsigned int ir_unproven(const struct ir_count *t)
{
	enum ips_hook_proof p[IR_NR_HOOKS];
	unsigned int i, n = 0;

	ir_proofs(t, p);
	for (i = 0; i < IR_NR_HOOKS; i++)
		/* Without the pick hook (pick_hook=0) fast_pct is unproven too. */
		n += (ir_hooks[i].hooked || i == IR_HOOK_PICK) &&
		     p[i] == IPS_HOOK_UNPROVEN;
	return n;
}

static const char *ir_status(const struct ir_count *t, bool interrupted)
{
	if (interrupted)
		return "interrupted";
	if (ir_unproven(t))
		return "unproven";
	return "complete";
}

static void ir_total(struct ir_count *t)
{
	int cpu;

	memset(t, 0, sizeof(*t));
	for_each_cpu(cpu, ir_mask)
		ir_count_add(t, &ir_state[cpu]->n);
}

static void ir_emit(struct seq_buf *sb, bool interrupted)
{
	enum ips_hook_proof proofs[IR_NR_HOOKS];
	struct ir_count tot;
	struct ir_cpu *all;
	char pfx[24];
	int cpu;

	ir_total(&tot);
	seq_buf_printf(sb, "format=%s\n", IR_FORMAT);
	seq_buf_printf(sb, "suite=%s\n", IPISTORM_SUITE_VERSION);
	seq_buf_printf(sb, "kernel=%s\n", init_utsname()->release);
	seq_buf_printf(sb, "mode=%s\n", duration ? "timed" : "until_stop");
	seq_buf_printf(sb, "cpulist=%*pbl\n", cpumask_pr_args(ir_mask));
	seq_buf_printf(sb, "status=%s\n", ir_status(&tot, interrupted));
	seq_buf_printf(sb, "measured_ns=%llu\n",
		       ir_session.stop_ns - ir_session.start_ns);
	ips_hooks_emit(sb, &ir_hook_set, "sched_switch");
	seq_buf_printf(sb, "pick_hook=%s\n", ir_pick_proof(&tot));
	ir_proofs(&tot, proofs);
	ips_hooks_emit_proofs(sb, &ir_hook_set, proofs);
	ips_result_ratio(sb, "", "hook_ns", ir_hook_ps, 1000);

	all = vzalloc(sizeof(*all));
	if (all) {
		ips_hist_init(&all->tick);
		ips_hist_init(&all->flush);
		ips_hist_init(&all->sched);
		ips_hist_init(&all->total);
	}
	for_each_cpu(cpu, ir_mask) {
		const struct ir_cpu *c = ir_state[cpu];

		snprintf(pfx, sizeof(pfx), "cpu%d.", cpu);
		ir_emit_count(sb, pfx, &c->n);
		ir_emit_hists(sb, pfx, c, true);
		if (!all)
			continue;
		ips_hist_merge(&all->tick, &c->tick);
		ips_hist_merge(&all->flush, &c->flush);
		ips_hist_merge(&all->sched, &c->sched);
		ips_hist_merge(&all->total, &c->total);
	}
	ir_emit_count(sb, "total.", &tot);
	if (all)
		ir_emit_hists(sb, "total.", all, false);
	vfree(all);
}

static size_t ir_result_size(void)
{
	size_t size = 4096;
	int cpu;

	for_each_cpu(cpu, ir_mask) {
		const struct ir_cpu *c = ir_state[cpu];

		size += 2048 + 64 * (ips_hist_used(&c->tick) +
				     ips_hist_used(&c->flush) +
				     ips_hist_used(&c->sched) +
				     ips_hist_used(&c->total));
	}
	return size;
}

/*
 * The measurement has ended: unhook (once that returns, every hook that
 * counted has returned), then print and publish the result.
 */
static void ir_finish(bool interrupted)
{
	struct ir_count tot;

	ir_unhook();
	ir_total(&tot);
	if (!interrupted && !strcmp(ir_pick_proof(&tot), "unproven"))
		pr_warn("the pick hook never fired in %llu rounds that switched to a fair task: fast_pct is unproven\n",
			tot.v[IR_SWITCHED_FAIR]);
	if (!interrupted && ir_unproven(&tot))
		pr_warn("%u hooks never fired where their function ran: their figures are unproven (proof.* in the result)\n",
			ir_unproven(&tot));
	ips_result_report(&ir_session.result, KBUILD_MODNAME, ir_result_size(),
			  ir_emit, interrupted);
}

/* ---- init and exit ----------------------------------------------------- */

static void ir_free_state(void)
{
	ips_session_cpus_free((void **)ir_state, ir_mask);
	ir_state = NULL;
	free_cpumask_var(ir_mask);
}

static int ir_parse(void)
{
	int cpu, ret;

	if (duration > MAX_DURATION_S) {
		pr_err("duration=%u: more than %u seconds\n", duration,
		       MAX_DURATION_S);
		return -EINVAL;
	}
	if (!cpulist.val) {
		pr_err("cpulist=(unset): name the CPUs to measure\n");
		return -EINVAL;
	}
	if (!zalloc_cpumask_var(&ir_mask, GFP_KERNEL))
		return -ENOMEM;
	ret = ips_cpus_parse_online("cpulist", cpulist.val, ir_mask);
	if (ret)
		goto err;
	ret = -ENOMEM;
	ir_state = (struct ir_cpu **)ips_session_cpus_alloc(ir_mask,
							sizeof(struct ir_cpu));
	if (!ir_state)
		goto err;
	for_each_cpu(cpu, ir_mask) {
		ips_hist_init(&ir_state[cpu]->tick);
		ips_hist_init(&ir_state[cpu]->flush);
		ips_hist_init(&ir_state[cpu]->sched);
		ips_hist_init(&ir_state[cpu]->total);
	}
	ir_calibrate();
	return 0;
err:
	ir_free_state();
	return ret;
}

/*
 * insmod: check the parameters and set up the state, put every hook in
 * place, then measure: for duration= seconds here, or until stopped.
 */
static int __init ir_init(void)
{
	int ret;

	ret = ir_parse();
	if (ret)
		return ret;
	ips_session_lock(&ir_session);
	ret = ir_hook();
	if (ret) {
		ips_session_unlock(&ir_session);
		ir_free_state();
		return ret;
	}
	ips_session_start(&ir_session, duration);
	ips_session_unlock(&ir_session);
	ips_result_log_params("start");

	if (!duration)
		return ips_session_control(&ir_session);
	ret = ips_session_sleep(&ir_session);
	if (ret)
		ir_free_state();
	return ret;
}

/* rmmod: stop a measurement that still runs, then free everything. */
static void __exit ir_exit(void)
{
	ips_session_exit(&ir_session);
	ips_session_lock(&ir_session);
	ir_free_state();
	ips_session_unlock(&ir_session);
}

module_init(ir_init);
module_exit(ir_exit);

MODULE_DESCRIPTION("Idle re-entry timing and SM_IDLE fast-path detection through ftrace hooks");
MODULE_AUTHOR("The ipistorm authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(IPISTORM_SUITE_VERSION);
