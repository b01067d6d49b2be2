// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: the caches being traced, or stopped and still holding records,
 * and the commands that change them: start, stop, reset.
 *
 * The probes find an event's traced cache in leak_active, a set
 * published with RCU and replaced whole when caches come or go (a hash
 * table of the caches, and an array by record owner: struct
 * leak_set).  A cache stays in it after "stop", so frees keep
 * dropping its records, until "reset" or until the cache is destroyed.
 *
 * Every command takes a cache name or a word for a set of caches
 * ("kmalloc", "all": sets.c), and works on all of its caches at once: one
 * new set published, one wait for the probes, one walk of the records to
 * purge, however many caches.
 *
 * The records of every cache are in one table (table.c); each names its
 * cache by a small id, its owner, given out here and taken back once the
 * cache's records are purged.
 *
 * A traced cache may have a filter ("start CACHE pid|comm|cgroup ..."),
 * which the probes read under RCU: a new one replaces it, and the old one
 * goes after a grace period, once no cache has it (the caches a word
 * started share one; call_rcu(); rcu_barrier() at exit).
 *
 * Notes on locking
 * ----------------
 * - leak_mutex: the set, owner_ids, and every field of a traced cache
 *   but its counters.  The probes read the set and tr->filter under RCU
 *   (they run with preemption disabled).  The allocation probe reads
 *   tr->tracing with smp_load_acquire(), paired with the
 *   smp_store_release() that sets it at a start: a restarted cache's
 *   rate and filter are seen before it traces again.
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

#include <wrapper/cgroup.h>

#include "lifetime.h"
#include "pool.h"
#include "record.h"
#include "sets.h"
#include "table.h"
#include "traced.h"

/* leak_mutex: see slab.c's Notes on locking. */
DEFINE_MUTEX(leak_mutex);
/* Copies of records in progress (read) against purges (write). */
DECLARE_RWSEM(leak_print_sem);
/* Per record owner: how many times its records were purged; the mutex. */
unsigned long leak_purges[LEAK_MAX_OWNERS];
struct leak_set __rcu *leak_active;
static DECLARE_BITMAP(owner_ids, LEAK_MAX_OWNERS);
const char leak_pseudo[LEAK_KINDS];

/*
 * The names of what the kmem tracepoints see with no cache behind it, in
 * the kernel's words: kmalloc_large() (v6.1; __kmalloc_large_noprof() in
 * v6.12) and free_large_kmalloc() serve a kmalloc() bigger than the
 * biggest kmalloc cache from the page allocator; alloc_percpu() and
 * free_percpu() fire the percpu tracepoints.  No slab cache has either
 * name (a kmalloc cache's ends in its size).
 */
static const char *const pseudo_names[LEAK_KINDS] = {
	[LEAK_KIND_LARGE] = "kmalloc-large",
	[LEAK_KIND_PERCPU] = "percpu",
};

/**
 * resolve - what a name a command gives stands for
 * @cmd: the command asking, for the log
 * @name: a cache name, or "kmalloc-large" or "percpu"
 * @ref: filled in as slabtrace_cache_resolve() does; for the two names
 *	 that are no cache, with leak_pseudo_cache() of their kind and
 *	 no kobject
 * @kind: set to what @name stands for (enum leak_kind)
 *
 * Return: 0, or the error of slabtrace_cache_resolve(), said in the log.
 */
static int resolve(const char *cmd, const char *name,
		   struct slabtrace_cache_ref *ref, u8 *kind)
{
	unsigned int k;

	for (k = LEAK_KIND_LARGE; k < LEAK_KINDS; k++) {
		if (strcmp(name, pseudo_names[k]))
			continue;
		memset(ref, 0, sizeof(*ref));
		ref->cache = leak_pseudo_cache(k);
		*kind = k;
		return 0;
	}
	*kind = LEAK_KIND_CACHE;
	return slabtrace_cache_resolve(cmd, name, ref);
}

const char *const leak_drop_names[LEAK_DROP_MAX] = {
	[LEAK_DROP_POOL] = "pool empty",
	[LEAK_DROP_LIMIT] = "limit reached",
	[LEAK_DROP_NMI] = "in NMI",
	[LEAK_DROP_STACK] = "stack store full",
	[LEAK_DROP_WALK] = "stack walk empty",
	[LEAK_DROP_DEEP] = "stack truncated",
};

/* An empty filter, with one reference; NULL without memory. */
struct leak_filter *leak_filter_alloc(void)
{
	struct leak_filter *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (f)
		refcount_set(&f->ref, 1);
	return f;
}

static void filter_free_rcu(struct rcu_head *head)
{
	struct leak_filter *f = container_of(head, struct leak_filter,
					     rcu);

	if (f->cgroup)
		slabtrace_cgroup_put(f->cgroup);
	kfree(f);
}

/*
 * Let a reference to a filter go (NULL: none); the last frees it after a
 * grace period, as a probe may still read it.
 */
void leak_filter_put(struct leak_filter *f)
{
	if (f && refcount_dec_and_test(&f->ref))
		call_rcu(&f->rcu, filter_free_rcu);
}

/* Another reference to filter @f (NULL: none). */
struct leak_filter *leak_filter_get(struct leak_filter *f)
{
	if (f)
		refcount_inc(&f->ref);
	return f;
}

/* @tr's filter becomes @f (maybe NULL), referenced; the old one is put. */
static void filter_set(struct leak_traced *tr, struct leak_filter *f)
{
	struct leak_filter *old;

	lockdep_assert_held(&leak_mutex);
	old = rcu_replace_pointer(tr->filter, leak_filter_get(f),
				  lockdep_is_held(&leak_mutex));
	leak_filter_put(old);
}

/**
 * leak_filter_text - a filter as the commands write it
 * @buf: where it goes, NUL-terminated, cut short if it does not fit
 * @size: its room
 * @f: the filter
 *
 * A name or path is escaped as every user-chosen name is (SLABTRACE_ESCAPE).
 */
void leak_filter_text(char *buf, size_t size,
		      const struct leak_filter *f)
{
	const char *s = f->path;
	size_t n;
	int i;

	if (f->kind == LEAK_FILTER_PID) {
		n = scnprintf(buf, size, "pid");
		for (i = 0; i < f->npids; i++)
			n += scnprintf(buf + n, size - n, " %d", f->tgid[i]);
		return;
	}
	if (f->kind == LEAK_FILTER_COMM)
		s = f->comm;
	n = scnprintf(buf, size, "%s ",
		      f->kind == LEAK_FILTER_COMM ? "comm" : "cgroup");
	n += string_escape_mem(s, strlen(s), buf + n, size - n - 1,
			       SLABTRACE_ESCAPE, SLABTRACE_ESCAPE_ALSO);
	buf[min(n, size - 1)] = '\0';
}

/* Allocations @tr's filter left out. */
unsigned long leak_traced_filtered(const struct leak_traced *tr)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += *per_cpu_ptr(tr->filtered, cpu);
	return n;
}

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* Allocations of @tr not recorded at all (for the tests). */
long leak_traced_dropped(const struct leak_traced *tr)
{
	long n = 0;
	int i;

	for (i = 0; i < LEAK_DROP_LOST_MAX; i++)
		n += atomic_long_read(&tr->drops[i]);
	return n;
}

/* A failure hook: publishing a new set fails with -ENOMEM. */
bool leak_fail_set;
#endif

static struct leak_set *set_locked(void)
{
	return rcu_dereference_protected(leak_active,
					 lockdep_is_held(&leak_mutex));
}

static unsigned int set_size(void)
{
	struct leak_set *set = set_locked();

	return set ? set->nr : 0;
}

static struct leak_traced *find_cache(const struct kmem_cache *s)
{
	struct leak_set *set = set_locked();

	return set ? leak_traced_of(set, s) : NULL;
}

static void set_free_rcu(struct rcu_head *head)
{
	kvfree(container_of(head, struct leak_set, rcu));
}

/* Put @tr in @set, which has room for it. */
static void set_add(struct leak_set *set, struct leak_traced *tr)
{
	unsigned int i = hash_ptr(tr->ref.cache, 32) & set->mask;

	while (set->by_cache[i])
		i = (i + 1) & set->mask;
	set->by_cache[i] = tr;
	set->by_id[tr->id] = tr;
	set->traced[set->nr++] = tr;
}

/*
 * Publish a copy of the set where, for each i < @n, @del[i] is replaced by
 * @add[i], in its place: @del[i] NULL adds @add[i], @add[i] NULL removes
 * @del[i].  Readers of the old set may go on until a grace period passes.
 */
static int set_replace_many(struct leak_traced **add,
			    struct leak_traced **del, unsigned int n)
{
	struct leak_set *old = set_locked(), *new;
	unsigned int i, j, room = (old ? old->nr : 0) + n, slots;
	struct leak_traced *tr;

	lockdep_assert_held(&leak_mutex);
#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
	if (READ_ONCE(leak_fail_set))
		return -ENOMEM;
#endif
	slots = roundup_pow_of_two(max(2 * room, 16U));
	new = kvzalloc(struct_size(new, mem, room + slots), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	new->traced = new->mem;
	new->by_cache = new->mem + room;
	new->mask = slots - 1;
	for (i = 0; old && i < old->nr; i++) {
		tr = old->traced[i];
		for (j = 0; j < n; j++) {
			if (del[j] == tr) {
				tr = add[j];
				break;
			}
		}
		if (tr)
			set_add(new, tr);
	}
	for (j = 0; j < n; j++)
		if (!del[j] && add[j])
			set_add(new, add[j]);
	if (!new->nr) {
		kvfree(new);
		new = NULL;
	}
	rcu_assign_pointer(leak_active, new);
	if (old)
		call_rcu(&old->rcu, set_free_rcu);
	return 0;
}

/*
 * Out of the set, no probe holding them: the records of the caches in
 * @gone[] go, in one walk of the table, then their ids (no print is
 * copying them: leak_print_sem); the users' prints of them go at the
 * end of the command (leak_print_drop_stale()).
 */
static void traced_release(struct leak_traced **gone, unsigned int n)
{
	DECLARE_BITMAP(owners, LEAK_MAX_OWNERS);
	struct leak_traced *tr;
	unsigned int i;

	lockdep_assert_held(&leak_mutex);
	bitmap_zero(owners, LEAK_MAX_OWNERS);
	for (i = 0; i < n; i++) {
		/* A print copying them will not publish (print.c). */
		leak_purges[gone[i]->id]++;
		__set_bit(gone[i]->id, owners);
	}
	down_write(&leak_print_sem);
	leak_table_purge_owners(&leak_records, owners,
				leak_record_free);
	up_write(&leak_print_sem);
	leak_lifetime_forget(owners);
	for (i = 0; i < n; i++) {
		tr = gone[i];
		clear_bit(tr->id, owner_ids);
		slabtrace_cache_put(&tr->ref);
		leak_filter_put(rcu_dereference_protected(tr->filter, true));
		free_percpu(tr->filtered);
		free_percpu(tr->rng);
		kfree(tr);
	}
}

/* Takes over the reference in @ref. */
static struct leak_traced *traced_new(struct slabtrace_cache_ref *ref,
				      u8 kind, const char *name)
{
	struct leak_traced *tr;
	unsigned long id;
	int cpu;

	lockdep_assert_held(&leak_mutex);
	id = find_first_zero_bit(owner_ids, LEAK_MAX_OWNERS);
	if (id >= LEAK_MAX_OWNERS)
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
	tr->kmalloc = kind == LEAK_KIND_LARGE ||
		      (kind == LEAK_KIND_CACHE &&
		       slabtrace_cache_is_kmalloc(ref->cache));
	if (kind == LEAK_KIND_CACHE)
		tr->object_size = kmem_cache_size(ref->cache);
	tr->started = ktime_get_mono_fast_ns();
	tr->epoch = tr->started;
	tr->tracing = true;
	return tr;
}

/* Drop the traced caches in @gone[], already out of the set. */
static void traced_free_all(struct leak_traced **gone, unsigned int n)
{
	if (!n)
		return;
	tracepoint_synchronize_unregister();
	traced_release(gone, n);
}

/**
 * leak_traced_find - the traced cache a name stands for
 * @cmd: the command asking, for the log
 * @name: a cache name, maybe an alias of a merged cache
 * @ref: filled in with the name resolved, for a traced cache: the caller
 *	 lets it go (slabtrace_cache_put())
 *
 * Called with leak_mutex held.
 *
 * Return: the traced cache; ERR_PTR(-ENODATA) if that cache is not traced,
 * or the error of resolving the name (-ENOENT: no such cache), said in
 * the log.
 */
struct leak_traced *leak_traced_find(const char *cmd,
				     const char *name,
				     struct slabtrace_cache_ref *ref)
{
	char esc[SLABTRACE_ESC_SIZE];
	struct leak_traced *tr;
	u8 kind;
	int ret;

	lockdep_assert_held(&leak_mutex);
	ret = resolve(cmd, name, ref, &kind);
	if (ret)
		return ERR_PTR(ret);
	tr = find_cache(ref->cache);
	if (!tr) {
		slabtrace_cache_put(ref);
		pr_warn_ratelimited("%s: %s is not traced\n", cmd,
				    slabtrace_esc_str(esc, name));
		return ERR_PTR(-ENODATA);
	}
	return tr;
}

/**
 * leak_traced_word - the caches of the set a word stands for
 * @word: the word
 * @trs: set to an array of them, in the set's order, that the caller
 *	 kfree()s; NULL if there are none
 *
 * Called with leak_mutex held.
 *
 * Return: how many, or -ENOMEM.
 */
int leak_traced_word(enum leak_word word,
		     struct leak_traced ***trs)
{
	struct leak_set *set = set_locked();
	unsigned int i, n = 0;

	lockdep_assert_held(&leak_mutex);
	*trs = NULL;
	if (!set)
		return 0;
	*trs = kmalloc_array(set->nr, sizeof(**trs), SLABTRACE_GFP_BIG);
	if (!*trs)
		return -ENOMEM;
	for (i = 0; i < set->nr; i++)
		if (leak_word_has(word, set->traced[i]->kmalloc))
			(*trs)[n++] = set->traced[i];
	return n;
}

/* How long @tr has been traced, in ns, at @now. */
u64 leak_traced_time(const struct leak_traced *tr, u64 now)
{
	/* The fast clock may step back a little at an update. */
	return tr->traced_ns +
	       (tr->tracing && now > tr->started ? now - tr->started : 0);
}

/* What "start" asks of every cache it names. */
struct start_args {
	struct leak_filter *filter;	/* NULL: none */
	u32 sample_every;
	u32 sample_bytes;
	bool one;		/* a cache by name: logs name it */
	/* The probes for them (slab.c gives probes.c's): 0, or -errno. */
	int (*attach)(void);
};

/* Whether @tr samples at @a's rate. */
static bool same_rate(const struct leak_traced *tr, const struct start_args *a)
{
	return tr->sample_every == a->sample_every &&
	       tr->sample_bytes == a->sample_bytes;
}

/*
 * Whether @tr is traced, or holds records, at another rate than @a's
 * (-EBUSY).  Traced, even with no record: a probe may have drawn at the
 * old rate and not yet put its record in, which the new rate would
 * weigh; and the two numbers of a rate are not written at once.
 */
static bool rate_busy(const struct leak_traced *tr,
		      const struct start_args *a)
{
	char esc[SLABTRACE_ESC_SIZE], rate[40];

	if (same_rate(tr, a) || (!tr->tracing && !leak_traced_count(tr)))
		return false;
	if (tr->sample_bytes)
		snprintf(rate, sizeof(rate), "sampled 1 per %u bytes",
			 tr->sample_bytes);
	else if (tr->sample_every > 1)
		snprintf(rate, sizeof(rate), "sampled 1 in %u",
			 tr->sample_every);
	else
		strscpy(rate, "unsampled", sizeof(rate));
	if (tr->tracing)
		pr_warn_ratelimited("start: %s is traced %s: stop and reset it before another rate\n",
				    slabtrace_esc_str(esc, tr->name), rate);
	else
		pr_warn_ratelimited("start: %s holds records %s: reset it before another rate\n",
				    slabtrace_esc_str(esc, tr->name), rate);
	return true;
}

/*
 * A cache traced or holding records gets @a's filter and rate, and is
 * traced.  Return: whether it was stopped.
 */
static bool start_again(struct leak_traced *tr,
			const struct start_args *a)
{
	char esc[SLABTRACE_ESC_SIZE];

	WRITE_ONCE(tr->sample_every, a->sample_every);
	WRITE_ONCE(tr->sample_bytes, a->sample_bytes);
	if (a->filter || rcu_access_pointer(tr->filter)) {
		filter_set(tr, a->filter);
		if (tr->tracing && a->one)
			pr_info_ratelimited("start: %s: new filter\n",
					    slabtrace_esc_str(esc, tr->name));
	} else if (tr->tracing && a->one) {
		pr_info_ratelimited("start: %s is already traced\n",
				    slabtrace_esc_str(esc, tr->name));
	}
	if (tr->tracing)
		return false;
	tr->started = ktime_get_mono_fast_ns();
	/* The rate and filter above before it: probes acquire it. */
	smp_store_release(&tr->tracing, true);
	return true;
}

/*
 * Start the caches of @c[0..@n): all or nothing as far as the checks go
 * (rates, room, memory).  The references of @c[] are taken over.
 */
static int start_cands(struct leak_cand *c, unsigned int n,
		       const struct start_args *a)
{
	char esc[SLABTRACE_ESC_SIZE];
	struct leak_traced **add, **again, **none, *tr;
	unsigned int i, nadd = 0, nagain = 0, non = 0;
	int ret = -ENOMEM;

	lockdep_assert_held(&leak_mutex);
	add = kcalloc(n, sizeof(*add), GFP_KERNEL);
	again = kcalloc(n, sizeof(*again), GFP_KERNEL);
	none = kcalloc(n, sizeof(*none), GFP_KERNEL);
	if (!add || !again || !none)
		goto out;
	for (i = 0; i < n; i++) {
		tr = find_cache(c[i].ref.cache);
		if (tr && rate_busy(tr, a)) {
			ret = -EBUSY;
			goto out;
		}
		if (tr)
			again[nagain++] = tr;
	}
	/*
	 * A stopped cache with no record takes another rate: once the
	 * probes that saw it traced, before its stop, are done (one may
	 * still put in a record drawn at the old rate), and if none did.
	 */
	for (i = 0; i < nagain; i++)
		if (!same_rate(again[i], a))
			break;
	if (i < nagain) {
		tracepoint_synchronize_unregister();
		for (i = 0; i < nagain; i++) {
			if (rate_busy(again[i], a)) {
				ret = -EBUSY;
				goto out;
			}
		}
	}
	if (set_size() + n - nagain > LEAK_MAX_CACHES) {
		pr_warn_ratelimited("start: %u caches traced or holding records already, %u more would be over %u\n",
				    set_size(), n - nagain,
				    LEAK_MAX_CACHES);
		ret = -ENOSPC;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (find_cache(c[i].ref.cache))
			continue;
		tr = traced_new(&c[i].ref, c[i].kind, c[i].name);
		if (!tr) {
			ret = -ENOMEM;
			goto undo;
		}
		memset(&c[i].ref, 0, sizeof(c[i].ref));	/* taken over */
		RCU_INIT_POINTER(tr->filter, leak_filter_get(a->filter));
		tr->sample_every = a->sample_every;
		tr->sample_bytes = a->sample_bytes;
		add[nadd++] = tr;
	}
	if (nadd) {
		ret = set_replace_many(add, none, nadd);
		if (ret)
			goto undo;
	}
	/* @again keeps those that were stopped. */
	for (i = 0; i < nagain; i++)
		if (start_again(again[i], a))
			again[non++] = again[i];
	if ((nadd || non) && leak_pool_fill(&leak_pool))
		pr_warn_ratelimited("start: the record pool is not full (no memory): allocations may go unrecorded\n");
	ret = a->attach();
	if (ret) {
		pr_warn_ratelimited("start: cannot attach to the tracepoints (%d)\n",
				    ret);
		for (i = 0; i < non; i++)
			WRITE_ONCE(again[i]->tracing, false);
		for (i = 0; i < nadd; i++)
			WRITE_ONCE(add[i]->tracing, false);
		/* Out of the set, or else stays as stopped, empty caches. */
		if (nadd && !set_replace_many(none, add, nadd))
			traced_free_all(add, nadd);
		goto out;
	}
	for (i = 0; a->one && i < nadd; i++)
		if (add[i]->ref.merged > 0)
			pr_info_ratelimited("start: %s is merged with other caches: tracing all of them\n",
					    slabtrace_esc_str(esc, add[i]->name));
	goto out;
undo:
	traced_release(add, nadd);
out:
	kfree(add);
	kfree(again);
	kfree(none);
	return ret;
}

/* The caches @word stands for (sets.c), kmalloc-large last. */
static int word_caches(enum leak_word word, struct leak_cand **c,
		       unsigned int *n)
{
	struct leak_cand large = { .name = "kmalloc-large" };
	int ret;

	ret = resolve("start", large.name, &large.ref, &large.kind);
	if (ret)
		return ret;
	return leak_word_caches(word, leak_record_cache, &large, c,
				n);
}

/**
 * leak_start - start recording the allocations from caches
 * @name: a cache, or a word for a set of them ("kmalloc", "all")
 * @filter: whose allocations to record, NULL for all; taken over.  A
 *	    cache traced already gets it, in place of the one it had.
 * @sample_every: record 1 in this many allocations, at random (1: all);
 *		  a cache holding records keeps its rate (-EBUSY otherwise)
 * @sample_bytes: or 1 per this many bytes allocated, on average (0: not;
 *		  not with @sample_every), kept the same way
 * @attach: attaches the probes the set needs once the caches are in it
 *	    (slab.c gives leak_probes_update()); if it fails, the
 *	    caches added leave the set and those restarted stop again
 *
 * The caches of a word all start, or none if one holds records at
 * another rate, or they would be more than LEAK_MAX_CACHES.  Called
 * with leak_mutex held.
 *
 * Return: 0 (also if they were traced already), or -errno.
 */
int leak_start(const char *name, struct leak_filter *filter,
	       u32 sample_every, u32 sample_bytes, int (*attach)(void))
{
	char esc[SLABTRACE_ESC_SIZE];
	struct start_args a = {
		.filter = filter, .sample_every = sample_every,
		.sample_bytes = sample_bytes, .attach = attach,
	};
	enum leak_word word = leak_word_of(name);
	struct leak_cand one, *c = &one;
	unsigned int n = 1;
	int ret;

	lockdep_assert_held(&leak_mutex);
	if (word) {
		ret = word_caches(word, &c, &n);
		if (ret)
			goto out;
	} else {
		a.one = true;
		ret = resolve("start", name, &one.ref, &one.kind);
		if (ret)
			goto out;
		strscpy(one.name, name, sizeof(one.name));
		if (one.ref.cache == leak_record_cache) {
			pr_warn_ratelimited("start: %s is slabtrace's own cache\n",
					    slabtrace_esc_str(esc, name));
			ret = -EPERM;
		} else if (one.ref.bucket) {
			pr_warn_ratelimited("start: %s is a kmem_buckets cache: the kmalloc tracepoint counts its objects as kmalloc-N's\n",
					    slabtrace_esc_str(esc, name));
			ret = -EOPNOTSUPP;
		}
	}
	if (!ret)
		ret = start_cands(c, n, &a);
	if (word) {
		if (!ret)
			pr_info_ratelimited("start: %s: %u caches\n", name, n);
		leak_cands_free(c, n);
	} else {
		slabtrace_cache_put(&one.ref);
	}
out:
	leak_filter_put(filter);
	return ret;
}

/**
 * leak_start_new - start the caches "start all" would, not in the set
 * @filter: the filter each gets (a reference each), NULL for none
 * @sample_every: their rate, as leak_start() takes it
 * @sample_bytes: or their bytes' rate
 * @left_out: whether a cache is to stay out
 * @attach: as leak_start() takes it
 *
 * The caches that were created since "start all" (follow.c).  Called with
 * leak_mutex held.
 *
 * Return: how many started, or -errno.
 */
int leak_start_new(struct leak_filter *filter, u32 sample_every,
		   u32 sample_bytes,
		   bool (*left_out)(const struct kmem_cache *s),
		   int (*attach)(void))
{
	char esc[SLABTRACE_ESC_SIZE];
	struct start_args a = {
		.filter = filter, .sample_every = sample_every,
		.sample_bytes = sample_bytes, .attach = attach,
	};
	struct leak_cand *c;
	unsigned int i, n, k = 0;
	int ret;

	lockdep_assert_held(&leak_mutex);
	ret = word_caches(LEAK_WORD_ALL, &c, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		/* kmalloc-large is never new: started by "start all". */
		if (c[i].kind != LEAK_KIND_CACHE ||
		    find_cache(c[i].ref.cache) || left_out(c[i].ref.cache)) {
			slabtrace_cache_put(&c[i].ref);
			continue;
		}
		if (k != i) {
			c[k] = c[i];
			memset(&c[i].ref, 0, sizeof(c[i].ref));	/* moved */
		}
		k++;
	}
	ret = k ? start_cands(c, k, &a) : 0;
	for (i = 0; !ret && i < k; i++)
		pr_info_ratelimited("start: all: new cache %s\n",
				    slabtrace_esc_str(esc, c[i].name));
	leak_cands_free(c, n);
	return ret ?: k;
}

/*
 * The traced caches a command names: @name's, or those of the set its
 * word stands for, into @trs, which the caller kfree()s whatever the
 * return (NULL on an error); a cache by name that is not traced is
 * -ENODATA, said in the log if @quiet is false.
 */
static int traced_named(const char *cmd, const char *name, bool quiet,
			struct leak_traced ***trs)
{
	char esc[SLABTRACE_ESC_SIZE];
	enum leak_word word = leak_word_of(name);
	struct slabtrace_cache_ref ref;
	struct leak_traced *tr;
	u8 kind;
	int ret;

	*trs = NULL;
	if (word)
		return leak_traced_word(word, trs);
	if (quiet) {
		ret = resolve(cmd, name, &ref, &kind);
		if (ret)
			return ret;
		tr = find_cache(ref.cache);
		slabtrace_cache_put(&ref);
		if (!tr) {
			pr_info_ratelimited("%s: %s is not traced\n", cmd,
					    slabtrace_esc_str(esc, name));
			return -ENODATA;
		}
	} else {
		tr = leak_traced_find(cmd, name, &ref);
		if (IS_ERR(tr))
			return PTR_ERR(tr);
		slabtrace_cache_put(&ref);
	}
	*trs = kmalloc_array(1, sizeof(**trs), GFP_KERNEL);
	if (!*trs)
		return -ENOMEM;
	(*trs)[0] = tr;
	return 1;
}

/**
 * leak_stop - stop recording new allocations from caches
 * @name: a cache, or a word for the traced caches of a set
 *
 * Their records stay; frees still drop them.  Called with
 * leak_mutex held.
 *
 * Return: 0 (also if it was not traced), or -errno.
 */
int leak_stop(const char *name)
{
	char esc[SLABTRACE_ESC_SIZE];
	struct leak_traced **trs;
	int i, n, stopped = 0;

	lockdep_assert_held(&leak_mutex);
	n = traced_named("stop", name, true, &trs);
	if (n == -ENODATA)
		return 0;
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		if (!trs[i]->tracing) {
			if (!leak_word_of(name))
				pr_info_ratelimited("stop: %s is not traced\n",
						    slabtrace_esc_str(esc, name));
			continue;
		}
		WRITE_ONCE(trs[i]->tracing, false);
		stopped++;
		trs[i]->stopped = ktime_get_mono_fast_ns();
		/* As leak_traced_time(): the fast clock may step back. */
		if (trs[i]->stopped > trs[i]->started)
			trs[i]->traced_ns += trs[i]->stopped - trs[i]->started;
	}
	kfree(trs);
	/*
	 * A probe that read a cache traced has returned before the probes'
	 * update reads its records left: the free of a stopped cache's last
	 * record kicks the idle job, or the update sees it gone.
	 */
	if (stopped)
		synchronize_rcu();
	return 0;
}

/**
 * leak_reset - drop every record of caches
 * @name: a cache, or a word for the traced caches of a set
 * @forget: called for each cache forgotten, before its reference goes
 *	    (slab.c: "start all" does not start it again); NULL for none
 *
 * A traced cache goes on being traced, from an empty table; a stopped one
 * is forgotten.  Called with leak_mutex held.
 *
 * Return: 0 (also if it had no records), or -errno.
 */
int leak_reset(const char *name,
	       void (*forget)(const struct slabtrace_cache_ref *ref))
{
	struct leak_traced **trs, **fresh = NULL, *tr;
	struct leak_filter *filter;
	struct slabtrace_cache_ref ref;
	int i, k, n, ret = -ENOMEM;

	lockdep_assert_held(&leak_mutex);
	n = traced_named("reset", name, true, &trs);
	if (n <= 0) {
		/* A word none of whose caches is traced: an array all the same. */
		kfree(trs);
		return n == -ENODATA ? 0 : n;
	}
	fresh = kcalloc(n, sizeof(*fresh), GFP_KERNEL);
	if (!fresh)
		goto out;
	for (i = 0; i < n; i++) {
		tr = trs[i];
		if (!tr->tracing)
			continue;	/* forgotten */
		ref = tr->ref;
		kobject_get(ref.kobj);
		fresh[i] = traced_new(&ref, tr->kind, tr->name);
		if (!fresh[i]) {
			slabtrace_cache_put(&ref);
			goto undo;
		}
		/* The filter and the rate go on with the fresh table. */
		fresh[i]->sample_every = tr->sample_every;
		fresh[i]->sample_bytes = tr->sample_bytes;
		filter = rcu_dereference_protected(tr->filter,
						   lockdep_is_held(&leak_mutex));
		RCU_INIT_POINTER(fresh[i]->filter, leak_filter_get(filter));
	}
	/*
	 * Left out before it leaves the set, so that a probe does not take it
	 * for a new cache (one that reads the new set with the old list still
	 * may: a scan then leaves it out); an extra entry, if the reset fails,
	 * is inert.
	 */
	for (i = 0; forget && i < n; i++)
		if (!fresh[i])
			forget(&trs[i]->ref);
	ret = set_replace_many(fresh, trs, n);
	if (ret)
		goto undo;
	traced_free_all(trs, n);
	goto out;
undo:
	/* One walk of the tables for them all, however many. */
	for (i = 0, k = 0; i < n; i++)
		if (fresh[i])
			fresh[k++] = fresh[i];
	if (k)
		traced_release(fresh, k);
out:
	kfree(fresh);
	kfree(trs);
	return ret;
}

/**
 * leak_mark - set the epoch "print CACHE since-mark" counts from
 * @name: a cache, or a word for the traced caches of a set
 *
 * Records made after the command are after the mark, those made before it
 * are not: the mark is the next millisecond of the records' clock, and the
 * command returns once that millisecond has begun.  Called with
 * leak_mutex held.
 *
 * Return: 0 (also for a word none of whose caches is traced: nothing to
 * do, as for stop and reset), -ENOENT for an unknown cache, -ENODATA for
 * one not traced.
 */
int leak_mark(const char *name)
{
	struct leak_traced **trs;
	int i, n;
	u32 *mark;

	lockdep_assert_held(&leak_mutex);
	n = traced_named("mark", name, false, &trs);
	if (n <= 0) {
		kfree(trs);
		return n;
	}
	mark = kmalloc_array(n, sizeof(*mark), GFP_KERNEL);
	if (!mark) {
		kfree(trs);
		return -ENOMEM;
	}
	/* Saturated stamps (a trace of 49 days) all count as after. */
	for (i = 0; i < n; i++)
		mark[i] = min_t(u64, leak_stamp(trs[i], ktime_get_mono_fast_ns()) + 1ULL,
				U32_MAX);
	for (i = 0; i < n; i++) {
		while (leak_stamp(trs[i], ktime_get_mono_fast_ns()) < mark[i])
			usleep_range(USEC_PER_MSEC / 4, USEC_PER_MSEC / 2);
		trs[i]->mark = mark[i];
	}
	kfree(mark);
	kfree(trs);
	return 0;
}

/**
 * leak_traced_sweep - forget the traced caches that were destroyed
 *
 * Called with leak_mutex held, before every command and every scan
 * for new caches.
 *
 * Return: how many were forgotten (their records purged).
 */
unsigned int leak_traced_sweep(void)
{
	char esc[SLABTRACE_ESC_SIZE];
	struct leak_set *set = set_locked();
	struct leak_traced **gone, **none;
	unsigned int i, n = 0, room;

	lockdep_assert_held(&leak_mutex);
	if (!set)
		return 0;
	for (i = 0; i < set->nr; i++)
		n += slabtrace_cache_destroyed(&set->traced[i]->ref);
	if (!n)
		return 0;
	gone = kcalloc(2 * n, sizeof(*gone), GFP_KERNEL);
	if (!gone)
		return 0;	/* kept, until the next sweep */
	none = gone + n;
	/* More may be destroyed meanwhile: those wait for the next sweep. */
	room = n;
	n = 0;
	for (i = 0; i < set->nr && n < room; i++) {
		struct leak_traced *tr = set->traced[i];

		if (!slabtrace_cache_destroyed(&tr->ref))
			continue;
		pr_warn_ratelimited("%s was destroyed while traced: dropping its %ld records\n",
				    slabtrace_esc_str(esc, tr->name),
				    leak_traced_count(tr));
		gone[n++] = tr;
	}
	if (set_replace_many(none, gone, n)) {
		/* Kept, stopped, until the next sweep. */
		for (i = 0; i < n; i++)
			WRITE_ONCE(gone[i]->tracing, false);
		n = 0;
	}
	traced_free_all(gone, n);
	kfree(gone);
	return n;
}

/* At module exit, after the probes and following are gone. */
static void traced_exit(void)
{
	struct leak_set *set;

	mutex_lock(&leak_mutex);
	set = set_locked();

	RCU_INIT_POINTER(leak_active, NULL);
	/*
	 * The probes are gone, but the worker's jobs still run (slab.c's
	 * steps): stacks.c's job reads the set under rcu_read_lock().
	 */
	synchronize_rcu();
	if (set) {
		traced_release(set->traced, set->nr);
		kvfree(set);
	}
	/*
	 * Replaced filters and sets, and follow.c's lists of the caches left
	 * out (published before this): their callbacks are this module's code.
	 */
	rcu_barrier();
	mutex_unlock(&leak_mutex);
}

const struct leak_part leak_traced_part = {
	.step = { "traced caches", NULL, traced_exit },
};
