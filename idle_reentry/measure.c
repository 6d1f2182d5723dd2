// SPDX-License-Identifier: GPL-2.0
/*
 * idle_reentry: spans, and the bodies of the light and phases=1 hooks.
 * Part of idle_reentry_main.c's unit: included there, in its order.
 */

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
	if (s == H_TOTAL && c->hist_idle)
		ips_hist_add_net(&c->hist_idle[c->idle_slot], ns, cost);
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
	ips_idle_window(&c->idle);
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
 * A light hook: its body as a function of no argument, which the direct
 * calls reach (ir_direct()), and the set's callback, which calls it.
 */
#define IR_LIGHT_HOOK(cb, body)						\
static noinline notrace void ir_l_##cb##_hot(void)			\
{									\
	body;								\
}									\
									\
static void ir_l_##cb(unsigned long ip, unsigned long parent_ip,	\
		      unsigned long arg0)				\
{									\
	ir_l_##cb##_hot();						\
}

IR_LIGHT_HOOK(do_idle, ir_l_do_idle_body())
IR_LIGHT_HOOK(tick, ir_l_tick_body())
IR_LIGHT_HOOK(pick_task_idle, ir_l_pick(IR_HOOK_PICK_IDLE))
IR_LIGHT_HOOK(pick_next_task_idle, ir_l_pick(IR_HOOK_PICK_IDLE_NEXT))

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
		/* The state the round entered last: the one it left. */
		if (c->hist_idle) {
			c->idle_slot = ips_idle_seen_slot(&ir_idle, &c->idle);
			c->reentry_idle[ir_wake_of(c->wake)][c->idle_slot]++;
		}
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

/*
 * idle_states=1: an idle entry here and its state; an exit counts only as
 * a hit. It fires in the idle loop, before the tick's restart starts a
 * re-entry's spans and after do_idle() ended the last: inside no span.
 */
static void ir_idle_probe(void *data, unsigned int state, unsigned int cpu)
{
	struct ir_cpu *c = ir_this();

	if (!c)
		return;
	c->idle_hits++;
	ips_idle_enter(&c->idle, state);
}

/* The tracepoints probed: sched_switch always, cpu_idle with idle_states=1. */
enum { IR_TP_SWITCH, IR_TP_IDLE, NR_IR_TPS };

static struct ips_tp_probe ir_tps[NR_IR_TPS] = {
	[IR_TP_SWITCH] = { "sched_switch", ir_switch_probe },
	[IR_TP_IDLE] = { "cpu_idle", ir_idle_probe },
};
