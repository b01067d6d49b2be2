// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: the text of a snapshot, what reading ctl returns.
 *
 *   Dumping outstanding allocs from kmalloc-64
 *   traced 12.345s, 1024 outstanding (65536 bytes), 0 records dropped
 *   -------------------------
 *   Obj 000000009d2f1c3a, 64 bytes (50 requested), age 3.210s, cpu 1, from PID 212 cat:
 *   ----
 *    #01 [<ffffffffc0a1b2c3>] in leaky_write+0x2c/0x90 [leaky]
 *
 * Formatted at read time, so %pK follows the reader's kptr_restrict rights.
 * The snapshot a reader shows is picked when it reads from offset 0: the
 * newest one, so "echo print X > ctl; cat ctl" shows X.
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

static void show_header(struct seq_file *m, struct slabtrace_snapshot *snap)
{
	seq_printf(m, "Dumping outstanding allocs from %s\n", snap->name);
	seq_puts(m, "traced ");
	show_secs(m, snap->traced_ns);
	seq_printf(m, ", %lu outstanding (%lu bytes), %ld records dropped\n",
		   snap->nr, snap->bytes, snap->dropped);
	if (snap->aliases[0])
		seq_printf(m, "shared with: %s (merged caches: their objects are traced too)\n",
			   snap->aliases);
	if (snap->replaced)
		seq_printf(m, "%ld records replaced: their objects were freed through paths with no tracepoint\n",
			   snap->replaced);
	seq_puts(m, "-------------------------\n");
}

static void *dump_start(struct seq_file *m, loff_t *pos)
{
	struct slabtrace_snapshot *snap;

	if (!*pos) {
		snap = slabtrace_snapshot_get();
		if (m->private)
			slabtrace_snapshot_put(m->private);
		m->private = snap;
		return snap ? SEQ_START_TOKEN : NULL;
	}
	snap = m->private;
	if (!snap)
		return NULL;
	return (void *)slabtrace_snapshot_entry(snap, *pos - 1);
}

static void *dump_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return dump_start(m, pos);
}

static void dump_stop(struct seq_file *m, void *v)
{
}

static int dump_show(struct seq_file *m, void *v)
{
	struct slabtrace_snapshot *snap = m->private;
	const struct slabtrace_record *rec = v;

	if (v == SEQ_START_TOKEN) {
		show_header(m, snap);
		return 0;
	}
	seq_printf(m, "Obj %pK, %u bytes (%u requested), age ", rec->obj,
		   snap->object_size, rec->bytes_req);
	show_secs(m, snap->taken - snap->epoch -
		     min_t(u64, (u64)rec->stamp * NSEC_PER_MSEC,
			   snap->taken - snap->epoch));
	seq_printf(m, ", cpu %u, from ", rec->cpu);
	slabtrace_ctx_show(m, rec);
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
