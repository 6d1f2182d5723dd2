// SPDX-License-Identifier: GPL-2.0
/*
 * polling_idle - TEST AID, not for production machines: a cpuidle driver
 * whose deep state spins with TIF_POLLING_NRFLAG set, the way an MWAIT
 * C-state keeps it set on a real server.
 *
 * QEMU's TCG offers no such state (no cpuidle driver, HLT clears the
 * polling flag), and idle=poll keeps the tick running, so an idle CPU never
 * joins nohz.idle_cpus_mask and no idle-balance kick reaches it. With this
 * driver the governor picks the "POLLTIF" state for long idle periods and
 * stops the tick, and kicks to that CPU arrive through the polling path.
 *
 * The state ends on need_resched() or on any interrupt, whatever its
 * vector, as MWAIT does; otherwise a timer queued by an interrupt handler
 * could wait for the next wake-up. Its enter() runs with RCU not
 * watching: it stays in .cpuidle.text, untraced and uninstrumented, and
 * calls nothing.
 *
 * Load it once per boot: cpuidle_register() fails when another driver owns
 * the CPUs. Unloading waits until no CPU is inside the state or about to
 * enter it (see pi_exit()).
 *
 * It refuses a machine that is not a virtual one: on a server booted with
 * idle=halt (intel_idle and acpi_idle stand down) it would register, and
 * every idle CPU would spin with the tick stopped: no C-state, its SMT
 * sibling slowed, the package's turbo headroom spent. force_bare_metal=1
 * loads it there all the same, and taints the kernel (TAINT_USER).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/context_tracking_state.h>
#include <linux/cpu.h>
#include <linux/cpuidle.h>
#include <linux/delay.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/module.h>
#include <linux/panic.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/sched/idle.h>

#ifdef CONFIG_X86
#include <asm/cpufeature.h>
#endif

/*
 * The governor picks the state, and stops the tick, only for idle periods
 * expected to last longer than this.
 */
static unsigned int pi_residency_us = 100;
module_param_named(residency_us, pi_residency_us, uint, 0444);
MODULE_PARM_DESC(residency_us, "Target residency of the POLLTIF state (microseconds, default 100, 1 to 100000)");

static bool pi_force_bare_metal;
module_param_named(force_bare_metal, pi_force_bare_metal, bool, 0444);
MODULE_PARM_DESC(force_bare_metal, "Load on a machine that is not a virtual one, where every idle CPU then spins: no C-states (taints the kernel; default 0, refused)");

static DEFINE_PER_CPU(int, pi_inside);

/* Whether this is a virtual machine, as the CPU says (CPUID's hypervisor bit). */
static bool pi_virtual(void)
{
#ifdef CONFIG_X86
	return boot_cpu_has(X86_FEATURE_HYPERVISOR);
#else
	return false;
#endif
}

/*
 * A count that moves on every interrupt this CPU takes, whatever its
 * vector (local timer, IPIs, irq_work, thermal, TLB, hypervisor, device
 * interrupts, NMIs), as any of them ends MWAIT. enter() runs in an
 * extended quiescent state (RCU not watching: no CPUIDLE_FLAG_RCU_IDLE),
 * so every interrupt entry and exit flips context tracking's RCU-watching
 * count (ct_irq_enter()/ct_nmi_enter() and their exits): the whole state
 * word differs once one has come and gone. One per-CPU read, no call.
 */
static __always_inline int pi_irqs(void)
{
	return arch_atomic_read(this_cpu_ptr(&context_tracking.state));
}

/*
 * enter() runs with RCU not watching: nothing may trace or instrument it.
 * From 6.2 __cpuidle is noinstr in .cpuidle.text; 6.1's is the section
 * alone, and its enter() had an ftrace call site (listed in
 * available_filter_functions). So noinstr's attributes are spelled out
 * here for every kernel.
 */
static noinline notrace __no_kcsan __no_sanitize_address __no_profile
__no_sanitize_coverage __cpuidle int pi_enter(struct cpuidle_device *dev,
					      struct cpuidle_driver *drv,
					      int index)
{
	int irqs;

	this_cpu_write(pi_inside, 1);
	irqs = pi_irqs();
	raw_local_irq_enable();
	if (!current_set_polling_and_test()) {
		while (!need_resched() && pi_irqs() == irqs)
			cpu_relax();
	}
	raw_local_irq_disable();
	current_clr_polling();
	this_cpu_write(pi_inside, 0);
	return index;
}

static struct cpuidle_driver pi_driver = {
	.name = "polling_idle",
	/* No .owner: it would pin the module while the driver is in use. */
};

static int __init pi_init(void)
{
	struct cpuidle_state *s;
	int ret;

	if (!pi_residency_us || pi_residency_us > 100000) {
		pr_err("residency_us=%u: must be 1 to 100000\n", pi_residency_us);
		return -EINVAL;
	}
	if (pi_force_bare_metal && pi_virtual()) {
		pr_err("force_bare_metal=1: this is a virtual machine, nothing to force\n");
		return -EINVAL;
	}
	if (!pi_virtual() && !pi_force_bare_metal) {
		pr_err("refused: not a virtual machine, where every idle CPU would spin with no C-state (a test aid; force_bare_metal=1 loads it all the same)\n");
		return -EPERM;
	}
	cpuidle_poll_state_init(&pi_driver);
	s = &pi_driver.states[1];
	strscpy(s->name, "POLLTIF", sizeof(s->name));
	strscpy(s->desc, "spin with TIF_POLLING_NRFLAG set (test aid)",
		sizeof(s->desc));
	s->exit_latency = 1;
	s->target_residency = pi_residency_us;
	s->enter = pi_enter;
	pi_driver.state_count = 2;

	ret = cpuidle_register(&pi_driver, NULL);
	if (ret) {
		pr_err("cpuidle_register failed (%d): another cpuidle driver owns the CPUs?\n",
		       ret);
		return ret;
	}
	if (pi_force_bare_metal) {
		/* A user's choice to run a test aid on a real machine. */
		add_taint(TAINT_USER, LOCKDEP_STILL_OK);
		pr_warn("force_bare_metal=1: loaded on a machine that is not a virtual one: idle CPUs spin, no C-states (kernel tainted)\n");
	}
	pr_info("registered: idle CPUs now poll with TIF_POLLING_NRFLAG set and the tick stopped (test aid)\n");
	return 0;
}

/* On each online CPU, from an interrupt or the idle loop's queue flush. */
static void pi_check(void *busy)
{
	if (this_cpu_read(pi_inside))
		atomic_inc(busy);
}

/*
 * cpuidle_unregister() alone does not keep pi_enter() off a CPU: it clears
 * cpuidle's "initialized", wakes the idle CPUs (wake_up_all_idle_cpus(),
 * which does not wait) and calls synchronize_rcu(). That grace period waits
 * for every CPU between cpuidle_idle_call()'s check and the RCU-idle entry
 * (interrupts off, RCU watching), so no CPU starts towards this driver
 * afterwards, but a CPU already past ct_cpuidle_enter() is in an extended
 * quiescent state: it may still be in pi_enter(), or about to call it, when
 * cpuidle_unregister() returns.
 *
 * pi_enter() takes interrupts only in its spin, where pi_inside is 1, and
 * the spin ends on the first one (or on the TIF_NEED_RESCHED write that
 * replaces the IPI while it polls). So a synchronous call that finds
 * pi_inside clear on a CPU ran there while the CPU was outside pi_enter(),
 * and it cannot come back; one that finds it set made the CPU leave, and
 * the next round checks again. The caller of pi_enter(), cpuidle_enter_state(),
 * still reads the driver's states after interrupts are back on; the idle
 * task runs with preemption disabled, so the final synchronize_rcu() waits
 * for that.
 */
static void __exit pi_exit(void)
{
	atomic_t busy;

	cpuidle_unregister(&pi_driver);
	cpus_read_lock();
	for (;;) {
		atomic_set(&busy, 0);
		on_each_cpu(pi_check, &busy, 1);
		if (!atomic_read(&busy))
			break;
		usleep_range(1000, 2000);
	}
	cpus_read_unlock();
	synchronize_rcu();
}

module_init(pi_init);
module_exit(pi_exit);

MODULE_DESCRIPTION("Test aid: cpuidle driver with a TIF_POLLING deep state, like MWAIT");
MODULE_AUTHOR("The ipistorm authors");
MODULE_LICENSE("GPL");
