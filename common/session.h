/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A passive measurement session, shared by the modules that watch the
 * kernel rather than load it: probes count only while the session is
 * measuring, from one instant after every probe is in place to one instant
 * before any is removed. A session runs for duration= seconds inside insmod
 * (a signal to insmod ends it early, without a published result), or until
 * stopped: by writing 1 to the module's stop parameter, "stop" to its
 * debugfs control file, or by rmmod. Include after defining pr_fmt.
 */
#ifndef IPISTORM_SESSION_H
#define IPISTORM_SESSION_H

#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>

#include "result.h"

/* Where the session stands; changed under its lock. */
enum { IPS_SESSION_NOT_STARTED, IPS_SESSION_RUNNING, IPS_SESSION_DONE };

/*
 * A module's init and exit call these steps in order, with the module's
 * own steps between them:
 *
 *	init:	parse the parameters, set up the state;
 *		ips_session_lock(); put the probes in place;
 *		ips_session_start(); ips_session_unlock();
 *		ips_result_log_params("start");
 *		ips_session_control() (until stopped) or ips_session_sleep();
 *	exit:	ips_session_exit(); free the state under the lock.
 *
 * @finish is the one step the session calls back, wherever the measurement
 * ends (duration=, a stop write, rmmod), under the lock: remove every probe
 * first (which returns once every probe that still saw it measuring has
 * left), then report.
 */
struct ips_session {
	struct mutex lock;	/* guards run and the module's state */
	int run;
	bool measuring;		/* probes count only while set */
	unsigned int duration;	/* seconds; 0: until stopped */
	u64 start_ns;
	u64 stop_ns;
	void (*finish)(bool interrupted);
	struct ips_result result;
};

#define IPS_SESSION_INIT(name, fin)					\
	{ .lock = __MUTEX_INITIALIZER(name.lock), .finish = fin }

/*
 * Whether probes count now. A probe that read it set may still be
 * counting when ips_session_stop() returns to the module's finish(), whose
 * removal of the probes waits for it: no grace period of its own here,
 * since every one counts against a stop's second.
 */
static __always_inline bool ips_session_measuring(const struct ips_session *s)
{
	return READ_ONCE(s->measuring);
}

static inline void ips_session_lock(struct ips_session *s)
{
	mutex_lock(&s->lock);
}

static inline void ips_session_unlock(struct ips_session *s)
{
	mutex_unlock(&s->lock);
}

/*
 * Every probe is in place: measure from this instant, for @duration
 * seconds (0: until stopped). Under the lock.
 */
static inline void ips_session_start(struct ips_session *s,
				     unsigned int duration)
{
	lockdep_assert_held(&s->lock);
	s->duration = duration;
	s->start_ns = ktime_get_ns();
	WRITE_ONCE(s->measuring, true);
	WRITE_ONCE(s->run, IPS_SESSION_RUNNING);
}

/* End the measurement at one instant, then let the module finish. */
static inline void ips_session_stop(struct ips_session *s, bool interrupted)
{
	lockdep_assert_held(&s->lock);
	if (s->run != IPS_SESSION_RUNNING)
		return;
	WRITE_ONCE(s->measuring, false);
	s->stop_ns = ktime_get_ns();
	s->finish(interrupted);
	WRITE_ONCE(s->run, IPS_SESSION_DONE);
}

static inline void ips_session_stop_request(struct ips_session *s)
{
	mutex_lock(&s->lock);
	ips_session_stop(s, false);
	mutex_unlock(&s->lock);
}

static inline void ips_session_control_stop(struct ips_result *r)
{
	ips_session_stop_request(container_of(r, struct ips_session, result));
}

/*
 * The stop parameter: writing 1 does what writing "stop" to the debugfs
 * control file does, for machines where debugfs refuses writes (kernel
 * lockdown). Reads 1 once the measurement has ended. A write can arrive
 * from the moment the parameter file exists until rmmod is done.
 */
static inline int ips_session_stop_set(const char *val,
				       const struct kernel_param *kp)
{
	struct ips_session *s = kp->arg;
	int len = strcspn(val, "\n");
	unsigned int v;
	int ret = 0;

	if (kstrtouint(val, 0, &v) || v != 1) {
		pr_err("stop=%.*s: only 1, which ends the measurement, is accepted\n",
		       len, val);
		return -EINVAL;
	}
	mutex_lock(&s->lock);
	if (s->run == IPS_SESSION_NOT_STARTED) {
		pr_err("stop=1: no measurement to stop yet; write 1 to /sys/module/%s/parameters/stop while one runs\n",
		       KBUILD_MODNAME);
		ret = -EINVAL;
	} else if (s->run == IPS_SESSION_RUNNING && s->duration) {
		pr_err("stop=1: a timed measurement (duration=%u) ends by itself; a signal to insmod ends it early\n",
		       s->duration);
		ret = -EINVAL;
	} else {
		ips_session_stop(s, false);
	}
	mutex_unlock(&s->lock);
	return ret;
}

static inline int ips_session_stop_get(char *buf,
				       const struct kernel_param *kp)
{
	const struct ips_session *s = kp->arg;

	return sysfs_emit(buf, "%d\n", READ_ONCE(s->run) == IPS_SESSION_DONE);
}

static const struct kernel_param_ops ips_session_stop_ops = {
	.set	= ips_session_stop_set,
	.get	= ips_session_stop_get,
};

/*
 * A session that runs until stopped: its debugfs control file ends it.
 * insmod returns at once.
 */
static inline int ips_session_control(struct ips_session *s)
{
	ips_result_control(&s->result, KBUILD_MODNAME,
			   ips_session_control_stop);
	return 0;
}

/*
 * A timed session: sleep for its duration, then end it and report. A
 * signal to insmod ends it early, interrupted, and frees its result:
 * -EINTR, and the module frees its state.
 */
static inline int ips_session_sleep(struct ips_session *s)
{
	if (msleep_interruptible(s->duration * 1000)) {
		mutex_lock(&s->lock);
		ips_session_stop(s, true);
		mutex_unlock(&s->lock);
		ips_result_free(&s->result);
		return -EINTR;
	}
	ips_session_stop_request(s);
	return 0;
}

/*
 * rmmod: stop what still runs and free the result. The module then frees
 * its state under the lock: a late write of the stop parameter finds
 * nothing to stop.
 */
static inline void ips_session_exit(struct ips_session *s)
{
	/* No control write can be running once this returns. */
	ips_result_control_remove(&s->result);
	ips_session_stop_request(s);
	ips_result_free(&s->result);
}

/* Free what ips_session_cpus_alloc() gave for @mask; NULL is nothing. */
static inline void ips_session_cpus_free(void **state, const struct cpumask *mask)
{
	int cpu;

	if (!state)
		return;
	for_each_cpu(cpu, mask)
		kvfree(state[cpu]);
	kfree(state);
}

/*
 * Per-CPU state: an array of nr_cpu_ids pointers, each CPU of @mask
 * pointing to its own zeroed @size bytes on its node, the others NULL; so
 * no two watched CPUs share a cache line. NULL when out of memory, with
 * nothing left allocated.
 */
static inline void **ips_session_cpus_alloc(const struct cpumask *mask, size_t size)
{
	void **state;
	int cpu;

	state = kcalloc(nr_cpu_ids, sizeof(*state), GFP_KERNEL);
	if (!state)
		return NULL;
	for_each_cpu(cpu, mask) {
		state[cpu] = kvzalloc_node(size, GFP_KERNEL, cpu_to_node(cpu));
		if (!state[cpu]) {
			ips_session_cpus_free(state, mask);
			return NULL;
		}
	}
	return state;
}

#endif /* IPISTORM_SESSION_H */
