// SPDX-License-Identifier: GPL-2.0
/*
 * A calibration run the way a re-entry runs (calib.h). Built into each
 * module by its common.c, which defines pr_fmt first.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/workqueue.h>

#include "calib.h"
#include "result.h"

/*
 * The calls of a run that last IPS_CALIB_AIM_NS, where a call lasts
 * @call_ps: at least 8 (fewer would time mostly the clock reads), at most
 * @max.
 */
unsigned int ips_calib_calls(u64 call_ps, unsigned int max)
{
	u64 calls = call_ps ? div64_u64((u64)IPS_CALIB_AIM_NS * 1000, call_ps) : max;

	return clamp_t(u64, calls, 8, max);
}

/*
 * The best (shortest) of @runs runs of each of @n variants of a
 * calibration into @best[], clock units (U64_MAX: no run counted). The
 * runs are interleaved, the first of each variant, then the second of
 * each, and so on: a disturbance some runs long (a busy sibling, the host
 * of an emulated machine) then slows every variant's runs alike, and the
 * best of each misses it, where runs in blocks would leave it on the one
 * variant whose block it fell on, and in a difference of two variants.
 * False, and stopped, where the CPU of @k went offline.
 */
bool ips_calib_best(struct ips_calib_cpu *k, ips_calib_run_fn run, void *data,
		    unsigned int runs, unsigned int n, u64 *best)
{
	unsigned int r, i;
	u64 t;

	for (i = 0; i < n; i++)
		best[i] = U64_MAX;
	for (r = 0; r < runs; r++) {
		for (i = 0; i < n; i++) {
			t = run(k, data, i, best[i]);
			if (k->moved)
				return false;
			best[i] = min(best[i], t);
		}
	}
	return true;
}

struct ips_calib_work {
	struct work_struct work;
	struct completion done;
	struct ips_calib_cpu k;
	void (*fn)(struct ips_calib_cpu *k);
};

static void ips_calib_work_fn(struct work_struct *work)
{
	struct ips_calib_work *w = container_of(work, struct ips_calib_work, work);

	w->fn(&w->k);
	complete(&w->done);
}

/*
 * Calibrate @w->k.cpu in a kworker bound to it, waiting @wait_ns at most
 * for it to run there: a CPU a real-time task holds (its kworker never
 * runs) is given up, not waited on, so that no stop hangs on it. The
 * work never runs after this returns: a work item still queued is
 * cancelled, one running is waited for. False where it never ran.
 */
static bool ips_calib_one(struct ips_calib_work *w, u64 wait_ns)
{
	bool ran = true;

	INIT_WORK_ONSTACK(&w->work, ips_calib_work_fn);
	init_completion(&w->done);
	queue_work_on(w->k.cpu, system_wq, &w->work);
	if (!wait_for_completion_timeout(&w->done, nsecs_to_jiffies(wait_ns) + 1) &&
	    cancel_work_sync(&w->work))
		ran = false;
	flush_work(&w->work);
	destroy_work_on_stack(&w->work);
	return ran;
}

/*
 * Run @fn for each online CPU of @mask, one CPU at a time, on that CPU in
 * a kworker bound to it: @fn measures in stretches bounded by
 * ips_calib_off() and ips_calib_on(). The pass gives up a CPU whose
 * kworker has not run within IPS_CALIB_WAIT_NS, and stops taking CPUs
 * once it has run @budget_ns (0: no limit), so that a stop on a machine
 * of many CPUs still returns within a second; @p says how many were
 * calibrated and the longest stretch. A CPU whose kworker ran elsewhere
 * (it went offline) counts as not calibrated.
 */
static void ips_calib_pass(const struct cpumask *mask,
			   void (*fn)(struct ips_calib_cpu *k), void *arg,
			   u64 budget_ns, bool again, struct ips_calib_pass *p)
{
	struct ips_calib_work w = { .fn = fn };
	u64 start = ktime_get_ns(), off_max = 0, wait, spent;
	int cpu;

	memset(p, 0, sizeof(*p));
	for_each_cpu(cpu, mask) {
		p->cpus++;
		spent = ktime_get_ns() - start;
		if ((budget_ns && spent >= budget_ns) || !cpu_online(cpu))
			continue;
		wait = budget_ns ? min_t(u64, budget_ns - spent, IPS_CALIB_WAIT_NS) :
			IPS_CALIB_WAIT_NS;
		memset(&w.k, 0, sizeof(w.k));
		w.k.cpu = cpu;
		w.k.again = again;
		w.k.arg = arg;
		if (!ips_calib_one(&w, wait))
			continue;
		off_max = max(off_max, w.k.off_max);
		p->done += !w.k.moved;
	}
	p->off_max_ns = ips_clock_ns(off_max);
	p->ns = ktime_get_ns() - start;
}

/*
 * The pass before the run: every CPU of @mask, then, IPS_CALIB_AGAIN_MS
 * later, every CPU once more; @fn, told by k->again, keeps the less
 * disturbed of its two.
 */
void ips_calib_start(const struct cpumask *mask,
		     void (*fn)(struct ips_calib_cpu *k), void *arg,
		     struct ips_calib_pass *p)
{
	struct ips_calib_pass q;
	u64 start = ktime_get_ns();

	ips_calib_pass(mask, fn, arg, 0, false, p);
	msleep(IPS_CALIB_AGAIN_MS);
	ips_calib_pass(mask, fn, arg, 0, true, &q);
	p->again = q.done;
	p->off_max_ns = max(p->off_max_ns, q.off_max_ns);
	p->ns = ktime_get_ns() - start;
}

/*
 * The pass after the run: every CPU of @mask, then, IPS_CALIB_AGAIN_MS
 * later, once more on the CPUs that @again names (drifted past
 * IPS_CALIB_AGAIN_PCT10, or without a calibration), up to
 * IPS_CALIB_AGAIN_TRIES times, within what is left of @budget_ns; @fn, told by
 * k->again, keeps the closer of its two. No memory for the mask: no
 * second try.
 */
void ips_calib_end(const struct cpumask *mask,
		   void (*fn)(struct ips_calib_cpu *k), void *arg,
		   bool (*again)(int cpu), u64 budget_ns,
		   struct ips_calib_pass *p)
{
	struct ips_calib_pass q;
	cpumask_var_t more;
	u64 start = ktime_get_ns(), spent;
	unsigned int try;
	int cpu;

	ips_calib_pass(mask, fn, arg, budget_ns, false, p);
	if (!zalloc_cpumask_var(&more, GFP_KERNEL))
		return;
	for (try = 0; try < IPS_CALIB_AGAIN_TRIES; try++) {
		cpumask_clear(more);
		for_each_cpu(cpu, mask)
			if (cpu_online(cpu) && again(cpu))
				cpumask_set_cpu(cpu, more);
		if (cpumask_empty(more) ||
		    ktime_get_ns() - start + IPS_CALIB_AGAIN_MS * NSEC_PER_MSEC >= budget_ns)
			break;
		msleep(IPS_CALIB_AGAIN_MS);
		/* The sleep may have outlasted the budget: no pass of "no limit". */
		spent = ktime_get_ns() - start;
		if (spent >= budget_ns)
			break;
		ips_calib_pass(more, fn, arg, budget_ns - spent, true, &q);
		p->again += q.done;
		p->off_max_ns = max(p->off_max_ns, q.off_max_ns);
		p->ns = ktime_get_ns() - start;
	}
	free_cpumask_var(more);
}

/*
 * How far a cost moved from @start to @end, in tenths of a percent of
 * @start; U64_MAX where @start is 0 and @end is not, or where the tenths
 * cannot be counted (a move of over 2^64 / 1000).
 */
u64 ips_calib_drift_pct10(u64 start, u64 end)
{
	u64 d = end > start ? end - start : start - end;

	if (!d)
		return 0;
	if (!start || d > div64_u64(U64_MAX - start / 2, 1000))
		return U64_MAX;
	return div64_u64(d * 1000 + start / 2, start);
}

/*
 * How far the share @cost / @plain moved to @cost_end / @plain_end, in
 * tenths of a percent of the first; U64_MAX where a plain time is 0.
 */
u64 ips_calib_rel_drift_pct10(u32 cost, u32 plain, u32 cost_end, u32 plain_end)
{
	if (!plain || !plain_end)
		return U64_MAX;
	return ips_calib_drift_pct10((u64)cost * plain_end, (u64)cost_end * plain);
}

/* @d's drift of its cost's share of the plain calls, tenths of %. */
u64 ips_calib_drift_rel(const struct ips_calib_drift *d)
{
	return ips_calib_rel_drift_pct10(d->cost[0], d->plain[0],
					 d->cost[1], d->plain[1]);
}

/* Whether @d drifted past @limit (tenths of %), or has no end to it. */
bool ips_calib_drift_past(const struct ips_calib_drift *d, u64 limit)
{
	return !d->calls[1] || ips_calib_drift_rel(d) > limit;
}

/*
 * A calibration of a CPU, before the run or after it (@end): its @cost,
 * @plain and @calls into @d, and true (the module keeps the rest of it),
 * unless it is a second try (@again) and the one kept is better: before
 * the run, the one whose plain calls ran faster, the less disturbed (a
 * disturbance only adds time; the costs, differences, it can move either
 * way); after it, the one closer to the one before.
 */
bool ips_calib_drift_keep(struct ips_calib_drift *d, bool end, bool again,
			  u32 cost, u32 plain, unsigned int calls)
{
	if (again && d->calls[end] &&
	    (end ? ips_calib_rel_drift_pct10(d->cost[0], d->plain[0], cost,
					     plain) >= ips_calib_drift_rel(d) :
		   plain >= d->plain[0]))
		return false;
	d->cost[end] = cost;
	d->plain[end] = plain;
	d->calls[end] = calls;
	return true;
}

/*
 * The CPUs of @mask whose drift (@of(cpu)) is past the limit, or which
 * have no calibration after the run: their times are unproven. The
 * largest drift of those that have one into @max_pct10.
 */
unsigned int ips_calib_drift_over(const struct cpumask *mask,
				  const struct ips_calib_drift *(*of)(int cpu),
				  u64 *max_pct10)
{
	unsigned int over = 0;
	int cpu;

	*max_pct10 = 0;
	for_each_cpu(cpu, mask) {
		const struct ips_calib_drift *d = of(cpu);

		if (d->calls[1])
			*max_pct10 = max(*max_pct10, ips_calib_drift_rel(d));
		over += ips_calib_drift_past(d, IPS_CALIB_DRIFT_LIMIT_PCT10);
	}
	return over;
}

/*
 * A CPU's drift keys, @pfx first: its cost's, in ns and as a share of
 * the plain calls; none without a calibration after the run (no drift
 * known).
 */
void ips_calib_drift_emit(struct seq_buf *sb, const char *pfx,
			  const struct ips_calib_drift *d)
{
	if (!d->calls[1])
		return;
	ips_result_ratio(sb, pfx, "calib_cost_drift_pct",
			 min_t(u64, ips_calib_drift_pct10(d->cost[0], d->cost[1]),
			       U32_MAX), 10);
	ips_result_ratio(sb, pfx, "calib_drift_pct",
			 min_t(u64, ips_calib_drift_rel(d), U32_MAX), 10);
}

/*
 * The result's keys of the passes before the run (@p[0]) and after it
 * (@p[1]): the CPUs of @mask with a calibration kept (@of(cpu)), by any
 * try, further tries, the longest stretch with interrupts off, what the
 * pass after the run took; the CPUs whose drift is @over the limit, and
 * the largest drift, @drift_max in tenths of %.
 */
void ips_calib_emit(struct seq_buf *sb, const struct ips_calib_pass *p,
		    const struct cpumask *mask,
		    const struct ips_calib_drift *(*of)(int cpu),
		    unsigned int over, u64 drift_max)
{
	unsigned int cpus[2] = {};
	int cpu;

	/* A CPU calibrated by any try: a calibration kept. */
	for_each_cpu(cpu, mask) {
		cpus[0] += !!of(cpu)->calls[0];
		cpus[1] += !!of(cpu)->calls[1];
	}
	seq_buf_printf(sb, "calib_irqs_off_limit_ns=%u\n", IPS_CALIB_STRETCH_NS);
	seq_buf_printf(sb, "calib_cpus=%u\n", cpus[0]);
	seq_buf_printf(sb, "calib_again=%u\n", p[0].again);
	seq_buf_printf(sb, "calib_irqs_off_max_ns=%llu\n", p[0].off_max_ns);
	seq_buf_printf(sb, "calib_end_cpus=%u\n", cpus[1]);
	seq_buf_printf(sb, "calib_end_again=%u\n", p[1].again);
	seq_buf_printf(sb, "calib_end_irqs_off_max_ns=%llu\n", p[1].off_max_ns);
	seq_buf_printf(sb, "calib_end_pass_ns=%llu\n", p[1].ns);
	ips_result_ratio(sb, "", "calib_drift_limit_pct", IPS_CALIB_DRIFT_LIMIT_PCT10, 10);
	ips_result_ratio(sb, "", "calib_drift_max_pct", min_t(u64, drift_max, U32_MAX), 10);
	seq_buf_printf(sb, "calib_drift_over=%u\n", over);
}
