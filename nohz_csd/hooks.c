// SPDX-License-Identifier: GPL-2.0
/*
 * nohz_csd: the hook set, its calibration functions, the kprobes.
 * Part of nohz_csd_main.c's unit: included there, in its order.
 */

/*
 * The calibration's functions (nc_calibrate()): empty but for the kick's
 * raise, each hooked or probed as the kernel's are, and one left alone.
 * Each body differs, so that the compiler folds no two into one.
 */
#define NC_CAL_FN(name, n)			\
static noinline void name(void)			\
{						\
	asm volatile("" : : "i" (n));		\
}

NC_CAL_FN(nc_cal_plain, NR_HK)
NC_CAL_FN(nc_cal_fn_wake, NR_HK + 1)
#define NC_CAL(id, fn, ...)	NC_CAL_FN(nc_cal_fn_##fn, HK_CAL_##id)
#include "hooks.h"

/*
 * A tracepoint's hit as the kernel makes it: preemption off, a direct call
 * of the one probe (a static call).
 */
#define NC_CAL_TP(probe, vec)			\
	do {					\
		preempt_disable_notrace();	\
		probe(NULL, vec);		\
		preempt_enable_notrace();	\
	} while (0)

/* nohz_csd_func()'s stand-in: a kick that raises SCHED_SOFTIRQ, or none. */
static noinline void nc_cal_fn_csd(bool raise)
{
	if (raise)
		NC_CAL_TP(nc_tp_raise, SCHED_SOFTIRQ);
	barrier();
}

static struct ips_hook nc_hooks[NR_HK] = {
#define NC_HOOK(id, cb, flags, nm)					\
	[HK_##id] = {							\
		.names = nm,						\
		.func = nc_##cb,					\
		.required = (flags) & NC_REQ,				\
	},
#define NC_CAL(id, fn, cb)						\
	[HK_CAL_##id] = {						\
		.names = IPS_HOOK_NAMES(__stringify(nc_cal_fn_##fn)),	\
		.own = (unsigned long)nc_cal_fn_##fn,			\
		.func = nc_##cb,					\
		.required = true,					\
		.quiet = true,						\
	},
#include "hooks.h"
};

/* Never called: where test_misname= puts a hook. */
static noinline __used void nc_decoy(void)
{
	barrier();
}

static struct ips_hook_set nc_hook_set = {
	.direct = true,
	.hooks = nc_hooks,
	.n = ARRAY_SIZE(nc_hooks),
	.decoy = "nc_decoy",
};

/* The calibration's kretprobe and kprobe, on the functions above. */
static int nc_cal_csd_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct nc_cpu *c = nc_this();

	if (!c)
		return 1;
	nc_count(c, K_KRETPROBE);
	return nc_csd_entry_body(c, (struct nc_csd_data *)ri->data, true);
}

static struct kretprobe nc_cal_csd_probe = {
	.entry_handler	= nc_cal_csd_entry,
	.handler	= nc_csd_return,
	.data_size	= sizeof(struct nc_csd_data),
};

static struct kprobe nc_cal_wake_probe = {
	.pre_handler	= nc_wake_pre,
};

static unsigned long nc_probe_misses(void)
{
	return nc_csd_probe.nmissed + nc_csd_probe.kp.nmissed +
	       nc_wake_probe.nmissed;
}

static struct kprobe *nc_kps[] = { &nc_wake_probe, &nc_cal_wake_probe };
static struct kretprobe *nc_krps[] = { &nc_csd_probe, &nc_cal_csd_probe };

/* Both return once no CPU is inside a handler; one grace period each. */
static void nc_unregister_kprobes(struct work_struct *work)
{
	unregister_kprobes(nc_kps, ARRAY_SIZE(nc_kps));
	unregister_kretprobes(nc_krps, ARRAY_SIZE(nc_krps));
}

static DECLARE_WORK(nc_kprobes_work, nc_unregister_kprobes);

/*
 * Whether every probe is gone. Where ftrace or a tracepoint refused to
 * remove one, it may still run and write the per-CPU state: the state is
 * then never freed, and the module stays loaded (pinned), as
 * ips_hooks_unregister_wait() says in the log.
 */
static bool nc_unhooked = true;

/*
 * The grace periods of ftrace, of the tracepoints and of the kprobes run
 * at once, two of them in workers: each counts against a stop's second.
 * The kprobes go first: on ftrace they take ftrace's lock, which the
 * removal of the hooks holds through its RCU-tasks grace period. 0 once
 * no CPU is inside any probe; else an error, nc_unhooked false.
 */
static int nc_unhook(void)
{
	int ret, err;

	if (nc_kprobes)
		schedule_work(&nc_kprobes_work);
	ips_hooks_unregister_start(&nc_hook_set);
	ret = ips_tp_unprobe_all(nc_tps, ARRAY_SIZE(nc_tps));
	if (nc_kprobes) {
		flush_work(&nc_kprobes_work);
		nc_kprobes = false;
	}
	err = ips_hooks_unregister_wait(&nc_hook_set);
	ret = ret ?: err;
	if (ret && nc_unhooked) {
		nc_unhooked = false;
		/* ips_hooks_unregister_wait() pins the module on its own error. */
		if (!err) {
			pr_err("a tracepoint probe stays in: the state is kept and the module stays loaded\n");
			__module_get(THIS_MODULE);
		}
	}
	return ret;
}

/* Put every probe in place; none counts before the session measures. */
static int nc_hook(void)
{
	int ret;

	nc_csd_probe.maxactive = 2 * num_possible_cpus();
	ret = register_kretprobe(&nc_csd_probe);
	if (ret) {
		pr_err("cannot probe nohz_csd_func: %d (kernel without CONFIG_NO_HZ_COMMON?)\n",
		       ret);
		return ret;
	}
	ret = register_kprobe(&nc_wake_probe);
	if (ret) {
		unregister_kretprobe(&nc_csd_probe);
		pr_err("cannot probe wake_up_process: %d\n", ret);
		return ret;
	}
	/* The calibration's, on this module's own functions. */
	nc_cal_csd_probe.kp.addr = (kprobe_opcode_t *)nc_cal_fn_csd;
	nc_cal_csd_probe.maxactive = 2 * num_possible_cpus();
	ret = register_kretprobe(&nc_cal_csd_probe);
	if (!ret) {
		nc_cal_wake_probe.addr = (kprobe_opcode_t *)nc_cal_fn_wake;
		ret = register_kprobe(&nc_cal_wake_probe);
		if (ret)
			unregister_kretprobe(&nc_cal_csd_probe);
	}
	if (ret) {
		unregister_kprobe(&nc_wake_probe);
		unregister_kretprobe(&nc_csd_probe);
		pr_err("cannot probe the calibration's functions: %d\n", ret);
		return ret;
	}
	nc_kprobes = true;

	ret = ips_tp_probe_all(nc_tps, NC_TP_IDLE, NULL);
	if (!ret && nc_idle_states)
		ret = ips_tp_probe_all(&nc_tps[NC_TP_IDLE], 1, "idle_states=1");
	if (ret) {
		nc_unhook();
		return ret;
	}

	nc_hook_set.misname = nc_test_misname;
	nc_hook_set.skipname = nc_test_skip;
	ret = ips_hooks_register(&nc_hook_set);
	if (ret)
		nc_unhook();
	return ret;
}
