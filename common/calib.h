/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A calibration run the way the instrument's hooks run in a re-entry: on
 * one CPU at a time, from a kworker bound to it (process context, the
 * other CPUs left to their work), in stretches with interrupts off aimed
 * at IPS_CALIB_AIM_NS each, the longest measured and reported against
 * IPS_CALIB_STRETCH_NS. So no PREEMPT_RT machine sees a calibration hold
 * interrupts off for milliseconds, nor a server of 512 CPUs see them all
 * held at once. A CPU whose kworker does not run (a real-time task holds
 * it) is given up after IPS_CALIB_WAIT_NS, not waited on.
 *
 * A module calls ips_calib_start() before its run (every CPU, then every
 * CPU again after IPS_CALIB_AGAIN_MS, the less disturbed kept: the one
 * whose plain calls ran faster) and ips_calib_end() after it (a CPU past half the limit once
 * more, up to twice, the closest kept: a disturbance that passed, the last of a storm
 * or of a load, is not a drift; one that lasts is in both). It reports
 * how far each CPU's cost moved between the two, in ns
 * (ips_calib_drift_pct10()) and as a share of plain calls timed beside it
 * (ips_calib_rel_drift_pct10()): a large drift of the share makes its
 * corrected times unproven. A CPU that runs all code slower at the end
 * (another clock, a busy sibling) moves the cost in ns and the kernel's
 * times alike; a cost that moved against the code around it (a hook that
 * lost its direct call to a second ftrace user) leaves the times wrong.
 * The module keeps each CPU's two calibrations' cost and plain time in a
 * struct ips_calib_drift (ips_calib_drift_keep()), which says whether a
 * second try is kept, whether a CPU is calibrated again after the run
 * (ips_calib_drift_past()) and which CPUs drifted past the limit
 * (ips_calib_drift_over()). The functions are in calib.c, which each
 * module's common.c builds into it.
 */
#ifndef IPISTORM_CALIB_H
#define IPISTORM_CALIB_H

#include <linux/cpumask.h>
#include <linux/irqflags.h>
#include <linux/seq_buf.h>
#include <linux/smp.h>
#include <linux/types.h>

#include "clock.h"

/*
 * The longest a stretch with interrupts off is meant to last, ns: runs
 * are sized to IPS_CALIB_AIM_NS, and the longest is reported, not
 * enforced (a round slower than IPS_CALIB_AIM_NS / 8, a traced hook,
 * makes longer ones).
 */
#define IPS_CALIB_STRETCH_NS	50000
/* What a run's calls are sized to last (ips_calib_calls()), ns. */
#define IPS_CALIB_AIM_NS	20000
/* The longest a pass waits for a CPU's kworker to run and finish, ns. */
#define IPS_CALIB_WAIT_NS	(100 * NSEC_PER_MSEC)
/* The most the two calibrations of a CPU may differ, in tenths of %. */
#define IPS_CALIB_DRIFT_LIMIT_PCT10	500
/*
 * After the run, a CPU whose drift is above this (tenths of %), half the
 * limit, is calibrated once more this many ms later, up to this many
 * times.
 */
#define IPS_CALIB_AGAIN_PCT10	(IPS_CALIB_DRIFT_LIMIT_PCT10 / 2)
#define IPS_CALIB_AGAIN_MS	10
#define IPS_CALIB_AGAIN_TRIES	2

/* One CPU's calibration, as a pass hands it to the module. */
struct ips_calib_cpu {
	int cpu;
	bool again;		/* a second try: keep the less disturbed, or the closer */
	bool moved;		/* a stretch ran elsewhere: the CPU went offline */
	unsigned long flags;
	u64 t_off;		/* the stretch's start, clock units */
	u64 off_max;		/* the longest stretch, clock units */
	void *arg;
};

/* A pass over a mask: ips_calib_start(), ips_calib_end(). */
struct ips_calib_pass {
	unsigned int cpus;	/* asked for */
	unsigned int done;	/* calibrated (not skipped, not moved) */
	unsigned int again;	/* calibrations of a CPU beyond its first */
	u64 off_max_ns;		/* the longest stretch of any CPU */
	u64 ns;			/* the pass, start to end */
};

/*
 * A CPU's drift: the cost its times lose most (cost) and plain calls
 * timed beside it (plain), in ps, of the calibration kept before the run
 * ([0]) and after it ([1]), and its calls a run (calls[1] 0: none after
 * the run). The module keeps one a measured CPU.
 */
struct ips_calib_drift {
	u32 cost[2];
	u32 plain[2];
	unsigned int calls[2];
};

/*
 * Begin a stretch: interrupts off. False, and nothing to measure, where
 * the kworker no longer runs on its CPU (it went offline); end the
 * stretch either way.
 */
static __always_inline bool ips_calib_off(struct ips_calib_cpu *k)
{
	local_irq_save(k->flags);
	k->t_off = ips_clock_read();
	if (likely(smp_processor_id() == k->cpu))
		return true;
	k->moved = true;
	return false;
}

static __always_inline void ips_calib_on(struct ips_calib_cpu *k)
{
	u64 d = ips_clock_read() - k->t_off;

	local_irq_restore(k->flags);
	if (d > k->off_max)
		k->off_max = d;
}

/*
 * One run of a calibration's variant @i, timed by the module
 * (ips_calib_best()): its length in clock units, or U64_MAX for a run
 * that does not count; @best is the variant's best so far, so that the
 * module keeps what it needs of a better one.
 */
typedef u64 (*ips_calib_run_fn)(struct ips_calib_cpu *k, void *data,
				unsigned int i, u64 best);

/* A run of @calls calls that took @units clock units: ps a call (0: no run). */
static inline u64 ips_calib_ps(u64 units, unsigned int calls)
{
	return units == U64_MAX ? 0 : div_u64(ips_clock_ns(units * 1000), calls);
}

unsigned int ips_calib_calls(u64 call_ps, unsigned int max);
bool ips_calib_best(struct ips_calib_cpu *k, ips_calib_run_fn run, void *data,
		    unsigned int runs, unsigned int n, u64 *best);
void ips_calib_start(const struct cpumask *mask,
		     void (*fn)(struct ips_calib_cpu *k), void *arg,
		     struct ips_calib_pass *p);
void ips_calib_end(const struct cpumask *mask,
		   void (*fn)(struct ips_calib_cpu *k), void *arg,
		   bool (*again)(int cpu), u64 budget_ns,
		   struct ips_calib_pass *p);
void ips_calib_emit(struct seq_buf *sb, const struct ips_calib_pass *p,
		    const struct cpumask *mask,
		    const struct ips_calib_drift *(*of)(int cpu),
		    unsigned int over, u64 drift_max);
u64 ips_calib_drift_pct10(u64 start, u64 end);
u64 ips_calib_rel_drift_pct10(u32 cost, u32 plain, u32 cost_end, u32 plain_end);
u64 ips_calib_drift_rel(const struct ips_calib_drift *d);
bool ips_calib_drift_past(const struct ips_calib_drift *d, u64 limit);
bool ips_calib_drift_keep(struct ips_calib_drift *d, bool end, bool again,
			  u32 cost, u32 plain, unsigned int calls);
unsigned int ips_calib_drift_over(const struct cpumask *mask,
				  const struct ips_calib_drift *(*of)(int cpu),
				  u64 *max_pct10);
void ips_calib_drift_emit(struct seq_buf *sb, const char *pfx,
			  const struct ips_calib_drift *d);

#endif /* IPISTORM_CALIB_H */
