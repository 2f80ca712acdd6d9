// SPDX-License-Identifier: GPL-2.0
/* test_index - module/na_index.h: the probes' lock-free task index */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

static struct na_itab *itab_new(u32 entries)
{
	struct na_itab *t = calloc(1, sizeof(*t) + entries * sizeof(u32));

	assert_non_null(t);
	t->mask = entries - 1;
	return t;
}

static struct na_iset set;

static int setup(void **state)
{
	memset(slot_key, 0, sizeof(slot_key));
	memset(&set, 0, sizeof(set));
	set.tab[0] = itab_new(1 << BITS);
	set.nr = 1;
	return 0;
}

static int teardown(void **state)
{
	unsigned int t;

	for (t = 0; t < set.nr; t++)
		free(set.tab[t]);
	return 0;
}

/* Task addresses are aligned; fake ones keep that shape. */
static unsigned long task_key(unsigned long i)
{
	return 0xffff888000000000UL + i * 0x2c0;
}

/* n distinct keys whose probe paths in table @tab all start at entry @home */
static void colliding_keys(const struct na_itab *tab, unsigned long *keys,
			   int n, u32 home)
{
	unsigned long i;
	int found = 0;

	for (i = 1; found < n; i++)
		if (na_itab_home(tab, task_key(i)) == home)
			keys[found++] = task_key(i);
}

/* what a probe does: fill the slot in, then name it */
static bool add(unsigned long key, u32 s, struct na_iref *ref)
{
	WRITE_ONCE(slot_key[s], key);
	return na_index_insert(&set, key, s, ref);
}

/* and to give it up: the entry first, then the slot */
static void drop(const struct na_iref *ref, u32 s)
{
	na_index_remove(ref);
	WRITE_ONCE(slot_key[s], 0);
}

static u32 find(unsigned long key, struct na_iref *ref)
{
	return na_index_find(&set, slot_key, key, ref);
}

static void insert_find_remove(void **state)
{
	unsigned long k = task_key(7);
	struct na_iref ref, got;

	/* a zeroed table is all EMPTY */
	assert_int_equal(find(k, &got), NA_SLOT_NONE);
	assert_true(add(k, 42, &ref));
	assert_int_equal(atomic_read(&set.tab[0]->live), 1);
	assert_int_equal(*ref.ent, 43);
	assert_int_equal(find(k, &got), 42);
	assert_ptr_equal(got.ent, ref.ent);
	assert_ptr_equal(got.tab, set.tab[0]);
	drop(&ref, 42);
	assert_int_equal(find(k, &got), NA_SLOT_NONE);
	assert_int_equal(*ref.ent, NA_IE_TOMB);
	assert_int_equal(atomic_read(&set.tab[0]->live), 0);
}

/*
 * The key is the slot's: an entry naming a slot that now holds another
 * key (or none) is not the old key's, and the probe path goes on past it.
 */
static void key_is_checked_in_the_slot(void **state)
{
	unsigned long k[2];
	struct na_iref r0, r1, got;

	colliding_keys(set.tab[0], k, 2, 300);
	assert_true(add(k[0], 5, &r0));
	assert_true(add(k[1], 6, &r1));
	slot_key[5] = task_key(999999);	/* as if slot 5 changed hands */
	assert_int_equal(find(k[0], &got), NA_SLOT_NONE);
	assert_int_equal(find(k[1], &got), 6);
	assert_ptr_equal(got.ent, r1.ent);
}

/*
 * A removed entry in the middle of a probe path must not hide the keys
 * behind it, and is reused by the next insertion on that path.
 */
static void tombstone_keeps_path_and_is_reused(void **state)
{
	unsigned long k[4];
	struct na_iref r[3], again, got;
	int i;

	colliding_keys(set.tab[0], k, 4, 100);
	for (i = 0; i < 3; i++)
		assert_true(add(k[i], i, &r[i]));
	assert_ptr_equal(r[1].ent, r[0].ent + 1);
	drop(&r[1], 1);
	assert_int_equal(find(k[2], &got), 2);
	assert_int_equal(find(k[1], &got), NA_SLOT_NONE);
	assert_true(add(k[3], 3, &again));
	assert_ptr_equal(again.ent, r[1].ent);
	assert_int_equal(find(k[3], &got), 3);
}

/* The probe path is bounded: the (NA_PROBE_MAX+1)th colliding key is refused. */
static void probe_path_is_bounded(void **state)
{
	unsigned long k[NA_PROBE_MAX + 2];
	struct na_iref ref;
	int i;

	colliding_keys(set.tab[0], k, NA_PROBE_MAX + 2, 5);
	for (i = 0; i < NA_PROBE_MAX; i++)
		assert_true(add(k[i], i, &ref));
	assert_false(add(k[NA_PROBE_MAX], NA_PROBE_MAX, &ref));
	assert_int_equal(find(k[NA_PROBE_MAX + 1], &ref), NA_SLOT_NONE);
	for (i = 0; i < NA_PROBE_MAX; i++)
		assert_int_equal(find(k[i], &ref), i);
}

/* Wrap-around: a path starting at the last entry continues at entry 0. */
static void probe_path_wraps(void **state)
{
	struct na_itab *tab = set.tab[0];
	unsigned long k[3];
	struct na_iref ref, got;

	colliding_keys(tab, k, 3, tab->mask);
	assert_true(add(k[0], 0, &ref));
	assert_ptr_equal(ref.ent, &tab->ent[tab->mask]);
	assert_true(add(k[1], 1, &ref));
	assert_ptr_equal(ref.ent, &tab->ent[0]);
	assert_int_equal(find(k[1], &got), 1);
	assert_ptr_equal(got.ent, &tab->ent[0]);
}

/*
 * Long churn at the fill the module keeps (a table is followed by the next
 * at an eighth and never takes keys past it for long; a quarter here), as
 * tasks come and go: every live key is always found with its own slot, no
 * dead key is ever found, and every insert finds room within NA_PROBE_MAX
 * entries.
 */
static void churn_keeps_map_exact(void **state)
{
	enum { LIVE = (1 << BITS) / NA_INDEX_FILL, ROUNDS = 400000 };
	static struct na_iref live[LIVE];
	static unsigned long live_key[LIVE];
	unsigned long next = 1;
	struct na_iref got;
	int i, r;

	for (i = 0; i < LIVE; i++) {
		live_key[i] = task_key(next++);
		assert_true(add(live_key[i], i, &live[i]));
	}
	srand(1);
	for (r = 0; r < ROUNDS; r++) {
		i = rand() % LIVE;
		assert_int_equal(find(live_key[i], &got), i);
		assert_ptr_equal(got.ent, live[i].ent);
		drop(&live[i], i);
		assert_int_equal(find(live_key[i], &got), NA_SLOT_NONE);
		live_key[i] = task_key(next++);
		assert_true(add(live_key[i], i, &live[i]));
	}
	assert_int_equal(atomic_read(&set.tab[0]->live), LIVE);
}

/*
 * Growth: at an eighth the set asks for a table four times the size (more
 * when many keys are live); new keys go to it, old ones are still found
 * in the old table, which drains to nothing as they go.
 */
static void grows_by_tables(void **state)
{
	enum { N = (1 << BITS) / (2 * NA_INDEX_FILL) };
	static struct na_iref ref[2 * N];
	struct na_iref got;
	u32 i;

	for (i = 0; i < N - 1; i++)
		assert_true(add(task_key(i + 1), i, &ref[i]));
	assert_int_equal(na_index_next_entries(&set, N - 1), 0);
	assert_true(add(task_key(N), N - 1, &ref[N - 1]));
	assert_int_equal(na_index_next_entries(&set, N), NA_INDEX_GROWTH << BITS);
	/* with many more keys live than the newest holds: room for them */
	assert_int_equal(na_index_next_entries(&set, 100000),
			 1 << 21);	/* the power of two >= 100000 * 4 * 4 */

	set.tab[1] = itab_new(NA_INDEX_GROWTH << BITS);
	set.nr = 2;
	for (i = N; i < 2 * N; i++) {
		assert_true(add(task_key(i + 1), i, &ref[i]));
		assert_ptr_equal(ref[i].tab, set.tab[1]);
	}
	for (i = 0; i < 2 * N; i++) {
		assert_int_equal(find(task_key(i + 1), &got), i);
		assert_ptr_equal(got.tab, i < N ? set.tab[0] : set.tab[1]);
	}
	assert_int_equal(na_index_next_entries(&set, 2 * N), 0);
	for (i = 0; i < N; i++)
		drop(&ref[i], i);
	assert_int_equal(atomic_read(&set.tab[0]->live), 0);
	assert_int_equal(atomic_read(&set.tab[1]->live), N);
	for (i = N; i < 2 * N; i++)
		assert_int_equal(find(task_key(i + 1), &got), i);
}

/*
 * Threads, each the only stream for its own keys and slots as in the
 * kernel, insert, find and remove at once while another adds tables, as
 * the worker does: no key is lost, found twice, or seen by others.
 */
#define THREADS 4
#define PER_THREAD 64
#define ITERS 50000

static struct na_iset *live_set;	/* what the streams see, swapped */

static void *stream(void *arg)
{
	long t = (long)arg;
	struct na_iref mine[PER_THREAD], got = { 0 };
	unsigned long base = 1 + t * 10000000UL;
	long it, i, bad = 0;

	for (it = 0; it < ITERS; it++) {
		const struct na_iset *s = __atomic_load_n(&live_set, __ATOMIC_ACQUIRE);

		for (i = 0; i < PER_THREAD; i++) {
			unsigned long k = task_key(base + (it % 7) * PER_THREAD + i);
			u32 slot = t * PER_THREAD + i;

			WRITE_ONCE(slot_key[slot], k);
			if (!na_index_insert(s, k, slot, &mine[i])) {
				WRITE_ONCE(slot_key[slot], 0);
				mine[i].ent = NULL;
				bad++;
			}
		}
		s = __atomic_load_n(&live_set, __ATOMIC_ACQUIRE);
		for (i = 0; i < PER_THREAD; i++) {
			unsigned long k = task_key(base + (it % 7) * PER_THREAD + i);
			u32 slot = t * PER_THREAD + i;

			if (!mine[i].ent)
				continue;
			if (na_index_find(s, slot_key, k, &got) != slot ||
			    got.ent != mine[i].ent)
				bad++;
			na_index_remove(&mine[i]);
			WRITE_ONCE(slot_key[slot], 0UL);
			if (na_index_find(s, slot_key, k, &got) != NA_SLOT_NONE)
				bad++;
		}
	}
	return (void *)bad;
}

static void concurrent_streams(void **state)
{
	static struct na_iset sets[NA_MAX_ITABS];
	pthread_t th[THREADS];
	unsigned int n, i;
	long t;
	void *bad;

	sets[0] = set;
	live_set = &sets[0];
	for (t = 0; t < THREADS; t++)
		assert_int_equal(pthread_create(&th[t], NULL, stream, (void *)t), 0);
	/* the worker: a larger set now and then, old ones kept to the end */
	for (n = 1; n < 4; n++) {
		usleep(20000);
		sets[n] = sets[n - 1];
		sets[n].tab[n] = itab_new((1 << BITS) << (2 * n));
		sets[n].nr = n + 1;
		__atomic_store_n(&live_set, &sets[n], __ATOMIC_RELEASE);
	}
	for (t = 0; t < THREADS; t++) {
		assert_int_equal(pthread_join(th[t], &bad), 0);
		assert_int_equal((long)bad, 0);
	}
	/* Everything was removed: every table drained, only EMPTY and TOMB. */
	for (n = 0; n < sets[3].nr; n++) {
		struct na_itab *tab = sets[3].tab[n];

		assert_int_equal(atomic_read(&tab->live), 0);
		for (i = 0; i <= tab->mask; i++)
			assert_true(tab->ent[i] == NA_IE_EMPTY || tab->ent[i] == NA_IE_TOMB);
	}
	set = sets[3];	/* for teardown */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(insert_find_remove, setup, teardown),
		cmocka_unit_test_setup_teardown(key_is_checked_in_the_slot, setup, teardown),
		cmocka_unit_test_setup_teardown(tombstone_keeps_path_and_is_reused, setup, teardown),
		cmocka_unit_test_setup_teardown(probe_path_is_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(probe_path_wraps, setup, teardown),
		cmocka_unit_test_setup_teardown(churn_keeps_map_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(grows_by_tables, setup, teardown),
		cmocka_unit_test_setup_teardown(concurrent_streams, setup, teardown),
	};

	return cmocka_run_group_tests_name("index", tests, NULL, NULL);
}
