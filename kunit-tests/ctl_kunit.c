// SPDX-License-Identifier: GPL-2.0
/*
 * The "slabtrace_ctl" suite proves that the ctl file refuses every malformed
 * or impossible command with its documented errno, changing nothing, and
 * that the harmless repeats (start twice, stop of an untraced cache) are
 * accepted.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "st_slab_kunit.h"

struct ctl_case {
	const char *desc;
	const char *cmd;	/* NULL: built by the case */
	size_t len;		/* 0: strlen(cmd) */
	int err;
};

static const struct ctl_case ctl_cases[] = {
	{ "empty write", "", 0, -EINVAL },
	{ "only a newline", "\n", 0, -EINVAL },
	{ "only blanks", " \t\x20\n", 0, -EINVAL },
	{ "unknown verb", "begin kmalloc-64\n", 0, -EINVAL },
	{ "verb in capitals", "START kmalloc-64\n", 0, -EINVAL },
	{ "verb with a prefix match", "starting kmalloc-64\n", 0, -EINVAL },
	{ "start, no name", "start\n", 0, -EINVAL },
	{ "stop, no name", "stop\n", 0, -EINVAL },
	{ "print, no name", "print", 0, -EINVAL },
	{ "reset, no name", "reset\x20\n", 0, -EINVAL },
	{ "extra word", "start kmalloc-64 now\n", 0, -EINVAL },
	{ "two names", "print kmalloc-64 kmalloc-128\n", 0, -EINVAL },
	{ "embedded NUL", "start kmalloc-64\0junk", 21, -EINVAL },
	{ "NUL first", "\0start kmalloc-64", 17, -EINVAL },
	{ "unknown cache", "start no-such-cache\n", 0, -ENOENT },
	{ "unknown cache, stop", "stop no-such-cache\n", 0, -ENOENT },
	{ "a path, not a name", "start ../slab/kmalloc-64\n", 0, -ENOENT },
	{ "own cache", "start slabtrace_record\n", 0, -EPERM },
	{ "print of an untraced cache", "print kmalloc-128\n", 0, -ENODATA },
	{ "print, unknown option", "print kmalloc-64 bogus\n", 0, -EINVAL },
	{ "print, top without N", "print kmalloc-64 stacks top\n", 0, -EINVAL },
	{ "print, top 0", "print kmalloc-64 top 0\n", 0, -EINVAL },
	{ "print, top -1", "print kmalloc-64 top -1\n", 0, -EINVAL },
	{ "print, older-than x", "print kmalloc-64 older-than x\n", 0, -EINVAL },
	{ "print, top with a sign", "print kmalloc-64 top +3\n", 0, -EINVAL },
	{ "start, sample with a sign", "start kmalloc-64 sample +5\n", 0, -EINVAL },
	{ "start, sample-bytes with a sign", "start kmalloc-64 sample-bytes +4096\n", 0,
	  -EINVAL },
	{ "limit with a sign", "limit +5\n", 0, -EINVAL },
	{ "pool with a sign", "pool +4096\n", 0, -EINVAL },
	{ "print, top beyond 32 bits", "print kmalloc-64 top 4294967296\n", 0, -ERANGE },
	{ "print, older-than beyond 32 bits", "print kmalloc-64 older-than 4294967296\n", 0,
	  -ERANGE },
	{ "print with options, untraced", "print kmalloc-128 stacks top 3\n", 0,
	  -ENODATA },
	{ "mark, no name", "mark\n", 0, -EINVAL },
	{ "mark, untraced", "mark kmalloc-128\n", 0, -ENODATA },
	{ "two lines", "start kmalloc-128\nsample 5\n", 0, -EINVAL },
	{ "mark, two names", "mark kmalloc-64 kmalloc-128\n", 0, -EINVAL },
	{ "syscall, no verb", "syscall\n", 0, -EINVAL },
	{ "syscall start pid x", "syscall start pid x\n", 0, -EINVAL },
	{ "4 KiB of garbage", NULL, 4096, -E2BIG },
	{ "256 bytes", NULL, 256, -E2BIG },
	{ "overlong cache name", NULL, 0, -ENAMETOOLONG },
};

static void ctl_case_desc(const struct ctl_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ctl, ctl_cases, ctl_case_desc);

static void slabtrace_ctl_rejects(struct kunit *test)
{
	const struct ctl_case *c = test->param_value;
	size_t len = c->len;
	char *buf;

	buf = kunit_kzalloc(test, 4096 + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	if (c->cmd) {
		len = len ?: strlen(c->cmd);
		memcpy(buf, c->cmd, len);
	} else if (c->err == -E2BIG) {
		/* Printable and not: what cat of a binary would write. */
		for (size_t i = 0; i < len; i++)
			buf[i] = 1 + (i * 37) % 254;
	} else {
		len = snprintf(buf, 4096, "start %0*d\n",
			       SLABTRACE_NAME_MAX + 1, 7);
	}
	KUNIT_EXPECT_EQ(test, slabtrace_ctl_command(NULL, buf, len), c->err);
	/* Nothing became traced. */
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(leak_active));
}

/*
 * start twice, stop twice, reset of an untraced cache, mark of a word
 * with nothing traced: all fine.
 */
static void slabtrace_ctl_harmless_repeats(struct kunit *test)
{
	/* A word none of whose caches is traced: nothing to do. */
	KUNIT_EXPECT_EQ(test, st_cmd("mark all\n"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("stop kmalloc-128\n"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("reset kmalloc-128\n"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("start kmalloc-128\n"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("start kmalloc-128\n"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("stop kmalloc-128\n"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("stop kmalloc-128\n"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("reset kmalloc-128\n"), 0);
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(leak_active));
}

/* Names are case sensitive, surrounding blanks are not significant. */
static void slabtrace_ctl_blanks(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, st_cmd("  start \t kmalloc-128\x20\x20\n"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("print kmalloc-128"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("stop kmalloc-128\n"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("reset kmalloc-128\n"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("start KMALLOC-128\n"), -ENOENT);
}

static void many_ctor(void *p)
{
}

/*
 * More caches than the set holds: the first LEAK_MAX_CACHES start,
 * the next does not (-ENOSPC), and the probes' lookup finds each traced
 * cache and no other; "stop all" and "reset all" forget them all.  (The
 * words' "start" reads /sys/kernel/slab, which KUnit's kernel has not
 * mounted: the VM test "many" starts them.)
 */
static void slabtrace_ctl_too_many(struct kunit *test)
{
	struct kmem_cache *kmalloc64 = kmalloc_caches[KMALLOC_NORMAL][kmalloc_index(64)];
	struct kmem_cache **caches;
	struct leak_set *set;
	unsigned int i, n = LEAK_MAX_CACHES;
	char name[32];

	caches = kunit_kcalloc(test, n, sizeof(*caches), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, caches);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "st_many_%u", i);
		/* A constructor: never merged, a cache of its own each. */
		caches[i] = kmem_cache_create(name, 32, 0, 0, many_ctor);
		KUNIT_ASSERT_NOT_NULL(test, caches[i]);
	}
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, st_cmd("start st_many_%u", i), 0, "%u", i);
	KUNIT_EXPECT_EQ(test, st_cmd("start kmalloc-64"), -ENOSPC);
	set = rcu_dereference_protected(leak_active, true);
	KUNIT_ASSERT_NOT_NULL(test, set);
	KUNIT_EXPECT_EQ(test, set->nr, n);
	for (i = 0; i < n; i++) {
		struct leak_traced *tr = leak_traced_of(set, caches[i]);

		KUNIT_EXPECT_TRUE_MSG(test, tr && tr->ref.cache == caches[i], "%u", i);
		KUNIT_EXPECT_PTR_EQ(test, tr ? leak_traced_of_id(set, tr->id) : NULL,
				    tr);
	}
	KUNIT_EXPECT_NULL(test, leak_traced_of(set, kmalloc64));
	KUNIT_EXPECT_EQ(test, st_cmd("stop all"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("reset all"), 0);
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(leak_active));
	for (i = 0; i < n; i++)
		kmem_cache_destroy(caches[i]);
}

static void bucket_ctor(void *p)
{
}

/*
 * A kmem_buckets set is refused by what it is: one cache of its own per
 * kmalloc cache, of its size, named PREFIX-SUFFIX after it.  Made here
 * with kmem_cache_create() (the UML kernel has no CONFIG_SLAB_BUCKETS),
 * under a prefix no table of names knows.  One cache short, it is not a
 * set, and tracing it is allowed.
 */
static void slabtrace_ctl_bucket_set(struct kunit *test)
{
	struct kmem_cache *set[ARRAY_SIZE(kmalloc_caches[KMALLOC_NORMAL])] = {};
	unsigned int i, bytes, n = 0, hole = 0;
	char name[32];

	for (i = 0; i < ARRAY_SIZE(set); i++) {
		if (!kmalloc_caches[KMALLOC_NORMAL][i])
			continue;
		bytes = kmem_cache_size(kmalloc_caches[KMALLOC_NORMAL][i]);
		if (bytes >= 1024)
			snprintf(name, sizeof(name), "stkb-%uk", bytes / 1024);
		else
			snprintf(name, sizeof(name), "stkb-%u", bytes);
		/* A constructor: never merged, like SLAB_NO_MERGE. */
		set[i] = kmem_cache_create(name, bytes, 0, 0, bucket_ctor);
		KUNIT_ASSERT_NOT_NULL(test, set[i]);
		if (bytes == 96)
			hole = i;
		n++;
	}
	KUNIT_ASSERT_GT(test, n, 8);
	KUNIT_ASSERT_GT(test, hole, 0);
	KUNIT_EXPECT_EQ(test, st_cmd("start stkb-64\n"), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, st_cmd("start stkb-8k\n"), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, st_cmd("start kmalloc-64\n"), 0);
	st_cmd("stop kmalloc-64\n");
	st_cmd("reset kmalloc-64\n");

	kmem_cache_destroy(set[hole]);
	set[hole] = NULL;
	KUNIT_EXPECT_EQ(test, st_cmd("start stkb-64\n"), 0);
	st_cmd("stop stkb-64\n");
	st_cmd("reset stkb-64\n");
	for (i = 0; i < ARRAY_SIZE(set); i++)
		kmem_cache_destroy(set[i]);
}

static void slabtrace_ctl_exit(struct kunit *test)
{
	st_expect_lockdep_clean(test);
}

static struct kunit_case slabtrace_ctl_cases[] = {
	KUNIT_CASE_PARAM(slabtrace_ctl_rejects, ctl_gen_params),
	KUNIT_CASE(slabtrace_ctl_harmless_repeats),
	KUNIT_CASE(slabtrace_ctl_blanks),
	KUNIT_CASE(slabtrace_ctl_too_many),
	KUNIT_CASE(slabtrace_ctl_bucket_set),
	{}
};

static struct kunit_suite slabtrace_ctl_suite = {
	.name = "slabtrace_ctl",
	.exit = slabtrace_ctl_exit,
	.test_cases = slabtrace_ctl_cases,
};

kunit_test_suite(slabtrace_ctl_suite);

MODULE_LICENSE("GPL");
