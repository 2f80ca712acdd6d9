/* SPDX-License-Identifier: GPL-2.0 */
/*
 * na_index.h - lock-free map from a task to its statistics slot
 *
 * The probes run with the runqueue lock held and interrupts off, so they may
 * neither allocate nor take a shared lock.  The map is a set of tables of
 * 4-byte entries, each naming a slot, open-addressed with linear probing
 * over at most NA_PROBE_MAX entries: a lookup costs a bounded number of
 * loads however full the tables are or however many tasks have come and
 * gone.  The key, a task's address, is not in the entry but in the slot it
 * names (the includer's na_slot_key() reads it), so an entry costs 4 bytes.
 *
 * The map grows by tables, not by rehashing: when the newest table is an
 * eighth full, a worker (never a probe) adds one at least four times its
 * size, there before the newest is a quarter full, and new keys go there; a table that is no longer the newest only
 * drains, and is freed once no key is left in it.  No entry ever moves, so
 * a probe never races a copy.
 *
 * Shared by the module and the user-space unit tests: the includer provides
 * u32, atomic_t with atomic_inc(), atomic_dec() and atomic_read(),
 * READ_ONCE(), cmpxchg(), smp_store_release(), smp_load_acquire(), and
 * na_slot_key().
 *
 * Rules that make it correct without a lock:
 *  - Only a task's own event stream inserts or removes its key, and the
 *    scheduler serialises that stream (a task's switch and migrate events
 *    happen under the lock of the runqueue it is on, or under its pi_lock
 *    while it sleeps; its free event comes after its last switch; its fork
 *    event, in its parent, before it can run).  At load, a walk of the
 *    task list inserts the keys of the tasks already running, before their
 *    migrate events are attached; a child being forked then is left to its
 *    fork event, or to the walk once it is woken, never to both
 *    (na_walk_once()).  So one key is never inserted twice concurrently.
 *  - An entry goes EMPTY -> slot -> TOMB -> slot' -> TOMB ... and never back
 *    to EMPTY while its table is live.  Insertion claims the first EMPTY or
 *    TOMB entry on the key's probe path with cmpxchg(), so every entry
 *    before it on the path was taken when the key went in, and stays
 *    non-EMPTY: a lookup may stop at the first EMPTY entry.
 *  - A slot is named by at most one entry, and only while its key is set:
 *    its owner fills it in (key first) before a fully ordered cmpxchg()
 *    names it, and makes the entry TOMB (smp_store_release()) before it
 *    gives the slot up.  A key is written into a slot only by that key's
 *    own stream, so a lookup that finds an entry naming a slot holding its
 *    key has found the key's own entry, and a reader of another task's
 *    entry (the fork event reads its parent's) with smp_load_acquire()
 *    finds a whole slot or none.
 *  - Insertion goes only to the newest table of the set the probe sees.
 *    The worker publishes a larger set with rcu_assign_pointer() and waits
 *    a grace period before it drops any table, so by then no probe can
 *    still take an older table for the newest: an older table with no key
 *    left stays empty, and only such a table is dropped (after another
 *    grace period, before it is freed).
 */
#ifndef NA_INDEX_H
#define NA_INDEX_H

#define NA_PROBE_MAX	32
#define NA_SLOT_NONE	(~0u)
/*
 * An entry's value: 0 EMPTY (as a zeroed table is), NA_IE_TOMB, or the slot
 * number plus one.
 */
#define NA_IE_EMPTY	0u
#define NA_IE_TOMB	(~0u)
/*
 * A table is full enough for the next at a quarter: linear probing then
 * keeps runs far shorter than NA_PROBE_MAX (the unit tests churn at that
 * load and never miss).
 */
#define NA_INDEX_FILL	4
/* the smallest table, and how much larger each next one is at least */
#define NA_INDEX_MIN_ENTRIES	4096
#define NA_INDEX_GROWTH	4
/*
 * Tables at once: with each at least NA_INDEX_GROWTH times the last, 12
 * reach 2^34 entries, far more keys than a kernel has tasks.
 */
#define NA_MAX_ITABS	12

struct na_itab {
	atomic_t live;		/* entries naming a slot: a drained table has 0 */
	u32 mask;		/* number of entries - 1; a power of two */
	u32 ent[];		/* see NA_IE_EMPTY */
};

/* The tables in use, oldest first; made by the worker, never changed after. */
struct na_iset {
	unsigned int nr;
	struct na_itab *tab[NA_MAX_ITABS];
};

/* Where a key's entry is: for na_index_remove() */
struct na_iref {
	struct na_itab *tab;
	u32 *ent;
};

/* the includer's: the key of the task slot @s belongs to, 0 if none */
static inline unsigned long na_slot_key(const void *ctx, u32 s);

/* na_itab_home - first entry on @key's probe path (Fibonacci hashing) */
static inline u32 na_itab_home(const struct na_itab *tab, unsigned long key)
{
	return (u32)(((u64)key * 0x61c8864680b583ebULL) >> 32) & tab->mask;
}

/* na_itab_find - @key's slot in @tab (its entry in *@ent), or NA_SLOT_NONE */
static inline u32 na_itab_find(struct na_itab *tab, const void *ctx,
			       unsigned long key, u32 **ent)
{
	u32 i, h = na_itab_home(tab, key);

	for (i = 0; i < NA_PROBE_MAX; i++) {
		u32 *e = &tab->ent[(h + i) & tab->mask];
		/* acquire: the slot was filled in before it was named */
		u32 v = smp_load_acquire(e);

		if (v == NA_IE_EMPTY)
			break;
		if (v != NA_IE_TOMB && na_slot_key(ctx, v - 1) == key) {
			*ent = e;
			return v - 1;
		}
	}
	return NA_SLOT_NONE;
}

/*
 * na_index_find - @key's slot, or NA_SLOT_NONE; where its entry is in
 * *@ref.  Newest table first: most keys are young.
 */
static inline u32 na_index_find(const struct na_iset *set, const void *ctx,
				unsigned long key, struct na_iref *ref)
{
	unsigned int t;
	u32 s;

	for (t = set->nr; t-- > 0;) {
		s = na_itab_find(set->tab[t], ctx, key, &ref->ent);
		if (s != NA_SLOT_NONE) {
			ref->tab = set->tab[t];
			return s;
		}
	}
	return NA_SLOT_NONE;
}

/*
 * na_index_insert - name slot @s, whose key is filled in and not in the
 * map, in the newest table.  False when the NA_PROBE_MAX entries on the
 * key's path there are all taken.
 */
static inline bool na_index_insert(const struct na_iset *set, unsigned long key,
				   u32 s, struct na_iref *ref)
{
	struct na_itab *tab = set->tab[set->nr - 1];
	u32 i, h = na_itab_home(tab, key);

	for (i = 0; i < NA_PROBE_MAX; i++) {
		u32 *e = &tab->ent[(h + i) & tab->mask];
		u32 v = READ_ONCE(*e);

		if ((v == NA_IE_EMPTY || v == NA_IE_TOMB) &&
		    cmpxchg(e, v, s + 1) == v) {
			atomic_inc(&tab->live);
			ref->tab = tab;
			ref->ent = e;
			return true;
		}
	}
	return false;
}

/* na_index_remove - give the entry back, before its slot is given up */
static inline void na_index_remove(const struct na_iref *ref)
{
	/*
	 * Release: the owner's last accesses to the entry happen before the
	 * next key's cmpxchg() can claim it, and before the slot is freed.
	 */
	smp_store_release(ref->ent, NA_IE_TOMB);
	atomic_dec(&ref->tab->live);
}

/*
 * na_index_next_entries - how many entries the set's next table should
 * have, 0 while the newest is less than an eighth full.  @live: keys in
 * the map now; the next table has room for four times as many at the
 * fill, so a storm of forks has time to be seen before it fills that one.
 */
static inline u64 na_index_next_entries(const struct na_iset *set, u64 live)
{
	const struct na_itab *newest = set->tab[set->nr - 1];
	u64 size = (u64)newest->mask + 1, want;

	if ((u64)atomic_read(&newest->live) * NA_INDEX_FILL * 2 < size)
		return 0;
	want = size * NA_INDEX_GROWTH;
	while (want < live * NA_INDEX_FILL * NA_INDEX_GROWTH)
		want *= 2;
	return want;
}

#endif /* NA_INDEX_H */
