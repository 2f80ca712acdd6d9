/* SPDX-License-Identifier: GPL-2.0 */
/*
 * na_index.h - lock-free map from a task to its statistics slot
 *
 * The probes run with the runqueue lock held and interrupts off, so they may
 * neither allocate nor take a shared lock.  The map is a fixed array of
 * 4-byte entries, each naming a slot, open-addressed with linear probing
 * over at most NA_PROBE_MAX entries: a lookup costs a bounded number of
 * loads however full the table is or however many tasks have come and
 * gone.  The key, a task's address, is not in the entry but in the slot it
 * names (the includer's na_slot_key() reads it), so an entry costs 4 bytes.
 *
 * Shared by the module and the user-space unit tests: the includer provides
 * bool, u32, u64, READ_ONCE(), cmpxchg(), smp_store_release(),
 * smp_load_acquire(), and na_slot_key().
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
 *    to EMPTY while the map is live.  Insertion claims the first EMPTY or
 *    TOMB entry on the key's probe path with cmpxchg(), so every entry
 *    before it on the path was taken when the key went in, and stays
 *    non-EMPTY: a lookup may stop at the first EMPTY entry.
 *  - A slot is named by at most one entry, and only while its key is set:
 *    its owner fills it in, key included, before a fully ordered cmpxchg()
 *    names it, and makes the entry TOMB before it gives the slot up (the
 *    slot's bit is released with clear_bit_unlock(), after).  A key is
 *    written into a slot only by that key's own stream, so a lookup that
 *    finds an entry naming a slot holding its key has found the key's own
 *    entry.  An entry may name the same slot twice in its life, so a
 *    reader of another task's entry (the fork event reads its parent's)
 *    checks the slot itself under its seqcount, not the acquire alone
 *    (na_probe_fork()).
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
 * Entries per slot: only a task with a slot has an entry, so at most a
 * quarter of the index is live, where linear probing keeps runs far
 * shorter than NA_PROBE_MAX (the unit tests churn at that load and never
 * miss).
 */
#define NA_INDEX_PER_SLOT	4
/* and never fewer entries than this */
#define NA_INDEX_MIN_ENTRIES	4096

struct na_index {
	u32 *ent;		/* see NA_IE_EMPTY */
	u32 mask;		/* number of entries - 1; a power of two */
};

/* the includer's: the key of the task slot @s belongs to, 0 if none */
static inline unsigned long na_slot_key(const void *o, u32 s);

/* na_index_home - first entry on @key's probe path (Fibonacci hashing) */
static inline u32 na_index_home(const struct na_index *idx, unsigned long key)
{
	return (u32)(((u64)key * 0x61c8864680b583ebULL) >> 32) & idx->mask;
}

/* na_index_find - @key's slot (its entry in *@ent), or NA_SLOT_NONE */
static inline u32 na_index_find(const struct na_index *idx, const void *o,
				unsigned long key, u32 **ent)
{
	u32 i, h = na_index_home(idx, key);

	for (i = 0; i < NA_PROBE_MAX; i++) {
		u32 *e = &idx->ent[(h + i) & idx->mask];
		/* acquire: the slot was filled in before it was named */
		u32 v = smp_load_acquire(e);

		if (v == NA_IE_EMPTY)
			break;
		if (v != NA_IE_TOMB && na_slot_key(o, v - 1) == key) {
			*ent = e;
			return v - 1;
		}
	}
	return NA_SLOT_NONE;
}

/*
 * na_index_insert - name slot @s, whose key is filled in and not in the
 * map, in an entry (*@ent).  False when the NA_PROBE_MAX entries on the
 * key's path are all taken.
 */
static inline bool na_index_insert(const struct na_index *idx,
				   unsigned long key, u32 s, u32 **ent)
{
	u32 i, h = na_index_home(idx, key);

	for (i = 0; i < NA_PROBE_MAX; i++) {
		u32 *e = &idx->ent[(h + i) & idx->mask];
		u32 v = READ_ONCE(*e);

		if ((v == NA_IE_EMPTY || v == NA_IE_TOMB) &&
		    cmpxchg(e, v, s + 1) == v) {
			*ent = e;
			return true;
		}
	}
	return false;
}

/* na_index_remove - give entry @e back, before its slot is given up */
static inline void na_index_remove(u32 *e)
{
	/*
	 * Release: the owner's last accesses to the entry happen before the
	 * next key's cmpxchg() can claim it.
	 */
	smp_store_release(e, NA_IE_TOMB);
}

#endif /* NA_INDEX_H */
