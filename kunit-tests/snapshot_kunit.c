// SPDX-License-Identifier: GPL-2.0
/*
 * The "slabtrace_snapshot" suite proves whose print a reader sees: a
 * print is kept for its login user, so two users printing two caches each
 * read their own; at most 8 users' prints are kept, the one used least
 * recently going for a ninth; a print goes once it has been neither made
 * nor read for snapshot_idle_secs, a read keeping it; a ctl opened to
 * read and write keeps the print it wrote as its own, whatever anyone
 * prints after; a reset drops the users' prints of its cache; a reader
 * that began before any print keeps showing none when it seeks.  The login
 * user is the tests' own (leak_test_user): UML has no audit login
 * UID to set.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uidgid.h>

#include "st_slab_kunit.h"

static struct kmem_cache *caches[2];
static const char *const names[2] = { "st_kunit_snap0", "st_kunit_snap1" };
static unsigned int saved_idle;

static void snap_ctor(void *obj)
{
}

static void be_user(unsigned int uid)
{
	leak_test_user = KUIDT_INIT(uid);
	WRITE_ONCE(leak_test_user_set, true);
}

/* The cache the user's print (or @r's own) is of, or "-" for none. */
static const char *seen(struct kunit *test, struct leak_reader *r)
{
	struct leak_snapshot *snap = leak_print_get(r);
	char *name;

	if (!snap)
		return "-";
	name = kunit_kstrdup(test, snap->name, GFP_KERNEL);
	leak_snapshot_put(snap);
	return name;
}

static unsigned long kept(void)
{
	unsigned long kept, alive;
	size_t mem;

	leak_print_stats(&kept, &alive, &mem);
	return kept;
}

static void users_apart(struct kunit *test)
{
	be_user(1001);
	KUNIT_ASSERT_EQ(test, st_cmd("print %s\n", names[0]), 0);
	be_user(1002);
	KUNIT_EXPECT_STREQ(test, seen(test, NULL), "-");
	KUNIT_ASSERT_EQ(test, st_cmd("print %s\n", names[1]), 0);
	KUNIT_EXPECT_STREQ(test, seen(test, NULL), names[1]);
	be_user(1001);
	KUNIT_EXPECT_STREQ(test, seen(test, NULL), names[0]);
	/* "unset" is a user too. */
	leak_test_user = INVALID_UID;
	KUNIT_EXPECT_STREQ(test, seen(test, NULL), "-");
	KUNIT_EXPECT_EQ(test, kept(), 2UL);
	/* A user's next print replaces its last. */
	be_user(1002);
	KUNIT_ASSERT_EQ(test, st_cmd("print %s\n", names[0]), 0);
	KUNIT_EXPECT_STREQ(test, seen(test, NULL), names[0]);
	KUNIT_EXPECT_EQ(test, kept(), 2UL);
}

static void eight_users(struct kunit *test)
{
	unsigned int u;

	for (u = 1; u <= 8; u++) {
		be_user(2000 + u);
		KUNIT_ASSERT_EQ(test, st_cmd("print %s\n", names[0]), 0);
	}
	KUNIT_EXPECT_EQ(test, kept(), 8UL);
	/* A read keeps user 2001 in; 2002 is now the least recently used. */
	msleep(20);
	be_user(2001);
	KUNIT_EXPECT_STREQ(test, seen(test, NULL), names[0]);
	be_user(2009);
	KUNIT_ASSERT_EQ(test, st_cmd("print %s\n", names[1]), 0);
	KUNIT_EXPECT_EQ(test, kept(), 8UL);
	be_user(2002);
	KUNIT_EXPECT_STREQ(test, seen(test, NULL), "-");
	be_user(2001);
	KUNIT_EXPECT_STREQ(test, seen(test, NULL), names[0]);
	be_user(2009);
	KUNIT_EXPECT_STREQ(test, seen(test, NULL), names[1]);
}

static void idle(struct kunit *test)
{
	WRITE_ONCE(leak_print_idle, 1);
	be_user(3001);
	KUNIT_ASSERT_EQ(test, st_cmd("print %s\n", names[0]), 0);
	msleep(600);
	/* Read: a second more. */
	KUNIT_EXPECT_STREQ(test, seen(test, NULL), names[0]);
	msleep(600);
	leak_print_sweep();
	KUNIT_EXPECT_EQ(test, kept(), 1UL);
	msleep(600);
	leak_print_sweep();
	KUNIT_EXPECT_EQ(test, kept(), 0UL);
	KUNIT_EXPECT_STREQ(test, seen(test, NULL), "-");
}

/* The ctl opened to read and write: its seq_file's reader. */
struct rw_ctl {
	struct leak_reader r;
	struct seq_file m;
	struct file f;
};

static int rw_print(struct rw_ctl *c, const char *cache)
{
	char *buf = kasprintf(GFP_KERNEL, "print %s\n", cache);
	int ret = buf ? slabtrace_ctl_command(&c->f, buf, strlen(buf)) : -ENOMEM;

	kfree(buf);
	return ret;
}

static void own_print(struct kunit *test)
{
	struct rw_ctl *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->m.private = &c->r;
	c->f.private_data = &c->m;
	c->f.f_mode = FMODE_READ | FMODE_WRITE;
	be_user(4001);
	KUNIT_ASSERT_EQ(test, rw_print(c, names[0]), 0);
	/* The same user prints the other cache, without the file. */
	KUNIT_ASSERT_EQ(test, st_cmd("print %s\n", names[1]), 0);
	KUNIT_EXPECT_STREQ(test, seen(test, &c->r), names[0]);
	KUNIT_EXPECT_STREQ(test, seen(test, NULL), names[1]);
	/* A file opened to write only keeps nothing. */
	c->f.f_mode = FMODE_WRITE;
	KUNIT_ASSERT_EQ(test, rw_print(c, names[1]), 0);
	KUNIT_EXPECT_STREQ(test, seen(test, &c->r), names[0]);
	c->f.f_mode = FMODE_READ | FMODE_WRITE;
	KUNIT_ASSERT_EQ(test, rw_print(c, names[1]), 0);
	KUNIT_EXPECT_STREQ(test, seen(test, &c->r), names[1]);
	/* Its own outlives the user's print, until the file closes. */
	KUNIT_ASSERT_EQ(test, st_cmd("reset %s\n", names[1]), 0);
	KUNIT_EXPECT_STREQ(test, seen(test, NULL), "-");
	KUNIT_EXPECT_STREQ(test, seen(test, &c->r), names[1]);
	leak_view_clear(&c->r);
	KUNIT_EXPECT_NULL(test, c->r.own);
}

/*
 * A reader that started before its user printed (the state text) keeps
 * no snapshot when a seek elsewhere starts it again from record 0: the
 * print made meanwhile would show from the middle of its text.  A read
 * from offset 0 takes it.
 */
static void started_without(struct kunit *test)
{
	struct rw_ctl *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct leak_snapshot *snap;

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->m.private = &c->r;
	be_user(6001);
	KUNIT_EXPECT_NULL(test, leak_print_seq(&c->m, 0));
	c->m.read_pos = 100;
	KUNIT_ASSERT_EQ(test, st_cmd("print %s\n", names[0]), 0);
	KUNIT_EXPECT_NULL(test, leak_print_seq(&c->m, 0));
	c->m.read_pos = 0;
	snap = leak_print_seq(&c->m, 0);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	KUNIT_EXPECT_STREQ(test, snap->name, names[0]);
	leak_reader_clear(&c->r);
}

static void reset_drops(struct kunit *test)
{
	be_user(5001);
	KUNIT_ASSERT_EQ(test, st_cmd("print %s\n", names[0]), 0);
	be_user(5002);
	KUNIT_ASSERT_EQ(test, st_cmd("print %s\n", names[1]), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("reset %s\n", names[0]), 0);
	KUNIT_EXPECT_STREQ(test, seen(test, NULL), names[1]);
	be_user(5001);
	KUNIT_EXPECT_STREQ(test, seen(test, NULL), "-");
	KUNIT_EXPECT_EQ(test, kept(), 1UL);
}

static int snapshot_case_init(struct kunit *test)
{
	int i;

	saved_idle = READ_ONCE(leak_print_idle);
	for (i = 0; i < 2; i++)
		if (st_cmd("start %s\n", names[i]))
			return -EINVAL;
	return 0;
}

static void snapshot_case_exit(struct kunit *test)
{
	int i;

	/* A reset drops every user's print of the cache. */
	for (i = 0; i < 2; i++) {
		st_cmd("stop %s\n", names[i]);
		st_cmd("reset %s\n", names[i]);
	}
	WRITE_ONCE(leak_test_user_set, false);
	WRITE_ONCE(leak_print_idle, saved_idle);
	st_expect_lockdep_clean(test);
}

static int snapshot_suite_init(struct kunit_suite *suite)
{
	int i;

	for (i = 0; i < 2; i++) {
		/* A constructor: never merged, each its own cache. */
		caches[i] = kmem_cache_create(names[i], 96 + 8 * i, 0, 0,
					      snap_ctor);
		if (!caches[i])
			return -ENOMEM;
	}
	return 0;
}

static void snapshot_suite_exit(struct kunit_suite *suite)
{
	kmem_cache_destroy(caches[0]);
	kmem_cache_destroy(caches[1]);
}

static struct kunit_case snapshot_cases[] = {
	KUNIT_CASE(users_apart),
	KUNIT_CASE(eight_users),
	KUNIT_CASE(idle),
	KUNIT_CASE(own_print),
	KUNIT_CASE(reset_drops),
	KUNIT_CASE(started_without),
	{}
};

static struct kunit_suite snapshot_suite = {
	.name = "slabtrace_snapshot",
	.suite_init = snapshot_suite_init,
	.suite_exit = snapshot_suite_exit,
	.init = snapshot_case_init,
	.exit = snapshot_case_exit,
	.test_cases = snapshot_cases,
};

kunit_test_suite(snapshot_suite);

MODULE_LICENSE("GPL");
