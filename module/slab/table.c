// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: the table of outstanding objects of one traced cache.
 *
 * A hash table keyed by object address, written from every context an
 * allocation or a free can happen in, hardirq included.  It is not an
 * rhashtable because rhashtable's bucket locks only disable bottom halves
 * on v6.1 (rht_lock(); v6.12 made them irq-safe): a kfree() from a hardirq
 * that interrupts its deferred rehash on the same CPU would spin forever on
 * the bucket lock the rehash holds.  So: chains of records under striped,
 * irq-safe spinlocks, the layout rhashtable used before bit locks, and a
 * grow step in process context that moves one stripe at a time.  Records
 * are only reached under their stripe's lock, so they are freed at once,
 * with no RCU grace period and no rcu_head: a record is 40 bytes.
 *
 * Notes on locking
 * ----------------
 * - t->stripe[i].lock (spinlock, irq-safe): stripe i, that is the chains
 *   of every bucket b with b % SLABTRACE_TABLE_LOCKS == i,
 *   t->stripe[i].buckets, and the lifetime of the records on those
 *   chains.  Taken from any context.  Never two at once.  Each stripe has
 *   a cacheline, so CPUs working on different stripes do not share one.
 * - t->grow_mutex: t->buckets, and the right to move records between
 *   bucket arrays.  Held by the grow work and by iterators, so an iterator
 *   never sees a record twice.  Taken before a stripe lock.
 * - t->nr is atomic and only approximate between the two locks.
 *
 * Stripe i's buckets in a table of any size (a power of two, at least
 * SLABTRACE_TABLE_LOCKS) are the hashes with the same low bits, so a stripe
 * can move to a bigger array on its own: t->stripe[i].buckets says which
 * array stripe i is in while a grow is half done.  A probe that finds the
 * table too full queues the grow through an irq_work: it may run under
 * any lock, the workqueue's and the scheduler's included.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <slabtrace/slabtrace.h>

#define TABLE_MIN_BUCKETS	1024UL
#define TABLE_MAX_BUCKETS	BIT(24)

static_assert(TABLE_MIN_BUCKETS >= SLABTRACE_TABLE_LOCKS);
static_assert(sizeof(struct slabtrace_record) == 40);
static_assert(!(SLABTRACE_TABLE_LOCKS & (SLABTRACE_TABLE_LOCKS - 1)));

static inline u32 obj_hash(const void *obj)
{
	return hash_ptr(obj, 32);
}

static inline unsigned int stripe_of(u32 hash)
{
	return hash & (SLABTRACE_TABLE_LOCKS - 1);
}

static struct slabtrace_buckets *buckets_alloc(unsigned long n)
{
	struct slabtrace_buckets *b;

	b = kvzalloc(struct_size(b, head, n), GFP_KERNEL);
	if (b)
		b->mask = n - 1;
	return b;
}

/* The chain @hash belongs to.  Called with its stripe lock held. */
static struct slabtrace_record **chain(struct slabtrace_table *t, u32 hash)
{
	struct slabtrace_stripe *st = &t->stripe[stripe_of(hash)];

	lockdep_assert_held(&st->lock);
	return &st->buckets->head[hash & st->buckets->mask];
}

/* Move stripe @i from @old to @new.  Called with t->grow_mutex held. */
static void grow_stripe(struct slabtrace_table *t, unsigned int i,
			struct slabtrace_buckets *old,
			struct slabtrace_buckets *new)
{
	struct slabtrace_record *rec;
	unsigned long flags, b;

	lockdep_assert_held(&t->grow_mutex);
	spin_lock_irqsave(&t->stripe[i].lock, flags);
	for (b = i; b <= old->mask; b += SLABTRACE_TABLE_LOCKS) {
		while ((rec = old->head[b])) {
			unsigned long nb = obj_hash(rec->obj) & new->mask;

			old->head[b] = rec->next;
			rec->next = new->head[nb];
			new->head[nb] = rec;
		}
	}
	t->stripe[i].buckets = new;
	spin_unlock_irqrestore(&t->stripe[i].lock, flags);
}

static void grow_work(struct work_struct *work)
{
	struct slabtrace_table *t = container_of(work, struct slabtrace_table,
						 grow_work);
	struct slabtrace_buckets *old, *new;
	unsigned long nr, size;
	unsigned int i;

	mutex_lock(&t->grow_mutex);
	old = t->buckets;
	nr = atomic_long_read(&t->nr);
	if (nr <= 2 * (old->mask + 1) || old->mask + 1 >= TABLE_MAX_BUCKETS)
		goto out;
	/* Between one and two records a bucket: 4 to 8 bytes a record. */
	size = min(roundup_pow_of_two(nr) / 2, TABLE_MAX_BUCKETS);
	new = buckets_alloc(size);
	if (!new) {
		pr_warn_ratelimited("no memory to grow a table to %lu buckets\n",
				    size);
		goto out;
	}
	for (i = 0; i < SLABTRACE_TABLE_LOCKS; i++) {
		grow_stripe(t, i, old, new);
		cond_resched();
	}
	t->buckets = new;
	kvfree(old);
out:
	mutex_unlock(&t->grow_mutex);
}

/* A probe cannot queue work itself (it may hold any lock): an irq_work can. */
static void grow_kick(struct irq_work *work)
{
	struct slabtrace_table *t = container_of(work, struct slabtrace_table,
						 grow_kick);

	schedule_work(&t->grow_work);
}

int slabtrace_table_init(struct slabtrace_table *t)
{
	unsigned int i;

	t->buckets = buckets_alloc(TABLE_MIN_BUCKETS);
	if (!t->buckets)
		return -ENOMEM;
	for (i = 0; i < SLABTRACE_TABLE_LOCKS; i++) {
		spin_lock_init(&t->stripe[i].lock);
		t->stripe[i].buckets = t->buckets;
	}
	atomic_long_set(&t->nr, 0);
	mutex_init(&t->grow_mutex);
	INIT_WORK(&t->grow_work, grow_work);
	init_irq_work(&t->grow_kick, grow_kick);
	return 0;
}

/*
 * slabtrace_table_destroy - free a table and every record in it
 *
 * Nothing may use @t any more: its cache was unpublished and the probes
 * synchronised.  Tolerates a table whose init failed.
 */
void slabtrace_table_destroy(struct slabtrace_table *t)
{
	struct slabtrace_buckets *b;
	struct slabtrace_record *rec;
	unsigned long i;

	if (!t->buckets)
		return;
	/* A grow may be under way: it replaces the buckets. */
	irq_work_sync(&t->grow_kick);
	cancel_work_sync(&t->grow_work);
	b = t->buckets;
	for (i = 0; i <= b->mask; i++) {
		while ((rec = b->head[i])) {
			b->head[i] = rec->next;
			kmem_cache_free(slabtrace_record_cache, rec);
		}
		if (!(i % 4096))
			cond_resched();
	}
	kvfree(b);
	t->buckets = NULL;
	mutex_destroy(&t->grow_mutex);
}

/**
 * slabtrace_table_insert - add the record of a new object
 * @t: the table
 * @rec: the record, with ->obj set
 *
 * An object can only be allocated again once freed, so a record already
 * there for the same address is stale: its free took a path with no
 * tracepoint (kmem_cache_free_bulk(), kfree_rcu() batches).  It is replaced.
 *
 * Return: the stale record, unlinked, for the caller to free; or NULL.
 */
struct slabtrace_record *slabtrace_table_insert(struct slabtrace_table *t,
						struct slabtrace_record *rec)
{
	u32 hash = obj_hash(rec->obj);
	unsigned int i = stripe_of(hash);
	struct slabtrace_record **pp, *old = NULL;
	unsigned long flags, size;
	long nr = 0;

	spin_lock_irqsave(&t->stripe[i].lock, flags);
	for (pp = chain(t, hash); *pp; pp = &(*pp)->next) {
		if ((*pp)->obj == rec->obj) {
			old = *pp;
			rec->next = old->next;
			*pp = rec;
			break;
		}
	}
	if (!old) {
		pp = chain(t, hash);
		rec->next = *pp;
		*pp = rec;
		nr = atomic_long_inc_return(&t->nr);
	}
	size = t->stripe[i].buckets->mask + 1;
	spin_unlock_irqrestore(&t->stripe[i].lock, flags);

	if (nr > 2 * size && size < TABLE_MAX_BUCKETS)
		irq_work_queue(&t->grow_kick);
	return old;
}

/**
 * slabtrace_table_remove - unlink the record of a freed object
 * @t: the table
 * @obj: the object
 *
 * Return: the record, now the caller's to free; NULL if @obj has none.
 */
struct slabtrace_record *slabtrace_table_remove(struct slabtrace_table *t,
						const void *obj)
{
	u32 hash = obj_hash(obj);
	unsigned int i = stripe_of(hash);
	struct slabtrace_record **pp, *rec = NULL;
	unsigned long flags;

	spin_lock_irqsave(&t->stripe[i].lock, flags);
	for (pp = chain(t, hash); *pp; pp = &(*pp)->next) {
		if ((*pp)->obj == obj) {
			rec = *pp;
			*pp = rec->next;
			atomic_long_dec(&t->nr);
			break;
		}
	}
	spin_unlock_irqrestore(&t->stripe[i].lock, flags);
	return rec;
}

/* Let a grow that was asked for finish.  May sleep. */
void slabtrace_table_flush(struct slabtrace_table *t)
{
	irq_work_sync(&t->grow_kick);
	flush_work(&t->grow_work);
}

/**
 * slabtrace_table_iter_start - start copying a table out, bucket by bucket
 * @it: the iterator
 * @t: the table
 *
 * Lets a pending grow finish, then holds off growing until
 * slabtrace_table_iter_stop(), so every record present throughout is seen
 * exactly once.  May sleep.
 */
void slabtrace_table_iter_start(struct slabtrace_table_iter *it,
				struct slabtrace_table *t)
{
	slabtrace_table_flush(t);
	mutex_lock(&t->grow_mutex);
	it->t = t;
	it->bucket = 0;
	it->need = 0;
}

/**
 * slabtrace_table_iter_next - copy the records of the next bucket
 * @it: the iterator
 * @buf: where to copy them
 * @room: how many fit in @buf
 *
 * Return: the number of records copied, having moved on to the next
 * bucket; -ENOSPC, with it->need set, if the bucket holds more than @room
 * (the same bucket comes next); -ENOENT after the last bucket.
 */
int slabtrace_table_iter_next(struct slabtrace_table_iter *it,
			      struct slabtrace_record *buf, unsigned int room)
{
	struct slabtrace_table *t = it->t;
	struct slabtrace_record *rec;
	unsigned long flags;
	unsigned int i, n = 0;

	lockdep_assert_held(&t->grow_mutex);
	if (it->bucket > t->buckets->mask)
		return -ENOENT;
	i = stripe_of(it->bucket);
	spin_lock_irqsave(&t->stripe[i].lock, flags);
	for (rec = t->buckets->head[it->bucket]; rec; rec = rec->next)
		n++;
	if (n <= room) {
		n = 0;
		for (rec = t->buckets->head[it->bucket]; rec; rec = rec->next)
			buf[n++] = *rec;
	}
	spin_unlock_irqrestore(&t->stripe[i].lock, flags);
	if (n > room) {
		it->need = n;
		return -ENOSPC;
	}
	it->bucket++;
	return n;
}

void slabtrace_table_iter_stop(struct slabtrace_table_iter *it)
{
	mutex_unlock(&it->t->grow_mutex);
}

/* Records copied out under one lock hold: a bucket's chain, usually 0-3. */
#define SPILL	32

/**
 * slabtrace_table_for_each - call a function on a copy of every record
 * @t: the table
 * @fn: called with no spinlock held (it may sleep); a non-zero return
 *	stops the walk
 * @arg: passed to @fn
 *
 * Every record present throughout is seen exactly once.  May sleep.
 *
 * Return: 0, @fn's non-zero return, or -ENOMEM.
 */
int slabtrace_table_for_each(struct slabtrace_table *t,
			     int (*fn)(const struct slabtrace_record *rec,
				       void *arg),
			     void *arg)
{
	struct slabtrace_record *spill, *bigger;
	struct slabtrace_table_iter it;
	unsigned int room = SPILL;
	int i, n, ret = 0;

	spill = kmalloc_array(room, sizeof(*spill), GFP_KERNEL);
	if (!spill)
		return -ENOMEM;
	slabtrace_table_iter_start(&it, t);
	while (!ret && (n = slabtrace_table_iter_next(&it, spill, room)) !=
		       -ENOENT) {
		if (n == -ENOSPC) {
			/* A long chain: the table has not grown yet. */
			room = it.need + SPILL;
			bigger = krealloc_array(spill, room, sizeof(*spill),
						GFP_KERNEL);
			if (!bigger)
				ret = -ENOMEM;
			else
				spill = bigger;
			continue;
		}
		for (i = 0; i < n && !ret; i++)
			ret = fn(&spill[i], arg);
		if (!(it.bucket % 1024))
			cond_resched();
	}
	slabtrace_table_iter_stop(&it);
	kfree(spill);
	return ret;
}
