/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of slab_trace's KUnit suites: print a cache, read its snapshot,
 * render it as reading ctl would.
 */
#ifndef _SLABTRACE_ST_SLAB_KUNIT_H
#define _SLABTRACE_ST_SLAB_KUNIT_H

#include <kunit/test.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "../module/slab/slab.h"
#include "st_kunit.h"

/* "print CACHE", then its snapshot (put it with leak_snapshot_put). */
static inline struct leak_snapshot *st_print(struct kunit *test,
					     const char *cache)
{
	struct leak_snapshot *snap;

	KUNIT_ASSERT_EQ(test, st_cmd("print %s\n", cache), 0);
	snap = leak_print_get(NULL);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	return snap;
}

/* Outstanding records of a traced cache. */
static inline unsigned long st_outstanding(struct kunit *test,
					   const char *cache)
{
	struct leak_snapshot *snap = st_print(test, cache);
	unsigned long nr = snap->nr;

	leak_snapshot_put(snap);
	return nr;
}

/* The record of @obj in @snap, or NULL. */
static inline struct leak_record *
st_find(struct leak_snapshot *snap, const void *obj)
{
	struct leak_record *rec;
	unsigned long i;

	for (i = 0; (rec = leak_snapshot_entry(snap, i)); i++)
		if (rec->obj == obj)
			return rec;
	return NULL;
}

/* Whether the first frame of @rec's backtrace is the function @fn. */
static inline bool st_first_frame_is(const struct leak_record *rec,
				     void *fn)
{
	char want[KSYM_SYMBOL_LEN], got[KSYM_SYMBOL_LEN];
	unsigned long ip;

	if (leak_stack_first(rec->stack, &ip))
		return false;
	snprintf(want, sizeof(want), "%ps", fn);
	snprintf(got, sizeof(got), "%ps", (void *)ip);
	return !strcmp(want, got);
}

/* Whether frame @n of @rec's backtrace (0: #01) is in function @fn. */
static inline bool st_frame_is(const struct leak_record *rec,
			       unsigned int n, void *fn)
{
	char want[KSYM_SYMBOL_LEN], got[KSYM_SYMBOL_LEN];
	unsigned long *entries;

	if (!rec->stack || stack_depot_fetch(rec->stack, &entries) <= n)
		return false;
	snprintf(want, sizeof(want), "%ps", fn);
	snprintf(got, sizeof(got), "%ps", (void *)entries[n]);
	return !strcmp(want, got);
}

/*
 * What reading ctl returns now, rendered into a test-managed buffer; the
 * position is m.index, as seq_read() keeps it.
 */
static inline char *st_read_ctl(struct kunit *test)
{
	const struct seq_operations *ops = &leak_dump_seq_ops;
	struct leak_reader r = { };
	struct seq_file m = { .private = &r };
	void *v;

	m.size = 64 * 1024;
	m.buf = kunit_kzalloc(test, m.size + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.buf);
	for (v = ops->start(&m, &m.index); v; v = ops->next(&m, v, &m.index))
		ops->show(&m, v);
	ops->stop(&m, v);
	leak_view_clear(&r);
	KUNIT_EXPECT_LT(test, m.count, m.size);
	m.buf[min(m.count, m.size)] = '\0';
	return m.buf;
}

/* "print CACHE", then what reading ctl returns. */
static inline char *st_read_ctl_of(struct kunit *test, const char *cache)
{
	KUNIT_EXPECT_EQ(test, st_cmd("print %s\n", cache), 0);
	return st_read_ctl(test);
}

#endif /* _SLABTRACE_ST_SLAB_KUNIT_H */
