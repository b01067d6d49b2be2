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
 * format.
 *
 * Notes on locking
 * ----------------
 * - slabtrace_mutex: kmemtrace_trace, kmemtrace_running and kmemtrace_buffer_kb; held
 *   across start, stop and the files that read the trace's state.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <uapi/slabtrace/kmemtrace.h>

#include <slabtrace/kmemtrace.h>

struct kmemtrace_trace kmemtrace_trace;
bool kmemtrace_running;

static bool kmemtrace_param_on;
module_param_named(kmemtrace, kmemtrace_param_on, bool, 0400);
MODULE_PARM_DESC(kmemtrace, "Start kmemtrace of every cache at load");
unsigned int kmemtrace_buffer_kb = KMT_BUFFER_KB_DEFAULT;
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

	if (nr > SLAB_TRACE_MAX_CACHES) {
		pr_warn_ratelimited("kmemtrace: at most %d caches, not %d\n",
				    SLAB_TRACE_MAX_CACHES, nr);
		return -E2BIG;
	}
	for (i = 0; i < nr; i++) {
		if (strlen(names[i]) > SLABTRACE_NAME_MAX) {
			pr_warn_ratelimited("kmemtrace: cache name longer than %d bytes\n",
					    SLABTRACE_NAME_MAX);
			ret = -ENAMETOOLONG;
			goto err;
		}
		ret = slabtrace_cache_get(names[i], &t->filter[i]);
		if (ret) {
			pr_warn_ratelimited("kmemtrace: no slab cache named '%*pE'\n",
					    (int)strlen(names[i]), names[i]);
			goto err;
		}
		t->nr_filter++;
		len += scnprintf(t->filter_names + len,
				 sizeof(t->filter_names) - len, " %s",
				 names[i]);
	}
	return 0;
err:
	filter_put(t);
	return ret;
}

/**
 * kmemtrace_start - start a trace
 * @names: the caches to trace; every cache if @nr is 0
 * @nr: their number
 *
 * Called with slabtrace_mutex held.
 *
 * Return: 0; -EBUSY if a trace runs; -ENOENT for an unknown cache;
 * -EPERM under lockdown=confidentiality; -ENOMEM.
 */
int kmemtrace_start(char **names, int nr)
{
	struct kmemtrace_trace *t = &kmemtrace_trace;
	int ret;

	lockdep_assert_held(&slabtrace_mutex);
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
	/* For the cache table's pins; without, ids are by address only. */
	slabtrace_caches_init();
	kmemtrace_slab_calibrate();
	t->call_site_base = (unsigned long)kfree >= SZ_2G ?
			    round_down((unsigned long)kfree, SZ_2G) - SZ_2G : 0;
	t->ptr_base = PAGE_OFFSET;
	ret = kmemtrace_probes_register(t);
	if (ret)
		goto err_filter;
	kmemtrace_running = true;
	pr_info_ratelimited("kmemtrace: started (%s), %u KiB per CPU\n",
			    t->nr_filter ? t->filter_names + 1 : "every cache",
			    kmemtrace_buffer_kb);
	return 0;

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
 * last step).  Called with slabtrace_mutex held.
 *
 * Return: 0.
 */
int kmemtrace_stop(void)
{
	lockdep_assert_held(&slabtrace_mutex);
	if (kmemtrace_running) {
		kmemtrace_probes_unregister(&kmemtrace_trace);
		kmemtrace_running = false;
		pr_info_ratelimited("kmemtrace: stopped\n");
	}
	slabtrace_stream_flush(&kmemtrace_trace.stream);
	return 0;
}

/*
 * The commands on ctl (ctl.c passes what follows "kmemtrace"):
 *   kmemtrace start [CACHE...]   trace every cache, or those named
 *   kmemtrace stop               stop, and close the open packets
 */
int kmemtrace_command(int argc, char **argv)
{
	int ret;

	if (!argc || (strcmp(argv[0], "start") && strcmp(argv[0], "stop"))) {
		pr_warn_ratelimited("ctl: kmemtrace takes start [CACHE...] or stop\n");
		return -EINVAL;
	}
	if (!strcmp(argv[0], "stop") && argc > 1) {
		pr_warn_ratelimited("ctl: kmemtrace stop takes no argument\n");
		return -EINVAL;
	}
	mutex_lock(&slabtrace_mutex);
	if (!strcmp(argv[0], "start"))
		ret = kmemtrace_start(argv + 1, argc - 1);
	else
		ret = kmemtrace_stop();
	mutex_unlock(&slabtrace_mutex);
	return ret;
}

int kmemtrace_init(void)
{
	int ret;

	if (kmemtrace_buffer_kb < KMT_BUFFER_KB_MIN ||
	    kmemtrace_buffer_kb > KMT_BUFFER_KB_MAX || kmemtrace_buffer_kb % 8) {
		pr_warn("kmemtrace_buffer_kb=%u: not a multiple of 8 in %d..%d\n",
			kmemtrace_buffer_kb, KMT_BUFFER_KB_MIN, KMT_BUFFER_KB_MAX);
		return -EINVAL;
	}
	ret = kmemtrace_files_init();
	/*
	 * "enable" exists from here on: a writer may start a trace while the
	 * module is still loading.  The parameter's start finds it running,
	 * and a failure stops whatever runs, before the module goes.
	 */
	if (!ret && kmemtrace_param_on) {
		mutex_lock(&slabtrace_mutex);
		if (!kmemtrace_running)
			ret = kmemtrace_start(NULL, 0);
		mutex_unlock(&slabtrace_mutex);
	}
	if (ret)
		kmemtrace_exit();
	return ret;
}

/* At module exit: the trace stops, then its files and buffers go. */
void kmemtrace_exit(void)
{
	mutex_lock(&slabtrace_mutex);
	kmemtrace_stop();
	filter_put(&kmemtrace_trace);
	kmemtrace_cachetab_reset();
	mutex_unlock(&slabtrace_mutex);
	slabtrace_stream_exit(&kmemtrace_trace.stream);
}
