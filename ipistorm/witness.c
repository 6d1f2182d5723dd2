// SPDX-License-Identifier: GPL-2.0
/*
 * ipistorm: the sender's witness of how each call was notified.
 * Part of ipistorm_main.c's unit: included there, in its order.
 */

/* ---- the sender's witness ---------------------------------------------- */

/*
 * The kernel notifies a CPU of a queued call only when its queue was empty,
 * from send_call_function_single_ipi() (smp_call_function_many() too, when
 * it notified one CPU alone): it sets TIF_NEED_RESCHED on a polling idle
 * target instead of an IPI, and fires sched_wake_idle_without_ipi, or it
 * sends an IPI, through arch_send_call_function_single_ipi(), which is
 * native_send_call_func_single_ipi() on x86 (smp_ops, unless a hypervisor
 * replaced it: witness_start() checks) and an out-of-line function of its
 * own elsewhere. A call notified neither way was queued behind one whose
 * notification covers it. Hooking the IPI itself, not the decision, keeps
 * the ftrace trampoline off the polled calls: they cost the tracepoint
 * probe only.
 *
 * Both counters take one filter: the sender's task, in task context (an
 * interrupt on the sender's CPU runs with its current), for its target,
 * during one of the storm's calls (resched_curr(), wake_up_idle_cpu() and
 * a wakeup queued on the target's wake list notify it too). A call is
 * notified at most once, so the two never exceed the calls.
 */
static __always_inline struct sender *witness_match(int cpu)
{
	struct sender *s = this_cpu_read(witness_sender);

	if (s && READ_ONCE(s->in_call) && in_task() && current == s->task &&
	    cpu == s->target)
		return s;
	return NULL;
}

static notrace void witness_ipi(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *op,
				struct ftrace_regs *fregs)
{
	struct sender *s = witness_match((int)ips_hook_arg0(fregs));

	if (s)
		s->ipi++;
}

static void witness_no_ipi(void *data, int cpu)
{
	struct sender *s = witness_match(cpu);

	if (s)
		s->no_ipi++;
}

#ifdef CONFIG_X86
#define WITNESS_IPI_FN		"native_send_call_func_single_ipi"
#else
#define WITNESS_IPI_FN		"arch_send_call_function_single_ipi"
#endif

static struct ips_hook witness_hooks[] = {
	{
		.names = IPS_HOOK_NAMES(WITNESS_IPI_FN),
		.required = true,
	},
};

/*
 * One hook: its own callback, no lookup of the call site, and no flags.
 * FTRACE_OPS_FL_RECURSION would ask ftrace to add recursion protection:
 * ftrace_ops_get_func() then routes every call through
 * ftrace_ops_assist_func(), which takes the recursion lock and disables
 * preemption around our callback (on 6.1, 6.12 and 7.3 alike; so does
 * FTRACE_OPS_FL_RCU, which the callback does not need: what it counts runs
 * in the sender's task, where RCU watches, and it reads no RCU-protected
 * data). Neither is needed: witness_ipi() is notrace and calls nothing
 * traceable (this_cpu_read(), in_task(), current and ips_hook_arg0() are
 * inline), so it cannot recurse into itself; and the hooked function is
 * only called with preemption disabled (its callers queue a call on a CPU
 * they hold: smp_call_function_single()'s get_cpu() for ours).
 */
static struct ips_hook_set witness_set = {
	.hooks = witness_hooks,
	.n = ARRAY_SIZE(witness_hooks),
	.func = witness_ipi,
};

static struct tracepoint *witness_tp;

/*
 * A witness probe that the kernel refused to remove may still run and read
 * the senders (through witness_sender): they are then never freed, and the
 * module stays loaded, pinned (a failed init would free it whatever its
 * count, so init then returns 0).
 */
static bool witness_stuck;

/*
 * x86 sends the IPI through smp_ops, which Xen (for one) points elsewhere:
 * the hook would then see no IPI and every IPI would read as queued.
 */
static int __init witness_check_ipi_fn(void)
{
#ifdef CONFIG_X86
	char sym[KSYM_SYMBOL_LEN];

	sprint_symbol_no_offset(sym,
				(unsigned long)smp_ops.send_call_func_single_ipi);
	if (!ips_hook_name_is(sym, WITNESS_IPI_FN)) {
		pr_err("witness=1: this kernel sends call-function IPIs through %s, not %s (witness=0 runs without)\n",
		       sym, WITNESS_IPI_FN);
		return -ENOENT;
	}
#endif
	return 0;
}

static int __init witness_start(void)
{
	int ret;

	witness_tp = ips_tp_find("sched_wake_idle_without_ipi");
	if (!witness_tp) {
		pr_err("witness=1: no sched_wake_idle_without_ipi tracepoint (witness=0 runs without)\n");
		return -ENOENT;
	}
	ret = witness_check_ipi_fn();
	if (ret)
		return ret;
	/* On failure its one line names the function and why. */
	ret = ips_hooks_register(&witness_set);
	if (ret)
		return ret;
	ret = tracepoint_probe_register(witness_tp, witness_no_ipi, NULL);
	if (ret) {
		pr_err("witness=1: cannot probe sched_wake_idle_without_ipi: %d\n",
		       ret);
		/* Pins the module when ftrace refuses (witness_stuck). */
		if (ips_hooks_unregister(&witness_set))
			witness_stuck = true;
	}
	return ret;
}

/*
 * Every sender has stopped counting: once the probes are gone none can be
 * inside a sender. 0, or an error when one could not be removed: then
 * witness_stuck, the module pinned.
 */
static int __init witness_stop(void)
{
	int ret, err;

	ret = tracepoint_probe_unregister(witness_tp, witness_no_ipi, NULL);
	if (ret) {
		pr_err("witness=1: cannot remove the probe of sched_wake_idle_without_ipi (%d): the senders are kept and the module stays loaded\n",
		       ret);
		__module_get(THIS_MODULE);
	}
	/* Pins the module itself when ftrace refuses. */
	err = ips_hooks_unregister(&witness_set);
	tracepoint_synchronize_unregister();
	ret = ret ?: err;
	if (ret)
		witness_stuck = true;
	return ret;
}
