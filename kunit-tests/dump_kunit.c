// SPDX-License-Identifier: GPL-2.0
/*
 * The "slabtrace_dump" suite proves the text that reading ctl returns: the
 * header's counts, each object's line and numbered backtrace starting at
 * the allocating function, that a reader sees the newest snapshot, and
 * that a cache is called merged only when it has two names or more and
 * says how many names did not fit in its list, that no command name can
 * forge a line of the dump, and that records sharing a few stacks each
 * show their own backtrace, read after read (the reader's cache of
 * backtrace text).  Each object line has its memory's node and its GFP
 * flags as the kernel prints them; a percpu object's has no node, its
 * bytes are its size on every possible CPU, and the header says so.
 */
#include <kunit/test.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "st_slab_kunit.h"

#define HEADER	"Dumping outstanding allocs from st_kunit_dump"
#define ONE_NONE_DROPPED	", 1 outstanding (120 bytes), 0 records dropped\n"

static struct kmem_cache *dump_cache;

static void dump_ctor(void *obj)
{
}

static noinline void *dump_alloc(void)
{
	void *p = kmem_cache_alloc(dump_cache, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

/* Three more call paths, three more stacks. */
static noinline void *dump_alloc_a(void)
{
	void *p = kmem_cache_alloc(dump_cache, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static noinline void *dump_alloc_b(void)
{
	void *p = kmem_cache_alloc(dump_cache, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static noinline void *dump_alloc_c(void)
{
	void *p = kmem_cache_alloc(dump_cache, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

/* The line of @text that starts with @prefix, or NULL. */
static const char *line_with(const char *text, const char *prefix)
{
	const char *l;

	for (l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (str_has_prefix(l, prefix))
			return l;
	return NULL;
}

static void slabtrace_dump_text(struct kunit *test)
{
	char expect[128], *text;
	const char *l, *fn;
	void *a, *b;
	unsigned int secs, ms;
	int n;

	KUNIT_ASSERT_EQ(test, st_cmd("start st_kunit_dump\n"), 0);
	a = dump_alloc();
	b = dump_alloc();
	KUNIT_ASSERT_EQ(test, st_cmd("print st_kunit_dump\n"), 0);
	text = st_read_ctl(test);
	kunit_info(test, "dump:\n%s", text);

	KUNIT_EXPECT_TRUE(test, str_has_prefix(text, HEADER "\ntraced "));
	l = line_with(text, "traced ");
	KUNIT_ASSERT_NOT_NULL(test, l);
	n = sscanf(l, "traced %u.%03us", &secs, &ms);
	KUNIT_EXPECT_EQ(test, n, 2);
	KUNIT_EXPECT_NOT_NULL(test, strstr(l, "s, 2 outstanding (240 bytes), 0 records dropped\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\n-------------------------\nObj "));

	/* One object line per object, with its size and context. */
	snprintf(expect, sizeof(expect), "from kthread %s (PID %d):\n----\n #01 [<",
		 current->comm, task_pid_nr(current));
	l = strstr(text, expect);
	KUNIT_ASSERT_NOT_NULL(test, l);
	KUNIT_EXPECT_NOT_NULL(test, strstr(strstr(l, expect) + 1, expect));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, ", 120 bytes (120 requested), age "));
	snprintf(expect, sizeof(expect),
		 ", node %d, gfp GFP_KERNEL, stack 1 (unknown), from kthread ",
		 page_to_nid(virt_to_page(a)));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, expect));
	l = strstr(text, " #01 [<");
	KUNIT_ASSERT_NOT_NULL(test, l);
	fn = strstr(l, "] in dump_alloc+0x");
	KUNIT_ASSERT_NOT_NULL(test, fn);
	KUNIT_EXPECT_PTR_EQ(test, strchr(fn, '\n'), strchr(l, '\n'));
	KUNIT_EXPECT_NOT_NULL(test, line_with(text, " #02 [<"));

	/* The next print is what the next read shows. */
	kmem_cache_free(dump_cache, a);
	KUNIT_ASSERT_EQ(test, st_cmd("print st_kunit_dump\n"), 0);
	text = st_read_ctl(test);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, ", 1 outstanding (120 bytes), "));
	kmem_cache_free(dump_cache, b);
}

/*
 * A reader that has read part of a print keeps it when the kernel's
 * traverse() (an lseek() or a pread() to another offset) starts it again
 * from record 0; a read from offset 0 takes the latest print.
 */
static void slabtrace_dump_seek_keeps_snapshot(struct kunit *test)
{
	const struct seq_operations *ops = &leak_dump_seq_ops;
	struct leak_reader r = { };
	struct seq_file m = { .private = &r };
	struct leak_snapshot *first;
	loff_t pos = 0;
	void *a, *v;

	KUNIT_ASSERT_EQ(test, st_cmd("start st_kunit_dump\n"), 0);
	a = dump_alloc();
	KUNIT_ASSERT_EQ(test, st_cmd("print st_kunit_dump\n"), 0);
	m.size = PAGE_SIZE;
	m.buf = kunit_kzalloc(test, m.size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.buf);
	v = ops->start(&m, &pos);
	ops->stop(&m, v);
	first = r.snap;
	KUNIT_ASSERT_NOT_NULL(test, first);

	KUNIT_ASSERT_EQ(test, st_cmd("print st_kunit_dump\n"), 0);
	/* traverse(): back to record 0, the reader's position elsewhere. */
	m.read_pos = 100;
	pos = 0;
	v = ops->start(&m, &pos);
	ops->stop(&m, v);
	KUNIT_EXPECT_PTR_EQ(test, r.snap, first);
	/* A read from offset 0. */
	m.read_pos = 0;
	pos = 0;
	v = ops->start(&m, &pos);
	ops->stop(&m, v);
	KUNIT_EXPECT_PTR_NE(test, r.snap, first);
	KUNIT_EXPECT_NOT_NULL(test, r.snap);
	leak_view_clear(&r);
	kmem_cache_free(dump_cache, a);
}

static noinline u32 __percpu *dump_alloc_percpu(void)
{
	u32 __percpu *p = __alloc_percpu_gfp(sizeof(u32), sizeof(u32),
					     GFP_KERNEL | __GFP_NOWARN);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

/*
 * A percpu object: its size on each CPU, on every CPU, and no node.  UML
 * has one possible CPU, so the product is checked by the VM test bigleak
 * (2 CPUs), not here.
 */
static void slabtrace_dump_percpu(struct kunit *test)
{
	char expect[160], *text;
	u32 __percpu *p;

	KUNIT_ASSERT_EQ(test, st_cmd("start percpu\n"), 0);
	p = dump_alloc_percpu();
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, st_cmd("print percpu\n"), 0);
	text = st_read_ctl(test);
	free_percpu(p);
	snprintf(expect, sizeof(expect),
		 "\npercpu objects: requested is the size on one CPU, bytes on all %u possible CPUs\n",
		 num_possible_cpus());
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, expect));
	snprintf(expect, sizeof(expect),
		 ", %zu bytes (4 requested), age ", 4 * (size_t)num_possible_cpus());
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, expect));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, ", gfp GFP_KERNEL|__GFP_NOWARN, stack 1 ("));
	KUNIT_EXPECT_NULL(test, strstr(text, ", node "));
}

/* A stopped cache still prints its records. */
static void slabtrace_dump_stopped_counts(struct kunit *test)
{
	void *a;
	char *text;

	KUNIT_ASSERT_EQ(test, st_cmd("start st_kunit_dump\n"), 0);
	a = dump_alloc();
	KUNIT_ASSERT_EQ(test, st_cmd("stop st_kunit_dump\n"), 0);
	KUNIT_ASSERT_EQ(test, st_cmd("print st_kunit_dump\n"), 0);
	text = st_read_ctl(test);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, ONE_NONE_DROPPED));
	kmem_cache_free(dump_cache, a);
}

/* The optional header lines, on a snapshot made by hand. */
static void slabtrace_dump_header_lines(struct kunit *test)
{
	struct leak_snapshot *snap = leak_snapshot_alloc();
	char *text;

	KUNIT_ASSERT_NOT_NULL(test, snap);
	strscpy(snap->name, "st_kunit_dump", sizeof(snap->name));
	snap->replaced = 3;
	snap->drops[LEAK_DROP_POOL] = 2;
	snap->drops[LEAK_DROP_STACK] = 1;
	snap->grow_failed = 4;
	strscpy(snap->aliases, "a, b", sizeof(snap->aliases));
	snap->opts.older_than = 250;
	snap->opts.since_mark = true;
	mutex_lock(&leak_mutex);
	/* Not stale: copied since owner 0's last purge, as a print would be. */
	snap->purges = leak_purges[snap->owner];
	leak_print_publish(snap, NULL);
	mutex_unlock(&leak_mutex);
	text = st_read_ctl(test);
	KUNIT_EXPECT_STREQ(test, text,
			   "Dumping outstanding allocs from st_kunit_dump (older than 250 ms, since mark)\n"
			   "traced 0.000s, 0 outstanding (0 bytes), 2 records dropped\n"
			   "drops: pool empty 2, stack store full 1, table growth failed 4\n"
			   "shared with: a, b (merged caches: their objects are traced too)\n"
			   "3 records replaced: their objects were freed through paths with no tracepoint\n"
			   "verdicts: 0 leak, 0 live, 0 kept, 0 unknown\n"
			   "-------------------------\n");
}

/*
 * A cache of more names than its ref holds: every name kept, then how many
 * more, whole, however full the ref's list is.
 */
static void slabtrace_dump_aliases_and_more(struct kunit *test)
{
	struct slabtrace_cache_ref *ref;
	struct leak_snapshot *snap;
	size_t len;

	ref = kunit_kzalloc(test, sizeof(*ref), GFP_KERNEL);
	snap = kunit_kzalloc(test, sizeof(*snap), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	leak_snapshot_aliases(snap, ref);
	KUNIT_EXPECT_STREQ(test, snap->aliases, "");

	ref->merged = 1;
	memset(ref->aliases, 'a', sizeof(ref->aliases) - 1);
	ref->aliases_more = 2147483647;
	leak_snapshot_aliases(snap, ref);
	len = strlen(ref->aliases);
	KUNIT_EXPECT_EQ(test, strncmp(snap->aliases, ref->aliases, len), 0);
	KUNIT_EXPECT_STREQ(test, snap->aliases + len, " and 2147483647 more");

	strscpy(ref->aliases, "a, b", sizeof(ref->aliases));
	ref->aliases_more = 0;
	leak_snapshot_aliases(snap, ref);
	KUNIT_EXPECT_STREQ(test, snap->aliases, "a, b");
}

/*
 * A command name cannot forge a line: "X\nObj 0000dead" shows escaped, on
 * the context's own line.
 */
static void slabtrace_dump_no_forged_lines(struct kunit *test)
{
	char saved[TASK_COMM_LEN], *text;
	void *a;

	get_task_comm(saved, current);
	set_task_comm(current, "X\nObj 0000dead");
	KUNIT_ASSERT_EQ(test, st_cmd("start st_kunit_dump\n"), 0);
	a = dump_alloc();
	set_task_comm(current, saved);
	text = st_read_ctl_of(test, "st_kunit_dump");
	KUNIT_EXPECT_NULL(test, strstr(text, "\nObj 0000dead"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "kthread X\\nObj\\x200000dead (PID "));
	kmem_cache_free(dump_cache, a);
}

/*
 * "shared with" only when two names or more share the cache: a mergeable
 * cache nothing was merged into has a unique-id directory and one name,
 * and is not called merged.
 */
static void slabtrace_dump_merged_only_when_shared(struct kunit *test)
{
	struct slabtrace_cache_ref ref;
	struct kmem_cache *lonely;
	char *text;

	/* An odd size no other cache has; no constructor: mergeable. */
	lonely = kmem_cache_create("st_kunit_lonely", 1336, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, lonely);
	KUNIT_EXPECT_EQ(test, slabtrace_cache_resolve("kunit", "st_kunit_lonely", &ref), 0);
	KUNIT_EXPECT_EQ(test, ref.merged, 0);
	slabtrace_cache_put(&ref);
	KUNIT_ASSERT_EQ(test, st_cmd("start st_kunit_lonely\n"), 0);
	text = st_read_ctl_of(test, "st_kunit_lonely");
	KUNIT_EXPECT_NULL(test, strstr(text, "shared with"));

	/*
	 * A second cache of the same geometry would merge into it, but
	 * KASAN keeps caches from merging: the VM suite checks the merged
	 * header on Debian's kernels.
	 */
	st_cmd("stop st_kunit_lonely\n");
	st_cmd("reset st_kunit_lonely\n");
	kmem_cache_destroy(lonely);
}

#define SHARED	60	/* records, on three stacks, interleaved */

/* Every item of the ctl view of @r's snapshot, as one read() shows it. */
static char *render_items(struct kunit *test, struct leak_reader *r,
			  size_t size)
{
	const struct seq_operations *ops = &leak_dump_seq_ops;
	struct seq_file m = { .private = r, .size = size };
	loff_t pos = 0;
	void *v;

	m.buf = kunit_kzalloc(test, size + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.buf);
	for (v = ops->start(&m, &pos); v; v = ops->next(&m, v, &pos)) {
		m.index = pos;
		ops->show(&m, v);
	}
	ops->stop(&m, v);
	KUNIT_ASSERT_LT(test, m.count, m.size);
	return m.buf;
}

/* A backtrace as leak_stack_show() prints it, with no cache. */
static char *stack_text(struct kunit *test, depot_stack_handle_t handle)
{
	struct seq_file m = { .size = 16384 };

	m.buf = kunit_kzalloc(test, m.size + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.buf);
	leak_stack_show(&m, handle);
	KUNIT_ASSERT_LT(test, m.count, m.size);
	return m.buf;
}

/* Check each record's block of @text against its own backtrace. */
static void expect_own_stacks(struct kunit *test, const char *text,
			      struct leak_snapshot *snap, void **objs,
			      void *(**fns)(void))
{
	struct leak_record *rec;
	const char *l = text, *fn_at;
	char want[KSYM_SYMBOL_LEN + 8];
	unsigned long i;
	int k;

	for (i = 0; (rec = leak_snapshot_entry(snap, i)); i++) {
		for (k = 0; k < SHARED && objs[k] != rec->obj; k++)
			;
		KUNIT_ASSERT_LT(test, k, SHARED);
		l = strstr(l, "\nObj ");
		KUNIT_ASSERT_NOT_NULL(test, l);
		l = strstr(l, ":\n----\n");
		KUNIT_ASSERT_NOT_NULL(test, l);
		l += strlen(":\n----\n");
		/* The very backtrace of this record, frame for frame. */
		KUNIT_EXPECT_TRUE_MSG(test, str_has_prefix(l, stack_text(test, rec->stack)),
				      "record %lu shows another stack", i);
		/* And it starts in the function that allocated the object. */
		snprintf(want, sizeof(want), "] in %ps+0x", fns[k % 3]);
		fn_at = strstr(l, want);
		KUNIT_EXPECT_TRUE(test, fn_at && fn_at < strchr(l, '\n'));
	}
	KUNIT_EXPECT_EQ(test, i, SHARED);
}

/*
 * Many records on three stacks, interleaved: each shows its own
 * backtrace, the first time the reader meets its stack and every time
 * after (from the reader's cache), and two reads are the same text.
 */
static void slabtrace_dump_shared_stacks(struct kunit *test)
{
	void *(*fns[3])(void) = { dump_alloc_a, dump_alloc_b, dump_alloc_c };
	struct leak_reader r = { };
	struct leak_snapshot *snap;
	char *first, *again;
	void **objs;
	int k;

	objs = kunit_kcalloc(test, SHARED, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	KUNIT_ASSERT_EQ(test, st_cmd("start st_kunit_dump\n"), 0);
	for (k = 0; k < SHARED; k++)
		objs[k] = fns[k % 3]();
	snap = st_print(test, "st_kunit_dump");
	first = render_items(test, &r, 512 * 1024);
	KUNIT_EXPECT_NOT_NULL(test, r.texts);
	again = render_items(test, &r, 512 * 1024);
	KUNIT_EXPECT_STREQ(test, first, again);
	expect_own_stacks(test, first, snap, objs, fns);
	expect_own_stacks(test, again, snap, objs, fns);
	leak_view_clear(&r);
	leak_snapshot_put(snap);
	for (k = 0; k < SHARED; k++)
		kmem_cache_free(dump_cache, objs[k]);
}

#define DEPTHS	12	/* stacks: one an allocation depth */

/* An object allocated @depth calls down: each depth, a stack of its own. */
static noinline void *dump_alloc_deep(int depth)
{
	void *p;

	if (!depth)
		return dump_alloc();
	p = dump_alloc_deep(depth - 1);
	OPTIMIZER_HIDE_VAR(p);
	return p;
}

/*
 * In the per-object view each stack's verdict line is an item of its
 * own, after the header's counts and before the header's end: no item
 * grows with the number of stacks, as the header did (seq_file doubles
 * its buffer until an item fits, however large).
 */
static void slabtrace_dump_stack_lines_apart(struct kunit *test)
{
	const struct seq_operations *ops = &leak_dump_seq_ops;
	struct leak_reader r = { };
	struct seq_file m = { .private = &r, .size = 4096 };
	struct leak_snapshot *snap;
	void *objs[DEPTHS];
	int lines = 0;
	char want[32];
	loff_t pos = 0;
	int k, objects = 0;
	void *v;

	m.buf = kunit_kzalloc(test, m.size + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.buf);
	KUNIT_ASSERT_EQ(test, st_cmd("start st_kunit_dump\n"), 0);
	for (k = 0; k < DEPTHS; k++)
		objs[k] = dump_alloc_deep(k);
	snap = st_print(test, "st_kunit_dump");
	KUNIT_EXPECT_EQ(test, snap->nr_groups, DEPTHS);
	for (v = ops->start(&m, &pos); v; v = ops->next(&m, v, &pos)) {
		m.index = pos;
		m.count = 0;
		ops->show(&m, v);
		/* An item that does not fit leaves count == size. */
		KUNIT_EXPECT_LT_MSG(test, m.count, m.size, "item %lld", pos);
		m.buf[min(m.count, m.size)] = 0;
		if (!pos) {
			KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, "\nverdicts: "));
			KUNIT_EXPECT_NULL(test, strstr(m.buf, "\nstack "));
			KUNIT_EXPECT_NULL(test, strstr(m.buf, "-----"));
		} else if (pos <= DEPTHS) {
			snprintf(want, sizeof(want), "stack %lld: ", pos);
			KUNIT_EXPECT_TRUE_MSG(test, str_has_prefix(m.buf, want),
					      "item %lld: %s", pos, m.buf);
			lines++;
		} else if (pos == DEPTHS + 1) {
			KUNIT_EXPECT_STREQ(test, m.buf, "-------------------------\n");
		} else {
			KUNIT_EXPECT_TRUE(test, str_has_prefix(m.buf, "Obj "));
			objects++;
		}
	}
	ops->stop(&m, v);
	KUNIT_EXPECT_EQ(test, objects, DEPTHS);
	KUNIT_EXPECT_EQ(test, lines, DEPTHS);
	leak_view_clear(&r);
	leak_snapshot_put(snap);
	for (k = 0; k < DEPTHS; k++)
		kmem_cache_free(dump_cache, objs[k]);
}

static int slabtrace_dump_suite_init(struct kunit_suite *suite)
{
	dump_cache = kmem_cache_create("st_kunit_dump", 120, 0, 0, dump_ctor);
	return dump_cache ? 0 : -ENOMEM;
}

static void slabtrace_dump_suite_exit(struct kunit_suite *suite)
{
	kmem_cache_destroy(dump_cache);
}

static void slabtrace_dump_exit(struct kunit *test)
{
	st_cmd("stop st_kunit_dump\n");
	st_cmd("reset st_kunit_dump\n");
	st_cmd("stop percpu\n");
	st_cmd("reset percpu\n");
	st_expect_lockdep_clean(test);
}

static struct kunit_case slabtrace_dump_cases[] = {
	KUNIT_CASE(slabtrace_dump_text),
	KUNIT_CASE(slabtrace_dump_seek_keeps_snapshot),
	KUNIT_CASE(slabtrace_dump_stopped_counts),
	KUNIT_CASE(slabtrace_dump_percpu),
	KUNIT_CASE(slabtrace_dump_header_lines),
	KUNIT_CASE(slabtrace_dump_aliases_and_more),
	KUNIT_CASE(slabtrace_dump_stack_lines_apart),
	KUNIT_CASE(slabtrace_dump_merged_only_when_shared),
	KUNIT_CASE(slabtrace_dump_no_forged_lines),
	KUNIT_CASE(slabtrace_dump_shared_stacks),
	{}
};

static struct kunit_suite slabtrace_dump_suite = {
	.name = "slabtrace_dump",
	.suite_init = slabtrace_dump_suite_init,
	.suite_exit = slabtrace_dump_suite_exit,
	.exit = slabtrace_dump_exit,
	.test_cases = slabtrace_dump_cases,
};

kunit_test_suite(slabtrace_dump_suite);

MODULE_LICENSE("GPL");
