// SPDX-License-Identifier: GPL-2.0
/* test_interrupt= of the modules (irqs.h). */
#include <linux/errno.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "irqs.h"

/*
 * test_interrupt=@mode: refused, with one error naming it, when out of
 * range, or where nothing counts it: without what the module names in
 * @needs (@counted false), or off x86 (no reschedule IPI of our own).
 */
int ips_test_irq_check(unsigned int mode, bool counted, const char *needs)
{
	if (mode >= IPS_NR_TEST_IRQ) {
		pr_err("test_interrupt=%u: 0, 1 (an irq_work) or 2 (a reschedule IPI)\n",
		       mode);
		return -EINVAL;
	}
	if (mode && (!counted || !IS_ENABLED(CONFIG_X86) ||
		     !IS_ENABLED(CONFIG_SMP))) {
		pr_err("test_interrupt=%u: counted with %s only, on x86 SMP\n",
		       mode, needs);
		return -EINVAL;
	}
	return 0;
}

static void ips_test_irq_fn(struct irq_work *work)
{
}

/* Each CPU's irq_work, run in hard IRQ on PREEMPT_RT too. */
void ips_test_irq_init(struct irq_work __percpu *work)
{
	struct irq_work init = IRQ_WORK_INIT_HARD(ips_test_irq_fn);
	int cpu;

	for_each_possible_cpu(cpu)
		memcpy(per_cpu_ptr(work, cpu), &init, sizeof(init));
}

/* No irq_work is raised any more: wait for those still running. */
void ips_test_irq_sync(struct irq_work __percpu *work)
{
	int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(work, cpu));
}
