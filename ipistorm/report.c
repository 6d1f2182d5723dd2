// SPDX-License-Identifier: GPL-2.0
/*
 * ipistorm: the result.
 * Part of ipistorm_main.c's unit: included there, in its order.
 */

/* ---- the report -------------------------------------------------------- */

/*
 * The sender's view: two counts and the calls notified neither way, a
 * difference the kernel's rules keep from going negative (one
 * notification at most per call). Should the two exceed the calls, the
 * view is invalid: not printed, a warning and status=invalid instead.
 */
struct witness_view {
	u64 no_ipi, ipi, queued;
	bool valid;
};

static void witness_view(const struct sender *s, struct witness_view *w)
{
	w->valid = s->no_ipi <= s->sent && s->ipi <= s->sent - s->no_ipi;
	w->no_ipi = s->no_ipi;
	w->ipi = s->ipi;
	w->queued = w->valid ? s->sent - s->no_ipi - s->ipi : 0;
}

struct totals {
	u64 sent, errors, expected, elapsed, runtime;
	u64 capped, witness_invalid;
	struct witness_view w;
	struct delivery dlv;
};

static void ipistorm_delivery(const struct sender *s, struct delivery *d)
{
	int cpu;

	memset(d, 0, sizeof(*d));
	for_each_possible_cpu(cpu) {
		const struct delivery *c = per_cpu_ptr(s->dlv, cpu);

		d->poll += c->poll;
		d->irq += c->irq;
		d->other += c->other;
	}
}

static void ipistorm_totals(struct totals *t)
{
	u64 start = U64_MAX, end = 0;
	unsigned int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < nr_senders; i++) {
		const struct sender *s = senders[i];
		struct delivery d;

		ipistorm_delivery(s, &d);
		t->sent += s->sent;
		t->errors += !!s->error;
		t->expected += s->expected;
		t->elapsed += s->end_ns - s->start_ns;
		if (ipistorm_witness) {
			struct witness_view w;

			witness_view(s, &w);
			t->witness_invalid += !w.valid;
			t->w.no_ipi += w.no_ipi;
			t->w.ipi += w.ipi;
			t->w.queued += w.queued;
		}
		t->capped += s->capped;
		t->dlv.poll += d.poll;
		t->dlv.irq += d.irq;
		t->dlv.other += d.other;
		start = min(start, s->start_ns);
		end = max(end, s->end_ns);
	}
	t->runtime = end > start ? end - start : 0;
	t->w.valid = !t->witness_invalid;
}

static u64 ipistorm_delivered(const struct delivery *d)
{
	return d->poll + d->irq + d->other;
}

/*
 * The interrupts and NMIs that end @end (0: the sender's CPU, 1: its
 * target) of sender @s counted during its storm other than the storm's
 * own IPIs, those that ran a callback of the storm (any sender's).
 */
static u64 ipistorm_irqs_other(const struct sender *s, unsigned int end)
{
	int cpu = end ? s->target : s->cpu;
	u32 all = s->irqs[1][end].all - s->irqs[0][end].all;
	u32 call = s->irqs[1][end].call - s->irqs[0][end].call;
	u64 own = 0;
	unsigned int i;

	for (i = 0; i < nr_senders; i++)
		own += per_cpu_ptr(senders[i]->dlv, cpu)->irq;
	return ips_irqs_other(all, call, own);
}

/*
 * Whether a target has two senders: one IPI may then run several of the
 * storm's calls, and an unrelated call-function IPI hide among them (a
 * sender has one call in flight at most, wait=0 too: its CPU's csd).
 */
static bool ipistorm_targets_shared(void)
{
	unsigned int i, j;

	for (i = 0; i < nr_senders; i++)
		for (j = i + 1; j < nr_senders; j++)
			if (senders[i]->target == senders[j]->target)
				return true;
	return false;
}

/* Keys shared by a sender's lines and the totals. */
static void ipistorm_emit_counts(struct seq_buf *sb, const char *pfx,
				 u64 sent, u64 expected,
				 const struct delivery *d,
				 const struct witness_view *w)
{
	seq_buf_printf(sb, "%ssent=%llu\n", pfx, sent);
	seq_buf_printf(sb, "%sexpected_callbacks=%llu\n", pfx, expected);
	seq_buf_printf(sb, "%scallbacks=%llu\n", pfx, ipistorm_delivered(d));
	seq_buf_printf(sb, "%scb_poll=%llu\n", pfx, d->poll);
	seq_buf_printf(sb, "%scb_irq=%llu\n", pfx, d->irq);
	seq_buf_printf(sb, "%scb_other=%llu\n", pfx, d->other);
	ips_result_pct(sb, pfx, "poll_pct", d->poll, ipistorm_delivered(d));
	if (!ipistorm_witness)
		return;
	if (!w->valid) {
		seq_buf_printf(sb, "%switness_invalid=1\n", pfx);
		return;
	}
	seq_buf_printf(sb, "%ssent_no_ipi=%llu\n", pfx, w->no_ipi);
	seq_buf_printf(sb, "%ssent_ipi=%llu\n", pfx, w->ipi);
	seq_buf_printf(sb, "%ssent_queued=%llu\n", pfx, w->queued);
}

/* One summary per delivery path (no buckets), when there are paths. */
static void ipistorm_emit_paths(struct seq_buf *sb, const char *pfx,
				const struct ips_hist *path_lat, u32 mul, u32 div)
{
	enum ipistorm_path p;

	BUILD_BUG_ON(ARRAY_SIZE(path_names) != NR_PATHS);
	if (!path_lat)
		return;
	for (p = 0; p < NR_PATHS; p++)
		ips_hist_emit_scaled(sb, pfx, path_names[p], &path_lat[p], false,
				     mul, div);
}

static void ipistorm_emit_sender(struct seq_buf *sb, unsigned int i,
				 u32 mul, u32 div)
{
	const struct sender *s = senders[i];
	u64 elapsed = s->end_ns - s->start_ns;
	struct witness_view w;
	struct delivery d;
	char pfx[24];

	ipistorm_delivery(s, &d);
	witness_view(s, &w);
	snprintf(pfx, sizeof(pfx), "sender%u.", i);
	seq_buf_printf(sb, "%scpu=%d\n", pfx, s->cpu);
	if (s->target == TARGET_ALL)
		seq_buf_printf(sb, "%starget=all\n", pfx);
	else
		seq_buf_printf(sb, "%starget=%d\n", pfx, s->target);
	seq_buf_printf(sb, "%serrors=%d\n", pfx, !!s->error);
	if (s->error)
		seq_buf_printf(sb, "%serror=%d\n", pfx, s->error);
	if (s->capped)
		seq_buf_printf(sb, "%scapped=1\n", pfx);
	ipistorm_emit_counts(sb, pfx, s->sent, s->expected, &d, &w);
	seq_buf_printf(sb, "%selapsed_ns=%llu\n", pfx, elapsed);
	seq_buf_printf(sb, "%sipis_per_sec=%llu\n", pfx,
		       ips_result_rate(s->sent, elapsed));
	ips_result_ratio(sb, pfx, "ns_per_ipi", elapsed, s->sent);
	seq_buf_printf(sb, "%sirqs_other_cpu=%llu\n", pfx,
		       ipistorm_irqs_other(s, 0));
	if (s->target != TARGET_ALL)
		seq_buf_printf(sb, "%sirqs_other_target=%llu\n", pfx,
			       ipistorm_irqs_other(s, 1));
	if (ipistorm_timing)
		ips_hist_emit_scaled(sb, pfx, "lat", &s->lat, true, mul, div);
	ipistorm_emit_paths(sb, pfx, s->path_lat, mul, div);
}

static const char *ipistorm_status(const struct totals *t, bool interrupted)
{
	if (interrupted)
		return "interrupted";
	if (t->errors)
		return "errors";
	if (t->witness_invalid)
		return "invalid";
	return t->capped ? "capped" : "complete";
}

/* What ran: the run's parameters and its senders' number. */
static void ipistorm_emit_run(struct seq_buf *sb)
{
	ips_result_header(sb, IPISTORM_FORMAT, ipistorm_numipi ? "count" : "timed");
	seq_buf_printf(sb, "numipi=%lu\n", ipistorm_numipi);
	seq_buf_printf(sb, "timeout_s=%u\n", ipistorm_timeout);
	seq_buf_printf(sb, "time_cap_s=%u\n",
		       ipistorm_numipi ? ipistorm_time_cap ?: DEFAULT_TIME_CAP_S : 0);
	seq_buf_printf(sb, "single=%d\n", ipistorm_single.val);
	seq_buf_printf(sb, "wait=%d\n", ipistorm_wait);
	seq_buf_printf(sb, "delay_us=%u\n", ipistorm_delay);
	seq_buf_printf(sb, "timing=%d\n", ipistorm_timing);
	seq_buf_printf(sb, "clock=%s\n", ips_clock_ordered_name());
	seq_buf_printf(sb, "witness=%d\n", ipistorm_witness);
	seq_buf_printf(sb, "idle_states=%d\n", ipistorm_idle_states);
	if (ipistorm_idle_states)
		ips_idle_emit_driver(sb, &idle_names);
	if (!ipistorm_single.val)
		seq_buf_printf(sb, "%s%s%s\n",
			       "note=single=0: smp_call_function_many() notifies two or more targets by real IPIs; ",
			       "one alone (one other online CPU, or the one empty queue of the call) as smp_call_function_single() does, ",
			       "through the polling path when it polls");
	seq_buf_printf(sb, "online_cpus=%u\n", num_online_cpus());
	seq_buf_printf(sb, "senders=%u\n", nr_senders);
}

/*
 * idle_states=1: the callbacks by the idle state their CPU was in, every
 * CPU's summed, for the states that hold any; and with idle_lat the
 * calls' latencies by it, every sender's merged.
 */
static void ipistorm_emit_idle(struct seq_buf *sb, u32 mul, u32 div)
{
	/* static: merging cannot fail after the run; one report a load */
	static struct ips_hist h;
	u64 cb[NR_CB], all = 0;
	unsigned int slot, k, i;
	char name[48];
	int cpu;

	if (!idle_cpus)
		return;
	for_each_possible_cpu(cpu)
		for (k = 0; k < NR_CB; k++)
			for (slot = 0; slot < idle_slots; slot++)
				all += per_cpu_ptr(idle_cpus, cpu)->cb[k][slot];
	for (slot = 0; slot < idle_slots; slot++) {
		memset(cb, 0, sizeof(cb));
		for_each_possible_cpu(cpu)
			for (k = 0; k < NR_CB; k++)
				cb[k] += per_cpu_ptr(idle_cpus, cpu)->cb[k][slot];
		if (!cb[CB_POLL] && !cb[CB_IRQ] && !cb[CB_OTHER])
			continue;
		snprintf(name, sizeof(name), "total.idle_%s.",
			 ips_idle_label(&idle_names, slot));
		seq_buf_printf(sb, "%scallbacks=%llu\n", name,
			       cb[CB_POLL] + cb[CB_IRQ] + cb[CB_OTHER]);
		seq_buf_printf(sb, "%scb_poll=%llu\n", name, cb[CB_POLL]);
		seq_buf_printf(sb, "%scb_irq=%llu\n", name, cb[CB_IRQ]);
		seq_buf_printf(sb, "%scb_other=%llu\n", name, cb[CB_OTHER]);
		ips_result_pct(sb, name, "share_pct",
			       cb[CB_POLL] + cb[CB_IRQ] + cb[CB_OTHER], all);
		ips_hist_init(&h);
		for (i = 0; i < nr_senders; i++)
			if (senders[i]->idle_lat)
				ips_hist_merge(&h, &senders[i]->idle_lat[slot]);
		if (h.n)
			ips_hist_emit_scaled(sb, name, "lat", &h, false, mul, div);
	}
}

/*
 * The pairs' other interrupts, summed over the senders (a CPU in two pairs
 * counts in each), and with timing=1 and single=1, no target shared, the
 * timed calls they may have come into, at most: the same number.
 */
static void ipistorm_emit_irqs(struct seq_buf *sb)
{
	u64 other = 0;
	unsigned int i;

	for (i = 0; i < nr_senders; i++) {
		const struct sender *s = senders[i];

		other += ipistorm_irqs_other(s, 0);
		if (s->target != TARGET_ALL)
			other += ipistorm_irqs_other(s, 1);
	}
	seq_buf_printf(sb, "total.irqs_other=%llu\n", other);
	/*
	 * A call, wait=0 too, lasts until the target took the sender's
	 * previous one (its CPU's csd): both CPUs' interrupts may be in it.
	 */
	if (ipistorm_timing && ipistorm_single.val && !ipistorm_targets_shared())
		seq_buf_printf(sb, "total.spans_interrupted_max=%llu\n", other);
}

/* The status, then every sender's counts summed and latencies merged. */
static void ipistorm_emit_total(struct seq_buf *sb, bool interrupted,
				u32 mul, u32 div)
{
	/* static: merging cannot fail after the run; one report a load */
	static struct ips_hist lat[1 + NR_PATHS];
	struct totals t;
	unsigned int i;
	enum ipistorm_path p;

	ipistorm_totals(&t);
	seq_buf_printf(sb, "status=%s\n", ipistorm_status(&t, interrupted));
	seq_buf_printf(sb, "runtime_ns=%llu\n", t.runtime);
	seq_buf_printf(sb, "total.errors=%llu\n", t.errors);
	ipistorm_emit_counts(sb, "total.", t.sent, t.expected, &t.dlv, &t.w);
	if (t.witness_invalid)
		seq_buf_printf(sb, "%s%llu%s\n", "warning=witness: ",
			       t.witness_invalid,
			       " senders counted more notifications (sent_no_ipi + sent_ipi) than calls: no sender-side counts");
	seq_buf_printf(sb, "total.ipis_per_sec=%llu\n",
		       ips_result_rate(t.sent, t.runtime));
	ips_result_ratio(sb, "total.", "ns_per_ipi", t.elapsed, t.sent);
	ipistorm_emit_irqs(sb);
	ipistorm_emit_idle(sb, mul, div);
	if (!ipistorm_timing)
		return;
	for (p = 0; p <= NR_PATHS; p++)
		ips_hist_init(&lat[p]);
	for (i = 0; i < nr_senders; i++) {
		const struct sender *s = senders[i];

		ips_hist_merge(&lat[0], &s->lat);
		for (p = 0; s->path_lat && p < NR_PATHS; p++)
			ips_hist_merge(&lat[1 + p], &s->path_lat[p]);
	}
	ips_hist_emit_scaled(sb, "total.", "lat", &lat[0], false, mul, div);
	ipistorm_emit_paths(sb, "total.",
			    ipistorm_witness && ipistorm_timing ? &lat[1] : NULL,
			    mul, div);
}

static void ipistorm_emit(struct seq_buf *sb, bool interrupted)
{
	unsigned int i;
	u32 mul, div;

	ips_clock_scale(&mul, &div);
	ipistorm_emit_run(sb);
	for (i = 0; i < nr_senders; i++)
		ipistorm_emit_sender(sb, i, mul, div);
	ipistorm_emit_total(sb, interrupted, mul, div);
}

static size_t __init ipistorm_result_size(void)
{
	size_t size = 4096 + (ipistorm_idle_states ? idle_slots * 1024 : 0);
	unsigned int i;

	for (i = 0; i < nr_senders; i++)
		size += 2048 + 64 * ips_hist_used(&senders[i]->lat) +
			(senders[i]->path_lat ? 1024 : 0);
	return size;
}

/* A warning line when the polling path was hardly exercised. */
static void __init ipistorm_warn(void)
{
	struct totals t;

	ipistorm_totals(&t);
	if (ipistorm_single.val && t.dlv.poll * 2 < ipistorm_delivered(&t.dlv))
		pr_info("only %llu of %llu callbacks ran from a polling idle task: the TIF_POLLING/SM_IDLE path was hardly exercised (idle=poll, or an idle state that polls, makes it)\n",
			t.dlv.poll, ipistorm_delivered(&t.dlv));
}
