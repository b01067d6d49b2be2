// SPDX-License-Identifier: GPL-2.0
/*
 * The "slabtrace_status" suite proves the state shown to people: the
 * status text names each traced cache with its state, traced time,
 * records and drops, says whether the probes are attached and what to do
 * next; reading ctl before the login user has a snapshot shows that state
 * rather than nothing, and a print replaces it with the dump; "help" is a
 * command and takes no arguments; an unknown kmalloc name in bytes gets
 * the name in KiB it meant.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "st_slab_kunit.h"

#define NO_SNAP	"No snapshot yet for this login user: print takes one.\nslabtrace: "
#define HEADER	"Dumping outstanding allocs from st_kunit_status\n"

static struct kmem_cache *status_cache;
static unsigned long saved_limit;

static void status_ctor(void *obj)
{
}

/* What the status file shows now. */
static char *st_status(struct kunit *test)
{
	struct seq_file m = { };

	m.size = 16 * 1024;
	m.buf = kunit_kzalloc(test, m.size + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.buf);
	slabtrace_status_show(&m);
	KUNIT_EXPECT_LT(test, m.count, m.size);
	m.buf[min(m.count, m.size)] = '\0';
	return m.buf;
}

static void slabtrace_status_text(struct kunit *test)
{
	void *a, *b;
	char *text;

	KUNIT_ASSERT_EQ(test, st_cmd("start st_kunit_status\n"), 0);
	a = kmem_cache_alloc(status_cache, GFP_KERNEL);
	b = kmem_cache_alloc(status_cache, GFP_KERNEL);
	text = st_status(test);
	kunit_info(test, "status:\n%s", text);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, " records (limit "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "), probes attached\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\ncache st_kunit_status: tracing, traced "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "s, 2 records, drops: none\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\nkptrace: off\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text,
					   "\nnext: echo print st_kunit_status > ctl; cat ctl"));

	KUNIT_ASSERT_EQ(test, st_cmd("stop st_kunit_status\n"), 0);
	text = st_status(test);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\ncache st_kunit_status: stopped, traced "));
	kmem_cache_free(status_cache, a);
	kmem_cache_free(status_cache, b);
}

/* The kinds of drop the cache counted are named, with their counts. */
static void slabtrace_status_drops(struct kunit *test)
{
	void *one, *objs[3];
	char *text;
	int i;

	KUNIT_ASSERT_EQ(test, st_cmd("start st_kunit_status\n"), 0);
	one = kmem_cache_alloc(status_cache, GFP_KERNEL);
	/* No room for one more record: each allocation is dropped. */
	KUNIT_ASSERT_EQ(test, st_cmd("limit %ld\n",
				     leak_table_count(&leak_records)), 0);
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		objs[i] = kmem_cache_alloc(status_cache, GFP_KERNEL);
	text = st_status(test);
	kunit_info(test, "status:\n%s", text);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, ", 1 record, drops: limit reached 3\n"));
	kmem_cache_free(status_cache, one);
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		kmem_cache_free(status_cache, objs[i]);
}

/* Before a print, ctl shows the state; after one, the dump. */
static void slabtrace_status_ctl_before_print(struct kunit *test)
{
	char *text;

	KUNIT_ASSERT_EQ(test, st_cmd("start st_kunit_status\n"), 0);
	/* This user's snapshot, whatever it was, is now of our cache... */
	KUNIT_ASSERT_EQ(test, st_cmd("print st_kunit_status\n"), 0);
	/* ...and a reset drops it: the user has none. */
	KUNIT_ASSERT_EQ(test, st_cmd("reset st_kunit_status\n"), 0);
	text = st_read_ctl(test);
	kunit_info(test, "ctl:\n%s", text);
	KUNIT_EXPECT_TRUE(test, str_has_prefix(text, NO_SNAP));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\ncache st_kunit_status: tracing, traced "));

	KUNIT_ASSERT_EQ(test, st_cmd("print st_kunit_status\n"), 0);
	text = st_read_ctl(test);
	KUNIT_EXPECT_TRUE(test, str_has_prefix(text, HEADER));
	KUNIT_EXPECT_NULL(test, strstr(text, "No snapshot"));
}

/* kmalloc caches of 1 KiB and more are named in KiB: the name meant. */
static void slabtrace_status_name_hint(struct kunit *test)
{
	char buf[SLABTRACE_NAME_MAX + 1];

	KUNIT_ASSERT_EQ(test, slabtrace_caches_init(), 0);
	KUNIT_EXPECT_TRUE(test, slabtrace_name_hint("kmalloc-8192", buf, sizeof(buf)));
	KUNIT_EXPECT_STREQ(test, buf, "kmalloc-8k");
	KUNIT_EXPECT_TRUE(test, slabtrace_name_hint("kmalloc-1024", buf, sizeof(buf)));
	KUNIT_EXPECT_STREQ(test, buf, "kmalloc-1k");
	/* Not a multiple of 1024, no such cache, no number, too small. */
	KUNIT_EXPECT_FALSE(test, slabtrace_name_hint("kmalloc-1000", buf, sizeof(buf)));
	KUNIT_EXPECT_FALSE(test, slabtrace_name_hint("st_kunit_none-2048", buf, sizeof(buf)));
	KUNIT_EXPECT_FALSE(test, slabtrace_name_hint("kmalloc-", buf, sizeof(buf)));
	KUNIT_EXPECT_FALSE(test, slabtrace_name_hint("kmalloc-512", buf, sizeof(buf)));
	KUNIT_EXPECT_FALSE(test, slabtrace_name_hint("kmalloc-8192", buf, 8));
	KUNIT_EXPECT_EQ(test, st_cmd("start kmalloc-8192\n"), -ENOENT);
}

static void slabtrace_status_help(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, st_cmd("help\n"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("help me\n"), -EINVAL);
}

static int slabtrace_status_case_init(struct kunit *test)
{
	saved_limit = READ_ONCE(leak_record_limit);
	return 0;
}

static int slabtrace_status_suite_init(struct kunit_suite *suite)
{
	status_cache = kmem_cache_create("st_kunit_status", 72, 0, 0,
					 status_ctor);
	return status_cache ? 0 : -ENOMEM;
}

static void slabtrace_status_suite_exit(struct kunit_suite *suite)
{
	kmem_cache_destroy(status_cache);
}

static void slabtrace_status_exit(struct kunit *test)
{
	st_cmd("limit %lu\n", saved_limit);
	st_cmd("stop st_kunit_status\n");
	st_cmd("reset st_kunit_status\n");
	st_expect_lockdep_clean(test);
}

static struct kunit_case slabtrace_status_cases[] = {
	KUNIT_CASE(slabtrace_status_text),
	KUNIT_CASE(slabtrace_status_drops),
	KUNIT_CASE(slabtrace_status_ctl_before_print),
	KUNIT_CASE(slabtrace_status_name_hint),
	KUNIT_CASE(slabtrace_status_help),
	{}
};

static struct kunit_suite slabtrace_status_suite = {
	.name = "slabtrace_status",
	.suite_init = slabtrace_status_suite_init,
	.suite_exit = slabtrace_status_suite_exit,
	.init = slabtrace_status_case_init,
	.exit = slabtrace_status_exit,
	.test_cases = slabtrace_status_cases,
};

kunit_test_suite(slabtrace_status_suite);

MODULE_LICENSE("GPL");
