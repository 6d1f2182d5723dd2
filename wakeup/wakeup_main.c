// SPDX-License-Identifier: GPL-2.0
/*
 * wakeup - wake-ups of tasks sleeping on idle CPUs, timed one by one and
 * each attributed to the path the kernel took to notify the target:
 *  - wl_poll: the wakee was queued on the target's wake list and the
 *    target, idling with TIF_POLLING_NRFLAG, was sent TIF_NEED_RESCHED
 *    instead of an IPI;
 *  - wl_ipi: the wake list and a real call-function IPI;
 *  - rq_poll: the waker enqueued the wakee on the target's runqueue
 *    itself and resched_curr() set TIF_NEED_RESCHED on the polling target;
 *  - rq_ipi: the remote enqueue and a real reschedule IPI;
 *  - busy: no notification (the target was not idle, or a notification
 *    already pending covered this one).
 *
 *   insmod wakeup.ko numwake=20000 pairs=0:1
 *
 * One sender kthread per sender CPU (released together) wakes a wakee
 * kthread bound to its target CPU, waits for it to run, then for it to be
 * back asleep, and again. With rpc=1 the sender instead queues a
 * call-function on the target whose callback wakes the sender, asleep
 * meanwhile: the round trip, split by the call's delivery and by the
 * wake-up's path back.
 *
 * The paths are told from four tracepoints, found by name:
 * sched:sched_wakeup (on the target: the wake list; on the waker: the
 * remote enqueue), sched:sched_wake_idle_without_ipi (on the waker: the
 * target polled), irq_vectors:call_function_single_entry and
 * irq_vectors:reschedule_entry (on the target: a real IPI). Another,
 * power:cpu_idle, says which idle state the wakee's CPU was in when it
 * was notified (common/idle.h): each path is split by it too.
 *
 * A count runs inside insmod (a signal ends it, unreported); duration=
 * seconds too; with neither, the senders run until stopped: "stop" to
 * /sys/kernel/debug/wakeup/control, 1 to the stop parameter, or rmmod.
 * A summary goes to the kernel log; the whole result stays in
 * /sys/kernel/debug/wakeup/result until rmmod.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/jump_label.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#ifdef CONFIG_X86
#include <asm/smp.h>
#endif

#include "../common/clock.h"
#include "../common/hist.h"
#include "../common/idle.h"
#include "../common/irqs.h"
#include "../common/param.h"
#include "../common/result.h"
#include "../common/session.h"
#include "../common/thread.h"
#include "../common/tp.h"

#define WAKEUP_FORMAT		"wakeup/4"
#define MAX_NUMWAKE		100000000UL
#define MAX_DURATION_S		3600U
#define TIME_CAP_S		600U
#define MAX_DELAY_US		1000000U
#define MAX_PAIRS_LEN		16384U
#define CALIB_HITS		1000U
#define CALIB_RUNS		5U
/* A pair's skew bound above this share of its fastest wake-up: unproven. */
#define SKEW_LIMIT_PCT		50U

/* ---- parameters -------------------------------------------------------- */

static unsigned long wk_numwake;
module_param_named(numwake, wk_numwake, ulong, 0444);
MODULE_PARM_DESC(numwake, "Wake-ups per sender, run inside insmod (count, default 0: unset; max 100000000)");

static unsigned int wk_duration;
module_param_named(duration, wk_duration, uint, 0444);
MODULE_PARM_DESC(duration, "Run for this long inside insmod instead of a count (seconds, default 0: unset; max 3600); with neither, run until stopped");

static struct ips_long_string wk_cpulist = { .max = IPS_MAX_CPULIST_LEN };
module_param_cb(cpulist, &ips_long_string_ops, &wk_cpulist, 0444);
MODULE_PARM_DESC(cpulist, "Sender CPUs, kernel cpulist syntax; each wakes a task on sender + offset (give cpulist or pairs)");

static int wk_offset = 1;
static bool wk_offset_given;

static int wakeup_set_offset(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_int(val, kp);

	wk_offset_given |= !ret;
	return ret;
}

static const struct kernel_param_ops wakeup_offset_ops = {
	.set	= wakeup_set_offset,
	.get	= param_get_int,
};

module_param_cb(offset, &wakeup_offset_ops, &wk_offset, 0444);
MODULE_PARM_DESC(offset, "With cpulist: target CPU = sender CPU + offset (CPUs, default 1)");

static struct ips_long_string wk_pairs = { .max = MAX_PAIRS_LEN };
module_param_cb(pairs, &ips_long_string_ops, &wk_pairs, 0444);
MODULE_PARM_DESC(pairs, "Explicit sender:target list such as 0:1,2:3, instead of cpulist/offset; no CPU in two pairs");

static bool wk_rpc;
module_param_cb(rpc, &ips_bool_strict_ops, &wk_rpc, 0444);
MODULE_PARM_DESC(rpc, "1: the sender queues a call-function on the target whose callback wakes the sender; 0: the sender wakes a task on the target (default 0)");

static bool wk_timing = true;
module_param_cb(timing, &ips_bool_strict_ops, &wk_timing, 0444);
MODULE_PARM_DESC(timing, "1: time and attribute every wake-up (tracepoint probes); 0: count only, no probe, no clock read (default 1)");

static unsigned int wk_delay;
module_param_named(delay, wk_delay, uint, 0444);
MODULE_PARM_DESC(delay, "Sleep between wake-ups (microseconds, default 0; max 1000000)");

enum { WK_TEST_IRQ_NONE, WK_TEST_IRQ_SELF, WK_TEST_IRQ_TARGET, NR_WK_TEST_IRQ };
static unsigned int wk_test_interrupt;
module_param_named(test_interrupt, wk_test_interrupt, uint, 0444);
MODULE_PARM_DESC(test_interrupt, "Test only: raise an interrupt inside every timed wake-up, to check that spans_interrupted counts it: 1 an irq_work's self-IPI on the sender, 2 a reschedule IPI to the target (timing=1, x86 only; default 0)");

static void wakeup_finish(bool interrupted);
static struct ips_session wk_session = IPS_SESSION_INIT(wk_session, wakeup_finish);
module_param_cb(stop, &ips_session_stop_ops, &wk_session, 0644);
MODULE_PARM_DESC(stop, "Write 1 to end a run early, as \"stop\" to the debugfs control file does");

/* The start line's order: the declarations' (common/result.c). */
const char * const ips_params_order[] = {
	"numwake", "duration", "cpulist", "offset", "pairs", "rpc", "timing",
	"delay", "test_interrupt", "stop", NULL,
};

/* ---- paths --------------------------------------------------------------- */

enum wk_scope {
	WK_TOTAL,
	WK_WL_POLL,
	WK_WL_IPI,
	WK_RQ_POLL,
	WK_RQ_IPI,
	WK_BUSY,
	WK_CALL_POLL,	/* rpc=1: how the call reached the target */
	WK_CALL_IPI,
	WK_CALL_OTHER,
	NR_WK_SCOPES
};

#define WK_FIRST_PATH	WK_WL_POLL
#define WK_LAST_PATH	WK_BUSY

static const char * const wk_scope_names[NR_WK_SCOPES] = {
	[WK_TOTAL] = "total",
	[WK_WL_POLL] = "wl_poll",
	[WK_WL_IPI] = "wl_ipi",
	[WK_RQ_POLL] = "rq_poll",
	[WK_RQ_IPI] = "rq_ipi",
	[WK_BUSY] = "busy",
	[WK_CALL_POLL] = "call_poll",
	[WK_CALL_IPI] = "call_ipi",
	[WK_CALL_OTHER] = "call_other",
};

/*
 * What the probes counted on one CPU of a pair, written on that CPU only
 * (this_cpu ops: an interrupt cannot tear them) and read by the pair's
 * threads at the end of a wake-up: a snapshot.
 */
struct wk_counts {
	u64 act[2];	/* sched_wakeup here of [0] the wakee, [1] the sender */
	u64 noipi;	/* sched_wake_idle_without_ipi here for the peer CPU */
	u64 cfs_ipi;	/* call_function_single_entry here */
	u64 res_ipi;	/* reschedule_entry here */
	u64 cf_ipi;	/* call_function_entry here (not a path's) */
	u64 hits;	/* the probe calls that counted: the above, idle exits */
	u64 kcall;	/* the kernel's call-function IRQ count here */
	u64 kres;	/* the kernel's reschedule IRQ count here */
	u64 idle_in;	/* cpu_idle entries here */
	unsigned int idle;	/* the state of the last one */
	unsigned int irqs;	/* the kernel's interrupts here (ips_irqs()) */
};

struct wk_cpu {
	struct wk_counts n;
	struct task_struct *task[2];	/* the pair's wakee and sender */
	int peer;
	bool on;
};

static DEFINE_PER_CPU_ALIGNED(struct wk_cpu, wk_cpu);

/* ---- state --------------------------------------------------------------- */

struct wk_sender {
	int cpu;
	int target;
	struct task_struct *task;
	struct task_struct *wakee;	/* rpc=0 */
	call_single_data_t csd;		/* rpc=1 */

	/* Written by the sender. */
	u64 sent;
	u64 woken;
	u64 unclassified;
	/*
	 * Timed from the sender's clock to the wakee's CPU's, which read
	 * earlier: the two CPUs' clocks apart by more than the latency.
	 */
	u64 backwards;
	u64 hits;
	u64 sign[6];		/* per tracepoint: its IPI missed (wk_sign()) */
	u64 start_ns;
	u64 end_ns;
	struct ips_clock_skew skew;	/* the target's clock vs this CPU's */
	int error;
	bool capped;
	u64 count[NR_WK_SCOPES];
	u64 intr[NR_WK_SCOPES];	/* of count[]: spans an interrupt came into */
	/*
	 * timing=1: [NR_WK_SCOPES] per scope, then [wk_last_scope() + 1]
	 * [wk_slots] per scope and the wakee's CPU's idle state (wk_hist()).
	 */
	struct ips_hist *hist;

	/* Written by the sender, read on the target. */
	unsigned long seq ____cacheline_aligned_in_smp;

	/* Written on the target (the wakee, or the call's callback). */
	unsigned long ack ____cacheline_aligned_in_smp;
	u64 t1;
	bool woke;			/* rpc=1: the callback woke the sender */
	/*
	 * The target's counts, copied there at each ack: rpc=0 into
	 * tn[seq & 1], beside the previous ack's (wk_wake_delta()); rpc=1
	 * into tn[0].
	 */
	struct wk_counts tn[2];
	bool wrong_cpu;
	bool ready;			/* the wakee is in its loop */

	/* Both CPUs, before the run: their clocks' skew (rpc=0, timing=1). */
	struct ips_clock_ping ping ____cacheline_aligned_in_smp;
	struct completion ping_go;	/* the wakee may answer */
	struct completion turn;		/* the sender may lead */
	struct wk_sender *next;		/* the next to lead */
};

static struct wk_sender **senders;
static unsigned int nr_senders;

/* The idle states' names, and their slots (idle.h), read at init. */
static struct ips_idle_names wk_idle;
static unsigned int wk_slots;

static struct {
	bool stop ____cacheline_aligned_in_smp;
	atomic_t running ____cacheline_aligned_in_smp;
	struct completion go;
	struct completion done;
	bool capped;
	bool probes;
	u32 hit_ps;		/* calibrated cost of one probe hit, ps */
	unsigned int irq_call[2], irq_res[2];	/* pair CPUs' IRQ counts, start */
} run;

/* ---- probes -------------------------------------------------------------- */

/*
 * The probes read and count with this_cpu ops, one instruction each on
 * x86 (no per-CPU address computed); a count also counts in hits, which
 * the wake loop reads instead of summing every count.
 */
#define wk_hit(field)					\
	do {						\
		this_cpu_inc(wk_cpu.n.field);		\
		this_cpu_inc(wk_cpu.n.hits);		\
	} while (0)

static void wk_probe_wakeup(void *data, struct task_struct *p)
{
	if (!this_cpu_read(wk_cpu.on))
		return;
	if (p == this_cpu_read(wk_cpu.task[0]))
		wk_hit(act[0]);
	else if (p == this_cpu_read(wk_cpu.task[1]))
		wk_hit(act[1]);
}

static void wk_probe_noipi(void *data, int cpu)
{
	if (this_cpu_read(wk_cpu.on) && cpu == this_cpu_read(wk_cpu.peer))
		wk_hit(noipi);
}

static void wk_probe_cfs_ipi(void *data, int vector)
{
	if (this_cpu_read(wk_cpu.on))
		wk_hit(cfs_ipi);
}

static void wk_probe_cf_ipi(void *data, int vector)
{
	if (this_cpu_read(wk_cpu.on))
		wk_hit(cf_ipi);
}

static void wk_probe_res_ipi(void *data, int vector)
{
	if (this_cpu_read(wk_cpu.on))
		wk_hit(res_ipi);
}

/*
 * An idle entry here: its state, the one a wake-up that reaches this CPU
 * next finds it in (idle.h). An exit is a hit too: it runs inside the
 * wake-up it ends.
 */
static void wk_probe_idle(void *data, unsigned int state, unsigned int cpu)
{
	if (!this_cpu_read(wk_cpu.on))
		return;
	if (state == IPS_IDLE_EXIT) {
		this_cpu_inc(wk_cpu.n.hits);
		return;
	}
	this_cpu_write(wk_cpu.n.idle, state);
	wk_hit(idle_in);
}

enum {
	WK_TP_WAKEUP, WK_TP_NOIPI, WK_TP_CFS, WK_TP_RES, WK_TP_CF, WK_TP_IDLE,
	NR_WK_TPS
};

static struct ips_tp_probe wk_tps[NR_WK_TPS] = {
	[WK_TP_WAKEUP] = { "sched_wakeup", wk_probe_wakeup },
	[WK_TP_NOIPI] = { "sched_wake_idle_without_ipi", wk_probe_noipi },
	[WK_TP_CFS] = { "call_function_single_entry", wk_probe_cfs_ipi },
	[WK_TP_RES] = { "reschedule_entry", wk_probe_res_ipi },
	/* The kernel counts its IPIs with call_function_single's. */
	[WK_TP_CF] = { "call_function_entry", wk_probe_cf_ipi },
	[WK_TP_IDLE] = { "cpu_idle", wk_probe_idle },
};

static void wk_probes_off(void)
{
	if (!run.probes)
		return;
	ips_tp_unprobe_all(wk_tps, NR_WK_TPS);
	run.probes = false;
}

static int __init wk_probes_on(void)
{
	int ret = ips_tp_probe_all(wk_tps, NR_WK_TPS, "timing=1");

	BUILD_BUG_ON(ARRAY_SIZE(senders[0]->sign) != NR_WK_TPS);
	run.probes = !ret;
	return ret;
}

/*
 * The cost of one probe hit: the probes called directly on this CPU,
 * counting, interrupts off, CALIB_HITS times each (the tracepoint's own
 * dispatch, a few instructions, is not in it); the best of CALIB_RUNS
 * runs, as an emulator or a hypervisor may stall one. In ps.
 */
static void __init wk_calibrate(void)
{
	struct wk_cpu *c;
	unsigned long flags;
	u64 t0, dt = U64_MAX;
	unsigned int i, r;
	u32 mul, div;

	ips_clock_scale(&mul, &div);
	for (r = 0; r < CALIB_RUNS; r++) {
		local_irq_save(flags);
		c = this_cpu_ptr(&wk_cpu);
		c->task[0] = current;
		c->peer = -1;
		WRITE_ONCE(c->on, true);
		t0 = ips_clock_read_ordered();
		for (i = 0; i < CALIB_HITS; i++) {
			wk_probe_wakeup(NULL, current);
			wk_probe_cfs_ipi(NULL, 0);
			wk_probe_idle(NULL, 0, 0);
		}
		dt = min(dt, ips_clock_read_ordered() - t0);
		WRITE_ONCE(c->on, false);
		memset(c, 0, sizeof(*c));
		local_irq_restore(flags);
		cond_resched();
	}
	run.hit_ps = (u32)min_t(u64, U32_MAX,
				div64_u64(mul_u64_u32_div(dt, mul, div) * 1000,
					  3 * CALIB_HITS));
}

/* The notifications a span of @path measures: one IPI, or none. */
static __always_inline unsigned int wk_notified(enum wk_scope path)
{
	return path == WK_WL_IPI || path == WK_RQ_IPI || path == WK_CALL_IPI;
}

/* test_interrupt=: an interrupt raised inside each timed wake-up. */
static DEFINE_STATIC_KEY_FALSE(wk_test_irq);

static void wk_test_irq_fn(struct irq_work *work)
{
}

static DEFINE_PER_CPU(struct irq_work, wk_test_work);

static __always_inline void wk_test_raise(int target)
{
#ifdef CONFIG_X86
	/* Not smp_send_reschedule(): its tracepoint is not for modules. */
	void (*resched)(int cpu) = smp_ops.smp_send_reschedule;

	if (wk_test_interrupt == WK_TEST_IRQ_TARGET) {
		resched(target);
		return;
	}
#endif
	irq_work_queue(raw_cpu_ptr(&wk_test_work));
}

/* Probe calls that counted, in a delta of counts. */
static __always_inline u64 wk_hits(const struct wk_counts *d)
{
	return d->hits;
}

static void wk_irq_counts(unsigned int *call, unsigned int *res)
{
	unsigned int i;

	*call = 0;
	*res = 0;
	for (i = 0; i < nr_senders; i++) {
		*call += ips_irq_count(senders[i]->cpu, IPS_IRQ_CALL) +
			 ips_irq_count(senders[i]->target, IPS_IRQ_CALL);
		*res += ips_irq_count(senders[i]->cpu, IPS_IRQ_RESCHED) +
			ips_irq_count(senders[i]->target, IPS_IRQ_RESCHED);
	}
}

/* ---- the wake loop ------------------------------------------------------- */

/* The probes' counts of @c into @d. */
static __always_inline void wk_copy(struct wk_counts *d,
				    const struct wk_counts *c)
{
	d->act[0] = READ_ONCE(c->act[0]);
	d->act[1] = READ_ONCE(c->act[1]);
	d->noipi = READ_ONCE(c->noipi);
	d->cfs_ipi = READ_ONCE(c->cfs_ipi);
	d->res_ipi = READ_ONCE(c->res_ipi);
	d->cf_ipi = READ_ONCE(c->cf_ipi);
	d->hits = READ_ONCE(c->hits);
	d->idle_in = READ_ONCE(c->idle_in);
	d->idle = READ_ONCE(c->idle);
}

static __always_inline void wk_snap(struct wk_counts *d)
{
	wk_copy(d, this_cpu_ptr(&wk_cpu.n));
	d->kcall = ips_irq_this_cpu(IPS_IRQ_CALL);
	d->kres = ips_irq_this_cpu(IPS_IRQ_RESCHED);
	d->irqs = ips_irqs(raw_smp_processor_id());
}

/*
 * rpc=1, before the first call: the target's counts, as the sender reads
 * them from its own CPU. Every wake-up of the sender before the run (its
 * start, run.go's) was counted where it fired, maybe on the target, and
 * before the sender ran again (under the sender's runqueue lock, which
 * its schedule() then took): seen here, and out of the first call's.
 */
static void wk_snap_cpu(struct wk_counts *d, int cpu)
{
	wk_copy(d, per_cpu_ptr(&wk_cpu.n, cpu));
	d->kcall = ips_irq_count(cpu, IPS_IRQ_CALL);
	d->kres = ips_irq_count(cpu, IPS_IRQ_RESCHED);
}

/* @now - @prev into @d, and @prev = @now. */
static void wk_delta(struct wk_counts *d, struct wk_counts *prev,
		     const struct wk_counts *now)
{
	d->act[0] = now->act[0] - prev->act[0];
	d->act[1] = now->act[1] - prev->act[1];
	d->noipi = now->noipi - prev->noipi;
	d->cfs_ipi = now->cfs_ipi - prev->cfs_ipi;
	d->res_ipi = now->res_ipi - prev->res_ipi;
	d->cf_ipi = now->cf_ipi - prev->cf_ipi;
	d->hits = now->hits - prev->hits;
	d->kcall = now->kcall - prev->kcall;
	d->kres = now->kres - prev->kres;
	d->idle_in = now->idle_in - prev->idle_in;
	d->idle = now->idle;
	*prev = *now;
}

/*
 * The path of one wake-up of task @who (0: the wakee, 1: the sender) from
 * what the probes counted during it on the waker's CPU (@w) and the
 * wakee's (@t): activated on the wakee's CPU, the wake list; on the
 * waker's, a remote enqueue; then polled, a real IPI, or neither. A
 * wake-up is one activation: NR when the two CPUs counted other than one
 * (counts that were not this wake-up's).
 */
static __always_inline enum wk_scope wk_path(const struct wk_counts *w,
					     const struct wk_counts *t,
					     int who)
{
	if (t->act[who] + w->act[who] != 1)
		return NR_WK_SCOPES;
	if (t->act[who])
		return w->noipi ? WK_WL_POLL : t->cfs_ipi ? WK_WL_IPI : WK_BUSY;
	return w->noipi ? WK_RQ_POLL : t->res_ipi ? WK_RQ_IPI : WK_BUSY;
}

/* Scope @p's histogram of wake-ups whose wakee's CPU was in idle @slot. */
static __always_inline struct ips_hist *wk_hist(struct wk_sender *s,
						enum wk_scope p,
						unsigned int slot)
{
	return &s->hist[NR_WK_SCOPES + p * wk_slots + slot];
}

/*
 * A sample of scope @p, the wakee's CPU in idle @slot: counted, timed;
 * @intr: an interrupt came into it.
 */
static __always_inline void wk_add(struct wk_sender *s, enum wk_scope p,
				   unsigned int slot, u64 dt, bool intr)
{
	s->count[p]++;
	s->intr[p] += intr;
	ips_hist_add(&s->hist[p], dt);
	ips_hist_add(wk_hist(s, p, slot), dt);
}

/* The idle slot of the CPU whose counts' delta is @d. */
static __always_inline unsigned int wk_slot(const struct wk_counts *d)
{
	return ips_idle_slot(&wk_idle, d->idle_in, d->idle);
}

static __always_inline void wk_account(struct wk_sender *s,
				       enum wk_scope path, unsigned int slot,
				       u64 dt, bool intr)
{
	/* Counted, never a wrapped latency in the last bucket. */
	if (unlikely((s64)dt < 0)) {
		s->backwards++;
		return;
	}
	if (path == NR_WK_SCOPES) {
		s->unclassified++;
		return;
	}
	wk_add(s, path, slot, dt, intr);
}

/*
 * A wake-up put in busy while the kernel counted more IPIs on the wakee's
 * CPU (@t) than the probes did: a probe that missed its IPI, the sign
 * that it does not fire. The kernel's call count also counts
 * smp_call_function_many()'s IPIs: call_function_entry's probe counts
 * those.
 */
static __always_inline void wk_sign(struct wk_sender *s, enum wk_scope path,
				    const struct wk_counts *t)
{
	if (path != WK_BUSY && path != WK_CALL_OTHER)
		return;
	if (t->kcall > t->cfs_ipi + t->cf_ipi)
		s->sign[WK_TP_CFS]++;
	if (path == WK_BUSY && t->kres > t->res_ipi)
		s->sign[WK_TP_RES]++;
}

/* Spin until the wakee is asleep and off its CPU, or the sender moved. */
static __always_inline void wk_wait_asleep(struct task_struct *p)
{
	/* Acquire: the wakee's stores before it left its CPU are seen. */
	while (task_is_running(p) || smp_load_acquire(&p->on_cpu))
		cpu_relax();
}

static __always_inline void wk_wait_ack(struct wk_sender *s,
					unsigned long seq)
{
	/* Pairs with the target's release: its t1 and counts are seen. */
	while (smp_load_acquire(&s->ack) != seq)
		cpu_relax();
}

/*
 * rpc=0, the counts of wake-up @seq that wk_path() reads, and the probe
 * calls that counted on both CPUs (returned): the sender's CPU's read
 * here against @pw (as of the previous ack), the target's as the wakee
 * copied them at its ack, tn[seq & 1], against the previous ack's, in
 * the other; no copy, and the rest only for a busy one (wk_wake_sign()).
 */
static __always_inline u64 wk_wake_delta(struct wk_sender *s,
					 unsigned long seq,
					 struct wk_counts *pw,
					 struct wk_counts *dw,
					 struct wk_counts *dt)
{
	const struct wk_counts *now = &s->tn[seq & 1];
	const struct wk_counts *prev = &s->tn[~seq & 1];
	u64 act = this_cpu_read(wk_cpu.n.act[0]);
	u64 noipi = this_cpu_read(wk_cpu.n.noipi);
	u64 hits = this_cpu_read(wk_cpu.n.hits);

	dw->act[0] = act - pw->act[0];
	dw->noipi = noipi - pw->noipi;
	dw->hits = hits - pw->hits;
	pw->act[0] = act;
	pw->noipi = noipi;
	pw->hits = hits;
	dt->act[0] = now->act[0] - prev->act[0];
	dt->cfs_ipi = now->cfs_ipi - prev->cfs_ipi;
	dt->res_ipi = now->res_ipi - prev->res_ipi;
	dt->hits = now->hits - prev->hits;
	dt->idle_in = now->idle_in - prev->idle_in;
	dt->idle = now->idle;
	return dw->hits + dt->hits;
}

/* rpc=0, a busy wake-up @seq: the target's counts that wk_sign() reads. */
static __always_inline void wk_wake_sign(struct wk_sender *s,
					 unsigned long seq,
					 struct wk_counts *dt)
{
	const struct wk_counts *now = &s->tn[seq & 1];
	const struct wk_counts *prev = &s->tn[~seq & 1];

	dt->cf_ipi = now->cf_ipi - prev->cf_ipi;
	dt->kcall = now->kcall - prev->kcall;
	dt->kres = now->kres - prev->kres;
	wk_sign(s, WK_BUSY, dt);
}

/*
 * rpc=0: wake the wakee, wait for it to run (it acks, with the time it
 * ran and its CPU's counts), then for it to sleep again. @timed: the
 * clock, the probes' counts and the histograms; without, the bare loop.
 * The probe calls are summed here and stored once, at the end.
 */
static __always_inline int wk_loop_wake(struct wk_sender *s, bool timed)
{
	const u64 limit = wk_numwake ?: U64_MAX;
	const unsigned int pause = wk_delay;
	const int cpu = s->cpu;
	struct task_struct *wakee = s->wakee;
	struct wk_counts pw = {}, dw = {}, dt = {};
	unsigned long seq = 0;
	unsigned int is0 = 0, it0 = 0, is1 = 0;
	u64 t0 = 0, hits = 0;
	int ret = 0;

	if (timed)
		wk_snap(&pw);
	/*
	 * Before, its state may read TASK_WAKING: not asleep. Acquire:
	 * pairs with the wakee's release (and its first counts, tn[0]).
	 */
	while (!smp_load_acquire(&s->ready))
		cpu_relax();
	while (s->sent < limit && !READ_ONCE(run.stop)) {
		if (unlikely(raw_smp_processor_id() != cpu)) {
			ret = -ENXIO;
			break;
		}
		wk_wait_asleep(wakee);
		WRITE_ONCE(s->seq, ++seq);
		if (timed) {
			/* Both CPUs' interrupts, from here to the ack. */
			is0 = ips_irqs(cpu);
			it0 = ips_irqs(s->target);
			t0 = ips_clock_read_ordered();
			if (static_branch_unlikely(&wk_test_irq))
				wk_test_raise(s->target);
		}
		s->woken += wake_up_process(wakee);
		if (timed)
			is1 = ips_irqs(cpu);
		s->sent++;
		wk_wait_ack(s, seq);
		if (timed)
			hits += wk_wake_delta(s, seq, &pw, &dw, &dt);
		/*
		 * The wakee ran elsewhere (its target went offline) or the
		 * sender did (its CPU went offline): the counts are not the
		 * pair's, the wake-up is busy; the run ends.
		 */
		if (unlikely(READ_ONCE(s->wrong_cpu) ||
			     raw_smp_processor_id() != cpu)) {
			if (timed)
				wk_account(s, WK_BUSY, 0, s->t1 - t0, false);
			ret = -ENXIO;
			break;
		}
		if (timed) {
			enum wk_scope path = wk_path(&dw, &dt, 0);
			unsigned int n = is1 - is0 + s->tn[seq & 1].irqs - it0;

			wk_account(s, path, wk_slot(&dt), s->t1 - t0,
				   n > wk_notified(path));
			if (unlikely(path == WK_BUSY))
				wk_wake_sign(s, seq, &dt);
		}
		/*
		 * The pause ends with the sender's wake-up by its timer, on
		 * its CPU: this CPU's counts are taken again after it, so that
		 * it is in no wake-up's counts.
		 */
		if (pause)
			usleep_range(pause, pause);
		if (pause && timed)
			wk_snap(&pw);
		ips_thread_pause();
	}
	if (timed)
		s->hits = hits;
	return ret;
}

static int wk_wakee(void *arg)
{
	struct wk_sender *s = arg;
	unsigned long seen = 0, seq;
	u64 t1 = 0;

	/*
	 * The skew of this CPU's clock against the sender's (the sender
	 * lets us go, wk_skew()), then the baseline of this CPU's counts,
	 * before the first wake-up.
	 */
	if (wk_timing) {
		wait_for_completion(&s->ping_go);
		ips_clock_skew_follow(&s->ping);
		wk_snap(&s->tn[0]);
	}
	/* Pairs with the sender's acquire: from now on asleep is asleep. */
	smp_store_release(&s->ready, true);
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		seq = READ_ONCE(s->seq);
		if (seq == seen) {
			schedule();
			if (wk_timing)
				t1 = ips_clock_read_ordered();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		seen = seq;
		s->t1 = t1;
		if (wk_timing)
			wk_snap(&s->tn[seq & 1]);
		if (raw_smp_processor_id() != s->target)
			WRITE_ONCE(s->wrong_cpu, true);
		/* Pairs with wk_wait_ack(): t1, tn and wrong_cpu go first. */
		smp_store_release(&s->ack, seq);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* rpc=1: the call's callback, on the target, wakes the sender. */
static void wk_rpc_cb(void *info)
{
	struct wk_sender *s = info;

	WRITE_ONCE(s->t1, READ_ONCE(s->seq));	/* the sender's wake condition */
	/* 0: the sender saw t1 before it slept, and no wake-up was needed. */
	WRITE_ONCE(s->woke, wake_up_process(s->task));
	if (wk_timing)
		wk_snap(&s->tn[0]);
	/* Pairs with wk_wait_ack(): the counts copied go first. */
	smp_store_release(&s->ack, READ_ONCE(s->seq));
}

static __always_inline enum wk_scope wk_call_path(const struct wk_counts *w,
						  const struct wk_counts *t)
{
	return w->noipi ? WK_CALL_POLL : t->cfs_ipi ? WK_CALL_IPI :
	       WK_CALL_OTHER;
}

/*
 * rpc=1: queue the call and sleep until its callback wakes us; the round
 * trip from the call to running again. The callback's stores (after its
 * wake-up) are waited for before the csd is used again.
 */
static __always_inline int wk_loop_rpc(struct wk_sender *s, bool timed)
{
	const u64 limit = wk_numwake ?: U64_MAX;
	const unsigned int pause = wk_delay;
	const int cpu = s->cpu, target = s->target;
	struct wk_counts pw = {}, pt = {}, nw, dw, dt;
	unsigned long seq = 0;
	unsigned int is0 = 0, it0 = 0;
	u64 t0 = 0, t1;
	int ret = 0;

	if (timed) {
		wk_snap(&pw);
		wk_snap_cpu(&pt, target);
	}
	while (s->sent < limit && !READ_ONCE(run.stop)) {
		if (unlikely(raw_smp_processor_id() != cpu)) {
			ret = -ENXIO;
			break;
		}
		WRITE_ONCE(s->seq, ++seq);
		set_current_state(TASK_INTERRUPTIBLE);
		if (timed) {
			/* Both CPUs' interrupts: the target's to its callback. */
			is0 = ips_irqs(cpu);
			it0 = ips_irqs(target);
			t0 = ips_clock_read_ordered();
			if (static_branch_unlikely(&wk_test_irq))
				wk_test_raise(target);
		}
		ret = smp_call_function_single_async(target, &s->csd);
		if (unlikely(ret)) {
			__set_current_state(TASK_RUNNING);
			break;
		}
		s->sent++;
		while (READ_ONCE(s->t1) != seq) {
			schedule();
			set_current_state(TASK_INTERRUPTIBLE);
		}
		__set_current_state(TASK_RUNNING);
		t1 = timed ? ips_clock_read_ordered() : 0;
		wk_wait_ack(s, seq);
		/* The csd is free once the callback returned (acquire). */
		while (smp_load_acquire(&s->csd.node.u_flags) & CSD_FLAG_LOCK)
			cpu_relax();
		s->woken++;
		/* Woken elsewhere, its CPU gone: busy; the run ends. */
		if (unlikely(raw_smp_processor_id() != cpu)) {
			if (timed) {
				/* Two CPUs' clocks: wk_account() counts a backwards one. */
				if ((s64)(t1 - t0) >= 0)
					wk_add(s, WK_CALL_OTHER, 0, t1 - t0, false);
				wk_account(s, WK_BUSY, 0, t1 - t0, false);
			}
			ret = -ENXIO;
			break;
		}
		if (timed) {
			enum wk_scope call, path;
			unsigned int n;
			bool intr;

			wk_snap(&nw);
			n = nw.irqs - is0 + s->tn[0].irqs - it0;
			wk_delta(&dw, &pw, &nw);
			wk_delta(&dt, &pt, &s->tn[0]);
			s->hits += wk_hits(&dw) + wk_hits(&dt);
			call = wk_call_path(&dw, &dt);
			/*
			 * The wake-up came from the target: roles swapped. A
			 * round trip with none (the sender never slept) is busy.
			 */
			path = READ_ONCE(s->woke) ? wk_path(&dt, &dw, 1) : WK_BUSY;
			intr = n > wk_notified(call) + wk_notified(path);
			wk_add(s, call, wk_slot(&dt), t1 - t0, intr);
			wk_sign(s, call, &dt);
			wk_account(s, path, wk_slot(&dw), t1 - t0, intr);
			wk_sign(s, path, &dw);
		}
		/* The pause's own wake-up: as in wk_loop_wake(). */
		if (pause)
			usleep_range(pause, pause);
		if (pause && timed)
			wk_snap(&pw);
		ips_thread_pause();
	}
	return ret;
}

static int wk_run(struct wk_sender *s)
{
	if (wk_rpc)
		return wk_timing ? wk_loop_rpc(s, true) : wk_loop_rpc(s, false);
	return wk_timing ? wk_loop_wake(s, true) : wk_loop_wake(s, false);
}

/*
 * rpc=0 times from this CPU's clock to the target's: their skew, bounded
 * one pair at a time, in the senders' order, each letting the next go,
 * as pairs measured at once would slow each other (and under an emulator
 * that runs one vCPU at a time, take turns with every other pair's); the
 * senders waiting sleep, and the last releases them all: no pair runs
 * beside an exchange. The wakee answers once let go. A stop cancels the
 * exchanges left, which leaves those skews unbounded.
 */
static void wk_skew(struct wk_sender *s)
{
	wait_for_completion(&s->turn);
	complete(&s->ping_go);
	if (!READ_ONCE(run.stop))
		ips_clock_skew_lead(&s->ping, &s->skew);
	else
		ips_clock_skew_cancel(&s->ping);
	if (s->next)
		complete(&s->next->turn);
	else
		complete_all(&run.go);
}

static int wk_sender_thread(void *arg)
{
	struct wk_sender *s = arg;
	unsigned int p, slot;
	bool stopped;

	if (wk_timing && !wk_rpc)
		wk_skew(s);
	wait_for_completion(&run.go);
	s->start_ns = ktime_get_ns();
	s->error = wk_run(s);
	s->end_ns = ktime_get_ns();
	if (s->hist) {
		for (p = WK_FIRST_PATH; p <= WK_LAST_PATH; p++) {
			s->intr[WK_TOTAL] += s->intr[p];
			ips_hist_merge(&s->hist[WK_TOTAL], &s->hist[p]);
			for (slot = 0; slot < wk_slots; slot++)
				ips_hist_merge(wk_hist(s, WK_TOTAL, slot),
					       wk_hist(s, p, slot));
		}
	}
	/* The timed ones: a backwards latency is no latency. */
	s->count[WK_TOTAL] = s->woken - s->backwards;
	/* Acquire: pairs with the cap's release, capped is seen with stop. */
	stopped = smp_load_acquire(&run.stop);
	s->capped = !s->error && wk_numwake && s->sent < wk_numwake && stopped &&
		    READ_ONCE(run.capped);
	if (atomic_dec_and_test(&run.running))
		complete_all(&run.done);
	ips_thread_wait_stop();
	return 0;
}

/* ---- the run ------------------------------------------------------------- */

static void wk_cpu_set(int cpu, int peer, const struct wk_sender *s)
{
	struct wk_cpu *c = per_cpu_ptr(&wk_cpu, cpu);

	memset(c, 0, sizeof(*c));
	c->task[0] = s->wakee;
	c->task[1] = s->task;
	c->peer = peer;
	WRITE_ONCE(c->on, wk_timing);
}

static void wk_cpu_clear(int cpu)
{
	WRITE_ONCE(per_cpu_ptr(&wk_cpu, cpu)->on, false);
}

static void wk_stop_threads(void)
{
	unsigned int i;

	for (i = 0; i < nr_senders; i++) {
		struct wk_sender *s = senders[i];

		if (s->task)
			kthread_stop(s->task);
		if (s->wakee)
			kthread_stop(s->wakee);
		s->task = NULL;
		s->wakee = NULL;
	}
}

static struct task_struct *__init wk_thread(int (*fn)(void *), void *arg,
					    int cpu, const char *what)
{
	struct task_struct *t;

	t = kthread_create_on_node(fn, arg, cpu_to_node(cpu), "wakeup/%s%d",
				   what, cpu);
	if (!IS_ERR(t))
		kthread_bind(t, cpu);
	return t;
}

/* Create the threads, bound; called with the hotplug lock held. */
static int __init wk_create(void)
{
	unsigned int i;

	for (i = 0; i < nr_senders; i++) {
		struct wk_sender *s = senders[i];
		struct task_struct *t;

		t = wk_thread(wk_sender_thread, s, s->cpu, "s");
		if (IS_ERR(t))
			goto err;
		s->task = t;
		if (wk_rpc) {
			INIT_CSD(&s->csd, wk_rpc_cb, s);
			continue;
		}
		t = wk_thread(wk_wakee, s, s->target, "w");
		if (IS_ERR(t))
			goto err;
		s->wakee = t;
	}
	return 0;
err:
	/* Threads never woken exit from kthread_stop() unrun. */
	wk_stop_threads();
	return -ENOMEM;
}

/* Start every thread and release the senders together. */
static void __init wk_release(void)
{
	unsigned int i;

	for (i = 0; i < nr_senders; i++) {
		wk_cpu_set(senders[i]->cpu, senders[i]->target, senders[i]);
		wk_cpu_set(senders[i]->target, senders[i]->cpu, senders[i]);
	}
	wk_irq_counts(&run.irq_call[0], &run.irq_res[0]);
	for (i = 0; i < nr_senders; i++) {
		if (senders[i]->wakee)
			wake_up_process(senders[i]->wakee);
		wake_up_process(senders[i]->task);
	}
	/* With skews to bound, the last exchange releases them (wk_skew()). */
	if (wk_timing && !wk_rpc)
		complete(&senders[0]->turn);
	else
		complete_all(&run.go);
}

/* ---- the report ---------------------------------------------------------- */

static void wk_free_senders(void)
{
	unsigned int i;

	for (i = 0; i < nr_senders; i++) {
		kvfree(senders[i]->hist);
		kfree(senders[i]);
	}
	kfree(senders);
	senders = NULL;
	nr_senders = 0;
}

static bool wk_skew_over(const struct wk_sender *s);

struct wk_totals {
	u64 sent, woken, unclassified, backwards, errors, capped, hits, runtime;
	u64 skew_over;		/* pairs (rpc=0, timing=1) */
	u64 skew_max;		/* units; U64_MAX: one unbounded */
	u64 count[NR_WK_SCOPES];
	u64 intr[NR_WK_SCOPES];
};

static void wk_totals(struct wk_totals *t)
{
	u64 start = U64_MAX, end = 0;
	unsigned int i, p;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < nr_senders; i++) {
		const struct wk_sender *s = senders[i];

		t->sent += s->sent;
		t->woken += s->woken;
		t->unclassified += s->unclassified;
		t->backwards += s->backwards;
		t->errors += !!s->error;
		t->capped += s->capped;
		t->hits += s->hits;
		if (wk_timing && !wk_rpc) {
			t->skew_over += wk_skew_over(s);
			t->skew_max = max(t->skew_max,
					  ips_clock_skew_bound(&s->skew));
		}
		for (p = 0; p < NR_WK_SCOPES; p++) {
			t->count[p] += s->count[p];
			t->intr[p] += s->intr[p];
		}
		start = min(start, s->start_ns);
		end = max(end, s->end_ns);
	}
	t->runtime = end > start ? end - start : 0;
}

static unsigned int wk_last_scope(void)
{
	return wk_rpc ? WK_CALL_OTHER : WK_LAST_PATH;
}

/* The keys of one scope: its count, share and latency percentiles. */
static void wk_emit_scope(struct seq_buf *sb, const char *pfx,
			  const char *name, u64 n, u64 all,
			  const struct ips_hist *h, u32 mul, u32 div)
{
	char key[64];

	seq_buf_printf(sb, "%s%s.wakeups=%llu\n", pfx, name, n);
	snprintf(key, sizeof(key), "%s.share_pct", name);
	ips_result_pct(sb, pfx, key, n, all);
	if (!h)
		return;
	snprintf(key, sizeof(key), "%s.lat", name);
	ips_hist_emit_summary(sb, pfx, key, h, true, mul, div);
}

/*
 * Scope @p split by the idle state its wake-ups found the wakee's CPU in
 * (rpc=1's calls: the target's), the states that hold any: as a scope,
 * their share of @p's. @h is scratch.
 */
static void wk_emit_states(struct seq_buf *sb, enum wk_scope p, u64 n,
			   struct ips_hist *h, u32 mul, u32 div)
{
	unsigned int i, slot;
	char name[64];

	for (slot = 0; slot < wk_slots; slot++) {
		ips_hist_init(h);
		for (i = 0; i < nr_senders; i++)
			ips_hist_merge(h, wk_hist(senders[i], p, slot));
		if (!h->n)
			continue;
		snprintf(name, sizeof(name), "%s.idle_%s", wk_scope_names[p],
			 ips_idle_label(&wk_idle, slot));
		wk_emit_scope(sb, "", name, h->n, n, h, mul, div);
	}
}

/* Clock units to ns, signed. */
static s64 wk_signed_ns(s64 units, u32 mul, u32 div)
{
	u64 ns = mul_u64_u32_div(units < 0 ? -(u64)units : units, mul, div);

	return units < 0 ? -(s64)ns : ns;
}

/*
 * rpc=0: a pair whose clocks' skew is unbounded, or bounded above
 * SKEW_LIMIT_PCT of its fastest wake-up: its latencies are off by up to
 * the skew, unproven.
 */
static bool wk_skew_over(const struct wk_sender *s)
{
	u64 bound = ips_clock_skew_bound(&s->skew);

	if (bound == U64_MAX)
		return true;
	if (!s->hist || !s->hist[WK_TOTAL].n)
		return false;
	return bound * 100 > (u64)SKEW_LIMIT_PCT * s->hist[WK_TOTAL].min;
}

static void wk_emit_skew(struct seq_buf *sb, const char *pfx,
			 const struct wk_sender *s, u32 mul, u32 div)
{
	u64 bound = ips_clock_skew_bound(&s->skew);

	seq_buf_printf(sb, "%sclock_skew_rounds=%u\n", pfx, s->skew.rounds);
	seq_buf_printf(sb, "%sclock_skew_bounded=%d\n", pfx, bound != U64_MAX);
	if (bound != U64_MAX) {
		seq_buf_printf(sb, "%sclock_offset_lo_ns=%lld\n", pfx,
			       wk_signed_ns(s->skew.lo, mul, div));
		seq_buf_printf(sb, "%sclock_offset_hi_ns=%lld\n", pfx,
			       wk_signed_ns(s->skew.hi, mul, div));
		seq_buf_printf(sb, "%sclock_skew_ns=%llu\n", pfx,
			       mul_u64_u32_div(bound, mul, div));
		if (s->hist && s->hist[WK_TOTAL].n)
			ips_result_pct(sb, pfx, "clock_skew_pct_of_lat_min",
				       bound, s->hist[WK_TOTAL].min);
	}
	seq_buf_printf(sb, "%sclock_skew_over=%d\n", pfx, wk_skew_over(s));
}

static void wk_emit_sender(struct seq_buf *sb, unsigned int i, u32 mul,
			   u32 div)
{
	const struct wk_sender *s = senders[i];
	u64 elapsed = s->end_ns - s->start_ns;
	unsigned int p;
	char pfx[24];

	snprintf(pfx, sizeof(pfx), "sender%u.", i);
	seq_buf_printf(sb, "%scpu=%d\n", pfx, s->cpu);
	seq_buf_printf(sb, "%starget=%d\n", pfx, s->target);
	seq_buf_printf(sb, "%serrors=%d\n", pfx, !!s->error);
	if (s->error)
		seq_buf_printf(sb, "%serror=%d\n", pfx, s->error);
	if (s->capped)
		seq_buf_printf(sb, "%scapped=1\n", pfx);
	seq_buf_printf(sb, "%ssent=%llu\n", pfx, s->sent);
	seq_buf_printf(sb, "%swoken=%llu\n", pfx, s->woken);
	seq_buf_printf(sb, "%selapsed_ns=%llu\n", pfx, elapsed);
	ips_result_ratio(sb, pfx, "ns_per_wakeup", elapsed, s->sent);
	if (!wk_timing)
		return;
	seq_buf_printf(sb, "%sunclassified=%llu\n", pfx, s->unclassified);
	seq_buf_printf(sb, "%sclock_backwards=%llu\n", pfx, s->backwards);
	seq_buf_printf(sb, "%sspans_interrupted=%llu\n", pfx,
		       s->intr[WK_TOTAL]);
	if (!wk_rpc)
		wk_emit_skew(sb, pfx, s, mul, div);
	for (p = WK_FIRST_PATH; p <= wk_last_scope(); p++)
		seq_buf_printf(sb, "%s%s.wakeups=%llu\n", pfx, wk_scope_names[p],
			       s->count[p]);
	ips_hist_emit_scaled(sb, pfx, "lat", &s->hist[WK_TOTAL], true, mul,
			     div);
}

static const char *wk_proof(unsigned int tp, const struct wk_totals *t)
{
	u64 fired = 0, sign = 0;
	unsigned int i;

	for (i = 0; i < nr_senders; i++) {
		const struct wk_sender *s = senders[i];
		const struct wk_cpu *a = per_cpu_ptr(&wk_cpu, s->cpu);
		const struct wk_cpu *b = per_cpu_ptr(&wk_cpu, s->target);

		sign += s->sign[tp];
		switch (tp) {
		case WK_TP_WAKEUP:
			fired += a->n.act[0] + a->n.act[1] + b->n.act[0] +
				 b->n.act[1];
			break;
		case WK_TP_NOIPI:
			fired += a->n.noipi + b->n.noipi;
			break;
		case WK_TP_CFS:
			fired += a->n.cfs_ipi + b->n.cfs_ipi;
			break;
		case WK_TP_RES:
			fired += a->n.res_ipi + b->n.res_ipi;
			break;
		case WK_TP_CF:
			fired += a->n.cf_ipi + b->n.cf_ipi;
			break;
		case WK_TP_IDLE:
			fired += a->n.idle_in + b->n.idle_in;
			break;
		}
	}
	/*
	 * sched_wakeup must fire once a wake-up; an IPI's probe is
	 * unproven when it missed an IPI that the kernel counted during a
	 * wake-up put in busy (wk_sign()), even if it fired elsewhere.
	 */
	if (tp == WK_TP_WAKEUP && !fired && t->woken)
		return "unproven";
	if (sign)
		return "unproven";
	return fired ? "proven" : "untested";
}

static const char *wk_status(const struct wk_totals *t, bool interrupted,
			     bool unproven)
{
	if (interrupted)
		return "interrupted";
	if (t->errors)
		return "errors";
	if (t->woken != t->sent || (wk_timing && t->unclassified))
		return "invalid";
	if (unproven || (wk_timing && (t->backwards || t->skew_over)))
		return "unproven";
	if (t->capped)
		return "capped";
	return READ_ONCE(run.stop) && wk_numwake && t->sent < wk_numwake * nr_senders ?
	       "stopped" : "complete";
}

static void wakeup_emit(struct seq_buf *sb, bool interrupted)
{
	/* static: merging cannot fail after the run; one report a load */
	static struct ips_hist merged;
	struct ips_hist *h = &merged;
	struct wk_totals t;
	unsigned int i, p, call = 0, res = 0;
	bool unproven = false;
	u32 mul, div;

	ips_clock_scale(&mul, &div);
	wk_totals(&t);
	ips_result_header(sb, WAKEUP_FORMAT, wk_numwake ? "count" :
			  wk_duration ? "timed" : "until_stopped");
	seq_buf_printf(sb, "numwake=%lu\n", wk_numwake);
	seq_buf_printf(sb, "duration_s=%u\n", wk_duration);
	seq_buf_printf(sb, "rpc=%d\n", wk_rpc);
	seq_buf_printf(sb, "timing=%d\n", wk_timing);
	seq_buf_printf(sb, "delay_us=%u\n", wk_delay);
	if (wk_test_interrupt)
		seq_buf_printf(sb, "test_interrupt=%u\n", wk_test_interrupt);
	seq_buf_printf(sb, "clock=%s\n", ips_clock_ordered_name());
	if (wk_timing) {
		/* rpc=1 reads both ends on the sender's CPU: no skew. */
		seq_buf_printf(sb, "clock_reads=%s\n",
			       wk_rpc ? "one_cpu" : "two_cpus");
		if (!wk_rpc)
			seq_buf_printf(sb, "clock_skew_limit_pct=%u\n",
				       SKEW_LIMIT_PCT);
	}
	seq_buf_printf(sb, "online_cpus=%u\n", num_online_cpus());
	seq_buf_printf(sb, "senders=%u\n", nr_senders);
	if (wk_timing) {
		seq_buf_printf(sb, "idle_driver=%s\n", wk_idle.driver);
		seq_buf_printf(sb, "idle_driver_changed=%d\n",
			       ips_idle_driver_changed(&wk_idle));
	}
	if (wk_timing) {
		wk_irq_counts(&call, &res);
		call -= run.irq_call[0];
		res -= run.irq_res[0];
		for (i = 0; i < NR_WK_TPS; i++) {
			const char *pr = wk_proof(i, &t);

			unproven |= !strcmp(pr, "unproven");
			seq_buf_printf(sb, "proof.%s=%s\n", wk_tps[i].name, pr);
		}
		seq_buf_printf(sb, "irq_call_function=%u\n", call);
		seq_buf_printf(sb, "irq_reschedule=%u\n", res);
		ips_result_ratio(sb, "", "probe_hit_ns", run.hit_ps, 1000);
	}
	for (i = 0; i < nr_senders; i++)
		wk_emit_sender(sb, i, mul, div);
	seq_buf_printf(sb, "status=%s\n", wk_status(&t, interrupted, unproven));
	seq_buf_printf(sb, "runtime_ns=%llu\n", t.runtime);
	seq_buf_printf(sb, "total.errors=%llu\n", t.errors);
	seq_buf_printf(sb, "total.sent=%llu\n", t.sent);
	seq_buf_printf(sb, "total.woken=%llu\n", t.woken);
	seq_buf_printf(sb, "total.wakeups_per_sec=%llu\n",
		       ips_result_rate(t.sent, t.runtime));
	if (!wk_timing) {
		seq_buf_printf(sb, "total.wakeups=%llu\n", t.woken);
		return;
	}
	seq_buf_printf(sb, "total.unclassified=%llu\n", t.unclassified);
	seq_buf_printf(sb, "total.clock_backwards=%llu\n", t.backwards);
	if (!wk_rpc) {
		seq_buf_printf(sb, "total.clock_skew_over=%llu\n", t.skew_over);
		if (t.skew_max != U64_MAX)
			seq_buf_printf(sb, "total.clock_skew_max_ns=%llu\n",
				       mul_u64_u32_div(t.skew_max, mul, div));
	}
	ips_result_ratio(sb, "total.", "probe_hits_per_wakeup", t.hits, t.woken);
	ips_result_ratio(sb, "total.", "probe_cost_ns",
			 t.woken ? div64_u64(t.hits * run.hit_ps, t.woken) : 0,
			 1000);
	seq_buf_printf(sb, "total.lat_includes_probes=1\n");
	for (p = 0; p <= wk_last_scope(); p++) {
		ips_hist_init(h);
		for (i = 0; i < nr_senders; i++)
			ips_hist_merge(h, &senders[i]->hist[p]);
		wk_emit_scope(sb, "", wk_scope_names[p], t.count[p],
			      p >= WK_CALL_POLL ? t.sent : t.woken, h, mul, div);
		seq_buf_printf(sb, "%s.spans_interrupted=%llu\n",
			       wk_scope_names[p], t.intr[p]);
		wk_emit_states(sb, p, t.count[p], h, mul, div);
	}
}

static size_t wk_result_size(void)
{
	size_t size = 16384;
	unsigned int i;

	/* The scopes by idle state: a few lines each, its percentiles. */
	if (wk_timing)
		size += NR_WK_SCOPES * wk_slots * 1024;
	for (i = 0; i < nr_senders; i++)
		size += 2048 + (senders[i]->hist ?
				64 * ips_hist_used(&senders[i]->hist[WK_TOTAL]) : 0);
	return size;
}

/*
 * The session's finish, under its lock, wherever the run ends (its count,
 * duration=, a stop, rmmod, a signal): stop the senders, wait for them,
 * remove the probes, report, then end the threads.
 */
static void wakeup_finish(bool interrupted)
{
	unsigned int i;
	int cpu;

	WRITE_ONCE(run.stop, true);
	wait_for_completion(&run.done);
	/* No sender raises test_interrupt's work now: none may run after us. */
	if (static_branch_unlikely(&wk_test_irq))
		for_each_possible_cpu(cpu)
			irq_work_sync(per_cpu_ptr(&wk_test_work, cpu));
	for (i = 0; i < nr_senders; i++) {
		wk_cpu_clear(senders[i]->cpu);
		wk_cpu_clear(senders[i]->target);
	}
	wk_probes_off();
	ips_result_report(&wk_session.result, KBUILD_MODNAME,
			  wk_result_size(), wakeup_emit, interrupted);
	wk_stop_threads();
}

/* ---- checks and init ----------------------------------------------------- */

static int __init wk_add_sender(int cpu, int target, struct cpumask *used)
{
	struct wk_sender *s;
	unsigned int p, n;

	if (cpumask_test_cpu(cpu, used) || cpumask_test_cpu(target, used)) {
		pr_err("%s: CPU %d is in two pairs: each CPU would see the other pair's IPIs\n",
		       wk_pairs.val ? "pairs" : "offset",
		       cpumask_test_cpu(cpu, used) ? cpu : target);
		return -EINVAL;
	}
	cpumask_set_cpu(cpu, used);
	cpumask_set_cpu(target, used);
	s = kzalloc_node(sizeof(*s), GFP_KERNEL, cpu_to_node(cpu));
	if (!s)
		return -ENOMEM;
	s->cpu = cpu;
	s->target = target;
	init_completion(&s->ping_go);
	init_completion(&s->turn);
	if (wk_timing) {
		n = NR_WK_SCOPES + (wk_last_scope() + 1) * wk_slots;
		s->hist = kvmalloc_array(n, sizeof(*s->hist), GFP_KERNEL);
		if (!s->hist) {
			kfree(s);
			return -ENOMEM;
		}
		for (p = 0; p < n; p++)
			ips_hist_init(&s->hist[p]);
	}
	if (nr_senders)
		senders[nr_senders - 1]->next = s;
	senders[nr_senders++] = s;
	return 0;
}

static bool __init wk_cpu_usable(long cpu)
{
	return cpu >= 0 && cpu < nr_cpu_ids && cpu_online(cpu);
}

static int __init wk_parse_cpulist(struct cpumask *used)
{
	cpumask_var_t mask;
	int cpu, ret;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	ret = ips_cpus_parse_online("cpulist", wk_cpulist.val, mask);
	if (ret)
		goto out;
	for_each_cpu(cpu, mask) {
		long t = (long)cpu + wk_offset;

		if (!wk_offset || !wk_cpu_usable(t)) {
			pr_err("offset=%d: target %ld of sender CPU %d is not another online CPU\n",
			       wk_offset, t, cpu);
			ret = -EINVAL;
			break;
		}
		ret = wk_add_sender(cpu, t, used);
		if (ret)
			break;
	}
out:
	free_cpumask_var(mask);
	return ret;
}

static int __init wk_parse_pair(char *tok, unsigned int n, unsigned int *s,
				unsigned int *t)
{
	char *colon = strchr(tok, ':');

	if (!colon) {
		pr_err("pairs=...: pair %u '%.16s' is not sender:target\n", n,
		       tok);
		return -EINVAL;
	}
	*colon = '\0';
	if (kstrtouint(tok, 10, s) || kstrtouint(colon + 1, 10, t)) {
		pr_err("pairs=...: pair %u '%.16s:%.16s' is not two CPU numbers\n",
		       n, tok, colon + 1);
		return -EINVAL;
	}
	if (!wk_cpu_usable(*s) || !wk_cpu_usable(*t) || *s == *t) {
		pr_err("pairs=...: pair %u %u:%u %s\n", n, *s, *t,
		       *s == *t ? "wakes its own CPU" :
		       "names a CPU that is not online");
		return -EINVAL;
	}
	return 0;
}

static int __init wk_parse_pairs(struct cpumask *used)
{
	char *buf, *p, *tok;
	unsigned int n = 0;
	int ret = 0;

	buf = kstrdup(wk_pairs.val, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	p = buf;
	while ((tok = strsep(&p, ",")) != NULL) {
		unsigned int s, t;

		ret = wk_parse_pair(tok, ++n, &s, &t) ?:
		      wk_add_sender(s, t, used);
		if (ret)
			break;
	}
	kfree(buf);
	return ret;
}

/* Every check that needs no CPU; a parameter without effect is refused. */
static int __init wk_check_params(void)
{
	int ret = ips_param_count_or_duration("numwake", wk_numwake,
					      MAX_NUMWAKE, wk_duration,
					      MAX_DURATION_S);

	if (ret)
		return ret;
	if (wk_delay > MAX_DELAY_US) {
		pr_err("delay=%u: more than %u microseconds\n", wk_delay,
		       MAX_DELAY_US);
		return -EINVAL;
	}
	if (!wk_cpulist.val == !wk_pairs.val) {
		pr_err("cpulist=%s pairs=%s: give exactly one of cpulist or pairs\n",
		       wk_cpulist.val ? "..." : "(unset)",
		       wk_pairs.val ? "..." : "(unset)");
		return -EINVAL;
	}
	if (wk_offset_given && wk_pairs.val) {
		pr_err("offset=%d: has no effect with pairs=\n", wk_offset);
		return -EINVAL;
	}
	if (wk_test_interrupt >= NR_WK_TEST_IRQ) {
		pr_err("test_interrupt=%u: 0, 1 (an irq_work on the sender) or 2 (a reschedule IPI to the target)\n",
		       wk_test_interrupt);
		return -EINVAL;
	}
	if (wk_test_interrupt && (!wk_timing || !IS_ENABLED(CONFIG_X86))) {
		pr_err("test_interrupt=%u: counted with timing=1 only, on x86\n",
		       wk_test_interrupt);
		return -EINVAL;
	}
	return 0;
}

/* test_interrupt=: each CPU's interrupt work, then the loops' key. */
static void __init wk_test_irq_init(void)
{
	int cpu;

	/* In hard IRQ, on PREEMPT_RT too. */
	for_each_possible_cpu(cpu)
		per_cpu(wk_test_work, cpu) = IRQ_WORK_INIT_HARD(wk_test_irq_fn);
	static_branch_enable(&wk_test_irq);
}

static int __init wk_parse_cpus(void)
{
	cpumask_var_t used;
	int ret;

	if (!zalloc_cpumask_var(&used, GFP_KERNEL))
		return -ENOMEM;
	senders = kcalloc(nr_cpu_ids, sizeof(*senders), GFP_KERNEL);
	if (!senders) {
		free_cpumask_var(used);
		return -ENOMEM;
	}
	ret = wk_pairs.val ? wk_parse_pairs(used) : wk_parse_cpulist(used);
	free_cpumask_var(used);
	if (ret)
		wk_free_senders();
	return ret;
}

static int __init wakeup_init(void)
{
	unsigned long wait = (unsigned long)(wk_duration ?: TIME_CAP_S) * HZ + 1;
	long rc;
	int ret;

	ips_clock_init();
	ret = wk_check_params();
	if (ret)
		return ret;
	init_completion(&run.go);
	init_completion(&run.done);
	if (wk_test_interrupt)
		wk_test_irq_init();
	if (wk_timing) {
		ips_idle_names_init(&wk_idle);
		wk_slots = ips_idle_slots(&wk_idle);
		wk_calibrate();
		/* Before the hotplug lock: registering patches the kernel. */
		ret = wk_probes_on();
		if (ret)
			return ret;
	}
	cpus_read_lock();
	ret = wk_parse_cpus();
	if (!ret) {
		ret = wk_create();
		if (ret)
			wk_free_senders();
	}
	if (ret) {
		cpus_read_unlock();
		wk_probes_off();
		return ret;
	}
	cpus_read_unlock();
	/*
	 * The senders are bound: the session after the hotplug lock, not
	 * inside it, as its stop unregisters tracepoint probes, which takes
	 * tracepoints_mutex, under which registering takes the hotplug lock.
	 */
	atomic_set(&run.running, nr_senders);
	ips_session_lock(&wk_session);
	wk_release();
	ips_session_start(&wk_session, wk_duration);
	ips_session_unlock(&wk_session);
	ips_result_log_params("start");

	ips_session_control(&wk_session);
	if (!wk_numwake && !wk_duration)
		return 0;
	/*
	 * A count or a duration: inside insmod, to its end (or every
	 * sender's, on an error), a stop, a signal or the count's cap.
	 */
	rc = ips_session_wait(&wk_session, &run.done, wait);
	if (rc < 0) {
		wk_free_senders();
		return rc;
	}
	if (!rc && wk_numwake) {
		WRITE_ONCE(run.capped, true);
		/* Pairs with the senders' acquire: capped is seen with it. */
		smp_store_release(&run.stop, true);
	}
	ips_session_stop_request(&wk_session);
	return 0;
}

static void __exit wakeup_exit(void)
{
	ips_session_exit(&wk_session);
	ips_session_lock(&wk_session);
	wk_free_senders();
	ips_session_unlock(&wk_session);
}

module_init(wakeup_init);
module_exit(wakeup_exit);

MODULE_DESCRIPTION("Wake-ups of tasks on idle CPUs, timed and attributed to the kernel's notification path");
MODULE_AUTHOR("The ipistorm authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(IPISTORM_SUITE_VERSION);
