// SPDX-License-Identifier: GPL-2.0
/*
 * wakeup_bare - the reference for wakeup's overhead benchmark: wakeup.ko's
 * wake loop (rpc=0) with nothing measured: a sender kthread wakes a
 * kthread bound to the target CPU, waits for it to run, then for it to be
 * asleep again; two clock reads around the whole loop.
 *
 *   insmod wakeup_bare.ko numwake=20000 cpu=0 target=1
 *
 * Prints "wakeup_bare: runtime_ns=<ns> ..."; rmmod before the next run.
 * Not for production use: it exists to be compared with wakeup.ko in the
 * same machine.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>

#include "../common/thread.h"

static unsigned long numwake = 20000;
module_param(numwake, ulong, 0444);
MODULE_PARM_DESC(numwake, "Wake-ups (count, default 20000, max 100000000)");

static int cpu;
module_param(cpu, int, 0444);
MODULE_PARM_DESC(cpu, "Sender CPU (default 0)");

static int target = 1;
module_param(target, int, 0444);
MODULE_PARM_DESC(target, "Target CPU, where the wakee sleeps (default 1)");

static struct completion done;
static u64 runtime_ns, woken;
static unsigned long seq ____cacheline_aligned_in_smp;
static unsigned long ack ____cacheline_aligned_in_smp;
static bool ready;

static int bare_wakee(void *arg)
{
	unsigned long seen = 0, s;

	/* Pairs with the sender's acquire. */
	smp_store_release(&ready, true);
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		s = READ_ONCE(seq);
		if (s == seen) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		seen = s;
		/* Pairs with the sender's acquire. */
		smp_store_release(&ack, s);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static int bare_sender(void *arg)
{
	struct task_struct *wakee = arg;
	unsigned long i;
	u64 t0;

	/* Pairs with the wakee's release. */
	while (!smp_load_acquire(&ready))
		cpu_relax();
	t0 = ktime_get_ns();
	for (i = 1; i <= numwake; i++) {
		/* Asleep and off its CPU, as wakeup.ko waits. */
		while (task_is_running(wakee) || smp_load_acquire(&wakee->on_cpu))
			cpu_relax();
		WRITE_ONCE(seq, i);
		woken += wake_up_process(wakee);
		/* Pairs with the wakee's release. */
		while (smp_load_acquire(&ack) != i)
			cpu_relax();
		ips_thread_pause();
	}
	runtime_ns = ktime_get_ns() - t0;
	complete(&done);
	ips_thread_wait_stop();
	return 0;
}

static int __init bare_init(void)
{
	struct task_struct *s, *w;

	if (!numwake || numwake > 100000000UL) {
		pr_err("numwake=%lu: must be 1 to 100000000\n", numwake);
		return -EINVAL;
	}
	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu) ||
	    target < 0 || target >= nr_cpu_ids || !cpu_online(target) ||
	    cpu == target) {
		pr_err("cpu=%d target=%d: need two different online CPUs\n",
		       cpu, target);
		return -EINVAL;
	}
	init_completion(&done);
	w = kthread_create(bare_wakee, NULL, "wakeup_bare/w");
	if (IS_ERR(w))
		return PTR_ERR(w);
	kthread_bind(w, target);
	s = kthread_create(bare_sender, w, "wakeup_bare/s");
	if (IS_ERR(s)) {
		kthread_stop(w);
		return PTR_ERR(s);
	}
	kthread_bind(s, cpu);
	wake_up_process(w);
	wake_up_process(s);
	wait_for_completion(&done);
	kthread_stop(s);
	kthread_stop(w);
	pr_info("runtime_ns=%llu numwake=%lu woken=%llu cpu=%d target=%d\n",
		runtime_ns, numwake, woken, cpu, target);
	return 0;
}

static void __exit bare_exit(void)
{
}

module_init(bare_init);
module_exit(bare_exit);

MODULE_DESCRIPTION("Bare wake loop, wakeup's overhead reference");
MODULE_AUTHOR("The ipistorm authors");
MODULE_LICENSE("GPL");
