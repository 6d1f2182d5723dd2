// SPDX-License-Identifier: GPL-2.0
/* The histogram's functions off the path measured: merging and reporting. */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "hist.h"

void ips_hist_init(struct ips_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = U64_MAX;
}

void ips_hist_merge(struct ips_hist *dst, const struct ips_hist *src)
{
	unsigned int i;

	for (i = 0; i < IPS_HIST_BUCKETS; i++)
		dst->count[i] += src->count[i];
	dst->n += src->n;
	dst->sum += src->sum;
	dst->below += src->below;
	dst->min = min(dst->min, src->min);
	dst->max = max(dst->max, src->max);
}

/*
 * Value at quantile @q / 1000 (p99.9 is q = 999): the middle of the bucket
 * holding that rank, clamped to the exact minimum and maximum.
 */
u64 ips_hist_quantile(const struct ips_hist *h, unsigned int q)
{
	u64 rank, seen = 0, v;
	unsigned int i;

	if (!h->n)
		return 0;
	rank = div_u64(h->n * q + 999, 1000);
	if (!rank)
		rank = 1;
	for (i = 0; i < IPS_HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= rank)
			break;
	}
	if (i == IPS_HIST_BUCKETS)
		return h->max;
	v = ips_hist_lower(i) + ips_hist_width(i) / 2;
	return clamp(v, h->min, h->max);
}

unsigned int ips_hist_used(const struct ips_hist *h)
{
	unsigned int i, used = 0;

	for (i = 0; i < IPS_HIST_BUCKETS; i++)
		used += !!h->count[i];
	return used;
}

/*
 * Emit the summary of @h, whose values are in units of @div/@mul ns (1/1 for
 * nanoseconds), as "<pfx><name>_<stat>_ns=<value>" lines in nanoseconds:
 * min, mean, the percentiles p50, p90, p99 and p999 (with @tail also p75,
 * p95 and p995, in order) and max. Nothing for an empty histogram. A mean
 * below 0 (costs removed above what was measured) is 0.
 */
void ips_hist_emit_summary(struct seq_buf *s, const char *pfx,
			   const char *name, const struct ips_hist *h,
			   bool tail, u32 mul, u32 div)
{
	static const struct {
		const char *key;
		unsigned int q;
		bool tail;
	} qs[] = {
		{ "p50", 500 }, { "p75", 750, true }, { "p90", 900 },
		{ "p95", 950, true }, { "p99", 990 }, { "p995", 995, true },
		{ "p999", 999 },
	};
	unsigned int i;

	if (!h->n)
		return;
	seq_buf_printf(s, "%s%s_min_ns=%llu\n", pfx, name,
		       mul_u64_u32_div(h->min, mul, div));
	seq_buf_printf(s, "%s%s_mean_ns=%llu\n", pfx, name,
		       (s64)h->sum <= 0 ? 0 :
		       mul_u64_u32_div(div64_u64(h->sum, h->n), mul, div));
	for (i = 0; i < ARRAY_SIZE(qs); i++)
		if (tail || !qs[i].tail)
			seq_buf_printf(s, "%s%s_%s_ns=%llu\n", pfx, name,
				       qs[i].key,
				       mul_u64_u32_div(ips_hist_quantile(h, qs[i].q),
						       mul, div));
	seq_buf_printf(s, "%s%s_max_ns=%llu\n", pfx, name,
		       mul_u64_u32_div(h->max, mul, div));
}

/*
 * Emit "<pfx><name>_n=<count>", the summary (ips_hist_emit_summary()) and,
 * when @buckets, one "<pfx><name>_hist_ns.<lower>=<count>" line per used
 * bucket (buckets whose lower bounds convert to the same nanosecond are
 * merged).
 */
void ips_hist_emit_scaled(struct seq_buf *s, const char *pfx,
			  const char *name, const struct ips_hist *h,
			  bool buckets, u32 mul, u32 div)
{
	u64 lower, count = 0, prev = 0;
	unsigned int i;

	seq_buf_printf(s, "%s%s_n=%llu\n", pfx, name, h->n);
	if (!h->n)
		return;
	ips_hist_emit_summary(s, pfx, name, h, false, mul, div);
	if (!buckets)
		return;
	for (i = 0; i < IPS_HIST_BUCKETS; i++) {
		if (!h->count[i])
			continue;
		lower = mul_u64_u32_div(ips_hist_lower(i), mul, div);
		if (count && lower != prev) {
			seq_buf_printf(s, "%s%s_hist_ns.%llu=%llu\n", pfx, name,
				       prev, count);
			count = 0;
		}
		prev = lower;
		count += h->count[i];
	}
	seq_buf_printf(s, "%s%s_hist_ns.%llu=%llu\n", pfx, name, prev, count);
}

void ips_hist_emit(struct seq_buf *s, const char *pfx, const char *name,
		   const struct ips_hist *h, bool buckets)
{
	ips_hist_emit_scaled(s, pfx, name, h, buckets, 1, 1);
}
