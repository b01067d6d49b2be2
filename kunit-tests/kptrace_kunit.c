// SPDX-License-Identifier: GPL-2.0
/*
 * The "slabtrace_kptrace" suite proves kptrace's parts that need no
 * syscall tracepoint (UML has none; the VM tests trace real calls): the
 * text of a record, field by field, escaping included; the generated
 * syscall names; the queue, which drops what does not fit and loses
 * nothing else, is not ready for the readers while a record committed
 * inside another's reservation waits for the outer commit, is freed once
 * a stopped trace's records are read, and is refused more than half the
 * memory available; the summary's arithmetic
 * and order, numbers without a name in its row "unknown"; the pid
 * filter's numbers.
 */
#include <kunit/test.h>
#include <linux/interrupt.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/preempt.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../module/kptrace/kptrace.h"
#include "st_kunit.h"

struct rec_buf {
	struct kptrace_rec rec;
	char data[KPTRACE_DATA_MAX];
};

static struct rec_buf *new_rec(struct kunit *test, int nr, s64 ret)
{
	struct rec_buf *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->rec.start_ns = 100;
	r->rec.end_ns = 250;
	for (i = 0; i < 6; i++)
		r->rec.args[i] = i + 1;
	r->rec.nr = nr;
	r->rec.ret = ret;
	r->rec.pid = 10;
	r->rec.tid = 11;
	r->rec.cpu = 1;
	strscpy(r->rec.comm, "kpt", sizeof(r->rec.comm));
	return r;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

static char *format(struct kunit *test, const struct rec_buf *r)
{
	char *buf = kunit_kzalloc(test, KPTRACE_LINE_MAX, GFP_KERNEL);
	int len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	len = kptrace_format(&r->rec, buf, KPTRACE_LINE_MAX);
	KUNIT_EXPECT_EQ(test, len, strlen(buf));
	return buf;
}

static int nr_of(const char *name, bool compat)
{
	int nr;

	for (nr = 0; nr < slabtrace_syscall_max(compat); nr++)
		if (!strcmp(slabtrace_syscall_name(nr, compat) ?: "", name))
			return nr;
	return -1;
}

static int path_arg(int nr, bool compat)
{
	unsigned int n;

	return slabtrace_syscall_args(nr, compat, &n);
}

static unsigned int nargs(int nr, bool compat)
{
	unsigned int n = 100;

	slabtrace_syscall_args(nr, compat, &n);
	return n;
}

/* The names are the kernel's own: the x86 ABI numbers. */
static void slabtrace_kptrace_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, slabtrace_syscall_name(39, false), "getpid");
	KUNIT_EXPECT_STREQ(test, slabtrace_syscall_name(257, false), "openat");
	KUNIT_EXPECT_STREQ(test, slabtrace_syscall_name(20, true), "getpid");
	KUNIT_EXPECT_NULL(test, slabtrace_syscall_name(-1, false));
	KUNIT_EXPECT_NULL(test, slabtrace_syscall_name(100000, false));
	KUNIT_EXPECT_EQ(test, path_arg(257, false), 1);
	KUNIT_EXPECT_EQ(test, path_arg(nr_of("execve", false), false), 0);
	KUNIT_EXPECT_EQ(test, path_arg(39, false), -1);
	KUNIT_EXPECT_GT(test, slabtrace_syscall_max(false), 300);
}

/*
 * How many registers a call reads, from its sys_NAME prototype: what the
 * binary stream records of its arguments.  6 where the prototypes do not
 * say: a compat call (64-bit arguments in two registers), a call whose
 * entry point is named otherwise (x86's mmap), a number with no call.
 */
static void slabtrace_kptrace_nargs(struct kunit *test)
{
	int nr;

	KUNIT_EXPECT_EQ(test, nargs(39, false), 0);
	KUNIT_EXPECT_EQ(test, nargs(1, false), 3);
	KUNIT_EXPECT_EQ(test, nargs(257, false), 4);
	KUNIT_EXPECT_EQ(test, nargs(nr_of("exit_group", false), false), 1);
	KUNIT_EXPECT_EQ(test, nargs(nr_of("pread64", false), false), 4);
	/* Declared per configuration: the most of them. */
	KUNIT_EXPECT_GE(test, nargs(nr_of("clone", false), false), 5);
	KUNIT_EXPECT_EQ(test, nargs(nr_of("mmap", false), false), 6);
	KUNIT_EXPECT_EQ(test, nargs(20, true), 6);
	KUNIT_EXPECT_EQ(test, nargs(-1, false), 6);
	KUNIT_EXPECT_EQ(test, nargs(100000, false), 6);
	/* Never more than struct kptrace_call's args[] hold. */
	for (nr = 0; nr < slabtrace_syscall_max(false); nr++)
		KUNIT_EXPECT_LE(test, nargs(nr, false), SLABTRACE_SYSCALL_ARGS);
	for (nr = 0; nr < slabtrace_syscall_max(true); nr++)
		KUNIT_EXPECT_LE(test, nargs(nr, true), SLABTRACE_SYSCALL_ARGS);
}

static void slabtrace_kptrace_format_fields(struct kunit *test)
{
	struct rec_buf *r = new_rec(test, 39, 1234);

	KUNIT_EXPECT_STREQ(test, format(test, r),
			   "[100] [250] Syscall 39 (getpid):(0x1, 0x2, 0x3, 0x4, 0x5, 0x6) ret: 1234 pid: 10 tid: 11 comm: kpt cpu: 1\n");
}

static void slabtrace_kptrace_format_negative_and_data(struct kunit *test)
{
	struct rec_buf *r = new_rec(test, 257, -2);

	r->rec.args[0] = (u64)-100;
	r->rec.flags = KPTRACE_DATA;
	r->rec.data_len = 6;
	memcpy(r->rec.data, "/kpt/x", 6);
	KUNIT_EXPECT_STREQ(test, format(test, r),
			   "[100] [250] Syscall 257 (openat):(0xffffffffffffff9c, 0x2, 0x3, 0x4, 0x5, 0x6) ret: -2 pid: 10 tid: 11 comm: kpt cpu: 1 data: \"/kpt/x\"\n");
	/* An empty path read is shown, an unreadable one is not. */
	r->rec.data_len = 0;
	KUNIT_EXPECT_TRUE(test, ends_with(format(test, r), " data: \"\"\n"));
	r->rec.flags = 0;
	KUNIT_EXPECT_NULL(test, strstr(format(test, r), "data:"));
}

/* What the command name and the data below become. */
#define ESCAPED " comm: a\\x20b\\n\"\\\\x cpu: 1 data: \"q\\\"b\\\\c\\x01\"\n"

static void slabtrace_kptrace_format_escapes(struct kunit *test)
{
	struct rec_buf *r = new_rec(test, 39, 0);

	/* A space, a newline, a quote, a backslash in a command name. */
	strscpy(r->rec.comm, "a b\n\"\\x", sizeof(r->rec.comm));
	r->rec.flags = KPTRACE_DATA;
	r->rec.data_len = 6;
	memcpy(r->rec.data, "q\"b\\c\x01", 6);
	KUNIT_EXPECT_TRUE(test, ends_with(format(test, r), ESCAPED));
}

#define NORETURN " (exit_group):(0x1, 0x2, 0x3, 0x4, 0x5, 0x6) ret: - pid: 10 "

static void slabtrace_kptrace_format_kinds(struct kunit *test)
{
	struct rec_buf *r = new_rec(test, 20, 5);

	r->rec.flags = KPTRACE_COMPAT;
	KUNIT_EXPECT_NOT_NULL(test, strstr(format(test, r),
					   " Syscall 20 (compat getpid):("));
	r->rec.flags = KPTRACE_NORETURN;
	r->rec.nr = 231;
	KUNIT_EXPECT_NOT_NULL(test, strstr(format(test, r), NORETURN));
	r->rec.flags = 0;
	r->rec.nr = 99999;
	KUNIT_EXPECT_NOT_NULL(test, strstr(format(test, r),
					   " Syscall 99999 (unknown):("));
}

/* The longest line there can be still fits KPTRACE_LINE_MAX. */
static void slabtrace_kptrace_format_longest(struct kunit *test)
{
	struct rec_buf *r = new_rec(test, INT_MIN, LLONG_MIN);
	char *line;
	unsigned int i;

	r->rec.start_ns = U64_MAX;
	r->rec.end_ns = U64_MAX;
	for (i = 0; i < 6; i++)
		r->rec.args[i] = U64_MAX;
	r->rec.pid = INT_MIN;
	r->rec.tid = INT_MIN;
	r->rec.cpu = U16_MAX;
	r->rec.flags = KPTRACE_DATA | KPTRACE_COMPAT;
	memset(r->rec.comm, 0xff, TASK_COMM_LEN);
	r->rec.comm[TASK_COMM_LEN - 1] = '\0';
	r->rec.data_len = KPTRACE_DATA_MAX;
	memset(r->rec.data, 0xff, KPTRACE_DATA_MAX);
	line = format(test, r);
	KUNIT_EXPECT_LT(test, strlen(line), KPTRACE_LINE_MAX - 1);
	KUNIT_EXPECT_TRUE(test, ends_with(line, "\\xff\"\n"));
}

/* Queue @r as the hooks do: reserve, fill in place, commit. */
static void put(const struct rec_buf *r)
{
	size_t len = sizeof(r->rec) + r->rec.data_len;
	struct ring_buffer_event *ev;
	struct kptrace_rec *rec;

	preempt_disable();
	rec = kptrace_queue_reserve(r->rec.data_len, &ev);
	if (rec) {
		memcpy(rec, &r->rec, len);
		kptrace_queue_commit(ev);
	}
	preempt_enable();
}

/* The record the softirq of slabtrace_kptrace_queue_nested() queues. */
static struct rec_buf *nested_rec;

static void put_nested(struct tasklet_struct *unused)
{
	put(nested_rec);
}

static DECLARE_TASKLET(nested_tasklet, put_nested);

/*
 * A record committed by an interrupt inside another's reservation, on the
 * same CPU, is counted at once but a reader can take it only once the
 * outer one is committed: until then the queue is empty to the readers'
 * wakeup condition (it was not, and the woken readers spun on nothing).
 */
static void slabtrace_kptrace_queue_nested(struct kunit *test)
{
	struct rec_buf *r = new_rec(test, 39, 0), *out = new_rec(test, 0, 0);
	unsigned long written, read, dropped;
	struct ring_buffer_event *ev;
	struct kptrace_rec *rec;
	bool empty_inside = false;
	int n = 0;

	nested_rec = new_rec(test, 39, 0);
	kptrace_queue_discard();
	KUNIT_ASSERT_EQ(test, kptrace_queue_start(4 * PAGE_SIZE), 0);
	kptrace_queue_reset();
	preempt_disable();
	rec = kptrace_queue_reserve(r->rec.data_len, &ev);
	if (rec) {
		memcpy(rec, &r->rec, sizeof(r->rec) + r->rec.data_len);
		/*
		 * The softirq runs here, on this CPU, and commits its record
		 * (not on PREEMPT_RT, where ksoftirqd would run it later: the
		 * suites run on UML).
		 */
		tasklet_schedule(&nested_tasklet);
		local_bh_disable();
		local_bh_enable();
		empty_inside = kptrace_queue_empty();
		kptrace_queue_commit(ev);
	}
	preempt_enable();
	tasklet_kill(&nested_tasklet);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	kptrace_queue_counts(&written, &read, &dropped);
	KUNIT_EXPECT_EQ(test, written, 2);
	KUNIT_EXPECT_TRUE(test, empty_inside);
	KUNIT_EXPECT_FALSE(test, kptrace_queue_empty());
	while (kptrace_queue_pop(&out->rec, sizeof(*out)))
		n++;
	KUNIT_EXPECT_EQ(test, n, 2);
	KUNIT_EXPECT_TRUE(test, kptrace_queue_empty());
	kptrace_queue_reset();
	kptrace_queue_stop();
}

/* A tiny queue fills, drops, and gives back every record it took, in order. */
static void slabtrace_kptrace_queue_drops(struct kunit *test)
{
	struct rec_buf *r = new_rec(test, 39, 0), *out = new_rec(test, 0, 0);
	unsigned long written, read, dropped, i, n = 0;
	u64 last = 0;
	int len;

	kptrace_queue_discard();
	KUNIT_ASSERT_EQ(test, kptrace_queue_start(PAGE_SIZE), 0);
	kptrace_queue_reset();
	for (i = 1; i <= 1000; i++) {
		r->rec.start_ns = i;
		r->rec.end_ns = i + 1;
		put(r);
	}
	kptrace_queue_counts(&written, &read, &dropped);
	KUNIT_EXPECT_EQ(test, written + dropped, 1000);
	KUNIT_EXPECT_GT(test, dropped, 0);
	KUNIT_EXPECT_GT(test, kptrace_queue_bytes(), 0);
	while ((len = kptrace_queue_pop(&out->rec, sizeof(*out)))) {
		KUNIT_EXPECT_EQ(test, len, sizeof(out->rec));
		KUNIT_EXPECT_GT(test, out->rec.start_ns, last);
		last = out->rec.start_ns;
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, written);
	KUNIT_EXPECT_TRUE(test, kptrace_queue_empty());
	KUNIT_EXPECT_EQ(test, kptrace_queue_bytes(), 0);
	kptrace_queue_counts(&written, &read, &dropped);
	KUNIT_EXPECT_EQ(test, read, written);

	/* Emptied, it takes records again, data and all. */
	r->rec.flags = KPTRACE_DATA;
	r->rec.data_len = 5;
	memcpy(r->rec.data, "/a/b/", 5);
	put(r);
	len = kptrace_queue_pop(&out->rec, sizeof(*out));
	KUNIT_EXPECT_EQ(test, len, sizeof(out->rec) + 5);
	KUNIT_EXPECT_EQ(test, out->rec.data_len, 5);
	KUNIT_EXPECT_EQ(test, memcmp(out->rec.data, "/a/b/", 5), 0);

	kptrace_queue_reset();
	kptrace_queue_counts(&written, &read, &dropped);
	KUNIT_EXPECT_EQ(test, written + read + dropped, 0);
	KUNIT_EXPECT_EQ(test, kptrace_queue_pop(&out->rec, sizeof(*out)), 0);
	kptrace_queue_stop();
}

/*
 * The queue is memory only while it is needed: a stopped trace's queue
 * goes at once if it is empty, else when a reader took its last record,
 * or when it is discarded ("syscall size") or reset ("syscall clear").
 */
static void slabtrace_kptrace_queue_freed(struct kunit *test)
{
	struct rec_buf *r = new_rec(test, 39, 0), *out = new_rec(test, 0, 0);
	unsigned long records;

	kptrace_queue_discard();
	KUNIT_EXPECT_EQ(test, kptrace_queue_held(&records), 0);

	/* Stopped with nothing queued: freed by the stop. */
	KUNIT_ASSERT_EQ(test, kptrace_queue_start(4 * PAGE_SIZE), 0);
	/* In use: written to, not held. */
	KUNIT_EXPECT_EQ(test, kptrace_queue_held(&records), 0);
	kptrace_queue_stop();
	KUNIT_EXPECT_EQ(test, kptrace_queue_held(&records), 0);
	KUNIT_EXPECT_EQ(test, records, 0);

	/* Two records queued: held after the stop, until both are read. */
	KUNIT_ASSERT_EQ(test, kptrace_queue_start(4 * PAGE_SIZE), 0);
	put(r);
	put(r);
	kptrace_queue_stop();
	KUNIT_EXPECT_GE(test, kptrace_queue_held(&records), 4 * (PAGE_SIZE - 64));
	KUNIT_EXPECT_EQ(test, records, 2);
	KUNIT_EXPECT_GT(test, kptrace_queue_pop(&out->rec, sizeof(*out)), 0);
	KUNIT_EXPECT_GT(test, kptrace_queue_held(&records), 0);
	KUNIT_EXPECT_EQ(test, records, 1);
	KUNIT_EXPECT_GT(test, kptrace_queue_pop(&out->rec, sizeof(*out)), 0);
	KUNIT_EXPECT_EQ(test, kptrace_queue_held(&records), 0);
	KUNIT_EXPECT_TRUE(test, kptrace_queue_empty());
	KUNIT_EXPECT_EQ(test, kptrace_queue_pop(&out->rec, sizeof(*out)), 0);

	/* A new start while records are unread keeps them. */
	KUNIT_ASSERT_EQ(test, kptrace_queue_start(4 * PAGE_SIZE), 0);
	put(r);
	kptrace_queue_stop();
	KUNIT_ASSERT_EQ(test, kptrace_queue_start(4 * PAGE_SIZE), 0);
	put(r);
	kptrace_queue_stop();
	KUNIT_EXPECT_GT(test, kptrace_queue_held(&records), 0);
	KUNIT_EXPECT_EQ(test, records, 2);
	/* "syscall size" discards them, "syscall clear" too. */
	kptrace_queue_discard();
	KUNIT_EXPECT_EQ(test, kptrace_queue_held(&records), 0);
	KUNIT_EXPECT_TRUE(test, kptrace_queue_empty());
	KUNIT_ASSERT_EQ(test, kptrace_queue_start(4 * PAGE_SIZE), 0);
	put(r);
	kptrace_queue_stop();
	KUNIT_EXPECT_GT(test, kptrace_queue_held(&records), 0);
	kptrace_queue_reset();
	KUNIT_EXPECT_EQ(test, kptrace_queue_held(&records), 0);
	KUNIT_EXPECT_EQ(test, kptrace_queue_bytes(), 0);
}

/* A command's buffers take at most half the memory available. */
static void slabtrace_kptrace_queue_memory(struct kunit *test)
{
	u64 avail = (u64)si_mem_available() << PAGE_SHIFT;
	unsigned long records;

	KUNIT_EXPECT_EQ(test, kptrace_mem_check("a test", avail / 4), 0);
	KUNIT_EXPECT_EQ(test, kptrace_mem_check("a test", avail), -ENOMEM);
	/* More than half: refused before anything is allocated. */
	kptrace_queue_discard();
	KUNIT_EXPECT_EQ(test,
			kptrace_queue_start(DIV_ROUND_UP(avail * 3 / 5,
							 num_possible_cpus())),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, kptrace_queue_held(&records), 0);
	KUNIT_EXPECT_TRUE(test, kptrace_queue_empty());
}

static void add(struct rec_buf *r, int nr, bool compat, u64 ns, s64 ret,
		u8 flags)
{
	r->rec.nr = nr;
	r->rec.start_ns = 1000;
	r->rec.end_ns = 1000 + ns;
	r->rec.ret = ret;
	r->rec.flags = (compat ? KPTRACE_COMPAT : 0) | flags;
	preempt_disable();
	kptrace_summary_count(r->rec.nr, r->rec.flags, r->rec.ret,
			      r->rec.end_ns - r->rec.start_ns);
	preempt_enable();
}

struct row {
	char name[32];
	unsigned long long calls, errors, t[4];
	unsigned int frac[4];
};

/* Parse a summary line: name, calls, errors, total, min, avg, max (us). */
static int parse(const char *l, struct row *row)
{
	const char *p = l;

	memset(row, 0, sizeof(*row));
	if (str_has_prefix(l, "compat ")) {
		strscpy(row->name, "compat ", sizeof(row->name));
		p += 7;
	}
	return sscanf(p, "%31s %llu %llu %llu.%3u %llu.%3u %llu.%3u %llu.%3u",
		      row->name + strlen(row->name), &row->calls, &row->errors,
		      &row->t[0], &row->frac[0], &row->t[1], &row->frac[1],
		      &row->t[2], &row->frac[2], &row->t[3], &row->frac[3]);
}

static void slabtrace_kptrace_summary(struct kunit *test)
{
	static const char *const order[] = {
		"exit_group", "openat", "getpid", "compat getpid", "unknown",
		"total",
	};
	/* total, min, avg, max in ns */
	static const unsigned long long want[][4] = {
		{ 7000, 7000, 7000, 7000 }, { 4000, 1000, 2000, 3000 },
		{ 900, 100, 300, 600 }, { 50, 50, 50, 50 },
		{ 9000, 9000, 9000, 9000 },
	};
	struct rec_buf *r = new_rec(test, 0, 0);
	struct seq_file m = { };
	char *line, *next;
	struct row row;
	unsigned int i = 0, k;
	bool has_error;

	kptrace_summary_reset();
	add(r, 39, false, 100, 10, 0);
	add(r, 39, false, 600, 10, 0);
	add(r, 39, false, 200, 10, 0);
	add(r, 257, false, 1000, -2, 0);
	add(r, 257, false, 3000, 3, 0);
	add(r, 20, true, 50, 10, 0);
	/* Ended by the exit: not an error, whatever ret holds. */
	add(r, 231, false, 7000, -1, KPTRACE_NORETURN);
	/* A number past the table (x32's own, ENOSYS): counted, last. */
	add(r, 100000, false, 9000, -38, 0);

	m.size = 8192;
	m.buf = kunit_kzalloc(test, m.size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.buf);
	kptrace_summary_show(&m);
	KUNIT_ASSERT_LT(test, m.count, m.size);
	kunit_info(test, "summary:\n%s", m.buf);
	KUNIT_EXPECT_TRUE(test, str_has_prefix(m.buf, "syscall "));

	next = strchr(m.buf, '\n') + 1;
	while ((line = strsep(&next, "\n")) && *line) {
		KUNIT_ASSERT_LT(test, i, ARRAY_SIZE(order));
		KUNIT_EXPECT_GE(test, parse(line, &row), 5);
		KUNIT_EXPECT_STREQ(test, row.name, order[i]);
		if (i < ARRAY_SIZE(want)) {
			for (k = 0; k < 4; k++)
				KUNIT_EXPECT_EQ_MSG(test,
						    row.t[k] * 1000 + row.frac[k],
						    want[i][k], "%s column %u",
						    row.name, k);
		} else {
			KUNIT_EXPECT_EQ(test, row.calls, 8);
			KUNIT_EXPECT_EQ(test, row.errors, 2);
			KUNIT_EXPECT_EQ(test, row.t[0] * 1000 + row.frac[0],
					20950);
		}
		has_error = !strcmp(row.name, "openat") ||
			    !strcmp(row.name, "unknown");
		if (strcmp(row.name, "total"))
			KUNIT_EXPECT_EQ(test, row.errors, has_error);
		i++;
	}
	KUNIT_EXPECT_EQ(test, i, ARRAY_SIZE(order));
	kptrace_summary_reset();
}

/*
 * Processes reading kptrace are not traced; there is room for 8 of them,
 * and a 9th reader is refused rather than traced.  Opening again from a
 * reader process costs no room.  kptrace_readers_seq, by which the hooks
 * know when to ask kptrace_is_reader() again, changes (never to 0)
 * whenever a process becomes or stops being a reader, and only then.  A
 * reader is its struct pid, referenced while it reads: another process
 * given the same number is not one.
 */
static void slabtrace_kptrace_readers(struct kunit *test)
{
	unsigned int seq = READ_ONCE(kptrace_readers_seq);
	/* [i] is pid 1001 + i; [10] is 1004 again, a later process's. */
	struct pid *p[11];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = kunit_kzalloc(test, struct_size(p[i], numbers, 1),
				     GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		/* The test's reference: put_pid() never frees them. */
		refcount_set(&p[i]->count, 1);
		p[i]->numbers[0].nr = 1001 + (i == 10 ? 3 : i);
	}
	for (i = 0; i < 8; i++) {
		KUNIT_EXPECT_EQ(test, kptrace_readers_update(p[i], true), 0);
		KUNIT_EXPECT_NE(test, READ_ONCE(kptrace_readers_seq), seq);
		KUNIT_EXPECT_NE(test, READ_ONCE(kptrace_readers_seq), 0U);
		seq = READ_ONCE(kptrace_readers_seq);
	}
	KUNIT_EXPECT_TRUE(test, kptrace_is_reader(p[4]));
	KUNIT_EXPECT_EQ(test, refcount_read(&p[4]->count), 2);
	KUNIT_EXPECT_FALSE(test, kptrace_is_reader(p[10]));
	KUNIT_EXPECT_EQ(test, kptrace_readers_update(p[8], true), -EUSERS);
	KUNIT_EXPECT_FALSE(test, kptrace_is_reader(p[8]));
	KUNIT_EXPECT_EQ(test, refcount_read(&p[8]->count), 1);
	KUNIT_EXPECT_EQ(test, kptrace_readers_update(p[2], true), 0);
	/* 1003 has two opens: one close keeps its place. */
	kptrace_readers_update(p[2], false);
	KUNIT_EXPECT_EQ(test, READ_ONCE(kptrace_readers_seq), seq);
	KUNIT_EXPECT_TRUE(test, kptrace_is_reader(p[2]));
	KUNIT_EXPECT_EQ(test, kptrace_readers_update(p[8], true), -EUSERS);
	kptrace_readers_update(p[2], false);
	KUNIT_EXPECT_NE(test, READ_ONCE(kptrace_readers_seq), seq);
	KUNIT_EXPECT_FALSE(test, kptrace_is_reader(p[2]));
	KUNIT_EXPECT_EQ(test, refcount_read(&p[2]->count), 1);
	KUNIT_EXPECT_EQ(test, kptrace_readers_update(p[8], true), 0);
	kptrace_readers_update(p[8], false);
	for (i = 0; i < 8; i++)
		if (i != 2)
			kptrace_readers_update(p[i], false);
	/* All gone, every reference given back: the table is empty again. */
	for (i = 0; i < 11; i++)
		KUNIT_EXPECT_EQ(test, refcount_read(&p[i]->count), 1);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, kptrace_readers_update(p[i], true), 0);
	for (i = 0; i < 8; i++)
		kptrace_readers_update(p[i], false);
}

/*
 * A pid filter takes process IDs as /proc shows them: "+5" and "007" are
 * refused (EINVAL, before any attempt to trace), and a number above any
 * pid (ERANGE); "5" is taken, and UML,
 * which has no syscall tracepoint, fails the start with ENODEV.
 */
static void slabtrace_kptrace_pid_filter(struct kunit *test)
{
	static const char *const bad[] = {
		"+5", "007", "0", "-3", "5x", "0x10",
	};
	/* No pid (PID_MAX_LIMIT, 64-bit), nor any int. */
	static const char *const big[] = { "4194304", "99999999999" };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, st_cmd("syscall start pid %s\n", bad[i]),
				    -EINVAL, "pid '%s'", bad[i]);
	for (i = 0; i < ARRAY_SIZE(big); i++)
		KUNIT_EXPECT_EQ_MSG(test, st_cmd("syscall start pid %s\n", big[i]),
				    -ERANGE, "pid '%s'", big[i]);
	KUNIT_EXPECT_EQ(test, st_cmd("syscall start pid 5 70\n"), -ENODEV);
	KUNIT_EXPECT_FALSE(test, kptrace_tracing());
}

static void kptrace_case_exit(struct kunit *test)
{
	st_expect_lockdep_clean(test);
}

static struct kunit_case slabtrace_kptrace_cases[] = {
	KUNIT_CASE(slabtrace_kptrace_names),
	KUNIT_CASE(slabtrace_kptrace_nargs),
	KUNIT_CASE(slabtrace_kptrace_format_fields),
	KUNIT_CASE(slabtrace_kptrace_format_negative_and_data),
	KUNIT_CASE(slabtrace_kptrace_format_escapes),
	KUNIT_CASE(slabtrace_kptrace_format_kinds),
	KUNIT_CASE(slabtrace_kptrace_format_longest),
	KUNIT_CASE(slabtrace_kptrace_queue_drops),
	KUNIT_CASE(slabtrace_kptrace_queue_nested),
	KUNIT_CASE(slabtrace_kptrace_queue_freed),
	KUNIT_CASE(slabtrace_kptrace_queue_memory),
	KUNIT_CASE(slabtrace_kptrace_pid_filter),
	KUNIT_CASE(slabtrace_kptrace_summary),
	KUNIT_CASE(slabtrace_kptrace_readers),
	{}
};

static struct kunit_suite slabtrace_kptrace_suite = {
	.name = "slabtrace_kptrace",
	.exit = kptrace_case_exit,
	.test_cases = slabtrace_kptrace_cases,
};

kunit_test_suite(slabtrace_kptrace_suite);

MODULE_LICENSE("GPL");
