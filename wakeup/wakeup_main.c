// SPDX-License-Identifier: GPL-2.0
/*
 * wakeup - wake-ups of tasks sleeping on idle CPUs, timed one by one and
 * each attributed to the path the kernel took to notify the target:
 *  - wl_poll: the wakee was queued on the target's wake list and the
 *    target, idling with TIF_POLLING_NRFLAG, was sent TIF_NEED_RESCHED
 *    instead of an IPI;
 *  - wl_ipi: the wake list and a real call-function IPI;
 *  - rq_poll: the waker enqueued the wakee on the target's runqueue
 *    itself and resched_curr() set TIF_NEED_RESCHED on the polling target;
 *  - rq_ipi: the remote enqueue and a real reschedule IPI;
 *  - busy: no notification (the target was not idle, or a notification
 *    already pending covered this one).
 *
 *   insmod wakeup.ko numwake=20000 pairs=0:1
 *
 * One sender kthread per sender CPU (released together) wakes a wakee
 * kthread bound to its target CPU, waits for it to run, then for it to be
 * back asleep, and again. With rpc=1 the sender instead queues a
 * call-function on the target whose callback wakes the sender, asleep
 * meanwhile: the round trip, split by the call's delivery and by the
 * wake-up's path back.
 *
 * The paths are told from four tracepoints, found by name:
 * sched:sched_wakeup (on the target: the wake list; on the waker: the
 * remote enqueue), sched:sched_wake_idle_without_ipi (on the waker: the
 * target polled), irq_vectors:call_function_single_entry and
 * irq_vectors:reschedule_entry (on the target: a real IPI). Another,
 * power:cpu_idle, says which idle state the wakee's CPU was in when it
 * was notified (common/idle.h): each path is split by it too.
 *
 * A count runs inside insmod (a signal ends it, unreported); duration=
 * seconds too; with neither, the senders run until stopped: "stop" to
 * /sys/kernel/debug/wakeup/control, 1 to the stop parameter, or rmmod.
 * A summary goes to the kernel log; the whole result stays in
 * /sys/kernel/debug/wakeup/result until rmmod.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/jump_label.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#ifdef CONFIG_X86
#include <asm/smp.h>
#endif

#include "../common/clock.h"
#include "../common/hist.h"
#include "../common/idle.h"
#include "../common/irqs.h"
#include "../common/param.h"
#include "../common/result.h"
#include "../common/session.h"
#include "../common/thread.h"
#include "../common/tp.h"

#define WAKEUP_FORMAT		"wakeup/4"
#define MAX_NUMWAKE		100000000UL
#define MAX_DURATION_S		3600U
#define TIME_CAP_S		600U
#define MAX_DELAY_US		1000000U
#define MAX_PAIRS_LEN		16384U
#define CALIB_HITS		1000U
#define CALIB_RUNS		5U
/* A pair's skew bound above this share of its fastest wake-up: unproven. */
#define SKEW_LIMIT_PCT		50U

/* ---- parameters -------------------------------------------------------- */

static unsigned long wk_numwake;
module_param_named(numwake, wk_numwake, ulong, 0444);
MODULE_PARM_DESC(numwake, "Wake-ups per sender, run inside insmod (count, default 0: unset; max 100000000)");

static unsigned int wk_duration;
module_param_named(duration, wk_duration, uint, 0444);
MODULE_PARM_DESC(duration, "Run for this long inside insmod instead of a count (seconds, default 0: unset; max 3600); with neither, run until stopped");

static struct ips_long_string wk_cpulist = { .max = IPS_MAX_CPULIST_LEN };
module_param_cb(cpulist, &ips_long_string_ops, &wk_cpulist, 0444);
MODULE_PARM_DESC(cpulist, "Sender CPUs, kernel cpulist syntax; each wakes a task on sender + offset (give cpulist or pairs)");

static struct ips_int_given wk_offset = { .val = 1 };
module_param_cb(offset, &ips_int_given_ops, &wk_offset, 0444);
MODULE_PARM_DESC(offset, "With cpulist: target CPU = sender CPU + offset (CPUs, default 1)");

static struct ips_long_string wk_pairs = { .max = MAX_PAIRS_LEN };
module_param_cb(pairs, &ips_long_string_ops, &wk_pairs, 0444);
MODULE_PARM_DESC(pairs, "Explicit sender:target list such as 0:1,2:3, instead of cpulist/offset; no CPU in two pairs");

static bool wk_rpc;
module_param_cb(rpc, &ips_bool_strict_ops, &wk_rpc, 0444);
MODULE_PARM_DESC(rpc, "1: the sender queues a call-function on the target whose callback wakes the sender; 0: the sender wakes a task on the target (default 0)");

static bool wk_timing = true;
module_param_cb(timing, &ips_bool_strict_ops, &wk_timing, 0444);
MODULE_PARM_DESC(timing, "1: time and attribute every wake-up (tracepoint probes); 0: count only, no probe, no clock read (default 1)");

/* Without the idle probe, what its hits cost the timed wake-ups is gone. */
static struct ips_bool_given wk_idle_states = { .val = true };
module_param_cb(idle_states, &ips_bool_given_ops, &wk_idle_states, 0444);
MODULE_PARM_DESC(idle_states, "1: also split the timed wake-ups by the idle state the wakee's CPU was in (a probe at every idle entry and exit); 0: leave that probe out (timing=1 only; default 1)");

static unsigned int wk_delay;
module_param_named(delay, wk_delay, uint, 0444);
MODULE_PARM_DESC(delay, "Sleep between wake-ups (microseconds, default 0; max 1000000)");

static unsigned int wk_test_interrupt;
module_param_named(test_interrupt, wk_test_interrupt, uint, 0444);
MODULE_PARM_DESC(test_interrupt, "Test only: raise an interrupt inside every timed wake-up, to check that spans_interrupted counts it: 1 an irq_work's self-IPI on the sender, 2 a reschedule IPI to the target (timing=1, x86 only; default 0)");

static void wakeup_finish(bool interrupted);
static struct ips_session wk_session = IPS_SESSION_INIT(wk_session, wakeup_finish);
module_param_cb(stop, &ips_session_stop_ops, &wk_session, 0644);
MODULE_PARM_DESC(stop, "Write 1 to end a run early, as \"stop\" to the debugfs control file does");

/* The start line's order: the declarations' (common/result.c). */
const char * const ips_params_order[] = {
	"numwake", "duration", "cpulist", "offset", "pairs", "rpc", "timing",
	"idle_states", "delay", "test_interrupt", "stop", NULL,
};

/* ---- paths --------------------------------------------------------------- */

enum wk_scope {
	WK_TOTAL,
	WK_WL_POLL,
	WK_WL_IPI,
	WK_RQ_POLL,
	WK_RQ_IPI,
	WK_BUSY,
	WK_CALL_POLL,	/* rpc=1: how the call reached the target */
	WK_CALL_IPI,
	WK_CALL_OTHER,
	NR_WK_SCOPES
};

#define WK_FIRST_PATH	WK_WL_POLL
#define WK_LAST_PATH	WK_BUSY

static const char * const wk_scope_names[NR_WK_SCOPES] = {
	[WK_TOTAL] = "total",
	[WK_WL_POLL] = "wl_poll",
	[WK_WL_IPI] = "wl_ipi",
	[WK_RQ_POLL] = "rq_poll",
	[WK_RQ_IPI] = "rq_ipi",
	[WK_BUSY] = "busy",
	[WK_CALL_POLL] = "call_poll",
	[WK_CALL_IPI] = "call_ipi",
	[WK_CALL_OTHER] = "call_other",
};

/*
 * What the probes counted on one CPU of a pair, written on that CPU only
 * (this_cpu ops: an interrupt cannot tear them) and read by the pair's
 * threads at the end of a wake-up: a snapshot.
 */
struct wk_counts {
	u64 act[2];	/* sched_wakeup here of [0] the wakee, [1] the sender */
	u64 noipi;	/* sched_wake_idle_without_ipi here for the peer CPU */
	u64 cfs_ipi;	/* call_function_single_entry here */
	u64 res_ipi;	/* reschedule_entry here */
	u64 cf_ipi;	/* call_function_entry here (not a path's) */
	u64 hits;	/* the probe calls that counted: the above, idle exits */
	u64 kcall;	/* the kernel's call-function IRQ count here */
	u64 kres;	/* the kernel's reschedule IRQ count here */
	u64 idle_in;	/* cpu_idle entries here */
	unsigned int idle;	/* the state of the last one */
	unsigned int irqs;	/* the kernel's interrupts here (ips_irqs()) */
};

struct wk_cpu {
	struct wk_counts n;
	struct task_struct *task[2];	/* the pair's wakee and sender */
	int peer;
	bool on;
};

static DEFINE_PER_CPU_ALIGNED(struct wk_cpu, wk_cpu);

/* ---- state --------------------------------------------------------------- */

struct wk_sender {
	int cpu;
	int target;
	struct task_struct *task;
	struct task_struct *wakee;	/* rpc=0 */
	call_single_data_t csd;		/* rpc=1 */

	/* Written by the sender. */
	u64 sent;
	u64 woken;
	u64 unclassified;
	/*
	 * Timed from the sender's clock to the wakee's CPU's, which read
	 * earlier: the two CPUs' clocks apart by more than the latency.
	 */
	u64 backwards;
	u64 hits;
	u64 sign[6];		/* per tracepoint: its IPI missed (wk_sign()) */
	u64 start_ns;
	u64 end_ns;
	struct ips_clock_skew skew;	/* the target's clock vs this CPU's */
	int error;
	bool capped;
	u64 count[NR_WK_SCOPES];
	u64 intr[NR_WK_SCOPES];	/* of count[]: spans an interrupt came into */
	/*
	 * timing=1: [NR_WK_SCOPES] per scope, then [wk_last_scope() + 1]
	 * [wk_slots] per scope and the wakee's CPU's idle state (wk_hist()).
	 */
	struct ips_hist *hist;

	/* Written by the sender, read on the target. */
	unsigned long seq ____cacheline_aligned_in_smp;

	/* Written on the target (the wakee, or the call's callback). */
	unsigned long ack ____cacheline_aligned_in_smp;
	u64 t1;
	bool woke;			/* rpc=1: the callback woke the sender */
	/*
	 * The target's counts, copied there at each ack: rpc=0 into
	 * tn[seq & 1], beside the previous ack's (wk_wake_delta()); rpc=1
	 * into tn[0].
	 */
	struct wk_counts tn[2];
	bool wrong_cpu;
	bool ready;			/* the wakee is in its loop */

	/* Both CPUs, before the run: their clocks' skew (rpc=0, timing=1). */
	struct ips_clock_ping ping ____cacheline_aligned_in_smp;
	struct completion ping_go;	/* the wakee may answer */
	struct completion turn;		/* the sender may lead */
	struct wk_sender *next;		/* the next to lead */
};

static struct wk_sender **senders;
static unsigned int nr_senders;

/* The idle states' names, and their slots (idle.h), read at init. */
static struct ips_idle_names wk_idle;
static unsigned int wk_slots;

static struct {
	bool stop ____cacheline_aligned_in_smp;
	atomic_t running ____cacheline_aligned_in_smp;
	struct completion go;
	struct completion done;
	bool capped;
	bool probes;
	u32 hit_ps;		/* calibrated cost of one probe hit, ps */
	unsigned int irq_call[2], irq_res[2];	/* pair CPUs' IRQ counts, start */
} run;

/*
 * The sections, compiled as one unit with this file (as the kernel's
 * kernel/sched/build_policy.c is): each uses what the ones before define.
 */
#include "probes.c"
#include "loop.c"
#include "report.c"

/* ---- checks and init ----------------------------------------------------- */

static int __init wk_add_sender(int cpu, int target, struct cpumask *used)
{
	struct wk_sender *s;
	unsigned int p, n;

	if (cpumask_test_cpu(cpu, used) || cpumask_test_cpu(target, used)) {
		pr_err("%s: CPU %d is in two pairs: each CPU would see the other pair's IPIs\n",
		       wk_pairs.val ? "pairs" : "offset",
		       cpumask_test_cpu(cpu, used) ? cpu : target);
		return -EINVAL;
	}
	cpumask_set_cpu(cpu, used);
	cpumask_set_cpu(target, used);
	s = kzalloc_node(sizeof(*s), GFP_KERNEL, cpu_to_node(cpu));
	if (!s)
		return -ENOMEM;
	s->cpu = cpu;
	s->target = target;
	init_completion(&s->ping_go);
	init_completion(&s->turn);
	if (wk_timing) {
		n = NR_WK_SCOPES + (wk_last_scope() + 1) * wk_slots;
		s->hist = kvmalloc_array(n, sizeof(*s->hist), GFP_KERNEL);
		if (!s->hist) {
			kfree(s);
			return -ENOMEM;
		}
		for (p = 0; p < n; p++)
			ips_hist_init(&s->hist[p]);
	}
	if (nr_senders)
		senders[nr_senders - 1]->next = s;
	senders[nr_senders++] = s;
	return 0;
}

/* A pair of cpulist= or pairs= (common/param.h); @data: the CPUs used. */
static int __init wk_add_pair(void *data, int cpu, int target)
{
	return wk_add_sender(cpu, target, data);
}

/* Every check that needs no CPU; a parameter without effect is refused. */
static int __init wk_check_params(void)
{
	int ret = ips_param_count_or_duration("numwake", wk_numwake,
					      MAX_NUMWAKE, wk_duration,
					      MAX_DURATION_S);

	if (ret)
		return ret;
	if (wk_delay > MAX_DELAY_US) {
		pr_err("delay=%u: more than %u microseconds\n", wk_delay,
		       MAX_DELAY_US);
		return -EINVAL;
	}
	if (!wk_cpulist.val == !wk_pairs.val) {
		pr_err("cpulist=%s pairs=%s: give exactly one of cpulist or pairs\n",
		       wk_cpulist.val ? "..." : "(unset)",
		       wk_pairs.val ? "..." : "(unset)");
		return -EINVAL;
	}
	if (wk_offset.given && wk_pairs.val) {
		pr_err("offset=%d: has no effect with pairs=\n", wk_offset.val);
		return -EINVAL;
	}
	if (wk_idle_states.given && !wk_timing) {
		pr_err("idle_states=%d: has no effect with timing=0, which probes nothing\n",
		       wk_idle_states.val);
		return -EINVAL;
	}
	return ips_test_irq_check(wk_test_interrupt, wk_timing, "timing=1");
}

/* test_interrupt=: each CPU's interrupt work, then the loops' key. */
static void __init wk_test_irq_init(void)
{
	ips_test_irq_init(&wk_test_work);
	static_branch_enable(&wk_test_irq);
}

static int __init wk_parse_cpus(void)
{
	cpumask_var_t used;
	int ret;

	if (!zalloc_cpumask_var(&used, GFP_KERNEL))
		return -ENOMEM;
	senders = kcalloc(nr_cpu_ids, sizeof(*senders), GFP_KERNEL);
	if (!senders) {
		free_cpumask_var(used);
		return -ENOMEM;
	}
	if (wk_pairs.val)
		ret = ips_pairs_from_list(wk_pairs.val, wk_add_pair, used);
	else
		ret = ips_pairs_from_cpulist(wk_cpulist.val, &wk_offset.val,
					     wk_add_pair, used);
	free_cpumask_var(used);
	if (ret)
		wk_free_senders();
	return ret;
}

static int __init wakeup_init(void)
{
	unsigned long wait = (unsigned long)(wk_duration ?: TIME_CAP_S) * HZ + 1;
	long rc;
	int ret;

	ips_clock_init();
	ret = wk_check_params();
	if (ret)
		return ret;
	init_completion(&run.go);
	init_completion(&run.done);
	if (wk_test_interrupt)
		wk_test_irq_init();
	if (wk_timing) {
		ips_idle_names_init(&wk_idle);
		wk_slots = wk_idle_states.val ? ips_idle_slots(&wk_idle) : 0;
		wk_calibrate();
		/* Before the hotplug lock: registering patches the kernel. */
		ret = wk_probes_on();
		if (ret)
			return ret;
	}
	cpus_read_lock();
	ret = wk_parse_cpus();
	if (ret)
		goto err_unlock;
	ret = wk_create();
	if (ret)
		goto err_free;
	cpus_read_unlock();
	/*
	 * The senders are bound: the session after the hotplug lock, not
	 * inside it, as its stop unregisters tracepoint probes, which takes
	 * tracepoints_mutex, under which registering takes the hotplug lock.
	 */
	atomic_set(&run.running, nr_senders);
	ips_session_lock(&wk_session);
	wk_release();
	ips_session_start(&wk_session, wk_duration);
	ips_session_unlock(&wk_session);
	ips_result_log_params("start");

	ips_session_control(&wk_session);
	if (!wk_numwake && !wk_duration)
		return 0;
	/*
	 * A count or a duration: inside insmod, to its end (or every
	 * sender's, on an error), a stop, a signal or the count's cap.
	 */
	rc = ips_session_wait(&wk_session, &run.done, wait);
	if (rc < 0) {
		wk_free_senders();
		return rc;
	}
	if (!rc && wk_numwake) {
		WRITE_ONCE(run.capped, true);
		/* Pairs with the senders' acquire: capped is seen with it. */
		smp_store_release(&run.stop, true);
	}
	ips_session_stop_request(&wk_session);
	return 0;

err_free:
	wk_free_senders();
err_unlock:
	cpus_read_unlock();
	wk_probes_off();
	return ret;
}

static void __exit wakeup_exit(void)
{
	ips_session_exit(&wk_session);
	ips_session_lock(&wk_session);
	wk_free_senders();
	ips_session_unlock(&wk_session);
}

module_init(wakeup_init);
module_exit(wakeup_exit);

MODULE_DESCRIPTION("Wake-ups of tasks on idle CPUs, timed and attributed to the kernel's notification path");
MODULE_AUTHOR("The ipistorm authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(IPISTORM_SUITE_VERSION);
