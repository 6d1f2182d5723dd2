// SPDX-License-Identifier: GPL-2.0
/*
 * placement - where the scheduler puts a woken task. A waker kthread,
 * bound to the waker= CPU, wakes wakee kthreads in turn, each allowed on
 * every CPU of cpulist= (so the kernel's select_task_rq() chooses), one
 * wake-up in flight at a time; busy= CPUs each run a busy kthread of the
 * module's own (spinning, or with busy_run_us= and busy_sleep_us= in
 * bursts), so that the choice is between idle and busy CPUs. Each
 * wake-up says where the wakee was enqueued (sched:sched_wakeup's
 * task_cpu()), whether that CPU ran its idle task then, how it was
 * notified (polled: sched:sched_wake_idle_without_ipi from the waker; a
 * real IPI on it before the wakee ran; neither), whether the wakee then
 * ran after another task rather than after idle, and the target's LLC
 * and node relative to the waker's CPU and to the wakee's previous CPU;
 * latency percentiles by target state and by LLC relation.
 *
 *   insmod placement.ko numwake=20000 waker=0 cpulist=1-3 busy=1,2
 *
 * A count runs inside insmod (a signal ends it, unreported); duration=
 * seconds too; with neither, the waker runs until stopped: "stop" to
 * /sys/kernel/debug/placement/control, 1 to the stop parameter, or rmmod.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/topology.h>
#include <linux/tracepoint.h>
#include <asm/processor.h>

#include "../common/clock.h"
#include "../common/hist.h"
#include "../common/param.h"
#include "../common/result.h"
#include "../common/session.h"
#include "../common/thread.h"
#include "../common/tp.h"

#define PLACEMENT_FORMAT	"placement/1"
#define MAX_NUMWAKE		100000000UL
#define MAX_DURATION_S		3600U
#define TIME_CAP_S		600U
#define MAX_WAKEES		256U
#define CALIB_HITS		1000U
#define CALIB_RUNS		5U
#define MAX_BURST_US		10000000U

/* ---- parameters -------------------------------------------------------- */

static unsigned long pl_numwake;
module_param_named(numwake, pl_numwake, ulong, 0444);
MODULE_PARM_DESC(numwake, "Wake-ups to make, then report (0: duration= or until stopped)");

static unsigned int pl_duration;
module_param_named(duration, pl_duration, uint, 0444);
MODULE_PARM_DESC(duration, "Seconds to run, then report (0: numwake= or until stopped)");

static int pl_waker = -1;
module_param_named(waker, pl_waker, int, 0444);
MODULE_PARM_DESC(waker, "The waker's CPU (required)");

static struct ips_long_string pl_cpulist = { .max = IPS_MAX_CPULIST_LEN };
module_param_cb(cpulist, &ips_long_string_ops, &pl_cpulist, 0444);
MODULE_PARM_DESC(cpulist, "CPUs the wakees may run on: the kernel chooses among them (required)");

static unsigned int pl_wakees = 1;
module_param_named(wakees, pl_wakees, uint, 0444);
MODULE_PARM_DESC(wakees, "Wakee threads, woken in turn (default 1)");

static struct ips_long_string pl_busy = { .max = IPS_MAX_CPULIST_LEN };
module_param_cb(busy, &ips_long_string_ops, &pl_busy, 0444);
MODULE_PARM_DESC(busy, "CPUs of cpulist each given a busy thread");

static unsigned int pl_busy_run_us;
module_param_named(busy_run_us, pl_busy_run_us, uint, 0444);
MODULE_PARM_DESC(busy_run_us, "With busy_sleep_us: a busy thread's bursts, in us (default 0: it spins)");

static unsigned int pl_busy_sleep_us;
module_param_named(busy_sleep_us, pl_busy_sleep_us, uint, 0444);
MODULE_PARM_DESC(busy_sleep_us, "With busy_run_us: a busy thread's sleep after each burst, in us");

static void placement_finish(bool interrupted);
static struct ips_session pl_session = IPS_SESSION_INIT(pl_session, placement_finish);
module_param_cb(stop, &ips_session_stop_ops, &pl_session, 0644);
MODULE_PARM_DESC(stop, "Write 1 to end a run early, as \"stop\" to the debugfs control file does");

/* The start line's order: the declarations' (common/result.c). */
const char * const ips_params_order[] = {
	"numwake", "duration", "waker", "cpulist", "wakees", "busy",
	"busy_run_us", "busy_sleep_us", "stop",
	NULL,
};

/* ---- what a wake-up is counted in ---------------------------------------- */

/* The scopes with latencies: every wake-up is in total, one state, one relation. */
enum pl_scope {
	PL_TOTAL,
	PL_IDLE,		/* the target ran its idle task at the enqueue */
	PL_BUSY,
	PL_REL,			/* + enum pl_rel: the target against the waker's CPU */
	NR_PL_SCOPES = PL_REL + 4
};

enum pl_rel { PL_SAME_CPU, PL_SAME_LLC, PL_OTHER_LLC, PL_OTHER_NODE, NR_PL_RELS };

static const char * const pl_rel_names[NR_PL_RELS] = {
	"same_cpu", "same_llc", "other_llc", "other_node",
};

enum pl_notify { PL_POLL, PL_IPI, PL_NONE, PL_BOTH, NR_PL_NOTIFY };

static const char * const pl_notify_names[NR_PL_NOTIFY] = {
	"poll", "ipi", "none", "both",
};

/* Per CPU, written on that CPU only (this_cpu ops). */
struct pl_cpu {
	bool on;		/* a CPU of cpulist or the waker's: probes count */
	bool idle;		/* the CPU runs its idle task */
	unsigned long ipi_seq;	/* the wake-up in flight at its last IPI */
	u64 hits;		/* probe calls that did work here */
};

static DEFINE_PER_CPU_ALIGNED(struct pl_cpu, pl_cpu);

/*
 * The wake-up in flight, one at a time: set up by the waker while no
 * probe can write it (task NULL), then written by the probes, each field
 * by one of them, on the CPUs the wake-up goes through, and read by the
 * waker once the wakee has acked and is asleep again.
 */
struct pl_rec {
	struct task_struct *task;	/* the wakee in flight; NULL: none */
	unsigned long seq;
	/* sched_wakeup of the wakee: the enqueue */
	unsigned int wakeups;
	int target;
	bool target_busy;
	bool outside;			/* a target outside cpulist */
	u64 t_enq;
	/* sched_wake_idle_without_ipi for the target, from the waker */
	bool polled;
	/* sched_switch to the wakee: its first run, and its latest */
	unsigned int runs;
	int ran_cpu;
	int cur_cpu;
	bool behind;			/* it ran after a task, not after idle */
	bool ipi;			/* its CPU took an IPI since the wake */
	u64 t_run;
	/* the wakee, running: its CPU, and the latest run's as it read it */
	int self_cpu;
	int self_seen;
	unsigned long ack ____cacheline_aligned_in_smp;
};

static struct pl_rec rec ____cacheline_aligned_in_smp;

struct pl_wakee {
	struct task_struct *task;
	unsigned long seq;		/* written by the waker */
	int error;			/* its affinity could not be set */
	int start;			/* the CPU it starts on */
	int started;			/* the CPU it found itself on then */
	bool ready;			/* in its loop */
};

static struct {
	bool stop ____cacheline_aligned_in_smp;
	unsigned long seq ____cacheline_aligned_in_smp;
	struct task_struct *waker;
	cpumask_var_t cpus;		/* cpulist */
	cpumask_var_t busy;
	cpumask_var_t on;		/* cpulist and the waker's CPU */
	struct pl_wakee *wakees;
	struct task_struct **busy_tasks;	/* by CPU */
	u32 *llc;			/* by CPU */
	u64 *placed;			/* by CPU: wake-ups enqueued there */
	struct ips_hist *lat;		/* [NR_PL_SCOPES]: wake to run */
	struct ips_hist *wait;		/* [NR_PL_SCOPES]: enqueue to run */
	atomic_t busy_running;
	atomic_long_t busy_sleeps;
	struct completion go;
	struct completion done;
	bool probes;
	bool capped;
	u32 hit_ps;		/* one probe hit off the wake-up's path */
	u32 path_ps;		/* the probes on a wake-up's path */

	/* Written by the waker. */
	u64 sent, woken, unclassified, backwards, moved, behind, mismatch;
	u64 moved_before_ack;
	u64 dequeue_waits;	/* wakees still queued, asleep, when due */
	u64 outside, hits;
	u64 count[NR_PL_SCOPES];
	u64 notify[NR_PL_NOTIFY];
	u64 prev[NR_PL_RELS];
	u64 start_ns, end_ns;
	int error;
} run;

/* ---- probes -------------------------------------------------------------- */

static void pl_probe_wakeup(void *data, struct task_struct *p)
{
	int t;

	if (p != READ_ONCE(rec.task))
		return;
	this_cpu_inc(pl_cpu.hits);
	if (rec.wakeups++)
		return;
	t = task_cpu(p);
	rec.t_enq = ips_clock_read_ordered();
	rec.target = t;
	/* The target's runqueue is locked here, as at its switches. */
	rec.target_busy = !per_cpu(pl_cpu.idle, t);
	rec.outside = !cpumask_test_cpu(t, run.cpus);
}

/*
 * From the waker's wake_up_process(), after the wakee's CPU is chosen
 * (set_task_cpu() comes first on both paths): only this CPU's poll counts,
 * not one the waker's interrupts raised for another.
 */
static void pl_probe_noipi(void *data, int cpu)
{
	struct task_struct *p;

	if (current != run.waker)
		return;
	p = READ_ONCE(rec.task);
	if (!p)
		return;
	this_cpu_inc(pl_cpu.hits);
	if (cpu == task_cpu(p))
		rec.polled = true;
}

static void pl_probe_switch(void *data, bool preempt, struct task_struct *prev,
			    struct task_struct *next, unsigned int prev_state)
{
	if (!this_cpu_read(pl_cpu.on))
		return;
	this_cpu_inc(pl_cpu.hits);
	this_cpu_write(pl_cpu.idle, is_idle_task(next));
	if (next != READ_ONCE(rec.task))
		return;
	rec.cur_cpu = smp_processor_id();
	if (rec.runs++)
		return;
	rec.t_run = ips_clock_read_ordered();
	rec.ran_cpu = smp_processor_id();
	rec.behind = !is_idle_task(prev);
	rec.ipi = this_cpu_read(pl_cpu.ipi_seq) == rec.seq;
}

static void pl_probe_ipi(void *data, int vector)
{
	if (!this_cpu_read(pl_cpu.on))
		return;
	this_cpu_inc(pl_cpu.hits);
	this_cpu_write(pl_cpu.ipi_seq, READ_ONCE(run.seq));
}

static struct ips_tp_probe pl_tps[] = {
	{ "sched_wakeup", pl_probe_wakeup },
	{ "sched_wake_idle_without_ipi", pl_probe_noipi },
	{ "sched_switch", pl_probe_switch },
	{ "reschedule_entry", pl_probe_ipi },
	{ "call_function_single_entry", pl_probe_ipi },
};

static void pl_probes_off(void)
{
	if (!run.probes)
		return;
	ips_tp_unprobe_all(pl_tps, ARRAY_SIZE(pl_tps));
	run.probes = false;
}

static int __init pl_probes_on(void)
{
	int ret = ips_tp_probe_all(pl_tps, ARRAY_SIZE(pl_tps), NULL);

	run.probes = !ret;
	return ret;
}

/*
 * The best of CALIB_RUNS runs (an emulator or a hypervisor may stall one)
 * of CALIB_HITS calls of @fn, interrupts off, in ps a call. The
 * tracepoint's own dispatch, a few instructions, is not in it.
 */
static u32 __init pl_calib_run(void (*fn)(void))
{
	unsigned long flags;
	u64 t0, dt = U64_MAX;
	unsigned int i, r;
	u32 mul, div;

	ips_clock_scale(&mul, &div);
	for (r = 0; r < CALIB_RUNS; r++) {
		local_irq_save(flags);
		this_cpu_write(pl_cpu.on, true);
		t0 = ips_clock_read_ordered();
		for (i = 0; i < CALIB_HITS; i++)
			fn();
		dt = min(dt, ips_clock_read_ordered() - t0);
		this_cpu_write(pl_cpu.on, false);
		this_cpu_write(pl_cpu.hits, 0);
		local_irq_restore(flags);
		cond_resched();
	}
	return (u32)min_t(u64, U32_MAX,
			  div64_u64(mul_u64_u32_div(dt, mul, div) * 1000,
				    CALIB_HITS));
}

/* A hit of the probes that fire on every measured CPU, for nothing. */
static void __init pl_calib_idle_hit(void)
{
	pl_probe_switch(NULL, false, current, current, 0);
	pl_probe_ipi(NULL, 0);
}

/*
 * The probes' work on a wake-up's path, between the waker's clock read
 * and the wakee's: the enqueue's, the switch's to the wakee (its clock
 * read included) and an IPI's, on a record of this thread.
 */
static void __init pl_calib_path_hit(void)
{
	rec.wakeups = 0;
	rec.runs = 0;
	pl_probe_wakeup(NULL, current);
	pl_probe_ipi(NULL, 0);
	pl_probe_switch(NULL, false, current, current, 0);
}

static void __init pl_calibrate(void)
{
	run.hit_ps = pl_calib_run(pl_calib_idle_hit) / 2;
	WRITE_ONCE(rec.task, current);
	run.path_ps = pl_calib_run(pl_calib_path_hit);
	WRITE_ONCE(rec.task, NULL);
	memset(&rec, 0, sizeof(rec));
}

/* Whether the CPU runs its idle task: from an IPI, serialised with its switches. */
static void pl_seed_idle(void *unused)
{
	this_cpu_write(pl_cpu.idle, is_idle_task(current));
}

/* ---- topology -------------------------------------------------------------- */

/* The LLC id x86 gives the CPU, the one the scheduler's LLC domain is built from. */
static u32 __init pl_llc_id(int cpu)
{
#ifdef PL_PER_CPU_LLC_ID
	return per_cpu_llc_id(cpu);
#else
	return get_llc_id(cpu);
#endif
}

/*
 * The node first: with Intel's sub-NUMA clustering a package's LLC id
 * spans nodes, and the scheduler splits its LLC domain at them.
 */
static enum pl_rel pl_rel(int a, int b)
{
	if (a == b)
		return PL_SAME_CPU;
	if (cpu_to_node(a) != cpu_to_node(b))
		return PL_OTHER_NODE;
	return run.llc[a] == run.llc[b] ? PL_SAME_LLC : PL_OTHER_LLC;
}

/* ---- the threads ----------------------------------------------------------- */

static int pl_wakee_thread(void *arg)
{
	struct pl_wakee *w = arg;
	unsigned long seen = 0, seq;

	/*
	 * Here, as a kthread may be given its node's CPUs when it starts
	 * (Linux 6.14 and later): an affinity set before would be lost.
	 * First on its start CPU, so that every run's first wake-up has the
	 * same previous CPU, not wherever the kthread was created (the
	 * kernel keeps a wakee where it finds room, even in another LLC).
	 */
	set_cpus_allowed_ptr(current, cpumask_of(w->start));
	w->error = set_cpus_allowed_ptr(current, run.cpus);
	w->started = raw_smp_processor_id();
	/* Pairs with the waker's acquire: from now on asleep is asleep. */
	smp_store_release(&w->ready, true);
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		seq = READ_ONCE(w->seq);
		if (seq == seen) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		seen = seq;
		/*
		 * Its CPU and the one sched_switch saw it come in on, in
		 * one stretch with no switch: a wakee switched out after
		 * its first run (need_resched at once) may run again
		 * elsewhere before it reads, which is no probe's error.
		 */
		preempt_disable();
		rec.self_cpu = smp_processor_id();
		rec.self_seen = READ_ONCE(rec.cur_cpu);
		preempt_enable();
		/* Pairs with pl_wait_ack(): self_cpu goes first. */
		smp_store_release(&rec.ack, seq);
		wake_up_process(run.waker);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* A bursty busy thread's sleep, which a stop ends early. */
static void pl_busy_sleep(void)
{
	ktime_t t = ns_to_ktime((u64)pl_busy_sleep_us * NSEC_PER_USEC);

	/* Before the checks: a stop's kthread_stop() after them wakes us. */
	set_current_state(TASK_IDLE);
	if (!READ_ONCE(run.stop) && !kthread_should_stop()) {
		/* Hard: on PREEMPT_RT a soft one would wake us through ktimers. */
		schedule_hrtimeout(&t, HRTIMER_MODE_REL_HARD);
		atomic_long_inc(&run.busy_sleeps);
	}
	__set_current_state(TASK_RUNNING);
}

/*
 * A busy thread spins on its CPU until the run ends, yielding only to
 * what the scheduler puts beside it, or, bursty, spins busy_run_us and
 * sleeps busy_sleep_us in turn; it stops if its CPU goes offline (the
 * kernel moved it).
 */
static int pl_busy_thread(void *arg)
{
	const int cpu = (long)arg;
	const u64 burst_ns = (u64)pl_busy_run_us * NSEC_PER_USEC;
	u64 end = local_clock() + burst_ns;

	atomic_inc(&run.busy_running);
	while (!READ_ONCE(run.stop) && raw_smp_processor_id() == cpu) {
		cpu_relax();
		ips_thread_pause();
		if (burst_ns && local_clock() >= end) {
			pl_busy_sleep();
			end = local_clock() + burst_ns;
		}
	}
	ips_thread_wait_stop();
	return 0;
}

/*
 * Whether @p is asleep in its loop, off its runqueue and off its CPU: not
 * preempted before its schedule() (still queued, which a wake-up would
 * only requeue), nor asleep but kept queued by a delayed dequeue (Linux
 * 6.12 and later, a task that slept while not eligible), which a wake-up
 * requeues where it is, choosing no CPU.
 */
static bool pl_asleep(struct task_struct *p)
{
	if (READ_ONCE(p->__state) != TASK_INTERRUPTIBLE || READ_ONCE(p->on_rq))
		return false;
	/* Pairs with the switch away: the wakee's stores are seen. */
	return !smp_load_acquire(&p->on_cpu);
}

/*
 * Wait until @p is asleep (pl_asleep()): a spin, then sleeps of a jiffy,
 * as a delayed dequeue behind a busy task may last until its tick, and
 * at once when @p is queued on this CPU, behind the waker. False when
 * the run stops first.
 */
static bool pl_wait_asleep(struct task_struct *p)
{
	unsigned int spins = 0;

	while (!pl_asleep(p)) {
		if (READ_ONCE(run.stop))
			return false;
		if (++spins > 1000 || task_cpu(p) == raw_smp_processor_id())
			schedule_timeout_idle(1);
		else
			cpu_relax();
		ips_thread_pause();
	}
	return true;
}

/* Sleep until the wakee acks wake-up @seq (it wakes us), or the run stops. */
static bool pl_wait_ack(unsigned long seq)
{
	bool acked;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		/* Pairs with the wakee's release: self_cpu is seen. */
		acked = smp_load_acquire(&rec.ack) == seq;
		if (acked || READ_ONCE(run.stop))
			break;
		schedule_timeout(HZ / 10);
	}
	__set_current_state(TASK_RUNNING);
	return acked;
}

static void pl_hist_add(enum pl_scope s, u64 lat, u64 wait)
{
	ips_hist_add(&run.lat[s], lat);
	ips_hist_add(&run.wait[s], wait);
	run.count[s]++;
}

/* One wake-up, the wakee asleep again: where it went and how long it took. */
static void pl_account(int prev, u64 t0)
{
	enum pl_notify n;
	enum pl_rel rel;

	if (rec.wakeups != 1 || !rec.runs || rec.outside) {
		run.unclassified++;
		run.outside += rec.outside;
		return;
	}
	run.mismatch += rec.self_cpu != rec.self_seen;
	run.moved_before_ack += rec.self_cpu != rec.ran_cpu;
	/*
	 * Two CPUs' clocks: a negative time is counted, never wrapped, and
	 * the wake-up is in no split, so that each adds up to the total.
	 */
	if ((s64)(rec.t_run - t0) < 0 || (s64)(rec.t_run - rec.t_enq) < 0) {
		run.backwards++;
		return;
	}
	run.placed[rec.target]++;
	run.moved += rec.ran_cpu != rec.target;
	run.behind += rec.behind;
	if (rec.polled)
		n = rec.ipi ? PL_BOTH : PL_POLL;
	else
		n = rec.ipi ? PL_IPI : PL_NONE;
	run.notify[n]++;
	run.prev[pl_rel(prev, rec.target)]++;
	rel = pl_rel(pl_waker, rec.target);
	pl_hist_add(PL_TOTAL, rec.t_run - t0, rec.t_run - rec.t_enq);
	pl_hist_add(rec.target_busy ? PL_BUSY : PL_IDLE, rec.t_run - t0,
		    rec.t_run - rec.t_enq);
	pl_hist_add(PL_REL + rel, rec.t_run - t0, rec.t_run - rec.t_enq);
}

/* One wake-up: the wakee, then its record, then the next. */
static int pl_loop(void)
{
	const u64 limit = pl_numwake ?: U64_MAX;
	unsigned long seq = 0;
	unsigned int i = 0;
	int prev, woke;
	u64 t0;

	while (run.sent < limit && !READ_ONCE(run.stop)) {
		struct pl_wakee *w = &run.wakees[i];

		if (++i == pl_wakees)
			i = 0;
		if (unlikely(raw_smp_processor_id() != pl_waker))
			return -ENXIO;
		/* Its CPUs all went offline, or its affinity was changed. */
		if (unlikely(!cpumask_equal(w->task->cpus_ptr, run.cpus)))
			return -EXDEV;
		run.dequeue_waits += READ_ONCE(w->task->on_rq) &&
				READ_ONCE(w->task->__state) == TASK_INTERRUPTIBLE;
		if (!pl_wait_asleep(w->task))
			break;
		prev = task_cpu(w->task);
		/* No probe writes the record while its task is NULL. */
		memset(&rec, 0, offsetof(struct pl_rec, ack));
		rec.seq = ++seq;
		rec.target = -1;
		rec.ran_cpu = -1;
		rec.cur_cpu = -1;
		WRITE_ONCE(run.seq, seq);
		WRITE_ONCE(w->seq, seq);
		/* The wake-up's full barrier publishes it to the probes. */
		WRITE_ONCE(rec.task, w->task);
		t0 = ips_clock_read_ordered();
		woke = wake_up_process(w->task);
		/*
		 * Stopped before the ack: this wake-up is not reported. The
		 * wakee may still run and wake the waker: the wakees are
		 * stopped first (pl_stop_threads()).
		 */
		if (!pl_wait_ack(seq)) {
			WRITE_ONCE(rec.task, NULL);
			break;
		}
		run.woken += woke;
		run.sent++;
		/* Its last switch-in's probe has written the record. */
		if (!pl_wait_asleep(w->task)) {
			WRITE_ONCE(rec.task, NULL);
			run.sent--;
			run.woken -= woke;
			break;
		}
		WRITE_ONCE(rec.task, NULL);
		pl_account(prev, t0);
		ips_thread_pause();
	}
	return 0;
}

static int pl_waker_thread(void *arg)
{
	unsigned int i;
	bool stopped;

	wait_for_completion(&run.go);
	/* Every wakee asleep in its loop, every busy thread spinning. */
	for (i = 0; i < pl_wakees; i++) {
		/* Pairs with the wakee's release: its error is seen. */
		while (!smp_load_acquire(&run.wakees[i].ready) &&
		       !READ_ONCE(run.stop))
			schedule_timeout_interruptible(1);
		run.error = run.error ?: run.wakees[i].error;
	}
	while (atomic_read(&run.busy_running) < cpumask_weight(run.busy) &&
	       !READ_ONCE(run.stop))
		schedule_timeout_interruptible(1);
	run.start_ns = ktime_get_ns();
	if (!run.error)
		run.error = pl_loop();
	run.end_ns = ktime_get_ns();
	/* Acquire: pairs with the cap's release, capped is seen with stop. */
	stopped = smp_load_acquire(&run.stop);
	run.capped = !run.error && pl_numwake && run.sent < pl_numwake &&
		     stopped && READ_ONCE(run.capped);
	complete_all(&run.done);
	ips_thread_wait_stop();
	return 0;
}

static void pl_stop_threads(void)
{
	unsigned int i;
	int cpu;

	/* The wakees first: one woken late still wakes the waker. */
	for (i = 0; run.wakees && i < pl_wakees; i++) {
		if (run.wakees[i].task)
			kthread_stop(run.wakees[i].task);
		run.wakees[i].task = NULL;
	}
	if (run.waker)
		kthread_stop(run.waker);
	run.waker = NULL;
	for_each_cpu(cpu, run.busy) {
		if (run.busy_tasks[cpu])
			kthread_stop(run.busy_tasks[cpu]);
		run.busy_tasks[cpu] = NULL;
	}
}

/*
 * Wakee @i's start CPU: cpulist's CPUs in turn, the waker's (if listed)
 * last, so that with two wakees on "waker,target" one starts beside the
 * waker and one on the target.
 */
static int __init pl_start_cpu(unsigned int i)
{
	unsigned int k = i % cpumask_weight(run.cpus);
	int cpu;

	for_each_cpu(cpu, run.cpus) {
		if (cpu != pl_waker && !k--)
			return cpu;
	}
	return pl_waker;
}

/* Create the threads; called with the hotplug lock held. */
static int __init pl_create(void)
{
	struct task_struct *t;
	unsigned int i;
	int cpu;

	t = kthread_create_on_node(pl_waker_thread, NULL, cpu_to_node(pl_waker),
				   "placement/waker");
	if (IS_ERR(t))
		goto err;
	kthread_bind(t, pl_waker);
	run.waker = t;
	for (i = 0; i < pl_wakees; i++) {
		t = kthread_create(pl_wakee_thread, &run.wakees[i],
				   "placement/w%u", i);
		if (IS_ERR(t))
			goto err;
		run.wakees[i].task = t;
		run.wakees[i].start = pl_start_cpu(i);
		run.wakees[i].started = -1;
	}
	for_each_cpu(cpu, run.busy) {
		t = kthread_create_on_node(pl_busy_thread, (void *)(long)cpu,
					   cpu_to_node(cpu), "placement/b%d",
					   cpu);
		if (IS_ERR(t))
			goto err;
		kthread_bind(t, cpu);
		run.busy_tasks[cpu] = t;
	}
	return 0;
err:
	/* Threads never woken exit from kthread_stop() unrun. */
	pl_stop_threads();
	return PTR_ERR(t);
}

/* Count on the measured CPUs, start every thread and release the waker. */
static void __init pl_release(void)
{
	unsigned int i;
	int cpu;

	for_each_cpu(cpu, run.on)
		WRITE_ONCE(per_cpu_ptr(&pl_cpu, cpu)->on, true);
	/* After the switch probe is on: it keeps idle right from here. */
	on_each_cpu_mask(run.on, pl_seed_idle, NULL, true);
	for (i = 0; i < pl_wakees; i++)
		wake_up_process(run.wakees[i].task);
	for_each_cpu(cpu, run.busy)
		wake_up_process(run.busy_tasks[cpu]);
	wake_up_process(run.waker);
	complete_all(&run.go);
}

/* ---- the report ------------------------------------------------------------ */

static void pl_free(void)
{
	kvfree(run.lat);
	kvfree(run.wait);
	kfree(run.placed);
	kfree(run.llc);
	kfree(run.busy_tasks);
	kfree(run.wakees);
	free_cpumask_var(run.cpus);
	free_cpumask_var(run.busy);
	free_cpumask_var(run.on);
	run.lat = NULL;
	run.wait = NULL;
	run.placed = NULL;
	run.llc = NULL;
	run.busy_tasks = NULL;
	run.wakees = NULL;
}

static const char *pl_status(bool interrupted)
{
	if (interrupted)
		return "interrupted";
	if (run.error)
		return "errors";
	if (run.woken != run.sent || run.unclassified || run.mismatch)
		return "invalid";
	if (run.backwards)
		return "unproven";
	if (run.capped)
		return "capped";
	return READ_ONCE(run.stop) && pl_numwake && run.sent < pl_numwake ?
	       "stopped" : "complete";
}

static void pl_emit_count(struct seq_buf *sb, const char *scope, u64 n, u64 all)
{
	char key[64];

	seq_buf_printf(sb, "%s.wakeups=%llu\n", scope, n);
	snprintf(key, sizeof(key), "%s.share_pct", scope);
	ips_result_pct(sb, "", key, n, all);
}

/*
 * A scope's count, share and latencies: with every percentile (p50 to
 * p99.9) for the total and the target's state, p50, p90, p99 and p99.9
 * for the rest, which keeps a run's log short.
 */
static void pl_emit_scope(struct seq_buf *sb, enum pl_scope s, const char *name,
			  u32 mul, u32 div)
{
	char pfx[40];

	pl_emit_count(sb, name, run.count[s], run.count[PL_TOTAL]);
	snprintf(pfx, sizeof(pfx), "%s.", name);
	ips_hist_emit_summary(sb, pfx, "lat", &run.lat[s], s < PL_REL, mul,
			      div);
	ips_hist_emit_summary(sb, pfx, "wait", &run.wait[s], false, mul, div);
}

static unsigned int pl_distinct(bool node)
{
	unsigned int n = 0;
	int cpu, c;

	for_each_cpu(cpu, run.on) {
		for_each_cpu(c, run.on) {
			if (c == cpu) {
				n++;
				break;
			}
			if (node ? cpu_to_node(c) == cpu_to_node(cpu) :
				   run.llc[c] == run.llc[cpu])
				break;
		}
	}
	return n;
}

/* The wakees that found themselves on @cpu when they started. */
static unsigned int pl_started(int cpu)
{
	unsigned int i, n = 0;

	for (i = 0; i < pl_wakees; i++)
		n += run.wakees[i].started == cpu;
	return n;
}

static void placement_emit(struct seq_buf *sb, bool interrupted)
{
	u64 timed = run.count[PL_TOTAL];
	char name[40];
	unsigned int i;
	u64 hits = 0;
	u32 mul, div;
	int cpu;

	ips_clock_scale(&mul, &div);
	for_each_cpu(cpu, run.on)
		hits += per_cpu(pl_cpu.hits, cpu);
	ips_result_header(sb, PLACEMENT_FORMAT, pl_numwake ? "count" :
			  pl_duration ? "timed" : "until_stopped");
	seq_buf_printf(sb, "numwake=%lu\n", pl_numwake);
	seq_buf_printf(sb, "duration_s=%u\n", pl_duration);
	seq_buf_printf(sb, "waker=%d\n", pl_waker);
	seq_buf_printf(sb, "cpulist=%*pbl\n", cpumask_pr_args(run.cpus));
	seq_buf_printf(sb, "wakees=%u\n", pl_wakees);
	seq_buf_printf(sb, "busy=%*pbl\n", cpumask_pr_args(run.busy));
	seq_buf_printf(sb, "busy_run_us=%u\n", pl_busy_run_us);
	seq_buf_printf(sb, "busy_sleep_us=%u\n", pl_busy_sleep_us);
	seq_buf_printf(sb, "clock=%s\n", ips_clock_ordered_name());
	/* A wake-up's two reads are on two CPUs whose skew is not bounded. */
	seq_buf_printf(sb, "clock_reads=two_cpus\n");
	seq_buf_printf(sb, "clock_skew=not_bounded\n");
	seq_buf_printf(sb, "online_cpus=%u\n", num_online_cpus());
	seq_buf_printf(sb, "llcs=%u\n", pl_distinct(false));
	seq_buf_printf(sb, "nodes=%u\n", pl_distinct(true));
	ips_result_ratio(sb, "", "probe_hit_ns", run.hit_ps, 1000);
	for_each_cpu(cpu, run.on) {
		seq_buf_printf(sb, "cpu%d.llc=%u\n", cpu, run.llc[cpu]);
		seq_buf_printf(sb, "cpu%d.node=%d\n", cpu, cpu_to_node(cpu));
		seq_buf_printf(sb, "cpu%d.placed=%llu\n", cpu, run.placed[cpu]);
		seq_buf_printf(sb, "cpu%d.started=%u\n", cpu, pl_started(cpu));
	}
	seq_buf_printf(sb, "status=%s\n", pl_status(interrupted));
	seq_buf_printf(sb, "runtime_ns=%llu\n", run.end_ns - run.start_ns);
	seq_buf_printf(sb, "total.errors=%d\n", !!run.error);
	if (run.error)
		seq_buf_printf(sb, "total.error=%d\n", run.error);
	seq_buf_printf(sb, "total.sent=%llu\n", run.sent);
	seq_buf_printf(sb, "total.woken=%llu\n", run.woken);
	seq_buf_printf(sb, "total.wakeups_per_sec=%llu\n",
		       ips_result_rate(run.sent, run.end_ns - run.start_ns));
	seq_buf_printf(sb, "total.unclassified=%llu\n", run.unclassified);
	seq_buf_printf(sb, "total.outside_cpulist=%llu\n", run.outside);
	seq_buf_printf(sb, "total.witness_mismatch=%llu\n", run.mismatch);
	seq_buf_printf(sb, "total.moved_before_ack=%llu\n", run.moved_before_ack);
	seq_buf_printf(sb, "total.clock_backwards=%llu\n", run.backwards);
	seq_buf_printf(sb, "total.dequeue_waits=%llu\n", run.dequeue_waits);
	seq_buf_printf(sb, "total.moved=%llu\n", run.moved);
	seq_buf_printf(sb, "total.behind=%llu\n", run.behind);
	seq_buf_printf(sb, "total.busy_sleeps=%ld\n",
		       atomic_long_read(&run.busy_sleeps));
	ips_result_ratio(sb, "total.", "probe_hits_per_wakeup", hits, run.sent);
	/* The probes' work on a wake-up's path: in every latency. */
	ips_result_ratio(sb, "total.", "probe_cost_ns", run.path_ps, 1000);
	seq_buf_printf(sb, "total.lat_includes_probes=1\n");
	for (i = 0; i < NR_PL_NOTIFY; i++) {
		snprintf(name, sizeof(name), "notify.%s", pl_notify_names[i]);
		pl_emit_count(sb, name, run.notify[i], timed);
	}
	for (i = 0; i < NR_PL_RELS; i++) {
		snprintf(name, sizeof(name), "prev.%s", pl_rel_names[i]);
		pl_emit_count(sb, name, run.prev[i], timed);
	}
	pl_emit_scope(sb, PL_TOTAL, "total", mul, div);
	pl_emit_scope(sb, PL_IDLE, "target.idle", mul, div);
	pl_emit_scope(sb, PL_BUSY, "target.busy", mul, div);
	for (i = 0; i < NR_PL_RELS; i++) {
		snprintf(name, sizeof(name), "waker.%s", pl_rel_names[i]);
		pl_emit_scope(sb, PL_REL + i, name, mul, div);
	}
	/* The buckets as a sender's, detail kept out of the log. */
	seq_buf_printf(sb, "sender0.cpu=%d\n", pl_waker);
	ips_hist_emit_scaled(sb, "sender0.", "lat", &run.lat[PL_TOTAL], true,
			     mul, div);
}

static size_t pl_result_size(void)
{
	return 65536 + 96 * cpumask_weight(run.on) +
	       64 * ips_hist_used(&run.lat[PL_TOTAL]);
}

/*
 * The session's finish, under its lock, wherever the run ends (its count,
 * duration=, a stop, rmmod, a signal): stop the waker, wait for it, stop
 * counting, remove the probes, report, then end the threads.
 */
static void placement_finish(bool interrupted)
{
	int cpu;

	WRITE_ONCE(run.stop, true);
	wait_for_completion(&run.done);
	for_each_cpu(cpu, run.on)
		WRITE_ONCE(per_cpu_ptr(&pl_cpu, cpu)->on, false);
	pl_probes_off();
	ips_result_report(&pl_session.result, KBUILD_MODNAME, pl_result_size(),
			  placement_emit, interrupted);
	pl_stop_threads();
}

/* ---- checks and init ------------------------------------------------------- */

/* Every check that needs no CPU; a parameter without effect is refused. */
static int __init pl_check_params(void)
{
	int ret = ips_param_count_or_duration("numwake", pl_numwake,
					      MAX_NUMWAKE, pl_duration,
					      MAX_DURATION_S);

	if (ret)
		return ret;
	if (!pl_wakees || pl_wakees > MAX_WAKEES) {
		pr_err("wakees=%u: want 1 to %u\n", pl_wakees, MAX_WAKEES);
		return -EINVAL;
	}
	if (!pl_cpulist.val) {
		pr_err("cpulist=(unset): give the CPUs the wakees may run on\n");
		return -EINVAL;
	}
	if (pl_busy_run_us > MAX_BURST_US || pl_busy_sleep_us > MAX_BURST_US) {
		pr_err("busy_run_us=%u busy_sleep_us=%u: want at most %u each\n",
		       pl_busy_run_us, pl_busy_sleep_us, MAX_BURST_US);
		return -EINVAL;
	}
	if (!pl_busy_run_us != !pl_busy_sleep_us) {
		pr_err("busy_run_us=%u busy_sleep_us=%u: a burst needs both\n",
		       pl_busy_run_us, pl_busy_sleep_us);
		return -EINVAL;
	}
	if (pl_busy_run_us && !pl_busy.val) {
		pr_err("busy_run_us=%u: no busy= CPUs: no effect\n",
		       pl_busy_run_us);
		return -EINVAL;
	}
	return 0;
}

/* The CPUs, under the hotplug lock: every one online. */
static int __init pl_parse_cpus(void)
{
	int cpu;

	if (pl_waker < 0 || pl_waker >= nr_cpu_ids || !cpu_online(pl_waker)) {
		pr_err("waker=%d: not an online CPU\n", pl_waker);
		return -EINVAL;
	}
	if (ips_cpus_parse_online("cpulist", pl_cpulist.val, run.cpus))
		return -EINVAL;
	cpumask_copy(run.on, run.cpus);
	cpumask_set_cpu(pl_waker, run.on);
	if (!pl_busy.val)
		return 0;
	if (ips_cpus_parse_online("busy", pl_busy.val, run.busy))
		return -EINVAL;
	for_each_cpu(cpu, run.busy) {
		if (!cpumask_test_cpu(cpu, run.cpus)) {
			pr_err("busy=%.64s: CPU %d is not in cpulist: no effect on where a wakee goes\n",
			       pl_busy.val, cpu);
			return -EINVAL;
		}
	}
	return 0;
}

static int __init pl_alloc(void)
{
	int cpu;

	if (!zalloc_cpumask_var(&run.cpus, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&run.busy, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&run.on, GFP_KERNEL))
		return -ENOMEM;
	run.wakees = kcalloc(pl_wakees, sizeof(*run.wakees), GFP_KERNEL);
	run.busy_tasks = kcalloc(nr_cpu_ids, sizeof(*run.busy_tasks),
				 GFP_KERNEL);
	run.llc = kcalloc(nr_cpu_ids, sizeof(*run.llc), GFP_KERNEL);
	run.placed = kcalloc(nr_cpu_ids, sizeof(*run.placed), GFP_KERNEL);
	run.lat = kvcalloc(NR_PL_SCOPES, sizeof(*run.lat), GFP_KERNEL);
	run.wait = kvcalloc(NR_PL_SCOPES, sizeof(*run.wait), GFP_KERNEL);
	if (!run.wakees || !run.busy_tasks || !run.llc || !run.placed ||
	    !run.lat || !run.wait)
		return -ENOMEM;
	for (cpu = 0; cpu < NR_PL_SCOPES; cpu++) {
		ips_hist_init(&run.lat[cpu]);
		ips_hist_init(&run.wait[cpu]);
	}
	for_each_possible_cpu(cpu)
		run.llc[cpu] = pl_llc_id(cpu);
	return 0;
}

static int __init placement_init(void)
{
	unsigned long wait = (unsigned long)(pl_duration ?: TIME_CAP_S) * HZ + 1;
	long rc;
	int ret;

	ips_clock_init();
	ret = pl_check_params();
	if (ret)
		return ret;
	init_completion(&run.go);
	init_completion(&run.done);
	ret = pl_alloc();
	if (ret)
		goto free;
	pl_calibrate();
	/* Before the hotplug lock: registering patches the kernel. */
	ret = pl_probes_on();
	if (ret)
		goto free;
	cpus_read_lock();
	ret = pl_parse_cpus();
	if (!ret)
		ret = pl_create();
	if (ret) {
		cpus_read_unlock();
		pl_probes_off();
		goto free;
	}
	cpus_read_unlock();
	/*
	 * The session after the hotplug lock, not inside it: its stop
	 * unregisters tracepoint probes, which takes tracepoints_mutex,
	 * under which registering takes the hotplug lock.
	 */
	ips_session_lock(&pl_session);
	pl_release();
	ips_session_start(&pl_session, pl_duration);
	ips_session_unlock(&pl_session);
	ips_result_log_params("start");

	ips_session_control(&pl_session);
	if (!pl_numwake && !pl_duration)
		return 0;
	/* A count or a duration: inside insmod, to its end, a stop, a signal or the cap. */
	rc = ips_session_wait(&pl_session, &run.done, wait);
	if (rc < 0) {
		pl_free();
		return rc;
	}
	if (!rc && pl_numwake) {
		WRITE_ONCE(run.capped, true);
		/* Pairs with the waker's acquire: capped is seen with it. */
		smp_store_release(&run.stop, true);
	}
	ips_session_stop_request(&pl_session);
	return 0;
free:
	pl_free();
	return ret;
}

static void __exit placement_exit(void)
{
	ips_session_exit(&pl_session);
	ips_session_lock(&pl_session);
	pl_free();
	ips_session_unlock(&pl_session);
}

module_init(placement_init);
module_exit(placement_exit);

MODULE_DESCRIPTION("Where the scheduler places a woken task: idle or busy, its LLC and node, its latency");
MODULE_AUTHOR("The ipistorm authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(IPISTORM_SUITE_VERSION);
