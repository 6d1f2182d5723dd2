// SPDX-License-Identifier: GPL-2.0
/*
 * placement: the result.
 * Part of placement_main.c's unit: included there, in its order.
 */

/* ---- the report ------------------------------------------------------------ */

static void pl_free(void)
{
	kvfree(run.lat);
	kvfree(run.wait);
	kfree(run.placed);
	kfree(run.llc);
	kfree(run.busy_tasks);
	kfree(run.wakees);
	free_cpumask_var(run.cpus);
	free_cpumask_var(run.busy);
	free_cpumask_var(run.on);
	run.lat = NULL;
	run.wait = NULL;
	run.placed = NULL;
	run.llc = NULL;
	run.busy_tasks = NULL;
	run.wakees = NULL;
}

static const char *pl_status(bool interrupted)
{
	if (interrupted)
		return "interrupted";
	if (run.error)
		return "errors";
	if (run.woken != run.sent || run.unclassified || run.mismatch)
		return "invalid";
	if (run.backwards)
		return "unproven";
	if (run.capped)
		return "capped";
	return READ_ONCE(run.stop) && pl_numwake && run.sent < pl_numwake ?
	       "stopped" : "complete";
}

static void pl_emit_count(struct seq_buf *sb, const char *scope, u64 n, u64 all)
{
	char key[64];

	seq_buf_printf(sb, "%s.wakeups=%llu\n", scope, n);
	snprintf(key, sizeof(key), "%s.share_pct", scope);
	ips_result_pct(sb, "", key, n, all);
}

/*
 * A scope's count, share and latencies: with every percentile (p50 to
 * p99.9) for the total and the target's state, p50, p90, p99 and p99.9
 * for the rest, which keeps a run's log short.
 */
static void pl_emit_scope(struct seq_buf *sb, enum pl_scope s, const char *name,
			  u32 mul, u32 div)
{
	char pfx[40];

	pl_emit_count(sb, name, run.count[s], run.count[PL_TOTAL]);
	snprintf(pfx, sizeof(pfx), "%s.", name);
	ips_hist_emit_summary(sb, pfx, "lat", &run.lat[s], s < PL_REL, mul,
			      div);
	ips_hist_emit_summary(sb, pfx, "wait", &run.wait[s], false, mul, div);
}

static unsigned int pl_distinct(bool node)
{
	unsigned int n = 0;
	int cpu, c;

	for_each_cpu(cpu, run.on) {
		for_each_cpu(c, run.on) {
			if (c == cpu) {
				n++;
				break;
			}
			if (node ? cpu_to_node(c) == cpu_to_node(cpu) :
				   run.llc[c] == run.llc[cpu])
				break;
		}
	}
	return n;
}

/* The wakees that found themselves on @cpu when they started. */
static unsigned int pl_started(int cpu)
{
	unsigned int i, n = 0;

	for (i = 0; i < pl_wakees; i++)
		n += run.wakees[i].started == cpu;
	return n;
}

static void placement_emit(struct seq_buf *sb, bool interrupted)
{
	u64 timed = run.count[PL_TOTAL];
	char name[40];
	unsigned int i;
	u64 hits = 0;
	u32 mul, div;
	int cpu;

	ips_clock_scale(&mul, &div);
	for_each_cpu(cpu, run.on)
		hits += per_cpu(pl_cpu.hits, cpu);
	ips_result_header(sb, PLACEMENT_FORMAT, pl_numwake ? "count" :
			  pl_duration ? "timed" : "until_stopped");
	seq_buf_printf(sb, "numwake=%lu\n", pl_numwake);
	seq_buf_printf(sb, "duration_s=%u\n", pl_duration);
	seq_buf_printf(sb, "waker=%d\n", pl_waker);
	seq_buf_printf(sb, "cpulist=%*pbl\n", cpumask_pr_args(run.cpus));
	seq_buf_printf(sb, "wakees=%u\n", pl_wakees);
	seq_buf_printf(sb, "busy=%*pbl\n", cpumask_pr_args(run.busy));
	seq_buf_printf(sb, "busy_run_us=%u\n", pl_busy_run_us);
	seq_buf_printf(sb, "busy_sleep_us=%u\n", pl_busy_sleep_us);
	seq_buf_printf(sb, "clock=%s\n", ips_clock_ordered_name());
	/* A wake-up's two reads are on two CPUs whose skew is not bounded. */
	seq_buf_printf(sb, "clock_reads=two_cpus\n");
	seq_buf_printf(sb, "clock_skew=not_bounded\n");
	seq_buf_printf(sb, "online_cpus=%u\n", num_online_cpus());
	seq_buf_printf(sb, "llcs=%u\n", pl_distinct(false));
	seq_buf_printf(sb, "nodes=%u\n", pl_distinct(true));
	ips_result_ratio(sb, "", "probe_hit_ns", run.hit_ps, 1000);
	for_each_cpu(cpu, run.on) {
		seq_buf_printf(sb, "cpu%d.llc=%u\n", cpu, run.llc[cpu]);
		seq_buf_printf(sb, "cpu%d.node=%d\n", cpu, cpu_to_node(cpu));
		seq_buf_printf(sb, "cpu%d.placed=%llu\n", cpu, run.placed[cpu]);
		seq_buf_printf(sb, "cpu%d.started=%u\n", cpu, pl_started(cpu));
	}
	seq_buf_printf(sb, "status=%s\n", pl_status(interrupted));
	seq_buf_printf(sb, "runtime_ns=%llu\n", run.end_ns - run.start_ns);
	seq_buf_printf(sb, "total.errors=%d\n", !!run.error);
	if (run.error)
		seq_buf_printf(sb, "total.error=%d\n", run.error);
	seq_buf_printf(sb, "total.sent=%llu\n", run.sent);
	seq_buf_printf(sb, "total.woken=%llu\n", run.woken);
	seq_buf_printf(sb, "total.wakeups_per_sec=%llu\n",
		       ips_result_rate(run.sent, run.end_ns - run.start_ns));
	seq_buf_printf(sb, "total.unclassified=%llu\n", run.unclassified);
	seq_buf_printf(sb, "total.outside_cpulist=%llu\n", run.outside);
	seq_buf_printf(sb, "total.witness_mismatch=%llu\n", run.mismatch);
	seq_buf_printf(sb, "total.moved_before_ack=%llu\n", run.moved_before_ack);
	seq_buf_printf(sb, "total.clock_backwards=%llu\n", run.backwards);
	seq_buf_printf(sb, "total.dequeue_waits=%llu\n", run.dequeue_waits);
	seq_buf_printf(sb, "total.moved=%llu\n", run.moved);
	seq_buf_printf(sb, "total.behind=%llu\n", run.behind);
	seq_buf_printf(sb, "total.busy_sleeps=%ld\n",
		       atomic_long_read(&run.busy_sleeps));
	ips_result_ratio(sb, "total.", "probe_hits_per_wakeup", hits, run.sent);
	/* The probes' work on a wake-up's path: in every latency. */
	ips_result_ratio(sb, "total.", "probe_cost_ns", run.path_ps, 1000);
	seq_buf_printf(sb, "total.lat_includes_probes=1\n");
	for (i = 0; i < NR_PL_NOTIFY; i++) {
		snprintf(name, sizeof(name), "notify.%s", pl_notify_names[i]);
		pl_emit_count(sb, name, run.notify[i], timed);
	}
	for (i = 0; i < NR_PL_RELS; i++) {
		snprintf(name, sizeof(name), "prev.%s", pl_rel_names[i]);
		pl_emit_count(sb, name, run.prev[i], timed);
	}
	pl_emit_scope(sb, PL_TOTAL, "total", mul, div);
	pl_emit_scope(sb, PL_IDLE, "target.idle", mul, div);
	pl_emit_scope(sb, PL_BUSY, "target.busy", mul, div);
	for (i = 0; i < NR_PL_RELS; i++) {
		snprintf(name, sizeof(name), "waker.%s", pl_rel_names[i]);
		pl_emit_scope(sb, PL_REL + i, name, mul, div);
	}
	/* The buckets as a sender's, detail kept out of the log. */
	seq_buf_printf(sb, "sender0.cpu=%d\n", pl_waker);
	ips_hist_emit_scaled(sb, "sender0.", "lat", &run.lat[PL_TOTAL], true,
			     mul, div);
}

static size_t pl_result_size(void)
{
	return 65536 + 96 * cpumask_weight(run.on) +
	       64 * ips_hist_used(&run.lat[PL_TOTAL]);
}

/*
 * The session's finish, under its lock, wherever the run ends (its count,
 * duration=, a stop, rmmod, a signal): stop the waker, wait for it, stop
 * counting, remove the probes, report, then end the threads.
 */
static void placement_finish(bool interrupted)
{
	int cpu;

	WRITE_ONCE(run.stop, true);
	wait_for_completion(&run.done);
	for_each_cpu(cpu, run.on)
		WRITE_ONCE(per_cpu_ptr(&pl_cpu, cpu)->on, false);
	pl_probes_off();
	ips_result_report(&pl_session.result, KBUILD_MODNAME, pl_result_size(),
			  placement_emit, interrupted);
	pl_stop_threads();
}
