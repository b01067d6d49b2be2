// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: the read-only views of the last snapshot: stacks (the groups,
 * as dump.c shows them), and folded and folded_bytes, below.
 *
 * The last snapshot as folded stacks, the input of flame graph
 * tools (FlameGraph's flamegraph.pl, speedscope, scripts/tools/flamegraph.py):
 * one line per group of objects (aggregate.c), root frame first,
 *
 *   syscall:write;do_syscall_64;...;leaky_alloc_buf [leaky] 3
 *
 * weighed by objects in /proc/slabtrace/slab/folded and by bytes in
 * folded_bytes.  A group made in a system call starts with the pseudo-frame
 * "syscall:NAME"; a group judged a leak (verdict.c) ends with the
 * pseudo-frame "[leak]", which slabtrace-flamegraph colours, with the
 * frames under it.  Every group is listed, whatever "top" said.  A sampled
 * trace ("start CACHE sample N" or "sample-bytes B") weighs each record by
 * what it stands for: the estimates the dump's header gives.
 *
 * No locks: a snapshot is immutable; the reader holds a reference.
 */
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <slabtrace/files.h>

#include "aggregate.h"
#include "modsyms.h"
#include "print.h"
#include "record.h"
#include "snapshot.h"
#include "stacks.h"
#include "views.h"

static void show_frame(struct seq_file *m, depot_stack_handle_t handle,
		       unsigned long ip)
{
	char name[LEAK_FRAME_MAX], folded[LEAK_FRAME_MAX];

	leak_frame_name(name, sizeof(name), handle, ip, false);
	leak_frame_folded(folded, sizeof(folded), name, LEAK_FRAME_ALSO);
	seq_puts(m, folded);
}

/*
 * One group of @snap's line; in a print of a word (@word), first the
 * cache's name, so that a flame graph's root splits by cache.
 */
static void show_group(struct seq_file *m,
		       const struct leak_snapshot *snap,
		       const struct leak_group *g, bool bytes, bool word)
{
	u64 count = g->count, sum = g->bytes;
	bool compat = g->syscall & LEAK_SYSCALL_COMPAT;
	int nr = g->syscall & ~LEAK_SYSCALL_COMPAT;
	char cache[SLABTRACE_ESC_SIZE];
	unsigned long *entries;
	unsigned int i, n = 0;
	const char *name;

	if (word) {
		leak_frame_folded(cache, sizeof(cache), snap->name,
				  SLABTRACE_ESCAPE_ALSO);
		seq_puts(m, cache);
		seq_putc(m, ';');
	}
	if (g->syscall >= 0) {
		name = slabtrace_syscall_name(nr, compat);
		if (name)
			seq_printf(m, "syscall:%s%s;", compat ? "compat_" : "",
				   name);
		else
			seq_printf(m, "syscall:%s%d;", compat ? "compat_" : "",
				   nr);
	}
	if (g->stack)
		n = stack_depot_fetch(g->stack, &entries);
	if (!n)
		seq_puts(m, "[unknown]");
	for (i = n; i-- > 0;) {
		show_frame(m, g->stack, entries[i]);
		if (i)
			seq_putc(m, ';');
	}
	if (g->verdict.word == SLABTRACE_VERDICT_LEAK)
		seq_puts(m, ";[leak]");
	/* Sampled: estimated totals, as the dump's header gives them. */
	if (leak_sampled(snap)) {
		count = (g->est_q16 + (1U << 15)) >> 16;
		sum = g->est_bytes;
	}
	seq_printf(m, " %llu\n", bytes ? sum : count);
}

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/**
 * leak_folded_show - a snapshot's folded stacks (for the tests)
 * @m: where
 * @snap: the snapshot
 * @bytes: weigh by bytes, not by objects
 */
void leak_folded_show(struct seq_file *m,
		      const struct leak_snapshot *snap, bool bytes)
{
	const struct leak_snapshot *part = snap->word ? snap->next : snap;
	unsigned long i;

	for (; part; part = part->next)
		for (i = 0; i < part->nr_groups; i++)
			show_group(m, part, part->groups[i], bytes, snap->word);
}
#endif

static unsigned long groups_of(struct seq_file *m,
			       const struct leak_snapshot *part)
{
	return part->nr_groups;
}

/* The groups of every part of the print, one after the other. */
static void *folded_start(struct seq_file *m, loff_t *pos)
{
	struct leak_reader *r = m->private;
	struct leak_snapshot *part;

	if (!leak_print_seq(m, *pos))
		return NULL;
	part = leak_print_part(m, *pos, 0, groups_of);
	return part && *pos - r->part_pos < part->nr_groups ?
	       part->groups[*pos - r->part_pos] : NULL;
}

static void *folded_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return folded_start(m, pos);
}

static void folded_stop(struct seq_file *m, void *v)
{
}

static int folded_show(struct seq_file *m, void *v)
{
	struct leak_reader *r = m->private;

	show_group(m, r->part, v, false, r->snap->word);
	return 0;
}

static int folded_bytes_show(struct seq_file *m, void *v)
{
	struct leak_reader *r = m->private;

	show_group(m, r->part, v, true, r->snap->word);
	return 0;
}

const struct seq_operations leak_folded_seq_ops = {
	.start = folded_start,
	.next = folded_next,
	.stop = folded_stop,
	.show = folded_show,
};

const struct seq_operations leak_folded_bytes_seq_ops = {
	.start = folded_start,
	.next = folded_next,
	.stop = folded_stop,
	.show = folded_bytes_show,
};

static int folded_open(struct inode *inode, struct file *file)
{
	return leak_reader_open(file, slabtrace_file_data(inode));
}

/* slab/stacks, slab/folded, slab/folded_bytes: the file's data is its seq_operations. */
const struct file_operations leak_view_fops = {
	.owner = THIS_MODULE,
	.open = folded_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = leak_view_release,
};
