// SPDX-License-Identifier: GPL-2.0
/*
 * nohz_csd: the result.
 * Part of nohz_csd_main.c's unit: included there, in its order.
 */

/* ---- the report -------------------------------------------------------- */

/*
 * A CPU's counts (or the totals'), what the probes cost it over @cpu_ns of
 * the measurement, and the delays: the kernel's under the usual keys
 * (cost removed), as measured in delay_raw_mean_ns, with the probe hits
 * inside them.
 */
static void nc_emit_cpu(struct seq_buf *sb, const char *pfx,
			const struct nc_cpu *c, bool buckets, u64 cpu_ns)
{
	unsigned int k, i;
	u64 v;

	/*
	 * The keys that sum a range of counters sum exactly these: dropped,
	 * the drops in and out of the idle task; raised_without_balance,
	 * the raised kicks a run did not balance for.
	 */
	BUILD_BUG_ON(NC_DROPPED_BUSY - NC_DROPPED_IDLE != 1);
	BUILD_BUG_ON(NC_MERGED - NC_UNBALANCED != 1 ||
		     NC_UNSERVED - NC_MERGED != 1);
	/* nc_keys' bounds are u8. */
	BUILD_BUG_ON(NR_NC > 256);
	BUILD_BUG_ON(ARRAY_SIZE(nc_kind_name) != NR_KIND);
	for (k = 0; k < ARRAY_SIZE(nc_keys); k++) {
		/* Not counted at all without its hook. */
		if (nc_keys[k].first == NC_TICK_STOPS &&
		    !nc_hooks[HK_TICK_STOP].hooked)
			continue;
		v = 0;
		for (i = nc_keys[k].first; i <= nc_keys[k].last; i++)
			v += c->n[i];
		seq_buf_printf(sb, "%s%s=%llu\n", pfx, nc_keys[k].name, v);
	}
	for (k = 0; k < NR_KIND; k++)
		seq_buf_printf(sb, "%sprobe_hits_%s=%llu\n", pfx, nc_kind_name[k],
			       c->m_kind_hits[k]);
	v = div_u64(c->m_acc, 1000);
	seq_buf_printf(sb, "%sprobe_cost_ns=%llu\n", pfx, v);
	seq_buf_printf(sb, "%sirqs_other=%llu\n", pfx, c->irqs_other);
	ips_result_ratio(sb, pfx, "probe_cost_ppm", v * 1000000, cpu_ns);
	ips_hist_emit(sb, pfx, "delay", &c->delay, buckets);
	seq_buf_printf(sb, "%sdelay_below_cost=%llu\n", pfx, c->delay.below);
	ips_result_ratio(sb, pfx, "delay_raw_mean_ns", c->delay_raw_ns,
			 c->delay.n);
	seq_buf_printf(sb, "%sdelay_probe_hits=%llu\n", pfx, c->delay_hits);
}

/* idle_states=1: slot @slot's kicks by path, and delays. */
static void nc_idle_sum(unsigned int slot, struct ips_idle_sum *s)
{
	unsigned int i;
	int cpu;

	BUILD_BUG_ON(NR_DLV > IPS_IDLE_MAX_KINDS);
	for_each_cpu(cpu, nc_mask) {
		const struct nc_cpu *c = nc_state[cpu];

		for (i = 0; i < NR_DLV; i++)
			s->n[i] += c->kick_idle[i][slot];
		ips_hist_merge(s->h, &c->delay_idle[slot]);
	}
}

/*
 * idle_states=1: the kicks by the idle state they found their CPU in (the
 * states that hold any), by path, their share of all, and the delays of
 * the balanced ones, summed over the CPUs. @h is scratch.
 */
static void nc_emit_idle(struct seq_buf *sb, u64 kicks, struct ips_hist *h)
{
	static const char * const dlv[NR_DLV] = {
		[DLV_POLL] = "kick_poll", [DLV_IRQ] = "kick_irq",
		[DLV_OTHER] = "kick_other",
	};

	ips_idle_emit_driver(sb, &nc_idle);
	ips_idle_emit_slots(sb, &nc_idle, "kicks", dlv, NR_DLV, kicks, "delay",
			    h, nc_idle_sum);
}

/* A CPU's calibration, ns, as "<pfx><what>_...": "calib" or "calib_end". */
static void nc_emit_calib(struct seq_buf *sb, const char *pfx, const char *what,
			  const struct nc_calib *cal, u32 calls)
{
	unsigned int k;
	char key[40];

	seq_buf_printf(sb, "%s%s_calls=%u\n", pfx, what, calls);
	for (k = 0; k < NR_KIND; k++) {
		snprintf(key, sizeof(key), "%s_%s_ns", what, nc_kind_name[k]);
		ips_result_ratio(sb, pfx, key, cal->hit_ps[k], 1000);
	}
	snprintf(key, sizeof(key), "%s_span_ns", what);
	ips_result_ratio(sb, pfx, key, cal->span_ps, 1000);
	seq_buf_printf(sb, "%s%s_span_hits=%u\n", pfx, what, cal->span_hits);
	snprintf(key, sizeof(key), "%s_plain_ns", what);
	ips_result_ratio(sb, pfx, key, cal->plain_ps, 1000);
}

/*
 * The spread over the watched CPUs of the calibration's value at @off:
 * "calib_<name>_ns", "..._min", "..._max". (The one after the run is in
 * each CPU's keys, and its drift in the totals: the log keeps its lines.)
 */
static void nc_emit_spread(struct seq_buf *sb, const char *name, size_t off)
{
	char key[40];

	snprintf(key, sizeof(key), "calib_%s_ns", name);
	ips_result_spread(sb, key, (void * const *)nc_state, nc_mask,
			  offsetof(struct nc_cpu, cal) + off);
}

static void nc_emit_spreads(struct seq_buf *sb)
{
	unsigned int i;

	for (i = 0; i < NR_KIND; i++)
		nc_emit_spread(sb, nc_kind_name[i], offsetof(struct nc_calib, hit_ps[i]));
	nc_emit_spread(sb, "span", offsetof(struct nc_calib, span_ps));
}

/* The two passes of the calibration, and the drift (common/calib.c). */
static void nc_emit_passes(struct seq_buf *sb)
{
	ips_calib_emit(sb, nc_cal_pass, nc_mask, nc_drift_of, nc_drift_over,
		       nc_drift_max);
}

/*
 * Why no kick was seen, from what the probes did see. Kicks only go to CPUs
 * whose tick is stopped (nohz.idle_cpus_mask); idle=poll, or an idle state
 * flagged as polling, keeps the tick running.
 */
static const char *nc_reason(const struct nc_cpu *all, bool ticks_hooked)
{
	if (all->n[NC_KICKS])
		return NULL;
	if (ticks_hooked && !all->n[NC_TICK_STOPS])
		return "the tick never stopped on them (idle=poll?): no CPU could kick them";
	if (cpumask_empty(nc_load_mask))
		return "no CPU had two runnable tasks: give load_cpus= or run a load";
	return "kicks go to the first idle CPU in nohz.idle_cpus_mask: watch that one";
}

/*
 * Every hook's proof, from where it fired on the watched CPUs and an
 * independent sign that its function ran there: a SCHED_SOFTIRQ run that
 * served a kick and saw no balance (unbalanced) for the balance hook,
 * which every nohz idle balance calls; a kick for the tick stop (only a
 * CPU whose tick stopped is kicked) and for do_idle (a kicked CPU idles).
 * The balance hook missing (no traceable _nohz_idle_balance, or
 * test_skip=): every served kick would read unbalanced, so the figures
 * resting on it are unproven ("missing"). Without the tick stop's hook
 * tick_stops is left out: no figure rests on it.
 */
static void nc_proofs(enum ips_hook_proof *p)
{
	u64 kicks = 0, unbalanced = 0;
	u8 fired[NR_HK] = {};
	unsigned int i;
	int cpu;

	/* A hook for each HK_* (the proofs are indexed alike). */
	BUILD_BUG_ON(ARRAY_SIZE(nc_hooks) != NR_HK);
	for_each_cpu(cpu, nc_mask) {
		const struct nc_cpu *c = nc_state[cpu];

		kicks += c->n[NC_KICKS];
		unbalanced += c->n[NC_UNBALANCED];
		for (i = 0; i < NR_HK; i++)
			fired[i] |= c->fired[i];
	}
	/* Fired or untested where no sign below says a hook should have fired. */
	for (i = 0; i < NR_HK; i++)
		p[i] = ips_hook_prove(fired[i], false);
	p[HK_BALANCE] = ips_hook_prove(fired[HK_BALANCE], unbalanced);
	if (!nc_hooks[HK_BALANCE].hooked)
		p[HK_BALANCE] = IPS_HOOK_MISSING;
	p[HK_TICK_STOP] = ips_hook_prove(fired[HK_TICK_STOP], kicks);
	p[HK_DO_IDLE] = ips_hook_prove(fired[HK_DO_IDLE], kicks);
}

/* The hooks whose figures are unproven: never fired where they ran, or missing. */
static unsigned int nc_unproven(const enum ips_hook_proof *p)
{
	unsigned int i, n = 0;

	for (i = 0; i < NR_HK; i++)
		n += (nc_hooks[i].hooked && p[i] == IPS_HOOK_UNPROVEN) ||
		     p[i] == IPS_HOOK_MISSING;
	return n;
}

/* The probes not of the hook set, for hooked=. */
#define NC_PROBES \
	"nohz_csd_func,wake_up_process,softirq_raise,softirq_entry,softirq_exit,sched_switch"

static void nc_emit(struct seq_buf *sb, bool interrupted)
{
	u64 measured = nc_session.stop_ns - nc_session.start_ns;
	enum ips_hook_proof proofs[NR_HK];
	unsigned int i, ncpus = 0;
	/* static: summing cannot fail after the run; one report a load */
	static struct nc_cpu tot;
	struct nc_cpu *all = &tot;
	const char *why;
	char pfx[24];
	int cpu;

	ips_result_header(sb, NC_FORMAT, nc_duration ? "timed" : "until_stop");
	seq_buf_printf(sb, "times=kernel\n");
	seq_buf_printf(sb, "clock=%s\n", ips_clock_name());
	seq_buf_printf(sb, "hooks_via=%s\n", ips_hooks_how(&nc_hook_set));
	seq_buf_printf(sb, "cpulist=%*pbl\n", cpumask_pr_args(nc_mask));
	seq_buf_printf(sb, "load_cpus=%*pbl\n", cpumask_pr_args(nc_load_mask));
	seq_buf_printf(sb, "load_threads=%u\n",
		       cpumask_empty(nc_load_mask) ? 0 : nc_load_threads);
	seq_buf_printf(sb, "load_offline=%d\n", atomic_read(&nc_load_offline));
	seq_buf_printf(sb, "idle_states=%d\n", nc_idle_states);
	nc_proofs(proofs);
	seq_buf_printf(sb, "status=%s\n", interrupted ? "interrupted" :
		       nc_unproven(proofs) || nc_drift_over ? "unproven" :
		       "complete");
	seq_buf_printf(sb, "measured_ns=%llu\n", measured);
	seq_buf_printf(sb, "nmissed=%lu\n", nc_missed);
	ips_hooks_emit(sb, &nc_hook_set, nc_idle_states ? NC_PROBES ",cpu_idle" :
		       NC_PROBES);
	ips_hooks_emit_proofs(sb, &nc_hook_set, proofs);
	nc_emit_passes(sb);
	nc_emit_spreads(sb);

	memset(all, 0, sizeof(*all));
	ips_hist_init(&all->delay);
	for_each_cpu(cpu, nc_mask) {
		const struct nc_cpu *c = nc_state[cpu];

		snprintf(pfx, sizeof(pfx), "cpu%d.", cpu);
		nc_emit_calib(sb, pfx, "calib", &c->cal, c->drift.calls[0]);
		nc_emit_calib(sb, pfx, "calib_end", &c->cal_end, c->drift.calls[1]);
		ips_calib_drift_emit(sb, pfx, &c->drift);
		nc_emit_cpu(sb, pfx, c, true, measured);
		ncpus++;
		for (i = 0; i < NR_NC; i++)
			all->n[i] += c->n[i];
		for (i = 0; i < NR_KIND; i++)
			all->m_kind_hits[i] += c->m_kind_hits[i];
		all->m_acc += c->m_acc;
		all->irqs_other += c->irqs_other;
		ips_hist_merge(&all->delay, &c->delay);
		all->delay_raw_ns += c->delay_raw_ns;
		all->delay_hits += c->delay_hits;
		cond_resched();
	}
	nc_emit_cpu(sb, "total.", all, false, measured * ncpus);
	/* all's delay is printed: its histogram is scratch now. */
	if (nc_idle_states)
		nc_emit_idle(sb, all->n[NC_KICKS], &all->delay);
	why = nc_reason(all, !!nc_hooks[HK_TICK_STOP].hooked);
	if (why)
		seq_buf_printf(sb, "reason=%s\n", why);
}

static size_t nc_result_size(void)
{
	size_t size = 4096 + (nc_idle_states ? nc_idle_slots * 1024 : 0);
	int cpu;

	for_each_cpu(cpu, nc_mask)
		size += 3072 + 64 * ips_hist_used(&nc_state[cpu]->delay);
	return size;
}

/*
 * The measurement has ended at one instant, with every probe still in
 * place: stop the load, unhook (once that returns, every handler that
 * counted has returned, with every kick and SCHED_SOFTIRQ run that
 * counted), print and publish.
 */
static void nc_finish(bool interrupted)
{
	int cpu;

	nc_missed = nc_probe_misses() - nc_missed_base;
	nc_measure_hits(false);
	nc_load_end();
	/* Probed still, not measuring, the load gone: what they cost now. */
	if (!interrupted && nc_calibrate(true))
		pr_warn("no memory to calibrate after the run: the drift is unknown\n");
	nc_drift_over = ips_calib_drift_over(nc_mask, nc_drift_of, &nc_drift_max);
	nc_unhook();
	/* Nothing moves now. What counted kicks were still waiting for: */
	for_each_cpu(cpu, nc_mask) {
		struct nc_cpu *c = nc_state[cpu];

		/* raised, their SCHED_SOFTIRQ had not run; */
		c->n[NC_UNSERVED] += c->awaiting;
		c->awaiting = 0;
		/* dropped in the idle task, its next step not seen. */
		c->n[NC_DROPPED_UNRESOLVED] += c->drops_open;
		c->drops_open = 0;
		c->poll_drops_open = 0;
	}

	if (nc_missed)
		pr_warn("%lu probe hits missed: the counts are short\n",
			nc_missed);
	if (!interrupted) {
		enum ips_hook_proof proofs[NR_HK];

		if (nc_drift_over)
			pr_warn("%u CPUs' cost of the probes moved more than %u.%u%% over the run, or could not be measured after it (calib_drift_* in the result): the delays are unproven\n",
				nc_drift_over, IPS_CALIB_DRIFT_LIMIT_PCT10 / 10,
				IPS_CALIB_DRIFT_LIMIT_PCT10 % 10);

		nc_proofs(proofs);
		if (nc_unproven(proofs))
			pr_warn("%u hooks never fired where their function ran, or are missing: their figures are unproven (proof.* in the result)\n",
				nc_unproven(proofs));
	}
	ips_result_report(&nc_session.result, KBUILD_MODNAME, nc_result_size(),
			  nc_emit, interrupted);
}
