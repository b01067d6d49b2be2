// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: the state for people, the "help" command, and the name meant
 * when a cache name is unknown.
 *
 * status (0400) says what is traced, for how long, its records and drops,
 * whether the probes and kptrace are on, what the binary streams hold,
 * and what to do next; reading ctl before the session's first "print" shows
 * the same, after a line saying there is no snapshot yet (dump.c):
 *
 *   slabtrace: 1 cache traced or holding records, 7 records (limit 330170), probes attached
 *   cache kmalloc-64: tracing, traced 1.234s, 7 records, drops: none
 *   kptrace: off
 *   next: echo print kmalloc-64 > ctl; cat ctl (its outstanding objects); echo
 *   help > ctl: the commands, in dmesg                            (one line)
 *
 * The stats file (stats.c) has the same and more, made for scripts.
 *
 * Notes on locking
 * ----------------
 * - slabtrace_mutex, held while the set is walked, and by the callers of
 *   slabtrace_name_hint(); the counters are atomic and read without lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/seq_file.h>
#include <linux/timekeeping.h>

#include <slabtrace/ctf.h>
#include <slabtrace/files.h>
#include <slabtrace/kptrace.h>
#include <slabtrace/slabtrace.h>

/* What "help" logs: the commands of ctl (ctl.c parses them). */
static const char *const help_lines[] = {
	"commands (echo COMMAND > /proc/slabtrace/ctl):",
	"  start CACHE        record every allocation from CACHE (a /proc/slabinfo name)",
	"  stop CACHE         record no new ones; frees still drop records",
	"  print CACHE [stacks] [top N] [older-than MS] [since-mark]",
	"                     snapshot the outstanding objects; then cat ctl, stacks, folded",
	"  mark CACHE         set the epoch of print ... since-mark",
	"  reset CACHE        drop CACHE's records and snapshots",
	"  pool N | limit N   records ready per CPU | records kept, all caches",
	"  syscall start|stop|clear ...       kptrace, the system call trace",
	"  kmemtrace start [CACHE...] | kmemtrace stop   the binary alloc/free trace",
	"  help               these lines",
	"state: cat status; the reason for a failed command is logged here",
};

/**
 * slabtrace_help - the "help" command: log the commands
 *
 * Return: 0.
 */
int slabtrace_help(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(help_lines); i++)
		pr_info("%s\n", help_lines[i]);
	return 0;
}

/**
 * slabtrace_name_hint - the name meant by an unknown cache name
 * @name: the name that is no cache
 * @buf: where the name meant goes
 * @size: its size
 *
 * kmalloc caches of 1024 bytes and more are named in kilobytes:
 * "kmalloc-8192" is "kmalloc-8k" (also "kmalloc-cg-8192", "dma-kmalloc-...").
 *
 * Called with slabtrace_mutex held (slabtrace_cache_get()).
 *
 * Return: whether a cache of the name meant exists, in @buf.
 */
bool slabtrace_name_hint(const char *name, char *buf, size_t size)
{
	struct slabtrace_cache_ref ref;
	const char *dash = strrchr(name, '-');
	unsigned int n;

	lockdep_assert_held(&slabtrace_mutex);
	if (!dash || kstrtouint(dash + 1, 10, &n) || n < 1024 || n % 1024)
		return false;
	if (snprintf(buf, size, "%.*s-%uk", (int)(dash - name), name,
		     n / 1024) >= size)
		return false;
	if (slabtrace_cache_get(buf, &ref))
		return false;
	slabtrace_cache_put(&ref);
	return true;
}

static void show_secs(struct seq_file *m, u64 ns)
{
	u32 ms;
	u64 s = div_u64_rem(div_u64(ns, NSEC_PER_MSEC), MSEC_PER_SEC, &ms);

	seq_printf(m, "%llu.%03us", s, ms);
}

/* "cache NAME: tracing, traced 1.234s, 7 records, drops: none". */
static void show_cache(struct seq_file *m, struct slab_trace_traced *tr,
		       u64 now)
{
	bool any = false;
	long n;
	int i;

	seq_puts(m, "cache ");
	slabtrace_seq_name(m, tr->name, sizeof(tr->name));
	seq_printf(m, ": %s, traced ", tr->tracing ? "tracing" : "stopped");
	show_secs(m, slab_trace_traced_time(tr, now));
	n = slab_trace_traced_count(tr);
	seq_printf(m, ", %ld record%s", n, n == 1 ? "" : "s");
	n = atomic_long_read(&tr->replaced);
	if (n)
		seq_printf(m, ", %ld replaced", n);
	for (i = 0; i < SLAB_TRACE_DROP_MAX; i++) {
		n = atomic_long_read(&tr->drops[i]);
		if (!n)
			continue;
		seq_printf(m, "%s%s %ld", any ? ", " : ", drops: ",
			   slab_trace_drop_names[i], n);
		any = true;
	}
	seq_puts(m, any ? "\n" : ", drops: none\n");
}

/**
 * slabtrace_status_show - the state, for people
 * @m: where
 *
 * Takes slabtrace_mutex.
 */
void slabtrace_status_show(struct seq_file *m)
{
	struct slab_trace_traced *first = NULL;
	u64 now = ktime_get_mono_fast_ns();
	struct slab_trace_set *set;
	bool alloc, free;
	unsigned int i, nr;

	slab_trace_probes_state(&alloc, &free);
	mutex_lock(&slabtrace_mutex);
	set = rcu_dereference_protected(slab_trace_active,
					lockdep_is_held(&slabtrace_mutex));
	nr = set ? set->nr : 0;
	seq_printf(m, "slabtrace: %u cache%s traced or holding records, %ld records (limit %lu), probes %s\n",
		   nr, nr == 1 ? "" : "s",
		   slab_trace_table_count(&slab_trace_records),
		   READ_ONCE(slab_trace_record_limit),
		   alloc || free ? "attached" : "detached");
	for (i = 0; i < nr; i++) {
		show_cache(m, set->traced[i], now);
		if (!first || (set->traced[i]->tracing && !first->tracing))
			first = set->traced[i];
	}
	kptrace_show_state(m);
	slabtrace_streams_status(m);
	if (first) {
		seq_puts(m, "next: echo print ");
		slabtrace_seq_name(m, first->name, sizeof(first->name));
		seq_puts(m, " > ctl; cat ctl (its outstanding objects)");
	} else {
		seq_puts(m, "next: echo start CACHE > ctl (a name from /proc/slabinfo)");
	}
	mutex_unlock(&slabtrace_mutex);
	seq_puts(m, "; echo help > ctl: the commands, in dmesg\n");
}

static int status_show(struct seq_file *m, void *v)
{
	slabtrace_status_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(status);

static struct slabtrace_file status_file = {
	.name = "status",
	.mode = 0400,
	.fops = &status_fops,
};

int slabtrace_status_init(void)
{
	return slabtrace_files_add("", &status_file, 1);
}
