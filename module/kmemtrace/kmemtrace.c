// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: every slab allocation and free as a binary event, in the
 * per-CPU CTF stream of /proc/slabtrace/kmemtrace/ (module/ctf.c).
 *
 * A trace starts with "kmemtrace start [CACHE...]" on ctl, "1 [CACHE...]"
 * (or the names alone) on enable, or the module parameter kmemtrace=1,
 * and stops with "kmemtrace stop" or "0".  Starting makes new buffers,
 * with a new trace UUID; the last trace's go once no file reads them.
 * Stopping closes every CPU's open packet so a reader can drain them.
 * The events hold kernel addresses: under lockdown=confidentiality no
 * trace starts.  Documentation/kmemtrace.rst describes the files and the
 * format.  The system, as the core drives it (kmemtrace_system), is at
 * the end.
 *
 * Notes on locking
 * ----------------
 * - kmemtrace_mutex: kmemtrace_trace, kmemtrace_running and
 *   kmemtrace_buffer_kb; held across start, stop and the files that read
 *   the trace's state (the stream takes it: its ops' lock).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/nodemask.h>
#include <linux/pfn.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <uapi/slabtrace/kmemtrace.h>

#include "kmemtrace.h"

/* kmemtrace_mutex: see Notes on locking. */
DEFINE_MUTEX(kmemtrace_mutex);
struct kmemtrace_trace kmemtrace_trace;
bool kmemtrace_running;

static bool kmemtrace_param_on;
module_param_named(kmemtrace, kmemtrace_param_on, bool, 0400);
MODULE_PARM_DESC(kmemtrace, "Start kmemtrace of every cache at load");
unsigned int kmemtrace_buffer_kb = KMEMTRACE_BUFFER_KB_DEFAULT;
module_param_named(kmemtrace_buffer_kb, kmemtrace_buffer_kb, uint, 0400);
MODULE_PARM_DESC(kmemtrace_buffer_kb, "kmemtrace buffer per CPU, KiB (16..65536, a multiple of 8)");

static void filter_put(struct kmemtrace_trace *t)
{
	while (t->nr_filter)
		slabtrace_cache_put(&t->filter[--t->nr_filter]);
	t->filter_names[0] = '\0';
}

/* Resolve the cache names of a filtered trace. */
static int filter_get(struct kmemtrace_trace *t, char **names, int nr)
{
	size_t len = 0;
	int i, ret;

	if (nr > KMEMTRACE_MAX_CACHES) {
		pr_warn_ratelimited("kmemtrace: at most %d caches, not %d\n",
				    KMEMTRACE_MAX_CACHES, nr);
		return -E2BIG;
	}
	for (i = 0; i < nr; i++) {
		ret = slabtrace_cache_resolve("kmemtrace", names[i], &t->filter[i]);
		if (ret)
			goto err;
		t->nr_filter++;
		/* Cache names are any bytes a module chose: escaped. */
		if (len + 1 < sizeof(t->filter_names))
			t->filter_names[len++] = ' ';
		len += string_escape_mem(names[i], strlen(names[i]),
					 t->filter_names + len,
					 sizeof(t->filter_names) - 1 - len,
					 SLABTRACE_ESCAPE, SLABTRACE_ESCAPE_ALSO);
		len = min(len, sizeof(t->filter_names) - 1);
		t->filter_names[len] = '\0';
	}
	return 0;
err:
	filter_put(t);
	return ret;
}

/**
 * kmemtrace_call_site_base - the start of the call_site window
 * @kernel_text: an address in the kernel's text (kfree())
 *
 * call_site is 32 bits, an offset from this base.  On x86-64 the kernel's
 * text and the modules' are in the last 2 GiB of the address space: the
 * window is the last 4 GiB.  On arm64 the kernel is anywhere under KASLR,
 * and the modules within 2 GiB of its text, above or below: the window is
 * the 4 GiB around @kernel_text.
 *
 * Return: the lower of @kernel_text - 2 GiB and the address space's top
 * - 4 GiB.
 */
VISIBLE_IF_KUNIT unsigned long kmemtrace_call_site_base(unsigned long kernel_text)
{
	return min_t(unsigned long, kernel_text - SZ_2G, 0UL - SZ_4G);
}

/**
 * kmemtrace_ptr_base - the base of the ptr field
 * @lo: the lowest linear-map address of the memory in use
 * @hi: the end of the highest (one past)
 * @base: the base, set on success
 *
 * ptr is 48 bits, an offset from this base.  Not PAGE_OFFSET: on arm64
 * built for 52-bit VA and running with 48 (a CPU without LPA2), the
 * linear map starts 2^52 - 2^48 above PAGE_OFFSET; on x86-64 @lo is in
 * the first GiB above page_offset_base, which is 1 GiB aligned: the
 * base is page_offset_base.
 *
 * Return: 0, *@base being @lo rounded down to 1 GiB; -EOVERFLOW if an
 * address below @hi is 2^48 or more above it.
 */
VISIBLE_IF_KUNIT int kmemtrace_ptr_base(unsigned long lo, unsigned long hi,
					unsigned long *base)
{
	unsigned long b = ALIGN_DOWN(lo, SZ_1G);

	if (hi < lo || hi - b > KMEMTRACE_PTR_SPAN)
		return -EOVERFLOW;
	*base = b;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kmemtrace_ptr_base);

/**
 * kmemtrace_linear_map - the linear-map addresses of the memory in use
 * @lo: set to the lowest: the start of the lowest node with memory
 * @hi: set to one past the highest: the end of the highest node
 *
 * Slab objects are in the linear map, within these (memory hot-added
 * later may not be).  PAGE_OFFSET if no node has memory.
 */
VISIBLE_IF_KUNIT void kmemtrace_linear_map(unsigned long *lo, unsigned long *hi)
{
	unsigned long start, end;
	int nid;

	*lo = ULONG_MAX;
	*hi = 0;
	for_each_node_state(nid, N_MEMORY) {
		if (!node_spanned_pages(nid))
			continue;
		start = (unsigned long)__va(PFN_PHYS(node_start_pfn(nid)));
		end = (unsigned long)__va(PFN_PHYS(node_end_pfn(nid) - 1)) + PAGE_SIZE;
		*lo = min(*lo, start);
		*hi = max(*hi, end);
	}
	if (*lo > *hi)
		*lo = *hi = PAGE_OFFSET;
}
EXPORT_SYMBOL_IF_KUNIT(kmemtrace_linear_map);

/**
 * kmemtrace_start - start a trace
 * @names: the caches to trace; every cache if @nr is 0
 * @nr: their number
 *
 * Called with kmemtrace_mutex held.
 *
 * Return: 0; -EBUSY if a trace runs; -ENOENT for an unknown cache;
 * -EPERM under lockdown=confidentiality; -ENOMEM; -EOVERFLOW if the
 * memory spans more than 2^48 bytes of the linear map (kmemtrace_ptr_base()).
 */
VISIBLE_IF_KUNIT int kmemtrace_start(char **names, int nr)
{
	struct kmemtrace_trace *t = &kmemtrace_trace;
	unsigned long lo, hi, ptr_base;
	int ret;

	lockdep_assert_held(&kmemtrace_mutex);
	if (kmemtrace_running) {
		pr_warn_ratelimited("kmemtrace: already started\n");
		return -EBUSY;
	}
	filter_put(t);
	ret = filter_get(t, names, nr);
	if (ret)
		return ret;
	ret = slabtrace_stream_open(&t->stream,
				    (size_t)kmemtrace_buffer_kb * 1024 / SLABTRACE_CTF_SUBBUFS,
				    SLABTRACE_CTF_SUBBUFS);
	if (ret)
		goto err_filter;
	kmemtrace_cachetab_reset();
	/*
	 * For the cache table's pins, and kfree()'s cache: without, ids are
	 * by address only, and kfree() events carry no cache.
	 */
	slabtrace_caches_init();
	kmemtrace_linear_map(&lo, &hi);
	if (kmemtrace_ptr_base(lo, hi, &ptr_base)) {
		pr_warn_ratelimited("kmemtrace: the memory spans %lu GiB of the linear map, beyond the 256 TiB an object's address can be above the lowest\n",
				    (hi - lo) >> 30);
		ret = -EOVERFLOW;
		goto err_stream;
	}
	t->call_site_base = kmemtrace_call_site_base((unsigned long)kfree);
	t->ptr_base = ptr_base;
	ret = kmemtrace_probes_register(t);
	if (ret) {
		pr_warn_ratelimited("kmemtrace: cannot attach to the kmem tracepoints (%d)\n",
				    ret);
		goto err_stream;
	}
	kmemtrace_running = true;
	pr_info_ratelimited("kmemtrace: started (%s), %u KiB per CPU\n",
			    t->nr_filter ? t->filter_names + 1 : "every cache",
			    kmemtrace_buffer_kb);
	return 0;

err_stream:
	slabtrace_stream_close(&t->stream);
err_filter:
	filter_put(t);
	return ret;
}

/**
 * kmemtrace_stop - stop the trace, if any, and close its open packets
 *
 * The buffers stay for the reader.  Stopping a stopped trace closes the
 * packets again: one opened where the reader made room since carries the
 * count of the events lost while the buffer was full (the recorder's
 * last step).  Called with kmemtrace_mutex held.
 *
 * Return: 0.
 */
VISIBLE_IF_KUNIT int kmemtrace_stop(void)
{
	lockdep_assert_held(&kmemtrace_mutex);
	if (kmemtrace_running) {
		kmemtrace_probes_unregister(&kmemtrace_trace);
		kmemtrace_running = false;
		pr_info_ratelimited("kmemtrace: stopped\n");
	}
	slabtrace_stream_flush(&kmemtrace_trace.stream);
	return 0;
}

/*
 * The commands on ctl:
 *   kmemtrace start [CACHE...]   trace every cache, or those named
 *   kmemtrace stop               stop, and close the open packets
 * The stream's enable writes them for "1 [CACHE...]" and "0".
 */
static int kmemtrace_run(struct file *file, int cmd, int argc, char **argv)
{
	int ret;

	if (argc < 2 || (strcmp(argv[1], "start") && strcmp(argv[1], "stop"))) {
		pr_warn_ratelimited("ctl: kmemtrace takes start [CACHE...] or stop\n");
		return -EINVAL;
	}
	if (!strcmp(argv[1], "stop") && argc > 2) {
		pr_warn_ratelimited("ctl: kmemtrace stop takes no argument\n");
		return -EINVAL;
	}
	mutex_lock(&kmemtrace_mutex);
	if (!strcmp(argv[1], "start"))
		ret = kmemtrace_start(argv + 2, argc - 2);
	else
		ret = kmemtrace_stop();
	mutex_unlock(&kmemtrace_mutex);
	return ret;
}

/* At module exit, or a load that failed: the trace stops, then its buffers go. */
static void kmemtrace_exit(void)
{
	mutex_lock(&kmemtrace_mutex);
	kmemtrace_stop();
	filter_put(&kmemtrace_trace);
	kmemtrace_cachetab_reset();
	mutex_unlock(&kmemtrace_mutex);
	slabtrace_stream_exit(&kmemtrace_trace.stream);
}

static int kmemtrace_init(void)
{
	int ret;

	if (kmemtrace_buffer_kb < KMEMTRACE_BUFFER_KB_MIN ||
	    kmemtrace_buffer_kb > KMEMTRACE_BUFFER_KB_MAX || kmemtrace_buffer_kb % 8) {
		pr_warn("kmemtrace_buffer_kb=%u: not a multiple of 8 in %d..%d\n",
			kmemtrace_buffer_kb, KMEMTRACE_BUFFER_KB_MIN, KMEMTRACE_BUFFER_KB_MAX);
		return -EINVAL;
	}
	ret = kmemtrace_files_init();
	/*
	 * No file opens before the load is done (files.c): only the
	 * parameter starts a trace now, and a failure stops it before the
	 * module goes.
	 */
	if (!ret && kmemtrace_param_on) {
		mutex_lock(&kmemtrace_mutex);
		ret = kmemtrace_start(NULL, 0);
		mutex_unlock(&kmemtrace_mutex);
	}
	if (ret)
		kmemtrace_exit();
	return ret;
}

/* Its line of the status file: its stream's buffers, if any. */
static void kmemtrace_status(struct seq_file *m)
{
	mutex_lock(&kmemtrace_mutex);
	slabtrace_stream_status(&kmemtrace_trace.stream, m);
	mutex_unlock(&kmemtrace_mutex);
}

static const match_table_t kmemtrace_cmds = {
	{ 0, "kmemtrace" },
	{ SLABTRACE_CMD_NONE, NULL },
};

static const char *const kmemtrace_help[] = {
	"  kmemtrace start [CACHE...] | kmemtrace stop   the binary alloc/free trace",
	NULL,
};

const struct slabtrace_system kmemtrace_system = {
	.name = "kmemtrace",
	.init = kmemtrace_init,
	.exit = kmemtrace_exit,
	.cmds = kmemtrace_cmds,
	.command = kmemtrace_run,
	.status = kmemtrace_status,
	.help = kmemtrace_help,
};
