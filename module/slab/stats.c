// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: its state, for scripts and for people.
 *
 * /proc/slabtrace/slab/stats is the state of the tracer:
 * records against the limit, the table, the pool, the
 * probes, and for each cache in the set its records and every kind of
 * drop (enum leak_drop).
 *
 *   records 1024 limit 349525
 *   table buckets 2048 grow_failed 0 grow_steps 1024 most_moved_in_a_step 5 shrinks 0
 *   pool free 8190 per_cpu 4096 allocated 9214
 *   stacks deferred 3
 *   modules events 12 walks 1
 *   snapshots kept 1 alive 1 bytes 45056
 *   probes alloc on free on
 *   cache kmalloc-64 tracing records 1024 replaced 0 pool_empty 0 ... own 3
 *
 * One line per subject, "key value" pairs: made to be read by scripts.
 *
 * slab_trace's lines of the status file (status.c assembles it), for
 * people, say the same in fewer words, and what to do next:
 *
 *   slabtrace: 1 cache traced or holding records, 7 records (limit 330170), probes attached
 *   cache kmalloc-64: tracing, traced 1.234s, 7 records, drops: none
 *
 * Notes on locking
 * ----------------
 * - leak_mutex, held while the set is walked; the counters are
 *   atomic and read without lock.
 */
#include <linux/math64.h>
#include <linux/seq_file.h>
#include <linux/sort.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include <slabtrace/files.h>

#include "follow.h"
#include "lifetime.h"
#include "modsyms.h"
#include "pool.h"
#include "print.h"
#include "probes.h"
#include "stacks.h"
#include "stats.h"
#include "table.h"
#include "traced.h"

/* "pool empty" as "pool_empty": one word a key. */
static void show_key(struct seq_file *m, const char *name)
{
	for (; *name; name++)
		seq_putc(m, *name == ' ' ? '_' : *name);
}

/* "cache NAME tracing records 7 replaced 0 pool_empty 0 ..." */
static void show_traced_stats(struct seq_file *m, struct leak_traced *tr)
{
	int i;

	seq_puts(m, "cache ");
	slabtrace_seq_name(m, tr->name, sizeof(tr->name));
	seq_printf(m, " %s records %ld replaced %ld",
		   tr->tracing ? "tracing" : "stopped",
		   leak_traced_count(tr), atomic_long_read(&tr->replaced));
	for (i = 0; i < LEAK_DROP_MAX; i++) {
		seq_putc(m, ' ');
		show_key(m, leak_drop_names[i]);
		seq_printf(m, " %ld", atomic_long_read(&tr->drops[i]));
	}
	/* Not drops: slabtrace's own allocations are never recorded. */
	seq_printf(m, " own %ld", atomic_long_read(&tr->own));
	/* Nor what the filter left out. */
	seq_printf(m, " filtered %lu\n", leak_traced_filtered(tr));
}

/* The lines of the files below, in this order, after "records". */
static const struct leak_part *const parts[] = {
	&leak_table_part, &leak_pool_part, &leak_stacks_part,
	&leak_modsyms_part, &leak_lifetime_part, &leak_prints_part,
	&leak_probes_part,
};

static int stats_show(struct seq_file *m, void *v)
{
	struct leak_set *set;
	unsigned int i;

	seq_printf(m, "records %ld limit %lu\n",
		   leak_table_count(&leak_records),
		   READ_ONCE(leak_record_limit));
	for (i = 0; i < ARRAY_SIZE(parts); i++)
		parts[i]->stats(m);

	mutex_lock(&leak_mutex);
	set = rcu_dereference_protected(leak_active,
					lockdep_is_held(&leak_mutex));
	for (i = 0; set && i < set->nr; i++)
		show_traced_stats(m, set->traced[i]);
	mutex_unlock(&leak_mutex);
	return 0;
}

static int stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, stats_show, NULL);
}

const struct file_operations leak_stats_fops = {
	.owner = THIS_MODULE,
	.open = stats_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static void show_secs(struct seq_file *m, u64 ns)
{
	u32 ms;
	u64 s = div_u64_rem(div_u64(ns, NSEC_PER_MSEC), MSEC_PER_SEC, &ms);

	seq_printf(m, "%llu.%03us", s, ms);
}

/* ", filter pid 5 (12 left out)", or nothing.  leak_mutex held. */
static void show_filter(struct seq_file *m, struct leak_traced *tr)
{
	const struct leak_filter *f;
	char *text;

	f = rcu_dereference_protected(tr->filter,
				      lockdep_is_held(&leak_mutex));
	if (!f)
		return;
	text = kmalloc(LEAK_FILTER_TEXT, GFP_KERNEL);
	if (text)
		leak_filter_text(text, LEAK_FILTER_TEXT, f);
	seq_printf(m, ", filter %s (%lu left out)", text ?: "?",
		   leak_traced_filtered(tr));
	kfree(text);
}

/* "cache NAME: tracing, traced 1.234s, 7 records, drops: none". */
static void show_traced_status(struct seq_file *m, struct leak_traced *tr,
			       u64 now)
{
	bool any = false;
	long n;
	int i;

	seq_puts(m, "cache ");
	slabtrace_seq_name(m, tr->name, sizeof(tr->name));
	seq_printf(m, ": %s, traced ", tr->tracing ? "tracing" : "stopped");
	show_secs(m, leak_traced_time(tr, now));
	n = leak_traced_count(tr);
	seq_printf(m, ", %ld record%s", n, n == 1 ? "" : "s");
	n = atomic_long_read(&tr->replaced);
	if (n)
		seq_printf(m, ", %ld replaced", n);
	for (i = 0; i < LEAK_DROP_MAX; i++) {
		n = atomic_long_read(&tr->drops[i]);
		if (!n)
			continue;
		seq_printf(m, "%s%s %ld", any ? ", " : ", drops: ",
			   leak_drop_names[i], n);
		any = true;
	}
	seq_puts(m, any ? "" : ", drops: none");
	show_filter(m, tr);
	if (tr->sample_every > 1)
		seq_printf(m, ", sampled 1 in %u", tr->sample_every);
	else if (tr->sample_bytes)
		seq_printf(m, ", sampled 1 per %u bytes", tr->sample_bytes);
	seq_putc(m, '\n');
}

/* Caches the status lists one by one; more ("start all") are summed up. */
#define STATUS_CACHES	16

static int records_cmp(const void *a, const void *b)
{
	long na = leak_traced_count(*(struct leak_traced * const *)a);
	long nb = leak_traced_count(*(struct leak_traced * const *)b);

	return na < nb ? 1 : na > nb ? -1 : 0;
}

/* The STATUS_CACHES caches of @set with most records, then how many more. */
static void show_most_records(struct seq_file *m, struct leak_set *set,
			      u64 now)
{
	struct leak_traced **v;
	unsigned int i;

	v = kmemdup(set->traced, set->nr * sizeof(*v), GFP_KERNEL);
	if (v)
		sort(v, set->nr, sizeof(*v), records_cmp, NULL);
	for (i = 0; i < STATUS_CACHES; i++)
		show_traced_status(m, v ? v[i] : set->traced[i], now);
	seq_printf(m, "... and %u more caches (%s; slab/stats lists every one)\n",
		   set->nr - STATUS_CACHES,
		   v ? "those with most records first" : "no memory to sort them");
	kfree(v);
}

/**
 * leak_status - slab_trace's lines of the status file
 * @m: where
 *
 * Takes leak_mutex.
 */
void leak_status(struct seq_file *m)
{
	struct leak_set *set;
	bool alloc, free;
	unsigned int i, nr;
	u64 now;

	leak_probes_state(&alloc, &free);
	mutex_lock(&leak_mutex);
	/* After the lock: a start that held it set times later than before. */
	now = ktime_get_mono_fast_ns();
	set = rcu_dereference_protected(leak_active,
					lockdep_is_held(&leak_mutex));
	nr = set ? set->nr : 0;
	seq_printf(m, "slabtrace: %u cache%s traced or holding records, %ld records (limit %lu), probes %s\n",
		   nr, nr == 1 ? "" : "s",
		   leak_table_count(&leak_records),
		   READ_ONCE(leak_record_limit),
		   alloc || free ? "attached" : "detached");
	leak_follow_status(m);
	if (nr <= STATUS_CACHES) {
		for (i = 0; i < nr; i++)
			show_traced_status(m, set->traced[i], now);
	} else {
		show_most_records(m, set, now);
	}
	mutex_unlock(&leak_mutex);
}

/**
 * leak_next - what to do next, for the status file
 * @m: where
 *
 * Print the first traced cache (one tracing rather than stopped), or
 * start one.  Takes leak_mutex.
 *
 * Return: true: it always has something to say.
 */
bool leak_next(struct seq_file *m)
{
	struct leak_traced *first = NULL;
	struct leak_set *set;
	unsigned int i;

	mutex_lock(&leak_mutex);
	set = rcu_dereference_protected(leak_active,
					lockdep_is_held(&leak_mutex));
	for (i = 0; set && i < set->nr; i++)
		if (!first || (set->traced[i]->tracing && !first->tracing))
			first = set->traced[i];
	if (first) {
		seq_puts(m, "echo print ");
		slabtrace_seq_name(m, first->name, sizeof(first->name));
		seq_puts(m, " > ctl; cat ctl (its outstanding objects)");
	} else {
		seq_puts(m, "echo start CACHE > ctl (a name from /proc/slabinfo)");
	}
	mutex_unlock(&leak_mutex);
	return true;
}
