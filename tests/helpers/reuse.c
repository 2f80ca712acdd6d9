// SPDX-License-Identifier: GPL-2.0
/*
 * reuse - a new task with the pid of one that is gone
 *
 * usage: reuse PID [PROGRAM [ARG...]]
 *
 * Forks children that exit at once until fork() hands out PID again (set
 * /proc/sys/kernel/pid_max low to make that quick), then prints "reused
 * PID after N forks"; that child runs PROGRAM (or sleeps) until killed, and
 * reuse waits for it.  Exits 1 if PID did not come round within 200,000
 * forks.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	pid_t want, pid;
	long n;

	if (argc < 2 || (want = atoi(argv[1])) <= 1) {
		fprintf(stderr, "usage: reuse PID [PROGRAM [ARG...]]\n");
		return 2;
	}
	for (n = 1; n <= 200000; n++) {
		pid = fork();
		if (pid < 0) {
			perror("reuse: fork");
			return 1;
		}
		if (pid == 0) {
			if (getpid() != want)
				_exit(0);
			if (argc > 2) {
				execvp(argv[2], argv + 2);
				perror("reuse: exec");
				_exit(127);
			}
			for (;;)
				pause();
		}
		if (pid == want) {
			printf("reused %d after %ld forks\n", want, n);
			fflush(stdout);
			waitpid(pid, NULL, 0);
			return 0;
		}
		waitpid(pid, NULL, 0);
	}
	fprintf(stderr, "reuse: pid %d did not come round\n", want);
	return 1;
}
