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
static int ipistorm_offset = 1;
static bool ipistorm_offset_given;

/* No value stands for "unset": offset=-2147483648 is refused as any other. */
static int ipistorm_set_offset(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_int(val, kp);

	ipistorm_offset_given |= !ret;
	return ret;
}

static const struct kernel_param_ops ipistorm_offset_ops = {
	.set	= ipistorm_set_offset,
	.get	= param_get_int,
};

module_param_cb(offset, &ipistorm_offset_ops, &ipistorm_offset, 0444);
MODULE_PARM_DESC(offset, "With cpulist and single=1: target CPU = sender CPU + offset (CPUs, default 1)");

/*
 * Any pairing, as topology.sh picks them. Longer than the 1024 characters
 * of a charp parameter: a 512-CPU server has 256 disjoint pairs.
 */
static struct ips_long_string ipistorm_pairs = { .max = MAX_PAIRS_LEN };
module_param_cb(pairs, &ips_long_string_ops, &ipistorm_pairs, 0444);
MODULE_PARM_DESC(pairs, "Explicit sender:target list such as 8:16,9:17, instead of cpulist/offset (default unset; up to 16384 characters)");

/* The polling path is single-target only: the choice must be explicit. */
static bool ipistorm_single;
static bool single_given;

static int ipistorm_set_single(const char *val, const struct kernel_param *kp)
{
	int ret = ips_bool_strict_set(val, kp);

	single_given |= !ret;
	return ret;
}

static const struct kernel_param_ops ipistorm_single_ops = {
	.set	= ipistorm_set_single,
	.get	= param_get_bool,
};

module_param_cb(single, &ipistorm_single_ops, &ipistorm_single, 0444);
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
	u64 entries;
	u64 seen;		/* entries at this CPU's last callback */
	unsigned int state;	/* the last entry's */
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

/* ---- the sender's witness ---------------------------------------------- */

/*
 * The kernel notifies a CPU of a queued call only when its queue was empty,
 * from send_call_function_single_ipi() (smp_call_function_many() too, when
 * it notified one CPU alone): it sets TIF_NEED_RESCHED on a polling idle
 * target instead of an IPI, and fires sched_wake_idle_without_ipi, or it
 * sends an IPI, through arch_send_call_function_single_ipi(), which is
 * native_send_call_func_single_ipi() on x86 (smp_ops, unless a hypervisor
 * replaced it: witness_start() checks) and an out-of-line function of its
 * own elsewhere. A call notified neither way was queued behind one whose
 * notification covers it. Hooking the IPI itself, not the decision, keeps
 * the ftrace trampoline off the polled calls: they cost the tracepoint
 * probe only.
 *
 * Both counters take one filter: the sender's task, in task context (an
 * interrupt on the sender's CPU runs with its current), for its target,
 * during one of the storm's calls (resched_curr(), wake_up_idle_cpu() and
 * a wakeup queued on the target's wake list notify it too). A call is
 * notified at most once, so the two never exceed the calls.
 */
static __always_inline struct sender *witness_match(int cpu)
{
	struct sender *s = this_cpu_read(witness_sender);

	if (s && READ_ONCE(s->in_call) && in_task() && current == s->task &&
	    cpu == s->target)
		return s;
	return NULL;
}

static notrace void witness_ipi(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *op,
				struct ftrace_regs *fregs)
{
	struct sender *s = witness_match((int)ips_hook_arg0(fregs));

	if (s)
		s->ipi++;
}

static void witness_no_ipi(void *data, int cpu)
{
	struct sender *s = witness_match(cpu);

	if (s)
		s->no_ipi++;
}

#ifdef CONFIG_X86
#define WITNESS_IPI_FN		"native_send_call_func_single_ipi"
#else
#define WITNESS_IPI_FN		"arch_send_call_function_single_ipi"
#endif

static struct ips_hook witness_hooks[] = {
	{
		.names = IPS_HOOK_NAMES(WITNESS_IPI_FN),
		.required = true,
	},
};

/*
 * One hook: its own callback, no lookup of the call site, and no flags.
 * FTRACE_OPS_FL_RECURSION would ask ftrace to add recursion protection:
 * ftrace_ops_get_func() then routes every call through
 * ftrace_ops_assist_func(), which takes the recursion lock and disables
 * preemption around our callback (on 6.1, 6.12 and 7.3 alike; so does
 * FTRACE_OPS_FL_RCU, which the callback does not need: what it counts runs
 * in the sender's task, where RCU watches, and it reads no RCU-protected
 * data). Neither is needed: witness_ipi() is notrace and calls nothing
 * traceable (this_cpu_read(), in_task(), current and ips_hook_arg0() are
 * inline), so it cannot recurse into itself; and the hooked function is
 * only called with preemption disabled (its callers queue a call on a CPU
 * they hold: smp_call_function_single()'s get_cpu() for ours).
 */
static struct ips_hook_set witness_set = {
	.hooks = witness_hooks,
	.n = ARRAY_SIZE(witness_hooks),
	.func = witness_ipi,
};

static struct tracepoint *witness_tp;

/*
 * A witness probe that the kernel refused to remove may still run and read
 * the senders (through witness_sender): they are then never freed, and the
 * module stays loaded, pinned (a failed init would free it whatever its
 * count, so init then returns 0).
 */
static bool witness_stuck;

/*
 * x86 sends the IPI through smp_ops, which Xen (for one) points elsewhere:
 * the hook would then see no IPI and every IPI would read as queued.
 */
static int __init witness_check_ipi_fn(void)
{
#ifdef CONFIG_X86
	char sym[KSYM_SYMBOL_LEN];

	sprint_symbol_no_offset(sym,
				(unsigned long)smp_ops.send_call_func_single_ipi);
	if (!ips_hook_name_is(sym, WITNESS_IPI_FN)) {
		pr_err("witness=1: this kernel sends call-function IPIs through %s, not %s (witness=0 runs without)\n",
		       sym, WITNESS_IPI_FN);
		return -ENOENT;
	}
#endif
	return 0;
}

static int __init witness_start(void)
{
	int ret;

	witness_tp = ips_tp_find("sched_wake_idle_without_ipi");
	if (!witness_tp) {
		pr_err("witness=1: no sched_wake_idle_without_ipi tracepoint (witness=0 runs without)\n");
		return -ENOENT;
	}
	ret = witness_check_ipi_fn();
	if (ret)
		return ret;
	/* On failure its one line names the function and why. */
	ret = ips_hooks_register(&witness_set);
	if (ret)
		return ret;
	ret = tracepoint_probe_register(witness_tp, witness_no_ipi, NULL);
	if (ret) {
		pr_err("witness=1: cannot probe sched_wake_idle_without_ipi: %d\n",
		       ret);
		/* Pins the module when ftrace refuses (witness_stuck). */
		if (ips_hooks_unregister(&witness_set))
			witness_stuck = true;
	}
	return ret;
}

/*
 * Every sender has stopped counting: once the probes are gone none can be
 * inside a sender. 0, or an error when one could not be removed: then
 * witness_stuck, the module pinned.
 */
static int __init witness_stop(void)
{
	int ret, err;

	ret = tracepoint_probe_unregister(witness_tp, witness_no_ipi, NULL);
	if (ret) {
		pr_err("witness=1: cannot remove the probe of sched_wake_idle_without_ipi (%d): the senders are kept and the module stays loaded\n",
		       ret);
		__module_get(THIS_MODULE);
	}
	/* Pins the module itself when ftrace refuses. */
	err = ips_hooks_unregister(&witness_set);
	tracepoint_synchronize_unregister();
	ret = ret ?: err;
	if (ret)
		witness_stuck = true;
	return ret;
}

/* ---- the storm --------------------------------------------------------- */

/* Count where sender @s's callback runs here; returns which (CB_*). */
static __always_inline unsigned int ipistorm_deliver(struct sender *s)
{
	struct delivery __percpu *dlv = s->dlv;
	unsigned int kind;

	if (in_hardirq()) {
		this_cpu_inc(dlv->irq);
		kind = CB_IRQ;
	} else if (is_idle_task(current)) {
		this_cpu_inc(dlv->poll);
		kind = CB_POLL;
	} else {
		this_cpu_inc(dlv->other);
		kind = CB_OTHER;
	}
	return kind;
}

static void ipistorm_cb(void *info)
{
	ipistorm_deliver(info);
}

/*
 * idle_states=1: the callback also counts the idle state its CPU was in
 * when the call reached it (the last one it entered since its previous
 * callback; none: it was awake) and gives it to the sender.
 */
static void ipistorm_cb_idle(void *info)
{
	struct sender *s = info;
	struct idle_cpu *c = this_cpu_ptr(idle_cpus);
	unsigned int kind = ipistorm_deliver(s);
	unsigned int slot = ips_idle_slot(&idle_names, c->entries - c->seen,
					  c->state);

	c->seen = c->entries;
	c->cb[kind][slot]++;
	/* Its sender's line: only where the sender reads it (one target). */
	if (s->idle_lat)
		WRITE_ONCE(s->idle_slot, slot);
}

static void ipistorm_nop(void *info)
{
}

/* An idle entry here, and its state (power:cpu_idle; not an exit). */
static void ipistorm_idle_probe(void *data, unsigned int state,
				unsigned int cpu)
{
	struct idle_cpu *c;

	if (state == IPS_IDLE_EXIT)
		return;
	c = this_cpu_ptr(idle_cpus);
	c->state = state;
	c->entries++;
}

static struct ips_tp_probe idle_tp = { "cpu_idle", ipistorm_idle_probe };

/* Before the hotplug lock: registering a probe patches the kernel. */
static int __init ipistorm_idle_start(void)
{
	int ret;

	ips_idle_names_init(&idle_names);
	idle_slots = ips_idle_slots(&idle_names);
	idle_cpus = alloc_percpu(struct idle_cpu);
	if (!idle_cpus)
		return -ENOMEM;
	ret = ips_tp_probe_all(&idle_tp, 1, "idle_states=1");
	if (ret) {
		free_percpu(idle_cpus);
		idle_cpus = NULL;
	}
	return ret;
}

/* Out, and no CPU inside the probe: its counts are final. */
static void ipistorm_idle_stop(void)
{
	if (idle_tp.registered)
		ips_tp_unprobe_all(&idle_tp, 1);
}

static void ipistorm_idle_free(void)
{
	free_percpu(idle_cpus);
	idle_cpus = NULL;
}

/* One call; returns the number of callbacks it queued, or -errno. */
static __always_inline int ipistorm_fire(int target, smp_call_func_t fn,
					 void *info, int w, bool many)
{
	int n;

	if (!many)
		return smp_call_function_single(target, fn, info, w) ?: 1;
	/*
	 * smp_call_function_many() reads the live online mask: preemption
	 * off only keeps CPUs from going offline (stop_machine() waits for
	 * it), a CPU can still come online between the count and the call.
	 * The hotplug lock's read side, a per-CPU counter while no hotplug
	 * is pending, keeps the mask whole; it may sleep, so it is taken
	 * first.
	 */
	cpus_read_lock();
	preempt_disable();
	n = num_online_cpus() - 1;
	smp_call_function_many(cpu_online_mask, fn, info, w);
	preempt_enable();
	cpus_read_unlock();
	return n;
}

/*
 * A target runs synchronous callbacks before asynchronous ones of the same
 * batch, so one synchronous call can return while a wait=0 callback of ours
 * is still queued behind it. The second call can only be queued after the
 * first batch was taken, so when it returns every earlier callback has run.
 */
static void ipistorm_drain(struct sender *s)
{
	bool many = s->target == TARGET_ALL;

	if (ipistorm_fire(s->target, ipistorm_nop, NULL, 1, many) < 0)
		return;
	ipistorm_fire(s->target, ipistorm_nop, NULL, 1, many);
}

/*
 * The path of the call just made, from what the witness counted during it:
 * a notification without IPI, else an IPI, else neither (queued).
 */
static __always_inline enum ipistorm_path
ipistorm_path_of(const struct sender *s, u64 *no_ipi, u64 *ipi)
{
	u64 n = READ_ONCE(s->no_ipi), i = READ_ONCE(s->ipi);
	enum ipistorm_path p = n != *no_ipi ? PATH_NO_IPI :
		      i != *ipi ? PATH_IPI : PATH_QUEUED;

	*no_ipi = n;
	*ipi = i;
	return p;
}

/*
 * The storm loop, specialised by the compiler for each combination of the
 * constant flags, so that a call costs the call, its measurement and
 * nothing else: ended by a count, or by storm.stop (the deadline, the time
 * cap or a signal), or by a sender that finds itself off its CPU (which
 * went offline): ENXIO. What the loop reads of @s and the parameters is
 * copied to locals first: the calls would force reloads of memory. With
 * LOOP_WITNESS (witness=1) the witness counts during the call only
 * (@s->in_call); the stores stay outside the timed part, and as @s is the
 * call's argument the compiler cannot move them across the call.
 */
enum ipistorm_loop_flags {
	LOOP_TIMED	= BIT(0),	/* time each call (timing=1) */
	LOOP_MANY	= BIT(1),	/* smp_call_function_many() (single=0) */
	LOOP_WITNESS	= BIT(2),	/* the witness counts during the call */
	LOOP_PATHS	= BIT(3),	/* time into the path's histogram */
	LOOP_IDLE	= BIT(4),	/* and into the idle state's (idle_lat) */
};

/* Every caller passes constant @flags: the loop is built for each. */
static __always_inline int ipistorm_loop(struct sender *s,
					 const unsigned int flags)
{
	const bool timed = flags & LOOP_TIMED, many = flags & LOOP_MANY;
	const bool wit = flags & LOOP_WITNESS;
	const bool paths = flags & LOOP_PATHS, idle = flags & LOOP_IDLE;
	const u64 limit = ipistorm_numipi ?: U64_MAX;
	const unsigned int pause = ipistorm_delay;
	const int cpu = s->cpu, target = s->target, w = ipistorm_wait;
	const smp_call_func_t cb = ipistorm_idle_states ? ipistorm_cb_idle :
							  ipistorm_cb;
	struct ips_hist *lat = &s->lat, *path_lat = s->path_lat;
	struct ips_hist *idle_lat = s->idle_lat;
	u64 sent = 0, expected = 0, t0 = 0, dt, no_ipi = 0, ipi = 0;
	int ret = 0;

	if (paths) {
		no_ipi = READ_ONCE(s->no_ipi);
		ipi = READ_ONCE(s->ipi);
	}

	while (sent < limit && !READ_ONCE(storm.stop)) {
		if (unlikely(raw_smp_processor_id() != cpu)) {
			ret = -ENXIO;
			break;
		}
		if (wit)
			WRITE_ONCE(s->in_call, true);
		if (timed)
			t0 = ips_clock_read_ordered();
		if (many)
			ret = ipistorm_fire(target, cb, s, w, true);
		else
			ret = smp_call_function_single(target, cb, s, w);
		if (timed)
			dt = ips_clock_read_ordered() - t0;
		if (wit)
			WRITE_ONCE(s->in_call, false);
		if (timed) {
			/* A failed call notified no one: in no path. */
			if (!paths)
				ips_hist_add(lat, dt);
			else if (likely(ret >= 0))
				ips_hist_add(&path_lat[ipistorm_path_of(s, &no_ipi,
									&ipi)],
					 dt);
			/*
			 * wait=1: the callback's slot is seen (csd unlock); a
			 * failed call, in lat without the witness, ran none.
			 */
			if (idle)
				ips_hist_add(&idle_lat[likely(ret >= 0) ?
						       READ_ONCE(s->idle_slot) : 0],
					     dt);
		}
		if (unlikely(ret < 0))
			break;
		sent++;
		if (many)
			expected += ret;
		if (pause)
			usleep_range(pause, pause);
		ips_thread_pause();
	}
	s->sent = sent;
	s->expected = many ? expected : sent;
	return ret < 0 ? ret : 0;
}

/* Pick the loop for the run's constants. */
static int ipistorm_storm(struct sender *s)
{
	bool many = s->target == TARGET_ALL;

	/* witness=1 needs single=1: no witness, no paths with many. */
	if (!ipistorm_timing) {
		if (many)
			return ipistorm_loop(s, LOOP_MANY);
		return ipistorm_witness ? ipistorm_loop(s, LOOP_WITNESS) :
					  ipistorm_loop(s, 0);
	}
	if (s->path_lat)
		return s->idle_lat ?
		       ipistorm_loop(s, LOOP_TIMED | LOOP_WITNESS | LOOP_PATHS |
				     LOOP_IDLE) :
		       ipistorm_loop(s, LOOP_TIMED | LOOP_WITNESS | LOOP_PATHS);
	if (s->idle_lat)
		return ipistorm_loop(s, LOOP_TIMED | LOOP_IDLE);
	return many ? ipistorm_loop(s, LOOP_TIMED | LOOP_MANY) :
		      ipistorm_loop(s, LOOP_TIMED);
}

static int ipistorm_thread(void *arg)
{
	struct sender *s = arg;
	bool stopped;

	wait_for_completion(&storm.go);
	if (ipistorm_witness)
		WRITE_ONCE(per_cpu(witness_sender, s->cpu), s);
	s->start_ns = ktime_get_ns();
	s->error = ipistorm_storm(s);
	s->end_ns = ktime_get_ns();
	WRITE_ONCE(per_cpu(witness_sender, s->cpu), NULL);
	if (s->path_lat) {
		enum ipistorm_path p;

		/* Every timed call is in one path: the sender's histogram. */
		for (p = 0; p < NR_PATHS; p++)
			ips_hist_merge(&s->lat, &s->path_lat[p]);
	}
	/*
	 * A count cut short by storm.stop is capped when the time cap set
	 * it: the acquire pairs with ipistorm_join()'s release, so a stop
	 * seen here comes with the capped written before it.
	 */
	stopped = smp_load_acquire(&storm.stop);
	s->capped = !s->error && ipistorm_numipi &&
		    s->sent < ipistorm_numipi && stopped &&
		    READ_ONCE(storm.capped);

	ipistorm_drain(s);
	if (atomic_dec_and_test(&storm.running))
		complete(&storm.done);

	ips_thread_wait_stop();
	return 0;
}

/* ---- the run ----------------------------------------------------------- */

/*
 * Create the senders bound to their CPUs and wake them, to wait for
 * storm.go. Called with the CPU-hotplug lock held since the CPUs were
 * validated, so that no sender CPU can go between its check and its
 * thread's binding.
 */
static int __init ipistorm_start(void)
{
	unsigned int i, created;
	int ret = 0;

	WRITE_ONCE(storm.stop, false);
	WRITE_ONCE(storm.capped, false);
	init_completion(&storm.go);
	init_completion(&storm.done);
	atomic_set(&storm.running, nr_senders);

	for (created = 0; created < nr_senders; created++) {
		struct sender *s = senders[created];
		struct task_struct *t;

		t = kthread_create_on_node(ipistorm_thread, s,
					   cpu_to_node(s->cpu), "ipistorm/%d",
					   s->cpu);
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			break;
		}
		kthread_bind(t, s->cpu);
		s->task = t;
	}
	if (ret) {
		/* Threads never woken exit from kthread_stop() unrun. */
		for (i = 0; i < created; i++)
			kthread_stop(senders[i]->task);
		return ret;
	}
	for (i = 0; i < nr_senders; i++)
		wake_up_process(senders[i]->task);
	return 0;
}

/* @cpu's interrupt counts into @r. */
static void ipistorm_irq_read(struct irq_snap *r, int cpu)
{
	r->all = ips_irqs(cpu);
	r->call = ips_irq_count(cpu, IPS_IRQ_CALL);
}

/* Every pair's CPUs' interrupt counts, at the storm's start (0) or end. */
static void ipistorm_irq_snap(unsigned int when)
{
	unsigned int i;

	for (i = 0; i < nr_senders; i++) {
		struct sender *s = senders[i];

		ipistorm_irq_read(&s->irqs[when][0], s->cpu);
		if (s->target != TARGET_ALL)
			ipistorm_irq_read(&s->irqs[when][1], s->target);
	}
}

/*
 * Wait for the senders; end the storm at its deadline (timed mode) or time
 * cap (fixed-count mode). Returns 0, or -EINTR when insmod was signalled.
 */
static int __init ipistorm_join(void)
{
	unsigned long left = (unsigned long)(ipistorm_numipi ?
		(ipistorm_time_cap ?: DEFAULT_TIME_CAP_S) :
		ipistorm_timeout) * HZ + 1;
	long rc;
	unsigned int i;

	rc = wait_for_completion_interruptible_timeout(&storm.done, left);
	if (rc <= 0) {
		WRITE_ONCE(storm.capped, ipistorm_numipi && !rc);
		/* Pairs with the senders' acquire: capped is seen with it. */
		smp_store_release(&storm.stop, true);
		wait_for_completion(&storm.done);
	}
	ipistorm_irq_snap(1);
	for (i = 0; i < nr_senders; i++)
		kthread_stop(senders[i]->task);
	return rc < 0 ? -EINTR : 0;
}

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
 * target) of sender @s counted during the storm other than the storm's
 * own IPIs: every one, less its call-function IPIs that ran a callback of
 * the storm (any sender's), one each at most.
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
	return all - min_t(u64, call, own);
}

/*
 * single=1: the timed calls of @s an interrupt may have come into, at
 * most: one each of its CPU's other interrupts and, with wait=1 (the
 * sender waits for the callback), its target's.
 */
static u64 ipistorm_spans_irq_max(const struct sender *s)
{
	return ipistorm_irqs_other(s, 0) +
	       (ipistorm_wait ? ipistorm_irqs_other(s, 1) : 0);
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
	seq_buf_printf(sb, "single=%d\n", ipistorm_single);
	seq_buf_printf(sb, "wait=%d\n", ipistorm_wait);
	seq_buf_printf(sb, "delay_us=%u\n", ipistorm_delay);
	seq_buf_printf(sb, "timing=%d\n", ipistorm_timing);
	seq_buf_printf(sb, "clock=%s\n", ips_clock_ordered_name());
	seq_buf_printf(sb, "witness=%d\n", ipistorm_witness);
	seq_buf_printf(sb, "idle_states=%d\n", ipistorm_idle_states);
	if (ipistorm_idle_states) {
		seq_buf_printf(sb, "idle_driver=%s\n", idle_names.driver);
		seq_buf_printf(sb, "idle_driver_changed=%d\n",
			       ips_idle_driver_changed(&idle_names));
	}
	if (!ipistorm_single)
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
 * counts in each), and with timing=1 and single=1 the timed calls they
 * may have come into, at most.
 */
static void ipistorm_emit_irqs(struct seq_buf *sb)
{
	u64 other = 0, spans = 0;
	unsigned int i;

	for (i = 0; i < nr_senders; i++) {
		const struct sender *s = senders[i];

		other += ipistorm_irqs_other(s, 0);
		if (s->target == TARGET_ALL)
			continue;
		other += ipistorm_irqs_other(s, 1);
		spans += ipistorm_spans_irq_max(s);
	}
	seq_buf_printf(sb, "total.irqs_other=%llu\n", other);
	if (ipistorm_timing && ipistorm_single)
		seq_buf_printf(sb, "total.spans_interrupted_max=%llu\n", spans);
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
	if (ipistorm_single && t.dlv.poll * 2 < ipistorm_delivered(&t.dlv))
		pr_info("only %llu of %llu callbacks ran from a polling idle task: the TIF_POLLING/SM_IDLE path was hardly exercised (idle=poll, or an idle state that polls, makes it)\n",
			t.dlv.poll, ipistorm_delivered(&t.dlv));
}

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
		unsigned int i;

		s->idle_lat = kvmalloc_array(idle_slots, sizeof(*s->idle_lat),
					     GFP_KERNEL);
		if (!s->idle_lat) {
			kvfree(s->path_lat);
			free_percpu(s->dlv);
			kfree(s);
			return -ENOMEM;
		}
		for (i = 0; i < idle_slots; i++)
			ips_hist_init(&s->idle_lat[i]);
	}
	senders[nr_senders++] = s;
	return 0;
}

static bool __init ipistorm_cpu_usable(long cpu)
{
	return cpu >= 0 && cpu < nr_cpu_ids && cpu_online(cpu);
}

/* The target of sender @cpu under cpulist=: every other CPU, or cpu + offset. */
static int __init ipistorm_offset_target(int cpu, int *target)
{
	long t = (long)cpu + ipistorm_offset;

	if (!ipistorm_single) {
		*target = TARGET_ALL;
		return 0;
	}
	if (!ipistorm_offset) {
		pr_err("offset=0: every sender would target itself\n");
		return -EINVAL;
	}
	if (!ipistorm_cpu_usable(t)) {
		pr_err("offset=%d: target %ld of sender CPU %d is not an online CPU\n",
		       ipistorm_offset, t, cpu);
		return -EINVAL;
	}
	*target = t;
	return 0;
}

static int __init ipistorm_parse_cpulist(void)
{
	cpumask_var_t mask;
	int cpu, target, ret;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	ret = ips_cpus_parse_online("cpulist", ipistorm_cpulist.val, mask);
	if (ret)
		goto out;
	for_each_cpu(cpu, mask) {
		ret = ipistorm_offset_target(cpu, &target) ?:
		      ipistorm_add_sender(cpu, target);
		if (ret)
			break;
	}
out:
	free_cpumask_var(mask);
	return ret;
}

/*
 * One pair "s:t", the @n-th, into @s and @t: online CPUs, distinct, the
 * sender not in @seen (which gets it).
 */
static int __init ipistorm_parse_pair(char *tok, unsigned int n,
				      struct cpumask *seen, unsigned int *s,
				      unsigned int *t)
{
	char *colon = strchr(tok, ':');

	if (!colon) {
		pr_err("pairs=...: pair %u '%.16s' is not sender:target\n",
		       n, tok);
		return -EINVAL;
	}
	*colon = '\0';
	if (kstrtouint(tok, 10, s) || kstrtouint(colon + 1, 10, t)) {
		pr_err("pairs=...: pair %u '%.16s:%.16s' is not two CPU numbers\n",
		       n, tok, colon + 1);
		return -EINVAL;
	}
	if (!ipistorm_cpu_usable(*s) || !ipistorm_cpu_usable(*t)) {
		pr_err("pairs=...: pair %u %u:%u names a CPU that is not online\n",
		       n, *s, *t);
		return -EINVAL;
	}
	if (*s == *t || cpumask_test_and_set_cpu(*s, seen)) {
		pr_err("pairs=...: pair %u %u:%u %s\n", n, *s, *t,
		       *s == *t ? "targets its own sender" :
		       "repeats a sender");
		return -EINVAL;
	}
	return 0;
}

/* Errors name the pair, not the whole list: it may be thousands of bytes. */
static int __init ipistorm_parse_pairs(void)
{
	char *buf, *p, *tok;
	cpumask_var_t seen;
	unsigned int n = 0;
	int ret = -ENOMEM;

	buf = kstrdup(ipistorm_pairs.val, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (!zalloc_cpumask_var(&seen, GFP_KERNEL))
		goto out_buf;
	p = buf;
	while ((tok = strsep(&p, ",")) != NULL) {
		unsigned int s, t;

		ret = ipistorm_parse_pair(tok, ++n, seen, &s, &t) ?:
		      ipistorm_add_sender(s, t);
		if (ret)
			break;
	}
	free_cpumask_var(seen);
out_buf:
	kfree(buf);
	return ret;
}

/* Refuse what has no effect: a parameter that changes nothing misleads. */
static int __init ipistorm_check_effect(void)
{
	if (ipistorm_time_cap && !ipistorm_numipi) {
		pr_err("time_cap=%u: caps fixed-count mode (numipi=); timeout= already ends a timed storm\n",
		       ipistorm_time_cap);
		return -EINVAL;
	}
	if (ipistorm_cpulist.val && !single_given) {
		pr_err("single: not given; with cpulist= say single=1 (one target each, sender + offset) or single=0 (every other online CPU)\n");
		return -EINVAL;
	}
	if (ipistorm_offset_given && (ipistorm_pairs.val || !ipistorm_single)) {
		pr_err("offset=%d: has no effect with %s\n", ipistorm_offset,
		       ipistorm_pairs.val ? "pairs=" : "single=0");
		return -EINVAL;
	}
	if (ipistorm_witness && single_given && !ipistorm_single) {
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
	if (ipistorm_pairs.val && single_given && !ipistorm_single) {
		pr_err("single=0: pairs= names one target per sender, use single=1\n");
		return -EINVAL;
	}
	ret = ipistorm_check_effect();
	if (ret)
		return ret;
	if (ipistorm_pairs.val)
		ipistorm_single = true;
	return 0;
}

/* The senders and their targets, from online CPUs; hotplug lock held. */
static int __init ipistorm_parse_cpus(void)
{
	int ret;

	if (!ipistorm_single && num_online_cpus() < 2) {
		pr_err("single=0: needs at least two online CPUs\n");
		return -EINVAL;
	}
	senders = kcalloc(nr_cpu_ids, sizeof(*senders), GFP_KERNEL);
	if (!senders)
		return -ENOMEM;
	ret = ipistorm_pairs.val ? ipistorm_parse_pairs() :
				   ipistorm_parse_cpulist();
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
	ipistorm_irq_snap(0);
	complete_all(&storm.go);

	ret = ipistorm_join();
	if (ipistorm_witness)
		witness_stop();
	ipistorm_idle_stop();
	ipistorm_warn();
	ret = ips_result_report(&result, KBUILD_MODNAME, ipistorm_result_size(),
				ipistorm_emit, ret == -EINTR) ?: ret;
	ipistorm_idle_free();
	/* Probes left in place may read the senders: keep them, stay loaded. */
	if (witness_stuck)
		return 0;
	ipistorm_free_senders();
	return ret;

err_free:
	ipistorm_free_senders();
err_unlock:
	cpus_read_unlock();
	ipistorm_idle_stop();
	ipistorm_idle_free();
	/* No sender ran: the probes read none, but they are this module's code. */
	if (ipistorm_witness && witness_stop())
		return 0;
	return ret;

err_idle:
	ipistorm_idle_stop();
	ipistorm_idle_free();
	/* A witness that could not unhook pins the module (witness_start()). */
	return witness_stuck ? 0 : ret;
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
