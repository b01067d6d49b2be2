// SPDX-License-Identifier: GPL-2.0
/*
 * The "slabtrace_table" suite proves the record table on its own, with no
 * tracepoint: one record per key, a second insert of a key replaces (and
 * returns) the stale record, removal finds exactly what was inserted, the
 * table grows past its first size, and an iteration sees every record once.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/slab.h>

#include "st_kunit.h"

#define NR	5000

static void *key(unsigned int i)
{
	/* Addresses 64 bytes apart, like the objects of a kmalloc-64 slab. */
	return (void *)(0xffff888000100000UL + i * 64UL);
}

static struct slabtrace_record *new_rec(struct kunit *test, unsigned int i)
{
	struct slabtrace_record *rec;

	rec = kmem_cache_zalloc(slabtrace_record_cache, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	rec->obj = key(i);
	rec->bytes_req = i;
	return rec;
}

static struct slabtrace_table *new_table(struct kunit *test)
{
	struct slabtrace_table *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, slabtrace_table_init(t), 0);
	return t;
}

static void slabtrace_table_insert_remove(struct kunit *test)
{
	struct slabtrace_table *t = new_table(test);
	struct slabtrace_record *rec;
	unsigned int i;

	for (i = 0; i < NR; i++)
		KUNIT_ASSERT_NULL(test, slabtrace_table_insert(t, new_rec(test, i)));
	KUNIT_EXPECT_EQ(test, slabtrace_table_count(t), NR);

	for (i = 0; i < NR; i += 2) {
		rec = slabtrace_table_remove(t, key(i));
		KUNIT_ASSERT_NOT_NULL(test, rec);
		KUNIT_EXPECT_PTR_EQ(test, rec->obj, key(i));
		KUNIT_EXPECT_EQ(test, rec->bytes_req, i);
		kmem_cache_free(slabtrace_record_cache, rec);
	}
	KUNIT_EXPECT_EQ(test, slabtrace_table_count(t), NR / 2);
	KUNIT_EXPECT_NULL(test, slabtrace_table_remove(t, key(0)));
	KUNIT_EXPECT_NULL(test, slabtrace_table_remove(t, key(NR)));
	slabtrace_table_destroy(t);
}

static void slabtrace_table_replace(struct kunit *test)
{
	struct slabtrace_table *t = new_table(test);
	struct slabtrace_record *first = new_rec(test, 7), *second, *stale;

	KUNIT_ASSERT_NULL(test, slabtrace_table_insert(t, first));
	second = new_rec(test, 7);
	second->bytes_req = 1234;
	stale = slabtrace_table_insert(t, second);
	KUNIT_EXPECT_PTR_EQ(test, stale, first);
	KUNIT_EXPECT_EQ(test, slabtrace_table_count(t), 1);
	kmem_cache_free(slabtrace_record_cache, stale);
	stale = slabtrace_table_remove(t, key(7));
	KUNIT_EXPECT_PTR_EQ(test, stale, second);
	kmem_cache_free(slabtrace_record_cache, stale);
	KUNIT_EXPECT_EQ(test, slabtrace_table_count(t), 0);
	slabtrace_table_destroy(t);
}

/* Grown to hold NR records, and an iteration sees each exactly once. */
static void slabtrace_table_grow_iterate(struct kunit *test)
{
	struct slabtrace_table *t = new_table(test);
	unsigned long first_size = t->buckets->mask + 1, *seen;
	struct slabtrace_table_iter it;
	struct slabtrace_record buf[32];
	unsigned int i, total = 0;
	int n;

	seen = kunit_kzalloc(test, BITS_TO_LONGS(NR) * sizeof(long),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	for (i = 0; i < NR; i++)
		slabtrace_table_insert(t, new_rec(test, i));
	slabtrace_table_flush(t);
	KUNIT_EXPECT_GT(test, t->buckets->mask + 1, first_size);
	KUNIT_EXPECT_GE(test, t->buckets->mask + 1, NR / 2);

	slabtrace_table_iter_start(&it, t);
	while ((n = slabtrace_table_iter_next(&it, buf, ARRAY_SIZE(buf))) >= 0) {
		for (i = 0; i < n; i++) {
			unsigned int k = buf[i].bytes_req;

			KUNIT_EXPECT_PTR_EQ(test, buf[i].obj, key(k));
			KUNIT_EXPECT_FALSE(test, test_and_set_bit(k, seen));
			total++;
		}
	}
	slabtrace_table_iter_stop(&it);
	KUNIT_EXPECT_EQ(test, total, NR);
	KUNIT_EXPECT_EQ(test, bitmap_weight(seen, NR), NR);

	/* Every record is still findable after the move. */
	for (i = 0; i < NR; i++) {
		struct slabtrace_record *rec = slabtrace_table_remove(t, key(i));

		KUNIT_EXPECT_NOT_NULL(test, rec);
		kmem_cache_free(slabtrace_record_cache, rec);
	}
	slabtrace_table_destroy(t);
}

/* A buffer smaller than a chain: told how much room, nothing is lost. */
static void slabtrace_table_iter_small_buffer(struct kunit *test)
{
	struct slabtrace_table *t = new_table(test);
	struct slabtrace_record *buf;
	struct slabtrace_table_iter it;
	unsigned int i, room = 1, total = 0, retries = 0;
	int n;

	buf = kunit_kcalloc(test, 64, sizeof(*buf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	/* Far more records than buckets: the table may not grow meanwhile. */
	mutex_lock(&t->grow_mutex);
	for (i = 0; i < 8000; i++)
		slabtrace_table_insert(t, new_rec(test, i));
	it.t = t;
	it.bucket = 0;
	while ((n = slabtrace_table_iter_next(&it, buf, room)) != -ENOENT) {
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
	slabtrace_table_destroy(t);
}

static void slabtrace_table_exit(struct kunit *test)
{
	st_expect_lockdep_clean(test);
}

static struct kunit_case slabtrace_table_cases[] = {
	KUNIT_CASE(slabtrace_table_insert_remove),
	KUNIT_CASE(slabtrace_table_replace),
	KUNIT_CASE(slabtrace_table_grow_iterate),
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
