// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: "start all" starts the caches created after it, too.
 *
 * "start all" starts every slab cache there is; a module loaded later
 * creates caches of its own, and the developer hunting that module's
 * leak wants them traced as well.  While "all" is followed:
 * - a module that has finished loading (MODULE_STATE_LIVE, in its
 *   insmod) has the caches its init created started before insmod
 *   returns: the module notifier lists /sys/kernel/slab as "start all"
 *   does and starts what is neither in the set nor left out, with the
 *   filter and rate "start all" was given (three reads of the directory
 *   and a look at each cache: measured on 6.12 under TCG with 292
 *   caches, an insmod takes 45-65 ms while "all" is followed, 16-22 ms
 *   when it is not; the notifier does nothing then);
 * - a cache created at any other time (a driver's probe, a subsystem's
 *   first use) is found at its first allocation: the kmem_cache_alloc
 *   probe finds a cache that is not in the set (leak_follow_miss()),
 *   counts the allocation as missed and asks the worker (worker.c) for
 *   the same scan: at most one a second, or one in ten seconds after two
 *   that started nothing in a row.  The
 *   allocations made before the scan are not recorded: status counts them.
 *
 * Left out (leak_follow_skip, a hash table the probes look up as
 * they look up the set's caches): slabtrace's own cache, and the caches a
 * "reset" forgot after a "stop" while "all" was followed, so that they
 * stay out.  Each of the latter is held by a kobject reference, so that
 * no new cache takes its address; destroyed, it leaves the list at the
 * next scan.  "start all" again starts them, and empties the list.
 *
 * Following starts with "start all" (again: its filter and rate become
 * the new caches'), and ends with "stop all", when the set empties, or at
 * rmmod.
 *
 * Notes on locking
 * ----------------
 * - follow is under leak_mutex; the probes read its published copy,
 *   leak_follow_skip (RCU; skip_publish()), NULL while following
 *   is off.
 * - The module notifier takes leak_mutex inside the notifier chain's
 *   rwsem: no one registers a module notifier under leak_mutex.
 * - The worker's bit of the scan: a burst of misses queues one scan.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/workqueue.h>

#include <wrapper/workqueue.h>

#include "follow.h"
#include "pool.h"
#include "traced.h"
#include "worker.h"

/*
 * Scans: at most one a second; one in ten after two in a row that
 * started nothing (a cache that cannot start, past LEAK_MAX_CACHES).
 */
#define FOLLOW_EVERY	HZ
#define FOLLOW_IDLE	(10 * HZ)

/* A cache left out, and the reference that keeps its address its own. */
struct follow_skip {
	struct kmem_cache *cache;
	struct kobject *kobj;
};

/* Under leak_mutex. */
static struct {
	bool on;
	struct leak_filter *filter;	/* referenced; NULL: none */
	u32 sample_every;
	u32 sample_bytes;
	int (*attach)(void);	/* the probes for the caches a scan starts */
	/* Left out but slabtrace's own, which skip_publish() adds: kvmalloc()ed. */
	struct follow_skip *skip;
	unsigned int nr_skip;
	unsigned int fruitless;	/* scans in a row that started nothing */
	bool dirty;		/* @skip or @on changed, unpublished */
	unsigned long started;	/* caches started since "start all" */
} follow;

/* Allocations from caches not started yet, since "start all". */
static DEFINE_PER_CPU(unsigned long, follow_missed);
/**
 * leak_follow_kick - a probe saw an allocation from a new cache
 *
 * Counts it as missed and asks the worker for a scan.
 *
 * Context: Any context (a probe); no lock.
 */
void leak_follow_kick(void)
{
	this_cpu_inc(follow_missed);
	leak_work_kick(LEAK_JOB_FOLLOW);
}

static unsigned long follow_missed_sum(void)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu(follow_missed, cpu);
	return n;
}

/* Whether @s is one of the caches left out. */
static bool left_out(const struct kmem_cache *s)
{
	unsigned int i;

	lockdep_assert_held(&leak_mutex);
	for (i = 0; i < follow.nr_skip; i++)
		if (follow.skip[i].cache == s)
			return true;
	return false;
}

/*
 * Let the caches left out go, unpublished: following ends, or "start all"
 * started them, each now held by its traced cache (skip_sweep() is the
 * one that waits for the probes, for caches that are no longer held).
 */
static void skip_clear(void)
{
	unsigned int i;

	lockdep_assert_held(&leak_mutex);
	for (i = 0; i < follow.nr_skip; i++)
		kobject_put(follow.skip[i].kobj);
	kvfree(follow.skip);
	follow.skip = NULL;
	follow.nr_skip = 0;
}

/* Let the caches left out go, and following end, unpublished. */
static void follow_end(void)
{
	lockdep_assert_held(&leak_mutex);
	skip_clear();
	leak_filter_put(follow.filter);
	follow.filter = NULL;
	WRITE_ONCE(follow.on, false);
}

/* The published list: the probes look a cache up in it. */
struct leak_skip __rcu *leak_follow_skip;

static void skip_free_rcu(struct rcu_head *head)
{
	kvfree(container_of(head, struct leak_skip, rcu));
}

static void skip_add(struct leak_skip *skip, const struct kmem_cache *s)
{
	unsigned int i = hash_ptr(s, 32) & skip->mask;

	while (skip->slot[i])
		i = (i + 1) & skip->mask;
	skip->slot[i] = s;
}

/*
 * Publish what the probes need of following: the caches left out and
 * slabtrace's own, or nothing once following ended.  Readers of the old
 * list may go on until a grace period passes.
 *
 * Return: 0, or -ENOMEM (the old list stays).
 */
static int skip_publish(void)
{
	struct leak_skip *old, *new = NULL;
	unsigned int i, slots;

	lockdep_assert_held(&leak_mutex);
	if (follow.on) {
		/* At most half full: a lookup ends at an empty slot. */
		slots = roundup_pow_of_two(max(2 * (follow.nr_skip + 1), 4U));
		new = kvzalloc(struct_size(new, slot, slots), GFP_KERNEL);
		if (!new)
			return -ENOMEM;
		new->mask = slots - 1;
		skip_add(new, leak_record_cache);
		for (i = 0; i < follow.nr_skip; i++)
			skip_add(new, follow.skip[i].cache);
	}
	old = rcu_dereference_protected(leak_follow_skip,
					lockdep_is_held(&leak_mutex));
	rcu_assign_pointer(leak_follow_skip, new);
	if (old)
		call_rcu(&old->rcu, skip_free_rcu);
	follow.dirty = false;
	return 0;
}

/**
 * leak_follow_update - catch up with a change of the set
 *
 * Following ends once no cache is in the set; a list of caches left out
 * that could not be published for want of memory is published now.
 * Called with leak_mutex held, after every command and scan.
 */
void leak_follow_update(void)
{
	lockdep_assert_held(&leak_mutex);
	if (follow.on && !rcu_access_pointer(leak_active)) {
		follow_end();
		follow.dirty = true;
	}
	/* No memory: the probes go on kicking scans, which leave it out. */
	if (follow.dirty)
		skip_publish();
}

/**
 * leak_follow_start - "start all" follows new caches from now on
 * @filter: the filter the new caches get; a reference is taken
 * @sample_every: their rate, as leak_start() takes it
 * @sample_bytes: or their bytes' rate
 * @attach: attaches the probes for the caches a scan starts, as
 *	    leak_start() takes it
 *
 * Called with leak_mutex held, once "start all" started its caches.
 */
void leak_follow_start(struct leak_filter *filter,
		       u32 sample_every, u32 sample_bytes,
		       int (*attach)(void))
{
	struct leak_filter *old = follow.filter;
	bool was = follow.on;
	int cpu;

	lockdep_assert_held(&leak_mutex);
	follow.filter = leak_filter_get(filter);
	leak_filter_put(old);
	follow.sample_every = sample_every;
	follow.sample_bytes = sample_bytes;
	follow.attach = attach;
	if (!was) {
		follow.started = 0;
		WRITE_ONCE(follow.fruitless, 0);
		for_each_possible_cpu(cpu)
			per_cpu(follow_missed, cpu) = 0;
		leak_work_job(LEAK_JOB_FOLLOW, NULL, 0);
		WRITE_ONCE(follow.on, true);
	} else if (!follow.nr_skip) {
		return;
	}
	/*
	 * Those left out were started with the others, each now held by its
	 * traced cache: none is left out any more.
	 */
	skip_clear();
	if (skip_publish()) {
		pr_warn_ratelimited("start: all: no memory to follow new caches\n");
		follow_end();
		skip_publish();
	}
}

/* "stop all": following ends.  Called with leak_mutex held. */
void leak_follow_stop(void)
{
	lockdep_assert_held(&leak_mutex);
	if (!follow.on)
		return;
	follow_end();
	/* No memory: the probes go on kicking scans that find nothing. */
	skip_publish();
	/*
	 * A scan waiting (ten seconds after fruitless ones) would hold back
	 * the first of the next "start all": the next may run at once.
	 */
	leak_work_job(LEAK_JOB_FOLLOW, NULL, 0);
}

/**
 * leak_follow_leave_out - keep a cache out of following
 * @ref: the cache, forgotten by "reset" after "stop"; a reference of its
 *	 own is taken
 *
 * Published at once: "reset" calls it before the cache leaves the set,
 * so that no probe takes it for a new one.  Called with leak_mutex
 * held.
 */
void leak_follow_leave_out(const struct slabtrace_cache_ref *ref)
{
	char esc[SLABTRACE_ESC_SIZE];
	struct follow_skip *skip;

	lockdep_assert_held(&leak_mutex);
	/* kmalloc-large, percpu: no kobject, never new. */
	if (!follow.on || !ref->kobj || left_out(ref->cache))
		return;
	follow.dirty = true;
	skip = kvmalloc_array(follow.nr_skip + 1, sizeof(*skip), GFP_KERNEL);
	if (!skip) {
		pr_warn_ratelimited("reset: no memory to leave %s out of \"start all\": new caches are no longer started\n",
				    slabtrace_esc_str(esc, kobject_name(ref->kobj)));
		follow_end();
		return;
	}
	if (follow.nr_skip)
		memcpy(skip, follow.skip, follow.nr_skip * sizeof(*skip));
	kvfree(follow.skip);
	follow.skip = skip;
	skip = &follow.skip[follow.nr_skip++];
	skip->cache = ref->cache;
	skip->kobj = kobject_get(ref->kobj);
	/* No memory: published at the end of the command (@dirty). */
	skip_publish();
}

/*
 * The caches left out that were destroyed leave the list, published, and
 * their references go once no probe can see the old list: then no new
 * cache at one of their addresses is taken for one left out.
 */
static void skip_sweep(void)
{
	struct follow_skip *gone;
	unsigned int i, n = 0, k = 0, room;

	lockdep_assert_held(&leak_mutex);
	for (i = 0; i < follow.nr_skip; i++)
		n += slabtrace_kobj_destroyed(follow.skip[i].kobj);
	if (!n)
		return;
	gone = kvmalloc_array(n, sizeof(*gone), GFP_KERNEL);
	if (!gone)
		return;		/* kept, until the next scan */
	/* More may be destroyed meanwhile: those wait for the next scan. */
	room = n;
	n = 0;
	for (i = 0; i < follow.nr_skip; i++) {
		if (n < room && slabtrace_kobj_destroyed(follow.skip[i].kobj))
			gone[n++] = follow.skip[i];
		else
			follow.skip[k++] = follow.skip[i];
	}
	follow.nr_skip = k;
	if (skip_publish()) {
		/* Kept until the next scan. */
		memcpy(&follow.skip[k], gone, n * sizeof(*gone));
		follow.nr_skip += n;
	} else {
		synchronize_rcu();
		for (i = 0; i < n; i++)
			kobject_put(gone[i].kobj);
	}
	kvfree(gone);
}

/*
 * Start the caches created since "start all".  Called with
 * leak_mutex held.  Return: whether it started one.
 */
static bool follow_scan(void)
{
	int ret;

	lockdep_assert_held(&leak_mutex);
	/* Caches destroyed: the probes may go (slab.c's idle job). */
	if (leak_traced_sweep())
		leak_work_kick(LEAK_JOB_IDLE);
	leak_follow_update();
	if (!follow.on)
		return false;
	skip_sweep();
	ret = leak_start_new(follow.filter, follow.sample_every,
			     follow.sample_bytes, left_out, follow.attach);
	if (ret < 0) {
		pr_warn_ratelimited("start: all: cannot start new caches (%d)\n",
				    ret);
		/* What a failed attach left attached goes. */
		leak_work_kick(LEAK_JOB_IDLE);
	}
	if (ret <= 0)
		return false;
	follow.started += ret;
	return true;
}

/* The worker's job, kicked by a probe's miss: at most one a second. */
static void follow_job(void)
{
	unsigned int fruitless;

	/*
	 * The misses during this scan (of a cache it starts, or of one that
	 * cannot start) queue the next no sooner than a second from its
	 * start (the worker spaced it so), or ten after fruitless ones.
	 * Under leak_mutex, as "start all" and "stop all" reset the count
	 * and the delay: a scan does not put back a delay they took away.
	 */
	mutex_lock(&leak_mutex);
	fruitless = follow.fruitless;
	if (fruitless >= 2)
		leak_work_job(LEAK_JOB_FOLLOW, NULL, FOLLOW_IDLE);
	fruitless = follow_scan() ? 0 : fruitless + 1;
	WRITE_ONCE(follow.fruitless, fruitless);
	if (fruitless >= 2)
		leak_work_job(LEAK_JOB_FOLLOW, NULL, FOLLOW_IDLE);
	mutex_unlock(&leak_mutex);
}

#ifdef CONFIG_MODULES
/* A module's init is done: its caches start before its insmod returns. */
static int follow_module(struct notifier_block *nb, unsigned long state,
			 void *data)
{
	/* Most modules load with nothing followed: no mutex then. */
	if (state != MODULE_STATE_LIVE || !READ_ONCE(follow.on))
		return NOTIFY_DONE;
	mutex_lock(&leak_mutex);
	if (follow.on)
		follow_scan();
	mutex_unlock(&leak_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block follow_nb = {
	.notifier_call = follow_module,
};
#endif

/**
 * leak_follow_status - the status line of following, if on
 * @m: where
 *
 * Called with leak_mutex held.
 */
void leak_follow_status(struct seq_file *m)
{
	lockdep_assert_held(&leak_mutex);
	if (!follow.on)
		return;
	seq_printf(m, "new caches: started as \"start all\" was: %lu so far; allocations made before their start (not recorded): %lu",
		   follow.started, follow_missed_sum());
	if (follow.nr_skip)
		seq_printf(m, "; left out after a reset: %u", follow.nr_skip);
	seq_putc(m, '\n');
}

/*
 * A step of loading (slab.c), once the worker runs and before anything
 * can ask for the scan: the scan's job and the module notifier.
 */
static int follow_init(void)
{
	leak_work_job(LEAK_JOB_FOLLOW, follow_job, FOLLOW_EVERY);
#ifdef CONFIG_MODULES
	return register_module_notifier(&follow_nb);
#else
	return 0;	/* no module ever comes */
#endif
}

/*
 * Unloading, once the probes are gone (no more kicks), before the traced
 * caches go: no module event comes any more, and following ends, under
 * leak_mutex; a scan the worker runs after it finds nothing to follow.
 */
static void follow_exit(void)
{
#ifdef CONFIG_MODULES
	unregister_module_notifier(&follow_nb);
#endif
	mutex_lock(&leak_mutex);
	if (follow.on)
		follow_end();
	skip_publish();
	mutex_unlock(&leak_mutex);
}

const struct leak_part leak_follow_part = {
	.step = { "new caches", follow_init, follow_exit },
};
