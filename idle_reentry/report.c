// SPDX-License-Identifier: GPL-2.0
/*
 * idle_reentry: the result.
 * Part of idle_reentry_main.c's unit: included there, in its order.
 */

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

	for_each_cpu(cpu, ir_mask) {
		fired |= ir_state[cpu]->fired;
		idle_ran |= ir_state[cpu]->idle_ran;
	}
#define FIRED(h) (!!(fired & BIT(h)))
	/* Fired or untested, where no sign below says a hook should have fired. */
	for (i = 0; i < IR_NR_HOOKS; i++)
		p[i] = i < IR_NR_REAL ? ips_hook_prove(FIRED(i), false) :
					IPS_HOOK_UNTESTED;
	p[IR_HOOK_DO_IDLE] = ips_hook_prove(FIRED(IR_HOOK_DO_IDLE), idle_ran);
	p[IR_HOOK_FLUSH] = ips_hook_prove(FIRED(IR_HOOK_FLUSH), t->v[IR_ROUNDS]);
	p[IR_HOOK_SCHEDULE_IDLE] = ips_hook_prove(FIRED(IR_HOOK_SCHEDULE_IDLE), t->v[IR_ROUNDS]);
	p[IR_HOOK_PICK] = ir_pick_hook_proof(t);
	p[IR_HOOK_NEWIDLE] = ips_hook_prove(FIRED(IR_HOOK_NEWIDLE), t->v[IR_PICK_FAIR]);
	p[IR_HOOK_WAKE_POLL] = ips_hook_prove(FIRED(IR_HOOK_WAKE_POLL),
					      FIRED(IR_HOOK_WAKE_IPI));
	/* An interrupt's entry, shown by an IPI's or a timer's. */
	p[IR_HOOK_IRQ_ENTER] = ips_hook_prove(FIRED(IR_HOOK_IRQ_ENTER),
					      FIRED(IR_HOOK_WAKE_IPI) ||
					      FIRED(IR_HOOK_WAKE_TIMER));
	/*
	 * The wake-up split's labels rest on the wake hooks and the quiet
	 * end, the interrupted count on the entry (IR_FIGURE).
	 */
	for (i = 0; ir_phases && i < IR_NR_REAL; i++)
		if ((ir_hooks[i].flags & IR_FIGURE) && !ir_hooks[i].hooked)
			p[i] = IPS_HOOK_MISSING;
	p[IR_HOOK_TICK] = ips_hook_prove(FIRED(IR_HOOK_TICK), t->v[IR_ROUNDS]);
	/*
	 * A round that switched to a task came back to idle through a pick
	 * (the idle class's, once the task left): 6.1's pick_task_idle()
	 * only with core scheduling, fired or untested.
	 */
	p[IR_HOOK_PICK_IDLE_NEXT] = ips_hook_prove(FIRED(IR_HOOK_PICK_IDLE_NEXT),
						   t->v[IR_SWITCHED]);
	p[IR_HOOK_PICK_IDLE] = ips_hook_prove(FIRED(IR_HOOK_PICK_IDLE),
					      t->v[IR_SWITCHED] &&
				       !ir_hooks[IR_HOOK_PICK_IDLE_NEXT].hooked);
	if (!ir_phases && !ir_hooks[IR_HOOK_PICK_IDLE].hooked)
		p[IR_HOOK_PICK_IDLE] = ir_pick_hook_proof(t);
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

/* idle_states=1: slot @slot's re-entries by wake-up, and totals. */
static void ir_idle_sum(unsigned int slot, struct ips_idle_sum *s)
{
	unsigned int w;
	int cpu;

	BUILD_BUG_ON(NR_WAKE > IPS_IDLE_MAX_KINDS);
	for_each_cpu(cpu, ir_mask) {
		const struct ir_cpu *c = ir_state[cpu];

		for (w = 0; w < NR_WAKE; w++)
			s->n[w] += c->reentry_idle[w][slot];
		ips_hist_merge(s->h, &c->hist_idle[slot]);
	}
}

/*
 * idle_states=1: the probe's hits, and the re-entries by the idle state
 * they left (the states that hold any), by what pulled the CPU out, their
 * share of all, and their totals, summed over the CPUs. @h is scratch.
 */
static void ir_emit_idle(struct seq_buf *sb, u64 reentries, struct ips_hist *h)
{
	u64 hits = 0;
	int cpu;

	ips_idle_emit_driver(sb, &ir_idle);
	for_each_cpu(cpu, ir_mask)
		hits += ir_state[cpu]->idle_hits;
	seq_buf_printf(sb, "total.idle_probe_hits=%llu\n", hits);
	ips_idle_emit_slots(sb, &ir_idle, "reentries", wake_name, NR_WAKE,
			    reentries, hist_name[H_TOTAL], h, ir_idle_sum);
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
	seq_buf_printf(sb, "idle_states=%d\n", ir_idle_states);
	seq_buf_printf(sb, "status=%s\n", ir_status(&tot, interrupted));
	seq_buf_printf(sb, "measured_ns=%llu\n",
		       ir_session.stop_ns - ir_session.start_ns);
	ips_hooks_emit(sb, &ir_hook_set,
		       ir_idle_states ? "sched_switch,cpu_idle" : "sched_switch");
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
	/* all[]'s figures are printed: its tick histogram is scratch now. */
	if (ir_idle_states)
		ir_emit_idle(sb, tot.v[IR_REENTRIES], &all[H_TICK]);
}

static size_t ir_result_size(void)
{
	size_t size = 8192 + (ir_idle_states ? ir_idle_slots * 1024 : 0);
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
 * or a tracepoint refused to remove a probe, the state stays (ir_unhooked
 * is false) for the probes that may still write it.
 */
static void ir_finish(bool interrupted)
{
	struct ir_count tot;

	/* Hooked still, not measuring: what the hooks cost now. */
	if (!interrupted)
		ir_calibrate(true);
	ir_drift_over = ips_calib_drift_over(ir_mask, ir_drift_of, &ir_drift_max);
	ir_unhook();
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
