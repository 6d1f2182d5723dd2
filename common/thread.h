/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel-thread helpers shared by the suite's modules. */
#ifndef IPISTORM_THREAD_H
#define IPISTORM_THREAD_H

#include <linux/kthread.h>
#include <linux/sched.h>

/*
 * Sleep until kthread_stop(). A thread that finished its work waits here
 * rather than exiting, so its creator can always kthread_stop() it (the
 * task_struct stays valid) and no module code runs after that returns.
 */
static inline void thread_wait_stop(void)
{
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
}

#endif /* IPISTORM_THREAD_H */
