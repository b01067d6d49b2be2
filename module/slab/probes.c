// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: the kmem tracepoint probes, and attaching them.
 *
 * An allocation from a traced cache (tracepoints kmem_cache_alloc and
 * kmalloc) gets a record; a free (kmem_cache_free, kfree) drops its object's
 * record, whichever cache holds it, traced or stopped.  An allocation of an
 * address that still has a record drops that record too, whatever cache it
 * is in: its object was freed through a path with no tracepoint (bulk
 * frees, kfree_rcu() batches).  So both kinds of probe stay attached while
 * some cache is traced or some record is kept, and with nothing to do no
 * probe is attached at all.  An object allocated with no tracepoint either
 * (bulk) at a stale record's address is seen when it is freed: by
 * kmem_cache_free() of another cache, the record is counted as replaced
 * too (kfree() does not say the cache).
 *
 * Two names trace what has no cache.  "kmalloc-large": a kmalloc() bigger
 * than the biggest kmalloc cache is served by the page allocator, and the
 * kmalloc tracepoint fires with no cache (bytes_alloc above
 * KMALLOC_MAX_CACHE_SIZE); kfree() fires the kfree tracepoint before it
 * tells pages from slab objects, on v6.1 and v6.12.  v6.12's
 * __do_kmalloc_node() fires kmalloc twice for one such object (once in
 * __kmalloc_large_node_noprof(), once with the caller's address): the
 * second record replaces the first, not counted as replaced; a second
 * event that finds no record to take (the limit, an empty pool) leaves
 * the first in place, counting nothing.  One after a "stop" that landed
 * between the two evicts the first, counted as replaced, as it evicts a
 * stale record at a reused address (freed where no tracepoint fires):
 * the two cannot be told apart, and a stale record kept would show a
 * freed object as outstanding.  "percpu":
 * alloc_percpu() and free_percpu() fire percpu_alloc_percpu and
 * percpu_free_percpu (same prototypes on v6.1 and v6.12), which are not
 * exported: they are found by name with for_each_kernel_tracepoint() and
 * attached while "percpu" is in the set.  A percpu pointer is an offset,
 * never a slab object's address: both share the table.
 *
 * A probe runs inside the allocation or free it traces, under the caller's
 * locks, with preemption disabled, in any context: it takes its record from
 * the per-CPU pool (pool.c), saves its stack in the depot without letting
 * it allocate (stacks.c), copies who made it into the record (context.c),
 * and takes no lock but raw spinlocks; it never allocates and
 * never waits.  What it cannot do it counts (enum leak_drop) and asks
 * the worker (worker.c) for work: refills, growing the table, detaching
 * idle probes.  In NMI it does nothing but count.
 *
 * An allocation costs one lookup of its cache in the traced set, a hash
 * table, whatever the number of caches traced ("start all": every one).
 * A free of an object no cache holds costs one lock-free check of the
 * table (leak_table_maybe()); a free of a traced object takes one
 * stripe lock.  slabtrace's own allocations are not recorded: kmemleak
 * hides its metadata too.
 *
 * Notes on locking
 * ----------------
 * - leak_mutex: attaching and detaching (alloc_on, free_on, exiting).
 * - The probes run with preemption disabled, the tracepoints' contract
 *   (kept by the probes themselves where 7.x's tracepoints do not, by
 *   <wrapper/tracepoint.h>), and
 *   read leak_active (traced.c) under RCU, and, for a cache not in
 *   it, leak_follow_skip (follow.c); they take the raw spinlocks of the
 *   table (table.c), the pool (pool.c) and the stack slot (stacks.c), one
 *   at a time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hardirq.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <trace/events/kmem.h>
#include <trace/events/percpu.h>

#include <wrapper/cgroup.h>
#include <wrapper/kmalloc.h>
#include <wrapper/module.h>
#include <wrapper/percpu.h>
#include <wrapper/tracepoint.h>
#include <wrapper/unwind.h>
#include <slabtrace/core.h>

#include "context.h"
#include "follow.h"
#include "lifetime.h"
#include "pool.h"
#include "probes.h"
#include "record.h"
#include "sets.h"
#include "stacks.h"
#include "table.h"
#include "traced.h"
#include "worker.h"

static bool alloc_on, free_on, percpu_on, exiting;
/* Found once, by name, with leak_mutex held; never go away. */
static struct tracepoint *tp_percpu_alloc, *tp_percpu_free;

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* The tests set it to see what a probe does in NMI. */
bool leak_fake_nmi;
/* Run by a probe just before its record goes into the table. */
void (*leak_test_before_insert)(void);
/* Run by leak_probes_update() once it has decided to detach. */
void (*leak_test_before_detach)(void);
/* A failure hook: attaching the alloc probes fails with -ENOMEM. */
bool leak_fail_attach;
#endif

static __always_inline bool probe_in_nmi(void)
{
#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
	if (READ_ONCE(leak_fake_nmi))
		return true;
#endif
	return in_nmi();
}

static __always_inline void drop(struct leak_traced *tr,
				 enum leak_drop why)
{
	atomic_long_inc(&tr->drops[why]);
}

/*
 * make bench-peers' rows without the verdicts' counting (slabtrace:*-nolife)
 * load a build of the module with SLABTRACE_NO_LIFETIME=1 (Kbuild): the
 * free path's cost of the lifetimes, measured against the module's own.
 */
#ifndef SLABTRACE_NO_LIFETIME
#define SLABTRACE_NO_LIFETIME 0
#endif

/*
 * A record leaves the table: give it back, and maybe let the probes go.
 * It was @stale, or its address was freed from cache @from (NULL: not
 * known), which is stale too if @from is not its cache: the object there
 * was another cache's, allocated where no tracepoint saw it (bulk).
 * Unless it was a second record of one object (not @lived), its object's
 * lifetime counts for its stack's verdict (lifetime.c): a stale record's
 * is longer than it was, up to the reuse of the address.
 */
static void record_gone(struct leak_set *set,
			struct leak_record *rec, bool stale,
			const struct kmem_cache *from, bool lived)
{
	struct leak_traced *tr = NULL;
	u32 now;

	if (set)
		tr = leak_traced_of_id(set, rec->owner);
	/*
	 * A record with no stack (its trace not saved, or deferred and not
	 * saved yet) is of no stack the verdicts judge (verdict.c).
	 */
	if (tr && lived && rec->stack && !SLABTRACE_NO_LIFETIME) {
		now = leak_stamp(tr, ktime_get_mono_fast_ns());
		leak_lifetime_add(rec->stack, rec->syscall, rec->owner,
				  now > rec->stamp ? now - rec->stamp : 0);
	}
	if (tr && (stale || (from && from != tr->ref.cache)))
		atomic_long_inc(&tr->replaced);
	/*
	 * A stopped cache's last record: maybe detach the probes.  One that
	 * still reads it traced ends before leak_stop()'s grace period does,
	 * so the probes' update after it sees the record gone.
	 */
	if (tr && !READ_ONCE(tr->tracing) && !leak_traced_count(tr))
		leak_work_kick(LEAK_JOB_IDLE);
	leak_pool_put(&leak_pool, rec);
}

/* A new object at @obj: a record any cache holds for that address is stale. */
static __always_inline void evict(struct leak_set *set, const void *obj)
{
	struct leak_record *stale;

	if (likely(!leak_table_maybe(&leak_records, obj)) ||
	    probe_in_nmi())
		return;
	stale = leak_table_remove(&leak_records, obj);
	if (stale)
		record_gone(set, stale, true, NULL, true);
}

/*
 * Whether the filter of "start CACHE pid|comm|cgroup ..." lets the current
 * allocation be recorded: a task's only, never an interrupt's.  No lock,
 * nothing that scales with the traced set: before any stack walk.
 */
static __always_inline bool filter_passes(const struct leak_filter *f)
{
	unsigned int i;

	if (!in_task())
		return false;
	switch (f->kind) {
	case LEAK_FILTER_PID:
		for (i = 0; i < f->npids; i++)
			if (f->tgid[i] == current->tgid)
				return true;
		return false;
	case LEAK_FILTER_COMM:
		/* Both NUL-padded: f->comm by strscpy_pad(), comm by the kernel. */
		return !memcmp(current->comm, f->comm, TASK_COMM_LEN);
	default:
		return slabtrace_current_in_cgroup(f->cgroup);
	}
}

/*
 * "sample N": whether this allocation is one of the 1 in N recorded.  A
 * Bernoulli draw with p = 1/N from a per-CPU xorshift32 (Marsaglia, "Xorshift
 * RNGs", 2003), seeded at start: no lock, no get_random_u32() (not for NMI,
 * nor under some raw locks on PREEMPT_RT).  (u64)x * N >> 32 maps x
 * evenly onto 0..N-1.  So each record stands for N allocations on
 * average, and N times the records estimates the outstanding objects
 * without bias, whatever the allocations' order.  An NMI racing the state
 * on its CPU only repeats a draw.  kmalloc-large's draw is a hash of the
 * object's address and a seed of the trace instead: v6.12 fires two
 * events for one object (see the top of this file), which must agree, or
 * the record of a sampled first would be evicted by an unsampled second,
 * counted as replaced, after a stack walk for nothing.
 *
 * "sample-bytes B" takes the same draw, against p = 1 - exp(-bytes / B)
 * for an object of the bytes leak_obj_bytes() says it holds
 * (leak_sample_p()): an object is recorded
 * with the chance that a Poisson process of mean interval B over the bytes
 * allocated falls in it, what tcmalloc, jemalloc and Go sample by, without
 * a per-CPU count of bytes to the next sample.  Each record stands for
 * 1 / p objects (leak_weight()).
 */
static __always_inline bool sampled(struct leak_traced *tr,
				    const void *obj, size_t bytes_req)
{
	u32 n = READ_ONCE(tr->sample_every), mean = READ_ONCE(tr->sample_bytes);
	u32 x, *state;

	if (likely(n <= 1 && !mean))
		return true;
	if (tr->kind == LEAK_KIND_LARGE) {
		x = hash_64((unsigned long)obj ^ tr->sample_seed, 32);
	} else {
		state = this_cpu_ptr(tr->rng);
		x = *state;
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		*state = x;
		/*
		 * xorshift32 never yields 0: 1..2^32-1 made 0..2^32-2, or
		 * "x < p" would hold p - 1 times in 2^32 - 1, and a p of a
		 * few (sample-bytes of a GiB) weigh its records short.
		 */
		x--;
	}
	if (mean)
		return x < leak_sample_p(leak_obj_bytes(tr->kind,
							tr->object_size,
							bytes_req),
					 mean);
	return !(((u64)x * n) >> 32);
}

/*
 * An allocation slabtrace's own code made (built in, there is no telling).
 * @call_site is a return address: code, in the module's text or, while
 * the module is still coming (its init running; freed after), in its
 * init text.  Four instructions for the text, at every traced
 * allocation, where within_module() walks every memory region of the
 * module, core and init.
 */
static __always_inline bool own_alloc(unsigned long call_site)
{
#ifdef MODULE
	unsigned long start, end;

	slabtrace_module_text(THIS_MODULE, &start, &end);
	if (call_site >= start && call_site < end)
		return true;
	return unlikely(READ_ONCE(THIS_MODULE->state) == MODULE_STATE_COMING) &&
	       within_module_init(call_site, THIS_MODULE);
#else
	return false;
#endif
}

/*
 * kmalloc-large's second event of an object its first recorded: the
 * object has its record, which stays.
 */
static __always_inline bool large_again(const struct leak_traced *tr,
					const void *obj)
{
	return tr->kind == LEAK_KIND_LARGE &&
	       leak_table_maybe(&leak_records, obj) &&
	       leak_table_holds(&leak_records, obj, tr->id);
}

/*
 * @bytes_req is 0 for kmem_cache_alloc(): the cache's object size.
 * Inlined into the probes, like the walk in it: the walk starts at the
 * probe's caller (<wrapper/unwind.h>), and every frame walked costs, at every traced
 * allocation.
 */
static __always_inline void record_alloc(struct kmem_cache *s,
					 const void *obj, size_t bytes_req,
					 gfp_t gfp, unsigned long call_site)
{
	struct leak_set *set = rcu_dereference_sched(leak_active);
	/* One frame more than is kept: a walk that fills it was cut. */
	unsigned long entries[LEAK_STACK_DEPTH + 1] __uninitialized;
	const struct leak_filter *filter;
	struct leak_record *rec, *stale;
	struct leak_traced *tr;
	unsigned long end, end_size;
	enum leak_drop why;
	unsigned int nr;
	bool deep;
	u16 defer_tag;
	int stack;
	u32 stamp;

	slabtrace_assert_probe_context();
	if (!set || ZERO_OR_NULL_PTR(obj))
		return;
	tr = leak_traced_of(set, s);
	if (unlikely(!tr)) {
		/*
		 * kmem_cache_alloc(): a cache created since "start all"?
		 * Nothing to ask while "all" is not followed (no skip list).
		 */
		if (!bytes_req && rcu_access_pointer(leak_follow_skip) &&
		    !own_alloc(call_site))
			leak_follow_miss(s);
		goto evict;
	}
	/* Acquire: the rate and filter of a restart (start_again()). */
	if (!smp_load_acquire(&tr->tracing) || own_alloc(call_site))
		goto evict;
	filter = rcu_dereference_sched(tr->filter);
	if (filter && !filter_passes(filter)) {
		this_cpu_inc(*tr->filtered);
		goto evict;
	}
	if (unlikely(!sampled(tr, obj, bytes_req)))
		goto evict;
	if (unlikely(probe_in_nmi())) {
		drop(tr, LEAK_DROP_NMI);
		return;
	}
	if (unlikely(leak_table_count(&leak_records) >=
		     READ_ONCE(leak_record_limit) ||
		     leak_table_full(&leak_records))) {
		why = LEAK_DROP_LIMIT;
		goto lost;
	}
	rec = leak_pool_get(&leak_pool);
	if (unlikely(!rec)) {
		why = LEAK_DROP_POOL;
		goto lost;
	}
	stamp = leak_stamp(tr, ktime_get_mono_fast_ns());
	rec->obj = obj;
	rec->owner = tr->id;
	rec->stamp = stamp;
	rec->bytes_req = bytes_req ?: tr->object_size;
	rec->gfp = (__force u32)gfp;
	rec->node = tr->kind == LEAK_KIND_PERCPU ? NUMA_NO_NODE :
		    page_to_nid(virt_to_page(obj));
	end = READ_ONCE(leak_walk_end);
	end_size = READ_ONCE(leak_walk_end_size);
	nr = slabtrace_stack_walk_caller(entries, ARRAY_SIZE(entries), end,
					 end_size);
	/*
	 * Cut: the walk filled the room, and did not end there at its end
	 * (x86's do_syscall_64()), nor is what was cut beyond an
	 * interrupt's entry, which the trace ends at anyway.
	 */
	deep = nr > LEAK_STACK_DEPTH &&
	       entries[LEAK_STACK_DEPTH] - end >= end_size;
	nr = min_t(unsigned int, nr, LEAK_STACK_DEPTH);
	if (unlikely(deep) && !in_task() &&
	    filter_irq_stacks(entries, nr) < nr)
		deep = false;
	stack = leak_stack_store(rec, entries, nr, call_site);
	if (unlikely(stack == -EPERM)) {
		/* Made through slabtrace's own code: not recorded. */
		atomic_long_inc(&tr->own);
		leak_pool_put(&leak_pool, rec);
		goto evict;
	}
	if (unlikely(stack == -ENODATA))
		drop(tr, LEAK_DROP_WALK);
	else if (unlikely(deep))
		drop(tr, LEAK_DROP_DEEP);
	leak_ctx_fill(rec);
	/* Read while @rec is ours: once inserted it may be freed. */
	defer_tag = rec->who.defer_tag;
#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
	if (leak_test_before_insert)
		leak_test_before_insert();
#endif
	stale = leak_table_insert(&leak_records, rec);
	/* kmalloc-large's second event of one object: not stale. */
	if (stale) {
		bool again = tr->kind == LEAK_KIND_LARGE &&
			     stale->owner == tr->id;

		record_gone(set, stale, !again, NULL, !again);
	}
	/*
	 * The depot had no room: the trace is saved later, for a record the
	 * work finds in the table, so only now (@rec may be freed already:
	 * it is named by its identity and its defer tag).
	 */
	if (unlikely(stack == -EAGAIN) &&
	    !leak_stack_defer(obj, tr->id, stamp, defer_tag, entries, nr,
			      call_site))
		drop(tr, LEAK_DROP_STACK);
	return;
lost:
	if (large_again(tr, obj))
		return;
	drop(tr, why);
evict:
	evict(set, obj);
}

/* Any cache's record of @obj goes: @obj, of cache @s if known, is free. */
static __always_inline void record_free(const void *obj,
					const struct kmem_cache *s)
{
	struct leak_record *rec;

	slabtrace_assert_probe_context();
	if (ZERO_OR_NULL_PTR(obj) ||
	    likely(!leak_table_maybe(&leak_records, obj)))
		return;
	/* Locks cannot be taken in NMI: replaced at the address's reuse. */
	if (unlikely(probe_in_nmi()))
		return;
	rec = leak_table_remove(&leak_records, obj);
	if (rec)
		record_gone(rcu_dereference_sched(leak_active), rec,
			    false, s, true);
}

/*
 * The alloc probes' walk starts from their own return address
 * (<wrapper/unwind.h>): neither ftrace's function graph nor a kretprobe may replace
 * it on the stack, so they are notrace and off limits to kprobes.
 */
static notrace void leak_probe_kmem_cache_alloc(void *data,
						unsigned long call_site,
						const void *ptr,
						struct kmem_cache *s,
						gfp_t gfp_flags, int node)
{
	slabtrace_tp_begin();
	record_alloc(s, ptr, 0, gfp_flags, call_site);
	slabtrace_tp_end();
}

NOKPROBE_SYMBOL(leak_probe_kmem_cache_alloc);

static notrace void leak_probe_kmalloc(void *data,
				       unsigned long call_site,
				       const void *ptr, size_t bytes_req,
				       size_t bytes_alloc,
				       gfp_t gfp_flags, int node)
{
	struct kmem_cache *s;

	slabtrace_tp_begin();
	s = slabtrace_kmalloc_cache(bytes_req, gfp_flags, call_site);
	if (!s && bytes_alloc > KMALLOC_MAX_CACHE_SIZE)
		s = leak_pseudo_cache(LEAK_KIND_LARGE);
	if (s)
		record_alloc(s, ptr, bytes_req, gfp_flags, call_site);
	else
		evict(rcu_dereference_sched(leak_active), ptr);
	slabtrace_tp_end();
}

NOKPROBE_SYMBOL(leak_probe_kmalloc);

static void leak_probe_kfree(void *data, unsigned long call_site,
			     const void *ptr)
{
	slabtrace_tp_begin();
	record_free(ptr, NULL);
	slabtrace_tp_end();
}

static void leak_probe_kmem_cache_free(void *data,
				       unsigned long call_site,
				       const void *ptr,
				       const struct kmem_cache *s)
{
	slabtrace_tp_begin();
	record_free(ptr, s);
	slabtrace_tp_end();
}

static notrace void leak_probe_percpu_alloc(void *data,
					    unsigned long call_site,
					    bool reserved, bool is_atomic,
					    size_t size, size_t align,
					    void *base_addr, int off,
					    void __percpu *ptr,
					    size_t bytes_alloc,
					    gfp_t gfp_flags)
{
	slabtrace_tp_begin();
	record_alloc(leak_pseudo_cache(LEAK_KIND_PERCPU),
		     slabtrace_percpu_key(ptr), size, gfp_flags, call_site);
	slabtrace_tp_end();
}

NOKPROBE_SYMBOL(leak_probe_percpu_alloc);

static void leak_probe_percpu_free(void *data, void *base_addr, int off,
				   void __percpu *ptr)
{
	slabtrace_tp_begin();
	record_free(slabtrace_percpu_key(ptr),
		    leak_pseudo_cache(LEAK_KIND_PERCPU));
	slabtrace_tp_end();
}

/*
 * The percpu tracepoints are not exported: their probes are registered
 * with tracepoint_probe_register(), which takes a function of any type.
 * This function, never called nor emitted, has the compiler check the
 * probes' types against the tracepoints' declarations, so that a kernel
 * that changes them fails the build instead of keying records by the
 * wrong argument.
 */
static inline void __maybe_unused leak_percpu_probe_types(void)
{
	register_trace_percpu_alloc_percpu(leak_probe_percpu_alloc, NULL);
	register_trace_percpu_free_percpu(leak_probe_percpu_free, NULL);
}

static void find_percpu(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "percpu_alloc_percpu"))
		tp_percpu_alloc = tp;
	else if (!strcmp(tp->name, "percpu_free_percpu"))
		tp_percpu_free = tp;
}

/* Free before alloc on, alloc before free off.  leak_mutex held. */
static int percpu_probes(bool on)
{
	int ret;

	lockdep_assert_held(&leak_mutex);
	if (!on) {
		tracepoint_probe_unregister(tp_percpu_alloc,
					    (void *)leak_probe_percpu_alloc,
					    NULL);
		tracepoint_probe_unregister(tp_percpu_free,
					    (void *)leak_probe_percpu_free,
					    NULL);
		return 0;
	}
	if (!tp_percpu_alloc || !tp_percpu_free)
		for_each_kernel_tracepoint(find_percpu, NULL);
	if (!tp_percpu_alloc || !tp_percpu_free) {
		pr_warn_ratelimited("start: percpu: this kernel has no percpu_alloc_percpu or percpu_free_percpu tracepoint\n");
		return -EOPNOTSUPP;
	}
	ret = tracepoint_probe_register(tp_percpu_free,
					(void *)leak_probe_percpu_free,
					NULL);
	if (ret)
		return ret;
	ret = tracepoint_probe_register(tp_percpu_alloc,
					(void *)leak_probe_percpu_alloc,
					NULL);
	if (ret)
		tracepoint_probe_unregister(tp_percpu_free,
					    (void *)leak_probe_percpu_free,
					    NULL);
	return ret;
}

static int alloc_probes(bool on)
{
	int ret;

	if (!on) {
		unregister_trace_kmalloc(leak_probe_kmalloc, NULL);
		unregister_trace_kmem_cache_alloc(leak_probe_kmem_cache_alloc,
						  NULL);
		return 0;
	}
	leak_stack_find_end();
	ret = register_trace_kmem_cache_alloc(leak_probe_kmem_cache_alloc,
					      NULL);
	if (ret)
		return ret;
	ret = register_trace_kmalloc(leak_probe_kmalloc, NULL);
	if (ret)
		unregister_trace_kmem_cache_alloc(leak_probe_kmem_cache_alloc,
						  NULL);
	return ret;
}

static int free_probes(bool on)
{
	int ret;

	if (!on) {
		unregister_trace_kmem_cache_free(leak_probe_kmem_cache_free,
						 NULL);
		unregister_trace_kfree(leak_probe_kfree, NULL);
		return 0;
	}
	ret = register_trace_kfree(leak_probe_kfree, NULL);
	if (ret)
		return ret;
	ret = register_trace_kmem_cache_free(leak_probe_kmem_cache_free,
					     NULL);
	if (ret)
		unregister_trace_kfree(leak_probe_kfree, NULL);
	return ret;
}

/* The records the kmem probes keep: all but @pcpu's (NULL: none). */
static long kmem_records(struct leak_traced *pcpu)
{
	return leak_table_count_except(&leak_records, pcpu ? pcpu->id : -1);
}

/**
 * leak_probes_update - attach exactly the probes the set needs
 *
 * Both kinds while some cache is traced or some record is kept (the alloc
 * probes evict stale records); none otherwise, and then the pool goes back
 * to the slab.  Free probes go on before alloc probes and off after them.
 * An alloc probe that read tr->tracing before a "stop" cleared it may
 * still insert a record after the count was read here: once the alloc
 * probes are off and every probe that ran has finished, the count is read
 * again, and while records are kept the free probes stay (the last free
 * of a stopped cache's records detaches them, through the worker).  So no
 * record is left whose free would go unseen.  The percpu probes are
 * attached while "percpu" is in the set (traced, or stopped until its
 * reset, whether it holds records or not), and its records do not keep
 * the kmem probes.  Called with
 * leak_mutex held.
 *
 * Return: 0, or the error of a tracepoint registration.
 */
int leak_probes_update(void)
{
	struct leak_traced *pcpu = NULL;
	struct leak_set *set;
	bool want = false, detached = false;
	unsigned int i;
	int ret;

	lockdep_assert_held(&leak_mutex);
	if (exiting)
		return 0;
	set = rcu_dereference_protected(leak_active,
					lockdep_is_held(&leak_mutex));
	for (i = 0; set && i < set->nr; i++) {
		if (set->traced[i]->kind == LEAK_KIND_PERCPU)
			pcpu = set->traced[i];
		else
			want |= set->traced[i]->tracing;
	}
	if (pcpu && !percpu_on) {
		ret = percpu_probes(true);
		if (ret)
			return ret;
		percpu_on = true;
	}
	if (!pcpu && percpu_on) {
		percpu_probes(false);
		percpu_on = false;
		/* No percpu probe uses the pool's lists any more. */
		tracepoint_synchronize_unregister();
		detached = true;
	}
	want |= kmem_records(pcpu) > 0;

	if (want && !free_on) {
		ret = free_probes(true);
		if (ret)
			return ret;
		free_on = true;
	}
	if (want && !alloc_on) {
#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
		if (READ_ONCE(leak_fail_attach))
			return -ENOMEM;
#endif
		ret = alloc_probes(true);
		if (ret)
			return ret;
		alloc_on = true;
	}
#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
	if (!want && alloc_on && leak_test_before_detach)
		leak_test_before_detach();
#endif
	if (!want && alloc_on) {
		alloc_probes(false);
		alloc_on = false;
		/* No alloc probe runs any more: what they inserted is there. */
		tracepoint_synchronize_unregister();
		want = kmem_records(pcpu) > 0;
	}
	if (!want && free_on) {
		free_probes(false);
		free_on = false;
		/* No probe uses the pool's lists any more. */
		tracepoint_synchronize_unregister();
		detached = true;
	}
	if (detached && !alloc_on && !free_on && !percpu_on)
		leak_pool_drain(&leak_pool);
	return 0;
}

/* Whether the alloc and the free probes are attached (stats and status). */
void leak_probes_state(bool *alloc, bool *free)
{
	mutex_lock(&leak_mutex);
	*alloc = alloc_on;
	*free = free_on;
	mutex_unlock(&leak_mutex);
}

#if LEAK_TESTS
/* Wait for the work that detaches idle probes (for the tests). */
void leak_probes_idle(void)
{
	leak_work_flush();
}
#endif

/*
 * At module exit: detach everything for good and wait until no probe runs,
 * so that what they use can be freed.  A queued idle work must not attach
 * them again: @exiting stops it.
 */
static void probes_exit(void)
{
	mutex_lock(&leak_mutex);
	exiting = true;
	if (alloc_on)
		alloc_probes(false);
	if (free_on)
		free_probes(false);
	if (percpu_on)
		percpu_probes(false);
	alloc_on = false;
	free_on = false;
	percpu_on = false;
	mutex_unlock(&leak_mutex);
	tracepoint_synchronize_unregister();
}

/* "probes alloc on free on" */
static void probes_stats(struct seq_file *m)
{
	bool alloc, free;

	leak_probes_state(&alloc, &free);
	seq_printf(m, "probes alloc %s free %s\n", alloc ? "on" : "off",
		   free ? "on" : "off");
}

const struct leak_part leak_probes_part = {
	.step = { "probes", NULL, probes_exit },
	.stats = probes_stats,
};
