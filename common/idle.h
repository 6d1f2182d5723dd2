/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The idle state a CPU was in when it was notified, per sample: the index
 * the power:cpu_idle tracepoint gives at each idle entry (the state the
 * cpuidle governor picked, which a driver may enter shallower: acpi_idle's
 * fallback from C2 to C1, its bus-master demotion; idle=poll's loop 0, the
 * default idle routine 1, also with a driver when cpuidle is off for the
 * CPU), kept by the module's probe, named here from the cpuidle driver.
 *
 * A sample's state is the last one its CPU entered in the sample's
 * window, or "none" when the CPU entered none there (it was busy). Slots:
 * 0 none, 1 + i the named state i, then "other" (an index the names do
 * not cover: a driver registered after the names were read).
 */
#ifndef IPISTORM_IDLE_H
#define IPISTORM_IDLE_H

#include <linux/cpuidle.h>
#include <linux/seq_buf.h>
#include <linux/types.h>

#include "hist.h"

/* The tracepoint's state at an idle exit (PWR_EVENT_EXIT). */
#define IPS_IDLE_EXIT		((unsigned int)-1)
#define IPS_IDLE_NAME_LEN	24
#define IPS_IDLE_MAX_SLOTS	(CPUIDLE_STATE_MAX + 2)

struct ips_idle_names {
	/* The driver whose names these are: compared, never read again. */
	const void *drv;
	unsigned int states;	/* named states: the driver's, or 2 */
	char driver[IPS_IDLE_NAME_LEN];
	char name[CPUIDLE_STATE_MAX][IPS_IDLE_NAME_LEN];
};

void ips_idle_names_init(struct ips_idle_names *n);
struct ips_hist *ips_idle_hists(const struct ips_idle_names *n, int node);
void ips_idle_emit_driver(struct seq_buf *sb, const struct ips_idle_names *n);

/* One slot's counts by kind and histogram, summed over the CPUs. */
#define IPS_IDLE_MAX_KINDS	4
struct ips_idle_sum {
	u64 n[IPS_IDLE_MAX_KINDS];
	struct ips_hist *h;
};

void ips_idle_emit_slots(struct seq_buf *sb, const struct ips_idle_names *names,
			 const char *what, const char * const *kinds,
			 unsigned int nkinds, u64 all, const char *hist,
			 struct ips_hist *h,
			 void (*sum)(unsigned int slot, struct ips_idle_sum *s));
bool ips_idle_driver_changed(const struct ips_idle_names *n);
const char *ips_idle_label(const struct ips_idle_names *n, unsigned int slot);

static inline unsigned int ips_idle_slots(const struct ips_idle_names *n)
{
	return n->states + 2;
}

/* The slot of a sample whose CPU entered @entries states, @state last. */
static inline unsigned int ips_idle_slot(const struct ips_idle_names *n,
					 u64 entries, unsigned int state)
{
	if (!entries)
		return 0;
	return state < n->states ? state + 1 : n->states + 1;
}

/*
 * A CPU's idle entries as its cpu_idle probe sees them, and where the
 * window of its next sample began (written on that CPU only).
 */
struct ips_idle_seen {
	u64 entries;
	u64 seen;		/* @entries at the window's start */
	unsigned int state;	/* the last entry's */
};

/* The probe's part: @state entered; an exit changes nothing. */
static inline void ips_idle_enter(struct ips_idle_seen *s, unsigned int state)
{
	if (state == IPS_IDLE_EXIT)
		return;
	s->state = state;
	s->entries++;
}

/* A sample's slot: the state its CPU entered last in its window, or none. */
static inline unsigned int ips_idle_seen_slot(const struct ips_idle_names *n,
					      const struct ips_idle_seen *s)
{
	return ips_idle_slot(n, s->entries - s->seen, s->state);
}

/* The next sample's window starts here. */
static inline void ips_idle_window(struct ips_idle_seen *s)
{
	s->seen = s->entries;
}

#endif /* IPISTORM_IDLE_H */
