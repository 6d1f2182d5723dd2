// SPDX-License-Identifier: GPL-2.0
/*
 * The clock of the suite's hooks (clock.h): the choice of the TSC or
 * sched_clock(), made once, and what is not read on a hook's path.
 */
#include <linux/time64.h>

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

const char *ips_clock_name(void)
{
	return static_branch_likely(&ips_clock_tsc) ? "tsc" : "sched_clock";
}
