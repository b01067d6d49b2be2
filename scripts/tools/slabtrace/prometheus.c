// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace growth --prometheus FILE: each sample of /proc/slabinfo, and
 * slabtrace's own counters (its stats file, when the module is loaded),
 * in Prometheus' text exposition format, for node_exporter's textfile
 * collector.  FILE is replaced whole each time (a temporary file beside
 * it, then rename()), so a reader never sees half of one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli.h"

/* "# HELP" and "# TYPE" of the metric family @name. */
static void family(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value: backslash, double quote and newline escaped. */
static void put_label(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/*
 * The family @name of every cache of @s: its objects, or (@bytes) bytes.
 * A cache's name as the stats file writes it (kernel_escape()): a name of
 * /proc/slabinfo may hold any byte, and a label value is UTF-8.
 */
static void slab_family(FILE *f, const struct slabs *s, const char *name,
			const char *help, bool bytes)
{
	char cache[1024];
	int i;

	family(f, name, "gauge", help);
	for (i = 0; i < s->n; i++) {
		const struct slab *sl = &s->v[i];

		if (!sl->seen)
			continue;
		kernel_escape(sl->name, cache, sizeof(cache));
		fprintf(f, "%s{cache=", name);
		put_label(f, cache);
		fprintf(f, "} %ld\n", bytes ? sl->bytes[1] : sl->active[1]);
	}
}

static void slab_metrics(FILE *f, const struct slabs *s)
{
	slab_family(f, s, "slabtrace_slab_objects",
		    "Objects allocated from the slab cache (active_objs of /proc/slabinfo).",
		    false);
	slab_family(f, s, "slabtrace_slab_bytes",
		    "Bytes of those objects: their number times the object size.",
		    true);
}

/* The value of "@head @key VALUE ..." in the stats @text; -1 if none. */
static long stats_value(const char *text, const char *head, const char *key)
{
	const char *line = stats_line(text, head), *p;
	size_t kl = strlen(key);

	for (p = strchr(line, ' '); p && *p && *p != '\n'; p = strchr(p + 1, ' '))
		if (!strncmp(p + 1, key, kl) && p[1 + kl] == ' ')
			return atol(p + 2 + kl);
	return -1;
}

/* One sample of a cache's family: name{cache="NAME"[,kind="KIND"]} VALUE. */
static void cache_sample(FILE *f, const char *metric, const char *cache,
			 const char *kind, const char *value)
{
	fprintf(f, "%s{cache=", metric);
	put_label(f, cache);
	if (kind) {
		fputs(",kind=", f);
		put_label(f, kind);
	}
	fprintf(f, "} %s\n", value);
}

/*
 * The kinds of the stats file's counters of a cache (slab/stats): those
 * whose allocation got no record at all; the others (stack_store_full,
 * stack_walk_empty, stack_truncated) are kept, only without a backtrace
 * or its outermost frames; and "own",
 * slabtrace's own allocations, which it never records.
 */
static const char *const lost_kinds[] = { "pool_empty", "limit_reached", "in_NMI" };

static bool is_lost(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lost_kinds); i++)
		if (!strcmp(key, lost_kinds[i]))
			return true;
	return false;
}

/* A counter of the stats file's cache lines that is none of the others. */
static bool is_detail(const char *key)
{
	return strcmp(key, "records") && strcmp(key, "replaced") &&
	       strcmp(key, "filtered") && strcmp(key, "own") && !is_lost(key);
}

/* The family @name: every cache's counters whose key @pick takes, by kind. */
static void kind_family(FILE *f, const struct stats *st, const char *name,
			const char *help, bool (*pick)(const char *key))
{
	int i, j;

	family(f, name, "counter", help);
	for (i = 0; i < st->n; i++) {
		const struct traced *t = &st->caches[i];

		for (j = 0; j < t->nkv; j++)
			if (pick(t->kv[j].key))
				cache_sample(f, name, t->name, t->kv[j].key, t->kv[j].val);
	}
}

/* The family @name: one counter of every cache, @key of its stats line. */
static void key_family(FILE *f, const struct stats *st, const char *name,
		       const char *type, const char *help, const char *key)
{
	int i;

	family(f, name, type, help);
	for (i = 0; i < st->n; i++)
		cache_sample(f, name, st->caches[i].name, NULL,
			     kv_get(&st->caches[i], key) ?: "0");
}

static void cache_metrics(FILE *f, const struct stats *st)
{
	int i;

	family(f, "slabtrace_cache_tracing", "gauge",
	       "1 while slabtrace traces the cache; 0 when stopped, its records kept.");
	for (i = 0; i < st->n; i++)
		cache_sample(f, "slabtrace_cache_tracing", st->caches[i].name,
			     NULL, st->caches[i].tracing ? "1" : "0");
	key_family(f, st, "slabtrace_cache_records", "gauge",
		   "Records of the cache's objects not freed yet.", "records");
	key_family(f, st, "slabtrace_cache_replaced_total", "counter",
		   "Records dropped because their address was allocated again unseen (a free without tracepoint).",
		   "replaced");
	kind_family(f, st, "slabtrace_cache_drops_total",
		    "Allocations slabtrace could not record, by reason.", is_lost);
	kind_family(f, st, "slabtrace_cache_incomplete_total",
		    "Allocations recorded without a detail, by reason: no backtrace (stack_store_full, stack_walk_empty), its outermost frames cut (stack_truncated).",
		    is_detail);
	key_family(f, st, "slabtrace_cache_own_total", "counter",
		   "slabtrace's own allocations from the cache, which it never records.",
		   "own");
	key_family(f, st, "slabtrace_cache_filtered_total", "counter",
		   "Allocations the cache's filter (start CACHE pid|comm|cgroup) left out.",
		   "filtered");
}

/* A metric of one value, if @value is known (not -1). */
static void single(FILE *f, const char *name, const char *type,
		   const char *help, long value)
{
	if (value < 0)
		return;
	family(f, name, type, help);
	fprintf(f, "%s %ld\n", name, value);
}

static void module_metrics(FILE *f, const struct slabs *s)
{
	long records = -1, held = -1, snapshots, written = -1, dropped = -1;
	char path[PATH_MAX], *kpt;
	struct stats st;
	int i;

	if (!read_stats(&st, false)) {
		single(f, "slabtrace_up", "gauge",
		       "1 if slabtrace's stats file could be read (the module is loaded), else 0.",
		       0);
		return;
	}
	single(f, "slabtrace_up", "gauge",
	       "1 if slabtrace's stats file could be read (the module is loaded), else 0.",
	       1);
	if (sscanf(stats_line(st.text, "records"), "records %ld", &held) != 1)
		held = -1;
	single(f, "slabtrace_records", "gauge",
	       "Records held: traced objects not freed yet, every cache.", held);
	single(f, "slabtrace_records_limit", "gauge",
	       "The most records slabtrace holds (limit N).",
	       stats_value(st.text, "records", "limit"));
	single(f, "slabtrace_pool_free_records", "gauge",
	       "Records preallocated for the probes, unused.",
	       stats_value(st.text, "pool", "free"));
	for (i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, "slabtrace_record") && s->v[i].seen)
			records = s->v[i].bytes[1];
	snapshots = stats_value(st.text, "snapshots", "bytes");
	if (records >= 0 || snapshots >= 0)
		family(f, "slabtrace_memory_bytes", "gauge",
		       "Memory slabtrace holds: records (its slabtrace_record cache, the pool's included), snapshots (prints kept for reading).");
	if (records >= 0)
		fprintf(f, "slabtrace_memory_bytes{part=\"records\"} %ld\n", records);
	if (snapshots >= 0)
		fprintf(f, "slabtrace_memory_bytes{part=\"snapshots\"} %ld\n", snapshots);
	cache_metrics(f, &st);
	stats_free(&st);
	st_path(path, sizeof(path), "kptrace/stats");
	kpt = read_all(path);
	if (kpt) {
		char *w = strstr(kpt, "written: "), *d = strstr(kpt, "dropped: ");

		written = w ? atol(w + 9) : -1;
		dropped = d ? atol(d + 9) : -1;
		free(kpt);
	}
	single(f, "slabtrace_kptrace_written_total", "counter",
	       "System calls kptrace wrote to its queue.", written);
	single(f, "slabtrace_kptrace_dropped_total", "counter",
	       "System calls kptrace dropped (queue full).", dropped);
}

/* @file could not be written (@err): said; false. */
static bool failed(const char *file, int err)
{
	note("%s: %s", file, strerror(err));
	return false;
}

/*
 * Replace @path with the metrics of the sample @s; false, said, if it
 * cannot.
 */
bool prometheus_write(const char *path, const struct slabs *s)
{
	char tmp[PATH_MAX];
	bool bad;
	FILE *f;
	int fd;

	/*
	 * A name of mkstemp()'s, made with O_EXCL: root writes it, in a
	 * directory others may write to (a node_exporter textfile
	 * directory), where a name known in advance could be a link.
	 */
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= sizeof(tmp))
		return failed(path, ENAMETOOLONG);
	fd = mkstemp(tmp);
	if (fd < 0)
		return failed(tmp, errno);
	/* node_exporter reads it as another user. */
	f = fchmod(fd, 0644) ? NULL : fdopen(fd, "w");
	if (!f) {
		int e = errno;

		close(fd);
		unlink(tmp);
		return failed(tmp, e);
	}
	slab_metrics(f, s);
	module_metrics(f, s);
	bad = ferror(f);
	if (fclose(f))
		bad = true;
	if (bad) {
		int e = errno ? errno : EIO;

		unlink(tmp);
		return failed(tmp, e);
	}
	if (rename(tmp, path)) {
		int e = errno;

		unlink(tmp);
		return failed(path, e);
	}
	return true;
}
