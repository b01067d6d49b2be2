// SPDX-License-Identifier: GPL-2.0
/*
 * The "slabtrace_bench" suite measures, it proves nothing: the cost of a
 * kmem_cache_alloc()+kmem_cache_free() pair untraced, with the probes
 * attached for another cache, and traced; the floor a traced allocation
 * cannot go under, measured the same way: a probe of our own on the same
 * tracepoint that only walks the stack (and one that also saves it in the
 * stack depot); the memory an outstanding record takes, pool included;
 * what a free of an untraced object costs while 16 caches hold 1,000,000
 * records, against none; the table's signature check of an absent key
 * against the stripe lock and chain walk it spares; and the longest time
 * a raw spinlock is held with interrupts off: while the table grows to
 * 10,000,000 records, while "pool" fills and empties a million records a
 * CPU, and while a "reset" drops a million records and the pool gives
 * them back.  Each result is one line, "bench: NAME VALUE UNIT", for
 * scripts/bench/bench.sh.
 */
#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/stackdepot.h>
#include <linux/stacktrace.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>
#include <trace/events/kmem.h>

#include "st_slab_kunit.h"

#define N	1000000UL
#define KEPT	100000UL
#define CACHES	16
#define HELD	1000000UL
#define GROWN	10000000UL

/* Raw spinlock holds, by holder (module/slab/hold.h). */
struct leak_hold_stat leak_holds[LEAK_HOLDS];

static struct kmem_cache *bench_cache;
static struct kmem_cache *held_cache[CACHES];

static void bench_ctor(void *obj)
{
}

/* One pair, from the same depth as the walks below. */
static noinline void pair(void)
{
	void *p = kmem_cache_alloc(bench_cache, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	kmem_cache_free(bench_cache, p);
}

static u64 time_pairs(void)
{
	unsigned long i;
	u64 t = ktime_get_ns();

	for (i = 0; i < N; i++)
		pair();
	return div_u64(ktime_get_ns() - t, N);
}

static unsigned int floor_depth;
static bool floor_depot;

/* The floor: what any traced allocation must do, and nothing else. */
static void floor_probe(void *data, unsigned long call_site, const void *ptr,
			struct kmem_cache *s, gfp_t gfp_flags, int node)
{
	unsigned long entries[LEAK_STACK_DEPTH];

	if (s != bench_cache)
		return;
	floor_depth = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	if (floor_depot)
		stack_depot_save(entries, floor_depth, GFP_NOWAIT);
}

static u64 time_floor(struct kunit *test, bool depot)
{
	u64 t;

	floor_depot = depot;
	KUNIT_EXPECT_EQ(test, register_trace_kmem_cache_alloc(floor_probe, NULL), 0);
	t = time_pairs();
	unregister_trace_kmem_cache_alloc(floor_probe, NULL);
	tracepoint_synchronize_unregister();
	return t;
}

static void report(struct kunit *test, const char *name, u64 value,
		   const char *unit)
{
	kunit_info(test, "bench: %s %llu %s\n", name, value, unit);
}

/* The hold time @permille of @s's holds stay under (a power of 2), ns. */
static u64 hold_quantile(const struct leak_hold_stat *s,
			 unsigned int permille)
{
	u64 seen = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(s->by_log2_ns); i++) {
		seen += s->by_log2_ns[i];
		if (seen * 1000 >= s->holds * permille)
			break;
	}
	return 2ULL << i;
}

/*
 * The holds of @h since the last reset: how many, the most items (records,
 * ids) one did, the time half of them and 99 % of them stayed under, and
 * the longest measured.  UML is a process of the host: a hold during which
 * the host ran something else is measured with that in it, which makes the
 * longest (and only it, as long as that is rare) the host's more than ours.
 */
static void report_holds(struct kunit *test, const char *name,
			 enum leak_hold h, const char *items)
{
	const struct leak_hold_stat *s = &leak_holds[h];
	char key[64];

	snprintf(key, sizeof(key), "%s_holds", name);
	report(test, key, s->holds, "holds");
	if (!s->holds)
		return;
	snprintf(key, sizeof(key), "%s_most_in_one_hold", name);
	report(test, key, s->most_items, items);
	snprintf(key, sizeof(key), "%s_hold_p50_under", name);
	report(test, key, hold_quantile(s, 500), "ns");
	snprintf(key, sizeof(key), "%s_hold_p99_under", name);
	report(test, key, hold_quantile(s, 990), "ns");
	snprintf(key, sizeof(key), "%s_hold_longest_measured", name);
	report(test, key, s->longest_ns, "ns");
}

static u64 time_traced(struct kunit *test)
{
	u64 t;

	KUNIT_EXPECT_EQ(test, st_cmd("start st_kunit_bench\n"), 0);
	t = time_pairs();
	KUNIT_EXPECT_EQ(test, st_outstanding(test, "st_kunit_bench"), 0);
	st_cmd("stop st_kunit_bench\n");
	st_cmd("reset st_kunit_bench\n");
	return t;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

#define ROUNDS	5

/*
 * Rounds of the four measurements interleaved, so that a slow spell of the
 * machine hits all of them; the median of each is reported.
 */
static void slabtrace_bench_pairs(struct kunit *test)
{
	enum { UNTRACED, WALK, DEPOT, TRACED, KINDS };
	static const char *const names[KINDS] = {
		"pair_untraced", "pair_with_stack_walk_probe",
		"pair_with_walk_and_depot_probe", "pair_traced",
	};
	u64 t[KINDS][ROUNDS], m[KINDS];
	unsigned int k, r;

	for (r = 0; r < ROUNDS; r++) {
		t[UNTRACED][r] = time_pairs();
		t[WALK][r] = time_floor(test, false);
		t[DEPOT][r] = time_floor(test, true);
		t[TRACED][r] = time_traced(test);
	}
	for (k = 0; k < KINDS; k++) {
		sort(t[k], ROUNDS, sizeof(u64), cmp_u64, NULL);
		m[k] = t[k][ROUNDS / 2];
		report(test, names[k], m[k], "ns");
	}
	report(test, "stack_walk_depth_in_probe", floor_depth, "frames");

	/* Probes on, but for another cache. */
	KUNIT_ASSERT_EQ(test, st_cmd("start kmalloc-8k\n"), 0);
	report(test, "pair_probes_other_cache", time_pairs(), "ns");
	st_cmd("stop kmalloc-8k\n");
	st_cmd("reset kmalloc-8k\n");

	/* The cost slabtrace adds to a pair, against the floor's. */
	report(test, "traced_cost_over_walk_x100",
	       div64_u64(100 * (m[TRACED] - m[UNTRACED]), m[WALK] - m[UNTRACED]),
	       "%");
	report(test, "traced_cost_over_walk_and_depot_x100",
	       div64_u64(100 * (m[TRACED] - m[UNTRACED]), m[DEPOT] - m[UNTRACED]),
	       "%");
}

#define TIME_N(test, name, stmt) do {				\
	unsigned long __i;						\
	u64 __t = ktime_get_ns();					\
									\
	for (__i = 0; __i < N; __i++) {					\
		stmt;							\
	}								\
	report(test, name, div_u64(ktime_get_ns() - __t, N), "ns");	\
} while (0)

/* What a traced pair does besides the walk, one step at a time. */
static void slabtrace_bench_steps(struct kunit *test)
{
	struct leak_table *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	DECLARE_BITMAP(owners, LEAK_MAX_OWNERS);
	struct leak_record rec = { }, *r;
	u64 sink = 0;

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, leak_table_init(t), 0);
	KUNIT_ASSERT_EQ(test, leak_pool_fill(&leak_pool), 0);
	TIME_N(test, "step_clock", sink += ktime_get_ns());
	/* What a free adds for the verdicts: a clock read, a count. */
	TIME_N(test, "step_clock_mono_fast", sink += ktime_get_mono_fast_ns());
	TIME_N(test, "step_lifetime_add",
	       leak_lifetime_add(1, -1, LEAK_MAX_OWNERS - 1, 3));
	bitmap_zero(owners, LEAK_MAX_OWNERS);
	__set_bit(LEAK_MAX_OWNERS - 1, owners);
	leak_lifetime_forget(owners);
	TIME_N(test, "step_context", leak_ctx_fill(&rec));
	TIME_N(test, "step_record_pool_get_put",
	       r = leak_pool_get(&leak_pool);
	       leak_pool_put(&leak_pool, r));
	r = kmem_cache_zalloc(leak_record_cache, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->obj = &rec;
	TIME_N(test, "step_table_insert_remove",
	       leak_table_insert(t, r);
	       leak_table_remove(t, &rec));
	preempt_disable();
	TIME_N(test, "step_table_maybe", sink += leak_table_maybe(t, &rec));
	preempt_enable();
	kmem_cache_free(leak_record_cache, r);
	leak_table_destroy(t, leak_record_free);
	KUNIT_EXPECT_NE(test, sink, 0);
}

/* Records in the absent-key table: two a bucket of the first size. */
#define ABSENT_RECS	2048UL

/*
 * A free of an object no record is kept for, in a table of two records a
 * bucket (the most before it grows): the lockless signature check, against
 * what it spares, the stripe lock and the walk of the chain.  The keys are
 * 64 bytes apart, the absent ones between the present ones.
 */
static void slabtrace_bench_table_absent(struct kunit *test)
{
	struct leak_table *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	const unsigned long base = 0xffff888000100000UL;
	struct leak_record *r;
	unsigned long i, passed = 0;
	u64 sink = 0;

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, leak_table_init(t), 0);
	for (i = 0; i < ABSENT_RECS; i++) {
		r = kmem_cache_zalloc(leak_record_cache, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, r);
		r->obj = (void *)(base + i * 128);
		KUNIT_ASSERT_NULL(test, leak_table_insert(t, r));
	}
	preempt_disable();
	TIME_N(test, "step_table_absent_signature",
	       sink += leak_table_maybe(t, (void *)(base + (__i % 65536) * 128 + 64)));
	for (i = 0; i < 65536; i++)
		passed += leak_table_maybe(t, (void *)(base + i * 128 + 64));
	preempt_enable();
	TIME_N(test, "step_table_absent_lock_and_walk",
	       sink += !!leak_table_remove(t, (void *)(base + (__i % 65536) * 128 + 64)));
	report(test, "table_absent_signature_passes_per_mille",
	       div_u64(passed * 1000, 65536), "");
	KUNIT_EXPECT_EQ(test, leak_table_count(t), ABSENT_RECS);
	leak_table_destroy(t, leak_record_free);
	KUNIT_EXPECT_NE(test, sink, 0);
}

/* Memory per outstanding record: the record, and its share of buckets. */
static void slabtrace_bench_record_bytes(struct kunit *test)
{
	struct leak_table *t = &leak_records;
	unsigned long i, buckets;
	void **objs;

	objs = vmalloc(KEPT * sizeof(*objs));
	KUNIT_ASSERT_NOT_NULL(test, objs);
	KUNIT_ASSERT_EQ(test, st_cmd("pool %lu\n", KEPT), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("start st_kunit_bench\n"), 0);
	for (i = 0; i < KEPT; i++)
		objs[i] = kmem_cache_alloc(bench_cache, GFP_KERNEL);
	leak_table_flush(t);
	buckets = leak_table_buckets(t);
	KUNIT_EXPECT_EQ(test, leak_table_count(t), KEPT);
	report(test, "record_object", kmem_cache_size(leak_record_cache),
	       "bytes");
	report(test, "record_buckets_x100",
	       div_u64(100 * buckets * (sizeof(void *) + sizeof(u16)), KEPT),
	       "bytes");
	/* Every record taken from the slab, the default pool's included. */
	KUNIT_EXPECT_EQ(test, st_cmd("pool %u\n", LEAK_POOL_DEFAULT), 0);
	/* "pool" shrinks in the refill work: count once it has. */
	leak_work_flush();
	report(test, "record_all_x100",
	       div_u64(100 * (atomic_long_read(&leak_pool.allocated) *
			      kmem_cache_size(leak_record_cache) +
			      buckets * (sizeof(void *) + sizeof(u16))), KEPT),
	       "bytes");
	report(test, "pool_per_cpu", LEAK_POOL_DEFAULT *
	       kmem_cache_size(leak_record_cache), "bytes");
	for (i = 0; i < KEPT; i++)
		kmem_cache_free(bench_cache, objs[i]);
	vfree(objs);
	st_cmd("stop st_kunit_bench\n");
	st_cmd("reset st_kunit_bench\n");
	st_cmd("pool %u\n", LEAK_POOL_DEFAULT);
}

#define FREES	100000UL

/*
 * kfree() of FREES kmalloc(64) objects, allocated beforehand (not timed):
 * many addresses, not one hot one, as a real workload frees.  The median
 * of ROUNDS, per free.
 */
static u64 time_frees(void)
{
	u64 t[ROUNDS], start;
	unsigned long i;
	unsigned int r;
	void **objs;

	objs = vmalloc(FREES * sizeof(*objs));
	if (!objs)
		return 0;
	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < FREES; i++)
			objs[i] = kmalloc(64, GFP_KERNEL);
		start = ktime_get_ns();
		for (i = 0; i < FREES; i++)
			kfree(objs[i]);
		t[r] = div_u64(ktime_get_ns() - start, FREES);
	}
	vfree(objs);
	sort(t, ROUNDS, sizeof(u64), cmp_u64, NULL);
	return t[ROUNDS / 2];
}

/*
 * A free of an object nobody traces, while 16 caches hold a million
 * records between them, against the same with no record at all (the
 * probes detached): the pair of an untraced cache, both probes' checks.
 */
static void slabtrace_bench_free_untraced(struct kunit *test)
{
	unsigned long per = HELD / CACHES, i, j;
	u64 none[ROUNDS], held[ROUNDS], free_none, free_held;
	void **objs;
	unsigned int r;

	objs = vmalloc(HELD * sizeof(*objs));
	KUNIT_ASSERT_NOT_NULL(test, objs);
	for (r = 0; r < ROUNDS; r++)
		none[r] = time_pairs();
	free_none = time_frees();
	KUNIT_ASSERT_EQ(test, st_cmd("limit %lu\n", 2 * HELD), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("pool %lu\n", per), 0);
	for (i = 0; i < CACHES; i++) {
		KUNIT_ASSERT_EQ(test, st_cmd("start st_kunit_held%lu\n", i), 0);
		for (j = 0; j < per; j++)
			objs[i * per + j] = kmem_cache_alloc(held_cache[i],
							     GFP_KERNEL);
		/* Let the refill work fill the pool for the next cache. */
		leak_work_flush();
	}
	leak_table_flush(&leak_records);
	report(test, "records_held", leak_table_count(&leak_records),
	       "records");
	for (r = 0; r < ROUNDS; r++)
		held[r] = time_pairs();
	free_held = time_frees();
	sort(none, ROUNDS, sizeof(u64), cmp_u64, NULL);
	sort(held, ROUNDS, sizeof(u64), cmp_u64, NULL);
	report(test, "pair_untraced_no_records", none[ROUNDS / 2], "ns");
	report(test, "pair_untraced_16_caches_1M_records", held[ROUNDS / 2], "ns");
	report(test, "pair_untraced_ratio_x100",
	       div64_u64(100 * held[ROUNDS / 2], none[ROUNDS / 2]), "%");
	report(test, "kfree_untraced_no_records", free_none, "ns");
	report(test, "kfree_untraced_16_caches_1M_records", free_held, "ns");
	report(test, "kfree_untraced_ratio_x100",
	       div64_u64(100 * free_held, free_none), "%");
	for (i = 0; i < CACHES; i++) {
		for (j = 0; j < per; j++)
			kmem_cache_free(held_cache[i], objs[i * per + j]);
		st_cmd("stop st_kunit_held%lu\n", i);
		st_cmd("reset st_kunit_held%lu\n", i);
	}
	vfree(objs);
	st_cmd("pool %u\n", LEAK_POOL_DEFAULT);
	st_cmd("limit %lu\n", 2 * HELD);
}

static void free_rec(struct leak_record *rec)
{
	kmem_cache_free(leak_record_cache, rec);
}

/* The longest step a grow makes with interrupts off, up to 10 M records. */
static void slabtrace_bench_grow(struct kunit *test)
{
	struct leak_table *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct leak_record *rec;
	unsigned long i;
	u64 start;

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, leak_table_init(t), 0);
	memset(leak_holds, 0, sizeof(leak_holds));
	start = ktime_get_ns();
	for (i = 0; i < GROWN; i++) {
		rec = kmem_cache_zalloc(leak_record_cache, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, rec);
		rec->obj = (void *)(0xffff888000000000UL + i * 64);
		leak_table_insert(t, rec);
		/* The grow work runs when it can: here, every 1024 inserts. */
		if (!(i % 1024))
			leak_table_flush(t);
	}
	leak_table_flush(t);
	report(test, "grow_records", leak_table_count(t), "records");
	report(test, "grow_buckets", leak_table_buckets(t), "buckets");
	/* One bucket a lock hold: how long such a hold is, and its worst. */
	report(test, "grow_steps", t->grow_steps, "steps");
	report(test, "grow_hold_avg", div64_u64(t->grow_hold_ns, t->grow_steps),
	       "ns");
	report(test, "grow_most_records_moved_in_one_hold", t->grow_most_moved,
	       "records");
	report(test, "grow_insert_avg", div_u64(ktime_get_ns() - start, GROWN),
	       "ns");
	report_holds(test, "grow", LEAK_HOLD_GROW, "records");
	leak_table_destroy(t, free_rec);
}

/* The refill work, run now. */
static void pool_settle(void)
{
	leak_work_flush();
}

/* "pool 1048576" fills every CPU's list, "pool 4096" empties it again. */
static void slabtrace_bench_hold_pool_resize(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, st_cmd("start st_kunit_bench\n"), 0);
	memset(leak_holds, 0, sizeof(leak_holds));
	KUNIT_EXPECT_EQ(test, st_cmd("pool %u\n", LEAK_POOL_MAX), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("pool %u\n", LEAK_POOL_DEFAULT), 0);
	report_holds(test, "pool_resize_1M", LEAK_HOLD_POOL, "records");
	st_cmd("stop st_kunit_bench\n");
	st_cmd("reset st_kunit_bench\n");
}

/*
 * "reset" of a cache with a million records: the table is emptied a bucket
 * a hold, every record goes back to this CPU's list, and the refill work
 * gives the surplus back to the slab.
 */
static void slabtrace_bench_hold_reset(struct kunit *test)
{
	unsigned long i;
	void **objs;

	objs = vmalloc(HELD * sizeof(*objs));
	KUNIT_ASSERT_NOT_NULL(test, objs);
	KUNIT_ASSERT_EQ(test, st_cmd("limit %lu\n", 2 * HELD), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("pool %lu\n", HELD), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("start st_kunit_bench\n"), 0);
	for (i = 0; i < HELD; i++)
		objs[i] = kmem_cache_alloc(bench_cache, GFP_KERNEL);
	leak_table_flush(&leak_records);
	KUNIT_EXPECT_EQ(test, leak_table_count(&leak_records), HELD);
	KUNIT_EXPECT_EQ(test, st_cmd("pool %u\n", LEAK_POOL_DEFAULT), 0);
	memset(leak_holds, 0, sizeof(leak_holds));
	KUNIT_EXPECT_EQ(test, st_cmd("reset st_kunit_bench\n"), 0);
	pool_settle();
	report_holds(test, "reset_1M_table", LEAK_HOLD_PURGE, "records");
	report_holds(test, "reset_1M_pool", LEAK_HOLD_POOL, "records");
	for (i = 0; i < HELD; i++)
		kmem_cache_free(bench_cache, objs[i]);
	vfree(objs);
	st_cmd("stop st_kunit_bench\n");
	st_cmd("reset st_kunit_bench\n");
	st_cmd("limit %lu\n", 2 * HELD);
}

static int slabtrace_bench_suite_init(struct kunit_suite *suite)
{
	char name[32];
	int i;

	bench_cache = kmem_cache_create("st_kunit_bench", 64, 0, 0,
					bench_ctor);
	if (!bench_cache)
		return -ENOMEM;
	for (i = 0; i < CACHES; i++) {
		snprintf(name, sizeof(name), "st_kunit_held%d", i);
		held_cache[i] = kmem_cache_create(name, 64, 0, 0, bench_ctor);
		if (!held_cache[i])
			return -ENOMEM;
	}
	return 0;
}

static void slabtrace_bench_suite_exit(struct kunit_suite *suite)
{
	int i;

	for (i = 0; i < CACHES; i++)
		kmem_cache_destroy(held_cache[i]);
	kmem_cache_destroy(bench_cache);
}

static struct kunit_case slabtrace_bench_cases[] = {
	KUNIT_CASE_SLOW(slabtrace_bench_pairs),
	KUNIT_CASE_SLOW(slabtrace_bench_steps),
	KUNIT_CASE_SLOW(slabtrace_bench_table_absent),
	KUNIT_CASE_SLOW(slabtrace_bench_record_bytes),
	KUNIT_CASE_SLOW(slabtrace_bench_free_untraced),
	KUNIT_CASE_SLOW(slabtrace_bench_grow),
	KUNIT_CASE_SLOW(slabtrace_bench_hold_pool_resize),
	KUNIT_CASE_SLOW(slabtrace_bench_hold_reset),
	{}
};

static struct kunit_suite slabtrace_bench_suite = {
	.name = "slabtrace_bench",
	.suite_init = slabtrace_bench_suite_init,
	.suite_exit = slabtrace_bench_suite_exit,
	.test_cases = slabtrace_bench_cases,
};

kunit_test_suite(slabtrace_bench_suite);

MODULE_LICENSE("GPL");
