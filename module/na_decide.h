/* SPDX-License-Identifier: GPL-2.0 */
/*
 * na_decide.h - numa_advise's placement decisions, as pure functions
 *
 * No locks, no allocation, no kernel state: the engine (na_engine.c)
 * feeds na_decide.c numbers and applies what it returns, and the unit
 * tests in tests/unit/ link the same na_decide.c and call it with cases
 * computed by hand from the source documents' topologies.  The only
 * kernel calls are sort() and cond_resched() in na_decide_round(), which
 * tests/unit/kcompat.h maps to qsort() and nothing: the comparison is a
 * total order (ids are unique), so either sort gives the same order.
 *
 * Units: a load is in milli-CPUs (1000 = one CPU busy all the time); a
 * share or a score is in per-mille.  A set of nodes is a u64 bitmap, so a
 * placement covers at most NA_MAX_NODES nodes.
 */
#ifndef NA_DECIDE_H
#define NA_DECIDE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include "kcompat.h"
#endif

#include "na_names.h"

#define NA_MAX_NODES		64
#define NA_LOCAL_DISTANCE	10

/* The machine a round of placement works on; @room is used up as it goes. */
struct na_machine {
	int nr;			/* nodes */
	const u8 *dist;		/* nr * nr SLIT distances */
	const u32 *cap;		/* capacity per node, milli-CPUs */
	const enum na_class *cls;
	s32 *room;		/* milli-CPUs still free per node; below 0: overfilled */
	u32 imb_pct;		/* a node takes this % of its capacity */
	u32 gain_pm;		/* a move must score this much better */
	u32 min_demand;		/* less load than this is not worth placing */
	bool nearby;		/* distance policy: na_score_nearby() */
};

/* A task (home policy) or a process (distance policy) to place. */
struct na_unit {
	/* in */
	u32 demand;		/* milli-CPUs it uses */
	u64 cur;		/* nodes it runs on now, or was placed on */
	bool placed;		/* @cur is where it was placed: na_preclaim() */
	bool hold;		/* moved too recently: stays on @cur */
	bool may_let_go;	/* not let go (NA_R_SCATTERED) lately */
	const u32 *score;	/* per node, per-mille */
	/* out */
	u64 target;
	enum na_reason reason;
	u32 cur_score;		/* mean (adjusted) score over @cur */
	u32 target_score;	/* the same over @target */
	/* the caller's, untouched: which unit this is and what it stands for */
	u32 id;			/* orders units of equal load (pid or tgid) */
	u32 first;		/* the caller's index of its first task */
	u32 nr;			/* and how many tasks it stands for */
};

/* nodes: classes (2020 seed) and averages */
u32 na_decay(u32 avg, u32 sample, unsigned int shift);
enum na_class na_classify_raw(u32 cap, u32 util, u32 runnable, u32 imb_pct);
enum na_class na_classify(enum na_class cur, u32 cap, u32 util, u32 runnable,
			  u32 imb_pct, u32 margin_pm);
bool na_class_allows(enum na_class from, enum na_class to);
u32 na_sub_sat(u32 a, u32 b);
int na_argmax(const u64 *v, int n, int prefer);

/* distances (2014 seed) */
void na_score_nearby(const u32 *score, const u8 *dist, int n, u64 *out);
u32 na_set_distance(u64 set, const u8 *dist, int n);
u64 na_pick_set(const u64 *score, const u8 *dist, int n, int k, u64 allowed);
int na_nodes_needed(const struct na_machine *m, u32 demand);
u64 na_cpu_nodes(const struct na_machine *m);

/* placing units, one at a time */
void na_preclaim(struct na_machine *m, const struct na_unit *u);
void na_place_unit(struct na_machine *m, struct na_unit *u, u64 *s);
int na_best_node(const u32 *score, int n);
bool na_swap(struct na_machine *m, struct na_unit *u, struct na_unit *v);

/* and a whole round of them */
u32 na_decide_round(struct na_machine *m, struct na_unit *units, u32 nr,
		    bool trade, u64 *s);

#endif /* NA_DECIDE_H */
