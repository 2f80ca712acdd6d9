// SPDX-License-Identifier: GPL-2.0
/*
 * memtouch - a memory-bound job whose placement the tests control
 *
 * usage: memtouch [-m MB] [-t THREADS] [-a CPUS] [-b CPUS] [-p]
 *
 * Runs on CPUS -a (default: all) while it first touches MB MiB (default
 * 16), so its pages are on the node(s) of those CPUs; moves to CPUS -b if
 * given; then, unless -p (stay pinned, as a user's taskset would leave
 * it), widens its mask to every CPU, as a job nobody pinned, and
 * THREADS threads (default 1) update the memory at random until killed.
 * On SIGUSR1 the main thread forks a child that forks a grandchild, both
 * sleeping (with the main thread's CPU mask, as children have), and prints
 * "child PID" and "grandchild PID".  CPUS is a list like 2-3 or 0,4-5.
 * Prints "ready" once placed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned long *mem;
static size_t words;

/* parse_cpus - "0,2-3" into @set; 0 on success */
static int parse_cpus(const char *s, cpu_set_t *set)
{
	char *end;
	long a, b;

	CPU_ZERO(set);
	do {
		a = strtol(s, &end, 10);
		b = a;
		if (end == s || a < 0)
			return -1;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a)
				return -1;
		}
		for (; a <= b && a < CPU_SETSIZE; a++)
			CPU_SET(a, set);
		s = end + 1;
	} while (*end == ',');
	return *end ? -1 : 0;
}

static void set_cpus(const cpu_set_t *set)
{
	if (sched_setaffinity(0, sizeof(*set), set)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

static volatile sig_atomic_t fork_asked;	/* SIGUSR1 came */

static void on_usr1(int sig)
{
	(void)sig;
	fork_asked = 1;
}

/*
 * fork_sleeper - a child that at once forks a grandchild, both sleeping;
 * both inherit this thread's CPU mask, the grandchild before anyone could
 * have looked at the child
 */
static void fork_sleeper(void)
{
	pid_t child = fork();

	if (child == 0) {
		pid_t grandchild = fork();

		if (grandchild > 0) {
			printf("grandchild %d\n", grandchild);
			fflush(stdout);
		}
		for (;;)
			pause();
	}
	printf("child %d\n", child);
	fflush(stdout);
}

static void *update(void *arg)
{
	unsigned long x = (unsigned long)arg * 2654435761UL + 1, n;

	for (n = 1;; n++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		mem[x % words]++;
		if (!arg && fork_asked) {
			fork_asked = 0;
			fork_sleeper();
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	long mb = 16, threads = 1, i;
	cpu_set_t a, b, all;
	int opt, have_b = 0, pinned = 0;
	pthread_t tid;

	CPU_ZERO(&all);
	for (i = 0; i < sysconf(_SC_NPROCESSORS_CONF); i++)
		CPU_SET(i, &all);
	a = all;
	while ((opt = getopt(argc, argv, "m:t:a:b:p")) != -1) {
		switch (opt) {
		case 'p': pinned = 1; break;
		case 'm': mb = atol(optarg); break;
		case 't': threads = atol(optarg); break;
		case 'a':
			if (parse_cpus(optarg, &a))
				goto usage;
			break;
		case 'b':
			if (parse_cpus(optarg, &b))
				goto usage;
			have_b = 1;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc || mb <= 0 || threads <= 0)
		goto usage;

	/* whichever thread takes it, the main thread forks */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL)) {
		perror("sigaction");
		return 1;
	}
	set_cpus(&a);
	words = (size_t)mb << 20 >> 3;
	mem = malloc(words * sizeof(*mem));
	if (!mem) {
		perror("malloc");
		return 1;
	}
	memset(mem, 1, words * sizeof(*mem));
	if (have_b)
		set_cpus(&b);
	if (!pinned)
		set_cpus(&all);
	printf("ready\n");
	fflush(stdout);
	for (i = 0; i < threads - 1; i++)
		if (pthread_create(&tid, NULL, update, (void *)i + 1))
			return 1;
	update(NULL);
usage:
	fprintf(stderr, "usage: memtouch [-m MB] [-t THREADS] [-a CPUS] [-b CPUS] [-p]\n");
	return 2;
}
