// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace(8): slabtrace growth, which caches grew, from /proc/slabinfo
 * sampled around a command or every few seconds; the names merged with
 * each cache from /sys/kernel/slab's links.  With --prometheus, each
 * sample's figures also go to a file for node_exporter (prometheus.c).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static struct slab *slab_find(struct slabs *s, const char *name)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return &s->v[i];
	return NULL;
}

/* One sample of /proc/slabinfo; @first: the first of the series. */
static void slab_sample(struct slabs *s, bool first)
{
	char path[PATH_MAX], *text, *line, *save = NULL;
	int i;

	snprintf(path, sizeof(path), "%s/slabinfo", st_procfs());
	text = read_all(path);
	if (!text) {
		if (errno == EACCES || errno == EPERM)
			die("needs root: %s is root's only (run it with sudo)", path);
		die("%s: %s (a kernel without slab statistics?)", path,
		    strerror(errno));
	}
	for (i = 0; i < s->n; i++)
		s->v[i].seen = false;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[128];
		long active, num, size;
		struct slab *sl;

		if (!strncmp(line, "slabinfo", 8) || line[0] == '#')
			continue;
		if (sscanf(line, "%127s %ld %ld %ld", name, &active, &num,
			   &size) != 4) {
			free(text);
			die("%s: cannot read the line '%.60s'", path, line);
		}
		sl = slab_find(s, name);
		if (!sl) {
			s->v = xrealloc(s->v, (s->n + 1) * sizeof(*sl));
			sl = &s->v[s->n++];
			memset(sl, 0, sizeof(*sl));
			snprintf(sl->name, sizeof(sl->name), "%s", name);
			sl->active[0] = first ? active : 0;
			sl->active[1] = sl->active[0];
		}
		if (active < sl->active[1])
			sl->shrank = true;
		sl->active[1] = active;
		sl->objsize = size;
		sl->seen = true;
	}
	free(text);
	/* A cache destroyed since: it shrank to nothing. */
	for (i = 0; i < s->n; i++) {
		if (!s->v[i].seen) {
			if (s->v[i].active[1])
				s->v[i].shrank = true;
			s->v[i].active[1] = 0;
		}
	}
}

/* The names merged with each cache: the symlinks of /sys/kernel/slab. */
void slab_aliases(struct slabs *s)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], target[PATH_MAX];
	char (*tgt)[128];
	struct dirent *de;
	DIR *d;
	int i;

	slab_dir(dir, sizeof(dir), "");
	tgt = xmalloc(s->n * sizeof(*tgt));
	for (i = 0; i < s->n; i++) {
		ssize_t n;

		snprintf(path, sizeof(path), "%s/%s", dir, s->v[i].name);
		n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = 0;
		snprintf(tgt[i], sizeof(tgt[i]), "%s",
			 n > 0 ? basename(target) : s->v[i].name);
	}
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		ssize_t n;
		char *base;

		if (de->d_name[0] == '.' || de->d_name[0] == ':')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		base = basename(target);
		for (i = 0; i < s->n; i++) {
			struct slab *sl = &s->v[i];
			size_t len = strlen(sl->aliases);

			if (strcmp(tgt[i], base) || !strcmp(sl->name, de->d_name))
				continue;
			snprintf(sl->aliases + len, sizeof(sl->aliases) - len,
				 "%s%s", len ? ", " : "", de->d_name);
		}
	}
	if (d)
		closedir(d);
	free(tgt);
}

static int slab_cmp(const void *pa, const void *pb)
{
	const struct slab *a = pa, *b = pb;
	long ga = (a->active[1] - a->active[0]) * a->objsize;
	long gb = (b->active[1] - b->active[0]) * b->objsize;

	if (a->shrank != b->shrank)
		return a->shrank ? 1 : -1;
	if (ga != gb)
		return ga > gb ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Grown caches first, only-growing ones before the others. */
int slab_grown(struct slabs *s)
{
	int i, n = 0;

	for (i = 0; i < s->n; i++)
		if (s->v[i].active[1] > s->v[i].active[0])
			s->v[n++] = s->v[i];
	s->n = n;
	qsort(s->v, s->n, sizeof(*s->v), slab_cmp);
	return n;
}

/*
 * Sample /proc/slabinfo around @cmd (if any: what run_command() says of it
 * into @cmd_rc), or @rounds times (forever if @rounds < 0, until a signal)
 * @interval seconds apart; after each sample, its metrics into the file
 * @prometheus, if not NULL.  Returns the seconds the samples span.
 */
double growth_sample(struct slabs *s, char **cmd, int *cmd_rc, int rounds,
		     double interval, const char *prometheus)
{
	double t0 = now();
	int i;

	memset(s, 0, sizeof(*s));
	slab_sample(s, true);
	if (prometheus)
		prometheus_write(prometheus, s);
	if (cmd) {
		*cmd_rc = run_command(cmd, nsignals);
		slab_sample(s, false);
		if (prometheus)
			prometheus_write(prometheus, s);
		return now() - t0;
	}
	for (i = 0; (rounds < 0 || i < rounds) && !nsignals; i++) {
		if (!sleep_secs(interval))
			break;
		slab_sample(s, false);
		if (prometheus)
			prometheus_write(prometheus, s);
	}
	return now() - t0;
}

void growth_print(struct slabs *s, double secs, int top)
{
	int i;

	printf("%-24s %7s %9s %8s %10s %10s  %-6s %s\n", "CACHE", "OBJSIZE",
	       "ACTIVE", "+OBJS", "+BYTES", "BYTES/S", "TREND", "ALSO NAMED");
	for (i = 0; i < s->n && i < top; i++) {
		struct slab *sl = &s->v[i];
		long d = sl->active[1] - sl->active[0];

		printf("%-24s %7ld %9ld %+8ld %+10ld %+10.0f  %-6s ", sl->name,
		       sl->objsize, sl->active[1], d, d * sl->objsize,
		       secs > 0 ? d * sl->objsize / secs : 0.0,
		       sl->shrank ? "mixed" : "grows");
		put_escaped(stdout, sl->aliases[0] ? sl->aliases : "-");
		putchar('\n');
	}
}

/*
 * The grown caches (the first @top; all if @top < 0) as one JSON document
 * on one line (slabtrace(8), JSON OUTPUT).
 */
static void growth_json(const struct slabs *s, double secs, bool around, long top)
{
	char *alias, *save = NULL, aliases[sizeof(s->v[0].aliases)];
	int i;

	printf("{\"version\": %d, \"seconds\": %.3f, \"around\": %s, \"caches\": [",
	       JSON_VERSION, secs, around ? "\"command\"" : "\"samples\"");
	for (i = 0; i < s->n && (top < 0 || i < top); i++) {
		const struct slab *sl = &s->v[i];
		long d = sl->active[1] - sl->active[0];
		bool first = true;

		printf("%s{\"cache\": ", i ? ", " : "");
		put_json_string(stdout, sl->name);
		printf(", \"objsize\": %ld, \"active\": %ld, \"objects\": %ld, \"bytes\": %ld, ",
		       sl->objsize, sl->active[1], d, d * sl->objsize);
		printf("\"bytes_per_second\": %.0f, \"trend\": \"%s\", \"also_named\": [",
		       secs > 0 ? d * sl->objsize / secs : 0.0,
		       sl->shrank ? "mixed" : "grows");
		snprintf(aliases, sizeof(aliases), "%s", sl->aliases);
		for (alias = strtok_r(aliases, ", ", &save); alias;
		     alias = strtok_r(NULL, ", ", &save)) {
			printf("%s", first ? "" : ", ");
			put_json_string(stdout, alias);
			first = false;
		}
		printf("]}");
	}
	printf("]}\n");
}

int cmd_growth(struct opts *o, int argc, char **argv)
{
	char **cmd = argc ? argv : NULL;
	int rounds = o->rounds > 0 ? o->rounds : 5, rc = 0;
	double secs;
	struct slabs s;

	if (cmd && (o->interval || o->rounds > 0))
		usage("growth: -i and -r are for sampling, without a command");
	if (o->prometheus) {
		/* A service: samples until a signal, unless -r says otherwise. */
		if (o->rounds <= 0)
			rounds = -1;
		catch_signals();
	}
	secs = growth_sample(&s, cmd, &rc, rounds, o->interval ? o->interval : 1,
			     o->prometheus);
	/* Nothing ran: no growth to speak of. */
	if (rc == RUN_FAILED)
		exit(1);
	slab_aliases(&s);
	if (o->json) {
		slab_grown(&s);
		growth_json(&s, secs, cmd, o->top);
	} else if (!slab_grown(&s)) {
		printf("no cache grew in %.1fs\n", secs);
	} else {
		printf("caches that grew in %.2fs (%s), only-growing ones first:\n",
		       secs, cmd ? "around the command" : "sampled");
		growth_print(&s, secs, o->top > 0 ? o->top : 10);
	}
	free(s.v);
	if (nsignals)
		return 128 + last_signal;
	/* As record: measured, but COMMAND failed (it said how). */
	return rc ? 3 : 0;
}
