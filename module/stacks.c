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
 * No locks: the stack depot has its own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/kernel.h>
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
 *
 * Called from the probes, in any context but NMI.
 *
 * Return: the stack depot handle, or 0 if the depot could not store it.
 */
depot_stack_handle_t slabtrace_stack_store(unsigned long *entries,
					   unsigned int nr,
					   unsigned long call_site)
{
	unsigned int skip;

	skip = slabtrace_stack_trim(entries, nr, call_site);
	if (skip >= nr)
		return 0;
	return stack_depot_save(entries + skip, nr - skip,
				GFP_NOWAIT | __GFP_NOWARN);
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
 * slabtrace_stack_show - print a saved trace, one numbered frame a line
 * @m: where
 * @handle: the stack depot handle
 *
 * Addresses follow the %pK rules (kptr_restrict) of the reader.
 */
void slabtrace_stack_show(struct seq_file *m, depot_stack_handle_t handle)
{
	unsigned long *entries;
	unsigned int i, nr = 0;

	if (handle)
		nr = stack_depot_fetch(handle, &entries);
	if (!nr) {
		seq_puts(m, " (backtrace not saved: stack depot full)\n");
		return;
	}
	for (i = 0; i < nr; i++)
		seq_printf(m, " #%02u [<%pK>] in %pS\n", i + 1,
			   (void *)entries[i], (void *)entries[i]);
}
