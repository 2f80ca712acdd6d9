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

#define BITS	10
#define NSLOTS	(1 << 16)

/* The slots' keys, as struct na_task.key: 0 while a slot is free. */
static unsigned long slot_key[NSLOTS];

static inline unsigned long na_slot_key(const void *ctx, u32 s)
{
	const unsigned long *keys = ctx;

	return __atomic_load_n(&keys[s], __ATOMIC_RELAXED);
}

static u32 ents[1 << BITS];
static struct na_index idx = { .ent = ents, .mask = (1 << BITS) - 1 };

static int setup(void **state)
{
	memset(slot_key, 0, sizeof(slot_key));
	memset(ents, 0, sizeof(ents));	/* as vzalloc() gives it: all EMPTY */
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

/* what a probe does: fill the slot in, then name it */
static bool add(unsigned long key, u32 s, u32 **ent)
{
	WRITE_ONCE(slot_key[s], key);
	return na_index_insert(&idx, key, s, ent);
}

/* and to give it up: the entry first, then the slot */
static void drop(u32 *ent, u32 s)
{
	na_index_remove(ent);
	WRITE_ONCE(slot_key[s], 0);
}

static u32 find(unsigned long key, u32 **ent)
{
	return na_index_find(&idx, slot_key, key, ent);
}

static void insert_find_remove(void **state)
{
	unsigned long k = task_key(7);
	u32 *ent, *got;

	/* a zeroed table is all EMPTY */
	assert_int_equal(find(k, &got), NA_SLOT_NONE);
	assert_true(add(k, 42, &ent));
	assert_int_equal(*ent, 43);
	assert_int_equal(find(k, &got), 42);
	assert_ptr_equal(got, ent);
	drop(ent, 42);
	assert_int_equal(find(k, &got), NA_SLOT_NONE);
	assert_int_equal(*ent, NA_IE_TOMB);
}

/*
 * The key is the slot's: an entry naming a slot that now holds another
 * key (or none) is not the old key's, and the probe path goes on past it.
 */
static void key_is_checked_in_the_slot(void **state)
{
	unsigned long k[2];
	u32 *e0, *e1, *got;

	colliding_keys(k, 2, 300);
	assert_true(add(k[0], 5, &e0));
	assert_true(add(k[1], 6, &e1));
	slot_key[5] = task_key(999999);	/* as if slot 5 changed hands */
	assert_int_equal(find(k[0], &got), NA_SLOT_NONE);
	assert_int_equal(find(k[1], &got), 6);
	assert_ptr_equal(got, e1);
}

/*
 * A removed entry in the middle of a probe path must not hide the keys
 * behind it, and is reused by the next insertion on that path.
 */
static void tombstone_keeps_path_and_is_reused(void **state)
{
	unsigned long k[4];
	u32 *e[3], *again, *got;
	int i;

	colliding_keys(k, 4, 100);
	for (i = 0; i < 3; i++)
		assert_true(add(k[i], i, &e[i]));
	assert_ptr_equal(e[1], e[0] + 1);
	drop(e[1], 1);
	assert_int_equal(find(k[2], &got), 2);
	assert_int_equal(find(k[1], &got), NA_SLOT_NONE);
	assert_true(add(k[3], 3, &again));
	assert_ptr_equal(again, e[1]);
	assert_int_equal(find(k[3], &got), 3);
}

/* The probe path is bounded: the (NA_PROBE_MAX+1)th colliding key is refused. */
static void probe_path_is_bounded(void **state)
{
	unsigned long k[NA_PROBE_MAX + 2];
	u32 *ent;
	int i;

	colliding_keys(k, NA_PROBE_MAX + 2, 5);
	for (i = 0; i < NA_PROBE_MAX; i++)
		assert_true(add(k[i], i, &ent));
	assert_false(add(k[NA_PROBE_MAX], NA_PROBE_MAX, &ent));
	assert_int_equal(find(k[NA_PROBE_MAX + 1], &ent), NA_SLOT_NONE);
	for (i = 0; i < NA_PROBE_MAX; i++)
		assert_int_equal(find(k[i], &ent), i);
}

/* Wrap-around: a path starting at the last entry continues at entry 0. */
static void probe_path_wraps(void **state)
{
	unsigned long k[3];
	u32 *ent, *got;

	colliding_keys(k, 3, idx.mask);
	assert_true(add(k[0], 0, &ent));
	assert_ptr_equal(ent, &ents[idx.mask]);
	assert_true(add(k[1], 1, &ent));
	assert_ptr_equal(ent, &ents[0]);
	assert_int_equal(find(k[1], &got), 1);
	assert_ptr_equal(got, &ents[0]);
}

/*
 * Long churn at the module's worst load (NA_INDEX_PER_SLOT entries per
 * slot, and only tasks with a slot have an entry, so at most a quarter of
 * the index is live), as tasks come and go: every live key is always found
 * with its own slot, no dead key is ever found, and every insert finds room
 * within NA_PROBE_MAX entries.
 */
static void churn_keeps_map_exact(void **state)
{
	enum { LIVE = (1 << BITS) / NA_INDEX_PER_SLOT, ROUNDS = 400000 };
	static unsigned long live_key[LIVE];
	static u32 *live[LIVE];
	unsigned long next = 1;
	u32 *got;
	int i, r;

	for (i = 0; i < LIVE; i++) {
		live_key[i] = task_key(next++);
		assert_true(add(live_key[i], i, &live[i]));
	}
	srand(1);
	for (r = 0; r < ROUNDS; r++) {
		i = rand() % LIVE;
		assert_int_equal(find(live_key[i], &got), i);
		assert_ptr_equal(got, live[i]);
		drop(live[i], i);
		assert_int_equal(find(live_key[i], &got), NA_SLOT_NONE);
		live_key[i] = task_key(next++);
		assert_true(add(live_key[i], i, &live[i]));
	}
}

/*
 * Threads, each the only stream for its own keys as in the kernel, with
 * slots from one pool (as the probes take them from the slot map, so a
 * slot passes from one thread's key to another's), insert, find and remove
 * at once: no key is lost, found twice, or seen by others.
 */
#define THREADS 4
#define PER_THREAD 64
#define ITERS 50000
#define POOL	(2 * THREADS * PER_THREAD)

static unsigned long pool[POOL / 64];

static u32 claim_slot(unsigned int *hint)
{
	for (;; (*hint)++) {
		u32 s = *hint % POOL;
		unsigned long bit = 1UL << (s % 64);

		if (!(__atomic_fetch_or(&pool[s / 64], bit, __ATOMIC_ACQUIRE) & bit))
			return s;
	}
}

static void release_slot(u32 s)
{
	__atomic_fetch_and(&pool[s / 64], ~(1UL << (s % 64)), __ATOMIC_RELEASE);
}

static void *stream(void *arg)
{
	long t = (long)arg;
	u32 *mine[PER_THREAD], *got = NULL, slot[PER_THREAD];
	unsigned long base = 1 + t * 10000000UL;
	unsigned int hint = t * 97;
	long it, i, bad = 0;

	for (it = 0; it < ITERS; it++) {
		for (i = 0; i < PER_THREAD; i++) {
			unsigned long k = task_key(base + (it % 7) * PER_THREAD + i);

			slot[i] = claim_slot(&hint);
			WRITE_ONCE(slot_key[slot[i]], k);
			if (!na_index_insert(&idx, k, slot[i], &mine[i])) {
				WRITE_ONCE(slot_key[slot[i]], 0UL);
				release_slot(slot[i]);
				mine[i] = NULL;
				bad++;
			}
		}
		for (i = 0; i < PER_THREAD; i++) {
			unsigned long k = task_key(base + (it % 7) * PER_THREAD + i);

			if (!mine[i])
				continue;
			if (na_index_find(&idx, slot_key, k, &got) != slot[i] ||
			    got != mine[i])
				bad++;
			na_index_remove(mine[i]);
			WRITE_ONCE(slot_key[slot[i]], 0UL);
			release_slot(slot[i]);
			if (na_index_find(&idx, slot_key, k, &got) != NA_SLOT_NONE)
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
		assert_true(ents[i] == NA_IE_EMPTY || ents[i] == NA_IE_TOMB);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(insert_find_remove, setup),
		cmocka_unit_test_setup(key_is_checked_in_the_slot, setup),
		cmocka_unit_test_setup(tombstone_keeps_path_and_is_reused, setup),
		cmocka_unit_test_setup(probe_path_is_bounded, setup),
		cmocka_unit_test_setup(probe_path_wraps, setup),
		cmocka_unit_test_setup(churn_keeps_map_exact, setup),
		cmocka_unit_test_setup(concurrent_streams, setup),
	};

	return cmocka_run_group_tests_name("index", tests, NULL, NULL);
}
