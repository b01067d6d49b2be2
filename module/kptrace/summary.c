// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the summary, per system call, of what was traced since the
 * module was loaded or the last "syscall clear" (a new "syscall start"
 * adds to it): calls, errors, and total, min, average and max duration,
 * like "strace -c" and "perf trace -s".  It counts every finished call,
 * those the full queue dropped too; a number past the table of names (a
 * call the kernel refused with ENOSYS, x32's own) in the row "unknown",
 * one a table, after the calls with names.
 *
 *   syscall                 calls    errors     total us       min us       avg us       max us
 *   getpid                   1000         0      812.000        0.700        0.812       15.300
 *
 * Notes on locking
 * ----------------
 * - The counters are per CPU and written only by their CPU's hooks, with
 *   preemption disabled.  Readers sum them without a lock: a count being
 *   updated may be one call behind, and one read during "syscall clear"
 *   may mix cleared and old counts.  A CPU's min and max are written
 *   before its count of calls (smp_wmb()), which readers read first
 *   (smp_rmb()): a count of calls never comes with a min not yet set.
 * - stats_native, stats_compat and max_* are set at module init (the
 *   stats freed at exit, after the hooks are gone).
 */
#include <linux/err.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include <slabtrace/core.h>

#include "kptrace.h"

struct kptrace_stat {
	u64 calls;
	u64 errors;
	u64 total_ns;
	u64 min_ns;
	u64 max_ns;
};

static struct kptrace_stat __percpu *stats_native;
static struct kptrace_stat __percpu *stats_compat;
/*
 * slabtrace_syscall_max(false) and (true), for the hooks: the counters of
 * each table, and one more past them, for the numbers without a name.
 */
static int max_native, max_compat;

int kptrace_summary_init(void)
{
	max_native = slabtrace_syscall_max(false);
	max_compat = slabtrace_syscall_max(true);
	stats_native = __alloc_percpu(sizeof(struct kptrace_stat) *
				      (max_native + 1),
				      __alignof__(struct kptrace_stat));
	stats_compat = __alloc_percpu(sizeof(struct kptrace_stat) *
				      (max_compat + 1),
				      __alignof__(struct kptrace_stat));
	if (!stats_native || !stats_compat) {
		kptrace_summary_exit();
		return -ENOMEM;
	}
	return 0;
}

void kptrace_summary_exit(void)
{
	free_percpu(stats_native);
	free_percpu(stats_compat);
	stats_native = NULL;
	stats_compat = NULL;
}

/**
 * kptrace_summary_count - count a finished call
 * @nr: its number
 * @flags: KPTRACE_COMPAT, KPTRACE_NORETURN
 * @ret: its return value
 * @duration: ns
 *
 * Called by the hooks, preemption disabled.
 */
void kptrace_summary_count(int nr, u8 flags, long ret, u64 duration)
{
	bool compat = flags & KPTRACE_COMPAT;
	int max = compat ? max_compat : max_native;
	struct kptrace_stat *s;

	if (nr < 0 || nr >= max)
		nr = max;
	s = this_cpu_ptr(compat ? stats_compat : stats_native) + nr;
	if (!s->calls || duration < s->min_ns)
		WRITE_ONCE(s->min_ns, duration);
	if (duration > s->max_ns)
		WRITE_ONCE(s->max_ns, duration);
	/* The min of a first call before its count: sum() reads it after. */
	smp_wmb();
	WRITE_ONCE(s->calls, s->calls + 1);
	WRITE_ONCE(s->total_ns, s->total_ns + duration);
	if (!(flags & KPTRACE_NORETURN) && IS_ERR_VALUE(ret))
		WRITE_ONCE(s->errors, s->errors + 1);
}

void kptrace_summary_reset(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		memset(per_cpu_ptr(stats_native, cpu), 0,
		       sizeof(struct kptrace_stat) * (max_native + 1));
		memset(per_cpu_ptr(stats_compat, cpu), 0,
		       sizeof(struct kptrace_stat) * (max_compat + 1));
	}
}

struct kptrace_row {
	struct kptrace_stat s;
	int nr;
	bool compat;
};

/* The sum over CPUs of system call @nr's counters, in @row. */
static void sum(struct kptrace_row *row, struct kptrace_stat __percpu *stats)
{
	const struct kptrace_stat *c;
	u64 calls, min_ns;
	int cpu;

	memset(&row->s, 0, sizeof(row->s));
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(stats, cpu) + row->nr;
		calls = READ_ONCE(c->calls);
		if (!calls)
			continue;
		/* The count before the min: see kptrace_summary_count(). */
		smp_rmb();
		min_ns = READ_ONCE(c->min_ns);
		if (!row->s.calls || min_ns < row->s.min_ns)
			row->s.min_ns = min_ns;
		row->s.max_ns = max(row->s.max_ns, READ_ONCE(c->max_ns));
		row->s.calls += calls;
		row->s.errors += READ_ONCE(c->errors);
		row->s.total_ns += READ_ONCE(c->total_ns);
	}
}

/*
 * Most total time first; the name breaks ties, so the order is stable.
 * The rows "unknown" come last.
 */
static int cmp_rows(const void *a, const void *b)
{
	const struct kptrace_row *x = a, *y = b;
	bool xu = x->nr == (x->compat ? max_compat : max_native);
	bool yu = y->nr == (y->compat ? max_compat : max_native);

	if (xu != yu)
		return xu ? 1 : -1;
	if (x->s.total_ns != y->s.total_ns)
		return x->s.total_ns > y->s.total_ns ? -1 : 1;
	if (x->compat != y->compat)
		return x->compat ? 1 : -1;
	return x->nr - y->nr;
}

static void show_us(struct seq_file *m, u64 ns)
{
	u32 rem;
	u64 us = div_u64_rem(ns, NSEC_PER_USEC, &rem);

	seq_printf(m, " %8llu.%03u", us, rem);
}

static void show_row(struct seq_file *m, const char *name, const char *prefix,
		     const struct kptrace_stat *s)
{
	char label[40];

	snprintf(label, sizeof(label), "%s%s", prefix, name);
	seq_printf(m, "%-20s %9llu %9llu", label, s->calls, s->errors);
	show_us(m, s->total_ns);
	if (s->calls) {
		show_us(m, s->min_ns);
		show_us(m, div64_u64(s->total_ns, s->calls));
		show_us(m, s->max_ns);
	}
	seq_putc(m, '\n');
}

/* The contents of kptrace_summary. */
int kptrace_summary_show(struct seq_file *m)
{
	int nn = max_native + 1, nc = max_compat + 1;
	struct kptrace_stat all = { };
	struct kptrace_row *rows;
	int i, n = 0;

	rows = kvcalloc(nn + nc, sizeof(*rows), SLABTRACE_GFP_BIG);
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < nn + nc; i++) {
		rows[n].compat = i >= nn;
		rows[n].nr = rows[n].compat ? i - nn : i;
		sum(&rows[n], rows[n].compat ? stats_compat : stats_native);
		if (rows[n].s.calls)
			n++;
	}
	sort(rows, n, sizeof(*rows), cmp_rows, NULL);

	seq_printf(m, "%-20s %9s %9s %12s %12s %12s %12s\n", "syscall", "calls",
		   "errors", "total us", "min us", "avg us", "max us");
	for (i = 0; i < n; i++) {
		bool compat = rows[i].compat;
		const char *name = slabtrace_syscall_name(rows[i].nr, compat);
		char num[16];

		if (rows[i].nr == (compat ? max_compat : max_native)) {
			name = "unknown";
		} else if (!name) {
			snprintf(num, sizeof(num), "%d", rows[i].nr);
			name = num;
		}
		show_row(m, name, rows[i].compat ? "compat " : "", &rows[i].s);
		all.calls += rows[i].s.calls;
		all.errors += rows[i].s.errors;
		all.total_ns += rows[i].s.total_ns;
	}
	seq_printf(m, "%-20s %9llu %9llu", "total", all.calls, all.errors);
	show_us(m, all.total_ns);
	seq_putc(m, '\n');
	kvfree(rows);
	return 0;
}
