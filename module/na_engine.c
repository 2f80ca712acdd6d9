// SPDX-License-Identifier: GPL-2.0
/*
 * na_engine.c - the placement engine: a kernel thread that, every
 * interval_ms, folds what the probes counted into a record per task,
 * samples where each busy process's memory is, classifies the nodes,
 * asks na_decide.c where each task or process belongs, and in enforce
 * mode has na_apply.c make the masks follow.
 *
 * It never runs in a probe.  It reads the slots and per-CPU counters
 * through the same seqcounts as the debugfs readers, keeps its own record
 * per slot (identified by the task's address and the time it got the
 * slot, so a reused slot or pid never inherits another task's state), and
 * holds its mutex (na_engine.lock) for every round, setting change and
 * debugfs read of its results.  All of its memory is reserved at load
 * with the slots, so a round never fails for want of it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/nodemask.h>
#include <linux/random.h>
#include <linux/sched/clock.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/topology.h>
#include <linux/version.h>
#include <linux/vmalloc.h>

#include "numa_advise.h"
#include "na_trace.h"

#define NA_DECAY_SHIFT		2	/* averages move 1/4 a round */
#define NA_MIN_DEMAND		50	/* milli-CPUs worth placing */
#define NA_MEM_SAMPLES		64	/* resident pages sampled per process */
#define NA_MEM_PROBES		256	/* addresses looked at for them, at most */
#define NA_MEM_EVERY		4	/* rounds between two samplings */
#define NA_MEM_MIN_PAGES	8	/* fewer resident: no memory node */

/* ------------------------------------------------------------------ */
/* Records                                                             */

/* na_rec_where - publish @r's home and memory node, if they changed */
static void na_rec_where(struct na_rec *r, int home, int mem)
{
	struct na_pub_val v = r->pub->v;

	if (v.home == home && v.mem == mem)
		return;
	v.home = home;
	v.mem = mem;
	na_pub_set(r->pub, &v);
}

/* na_rec_start - first sight of the task that now owns slot @s */
void na_rec_start(struct na_engine *e, u32 s, const struct na_task *t,
		  u64 now)
{
	struct na_rec *r = na_rec(e, s);
	struct na_pub_val v = {
		.key = t->key, .born = t->born, .home = -1, .mem = -1,
	};

	na_pub_set(r->pub, &v);
	r->gen = READ_ONCE(e->obs->gen);
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
	memcpy(na_rec_weight(e, r), t->node_ns, nr_node_ids * sizeof(u64));
	memset(na_rec_mem(e, r), 0, nr_node_ids * sizeof(u16));
	set_bit(s, e->rec_map);
	if (t->inherit[0] || t->inherit[1])
		na_adopt(e, r, t->inherit, now);
}

/* na_rec_forget - the task is gone: nothing of it is left to restore */
static void na_rec_forget(struct na_engine *e, u32 s)
{
	struct na_pub_val v = { .home = -1, .mem = -1 };

	na_pub_set(na_rec(e, s)->pub, &v);
	clear_bit(s, e->rec_map);
}

/* na_records_forget - drop the records of tasks gone since */
void na_records_forget(struct na_engine *e)
{
	struct na_task *t = e->snap;
	unsigned long s;

	for_each_set_bit(s, e->rec_map, e->obs->max_tasks) {
		struct na_rec *r = na_rec(e, s);

		if (!na_task_read(e->obs, s, t) || t->key != r->pub->v.key ||
		    t->born != r->pub->v.born)
			na_rec_forget(e, s);
		cond_resched();
	}
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

static enum na_skip na_skip_of(const struct na_engine *e,
			       const struct na_rec *r, const struct na_task *t)
{
	if (t->pflags & PF_KTHREAD)
		return NA_SKIP_KTHREAD;
	if (t->pflags & PF_NO_SETAFFINITY)
		return NA_SKIP_NO_AFFINITY;
	if (!na_in_scope(&e->scope, r, t))
		return NA_SKIP_EXCLUDED;
	/* Checked again on the task itself before any change. */
	if (!r->placed && t->nr_cpus_allowed < nr_cpu_ids)
		return NA_SKIP_PINNED;
	return NA_SKIP_NONE;
}

/*
 * na_rec_rates - @r's decayed load, from the @ran ns its task ran in the
 * last @dt ns and the time it waited, which it returns.  The first round
 * after the one it was first seen in counts whole: the averages do not
 * climb from zero, or a busy process would be judged small while they did.
 */
static u64 na_rec_rates(struct na_rec *r, const struct na_task *t, u64 ran,
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
		return waited;
	}
	r->util = na_decay(r->fresh ? util : r->util, util, NA_DECAY_SHIFT);
	r->load = na_decay(r->fresh ? load : r->load, load, NA_DECAY_SHIFT);
	r->fresh = 0;
	return waited;
}

/*
 * na_rec_update - fold slot @s's counters since the last round into its
 * record: load, decayed residency, home node and current node.  @gen is
 * the reset generation as the round began.
 */
static void na_rec_update(struct na_engine *e, u32 s, u64 now, u64 dt,
			  u32 gen)
{
	struct na_task *t = e->snap;
	struct na_rec *r = na_rec(e, s);
	u64 *prev, *w, sum = 0, best = 0, total = 0, waited;
	bool reset;
	int n;

	if (!na_task_read(e->obs, s, t))
		return;
	if (r->pub->v.key != t->key || r->pub->v.born != t->born)
		na_rec_start(e, s, t, now);
	reset = r->gen != gen;
	r->gen = gen;

	prev = na_rec_prev(r);
	w = na_rec_weight(e, r);
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
	waited = na_rec_rates(r, t, sum, dt, reset);
	na_rec_where(r, total ? na_argmax(w, nr_node_ids, r->pub->v.home) : -1,
		     r->pub->v.mem);
	if (r->cur < 0)
		r->cur = r->pub->v.home;
	/* In lean mode a node's waiting time is its tasks' (na_nodes_update). */
	if (r->cur >= 0)
		e->round_wait[r->cur] += waited;
	r->pid = t->pid;
	r->tgid = t->tgid;
	memcpy(r->comm, t->comm, TASK_COMM_LEN);
	r->comm[TASK_COMM_LEN - 1] = '\0';
	r->skip = na_skip_of(e, r, t);
	if (r->mem_age < NA_MEM_EVERY)
		r->mem_age++;
	/*
	 * Children forked while its mask was being put back still get the
	 * nodes passed on for two rounds; then its mask is no longer ours
	 * to recognise in them.
	 */
	if (!r->placed && r->pub->v.last_nodes && ++r->last_age > 2) {
		struct na_pub_val v = r->pub->v;

		v.last_nodes = 0;
		v.prev_nodes = 0;
		na_pub_set(r->pub, &v);
	}
}

/* ------------------------------------------------------------------ */
/* Memory node: sampled pages                                          */

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
 * are not counted.  Fills @pm (per-mille per node, counting in @count)
 * and returns the number of pages found; -EAGAIN if the process's
 * mmap_lock was busy (it is tried again next round) or it has no memory.
 */
static int na_mem_sample(struct task_struct *p, u16 *pm, unsigned int *count)
{
	unsigned long total = 0, step, pos, base = 0;
	struct vm_area_struct *vma;
	unsigned int found = 0;
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
 * e->order[first..first+n) when due, and give every thread the result
 */
static void na_mem_update(struct na_engine *e, u32 first, u32 n)
{
	struct na_rec *r0 = na_rec(e, e->order[first]), *r;
	struct task_struct *p;
	int found, mem = -1;
	u32 i, busy = 0;
	bool due = false;

	for (i = 0; i < n; i++) {
		r = na_rec(e, e->order[first + i]);
		busy += r->util;
		due |= r->mem_age >= NA_MEM_EVERY;
	}
	/* Only processes busy enough to be placed: sampling costs. */
	if (busy < NA_MIN_DEMAND || !due)
		return;
	p = na_get_task(r0);
	if (!p)
		return;
	found = na_mem_sample(p, na_rec_mem(e, r0),
			      (unsigned int *)e->node_scratch);
	put_task_struct(p);
	if (found < 0)
		return;
	if (found >= NA_MEM_MIN_PAGES) {
		u16 *pm = na_rec_mem(e, r0);
		int nd;

		for (mem = 0, nd = 1; nd < nr_node_ids; nd++)
			if (pm[nd] > pm[mem])
				mem = nd;
	}
	for (i = 0; i < n; i++) {
		r = na_rec(e, e->order[first + i]);
		if (r != r0)
			memcpy(na_rec_mem(e, r), na_rec_mem(e, r0),
			       nr_node_ids * sizeof(u16));
		na_rec_where(r, r->pub->v.home, mem);
		r->mem_age = 0;
	}
}

/* ------------------------------------------------------------------ */
/* Nodes                                                               */

/*
 * na_nodes_update - decayed load and class of every node, @dt ns on.
 * Runs after the records' update, which summed in e->round_wait the
 * time the tasks on each node waited: in lean mode the CPUs do not
 * count it.
 */
static void na_nodes_update(struct na_engine *e, u64 dt, u32 gen)
{
	u32 imb = READ_ONCE(e->tun.imbalance_pct);
	u32 margin = READ_ONCE(e->tun.margin_pm);
	bool reset = e->nodes_gen != gen, lean = READ_ONCE(e->obs->lean);
	enum na_class cls;
	int n, cpu;

	e->nodes_gen = gen;
	for (n = 0; n < nr_node_ids; n++) {
		struct na_node *nd = &e->nodes[n];
		u64 busy = 0, wait = 0, db, dw;
		struct na_cpu_totals tot;
		unsigned int cpus = 0;

		for_each_possible_cpu(cpu) {
			if (per_cpu_ptr(e->obs->cpus, cpu)->node != n)
				continue;
			na_cpu_totals(e->obs, cpu, &tot);
			busy += tot.busy;
			wait += tot.wait;
			cpus += cpu_online(cpu);
		}
		db = na_delta(busy, nd->busy, reset);
		dw = lean ? e->round_wait[n] : na_delta(wait, nd->wait, reset);
		e->round_wait[n] = 0;
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
			trace_numa_advise_node_class(n, nd->cls, cls,
				div_u64((u64)nd->util * 1000, nd->cap),
				div_u64((u64)nd->runnable * 1000, nd->cap));
		nd->cls = cls;
	}
}

/* ------------------------------------------------------------------ */
/* A round                                                             */

/* records by process, the placeable first, then by thread */
static int na_order_cmp(const void *a, const void *b, const void *priv)
{
	const struct na_engine *e = priv;
	const struct na_rec *x = na_rec(e, *(const u32 *)a);
	const struct na_rec *y = na_rec(e, *(const u32 *)b);

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (!x->skip != !y->skip)
		return x->skip ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * na_unit_fill - a unit's load, where it is, and its score per node.  The
 * 2003 seed's home node holds both the memory and the running: the score
 * is the residency (weighted by each thread's load) averaged with where
 * the process's memory is, when that is known, the memory counted twice:
 * a task moves in microseconds, its pages do not.
 */
static void na_unit_fill(struct na_engine *e, struct na_unit *u, u32 *score,
			 u64 now)
{
	u32 hold_ms = READ_ONCE(e->tun.min_move_ms);
	struct na_rec *r0 = na_rec(e, e->order[u->first]);
	u64 *acc = e->node_scratch, weight = 0;
	int mem = r0->pub->v.mem;
	bool fresh = false;
	u32 i;
	int n;

	memset(acc, 0, nr_node_ids * sizeof(*acc));
	u->demand = 0;
	u->cur = 0;
	u->placed = true;
	u->hold = false;
	u->may_let_go = true;
	for (i = 0; i < u->nr; i++) {
		struct na_rec *r = na_rec(e, e->order[u->first + i]);
		u64 *w = na_rec_weight(e, r), sum = 0, tw = max(r->util, 1U);

		u->demand += r->load;
		if (r->placed)
			u->cur |= r->placed;
		else if (r->cur >= 0)
			u->cur |= 1ULL << r->cur;
		if (!r->placed)
			u->placed = false;
		fresh |= r->fresh;
		if (r->placed && now - r->moved_at < (u64)hold_ms * NSEC_PER_MSEC)
			u->hold = true;
		/* at most once in ten holds, and ten seconds */
		if (r->let_go_at && now - r->let_go_at <
		    max(10ULL * hold_ms, 10000ULL) * NSEC_PER_MSEC)
			u->may_let_go = false;
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

		score[n] = mem >= 0 ? (res + 2 * na_rec_mem(e, r0)[n]) / 3 : res;
	}
	u->score = score;
	/* A thread without a whole round yet: judged next round. */
	if (fresh)
		u->demand = 0;
}

/*
 * na_units_build - group the placeable records into units: one per task
 * for `home`, one per process for `distance`.  Returns how many.
 */
static u32 na_units_build(struct na_engine *e, u64 now, bool per_process)
{
	u32 nr = 0, nu = 0, i, j, k;
	unsigned long s;

	for_each_set_bit(s, e->rec_map, e->obs->max_tasks)
		if (na_rec(e, s)->skip != NA_SKIP_KTHREAD)
			e->order[nr++] = s;
	sort_r(e->order, nr, sizeof(*e->order), na_order_cmp, NULL, e);

	for (i = 0; i < nr; i = j) {
		pid_t tgid = na_rec(e, e->order[i])->tgid;
		u32 placeable = 0;

		for (j = i; j < nr && na_rec(e, e->order[j])->tgid == tgid; j++)
			placeable += !na_rec(e, e->order[j])->skip;
		na_mem_update(e, i, j - i);
		for (k = i; k < i + placeable; k++) {
			struct na_unit *u = &e->units[nu];

			u->first = k;
			u->nr = per_process ? placeable : 1;
			u->id = per_process ? tgid : na_rec(e, e->order[k])->pid;
			na_unit_fill(e, u, e->scores + (size_t)nu * nr_node_ids,
				     now);
			nu++;
			if (per_process)
				break;
		}
		cond_resched();
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
static void na_machine_init(struct na_engine *e, struct na_machine *m,
			    u32 nu, bool nearby)
{
	u32 imb = READ_ONCE(e->tun.imbalance_pct);
	u64 *runnable = e->node_scratch;
	u32 i, k;
	int n;

	for (n = 0; n < nr_node_ids; n++) {
		e->cap[n] = e->nodes[n].cap;
		e->room[n] = e->nodes[n].util;	/* base load, for now */
		runnable[n] = e->nodes[n].runnable;
	}
	for (i = 0; i < nu; i++) {
		for (k = 0; k < e->units[i].nr; k++) {
			struct na_rec *r = na_rec(e, e->order[e->units[i].first + k]);

			if (r->cur < 0)
				continue;
			e->room[r->cur] -= min_t(s32, e->room[r->cur], r->util);
			runnable[r->cur] -= min_t(u64, runnable[r->cur], r->load);
		}
	}
	for (n = 0; n < nr_node_ids; n++) {
		e->cls[n] = e->cap[n] ?
			    na_classify_raw(e->cap[n], e->room[n], runnable[n],
					    imb) : NA_OVERLOADED;
		e->room[n] = (s32)na_sub_sat((u64)e->cap[n] * imb / 100,
					     e->room[n]);
	}

	*m = (struct na_machine){
		.nr = nr_node_ids,
		.dist = e->dist,
		.cap = e->cap,
		.cls = e->cls,
		.room = e->room,
		.imb_pct = imb,
		.gain_pm = READ_ONCE(e->tun.gain_pm),
		.min_demand = NA_MIN_DEMAND,
		.nearby = nearby,
	};
}

/* na_units_apply - in enforce mode, make the masks follow the advice */
static void na_units_apply(struct na_engine *e, u32 nu, u64 now)
{
	u64 all = nr_node_ids >= 64 ? ~0ULL : (1ULL << nr_node_ids) - 1;
	u32 i, k;

	for (i = 0; i < nu; i++) {
		const struct na_unit *u = &e->units[i];

		for (k = 0; k < u->nr; k++) {
			struct na_rec *r = na_rec(e, e->order[u->first + k]);

			switch (u->reason) {
			case NA_R_NO_DATA:
			case NA_R_HOLD:
				break;
			case NA_R_WIDE:
			case NA_R_SCATTERED:
				if (r->placed)
					na_restore(e, r);
				break;
			default:
				/* Where it belongs, or the best it can have. */
				if (u->target && u->target != all)
					na_place(e, r, u->target, now);
			}
		}
		cond_resched();
	}
}

/* na_advice_record - what a unit was advised, onto each of its records */
static void na_advice_record(struct na_engine *e, const struct na_unit *u,
			     u64 now)
{
	u32 k;

	switch (u->reason) {
	case NA_R_MOVE:
	case NA_R_STAY:
	case NA_R_SCATTERED:
	case NA_R_CROWDED:
	case NA_R_SWAP:
		break;
	default:
		e->stats.refused[u->reason]++;
	}
	for (k = 0; k < u->nr; k++) {
		struct na_rec *r = na_rec(e, e->order[u->first + k]);

		r->target = u->target;
		r->reason = u->reason;
		if (r->reason == NA_R_SCATTERED)
			r->let_go_at = now;
		r->cur_score = u->cur_score;
		r->target_score = u->target_score;
		if (r->target != r->prev_target && r->target)
			trace_numa_advise_advice(r->pid, r->tgid, r->comm,
						 r->prev_target, r->target,
						 r->reason);
	}
}

static void na_round(struct na_engine *e)
{
	int policy = READ_ONCE(e->policy);
	bool enforce = READ_ONCE(e->mode) == NA_MODE_ENFORCE;
	struct na_obs *o = e->obs;
	u32 gen = READ_ONCE(o->gen);
	u64 now = local_clock(), dt = now - e->last_round;
	struct na_machine m;
	unsigned long s;
	u32 nu, i;

	if (!dt)
		return;
	e->rounds++;
	na_scope_resolve(&e->scope);
	na_for_each_slot(o, s) {
		na_rec_update(e, s, now, dt, gen);
		cond_resched();
	}
	na_nodes_update(e, dt, gen);
	na_records_forget(e);
	e->last_round = now;

	for_each_set_bit(s, e->rec_map, o->max_tasks) {
		struct na_rec *r = na_rec(e, s);

		r->prev_target = r->target;
		r->target = 0;
		r->reason = NA_R_NO_DATA;
		cond_resched();
	}
	nu = na_units_build(e, now, policy == NA_POLICY_DISTANCE);
	if (policy == NA_POLICY_NONE)
		nu = 0;

	na_machine_init(e, &m, nu, policy == NA_POLICY_DISTANCE);
	e->stats.swaps += na_decide_round(&m, e->units, nu,
					  policy == NA_POLICY_HOME,
					  e->node_scratch);
	for (i = 0; i < nu; i++)
		na_advice_record(e, &e->units[i], now);

	if (policy != NA_POLICY_NONE && enforce)
		na_units_apply(e, nu, now);
	/* Out of scope, policy none or advise mode: nothing stays narrowed. */
	for_each_set_bit(s, e->rec_map, o->max_tasks) {
		struct na_rec *r = na_rec(e, s);

		if (r->placed && (r->skip || policy == NA_POLICY_NONE ||
				  !enforce))
			na_restore(e, r);
		cond_resched();
	}
}

static int na_engine_fn(void *data)
{
	struct na_engine *e = data;

	while (!kthread_should_stop()) {
		mutex_lock(&e->lock);
		na_round(e);
		mutex_unlock(&e->lock);

		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule_timeout(msecs_to_jiffies(READ_ONCE(e->tun.interval_ms)));
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Settings                                                            */

/*
 * na_engine_set - change the policy or the mode (@setting: &e->policy or
 * &e->mode); what the new setting no longer wants is put back before
 * this returns, and the engine wakes to act on it at once.  @quiet: a
 * refusal is not logged (the module is up: the caller gets -EOPNOTSUPP).
 */
int na_engine_set(struct na_engine *e, int *setting, int val, bool quiet)
{
	if (setting == &e->policy && val != NA_POLICY_NONE &&
	    nr_node_ids > NA_MAX_NODES) {
		if (!quiet)
			pr_err("placement handles up to %d nodes, not %u\n",
			       NA_MAX_NODES, nr_node_ids);
		return -EOPNOTSUPP;
	}
	mutex_lock(&e->lock);
	WRITE_ONCE(*setting, val);
	if (e->thread) {
		if (e->policy == NA_POLICY_NONE || e->mode != NA_MODE_ENFORCE)
			na_restore_all(e);
		wake_up_process(e->thread);
	}
	mutex_unlock(&e->lock);
	return 0;
}

/* na_engine_kick - a new round now (caller holds e->lock) */
void na_engine_kick(struct na_engine *e)
{
	lockdep_assert_held(&e->lock);
	if (e->thread)
		wake_up_process(e->thread);
}

/* ------------------------------------------------------------------ */
/* Start and stop                                                      */

/*
 * na_engine_alloc - the engine's records (one per slot of @o) and the
 * work space of a round, reserved at load like the slots: a round never
 * fails for want of memory.
 */
int na_engine_alloc(struct na_engine *e, struct na_obs *o)
{
	size_t nr = nr_node_ids, nodes_bytes, work_bytes, rec_bytes;
	u32 max_tasks = o->max_tasks;
	void *p;
	u32 s;

	e->obs = o;
	e->rec_off_weight = sizeof(struct na_rec) + nr * sizeof(u64);
	e->rec_off_mem = e->rec_off_weight + nr * sizeof(u64);
	e->rec_off_mask = ALIGN(e->rec_off_mem + nr * sizeof(u16),
				sizeof(long));
	e->rec_stride = ALIGN(e->rec_off_mask + cpumask_size(), sizeof(u64));
	rec_bytes = array_size(max_tasks, e->rec_stride);
	e->recs = vzalloc(rec_bytes);
	if (!e->recs)
		goto fail;
	e->rec_map = bitmap_zalloc(max_tasks, GFP_KERNEL);
	if (!e->rec_map)
		goto free_recs;

	/* units, then their scores, then the order of the records */
	work_bytes = max_tasks * (sizeof(*e->units) + nr * sizeof(u32) +
				  sizeof(u32));
	e->units = kvzalloc(work_bytes, GFP_KERNEL);
	if (!e->units)
		goto free_rec_map;
	e->scores = (u32 *)(e->units + max_tasks);
	e->order = e->scores + (size_t)max_tasks * nr;

	/*
	 * per node: state, scratch, waits, capacity, room, class, then
	 * distances
	 */
	nodes_bytes = nr * (sizeof(*e->nodes) + 2 * sizeof(u64) +
			    2 * sizeof(u32) + sizeof(*e->cls)) + nr * nr;
	p = kzalloc(nodes_bytes, GFP_KERNEL);
	if (!p)
		goto free_work;
	e->nodes = p;
	e->node_scratch = (u64 *)(e->nodes + nr);
	e->round_wait = e->node_scratch + nr;
	e->cap = (u32 *)(e->round_wait + nr);
	e->room = (s32 *)(e->cap + nr);
	e->cls = (enum na_class *)(e->room + nr);
	e->dist = (u8 *)(e->cls + nr);

	e->snap = na_task_alloc(o);
	if (!e->snap)
		goto free_nodes;
	if (!zalloc_cpumask_var(&e->mask_tmp, GFP_KERNEL))
		goto free_snap;

	for (s = 0; s < max_tasks; s++)
		na_rec(e, s)->pub = &o->pub[s];
	for (s = 0; s < nr * nr; s++)
		e->dist[s] = min(node_distance(s / nr, s % nr), 255);
	for (s = 0; s < nr; s++)
		e->nodes[s].cls = NA_NR_CLASSES;
	e->mem_bytes = rec_bytes + work_bytes + nodes_bytes +
		       BITS_TO_LONGS(max_tasks) * sizeof(long);
	return 0;

free_snap:
	kfree(e->snap);
free_nodes:
	kfree(e->nodes);
free_work:
	kvfree(e->units);
free_rec_map:
	bitmap_free(e->rec_map);
free_recs:
	vfree(e->recs);
fail:
	pr_err("cannot reserve memory for the placement engine\n");
	return -ENOMEM;
}

void na_engine_free(struct na_engine *e)
{
	na_scope_clear(&e->scope);
	free_cpumask_var(e->mask_tmp);
	kfree(e->snap);
	kfree(e->nodes);
	kvfree(e->units);
	bitmap_free(e->rec_map);
	vfree(e->recs);
}

int na_engine_start(struct na_engine *e)
{
	struct task_struct *p;

	p = kthread_create(na_engine_fn, e, "numa_advise");
	if (IS_ERR(p)) {
		pr_err("cannot start the engine thread: %ld\n", PTR_ERR(p));
		return PTR_ERR(p);
	}
	mutex_lock(&e->lock);
	e->last_round = local_clock();
	e->thread = p;
	mutex_unlock(&e->lock);
	wake_up_process(p);
	return 0;
}

void na_engine_stop(struct na_engine *e)
{
	struct task_struct *p;

	mutex_lock(&e->lock);
	p = e->thread;
	e->thread = NULL;
	mutex_unlock(&e->lock);
	kthread_stop(p);
}

/*
 * na_engine_restore - put back every mask we narrowed, inherited ones
 * included (with the probes gone, no fork can mark a child any more)
 */
void na_engine_restore(struct na_engine *e)
{
	mutex_lock(&e->lock);
	na_restore_all(e);
	mutex_unlock(&e->lock);
}
