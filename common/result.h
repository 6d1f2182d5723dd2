/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Result text shared by the suite's modules: key=value lines built once at
 * the end of a run, printed to the kernel log and kept readable in
 * /sys/kernel/debug/<module>/result (root only) until the module is removed.
 * Include after defining pr_fmt.
 */
#ifndef IPISTORM_RESULT_H
#define IPISTORM_RESULT_H

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/seq_buf.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

/* Version of the suite; every result names it as "suite=". */
#define IPISTORM_SUITE_VERSION "1.0"

struct result {
	char *buf;
	size_t len;
	struct dentry *dir;
	struct dentry *control;
	void (*stop)(void);
};

/* Per-second rate of @n events in @ns nanoseconds, without overflow. */
static inline u64 result_rate(u64 n, u64 ns)
{
	if (!ns)
		return 0;
	if (n <= U64_MAX / NSEC_PER_SEC)
		return div64_u64(n * NSEC_PER_SEC, ns);
	return div64_u64(n, max_t(u64, div64_u64(ns, NSEC_PER_SEC), 1));
}

/* Print "<pfx><key>=" and @num/@den with one decimal: "1114.3". */
static inline void result_ratio(struct seq_buf *s, const char *pfx,
				const char *key, u64 num, u64 den)
{
	u64 tenths = 0;

	if (den)
		tenths = div64_u64(num * 10 + den / 2, den);
	seq_buf_printf(s, "%s%s=%llu.%llu\n", pfx, key, tenths / 10,
		       tenths % 10);
}

/* Print @part/@whole as a percentage with one decimal: "97.3". */
static inline void result_pct(struct seq_buf *s, const char *pfx,
			      const char *key, u64 part, u64 whole)
{
	result_ratio(s, pfx, key, part * 100, whole);
}

/* Print each line of @text to the kernel log. */
static inline void result_log(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;

	while (p < end) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		pr_info("%.*s\n", (int)(nl - p), p);
		p = nl + 1;
	}
}

static ssize_t result_read(struct file *file, char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	const struct result *r = file->private_data;

	return simple_read_from_buffer(ubuf, count, ppos, r->buf, r->len);
}

static const struct file_operations result_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= result_read,
	.llseek	= default_llseek,
};

/* Create the module's debugfs folder, for files beside the result. */
static inline struct dentry *result_dir(struct result *r, const char *dir)
{
	if (!r->dir)
		r->dir = debugfs_create_dir(dir, NULL);
	return r->dir;
}

/* Take ownership of @buf (vmalloc'ed) and expose it in debugfs. */
static inline void result_publish(struct result *r, const char *dir,
				  char *buf, size_t len)
{
	r->buf = buf;
	r->len = len;
	debugfs_create_file("result", 0400, result_dir(r, dir), r,
			    &result_fops);
}

/*
 * Build the result with @emit twice: without histogram buckets for the
 * kernel log, then, unless the run was @interrupted, with them for debugfs
 * in the folder @dir. @size must hold the longer text.
 */
static inline int result_report(struct result *r, const char *dir,
				size_t size,
				void (*emit)(struct seq_buf *sb, bool interrupted,
					     bool buckets),
				bool interrupted)
{
	struct seq_buf sb;
	char *buf;

	buf = vmalloc(size);
	if (!buf)
		return -ENOMEM;
	seq_buf_init(&sb, buf, size);
	emit(&sb, interrupted, false);
	result_log(buf, seq_buf_used(&sb));
	if (interrupted) {
		vfree(buf);
		return 0;
	}
	seq_buf_init(&sb, buf, size);
	emit(&sb, false, true);
	if (seq_buf_has_overflowed(&sb))
		pr_warn("result truncated to %zu bytes\n", size);
	result_publish(r, dir, buf, seq_buf_used(&sb));
	return 0;
}

static ssize_t result_control_write(struct file *file,
				    const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	const struct result *r = file->private_data;
	char cmd[8] = {};

	if (copy_from_user(cmd, ubuf, min(count, sizeof(cmd) - 1)))
		return -EFAULT;
	if (strcmp(strim(cmd), "stop"))
		return -EINVAL;
	r->stop();
	return count;
}

static const struct file_operations result_control_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= result_control_write,
	.llseek	= noop_llseek,
};

/*
 * A root-only "control" file beside the result: writing "stop" to it calls
 * @stop, which ends a measurement running in the background and publishes
 * its result.
 */
static inline void result_control(struct result *r, const char *dir,
				  void (*stop)(void))
{
	r->stop = stop;
	r->control = debugfs_create_file("control", 0200, result_dir(r, dir),
					 r, &result_control_fops);
}

/* Remove the control file, waiting for a write in progress to return. */
static inline void result_control_remove(struct result *r)
{
	debugfs_remove(r->control);
	r->control = NULL;
}

/*
 * Remove the debugfs folder, waiting for readers and writers of its files,
 * before freeing the text.
 */
static inline void result_free(struct result *r)
{
	debugfs_remove_recursive(r->dir);
	r->dir = NULL;
	vfree(r->buf);
	r->buf = NULL;
	r->len = 0;
}

#endif /* IPISTORM_RESULT_H */
