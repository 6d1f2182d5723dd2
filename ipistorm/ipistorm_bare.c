// SPDX-License-Identifier: GPL-2.0
/*
 * ipistorm_bare - the reference for ipistorm's overhead benchmark: a bare
 * loop of smp_call_function_single(target, nop, NULL, wait) from one bound
 * kthread, with nothing but two clock reads around the whole loop.
 *
 *   insmod ipistorm_bare.ko numipi=20000 cpu=0 target=1 wait=1
 *
 * Prints "ipistorm_bare: runtime_ns=<ns> ..."; rmmod before the next run.
 * Not for production use: it exists to be compared with ipistorm.ko in the
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

/* ---- parameters ------------------------------------------------------- */

/* As many calls as the ipistorm run it is compared with. */
static unsigned long bare_numipi = 20000;
module_param_named(numipi, bare_numipi, ulong, 0444);
MODULE_PARM_DESC(numipi, "Calls (count, default 20000, max 1000000)");

/* One sender, bound: the loop's cost without ipistorm's per-sender work. */
static int bare_cpu;
module_param_named(cpu, bare_cpu, int, 0444);
MODULE_PARM_DESC(cpu, "Sender CPU (default 0)");

/* The target; ipistorm's offset= or pairs= picks it there. */
static int bare_target = 1;
module_param_named(target, bare_target, int, 0444);
MODULE_PARM_DESC(target, "Target CPU (default 1)");

/*
 * ipistorm's wait=: a round trip per call, or calls queued behind it. An
 * int, as when the reference ratios were taken: a bool changes the
 * compiled loop, and so the reference (5 ns a call less on 7.3).
 */
static int bare_wait = 1;
module_param_named(wait, bare_wait, int, 0444);
MODULE_PARM_DESC(wait, "Wait for each callback, 0 or 1 (default 1)");

/* ---- state ------------------------------------------------------------ */

static struct completion done;
static u64 runtime_ns;
static int error;

static void bare_nop(void *info)
{
}

static int bare_thread(void *arg)
{
	unsigned long i;
	u64 t0;

	t0 = ktime_get_ns();
	for (i = 0; i < bare_numipi; i++) {
		error = smp_call_function_single(bare_target, bare_nop, NULL,
						 bare_wait);
		if (error)
			break;
		ips_thread_pause();
	}
	runtime_ns = ktime_get_ns() - t0;
	/* Nothing may stay queued when the module goes. */
	smp_call_function_single(bare_target, bare_nop, NULL, 1);
	smp_call_function_single(bare_target, bare_nop, NULL, 1);
	complete(&done);

	ips_thread_wait_stop();
	return 0;
}

static int __init bare_init(void)
{
	struct task_struct *t;

	if (!bare_numipi || bare_numipi > 1000000UL) {
		pr_err("numipi=%lu: must be 1 to 1000000\n", bare_numipi);
		return -EINVAL;
	}
	if (bare_wait != 0 && bare_wait != 1) {
		pr_err("wait=%d: must be 0 or 1\n", bare_wait);
		return -EINVAL;
	}
	if (bare_cpu < 0 || bare_cpu >= nr_cpu_ids || !cpu_online(bare_cpu) ||
	    bare_target < 0 || bare_target >= nr_cpu_ids ||
	    !cpu_online(bare_target) || bare_cpu == bare_target) {
		pr_err("cpu=%d target=%d: need two different online CPUs\n",
		       bare_cpu, bare_target);
		return -EINVAL;
	}

	init_completion(&done);
	t = kthread_create(bare_thread, NULL, "ipistorm_bare");
	if (IS_ERR(t))
		return PTR_ERR(t);
	kthread_bind(t, bare_cpu);
	wake_up_process(t);
	wait_for_completion(&done);
	kthread_stop(t);
	if (error) {
		pr_err("target=%d: call failed with %d\n", bare_target, error);
		return error;
	}
	pr_info("runtime_ns=%llu numipi=%lu cpu=%d target=%d wait=%d\n",
		runtime_ns, bare_numipi, bare_cpu, bare_target, bare_wait);
	return 0;
}

static void __exit bare_exit(void)
{
}

module_init(bare_init);
module_exit(bare_exit);

MODULE_DESCRIPTION("Bare smp_call_function_single loop, ipistorm's overhead reference");
MODULE_AUTHOR("The ipistorm authors");
MODULE_LICENSE("GPL");
