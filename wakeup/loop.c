// SPDX-License-Identifier: GPL-2.0
/*
 * wakeup: the wake loops, and the run's threads.
 * Part of wakeup_main.c's unit: included there, in its order.
 */

/* ---- the wake loop ------------------------------------------------------- */

/* The probes' counts of @c into @d. */
static __always_inline void wk_copy(struct wk_counts *d,
				    const struct wk_counts *c)
{
	d->act[0] = READ_ONCE(c->act[0]);
	d->act[1] = READ_ONCE(c->act[1]);
	d->noipi = READ_ONCE(c->noipi);
	d->cfs_ipi = READ_ONCE(c->cfs_ipi);
	d->res_ipi = READ_ONCE(c->res_ipi);
	d->cf_ipi = READ_ONCE(c->cf_ipi);
	d->hits = READ_ONCE(c->hits);
	d->idle_in = READ_ONCE(c->idle_in);
	d->idle = READ_ONCE(c->idle);
}

static __always_inline void wk_snap(struct wk_counts *d)
{
	wk_copy(d, this_cpu_ptr(&wk_cpu.n));
	d->kcall = ips_irq_this_cpu(IPS_IRQ_CALL);
	d->kres = ips_irq_this_cpu(IPS_IRQ_RESCHED);
	d->irqs = ips_irqs(raw_smp_processor_id());
}

/*
 * rpc=1, before the first call: the target's counts, as the sender reads
 * them from its own CPU. Every wake-up of the sender before the run (its
 * start, run.go's) was counted where it fired, maybe on the target, and
 * before the sender ran again (under the sender's runqueue lock, which
 * its schedule() then took): seen here, and out of the first call's.
 */
static void wk_snap_cpu(struct wk_counts *d, int cpu)
{
	wk_copy(d, per_cpu_ptr(&wk_cpu.n, cpu));
	d->kcall = ips_irq_count(cpu, IPS_IRQ_CALL);
	d->kres = ips_irq_count(cpu, IPS_IRQ_RESCHED);
	d->irqs = ips_irqs(cpu);
}

/* @now - @prev into @d, and @prev = @now. */
static void wk_delta(struct wk_counts *d, struct wk_counts *prev,
		     const struct wk_counts *now)
{
	d->act[0] = now->act[0] - prev->act[0];
	d->act[1] = now->act[1] - prev->act[1];
	d->noipi = now->noipi - prev->noipi;
	d->cfs_ipi = now->cfs_ipi - prev->cfs_ipi;
	d->res_ipi = now->res_ipi - prev->res_ipi;
	d->cf_ipi = now->cf_ipi - prev->cf_ipi;
	d->hits = now->hits - prev->hits;
	d->kcall = now->kcall - prev->kcall;
	d->kres = now->kres - prev->kres;
	d->idle_in = now->idle_in - prev->idle_in;
	d->idle = now->idle;
	*prev = *now;
}

/*
 * The path of one wake-up of task @who (0: the wakee, 1: the sender) from
 * what the probes counted during it on the waker's CPU (@w) and the
 * wakee's (@t): activated on the wakee's CPU, the wake list; on the
 * waker's, a remote enqueue; then polled, a real IPI, or neither. A
 * wake-up is one activation: NR when the two CPUs counted other than one
 * (counts that were not this wake-up's).
 */
static __always_inline enum wk_scope wk_path(const struct wk_counts *w,
					     const struct wk_counts *t,
					     int who)
{
	if (t->act[who] + w->act[who] != 1)
		return NR_WK_SCOPES;
	if (t->act[who])
		return w->noipi ? WK_WL_POLL : t->cfs_ipi ? WK_WL_IPI : WK_BUSY;
	return w->noipi ? WK_RQ_POLL : t->res_ipi ? WK_RQ_IPI : WK_BUSY;
}

/* Scope @p's histogram of wake-ups whose wakee's CPU was in idle @slot. */
static __always_inline struct ips_hist *wk_hist(struct wk_sender *s,
						enum wk_scope p,
						unsigned int slot)
{
	return &s->hist[NR_WK_SCOPES + p * wk_slots + slot];
}

/*
 * A sample of scope @p, the wakee's CPU in idle @slot: counted, timed;
 * @intr: an interrupt came into it.
 */
static __always_inline void wk_add(struct wk_sender *s, enum wk_scope p,
				   unsigned int slot, u64 dt, bool intr)
{
	s->count[p]++;
	s->intr[p] += intr;
	ips_hist_add(&s->hist[p], dt);
	if (wk_slots)
		ips_hist_add(wk_hist(s, p, slot), dt);
}

/* The idle slot of the CPU whose counts' delta is @d. */
static __always_inline unsigned int wk_slot(const struct wk_counts *d)
{
	return ips_idle_slot(&wk_idle, d->idle_in, d->idle);
}

static __always_inline void wk_account(struct wk_sender *s,
				       enum wk_scope path, unsigned int slot,
				       u64 dt, bool intr)
{
	/* Counted, never a wrapped latency in the last bucket. */
	if (unlikely((s64)dt < 0)) {
		s->backwards++;
		return;
	}
	if (path == NR_WK_SCOPES) {
		s->unclassified++;
		return;
	}
	wk_add(s, path, slot, dt, intr);
}

/*
 * A wake-up put in busy while the kernel counted more IPIs on the wakee's
 * CPU (@t) than the probes did: a probe that missed its IPI, the sign
 * that it does not fire. The kernel's call count also counts
 * smp_call_function_many()'s IPIs: call_function_entry's probe counts
 * those.
 */
static __always_inline void wk_sign(struct wk_sender *s, enum wk_scope path,
				    const struct wk_counts *t)
{
	if (path != WK_BUSY && path != WK_CALL_OTHER)
		return;
	if (t->kcall > t->cfs_ipi + t->cf_ipi)
		s->sign[WK_TP_CFS]++;
	if (path == WK_BUSY && t->kres > t->res_ipi)
		s->sign[WK_TP_RES]++;
}

/* Spin until the wakee is asleep and off its CPU, or the sender moved. */
static __always_inline void wk_wait_asleep(struct task_struct *p)
{
	/* Acquire: the wakee's stores before it left its CPU are seen. */
	while (task_is_running(p) || smp_load_acquire(&p->on_cpu))
		cpu_relax();
}

static __always_inline void wk_wait_ack(struct wk_sender *s,
					unsigned long seq)
{
	/* Pairs with the target's release: its t1 and counts are seen. */
	while (smp_load_acquire(&s->ack) != seq)
		cpu_relax();
}

/*
 * rpc=0, the counts of wake-up @seq that wk_path() reads, and the probe
 * calls that counted on both CPUs (returned): the sender's CPU's read
 * here against @pw (as of the previous ack), the target's as the wakee
 * copied them at its ack, tn[seq & 1], against the previous ack's, in
 * the other; no copy, and the rest only for a busy one (wk_wake_sign()).
 */
static __always_inline u64 wk_wake_delta(struct wk_sender *s,
					 unsigned long seq,
					 struct wk_counts *pw,
					 struct wk_counts *dw,
					 struct wk_counts *dt)
{
	const struct wk_counts *now = &s->tn[seq & 1];
	const struct wk_counts *prev = &s->tn[~seq & 1];
	u64 act = this_cpu_read(wk_cpu.n.act[0]);
	u64 noipi = this_cpu_read(wk_cpu.n.noipi);
	u64 hits = this_cpu_read(wk_cpu.n.hits);

	dw->act[0] = act - pw->act[0];
	dw->noipi = noipi - pw->noipi;
	dw->hits = hits - pw->hits;
	pw->act[0] = act;
	pw->noipi = noipi;
	pw->hits = hits;
	dt->act[0] = now->act[0] - prev->act[0];
	dt->cfs_ipi = now->cfs_ipi - prev->cfs_ipi;
	dt->res_ipi = now->res_ipi - prev->res_ipi;
	dt->hits = now->hits - prev->hits;
	dt->idle_in = now->idle_in - prev->idle_in;
	dt->idle = now->idle;
	return dw->hits + dt->hits;
}

/* rpc=0, a busy wake-up @seq: the target's counts that wk_sign() reads. */
static __always_inline void wk_wake_sign(struct wk_sender *s,
					 unsigned long seq,
					 struct wk_counts *dt)
{
	const struct wk_counts *now = &s->tn[seq & 1];
	const struct wk_counts *prev = &s->tn[~seq & 1];

	dt->cf_ipi = now->cf_ipi - prev->cf_ipi;
	dt->kcall = now->kcall - prev->kcall;
	dt->kres = now->kres - prev->kres;
	wk_sign(s, WK_BUSY, dt);
}

/*
 * rpc=0: wake the wakee, wait for it to run (it acks, with the time it
 * ran and its CPU's counts), then for it to sleep again. @timed: the
 * clock, the probes' counts and the histograms; without, the bare loop.
 * The probe calls are summed here and stored once, at the end.
 */
static __always_inline int wk_loop_wake(struct wk_sender *s, bool timed)
{
	const u64 limit = wk_numwake ?: U64_MAX;
	const unsigned int pause = wk_delay;
	const int cpu = s->cpu;
	struct task_struct *wakee = s->wakee;
	struct wk_counts pw = {}, dw = {}, dt = {};
	unsigned long seq = 0;
	unsigned int is0 = 0, is1 = 0;
	u64 t0 = 0, hits = 0;
	int ret = 0;

	if (timed)
		wk_snap(&pw);
	/*
	 * Before, its state may read TASK_WAKING: not asleep. Acquire:
	 * pairs with the wakee's release (and its first counts, tn[0]).
	 */
	while (!smp_load_acquire(&s->ready))
		cpu_relax();
	while (s->sent < limit && !READ_ONCE(run.stop)) {
		if (unlikely(raw_smp_processor_id() != cpu)) {
			ret = -ENXIO;
			break;
		}
		wk_wait_asleep(wakee);
		WRITE_ONCE(s->seq, ++seq);
		if (timed) {
			/*
			 * This CPU's interrupts, from here to the wake-up
			 * call's end; the target's, from the previous ack
			 * to this one (its counts, copied there): read
			 * here, its line would be the sender's, and the
			 * target's first interrupt inside the span a miss.
			 */
			is0 = ips_irqs(cpu);
			t0 = ips_clock_read_ordered();
			if (static_branch_unlikely(&wk_test_irq))
				wk_test_raise(s->target);
		}
		s->woken += wake_up_process(wakee);
		if (timed)
			is1 = ips_irqs(cpu);
		s->sent++;
		wk_wait_ack(s, seq);
		if (timed)
			hits += wk_wake_delta(s, seq, &pw, &dw, &dt);
		/*
		 * The wakee ran elsewhere (its target went offline) or the
		 * sender did (its CPU went offline): the counts are not the
		 * pair's, the wake-up is busy; the run ends.
		 */
		if (unlikely(READ_ONCE(s->wrong_cpu) ||
			     raw_smp_processor_id() != cpu)) {
			if (timed)
				wk_account(s, WK_BUSY, 0, s->t1 - t0, false);
			ret = -ENXIO;
			break;
		}
		if (timed) {
			enum wk_scope path = wk_path(&dw, &dt, 0);
			unsigned int n = is1 - is0 + s->tn[seq & 1].irqs -
					 s->tn[~seq & 1].irqs;

			wk_account(s, path, wk_slot(&dt), s->t1 - t0,
				   n > wk_notified(path));
			if (unlikely(path == WK_BUSY))
				wk_wake_sign(s, seq, &dt);
		}
		/*
		 * The pause ends with the sender's wake-up by its timer, on
		 * its CPU: this CPU's counts are taken again after it, so that
		 * it is in no wake-up's counts.
		 */
		if (pause)
			usleep_range(pause, pause);
		if (pause && timed)
			wk_snap(&pw);
		ips_thread_pause();
	}
	if (timed)
		s->hits = hits;
	return ret;
}

static int wk_wakee(void *arg)
{
	struct wk_sender *s = arg;
	unsigned long seen = 0, seq;
	u64 t1 = 0;

	/*
	 * The skew of this CPU's clock against the sender's (the sender
	 * lets us go, wk_skew()), then the baseline of this CPU's counts,
	 * before the first wake-up.
	 */
	if (wk_timing) {
		wait_for_completion(&s->ping_go);
		ips_clock_skew_follow(&s->ping);
		wk_snap(&s->tn[0]);
	}
	/* Pairs with the sender's acquire: from now on asleep is asleep. */
	smp_store_release(&s->ready, true);
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		seq = READ_ONCE(s->seq);
		if (seq == seen) {
			schedule();
			if (wk_timing)
				t1 = ips_clock_read_ordered();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		seen = seq;
		s->t1 = t1;
		if (wk_timing)
			wk_snap(&s->tn[seq & 1]);
		if (raw_smp_processor_id() != s->target)
			WRITE_ONCE(s->wrong_cpu, true);
		/* Pairs with wk_wait_ack(): t1, tn and wrong_cpu go first. */
		smp_store_release(&s->ack, seq);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* rpc=1: the call's callback, on the target, wakes the sender. */
static void wk_rpc_cb(void *info)
{
	struct wk_sender *s = info;

	WRITE_ONCE(s->t1, READ_ONCE(s->seq));	/* the sender's wake condition */
	/* 0: the sender saw t1 before it slept, and no wake-up was needed. */
	WRITE_ONCE(s->woke, wake_up_process(s->task));
	if (wk_timing)
		wk_snap(&s->tn[0]);
	/* Pairs with wk_wait_ack(): the counts copied go first. */
	smp_store_release(&s->ack, READ_ONCE(s->seq));
}

static __always_inline enum wk_scope wk_call_path(const struct wk_counts *w,
						  const struct wk_counts *t)
{
	return w->noipi ? WK_CALL_POLL : t->cfs_ipi ? WK_CALL_IPI :
	       WK_CALL_OTHER;
}

/*
 * rpc=1: queue the call and sleep until its callback wakes us; the round
 * trip from the call to running again. The callback's stores (after its
 * wake-up) are waited for before the csd is used again.
 */
static __always_inline int wk_loop_rpc(struct wk_sender *s, bool timed)
{
	const u64 limit = wk_numwake ?: U64_MAX;
	const unsigned int pause = wk_delay;
	const int cpu = s->cpu, target = s->target;
	struct wk_counts pw = {}, pt = {}, nw, dw, dt;
	unsigned long seq = 0;
	unsigned int is0 = 0;
	u64 t0 = 0, t1;
	int ret = 0;

	if (timed) {
		wk_snap(&pw);
		wk_snap_cpu(&pt, target);
	}
	while (s->sent < limit && !READ_ONCE(run.stop)) {
		if (unlikely(raw_smp_processor_id() != cpu)) {
			ret = -ENXIO;
			break;
		}
		WRITE_ONCE(s->seq, ++seq);
		set_current_state(TASK_INTERRUPTIBLE);
		if (timed) {
			/*
			 * This CPU's interrupts to t1; the target's from
			 * its previous callback to this one (wk_loop_wake()).
			 */
			is0 = ips_irqs(cpu);
			t0 = ips_clock_read_ordered();
			if (static_branch_unlikely(&wk_test_irq))
				wk_test_raise(target);
		}
		ret = smp_call_function_single_async(target, &s->csd);
		if (unlikely(ret)) {
			__set_current_state(TASK_RUNNING);
			break;
		}
		s->sent++;
		while (READ_ONCE(s->t1) != seq) {
			schedule();
			set_current_state(TASK_INTERRUPTIBLE);
		}
		__set_current_state(TASK_RUNNING);
		t1 = timed ? ips_clock_read_ordered() : 0;
		wk_wait_ack(s, seq);
		/* The csd is free once the callback returned (acquire). */
		while (smp_load_acquire(&s->csd.node.u_flags) & CSD_FLAG_LOCK)
			cpu_relax();
		s->woken++;
		/* Woken elsewhere, its CPU gone: busy; the run ends. */
		if (unlikely(raw_smp_processor_id() != cpu)) {
			if (timed) {
				/* Two CPUs' clocks: wk_account() counts a backwards one. */
				if ((s64)(t1 - t0) >= 0)
					wk_add(s, WK_CALL_OTHER, 0, t1 - t0, false);
				wk_account(s, WK_BUSY, 0, t1 - t0, false);
			}
			ret = -ENXIO;
			break;
		}
		if (timed) {
			enum wk_scope call, path;
			unsigned int n;
			bool intr;

			wk_snap(&nw);
			n = nw.irqs - is0 + s->tn[0].irqs - pt.irqs;
			wk_delta(&dw, &pw, &nw);
			wk_delta(&dt, &pt, &s->tn[0]);
			s->hits += wk_hits(&dw) + wk_hits(&dt);
			call = wk_call_path(&dw, &dt);
			/*
			 * The wake-up came from the target: roles swapped. A
			 * round trip with none (the sender never slept) is busy.
			 */
			path = READ_ONCE(s->woke) ? wk_path(&dt, &dw, 1) : WK_BUSY;
			intr = n > wk_notified(call) + wk_notified(path);
			wk_add(s, call, wk_slot(&dt), t1 - t0, intr);
			wk_sign(s, call, &dt);
			wk_account(s, path, wk_slot(&dw), t1 - t0, intr);
			wk_sign(s, path, &dw);
		}
		/* The pause's own wake-up: as in wk_loop_wake(). */
		if (pause)
			usleep_range(pause, pause);
		if (pause && timed)
			wk_snap(&pw);
		ips_thread_pause();
	}
	return ret;
}

static int wk_run(struct wk_sender *s)
{
	if (wk_rpc)
		return wk_timing ? wk_loop_rpc(s, true) : wk_loop_rpc(s, false);
	return wk_timing ? wk_loop_wake(s, true) : wk_loop_wake(s, false);
}

/*
 * rpc=0 times from this CPU's clock to the target's: their skew, bounded
 * one pair at a time, in the senders' order, each letting the next go,
 * as pairs measured at once would slow each other (and under an emulator
 * that runs one vCPU at a time, take turns with every other pair's); the
 * senders waiting sleep, and the last releases them all: no pair runs
 * beside an exchange. The wakee answers once let go. A stop cancels the
 * exchanges left, which leaves those skews unbounded.
 */
static void wk_skew(struct wk_sender *s)
{
	wait_for_completion(&s->turn);
	complete(&s->ping_go);
	if (!READ_ONCE(run.stop))
		ips_clock_skew_lead(&s->ping, &s->skew);
	else
		ips_clock_skew_cancel(&s->ping);
	if (s->next)
		complete(&s->next->turn);
	else
		complete_all(&run.go);
}

static int wk_sender_thread(void *arg)
{
	struct wk_sender *s = arg;
	unsigned int p, slot;
	bool stopped;

	if (wk_timing && !wk_rpc)
		wk_skew(s);
	wait_for_completion(&run.go);
	s->start_ns = ktime_get_ns();
	s->error = wk_run(s);
	s->end_ns = ktime_get_ns();
	if (s->hist) {
		for (p = WK_FIRST_PATH; p <= WK_LAST_PATH; p++) {
			s->intr[WK_TOTAL] += s->intr[p];
			ips_hist_merge(&s->hist[WK_TOTAL], &s->hist[p]);
			for (slot = 0; slot < wk_slots; slot++)
				ips_hist_merge(wk_hist(s, WK_TOTAL, slot),
					       wk_hist(s, p, slot));
		}
	}
	/* The timed ones: a backwards latency is no latency. */
	s->count[WK_TOTAL] = s->woken - s->backwards;
	/* Acquire: pairs with the cap's release, capped is seen with stop. */
	stopped = smp_load_acquire(&run.stop);
	s->capped = !s->error && wk_numwake && s->sent < wk_numwake && stopped &&
		    READ_ONCE(run.capped);
	if (atomic_dec_and_test(&run.running))
		complete_all(&run.done);
	ips_thread_wait_stop();
	return 0;
}

/* ---- the run ------------------------------------------------------------- */

static void wk_cpu_set(int cpu, int peer, const struct wk_sender *s)
{
	struct wk_cpu *c = per_cpu_ptr(&wk_cpu, cpu);

	memset(c, 0, sizeof(*c));
	c->task[0] = s->wakee;
	c->task[1] = s->task;
	c->peer = peer;
	WRITE_ONCE(c->on, wk_timing);
}

static void wk_cpu_clear(int cpu)
{
	WRITE_ONCE(per_cpu_ptr(&wk_cpu, cpu)->on, false);
}

static void wk_stop_threads(void)
{
	unsigned int i;

	for (i = 0; i < nr_senders; i++) {
		struct wk_sender *s = senders[i];

		if (s->task)
			kthread_stop(s->task);
		if (s->wakee)
			kthread_stop(s->wakee);
		s->task = NULL;
		s->wakee = NULL;
	}
}

static struct task_struct *__init wk_thread(int (*fn)(void *), void *arg,
					    int cpu, const char *what)
{
	struct task_struct *t;

	t = kthread_create_on_node(fn, arg, cpu_to_node(cpu), "wakeup/%s%d",
				   what, cpu);
	if (!IS_ERR(t))
		kthread_bind(t, cpu);
	return t;
}

/* Create the threads, bound; called with the hotplug lock held. */
static int __init wk_create(void)
{
	unsigned int i;

	for (i = 0; i < nr_senders; i++) {
		struct wk_sender *s = senders[i];
		struct task_struct *t;

		t = wk_thread(wk_sender_thread, s, s->cpu, "s");
		if (IS_ERR(t))
			goto err;
		s->task = t;
		if (wk_rpc) {
			INIT_CSD(&s->csd, wk_rpc_cb, s);
			continue;
		}
		t = wk_thread(wk_wakee, s, s->target, "w");
		if (IS_ERR(t))
			goto err;
		s->wakee = t;
	}
	return 0;
err:
	/* Threads never woken exit from kthread_stop() unrun. */
	wk_stop_threads();
	return -ENOMEM;
}

/* Start every thread and release the senders together. */
static void __init wk_release(void)
{
	unsigned int i;

	for (i = 0; i < nr_senders; i++) {
		wk_cpu_set(senders[i]->cpu, senders[i]->target, senders[i]);
		wk_cpu_set(senders[i]->target, senders[i]->cpu, senders[i]);
	}
	wk_irq_counts(&run.irq_call[0], &run.irq_res[0]);
	for (i = 0; i < nr_senders; i++) {
		if (senders[i]->wakee)
			wake_up_process(senders[i]->wakee);
		wake_up_process(senders[i]->task);
	}
	/* With skews to bound, the last exchange releases them (wk_skew()). */
	if (wk_timing && !wk_rpc)
		complete(&senders[0]->turn);
	else
		complete_all(&run.go);
}
