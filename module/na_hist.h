/* SPDX-License-Identifier: GPL-2.0 */
/*
 * na_hist.h - log-linear latency histogram for the probes' own cost
 *
 * Shared by the module and the user-space unit tests: it uses only u32/u64
 * and fls64(), which the includer provides (the kernel headers, or
 * tests/unit/kcompat.h).
 *
 * A value v < 8 has a bucket of its own; above that each power of two is
 * split into NA_HIST_SUB equal sub-buckets, so a bucket's width is at most
 * 1/8 of its lower bound: a percentile read from it is at most 12.5% above
 * the true value.  Everything at or above 2^NA_HIST_MAX_SHIFT ns lands in
 * the last bucket.
 */
#ifndef NA_HIST_H
#define NA_HIST_H

#define NA_HIST_SUB_BITS	3
#define NA_HIST_SUB		(1u << NA_HIST_SUB_BITS)
#define NA_HIST_MAX_SHIFT	24	/* 16.8 ms: beyond is "too long" */
#define NA_HIST_BUCKETS	\
	((NA_HIST_MAX_SHIFT - NA_HIST_SUB_BITS + 1) * NA_HIST_SUB + 1)

/* na_hist_bucket - index of the bucket that counts @v */
static inline unsigned int na_hist_bucket(u64 v)
{
	unsigned int msb, sub;

	if (v < NA_HIST_SUB)
		return v;
	if (v >> NA_HIST_MAX_SHIFT)
		return NA_HIST_BUCKETS - 1;
	msb = fls64(v) - 1;			/* NA_HIST_SUB_BITS .. MAX_SHIFT-1 */
	sub = (v >> (msb - NA_HIST_SUB_BITS)) & (NA_HIST_SUB - 1);
	return (msb - NA_HIST_SUB_BITS + 1) * NA_HIST_SUB + sub;
}

/* na_hist_upper - largest value that falls into bucket @b */
static inline u64 na_hist_upper(unsigned int b)
{
	unsigned int msb, sub;

	if (b < NA_HIST_SUB)
		return b;
	if (b >= NA_HIST_BUCKETS - 1)
		return ~0ULL;
	msb = b / NA_HIST_SUB - 1 + NA_HIST_SUB_BITS;
	sub = b % NA_HIST_SUB;
	return ((u64)(NA_HIST_SUB + sub + 1) << (msb - NA_HIST_SUB_BITS)) - 1;
}

/*
 * na_hist_percentile - upper bound of the bucket holding the @pct-th
 * percentile of the @total values counted in @hist, 0 when empty
 *
 * The last bucket has no upper bound; @max (the largest value seen) stands
 * in for it, and caps every answer, since no percentile exceeds the max.
 */
static inline u64 na_hist_percentile(const u64 *hist, u64 total,
				     unsigned int pct, u64 max)
{
	u64 rank, seen = 0;
	unsigned int b;

	if (!total)
		return 0;
	/* rank = ceil(total * pct / 100), at least 1 */
	rank = total / 100 * pct + ((total % 100) * pct + 99) / 100;
	if (!rank)
		rank = 1;
	for (b = 0; b < NA_HIST_BUCKETS; b++) {
		seen += hist[b];
		if (seen >= rank)
			break;
	}
	if (b >= NA_HIST_BUCKETS - 1 || na_hist_upper(b) > max)
		return max;
	return na_hist_upper(b);
}

#endif /* NA_HIST_H */
