// SPDX-License-Identifier: GPL-2.0
/*
 * placement: the probes, and the CPUs' topology.
 * Part of placement_main.c's unit: included there, in its order.
 */

/* ---- probes -------------------------------------------------------------- */

static void pl_probe_wakeup(void *data, struct task_struct *p)
{
	int t;

	if (p != READ_ONCE(rec.task))
		return;
	this_cpu_inc(pl_cpu.hits);
	if (rec.wakeups++)
		return;
	t = task_cpu(p);
	rec.t_enq = ips_clock_read_ordered();
	rec.target = t;
	/* The target's runqueue is locked here, as at its switches. */
	rec.target_busy = !per_cpu(pl_cpu.idle, t);
	rec.outside = !cpumask_test_cpu(t, run.cpus);
}

/*
 * From the waker's wake_up_process(), after the wakee's CPU is chosen
 * (set_task_cpu() comes first on both paths): only this CPU's poll counts,
 * not one the waker's interrupts raised for another.
 */
static void pl_probe_noipi(void *data, int cpu)
{
	struct task_struct *p;

	if (current != run.waker)
		return;
	p = READ_ONCE(rec.task);
	if (!p)
		return;
	this_cpu_inc(pl_cpu.hits);
	if (cpu == task_cpu(p))
		rec.polled = true;
}

static void pl_probe_switch(void *data, bool preempt, struct task_struct *prev,
			    struct task_struct *next, unsigned int prev_state)
{
	if (!this_cpu_read(pl_cpu.on))
		return;
	this_cpu_inc(pl_cpu.hits);
	this_cpu_write(pl_cpu.idle, is_idle_task(next));
	if (next != READ_ONCE(rec.task))
		return;
	rec.cur_cpu = smp_processor_id();
	if (rec.runs++)
		return;
	rec.t_run = ips_clock_read_ordered();
	rec.ran_cpu = smp_processor_id();
	rec.behind = !is_idle_task(prev);
	rec.ipi = this_cpu_read(pl_cpu.ipi_seq) == rec.seq;
}

static void pl_probe_ipi(void *data, int vector)
{
	if (!this_cpu_read(pl_cpu.on))
		return;
	this_cpu_inc(pl_cpu.hits);
	this_cpu_write(pl_cpu.ipi_seq, READ_ONCE(run.seq));
}

static struct ips_tp_probe pl_tps[] = {
	{ "sched_wakeup", pl_probe_wakeup },
	{ "sched_wake_idle_without_ipi", pl_probe_noipi },
	{ "sched_switch", pl_probe_switch },
	{ "reschedule_entry", pl_probe_ipi },
	{ "call_function_single_entry", pl_probe_ipi },
};

static void pl_probes_off(void)
{
	if (!run.probes)
		return;
	ips_tp_unprobe_all(pl_tps, ARRAY_SIZE(pl_tps));
	run.probes = false;
}

static int __init pl_probes_on(void)
{
	int ret = ips_tp_probe_all(pl_tps, ARRAY_SIZE(pl_tps), NULL);

	run.probes = !ret;
	return ret;
}

/*
 * The best of CALIB_RUNS runs (an emulator or a hypervisor may stall one)
 * of CALIB_HITS calls of @fn, interrupts off, in ps a call. The
 * tracepoint's own dispatch, a few instructions, is not in it.
 */
static u32 __init pl_calib_run(void (*fn)(void))
{
	unsigned long flags;
	u64 t0, dt = U64_MAX;
	unsigned int i, r;
	u32 mul, div;

	ips_clock_scale(&mul, &div);
	for (r = 0; r < CALIB_RUNS; r++) {
		local_irq_save(flags);
		this_cpu_write(pl_cpu.on, true);
		t0 = ips_clock_read_ordered();
		for (i = 0; i < CALIB_HITS; i++)
			fn();
		dt = min(dt, ips_clock_read_ordered() - t0);
		this_cpu_write(pl_cpu.on, false);
		this_cpu_write(pl_cpu.hits, 0);
		local_irq_restore(flags);
		cond_resched();
	}
	return (u32)min_t(u64, U32_MAX,
			  div64_u64(mul_u64_u32_div(dt, mul, div) * 1000,
				    CALIB_HITS));
}

/* A hit of the probes that fire on every measured CPU, for nothing. */
static void __init pl_calib_idle_hit(void)
{
	pl_probe_switch(NULL, false, current, current, 0);
	pl_probe_ipi(NULL, 0);
}

/*
 * The probes' work on a wake-up's path, between the waker's clock read
 * and the wakee's: the enqueue's, the switch's to the wakee (its clock
 * read included) and an IPI's, on a record of this thread.
 */
static void __init pl_calib_path_hit(void)
{
	rec.wakeups = 0;
	rec.runs = 0;
	pl_probe_wakeup(NULL, current);
	pl_probe_ipi(NULL, 0);
	pl_probe_switch(NULL, false, current, current, 0);
}

static void __init pl_calibrate(void)
{
	run.hit_ps = pl_calib_run(pl_calib_idle_hit) / 2;
	WRITE_ONCE(rec.task, current);
	run.path_ps = pl_calib_run(pl_calib_path_hit);
	WRITE_ONCE(rec.task, NULL);
	memset(&rec, 0, sizeof(rec));
}

/* Whether the CPU runs its idle task: from an IPI, serialised with its switches. */
static void pl_seed_idle(void *unused)
{
	this_cpu_write(pl_cpu.idle, is_idle_task(current));
}

/* ---- topology -------------------------------------------------------------- */

/* The LLC id x86 gives the CPU, the one the scheduler's LLC domain is built from. */
static u32 __init pl_llc_id(int cpu)
{
#ifdef PL_PER_CPU_LLC_ID
	return per_cpu_llc_id(cpu);
#else
	return get_llc_id(cpu);
#endif
}

/*
 * The node first: with Intel's sub-NUMA clustering a package's LLC id
 * spans nodes, and the scheduler splits its LLC domain at them.
 */
static enum pl_rel pl_rel(int a, int b)
{
	if (a == b)
		return PL_SAME_CPU;
	if (cpu_to_node(a) != cpu_to_node(b))
		return PL_OTHER_NODE;
	return run.llc[a] == run.llc[b] ? PL_SAME_LLC : PL_OTHER_LLC;
}
