// SPDX-License-Identifier: GPL-2.0
/* test_hist - module/na_hist.h: bucket bounds and percentiles */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "kcompat.h"
#include "../../module/na_hist.h"

/* Values below NA_HIST_SUB are counted exactly. */
static void small_values_exact(void **state)
{
	u64 v;

	for (v = 0; v < NA_HIST_SUB; v++) {
		assert_int_equal(na_hist_bucket(v), v);
		assert_int_equal(na_hist_upper(v), v);
	}
}

/*
 * Every value up to 2^20 (and a stride beyond) falls in a bucket whose
 * range holds it, the buckets are in order, and no bucket is wider than
 * 1/8 of its values: the promised bound on percentile error.
 */
static void buckets_tight_and_ordered(void **state)
{
	unsigned int prev = 0;
	u64 v;

	for (v = 0; v < (1ULL << NA_HIST_MAX_SHIFT); v += v < (1 << 20) ? 1 : 4093) {
		unsigned int b = na_hist_bucket(v);

		assert_true(b < NA_HIST_BUCKETS - 1);
		assert_true(b >= prev);
		assert_true(na_hist_upper(b) >= v);
		if (b > 0)
			assert_true(na_hist_upper(b - 1) < v);
		assert_true(na_hist_upper(b) - v <= v / NA_HIST_SUB);
		prev = b;
	}
}

static void large_values_in_last_bucket(void **state)
{
	assert_int_equal(na_hist_bucket(1ULL << NA_HIST_MAX_SHIFT),
			 NA_HIST_BUCKETS - 1);
	assert_int_equal(na_hist_bucket(~0ULL), NA_HIST_BUCKETS - 1);
	assert_int_equal(na_hist_bucket((1ULL << NA_HIST_MAX_SHIFT) - 1),
			 NA_HIST_BUCKETS - 2);
}

static void count(u64 *hist, u64 v)
{
	hist[na_hist_bucket(v)]++;
}

/* 1..100: p50 is 50's bucket [48,51], p99 99's bucket capped by max 100. */
static void percentile_hand_computed(void **state)
{
	u64 hist[NA_HIST_BUCKETS] = { 0 };
	u64 v;

	for (v = 1; v <= 100; v++)
		count(hist, v);
	assert_int_equal(na_hist_percentile(hist, 100, 50, 100), 51);
	assert_int_equal(na_hist_percentile(hist, 100, 99, 100), 100);
	assert_int_equal(na_hist_percentile(hist, 100, 100, 100), 100);
	assert_int_equal(na_hist_percentile(hist, 100, 1, 100), 1);
}

/* rank = ceil(n * pct / 100): of {10, 20, 30}, p50 is the 2nd value. */
static void percentile_rank_rounds_up(void **state)
{
	u64 hist[NA_HIST_BUCKETS] = { 0 };

	count(hist, 10);
	count(hist, 20);
	count(hist, 30);
	assert_int_equal(na_hist_percentile(hist, 3, 50, 30), 21);
	assert_int_equal(na_hist_percentile(hist, 3, 34, 30), 21);
	assert_int_equal(na_hist_percentile(hist, 3, 33, 30), 10);
}

static void percentile_empty_and_outliers(void **state)
{
	u64 hist[NA_HIST_BUCKETS] = { 0 };
	unsigned int i;

	assert_int_equal(na_hist_percentile(hist, 0, 99, 0), 0);
	/* 99 fast calls and one of a whole second: p99 fast, max the outlier */
	for (i = 0; i < 99; i++)
		count(hist, 200);
	count(hist, 1000000000ULL);
	assert_int_equal(na_hist_percentile(hist, 100, 99, 1000000000ULL), 207);
	assert_int_equal(na_hist_percentile(hist, 100, 100, 1000000000ULL),
			 1000000000ULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(small_values_exact),
		cmocka_unit_test(buckets_tight_and_ordered),
		cmocka_unit_test(large_values_in_last_bucket),
		cmocka_unit_test(percentile_hand_computed),
		cmocka_unit_test(percentile_rank_rounds_up),
		cmocka_unit_test(percentile_empty_and_outliers),
	};

	return cmocka_run_group_tests_name("hist", tests, NULL, NULL);
}
