// SPDX-License-Identifier: GPL-2.0
/*
 * placement - where the scheduler puts a woken task. A waker kthread,
 * bound to the waker= CPU, wakes wakee kthreads in turn, each allowed on
 * every CPU of cpulist= (so the kernel's select_task_rq() chooses), one
 * wake-up in flight at a time; busy= CPUs each run a busy kthread of the
 * module's own (spinning, or with busy_run_us= and busy_sleep_us= in
 * bursts), so that the choice is between idle and busy CPUs. Each
 * wake-up says where the wakee was enqueued (sched:sched_wakeup's
 * task_cpu()), whether that CPU ran its idle task then, how it was
 * notified (polled: sched:sched_wake_idle_without_ipi from the waker; a
 * real IPI on it before the wakee ran; neither), whether the wakee then
 * ran after another task rather than after idle, and the target's LLC
 * and node relative to the waker's CPU and to the wakee's previous CPU;
 * latency percentiles by target state and by LLC relation.
 *
 *   insmod placement.ko numwake=20000 waker=0 cpulist=1-3 busy=1,2
 *
 * A count runs inside insmod (a signal ends it, unreported); duration=
 * seconds too; with neither, the waker runs until stopped: "stop" to
 * /sys/kernel/debug/placement/control, 1 to the stop parameter, or rmmod.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/topology.h>
#include <linux/tracepoint.h>
#include <asm/processor.h>

#include "../common/clock.h"
#include "../common/hist.h"
#include "../common/param.h"
#include "../common/result.h"
#include "../common/session.h"
#include "../common/thread.h"
#include "../common/tp.h"

#define PLACEMENT_FORMAT	"placement/1"
#define MAX_NUMWAKE		100000000UL
#define MAX_DURATION_S		3600U
#define TIME_CAP_S		600U
#define MAX_WAKEES		256U
#define CALIB_HITS		1000U
#define CALIB_RUNS		5U
#define MAX_BURST_US		10000000U

/* ---- parameters -------------------------------------------------------- */

static unsigned long pl_numwake;
module_param_named(numwake, pl_numwake, ulong, 0444);
MODULE_PARM_DESC(numwake, "Wake-ups to make, then report (0: duration= or until stopped)");

static unsigned int pl_duration;
module_param_named(duration, pl_duration, uint, 0444);
MODULE_PARM_DESC(duration, "Seconds to run, then report (0: numwake= or until stopped)");

static int pl_waker = -1;
module_param_named(waker, pl_waker, int, 0444);
MODULE_PARM_DESC(waker, "The waker's CPU (required)");

static struct ips_long_string pl_cpulist = { .max = IPS_MAX_CPULIST_LEN };
module_param_cb(cpulist, &ips_long_string_ops, &pl_cpulist, 0444);
MODULE_PARM_DESC(cpulist, "CPUs the wakees may run on: the kernel chooses among them (required)");

static unsigned int pl_wakees = 1;
module_param_named(wakees, pl_wakees, uint, 0444);
MODULE_PARM_DESC(wakees, "Wakee threads, woken in turn (default 1)");

static struct ips_long_string pl_busy = { .max = IPS_MAX_CPULIST_LEN };
module_param_cb(busy, &ips_long_string_ops, &pl_busy, 0444);
MODULE_PARM_DESC(busy, "CPUs of cpulist each given a busy thread");

static unsigned int pl_busy_run_us;
module_param_named(busy_run_us, pl_busy_run_us, uint, 0444);
MODULE_PARM_DESC(busy_run_us, "With busy_sleep_us: a busy thread's bursts, in us (default 0: it spins)");

static unsigned int pl_busy_sleep_us;
module_param_named(busy_sleep_us, pl_busy_sleep_us, uint, 0444);
MODULE_PARM_DESC(busy_sleep_us, "With busy_run_us: a busy thread's sleep after each burst, in us");

static void placement_finish(bool interrupted);
static struct ips_session pl_session = IPS_SESSION_INIT(pl_session, placement_finish);
module_param_cb(stop, &ips_session_stop_ops, &pl_session, 0644);
MODULE_PARM_DESC(stop, "Write 1 to end a run early, as \"stop\" to the debugfs control file does");

/* The start line's order: the declarations' (common/result.c). */
const char * const ips_params_order[] = {
	"numwake", "duration", "waker", "cpulist", "wakees", "busy",
	"busy_run_us", "busy_sleep_us", "stop",
	NULL,
};

/* ---- what a wake-up is counted in ---------------------------------------- */

/* The scopes with latencies: every wake-up is in total, one state, one relation. */
enum pl_scope {
	PL_TOTAL,
	PL_IDLE,		/* the target ran its idle task at the enqueue */
	PL_BUSY,
	PL_REL,			/* + enum pl_rel: the target against the waker's CPU */
	NR_PL_SCOPES = PL_REL + 4
};

enum pl_rel { PL_SAME_CPU, PL_SAME_LLC, PL_OTHER_LLC, PL_OTHER_NODE, NR_PL_RELS };

static const char * const pl_rel_names[NR_PL_RELS] = {
	"same_cpu", "same_llc", "other_llc", "other_node",
};

enum pl_notify { PL_POLL, PL_IPI, PL_NONE, PL_BOTH, NR_PL_NOTIFY };

static const char * const pl_notify_names[NR_PL_NOTIFY] = {
	"poll", "ipi", "none", "both",
};

/* Per CPU, written on that CPU only (this_cpu ops). */
struct pl_cpu {
	bool on;		/* a CPU of cpulist or the waker's: probes count */
	bool idle;		/* the CPU runs its idle task */
	unsigned long ipi_seq;	/* the wake-up in flight at its last IPI */
	u64 hits;		/* probe calls that did work here */
};

static DEFINE_PER_CPU_ALIGNED(struct pl_cpu, pl_cpu);

/*
 * The wake-up in flight, one at a time: set up by the waker while no
 * probe can write it (task NULL), then written by the probes, each field
 * by one of them, on the CPUs the wake-up goes through, and read by the
 * waker once the wakee has acked and is asleep again.
 */
struct pl_rec {
	struct task_struct *task;	/* the wakee in flight; NULL: none */
	unsigned long seq;
	/* sched_wakeup of the wakee: the enqueue */
	unsigned int wakeups;
	int target;
	bool target_busy;
	bool outside;			/* a target outside cpulist */
	u64 t_enq;
	/* sched_wake_idle_without_ipi for the target, from the waker */
	bool polled;
	/* sched_switch to the wakee: its first run, and its latest */
	unsigned int runs;
	int ran_cpu;
	int cur_cpu;
	bool behind;			/* it ran after a task, not after idle */
	bool ipi;			/* its CPU took an IPI since the wake */
	u64 t_run;
	/* the wakee, running: its CPU, and the latest run's as it read it */
	int self_cpu;
	int self_seen;
	unsigned long ack ____cacheline_aligned_in_smp;
};

static struct pl_rec rec ____cacheline_aligned_in_smp;

struct pl_wakee {
	struct task_struct *task;
	unsigned long seq;		/* written by the waker */
	int error;			/* its affinity could not be set */
	int start;			/* the CPU it starts on */
	int started;			/* the CPU it found itself on then */
	bool ready;			/* in its loop */
};

static struct {
	bool stop ____cacheline_aligned_in_smp;
	unsigned long seq ____cacheline_aligned_in_smp;
	struct task_struct *waker;
	cpumask_var_t cpus;		/* cpulist */
	cpumask_var_t busy;
	cpumask_var_t on;		/* cpulist and the waker's CPU */
	struct pl_wakee *wakees;
	struct task_struct **busy_tasks;	/* by CPU */
	u32 *llc;			/* by CPU */
	u64 *placed;			/* by CPU: wake-ups enqueued there */
	struct ips_hist *lat;		/* [NR_PL_SCOPES]: wake to run */
	struct ips_hist *wait;		/* [NR_PL_SCOPES]: enqueue to run */
	atomic_t busy_running;
	atomic_long_t busy_sleeps;
	struct completion go;
	struct completion done;
	bool probes;
	bool capped;
	u32 hit_ps;		/* one probe hit off the wake-up's path */
	u32 path_ps;		/* the probes on a wake-up's path */

	/* Written by the waker. */
	u64 sent, woken, unclassified, backwards, moved, behind, mismatch;
	u64 moved_before_ack;
	u64 dequeue_waits;	/* wakees still queued, asleep, when due */
	u64 outside, hits;
	u64 count[NR_PL_SCOPES];
	u64 notify[NR_PL_NOTIFY];
	u64 prev[NR_PL_RELS];
	u64 start_ns, end_ns;
	int error;
} run;

/*
 * The sections, compiled as one unit with this file (as the kernel's
 * kernel/sched/build_policy.c is): each uses what the ones before define.
 */
#include "probes.c"
#include "threads.c"
#include "report.c"

/* ---- checks and init ------------------------------------------------------- */

/* Every check that needs no CPU; a parameter without effect is refused. */
static int __init pl_check_params(void)
{
	int ret = ips_param_count_or_duration("numwake", pl_numwake,
					      MAX_NUMWAKE, pl_duration,
					      MAX_DURATION_S);

	if (ret)
		return ret;
	if (!pl_wakees || pl_wakees > MAX_WAKEES) {
		pr_err("wakees=%u: want 1 to %u\n", pl_wakees, MAX_WAKEES);
		return -EINVAL;
	}
	if (!pl_cpulist.val) {
		pr_err("cpulist=(unset): give the CPUs the wakees may run on\n");
		return -EINVAL;
	}
	if (pl_busy_run_us > MAX_BURST_US || pl_busy_sleep_us > MAX_BURST_US) {
		pr_err("busy_run_us=%u busy_sleep_us=%u: want at most %u each\n",
		       pl_busy_run_us, pl_busy_sleep_us, MAX_BURST_US);
		return -EINVAL;
	}
	if (!pl_busy_run_us != !pl_busy_sleep_us) {
		pr_err("busy_run_us=%u busy_sleep_us=%u: a burst needs both\n",
		       pl_busy_run_us, pl_busy_sleep_us);
		return -EINVAL;
	}
	if (pl_busy_run_us && !pl_busy.val) {
		pr_err("busy_run_us=%u: no busy= CPUs: no effect\n",
		       pl_busy_run_us);
		return -EINVAL;
	}
	return 0;
}

/* The CPUs, under the hotplug lock: every one online. */
static int __init pl_parse_cpus(void)
{
	int cpu;

	if (pl_waker < 0 || pl_waker >= nr_cpu_ids || !cpu_online(pl_waker)) {
		pr_err("waker=%d: not an online CPU\n", pl_waker);
		return -EINVAL;
	}
	if (ips_cpus_parse_online("cpulist", pl_cpulist.val, run.cpus))
		return -EINVAL;
	cpumask_copy(run.on, run.cpus);
	cpumask_set_cpu(pl_waker, run.on);
	if (!pl_busy.val)
		return 0;
	if (ips_cpus_parse_online("busy", pl_busy.val, run.busy))
		return -EINVAL;
	for_each_cpu(cpu, run.busy) {
		if (!cpumask_test_cpu(cpu, run.cpus)) {
			pr_err("busy=%.64s: CPU %d is not in cpulist: no effect on where a wakee goes\n",
			       pl_busy.val, cpu);
			return -EINVAL;
		}
	}
	return 0;
}

static int __init pl_alloc(void)
{
	int cpu;

	if (!zalloc_cpumask_var(&run.cpus, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&run.busy, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&run.on, GFP_KERNEL))
		return -ENOMEM;
	run.wakees = kcalloc(pl_wakees, sizeof(*run.wakees), GFP_KERNEL);
	run.busy_tasks = kcalloc(nr_cpu_ids, sizeof(*run.busy_tasks),
				 GFP_KERNEL);
	run.llc = kcalloc(nr_cpu_ids, sizeof(*run.llc), GFP_KERNEL);
	run.placed = kcalloc(nr_cpu_ids, sizeof(*run.placed), GFP_KERNEL);
	run.lat = kvcalloc(NR_PL_SCOPES, sizeof(*run.lat), GFP_KERNEL);
	run.wait = kvcalloc(NR_PL_SCOPES, sizeof(*run.wait), GFP_KERNEL);
	if (!run.wakees || !run.busy_tasks || !run.llc || !run.placed ||
	    !run.lat || !run.wait)
		return -ENOMEM;
	for (cpu = 0; cpu < NR_PL_SCOPES; cpu++) {
		ips_hist_init(&run.lat[cpu]);
		ips_hist_init(&run.wait[cpu]);
	}
	for_each_possible_cpu(cpu)
		run.llc[cpu] = pl_llc_id(cpu);
	return 0;
}

static int __init placement_init(void)
{
	unsigned long wait = (unsigned long)(pl_duration ?: TIME_CAP_S) * HZ + 1;
	long rc;
	int ret;

	ips_clock_init();
	ret = pl_check_params();
	if (ret)
		return ret;
	init_completion(&run.go);
	init_completion(&run.done);
	ret = pl_alloc();
	if (ret)
		goto err_free;
	pl_calibrate();
	/* Before the hotplug lock: registering patches the kernel. */
	ret = pl_probes_on();
	if (ret)
		goto err_free;
	cpus_read_lock();
	ret = pl_parse_cpus();
	if (ret)
		goto err_unlock;
	ret = pl_create();
	if (ret)
		goto err_unlock;
	cpus_read_unlock();
	/*
	 * The session after the hotplug lock, not inside it: its stop
	 * unregisters tracepoint probes, which takes tracepoints_mutex,
	 * under which registering takes the hotplug lock.
	 */
	ips_session_lock(&pl_session);
	pl_release();
	ips_session_start(&pl_session, pl_duration);
	ips_session_unlock(&pl_session);
	ips_result_log_params("start");

	ips_session_control(&pl_session);
	if (!pl_numwake && !pl_duration)
		return 0;
	/* A count or a duration: inside insmod, to its end, a stop, a signal or the cap. */
	rc = ips_session_wait(&pl_session, &run.done, wait);
	if (rc < 0) {
		pl_free();
		return rc;
	}
	if (!rc && pl_numwake) {
		WRITE_ONCE(run.capped, true);
		/* Pairs with the waker's acquire: capped is seen with it. */
		smp_store_release(&run.stop, true);
	}
	ips_session_stop_request(&pl_session);
	return 0;

err_unlock:
	cpus_read_unlock();
	pl_probes_off();
err_free:
	pl_free();
	return ret;
}

static void __exit placement_exit(void)
{
	ips_session_exit(&pl_session);
	ips_session_lock(&pl_session);
	pl_free();
	ips_session_unlock(&pl_session);
}

module_init(placement_init);
module_exit(placement_exit);

MODULE_DESCRIPTION("Where the scheduler places a woken task: idle or busy, its LLC and node, its latency");
MODULE_AUTHOR("The ipistorm authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(IPISTORM_SUITE_VERSION);
