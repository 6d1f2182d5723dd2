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

static int ips_int_given_set(const char *val, const struct kernel_param *kp)
{
	struct ips_int_given *p = kp->arg;
	int ret = kstrtoint(val ?: "", 0, &p->val);

	p->given |= !ret;
	return ret;
}

static int ips_int_given_get(char *buf, const struct kernel_param *kp)
{
	const struct ips_int_given *p = kp->arg;

	return sysfs_emit(buf, "%d\n", p->val);
}

const struct kernel_param_ops ips_int_given_ops = {
	.set	= ips_int_given_set,
	.get	= ips_int_given_get,
};

static int ips_bool_given_set(const char *val, const struct kernel_param *kp)
{
	struct ips_bool_given *p = kp->arg;
	int ret = ips_bool_strict_parse(val, &p->val);

	p->given |= !ret;
	return ret;
}

/* As param_get_bool(): Y or N. */
static int ips_bool_given_get(char *buf, const struct kernel_param *kp)
{
	const struct ips_bool_given *p = kp->arg;

	return sysfs_emit(buf, "%c\n", p->val ? 'Y' : 'N');
}

const struct kernel_param_ops ips_bool_given_ops = {
	.set	= ips_bool_given_set,
	.get	= ips_bool_given_get,
};

static bool ips_cpu_usable(long cpu)
{
	return cpu >= 0 && cpu < nr_cpu_ids && cpu_online(cpu);
}

int ips_pairs_from_cpulist(const char *cpulist, const int *offset,
			   ips_pair_add_t add, void *data)
{
	cpumask_var_t mask;
	int cpu, ret;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	ret = ips_cpus_parse_online("cpulist", cpulist, mask);
	if (ret)
		goto out;
	for_each_cpu(cpu, mask) {
		long t = offset ? (long)cpu + *offset : IPS_NO_TARGET;

		if (offset && (!*offset || !ips_cpu_usable(t))) {
			pr_err("offset=%d: target %ld of sender CPU %d is not another online CPU\n",
			       *offset, t, cpu);
			ret = -EINVAL;
			break;
		}
		ret = add(data, cpu, t);
		if (ret)
			break;
	}
out:
	free_cpumask_var(mask);
	return ret;
}

/*
 * One pair "S:T", the @n-th, into @s and @t: online CPUs, distinct, the
 * sender not in @seen (which gets it).
 */
static int ips_pair_parse(char *tok, unsigned int n, struct cpumask *seen,
			  unsigned int *s, unsigned int *t)
{
	char *colon = strchr(tok, ':');

	if (!colon) {
		pr_err("pairs=...: pair %u '%.16s' is not sender:target\n",
		       n, tok);
		return -EINVAL;
	}
	*colon = '\0';
	if (kstrtouint(tok, 10, s) || kstrtouint(colon + 1, 10, t)) {
		pr_err("pairs=...: pair %u '%.16s:%.16s' is not two CPU numbers\n",
		       n, tok, colon + 1);
		return -EINVAL;
	}
	if (!ips_cpu_usable(*s) || !ips_cpu_usable(*t)) {
		pr_err("pairs=...: pair %u %u:%u names a CPU that is not online\n",
		       n, *s, *t);
		return -EINVAL;
	}
	if (*s == *t || cpumask_test_and_set_cpu(*s, seen)) {
		pr_err("pairs=...: pair %u %u:%u %s\n", n, *s, *t,
		       *s == *t ? "targets its own sender" :
		       "repeats a sender");
		return -EINVAL;
	}
	return 0;
}

int ips_pairs_from_list(const char *pairs, ips_pair_add_t add, void *data)
{
	char *buf, *p, *tok;
	cpumask_var_t seen;
	unsigned int n = 0;
	int ret = -ENOMEM;

	buf = kstrdup(pairs, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (!zalloc_cpumask_var(&seen, GFP_KERNEL))
		goto out_buf;
	p = buf;
	while ((tok = strsep(&p, ",")) != NULL) {
		unsigned int s, t;

		ret = ips_pair_parse(tok, ++n, seen, &s, &t) ?:
		      add(data, s, t);
		if (ret)
			break;
	}
	free_cpumask_var(seen);
out_buf:
	kfree(buf);
	return ret;
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
