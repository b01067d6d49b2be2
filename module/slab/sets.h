/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a name in a command stands for (sets.c): a cache, a pseudo cache,
 * or a word for a set of caches.
 */
#ifndef _SLABTRACE_SLAB_SETS_H
#define _SLABTRACE_SLAB_SETS_H

#include <linux/types.h>

#include <slabtrace/core.h>

struct kmem_cache;

/*
 * What a traced name stands for: a slab cache, or memory the kmem
 * tracepoints see without a cache (traced.c: resolve()).
 */
enum slab_trace_kind {
	SLAB_TRACE_KIND_CACHE,
	SLAB_TRACE_KIND_LARGE,	/* "kmalloc-large": kmalloc()s of pages */
	SLAB_TRACE_KIND_PERCPU,	/* "percpu": alloc_percpu() */
	SLAB_TRACE_KINDS,
};

/*
 * The words that stand for sets of caches in every command (sets.c):
 * "kmalloc", every kmalloc cache of every type and kmalloc-large; "all",
 * every slab cache and kmalloc-large.  No cache has either name.
 */
enum slab_trace_word {
	SLAB_TRACE_WORD_NONE,
	SLAB_TRACE_WORD_KMALLOC,
	SLAB_TRACE_WORD_ALL,
};

enum slab_trace_word slab_trace_word_of(const char *name);
bool slab_trace_word_has(enum slab_trace_word word, bool kmalloc);

/* A cache a word stands for, resolved: what "start WORD" starts. */
struct slab_trace_cand {
	struct slabtrace_cache_ref ref;
	u8 kind;
	char name[SLABTRACE_NAME_MAX + 1];
};

int slab_trace_word_caches(enum slab_trace_word word,
			   const struct kmem_cache *own,
			   const struct slab_trace_cand *last,
			   struct slab_trace_cand **cands, unsigned int *n);
void slab_trace_cands_free(struct slab_trace_cand *cands, unsigned int n);

#endif /* _SLABTRACE_SLAB_SETS_H */
