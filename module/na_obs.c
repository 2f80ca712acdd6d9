// SPDX-License-Identifier: GPL-2.0
/*
 * na_obs.c - what the probes keep: its memory, attaching the probes to
 * the tracepoints and CPU hotplug, and consistent copies of it for the
 * engine and the debugfs readers (process context)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/bsearch.h>
#include <linux/cpuhotplug.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/sort.h>
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
	u32 entries = roundup_pow_of_two(NA_INDEX_PER_SLOT * max_tasks);
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

	for (s = 0; s < max_tasks; s++) {
		seqcount_init(&na_slot(o, s)->seq);
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
	atomic_set(&o->nr_waiting, 0);
	atomic_long_set(&o->nr_dropped, 0);
	atomic_long_set(&o->nr_unindexed, 0);
	atomic_long_set(&o->nr_lost_inherit, 0);
	o->mem_bytes = max_tasks * (o->stride + sizeof(*o->pub)) +
		       entries * sizeof(*o->idx.ent) + map_bytes +
		       num_possible_cpus() * sizeof(struct na_cpu);
	return 0;

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
	 * at the same address).
	 */
	{ "sched_process_free", na_probe_free },
	{ "sched_process_fork", na_probe_fork },
	{ "sched_migrate_task", na_probe_migrate },
	{ "sched_switch", na_probe_switch },
};

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

static void na_tp_unregister(struct na_obs *o, int n)
{
	while (n-- > 0)
		tracepoint_probe_unregister(na_tps[n].tp, na_tps[n].probe, o);
	/* Wait for probes still running on other CPUs. */
	tracepoint_synchronize_unregister();
}

static int na_tp_register(struct na_obs *o)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(na_tps); i++) {
		ret = tracepoint_probe_register(na_tps[i].tp, na_tps[i].probe,
						o);
		if (ret) {
			pr_err("cannot attach to tracepoint %s: %d\n",
			       na_tps[i].name, ret);
			na_tp_unregister(o, i);
			return ret;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* CPU hotplug: an offline CPU is neither busy nor idle                */

static int na_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	na_cpu_hotplug(hlist_entry(node, struct na_obs, hp_node), cpu, false);
	return 0;
}

static int na_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	na_cpu_hotplug(hlist_entry(node, struct na_obs, hp_node), cpu, true);
	return 0;
}

/*
 * na_obs_attach - the probes on their tracepoints, then the CPU hotplug
 * callbacks (which also start the clock of every online CPU not yet
 * switched).  Fails if the kernel lacks a tracepoint.
 */
int na_obs_attach(struct na_obs *o)
{
	int ret;

	ret = na_obs_check();
	if (ret)
		return ret;
	ret = na_tp_register(o);
	if (ret)
		return ret;
	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "numa_advise:online",
				      na_cpu_online, na_cpu_offline);
	if (ret < 0)
		goto unregister_tracepoints;
	o->hp_state = ret;
	ret = cpuhp_state_add_instance(o->hp_state, &o->hp_node);
	if (ret)
		goto remove_state;
	return 0;

remove_state:
	cpuhp_remove_multi_state(o->hp_state);
unregister_tracepoints:
	na_tp_unregister(o, ARRAY_SIZE(na_tps));
	return ret;
}

/* na_obs_detach - undo na_obs_attach; no probe runs once it returns */
void na_obs_detach(struct na_obs *o)
{
	cpuhp_state_remove_instance_nocalls(o->hp_state, &o->hp_node);
	cpuhp_remove_multi_state(o->hp_state);
	na_tp_unregister(o, ARRAY_SIZE(na_tps));
}

/* ------------------------------------------------------------------ */
/* Reset                                                               */

/* na_obs_reset - zero every counter, lazily: see na_obs.gen */
void na_obs_reset(struct na_obs *o)
{
	mutex_lock(&o->reset_lock);
	WRITE_ONCE(o->reset_clock, local_clock());
	smp_wmb();	/* reset_clock before gen, see na_cpu_begin */
	WRITE_ONCE(o->gen, o->gen + 1);
	atomic_long_set(&o->nr_dropped, 0);
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

void na_cpu_read_sched(struct na_obs *o, int cpu, struct na_cpu_sched *s)
{
	if (!na_cpu_read(o, cpu, s, offsetof(struct na_cpu, s), sizeof(*s))) {
		s->busy_ns = 0;
		s->idle_ns = 0;
		s->wait_ns = 0;
		s->switches = 0;
	}
}

/* na_cpu_totals - add @cpu's busy, idle and waiting time up to @now */
void na_cpu_totals(struct na_obs *o, int cpu, u64 now, u64 *busy,
		   u64 *idle, u64 *wait)
{
	struct na_cpu_sched c;
	u64 since;

	na_cpu_read_sched(o, cpu, &c);
	*busy += c.busy_ns;
	*idle += c.idle_ns;
	*wait += c.wait_ns;
	/* The run in progress on this CPU, not charged yet. */
	since = na_since(o, c.last);
	if (c.last && !c.offline && cpu_online(cpu) && now > since) {
		if (c.curr_key)
			*busy += now - since;
		else
			*idle += now - since;
	}
}

/* na_task_read - consistent copy of slot @s into @out; false if it is free */
bool na_task_read(struct na_obs *o, u32 s, struct na_task *out)
{
	struct na_task *t = na_slot(o, s);
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&t->seq);
		memcpy(out, t, o->stride);
	} while (read_seqcount_retry(&t->seq, seq));

	if (!out->key)
		return false;
	if (out->gen != READ_ONCE(o->gen)) {
		out->migrations = 0;
		out->xnode_migrations = 0;
		out->wait_ns = 0;
		memset(out->node_ns, 0, nr_node_ids * sizeof(out->node_ns[0]));
	}
	return true;
}

int na_tasks_iter_alloc(struct na_obs *o, struct na_tasks_iter *it)
{
	it->run = kcalloc(nr_cpu_ids, sizeof(*it->run), GFP_KERNEL);
	it->snap = kzalloc(o->stride, GFP_KERNEL);
	if (!it->run || !it->snap) {
		na_tasks_iter_free(it);
		return -ENOMEM;
	}
	return 0;
}

void na_tasks_iter_free(struct na_tasks_iter *it)
{
	kfree(it->run);
	kfree(it->snap);
	it->run = NULL;
	it->snap = NULL;
}

static int na_run_cmp(const void *a, const void *b)
{
	const struct na_run *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* na_tasks_snapshot - what every CPU runs now, and since when */
void na_tasks_snapshot(struct na_obs *o, struct na_tasks_iter *it)
{
	struct na_cpu_sched c;
	unsigned int i, n = 0;
	int cpu;

	for_each_online_cpu(cpu) {
		na_cpu_read_sched(o, cpu, &c);
		if (!c.curr_key || !c.last || c.offline)
			continue;
		it->run[n].key = c.curr_key;
		it->run[n].since = na_since(o, c.last);
		it->run[n].node = per_cpu_ptr(o->cpus, cpu)->node;
		n++;
	}
	it->now = local_clock();
	/*
	 * A task that moved while the CPUs were read shows twice: the later
	 * run is the one in progress.
	 */
	sort(it->run, n, sizeof(*it->run), na_run_cmp, NULL);
	it->nr_run = 0;
	for (i = 0; i < n; i++) {
		if (it->nr_run && it->run[it->nr_run - 1].key == it->run[i].key) {
			if (it->run[i].since > it->run[it->nr_run - 1].since)
				it->run[it->nr_run - 1] = it->run[i];
			continue;
		}
		it->run[it->nr_run++] = it->run[i];
	}
}

/* na_task_add_run - charge @t's run in progress, from @it's snapshot */
void na_task_add_run(const struct na_tasks_iter *it, struct na_task *t)
{
	struct na_run *run, key;

	key.key = t->key;
	run = bsearch(&key, it->run, it->nr_run, sizeof(*run), na_run_cmp);
	if (run && t->last_out <= run->since && it->now > run->since)
		t->node_ns[run->node] += it->now - run->since;
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
