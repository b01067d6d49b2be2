// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: the text of a snapshot, what reading ctl returns: objects,
 *
 *   Dumping outstanding allocs from kmalloc-64
 *   traced 12.345s, 1024 outstanding (65536 bytes), 0 records dropped
 *   drops: stack store full 2              (only if something was lost)
 *   verdicts: 1 leak, 1 live, 0 kept, 0 unknown
 *   stack 1: leak (growing): 1000 of 1000 not freed, ...   (one a stack)
 *   -------------------------
 *   Obj 000000009d2f1c3a, 64 bytes (50 requested), age 3.210s, cpu 1, node 0,
 *   gfp GFP_KERNEL|__GFP_ZERO, stack 1 (leak), from PID 212 cat:  (one line)
 *   ----
 *    #01 [<ffffffffc0a1b2c3>] in leaky_write+0x2c/0x90 [leaky]
 *
 * or, after "print CACHE stacks" and always in the stacks file, groups
 * of objects by backtrace, each with its leak verdict (verdict.c) and
 * the evidence for it:
 *
 *   Stack 1: 3 objects, 192 bytes (150 requested), age min/avg/max
 *   0.1s/0.2s/0.3s, from PID 212 cat in syscall write: live: all 3
 *   younger than 1.0 s; 120 freed lived <1 ms median, <2 ms p99 (one line)
 *   ----
 *    #01 [<ffffffffc0a1b2c3>] in leaky_write+0x2c/0x90 [leaky]
 *
 * Before a print of the reader's login user, ctl shows the state instead
 * (status.c).
 *
 * Formatted at read time, so %pK follows the reader's kptr_restrict rights.
 * The snapshot a reader shows is picked when it reads from offset 0: its
 * file's own print, or its login user's latest
 * (leak_print_seq()).
 *
 * Naming a frame (kallsyms, modsyms.c) is most of the cost of a dump, and a
 * million records share a few stacks: each open file keeps the text of
 * the backtraces it has shown, by stack handle, in a small direct-mapped
 * cache (TEXTS_SLOTS stacks, TEXTS_BYTES of text at most, allocated with
 * __GFP_NORETRY; without room, a backtrace is formatted as before).  The
 * text holds %pK addresses, so it is only reused while %pK prints the same
 * for the reader: each read() formats a canary address with %pK, and the
 * cache is emptied when that comes out different (another reader of the
 * same file, kptr_restrict changed).  It is also emptied when a module
 * that saved traces may have frames in came or went
 * (leak_modsyms_gen()): the names kept for frames of code that went
 * are what it must show then.
 *
 * No locks of its own: a snapshot is immutable, and the reference the
 * seq_file holds keeps it.  The cache is the open file's, used under the
 * seq_file's own mutex (one read() at a time).
 */
#include <linux/gfp.h>
#include <linux/hash.h>
#include <linux/math64.h>
#include <linux/numa.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "aggregate.h"
#include "context.h"
#include "lifetime.h"
#include "modsyms.h"
#include "print.h"
#include "record.h"
#include "sets.h"
#include "snapshot.h"
#include "traced.h"
#include "views.h"

#define TEXTS_BITS	8
#define TEXTS_SLOTS	BIT(TEXTS_BITS)		/* stacks cached per reader */
#define TEXTS_BYTES	(256 * 1024)		/* their text, at most */
#define TEXTS_GFP	(GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN)

/* The text leak_stack_show() gave for a stack. */
struct stack_text {
	depot_stack_handle_t handle;
	unsigned int len;
	char *text;
};

struct leak_stack_texts {
	char canary[32];		/* "%pK" of the cache, when filled */
	unsigned long gen;		/* leak_modsyms_gen(), likewise */
	size_t bytes;			/* of text held */
	struct stack_text slot[TEXTS_SLOTS];
};

static void texts_empty(struct leak_stack_texts *tx)
{
	unsigned int i;

	for (i = 0; i < TEXTS_SLOTS; i++) {
		kfree(tx->slot[i].text);
		tx->slot[i].text = NULL;
		tx->slot[i].handle = 0;
	}
	tx->bytes = 0;
}

static void texts_free(struct leak_stack_texts *tx)
{
	if (tx)
		texts_empty(tx);
	kfree(tx);
}

/**
 * leak_view_release - a file that shows the print closes
 * @inode: its inode
 * @file: ctl (opened to read), stacks, folded or folded_bytes
 *
 * Its cached texts go, then what its reader holds.
 *
 * Return: 0.
 */
int leak_view_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;
	struct leak_reader *r = m->private;

	texts_free(r->texts);
	r->texts = NULL;
	return leak_reader_release(inode, file);
}

#if LEAK_TESTS
/* What leak_view_release() lets go, for a reader of the tests'. */
void leak_view_clear(struct leak_reader *r)
{
	texts_free(r->texts);
	r->texts = NULL;
	leak_reader_clear(r);
}
#endif

/*
 * At each read(): the reader's cache, emptied if what it holds is not what
 * this reader would see now.  NULL without memory: no cache.
 */
static struct leak_stack_texts *texts_check(struct leak_reader *r)
{
	struct leak_stack_texts *tx = r->texts;
	char canary[sizeof(tx->canary)];

	if (!tx) {
		tx = kzalloc(sizeof(*tx), TEXTS_GFP);
		if (!tx)
			return NULL;
		r->texts = tx;
	}
	snprintf(canary, sizeof(canary), "%pK", tx);
	if (strcmp(canary, tx->canary)) {
		texts_empty(tx);
		strscpy(tx->canary, canary, sizeof(tx->canary));
	}
	return tx;
}

/* A stack's backtrace, as leak_stack_show() prints it, cached. */
static void show_stack(struct seq_file *m, depot_stack_handle_t handle)
{
	struct leak_reader *r = m->private;
	struct leak_stack_texts *tx = r->texts;
	size_t start = m->count, len;
	unsigned long gen;
	struct stack_text *s;
	char *text;

	if (!tx || !handle) {
		leak_stack_show(m, handle);
		return;
	}
	gen = leak_modsyms_gen();
	if (tx->gen != gen) {
		texts_empty(tx);
		tx->gen = gen;
	}
	s = &tx->slot[hash_32(handle, TEXTS_BITS)];
	if (s->text && s->handle == handle) {
		seq_write(m, s->text, s->len);
		return;
	}
	leak_stack_show(m, handle);
	if (seq_has_overflowed(m))
		return;
	len = m->count - start;
	if (tx->bytes - (s->text ? s->len : 0) + len > TEXTS_BYTES)
		return;
	text = kmemdup(m->buf + start, len, TEXTS_GFP);
	if (!text)
		return;
	if (s->text)
		tx->bytes -= s->len;
	kfree(s->text);
	s->text = text;
	s->len = len;
	s->handle = handle;
	tx->bytes += len;
}

/* "%llu.%03us", without vsnprintf's parsing: it runs a million times. */
static void show_secs(struct seq_file *m, u64 ns)
{
	u32 ms;
	u64 s = div_u64_rem(div_u64(ns, NSEC_PER_MSEC), MSEC_PER_SEC, &ms);

	seq_put_decimal_ull(m, "", s);
	seq_putc(m, '.');
	seq_putc(m, '0' + ms / 100);
	seq_putc(m, '0' + ms / 10 % 10);
	seq_putc(m, '0' + ms % 10);
	seq_putc(m, 's');
}

/* Whether @m shows groups: the stacks file, or ctl after "print stacks". */
static bool by_stack(struct seq_file *m, const struct leak_snapshot *snap)
{
	return m->op == &leak_stacks_seq_ops || snap->opts.stacks;
}

/* " (by stack, top 5, older than 100 ms, since mark)", or nothing. */
static void show_opts(struct seq_file *m, const struct leak_print_opts *o,
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
static void show_drops(struct seq_file *m, struct leak_snapshot *snap)
{
	const char *sep = "drops: ";
	int i;

	for (i = 0; i < LEAK_DROP_MAX; i++) {
		if (!snap->drops[i])
			continue;
		seq_printf(m, "%s%s %ld", sep, leak_drop_names[i],
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

/*
 * "verdicts: 1 leak, 2 live, 0 kept, 1 unknown", of the stacks.  In the
 * per-object view each stack's verdict, which its objects name, follows
 * as an item of its own (item()).
 */
static void show_verdicts(struct seq_file *m, struct leak_snapshot *snap)
{
	seq_printf(m, "verdicts: %lu %s, %lu %s, %lu %s, %lu %s\n",
		   snap->verdicts[SLABTRACE_VERDICT_LEAK],
		   leak_verdict_words[SLABTRACE_VERDICT_LEAK],
		   snap->verdicts[SLABTRACE_VERDICT_LIVE],
		   leak_verdict_words[SLABTRACE_VERDICT_LIVE],
		   snap->verdicts[SLABTRACE_VERDICT_KEPT],
		   leak_verdict_words[SLABTRACE_VERDICT_KEPT],
		   snap->verdicts[SLABTRACE_VERDICT_UNKNOWN],
		   leak_verdict_words[SLABTRACE_VERDICT_UNKNOWN]);
}

#define HEADER_END	"-------------------------\n"

static void show_header(struct seq_file *m, struct leak_snapshot *snap)
{
	seq_puts(m, "Dumping outstanding allocs from ");
	slabtrace_seq_name(m, snap->name, sizeof(snap->name));
	show_opts(m, &snap->opts, by_stack(m, snap));
	seq_puts(m, "\ntraced ");
	show_secs(m, snap->traced_ns);
	seq_printf(m, ", %lu outstanding (%lu bytes)", snap->nr, snap->bytes);
	if (by_stack(m, snap))
		seq_printf(m, " in %lu stacks", snap->nr_groups);
	seq_printf(m, ", %ld records dropped\n", leak_snapshot_dropped(snap));
	show_drops(m, snap);
	if (snap->aliases[0]) {
		/* Each name escaped already (caches.c), between ", ". */
		seq_puts(m, "shared with: ");
		seq_puts(m, snap->aliases);
		seq_puts(m, " (merged caches: their objects are traced too)\n");
	}
	if (snap->replaced)
		seq_printf(m, "%ld records replaced: their objects were freed through paths with no tracepoint\n",
			   snap->replaced);
	if (snap->filter[0])
		seq_printf(m, "filter: %s; %lu allocations left out\n",
			   snap->filter, snap->filtered);
	if (snap->sample_every > 1)
		seq_printf(m, "sampled 1 in %u: ", snap->sample_every);
	else if (snap->sample_bytes)
		seq_printf(m, "sampled 1 per %u bytes: ", snap->sample_bytes);
	if (leak_sampled(snap))
		seq_printf(m, "estimated %llu outstanding (%llu bytes); the counts below are of records\n",
			   (snap->est_q16 + (1U << 15)) >> 16, snap->est_bytes);
	if (snap->kind == LEAK_KIND_PERCPU)
		seq_printf(m, "percpu objects: requested is the size on one CPU, bytes on all %u possible CPUs\n",
			   num_possible_cpus());
	show_verdicts(m, snap);
	if (by_stack(m, snap))
		seq_puts(m, HEADER_END);
}

/* The end of the per-object view's header, after its stacks' verdicts. */
#define STACKS_END ((void *)4)

/*
 * Item @i of the view: in the per-object view, a stack whose verdict
 * line it is, the header's end, then an object; else a group.  Each
 * stack's line is an item of its own, so that seq_file's buffer holds
 * one line, not one a stack, however many stacks a snapshot has.
 */
static void *item(struct seq_file *m, struct leak_snapshot *snap,
		  unsigned long i)
{
	unsigned long n = snap->nr_groups;

	if (!by_stack(m, snap)) {
		if (i < n)
			return snap->groups[i];
		if (i == n)
			return STACKS_END;
		return leak_snapshot_entry(snap, i - n - 1);
	}
	if (snap->opts.top)
		n = min_t(unsigned long, n, snap->opts.top);
	return i < n ? snap->groups[i] : NULL;
}

/* What ctl shows before a print of the reader's: the state (status.c). */
#define NO_SNAPSHOT ((void *)2)
/* The first line of a print of a word (SEQ_START_TOKEN: a cache's header). */
#define WORD_SUMMARY ((void *)3)

/*
 * The positions a part takes: its header, its items (in the per-object
 * view, its stacks' verdict lines and the header's end first).
 */
static unsigned long part_len(struct seq_file *m,
			      const struct leak_snapshot *part)
{
	unsigned long n = part->nr_groups;

	if (!by_stack(m, part))
		return 1 + n + 1 + part->nr;
	if (part->opts.top)
		n = min_t(unsigned long, n, part->opts.top);
	return 1 + n;
}

/*
 * Position 0 shows a print of one cache's header, then its items; a print
 * of a word's summary, then each part's header and items.
 */
static void *dump_at(struct seq_file *m, loff_t *pos)
{
	struct leak_snapshot *snap = leak_print_seq(m, *pos);
	struct leak_reader *r = m->private;
	struct leak_snapshot *part;

	if (!snap && !*pos && m->op != &leak_stacks_seq_ops)
		return NO_SNAPSHOT;
	if (!snap)
		return NULL;
	if (snap->word && !*pos)
		return WORD_SUMMARY;
	part = leak_print_part(m, *pos, snap->word, part_len);
	if (!part)
		return NULL;
	if (*pos == r->part_pos)
		return SEQ_START_TOKEN;
	return item(m, part, *pos - r->part_pos - 1);
}

/* Once a read(): the reader's rights may have changed since the last. */
static void *dump_start(struct seq_file *m, loff_t *pos)
{
	texts_check(m->private);
	return dump_at(m, pos);
}

static void *dump_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return dump_at(m, pos);
}

static void dump_stop(struct seq_file *m, void *v)
{
}

static void show_group(struct seq_file *m, struct leak_snapshot *snap,
		       const struct leak_group *g, loff_t nr)
{
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
		if (i)
			seq_puts(m, ", ");
		leak_ctx_show(m, &g->who[i]);
	}
	if (g->more_who)
		seq_printf(m, " and %u more", g->more_who);
	if (leak_sampled(snap))
		seq_printf(m, ", estimated %llu objects (%llu bytes)",
			   (g->est_q16 + (1U << 15)) >> 16, g->est_bytes);
	leak_syscall_show(m, g->syscall);
	seq_puts(m, ": ");
	seq_puts(m, g->verdict.text);
	seq_puts(m, "\n----\n");
	show_stack(m, g->stack);
	seq_putc(m, '\n');
}

/*
 * ", node 0, gfp GFP_KERNEL|__GFP_ZERO": the node only for memory that is
 * on one (not percpu), the flags as the kmem tracepoints print them.
 */
static void show_node_gfp(struct seq_file *m, const struct leak_record *rec)
{
	gfp_t gfp = (__force gfp_t)rec->gfp;

	if (rec->node != NUMA_NO_NODE)
		seq_put_decimal_ll(m, ", node ", rec->node);
	if (gfp)
		seq_printf(m, ", gfp %pGg", &gfp);
	else
		seq_puts(m, ", gfp none");
}

static int dump_show(struct seq_file *m, void *v)
{
	struct leak_reader *r = m->private;
	struct leak_snapshot *snap = r->part;
	const struct leak_record *rec = v;
	const struct leak_group *g;

	if (v == NO_SNAPSHOT) {
		seq_puts(m, "No snapshot yet for this login user: print takes one.\n");
		slabtrace_status_show(m);
		return 0;
	}
	if (v == WORD_SUMMARY) {
		seq_printf(m, "Print of %s: %u cache%s, %u with outstanding objects, most bytes first\n",
			   r->snap->name, r->snap->nr_caches,
			   r->snap->nr_caches == 1 ? "" : "s", r->snap->nr_parts);
		return 0;
	}
	if (v == SEQ_START_TOKEN) {
		show_header(m, snap);
		return 0;
	}
	if (by_stack(m, snap)) {
		show_group(m, snap, v, m->index - r->part_pos);
		return 0;
	}
	if (v == STACKS_END) {
		seq_puts(m, HEADER_END);
		return 0;
	}
	/* "stack 1: leak (growing): ...", in the header's item positions. */
	if (m->index - r->part_pos <= snap->nr_groups) {
		g = v;
		seq_printf(m, "stack %u: %s\n", g->rank, g->verdict.text);
		return 0;
	}
	/* "Obj %pK, %u bytes (%u requested), age ", the numbers directly. */
	seq_printf(m, "Obj %pK", rec->obj);
	seq_put_decimal_ull(m, ", ",
			    leak_bytes(snap->kind, snap->object_size, rec));
	seq_put_decimal_ull(m, " bytes (", rec->bytes_req);
	seq_puts(m, " requested), age ");
	show_secs(m, (u64)leak_snapshot_age(snap, rec) * NSEC_PER_MSEC);
	seq_put_decimal_ull(m, ", cpu ", rec->cpu);
	show_node_gfp(m, rec);
	g = leak_group_of(snap, rec);
	if (g)
		seq_printf(m, ", stack %u (%s)", g->rank,
			   leak_verdict_words[g->verdict.word]);
	seq_puts(m, ", from ");
	leak_ctx_show(m, &rec->who);
	leak_syscall_show(m, rec->syscall);
	seq_puts(m, ":\n----\n");
	show_stack(m, rec->stack);
	seq_putc(m, '\n');
	return 0;
}

const struct seq_operations leak_dump_seq_ops = {
	.start = dump_start,
	.next = dump_next,
	.stop = dump_stop,
	.show = dump_show,
};

/* The stacks file: the same snapshot, always by stack. */
const struct seq_operations leak_stacks_seq_ops = {
	.start = dump_start,
	.next = dump_next,
	.stop = dump_stop,
	.show = dump_show,
};
