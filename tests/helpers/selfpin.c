// SPDX-License-Identifier: GPL-2.0
/*
 * selfpin - threads that change their own CPU affinity while they work
 *
 * usage: selfpin THREADS SECONDS
 *
 * For SECONDS each of THREADS threads works a few milliseconds at a time
 * (so that it has a load the placement engine sees) and between two
 * stretches sets its own affinity to a random non-empty set of the online
 * CPUs, now and then to all of them.  Then each sets a last random mask,
 * prints "final TID CPULIST", sets the same mask again a second later (a
 * user who pins twice has the last word, see na_place() in the module) and
 * goes on working under it until killed.  "done" follows the last "final".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int seconds;
static int ncpus;
static pthread_barrier_t finals;
static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void work(double secs)
{
	double end = now() + secs;
	volatile unsigned long x = 0;

	while (now() < end)
		for (int i = 0; i < 1000; i++)
			x += i;
}

/* random_mask - a random non-empty set of CPUs; all of them one time in 4 */
static void random_mask(cpu_set_t *set, unsigned int *seed)
{
	CPU_ZERO(set);
	if (rand_r(seed) % 4 == 0) {
		for (int c = 0; c < ncpus; c++)
			CPU_SET(c, set);
		return;
	}
	while (!CPU_COUNT(set))
		for (int c = 0; c < ncpus; c++)
			if (rand_r(seed) % 2)
				CPU_SET(c, set);
}

static void print_final(const cpu_set_t *set)
{
	char list[1024];
	int n = 0;

	for (int c = 0; c < ncpus; c++)
		if (CPU_ISSET(c, set))
			n += snprintf(list + n, sizeof(list) - n, "%s%d",
				      n ? "," : "", c);
	pthread_mutex_lock(&out);
	printf("final %ld %s\n", (long)syscall(SYS_gettid), list);
	fflush(stdout);
	pthread_mutex_unlock(&out);
}

static void *thread(void *arg)
{
	unsigned int seed = (unsigned long)arg * 7919 + time(NULL);
	double end = now() + seconds;
	cpu_set_t set;

	while (now() < end) {
		work(0.002 + rand_r(&seed) % 8 / 1000.0);
		random_mask(&set, &seed);
		/* a CPU may be offline just now: then keep the old mask */
		sched_setaffinity(0, sizeof(set), &set);
	}
	do
		random_mask(&set, &seed);
	while (sched_setaffinity(0, sizeof(set), &set));
	print_final(&set);
	pthread_barrier_wait(&finals);
	work(1);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("selfpin: sched_setaffinity");
	pthread_barrier_wait(&finals);
	for (;;)
		work(1);
	return NULL;
}

int main(int argc, char **argv)
{
	int n;

	if (argc != 3 || (n = atoi(argv[1])) <= 0 || (seconds = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: selfpin THREADS SECONDS\n");
		return 2;
	}
	ncpus = sysconf(_SC_NPROCESSORS_CONF);
	pthread_barrier_init(&finals, NULL, n + 1);
	for (long i = 0; i < n; i++) {
		pthread_t th;

		if (pthread_create(&th, NULL, thread, (void *)i)) {
			perror("selfpin: pthread_create");
			return 1;
		}
	}
	pthread_barrier_wait(&finals);
	pthread_barrier_wait(&finals);
	printf("done\n");
	fflush(stdout);
	for (;;)
		pause();
}
