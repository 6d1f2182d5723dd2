// SPDX-License-Identifier: GPL-2.0
/*
 * ipistorm: the storm loop, its callbacks and the run's threads.
 * Part of ipistorm_main.c's unit: included there, in its order.
 */

/* ---- the storm --------------------------------------------------------- */

/* Count where sender @s's callback runs here; returns which (CB_*). */
static __always_inline unsigned int ipistorm_deliver(struct sender *s)
{
	struct delivery __percpu *dlv = s->dlv;
	unsigned int kind;

	if (in_hardirq()) {
		this_cpu_inc(dlv->irq);
		kind = CB_IRQ;
	} else if (is_idle_task(current)) {
		this_cpu_inc(dlv->poll);
		kind = CB_POLL;
	} else {
		this_cpu_inc(dlv->other);
		kind = CB_OTHER;
	}
	return kind;
}

static void ipistorm_cb(void *info)
{
	ipistorm_deliver(info);
}

/*
 * idle_states=1: the callback also counts the idle state its CPU was in
 * when the call reached it (the last one it entered since its previous
 * callback; none: it was awake) and gives it to the sender.
 */
static void ipistorm_cb_idle(void *info)
{
	struct sender *s = info;
	struct idle_cpu *c = this_cpu_ptr(idle_cpus);
	unsigned int kind = ipistorm_deliver(s);
	unsigned int slot = ips_idle_seen_slot(&idle_names, &c->idle);

	ips_idle_window(&c->idle);
	c->cb[kind][slot]++;
	/* Its sender's line: only where the sender reads it (one target). */
	if (s->idle_lat)
		WRITE_ONCE(s->idle_slot, slot);
}

static void ipistorm_nop(void *info)
{
}

/* An idle entry here, and its state (power:cpu_idle; not an exit). */
static void ipistorm_idle_probe(void *data, unsigned int state,
				unsigned int cpu)
{
	ips_idle_enter(&this_cpu_ptr(idle_cpus)->idle, state);
}

static struct ips_tp_probe idle_tp = { "cpu_idle", ipistorm_idle_probe };

/* Before the hotplug lock: registering a probe patches the kernel. */
static int __init ipistorm_idle_start(void)
{
	int ret;

	ips_idle_names_init(&idle_names);
	idle_slots = ips_idle_slots(&idle_names);
	idle_cpus = alloc_percpu(struct idle_cpu);
	if (!idle_cpus)
		return -ENOMEM;
	ret = ips_tp_probe_all(&idle_tp, 1, "idle_states=1");
	if (ret) {
		free_percpu(idle_cpus);
		idle_cpus = NULL;
	}
	return ret;
}

/* Out, and no CPU inside the probe: its counts are final. */
static void ipistorm_idle_stop(void)
{
	if (idle_tp.registered)
		ips_tp_unprobe_all(&idle_tp, 1);
}

static void ipistorm_idle_free(void)
{
	free_percpu(idle_cpus);
	idle_cpus = NULL;
}

/* One call; returns the number of callbacks it queued, or -errno. */
static __always_inline int ipistorm_fire(int target, smp_call_func_t fn,
					 void *info, int w, bool many)
{
	int n;

	if (!many)
		return smp_call_function_single(target, fn, info, w) ?: 1;
	/*
	 * smp_call_function_many() reads the live online mask: preemption
	 * off only keeps CPUs from going offline (stop_machine() waits for
	 * it), a CPU can still come online between the count and the call.
	 * The hotplug lock's read side, a per-CPU counter while no hotplug
	 * is pending, keeps the mask whole; it may sleep, so it is taken
	 * first.
	 */
	cpus_read_lock();
	preempt_disable();
	n = num_online_cpus() - 1;
	smp_call_function_many(cpu_online_mask, fn, info, w);
	preempt_enable();
	cpus_read_unlock();
	return n;
}

/*
 * A target runs synchronous callbacks before asynchronous ones of the same
 * batch, so one synchronous call can return while a wait=0 callback of ours
 * is still queued behind it. The second call can only be queued after the
 * first batch was taken, so when it returns every earlier callback has run.
 */
static void ipistorm_drain(struct sender *s)
{
	bool many = s->target == TARGET_ALL;

	if (ipistorm_fire(s->target, ipistorm_nop, NULL, 1, many) < 0)
		return;
	ipistorm_fire(s->target, ipistorm_nop, NULL, 1, many);
}

/*
 * The path of the call just made, from what the witness counted during it:
 * a notification without IPI, else an IPI, else neither (queued).
 */
static __always_inline enum ipistorm_path
ipistorm_path_of(const struct sender *s, u64 *no_ipi, u64 *ipi)
{
	u64 n = READ_ONCE(s->no_ipi), i = READ_ONCE(s->ipi);
	enum ipistorm_path p = n != *no_ipi ? PATH_NO_IPI :
		      i != *ipi ? PATH_IPI : PATH_QUEUED;

	*no_ipi = n;
	*ipi = i;
	return p;
}

/*
 * The storm loop, specialised by the compiler for each combination of the
 * constant flags, so that a call costs the call, its measurement and
 * nothing else: ended by a count, or by storm.stop (the deadline, the time
 * cap or a signal), or by a sender that finds itself off its CPU (which
 * went offline): ENXIO. What the loop reads of @s and the parameters is
 * copied to locals first: the calls would force reloads of memory. With
 * LOOP_WITNESS (witness=1) the witness counts during the call only
 * (@s->in_call); the stores stay outside the timed part, and as @s is the
 * call's argument the compiler cannot move them across the call.
 */
enum ipistorm_loop_flags {
	LOOP_TIMED	= BIT(0),	/* time each call (timing=1) */
	LOOP_MANY	= BIT(1),	/* smp_call_function_many() (single=0) */
	LOOP_WITNESS	= BIT(2),	/* the witness counts during the call */
	LOOP_PATHS	= BIT(3),	/* time into the path's histogram */
	LOOP_IDLE	= BIT(4),	/* and into the idle state's (idle_lat) */
};

/* Every caller passes constant @flags: the loop is built for each. */
static __always_inline int ipistorm_loop(struct sender *s,
					 const unsigned int flags)
{
	const bool timed = flags & LOOP_TIMED, many = flags & LOOP_MANY;
	const bool wit = flags & LOOP_WITNESS;
	const bool paths = flags & LOOP_PATHS, idle = flags & LOOP_IDLE;
	const u64 limit = ipistorm_numipi ?: U64_MAX;
	const unsigned int pause = ipistorm_delay;
	const int cpu = s->cpu, target = s->target, w = ipistorm_wait;
	const smp_call_func_t cb = ipistorm_idle_states ? ipistorm_cb_idle :
							  ipistorm_cb;
	struct ips_hist *lat = &s->lat, *path_lat = s->path_lat;
	struct ips_hist *idle_lat = s->idle_lat;
	u64 sent = 0, expected = 0, t0 = 0, dt, no_ipi = 0, ipi = 0;
	int ret = 0;

	if (paths) {
		no_ipi = READ_ONCE(s->no_ipi);
		ipi = READ_ONCE(s->ipi);
	}

	while (sent < limit && !READ_ONCE(storm.stop)) {
		if (unlikely(raw_smp_processor_id() != cpu)) {
			ret = -ENXIO;
			break;
		}
		if (wit)
			WRITE_ONCE(s->in_call, true);
		if (timed)
			t0 = ips_clock_read_ordered();
		if (many)
			ret = ipistorm_fire(target, cb, s, w, true);
		else
			ret = smp_call_function_single(target, cb, s, w);
		if (timed)
			dt = ips_clock_read_ordered() - t0;
		if (wit)
			WRITE_ONCE(s->in_call, false);
		if (timed) {
			/* A failed call notified no one: in no path. */
			if (!paths)
				ips_hist_add(lat, dt);
			else if (likely(ret >= 0))
				ips_hist_add(&path_lat[ipistorm_path_of(s, &no_ipi,
									&ipi)],
					 dt);
			/*
			 * wait=1: the callback's slot is seen (csd unlock); a
			 * failed call, in lat without the witness, ran none.
			 */
			if (idle)
				ips_hist_add(&idle_lat[likely(ret >= 0) ?
						       READ_ONCE(s->idle_slot) : 0],
					     dt);
		}
		if (unlikely(ret < 0))
			break;
		sent++;
		if (many)
			expected += ret;
		if (pause)
			usleep_range(pause, pause);
		ips_thread_pause();
	}
	s->sent = sent;
	s->expected = many ? expected : sent;
	return ret < 0 ? ret : 0;
}

/* Pick the loop for the run's constants. */
static int ipistorm_storm(struct sender *s)
{
	bool many = s->target == TARGET_ALL;

	/* witness=1 needs single=1: no witness, no paths with many. */
	if (!ipistorm_timing) {
		if (many)
			return ipistorm_loop(s, LOOP_MANY);
		return ipistorm_witness ? ipistorm_loop(s, LOOP_WITNESS) :
					  ipistorm_loop(s, 0);
	}
	if (s->path_lat)
		return s->idle_lat ?
		       ipistorm_loop(s, LOOP_TIMED | LOOP_WITNESS | LOOP_PATHS |
				     LOOP_IDLE) :
		       ipistorm_loop(s, LOOP_TIMED | LOOP_WITNESS | LOOP_PATHS);
	if (s->idle_lat)
		return ipistorm_loop(s, LOOP_TIMED | LOOP_IDLE);
	return many ? ipistorm_loop(s, LOOP_TIMED | LOOP_MANY) :
		      ipistorm_loop(s, LOOP_TIMED);
}

/* @cpu's interrupt counts into @r. */
static void ipistorm_irq_read(struct irq_snap *r, int cpu)
{
	r->all = ips_irqs(cpu);
	r->call = ips_irq_count(cpu, IPS_IRQ_CALL);
}

/*
 * The interrupt counts of @s's CPU and target at its storm's start (0)
 * or end: its own window, without its release's wake-up or its drain.
 */
static void ipistorm_irq_snap(struct sender *s, unsigned int when)
{
	ipistorm_irq_read(&s->irqs[when][0], s->cpu);
	if (s->target != TARGET_ALL)
		ipistorm_irq_read(&s->irqs[when][1], s->target);
}

static int ipistorm_thread(void *arg)
{
	struct sender *s = arg;
	bool stopped;

	wait_for_completion(&storm.go);
	if (ipistorm_witness)
		WRITE_ONCE(per_cpu(witness_sender, s->cpu), s);
	ipistorm_irq_snap(s, 0);
	s->start_ns = ktime_get_ns();
	s->error = ipistorm_storm(s);
	s->end_ns = ktime_get_ns();
	ipistorm_irq_snap(s, 1);
	WRITE_ONCE(per_cpu(witness_sender, s->cpu), NULL);
	if (s->path_lat) {
		enum ipistorm_path p;

		/* Every timed call is in one path: the sender's histogram. */
		for (p = 0; p < NR_PATHS; p++)
			ips_hist_merge(&s->lat, &s->path_lat[p]);
	}
	/*
	 * A count cut short by storm.stop is capped when the time cap set
	 * it: the acquire pairs with ipistorm_join()'s release, so a stop
	 * seen here comes with the capped written before it.
	 */
	stopped = smp_load_acquire(&storm.stop);
	s->capped = !s->error && ipistorm_numipi &&
		    s->sent < ipistorm_numipi && stopped &&
		    READ_ONCE(storm.capped);

	ipistorm_drain(s);
	if (atomic_dec_and_test(&storm.running))
		complete(&storm.done);

	ips_thread_wait_stop();
	return 0;
}

/* ---- the run ----------------------------------------------------------- */

/*
 * Create the senders bound to their CPUs and wake them, to wait for
 * storm.go. Called with the CPU-hotplug lock held since the CPUs were
 * validated, so that no sender CPU can go between its check and its
 * thread's binding.
 */
static int __init ipistorm_start(void)
{
	unsigned int i, created;
	int ret = 0;

	WRITE_ONCE(storm.stop, false);
	WRITE_ONCE(storm.capped, false);
	init_completion(&storm.go);
	init_completion(&storm.done);
	atomic_set(&storm.running, nr_senders);

	for (created = 0; created < nr_senders; created++) {
		struct sender *s = senders[created];
		struct task_struct *t;

		t = kthread_create_on_node(ipistorm_thread, s,
					   cpu_to_node(s->cpu), "ipistorm/%d",
					   s->cpu);
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			break;
		}
		kthread_bind(t, s->cpu);
		s->task = t;
	}
	if (ret) {
		/* Threads never woken exit from kthread_stop() unrun. */
		for (i = 0; i < created; i++)
			kthread_stop(senders[i]->task);
		return ret;
	}
	for (i = 0; i < nr_senders; i++)
		wake_up_process(senders[i]->task);
	return 0;
}

/*
 * Wait for the senders; end the storm at its deadline (timed mode) or time
 * cap (fixed-count mode). Returns 0, or -EINTR when insmod was signalled.
 */
static int __init ipistorm_join(void)
{
	unsigned long left = (unsigned long)(ipistorm_numipi ?
		(ipistorm_time_cap ?: DEFAULT_TIME_CAP_S) :
		ipistorm_timeout) * HZ + 1;
	long rc;
	unsigned int i;

	rc = wait_for_completion_interruptible_timeout(&storm.done, left);
	if (rc <= 0) {
		WRITE_ONCE(storm.capped, ipistorm_numipi && !rc);
		/* Pairs with the senders' acquire: capped is seen with it. */
		smp_store_release(&storm.stop, true);
		wait_for_completion(&storm.done);
	}
	for (i = 0; i < nr_senders; i++)
		kthread_stop(senders[i]->task);
	return rc < 0 ? -EINTR : 0;
}
