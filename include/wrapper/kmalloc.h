/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmalloc()'s choice of cache, which the kmalloc tracepoint does not
 * report, and the kmalloc-sized caches it cannot name.
 *
 * v6.6 gave kmalloc_type() the call site (@caller) for
 * CONFIG_RANDOM_KMALLOC_CACHES; between 6.12 and 7.2 a kmalloc_token_t
 * replaced it, for CONFIG_KMALLOC_PARTITION_CACHES (an empty struct when
 * that option is off).  v6.11 added kmem_buckets (CONFIG_SLAB_BUCKETS, on in Debian's
 * 6.12 and 7.x).  scripts/kbuild/compat/kmalloc.sh tells which from
 * <linux/slab.h>.
 */
#ifndef _SLABTRACE_WRAPPER_KMALLOC_H
#define _SLABTRACE_WRAPPER_KMALLOC_H

#include <linux/slab.h>

/**
 * slabtrace_kmalloc_cache - the cache a kmalloc() of @size lands in
 * @size: bytes requested
 * @flags: the allocation's gfp flags
 * @caller: the allocation's call site
 *
 * The kmalloc tracepoint has no cache pointer.  This is the allocator's own
 * choice (kmalloc_slab()) computed from what the tracepoint reports, with the
 * kernel's public inlines.  With CONFIG_RANDOM_KMALLOC_CACHES or
 * CONFIG_KMALLOC_PARTITION_CACHES (not on Debian) the value the allocator
 * hashed is not in the tracepoint, so the module refuses to load there
 * (<wrapper/requirements.h>); the token passed here is then the empty
 * one, which those kernels never see used.
 *
 * Context: Any context.
 * Return: the cache, or NULL for sizes the page allocator serves.
 */
static __always_inline struct kmem_cache *
slabtrace_kmalloc_cache(size_t size, gfp_t flags, unsigned long caller)
{
	enum kmalloc_cache_type type;

	if (!size || size > KMALLOC_MAX_CACHE_SIZE)
		return NULL;
#if defined(SLABTRACE_KMALLOC_TYPE_TOKEN)
	type = kmalloc_type(flags, (kmalloc_token_t){});
#elif defined(SLABTRACE_KMALLOC_TYPE_CALLER)
	type = kmalloc_type(flags, caller);
#else
	type = kmalloc_type(flags);
#endif
	return kmalloc_caches[type][__kmalloc_index(size, false)];
}

/*
 * Whether the kernel has kmem_buckets (v6.11): sets of kmalloc-sized
 * caches whose allocations the kmalloc tracepoint reports without a cache
 * pointer (caches.c: is_bucket()).
 */
#ifdef SLABTRACE_KMEM_BUCKETS
#define SLABTRACE_HAS_KMEM_BUCKETS	true
#else
#define SLABTRACE_HAS_KMEM_BUCKETS	false
#endif

#endif /* _SLABTRACE_WRAPPER_KMALLOC_H */
