// SPDX-License-Identifier: GPL-2.0
/*
 * The clock of the suite (clock.h): the choice of the TSC or
 * sched_clock(), made once; what is not read on a hook's path; and the
 * skew of two CPUs' clocks.
 */
#include <linux/compiler.h>
#include <linux/minmax.h>
#include <linux/processor.h>
#include <asm/barrier.h>

#include "clock.h"

DEFINE_STATIC_KEY_FALSE(ips_clock_tsc);
u32 ips_clock_mult __read_mostly;

void ips_clock_init(void)
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

/* A long difference (2^32 units and more): out of line, the rare case. */
noinline u64 ips_clock_ns_long(u64 units)
{
	return mul_u64_u32_shr(units, ips_clock_mult, IPS_CLOCK_SHIFT);
}

/* Units to nanoseconds at report time: ns = units * mul / div. */
void ips_clock_scale(u32 *mul, u32 *div)
{
	*mul = 1;
	*div = 1;
#ifdef CONFIG_X86
	if (static_branch_likely(&ips_clock_tsc)) {
		*mul = USEC_PER_SEC;
		*div = tsc_khz;
	}
#endif
}

#define IPS_CLOCK_PING_DONE	ULONG_MAX

/* The follower stops at once: the lead is done, or will not lead. */
void ips_clock_skew_cancel(struct ips_clock_ping *p)
{
	/* Release: pairs with the follower's acquire. */
	smp_store_release(&p->seq, IPS_CLOCK_PING_DONE);
}

/*
 * The lead's side (clock.h): IPS_CLOCK_SKEW_ROUNDS rounds, or fewer if
 * the follower has not answered IPS_CLOCK_SKEW_WAIT_NS after the start;
 * then the follower is let go. Interrupts stay on: one that lands in a
 * round widens that round's interval, which the others narrow again.
 */
void ips_clock_skew_lead(struct ips_clock_ping *p, struct ips_clock_skew *sk)
{
	u64 until = ktime_get_mono_fast_ns() + IPS_CLOCK_SKEW_WAIT_NS;
	s64 lo = S64_MIN, hi = S64_MAX;
	unsigned long r;
	u64 a, a2, b;

	for (r = 0; r < IPS_CLOCK_SKEW_ROUNDS; r++) {
		a = ips_clock_read_ordered();
		/* Release: the follower reads after a was read. */
		smp_store_release(&p->seq, 2 * r + 1);
		/* Acquire: pairs with the follower's release of its read. */
		while (smp_load_acquire(&p->seq) != 2 * r + 2) {
			if (ktime_get_mono_fast_ns() > until)
				goto out;
			cpu_relax();
		}
		a2 = ips_clock_read_ordered();
		b = READ_ONCE(p->t);
		lo = max_t(s64, lo, (s64)(b - a2));
		hi = min_t(s64, hi, (s64)(b - a));
	}
out:
	ips_clock_skew_cancel(p);
	sk->lo = lo;
	sk->hi = hi;
	sk->rounds = r;
}

/*
 * The follower's side: answer each round until the lead is done, or has
 * not begun a round IPS_CLOCK_SKEW_WAIT_NS after the last answer.
 */
void ips_clock_skew_follow(struct ips_clock_ping *p)
{
	u64 until = ktime_get_mono_fast_ns() + IPS_CLOCK_SKEW_WAIT_NS;
	unsigned long seq, r = 0;

	for (;;) {
		/* Acquire: pairs with the lead's release of round r. */
		seq = smp_load_acquire(&p->seq);
		if (seq == IPS_CLOCK_PING_DONE)
			return;
		if (seq == 2 * r + 1) {
			WRITE_ONCE(p->t, ips_clock_read_ordered());
			/* Release: the lead reads t, then its clock. */
			smp_store_release(&p->seq, 2 * r + 2);
			r++;
			until = ktime_get_mono_fast_ns() + IPS_CLOCK_SKEW_WAIT_NS;
			continue;
		}
		if (ktime_get_mono_fast_ns() > until)
			return;
		cpu_relax();
	}
}

/*
 * The most the follower's clock can be off the lead's, in units: the
 * larger end of the interval in magnitude. U64_MAX where nothing bounds
 * it: no round answered, or rounds that no one offset explains (the
 * clocks moved against each other during the exchange).
 */
u64 ips_clock_skew_bound(const struct ips_clock_skew *sk)
{
	if (!sk->rounds || sk->lo > sk->hi)
		return U64_MAX;
	return max(sk->lo < 0 ? -(u64)sk->lo : (u64)sk->lo,
		   sk->hi < 0 ? -(u64)sk->hi : (u64)sk->hi);
}

/* What ips_clock_read_ordered() reads. */
const char *ips_clock_ordered_name(void)
{
	return static_branch_likely(&ips_clock_tsc) ? "tsc" : "ktime";
}

const char *ips_clock_name(void)
{
	return static_branch_likely(&ips_clock_tsc) ? "tsc" : "sched_clock";
}
