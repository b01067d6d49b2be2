// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: the kmem tracepoint probes, and attaching them.
 *
 * An allocation from a traced cache (tracepoints kmem_cache_alloc and
 * kmalloc) gets a record; a free (kmem_cache_free, kfree) drops its object's
 * record from whichever cache of the set holds it, traced or stopped.  The
 * alloc probes are attached while some cache is traced, the free probes
 * while some cache is traced or holds records: with nothing to do, no probe
 * is attached at all.
 *
 * slabtrace's own allocations are not recorded: kmemleak hides its
 * metadata too, and the user would see slabtrace's names and tables among
 * the leaks.  A probe can recurse: it allocates a record, and the context
 * table and the stack depot may allocate.  A per-CPU mask with one bit per
 * context level (task, softirq, hardirq, NMI), as ftrace's recursion
 * protection has, lets each level in once: an interrupt that arrives
 * inside a probe is still traced, a probe's own allocations are not.
 *
 * A probe runs inside whatever allocation or free it traces, under the
 * caller's locks: it never sleeps, allocates with flags derived from the
 * caller's (probe_gfp()), and asks for work (growing a table, detaching
 * idle probes) through an irq_work, never queue_work() itself.
 *
 * Notes on locking
 * ----------------
 * - slabtrace_mutex: attaching and detaching (alloc_on, free_on, exiting).
 * - The probes run with preemption disabled, the tracepoints' contract, and
 *   read slabtrace_active under RCU; they take no lock but the tables'
 *   stripe locks (table.c) and the context table's (context.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <trace/events/kmem.h>

#include <slabtrace/compat.h>
#include <slabtrace/slabtrace.h>

static DEFINE_PER_CPU(unsigned int, probe_busy);
static bool alloc_on, free_on, exiting;

static void idle_work_fn(struct work_struct *work);
static DECLARE_WORK(idle_work, idle_work_fn);

/* A probe may hold any lock, the workqueue's too: it kicks an irq_work. */
static void idle_kick_fn(struct irq_work *work)
{
	schedule_work(&idle_work);
}

static struct irq_work idle_kick = IRQ_WORK_INIT(idle_kick_fn);

/*
 * What the probes may allocate with, given the traced allocation's flags:
 * never sleep (a probe runs with preemption disabled), never dip into the
 * reserves, and wake kswapd only if the caller would have (callers that
 * hold the scheduler's locks clear __GFP_KSWAPD_RECLAIM), like kmemleak's
 * gfp_nested_mask().
 */
static __always_inline gfp_t probe_gfp(gfp_t gfp)
{
	return (gfp & (__GFP_KSWAPD_RECLAIM | __GFP_NOLOCKDEP)) |
	       __GFP_NOWARN | __GFP_NOMEMALLOC;
}

/* Enter the probe at this context level, unless already in it. */
static __always_inline bool guard_enter(unsigned int *bit)
{
	*bit = BIT(interrupt_context_level());
	if (this_cpu_read(probe_busy) & *bit)
		return false;
	this_cpu_or(probe_busy, *bit);
	return true;
}

static __always_inline void guard_exit(unsigned int bit)
{
	this_cpu_and(probe_busy, ~bit);
}

static struct slabtrace_traced *traced_of(struct slabtrace_set *set,
					  const struct kmem_cache *s)
{
	unsigned int i;

	for (i = 0; i < set->nr; i++)
		if (set->traced[i]->ref.cache == s)
			return set->traced[i];
	return NULL;
}

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* The tests set it to see allocation failures handled. */
bool slabtrace_fail_record_alloc;
#endif

static struct slabtrace_record *record_new(gfp_t gfp)
{
#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
	if (READ_ONCE(slabtrace_fail_record_alloc))
		return NULL;
#endif
	return kmem_cache_alloc(slabtrace_record_cache, gfp);
}

/*
 * A new object at @obj: a record other caches hold for that address is
 * stale, its object freed through a path with no tracepoint (a bulk or
 * kfree_rcu() batch free) before the slab page went to another cache.
 */
void slabtrace_evict_elsewhere(struct slabtrace_set *set,
			       struct slabtrace_traced *tr, const void *obj)
{
	struct slabtrace_record *stale;
	unsigned int i;

	for (i = 0; i < set->nr; i++) {
		if (set->traced[i] == tr ||
		    !slabtrace_table_count(&set->traced[i]->table))
			continue;
		stale = slabtrace_table_remove(&set->traced[i]->table, obj);
		if (stale) {
			atomic_long_inc(&set->traced[i]->replaced);
			kmem_cache_free(slabtrace_record_cache, stale);
		}
	}
}

/* An allocation slabtrace's own code made (built in, there is no telling). */
static __always_inline bool own_alloc(unsigned long call_site)
{
#ifdef MODULE
	return within_module(call_site, THIS_MODULE);
#else
	return false;
#endif
}

/*
 * @bytes_req is 0 for kmem_cache_alloc(): the cache's object size.
 * Inlined, like the walk in it: every frame between the tracepoint and
 * stack_trace_save() is walked for nothing, at every traced allocation.
 */
static __always_inline void record_alloc(struct kmem_cache *s,
					 const void *obj, size_t bytes_req,
					 unsigned long call_site, gfp_t gfp)
{
	struct slabtrace_set *set = rcu_dereference_sched(slabtrace_active);
	unsigned long entries[SLABTRACE_STACK_DEPTH];
	struct slabtrace_record *rec, *stale;
	struct slabtrace_traced *tr;
	unsigned int bit, nr;

	if (!set || ZERO_OR_NULL_PTR(obj))
		return;
	tr = traced_of(set, s);
	if (!tr || !READ_ONCE(tr->tracing) || own_alloc(call_site) ||
	    !guard_enter(&bit))
		return;

	gfp = probe_gfp(gfp);
	rec = record_new(gfp);
	if (unlikely(!rec)) {
		atomic_long_inc(&tr->dropped);
		goto out;
	}
	rec->obj = obj;
	rec->stamp = slabtrace_stamp(tr, ktime_get_mono_fast_ns());
	rec->bytes_req = bytes_req ?: tr->object_size;
	nr = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	rec->stack = slabtrace_stack_store(entries, nr, call_site, gfp);
	slabtrace_ctx_fill(rec, gfp);
	if (set->nr > 1)
		slabtrace_evict_elsewhere(set, tr, obj);
	stale = slabtrace_table_insert(&tr->table, rec);
	if (stale) {
		atomic_long_inc(&tr->replaced);
		kmem_cache_free(slabtrace_record_cache, stale);
	}
out:
	guard_exit(bit);
}

/* @s is NULL for kfree(): look in every cache. */
static void record_free(const struct kmem_cache *s, const void *obj)
{
	struct slabtrace_set *set = rcu_dereference_sched(slabtrace_active);
	struct slabtrace_record *rec;
	struct slabtrace_traced *tr;
	unsigned int i, bit;

	if (!set || ZERO_OR_NULL_PTR(obj) || !guard_enter(&bit))
		return;
	for (i = 0; i < set->nr; i++) {
		tr = set->traced[i];
		if ((s && tr->ref.cache != s) ||
		    !slabtrace_table_count(&tr->table))
			continue;
		rec = slabtrace_table_remove(&tr->table, obj);
		if (!rec)
			continue;
		kmem_cache_free(slabtrace_record_cache, rec);
		/* A stopped cache's last record: maybe detach the probes. */
		if (!READ_ONCE(tr->tracing) &&
		    !slabtrace_table_count(&tr->table))
			irq_work_queue(&idle_kick);
		break;
	}
	guard_exit(bit);
}

static void slabtrace_probe_kmem_cache_alloc(void *data,
					     unsigned long call_site,
					     const void *ptr,
					     struct kmem_cache *s,
					     gfp_t gfp_flags, int node)
{
	record_alloc(s, ptr, 0, call_site, gfp_flags);
}

static void slabtrace_probe_kmalloc(void *data, unsigned long call_site,
				    const void *ptr, size_t bytes_req,
				    size_t bytes_alloc, gfp_t gfp_flags,
				    int node)
{
	struct kmem_cache *s;

	s = slabtrace_kmalloc_cache(bytes_req, gfp_flags, call_site);
	if (s)
		record_alloc(s, ptr, bytes_req, call_site, gfp_flags);
}

static void slabtrace_probe_kfree(void *data, unsigned long call_site,
				  const void *ptr)
{
	record_free(NULL, ptr);
}

static void slabtrace_probe_kmem_cache_free(void *data,
					    unsigned long call_site,
					    const void *ptr,
					    const struct kmem_cache *s)
{
	record_free(s, ptr);
}

static int alloc_probes(bool on)
{
	int ret;

	if (!on) {
		unregister_trace_kmalloc(slabtrace_probe_kmalloc, NULL);
		unregister_trace_kmem_cache_alloc(slabtrace_probe_kmem_cache_alloc,
						  NULL);
		return 0;
	}
	ret = register_trace_kmem_cache_alloc(slabtrace_probe_kmem_cache_alloc,
					      NULL);
	if (ret)
		return ret;
	ret = register_trace_kmalloc(slabtrace_probe_kmalloc, NULL);
	if (ret)
		unregister_trace_kmem_cache_alloc(slabtrace_probe_kmem_cache_alloc,
						  NULL);
	return ret;
}

static int free_probes(bool on)
{
	int ret;

	if (!on) {
		unregister_trace_kmem_cache_free(slabtrace_probe_kmem_cache_free,
						 NULL);
		unregister_trace_kfree(slabtrace_probe_kfree, NULL);
		return 0;
	}
	ret = register_trace_kfree(slabtrace_probe_kfree, NULL);
	if (ret)
		return ret;
	ret = register_trace_kmem_cache_free(slabtrace_probe_kmem_cache_free,
					     NULL);
	if (ret)
		unregister_trace_kfree(slabtrace_probe_kfree, NULL);
	return ret;
}

/**
 * slabtrace_probes_update - attach exactly the probes the set needs
 *
 * Free probes go on before alloc probes and off after them, so no record is
 * made whose free could go unseen.  Called with slabtrace_mutex held.
 *
 * Return: 0, or the error of a tracepoint registration.
 */
int slabtrace_probes_update(void)
{
	struct slabtrace_set *set;
	bool want_alloc = false, want_free = false;
	unsigned int i;
	int ret;

	lockdep_assert_held(&slabtrace_mutex);
	if (exiting)
		return 0;
	set = rcu_dereference_protected(slabtrace_active,
					lockdep_is_held(&slabtrace_mutex));
	for (i = 0; set && i < set->nr; i++)
		want_alloc |= set->traced[i]->tracing;
	if (alloc_on && !want_alloc) {
		alloc_probes(false);
		alloc_on = false;
		/* Now no alloc probe can add a record behind our back. */
		tracepoint_synchronize_unregister();
	}
	for (i = 0; set && i < set->nr; i++)
		want_free |= set->traced[i]->tracing ||
			     slabtrace_table_count(&set->traced[i]->table);

	if (want_free && !free_on) {
		ret = free_probes(true);
		if (ret)
			return ret;
		free_on = true;
	}
	if (want_alloc && !alloc_on) {
		ret = alloc_probes(true);
		if (ret)
			return ret;
		alloc_on = true;
	}
	if (!want_free && free_on) {
		free_probes(false);
		free_on = false;
	}
	return 0;
}

static void idle_work_fn(struct work_struct *work)
{
	mutex_lock(&slabtrace_mutex);
	slabtrace_probes_update();
	mutex_unlock(&slabtrace_mutex);
}

/* Whether the alloc and the free probes are attached (for the tests). */
void slabtrace_probes_state(bool *alloc, bool *free)
{
	mutex_lock(&slabtrace_mutex);
	*alloc = alloc_on;
	*free = free_on;
	mutex_unlock(&slabtrace_mutex);
}

/* Wait for the work that detaches idle probes (for the tests). */
void slabtrace_probes_idle(void)
{
	irq_work_sync(&idle_kick);
	flush_work(&idle_work);
}

/*
 * At module exit: detach everything for good and wait until no probe runs,
 * so that what they use can be freed.  A queued idle work must not attach
 * them again: @exiting stops it.
 */
void slabtrace_probes_exit(void)
{
	mutex_lock(&slabtrace_mutex);
	exiting = true;
	if (alloc_on)
		alloc_probes(false);
	if (free_on)
		free_probes(false);
	alloc_on = false;
	free_on = false;
	mutex_unlock(&slabtrace_mutex);
	tracepoint_synchronize_unregister();
	irq_work_sync(&idle_kick);
	cancel_work_sync(&idle_work);
}
