// SPDX-License-Identifier: GPL-2.0
/* Idle states named for the samples that were notified in them (idle.h). */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "idle.h"
#include "result.h"

/*
 * @s as a key part: letters, digits and '_' kept, anything else '_'
 * (cpuidle names such as "C1E", "C1_ACPI", "POLL"); "" when @s is empty.
 */
static void ips_idle_key(char *dst, const char *s)
{
	size_t i;

	strscpy(dst, s, IPS_IDLE_NAME_LEN);
	for (i = 0; dst[i]; i++) {
		if (!isalnum(dst[i]) && dst[i] != '_')
			dst[i] = '_';
	}
}

/*
 * The names of this CPU's cpuidle driver's states, read once, before a
 * run. Without a driver the kernel's own idle loops trace 0 (idle=poll's
 * cpu_idle_poll()) and 1 (default_idle_call(): HLT, or MWAIT C1 where
 * x86 prefers it): "poll" and "halt". A name that is empty, repeats an
 * earlier one or is a slot's own ("none", "other") becomes sN, N its
 * index: keys stay unique.
 *
 * The driver is read without its lock (cpuidle keeps that lock to
 * itself): a server's drivers (intel_idle, acpi_idle, haltpoll) are built
 * in and never go; a module's driver unregistered while this runs is
 * outside what this reads safely.
 */
void ips_idle_names_init(struct ips_idle_names *n)
{
	const struct cpuidle_driver *drv = cpuidle_get_driver();
	unsigned int i, j;

	memset(n, 0, sizeof(*n));
	n->drv = drv;
	if (!drv || drv->state_count <= 0) {
		strscpy(n->driver, "none", sizeof(n->driver));
		strscpy(n->name[0], "poll", sizeof(n->name[0]));
		strscpy(n->name[1], "halt", sizeof(n->name[1]));
		n->states = 2;
		return;
	}
	ips_idle_key(n->driver, drv->name ?: "");
	n->states = min_t(unsigned int, drv->state_count, CPUIDLE_STATE_MAX);
	for (i = 0; i < n->states; i++) {
		ips_idle_key(n->name[i], drv->states[i].name);
		for (j = 0; j < i && n->name[i][0]; j++) {
			if (!strcmp(n->name[i], n->name[j]))
				break;
		}
		if (!n->name[i][0] || j < i || !strcmp(n->name[i], "none") ||
		    !strcmp(n->name[i], "other"))
			snprintf(n->name[i], sizeof(n->name[i]), "s%u", i);
	}
}

/* Whether another driver (or none) owns this CPU's idle than at init. */
bool ips_idle_driver_changed(const struct ips_idle_names *n)
{
	return (const void *)cpuidle_get_driver() != n->drv;
}

/* The result's idle_driver and idle_driver_changed lines. */
void ips_idle_emit_driver(struct seq_buf *sb, const struct ips_idle_names *n)
{
	seq_buf_printf(sb, "idle_driver=%s\n", n->driver);
	seq_buf_printf(sb, "idle_driver_changed=%d\n",
		       ips_idle_driver_changed(n));
}

const char *ips_idle_label(const struct ips_idle_names *n, unsigned int slot)
{
	if (!slot)
		return "none";
	if (slot <= n->states)
		return n->name[slot - 1];
	return "other";
}

/*
 * A histogram per slot (ips_idle_slots()), empty, on @node (NUMA_NO_NODE:
 * any); NULL without memory. kvfree() frees it.
 */
struct ips_hist *ips_idle_hists(const struct ips_idle_names *n, int node)
{
	unsigned int i, slots = ips_idle_slots(n);
	struct ips_hist *h;

	h = kvmalloc_node(array_size(slots, sizeof(*h)), GFP_KERNEL, node);
	if (h)
		for (i = 0; i < slots; i++)
			ips_hist_init(&h[i]);
	return h;
}

/*
 * The lines of each slot that holds any of the @all events (debugfs only,
 * result.c), "total.idle_STATE.": @what, the events; each of @kinds
 * [0..@nkinds), those by kind; share_pct, of @all; the histogram @hist.
 * @sum(slot, s) adds the slot's counts into s->n (zeroed) and merges its
 * histograms into s->h, @h emptied.
 */
void ips_idle_emit_slots(struct seq_buf *sb, const struct ips_idle_names *names,
			 const char *what, const char * const *kinds,
			 unsigned int nkinds, u64 all, const char *hist,
			 struct ips_hist *h,
			 void (*sum)(unsigned int slot, struct ips_idle_sum *s))
{
	struct ips_idle_sum s = { .h = h };
	unsigned int slot, k;
	char pfx[48];
	u64 events;

	nkinds = min_t(unsigned int, nkinds, IPS_IDLE_MAX_KINDS);
	for (slot = 0; slot < ips_idle_slots(names); slot++) {
		memset(s.n, 0, sizeof(s.n));
		ips_hist_init(h);
		sum(slot, &s);
		events = 0;
		for (k = 0; k < nkinds; k++)
			events += s.n[k];
		if (!events)
			continue;
		snprintf(pfx, sizeof(pfx), "total.idle_%s.",
			 ips_idle_label(names, slot));
		seq_buf_printf(sb, "%s%s=%llu\n", pfx, what, events);
		for (k = 0; k < nkinds; k++)
			seq_buf_printf(sb, "%s%s=%llu\n", pfx, kinds[k], s.n[k]);
		ips_result_ratio(sb, pfx, "share_pct", events * 100, all);
		ips_hist_emit(sb, pfx, hist, h, false);
	}
}
