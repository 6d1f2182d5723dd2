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
#include "../common/idle.h"
#include "../common/irqs.h"
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

/* Where the kicks found their CPUs: in which idle state, if any. */
static bool nc_idle_states;
module_param_cb(idle_states, &ips_bool_strict_ops, &nc_idle_states, 0444);
MODULE_PARM_DESC(idle_states, "1: also count the idle state each kick found its CPU in, and split the delays by it (a probe at every idle entry and exit of the watched CPUs); 0: do not (default 0)");

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
	"cpulist", "load_cpus", "load_threads", "duration", "idle_states",
	"test_misname", "test_skip", "stop", NULL,
};

/* ---- state ------------------------------------------------------------- */

/* How a kick reached the CPU: polling idle task, hard IRQ, other. */
enum { DLV_POLL, DLV_IRQ, DLV_OTHER, NR_DLV };

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
 * The ftrace hooks (hooks.h): the nohz idle balance, tick stops, idle
 * rounds; and the calibration's, on functions of this module.
 */
#define NC_REQ	BIT(0)

enum {
#define NC_HOOK(id, ...)	HK_##id,
#define NC_CAL(id, ...)		HK_CAL_##id,
#include "hooks.h"
	NR_HK
};

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
	unsigned int slot;	/* a kick's: its idle slot (idle_states=1), else 0 */
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
	/*
	 * The kernel's interrupt counts here over it (common/irqs.h):
	 * every one, the call-function IPIs; and the others than the
	 * kicks' own IPIs (nc_measure_hits()).
	 */
	u32 m_irqs;
	u32 m_irqs_call;
	u64 irqs_other;

	/* The delays: the kernel's (cost removed), and as measured, summed. */
	struct ips_hist delay;
	u64 delay_raw_ns;
	u64 delay_hits;		/* probe hits inside the delays */
	u64 delay_acc;		/* their calibrated cost, ps */
	/*
	 * idle_states=1, at the cold end: the idle entries here (cpu_idle's
	 * probe, interrupts off), a window from the start of this do_idle()
	 * round (its hook); the kicks by path and idle slot; the delays by
	 * the idle slot of their kick.
	 */
	struct ips_idle_seen idle;
	u64 kick_idle[NR_DLV][IPS_IDLE_MAX_SLOTS];
	struct ips_hist *delay_idle;
} ____cacheline_aligned_in_smp;

static struct nc_cpu **nc_state;	/* [nr_cpu_ids], NULL when unwatched */
/*
 * This CPU's entry of nc_state, one load for the probes; the calibration's
 * scratch state while it runs.
 */
static DEFINE_PER_CPU(struct nc_cpu *, nc_this_cpu);
static cpumask_var_t nc_mask, nc_load_mask;

/* idle_states=1: the state names, read at load, and how many slots. */
static struct ips_idle_names nc_idle;
static unsigned int nc_idle_slots;

static bool nc_kprobes;
static unsigned long nc_missed_base, nc_missed;
static struct task_struct **nc_load;
static unsigned int nr_load;
static bool nc_load_stop;
static atomic_t nc_load_offline;	/* load threads whose CPU went offline */

/*
 * The sections, compiled as one unit with this file (as the kernel's
 * kernel/sched/build_policy.c is): each uses what the ones before define.
 */
#include "measure.c"
#include "hooks.c"
#include "calib.c"
#include "load.c"
#include "report.c"

/* ---- init and exit ----------------------------------------------------- */

/* Free the state, unless probes that write it could not be removed. */
static void nc_free_state(void)
{
	int cpu;

	if (!nc_unhooked)
		return;
	for_each_possible_cpu(cpu)
		per_cpu(nc_this_cpu, cpu) = NULL;
	if (nc_state) {
		for_each_cpu(cpu, nc_mask)
			if (nc_state[cpu])
				kvfree(nc_state[cpu]->delay_idle);
	}
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
	if (nc_idle_states) {
		ips_idle_names_init(&nc_idle);
		nc_idle_slots = ips_idle_slots(&nc_idle);
	}
	for_each_cpu(cpu, nc_mask) {
		struct nc_cpu *c = nc_state[cpu];

		ips_hist_init(&c->delay);
		if (nc_idle_states) {
			c->delay_idle = ips_idle_hists(&nc_idle, cpu_to_node(cpu));
			if (!c->delay_idle)
				goto err;
		}
		per_cpu(nc_this_cpu, cpu) = c;
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
	if (ret)
		goto err_unlock;
	nc_measure_hits(true);
	ips_session_start(&nc_session, nc_duration);
	ips_session_unlock(&nc_session);
	ips_result_log_params("start");

	if (!nc_duration)
		return ips_session_control(&nc_session);
	ret = ips_session_sleep(&nc_session);
	if (ret)
		goto err_free;
	return 0;

err_unlock:
	ips_session_unlock(&nc_session);
err_free:
	nc_free_state();
	return ips_init_ret(ret, !nc_unhooked);
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
