// SPDX-License-Identifier: GPL-2.0
/*
 * na_decide.c - numa_advise's placement decisions (see na_decide.h)
 *
 * Built into the module and, unchanged, into the unit tests.
 */
#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/sort.h>
#endif

#include "na_decide.h"

/* na_decay - move @avg 1/2^@shift of the way to @sample (and reach it) */
u32 na_decay(u32 avg, u32 sample, unsigned int shift)
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
enum na_class na_classify_raw(u32 cap, u32 util, u32 runnable,
			      u32 imb_pct)
{
	u64 cap100 = (u64)cap * 100, capimb = (u64)cap * imb_pct;

	if ((u64)util * imb_pct > cap100 && (u64)runnable * 100 > capimb)
		return NA_OVERLOADED;
	if ((u64)util * imb_pct < cap100 && (u64)runnable * 100 < capimb)
		return NA_SPARE;
	return NA_BUSY;
}

u32 na_sub_sat(u32 a, u32 b)
{
	return a > b ? a - b : 0;
}

/*
 * na_classify - a node's class with hysteresis: it keeps @cur unless the
 * loads, moved by @margin_pm per-mille of capacity towards @cur, still
 * point elsewhere.  Noise smaller than the margin never flips a class.
 */
enum na_class na_classify(enum na_class cur, u32 cap, u32 util,
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
bool na_class_allows(enum na_class from, enum na_class to)
{
	if (to == NA_OVERLOADED)
		return false;
	return from != NA_SPARE || to == NA_SPARE;
}

/* na_argmax - index of the largest value; @prefer wins a tie, then the lowest */
int na_argmax(const u64 *v, int n, int prefer)
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
void na_score_nearby(const u32 *score, const u8 *dist, int n,
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
u32 na_set_distance(u64 set, const u8 *dist, int n)
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
 * na_grow_set - @k nodes out of @allowed grown from @seed: each time the
 * node closest to those chosen (smallest summed distance), the higher
 * score and then the lower id breaking ties.  0 if there are not enough.
 */
static u64 na_grow_set(const u64 *score, const u8 *dist, int n, int k,
		       u64 allowed, int seed)
{
	u64 set = 1ULL << seed;
	int got, a, b;

	for (got = 1; got < k; got++) {
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

static u64 na_set_score(const u64 *score, u64 set, int n)
{
	u64 sum = 0;
	int i;

	for (i = 0; i < n; i++)
		if (set >> i & 1)
			sum += score[i];
	return sum;
}

/*
 * na_pick_set - @k nodes out of @allowed for one process: of the compact
 * sets grown from each allowed node, the one with the highest summed
 * score, the smallest total distance breaking ties, then the first grown.
 * Returns 0 when fewer than @k nodes are allowed.
 */
u64 na_pick_set(const u64 *score, const u8 *dist, int n, int k,
		u64 allowed)
{
	u64 best = 0, best_s = 0;
	u32 best_d = 0;
	int seed;

	for (seed = 0; seed < n; seed++) {
		u64 set, sc;
		u32 d;

		if (!(allowed >> seed & 1))
			continue;
		set = na_grow_set(score, dist, n, k, allowed, seed);
		if (!set)
			return 0;
		sc = na_set_score(score, set, n);
		d = na_set_distance(set, dist, n);
		if (!best || sc > best_s || (sc == best_s && d < best_d)) {
			best = set;
			best_s = sc;
			best_d = d;
		}
	}
	return best;
}

/*
 * na_nodes_needed - how many nodes of average capacity @demand fills,
 * 1..@nr, each taking up to imb_pct % of its capacity as in the room
 * check: eight busy threads fit four nodes of two CPUs.
 */
int na_nodes_needed(const struct na_machine *m, u32 demand)
{
	u64 total = 0;
	int i, k, nr = 0;

	/* Nodes without CPUs (memory only, or all offline) run nothing. */
	for (i = 0; i < m->nr; i++) {
		total += m->cap[i];
		nr += m->cap[i] > 0;
	}
	total = total * (m->imb_pct ? m->imb_pct : 100) / 100;
	if (!total)
		return 1;
	k = (int)(((u64)demand * nr + total - 1) / total);
	return k < 1 ? 1 : k > nr ? nr : k;
}

/* na_cpu_nodes - the nodes that have CPUs */
u64 na_cpu_nodes(const struct na_machine *m)
{
	u64 set = 0;
	int i;

	for (i = 0; i < m->nr; i++)
		if (m->cap[i])
			set |= 1ULL << i;
	return set;
}

static int na_popcount(u64 set)
{
	int k = 0;

	for (; set; set &= set - 1)
		k++;
	return k;
}

/* na_min_set_distance - the total distance of the most compact @k nodes */
static u32 na_min_set_distance(const struct na_machine *m,
			       const u64 *s, int k, u64 all)
{
	u32 best = ~0U;
	int seed;

	for (seed = 0; seed < m->nr; seed++) {
		u64 set;
		u32 d;

		if (!(all >> seed & 1))
			continue;
		set = na_grow_set(s, m->dist, m->nr, k, all, seed);
		d = na_set_distance(set, m->dist, m->nr);
		if (set && d < best)
			best = d;
	}
	return best;
}

static u32 na_mean_score(const u64 *s, u64 set, int n)
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

/* na_set_room - the room left on the nodes of @set, together */
static s64 na_set_room(const struct na_machine *m, u64 set)
{
	s64 room = 0;
	int i;

	for (i = 0; i < m->nr; i++)
		if (set >> i & 1)
			room += m->room[i];
	return room;
}

/*
 * na_claim - @each of the room of every node of @set.  Room may go below
 * zero: a node overfilled by the units placed there must look overfilled
 * to each of them in turn (na_place_unit()'s crowded test).
 */
static void na_claim(struct na_machine *m, u64 set, u32 each)
{
	int i;

	for (i = 0; i < m->nr; i++)
		if (set >> i & 1)
			m->room[i] -= (s32)each;
}

/* na_share - @u's load on each node of @set */
static u32 na_share(const struct na_unit *u, u64 set)
{
	int k = na_popcount(set);

	return k ? u->demand / k : 0;
}

/*
 * na_preclaim - before a round places anything, every placed unit holds
 * the room it uses where it is.  Each then gives its own back only when
 * its turn comes (na_place_unit()), so no unit can move into room another
 * placed unit still occupies, whatever order they come in: two processes
 * each settled on a group never swap or pile into one.
 */
void na_preclaim(struct na_machine *m, const struct na_unit *u)
{
	if (u->placed)
		na_claim(m, u->cur, na_share(u, u->cur));
}

static void na_release(struct na_machine *m, const struct na_unit *u)
{
	u32 each = na_share(u, u->cur);
	int i;

	for (i = 0; i < m->nr; i++) {
		s64 full = (s64)m->cap[i] * (m->imb_pct ? m->imb_pct : 100) / 100;

		if (u->cur >> i & 1)
			m->room[i] = (s32)(m->room[i] + (s64)each < full ?
					   m->room[i] + (s64)each : full);
	}
}

/*
 * na_place_unit - where @u belongs, given what earlier units already
 * claimed of @m->room.  A unit goes to the best-scoring set of nodes it
 * needs whose nodes (1) have room for at least half their share of its
 * load, and together for all of it (the scheduler balances a process's
 * threads inside its set), (2) are not overloaded and (3) are not busier
 * than the spare node it leaves, and only if that set beats where it is
 * by @m->gain_pm.  Otherwise it stays, unless it is crowded: where it
 * runs has no such room for it (not placed yet: it would be pinned there
 * as if it moved in), or the others placed there overfill it even
 * without it (placed: the gap between the two keeps a unit from leaving
 * a node it was let into).  A crowded unit goes to the best set with room
 * whatever the scores: a CPU shared three ways costs more than remote
 * memory does.  With no room anywhere, one not placed yet is left
 * unpinned, and one placed stays.
 * Either way its load is claimed where it ends up.  @s is scratch for
 * m->nr scores.
 */
void na_place_unit(struct na_machine *m, struct na_unit *u,
		   u64 *s)
{
	u64 all = m->nr >= 64 ? ~0ULL : (1ULL << m->nr) - 1;
	enum na_class from = NA_NR_CLASSES;
	u64 allowed = 0, best;
	int i, k, top;
	bool crowded = false;
	u32 each;

	u->cur &= all;
	if (u->placed)
		na_release(m, u);
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

	if (!u->cur || !u->demand || u->demand < m->min_demand) {
		u->reason = NA_R_NO_DATA;
		return;
	}
	if (k == na_popcount(na_cpu_nodes(m))) {
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
		bool here = u->cur >> i & 1;
		s32 need = here && u->placed ? 0 : (s32)(each - each / 2);

		if (!m->cap[i] || m->room[i] < need) {
			crowded |= here;
			continue;
		}
		if (!here && !na_class_allows(from, m->cls[i]))
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
	if (best && best != u->cur && na_set_room(m, best) < (s64)u->demand)
		best = 0;
	/*
	 * Never into a set less compact than the machine allows: a process
	 * pinned across groups is worse off than one the scheduler spreads.
	 */
	if (best && best != u->cur && k > 1 &&
	    na_set_distance(best, m->dist, m->nr) >
	    na_min_set_distance(m, s, k, na_cpu_nodes(m)))
		best = 0;
	if (best == u->cur) {
		if (u->reason == NA_R_GAIN)
			u->reason = NA_R_STAY;
	} else if (best) {
		u32 bs = na_mean_score(s, best, m->nr);

		/*
		 * On more nodes than it needs, or farther apart than it could
		 * be, it gains by coming together even where the scores say
		 * otherwise: a compact set is the point of the distance
		 * policy.  On fewer, it gains the room it lacks.  Between
		 * sets as compact, only the gain counts.
		 */
		if (na_popcount(u->cur) != k ||
		    (k > 1 && na_popcount(u->cur) == k &&
		     na_set_distance(best, m->dist, m->nr) <
		     na_set_distance(u->cur, m->dist, m->nr)) ||
		    (u64)bs * 1000 > (u64)u->cur_score * (1000 + m->gain_pm)) {
			u->target = best;
			u->target_score = bs;
			u->reason = NA_R_MOVE;
		} else if (crowded) {
			u->target = best;
			u->target_score = bs;
			u->reason = NA_R_CROWDED;
		}
	} else if (u->reason == NA_R_GAIN) {
		u->reason = NA_R_NO_ROOM;
	}
	/*
	 * Not placed, and where it runs is not a compact set of the size it
	 * needs, or has no room for it: staying there is no place to pin it
	 * to.  The scheduler may find it a CPU that comes free.
	 */
	if (!u->placed && u->reason != NA_R_MOVE && u->reason != NA_R_CROWDED &&
	    (crowded || na_popcount(u->cur) != k ||
	     (k > 1 && na_set_distance(u->cur, m->dist, m->nr) >
		       na_min_set_distance(m, s, k, na_cpu_nodes(m))))) {
		na_claim(m, u->cur, na_share(u, u->cur));
		u->target = 0;
		return;
	}
	/*
	 * Placed far apart (it grew after it was placed, say) and hemmed in
	 * by others: let it go, so that next round it is placed afresh with
	 * those that are not placed, instead of staying scattered for good.
	 * Its load stays claimed where it runs for this round.  Not again for
	 * a while (@may_let_go): if afresh is no better, it stays scattered
	 * rather than ping-pong.
	 */
	if (u->placed && u->may_let_go && k > 1 && u->target == u->cur &&
	    na_popcount(u->cur) == k &&
	    na_set_distance(u->cur, m->dist, m->nr) >
	    na_min_set_distance(m, s, k, na_cpu_nodes(m))) {
		u->reason = NA_R_SCATTERED;
		na_claim(m, u->cur, each);
		u->target = 0;
		return;
	}
	na_claim(m, u->target, each);
}

/* na_best_node - the node @score is highest on, the lowest of a tie */
int na_best_node(const u32 *score, int n)
{
	int i, best = 0;

	for (i = 1; i < n; i++)
		if (score[i] > score[best])
			best = i;
	return best;
}

/*
 * na_swap - after a round of `home` placed every unit: @u, kept from its
 * best node by lack of room (NA_R_NO_ROOM), trades places with @v, placed
 * there and staying (two kept from each other's node are the plainest
 * case), when the two, each weighted by its load, score @m->gain_pm
 * better after the trade, as the kernel's task_numa_compare() swaps two
 * tasks.  Placed units keep their room, so without this, tasks placed
 * on each other's memory node never get there one move at a time.  Each
 * goes only where a move could take it: a node that gains load must have
 * room for all of it (one that loses load may stay overfilled), and @v
 * not into an overloaded node or out of a spare one into a busier one
 * (@u's reason says its best node passed those).  Trading back would
 * lose what this gains, so there is no ping-pong while the scores stand.
 * Single nodes only: under `distance` a set's scores are not these.
 * Returns whether they traded.
 */
bool na_swap(struct na_machine *m, struct na_unit *u,
	     struct na_unit *v)
{
	u64 before, after;
	s64 eu, ev;
	int a, b;

	if (m->nearby || u->reason != NA_R_NO_ROOM || u->hold ||
	    na_popcount(u->cur) != 1 || !v->placed || v->hold ||
	    v->reason == NA_R_NO_DATA || v->reason == NA_R_SWAP ||
	    v->target != v->cur || na_popcount(v->cur) != 1)
		return false;
	a = fls64(u->cur) - 1;
	b = fls64(v->target) - 1;
	if (a == b || !m->cap[a] || u->score[na_best_node(u->score, m->nr)] >
	    u->score[b] || !na_class_allows(m->cls[b], m->cls[a]))
		return false;
	eu = u->demand;
	ev = v->demand;
	before = eu * u->score[a] + ev * v->score[b];
	after = eu * u->score[b] + ev * v->score[a];
	if (after * 1000 <= before * (1000 + m->gain_pm))
		return false;
	/* @u's load is claimed on @a, @v's on @b */
	if ((eu > ev && m->room[b] + ev < eu) ||
	    (ev > eu && m->room[a] + eu < ev))
		return false;
	m->room[a] += (s32)(eu - ev);
	m->room[b] += (s32)(ev - eu);
	u->target = 1ULL << b;
	u->target_score = u->score[b];
	u->reason = NA_R_SWAP;
	v->target = 1ULL << a;
	v->target_score = v->score[a];
	v->reason = NA_R_SWAP;
	return true;
}

static int na_unit_cmp(const void *a, const void *b)
{
	const struct na_unit *x = a, *y = b;

	/* Placed units first: where they are is settled before newcomers. */
	if (x->placed != y->placed)
		return x->placed ? -1 : 1;
	if (x->demand != y->demand)
		return x->demand > y->demand ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * na_decide_round - place @nr units on @m, as one round of the engine
 * does: placed units first, then by load, each claiming its room in
 * turn; then, if @trade (`home`), each unit kept from its best node by
 * lack of room may trade places with a unit placed there (na_swap()).
 * Sorts @units.  @s is scratch for m->nr scores.  Returns the number of
 * pairs that traded.
 */
u32 na_decide_round(struct na_machine *m, struct na_unit *units, u32 nr,
		    bool trade, u64 *s)
{
	u32 i, k, swaps = 0;

	sort(units, nr, sizeof(*units), na_unit_cmp, NULL);
	for (i = 0; i < nr; i++)
		na_preclaim(m, &units[i]);
	for (i = 0; i < nr; i++) {
		na_place_unit(m, &units[i], s);
		cond_resched();
	}
	/*
	 * Only units on the node a unit wants can trade with it, so the
	 * inner loop is mostly one comparison a unit.
	 */
	for (i = 0; i < nr && trade; i++) {
		struct na_unit *u = &units[i];
		u64 want;

		if (u->reason != NA_R_NO_ROOM)
			continue;
		want = 1ULL << na_best_node(u->score, m->nr);
		for (k = 0; k < nr; k++) {
			if (units[k].cur == want && na_swap(m, u, &units[k])) {
				swaps++;
				break;
			}
		}
		cond_resched();
	}
	return swaps;
}
