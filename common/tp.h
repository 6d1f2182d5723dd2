/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints found by name: a module cannot take the address of the
 * ones the kernel does not export, and every kernel of the matrix names
 * them alike.
 */
#ifndef IPISTORM_TP_H
#define IPISTORM_TP_H

#include <linux/string.h>
#include <linux/tracepoint.h>

struct ips_tp_lookup {
	const char *name;
	struct tracepoint *tp;
};

static inline void ips_tp_match(struct tracepoint *tp, void *priv)
{
	struct ips_tp_lookup *l = priv;

	if (!strcmp(tp->name, l->name))
		l->tp = tp;
}

/* The kernel's tracepoint @name, or NULL when this kernel has none. */
static inline struct tracepoint *ips_tp_find(const char *name)
{
	struct ips_tp_lookup l = { .name = name };

	for_each_kernel_tracepoint(ips_tp_match, &l);
	return l.tp;
}

#endif /* IPISTORM_TP_H */
