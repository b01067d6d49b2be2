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
enum leak_kind {
	LEAK_KIND_CACHE,
	LEAK_KIND_LARGE,	/* "kmalloc-large": kmalloc()s of pages */
	LEAK_KIND_PERCPU,	/* "percpu": alloc_percpu() */
	LEAK_KINDS,
};

/*
 * The words that stand for sets of caches in every command (sets.c):
 * "kmalloc", every kmalloc cache of every type and kmalloc-large; "all",
 * every slab cache and kmalloc-large.  No cache has either name.
 */
enum leak_word {
	LEAK_WORD_NONE,
	LEAK_WORD_KMALLOC,
	LEAK_WORD_ALL,
};

enum leak_word leak_word_of(const char *name);
bool leak_word_has(enum leak_word word, bool kmalloc);

/* A cache a word stands for, resolved: what "start WORD" starts. */
struct leak_cand {
	struct slabtrace_cache_ref ref;
	u8 kind;
	char name[SLABTRACE_NAME_MAX + 1];
};

int leak_word_caches(enum leak_word word,
		     const struct kmem_cache *own,
		     const struct leak_cand *last,
		     struct leak_cand **cands, unsigned int *n);
void leak_cands_free(struct leak_cand *cands, unsigned int n);

#endif /* _SLABTRACE_SLAB_SETS_H */
