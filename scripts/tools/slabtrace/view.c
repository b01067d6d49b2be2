// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace(8): top and leaks, on a fresh print of each cache (once, or
 * every -i seconds), and report, on a saved dump, no module needed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/pprof.h"
#include "cli.h"

/* Stacks shown: -n, else 10 (all in leaks). */
static long shown(const struct opts *o, bool full)
{
	return o->top > 0 ? o->top : full ? -1 : 10;
}

/*
 * Group, sort and show one dump (as text, JSON or folded stacks, as @o
 * says), and add it to @pprof if not NULL; exits if it is not the one of
 * @e.  Returns the seconds it was traced.
 */
double show_dump(char *text, const struct opts *o, bool full,
		 const struct expect *e, const char *src, bool *first,
		 struct pprof *pprof)
{
	double traced;
	struct dump d;

	if (!dump_parse(text, &d, &o->f, e, src))
		exit(1);
	dump_sort(&d, o->f.by_bytes);
	if (pprof)
		dump_pprof_add(pprof, &d);
	if (o->folded) {
		dump_folded(&d, o->f.by_bytes);
	} else if (o->json) {
		printf("%s", *first ? "" : ", ");
		dump_json(&d, shown(o, full));
	} else {
		if (!*first)
			putchar('\n');
		dump_print(&d, shown(o, full), full);
	}
	*first = false;
	traced = d.traced;
	dump_free(&d);
	return traced;
}

static int cmd_view(struct opts *o, int argc, char **argv, bool full)
{
	long round;
	struct stats s;
	bool first;
	int i;

	if (argc)
		usage("%s: no arguments but options, not '%s'", cur->name, argv[0]);
	if (o->rounds > 0 && !o->interval)
		usage("%s: -r goes with -i", cur->name);
	if (!o->ncaches) {
		read_stats(&s, true);
		for (i = 0; i < s.n && i < MAX_CACHES; i++)
			o->caches[o->ncaches++] = xstrdup(s.caches[i].name);
		stats_free(&s);
		if (!o->ncaches)
			die("no cache is traced or holds records (%s; %s)",
			    "slabtrace status",
			    "slabtrace record -c CACHE -- COMMAND");
	}
	for (round = 1;; round++) {
		if (o->interval && !o->json) {
			time_t t = time(NULL);
			char when[32];

			strftime(when, sizeof(when), "%H:%M:%S", localtime(&t));
			printf("%s--- %s, report %ld\n", round > 1 ? "\n" : "",
			       when, round);
		}
		first = true;
		if (o->json)
			json_begin(o->interval ? round : 0);
		for (i = 0; i < o->ncaches; i++) {
			struct expect e = { o->caches[i], o->older };
			char *text;

			need_cache(o->caches[i]);
			snapshot(o->caches[i], o->older, 1, &text);
			show_dump(text, o, full, &e, "ctl", &first, NULL);
			free(text);
		}
		if (o->json)
			json_end();
		if (!o->interval || round == o->rounds)
			break;
		fflush(stdout);
		sleep_secs(o->interval);
	}
	return 0;
}

int cmd_top(struct opts *o, int argc, char **argv)
{
	return cmd_view(o, argc, argv, false);
}

int cmd_leaks(struct opts *o, int argc, char **argv)
{
	return cmd_view(o, argc, argv, true);
}

/*
 * slabtrace report DUMP: top on a saved dump (- for standard input), no
 * module needed; or its folded stacks, or a pprof profile of it.
 */
int cmd_report(struct opts *o, int argc, char **argv)
{
	struct expect e = { NULL, 0 };
	struct pprof *pprof = NULL;
	bool first = true;
	double traced, when;
	struct stat sb;
	char *text;

	if (argc != 1)
		usage("report: one DUMP, not %d arguments", argc);
	if (o->folded && o->json)
		usage("report: --folded or --json, not both");
	if (!strcmp(argv[0], "-")) {
		text = read_fd(0);
		when = time(NULL);
	} else {
		text = read_all(argv[0]);
		/* The time of the capture: when the dump was saved. */
		when = text && !stat(argv[0], &sb) ?
			sb.st_mtim.tv_sec + sb.st_mtim.tv_nsec / 1e9 : time(NULL);
	}
	if (!text)
		die("%s: %s", argv[0], strerror(errno));
	if (o->pprof)
		pprof = dump_pprof_new();
	o->f.older = o->older;
	if (o->json)
		json_begin(0);
	traced = show_dump(text, o, false, &e, argv[0], &first, pprof);
	if (o->json)
		json_end();
	if (pprof)
		dump_pprof_write(pprof, o->pprof, when, traced);
	pprof_free(pprof);
	free(text);
	return 0;
}
