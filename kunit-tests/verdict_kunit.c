// SPDX-License-Identifier: GPL-2.0
/*
 * The "slabtrace_verdict" suite proves the leak verdicts: the judge on
 * numbers built by hand for each kind of stack the verdicts tell apart
 * (an error path that forgets some frees, a stack that never frees, a
 * ring, deferred frees, a warm-up, a set that levelled off, long-tailed
 * lifetimes) and for each case where it must say it cannot tell (a short
 * trace, too few objects, arrivals dying out, a cache that frees nothing,
 * frees not counted); that only a leak's text holds the word "leak";
 * the lifetime table (counts by key and bucket, owners forgotten, a full
 * table counting what it lost); and a snapshot grouped by hand showing
 * each stack's verdict in both views.
 */
#include <kunit/test.h>
#include <linux/stackdepot.h>
#include <linux/string.h>

#include "st_slab_kunit.h"

#define S	1000U	/* ms */

/* A stack's numbers, and its cache's frees they point to. */
struct test_in {
	struct leak_verdict_in in;
	u64 cache[LEAK_LIFE_BUCKETS];
};

/* The frees of @in's cache, by lifetime, to be set by the test. */
static u64 *cache_of(struct leak_verdict_in *in)
{
	return container_of(in, struct test_in, in)->cache;
}

/* The numbers of a stack seen for @window ms. */
static struct leak_verdict_in *new_in(struct kunit *test, u32 window)
{
	struct test_in *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->in.window = window;
	t->in.cache_freed = t->cache;
	/* Other stacks of its cache free, old objects too. */
	t->cache[LEAK_LIFE_BUCKETS - 1] = 10000;
	return &t->in;
}

/* @n outstanding objects, aged evenly from @young to @old ms. */
static void outstanding(struct leak_verdict_in *in, u32 n, u32 young,
			u32 old)
{
	u32 i, age;

	for (i = 0; i < n; i++) {
		age = young + (u32)div_u64((u64)(old - young) * i, max(n - 1, 1U));
		in->age_max = max(in->age_max, age);
		in->n++;
		in->ages[leak_life_bucket(age)]++;
		in->born[leak_verdict_bin(in->window, age)]++;
	}
}

/* @n freed after living @ms. */
static void freed(struct leak_verdict_in *in, u32 n, u32 ms)
{
	in->freed[leak_life_bucket(ms)] += n;
	cache_of(in)[leak_life_bucket(ms)] += n;
}

/* All of @owner's frees counted, its histogram summed. */
static u64 owner_freed(u16 owner)
{
	u64 h[LEAK_LIFE_BUCKETS], sum = 0;
	unsigned int b;

	leak_lifetime_owner_get(owner, h);
	for (b = 0; b < LEAK_LIFE_BUCKETS; b++)
		sum += h[b];
	return sum;
}

static struct leak_verdict
judge(struct kunit *test, const struct leak_verdict_in *in)
{
	struct leak_verdict v;

	memset(&v, 0x5a, sizeof(v));
	leak_judge(in, &v);
	kunit_info(test, "%s", v.text);
	KUNIT_EXPECT_LT(test, strlen(v.text), sizeof(v.text) - 1);
	/* The word first; "leak" nowhere in any other verdict's text. */
	KUNIT_EXPECT_TRUE(test, str_has_prefix(v.text, leak_verdict_words[v.word]));
	if (v.word != SLABTRACE_VERDICT_LEAK)
		KUNIT_EXPECT_NULL(test, strstr(v.text, "leak"));
	return v;
}

/* The verdict of @in is @want, its text starts with @start. */
static void expect_verdict(struct kunit *test,
			   const struct leak_verdict_in *in,
			   enum slabtrace_verdict want, const char *start)
{
	struct leak_verdict v = judge(test, in);

	KUNIT_EXPECT_EQ(test, v.word, want);
	KUNIT_EXPECT_TRUE_MSG(test, str_has_prefix(v.text, start),
			      "'%s' does not start with '%s'", v.text, start);
}

/* 1 in 8 never freed, the others within a ms: after 20 s, and 60 s. */
static void slabtrace_verdict_error_path(struct kunit *test)
{
	struct leak_verdict_in *in = new_in(test, 20 * S);

	freed(in, 700, 0);
	outstanding(in, 100, 10, 20 * S);
	expect_verdict(test, in, SLABTRACE_VERDICT_LEAK,
		       "leak (error path): 94 of 800 not freed, allocated steadily over ");
	in = new_in(test, 60 * S);
	freed(in, 2100, 0);
	freed(in, 10, 1);
	outstanding(in, 300, 0, 60 * S);
	expect_verdict(test, in, SLABTRACE_VERDICT_LEAK, "leak (error path): ");
}

/* Nothing freed, a steady stream over 30 s. */
static void slabtrace_verdict_growing(struct kunit *test)
{
	struct leak_verdict_in *in = new_in(test, 30 * S);

	outstanding(in, 1500, 5, 30 * S);
	expect_verdict(test, in, SLABTRACE_VERDICT_LEAK, "leak (growing): ");
	KUNIT_EXPECT_NOT_NULL(test, strstr(judge(test, in).text, "; none freed"));
	/* A few frees do not make it an error path. */
	freed(in, 5, 100);
	expect_verdict(test, in, SLABTRACE_VERDICT_LEAK, "leak (growing): ");
}

/*
 * The same, printed older-than 60 s of 120: the younger half is not in
 * the print, which does not make the arrivals stop (a kept set).
 */
static void slabtrace_verdict_older_than(struct kunit *test)
{
	struct leak_verdict_in *in = new_in(test, 120 * S);

	outstanding(in, 3000, 60 * S, 120 * S);
	in->hidden = 60 * S;
	expect_verdict(test, in, SLABTRACE_VERDICT_LEAK, "leak (growing): ");
	/* Older than all of the trace: nothing left to tell by. */
	in->hidden = 120 * S;
	expect_verdict(test, in, SLABTRACE_VERDICT_UNKNOWN, "unknown: ");
}

/*
 * The same over the longest window the records' clock holds (U32_MAX ms,
 * 49.7 days): its bins are 1/16 of it, as a shorter window's are.
 */
static void slabtrace_verdict_long_window(struct kunit *test)
{
	struct leak_verdict_in *in = new_in(test, U32_MAX);

	KUNIT_EXPECT_EQ(test, leak_verdict_bin(U32_MAX, 1000), 0);
	KUNIT_EXPECT_EQ(test, leak_verdict_bin(U32_MAX, U32_MAX / 2), 7);
	KUNIT_EXPECT_EQ(test, leak_verdict_bin(U32_MAX, U32_MAX), 15);
	outstanding(in, 1500, 5, U32_MAX - 1);
	expect_verdict(test, in, SLABTRACE_VERDICT_LEAK, "leak (growing): ");
}

/*
 * The same, in a cache that freed nothing at all, or only young objects,
 * or old ones seldom (vmap_area on 6.12-rt: 1162 past 1 s, none freed,
 * the merged cache's other stacks freeing within 64 ms): frees may be
 * batched.  Old frees of one for every 8 past tau make it a leak again.
 */
static void slabtrace_verdict_batched(struct kunit *test)
{
	struct leak_verdict_in *in = new_in(test, 60 * S);

	memset(cache_of(in), 0, LEAK_LIFE_BUCKETS * sizeof(u64));
	outstanding(in, 500, 100, 60 * S);
	expect_verdict(test, in, SLABTRACE_VERDICT_UNKNOWN,
		       "unknown: 492 of 500 older than 1.0 s: other stacks freed 0 that old: a batch may free them later");
	cache_of(in)[leak_life_bucket(20)] = 46871;
	cache_of(in)[leak_life_bucket(2000)] = 61;
	expect_verdict(test, in, SLABTRACE_VERDICT_UNKNOWN,
		       "unknown: 492 of 500 older than 1.0 s: other stacks freed 61 that old: ");
	cache_of(in)[leak_life_bucket(2000)] = 62;
	expect_verdict(test, in, SLABTRACE_VERDICT_LEAK, "leak (growing): 492 of 500 not freed");
	/* The stack's own old frees (1 in 100 past tau) are not others'. */
	in = new_in(test, 60 * S);
	memset(cache_of(in), 0, LEAK_LIFE_BUCKETS * sizeof(u64));
	outstanding(in, 500, 100, 60 * S);
	freed(in, 300, 10);
	freed(in, 3, 2000);
	cache_of(in)[leak_life_bucket(2000)] += 50;
	expect_verdict(test, in, SLABTRACE_VERDICT_UNKNOWN,
		       "unknown: 492 of 500 older than 1.0 s: other stacks freed 50 that old: ");
	/* With counts of six digits, the evidence is whole to its p99. */
	in = new_in(test, 60 * S);
	memset(cache_of(in), 0, LEAK_LIFE_BUCKETS * sizeof(u64));
	outstanding(in, 500000, 100, 60 * S);
	freed(in, 400000, 10);
	cache_of(in)[leak_life_bucket(2000)] += 50000;
	expect_verdict(test, in, SLABTRACE_VERDICT_UNKNOWN,
		       "unknown: 492287 of 500000 older than 1.0 s: other stacks freed 50000 that old: a batch may free them later; trace longer; 400000 freed lived <16 ms median, <16 ms p99");
}

/* A ring of 256 at 50 a second: everything freed after 5.1 s. */
static void slabtrace_verdict_ring(struct kunit *test)
{
	struct leak_verdict_in *in = new_in(test, 40 * S);

	freed(in, 1700, 5120);
	outstanding(in, 256, 0, 5100);
	expect_verdict(test, in, SLABTRACE_VERDICT_LIVE,
		       "live: all 256 younger than the freed ones' p99; 1700 freed lived <8.1 s median, <8.1 s p99");
}

/* Freed 2 s after allocation; a late one at 3 s. */
static void slabtrace_verdict_deferred(struct kunit *test)
{
	struct leak_verdict_in *in = new_in(test, 40 * S);

	freed(in, 1900, 2000);
	outstanding(in, 100, 0, 3000);
	expect_verdict(test, in, SLABTRACE_VERDICT_LIVE, "live: all 100 younger than ");
}

/* Objects that outlive the horizon, but as many older were freed. */
static void slabtrace_verdict_long_tail(struct kunit *test)
{
	struct leak_verdict_in *in = new_in(test, 60 * S);

	freed(in, 2000, 10);
	freed(in, 15, 20 * S);
	outstanding(in, 100, 0, 60 * S);
	expect_verdict(test, in, SLABTRACE_VERDICT_LIVE, "live: ");
	/* The last bucket has no top: 2 days is not "<134217 s". */
	in = new_in(test, 60 * S);
	freed(in, 20, 2 * 86400 * S);
	outstanding(in, 10, 0, 60 * S);
	KUNIT_EXPECT_NOT_NULL(test, strstr(judge(test, in).text,
					   "; 20 freed lived >=67108 s median, >=67108 s p99"));
}

/* Made at the trace's start, kept; or made over its first half. */
static void slabtrace_verdict_kept(struct kunit *test)
{
	struct leak_verdict_in *in = new_in(test, 60 * S);

	outstanding(in, 200, 57 * S, 58 * S);
	expect_verdict(test, in, SLABTRACE_VERDICT_KEPT, "kept: 200 allocated within ");
	in = new_in(test, 60 * S);
	freed(in, 100, 0);
	outstanding(in, 200, 30 * S, 60 * S);
	expect_verdict(test, in, SLABTRACE_VERDICT_KEPT, "kept: ");
	KUNIT_EXPECT_NOT_NULL(test, strstr(judge(test, in).text, "levelled off"));
}

/* Where the numbers cannot tell, the verdict says what would. */
static void slabtrace_verdict_unknown(struct kunit *test)
{
	struct leak_verdict_in *in = new_in(test, 4 * S);

	/* A trace too short past the horizon. */
	outstanding(in, 200, 0, 4 * S);
	expect_verdict(test, in, SLABTRACE_VERDICT_UNKNOWN, "unknown: ");
	KUNIT_EXPECT_NOT_NULL(test, strstr(judge(test, in).text, "trace longer"));
	/* Too few objects. */
	in = new_in(test, 60 * S);
	outstanding(in, 3, 10 * S, 50 * S);
	expect_verdict(test, in, SLABTRACE_VERDICT_UNKNOWN,
		       "unknown: 3 of 3 older than 1.0 s: too few");
	/*
	 * Past tau but all within a bin of it: no arrivals shown.  9 maple
	 * nodes of the VM test's own commands on 7.3-rt, 1 s to 4.5 s old in
	 * a 70 s trace (bins of 4.4 s): only the oldest was in a bin all
	 * past tau, and one filled bin had made them a leak (growing).
	 */
	in = new_in(test, 70400);
	outstanding(in, 9, 1030, 4500);
	expect_verdict(test, in, SLABTRACE_VERDICT_UNKNOWN,
		       "unknown: 9 of 9 older than 1.0 s: arriving only lately; trace longer; none freed");
	/* The same number, made steadily over the trace, is a leak. */
	in = new_in(test, 70400);
	outstanding(in, 9, 1030, 70 * S);
	expect_verdict(test, in, SLABTRACE_VERDICT_LEAK, "leak (growing): 9 of 9 not freed");
	/* All young, and too few frees to know a lifetime. */
	in = new_in(test, 60 * S);
	freed(in, 3, 0);
	outstanding(in, 5, 0, 500);
	expect_verdict(test, in, SLABTRACE_VERDICT_UNKNOWN,
		       "unknown: 5 objects, all younger than 1.0 s");
	/*
	 * A few frees, after tens of seconds (kdamond's regions on 7.3): the
	 * horizon is 8 times the longest, past every outstanding object.
	 * With tau 1 s, 26 past it and 2 freed that old had been a leak.
	 */
	in = new_in(test, 60 * S);
	freed(in, 2, 40 * S);
	outstanding(in, 26, 1500, 57 * S);
	expect_verdict(test, in, SLABTRACE_VERDICT_UNKNOWN,
		       "unknown: 26 objects, all younger than 524 s: too few frees to tell; trace longer; 2 freed lived <65.5 s median, <65.5 s p99");
	/*
	 * Freed ones that lived 10 h, past what the buckets can put a
	 * horizon after: it was "all younger than 4294967 s".
	 */
	in = new_in(test, 60 * S);
	freed(in, 2, 10 * 3600 * S);
	outstanding(in, 5, 0, 500);
	expect_verdict(test, in, SLABTRACE_VERDICT_UNKNOWN,
		       "unknown: 5 objects, and freed ones lived 33554 s or more: too few frees to tell");
	/* As many frees as a p99 needs: live, without a horizon either. */
	in = new_in(test, 24 * 3600 * S);
	freed(in, 100, 10 * 3600 * S);
	outstanding(in, 10, 0, 20 * 3600 * S);
	expect_verdict(test, in, SLABTRACE_VERDICT_LIVE,
		       "live: 10 outstanding, and freed ones lived 33554 s or more (p99); 100 freed");
	/*
	 * Freed ones that lived 90 min, the last bucket but one: the horizon
	 * is 18.6 h, where the last bucket starts, and 100 never freed made
	 * steadily over three days past it are a leak.  It was "live: ...
	 * lived 4194 s or more", with no horizon.
	 */
	in = new_in(test, 72 * 3600 * S);
	freed(in, 100, 90 * 60 * S);
	outstanding(in, 100, 20 * 3600 * S, 70 * 3600 * S);
	expect_verdict(test, in, SLABTRACE_VERDICT_LEAK, "leak (");
	/* Arrivals dying out: many early, few late (a cache filling up). */
	in = new_in(test, 64 * S);
	outstanding(in, 400, 32 * S, 64 * S);
	outstanding(in, 40, 2 * S, 32 * S);
	expect_verdict(test, in, SLABTRACE_VERDICT_UNKNOWN, "unknown: ");
	KUNIT_EXPECT_NOT_NULL(test, strstr(judge(test, in).text, "slowly"));
	/* Frees that the lifetime table had no room for. */
	in = new_in(test, 60 * S);
	in->freed_lost = true;
	outstanding(in, 500, 0, 60 * S);
	expect_verdict(test, in, SLABTRACE_VERDICT_UNKNOWN,
		       "unknown: 500 objects, frees not counted: the lifetime table was full");
	/* Some counted: they would make a leak of it. */
	in = new_in(test, 60 * S);
	in->freed_lost = true;
	freed(in, 100, 1);
	outstanding(in, 500, 0, 60 * S);
	expect_verdict(test, in, SLABTRACE_VERDICT_UNKNOWN,
		       "unknown: 500 objects, some frees not counted: the lifetime table was full");
}

/* Owners no traced cache of these tests has. */
#define OWNER_A	(LEAK_MAX_OWNERS - 1)
#define OWNER_B	(LEAK_MAX_OWNERS - 2)

static void forget_owners(void)
{
	DECLARE_BITMAP(owners, LEAK_MAX_OWNERS);

	bitmap_zero(owners, LEAK_MAX_OWNERS);
	__set_bit(OWNER_A, owners);
	__set_bit(OWNER_B, owners);
	leak_lifetime_forget(owners);
}

/*
 * Counts by key and bucket, by owner one at a time and many in one walk;
 * an owner forgotten, another kept.
 */
static void slabtrace_verdict_lifetimes(struct kunit *test)
{
	u64 h[LEAK_LIFE_BUCKETS], a[LEAK_LIFE_BUCKETS] = { 0 };
	u64 b[LEAK_LIFE_BUCKETS] = { 0 }, **rows;
	DECLARE_BITMAP(owners, LEAK_MAX_OWNERS);

	forget_owners();
	leak_lifetime_add(7, -1, OWNER_A, 0);
	leak_lifetime_add(7, -1, OWNER_A, 0);
	leak_lifetime_add(7, -1, OWNER_A, 3);	/* [2, 4) ms */
	leak_lifetime_add(7, 1, OWNER_A, 5000);	/* another syscall */
	leak_lifetime_add(7, -1, OWNER_B, 1);	/* another owner */
	leak_lifetime_add(7, -1, OWNER_A, U32_MAX);
	leak_lifetime_get(7, -1, OWNER_A, h);
	KUNIT_EXPECT_EQ(test, h[0], 2);
	KUNIT_EXPECT_EQ(test, h[2], 1);
	KUNIT_EXPECT_EQ(test, h[LEAK_LIFE_BUCKETS - 1], 1);
	KUNIT_EXPECT_EQ(test, h[1], 0);
	leak_lifetime_get(7, 1, OWNER_A, h);
	KUNIT_EXPECT_EQ(test, h[13], 1);	/* [4096, 8192) ms */
	KUNIT_EXPECT_EQ(test, owner_freed(OWNER_A), 5);
	/* Both owners in one walk, as a print of "all" takes them. */
	rows = kunit_kcalloc(test, LEAK_LIFE_OWNERS, sizeof(*rows), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rows);
	rows[OWNER_A] = a;
	rows[OWNER_B] = b;
	leak_lifetime_owners_get(rows);
	leak_lifetime_owner_get(OWNER_A, h);
	KUNIT_EXPECT_EQ(test, memcmp(a, h, sizeof(h)), 0);
	KUNIT_EXPECT_EQ(test, a[0], 2);
	KUNIT_EXPECT_EQ(test, a[13], 1);
	leak_lifetime_owner_get(OWNER_B, h);
	KUNIT_EXPECT_EQ(test, memcmp(b, h, sizeof(h)), 0);
	KUNIT_EXPECT_EQ(test, b[1], 1);
	/* A row is added to; an owner without one is left out (no oops). */
	rows[OWNER_B] = NULL;
	leak_lifetime_owners_get(rows);
	KUNIT_EXPECT_EQ(test, a[0], 4);

	bitmap_zero(owners, LEAK_MAX_OWNERS);
	__set_bit(OWNER_A, owners);
	leak_lifetime_forget(owners);
	leak_lifetime_get(7, -1, OWNER_A, h);
	KUNIT_EXPECT_EQ(test, h[0], 0);
	KUNIT_EXPECT_EQ(test, owner_freed(OWNER_A), 0);
	leak_lifetime_get(7, -1, OWNER_B, h);
	KUNIT_EXPECT_EQ(test, h[1], 1);
	/* A slot emptied and claimed again counts from zero. */
	leak_lifetime_add(8, -1, OWNER_A, 0);
	leak_lifetime_get(8, -1, OWNER_A, h);
	KUNIT_EXPECT_EQ(test, h[0], 1);
	forget_owners();
}

/* A bucket's count stops at 2^31: it never wraps to a few. */
static void slabtrace_verdict_count_saturates(struct kunit *test)
{
	atomic_t count = ATOMIC_INIT(INT_MAX - 1);

	leak_life_count(&count);
	KUNIT_EXPECT_EQ(test, (u32)atomic_read(&count), (u32)INT_MAX);
	leak_life_count(&count);
	leak_life_count(&count);
	leak_life_count(&count);
	KUNIT_EXPECT_EQ(test, (u32)atomic_read(&count), BIT(31));
}

/*
 * A full table counts the frees it has no slot for, per owner, and marks
 * their keys: each key that lost one is said to, and not most of those
 * that lost none (a few share a bit with them).
 */
static void slabtrace_verdict_full(struct kunit *test)
{
	unsigned int used, slots, i, lost_keys = 0, said = 0, clean = 0;
	u64 h[LEAK_LIFE_BUCKETS];
	unsigned long lost;

	forget_owners();
	leak_lifetime_stats(&used, &slots, &lost);
	for (i = 1; i <= slots + 16; i++)
		leak_lifetime_add(i, -1, OWNER_A, 0);
	KUNIT_EXPECT_GT(test, leak_lifetime_lost(OWNER_A), 0);
	KUNIT_EXPECT_EQ(test, leak_lifetime_lost(OWNER_B), 0);
	KUNIT_EXPECT_EQ(test, owner_freed(OWNER_A) +
			      leak_lifetime_lost(OWNER_A), slots + 16);
	for (i = 1; i <= slots + 16; i++) {
		leak_lifetime_get(i, -1, OWNER_A, h);
		if (!h[0]) {
			lost_keys++;
			said += leak_lifetime_key_lost(i, -1, OWNER_A);
		} else {
			clean += !leak_lifetime_key_lost(i, -1, OWNER_A);
		}
	}
	KUNIT_EXPECT_EQ(test, lost_keys, leak_lifetime_lost(OWNER_A));
	KUNIT_EXPECT_EQ(test, said, lost_keys);
	KUNIT_EXPECT_GT(test, clean, (slots + 16 - lost_keys) / 2);
	KUNIT_EXPECT_FALSE(test, leak_lifetime_key_lost(1, -1, OWNER_B));
	forget_owners();
	KUNIT_EXPECT_EQ(test, leak_lifetime_lost(OWNER_A), 0);
	KUNIT_EXPECT_EQ(test, owner_freed(OWNER_A), 0);
	for (i = 1; i <= slots + 16; i++)
		KUNIT_EXPECT_FALSE(test, leak_lifetime_key_lost(i, -1, OWNER_A));
}

static noinline void frame_leak(void)
{
}

static noinline void frame_live(void)
{
}

#define STACK_1	"\nStack 1: 100 objects, 6400 bytes (0 requested), " \
		"age min/avg/max 0.300s/15.150s/30.000s, " \
		"from PID 1 st_verdict: leak (growing): "
#define STACK_2	"\nStack 2: 10 objects, 640 bytes (0 requested), " \
		"age min/avg/max 0.010s/0.010s/0.010s, " \
		"from PID 1 st_verdict: live: all 10 younger than the freed ones' p99; " \
		"500 freed lived <32 ms median, <32 ms p99\n"

/* A snapshot's groups carry their verdicts into both views. */
static void slabtrace_verdict_views(struct kunit *test)
{
	struct leak_snapshot *snap = leak_snapshot_alloc();
	unsigned long e[2] = { (unsigned long)frame_leak + 1, 0 };
	depot_stack_handle_t leak, live;
	struct leak_record rec = {
		.syscall = -1, .who.pid = 1, .who.comm = "st_verdict",
	};
	struct leak_reader r = { 0 };
	struct seq_file m = { 0 };
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, snap);
	leak = stack_depot_save(e, 1, GFP_KERNEL);
	e[0] = (unsigned long)frame_live + 1;
	live = stack_depot_save(e, 1, GFP_KERNEL);
	forget_owners();
	snap->owner = OWNER_A;
	snap->object_size = 64;
	snap->epoch = 5ULL * NSEC_PER_SEC;
	snap->taken = snap->epoch + 30ULL * NSEC_PER_SEC;
	strscpy(snap->name, "kunit", sizeof(snap->name));
	/* 100 never freed over 30 s; 10 younger than their kind's lifetimes. */
	for (i = 0; i < 100; i++) {
		rec.obj = (void *)(0x1000UL + 64 * i);
		rec.stack = leak;
		rec.stamp = 300 * i;
		KUNIT_ASSERT_EQ(test, leak_snapshot_add(snap, &rec), 0);
	}
	for (i = 0; i < 10; i++) {
		rec.obj = (void *)(0x100000UL + 64 * i);
		rec.stack = live;
		rec.stamp = 29990;
		KUNIT_ASSERT_EQ(test, leak_snapshot_add(snap, &rec), 0);
	}
	for (i = 0; i < 500; i++)
		leak_lifetime_add(live, -1, OWNER_A, 20);
	/* Another stack of the cache frees old objects: no batches. */
	for (i = 0; i < 100; i++)
		leak_lifetime_add(7, -1, OWNER_A, 5000);
	leak_lifetime_owner_get(snap->owner, snap->cache_freed);
	KUNIT_ASSERT_EQ(test, leak_aggregate(snap), 0);
	KUNIT_EXPECT_EQ(test, snap->verdicts[SLABTRACE_VERDICT_LEAK], 1);
	KUNIT_EXPECT_EQ(test, snap->verdicts[SLABTRACE_VERDICT_LIVE], 1);
	KUNIT_EXPECT_EQ(test, leak_group_of(snap, &rec)->verdict.word,
			SLABTRACE_VERDICT_LIVE);

	r.snap = snap;
	r.part = snap;
	m.private = &r;
	m.size = 64 * 1024;
	m.buf = kunit_kzalloc(test, m.size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.buf);
	/* The stacks view: the verdict ends each stack's first line. */
	m.op = &leak_stacks_seq_ops;
	leak_stacks_seq_ops.show(&m, SEQ_START_TOKEN);
	m.index = 1;
	leak_stacks_seq_ops.show(&m, snap->groups[0]);
	m.index = 2;
	leak_stacks_seq_ops.show(&m, snap->groups[1]);
	kunit_info(test, "%s", m.buf);
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf,
					   "\nverdicts: 1 leak, 1 live, 0 kept, 0 unknown\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, STACK_1));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, STACK_2));
	/*
	 * The per-object view: a line a stack after the header's counts,
	 * each at its own position, then the header's end (position 3);
	 * each object names its stack and verdict.
	 */
	m.count = 0;
	m.op = &leak_dump_seq_ops;
	leak_dump_seq_ops.show(&m, SEQ_START_TOKEN);
	m.index = 1;
	leak_dump_seq_ops.show(&m, snap->groups[0]);
	m.index = 2;
	leak_dump_seq_ops.show(&m, snap->groups[1]);
	m.index = 4;
	leak_dump_seq_ops.show(&m, leak_snapshot_entry(snap, 0));
	m.index = 104;
	leak_dump_seq_ops.show(&m, leak_snapshot_entry(snap, 100));
	m.buf[m.count] = 0;
	kunit_info(test, "%s", m.buf);
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, "\nstack 1: leak (growing): "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, "\nstack 2: live: "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, ", stack 1 (leak), from PID 1 st_verdict:\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, ", stack 2 (live), from PID 1 st_verdict:\n"));
	forget_owners();
	leak_snapshot_put(snap);
}

/*
 * Records whose backtrace was not saved (stack 0) are one group of any
 * stacks: unknown, whatever their ages and frees say (here a leak's).
 */
static void slabtrace_verdict_no_backtrace(struct kunit *test)
{
	struct leak_snapshot *snap = leak_snapshot_alloc();
	struct leak_record rec = {
		.syscall = -1, .who.pid = 1, .who.comm = "st_verdict",
	};
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, snap);
	forget_owners();
	snap->owner = OWNER_A;
	snap->object_size = 64;
	snap->epoch = 5ULL * NSEC_PER_SEC;
	snap->taken = snap->epoch + 30ULL * NSEC_PER_SEC;
	for (i = 0; i < 100; i++) {
		rec.obj = (void *)(0x1000UL + 64 * i);
		rec.stamp = 300 * i;
		KUNIT_ASSERT_EQ(test, leak_snapshot_add(snap, &rec), 0);
	}
	for (i = 0; i < 100; i++)
		leak_lifetime_add(7, -1, OWNER_A, 5000);
	leak_lifetime_owner_get(snap->owner, snap->cache_freed);
	KUNIT_ASSERT_EQ(test, leak_aggregate(snap), 0);
	KUNIT_ASSERT_EQ(test, snap->nr_groups, 1);
	KUNIT_EXPECT_EQ(test, snap->verdicts[SLABTRACE_VERDICT_UNKNOWN], 1);
	KUNIT_EXPECT_STREQ(test, snap->groups[0]->verdict.text,
			   "unknown: 100 objects, backtrace not saved");
	forget_owners();
	leak_snapshot_put(snap);
}

static void slabtrace_verdict_exit(struct kunit *test)
{
	st_expect_lockdep_clean(test);
}

static struct kunit_case slabtrace_verdict_cases[] = {
	KUNIT_CASE(slabtrace_verdict_error_path),
	KUNIT_CASE(slabtrace_verdict_growing),
	KUNIT_CASE(slabtrace_verdict_older_than),
	KUNIT_CASE(slabtrace_verdict_long_window),
	KUNIT_CASE(slabtrace_verdict_batched),
	KUNIT_CASE(slabtrace_verdict_ring),
	KUNIT_CASE(slabtrace_verdict_deferred),
	KUNIT_CASE(slabtrace_verdict_long_tail),
	KUNIT_CASE(slabtrace_verdict_kept),
	KUNIT_CASE(slabtrace_verdict_unknown),
	KUNIT_CASE(slabtrace_verdict_lifetimes),
	KUNIT_CASE(slabtrace_verdict_count_saturates),
	KUNIT_CASE(slabtrace_verdict_full),
	KUNIT_CASE(slabtrace_verdict_views),
	KUNIT_CASE(slabtrace_verdict_no_backtrace),
	{}
};

static struct kunit_suite slabtrace_verdict_suite = {
	.name = "slabtrace_verdict",
	.exit = slabtrace_verdict_exit,
	.test_cases = slabtrace_verdict_cases,
};

kunit_test_suite(slabtrace_verdict_suite);

MODULE_LICENSE("GPL");
