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

/* A tracepoint a module probes: its name, its probe, and whether it is in. */
struct ips_tp_probe {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool registered;
};

int ips_tp_probe_all(struct ips_tp_probe *t, unsigned int n, const char *need);
int ips_tp_unprobe_all(struct ips_tp_probe *t, unsigned int n);

#endif /* IPISTORM_TP_H */
