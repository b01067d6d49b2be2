/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a tracepoint promises the probes it calls.
 *
 * 6.1 and 6.12 call a tracepoint's probes with preemption disabled
 * (preempt_disable_notrace() in __DO_TRACE()), sys_enter's and sys_exit's
 * too; mainline 6.14 to 6.x do so with guard(preempt_notrace) in
 * __DECLARE_TRACE(), a form no Debian kernel has.  Debian's 7.2 and 7.3
 * call them preemptible: a tracepoint's under SRCU-fast
 * (guard(srcu_fast_notrace) in __DECLARE_TRACE()), and sys_enter's and
 * sys_exit's, tracepoints that may fault (TRACE_EVENT_SYSCALL()), under
 * RCU tasks trace.  slab_trace's probes
 * and kptrace's hooks rely on the old promise: they stay on one CPU (the
 * per-CPU pools, counters, traces and last entries), and each is an RCU
 * read-side critical section (what is freed after a grace period: the
 * table's old buckets, the traced set, kptrace's filter).  So they keep
 * it themselves, between slabtrace_tp_begin() and slabtrace_tp_end(), or
 * slabtrace_syscall_tp_begin() and slabtrace_syscall_tp_end() for the
 * system call hooks; where the kernel keeps it, these are nothing.
 * kmemtrace's probes need not: they touch their CPU's buffer with
 * interrupts disabled, and read nothing freed after a grace period.
 *
 * After 6.12 (Debian's 7.2) sched_process_exit also passes group_dead:
 * kptrace's probe is declared with SLABTRACE_PROCESS_EXIT_PARAMS(), so
 * that its type is the tracepoint's (a kernel built with kCFI checks the
 * type of every indirect call, a probe's too).
 *
 * scripts/kbuild/compat/tracepoint.sh tells which from the headers.
 */
#ifndef _SLABTRACE_WRAPPER_TRACEPOINT_H
#define _SLABTRACE_WRAPPER_TRACEPOINT_H

#include <linux/preempt.h>
#include <linux/types.h>

struct task_struct;

/* static void probe(void *data, SLABTRACE_PROCESS_EXIT_PARAMS(p)) */
#ifdef SLABTRACE_PROCESS_EXIT_GROUP_DEAD
#define SLABTRACE_PROCESS_EXIT_PARAMS(p)	struct task_struct *(p), bool group_dead
#else
#define SLABTRACE_PROCESS_EXIT_PARAMS(p)	struct task_struct *(p)
#endif

static __always_inline void slabtrace_tp_begin(void)
{
#ifdef SLABTRACE_TP_PREEMPTIBLE
	preempt_disable_notrace();
#endif
}

static __always_inline void slabtrace_tp_end(void)
{
#ifdef SLABTRACE_TP_PREEMPTIBLE
	preempt_enable_notrace();
#endif
}

static __always_inline void slabtrace_syscall_tp_begin(void)
{
#if defined(SLABTRACE_TP_PREEMPTIBLE) || defined(SLABTRACE_SYSCALL_TP_PREEMPTIBLE)
	preempt_disable_notrace();
#endif
}

static __always_inline void slabtrace_syscall_tp_end(void)
{
#if defined(SLABTRACE_TP_PREEMPTIBLE) || defined(SLABTRACE_SYSCALL_TP_PREEMPTIBLE)
	preempt_enable_notrace();
#endif
}

#endif /* _SLABTRACE_WRAPPER_TRACEPOINT_H */
