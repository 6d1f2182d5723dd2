// SPDX-License-Identifier: GPL-2.0
/*
 * Result text shared by the suite's modules (result.h). Built into each
 * module by its common.c, which defines pr_fmt first.
 */
#include <linux/utsname.h>

#include "result.h"

/*
 * The lines every result starts with: its format (@format, "NAME/N"), the
 * suite's version, the kernel's release and the run's mode (@mode).
 */
void ips_result_header(struct seq_buf *s, const char *format,
		       const char *mode)
{
	seq_buf_printf(s, "format=%s\n", format);
	seq_buf_printf(s, "suite=%s\n", IPISTORM_SUITE_VERSION);
	seq_buf_printf(s, "kernel=%s\n", init_utsname()->release);
	seq_buf_printf(s, "mode=%s\n", mode);
}

/*
 * Per-second rate of @n events in @ns nanoseconds, floor(n * 1e9 / ns),
 * exact for every @n: n = q * ns + r makes it q * 1e9 + r * 1e9 / ns,
 * the second a 128-bit product (x86-64's mulq; divq) whose quotient, below
 * 1e9 as r < ns, cannot trap. A rate that does not fit 64 bits (1.8e19
 * per second, which no count of events reaches) reads U64_MAX; no time, 0.
 */
u64 ips_result_rate(u64 n, u64 ns)
{
	u64 q, r, frac;

	if (!ns)
		return 0;
	if (n <= U64_MAX / NSEC_PER_SEC)
		return div64_u64(n * NSEC_PER_SEC, ns);
	q = div64_u64_rem(n, ns, &r);
	if (q > U64_MAX / NSEC_PER_SEC)
		return U64_MAX;
	frac = mul_u64_u64_div_u64(r, NSEC_PER_SEC, ns);
	if (q * NSEC_PER_SEC > U64_MAX - frac)
		return U64_MAX;
	return q * NSEC_PER_SEC + frac;
}

/* Print "<pfx><key>=" and @num/@den with one decimal: "1114.3". */
void ips_result_ratio(struct seq_buf *s, const char *pfx,
		      const char *key, u64 num, u64 den)
{
	u64 tenths = 0;

	if (den)
		tenths = div64_u64(num * 10 + den / 2, den);
	seq_buf_printf(s, "%s%s=%llu.%llu\n", pfx, key, tenths / 10,
		       tenths % 10);
}

/* Print @part/@whole as a percentage with one decimal: "97.3". */
void ips_result_pct(struct seq_buf *s, const char *pfx,
		    const char *key, u64 part, u64 whole)
{
	ips_result_ratio(s, pfx, key, part * 100, whole);
}

/*
 * "<key>=" the mean, "<key>_min=" and "<key>_max=" over the CPUs of @mask
 * of a u32 in ps at @off of each CPU's state (@state[cpu]), in ns with one
 * decimal: a calibration's spread.
 */
void ips_result_spread(struct seq_buf *sb, const char *key,
		       void * const *state,
		       const struct cpumask *mask, size_t off)
{
	u64 sum = 0, lo = U64_MAX, hi = 0;
	unsigned int n = 0;
	char k[48];
	int cpu;

	for_each_cpu(cpu, mask) {
		u32 v = *(const u32 *)((const char *)state[cpu] + off);

		sum += v;
		lo = min_t(u64, lo, v);
		hi = max_t(u64, hi, v);
		n++;
	}
	ips_result_ratio(sb, "", key, sum, (u64)n * 1000);
	snprintf(k, sizeof(k), "%s_min", key);
	ips_result_ratio(sb, "", k, n ? lo : 0, 1000);
	snprintf(k, sizeof(k), "%s_max", key);
	ips_result_ratio(sb, "", k, hi, 1000);
}

/*
 * Whether the result line @line (@len bytes) holds detail: per CPU ("cpuN."), per
 * sender ("senderN.") or per idle state (a key part "idle_STATE", idle.h).
 */
bool ips_result_is_detail(const char *line, size_t len)
{
	static const char * const pfx[] = { "cpu", "sender" };
	const char *eq = memchr(line, '=', len);
	unsigned int i;

	if (eq && strnstr(line, ".idle_", eq - line))
		return true;
	for (i = 0; i < ARRAY_SIZE(pfx); i++) {
		size_t n = strlen(pfx[i]);

		if (len > n && !memcmp(line, pfx[i], n) && isdigit(line[n]))
			return true;
	}
	return false;
}

void ips_result_line_flush(struct ips_result_line *l)
{
	if (l->used)
		pr_info("%s\n", l->buf);
	l->used = 0;
}

void ips_result_line_add(struct ips_result_line *l, const char *word,
			 int n)
{
	if (l->used && l->used + 1 + n >= sizeof(l->buf))
		ips_result_line_flush(l);
	/* A word longer than a line gets a line of its own, whole. */
	if (strlen(l->lead) + 1 + n >= sizeof(l->buf)) {
		pr_info("%s%s%.*s\n", l->lead, *l->lead ? " " : "", n, word);
		return;
	}
	if (!l->used)
		l->used = scnprintf(l->buf, sizeof(l->buf), "%s", l->lead);
	l->used += scnprintf(l->buf + l->used, sizeof(l->buf) - l->used,
			     "%s%.*s", l->used ? " " : "", n, word);
}

/*
 * Print the summary of the result @text to the kernel log, whatever the
 * number of CPUs: its keys that are not per CPU or per sender, several to a
 * line, and "status=" last on a line of its own. The whole result, details
 * included, stays in debugfs. A run thus prints a bounded number of lines
 * (the log of a 512-CPU server goes to a slow serial console, and a flood
 * of printk from atomic context can trip the lockup detectors).
 */
void ips_result_log(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl, *status = NULL;
	struct ips_result_line l = { .lead = "" };
	int n, status_len = 0;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p) ?: end;
		n = nl - p;
		if (!n || ips_result_is_detail(p, n))
			continue;
		if (!strncmp(p, "status=", 7)) {
			status = p;
			status_len = n;
			continue;
		}
		ips_result_line_add(&l, p, n);
	}
	ips_result_line_flush(&l);
	if (status)
		pr_info("%.*s\n", status_len, status);
}

/* The module's parameter @name, or NULL. */
static const struct kernel_param *ips_result_param(const struct module *mod,
						   const char *name)
{
	unsigned int i;

	for (i = 0; mod && i < mod->num_kp; i++)
		if (!strcmp(mod->kp[i].name, name))
			return &mod->kp[i];
	return NULL;
}

/* Whether the module's ips_params_order[] names @name. */
static bool ips_result_param_listed(const char *name)
{
	const char * const *p;

	for (p = ips_params_order; *p; p++)
		if (!strcmp(*p, name))
			return true;
	return false;
}

/*
 * Add "name=value" of @kp, if it can be read, to @l, a long value cut;
 * @val and @word are buffers of a page and of IPS_RESULT_LOG_LINE bytes.
 */
static void ips_result_param_add(struct ips_result_line *l,
				 const struct kernel_param *kp, char *val,
				 char *word)
{
	int n, cut;

	if (!kp->ops->get || !(kp->perm & 0444))
		return;
	n = kp->ops->get(val, kp);
	if (n < 0)
		return;
	n = strcspn(val, "\n");
	cut = min(n, IPS_RESULT_LOG_LINE / 4);
	n = scnprintf(word, IPS_RESULT_LOG_LINE / 2, "%s=%.*s%s", kp->name,
		      cut, val, n > cut ? "..." : "");
	ips_result_line_add(l, word, n);
}

/*
 * Print @lead and every parameter of the module with its value, several
 * to a line (a long value is cut, the result has it whole), as the first
 * line(s) of a run in the kernel log: in the order of the module's
 * ips_params_order[], its declaration order, then any parameter the table
 * leaves out, by name. Not in the order of the module's __param section,
 * which is the compiler's: GCC emits a unit's parameters last declared
 * first, clang first declared first.
 */
void ips_result_log_params(const char *lead)
{
	/*
	 * static: the line cannot be lost to a failed allocation; @val a
	 * page, as a parameter's get() may sysfs_emit() into it
	 */
	static char val[PAGE_SIZE] __aligned(PAGE_SIZE);
	static char word[IPS_RESULT_LOG_LINE];
	const struct module *mod = THIS_MODULE;
	struct ips_result_line l = { .lead = lead };
	const struct kernel_param *kp, *next;
	const char * const *name;
	unsigned int i;

	kernel_param_lock(THIS_MODULE);
	for (name = ips_params_order; *name; name++) {
		kp = ips_result_param(mod, *name);
		if (kp)
			ips_result_param_add(&l, kp, val, word);
	}
	for (kp = NULL; mod; kp = next) {
		next = NULL;
		for (i = 0; i < mod->num_kp; i++) {
			const struct kernel_param *p = &mod->kp[i];

			if (ips_result_param_listed(p->name) ||
			    (kp && strcmp(p->name, kp->name) <= 0))
				continue;
			if (!next || strcmp(p->name, next->name) < 0)
				next = p;
		}
		if (!next)
			break;
		ips_result_param_add(&l, next, val, word);
	}
	kernel_param_unlock(THIS_MODULE);
	ips_result_line_flush(&l);
}

static ssize_t ips_result_read(struct file *file, char __user *ubuf, size_t count,
			       loff_t *ppos)
{
	const struct ips_result *r = file->private_data;

	return simple_read_from_buffer(ubuf, count, ppos, r->buf, r->len);
}

static const struct file_operations ips_result_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= ips_result_read,
	.llseek	= default_llseek,
};

/* Create the module's debugfs folder, for files beside the result. */
struct dentry *ips_result_dir(struct ips_result *r, const char *dir)
{
	if (!r->dir)
		r->dir = debugfs_create_dir(dir, NULL);
	return r->dir;
}

/* Take ownership of @buf (vmalloc'ed) and expose it in debugfs. */
void ips_result_publish(struct ips_result *r, const char *dir,
			char *buf, size_t len)
{
	r->buf = buf;
	r->len = len;
	debugfs_create_file("result", 0400, ips_result_dir(r, dir), r,
			    &ips_result_fops);
}

/*
 * Build the result with @emit, histogram buckets included, then print its
 * summary to the kernel log (ips_result_log()) and, unless the run was
 * @interrupted, publish it in debugfs in the folder @dir. @size must hold
 * the text; without the memory for it, the one line says the result is
 * lost, and -ENOMEM.
 */
int ips_result_report(struct ips_result *r, const char *dir,
		      size_t size,
		      void (*emit)(struct seq_buf *sb, bool interrupted),
		      bool interrupted)
{
	struct seq_buf sb;
	char *buf;

	buf = __vmalloc(size, GFP_KERNEL | __GFP_NOWARN);
	if (!buf)
		goto lost;
	seq_buf_init(&sb, buf, size);
	emit(&sb, interrupted);
	if (seq_buf_has_overflowed(&sb))
		pr_warn("result truncated to %zu bytes\n", size);
	ips_result_log(buf, seq_buf_used(&sb));
	if (interrupted) {
		vfree(buf);
		return 0;
	}
	ips_result_publish(r, dir, buf, seq_buf_used(&sb));
	return 0;
lost:
	/* The allocator said nothing (__GFP_NOWARN): this is the one line. */
	pr_err("no memory for the result (%zu bytes): this run's result is lost\n",
	       size);
	return -ENOMEM;
}

static ssize_t ips_result_control_write(struct file *file,
					const char __user *ubuf, size_t count,
					loff_t *ppos)
{
	struct ips_result *r = file->private_data;
	char cmd[8] = {};

	if (copy_from_user(cmd, ubuf, min(count, sizeof(cmd) - 1)))
		return -EFAULT;
	if (strcmp(strim(cmd), "stop"))
		return -EINVAL;
	r->stop(r);
	return count;
}

static const struct file_operations ips_result_control_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= ips_result_control_write,
	.llseek	= noop_llseek,
};

/*
 * A root-only "control" file beside the result: writing "stop" to it calls
 * @stop, which ends a measurement running in the background and publishes
 * its result.
 */
void ips_result_control(struct ips_result *r, const char *dir,
			void (*stop)(struct ips_result *r))
{
	r->stop = stop;
	r->control = debugfs_create_file("control", 0200, ips_result_dir(r, dir),
					 r, &ips_result_control_fops);
}

/* Remove the control file, waiting for a write in progress to return. */
void ips_result_control_remove(struct ips_result *r)
{
	debugfs_remove(r->control);
	r->control = NULL;
}

/*
 * Remove the debugfs folder, waiting for readers and writers of its files,
 * before freeing the text.
 */
void ips_result_free(struct ips_result *r)
{
	debugfs_remove_recursive(r->dir);
	r->dir = NULL;
	vfree(r->buf);
	r->buf = NULL;
	r->len = 0;
}

