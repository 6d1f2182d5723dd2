// SPDX-License-Identifier: GPL-2.0
/*
 * idle_reentry.ko's own copy of the common/ code it uses, compiled as one unit
 * (as kernel/sched/build_policy.c is): kbuild links an object into one
 * module only, so the modules cannot share compiled common objects.
 * KBUILD_MODNAME, and so pr_fmt, is this module's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "../common/calib.c"
#include "../common/clock.c"
#include "../common/hist.c"
#include "../common/hook.c"
#include "../common/idle.c"
#include "../common/irqs.c"
#include "../common/param.c"
#include "../common/result.c"
#include "../common/session.c"
#include "../common/tp.c"
