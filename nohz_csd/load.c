// SPDX-License-Identifier: GPL-2.0
/*
 * nohz_csd: the probe hits of the measurement, and the load threads.
 * Part of nohz_csd_main.c's unit: included there, in its order.
 */

/*
 * The probe hits and their cost, and the kernel's interrupt counts, from
 * the measurement's start (@start) to its end: counters read on each
 * CPU, a few microseconds apart.
 */
static void nc_measure_hits(bool start)
{
	unsigned int k;
	int cpu;

	for_each_cpu(cpu, nc_mask) {
		struct nc_cpu *c = nc_state[cpu];

		for (k = 0; k < NR_KIND; k++)
			c->m_kind_hits[k] = local_read(&c->kind_hits[k]) -
					    (start ? 0 : c->m_kind_hits[k]);
		c->m_acc = local_read(&c->acc) - (start ? 0 : c->m_acc);
		c->m_irqs = ips_irqs(cpu) - (start ? 0 : c->m_irqs);
		c->m_irqs_call = ips_irq_count(cpu, IPS_IRQ_CALL) -
				 (start ? 0 : c->m_irqs_call);
		/* The kicks' IPIs, those that came in hard IRQ, are not another's. */
		if (!start)
			c->irqs_other = ips_irqs_other(c->m_irqs, c->m_irqs_call,
						       c->n[NC_KICK_IRQ]);
	}
}

/*
 * A load thread spins on its CPU until the load ends. Bound, it is moved
 * elsewhere when its CPU goes offline, where it would load a CPU not in
 * load_cpus (a watched one, perhaps): it stops spinning then, counted in
 * load_offline.
 */
static int nc_load_thread(void *arg)
{
	int cpu = (long)arg;

	while (!READ_ONCE(nc_load_stop) && !kthread_should_stop()) {
		if (raw_smp_processor_id() != cpu) {
			atomic_inc(&nc_load_offline);
			break;
		}
		cpu_relax();
		ips_thread_pause();
	}
	ips_thread_wait_stop();
	return 0;
}

static void nc_load_end(void)
{
	unsigned int i;

	WRITE_ONCE(nc_load_stop, true);
	for (i = 0; i < nr_load; i++)
		kthread_stop(nc_load[i]);
	kfree(nc_load);
	nc_load = NULL;
	nr_load = 0;
}

/*
 * The load threads, each bound to its CPU and woken under the CPU-hotplug
 * lock's read side, from the check that the CPU is still online (it was
 * when load_cpus= was parsed, before the probes went in) to the wakeup: a
 * thread bound to an offline CPU would run unbound. A CPU that goes
 * offline later is nc_load_thread()'s. Not taken around the probes'
 * registration, which takes it itself to patch the kernel.
 */
static int nc_load_start(void)
{
	unsigned int n;
	int cpu, ret = 0;

	if (cpumask_empty(nc_load_mask))
		return 0;
	nc_load = kcalloc(cpumask_weight(nc_load_mask) * nc_load_threads,
			  sizeof(*nc_load), GFP_KERNEL);
	if (!nc_load)
		return -ENOMEM;
	WRITE_ONCE(nc_load_stop, false);
	atomic_set(&nc_load_offline, 0);
	cpus_read_lock();
	for_each_cpu(cpu, nc_load_mask) {
		if (!cpu_online(cpu)) {
			pr_err("load_cpus=%.64s: CPU %d went offline\n",
			       nc_load_cpus.val, cpu);
			ret = -EINVAL;
			goto out;
		}
	}
	for_each_cpu(cpu, nc_load_mask) {
		for (n = 0; n < nc_load_threads; n++) {
			struct task_struct *t;

			t = kthread_create_on_node(nc_load_thread,
						   (void *)(long)cpu,
						   cpu_to_node(cpu),
						   "nohz_csd_load/%d", cpu);
			if (IS_ERR(t)) {
				ret = PTR_ERR(t);
				goto out;
			}
			kthread_bind(t, cpu);
			nc_load[nr_load++] = t;
			wake_up_process(t);
		}
	}
out:
	cpus_read_unlock();
	if (ret)
		nc_load_end();
	return ret;
}
