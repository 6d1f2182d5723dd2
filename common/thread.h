/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-thread helpers shared by the suite's modules. Both stay inline:
 * ips_thread_pause() runs on every round of a storm loop, and
 * ips_thread_wait_stop() is a few lines that ipistorm_bare.ko, the
 * overhead reference, takes without linking any common object.
 */
#ifndef IPISTORM_THREAD_H
#define IPISTORM_THREAD_H

#include <linux/kthread.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>

/*
 * The cond_resched() of every CPU-bound loop of the suite, which also
 * reports a quiescent state to RCU-tasks. Removing an ftrace hook of a
 * module (a dynamic ftrace_ops) waits for an RCU-tasks grace period, which
 * counts only voluntary context switches: a loop that is only preempted,
 * or only calls cond_resched(), would hold every stop, rmmod and witness
 * unhook of the suite until it ends.
 */
static __always_inline void ips_thread_pause(void)
{
	cond_resched_tasks_rcu_qs();
}

/*
 * Sleep until kthread_stop(). A thread that finished its work waits here
 * rather than exiting, so its creator can always kthread_stop() it (the
 * task_struct stays valid) and no module code runs after that returns.
 */
static inline void ips_thread_wait_stop(void)
{
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
}

#endif /* IPISTORM_THREAD_H */
