/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own per-CPU interrupt counts, the source of
 * /proc/interrupts: x86's system vectors (irq_stat: NMIs, the local
 * timer, reschedule and call-function IPIs, irq_work, platform and
 * spurious ones; perf's are NMIs) and every CPU's device interrupts
 * (kstat). Not counted
 * there: SMIs, machine checks, thermal and threshold interrupts, a
 * hypervisor's callbacks, KVM's posted-interrupt vectors; the TLB count
 * is left out, as its shootdowns come in call-function IPIs, counted.
 *
 * Each count is a word written by its own CPU only: read from another, a
 * moment's value. The sums are mod 2^32; a difference of two of them is
 * exact for fewer than 2^32 interrupts between the reads.
 *
 * x86's counts are an array indexed by enum irq_stat_counts on 7.x
 * kernels, named fields before: the top Kbuild defines
 * IPS_IRQ_STAT_COUNTS for the former.
 */
#ifndef IPISTORM_IRQS_H
#define IPISTORM_IRQS_H

#include <linux/compiler.h>
#include <linux/irq_work.h>
#include <linux/kernel_stat.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/processor.h>
#include <linux/smp.h>
#include <linux/types.h>
#if defined(CONFIG_X86) && defined(CONFIG_SMP)
#include <asm/hardirq.h>
#include <asm/smp.h>
/* x86's counts, of IPIs too (which need SMP). */
#define IPS_IRQ_X86
#endif

enum ips_irq {
	IPS_IRQ_NMI,
	IPS_IRQ_RESCHED,	/* reschedule IPIs */
	IPS_IRQ_CALL,		/* call-function IPIs, single and many */
};

#ifdef IPS_IRQ_X86
/* The members of irq_cpustat_t that hold each count. */
#ifdef IPS_IRQ_STAT_COUNTS
#define IPS_IRQ_NMI_M		counts[IRQ_COUNT_NMI]
#define IPS_IRQ_TIMER_M		counts[IRQ_COUNT_APIC_TIMER]
#define IPS_IRQ_SPURIOUS_M	counts[IRQ_COUNT_SPURIOUS]
#define IPS_IRQ_PLATFORM_M	counts[IRQ_COUNT_X86_PLATFORM_IPI]
#define IPS_IRQ_WORK_M		counts[IRQ_COUNT_IRQ_WORK]
#define IPS_IRQ_RESCHED_M	counts[IRQ_COUNT_RESCHEDULE]
#define IPS_IRQ_CALL_M		counts[IRQ_COUNT_CALL_FUNCTION]
#else
#define IPS_IRQ_NMI_M		__nmi_count
#define IPS_IRQ_TIMER_M		apic_timer_irqs
#define IPS_IRQ_SPURIOUS_M	irq_spurious_count
#define IPS_IRQ_PLATFORM_M	x86_platform_ipis
#define IPS_IRQ_WORK_M		apic_irq_work_irqs
#define IPS_IRQ_RESCHED_M	irq_resched_count
#define IPS_IRQ_CALL_M		irq_call_count
#endif

/* One of x86's counts in @st, a CPU's irq_stat. */
static __always_inline u32 ips_irq_x86(const irq_cpustat_t *st,
				       enum ips_irq which)
{
	switch (which) {
	case IPS_IRQ_NMI:
		return READ_ONCE(st->IPS_IRQ_NMI_M);
	case IPS_IRQ_RESCHED:
		return READ_ONCE(st->IPS_IRQ_RESCHED_M);
	default:
		return READ_ONCE(st->IPS_IRQ_CALL_M);
	}
}

/*
 * Every interrupt and NMI that x86's system vectors counted in @st; not
 * the perf count, whose interrupts are NMIs, counted as such.
 */
static __always_inline u32 ips_irqs_x86(const irq_cpustat_t *st)
{
	return READ_ONCE(st->IPS_IRQ_NMI_M) + READ_ONCE(st->IPS_IRQ_TIMER_M) +
	       READ_ONCE(st->IPS_IRQ_SPURIOUS_M) +
	       READ_ONCE(st->IPS_IRQ_PLATFORM_M) +
	       READ_ONCE(st->IPS_IRQ_WORK_M) +
	       READ_ONCE(st->IPS_IRQ_RESCHED_M) + READ_ONCE(st->IPS_IRQ_CALL_M);
}
#endif

/* @cpu's count of @which (0 where the architecture keeps none). */
static __always_inline u32 ips_irq_count(int cpu, enum ips_irq which)
{
#ifdef IPS_IRQ_X86
	return ips_irq_x86(per_cpu_ptr(&irq_stat, cpu), which);
#else
	return 0;
#endif
}

/* The same on this CPU: one instruction, safe against interrupts. */
static __always_inline u32 ips_irq_this_cpu(enum ips_irq which)
{
#ifdef IPS_IRQ_X86
	switch (which) {
	case IPS_IRQ_NMI:
		return this_cpu_read(irq_stat.IPS_IRQ_NMI_M);
	case IPS_IRQ_RESCHED:
		return this_cpu_read(irq_stat.IPS_IRQ_RESCHED_M);
	default:
		return this_cpu_read(irq_stat.IPS_IRQ_CALL_M);
	}
#else
	return 0;
#endif
}

/* Every interrupt and NMI counted on @cpu: device and system vectors. */
static __always_inline u32 ips_irqs(int cpu)
{
	u32 n = (u32)READ_ONCE(kstat_cpu(cpu).irqs_sum);

#ifdef IPS_IRQ_X86
	n += ips_irqs_x86(per_cpu_ptr(&irq_stat, cpu));
#endif
	return n;
}

/*
 * Of @all interrupts and NMIs a CPU counted over a window, @call of them
 * call-function IPIs, those other than the @own IPIs a module's work
 * came in: @own is the module's calls run in hard IRQ there, one IPI each
 * at most (an IPI may run more than one). @call is read after @all, and
 * may hold one more: the difference stops at 0.
 */
static inline u64 ips_irqs_other(u32 all, u32 call, u64 own)
{
	return all - min3((u64)call, own, (u64)all);
}

/*
 * test_interrupt= of the modules that flag interrupted spans: an
 * interrupt of the module's own raised inside every span, which the flag
 * must then count. IPS_TEST_IRQ_WORK: an irq_work's self-IPI (through
 * irq_enter_rcu(); in hard IRQ on PREEMPT_RT too); IPS_TEST_IRQ_RESCHED:
 * a reschedule IPI (x86's simple vector, through no irq_enter_rcu()).
 * The module keeps the irq_works, one a CPU (DEFINE_PER_CPU), and
 * ips_test_irq_sync()s them before it goes.
 */
enum {
	IPS_TEST_IRQ_NONE,
	IPS_TEST_IRQ_WORK,
	IPS_TEST_IRQ_RESCHED,
	IPS_NR_TEST_IRQ
};

int ips_test_irq_check(unsigned int mode, bool counted, const char *needs);
void ips_test_irq_init(struct irq_work __percpu *work);
void ips_test_irq_sync(struct irq_work __percpu *work);

/*
 * @mode's interrupt: this CPU's irq_work, or a reschedule IPI to @cpu.
 * To another CPU, it waits (1 ms at most) until @cpu took it: a second
 * reschedule IPI pending beside it (the span's own) would be merged into
 * one interrupt by the APIC, and counted once.
 */
static __always_inline void ips_test_irq_raise(struct irq_work __percpu *work,
					       unsigned int mode, int cpu)
{
#ifdef IPS_IRQ_X86
	/* Not smp_send_reschedule(): its tracepoint is not for modules. */
	void (*resched)(int cpu) = smp_ops.smp_send_reschedule;

	if (mode == IPS_TEST_IRQ_RESCHED && cpu == raw_smp_processor_id()) {
		resched(cpu);
		return;
	}
	if (mode == IPS_TEST_IRQ_RESCHED) {
		u32 before = ips_irq_count(cpu, IPS_IRQ_RESCHED);
		u64 end = ktime_get_mono_fast_ns() + NSEC_PER_MSEC;

		resched(cpu);
		while (ips_irq_count(cpu, IPS_IRQ_RESCHED) == before &&
		       ktime_get_mono_fast_ns() < end)
			cpu_relax();
		return;
	}
#endif
	irq_work_queue(raw_cpu_ptr(work));
}

#endif /* IPISTORM_IRQS_H */
