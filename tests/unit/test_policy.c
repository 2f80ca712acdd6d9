// SPDX-License-Identifier: GPL-2.0
/*
 * test_policy - module/na_decide.c: node classes, hysteresis, the 2014
 * seed's distance scores and compact sets, and whole placement rounds,
 * each checked against figures worked out by hand.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "kcompat.h"
#include "../../module/na_decide.h"

#define IMB	117	/* the kernel's imbalance_pct for NUMA domains */

/*
 * The 2014 seed's machine: 8 nodes in two groups of four, 16 apart inside
 * a group and 32 across (tests/guest/boot.sh -t 8x2 boots the same).
 */
static u8 dist8[64];
/* A 4-node line, 10 per hop (boot.sh -t 4x2). */
static u8 dist4[16];

static int setup_topologies(void **state)
{
	int a, b;

	for (a = 0; a < 8; a++)
		for (b = 0; b < 8; b++)
			dist8[a * 8 + b] = a == b ? 10 : a / 4 == b / 4 ? 16 : 32;
	for (a = 0; a < 4; a++)
		for (b = 0; b < 4; b++)
			dist4[a * 4 + b] = 10 + 10 * (a > b ? a - b : b - a);
	return 0;
}

static void decay_converges_both_ways(void **state)
{
	u32 avg = 0;
	int i;

	/* 1/4 of the way each step: 250, 438, 579, 685, ... */
	avg = na_decay(avg, 1000, 2);
	assert_int_equal(avg, 250);
	avg = na_decay(avg, 1000, 2);
	assert_int_equal(avg, 438);
	for (i = 0; i < 40; i++)
		avg = na_decay(avg, 1000, 2);
	assert_int_equal(avg, 1000);
	for (i = 0; i < 40; i++)
		avg = na_decay(avg, 0, 2);
	assert_int_equal(avg, 0);
}

/* Two CPUs: capacity 2000 milli-CPUs. */
static void classify_raw_hand_computed(void **state)
{
	/* one spinner on two CPUs */
	assert_int_equal(na_classify_raw(2000, 1000, 1000, IMB), NA_SPARE);
	/* two spinners: all busy, nothing waits */
	assert_int_equal(na_classify_raw(2000, 2000, 2000, IMB), NA_BUSY);
	/* four spinners: each waits half the time */
	assert_int_equal(na_classify_raw(2000, 2000, 4000, IMB), NA_OVERLOADED);
	/* lightly used but much waiting: not spare, not overloaded */
	assert_int_equal(na_classify_raw(2000, 1200, 3000, IMB), NA_BUSY);
	/* the boundary: 1709 * 117 = 199953 < 200000 < 1710 * 117 */
	assert_int_equal(na_classify_raw(2000, 1709, 1709, IMB), NA_SPARE);
	assert_int_equal(na_classify_raw(2000, 1710, 1710, IMB), NA_BUSY);
	/* runnable alone past 117% with util at 100%: overloaded */
	assert_int_equal(na_classify_raw(2000, 2000, 2341, IMB), NA_OVERLOADED);
	assert_int_equal(na_classify_raw(2000, 2000, 2340, IMB), NA_BUSY);
}

/* A margin of 50 per-mille is 100 milli-CPUs on two CPUs. */
static void classify_hysteresis(void **state)
{
	enum na_class c = NA_NR_CLASSES;
	static const u32 noise[] = { 1690, 1730, 1700, 1760, 1650, 1720 };
	unsigned int i;

	c = na_classify(c, 2000, 1650, 1650, IMB, 50);
	assert_int_equal(c, NA_SPARE);
	/* noise around the 1709/1710 boundary never flips it */
	for (i = 0; i < sizeof(noise) / sizeof(noise[0]); i++) {
		c = na_classify(c, 2000, noise[i], noise[i], IMB, 50);
		assert_int_equal(c, NA_SPARE);
	}
	/* clearly past it (1810 - 100 > 1709): busy */
	c = na_classify(c, 2000, 1810, 1810, IMB, 50);
	assert_int_equal(c, NA_BUSY);
	/* and it takes clearly less to come back */
	c = na_classify(c, 2000, 1650, 1650, IMB, 50);
	assert_int_equal(c, NA_BUSY);
	c = na_classify(c, 2000, 1600, 1600, IMB, 50);
	assert_int_equal(c, NA_SPARE);
	/* without a margin the same noise flips it */
	c = na_classify(NA_SPARE, 2000, 1730, 1730, IMB, 0);
	assert_int_equal(c, NA_BUSY);
}

static void class_rules(void **state)
{
	assert_true(na_class_allows(NA_SPARE, NA_SPARE));
	assert_false(na_class_allows(NA_SPARE, NA_BUSY));
	assert_false(na_class_allows(NA_SPARE, NA_OVERLOADED));
	assert_true(na_class_allows(NA_BUSY, NA_SPARE));
	assert_true(na_class_allows(NA_BUSY, NA_BUSY));
	assert_false(na_class_allows(NA_BUSY, NA_OVERLOADED));
	assert_true(na_class_allows(NA_OVERLOADED, NA_BUSY));
	assert_false(na_class_allows(NA_OVERLOADED, NA_OVERLOADED));
}

/*
 * On the 8-node machine max distance is 32: a node counts itself with
 * weight 32 - 10 = 22, its group with 32 - 16 = 16, the other group 0.
 */
static void nearby_scores_two_groups(void **state)
{
	u32 score[8] = { 1000, 0, 0, 0, 0, 0, 0, 0 };
	u32 split[8] = { 0, 0, 0, 500, 500, 0, 0, 0 };
	u64 out[8];
	int i;

	na_score_nearby(score, dist8, 8, out);
	assert_int_equal(out[0], 22000);
	for (i = 1; i < 4; i++)
		assert_int_equal(out[i], 16000);
	for (i = 4; i < 8; i++)
		assert_int_equal(out[i], 0);

	/* half on node 3, half on node 4: each group's own pull */
	na_score_nearby(split, dist8, 8, out);
	assert_int_equal(out[0], 8000);
	assert_int_equal(out[3], 11000);
	assert_int_equal(out[4], 11000);
	assert_int_equal(out[7], 8000);
}

/* On the line, max 40: weights 30 (self), 20, 10, 0 by hops. */
static void nearby_scores_line(void **state)
{
	u32 score[4] = { 0, 600, 0, 400 };
	u64 out[4];

	na_score_nearby(score, dist4, 4, out);
	assert_int_equal(out[0], 600 * 20 + 400 * 0);
	assert_int_equal(out[1], 600 * 30 + 400 * 10);
	assert_int_equal(out[2], 600 * 20 + 400 * 20);
	assert_int_equal(out[3], 600 * 10 + 400 * 30);
}

/* All nodes equally far apart: scores only scale, nothing reorders. */
static void nearby_scores_flat(void **state)
{
	u8 flat[16];
	u32 score[4] = { 100, 400, 300, 200 };
	u64 out[4];
	int a;

	for (a = 0; a < 16; a++)
		flat[a] = a % 5 ? 20 : 10;
	na_score_nearby(score, flat, 4, out);
	for (a = 0; a < 4; a++)
		assert_int_equal(out[a], score[a] * 10);
}

static void compact_sets(void **state)
{
	u64 score[8] = { 0, 0, 0, 0, 0, 90, 0, 0 };
	u64 set;

	/* grown from node 5 inside its group */
	set = na_pick_set(score, dist8, 8, 4, 0xff);
	assert_int_equal(set, 0xf0);
	assert_int_equal(na_set_distance(set, dist8, 8), 6 * 16);
	/* a group straddled by the allowed nodes costs more distance */
	assert_int_equal(na_set_distance(0x33, dist8, 8), 2 * 16 + 4 * 32);
	/* group 1 taken: the other group, from its best node */
	score[2] = 10;
	assert_int_equal(na_pick_set(score, dist8, 8, 4, 0x0f), 0x0f);
	/* two nodes on the line from node 1: its nearest is 0 or 2; 2 scores */
	{
		u64 line[4] = { 5, 50, 7, 0 };

		assert_int_equal(na_pick_set(line, dist4, 4, 2, 0xf), 0x6);
	}
	/* not enough allowed nodes */
	assert_int_equal(na_pick_set(score, dist8, 8, 4, 0x07), 0);
}

/* every node of the 8-node machine empty: 117% of two CPUs free */
static void full_rooms(s32 *room)
{
	int i;

	for (i = 0; i < 8; i++)
		room[i] = 2000 * IMB / 100;
}

static void nodes_needed(void **state)
{
	u32 cap[8] = { 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000 };
	struct na_machine m = { .nr = 8, .cap = cap };

	assert_int_equal(na_nodes_needed(&m, 0), 1);
	assert_int_equal(na_nodes_needed(&m, 900), 1);
	assert_int_equal(na_nodes_needed(&m, 8000), 4);
	assert_int_equal(na_nodes_needed(&m, 8001), 5);
	assert_int_equal(na_nodes_needed(&m, 40000), 8);
	/* a node may take 117%: 4 x 2340 = 9360 still fits four */
	m.imb_pct = IMB;
	assert_int_equal(na_nodes_needed(&m, 8001), 4);
	assert_int_equal(na_nodes_needed(&m, 9360), 4);
	assert_int_equal(na_nodes_needed(&m, 9361), 5);
	/* a node without CPUs neither counts nor is counted on */
	cap[7] = 0;
	assert_int_equal(na_nodes_needed(&m, 9360), 4);
	assert_int_equal(na_nodes_needed(&m, 40000), 7);
	assert_int_equal(na_cpu_nodes(&m), 0x7f);
}

/*
 * The 2014 seed's case: two processes, each 8 busy threads on a machine
 * of 8 nodes x 2 CPUs, both spread over every node.  The first gets a
 * whole group, the second the other; run again, each keeps its group.
 */
static void two_half_machine_processes(void **state)
{
	u32 cap[8];
	s32 room[8];
	enum na_class cls[8];
	u32 spread[8];
	struct na_machine m = {
		.nr = 8, .dist = dist8, .cap = cap, .cls = cls, .room = room,
		.imb_pct = IMB, .gain_pm = 200, .nearby = true,
	};
	struct na_unit a = { .demand = 8000, .cur = 0xff, .score = spread };
	struct na_unit b = a;
	u64 s[8];
	int i;

	for (i = 0; i < 8; i++) {
		cap[i] = 2000;
		room[i] = 2000 * IMB / 100;
		cls[i] = NA_BUSY;
		spread[i] = 125;
	}
	na_place_unit(&m, &a, s);
	na_place_unit(&m, &b, s);
	assert_int_equal(a.target, 0x0f);
	assert_int_equal(a.reason, NA_R_MOVE);
	assert_int_equal(b.target, 0xf0);
	assert_int_equal(b.reason, NA_R_MOVE);

	/*
	 * Some other load on node 0 (the shell running the test, say): the
	 * group still holds the process, not one node short of it.
	 */
	full_rooms(room);
	room[0] = 1840;
	a = (struct na_unit){ .demand = 8000, .cur = 0xff, .score = spread };
	b = a;
	na_place_unit(&m, &a, s);
	na_place_unit(&m, &b, s);
	assert_int_equal(a.target, 0x0f);
	assert_int_equal(b.target, 0xf0);
	/*
	 * but not with more than half a node's worth there: then the other
	 * group, not nodes 1-4 across both
	 */
	full_rooms(room);
	room[0] = 999;
	a = (struct na_unit){ .demand = 8000, .cur = 0xff, .score = spread };
	na_place_unit(&m, &a, s);
	assert_int_equal(a.target, 0xf0);

	/*
	 * Caught on a scattered set (0,3,5,7), with its memory in the other
	 * group: its scores there beat those of the free group, but it
	 * still comes together.
	 */
	{
		u32 sb[8] = { 200, 0, 0, 200, 0, 200, 0, 200 };

		full_rooms(room);
		for (i = 0; i < 4; i++)
			room[i] = 340;	/* the first group is taken */
		b = (struct na_unit){ .demand = 8000, .cur = 0xa9, .score = sb };
		na_place_unit(&m, &b, s);
		assert_true(b.cur_score > b.target_score);
		assert_int_equal(b.target, 0xf0);
		assert_int_equal(b.reason, NA_R_MOVE);
	}

	/*
	 * Placed on a group each, with both processes' memory in the first
	 * group: whichever comes first, neither moves into the other's.
	 */
	{
		u32 sa[8] = { 600, 100, 100, 100, 100, 0, 0, 0 };
		u32 sb[8] = { 500, 150, 150, 150, 50, 0, 0, 0 };
		struct na_unit pa = { .demand = 8000, .cur = 0x0f,
				      .placed = true, .score = sa };
		struct na_unit pb = { .demand = 8000, .cur = 0xf0,
				      .placed = true, .score = sb };

		full_rooms(room);
		na_preclaim(&m, &pa);
		na_preclaim(&m, &pb);
		na_place_unit(&m, &pb, s);	/* b first: it wants group 0 */
		na_place_unit(&m, &pa, s);
		assert_int_equal(pb.target, 0xf0);
		assert_int_equal(pa.target, 0x0f);
		assert_int_equal(pa.reason, NA_R_STAY);
		/* without the pre-claims b would have taken group 0 */
		full_rooms(room);
		pb.placed = false;
		na_place_unit(&m, &pb, s);
		assert_int_equal(pb.target, 0x0f);
	}

	/*
	 * Placed on three nodes while it looked smaller, now needing four:
	 * it takes the fourth, though the new node scores nothing yet.
	 */
	{
		u32 sc[8] = { 0, 0, 0, 0, 333, 333, 334, 0 };
		struct na_unit pc = { .demand = 8000, .cur = 0x70,
				      .placed = true, .score = sc };

		full_rooms(room);
		na_place_unit(&m, &pc, s);
		assert_true(pc.cur_score > pc.target_score);
		assert_int_equal(pc.target, 0xf0);
		assert_int_equal(pc.reason, NA_R_MOVE);
	}

	/*
	 * Two processes placed interleaved, each across both groups, each
	 * in the other's way: both are let go, to be placed afresh.
	 */
	{
		u32 s1[8] = { 0, 0, 250, 250, 0, 250, 0, 250 };
		u32 s2[8] = { 250, 250, 0, 0, 250, 0, 250, 0 };
		struct na_unit p1 = { .demand = 8000, .cur = 0xac,
				      .placed = true, .may_let_go = true,
				      .score = s1 };
		struct na_unit p2 = { .demand = 8000, .cur = 0x53,
				      .placed = true, .may_let_go = true,
				      .score = s2 };

		full_rooms(room);
		na_preclaim(&m, &p1);
		na_preclaim(&m, &p2);
		na_place_unit(&m, &p1, s);
		na_place_unit(&m, &p2, s);
		assert_int_equal(p1.reason, NA_R_SCATTERED);
		assert_int_equal(p1.target, 0);
		assert_int_equal(p2.reason, NA_R_SCATTERED);
		/* let go lately: it stays, rather than ping-pong */
		full_rooms(room);
		p1.target = 0;
		p1.may_let_go = false;
		na_preclaim(&m, &p2);
		na_place_unit(&m, &p1, s);
		assert_int_equal(p1.target, 0xac);
		assert_true(p1.reason != NA_R_SCATTERED);
		/* unplaced, next round, they come together */
		full_rooms(room);
		p1 = (struct na_unit){ .demand = 8000, .cur = 0xac, .score = s1 };
		p2 = (struct na_unit){ .demand = 8000, .cur = 0x53, .score = s2 };
		na_place_unit(&m, &p1, s);
		na_place_unit(&m, &p2, s);
		assert_int_equal(na_set_distance(p1.target, dist8, 8), 96);
		assert_int_equal(na_set_distance(p2.target, dist8, 8), 96);
		assert_int_equal(p1.target ^ p2.target, 0xff);
	}

	/*
	 * Not placed, running on three nodes, needing two, and no room for
	 * two together: nothing to pin it to (not the three it is on).
	 */
	{
		u32 sd[8] = { 300, 0, 400, 300, 0, 0, 0, 0 };
		struct na_unit pd = { .demand = 4000, .cur = 0x0d, .score = sd };

		full_rooms(room);
		for (i = 0; i < 8; i++)
			if (!(0x0d >> i & 1))
				room[i] = 0;
		room[2] = 1500;	/* 0, 2 and 3 have room for half a share... */
		room[0] = 1000;
		room[3] = 1000;	/* ...but no two of them for all of it */
		na_place_unit(&m, &pd, s);
		assert_int_equal(pd.target, 0);
		assert_int_equal(pd.reason, NA_R_NO_ROOM);
	}

	/*
	 * Only nodes 1-4 have room: four nodes across both groups is not a
	 * place to pin a process to; it is left where it runs.
	 */
	{
		struct na_unit pe = { .demand = 8000, .cur = 0xff, .score = spread };

		full_rooms(room);
		room[0] = room[5] = room[6] = room[7] = 0;
		na_place_unit(&m, &pe, s);
		assert_int_equal(pe.target, 0);
		assert_int_equal(pe.reason, NA_R_NO_ROOM);
		/* nor where it happens to run, if that is as scattered */
		pe = (struct na_unit){ .demand = 8000, .cur = 0x8e, .score = spread };
		na_place_unit(&m, &pe, s);
		assert_int_equal(pe.target, 0);
	}

	/* Next round, placed: each stays where its threads now run. */
	{
		u32 sa[8] = { 250, 250, 250, 250, 0, 0, 0, 0 };
		u32 sb[8] = { 0, 0, 0, 0, 250, 250, 250, 250 };

		full_rooms(room);
		a = (struct na_unit){ .demand = 8000, .cur = 0x0f, .score = sa };
		b = (struct na_unit){ .demand = 8000, .cur = 0xf0, .score = sb };
		na_place_unit(&m, &b, s);
		na_place_unit(&m, &a, s);
		assert_int_equal(a.target, 0x0f);
		assert_int_equal(a.reason, NA_R_STAY);
		assert_int_equal(b.target, 0xf0);
		assert_int_equal(b.reason, NA_R_STAY);
	}
}

/* home policy on the 4-node line: one task, one CPU's worth */
static struct na_machine home_machine(u32 *cap, s32 *room, enum na_class *cls)
{
	int i;

	for (i = 0; i < 4; i++) {
		cap[i] = 2000;
		room[i] = 2340;
		cls[i] = NA_SPARE;
	}
	return (struct na_machine){ .nr = 4, .dist = dist4, .cap = cap,
				    .cls = cls, .room = room, .gain_pm = 200 };
}

static void home_moves_by_threshold(void **state)
{
	u32 cap[4];
	s32 room[4];
	enum na_class cls[4];
	struct na_machine m = home_machine(cap, room, cls);
	u32 close[4] = { 480, 520, 0, 0 };
	u32 clear[4] = { 300, 700, 0, 0 };
	struct na_unit u = { .demand = 1000, .cur = 0x1, .score = close };
	u64 s[4];

	/* 520 is not 20% better than 480 (576 would be) */
	na_place_unit(&m, &u, s);
	assert_int_equal(u.target, 0x1);
	assert_int_equal(u.reason, NA_R_GAIN);
	assert_int_equal(room[0], 1340);
	/* 700 is; the load is claimed on the new node */
	u = (struct na_unit){ .demand = 1000, .cur = 0x1, .score = clear };
	na_place_unit(&m, &u, s);
	assert_int_equal(u.target, 0x2);
	assert_int_equal(u.reason, NA_R_MOVE);
	assert_int_equal(u.cur_score, 300);
	assert_int_equal(u.target_score, 700);
	assert_int_equal(room[1], 1340);
	/* once there, it stays */
	u = (struct na_unit){ .demand = 1000, .cur = 0x2, .score = clear };
	na_place_unit(&m, &u, s);
	assert_int_equal(u.target, 0x2);
	assert_int_equal(u.reason, NA_R_STAY);
	/* moved too recently: held, whatever the scores */
	u = (struct na_unit){ .demand = 1000, .cur = 0x1, .score = clear,
			      .hold = true };
	na_place_unit(&m, &u, s);
	assert_int_equal(u.target, 0x1);
	assert_int_equal(u.reason, NA_R_HOLD);
}

static void home_respects_classes_and_room(void **state)
{
	u32 cap[4];
	s32 room[4];
	enum na_class cls[4];
	struct na_machine m = home_machine(cap, room, cls);
	u32 score[4] = { 100, 0, 900, 0 };
	struct na_unit u = { .demand = 1000, .cur = 0x1, .score = score };
	u64 s[4];

	cls[2] = NA_OVERLOADED;
	na_place_unit(&m, &u, s);
	assert_int_equal(u.target, 0x1);
	assert_int_equal(u.reason, NA_R_OVERLOADED);

	cls[2] = NA_BUSY;	/* from a spare node: not into a busier one */
	na_place_unit(&m, &u, s);
	assert_int_equal(u.target, 0x1);
	assert_int_equal(u.reason, NA_R_BUSIER);

	cls[0] = NA_BUSY;	/* from a busy node it may */
	na_place_unit(&m, &u, s);
	assert_int_equal(u.target, 0x4);

	room[0] = 2340;
	room[2] = 999;		/* but not where there is no room */
	na_place_unit(&m, &u, s);
	assert_int_equal(u.target, 0x1);
	assert_int_equal(u.reason, NA_R_NO_ROOM);

	u.demand = 0;		/* nothing to judge by */
	na_place_unit(&m, &u, s);
	assert_int_equal(u.target, 0x1);
	assert_int_equal(u.reason, NA_R_NO_DATA);

	m.min_demand = 50;	/* too little load to be worth placing */
	u.demand = 49;
	na_place_unit(&m, &u, s);
	assert_int_equal(u.reason, NA_R_NO_DATA);

	room[0] = room[2] = 2340; /* a node without CPUs takes nothing */
	cap[2] = 0;
	u.demand = 1000;
	na_place_unit(&m, &u, s);
	assert_int_equal(u.target, 0x1);
}

/*
 * Three busy tasks whose memory is on node 0, a node of two CPUs.  Not
 * placed yet: two fit, the third is not pinned there with them but goes
 * to the best node with room, its memory remote or not.
 */
static void home_crowded_not_packed(void **state)
{
	u32 cap[4];
	s32 room[4];
	enum na_class cls[4];
	struct na_machine m = home_machine(cap, room, cls);
	u32 score[4] = { 900, 60, 40, 0 };
	struct na_unit u[3];
	u64 s[4];
	int i;

	for (i = 0; i < 3; i++) {
		u[i] = (struct na_unit){ .demand = 1000, .cur = 0x1,
					 .score = score };
		na_place_unit(&m, &u[i], s);
	}
	assert_int_equal(u[0].target, 0x1);
	assert_int_equal(u[0].reason, NA_R_STAY);
	assert_int_equal(u[1].target, 0x1);
	assert_int_equal(room[0], 340);
	assert_int_equal(u[2].target, 0x2);
	assert_int_equal(u[2].reason, NA_R_CROWDED);
	assert_int_equal(u[2].target_score, 60);
	assert_int_equal(room[1], 1340);

	/*
	 * With no room anywhere else it is not pinned where it is either:
	 * the scheduler may find it a CPU that comes free.  Its load still
	 * counts there.
	 */
	room[0] = 340;
	room[1] = room[2] = room[3] = 400;
	u[2] = (struct na_unit){ .demand = 1000, .cur = 0x1, .score = score };
	na_place_unit(&m, &u[2], s);
	assert_int_equal(u[2].target, 0);
	assert_int_equal(u[2].reason, NA_R_NO_ROOM);
	assert_int_equal(room[0], -660);
}

/*
 * Placed tasks hold their room (na_preclaim()).  One leaves a node only
 * when the others there overfill it without it; three on two CPUs stay
 * (the gap to the half share a newcomer needs keeps them from ping-pong),
 * four shed one, and the node's room shows the overfill meanwhile.
 */
static void home_placed_overfill_sheds(void **state)
{
	u32 cap[4];
	s32 room[4];
	enum na_class cls[4];
	struct na_machine m = home_machine(cap, room, cls);
	u32 score[4] = { 900, 60, 40, 0 };
	struct na_unit u[4];
	u64 s[4];
	int i, n;

	for (n = 3; n <= 4; n++) {
		home_machine(cap, room, cls);
		for (i = 0; i < n; i++) {
			u[i] = (struct na_unit){ .demand = 1000, .cur = 0x1,
						 .placed = true, .score = score };
			na_preclaim(&m, &u[i]);
		}
		assert_int_equal(room[0], 2340 - n * 1000);
		for (i = 0; i < n; i++)
			na_place_unit(&m, &u[i], s);
		if (n == 3) {
			for (i = 0; i < n; i++) {
				assert_int_equal(u[i].target, 0x1);
				assert_int_equal(u[i].reason, NA_R_STAY);
			}
			continue;
		}
		assert_int_equal(u[0].target, 0x2);
		assert_int_equal(u[0].reason, NA_R_CROWDED);
		for (i = 1; i < n; i++)
			assert_int_equal(u[i].target, 0x1);
		assert_int_equal(room[0], 2340 - 3000);
		assert_int_equal(room[1], 1340);
	}
}

/*
 * Two placed tasks, each on the node of the other's memory, both nodes
 * full: neither can move alone (placed units keep their room), so they
 * trade places (na_swap()).  Not back again, not when one would lose
 * more than the other gains, not when the one coming in lacks room where
 * the other leaves, and not under `distance`.
 */
static void home_swap_reaches_memory(void **state)
{
	u32 cap[4];
	s32 room[4];
	enum na_class cls[4];
	struct na_machine m = home_machine(cap, room, cls);
	u32 mem0[4] = { 1000, 0, 0, 0 }, mem1[4] = { 0, 1000, 0, 0 };
	u32 su[4] = { 100, 900, 0, 0 }, sv[4] = { 400, 600, 0, 0 };
	struct na_unit u[4];
	u64 s[4];
	int i, j, round;

	for (round = 0; round < 2; round++) {
		home_machine(cap, room, cls);
		room[2] = room[3] = 340;	/* full of others */
		/* u[1] wants node 1, u[3] node 1 too, less so */
		u[0] = (struct na_unit){ .demand = 1000, .cur = 0x1,
					 .placed = true, .score = mem0 };
		u[1] = (struct na_unit){ .demand = 1000,
					 .cur = round ? 0x2 : 0x1,
					 .placed = true, .score = su };
		u[2] = (struct na_unit){ .demand = 1000, .cur = 0x2,
					 .placed = true, .score = mem1 };
		u[3] = (struct na_unit){ .demand = 1000,
					 .cur = round ? 0x1 : 0x2,
					 .placed = true, .score = sv };
		for (i = 0; i < 4; i++)
			na_preclaim(&m, &u[i]);
		for (i = 0; i < 4; i++)
			na_place_unit(&m, &u[i], s);
		for (i = 0; i < 4; i++)
			for (j = 0; j < 4; j++)
				if (na_swap(&m, &u[i], &u[j]))
					break;
		if (round == 0) {
			assert_int_equal(u[1].reason, NA_R_SWAP);
			assert_int_equal(u[1].target, 0x2);
			assert_int_equal(u[1].target_score, 900);
			assert_int_equal(u[3].reason, NA_R_SWAP);
			assert_int_equal(u[3].target, 0x1);
			assert_int_equal(u[0].target, 0x1);
			assert_int_equal(u[2].target, 0x2);
			assert_int_equal(room[0], 340);
			assert_int_equal(room[1], 340);
			continue;
		}
		/* traded: u[3] would rather be back, but that loses 800 for 200 */
		assert_int_equal(u[3].reason, NA_R_NO_ROOM);
		assert_int_equal(u[3].target, 0x1);
		assert_int_equal(u[1].reason, NA_R_STAY);
	}

	/* u[3]'s memory on node 1 too: it would lose more than u[1] gains */
	home_machine(cap, room, cls);
	room[2] = room[3] = 340;
	u[1] = (struct na_unit){ .demand = 1000, .cur = 0x1, .placed = true,
				 .score = su };
	u[3] = (struct na_unit){ .demand = 1000, .cur = 0x2, .placed = true,
				 .score = mem1 };
	u[0].placed = u[2].placed = true;
	for (i = 0; i < 4; i++)
		na_preclaim(&m, &u[i]);
	for (i = 0; i < 4; i++)
		na_place_unit(&m, &u[i], s);
	assert_int_equal(u[1].reason, NA_R_NO_ROOM);
	assert_false(na_swap(&m, &u[1], &u[3]));
	assert_int_equal(u[1].target, 0x1);

	/*
	 * A small task on node 1 that would gain as much: node 1 gains 900
	 * of load by the trade, and must have room for it, as for a move.
	 */
	home_machine(cap, room, cls);
	room[1] = 1440;
	room[2] = room[3] = 340;
	u[3] = (struct na_unit){ .demand = 100, .cur = 0x2, .placed = true,
				 .score = sv };
	for (i = 0; i < 4; i++)
		na_preclaim(&m, &u[i]);
	for (i = 0; i < 4; i++)
		na_place_unit(&m, &u[i], s);
	assert_int_equal(room[1], 340);
	assert_int_equal(u[1].reason, NA_R_NO_ROOM);
	assert_false(na_swap(&m, &u[1], &u[3]));
	room[1] = 899;
	assert_false(na_swap(&m, &u[1], &u[3]));
	room[1] = 900;
	assert_true(na_swap(&m, &u[1], &u[3]));
	assert_int_equal(room[1], 0);
	assert_int_equal(room[0], 340 + 900);

	/* under `distance` the trade is not made */
	u[1].reason = NA_R_NO_ROOM;
	u[3].reason = NA_R_STAY;
	u[1].target = 0x1;
	u[3].target = 0x2;
	m.nearby = true;
	assert_false(na_swap(&m, &u[1], &u[3]));
}

/*
 * Each guard of na_swap() alone keeps a pair apart that trades without
 * it: here one not placed (left unpinned, its load claimed where it runs)
 * and one placed and staying, both nodes full.
 */
static void home_swap_guards(void **state)
{
	u32 cap[4];
	s32 room[4];
	enum na_class cls[4];
	struct na_machine m = home_machine(cap, room, cls);
	u32 su[4] = { 100, 900, 0, 0 }, sv[4] = { 400, 600, 0, 0 };
	u32 elsewhere[4] = { 100, 500, 900, 0 };
	const struct na_unit u0 = { .demand = 1000, .cur = 0x1, .score = su,
				    .reason = NA_R_NO_ROOM };
	const struct na_unit v0 = { .demand = 1000, .cur = 0x2, .placed = true,
				    .score = sv, .target = 0x2,
				    .reason = NA_R_STAY };
	struct na_unit u = u0, v = v0;
	int i;

	room[0] = room[1] = 0;
	for (i = 0; i < 7; i++) {
		u = u0;
		v = v0;
		switch (i) {
		case 0: v.hold = true; break;
		case 1: v.placed = false; break;
		case 2:	/* leaving for the node @u wants */
			v.target = 0x4;
			v.reason = NA_R_MOVE;
			u.score = elsewhere;
			break;
		case 3: v.reason = NA_R_NO_DATA; break;
		case 4: u.score = elsewhere; break;	/* wants node 2 */
		case 5: cls[0] = NA_OVERLOADED; break;
		case 6: cls[0] = NA_BUSY; break;	/* spare -> busier */
		}
		assert_false(na_swap(&m, &u, &v));
		assert_int_equal(u.reason, NA_R_NO_ROOM);
		cls[0] = NA_SPARE;
	}
	u = u0;
	v = v0;
	assert_true(na_swap(&m, &u, &v));
	assert_int_equal(u.target, 0x2);
	assert_int_equal(v.target, 0x1);
	assert_int_equal(room[0], 0);
	assert_int_equal(room[1], 0);
	/* once traded, neither trades again this round */
	assert_false(na_swap(&m, &v, &u));
}

/*
 * na_decide_round(), the engine's own round: the units come in any order
 * (it sorts them: placed first, then by load), the two placed on each
 * other's memory node trade (one pair counted), and the round after,
 * on the nodes they traded to, nobody moves.  Without trading (`distance`
 * rounds never trade) they stay kept from their nodes.
 */
static void round_sorts_places_and_trades(void **state)
{
	u32 cap[4];
	s32 room[4];
	enum na_class cls[4];
	struct na_machine m = home_machine(cap, room, cls);
	u32 mem0[4] = { 1000, 0, 0, 0 }, mem1[4] = { 0, 1000, 0, 0 };
	u32 su[4] = { 100, 900, 0, 0 }, sv[4] = { 400, 600, 0, 0 };
	const u32 order[4] = { 3, 4, 1, 2 };
	struct na_unit u[4];
	u64 s[4];
	int i, round;
	bool trade;

	for (round = 0; round < 3; round++) {
		trade = round < 2;
		home_machine(cap, room, cls);
		room[2] = room[3] = 340;
		/* ids 1..4; listed smallest load first, so the sort matters */
		u[0] = (struct na_unit){ .demand = 900, .placed = true, .id = 1,
					 .cur = round == 1 ? 0x2 : 0x1, .score = su };
		u[1] = (struct na_unit){ .demand = 900, .placed = true, .id = 2,
					 .cur = round == 1 ? 0x1 : 0x2, .score = sv };
		u[2] = (struct na_unit){ .demand = 1000, .cur = 0x1, .id = 3,
					 .placed = true, .score = mem0 };
		u[3] = (struct na_unit){ .demand = 1000, .cur = 0x2, .id = 4,
					 .placed = true, .score = mem1 };
		assert_int_equal(na_decide_round(&m, u, 4, trade, s),
				 round == 0 ? 1 : 0);
		/* sorted: the two of 1000 first, by id, then the two of 900 */
		for (i = 0; i < 4; i++)
			assert_int_equal(u[i].id, order[i]);
		assert_int_equal(u[0].target, 0x1);
		assert_int_equal(u[1].target, 0x2);
		if (round == 0) {
			assert_int_equal(u[2].reason, NA_R_SWAP);
			assert_int_equal(u[2].target, 0x2);
			assert_int_equal(u[3].reason, NA_R_SWAP);
			assert_int_equal(u[3].target, 0x1);
		} else if (round == 1) {
			/* traded: the one that would rather be back loses more */
			assert_int_equal(u[2].reason, NA_R_STAY);
			assert_int_equal(u[2].target, 0x2);
			assert_int_equal(u[3].reason, NA_R_NO_ROOM);
			assert_int_equal(u[3].target, 0x1);
		} else {
			assert_int_equal(u[2].reason, NA_R_NO_ROOM);
			assert_int_equal(u[2].target, 0x1);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decay_converges_both_ways),
		cmocka_unit_test(classify_raw_hand_computed),
		cmocka_unit_test(classify_hysteresis),
		cmocka_unit_test(class_rules),
		cmocka_unit_test(nearby_scores_two_groups),
		cmocka_unit_test(nearby_scores_line),
		cmocka_unit_test(nearby_scores_flat),
		cmocka_unit_test(compact_sets),
		cmocka_unit_test(nodes_needed),
		cmocka_unit_test(two_half_machine_processes),
		cmocka_unit_test(home_moves_by_threshold),
		cmocka_unit_test(home_respects_classes_and_room),
		cmocka_unit_test(home_crowded_not_packed),
		cmocka_unit_test(home_placed_overfill_sheds),
		cmocka_unit_test(home_swap_reaches_memory),
		cmocka_unit_test(home_swap_guards),
		cmocka_unit_test(round_sorts_places_and_trades),
	};

	return cmocka_run_group_tests_name("policy", tests, setup_topologies,
					   NULL);
}
