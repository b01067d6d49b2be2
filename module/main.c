// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: module init and exit.
 *
 * slabtrace keeps, for the slab caches a user names, a record of every
 * object allocated and not yet freed, with the backtrace and context of
 * its allocation, taken from the kmem tracepoints.  Documentation/
 * slabtrace.rst is the user's guide; each file of module/ has one job.
 *
 * Loading is a list of steps, steps[] below, and unloading (or a load
 * that fails) undoes them in the reverse order, by one loop: the order is
 * written down once.  It follows one rule: a step may use only what the
 * steps before it made, and its exit first stops every work item,
 * irq_work and notifier it owns, then frees.  So nothing is freed while
 * something that uses it can still run: the context sweep walks the
 * record table, so the contexts come after the table, and their exit
 * cancels the sweep before the table goes; the table's records go back to
 * the pool, so the pool comes before the table.  What commands make (the
 * traced caches, the probes, the snapshots) belongs to the last step,
 * the one that lets commands in; its exit undoes it first.
 *
 * When the exit runs no command can: every file of slabtrace pins the
 * module while it is open, and none can be opened once it is going.
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

static unsigned long record_limit;
module_param(record_limit, ulong, 0400);
MODULE_PARM_DESC(record_limit, "most records kept, all caches together; 0: 1/64 of RAM's worth (\"limit N\" on ctl changes it)");

/* The default limit: records worth 1/64 of RAM, table included. */
static unsigned long default_limit(void)
{
	return (totalram_pages() << PAGE_SHIFT) / 64 /
	       SLABTRACE_RECORD_BYTES;
}

static int records_init(void)
{
	/* Not merged with any other cache, so never traced with one. */
	slabtrace_record_cache = KMEM_CACHE(slabtrace_record, SLAB_NOLEAKTRACE);
	return slabtrace_record_cache ? 0 : -ENOMEM;
}

static void records_exit(void)
{
	kmem_cache_destroy(slabtrace_record_cache);
	slabtrace_record_cache = NULL;
}

static int pool_init(void)
{
	return slabtrace_pool_init(&slabtrace_pool, slabtrace_record_cache,
				   pool_size);
}

static void pool_exit(void)
{
	slabtrace_pool_destroy(&slabtrace_pool);
}

static int table_init(void)
{
	return slabtrace_table_init(&slabtrace_records);
}

/* Its records go back to the pool. */
static void table_exit(void)
{
	slabtrace_table_destroy(&slabtrace_records, slabtrace_record_free);
}

static int stacks_init(void)
{
	slabtrace_stacks_init();
	return stack_depot_init();
}

/*
 * What the commands made: the probes first (none runs after this, nor
 * will), then the traced caches, their records and snapshots.
 */
static void commands_exit(void)
{
	slabtrace_probes_exit();
	mutex_lock(&slabtrace_mutex);
	slabtrace_traced_exit();
	slabtrace_snapshot_exit();
	mutex_unlock(&slabtrace_mutex);
	slabtrace_snapshot_exit_work();
}

/* A step of loading, and what undoes it (either may be NULL). */
struct step {
	const char *name;
	int (*init)(void);
	void (*exit)(void);
};

static const struct step steps[] = {
	{ "record cache", records_init, records_exit },
	{ "record pool", pool_init, pool_exit },
	/* Its records go back to the pool. */
	{ "record table", table_init, table_exit },
	/* The sweep walks the record table and the snapshots. */
	{ "contexts", slabtrace_ctx_init, slabtrace_ctx_exit },
	/* Traces saved late are given to records of the table. */
	{ "stack depot", stacks_init, slabtrace_stack_store_exit },
	/* The module notifier names the frames of records and snapshots. */
	{ "module notifier", slabtrace_modsyms_init, slabtrace_modsyms_exit },
	/* Cache names, looked up by the commands of every part. */
	{ "cache lookup", NULL, slabtrace_caches_exit },
	/* /proc/slabtrace and the debugfs directory, with what is in them. */
	{ "file trees", slabtrace_files_init, slabtrace_files_exit },
	{ "folded files", slabtrace_folded_init, NULL },
	{ "stats files", slabtrace_stats_init, NULL },
	{ "kptrace", slabtrace_kptrace_init, slabtrace_kptrace_exit },
	{ "kmemtrace", slabtrace_kmemtrace_init, slabtrace_kmemtrace_exit },
	/* Last: no command can start before everything is in place. */
	{ "ctl", slabtrace_ctl_init, commands_exit },
};

#ifdef SLABTRACE_TEST_BUILD
/*
 * Test builds only (make test-modules): the VM test "load" fails each step
 * in turn to see every unwinding path.
 */
static unsigned int fail_init;
module_param(fail_init, uint, 0400);
MODULE_PARM_DESC(fail_init, "for slabtrace's tests: fail step N of loading with ENOMEM");

static int step_injected(unsigned int n)
{
	if (n != fail_init)
		return 0;
	pr_info("fail_init=%u: failing step %u of loading (%s)\n", n, n,
		steps[n - 1].name);
	return -ENOMEM;
}
#else
static inline int step_injected(unsigned int n)
{
	return 0;
}
#endif

/* Undo the first @n steps, the last first. */
static void steps_exit(unsigned int n)
{
	while (n--)
		if (steps[n].exit)
			steps[n].exit();
}

static int __init slabtrace_init(void)
{
	unsigned int i;
	int ret = 0;

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
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		ret = step_injected(i + 1);
		if (!ret && steps[i].init)
			ret = steps[i].init();
		if (ret) {
			/* Its own init undid what it had done. */
			steps_exit(i);
			return ret;
		}
	}
	return 0;
}

static void __exit slabtrace_exit(void)
{
	steps_exit(ARRAY_SIZE(steps));
}

module_init(slabtrace_init);
module_exit(slabtrace_exit);
MODULE_DESCRIPTION("Trace outstanding slab allocations with their backtraces");
MODULE_LICENSE("GPL");
MODULE_VERSION(SLABTRACE_VERSION);
