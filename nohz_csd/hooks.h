/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nohz_csd's ftrace hooks, one line each. Every part made of them (the
 * enum, the set's table, the calibration's functions) includes this file
 * with NC_HOOK() or NC_CAL() defined as it needs; an undefined one is
 * left out. The kprobes and tracepoints are hooks.c's.
 *
 * NC_HOOK(ID, CB, FLAGS, NAMES): HK_ID, with the callback nc_CB
 * (measure.c); FLAGS NC_REQ: insmod fails without it; NAMES
 * IPS_HOOK_NAMES(): the function's names, the first found hooked.
 *
 * NC_CAL(ID, FN, CB): the calibration's HK_CAL_ID (nc_calibrate()), on
 * this module's empty function nc_cal_fn_FN, with the callback nc_CB.
 */
#ifndef NC_HOOK
#define NC_HOOK(...)
#endif
#ifndef NC_CAL
#define NC_CAL(...)
#endif

/* Static; Debian's builds name it _nohz_idle_balance.isra.0. */
NC_HOOK(BALANCE, balance, 0, IPS_HOOK_NAMES("_nohz_idle_balance", "_nohz_idle_balance.*"))
NC_HOOK(TICK_STOP, tick_stop, 0, IPS_HOOK_NAMES("tick_nohz_idle_stop_tick"))
NC_HOOK(DO_IDLE, do_idle, NC_REQ, IPS_HOOK_NAMES("do_idle"))

NC_CAL(IDLE, idle, cal_idle)
NC_CAL(BALANCE, balance, cal_balance)

#undef NC_HOOK
#undef NC_CAL
