// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: the words that stand for sets of caches in every command.
 *
 *   kmalloc  "start": every cache of kmalloc_caches[][], of every type
 *            (kmalloc-N, kmalloc-cg-N, kmalloc-rcl-N, dma-kmalloc-N), and
 *            kmalloc-large; what a kmalloc() can return.  Other commands:
 *            the caches of the traced set that are such.
 *   all      "start": every slab cache of /sys/kernel/slab, once however
 *            many names merged caches have, and kmalloc-large; not percpu,
 *            which is no slab (start it by name), not slabtrace's own
 *            cache, nor the caches of kmem_buckets sets, whose allocations
 *            the kmalloc tracepoint counts in kmalloc-N.  Other commands:
 *            every cache of the traced set.
 *
 * The caches created after "start all" are started too (follow.c); no
 * kmalloc cache is created after boot.  No slab cache is called "kmalloc"
 * or "all": a kmalloc cache's name ends in its size.
 *
 * Called with leak_mutex held, as the commands are (the callers
 * assert it); no lock of its own.  It knows nothing of the traced set:
 * the callers (traced.c) give it what it must leave out and add.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "record.h"
#include "sets.h"

/* The word @name is, or LEAK_WORD_NONE for a cache's name. */
enum leak_word leak_word_of(const char *name)
{
	if (!strcmp(name, "kmalloc"))
		return LEAK_WORD_KMALLOC;
	if (!strcmp(name, "all"))
		return LEAK_WORD_ALL;
	return LEAK_WORD_NONE;
}

/* Whether a traced cache, a kmalloc one or not (@kmalloc), is @word's. */
bool leak_word_has(enum leak_word word, bool kmalloc)
{
	return word == LEAK_WORD_ALL ||
	       (word == LEAK_WORD_KMALLOC && kmalloc);
}

struct cands {
	enum leak_word word;
	const struct kmem_cache *own;
	struct leak_cand *v;
	unsigned int n;
};

/* Let go of the references of @cands[0..@n) and the array. */
void leak_cands_free(struct leak_cand *cands, unsigned int n)
{
	unsigned int i;

	for (i = 0; cands && i < n; i++)
		slabtrace_cache_put(&cands[i].ref);
	kvfree(cands);
}

static int cand_add(struct cands *c, const char *name,
		    struct slabtrace_cache_ref *ref, u8 kind)
{
	struct leak_cand *cand;

	if (c->n == LEAK_MAX_CACHES) {
		slabtrace_cache_put(ref);
		pr_warn_ratelimited("start: more than %u caches\n",
				    LEAK_MAX_CACHES);
		return -ENOSPC;
	}
	cand = &c->v[c->n++];
	cand->ref = *ref;
	cand->kind = kind;
	strscpy(cand->name, name, sizeof(cand->name));
	return 0;
}

static int cand_cache(void *arg, const char *name,
		      struct slabtrace_cache_ref *ref)
{
	struct cands *c = arg;

	if (ref->cache == c->own || ref->bucket ||
	    (c->word == LEAK_WORD_KMALLOC &&
	     !slabtrace_cache_is_kmalloc(ref->cache))) {
		slabtrace_cache_put(ref);
		return 0;
	}
	return cand_add(c, name, ref, LEAK_KIND_CACHE);
}

/**
 * leak_word_caches - the caches "start WORD" starts
 * @word: the word
 * @own: slabtrace's own cache, never one of them
 * @last: added after them (kmalloc-large, resolved by the caller); its
 *	  reference becomes the array's
 * @cands: set to an array of them, resolved; leak_cands_free()
 * @n: set to their number
 *
 * Context: Process context, with the commands' mutex held (the caller's:
 * leak_mutex).
 * Return: 0; -ENOSPC for more than LEAK_MAX_CACHES; -ENOMEM; or the
 * error of reading /sys/kernel/slab; said in the log.
 */
int leak_word_caches(enum leak_word word,
		     const struct kmem_cache *own,
		     const struct leak_cand *last,
		     struct leak_cand **cands, unsigned int *n)
{
	struct cands c = { .word = word, .own = own };
	struct slabtrace_cache_ref ref = last->ref;
	int ret;

	*cands = NULL;
	*n = 0;
	ret = slabtrace_caches_init();
	if (ret) {
		pr_warn_ratelimited("start: cannot look up slab caches on this kernel (%d)\n",
				    ret);
		slabtrace_cache_put(&ref);
		return ret;
	}
	c.v = kvcalloc(LEAK_MAX_CACHES, sizeof(*c.v), SLABTRACE_GFP_BIG);
	if (!c.v) {
		slabtrace_cache_put(&ref);
		return -ENOMEM;
	}
	ret = slabtrace_caches_each(cand_cache, &c);
	if (!ret)
		ret = cand_add(&c, last->name, &ref, last->kind);
	else
		slabtrace_cache_put(&ref);
	if (ret) {
		if (ret != -ENOSPC)
			pr_warn_ratelimited("start: cannot list the slab caches (%d)\n",
					    ret);
		leak_cands_free(c.v, c.n);
		return ret;
	}
	*cands = c.v;
	*n = c.n;
	return 0;
}
