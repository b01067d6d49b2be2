/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system's per-CPU workqueue, for delayed work queued by hand.
 *
 * v6.17 added system_percpu_wq (Debian's 6.12 has it, backported) and
 * made system_wq its deprecated name; 7.x warns once per work function
 * queued on system_wq ("enqueued on deprecated workqueue").  6.1 has
 * system_wq only.  scripts/kbuild/compat/workqueue.sh tells from
 * <linux/workqueue.h>.  schedule_work() and friends choose for
 * themselves.
 */
#ifndef _SLABTRACE_WRAPPER_WORKQUEUE_H
#define _SLABTRACE_WRAPPER_WORKQUEUE_H

#include <linux/workqueue.h>

#ifdef SLABTRACE_SYSTEM_PERCPU_WQ
#define SLABTRACE_SYSTEM_WQ	system_percpu_wq
#else
#define SLABTRACE_SYSTEM_WQ	system_wq
#endif

#endif /* _SLABTRACE_WRAPPER_WORKQUEUE_H */
