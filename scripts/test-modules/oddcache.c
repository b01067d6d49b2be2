// SPDX-License-Identifier: GPL-2.0
/*
 * oddcache: a slab cache whose name has a quote, a backslash and a space,
 * 'oddcache "q\ name', for slabtrace's VM tests of how its outputs write
 * cache names (kmemtrace's TSDL metadata, slab/stats).  Not part of
 * slabtrace.
 *
 * Loading creates the cache and allocates 4 objects from it, kept until
 * rmmod.  The cache has a constructor, so that it is never merged with
 * another (its objects are its own, under its own name).  Two more caches,
 * 'oddmerge' and 'oddmerge, b', of a size no other cache has and no
 * constructor, merge into one where the kernel merges caches: a dump's
 * "shared with:" list, and kmemtrace's listing of the names of the
 * cache it saw one object of 'oddmerge, b' allocated from, must keep the
 * second one name.
 *
 * With other=1 it creates only 'oddother', of the same size: where
 * 'oddmerge' had a cache of its own, gone with an earlier rmmod, this one
 * takes that cache's name (":0001000"), which the link SLUB left for
 * 'oddmerge' still names.
 *
 * With many=1 it creates only ODD_MANY caches of another size no other
 * cache has, with names long enough that kmemtrace's listing of their
 * merged cache cannot hold them all, and allocates one object from the
 * last, kept until rmmod.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/slab.h>

#define ODD_OBJECTS	4

#define MERGE_SIZE	1000	/* no other cache's, to merge only with each other */
#define MANY_SIZE	1016	/* nor this one */
#define ODD_MANY	12

static struct kmem_cache *odd_cache, *merge_a, *merge_b;
static struct kmem_cache *many_caches[ODD_MANY];
static void *kept[ODD_OBJECTS], *kept_b, *kept_many;

static bool other;
module_param(other, bool, 0400);
MODULE_PARM_DESC(other, "create only 'oddother', of oddmerge's size");

static bool many;
module_param(many, bool, 0400);
MODULE_PARM_DESC(many, "create only the merged caches 'oddmany_..._NN'");

static void many_destroy(void)
{
	unsigned int i;

	if (kept_many)
		kmem_cache_free(many_caches[ODD_MANY - 1], kept_many);
	for (i = 0; i < ODD_MANY; i++)
		kmem_cache_destroy(many_caches[i]);
}

static int many_create(void)
{
	char name[64];
	unsigned int i;

	for (i = 0; i < ODD_MANY; i++) {
		snprintf(name, sizeof(name),
			 "oddmany_a_long_name_to_fill_kmemtrace_listing_%02u", i);
		many_caches[i] = kmem_cache_create(name, MANY_SIZE, 0, 0, NULL);
		if (!many_caches[i]) {
			many_destroy();
			return -ENOMEM;
		}
	}
	kept_many = kmem_cache_alloc(many_caches[ODD_MANY - 1], GFP_KERNEL);
	return 0;
}

static void odd_ctor(void *p)
{
	memset(p, 0, 72);
}

static int __init oddcache_init(void)
{
	unsigned int i;

	if (many)
		return many_create();
	if (other) {
		merge_a = kmem_cache_create("oddother", MERGE_SIZE, 0, 0, NULL);
		return merge_a ? 0 : -ENOMEM;
	}
	odd_cache = kmem_cache_create("oddcache \"q\\ name", 72, 0, 0, odd_ctor);
	if (!odd_cache)
		return -ENOMEM;
	merge_a = kmem_cache_create("oddmerge", MERGE_SIZE, 0, 0, NULL);
	merge_b = kmem_cache_create("oddmerge, b", MERGE_SIZE, 0, 0, NULL);
	if (!merge_a || !merge_b) {
		kmem_cache_destroy(merge_b);
		kmem_cache_destroy(merge_a);
		kmem_cache_destroy(odd_cache);
		return -ENOMEM;
	}
	for (i = 0; i < ODD_OBJECTS; i++)
		kept[i] = kmem_cache_alloc(odd_cache, GFP_KERNEL);
	kept_b = kmem_cache_alloc(merge_b, GFP_KERNEL);
	return 0;
}

static void __exit oddcache_exit(void)
{
	unsigned int i;

	if (many) {
		many_destroy();
		return;
	}
	for (i = 0; i < ODD_OBJECTS; i++)
		if (kept[i])
			kmem_cache_free(odd_cache, kept[i]);
	if (kept_b)
		kmem_cache_free(merge_b, kept_b);
	kmem_cache_destroy(merge_b);
	kmem_cache_destroy(merge_a);
	kmem_cache_destroy(odd_cache);
}

module_init(oddcache_init);
module_exit(oddcache_exit);
MODULE_DESCRIPTION("Slab caches with odd names (slabtrace tests)");
MODULE_LICENSE("GPL");
