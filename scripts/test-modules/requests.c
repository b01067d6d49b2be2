// SPDX-License-Identifier: GPL-2.0
/*
 * requests: four request handlers of one cache, each its own stack,
 * driven at a steady rate by a kthread, for the leak verdicts' VM tests
 * (scripts/vm/guest/verdicts.sh).  Not part of slabtrace.
 *
 * Every request allocates one object from "requests_obj":
 *   requests_errpath   frees it at once, but forgets 1 in 8 (an error path
 *                      that misses its kfree): a leak
 *   requests_nofree    never frees it: a leak
 *   requests_ring      keeps the last 256, freeing the oldest: not one
 *   requests_deferred  frees it 2 s later: not one
 * The objects the first two forget are still freed at rmmod.
 *
 * /sys/kernel/debug/requests/ctl, one command per write:
 *   run N    start the kthread "requests": N requests a second to each
 *            handler (1..1000)
 *   stop     stop it (the objects stay as they are)
 * Reading it: "running 0|1 rounds R forgotten F kept K ring G deferred D":
 * the objects errpath forgot and nofree kept, those ring and deferred
 * hold.
 *
 * Notes on locking
 * ----------------
 * - requests_lock (mutex): starting and stopping the kthread.  The
 *   handlers' state is the kthread's alone while it runs; ctl reads it
 *   with READ_ONCE, rmmod after kthread_stop().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/init.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "testctl.h"

#define FORGOTTEN_MAX	65536	/* errpath's and nofree's, kept for rmmod */
#define RING		256
#define DEFER_MS	2000
#define DEFER_MAX	16384	/* 2 s at up to 1000 a second, with room */

struct request {
	char payload[120];
};

struct deferred {
	void *obj;
	unsigned long due;	/* jiffies */
};

static struct kmem_cache *cache;
static struct dentry *dir;
static DEFINE_MUTEX(requests_lock);
static struct task_struct *worker;
static unsigned int rate;

static void **forgotten;
static unsigned int nr_forgotten, nr_rounds, nr_errpath, nr_nofree;
static void *ring[RING];
static unsigned int ring_next, nr_ring;
static struct deferred *defer;
static unsigned int defer_head, defer_tail;	/* in flight: [head, tail) */

/* A constructor: the cache is merged with no other. */
static void ctor(void *p)
{
}

static void *alloc_req(void)
{
	return kmem_cache_alloc(cache, GFP_KERNEL);
}

/* Kept for rmmod: slabtrace sees it as never freed. */
static void forget(void *p)
{
	if (nr_forgotten < FORGOTTEN_MAX)
		forgotten[nr_forgotten++] = p;
	else
		kmem_cache_free(cache, p);
}

/* Each handler is not inlined, nor tail-calls: frame #01 names it. */
static noinline void requests_errpath(unsigned int n)
{
	void *p = alloc_req();

	OPTIMIZER_HIDE_VAR(p);
	if (!p)
		return;
	if (n % 8 == 7) {
		forget(p);	/* the error path forgets its kfree */
		WRITE_ONCE(nr_errpath, nr_errpath + 1);
	} else {
		kmem_cache_free(cache, p);
	}
}

static noinline void requests_nofree(unsigned int n)
{
	void *p = alloc_req();

	OPTIMIZER_HIDE_VAR(p);
	if (!p)
		return;
	forget(p);
	WRITE_ONCE(nr_nofree, nr_nofree + 1);
}

static noinline void requests_ring(unsigned int n)
{
	void *p = alloc_req();

	OPTIMIZER_HIDE_VAR(p);
	if (!p)
		return;
	if (ring[ring_next])
		kmem_cache_free(cache, ring[ring_next]);
	else
		nr_ring++;
	ring[ring_next] = p;
	ring_next = (ring_next + 1) % RING;
}

static noinline void requests_deferred(unsigned int n)
{
	void *p = alloc_req();

	OPTIMIZER_HIDE_VAR(p);
	/* What is due goes first; a full queue frees its oldest early. */
	while (defer_head != defer_tail &&
	       (time_after_eq(jiffies, defer[defer_head % DEFER_MAX].due) ||
		defer_tail - defer_head == DEFER_MAX)) {
		kmem_cache_free(cache, defer[defer_head % DEFER_MAX].obj);
		defer_head++;
	}
	if (!p)
		return;
	defer[defer_tail % DEFER_MAX].obj = p;
	defer[defer_tail % DEFER_MAX].due = jiffies + msecs_to_jiffies(DEFER_MS);
	defer_tail++;
}

/* One round: a request to each handler; then sleep till the next. */
static int requests_fn(void *data)
{
	unsigned long next = jiffies, now;
	unsigned int n;

	while (!kthread_should_stop()) {
		n = READ_ONCE(nr_rounds);
		requests_errpath(n);
		requests_nofree(n);
		requests_ring(n);
		requests_deferred(n);
		WRITE_ONCE(nr_rounds, n + 1);
		/* Steady: the n-th round is due at n / rate s, late or not. */
		next += max(msecs_to_jiffies(1000 / rate), 1UL);
		/* One read: a tick between two would make the wait negative. */
		now = jiffies;
		if (time_before(now, next))
			schedule_timeout_interruptible(next - now);
		else
			next = now;
	}
	return 0;
}

static int cmd_run(unsigned int n)
{
	struct task_struct *t;

	if (worker)
		return -EBUSY;
	if (n < 1 || n > 1000)
		return -EINVAL;
	rate = n;
	t = kthread_run(requests_fn, NULL, "requests");
	if (IS_ERR(t))
		return PTR_ERR(t);
	worker = t;
	return 0;
}

static void cmd_stop(void)
{
	if (worker)
		kthread_stop(worker);
	worker = NULL;
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
	mutex_lock(&requests_lock);
	if (!strcmp(buf, "run") && arg)
		ret = cmd_run(n);
	else if (!strcmp(buf, "stop") && !arg)
		cmd_stop();
	else
		ret = -EINVAL;
	mutex_unlock(&requests_lock);
	return ret ?: len;
}

static ssize_t ctl_read(struct file *file, char __user *ubuf, size_t len,
			loff_t *ppos)
{
	char buf[120];
	int n;

	mutex_lock(&requests_lock);
	n = scnprintf(buf, sizeof(buf),
		      "running %d rounds %u forgotten %u kept %u ring %u deferred %u\n",
		      !!worker, READ_ONCE(nr_rounds), READ_ONCE(nr_errpath),
		      READ_ONCE(nr_nofree), READ_ONCE(nr_ring),
		      READ_ONCE(defer_tail) - READ_ONCE(defer_head));
	mutex_unlock(&requests_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.read = ctl_read,
	.write = ctl_write,
	.llseek = default_llseek,
};

static int __init requests_init(void)
{
	forgotten = vcalloc(FORGOTTEN_MAX, sizeof(*forgotten));
	defer = vcalloc(DEFER_MAX, sizeof(*defer));
	cache = kmem_cache_create("requests_obj", sizeof(struct request), 0, 0,
				  ctor);
	if (!forgotten || !defer || !cache) {
		kmem_cache_destroy(cache);
		vfree(defer);
		vfree(forgotten);
		return -ENOMEM;
	}
	dir = debugfs_create_dir("requests", NULL);
	debugfs_create_file("ctl", 0600, dir, NULL, &ctl_fops);
	return 0;
}

static void __exit requests_exit(void)
{
	unsigned int i;

	debugfs_remove(dir);
	cmd_stop();
	for (i = 0; i < nr_forgotten; i++)
		kmem_cache_free(cache, forgotten[i]);
	for (i = 0; i < RING; i++)
		if (ring[i])
			kmem_cache_free(cache, ring[i]);
	for (; defer_head != defer_tail; defer_head++)
		kmem_cache_free(cache, defer[defer_head % DEFER_MAX].obj);
	kmem_cache_destroy(cache);
	vfree(defer);
	vfree(forgotten);
}

module_init(requests_init);
module_exit(requests_exit);
MODULE_DESCRIPTION("Four request handlers, two of them leaking, for slabtrace's tests");
MODULE_LICENSE("GPL");
