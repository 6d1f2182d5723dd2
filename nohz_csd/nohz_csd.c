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
#include <linux/utsname.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "../common/hist.h"
#include "../common/hook.h"
#include "../common/param.h"
#include "../common/result.h"
#include "../common/session.h"
#include "../common/thread.h"

#define NC_FORMAT		"nohz_csd/3"
#define MAX_DURATION_S		3600U
#define MAX_LOAD_THREADS	16U
#define DEF_LOAD_THREADS	2U

/* ---- parameters -------------------------------------------------------- */

/* Kicks go to one idle CPU at a time: watch the CPUs that can get them. */
static struct ips_long_string cpulist = { .max = IPS_MAX_CPULIST_LEN };
module_param_cb(cpulist, &ips_long_string_ops, &cpulist, 0444);
MODULE_PARM_DESC(cpulist, "CPUs whose incoming kicks are counted, kernel cpulist syntax (default: every online CPU; up to 65536 characters)");

/* A kick needs a busy CPU: make one, or leave it unset to watch a real load. */
static struct ips_long_string load_cpus = { .max = IPS_MAX_CPULIST_LEN };
module_param_cb(load_cpus, &ips_long_string_ops, &load_cpus, 0444);
MODULE_PARM_DESC(load_cpus, "CPUs that get CPU-bound kthreads so that their tick kicks an idle CPU, not every online CPU (default unset: watch an external load; up to 65536 characters)");

/*
 * A CPU kicks only with two runnable tasks; more for kernels that need
 * them. Refused without load_cpus, where it would change nothing.
 */
static unsigned int load_threads = DEF_LOAD_THREADS;
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

module_param_cb(load_threads, &nc_load_threads_ops, &load_threads, 0444);
MODULE_PARM_DESC(load_threads, "CPU-bound kthreads per load CPU, only with load_cpus; a kick needs two runnable tasks (threads, default 2, max 16)");

/* A fixed length for scripts; 0 watches whatever the user runs meanwhile. */
static unsigned int duration;
module_param(duration, uint, 0444);
MODULE_PARM_DESC(duration, "Watch for this long inside insmod, then report (seconds, default 0: watch until stopped through the 'stop' parameter, debugfs control or rmmod; max 3600)");

/* A hook on a wrong function must read unproven: show that it does. */
static char *test_misname;
module_param(test_misname, charp, 0444);
MODULE_PARM_DESC(test_misname, "Test only: put the hook of this function (such as _nohz_idle_balance) on one never called, to check that its proof reads unproven (default unset)");

/* Ends an until-stopped run where debugfs refuses writes (lockdown). */
static struct ips_session nc_session = IPS_SESSION_INIT(nc_session);
module_param_cb(stop, &ips_session_stop_ops, &nc_session, 0644);
MODULE_PARM_DESC(stop, "Write 1 to end a run without duration= and publish its result, as writing 'stop' to debugfs control does (works under kernel lockdown); reads 1 once the measurement ended");

/* ---- state ------------------------------------------------------------- */

enum { DLV_POLL, DLV_IRQ, DLV_OTHER, NR_DLV };

static const char * const dlv_name[NR_DLV] = {
	"kick_poll", "kick_irq", "kick_other",
};

/*
 * Per watched CPU, written only by probes running on that CPU (and read by
 * the report once no probe can run). Each is a separate allocation of a
 * cache-line multiple on the CPU's node: no two CPUs share a line.
 */
struct nc_cpu {
	/* Inside a counted nohz_csd_func() call; it raised SCHED_SOFTIRQ. */
	bool in_csd;
	bool csd_raised;
	/* A SCHED_SOFTIRQ run serving kicks, before its balance. */
	bool serving;
	/* Raised kicks that no SCHED_SOFTIRQ run served yet; the oldest's time. */
	unsigned int awaiting;
	u64 t_kick;
	u64 t_serve;
	unsigned int served;	/* kicks the serving run took over */
	/*
	 * Inside a SCHED_SOFTIRQ run; it called the balance; kicks raised
	 * while it ran and before its balance (interrupts are on in a
	 * softirq's action), the first one's time.
	 */
	bool in_run;
	bool run_balanced;
	unsigned int mid;
	u64 t_mid;
	/*
	 * Of the last run that balanced with such kicks in: how many, whether
	 * it served a kick of its own, when it balanced and the first's time.
	 * The next run tells whether that balance consumed their flags.
	 */
	unsigned int consumed;
	bool consumed_serving;
	u64 t_consumed;
	u64 t_consumed_kick;
	/* Kicks dropped in the idle task: does a task run next, or idle? */
	unsigned int drops_open;
	unsigned int poll_drops_open;

	u64 kicks;
	u64 dlv[NR_DLV];
	u64 raised;
	u64 dropped_idle;
	u64 dropped_busy;
	u64 dropped_poll;
	u64 dropped_pending;
	u64 dropped_woken;
	u64 dropped_lost;
	u64 dropped_unresolved;
	u64 dropped_poll_lost;
	u64 softirqs;
	u64 balanced;
	u64 unbalanced;
	u64 merged;
	u64 unserved;
	u64 midrun;
	u64 ksoftirqd_wakeups;
	u64 tick_stops;
	unsigned int fired;	/* BIT(hook index) of every hook hit here */
	struct ips_hist delay;
} ____cacheline_aligned_in_smp;

static struct nc_cpu **nc_state;	/* [nr_cpu_ids], NULL when unwatched */
static cpumask_var_t nc_mask, nc_load_mask;

static bool nc_kprobes;
static unsigned long nc_missed_base, nc_missed;
static struct task_struct **nc_load;
static unsigned int nr_load;
static bool nc_load_stop;

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

static inline struct nc_cpu *nc_this(void)
{
	return nc_state[raw_smp_processor_id()];
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
	u64 t;
};

static int nc_csd_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct nc_csd_data *d = (struct nc_csd_data *)ri->data;
	struct nc_cpu *c;

	if (!ips_session_measuring(&nc_session))
		return 1;
	c = nc_this();
	if (!c)
		return 1;
	c->kicks++;
	d->idle = is_idle_task(current);
	if (in_hardirq())
		d->dlv = DLV_IRQ;
	else if (d->idle)
		d->dlv = DLV_POLL;
	else
		d->dlv = DLV_OTHER;
	c->dlv[d->dlv]++;
	d->was_pending = sched_softirq_pending();
	d->t = sched_clock();
	c->csd_raised = false;
	c->in_csd = true;
	return 0;
}

static int nc_csd_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct nc_csd_data *d = (struct nc_csd_data *)ri->data;
	struct nc_cpu *c = nc_this();

	if (!c)
		return 0;
	c->in_csd = false;
	if (c->csd_raised) {
		c->raised++;
		if (!c->awaiting++)
			c->t_kick = d->t;
		/* Its flags may be read by the run this interrupt cut into. */
		if (c->in_run && !c->run_balanced && !c->mid++)
			c->t_mid = d->t;
		return 0;
	}
	if (d->idle) {
		c->dropped_idle++;
		c->drops_open++;
	} else {
		c->dropped_busy++;
	}
	if (d->dlv == DLV_POLL) {
		c->dropped_poll++;
		c->poll_drops_open++;
	}
	if (d->was_pending)
		c->dropped_pending++;
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
	if (!c || !c->in_csd)
		return 0;
	t = (struct task_struct *)regs_get_kernel_argument(regs, 0);
	if (t && (t->flags & PF_KTHREAD) && !strncmp(t->comm, "ksoftirqd/", 10))
		c->ksoftirqd_wakeups++;
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
static void nc_tp_raise(void *data, unsigned int vec)
{
	struct nc_cpu *c;

	if (vec != SCHED_SOFTIRQ)
		return;
	c = nc_this();
	if (c && c->in_csd)
		c->csd_raised = true;
}

static void nc_tp_entry(void *data, unsigned int vec)
{
	unsigned long flags;
	struct nc_cpu *c;

	if (vec != SCHED_SOFTIRQ || !ips_session_measuring(&nc_session))
		return;
	c = nc_this();
	if (!c)
		return;
	/* A kick's return handler (hard IRQ) also writes awaiting and mid. */
	local_irq_save(flags);
	c->in_run = true;
	c->run_balanced = false;
	c->mid = 0;
	c->served = 0;
	if (c->awaiting) {
		c->softirqs++;
		c->merged += c->awaiting - 1;
		c->served = c->awaiting;
		c->awaiting = 0;
		c->t_serve = c->t_kick;
		c->serving = true;
	}
	local_irq_restore(flags);
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
		c->unbalanced++;
		return;
	}
	c->midrun += c->served;
	if (c->consumed_serving) {
		c->softirqs--;
		c->merged++;
	} else {
		c->balanced++;
		ips_hist_add(&c->delay, c->t_consumed - c->t_consumed_kick);
	}
}

static void nc_tp_exit(void *data, unsigned int vec)
{
	struct nc_cpu *c;

	if (vec != SCHED_SOFTIRQ)
		return;
	c = nc_this();
	if (!c || !c->in_run)
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

	if (c && c->drops_open) {
		c->dropped_woken += c->drops_open;
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
	{ "softirq_raise", nc_tp_raise },
	{ "softirq_entry", nc_tp_entry },
	{ "softirq_exit", nc_tp_exit },
	{ "sched_switch", nc_tp_switch },
};

static void nc_find_tp(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nc_tps); i++)
		if (!strcmp(tp->name, nc_tps[i].name))
			nc_tps[i].tp = tp;
}

/* ftrace hooks: the nohz idle balance, tick stops, idle rounds. */

/*
 * _nohz_idle_balance() also runs from do_idle() (nohz_run_idle_balance(),
 * blocked-load updates): only a call inside the SCHED_SOFTIRQ run that
 * serves a kick is that kick's balance.
 */
enum { HK_BALANCE, HK_TICK_STOP, HK_DO_IDLE, NR_HK };

static __always_inline void nc_balance_on(struct nc_cpu *c)
{
	unsigned long flags;

	c->fired |= BIT(HK_BALANCE);
	if (!in_serving_softirq())
		return;
	if (c->in_run && !c->run_balanced) {
		/* A kick's return handler (hard IRQ) writes mid. */
		local_irq_save(flags);
		c->run_balanced = true;
		c->consumed = c->mid;
		c->consumed_serving = c->serving;
		c->t_consumed = sched_clock();
		c->t_consumed_kick = c->t_mid;
		local_irq_restore(flags);
	}
	if (c->serving) {
		c->serving = false;
		c->balanced++;
		ips_hist_add(&c->delay, sched_clock() - c->t_serve);
	}
}

DEFINE_HOOK(nc_balance, struct nc_cpu, nc_this, nc_balance_on);

static __always_inline void nc_tick_stop_on(struct nc_cpu *c)
{
	c->fired |= BIT(HK_TICK_STOP);
	if (ips_session_measuring(&nc_session))
		c->tick_stops++;
}

DEFINE_HOOK(nc_tick_stop, struct nc_cpu, nc_this, nc_tick_stop_on);

static __always_inline void nc_do_idle_on(struct nc_cpu *c)
{
	unsigned long flags;

	c->fired |= BIT(HK_DO_IDLE);
	if (!READ_ONCE(c->drops_open))
		return;
	/* Interrupts are on here, and a kick's return handler adds drops. */
	local_irq_save(flags);
	c->dropped_lost += c->drops_open;
	c->dropped_poll_lost += c->poll_drops_open;
	c->drops_open = 0;
	c->poll_drops_open = 0;
	local_irq_restore(flags);
}

DEFINE_HOOK(nc_do_idle, struct nc_cpu, nc_this, nc_do_idle_on);

static struct ips_hook nc_hooks[] = {
	/* Static; Debian's builds name it _nohz_idle_balance.isra.0. */
	[HK_BALANCE] = { IPS_HOOK_NAMES("_nohz_idle_balance", "_nohz_idle_balance.*"),
			 nc_balance },
	[HK_TICK_STOP] = { IPS_HOOK_NAMES("tick_nohz_idle_stop_tick"), nc_tick_stop },
	[HK_DO_IDLE] = { IPS_HOOK_NAMES("do_idle"), nc_do_idle, true },
};

/* Never called: where test_misname= puts a hook. */
static noinline __used void nc_decoy(void)
{
	barrier();
}

static struct ips_hook_set nc_hook_set = {
	.hooks = nc_hooks, .n = ARRAY_SIZE(nc_hooks),
	.decoy = "nc_decoy",
};

static unsigned long nc_probe_misses(void)
{
	return nc_csd_probe.nmissed + nc_csd_probe.kp.nmissed +
	       nc_wake_probe.nmissed;
}

/* Both return once no CPU is inside a handler. */
static void nc_unregister_kprobes(struct work_struct *work)
{
	unregister_kprobe(&nc_wake_probe);
	unregister_kretprobe(&nc_csd_probe);
}

static DECLARE_WORK(nc_kprobes_work, nc_unregister_kprobes);

/*
 * The grace periods of ftrace, of the tracepoints and of the kprobes run
 * at once, two of them in workers: each counts against a stop's second.
 * The kprobes go first: on ftrace they take ftrace's lock, which the
 * removal of the hooks holds through its RCU-tasks grace period.
 */
static void nc_unhook(void)
{
	unsigned int i;

	if (nc_kprobes)
		schedule_work(&nc_kprobes_work);
	ips_hooks_unregister_start(&nc_hook_set);
	for (i = 0; i < ARRAY_SIZE(nc_tps); i++) {
		if (!nc_tps[i].registered)
			continue;
		tracepoint_probe_unregister(nc_tps[i].tp, nc_tps[i].probe, NULL);
		nc_tps[i].registered = false;
	}
	tracepoint_synchronize_unregister();
	if (nc_kprobes) {
		flush_work(&nc_kprobes_work);
		nc_kprobes = false;
	}
	ips_hooks_unregister_wait(&nc_hook_set);
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
	nc_kprobes = true;

	for_each_kernel_tracepoint(nc_find_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(nc_tps); i++) {
		struct nc_tp *t = &nc_tps[i];

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

	nc_hook_set.misname = test_misname;
	ret = ips_hooks_register(&nc_hook_set);
	if (ret)
		nc_unhook();
	return ret;
}

static int nc_load_thread(void *arg)
{
	while (!READ_ONCE(nc_load_stop) && !kthread_should_stop()) {
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

static int nc_load_start(void)
{
	unsigned int n;
	int cpu, ret;

	if (cpumask_empty(nc_load_mask))
		return 0;
	nc_load = kcalloc(cpumask_weight(nc_load_mask) * load_threads,
			  sizeof(*nc_load), GFP_KERNEL);
	if (!nc_load)
		return -ENOMEM;
	WRITE_ONCE(nc_load_stop, false);
	for_each_cpu(cpu, nc_load_mask) {
		for (n = 0; n < load_threads; n++) {
			struct task_struct *t;

			t = kthread_create_on_node(nc_load_thread, NULL,
						   cpu_to_node(cpu),
						   "nohz_csd_load/%d", cpu);
			if (IS_ERR(t)) {
				ret = PTR_ERR(t);
				nc_load_end();
				return ret;
			}
			kthread_bind(t, cpu);
			nc_load[nr_load++] = t;
			wake_up_process(t);
		}
	}
	return 0;
}

/* ---- the report -------------------------------------------------------- */

static void nc_emit_cpu(struct seq_buf *sb, const char *pfx,
			const struct nc_cpu *c, bool buckets)
{
	unsigned int d;

	seq_buf_printf(sb, "%skicks=%llu\n", pfx, c->kicks);
	for (d = 0; d < NR_DLV; d++)
		seq_buf_printf(sb, "%s%s=%llu\n", pfx, dlv_name[d], c->dlv[d]);
	seq_buf_printf(sb, "%sraised=%llu\n", pfx, c->raised);
	seq_buf_printf(sb, "%sdropped=%llu\n", pfx,
		       c->dropped_idle + c->dropped_busy);
	seq_buf_printf(sb, "%sdropped_idle=%llu\n", pfx, c->dropped_idle);
	seq_buf_printf(sb, "%sdropped_busy=%llu\n", pfx, c->dropped_busy);
	seq_buf_printf(sb, "%sdropped_poll=%llu\n", pfx, c->dropped_poll);
	seq_buf_printf(sb, "%sdropped_pending=%llu\n", pfx, c->dropped_pending);
	seq_buf_printf(sb, "%sdropped_woken=%llu\n", pfx, c->dropped_woken);
	seq_buf_printf(sb, "%sdropped_lost=%llu\n", pfx, c->dropped_lost);
	seq_buf_printf(sb, "%sdropped_unresolved=%llu\n", pfx,
		       c->dropped_unresolved);
	seq_buf_printf(sb, "%sdropped_poll_lost=%llu\n", pfx,
		       c->dropped_poll_lost);
	seq_buf_printf(sb, "%ssoftirqs=%llu\n", pfx, c->softirqs);
	seq_buf_printf(sb, "%sbalanced=%llu\n", pfx, c->balanced);
	seq_buf_printf(sb, "%sraised_without_balance=%llu\n", pfx,
		       c->unbalanced + c->merged + c->unserved);
	seq_buf_printf(sb, "%sunbalanced=%llu\n", pfx, c->unbalanced);
	seq_buf_printf(sb, "%smerged=%llu\n", pfx, c->merged);
	seq_buf_printf(sb, "%sunserved=%llu\n", pfx, c->unserved);
	seq_buf_printf(sb, "%smidrun=%llu\n", pfx, c->midrun);
	seq_buf_printf(sb, "%sksoftirqd_wakeups=%llu\n", pfx,
		       c->ksoftirqd_wakeups);
	seq_buf_printf(sb, "%stick_stops=%llu\n", pfx, c->tick_stops);
	ips_hist_emit(sb, pfx, "delay", &c->delay, buckets);
}

/*
 * Why no kick was seen, from what the probes did see. Kicks only go to CPUs
 * whose tick is stopped (nohz.idle_cpus_mask); idle=poll, or an idle state
 * flagged as polling, keeps the tick running.
 */
static const char *nc_reason(const struct nc_cpu *all, bool ticks_hooked)
{
	if (all->kicks)
		return NULL;
	if (ticks_hooked && !all->tick_stops)
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
 */
static void nc_proofs(enum ips_hook_proof *p)
{
	u64 kicks = 0, unbalanced = 0;
	unsigned int fired = 0;
	int cpu;

	for_each_cpu(cpu, nc_mask) {
		const struct nc_cpu *c = nc_state[cpu];

		kicks += c->kicks;
		unbalanced += c->unbalanced;
		fired |= c->fired;
	}
	p[HK_BALANCE] = ips_hook_prove(fired & BIT(HK_BALANCE), unbalanced);
	p[HK_TICK_STOP] = ips_hook_prove(fired & BIT(HK_TICK_STOP), kicks);
	p[HK_DO_IDLE] = ips_hook_prove(fired & BIT(HK_DO_IDLE), kicks);
}

static unsigned int nc_unproven(const enum ips_hook_proof *p)
{
	unsigned int i, n = 0;

	for (i = 0; i < NR_HK; i++)
		n += nc_hooks[i].hooked && p[i] == IPS_HOOK_UNPROVEN;
	return n;
}

static void nc_emit(struct seq_buf *sb, bool interrupted)
{
	enum ips_hook_proof proofs[NR_HK];
	const char *why;
	struct nc_cpu *all;
	unsigned int d;
	char pfx[24];
	int cpu;

	seq_buf_printf(sb, "format=%s\n", NC_FORMAT);
	seq_buf_printf(sb, "suite=%s\n", IPISTORM_SUITE_VERSION);
	seq_buf_printf(sb, "kernel=%s\n", init_utsname()->release);
	seq_buf_printf(sb, "mode=%s\n", duration ? "timed" : "until_stop");
	seq_buf_printf(sb, "cpulist=%*pbl\n", cpumask_pr_args(nc_mask));
	seq_buf_printf(sb, "load_cpus=%*pbl\n", cpumask_pr_args(nc_load_mask));
	seq_buf_printf(sb, "load_threads=%u\n",
		       cpumask_empty(nc_load_mask) ? 0 : load_threads);
	nc_proofs(proofs);
	seq_buf_printf(sb, "status=%s\n", interrupted ? "interrupted" :
		       nc_unproven(proofs) ? "unproven" : "complete");
	seq_buf_printf(sb, "measured_ns=%llu\n",
		       nc_session.stop_ns - nc_session.start_ns);
	seq_buf_printf(sb, "nmissed=%lu\n", nc_missed);
	ips_hooks_emit(sb, &nc_hook_set,
		       "nohz_csd_func,wake_up_process,softirq_raise,softirq_entry,softirq_exit,sched_switch");
	ips_hooks_emit_proofs(sb, &nc_hook_set, proofs);

	all = vzalloc(sizeof(*all));
	if (all)
		ips_hist_init(&all->delay);
	for_each_cpu(cpu, nc_mask) {
		const struct nc_cpu *c = nc_state[cpu];

		snprintf(pfx, sizeof(pfx), "cpu%d.", cpu);
		nc_emit_cpu(sb, pfx, c, true);
		if (!all)
			continue;
		all->kicks += c->kicks;
		for (d = 0; d < NR_DLV; d++)
			all->dlv[d] += c->dlv[d];
		all->raised += c->raised;
		all->dropped_idle += c->dropped_idle;
		all->dropped_busy += c->dropped_busy;
		all->dropped_poll += c->dropped_poll;
		all->dropped_pending += c->dropped_pending;
		all->dropped_woken += c->dropped_woken;
		all->dropped_lost += c->dropped_lost;
		all->dropped_unresolved += c->dropped_unresolved;
		all->dropped_poll_lost += c->dropped_poll_lost;
		all->softirqs += c->softirqs;
		all->balanced += c->balanced;
		all->unbalanced += c->unbalanced;
		all->merged += c->merged;
		all->unserved += c->unserved;
		all->midrun += c->midrun;
		all->ksoftirqd_wakeups += c->ksoftirqd_wakeups;
		all->tick_stops += c->tick_stops;
		ips_hist_merge(&all->delay, &c->delay);
		cond_resched();
	}
	if (all) {
		nc_emit_cpu(sb, "total.", all, false);
		why = nc_reason(all, !!nc_hooks[HK_TICK_STOP].hooked);
		if (why)
			seq_buf_printf(sb, "reason=%s\n", why);
	}
	vfree(all);
}

static size_t nc_result_size(void)
{
	size_t size = 4096;
	int cpu;

	for_each_cpu(cpu, nc_mask)
		size += 1024 + 64 * ips_hist_used(&nc_state[cpu]->delay);
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
	nc_load_end();
	nc_unhook();
	/* Nothing moves now. What counted kicks were still waiting for: */
	for_each_cpu(cpu, nc_mask) {
		struct nc_cpu *c = nc_state[cpu];

		/* raised, their SCHED_SOFTIRQ had not run; */
		c->unserved += c->awaiting;
		c->awaiting = 0;
		/* dropped in the idle task, its next step not seen. */
		c->dropped_unresolved += c->drops_open;
		c->drops_open = 0;
		c->poll_drops_open = 0;
	}

	if (nc_missed)
		pr_warn("%lu probe hits missed: the counts are short\n",
			nc_missed);
	if (!interrupted) {
		enum ips_hook_proof proofs[NR_HK];

		nc_proofs(proofs);
		if (nc_unproven(proofs))
			pr_warn("%u hooks never fired where their function ran: their figures are unproven (proof.* in the result)\n",
				nc_unproven(proofs));
	}
	ips_result_report(&nc_session.result, KBUILD_MODNAME, nc_result_size(),
			  nc_emit, interrupted);
}

/* ---- init and exit ----------------------------------------------------- */

static void nc_free_state(void)
{
	ips_session_cpus_free((void **)nc_state, nc_mask);
	nc_state = NULL;
	free_cpumask_var(nc_mask);
	free_cpumask_var(nc_load_mask);
}

static int nc_parse(void)
{
	int cpu, ret;

	if (duration > MAX_DURATION_S) {
		pr_err("duration=%u: more than %u seconds\n", duration,
		       MAX_DURATION_S);
		return -EINVAL;
	}
	if (!load_threads || load_threads > MAX_LOAD_THREADS) {
		pr_err("load_threads=%u: must be 1 to %u\n", load_threads,
		       MAX_LOAD_THREADS);
		return -EINVAL;
	}
	if (load_threads_given && !load_cpus.val) {
		pr_err("load_threads=%u: no effect without load_cpus=, which places the threads\n",
		       load_threads);
		return -EINVAL;
	}
	ret = -ENOMEM;
	if (!zalloc_cpumask_var(&nc_mask, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&nc_load_mask, GFP_KERNEL))
		goto err;
	ret = 0;
	if (cpulist.val)
		ret = ips_cpus_parse_online("cpulist", cpulist.val, nc_mask);
	else
		cpumask_copy(nc_mask, cpu_online_mask);
	if (!ret && load_cpus.val)
		ret = ips_cpus_parse_online("load_cpus", load_cpus.val,
					    nc_load_mask);
	if (ret)
		goto err;
	/* Their load keeps the watched CPUs busy: no kick is sent to them. */
	if (cpulist.val && cpumask_subset(nc_mask, nc_load_mask)) {
		pr_err("cpulist=%.64s: no effect, every watched CPU is in load_cpus=%.64s\n",
		       cpulist.val, load_cpus.val);
		ret = -EINVAL;
		goto err;
	}
	if (cpumask_subset(nc_mask, nc_load_mask)) {
		pr_err("load_cpus=%.64s: loads every online CPU, so no CPU is idle to be kicked\n",
		       load_cpus.val);
		ret = -EINVAL;
		goto err;
	}

	ret = -ENOMEM;
	nc_state = (struct nc_cpu **)ips_session_cpus_alloc(nc_mask,
							sizeof(struct nc_cpu));
	if (!nc_state)
		goto err;
	for_each_cpu(cpu, nc_mask)
		ips_hist_init(&nc_state[cpu]->delay);
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
	ret = nc_load_start();
	if (ret) {
		nc_unhook();
		return ret;
	}
	nc_missed_base = nc_probe_misses();
	return 0;
}

static const struct ips_session_ops nc_session_ops = {
	.parse	= nc_parse,
	.begin	= nc_begin,
	.finish	= nc_finish,
	.free	= nc_free_state,
	.start	= "start:",
};

static int __init nc_init(void)
{
	return ips_session_run(&nc_session, &nc_session_ops, duration);
}

static void __exit nc_exit(void)
{
	ips_session_exit(&nc_session);
}

module_init(nc_init);
module_exit(nc_exit);

MODULE_DESCRIPTION("Counts nohz idle-balance kicks to idle CPUs and what they cause");
MODULE_AUTHOR("The ipistorm authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(IPISTORM_SUITE_VERSION);
