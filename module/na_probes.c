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

/* na_task_refresh - name and ids may change (exec, prctl): keep them current */
static void na_task_refresh(struct na_task *t, struct task_struct *p)
{
	t->pid = p->pid;
	t->tgid = p->tgid;
	/*
	 * A write to /proc/PID/comm renames a task from outside, under its
	 * task_lock(), which a probe cannot take: a name torn by it shows
	 * until the task's next event.
	 */
	data_race(memcpy(t->comm, p->comm, TASK_COMM_LEN));
	t->pflags = p->flags;
	t->nr_cpus_allowed = p->nr_cpus_allowed;
}

static u32 na_slot_alloc(struct na_obs *o, struct na_cpu *pc)
{
	unsigned int s;

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

static struct na_task *na_slot_init(struct na_obs *o, u32 s,
				    struct task_struct *p, u32 gen, u64 now)
{
	struct na_task *t = na_slot(o, s);

	write_seqcount_begin(&t->seq);
	t->key = (unsigned long)p;
	/* Not charged for anything before now, if the address was reused. */
	t->born = now;
	t->last_out = now;
	t->wait_since = 0;
	t->wait_cpu = -1;
	t->inherit[0] = 0;
	t->inherit[1] = 0;
	na_task_refresh(t, p);
	na_task_zero(t, gen);
	write_seqcount_end(&t->seq);
	return t;
}

/* na_slot_free - called from the task's free event; no writer can follow */
static void na_slot_free(struct na_obs *o, u32 s)
{
	struct na_task *t = na_slot(o, s);

	write_seqcount_begin(&t->seq);
	t->key = 0;
	write_seqcount_end(&t->seq);
	clear_bit_unlock(s, o->slot_map);
	atomic_dec(&o->nr_tracked);
}

/*
 * na_task_get - @p's slot, making one on first sight
 *
 * Returns NULL when the cap is reached: the task then waits, counted in
 * nr_waiting, and gets a slot at a later event once another task has
 * freed one.  Must be called from @p's own event stream.
 */
static struct na_task *na_task_get(struct na_obs *o, struct na_cpu *pc,
				   struct task_struct *p, u32 gen, u64 now)
{
	unsigned long key = (unsigned long)p;
	struct na_ient *e;
	struct na_task *t;
	u32 s;

	e = na_index_find(&o->idx, key);
	if (likely(e)) {
		s = READ_ONCE(e->slot);
		if (likely(s != NA_SLOT_NONE)) {
			t = na_slot(o, s);
			if (unlikely(t->gen != gen)) {
				write_seqcount_begin(&t->seq);
				na_task_zero(t, gen);
				write_seqcount_end(&t->seq);
			}
			return t;
		}
		/* Waiting for a slot: try again only if one may be free. */
		if (atomic_read(&o->nr_tracked) >= o->max_tasks)
			return NULL;
		s = na_slot_alloc(o, pc);
		if (s == NA_SLOT_NONE)
			return NULL;
		atomic_dec(&o->nr_waiting);
		WRITE_ONCE(e->slot, s);
		return na_slot_init(o, s, p, gen, now);
	}

	e = na_index_insert(&o->idx, key);
	if (unlikely(!e)) {
		atomic_long_inc(&o->nr_unindexed);
		return NULL;
	}
	s = na_slot_alloc(o, pc);
	WRITE_ONCE(e->slot, s);
	if (unlikely(s == NA_SLOT_NONE)) {
		atomic_inc(&o->nr_waiting);
		atomic_long_inc(&o->nr_dropped);
		return NULL;
	}
	return na_slot_init(o, s, p, gen, now);
}

/* ------------------------------------------------------------------ */
/* Per-CPU state                                                       */

/*
 * na_cpu_begin - open this CPU's write section; zero its counters first if a
 * reset happened since it last wrote
 */
static struct na_cpu *na_cpu_begin(struct na_obs *o, u32 gen)
{
	struct na_cpu *pc = this_cpu_ptr(o->cpus);

	write_seqcount_begin(&pc->seq);
	if (unlikely(pc->gen != gen)) {
		smp_rmb();	/* gen before reset_clock, see na_obs_reset */
		if (pc->s.last)
			pc->s.last = na_since(o, pc->s.last);
		pc->gen = gen;
		pc->s.busy_ns = 0;
		pc->s.idle_ns = 0;
		pc->s.wait_ns = 0;
		pc->s.switches = 0;
		memset(pc->cost, 0, sizeof(pc->cost));
	}
	return pc;
}

/* na_cpu_timed - whether this call of probe @id is one that is timed */
static bool na_cpu_timed(const struct na_cpu *pc, enum na_probe_id id)
{
	return !(pc->cost[id].calls & (NA_TIME_EVERY - 1));
}

/*
 * na_cpu_end - count the call, account the probe's own cost since @t0 if
 * it is timed (@t0 not 0), and close the write section.  The bookkeeping
 * after the second clock read is not counted.
 */
static void na_cpu_end(struct na_cpu *pc, enum na_probe_id id, u64 t0)
{
	struct na_probe_cost *c = &pc->cost[id];
	u64 d;

	c->calls++;
	if (t0) {
		d = local_clock() - t0;
		c->timed++;
		c->sum_ns += d;
		if (d > c->max_ns)
			c->max_ns = d;
		c->hist[na_hist_bucket(d)]++;
	}
	write_seqcount_end(&pc->seq);
}

/* ------------------------------------------------------------------ */
/* The probes                                                          */

void na_probe_switch(void *data, bool preempt, struct task_struct *prev,
		     struct task_struct *next, unsigned int prev_state)
{
	struct na_obs *o = data;
	u64 now = local_clock();
	u32 gen = READ_ONCE(o->gen);
	struct na_cpu *pc = na_cpu_begin(o, gen);
	u64 delta = 0;

	lockdep_assert_irqs_disabled();

	/*
	 * Nothing is charged for a run that started before we could see it,
	 * nor for a CPU on its way offline.
	 */
	if (pc->s.last && now > pc->s.last && !pc->s.offline)
		delta = now - pc->s.last;
	pc->s.switches++;

	if (is_idle_task(prev)) {
		pc->s.idle_ns += delta;
	} else {
		struct na_task *t;

		pc->s.busy_ns += delta;
		/* The task switched in here last time: its slot is cached. */
		t = pc->s.curr_key == (unsigned long)prev ? pc->s.curr : NULL;
		if (!t)
			t = na_task_get(o, pc, prev, gen, now);
		if (t) {
			write_seqcount_begin(&t->seq);
			if (unlikely(t->gen != gen))
				na_task_zero(t, gen);
			t->node_ns[pc->node] += delta;
			t->last_out = now;
			/* Still runnable: it waits from now (runnable pressure). */
			t->wait_since = preempt || !prev_state ? now : 0;
			t->wait_cpu = smp_processor_id();
			na_task_refresh(t, prev);
			write_seqcount_end(&t->seq);
		}
	}

	if (is_idle_task(next)) {
		pc->s.curr_key = 0;
		pc->s.curr = NULL;
	} else {
		struct na_task *t = na_task_get(o, pc, next, gen, now);

		if (t && t->wait_since) {
			u64 since = na_since(o, t->wait_since);

			write_seqcount_begin(&t->seq);
			if (unlikely(t->gen != gen))
				na_task_zero(t, gen);
			if (now > since) {
				/*
				 * The node it waited on is pressed, not the one
				 * that took it: a task pulled across nodes is
				 * charged to itself only.
				 */
				if (t->wait_cpu >= 0 &&
				    cpu_to_node(t->wait_cpu) == pc->node)
					pc->s.wait_ns += now - since;
				t->wait_ns += now - since;
			}
			t->wait_since = 0;
			write_seqcount_end(&t->seq);
		}
		pc->s.curr_key = (unsigned long)next;
		pc->s.curr = t;
	}
	pc->s.last = now;
	na_cpu_end(pc, NA_PROBE_SWITCH,
		   na_cpu_timed(pc, NA_PROBE_SWITCH) ? now : 0);
}

void na_probe_migrate(void *data, struct task_struct *p, int dest_cpu)
{
	struct na_obs *o = data;
	u32 gen = READ_ONCE(o->gen);
	struct na_cpu *pc = na_cpu_begin(o, gen);
	u64 t0 = na_cpu_timed(pc, NA_PROBE_MIGRATE) ? local_clock() : 0;
	struct na_task *t;

	lockdep_assert_irqs_disabled();

	/* It fires before p's CPU changes, also when it does not change. */
	if (task_cpu(p) != dest_cpu)
		t = na_task_get(o, pc, p, gen, t0 ?: local_clock());
	else
		t = NULL;
	if (t) {
		write_seqcount_begin(&t->seq);
		t->migrations++;
		if (cpu_to_node(task_cpu(p)) != cpu_to_node(dest_cpu))
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
	struct na_ient *e;
	struct na_cpu *pc;
	u64 t0;

	local_irq_save(flags);
	pc = na_cpu_begin(o, READ_ONCE(o->gen));
	t0 = na_cpu_timed(pc, NA_PROBE_FREE) ? local_clock() : 0;
	e = na_index_find(&o->idx, (unsigned long)p);
	if (e) {
		u32 s = READ_ONCE(e->slot);

		if (s != NA_SLOT_NONE)
			na_slot_free(o, s);
		else
			atomic_dec(&o->nr_waiting);
		na_index_remove(e);
	}
	na_cpu_end(pc, NA_PROBE_FREE, t0);
	local_irq_restore(flags);
}

/*
 * sched_process_fork fires in the parent, before the child can run, with
 * interrupts on.  A child copies its parent's CPU mask: if we narrowed the
 * parent, the child carries our mask too, so it is marked for the engine
 * to adopt (and restore).  Its slot is made now, as its first event.  Both
 * the parent's current and previous placements are passed on: a fork that
 * races a move copies one or the other.
 */
void na_probe_fork(void *data, struct task_struct *parent,
		   struct task_struct *child)
{
	struct na_obs *o = data;
	u64 nodes[2] = { 0, 0 };
	unsigned long flags;
	struct na_ient *e;
	struct na_cpu *pc;
	u32 gen;
	u64 t0;

	local_irq_save(flags);
	gen = READ_ONCE(o->gen);
	pc = na_cpu_begin(o, gen);
	t0 = na_cpu_timed(pc, NA_PROBE_FORK) ? local_clock() : 0;
	e = na_index_find(&o->idx, (unsigned long)parent);
	if (e) {
		u32 s = READ_ONCE(e->slot);

		if (s != NA_SLOT_NONE) {
			/* The parent's own slot: only its own events write it. */
			const struct na_task *pt = na_slot(o, s);
			struct na_pub_val pub;

			na_pub_read(&o->pub[s], &pub);
			nodes[0] = pub.last_nodes;
			nodes[1] = pub.prev_nodes;
			/*
			 * A parent the engine has not seen yet may carry a
			 * mask it inherited itself: pass that on.
			 */
			if (pub.key != (unsigned long)parent ||
			    pub.born != pt->born) {
				nodes[0] = pt->inherit[0];
				nodes[1] = pt->inherit[1];
			}
		}
	}
	if (nodes[0] || nodes[1]) {
		struct na_task *t = na_task_get(o, pc, child, gen,
						t0 ?: local_clock());

		if (t) {
			write_seqcount_begin(&t->seq);
			t->inherit[0] = nodes[0];
			t->inherit[1] = nodes[1];
			write_seqcount_end(&t->seq);
		} else {
			atomic_long_inc(&o->nr_lost_inherit);
		}
	}
	na_cpu_end(pc, NA_PROBE_FORK, t0);
	local_irq_restore(flags);
}

/*
 * na_cpu_hotplug - mark @cpu up or going down.  AP hotplug callbacks run
 * on the CPU concerned; with interrupts off no probe can interleave, so
 * the per-CPU state keeps its single writer.
 */
void na_cpu_hotplug(struct na_obs *o, unsigned int cpu, bool offline)
{
	unsigned long flags;
	struct na_cpu *pc;

	local_irq_save(flags);
	WARN_ON_ONCE(smp_processor_id() != cpu);
	pc = this_cpu_ptr(o->cpus);
	write_seqcount_begin(&pc->seq);
	/*
	 * Coming up, time counts from now, not from before it went down; at
	 * load, from now unless a switch has already been seen here.
	 */
	if (!offline && (pc->s.offline || !pc->s.last))
		pc->s.last = local_clock();
	pc->s.offline = offline;
	write_seqcount_end(&pc->seq);
	local_irq_restore(flags);
}
