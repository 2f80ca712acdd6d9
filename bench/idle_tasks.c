// SPDX-License-Identifier: GPL-2.0
/*
 * idle_tasks - keep N live tasks (threads, small stacks) asleep, so that the
 * module's table holds N entries while a benchmark makes the events.
 *
 * usage: idle_tasks N
 * Prints "ready" once all N threads exist, then sleeps until killed.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	pthread_t tid;
	long n, i;

	n = argc == 2 ? atol(argv[1]) : 0;
	if (n <= 0) {
		fprintf(stderr, "usage: idle_tasks N\n");
		return 2;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 32 << 10);
	for (i = 1; i < n; i++) {
		if (pthread_create(&tid, &attr, sleeper, NULL)) {
			fprintf(stderr, "idle_tasks: thread %ld: cannot create\n", i);
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	sleeper(NULL);
	return 0;
}
