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
enum { IR_TEST_IRQ_NONE, IR_TEST_IRQ_WORK, IR_TEST_IRQ_RESCHED, IR_NR_TEST_IRQ };
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
	"cpulist", "duration", "phases", "pick_hook", "test_misname",
	"test_skip", "test_interrupt", "stop", NULL,
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

	struct ir_calib cal;		/* before the run: the costs removed */
	struct ir_calib cal_end;	/* after it: how far they drifted */
	struct ips_calib_drift drift;	/* the two calibrations' main cost */
	struct ir_count n;
	/* The spans as measured, summed: ns, or clock units (light). */
	u64 raw[IR_NR_HIST];
	struct ips_hist hist[IR_NR_HIST];	/* the kernel's: cost removed */
} ____cacheline_aligned_in_smp;

enum { PHASE_NONE, PHASE_TICK, PHASE_FLUSH, PHASE_SCHED };

enum {
	IR_HOOK_DO_IDLE, IR_HOOK_FLUSH, IR_HOOK_SCHEDULE_IDLE, IR_HOOK_PICK, IR_HOOK_NEWIDLE,
	IR_HOOK_WAKE_POLL, IR_HOOK_WAKE_IPI, IR_HOOK_WAKE_TIMER, IR_HOOK_TICK,
	IR_HOOK_PICK_IDLE, IR_HOOK_PICK_IDLE_NEXT, IR_HOOK_PICK_CORE,
	IR_HOOK_IRQ_ENTER, IR_HOOK_IRQ_QUIET,
	/* The calibration's, on functions of this module (ir_calibrate()). */
	IR_HOOK_CAL_TICK, IR_HOOK_CAL_FLUSH, IR_HOOK_CAL_WAKE, IR_HOOK_CAL_SCHED,
	IR_HOOK_CAL_PICK, IR_HOOK_CAL_DO_IDLE,
	IR_NR_HOOKS
};

static struct ir_cpu **ir_state __read_mostly;	/* [nr_cpu_ids], NULL when unmeasured */
static cpumask_var_t ir_mask;
/* This CPU's entry of ir_state, one load for the hooks. */
static DEFINE_PER_CPU(struct ir_cpu *, ir_this_cpu);
/* Off with phases=1: the direct calls' light hooks. */
static DEFINE_STATIC_KEY_TRUE(ir_light);
/* test_interrupt=: an interrupt raised inside each re-entry. */
static DEFINE_STATIC_KEY_FALSE(ir_test_irq);

static void ir_test_irq_fn(struct irq_work *work)
{
}

static DEFINE_PER_CPU(struct irq_work, ir_test_work);

/* test_interrupt=: this CPU's interrupt, pending until interrupts are on. */
static __always_inline void ir_test_raise(void)
{
#ifdef CONFIG_X86
	/* Not smp_send_reschedule(): its tracepoint is not for modules. */
	void (*resched)(int cpu) = smp_ops.smp_send_reschedule;

	if (ir_test_interrupt == IR_TEST_IRQ_RESCHED) {
		resched(smp_processor_id());
		return;
	}
#endif
	irq_work_queue(this_cpu_ptr(&ir_test_work));
}

/* ---- the measurement --------------------------------------------------- */

static __always_inline struct ir_cpu *ir_this(void)
{
	return this_cpu_read(ir_this_cpu);
}

/*
 * Add span @s of a re-entry, @units long as measured with @hits hook hits
 * inside, to this CPU's figures: as measured, and with the calibrated
 * cost of such a span removed.
 */
static __always_inline void ir_add(struct ir_cpu *c, unsigned int s, u64 units,
				   u32 hits)
{
	u64 ns = ips_clock_ns(units);
	s64 cost_ps = c->cal.span_ps[s] +
		      (s64)((s32)(hits - c->cal.span_hits[s])) * c->cal.hit_ps;
	u64 cost = cost_ps > 0 ? div_u64(cost_ps, 1000) : 0;

	c->raw[s] += ns;
	c->n.v[IR_HITS + s] += hits;
	ips_hist_add_net(&c->hist[s], ns, cost);
}

/*
 * The interrupts that enter no irq_enter_rcu(), which ir_irq_enter() does
 * not see: NMIs, and the reschedule IPI (an x86 "simple" system vector).
 * A re-entry's start and end read their count (phases=1).
 */
static __always_inline u32 ir_unhooked_irqs(void)
{
	return ips_irq_this_cpu(IPS_IRQ_NMI) + ips_irq_this_cpu(IPS_IRQ_RESCHED);
}

/* Start span @s at this hook's clock read. */
static __always_inline void ir_span_start(struct ir_cpu *c, unsigned int s)
{
	c->t[s] = ips_clock_read();
	c->h[s] = c->hits;
}

/* Add span @s, which ends at this hook's clock read, @now. */
static __always_inline void ir_span_end(struct ir_cpu *c, unsigned int s,
					u64 now)
{
	unsigned int from = s == H_TOTAL ? H_TICK : s;

	ir_add(c, s, now - c->t[from], c->hits - c->h[from]);
}

/*
 * A round ends: count it, and tell whether it was a re-entry (the idle
 * task switched to no task: sched_switch did not fire) whose spans to
 * add.
 */
static __always_inline bool ir_round_is_reentry(struct ir_cpu *c,
						unsigned int last_phase)
{
	u64 *n = c->n.v;

	n[IR_ROUNDS]++;
	if (c->phase != last_phase)
		return false;
	if (c->switched) {
		n[IR_SWITCHED]++;
		n[IR_SWITCHED_FAIR] += c->to_fair;
		n[IR_SWITCHED_PICK] += last_phase == PHASE_SCHED ?
				       !!c->pick_fair : c->pick_any;
		return false;
	}
	n[IR_REENTRIES]++;
	n[IR_ROUND_HITS] += c->hits - c->h_round;
	return true;
}

/* A new round: every flag clear (PHASE_NONE is 0) but @armed. */
static __always_inline void ir_round_flags(struct ir_cpu *c, bool measuring)
{
	BUILD_BUG_ON(PHASE_NONE != 0);
	BUILD_BUG_ON(offsetof(struct ir_cpu, armed) != offsetof(struct ir_cpu, round));
	c->round = measuring;
}

static __always_inline void ir_round_reset(struct ir_cpu *c, bool measuring)
{
	ir_round_flags(c, measuring);
	c->wake = 0;
	c->interrupted = false;
	c->h_round = c->hits;
}

/*
 * The light instrument (phases=0): do_idle() ends a round, the tick's
 * restart starts a re-entry's span, the idle class's pick tells a pick.
 * None of them runs in interrupt context, they run with preemption off
 * (the idle task, or the runqueue lock held) and call nothing traceable:
 * no recursion lock, no interrupts to mask. A re-entry adds its total to
 * a sum, in clock units, and no more: the mean is the figure, corrected
 * once, at the end. The only hooks inside the span are picks.
 *
 * Every hook also serves the calibration (ir_calibrate()), on a scratch
 * state that is @calibrating: it counts as if measuring, in the idle task,
 * whatever the context.
 */
static __always_inline void ir_l_do_idle_body(void)
{
	u64 now = ips_clock_read();
	struct ir_cpu *c = ir_this();
	bool measuring;
	u64 *n;

	if (!c)
		return;
	n = c->n.v;
	measuring = ips_session_measuring(&ir_session) || c->calibrating;
	c->fired |= BIT(IR_HOOK_DO_IDLE);
	if (measuring && c->armed) {
		n[IR_ROUNDS]++;
		if (c->phase != PHASE_TICK) {
			/* Not a round that left the polling loop. */
		} else if (!c->switched) {
			n[IR_REENTRIES]++;
			c->raw[H_TOTAL] += now - c->t[H_TICK];
			/* The span's hits: its picks, and its end's. */
			n[IR_HITS + H_TOTAL] += c->pick_idle + 1;
			n[IR_PICK_IDLE] += !!c->pick_idle;
		} else {
			n[IR_SWITCHED]++;
			n[IR_SWITCHED_FAIR] += c->to_fair;
			n[IR_SWITCHED_PICK] += c->pick_any;
		}
	}
	ir_round_flags(c, measuring);
}

/* do_idle() alone calls it, in the idle task. */
static __always_inline void ir_l_tick_body(void)
{
	struct ir_cpu *c = ir_this();

	if (!c)
		return;
	c->fired |= BIT(IR_HOOK_TICK);
	if (c->phase == PHASE_NONE) {
		c->t[H_TICK] = ips_clock_read();
		c->phase = PHASE_TICK;
	}
}

static __always_inline void ir_l_pick(unsigned int h)
{
	struct ir_cpu *c = ir_this();

	if (!c)
		return;
	c->fired |= BIT(h);
	c->pick_any = true;
	if (c->phase == PHASE_TICK && (is_idle_task(current) || c->calibrating))
		c->pick_idle++;
}

/*
 * Each light hook twice: a function of no argument that the direct calls
 * reach (ir_direct()), and a callback of the set that calls it.
 */
static noinline notrace void ir_l_do_idle_hot(void)
{
	ir_l_do_idle_body();
}

static noinline notrace void ir_l_tick_hot(void)
{
	ir_l_tick_body();
}

static noinline notrace void ir_l_pick_task_idle_hot(void)
{
	ir_l_pick(IR_HOOK_PICK_IDLE);
}

static noinline notrace void ir_l_pick_next_task_idle_hot(void)
{
	ir_l_pick(IR_HOOK_PICK_IDLE_NEXT);
}

static void ir_l_do_idle(unsigned long ip, unsigned long parent_ip,
			 unsigned long arg0)
{
	ir_l_do_idle_hot();
}

static void ir_l_tick(unsigned long ip, unsigned long parent_ip,
		      unsigned long arg0)
{
	ir_l_tick_hot();
}

static void ir_l_pick_task_idle(unsigned long ip, unsigned long parent_ip,
				unsigned long arg0)
{
	ir_l_pick_task_idle_hot();
}

static void ir_l_pick_next_task_idle(unsigned long ip, unsigned long parent_ip,
				     unsigned long arg0)
{
	ir_l_pick_next_task_idle_hot();
}

/*
 * The phase instrument (phases=1). Each callback works on this CPU's
 * state. They run with preemption off (idle task, runqueue lock or hard
 * IRQ); the recursion lock that ir_hook_enter() takes keeps that true and
 * guards against recursion through anything they call. Hooks in hard IRQ
 * (the IPI's and the timer's) and those that run with interrupts off
 * (picks, the balance, the queue flush) count their hits as they come; the
 * span boundaries, entered with interrupts on, mask them while they count
 * and read the clock, so that a hit is never half counted and a wake-up's
 * bit never lost to a round's reset.
 */

/*
 * The start of every phase hook: the recursion lock and this CPU's
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

/*
 * What a re-entry is counted as woken by, of the wake-ups its round saw
 * (@wake, a bit each): the first in WAKE_* order, or WAKE_OTHER.
 */
static __always_inline unsigned int ir_wake_of(unsigned int wake)
{
	unsigned int w;

	/* None of the others: WAKE_OTHER, the last. */
	BUILD_BUG_ON(NR_WAKE - WAKE_OTHER != 1);
	for (w = 0; w < WAKE_OTHER; w++)
		if (wake & BIT(w))
			break;
	return w;
}

/*
 * Only the do_idle() hook reads whether the session measures: at the top of
 * each round it both ends the previous round, which counts only if it
 * began and ends while measuring, and arms the next.
 */
static __always_inline void ir_do_idle_body(struct ir_cpu *c, bool measuring)
{
	unsigned long flags;
	u64 now, *n = c->n.v;

	local_irq_save(flags);
	c->hits++;
	now = ips_clock_read();
	c->fired |= BIT(IR_HOOK_DO_IDLE);
	if (measuring && c->armed && ir_round_is_reentry(c, PHASE_SCHED)) {
		n[IR_INTERRUPTED] += c->interrupted ||
				     ir_unhooked_irqs() != c->unhooked;
		ir_add(c, H_TICK, c->t[H_FLUSH] - c->t[H_TICK],
		       c->h[H_FLUSH] - c->h[H_TICK]);
		ir_add(c, H_FLUSH, c->t[H_SCHED] - c->t[H_FLUSH],
		       c->h[H_SCHED] - c->h[H_FLUSH]);
		ir_span_end(c, H_SCHED, now);
		ir_span_end(c, H_TOTAL, now);
		n[IR_PICK_FAIR] += !!c->pick_fair;
		n[IR_PICK_IDLE] += !!c->pick_idle;
		n[IR_PICKED] += c->pick_fair || c->pick_idle;
		n[IR_NEWIDLE] += !!c->newidle;
		n[IR_WOKE + ir_wake_of(c->wake)]++;
	}
	ir_round_reset(c, measuring);
	local_irq_restore(flags);
}

/*
 * The CPU left the polling loop: do_idle() restarts the tick, which the
 * idle entry may have stopped, and clears the polling flag before it runs
 * what was queued. With the tick stopped the restart reprograms the timer.
 */
static __always_inline void ir_tick_body(struct ir_cpu *c, bool idle)
{
	unsigned long flags;

	local_irq_save(flags);
	c->hits++;
	c->fired |= BIT(IR_HOOK_TICK);
	if (c->phase == PHASE_NONE && idle) {
		ir_span_start(c, H_TICK);
		c->unhooked = ir_unhooked_irqs();
		c->phase = PHASE_TICK;
	}
	local_irq_restore(flags);
}

/* Without the tick's hook (a kernel without NO_HZ) the round starts here. */
static __always_inline void ir_flush_body(struct ir_cpu *c, bool idle)
{
	unsigned long flags;

	local_irq_save(flags);
	c->hits++;
	c->fired |= BIT(IR_HOOK_FLUSH);
	if (c->phase <= PHASE_TICK && idle) {
		ir_span_start(c, H_FLUSH);
		if (c->phase == PHASE_NONE) {
			c->t[H_TICK] = c->t[H_FLUSH];
			c->h[H_TICK] = c->h[H_FLUSH];
			c->unhooked = ir_unhooked_irqs();
		}
		c->phase = PHASE_FLUSH;
	}
	local_irq_restore(flags);
}

static __always_inline void ir_schedule_idle_body(struct ir_cpu *c)
{
	unsigned long flags;

	local_irq_save(flags);
	c->hits++;
	c->fired |= BIT(IR_HOOK_SCHEDULE_IDLE);
	if (c->phase == PHASE_FLUSH) {
		ir_span_start(c, H_SCHED);
		c->phase = PHASE_SCHED;
		/* Taken as interrupts come back on, below: inside the re-entry. */
		if (static_branch_unlikely(&ir_test_irq) && c->armed && !c->calibrating)
			ir_test_raise();
	}
	local_irq_restore(flags);
}

/*
 * A pick made while the idle task is inside schedule_idle(), seen by the
 * hook @h, of the idle class or the fair one: in a re-entry the picks tell
 * the slow path from SM_IDLE's fast one; in a round that switched to a
 * task they prove that the hook fires at all. Picks run with the runqueue
 * locked, interrupts off.
 */
static __always_inline void ir_pick_body(struct ir_cpu *c, unsigned int h,
					 bool idle_class, bool idle)
{
	c->hits++;
	c->fired |= BIT(h);
	if (c->phase == PHASE_SCHED && idle) {
		if (idle_class)
			c->pick_idle++;
		else
			c->pick_fair++;
	}
}

/*
 * What pulled the CPU out of idle, @w, seen by the hook @h: in hard IRQ,
 * or the queue flush with interrupts off. The queue flush, which runs once
 * the CPU has left the polling loop, only counts as a polling wake-up when
 * the idle task itself runs it (@idle); an interrupt only before the CPU
 * left (one after it came into the re-entry, below), and only while
 * nothing tells it woke nothing (the quiet end of an interrupt, below).
 */
static __always_inline void ir_wake_body(struct ir_cpu *c, unsigned int h,
					 unsigned int w, bool idle)
{
	BUILD_BUG_ON(BITS_PER_TYPE(c->wake) < NR_WAKE);
	c->hits++;
	c->fired |= BIT(h);
	if (w == WAKE_POLL ? idle : c->phase == PHASE_NONE)
		c->wake |= BIT(w);
}

/*
 * An interrupt's entry (irq_enter_rcu(), in hard IRQ): one that comes
 * into a re-entry, after the CPU left the polling loop, is not what the
 * re-entry measures, and its time is in the re-entry's.
 */
static __always_inline void ir_irq_enter_body(struct ir_cpu *c)
{
	c->hits++;
	c->fired |= BIT(IR_HOOK_IRQ_ENTER);
	if (c->phase != PHASE_NONE)
		c->interrupted = true;
}

/*
 * An interrupt of the idle loop ends, its softirqs run (but on
 * PREEMPT_RT), and the CPU stays idle: the kernel calls
 * tick_nohz_irq_exit() on an idle CPU while no task is to run, and on a
 * nohz_full CPU always, after an outermost interrupt, or one that came
 * into the softirqs. Where need_resched() is clear, and the softirqs are
 * done, that interrupt woke nothing, nor did any before it: what they
 * were labels no re-entry (an IPI that ran a callback, and a reschedule
 * later, is not a wake-up by IPI).
 */
static __always_inline void ir_irq_quiet_body(struct ir_cpu *c)
{
	c->hits++;
	c->fired |= BIT(IR_HOOK_IRQ_QUIET);
	if (c->phase == PHASE_NONE && !need_resched() && !in_serving_softirq())
		c->wake = 0;
}

/*
 * Whether the current context is the idle task outside hard IRQ (or @c is
 * the calibration's, which counts as if it were).
 */
static __always_inline bool ir_in_idle_task(const struct ir_cpu *c)
{
	return (is_idle_task(current) && !in_hardirq()) || c->calibrating;
}

static __always_inline bool ir_idle_task(const struct ir_cpu *c)
{
	return is_idle_task(current) || c->calibrating;
}

static __always_inline bool ir_measuring(const struct ir_cpu *c)
{
	return ips_session_measuring(&ir_session) || c->calibrating;
}

/* A phase hook: @body with this CPU's state inside the recursion lock. */
#define IR_PHASE_HOOK(name, body)					\
static void name(unsigned long ip, unsigned long parent_ip,		\
		 unsigned long arg0)					\
{									\
	struct ir_cpu *c;						\
	int bit;							\
									\
	c = ir_hook_enter(ip, parent_ip, &bit);				\
	if (c) {							\
		body;							\
		ips_hook_exit(bit);					\
	}								\
}

IR_PHASE_HOOK(ir_do_idle, ir_do_idle_body(c, ir_measuring(c)))
IR_PHASE_HOOK(ir_tick, ir_tick_body(c, ir_in_idle_task(c)))
IR_PHASE_HOOK(ir_flush, ir_flush_body(c, ir_in_idle_task(c)))
IR_PHASE_HOOK(ir_schedule_idle, ir_schedule_idle_body(c))
IR_PHASE_HOOK(ir_pick_fair, ir_pick_body(c, IR_HOOK_PICK, false, ir_idle_task(c)))
/*
 * Core scheduling picks through the class's pick_task(), the fair class's
 * pick_task_fair(), never through pick_next_task_fair(): counted as the
 * fair pick, where the fair pick's hook is on pick_next_task_fair().
 */
IR_PHASE_HOOK(ir_pick_core, ir_pick_body(c, IR_HOOK_PICK_CORE, false, ir_idle_task(c)))
/*
 * The idle class's pick: where every pick on an empty runqueue ends,
 * through the fair class's shortcut (__pick_next_task()), the loop over
 * the classes, core scheduling's pick_task() or with sched_ext enabled,
 * none of which calls pick_next_task_fair(). It fires wherever a task
 * leaves the CPU idle (its proof); counted in a re-entry like the fair
 * pick. 6.12 has one, pick_task_idle(); 6.1 two: pick_next_task_idle()
 * and pick_task_idle(), which only core scheduling calls.
 */
IR_PHASE_HOOK(ir_pick_task_idle, ir_pick_body(c, IR_HOOK_PICK_IDLE, true, ir_idle_task(c)))
IR_PHASE_HOOK(ir_pick_next_task_idle,
	      ir_pick_body(c, IR_HOOK_PICK_IDLE_NEXT, true, ir_idle_task(c)))
/* Called from the fair pick, runqueue locked: it counts like a pick. */
IR_PHASE_HOOK(ir_newidle, ir_pick_body(c, IR_HOOK_NEWIDLE, false, false);
	      c->newidle += c->phase == PHASE_SCHED && ir_idle_task(c))
IR_PHASE_HOOK(ir_wake_poll, ir_wake_body(c, IR_HOOK_WAKE_POLL, WAKE_POLL, ir_in_idle_task(c)))
IR_PHASE_HOOK(ir_wake_ipi, ir_wake_body(c, IR_HOOK_WAKE_IPI, WAKE_IPI, true))
IR_PHASE_HOOK(ir_wake_timer, ir_wake_body(c, IR_HOOK_WAKE_TIMER, WAKE_TIMER, true))
IR_PHASE_HOOK(ir_irq_enter, ir_irq_enter_body(c))
IR_PHASE_HOOK(ir_irq_quiet, ir_irq_quiet_body(c))

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
	if (c->phase != PHASE_NONE) {
		c->switched = true;
		c->to_fair = next->prio >= MAX_RT_PRIO;
	}
}

static struct tracepoint *ir_tp_switch;

/*
 * The calibration's functions: empty, one for each hook of a round, which
 * the hook set hooks with the calibration's hooks, and one left unhooked;
 * and the decoy, never called, where test_misname= puts a hook. Each body
 * differs, so that the compiler folds no two into one.
 */
#define IR_CAL_FN(name, n)			\
static noinline void name(void)			\
{						\
	asm volatile("" : : "i" (n));		\
}

IR_CAL_FN(ir_cal_plain, 0)
IR_CAL_FN(ir_cal_fn_tick, 1)
IR_CAL_FN(ir_cal_fn_flush, 2)
IR_CAL_FN(ir_cal_fn_wake, 3)
IR_CAL_FN(ir_cal_fn_sched, 4)
IR_CAL_FN(ir_cal_fn_pick, 5)
IR_CAL_FN(ir_cal_fn_do_idle, 6)

static noinline __used void ir_decoy(void)
{
	asm volatile("" : : "i" (7));
}

static struct ips_hook ir_hooks[] = {
	[IR_HOOK_DO_IDLE] = {
		.names = IPS_HOOK_NAMES("do_idle"),
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
	/*
	 * Absent where the kernel has no NO_HZ: no tick phase then (the
	 * light instrument needs it).
	 */
	[IR_HOOK_TICK] = {
		.names = IPS_HOOK_NAMES("tick_nohz_idle_exit"),
	},
	[IR_HOOK_PICK_IDLE] = {
		.names = IPS_HOOK_NAMES("pick_task_idle"),
		.required = true,
	},
	/* 6.1 only; 6.2 and later pick the idle task with pick_task_idle(). */
	[IR_HOOK_PICK_IDLE_NEXT] = {
		.names = IPS_HOOK_NAMES("pick_next_task_idle"),
	},
	/*
	 * Absent without CONFIG_SCHED_CORE before 6.12; on 7.x the fair
	 * pick's own hook, which then keeps it (ips_hooks_register()).
	 */
	[IR_HOOK_PICK_CORE] = {
		.names = IPS_HOOK_NAMES("pick_task_fair"),
		.func = ir_pick_core,
	},
	/* phases=1: every interrupt's entry, and its end on a CPU left idle. */
	[IR_HOOK_IRQ_ENTER] = {
		.names = IPS_HOOK_NAMES("irq_enter_rcu"),
		.func = ir_irq_enter,
	},
	[IR_HOOK_IRQ_QUIET] = {
		.names = IPS_HOOK_NAMES("tick_nohz_irq_exit"),
		.func = ir_irq_quiet,
	},
	[IR_HOOK_CAL_TICK] = {
		.names = IPS_HOOK_NAMES("ir_cal_fn_tick"),
		.own = (unsigned long)ir_cal_fn_tick,
		.required = true,
		.quiet = true,
	},
	[IR_HOOK_CAL_FLUSH] = {
		.names = IPS_HOOK_NAMES("ir_cal_fn_flush"),
		.own = (unsigned long)ir_cal_fn_flush,
		.required = true,
		.quiet = true,
	},
	[IR_HOOK_CAL_WAKE] = {
		.names = IPS_HOOK_NAMES("ir_cal_fn_wake"),
		.own = (unsigned long)ir_cal_fn_wake,
		.required = true,
		.quiet = true,
	},
	[IR_HOOK_CAL_SCHED] = {
		.names = IPS_HOOK_NAMES("ir_cal_fn_sched"),
		.own = (unsigned long)ir_cal_fn_sched,
		.required = true,
		.quiet = true,
	},
	[IR_HOOK_CAL_PICK] = {
		.names = IPS_HOOK_NAMES("ir_cal_fn_pick"),
		.own = (unsigned long)ir_cal_fn_pick,
		.required = true,
		.quiet = true,
	},
	[IR_HOOK_CAL_DO_IDLE] = {
		.names = IPS_HOOK_NAMES("ir_cal_fn_do_idle"),
		.own = (unsigned long)ir_cal_fn_do_idle,
		.required = true,
		.quiet = true,
	},
};

/* The hooks of the light instrument; the others are phases=1's only. */
#define IR_LIGHT_HOOKS	(BIT(IR_HOOK_DO_IDLE) | BIT(IR_HOOK_TICK) | \
			 BIT(IR_HOOK_PICK_IDLE) | BIT(IR_HOOK_PICK_IDLE_NEXT) | \
			 BIT(IR_HOOK_CAL_TICK) | BIT(IR_HOOK_CAL_PICK) | \
			 BIT(IR_HOOK_CAL_DO_IDLE))

/* The pick hooks, which pick_hook=0 leaves out. */
#define IR_PICK_HOOKS	(BIT(IR_HOOK_PICK) | BIT(IR_HOOK_PICK_CORE) | \
			 BIT(IR_HOOK_PICK_IDLE) | BIT(IR_HOOK_PICK_IDLE_NEXT))

static struct ips_hook_set ir_hook_set = {
	.hooks = ir_hooks,
	.n = ARRAY_SIZE(ir_hooks),
	.direct = true,
	.decoy = "ir_decoy",
};

/*
 * The hooks of a round as the direct calls reach them: by their call
 * sites, in the order of ir_hot_ip[], each instrument its own chain of
 * tests, which a call site of neither leaves to the set's lookup. The
 * sites are the real ones, once their first hit went through the set, or,
 * while the calibration runs, its own (ir_calibrate()), which thereby
 * takes the very same path.
 */
enum {
	IR_HOT_DO_IDLE, IR_HOT_TICK, IR_HOT_PICK_NEXT, IR_HOT_PICK,	/* both */
	IR_HOT_FLUSH, IR_HOT_WAKE, IR_HOT_SCHED, IR_HOT_PICK_FAIR,	/* phases=1 */
	IR_HOT_NEWIDLE,
	IR_NR_HOT
};

static unsigned long ir_hot_ip[IR_NR_HOT] __read_mostly;
static DEFINE_STATIC_KEY_FALSE(ir_calibrating);

/* The hook of each place, and of the calibration (IR_NR_HOOKS: none). */
static const unsigned int ir_hot_hook[2][2][IR_NR_HOT] = {
	[0] = {	/* light */
		{ IR_HOOK_DO_IDLE, IR_HOOK_TICK, IR_HOOK_PICK_IDLE_NEXT,
		  IR_HOOK_PICK_IDLE, IR_NR_HOOKS, IR_NR_HOOKS, IR_NR_HOOKS,
		  IR_NR_HOOKS, IR_NR_HOOKS },
		{ IR_HOOK_CAL_DO_IDLE, IR_HOOK_CAL_TICK, IR_HOOK_CAL_PICK,
		  IR_NR_HOOKS, IR_NR_HOOKS, IR_NR_HOOKS, IR_NR_HOOKS,
		  IR_NR_HOOKS, IR_NR_HOOKS },
	},
	[1] = {	/* phases=1 */
		{ IR_HOOK_DO_IDLE, IR_HOOK_TICK, IR_HOOK_PICK_IDLE_NEXT,
		  IR_HOOK_PICK_IDLE, IR_HOOK_FLUSH, IR_HOOK_WAKE_POLL,
		  IR_HOOK_SCHEDULE_IDLE, IR_HOOK_PICK, IR_HOOK_NEWIDLE },
		{ IR_HOOK_CAL_DO_IDLE, IR_HOOK_CAL_TICK, IR_NR_HOOKS,
		  IR_NR_HOOKS, IR_HOOK_CAL_FLUSH, IR_HOOK_CAL_WAKE,
		  IR_HOOK_CAL_SCHED, IR_HOOK_CAL_PICK, IR_NR_HOOKS },
	},
};

/* Take the call sites the set knows of the real hooks, or of the calibration's (@cal). */
static void ir_hot_learn(bool cal)
{
	unsigned int i, h;

	for (i = 0; i < IR_NR_HOT; i++) {
		h = ir_hot_hook[ir_phases][cal][i];
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

/* ip == ir_hot_ip[@i]: the place @i's call site. */
#define IR_AT(ip, i)	((ip) == READ_ONCE(ir_hot_ip[i]))

/*
 * What the direct trampoline calls (common/hook.c; Kbuild names it). The
 * light instrument's lean trampoline passes the return address alone;
 * phases=1's the hooked function's return address and first argument too.
 */
notrace void ir_direct(unsigned long ret, unsigned long parent_ip,
		       unsigned long arg0)
{
	unsigned long ip = ret - MCOUNT_INSN_SIZE;

	if (static_branch_likely(&ir_light)) {
		if (IR_AT(ip, IR_HOT_DO_IDLE))
			ir_l_do_idle_hot();
		else if (IR_AT(ip, IR_HOT_TICK))
			ir_l_tick_hot();
		else if (IR_AT(ip, IR_HOT_PICK_NEXT))
			ir_l_pick_next_task_idle_hot();
		else if (IR_AT(ip, IR_HOT_PICK))
			ir_l_pick_task_idle_hot();
		else
			ir_direct_other(ret, 0, 0);
		return;
	}
	if (IR_AT(ip, IR_HOT_DO_IDLE))
		ir_do_idle(ip, parent_ip, arg0);
	else if (IR_AT(ip, IR_HOT_TICK))
		ir_tick(ip, parent_ip, arg0);
	else if (IR_AT(ip, IR_HOT_FLUSH))
		ir_flush(ip, parent_ip, arg0);
	else if (IR_AT(ip, IR_HOT_WAKE))
		ir_wake_poll(ip, parent_ip, arg0);
	else if (IR_AT(ip, IR_HOT_SCHED))
		ir_schedule_idle(ip, parent_ip, arg0);
	else if (IR_AT(ip, IR_HOT_PICK_FAIR))
		ir_pick_fair(ip, parent_ip, arg0);
	else if (IR_AT(ip, IR_HOT_PICK_NEXT))
		ir_pick_next_task_idle(ip, parent_ip, arg0);
	else if (IR_AT(ip, IR_HOT_PICK))
		ir_pick_task_idle(ip, parent_ip, arg0);
	else if (IR_AT(ip, IR_HOT_NEWIDLE))
		ir_newidle(ip, parent_ip, arg0);
	else
		ir_direct_other(ret, parent_ip, arg0);
}

/*
 * The instrument's callbacks where they differ between the two; each
 * calibration hook takes its real counterpart's.
 */
static void ir_hooks_choose(void)
{
	static const unsigned int cal_of[][2] = {
		{ IR_HOOK_CAL_TICK, IR_HOOK_TICK },
		{ IR_HOOK_CAL_FLUSH, IR_HOOK_FLUSH },
		{ IR_HOOK_CAL_WAKE, IR_HOOK_WAKE_POLL },
		{ IR_HOOK_CAL_SCHED, IR_HOOK_SCHEDULE_IDLE },
		{ IR_HOOK_CAL_DO_IDLE, IR_HOOK_DO_IDLE },
	};
	unsigned int i;

	ir_hooks[IR_HOOK_DO_IDLE].func = ir_phases ? ir_do_idle : ir_l_do_idle;
	ir_hooks[IR_HOOK_TICK].func = ir_phases ? ir_tick : ir_l_tick;
	ir_hooks[IR_HOOK_TICK].required = !ir_phases;
	if (ir_phases)
		static_branch_disable(&ir_light);
	/* do_idle() and the tick's take none, the idle picks one or two. */
	ir_hook_set.direct_lean = !ir_phases;
	ir_hooks[IR_HOOK_PICK_IDLE].func = ir_phases ? ir_pick_task_idle :
						    ir_l_pick_task_idle;
	ir_hooks[IR_HOOK_PICK_IDLE_NEXT].func = ir_phases ?
		ir_pick_next_task_idle : ir_l_pick_next_task_idle;
	for (i = 0; i < ARRAY_SIZE(cal_of); i++)
		ir_hooks[cal_of[i][0]].func = ir_hooks[cal_of[i][1]].func;
	/* A pick inside the span: the fair one's, or the light idle one's. */
	ir_hooks[IR_HOOK_CAL_PICK].func = ir_phases ? ir_pick_fair :
					  ir_l_pick_next_task_idle;
	for (i = 0; i < IR_NR_HOOKS; i++) {
		ir_hooks[i].unused = !ir_phases && !(IR_LIGHT_HOOKS & BIT(i));
		ir_hooks[i].skip = !ir_pick_hook && (IR_PICK_HOOKS & BIT(i));
		/* Without its hooks, a pick is nowhere required. */
		if (ir_hooks[i].skip)
			ir_hooks[i].required = false;
	}
}

/*
 * Remove every probe, their grace periods at once; 0 once no CPU is
 * inside any (else the hooks stay and so must the state they write).
 */
static int ir_unhook(void)
{
	int cpu, ret;

	ips_hooks_unregister_start(&ir_hook_set);
	if (ir_tp_switch) {
		tracepoint_probe_unregister(ir_tp_switch, (void *)ir_switch_probe,
					    NULL);
		tracepoint_synchronize_unregister();
		ir_tp_switch = NULL;
	}
	ret = ips_hooks_unregister_wait(&ir_hook_set);
	/* No hook queues test_interrupt's work now: none may run after us. */
	if (!ret && static_branch_unlikely(&ir_test_irq))
		for_each_possible_cpu(cpu)
			irq_work_sync(per_cpu_ptr(&ir_test_work, cpu));
	return ret;
}

/*
 * Register every hook of the instrument chosen. The order does not
 * matter: nothing is counted until the session measures.
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
	ir_hook_set.misname = ir_test_misname;
	ir_hook_set.skipname = ir_test_skip;
	ret = ips_hooks_register(&ir_hook_set);
	if (ret)
		ir_unhook();
	return ret;
}

/*
 * The instrument measured by itself, once the hooks are in place, before
 * measuring and again after: rounds of calls of this module's empty
 * functions, hooked with the counting hooks' own bodies, on a scratch
 * state that takes every round as a re-entry to count; against the same
 * calls unhooked. A fast round (the light instrument: the tick's restart,
 * do_idle(); phases=1: the tick's restart, the flush, a polled wake-up,
 * schedule_idle(), do_idle()) gives what the hooks add to each span, read
 * from the spans the scratch state recorded, and what its hooks cost the
 * round; the same round with a pick what one more hook hit adds. The best
 * of CALIB_RUNS runs of each, interleaved, a run a stretch with interrupts off sized
 * to IPS_CALIB_AIM_NS, one CPU at a time in process context
 * (common/calib.h), as a re-entry runs: not in hard IRQ, its sibling
 * and the other CPUs left alone.
 */
/* Span @s as measured, summed, in ns. */
static u64 ir_raw_ns(const struct ir_cpu *c, unsigned int s)
{
	return ir_phases ? c->raw[s] : ips_clock_ns(c->raw[s]);
}

struct ir_cal_round {
	void (*fn[6])(void);
	unsigned int n;
};

static const struct ir_cal_round ir_cal_light[2] = {
	{ { ir_cal_fn_tick, ir_cal_fn_do_idle }, 2 },
	{ { ir_cal_fn_tick, ir_cal_fn_pick, ir_cal_fn_do_idle }, 3 },
};

static const struct ir_cal_round ir_cal_phases[2] = {
	{ { ir_cal_fn_tick, ir_cal_fn_flush, ir_cal_fn_wake, ir_cal_fn_sched,
	    ir_cal_fn_do_idle }, 5 },
	{ { ir_cal_fn_tick, ir_cal_fn_flush, ir_cal_fn_wake, ir_cal_fn_sched,
	    ir_cal_fn_pick, ir_cal_fn_do_idle }, 6 },
};

/* The same calls as a round's, of the plain function. */
static const struct ir_cal_round ir_cal_plain_rounds[] = {
	{ { ir_cal_plain, ir_cal_plain }, 2 },
	{ { ir_cal_plain, ir_cal_plain, ir_cal_plain }, 3 },
	{ { ir_cal_plain, ir_cal_plain, ir_cal_plain, ir_cal_plain,
	    ir_cal_plain }, 5 },
	{ { ir_cal_plain, ir_cal_plain, ir_cal_plain, ir_cal_plain,
	    ir_cal_plain, ir_cal_plain }, 6 },
};

/* The plain calls as many as @r's. */
static const struct ir_cal_round *ir_cal_plain_of(const struct ir_cal_round *r)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ir_cal_plain_rounds); i++)
		if (ir_cal_plain_rounds[i].n == r->n)
			return &ir_cal_plain_rounds[i];
	return NULL;
}

/* A variant of the calibration: rounds, their count a run, and its best run's counts. */
struct ir_cal_var {
	const struct ir_cal_round *r;
	unsigned int calls;
	struct ir_cpu *best_state;	/* or NULL */
};

/* The variants of one calibration of a CPU, on its scratch state. */
struct ir_cal_vars {
	struct ir_cpu *scratch;
	const struct ir_cal_var *v;
};

/*
 * One run of @calls rounds of variant @i, a stretch with interrupts off
 * (no hook of this CPU runs meanwhile but the calibration's, on the
 * scratch state): clock units. Hooked and plain rounds take the same
 * loop: their difference is the hooks'. A run better than @best leaves
 * the scratch state's counts in the variant's @best_state.
 */
static u64 ir_cal_run(struct ips_calib_cpu *k, void *data, unsigned int i,
		      u64 best)
{
	const struct ir_cal_vars *vs = data;
	const struct ir_cal_var *v = &vs->v[i];
	struct ir_cpu *cur, *scratch = vs->scratch;
	unsigned int n, j;
	u64 t0, t;

	if (!ips_calib_off(k)) {
		ips_calib_on(k);
		return U64_MAX;
	}
	cur = this_cpu_read(ir_this_cpu);
	this_cpu_write(ir_this_cpu, scratch);
	memset(&scratch->n, 0, sizeof(scratch->n));
	memset(scratch->raw, 0, sizeof(scratch->raw));
	ir_round_reset(scratch, true);
	t0 = ips_clock_read();
	for (n = 0; n < v->calls; n++)
		for (j = 0; j < v->r->n; j++)
			v->r->fn[j]();
	t = ips_clock_read() - t0;
	this_cpu_write(ir_this_cpu, cur);
	ips_calib_on(k);
	if (t < best && v->best_state) {
		v->best_state->n = scratch->n;
		memcpy(v->best_state->raw, scratch->raw, sizeof(scratch->raw));
	}
	return t;
}

/*
 * The best of CALIB_RUNS runs of each of @n variants @v, interleaved
 * (ips_calib_best()), ps a round, into @ps. False where the CPU went
 * offline.
 */
static bool ir_cal_best(struct ips_calib_cpu *k, struct ir_cpu *scratch,
			const struct ir_cal_var *v, unsigned int n, u64 *ps)
{
	struct ir_cal_vars vs = { .scratch = scratch, .v = v };
	unsigned int i;

	if (!ips_calib_best(k, ir_cal_run, &vs, CALIB_RUNS, n, ps))
		return false;
	for (i = 0; i < n; i++)
		ps[i] = ips_calib_ps(ps[i], v[i].calls);
	return true;
}

static u32 ir_cal_ps(u64 hooked, u64 plain)
{
	return hooked > plain ? min_t(u64, hooked - plain, U32_MAX) : 0;
}

/* The cost a CPU's drift is read on: what most of its times lose. */
static u32 ir_cal_main(const struct ir_calib *cal)
{
	return ir_phases ? cal->round_ps : cal->span_ps[H_TOTAL];
}

/* A pass of the calibration: its scratch states, and which it is. */
struct ir_cal_pass {
	struct ir_cpu *scratch;	/* two: the rounds', and the best run's counts */
	bool end;		/* the one after the run */
};

static void ir_calib_cpu(struct ips_calib_cpu *k)
{
	const struct ir_cal_pass *a = k->arg;
	const struct ir_cal_round *rounds = ir_phases ? ir_cal_phases : ir_cal_light;
	struct ir_cpu *c = ir_state[k->cpu], *s = a->scratch, *got = s + 1;
	struct ir_calib cal = {};
	unsigned int span, calls, i;
	/*
	 * The rounds, fast ([0]) and with a pick ([1]), hooked and plain,
	 * and the drift's reference: the plain calls of a fast round, as
	 * many as fill a run themselves (a run of the hooked round's count
	 * of them is too short to time well).
	 */
	enum { HOOKED1, PLAIN_REF, PLAIN0, PLAIN1, HOOKED0, NR_VAR };
	struct ir_cal_var v[NR_VAR] = {
		[HOOKED1] = { &rounds[1], 8 },
		[PLAIN_REF] = { ir_cal_plain_of(&rounds[0]), 64 },
		[PLAIN0] = { ir_cal_plain_of(&rounds[0]) },
		[PLAIN1] = { ir_cal_plain_of(&rounds[1]) },
		[HOOKED0] = { &rounds[0], 0, got },
	};
	u64 t[NR_VAR];

	s->calibrating = true;
	/*
	 * Sized first: the heavier round, and the reference, by more calls
	 * (a plain call is short beside the clock's two reads).
	 */
	if (!ir_cal_best(k, s, v, PLAIN_REF + 1, t))
		return;
	/* A run's calls: as many as the heavier round makes in the aim. */
	calls = ips_calib_calls(t[HOOKED1], CALIB_CALLS);
	for (i = 0; i < NR_VAR; i++)
		v[i].calls = calls;
	v[PLAIN_REF].calls = ips_calib_calls(t[PLAIN_REF], CALIB_PLAIN_CALLS);
	if (!ir_cal_best(k, s, v, NR_VAR, t))
		return;
	cal.round_ps = ir_cal_ps(t[HOOKED0], t[PLAIN0]);
	cal.plain_ps = min_t(u64, U32_MAX, t[PLAIN_REF]);
	cal.round_hits = rounds[0].n;
	/* Noise can order two near runs either way: no difference wraps. */
	cal.hit_ps = t[HOOKED1] > t[HOOKED0] ?
		     ir_cal_ps(t[HOOKED1] - t[HOOKED0],
			       t[PLAIN1] > t[PLAIN0] ? t[PLAIN1] - t[PLAIN0] : 0) : 0;
	for (span = 0; span < IR_NR_HIST; span++) {
		u64 raw = div_u64(ir_raw_ns(got, span) * 1000, calls);
		u32 hits = div_u64(got->n.v[IR_HITS + span], calls);
		/*
		 * Between two hooks of a span the rounds make a call of the
		 * next function, as a plain call: not the hooks' cost. A
		 * span holds one such gap per hook hit it is charged.
		 */
		u64 gaps = div_u64(t[PLAIN0], rounds[0].n) * hits;

		cal.span_ps[span] = min_t(u64, U32_MAX, raw > gaps ? raw - gaps : 0);
		cal.span_hits[span] = hits;
	}
	/* A second try kept only if better (common/calib.c). */
	if (!ips_calib_drift_keep(&c->drift, a->end, k->again,
				  ir_cal_main(&cal), cal.plain_ps, calls))
		return;
	if (a->end)
		c->cal_end = cal;
	else
		c->cal = cal;
}

static const struct ips_calib_drift *ir_drift_of(int cpu)
{
	return &ir_state[cpu]->drift;
}

static bool ir_cpu_again(int cpu)
{
	return ips_calib_drift_past(ir_drift_of(cpu), IPS_CALIB_AGAIN_PCT10);
}

/* The scratch states of the calibration: two struct ir_cpu. */
static struct ir_cpu *ir_scratch;
/* The passes before and after the run. */
static struct ips_calib_pass ir_cal_pass[2];

/*
 * Calibrate every measured CPU, one after the other: before the run, or
 * after it (@end), within CALIB_END_BUDGET_NS. A CPU gone offline
 * meanwhile keeps costs of 0 (nothing removed), and is not counted as
 * calibrated.
 */
static void ir_calibrate(bool end)
{
	const struct ir_cal_round *rounds = ir_phases ? ir_cal_phases : ir_cal_light;
	struct ir_cal_pass a = { .scratch = ir_scratch, .end = end };
	unsigned int i, j;
	struct ir_cpu *cur;

	/*
	 * The calibration's rounds take the path of the real ones: a first
	 * call of each of its functions, through the set, makes its call
	 * site known (on a scratch state, with interrupts off: no real hook
	 * of this CPU writes it meanwhile); then the direct calls test for
	 * them where they test for the real ones.
	 */
	local_irq_disable();
	cur = this_cpu_read(ir_this_cpu);
	this_cpu_write(ir_this_cpu, ir_scratch);
	for (i = 0; i < 2; i++)
		for (j = 0; j < rounds[i].n; j++)
			rounds[i].fn[j]();
	this_cpu_write(ir_this_cpu, cur);
	local_irq_enable();
	static_branch_enable(&ir_calibrating);
	ir_hot_learn(true);
	if (end)
		ips_calib_end(ir_mask, ir_calib_cpu, &a, ir_cpu_again,
			      CALIB_END_BUDGET_NS, &ir_cal_pass[1]);
	else
		ips_calib_start(ir_mask, ir_calib_cpu, &a, &ir_cal_pass[0]);
	ir_hot_learn(false);
	static_branch_disable(&ir_calibrating);
}

/*
 * After the run (ir_finish()), the CPUs whose cost's share of the plain
 * calls moved more than the limit, or which have no calibration after
 * it: their times are unproven. The largest drift, tenths of %.
 */
static unsigned int ir_drift_over;
static u64 ir_drift_max;

/* ---- the report -------------------------------------------------------- */

/* The result's keys of the counts before IR_PICKED, in their order. */
static const char * const ir_count_name[] = {
	[IR_ROUNDS] = "rounds", [IR_REENTRIES] = "reentries",
	[IR_SWITCHED] = "switched", [IR_SWITCHED_FAIR] = "switched_fair",
	[IR_SWITCHED_PICK] = "switched_pick", [IR_PICK_FAIR] = "pick_fair",
	[IR_PICK_IDLE] = "pick_idle", [IR_NEWIDLE] = "newidle",
	[IR_INTERRUPTED] = "reentries_interrupted",
};

/* Whether the count @i is a figure of this run's instrument. */
static bool ir_count_shown(unsigned int i)
{
	switch (i) {
	case IR_PICK_FAIR:
		return ir_phases;
	case IR_NEWIDLE:
		/* Not counted at all where its hook is missing. */
		return ir_phases && ir_hooks[IR_HOOK_NEWIDLE].hooked;
	case IR_INTERRUPTED:
		/* Counted where every interrupt's entry is hooked. */
		return ir_phases && ir_hooks[IR_HOOK_IRQ_ENTER].hooked;
	default:
		return true;
	}
}

/* The first span of this run's instrument: every phase, or the total only. */
static unsigned int ir_first_span(void)
{
	/* The spans from the first to IR_NR_HIST: the total is the last. */
	BUILD_BUG_ON(IR_NR_HIST - H_TOTAL != 1);
	return ir_phases ? H_TICK : H_TOTAL;
}

/*
 * What the hooks cost the rounds of the re-entries counted in @n, on a CPU
 * calibrated @cal: a fast round's cost each, and a hit's for every hit
 * more (or less) than a fast round has.
 */
static u64 ir_cost_ps(const struct ir_count *n, const struct ir_calib *cal)
{
	const u64 *v = n->v;
	s64 more = ir_phases ? v[IR_ROUND_HITS] - v[IR_REENTRIES] * cal->round_hits :
		   v[IR_HITS + H_TOTAL] - v[IR_REENTRIES] * cal->span_hits[H_TOTAL];
	s64 ps = v[IR_REENTRIES] * cal->round_ps + more * cal->hit_ps;

	return ps > 0 ? ps : 0;
}

/*
 * The light instrument's total span, summed, with the calibrated cost of
 * each re-entry's span removed (its hits beyond a fast re-entry's at a
 * hit's cost each), ns.
 */
static u64 ir_light_total_ns(const struct ir_cpu *c)
{
	const u64 *v = c->n.v;
	s64 more = v[IR_HITS + H_TOTAL] - v[IR_REENTRIES] * c->cal.span_hits[H_TOTAL];
	s64 ps = v[IR_REENTRIES] * c->cal.span_ps[H_TOTAL] + more * c->cal.hit_ps;
	u64 raw = ir_raw_ns(c, H_TOTAL), cost = ps > 0 ? div_u64(ps, 1000) : 0;

	return raw > cost ? raw - cost : 0;
}

static void ir_emit_count(struct seq_buf *sb, const char *pfx,
			  const struct ir_count *n, u64 cost_ps)
{
	const u64 *v = n->v;
	u64 round_hits;
	unsigned int i;

	/* A name for each count before IR_PICKED, and for each wake-up. */
	BUILD_BUG_ON(ARRAY_SIZE(ir_count_name) != IR_PICKED);
	BUILD_BUG_ON(ARRAY_SIZE(wake_name) != NR_WAKE);
	for (i = 0; i < IR_PICKED; i++)
		if (ir_count_shown(i))
			seq_buf_printf(sb, "%s%s=%llu\n", pfx, ir_count_name[i],
				       v[i]);
	if (ir_phases)
		ips_result_pct(sb, pfx, "pick_fair_pct", v[IR_PICK_FAIR],
			       v[IR_REENTRIES]);
	ips_result_pct(sb, pfx, "pick_idle_pct", v[IR_PICK_IDLE],
		       v[IR_REENTRIES]);
	/* The light instrument sees the idle class's pick only. */
	ips_result_pct(sb, pfx, "fast_pct", v[IR_REENTRIES] -
		       v[ir_phases ? IR_PICKED : IR_PICK_IDLE], v[IR_REENTRIES]);
	for (i = 0; ir_phases && i < NR_WAKE; i++)
		seq_buf_printf(sb, "%s%s=%llu\n", pfx, wake_name[i],
			       v[IR_WOKE + i]);
	/* The light instrument: the tick's, and the total's (its picks, do_idle()'s). */
	round_hits = ir_phases ? v[IR_ROUND_HITS] :
		     v[IR_REENTRIES] + v[IR_HITS + H_TOTAL];
	seq_buf_printf(sb, "%sround_hook_hits=%llu\n", pfx, round_hits);
	ips_result_ratio(sb, pfx, "hook_hits_per_reentry", round_hits,
			 v[IR_REENTRIES]);
	ips_result_ratio(sb, pfx, "hook_cost_ns", cost_ps,
			 v[IR_REENTRIES] * 1000);
}

/*
 * The spans: hook hits inside, the mean as measured, and the kernel's
 * figures: phases=1, the histogram of each with the cost removed per
 * re-entry; the light instrument, the total's mean with the cost removed
 * (@kernel_ns, the sum).
 */
static void ir_emit_spans(struct seq_buf *sb, const char *pfx,
			  const struct ir_count *n, const u64 *raw_ns,
			  const struct ips_hist *hist, u64 kernel_ns, bool buckets)
{
	unsigned int s;
	char key[24];

	BUILD_BUG_ON(ARRAY_SIZE(hist_name) != IR_NR_HIST);
	for (s = ir_first_span(); s < IR_NR_HIST; s++) {
		if (s == H_TICK && !ir_hooks[IR_HOOK_TICK].hooked)
			continue;
		snprintf(key, sizeof(key), "%s_hook_hits", hist_name[s]);
		seq_buf_printf(sb, "%s%s=%llu\n", pfx, key, n->v[IR_HITS + s]);
		snprintf(key, sizeof(key), "%s_raw_mean_ns", hist_name[s]);
		ips_result_ratio(sb, pfx, key, raw_ns[s], n->v[IR_REENTRIES]);
		if (ir_phases) {
			ips_hist_emit(sb, pfx, hist_name[s], &hist[s], buckets);
			snprintf(key, sizeof(key), "%s_below_cost", hist_name[s]);
			seq_buf_printf(sb, "%s%s=%llu\n", pfx, key, hist[s].below);
			continue;
		}
		snprintf(key, sizeof(key), "%s_n", hist_name[s]);
		seq_buf_printf(sb, "%s%s=%llu\n", pfx, key, n->v[IR_REENTRIES]);
		snprintf(key, sizeof(key), "%s_mean_ns", hist_name[s]);
		seq_buf_printf(sb, "%s%s=%llu\n", pfx, key,
			       n->v[IR_REENTRIES] ?
			       div64_u64(kernel_ns, n->v[IR_REENTRIES]) : 0);
	}
}

static void ir_count_add(struct ir_count *sum, const struct ir_count *n)
{
	unsigned int i;

	for (i = 0; i < IR_NR_COUNT; i++)
		sum->v[i] += n->v[i];
}

/*
 * Whether the pick hook showed that it fires, without which SM_IDLE's fast
 * path cannot be told from a hook that never fires. phases=1: the fair
 * pick, proven by a counted round (a re-entry or a round that switched to
 * a fair task) that hit it. The light instrument: the idle class's pick,
 * which a round that switched to any task hits when the task leaves.
 */
static const char *ir_pick_proof(const struct ir_count *t)
{
	const u64 *v = t->v;

	if (ir_phases) {
		if (v[IR_SWITCHED_PICK] || v[IR_PICK_FAIR])
			return "proven";
		return v[IR_SWITCHED_FAIR] ? "unproven" : "untested";
	}
	if (v[IR_SWITCHED_PICK] || v[IR_PICK_IDLE])
		return "proven";
	return v[IR_SWITCHED] ? "unproven" : "untested";
}

/* The hook whose proof pick_hook= reports (the light instrument's: the idle pick). */
static unsigned int ir_pick_hook_index(void)
{
	return ir_phases ? IR_HOOK_PICK : IR_HOOK_PICK_IDLE;
}

static enum ips_hook_proof ir_pick_hook_proof(const struct ir_count *t)
{
	const char *p = ir_pick_proof(t);

	return !strcmp(p, "proven") ? IPS_HOOK_PROVEN :
	       !strcmp(p, "unproven") ? IPS_HOOK_UNPROVEN : IPS_HOOK_UNTESTED;
}

/*
 * Every hook's proof, from where it fired on the measured CPUs and an
 * independent sign that its function ran there: the idle task ran
 * (sched_switch) for do_idle; a round ended (do_idle again) for the tick's
 * restart, the flush and schedule_idle(), which every round calls; a
 * re-entry called the fair pick, which calls the newidle balance when it
 * finds nothing; a real IPI came
 * (generic_smp_call_function_single_interrupt) for the queue flush, which
 * that handler calls. The pick hook keeps its own proof above; the
 * IPI and timer hooks have no such sign: fired or untested. With phases=1
 * the wake-up split rests on all three wake hooks: one not in place reads
 * missing.
 */
static void ir_proofs(const struct ir_count *t, enum ips_hook_proof *p)
{
	unsigned int fired = 0, i;
	bool idle_ran = false;
	int cpu;

	/* A hook for each index, a bit of @fired each. */
	BUILD_BUG_ON(ARRAY_SIZE(ir_hooks) != IR_NR_HOOKS);
	BUILD_BUG_ON(BITS_PER_TYPE(fired) < IR_NR_HOOKS);
	/* The wake-up hooks, looped over from the polled one to the timer's. */
	BUILD_BUG_ON(IR_HOOK_WAKE_IPI - IR_HOOK_WAKE_POLL != 1 ||
		     IR_HOOK_WAKE_TIMER - IR_HOOK_WAKE_IPI != 1 ||
		     IR_HOOK_IRQ_QUIET - IR_HOOK_IRQ_ENTER != 1);
	for_each_cpu(cpu, ir_mask) {
		fired |= ir_state[cpu]->fired;
		idle_ran |= ir_state[cpu]->idle_ran;
	}
#define FIRED(h) (!!(fired & BIT(h)))
	p[IR_HOOK_DO_IDLE] = ips_hook_prove(FIRED(IR_HOOK_DO_IDLE), idle_ran);
	p[IR_HOOK_FLUSH] = ips_hook_prove(FIRED(IR_HOOK_FLUSH), t->v[IR_ROUNDS]);
	p[IR_HOOK_SCHEDULE_IDLE] = ips_hook_prove(FIRED(IR_HOOK_SCHEDULE_IDLE), t->v[IR_ROUNDS]);
	p[IR_HOOK_PICK] = ir_pick_hook_proof(t);
	p[IR_HOOK_NEWIDLE] = ips_hook_prove(FIRED(IR_HOOK_NEWIDLE), t->v[IR_PICK_FAIR]);
	p[IR_HOOK_WAKE_POLL] = ips_hook_prove(FIRED(IR_HOOK_WAKE_POLL),
					      FIRED(IR_HOOK_WAKE_IPI));
	p[IR_HOOK_WAKE_IPI] = ips_hook_prove(FIRED(IR_HOOK_WAKE_IPI), false);
	p[IR_HOOK_WAKE_TIMER] = ips_hook_prove(FIRED(IR_HOOK_WAKE_TIMER), false);
	/* An interrupt's entry, shown by an IPI's or a timer's. */
	p[IR_HOOK_IRQ_ENTER] = ips_hook_prove(FIRED(IR_HOOK_IRQ_ENTER),
					      FIRED(IR_HOOK_WAKE_IPI) ||
					      FIRED(IR_HOOK_WAKE_TIMER));
	p[IR_HOOK_IRQ_QUIET] = ips_hook_prove(FIRED(IR_HOOK_IRQ_QUIET), false);
	for (i = IR_HOOK_WAKE_POLL; ir_phases && i <= IR_HOOK_WAKE_TIMER; i++)
		if (!ir_hooks[i].hooked)
			p[i] = IPS_HOOK_MISSING;
	/* The split's labels rest on the quiet end, the interrupted count on the entry. */
	for (i = IR_HOOK_IRQ_ENTER; ir_phases && i <= IR_HOOK_IRQ_QUIET; i++)
		if (!ir_hooks[i].hooked)
			p[i] = IPS_HOOK_MISSING;
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
	if (!ir_phases && !ir_hooks[IR_HOOK_PICK_IDLE].hooked)
		p[IR_HOOK_PICK_IDLE] = ir_pick_hook_proof(t);
	for (i = IR_HOOK_CAL_TICK; i < IR_NR_HOOKS; i++)
		p[i] = IPS_HOOK_UNTESTED;
#undef FIRED
}

static unsigned int ir_unproven(const struct ir_count *t)
{
	enum ips_hook_proof p[IR_NR_HOOKS];
	unsigned int i, n = 0;

	ir_proofs(t, p);
	for (i = 0; i < IR_NR_HOOKS; i++) {
		/* Without the pick hooks (pick_hook=0) fast_pct is unproven too. */
		n += (ir_hooks[i].hooked || i == ir_pick_hook_index()) &&
		     p[i] == IPS_HOOK_UNPROVEN;
		n += p[i] == IPS_HOOK_MISSING;
	}
	return n;
}

static const char *ir_status(const struct ir_count *t, bool interrupted)
{
	if (interrupted)
		return "interrupted";
	if (ir_unproven(t) || ir_drift_over)
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

/*
 * The spread over the measured CPUs of the calibration's value at @off:
 * "calib_<name>_ns", "..._min", "..._max". (The one after the run is in
 * each CPU's keys, and its drift in the totals: the log keeps its lines.)
 */
static void ir_emit_spread(struct seq_buf *sb, const char *name, size_t off)
{
	char key[40];

	snprintf(key, sizeof(key), "calib_%s_ns", name);
	ips_result_spread(sb, key, (void * const *)ir_state, ir_mask,
			  offsetof(struct ir_cpu, cal) + off);
}

static void ir_emit_spreads(struct seq_buf *sb)
{
	unsigned int s;

	ir_emit_spread(sb, "round", offsetof(struct ir_calib, round_ps));
	ir_emit_spread(sb, "hit", offsetof(struct ir_calib, hit_ps));
	for (s = ir_first_span(); s < IR_NR_HIST; s++)
		ir_emit_spread(sb, hist_name[s], offsetof(struct ir_calib, span_ps[s]));
}

/* A CPU's calibration, as "<pfx><what>_...": @what "calib" or "calib_end". */
static void ir_emit_calib(struct seq_buf *sb, const char *pfx, const char *what,
			  const struct ir_calib *cal, u32 calls)
{
	unsigned int s;
	char key[40];

	seq_buf_printf(sb, "%s%s_calls=%u\n", pfx, what, calls);
	snprintf(key, sizeof(key), "%s_round_ns", what);
	ips_result_ratio(sb, pfx, key, cal->round_ps, 1000);
	seq_buf_printf(sb, "%s%s_round_hits=%u\n", pfx, what, cal->round_hits);
	snprintf(key, sizeof(key), "%s_hit_ns", what);
	ips_result_ratio(sb, pfx, key, cal->hit_ps, 1000);
	snprintf(key, sizeof(key), "%s_plain_ns", what);
	ips_result_ratio(sb, pfx, key, cal->plain_ps, 1000);
	for (s = ir_first_span(); s < IR_NR_HIST; s++) {
		snprintf(key, sizeof(key), "%s_%s_ns", what, hist_name[s]);
		ips_result_ratio(sb, pfx, key, cal->span_ps[s], 1000);
		seq_buf_printf(sb, "%s%s_%s_hits=%u\n", pfx, what, hist_name[s],
			       cal->span_hits[s]);
	}
}

/* The two passes of the calibration, and the drift (common/calib.c). */
static void ir_emit_passes(struct seq_buf *sb)
{
	ips_calib_emit(sb, ir_cal_pass, ir_mask, ir_drift_of, ir_drift_over,
		       ir_drift_max);
}

static void ir_emit(struct seq_buf *sb, bool interrupted)
{
	enum ips_hook_proof proofs[IR_NR_HOOKS];
	u64 raw_ns[IR_NR_HIST] = {}, cost_ps = 0, kernel_ns = 0;
	/* static: merging cannot fail after the run; one report a load */
	static struct ips_hist all[IR_NR_HIST];
	struct ir_count tot;
	unsigned int s;
	char pfx[24];
	int cpu;

	ir_total(&tot);
	ips_result_header(sb, IR_FORMAT, ir_duration ? "timed" : "until_stop");
	seq_buf_printf(sb, "instrument=%s\n", ir_phases ? "phases" : "light");
	seq_buf_printf(sb, "times=kernel\n");
	seq_buf_printf(sb, "clock=%s\n", ips_clock_name());
	seq_buf_printf(sb, "hooks_via=%s\n", ips_hooks_how(&ir_hook_set));
	seq_buf_printf(sb, "cpulist=%*pbl\n", cpumask_pr_args(ir_mask));
	seq_buf_printf(sb, "status=%s\n", ir_status(&tot, interrupted));
	seq_buf_printf(sb, "measured_ns=%llu\n",
		       ir_session.stop_ns - ir_session.start_ns);
	ips_hooks_emit(sb, &ir_hook_set, "sched_switch");
	seq_buf_printf(sb, "pick_hook=%s\n", ir_pick_proof(&tot));
	ir_proofs(&tot, proofs);
	ips_hooks_emit_proofs(sb, &ir_hook_set, proofs);
	ir_emit_passes(sb);
	ir_emit_spreads(sb);

	/* The histograms summed over the CPUs, without their buckets. */
	for (s = 0; s < IR_NR_HIST; s++)
		ips_hist_init(&all[s]);
	for_each_cpu(cpu, ir_mask) {
		const struct ir_cpu *c = ir_state[cpu];
		u64 cpu_cost = ir_cost_ps(&c->n, &c->cal);
		u64 cpu_raw[IR_NR_HIST], cpu_kernel = ir_phases ? 0 : ir_light_total_ns(c);

		snprintf(pfx, sizeof(pfx), "cpu%d.", cpu);
		ir_emit_calib(sb, pfx, "calib", &c->cal, c->drift.calls[0]);
		ir_emit_calib(sb, pfx, "calib_end", &c->cal_end, c->drift.calls[1]);
		ips_calib_drift_emit(sb, pfx, &c->drift);
		for (s = 0; s < IR_NR_HIST; s++)
			cpu_raw[s] = ir_raw_ns(c, s);
		ir_emit_count(sb, pfx, &c->n, cpu_cost);
		ir_emit_spans(sb, pfx, &c->n, cpu_raw, c->hist, cpu_kernel, true);
		cost_ps += cpu_cost;
		kernel_ns += cpu_kernel;
		for (s = 0; s < IR_NR_HIST; s++) {
			raw_ns[s] += cpu_raw[s];
			ips_hist_merge(&all[s], &c->hist[s]);
		}
	}
	ir_emit_count(sb, "total.", &tot, cost_ps);
	ir_emit_spans(sb, "total.", &tot, raw_ns, all, kernel_ns, false);
}

static size_t ir_result_size(void)
{
	size_t size = 8192;
	unsigned int s;
	int cpu;

	for_each_cpu(cpu, ir_mask) {
		const struct ir_cpu *c = ir_state[cpu];

		size += 4096;
		for (s = 0; s < IR_NR_HIST; s++)
			size += 64 * ips_hist_used(&c->hist[s]);
	}
	return size;
}

/*
 * The measurement has ended: unhook (once that returns, every hook that
 * counted has returned), then print and publish the result. Where ftrace
 * refused to remove the hooks, the state stays (ir_unhooked is false) for
 * the hooks that may still write it.
 */
static bool ir_unhooked = true;

static void ir_finish(bool interrupted)
{
	struct ir_count tot;

	/* Hooked still, not measuring: what the hooks cost now. */
	if (!interrupted)
		ir_calibrate(true);
	ir_drift_over = ips_calib_drift_over(ir_mask, ir_drift_of, &ir_drift_max);
	if (ir_unhook())
		ir_unhooked = false;
	ir_total(&tot);
	if (!interrupted && !strcmp(ir_pick_proof(&tot), "unproven"))
		pr_warn("the pick hook never fired in %llu rounds that switched to a task: fast_pct is unproven\n",
			ir_phases ? tot.v[IR_SWITCHED_FAIR] : tot.v[IR_SWITCHED]);
	if (!interrupted && ir_drift_over)
		pr_warn("%u CPUs' cost of the instrument moved more than %u.%u%% over the run, or could not be measured after it (calib_drift_* in the result): the times are unproven\n",
			ir_drift_over, IPS_CALIB_DRIFT_LIMIT_PCT10 / 10,
			IPS_CALIB_DRIFT_LIMIT_PCT10 % 10);
	if (!interrupted && ir_unproven(&tot))
		pr_warn("%u hooks never fired where their function ran, or are missing: their figures are unproven (proof.* in the result)\n",
			ir_unproven(&tot));
	ips_result_report(&ir_session.result, KBUILD_MODNAME, ir_result_size(),
			  ir_emit, interrupted);
}

/* ---- init and exit ----------------------------------------------------- */

/* Free the state, unless hooks that write it could not be removed. */
static void ir_free_state(void)
{
	int cpu;

	if (!ir_unhooked)
		return;
	for_each_possible_cpu(cpu)
		per_cpu(ir_this_cpu, cpu) = NULL;
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
	if (ir_test_interrupt >= IR_NR_TEST_IRQ) {
		pr_err("test_interrupt=%u: 0, 1 (an irq_work) or 2 (a reschedule IPI)\n",
		       ir_test_interrupt);
		return -EINVAL;
	}
	if (ir_test_interrupt && (!ir_phases || !IS_ENABLED(CONFIG_X86))) {
		pr_err("test_interrupt=%u: counted with phases=1 only, on x86\n",
		       ir_test_interrupt);
		return -EINVAL;
	}
	return 0;
}

/* test_interrupt=: each CPU's interrupt work, then the hooks' key. */
static void ir_test_irq_init(void)
{
	int cpu;

	/* In hard IRQ, on PREEMPT_RT too. */
	for_each_possible_cpu(cpu)
		per_cpu(ir_test_work, cpu) = IRQ_WORK_INIT_HARD(ir_test_irq_fn);
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
	ir_hooks_choose();
	ret = ir_check_test_params();
	if (ret)
		return ret;
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
	for_each_cpu(cpu, ir_mask) {
		unsigned int s;

		for (s = 0; s < IR_NR_HIST; s++)
			ips_hist_init(&ir_state[cpu]->hist[s]);
		per_cpu(ir_this_cpu, cpu) = ir_state[cpu];
	}
	return 0;
err:
	ir_free_state();
	return ret;
}

/*
 * What insmod returns after @ret: 0 where ftrace refused to remove the
 * hooks, for a failed init would free the module they call into (it stays
 * loaded, pinned, its state kept, and the log says so).
 */
static int ir_init_ret(int ret)
{
	return ir_unhooked ? ret : 0;
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
	/* Hooked, not yet measuring: what the hooks cost on each CPU. */
	ir_calibrate(false);
	ips_session_start(&ir_session, ir_duration);
	ips_session_unlock(&ir_session);
	ips_result_log_params("start");

	if (!ir_duration)
		return ips_session_control(&ir_session);
	ret = ips_session_sleep(&ir_session);
	if (ret)
		ir_free_state();
	return ir_init_ret(ret);
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
