// SPDX-License-Identifier: GPL-2.0
/*
 * nohz_csd: the probes and hooks, and what they count.
 * Part of nohz_csd_main.c's unit: included there, in its order.
 */

/* ---- the measurement --------------------------------------------------- */

/*
 * Every probe counts only while the session measures: after all of them are
 * in place and until one instant before any is removed; the session's stop
 * waits for every handler that saw it measuring: all of them run with
 * interrupts, preemption or bottom halves disabled, where RCU is watching.
 * That also covers the parts of a counted event that run after the check: a
 * nohz_csd_func() call runs with interrupts disabled from its entry to its
 * return handler, a SCHED_SOFTIRQ run with bottom halves disabled from its
 * entry to its exit.
 */

static __always_inline struct nc_cpu *nc_this(void)
{
	return this_cpu_read(nc_this_cpu);
}

/* A probe hit of kind @k: counted first thing in every probe. */
static __always_inline void nc_count(struct nc_cpu *c, unsigned int k)
{
	local_inc(&c->kind_hits[k]);
	local_inc(&c->hits);
	local_add(c->cal.hit_ps[k], &c->acc);
}

/* Now, and the hits so far: with interrupts off (or none counting here). */
static __always_inline void nc_stamp(struct nc_cpu *c, struct nc_stamp *st)
{
	st->t = ips_clock_read();
	st->acc = local_read(&c->acc);
	st->hits = local_read(&c->hits);
}

/*
 * A delay from @from to @to: as measured, and with the calibrated cost of
 * the probes inside removed: a span of the fewest hits' cost, and each
 * hit's more (or less) than such a span holds.
 */
static __always_inline void nc_delay_add(struct nc_cpu *c,
					 const struct nc_stamp *from,
					 const struct nc_stamp *to)
{
	u64 raw = ips_clock_ns(to->t - from->t), acc = to->acc - from->acc;
	s64 cost_ps = (s64)c->cal.span_ps + (s64)acc - (s64)c->cal.span_acc_ps;
	u64 cost = cost_ps > 0 ? div_u64(cost_ps, 1000) : 0;

	c->delay_raw_ns += raw;
	c->delay_hits += to->hits - from->hits;
	c->delay_acc += acc;
	ips_hist_add_net(&c->delay, raw, cost);
	if (c->delay_idle)
		ips_hist_add_net(&c->delay_idle[from->slot], raw, cost);
}

static inline bool sched_softirq_pending(void)
{
	return local_softirq_pending() & BIT(SCHED_SOFTIRQ);
}

/*
 * nohz_csd_func(): a kick arrived. The kprobe runs with interrupts disabled
 * (so does every nohz_csd_func() call), the return handler sees what the
 * call did. An entry that does not count returns 1: no return handler.
 */
struct nc_csd_data {
	u8 dlv;
	bool idle;
	bool was_pending;
	struct nc_stamp t;
};

/*
 * Each probe is a body shared with the calibration, which runs it on a
 * scratch state taking the kernel's state as given (@measuring and the
 * like).
 */
static __always_inline int nc_csd_entry_body(struct nc_cpu *c,
					     struct nc_csd_data *d,
					     bool measuring)
{
	/* NC_KICK_POLL + DLV_*: the three counts in DLV_* order. */
	BUILD_BUG_ON(NC_KICK_POLL + DLV_IRQ != NC_KICK_IRQ ||
		     NC_KICK_POLL + DLV_OTHER != NC_KICK_OTHER);
	if (!measuring)
		return 1;
	c->n[NC_KICKS]++;
	d->idle = is_idle_task(current);
	if (in_hardirq())
		d->dlv = DLV_IRQ;
	else if (d->idle)
		d->dlv = DLV_POLL;
	else
		d->dlv = DLV_OTHER;
	c->n[NC_KICK_POLL + d->dlv]++;
	d->was_pending = sched_softirq_pending();
	nc_stamp(c, &d->t);
	/*
	 * The state this CPU entered last in this idle round, none when it
	 * entered none (awake, or on its way to a state).
	 */
	d->t.slot = 0;
	if (nc_idle_states) {
		d->t.slot = d->idle ? ips_idle_seen_slot(&nc_idle, &c->idle) : 0;
		c->kick_idle[d->dlv][d->t.slot]++;
	}
	c->csd_raised = false;
	c->in_csd = true;
	return 0;
}

static int nc_csd_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct nc_cpu *c = nc_this();

	if (!c)
		return 1;
	nc_count(c, K_KRETPROBE);
	return nc_csd_entry_body(c, (struct nc_csd_data *)ri->data,
				 ips_session_measuring(&nc_session));
}

static int nc_csd_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct nc_csd_data *d = (struct nc_csd_data *)ri->data;
	struct nc_cpu *c = nc_this();

	if (!c)
		return 0;
	c->in_csd = false;
	if (c->csd_raised) {
		c->n[NC_RAISED]++;
		if (!c->awaiting++)
			c->t_kick = d->t;
		/* Its flags may be read by the run this interrupt cut into. */
		if (c->in_run && !c->run_balanced && !c->mid++)
			c->t_mid = d->t;
		return 0;
	}
	if (d->idle) {
		c->n[NC_DROPPED_IDLE]++;
		c->drops_open++;
	} else {
		c->n[NC_DROPPED_BUSY]++;
	}
	if (d->dlv == DLV_POLL) {
		c->n[NC_DROPPED_POLL]++;
		c->poll_drops_open++;
	}
	if (d->was_pending)
		c->n[NC_DROPPED_PENDING]++;
	return 0;
}

static struct kretprobe nc_csd_probe = {
	.kp.symbol_name	= "nohz_csd_func",
	.entry_handler	= nc_csd_entry,
	.handler	= nc_csd_return,
	.data_size	= sizeof(struct nc_csd_data),
};

/*
 * wake_up_process(): count ksoftirqd wakeups from inside a counted
 * nohz_csd_func() call (raise_softirq_irqoff() outside interrupt context).
 */
static int nc_wake_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct task_struct *t;
	struct nc_cpu *c;

	c = nc_this();
	if (!c)
		return 0;
	nc_count(c, K_KPROBE);
	if (!c->in_csd)
		return 0;
	t = (struct task_struct *)regs_get_kernel_argument(regs, 0);
	if (t && (t->flags & PF_KTHREAD) && !strncmp(t->comm, "ksoftirqd/", 10))
		c->n[NC_KSOFTIRQD_WAKEUPS]++;
	return 0;
}

static struct kprobe nc_wake_probe = {
	.symbol_name	= "wake_up_process",
	.pre_handler	= nc_wake_pre,
};

/*
 * Tracepoints of the softirq core. softirq_raise fires in the kernel's own
 * __raise_softirq_irqoff(), also when raise_softirq_irqoff() (notrace, and
 * free to inline it) is the caller: a counted nohz_csd_func() call that
 * fires it for SCHED_SOFTIRQ stored its flags in the runqueue and raised
 * the softirq. softirq_entry and softirq_exit bracket each run of the
 * SCHED_SOFTIRQ handler, the only run that can serve a kick.
 */
static noinline void nc_tp_raise(void *data, unsigned int vec)
{
	struct nc_cpu *c = nc_this();

	if (!c)
		return;
	nc_count(c, K_TRACEPOINT);
	if (vec == SCHED_SOFTIRQ && c->in_csd)
		c->csd_raised = true;
}

static __always_inline void nc_tp_entry_body(struct nc_cpu *c, unsigned int vec,
					     bool measuring)
{
	unsigned long flags;

	if (vec != SCHED_SOFTIRQ || !measuring)
		return;
	/* A kick's return handler (hard IRQ) also writes awaiting and mid. */
	local_irq_save(flags);
	c->in_run = true;
	c->run_balanced = false;
	c->mid = 0;
	c->served = 0;
	if (c->awaiting) {
		c->n[NC_SOFTIRQS]++;
		c->n[NC_MERGED] += c->awaiting - 1;
		c->served = c->awaiting;
		c->awaiting = 0;
		c->t_serve = c->t_kick;
		c->serving = true;
	}
	local_irq_restore(flags);
}

static noinline void nc_tp_entry(void *data, unsigned int vec)
{
	struct nc_cpu *c = nc_this();

	if (!c)
		return;
	nc_count(c, K_TRACEPOINT);
	nc_tp_entry_body(c, vec, ips_session_measuring(&nc_session));
}

/*
 * A run that served kicks and saw no balance. When every kick it served
 * came in while the run before it ran and before that run's balance, that
 * balance read their flags (nohz_idle_balance() reads and clears
 * rq->nohz_idle_balance just before it calls the balance), and this run
 * found none: the kernel served them in the run before, which gets them.
 * A run that served its own kick balanced once for all (they are merged,
 * and this run served nothing); a periodic one balanced for them (one is
 * balanced, the others merged, as this run had counted them).
 */
static void nc_run_unbalanced(struct nc_cpu *c)
{
	if (!c->consumed || c->consumed != c->served) {
		c->n[NC_UNBALANCED]++;
		return;
	}
	c->n[NC_MIDRUN] += c->served;
	if (c->consumed_serving) {
		c->n[NC_SOFTIRQS]--;
		c->n[NC_MERGED]++;
	} else {
		c->n[NC_BALANCED]++;
		nc_delay_add(c, &c->t_consumed_kick, &c->t_consumed);
	}
}

static noinline void nc_tp_exit(void *data, unsigned int vec)
{
	struct nc_cpu *c = nc_this();

	if (!c)
		return;
	nc_count(c, K_TRACEPOINT);
	if (vec != SCHED_SOFTIRQ || !c->in_run)
		return;
	c->in_run = false;
	if (c->serving) {
		c->serving = false;
		nc_run_unbalanced(c);
	}
	/* Only the next run can tell what the last balance consumed. */
	if (!c->run_balanced)
		c->consumed = 0;
}

/*
 * A kick dropped in the idle task is resolved by what the CPU does next:
 * a context switch away from the idle task (idle_cpu() was false in
 * nohz_csd_func(): a task had been woken onto the CPU, which is busy now)
 * or the next do_idle() round without one (the CPU stayed idle: the kick
 * was lost, what the need_resched() bail-out does to a polled kick).
 */
static void nc_tp_switch(void *data, bool preempt, struct task_struct *prev,
			 struct task_struct *next, unsigned int prev_state)
{
	struct nc_cpu *c = nc_this();

	if (!c)
		return;
	nc_count(c, K_TRACEPOINT);
	if (c->drops_open) {
		c->n[NC_DROPPED_WOKEN] += c->drops_open;
		c->drops_open = 0;
		c->poll_drops_open = 0;
	}
}

/*
 * idle_states=1: an idle entry here and its state (an exit only counts as
 * a hit). Interrupts are off; a kick (an interrupt's, or the idle task's
 * after its state) reads what the last entry wrote.
 */
static void nc_tp_idle(void *data, unsigned int state, unsigned int cpu)
{
	struct nc_cpu *c = nc_this();

	if (!c)
		return;
	nc_count(c, K_TRACEPOINT);
	ips_idle_enter(&c->idle, state);
}

/* The tracepoints probed; cpu_idle, the last, with idle_states=1 only. */
enum { NC_TP_RAISE, NC_TP_ENTRY, NC_TP_EXIT, NC_TP_SWITCH, NC_TP_IDLE, NR_NC_TPS };

static struct ips_tp_probe nc_tps[NR_NC_TPS] = {
	[NC_TP_RAISE] = { "softirq_raise", nc_tp_raise },
	[NC_TP_ENTRY] = { "softirq_entry", nc_tp_entry },
	[NC_TP_EXIT] = { "softirq_exit", nc_tp_exit },
	[NC_TP_SWITCH] = { "sched_switch", nc_tp_switch },
	[NC_TP_IDLE] = { "cpu_idle", nc_tp_idle },
};

/*
 * The ftrace hooks. _nohz_idle_balance() also runs from do_idle()
 * (nohz_run_idle_balance(), blocked-load updates): only a call inside the
 * SCHED_SOFTIRQ run that serves a kick is that kick's balance.
 */

/*
 * The start of every hook: the recursion lock, which also keeps
 * preemption off, and this CPU's state. NULL (nothing held) when the hook
 * recursed or the CPU is not watched; otherwise the hook ends with
 * ips_hook_exit(*bit).
 */
static __always_inline struct nc_cpu *nc_hook_enter(unsigned long ip,
						    unsigned long parent_ip,
						    int *bit)
{
	struct nc_cpu *c;

	*bit = ips_hook_enter(ip, parent_ip);
	if (*bit < 0)
		return NULL;
	c = nc_this();
	if (!c)
		ips_hook_exit(*bit);
	return c;
}

/*
 * The balance: a kick's delay ends at this hook's clock read, taken with
 * interrupts off so that no probe of an interrupt counts inside the span
 * and after its end. @serving_softirq: inside a SCHED_SOFTIRQ run.
 */
static __always_inline void nc_balance_body(struct nc_cpu *c,
					    bool serving_softirq)
{
	struct nc_stamp now;
	unsigned long flags;

	WRITE_ONCE(c->fired[HK_BALANCE], 1);
	if (!serving_softirq)
		return;
	/* A kick's return handler (hard IRQ) writes mid. */
	local_irq_save(flags);
	nc_stamp(c, &now);
	if (c->in_run && !c->run_balanced) {
		c->run_balanced = true;
		c->consumed = c->mid;
		c->consumed_serving = c->serving;
		c->t_consumed = now;
		c->t_consumed_kick = c->t_mid;
	}
	local_irq_restore(flags);
	if (c->serving) {
		c->serving = false;
		c->n[NC_BALANCED]++;
		nc_delay_add(c, &c->t_serve, &now);
	}
}

static __always_inline void nc_do_idle_body(struct nc_cpu *c)
{
	unsigned long flags;

	WRITE_ONCE(c->fired[HK_DO_IDLE], 1);
	/* A new idle round: its kicks find the states entered from here. */
	ips_idle_window(&c->idle);
	if (READ_ONCE(c->drops_open)) {
		/* Interrupts are on here; a kick's return handler adds drops. */
		local_irq_save(flags);
		c->n[NC_DROPPED_LOST] += c->drops_open;
		c->n[NC_DROPPED_POLL_LOST] += c->poll_drops_open;
		c->drops_open = 0;
		c->poll_drops_open = 0;
		local_irq_restore(flags);
	}
}

/* A hook: @body with this CPU's state inside the recursion lock. */
#define NC_CALLBACK(name, body)						\
static void name(unsigned long ip, unsigned long parent_ip,		\
		 unsigned long arg0)					\
{									\
	struct nc_cpu *c;						\
	int bit;							\
									\
	c = nc_hook_enter(ip, parent_ip, &bit);				\
	if (c) {							\
		nc_count(c, K_HOOK);					\
		body;							\
		ips_hook_exit(bit);					\
	}								\
}

static __always_inline void nc_tick_stop_body(struct nc_cpu *c)
{
	WRITE_ONCE(c->fired[HK_TICK_STOP], 1);
	if (ips_session_measuring(&nc_session))
		c->n[NC_TICK_STOPS]++;
}

NC_CALLBACK(nc_balance, nc_balance_body(c, in_serving_softirq()))
NC_CALLBACK(nc_tick_stop, nc_tick_stop_body(c))
NC_CALLBACK(nc_do_idle, nc_do_idle_body(c))
/* The calibration's: the same bodies, the kernel's state taken as given. */
NC_CALLBACK(nc_cal_idle, nc_do_idle_body(c))
NC_CALLBACK(nc_cal_balance, nc_balance_body(c, true))
