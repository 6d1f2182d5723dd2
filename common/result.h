/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Result text shared by the suite's modules: key=value lines built once at
 * the end of a run, printed to the kernel log and kept readable in
 * /sys/kernel/debug/<module>/result (root only) until the module is removed.
 * The functions are in result.c, which each module's
 * common.c builds into it.
 */
#ifndef IPISTORM_RESULT_H
#define IPISTORM_RESULT_H

#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/seq_buf.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

/* Version of the suite; every result names it as "suite=". */
#define IPISTORM_SUITE_VERSION "1.0"

struct ips_result {
	char *buf;
	size_t len;
	struct dentry *dir;
	struct dentry *control;
	void (*stop)(struct ips_result *r);
};

void ips_result_header(struct seq_buf *s, const char *format,
		       const char *mode);
u64 ips_result_rate(u64 n, u64 ns);
void ips_result_ratio(struct seq_buf *s, const char *pfx, const char *key,
		      u64 num, u64 den);
void ips_result_pct(struct seq_buf *s, const char *pfx, const char *key,
		    u64 part, u64 whole);
void ips_result_spread(struct seq_buf *sb, const char *key,
		       void * const *state, const struct cpumask *mask,
		       size_t off);
bool ips_result_is_detail(const char *line, size_t len);

#define IPS_RESULT_LOG_LINE	160

/* Lines of at most IPS_RESULT_LOG_LINE bytes, filled word by word. */
struct ips_result_line {
	char buf[IPS_RESULT_LOG_LINE];
	size_t used;
	const char *lead;	/* starts every line */
};

void ips_result_line_flush(struct ips_result_line *l);
void ips_result_line_add(struct ips_result_line *l, const char *word, int n);
void ips_result_log(const char *text, size_t len);
/*
 * The start line's order: the module's parameters by name, in the order
 * it declares them, NULL last. Every module that prints a start line
 * defines it beside its parameters:
 *
 *	const char * const ips_params_order[] = { "cpulist", ..., NULL };
 *
 * (common/tests/params.bats checks it against the declarations.)
 */
extern const char * const ips_params_order[];
void ips_result_log_params(const char *lead);

struct dentry *ips_result_dir(struct ips_result *r, const char *dir);
void ips_result_publish(struct ips_result *r, const char *dir, char *buf,
			size_t len);
int ips_result_report(struct ips_result *r, const char *dir, size_t size,
		      void (*emit)(struct seq_buf *sb, bool interrupted),
		      bool interrupted);
void ips_result_control(struct ips_result *r, const char *dir,
			void (*stop)(struct ips_result *r));
void ips_result_control_remove(struct ips_result *r);
void ips_result_free(struct ips_result *r);

#endif /* IPISTORM_RESULT_H */
