// SPDX-License-Identifier: GPL-2.0
/*
 * The "slabtrace_stacks" suite proves how a backtrace is trimmed to start
 * at the allocator's caller: at the tracepoint's call site when the walk
 * saw it, else after the last frame that is the tracer's or the
 * allocator's by name (among the first few), else not at all; and that a
 * frame with no symbol never shows its raw address; and that a trace's
 * handle kept per CPU is given only to the same frames; and that the tags
 * of deferred records do not repeat where their count wraps.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/stackdepot.h>
#include <linux/string.h>

#include "st_slab_kunit.h"

/* Frames with names of no special meaning. */
static noinline void caller_frame(void)
{
}

static noinline void outer_frame(void)
{
}

#define IP(fn)	((unsigned long)(fn) + 1)

static void slabtrace_stacks_at_call_site(struct kunit *test)
{
	unsigned long e[] = {
		IP(leak_stack_store), IP(kfree), IP(caller_frame),
		IP(outer_frame),
	};

	KUNIT_EXPECT_EQ(test, leak_stack_trim(e, ARRAY_SIZE(e), e[2]), 2);
	/* The call site wins over names, wherever it is. */
	KUNIT_EXPECT_EQ(test, leak_stack_trim(e, ARRAY_SIZE(e), e[3]), 3);
}

static void slabtrace_stacks_by_symbol(struct kunit *test)
{
	unsigned long e[] = {
		IP(leak_stack_store), IP(outer_frame), IP(kfree),
		IP(caller_frame), IP(outer_frame),
	};

	/* Call site not seen: after the last tracer or allocator frame. */
	KUNIT_EXPECT_EQ(test, leak_stack_trim(e, ARRAY_SIZE(e), 1), 3);
}

static void slabtrace_stacks_untrimmed(struct kunit *test)
{
	unsigned long plain[] = { IP(caller_frame), IP(outer_frame) };
	unsigned long all[] = { IP(leak_stack_store), IP(kfree) };
	unsigned long deep[16];
	unsigned int i;

	/* Nothing is the tracer's: keep everything. */
	KUNIT_EXPECT_EQ(test, leak_stack_trim(plain, 2, 1), 0);
	/* Everything is: keep everything rather than nothing. */
	KUNIT_EXPECT_EQ(test, leak_stack_trim(all, 2, 1), 0);
	/* A caller's name deep in the stack is not the tracer's frame. */
	for (i = 0; i < ARRAY_SIZE(deep); i++)
		deep[i] = IP(outer_frame);
	deep[15] = IP(kfree);
	KUNIT_EXPECT_EQ(test, leak_stack_trim(deep, 16, 1), 0);
}

static void slabtrace_stacks_exit(struct kunit *test)
{
	st_expect_lockdep_clean(test);
}

/* A frame with no symbol is "?", never its raw address; others are named. */
static void slabtrace_stacks_no_raw_address(struct kunit *test)
{
	char name[LEAK_FRAME_MAX];
	void *heap = kunit_kzalloc(test, 64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, heap);
	leak_frame_name(name, sizeof(name), 0, (unsigned long)heap, true);
	KUNIT_EXPECT_STREQ(test, name, "?");
	leak_frame_name(name, sizeof(name), 0, (unsigned long)heap, false);
	KUNIT_EXPECT_STREQ(test, name, "?");
	leak_frame_name(name, sizeof(name), 0, IP(caller_frame), false);
	KUNIT_EXPECT_STREQ(test, name, "caller_frame");
	leak_frame_name(name, sizeof(name), 0, IP(caller_frame), true);
	KUNIT_EXPECT_TRUE(test, str_has_prefix(name, "caller_frame+0x1/"));
}

/*
 * The CPU's cache of saved traces: a trace saved again has the depot's
 * handle; a trace whose frames fall in the same slot as one kept there
 * gets its own handle, not the one kept.
 */
static void slabtrace_stacks_cache(struct kunit *test)
{
	unsigned long a[4] = { IP(caller_frame), IP(outer_frame), 0x1234, 1 };
	depot_stack_handle_t ha, hb;
	unsigned long b[4], *saved;
	unsigned int i;

	ha = leak_stack_save(a, ARRAY_SIZE(a));
	if (!ha) {
		/*
		 * No room without allocating: the depot allocates its next
		 * pool here, and the trace saved is then found.  Only a depot
		 * that cannot save it even so makes the case skip.
		 */
		if (!stack_depot_save(a, ARRAY_SIZE(a), GFP_KERNEL))
			kunit_skip(test, "the stack depot is full");
		ha = leak_stack_save(a, ARRAY_SIZE(a));
	}
	KUNIT_ASSERT_NE_MSG(test, ha, 0,
			    "leak_stack_save() does not find a trace the depot has");
	KUNIT_EXPECT_EQ(test, leak_stack_save(a, ARRAY_SIZE(a)), ha);
	KUNIT_EXPECT_EQ(test, stack_depot_save(a, ARRAY_SIZE(a), GFP_KERNEL),
			ha);
	memcpy(b, a, sizeof(b));
	for (i = 2; i < 100000; i++) {
		b[3] = i;
		if (leak_stack_slot(b, 4) == leak_stack_slot(a, 4))
			break;
	}
	KUNIT_ASSERT_EQ(test, leak_stack_slot(b, 4), leak_stack_slot(a, 4));
	hb = leak_stack_save(b, ARRAY_SIZE(b));
	KUNIT_ASSERT_NE(test, hb, 0);
	KUNIT_EXPECT_NE(test, hb, ha);
	KUNIT_EXPECT_EQ(test, stack_depot_fetch(hb, &saved), 4U);
	KUNIT_EXPECT_EQ(test, memcmp(saved, b, sizeof(b)), 0);
	/* Same length, other frames: the compare, not the slot, decides. */
	KUNIT_EXPECT_EQ(test, leak_stack_save(a, ARRAY_SIZE(a)), ha);
}

/*
 * A deferred record's tag goes round 1 to 65535, never 0, and never the
 * same twice in a row, also where the count behind it wraps.
 */
static void slabtrace_stacks_defer_tag_wrap(struct kunit *test)
{
	const u16 want[] = { 0xfffe, 0xffff, 1, 2 };
	u16 tags[ARRAY_SIZE(want)];
	unsigned int i;

	leak_defer_tags_after(-3, tags, ARRAY_SIZE(tags));
	for (i = 0; i < ARRAY_SIZE(want); i++)
		KUNIT_EXPECT_EQ_MSG(test, tags[i], want[i], "tag %u", i);
}

static struct kunit_case slabtrace_stacks_cases[] = {
	KUNIT_CASE(slabtrace_stacks_at_call_site),
	KUNIT_CASE(slabtrace_stacks_by_symbol),
	KUNIT_CASE(slabtrace_stacks_untrimmed),
	KUNIT_CASE(slabtrace_stacks_no_raw_address),
	KUNIT_CASE(slabtrace_stacks_cache),
	KUNIT_CASE(slabtrace_stacks_defer_tag_wrap),
	{}
};

static struct kunit_suite slabtrace_stacks_suite = {
	.name = "slabtrace_stacks",
	.exit = slabtrace_stacks_exit,
	.test_cases = slabtrace_stacks_cases,
};

kunit_test_suite(slabtrace_stacks_suite);

MODULE_LICENSE("GPL");
