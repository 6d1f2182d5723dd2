// SPDX-License-Identifier: GPL-2.0
/* Tracepoints found by name (tp.h). */
#include <linux/string.h>

#include "tp.h"

/* for_each_kernel_tracepoint()'s callback. */
static void ips_tp_match(struct tracepoint *tp, void *priv)
{
	struct ips_tp_lookup *l = priv;

	if (!strcmp(tp->name, l->name))
		l->tp = tp;
}

/* The kernel's tracepoint @name, or NULL when this kernel has none. */
struct tracepoint *ips_tp_find(const char *name)
{
	struct ips_tp_lookup l = { .name = name };

	for_each_kernel_tracepoint(ips_tp_match, &l);
	return l.tp;
}
