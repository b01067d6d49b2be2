/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's worker (worker.c): the jobs the probes ask for, run in
 * process context.  The lowest floor of slab/: it knows no other file
 * but record.h, for LEAK_TESTS.
 */
#ifndef _SLABTRACE_SLAB_WORKER_H
#define _SLABTRACE_SLAB_WORKER_H

#include <linux/types.h>

#include "part.h"
#include "record.h"

enum leak_job {
	LEAK_JOB_REFILL,		/* pool.c: refill the lists */
	LEAK_JOB_GROW,		/* table.c: grow the table */
	LEAK_JOB_STACKS,		/* stacks.c: save deferred traces */
	LEAK_JOB_FOLLOW,		/* follow.c: start new caches */
	LEAK_JOB_IDLE,		/* slab.c: probes and prints catch up */
	LEAK_JOBS,
};

void leak_work_kick(enum leak_job job);
void leak_work_job(enum leak_job job, void (*fn)(void),
		   unsigned long delay);
/* The worker (slab.c loads it). */
extern const struct leak_part leak_work_part;

#if LEAK_TESTS
/* For the KUnit suites and the benchmarks. */
void leak_work_flush(void);
#endif

#endif /* _SLABTRACE_SLAB_WORKER_H */
