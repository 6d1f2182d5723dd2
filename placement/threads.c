// SPDX-License-Identifier: GPL-2.0
/*
 * placement: the wakers, wakees and busy threads.
 * Part of placement_main.c's unit: included there, in its order.
 */

/* ---- the threads ----------------------------------------------------------- */

static int pl_wakee_thread(void *arg)
{
	struct pl_wakee *w = arg;
	unsigned long seen = 0, seq;

	/*
	 * Here, as a kthread may be given its node's CPUs when it starts
	 * (Linux 6.14 and later): an affinity set before would be lost.
	 * First on its start CPU, so that every run's first wake-up has the
	 * same previous CPU, not wherever the kthread was created (the
	 * kernel keeps a wakee where it finds room, even in another LLC).
	 */
	set_cpus_allowed_ptr(current, cpumask_of(w->start));
	w->error = set_cpus_allowed_ptr(current, run.cpus);
	w->started = raw_smp_processor_id();
	/* Pairs with the waker's acquire: from now on asleep is asleep. */
	smp_store_release(&w->ready, true);
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		seq = READ_ONCE(w->seq);
		if (seq == seen) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		seen = seq;
		/*
		 * Its CPU and the one sched_switch saw it come in on, in
		 * one stretch with no switch: a wakee switched out after
		 * its first run (need_resched at once) may run again
		 * elsewhere before it reads, which is no probe's error.
		 */
		preempt_disable();
		rec.self_cpu = smp_processor_id();
		rec.self_seen = READ_ONCE(rec.cur_cpu);
		preempt_enable();
		/* Pairs with pl_wait_ack(): self_cpu goes first. */
		smp_store_release(&rec.ack, seq);
		wake_up_process(run.waker);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* A bursty busy thread's sleep, which a stop ends early. */
static void pl_busy_sleep(void)
{
	ktime_t t = ns_to_ktime((u64)pl_busy_sleep_us * NSEC_PER_USEC);

	/* Before the checks: a stop's kthread_stop() after them wakes us. */
	set_current_state(TASK_IDLE);
	if (!READ_ONCE(run.stop) && !kthread_should_stop()) {
		/* Hard: on PREEMPT_RT a soft one would wake us through ktimers. */
		schedule_hrtimeout(&t, HRTIMER_MODE_REL_HARD);
		atomic_long_inc(&run.busy_sleeps);
	}
	__set_current_state(TASK_RUNNING);
}

/*
 * A busy thread spins on its CPU until the run ends, yielding only to
 * what the scheduler puts beside it, or, bursty, spins busy_run_us and
 * sleeps busy_sleep_us in turn; it stops if its CPU goes offline (the
 * kernel moved it).
 */
static int pl_busy_thread(void *arg)
{
	const int cpu = (long)arg;
	const u64 burst_ns = (u64)pl_busy_run_us * NSEC_PER_USEC;
	u64 end = local_clock() + burst_ns;

	atomic_inc(&run.busy_running);
	while (!READ_ONCE(run.stop) && raw_smp_processor_id() == cpu) {
		cpu_relax();
		ips_thread_pause();
		if (burst_ns && local_clock() >= end) {
			pl_busy_sleep();
			end = local_clock() + burst_ns;
		}
	}
	ips_thread_wait_stop();
	return 0;
}

/*
 * Whether @p is asleep in its loop, off its runqueue and off its CPU: not
 * preempted before its schedule() (still queued, which a wake-up would
 * only requeue), nor asleep but kept queued by a delayed dequeue (Linux
 * 6.12 and later, a task that slept while not eligible), which a wake-up
 * requeues where it is, choosing no CPU.
 */
static bool pl_asleep(struct task_struct *p)
{
	if (READ_ONCE(p->__state) != TASK_INTERRUPTIBLE || READ_ONCE(p->on_rq))
		return false;
	/* Pairs with the switch away: the wakee's stores are seen. */
	return !smp_load_acquire(&p->on_cpu);
}

/*
 * Wait until @p is asleep (pl_asleep()): a spin, then sleeps of a jiffy,
 * as a delayed dequeue behind a busy task may last until its tick, and
 * at once when @p is queued on this CPU, behind the waker. False when
 * the run stops first.
 */
static bool pl_wait_asleep(struct task_struct *p)
{
	unsigned int spins = 0;

	while (!pl_asleep(p)) {
		if (READ_ONCE(run.stop))
			return false;
		if (++spins > 1000 || task_cpu(p) == raw_smp_processor_id())
			schedule_timeout_idle(1);
		else
			cpu_relax();
		ips_thread_pause();
	}
	return true;
}

/* Sleep until the wakee acks wake-up @seq (it wakes us), or the run stops. */
static bool pl_wait_ack(unsigned long seq)
{
	bool acked;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		/* Pairs with the wakee's release: self_cpu is seen. */
		acked = smp_load_acquire(&rec.ack) == seq;
		if (acked || READ_ONCE(run.stop))
			break;
		schedule_timeout(HZ / 10);
	}
	__set_current_state(TASK_RUNNING);
	return acked;
}

static void pl_hist_add(enum pl_scope s, u64 lat, u64 wait)
{
	ips_hist_add(&run.lat[s], lat);
	ips_hist_add(&run.wait[s], wait);
	run.count[s]++;
}

/* One wake-up, the wakee asleep again: where it went and how long it took. */
static void pl_account(int prev, u64 t0)
{
	enum pl_notify n;
	enum pl_rel rel;

	if (rec.wakeups != 1 || !rec.runs || rec.outside) {
		run.unclassified++;
		run.outside += rec.outside;
		return;
	}
	run.mismatch += rec.self_cpu != rec.self_seen;
	run.moved_before_ack += rec.self_cpu != rec.ran_cpu;
	/*
	 * Two CPUs' clocks: a negative time is counted, never wrapped, and
	 * the wake-up is in no split, so that each adds up to the total.
	 */
	if ((s64)(rec.t_run - t0) < 0 || (s64)(rec.t_run - rec.t_enq) < 0) {
		run.backwards++;
		return;
	}
	run.placed[rec.target]++;
	run.moved += rec.ran_cpu != rec.target;
	run.behind += rec.behind;
	if (rec.polled)
		n = rec.ipi ? PL_BOTH : PL_POLL;
	else
		n = rec.ipi ? PL_IPI : PL_NONE;
	run.notify[n]++;
	run.prev[pl_rel(prev, rec.target)]++;
	rel = pl_rel(pl_waker, rec.target);
	pl_hist_add(PL_TOTAL, rec.t_run - t0, rec.t_run - rec.t_enq);
	pl_hist_add(rec.target_busy ? PL_BUSY : PL_IDLE, rec.t_run - t0,
		    rec.t_run - rec.t_enq);
	pl_hist_add(PL_REL + rel, rec.t_run - t0, rec.t_run - rec.t_enq);
}

/* One wake-up: the wakee, then its record, then the next. */
static int pl_loop(void)
{
	const u64 limit = pl_numwake ?: U64_MAX;
	unsigned long seq = 0;
	unsigned int i = 0;
	int prev, woke;
	u64 t0;

	while (run.sent < limit && !READ_ONCE(run.stop)) {
		struct pl_wakee *w = &run.wakees[i];

		if (++i == pl_wakees)
			i = 0;
		if (unlikely(raw_smp_processor_id() != pl_waker))
			return -ENXIO;
		/* Its CPUs all went offline, or its affinity was changed. */
		if (unlikely(!cpumask_equal(w->task->cpus_ptr, run.cpus)))
			return -EXDEV;
		run.dequeue_waits += READ_ONCE(w->task->on_rq) &&
				READ_ONCE(w->task->__state) == TASK_INTERRUPTIBLE;
		if (!pl_wait_asleep(w->task))
			break;
		prev = task_cpu(w->task);
		/* No probe writes the record while its task is NULL. */
		memset(&rec, 0, offsetof(struct pl_rec, ack));
		rec.seq = ++seq;
		rec.target = -1;
		rec.ran_cpu = -1;
		rec.cur_cpu = -1;
		WRITE_ONCE(run.seq, seq);
		WRITE_ONCE(w->seq, seq);
		/* The wake-up's full barrier publishes it to the probes. */
		WRITE_ONCE(rec.task, w->task);
		t0 = ips_clock_read_ordered();
		woke = wake_up_process(w->task);
		/*
		 * Stopped before the ack: this wake-up is not reported. The
		 * wakee may still run and wake the waker: the wakees are
		 * stopped first (pl_stop_threads()).
		 */
		if (!pl_wait_ack(seq)) {
			WRITE_ONCE(rec.task, NULL);
			break;
		}
		run.woken += woke;
		run.sent++;
		/* Its last switch-in's probe has written the record. */
		if (!pl_wait_asleep(w->task)) {
			WRITE_ONCE(rec.task, NULL);
			run.sent--;
			run.woken -= woke;
			break;
		}
		WRITE_ONCE(rec.task, NULL);
		pl_account(prev, t0);
		ips_thread_pause();
	}
	return 0;
}

static int pl_waker_thread(void *arg)
{
	unsigned int i;
	bool stopped;

	wait_for_completion(&run.go);
	/* Every wakee asleep in its loop, every busy thread spinning. */
	for (i = 0; i < pl_wakees; i++) {
		/* Pairs with the wakee's release: its error is seen. */
		while (!smp_load_acquire(&run.wakees[i].ready) &&
		       !READ_ONCE(run.stop))
			schedule_timeout_interruptible(1);
		run.error = run.error ?: run.wakees[i].error;
	}
	while (atomic_read(&run.busy_running) < cpumask_weight(run.busy) &&
	       !READ_ONCE(run.stop))
		schedule_timeout_interruptible(1);
	run.start_ns = ktime_get_ns();
	if (!run.error)
		run.error = pl_loop();
	run.end_ns = ktime_get_ns();
	/* Acquire: pairs with the cap's release, capped is seen with stop. */
	stopped = smp_load_acquire(&run.stop);
	run.capped = !run.error && pl_numwake && run.sent < pl_numwake &&
		     stopped && READ_ONCE(run.capped);
	complete_all(&run.done);
	ips_thread_wait_stop();
	return 0;
}

static void pl_stop_threads(void)
{
	unsigned int i;
	int cpu;

	/* The wakees first: one woken late still wakes the waker. */
	for (i = 0; run.wakees && i < pl_wakees; i++) {
		if (run.wakees[i].task)
			kthread_stop(run.wakees[i].task);
		run.wakees[i].task = NULL;
	}
	if (run.waker)
		kthread_stop(run.waker);
	run.waker = NULL;
	for_each_cpu(cpu, run.busy) {
		if (run.busy_tasks[cpu])
			kthread_stop(run.busy_tasks[cpu]);
		run.busy_tasks[cpu] = NULL;
	}
}

/*
 * Wakee @i's start CPU: cpulist's CPUs in turn, the waker's (if listed)
 * last, so that with two wakees on "waker,target" one starts beside the
 * waker and one on the target.
 */
static int __init pl_start_cpu(unsigned int i)
{
	unsigned int k = i % cpumask_weight(run.cpus);
	int cpu;

	for_each_cpu(cpu, run.cpus) {
		if (cpu != pl_waker && !k--)
			return cpu;
	}
	return pl_waker;
}

/* Create the threads; called with the hotplug lock held. */
static int __init pl_create(void)
{
	struct task_struct *t;
	unsigned int i;
	int cpu;

	t = kthread_create_on_node(pl_waker_thread, NULL, cpu_to_node(pl_waker),
				   "placement/waker");
	if (IS_ERR(t))
		goto err;
	kthread_bind(t, pl_waker);
	run.waker = t;
	for (i = 0; i < pl_wakees; i++) {
		t = kthread_create(pl_wakee_thread, &run.wakees[i],
				   "placement/w%u", i);
		if (IS_ERR(t))
			goto err;
		run.wakees[i].task = t;
		run.wakees[i].start = pl_start_cpu(i);
		run.wakees[i].started = -1;
	}
	for_each_cpu(cpu, run.busy) {
		t = kthread_create_on_node(pl_busy_thread, (void *)(long)cpu,
					   cpu_to_node(cpu), "placement/b%d",
					   cpu);
		if (IS_ERR(t))
			goto err;
		kthread_bind(t, cpu);
		run.busy_tasks[cpu] = t;
	}
	return 0;
err:
	/* Threads never woken exit from kthread_stop() unrun. */
	pl_stop_threads();
	return PTR_ERR(t);
}

/* Count on the measured CPUs, start every thread and release the waker. */
static void __init pl_release(void)
{
	unsigned int i;
	int cpu;

	for_each_cpu(cpu, run.on)
		WRITE_ONCE(per_cpu_ptr(&pl_cpu, cpu)->on, true);
	/* After the switch probe is on: it keeps idle right from here. */
	on_each_cpu_mask(run.on, pl_seed_idle, NULL, true);
	for (i = 0; i < pl_wakees; i++)
		wake_up_process(run.wakees[i].task);
	for_each_cpu(cpu, run.busy)
		wake_up_process(run.busy_tasks[cpu]);
	wake_up_process(run.waker);
	complete_all(&run.go);
}
