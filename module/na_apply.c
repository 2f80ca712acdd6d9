// SPDX-License-Identifier: GPL-2.0
/*
 * na_apply.c - making masks follow the advice: narrowing a task's CPU
 * mask (place), giving it back (restore), and taking over the masks that
 * children of placed tasks inherit (adopt).  All under the engine's mutex.
 *
 * The rule for every mask: we narrow only one that allows every CPU, or
 * the one we set ourselves and nobody changed since, and we put back only
 * the one we set.  A mask someone else changed is theirs from then on.
 */
#include <linux/cpumask.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/sched/task.h>
#include <linux/topology.h>

#include "numa_advise.h"
#include "na_trace.h"

/* na_get_task - a reference to @r's task if it is still alive, or NULL */
struct task_struct *na_get_task(const struct na_rec *r)
{
	struct task_struct *p;

	rcu_read_lock();
	/* Our pids are global ones: not the caller's namespace's. */
	p = pid_task(find_pid_ns(r->pid, &init_pid_ns), PIDTYPE_PID);
	if (p && (unsigned long)p == r->pub->v.key)
		get_task_struct(p);
	else
		p = NULL;
	rcu_read_unlock();
	return p;
}

/* na_rec_narrowing - tell the fork probe @nodes is @r's mask from now */
void na_rec_narrowing(struct na_rec *r, u64 nodes)
{
	if (nodes != r->pub->v.last_nodes) {
		struct na_pub_val v = r->pub->v;

		v.prev_nodes = v.last_nodes;
		v.last_nodes = nodes;
		na_pub_set(r->pub, &v);
	}
	r->last_age = 0;
}

/* na_nodes_cpumask - the online CPUs of @nodes */
static void na_nodes_cpumask(u64 nodes, struct cpumask *mask)
{
	int n;

	cpumask_clear(mask);
	for (n = 0; n < nr_node_ids && n < NA_MAX_NODES; n++)
		if (nodes >> n & 1)
			cpumask_or(mask, mask, cpumask_of_node(n));
	cpumask_and(mask, mask, cpu_online_mask);
}

/*
 * A task's cpus_mask changes under its pi_lock (and its runqueue's lock):
 * read it under the former, as sched_getaffinity() does.  cpus_mask, not
 * cpus_ptr: a task in a migrate_disable() section shows a one-CPU
 * cpus_ptr for a while.
 */

/* na_mask_is - is @p's mask @mask? */
static bool na_mask_is(struct task_struct *p, const struct cpumask *mask)
{
	unsigned long flags;
	bool eq;

	raw_spin_lock_irqsave(&p->pi_lock, flags);
	eq = cpumask_equal(&p->cpus_mask, mask);
	raw_spin_unlock_irqrestore(&p->pi_lock, flags);
	return eq;
}

/* na_mask_has_all - does @p's mask allow every CPU? */
static bool na_mask_has_all(struct task_struct *p)
{
	unsigned long flags;
	bool all;

	raw_spin_lock_irqsave(&p->pi_lock, flags);
	all = cpumask_subset(cpu_possible_mask, &p->cpus_mask);
	raw_spin_unlock_irqrestore(&p->pi_lock, flags);
	return all;
}

/*
 * na_adopt - @r's task was forked by a task we had narrowed, to one of
 * @nodes (now and before); if it still carries that mask, the mask is ours
 * to put back.  Its own children are then passed the same.
 */
void na_adopt(struct na_engine *e, struct na_rec *r, const u64 *nodes,
	      u64 now)
{
	struct task_struct *p = na_get_task(r);
	int i;

	if (!p)
		return;
	for (i = 0; i < 2; i++) {
		if (!nodes[i])
			continue;
		na_nodes_cpumask(nodes[i], e->mask_tmp);
		if (!na_mask_is(p, e->mask_tmp))
			continue;
		cpumask_copy(na_rec_mask(e, r), e->mask_tmp);
		r->placed = nodes[i];
		r->moved_at = now;
		na_rec_narrowing(r, nodes[i]);
		trace_numa_advise_place(r->pid, r->tgid, r->comm, 0, nodes[i],
					NA_R_ADOPTED);
		break;
	}
	put_task_struct(p);
}

/*
 * na_place - narrow @r's task to the CPUs of @nodes, as sched_setaffinity()
 * would, but only a mask nobody else narrowed: all CPUs, or the one we set
 * before.  A mask changed behind our back is the changer's from then on.
 *
 * Between the check and set_cpus_allowed_ptr() a user's own
 * sched_setaffinity() could still slip in and be overwritten: the kernel
 * offers modules no compare-and-set of a task's mask.  The next round sees
 * our mask and the task stays ours; a user who pins again wins.  One that
 * comes after ours is seen at once: the mask is then not the one we set.
 */
void na_place(struct na_engine *e, struct na_rec *r, u64 nodes, u64 now)
{
	struct task_struct *p = na_get_task(r);
	bool widen = false;

	if (!p)
		return;
	if (r->placed) {
		if (!na_mask_is(p, na_rec_mask(e, r)))
			goto overridden;
		/*
		 * Placed while a CPU of its nodes was offline, and the CPU
		 * is back: the mask takes it in, which is not a move.
		 */
		na_nodes_cpumask(nodes, e->mask_tmp);
		widen = r->placed == nodes;
		if (widen && cpumask_subset(e->mask_tmp, na_rec_mask(e, r)))
			goto put;
	} else if ((READ_ONCE(p->flags) &
		    (PF_KTHREAD | PF_NO_SETAFFINITY | PF_EXITING)) ||
		   READ_ONCE(p->policy) == SCHED_DEADLINE ||
		   !na_mask_has_all(p)) {
		/* Deadline tasks: their admission control is per root domain. */
		goto put;
	}
	na_nodes_cpumask(nodes, e->mask_tmp);
	if (cpumask_empty(e->mask_tmp))
		goto put;
	/* Before the mask changes: a child forked meanwhile gets either. */
	na_rec_narrowing(r, nodes);
	if (set_cpus_allowed_ptr(p, e->mask_tmp)) {
		e->stats.apply_errors++;
		goto put;
	}
	if (!widen) {
		trace_numa_advise_place(r->pid, r->tgid, r->comm, r->placed,
					nodes, r->reason);
		r->moved_at = now;
		e->stats.moves++;
	}
	/* A sched_setaffinity() since ours: the mask is the user's. */
	if (!na_mask_is(p, e->mask_tmp))
		goto overridden;
	cpumask_copy(na_rec_mask(e, r), e->mask_tmp);
	r->placed = nodes;
put:
	put_task_struct(p);
	return;
overridden:
	r->placed = 0;
	e->stats.overridden++;
	put_task_struct(p);
}

/*
 * na_restore - give @r's task back all CPUs, unless someone changed its
 * mask after us.  We only ever narrowed masks that allowed every CPU.
 */
void na_restore(struct na_engine *e, struct na_rec *r)
{
	struct task_struct *p = na_get_task(r);

	if (p) {
		if (!na_mask_is(p, na_rec_mask(e, r))) {
			e->stats.overridden++;
		} else if (set_cpus_allowed_ptr(p, cpu_possible_mask)) {
			e->stats.apply_errors++;
		} else {
			e->stats.restores++;
			r->restored_at = local_clock();
			trace_numa_advise_place(r->pid, r->tgid, r->comm,
						r->placed, 0, NA_R_RESTORED);
		}
		put_task_struct(p);
	}
	r->placed = 0;
	r->last_age = 0;
}

/*
 * na_restore_all - put back every mask we narrowed, also those children
 * of placed tasks inherited that the engine had not seen yet.  Only the
 * records' identities are brought up to date, not their loads: that is
 * the rounds' job, over whole intervals.
 */
void na_restore_all(struct na_engine *e)
{
	struct na_obs *o = e->obs;
	struct na_task *t = e->snap;
	u64 now = local_clock();
	unsigned long s;

	na_for_each_slot(o, s) {
		struct na_rec *r = na_rec(e, s);

		if (na_task_read(o, s, t) &&
		    (r->pub->v.key != t->key || r->pub->v.born != t->born))
			na_rec_start(e, s, t, now);
		cond_resched();
	}
	na_records_forget(e);
	for_each_set_bit(s, e->rec_map, o->max_tasks) {
		if (na_rec(e, s)->placed)
			na_restore(e, na_rec(e, s));
		cond_resched();
	}
}
