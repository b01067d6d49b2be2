// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: the caches being traced, or stopped and still holding records,
 * and the commands that change them: start, stop, reset.
 *
 * The probes find an event's traced cache in slab_trace_active, a small array
 * published with RCU and replaced whole when a cache comes or goes.  A cache
 * stays in it after "stop", so frees keep dropping its records, until
 * "reset" or until the cache is destroyed.
 *
 * The records of every cache are in one table (table.c); each names its
 * cache by a small id, its owner, given out here and taken back once the
 * cache's records are purged.
 *
 * A traced cache may have a filter ("start CACHE pid|comm|cgroup ..."),
 * which the probes read under RCU: a new one replaces it, and the old one
 * goes after a grace period (call_rcu(); rcu_barrier() at exit).
 *
 * Notes on locking
 * ----------------
 * - slab_trace_mutex: the set, owner_ids, and every field of a traced cache
 *   but its counters.  The probes read the set and tr->filter under RCU
 *   (they run with preemption disabled) and tr->tracing with READ_ONCE().
 * - A traced cache is freed only after it left the set and
 *   tracepoint_synchronize_unregister() waited for every probe that could
 *   still hold it; then no probe can make a record with its id, and its
 *   records are purged before the id is given out again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>

#include <slabtrace/compat.h>

#include "slab.h"

struct slab_trace_set __rcu *slab_trace_active;
static DECLARE_BITMAP(owner_ids, SLAB_TRACE_MAX_OWNERS);
const char slab_trace_pseudo[SLAB_TRACE_KINDS];

/*
 * The names of what the kmem tracepoints see with no cache behind it, in
 * the kernel's words: kmalloc_large() (v6.1; __kmalloc_large_noprof() in
 * v6.12) and free_large_kmalloc() serve a kmalloc() bigger than the
 * biggest kmalloc cache from the page allocator; alloc_percpu() and
 * free_percpu() fire the percpu tracepoints.  No slab cache has either
 * name (a kmalloc cache's ends in its size).
 */
static const char *const pseudo_names[SLAB_TRACE_KINDS] = {
	[SLAB_TRACE_KIND_LARGE] = "kmalloc-large",
	[SLAB_TRACE_KIND_PERCPU] = "percpu",
};

/**
 * slab_trace_resolve - what a name a command gives stands for
 * @cmd: the command asking, for the log
 * @name: a cache name, or "kmalloc-large" or "percpu"
 * @ref: filled in as slabtrace_cache_resolve() does; for the two names
 *	 that are no cache, with slab_trace_pseudo_cache() of their kind and
 *	 no kobject
 * @kind: set to what @name stands for (enum slab_trace_kind)
 *
 * Return: 0, or the error of slabtrace_cache_resolve(), said in the log.
 */
int slab_trace_resolve(const char *cmd, const char *name,
		       struct slabtrace_cache_ref *ref, u8 *kind)
{
	unsigned int k;

	for (k = SLAB_TRACE_KIND_LARGE; k < SLAB_TRACE_KINDS; k++) {
		if (strcmp(name, pseudo_names[k]))
			continue;
		memset(ref, 0, sizeof(*ref));
		ref->cache = slab_trace_pseudo_cache(k);
		*kind = k;
		return 0;
	}
	*kind = SLAB_TRACE_KIND_CACHE;
	return slabtrace_cache_resolve(cmd, name, ref);
}

const char *const slab_trace_drop_names[SLAB_TRACE_DROP_MAX] = {
	[SLAB_TRACE_DROP_POOL] = "pool empty",
	[SLAB_TRACE_DROP_LIMIT] = "limit reached",
	[SLAB_TRACE_DROP_NMI] = "in NMI",
	[SLAB_TRACE_DROP_STACK] = "stack store full",
	[SLAB_TRACE_DROP_CTX] = "context store full",
	[SLAB_TRACE_DROP_WALK] = "stack walk empty",
};

/* A filter, and the cgroup it holds; NULL is none.  No probe may see it. */
void slab_trace_filter_free(struct slab_trace_filter *f)
{
	if (!f)
		return;
	if (f->cgroup)
		slabtrace_cgroup_put(f->cgroup);
	kfree(f);
}

static void filter_free_rcu(struct rcu_head *head)
{
	slab_trace_filter_free(container_of(head, struct slab_trace_filter, rcu));
}

/* @tr's filter becomes @f (maybe NULL); the old one goes after the probes. */
static void filter_set(struct slab_trace_traced *tr, struct slab_trace_filter *f)
{
	struct slab_trace_filter *old;

	lockdep_assert_held(&slab_trace_mutex);
	old = rcu_replace_pointer(tr->filter, f,
				  lockdep_is_held(&slab_trace_mutex));
	if (old)
		call_rcu(&old->rcu, filter_free_rcu);
}

/**
 * slab_trace_filter_text - a filter as the commands write it
 * @buf: where it goes, NUL-terminated, cut short if it does not fit
 * @size: its room
 * @f: the filter
 *
 * A name or path is escaped as every user-chosen name is (SLABTRACE_ESCAPE).
 */
void slab_trace_filter_text(char *buf, size_t size,
			    const struct slab_trace_filter *f)
{
	const char *s = f->path;
	size_t n;
	int i;

	if (f->kind == SLAB_TRACE_FILTER_PID) {
		n = scnprintf(buf, size, "pid");
		for (i = 0; i < f->npids; i++)
			n += scnprintf(buf + n, size - n, " %d", f->tgid[i]);
		return;
	}
	if (f->kind == SLAB_TRACE_FILTER_COMM)
		s = f->comm;
	n = scnprintf(buf, size, "%s ",
		      f->kind == SLAB_TRACE_FILTER_COMM ? "comm" : "cgroup");
	n += string_escape_mem(s, strlen(s), buf + n, size - n - 1,
			       SLABTRACE_ESCAPE, SLABTRACE_ESCAPE_ALSO);
	buf[min(n, size - 1)] = '\0';
}

/* Allocations @tr's filter left out. */
unsigned long slab_trace_traced_filtered(const struct slab_trace_traced *tr)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += *per_cpu_ptr(tr->filtered, cpu);
	return n;
}

/* Allocations of @tr not recorded at all. */
long slab_trace_traced_dropped(const struct slab_trace_traced *tr)
{
	long n = 0;
	int i;

	for (i = 0; i < SLAB_TRACE_DROP_LOST_MAX; i++)
		n += atomic_long_read(&tr->drops[i]);
	return n;
}

/**
 * slab_trace_traced_of_id - the traced cache whose records have owner @id
 * @set: the set, read under RCU or slab_trace_mutex
 * @id: the owner
 *
 * Return: the cache, or NULL if it left the set (its records are going).
 */
struct slab_trace_traced *slab_trace_traced_of_id(struct slab_trace_set *set,
						  u8 id)
{
	unsigned int i;

	for (i = 0; i < set->nr; i++)
		if (set->traced[i]->id == id)
			return set->traced[i];
	return NULL;
}

static struct slab_trace_set *set_locked(void)
{
	return rcu_dereference_protected(slab_trace_active,
					 lockdep_is_held(&slab_trace_mutex));
}

static unsigned int set_size(void)
{
	struct slab_trace_set *set = set_locked();

	return set ? set->nr : 0;
}

static struct slab_trace_traced *find_cache(const struct kmem_cache *s)
{
	struct slab_trace_set *set = set_locked();
	unsigned int i;

	for (i = 0; set && i < set->nr; i++)
		if (set->traced[i]->ref.cache == s)
			return set->traced[i];
	return NULL;
}

/*
 * Publish a copy of the set with @add added and @del removed (either may be
 * NULL).  Readers of the old set may go on until a grace period passes.
 */
static int set_replace(struct slab_trace_traced *add,
		       struct slab_trace_traced *del)
{
	struct slab_trace_set *old = set_locked(), *new;
	unsigned int i;

	lockdep_assert_held(&slab_trace_mutex);
	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	for (i = 0; old && i < old->nr; i++) {
		if (old->traced[i] == del)
			new->traced[new->nr++] = add;
		else
			new->traced[new->nr++] = old->traced[i];
	}
	if (add && !del)
		new->traced[new->nr++] = add;
	/* A replacement of @del by nothing leaves a hole: close it. */
	for (i = 0; i < new->nr; i++)
		if (!new->traced[i])
			new->traced[i--] = new->traced[--new->nr];
	if (!new->nr) {
		kfree(new);
		new = NULL;
	}
	rcu_assign_pointer(slab_trace_active, new);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

/*
 * Out of the set, no probe holding it: its snapshots and records go, then
 * its id (no print is copying them: slab_trace_print_sem).
 */
static void traced_free(struct slab_trace_traced *tr)
{
	lockdep_assert_held(&slab_trace_mutex);
	slab_trace_snapshot_drop_owner(tr->id);
	down_write(&slab_trace_print_sem);
	slab_trace_table_purge(&slab_trace_records, tr->id,
			       slab_trace_record_free);
	up_write(&slab_trace_print_sem);
	clear_bit(tr->id, owner_ids);
	slabtrace_cache_put(&tr->ref);
	slab_trace_filter_free(rcu_dereference_protected(tr->filter, true));
	free_percpu(tr->filtered);
	free_percpu(tr->rng);
	kfree(tr);
}

/* Takes over the reference in @ref. */
static struct slab_trace_traced *traced_new(struct slabtrace_cache_ref *ref,
					    u8 kind, const char *name)
{
	struct slab_trace_traced *tr;
	unsigned long id;
	int cpu;

	lockdep_assert_held(&slab_trace_mutex);
	id = find_first_zero_bit(owner_ids, SLAB_TRACE_MAX_OWNERS);
	if (id >= SLAB_TRACE_MAX_OWNERS)
		return NULL;
	tr = kzalloc(sizeof(*tr), GFP_KERNEL);
	if (!tr)
		return NULL;
	tr->filtered = alloc_percpu(unsigned long);
	tr->rng = alloc_percpu(u32);
	if (!tr->filtered || !tr->rng) {
		free_percpu(tr->filtered);
		free_percpu(tr->rng);
		kfree(tr);
		return NULL;
	}
	/* Seeded here: get_random_u32() is not for every probe's context. */
	for_each_possible_cpu(cpu) {
		u32 *state = per_cpu_ptr(tr->rng, cpu);

		*state = get_random_u32() | 1;
	}
	tr->sample_every = 1;
	tr->sample_seed = get_random_u64();
	set_bit(id, owner_ids);
	tr->id = id;
	tr->ref = *ref;
	strscpy(tr->name, name, sizeof(tr->name));
	tr->kind = kind;
	if (kind == SLAB_TRACE_KIND_CACHE)
		tr->object_size = kmem_cache_size(ref->cache);
	tr->started = ktime_get_mono_fast_ns();
	tr->epoch = tr->started;
	tr->tracing = true;
	return tr;
}

/* Drop the traced caches in @gone[], already out of the set. */
static void traced_free_all(struct slab_trace_traced **gone, unsigned int n)
{
	unsigned int i;

	if (!n)
		return;
	tracepoint_synchronize_unregister();
	for (i = 0; i < n; i++)
		traced_free(gone[i]);
	slab_trace_probes_update();
}

/**
 * slab_trace_traced_find - the traced cache a name stands for
 * @cmd: the command asking, for the log
 * @name: a cache name, maybe an alias of a merged cache
 * @ref: filled in with the name resolved, for a traced cache: the caller
 *	 lets it go (slabtrace_cache_put())
 *
 * Called with slab_trace_mutex held.
 *
 * Return: the traced cache; ERR_PTR(-ENODATA) if that cache is not traced,
 * or the error of resolving the name (-ENOENT: no such cache), said in
 * the log.
 */
struct slab_trace_traced *slab_trace_traced_find(const char *cmd,
						 const char *name,
						 struct slabtrace_cache_ref *ref)
{
	struct slab_trace_traced *tr;
	u8 kind;
	int ret;

	lockdep_assert_held(&slab_trace_mutex);
	ret = slab_trace_resolve(cmd, name, ref, &kind);
	if (ret)
		return ERR_PTR(ret);
	tr = find_cache(ref->cache);
	if (!tr) {
		slabtrace_cache_put(ref);
		pr_warn_ratelimited("%s: %*pE is not traced\n", cmd, (int)strlen(name),
				    name);
		return ERR_PTR(-ENODATA);
	}
	return tr;
}

/* A record's stamp for time @now, ns: ms since the epoch, saturated. */
u32 slab_trace_stamp(const struct slab_trace_traced *tr, u64 now)
{
	return min_t(u64, div_u64(now - tr->epoch, NSEC_PER_MSEC), U32_MAX);
}

/* How long @tr has been traced, in ns, at @now. */
u64 slab_trace_traced_time(const struct slab_trace_traced *tr, u64 now)
{
	return tr->traced_ns + (tr->tracing ? now - tr->started : 0);
}

/**
 * slab_trace_start - start recording the allocations from a cache
 * @name: the cache
 * @filter: whose allocations to record, NULL for all; taken over (freed
 *	    on failure).  A cache traced already gets it, in place of the
 *	    one it had.
 * @sample_every: record 1 in this many allocations, at random (1: all);
 *		  a cache holding records keeps its rate (-EBUSY otherwise)
 * @sample_bytes: or 1 per this many bytes allocated, on average (0: not;
 *		  not with @sample_every), kept the same way
 *
 * Called with slab_trace_mutex held.
 *
 * Return: 0 (also if it was traced already), or -errno.
 */
int slab_trace_start(const char *name, struct slab_trace_filter *filter,
		     u32 sample_every, u32 sample_bytes)
{
	struct slabtrace_cache_ref ref;
	struct slab_trace_traced *tr;
	u8 kind;
	int ret;

	lockdep_assert_held(&slab_trace_mutex);
	ret = slab_trace_resolve("start", name, &ref, &kind);
	if (ret) {
		slab_trace_filter_free(filter);
		return ret;
	}
	slab_trace_stack_prime();
	if (ref.cache == slab_trace_record_cache) {
		pr_warn_ratelimited("start: %*pE is slabtrace's own cache\n",
				    (int)strlen(name), name);
		ret = -EPERM;
		goto put;
	}
	if (ref.bucket) {
		pr_warn_ratelimited("start: %*pE is a kmem_buckets cache: the kmalloc tracepoint counts its objects as kmalloc-N's\n",
				    (int)strlen(name), name);
		ret = -EOPNOTSUPP;
		goto put;
	}
	tr = find_cache(ref.cache);
	if (tr && (tr->sample_every != sample_every ||
		   tr->sample_bytes != sample_bytes) &&
	    slab_trace_traced_count(tr)) {
		if (tr->sample_bytes)
			pr_warn_ratelimited("start: %*pE holds records sampled 1 per %u bytes: reset it before another rate\n",
					    (int)strlen(name), name,
					    tr->sample_bytes);
		else
			pr_warn_ratelimited("start: %*pE holds records sampled 1 in %u: reset it before another rate\n",
					    (int)strlen(name), name,
					    tr->sample_every);
		ret = -EBUSY;
		goto put;
	}
	if (tr) {
		WRITE_ONCE(tr->sample_every, sample_every);
		WRITE_ONCE(tr->sample_bytes, sample_bytes);
		if (filter || rcu_access_pointer(tr->filter)) {
			filter_set(tr, filter);
			filter = NULL;
			if (tr->tracing)
				pr_info_ratelimited("start: %*pE: new filter\n",
						    (int)strlen(name), name);
		} else if (tr->tracing) {
			pr_info_ratelimited("start: %*pE is already traced (as %*pE)\n",
					    (int)strlen(name), name,
					    (int)strlen(tr->name), tr->name);
		}
		if (!tr->tracing) {
			if (slab_trace_pool_fill(&slab_trace_pool))
				pr_warn_ratelimited("start: the record pool is not full (no memory)\n");
			tr->started = ktime_get_mono_fast_ns();
			WRITE_ONCE(tr->tracing, true);
			ret = slab_trace_probes_update();
			if (ret)
				WRITE_ONCE(tr->tracing, false);
		}
		goto put;
	}
	if (set_size() >= SLAB_TRACE_MAX_CACHES) {
		pr_warn_ratelimited("start: %u caches traced or holding records already\n",
				    SLAB_TRACE_MAX_CACHES);
		ret = -ENOSPC;
		goto put;
	}
	tr = traced_new(&ref, kind, name);
	if (!tr) {
		ret = -ENOMEM;
		goto put;
	}
	RCU_INIT_POINTER(tr->filter, filter);
	tr->sample_every = sample_every;
	tr->sample_bytes = sample_bytes;
	ret = set_replace(tr, NULL);
	if (ret)
		goto free;
	if (slab_trace_pool_fill(&slab_trace_pool))
		pr_warn_ratelimited("start: the record pool is not full (no memory): allocations may go unrecorded\n");
	ret = slab_trace_probes_update();
	if (ret) {
		pr_warn_ratelimited("start: cannot attach to the kmem tracepoints (%d)\n",
				    ret);
		WRITE_ONCE(tr->tracing, false);
		if (set_replace(NULL, tr))
			return ret;	/* stays as a stopped, empty cache */
		traced_free_all(&tr, 1);
		return ret;
	}
	if (tr->ref.merged > 0)
		pr_info_ratelimited("start: %*pE is merged with other caches: tracing all of them\n",
				    (int)strlen(name), name);
	return 0;

free:
	traced_free(tr);
	return ret;
put:
	slabtrace_cache_put(&ref);
	slab_trace_filter_free(filter);
	return ret;
}

/**
 * slab_trace_stop - stop recording new allocations from a cache
 * @name: the cache
 *
 * Its records stay; frees still drop them.  Called with slab_trace_mutex
 * held.
 *
 * Return: 0 (also if it was not traced), or -errno.
 */
int slab_trace_stop(const char *name)
{
	struct slabtrace_cache_ref ref;
	struct slab_trace_traced *tr;
	u8 kind;
	int ret;

	lockdep_assert_held(&slab_trace_mutex);
	ret = slab_trace_resolve("stop", name, &ref, &kind);
	if (ret)
		return ret;
	tr = find_cache(ref.cache);
	slabtrace_cache_put(&ref);
	if (!tr || !tr->tracing) {
		pr_info_ratelimited("stop: %*pE is not traced\n", (int)strlen(name), name);
		return 0;
	}
	WRITE_ONCE(tr->tracing, false);
	tr->traced_ns += ktime_get_mono_fast_ns() - tr->started;
	return slab_trace_probes_update();
}

/**
 * slab_trace_reset - drop every record of a cache
 * @name: the cache
 *
 * A traced cache goes on being traced, from an empty table; a stopped one
 * is forgotten.  Called with slab_trace_mutex held.
 *
 * Return: 0 (also if it had no records), or -errno.
 */
int slab_trace_reset(const char *name)
{
	struct slab_trace_traced *tr, *fresh = NULL;
	struct slabtrace_cache_ref ref;
	u8 kind;
	int ret;

	lockdep_assert_held(&slab_trace_mutex);
	ret = slab_trace_resolve("reset", name, &ref, &kind);
	if (ret)
		return ret;
	tr = find_cache(ref.cache);
	if (!tr) {
		slabtrace_cache_put(&ref);
		pr_info_ratelimited("reset: %*pE is not traced\n", (int)strlen(name), name);
		return 0;
	}
	if (tr->tracing) {
		fresh = traced_new(&ref, kind, tr->name);
		if (!fresh) {
			slabtrace_cache_put(&ref);
			return -ENOMEM;
		}
		/* The filter and the rate go on with the fresh table. */
		fresh->sample_every = tr->sample_every;
		fresh->sample_bytes = tr->sample_bytes;
		RCU_INIT_POINTER(fresh->filter,
				 rcu_dereference_protected(tr->filter,
							   lockdep_is_held(&slab_trace_mutex)));
	} else {
		slabtrace_cache_put(&ref);
	}
	ret = set_replace(fresh, tr);
	if (ret) {
		if (fresh) {
			RCU_INIT_POINTER(fresh->filter, NULL);
			traced_free(fresh);
		}
		return ret;
	}
	if (fresh)
		RCU_INIT_POINTER(tr->filter, NULL);
	traced_free_all(&tr, 1);
	return 0;
}

/**
 * slab_trace_mark - set the epoch "print CACHE since-mark" counts from
 * @name: the cache
 *
 * Records made after the command are after the mark, those made before it
 * are not: the mark is the next millisecond of the records' clock, and the
 * command returns once that millisecond has begun.  Called with
 * slab_trace_mutex held.
 *
 * Return: 0, -ENOENT for an unknown cache, -ENODATA for one not traced.
 */
int slab_trace_mark(const char *name)
{
	struct slabtrace_cache_ref ref;
	struct slab_trace_traced *tr;
	u32 mark;

	lockdep_assert_held(&slab_trace_mutex);
	tr = slab_trace_traced_find("mark", name, &ref);
	if (IS_ERR(tr))
		return PTR_ERR(tr);
	slabtrace_cache_put(&ref);
	/* Saturated stamps (a trace of 49 days) all count as after. */
	mark = min_t(u64, slab_trace_stamp(tr, ktime_get_mono_fast_ns()) + 1ULL,
		     U32_MAX);
	while (slab_trace_stamp(tr, ktime_get_mono_fast_ns()) < mark)
		usleep_range(USEC_PER_MSEC / 4, USEC_PER_MSEC / 2);
	tr->mark = mark;
	return 0;
}

/**
 * slab_trace_traced_sweep - forget the traced caches that were destroyed
 *
 * Called with slab_trace_mutex held, before every command.
 */
void slab_trace_traced_sweep(void)
{
	struct slab_trace_traced *gone[SLAB_TRACE_MAX_CACHES];
	struct slab_trace_set *set = set_locked();
	unsigned int i, n = 0;

	lockdep_assert_held(&slab_trace_mutex);
	for (i = 0; set && i < set->nr; i++) {
		struct slab_trace_traced *tr = set->traced[i];

		if (!slabtrace_cache_destroyed(&tr->ref))
			continue;
		pr_warn_ratelimited("%*pE was destroyed while traced: dropping its %ld records\n",
				    (int)strlen(tr->name), tr->name,
				    slab_trace_traced_count(tr));
		gone[n++] = tr;
	}
	for (i = 0; i < n; i++) {
		if (set_replace(NULL, gone[i])) {
			/* Kept, stopped, until the next sweep. */
			WRITE_ONCE(gone[i]->tracing, false);
			gone[i--] = gone[--n];
		}
	}
	traced_free_all(gone, n);
}

/* At module exit, after the probes are gone. */
void slab_trace_traced_exit(void)
{
	struct slab_trace_set *set = set_locked();
	unsigned int i;

	RCU_INIT_POINTER(slab_trace_active, NULL);
	/* Replaced filters: their callbacks are this module's code. */
	rcu_barrier();
	if (!set)
		return;
	for (i = 0; i < set->nr; i++)
		traced_free(set->traced[i]);
	kfree(set);
}
