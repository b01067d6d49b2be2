/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's worker (worker.c): the jobs the probes ask for, run in
 * process context.  The lowest floor of slab/: it knows no other file.
 */
#ifndef _SLABTRACE_SLAB_WORKER_H
#define _SLABTRACE_SLAB_WORKER_H

#include <linux/types.h>

enum slab_trace_job {
	SLAB_TRACE_JOB_REFILL,		/* pool.c: refill the lists */
	SLAB_TRACE_JOB_GROW,		/* table.c: grow the table */
	SLAB_TRACE_JOB_STACKS,		/* stacks.c: save deferred traces */
	SLAB_TRACE_JOB_FOLLOW,		/* follow.c: start new caches */
	SLAB_TRACE_JOB_IDLE,		/* slab.c: probes and prints catch up */
	SLAB_TRACE_JOBS,
};

void slab_trace_work_kick(enum slab_trace_job job);
void slab_trace_work_job(enum slab_trace_job job, void (*fn)(void),
			 unsigned long delay);
void slab_trace_work_flush(void);
void slab_trace_work_start(void);
void slab_trace_work_stop(void);

#endif /* _SLABTRACE_SLAB_WORKER_H */
