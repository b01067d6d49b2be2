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

#include "part.h"
#include "record.h"

/* Frames walked per allocation, before the tracer's own are trimmed. */
#define LEAK_STACK_DEPTH	32
/* A frame's name, the longest. */
#define LEAK_FRAME_MAX	KSYM_SYMBOL_LEN
/* Traces waiting for room in the stack depot, and records for each. */
#define LEAK_STACK_DEFER	16
#define LEAK_STACK_WAITERS	32

struct module;

bool leak_frame_symbol(char *buf, size_t size, unsigned long ip,
		       bool offset);
int leak_stack_store(struct leak_record *rec, unsigned long *entries,
		     unsigned int nr, unsigned long call_site);
bool leak_stack_defer(const void *obj, u16 owner, u32 stamp, u16 tag,
		      unsigned long *entries, unsigned int nr,
		      unsigned long call_site);
void leak_stack_flush(void);
void leak_stack_prime(void);
void leak_stack_find_end(void);
/* Where the probes' walks end (leak_stack_find_end()): start, size. */
extern unsigned long leak_walk_end, leak_walk_end_size;
bool leak_stack_in_module(struct module *mod, bool init);

/* The depot and the deferred traces (slab.c loads them); their stats line. */
extern const struct leak_part leak_stacks_part;

/* Global only for the KUnit suites: static in the module. */
#if IS_ENABLED(CONFIG_KUNIT)
long leak_stack_deferred(void);
unsigned int leak_stack_trim(const unsigned long *entries,
			     unsigned int nr, unsigned long call_site);
#endif

/* The tests' alone: not built into the module (LEAK_TESTS). */
#if LEAK_TESTS
unsigned int leak_stack_slot(const unsigned long *entries, unsigned int nr);
depot_stack_handle_t leak_stack_save(unsigned long *entries,
				     unsigned int nr);
#endif

#if LEAK_TESTS
/* For the KUnit suites and the benchmarks. */
int leak_stack_first(depot_stack_handle_t handle, unsigned long *ip);
#endif

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* A failure hook of the KUnit suites, and a drain they run themselves. */
extern bool leak_fail_depot;
extern bool leak_fail_drain;
void leak_stack_drain_now(void);
void leak_defer_tags_after(int v, u16 *tags, unsigned int n);
#endif

#endif /* _SLABTRACE_SLAB_STACKS_H */
