/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The clock of the suite's hooks: the TSC where it ticks at a constant
 * rate (the CPU says so, or it is a hypervisor's virtual TSC, which
 * sched_clock() itself reads there) and the kernel trusts it (not marked
 * unstable), one
 * instruction a read, converted to nanoseconds by a multiply and a shift;
 * sched_clock() elsewhere (tens of instructions a read: 34-61 in the test
 * bed under instruction counting, against 4-6 for the TSC). Only
 * differences of two reads on one CPU, both outside idle, are used, so a
 * TSC that stops in deep idle states does no harm.
 */
#ifndef IPISTORM_CLOCK_H
#define IPISTORM_CLOCK_H

#include <linux/jump_label.h>
#include <linux/math64.h>
#include <linux/sched/clock.h>
#include <linux/types.h>
#ifdef CONFIG_X86
#include <asm/tsc.h>
#endif

#define IPS_CLOCK_SHIFT	24

static DEFINE_STATIC_KEY_FALSE(ips_clock_tsc);
static u32 ips_clock_mult __read_mostly;	/* ns = units * mult >> SHIFT */

static inline void ips_clock_init(void)
{
#ifdef CONFIG_X86
	if (boot_cpu_has(X86_FEATURE_TSC) &&
	    (boot_cpu_has(X86_FEATURE_CONSTANT_TSC) ||
	     boot_cpu_has(X86_FEATURE_HYPERVISOR)) &&
	    !check_tsc_unstable() && tsc_khz > 4000) {
		ips_clock_mult = div_u64((u64)NSEC_PER_MSEC << IPS_CLOCK_SHIFT,
					 tsc_khz);
		static_branch_enable(&ips_clock_tsc);
	}
#endif
}

static __always_inline u64 ips_clock_read(void)
{
#ifdef CONFIG_X86
	if (static_branch_likely(&ips_clock_tsc))
		return rdtsc();
#endif
	return sched_clock();
}

static noinline u64 ips_clock_ns_long(u64 units)
{
	return mul_u64_u32_shr(units, ips_clock_mult, IPS_CLOCK_SHIFT);
}

/*
 * A difference of two reads in nanoseconds. A short one (under 2^32
 * units, seconds) takes one 64-bit multiply; a 128-bit one would make the
 * caller realign its stack.
 */
static __always_inline u64 ips_clock_ns(u64 units)
{
	if (!static_branch_likely(&ips_clock_tsc))
		return units;
	if (likely(!(units >> 32)))
		return (units * ips_clock_mult) >> IPS_CLOCK_SHIFT;
	return ips_clock_ns_long(units);
}

static inline const char *ips_clock_name(void)
{
	return static_branch_likely(&ips_clock_tsc) ? "tsc" : "sched_clock";
}

#endif /* IPISTORM_CLOCK_H */
