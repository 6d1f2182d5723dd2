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

/* Set by ips_clock_init() where the TSC is the clock. */
DECLARE_STATIC_KEY_FALSE(ips_clock_tsc);
extern u32 ips_clock_mult;	/* ns = units * mult >> SHIFT */

void ips_clock_init(void);
u64 ips_clock_ns_long(u64 units);
const char *ips_clock_name(void);

/* Inline: a hook reads the clock twice a span, one instruction each. */
static __always_inline u64 ips_clock_read(void)
{
#ifdef CONFIG_X86
	if (static_branch_likely(&ips_clock_tsc))
		return rdtsc();
#endif
	return sched_clock();
}

/*
 * A difference of two reads in nanoseconds. A short one (under 2^32
 * units, seconds) takes one 64-bit multiply; a 128-bit one would make the
 * caller realign its stack. Inline, as every span of a hook converts one.
 */
static __always_inline u64 ips_clock_ns(u64 units)
{
	if (!static_branch_likely(&ips_clock_tsc))
		return units;
	if (likely(!(units >> 32)))
		return (units * ips_clock_mult) >> IPS_CLOCK_SHIFT;
	return ips_clock_ns_long(units);
}

#endif /* IPISTORM_CLOCK_H */
