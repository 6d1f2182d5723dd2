/* SPDX-License-Identifier: GPL-2.0 */
/*
 * idle_reentry's hooks, one line each. Every part made of them (the enum,
 * the set's table, the direct calls' chains, the calibration's stand-ins)
 * includes this file with IR_HOOK() or IR_CAL() defined as it needs; an
 * undefined one is left out.
 *
 * IR_HOOK(ID, KIND, CB, FLAGS, NAMES)
 *   ID     IR_HOOK_ID, the index. The order is the result's (hooked=,
 *          proof.) and the order ir_direct() tests hot hooks in: the most
 *          frequent first, the hot ones before the cold ones. Two rules
 *          (checked at build time, ir_hooks_check()): every BOTH hook
 *          among the first eight, whose call sites share a cache line;
 *          of two hooks that name one function, the one that must keep
 *          it first (ips_hooks_register() skips the later one), as PICK
 *          before PICK_CORE.
 *   KIND   BOTH: hooked by both instruments, hot in each; HOT: phases=1
 *          only, hot; COLD: phases=1 only, reached through the set's
 *          lookup. ir_direct() tests for a hot hook's call site before
 *          that lookup.
 *   CB     its callbacks (measure.c): ir_CB, phases=1's (IR_PHASE_HOOK()),
 *          and for a BOTH hook the light instrument's ir_l_CB and
 *          ir_l_CB_hot() (IR_LIGHT_HOOK())
 *   FLAGS  IR_REQ: insmod fails without it (IR_REQ_LIGHT: in the light
 *          instrument); IR_PICK: a pick, left out by pick_hook=0;
 *          IR_FIGURE: a figure of phases=1 rests on it, and its proof
 *          reads missing where the kernel lacks it
 *   NAMES  IPS_HOOK_NAMES(): the function's names, the first found hooked
 *
 * IR_CAL(ID, FN, LIGHT, PHASES): the calibration's hook IR_HOOK_CAL_ID,
 * on this module's empty function ir_cal_fn_FN, standing in for hook
 * LIGHT in the light instrument and PHASES with phases=1 (NONE: not in
 * its rounds), with that hook's callback. The order is a round's calls';
 * a round without the pick's is a fast re-entry's.
 */
#ifndef IR_HOOK
#define IR_HOOK(...)
#endif
#ifndef IR_CAL
#define IR_CAL(...)
#endif

IR_HOOK(DO_IDLE, BOTH, do_idle, IR_REQ, IPS_HOOK_NAMES("do_idle"))
/* Absent without NO_HZ: no tick phase then (the light instrument needs it). */
IR_HOOK(TICK, BOTH, tick, IR_REQ_LIGHT, IPS_HOOK_NAMES("tick_nohz_idle_exit"))
IR_HOOK(FLUSH, HOT, flush, IR_REQ, IPS_HOOK_NAMES("flush_smp_call_function_queue"))
IR_HOOK(WAKE_POLL, HOT, wake_poll, IR_FIGURE,
	IPS_HOOK_NAMES("__flush_smp_call_function_queue"))
IR_HOOK(SCHEDULE_IDLE, HOT, schedule_idle, IR_REQ, IPS_HOOK_NAMES("schedule_idle"))
/* 7.x inlines pick_next_task_fair(); the fair class's pick remains. */
IR_HOOK(PICK, HOT, pick_fair, IR_REQ | IR_PICK,
	IPS_HOOK_NAMES("pick_next_task_fair", "pick_task_fair"))
/* 6.1 only; 6.2 and later pick the idle task with pick_task_idle(). */
IR_HOOK(PICK_IDLE_NEXT, BOTH, pick_next_task_idle, IR_PICK,
	IPS_HOOK_NAMES("pick_next_task_idle"))
IR_HOOK(PICK_IDLE, BOTH, pick_task_idle, IR_REQ | IR_PICK, IPS_HOOK_NAMES("pick_task_idle"))
IR_HOOK(NEWIDLE, HOT, newidle, 0, IPS_HOOK_NAMES("sched_balance_newidle", "newidle_balance"))
IR_HOOK(WAKE_IPI, COLD, wake_ipi, IR_FIGURE,
	IPS_HOOK_NAMES("generic_smp_call_function_single_interrupt"))
IR_HOOK(WAKE_TIMER, COLD, wake_timer, IR_FIGURE, IPS_HOOK_NAMES("hrtimer_interrupt"))
/*
 * Absent without CONFIG_SCHED_CORE before 6.12; on 7.x the fair pick's
 * own hook, which then keeps it (ips_hooks_register()).
 */
IR_HOOK(PICK_CORE, COLD, pick_core, IR_PICK, IPS_HOOK_NAMES("pick_task_fair"))
/* Every interrupt's entry, and its end on a CPU left idle. */
IR_HOOK(IRQ_ENTER, COLD, irq_enter, IR_FIGURE, IPS_HOOK_NAMES("irq_enter_rcu"))
IR_HOOK(IRQ_QUIET, COLD, irq_quiet, IR_FIGURE, IPS_HOOK_NAMES("tick_nohz_irq_exit"))

IR_CAL(TICK, tick, TICK, TICK)
IR_CAL(FLUSH, flush, NONE, FLUSH)
IR_CAL(WAKE, wake, NONE, WAKE_POLL)
IR_CAL(SCHED, sched, NONE, SCHEDULE_IDLE)
IR_CAL(PICK, pick, PICK_IDLE_NEXT, PICK)
IR_CAL(DO_IDLE, do_idle, DO_IDLE, DO_IDLE)

#undef IR_HOOK
#undef IR_CAL
