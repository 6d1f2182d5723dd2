// SPDX-License-Identifier: GPL-2.0
/* Idle states named for the samples that were notified in them (idle.h). */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "idle.h"

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

const char *ips_idle_label(const struct ips_idle_names *n, unsigned int slot)
{
	if (!slot)
		return "none";
	if (slot <= n->states)
		return n->name[slot - 1];
	return "other";
}
