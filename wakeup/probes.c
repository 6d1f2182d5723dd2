// SPDX-License-Identifier: GPL-2.0
/*
 * wakeup: the probes, their calibration and the interrupt counts.
 * Part of wakeup_main.c's unit: included there, in its order.
 */

/* ---- probes -------------------------------------------------------------- */

/*
 * The probes read and count with this_cpu ops, one instruction each on
 * x86 (no per-CPU address computed); a count also counts in hits, which
 * the wake loop reads instead of summing every count.
 */
#define wk_hit(field)					\
	do {						\
		this_cpu_inc(wk_cpu.n.field);		\
		this_cpu_inc(wk_cpu.n.hits);		\
	} while (0)

static void wk_probe_wakeup(void *data, struct task_struct *p)
{
	if (!this_cpu_read(wk_cpu.on))
		return;
	if (p == this_cpu_read(wk_cpu.task[0]))
		wk_hit(act[0]);
	else if (p == this_cpu_read(wk_cpu.task[1]))
		wk_hit(act[1]);
}

static void wk_probe_noipi(void *data, int cpu)
{
	if (this_cpu_read(wk_cpu.on) && cpu == this_cpu_read(wk_cpu.peer))
		wk_hit(noipi);
}

static void wk_probe_cfs_ipi(void *data, int vector)
{
	if (this_cpu_read(wk_cpu.on))
		wk_hit(cfs_ipi);
}

static void wk_probe_cf_ipi(void *data, int vector)
{
	if (this_cpu_read(wk_cpu.on))
		wk_hit(cf_ipi);
}

static void wk_probe_res_ipi(void *data, int vector)
{
	if (this_cpu_read(wk_cpu.on))
		wk_hit(res_ipi);
}

/*
 * An idle entry here: its state, the one a wake-up that reaches this CPU
 * next finds it in (idle.h). An exit is a hit too: it runs inside the
 * wake-up it ends.
 */
static void wk_probe_idle(void *data, unsigned int state, unsigned int cpu)
{
	if (!this_cpu_read(wk_cpu.on))
		return;
	if (state == IPS_IDLE_EXIT) {
		this_cpu_inc(wk_cpu.n.hits);
		return;
	}
	this_cpu_write(wk_cpu.n.idle, state);
	wk_hit(idle_in);
}

enum {
	WK_TP_WAKEUP, WK_TP_NOIPI, WK_TP_CFS, WK_TP_RES, WK_TP_CF, WK_TP_IDLE,
	NR_WK_TPS
};

static struct ips_tp_probe wk_tps[NR_WK_TPS] = {
	[WK_TP_WAKEUP] = { "sched_wakeup", wk_probe_wakeup },
	[WK_TP_NOIPI] = { "sched_wake_idle_without_ipi", wk_probe_noipi },
	[WK_TP_CFS] = { "call_function_single_entry", wk_probe_cfs_ipi },
	[WK_TP_RES] = { "reschedule_entry", wk_probe_res_ipi },
	/* The kernel counts its IPIs with call_function_single's. */
	[WK_TP_CF] = { "call_function_entry", wk_probe_cf_ipi },
	[WK_TP_IDLE] = { "cpu_idle", wk_probe_idle },
};

static void wk_probes_off(void)
{
	if (!run.probes)
		return;
	ips_tp_unprobe_all(wk_tps, NR_WK_TPS);
	run.probes = false;
}

/* idle_states=0 leaves out the last, cpu_idle's. */
static unsigned int wk_nr_tps(void)
{
	BUILD_BUG_ON(NR_WK_TPS - 1 != WK_TP_IDLE);
	return wk_idle_states.val ? NR_WK_TPS : NR_WK_TPS - 1;
}

static int __init wk_probes_on(void)
{
	int ret = ips_tp_probe_all(wk_tps, wk_nr_tps(), "timing=1");

	BUILD_BUG_ON(ARRAY_SIZE(senders[0]->sign) != NR_WK_TPS);
	run.probes = !ret;
	return ret;
}

/*
 * The cost of one probe hit: the probes called directly on this CPU,
 * counting, interrupts off, CALIB_HITS times each (the tracepoint's own
 * dispatch, a few instructions, is not in it); the best of CALIB_RUNS
 * runs, as an emulator or a hypervisor may stall one. In ps.
 */
static void __init wk_calibrate(void)
{
	struct wk_cpu *c;
	unsigned long flags;
	u64 t0, dt = U64_MAX;
	unsigned int i, r;
	u32 mul, div;

	ips_clock_scale(&mul, &div);
	for (r = 0; r < CALIB_RUNS; r++) {
		local_irq_save(flags);
		c = this_cpu_ptr(&wk_cpu);
		c->task[0] = current;
		c->peer = -1;
		WRITE_ONCE(c->on, true);
		t0 = ips_clock_read_ordered();
		for (i = 0; i < CALIB_HITS; i++) {
			wk_probe_wakeup(NULL, current);
			wk_probe_cfs_ipi(NULL, 0);
			if (wk_idle_states.val)
				wk_probe_idle(NULL, 0, 0);
		}
		dt = min(dt, ips_clock_read_ordered() - t0);
		WRITE_ONCE(c->on, false);
		memset(c, 0, sizeof(*c));
		local_irq_restore(flags);
		cond_resched();
	}
	run.hit_ps = (u32)min_t(u64, U32_MAX,
				div64_u64(mul_u64_u32_div(dt, mul, div) * 1000,
					  (wk_idle_states.val ? 3 : 2) * CALIB_HITS));
}

/* The notifications a span of @path measures: one IPI, or none. */
static __always_inline unsigned int wk_notified(enum wk_scope path)
{
	return path == WK_WL_IPI || path == WK_RQ_IPI || path == WK_CALL_IPI;
}

/* test_interrupt=: an interrupt raised inside each timed wake-up. */
static DEFINE_STATIC_KEY_FALSE(wk_test_irq);
static DEFINE_PER_CPU(struct irq_work, wk_test_work);

/* 1: the sender's own irq_work; 2: a reschedule IPI to the target. */
static __always_inline void wk_test_raise(int target)
{
	ips_test_irq_raise(&wk_test_work, wk_test_interrupt, target);
}

/* Probe calls that counted, in a delta of counts. */
static __always_inline u64 wk_hits(const struct wk_counts *d)
{
	return d->hits;
}

static void wk_irq_counts(unsigned int *call, unsigned int *res)
{
	unsigned int i;

	*call = 0;
	*res = 0;
	for (i = 0; i < nr_senders; i++) {
		*call += ips_irq_count(senders[i]->cpu, IPS_IRQ_CALL) +
			 ips_irq_count(senders[i]->target, IPS_IRQ_CALL);
		*res += ips_irq_count(senders[i]->cpu, IPS_IRQ_RESCHED) +
			ips_irq_count(senders[i]->target, IPS_IRQ_RESCHED);
	}
}
