// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: /proc/slabtrace/slab/stats, the state of the tracer:
 * records against the limit, the table, the pool, the context table, the
 * probes, and for each cache in the set its records and every kind of
 * drop (enum slab_trace_drop).
 *
 *   records 1024 limit 349525
 *   table buckets 2048 grow_failed 0 grow_steps 1024 most_moved_in_a_step 5 shrinks 0
 *   pool free 8190 per_cpu 4096 allocated 9214
 *   contexts 12 of 4093 (at most 65533) reclaimed 0 sweeps 0
 *   stacks deferred 3
 *   snapshots kept 1 alive 1 bytes 45056
 *   probes alloc on free on
 *   cache kmalloc-64 tracing records 1024 replaced 0 pool_empty 0 ... own 3
 *
 * One line per subject, "key value" pairs: made to be read by scripts.
 *
 * Notes on locking
 * ----------------
 * - slabtrace_mutex, held while the set is walked; the counters are
 *   atomic and read without lock.
 */
#include <linux/seq_file.h>
#include <linux/string.h>

#include <slabtrace/files.h>
#include <slabtrace/slabtrace.h>

/* "pool empty" as "pool_empty": one word a key. */
static void show_key(struct seq_file *m, const char *name)
{
	for (; *name; name++)
		seq_putc(m, *name == ' ' ? '_' : *name);
}

static void show_cache(struct seq_file *m, struct slab_trace_traced *tr)
{
	int i;

	seq_puts(m, "cache ");
	seq_escape(m, tr->name, " \t\n\\");
	seq_printf(m, " %s records %ld replaced %ld",
		   tr->tracing ? "tracing" : "stopped",
		   slab_trace_traced_count(tr), atomic_long_read(&tr->replaced));
	for (i = 0; i < SLAB_TRACE_DROP_MAX; i++) {
		seq_putc(m, ' ');
		show_key(m, slab_trace_drop_names[i]);
		seq_printf(m, " %ld", atomic_long_read(&tr->drops[i]));
	}
	/* Not drops: slabtrace's own allocations are never recorded. */
	seq_printf(m, " own %ld\n", atomic_long_read(&tr->own));
}

static int stats_show(struct seq_file *m, void *v)
{
	struct slab_trace_table *t = &slab_trace_records;
	unsigned long kept, alive;
	struct slab_trace_set *set;
	bool alloc, free;
	unsigned int i;
	size_t mem;

	seq_printf(m, "records %ld limit %lu\n", slab_trace_table_count(t),
		   READ_ONCE(slab_trace_record_limit));
	seq_printf(m, "table buckets %lu grow_failed %ld grow_steps %lu most_moved_in_a_step %u shrinks %lu\n",
		   slab_trace_table_buckets(t), atomic_long_read(&t->grow_failed),
		   READ_ONCE(t->grow_steps), READ_ONCE(t->grow_most_moved),
		   READ_ONCE(t->shrinks));
	seq_printf(m, "pool free %lu per_cpu %u allocated %ld\n",
		   slab_trace_pool_free_count(&slab_trace_pool),
		   READ_ONCE(slab_trace_pool.size),
		   atomic_long_read(&slab_trace_pool.allocated));
	seq_printf(m, "contexts %u of %u (at most %u) reclaimed %ld sweeps %ld\n",
		   slab_trace_ctx_count(), slab_trace_ctx_capacity(),
		   slab_trace_ctx_max(), slab_trace_ctx_reclaimed(),
		   slab_trace_ctx_sweeps());
	seq_printf(m, "stacks deferred %ld\n", slab_trace_stack_deferred());
	slab_trace_snapshot_stats(&kept, &alive, &mem);
	seq_printf(m, "snapshots kept %lu alive %lu bytes %zu\n", kept, alive,
		   mem);
	slab_trace_probes_state(&alloc, &free);
	seq_printf(m, "probes alloc %s free %s\n", alloc ? "on" : "off",
		   free ? "on" : "off");

	mutex_lock(&slabtrace_mutex);
	set = rcu_dereference_protected(slab_trace_active,
					lockdep_is_held(&slabtrace_mutex));
	for (i = 0; set && i < set->nr; i++)
		show_cache(m, set->traced[i]);
	mutex_unlock(&slabtrace_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static struct slabtrace_file stats_file = {
	.name = "stats",
	.mode = 0400,
	.fops = &stats_fops,
};

int slab_trace_stats_init(void)
{
	int ret;

	ret = slabtrace_files_add("slab", &stats_file, 1);
	if (ret)
		return ret;
	/* Its companion for people (status.c). */
	return slabtrace_status_init();
}
