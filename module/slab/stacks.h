/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's backtraces (stacks.c): walked in a probe, saved in the
 * stack depot, deferred when it has no room.  Their frames' names are
 * modsyms.c's, above.
 */
#ifndef _SLABTRACE_SLAB_STACKS_H
#define _SLABTRACE_SLAB_STACKS_H

#include <linux/kallsyms.h>
#include <linux/stackdepot.h>
#include <linux/types.h>

#include "record.h"

/* Frames walked per allocation, before the tracer's own are trimmed. */
#define SLAB_TRACE_STACK_DEPTH	32
/* A frame's name, the longest. */
#define SLAB_TRACE_FRAME_MAX	KSYM_SYMBOL_LEN
/* Traces waiting for room in the stack depot, and records for each. */
#define SLAB_TRACE_STACK_DEFER	16
#define SLAB_TRACE_STACK_WAITERS	32

struct module;

bool slab_trace_frame_symbol(char *buf, size_t size, unsigned long ip,
			     bool offset);
int slab_trace_stack_store(struct slab_trace_record *rec, unsigned long *entries,
			   unsigned int nr, unsigned long call_site);
bool slab_trace_stack_defer(const void *obj, u16 owner, u32 stamp,
			    unsigned long *entries, unsigned int nr,
			    unsigned long call_site);
void slab_trace_stack_flush(void);
void slab_trace_stack_prime(void);
void slab_trace_stacks_init(void);
void slab_trace_stacks_exit(void);
bool slab_trace_stack_in_module(struct module *mod, bool init);
long slab_trace_stack_deferred(void);

/* Global only for the KUnit suites: static in the module. */
#if IS_ENABLED(CONFIG_KUNIT)
unsigned int slab_trace_stack_trim(const unsigned long *entries,
				   unsigned int nr, unsigned long call_site);
#endif

#if SLAB_TRACE_TESTS
/* For the KUnit suites and the benchmarks. */
int slab_trace_stack_first(depot_stack_handle_t handle, unsigned long *ip);
#endif

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* A failure hook of the KUnit suites, and a drain they run themselves. */
extern bool slab_trace_fail_depot;
void slab_trace_stack_drain_now(void);
#endif

#endif /* _SLABTRACE_SLAB_STACKS_H */
