// SPDX-License-Identifier: GPL-2.0
/*
 * The "leak_table" suite proves the record table on its own, with no
 * tracepoint: one record per key whatever its owner, a second insert of a
 * key replaces (and returns) the stale record and moves the owner counts,
 * removal finds exactly what was inserted, the lockless check never misses
 * a record (also while the table grows or shrinks under concurrent
 * inserts and removes) and rules out most absent keys, a table is full
 * at the limit of the array a shrink moves its records to, a purge drops
 * exactly one owner's records and shrinks a table it leaves far emptier
 * than its size (so does an iteration that finds it so), an iteration
 * sees every record once, a grow that finds no memory is not tried
 * again at every insert, the count of all owners' records but one is
 * exact also in the middle of a remove, and a walk stops for a kill only
 * where it may.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "st_slab_kunit.h"

#define NR	5000

static void *key(unsigned int i)
{
	/* Addresses 64 bytes apart, like the objects of a kmalloc-64 slab. */
	return (void *)(0xffff888000100000UL + i * 64UL);
}

static struct leak_record *new_rec(struct kunit *test, unsigned int i,
				   u8 owner)
{
	struct leak_record *rec;

	rec = kmem_cache_zalloc(leak_record_cache, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	rec->obj = key(i);
	rec->bytes_req = i;
	rec->owner = owner;
	return rec;
}

static void free_rec(struct leak_record *rec)
{
	kmem_cache_free(leak_record_cache, rec);
}

static struct leak_table *new_table(struct kunit *test)
{
	struct leak_table *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, leak_table_init(t), 0);
	return t;
}

/*
 * A table grown for 8 * NR records of owner 0 (keys 0 on); @small: its
 * size when new, the size a purge of them all shrinks it back to.
 */
static struct leak_table *grown_table(struct kunit *test,
				      unsigned long *small)
{
	struct leak_table *t = new_table(test);
	unsigned int i;

	*small = leak_table_buckets(t);
	for (i = 0; i < 8 * NR; i++)
		leak_table_insert(t, new_rec(test, i, 0));
	leak_table_flush(t);
	KUNIT_EXPECT_GE(test, leak_table_buckets(t), 4 * NR);
	return t;
}

static bool maybe(struct leak_table *t, unsigned int i)
{
	bool ret;

	rcu_read_lock_sched();
	ret = leak_table_maybe(t, key(i));
	rcu_read_unlock_sched();
	return ret;
}

static void slabtrace_table_insert_remove(struct kunit *test)
{
	struct leak_table *t = new_table(test);
	struct leak_record *rec;
	unsigned int i;

	KUNIT_EXPECT_FALSE(test, maybe(t, 0));
	for (i = 0; i < NR; i++)
		KUNIT_ASSERT_NULL(test, leak_table_insert(t, new_rec(test, i, 3)));
	KUNIT_EXPECT_EQ(test, leak_table_count(t), NR);
	KUNIT_EXPECT_EQ(test, leak_table_owned(t, 3), NR);

	for (i = 0; i < NR; i += 2) {
		rec = leak_table_remove(t, key(i));
		KUNIT_ASSERT_NOT_NULL(test, rec);
		KUNIT_EXPECT_PTR_EQ(test, rec->obj, key(i));
		KUNIT_EXPECT_EQ(test, rec->bytes_req, i);
		free_rec(rec);
	}
	KUNIT_EXPECT_EQ(test, leak_table_count(t), NR / 2);
	KUNIT_EXPECT_EQ(test, leak_table_owned(t, 3), NR / 2);
	KUNIT_EXPECT_NULL(test, leak_table_remove(t, key(0)));
	KUNIT_EXPECT_NULL(test, leak_table_remove(t, key(NR)));
	leak_table_destroy(t, free_rec);
}

/* A record of another owner at the same address is stale: replaced. */
static void slabtrace_table_replace(struct kunit *test)
{
	struct leak_table *t = new_table(test);
	struct leak_record *first = new_rec(test, 7, 1), *second, *stale;

	KUNIT_ASSERT_NULL(test, leak_table_insert(t, first));
	second = new_rec(test, 7, 2);
	second->bytes_req = 1234;
	stale = leak_table_insert(t, second);
	KUNIT_EXPECT_PTR_EQ(test, stale, first);
	KUNIT_EXPECT_EQ(test, leak_table_count(t), 1);
	KUNIT_EXPECT_EQ(test, leak_table_owned(t, 1), 0);
	KUNIT_EXPECT_EQ(test, leak_table_owned(t, 2), 1);
	free_rec(stale);
	stale = leak_table_remove(t, key(7));
	KUNIT_EXPECT_PTR_EQ(test, stale, second);
	free_rec(stale);
	KUNIT_EXPECT_EQ(test, leak_table_count(t), 0);
	KUNIT_EXPECT_EQ(test, leak_table_owned(t, 2), 0);
	leak_table_destroy(t, free_rec);
}

/*
 * Every key present passes the lockless check; of NR keys never inserted,
 * most are ruled out (the 16-bit signatures at 1-2 records a bucket).
 */
static void slabtrace_table_maybe_check(struct kunit *test)
{
	struct leak_table *t = new_table(test);
	unsigned int i, missed = 0, passed = 0;
	struct leak_record *rec;

	for (i = 0; i < NR; i++)
		leak_table_insert(t, new_rec(test, i, 0));
	leak_table_flush(t);
	for (i = 0; i < NR; i++) {
		missed += !maybe(t, i);
		passed += maybe(t, NR + i);
	}
	KUNIT_EXPECT_EQ(test, missed, 0);
	KUNIT_EXPECT_LT(test, passed, NR / 4);
	/* A removal clears its bit, unless another record shares it. */
	rec = new_rec(test, 3 * NR, 0);
	leak_table_insert(t, rec);
	for (i = 0; i < NR; i++)
		free_rec(leak_table_remove(t, key(i)));
	for (i = 0, passed = 0; i < NR; i++)
		passed += maybe(t, i);
	KUNIT_EXPECT_LT(test, passed, 5);
	KUNIT_EXPECT_TRUE(test, maybe(t, 3 * NR));
	leak_table_destroy(t, free_rec);
}

/* Grown to hold NR records, and an iteration sees each exactly once. */
static void slabtrace_table_grow_iterate(struct kunit *test)
{
	struct leak_table *t = new_table(test);
	unsigned long first_size = leak_table_buckets(t), *seen;
	struct leak_table_iter it;
	struct leak_record buf[32];
	unsigned int i, total = 0;
	int n;

	seen = kunit_kzalloc(test, BITS_TO_LONGS(NR) * sizeof(long),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	for (i = 0; i < NR; i++)
		leak_table_insert(t, new_rec(test, i, 0));
	leak_table_flush(t);
	KUNIT_EXPECT_GT(test, leak_table_buckets(t), first_size);
	KUNIT_EXPECT_GE(test, leak_table_buckets(t), NR / 2);

	leak_table_iter_start(&it, t);
	while ((n = leak_table_iter_next(&it, buf, ARRAY_SIZE(buf))) >= 0) {
		for (i = 0; i < n; i++) {
			unsigned int k = buf[i].bytes_req;

			KUNIT_EXPECT_PTR_EQ(test, buf[i].obj, key(k));
			KUNIT_EXPECT_FALSE(test, test_and_set_bit(k, seen));
			total++;
		}
	}
	leak_table_iter_stop(&it);
	KUNIT_EXPECT_EQ(test, total, NR);
	KUNIT_EXPECT_EQ(test, bitmap_weight(seen, NR), NR);

	/* Every record is still findable after the move. */
	for (i = 0; i < NR; i++) {
		struct leak_record *rec = leak_table_remove(t, key(i));

		KUNIT_EXPECT_NOT_NULL(test, rec);
		free_rec(rec);
	}
	leak_table_destroy(t, free_rec);
}

/*
 * A grow that finds no memory (a test hook) is not tried again at every
 * insert past the threshold: the inserts queue no new attempt for a
 * while, however many they are; once that while is over, the table grows.
 */
static void slabtrace_table_grow_backs_off(struct kunit *test)
{
	struct leak_table *t = new_table(test);
	unsigned long first_size = leak_table_buckets(t), start;
	unsigned long tries, elapsed;
	unsigned int i;

	leak_grow_tries = 0;
	WRITE_ONCE(leak_fail_grow, true);
	start = jiffies;
	for (i = 0; i < NR; i++) {
		leak_table_insert(t, new_rec(test, i, 0));
		/* Past 2 records a bucket, the grow work runs every 64. */
		if (!(i % 64))
			leak_table_flush(t);
	}
	leak_table_flush(t);
	tries = leak_grow_tries;
	elapsed = jiffies - start;
	WRITE_ONCE(leak_fail_grow, false);
	KUNIT_EXPECT_GE(test, tries, 1);
	/* One, and one more per GROW_BACKOFF_MIN (a second) at most. */
	KUNIT_EXPECT_LE(test, tries, 1 + elapsed / HZ);
	KUNIT_EXPECT_GE(test, atomic_long_read(&t->grow_failed), 1);
	KUNIT_EXPECT_EQ(test, leak_table_buckets(t), first_size);

	/*
	 * The wait over, the next insert grows it.  Over long ago: with
	 * 32-bit jiffies, a retry time set 24.8 days ago looks far ahead,
	 * and stopped every grow for as long again.
	 */
	t->grow_retry = jiffies + (ULONG_MAX >> 2);
	leak_table_insert(t, new_rec(test, NR, 0));
	leak_table_flush(t);
	KUNIT_EXPECT_GT(test, leak_table_buckets(t), first_size);
	leak_table_destroy(t, free_rec);
}

static bool full(struct leak_table *t)
{
	bool ret;

	rcu_read_lock_sched();
	ret = leak_table_full(t);
	rcu_read_unlock_sched();
	return ret;
}

/*
 * A table whose grow finds no memory is full at LEAK_TABLE_LOAD_MAX
 * records a bucket (the probes insert no more: probe_path_table_full),
 * and the check that finds it so asks for the grow again once its wait
 * is over; grown, it is not full.
 */
static void slabtrace_table_full(struct kunit *test)
{
	struct leak_table *t = new_table(test);
	unsigned long size = leak_table_buckets(t);
	unsigned long i, n = LEAK_TABLE_LOAD_MAX * size;

	WRITE_ONCE(leak_fail_grow, true);
	for (i = 0; i < n - 1; i++) {
		leak_table_insert(t, new_rec(test, i, 0));
		if (!(i % 4096))
			leak_table_flush(t);
	}
	leak_table_flush(t);
	KUNIT_EXPECT_EQ(test, leak_table_buckets(t), size);
	KUNIT_EXPECT_FALSE(test, full(t));
	leak_table_insert(t, new_rec(test, n - 1, 0));
	KUNIT_EXPECT_TRUE(test, full(t));
	/* What that insert asked for fails, and waits. */
	leak_table_flush(t);
	WRITE_ONCE(leak_fail_grow, false);
	t->grow_retry = jiffies;
	/*
	 * The wait over, no insert comes (the probes drop): the probe that
	 * finds it full asks for the grow.
	 */
	KUNIT_EXPECT_TRUE(test, full(t));
	leak_table_flush(t);
	KUNIT_EXPECT_GT(test, leak_table_buckets(t), size);
	KUNIT_EXPECT_FALSE(test, full(t));
	leak_table_destroy(t, free_rec);
}

static struct {
	struct work_struct work;
	struct leak_table *t;
	unsigned long buckets;
	struct completion done;
} reader;

static void read_buckets(struct work_struct *work)
{
	reader.buckets = leak_table_buckets(reader.t);
	complete(&reader.done);
}

/*
 * The stats read the table's size while a print copies the records,
 * which holds t->grow_mutex: they used to wait for it.
 */
static void slabtrace_table_buckets_beside_a_walk(struct kunit *test)
{
	struct leak_table *t = new_table(test);
	bool done;

	reader.t = t;
	init_completion(&reader.done);
	INIT_WORK(&reader.work, read_buckets);
	mutex_lock(&t->grow_mutex);
	schedule_work(&reader.work);
	done = wait_for_completion_timeout(&reader.done, 2 * HZ);
	mutex_unlock(&t->grow_mutex);
	flush_work(&reader.work);
	KUNIT_EXPECT_TRUE(test, done);
	KUNIT_EXPECT_EQ(test, reader.buckets, 1024UL);
	leak_table_destroy(t, free_rec);
}

/* Keys from GROW_BASE on come and go between the rows of a grow. */
#define GROW_BASE	100000
#define GROW_KEYS	256
#define GROW_BATCH	32

static struct grow_state {
	struct leak_record *recs[GROW_KEYS];
	bool present[GROW_KEYS];
	unsigned int next;	/* the next batch to insert */
	unsigned long steps;	/* calls from the middle of a grow */
	unsigned int missed;	/* present keys the check ruled out */
	unsigned int lost;	/* present keys removal did not find */
} grow;

/*
 * Called by the grow between two rows of moves: some stripes' buckets are
 * in the new array, the rest in the old.  Inserts a batch, checks every
 * key present, removes the batch inserted longest ago.
 */
static void grow_step(struct leak_table *t)
{
	unsigned int i, b = grow.next, gone = (b + 1) % (GROW_KEYS / GROW_BATCH);
	struct leak_record *rec;

	grow.steps++;
	for (i = b * GROW_BATCH; i < (b + 1) * GROW_BATCH; i++) {
		if (grow.present[i])
			continue;
		leak_table_insert(t, grow.recs[i]);
		grow.present[i] = true;
	}
	for (i = 0; i < GROW_KEYS; i++)
		if (grow.present[i] && !maybe(t, GROW_BASE + i))
			grow.missed++;
	for (i = gone * GROW_BATCH; i < (gone + 1) * GROW_BATCH; i++) {
		if (!grow.present[i])
			continue;
		rec = leak_table_remove(t, key(GROW_BASE + i));
		if (rec != grow.recs[i])
			grow.lost++;
		grow.present[i] = false;
	}
	grow.next = (b + 1) % (GROW_KEYS / GROW_BATCH);
}

/*
 * Inserts, removals and lockless checks between the steps of several
 * grows: no record is missed by the check or by a removal at any point.
 */
static void slabtrace_table_grow_concurrent(struct kunit *test)
{
	struct leak_table *t = new_table(test);
	unsigned int i, missed = 0;

	memset(&grow, 0, sizeof(grow));
	for (i = 0; i < GROW_KEYS; i++)
		grow.recs[i] = new_rec(test, GROW_BASE + i, 1);
	t->grow_step = grow_step;
	for (i = 0; i < 8 * NR; i++) {
		leak_table_insert(t, new_rec(test, i, 0));
		if (!(i % 1024))
			leak_table_flush(t);
	}
	leak_table_flush(t);
	t->grow_step = NULL;
	KUNIT_EXPECT_GT(test, grow.steps, 0);
	KUNIT_EXPECT_EQ(test, grow.missed, 0);
	KUNIT_EXPECT_EQ(test, grow.lost, 0);
	KUNIT_EXPECT_GE(test, leak_table_buckets(t), 4 * NR);
	for (i = 0; i < 8 * NR; i++)
		missed += !maybe(t, i);
	KUNIT_EXPECT_EQ(test, missed, 0);
	for (i = 0; i < GROW_KEYS; i++) {
		if (grow.present[i]) {
			KUNIT_EXPECT_PTR_EQ(test,
					    leak_table_remove(t, key(GROW_BASE + i)),
					    grow.recs[i]);
		}
		free_rec(grow.recs[i]);
	}
	KUNIT_EXPECT_EQ(test, leak_table_count(t), 8 * NR);
	leak_table_destroy(t, free_rec);
}

/*
 * The count of every owner's records but one (the kmem probes' records,
 * all but percpu's) is exact also between the two decrements of a
 * remove, t->nr's and the owner's: nr less that owner's count was one
 * too high there, and kept the kmem probes attached with no record.
 */
static void slabtrace_table_count_except(struct kunit *test)
{
	struct leak_table *t = new_table(test);
	unsigned int i;

	for (i = 0; i < 10; i++)
		leak_table_insert(t, new_rec(test, i, i < 3 ? 5 : 9));
	KUNIT_EXPECT_EQ(test, leak_table_count_except(t, 9), 3);
	KUNIT_EXPECT_EQ(test, leak_table_count_except(t, 5), 7);
	KUNIT_EXPECT_EQ(test, leak_table_count_except(t, -1), 10);
	/* A remove of one of owner 9's, between its two decrements. */
	atomic_long_dec(&t->nr);
	KUNIT_EXPECT_EQ(test, leak_table_count_except(t, 9), 3);
	atomic_long_inc(&t->nr);
	for (i = 0; i < 3; i++)
		free_rec(leak_table_remove(t, key(i)));
	KUNIT_EXPECT_EQ(test, leak_table_count_except(t, 9), 0);
	leak_table_destroy(t, free_rec);
}

/* A purge drops one owner's records, and only those. */
static void slabtrace_table_purge_owner(struct kunit *test)
{
	struct leak_table *t = new_table(test);
	unsigned int i;

	for (i = 0; i < NR; i++)
		leak_table_insert(t, new_rec(test, i, i % 3));
	KUNIT_EXPECT_EQ(test, leak_table_purge(t, 1, free_rec),
			(NR + 1) / 3);
	KUNIT_EXPECT_EQ(test, leak_table_owned(t, 1), 0);
	KUNIT_EXPECT_EQ(test, leak_table_count(t), NR - (NR + 1) / 3);
	for (i = 0; i < NR; i++) {
		struct leak_record *rec = leak_table_remove(t, key(i));

		if (i % 3 == 1) {
			KUNIT_EXPECT_NULL(test, rec);
		} else {
			KUNIT_EXPECT_NOT_NULL(test, rec);
			free_rec(rec);
		}
	}
	leak_table_destroy(t, free_rec);
}

/*
 * A purge that leaves the table far emptier than its size shrinks it to
 * the smallest size, while inserts, removals and lockless checks run
 * between the steps of the shrink: none misses a record.
 */
static void slabtrace_table_shrink_concurrent(struct kunit *test)
{
	unsigned long small;
	struct leak_table *t = grown_table(test, &small);
	unsigned int i, left = 0;

	memset(&grow, 0, sizeof(grow));
	for (i = 0; i < GROW_KEYS; i++)
		grow.recs[i] = new_rec(test, GROW_BASE + i, 1);
	KUNIT_EXPECT_EQ(test, t->shrinks, 0);

	t->grow_step = grow_step;
	KUNIT_EXPECT_EQ(test, leak_table_purge(t, 0, free_rec), 8 * NR);
	t->grow_step = NULL;
	KUNIT_EXPECT_EQ(test, leak_table_buckets(t), small);
	KUNIT_EXPECT_EQ(test, t->shrinks, 1);
	KUNIT_EXPECT_GT(test, grow.steps, 0);
	KUNIT_EXPECT_EQ(test, grow.missed, 0);
	KUNIT_EXPECT_EQ(test, grow.lost, 0);
	/* What came during the shrink is all there, and only that. */
	for (i = 0; i < GROW_KEYS; i++) {
		if (grow.present[i]) {
			KUNIT_EXPECT_TRUE(test, maybe(t, GROW_BASE + i));
			KUNIT_EXPECT_PTR_EQ(test,
					    leak_table_remove(t, key(GROW_BASE + i)),
					    grow.recs[i]);
			left++;
		}
		free_rec(grow.recs[i]);
	}
	KUNIT_EXPECT_GT(test, left, 0);
	KUNIT_EXPECT_EQ(test, leak_table_count(t), 0);
	leak_table_destroy(t, free_rec);
}

static struct {
	long at;		/* LEAK_TABLE_LOAD_MAX records a bucket: the small's */
	bool checked;
	bool full_below;	/* full at one record fewer */
	bool full_at;
} shrinking;

/* The first row of a shrink: is the table full at the small array's limit? */
static void shrink_step(struct leak_table *t)
{
	long nr = atomic_long_read(&t->nr);

	if (shrinking.checked)
		return;
	shrinking.checked = true;
	atomic_long_set(&t->nr, shrinking.at - 1);
	shrinking.full_below = full(t);
	atomic_long_set(&t->nr, shrinking.at);
	shrinking.full_at = full(t);
	atomic_long_set(&t->nr, nr);
}

/*
 * While a shrink moves the records, every record ends up in the small
 * array, those inserted meanwhile too: the probes stop at
 * LEAK_TABLE_LOAD_MAX records a bucket of that one, not of the big array
 * the lockless check still reads (they used to pour a reset's new records
 * into 1,024 chains while the shrink ran).
 */
static void slabtrace_table_full_while_shrinking(struct kunit *test)
{
	unsigned long small;
	struct leak_table *t = grown_table(test, &small);

	memset(&shrinking, 0, sizeof(shrinking));
	shrinking.at = LEAK_TABLE_LOAD_MAX * small;
	t->grow_step = shrink_step;
	KUNIT_EXPECT_EQ(test, leak_table_purge(t, 0, free_rec), 8 * NR);
	t->grow_step = NULL;
	KUNIT_EXPECT_EQ(test, t->shrinks, 1);
	KUNIT_EXPECT_TRUE(test, shrinking.checked);
	KUNIT_EXPECT_FALSE(test, shrinking.full_below);
	KUNIT_EXPECT_TRUE(test, shrinking.full_at);
	KUNIT_EXPECT_EQ(test, leak_table_buckets(t), small);
	leak_table_destroy(t, free_rec);
}

static int count_one(const struct leak_record *rec, void *arg)
{
	return 0;
}

static int count_rec(const struct leak_record *rec, void *arg)
{
	(*(unsigned long *)arg)++;
	return 0;
}

/*
 * A walk stops when its task is killed, unless it must finish: the
 * module notifier's, which names a going module's frames in every record
 * (rmmod's ^C made the others show '?').
 */
static void slabtrace_table_walk_killed(struct kunit *test)
{
	struct leak_table *t = new_table(test);
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; i < NR; i++)
		leak_table_insert(t, new_rec(test, i, 0));
	leak_table_flush(t);
	/* The walk looks for a kill every 1024 buckets: it needs more. */
	if (leak_table_buckets(t) <= 1024) {
		leak_table_destroy(t, free_rec);
		kunit_skip(test, "the table did not grow past 1024 buckets");
	}
	allow_signal(SIGKILL);
	send_sig(SIGKILL, current, 1);
	KUNIT_EXPECT_TRUE(test, fatal_signal_pending(current));
	KUNIT_EXPECT_EQ(test, leak_table_for_each(t, count_rec, &n, true), -EINTR);
	KUNIT_EXPECT_LT(test, n, (unsigned long)NR);
	n = 0;
	KUNIT_EXPECT_EQ(test, leak_table_for_each(t, count_rec, &n, false), 0);
	KUNIT_EXPECT_EQ(test, n, (unsigned long)NR);
	flush_signals(current);
	disallow_signal(SIGKILL);
	leak_table_destroy(t, free_rec);
}

/* Objects freed one by one: the next iteration shrinks the table. */
static void slabtrace_table_iterate_shrinks(struct kunit *test)
{
	unsigned long small;
	struct leak_table *t = grown_table(test, &small);
	unsigned int i;

	for (i = 0; i < 8 * NR - 10; i++)
		free_rec(leak_table_remove(t, key(i)));
	KUNIT_EXPECT_EQ(test, leak_table_for_each(t, count_one, NULL, true), 0);
	KUNIT_EXPECT_EQ(test, leak_table_buckets(t), small);
	KUNIT_EXPECT_EQ(test, t->shrinks, 1);
	for (i = 8 * NR - 10; i < 8 * NR; i++) {
		KUNIT_EXPECT_TRUE(test, maybe(t, i));
		free_rec(leak_table_remove(t, key(i)));
	}
	KUNIT_EXPECT_EQ(test, leak_table_count(t), 0);
	leak_table_destroy(t, free_rec);
}

/* A purge that leaves many records keeps the size they need. */
static void slabtrace_table_purge_keeps_size(struct kunit *test)
{
	struct leak_table *t = new_table(test);
	unsigned long big;
	unsigned int i;

	for (i = 0; i < 8 * NR; i++)
		leak_table_insert(t, new_rec(test, i, i % 2));
	leak_table_flush(t);
	big = leak_table_buckets(t);
	KUNIT_EXPECT_EQ(test, leak_table_purge(t, 1, free_rec), 4 * NR);
	KUNIT_EXPECT_EQ(test, leak_table_buckets(t), big);
	KUNIT_EXPECT_EQ(test, t->shrinks, 0);
	leak_table_destroy(t, free_rec);
}

/* A buffer smaller than a chain: told how much room, nothing is lost. */
static void slabtrace_table_iter_small_buffer(struct kunit *test)
{
	struct leak_table *t = new_table(test);
	struct leak_record *buf;
	struct leak_table_iter it;
	unsigned int i, room = 1, total = 0, retries = 0;
	int n;

	buf = kunit_kcalloc(test, 64, sizeof(*buf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	/* Far more records than buckets: the table may not grow meanwhile. */
	mutex_lock(&t->grow_mutex);
	for (i = 0; i < 8000; i++)
		leak_table_insert(t, new_rec(test, i, 0));
	it.t = t;
	it.bucket = 0;
	while ((n = leak_table_iter_next(&it, buf, room)) != -ENOENT) {
		if (n == -ENOSPC) {
			KUNIT_ASSERT_GT(test, it.need, room);
			KUNIT_ASSERT_LE(test, it.need, 64);
			room = it.need;
			retries++;
			continue;
		}
		total += n;
	}
	mutex_unlock(&t->grow_mutex);
	KUNIT_EXPECT_EQ(test, total, 8000);
	KUNIT_EXPECT_GT(test, retries, 0);
	leak_table_destroy(t, free_rec);
}

static void slabtrace_table_exit(struct kunit *test)
{
	WRITE_ONCE(leak_fail_grow, false);
	st_expect_lockdep_clean(test);
}

static struct kunit_case slabtrace_table_cases[] = {
	KUNIT_CASE(slabtrace_table_insert_remove),
	KUNIT_CASE(slabtrace_table_replace),
	KUNIT_CASE(slabtrace_table_maybe_check),
	KUNIT_CASE(slabtrace_table_grow_iterate),
	KUNIT_CASE(slabtrace_table_grow_backs_off),
	KUNIT_CASE(slabtrace_table_full),
	KUNIT_CASE(slabtrace_table_buckets_beside_a_walk),
	KUNIT_CASE_SLOW(slabtrace_table_grow_concurrent),
	KUNIT_CASE(slabtrace_table_purge_owner),
	KUNIT_CASE(slabtrace_table_count_except),
	KUNIT_CASE(slabtrace_table_walk_killed),
	KUNIT_CASE_SLOW(slabtrace_table_shrink_concurrent),
	KUNIT_CASE(slabtrace_table_full_while_shrinking),
	KUNIT_CASE(slabtrace_table_purge_keeps_size),
	KUNIT_CASE(slabtrace_table_iterate_shrinks),
	KUNIT_CASE(slabtrace_table_iter_small_buffer),
	{}
};

static struct kunit_suite slabtrace_table_suite = {
	.name = "slabtrace_table",
	.exit = slabtrace_table_exit,
	.test_cases = slabtrace_table_cases,
};

kunit_test_suite(slabtrace_table_suite);

MODULE_LICENSE("GPL");
