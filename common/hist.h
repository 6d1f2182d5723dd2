/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log-linear histogram shared by the suite's modules.
 *
 * Values below IPS_HIST_SUB are counted exactly. Above, every power of two is
 * split into IPS_HIST_SUB buckets, so a bucket spans at most 1/IPS_HIST_SUB (6.25 %)
 * of its lower bound. Values of 2^IPS_HIST_MAX_BITS and more share the last
 * bucket; the exact minimum and maximum are kept beside the buckets.
 * Recording a value costs one fls64(), a shift and four stores.
 *
 * A time with an instrument's cost removed (ips_hist_add_net()) is never
 * below 0 in the buckets, the minimum and the maximum, but its sum, and so
 * the mean, is of the signed differences: the mean is the measured mean less
 * the mean cost, not raised by the values that the noise put below their
 * cost. Those are counted in @below.
 */
#ifndef IPISTORM_HIST_H
#define IPISTORM_HIST_H

#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/seq_buf.h>
#include <linux/types.h>

#define IPS_HIST_SUB_BITS	4
#define IPS_HIST_SUB	BIT(IPS_HIST_SUB_BITS)
#define IPS_HIST_MAX_BITS	40
#define IPS_HIST_BUCKETS	((IPS_HIST_MAX_BITS - IPS_HIST_SUB_BITS + 1) * IPS_HIST_SUB)

struct ips_hist {
	u64 n;
	u64 sum;	/* two's complement: signed with ips_hist_add_net() */
	u64 below;	/* values recorded as 0: their cost was above them */
	u64 min;
	u64 max;
	u64 count[IPS_HIST_BUCKETS];
};

void ips_hist_init(struct ips_hist *h);
void ips_hist_merge(struct ips_hist *dst, const struct ips_hist *src);
u64 ips_hist_quantile(const struct ips_hist *h, unsigned int q);
unsigned int ips_hist_used(const struct ips_hist *h);
void ips_hist_emit_summary(struct seq_buf *s, const char *pfx,
			   const char *name, const struct ips_hist *h,
			   bool tail, u32 mul, u32 div);
void ips_hist_emit_scaled(struct seq_buf *s, const char *pfx,
			  const char *name, const struct ips_hist *h,
			  bool buckets, u32 mul, u32 div);
void ips_hist_emit(struct seq_buf *s, const char *pfx, const char *name,
		   const struct ips_hist *h, bool buckets);

/*
 * Inline from here: ips_hist_add() records a value on the path measured
 * (every call of a storm, every span of a hook), and the bucket
 * arithmetic is a few instructions, the inverse of ips_hist_index() kept
 * beside it.
 */
static inline unsigned int ips_hist_index(u64 v)
{
	unsigned int msb;

	if (v < IPS_HIST_SUB)
		return v;
	msb = __fls(v);		/* v > 0: no test for zero */
	if (msb >= IPS_HIST_MAX_BITS)
		return IPS_HIST_BUCKETS - 1;
	return (msb - IPS_HIST_SUB_BITS + 1) * IPS_HIST_SUB +
	       ((v >> (msb - IPS_HIST_SUB_BITS)) & (IPS_HIST_SUB - 1));
}

/* Lowest value that lands in bucket @i. */
static inline u64 ips_hist_lower(unsigned int i)
{
	unsigned int group = i / IPS_HIST_SUB;

	if (!group)
		return i;
	return (u64)(IPS_HIST_SUB + i % IPS_HIST_SUB) << (group - 1);
}

static inline u64 ips_hist_width(unsigned int i)
{
	unsigned int group = i / IPS_HIST_SUB;

	return group ? 1ULL << (group - 1) : 1;
}

static inline void ips_hist_add(struct ips_hist *h, u64 v)
{
	h->count[ips_hist_index(v)]++;
	h->n++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/* Record @v with @cost removed: 0 where @cost exceeds @v, but for the sum. */
static inline void ips_hist_add_net(struct ips_hist *h, u64 v, u64 cost)
{
	ips_hist_add(h, v > cost ? v - cost : 0);
	if (unlikely(v < cost)) {
		h->sum -= cost - v;
		h->below++;
	}
}

#endif /* IPISTORM_HIST_H */
