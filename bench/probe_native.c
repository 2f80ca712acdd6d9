// SPDX-License-Identifier: GPL-2.0
/*
 * probe_native - the sched_switch probe's work, natively on the host
 *
 * usage: probe_native TASKS EVENTS REPEATS
 *
 * The host cannot load the module, so this replays what the probe does for
 * one context switch, in user space and with the module's own index and
 * histogram code (module/na_index.h, na_hist.h, compiled through
 * tests/unit/kcompat.h): two clock reads, the per-CPU write section, the
 * outgoing task's slot (cached) charged and refreshed, the incoming task
 * found in the index among TASKS live ones (picked at random, so a large
 * table misses the caches as the kernel's would), the probe's own cost
 * put in its histogram.  The clock is the TSC read as the kernel's
 * local_clock() reads it (ordered rdtsc, scaled to ns by multiply and
 * shift).  What it leaves out: the tracepoint's call into the probe.  It is
 * a replica, timed natively, not the probe.
 *
 * Prints "DATA native-probe TASKS REPEAT NS_PER_EVENT" per repeat.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include "../tests/unit/kcompat.h"
#include "../module/na_hist.h"
#include "../module/na_index.h"

#define NODES 4

struct task {			/* what the probe reads of a task_struct */
	int pid, tgid;
	unsigned int flags;
	int nr_cpus_allowed;
	char comm[16];
	char rest[8192];	/* task_structs are ~9 KiB apart */
};

struct slot {			/* as struct na_task */
	u32 seq, gen;
	unsigned long key;
	int pid, tgid;
	char comm[16];
	unsigned int pflags;
	int nr_cpus_allowed;
	u64 inherit[2], born, last_out, wait_since;
	int wait_cpu;
	u64 migrations, xnode_migrations, wait_ns;
	u64 node_ns[NODES];
};

static struct {			/* as struct na_cpu, for one CPU */
	u32 seq, gen;
	u64 last, busy_ns, switches;
	unsigned long curr_key;
	struct slot *curr;
	u64 calls, sum_ns, max_ns, hist[NA_HIST_BUCKETS];
} pc;

/* the timing of the benchmark itself */
static u64 wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* as native_sched_clock(): rdtsc_ordered(), then cycles * mult >> shift */
static u32 cyc2ns_mul = 1 << 9;

static u64 clock_ns(void)
{
	_mm_lfence();
	return (u64)(((unsigned __int128)__rdtsc() * cyc2ns_mul) >> 10);
}

static struct na_index idx;
static struct slot *slots;

static struct slot *slot_of(unsigned long key)
{
	struct na_ient *e = na_index_find(&idx, key);

	return e ? &slots[e->slot] : NULL;
}

/* switch - one sched_switch event from pc.curr's task to @next */
static void __attribute__((noinline)) do_switch(struct task *prev, struct task *next)
{
	u64 now = clock_ns(), delta = now - pc.last, d;
	struct slot *t;

	pc.seq++;
	pc.switches++;
	pc.busy_ns += delta;
	t = pc.curr_key == (unsigned long)prev ? pc.curr : slot_of((unsigned long)prev);
	if (t) {
		t->seq++;
		t->node_ns[1] += delta;
		t->last_out = now;
		t->wait_since = 0;
		t->wait_cpu = 1;
		t->pid = prev->pid;
		t->tgid = prev->tgid;
		memcpy(t->comm, prev->comm, 16);
		t->pflags = prev->flags;
		t->nr_cpus_allowed = prev->nr_cpus_allowed;
		t->seq++;
	}
	t = slot_of((unsigned long)next);
	if (t && t->wait_since)
		t->wait_since = 0;
	pc.curr_key = (unsigned long)next;
	pc.curr = t;
	pc.last = now;
	d = clock_ns() - now;
	pc.calls++;
	pc.sum_ns += d;
	if (d > pc.max_ns)
		pc.max_ns = d;
	pc.hist[na_hist_bucket(d)]++;
	pc.seq++;
}

int main(int argc, char **argv)
{
	long tasks, events, repeats, r, i, size;
	struct task *task;
	unsigned int seed = 1;
	int *order;

	if (argc != 4 || (tasks = atol(argv[1])) <= 0 ||
	    (events = atol(argv[2])) <= 0 || (repeats = atol(argv[3])) <= 0) {
		fprintf(stderr, "usage: probe_native TASKS EVENTS REPEATS\n");
		return 2;
	}
	for (size = 16; size < 4 * tasks; size *= 2)
		;
	idx.ent = calloc(size, sizeof(*idx.ent));
	idx.mask = size - 1;
	task = calloc(tasks, sizeof(*task));
	slots = calloc(tasks, sizeof(*slots));
	order = malloc(events * sizeof(*order));
	if (!idx.ent || !task || !slots || !order) {
		perror("probe_native");
		return 1;
	}
	for (i = 0; i < tasks; i++) {
		struct na_ient *e = na_index_insert(&idx, (unsigned long)&task[i]);

		if (!e)
			return 1;
		e->slot = i;
		task[i].pid = i + 1000;
		snprintf(task[i].comm, sizeof(task[i].comm), "task-%d", (int)(i % 1000000));
	}
	for (i = 0; i < events; i++)
		order[i] = rand_r(&seed) % tasks;
	pc.last = clock_ns();
	for (r = 0; r < repeats; r++) {
		struct task *prev = &task[0];
		u64 t0 = wall_ns();

		for (i = 0; i < events; i++) {
			do_switch(prev, &task[order[i]]);
			prev = &task[order[i]];
		}
		printf("DATA native-probe %ld %ld %.1f\n", tasks, r,
		       (double)(wall_ns() - t0) / events);
	}
	return pc.calls == (u64)(events * repeats) ? 0 : 1;
}
