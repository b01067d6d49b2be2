// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: the text of a snapshot, what reading ctl returns: objects,
 *
 *   Dumping outstanding allocs from kmalloc-64
 *   traced 12.345s, 1024 outstanding (65536 bytes), 0 records dropped
 *   drops: stack store full 2              (only if something was lost)
 *   -------------------------
 *   Obj 000000009d2f1c3a, 64 bytes (50 requested), age 3.210s, cpu 1, from PID 212 cat:
 *   ----
 *    #01 [<ffffffffc0a1b2c3>] in leaky_write+0x2c/0x90 [leaky]
 *
 * or, after "print CACHE stacks" and always in the stacks file, groups
 * of objects by backtrace:
 *
 *   Stack 1: 3 objects, 192 bytes (150 requested), age min/avg/max
 *   0.1s/0.2s/0.3s, from PID 212 cat in syscall write:  (one line)
 *   ----
 *    #01 [<ffffffffc0a1b2c3>] in leaky_write+0x2c/0x90 [leaky]
 *
 * Before the session's first print, ctl shows the state instead (status.c).
 *
 * Formatted at read time, so %pK follows the reader's kptr_restrict rights.
 * The snapshot a reader shows is picked when it reads from offset 0: the
 * newest one (slabtrace_snapshot_seq()).
 *
 * No locks of its own: a snapshot is immutable, and the reference the
 * seq_file holds keeps it.
 */
#include <linux/math64.h>
#include <linux/seq_file.h>

#include <slabtrace/slabtrace.h>

static void show_secs(struct seq_file *m, u64 ns)
{
	u32 ms;
	u64 s = div_u64_rem(div_u64(ns, NSEC_PER_MSEC), MSEC_PER_SEC, &ms);

	seq_printf(m, "%llu.%03us", s, ms);
}

/* Whether @m shows groups: the stacks file, or ctl after "print stacks". */
static bool by_stack(struct seq_file *m, struct slabtrace_snapshot *snap)
{
	return m->op == &slabtrace_stacks_seq_ops || snap->opts.stacks;
}

/* " (by stack, top 5, older than 100 ms, since mark)", or nothing. */
static void show_opts(struct seq_file *m, const struct slabtrace_print_opts *o,
		      bool stacks)
{
	const char *sep = " (";

	if (stacks) {
		seq_printf(m, "%sby stack", sep);
		sep = ", ";
	}
	if (stacks && o->top) {
		seq_printf(m, "%stop %u", sep, o->top);
		sep = ", ";
	}
	if (o->older_than) {
		seq_printf(m, "%solder than %u ms", sep, o->older_than);
		sep = ", ";
	}
	if (o->since_mark) {
		seq_printf(m, "%ssince mark", sep);
		sep = ", ";
	}
	if (sep[0] == ',')
		seq_putc(m, ')');
}

/*
 * "drops: pool empty 3, stack store full 1", the kinds that happened, and
 * the table's failures to grow.
 */
static void show_drops(struct seq_file *m, struct slabtrace_snapshot *snap)
{
	const char *sep = "drops: ";
	int i;

	for (i = 0; i < SLABTRACE_DROP_MAX; i++) {
		if (!snap->drops[i])
			continue;
		seq_printf(m, "%s%s %ld", sep, slabtrace_drop_names[i],
			   snap->drops[i]);
		sep = ", ";
	}
	/* Not a drop: records are kept, in longer chains. */
	if (snap->grow_failed) {
		seq_printf(m, "%stable growth failed %ld", sep,
			   snap->grow_failed);
		sep = ", ";
	}
	if (sep[0] == ',')
		seq_putc(m, '\n');
}

static void show_header(struct seq_file *m, struct slabtrace_snapshot *snap)
{
	seq_puts(m, "Dumping outstanding allocs from ");
	slabtrace_seq_name(m, snap->name, sizeof(snap->name));
	show_opts(m, &snap->opts, by_stack(m, snap));
	seq_puts(m, "\ntraced ");
	show_secs(m, snap->traced_ns);
	seq_printf(m, ", %lu outstanding (%lu bytes)", snap->nr, snap->bytes);
	if (by_stack(m, snap))
		seq_printf(m, " in %lu stacks", snap->nr_groups);
	seq_printf(m, ", %ld records dropped\n", slabtrace_snapshot_dropped(snap));
	show_drops(m, snap);
	if (snap->aliases[0]) {
		/* A list of names: its ", " separators stay as they are. */
		seq_puts(m, "shared with: ");
		seq_escape_mem(m, snap->aliases, strlen(snap->aliases),
			       ESCAPE_NAP | ESCAPE_APPEND | ESCAPE_SPECIAL |
			       ESCAPE_HEX, "\\");
		seq_puts(m, " (merged caches: their objects are traced too)\n");
	}
	if (snap->replaced)
		seq_printf(m, "%ld records replaced: their objects were freed through paths with no tracepoint\n",
			   snap->replaced);
	seq_puts(m, "-------------------------\n");
}

/* Item @i of the view: an object, or a group. */
static void *item(struct seq_file *m, struct slabtrace_snapshot *snap,
		  unsigned long i)
{
	unsigned long n = snap->nr_groups;

	if (!by_stack(m, snap))
		return slabtrace_snapshot_entry(snap, i);
	if (snap->opts.top)
		n = min_t(unsigned long, n, snap->opts.top);
	return i < n ? snap->groups[i] : NULL;
}

/* What ctl shows before the session's first print: the state (status.c). */
#define NO_SNAPSHOT ((void *)2)

static void *dump_start(struct seq_file *m, loff_t *pos)
{
	struct slabtrace_snapshot *snap = slabtrace_snapshot_seq(m, *pos);

	if (!snap && !*pos && m->op != &slabtrace_stacks_seq_ops)
		return NO_SNAPSHOT;
	if (!snap)
		return NULL;
	return *pos ? item(m, snap, *pos - 1) : SEQ_START_TOKEN;
}

static void *dump_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return dump_start(m, pos);
}

static void dump_stop(struct seq_file *m, void *v)
{
}

static void show_group(struct seq_file *m, struct slabtrace_snapshot *snap,
		       const struct slabtrace_group *g, loff_t nr)
{
	struct slabtrace_record who = { .syscall = -1 };
	unsigned int i;

	seq_printf(m, "Stack %lld: %u object%s, %llu bytes (%llu requested), age min/avg/max ",
		   nr, g->count, g->count == 1 ? "" : "s", g->bytes, g->requested);
	show_secs(m, (u64)g->age_min * NSEC_PER_MSEC);
	seq_putc(m, '/');
	show_secs(m, div_u64(g->age_sum, g->count) * NSEC_PER_MSEC);
	seq_putc(m, '/');
	show_secs(m, (u64)g->age_max * NSEC_PER_MSEC);
	seq_puts(m, ", from ");
	for (i = 0; i < g->nwho; i++) {
		who.pid = g->who[i].pid;
		who.ctx = g->who[i].ctx;
		if (i)
			seq_puts(m, ", ");
		slabtrace_ctx_show(m, &who);
	}
	if (g->more_who)
		seq_printf(m, " and %u more", g->more_who);
	who.syscall = g->syscall;
	slabtrace_syscall_show(m, &who);
	seq_puts(m, ":\n----\n");
	slabtrace_stack_show(m, g->stack);
	seq_putc(m, '\n');
}

static int dump_show(struct seq_file *m, void *v)
{
	struct slabtrace_snapshot *snap = m->private;
	const struct slabtrace_record *rec = v;

	if (v == NO_SNAPSHOT) {
		seq_puts(m, "No snapshot in this session yet: print takes one.\n");
		slabtrace_status_show(m);
		return 0;
	}
	if (v == SEQ_START_TOKEN) {
		show_header(m, snap);
		return 0;
	}
	if (by_stack(m, snap)) {
		show_group(m, snap, v, m->index);
		return 0;
	}
	seq_printf(m, "Obj %pK, %u bytes (%u requested), age ", rec->obj,
		   snap->object_size, rec->bytes_req);
	show_secs(m, (u64)slabtrace_snapshot_age(snap, rec) * NSEC_PER_MSEC);
	seq_printf(m, ", cpu %u, from ", rec->cpu);
	slabtrace_ctx_show(m, rec);
	slabtrace_syscall_show(m, rec);
	seq_puts(m, ":\n----\n");
	slabtrace_stack_show(m, rec->stack);
	seq_putc(m, '\n');
	return 0;
}

const struct seq_operations slabtrace_dump_seq_ops = {
	.start = dump_start,
	.next = dump_next,
	.stop = dump_stop,
	.show = dump_show,
};

/* The stacks file: the same snapshot, always by stack. */
const struct seq_operations slabtrace_stacks_seq_ops = {
	.start = dump_start,
	.next = dump_next,
	.stop = dump_stop,
	.show = dump_show,
};
