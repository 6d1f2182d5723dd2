// SPDX-License-Identifier: GPL-2.0
/*
 * ipistorm - smp_call_function storms, timed per call, with the way each
 * call reached its target CPU seen from both ends:
 *  - the sender's: how the kernel notified the target when it queued the
 *    call (set TIF_NEED_RESCHED on a target idling with TIF_POLLING_NRFLAG
 *    instead of sending an IPI, sent an IPI, or neither because the
 *    target's queue already held a call whose notification covers it);
 *  - the target's: in which context the callback ran (the idle task
 *    outside hard IRQ: the polling path; hard IRQ: a real IPI; other).
 *
 *   insmod ipistorm.ko numipi=100000 single=1 offset=8 cpulist=8 wait=1
 *
 * The storm runs inside insmod: one kthread per sender, bound to its CPU,
 * released together. A summary goes to the kernel log; the whole result
 * stays in /sys/kernel/debug/ipistorm/result until rmmod.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "../common/clock.h"
#include "../common/hist.h"
#include "../common/hook.h"
#include "../common/idle.h"
#include "../common/irqs.h"
#include "../common/param.h"
#include "../common/result.h"
#include "../common/thread.h"
#include "../common/tp.h"

#define IPISTORM_FORMAT		"ipistorm/3"
#define MAX_NUMIPI		1000000000UL
#define MAX_TIMEOUT_S		3600U
#define DEFAULT_TIME_CAP_S	600U
#define MAX_DELAY_US		1000000U
#define MAX_PAIRS_LEN		16384U
#define TARGET_ALL		(-1)

/* ---- parameters -------------------------------------------------------- */

/* A count of calls is what the published runs give: the same work each run. */
static unsigned long ipistorm_numipi;
module_param_named(numipi, ipistorm_numipi, ulong, 0444);
MODULE_PARM_DESC(numipi, "Calls per sender, fixed-count mode (calls, default 0: unset; give numipi or timeout)");

/* A fixed time instead, for rates on machines of unknown speed. */
static unsigned int ipistorm_timeout;
module_param_named(timeout, ipistorm_timeout, uint, 0444);
MODULE_PARM_DESC(timeout, "Storm length, timed mode (seconds, default 0: unset; max 3600)");

/* A count on a slow or overloaded machine must still end insmod. */
static unsigned int ipistorm_time_cap;
module_param_named(time_cap, ipistorm_time_cap, uint, 0444);
MODULE_PARM_DESC(time_cap, "Fixed-count mode: end the storm after this long even if calls remain, status=capped (seconds, default 0: 600; max 3600)");

/* The published command line's form: senders, each to sender + offset. */
static struct ips_long_string ipistorm_cpulist = { .max = IPS_MAX_CPULIST_LEN };
module_param_cb(cpulist, &ips_long_string_ops, &ipistorm_cpulist, 0444);
MODULE_PARM_DESC(cpulist, "Sender CPUs, kernel cpulist syntax such as 8 or 0-3,8; needs single= (default unset; give cpulist or pairs; up to 65536 characters)");

/* Neighbours by default; an offset reaches the other core, die or node. */
static struct ips_int_given ipistorm_offset = { .val = 1 };
module_param_cb(offset, &ips_int_given_ops, &ipistorm_offset, 0444);
MODULE_PARM_DESC(offset, "With cpulist and single=1: target CPU = sender CPU + offset (CPUs, default 1)");

/*
 * Any pairing, as topology.sh picks them. Longer than the 1024 characters
 * of a charp parameter: a 512-CPU server has 256 disjoint pairs.
 */
static struct ips_long_string ipistorm_pairs = { .max = MAX_PAIRS_LEN };
module_param_cb(pairs, &ips_long_string_ops, &ipistorm_pairs, 0444);
MODULE_PARM_DESC(pairs, "Explicit sender:target list such as 8:16,9:17, instead of cpulist/offset (default unset; up to 16384 characters)");

/* The polling path is single-target only: the choice must be explicit. */
static struct ips_bool_given ipistorm_single;
module_param_cb(single, &ips_bool_given_ops, &ipistorm_single, 0444);
MODULE_PARM_DESC(single, "1: smp_call_function_single to one target per sender; 0: smp_call_function_many to all other online CPUs (required with cpulist; pairs imply 1)");

/* Waiting makes each call a round trip; 0 lets calls queue up behind it. */
static bool ipistorm_wait = true;
module_param_cb(wait, &ips_bool_strict_ops, &ipistorm_wait, 0444);
MODULE_PARM_DESC(wait, "1: wait for each callback to finish before the next call; 0: do not (default 1)");

/* A pause lets the target go back to idle, where the polling path starts. */
static unsigned int ipistorm_delay;
module_param_named(delay, ipistorm_delay, uint, 0444);
MODULE_PARM_DESC(delay, "Sleep between calls (microseconds, default 0: never sleep; max 1000000)");

/* Per-call timing costs two clock reads per call; 0 leaves the bare loop. */
static bool ipistorm_timing = true;
module_param_cb(timing, &ips_bool_strict_ops, &ipistorm_timing, 0444);
MODULE_PARM_DESC(timing, "1: time every call (latency histogram); 0: time the storm only, for the least overhead (default 1)");

/*
 * The sender's view of delivery costs a tracepoint probe per polled call
 * and an ftrace hook per real IPI, so it is asked for.
 */
static bool ipistorm_witness;
module_param_cb(witness, &ips_bool_strict_ops, &ipistorm_witness, 0444);
MODULE_PARM_DESC(witness, "1: also count on the sending side how the kernel notified the target of each call (needs single=1); 0: do not (default 0)");

/*
 * The idle state each callback's CPU was in costs a tracepoint probe at
 * every idle entry and exit of every CPU, inside the storm: asked for.
 */
static bool ipistorm_idle_states;
module_param_cb(idle_states, &ips_bool_strict_ops, &ipistorm_idle_states, 0444);
MODULE_PARM_DESC(idle_states, "1: also count the idle state each callback's CPU was in when its call reached it, and with timing, wait and single time each call by it (a probe at every idle entry and exit, in the storm's time); 0: do not (default 0)");

/* The start line's order (ips_result_log_params()): as declared above. */
const char * const ips_params_order[] = {
	"numipi", "timeout", "time_cap", "cpulist", "offset", "pairs", "single",
	"wait", "delay", "timing", "witness", "idle_states", NULL,
};

/* ---- state ------------------------------------------------------------- */

/* Where the callbacks of one sender ran; one instance per target CPU. */
struct delivery {
	u64 poll;	/* idle task, not in hard IRQ: the TIF_POLLING path */
	u64 irq;	/* hard-IRQ context: a real IPI */
	u64 other;	/* any other context */
};

/*
 * With witness=1 and timing=1 each call is timed into the histogram of the
 * way the kernel notified its target, as the sender's witness saw it.
 */
enum ipistorm_path {
	PATH_NO_IPI,	/* TIF_NEED_RESCHED set on a polling target */
	PATH_IPI,	/* a real IPI */
	PATH_QUEUED,	/* behind a call whose notification covers it */
	NR_PATHS
};

static const char * const path_names[] = {
	[PATH_NO_IPI] = "lat_no_ipi",
	[PATH_IPI] = "lat_ipi",
	[PATH_QUEUED] = "lat_queued",
};

/* A CPU's interrupt counts (common/irqs.h): every one, call-function IPIs. */
struct irq_snap {
	u32 all;
	u32 call;
};

struct sender {
	/* Read-only during the storm; callbacks read @dlv. */
	int cpu;
	int target;
	struct delivery __percpu *dlv;
	struct task_struct *task;

	/* Written by the sender thread when its storm ends. */
	u64 sent;
	u64 expected;
	int error;
	bool capped;
	u64 start_ns;
	u64 end_ns;

	/* Written on the sender's CPU on every call, by it or its probes. */
	u64 no_ipi ____cacheline_aligned_in_smp;
	u64 ipi;
	bool in_call;	/* inside one of the storm's calls (witness=1) */
	struct ips_hist lat;
	struct ips_hist *path_lat;	/* [NR_PATHS], witness=1 timing=1 only */
	/* [idle_slots], idle_states=1 with timing, wait and single only */
	struct ips_hist *idle_lat;

	/* idle_states=1: written by the target's callback, each call. */
	unsigned int idle_slot ____cacheline_aligned_in_smp;

	/*
	 * Before and after the storm, not during it: [the storm's start,
	 * its end][the sender's CPU, the target].
	 */
	struct irq_snap irqs[2][2];
};

static struct sender **senders;
static unsigned int nr_senders;
static DEFINE_PER_CPU(struct sender *, witness_sender);

/*
 * idle_states=1: each CPU's idle entries (the probe's) and its callbacks
 * by context (poll, irq, other) and idle slot (common/idle.h), written on
 * that CPU only, with interrupts off (the probe in the idle loop, the
 * callbacks in an interrupt or the idle task's queue flush).
 */
enum { CB_POLL, CB_IRQ, CB_OTHER, NR_CB };	/* ipistorm_deliver()'s */

struct idle_cpu {
	struct ips_idle_seen idle;	/* a window: since the last callback */
	u64 cb[NR_CB][IPS_IDLE_MAX_SLOTS];
};

static struct idle_cpu __percpu *idle_cpus;
static struct ips_idle_names idle_names;
static unsigned int idle_slots;

static struct {
	bool stop ____cacheline_aligned_in_smp;
	atomic_t running ____cacheline_aligned_in_smp;
	struct completion go;
	struct completion done;
	bool capped;
} storm;

static struct ips_result result;

/*
 * The sections, compiled as one unit with this file (as the kernel's
 * kernel/sched/build_policy.c is): each uses what the ones before define.
 */
#include "witness.c"
#include "storm.c"
#include "report.c"

/* ---- checks and init --------------------------------------------------- */

static void ipistorm_free_senders(void)
{
	unsigned int i;

	for (i = 0; i < nr_senders; i++) {
		free_percpu(senders[i]->dlv);
		kvfree(senders[i]->path_lat);
		kvfree(senders[i]->idle_lat);
		kfree(senders[i]);
	}
	kfree(senders);
	senders = NULL;
	nr_senders = 0;
}

static int __init ipistorm_add_sender(int cpu, int target)
{
	struct sender *s;

	s = kzalloc_node(sizeof(*s), GFP_KERNEL, cpu_to_node(cpu));
	if (!s)
		return -ENOMEM;
	s->dlv = alloc_percpu(struct delivery);
	if (!s->dlv) {
		kfree(s);
		return -ENOMEM;
	}
	s->cpu = cpu;
	s->target = target;
	ips_hist_init(&s->lat);
	if (ipistorm_witness && ipistorm_timing) {
		enum ipistorm_path p;

		s->path_lat = kvmalloc_array(NR_PATHS, sizeof(*s->path_lat),
					     GFP_KERNEL);
		if (!s->path_lat) {
			free_percpu(s->dlv);
			kfree(s);
			return -ENOMEM;
		}
		for (p = 0; p < NR_PATHS; p++)
			ips_hist_init(&s->path_lat[p]);
	}
	/* A call's idle state reaches its sender with wait=1, one target. */
	if (ipistorm_idle_states && ipistorm_timing && ipistorm_wait &&
	    target != TARGET_ALL) {
		s->idle_lat = ips_idle_hists(&idle_names, NUMA_NO_NODE);
		if (!s->idle_lat) {
			kvfree(s->path_lat);
			free_percpu(s->dlv);
			kfree(s);
			return -ENOMEM;
		}
	}
	senders[nr_senders++] = s;
	return 0;
}

/* A pair of cpulist= or pairs= (common/param.h). */
static int __init ipistorm_add_pair(void *data, int cpu, int target)
{
	return ipistorm_add_sender(cpu, target == IPS_NO_TARGET ? TARGET_ALL :
				   target);
}

/* Refuse what has no effect: a parameter that changes nothing misleads. */
static int __init ipistorm_check_effect(void)
{
	if (ipistorm_time_cap && !ipistorm_numipi) {
		pr_err("time_cap=%u: caps fixed-count mode (numipi=); timeout= already ends a timed storm\n",
		       ipistorm_time_cap);
		return -EINVAL;
	}
	if (ipistorm_cpulist.val && !ipistorm_single.given) {
		pr_err("single: not given; with cpulist= say single=1 (one target each, sender + offset) or single=0 (every other online CPU)\n");
		return -EINVAL;
	}
	if (ipistorm_offset.given && (ipistorm_pairs.val || !ipistorm_single.val)) {
		pr_err("offset=%d: has no effect with %s\n", ipistorm_offset.val,
		       ipistorm_pairs.val ? "pairs=" : "single=0");
		return -EINVAL;
	}
	if (ipistorm_witness && ipistorm_single.given && !ipistorm_single.val) {
		pr_err("witness=1: single=0 notifies its targets through smp_call_function_many(), which the witness does not follow\n");
		return -EINVAL;
	}
	return 0;
}

/* Every check that needs no CPU; settles the defaults that depend on others. */
static int __init ipistorm_check_params(void)
{
	int ret;

	if (!ipistorm_numipi == !ipistorm_timeout) {
		pr_err("numipi=%lu timeout=%u: give exactly one of numipi (count) or timeout (seconds)\n",
		       ipistorm_numipi, ipistorm_timeout);
		return -EINVAL;
	}
	if (ipistorm_numipi > MAX_NUMIPI) {
		pr_err("numipi=%lu: more than %lu\n", ipistorm_numipi, MAX_NUMIPI);
		return -EINVAL;
	}
	if (ipistorm_timeout > MAX_TIMEOUT_S ||
	    ipistorm_time_cap > MAX_TIMEOUT_S) {
		pr_err("%s=%u: more than %u seconds\n",
		       ipistorm_timeout > MAX_TIMEOUT_S ? "timeout" : "time_cap",
		       max(ipistorm_timeout, ipistorm_time_cap), MAX_TIMEOUT_S);
		return -EINVAL;
	}
	if (ipistorm_delay > MAX_DELAY_US) {
		pr_err("delay=%u: more than %u microseconds\n", ipistorm_delay,
		       MAX_DELAY_US);
		return -EINVAL;
	}
	if (!ipistorm_cpulist.val == !ipistorm_pairs.val) {
		pr_err("cpulist=%s pairs=%s: give exactly one of cpulist or pairs\n",
		       ipistorm_cpulist.val ? "..." : "(unset)",
		       ipistorm_pairs.val ? "..." : "(unset)");
		return -EINVAL;
	}
	if (ipistorm_pairs.val && ipistorm_single.given && !ipistorm_single.val) {
		pr_err("single=0: pairs= names one target per sender, use single=1\n");
		return -EINVAL;
	}
	ret = ipistorm_check_effect();
	if (ret)
		return ret;
	if (ipistorm_pairs.val)
		ipistorm_single.val = true;
	return 0;
}

/* The senders and their targets, from online CPUs; hotplug lock held. */
static int __init ipistorm_parse_cpus(void)
{
	int ret;

	if (!ipistorm_single.val && num_online_cpus() < 2) {
		pr_err("single=0: needs at least two online CPUs\n");
		return -EINVAL;
	}
	senders = kcalloc(nr_cpu_ids, sizeof(*senders), GFP_KERNEL);
	if (!senders)
		return -ENOMEM;
	if (ipistorm_pairs.val)
		ret = ips_pairs_from_list(ipistorm_pairs.val, ipistorm_add_pair,
					  NULL);
	else
		ret = ips_pairs_from_cpulist(ipistorm_cpulist.val,
					     ipistorm_single.val ? &ipistorm_offset.val :
					     NULL, ipistorm_add_pair, NULL);
	if (ret)
		ipistorm_free_senders();
	return ret;
}

/*
 * insmod: check the parameters, start the witness, bind a sender to each
 * CPU, run the storm and report, all inside insmod.
 */
static int __init ipistorm_init(void)
{
	int ret;

	ips_clock_init();
	ret = ipistorm_check_params();
	if (ret)
		return ret;
	/* Before the hotplug lock: probes take it to patch the kernel. */
	if (ipistorm_idle_states) {
		ret = ipistorm_idle_start();
		if (ret)
			return ret;
	}
	if (ipistorm_witness) {
		ret = witness_start();
		if (ret)
			goto err_idle;
	}
	/* From the CPUs' validation to the binding of their senders. */
	cpus_read_lock();
	ret = ipistorm_parse_cpus();
	if (ret)
		goto err_unlock;
	ret = ipistorm_start();
	if (ret)
		goto err_free;
	cpus_read_unlock();
	/*
	 * After the hotplug lock: the start line takes the parameters' lock,
	 * which a parameter's store holds while taking the other modules'
	 * session locks, which are held around cpus_read_lock(). Then the
	 * bound senders go.
	 */
	ips_result_log_params("start");
	complete_all(&storm.go);

	ret = ipistorm_join();
	if (ipistorm_witness)
		witness_stop();
	ipistorm_idle_stop();
	ipistorm_warn();
	ret = ips_result_report(&result, KBUILD_MODNAME, ipistorm_result_size(),
				ipistorm_emit, ret == -EINTR) ?: ret;
	ipistorm_idle_free();
	/* Probes left in place may read the senders: keep them. */
	if (!witness_stuck)
		ipistorm_free_senders();
	return ips_init_ret(ret, witness_stuck);

err_free:
	ipistorm_free_senders();
err_unlock:
	cpus_read_unlock();
	ipistorm_idle_stop();
	ipistorm_idle_free();
	/* No sender ran: the probes read none, but they are this module's code. */
	return ips_init_ret(ret, ipistorm_witness && witness_stop());

err_idle:
	ipistorm_idle_stop();
	ipistorm_idle_free();
	/* A witness that could not unhook pins the module (witness_start()). */
	return ips_init_ret(ret, witness_stuck);
}

static void __exit ipistorm_exit(void)
{
	ips_result_free(&result);
}

module_init(ipistorm_init);
module_exit(ipistorm_exit);

MODULE_DESCRIPTION("smp_call_function storms with per-call latency and delivery accounting from both ends");
MODULE_AUTHOR("The ipistorm authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(IPISTORM_SUITE_VERSION);
