// SPDX-License-Identifier: GPL-2.0
/*
 * The "leak_aggregate" suite proves the leak views on snapshots built
 * by hand, where every age, size and backtrace is known: the groups'
 * counts, bytes, requested bytes, ages (min, avg, max) and contexts; their
 * order (most bytes, then most objects, then oldest, then handle and
 * system call, so ties come out the same in every view); "top"; and the
 * folded stacks: root first, the system call as a pseudo-frame, weights by
 * objects or by bytes, names escaped, offsets and module suffixes handled.
 */
#include <kunit/test.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/stackdepot.h>
#include <linux/string.h>

#include "st_slab_kunit.h"

/* Functions whose addresses make up the synthetic backtraces. */
static noinline void frame_a(void)
{
}

static noinline void frame_b(void)
{
}

static noinline void frame_root(void)
{
}

#define IP(fn)	((unsigned long)(fn) + 1)

static depot_stack_handle_t stack(unsigned long leaf, unsigned long root)
{
	unsigned long e[] = { leaf, root };

	return stack_depot_save(e, ARRAY_SIZE(e), GFP_KERNEL);
}

/* A snapshot taken 1000 ms after its epoch, of 64-byte objects. */
static struct leak_snapshot *new_snap(struct kunit *test)
{
	struct leak_snapshot *snap = leak_snapshot_alloc();

	KUNIT_ASSERT_NOT_NULL(test, snap);
	snap->object_size = 64;
	snap->epoch = 5 * NSEC_PER_SEC;
	snap->taken = snap->epoch + 1000 * NSEC_PER_MSEC;
	strscpy(snap->name, "kunit", sizeof(snap->name));
	return snap;
}

/* An object @age ms old at the snapshot, from @stack. */
static void add(struct kunit *test, struct leak_snapshot *snap,
		depot_stack_handle_t stack, u32 age, u32 req, pid_t pid,
		s16 syscall)
{
	struct leak_record rec = {
		.obj = (void *)(0x1000UL + snap->nr * 64),
		.stamp = 1000 - age,
		.stack = stack,
		.who.pid = pid,
		.who.comm = "st_agg",
		.bytes_req = req,
		.syscall = syscall,
	};

	KUNIT_ASSERT_EQ(test, leak_snapshot_add(snap, &rec), 0);
}

/*
 * One group per (stack, system call): the same stack in three calls is
 * three groups, and handles that differ only in their high bits are not
 * merged (a key of handle << 16 in an unsigned long would lose them on
 * 32-bit kernels only: on UML's 64 bits this part cannot fail).
 */
static void slabtrace_aggregate_key(struct kunit *test)
{
	struct leak_snapshot *snap = new_snap(test);
	depot_stack_handle_t a = stack(IP(frame_a), IP(frame_root));
	struct leak_group *g;
	unsigned int i;

	KUNIT_ASSERT_NE(test, a, 0);
	add(test, snap, a, 100, 10, 7, -1);
	add(test, snap, a, 100, 10, 7, 1);
	add(test, snap, a, 100, 10, 7, 1);
	add(test, snap, a, 100, 10, 7, 2 | LEAK_SYSCALL_COMPAT);
	/* Made-up handles, never fetched: only the key is looked at. */
	add(test, snap, 0x00010001, 100, 10, 7, -1);
	add(test, snap, 0x00020001, 100, 10, 7, -1);
	leak_lifetime_owner_get(snap->owner, snap->cache_freed);
	KUNIT_ASSERT_EQ(test, leak_aggregate(snap), 0);
	KUNIT_ASSERT_EQ(test, snap->nr_groups, 5);
	for (i = 0; i < snap->nr_groups; i++) {
		/* Chained to the groups of its stack (other system calls). */
		for (g = snap->groups[i]->next; g; g = g->next)
			KUNIT_EXPECT_EQ(test, g->stack, snap->groups[i]->stack);
		if (snap->groups[i]->stack == a && snap->groups[i]->syscall == 1)
			KUNIT_EXPECT_EQ(test, snap->groups[i]->count, 2);
		else
			KUNIT_EXPECT_EQ(test, snap->groups[i]->count, 1);
	}
	/* Free the made-up handles' groups before anything fetches them. */
	leak_snapshot_put(snap);
}

static void slabtrace_aggregate_groups(struct kunit *test)
{
	struct leak_snapshot *snap = new_snap(test);
	depot_stack_handle_t a = stack(IP(frame_a), IP(frame_root));
	depot_stack_handle_t b = stack(IP(frame_b), IP(frame_root));
	struct leak_group *g;
	unsigned int i;

	KUNIT_ASSERT_NE(test, a, 0);
	add(test, snap, a, 100, 10, 7, -1);
	add(test, snap, a, 600, 30, 8, -1);
	add(test, snap, a, 200, 20, 7, -1);
	add(test, snap, b, 50, 64, 9, -1);
	/* Five more contexts than a group lists. */
	for (i = 0; i < 5; i++)
		add(test, snap, b, 50, 64, 100 + i, -1);
	leak_lifetime_owner_get(snap->owner, snap->cache_freed);
	KUNIT_ASSERT_EQ(test, leak_aggregate(snap), 0);
	KUNIT_ASSERT_EQ(test, snap->nr_groups, 2);

	/* b: 6 objects, 384 bytes: first. */
	g = snap->groups[0];
	KUNIT_EXPECT_EQ(test, g->stack, b);
	KUNIT_EXPECT_EQ(test, g->count, 6);
	KUNIT_EXPECT_EQ(test, g->bytes, 384);
	KUNIT_EXPECT_EQ(test, g->requested, 384);
	KUNIT_EXPECT_EQ(test, g->nwho, LEAK_GROUP_WHO);
	KUNIT_EXPECT_EQ(test, g->nwho + g->more_who, 6);

	g = snap->groups[1];
	KUNIT_EXPECT_EQ(test, g->stack, a);
	KUNIT_EXPECT_EQ(test, g->count, 3);
	KUNIT_EXPECT_EQ(test, g->bytes, 192);
	KUNIT_EXPECT_EQ(test, g->requested, 60);
	KUNIT_EXPECT_EQ(test, g->age_min, 100);
	KUNIT_EXPECT_EQ(test, g->age_max, 600);
	KUNIT_EXPECT_EQ(test, div_u64(g->age_sum, g->count), 300);
	/* Two contexts: pid 7 twice, pid 8. */
	KUNIT_EXPECT_EQ(test, g->nwho, 2);
	KUNIT_EXPECT_EQ(test, g->more_who, 0);
	leak_snapshot_put(snap);
}

/* Equal bytes: more objects first; then older; then handle, syscall. */
static void slabtrace_aggregate_ties(struct kunit *test)
{
	struct leak_snapshot *snap = new_snap(test);
	depot_stack_handle_t a = stack(IP(frame_a), IP(frame_root));
	depot_stack_handle_t b = stack(IP(frame_b), IP(frame_root));
	depot_stack_handle_t lo = min(a, b), hi = max(a, b);

	add(test, snap, hi, 10, 1, 1, -1);	/* 1 object, young */
	add(test, snap, hi, 10, 1, 1, 3);	/* same stack, other syscall */
	add(test, snap, lo, 10, 1, 1, -1);	/* same as the first */
	add(test, snap, a, 900, 1, 1, 5);	/* older */
	add(test, snap, b, 10, 1, 1, 9);
	add(test, snap, b, 10, 1, 1, 9);	/* two objects */
	leak_lifetime_owner_get(snap->owner, snap->cache_freed);
	KUNIT_ASSERT_EQ(test, leak_aggregate(snap), 0);
	KUNIT_ASSERT_EQ(test, snap->nr_groups, 5);
	KUNIT_EXPECT_EQ(test, snap->groups[0]->count, 2);
	KUNIT_EXPECT_EQ(test, snap->groups[1]->age_max, 900);
	KUNIT_EXPECT_EQ(test, snap->groups[2]->stack, lo);
	KUNIT_EXPECT_EQ(test, snap->groups[2]->syscall, -1);
	KUNIT_EXPECT_EQ(test, snap->groups[3]->stack, hi);
	KUNIT_EXPECT_EQ(test, snap->groups[3]->syscall, -1);
	KUNIT_EXPECT_EQ(test, snap->groups[4]->stack, hi);
	KUNIT_EXPECT_EQ(test, snap->groups[4]->syscall, 3);
	leak_snapshot_put(snap);

	/*
	 * Equal bytes in objects of other sizes (kmalloc-large: whole
	 * pages): two of a page before one of two pages, though the handle
	 * and the ages would put it after.
	 */
	snap = new_snap(test);
	snap->kind = LEAK_KIND_LARGE;
	snap->object_size = 0;
	add(test, snap, lo, 10, 2 * PAGE_SIZE, 1, -1);
	add(test, snap, hi, 10, PAGE_SIZE, 1, -1);
	add(test, snap, hi, 10, PAGE_SIZE, 1, -1);
	leak_lifetime_owner_get(snap->owner, snap->cache_freed);
	KUNIT_ASSERT_EQ(test, leak_aggregate(snap), 0);
	KUNIT_ASSERT_EQ(test, snap->nr_groups, 2);
	KUNIT_EXPECT_EQ(test, snap->groups[0]->bytes, snap->groups[1]->bytes);
	KUNIT_EXPECT_EQ(test, snap->groups[0]->stack, hi);
	KUNIT_EXPECT_EQ(test, snap->groups[0]->count, 2);
	leak_snapshot_put(snap);
}

/*
 * Sampled by bytes, groups are ranked by the bytes their records stand
 * for: three pages of kmalloc-large (each standing for about 256) above
 * one record of 2 MiB (about 1.16).  By the records' bytes, the 2 MiB
 * came first.
 */
static void slabtrace_aggregate_sampled_order(struct kunit *test)
{
	struct leak_snapshot *snap = new_snap(test);
	depot_stack_handle_t a = stack(IP(frame_a), IP(frame_root));
	depot_stack_handle_t b = stack(IP(frame_b), IP(frame_root));
	unsigned int i;

	snap->kind = LEAK_KIND_LARGE;
	snap->object_size = 0;
	snap->sample_bytes = SZ_1M;
	for (i = 0; i < 3; i++)
		add(test, snap, a, 10, PAGE_SIZE, 1, -1);
	add(test, snap, b, 10, SZ_2M, 1, -1);
	leak_lifetime_owner_get(snap->owner, snap->cache_freed);
	KUNIT_ASSERT_EQ(test, leak_aggregate(snap), 0);
	KUNIT_ASSERT_EQ(test, snap->nr_groups, 2);
	KUNIT_EXPECT_EQ(test, snap->groups[0]->stack, a);
	KUNIT_EXPECT_GT(test, snap->groups[0]->est_bytes,
			snap->groups[1]->est_bytes);
	KUNIT_EXPECT_LT(test, snap->groups[0]->bytes, snap->groups[1]->bytes);
	leak_snapshot_put(snap);
}

/* Render @snap through @fn into a test-managed buffer. */
static char *render(struct kunit *test, struct leak_snapshot *snap,
		    bool folded, bool bytes)
{
	const struct seq_operations *ops = &leak_dump_seq_ops;
	struct leak_reader r = { };
	struct seq_file m = { .private = &r };
	loff_t pos = 1;
	void *v;

	m.size = 16384;
	m.buf = kunit_kzalloc(test, m.size + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.buf);
	if (folded) {
		leak_folded_show(&m, snap, bytes);
	} else {
		/* The items after the header, as reading ctl shows them. */
		r.snap = snap;
		for (v = ops->start(&m, &pos); v; v = ops->next(&m, v, &pos)) {
			m.index = pos;
			ops->show(&m, v);
		}
		ops->stop(&m, v);
		/* The reference stays the caller's. */
		r.snap = NULL;
		leak_view_clear(&r);
	}
	KUNIT_ASSERT_LT(test, m.count, m.size);
	return m.buf;
}

static unsigned int count_lines(const char *s, const char *prefix)
{
	unsigned int n = 0;
	const char *l;

	for (l = s; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		n += str_has_prefix(l, prefix) ? 1 : 0;
	return n;
}

#define FIRST	"Stack 1: 1 object, 64 bytes (1 requested), " \
		"age min/avg/max 0.010s/0.010s/0.010s, from PID 1 st_agg: unknown: 1 object, " \
		"all younger than 1.0 s: too few frees to tell; trace longer; none freed\n" \
		"----\n #01 [<"

static void slabtrace_aggregate_top(struct kunit *test)
{
	struct leak_snapshot *snap = new_snap(test);
	char *text;

	add(test, snap, stack(IP(frame_a), IP(frame_root)), 10, 1, 1, -1);
	add(test, snap, stack(IP(frame_b), IP(frame_root)), 10, 1, 1, -1);
	add(test, snap, stack(IP(frame_b), IP(frame_a)), 10, 1, 1, -1);
	leak_lifetime_owner_get(snap->owner, snap->cache_freed);
	KUNIT_ASSERT_EQ(test, leak_aggregate(snap), 0);
	snap->opts.stacks = true;
	text = render(test, snap, false, false);
	KUNIT_EXPECT_EQ(test, count_lines(text, "Stack "), 3);
	KUNIT_EXPECT_TRUE(test, str_has_prefix(text, FIRST));
	snap->opts.top = 2;
	text = render(test, snap, false, false);
	KUNIT_EXPECT_EQ(test, count_lines(text, "Stack "), 2);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\nStack 2: "));
	/* Folded stacks list every group, whatever top says. */
	KUNIT_EXPECT_EQ(test, count_lines(render(test, snap, true, false), "frame_"),
			3);
	leak_snapshot_put(snap);
}

static void slabtrace_aggregate_folded(struct kunit *test)
{
	struct leak_snapshot *snap = new_snap(test);
	depot_stack_handle_t a = stack(IP(frame_a), IP(frame_root));
	char *text;

	add(test, snap, a, 10, 1, 1, 1);	/* write() */
	add(test, snap, a, 10, 1, 1, 1);
	add(test, snap, a, 10, 1, 1, 1);
	add(test, snap, a, 10, 1, 1, -1);
	leak_lifetime_owner_get(snap->owner, snap->cache_freed);
	KUNIT_ASSERT_EQ(test, leak_aggregate(snap), 0);
	text = render(test, snap, true, false);
	KUNIT_EXPECT_STREQ(test, text,
			   "syscall:write;frame_root;frame_a 3\nframe_root;frame_a 1\n");
	text = render(test, snap, true, true);
	KUNIT_EXPECT_STREQ(test, text,
			   "syscall:write;frame_root;frame_a 192\nframe_root;frame_a 64\n");
	leak_snapshot_put(snap);
}

static void slabtrace_aggregate_frame_names(struct kunit *test)
{
	char buf[64];

	leak_frame_strip(buf, sizeof(buf), "leaky_alloc_buf+0x1b/0x20 [leaky]");
	KUNIT_EXPECT_STREQ(test, buf, "leaky_alloc_buf [leaky]");
	leak_frame_strip(buf, sizeof(buf), "vfs_write+0xf8/0x450");
	KUNIT_EXPECT_STREQ(test, buf, "vfs_write");
	leak_frame_strip(buf, sizeof(buf), "0xffffffffc0001234");
	KUNIT_EXPECT_STREQ(test, buf, "0xffffffffc0001234");
	leak_frame_strip(buf, sizeof(buf), "f [mod+x]");
	KUNIT_EXPECT_STREQ(test, buf, "f [mod+x]");

	leak_frame_folded(buf, sizeof(buf), "leaky_alloc_buf [leaky]",
			  LEAK_FRAME_ALSO);
	KUNIT_EXPECT_STREQ(test, buf, "leaky_alloc_buf [leaky]");
	/* As the dump escapes a frame: "slabtrace report --folded" agrees. */
	leak_frame_folded(buf, sizeof(buf), "a;b\nc\t\xff.cold", LEAK_FRAME_ALSO);
	KUNIT_EXPECT_STREQ(test, buf, "a:b\\nc\\t\\xff.cold");
	/* Two names differing in a byte stay two ('?' made them one). */
	leak_frame_folded(buf, sizeof(buf), "f\xe9\\x", LEAK_FRAME_ALSO);
	KUNIT_EXPECT_STREQ(test, buf, "f\\xe9\\\\x");
	leak_frame_folded(buf, sizeof(buf), "f\xea\\x", LEAK_FRAME_ALSO);
	KUNIT_EXPECT_STREQ(test, buf, "f\\xea\\\\x");
	/* A cache's name, first in a word's lines: its spaces escaped too. */
	leak_frame_folded(buf, sizeof(buf), "odd;cache \"q\\ name",
			  SLABTRACE_ESCAPE_ALSO);
	KUNIT_EXPECT_STREQ(test, buf, "odd:cache\\x20\"q\\\\\\x20name");
	/* The bound: what does not fit goes, from a whole escape. */
	leak_frame_folded(buf, 4, "abcdef", LEAK_FRAME_ALSO);
	KUNIT_EXPECT_STREQ(test, buf, "abc");
	leak_frame_folded(buf, 6, "ab\377cd", LEAK_FRAME_ALSO);
	KUNIT_EXPECT_STREQ(test, buf, "ab");
}

/* A backtrace's frame line: spaces stay, nothing else can break the line. */
static void slabtrace_aggregate_frame_show(struct kunit *test)
{
	struct seq_file m = { .size = 128 };

	m.buf = kunit_kzalloc(test, m.size + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.buf);
	leak_frame_show(&m, "leaky_alloc_buf+0x1b/0x20 [leaky]");
	KUNIT_EXPECT_STREQ(test, m.buf, "leaky_alloc_buf+0x1b/0x20 [leaky]");
	m.count = 0;
	memset(m.buf, 0, m.size);
	leak_frame_show(&m, "f+0x1/0x2 [a\n #02 b\x1b\\\xff]");
	KUNIT_EXPECT_STREQ(test, m.buf,
			   "f+0x1/0x2 [a\\n #02 b\\e\\\\\\xff]");
}

static void slabtrace_aggregate_exit(struct kunit *test)
{
	st_expect_lockdep_clean(test);
}

static struct kunit_case slabtrace_aggregate_cases[] = {
	KUNIT_CASE(slabtrace_aggregate_groups),
	KUNIT_CASE(slabtrace_aggregate_key),
	KUNIT_CASE(slabtrace_aggregate_ties),
	KUNIT_CASE(slabtrace_aggregate_sampled_order),
	KUNIT_CASE(slabtrace_aggregate_top),
	KUNIT_CASE(slabtrace_aggregate_folded),
	KUNIT_CASE(slabtrace_aggregate_frame_names),
	KUNIT_CASE(slabtrace_aggregate_frame_show),
	{}
};

static struct kunit_suite slabtrace_aggregate_suite = {
	.name = "slabtrace_aggregate",
	.exit = slabtrace_aggregate_exit,
	.test_cases = slabtrace_aggregate_cases,
};

kunit_test_suite(slabtrace_aggregate_suite);

MODULE_LICENSE("GPL");
