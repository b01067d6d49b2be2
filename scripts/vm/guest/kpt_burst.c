// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_burst: N processes that make their first traced system call in one
 * burst, for the kptrace_burst VM test.  Built static with the host's gcc
 * (make test-modules) and run in the guest.
 *
 *   kpt_burst N
 *
 * It makes itself SCHED_FIFO (priority 10) on CPU 0 and forks N children,
 * which inherit both and wait on a pipe.  Then it prints "ready", reads
 * one byte from stdin (the test starts tracing meanwhile) and closes the
 * pipe: every child wakes, calls getpid(), tells the parent and waits on
 * a second pipe, which the parent closes once all N have called.  So all
 * N are alive, each past its first call, at the same time, and no
 * SCHED_NORMAL task runs on CPU 0 from the first child's call to the
 * last (with RT throttling off): a work item one of them queues on CPU 0
 * cannot run in between.  Prints "burst N" at the end; exits 1 if a step
 * failed.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* A child: wait for @go to close, call getpid(), say so, wait for @end. */
static void child(int go, int done, int end)
{
	char c;

	if (read(go, &c, 1) != 0)
		_exit(1);
	syscall(SYS_getpid);
	if (write(done, "x", 1) != 1 || read(end, &c, 1) != 0)
		_exit(1);
	_exit(0);
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 10 };
	int n = argc > 1 ? atoi(argv[1]) : 0, i, go[2], done[2], end[2];
	int status, failed = 0;
	cpu_set_t cpu0;
	char c;

	if (n <= 0) {
		fprintf(stderr, "usage: kpt_burst N\n");
		return 2;
	}
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (pipe(go) || pipe(done) || pipe(end) ||
	    sched_setaffinity(0, sizeof(cpu0), &cpu0) ||
	    sched_setscheduler(0, SCHED_FIFO, &sp)) {
		perror("kpt_burst: setup");
		return 1;
	}
	for (i = 0; i < n; i++) {
		pid_t p = fork();

		if (p < 0) {
			perror("kpt_burst: fork");
			return 1;
		}
		if (!p) {
			close(go[1]);
			close(done[0]);
			close(end[1]);
			child(go[0], done[1], end[0]);
		}
	}
	close(go[0]);
	close(done[1]);
	close(end[0]);
	printf("ready\n");
	fflush(stdout);
	if (read(0, &c, 1) != 1) {
		fprintf(stderr, "kpt_burst: nothing on stdin\n");
		return 1;
	}
	close(go[1]);
	for (i = 0; i < n; i++) {
		if (read(done[0], &c, 1) != 1) {
			fprintf(stderr, "kpt_burst: %d of %d children called\n", i, n);
			return 1;
		}
	}
	close(end[1]);
	while (wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	printf("burst %d\n", n);
	return failed;
}
