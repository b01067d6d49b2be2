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

#include <linux/err.h>
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/stackdepot.h>

#include <slabtrace/files.h>
#include <slabtrace/kmemtrace.h>
#include <slabtrace/kptrace.h>
#include <slabtrace/slabtrace.h>

/* Serialises the commands; see Notes on locking in each file. */
DEFINE_MUTEX(slabtrace_mutex);
struct kmem_cache *slabtrace_record_cache;
unsigned long slabtrace_record_limit;

static unsigned int pool_size = SLABTRACE_POOL_DEFAULT;
module_param(pool_size, uint, 0400);
MODULE_PARM_DESC(pool_size, "records kept ready per CPU (\"pool N\" on ctl changes it)");

static unsigned int fail_init;
module_param(fail_init, uint, 0400);
MODULE_PARM_DESC(fail_init, "for slabtrace's tests: fail step N of loading (1-12) with ENOMEM");

static unsigned long record_limit;
module_param(record_limit, ulong, 0400);
MODULE_PARM_DESC(record_limit, "most records kept, all caches together; 0: 1/64 of RAM's worth (\"limit N\" on ctl changes it)");

/*
 * Step @n of loading may go ahead: -ENOMEM instead if fail_init says so,
 * before the step, so that the tests see every unwinding path.
 */
static int injected(unsigned int n)
{
	if (n != fail_init)
		return 0;
	pr_info("fail_init=%u: failing that step of loading\n", n);
	return -ENOMEM;
}

/* The default limit: records worth 1/64 of RAM, table included. */
static unsigned long default_limit(void)
{
	return (totalram_pages() << PAGE_SHIFT) / 64 /
	       SLABTRACE_RECORD_BYTES;
}

static int __init slabtrace_init(void)
{
	int ret;

	/*
	 * kmalloc() spreads its objects over copies of each kmalloc-N cache
	 * by a hash of the call site (v6.6); the kmalloc tracepoint's call
	 * site is not always the one hashed, so objects would be counted in
	 * the wrong copy.
	 */
	if (IS_ENABLED(CONFIG_RANDOM_KMALLOC_CACHES)) {
		pr_err("not supported on kernels with CONFIG_RANDOM_KMALLOC_CACHES: a kmalloc() object's cache cannot be known\n");
		return -EOPNOTSUPP;
	}
	if (pool_size < SLABTRACE_POOL_MIN || pool_size > SLABTRACE_POOL_MAX) {
		pr_warn("pool_size=%u: not in %u..%u\n", pool_size,
			SLABTRACE_POOL_MIN, SLABTRACE_POOL_MAX);
		return -EINVAL;
	}
	slabtrace_record_limit = record_limit ?: default_limit();
	slabtrace_stacks_init();
	ret = injected(1) ?: stack_depot_init();
	if (ret)
		return ret;
	/* Not merged with any other cache, so never traced with one. */
	if (!injected(2))
		slabtrace_record_cache = KMEM_CACHE(slabtrace_record,
						    SLAB_NOLEAKTRACE);
	if (!slabtrace_record_cache)
		return -ENOMEM;
	ret = injected(3) ?: slabtrace_ctx_init();
	if (ret)
		goto err_cache;
	ret = injected(4) ?: slabtrace_table_init(&slabtrace_records);
	if (ret)
		goto err_ctx;
	ret = injected(5) ?: slabtrace_pool_init(&slabtrace_pool,
						 slabtrace_record_cache,
						 pool_size);
	if (ret)
		goto err_table;
	ret = injected(6) ?: slabtrace_modsyms_init();
	if (ret)
		goto err_pool;
	ret = injected(7) ?: slabtrace_files_init();
	if (ret)
		goto err_modsyms;
	ret = injected(8) ?: slabtrace_folded_init();
	if (ret)
		goto err_debugfs;
	ret = injected(9) ?: slabtrace_stats_init();
	if (ret)
		goto err_debugfs;
	ret = injected(10) ?: slabtrace_kptrace_init();
	if (ret)
		goto err_debugfs;
	ret = injected(11) ?: slabtrace_kmemtrace_init();
	if (ret)
		goto err_kptrace;
	/* Last: no command can start before everything is in place. */
	ret = injected(12) ?: slabtrace_ctl_init();
	if (ret)
		goto err_kmemtrace;
	return 0;

err_kmemtrace:
	slabtrace_kmemtrace_exit();
err_kptrace:
	slabtrace_kptrace_exit();
err_debugfs:
	slabtrace_files_exit();
err_modsyms:
	slabtrace_modsyms_exit();
err_pool:
	slabtrace_pool_destroy(&slabtrace_pool);
err_table:
	slabtrace_table_destroy(&slabtrace_records, slabtrace_record_free);
err_ctx:
	slabtrace_ctx_exit();
err_cache:
	kmem_cache_destroy(slabtrace_record_cache);
	return ret;
}

static void __exit slabtrace_exit(void)
{
	/* No file is open (an open file pins the module): none can be. */
	slabtrace_files_exit();
	slabtrace_kmemtrace_exit();
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
	slabtrace_snapshot_exit_work();
	slabtrace_stack_store_exit();
	slabtrace_table_destroy(&slabtrace_records, slabtrace_record_free);
	slabtrace_pool_destroy(&slabtrace_pool);
	slabtrace_ctx_exit();
	kmem_cache_destroy(slabtrace_record_cache);
}

module_init(slabtrace_init);
module_exit(slabtrace_exit);
MODULE_DESCRIPTION("Trace outstanding slab allocations with their backtraces");
MODULE_LICENSE("GPL");
MODULE_VERSION(SLABTRACE_VERSION);
