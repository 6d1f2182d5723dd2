/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parameter helpers shared by the suite's modules: a string parameter
 * longer than a charp's 1024 characters, and the parsing of a cpulist into
 * online CPUs. The functions are in param.c, which each module's
 * common.c builds into it.
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
#include <linux/sysfs.h>

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

int ips_long_string_set(const char *val, const struct kernel_param *kp);
int ips_long_string_get(char *buf, const struct kernel_param *kp);
void ips_long_string_free(void *arg);
extern const struct kernel_param_ops ips_long_string_ops;

/*
 * A bool parameter that takes exactly 0, 1, n, N, y or Y. The kernel's
 * own bool reads the first character only (kstrtobool()), so wait=10,
 * timing=yes or witness=on-please would load as 1. Anything else, and the
 * name alone, is refused (EINVAL) by the kernel's one line naming the
 * parameter and its value: "mod: `10' invalid for parameter `wait'".
 */
int ips_bool_strict_parse(const char *val, bool *res);
int ips_bool_strict_set(const char *val, const struct kernel_param *kp);
extern const struct kernel_param_ops ips_bool_strict_ops;

int ips_cpus_parse_online(const char *param, const char *str,
			  struct cpumask *mask);

/*
 * An int parameter that knows whether it was given (offset=, whose value
 * means nothing with pairs=): @given is set by a store that parsed.
 */
struct ips_int_given {
	int val;
	bool given;
};

extern const struct kernel_param_ops ips_int_given_ops;

/* The same for a strict bool (idle_states=, nothing to do with timing=0). */
struct ips_bool_given {
	bool val;
	bool given;
};

extern const struct kernel_param_ops ips_bool_given_ops;

/*
 * The sender:target pairs of a module whose senders each notify one
 * target, handed to @add(@data, sender, target) in order: from cpulist=
 * (each CPU of the list, its target the CPU @offset further on; with
 * @offset NULL, IPS_NO_TARGET), or from pairs= ("S:T,...", each sender
 * once). Errors name the parameter and the pair, not the whole list (it
 * may be thousands of characters), and return -EINVAL; @add's own error
 * ends the walk.
 */
#define IPS_NO_TARGET	(-1)

typedef int (*ips_pair_add_t)(void *data, int sender, int target);

int ips_pairs_from_cpulist(const char *cpulist, const int *offset,
			   ips_pair_add_t add, void *data);
int ips_pairs_from_list(const char *pairs, ips_pair_add_t add, void *data);
int ips_param_count_or_duration(const char *count, unsigned long n,
				unsigned long max_n, unsigned int secs,
				unsigned int max_secs);

#endif /* IPISTORM_PARAM_H */
