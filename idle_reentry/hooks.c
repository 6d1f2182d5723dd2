// SPDX-License-Identifier: GPL-2.0
/*
 * idle_reentry: the hook set, its calibration functions, the dispatch.
 * Part of idle_reentry_main.c's unit: included there, in its order.
 */

/*
 * The calibration's functions: empty, one for each hook of a round, which
 * the hook set hooks with the calibration's hooks, and one left unhooked;
 * and the decoy, never called, where test_misname= puts a hook. Each body
 * differs, so that the compiler folds no two into one.
 */
#define IR_CAL_FN(name, n)			\
static noinline void name(void)			\
{						\
	asm volatile("" : : "i" (n));		\
}

IR_CAL_FN(ir_cal_plain, 0)
IR_CAL_FN(ir_cal_fn_tick, 1)
IR_CAL_FN(ir_cal_fn_flush, 2)
IR_CAL_FN(ir_cal_fn_wake, 3)
IR_CAL_FN(ir_cal_fn_sched, 4)
IR_CAL_FN(ir_cal_fn_pick, 5)
IR_CAL_FN(ir_cal_fn_do_idle, 6)

static noinline __used void ir_decoy(void)
{
	asm volatile("" : : "i" (7));
}

static struct ips_hook ir_hooks[] = {
	[IR_HOOK_DO_IDLE] = {
		.names = IPS_HOOK_NAMES("do_idle"),
		.required = true,
	},
	[IR_HOOK_FLUSH] = {
		.names = IPS_HOOK_NAMES("flush_smp_call_function_queue"),
		.func = ir_flush,
		.required = true,
	},
	[IR_HOOK_SCHEDULE_IDLE] = {
		.names = IPS_HOOK_NAMES("schedule_idle"),
		.func = ir_schedule_idle,
		.required = true,
	},
	/* 7.x inlines pick_next_task_fair(); the fair class's pick remains. */
	[IR_HOOK_PICK] = {
		.names = IPS_HOOK_NAMES("pick_next_task_fair", "pick_task_fair"),
		.func = ir_pick_fair,
		.required = true,
	},
	[IR_HOOK_NEWIDLE] = {
		.names = IPS_HOOK_NAMES("sched_balance_newidle",
					"newidle_balance"),
		.func = ir_newidle,
	},
	[IR_HOOK_WAKE_POLL] = {
		.names = IPS_HOOK_NAMES("__flush_smp_call_function_queue"),
		.func = ir_wake_poll,
	},
	[IR_HOOK_WAKE_IPI] = {
		.names = IPS_HOOK_NAMES("generic_smp_call_function_single_interrupt"),
		.func = ir_wake_ipi,
	},
	[IR_HOOK_WAKE_TIMER] = {
		.names = IPS_HOOK_NAMES("hrtimer_interrupt"),
		.func = ir_wake_timer,
	},
	/*
	 * Absent where the kernel has no NO_HZ: no tick phase then (the
	 * light instrument needs it).
	 */
	[IR_HOOK_TICK] = {
		.names = IPS_HOOK_NAMES("tick_nohz_idle_exit"),
	},
	[IR_HOOK_PICK_IDLE] = {
		.names = IPS_HOOK_NAMES("pick_task_idle"),
		.required = true,
	},
	/* 6.1 only; 6.2 and later pick the idle task with pick_task_idle(). */
	[IR_HOOK_PICK_IDLE_NEXT] = {
		.names = IPS_HOOK_NAMES("pick_next_task_idle"),
	},
	/*
	 * Absent without CONFIG_SCHED_CORE before 6.12; on 7.x the fair
	 * pick's own hook, which then keeps it (ips_hooks_register()).
	 */
	[IR_HOOK_PICK_CORE] = {
		.names = IPS_HOOK_NAMES("pick_task_fair"),
		.func = ir_pick_core,
	},
	/* phases=1: every interrupt's entry, and its end on a CPU left idle. */
	[IR_HOOK_IRQ_ENTER] = {
		.names = IPS_HOOK_NAMES("irq_enter_rcu"),
		.func = ir_irq_enter,
	},
	[IR_HOOK_IRQ_QUIET] = {
		.names = IPS_HOOK_NAMES("tick_nohz_irq_exit"),
		.func = ir_irq_quiet,
	},
	[IR_HOOK_CAL_TICK] = {
		.names = IPS_HOOK_NAMES("ir_cal_fn_tick"),
		.own = (unsigned long)ir_cal_fn_tick,
		.required = true,
		.quiet = true,
	},
	[IR_HOOK_CAL_FLUSH] = {
		.names = IPS_HOOK_NAMES("ir_cal_fn_flush"),
		.own = (unsigned long)ir_cal_fn_flush,
		.required = true,
		.quiet = true,
	},
	[IR_HOOK_CAL_WAKE] = {
		.names = IPS_HOOK_NAMES("ir_cal_fn_wake"),
		.own = (unsigned long)ir_cal_fn_wake,
		.required = true,
		.quiet = true,
	},
	[IR_HOOK_CAL_SCHED] = {
		.names = IPS_HOOK_NAMES("ir_cal_fn_sched"),
		.own = (unsigned long)ir_cal_fn_sched,
		.required = true,
		.quiet = true,
	},
	[IR_HOOK_CAL_PICK] = {
		.names = IPS_HOOK_NAMES("ir_cal_fn_pick"),
		.own = (unsigned long)ir_cal_fn_pick,
		.required = true,
		.quiet = true,
	},
	[IR_HOOK_CAL_DO_IDLE] = {
		.names = IPS_HOOK_NAMES("ir_cal_fn_do_idle"),
		.own = (unsigned long)ir_cal_fn_do_idle,
		.required = true,
		.quiet = true,
	},
};

/* The hooks of the light instrument; the others are phases=1's only. */
#define IR_LIGHT_HOOKS	(BIT(IR_HOOK_DO_IDLE) | BIT(IR_HOOK_TICK) | \
			 BIT(IR_HOOK_PICK_IDLE) | BIT(IR_HOOK_PICK_IDLE_NEXT) | \
			 BIT(IR_HOOK_CAL_TICK) | BIT(IR_HOOK_CAL_PICK) | \
			 BIT(IR_HOOK_CAL_DO_IDLE))

/* The pick hooks, which pick_hook=0 leaves out. */
#define IR_PICK_HOOKS	(BIT(IR_HOOK_PICK) | BIT(IR_HOOK_PICK_CORE) | \
			 BIT(IR_HOOK_PICK_IDLE) | BIT(IR_HOOK_PICK_IDLE_NEXT))

static struct ips_hook_set ir_hook_set = {
	.hooks = ir_hooks,
	.n = ARRAY_SIZE(ir_hooks),
	.direct = true,
	.decoy = "ir_decoy",
};

/*
 * The hooks of a round as the direct calls reach them: by their call
 * sites, in the order of ir_hot_ip[], each instrument its own chain of
 * tests, which a call site of neither leaves to the set's lookup. The
 * sites are the real ones, once their first hit went through the set, or,
 * while the calibration runs, its own (ir_calibrate()), which thereby
 * takes the very same path.
 */
enum {
	IR_HOT_DO_IDLE, IR_HOT_TICK, IR_HOT_PICK_NEXT, IR_HOT_PICK,	/* both */
	IR_HOT_FLUSH, IR_HOT_WAKE, IR_HOT_SCHED, IR_HOT_PICK_FAIR,	/* phases=1 */
	IR_HOT_NEWIDLE,
	IR_NR_HOT
};

static unsigned long ir_hot_ip[IR_NR_HOT] __read_mostly;
static DEFINE_STATIC_KEY_FALSE(ir_calibrating);

/* The hook of each place, and of the calibration (IR_NR_HOOKS: none). */
static const unsigned int ir_hot_hook[2][2][IR_NR_HOT] = {
	[0] = {	/* light */
		{ IR_HOOK_DO_IDLE, IR_HOOK_TICK, IR_HOOK_PICK_IDLE_NEXT,
		  IR_HOOK_PICK_IDLE, IR_NR_HOOKS, IR_NR_HOOKS, IR_NR_HOOKS,
		  IR_NR_HOOKS, IR_NR_HOOKS },
		{ IR_HOOK_CAL_DO_IDLE, IR_HOOK_CAL_TICK, IR_HOOK_CAL_PICK,
		  IR_NR_HOOKS, IR_NR_HOOKS, IR_NR_HOOKS, IR_NR_HOOKS,
		  IR_NR_HOOKS, IR_NR_HOOKS },
	},
	[1] = {	/* phases=1 */
		{ IR_HOOK_DO_IDLE, IR_HOOK_TICK, IR_HOOK_PICK_IDLE_NEXT,
		  IR_HOOK_PICK_IDLE, IR_HOOK_FLUSH, IR_HOOK_WAKE_POLL,
		  IR_HOOK_SCHEDULE_IDLE, IR_HOOK_PICK, IR_HOOK_NEWIDLE },
		{ IR_HOOK_CAL_DO_IDLE, IR_HOOK_CAL_TICK, IR_NR_HOOKS,
		  IR_NR_HOOKS, IR_HOOK_CAL_FLUSH, IR_HOOK_CAL_WAKE,
		  IR_HOOK_CAL_SCHED, IR_HOOK_CAL_PICK, IR_NR_HOOKS },
	},
};

/* Take the call sites the set knows of the real hooks, or of the calibration's (@cal). */
static void ir_hot_learn(bool cal)
{
	unsigned int i, h;

	for (i = 0; i < IR_NR_HOT; i++) {
		h = ir_hot_hook[ir_phases][cal][i];
		WRITE_ONCE(ir_hot_ip[i], h < IR_NR_HOOKS ? READ_ONCE(ir_hooks[h].ips[0]) : 0);
	}
}

/*
 * Every other hook: through the set, which learns the call site on its
 * first hit; the chains then take it.
 */
static noinline notrace void ir_direct_other(unsigned long ret,
					     unsigned long parent_ip,
					     unsigned long arg0)
{
	unsigned int resolved = READ_ONCE(ir_hook_set.resolved);

	ips_hook_direct_dispatch(ret, parent_ip, arg0);
	if (READ_ONCE(ir_hook_set.resolved) != resolved &&
	    !static_branch_unlikely(&ir_calibrating))
		ir_hot_learn(false);
}

/* ip == ir_hot_ip[@i]: the place @i's call site. */
#define IR_AT(ip, i)	((ip) == READ_ONCE(ir_hot_ip[i]))

/*
 * What the direct trampoline calls (common/hook.c; Kbuild names it). The
 * light instrument's lean trampoline passes the return address alone;
 * phases=1's the hooked function's return address and first argument too.
 */
notrace void ir_direct(unsigned long ret, unsigned long parent_ip,
		       unsigned long arg0)
{
	unsigned long ip = ret - MCOUNT_INSN_SIZE;

	if (static_branch_likely(&ir_light)) {
		if (IR_AT(ip, IR_HOT_DO_IDLE))
			ir_l_do_idle_hot();
		else if (IR_AT(ip, IR_HOT_TICK))
			ir_l_tick_hot();
		else if (IR_AT(ip, IR_HOT_PICK_NEXT))
			ir_l_pick_next_task_idle_hot();
		else if (IR_AT(ip, IR_HOT_PICK))
			ir_l_pick_task_idle_hot();
		else
			ir_direct_other(ret, 0, 0);
		return;
	}
	if (IR_AT(ip, IR_HOT_DO_IDLE))
		ir_do_idle(ip, parent_ip, arg0);
	else if (IR_AT(ip, IR_HOT_TICK))
		ir_tick(ip, parent_ip, arg0);
	else if (IR_AT(ip, IR_HOT_FLUSH))
		ir_flush(ip, parent_ip, arg0);
	else if (IR_AT(ip, IR_HOT_WAKE))
		ir_wake_poll(ip, parent_ip, arg0);
	else if (IR_AT(ip, IR_HOT_SCHED))
		ir_schedule_idle(ip, parent_ip, arg0);
	else if (IR_AT(ip, IR_HOT_PICK_FAIR))
		ir_pick_fair(ip, parent_ip, arg0);
	else if (IR_AT(ip, IR_HOT_PICK_NEXT))
		ir_pick_next_task_idle(ip, parent_ip, arg0);
	else if (IR_AT(ip, IR_HOT_PICK))
		ir_pick_task_idle(ip, parent_ip, arg0);
	else if (IR_AT(ip, IR_HOT_NEWIDLE))
		ir_newidle(ip, parent_ip, arg0);
	else
		ir_direct_other(ret, parent_ip, arg0);
}

/*
 * The instrument's callbacks where they differ between the two; each
 * calibration hook takes its real counterpart's.
 */
static void ir_hooks_choose(void)
{
	static const unsigned int cal_of[][2] = {
		{ IR_HOOK_CAL_TICK, IR_HOOK_TICK },
		{ IR_HOOK_CAL_FLUSH, IR_HOOK_FLUSH },
		{ IR_HOOK_CAL_WAKE, IR_HOOK_WAKE_POLL },
		{ IR_HOOK_CAL_SCHED, IR_HOOK_SCHEDULE_IDLE },
		{ IR_HOOK_CAL_DO_IDLE, IR_HOOK_DO_IDLE },
	};
	unsigned int i;

	ir_hooks[IR_HOOK_DO_IDLE].func = ir_phases ? ir_do_idle : ir_l_do_idle;
	ir_hooks[IR_HOOK_TICK].func = ir_phases ? ir_tick : ir_l_tick;
	ir_hooks[IR_HOOK_TICK].required = !ir_phases;
	if (ir_phases)
		static_branch_disable(&ir_light);
	/* do_idle() and the tick's take none, the idle picks one or two. */
	ir_hook_set.direct_lean = !ir_phases;
	ir_hooks[IR_HOOK_PICK_IDLE].func = ir_phases ? ir_pick_task_idle :
						    ir_l_pick_task_idle;
	ir_hooks[IR_HOOK_PICK_IDLE_NEXT].func = ir_phases ?
		ir_pick_next_task_idle : ir_l_pick_next_task_idle;
	for (i = 0; i < ARRAY_SIZE(cal_of); i++)
		ir_hooks[cal_of[i][0]].func = ir_hooks[cal_of[i][1]].func;
	/* A pick inside the span: the fair one's, or the light idle one's. */
	ir_hooks[IR_HOOK_CAL_PICK].func = ir_phases ? ir_pick_fair :
					  ir_l_pick_next_task_idle;
	for (i = 0; i < IR_NR_HOOKS; i++) {
		ir_hooks[i].unused = !ir_phases && !(IR_LIGHT_HOOKS & BIT(i));
		ir_hooks[i].skip = !ir_pick_hook && (IR_PICK_HOOKS & BIT(i));
		/* Without its hooks, a pick is nowhere required. */
		if (ir_hooks[i].skip)
			ir_hooks[i].required = false;
	}
}

/*
 * Remove every probe, their grace periods at once; 0 once no CPU is
 * inside any (else the hooks stay and so must the state they write).
 */
static int ir_unhook(void)
{
	int ret;

	ips_hooks_unregister_start(&ir_hook_set);
	if (ir_tp_switch) {
		tracepoint_probe_unregister(ir_tp_switch, (void *)ir_switch_probe,
					    NULL);
		tracepoint_synchronize_unregister();
		ir_tp_switch = NULL;
	}
	ret = ips_hooks_unregister_wait(&ir_hook_set);
	/* No hook queues test_interrupt's work now: none may run after us. */
	if (!ret && static_branch_unlikely(&ir_test_irq))
		ips_test_irq_sync(&ir_test_work);
	return ret;
}

/*
 * Register every hook of the instrument chosen. The order does not
 * matter: nothing is counted until the session measures.
 */
static int ir_hook(void)
{
	int ret;

	ir_tp_switch = ips_tp_find("sched_switch");
	if (!ir_tp_switch) {
		pr_err("no sched_switch tracepoint on this kernel\n");
		return -ENOENT;
	}
	ret = tracepoint_probe_register(ir_tp_switch, (void *)ir_switch_probe,
					NULL);
	if (ret) {
		pr_err("cannot attach to sched_switch: %d\n", ret);
		ir_tp_switch = NULL;
		return ret;
	}
	ir_hook_set.misname = ir_test_misname;
	ir_hook_set.skipname = ir_test_skip;
	ret = ips_hooks_register(&ir_hook_set);
	if (ret)
		ir_unhook();
	return ret;
}
