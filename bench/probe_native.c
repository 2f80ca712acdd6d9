// SPDX-License-Identifier: GPL-2.0
/*
 * probe_native - the sched_switch probe's work, natively on the host
 *
 * usage: probe_native TASKS EVENTS REPEATS
 *
 * The host cannot load the module, so this replays what the probe does for
 * one context switch, in user space: the switch count, and the incoming
 * task's run_delay read and the outgoing one's charged to the CPU, with
 * one switch in NA_SWITCH_TIME_EVERY timed into the module's own histogram
 * (module/na_hist.h, compiled through tests/unit/kcompat.h).  TASKS live
 * tasks, 9 KiB apart as task_structs are, are met in random order, so a
 * large set misses the caches as the kernel's would.
 *
 * Beside it, as the baseline both runs share, the kernel's own per-switch
 * accounting that the probe reads (sched_info_switch(): run_delay and
 * last_arrival of the task arriving, last_queued of the one leaving, with
 * its clock read).  The clock is the TSC read as the kernel's
 * local_clock() reads it (ordered rdtsc, scaled to ns by multiply and
 * shift).  What it leaves out: the tracepoint's call into the probe.  It
 * is a replica, timed natively, not the probe.
 *
 * Prints, per repeat, "DATA native-base TASKS REPEAT NS_PER_EVENT" (the
 * kernel's accounting alone) and "DATA native-probe TASKS REPEAT
 * NS_PER_EVENT" (with the probe's work after it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include "../tests/unit/kcompat.h"
#include "../module/na_hist.h"

#define NA_SWITCH_TIME_EVERY	256	/* as module/numa_advise.h */

struct task {			/* what the switch path touches of a task */
	u64 run_delay, last_arrival, last_queued, pcount;
	char rest[9216 - 4 * sizeof(u64)];
};

static struct {			/* as struct na_cpu_sched and its cost */
	struct task *curr;
	u64 curr_delay, wait_ns, switches;
	u64 timed, sum_ns, max_ns, hist[NA_HIST_BUCKETS];
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

/* the kernel's sched_info_switch(): what the probe's reads depend on */
static void __attribute__((noinline)) base_switch(struct task *prev,
						  struct task *next)
{
	u64 now = clock_ns();

	prev->last_queued = now;
	if (next->last_queued) {
		next->run_delay += now - next->last_queued;
		next->last_queued = 0;
	}
	next->last_arrival = now;
	next->pcount++;
}

static inline void count(struct task *prev, struct task *next)
{
	if (pc.curr == prev)
		pc.wait_ns += prev->run_delay - pc.curr_delay;
	pc.curr = next;
	pc.curr_delay = next->run_delay;
}

static void __attribute__((noinline)) timed(struct task *prev,
					    struct task *next)
{
	u64 t0 = clock_ns(), d;

	count(prev, next);
	d = clock_ns() - t0;
	pc.timed++;
	pc.sum_ns += d;
	if (d > pc.max_ns)
		pc.max_ns = d;
	pc.hist[na_hist_bucket(d)]++;
}

/* na_probe_switch() */
static void __attribute__((noinline)) probe_switch(struct task *prev,
						   struct task *next)
{
	u64 n = ++pc.switches;

	if (!(n & (NA_SWITCH_TIME_EVERY - 1)))
		timed(prev, next);
	else
		count(prev, next);
}

static double run(struct task *task, const int *order, long events,
		  int probe)
{
	struct task *prev = &task[0];
	u64 t0 = wall_ns();
	long i;

	for (i = 0; i < events; i++) {
		struct task *next = &task[order[i]];

		base_switch(prev, next);
		if (probe)
			probe_switch(prev, next);
		prev = next;
	}
	return (double)(wall_ns() - t0) / events;
}

int main(int argc, char **argv)
{
	long tasks, events, repeats, r, i;
	unsigned int seed = 1;
	struct task *task;
	int *order;

	if (argc != 4 || (tasks = atol(argv[1])) <= 0 ||
	    (events = atol(argv[2])) <= 0 || (repeats = atol(argv[3])) <= 0) {
		fprintf(stderr, "usage: probe_native TASKS EVENTS REPEATS\n");
		return 2;
	}
	task = calloc(tasks, sizeof(*task));
	order = malloc(events * sizeof(*order));
	if (!task || !order) {
		perror("probe_native");
		return 1;
	}
	for (i = 0; i < events; i++)
		order[i] = rand_r(&seed) % tasks;
	/* warm: every task touched once, as a live task's struct has been */
	run(task, order, events, 1);
	pc.switches = 0;
	for (r = 0; r < repeats; r++) {
		printf("DATA native-base %ld %ld %.1f\n", tasks, r,
		       run(task, order, events, 0));
		printf("DATA native-probe %ld %ld %.1f\n", tasks, r,
		       run(task, order, events, 1));
	}
	return pc.switches == (u64)(events * repeats) ? 0 : 1;
}
