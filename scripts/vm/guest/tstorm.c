// SPDX-License-Identifier: GPL-2.0
/*
 * tstorm: a storm of threads making system calls, for the kptrace_storm VM
 * test.  Built static with the host's gcc (make test-modules) and run in
 * the guest.
 *
 *   tstorm [-t N] [-c N] [-s SECONDS | -f FILE]
 *
 *   -t N     N threads (150) that each sleep 1 ms (nanosleep()) and call
 *            getpid() in a loop, all started at once
 *   -c N     meanwhile, batches of N short-lived threads (50): each makes
 *            a few calls and exits, the next batch is started once the
 *            last is joined
 *   -s S     for S seconds (10)
 *   -f FILE  instead, until FILE exists (looked for after each batch)
 *
 * Prints "threads=N batches=B churned=C calls=K" at the end: the
 * long-lived threads started, the batches and short-lived threads that
 * ran, and the calls the long-lived threads made.  Exits 1 if a thread
 * could not be created.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_int stop;
static atomic_long calls;

static void sleep_1ms(void)
{
	struct timespec ts = { 0, 1000000 };

	syscall(SYS_nanosleep, &ts, NULL);
}

static void *sleeper(void *arg)
{
	long n = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		sleep_1ms();
		syscall(SYS_getpid);
		n += 2;
	}
	atomic_fetch_add(&calls, n);
	return NULL;
}

static void *short_lived(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 4; i++)
		syscall(SYS_getpid);
	return NULL;
}

int main(int argc, char **argv)
{
	long nthreads = 150, nchurn = 50, secs = 10, batches = 0, churned = 0;
	const char *until = NULL;
	pthread_t *t, *c;
	struct stat st;
	pthread_attr_t attr;
	time_t end;
	long i, k;
	int opt;

	while ((opt = getopt(argc, argv, "t:c:s:f:")) != -1) {
		switch (opt) {
		case 't':
			nthreads = atol(optarg);
			break;
		case 'c':
			nchurn = atol(optarg);
			break;
		case 's':
			secs = atol(optarg);
			break;
		case 'f':
			until = optarg;
			break;
		default:
			return 2;
		}
	}
	t = calloc(nthreads, sizeof(*t));
	c = calloc(nchurn, sizeof(*c));
	if (!t || !c)
		return 1;
	/* Small stacks: hundreds of threads in a small guest. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < nthreads; i++) {
		if (pthread_create(&t[i], &attr, sleeper, NULL)) {
			fprintf(stderr, "tstorm: thread %ld: cannot create\n", i);
			return 1;
		}
	}
	end = time(NULL) + secs;
	do {
		for (k = 0; k < nchurn; k++) {
			if (pthread_create(&c[k], &attr, short_lived, NULL)) {
				fprintf(stderr, "tstorm: short-lived thread: cannot create\n");
				return 1;
			}
		}
		for (k = 0; k < nchurn; k++)
			pthread_join(c[k], NULL);
		churned += nchurn;
		batches++;
	} while (until ? stat(until, &st) : time(NULL) < end);
	atomic_store(&stop, 1);
	for (i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	printf("threads=%ld batches=%ld churned=%ld calls=%ld\n", nthreads,
	       batches, churned, atomic_load(&calls));
	return 0;
}
