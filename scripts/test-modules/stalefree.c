// SPDX-License-Identifier: GPL-2.0
/*
 * stalefree: frees slab objects through a path with no tracepoint, then
 * has another cache reuse their memory, for slabtrace's VM tests.  Not
 * part of slabtrace.
 *
 * Two caches of the same geometry, "stalefree_a" and "stalefree_b".
 * /sys/kernel/debug/stalefree/ctl, one command per write:
 *   alloc N     allocate N objects from stalefree_a and keep them
 *   free_bulk   free every kept object with kfree_bulk(), which fires no
 *               kfree/kmem_cache_free tracepoint: the path kfree_rcu()'s
 *               batches take (kvfree_rcu's kfree_bulk()), without waiting
 *               for a batch
 *   shrink      give stalefree_a's empty slabs back to the page allocator
 *   reuse N     allocate N objects from stalefree_b (kept until rmmod)
 *               and count those at an address an old stalefree_a object
 *               had
 * Reading ctl: "kept K old O reused R", O the addresses freed so far, R
 * the count of the last reuse.
 *
 * Notes on locking
 * ----------------
 * - stalefree_lock (mutex): everything below.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>

#include "testctl.h"

#define STALE_MAX	20000

struct stale_obj {
	char payload[248];
};

static struct kmem_cache *cache_a, *cache_b;
static struct dentry *dir;
static DEFINE_MUTEX(stalefree_lock);
static void **kept;		/* stalefree_a objects kept */
static unsigned int nr_kept, nr_old, nr_b, nr_reused;
static DEFINE_XARRAY(old_addrs);	/* addresses freed through RCU */
static void **b_objs;		/* stalefree_b objects, freed at rmmod */

/* Constructors: neither cache is merged with any other. */
static void ctor_a(void *p)
{
}

static void ctor_b(void *p)
{
}

/* Not a tail call: frame #01 of the records is this function. */
static noinline void *stalefree_alloc(void)
{
	void *p = kmem_cache_alloc(cache_a, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static int cmd_alloc(unsigned int n)
{
	while (n-- && nr_kept < STALE_MAX) {
		kept[nr_kept] = stalefree_alloc();
		if (!kept[nr_kept])
			return -ENOMEM;
		nr_kept++;
	}
	return 0;
}

static int cmd_free_bulk(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < nr_kept; i++) {
		ret = xa_err(xa_store(&old_addrs, (unsigned long)kept[i],
				      xa_mk_value(1), GFP_KERNEL));
		if (ret)
			return ret;
	}
	kfree_bulk(nr_kept, kept);
	nr_old += nr_kept;
	nr_kept = 0;
	return 0;
}

static int cmd_reuse(unsigned int n)
{
	void *o;

	nr_reused = 0;
	while (n-- && nr_b < STALE_MAX) {
		o = kmem_cache_alloc(cache_b, GFP_KERNEL);
		if (!o)
			return -ENOMEM;
		b_objs[nr_b++] = o;
		if (xa_load(&old_addrs, (unsigned long)o))
			nr_reused++;
	}
	return 0;
}

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	char buf[32], *arg;
	unsigned int n;
	int ret;

	ret = testctl_parse(buf, sizeof(buf), ubuf, len, &arg, &n);
	if (ret)
		return ret;
	mutex_lock(&stalefree_lock);
	if (!strcmp(buf, "alloc") && arg)
		ret = cmd_alloc(n);
	else if (!strcmp(buf, "free_bulk") && !arg)
		ret = cmd_free_bulk();
	else if (!strcmp(buf, "shrink") && !arg)
		ret = kmem_cache_shrink(cache_a);
	else if (!strcmp(buf, "reuse") && arg)
		ret = cmd_reuse(n);
	else
		ret = -EINVAL;
	mutex_unlock(&stalefree_lock);
	return ret ?: len;
}

static ssize_t ctl_read(struct file *file, char __user *ubuf, size_t len,
			loff_t *ppos)
{
	char buf[80];
	int n;

	mutex_lock(&stalefree_lock);
	n = scnprintf(buf, sizeof(buf), "kept %u old %u reused %u\n",
		      nr_kept, nr_old, nr_reused);
	mutex_unlock(&stalefree_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.read = ctl_read,
	.write = ctl_write,
	.llseek = default_llseek,
};

static int __init stalefree_init(void)
{
	kept = vcalloc(STALE_MAX, sizeof(*kept));
	b_objs = vcalloc(STALE_MAX, sizeof(*b_objs));
	cache_a = kmem_cache_create("stalefree_a", sizeof(struct stale_obj),
				    0, 0, ctor_a);
	cache_b = kmem_cache_create("stalefree_b", sizeof(struct stale_obj),
				    0, 0, ctor_b);
	if (!kept || !b_objs || !cache_a || !cache_b)
		goto err;
	dir = debugfs_create_dir("stalefree", NULL);
	debugfs_create_file("ctl", 0600, dir, NULL, &ctl_fops);
	return 0;
err:
	kmem_cache_destroy(cache_b);
	kmem_cache_destroy(cache_a);
	vfree(b_objs);
	vfree(kept);
	return -ENOMEM;
}

static void __exit stalefree_exit(void)
{
	unsigned int i;

	debugfs_remove(dir);
	for (i = 0; i < nr_kept; i++)
		kmem_cache_free(cache_a, kept[i]);
	for (i = 0; i < nr_b; i++)
		kmem_cache_free(cache_b, b_objs[i]);
	kmem_cache_destroy(cache_b);
	kmem_cache_destroy(cache_a);
	xa_destroy(&old_addrs);
	vfree(b_objs);
	vfree(kept);
}

module_init(stalefree_init);
module_exit(stalefree_exit);
MODULE_DESCRIPTION("Frees slab objects with no tracepoint, for slabtrace's tests");
MODULE_LICENSE("GPL");
