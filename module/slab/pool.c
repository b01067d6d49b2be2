// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: the pool of records.
 *
 * A probe needs a record at every traced allocation, inside someone else's
 * allocation and in any context, so it must not call the slab allocator:
 * on PREEMPT_RT its locks sleep, and everywhere it would recurse into the
 * probe.  Records come from per-CPU free lists, filled beforehand, and a
 * freed record goes back to the list of the CPU that frees it.  When a
 * list runs low (or, fed by frees, too long), the probe asks the worker
 * (worker.c) for a refill; in process context that evens the lists
 * out (CPUs that free more than they allocate give to the others) and
 * allocates what is still missing, with __GFP_NORETRY: a refill fails
 * rather than wake the OOM killer.  An empty list is a counted drop, never
 * a wait.  kmemleak's mem_pool does the same for its metadata.
 *
 * Records move between the lists and the slab POOL_BATCH at a time per
 * lock hold, so interrupts are never off for long, whatever the size of
 * the pool ("pool 1048576") or of a list (a "reset" of a million records
 * gives them all to the CPU that runs it), and every loop yields the CPU
 * every POOL_BATCH records.  "pool N" asks first whether the records fit
 * in half of the memory available; if they do not, or a refill fails, it
 * gives back what it took and keeps the size it had.  A start's fill asks
 * the same of the size it has (pool_size= was never asked) and cuts it
 * to what fits, which the log says.  A smaller pool, and
 * a pool drained when nothing is traced, give their records back in the
 * refill work: the command returns at once.
 *
 * Notes on locking
 * ----------------
 * - leak_pool_cpu.lock (raw spinlock, irq-safe): that CPU's list and
 *   count.  Taken by the probes on their own CPU (one record a hold), and
 *   by the refill work for every CPU in turn (POOL_BATCH records a hold);
 *   never two at once.  Taken inside the table's
 *   stripe locks by nobody: records are unlinked first, then put.
 * - p->refill_mutex: p->size (the probes read it with no lock, to ask
 *   for a refill), p->draining, and one refill at a time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <kunit/visibility.h>

#include "hold.h"
#include "pool.h"
#include "worker.h"

/*
 * Records moved per lock hold: at most some 12 us with interrupts off
 * (make bench: 190 ns a record when they are cold, as after a "reset" of
 * a million).
 */
#define POOL_BATCH	64

struct leak_pool leak_pool;
struct kmem_cache *leak_record_cache;
unsigned long leak_record_limit;

static unsigned int pool_size = LEAK_POOL_DEFAULT;
module_param(pool_size, uint, 0400);
MODULE_PARM_DESC(pool_size, "records kept ready per CPU (\"pool N\" on ctl changes it)");

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/*
 * The tests set it to see a refill fail: N > 0 fails the Nth allocation
 * from now and every one after.
 */
unsigned int leak_fail_refill;
/* Allocations a refill tried (the tests count them). */
unsigned long leak_refill_tries;
/* Called at each of them: a test's kick, as a probe's meanwhile. */
void (*leak_test_in_refill)(void);
#endif

/* Called with c->lock held. */
static struct leak_record *list_pop(struct leak_pool_cpu *c)
{
	struct leak_record *rec = c->head;

	lockdep_assert_held(&c->lock);
	if (rec) {
		c->head = rec->next;
		c->nr--;
	}
	return rec;
}

static void list_push(struct leak_pool_cpu *c,
		      struct leak_record *rec)
{
	lockdep_assert_held(&c->lock);
	rec->next = c->head;
	c->head = rec;
	c->nr++;
}

/**
 * leak_pool_get - take a record
 * @p: the pool
 *
 * Asks the worker for a refill when the CPU's list runs low.
 *
 * Context: Any context but NMI (a probe); takes this CPU's raw spinlock,
 * interrupts off, for one unlink.
 * Return: a record (not zeroed), or NULL if this CPU's list is empty.
 */
struct leak_record *leak_pool_get(struct leak_pool *p)
{
	struct leak_pool_cpu *c;
	struct leak_record *rec;
	unsigned long flags;
	bool low;

	local_irq_save(flags);
	c = this_cpu_ptr(p->cpu);
	raw_spin_lock(&c->lock);
	rec = list_pop(c);
	low = c->nr < READ_ONCE(p->size) / 2;
	raw_spin_unlock(&c->lock);
	local_irq_restore(flags);
	if (low)
		leak_work_kick(LEAK_JOB_REFILL);
	return rec;
}

/**
 * leak_pool_put - give a record back
 * @p: the pool
 * @rec: the record, unlinked from everything
 *
 * Context: Any context but NMI (a probe); takes this CPU's raw spinlock,
 * interrupts off, for one link.
 */
void leak_pool_put(struct leak_pool *p, struct leak_record *rec)
{
	struct leak_pool_cpu *c;
	unsigned long flags;
	bool high;

	local_irq_save(flags);
	c = this_cpu_ptr(p->cpu);
	raw_spin_lock(&c->lock);
	list_push(c, rec);
	high = c->nr > 2 * READ_ONCE(p->size);
	raw_spin_unlock(&c->lock);
	local_irq_restore(flags);
	if (high)
		leak_work_kick(LEAK_JOB_REFILL);
}

/*
 * Free a record of the global pool (the tables' free_rec).
 * Context: as leak_pool_put().
 */
void leak_record_free(struct leak_record *rec)
{
	leak_pool_put(&leak_pool, rec);
}

static struct leak_record *rec_alloc(struct leak_pool *p)
{
#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
	unsigned int n = READ_ONCE(leak_fail_refill);

	leak_refill_tries++;
	if (leak_test_in_refill)
		leak_test_in_refill();
	if (n == 1)
		return NULL;
	if (n)
		WRITE_ONCE(leak_fail_refill, n - 1);
#endif
	return kmem_cache_alloc(p->cache,
				GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
}

static void rec_free(struct leak_pool *p, struct leak_record *rec)
{
	kmem_cache_free(p->cache, rec);
	atomic_long_dec(&p->allocated);
}

/*
 * Give the records of @list back to the slab, yielding every POOL_BATCH:
 * a pool of 2^20 records per CPU is millions of frees, seconds of them
 * with slub_debug.  Called with no spinlock held.
 */
static void free_list(struct leak_pool *p, struct leak_record *list)
{
	struct leak_record *rec;
	unsigned int n = 0;

	while ((rec = list)) {
		list = rec->next;
		rec_free(p, rec);
		if (!(++n % POOL_BATCH))
			cond_resched();
	}
}

/*
 * Move what @c, one of @p's lists, holds beyond @want to *@list,
 * POOL_BATCH records a hold.  Called with p->refill_mutex held (the lists
 * are not otherwise bounded).
 */
static void take_surplus(struct leak_pool *p, struct leak_pool_cpu *c,
			 unsigned int want, struct leak_record **list)
{
	struct leak_record *rec;
	unsigned long flags;
	unsigned int n;
	bool more;
	u64 t0;

	lockdep_assert_held(&p->refill_mutex);
	do {
		t0 = leak_hold_start();
		raw_spin_lock_irqsave(&c->lock, flags);
		for (n = 0; n < POOL_BATCH && c->nr > want; n++) {
			rec = list_pop(c);
			rec->next = *list;
			*list = rec;
		}
		more = c->nr > want;
		raw_spin_unlock_irqrestore(&c->lock, flags);
		leak_hold_end(LEAK_HOLD_POOL, t0, n);
		cond_resched();
	} while (more);
}

/*
 * Move records from *@list to @c until it holds @want, or all of them if
 * @all, POOL_BATCH records a hold.
 *
 * Return: how many @c lacks still.
 */
static unsigned int give(struct leak_pool_cpu *c, unsigned int want,
			 bool all, struct leak_record **list)
{
	struct leak_record *rec;
	unsigned long flags;
	unsigned int n, lack;
	u64 t0;

	do {
		t0 = leak_hold_start();
		raw_spin_lock_irqsave(&c->lock, flags);
		for (n = 0; n < POOL_BATCH && *list; n++) {
			if (!all && c->nr >= want)
				break;
			rec = *list;
			*list = rec->next;
			list_push(c, rec);
		}
		lack = want > c->nr ? want - c->nr : 0;
		raw_spin_unlock_irqrestore(&c->lock, flags);
		leak_hold_end(LEAK_HOLD_POOL, t0, n);
		cond_resched();
	} while (*list && (all || lack));
	return lack;
}

/*
 * Bring every CPU's list to p->size: surplus first, then new records.
 * Called with p->refill_mutex held.
 *
 * Return: 0, or -ENOMEM if some list could not be filled.
 */
static int refill(struct leak_pool *p)
{
	struct leak_record *spare = NULL, *fresh, *rec;
	unsigned int want = p->draining ? 0 : p->size, need;
	struct leak_pool_cpu *c;
	int cpu, ret = 0;

	lockdep_assert_held(&p->refill_mutex);
	for_each_possible_cpu(cpu)
		take_surplus(p, per_cpu_ptr(p->cpu, cpu), want, &spare);
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(p->cpu, cpu);
		need = give(c, want, false, &spare);

		/* Allocated with no lock held, then handed over. */
		fresh = NULL;
		while (need && !ret) {
			rec = rec_alloc(p);
			if (!rec) {
				ret = -ENOMEM;
				break;
			}
			atomic_long_inc(&p->allocated);
			rec->next = fresh;
			fresh = rec;
			need--;
			if (!(need % POOL_BATCH))
				cond_resched();
		}
		give(c, want, true, &fresh);
	}
	free_list(p, spare);
	return ret;
}

/*
 * The worker's job: slabtrace's pool, to size.  A refill that found no
 * memory waits a second before the next, however often the probes ask
 * (at every record they take from a list run low): tried again at once,
 * the worker would reclaim without end while the probes count drops.
 */
static void refill_job(void)
{
	struct leak_pool *p = &leak_pool;
	int ret;

	mutex_lock(&p->refill_mutex);
	ret = refill(p);
	mutex_unlock(&p->refill_mutex);
	if (ret == -ENOMEM)
		leak_work_job(LEAK_JOB_REFILL, NULL, HZ);
}

/*
 * Set up @p, zeroed, empty: its records will come from @cache, @size per
 * CPU once filled.  Return: 0 or -ENOMEM.
 */
static int pool_init(struct leak_pool *p, struct kmem_cache *cache,
		     unsigned int size)
{
	int cpu;

	p->cpu = alloc_percpu(struct leak_pool_cpu);
	if (!p->cpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		raw_spin_lock_init(&per_cpu_ptr(p->cpu, cpu)->lock);
	p->cache = cache;
	p->size = size;
	p->draining = true;
	atomic_long_set(&p->allocated, 0);
	mutex_init(&p->refill_mutex);
	leak_work_job(LEAK_JOB_REFILL, refill_job, 0);
	return 0;
}

/* Records in the lists now, all CPUs (approximate, for the stats). */
VISIBLE_IF_KUNIT unsigned long leak_pool_free_count(struct leak_pool *p)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu_ptr(p->cpu, cpu)->nr);
	return n;
}

/*
 * Whether @size records per CPU fit in half of the memory available, over
 * what the lists hold already.  Called with p->refill_mutex held.
 */
static bool fits(struct leak_pool *p, unsigned int size)
{
	u64 want = (u64)size * num_possible_cpus();
	u64 have = leak_pool_free_count(p);
	u64 bytes, avail = (u64)max(si_mem_available(), 0L) << PAGE_SHIFT;

	lockdep_assert_held(&p->refill_mutex);
	if (want <= have)
		return true;
	bytes = (want - have) * kmem_cache_size(p->cache);
	if (bytes <= avail / 2)
		return true;
	pr_warn_ratelimited("pool: no memory for %u records per CPU (%llu MiB more, %llu MiB available)\n",
			    size, bytes >> 20, avail >> 20);
	return false;
}

/*
 * The largest size, down to LEAK_POOL_MIN, that fits() takes now.  Called
 * with p->refill_mutex held.
 */
static unsigned int size_that_fits(struct leak_pool *p)
{
	u64 avail = (u64)max(si_mem_available(), 0L) << PAGE_SHIFT;
	u64 n = div_u64(avail / 2, kmem_cache_size(p->cache)) +
		leak_pool_free_count(p);

	lockdep_assert_held(&p->refill_mutex);
	return clamp_t(u64, div_u64(n, num_possible_cpus()), LEAK_POOL_MIN,
		       p->size);
}

/**
 * leak_pool_fill - fill every CPU's list now, and keep them filled
 * @p: the pool
 *
 * May sleep.
 *
 * Return: 0, or -ENOMEM if some list could not be filled (what could be
 * is kept).
 */
int leak_pool_fill(struct leak_pool *p)
{
	int ret;

	mutex_lock(&p->refill_mutex);
	/*
	 * A size that does not fit now (pool_size=, which no command
	 * checked, or memory that went since "pool N") is cut to what does.
	 */
	if (!fits(p, p->size)) {
		WRITE_ONCE(p->size, size_that_fits(p));
		pr_warn_ratelimited("pool: %u records per CPU instead\n", p->size);
	}
	p->draining = false;
	ret = refill(p);
	mutex_unlock(&p->refill_mutex);
	return ret;
}

/**
 * leak_pool_resize - change the number of records kept per CPU
 * @p: the pool
 * @size: the new number
 *
 * Refused if the records would take more than half of the memory
 * available.  A bigger pool in use is refilled at once; if the refill
 * fails, what it took is given back and the size stays.  What a smaller
 * pool, or one not in use, has too many the refill work gives back: the
 * command does not wait for millions of frees.  May sleep.
 *
 * Return: 0 or -ENOMEM.
 */
int leak_pool_resize(struct leak_pool *p, unsigned int size)
{
	unsigned int old;
	int ret = -ENOMEM;

	mutex_lock(&p->refill_mutex);
	if (!fits(p, size))
		goto out;
	old = p->size;
	WRITE_ONCE(p->size, size);
	if (size <= old || p->draining) {
		leak_work_kick(LEAK_JOB_REFILL);
		ret = 0;
		goto out;
	}
	ret = refill(p);
	if (ret) {
		pr_warn_ratelimited("pool: no memory for %u records per CPU: kept %u\n",
				    size, old);
		WRITE_ONCE(p->size, old);
		refill(p);
	}
out:
	mutex_unlock(&p->refill_mutex);
	return ret;
}

/* Give every record of the lists back to the slab, now.  May sleep. */
static void drain_now(struct leak_pool *p)
{
	mutex_lock(&p->refill_mutex);
	p->draining = true;
	refill(p);
	mutex_unlock(&p->refill_mutex);
}

/**
 * leak_pool_drain - give every record of the lists back to the slab
 * @p: the pool
 *
 * For when nothing is traced: the refill work gives them back, so that
 * the command that let the probes go does not wait for it.  Records put
 * back later stay until the next refill or drain.  May sleep.
 */
void leak_pool_drain(struct leak_pool *p)
{
	mutex_lock(&p->refill_mutex);
	p->draining = true;
	mutex_unlock(&p->refill_mutex);
	leak_work_kick(LEAK_JOB_REFILL);
}

/*
 * Free the pool and the records in its lists.  No probe may use @p any
 * more.  Tolerates a pool whose init failed.
 */
static void pool_destroy(struct leak_pool *p)
{
	if (!p->cpu)
		return;
	/* The worker stopped first: no refill runs. */
	drain_now(p);
	WARN_ON_ONCE(atomic_long_read(&p->allocated));
	free_percpu(p->cpu);
	p->cpu = NULL;
	mutex_destroy(&p->refill_mutex);
}

/*
 * The records' slab cache and the pool: a step of loading (slab.c).  The
 * cache is not merged with any other, so never traced with one; named
 * "slabtrace_record" in /proc/slabinfo.
 */
static int pool_part_init(void)
{
	int ret;

	if (pool_size < LEAK_POOL_MIN || pool_size > LEAK_POOL_MAX) {
		pr_warn("pool_size=%u: not in %u..%u\n", pool_size,
			LEAK_POOL_MIN, LEAK_POOL_MAX);
		return -EINVAL;
	}
	leak_record_cache =
		kmem_cache_create("slabtrace_record",
				  sizeof(struct leak_record),
				  __alignof__(struct leak_record),
				  SLAB_NOLEAKTRACE, NULL);
	if (!leak_record_cache)
		return -ENOMEM;
	ret = pool_init(&leak_pool, leak_record_cache, pool_size);
	if (ret) {
		kmem_cache_destroy(leak_record_cache);
		leak_record_cache = NULL;
	}
	return ret;
}

static void pool_part_exit(void)
{
	pool_destroy(&leak_pool);
	kmem_cache_destroy(leak_record_cache);
	leak_record_cache = NULL;
}

/* "pool free 8190 per_cpu 4096 allocated 9214" */
static void pool_stats(struct seq_file *m)
{
	seq_printf(m, "pool free %lu per_cpu %u allocated %ld\n",
		   leak_pool_free_count(&leak_pool), READ_ONCE(leak_pool.size),
		   atomic_long_read(&leak_pool.allocated));
}

const struct leak_part leak_pool_part = {
	.step = { "record pool", pool_part_init, pool_part_exit },
	.stats = pool_stats,
};
