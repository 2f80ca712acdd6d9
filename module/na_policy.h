/* SPDX-License-Identifier: GPL-2.0 */
/*
 * na_policy.h - numa_advise's placement decisions, as pure functions
 *
 * No locks, no allocation, no kernel state: the engine in numa_advise.c
 * feeds these functions numbers and applies what they return, and the
 * unit tests in tests/unit/ call them with cases computed by hand from the
 * source documents' topologies.
 *
 * Units: a load is in milli-CPUs (1000 = one CPU busy all the time); a
 * share or a score is in per-mille.  A set of nodes is a u64 bitmap, so a
 * placement covers at most NA_MAX_NODES nodes.
 */
#ifndef NA_POLICY_H
#define NA_POLICY_H

#define NA_MAX_NODES		64
#define NA_LOCAL_DISTANCE	10

/* Ordered: a higher class is a busier node. */
enum na_class {
	NA_SPARE,		/* has-spare */
	NA_BUSY,		/* fully-busy */
	NA_OVERLOADED,
	NA_NR_CLASSES,		/* also "not classified yet" */
};

/* na_decay - move @avg 1/2^@shift of the way to @sample (and reach it) */
static inline u32 na_decay(u32 avg, u32 sample, unsigned int shift)
{
	u32 round = (1u << shift) - 1;

	if (sample >= avg)
		return avg + ((sample - avg + round) >> shift);
	return avg - ((avg - sample + round) >> shift);
}

/*
 * na_classify_raw - the 2020 seed's node classes, from decayed utilisation
 * and runnable load (both in milli-CPUs) against the node's capacity.
 * @imb_pct plays the kernel's imbalance_pct: a node is overloaded when it
 * is nearly all busy *and* more work waits than it can run; it has spare
 * capacity when it is clearly below both.  Increasing either load never
 * lowers the class, which na_classify() relies on.
 */
static inline enum na_class na_classify_raw(u32 cap, u32 util, u32 runnable,
					    u32 imb_pct)
{
	u64 cap100 = (u64)cap * 100, capimb = (u64)cap * imb_pct;

	if ((u64)util * imb_pct > cap100 && (u64)runnable * 100 > capimb)
		return NA_OVERLOADED;
	if ((u64)util * imb_pct < cap100 && (u64)runnable * 100 < capimb)
		return NA_SPARE;
	return NA_BUSY;
}

static inline u32 na_sub_sat(u32 a, u32 b)
{
	return a > b ? a - b : 0;
}

/*
 * na_classify - a node's class with hysteresis: it keeps @cur unless the
 * loads, moved by @margin_pm per-mille of capacity towards @cur, still
 * point elsewhere.  Noise smaller than the margin never flips a class.
 */
static inline enum na_class na_classify(enum na_class cur, u32 cap, u32 util,
					u32 runnable, u32 imb_pct,
					u32 margin_pm)
{
	u32 h = (u32)((u64)cap * margin_pm / 1000);
	enum na_class lo, hi;

	lo = na_classify_raw(cap, na_sub_sat(util, h), na_sub_sat(runnable, h),
			     imb_pct);
	hi = na_classify_raw(cap, util + h, runnable + h, imb_pct);
	if (cur >= lo && cur <= hi)
		return cur;
	return na_classify_raw(cap, util, runnable, imb_pct);
}

/*
 * na_class_allows - may work move from a node of class @from to one of
 * class @to?  Never into an overloaded node, never from a node with spare
 * capacity into a busier one.
 */
static inline bool na_class_allows(enum na_class from, enum na_class to)
{
	if (to == NA_OVERLOADED)
		return false;
	return from != NA_SPARE || to == NA_SPARE;
}

/* na_argmax - index of the largest value; @prefer wins a tie, then the lowest */
static inline int na_argmax(const u64 *v, int n, int prefer)
{
	int i, best = prefer >= 0 && prefer < n ? prefer : 0;

	for (i = 0; i < n; i++)
		if (v[i] > v[best])
			best = i;
	return best;
}

/*
 * na_score_nearby - the 2014 seed: a node's score plus the scores of the
 * other nodes, each weighted by closeness, full weight at local distance
 * and none at the largest distance in the table.  Scaled by
 * (max - LOCAL) to stay in integers:
 *
 *   out[a] = sum over b of score[b] * (max - dist(a, b)),  dist(a, a) = LOCAL
 *
 * On a machine whose nodes are all equally far apart this only scales the
 * scores, so it changes no decision there.
 */
static inline void na_score_nearby(const u32 *score, const u8 *dist, int n,
				   u64 *out)
{
	u32 maxd = NA_LOCAL_DISTANCE;
	int a, b;

	for (a = 0; a < n * n; a++)
		if (dist[a] > maxd)
			maxd = dist[a];
	for (a = 0; a < n; a++) {
		out[a] = 0;
		for (b = 0; b < n; b++) {
			u32 d = a == b ? NA_LOCAL_DISTANCE : dist[a * n + b];

			if (maxd == NA_LOCAL_DISTANCE)
				out[a] += a == b ? score[b] : 0;
			else if (d < maxd)
				out[a] += (u64)score[b] * (maxd - d);
		}
	}
}

/* na_set_distance - summed distance between the nodes of @set, each pair once */
static inline u32 na_set_distance(u64 set, const u8 *dist, int n)
{
	u32 sum = 0;
	int a, b;

	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++)
			if ((set >> a & 1) && (set >> b & 1))
				sum += dist[a * n + b];
	return sum;
}

/*
 * na_pick_set - @k nodes out of @allowed for one process: the best-scored
 * node first, then each time the node closest to those chosen (smallest
 * summed distance), the higher score and then the lower id breaking ties.
 * The result is a compact set grown around where the process does best.
 * Returns 0 when fewer than @k nodes are allowed.
 */
static inline u64 na_pick_set(const u64 *score, const u8 *dist, int n, int k,
			      u64 allowed)
{
	u64 set = 0;
	int got, a, b;

	for (got = 0; got < k; got++) {
		int best = -1;
		u32 best_d = 0;

		for (a = 0; a < n; a++) {
			u32 d = 0;

			if (!(allowed >> a & 1) || (set >> a & 1))
				continue;
			for (b = 0; b < n; b++)
				if (set >> b & 1)
					d += dist[a * n + b];
			if (best < 0 || d < best_d ||
			    (d == best_d && score[a] > score[best])) {
				best = a;
				best_d = d;
			}
		}
		if (best < 0)
			return 0;
		set |= 1ULL << best;
	}
	return set;
}

/* Why a unit got its target; shown in `advice`. */
enum na_reason {
	NA_R_NO_DATA,		/* it has not run long enough to judge */
	NA_R_MOVE,		/* the target scores better by the threshold */
	NA_R_STAY,		/* it is where it belongs */
	NA_R_GAIN,		/* better elsewhere, not by the threshold */
	NA_R_HOLD,		/* moved too recently to move again */
	NA_R_OVERLOADED,	/* its best node is overloaded */
	NA_R_BUSIER,		/* its best node is busier than its spare one */
	NA_R_NO_ROOM,		/* its best node has no room left for it */
	NA_R_WIDE,		/* it needs every node */
	NA_NR_REASONS,
};

/* The machine a round of placement works on; @room is used up as it goes. */
struct na_machine {
	int nr;			/* nodes */
	const u8 *dist;		/* nr * nr SLIT distances */
	const u32 *cap;		/* capacity per node, milli-CPUs */
	const enum na_class *cls;
	u32 *room;		/* milli-CPUs still free per node */
	u32 gain_pm;		/* a move must score this much better */
	bool nearby;		/* distance policy: na_score_nearby() */
};

/* A task (home policy) or a process (distance policy) to place. */
struct na_unit {
	/* in */
	u32 demand;		/* milli-CPUs it uses */
	u64 cur;		/* nodes it runs on now, or was placed on */
	bool hold;		/* moved too recently: stays on @cur */
	const u32 *score;	/* per node, per-mille */
	/* out */
	u64 target;
	enum na_reason reason;
	u32 cur_score;		/* mean (adjusted) score over @cur */
	u32 target_score;	/* the same over @target */
};

/* na_nodes_needed - nodes of average capacity @demand fills, 1..@nr */
static inline int na_nodes_needed(const struct na_machine *m, u32 demand)
{
	u64 total = 0;
	int i, k;

	for (i = 0; i < m->nr; i++)
		total += m->cap[i];
	if (!total)
		return 1;
	k = (int)(((u64)demand * m->nr + total - 1) / total);
	return k < 1 ? 1 : k > m->nr ? m->nr : k;
}

static inline int na_popcount(u64 set)
{
	int k = 0;

	for (; set; set &= set - 1)
		k++;
	return k;
}

static inline u32 na_mean_score(const u64 *s, u64 set, int n)
{
	u64 sum = 0;
	int i, k = 0;

	for (i = 0; i < n; i++) {
		if (set >> i & 1) {
			sum += s[i];
			k++;
		}
	}
	return k ? (u32)(sum / k) : 0;
}

static inline void na_claim(struct na_machine *m, u64 set, u32 each)
{
	int i;

	for (i = 0; i < m->nr; i++)
		if (set >> i & 1)
			m->room[i] = na_sub_sat(m->room[i], each);
}

/*
 * na_place_unit - where @u belongs, given what earlier units already
 * claimed of @m->room.  A unit goes to the best-scoring set of nodes it
 * needs that (1) has room for its share of the load, (2) is not
 * overloaded and (3) is not busier than the spare node it leaves, and only
 * if that set beats where it is by @m->gain_pm.  Otherwise it stays.
 * Either way its load is claimed where it ends up.  @s is scratch for
 * m->nr scores.
 */
static inline void na_place_unit(struct na_machine *m, struct na_unit *u,
				 u64 *s)
{
	u64 all = m->nr >= 64 ? ~0ULL : (1ULL << m->nr) - 1;
	enum na_class from = NA_NR_CLASSES;
	u64 allowed = 0, best;
	int i, k, top;
	u32 each;

	u->cur &= all;
	k = m->nearby ? na_nodes_needed(m, u->demand) : 1;
	if (m->nearby) {
		na_score_nearby(u->score, m->dist, m->nr, s);
	} else {
		for (i = 0; i < m->nr; i++)
			s[i] = u->score[i];
	}
	u->cur_score = na_mean_score(s, u->cur, m->nr);
	u->target = u->cur;
	u->target_score = u->cur_score;

	if (!u->cur || !u->demand) {
		u->reason = NA_R_NO_DATA;
		return;
	}
	if (k == m->nr) {
		u->target = all;
		u->target_score = na_mean_score(s, all, m->nr);
		u->reason = NA_R_WIDE;
		na_claim(m, all, u->demand / k);
		return;
	}
	each = u->demand / k;
	if (u->hold) {
		u->reason = NA_R_HOLD;
		na_claim(m, u->cur, each);
		return;
	}

	for (i = 0; i < m->nr; i++)
		if ((u->cur >> i & 1) && m->cls[i] < from)
			from = m->cls[i];
	for (i = 0; i < m->nr; i++) {
		if (m->room[i] < each)
			continue;
		if (!(u->cur >> i & 1) && !na_class_allows(from, m->cls[i]))
			continue;
		allowed |= 1ULL << i;
	}

	/* What keeps it from its best node, if something does. */
	top = na_argmax(s, m->nr, -1);
	if (u->cur >> top & 1 || allowed >> top & 1)
		u->reason = NA_R_GAIN;
	else if (m->cls[top] == NA_OVERLOADED)
		u->reason = NA_R_OVERLOADED;
	else if (!na_class_allows(from, m->cls[top]))
		u->reason = NA_R_BUSIER;
	else
		u->reason = NA_R_NO_ROOM;

	best = na_pick_set(s, m->dist, m->nr, k, allowed);
	if (best == u->cur) {
		if (u->reason == NA_R_GAIN)
			u->reason = NA_R_STAY;
	} else if (best) {
		u32 bs = na_mean_score(s, best, m->nr);

		/*
		 * Spread over more nodes than it needs, it gains by coming
		 * together even where the scores are level.
		 */
		if (na_popcount(u->cur) > k ||
		    (u64)bs * 1000 > (u64)u->cur_score * (1000 + m->gain_pm)) {
			u->target = best;
			u->target_score = bs;
			u->reason = NA_R_MOVE;
		}
	} else if (u->reason == NA_R_GAIN) {
		u->reason = NA_R_NO_ROOM;
	}
	na_claim(m, u->target, each);
}

#endif /* NA_POLICY_H */
