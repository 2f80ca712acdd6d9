// SPDX-License-Identifier: GPL-2.0
/* test_index - module/na_index.h: the probes' lock-free task index */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <cmocka.h>

#include "kcompat.h"
#include "../../module/na_index.h"

#define BITS 10

static struct na_ient ents[1 << BITS];
static struct na_index idx = { .ent = ents, .mask = (1 << BITS) - 1 };

static int setup(void **state)
{
	unsigned int i;

	memset(ents, 0, sizeof(ents));
	for (i = 0; i < sizeof(ents) / sizeof(ents[0]); i++)
		ents[i].slot = NA_SLOT_NONE;	/* as na_obs_alloc() does */
	return 0;
}

/* Task addresses are aligned; fake ones keep that shape. */
static unsigned long task_key(unsigned long i)
{
	return 0xffff888000000000UL + i * 0x2c0;
}

/* n distinct keys whose probe paths all start at entry @home */
static void colliding_keys(unsigned long *keys, int n, u32 home)
{
	unsigned long i;
	int found = 0;

	for (i = 1; found < n; i++)
		if (na_index_home(&idx, task_key(i)) == home)
			keys[found++] = task_key(i);
}

static void insert_find_remove(void **state)
{
	unsigned long k = task_key(7);
	struct na_ient *e;

	assert_null(na_index_find(&idx, k));
	e = na_index_insert(&idx, k);
	assert_non_null(e);
	e->slot = 42;
	assert_ptr_equal(na_index_find(&idx, k), e);
	assert_int_equal(na_index_find(&idx, k)->slot, 42);
	na_index_remove(e);
	assert_null(na_index_find(&idx, k));
	assert_int_equal(e->key, NA_KEY_TOMB);
	/* the next owner of the entry finds no slot of the last one's */
	assert_ptr_equal(na_index_insert(&idx, k), e);
	assert_int_equal(e->slot, NA_SLOT_NONE);
}

/*
 * A removed entry in the middle of a probe path must not hide the keys
 * behind it, and is reused by the next insertion on that path.
 */
static void tombstone_keeps_path_and_is_reused(void **state)
{
	unsigned long k[4];
	struct na_ient *e[3], *again;
	int i;

	colliding_keys(k, 4, 100);
	for (i = 0; i < 3; i++)
		e[i] = na_index_insert(&idx, k[i]);
	assert_ptr_equal(e[1], e[0] + 1);
	na_index_remove(e[1]);
	assert_ptr_equal(na_index_find(&idx, k[2]), e[2]);
	assert_null(na_index_find(&idx, k[1]));
	again = na_index_insert(&idx, k[3]);
	assert_ptr_equal(again, e[1]);
	assert_ptr_equal(na_index_find(&idx, k[3]), e[1]);
}

/* The probe path is bounded: the (NA_PROBE_MAX+1)th colliding key is refused. */
static void probe_path_is_bounded(void **state)
{
	unsigned long k[NA_PROBE_MAX + 2];
	int i;

	colliding_keys(k, NA_PROBE_MAX + 2, 5);
	for (i = 0; i < NA_PROBE_MAX; i++)
		assert_non_null(na_index_insert(&idx, k[i]));
	assert_null(na_index_insert(&idx, k[NA_PROBE_MAX]));
	assert_null(na_index_find(&idx, k[NA_PROBE_MAX + 1]));
	for (i = 0; i < NA_PROBE_MAX; i++)
		assert_non_null(na_index_find(&idx, k[i]));
}

/* Wrap-around: a path starting at the last entry continues at entry 0. */
static void probe_path_wraps(void **state)
{
	unsigned long k[3];
	struct na_ient *e;

	colliding_keys(k, 3, idx.mask);
	assert_ptr_equal(na_index_insert(&idx, k[0]), &ents[idx.mask]);
	e = na_index_insert(&idx, k[1]);
	assert_ptr_equal(e, &ents[0]);
	assert_ptr_equal(na_index_find(&idx, k[1]), e);
}

/*
 * Long churn at the module's worst load (the index has 4 entries per slot,
 * so at most a quarter of it is live), as tasks come and go: every live key
 * is always found with its own slot, no dead key is ever found, and every
 * insert finds room within NA_PROBE_MAX entries.
 */
static void churn_keeps_map_exact(void **state)
{
	enum { LIVE = 1 << (BITS - 2), ROUNDS = 400000 };
	static struct na_ient *live[LIVE];
	static unsigned long live_key[LIVE];
	unsigned long next = 1;
	int i, r;

	for (i = 0; i < LIVE; i++) {
		live_key[i] = task_key(next++);
		live[i] = na_index_insert(&idx, live_key[i]);
		assert_non_null(live[i]);
		live[i]->slot = i;
	}
	srand(1);
	for (r = 0; r < ROUNDS; r++) {
		i = rand() % LIVE;
		assert_ptr_equal(na_index_find(&idx, live_key[i]), live[i]);
		assert_int_equal(live[i]->slot, i);
		na_index_remove(live[i]);
		assert_null(na_index_find(&idx, live_key[i]));
		live_key[i] = task_key(next++);
		live[i] = na_index_insert(&idx, live_key[i]);
		assert_non_null(live[i]);
		live[i]->slot = i;
	}
}

/*
 * Threads, each the only stream for its own keys as in the kernel, insert,
 * find and remove at once: no key is lost, found twice, or seen by others.
 */
#define THREADS 4
#define PER_THREAD 64
#define ITERS 50000

static void *stream(void *arg)
{
	long t = (long)arg;
	struct na_ient *mine[PER_THREAD];
	unsigned long base = 1 + t * 10000000UL;
	long it, i, bad = 0;

	for (it = 0; it < ITERS; it++) {
		for (i = 0; i < PER_THREAD; i++) {
			unsigned long k = task_key(base + (it % 7) * PER_THREAD + i);

			mine[i] = na_index_insert(&idx, k);
			if (!mine[i]) {
				bad++;
				continue;
			}
			WRITE_ONCE(mine[i]->slot, (u32)(t << 16 | i));
		}
		for (i = 0; i < PER_THREAD; i++) {
			unsigned long k = task_key(base + (it % 7) * PER_THREAD + i);
			struct na_ient *e = na_index_find(&idx, k);

			if (!mine[i])
				continue;
			if (e != mine[i] || READ_ONCE(e->slot) != (u32)(t << 16 | i))
				bad++;
			na_index_remove(e ? e : mine[i]);
			if (na_index_find(&idx, k))
				bad++;
		}
	}
	return (void *)bad;
}

static void concurrent_streams(void **state)
{
	pthread_t th[THREADS];
	long t, i;
	void *bad;

	for (t = 0; t < THREADS; t++)
		assert_int_equal(pthread_create(&th[t], NULL, stream, (void *)t), 0);
	for (t = 0; t < THREADS; t++) {
		assert_int_equal(pthread_join(th[t], &bad), 0);
		assert_int_equal((long)bad, 0);
	}
	/* Everything was removed: only EMPTY and TOMB remain. */
	for (i = 0; i <= idx.mask; i++)
		assert_true(ents[i].key == NA_KEY_EMPTY || ents[i].key == NA_KEY_TOMB);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(insert_find_remove, setup),
		cmocka_unit_test_setup(tombstone_keeps_path_and_is_reused, setup),
		cmocka_unit_test_setup(probe_path_is_bounded, setup),
		cmocka_unit_test_setup(probe_path_wraps, setup),
		cmocka_unit_test_setup(churn_keeps_map_exact, setup),
		cmocka_unit_test_setup(concurrent_streams, setup),
	};

	return cmocka_run_group_tests_name("index", tests, NULL, NULL);
}
