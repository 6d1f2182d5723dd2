// SPDX-License-Identifier: GPL-2.0
/*
 * A passive measurement session (session.h). Built into each module by
 * its common.c, which defines pr_fmt first.
 */
#include "session.h"

void ips_session_lock(struct ips_session *s)
{
	mutex_lock(&s->lock);
}

void ips_session_unlock(struct ips_session *s)
{
	mutex_unlock(&s->lock);
}

/*
 * Every probe is in place: measure from this instant, for @duration
 * seconds (0: until stopped). Under the lock.
 */
void ips_session_start(struct ips_session *s,
		       unsigned int duration)
{
	lockdep_assert_held(&s->lock);
	s->duration = duration;
	s->start_ns = ktime_get_ns();
	WRITE_ONCE(s->measuring, true);
	WRITE_ONCE(s->run, IPS_SESSION_RUNNING);
}

/* End the measurement at one instant, then let the module finish. */
void ips_session_stop(struct ips_session *s, bool interrupted)
{
	lockdep_assert_held(&s->lock);
	if (s->run != IPS_SESSION_RUNNING)
		return;
	WRITE_ONCE(s->measuring, false);
	s->stop_ns = ktime_get_ns();
	s->finish(interrupted);
	WRITE_ONCE(s->run, IPS_SESSION_DONE);
}

void ips_session_stop_request(struct ips_session *s)
{
	mutex_lock(&s->lock);
	ips_session_stop(s, false);
	mutex_unlock(&s->lock);
}

void ips_session_control_stop(struct ips_result *r)
{
	ips_session_stop_request(container_of(r, struct ips_session, result));
}

/*
 * The stop parameter: writing 1 does what writing "stop" to the debugfs
 * control file does, for machines where debugfs refuses writes (kernel
 * lockdown). Reads 1 once the measurement has ended. A write can arrive
 * from the moment the parameter file exists until rmmod is done.
 */
int ips_session_stop_set(const char *val,
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

int ips_session_stop_get(char *buf,
			 const struct kernel_param *kp)
{
	const struct ips_session *s = kp->arg;

	return sysfs_emit(buf, "%d\n", READ_ONCE(s->run) == IPS_SESSION_DONE);
}

const struct kernel_param_ops ips_session_stop_ops = {
	.set	= ips_session_stop_set,
	.get	= ips_session_stop_get,
};

/*
 * A session that runs until stopped: its debugfs control file ends it.
 * insmod returns at once.
 */
int ips_session_control(struct ips_session *s)
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
int ips_session_sleep(struct ips_session *s)
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
 * An active module's run inside insmod (a count or a duration): wait up
 * to @timeout jiffies for @done, the run's end. A signal to insmod ends
 * the session early, interrupted, and frees its result: -EINTR, and the
 * module frees its state. Else what the wait returned: 0 when it timed
 * out (a count past its cap), then the caller stops the run and requests
 * the session's stop (ips_session_stop_request()), which reports.
 */
long ips_session_wait(struct ips_session *s, struct completion *done,
		      unsigned long timeout)
{
	long rc = wait_for_completion_interruptible_timeout(done, timeout);

	if (rc >= 0)
		return rc;
	ips_result_control_remove(&s->result);
	mutex_lock(&s->lock);
	ips_session_stop(s, true);
	mutex_unlock(&s->lock);
	ips_result_free(&s->result);
	return -EINTR;
}

/*
 * rmmod: stop what still runs and free the result. The module then frees
 * its state under the lock: a late write of the stop parameter finds
 * nothing to stop.
 */
void ips_session_exit(struct ips_session *s)
{
	/* No control write can be running once this returns. */
	ips_result_control_remove(&s->result);
	ips_session_stop_request(s);
	ips_result_free(&s->result);
}

/* Free what ips_session_cpus_alloc() gave for @mask; NULL is nothing. */
void ips_session_cpus_free(void **state, const struct cpumask *mask)
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
void **ips_session_cpus_alloc(const struct cpumask *mask, size_t size)
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

