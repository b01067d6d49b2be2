// SPDX-License-Identifier: GPL-2.0
/*
 * bigleak: leaks what no slab cache holds, for slabtrace's VM tests of
 * "kmalloc-large" and "percpu".  Not part of slabtrace.
 *
 * /sys/kernel/debug/bigleak/ctl, one command per write:
 *   large N     keep N kmalloc(16384) objects (the page allocator's: the
 *               biggest kmalloc cache is 8 KiB), from bigleak_large()
 *   large_var N keep N kmalloc() objects of 20000 bytes, a size the
 *               compiler cannot see (__kmalloc(), not kmalloc_large()),
 *               from bigleak_large_var()
 *   percpu N    keep N alloc_percpu() objects of 40 bytes, from
 *               bigleak_percpu()
 *   churn N     allocate and free N of each, from bigleak_churn_*()
 *   free        free every kept object
 * Reading ctl: "large L percpu P", the objects kept.
 *
 * Notes on locking
 * ----------------
 * - bigleak_lock (mutex): the kept objects.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "testctl.h"

#define BIGLEAK_MAX	256
#define BIGLEAK_LARGE	16384
#define BIGLEAK_VAR	20000

struct bigleak_pcpu {
	u64 word[5];
};

static struct dentry *dir;
/* bigleak_lock: see Notes on locking. */
static DEFINE_MUTEX(bigleak_lock);
static void *large[BIGLEAK_MAX];
static struct bigleak_pcpu __percpu *pcpu[BIGLEAK_MAX];
static unsigned int nr_large, nr_pcpu;
/* A size the compiler cannot fold: kmalloc() calls __kmalloc(). */
static size_t var_size = BIGLEAK_VAR;

/* Not inlined, not a tail call: frame #01 of each record is its function. */
static noinline void *bigleak_large(void)
{
	void *p = kmalloc(BIGLEAK_LARGE, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static noinline void *bigleak_large_var(void)
{
	void *p = kmalloc(READ_ONCE(var_size), GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static noinline struct bigleak_pcpu __percpu *bigleak_percpu(void)
{
	struct bigleak_pcpu __percpu *p = alloc_percpu(struct bigleak_pcpu);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static noinline void *bigleak_churn_large(void)
{
	void *p = kmalloc(BIGLEAK_LARGE, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static noinline struct bigleak_pcpu __percpu *bigleak_churn_percpu(void)
{
	struct bigleak_pcpu __percpu *p = alloc_percpu(struct bigleak_pcpu);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static noinline int keep(const char *cmd, unsigned int n)
{
	lockdep_assert_held(&bigleak_lock);
	while (n--) {
		if (!strcmp(cmd, "percpu")) {
			if (nr_pcpu == BIGLEAK_MAX)
				return -ENOSPC;
			pcpu[nr_pcpu] = bigleak_percpu();
			if (!pcpu[nr_pcpu])
				return -ENOMEM;
			nr_pcpu++;
			continue;
		}
		if (nr_large == BIGLEAK_MAX)
			return -ENOSPC;
		large[nr_large] = strcmp(cmd, "large") ? bigleak_large_var() :
							 bigleak_large();
		if (!large[nr_large])
			return -ENOMEM;
		nr_large++;
	}
	return 0;
}

static int churn(unsigned int n)
{
	struct bigleak_pcpu __percpu *p;
	void *l;

	while (n--) {
		l = bigleak_churn_large();
		p = bigleak_churn_percpu();
		kfree(l);
		free_percpu(p);
		if (!l || !p)
			return -ENOMEM;
	}
	return 0;
}

static void free_kept(void)
{
	lockdep_assert_held(&bigleak_lock);
	while (nr_large)
		kfree(large[--nr_large]);
	while (nr_pcpu)
		free_percpu(pcpu[--nr_pcpu]);
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
	mutex_lock(&bigleak_lock);
	if (!strcmp(buf, "free") && !arg) {
		free_kept();
		ret = 0;
	} else if (!strcmp(buf, "churn") && arg) {
		ret = churn(n);
	} else if ((!strcmp(buf, "large") || !strcmp(buf, "large_var") ||
		    !strcmp(buf, "percpu")) && arg) {
		ret = keep(buf, n);
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&bigleak_lock);
	return ret ?: len;
}

static ssize_t ctl_read(struct file *file, char __user *ubuf, size_t len,
			loff_t *ppos)
{
	char buf[48];
	int n;

	mutex_lock(&bigleak_lock);
	n = scnprintf(buf, sizeof(buf), "large %u percpu %u\n", nr_large,
		      nr_pcpu);
	mutex_unlock(&bigleak_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.read = ctl_read,
	.write = ctl_write,
	.llseek = default_llseek,
};

static int __init bigleak_init(void)
{
	dir = debugfs_create_dir("bigleak", NULL);
	debugfs_create_file("ctl", 0600, dir, NULL, &ctl_fops);
	return 0;
}

static void __exit bigleak_exit(void)
{
	debugfs_remove(dir);
	mutex_lock(&bigleak_lock);
	free_kept();
	mutex_unlock(&bigleak_lock);
}

module_init(bigleak_init);
module_exit(bigleak_exit);
MODULE_DESCRIPTION("slabtrace test: leaks kmalloc-large and percpu objects");
MODULE_LICENSE("GPL");
