// SPDX-License-Identifier: GPL-2.0
/*
 * idle_reentry - time idle re-entry on chosen CPUs through ftrace hooks.
 *
 * A re-entry is one round of the idle loop that left the polling loop, ran
 * what was queued (flush_smp_call_function_queue()), called schedule_idle()
 * and came back to the top of do_idle() without running another task. Per
 * CPU it times the phases of each re-entry, counts how many called
 * pick_next_task_fair() and sched_balance_newidle() (SM_IDLE, Linux 6.12,
 * skips both when the runqueue is empty) and tells what pulled the CPU out
 * of idle: a call-function "IPI" taken by polling, a real IPI, a timer
 * interrupt or something else.
 *
 *   insmod idle_reentry.ko cpulist=16 duration=10   # measure 10 s, then report
 *   insmod idle_reentry.ko cpulist=16               # measure until stopped:
 *   echo stop > /sys/kernel/debug/idle_reentry/control
 *
 * The result is printed to the kernel log and kept in
 * /sys/kernel/debug/idle_reentry/result until rmmod.
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
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/trace_recursion.h>
#include <linux/utsname.h>
#include <linux/vmalloc.h>

#include "../common/hist.h"
#include "../common/hook.h"
#include "../common/result.h"

#define IR_FORMAT		"idle_reentry/1"
#define MAX_DURATION_S		3600U
#define CALIB_CALLS		20000

static char *cpulist;
module_param(cpulist, charp, 0444);
MODULE_PARM_DESC(cpulist, "CPUs to measure, kernel cpulist syntax such as 16 or 8-15 (required)");

static unsigned int duration;
module_param(duration, uint, 0444);
MODULE_PARM_DESC(duration, "Measure for this long inside insmod, then report (seconds, default 0: measure until 'stop' is written to debugfs control or rmmod; max 3600)");

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

/* Per measured CPU; written only by hooks running on that CPU. */
struct ir_cpu {
	/* The round in progress. */
	u64 t_flush;
	u64 t_sched;
	unsigned long nivcsw;
	unsigned int phase;
	unsigned int wake;
	unsigned int pick_fair;
	unsigned int newidle;

	/* Totals. */
	u64 rounds;
	u64 reentries;
	u64 switched;
	u64 reentry_pick_fair;
	u64 reentry_newidle;
	u64 woke[NR_WAKE];
	struct hist flush;
	struct hist sched;
	struct hist total;
} ____cacheline_aligned_in_smp;

enum { PHASE_NONE, PHASE_FLUSH, PHASE_SCHED };

static struct ir_cpu **ir_state;	/* [nr_cpu_ids], NULL when unmeasured */
static cpumask_var_t ir_mask;

static inline struct ir_cpu *ir_this(void)
{
	return ir_state[raw_smp_processor_id()];
}

/*
 * Hooks: IR_HOOK(name) wraps the body name_on() that precedes it, which
 * works on this CPU's state. They run with preemption off (idle task,
 * runqueue lock or hard IRQ); the recursion lock HOOK_ON() takes keeps that
 * true and guards against recursion through anything they call.
 */
#define IR_HOOK(name) HOOK_ON(name, ir_this)

static void ir_round_end(struct ir_cpu *c, u64 now)
{
	unsigned int w;

	if (c->phase != PHASE_SCHED)
		return;
	if (current->nivcsw != c->nivcsw) {
		/* schedule_idle() ran another task before coming back. */
		c->switched++;
		return;
	}
	c->reentries++;
	hist_add(&c->flush, c->t_sched - c->t_flush);
	hist_add(&c->sched, now - c->t_sched);
	hist_add(&c->total, now - c->t_flush);
	c->reentry_pick_fair += !!c->pick_fair;
	c->reentry_newidle += !!c->newidle;
	for (w = 0; w < WAKE_OTHER; w++)
		if (c->wake & BIT(w))
			break;
	c->woke[w]++;
}

static __always_inline void ir_do_idle_on(struct ir_cpu *c)
{
	ir_round_end(c, sched_clock());
	c->rounds++;
	c->phase = PHASE_NONE;
	c->wake = 0;
	c->pick_fair = 0;
	c->newidle = 0;
}

IR_HOOK(ir_do_idle)

static __always_inline void ir_flush_on(struct ir_cpu *c)
{
	if (c->phase == PHASE_NONE && is_idle_task(current) && !in_hardirq()) {
		c->t_flush = sched_clock();
		c->phase = PHASE_FLUSH;
	}
}

IR_HOOK(ir_flush)

static __always_inline void ir_schedule_idle_on(struct ir_cpu *c)
{
	if (c->phase == PHASE_FLUSH) {
		c->t_sched = sched_clock();
		c->nivcsw = current->nivcsw;
		c->phase = PHASE_SCHED;
	}
}

IR_HOOK(ir_schedule_idle)

/* Calls made while the idle task is inside schedule_idle(). */
static __always_inline void ir_pick_fair_on(struct ir_cpu *c)
{
	if (c->phase == PHASE_SCHED && is_idle_task(current))
		c->pick_fair++;
}

IR_HOOK(ir_pick_fair)

static __always_inline void ir_newidle_on(struct ir_cpu *c)
{
	if (c->phase == PHASE_SCHED && is_idle_task(current))
		c->newidle++;
}

IR_HOOK(ir_newidle)

/*
 * Mark what happened on this CPU since the round began. The queue flush
 * only counts as a polling wake-up when the idle task itself runs it.
 */
static __always_inline void ir_wake_poll_on(struct ir_cpu *c)
{
	if (is_idle_task(current) && !in_hardirq())
		c->wake |= BIT(WAKE_POLL);
}

IR_HOOK(ir_wake_poll)

static __always_inline void ir_wake_ipi_on(struct ir_cpu *c)
{
	c->wake |= BIT(WAKE_IPI);
}

IR_HOOK(ir_wake_ipi)

static __always_inline void ir_wake_timer_on(struct ir_cpu *c)
{
	c->wake |= BIT(WAKE_TIMER);
}

IR_HOOK(ir_wake_timer)

static struct hook ir_hooks[] = {
	{ HOOK_NAMES("do_idle"), ir_do_idle, true },
	{ HOOK_NAMES("flush_smp_call_function_queue"), ir_flush, true },
	{ HOOK_NAMES("schedule_idle"), ir_schedule_idle, true },
	/* 7.x inlines pick_next_task_fair(); the fair class's pick remains. */
	{ HOOK_NAMES("pick_next_task_fair", "pick_task_fair"), ir_pick_fair,
	  true },
	{ HOOK_NAMES("sched_balance_newidle", "newidle_balance"), ir_newidle },
	{ HOOK_NAMES("__flush_smp_call_function_queue"), ir_wake_poll },
	{ HOOK_NAMES("generic_smp_call_function_single_interrupt"),
	  ir_wake_ipi },
	{ HOOK_NAMES("hrtimer_interrupt"), ir_wake_timer },
};

static DEFINE_MUTEX(ir_lock);
static bool ir_running;
static u64 ir_start_ns, ir_stop_ns;
static u64 ir_hook_ps;		/* measured cost of one hook hit, ps */
static struct result result;

static void ir_unhook(void)
{
	hooks_unregister(ir_hooks, ARRAY_SIZE(ir_hooks));
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

static __always_inline void ir_calib_hook_on(struct ir_cpu *c)
{
	if (c->phase == PHASE_NONE)
		c->t_flush = sched_clock();
}

HOOK_ON(ir_calib_hook, ir_calib_this)

static u64 __init ir_calib_run(void)
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

static void __init ir_calibrate(void)
{
	static struct ftrace_ops ops = { .func = ir_calib_hook };
	unsigned char name[] = "ir_calib_target";
	u64 plain, hooked;

	ir_calib_state = kzalloc(sizeof(*ir_calib_state), GFP_KERNEL);
	if (!ir_calib_state)
		return;
	plain = ir_calib_run();
	if (!ftrace_set_filter(&ops, name, strlen(name), 1)) {
		if (!register_ftrace_function(&ops)) {
			hooked = ir_calib_run();
			unregister_ftrace_function(&ops);
			if (hooked > plain)
				ir_hook_ps = div_u64((hooked - plain) * 1000,
						     CALIB_CALLS);
		}
		ftrace_free_filter(&ops);
	}
	kfree(ir_calib_state);
	ir_calib_state = NULL;
}

static void ir_emit_cpu(struct seq_buf *sb, const char *pfx,
			const struct ir_cpu *c, bool buckets)
{
	unsigned int w;

	seq_buf_printf(sb, "%srounds=%llu\n", pfx, c->rounds);
	seq_buf_printf(sb, "%sreentries=%llu\n", pfx, c->reentries);
	seq_buf_printf(sb, "%sswitched=%llu\n", pfx, c->switched);
	seq_buf_printf(sb, "%spick_fair=%llu\n", pfx, c->reentry_pick_fair);
	seq_buf_printf(sb, "%snewidle=%llu\n", pfx, c->reentry_newidle);
	result_pct(sb, pfx, "pick_fair_pct", c->reentry_pick_fair,
		   c->reentries);
	result_pct(sb, pfx, "fast_pct", c->reentries - c->reentry_pick_fair,
		   c->reentries);
	for (w = 0; w < NR_WAKE; w++)
		seq_buf_printf(sb, "%s%s=%llu\n", pfx, wake_name[w],
			       c->woke[w]);
	hist_emit(sb, pfx, "flush", &c->flush, buckets);
	hist_emit(sb, pfx, "sched", &c->sched, buckets);
	hist_emit(sb, pfx, "total", &c->total, buckets);
}

static void ir_emit(struct seq_buf *sb, bool interrupted, bool buckets)
{
	struct ir_cpu *all;
	unsigned int w;
	char pfx[24];
	int cpu;

	seq_buf_printf(sb, "format=%s\n", IR_FORMAT);
	seq_buf_printf(sb, "suite=%s\n", IPISTORM_SUITE_VERSION);
	seq_buf_printf(sb, "kernel=%s\n", init_utsname()->release);
	seq_buf_printf(sb, "mode=%s\n", duration ? "timed" : "until_stop");
	seq_buf_printf(sb, "cpulist=%*pbl\n", cpumask_pr_args(ir_mask));
	seq_buf_printf(sb, "status=%s\n",
		       interrupted ? "interrupted" : "complete");
	seq_buf_printf(sb, "measured_ns=%llu\n", ir_stop_ns - ir_start_ns);
	hooks_emit(sb, ir_hooks, ARRAY_SIZE(ir_hooks), "");
	result_ratio(sb, "", "hook_ns", ir_hook_ps, 1000);

	all = vzalloc(sizeof(*all));
	if (all) {
		hist_init(&all->flush);
		hist_init(&all->sched);
		hist_init(&all->total);
	}
	for_each_cpu(cpu, ir_mask) {
		const struct ir_cpu *c = ir_state[cpu];

		snprintf(pfx, sizeof(pfx), "cpu%d.", cpu);
		ir_emit_cpu(sb, pfx, c, buckets);
		if (!all)
			continue;
		all->rounds += c->rounds;
		all->reentries += c->reentries;
		all->switched += c->switched;
		all->reentry_pick_fair += c->reentry_pick_fair;
		all->reentry_newidle += c->reentry_newidle;
		for (w = 0; w < NR_WAKE; w++)
			all->woke[w] += c->woke[w];
		hist_merge(&all->flush, &c->flush);
		hist_merge(&all->sched, &c->sched);
		hist_merge(&all->total, &c->total);
	}
	if (all)
		ir_emit_cpu(sb, "total.", all, false);
	vfree(all);
}

static size_t ir_result_size(void)
{
	size_t size = 4096;
	int cpu;

	for_each_cpu(cpu, ir_mask) {
		const struct ir_cpu *c = ir_state[cpu];

		size += 2048 + 64 * (hist_used(&c->flush) +
				     hist_used(&c->sched) +
				     hist_used(&c->total));
	}
	return size;
}

/* Unhook, then print and publish the result. Called with ir_lock held. */
static void ir_stop(bool interrupted)
{
	if (!ir_running)
		return;
	ir_stop_ns = ktime_get_ns();
	ir_unhook();
	ir_running = false;

	result_report(&result, KBUILD_MODNAME, ir_result_size(), ir_emit,
		      interrupted);
}

static void ir_stop_request(void)
{
	mutex_lock(&ir_lock);
	ir_stop(false);
	mutex_unlock(&ir_lock);
}

static void ir_free_state(void)
{
	int cpu;

	if (ir_state)
		for_each_cpu(cpu, ir_mask)
			kfree(ir_state[cpu]);
	kfree(ir_state);
	ir_state = NULL;
	free_cpumask_var(ir_mask);
}

static int __init ir_parse(void)
{
	int cpu;

	if (duration > MAX_DURATION_S) {
		pr_err("duration=%u: more than %u seconds\n", duration,
		       MAX_DURATION_S);
		return -EINVAL;
	}
	if (!cpulist) {
		pr_err("cpulist=(unset): name the CPUs to measure\n");
		return -EINVAL;
	}
	if (!zalloc_cpumask_var(&ir_mask, GFP_KERNEL))
		return -ENOMEM;
	if (cpulist_parse(cpulist, ir_mask) || cpumask_empty(ir_mask)) {
		pr_err("cpulist=%s: not a non-empty list of CPUs below %u\n",
		       cpulist, nr_cpu_ids);
		free_cpumask_var(ir_mask);
		return -EINVAL;
	}
	for_each_cpu(cpu, ir_mask) {
		if (!cpu_online(cpu)) {
			pr_err("cpulist=%s: CPU %d is offline\n", cpulist, cpu);
			free_cpumask_var(ir_mask);
			return -EINVAL;
		}
	}

	ir_state = kcalloc(nr_cpu_ids, sizeof(*ir_state), GFP_KERNEL);
	if (!ir_state) {
		free_cpumask_var(ir_mask);
		return -ENOMEM;
	}
	for_each_cpu(cpu, ir_mask) {
		struct ir_cpu *c;

		c = kzalloc_node(sizeof(*c), GFP_KERNEL, cpu_to_node(cpu));
		if (!c) {
			ir_free_state();
			return -ENOMEM;
		}
		hist_init(&c->flush);
		hist_init(&c->sched);
		hist_init(&c->total);
		ir_state[cpu] = c;
	}
	return 0;
}

static int __init ir_init(void)
{
	int ret;

	ret = ir_parse();
	if (ret)
		return ret;
	ir_calibrate();

	ret = hooks_register(ir_hooks, ARRAY_SIZE(ir_hooks));
	if (ret) {
		ir_free_state();
		return ret;
	}
	ir_running = true;
	ir_start_ns = ktime_get_ns();

	if (!duration) {
		result_control(&result, KBUILD_MODNAME, ir_stop_request);
		return 0;
	}

	if (msleep_interruptible(duration * 1000)) {
		mutex_lock(&ir_lock);
		ir_stop(true);
		mutex_unlock(&ir_lock);
		result_free(&result);
		ir_free_state();
		return -EINTR;
	}
	ir_stop_request();
	return 0;
}

static void __exit ir_exit(void)
{
	/* No control write can be running once this returns. */
	result_control_remove(&result);
	ir_stop_request();
	result_free(&result);
	ir_free_state();
}

module_init(ir_init);
module_exit(ir_exit);

MODULE_DESCRIPTION("Idle re-entry timing and SM_IDLE fast-path detection through ftrace hooks");
MODULE_AUTHOR("The ipistorm authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(IPISTORM_SUITE_VERSION);
