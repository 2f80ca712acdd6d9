// SPDX-License-Identifier: GPL-2.0
/*
 * numa_advise - tracepoint-driven NUMA residency statistics
 *
 * Hooks the scheduler's sched_switch and sched_migrate_task tracepoints and
 * keeps, for every task, the time it spent on CPUs of each NUMA node and how
 * often it migrated (and across nodes); for every node, its busy and idle
 * time and context switches; and, for every probe, what the probe itself
 * cost.  sched_process_free tells it when to forget a task.  All of it is
 * shown as tables under /sys/kernel/debug/numa_advise/.
 *
 * The probes run with a runqueue lock (or the task's pi_lock) held and
 * interrupts off.  They never allocate, sleep, wake anything or take a
 * shared lock: per-task state lives in slots reserved at load time and found
 * through a lock-free index (na_index.h), per-CPU state is written only by
 * its own CPU, and readers get consistent copies through seqcounts.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/bsearch.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/topology.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "na_hist.h"
#include "na_index.h"
#include "na_version.h"

/* ------------------------------------------------------------------ */
/* Parameters                                                          */

#define NA_MAX_TASKS_MIN	16u
#define NA_MAX_TASKS_MAX	(1u << 20)

static unsigned int max_tasks = 8192;	/* read-only after load */

static int na_max_tasks_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;

	if (kstrtouint(val, 0, &n) || n < NA_MAX_TASKS_MIN ||
	    n > NA_MAX_TASKS_MAX) {
		pr_err("max_tasks must be a number from %u to %u\n",
		       NA_MAX_TASKS_MIN, NA_MAX_TASKS_MAX);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = n;
	return 0;
}

static const struct kernel_param_ops na_max_tasks_ops = {
	.set = na_max_tasks_set,
	.get = param_get_uint,
};
module_param_cb(max_tasks, &na_max_tasks_ops, &max_tasks, 0444);
MODULE_PARM_DESC(max_tasks,
		 "Tasks tracked at once (16..1048576, default 8192); memory for them is reserved at load");

/* ------------------------------------------------------------------ */
/* State                                                               */

enum na_probe_id {
	NA_PROBE_SWITCH,
	NA_PROBE_MIGRATE,
	NA_PROBE_FREE,
	NA_NR_PROBES,
};

/*
 * One task's statistics.  Slots are reserved at load (na_slots) and handed
 * out through na_slot_map.
 *
 * Writers: the task's own event stream only - its switch-out, its
 * migrations, and finally its free - which the scheduler serialises (see
 * na_index.h), each with interrupts off, inside write_seqcount_begin/end
 * on @seq.  Readers (debugfs) copy the slot under read_seqcount_retry().
 */
struct na_task {
	seqcount_t seq;
	u32 gen;		/* na_gen the counters belong to */
	unsigned long key;	/* owner task's address; 0 while the slot is free */
	pid_t pid;
	pid_t tgid;
	char comm[TASK_COMM_LEN];
	u64 last_out;		/* local_clock() of the last charge */
	u64 migrations;
	u64 xnode_migrations;
	u64 node_ns[];		/* nr_node_ids entries: on-CPU time per node */
};

/*
 * Per-CPU state: written only by this CPU's probes, with interrupts off, so
 * no two writers ever meet; @seq lets readers take consistent copies.
 */
struct na_probe_cost {
	u64 calls;
	u64 sum_ns;
	u64 max_ns;
	u64 hist[NA_HIST_BUCKETS];
};

struct na_cpu_sched {
	bool offline;		/* going down: its idle time is not idle */
	u64 last;		/* local_clock() of the last switch here; 0: none */
	unsigned long curr_key;	/* task switched in at @last; 0: idle */
	struct na_task *curr;	/* its slot, NULL if it has none */
	u64 busy_ns;
	u64 idle_ns;
	u64 switches;
};

struct na_cpu {
	seqcount_t seq;
	u32 gen;		/* na_gen the counters belong to */
	int node;		/* cpu_to_node(), fixed at load */
	unsigned int slot_hint;	/* where to look for a free slot next */
	struct na_cpu_sched s;
	struct na_probe_cost cost[NA_NR_PROBES];
};

static struct na_cpu __percpu *na_cpus;

static struct na_index na_idx;		/* lock-free, see na_index.h */
static void *na_slots;			/* max_tasks slots of na_stride bytes */
static size_t na_stride;
static unsigned long *na_slot_map;	/* slot in use: test_and_set_bit() */

/*
 * Slots handed out; a slot is reserved here before its bit is searched for
 * and released after its bit is cleared, so a reservation always finds a
 * free bit.
 */
static atomic_t na_nr_tracked;
static atomic_t na_nr_waiting;		/* live tasks refused a slot */
static atomic_long_t na_nr_dropped;	/* tasks refused a slot at the cap */
static atomic_long_t na_nr_unindexed;	/* events of tasks the index had no room for */

/*
 * Reset generation.  Written (incremented) only under na_reset_lock;
 * probes READ_ONCE() it and lazily zero the counters of a slot or CPU
 * whose @gen differs, so a reset never races with a probe's read-modify-
 * write.  Readers show counters of another generation as zero.
 */
static u32 na_gen __read_mostly;
static DEFINE_MUTEX(na_reset_lock);
/*
 * local_clock() at the last reset, written before na_gen (smp_wmb): a run
 * that began before the reset is charged from here, not from its start.
 */
static u64 na_reset_clock;

/* na_since - when to charge a run that began at @last from */
static inline u64 na_since(u64 last)
{
	return max(last, READ_ONCE(na_reset_clock));
}

static size_t na_mem_bytes;		/* reserved at load, for `status` */

static inline struct na_task *na_slot(u32 s)
{
	return na_slots + (size_t)s * na_stride;
}

/* ------------------------------------------------------------------ */
/* Slots (probe context)                                               */

static void na_task_zero(struct na_task *t, u32 gen)
{
	t->gen = gen;
	t->migrations = 0;
	t->xnode_migrations = 0;
	memset(t->node_ns, 0, nr_node_ids * sizeof(t->node_ns[0]));
}

/* na_task_refresh - name and ids may change (exec, prctl): keep them current */
static void na_task_refresh(struct na_task *t, struct task_struct *p)
{
	t->pid = p->pid;
	t->tgid = p->tgid;
	memcpy(t->comm, p->comm, TASK_COMM_LEN);
}

static u32 na_slot_alloc(struct na_cpu *pc)
{
	unsigned int s;

	if (atomic_inc_return(&na_nr_tracked) > max_tasks) {
		atomic_dec(&na_nr_tracked);
		return NA_SLOT_NONE;
	}
	/* A free bit exists: we hold one of at most max_tasks reservations. */
	s = pc->slot_hint;
	for (;;) {
		s = find_next_zero_bit(na_slot_map, max_tasks, s);
		if (s >= max_tasks) {
			s = 0;
			continue;
		}
		if (!test_and_set_bit(s, na_slot_map))
			break;
	}
	pc->slot_hint = s + 1;
	return s;
}

static struct na_task *na_slot_init(u32 s, struct task_struct *p, u32 gen,
				    u64 now)
{
	struct na_task *t = na_slot(s);

	write_seqcount_begin(&t->seq);
	t->key = (unsigned long)p;
	/* Not charged for anything before now, if the address was reused. */
	t->last_out = now;
	na_task_refresh(t, p);
	na_task_zero(t, gen);
	write_seqcount_end(&t->seq);
	return t;
}

/* na_slot_free - called from the task's free event; no writer can follow */
static void na_slot_free(u32 s)
{
	struct na_task *t = na_slot(s);

	write_seqcount_begin(&t->seq);
	t->key = 0;
	write_seqcount_end(&t->seq);
	clear_bit_unlock(s, na_slot_map);
	atomic_dec(&na_nr_tracked);
}

/*
 * na_task_get - @p's slot, making one on first sight
 *
 * Returns NULL when the cap is reached: the task then waits, counted in
 * na_nr_waiting, and gets a slot at a later event once another task has
 * freed one.  Must be called from @p's own event stream.
 */
static struct na_task *na_task_get(struct na_cpu *pc, struct task_struct *p,
				   u32 gen, u64 now)
{
	unsigned long key = (unsigned long)p;
	struct na_ient *e;
	struct na_task *t;
	u32 s;

	e = na_index_find(&na_idx, key);
	if (likely(e)) {
		s = READ_ONCE(e->slot);
		if (likely(s != NA_SLOT_NONE)) {
			t = na_slot(s);
			if (unlikely(t->gen != gen)) {
				write_seqcount_begin(&t->seq);
				na_task_zero(t, gen);
				write_seqcount_end(&t->seq);
			}
			return t;
		}
		/* Waiting for a slot: try again only if one may be free. */
		if (atomic_read(&na_nr_tracked) >= max_tasks)
			return NULL;
		s = na_slot_alloc(pc);
		if (s == NA_SLOT_NONE)
			return NULL;
		atomic_dec(&na_nr_waiting);
		WRITE_ONCE(e->slot, s);
		return na_slot_init(s, p, gen, now);
	}

	e = na_index_insert(&na_idx, key);
	if (unlikely(!e)) {
		atomic_long_inc(&na_nr_unindexed);
		return NULL;
	}
	s = na_slot_alloc(pc);
	WRITE_ONCE(e->slot, s);
	if (unlikely(s == NA_SLOT_NONE)) {
		atomic_inc(&na_nr_waiting);
		atomic_long_inc(&na_nr_dropped);
		return NULL;
	}
	return na_slot_init(s, p, gen, now);
}

/* ------------------------------------------------------------------ */
/* Probes: interrupts off, no allocation, no locks, no sleeping        */

/*
 * na_cpu_begin - open this CPU's write section; zero its counters first if a
 * reset happened since it last wrote
 */
static struct na_cpu *na_cpu_begin(u32 gen)
{
	struct na_cpu *pc = this_cpu_ptr(na_cpus);

	write_seqcount_begin(&pc->seq);
	if (unlikely(pc->gen != gen)) {
		smp_rmb();	/* na_gen before na_reset_clock, see na_reset_write */
		if (pc->s.last)
			pc->s.last = na_since(pc->s.last);
		pc->gen = gen;
		pc->s.busy_ns = 0;
		pc->s.idle_ns = 0;
		pc->s.switches = 0;
		memset(pc->cost, 0, sizeof(pc->cost));
	}
	return pc;
}

/*
 * na_cpu_end - account the probe's own cost since @t0 and close the write
 * section.  The bookkeeping after the second clock read is not counted.
 */
static void na_cpu_end(struct na_cpu *pc, enum na_probe_id id, u64 t0)
{
	struct na_probe_cost *c = &pc->cost[id];
	u64 d = local_clock() - t0;

	c->calls++;
	c->sum_ns += d;
	if (d > c->max_ns)
		c->max_ns = d;
	c->hist[na_hist_bucket(d)]++;
	write_seqcount_end(&pc->seq);
}

static void na_probe_switch(void *data, bool preempt, struct task_struct *prev,
			    struct task_struct *next, unsigned int prev_state)
{
	u64 now = local_clock();
	u32 gen = READ_ONCE(na_gen);
	struct na_cpu *pc = na_cpu_begin(gen);
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
			t = na_task_get(pc, prev, gen, now);
		if (t) {
			write_seqcount_begin(&t->seq);
			if (unlikely(t->gen != gen))
				na_task_zero(t, gen);
			t->node_ns[pc->node] += delta;
			t->last_out = now;
			na_task_refresh(t, prev);
			write_seqcount_end(&t->seq);
		}
	}

	if (is_idle_task(next)) {
		pc->s.curr_key = 0;
		pc->s.curr = NULL;
	} else {
		pc->s.curr_key = (unsigned long)next;
		pc->s.curr = na_task_get(pc, next, gen, now);
	}
	pc->s.last = now;
	na_cpu_end(pc, NA_PROBE_SWITCH, now);
}

static void na_probe_migrate(void *data, struct task_struct *p, int dest_cpu)
{
	u64 t0 = local_clock();
	u32 gen = READ_ONCE(na_gen);
	struct na_cpu *pc = na_cpu_begin(gen);
	struct na_task *t;

	lockdep_assert_irqs_disabled();

	/* It fires before p's CPU changes, also when it does not change. */
	if (task_cpu(p) != dest_cpu)
		t = na_task_get(pc, p, gen, t0);
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
static void na_probe_free(void *data, struct task_struct *p)
{
	unsigned long flags;
	struct na_ient *e;
	struct na_cpu *pc;
	u64 t0;

	local_irq_save(flags);
	t0 = local_clock();
	pc = na_cpu_begin(READ_ONCE(na_gen));
	e = na_index_find(&na_idx, (unsigned long)p);
	if (e) {
		u32 s = READ_ONCE(e->slot);

		if (s != NA_SLOT_NONE)
			na_slot_free(s);
		else
			atomic_dec(&na_nr_waiting);
		na_index_remove(e);
	}
	na_cpu_end(pc, NA_PROBE_FREE, t0);
	local_irq_restore(flags);
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
	{ "sched_migrate_task", na_probe_migrate },
	{ "sched_switch", na_probe_switch },
#ifdef NA_TEST_MISSING_TP
	/* Test build only: shows that a missing tracepoint refuses the load. */
	{ "numa_advise_test_missing", na_probe_free },
#endif
};

static const char *const na_probe_names[NA_NR_PROBES] = {
	[NA_PROBE_SWITCH] = "sched_switch",
	[NA_PROBE_MIGRATE] = "sched_migrate_task",
	[NA_PROBE_FREE] = "sched_process_free",
};

static void na_tp_match(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(na_tps); i++)
		if (!strcmp(tp->name, na_tps[i].name))
			na_tps[i].tp = tp;
}

static int na_tp_find(void)
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

static void na_tp_unregister(int n)
{
	while (n-- > 0)
		tracepoint_probe_unregister(na_tps[n].tp, na_tps[n].probe, NULL);
	/* Wait for probes still running on other CPUs. */
	tracepoint_synchronize_unregister();
}

static int na_tp_register(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(na_tps); i++) {
		ret = tracepoint_probe_register(na_tps[i].tp, na_tps[i].probe,
						NULL);
		if (ret) {
			pr_err("cannot attach to tracepoint %s: %d\n",
			       na_tps[i].name, ret);
			na_tp_unregister(i);
			return ret;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Readers (process context)                                           */

/*
 * na_cpu_read - consistent copy of @len bytes at @src, a part of @cpu's
 * state; false if the counters in it predate the last reset
 */
static bool na_cpu_read(int cpu, void *dst, size_t off, size_t len)
{
	struct na_cpu *pc = per_cpu_ptr(na_cpus, cpu);
	unsigned int seq;
	u32 gen;

	do {
		seq = read_seqcount_begin(&pc->seq);
		gen = pc->gen;
		memcpy(dst, (void *)pc + off, len);
	} while (read_seqcount_retry(&pc->seq, seq));
	return gen == READ_ONCE(na_gen);
}

static void na_cpu_read_sched(int cpu, struct na_cpu_sched *s)
{
	if (!na_cpu_read(cpu, s, offsetof(struct na_cpu, s), sizeof(*s))) {
		s->busy_ns = 0;
		s->idle_ns = 0;
		s->switches = 0;
	}
}

/* na_task_read - consistent copy of slot @s into @out; false if it is free */
static bool na_task_read(u32 s, struct na_task *out)
{
	struct na_task *t = na_slot(s);
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&t->seq);
		memcpy(out, t, na_stride);
	} while (read_seqcount_retry(&t->seq, seq));

	if (!out->key)
		return false;
	if (out->gen != READ_ONCE(na_gen)) {
		out->migrations = 0;
		out->xnode_migrations = 0;
		memset(out->node_ns, 0, nr_node_ids * sizeof(out->node_ns[0]));
	}
	return true;
}

/*
 * A task that is on a CPU right now has not been charged for the current
 * run yet; `tasks` adds it, from a snapshot of what every CPU runs.
 */
struct na_run {
	unsigned long key;
	u64 since;
	int node;
};

struct na_tasks_iter {
	u64 now;
	unsigned int nr_run;
	struct na_run *run;	/* sorted by key */
	struct na_task *snap;	/* na_stride bytes */
};

static int na_run_cmp(const void *a, const void *b)
{
	const struct na_run *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static void na_tasks_snapshot(struct na_tasks_iter *it)
{
	struct na_cpu_sched c;
	unsigned int i, n = 0;
	int cpu;

	for_each_online_cpu(cpu) {
		na_cpu_read_sched(cpu, &c);
		if (!c.curr_key || !c.last || c.offline)
			continue;
		it->run[n].key = c.curr_key;
		it->run[n].since = na_since(c.last);
		it->run[n].node = per_cpu_ptr(na_cpus, cpu)->node;
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

static void na_print_node_header(struct seq_file *m, const char *fmt)
{
	int n;

	for_each_online_node(n)
		seq_printf(m, fmt, n);
}

static void *na_tasks_start(struct seq_file *m, loff_t *pos)
{
	unsigned long s;

	if (*pos == 0)
		return SEQ_START_TOKEN;
	s = find_next_bit(na_slot_map, max_tasks, *pos - 1);
	if (s >= max_tasks)
		return NULL;
	*pos = s + 1;
	return na_slot(s);
}

static void *na_tasks_next(struct seq_file *m, void *v, loff_t *pos)
{
	unsigned long s = v == SEQ_START_TOKEN ? 0 :
			  (v - na_slots) / na_stride + 1;

	s = find_next_bit(na_slot_map, max_tasks, s);
	*pos = s + 1;
	return s < max_tasks ? na_slot(s) : NULL;
}

static void na_tasks_stop(struct seq_file *m, void *v)
{
}

static int na_tasks_show(struct seq_file *m, void *v)
{
	struct na_tasks_iter *it = m->private;
	struct na_task *t = it->snap;
	struct na_run *run, key;
	u64 runtime = 0;
	int n;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, "pid tgid comm runtime_ns");
		na_print_node_header(m, " node%d_ns");
		seq_puts(m, " migrations xnode_migrations\n");
		return 0;
	}
	if (!na_task_read((v - na_slots) / na_stride, t))
		return 0;

	/* Running now and not charged for this run yet: add it. */
	key.key = t->key;
	run = bsearch(&key, it->run, it->nr_run, sizeof(*run), na_run_cmp);
	if (run && t->last_out <= run->since && it->now > run->since)
		t->node_ns[run->node] += it->now - run->since;

	for_each_online_node(n)
		runtime += t->node_ns[n];
	seq_printf(m, "%d %d ", t->pid, t->tgid);
	/* Whitespace-separated table: escape it in names, as /proc/mounts does. */
	t->comm[TASK_COMM_LEN - 1] = '\0';
	seq_escape(m, t->comm[0] ? t->comm : "-", " \t\n\\");
	seq_printf(m, " %llu", runtime);
	for_each_online_node(n)
		seq_printf(m, " %llu", t->node_ns[n]);
	seq_printf(m, " %llu %llu\n", t->migrations, t->xnode_migrations);
	return 0;
}

static const struct seq_operations na_tasks_sops = {
	.start = na_tasks_start,
	.next = na_tasks_next,
	.stop = na_tasks_stop,
	.show = na_tasks_show,
};

static void na_tasks_iter_free(struct na_tasks_iter *it)
{
	kfree(it->run);
	kfree(it->snap);
}

static int na_tasks_open(struct inode *inode, struct file *file)
{
	struct na_tasks_iter *it;

	it = __seq_open_private(file, &na_tasks_sops, sizeof(*it));
	if (!it)
		return -ENOMEM;
	it->run = kcalloc(nr_cpu_ids, sizeof(*it->run), GFP_KERNEL);
	it->snap = kzalloc(na_stride, GFP_KERNEL);
	if (!it->run || !it->snap) {
		na_tasks_iter_free(it);
		seq_release_private(inode, file);
		return -ENOMEM;
	}
	na_tasks_snapshot(it);
	return 0;
}

static int na_tasks_release(struct inode *inode, struct file *file)
{
	na_tasks_iter_free(((struct seq_file *)file->private_data)->private);
	return seq_release_private(inode, file);
}

static const struct file_operations na_tasks_fops = {
	.owner = THIS_MODULE,
	.open = na_tasks_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = na_tasks_release,
};

static int na_nodes_show(struct seq_file *m, void *v)
{
	u64 now = local_clock();
	struct na_cpu_sched c;
	int n, cpu;

	seq_puts(m, "node cpus busy_ns idle_ns switches\n");
	for_each_online_node(n) {
		const struct cpumask *mask = cpumask_of_node(n);
		u64 busy = 0, idle = 0, switches = 0, since;

		/* Offline CPUs too: what they did before still counts. */
		for_each_possible_cpu(cpu) {
			if (per_cpu_ptr(na_cpus, cpu)->node != n)
				continue;
			na_cpu_read_sched(cpu, &c);
			busy += c.busy_ns;
			idle += c.idle_ns;
			switches += c.switches;
			/* The run in progress on this CPU, not charged yet. */
			since = na_since(c.last);
			if (c.last && !c.offline && cpu_online(cpu) &&
			    now > since) {
				if (c.curr_key)
					busy += now - since;
				else
					idle += now - since;
			}
		}
		seq_printf(m, "%d %*pbl %llu %llu %llu\n", n,
			   cpumask_pr_args(mask), busy, idle, switches);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(na_nodes);

static int na_overhead_show(struct seq_file *m, void *v)
{
	struct na_probe_cost *sum, *c;
	int cpu, p, b;

	c = kmalloc_array(NA_NR_PROBES, sizeof(*c), GFP_KERNEL);
	sum = kcalloc(NA_NR_PROBES, sizeof(*sum), GFP_KERNEL);
	if (!c || !sum) {
		kfree(c);
		kfree(sum);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		if (!na_cpu_read(cpu, c, offsetof(struct na_cpu, cost),
				 NA_NR_PROBES * sizeof(*c)))
			continue;
		for (p = 0; p < NA_NR_PROBES; p++) {
			sum[p].calls += c[p].calls;
			sum[p].sum_ns += c[p].sum_ns;
			sum[p].max_ns = max(sum[p].max_ns, c[p].max_ns);
			for (b = 0; b < NA_HIST_BUCKETS; b++)
				sum[p].hist[b] += c[p].hist[b];
		}
	}
	seq_puts(m, "probe calls mean_ns p50_ns p99_ns max_ns\n");
	for (p = 0; p < NA_NR_PROBES; p++) {
		const struct na_probe_cost *s = &sum[p];

		seq_printf(m, "%s %llu %llu %llu %llu %llu\n", na_probe_names[p],
			   s->calls, s->calls ? div64_u64(s->sum_ns, s->calls) : 0,
			   na_hist_percentile(s->hist, s->calls, 50, s->max_ns),
			   na_hist_percentile(s->hist, s->calls, 99, s->max_ns),
			   s->max_ns);
	}
	kfree(sum);
	kfree(c);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(na_overhead);

static int na_status_show(struct seq_file *m, void *v)
{
	seq_puts(m, "key value\n");
	seq_printf(m, "version %s\n", NA_VERSION);
	seq_printf(m, "nodes %u\n", num_online_nodes());
	seq_printf(m, "cpus %u\n", num_online_cpus());
	seq_printf(m, "tracked %d\n", atomic_read(&na_nr_tracked));
	seq_printf(m, "max_tasks %u\n", max_tasks);
	seq_printf(m, "waiting %d\n", atomic_read(&na_nr_waiting));
	seq_printf(m, "dropped %ld\n", atomic_long_read(&na_nr_dropped));
	seq_printf(m, "unindexed_events %ld\n",
		   atomic_long_read(&na_nr_unindexed));
	seq_printf(m, "reset_generation %u\n", READ_ONCE(na_gen));
	seq_printf(m, "slot_bytes %zu\n", na_stride);
	seq_printf(m, "memory_bytes %zu\n", na_mem_bytes);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(na_status);

/*
 * reset: "1" (with or without a newline) zeroes every counter; anything
 * else, or a write at an offset, is refused and changes nothing.
 */
static ssize_t na_reset_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	char buf[3] = {};

	if (*ppos != 0 || len == 0 || len > 2)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	if (strcmp(buf, "1") && strcmp(buf, "1\n"))
		return -EINVAL;

	mutex_lock(&na_reset_lock);
	WRITE_ONCE(na_reset_clock, local_clock());
	smp_wmb();	/* na_reset_clock before na_gen, see na_cpu_begin */
	WRITE_ONCE(na_gen, na_gen + 1);
	atomic_long_set(&na_nr_dropped, 0);
	atomic_long_set(&na_nr_unindexed, 0);
	mutex_unlock(&na_reset_lock);
	*ppos += len;
	return len;
}

static const struct file_operations na_reset_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = na_reset_write,
};

static struct dentry *na_dir;

static int na_debugfs_create(void)
{
	na_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(na_dir)) {
		pr_err("cannot create debugfs directory: %ld (is debugfs enabled?)\n",
		       PTR_ERR(na_dir));
		return PTR_ERR(na_dir);
	}
	debugfs_create_file("tasks", 0400, na_dir, NULL, &na_tasks_fops);
	debugfs_create_file("nodes", 0400, na_dir, NULL, &na_nodes_fops);
	debugfs_create_file("overhead", 0400, na_dir, NULL, &na_overhead_fops);
	debugfs_create_file("status", 0400, na_dir, NULL, &na_status_fops);
	debugfs_create_file("reset", 0200, na_dir, NULL, &na_reset_fops);
	return 0;
}

/* ------------------------------------------------------------------ */
/* CPU hotplug: an offline CPU is neither busy nor idle                */

static enum cpuhp_state na_hp_state;

/*
 * na_cpu_hotplug - mark this CPU up or going down.  AP hotplug callbacks run
 * on the CPU concerned; with interrupts off no probe can interleave, so the
 * per-CPU state keeps its single writer.
 */
static void na_cpu_hotplug(unsigned int cpu, bool offline)
{
	unsigned long flags;
	struct na_cpu *pc;

	local_irq_save(flags);
	WARN_ON_ONCE(smp_processor_id() != cpu);
	pc = this_cpu_ptr(na_cpus);
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

static int na_cpu_online(unsigned int cpu)
{
	na_cpu_hotplug(cpu, false);
	return 0;
}

static int na_cpu_offline(unsigned int cpu)
{
	na_cpu_hotplug(cpu, true);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Load and unload                                                     */

static int na_alloc(void)
{
	u32 entries = roundup_pow_of_two(NA_INDEX_PER_SLOT * max_tasks);
	size_t map_bytes = BITS_TO_LONGS(max_tasks) * sizeof(long);
	int cpu;
	u32 s;

	na_stride = ALIGN(struct_size((struct na_task *)NULL, node_ns,
				      nr_node_ids), L1_CACHE_BYTES);
	na_slots = vzalloc(array_size(max_tasks, na_stride));
	if (!na_slots)
		goto fail;
	na_idx.ent = vzalloc(array_size(entries, sizeof(*na_idx.ent)));
	if (!na_idx.ent)
		goto free_slots;
	na_idx.mask = entries - 1;
	na_slot_map = bitmap_zalloc(max_tasks, GFP_KERNEL);
	if (!na_slot_map)
		goto free_index;
	na_cpus = alloc_percpu(struct na_cpu);
	if (!na_cpus)
		goto free_map;

	for (s = 0; s < max_tasks; s++)
		seqcount_init(&na_slot(s)->seq);
	for_each_possible_cpu(cpu) {
		struct na_cpu *pc = per_cpu_ptr(na_cpus, cpu);

		seqcount_init(&pc->seq);
		pc->node = cpu_to_node(cpu);
		/* A CPU without a node (can it?) is charged to node 0. */
		if (pc->node < 0 || pc->node >= nr_node_ids)
			pc->node = 0;
	}
	na_mem_bytes = max_tasks * na_stride + entries * sizeof(*na_idx.ent) +
		       map_bytes + num_possible_cpus() * sizeof(struct na_cpu);
	return 0;

free_map:
	bitmap_free(na_slot_map);
free_index:
	vfree(na_idx.ent);
free_slots:
	vfree(na_slots);
fail:
	pr_err("cannot reserve memory for %u tasks\n", max_tasks);
	return -ENOMEM;
}

static void na_free(void)
{
	free_percpu(na_cpus);
	bitmap_free(na_slot_map);
	vfree(na_idx.ent);
	vfree(na_slots);
}

static int __init na_init(void)
{
	int ret;

	ret = na_tp_find();
	if (ret)
		return ret;
	ret = na_alloc();
	if (ret)
		return ret;
	ret = na_tp_register();
	if (ret)
		goto free_state;
	/* Also starts the clock of every online CPU not yet switched. */
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "numa_advise:online",
				na_cpu_online, na_cpu_offline);
	if (ret < 0)
		goto unregister_tracepoints;
	na_hp_state = ret;
	/*
	 * debugfs last: once a file can be opened, the load must not fail
	 * (an open file pins the module, which a failed load frees anyway).
	 */
	ret = na_debugfs_create();
	if (ret)
		goto remove_cpuhp;

	pr_info("version %s loaded: %u nodes, %u CPUs, up to %u tasks (%zu KiB)\n",
		NA_VERSION, num_online_nodes(), num_online_cpus(), max_tasks,
		na_mem_bytes >> 10);
	return 0;

remove_cpuhp:
	cpuhp_remove_state_nocalls(na_hp_state);
unregister_tracepoints:
	na_tp_unregister(ARRAY_SIZE(na_tps));
free_state:
	na_free();
	return ret;
}

static void __exit na_exit(void)
{
	/* Readers first: removal waits for any file operation in progress. */
	debugfs_remove_recursive(na_dir);
	cpuhp_remove_state_nocalls(na_hp_state);
	na_tp_unregister(ARRAY_SIZE(na_tps));
	na_free();
	pr_info("unloaded\n");
}

module_init(na_init);
module_exit(na_exit);

MODULE_AUTHOR("The numa_advise authors");
MODULE_DESCRIPTION("Tracepoint-driven per-task NUMA residency statistics and placement advice");
MODULE_LICENSE("GPL");
MODULE_VERSION(NA_VERSION);
