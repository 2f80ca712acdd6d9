/* SPDX-License-Identifier: GPL-2.0 */
/*
 * na_index.h - lock-free map from a task to its statistics slot
 *
 * The probes run with the runqueue lock held and interrupts off, so they may
 * neither allocate nor take a shared lock.  The map is a fixed array of
 * entries, open-addressed with linear probing over at most NA_PROBE_MAX
 * entries, so a lookup costs a bounded number of loads however full the
 * table is or however many tasks have come and gone.
 *
 * Shared by the module and the user-space unit tests: the includer provides
 * u32, READ_ONCE(), WRITE_ONCE(), cmpxchg() and smp_store_release().
 *
 * Rules that make it correct without a lock:
 *  - key is a task's address.  Only the task's own event stream inserts or
 *    removes its key, and the scheduler serialises that stream (a task's
 *    switch and migrate events happen under the lock of the runqueue it is
 *    on, or under its pi_lock while it sleeps; its free event comes after
 *    its last switch).  At load, a walk of the task list inserts the keys
 *    of the tasks already running, before their migrate events are
 *    attached; a child being forked then is left to its fork event, or
 *    to the walk once it is woken, never to both (na_walk_once()).  So
 *    one key is never inserted twice concurrently.
 *  - An entry's key goes EMPTY -> task -> TOMB -> task' -> TOMB ... and never
 *    back to EMPTY while the map is live.  Insertion claims the first EMPTY
 *    or TOMB entry on the key's probe path with cmpxchg(), so every entry
 *    before it on the path was taken when the key went in, and stays
 *    non-EMPTY: a lookup may stop at the first EMPTY entry.
 *  - slot is NA_SLOT_NONE in every entry without a key (the includer sets
 *    it so at first), and is written only by the key's owner stream, or
 *    the walk at load: with smp_store_release() once the slot it names is
 *    filled in, so a reader of another task's entry (the fork event reads
 *    its parent's) with smp_load_acquire() finds a whole slot or none.
 */
#ifndef NA_INDEX_H
#define NA_INDEX_H

#define NA_KEY_EMPTY	0UL
#define NA_KEY_TOMB	1UL
#define NA_PROBE_MAX	32
#define NA_SLOT_NONE	(~0u)
/*
 * Entries per statistics slot: at most a quarter of the index is live, where
 * linear probing keeps runs far shorter than NA_PROBE_MAX (the unit tests
 * churn at that load and never miss).
 */
#define NA_INDEX_PER_SLOT	4
/* and never fewer entries than for this many slots */
#define NA_INDEX_MIN_SLOTS	1024

struct na_ient {
	unsigned long key;	/* task address, EMPTY or TOMB; cmpxchg'ed */
	u32 slot;		/* statistics slot or NA_SLOT_NONE; see above */
};

struct na_index {
	struct na_ient *ent;
	u32 mask;		/* number of entries - 1; a power of two */
};

/* na_index_home - first entry on @key's probe path (Fibonacci hashing) */
static inline u32 na_index_home(const struct na_index *idx, unsigned long key)
{
	return (u32)(((u64)key * 0x61c8864680b583ebULL) >> 32) & idx->mask;
}

/* na_index_find - the entry holding @key, or NULL */
static inline struct na_ient *na_index_find(const struct na_index *idx,
					    unsigned long key)
{
	u32 i, h = na_index_home(idx, key);

	for (i = 0; i < NA_PROBE_MAX; i++) {
		struct na_ient *e = &idx->ent[(h + i) & idx->mask];
		unsigned long k = READ_ONCE(e->key);

		if (k == key)
			return e;
		if (k == NA_KEY_EMPTY)
			break;
	}
	return NULL;
}

/*
 * na_index_insert - claim an entry for @key, which must not be in the map
 * Returns the entry, or NULL when the NA_PROBE_MAX entries on the path are
 * all taken.
 */
static inline struct na_ient *na_index_insert(struct na_index *idx,
					      unsigned long key)
{
	u32 i, h = na_index_home(idx, key);

	for (i = 0; i < NA_PROBE_MAX; i++) {
		struct na_ient *e = &idx->ent[(h + i) & idx->mask];
		unsigned long k = READ_ONCE(e->key);

		if ((k == NA_KEY_EMPTY || k == NA_KEY_TOMB) &&
		    cmpxchg(&e->key, k, key) == k)
			return e;
	}
	return NULL;
}

/* na_index_remove - give @e back to the map */
static inline void na_index_remove(struct na_ient *e)
{
	/* The next owner finds no slot until it publishes its own. */
	WRITE_ONCE(e->slot, NA_SLOT_NONE);
	/*
	 * Release: the owner's last accesses to the entry happen before the
	 * next task's cmpxchg() can claim it.
	 */
	smp_store_release(&e->key, NA_KEY_TOMB);
}

#endif /* NA_INDEX_H */
