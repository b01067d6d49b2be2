// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace(8): the module's stats file (one line a subject, "key value"
 * pairs: the records, the pool, and each traced cache with its drops of
 * every kind), and slabtrace status, which says it for people.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const char *kv_get(const struct traced *t, const char *key)
{
	int i;

	for (i = 0; i < t->nkv; i++)
		if (!strcmp(t->kv[i].key, key))
			return t->kv[i].val;
	return NULL;
}

/*
 * Read the stats file into @s.  If it cannot be read, dies with the cause
 * (@die_on_error), else returns false.
 */
bool read_stats(struct stats *s, bool die_on_error)
{
	char path[PATH_MAX], *copy, *line, *save = NULL;

	memset(s, 0, sizeof(*s));
	st_path(path, sizeof(path), "slab/stats");
	s->text = read_all(path);
	if (!s->text) {
		int e = errno;

		if (!die_on_error)
			return false;
		st_check("slab/stats", R_OK);
		die("%s: %s", path, strerror(e));
	}
	/* Read once, cut in a copy: the text stays whole for stats_line(). */
	copy = xstrdup(s->text);
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct traced *t;
		char *w, *k, *p = NULL;

		if (strncmp(line, "cache ", 6))
			continue;
		/* Hundreds of caches after "start all": grown by doubling. */
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 16;
			s->caches = xrealloc(s->caches, s->cap * sizeof(*t));
		}
		t = &s->caches[s->n++];
		memset(t, 0, sizeof(*t));
		w = strtok_r(line + 6, " ", &p);
		snprintf(t->name, sizeof(t->name), "%s", w ? w : "?");
		w = strtok_r(NULL, " ", &p);
		t->tracing = w && !strcmp(w, "tracing");
		while ((k = strtok_r(NULL, " ", &p)) && t->nkv < 32) {
			w = strtok_r(NULL, " ", &p);
			if (!w)
				break;
			snprintf(t->kv[t->nkv].key, sizeof(t->kv[0].key), "%s", k);
			snprintf(t->kv[t->nkv].val, sizeof(t->kv[0].val), "%s", w);
			t->nkv++;
		}
	}
	free(copy);
	return true;
}

void stats_free(struct stats *s)
{
	free(s->text);
	free(s->caches);
}

/*
 * The traced cache that is @name, by any of its names; NULL if none.  The
 * stats file writes names escaped (kernel_escape()): @name as it is
 * written there, or the same cache by another name.
 */
const struct traced *stats_find(const struct stats *s, const char *name)
{
	char want[PATH_MAX], id[PATH_MAX], as_written[sizeof(s->caches->name)];
	int i;

	kernel_escape(name, as_written, sizeof(as_written));
	cache_identity(name, want, sizeof(want));
	for (i = 0; i < s->n; i++) {
		if (!strcmp(s->caches[i].name, as_written))
			return &s->caches[i];
		cache_identity(s->caches[i].name, id, sizeof(id));
		if (!strcmp(id, want))
			return &s->caches[i];
	}
	return NULL;
}

/* The line of @text that starts with "@head ", or "". */
const char *stats_line(const char *text, const char *head)
{
	size_t hl = strlen(head);
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, head, hl) && p[hl] == ' ')
			return p;
	return "";
}

/*
 * The caches as the stats file has them (a module without the status
 * file).
 */
static void status_of_stats(struct stats *s)
{
	int i, j;

	if (!s->n)
		printf("caches: none traced\n");
	for (i = 0; i < s->n; i++) {
		struct traced *t = &s->caches[i];
		bool any = false;

		printf("cache ");
		put_escaped(stdout, t->name);
		printf(": %s, %s records", t->tracing ? "tracing" : "stopped",
		       kv_get(t, "records") ?: "?");
		printf(", %s replaced; drops:", kv_get(t, "replaced") ?: "?");
		for (j = 0; j < t->nkv; j++) {
			const char *k = t->kv[j].key;

			if (!strcmp(k, "records") || !strcmp(k, "replaced") ||
			    !strcmp(k, "filtered"))
				continue;
			if (!strcmp(t->kv[j].val, "0"))
				continue;
			printf("%s %s %s", any ? "," : "", k, t->kv[j].val);
			any = true;
		}
		printf("%s", any ? "" : " none");
		if (kv_get(t, "filtered") && strcmp(kv_get(t, "filtered"), "0"))
			printf("; filtered out %s", kv_get(t, "filtered"));
		putchar('\n');
	}
}

int cmd_status(void)
{
	unsigned long records = 0, limit = 0, pfree = 0, per_cpu = 0;
	char path[PATH_MAX], alloc[8] = "?", freep[8] = "?";
	char *kpt, *text, *line, *save = NULL, *kstate = NULL;
	struct stats s;

	read_stats(&s, true);
	if (sscanf(stats_line(s.text, "records"), "records %lu limit %lu",
		   &records, &limit) != 2 ||
	    sscanf(stats_line(s.text, "pool"), "pool free %lu per_cpu %lu",
		   &pfree, &per_cpu) != 2 ||
	    sscanf(stats_line(s.text, "probes"), "probes alloc %7s free %7s",
		   alloc, freep) != 2)
		die("%s/slab/stats: not the stats of this version of slabtrace", st_root());
	/*
	 * The module's status file says it for people (traced since when,
	 * drops by kind): shown as it is, but for its hint and kptrace line,
	 * which are said below with more.
	 */
	st_path(path, sizeof(path), "status");
	text = read_all(path);
	if (text) {
		for (line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (!strncmp(line, "kptrace: ", 9))
				kstate = xstrdup(line + 9);
			else if (strncmp(line, "next: ", 6))
				printf("%s\n", escaped(line));
		}
		free(text);
	} else {
		printf("probes: alloc %s, free %s; records: %lu (limit %lu)\n",
		       alloc, freep, records, limit);
		status_of_stats(&s);
	}
	printf("pool: %lu free, %lu per CPU\n", pfree, per_cpu);
	st_path(path, sizeof(path), "kptrace/stats");
	kpt = read_all(path);
	if (kpt) {
		char *w = strstr(kpt, "written: "), *dr = strstr(kpt, "dropped: ");
		char *q = strstr(kpt, "queued: ");

		printf("kptrace: ");
		if (kstate)
			printf("%s, ", escaped(kstate));
		printf("%lu calls written, %lu dropped, %lu bytes queued\n",
		       w ? strtoul(w + 9, NULL, 10) : 0,
		       dr ? strtoul(dr + 9, NULL, 10) : 0,
		       q ? strtoul(q + 8, NULL, 10) : 0);
		free(kpt);
	} else if (kstate) {
		/* Its counts unreadable: the module's line alone. */
		printf("kptrace: %s\n", escaped(kstate));
	}
	if (s.n)
		printf("next: %s, %s\n", "slabtrace top (the stacks holding most)",
		       "slabtrace leaks (all of them)");
	else
		printf("next: %s; %s\n", "slabtrace growth finds a growing cache",
		       "slabtrace record -c CACHE -- COMMAND traces it");
	free(kstate);
	stats_free(&s);
	return 0;
}
