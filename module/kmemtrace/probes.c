// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: the kmem tracepoint probes, and the encoding of their events.
 *
 * Each probe finds the object's cache, drops it if a cache filter is set
 * and does not name it, and writes one event into this CPU's CTF stream
 * (module/ctf.c) with interrupts disabled: no allocation, no lock, no
 * loop but the bounded ones of the cache table and the filter.  kfree()
 * has no cache argument: the cache is read from the object's slab
 * (slabtrace_cache_of_object(), calibrated once against known kmalloc
 * caches); without that calibration kfree() events carry no cache, and a
 * filtered trace has none.
 *
 * Notes on locking
 * ----------------
 * - The probes run with preemption disabled (the tracepoints' contract);
 *   struct kmemtrace_trace is not changed while they are registered, and is
 *   freed only after kmemtrace_probes_unregister(), which waits for them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <trace/events/kmem.h>
#include <uapi/slabtrace/kmemtrace.h>

#include <wrapper/kmalloc.h>
#include <slabtrace/core.h>

#include "kmemtrace.h"

static __always_inline u32 offset32(unsigned long v, unsigned long base)
{
	return v - base > U32_MAX ? U32_MAX : v - base;
}

/**
 * kmemtrace_encode_alloc - the fields of an allocation event
 * @p: KMEMTRACE_ALLOC_PAYLOAD bytes
 * @t: the trace (its bases)
 * @call_site: the caller
 * @ptr: the object
 * @req: bytes requested
 * @alloc: bytes allocated
 * @gfp: flags
 * @cache: cache id
 * @node: NUMA node asked for, or NUMA_NO_NODE
 */
VISIBLE_IF_KUNIT __always_inline void
kmemtrace_encode_alloc(u8 *p, const struct kmemtrace_trace *t,
		       unsigned long call_site, const void *ptr, size_t req,
		       size_t alloc, gfp_t gfp, u16 cache, int node)
{
	slabtrace_put_le32(p, offset32(call_site, t->call_site_base));
	slabtrace_put_le48(p + 4, (unsigned long)ptr - t->ptr_base);
	slabtrace_put_le32(p + 10, min_t(size_t, req, U32_MAX));
	slabtrace_put_le32(p + 14, min_t(size_t, alloc, U32_MAX));
	slabtrace_put_le32(p + 18, (__force u32)gfp);
	slabtrace_put_le16(p + 22, cache);
	slabtrace_put_le16(p + 24, (u16)(s16)node);
}

/**
 * kmemtrace_encode_free - the fields of a free event
 * @p: KMEMTRACE_FREE_PAYLOAD bytes
 * @t: the trace
 * @call_site: the caller
 * @ptr: the object
 * @cache: cache id
 */
VISIBLE_IF_KUNIT __always_inline void
kmemtrace_encode_free(u8 *p, const struct kmemtrace_trace *t,
		      unsigned long call_site, const void *ptr, u16 cache)
{
	slabtrace_put_le32(p, offset32(call_site, t->call_site_base));
	slabtrace_put_le48(p + 4, (unsigned long)ptr - t->ptr_base);
	slabtrace_put_le16(p + 10, cache);
}

/* Whether the filter takes the events of @s.  NULL: not a slab cache. */
static __always_inline bool
filter_takes(const struct kmemtrace_trace *t, const struct kmem_cache *s)
{
	unsigned int i;

	if (!t->nr_filter)
		return true;
	for (i = 0; i < t->nr_filter; i++)
		if (t->filter[i].cache == s)
			return true;
	return false;
}

static __always_inline u16 cache_id(const struct kmem_cache *s, bool known)
{
	if (s)
		return kmemtrace_cache_id_fast(s);
	return known ? KMEMTRACE_CACHE_PAGES : KMEMTRACE_CACHE_NONE;
}

/*
 * The emitters are inlined into each probe, with their constant event id
 * and payload size: one clock read, the compact header written in place
 * (slabtrace_stream_reserve_fast()), the cache id from the table's first
 * slot when the cache is there (kmemtrace_cache_id_fast()).
 */
static __always_inline void emit_alloc(struct kmemtrace_trace *t,
				       unsigned int id,
				       unsigned long call_site,
				       const void *ptr, size_t req,
				       size_t alloc, gfp_t gfp, int node,
				       const struct kmem_cache *s, bool known)
{
	unsigned long flags;
	u8 *p;

	if (!filter_takes(t, s))
		return;
	if (unlikely(in_nmi())) {
		atomic_long_inc(&t->stream.lost_nmi);
		return;
	}
	local_irq_save(flags);
	p = slabtrace_stream_reserve_fast(&t->stream, id, KMEMTRACE_ALLOC_PAYLOAD,
					  slabtrace_ctf_clock());
	if (p)
		kmemtrace_encode_alloc(p, t, call_site, ptr, req, alloc, gfp,
				       cache_id(s, known), node);
	local_irq_restore(flags);
}

static __always_inline void emit_free(struct kmemtrace_trace *t,
				      unsigned int id,
				      unsigned long call_site,
				      const void *ptr,
				      const struct kmem_cache *s, bool known)
{
	unsigned long flags;
	u8 *p;

	if (t->nr_filter && (!known || !filter_takes(t, s)))
		return;
	if (unlikely(in_nmi())) {
		atomic_long_inc(&t->stream.lost_nmi);
		return;
	}
	local_irq_save(flags);
	p = slabtrace_stream_reserve_fast(&t->stream, id, KMEMTRACE_FREE_PAYLOAD,
					  slabtrace_ctf_clock());
	if (p)
		kmemtrace_encode_free(p, t, call_site, ptr, cache_id(s, known));
	local_irq_restore(flags);
}

/* Failed allocations (NULL) and kfree(NULL) are not events. */
static void probe_kmalloc(void *data, unsigned long call_site,
			  const void *ptr, size_t bytes_req,
			  size_t bytes_alloc, gfp_t gfp, int node)
{
	struct kmem_cache *s;
	bool known;

	if (ZERO_OR_NULL_PTR(ptr))
		return;
	s = slabtrace_cache_of_object(ptr, &known);
	if (!known) {
		s = slabtrace_kmalloc_cache(bytes_req, gfp, call_site);
		known = true;
	}
	emit_alloc(data, KMEMTRACE_KMALLOC, call_site, ptr, bytes_req, bytes_alloc,
		   gfp, node, s, known);
}

static void probe_kmem_cache_alloc(void *data, unsigned long call_site,
				   const void *ptr, struct kmem_cache *s,
				   gfp_t gfp, int node)
{
	unsigned int size;

	if (ZERO_OR_NULL_PTR(ptr))
		return;
	size = kmem_cache_size(s);
	emit_alloc(data, KMEMTRACE_KMEM_CACHE_ALLOC, call_site, ptr, size, size,
		   gfp, node, s, true);
}

static void probe_kfree(void *data, unsigned long call_site, const void *ptr)
{
	struct kmem_cache *s;
	bool known;

	if (ZERO_OR_NULL_PTR(ptr))
		return;
	s = slabtrace_cache_of_object(ptr, &known);
	emit_free(data, KMEMTRACE_KFREE, call_site, ptr, s, known);
}

static void probe_kmem_cache_free(void *data, unsigned long call_site,
				  const void *ptr, const struct kmem_cache *s)
{
	if (ZERO_OR_NULL_PTR(ptr))
		return;
	emit_free(data, KMEMTRACE_KMEM_CACHE_FREE, call_site, ptr, s, true);
}

/* Called with kmemtrace_mutex held. */
int kmemtrace_probes_register(struct kmemtrace_trace *t)
{
	int ret;

	lockdep_assert_held(&kmemtrace_mutex);
	ret = register_trace_kmalloc(probe_kmalloc, t);
	if (ret)
		return ret;
	ret = register_trace_kmem_cache_alloc(probe_kmem_cache_alloc, t);
	if (ret)
		goto err_kmalloc;
	ret = register_trace_kfree(probe_kfree, t);
	if (ret)
		goto err_cache_alloc;
	ret = register_trace_kmem_cache_free(probe_kmem_cache_free, t);
	if (ret)
		goto err_kfree;
	return 0;

err_kfree:
	unregister_trace_kfree(probe_kfree, t);
err_cache_alloc:
	unregister_trace_kmem_cache_alloc(probe_kmem_cache_alloc, t);
err_kmalloc:
	unregister_trace_kmalloc(probe_kmalloc, t);
	tracepoint_synchronize_unregister();
	return ret;
}

/* Called with kmemtrace_mutex held; returns when no probe runs. */
void kmemtrace_probes_unregister(struct kmemtrace_trace *t)
{
	lockdep_assert_held(&kmemtrace_mutex);
	unregister_trace_kmem_cache_free(probe_kmem_cache_free, t);
	unregister_trace_kfree(probe_kfree, t);
	unregister_trace_kmem_cache_alloc(probe_kmem_cache_alloc, t);
	unregister_trace_kmalloc(probe_kmalloc, t);
	tracepoint_synchronize_unregister();
}
