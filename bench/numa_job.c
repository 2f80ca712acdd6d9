// SPDX-License-Identifier: GPL-2.0
/*
 * numa_job - one job of numa_test, rebuilt after the 2003 seed's randupdt:
 * it allocates a private array, first-touches it wherever the scheduler
 * starts it, and updates it at random; and it measures its own locality.
 *
 * usage: numa_job [-m MB] [-t THREADS] [-n MUPDATES] [-s SAMPLE_MS] [-w]
 *
 * THREADS threads (default 1; the first is the main thread, so the job's
 * pid is a worker's) each make MUPDATES million random updates (default
 * 20) to the MB MiB array (default 32).  Every SAMPLE_MS (default 250) a
 * sampler thread asks the kernel where 64 random pages of the array
 * are (move_pages(2) with no target: a query) and compares each with the
 * node each thread is running on at that moment (getcpu(2), published by
 * the threads): the share of matches is the share of memory accesses that
 * are local, sampled.  It also notes each change of thread 0's node.
 *
 * At exit it prints one line of KEY=VALUE:
 *   pid elapsed_s user_s local_pct samples node_changes settled_s
 *   run_node mem_node nodes
 * settled_s is when thread 0 last changed node (0 if never); run_node the
 * node thread 0 ended on; mem_node the node holding most sampled pages;
 * nodes the set of nodes the threads ended on ("0,2").
 * With -w it then sleeps until killed, so that its statistics can still be
 * read where the kernel keeps them per live task.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SAMPLE_PAGES	64
#define MAX_NODES	64
#define MAX_THREADS	64

static unsigned long *mem;
static size_t words;
static long updates;
/* the node each thread last ran on, or -1; written by it, read by main */
static atomic_int node_of[MAX_THREADS];
static atomic_int running;

static int current_node(void)
{
	unsigned int cpu, node;

	if (syscall(SYS_getcpu, &cpu, &node, NULL))
		return -1;
	return node;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *update(void *arg)
{
	long id = (long)arg, n;
	unsigned long x = id * 2654435761UL + 1;

	for (n = 0; n < updates; n++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		mem[x % words]++;
		if (!(n & 0xffff))
			atomic_store(&node_of[id], current_node());
	}
	atomic_fetch_sub(&running, 1);
	return NULL;
}

/* what the sampler found; written by it, read by main after the join */
static long samples, changes, local, checked, on_node[MAX_NODES];
static double start, settled;
static long sample_ms = 250, threads = 1;

static void *sampler(void *arg)
{
	unsigned int seed = getpid();
	long page = sysconf(_SC_PAGESIZE), i, t;
	int last = -1;

	(void)arg;
	while (atomic_load(&running) > 0) {
		void *pages[SAMPLE_PAGES];
		int status[SAMPLE_PAGES], n0 = atomic_load(&node_of[0]);

		usleep(sample_ms * 1000);
		if (n0 != last) {
			if (last >= 0) {
				changes++;
				settled = now_s() - start;
			}
			last = n0;
		}
		for (i = 0; i < SAMPLE_PAGES; i++)
			pages[i] = (char *)mem + (rand_r(&seed) % (words * 8 / page)) * page;
		if (syscall(SYS_move_pages, 0, SAMPLE_PAGES, pages, NULL, status, 0))
			continue;
		samples++;
		for (i = 0; i < SAMPLE_PAGES; i++) {
			if (status[i] < 0 || status[i] >= MAX_NODES)
				continue;
			on_node[status[i]]++;
			for (t = 0; t < threads; t++) {
				checked++;
				local += status[i] == atomic_load(&node_of[t]);
			}
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long mb = 32, mupdates = 20, i, t;
	pthread_t tid[MAX_THREADS], sampler_tid;
	struct rusage ru;
	int opt, mem_node = -1, wait_killed = 0;

	while ((opt = getopt(argc, argv, "m:t:n:s:w")) != -1) {
		switch (opt) {
		case 'm': mb = atol(optarg); break;
		case 't': threads = atol(optarg); break;
		case 'n': mupdates = atol(optarg); break;
		case 's': sample_ms = atol(optarg); break;
		case 'w': wait_killed = 1; break;
		default: goto usage;
		}
	}
	if (optind != argc || mb <= 0 || threads <= 0 || threads > MAX_THREADS ||
	    mupdates <= 0 || sample_ms <= 0)
		goto usage;

	words = (size_t)mb << 20 >> 3;
	mem = malloc(words * sizeof(*mem));
	if (!mem) {
		perror("malloc");
		return 1;
	}
	memset(mem, 1, words * sizeof(*mem));
	updates = mupdates * 1000000;
	start = now_s();
	atomic_store(&running, threads);
	for (t = 0; t < threads; t++)
		atomic_store(&node_of[t], current_node());
	for (t = 1; t < threads; t++) {
		if (pthread_create(&tid[t], NULL, update, (void *)t)) {
			perror("pthread_create");
			return 1;
		}
	}
	if (pthread_create(&sampler_tid, NULL, sampler, NULL)) {
		perror("pthread_create");
		return 1;
	}
	update(NULL);
	for (t = 1; t < threads; t++)
		pthread_join(tid[t], NULL);
	pthread_join(sampler_tid, NULL);
	for (i = 0; i < MAX_NODES; i++)
		if (on_node[i] && (mem_node < 0 || on_node[i] > on_node[mem_node]))
			mem_node = i;
	getrusage(RUSAGE_SELF, &ru);
	printf("pid=%d elapsed_s=%.2f user_s=%.2f local_pct=%.1f samples=%ld node_changes=%ld settled_s=%.1f run_node=%d mem_node=%d nodes=",
	       getpid(), now_s() - start,
	       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	       checked ? 100.0 * local / checked : 0.0, samples, changes,
	       settled, atomic_load(&node_of[0]), mem_node);
	for (i = 0, t = 0; i < MAX_NODES; i++) {
		int on = 0, k;

		for (k = 0; k < threads; k++)
			on |= atomic_load(&node_of[k]) == i;
		if (on)
			printf(t++ ? ",%ld" : "%ld", i);
	}
	putchar('\n');
	fflush(stdout);
	while (wait_killed)
		pause();
	return 0;
usage:
	fprintf(stderr, "usage: numa_job [-m MB] [-t THREADS] [-n MUPDATES] [-s SAMPLE_MS] [-w]\n");
	return 2;
}
