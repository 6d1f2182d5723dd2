// SPDX-License-Identifier: GPL-2.0
/*
 * idle_reentry: the instrument measured by itself, before and after.
 * Part of idle_reentry_main.c's unit: included there, in its order.
 */

/*
 * The instrument measured by itself, once the hooks are in place, before
 * measuring and again after: rounds of calls of this module's empty
 * functions, hooked with the counting hooks' own bodies, on a scratch
 * state that takes every round as a re-entry to count; against the same
 * calls unhooked. A fast round (the light instrument: the tick's restart,
 * do_idle(); phases=1: the tick's restart, the flush, a polled wake-up,
 * schedule_idle(), do_idle()) gives what the hooks add to each span, read
 * from the spans the scratch state recorded, and what its hooks cost the
 * round; the same round with a pick what one more hook hit adds. The best
 * of CALIB_RUNS runs of each, interleaved, a run a stretch with interrupts off sized
 * to IPS_CALIB_AIM_NS, one CPU at a time in process context
 * (common/calib.h), as a re-entry runs: not in hard IRQ, its sibling
 * and the other CPUs left alone.
 */
/* Span @s as measured, summed, in ns. */
static u64 ir_raw_ns(const struct ir_cpu *c, unsigned int s)
{
	return ir_phases ? c->raw[s] : ips_clock_ns(c->raw[s]);
}

/* A variant of the calibration: rounds, their count a run, and its best run's counts. */
struct ir_cal_var {
	const struct ir_cal_round *r;
	unsigned int calls;
	struct ir_cpu *best_state;	/* or NULL */
};

/* The variants of one calibration of a CPU, on its scratch state. */
struct ir_cal_vars {
	struct ir_cpu *scratch;
	const struct ir_cal_var *v;
};

/*
 * One run of @calls rounds of variant @i, a stretch with interrupts off
 * (no hook of this CPU runs meanwhile but the calibration's, on the
 * scratch state): clock units. Hooked and plain rounds take the same
 * loop: their difference is the hooks'. A run better than @best leaves
 * the scratch state's counts in the variant's @best_state.
 */
static u64 ir_cal_run(struct ips_calib_cpu *k, void *data, unsigned int i,
		      u64 best)
{
	const struct ir_cal_vars *vs = data;
	const struct ir_cal_var *v = &vs->v[i];
	struct ir_cpu *cur, *scratch = vs->scratch;
	unsigned int n, j;
	u64 t0, t;

	if (!ips_calib_off(k)) {
		ips_calib_on(k);
		return U64_MAX;
	}
	cur = this_cpu_read(ir_this_cpu);
	this_cpu_write(ir_this_cpu, scratch);
	memset(&scratch->n, 0, sizeof(scratch->n));
	memset(scratch->raw, 0, sizeof(scratch->raw));
	ir_round_reset(scratch, true);
	t0 = ips_clock_read();
	for (n = 0; n < v->calls; n++)
		for (j = 0; j < v->r->n; j++)
			v->r->fn[j]();
	t = ips_clock_read() - t0;
	this_cpu_write(ir_this_cpu, cur);
	ips_calib_on(k);
	if (t < best && v->best_state) {
		v->best_state->n = scratch->n;
		memcpy(v->best_state->raw, scratch->raw, sizeof(scratch->raw));
	}
	return t;
}

/*
 * The best of CALIB_RUNS runs of each of @n variants @v, interleaved
 * (ips_calib_best()), ps a round, into @ps. False where the CPU went
 * offline.
 */
static bool ir_cal_best(struct ips_calib_cpu *k, struct ir_cpu *scratch,
			const struct ir_cal_var *v, unsigned int n, u64 *ps)
{
	struct ir_cal_vars vs = { .scratch = scratch, .v = v };
	unsigned int i;

	if (!ips_calib_best(k, ir_cal_run, &vs, CALIB_RUNS, n, ps))
		return false;
	for (i = 0; i < n; i++)
		ps[i] = ips_calib_ps(ps[i], v[i].calls);
	return true;
}

static u32 ir_cal_ps(u64 hooked, u64 plain)
{
	return hooked > plain ? min_t(u64, hooked - plain, U32_MAX) : 0;
}

/* The cost a CPU's drift is read on: what most of its times lose. */
static u32 ir_cal_main(const struct ir_calib *cal)
{
	return ir_phases ? cal->round_ps : cal->span_ps[H_TOTAL];
}

/* A pass of the calibration: its scratch states, and which it is. */
struct ir_cal_pass {
	struct ir_cpu *scratch;	/* two: the rounds', and the best run's counts */
	bool end;		/* the one after the run */
};

static void ir_calib_cpu(struct ips_calib_cpu *k)
{
	const struct ir_cal_pass *a = k->arg;
	const struct ir_cal_round *rounds = ir_cal_rounds;
	struct ir_cpu *c = ir_state[k->cpu], *s = a->scratch, *got = s + 1;
	struct ir_calib cal = {};
	unsigned int span, calls, i;
	/*
	 * The rounds, fast ([0]) and with a pick ([1]), hooked and plain,
	 * and the drift's reference: the plain calls of a fast round, as
	 * many as fill a run themselves (a run of the hooked round's count
	 * of them is too short to time well).
	 */
	enum { HOOKED1, PLAIN_REF, PLAIN0, PLAIN1, HOOKED0, NR_VAR };
	struct ir_cal_var v[NR_VAR] = {
		[HOOKED1] = { &rounds[1], 8 },
		[PLAIN_REF] = { &ir_cal_plain_rounds[0], 64 },
		[PLAIN0] = { &ir_cal_plain_rounds[0] },
		[PLAIN1] = { &ir_cal_plain_rounds[1] },
		[HOOKED0] = { &rounds[0], 0, got },
	};
	u64 t[NR_VAR];

	s->calibrating = true;
	/*
	 * Sized first: the heavier round, and the reference, by more calls
	 * (a plain call is short beside the clock's two reads).
	 */
	if (!ir_cal_best(k, s, v, PLAIN_REF + 1, t))
		return;
	/* A run's calls: as many as the heavier round makes in the aim. */
	calls = ips_calib_calls(t[HOOKED1], CALIB_CALLS);
	for (i = 0; i < NR_VAR; i++)
		v[i].calls = calls;
	v[PLAIN_REF].calls = ips_calib_calls(t[PLAIN_REF], CALIB_PLAIN_CALLS);
	if (!ir_cal_best(k, s, v, NR_VAR, t))
		return;
	cal.round_ps = ir_cal_ps(t[HOOKED0], t[PLAIN0]);
	cal.plain_ps = min_t(u64, U32_MAX, t[PLAIN_REF]);
	cal.round_hits = rounds[0].n;
	/* Noise can order two near runs either way: no difference wraps. */
	cal.hit_ps = t[HOOKED1] > t[HOOKED0] ?
		     ir_cal_ps(t[HOOKED1] - t[HOOKED0],
			       t[PLAIN1] > t[PLAIN0] ? t[PLAIN1] - t[PLAIN0] : 0) : 0;
	for (span = 0; span < IR_NR_HIST; span++) {
		u64 raw = div_u64(ir_raw_ns(got, span) * 1000, calls);
		u32 hits = div_u64(got->n.v[IR_HITS + span], calls);
		/*
		 * Between two hooks of a span the rounds make a call of the
		 * next function, as a plain call: not the hooks' cost. A
		 * span holds one such gap per hook hit it is charged.
		 */
		u64 gaps = div_u64(t[PLAIN0], rounds[0].n) * hits;

		cal.span_ps[span] = min_t(u64, U32_MAX, raw > gaps ? raw - gaps : 0);
		cal.span_hits[span] = hits;
	}
	/* A second try kept only if better (common/calib.c). */
	if (!ips_calib_drift_keep(&c->drift, a->end, k->again,
				  ir_cal_main(&cal), cal.plain_ps, calls))
		return;
	if (a->end)
		c->cal_end = cal;
	else
		c->cal = cal;
}

static const struct ips_calib_drift *ir_drift_of(int cpu)
{
	return &ir_state[cpu]->drift;
}

static bool ir_cpu_again(int cpu)
{
	return ips_calib_drift_past(ir_drift_of(cpu), IPS_CALIB_AGAIN_PCT10);
}

/* The scratch states of the calibration: two struct ir_cpu. */
static struct ir_cpu *ir_scratch;
/* The passes before and after the run. */
static struct ips_calib_pass ir_cal_pass[2];

/*
 * Calibrate every measured CPU, one after the other: before the run, or
 * after it (@end), within CALIB_END_BUDGET_NS. A CPU gone offline
 * meanwhile keeps costs of 0 (nothing removed), and is not counted as
 * calibrated.
 */
static void ir_calibrate(bool end)
{
	const struct ir_cal_round *rounds = ir_cal_rounds;
	struct ir_cal_pass a = { .scratch = ir_scratch, .end = end };
	unsigned int i, j;
	struct ir_cpu *cur;

	/*
	 * The calibration's rounds take the path of the real ones: a first
	 * call of each of its functions, through the set, makes its call
	 * site known (on a scratch state, with interrupts off: no real hook
	 * of this CPU writes it meanwhile); then the direct calls test for
	 * them where they test for the real ones.
	 */
	local_irq_disable();
	cur = this_cpu_read(ir_this_cpu);
	this_cpu_write(ir_this_cpu, ir_scratch);
	for (i = 0; i < 2; i++)
		for (j = 0; j < rounds[i].n; j++)
			rounds[i].fn[j]();
	this_cpu_write(ir_this_cpu, cur);
	local_irq_enable();
	static_branch_enable(&ir_calibrating);
	ir_hot_learn(true);
	if (end)
		ips_calib_end(ir_mask, ir_calib_cpu, &a, ir_cpu_again,
			      CALIB_END_BUDGET_NS, &ir_cal_pass[1]);
	else
		ips_calib_start(ir_mask, ir_calib_cpu, &a, &ir_cal_pass[0]);
	ir_hot_learn(false);
	static_branch_disable(&ir_calibrating);
}

/*
 * After the run (ir_finish()), the CPUs whose cost's share of the plain
 * calls moved more than the limit, or which have no calibration after
 * it: their times are unproven. The largest drift, tenths of %.
 */
static unsigned int ir_drift_over;
static u64 ir_drift_max;
