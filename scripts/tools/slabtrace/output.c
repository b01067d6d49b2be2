// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace(8): a parsed dump (../lib/dump.h) as the commands write it:
 * a table of stacks (top, report) or every stack with its backtrace
 * (leaks); JSON in the one schema of slabtrace(8), JSON OUTPUT; folded
 * stacks as the module's folded files write them; a pprof profile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lib/pprof.h"
#include "cli.h"

/* A group's contexts named in full; the others are counted. */
#define SHOWN_CONTEXTS 4

static void print_ms(long ms)
{
	printf("%ld.%03lds", ms / 1000, ms % 1000);
}

static void group_print(const struct group *g, int rank, bool full)
{
	char fn[FRAME_FUNC_SIZE];
	int i;

	printf("%4d %8ld %10ld %10ld  ", rank, g->objects, g->bytes,
	       g->requested);
	print_ms(g->age_max);
	printf("  %-7s  ", verdict_name(g->verdict));
	if (!full) {
		for (i = 0; i < g->nframes && i < 3; i++) {
			frame_func(g->frames[i], fn, sizeof(fn));
			printf("%s", i ? " < " : "");
			put_escaped(stdout, fn);
		}
		putchar('\n');
		return;
	}
	printf("from ");
	for (i = 0; i < g->nctx && i < SHOWN_CONTEXTS; i++) {
		printf("%s", i ? ", " : "");
		put_escaped(stdout, g->ctx[i].who);
	}
	if (g->nctx > SHOWN_CONTEXTS)
		printf(" and %d more", g->nctx - SHOWN_CONTEXTS);
	if (g->syscall) {
		printf(" in syscall ");
		put_escaped(stdout, g->syscall);
	}
	printf(", age min/avg/max ");
	print_ms(g->age_min);
	putchar('/');
	print_ms(g->age_sum / g->objects);
	putchar('/');
	print_ms(g->age_max);
	putchar('\n');
	if (g->evidence)
		printf("       %s\n", g->evidence);
	for (i = 0; i < g->nframes; i++) {
		printf("       #%02d ", i + 1);
		put_escaped(stdout, g->frames[i]);
		putchar('\n');
	}
	if (!g->nframes)
		printf("       (backtrace not saved)\n");
	putchar('\n');
}

/* Shows the first @top groups (all if @top < 0). */
void dump_print(const struct dump *d, long top, bool full)
{
	int i;

	put_escaped(stdout, d->cache);
	printf(": %ld outstanding objects (%ld bytes), traced %.3fs, %ld records dropped",
	       d->outstanding, d->bytes, d->traced, d->dropped);
	if (d->objects != d->outstanding)
		printf("; %ld objects (%ld bytes) pass the filters",
		       d->objects, d->obj_bytes);
	printf("; %d stacks\n", d->ng);
	if (d->judged)
		printf("verdicts of its stacks: %ld leak, %ld live, %ld kept, %ld unknown\n",
		       d->verdicts[VERDICT_LEAK], d->verdicts[VERDICT_LIVE],
		       d->verdicts[VERDICT_KEPT], d->verdicts[VERDICT_UNKNOWN]);
	if (d->sample > 1)
		printf("sampled 1 in %ld: ", dump_weight(d));
	else if (d->sample_bytes)
		printf("sampled 1 per %ld bytes: ", d->sample_bytes);
	if (dump_sampled(d))
		printf("estimated %ld outstanding objects (%ld bytes);%s\n",
		       dump_est(d->est_objects), dump_est(d->est_bytes),
		       " the counts below are of records");
	if (!d->ng)
		return;
	printf("%4s %8s %10s %10s  %-7s  %-7s  %s\n", "#", "objects", "bytes",
	       "requested", "age max", "verdict", full ?
	       "who, ages, evidence, backtrace" : "allocated in (innermost first)");
	for (i = 0; i < d->ng && (top < 0 || i < top); i++)
		group_print(&d->g[i], i + 1, full);
}

/*
 * The JSON document being written, in memory: standard output gets it
 * whole at json_end(), or nothing if a print fails before (a reader of
 * "top -i --json" lines never gets a cut one).
 */
static FILE *json;
static char *json_text;
static size_t json_len;

/*
 * A JSON document (slabtrace(8), JSON OUTPUT) starts; @report is its
 * number with -i, 0 without.
 */
void json_begin(long report)
{
	struct timespec ts;

	json = open_memstream(&json_text, &json_len);
	if (!json)
		die("out of memory");
	fprintf(json, "{\"version\": %d", JSON_VERSION);
	if (report) {
		clock_gettime(CLOCK_REALTIME, &ts);
		fprintf(json, ", \"report\": %ld, \"time\": %lld.%03ld", report,
			(long long)ts.tv_sec, ts.tv_nsec / 1000000);
	}
	fprintf(json, ", \"caches\": [");
}

void json_end(void)
{
	fprintf(json, "]}\n");
	if (fclose(json))
		die("out of memory");
	json = NULL;
	fwrite(json_text, 1, json_len, stdout);
	free(json_text);
}

/* One element of "frames": function, module, the frame as written. */
static void frame_json(const char *frame)
{
	char fn[FRAME_FN_SIZE], mod[FRAME_MOD_SIZE];

	frame_split(frame, fn, sizeof(fn), mod, sizeof(mod));
	fprintf(json, "{\"function\": ");
	put_json_string(json, fn);
	fprintf(json, ", \"module\": ");
	if (mod[0])
		put_json_string(json, mod);
	else
		fprintf(json, "null");
	fprintf(json, ", \"text\": ");
	put_json_string(json, frame);
	fputc('}', json);
}

/*
 * The cache's element of "caches" (slabtrace(8), JSON OUTPUT), on the
 * line it is on, after a comma unless it is the @first: the first @top
 * groups (all if @top < 0).
 */
void dump_json(const struct dump *d, long top, bool first)
{
	int i, j;

	fprintf(json, "%s{\"cache\": ", first ? "" : ", ");
	put_json_string(json, d->cache);
	fprintf(json, ", \"traced_s\": %.3f, \"outstanding\": %ld, \"bytes\": %ld",
		d->traced, d->outstanding, d->bytes);
	fprintf(json, ", \"dropped\": %ld, \"matched_objects\": %ld", d->dropped,
		d->objects);
	fprintf(json, ", \"matched_bytes\": %ld, \"sample_every\": %ld", d->obj_bytes,
		dump_weight(d));
	fprintf(json, ", \"sample_bytes\": %ld", d->sample_bytes);
	fprintf(json, ", \"estimated_objects\": %ld, \"estimated_bytes\": %ld",
		dump_est(d->est_objects), dump_est(d->est_bytes));
	fprintf(json, ", \"verdicts\": ");
	if (d->judged)
		fprintf(json, "{\"leak\": %ld, \"live\": %ld, \"kept\": %ld, \"unknown\": %ld}",
			d->verdicts[VERDICT_LEAK], d->verdicts[VERDICT_LIVE],
			d->verdicts[VERDICT_KEPT], d->verdicts[VERDICT_UNKNOWN]);
	else
		fprintf(json, "null");
	fprintf(json, ", \"stacks\": [");
	for (i = 0; i < d->ng && (top < 0 || i < top); i++) {
		const struct group *g = &d->g[i];

		fprintf(json, "%s{\"rank\": %d, \"objects\": %ld", i ? ", " : "",
			i + 1, g->objects);
		fprintf(json, ", \"bytes\": %ld, \"requested\": %ld", g->bytes,
			g->requested);
		fprintf(json, ", \"estimated_objects\": %ld, \"estimated_bytes\": %ld",
			dump_est(g->est_objects), dump_est(g->est_bytes));
		fprintf(json, ", \"age_min_ms\": %ld, \"age_avg_ms\": %ld", g->age_min,
			g->age_sum / g->objects);
		fprintf(json, ", \"age_max_ms\": %ld, \"syscall\": ", g->age_max);
		if (g->syscall)
			put_json_string(json, g->syscall);
		else
			fprintf(json, "null");
		fprintf(json, ", \"contexts\": [");
		for (j = 0; j < g->nctx && j < SHOWN_CONTEXTS; j++) {
			fprintf(json, "%s{\"context\": ", j ? ", " : "");
			put_json_string(json, g->ctx[j].who);
			fprintf(json, ", \"pid\": %ld}", g->ctx[j].pid);
		}
		fprintf(json, "], \"more_contexts\": %d, \"gfp\": [",
			g->nctx > SHOWN_CONTEXTS ? g->nctx - SHOWN_CONTEXTS : 0);
		for (j = 0; j < g->ngfp; j++) {
			fprintf(json, "%s", j ? ", " : "");
			put_json_string(json, g->gfp[j]);
		}
		fprintf(json, "], \"nodes\": [");
		for (j = 0; j < g->nnode; j++)
			fprintf(json, "%s%ld", j ? ", " : "", g->node[j]);
		fprintf(json, "], \"verdict\": ");
		if (g->verdict)
			put_json_string(json, verdict_name(g->verdict));
		else
			fprintf(json, "null");
		fprintf(json, ", \"evidence\": ");
		if (g->evidence)
			put_json_string(json, g->evidence);
		else
			fprintf(json, "null");
		fprintf(json, ", \"frames\": [");
		for (j = 0; j < g->nframes; j++) {
			fprintf(json, "%s", j ? ", " : "");
			frame_json(g->frames[j]);
		}
		fprintf(json, "]}");
	}
	fprintf(json, "]}");
}

/*
 * A frame of a folded stack: as put_escaped() writes a name (a byte that
 * is not printable ASCII as \xNN: a saved dump may hold any), ';' as ':'.
 */
static void put_frame(const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c >= 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c == ';' ? ':' : c);
	}
}

/*
 * The root frame of a system call the dump names "write", "compat write",
 * or by number, "451" or "451 (compat)": "syscall:write",
 * "syscall:compat_write", "syscall:451", "syscall:compat_451".
 */
static void put_syscall_frame(const char *sys)
{
	size_t len = strlen(sys), tail = strlen(" (compat)");
	char nr[64];

	fputs("syscall:", stdout);
	if (!strncmp(sys, "compat ", 7)) {
		fputs("compat_", stdout);
		put_frame(sys + 7);
	} else if (len > tail && !strcmp(sys + len - tail, " (compat)")) {
		snprintf(nr, sizeof(nr), "%.*s", (int)(len - tail), sys);
		fputs("compat_", stdout);
		put_frame(nr);
	} else {
		put_frame(sys);
	}
}

/*
 * The groups as folded stacks, in the format of the module's folded (by
 * objects) and folded_bytes (@by_bytes) files: the system call as the root
 * frame ("syscall:write", "syscall:compat_write", "syscall:compat_451"),
 * then the frames from
 * the outermost in, without their offsets, ';' in a name as ':', the
 * dump's escapes as they are and a raw byte that is not printable ASCII
 * as \xNN (the module's files, and record's CACHE.folded saved from them,
 * escape names as the dump does: the same lines);
 * "[unknown]" for a group without backtrace; a stack judged a leak ends
 * with the pseudo-frame "[leak]", which slabtrace-flamegraph colours.  In
 * the print of a word (@cache_frame), the cache's name comes first, as the
 * module writes it there, so that a flame graph's root splits by cache.
 */
void dump_folded(const struct dump *d, bool by_bytes, bool cache_frame)
{
	char fn[FRAME_FUNC_SIZE];
	int i, j;

	for (i = 0; i < d->ng; i++) {
		const struct group *g = &d->g[i];

		if (cache_frame) {
			put_frame(d->cache);
			putchar(';');
		}
		if (g->syscall) {
			put_syscall_frame(g->syscall);
			putchar(';');
		}
		if (!g->nframes)
			fputs("[unknown]", stdout);
		for (j = g->nframes - 1; j >= 0; j--) {
			frame_func(g->frames[j], fn, sizeof(fn));
			put_frame(fn);
			if (j)
				putchar(';');
		}
		if (g->verdict == VERDICT_LEAK)
			fputs(";[leak]", stdout);
		/* Sampled: estimated totals, as the module's files give them. */
		printf(" %ld\n", dump_est(by_bytes ? g->est_bytes : g->est_objects));
	}
}

static const char *const inuse_types[][2] = {
	{ "inuse_objects", "count" },
	{ "inuse_space", "bytes" },
};

/* A profile of outstanding objects and bytes, for dump_pprof_add(). */
struct pprof *dump_pprof_new(void)
{
	return pprof_new(inuse_types, 2);
}

static struct pprof_label label(const char *key, const char *str)
{
	return (struct pprof_label){ .key = key, .str = str };
}

/*
 * The groups of @d that passed the filters, as samples: one for each
 * context of each group, with its objects and bytes (estimated totals if
 * @d was sampled), labelled with the cache, the context, the system call
 * and the module's verdict (go tool pprof -tagfocus verdict=leak).
 */
void dump_pprof_add(struct pprof *p, const struct dump *d)
{
	struct pprof_label labels[4];
	char *line, filtered[96];
	int i, j;

	snprintf(filtered, sizeof(filtered), "%ld objects (%ld bytes) pass the filters%s",
		 d->objects, d->obj_bytes,
		 dump_sampled(d) ? "; sampled: the values are estimates" : "");

	if (asprintf(&line, "%s: traced %.3fs, %ld objects (%ld bytes), %ld records dropped; %s",
		     d->cache, d->traced, d->outstanding, d->bytes, d->dropped,
		     filtered) < 0)
		die("out of memory");
	pprof_comment(p, line);
	free(line);
	for (i = 0; i < d->ng; i++) {
		const struct group *g = &d->g[i];

		for (j = 0; j < g->nctx; j++) {
			/* Sampled: estimated, as the comment says. */
			long long v[2] = { dump_est(g->ctx[j].est_objects),
					   dump_est(g->ctx[j].est_bytes) };
			int n = 0;

			labels[n++] = label("cache", d->cache);
			labels[n++] = label("context", g->ctx[j].who);
			if (g->syscall)
				labels[n++] = label("syscall", g->syscall);
			if (g->verdict)
				labels[n++] = label("verdict", verdict_name(g->verdict));
			pprof_add(p, g->frames, g->nframes, v, labels, n);
		}
	}
}

/*
 * Write @p to @path (captured at @time, over @duration s): 0, or -1 if it
 * could not, said.
 */
int dump_pprof_write(struct pprof *p, const char *path, double time,
		     double duration)
{
	if (pprof_write(p, path, time, duration)) {
		note("%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
