// SPDX-License-Identifier: GPL-2.0
/*
 * oddcache: a slab cache whose name has a quote, a backslash and a space,
 * 'oddcache "q\ name', for slabtrace's VM tests of how its outputs write
 * cache names (kmemtrace's TSDL metadata).  Not part of slabtrace.
 *
 * Loading creates the cache and allocates 4 objects from it, kept until
 * rmmod.  The cache has a constructor, so that it is never merged with
 * another (its objects are its own, under its own name).
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/slab.h>

#define ODD_OBJECTS	4

static struct kmem_cache *odd_cache;
static void *kept[ODD_OBJECTS];

static void odd_ctor(void *p)
{
	memset(p, 0, 72);
}

static int __init oddcache_init(void)
{
	unsigned int i;

	odd_cache = kmem_cache_create("oddcache \"q\\ name", 72, 0, 0, odd_ctor);
	if (!odd_cache)
		return -ENOMEM;
	for (i = 0; i < ODD_OBJECTS; i++)
		kept[i] = kmem_cache_alloc(odd_cache, GFP_KERNEL);
	return 0;
}

static void __exit oddcache_exit(void)
{
	unsigned int i;

	for (i = 0; i < ODD_OBJECTS; i++)
		if (kept[i])
			kmem_cache_free(odd_cache, kept[i]);
	kmem_cache_destroy(odd_cache);
}

module_init(oddcache_init);
module_exit(oddcache_exit);
MODULE_DESCRIPTION("A slab cache with a quote in its name (slabtrace tests)");
MODULE_LICENSE("GPL");
