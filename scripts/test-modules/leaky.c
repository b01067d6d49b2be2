// SPDX-License-Identifier: GPL-2.0
/*
 * leaky: a module that leaks slab objects on request, for slabtrace's demo
 * and VM tests.  Not part of slabtrace.
 *
 * /sys/kernel/debug/leaky/ctl (0200), one command per write:
 *   widgets N   allocate N objects from the cache "leaky_widget" and keep
 *               them (in leaky_alloc_widget())
 *   bufs N      kmalloc(50) N times and keep them (in leaky_alloc_buf())
 *   orphans N   kmalloc(40) N times and forget them: a real leak, still
 *               there after rmmod (in leaky_orphan_buf())
 *   churn N     allocate and free N widgets and N buffers: no leak
 *   helper N    run N usermode helpers (a path that does not exist); each
 *               allocates a widget before its exec, in a task forked from
 *               a kernel thread that is in no system call (in
 *               leaky_helper_setup()), and the widget is kept
 *   late N      allocate N objects from the cache "leaky_late" and keep
 *               them (in leaky_alloc_late()); the cache is created by the
 *               first "late", long after the module's load, as a driver
 *               creates one when a device appears
 *   free        free everything kept
 * rmmod frees what is kept.
 *
 * /sys/kernel/debug/leaky/kept (0400): the addresses of the kept widgets,
 * one a line (hex, unhashed), oldest first: what kmemtrace's decoded object
 * addresses are checked against.
 *
 * /sys/module/leaky/parameters/bufs (0200): writing N does what "bufs N"
 * does, for a kernel whose debugfs is locked down (lockdown refuses
 * writable debugfs files, not module parameters).
 *
 * Notes on locking
 * ----------------
 * - leaky_lock (mutex): the list of kept objects.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/init.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/umh.h>

#define LEAKY_MAX	100000

struct leaky_widget {
	struct list_head list;
	unsigned long magic;
	char payload[184];
};

/* A kept kmalloc(50) buffer starts with its list head. */
struct leaky_buf {
	struct list_head list;
};

static struct kmem_cache *widget_cache;
static struct kmem_cache *late_cache;	/* created by the first "late" */
static struct dentry *leaky_dir;
static DEFINE_MUTEX(leaky_lock);
static LIST_HEAD(widgets);
static LIST_HEAD(bufs);
static LIST_HEAD(lates);

/* A constructor: the cache is never merged with another. */
static void widget_ctor(void *p)
{
	struct leaky_widget *w = p;

	w->magic = 0x1eaced;
}

static noinline struct leaky_widget *leaky_alloc_widget(void)
{
	struct leaky_widget *w = kmem_cache_alloc(widget_cache, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(w);
	return w;
}

static noinline struct leaky_widget *leaky_alloc_late(void)
{
	struct leaky_widget *w = kmem_cache_alloc(late_cache, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(w);
	return w;
}

/* N objects of leaky_late, kept; the first call creates the cache. */
static int keep_late(unsigned int n)
{
	struct leaky_widget *w;

	lockdep_assert_held(&leaky_lock);
	if (!late_cache)
		late_cache = kmem_cache_create("leaky_late",
					       sizeof(struct leaky_widget), 0,
					       0, widget_ctor);
	if (!late_cache)
		return -ENOMEM;
	while (n--) {
		w = leaky_alloc_late();
		if (!w)
			return -ENOMEM;
		list_add_tail(&w->list, &lates);
	}
	return 0;
}

static noinline struct leaky_buf *leaky_alloc_buf(void)
{
	struct leaky_buf *b = kmalloc(50, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(b);
	return b;
}

/* Not kmalloc(50): the compiler would fold it into leaky_alloc_buf(). */
static noinline void *leaky_orphan_buf(void)
{
	void *p = kmalloc(40, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

/*
 * One object, kept.  The VM tests find keep() as frame #02, and every
 * object of a command under one backtrace: noinline (arm64's gcc inlined
 * it), __noclone (no keep.constprop.0), and no loop here (gcc-14 peeled
 * the first call of the loop that was here: two call sites, two stacks).
 */
static noinline __noclone int keep(bool widget)
{
	struct leaky_widget *w;
	struct leaky_buf *b;

	if (widget) {
		w = leaky_alloc_widget();
		if (!w)
			return -ENOMEM;
		list_add_tail(&w->list, &widgets);
	} else {
		b = leaky_alloc_buf();
		if (!b)
			return -ENOMEM;
		list_add_tail(&b->list, &bufs);
	}
	return 0;
}

static int keep_n(unsigned int n, bool widget)
{
	int ret = 0;

	lockdep_assert_held(&leaky_lock);
	while (n-- && !ret)
		ret = keep(widget);
	return ret;
}

static void free_kept(void)
{
	struct leaky_widget *w, *wn;
	struct leaky_buf *b, *bn;

	lockdep_assert_held(&leaky_lock);
	list_for_each_entry_safe(w, wn, &widgets, list)
		kmem_cache_free(widget_cache, w);
	list_for_each_entry_safe(w, wn, &lates, list)
		kmem_cache_free(late_cache, w);
	INIT_LIST_HEAD(&lates);
	list_for_each_entry_safe(b, bn, &bufs, list)
		kfree(b);
	INIT_LIST_HEAD(&widgets);
	INIT_LIST_HEAD(&bufs);
}

static int churn(unsigned int n)
{
	void *w, *b;

	while (n--) {
		w = leaky_alloc_widget();
		b = leaky_alloc_buf();
		if (w)
			kmem_cache_free(widget_cache, w);
		kfree(b);
		if (!w || !b)
			return -ENOMEM;
	}
	return 0;
}

/* In the helper's task, before its exec: a widget for the caller. */
static noinline int leaky_helper_setup(struct subprocess_info *info,
				       struct cred *new)
{
	struct leaky_widget **slot = info->data;

	*slot = leaky_alloc_widget();
	return *slot ? 0 : -ENOMEM;
}

/* @n usermode helpers, each keeping the widget it made. */
static int helpers(unsigned int n)
{
	char *argv[2] = { "/nonexistent-leaky-helper", NULL };
	char *envp[2] = { "PATH=/sbin:/bin", NULL };
	struct subprocess_info *info;
	struct leaky_widget *w;

	while (n--) {
		w = NULL;
		info = call_usermodehelper_setup(argv[0], argv, envp,
						 GFP_KERNEL,
						 leaky_helper_setup, NULL, &w);
		if (!info)
			return -ENOMEM;
		/* Its exec fails (no such file); the widget was made before. */
		call_usermodehelper_exec(info, UMH_WAIT_EXEC);
		if (!w)
			return -ENOMEM;
		mutex_lock(&leaky_lock);
		list_add_tail(&w->list, &widgets);
		mutex_unlock(&leaky_lock);
	}
	return 0;
}

/*
 * Inlined into its callers, so that a kept buffer's frames stay
 * leaky_alloc_buf < keep < ctl_write (or bufs_set), as the tests and
 * the docs show them.
 */
static __always_inline int run(const char *cmd, unsigned int n)
{
	int ret = 0;

	if (n > LEAKY_MAX) {
		pr_warn("at most %d objects a command\n", LEAKY_MAX);
		return -E2BIG;
	}
	/* Not under leaky_lock: the helpers run in tasks of their own. */
	if (!strcmp(cmd, "helper"))
		return helpers(n);
	mutex_lock(&leaky_lock);
	if (!strcmp(cmd, "widgets")) {
		ret = keep_n(n, true);
	} else if (!strcmp(cmd, "bufs")) {
		ret = keep_n(n, false);
	} else if (!strcmp(cmd, "orphans")) {
		while (n-- && leaky_orphan_buf())
			;
	} else if (!strcmp(cmd, "churn")) {
		ret = churn(n);
	} else if (!strcmp(cmd, "late")) {
		ret = keep_late(n);
	} else {
		pr_warn("unknown command '%s'\n", cmd);
		ret = -EINVAL;
	}
	mutex_unlock(&leaky_lock);
	return ret;
}

static int bufs_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret = kstrtouint(val, 0, &n);

	return ret ?: run("bufs", n);
}

static const struct kernel_param_ops bufs_ops = {
	.set = bufs_set,
};
module_param_cb(bufs, &bufs_ops, NULL, 0200);
MODULE_PARM_DESC(bufs, "keep N more kmalloc(50) buffers, as \"bufs N\" on ctl does");

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	char *buf, cmd[16];
	unsigned int n;
	int ret;

	if (len > 64)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (!strcmp(strim(buf), "free")) {
		mutex_lock(&leaky_lock);
		free_kept();
		mutex_unlock(&leaky_lock);
		ret = 0;
	} else if (sscanf(buf, "%15s %u", cmd, &n) == 2) {
		ret = run(cmd, n);
	} else {
		pr_warn("usage: widgets|bufs|orphans|churn|helper|late N, or free\n");
		ret = -EINVAL;
	}
	kfree(buf);
	return ret ?: len;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.write = ctl_write,
	.llseek = noop_llseek,
};

static int kept_show(struct seq_file *m, void *v)
{
	struct leaky_widget *w;

	mutex_lock(&leaky_lock);
	/* The real addresses, unhashed: what kmemtrace's are checked against. */
	list_for_each_entry(w, &widgets, list)
		seq_printf(m, "%016lx\n", (unsigned long)w);
	mutex_unlock(&leaky_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kept);

static int __init leaky_init(void)
{
	widget_cache = kmem_cache_create("leaky_widget",
					 sizeof(struct leaky_widget), 0, 0,
					 widget_ctor);
	if (!widget_cache)
		return -ENOMEM;
	leaky_dir = debugfs_create_dir("leaky", NULL);
	debugfs_create_file("ctl", 0200, leaky_dir, NULL, &ctl_fops);
	debugfs_create_file("kept", 0400, leaky_dir, NULL, &kept_fops);
	return 0;
}

static void __exit leaky_exit(void)
{
	debugfs_remove(leaky_dir);
	mutex_lock(&leaky_lock);
	free_kept();
	mutex_unlock(&leaky_lock);
	kmem_cache_destroy(late_cache);
	kmem_cache_destroy(widget_cache);
}

module_init(leaky_init);
module_exit(leaky_exit);
MODULE_DESCRIPTION("Leaks slab objects on request (slabtrace demo)");
MODULE_LICENSE("GPL");
