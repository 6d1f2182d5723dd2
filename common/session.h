/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A passive measurement session, shared by the modules that watch the
 * kernel rather than load it: probes count only while the session is
 * measuring, from one instant after every probe is in place to one instant
 * before any is removed. A session runs for duration= seconds inside insmod
 * (a signal to insmod ends it early, without a published result), or until
 * stopped: by writing 1 to the module's stop parameter, "stop" to its
 * debugfs control file, or by rmmod. The functions are in session.c, which
 * each module's common.c builds into it.
 */
#ifndef IPISTORM_SESSION_H
#define IPISTORM_SESSION_H

#include <linux/completion.h>
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
 * Whether probes count now: inline, as every probe of a passive module
 * reads it first. A probe that read it set may still be
 * counting when ips_session_stop() returns to the module's finish(), whose
 * removal of the probes waits for it: no grace period of its own here,
 * since every one counts against a stop's second.
 */
static __always_inline bool ips_session_measuring(const struct ips_session *s)
{
	return READ_ONCE(s->measuring);
}

void ips_session_lock(struct ips_session *s);
void ips_session_unlock(struct ips_session *s);
void ips_session_start(struct ips_session *s, unsigned int duration);
void ips_session_stop(struct ips_session *s, bool interrupted);
void ips_session_stop_request(struct ips_session *s);
void ips_session_control_stop(struct ips_result *r);
int ips_session_stop_set(const char *val, const struct kernel_param *kp);
int ips_session_stop_get(char *buf, const struct kernel_param *kp);
/* The stop parameter's: module_param_cb(stop, &ips_session_stop_ops, ...). */
extern const struct kernel_param_ops ips_session_stop_ops;
int ips_session_control(struct ips_session *s);
int ips_session_sleep(struct ips_session *s);
long ips_session_wait(struct ips_session *s, struct completion *done,
		      unsigned long timeout);
void ips_session_exit(struct ips_session *s);
void ips_session_cpus_free(void **state, const struct cpumask *mask);
void **ips_session_cpus_alloc(const struct cpumask *mask, size_t size);

#endif /* IPISTORM_SESSION_H */
