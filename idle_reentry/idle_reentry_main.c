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
#include <linux/irq_work.h>
#include <linux/irqflags.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/prio.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/trace_recursion.h>
#include <linux/tracepoint.h>

#ifdef CONFIG_X86
#include <asm/smp.h>
#endif

#include "../common/calib.h"
#include "../common/clock.h"
#include "../common/hist.h"
#include "../common/hook.h"
#include "../common/idle.h"
#include "../common/irqs.h"
#include "../common/param.h"
#include "../common/result.h"
#include "../common/session.h"
#include "../common/tp.h"

#define IR_FORMAT		"idle_reentry/6"
#define MAX_DURATION_S		3600U
#define CALIB_CALLS		1000	/* the most calls of a run */
#define CALIB_RUNS		9
#define CALIB_PLAIN_CALLS	65536	/* the most of the plain reference's */
/* The most the calibration after the run may take, for a stop's second. */
#define CALIB_END_BUDGET_NS	(500 * NSEC_PER_MSEC)

/* ---- parameters -------------------------------------------------------- */

/*
 * The CPUs to measure, in a string of any length up to IPS_MAX_CPULIST_LEN:
 * every CPU of a large machine, one by one, is longer than a charp's 1024
 * characters.
 */
static struct ips_long_string ir_cpulist = { .max = IPS_MAX_CPULIST_LEN };
module_param_cb(cpulist, &ips_long_string_ops, &ir_cpulist, 0444);
MODULE_PARM_DESC(cpulist, "CPUs to measure, kernel cpulist syntax such as 16 or 8-15 (required)");

/* A fixed length for scripts; 0 measures whatever the user runs meanwhile. */
static unsigned int ir_duration;
module_param_named(duration, ir_duration, uint, 0444);
MODULE_PARM_DESC(duration, "Measure for this long inside insmod, then report (seconds, default 0: measure until stopped through the stop parameter, debugfs control or rmmod; max 3600)");

/*
 * The light instrument (the default) hooks three functions, the fewest
 * that time a re-entry and tell its pick; phases=1 hooks every phase's
 * boundary and the wake-up's cause, at several times its cost.
 */
static bool ir_phases;
module_param_cb(phases, &ips_bool_strict_ops, &ir_phases, 0444);
MODULE_PARM_DESC(phases, "1: time every phase of a re-entry (tick, flush, sched) and tell what woke the CPU, with more hooks; 0: the light instrument, the fast-path share and the re-entry's total only (default 0)");

/* Without the pick hooks a fast_pct of 100 proves nothing: show that it says so. */
static bool ir_pick_hook = true;
module_param_cb(pick_hook, &ips_bool_strict_ops, &ir_pick_hook, 0444);
MODULE_PARM_DESC(pick_hook, "0: leave the picks unhooked, to check that a result without them is reported unproven (default 1)");

/* Where each re-entry started: the idle state its round entered last. */
static bool ir_idle_states;
module_param_cb(idle_states, &ips_bool_strict_ops, &ir_idle_states, 0444);
MODULE_PARM_DESC(idle_states, "1: also count the idle state each re-entry left (the last its round entered) and split the re-entries' totals by it, with a probe at every idle entry and exit (phases=1 only); 0: do not (default 0)");

/* A hook on a wrong function must read unproven: show that it does. */
static char *ir_test_misname;
module_param_named(test_misname, ir_test_misname, charp, 0444);
MODULE_PARM_DESC(test_misname, "Test only: put the hook of this function (such as schedule_idle) on one never called, to check that its proof reads unproven (default unset)");

/* A figure whose hook is missing must read unproven: show that it does. */
static char *ir_test_skip;
module_param_named(test_skip, ir_test_skip, charp, 0444);
MODULE_PARM_DESC(test_skip, "Test only: leave the optional hook of this function (such as hrtimer_interrupt) unhooked, as on a kernel without it, to check that the figures resting on it read unproven (default unset)");

/*
 * An interrupt into a re-entry must be counted: show that it is, for
 * either way the count sees one (irq_enter_rcu(), or the reschedule IPI's
 * count, as NMIs').
 */
static unsigned int ir_test_interrupt;
module_param_named(test_interrupt, ir_test_interrupt, uint, 0444);
MODULE_PARM_DESC(test_interrupt, "Test only: raise an interrupt of the module's own inside every re-entry, at schedule_idle(), to check that reentries_interrupted counts it: 1 an irq_work's self-IPI (through irq_enter_rcu()), 2 a reschedule IPI to itself (which is not; counted as NMIs are) (phases=1, x86 only; default 0)");

/* Ends an until-stopped measurement where debugfs refuses writes (lockdown). */
static void ir_finish(bool interrupted);
static struct ips_session ir_session __read_mostly =
	IPS_SESSION_INIT(ir_session, ir_finish);
module_param_cb(stop, &ips_session_stop_ops, &ir_session, 0644);
MODULE_PARM_DESC(stop, "Write 1 to end a measurement that runs until stopped, as writing stop to the debugfs control file does; reads 1 once it has ended");

/* The start line's order (ips_result_log_params()): as declared above. */
const char * const ips_params_order[] = {
	"cpulist", "duration", "phases", "pick_hook", "idle_states",
	"test_misname", "test_skip", "test_interrupt", "stop", NULL,
};

/* ---- state ------------------------------------------------------------- */

/* What pulled the CPU out of idle during one round (phases=1). */
enum {
	WAKE_POLL,	/* call-function queue flushed by the polling idle task */
	WAKE_IPI,	/* call-function IPI taken in hard IRQ */
	WAKE_TIMER,	/* hrtimer interrupt */
	WAKE_OTHER,
	NR_WAKE
};

static const char * const wake_name[] = {
	[WAKE_POLL] = "wake_poll", [WAKE_IPI] = "wake_ipi",
	[WAKE_TIMER] = "wake_timer", [WAKE_OTHER] = "wake_other",
};

/* The timed spans of a re-entry: three phases (phases=1) and the total. */
enum { H_TICK, H_FLUSH, H_SCHED, H_TOTAL, IR_NR_HIST };

static const char * const hist_name[] = {
	[H_TICK] = "tick", [H_FLUSH] = "flush", [H_SCHED] = "sched",
	[H_TOTAL] = "total",
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
	IR_INTERRUPTED,		/* re-entries an interrupt or NMI came into */
	IR_PICKED,		/* re-entries that made any pick: not fast */
	IR_WOKE,		/* IR_WOKE + WAKE_*: what pulled the CPU out */
	IR_HITS = IR_WOKE + NR_WAKE,	/* + H_*: hook hits inside each span */
	IR_ROUND_HITS = IR_HITS + IR_NR_HIST,	/* hook hits in re-entries' rounds */
	IR_NR_COUNT
};

struct ir_count {
	u64 v[IR_NR_COUNT];
};

/*
 * The instrument's cost on one CPU, measured on it by the instrument
 * itself (ir_calibrate()): rounds made of calls of empty functions hooked
 * with the very code of the counting hooks, against the same calls
 * unhooked. In picoseconds.
 */
struct ir_calib {
	u32 span_ps[IR_NR_HIST];	/* what the hooks add to each span ... */
	u32 span_hits[IR_NR_HIST];	/* ... holding this many hook hits */
	u32 hit_ps;			/* each further hook hit */
	u32 round_ps;			/* every hook of a fast re-entry's round ... */
	u32 round_hits;			/* ... this many */
	u32 plain_ps;			/* the same calls, unhooked */
};

/*
 * Per measured CPU; written only by hooks running on that CPU. Each is its
 * own allocation, cache-line aligned, so CPUs never share a line.
 *
 * Every hook hit here counts in @hits; each span's start keeps the count
 * with its clock read, and its end takes the count with its own, so the
 * hook hits of a span are the difference. A span's time, from one hook's
 * clock read to another's, holds the rest of the first hook, the start of
 * the last and every hook that fired between: the calibrated cost of a
 * span of that many hits is removed from it.
 */
struct ir_cpu {
	/* The round in progress; times in clock units (common/clock.h). */
	u64 t[IR_NR_HIST];	/* each span's start; the total's is t[H_TICK] */
	u32 hits;
	u32 h[IR_NR_HIST];	/* @hits at each span's start */
	u32 h_round;		/* @hits at the round's start */
	/* The round's flags, reset in one store (@armed first). */
	union {
		struct {
			u8 armed;	/* began while measuring */
			u8 phase;
			u8 switched;	/* schedule_idle() switched to a task */
			u8 to_fair;	/* ... to a fair task */
			u8 pick_any;	/* a pick hook fired here */
			u8 pick_idle;	/* idle picks in the idle task */
			u8 pick_fair;	/* fair picks in the idle task */
			u8 newidle;
		};
		u64 round;
	};
	unsigned int wake;	/* BIT(WAKE_*) of the round's wake-ups */
	u32 unhooked;		/* ir_unhooked_irqs() at the re-entry's start */
	bool interrupted;	/* an interrupt came into the re-entry */
	unsigned int fired;	/* BIT(hook index) of every hook hit here */
	bool idle_ran;		/* the idle task ran here while measuring */
	bool calibrating;	/* a calibration's scratch state: counts */
	/*
	 * idle_states=1: the idle entries here (cpu_idle's probe, in the
	 * idle loop, outside every span), a window from the round's start;
	 * the re-entry's slot, what pulled each into each slot, and the
	 * probe's hits, entries and exits.
	 */
	struct ips_idle_seen idle;
	unsigned int idle_slot;
	u64 idle_hits;
	u64 reentry_idle[NR_WAKE][IPS_IDLE_MAX_SLOTS];
	struct ips_hist *hist_idle;	/* [slots]: the totals by slot */

	struct ir_calib cal;		/* before the run: the costs removed */
	struct ir_calib cal_end;	/* after it: how far they drifted */
	struct ips_calib_drift drift;	/* the two calibrations' main cost */
	struct ir_count n;
	/* The spans as measured, summed: ns, or clock units (light). */
	u64 raw[IR_NR_HIST];
	struct ips_hist hist[IR_NR_HIST];	/* the kernel's: cost removed */
} ____cacheline_aligned_in_smp;

enum { PHASE_NONE, PHASE_TICK, PHASE_FLUSH, PHASE_SCHED };

/* The hooks' flags (hooks.h), and their kinds' (struct ips_hook's @flags). */
#define IR_REQ		BIT(0)
#define IR_REQ_LIGHT	BIT(1)
#define IR_PICK		BIT(2)
#define IR_FIGURE	BIT(3)
#define IR_IN_LIGHT	BIT(4)
#define IR_HOT		BIT(5)
#define IR_KIND_BOTH	(IR_IN_LIGHT | IR_HOT)
#define IR_KIND_HOT	IR_HOT
#define IR_KIND_COLD	0

/* @m(...) for a hook of KIND in the light instrument, or a hot one. */
#define IR_IN_LIGHT_BOTH(m, ...)	m(__VA_ARGS__)
#define IR_IN_LIGHT_HOT(...)
#define IR_IN_LIGHT_COLD(...)
#define IR_IF_HOT_BOTH(m, ...)		m(__VA_ARGS__)
#define IR_IF_HOT_HOT(m, ...)		m(__VA_ARGS__)
#define IR_IF_HOT_COLD(...)

/* The kernel's hooks, then the calibration's: IR_NR_REAL + IR_CAL_ID. */
enum {
#define IR_HOOK(id, ...)	IR_HOOK_##id,
#include "hooks.h"
	IR_NR_REAL
};

enum {
#define IR_CAL(id, ...)		IR_CAL_##id,
#include "hooks.h"
	IR_NR_CAL
};

#define IR_NR_HOOKS	(IR_NR_REAL + IR_NR_CAL)
#define IR_HOOK_NONE	IR_NR_HOOKS

static struct ir_cpu **ir_state __read_mostly;	/* [nr_cpu_ids], NULL when unmeasured */
static cpumask_var_t ir_mask;
/* idle_states=1: the state names, read at load, and how many slots. */
static struct ips_idle_names ir_idle;
static unsigned int ir_idle_slots;
/* This CPU's entry of ir_state, one load for the hooks. */
static DEFINE_PER_CPU(struct ir_cpu *, ir_this_cpu);
/* Off with phases=1: the direct calls' light hooks. */
static DEFINE_STATIC_KEY_TRUE(ir_light);
/* test_interrupt=: an interrupt raised inside each re-entry. */
static DEFINE_STATIC_KEY_FALSE(ir_test_irq);
static DEFINE_PER_CPU(struct irq_work, ir_test_work);

/* test_interrupt=: this CPU's interrupt, pending until interrupts are on. */
static __always_inline void ir_test_raise(void)
{
	ips_test_irq_raise(&ir_test_work, ir_test_interrupt,
			   smp_processor_id());
}

/*
 * The sections, compiled as one unit with this file (as the kernel's
 * kernel/sched/build_policy.c is): each uses what the ones before define.
 */
#include "measure.c"
#include "hooks.c"
#include "calib.c"
#include "report.c"

/* ---- init and exit ----------------------------------------------------- */

/* Free the state, unless hooks that write it could not be removed. */
static void ir_free_state(void)
{
	int cpu;

	if (!ir_unhooked)
		return;
	for_each_possible_cpu(cpu)
		per_cpu(ir_this_cpu, cpu) = NULL;
	if (ir_state) {
		for_each_cpu(cpu, ir_mask)
			if (ir_state[cpu])
				kvfree(ir_state[cpu]->hist_idle);
	}
	ips_session_cpus_free((void **)ir_state, ir_mask);
	ir_state = NULL;
	kvfree(ir_scratch);
	ir_scratch = NULL;
	free_cpumask_var(ir_mask);
}

/*
 * test_skip= must name an optional hook of this run's instrument, and
 * test_misname= one of its hooks; test_interrupt= needs phases=1 (the
 * light instrument counts no interrupt): anything else would change
 * nothing.
 */
static int ir_check_test_params(void)
{
	bool skip_ok = !ir_test_skip, misname_ok = !ir_test_misname;
	unsigned int i;

	for (i = 0; i < IR_NR_HOOKS; i++) {
		const struct ips_hook *h = &ir_hooks[i];

		if (h->unused || h->quiet || h->skip)
			continue;
		if (ir_test_skip && !strcmp(ir_test_skip, h->names[0]) && !h->required)
			skip_ok = true;
		if (ir_test_misname && !strcmp(ir_test_misname, h->names[0]))
			misname_ok = true;
	}
	if (!skip_ok) {
		pr_err("test_skip=%s: not an optional hook of this instrument (phases=%d)\n",
		       ir_test_skip, ir_phases);
		return -EINVAL;
	}
	if (!misname_ok) {
		pr_err("test_misname=%s: not a hook of this instrument (phases=%d)\n",
		       ir_test_misname, ir_phases);
		return -EINVAL;
	}
	return ips_test_irq_check(ir_test_interrupt, ir_phases, "phases=1");
}

/* test_interrupt=: each CPU's interrupt work, then the hooks' key. */
static void ir_test_irq_init(void)
{
	ips_test_irq_init(&ir_test_work);
	static_branch_enable(&ir_test_irq);
}

static int ir_parse(void)
{
	int cpu, ret;

	if (ir_duration > MAX_DURATION_S) {
		pr_err("duration=%u: more than %u seconds\n", ir_duration,
		       MAX_DURATION_S);
		return -EINVAL;
	}
	if (!ir_cpulist.val) {
		pr_err("cpulist=(unset): name the CPUs to measure\n");
		return -EINVAL;
	}
	ret = ir_hooks_choose();
	if (ret)
		return ret;
	ret = ir_check_test_params();
	if (ret)
		return ret;
	if (ir_idle_states && !ir_phases) {
		pr_err("idle_states=1: no effect without phases=1 (the light instrument times no re-entry on its own)\n");
		return -EINVAL;
	}
	if (ir_test_interrupt)
		ir_test_irq_init();
	ips_clock_init();
	if (!zalloc_cpumask_var(&ir_mask, GFP_KERNEL))
		return -ENOMEM;
	ret = ips_cpus_parse_online("cpulist", ir_cpulist.val, ir_mask);
	if (ret)
		goto err;
	ret = -ENOMEM;
	ir_state = (struct ir_cpu **)ips_session_cpus_alloc(ir_mask,
							sizeof(struct ir_cpu));
	ir_scratch = kvzalloc(2 * sizeof(*ir_scratch), GFP_KERNEL);
	if (!ir_state || !ir_scratch)
		goto err;
	if (ir_idle_states) {
		ips_idle_names_init(&ir_idle);
		ir_idle_slots = ips_idle_slots(&ir_idle);
	}
	for_each_cpu(cpu, ir_mask) {
		struct ir_cpu *c = ir_state[cpu];
		unsigned int s;

		for (s = 0; s < IR_NR_HIST; s++)
			ips_hist_init(&c->hist[s]);
		if (ir_idle_states) {
			c->hist_idle = ips_idle_hists(&ir_idle, cpu_to_node(cpu));
			if (!c->hist_idle)
				goto err;
		}
		per_cpu(ir_this_cpu, cpu) = c;
	}
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
	if (ret)
		goto err_unlock;
	/* Hooked, not yet measuring: what the hooks cost on each CPU. */
	ir_calibrate(false);
	ips_session_start(&ir_session, ir_duration);
	ips_session_unlock(&ir_session);
	ips_result_log_params("start");

	if (!ir_duration)
		return ips_session_control(&ir_session);
	ret = ips_session_sleep(&ir_session);
	if (ret)
		goto err_free;
	return 0;

err_unlock:
	ips_session_unlock(&ir_session);
err_free:
	ir_free_state();
	return ips_init_ret(ret, !ir_unhooked);
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
