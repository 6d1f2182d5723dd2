/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parameter helpers shared by the suite's modules: a string parameter
 * longer than a charp's 1024 characters, and the parsing of a cpulist into
 * online CPUs. Include after defining pr_fmt.
 */
#ifndef IPISTORM_PARAM_H
#define IPISTORM_PARAM_H

#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>

/* The longest cpulist= or load_cpus= taken: every CPU, one by one. */
#define IPS_MAX_CPULIST_LEN		65536

/*
 * A copy of the string given, of any length up to @max characters: the
 * stock charp parameter stops at 1024, short of listing every CPU of a
 * large machine one by one. @val is NULL while unset.
 */
struct ips_long_string {
	char *val;
	size_t max;
};

static inline int ips_long_string_set(const char *val, const struct kernel_param *kp)
{
	struct ips_long_string *ls = kp->arg;
	size_t len = strnlen(val, ls->max + 1);
	char *copy;

	if (len > ls->max) {
		pr_err("%s=%.32s...: longer than %zu characters\n", kp->name,
		       val, ls->max);
		return -EINVAL;
	}
	copy = kstrndup(val, len, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	kfree(ls->val);
	ls->val = copy;
	return 0;
}

static inline int ips_long_string_get(char *buf, const struct kernel_param *kp)
{
	const struct ips_long_string *ls = kp->arg;

	return scnprintf(buf, PAGE_SIZE, "%s\n", ls->val ?: "(null)");
}

static inline void ips_long_string_free(void *arg)
{
	struct ips_long_string *ls = arg;

	kfree(ls->val);
	ls->val = NULL;
}

static const struct kernel_param_ops ips_long_string_ops __maybe_unused = {
	.set	= ips_long_string_set,
	.get	= ips_long_string_get,
	.free	= ips_long_string_free,
};

/*
 * A bool parameter that takes exactly 0, 1, n, N, y or Y. The kernel's
 * own bool reads the first character only (kstrtobool()), so wait=10,
 * timing=yes or witness=on-please would load as 1. Anything else, and the
 * name alone, is refused (EINVAL) by the kernel's one line naming the
 * parameter and its value: "mod: `10' invalid for parameter `wait'".
 */
static inline int ips_bool_strict_parse(const char *val, bool *res)
{
	static const char * const words[] = { "0", "n", "N", "1", "y", "Y" };
	unsigned int i;

	for (i = 0; val && i < ARRAY_SIZE(words); i++) {
		if (!strcmp(val, words[i])) {
			*res = i >= ARRAY_SIZE(words) / 2;
			return 0;
		}
	}
	return -EINVAL;
}

static inline int ips_bool_strict_set(const char *val,
				      const struct kernel_param *kp)
{
	return ips_bool_strict_parse(val, kp->arg);
}

static const struct kernel_param_ops ips_bool_strict_ops __maybe_unused = {
	.set	= ips_bool_strict_set,
	.get	= param_get_bool,
};

/*
 * Parse @str, the value of the parameter @param, into @mask: a non-empty
 * list of online CPUs, or -EINVAL with an error naming the parameter.
 */
static inline int ips_cpus_parse_online(const char *param, const char *str,
					struct cpumask *mask)
{
	int cpu;

	/* A list may be thousands of characters: its start names it. */
	const char *more = strlen(str) > 64 ? "..." : "";

	if (cpulist_parse(str, mask) || cpumask_empty(mask)) {
		pr_err("%s=%.64s%s: not a non-empty list of CPUs below %u\n",
		       param, str, more, nr_cpu_ids);
		return -EINVAL;
	}
	for_each_cpu(cpu, mask) {
		if (!cpu_online(cpu)) {
			pr_err("%s=%.64s%s: CPU %d is offline\n", param, str,
			       more, cpu);
			return -EINVAL;
		}
	}
	return 0;
}

#endif /* IPISTORM_PARAM_H */
