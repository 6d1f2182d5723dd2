/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints found by name: a module cannot take the address of the
 * ones the kernel does not export, and every kernel of the matrix names
 * them alike.
 */
#ifndef IPISTORM_TP_H
#define IPISTORM_TP_H

#include <linux/tracepoint.h>

struct ips_tp_lookup {
	const char *name;
	struct tracepoint *tp;
};

struct tracepoint *ips_tp_find(const char *name);

#endif /* IPISTORM_TP_H */
