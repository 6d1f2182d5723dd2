// SPDX-License-Identifier: GPL-2.0
/*
 * nohz_csd: the instrument measured by itself, before and after.
 * Part of nohz_csd_main.c's unit: included there, in its order.
 */

/*
 * The instrument measured by itself, on each watched CPU in turn (an
 * emulated CPU's clock runs on while another CPU executes), in process
 * context, in stretches with interrupts off (common/calib.h), once every
 * probe is in place, before the session measures and again after. This
 * module's functions are called some times a run (as many as
 * IPS_CALIB_AIM_NS holds, at most CALIB_CALLS), probed as the kernel's
 * are, with the very bodies of the counting probes on a scratch state,
 * against the same calls unprobed, the best of CALIB_RUNS runs each,
 * interleaved (ips_calib_best()): each kind's hit (a tracepoint's probe
 * is called as a static call does, preemption off, on a vector the probes
 * pass over). Then
 * rounds of a kick's fewest hits, nohz_csd_func()'s stand-in raising
 * SCHED_SOFTIRQ, the softirq_entry probe, the balance hook and the
 * softirq_exit probe, each probe's hit weighed with the costs just
 * measured: the delay spans the scratch state measured in them are what
 * the probes add to a span of that weight, all else being empty calls.
 */
enum {
	CAL_PLAIN, CAL_EMPTY, CAL_KRETPROBE, CAL_KPROBE, CAL_TRACEPOINT,
	CAL_HOOK, CAL_SPAN,
};

/* softirq_entry's probe as the calibration's span calls it: measuring. */
static noinline void nc_cal_tp_entry(void *data, unsigned int vec)
{
	struct nc_cpu *c = nc_this();

	if (!c)
		return;
	nc_count(c, K_TRACEPOINT);
	nc_tp_entry_body(c, vec, true);
}

static __always_inline void nc_cal_step(unsigned int what)
{
	switch (what) {
	case CAL_PLAIN:
		nc_cal_plain();
		break;
	case CAL_EMPTY:
		barrier();
		break;
	case CAL_KRETPROBE:
		nc_cal_fn_csd(false);
		break;
	case CAL_KPROBE:
		nc_cal_fn_wake();
		break;
	case CAL_TRACEPOINT:
		NC_CAL_TP(nc_tp_exit, TIMER_SOFTIRQ);
		break;
	case CAL_HOOK:
		nc_cal_fn_idle();
		break;
	case CAL_SPAN:
		nc_cal_fn_csd(true);
		NC_CAL_TP(nc_cal_tp_entry, SCHED_SOFTIRQ);
		nc_cal_fn_balance();
		NC_CAL_TP(nc_tp_exit, SCHED_SOFTIRQ);
		break;
	}
}

/* What the span rounds measured, summed over the best run's rounds. */
struct nc_cal_spans {
	u64 raw_ns;
	u64 acc;
	u64 hits;
};

/*
 * The calibration's kprobes missed so far: a hit that finds another
 * kprobe's handler running on the CPU runs none of its own, and would
 * make its run look cheap.
 */
static unsigned long nc_cal_misses(void)
{
	return READ_ONCE(nc_cal_csd_probe.nmissed) +
	       READ_ONCE(nc_cal_csd_probe.kp.nmissed) +
	       READ_ONCE(nc_cal_wake_probe.nmissed);
}

/* A variant of the calibration: its steps, their count a run. */
struct nc_cal_var {
	unsigned int what;
	unsigned int calls;
};

/* The variants of one calibration of a CPU, and the span's best run. */
struct nc_cal_vars {
	struct nc_cpu *scratch;
	const struct nc_cal_var *v;
	struct nc_cal_spans *spans;
};

/*
 * One run of @calls steps @what, a stretch with interrupts off on the CPU
 * of @k, its probes writing the scratch state @s: clock units, U64_MAX
 * for a run with a missed kprobe hit (it does not count). A span run
 * better than @best leaves its spans in @spans.
 */
static __always_inline u64 nc_cal_once(struct ips_calib_cpu *k,
				       struct nc_cpu *s, unsigned int what,
				       unsigned int calls, u64 best,
				       struct nc_cal_spans *spans)
{
	unsigned long missed = nc_cal_misses();
	struct nc_cpu *cur;
	unsigned int i;
	u64 t0, t;

	if (!ips_calib_off(k)) {
		ips_calib_on(k);
		return U64_MAX;
	}
	/* No probe of this CPU runs meanwhile but the calibration's. */
	cur = this_cpu_read(nc_this_cpu);
	this_cpu_write(nc_this_cpu, s);
	/* The kick's state and counts; the costs stay. */
	memset(s, 0, offsetof(struct nc_cpu, kind_hits));
	s->delay_raw_ns = 0;
	s->delay_acc = 0;
	s->delay_hits = 0;
	t0 = ips_clock_read();
	for (i = 0; i < calls; i++)
		nc_cal_step(what);
	t = ips_clock_read() - t0;
	this_cpu_write(nc_this_cpu, cur);
	ips_calib_on(k);
	if (nc_cal_misses() != missed)
		return U64_MAX;
	if (t < best && spans) {
		spans->raw_ns = s->delay_raw_ns;
		spans->acc = s->delay_acc;
		spans->hits = s->delay_hits;
	}
	return t;
}

/* Variant @i's run, its steps' switch folded for each (ips_calib_best()). */
static u64 nc_cal_run(struct ips_calib_cpu *k, void *data, unsigned int i,
		      u64 best)
{
	const struct nc_cal_vars *vs = data;
	const struct nc_cal_var *v = &vs->v[i];
	struct nc_cpu *s = vs->scratch;

	switch (v->what) {
	case CAL_PLAIN:
		return nc_cal_once(k, s, CAL_PLAIN, v->calls, best, NULL);
	case CAL_EMPTY:
		return nc_cal_once(k, s, CAL_EMPTY, v->calls, best, NULL);
	case CAL_KRETPROBE:
		return nc_cal_once(k, s, CAL_KRETPROBE, v->calls, best, NULL);
	case CAL_KPROBE:
		return nc_cal_once(k, s, CAL_KPROBE, v->calls, best, NULL);
	case CAL_TRACEPOINT:
		return nc_cal_once(k, s, CAL_TRACEPOINT, v->calls, best, NULL);
	case CAL_HOOK:
		return nc_cal_once(k, s, CAL_HOOK, v->calls, best, NULL);
	default:
		return nc_cal_once(k, s, CAL_SPAN, v->calls, best, vs->spans);
	}
}

/*
 * The best of CALIB_RUNS runs of each of @n variants @v, interleaved, ps
 * a step, into @ps (0: no run counted); the span's best run's spans into
 * @spans. False where the CPU went offline.
 */
static bool nc_cal_best(struct ips_calib_cpu *k, struct nc_cpu *s,
			const struct nc_cal_var *v, unsigned int n,
			struct nc_cal_spans *spans, u64 *ps)
{
	struct nc_cal_vars vs = { .scratch = s, .v = v, .spans = spans };
	unsigned int i;

	if (!ips_calib_best(k, nc_cal_run, &vs, CALIB_RUNS, n, ps))
		return false;
	for (i = 0; i < n; i++)
		ps[i] = ips_calib_ps(ps[i], v[i].calls);
	return true;
}

static u32 nc_cal_ps(u64 probed, u64 plain)
{
	return probed > plain ? min_t(u64, probed - plain, U32_MAX) : 0;
}

static const struct ips_calib_drift *nc_drift_of(int cpu)
{
	return &nc_state[cpu]->drift;
}

static bool nc_cpu_again(int cpu)
{
	return ips_calib_drift_past(nc_drift_of(cpu), IPS_CALIB_AGAIN_PCT10);
}

/* A pass of the calibration: its scratch state, and which it is. */
struct nc_cal_pass {
	struct nc_cpu *scratch;
	bool end;		/* the one after the run */
};

static void nc_calib_cpu(struct ips_calib_cpu *k)
{
	const struct nc_cal_pass *a = k->arg;
	struct nc_cpu *s = a->scratch, *c = nc_state[k->cpu];
	struct nc_calib *cal = &s->cal;
	struct nc_cal_spans spans = {};
	unsigned int calls;
	/*
	 * Each kind's hit against the plain (or, a tracepoint's, the
	 * empty) step; then the span, its hits weighed with those costs,
	 * beside the drift's reference: plain calls, as many as fill a run
	 * themselves (the span's count of them is too short to time well).
	 */
	enum { SPAN, PLAIN_REF, PLAIN, EMPTY, KRETPROBE, KPROBE, TRACEPOINT,
	       HOOK, NR_VAR };
	struct nc_cal_var v[NR_VAR] = {
		[SPAN] = { CAL_SPAN, 8 }, [PLAIN_REF] = { CAL_PLAIN, 64 },
		[PLAIN] = { CAL_PLAIN }, [EMPTY] = { CAL_EMPTY },
		[KRETPROBE] = { CAL_KRETPROBE }, [KPROBE] = { CAL_KPROBE },
		[TRACEPOINT] = { CAL_TRACEPOINT }, [HOOK] = { CAL_HOOK },
	};
	u64 t[NR_VAR];
	unsigned int i;

	memset(cal, 0, sizeof(*cal));
	/*
	 * Sized first: the span steps, the heaviest, and the reference, by
	 * more calls (a plain call is short beside the clock's two reads).
	 */
	if (!nc_cal_best(k, s, v, PLAIN_REF + 1, NULL, t))
		return;
	/* A run's calls: as many span steps as the aim holds. */
	calls = ips_calib_calls(t[SPAN], CALIB_CALLS);
	for (i = 0; i < NR_VAR; i++)
		v[i].calls = calls;
	v[PLAIN_REF].calls = ips_calib_calls(t[PLAIN_REF], CALIB_PLAIN_CALLS);
	if (!nc_cal_best(k, s, v + PLAIN, NR_VAR - PLAIN, NULL, t + PLAIN))
		return;
	cal->hit_ps[K_KRETPROBE] = nc_cal_ps(t[KRETPROBE], t[PLAIN]);
	cal->hit_ps[K_KPROBE] = nc_cal_ps(t[KPROBE], t[PLAIN]);
	cal->hit_ps[K_TRACEPOINT] = nc_cal_ps(t[TRACEPOINT], t[EMPTY]);
	cal->hit_ps[K_HOOK] = nc_cal_ps(t[HOOK], t[PLAIN]);
	if (!nc_cal_best(k, s, v, PLAIN_REF + 1, &spans, t))
		return;
	cal->span_ps = min_t(u64, div_u64(spans.raw_ns * 1000, calls), U32_MAX);
	cal->span_acc_ps = min_t(u64, div_u64(spans.acc, calls), U32_MAX);
	cal->span_hits = div_u64(spans.hits, calls);
	cal->plain_ps = min_t(u64, U32_MAX, t[PLAIN_REF]);
	/* A second try kept only if better (common/calib.c). */
	if (!ips_calib_drift_keep(&c->drift, a->end, k->again, cal->span_ps,
				  cal->plain_ps, calls))
		return;
	if (a->end)
		c->cal_end = *cal;
	else
		c->cal = *cal;
}

/* The passes before and after the run. */
static struct ips_calib_pass nc_cal_pass[2];

/*
 * Calibrate every watched CPU, one after the other: before the run, or
 * after it (@end), within CALIB_END_BUDGET_NS. A CPU gone offline
 * meanwhile keeps costs of 0 (nothing removed), and is not counted as
 * calibrated. 0, or -ENOMEM.
 */
static int nc_calibrate(bool end)
{
	struct nc_cal_pass a = { .end = end };

	a.scratch = kvzalloc(sizeof(*a.scratch), GFP_KERNEL);
	if (!a.scratch)
		return -ENOMEM;
	ips_hist_init(&a.scratch->delay);
	if (end)
		ips_calib_end(nc_mask, nc_calib_cpu, &a, nc_cpu_again,
			      CALIB_END_BUDGET_NS, &nc_cal_pass[1]);
	else
		ips_calib_start(nc_mask, nc_calib_cpu, &a, &nc_cal_pass[0]);
	kvfree(a.scratch);
	return 0;
}

/*
 * After the run (nc_finish()), the CPUs whose delay span's cost, as a
 * share of a plain call, moved more than the limit, or which have no
 * calibration after it: their delays are unproven. The largest drift,
 * tenths of %.
 */
static unsigned int nc_drift_over;
static u64 nc_drift_max;
