// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: allocation backtraces, trimmed to start at the allocator's
 * caller and deduplicated in the stack depot.
 *
 * The walk starts inside the probe, so it begins with the tracer's frames:
 * the probe, the tracepoint's iterator, the allocator.  How many there are
 * depends on the kernel and on what the compiler inlined, so no fixed skip
 * count is right.  The tracepoint gives the allocator's return address
 * (call_site); the trace keeps the frames from that address on.  If the
 * unwinder did not see it, the frames are trimmed by symbol name instead,
 * after the last one that belongs to the tracer or the allocator, the way
 * mm/kfence/report.c finds the start of its reports.
 *
 * A frame is named by kallsyms when it is shown, or, if its module was
 * unloaded meanwhile, by the name modsyms.c kept before it went.
 *
 * No locks: the stack depot has its own; the names of unloaded modules'
 * frames are read under RCU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/stacktrace.h>
#include <linux/string.h>

#include <slabtrace/slabtrace.h>

/* Functions whose frames come before the allocator's caller. */
static const char *const tracer_prefixes[] = {
	"slabtrace_", "__traceiter_", "__bpf_trace_",
	"kmalloc", "__kmalloc", "kmem_cache_alloc", "__kmem_cache_alloc",
	"slab_alloc", "__slab_alloc", "___slab_alloc", "__do_kmalloc",
	"kfree", "kmem_cache_free", "stack_trace_save", "arch_stack_walk",
};

static bool tracer_frame(unsigned long ip)
{
	char name[64];
	unsigned int i;

	/* "%ps" drops the offset: the bare name, maybe truncated. */
	snprintf(name, sizeof(name), "%ps", (void *)ip);
	for (i = 0; i < ARRAY_SIZE(tracer_prefixes); i++)
		if (str_has_prefix(name, tracer_prefixes[i]))
			return true;
	return false;
}

/* The tracer's frames are among the first few; a caller's never are. */
#define TRACER_FRAMES_MAX	12

/**
 * slabtrace_stack_trim - where the allocator's caller is in a trace
 * @entries: the trace, innermost frame first
 * @nr: its length
 * @call_site: the allocator's return address
 *
 * Return: the index of the first frame to keep; 0 if nothing is known to
 * be the tracer's.
 */
unsigned int slabtrace_stack_trim(const unsigned long *entries,
				  unsigned int nr, unsigned long call_site)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (entries[i] == call_site)
			return i;
	/* Slow, and rare: symbolise the first frames. */
	for (i = min(nr, TRACER_FRAMES_MAX); i > 0; i--)
		if (tracer_frame(entries[i - 1]))
			return i < nr ? i : 0;
	return 0;
}

/**
 * slabtrace_stack_store - save a backtrace from the allocator's caller on
 * @entries: the walk, from stack_trace_save() in the probe itself (each
 *	     frame walked costs, so the walk starts as shallow as it can)
 * @nr: its length
 * @call_site: the allocator's return address, as the tracepoint gives it
 * @gfp: what the depot may allocate with, if it needs memory
 *
 * Called from the probes, in any context but NMI.
 *
 * Return: the stack depot handle, or 0 if the depot could not store it.
 */
depot_stack_handle_t slabtrace_stack_store(unsigned long *entries,
					   unsigned int nr,
					   unsigned long call_site, gfp_t gfp)
{
	unsigned int skip;

	skip = slabtrace_stack_trim(entries, nr, call_site);
	if (skip >= nr)
		return 0;
	return stack_depot_save(entries + skip, nr - skip, gfp);
}

/**
 * slabtrace_stack_first - the first frame of a saved trace
 * @handle: the stack depot handle
 * @ip: where to store it
 *
 * Return: 0, or -ENOENT if @handle holds no trace.
 */
int slabtrace_stack_first(depot_stack_handle_t handle, unsigned long *ip)
{
	unsigned long *entries;

	if (!handle || !stack_depot_fetch(handle, &entries))
		return -ENOENT;
	*ip = entries[0];
	return 0;
}

/**
 * slabtrace_frame_strip - a frame's name without its offset
 * @buf: where to write it
 * @size: its size
 * @name: "func+0x1b/0x20 [mod]", or "func+0x1b/0x20"
 *
 * "func [mod]", or "func"; a name with no offset is copied as it is.
 */
void slabtrace_frame_strip(char *buf, size_t size, const char *name)
{
	const char *plus = strchr(name, '+'), *mod = strchr(name, ' ');

	if (!plus || (mod && mod < plus))
		strscpy(buf, name, size);
	else
		scnprintf(buf, size, "%.*s%s", (int)(plus - name), name,
			  mod ?: "");
}

/**
 * slabtrace_frame_name - the name of a frame, as a backtrace shows it
 * @buf: where to write it
 * @size: its size
 * @ip: the frame's address
 * @offset: "func+0x1b/0x20 [mod]" if true, "func [mod]" if false
 *
 * A frame in a module that was unloaded keeps the name it had.
 */
void slabtrace_frame_name(char *buf, size_t size, unsigned long ip,
			  bool offset)
{
	const char *kept;

	rcu_read_lock();
	kept = slabtrace_modsym(ip);
	if (kept && offset)
		strscpy(buf, kept, size);
	else if (kept)
		slabtrace_frame_strip(buf, size, kept);
	rcu_read_unlock();
	if (!kept)
		snprintf(buf, size, offset ? "%pS" : "%ps", (void *)ip);
}

/**
 * slabtrace_frame_folded - a frame's name as a folded stack can hold it
 * @buf: where to write it
 * @size: its size
 * @name: the name (slabtrace_frame_name(), without offset)
 *
 * Folded stacks separate frames with ';' and end with " COUNT": a ';'
 * becomes ':', and any byte that is not printable ASCII becomes '?'.
 * Spaces stay ("func [mod]"): readers take the count after the last one.
 */
void slabtrace_frame_folded(char *buf, size_t size, const char *name)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < size; i++) {
		unsigned char c = name[i];

		if (c == ';')
			c = ':';
		else if (c < 0x20 || c >= 0x7f)
			c = '?';
		buf[i] = c;
	}
	if (size)
		buf[i] = '\0';
}

/**
 * slabtrace_stack_show - print a saved trace, one numbered frame a line
 * @m: where
 * @handle: the stack depot handle
 *
 * Addresses follow the %pK rules (kptr_restrict) of the reader.
 */
void slabtrace_stack_show(struct seq_file *m, depot_stack_handle_t handle)
{
	char name[SLABTRACE_FRAME_MAX];
	unsigned long *entries;
	unsigned int i, nr = 0;

	if (handle)
		nr = stack_depot_fetch(handle, &entries);
	if (!nr) {
		seq_puts(m, " (backtrace not saved: stack depot full)\n");
		return;
	}
	for (i = 0; i < nr; i++) {
		slabtrace_frame_name(name, sizeof(name), entries[i], true);
		seq_printf(m, " #%02u [<%pK>] in %s\n", i + 1,
			   (void *)entries[i], name);
	}
}
