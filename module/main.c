// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: module init and exit.
 *
 * slabtrace keeps, for the slab caches a user names, a record of every
 * object allocated and not yet freed, with the backtrace and context of
 * its allocation, taken from the kmem tracepoints.  Documentation/
 * slabtrace.rst is the user's guide; each file of module/ has one job.
 *
 * Notes on locking
 * ----------------
 * - slabtrace_mutex serialises the commands on ctl, attaching the probes,
 *   and the set of traced caches (see each file's notes).  It is taken
 *   before any other lock of slabtrace.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/stackdepot.h>

#include <slabtrace/kmemtrace.h>
#include <slabtrace/kptrace.h>
#include <slabtrace/slabtrace.h>

/* Serialises the commands; see Notes on locking in each file. */
DEFINE_MUTEX(slabtrace_mutex);
struct kmem_cache *slabtrace_record_cache;
struct dentry *slabtrace_debugfs;

static int __init slabtrace_init(void)
{
	int ret;

	ret = stack_depot_init();
	if (ret)
		return ret;
	/* Not merged with any other cache, so never traced with one. */
	slabtrace_record_cache = KMEM_CACHE(slabtrace_record, SLAB_NOLEAKTRACE);
	if (!slabtrace_record_cache)
		return -ENOMEM;
	slabtrace_debugfs = debugfs_create_dir("slabtrace", NULL);
	if (IS_ERR(slabtrace_debugfs)) {
		ret = PTR_ERR(slabtrace_debugfs);
		pr_err("cannot create debugfs directory (%d)\n", ret);
		goto err_cache;
	}
	ret = slabtrace_ctl_init();
	if (ret)
		goto err_debugfs;
	ret = slabtrace_folded_init();
	if (ret)
		goto err_debugfs;
	ret = slabtrace_modsyms_init();
	if (ret)
		goto err_debugfs;
	ret = slabtrace_kptrace_init();
	if (ret)
		goto err_modsyms;
	ret = slabtrace_kmemtrace_init();
	if (ret)
		goto err_kptrace;
	return 0;

err_kptrace:
	slabtrace_kptrace_exit();
err_modsyms:
	slabtrace_modsyms_exit();
err_debugfs:
	debugfs_remove(slabtrace_debugfs);
err_cache:
	kmem_cache_destroy(slabtrace_record_cache);
	return ret;
}

static void __exit slabtrace_exit(void)
{
	/* Its relay files go before the directory holding them. */
	slabtrace_kmemtrace_exit();
	/* No new command can start; running ones have finished. */
	debugfs_remove(slabtrace_debugfs);
	slabtrace_kptrace_exit();
	/* No probe runs any more, nor will. */
	slabtrace_probes_exit();
	/* Nor the module notifier, which walks the records. */
	slabtrace_modsyms_exit();

	mutex_lock(&slabtrace_mutex);
	slabtrace_traced_exit();
	slabtrace_snapshot_exit();
	slabtrace_caches_exit();
	mutex_unlock(&slabtrace_mutex);
	slabtrace_ctx_exit();
	kmem_cache_destroy(slabtrace_record_cache);
}

module_init(slabtrace_init);
module_exit(slabtrace_exit);
MODULE_DESCRIPTION("Trace outstanding slab allocations with their backtraces");
MODULE_LICENSE("GPL");
