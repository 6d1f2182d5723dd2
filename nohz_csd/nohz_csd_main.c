// SPDX-License-Identifier: GPL-2.0
/*
 * nohz_csd - do nohz idle-load-balance kicks reach idle CPUs, and what do
 * they cause?
 *
 * kick_ilb() sends the idle-balance request to an idle CPU as an async
 * call-function, nohz_csd_func(). On a CPU idling with TIF_POLLING_NRFLAG
 * set the "IPI" is a TIF_NEED_RESCHED write, and kernels without "sched/core:
 * Remove the unnecessary need_resched() check in nohz_csd_func()" dropped the
 * request there. Per watched CPU this module counts the kicks received
 * (nohz_csd_func() runs) and how each was delivered (polling idle task, hard
 * IRQ, other), and classifies each the way the kernel handled it: raised
 * (that call stored its flags and raised SCHED_SOFTIRQ, seen in the kernel's
 * own softirq_raise) or dropped (split by whether the idle task was running:
 * a polled kick dropped in the idle task is the need_resched() bail-out's
 * signature). A raised kick is then served by the next SCHED_SOFTIRQ run on
 * that CPU, which runs a nohz idle balance for it or not (and after how
 * long). It also counts ksoftirqd wakeups from inside nohz_csd_func(), what
 * raise_softirq_irqoff() there did before "sched/core: Prevent wakeup of
 * ksoftirqd during idle load balance".
 *
 * It makes its own load (CPU-bound kthreads on load_cpus, so that the busy
 * CPUs' tick kicks an idle one) or watches an external one:
 *
 *   insmod nohz_csd.ko load_cpus=0 duration=5      # load CPU0, watch all
 *   insmod nohz_csd.ko cpulist=1-7                 # until stopped or rmmod:
 *   echo 1 > /sys/module/nohz_csd/parameters/stop  # or, without lockdown:
 *   echo stop > /sys/kernel/debug/nohz_csd/control
 *
 * The result is printed to the kernel log and kept in
 * /sys/kernel/debug/nohz_csd/result until rmmod.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/hardirq.h>
#include <linux/interrupt.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/seq_buf.h>
#include <linux/sysfs.h>
#include <linux/slab.h>
#include <linux/trace_recursion.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include <asm/local.h>

#include "../common/calib.h"
#include "../common/clock.h"
#include "../common/hist.h"
#include "../common/hook.h"
#include "../common/param.h"
#include "../common/result.h"
#include "../common/session.h"
#include "../common/thread.h"
#include "../common/tp.h"

#define NC_FORMAT		"nohz_csd/5"
#define MAX_DURATION_S		3600U
#define MAX_LOAD_THREADS	16U
#define DEF_LOAD_THREADS	2U
#define CALIB_CALLS		256	/* the most calls of a run */
#define CALIB_RUNS		5
#define CALIB_PLAIN_CALLS	65536	/* the most of the plain reference's */
/* The most the calibration after the run may take, for a stop's second. */
#define CALIB_END_BUDGET_NS	(500 * NSEC_PER_MSEC)

/* ---- parameters -------------------------------------------------------- */

/* Kicks go to one idle CPU at a time: watch the CPUs that can get them. */
static struct ips_long_string nc_cpulist = { .max = IPS_MAX_CPULIST_LEN };
module_param_cb(cpulist, &ips_long_string_ops, &nc_cpulist, 0444);
MODULE_PARM_DESC(cpulist, "CPUs whose incoming kicks are counted, kernel cpulist syntax (default: every online CPU; up to 65536 characters)");

/* A kick needs a busy CPU: make one, or leave it unset to watch a real load. */
static struct ips_long_string nc_load_cpus = { .max = IPS_MAX_CPULIST_LEN };
module_param_cb(load_cpus, &ips_long_string_ops, &nc_load_cpus, 0444);
MODULE_PARM_DESC(load_cpus, "CPUs that get CPU-bound kthreads so that their tick kicks an idle CPU, not every online CPU (default unset: watch an external load; up to 65536 characters)");

/*
 * A CPU kicks only with two runnable tasks; more for kernels that need
 * them. Refused without load_cpus, where it would change nothing.
 */
static unsigned int nc_load_threads = DEF_LOAD_THREADS;
static bool load_threads_given;

static int nc_set_load_threads(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_uint(val, kp);

	if (!ret)
		load_threads_given = true;
	return ret;
}

static const struct kernel_param_ops nc_load_threads_ops = {
	.set	= nc_set_load_threads,
	.get	= param_get_uint,
};

module_param_cb(load_threads, &nc_load_threads_ops, &nc_load_threads, 0444);
MODULE_PARM_DESC(load_threads, "CPU-bound kthreads per load CPU, only with load_cpus; a kick needs two runnable tasks (threads, default 2, max 16)");

/* A fixed length for scripts; 0 watches whatever the user runs meanwhile. */
static unsigned int nc_duration;
module_param_named(duration, nc_duration, uint, 0444);
MODULE_PARM_DESC(duration, "Watch for this long inside insmod, then report (seconds, default 0: watch until stopped through the 'stop' parameter, debugfs control or rmmod; max 3600)");

/* A hook on a wrong function must read unproven: show that it does. */
static char *nc_test_misname;
module_param_named(test_misname, nc_test_misname, charp, 0444);
MODULE_PARM_DESC(test_misname, "Test only: put the hook of this function (such as _nohz_idle_balance) on one never called, to check that its proof reads unproven (default unset)");

/* A figure whose hook is missing must read unproven: show that it does. */
static char *nc_test_skip;
module_param_named(test_skip, nc_test_skip, charp, 0444);
MODULE_PARM_DESC(test_skip, "Test only: leave the optional hook of this function (_nohz_idle_balance or tick_nohz_idle_stop_tick) unhooked, as on a kernel without it, to check that the figures resting on it read unproven or are left out (default unset)");

/* Ends an until-stopped run where debugfs refuses writes (lockdown). */
static void nc_finish(bool interrupted);
static struct ips_session nc_session = IPS_SESSION_INIT(nc_session, nc_finish);
module_param_cb(stop, &ips_session_stop_ops, &nc_session, 0644);
MODULE_PARM_DESC(stop, "Write 1 to end a run without duration= and publish its result, as writing 'stop' to debugfs control does (works under kernel lockdown); reads 1 once the measurement ended");

/* The start line's order (ips_result_log_params()): as declared above. */
const char * const ips_params_order[] = {
	"cpulist", "load_cpus", "load_threads", "duration", "test_misname",
	"test_skip", "stop", NULL,
};

/* ---- state ------------------------------------------------------------- */

/* How a kick reached the CPU: polling idle task, hard IRQ, other. */
enum { DLV_POLL, DLV_IRQ, DLV_OTHER };

/* What a watched CPU counts; the totals are their sums over the CPUs. */
enum {
	NC_KICKS,
	NC_KICK_POLL,		/* NC_KICK_POLL + DLV_* */
	NC_KICK_IRQ,
	NC_KICK_OTHER,
	NC_RAISED,
	NC_DROPPED_IDLE,
	NC_DROPPED_BUSY,
	NC_DROPPED_POLL,
	NC_DROPPED_PENDING,
	NC_DROPPED_WOKEN,
	NC_DROPPED_LOST,
	NC_DROPPED_UNRESOLVED,
	NC_DROPPED_POLL_LOST,
	NC_SOFTIRQS,
	NC_BALANCED,
	NC_UNBALANCED,
	NC_MERGED,
	NC_UNSERVED,
	NC_MIDRUN,
	NC_KSOFTIRQD_WAKEUPS,
	NC_TICK_STOPS,
	NR_NC
};

/* The result's counts, in its order: each the sum of counters first..last. */
static const struct nc_key {
	const char *name;
	u8 first;
	u8 last;
} nc_keys[] = {
#define NC_KEY(name, first, last) { name, first, last }
	NC_KEY("kicks", NC_KICKS, NC_KICKS),
	NC_KEY("kick_poll", NC_KICK_POLL, NC_KICK_POLL),
	NC_KEY("kick_irq", NC_KICK_IRQ, NC_KICK_IRQ),
	NC_KEY("kick_other", NC_KICK_OTHER, NC_KICK_OTHER),
	NC_KEY("raised", NC_RAISED, NC_RAISED),
	NC_KEY("dropped", NC_DROPPED_IDLE, NC_DROPPED_BUSY),
	NC_KEY("dropped_idle", NC_DROPPED_IDLE, NC_DROPPED_IDLE),
	NC_KEY("dropped_busy", NC_DROPPED_BUSY, NC_DROPPED_BUSY),
	NC_KEY("dropped_poll", NC_DROPPED_POLL, NC_DROPPED_POLL),
	NC_KEY("dropped_pending", NC_DROPPED_PENDING, NC_DROPPED_PENDING),
	NC_KEY("dropped_woken", NC_DROPPED_WOKEN, NC_DROPPED_WOKEN),
	NC_KEY("dropped_lost", NC_DROPPED_LOST, NC_DROPPED_LOST),
	NC_KEY("dropped_unresolved", NC_DROPPED_UNRESOLVED,
	       NC_DROPPED_UNRESOLVED),
	NC_KEY("dropped_poll_lost", NC_DROPPED_POLL_LOST, NC_DROPPED_POLL_LOST),
	NC_KEY("softirqs", NC_SOFTIRQS, NC_SOFTIRQS),
	NC_KEY("balanced", NC_BALANCED, NC_BALANCED),
	NC_KEY("raised_without_balance", NC_UNBALANCED, NC_UNSERVED),
	NC_KEY("unbalanced", NC_UNBALANCED, NC_UNBALANCED),
	NC_KEY("merged", NC_MERGED, NC_MERGED),
	NC_KEY("unserved", NC_UNSERVED, NC_UNSERVED),
	NC_KEY("midrun", NC_MIDRUN, NC_MIDRUN),
	NC_KEY("ksoftirqd_wakeups", NC_KSOFTIRQD_WAKEUPS, NC_KSOFTIRQD_WAKEUPS),
	NC_KEY("tick_stops", NC_TICK_STOPS, NC_TICK_STOPS),
#undef NC_KEY
};

/*
 * The ftrace hooks: the nohz idle balance, tick stops, idle rounds; and
 * the calibration's, on functions of this module (nc_calibrate()).
 */
enum { HK_BALANCE, HK_TICK_STOP, HK_DO_IDLE, HK_CAL_IDLE, HK_CAL_BALANCE, NR_HK };

/*
 * The kinds of probe hits, each of its own cost: a kretprobe's entry and
 * return (nohz_csd_func), a kprobe (wake_up_process), a tracepoint's
 * probe (softirq_raise, softirq_entry, softirq_exit, sched_switch), an
 * ftrace hook (the balance, the tick stop, do_idle).
 */
enum { K_KRETPROBE, K_KPROBE, K_TRACEPOINT, K_HOOK, NR_KIND };

static const char * const nc_kind_name[] = {
	[K_KRETPROBE] = "kretprobe", [K_KPROBE] = "kprobe",
	[K_TRACEPOINT] = "tracepoint", [K_HOOK] = "hook",
};

/*
 * The instrument's cost on one CPU, measured on it by the instrument
 * itself (nc_calibrate()), in picoseconds: each kind's hit, and what the
 * probes add to a delay span of the fewest hits (the kick's kretprobe
 * return, its softirq_raise and softirq_entry probes, the balance hook up
 * to its clock read) with the weighted hits it holds (@span_acc_ps, in
 * the units of nc_cpu's @acc).
 */
struct nc_calib {
	u32 hit_ps[NR_KIND];
	u32 span_ps;
	u32 span_acc_ps;
	u32 span_hits;
	u32 plain_ps;		/* a plain call, unprobed */
};

/*
 * A time of the instrument's, with the probe hits counted on the CPU so
 * far: the hits between two stamps are inside the span they bound, their
 * calibrated costs summed in @acc.
 */
struct nc_stamp {
	u64 t;		/* clock units (common/clock.h) */
	u64 acc;	/* ps */
	u64 hits;
};

/*
 * Per watched CPU, written only by probes running on that CPU (and read by
 * the report once no probe can run). Each is a separate allocation of a
 * cache-line multiple on the CPU's node: no two CPUs share a line.
 *
 * The probes of one CPU run in three contexts, each of which can cut into
 * the one before: the idle task with interrupts on (do_idle()'s hook, the
 * balance of nohz_run_idle_balance()), a SCHED_SOFTIRQ run with interrupts
 * on (softirq_entry and softirq_exit, the balance hook), and interrupts
 * off (the kretprobe, the wakeup kprobe, softirq_raise, sched_switch, the
 * tick stop's hook). Every field that a later context writes and an
 * earlier one reads and clears is read and cleared with interrupts off
 * (awaiting and mid in softirq_entry, mid in the balance hook, the open
 * drops in do_idle()'s hook); the rest is written in one context only,
 * or, as fired[], by plain stores.
 */
struct nc_cpu {
	/* Inside a counted nohz_csd_func() call; it raised SCHED_SOFTIRQ. */
	bool in_csd;
	bool csd_raised;
	/* A SCHED_SOFTIRQ run serving kicks, before its balance. */
	bool serving;
	/* Raised kicks that no SCHED_SOFTIRQ run served yet; the oldest's time. */
	unsigned int awaiting;
	struct nc_stamp t_kick;
	struct nc_stamp t_serve;
	unsigned int served;	/* kicks the serving run took over */
	/*
	 * Inside a SCHED_SOFTIRQ run; it called the balance; kicks raised
	 * while it ran and before its balance (interrupts are on in a
	 * softirq's action), the first one's time.
	 */
	bool in_run;
	bool run_balanced;
	unsigned int mid;
	struct nc_stamp t_mid;
	/*
	 * Of the last run that balanced with such kicks in: how many, whether
	 * it served a kick of its own, when it balanced and the first's time.
	 * The next run tells whether that balance consumed their flags.
	 */
	unsigned int consumed;
	bool consumed_serving;
	struct nc_stamp t_consumed;
	struct nc_stamp t_consumed_kick;
	/* Kicks dropped in the idle task: does a task run next, or idle? */
	unsigned int drops_open;
	unsigned int poll_drops_open;

	u64 n[NR_NC];
	/*
	 * Each hook that hit here, a byte of its own: a store, no
	 * read-modify-write that a softirq's hook (on an interrupt's exit)
	 * could cut into, as a bit mask had.
	 */
	u8 fired[NR_HK];

	/*
	 * Every probe hit here, by kind and in all, and their calibrated
	 * costs summed (ps): incremented by single instructions (local_t),
	 * which no interrupt on this CPU can cut.
	 */
	local_t kind_hits[NR_KIND];
	local_t hits;
	local_t acc;
	struct nc_calib cal;		/* before the run: the costs removed */
	struct nc_calib cal_end;	/* after it: how far they drifted */
	struct ips_calib_drift drift;	/* the two calibrations' span cost */
	/* The hits and their cost from the measurement's start to its end. */
	u64 m_kind_hits[NR_KIND];
	u64 m_acc;

	/* The delays: the kernel's (cost removed), and as measured, summed. */
	struct ips_hist delay;
	u64 delay_raw_ns;
	u64 delay_hits;		/* probe hits inside the delays */
	u64 delay_acc;		/* their calibrated cost, ps */
} ____cacheline_aligned_in_smp;

static struct nc_cpu **nc_state;	/* [nr_cpu_ids], NULL when unwatched */
/*
 * This CPU's entry of nc_state, one load for the probes; the calibration's
 * scratch state while it runs.
 */
static DEFINE_PER_CPU(struct nc_cpu *, nc_this_cpu);
static cpumask_var_t nc_mask, nc_load_mask;

static bool nc_kprobes;
static unsigned long nc_missed_base, nc_missed;
static struct task_struct **nc_load;
static unsigned int nr_load;
static bool nc_load_stop;
static atomic_t nc_load_offline;	/* load threads whose CPU went offline */

/* ---- the measurement --------------------------------------------------- */

/*
 * Every probe counts only while the session measures: after all of them are
 * in place and until one instant before any is removed; the session's stop
 * waits for every handler that saw it measuring: all of them run with
 * interrupts, preemption or bottom halves disabled, where RCU is watching.
 * That also covers the parts of a counted event that run after the check: a
 * nohz_csd_func() call runs with interrupts disabled from its entry to its
 * return handler, a SCHED_SOFTIRQ run with bottom halves disabled from its
 * entry to its exit.
 */

static __always_inline struct nc_cpu *nc_this(void)
{
	return this_cpu_read(nc_this_cpu);
}

/* A probe hit of kind @k: counted first thing in every probe. */
static __always_inline void nc_count(struct nc_cpu *c, unsigned int k)
{
	local_inc(&c->kind_hits[k]);
	local_inc(&c->hits);
	local_add(c->cal.hit_ps[k], &c->acc);
}

/* Now, and the hits so far: with interrupts off (or none counting here). */
static __always_inline void nc_stamp(struct nc_cpu *c, struct nc_stamp *st)
{
	st->t = ips_clock_read();
	st->acc = local_read(&c->acc);
	st->hits = local_read(&c->hits);
}

/*
 * A delay from @from to @to: as measured, and with the calibrated cost of
 * the probes inside removed: a span of the fewest hits' cost, and each
 * hit's more (or less) than such a span holds.
 */
static __always_inline void nc_delay_add(struct nc_cpu *c,
					 const struct nc_stamp *from,
					 const struct nc_stamp *to)
{
	u64 raw = ips_clock_ns(to->t - from->t), acc = to->acc - from->acc;
	s64 cost_ps = (s64)c->cal.span_ps + (s64)acc - (s64)c->cal.span_acc_ps;
	u64 cost = cost_ps > 0 ? div_u64(cost_ps, 1000) : 0;

	c->delay_raw_ns += raw;
	c->delay_hits += to->hits - from->hits;
	c->delay_acc += acc;
	ips_hist_add_net(&c->delay, raw, cost);
}

static inline bool sched_softirq_pending(void)
{
	return local_softirq_pending() & BIT(SCHED_SOFTIRQ);
}

/*
 * nohz_csd_func(): a kick arrived. The kprobe runs with interrupts disabled
 * (so does every nohz_csd_func() call), the return handler sees what the
 * call did. An entry that does not count returns 1: no return handler.
 */
struct nc_csd_data {
	u8 dlv;
	bool idle;
	bool was_pending;
	struct nc_stamp t;
};

/*
 * Each probe is a body shared with the calibration, which runs it on a
 * scratch state taking the kernel's state as given (@measuring and the
 * like).
 */
static __always_inline int nc_csd_entry_body(struct nc_cpu *c,
					     struct nc_csd_data *d,
					     bool measuring)
{
	/* NC_KICK_POLL + DLV_*: the three counts in DLV_* order. */
	BUILD_BUG_ON(NC_KICK_POLL + DLV_IRQ != NC_KICK_IRQ ||
		     NC_KICK_POLL + DLV_OTHER != NC_KICK_OTHER);
	if (!measuring)
		return 1;
	c->n[NC_KICKS]++;
	d->idle = is_idle_task(current);
	if (in_hardirq())
		d->dlv = DLV_IRQ;
	else if (d->idle)
		d->dlv = DLV_POLL;
	else
		d->dlv = DLV_OTHER;
	c->n[NC_KICK_POLL + d->dlv]++;
	d->was_pending = sched_softirq_pending();
	nc_stamp(c, &d->t);
	c->csd_raised = false;
	c->in_csd = true;
	return 0;
}

static int nc_csd_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct nc_cpu *c = nc_this();

	if (!c)
		return 1;
	nc_count(c, K_KRETPROBE);
	return nc_csd_entry_body(c, (struct nc_csd_data *)ri->data,
				 ips_session_measuring(&nc_session));
}

static int nc_csd_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct nc_csd_data *d = (struct nc_csd_data *)ri->data;
	struct nc_cpu *c = nc_this();

	if (!c)
		return 0;
	c->in_csd = false;
	if (c->csd_raised) {
		c->n[NC_RAISED]++;
		if (!c->awaiting++)
			c->t_kick = d->t;
		/* Its flags may be read by the run this interrupt cut into. */
		if (c->in_run && !c->run_balanced && !c->mid++)
			c->t_mid = d->t;
		return 0;
	}
	if (d->idle) {
		c->n[NC_DROPPED_IDLE]++;
		c->drops_open++;
	} else {
		c->n[NC_DROPPED_BUSY]++;
	}
	if (d->dlv == DLV_POLL) {
		c->n[NC_DROPPED_POLL]++;
		c->poll_drops_open++;
	}
	if (d->was_pending)
		c->n[NC_DROPPED_PENDING]++;
	return 0;
}

static struct kretprobe nc_csd_probe = {
	.kp.symbol_name	= "nohz_csd_func",
	.entry_handler	= nc_csd_entry,
	.handler	= nc_csd_return,
	.data_size	= sizeof(struct nc_csd_data),
};

/*
 * wake_up_process(): count ksoftirqd wakeups from inside a counted
 * nohz_csd_func() call (raise_softirq_irqoff() outside interrupt context).
 */
static int nc_wake_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct task_struct *t;
	struct nc_cpu *c;

	c = nc_this();
	if (!c)
		return 0;
	nc_count(c, K_KPROBE);
	if (!c->in_csd)
		return 0;
	t = (struct task_struct *)regs_get_kernel_argument(regs, 0);
	if (t && (t->flags & PF_KTHREAD) && !strncmp(t->comm, "ksoftirqd/", 10))
		c->n[NC_KSOFTIRQD_WAKEUPS]++;
	return 0;
}

static struct kprobe nc_wake_probe = {
	.symbol_name	= "wake_up_process",
	.pre_handler	= nc_wake_pre,
};

/*
 * Tracepoints of the softirq core. softirq_raise fires in the kernel's own
 * __raise_softirq_irqoff(), also when raise_softirq_irqoff() (notrace, and
 * free to inline it) is the caller: a counted nohz_csd_func() call that
 * fires it for SCHED_SOFTIRQ stored its flags in the runqueue and raised
 * the softirq. softirq_entry and softirq_exit bracket each run of the
 * SCHED_SOFTIRQ handler, the only run that can serve a kick.
 */
static noinline void nc_tp_raise(void *data, unsigned int vec)
{
	struct nc_cpu *c = nc_this();

	if (!c)
		return;
	nc_count(c, K_TRACEPOINT);
	if (vec == SCHED_SOFTIRQ && c->in_csd)
		c->csd_raised = true;
}

static __always_inline void nc_tp_entry_body(struct nc_cpu *c, unsigned int vec,
					     bool measuring)
{
	unsigned long flags;

	if (vec != SCHED_SOFTIRQ || !measuring)
		return;
	/* A kick's return handler (hard IRQ) also writes awaiting and mid. */
	local_irq_save(flags);
	c->in_run = true;
	c->run_balanced = false;
	c->mid = 0;
	c->served = 0;
	if (c->awaiting) {
		c->n[NC_SOFTIRQS]++;
		c->n[NC_MERGED] += c->awaiting - 1;
		c->served = c->awaiting;
		c->awaiting = 0;
		c->t_serve = c->t_kick;
		c->serving = true;
	}
	local_irq_restore(flags);
}

static noinline void nc_tp_entry(void *data, unsigned int vec)
{
	struct nc_cpu *c = nc_this();

	if (!c)
		return;
	nc_count(c, K_TRACEPOINT);
	nc_tp_entry_body(c, vec, ips_session_measuring(&nc_session));
}

/*
 * A run that served kicks and saw no balance. When every kick it served
 * came in while the run before it ran and before that run's balance, that
 * balance read their flags (nohz_idle_balance() reads and clears
 * rq->nohz_idle_balance just before it calls the balance), and this run
 * found none: the kernel served them in the run before, which gets them.
 * A run that served its own kick balanced once for all (they are merged,
 * and this run served nothing); a periodic one balanced for them (one is
 * balanced, the others merged, as this run had counted them).
 */
static void nc_run_unbalanced(struct nc_cpu *c)
{
	if (!c->consumed || c->consumed != c->served) {
		c->n[NC_UNBALANCED]++;
		return;
	}
	c->n[NC_MIDRUN] += c->served;
	if (c->consumed_serving) {
		c->n[NC_SOFTIRQS]--;
		c->n[NC_MERGED]++;
	} else {
		c->n[NC_BALANCED]++;
		nc_delay_add(c, &c->t_consumed_kick, &c->t_consumed);
	}
}

static noinline void nc_tp_exit(void *data, unsigned int vec)
{
	struct nc_cpu *c = nc_this();

	if (!c)
		return;
	nc_count(c, K_TRACEPOINT);
	if (vec != SCHED_SOFTIRQ || !c->in_run)
		return;
	c->in_run = false;
	if (c->serving) {
		c->serving = false;
		nc_run_unbalanced(c);
	}
	/* Only the next run can tell what the last balance consumed. */
	if (!c->run_balanced)
		c->consumed = 0;
}

/*
 * A kick dropped in the idle task is resolved by what the CPU does next:
 * a context switch away from the idle task (idle_cpu() was false in
 * nohz_csd_func(): a task had been woken onto the CPU, which is busy now)
 * or the next do_idle() round without one (the CPU stayed idle: the kick
 * was lost, what the need_resched() bail-out does to a polled kick).
 */
static void nc_tp_switch(void *data, bool preempt, struct task_struct *prev,
			 struct task_struct *next, unsigned int prev_state)
{
	struct nc_cpu *c = nc_this();

	if (!c)
		return;
	nc_count(c, K_TRACEPOINT);
	if (c->drops_open) {
		c->n[NC_DROPPED_WOKEN] += c->drops_open;
		c->drops_open = 0;
		c->poll_drops_open = 0;
	}
}

static struct nc_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool registered;
} nc_tps[] = {
	{ .name = "softirq_raise", .probe = nc_tp_raise },
	{ .name = "softirq_entry", .probe = nc_tp_entry },
	{ .name = "softirq_exit", .probe = nc_tp_exit },
	{ .name = "sched_switch", .probe = nc_tp_switch },
};

/*
 * The ftrace hooks. _nohz_idle_balance() also runs from do_idle()
 * (nohz_run_idle_balance(), blocked-load updates): only a call inside the
 * SCHED_SOFTIRQ run that serves a kick is that kick's balance.
 */

/*
 * The start of every hook: the recursion lock, which also keeps
 * preemption off, and this CPU's state. NULL (nothing held) when the hook
 * recursed or the CPU is not watched; otherwise the hook ends with
 * ips_hook_exit(*bit).
 */
static __always_inline struct nc_cpu *nc_hook_enter(unsigned long ip,
						    unsigned long parent_ip,
						    int *bit)
{
	struct nc_cpu *c;

	*bit = ips_hook_enter(ip, parent_ip);
	if (*bit < 0)
		return NULL;
	c = nc_this();
	if (!c)
		ips_hook_exit(*bit);
	return c;
}

/*
 * The balance: a kick's delay ends at this hook's clock read, taken with
 * interrupts off so that no probe of an interrupt counts inside the span
 * and after its end. @serving_softirq: inside a SCHED_SOFTIRQ run.
 */
static __always_inline void nc_balance_body(struct nc_cpu *c,
					    bool serving_softirq)
{
	struct nc_stamp now;
	unsigned long flags;

	WRITE_ONCE(c->fired[HK_BALANCE], 1);
	if (!serving_softirq)
		return;
	/* A kick's return handler (hard IRQ) writes mid. */
	local_irq_save(flags);
	nc_stamp(c, &now);
	if (c->in_run && !c->run_balanced) {
		c->run_balanced = true;
		c->consumed = c->mid;
		c->consumed_serving = c->serving;
		c->t_consumed = now;
		c->t_consumed_kick = c->t_mid;
	}
	local_irq_restore(flags);
	if (c->serving) {
		c->serving = false;
		c->n[NC_BALANCED]++;
		nc_delay_add(c, &c->t_serve, &now);
	}
}

static __always_inline void nc_do_idle_body(struct nc_cpu *c)
{
	unsigned long flags;

	WRITE_ONCE(c->fired[HK_DO_IDLE], 1);
	if (READ_ONCE(c->drops_open)) {
		/* Interrupts are on here; a kick's return handler adds drops. */
		local_irq_save(flags);
		c->n[NC_DROPPED_LOST] += c->drops_open;
		c->n[NC_DROPPED_POLL_LOST] += c->poll_drops_open;
		c->drops_open = 0;
		c->poll_drops_open = 0;
		local_irq_restore(flags);
	}
}

/* A hook: @body with this CPU's state inside the recursion lock. */
#define NC_HOOK(name, body)						\
static void name(unsigned long ip, unsigned long parent_ip,		\
		 unsigned long arg0)					\
{									\
	struct nc_cpu *c;						\
	int bit;							\
									\
	c = nc_hook_enter(ip, parent_ip, &bit);				\
	if (c) {							\
		nc_count(c, K_HOOK);					\
		body;							\
		ips_hook_exit(bit);					\
	}								\
}

static __always_inline void nc_tick_stop_body(struct nc_cpu *c)
{
	WRITE_ONCE(c->fired[HK_TICK_STOP], 1);
	if (ips_session_measuring(&nc_session))
		c->n[NC_TICK_STOPS]++;
}

NC_HOOK(nc_balance, nc_balance_body(c, in_serving_softirq()))
NC_HOOK(nc_tick_stop, nc_tick_stop_body(c))
NC_HOOK(nc_do_idle, nc_do_idle_body(c))
/* The calibration's: the same bodies, the kernel's state taken as given. */
NC_HOOK(nc_cal_idle, nc_do_idle_body(c))
NC_HOOK(nc_cal_balance, nc_balance_body(c, true))

/*
 * The calibration's functions (nc_calibrate()): empty but for the kick's
 * raise, each hooked or probed as the kernel's are, and one left alone.
 * Each body differs, so that the compiler folds no two into one.
 */
#define NC_CAL_FN(name, n)			\
static noinline void name(void)			\
{						\
	asm volatile("" : : "i" (n));		\
}

NC_CAL_FN(nc_cal_plain, 0)
NC_CAL_FN(nc_cal_fn_idle, 1)
NC_CAL_FN(nc_cal_fn_balance, 2)
NC_CAL_FN(nc_cal_fn_wake, 3)

/*
 * A tracepoint's hit as the kernel makes it: preemption off, a direct call
 * of the one probe (a static call).
 */
#define NC_CAL_TP(probe, vec)			\
	do {					\
		preempt_disable_notrace();	\
		probe(NULL, vec);		\
		preempt_enable_notrace();	\
	} while (0)

/* nohz_csd_func()'s stand-in: a kick that raises SCHED_SOFTIRQ, or none. */
static noinline void nc_cal_fn_csd(bool raise)
{
	if (raise)
		NC_CAL_TP(nc_tp_raise, SCHED_SOFTIRQ);
	barrier();
}

static struct ips_hook nc_hooks[] = {
	/* Static; Debian's builds name it _nohz_idle_balance.isra.0. */
	[HK_BALANCE] = {
		.names = IPS_HOOK_NAMES("_nohz_idle_balance",
					"_nohz_idle_balance.*"),
		.func = nc_balance,
	},
	[HK_TICK_STOP] = {
		.names = IPS_HOOK_NAMES("tick_nohz_idle_stop_tick"),
		.func = nc_tick_stop,
	},
	[HK_DO_IDLE] = {
		.names = IPS_HOOK_NAMES("do_idle"),
		.func = nc_do_idle,
		.required = true,
	},
	[HK_CAL_IDLE] = {
		.names = IPS_HOOK_NAMES("nc_cal_fn_idle"),
		.own = (unsigned long)nc_cal_fn_idle,
		.func = nc_cal_idle,
		.required = true,
		.quiet = true,
	},
	[HK_CAL_BALANCE] = {
		.names = IPS_HOOK_NAMES("nc_cal_fn_balance"),
		.own = (unsigned long)nc_cal_fn_balance,
		.func = nc_cal_balance,
		.required = true,
		.quiet = true,
	},
};

/* Never called: where test_misname= puts a hook. */
static noinline __used void nc_decoy(void)
{
	barrier();
}

static struct ips_hook_set nc_hook_set = {
	.direct = true,
	.hooks = nc_hooks,
	.n = ARRAY_SIZE(nc_hooks),
	.decoy = "nc_decoy",
};

/* The calibration's kretprobe and kprobe, on the functions above. */
static int nc_cal_csd_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct nc_cpu *c = nc_this();

	if (!c)
		return 1;
	nc_count(c, K_KRETPROBE);
	return nc_csd_entry_body(c, (struct nc_csd_data *)ri->data, true);
}

static struct kretprobe nc_cal_csd_probe = {
	.entry_handler	= nc_cal_csd_entry,
	.handler	= nc_csd_return,
	.data_size	= sizeof(struct nc_csd_data),
};

static struct kprobe nc_cal_wake_probe = {
	.pre_handler	= nc_wake_pre,
};

static unsigned long nc_probe_misses(void)
{
	return nc_csd_probe.nmissed + nc_csd_probe.kp.nmissed +
	       nc_wake_probe.nmissed;
}

static struct kprobe *nc_kps[] = { &nc_wake_probe, &nc_cal_wake_probe };
static struct kretprobe *nc_krps[] = { &nc_csd_probe, &nc_cal_csd_probe };

/* Both return once no CPU is inside a handler; one grace period each. */
static void nc_unregister_kprobes(struct work_struct *work)
{
	unregister_kprobes(nc_kps, ARRAY_SIZE(nc_kps));
	unregister_kretprobes(nc_krps, ARRAY_SIZE(nc_krps));
}

static DECLARE_WORK(nc_kprobes_work, nc_unregister_kprobes);

/*
 * Whether every probe is gone. Where ftrace or a tracepoint refused to
 * remove one, it may still run and write the per-CPU state: the state is
 * then never freed, and the module stays loaded (pinned), as
 * ips_hooks_unregister_wait() says in the log.
 */
static bool nc_unhooked = true;

/*
 * The grace periods of ftrace, of the tracepoints and of the kprobes run
 * at once, two of them in workers: each counts against a stop's second.
 * The kprobes go first: on ftrace they take ftrace's lock, which the
 * removal of the hooks holds through its RCU-tasks grace period. 0 once
 * no CPU is inside any probe; else an error, nc_unhooked false.
 */
static int nc_unhook(void)
{
	unsigned int i;
	int ret = 0, err;

	if (nc_kprobes)
		schedule_work(&nc_kprobes_work);
	ips_hooks_unregister_start(&nc_hook_set);
	for (i = 0; i < ARRAY_SIZE(nc_tps); i++) {
		if (!nc_tps[i].registered)
			continue;
		err = tracepoint_probe_unregister(nc_tps[i].tp, nc_tps[i].probe,
						  NULL);
		if (err) {
			pr_err("cannot remove the probe of tracepoint %s (%d): the state is kept and the module stays loaded\n",
			       nc_tps[i].name, err);
			ret = ret ?: err;
			continue;
		}
		nc_tps[i].registered = false;
	}
	tracepoint_synchronize_unregister();
	if (nc_kprobes) {
		flush_work(&nc_kprobes_work);
		nc_kprobes = false;
	}
	err = ips_hooks_unregister_wait(&nc_hook_set);
	ret = ret ?: err;
	if (ret && nc_unhooked) {
		nc_unhooked = false;
		/* ips_hooks_unregister_wait() pins the module on its own error. */
		if (!err)
			__module_get(THIS_MODULE);
	}
	return ret;
}

/* Put every probe in place; none counts before the session measures. */
static int nc_hook(void)
{
	unsigned int i;
	int ret;

	nc_csd_probe.maxactive = 2 * num_possible_cpus();
	ret = register_kretprobe(&nc_csd_probe);
	if (ret) {
		pr_err("cannot probe nohz_csd_func: %d (kernel without CONFIG_NO_HZ_COMMON?)\n",
		       ret);
		return ret;
	}
	ret = register_kprobe(&nc_wake_probe);
	if (ret) {
		unregister_kretprobe(&nc_csd_probe);
		pr_err("cannot probe wake_up_process: %d\n", ret);
		return ret;
	}
	/* The calibration's, on this module's own functions. */
	nc_cal_csd_probe.kp.addr = (kprobe_opcode_t *)nc_cal_fn_csd;
	nc_cal_csd_probe.maxactive = 2 * num_possible_cpus();
	ret = register_kretprobe(&nc_cal_csd_probe);
	if (!ret) {
		nc_cal_wake_probe.addr = (kprobe_opcode_t *)nc_cal_fn_wake;
		ret = register_kprobe(&nc_cal_wake_probe);
		if (ret)
			unregister_kretprobe(&nc_cal_csd_probe);
	}
	if (ret) {
		unregister_kprobe(&nc_wake_probe);
		unregister_kretprobe(&nc_csd_probe);
		pr_err("cannot probe the calibration's functions: %d\n", ret);
		return ret;
	}
	nc_kprobes = true;

	for (i = 0; i < ARRAY_SIZE(nc_tps); i++) {
		struct nc_tp *t = &nc_tps[i];

		t->tp = ips_tp_find(t->name);
		ret = t->tp ? tracepoint_probe_register(t->tp, t->probe, NULL) :
			      -ENOENT;
		if (ret) {
			pr_err("cannot attach to tracepoint %s: %d\n",
			       t->name, ret);
			nc_unhook();
			return ret;
		}
		t->registered = true;
	}

	nc_hook_set.misname = nc_test_misname;
	nc_hook_set.skipname = nc_test_skip;
	ret = ips_hooks_register(&nc_hook_set);
	if (ret)
		nc_unhook();
	return ret;
}

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

/*
 * The probe hits and their cost from the measurement's start (@start) to
 * its end: counters read on each CPU, a few microseconds apart.
 */
static void nc_measure_hits(bool start)
{
	unsigned int k;
	int cpu;

	for_each_cpu(cpu, nc_mask) {
		struct nc_cpu *c = nc_state[cpu];

		for (k = 0; k < NR_KIND; k++)
			c->m_kind_hits[k] = local_read(&c->kind_hits[k]) -
					    (start ? 0 : c->m_kind_hits[k]);
		c->m_acc = local_read(&c->acc) - (start ? 0 : c->m_acc);
	}
}

/*
 * A load thread spins on its CPU until the load ends. Bound, it is moved
 * elsewhere when its CPU goes offline, where it would load a CPU not in
 * load_cpus (a watched one, perhaps): it stops spinning then, counted in
 * load_offline.
 */
static int nc_load_thread(void *arg)
{
	int cpu = (long)arg;

	while (!READ_ONCE(nc_load_stop) && !kthread_should_stop()) {
		if (raw_smp_processor_id() != cpu) {
			atomic_inc(&nc_load_offline);
			break;
		}
		cpu_relax();
		ips_thread_pause();
	}
	ips_thread_wait_stop();
	return 0;
}

static void nc_load_end(void)
{
	unsigned int i;

	WRITE_ONCE(nc_load_stop, true);
	for (i = 0; i < nr_load; i++)
		kthread_stop(nc_load[i]);
	kfree(nc_load);
	nc_load = NULL;
	nr_load = 0;
}

/*
 * The load threads, each bound to its CPU and woken under the CPU-hotplug
 * lock's read side, from the check that the CPU is still online (it was
 * when load_cpus= was parsed, before the probes went in) to the wakeup: a
 * thread bound to an offline CPU would run unbound. A CPU that goes
 * offline later is nc_load_thread()'s. Not taken around the probes'
 * registration, which takes it itself to patch the kernel.
 */
static int nc_load_start(void)
{
	unsigned int n;
	int cpu, ret = 0;

	if (cpumask_empty(nc_load_mask))
		return 0;
	nc_load = kcalloc(cpumask_weight(nc_load_mask) * nc_load_threads,
			  sizeof(*nc_load), GFP_KERNEL);
	if (!nc_load)
		return -ENOMEM;
	WRITE_ONCE(nc_load_stop, false);
	atomic_set(&nc_load_offline, 0);
	cpus_read_lock();
	for_each_cpu(cpu, nc_load_mask) {
		if (!cpu_online(cpu)) {
			pr_err("load_cpus=%.64s: CPU %d went offline\n",
			       nc_load_cpus.val, cpu);
			ret = -EINVAL;
			goto out;
		}
	}
	for_each_cpu(cpu, nc_load_mask) {
		for (n = 0; n < nc_load_threads; n++) {
			struct task_struct *t;

			t = kthread_create_on_node(nc_load_thread,
						   (void *)(long)cpu,
						   cpu_to_node(cpu),
						   "nohz_csd_load/%d", cpu);
			if (IS_ERR(t)) {
				ret = PTR_ERR(t);
				goto out;
			}
			kthread_bind(t, cpu);
			nc_load[nr_load++] = t;
			wake_up_process(t);
		}
	}
out:
	cpus_read_unlock();
	if (ret)
		nc_load_end();
	return ret;
}

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
	ips_result_ratio(sb, pfx, "probe_cost_ppm", v * 1000000, cpu_ns);
	ips_hist_emit(sb, pfx, "delay", &c->delay, buckets);
	seq_buf_printf(sb, "%sdelay_below_cost=%llu\n", pfx, c->delay.below);
	ips_result_ratio(sb, pfx, "delay_raw_mean_ns", c->delay_raw_ns,
			 c->delay.n);
	seq_buf_printf(sb, "%sdelay_probe_hits=%llu\n", pfx, c->delay_hits);
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
	nc_proofs(proofs);
	seq_buf_printf(sb, "status=%s\n", interrupted ? "interrupted" :
		       nc_unproven(proofs) || nc_drift_over ? "unproven" :
		       "complete");
	seq_buf_printf(sb, "measured_ns=%llu\n", measured);
	seq_buf_printf(sb, "nmissed=%lu\n", nc_missed);
	ips_hooks_emit(sb, &nc_hook_set,
		       "nohz_csd_func,wake_up_process,softirq_raise,softirq_entry,softirq_exit,sched_switch");
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
		ips_hist_merge(&all->delay, &c->delay);
		all->delay_raw_ns += c->delay_raw_ns;
		all->delay_hits += c->delay_hits;
		cond_resched();
	}
	nc_emit_cpu(sb, "total.", all, false, measured * ncpus);
	why = nc_reason(all, !!nc_hooks[HK_TICK_STOP].hooked);
	if (why)
		seq_buf_printf(sb, "reason=%s\n", why);
}

static size_t nc_result_size(void)
{
	size_t size = 4096;
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

/* ---- init and exit ----------------------------------------------------- */

/* Free the state, unless probes that write it could not be removed. */
static void nc_free_state(void)
{
	int cpu;

	if (!nc_unhooked)
		return;
	for_each_possible_cpu(cpu)
		per_cpu(nc_this_cpu, cpu) = NULL;
	ips_session_cpus_free((void **)nc_state, nc_mask);
	nc_state = NULL;
	free_cpumask_var(nc_mask);
	free_cpumask_var(nc_load_mask);
}

/* test_skip= must name an optional hook, and not the one test_misname= moves. */
static int nc_check_skip(void)
{
	unsigned int i;

	if (!nc_test_skip)
		return 0;
	if (nc_test_misname && !strcmp(nc_test_skip, nc_test_misname)) {
		pr_err("test_skip=%s: no effect with test_misname=%s, which moves the same hook\n",
		       nc_test_skip, nc_test_misname);
		return -EINVAL;
	}
	for (i = 0; i < NR_HK; i++)
		if (!nc_hooks[i].required && !strcmp(nc_test_skip, nc_hooks[i].names[0]))
			return 0;
	pr_err("test_skip=%s: not an optional hook (_nohz_idle_balance, tick_nohz_idle_stop_tick)\n",
	       nc_test_skip);
	return -EINVAL;
}

static int nc_parse(void)
{
	int cpu, ret;

	if (nc_duration > MAX_DURATION_S) {
		pr_err("duration=%u: more than %u seconds\n", nc_duration,
		       MAX_DURATION_S);
		return -EINVAL;
	}
	if (!nc_load_threads || nc_load_threads > MAX_LOAD_THREADS) {
		pr_err("load_threads=%u: must be 1 to %u\n", nc_load_threads,
		       MAX_LOAD_THREADS);
		return -EINVAL;
	}
	ret = nc_check_skip();
	if (ret)
		return ret;
	if (load_threads_given && !nc_load_cpus.val) {
		pr_err("load_threads=%u: no effect without load_cpus=, which places the threads\n",
		       nc_load_threads);
		return -EINVAL;
	}
	ret = -ENOMEM;
	if (!zalloc_cpumask_var(&nc_mask, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&nc_load_mask, GFP_KERNEL))
		goto err;
	ret = 0;
	if (nc_cpulist.val)
		ret = ips_cpus_parse_online("cpulist", nc_cpulist.val, nc_mask);
	else
		cpumask_copy(nc_mask, cpu_online_mask);
	if (!ret && nc_load_cpus.val)
		ret = ips_cpus_parse_online("load_cpus", nc_load_cpus.val,
					    nc_load_mask);
	if (ret)
		goto err;
	/* Their load keeps the watched CPUs busy: no kick is sent to them. */
	if (nc_cpulist.val && cpumask_subset(nc_mask, nc_load_mask)) {
		pr_err("cpulist=%.64s: no effect, every watched CPU is in load_cpus=%.64s\n",
		       nc_cpulist.val, nc_load_cpus.val);
		ret = -EINVAL;
		goto err;
	}
	if (cpumask_subset(nc_mask, nc_load_mask)) {
		pr_err("load_cpus=%.64s: loads every online CPU, so no CPU is idle to be kicked\n",
		       nc_load_cpus.val);
		ret = -EINVAL;
		goto err;
	}

	ret = -ENOMEM;
	nc_state = (struct nc_cpu **)ips_session_cpus_alloc(nc_mask,
							sizeof(struct nc_cpu));
	if (!nc_state)
		goto err;
	for_each_cpu(cpu, nc_mask) {
		ips_hist_init(&nc_state[cpu]->delay);
		per_cpu(nc_this_cpu, cpu) = nc_state[cpu];
	}
	ips_clock_init();
	return 0;
err:
	nc_free_state();
	return ret;
}

/* Every probe in place, then the load: the session measures from here. */
static int nc_begin(void)
{
	int ret;

	ret = nc_hook();
	if (ret)
		return ret;
	/* Hooked, not yet measuring, no load yet: what the probes cost. */
	ret = nc_calibrate(false);
	if (!ret)
		ret = nc_load_start();
	if (ret) {
		nc_unhook();
		return ret;
	}
	nc_missed_base = nc_probe_misses();
	return 0;
}

/*
 * insmod: check the parameters and set up the state, put every probe in
 * place and start the load, then watch: for duration= seconds here, or
 * until stopped.
 */
static int __init nc_init(void)
{
	int ret;

	ret = nc_parse();
	if (ret)
		return ret;
	ips_session_lock(&nc_session);
	ret = nc_begin();
	if (ret) {
		ips_session_unlock(&nc_session);
		nc_free_state();
		/*
		 * A failed init frees the module whatever its count: with a
		 * probe left in place it must stay, loaded and pinned.
		 */
		return nc_unhooked ? ret : 0;
	}
	nc_measure_hits(true);
	ips_session_start(&nc_session, nc_duration);
	ips_session_unlock(&nc_session);
	ips_result_log_params("start");

	if (!nc_duration)
		return ips_session_control(&nc_session);
	ret = ips_session_sleep(&nc_session);
	if (ret)
		nc_free_state();
	return nc_unhooked ? ret : 0;
}

/*
 * rmmod: stop a measurement that still runs, then free everything. (Should
 * a probe refuse to go here, the module is on its way out already: no pin
 * can hold it, and only the state is kept.)
 */
static void __exit nc_exit(void)
{
	ips_session_exit(&nc_session);
	ips_session_lock(&nc_session);
	nc_free_state();
	ips_session_unlock(&nc_session);
}

module_init(nc_init);
module_exit(nc_exit);

MODULE_DESCRIPTION("Counts nohz idle-balance kicks to idle CPUs and what they cause");
MODULE_AUTHOR("The ipistorm authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(IPISTORM_SUITE_VERSION);
