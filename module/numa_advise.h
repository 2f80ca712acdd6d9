/* SPDX-License-Identifier: GPL-2.0 */
/*
 * numa_advise.h - the module's rooms and what passes between them
 *
 *   na_probes.c   the probes: the hot path, and nothing else
 *   na_obs.c      what the probes keep: its memory, the tracepoints and
 *                 CPU hotplug, and consistent copies for readers
 *   na_engine.c   the placement engine: rounds, records, memory sampling
 *   na_apply.c    narrowing masks, putting them back, adopting children
 *   na_scope.c    which tasks may be placed
 *   na_decide.c   the decisions, pure functions (unit-tested in user space)
 *   na_debugfs.c  every file under /sys/kernel/debug/numa_advise/
 *   na_main.c     parameters, load and unload (kbuild links no module
 *                 from an object named as the module: not numa_advise.c)
 *
 * Two structures hold all the state, one of each, made in na_main.c
 * and passed to whatever uses them: struct na_obs (what the probes
 * write; the probes get it as their tracepoint data) and struct
 * na_engine (what the engine decides, under its mutex).
 */
#ifndef NUMA_ADVISE_H
#define NUMA_ADVISE_H

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/cpuhotplug.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "na_names.h"
#include "na_decide.h"
#include "na_hist.h"
#include "na_index.h"

extern const char *const na_policy_names[NA_NR_POLICIES];
extern const char *const na_mode_names[NA_NR_MODES];
extern const char *const na_class_names[NA_NR_CLASSES + 1];
extern const char *const na_reason_names[NA_NR_REASONS];
extern const char *const na_skip_names[NA_NR_SKIPS];
extern const char *const na_probe_names[NA_NR_PROBES];
extern const char *const na_rule_kinds[NA_NR_RULE_KINDS];

/* ------------------------------------------------------------------ */
/* What the probes keep (na_probes.c writes, na_obs.c reads)           */

/*
 * What a slot's task had run and waited when the last reset happened
 * (na_obs_reset()): the bases its counters start from in the new
 * generation, until the task's next charge moves them past.  Written only
 * by the reset, under na_obs.reset_lock and with interrupts off; read
 * through @seq, by a probe in one look (na_task_snap_read()).
 */
struct na_task_snap {
	seqcount_t seq;
	u32 gen;		/* the na_obs.gen it was taken for */
	u64 born;		/* na_task.born of the owner it was taken of */
	u64 run;		/* p->se.sum_exec_runtime then */
	u64 delay;		/* p->sched_info.run_delay then */
};

/*
 * One task's statistics, in a slot reserved at load.
 *
 * The kernel already keeps a task's runtime (p->se.sum_exec_runtime) and
 * the time it waited for a CPU (p->sched_info.run_delay), exact whenever
 * the task is off a CPU.  A task's time is therefore charged to a node
 * only when it leaves the node - at sched_migrate_task, which fires
 * before the task's CPU changes and never for a running task - and the
 * part since then is added by whoever reads the slot (na_task_read()):
 * nothing per task happens in a context switch.
 *
 * Writers: the task's own event stream only - its migrations, its fork
 * (the child's slot), finally its free - which the scheduler serialises
 * (see na_index.h), each with interrupts off, inside
 * write_seqcount_begin/end on @seq; and, at load, the walk over the tasks
 * already running (na_walk_tasks()), before any probe but fork's and
 * free's is attached.  @snap alone is the reset's (see above).  Readers
 * copy the slot under read_seqcount_retry(); @snap in the copy is not
 * theirs to use.
 */
struct na_task {
	struct na_task_snap snap;	/* the reset's alone, see above */
	seqcount_t seq;
	u32 gen;		/* na_obs.gen the counters belong to */
	/*
	 * The owner task's address, 0 while the slot is free: written with
	 * WRITE_ONCE() by the owner's stream, read lock-free by any task's
	 * index lookup (na_slot_key()).
	 */
	unsigned long key;
	pid_t pid;		/* its ids when it got the slot: to find it again */
	pid_t tgid;		/* (see na_task_find()) */
	u64 born;		/* local_clock() when this owner got the slot */
	u64 run_base;		/* p->se.sum_exec_runtime charged up to */
	u64 delay_base;		/* p->sched_info.run_delay charged up to */
	u64 inherit[2];		/* its placed parent's nodes, see na_probe_fork */
	u64 migrations;
	u64 xnode_migrations;
	u64 wait_ns;		/* runnable, waiting for a CPU */
	/*
	 * Not kept in the slot: na_task_read() fills these in from the live
	 * task, in the reader's copy.
	 */
	char comm[TASK_COMM_LEN];
	unsigned int pflags;	/* task->flags */
	int nr_cpus_allowed;	/* and how many CPUs it may run on */
	u64 node_ns[];		/* nr_node_ids entries: on-CPU time per node */
};

/*
 * The probes other than sched_switch time themselves on one call in
 * NA_TIME_EVERY, and sched_switch on one in NA_SWITCH_TIME_EVERY: the
 * second clock read and the histogram update on every call were a sixth
 * of the instructions the module added to a context switch (bench/:
 * insn_phases).  The calls are all counted; the times are a regular
 * sample of them.
 */
#define NA_TIME_EVERY		16
#define NA_SWITCH_TIME_EVERY	256

struct na_probe_cost {
	u64 calls;		/* sched_switch's: na_cpu_sched.switches */
	u64 timed;		/* of @calls, those timed in @sum_ns and @hist */
	u64 sum_ns;
	u64 max_ns;
	u64 hist[NA_HIST_BUCKETS];
};

/*
 * What the switch probe keeps: no per-task work, a CPU's own counters.
 * Written by this CPU's switch probe alone (runqueue lock held,
 * interrupts off); @wait_ns and @switches are read by others with
 * READ_ONCE().
 */
struct na_cpu_sched {
	struct task_struct *curr;	/* switched in last; NULL: not seen */
	u64 curr_delay;		/* its sched_info.run_delay then */
	u64 wait_ns;		/* how long the tasks that ran here waited */
	u64 switches;
};

/*
 * Per-CPU state.  @s is the switch probe's, see above.  The rest is
 * written only by this CPU's probes with interrupts off, so no two
 * writers ever meet; @seq lets readers take consistent copies of @gen
 * and @cost.
 */
struct na_cpu {
	struct na_cpu_sched s;
	seqcount_t seq;
	u32 gen;		/* na_obs.gen @cost belongs to */
	int node;		/* cpu_to_node(), fixed at load */
	unsigned int slot_hint;	/* where to look for a free slot next */
	/*
	 * Events here of a task refused a slot at the cap: such a task has
	 * no entry and asks again at each event, so the count is per CPU, and
	 * at the cap no shared line is written.
	 */
	u64 dropped;
	struct na_probe_cost cost[NA_NR_PROBES];
};

/*
 * A CPU's busy and idle time, from the kernel's own idle accounting
 * (get_cpu_idle_time_us(), as /proc/stat reads it), sampled by readers
 * and by the CPU hotplug callbacks under na_obs.clock_lock.  An offline
 * CPU is neither busy nor idle: its clock starts again from the
 * kernel's count when it comes back.
 */
struct na_cpu_clock {
	bool up;		/* online, counting since @at */
	u64 at;			/* ktime_get_ns() of the last sample */
	u64 idle_mark;		/* kernel's idle + iowait ns then */
	u64 busy, idle;		/* ns counted while up */
	/* at the last reset (na_obs_reset): what readers subtract */
	u64 base_busy, base_idle, base_wait, base_switches;
};

/* A CPU's totals since the last reset: na_cpu_totals() */
struct na_cpu_totals {
	u64 busy, idle, wait, switches;
};

/*
 * What the engine publishes of a slot's task for the fork probe and the
 * `tasks` reader, one per slot: written by the engine only (under its
 * mutex) with na_pub_set(), read lock-free with na_pub_read().  @key and
 * @born say which owner of the slot the rest describes.
 */
struct na_pub_val {
	unsigned long key;	/* the slot owner described; 0: none */
	u64 born;		/* the owner's na_task.born: key + born = one task */
	u64 last_nodes;		/* nodes last narrowed to, published before the */
	u64 prev_nodes;		/* mask changes, and those before: see na_place */
	int home;		/* most recent-weighted residency; -1 */
	int mem;		/* where its process's sampled pages are; -1 */
};

struct na_pub {
	seqcount_t seq;
	struct na_pub_val v;	/* the engine reads its own without @seq */
};

/*
 * struct na_obs - everything the probes write, and what they read.
 * Made once at load (na_obs_alloc); the probes get it as their data.
 */
struct na_obs {
	unsigned int max_tasks;	/* slots, fixed at load */
	size_t stride;		/* bytes per slot */
	void *slots;
	struct na_pub *pub;	/* max_tasks, see struct na_pub */
	struct na_index idx;	/* lock-free, see na_index.h */
	/*
	 * Slot in use.  Set with test_and_set_bit() by a probe taking a
	 * slot, cleared with clear_bit_unlock() by the free probe; everything
	 * else only reads it, lock-free, and may see a bit a moment stale:
	 * the slot's seqcount and key then tell (na_task_read()).
	 */
	unsigned long *slot_map;
	struct na_cpu __percpu *cpus;
	/*
	 * Slots handed out; a slot is reserved here before its bit is
	 * searched for and released after its bit is cleared, so a
	 * reservation always finds a free bit.
	 */
	atomic_t nr_tracked;
	atomic_long_t nr_unindexed;	/* events of tasks the index had no room for */
	atomic_long_t nr_lost_inherit;	/* children of placed tasks without a slot */
	/*
	 * Reset generation.  Written (incremented) only under @reset_lock;
	 * probes READ_ONCE() it and lazily zero the counters of a slot or
	 * CPU whose gen differs, so a reset never races with a probe's
	 * read-modify-write.  Readers show counters of another generation as
	 * zero.
	 */
	u32 gen;
	struct mutex reset_lock;
	/*
	 * local_clock() at the last reset, written before @gen (smp_wmb): a
	 * run that began before the reset is charged from here.
	 */
	u64 reset_clock;
	/* nr_cpu_ids, under @clock_lock: see struct na_cpu_clock */
	struct na_cpu_clock *clock;
	spinlock_t clock_lock;
	/*
	 * Lean mode: the switch probe detached, so no context switch runs
	 * any of our code; a CPU's waiting time and switch count then stand
	 * still (its busy and idle time do not depend on it).  Written under
	 * @tp_lock, which also orders the attaching and detaching of the
	 * probes; read with READ_ONCE().
	 */
	bool lean;
	bool attached;		/* under @tp_lock: the probes are on */
	struct mutex tp_lock;
	enum cpuhp_state hp_state;	/* CPU hotplug: our dynamic state */
	struct hlist_node hp_node;	/* and our instance of it */
	size_t mem_bytes;		/* reserved at load, for `status` */
};

static inline struct na_task *na_slot(const struct na_obs *o, u32 s)
{
	return o->slots + (size_t)s * o->stride;
}

/*
 * na_slot_key - the index's view of slot @s (na_index.h): the key of the
 * task it belongs to, 0 if none.  Read by other tasks' lookups as the
 * slot's owner writes it, with WRITE_ONCE(), inside its seqcount.
 */
static inline unsigned long na_slot_key(const void *o, u32 s)
{
	return READ_ONCE(na_slot(o, s)->key);
}

static inline u32 na_slot_index(const struct na_obs *o, const void *t)
{
	return (t - o->slots) / o->stride;
}

/* na_next_slot - the first slot in use from @s on; max_tasks: none */
static inline unsigned long na_next_slot(const struct na_obs *o,
					 unsigned long s)
{
	/* a racy read by design: see na_obs.slot_map */
	return data_race(find_next_bit(o->slot_map, o->max_tasks, s));
}

#define na_for_each_slot(o, s)						\
	for ((s) = na_next_slot(o, 0); (s) < (o)->max_tasks;		\
	     (s) = na_next_slot(o, (s) + 1))

/*
 * na_since_reset - how long ago the last reset was: the most a slot whose
 * counters predate it may be charged for since (not exact: a slot's
 * runtime is charged when the task leaves a node, not as it runs)
 */
static inline u64 na_since_reset(const struct na_obs *o, u64 now)
{
	u64 at = READ_ONCE(o->reset_clock);

	return now > at ? now - at : 0;
}

/* na_probes.c */
void na_probe_switch(void *data, bool preempt, struct task_struct *prev,
		     struct task_struct *next, unsigned int prev_state);
void na_probe_migrate(void *data, struct task_struct *p, int dest_cpu);
void na_probe_free(void *data, struct task_struct *p);
void na_probe_fork(void *data, struct task_struct *parent,
		   struct task_struct *child);
void na_task_seen(struct na_obs *o, struct task_struct *p);
void na_task_pending(const struct na_obs *o, const struct na_task *slot,
		     const struct na_task *t, u32 gen, u64 now, u64 run,
		     u64 delay, u64 *ran, u64 *waited);

/* na_obs.c */
int na_obs_check(void);
int na_obs_alloc(struct na_obs *o, unsigned int max_tasks);
void na_obs_free(struct na_obs *o);
int na_obs_attach(struct na_obs *o);
void na_obs_detach(struct na_obs *o);
int na_obs_set_lean(struct na_obs *o, bool lean);
void na_obs_reset(struct na_obs *o);
bool na_cpu_read(struct na_obs *o, int cpu, void *dst, size_t off,
		 size_t len);
void na_cpu_totals(struct na_obs *o, int cpu, struct na_cpu_totals *tot);
struct na_task *na_task_alloc(const struct na_obs *o);
bool na_task_read(struct na_obs *o, u32 s, struct na_task *out);
void na_pub_set(struct na_pub *p, const struct na_pub_val *v);
void na_pub_read(const struct na_pub *p, struct na_pub_val *v);

/* ------------------------------------------------------------------ */
/* Scope: which tasks may be placed (na_scope.c)                       */

#define NA_MAX_RULES	16
#define NA_RULE_LEN	128

struct na_rule {
	bool include;
	enum na_rule_kind kind;
	pid_t pid;
	char str[NA_RULE_LEN];		/* comm, or the cgroup's path */
	struct cgroup *cgrp;		/* NA_RULE_CGROUP: held, see na_scope.c */
};

/* The rules; changed and read under the engine's mutex. */
struct na_scope {
	struct na_rule rules[NA_MAX_RULES];
	int nr;
};

struct na_rec;

int na_scope_write(struct na_scope *sc, char *line);
void na_scope_resolve(struct na_scope *sc);
void na_scope_show(const struct na_scope *sc, struct seq_file *m);
bool na_in_scope(const struct na_scope *sc, const struct na_rec *r,
		 const struct na_task *t);
void na_scope_clear(struct na_scope *sc);

/* ------------------------------------------------------------------ */
/* The placement engine (na_engine.c, na_apply.c)                      */

/*
 * The engine's record of one slot's task (same index as the slot), kept
 * under the engine's mutex.  @pub is what it publishes of it.
 */
struct na_rec {
	struct na_pub *pub;	/* the slot's, in na_obs.pub */
	u32 gen;		/* na_obs.gen its counters were last read in */
	u8 last_age;		/* rounds since its mask was put back */
	pid_t pid;
	pid_t tgid;
	char comm[TASK_COMM_LEN];
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
	/* then, at the offsets in na_engine: u64 prev_ns[], u64 weight[], u16 mem_pm[], cpumask */
};

struct na_node {
	u64 busy;		/* the node's CPU totals at the last round */
	u64 wait;
	u32 cap;		/* milli-CPUs: 1000 per online CPU */
	u32 util;		/* decayed busy time, milli-CPUs */
	u32 runnable;		/* decayed busy + waiting time, milli-CPUs */
	enum na_class cls;
};

/* The tunables: module parameters, written by the parameter code. */
#define NA_TUNABLE(name, def, lo, hi, desc)	unsigned int name;
struct na_tunables {
	NA_UINT_PARAMS(NA_TUNABLE)
};
#undef NA_TUNABLE

struct na_engine_stats {
	u64 moves;		/* masks narrowed (or moved to other nodes) */
	u64 restores;		/* masks put back */
	u64 overridden;		/* masks someone else changed after us */
	u64 apply_errors;	/* set_cpus_allowed_ptr() refused */
	u64 refused[NA_NR_REASONS]; /* advice to stay, by reason, per round */
	u64 swaps;		/* pairs advised to trade places */
};

/*
 * struct na_engine - the placement engine.  Everything in it is under
 * @lock - the engine thread's rounds, setting changes (module parameters,
 * debugfs writes) and the debugfs files that show what it decided -
 * except: @tun, written by the parameter code and read with READ_ONCE();
 * @policy and @mode, written under @lock and read with READ_ONCE() by
 * those who only show them; and what it publishes in na_obs.pub.
 */
struct na_engine {
	struct mutex lock;
	struct task_struct *thread;	/* NULL while not running */
	struct na_obs *obs;
	int policy;			/* enum na_policy_id */
	int mode;			/* enum na_mode_id */
	struct na_tunables tun;

	/* records, one per slot */
	void *recs;
	size_t rec_stride;
	size_t rec_off_weight, rec_off_mem, rec_off_mask;
	unsigned long *rec_map;		/* records in use */

	/* nodes */
	struct na_node *nodes;		/* nr_node_ids */
	u8 *dist;			/* nr_node_ids^2 SLIT distances */
	u64 last_round;
	u64 rounds;
	u32 nodes_gen;			/* na_obs.gen of the node totals */

	/* one round's work space, sized at load for every slot */
	u32 *order;			/* records by tgid, placeable first */
	struct na_unit *units;
	u32 *scores;			/* nr_node_ids per unit */
	u64 *node_scratch;		/* nr_node_ids */
	u64 *round_wait;		/* nr_node_ids: lean mode's node wait */
	u32 *cap;			/* nr_node_ids */
	s32 *room;			/* nr_node_ids */
	enum na_class *cls;		/* nr_node_ids */
	struct na_task *snap;		/* a slot's copy: na_task_alloc() */
	cpumask_var_t mask_tmp;

	struct na_scope scope;
	struct na_engine_stats stats;
	size_t mem_bytes;		/* reserved at load, for `status` */
	struct dentry *dir;		/* na_debugfs.c */
};

static inline struct na_rec *na_rec(const struct na_engine *e, u32 s)
{
	return e->recs + (size_t)s * e->rec_stride;
}

/* node_ns of the slot at the last round */
static inline u64 *na_rec_prev(struct na_rec *r)
{
	return (void *)(r + 1);
}

/* decayed on-CPU time per node */
static inline u64 *na_rec_weight(const struct na_engine *e, struct na_rec *r)
{
	return (void *)r + e->rec_off_weight;
}

/* share of its process's sampled pages per node, per-mille */
static inline u16 *na_rec_mem(const struct na_engine *e, struct na_rec *r)
{
	return (void *)r + e->rec_off_mem;
}

/* the mask set on it while @placed */
static inline struct cpumask *na_rec_mask(const struct na_engine *e,
					  struct na_rec *r)
{
	return (void *)r + e->rec_off_mask;
}

/* na_engine.c */
int na_engine_alloc(struct na_engine *e, struct na_obs *o);
void na_engine_free(struct na_engine *e);
int na_engine_start(struct na_engine *e);
void na_engine_stop(struct na_engine *e);
void na_engine_restore(struct na_engine *e);
int na_engine_set(struct na_engine *e, int *setting, int val, bool quiet);
void na_engine_kick(struct na_engine *e);
void na_rec_start(struct na_engine *e, u32 s, const struct na_task *t,
		  u64 now);
void na_records_forget(struct na_engine *e);

/* na_apply.c */
struct task_struct *na_get_task(const struct na_rec *r);
void na_rec_narrowing(struct na_rec *r, u64 nodes);
void na_adopt(struct na_engine *e, struct na_rec *r, const u64 *nodes,
	      u64 now);
void na_place(struct na_engine *e, struct na_rec *r, u64 nodes, u64 now);
void na_restore(struct na_engine *e, struct na_rec *r);
void na_restore_all(struct na_engine *e);

/* na_debugfs.c */
int na_debugfs_create(struct na_engine *e);
void na_debugfs_remove(struct na_engine *e);

#endif /* NUMA_ADVISE_H */
