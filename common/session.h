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

/* What the module does at each step; each is called under the lock. */
struct ips_session_ops {
	/*
	 * Check the parameters (one pr_err naming a bad one) and set up the
	 * state; on failure leave nothing allocated.
	 */
	int (*parse)(void);
	/* Put every probe in place; nothing counts yet. */
	int (*begin)(void);
	/*
	 * Measuring has ended: remove every probe first (which returns once
	 * every probe that still saw it measuring has left), then report.
	 */
	void (*finish)(bool interrupted);
	/* Free the module's state; also when begin() failed. */
	void (*free)(void);
	/* The start line's first word, before every parameter. */
	const char *start;
};

struct ips_session {
	struct mutex lock;	/* guards run and the module's state */
	int run;
	bool measuring;		/* probes count only while set */
	unsigned int duration;	/* seconds; 0: until stopped */
	u64 start_ns;
	u64 stop_ns;
	const struct ips_session_ops *ops;
	struct ips_result result;
};

#define IPS_SESSION_INIT(name) { .lock = __MUTEX_INITIALIZER(name.lock) }

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

/* End the measurement at one instant, then let the module finish. */
static inline void ips_session_stop(struct ips_session *s, bool interrupted)
{
	lockdep_assert_held(&s->lock);
	if (s->run != IPS_SESSION_RUNNING)
		return;
	WRITE_ONCE(s->measuring, false);
	s->stop_ns = ktime_get_ns();
	s->ops->finish(interrupted);
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

static inline int ips_session_stop_get(char *buf, const struct kernel_param *kp)
{
	const struct ips_session *s = kp->arg;

	return sysfs_emit(buf, "%d\n", READ_ONCE(s->run) == IPS_SESSION_DONE);
}

static const struct kernel_param_ops ips_session_stop_ops = {
	.set	= ips_session_stop_set,
	.get	= ips_session_stop_get,
};

/*
 * insmod: check the parameters and set up the module's state with
 * @ops->parse(), put its probes in place with @ops->begin(), start
 * measuring for @duration seconds (0: until stopped) and print the start
 * line of every parameter. A timed session is then measured and reported
 * here (a signal ends it early: -EINTR); one that runs until stopped gets
 * its debugfs control file and returns at once. On failure the module's
 * state is freed.
 */
static inline int ips_session_run(struct ips_session *s, const struct ips_session_ops *ops,
				  unsigned int duration)
{
	int ret;

	ret = ops->parse();
	if (ret)
		return ret;
	mutex_lock(&s->lock);
	s->ops = ops;
	s->duration = duration;
	ret = ops->begin();
	if (ret) {
		mutex_unlock(&s->lock);
		ops->free();
		return ret;
	}
	s->start_ns = ktime_get_ns();
	WRITE_ONCE(s->measuring, true);
	WRITE_ONCE(s->run, IPS_SESSION_RUNNING);
	mutex_unlock(&s->lock);
	ips_result_log_params(ops->start);

	if (!duration) {
		ips_result_control(&s->result, KBUILD_MODNAME,
				   ips_session_control_stop);
		return 0;
	}
	if (msleep_interruptible(duration * 1000)) {
		mutex_lock(&s->lock);
		ips_session_stop(s, true);
		mutex_unlock(&s->lock);
		ips_result_free(&s->result);
		ops->free();
		return -EINTR;
	}
	ips_session_stop_request(s);
	return 0;
}

/* rmmod: stop what still runs, then free the result and the state. */
static inline void ips_session_exit(struct ips_session *s)
{
	/* No control write can be running once this returns. */
	ips_result_control_remove(&s->result);
	ips_session_stop_request(s);
	ips_result_free(&s->result);
	mutex_lock(&s->lock);
	/* A late write of the stop parameter finds nothing to stop. */
	s->ops->free();
	mutex_unlock(&s->lock);
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
