// SPDX-License-Identifier: GPL-2.0
/*
 * ipistorm - smp_call_function storms, timed per call, with the way each
 * callback reached its target CPU: run by the idle task after a TIF_POLLING
 * "IPI" (TIF_NEED_RESCHED set instead of an interrupt), run in hard-IRQ
 * context after a real IPI, or run elsewhere.
 *
 *   insmod ipistorm.ko numipi=100000 single=1 offset=8 cpulist=8 wait=1
 *
 * The storm runs inside insmod: one kthread per sender, bound to its CPU,
 * released together. The result is printed to the kernel log and kept in
 * /sys/kernel/debug/ipistorm/result until rmmod.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/utsname.h>
#include <linux/vmalloc.h>

#include "../common/hist.h"
#include "../common/result.h"
#include "../common/thread.h"

#define IPISTORM_FORMAT		"ipistorm/1"
#define MAX_NUMIPI		1000000000UL
#define MAX_TIMEOUT_S		3600U
#define MAX_DELAY_US		1000000U
#define TARGET_ALL		(-1)

static unsigned long numipi;
module_param(numipi, ulong, 0444);
MODULE_PARM_DESC(numipi, "Calls per sender, fixed-count mode (calls, default 0: unset; give numipi or timeout)");

static unsigned int timeout;
module_param(timeout, uint, 0444);
MODULE_PARM_DESC(timeout, "Storm length, timed mode (seconds, default 0: unset; max 3600)");

static char *cpulist;
module_param(cpulist, charp, 0444);
MODULE_PARM_DESC(cpulist, "Sender CPUs, kernel cpulist syntax such as 8 or 0-3,8 (default unset; give cpulist or pairs)");

static int offset = 1;
module_param(offset, int, 0444);
MODULE_PARM_DESC(offset, "With cpulist and single=1: target CPU = sender CPU + offset (CPUs, default 1)");

static char *pairs;
module_param(pairs, charp, 0444);
MODULE_PARM_DESC(pairs, "Explicit sender:target list such as 8:16,9:17, instead of cpulist/offset (default unset)");

static int single = -1;
module_param(single, int, 0444);
MODULE_PARM_DESC(single, "1: smp_call_function_single to one target per sender; 0: smp_call_function_many to all other online CPUs (default 1 with pairs, 0 with cpulist)");

static int wait = 1;
module_param(wait, int, 0444);
MODULE_PARM_DESC(wait, "1: wait for each callback to finish before the next call; 0: do not (default 1)");

static unsigned int delay;
module_param(delay, uint, 0444);
MODULE_PARM_DESC(delay, "Sleep between calls (microseconds, default 0: never sleep; max 1000000)");

static int timing = 1;
module_param(timing, int, 0444);
MODULE_PARM_DESC(timing, "1: time every call (latency histogram); 0: time the storm only, for the least overhead (default 1)");

/* Where the callbacks of one sender ran; one instance per target CPU. */
struct delivery {
	u64 poll;	/* idle task, not in hard IRQ: the TIF_POLLING path */
	u64 irq;	/* hard-IRQ context: a real IPI */
	u64 other;	/* any other context */
};

struct sender {
	/* Read-only during the storm; callbacks read @dlv. */
	int cpu;
	int target;
	struct delivery __percpu *dlv;
	struct task_struct *task;

	/* Written by the sender thread when its storm ends. */
	u64 sent;
	u64 errors;
	int error;
	u64 expected;
	u64 start_ns;
	u64 end_ns;

	/* Written by the sender thread on every call. */
	struct hist lat ____cacheline_aligned_in_smp;
};

static struct sender **senders;
static unsigned int nr_senders;

static struct {
	bool stop ____cacheline_aligned_in_smp;
	atomic_t running ____cacheline_aligned_in_smp;
	struct completion go;
	struct completion done;
} storm;

static struct result result;

static void ipistorm_cb(void *info)
{
	struct sender *s = info;

	if (in_hardirq())
		this_cpu_inc(s->dlv->irq);
	else if (is_idle_task(current))
		this_cpu_inc(s->dlv->poll);
	else
		this_cpu_inc(s->dlv->other);
}

static void ipistorm_nop(void *info)
{
}

/* One call; returns the number of callbacks it queued, or -errno. */
static int ipistorm_fire(struct sender *s, smp_call_func_t fn, void *info,
			 int w)
{
	int n, ret;

	if (s->target != TARGET_ALL) {
		ret = smp_call_function_single(s->target, fn, info, w);
		return ret ? ret : 1;
	}
	/* Preemption off keeps the online mask from losing CPUs. */
	preempt_disable();
	n = num_online_cpus() - 1;
	smp_call_function_many(cpu_online_mask, fn, info, w);
	preempt_enable();
	return n;
}

/*
 * A target runs synchronous callbacks before asynchronous ones of the same
 * batch, so one synchronous call can return while a wait=0 callback of ours
 * is still queued behind it. The second call can only be queued after the
 * first batch was taken, so when it returns every earlier callback has run.
 */
static void ipistorm_drain(struct sender *s)
{
	if (ipistorm_fire(s, ipistorm_nop, NULL, 1) < 0)
		return;
	ipistorm_fire(s, ipistorm_nop, NULL, 1);
}

static int ipistorm_thread(void *arg)
{
	struct sender *s = arg;
	unsigned long deadline;
	u64 sent = 0, expected = 0, t0 = 0;
	int ret = 0;

	wait_for_completion(&storm.go);
	s->start_ns = ktime_get_ns();
	/* One more jiffy: the current one has partly gone already. */
	deadline = jiffies + (unsigned long)timeout * HZ + 1;

	while (!READ_ONCE(storm.stop)) {
		if (numipi ? sent >= numipi : time_after_eq(jiffies, deadline))
			break;
		if (timing)
			t0 = sched_clock();
		ret = ipistorm_fire(s, ipistorm_cb, s, wait);
		if (timing)
			hist_add(&s->lat, sched_clock() - t0);
		if (ret < 0)
			break;
		sent++;
		expected += ret;
		if (delay)
			usleep_range(delay, delay);
		cond_resched();
	}
	s->end_ns = ktime_get_ns();

	ipistorm_drain(s);
	s->sent = sent;
	s->expected = expected;
	if (ret < 0) {
		s->errors = 1;
		s->error = ret;
	}

	if (atomic_dec_and_test(&storm.running))
		complete(&storm.done);

	thread_wait_stop();
	return 0;
}

static void ipistorm_free_senders(void)
{
	unsigned int i;

	for (i = 0; i < nr_senders; i++) {
		free_percpu(senders[i]->dlv);
		kfree(senders[i]);
	}
	kfree(senders);
	senders = NULL;
	nr_senders = 0;
}

static int __init ipistorm_add_sender(int cpu, int target)
{
	struct sender *s;

	s = kzalloc_node(sizeof(*s), GFP_KERNEL, cpu_to_node(cpu));
	if (!s)
		return -ENOMEM;
	s->dlv = alloc_percpu(struct delivery);
	if (!s->dlv) {
		kfree(s);
		return -ENOMEM;
	}
	s->cpu = cpu;
	s->target = target;
	hist_init(&s->lat);
	senders[nr_senders++] = s;
	return 0;
}

static bool __init cpu_usable(long cpu)
{
	return cpu >= 0 && cpu < nr_cpu_ids && cpu_online(cpu);
}

static int __init ipistorm_parse_cpulist(void)
{
	cpumask_var_t mask;
	int cpu, ret = 0;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	if (cpulist_parse(cpulist, mask) || cpumask_empty(mask)) {
		pr_err("cpulist=%s: not a non-empty list of CPUs below %u\n",
		       cpulist, nr_cpu_ids);
		ret = -EINVAL;
		goto out;
	}
	for_each_cpu(cpu, mask) {
		long target = (long)cpu + offset;

		if (!cpu_online(cpu)) {
			pr_err("cpulist=%s: CPU %d is offline\n", cpulist, cpu);
			ret = -EINVAL;
			goto out;
		}
		if (!single) {
			target = TARGET_ALL;
		} else if (!offset) {
			pr_err("offset=0: every sender would target itself\n");
			ret = -EINVAL;
			goto out;
		} else if (!cpu_usable(target)) {
			pr_err("offset=%d: target %ld of sender CPU %d is not an online CPU\n",
			       offset, target, cpu);
			ret = -EINVAL;
			goto out;
		}
		ret = ipistorm_add_sender(cpu, target);
		if (ret)
			goto out;
	}
out:
	free_cpumask_var(mask);
	return ret;
}

static int __init ipistorm_parse_pairs(void)
{
	char *buf, *p, *tok;
	cpumask_var_t seen;
	int ret = 0;

	buf = kstrdup(pairs, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (!zalloc_cpumask_var(&seen, GFP_KERNEL)) {
		kfree(buf);
		return -ENOMEM;
	}
	p = buf;
	while ((tok = strsep(&p, ",")) != NULL) {
		char *colon = strchr(tok, ':');
		unsigned int s, t;

		if (!colon) {
			pr_err("pairs=%s: '%s' is not sender:target\n", pairs, tok);
			ret = -EINVAL;
			break;
		}
		*colon = '\0';
		if (kstrtouint(tok, 10, &s) || kstrtouint(colon + 1, 10, &t)) {
			pr_err("pairs=%s: '%s:%s' is not two CPU numbers\n",
			       pairs, tok, colon + 1);
			ret = -EINVAL;
			break;
		}
		if (!cpu_usable(s) || !cpu_usable(t)) {
			pr_err("pairs=%s: %u:%u names a CPU that is not online\n",
			       pairs, s, t);
			ret = -EINVAL;
			break;
		}
		if (s == t || cpumask_test_and_set_cpu(s, seen)) {
			pr_err("pairs=%s: %u:%u %s\n", pairs, s, t,
			       s == t ? "targets its own sender" :
			       "repeats a sender");
			ret = -EINVAL;
			break;
		}
		ret = ipistorm_add_sender(s, t);
		if (ret)
			break;
	}
	free_cpumask_var(seen);
	kfree(buf);
	return ret;
}

static int __init ipistorm_check_flag(const char *name, int val)
{
	if (val == 0 || val == 1)
		return 0;
	pr_err("%s=%d: must be 0 or 1\n", name, val);
	return -EINVAL;
}

static int __init ipistorm_parse(void)
{
	int ret;

	if (!numipi == !timeout) {
		pr_err("numipi=%lu timeout=%u: give exactly one of numipi (count) or timeout (seconds)\n",
		       numipi, timeout);
		return -EINVAL;
	}
	if (numipi > MAX_NUMIPI) {
		pr_err("numipi=%lu: more than %lu\n", numipi, MAX_NUMIPI);
		return -EINVAL;
	}
	if (timeout > MAX_TIMEOUT_S) {
		pr_err("timeout=%u: more than %u seconds\n", timeout,
		       MAX_TIMEOUT_S);
		return -EINVAL;
	}
	if (delay > MAX_DELAY_US) {
		pr_err("delay=%u: more than %u microseconds\n", delay,
		       MAX_DELAY_US);
		return -EINVAL;
	}
	if (single == -1)
		single = !!pairs;
	ret = ipistorm_check_flag("single", single) ?:
	      ipistorm_check_flag("wait", wait) ?:
	      ipistorm_check_flag("timing", timing);
	if (ret)
		return ret;
	if (!cpulist == !pairs) {
		pr_err("cpulist=%s pairs=%s: give exactly one of cpulist or pairs\n",
		       cpulist ?: "(unset)", pairs ?: "(unset)");
		return -EINVAL;
	}
	if (pairs && !single) {
		pr_err("single=0: pairs= names one target per sender, use single=1\n");
		return -EINVAL;
	}
	if (!single && num_online_cpus() < 2) {
		pr_err("single=0: needs at least two online CPUs\n");
		return -EINVAL;
	}

	senders = kcalloc(nr_cpu_ids, sizeof(*senders), GFP_KERNEL);
	if (!senders)
		return -ENOMEM;
	ret = pairs ? ipistorm_parse_pairs() : ipistorm_parse_cpulist();
	if (ret)
		ipistorm_free_senders();
	return ret;
}

/* Returns 0 when every sender finished, -EINTR when insmod was signalled. */
static int __init ipistorm_run(void)
{
	unsigned int i, created;
	int ret = 0;

	WRITE_ONCE(storm.stop, false);
	init_completion(&storm.go);
	init_completion(&storm.done);
	atomic_set(&storm.running, nr_senders);

	for (created = 0; created < nr_senders; created++) {
		struct sender *s = senders[created];
		struct task_struct *t;

		t = kthread_create_on_node(ipistorm_thread, s,
					   cpu_to_node(s->cpu), "ipistorm/%d",
					   s->cpu);
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			break;
		}
		kthread_bind(t, s->cpu);
		s->task = t;
	}
	if (ret) {
		/* Threads never woken exit from kthread_stop() unrun. */
		for (i = 0; i < created; i++)
			kthread_stop(senders[i]->task);
		return ret;
	}

	for (i = 0; i < nr_senders; i++)
		wake_up_process(senders[i]->task);
	complete_all(&storm.go);

	if (wait_for_completion_interruptible(&storm.done)) {
		WRITE_ONCE(storm.stop, true);
		wait_for_completion(&storm.done);
		ret = -EINTR;
	}
	for (i = 0; i < nr_senders; i++)
		kthread_stop(senders[i]->task);
	return ret;
}

static size_t __init ipistorm_result_size(void)
{
	size_t size = 4096;
	unsigned int i;

	for (i = 0; i < nr_senders; i++)
		size += 2048 + 64 * hist_used(&senders[i]->lat);
	return size;
}

/* Emit the result; the log's copy (no buckets) says when few callbacks polled. */
static void __init ipistorm_emit(struct seq_buf *sb, bool interrupted,
				 bool buckets)
{
	u64 sent = 0, errors = 0, expected = 0, runtime, start = U64_MAX;
	u64 end = 0, elapsed = 0, callbacks;
	struct delivery all = {};
	struct hist *lat;
	unsigned int i;
	int cpu;

	lat = vmalloc(sizeof(*lat));
	if (lat)
		hist_init(lat);

	seq_buf_printf(sb, "format=%s\n", IPISTORM_FORMAT);
	seq_buf_printf(sb, "suite=%s\n", IPISTORM_SUITE_VERSION);
	seq_buf_printf(sb, "kernel=%s\n", init_utsname()->release);
	seq_buf_printf(sb, "mode=%s\n", numipi ? "count" : "timed");
	seq_buf_printf(sb, "numipi=%lu\n", numipi);
	seq_buf_printf(sb, "timeout_s=%u\n", timeout);
	seq_buf_printf(sb, "single=%d\n", single);
	seq_buf_printf(sb, "wait=%d\n", wait);
	seq_buf_printf(sb, "delay_us=%u\n", delay);
	seq_buf_printf(sb, "timing=%d\n", timing);
	seq_buf_printf(sb, "online_cpus=%u\n", num_online_cpus());
	seq_buf_printf(sb, "senders=%u\n", nr_senders);

	for (i = 0; i < nr_senders; i++) {
		struct sender *s = senders[i];
		struct delivery d = {};
		char pfx[24];

		for_each_possible_cpu(cpu) {
			struct delivery *c = per_cpu_ptr(s->dlv, cpu);

			d.poll += c->poll;
			d.irq += c->irq;
			d.other += c->other;
		}
		snprintf(pfx, sizeof(pfx), "sender%u.", i);
		seq_buf_printf(sb, "%scpu=%d\n", pfx, s->cpu);
		if (s->target == TARGET_ALL)
			seq_buf_printf(sb, "%starget=all\n", pfx);
		else
			seq_buf_printf(sb, "%starget=%d\n", pfx, s->target);
		seq_buf_printf(sb, "%ssent=%llu\n", pfx, s->sent);
		seq_buf_printf(sb, "%serrors=%llu\n", pfx, s->errors);
		if (s->errors)
			seq_buf_printf(sb, "%serror=%d\n", pfx, s->error);
		seq_buf_printf(sb, "%sexpected_callbacks=%llu\n", pfx,
			       s->expected);
		seq_buf_printf(sb, "%scallbacks=%llu\n", pfx,
			       d.poll + d.irq + d.other);
		seq_buf_printf(sb, "%scb_poll=%llu\n", pfx, d.poll);
		seq_buf_printf(sb, "%scb_irq=%llu\n", pfx, d.irq);
		seq_buf_printf(sb, "%scb_other=%llu\n", pfx, d.other);
		seq_buf_printf(sb, "%selapsed_ns=%llu\n", pfx,
			       s->end_ns - s->start_ns);
		seq_buf_printf(sb, "%sipis_per_sec=%llu\n", pfx,
			       result_rate(s->sent, s->end_ns - s->start_ns));
		result_ratio(sb, pfx, "ns_per_ipi", s->end_ns - s->start_ns,
			     s->sent);
		result_pct(sb, pfx, "poll_pct", d.poll,
			   d.poll + d.irq + d.other);
		if (timing)
			hist_emit(sb, pfx, "lat", &s->lat, buckets);

		sent += s->sent;
		errors += s->errors;
		expected += s->expected;
		elapsed += s->end_ns - s->start_ns;
		all.poll += d.poll;
		all.irq += d.irq;
		all.other += d.other;
		start = min(start, s->start_ns);
		end = max(end, s->end_ns);
		if (lat)
			hist_merge(lat, &s->lat);
	}

	runtime = end > start ? end - start : 0;
	seq_buf_printf(sb, "status=%s\n", interrupted ? "interrupted" :
		       errors ? "errors" : "complete");
	seq_buf_printf(sb, "runtime_ns=%llu\n", runtime);
	seq_buf_printf(sb, "total.sent=%llu\n", sent);
	seq_buf_printf(sb, "total.errors=%llu\n", errors);
	seq_buf_printf(sb, "total.expected_callbacks=%llu\n", expected);
	seq_buf_printf(sb, "total.callbacks=%llu\n",
		       all.poll + all.irq + all.other);
	seq_buf_printf(sb, "total.cb_poll=%llu\n", all.poll);
	seq_buf_printf(sb, "total.cb_irq=%llu\n", all.irq);
	seq_buf_printf(sb, "total.cb_other=%llu\n", all.other);
	result_pct(sb, "total.", "poll_pct", all.poll,
		   all.poll + all.irq + all.other);
	seq_buf_printf(sb, "total.ipis_per_sec=%llu\n",
		       result_rate(sent, runtime));
	result_ratio(sb, "total.", "ns_per_ipi", elapsed, sent);
	if (timing && lat)
		hist_emit(sb, "total.", "lat", lat, false);
	vfree(lat);

	callbacks = all.poll + all.irq + all.other;
	if (!buckets && all.poll * 2 < callbacks)
		pr_info("only %llu of %llu callbacks ran from a polling idle task: the TIF_POLLING/SM_IDLE path was hardly exercised (idle=poll, or an idle state that polls, makes it)\n",
			all.poll, callbacks);
}

static int __init ipistorm_init(void)
{
	int ret;

	ret = ipistorm_parse();
	if (ret)
		return ret;
	ret = ipistorm_run();
	if (!ret || ret == -EINTR)
		ret = result_report(&result, KBUILD_MODNAME,
				    ipistorm_result_size(), ipistorm_emit,
				    ret == -EINTR) ?: ret;
	ipistorm_free_senders();
	return ret;
}

static void __exit ipistorm_exit(void)
{
	result_free(&result);
}

module_init(ipistorm_init);
module_exit(ipistorm_exit);

MODULE_DESCRIPTION("smp_call_function storms with per-call latency and delivery accounting");
MODULE_AUTHOR("The ipistorm authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(IPISTORM_SUITE_VERSION);
