// SPDX-License-Identifier: GPL-2.0
/*
 * wakeup: the result.
 * Part of wakeup_main.c's unit: included there, in its order.
 */

/* ---- the report ---------------------------------------------------------- */

static void wk_free_senders(void)
{
	unsigned int i;

	for (i = 0; i < nr_senders; i++) {
		kvfree(senders[i]->hist);
		kfree(senders[i]);
	}
	kfree(senders);
	senders = NULL;
	nr_senders = 0;
}

static bool wk_skew_over(const struct wk_sender *s);

struct wk_totals {
	u64 sent, woken, unclassified, backwards, errors, capped, hits, runtime;
	u64 skew_over;		/* pairs (rpc=0, timing=1) */
	u64 skew_max;		/* units; U64_MAX: one unbounded */
	u64 count[NR_WK_SCOPES];
	u64 intr[NR_WK_SCOPES];
};

static void wk_totals(struct wk_totals *t)
{
	u64 start = U64_MAX, end = 0;
	unsigned int i, p;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < nr_senders; i++) {
		const struct wk_sender *s = senders[i];

		t->sent += s->sent;
		t->woken += s->woken;
		t->unclassified += s->unclassified;
		t->backwards += s->backwards;
		t->errors += !!s->error;
		t->capped += s->capped;
		t->hits += s->hits;
		if (wk_timing && !wk_rpc) {
			t->skew_over += wk_skew_over(s);
			t->skew_max = max(t->skew_max,
					  ips_clock_skew_bound(&s->skew));
		}
		for (p = 0; p < NR_WK_SCOPES; p++) {
			t->count[p] += s->count[p];
			t->intr[p] += s->intr[p];
		}
		start = min(start, s->start_ns);
		end = max(end, s->end_ns);
	}
	t->runtime = end > start ? end - start : 0;
}

static unsigned int wk_last_scope(void)
{
	return wk_rpc ? WK_CALL_OTHER : WK_LAST_PATH;
}

/* The keys of one scope: its count, share and latency percentiles. */
static void wk_emit_scope(struct seq_buf *sb, const char *pfx,
			  const char *name, u64 n, u64 all,
			  const struct ips_hist *h, u32 mul, u32 div)
{
	char key[64];

	seq_buf_printf(sb, "%s%s.wakeups=%llu\n", pfx, name, n);
	snprintf(key, sizeof(key), "%s.share_pct", name);
	ips_result_pct(sb, pfx, key, n, all);
	if (!h)
		return;
	snprintf(key, sizeof(key), "%s.lat", name);
	ips_hist_emit_summary(sb, pfx, key, h, true, mul, div);
}

/*
 * Scope @p split by the idle state its wake-ups found the wakee's CPU in
 * (rpc=1's calls: the target's), the states that hold any: as a scope,
 * their share of @p's. @h is scratch.
 */
static void wk_emit_states(struct seq_buf *sb, enum wk_scope p, u64 n,
			   struct ips_hist *h, u32 mul, u32 div)
{
	unsigned int i, slot;
	char name[64];

	for (slot = 0; slot < wk_slots; slot++) {
		ips_hist_init(h);
		for (i = 0; i < nr_senders; i++)
			ips_hist_merge(h, wk_hist(senders[i], p, slot));
		if (!h->n)
			continue;
		snprintf(name, sizeof(name), "%s.idle_%s", wk_scope_names[p],
			 ips_idle_label(&wk_idle, slot));
		wk_emit_scope(sb, "", name, h->n, n, h, mul, div);
	}
}

/* Clock units to ns, signed. */
static s64 wk_signed_ns(s64 units, u32 mul, u32 div)
{
	u64 ns = mul_u64_u32_div(units < 0 ? -(u64)units : units, mul, div);

	return units < 0 ? -(s64)ns : ns;
}

/*
 * rpc=0: a pair whose clocks' skew is unbounded, or bounded above
 * SKEW_LIMIT_PCT of its fastest wake-up: its latencies are off by up to
 * the skew, unproven.
 */
static bool wk_skew_over(const struct wk_sender *s)
{
	u64 bound = ips_clock_skew_bound(&s->skew);

	if (bound == U64_MAX)
		return true;
	if (!s->hist || !s->hist[WK_TOTAL].n)
		return false;
	return bound * 100 > (u64)SKEW_LIMIT_PCT * s->hist[WK_TOTAL].min;
}

static void wk_emit_skew(struct seq_buf *sb, const char *pfx,
			 const struct wk_sender *s, u32 mul, u32 div)
{
	u64 bound = ips_clock_skew_bound(&s->skew);

	seq_buf_printf(sb, "%sclock_skew_rounds=%u\n", pfx, s->skew.rounds);
	seq_buf_printf(sb, "%sclock_skew_bounded=%d\n", pfx, bound != U64_MAX);
	if (bound != U64_MAX) {
		seq_buf_printf(sb, "%sclock_offset_lo_ns=%lld\n", pfx,
			       wk_signed_ns(s->skew.lo, mul, div));
		seq_buf_printf(sb, "%sclock_offset_hi_ns=%lld\n", pfx,
			       wk_signed_ns(s->skew.hi, mul, div));
		seq_buf_printf(sb, "%sclock_skew_ns=%llu\n", pfx,
			       mul_u64_u32_div(bound, mul, div));
		if (s->hist && s->hist[WK_TOTAL].n)
			ips_result_pct(sb, pfx, "clock_skew_pct_of_lat_min",
				       bound, s->hist[WK_TOTAL].min);
	}
	seq_buf_printf(sb, "%sclock_skew_over=%d\n", pfx, wk_skew_over(s));
}

static void wk_emit_sender(struct seq_buf *sb, unsigned int i, u32 mul,
			   u32 div)
{
	const struct wk_sender *s = senders[i];
	u64 elapsed = s->end_ns - s->start_ns;
	unsigned int p;
	char pfx[24];

	snprintf(pfx, sizeof(pfx), "sender%u.", i);
	seq_buf_printf(sb, "%scpu=%d\n", pfx, s->cpu);
	seq_buf_printf(sb, "%starget=%d\n", pfx, s->target);
	seq_buf_printf(sb, "%serrors=%d\n", pfx, !!s->error);
	if (s->error)
		seq_buf_printf(sb, "%serror=%d\n", pfx, s->error);
	if (s->capped)
		seq_buf_printf(sb, "%scapped=1\n", pfx);
	seq_buf_printf(sb, "%ssent=%llu\n", pfx, s->sent);
	seq_buf_printf(sb, "%swoken=%llu\n", pfx, s->woken);
	seq_buf_printf(sb, "%selapsed_ns=%llu\n", pfx, elapsed);
	ips_result_ratio(sb, pfx, "ns_per_wakeup", elapsed, s->sent);
	if (!wk_timing)
		return;
	seq_buf_printf(sb, "%sunclassified=%llu\n", pfx, s->unclassified);
	seq_buf_printf(sb, "%sclock_backwards=%llu\n", pfx, s->backwards);
	seq_buf_printf(sb, "%sspans_interrupted=%llu\n", pfx,
		       s->intr[WK_TOTAL]);
	if (!wk_rpc)
		wk_emit_skew(sb, pfx, s, mul, div);
	for (p = WK_FIRST_PATH; p <= wk_last_scope(); p++)
		seq_buf_printf(sb, "%s%s.wakeups=%llu\n", pfx, wk_scope_names[p],
			       s->count[p]);
	ips_hist_emit_scaled(sb, pfx, "lat", &s->hist[WK_TOTAL], true, mul,
			     div);
}

static const char *wk_proof(unsigned int tp, const struct wk_totals *t)
{
	u64 fired = 0, sign = 0;
	unsigned int i;

	for (i = 0; i < nr_senders; i++) {
		const struct wk_sender *s = senders[i];
		const struct wk_cpu *a = per_cpu_ptr(&wk_cpu, s->cpu);
		const struct wk_cpu *b = per_cpu_ptr(&wk_cpu, s->target);

		sign += s->sign[tp];
		switch (tp) {
		case WK_TP_WAKEUP:
			fired += a->n.act[0] + a->n.act[1] + b->n.act[0] +
				 b->n.act[1];
			break;
		case WK_TP_NOIPI:
			fired += a->n.noipi + b->n.noipi;
			break;
		case WK_TP_CFS:
			fired += a->n.cfs_ipi + b->n.cfs_ipi;
			break;
		case WK_TP_RES:
			fired += a->n.res_ipi + b->n.res_ipi;
			break;
		case WK_TP_CF:
			fired += a->n.cf_ipi + b->n.cf_ipi;
			break;
		case WK_TP_IDLE:
			fired += a->n.idle_in + b->n.idle_in;
			break;
		}
	}
	/*
	 * sched_wakeup must fire once a wake-up; an IPI's probe is
	 * unproven when it missed an IPI that the kernel counted during a
	 * wake-up put in busy (wk_sign()), even if it fired elsewhere.
	 */
	if (tp == WK_TP_WAKEUP && !fired && t->woken)
		return "unproven";
	if (sign)
		return "unproven";
	return fired ? "proven" : "untested";
}

static const char *wk_status(const struct wk_totals *t, bool interrupted,
			     bool unproven)
{
	if (interrupted)
		return "interrupted";
	if (t->errors)
		return "errors";
	if (t->woken != t->sent || (wk_timing && t->unclassified))
		return "invalid";
	if (unproven || (wk_timing && (t->backwards || t->skew_over)))
		return "unproven";
	if (t->capped)
		return "capped";
	return READ_ONCE(run.stop) && wk_numwake && t->sent < wk_numwake * nr_senders ?
	       "stopped" : "complete";
}

static void wakeup_emit(struct seq_buf *sb, bool interrupted)
{
	/* static: merging cannot fail after the run; one report a load */
	static struct ips_hist merged;
	struct ips_hist *h = &merged;
	struct wk_totals t;
	unsigned int i, p, call = 0, res = 0;
	bool unproven = false;
	u32 mul, div;

	ips_clock_scale(&mul, &div);
	wk_totals(&t);
	ips_result_header(sb, WAKEUP_FORMAT, wk_numwake ? "count" :
			  wk_duration ? "timed" : "until_stopped");
	seq_buf_printf(sb, "numwake=%lu\n", wk_numwake);
	seq_buf_printf(sb, "duration_s=%u\n", wk_duration);
	seq_buf_printf(sb, "rpc=%d\n", wk_rpc);
	seq_buf_printf(sb, "timing=%d\n", wk_timing);
	seq_buf_printf(sb, "delay_us=%u\n", wk_delay);
	if (wk_test_interrupt)
		seq_buf_printf(sb, "test_interrupt=%u\n", wk_test_interrupt);
	seq_buf_printf(sb, "clock=%s\n", ips_clock_ordered_name());
	if (wk_timing) {
		/* rpc=1 reads both ends on the sender's CPU: no skew. */
		seq_buf_printf(sb, "clock_reads=%s\n",
			       wk_rpc ? "one_cpu" : "two_cpus");
		if (!wk_rpc)
			seq_buf_printf(sb, "clock_skew_limit_pct=%u\n",
				       SKEW_LIMIT_PCT);
	}
	seq_buf_printf(sb, "online_cpus=%u\n", num_online_cpus());
	seq_buf_printf(sb, "senders=%u\n", nr_senders);
	if (wk_timing)
		seq_buf_printf(sb, "idle_states=%d\n", wk_idle_states.val);
	if (wk_timing && wk_idle_states.val)
		ips_idle_emit_driver(sb, &wk_idle);
	if (wk_timing) {
		wk_irq_counts(&call, &res);
		call -= run.irq_call[0];
		res -= run.irq_res[0];
		for (i = 0; i < wk_nr_tps(); i++) {
			const char *pr = wk_proof(i, &t);

			unproven |= !strcmp(pr, "unproven");
			seq_buf_printf(sb, "proof.%s=%s\n", wk_tps[i].name, pr);
		}
		seq_buf_printf(sb, "irq_call_function=%u\n", call);
		seq_buf_printf(sb, "irq_reschedule=%u\n", res);
		ips_result_ratio(sb, "", "probe_hit_ns", run.hit_ps, 1000);
	}
	for (i = 0; i < nr_senders; i++)
		wk_emit_sender(sb, i, mul, div);
	seq_buf_printf(sb, "status=%s\n", wk_status(&t, interrupted, unproven));
	seq_buf_printf(sb, "runtime_ns=%llu\n", t.runtime);
	seq_buf_printf(sb, "total.errors=%llu\n", t.errors);
	seq_buf_printf(sb, "total.sent=%llu\n", t.sent);
	seq_buf_printf(sb, "total.woken=%llu\n", t.woken);
	seq_buf_printf(sb, "total.wakeups_per_sec=%llu\n",
		       ips_result_rate(t.sent, t.runtime));
	if (!wk_timing) {
		seq_buf_printf(sb, "total.wakeups=%llu\n", t.woken);
		return;
	}
	seq_buf_printf(sb, "total.unclassified=%llu\n", t.unclassified);
	seq_buf_printf(sb, "total.clock_backwards=%llu\n", t.backwards);
	if (!wk_rpc) {
		seq_buf_printf(sb, "total.clock_skew_over=%llu\n", t.skew_over);
		if (t.skew_max != U64_MAX)
			seq_buf_printf(sb, "total.clock_skew_max_ns=%llu\n",
				       mul_u64_u32_div(t.skew_max, mul, div));
	}
	ips_result_ratio(sb, "total.", "probe_hits_per_wakeup", t.hits, t.woken);
	ips_result_ratio(sb, "total.", "probe_cost_ns",
			 t.woken ? div64_u64(t.hits * run.hit_ps, t.woken) : 0,
			 1000);
	seq_buf_printf(sb, "total.lat_includes_probes=1\n");
	for (p = 0; p <= wk_last_scope(); p++) {
		ips_hist_init(h);
		for (i = 0; i < nr_senders; i++)
			ips_hist_merge(h, &senders[i]->hist[p]);
		wk_emit_scope(sb, "", wk_scope_names[p], t.count[p],
			      p >= WK_CALL_POLL ? t.sent : t.woken, h, mul, div);
		seq_buf_printf(sb, "%s.spans_interrupted=%llu\n",
			       wk_scope_names[p], t.intr[p]);
		wk_emit_states(sb, p, t.count[p], h, mul, div);
	}
}

static size_t wk_result_size(void)
{
	size_t size = 16384;
	unsigned int i;

	/* The scopes by idle state: a few lines each, its percentiles. */
	if (wk_timing)
		size += NR_WK_SCOPES * wk_slots * 1024;
	for (i = 0; i < nr_senders; i++)
		size += 2048 + (senders[i]->hist ?
				64 * ips_hist_used(&senders[i]->hist[WK_TOTAL]) : 0);
	return size;
}

/*
 * The session's finish, under its lock, wherever the run ends (its count,
 * duration=, a stop, rmmod, a signal): stop the senders, wait for them,
 * remove the probes, report, then end the threads.
 */
static void wakeup_finish(bool interrupted)
{
	unsigned int i;

	WRITE_ONCE(run.stop, true);
	wait_for_completion(&run.done);
	/* No sender raises test_interrupt's work now: none may run after us. */
	if (static_branch_unlikely(&wk_test_irq))
		ips_test_irq_sync(&wk_test_work);
	for (i = 0; i < nr_senders; i++) {
		wk_cpu_clear(senders[i]->cpu);
		wk_cpu_clear(senders[i]->target);
	}
	wk_probes_off();
	ips_result_report(&wk_session.result, KBUILD_MODNAME,
			  wk_result_size(), wakeup_emit, interrupted);
	wk_stop_threads();
}
