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
 * (nohz_csd_func() runs), how each was delivered (polling idle task, hard
 * IRQ, other), how many raised SCHED_SOFTIRQ and how many were dropped
 * (split by whether the idle task was running: a drop in the idle task is
 * the need_resched() bail-out's signature), which led to a nohz idle balance
 * in the next SCHED_SOFTIRQ on that CPU and after how long, and how often
 * ksoftirqd was woken from inside nohz_csd_func().
 *
 * It makes its own load (CPU-bound kthreads on load_cpus, so that the busy
 * CPUs' tick kicks an idle one) or watches an external one:
 *
 *   insmod nohz_csd.ko load_cpus=0 duration=5      # load CPU0, watch all
 *   insmod nohz_csd.ko cpulist=1-7                 # until "stop" or rmmod:
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
#include <linux/slab.h>
#include <linux/trace_recursion.h>
#include <linux/utsname.h>
#include <linux/vmalloc.h>

#include "../common/hist.h"
#include "../common/hook.h"
#include "../common/result.h"
#include "../common/thread.h"

#define NC_FORMAT		"nohz_csd/1"
#define MAX_DURATION_S		3600U
#define MAX_LOAD_THREADS	16U

static char *cpulist;
module_param(cpulist, charp, 0444);
MODULE_PARM_DESC(cpulist, "CPUs whose incoming kicks are counted, kernel cpulist syntax (default: every online CPU)");

static char *load_cpus;
module_param(load_cpus, charp, 0444);
MODULE_PARM_DESC(load_cpus, "CPUs that get CPU-bound kthreads so that their tick kicks an idle CPU (default unset: watch an external load)");

static unsigned int load_threads = 2;
module_param(load_threads, uint, 0444);
MODULE_PARM_DESC(load_threads, "CPU-bound kthreads per load CPU; a kick needs two runnable tasks (threads, default 2, max 16)");

static unsigned int duration;
module_param(duration, uint, 0444);
MODULE_PARM_DESC(duration, "Watch for this long inside insmod, then report (seconds, default 0: watch until 'stop' is written to debugfs control or rmmod; max 3600)");

enum { DLV_POLL, DLV_IRQ, DLV_OTHER, NR_DLV };

static const char * const dlv_name[NR_DLV] = {
	"kick_poll", "kick_irq", "kick_other",
};

/* Per watched CPU; written only by probes running on that CPU. */
struct nc_cpu {
	/*
	 * Inside nohz_csd_func(); a raised kick awaiting SCHED_SOFTIRQ; that
	 * softirq running, in which the kick's balance must happen.
	 */
	bool in_csd;
	bool await;
	bool balance_window;
	u64 t_kick;

	u64 kicks;
	u64 dlv[NR_DLV];
	u64 raised;
	u64 already_pending;
	u64 dropped_idle;
	u64 dropped_busy;
	u64 softirqs;
	u64 balanced;
	u64 ksoftirqd_wakeups;
	u64 tick_stops;
	struct hist delay;
} ____cacheline_aligned_in_smp;

static struct nc_cpu **nc_state;	/* [nr_cpu_ids], NULL when unwatched */
static cpumask_var_t nc_mask, nc_load_mask;

static inline struct nc_cpu *nc_this(void)
{
	return nc_state[raw_smp_processor_id()];
}

static inline bool sched_softirq_pending(void)
{
	return local_softirq_pending() & BIT(SCHED_SOFTIRQ);
}

/* nohz_csd_func(): a kick arrived. The return handler sees what it did. */
struct nc_csd_data {
	bool was_pending;
	bool idle;
	u64 t;
};

static int nc_csd_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct nc_csd_data *d = (struct nc_csd_data *)ri->data;
	struct nc_cpu *c = nc_this();

	if (!c)
		return 1;	/* no return handler */
	c->kicks++;
	d->idle = is_idle_task(current);
	if (in_hardirq())
		c->dlv[DLV_IRQ]++;
	else if (d->idle)
		c->dlv[DLV_POLL]++;
	else
		c->dlv[DLV_OTHER]++;
	d->was_pending = sched_softirq_pending();
	d->t = sched_clock();
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
	if (d->was_pending) {
		/* The pending softirq will act on the request. */
		c->raised++;
		c->already_pending++;
	} else if (sched_softirq_pending()) {
		c->raised++;
	} else {
		if (d->idle)
			c->dropped_idle++;
		else
			c->dropped_busy++;
		return 0;
	}
	c->await = true;
	c->t_kick = d->t;
	return 0;
}

static struct kretprobe nc_csd_probe = {
	.kp.symbol_name	= "nohz_csd_func",
	.entry_handler	= nc_csd_entry,
	.handler	= nc_csd_return,
	.data_size	= sizeof(struct nc_csd_data),
};

/* wake_up_process(): count ksoftirqd wakeups from inside nohz_csd_func(). */
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

/* ftrace hooks: the SCHED_SOFTIRQ handler, the balance, tick stops. */
#define NC_HOOK(name) HOOK_ON(name, nc_this)

static __always_inline void nc_softirq_on(struct nc_cpu *c)
{
	c->balance_window = c->await;
	c->softirqs += c->await;
	c->await = false;
}

NC_HOOK(nc_softirq)

static __always_inline void nc_balance_on(struct nc_cpu *c)
{
	if (c->balance_window) {
		c->balance_window = false;
		c->balanced++;
		hist_add(&c->delay, sched_clock() - c->t_kick);
	}
}

NC_HOOK(nc_balance)

static __always_inline void nc_tick_stop_on(struct nc_cpu *c)
{
	c->tick_stops++;
}

NC_HOOK(nc_tick_stop)

static struct hook nc_hooks[] = {
	{ HOOK_NAMES("sched_balance_softirq", "run_rebalance_domains"),
	  nc_softirq },
	/* Static; Debian's builds name it _nohz_idle_balance.isra.0. */
	{ HOOK_NAMES("_nohz_idle_balance", "_nohz_idle_balance.*"), nc_balance },
	{ HOOK_NAMES("tick_nohz_idle_stop_tick"), nc_tick_stop },
};

static DEFINE_MUTEX(nc_lock);
static bool nc_running, nc_kprobes;
static u64 nc_start_ns, nc_stop_ns;
static struct task_struct **nc_load;
static unsigned int nr_load;
static bool nc_load_stop;
static struct result result;

static void nc_unhook(void)
{
	hooks_unregister(nc_hooks, ARRAY_SIZE(nc_hooks));
	if (nc_kprobes) {
		/* Both return once no CPU is inside a handler. */
		unregister_kprobe(&nc_wake_probe);
		unregister_kretprobe(&nc_csd_probe);
		nc_kprobes = false;
	}
}

static int __init nc_hook(void)
{
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

	ret = hooks_register(nc_hooks, ARRAY_SIZE(nc_hooks));
	if (ret)
		nc_unhook();
	return ret;
}

static int nc_load_thread(void *arg)
{
	while (!READ_ONCE(nc_load_stop) && !kthread_should_stop()) {
		cpu_relax();
		cond_resched();
	}
	thread_wait_stop();
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

static int __init nc_load_start(void)
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

static void nc_emit_cpu(struct seq_buf *sb, const char *pfx,
			const struct nc_cpu *c, bool buckets)
{
	unsigned int d;

	seq_buf_printf(sb, "%skicks=%llu\n", pfx, c->kicks);
	for (d = 0; d < NR_DLV; d++)
		seq_buf_printf(sb, "%s%s=%llu\n", pfx, dlv_name[d], c->dlv[d]);
	seq_buf_printf(sb, "%sraised=%llu\n", pfx, c->raised);
	seq_buf_printf(sb, "%salready_pending=%llu\n", pfx,
		       c->already_pending);
	seq_buf_printf(sb, "%sdropped=%llu\n", pfx,
		       c->dropped_idle + c->dropped_busy);
	seq_buf_printf(sb, "%sdropped_idle=%llu\n", pfx, c->dropped_idle);
	seq_buf_printf(sb, "%sdropped_busy=%llu\n", pfx, c->dropped_busy);
	seq_buf_printf(sb, "%ssoftirqs=%llu\n", pfx, c->softirqs);
	seq_buf_printf(sb, "%sbalanced=%llu\n", pfx, c->balanced);
	seq_buf_printf(sb, "%sksoftirqd_wakeups=%llu\n", pfx,
		       c->ksoftirqd_wakeups);
	seq_buf_printf(sb, "%stick_stops=%llu\n", pfx, c->tick_stops);
	hist_emit(sb, pfx, "delay", &c->delay, buckets);
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

static void nc_emit(struct seq_buf *sb, bool interrupted, bool buckets)
{
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
	seq_buf_printf(sb, "load_threads=%u\n", load_threads);
	seq_buf_printf(sb, "status=%s\n",
		       interrupted ? "interrupted" : "complete");
	seq_buf_printf(sb, "measured_ns=%llu\n", nc_stop_ns - nc_start_ns);
	hooks_emit(sb, nc_hooks, ARRAY_SIZE(nc_hooks),
		   "nohz_csd_func,wake_up_process");

	all = vzalloc(sizeof(*all));
	if (all)
		hist_init(&all->delay);
	for_each_cpu(cpu, nc_mask) {
		const struct nc_cpu *c = nc_state[cpu];

		snprintf(pfx, sizeof(pfx), "cpu%d.", cpu);
		nc_emit_cpu(sb, pfx, c, buckets);
		if (!all)
			continue;
		all->kicks += c->kicks;
		for (d = 0; d < NR_DLV; d++)
			all->dlv[d] += c->dlv[d];
		all->raised += c->raised;
		all->already_pending += c->already_pending;
		all->dropped_idle += c->dropped_idle;
		all->dropped_busy += c->dropped_busy;
		all->softirqs += c->softirqs;
		all->balanced += c->balanced;
		all->ksoftirqd_wakeups += c->ksoftirqd_wakeups;
		all->tick_stops += c->tick_stops;
		hist_merge(&all->delay, &c->delay);
	}
	if (all) {
		nc_emit_cpu(sb, "total.", all, false);
		why = nc_reason(all, !!nc_hooks[2].hooked);
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
		size += 1024 + 64 * hist_used(&nc_state[cpu]->delay);
	return size;
}

/* Stop the load, unhook, then print and publish. Called with nc_lock. */
static void nc_stop(bool interrupted)
{
	if (!nc_running)
		return;
	nc_stop_ns = ktime_get_ns();
	nc_load_end();
	nc_unhook();
	nc_running = false;

	result_report(&result, KBUILD_MODNAME, nc_result_size(), nc_emit,
		      interrupted);
}

static void nc_stop_request(void)
{
	mutex_lock(&nc_lock);
	nc_stop(false);
	mutex_unlock(&nc_lock);
}

static void nc_free_state(void)
{
	int cpu;

	if (nc_state)
		for_each_cpu(cpu, nc_mask)
			kfree(nc_state[cpu]);
	kfree(nc_state);
	nc_state = NULL;
	free_cpumask_var(nc_mask);
	free_cpumask_var(nc_load_mask);
}

/* Parse @str (named @param) into @mask of online CPUs. */
static int __init nc_parse_cpus(const char *param, const char *str,
				struct cpumask *mask)
{
	int cpu;

	if (cpulist_parse(str, mask) || cpumask_empty(mask)) {
		pr_err("%s=%s: not a non-empty list of CPUs below %u\n", param,
		       str, nr_cpu_ids);
		return -EINVAL;
	}
	for_each_cpu(cpu, mask) {
		if (!cpu_online(cpu)) {
			pr_err("%s=%s: CPU %d is offline\n", param, str, cpu);
			return -EINVAL;
		}
	}
	return 0;
}

static int __init nc_parse(void)
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
	if (!zalloc_cpumask_var(&nc_mask, GFP_KERNEL))
		return -ENOMEM;
	if (!zalloc_cpumask_var(&nc_load_mask, GFP_KERNEL)) {
		free_cpumask_var(nc_mask);
		return -ENOMEM;
	}
	ret = 0;
	if (cpulist)
		ret = nc_parse_cpus("cpulist", cpulist, nc_mask);
	else
		cpumask_copy(nc_mask, cpu_online_mask);
	if (!ret && load_cpus)
		ret = nc_parse_cpus("load_cpus", load_cpus, nc_load_mask);
	if (ret)
		goto err;

	nc_state = kcalloc(nr_cpu_ids, sizeof(*nc_state), GFP_KERNEL);
	if (!nc_state) {
		ret = -ENOMEM;
		goto err;
	}
	for_each_cpu(cpu, nc_mask) {
		struct nc_cpu *c;

		c = kzalloc_node(sizeof(*c), GFP_KERNEL, cpu_to_node(cpu));
		if (!c) {
			nc_free_state();
			return -ENOMEM;
		}
		hist_init(&c->delay);
		nc_state[cpu] = c;
	}
	return 0;
err:
	free_cpumask_var(nc_mask);
	free_cpumask_var(nc_load_mask);
	return ret;
}

static int __init nc_init(void)
{
	int ret;

	ret = nc_parse();
	if (ret)
		return ret;
	ret = nc_hook();
	if (ret) {
		nc_free_state();
		return ret;
	}
	nc_running = true;
	nc_start_ns = ktime_get_ns();
	ret = nc_load_start();
	if (ret) {
		nc_unhook();
		nc_free_state();
		return ret;
	}

	if (!duration) {
		result_control(&result, KBUILD_MODNAME, nc_stop_request);
		return 0;
	}
	if (msleep_interruptible(duration * 1000)) {
		mutex_lock(&nc_lock);
		nc_stop(true);
		mutex_unlock(&nc_lock);
		result_free(&result);
		nc_free_state();
		return -EINTR;
	}
	nc_stop_request();
	return 0;
}

static void __exit nc_exit(void)
{
	/* No control write can be running once this returns. */
	result_control_remove(&result);
	nc_stop_request();
	result_free(&result);
	nc_free_state();
}

module_init(nc_init);
module_exit(nc_exit);

MODULE_DESCRIPTION("Counts nohz idle-balance kicks to idle CPUs and what they cause");
MODULE_AUTHOR("The ipistorm authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(IPISTORM_SUITE_VERSION);
