/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Threads the kernel runs for a process (io_uring's iou-wrk-N, vhost's
 * vhost-N): they are not in the system call of the task that made them,
 * though copy_thread() gave them its registers.
 *
 * v5.12 added PF_IO_WORKER, v6.4 PF_USER_WORKER (both kinds).  The test
 * is the flag's own #define in <linux/sched.h>: no script needed.
 */
#ifndef _SLABTRACE_WRAPPER_SCHED_H
#define _SLABTRACE_WRAPPER_SCHED_H

#include <linux/sched.h>

#ifdef PF_USER_WORKER
#define SLABTRACE_PF_WORKER	(PF_IO_WORKER | PF_USER_WORKER)
#else
#define SLABTRACE_PF_WORKER	PF_IO_WORKER
#endif

#endif /* _SLABTRACE_WRAPPER_SCHED_H */
