// SPDX-License-Identifier: GPL-2.0
/*
 * churn - create and reap N short-lived tasks, half processes, half threads
 *
 * usage: churn [-x] N
 * Every task does nothing and exits (with -x, each process execs /bin/true
 * first); all are reaped before churn exits, so each one reaches
 * sched_process_free.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BATCH 32

static void *nothing(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	int do_exec = argc == 3 && !strcmp(argv[1], "-x");
	long n, done = 0;
	char *end;

	if (argc != 2 + do_exec ||
	    (n = strtol(argv[1 + do_exec], &end, 10)) <= 0 || *end) {
		fprintf(stderr, "usage: churn [-x] N\n");
		return 2;
	}
	while (done < n) {
		pthread_t th[BATCH];
		int i, k = 0;

		/* a batch of processes ... */
		for (i = 0; i < BATCH / 2 && done < n; i++, done++) {
			pid_t pid = fork();

			if (pid < 0) {
				perror("churn: fork");
				return 1;
			}
			if (pid == 0) {
				if (do_exec)
					execl("/bin/true", "true", (char *)NULL);
				_exit(0);
			}
		}
		/* ... and of threads, so both exit paths are exercised */
		for (; k < BATCH / 2 && done < n; k++, done++) {
			if (pthread_create(&th[k], NULL, nothing, NULL)) {
				perror("churn: pthread_create");
				return 1;
			}
		}
		while (k-- > 0)
			pthread_join(th[k], NULL);
		while (wait(NULL) > 0)
			;
	}
	printf("churn: %ld tasks created and reaped\n", done);
	return 0;
}
