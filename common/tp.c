// SPDX-License-Identifier: GPL-2.0
/* Tracepoints found by name (tp.h). */
#include <linux/printk.h>
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

/*
 * Remove the probes of @t[0..@n) that are in, then wait until no CPU is
 * inside one (a probe's work is then done, its data free to read). A
 * probe the kernel refuses to remove (tracepoint_probe_unregister()'s
 * allocation failed) stays in, and stays marked in, after one error
 * naming it: the first such error is returned. The caller may try again;
 * else it must keep what the probe writes and stay loaded
 * (ips_init_ret()), and say so.
 */
int ips_tp_unprobe_all(struct ips_tp_probe *t, unsigned int n)
{
	unsigned int i;
	int ret = 0, err;

	for (i = 0; i < n; i++) {
		if (!t[i].registered)
			continue;
		err = tracepoint_probe_unregister(t[i].tp, t[i].probe, NULL);
		if (err) {
			pr_err("cannot remove the probe of tracepoint %s (%d)\n",
			       t[i].name, err);
			ret = ret ?: err;
			continue;
		}
		t[i].registered = false;
	}
	tracepoint_synchronize_unregister();
	return ret;
}

/*
 * Find every tracepoint of @t[0..@n), then put each probe in: all, or on
 * an error none, after one error naming the tracepoint (and @need, what
 * needs it, when not NULL).
 */
int ips_tp_probe_all(struct ips_tp_probe *t, unsigned int n, const char *need)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		t[i].tp = ips_tp_find(t[i].name);
		if (!t[i].tp) {
			pr_err("%s%sthis kernel has no %s tracepoint\n",
			       need ?: "", need ? ": " : "", t[i].name);
			return -ENOENT;
		}
	}
	for (i = 0; i < n; i++) {
		ret = tracepoint_probe_register(t[i].tp, t[i].probe, NULL);
		if (ret) {
			pr_err("%s%scannot probe %s: %d\n", need ?: "",
			       need ? ": " : "", t[i].name, ret);
			ips_tp_unprobe_all(t, n);
			return ret;
		}
		t[i].registered = true;
	}
	return 0;
}
