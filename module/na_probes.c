// SPDX-License-Identifier: GPL-2.0
/*
 * na_probes.c - the probes: the hot path, and nothing else
 *
 * They run with a runqueue lock (or the task's pi_lock) held and
 * interrupts off, or turn interrupts off themselves.  They never
 * allocate, sleep, wake anything or take a shared lock: a task's
 * statistics live in a slot reserved at load and found through a
 * lock-free index (na_index.h), each slot is written only by its own
 * task's event stream, and per-CPU state only by its CPU.  Each probe gets
 * the module's struct na_obs as its tracepoint data.
 *
 * The context switch, the hottest path of all, does no per-task work:
 * sched_switch counts the switch and the time the outgoing task waited
 * before it ran, for its CPU alone.  A task's runtime is charged to a node when it
 * migrates away from it (see struct na_task).
 */
#include <linux/bitops.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <linux/topology.h>

#include "numa_advise.h"

/* ------------------------------------------------------------------ */
/* Slots                                                               */

static void na_task_zero(struct na_task *t, u32 gen)
{
	t->gen = gen;
	t->migrations = 0;
	t->xnode_migrations = 0;
	t->wait_ns = 0;
	memset(t->node_ns, 0, nr_node_ids * sizeof(t->node_ns[0]));
}

/*
 * na_task_snap_read - the reset's snapshot of @slot's task (struct
 * na_task_snap) into @run and @delay, if it is one of generation @gen and
 * of the owner born at @born.  One look, no wait: a probe never waits for
 * the reset on another CPU, and a snapshot being written is taken as none
 * (the caller then falls back on the time since the reset).
 */
static bool na_task_snap_read(const struct na_task *slot, u32 gen, u64 born,
			      u64 *run, u64 *delay)
{
	const struct na_task_snap *sn = &slot->snap;
	unsigned int seq = raw_read_seqcount(&sn->seq);
	bool ours;

	if (seq & 1)
		return false;
	ours = sn->gen == gen && sn->born == born;
	*run = sn->run;
	*delay = sn->delay;
	return ours && !read_seqcount_retry(&sn->seq, seq);
}

/*
 * na_task_pending - what the task of @t, a copy of @slot (or @slot
 * itself), ran (@ran) and waited (@waited) since the slot last charged
 * it, from the task's @run (sum_exec_runtime) and @delay (run_delay) now.
 *
 * Counters of an older generation than @gen are about to count from zero:
 * what is pending then is counted from what the task had when the reset
 * took its snapshot, and never from further back than the reset itself.
 * (A slot the reset took no snapshot of, its task not found, is bound by
 * the time since the reset alone.)
 */
void na_task_pending(const struct na_obs *o, const struct na_task *slot,
		     const struct na_task *t, u32 gen, u64 now, u64 run,
		     u64 delay, u64 *ran, u64 *waited)
{
	u64 run_base = t->run_base, delay_base = t->delay_base, cap = U64_MAX;

	if (unlikely(t->gen != gen)) {
		u64 snap_run, snap_delay;

		if (na_task_snap_read(slot, gen, t->born, &snap_run,
				      &snap_delay)) {
			run_base = max(run_base, snap_run);
			delay_base = max(delay_base, snap_delay);
		}
		smp_rmb();	/* gen before reset_clock, see na_obs_reset */
		cap = na_since_reset(o, now);
	}
	*ran = min(run > run_base ? run - run_base : 0, cap);
	*waited = min(delay > delay_base ? delay - delay_base : 0, cap);
}

/*
 * na_task_charge - charge @p's runtime since the last charge to @node, the
 * node it is leaving, and its waiting since to itself.  @p is off any CPU
 * (a running task is never migrated), so the kernel's counts are exact.
 */
static void na_task_charge(struct na_obs *o, struct na_task *t,
			   struct task_struct *p, u32 gen, int node)
{
	u64 run = p->se.sum_exec_runtime, delay = p->sched_info.run_delay;
	u64 now = unlikely(t->gen != gen) ? local_clock() : 0;
	u64 ran, waited;

	na_task_pending(o, t, t, gen, now, run, delay, &ran, &waited);
	if (unlikely(t->gen != gen))
		na_task_zero(t, gen);
	t->node_ns[node] += ran;
	t->wait_ns += waited;
	t->run_base = run;
	t->delay_base = delay;
}

static u32 na_slot_alloc(struct na_obs *o, struct na_cpu *pc)
{
	unsigned int s;

	/* at the cap, a look and no write to the shared line */
	if (atomic_read(&o->nr_tracked) >= o->max_tasks)
		return NA_SLOT_NONE;
	if (atomic_inc_return(&o->nr_tracked) > o->max_tasks) {
		atomic_dec(&o->nr_tracked);
		return NA_SLOT_NONE;
	}
	/* A free bit exists: we hold one of at most max_tasks reservations. */
	s = pc->slot_hint;
	for (;;) {
		/* a hint only: test_and_set_bit() below decides */
		s = data_race(find_next_zero_bit(o->slot_map, o->max_tasks, s));
		if (s >= o->max_tasks) {
			s = 0;
			continue;
		}
		if (!test_and_set_bit(s, o->slot_map))
			break;
	}
	pc->slot_hint = s + 1;
	return s;
}

/* na_slot_init - fill slot @s in for @p, before the index names it */
static struct na_task *na_slot_init(struct na_obs *o, u32 s,
				    struct task_struct *p, u32 gen, u64 now)
{
	struct na_task *t = na_slot(o, s);

	write_seqcount_begin(&t->seq);
	/* read by other tasks' lookups: see na_slot_key() */
	WRITE_ONCE(t->key, (unsigned long)p);
	t->pid = p->pid;
	t->tgid = p->tgid;
	/* Nothing before now is charged, if the address was reused. */
	t->born = now;
	/* at load (na_walk_tasks()) the task may be running elsewhere */
	t->run_base = data_race(READ_ONCE(p->se.sum_exec_runtime));
	/* and arriving on a CPU */
	t->delay_base = data_race(READ_ONCE(p->sched_info.run_delay));
	t->inherit[0] = 0;
	t->inherit[1] = 0;
	na_task_zero(t, gen);
	write_seqcount_end(&t->seq);
	return t;
}

/*
 * na_slot_free - give slot @s up, once no index entry names it: from the
 * task's free event (no writer can follow), or a slot the index had no
 * room to name
 */
static void na_slot_free(struct na_obs *o, u32 s)
{
	struct na_task *t = na_slot(o, s);

	write_seqcount_begin(&t->seq);
	WRITE_ONCE(t->key, 0);
	write_seqcount_end(&t->seq);
	clear_bit_unlock(s, o->slot_map);
	atomic_dec(&o->nr_tracked);
}

/*
 * na_task_get - @p's slot, making one on first sight
 *
 * Returns NULL when the cap is reached (counted in pc->dropped) or the
 * index has no room on @p's path (nr_unindexed): @p then has no entry and
 * is looked for again at its next event, which gets it a slot once
 * another task has freed one.  Must be called from @p's own event stream,
 * or at load before that stream's probes are attached.  The counters may
 * be of an older generation: whoever writes them first checks
 * (na_task_charge()).
 */
static struct na_task *na_task_get(struct na_obs *o, struct na_cpu *pc,
				   struct task_struct *p, u32 gen, u64 now)
{
	unsigned long key = (unsigned long)p;
	struct na_task *t;
	u32 s, *ent;

	s = na_index_find(&o->idx, o, key, &ent);
	if (likely(s != NA_SLOT_NONE))
		return na_slot(o, s);
	s = na_slot_alloc(o, pc);
	if (unlikely(s == NA_SLOT_NONE)) {
		pc->dropped++;
		return NULL;
	}
	/*
	 * The slot, then its name: a reader of the entry (na_probe_fork()
	 * reads the parent's) sees a whole slot or none (na_index.h).
	 */
	t = na_slot_init(o, s, p, gen, now);
	if (unlikely(!na_index_insert(&o->idx, key, s, &ent))) {
		na_slot_free(o, s);
		atomic_long_inc(&o->nr_unindexed);
		return NULL;
	}
	return t;
}

/* ------------------------------------------------------------------ */
/* Per-CPU state                                                       */

/*
 * na_cpu_begin - open this CPU's write section; zero its probe costs first
 * if a reset happened since it last wrote
 */
static struct na_cpu *na_cpu_begin(struct na_obs *o, u32 gen)
{
	struct na_cpu *pc = this_cpu_ptr(o->cpus);

	write_seqcount_begin(&pc->seq);
	if (unlikely(pc->gen != gen)) {
		pc->gen = gen;
		pc->dropped = 0;
		memset(pc->cost, 0, sizeof(pc->cost));
	}
	return pc;
}

/* na_cpu_timed - whether this call of probe @id is one that is timed */
static bool na_cpu_timed(const struct na_cpu *pc, enum na_probe_id id)
{
	return !(pc->cost[id].calls & (NA_TIME_EVERY - 1));
}

/* na_cost_add - account one timed call of probe @id, begun at @t0 */
static void na_cost_add(struct na_cpu *pc, enum na_probe_id id, u64 t0)
{
	struct na_probe_cost *c = &pc->cost[id];
	u64 d = local_clock() - t0;

	c->timed++;
	c->sum_ns += d;
	if (d > c->max_ns)
		c->max_ns = d;
	c->hist[na_hist_bucket(d)]++;
}

/*
 * na_cpu_end - count the call, account the probe's own cost since @t0 if
 * it is timed (@t0 not 0), and close the write section.  The bookkeeping
 * after the second clock read is not counted.
 */
static void na_cpu_end(struct na_cpu *pc, enum na_probe_id id, u64 t0)
{
	pc->cost[id].calls++;
	if (t0)
		na_cost_add(pc, id, t0);
	write_seqcount_end(&pc->seq);
}

/* ------------------------------------------------------------------ */
/* The probes                                                          */

/*
 * na_switch_count - the whole of what a context switch costs us: the task
 * leaving ran here, and before that waited (its run_delay grew when it
 * arrived, after the tracepoint that switched it in), so its wait is
 * this CPU's; the task arriving is remembered with its run_delay so far.
 * A CPU that has not seen @prev arrive (at load, or after lean mode)
 * charges nothing for it.
 */
static __always_inline void na_switch_count(struct na_cpu_sched *s,
					    struct task_struct *prev,
					    struct task_struct *next)
{
	if (s->curr == prev)
		WRITE_ONCE(s->wait_ns, s->wait_ns + prev->sched_info.run_delay -
				       s->curr_delay);
	s->curr = next;
	s->curr_delay = next->sched_info.run_delay;
}

/*
 * na_switch_timed - one switch in NA_SWITCH_TIME_EVERY: the same work,
 * timed.  Out of line, so the untimed path stays a few instructions.
 */
static noinline void na_switch_timed(struct na_obs *o,
				     struct task_struct *prev,
				     struct task_struct *next)
{
	u64 t0 = local_clock();
	struct na_cpu *pc = na_cpu_begin(o, READ_ONCE(o->gen));

	na_switch_count(&pc->s, prev, next);
	na_cost_add(pc, NA_PROBE_SWITCH, t0);
	write_seqcount_end(&pc->seq);
}

void na_probe_switch(void *data, bool preempt, struct task_struct *prev,
		     struct task_struct *next, unsigned int prev_state)
{
	struct na_obs *o = data;
	struct na_cpu *pc = this_cpu_ptr(o->cpus);
	u64 n = pc->s.switches + 1;

	WRITE_ONCE(pc->s.switches, n);
	if (unlikely(!(n & (NA_SWITCH_TIME_EVERY - 1))))
		na_switch_timed(o, prev, next);
	else
		na_switch_count(&pc->s, prev, next);
}

void na_probe_migrate(void *data, struct task_struct *p, int dest_cpu)
{
	struct na_obs *o = data;
	u32 gen = READ_ONCE(o->gen);
	struct na_cpu *pc = na_cpu_begin(o, gen);
	u64 t0 = na_cpu_timed(pc, NA_PROBE_MIGRATE) ? local_clock() : 0;
	int from = task_cpu(p);
	struct na_task *t;

	lockdep_assert_irqs_disabled();

	/* It fires before p's CPU changes, also when it does not change. */
	if (from != dest_cpu)
		t = na_task_get(o, pc, p, gen, t0 ?: local_clock());
	else
		t = NULL;
	if (t) {
		int node = per_cpu_ptr(o->cpus, from)->node;

		write_seqcount_begin(&t->seq);
		na_task_charge(o, t, p, gen, node);
		t->migrations++;
		if (node != per_cpu_ptr(o->cpus, dest_cpu)->node)
			t->xnode_migrations++;
		write_seqcount_end(&t->seq);
	}
	na_cpu_end(pc, NA_PROBE_MIGRATE, t0);
}

/*
 * sched_process_free fires from an RCU callback after the task's last
 * switch, with interrupts on and maybe preemptible: turn interrupts off so
 * this CPU's state has one writer at a time, as in the other probes.
 */
void na_probe_free(void *data, struct task_struct *p)
{
	struct na_obs *o = data;
	unsigned long flags;
	struct na_cpu *pc;
	u32 s, *ent;
	u64 t0;

	local_irq_save(flags);
	pc = na_cpu_begin(o, READ_ONCE(o->gen));
	t0 = na_cpu_timed(pc, NA_PROBE_FREE) ? local_clock() : 0;
	s = na_index_find(&o->idx, o, (unsigned long)p, &ent);
	if (s != NA_SLOT_NONE) {
		na_index_remove(ent);	/* the name, then the slot */
		na_slot_free(o, s);
	}
	na_cpu_end(pc, NA_PROBE_FREE, t0);
	local_irq_restore(flags);
}

/*
 * sched_process_fork fires in the parent, before the child can run, with
 * interrupts on.  A child copies its parent's CPU mask: if we narrowed the
 * parent, the child carries our mask too, so it is marked for the engine
 * to adopt (and restore).  Both
 * the parent's current and previous placements are passed on: a fork that
 * races a move copies one or the other.
 */
void na_probe_fork(void *data, struct task_struct *parent,
		   struct task_struct *child)
{
	struct na_obs *o = data;
	u64 nodes[2] = { 0, 0 };
	unsigned long flags;
	struct na_task *t;
	struct na_cpu *pc;
	u32 gen, s, *ent;
	u64 t0;

	local_irq_save(flags);
	gen = READ_ONCE(o->gen);
	pc = na_cpu_begin(o, gen);
	t0 = na_cpu_timed(pc, NA_PROBE_FORK) ? local_clock() : 0;
	s = na_index_find(&o->idx, o, (unsigned long)parent, &ent);
	if (s != NA_SLOT_NONE) {
		const struct na_task *pt = na_slot(o, s);
		struct na_pub_val pub;
		u64 born, inherit[2];
		/*
		 * The parent's own slot: only its own events write it, and the
		 * walk at load, which may be filling it in on another CPU now.
		 * One look, no wait: a slot being written is taken as none.
		 */
		unsigned int seq = raw_read_seqcount(&pt->seq);

		born = pt->born;
		inherit[0] = pt->inherit[0];
		inherit[1] = pt->inherit[1];
		if (seq & 1 || READ_ONCE(pt->key) != (unsigned long)parent ||
		    read_seqcount_retry(&pt->seq, seq))
			goto child;
		na_pub_read(&o->pub[s], &pub);
		nodes[0] = pub.last_nodes;
		nodes[1] = pub.prev_nodes;
		/*
		 * A parent the engine has not seen yet may carry a mask it
		 * inherited itself: pass that on.
		 */
		if (pub.key != (unsigned long)parent || pub.born != born) {
			nodes[0] = inherit[0];
			nodes[1] = inherit[1];
		}
	}
child:
	/*
	 * The child's slot now, its first event, while it cannot run: it
	 * may never migrate, and its runtime is charged from its slot.
	 */
	t = na_task_get(o, pc, child, gen, t0 ?: local_clock());
	if (t && (nodes[0] || nodes[1])) {
		write_seqcount_begin(&t->seq);
		t->inherit[0] = nodes[0];
		t->inherit[1] = nodes[1];
		write_seqcount_end(&t->seq);
	} else if (nodes[0] || nodes[1]) {
		atomic_long_inc(&o->nr_lost_inherit);
	}
	na_cpu_end(pc, NA_PROBE_FORK, t0);
	local_irq_restore(flags);
}

/*
 * na_task_seen - give @p, found running at load, its slot (see
 * na_walk_tasks()): called before @p's own migrate events can reach a
 * probe, so the slot still has one writer at a time.
 */
void na_task_seen(struct na_obs *o, struct task_struct *p)
{
	u32 gen = READ_ONCE(o->gen);
	unsigned long flags;
	struct na_cpu *pc;

	/* in this CPU's write section, as a probe: it may count a refusal */
	local_irq_save(flags);
	pc = na_cpu_begin(o, gen);
	na_task_get(o, pc, p, gen, local_clock());
	write_seqcount_end(&pc->seq);
	local_irq_restore(flags);
}
