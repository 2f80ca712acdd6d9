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
#include <linux/cgroup.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/kthread.h>
#include <linux/nsproxy.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
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
#include <linux/version.h>
#include <linux/vmalloc.h>

#include "na_hist.h"
#include "na_index.h"
#include "na_policy.h"

#define CREATE_TRACE_POINTS
#include "na_trace.h"

/* ------------------------------------------------------------------ */
/* Parameters                                                          */

/*
 * Until the module is up, a bad value is a modprobe line or a file in
 * /etc/modprobe.d: say what is wrong.  Afterwards a refused write to
 * /sys/module/numa_advise/parameters/ gets -EINVAL and nothing in the log.
 */
static bool na_live;

/*
 * A number with a range.  @val is written by the parameter code (under
 * its own lock) and read with READ_ONCE() by the engine.
 */
struct na_uint_param {
	unsigned int val;
	unsigned int min;
	unsigned int max;
};

static int na_uint_set(const char *val, const struct kernel_param *kp)
{
	struct na_uint_param *p = kp->arg;
	unsigned int n;

	if (kstrtouint(val, 0, &n) || n < p->min || n > p->max) {
#ifdef NA_TEST_PLANTED
		/* Test build only: a refused write that changes the number. */
		if (!kstrtouint(val, 0, &n))
			WRITE_ONCE(p->val, n);
#endif
		if (!na_live)
			pr_err("%s must be a number from %u to %u\n",
			       kp->name, p->min, p->max);
		return -EINVAL;
	}
	WRITE_ONCE(p->val, n);
	return 0;
}

static int na_uint_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", ((struct na_uint_param *)kp->arg)->val);
}

static const struct kernel_param_ops na_uint_ops = {
	.set = na_uint_set,
	.get = na_uint_get,
};

#define NA_UINT_PARAM(name, def, lo, hi, perm, desc)			\
	static struct na_uint_param na_##name = { def, lo, hi };	\
	module_param_cb(name, &na_uint_ops, &na_##name, perm);		\
	MODULE_PARM_DESC(name, desc " (" #lo ".." #hi ", default " #def ")")

NA_UINT_PARAM(max_tasks, 8192, 16, 1048576, 0444,
	      "Tasks tracked at once; their memory is reserved at load");
NA_UINT_PARAM(interval_ms, 1000, 10, 60000, 0644,
	      "Milliseconds between two rounds of the placement engine");
NA_UINT_PARAM(min_move_ms, 5000, 0, 3600000, 0644,
	      "Milliseconds a placed task stays before it is moved again");
NA_UINT_PARAM(gain_pm, 200, 0, 10000, 0644,
	      "Per-mille a new placement must score above the current one to move");
NA_UINT_PARAM(margin_pm, 100, 0, 500, 0644,
	      "Per-mille of a node's capacity its load must clear to change class");
NA_UINT_PARAM(imbalance_pct, 117, 100, 200, 0644,
	      "Percent of capacity that marks a node fully busy or overloaded");

/* na_max_tasks.val as it was at load: everything is sized by it */
static unsigned int max_tasks;

enum na_policy_id {
	NA_POLICY_NONE,
	NA_POLICY_HOME,
	NA_POLICY_DISTANCE,
	NA_NR_POLICIES,
};

static const char *const na_policy_names[NA_NR_POLICIES] = {
	[NA_POLICY_NONE] = "none",
	[NA_POLICY_HOME] = "home",
	[NA_POLICY_DISTANCE] = "distance",
};

enum na_mode_id {
	NA_MODE_ADVISE,
	NA_MODE_ENFORCE,
	NA_NR_MODES,
};

static const char *const na_mode_names[NA_NR_MODES] = {
	[NA_MODE_ADVISE] = "advise",
	[NA_MODE_ENFORCE] = "enforce",
};

/*
 * A name out of a list, for the policy and mode.  @cur points at the
 * setting: it changes only under na_engine_lock, through na_set_choice(),
 * which also undoes placements the new setting no longer wants.
 */
struct na_choice_param {
	int *cur;
	const char *const *names;
	int nr;
};

static int na_policy = NA_POLICY_NONE;
static int na_mode = NA_MODE_ADVISE;

static int na_set_choice(int *setting, int val);

static int na_choice_set(const char *val, const struct kernel_param *kp)
{
	const struct na_choice_param *c = kp->arg;
	int i = __sysfs_match_string(c->names, c->nr, val);

	if (i < 0) {
		if (!na_live)
			pr_err("%s must be one of: %s, %s%s%s\n", kp->name,
			       c->names[0], c->names[1], c->nr > 2 ? ", " : "",
			       c->nr > 2 ? c->names[2] : "");
		return -EINVAL;
	}
	return na_set_choice(c->cur, i);
}

static int na_choice_get(char *buf, const struct kernel_param *kp)
{
	const struct na_choice_param *c = kp->arg;

	return sysfs_emit(buf, "%s\n", c->names[READ_ONCE(*c->cur)]);
}

static const struct kernel_param_ops na_choice_ops = {
	.set = na_choice_set,
	.get = na_choice_get,
};

static struct na_choice_param na_policy_param = {
	&na_policy, na_policy_names, NA_NR_POLICIES
};
module_param_cb(policy, &na_choice_ops, &na_policy_param, 0644);
MODULE_PARM_DESC(policy,
		 "Placement policy: none (observe only, default), home or distance");

static struct na_choice_param na_mode_param = {
	&na_mode, na_mode_names, NA_NR_MODES
};
module_param_cb(mode, &na_choice_ops, &na_mode_param, 0644);
MODULE_PARM_DESC(mode,
		 "advise (default): only recommend; enforce: narrow CPU affinity to the advice");

/* ------------------------------------------------------------------ */
/* State                                                               */

enum na_probe_id {
	NA_PROBE_SWITCH,
	NA_PROBE_MIGRATE,
	NA_PROBE_FREE,
	NA_PROBE_FORK,
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
	unsigned int pflags;	/* task->flags at the last refresh */
	int nr_cpus_allowed;	/* and how many CPUs it was allowed */
	u64 inherit[2];		/* its placed parent's nodes, see na_probe_fork */
	u64 born;		/* local_clock() when this owner got the slot */
	u64 last_out;		/* local_clock() of the last charge */
	u64 wait_since;		/* switched out still runnable; 0: not */
	int wait_cpu;		/* and where */
	u64 migrations;
	u64 xnode_migrations;
	u64 wait_ns;		/* runnable, waiting for a CPU */
	u64 node_ns[];		/* nr_node_ids entries: on-CPU time per node */
};

/*
 * Per-CPU state: written only by this CPU's probes, with interrupts off, so
 * no two writers ever meet; @seq lets readers take consistent copies.
 */
/*
 * A probe times itself on one call in NA_TIME_EVERY: the second clock read
 * and the histogram update on every call were a sixth of the instructions
 * the module adds to a context switch (bench/: insn_phases).  The calls
 * are all counted; the times are a regular sample of them.
 */
#define NA_TIME_EVERY	16

struct na_probe_cost {
	u64 calls;
	u64 timed;		/* of @calls, those timed in @sum_ns and @hist */
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
	u64 wait_ns;		/* runnable tasks waited, preempted here */
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
/*
 * Slot in use.  Set with test_and_set_bit() by a probe taking a slot,
 * cleared with clear_bit_unlock() by the free probe; everything else only
 * reads it, lock-free, and may see a bit a moment stale: the slot's
 * seqcount and key then tell (na_task_read()).  Those readers scan it with
 * na_next_slot().
 */
static unsigned long *na_slot_map;

/* na_next_slot - the first slot in use from @s on; max_tasks: none */
static inline unsigned long na_next_slot(unsigned long s)
{
	/* a racy read by design: see na_slot_map */
	return data_race(find_next_bit(na_slot_map, max_tasks, s));
}

#define na_for_each_slot(s) \
	for ((s) = na_next_slot(0); (s) < max_tasks; (s) = na_next_slot((s) + 1))

/*
 * Slots handed out; a slot is reserved here before its bit is searched for
 * and released after its bit is cleared, so a reservation always finds a
 * free bit.
 */
static atomic_t na_nr_tracked;
static atomic_t na_nr_waiting;		/* live tasks refused a slot */
static atomic_long_t na_nr_dropped;	/* tasks refused a slot at the cap */
static atomic_long_t na_nr_unindexed;	/* events of tasks the index had no room for */
static atomic_long_t na_nr_lost_inherit; /* children of placed tasks without a slot */

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

/*
 * The placement engine's record of one slot's task, in na_recs (same
 * index as the slot).  The engine thread writes it under na_engine_lock.
 *
 * The fork probe reads @key, @born, @last_nodes and @prev_nodes, lock-free:
 * the engine writes those inside write_seqcount_begin/end on @seq with
 * interrupts off (na_rec_publish), so a reader on another CPU waits a few
 * stores at most, and none runs on this CPU meanwhile.  The `tasks` reader
 * takes @home and @mem with READ_ONCE() after checking @key and @born, and
 * may show a value a round old: a new owner's are reset before its @key is
 * published (na_rec_start), so it never shows the previous owner's.
 */
struct na_rec {
	seqcount_t seq;
	unsigned long key;	/* the slot owner described; 0: none */
	u64 born;		/* the owner's na_task.born: key + born = one task */
	u64 last_nodes;		/* nodes last narrowed to, published before the */
	u64 prev_nodes;		/* mask changes, and those before: see na_place */
	u32 gen;		/* na_gen its counters were last read in */
	u8 last_age;		/* rounds since its mask was put back */
	pid_t pid;
	pid_t tgid;
	char comm[TASK_COMM_LEN];
	int home;		/* most recent-weighted residency */
	int mem;		/* where its process's sampled pages are; -1 */
	int cur;		/* node it ran on most in the last round */
	u32 util;		/* decayed milli-CPUs it ran */
	u32 load;		/* decayed milli-CPUs it ran or waited to run */
	u64 prev_wait;		/* the slot's wait_ns at the last round */
	u32 mem_age;		/* rounds since its pages were sampled */
	u8 fresh;		/* 1: seen this round, 2: one round old, 0: older */
	u8 skip;		/* enum na_skip: why it is never placed */
	u8 reason;		/* enum na_reason of its last advice */
	u64 placed;		/* nodes its mask is narrowed to now; 0: none */
	u64 moved_at;		/* local_clock() of the last narrowing */
	u64 let_go_at;		/* and of the last NA_R_SCATTERED */
	u64 restored_at;	/* and of the last mask put back */
	u64 target;		/* the advice */
	u64 prev_target;	/* and last round's */
	u32 cur_score;
	u32 target_score;
	/* then, at na_rec_off: u64 prev_ns[], u64 weight[], u16 mem_pm[], cpumask */
};

/* Why a task is never placed; shown as the reason in `advice`. */
enum na_skip {
	NA_SKIP_NONE,
	NA_SKIP_KTHREAD,
	NA_SKIP_NO_AFFINITY,	/* PF_NO_SETAFFINITY */
	NA_SKIP_PINNED,		/* a user or cpuset narrowed its mask */
	NA_SKIP_EXCLUDED,	/* out of scope */
};

static void *na_recs;
static size_t na_rec_stride;
static size_t na_rec_off_weight, na_rec_off_mem, na_rec_off_mask;

static inline struct na_rec *na_rec(u32 s)
{
	return na_recs + (size_t)s * na_rec_stride;
}

/* node_ns of the slot at the last round */
static inline u64 *na_rec_prev(struct na_rec *r)
{
	return (void *)(r + 1);
}

/* decayed on-CPU time per node */
static inline u64 *na_rec_weight(struct na_rec *r)
{
	return (void *)r + na_rec_off_weight;
}

/* share of its process's sampled pages per node, per-mille */
static inline u16 *na_rec_mem(struct na_rec *r)
{
	return (void *)r + na_rec_off_mem;
}

/* the mask set on it while @placed */
static inline struct cpumask *na_rec_mask(struct na_rec *r)
{
	return (void *)r + na_rec_off_mask;
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
		/* a hint only: test_and_set_bit() below decides */
		s = data_race(find_next_zero_bit(na_slot_map, max_tasks, s));
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
		struct na_task *t = na_task_get(pc, next, gen, now);

		if (t && t->wait_since) {
			u64 since = na_since(t->wait_since);

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
	na_cpu_end(pc, NA_PROBE_SWITCH, na_cpu_timed(pc, NA_PROBE_SWITCH) ? now : 0);
}

static void na_probe_migrate(void *data, struct task_struct *p, int dest_cpu)
{
	u32 gen = READ_ONCE(na_gen);
	struct na_cpu *pc = na_cpu_begin(gen);
	u64 t0 = na_cpu_timed(pc, NA_PROBE_MIGRATE) ? local_clock() : 0;
	struct na_task *t;

	lockdep_assert_irqs_disabled();

	/* It fires before p's CPU changes, also when it does not change. */
	if (task_cpu(p) != dest_cpu)
		t = na_task_get(pc, p, gen, t0 ?: local_clock());
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
	pc = na_cpu_begin(READ_ONCE(na_gen));
	t0 = na_cpu_timed(pc, NA_PROBE_FREE) ? local_clock() : 0;
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

/*
 * sched_process_fork fires in the parent, before the child can run, with
 * interrupts on.  A child copies its parent's CPU mask: if we narrowed the
 * parent, the child carries our mask too, so it is marked for the engine
 * to adopt (and restore).  Its slot is made now, as its first event.  Both
 * the parent's current and previous placements are passed on: a fork that
 * races a move copies one or the other.
 */
static void na_probe_fork(void *data, struct task_struct *parent,
			  struct task_struct *child)
{
	u64 nodes[2] = { 0, 0 };
	unsigned long flags;
	struct na_ient *e;
	struct na_cpu *pc;
	u32 gen;
	u64 t0;

	local_irq_save(flags);
	gen = READ_ONCE(na_gen);
	pc = na_cpu_begin(gen);
	t0 = na_cpu_timed(pc, NA_PROBE_FORK) ? local_clock() : 0;
	e = na_index_find(&na_idx, (unsigned long)parent);
	if (e) {
		u32 s = READ_ONCE(e->slot);

		if (s != NA_SLOT_NONE) {
			/* The parent's own slot: only its own events write it. */
			const struct na_task *pt = na_slot(s);
			struct na_rec *r = na_rec(s);
			unsigned long key;
			unsigned int seq;
			u64 born;

			do {
				seq = read_seqcount_begin(&r->seq);
				key = r->key;
				born = r->born;
				nodes[0] = r->last_nodes;
				nodes[1] = r->prev_nodes;
			} while (read_seqcount_retry(&r->seq, seq));
			/*
			 * A parent the engine has not seen yet may carry a
			 * mask it inherited itself: pass that on.
			 */
			if (key != (unsigned long)parent || born != pt->born) {
				nodes[0] = pt->inherit[0];
				nodes[1] = pt->inherit[1];
			}
		}
	}
	if (nodes[0] || nodes[1]) {
		struct na_task *t = na_task_get(pc, child, gen,
						t0 ?: local_clock());

		if (t) {
			write_seqcount_begin(&t->seq);
			t->inherit[0] = nodes[0];
			t->inherit[1] = nodes[1];
			write_seqcount_end(&t->seq);
		} else {
			atomic_long_inc(&na_nr_lost_inherit);
		}
	}
	na_cpu_end(pc, NA_PROBE_FORK, t0);
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
	{ "sched_process_fork", na_probe_fork },
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
	[NA_PROBE_FORK] = "sched_process_fork",
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
		s->wait_ns = 0;
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
		out->wait_ns = 0;
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
	s = na_next_slot(*pos - 1);
	if (s >= max_tasks)
		return NULL;
	*pos = s + 1;
	return na_slot(s);
}

static void *na_tasks_next(struct seq_file *m, void *v, loff_t *pos)
{
	unsigned long s = v == SEQ_START_TOKEN ? 0 :
			  (v - na_slots) / na_stride + 1;

	s = na_next_slot(s);
	*pos = s + 1;
	return s < max_tasks ? na_slot(s) : NULL;
}

static void na_tasks_stop(struct seq_file *m, void *v)
{
}

/* na_task_add_run - charge @t's run in progress, from @it's snapshot */
static void na_task_add_run(const struct na_tasks_iter *it, struct na_task *t)
{
	struct na_run *run, key;

	key.key = t->key;
	run = bsearch(&key, it->run, it->nr_run, sizeof(*run), na_run_cmp);
	if (run && t->last_out <= run->since && it->now > run->since)
		t->node_ns[run->node] += it->now - run->since;
}

/* na_seq_task - "pid tgid comm", the first columns of a task's row */
static void na_seq_task(struct seq_file *m, struct na_task *t)
{
	seq_printf(m, "%d %d ", t->pid, t->tgid);
	/* Whitespace-separated table: escape it in names, as /proc/mounts does. */
	t->comm[TASK_COMM_LEN - 1] = '\0';
	seq_escape(m, t->comm[0] ? t->comm : "-", " \t\n\\");
}

/* na_seq_node - a node number, or "-" for none */
static void na_seq_node(struct seq_file *m, int node)
{
	if (node < 0)
		seq_puts(m, " -");
	else
		seq_printf(m, " %d", node);
}

static int na_tasks_show(struct seq_file *m, void *v)
{
	struct na_tasks_iter *it = m->private;
	struct na_task *t = it->snap;
	int n, home = -1, mem = -1;
	struct na_rec *r;
	u64 runtime = 0;
	u32 s;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, "pid tgid comm runtime_ns");
		na_print_node_header(m, " node%d_ns");
		seq_puts(m, " migrations xnode_migrations home mem\n");
		return 0;
	}
	s = (v - na_slots) / na_stride;
	if (!na_task_read(s, t))
		return 0;
	/* Running now and not charged for this run yet: add it. */
	na_task_add_run(it, t);
	/* The engine's view, if it has seen this owner of the slot yet. */
	r = na_rec(s);
	if (READ_ONCE(r->key) == t->key && READ_ONCE(r->born) == t->born) {
		smp_rmb();	/* pairs with na_rec_start(): not the old owner's */
		home = READ_ONCE(r->home);
		mem = READ_ONCE(r->mem);
	}

	for_each_online_node(n)
		runtime += t->node_ns[n];
	na_seq_task(m, t);
	seq_printf(m, " %llu", runtime);
	for_each_online_node(n)
		seq_printf(m, " %llu", t->node_ns[n]);
	seq_printf(m, " %llu %llu", t->migrations, t->xnode_migrations);
	na_seq_node(m, home);
	na_seq_node(m, mem);
	seq_putc(m, '\n');
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

/* ------------------------------------------------------------------ */
/* Placement engine (process context)                                  */

/*
 * Everything in this section is under na_engine_lock: the engine thread's
 * rounds, setting changes (module parameters, debugfs writes) and the
 * debugfs files that show what the engine decided.  The probes never take
 * it and never read what it guards, except the na_rec fields named there.
 */
static DEFINE_MUTEX(na_engine_lock);
static struct task_struct *na_engine;	/* NULL while not running */

#define NA_DECAY_SHIFT		2	/* averages move 1/4 a round */
#define NA_MIN_DEMAND		50	/* milli-CPUs worth placing */
#define NA_MEM_SAMPLES		64	/* resident pages sampled per process */
#define NA_MEM_PROBES		256	/* addresses looked at for them, at most */
#define NA_MEM_EVERY		4	/* rounds between two samplings */
#define NA_MEM_MIN_PAGES	8	/* fewer resident: no memory node */

static const char *const na_class_names[NA_NR_CLASSES + 1] = {
	[NA_SPARE] = "has-spare",
	[NA_BUSY] = "fully-busy",
	[NA_OVERLOADED] = "overloaded",
	[NA_NR_CLASSES] = "-",
};

static const char *const na_reason_names[NA_NR_REASONS] = {
	[NA_R_NO_DATA] = "too-little-run",
	[NA_R_MOVE] = "move",
	[NA_R_STAY] = "stay",
	[NA_R_GAIN] = "gain-below-threshold",
	[NA_R_HOLD] = "moved-recently",
	[NA_R_OVERLOADED] = "best-node-overloaded",
	[NA_R_BUSIER] = "best-node-busier",
	[NA_R_NO_ROOM] = "no-room",
	[NA_R_WIDE] = "needs-all-nodes",
	[NA_R_SCATTERED] = "scattered",
	[NA_R_CROWDED] = "crowded",
	[NA_R_SWAP] = "swap",
};

static const char *const na_skip_names[] = {
	[NA_SKIP_NONE] = "-",
	[NA_SKIP_KTHREAD] = "kernel-thread",
	[NA_SKIP_NO_AFFINITY] = "no-affinity",
	[NA_SKIP_PINNED] = "pinned",
	[NA_SKIP_EXCLUDED] = "excluded",
};

struct na_node {
	u64 busy;		/* the node's CPU totals at the last round */
	u64 wait;
	u32 cap;		/* milli-CPUs: 1000 per online CPU */
	u32 util;		/* decayed busy time, milli-CPUs */
	u32 runnable;		/* decayed busy + waiting time, milli-CPUs */
	enum na_class cls;
};

static struct na_node *na_nodes;	/* nr_node_ids */
static u8 *na_dist;			/* nr_node_ids^2 SLIT distances */
static u64 na_last_round;
static u64 na_rounds;
static u32 na_nodes_gen;		/* na_gen of the node totals */

/* A unit being placed, and which records (na_order[first..]) it holds. */
struct na_work_unit {
	struct na_unit u;
	pid_t id;		/* pid (home) or tgid (distance) */
	u32 first;
	u32 n;
};

/* One round's work space, sized at load for every slot. */
static u32 *na_order;			/* records by tgid, placeable first */
static struct na_work_unit *na_units;
static u32 *na_scores;			/* nr_node_ids per unit */
static u64 *na_node_scratch;		/* nr_node_ids */
static u32 *na_cap;			/* nr_node_ids */
static s32 *na_room;			/* nr_node_ids */
static enum na_class *na_cls;		/* nr_node_ids */
static struct na_tasks_iter na_round_it;
static unsigned long *na_rec_map;	/* records in use; na_engine_lock */
static cpumask_var_t na_mask_tmp;
static char *na_path_buf;		/* PATH_MAX, for cgroup paths */

static struct {
	u64 moves;		/* masks narrowed (or moved to other nodes) */
	u64 restores;		/* masks put back */
	u64 overridden;		/* masks someone else changed after us */
	u64 apply_errors;	/* set_cpus_allowed_ptr() refused */
	u64 refused[NA_NR_REASONS]; /* advice to stay, by reason, per round */
	u64 swaps;		/* pairs advised to trade places (na_swap()) */
} na_stats;

/* ---- scope: which tasks may be placed ---- */

enum na_rule_kind {
	NA_RULE_PID,		/* its pid or its process's */
	NA_RULE_COMM,		/* its name, exactly */
	NA_RULE_CGROUP,		/* a cgroup (v2) and everything below it */
};

static const char *const na_rule_kinds[] = {
	[NA_RULE_PID] = "pid",
	[NA_RULE_COMM] = "comm",
	[NA_RULE_CGROUP] = "cgroup",
};

#define NA_MAX_RULES	16
#define NA_RULE_LEN	128

struct na_rule {
	bool include;
	enum na_rule_kind kind;
	pid_t pid;
	char str[NA_RULE_LEN];
};

static struct na_rule na_rules[NA_MAX_RULES];
static int na_nr_rules;

/* na_get_task - a reference to @r's task if it is still alive, or NULL */
static struct task_struct *na_get_task(const struct na_rec *r)
{
	struct task_struct *p;

	rcu_read_lock();
	/* Our pids are global ones: not the caller's namespace's. */
	p = pid_task(find_pid_ns(r->pid, &init_pid_ns), PIDTYPE_PID);
	if (p && (unsigned long)p == r->key)
		get_task_struct(p);
	else
		p = NULL;
	rcu_read_unlock();
	return p;
}

/* na_cgroup_match - is @p in cgroup @path or below it? */
static bool na_cgroup_match(struct task_struct *p, const char *path)
{
	size_t len = strlen(path);
	struct cgroup *cgrp;
	int ret;

	rcu_read_lock();
	cgrp = task_dfl_cgroup(p);
	if (!css_tryget(&cgrp->self))
		cgrp = NULL;
	rcu_read_unlock();
	if (!cgrp)
		return false;
	ret = cgroup_path_ns(cgrp, na_path_buf, PATH_MAX,
			     current->nsproxy->cgroup_ns);
	css_put(&cgrp->self);
	if (ret < 0 || ret >= PATH_MAX)
		return false;
	if (len == 1)		/* "/": all of them */
		return true;
	return !strncmp(na_path_buf, path, len) &&
	       (na_path_buf[len] == '\0' || na_path_buf[len] == '/');
}

static bool na_rule_match(const struct na_rule *rule, const struct na_rec *r,
			  const struct na_task *t)
{
	struct task_struct *p;
	bool match;

	switch (rule->kind) {
	case NA_RULE_PID:
		return rule->pid == t->pid || rule->pid == t->tgid;
	case NA_RULE_COMM:
		return !strncmp(rule->str, t->comm, TASK_COMM_LEN);
	case NA_RULE_CGROUP:
		p = na_get_task(r);
		if (!p)
			return false;
		match = na_cgroup_match(p, rule->str);
		put_task_struct(p);
		return match;
	}
	return false;
}

/*
 * na_in_scope - with include rules, a task must match one of them; it
 * must match no exclude rule.  No rules: every task is in scope.
 */
static bool na_in_scope(const struct na_rec *r, const struct na_task *t)
{
	bool included = false, any_include = false;
	int i;

	for (i = 0; i < na_nr_rules; i++) {
		const struct na_rule *rule = &na_rules[i];

		if (rule->include) {
			any_include = true;
			if (!included)
				included = na_rule_match(rule, r, t);
		} else if (na_rule_match(rule, r, t)) {
			return false;
		}
	}
	return !any_include || included;
}

/* ---- records ---- */

/*
 * na_rec_publish - the fields the fork probe reads, see struct na_rec.
 * Interrupts are off, not only preemption: the probe reads @r->seq inside
 * its CPU's pc->seq section, which the switch probe opens under the
 * runqueue lock, so lockdep sees the runqueue lock (taken in hardirq
 * context) ordered before @r->seq, and a write section an interrupt could
 * enter would be an inversion to it.  It also keeps the reader's wait to a
 * few stores.
 */
static void na_rec_publish(struct na_rec *r, unsigned long key, u64 born,
			   u64 last, u64 prev)
{
	unsigned long flags;

	local_irq_save(flags);
	write_seqcount_begin(&r->seq);
	r->key = key;
	r->born = born;
	r->last_nodes = last;
	r->prev_nodes = prev;
	write_seqcount_end(&r->seq);
	local_irq_restore(flags);
}

/* na_rec_narrowing - tell the fork probe @nodes is @r's mask from now */
static void na_rec_narrowing(struct na_rec *r, u64 nodes)
{
	if (nodes != r->last_nodes)
		na_rec_publish(r, r->key, r->born, nodes, r->last_nodes);
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
 * read it under the former, as sched_getaffinity() does.
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
static void na_adopt(struct na_rec *r, const u64 *nodes, u64 now)
{
	struct task_struct *p = na_get_task(r);
	int i;

	if (!p)
		return;
	for (i = 0; i < 2; i++) {
		if (!nodes[i])
			continue;
		na_nodes_cpumask(nodes[i], na_mask_tmp);
		if (!na_mask_is(p, na_mask_tmp))
			continue;
		cpumask_copy(na_rec_mask(r), na_mask_tmp);
		r->placed = nodes[i];
		r->moved_at = now;
		na_rec_narrowing(r, nodes[i]);
		trace_numa_advise_place(r->pid, r->tgid, r->comm, 0, nodes[i],
					"adopted");
		break;
	}
	put_task_struct(p);
}

/* na_rec_start - first sight of the task that now owns slot @s */
static void na_rec_start(u32 s, const struct na_task *t, u64 now)
{
	struct na_rec *r = na_rec(s);

	/* Ordered before the key by the write barrier of na_rec_publish(). */
	WRITE_ONCE(r->home, -1);
	WRITE_ONCE(r->mem, -1);
	na_rec_publish(r, t->key, t->born, 0, 0);
	r->gen = READ_ONCE(na_gen);
	r->last_age = 0;
	r->pid = t->pid;
	r->tgid = t->tgid;
	memcpy(r->comm, t->comm, TASK_COMM_LEN);
	r->comm[TASK_COMM_LEN - 1] = '\0';
	r->cur = -1;
	r->util = 0;
	r->load = 0;
	r->prev_wait = t->wait_ns;
	r->fresh = 1;
	r->mem_age = NA_MEM_EVERY;
	r->skip = NA_SKIP_NONE;
	r->reason = NA_R_NO_DATA;
	r->placed = 0;
	r->moved_at = 0;
	r->let_go_at = 0;
	r->restored_at = 0;
	r->target = 0;
	r->cur_score = 0;
	r->target_score = 0;
	/* Its history counts for residency, not for this round's load. */
	memcpy(na_rec_prev(r), t->node_ns, nr_node_ids * sizeof(u64));
	memcpy(na_rec_weight(r), t->node_ns, nr_node_ids * sizeof(u64));
	memset(na_rec_mem(r), 0, nr_node_ids * sizeof(u16));
	set_bit(s, na_rec_map);
	if (t->inherit[0] || t->inherit[1])
		na_adopt(r, t->inherit, now);
}

/* na_rec_forget - the task is gone: nothing of it is left to restore */
static void na_rec_forget(u32 s)
{
	na_rec_publish(na_rec(s), 0, 0, 0, 0);
	clear_bit(s, na_rec_map);
}

/*
 * na_delta - how much a counter grew since @prev.  After a reset it
 * counts from zero; otherwise a smaller value (the run in progress was
 * added last time, and a CPU went offline before charging it) is no
 * growth, not a wrap.
 */
static u64 na_delta(u64 val, u64 prev, bool reset)
{
	if (reset)
		return val;
	return val > prev ? val - prev : 0;
}

/* na_rate - @ns of time in @dt, as milli-CPUs */
static u32 na_rate(u64 ns, u64 dt)
{
	return min_t(u64, div64_u64(ns * 1000, dt), U32_MAX);
}

static enum na_skip na_skip_of(const struct na_rec *r, const struct na_task *t)
{
	if (t->pflags & PF_KTHREAD)
		return NA_SKIP_KTHREAD;
	if (t->pflags & PF_NO_SETAFFINITY)
		return NA_SKIP_NO_AFFINITY;
	if (!na_in_scope(r, t))
		return NA_SKIP_EXCLUDED;
	/*
	 * Checked again on the task itself before any change.  The slot's
	 * count dates from the task's last switch-out: one we gave all CPUs
	 * back to and that has run on since is not pinned for that.
	 */
	if (!r->placed && t->nr_cpus_allowed < nr_cpu_ids &&
	    !(r->restored_at && t->last_out <= r->restored_at))
		return NA_SKIP_PINNED;
	return NA_SKIP_NONE;
}

/*
 * na_rec_rates - @r's decayed load, from the @ran ns its task ran in the
 * last @dt ns and the time it waited.  The first round after the one it
 * was first seen in counts whole: the averages do not climb from zero,
 * or a busy process would be judged small while they did.
 */
static void na_rec_rates(struct na_rec *r, const struct na_task *t, u64 ran,
			 u64 dt, bool reset)
{
	u64 waited = na_delta(t->wait_ns, r->prev_wait, reset);
	u32 util = na_rate(ran, dt);
	/*
	 * Its demand, as the kernel's runnable_avg: waiting counts too, or
	 * a thread sharing a CPU would look as if it needed half of one; but
	 * one thread never needs more than one CPU.
	 */
	u32 load = min(na_rate(ran + waited, dt), 1000U);

	r->prev_wait = t->wait_ns;
	if (r->fresh == 1) {	/* the round it was first seen in */
		r->fresh = 2;
		return;
	}
	r->util = na_decay(r->fresh ? util : r->util, util, NA_DECAY_SHIFT);
	r->load = na_decay(r->fresh ? load : r->load, load, NA_DECAY_SHIFT);
	r->fresh = 0;
}

/*
 * na_rec_update - fold slot @s's counters since the last round into its
 * record: load, decayed residency, home node and current node.  @gen is
 * na_gen as the round began.
 */
static void na_rec_update(u32 s, u64 now, u64 dt, u32 gen)
{
	struct na_task *t = na_round_it.snap;
	struct na_rec *r = na_rec(s);
	u64 *prev, *w, sum = 0, best = 0, total = 0;
	bool reset;
	int n;

	if (!na_task_read(s, t))
		return;
	na_task_add_run(&na_round_it, t);
	if (r->key != t->key || r->born != t->born)
		na_rec_start(s, t, now);
	reset = r->gen != gen;
	r->gen = gen;

	prev = na_rec_prev(r);
	w = na_rec_weight(r);
	r->cur = -1;
	for (n = 0; n < nr_node_ids; n++) {
		u64 d = na_delta(t->node_ns[n], prev[n], reset);

		prev[n] = t->node_ns[n];
		w[n] = w[n] - (w[n] >> NA_DECAY_SHIFT) + d;
		total += w[n];
		sum += d;
		if (d > best) {
			best = d;
			r->cur = n;
		}
	}
	na_rec_rates(r, t, sum, dt, reset);
	WRITE_ONCE(r->home, total ? na_argmax(w, nr_node_ids, r->home) : -1);
	if (r->cur < 0)
		r->cur = r->home;
	r->pid = t->pid;
	r->tgid = t->tgid;
	memcpy(r->comm, t->comm, TASK_COMM_LEN);
	r->comm[TASK_COMM_LEN - 1] = '\0';
	r->skip = na_skip_of(r, t);
	if (r->mem_age < NA_MEM_EVERY)
		r->mem_age++;
	/*
	 * Children forked while its mask was being put back still get the
	 * nodes passed on for two rounds; then its mask is no longer ours
	 * to recognise in them.
	 */
	if (!r->placed && r->last_nodes && ++r->last_age > 2)
		na_rec_publish(r, r->key, r->born, 0, 0);
}

/* ---- memory node: sampled pages ---- */

static long na_gup_one(struct mm_struct *mm, unsigned long addr,
		       struct page **page)
{
	/* Only pages already there: sampling must not fault anything in. */
#if KERNEL_VERSION(6, 5, 0) > LINUX_VERSION_CODE
	return get_user_pages_remote(mm, addr, 1, FOLL_NOFAULT, page, NULL,
				     NULL);
#else
	return get_user_pages_remote(mm, addr, 1, FOLL_NOFAULT, page, NULL);
#endif
}

static bool na_vma_sampled(const struct vm_area_struct *vma)
{
	return !(vma->vm_flags & (VM_IO | VM_PFNMAP));
}

/*
 * na_mem_sample - where @p's memory is: up to NA_MEM_PROBES addresses
 * spread evenly (from a random start) over its mappings, and the node of
 * each page found resident, until NA_MEM_SAMPLES are found; the kernel's
 * own answer to move_pages(2) with no target, for a sample.  Most of a
 * process's address space is often not resident (thread stacks, heap
 * reserves): those addresses, the zero page and mappings of device memory
 * are not counted.  Fills @pm (per-mille per node) and
 * returns the number of pages found; -EAGAIN if the process's mmap_lock
 * was busy (it is tried again next round) or it has no memory.
 */
static int na_mem_sample(struct task_struct *p, u16 *pm)
{
	unsigned int found = 0, *count = (unsigned int *)na_node_scratch;
	unsigned long total = 0, step, pos, base = 0;
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	int n;

	mm = get_task_mm(p);
	if (!mm)
		return -EAGAIN;
	if (!mmap_read_trylock(mm)) {
		mmput(mm);
		return -EAGAIN;
	}
	memset(count, 0, nr_node_ids * sizeof(*count));
	for (vma = find_vma(mm, 0); vma; vma = find_vma(mm, vma->vm_end))
		if (na_vma_sampled(vma))
			total += (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
	if (!total)
		goto unlock;

	step = max(total / NA_MEM_PROBES, 1UL);
	pos = get_random_u32_below(step);
	for (vma = find_vma(mm, 0); vma && found < NA_MEM_SAMPLES;
	     vma = find_vma(mm, vma->vm_end)) {
		unsigned long pages = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;

		if (!na_vma_sampled(vma))
			continue;
		for (; pos < base + pages && found < NA_MEM_SAMPLES; pos += step) {
			unsigned long addr = vma->vm_start +
					     ((pos - base) << PAGE_SHIFT);
			struct page *page;

			if (na_gup_one(mm, addr, &page) != 1)
				continue;
			if (!is_zero_pfn(page_to_pfn(page))) {
				/* other flags change; the node does not */
				count[data_race(page_to_nid(page))]++;
				found++;
			}
			put_page(page);
		}
		base += pages;
	}
unlock:
	mmap_read_unlock(mm);
	for (n = 0; n < nr_node_ids; n++)
		pm[n] = found ? count[n] * 1000 / found : 0;
	mmput(mm);
	return found;
}

/*
 * na_mem_update - sample the memory of the process whose records are
 * na_order[first..first+n) when due, and give every thread the result
 */
static void na_mem_update(u32 first, u32 n)
{
	struct na_rec *r0 = na_rec(na_order[first]), *r;
	struct task_struct *p;
	int found, mem = -1;
	u32 i, busy = 0;

	bool due = false;

#ifdef NA_TEST_NO_MEM_SAMPLE
	/* Test build only: an arm of tests/repro-stall.sh, nothing sampled. */
	return;
#endif
	for (i = 0; i < n; i++) {
		r = na_rec(na_order[first + i]);
		busy += r->util;
		due |= r->mem_age >= NA_MEM_EVERY;
	}
	/* Only processes busy enough to be placed: sampling costs. */
	if (busy < NA_MIN_DEMAND || !due)
		return;
	p = na_get_task(r0);
	if (!p)
		return;
	found = na_mem_sample(p, na_rec_mem(r0));
	put_task_struct(p);
	if (found < 0)
		return;
	if (found >= NA_MEM_MIN_PAGES) {
		u16 *pm = na_rec_mem(r0);
		int nd;

		for (mem = 0, nd = 1; nd < nr_node_ids; nd++)
			if (pm[nd] > pm[mem])
				mem = nd;
	}
	for (i = 0; i < n; i++) {
		r = na_rec(na_order[first + i]);
		if (r != r0)
			memcpy(na_rec_mem(r), na_rec_mem(r0),
			       nr_node_ids * sizeof(u16));
		WRITE_ONCE(r->mem, mem);
		r->mem_age = 0;
	}
}

/* ---- nodes ---- */

/* na_cpu_totals - add @cpu's busy, idle and waiting time up to @now */
static void na_cpu_totals(int cpu, u64 now, u64 *busy, u64 *idle, u64 *wait)
{
	struct na_cpu_sched c;
	u64 since;

	na_cpu_read_sched(cpu, &c);
	*busy += c.busy_ns;
	*idle += c.idle_ns;
	*wait += c.wait_ns;
	/* The run in progress on this CPU, not charged yet. */
	since = na_since(c.last);
	if (c.last && !c.offline && cpu_online(cpu) && now > since) {
		if (c.curr_key)
			*busy += now - since;
		else
			*idle += now - since;
	}
}

/* na_nodes_update - decayed load and class of every node, @dt ns on */
static void na_nodes_update(u64 now, u64 dt, u32 gen)
{
	u32 imb = READ_ONCE(na_imbalance_pct.val);
	u32 margin = READ_ONCE(na_margin_pm.val);
	bool reset = na_nodes_gen != gen;
	enum na_class cls;
	int n, cpu;

	na_nodes_gen = gen;
	for (n = 0; n < nr_node_ids; n++) {
		struct na_node *nd = &na_nodes[n];
		u64 busy = 0, idle = 0, wait = 0, db, dw;
		unsigned int cpus = 0;

		for_each_possible_cpu(cpu) {
			if (per_cpu_ptr(na_cpus, cpu)->node != n)
				continue;
			na_cpu_totals(cpu, now, &busy, &idle, &wait);
			cpus += cpu_online(cpu);
		}
		db = na_delta(busy, nd->busy, reset);
		dw = na_delta(wait, nd->wait, reset);
		nd->busy = busy;
		nd->wait = wait;
		nd->cap = cpus * 1000;
		nd->util = na_decay(nd->util, na_rate(db, dt), NA_DECAY_SHIFT);
		nd->runnable = na_decay(nd->runnable, na_rate(db + dw, dt),
					NA_DECAY_SHIFT);
		cls = nd->cap ? na_classify(nd->cls, nd->cap, nd->util,
					    nd->runnable, imb, margin) :
				NA_NR_CLASSES;
		if (cls != nd->cls && nd->cap)
			trace_numa_advise_node_class(n, na_class_names[nd->cls],
				na_class_names[cls],
				div_u64((u64)nd->util * 1000, nd->cap),
				div_u64((u64)nd->runnable * 1000, nd->cap));
		nd->cls = cls;
	}
}

/* ---- placing and restoring masks ---- */

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
static void na_place(struct na_rec *r, u64 nodes, u64 now)
{
	struct task_struct *p = na_get_task(r);
	bool widen = false;

	if (!p)
		return;
	/*
	 * cpus_mask, not cpus_ptr: a task in a migrate_disable() section
	 * shows a one-CPU cpus_ptr for a while.
	 */
	if (r->placed) {
		if (!na_mask_is(p, na_rec_mask(r)))
			goto overridden;
		/*
		 * Placed while a CPU of its nodes was offline, and the CPU
		 * is back: the mask takes it in, which is not a move.
		 */
		na_nodes_cpumask(nodes, na_mask_tmp);
		widen = r->placed == nodes;
		if (widen && cpumask_subset(na_mask_tmp, na_rec_mask(r)))
			goto put;
	} else if ((READ_ONCE(p->flags) &
		    (PF_KTHREAD | PF_NO_SETAFFINITY | PF_EXITING)) ||
		   READ_ONCE(p->policy) == SCHED_DEADLINE ||
		   !na_mask_has_all(p)) {
		/* Deadline tasks: their admission control is per root domain. */
		goto put;
	}
	na_nodes_cpumask(nodes, na_mask_tmp);
	if (cpumask_empty(na_mask_tmp))
		goto put;
	/* Before the mask changes: a child forked meanwhile gets either. */
	na_rec_narrowing(r, nodes);
	if (set_cpus_allowed_ptr(p, na_mask_tmp)) {
		na_stats.apply_errors++;
		goto put;
	}
	if (!widen) {
		trace_numa_advise_place(r->pid, r->tgid, r->comm, r->placed,
					nodes, na_reason_names[r->reason]);
		r->moved_at = now;
		na_stats.moves++;
	}
	/* A sched_setaffinity() since ours: the mask is the user's. */
	if (!na_mask_is(p, na_mask_tmp))
		goto overridden;
	cpumask_copy(na_rec_mask(r), na_mask_tmp);
	r->placed = nodes;
put:
	put_task_struct(p);
	return;
overridden:
	r->placed = 0;
	na_stats.overridden++;
	put_task_struct(p);
}

/*
 * na_restore - give @r's task back all CPUs, unless someone changed its
 * mask after us.  We only ever narrowed masks that allowed every CPU.
 */
static void na_restore(struct na_rec *r)
{
	struct task_struct *p = na_get_task(r);

	if (p) {
		if (!na_mask_is(p, na_rec_mask(r))) {
			na_stats.overridden++;
		} else if (set_cpus_allowed_ptr(p, cpu_possible_mask)) {
			na_stats.apply_errors++;
		} else {
			na_stats.restores++;
			r->restored_at = local_clock();
			trace_numa_advise_place(r->pid, r->tgid, r->comm,
						r->placed, 0, "restored");
		}
		put_task_struct(p);
	}
	r->placed = 0;
	r->last_age = 0;
}

/* na_records_forget - drop the records of tasks gone since */
static void na_records_forget(void)
{
	struct na_task *t = na_round_it.snap;
	unsigned long s;

	for_each_set_bit(s, na_rec_map, max_tasks) {
		struct na_rec *r = na_rec(s);

		if (!na_task_read(s, t) || t->key != r->key || t->born != r->born)
			na_rec_forget(s);
	}
}

/*
 * na_restore_all - put back every mask we narrowed, also those children
 * of placed tasks inherited that the engine had not seen yet.  Only the
 * records' identities are brought up to date, not their loads: that is
 * the rounds' job, over whole intervals.
 */
static void na_restore_all(void)
{
	struct na_task *t = na_round_it.snap;
	u64 now = local_clock();
	unsigned long s;

	na_for_each_slot(s) {
		struct na_rec *r = na_rec(s);

		if (na_task_read(s, t) &&
		    (r->key != t->key || r->born != t->born))
			na_rec_start(s, t, now);
	}
	na_records_forget();
	for_each_set_bit(s, na_rec_map, max_tasks)
		if (na_rec(s)->placed)
			na_restore(na_rec(s));
}

/* ---- a round ---- */

static int na_order_cmp(const void *a, const void *b)
{
	const struct na_rec *x = na_rec(*(const u32 *)a);
	const struct na_rec *y = na_rec(*(const u32 *)b);

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (!x->skip != !y->skip)
		return x->skip ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int na_unit_cmp(const void *a, const void *b)
{
	const struct na_work_unit *x = a, *y = b;

	/* Placed units first: where they are is settled before newcomers. */
	if (x->u.placed != y->u.placed)
		return x->u.placed ? -1 : 1;
	if (x->u.demand != y->u.demand)
		return x->u.demand > y->u.demand ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * na_unit_fill - a unit's load, where it is, and its score per node.  The
 * 2003 seed's home node holds both the memory and the running: the score
 * is the residency (weighted by each thread's load) averaged with where
 * the process's memory is, when that is known, the memory counted twice:
 * a task moves in microseconds, its pages do not.
 */
static void na_unit_fill(struct na_work_unit *wu, u32 *score, u64 now)
{
	u32 hold_ms = READ_ONCE(na_min_move_ms.val);
	u64 *acc = na_node_scratch, weight = 0;
	struct na_rec *r0 = na_rec(na_order[wu->first]);
	bool fresh = false;
	u32 i;
	int n;

	memset(acc, 0, nr_node_ids * sizeof(*acc));
	wu->u.demand = 0;
	wu->u.cur = 0;
	wu->u.placed = true;
	wu->u.hold = false;
	wu->u.may_let_go = true;
	for (i = 0; i < wu->n; i++) {
		struct na_rec *r = na_rec(na_order[wu->first + i]);
		u64 *w = na_rec_weight(r), sum = 0, tw = max(r->util, 1U);

		wu->u.demand += r->load;
		if (r->placed)
			wu->u.cur |= r->placed;
		else if (r->cur >= 0)
			wu->u.cur |= 1ULL << r->cur;
		if (!r->placed)
			wu->u.placed = false;
		fresh |= r->fresh;
		if (r->placed && now - r->moved_at < (u64)hold_ms * NSEC_PER_MSEC)
			wu->u.hold = true;
		/* at most once in ten holds, and ten seconds */
		if (r->let_go_at && now - r->let_go_at <
		    max(10ULL * hold_ms, 10000ULL) * NSEC_PER_MSEC)
			wu->u.may_let_go = false;
		for (n = 0; n < nr_node_ids; n++)
			sum += w[n];
		if (!sum)
			continue;
		for (n = 0; n < nr_node_ids; n++)
			acc[n] += div64_u64(tw * w[n] * 1000, sum);
		weight += tw;
	}
	for (n = 0; n < nr_node_ids; n++) {
		u32 res = weight ? div64_u64(acc[n], weight) : 0;

		score[n] = r0->mem >= 0 ? (res + 2 * na_rec_mem(r0)[n]) / 3 : res;
	}
	wu->u.score = score;
	/* A thread without a whole round yet: judged next round. */
	if (fresh)
		wu->u.demand = 0;
}

/*
 * na_units_build - group the placeable records into units: one per task
 * for `home`, one per process for `distance`.  Returns how many.
 */
static u32 na_units_build(u64 now, bool per_process)
{
	u32 nr = 0, nu = 0, i, j, k;
	unsigned long s;

	for_each_set_bit(s, na_rec_map, max_tasks)
		if (na_rec(s)->skip != NA_SKIP_KTHREAD)
			na_order[nr++] = s;
	sort(na_order, nr, sizeof(*na_order), na_order_cmp, NULL);

	for (i = 0; i < nr; i = j) {
		pid_t tgid = na_rec(na_order[i])->tgid;
		u32 placeable = 0;

		for (j = i; j < nr && na_rec(na_order[j])->tgid == tgid; j++)
			placeable += !na_rec(na_order[j])->skip;
		na_mem_update(i, j - i);
		for (k = i; k < i + placeable; k++) {
			struct na_work_unit *wu = &na_units[nu];

			wu->first = k;
			wu->n = per_process ? placeable : 1;
			wu->id = per_process ? tgid : na_rec(na_order[k])->pid;
			na_unit_fill(wu, na_scores + (size_t)nu * nr_node_ids,
				     now);
			nu++;
			if (per_process)
				break;
		}
	}
	return nu;
}

/*
 * na_machine_init - capacity and classes of the nodes, and the room
 * left on each for the units: capacity (up to imbalance_pct) less the
 * load of everything this round does not place.
 *
 * The classes the policy judges by are the nodes' classes without the
 * units being placed: a node overloaded by the very threads this round
 * spreads out is no reason to keep them from it, while one overloaded by
 * work that stays (pinned, excluded, kernel threads) is.  `nodes` shows
 * the classes with everything.
 */
static void na_machine_init(struct na_machine *m, u32 nu, bool nearby)
{
	u32 imb = READ_ONCE(na_imbalance_pct.val);
	u64 *runnable = na_node_scratch;
	u32 i, k;
	int n;

	for (n = 0; n < nr_node_ids; n++) {
		na_cap[n] = na_nodes[n].cap;
		na_room[n] = na_nodes[n].util;	/* base load, for now */
		runnable[n] = na_nodes[n].runnable;
	}
	for (i = 0; i < nu; i++) {
		for (k = 0; k < na_units[i].n; k++) {
			struct na_rec *r = na_rec(na_order[na_units[i].first + k]);

			if (r->cur < 0)
				continue;
			na_room[r->cur] -= min_t(s32, na_room[r->cur], r->util);
			runnable[r->cur] -= min_t(u64, runnable[r->cur], r->load);
		}
	}
	for (n = 0; n < nr_node_ids; n++) {
		na_cls[n] = na_cap[n] ?
			    na_classify_raw(na_cap[n], na_room[n], runnable[n],
					    imb) : NA_OVERLOADED;
		na_room[n] = (s32)na_sub_sat((u64)na_cap[n] * imb / 100,
					     na_room[n]);
	}

	*m = (struct na_machine){
		.nr = nr_node_ids,
		.dist = na_dist,
		.cap = na_cap,
		.cls = na_cls,
		.room = na_room,
		.imb_pct = imb,
		.gain_pm = READ_ONCE(na_gain_pm.val),
		.min_demand = NA_MIN_DEMAND,
		.nearby = nearby,
	};
}

/* na_units_apply - in enforce mode, make the masks follow the advice */
static void na_units_apply(u32 nu, u64 now)
{
	u64 all = nr_node_ids >= 64 ? ~0ULL : (1ULL << nr_node_ids) - 1;
	u32 i, k;

	for (i = 0; i < nu; i++) {
		const struct na_unit *u = &na_units[i].u;

		for (k = 0; k < na_units[i].n; k++) {
			struct na_rec *r = na_rec(na_order[na_units[i].first + k]);

			switch (u->reason) {
			case NA_R_NO_DATA:
			case NA_R_HOLD:
				break;
			case NA_R_WIDE:
			case NA_R_SCATTERED:
				if (r->placed)
					na_restore(r);
				break;
			default:
				/* Where it belongs, or the best it can have. */
				if (u->target && u->target != all)
					na_place(r, u->target, now);
			}
		}
	}
}

static void na_round(void)
{
	int policy = READ_ONCE(na_policy);
	u32 gen = READ_ONCE(na_gen);
	u64 now = local_clock(), dt = now - na_last_round;
	struct na_machine m;
	unsigned long s;
	u32 nu, i, k;

	if (!dt)
		return;
	na_rounds++;
	na_nodes_update(now, dt, gen);
	na_tasks_snapshot(&na_round_it);
	na_for_each_slot(s)
		na_rec_update(s, now, dt, gen);
	na_records_forget();
	na_last_round = now;

	for_each_set_bit(s, na_rec_map, max_tasks) {
		struct na_rec *r = na_rec(s);

		r->prev_target = r->target;
		r->target = 0;
		r->reason = NA_R_NO_DATA;
	}
	nu = na_units_build(now, policy == NA_POLICY_DISTANCE);
	if (policy == NA_POLICY_NONE)
		nu = 0;

	na_machine_init(&m, nu, policy == NA_POLICY_DISTANCE);
	sort(na_units, nu, sizeof(*na_units), na_unit_cmp, NULL);
	for (i = 0; i < nu; i++)
		na_preclaim(&m, &na_units[i].u);
	for (i = 0; i < nu; i++)
		na_place_unit(&m, &na_units[i].u, na_node_scratch);
	/*
	 * Those kept from their best node by placed units: trade places?
	 * Only units on that node can, so the inner loop is mostly one
	 * comparison a unit; and only under `home` (na_swap()).
	 */
	for (i = 0; i < nu && policy == NA_POLICY_HOME; i++) {
		struct na_unit *u = &na_units[i].u;
		u64 want;

		if (u->reason != NA_R_NO_ROOM)
			continue;
		want = 1ULL << na_best_node(u->score, nr_node_ids);
		for (k = 0; k < nu; k++)
			if (na_units[k].u.cur == want &&
			    na_swap(&m, u, &na_units[k].u)) {
				na_stats.swaps++;
				break;
			}
		cond_resched();
	}
	for (i = 0; i < nu; i++) {
		struct na_work_unit *wu = &na_units[i];

		if (wu->u.reason != NA_R_MOVE && wu->u.reason != NA_R_STAY &&
		    wu->u.reason != NA_R_SCATTERED &&
		    wu->u.reason != NA_R_CROWDED && wu->u.reason != NA_R_SWAP)
			na_stats.refused[wu->u.reason]++;
		for (k = 0; k < wu->n; k++) {
			struct na_rec *r = na_rec(na_order[wu->first + k]);

			r->target = wu->u.target;
			r->reason = wu->u.reason;
			if (r->reason == NA_R_SCATTERED)
				r->let_go_at = now;
			r->cur_score = wu->u.cur_score;
			r->target_score = wu->u.target_score;
			if (r->target != r->prev_target && r->target)
				trace_numa_advise_advice(r->pid, r->tgid,
					r->comm, r->prev_target, r->target,
					na_reason_names[r->reason]);
		}
	}

	if (policy != NA_POLICY_NONE && READ_ONCE(na_mode) == NA_MODE_ENFORCE)
		na_units_apply(nu, now);
	/* Out of scope, policy none or advise mode: nothing stays narrowed. */
	for_each_set_bit(s, na_rec_map, max_tasks) {
		struct na_rec *r = na_rec(s);

		if (r->placed && (r->skip || policy == NA_POLICY_NONE ||
				  READ_ONCE(na_mode) != NA_MODE_ENFORCE))
			na_restore(r);
	}
}

static int na_engine_fn(void *unused)
{
	while (!kthread_should_stop()) {
		mutex_lock(&na_engine_lock);
		na_round();
		mutex_unlock(&na_engine_lock);

		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule_timeout(msecs_to_jiffies(READ_ONCE(na_interval_ms.val)));
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/*
 * na_set_choice - change the policy or the mode; what the new setting no
 * longer wants is put back before this returns, and the engine wakes to
 * act on it at once
 */
static int na_set_choice(int *setting, int val)
{
	if (setting == &na_policy && val != NA_POLICY_NONE &&
	    nr_node_ids > NA_MAX_NODES) {
		if (!na_live)
			pr_err("placement handles up to %d nodes, not %u\n",
			       NA_MAX_NODES, nr_node_ids);
		return -EOPNOTSUPP;
	}
	mutex_lock(&na_engine_lock);
	WRITE_ONCE(*setting, val);
	if (na_engine) {
		if (na_policy == NA_POLICY_NONE || na_mode != NA_MODE_ENFORCE)
			na_restore_all();
		wake_up_process(na_engine);
	}
	mutex_unlock(&na_engine_lock);
	return 0;
}

/* ------------------------------------------------------------------ */
/* debugfs files                                                       */

static int na_nodes_show(struct seq_file *m, void *v)
{
	u64 now = local_clock();
	int n, cpu;

	seq_puts(m, "node cpus busy_ns idle_ns wait_ns switches util_pm runnable_pm class\n");
	mutex_lock(&na_engine_lock);
	for_each_online_node(n) {
		const struct na_node *nd = &na_nodes[n];
		u64 busy = 0, idle = 0, wait = 0, switches = 0;
		struct na_cpu_sched c;

		/* Offline CPUs too: what they did before still counts. */
		for_each_possible_cpu(cpu) {
			if (per_cpu_ptr(na_cpus, cpu)->node != n)
				continue;
			na_cpu_totals(cpu, now, &busy, &idle, &wait);
			na_cpu_read_sched(cpu, &c);
			switches += c.switches;
		}
		seq_printf(m, "%d %*pbl %llu %llu %llu %llu", n,
			   cpumask_pr_args(cpumask_of_node(n)), busy, idle, wait,
			   switches);
		/* Per-mille of the node's capacity, decayed, as classified. */
		if (nd->cap)
			seq_printf(m, " %llu %llu %s\n",
				   div_u64((u64)nd->util * 1000, nd->cap),
				   div_u64((u64)nd->runnable * 1000, nd->cap),
				   na_class_names[nd->cls]);
		else
			seq_puts(m, " - - -\n");
	}
	mutex_unlock(&na_engine_lock);
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
			sum[p].timed += c[p].timed;
			sum[p].sum_ns += c[p].sum_ns;
			sum[p].max_ns = max(sum[p].max_ns, c[p].max_ns);
			for (b = 0; b < NA_HIST_BUCKETS; b++)
				sum[p].hist[b] += c[p].hist[b];
		}
	}
	seq_puts(m, "probe calls mean_ns p50_ns p99_ns max_ns timed\n");
	for (p = 0; p < NA_NR_PROBES; p++) {
		const struct na_probe_cost *s = &sum[p];

		seq_printf(m, "%s %llu %llu %llu %llu %llu %llu\n",
			   na_probe_names[p], s->calls,
			   s->timed ? div64_u64(s->sum_ns, s->timed) : 0,
			   na_hist_percentile(s->hist, s->timed, 50, s->max_ns),
			   na_hist_percentile(s->hist, s->timed, 99, s->max_ns),
			   s->max_ns, s->timed);
	}
	kfree(sum);
	kfree(c);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(na_overhead);

/* na_seq_nodes - a set of nodes as a list ("0-3"), "-" if empty */
static void na_seq_nodes(struct seq_file *m, u64 nodes)
{
	DECLARE_BITMAP(bits, NA_MAX_NODES);

	bitmap_from_u64(bits, nodes);
	if (nodes)
		seq_printf(m, " %*pbl", NA_MAX_NODES, bits);
	else
		seq_puts(m, " -");
}

/*
 * advice: one row per task the engine judged this round (kernel threads
 * left out): its load (milli-CPUs, running or waiting to), where it runs,
 * where it belongs and why, with the scores (per-mille, distance-weighted
 * under `distance`) the advice came from.
 */
static int na_advice_show(struct seq_file *m, void *v)
{
	struct na_task *t;
	unsigned long s;

	t = kmalloc(na_stride, GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	seq_puts(m, "pid tgid comm load cur target home mem reason cur_score target_score placed\n");
	mutex_lock(&na_engine_lock);
	if (READ_ONCE(na_policy) == NA_POLICY_NONE)
		goto unlock;
	for_each_set_bit(s, na_rec_map, max_tasks) {
		struct na_rec *r = na_rec(s);

		if (r->skip == NA_SKIP_KTHREAD || !na_task_read(s, t) ||
		    t->key != r->key || t->born != r->born)
			continue;
		na_seq_task(m, t);
		seq_printf(m, " %u", r->load);
		na_seq_nodes(m, r->placed ? r->placed :
				r->cur >= 0 ? 1ULL << r->cur : 0);
		na_seq_nodes(m, r->skip ? 0 : r->target);
		na_seq_node(m, r->home);
		na_seq_node(m, r->mem);
		seq_printf(m, " %s %u %u",
			   r->skip ? na_skip_names[r->skip] :
				     na_reason_names[r->reason],
			   r->cur_score, r->target_score);
		na_seq_nodes(m, r->placed);
		seq_putc(m, '\n');
	}
unlock:
	mutex_unlock(&na_engine_lock);
	kfree(t);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(na_advice);

/*
 * na_write_line - copy a one-line write of at most @size - 1 bytes into
 * @buf, without its trailing newline.  Writes at an offset, empty, longer
 * or with a NUL or a second line are refused.
 */
static int na_write_line(char *buf, size_t size, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	if (*ppos != 0 || len == 0 || len >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (!len || strlen(buf) != len || strchr(buf, '\n'))
		return -EINVAL;
	return 0;
}

/*
 * policy and mode: read the setting, write a name to change it.  A read is
 * a seq_file, so that it shows one value even when the setting changes
 * between two read() calls of the same open file.
 */
static ssize_t na_choice_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	const struct na_choice_param *c =
		((struct seq_file *)file->private_data)->private;
	char buf[16];
	int i, ret;

	ret = na_write_line(buf, sizeof(buf), ubuf, len, ppos);
	if (ret)
		return ret;
	i = match_string(c->names, c->nr, buf);
	if (i < 0)
		return -EINVAL;
	ret = na_set_choice(c->cur, i);
	if (ret)
		return ret;
	*ppos += len;
	return len;
}

static int na_choice_show(struct seq_file *m, void *v)
{
	const struct na_choice_param *c = m->private;

	seq_printf(m, "%s\n", c->names[READ_ONCE(*c->cur)]);
	return 0;
}

static int na_choice_open(struct inode *inode, struct file *file)
{
	return single_open(file, na_choice_show, inode->i_private);
}

static const struct file_operations na_choice_fops = {
	.owner = THIS_MODULE,
	.open = na_choice_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = na_choice_write,
	.release = single_release,
};

/*
 * scope: the rules, one a line, as they are written:
 *   include|exclude pid|comm|cgroup VALUE
 *   clear
 * One rule per write.  A bad rule changes nothing.
 */
static int na_scope_show(struct seq_file *m, void *v)
{
	int i;

	mutex_lock(&na_engine_lock);
	for (i = 0; i < na_nr_rules; i++) {
		const struct na_rule *rule = &na_rules[i];

		seq_printf(m, "%s %s ", rule->include ? "include" : "exclude",
			   na_rule_kinds[rule->kind]);
		if (rule->kind == NA_RULE_PID)
			seq_printf(m, "%d\n", rule->pid);
		else
			seq_printf(m, "%s\n", rule->str);
	}
	mutex_unlock(&na_engine_lock);
	return 0;
}

static int na_scope_parse(char *buf, struct na_rule *rule)
{
	char *verb = strsep(&buf, " "), *kind = strsep(&buf, " ");
	int k;

	memset(rule, 0, sizeof(*rule));
	if (!strcmp(verb, "include"))
		rule->include = true;
	else if (strcmp(verb, "exclude"))
		return -EINVAL;
	k = kind ? match_string(na_rule_kinds, ARRAY_SIZE(na_rule_kinds),
				kind) : -EINVAL;
	if (k < 0 || !buf || !*buf || strchr(buf, ' '))
		return -EINVAL;
	rule->kind = k;
	switch (rule->kind) {
	case NA_RULE_PID:
		if (kstrtoint(buf, 10, &rule->pid) || rule->pid <= 0)
			return -EINVAL;
		break;
	case NA_RULE_COMM:
		if (strlen(buf) >= TASK_COMM_LEN)
			return -EINVAL;
		strscpy(rule->str, buf, sizeof(rule->str));
		break;
	case NA_RULE_CGROUP:
		/* "/" or a path without a trailing "/", as cgroup_path_ns() gives */
		if (buf[0] != '/' || (buf[1] && buf[strlen(buf) - 1] == '/') ||
		    strscpy(rule->str, buf, sizeof(rule->str)) < 0)
			return -EINVAL;
		break;
	}
	return 0;
}

static ssize_t na_scope_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	char buf[NA_RULE_LEN + 24];
	struct na_rule rule;
	int i, ret;

	ret = na_write_line(buf, sizeof(buf), ubuf, len, ppos);
	if (ret)
		return ret;
	if (strcmp(buf, "clear")) {
		ret = na_scope_parse(buf, &rule);
		if (ret)
			return ret;
	}
	mutex_lock(&na_engine_lock);
	if (!strcmp(buf, "clear")) {
		na_nr_rules = 0;
	} else {
		for (i = 0; i < na_nr_rules; i++)
			if (!memcmp(&na_rules[i], &rule, sizeof(rule)))
				break;
		if (i == na_nr_rules) {
			if (na_nr_rules == NA_MAX_RULES)
				ret = -ENOSPC;
			else
				na_rules[na_nr_rules++] = rule;
		}
	}
	if (!ret && na_engine)
		wake_up_process(na_engine);
	mutex_unlock(&na_engine_lock);
	if (ret)
		return ret;
	*ppos += len;
	return len;
}

static int na_scope_open(struct inode *inode, struct file *file)
{
	return single_open(file, na_scope_show, NULL);
}

static const struct file_operations na_scope_fops = {
	.owner = THIS_MODULE,
	.open = na_scope_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = na_scope_write,
	.release = single_release,
};

static int na_status_show(struct seq_file *m, void *v)
{
	unsigned int placed = 0;
	unsigned long s;

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

	mutex_lock(&na_engine_lock);
	seq_printf(m, "policy %s\n", na_policy_names[na_policy]);
	seq_printf(m, "mode %s\n", na_mode_names[na_mode]);
	seq_printf(m, "interval_ms %u\n", READ_ONCE(na_interval_ms.val));
	seq_printf(m, "rounds %llu\n", na_rounds);
	for_each_set_bit(s, na_rec_map, max_tasks)
		placed += !!na_rec(s)->placed;
	seq_printf(m, "placed %u\n", placed);
	seq_printf(m, "moves %llu\n", na_stats.moves);
	seq_printf(m, "restores %llu\n", na_stats.restores);
	seq_printf(m, "overridden %llu\n", na_stats.overridden);
	seq_printf(m, "apply_errors %llu\n", na_stats.apply_errors);
	seq_printf(m, "refused_gain %llu\n", na_stats.refused[NA_R_GAIN]);
	seq_printf(m, "refused_hold %llu\n", na_stats.refused[NA_R_HOLD]);
	seq_printf(m, "refused_class %llu\n",
		   na_stats.refused[NA_R_OVERLOADED] +
		   na_stats.refused[NA_R_BUSIER]);
	seq_printf(m, "refused_room %llu\n", na_stats.refused[NA_R_NO_ROOM]);
	seq_printf(m, "swaps %llu\n", na_stats.swaps);
	seq_printf(m, "scope_rules %d\n", na_nr_rules);
	mutex_unlock(&na_engine_lock);
	seq_printf(m, "lost_inherit %ld\n",
		   atomic_long_read(&na_nr_lost_inherit));
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
	if (strlen(buf) != len || (strcmp(buf, "1") && strcmp(buf, "1\n")))
		return -EINVAL;

#ifdef NA_TEST_PLANTED
	/* Test build only: a warning in the middle of a case. */
	WARN_ONCE(1, "numa_advise: planted warning (tests/plant.sh)\n");
#endif
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
	debugfs_create_file("advice", 0400, na_dir, NULL, &na_advice_fops);
	debugfs_create_file("policy", 0600, na_dir, &na_policy_param,
			    &na_choice_fops);
	debugfs_create_file("mode", 0600, na_dir, &na_mode_param,
			    &na_choice_fops);
	debugfs_create_file("scope", 0600, na_dir, NULL, &na_scope_fops);
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

/*
 * na_engine_alloc - the engine's records (one per slot) and the work
 * space of a round, reserved at load like the slots: a round never fails
 * for want of memory.
 */
static int na_engine_alloc(void)
{
	size_t nr = nr_node_ids, nodes_bytes, work_bytes, rec_bytes;
	void *p;
	u32 s;

	na_rec_off_weight = sizeof(struct na_rec) + nr * sizeof(u64);
	na_rec_off_mem = na_rec_off_weight + nr * sizeof(u64);
	na_rec_off_mask = ALIGN(na_rec_off_mem + nr * sizeof(u16),
				sizeof(long));
	na_rec_stride = ALIGN(na_rec_off_mask + cpumask_size(), sizeof(u64));
	rec_bytes = array_size(max_tasks, na_rec_stride);
	na_recs = vzalloc(rec_bytes);
	if (!na_recs)
		goto fail;
	na_rec_map = bitmap_zalloc(max_tasks, GFP_KERNEL);
	if (!na_rec_map)
		goto free_recs;

	/* units, then their scores, then the order of the records */
	work_bytes = max_tasks * (sizeof(*na_units) + nr * sizeof(u32) +
				  sizeof(u32));
	na_units = kvzalloc(work_bytes, GFP_KERNEL);
	if (!na_units)
		goto free_rec_map;
	na_scores = (u32 *)(na_units + max_tasks);
	na_order = na_scores + (size_t)max_tasks * nr;

	/* per node: state, scratch, capacity, room, class, then distances */
	nodes_bytes = nr * (sizeof(*na_nodes) + sizeof(u64) + 2 * sizeof(u32) +
			    sizeof(*na_cls)) + nr * nr;
	p = kzalloc(nodes_bytes, GFP_KERNEL);
	if (!p)
		goto free_work;
	na_nodes = p;
	na_node_scratch = (u64 *)(na_nodes + nr);
	na_cap = (u32 *)(na_node_scratch + nr);
	na_room = (s32 *)(na_cap + nr);
	na_cls = (enum na_class *)(na_room + nr);
	na_dist = (u8 *)(na_cls + nr);

	na_round_it.run = kcalloc(nr_cpu_ids, sizeof(*na_round_it.run),
				  GFP_KERNEL);
	if (!na_round_it.run)
		goto free_nodes;
	na_round_it.snap = kzalloc(na_stride, GFP_KERNEL);
	if (!na_round_it.snap)
		goto free_run;
	if (!zalloc_cpumask_var(&na_mask_tmp, GFP_KERNEL))
		goto free_snap;
	na_path_buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!na_path_buf)
		goto free_mask;

	for (s = 0; s < max_tasks; s++)
		seqcount_init(&na_rec(s)->seq);
	for (s = 0; s < nr * nr; s++)
		na_dist[s] = min(node_distance(s / nr, s % nr), 255);
	for (s = 0; s < nr; s++)
		na_nodes[s].cls = NA_NR_CLASSES;
	na_mem_bytes += rec_bytes + work_bytes + nodes_bytes +
			BITS_TO_LONGS(max_tasks) * sizeof(long);
	return 0;

free_mask:
	free_cpumask_var(na_mask_tmp);
free_snap:
	kfree(na_round_it.snap);
free_run:
	kfree(na_round_it.run);
free_nodes:
	kfree(na_nodes);
free_work:
	kvfree(na_units);
free_rec_map:
	bitmap_free(na_rec_map);
free_recs:
	vfree(na_recs);
fail:
	pr_err("cannot reserve memory for the placement engine\n");
	return -ENOMEM;
}

static void na_engine_free(void)
{
	kfree(na_path_buf);
	free_cpumask_var(na_mask_tmp);
	kfree(na_round_it.snap);
	kfree(na_round_it.run);
	kfree(na_nodes);
	kvfree(na_units);
	bitmap_free(na_rec_map);
	vfree(na_recs);
}

static int na_engine_start(void)
{
	struct task_struct *p;

	p = kthread_create(na_engine_fn, NULL, "numa_advise");
	if (IS_ERR(p)) {
		pr_err("cannot start the engine thread: %ld\n", PTR_ERR(p));
		return PTR_ERR(p);
	}
	mutex_lock(&na_engine_lock);
	na_last_round = local_clock();
	na_engine = p;
	mutex_unlock(&na_engine_lock);
	wake_up_process(p);
	return 0;
}

static void na_engine_stop(void)
{
	struct task_struct *p;

	mutex_lock(&na_engine_lock);
	p = na_engine;
	na_engine = NULL;
	mutex_unlock(&na_engine_lock);
	kthread_stop(p);
}

/*
 * na_engine_restore - with the probes gone, no fork can mark a child any
 * more: put back every mask we narrowed, inherited ones included
 */
static void na_engine_restore(void)
{
	mutex_lock(&na_engine_lock);
	na_restore_all();
	mutex_unlock(&na_engine_lock);
}

#ifdef NA_TEST_BROKEN
#error "planted: a build that fails (tests/plant.sh)"
#endif

#ifdef NA_TEST_LEAK
/*
 * Test build only: loses one allocation at load, for the debug kernel's
 * suite to show that kmemleak's reports of this module are caught.
 */
static noinline void na_test_leak(void)
{
	if (!kmalloc(40, GFP_KERNEL))
		pr_warn("test build: nothing to leak\n");
}
#else
static inline void na_test_leak(void) { }
#endif

static int __init na_init(void)
{
	int ret;

	max_tasks = na_max_tasks.val;
	ret = na_tp_find();
	if (ret)
		return ret;
	ret = na_alloc();
	if (ret)
		return ret;
	ret = na_engine_alloc();
	if (ret)
		goto free_state;
	ret = na_tp_register();
	if (ret)
		goto free_engine;
	/* Also starts the clock of every online CPU not yet switched. */
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "numa_advise:online",
				na_cpu_online, na_cpu_offline);
	if (ret < 0)
		goto unregister_tracepoints;
	na_hp_state = ret;
	ret = na_engine_start();
	if (ret)
		goto remove_cpuhp;
	/*
	 * debugfs last: once a file can be opened, the load must not fail
	 * (an open file pins the module, which a failed load frees anyway).
	 */
	ret = na_debugfs_create();
	if (ret)
		goto stop_engine;

	na_live = true;
	na_test_leak();
	pr_info("version %s loaded: %u nodes, %u CPUs, up to %u tasks (%zu KiB), policy %s, mode %s\n",
		NA_VERSION, num_online_nodes(), num_online_cpus(), max_tasks,
		na_mem_bytes >> 10, na_policy_names[na_policy],
		na_mode_names[na_mode]);
	return 0;

stop_engine:
	na_engine_stop();
	na_engine_restore();
remove_cpuhp:
	cpuhp_remove_state_nocalls(na_hp_state);
unregister_tracepoints:
	na_tp_unregister(ARRAY_SIZE(na_tps));
	na_engine_restore();
free_engine:
	na_engine_free();
free_state:
	na_free();
	return ret;
}

static void __exit na_exit(void)
{
	/* Readers first: removal waits for any file operation in progress. */
	debugfs_remove_recursive(na_dir);
	na_engine_stop();
	/*
	 * Masks back while the fork probe still marks the children of placed
	 * tasks, then once more for those forked meanwhile.
	 */
	na_engine_restore();
	cpuhp_remove_state_nocalls(na_hp_state);
	na_tp_unregister(ARRAY_SIZE(na_tps));
	na_engine_restore();
	na_engine_free();
	na_free();
	pr_info("unloaded\n");
}

module_init(na_init);
module_exit(na_exit);

MODULE_AUTHOR("The numa_advise authors");
MODULE_DESCRIPTION("Tracepoint-driven per-task NUMA residency statistics and placement advice");
MODULE_LICENSE("GPL");
MODULE_VERSION(NA_VERSION);
