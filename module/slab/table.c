// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: the table of outstanding objects, every traced cache's, by
 * object address.
 *
 * One table, not one per cache: an address belongs to one live object at
 * a time, so a free finds its record with one lookup whatever cache holds
 * it, and an allocation finds the stale record of a reused address (its
 * object freed through a path with no tracepoint) whatever cache it was
 * in.  Each record says which traced cache owns it (rec->owner), and the
 * table counts records by owner.
 *
 * It is written from every context an allocation or a free can happen in,
 * hardirq included, with preemption disabled, on PREEMPT_RT too: chains of
 * records under striped raw spinlocks, never a sleeping lock.  It is not an
 * rhashtable: rhashtable's bucket locks only disable bottom halves on v6.1
 * and are not raw, and its inserts allocate.
 *
 * A free of an object nobody traces must cost as little as possible: every
 * bucket has a 16-bit signature, the OR of two bits per record in its
 * chain (picked by hash bits no bucket index uses), read with no lock:
 * leak_table_maybe() is false for most untraced objects after one
 * load.  A signature may have bits too many, never one too few for an
 * object inserted before the check (see the grow, below).
 *
 * The signatures cost 2 bytes a bucket (1 to 2 a record) and 50 lines.
 * Without them (leak_table_maybe() true while the table holds records),
 * make bench-peers part 1 added 19 instructions an untraced event with
 * one cache traced (2 % more) and saved 70-90 a traced object with the
 * churn's 7 caches or "start all" (1.5-1.8 % less); in make bench a
 * kfree() of an untraced object while 16 caches hold a million records
 * took 86-133 ns with them, 241-528 ns without (3 runs each;
 * Documentation/benchmarks.rst).  Kept: tracing a few caches among many
 * is the common case, and without them every free in the system, traced
 * or not, takes a lock with interrupts off and writes its cacheline, a
 * cost that grows with the CPUs and that instruction counts do not show.
 *
 * 128 lock stripes, not one: 8 KB and about 20 lines of the grow; the
 * same instructions uncontended.  What they save under parallel tracing
 * could not be measured on this project's 2-core machines (a 2-vCPU TCG
 * guest, thread=multi, the churn on both CPUs under "start all": one lock
 * was found taken at 22-76 of 134,000 acquisitions, the stripes at 0-6,
 * and wall times varied 3-fold with the host's load).  One lock would be
 * taken twice a traced object (40 ns of a 1.1-1.9 us pair, make bench),
 * busy 3 % of each tracing CPU's time: a few dozen would saturate it.
 * Kept, as the kernel's socket hash stripes its locks
 * (inet_ehash_locks_alloc()).
 *
 * It grows with its records rather than being sized once, for the record
 * limit, at "start": the default limit (records worth 1/64 of RAM) is
 * about 930,000 records on a 4 GB machine and 15 million on 64 GB, so a
 * table sized for it would take about 12 MB and 200 MB of vmalloc (10-12
 * bytes a bucket) at the first "start", however few objects are then
 * traced.  This one starts at 1,024 buckets (12 KB), grows to 524,288
 * (6.3 MB) for a million records, and shrinks back after a reset
 * (Documentation/benchmarks.rst, make bench-peers part 4).
 *
 * Growing moves one bucket per lock hold, so interrupts are never off for
 * more than one chain.  Stripe i's buckets, in an array of any size (a
 * power of two, at least LEAK_TABLE_LOCKS), are the hashes with the
 * same low bits, so each stripe moves on its own: while a grow runs, a
 * stripe's first @moved buckets are in @new, the rest in @old.  The lockless
 * check reads t->cur, the old array until every bucket has moved, so a
 * record inserted into the new array meanwhile sets its bit in the old
 * array's signature too, and no signature of the old array is cleared
 * during a grow.  Only then is t->cur the new array; the old one is freed
 * after an RCU grace period (the probes run with preemption disabled).
 *
 * A grow that finds no memory is not tried again for a while
 * (GROW_BACKOFF_MIN, doubling up to GROW_BACKOFF_MAX after each failure):
 * every insert past the threshold would otherwise queue another attempt
 * at the largest allocation slabtrace makes.  Argued, not measured:
 * without it the worker would retry, back to back while probes insert, a
 * kvzalloc() of up to 168 MB (__GFP_NORETRY: the contiguous attempt
 * gives up after one round of reclaim, and the vmalloc() fallback's pages
 * never wake the OOM killer) on a system short of memory; never retrying would
 * leave chains of hundreds of records for the rest of a trace.  It costs
 * 2 fields and 15 lines.  Meanwhile the probes insert no more than
 * LEAK_TABLE_LOAD_MAX records a bucket (leak_table_full()): a chain, which
 * they walk under a raw lock, never grows without bound.
 *
 * Shrinking is the same move to a smaller array: a stripe's buckets are
 * still the hashes with its low bits, several old buckets pour into one
 * new one, and a record's old bucket still says whether it has moved.
 * It is done from process context only, when a purge ("reset") leaves the
 * table far emptier than its size (fewer than one record in SHRINK_BELOW
 * buckets), or an iteration ("print") finds it so after the objects were
 * freed: the probes never ask for it, so the free path is unchanged.  A
 * table that was big gives its memory back after the reset.  Every record
 * ends up in the small array, those inserted while the shrink moves
 * included (into a moved bucket at once, into one not yet moved with
 * it), so the probes' limit counts the small array's buckets
 * (t->load_buckets): a shrink of 2^24 buckets is 16 million lock holds,
 * long enough for a busy cache to pour hundreds of records into each of
 * 1,024 chains otherwise.
 *
 * Notes on locking
 * ----------------
 * - t->stripe[i].lock (raw spinlock, irq-safe): stripe i, that is the
 *   chains and signatures of every bucket b with b % LEAK_TABLE_LOCKS
 *   == i, the stripe's @old, @new and @moved, and the records on those
 *   chains.  Taken from any context but NMI.  Never two at once.
 * - t->grow_mutex: t->cur, and the right to move records between arrays.
 *   Held by the grow work, by purges (and their shrink), and by iterators
 *   (so an iterator never sees a record twice).  Taken before a stripe
 *   lock.
 * - t->cur is read under RCU (sched) by leak_table_maybe() and
 *   leak_table_buckets(); t->load_buckets, written under t->grow_mutex,
 *   with no lock by leak_table_full().
 * - t->grow_retry and t->grow_backoff are written under t->grow_mutex;
 *   the inserts read t->grow_retry with no lock (grow_waits()).
 * - t->nr and t->owned[] are atomic; only approximate between locks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "hold.h"
#include "pool.h"
#include "table.h"
#include "worker.h"

#define TABLE_MIN_BUCKETS	1024UL
#define TABLE_MAX_BUCKETS	BIT(24)
/* A purge shrinks the table when it leaves fewer records than this many. */
#define SHRINK_BELOW		8
/* How long no grow is tried after a failed one: doubling, within these. */
#define GROW_BACKOFF_MIN	HZ
#define GROW_BACKOFF_MAX	(64 * HZ)

static_assert(TABLE_MIN_BUCKETS >= LEAK_TABLE_LOCKS);
static_assert(LEAK_TABLE_SIG_SHIFT >= 24);	/* ilog2(TABLE_MAX_BUCKETS) */
static_assert(LEAK_TABLE_SIG_SHIFT + 8 == 32);
static_assert(sizeof(struct leak_record) == 64);
static_assert(!(LEAK_TABLE_LOCKS & (LEAK_TABLE_LOCKS - 1)));
static_assert(LEAK_MAX_OWNERS <= U16_MAX);

/* The records of every traced cache. */
struct leak_table leak_records;

static inline unsigned int stripe_of(u32 hash)
{
	return hash & (LEAK_TABLE_LOCKS - 1);
}

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* The tests set it to see a grow fail, and count the tries. */
bool leak_fail_grow;
unsigned long leak_grow_tries;
#endif

/* Never the OOM killer: a table that cannot grow works, only slower. */
static struct leak_buckets *buckets_alloc(unsigned long n)
{
	struct leak_buckets *b;
	size_t size;

	size = size_add(struct_size(b, head, n), array_size(n, sizeof(u16)));
	b = kvzalloc(size, GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
	if (b) {
		b->mask = n - 1;
		b->sig = (u16 *)&b->head[n];
	}
	return b;
}

/* buckets_alloc() for a grow (the tests see it fail, and count it). */
static struct leak_buckets *grow_alloc(unsigned long n)
{
#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
	leak_grow_tries++;
	if (READ_ONCE(leak_fail_grow))
		return NULL;
#endif
	return buckets_alloc(n);
}

/* The array the chain of @hash is in.  Called with its stripe lock held. */
static struct leak_buckets *chain_array(struct leak_stripe *st,
					u32 hash)
{
	lockdep_assert_held(&st->lock);
	if (st->new &&
	    (hash & st->old->mask) / LEAK_TABLE_LOCKS < st->moved)
		return st->new;
	return st->old;
}

static void sig_set(struct leak_buckets *b, u32 hash)
{
	unsigned long i = hash & b->mask;

	WRITE_ONCE(b->sig[i], b->sig[i] | leak_table_sig(hash));
}

/* The signature of bucket @i: its chain's bits, no more. */
static void sig_update(struct leak_buckets *b, unsigned long i)
{
	struct leak_record *rec;
	u16 sig = 0;

	for (rec = b->head[i]; rec; rec = rec->next)
		sig |= leak_table_sig(leak_table_hash(rec->obj));
	WRITE_ONCE(b->sig[i], sig);
}

/*
 * Move the next bucket of stripe @i to the new array.  Called with its
 * stripe lock held, by resize() (a grow or a shrink) with t->grow_mutex
 * held.
 */
static unsigned int move_bucket(struct leak_stripe *st, unsigned int i)
{
	unsigned long ob = i + st->moved * LEAK_TABLE_LOCKS;
	struct leak_record *rec;
	unsigned int n = 0;

	lockdep_assert_held(&st->lock);
	while ((rec = st->old->head[ob])) {
		u32 hash = leak_table_hash(rec->obj);
		unsigned long nb = hash & st->new->mask;

		st->old->head[ob] = rec->next;
		rec->next = st->new->head[nb];
		st->new->head[nb] = rec;
		sig_set(st->new, hash);
		n++;
	}
	st->moved++;
	return n;
}

/*
 * The size for @nr records in a table of @size buckets, or @size.  Grow
 * past two records a bucket; shrink, if @shrink, below one in
 * SHRINK_BELOW, to at most one a bucket: far from both thresholds.
 */
static unsigned long resize_target(unsigned long nr, unsigned long size,
				   bool shrink)
{
	if (nr > 2 * size && size < TABLE_MAX_BUCKETS)
		/* Between one and two records a bucket: 5 to 10 bytes a record. */
		return min(roundup_pow_of_two(nr) / 2, TABLE_MAX_BUCKETS);
	if (shrink && nr < size / SHRINK_BELOW && size > TABLE_MIN_BUCKETS)
		return max(roundup_pow_of_two(nr + 1), TABLE_MIN_BUCKETS);
	return size;
}

/*
 * Whether a failed grow's backoff still runs.  A retry time further ahead
 * than the longest backoff is one long past that wrapped: with 32-bit
 * jiffies, time_before() takes a time 24.8 days old for one to come.
 */
static bool grow_waits(const struct leak_table *t)
{
	unsigned long wait = READ_ONCE(t->grow_retry) - jiffies;

	return wait && wait <= GROW_BACKOFF_MAX;
}

/*
 * Move every record to an array of the size they need now, if that is not
 * the size they have.  Called with t->grow_mutex held.  May sleep.
 */
static void resize(struct leak_table *t, bool shrink)
{
	struct leak_buckets *old, *new;
	unsigned long size, old_size, k, per_stripe, flags;
	unsigned int i, n;
	u64 t0;

	lockdep_assert_held(&t->grow_mutex);
	old = rcu_dereference_protected(t->cur,
					lockdep_is_held(&t->grow_mutex));
	old_size = old->mask + 1;
	size = resize_target(atomic_long_read(&t->nr), old_size, shrink);
	if (size == old_size || (size > old_size && grow_waits(t)))
		return;
	new = size > old_size ? grow_alloc(size) : buckets_alloc(size);
	if (!new) {
		/* A table that cannot shrink only keeps its memory. */
		if (size > old_size) {
			atomic_long_inc(&t->grow_failed);
			t->grow_backoff = clamp(2 * t->grow_backoff,
						GROW_BACKOFF_MIN,
						GROW_BACKOFF_MAX);
			WRITE_ONCE(t->grow_retry, jiffies + t->grow_backoff);
		}
		pr_warn_ratelimited("no memory for a table of %lu buckets\n",
				    size);
		return;
	}
	if (size > old_size)
		t->grow_backoff = 0;
	/* A shrink's records all end up in @new: the limit counts the smaller. */
	WRITE_ONCE(t->load_buckets, min(size, old_size));
	for (i = 0; i < LEAK_TABLE_LOCKS; i++) {
		raw_spin_lock_irqsave(&t->stripe[i].lock, flags);
		t->stripe[i].new = new;
		t->stripe[i].moved = 0;
		raw_spin_unlock_irqrestore(&t->stripe[i].lock, flags);
	}
	per_stripe = old_size / LEAK_TABLE_LOCKS;
	for (k = 0; k < per_stripe; k++) {
		for (i = 0; i < LEAK_TABLE_LOCKS; i++) {
			t0 = ktime_get_ns();
			raw_spin_lock_irqsave(&t->stripe[i].lock, flags);
			n = move_bucket(&t->stripe[i], i);
			raw_spin_unlock_irqrestore(&t->stripe[i].lock, flags);
			leak_hold_end(LEAK_HOLD_GROW, t0, n);
			t->grow_hold_ns += ktime_get_ns() - t0;
			t->grow_steps++;
			t->grow_most_moved = max(t->grow_most_moved, n);
		}
#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
		if (t->grow_step)
			t->grow_step(t);
#endif
		cond_resched();
	}
	/* Every record is in @new, with its bit: the lockless check may use it. */
	rcu_assign_pointer(t->cur, new);
	WRITE_ONCE(t->load_buckets, size);
	for (i = 0; i < LEAK_TABLE_LOCKS; i++) {
		raw_spin_lock_irqsave(&t->stripe[i].lock, flags);
		t->stripe[i].old = new;
		t->stripe[i].new = NULL;
		t->stripe[i].moved = 0;
		raw_spin_unlock_irqrestore(&t->stripe[i].lock, flags);
	}
	synchronize_rcu();
	kvfree(old);
	if (size < old_size)
		t->shrinks++;
}

/* Grow @t if an insert asked for it, or wait for the grow under way. */
static void grow_asked(struct leak_table *t)
{
	mutex_lock(&t->grow_mutex);
	if (test_and_clear_bit(0, &t->grow_asked))
		resize(t, false);
	mutex_unlock(&t->grow_mutex);
}

/* The worker's job: slabtrace's table (others grow when flushed). */
static void grow_job(void)
{
	grow_asked(&leak_records);
}

/**
 * leak_table_init - make an empty table
 * @t: the table, zeroed
 *
 * Return: 0 or -ENOMEM.
 */
VISIBLE_IF_KUNIT int leak_table_init(struct leak_table *t)
{
	struct leak_buckets *b;
	unsigned int i;

	b = buckets_alloc(TABLE_MIN_BUCKETS);
	if (!b)
		return -ENOMEM;
	for (i = 0; i < LEAK_TABLE_LOCKS; i++) {
		raw_spin_lock_init(&t->stripe[i].lock);
		t->stripe[i].old = b;
		t->stripe[i].new = NULL;
		t->stripe[i].moved = 0;
	}
	RCU_INIT_POINTER(t->cur, b);
	t->load_buckets = TABLE_MIN_BUCKETS;
	atomic_long_set(&t->nr, 0);
	for (i = 0; i < LEAK_MAX_OWNERS; i++)
		atomic_long_set(&t->owned[i], 0);
	atomic_long_set(&t->grow_failed, 0);
	t->grow_retry = jiffies;
	t->grow_backoff = 0;
	t->shrinks = 0;
	t->grow_steps = 0;
	t->grow_hold_ns = 0;
	t->grow_most_moved = 0;
	mutex_init(&t->grow_mutex);
	t->grow_asked = 0;
	/* The tests' tables grow when they flush them. */
	if (t == &leak_records)
		leak_work_job(LEAK_JOB_GROW, grow_job, 0);
	return 0;
}

/**
 * leak_table_destroy - free a table and every record in it
 * @t: the table
 * @free_rec: frees a record
 *
 * Nothing may use @t any more: the probes are unregistered and synchronised.
 * Tolerates a table whose init failed.
 */
VISIBLE_IF_KUNIT void leak_table_destroy(struct leak_table *t,
					 void (*free_rec)(struct leak_record *rec))
{
	struct leak_buckets *b = rcu_dereference_protected(t->cur, 1);
	struct leak_record *rec;
	unsigned long i;

	if (!b)
		return;
	/* No grow is under way: the worker stopped first. */
	b = rcu_dereference_protected(t->cur, 1);
	for (i = 0; i <= b->mask; i++) {
		while ((rec = b->head[i])) {
			b->head[i] = rec->next;
			free_rec(rec);
		}
		if (!(i % 4096))
			cond_resched();
	}
	kvfree(b);
	RCU_INIT_POINTER(t->cur, NULL);
	mutex_destroy(&t->grow_mutex);
}

/**
 * leak_table_insert - add the record of a new object
 * @t: the table
 * @rec: the record, with ->obj and ->owner set
 *
 * An object can only be allocated again once freed, so a record already
 * there for the same address, whatever its owner, is stale: its free took
 * a path with no tracepoint (kmem_cache_free_bulk(), kfree_rcu() batches).
 * It is replaced.
 *
 * Context: Any context but NMI (a probe); takes one stripe's raw spinlock,
 * interrupts off, for one bucket's chain.
 * Return: the stale record, unlinked, for the caller to free; or NULL.
 */
struct leak_record *leak_table_insert(struct leak_table *t,
				      struct leak_record *rec)
{
	u32 hash = leak_table_hash(rec->obj);
	struct leak_stripe *st = &t->stripe[stripe_of(hash)];
	struct leak_record **pp, *old = NULL;
	struct leak_buckets *b;
	unsigned long flags, size;
	long nr = 0;

	raw_spin_lock_irqsave(&st->lock, flags);
	b = chain_array(st, hash);
	for (pp = &b->head[hash & b->mask]; *pp; pp = &(*pp)->next) {
		if ((*pp)->obj == rec->obj) {
			old = *pp;
			rec->next = old->next;
			*pp = rec;
			break;
		}
	}
	if (!old) {
		pp = &b->head[hash & b->mask];
		rec->next = *pp;
		*pp = rec;
		nr = atomic_long_inc_return(&t->nr);
	} else {
		atomic_long_dec(&t->owned[old->owner]);
	}
	atomic_long_inc(&t->owned[rec->owner]);
	sig_set(b, hash);
	/* The lockless check reads the old array until the grow is done. */
	if (b == st->new)
		sig_set(st->old, hash);
	size = b->mask + 1;
	raw_spin_unlock_irqrestore(&st->lock, flags);

	leak_table_ask_grow(t, nr, size);
	return old;
}

/**
 * leak_table_ask_grow - have the worker grow @t, if it needs to and may
 * @t: the table
 * @nr: its records
 * @size: its buckets
 *
 * At 2 records a bucket, unless a grow is asked already, or a failed one
 * waits (grow_waits()).  Inserts ask, and so do the probes that find the
 * table full (leak_table_full()), which insert nothing.
 *
 * Context: Any context but NMI (a probe); no lock.
 */
void leak_table_ask_grow(struct leak_table *t, long nr, unsigned long size)
{
	if (nr > 2 * size && size < TABLE_MAX_BUCKETS && !grow_waits(t) &&
	    !test_bit(0, &t->grow_asked) && !test_and_set_bit(0, &t->grow_asked))
		leak_work_kick(LEAK_JOB_GROW);
}

/**
 * leak_table_remove - unlink the record of a freed object
 * @t: the table
 * @obj: the object
 *
 * Context: Any context but NMI (a probe); takes one stripe's raw spinlock,
 * interrupts off, for one bucket's chain.
 * Return: the record, now the caller's to free; NULL if @obj has none.
 */
struct leak_record *leak_table_remove(struct leak_table *t,
				      const void *obj)
{
	u32 hash = leak_table_hash(obj);
	struct leak_stripe *st = &t->stripe[stripe_of(hash)];
	struct leak_record **pp, *rec = NULL;
	struct leak_buckets *b;
	unsigned long flags;

	raw_spin_lock_irqsave(&st->lock, flags);
	b = chain_array(st, hash);
	for (pp = &b->head[hash & b->mask]; *pp; pp = &(*pp)->next) {
		if ((*pp)->obj == obj) {
			rec = *pp;
			*pp = rec->next;
			atomic_long_dec(&t->nr);
			atomic_long_dec(&t->owned[rec->owner]);
			break;
		}
	}
	/* The old array's signatures only gain bits while a grow runs. */
	if (rec && (!st->new || b == st->new))
		sig_update(b, hash & b->mask);
	raw_spin_unlock_irqrestore(&st->lock, flags);
	return rec;
}

/**
 * leak_table_holds - whether @obj has a record of @owner
 * @t: the table
 * @obj: the object
 * @owner: the owner
 *
 * Context: Any context but NMI (a probe); takes one stripe's raw spinlock,
 * interrupts off, for one bucket's chain.
 * Return: true if the table holds a record of @obj with owner @owner.
 */
bool leak_table_holds(struct leak_table *t, const void *obj,
		      u16 owner)
{
	u32 hash = leak_table_hash(obj);
	struct leak_stripe *st = &t->stripe[stripe_of(hash)];
	struct leak_record *rec;
	struct leak_buckets *b;
	unsigned long flags;
	bool found = false;

	raw_spin_lock_irqsave(&st->lock, flags);
	b = chain_array(st, hash);
	for (rec = b->head[hash & b->mask]; rec; rec = rec->next) {
		if (rec->obj == obj) {
			found = rec->owner == owner;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&st->lock, flags);
	return found;
}

/*
 * Let a grow that was asked for finish, or do it now, for any table (the
 * worker grows slabtrace's own only).  May sleep.
 */
VISIBLE_IF_KUNIT void leak_table_flush(struct leak_table *t)
{
	grow_asked(t);
}

/*
 * The number of buckets now (for the stats and the tests): read as the
 * probes read it, not under t->grow_mutex, which a print holds while it
 * copies every record (a read of the stats would wait for it).
 */
VISIBLE_IF_KUNIT unsigned long leak_table_buckets(struct leak_table *t)
{
	unsigned long n;

	rcu_read_lock_sched();
	n = rcu_dereference_sched(t->cur)->mask + 1;
	rcu_read_unlock_sched();
	return n;
}

/**
 * leak_table_set_stack - give a record the backtrace saved for it late
 * @t: the table
 * @obj: the record's object
 * @owner: its owner
 * @stamp: its stamp
 * @tag: its defer tag (leak_who.defer_tag), never 0
 * @stack: the backtrace; 0 only finds the record
 *
 * Only a record still without one, and with the same owner, stamp and
 * tag: the object may have been freed and its address allocated again
 * meanwhile, even by the same owner in the same millisecond; the tag,
 * given to a record before it is in the table and only when its trace
 * is deferred, tells that record apart.
 *
 * Return: whether the record was found.
 */
bool leak_table_set_stack(struct leak_table *t, const void *obj,
			  u16 owner, u32 stamp, u16 tag,
			  depot_stack_handle_t stack)
{
	u32 hash = leak_table_hash(obj);
	struct leak_stripe *st = &t->stripe[stripe_of(hash)];
	struct leak_record *rec;
	struct leak_buckets *b;
	unsigned long flags;
	bool found = false;

	raw_spin_lock_irqsave(&st->lock, flags);
	b = chain_array(st, hash);
	for (rec = b->head[hash & b->mask]; rec; rec = rec->next) {
		if (rec->obj == obj && rec->owner == owner &&
		    rec->stamp == stamp && rec->who.defer_tag == tag &&
		    !rec->stack) {
			rec->stack = stack;
			found = true;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&st->lock, flags);
	return found;
}

#if LEAK_TESTS
/* The stripe lock a record of @obj would be under (for the tests). */
raw_spinlock_t *leak_table_lock_of(struct leak_table *t,
				   const void *obj)
{
	return &t->stripe[stripe_of(leak_table_hash(obj))].lock;
}
#endif

/* Records of the owners in @owners left in @t (approximately, between locks). */
static long owners_left(struct leak_table *t, const unsigned long *owners)
{
	unsigned int o;
	long n = 0;

	for_each_set_bit(o, owners, LEAK_MAX_OWNERS)
		n += atomic_long_read(&t->owned[o]);
	return n;
}

/**
 * leak_table_count_except - the records of every owner but one
 * @t: the table
 * @owner: the owner left out; -1: none
 *
 * The sum of the owners' counts, not t->nr less @owner's: a remove
 * lowers t->nr and then the owner's count, so a difference read between
 * them, while @owner's probes run, is one too high (or, across an
 * insert, one too low).  Each count alone only moves with a record of
 * its own owner.
 *
 * Return: the count, approximate only while other owners' records come
 * and go.
 */
long leak_table_count_except(struct leak_table *t, int owner)
{
	int o;
	long n = 0;

	for (o = 0; o < LEAK_MAX_OWNERS; o++)
		if (o != owner)
			n += atomic_long_read(&t->owned[o]);
	return n;
}

/**
 * leak_table_purge_owners - drop every record of some owners
 * @t: the table
 * @owners: a bitmap of LEAK_MAX_OWNERS owners
 * @free_rec: frees a record, called with no lock held
 *
 * One walk of the table, however many owners; one bucket per lock hold;
 * then the table shrinks if it is far emptier than its size.  No record
 * of these owners may be inserted meanwhile.  May sleep.
 *
 * Return: the number of records dropped.
 */
unsigned long leak_table_purge_owners(struct leak_table *t,
				      const unsigned long *owners,
				      void (*free_rec)(struct leak_record *rec))
{
	struct leak_record **pp, *rec, *gone;
	struct leak_buckets *b;
	unsigned long i, flags, n = 0;
	unsigned int s, walked;
	bool left = true;
	u64 t0;

	mutex_lock(&t->grow_mutex);
	b = rcu_dereference_protected(t->cur, lockdep_is_held(&t->grow_mutex));
	for (i = 0; i <= b->mask && left; i++) {
		s = i & (LEAK_TABLE_LOCKS - 1);
		gone = NULL;
		walked = 0;
		t0 = leak_hold_start();
		raw_spin_lock_irqsave(&t->stripe[s].lock, flags);
		for (pp = &b->head[i]; (rec = *pp); walked++) {
			if (!test_bit(rec->owner, owners)) {
				pp = &rec->next;
				continue;
			}
			*pp = rec->next;
			rec->next = gone;
			gone = rec;
			atomic_long_dec(&t->nr);
			atomic_long_dec(&t->owned[rec->owner]);
		}
		if (gone)
			sig_update(b, i);
		raw_spin_unlock_irqrestore(&t->stripe[s].lock, flags);
		leak_hold_end(LEAK_HOLD_PURGE, t0, walked);
		while ((rec = gone)) {
			gone = rec->next;
			free_rec(rec);
			n++;
		}
		if (!(i % 1024)) {
			left = owners_left(t, owners) > 0;
			cond_resched();
		}
	}
	resize(t, true);
	mutex_unlock(&t->grow_mutex);
	return n;
}

#if LEAK_TESTS
/**
 * leak_table_purge - drop every record of one owner (for the tests)
 * @t: the table
 * @owner: the owner
 * @free_rec: frees a record, called with no lock held
 *
 * Return: the number of records dropped.
 */
unsigned long leak_table_purge(struct leak_table *t, u16 owner,
			       void (*free_rec)(struct leak_record *rec))
{
	DECLARE_BITMAP(owners, LEAK_MAX_OWNERS);

	bitmap_zero(owners, LEAK_MAX_OWNERS);
	__set_bit(owner, owners);
	return leak_table_purge_owners(t, owners, free_rec);
}
#endif

/**
 * leak_table_iter_start - start copying a table out, bucket by bucket
 * @it: the iterator
 * @t: the table
 *
 * Lets a pending grow finish, shrinks a table far emptier than its size,
 * then holds off resizing until leak_table_iter_stop(), so every
 * record present throughout is seen exactly once.  May sleep.
 */
VISIBLE_IF_KUNIT void leak_table_iter_start(struct leak_table_iter *it,
					    struct leak_table *t)
{
	leak_table_flush(t);
	mutex_lock(&t->grow_mutex);
	resize(t, true);
	it->t = t;
	it->bucket = 0;
	it->need = 0;
}

/**
 * leak_table_iter_next - copy the records of the next bucket
 * @it: the iterator
 * @buf: where to copy them
 * @room: how many fit in @buf
 *
 * Return: the number of records copied, having moved on to the next
 * bucket; -ENOSPC, with it->need set, if the bucket holds more than @room
 * (the same bucket comes next); -ENOENT after the last bucket.
 */
VISIBLE_IF_KUNIT int leak_table_iter_next(struct leak_table_iter *it,
					  struct leak_record *buf,
					  unsigned int room)
{
	struct leak_table *t = it->t;
	struct leak_record *rec;
	struct leak_buckets *b;
	unsigned long flags;
	unsigned int i, n = 0;

	b = rcu_dereference_protected(t->cur, lockdep_is_held(&t->grow_mutex));
	if (it->bucket > b->mask)
		return -ENOENT;
	i = it->bucket & (LEAK_TABLE_LOCKS - 1);
	raw_spin_lock_irqsave(&t->stripe[i].lock, flags);
	for (rec = b->head[it->bucket]; rec; rec = rec->next)
		n++;
	if (n <= room) {
		n = 0;
		for (rec = b->head[it->bucket]; rec; rec = rec->next)
			buf[n++] = *rec;
	}
	raw_spin_unlock_irqrestore(&t->stripe[i].lock, flags);
	if (n > room) {
		it->need = n;
		return -ENOSPC;
	}
	it->bucket++;
	return n;
}

VISIBLE_IF_KUNIT void leak_table_iter_stop(struct leak_table_iter *it)
{
	mutex_unlock(&it->t->grow_mutex);
}

/* Records copied out under one lock hold: a bucket's chain, usually 0-3. */
#define SPILL	32

/**
 * leak_table_for_each - call a function on a copy of every record
 * @t: the table
 * @fn: called with no spinlock held (it may sleep); a non-zero return
 *	stops the walk
 * @arg: passed to @fn
 * @killable: stop with -EINTR when the caller is killed (a print);
 *	false for a walk that must finish (a module's frames named before
 *	it goes: the task unloading it may be killed meanwhile)
 *
 * Every record present throughout is seen exactly once.  May sleep.
 *
 * Return: 0, @fn's non-zero return, -EINTR or -ENOMEM.
 */
int leak_table_for_each(struct leak_table *t,
			int (*fn)(const struct leak_record *rec,
				  void *arg),
			void *arg, bool killable)
{
	const gfp_t gfp = GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN;
	struct leak_record *spill, *bigger;
	struct leak_table_iter it;
	unsigned int room = SPILL;
	int i, n, ret = 0;

	spill = kmalloc_array(room, sizeof(*spill), gfp);
	if (!spill)
		return -ENOMEM;
	leak_table_iter_start(&it, t);
	while (!ret && (n = leak_table_iter_next(&it, spill, room)) !=
		       -ENOENT) {
		if (n == -ENOSPC) {
			/* A long chain: the table has not grown yet. */
			room = it.need + SPILL;
			bigger = krealloc_array(spill, room, sizeof(*spill), gfp);
			if (!bigger)
				ret = -ENOMEM;
			else
				spill = bigger;
			continue;
		}
		for (i = 0; i < n && !ret; i++)
			ret = fn(&spill[i], arg);
		if (!(it.bucket % 1024)) {
			cond_resched();
			if (!ret && killable && fatal_signal_pending(current))
				ret = -EINTR;
		}
	}
	leak_table_iter_stop(&it);
	kfree(spill);
	return ret;
}

/* slabtrace's table: a step of loading (slab.c). */
static int table_part_init(void)
{
	return leak_table_init(&leak_records);
}

/* Its records go back to the pool. */
static void table_part_exit(void)
{
	leak_table_destroy(&leak_records, leak_record_free);
}

/* "table buckets 2048 grow_failed 0 grow_steps 1024 ..." */
static void table_stats(struct seq_file *m)
{
	struct leak_table *t = &leak_records;

	seq_printf(m, "table buckets %lu grow_failed %ld grow_steps %lu most_moved_in_a_step %u shrinks %lu\n",
		   leak_table_buckets(t), atomic_long_read(&t->grow_failed),
		   READ_ONCE(t->grow_steps), READ_ONCE(t->grow_most_moved),
		   READ_ONCE(t->shrinks));
}

const struct leak_part leak_table_part = {
	.step = { "record table", table_part_init, table_part_exit },
	.stats = table_stats,
};
