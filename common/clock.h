/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The clock of the suite, one choice for every module: the TSC where it
 * ticks at a constant rate (the CPU says so, or it is a hypervisor's
 * virtual TSC, which sched_clock() itself reads there) and the kernel
 * trusts it (not marked unstable), one instruction a read; elsewhere
 * sched_clock() (tens of instructions a read: 34-61 in the test bed under
 * instruction counting, against 4-6 for the TSC), or, for a span whose two
 * ends are read on two CPUs, the monotonic clock's NMI-safe read.
 *
 * Two reads: ips_clock_read() in a hook, whose span is on one CPU and
 * whose cost, reads included, is calibrated (an ordered read there made
 * 6.1's light instrument cost x1.1014 in the test bed's storm, against
 * x1.0957-x1.1006 unordered, where its bound is x1.10);
 * ips_clock_read_ordered() for a span a loop times, not moved across the
 * loads and stores it times (rdtsc_ordered()). Differences only: two reads on one CPU outside idle
 * (a TSC that stops in deep idle does no harm), or on two CPUs whose
 * skew is bounded (ips_clock_skew_lead()).
 */
#ifndef IPISTORM_CLOCK_H
#define IPISTORM_CLOCK_H

#include <linux/jump_label.h>
#include <linux/math64.h>
#include <linux/sched/clock.h>
#include <linux/time64.h>
#include <linux/ktime.h>
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
const char *ips_clock_ordered_name(void);

void ips_clock_scale(u32 *mul, u32 *div);

/* Inline: a hook reads the clock twice a span, one instruction each. */
static __always_inline u64 ips_clock_read(void)
{
#ifdef CONFIG_X86
	if (static_branch_likely(&ips_clock_tsc))
		return rdtsc();
#endif
	return sched_clock();
}

/* Ordered, and comparable between CPUs (sched_clock() is per CPU). */
static __always_inline u64 ips_clock_read_ordered(void)
{
#ifdef CONFIG_X86
	if (static_branch_likely(&ips_clock_tsc))
		return rdtsc_ordered();
#endif
	return ktime_get_mono_fast_ns();
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

/*
 * The skew of two CPUs' clocks, bounded before a run whose spans start on
 * one and end on the other, by a ping-pong of one cache line between them
 * (the kernel's TSC warp test does the same, to detect a warp): the lead
 * reads its clock (a), hands the line over, the follower reads its own
 * (b) and hands it back, the lead reads again (a2). The follower's read
 * fell between the lead's two, so its clock minus the lead's is within
 * [b - a2, b - a] in each round, and within the rounds' intersection.
 */
#define IPS_CLOCK_SKEW_ROUNDS	64
#define IPS_CLOCK_SKEW_WAIT_NS	(100 * NSEC_PER_MSEC)

struct ips_clock_ping {
	unsigned long seq;	/* the lead's round 2r+1, the answer 2r+2 */
	u64 t;			/* the follower's read of round r */
};

struct ips_clock_skew {
	s64 lo, hi;	/* the follower's clock minus the lead's, in units */
	u32 rounds;	/* rounds answered */
};

void ips_clock_skew_lead(struct ips_clock_ping *p, struct ips_clock_skew *sk);
void ips_clock_skew_cancel(struct ips_clock_ping *p);
void ips_clock_skew_follow(struct ips_clock_ping *p);
u64 ips_clock_skew_bound(const struct ips_clock_skew *sk);

#endif /* IPISTORM_CLOCK_H */
