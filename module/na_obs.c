// SPDX-License-Identifier: GPL-2.0
/*
 * na_obs.c - what the probes keep: its memory, attaching the probes to
 * the tracepoints (and lean mode), the tasks already running at load, the
 * CPUs' busy and idle time and CPU hotplug, and consistent copies of it
 * all for the engine and the debugfs readers (process context)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/cpuhotplug.h>
#include <linux/delay.h>
#include <linux/kernel_stat.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/tick.h>
#include <linux/topology.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>

#include "numa_advise.h"

/* ------------------------------------------------------------------ */
/* Memory                                                              */

/*
 * na_obs_alloc - reserve the slots (and what the engine publishes of
 * each), the index and the per-CPU state for @max_tasks tasks
 */
int na_obs_alloc(struct na_obs *o, unsigned int max_tasks)
{
	u32 entries = max_t(u32, NA_INDEX_MIN_ENTRIES,
			    roundup_pow_of_two(NA_INDEX_PER_SLOT * max_tasks));
	size_t map_bytes = BITS_TO_LONGS(max_tasks) * sizeof(long);
	int cpu;
	u32 s;

	o->max_tasks = max_tasks;
	o->stride = ALIGN(struct_size((struct na_task *)NULL, node_ns,
				      nr_node_ids), L1_CACHE_BYTES);
	o->slots = vzalloc(array_size(max_tasks, o->stride));
	if (!o->slots)
		goto fail;
	o->pub = vzalloc(array_size(max_tasks, sizeof(*o->pub)));
	if (!o->pub)
		goto free_slots;
	/* zeroed: every entry EMPTY */
	o->idx.ent = vzalloc(array_size(entries, sizeof(*o->idx.ent)));
	if (!o->idx.ent)
		goto free_pub;
	o->idx.mask = entries - 1;
	o->slot_map = bitmap_zalloc(max_tasks, GFP_KERNEL);
	if (!o->slot_map)
		goto free_index;
	o->cpus = alloc_percpu(struct na_cpu);
	if (!o->cpus)
		goto free_map;
	o->clock = kcalloc(nr_cpu_ids, sizeof(*o->clock), GFP_KERNEL);
	if (!o->clock)
		goto free_cpus;
	spin_lock_init(&o->clock_lock);

	for (s = 0; s < max_tasks; s++) {
		seqcount_init(&na_slot(o, s)->seq);
		seqcount_init(&na_slot(o, s)->snap.seq);
		seqcount_init(&o->pub[s].seq);
		o->pub[s].v.home = -1;
		o->pub[s].v.mem = -1;
	}
	for_each_possible_cpu(cpu) {
		struct na_cpu *pc = per_cpu_ptr(o->cpus, cpu);

		seqcount_init(&pc->seq);
		pc->node = cpu_to_node(cpu);
		/* A CPU without a node (can it?) is charged to node 0. */
		if (pc->node < 0 || pc->node >= nr_node_ids)
			pc->node = 0;
	}
	atomic_set(&o->nr_tracked, 0);
	atomic_long_set(&o->nr_unindexed, 0);
	atomic_long_set(&o->nr_lost_inherit, 0);
	o->mem_bytes = max_tasks * (o->stride + sizeof(*o->pub)) +
		       entries * sizeof(*o->idx.ent) + map_bytes +
		       num_possible_cpus() * sizeof(struct na_cpu) +
		       nr_cpu_ids * sizeof(*o->clock);
	return 0;

free_cpus:
	free_percpu(o->cpus);
free_map:
	bitmap_free(o->slot_map);
free_index:
	vfree(o->idx.ent);
free_pub:
	vfree(o->pub);
free_slots:
	vfree(o->slots);
fail:
	pr_err("cannot reserve memory for %u tasks\n", max_tasks);
	return -ENOMEM;
}

void na_obs_free(struct na_obs *o)
{
	kfree(o->clock);
	free_percpu(o->cpus);
	bitmap_free(o->slot_map);
	vfree(o->idx.ent);
	vfree(o->pub);
	vfree(o->slots);
}

/* ------------------------------------------------------------------ */
/* Tracepoints: looked up by name, their symbols are not exported      */

static struct na_tracepoint {
	const char *name;
	void *probe;
	struct tracepoint *tp;
} na_tps[] = {
	/*
	 * Registered in this order, unregistered in reverse: the free probe
	 * is there before any task can get a slot, so no slot outlives its
	 * task (a stale one would be inherited by the next task allocated
	 * at the same address); fork's before the tasks already running are
	 * walked (NA_TPS_BEFORE_WALK), so every task gets its slot from one
	 * or the other.  sched_switch stays last: lean mode detaches it
	 * alone.
	 */
	{ "sched_process_free", na_probe_free },
	{ "sched_process_fork", na_probe_fork },
	{ "sched_migrate_task", na_probe_migrate },
	{ "sched_switch", na_probe_switch },
};

#define NA_TPS_BEFORE_WALK	2
#define NA_TP_SWITCH		(ARRAY_SIZE(na_tps) - 1)

static void na_tp_match(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(na_tps); i++)
		if (!strcmp(tp->name, na_tps[i].name))
			na_tps[i].tp = tp;
}

/* na_obs_check - does the kernel have every tracepoint we attach to? */
int na_obs_check(void)
{
	int i;

	for_each_kernel_tracepoint(na_tp_match, NULL);
	for (i = 0; i < ARRAY_SIZE(na_tps); i++) {
		if (!na_tps[i].tp) {
			pr_err("kernel has no tracepoint %s; not loading\n",
			       na_tps[i].name);
			return -ENOENT;
		}
	}
	return 0;
}

/* na_tp_unregister - detach probes @from up to @to (excluded), in reverse */
static void na_tp_unregister(struct na_obs *o, int from, int to)
{
	while (to-- > from)
		tracepoint_probe_unregister(na_tps[to].tp, na_tps[to].probe, o);
	/* Wait for probes still running on other CPUs. */
	tracepoint_synchronize_unregister();
}

/* na_tp_register - attach probes @from up to @to (excluded), in order */
static int na_tp_register(struct na_obs *o, int from, int to)
{
	int i, ret;

	for (i = from; i < to; i++) {
		ret = tracepoint_probe_register(na_tps[i].tp, na_tps[i].probe,
						o);
		if (ret) {
			pr_err("cannot attach to tracepoint %s: %d\n",
			       na_tps[i].name, ret);
			na_tp_unregister(o, from, i);
			return ret;
		}
	}
	return 0;
}

/* how many probes are attached, with lean mode as it is */
static int na_tps_attached(const struct na_obs *o)
{
	return ARRAY_SIZE(na_tps) - o->lean;
}

/*
 * na_switch_forget - every CPU forgets which task it saw arrive: after a
 * time detached, the switch probe must not charge a wait it did not see
 * begin.  Called with the switch probe detached.
 */
static void na_switch_forget(struct na_obs *o)
{
	int cpu;

	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(o->cpus, cpu)->s.curr, NULL);
}

/*
 * na_obs_set_lean - detach the switch probe (lean) or attach it again.
 * Residency stays exact either way; in lean mode a CPU's waiting time and
 * switch count stand still.
 */
int na_obs_set_lean(struct na_obs *o, bool lean)
{
	int ret = 0;

	mutex_lock(&o->tp_lock);
	if (lean == o->lean)
		goto unlock;
	if (!o->attached) {
		/* set at load: na_obs_attach() attaches as it says */
		WRITE_ONCE(o->lean, lean);
		goto unlock;
	}
	if (lean) {
		na_tp_unregister(o, NA_TP_SWITCH, NA_TP_SWITCH + 1);
	} else {
		na_switch_forget(o);
		ret = na_tp_register(o, NA_TP_SWITCH, NA_TP_SWITCH + 1);
		if (ret)
			goto unlock;
	}
	WRITE_ONCE(o->lean, lean);
unlock:
	mutex_unlock(&o->tp_lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The tasks already running at load                                   */

#define NA_WALK_BATCH	1024	/* tasks between two preemption points */
#define NA_WALK_TRIES	3	/* walks cut short by a task that died */
#define NA_WALK_NEW_TRIES	20	/* walks again for forks in flight, 1-2 ms apart */

/*
 * na_walk_break - a preemption point in the middle of the task list, as
 * the hung task detector takes one: false if @g or @t died meanwhile and
 * the walk cannot go on from them.
 */
static bool na_walk_break(struct task_struct *g, struct task_struct *t)
{
	bool alive;

	get_task_struct(g);
	get_task_struct(t);
	rcu_read_unlock();
	cond_resched();
	rcu_read_lock();
	alive = pid_alive(g) && pid_alive(t);
	put_task_struct(t);
	put_task_struct(g);
	return alive;
}

/*
 * na_walk_once - slots for the tasks not yet tracked.  Returns how many
 * children still being forked it had to leave for later (see below), or
 * -EAGAIN if a task it stood on died and it must start again.  @attached:
 * ktime_get_ns() once every fork from then on calls the fork probe.
 */
static int na_walk_once(struct na_obs *o, u64 attached)
{
	struct task_struct *g, *t;
	unsigned int n = 0;
	u32 *ent;
	int left = 0;

	rcu_read_lock();
	for_each_process_thread(g, t) {
		bool is_new = READ_ONCE(t->__state) == TASK_NEW;

		/*
		 * State before slot: a child the fork probe gave a slot was
		 * put in the index by a fully ordered cmpxchg() before it was
		 * woken (na_index_insert()).
		 */
		smp_rmb();
		if (na_index_find(&o->idx, o, (unsigned long)t, &ent) !=
		    NA_SLOT_NONE)
			goto next;
		/*
		 * A child still being forked gets its slot from the fork
		 * probe, certainly if its fork began after the probe was
		 * attached (copy_process() sets start_time before the child
		 * is on this list).  Older ones may have had their fork event
		 * before: they are given a slot here once they are woken, a
		 * few microseconds on.  Which of the two such a child is
		 * cannot be told yet, and only one may make the slot.
		 */
		if (is_new) {
			if (t->start_time < attached)
				left++;
		} else {
			na_task_seen(o, t);
		}
next:
		/* a double loop: leave both, as the hung task detector does */
		if (++n % NA_WALK_BATCH == 0 && !na_walk_break(g, t)) {
			left = -EAGAIN;
			goto unlock;
		}
	}
unlock:
	rcu_read_unlock();
	return left;
}

/*
 * na_walk_tasks - give every task running at load its slot: a task that
 * never migrates would otherwise never be charged.  Runs with the fork
 * and free probes attached and the migrate probe not yet, so a task's
 * slot is made by the walk or by its fork, never by both at once.
 */
static void na_walk_tasks(struct na_obs *o)
{
	int cut = 0, again = 0, left;
	u64 attached;

	/* Every fork from now on finds the fork probe attached. */
	synchronize_rcu();
	attached = ktime_get_ns();
	for (;;) {
		left = na_walk_once(o, attached);
		if (left == -EAGAIN && ++cut < NA_WALK_TRIES)
			continue;
		if (left > 0 && ++again < NA_WALK_NEW_TRIES) {
			usleep_range(1000, 2000);
			continue;
		}
		break;
	}
	if (left == -EAGAIN)
		pr_warn("the task list changed under %d walks: tasks running at load are tracked from their next migration\n",
			NA_WALK_TRIES);
	else if (left > 0)
		pr_warn("%d tasks forked at load were not woken after %d walks: they are tracked from their next migration\n",
			left, NA_WALK_NEW_TRIES);
}

/* ------------------------------------------------------------------ */
/* CPU busy and idle time, and hotplug                                  */

/* na_idle_ns - the kernel's idle time of @cpu, as /proc/stat counts it */
static u64 na_idle_ns(int cpu)
{
	u64 idle, iowait;

	/*
	 * 6.1 reads another CPU's idle time without the seqcount later
	 * kernels take (tick_sched.idle_sleeptime_seq), racing that CPU's
	 * idle exit in tick_irq_enter(); /proc/stat does the same.  The race
	 * is the kernel's, not ours to fix: a value it gets wrong is one idle
	 * period off at worst, which na_clock_sample() bounds (idle_mark).
	 * Tell KCSAN so, rather than have it blame the module.
	 */
	idle = data_race(get_cpu_idle_time_us(cpu, NULL));
	/* the same race, the same bound */
	iowait = data_race(get_cpu_iowait_time_us(cpu, NULL));

	/* Without NO_HZ's idle accounting: the tick's */
	if (idle == (u64)-1)
		return kcpustat_cpu(cpu).cpustat[CPUTIME_IDLE] +
		       kcpustat_cpu(cpu).cpustat[CPUTIME_IOWAIT];
	if (iowait == (u64)-1)
		iowait = 0;
	return (idle + iowait) * NSEC_PER_USEC;
}

/* na_clock_sample - bring @cpu's busy and idle time up to now */
static void na_clock_sample(struct na_obs *o, int cpu)
{
	struct na_cpu_clock *c = &o->clock[cpu];
	u64 now, idle, dt, di;

	lockdep_assert_held(&o->clock_lock);
	if (!c->up)
		return;
	now = ktime_get_ns();
	idle = na_idle_ns(cpu);
	dt = now > c->at ? now - c->at : 0;
	di = idle > c->idle_mark ? idle - c->idle_mark : 0;
	di = min(di, dt);
	c->idle += di;
	c->busy += dt - di;
	c->at = now;
	/*
	 * Idle and iowait are read apart, without the kernel's seqcount on
	 * 6.1: a sum that steps back is not counted twice when it recovers.
	 */
	c->idle_mark = max(c->idle_mark, idle);
}

/* na_clock_start - @cpu counts from now (at load, or when it comes up) */
static void na_clock_start(struct na_obs *o, int cpu)
{
	struct na_cpu_clock *c = &o->clock[cpu];

	spin_lock(&o->clock_lock);
	c->at = ktime_get_ns();
	c->idle_mark = na_idle_ns(cpu);
	c->up = true;
	spin_unlock(&o->clock_lock);
}

static int na_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	na_clock_start(hlist_entry(node, struct na_obs, hp_node), cpu);
	return 0;
}

/* An offline CPU is neither busy nor idle: its clock stops. */
static int na_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct na_obs *o = hlist_entry(node, struct na_obs, hp_node);

	spin_lock(&o->clock_lock);
	na_clock_sample(o, cpu);
	o->clock[cpu].up = false;
	spin_unlock(&o->clock_lock);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Attach and detach                                                   */

/*
 * na_obs_attach - the CPU clocks (and their hotplug callbacks, which start
 * every online CPU's), then the probes: free and fork, the walk over the
 * tasks running, then the rest.  Fails if the kernel lacks a tracepoint.
 */
int na_obs_attach(struct na_obs *o)
{
	int ret;

	ret = na_obs_check();
	if (ret)
		return ret;
	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "numa_advise:online",
				      na_cpu_online, na_cpu_offline);
	if (ret < 0)
		return ret;
	o->hp_state = ret;
	ret = cpuhp_state_add_instance(o->hp_state, &o->hp_node);
	if (ret)
		goto remove_state;
	ret = na_tp_register(o, 0, NA_TPS_BEFORE_WALK);
	if (ret)
		goto remove_instance;
	na_walk_tasks(o);
	mutex_lock(&o->tp_lock);
	ret = na_tp_register(o, NA_TPS_BEFORE_WALK, na_tps_attached(o));
	o->attached = !ret;
	mutex_unlock(&o->tp_lock);
	if (ret)
		goto unregister_first;
	return 0;

unregister_first:
	na_tp_unregister(o, 0, NA_TPS_BEFORE_WALK);
remove_instance:
	cpuhp_state_remove_instance_nocalls(o->hp_state, &o->hp_node);
remove_state:
	cpuhp_remove_multi_state(o->hp_state);
	return ret;
}

/* na_obs_detach - undo na_obs_attach; no probe runs once it returns */
void na_obs_detach(struct na_obs *o)
{
	mutex_lock(&o->tp_lock);
	na_tp_unregister(o, 0, na_tps_attached(o));
	o->attached = false;
	mutex_unlock(&o->tp_lock);
	cpuhp_state_remove_instance_nocalls(o->hp_state, &o->hp_node);
	cpuhp_remove_multi_state(o->hp_state);
}

/* ------------------------------------------------------------------ */
/* Reset                                                               */

/*
 * na_task_find - the live task a slot describes (its @key, @pid and @tgid),
 * or NULL if it is gone (or going: unhashed, its free event still to
 * come).  Under rcu_read_lock().  A thread that exec()s takes its leader's
 * pid, hence the second look.
 */
static struct task_struct *na_task_find(unsigned long key, pid_t pid,
					pid_t tgid)
{
	struct task_struct *p;

	p = pid_task(find_pid_ns(pid, &init_pid_ns), PIDTYPE_PID);
	if (p == (void *)key)
		return p;
	p = pid_task(find_pid_ns(tgid, &init_pid_ns), PIDTYPE_PID);
	return p == (void *)key ? p : NULL;
}

/*
 * na_reset_snap - the reset's snapshot of slot @s's task for generation
 * @gen (struct na_task_snap): what it has run and waited so far, which
 * the new counters start from
 */
static void na_reset_snap(struct na_obs *o, u32 s, u32 gen)
{
	struct na_task *t = na_slot(o, s);
	struct na_task_snap *sn = &t->snap;
	unsigned long key, flags;
	struct task_struct *p;
	unsigned int seq;
	pid_t pid, tgid;
	u64 born;

	do {
		seq = read_seqcount_begin(&t->seq);
		key = t->key;
		pid = t->pid;
		tgid = t->tgid;
		born = t->born;
	} while (read_seqcount_retry(&t->seq, seq));
	if (!key)
		return;
	rcu_read_lock();
	p = na_task_find(key, pid, tgid);
	if (p) {
		local_irq_save(flags);
		write_seqcount_begin(&sn->seq);
		sn->gen = gen;
		sn->born = born;
		/* written by its CPU as it runs: a racy read by design */
		sn->run = data_race(READ_ONCE(p->se.sum_exec_runtime));
		/* and as it arrives on a CPU: the same */
		sn->delay = data_race(READ_ONCE(p->sched_info.run_delay));
		write_seqcount_end(&sn->seq);
		local_irq_restore(flags);
	}
	rcu_read_unlock();
}

/*
 * na_obs_reset - zero every counter: the slots' and the probe costs
 * lazily (see na_obs.gen) from a snapshot of each slot's task taken here,
 * the CPUs' by moving the baselines readers subtract
 */
void na_obs_reset(struct na_obs *o)
{
	unsigned int n = 0;
	u32 slot, gen;
	int cpu;

	mutex_lock(&o->reset_lock);
	gen = o->gen + 1;
	WRITE_ONCE(o->reset_clock, local_clock());
	/*
	 * The snapshots first, then the generation that uses them: once it
	 * is bumped, every slot's new count starts from a base that stays
	 * put until the task's next charge, so no reading of it goes back.
	 * What a task runs between its snapshot and the bump counts after
	 * the reset: the one inexact window, as long as this loop.
	 */
	na_for_each_slot(o, slot) {
		na_reset_snap(o, slot, gen);
		if (!(++n % NA_WALK_BATCH))
			cond_resched();
	}
	smp_wmb();	/* reset_clock before gen, see na_task_pending */
	WRITE_ONCE(o->gen, gen);
	spin_lock(&o->clock_lock);
	for_each_possible_cpu(cpu) {
		struct na_cpu_sched *s = &per_cpu_ptr(o->cpus, cpu)->s;
		struct na_cpu_clock *c = &o->clock[cpu];

		na_clock_sample(o, cpu);
		c->base_busy = c->busy;
		c->base_idle = c->idle;
		c->base_wait = READ_ONCE(s->wait_ns);
		c->base_switches = READ_ONCE(s->switches);
	}
	spin_unlock(&o->clock_lock);
	atomic_long_set(&o->nr_unindexed, 0);
	mutex_unlock(&o->reset_lock);
}

/* ------------------------------------------------------------------ */
/* Consistent copies                                                   */

/*
 * na_cpu_read - consistent copy of @len bytes at @off of @cpu's state;
 * false if the counters in it predate the last reset
 */
bool na_cpu_read(struct na_obs *o, int cpu, void *dst, size_t off,
		 size_t len)
{
	struct na_cpu *pc = per_cpu_ptr(o->cpus, cpu);
	unsigned int seq;
	u32 gen;

	do {
		seq = read_seqcount_begin(&pc->seq);
		gen = pc->gen;
		memcpy(dst, (void *)pc + off, len);
	} while (read_seqcount_retry(&pc->seq, seq));
	return gen == READ_ONCE(o->gen);
}

/* na_cpu_totals - @cpu's busy, idle and waiting time and switches since the reset */
void na_cpu_totals(struct na_obs *o, int cpu, struct na_cpu_totals *tot)
{
	const struct na_cpu_sched *s = &per_cpu_ptr(o->cpus, cpu)->s;
	const struct na_cpu_clock *c = &o->clock[cpu];

	spin_lock(&o->clock_lock);
	na_clock_sample(o, cpu);
	tot->busy = c->busy - c->base_busy;
	tot->idle = c->idle - c->base_idle;
	tot->wait = READ_ONCE(s->wait_ns) - c->base_wait;
	tot->switches = READ_ONCE(s->switches) - c->base_switches;
	spin_unlock(&o->clock_lock);
}

/* na_task_alloc - room for a copy of one slot (na_task_read()) */
struct na_task *na_task_alloc(const struct na_obs *o)
{
	return kzalloc(o->stride, GFP_KERNEL);
}

/*
 * na_task_read - consistent copy of slot @s into @out, with what its task
 * ran and waited since it was last charged added, and its name, flags and
 * CPU count as they are now; false if the slot is free or its task gone.
 *
 * The task's counters are read inside the slot's read section: a charge
 * that moves the slot's bases while they are read makes it retry.
 */
bool na_task_read(struct na_obs *o, u32 s, struct na_task *out)
{
	struct na_task *t = na_slot(o, s);
	u32 gen = READ_ONCE(o->gen);
	struct task_struct *p;
	u64 run = 0, delay = 0, ran, waited;
	unsigned int seq;
	int cpu = 0;

	rcu_read_lock();
	do {
		seq = read_seqcount_begin(&t->seq);
		memcpy(out, t, o->stride);
		p = out->key ? na_task_find(out->key, out->pid, out->tgid) : NULL;
		if (p) {
			/* written by its CPU as it runs: a racy read by design */
			run = data_race(READ_ONCE(p->se.sum_exec_runtime));
			/* and as it arrives on a CPU: the same */
			delay = data_race(READ_ONCE(p->sched_info.run_delay));
			cpu = task_cpu(p);
		}
	} while (read_seqcount_retry(&t->seq, seq));
	if (!p) {
		rcu_read_unlock();
		return false;
	}
	out->pid = p->pid;
	out->tgid = p->tgid;
	/* renamed under task_lock(), which a reader need not take */
	data_race(memcpy(out->comm, p->comm, TASK_COMM_LEN));
	out->pflags = READ_ONCE(p->flags);
	out->nr_cpus_allowed = READ_ONCE(p->nr_cpus_allowed);
	rcu_read_unlock();

	na_task_pending(o, t, out, gen, local_clock(), run, delay, &ran,
			&waited);
	if (out->gen != gen) {
		out->migrations = 0;
		out->xnode_migrations = 0;
		out->wait_ns = 0;
		memset(out->node_ns, 0, nr_node_ids * sizeof(out->node_ns[0]));
	}
	out->node_ns[per_cpu_ptr(o->cpus, cpu)->node] += ran;
	out->wait_ns += waited;
	return true;
}

/* ------------------------------------------------------------------ */
/* What the engine publishes                                           */

/*
 * na_pub_set - publish @v as what the engine knows of @p's slot.
 *
 * Interrupts are off, not only preemption: the fork probe reads @p->seq
 * inside its CPU's write section, which the switch probe opens under the
 * runqueue lock, so lockdep sees the runqueue lock (taken in hardirq
 * context) ordered before @p->seq, and a write section an interrupt could
 * enter would be an inversion to it.  It also keeps a reader's wait to a
 * few stores.
 */
void na_pub_set(struct na_pub *p, const struct na_pub_val *v)
{
	unsigned long flags;

	local_irq_save(flags);
	write_seqcount_begin(&p->seq);
	p->v = *v;
	write_seqcount_end(&p->seq);
	local_irq_restore(flags);
}

/* na_pub_read - a consistent copy of what @p holds */
void na_pub_read(const struct na_pub *p, struct na_pub_val *v)
{
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&p->seq);
		*v = p->v;
	} while (read_seqcount_retry(&p->seq, seq));
}
