/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record of one outstanding object and who made it: what the pool
 * gives out (pool.c), the table keeps (table.c) and the probes fill
 * (probes.c, context.c).
 */
#ifndef _SLABTRACE_SLAB_RECORD_H
#define _SLABTRACE_SLAB_RECORD_H

#include <linux/sched.h>
#include <linux/stackdepot.h>
#include <linux/stddef.h>
#include <linux/types.h>

/* Helpers of the KUnit suites and the benchmarks are built (st_kunit.h). */
#define LEAK_TESTS	(IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST) || \
				 IS_ENABLED(CONFIG_SLABTRACE_BENCH))

/*
 * Caches traced, or stopped but still holding records, at once: more than
 * a kernel has ("start all" traces every one).
 */
#define LEAK_MAX_CACHES	1024
/* Record owners: as many more, for the fresh tables of caches being reset. */
#define LEAK_MAX_OWNERS	(2 * LEAK_MAX_CACHES)

/* Who made an allocation: the kind of context (context.c fills it). */
enum leak_ctx_kind {
	LEAK_CTX_TASK,
	LEAK_CTX_KTHREAD,
	LEAK_CTX_WORKER,		/* a process's io_uring or vhost thread */
	LEAK_CTX_SOFTIRQ,
	LEAK_CTX_HARDIRQ,
};

/*
 * Who made an allocation: a copy in each record, as kmemleak keeps.  Its
 * padding holds a field of the record that is not who: @defer_tag.
 */
struct leak_who {
	pid_t pid;			/* 0 in interrupts */
	u8 ctx;				/* enum leak_ctx_kind */
	char comm[TASK_COMM_LEN];	/* NUL-padded; "" in interrupts */
	/*
	 * The record's, not who's: nonzero when its backtrace was deferred,
	 * naming it to the work that saves it (stacks.c); 0 otherwise.
	 * Groups compare who up to it (LEAK_WHO_SIZE).
	 */
	u16 defer_tag;
};

/* The bytes of struct leak_who that say who: defer_tag is not compared. */
#define LEAK_WHO_SIZE	offsetofend(struct leak_who, comm)
static_assert(offsetof(struct leak_who, comm) == sizeof(pid_t) + 1);

/*
 * The record of one outstanding object (table.c keeps them, pool.c gives
 * them out).  64 bytes, a cache line: the stack is stored once, in the
 * depot, and named by a 32-bit handle; who made the object is copied in
 * (context.c says why); the time is in milliseconds since the cache's
 * trace began (leak_traced.epoch), which lasts 49 days.
 */
struct leak_record {
	struct leak_record *next;	/* hash chain, or pool free list */
	const void *obj;		/* the object: the key */
	u32 stamp;			/* allocated at epoch + stamp ms */
	depot_stack_handle_t stack;	/* 0: the stack could not be saved */
	u32 bytes_req;
	u32 gfp;			/* the allocation's gfp_t */
	u16 cpu;
	s16 syscall;			/* -1: none; | LEAK_SYSCALL_COMPAT */
	s16 node;			/* of the object's memory; NUMA_NO_NODE */
	u16 owner;			/* leak_traced.id */
	struct leak_who who;
};

/* leak_record.syscall of a 32-bit system call. */
#define LEAK_SYSCALL_COMPAT	0x4000

#endif /* _SLABTRACE_SLAB_RECORD_H */
