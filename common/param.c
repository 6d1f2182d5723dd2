// SPDX-License-Identifier: GPL-2.0
/*
 * Parameter helpers shared by the suite's modules (param.h). Built into
 * each module by its common.c, which defines pr_fmt first.
 */

#include "param.h"

int ips_long_string_set(const char *val, const struct kernel_param *kp)
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

int ips_long_string_get(char *buf, const struct kernel_param *kp)
{
	const struct ips_long_string *ls = kp->arg;

	return scnprintf(buf, PAGE_SIZE, "%s\n", ls->val ?: "(null)");
}

void ips_long_string_free(void *arg)
{
	struct ips_long_string *ls = arg;

	kfree(ls->val);
	ls->val = NULL;
}

const struct kernel_param_ops ips_long_string_ops = {
	.set	= ips_long_string_set,
	.get	= ips_long_string_get,
	.free	= ips_long_string_free,
};

/* Exactly 0, n, N, 1, y or Y (param.h). */
int ips_bool_strict_parse(const char *val, bool *res)
{
	static const char * const words[] = { "0", "n", "N", "1", "y", "Y" };
	unsigned int i;

	/* The words for false, then as many for true. */
	BUILD_BUG_ON(ARRAY_SIZE(words) % 2);
	for (i = 0; val && i < ARRAY_SIZE(words); i++) {
		if (!strcmp(val, words[i])) {
			*res = i >= ARRAY_SIZE(words) / 2;
			return 0;
		}
	}
	return -EINVAL;
}

int ips_bool_strict_set(const char *val, const struct kernel_param *kp)
{
	return ips_bool_strict_parse(val, kp->arg);
}

const struct kernel_param_ops ips_bool_strict_ops = {
	.set	= ips_bool_strict_set,
	.get	= param_get_bool,
};

/*
 * Parse @str, the value of the parameter @param, into @mask: a non-empty
 * list of online CPUs, or -EINVAL with an error naming the parameter.
 */
int ips_cpus_parse_online(const char *param, const char *str,
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

/*
 * A run's length, as a count, parameter @count=@n (at most @max_n), or as
 * duration=@secs seconds (at most @max_secs): one of them, or neither
 * (until stopped); else one error naming the parameter, and -EINVAL.
 */
int ips_param_count_or_duration(const char *count, unsigned long n,
				unsigned long max_n, unsigned int secs,
				unsigned int max_secs)
{
	if (n && secs) {
		pr_err("%s=%lu duration=%u: give one of %s (count) or duration (seconds), or neither (until stopped)\n",
		       count, n, secs, count);
		return -EINVAL;
	}
	if (n > max_n) {
		pr_err("%s=%lu: more than %lu\n", count, n, max_n);
		return -EINVAL;
	}
	if (secs > max_secs) {
		pr_err("duration=%u: more than %u seconds\n", secs, max_secs);
		return -EINVAL;
	}
	return 0;
}
