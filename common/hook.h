/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace hooks shared by the suite's modules: one ftrace_ops per hooked
 * function, found by the first of several candidate names that the running
 * kernel can trace (names differ between kernel versions, and static
 * functions may carry suffixes such as .isra.0, which a glob matches).
 * Include after defining pr_fmt.
 */
#ifndef IPISTORM_HOOK_H
#define IPISTORM_HOOK_H

#include <linux/errno.h>
#include <linux/ftrace.h>
#include <linux/printk.h>
#include <linux/seq_buf.h>
#include <linux/string.h>

struct hook {
	const char * const *names;	/* candidates, the first found is hooked */
	ftrace_func_t func;
	bool required;			/* insmod fails without it */
	unsigned long flags;		/* FTRACE_OPS_FL_* for its ftrace_ops */
	const char *hooked;		/* the candidate that matched */
	bool registered;
	struct ftrace_ops ops;
};

#define HOOK_NAMES(...) ((const char * const []){ __VA_ARGS__, NULL })

/*
 * DEFINE_HOOK(name, type, lookup, body): define the ftrace callback @name.
 * It takes the recursion lock, which also keeps preemption off, fetches
 * this CPU's state, a @type pointer, with lookup() and, when there is any,
 * runs body(state) on it. The body, an __always_inline function defined
 * before, is inlined: no indirect call per hit.
 */
#define DEFINE_HOOK(name, type, lookup, body)				\
static void name(unsigned long ip, unsigned long parent_ip,		\
		 struct ftrace_ops *op, struct ftrace_regs *fregs)	\
{									\
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);	\
	type *state;							\
									\
	if (bit >= 0) {							\
		state = lookup();					\
		if (state)						\
			body(state);					\
		ftrace_test_recursion_unlock(bit);			\
	}								\
}

/* Hook the first traceable candidate; 0 also when an optional one is absent. */
static inline int hook_register(struct hook *h)
{
	const char * const *name;
	int ret;

	for (name = h->names; *name; name++) {
		unsigned char buf[64];

		/* The filter parser may write into its buffer. */
		strscpy(buf, *name, sizeof(buf));
		memset(&h->ops, 0, sizeof(h->ops));
		h->ops.func = h->func;
		h->ops.flags = h->flags;
		if (ftrace_set_filter(&h->ops, buf, strlen(buf), 1))
			continue;
		ret = register_ftrace_function(&h->ops);
		if (ret) {
			ftrace_free_filter(&h->ops);
			pr_err("cannot hook %s: %d\n", *name, ret);
			return ret;
		}
		h->hooked = *name;
		h->registered = true;
		return 0;
	}
	if (h->required) {
		pr_err("no traceable %s on this kernel\n", h->names[0]);
		return -ENOENT;
	}
	return 0;
}

/* Unhook the last first; each returns once no CPU is inside its callback. */
static inline void hooks_unregister(struct hook *hooks, unsigned int n)
{
	while (n--) {
		struct hook *h = &hooks[n];

		if (!h->registered)
			continue;
		unregister_ftrace_function(&h->ops);
		ftrace_free_filter(&h->ops);
		h->registered = false;
	}
}

/* Hook the last first, so that the first one starts the measurement. */
static inline int hooks_register(struct hook *hooks, unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = n; i--; ) {
		ret = hook_register(&hooks[i]);
		if (ret) {
			hooks_unregister(hooks, n);
			return ret;
		}
	}
	return 0;
}

/*
 * "hooked=" with @also (probes of other kinds, or "") and the names hooked,
 * then "missing=" with the optional hooks this kernel lacks.
 */
static inline void hooks_emit(struct seq_buf *sb, const struct hook *hooks,
			      unsigned int n, const char *also)
{
	const char *sep = *also ? "," : "";
	unsigned int i;

	seq_buf_printf(sb, "hooked=%s", also);
	for (i = 0; i < n; i++) {
		if (!hooks[i].hooked)
			continue;
		seq_buf_printf(sb, "%s%s", sep, hooks[i].hooked);
		sep = ",";
	}
	seq_buf_printf(sb, "\nmissing=");
	sep = "";
	for (i = 0; i < n; i++) {
		if (hooks[i].hooked)
			continue;
		seq_buf_printf(sb, "%s%s", sep, hooks[i].names[0]);
		sep = ",";
	}
	seq_buf_printf(sb, "\n");
}

#endif /* IPISTORM_HOOK_H */
