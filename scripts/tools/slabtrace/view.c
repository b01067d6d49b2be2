// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace(8): top and leaks, on a fresh print (once, or every -i
 * seconds) of each cache or word asked for, or of every traced cache at
 * once ("print all"), and report, on a saved print, no module needed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
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

/* One dump of a print, grouped and sorted, shown as @o says. */
static void show_one(struct dump *d, const struct opts *o, bool full,
		     bool word, bool *first, struct pprof *pprof)
{
	dump_sort(d, o->f.by_bytes);
	if (pprof)
		dump_pprof_add(pprof, d);
	if (o->folded) {
		dump_folded(d, o->f.by_bytes, word);
	} else if (o->json) {
		dump_json(d, shown(o, full), *first);
	} else {
		if (!*first)
			putchar('\n');
		dump_print(d, shown(o, full), full);
	}
	*first = false;
}

/*
 * Show a print (as text, JSON or folded stacks, as @o says): a cache's
 * dump, or each of a word's, in the module's order (most bytes first);
 * and add it to @pprof if not NULL.  As text, the print of a word says
 * what its summary line says, and shows only the caches with objects
 * that pass the filters.  Returns the longest any of its caches was
 * traced, in seconds; -1 if @text is not the print of @e (said).
 */
double show_print(char *text, const struct opts *o, bool full,
		  const struct expect *e, const char *src, bool *first,
		  struct pprof *pprof)
{
	bool word, text_out = !o->folded && !o->json;
	struct print p;
	double traced;
	int i, passed = 0;

	if (!print_parse(text, &p, &o->f, e, src))
		return -1;
	word = p.word[0];
	for (i = 0; i < p.n; i++)
		passed += p.d[i].objects > 0;
	if (word && text_out) {
		if (!*first)
			putchar('\n');
		printf("Print of %s: %ld cache%s, %d with outstanding objects, most bytes first\n",
		       p.word, p.caches, p.caches == 1 ? "" : "s", p.n);
		if (passed < p.n)
			printf("%d of them with objects that pass the filters, shown below\n",
			       passed);
		*first = false;
	}
	for (i = 0; i < p.n; i++)
		if (!word || !text_out || p.d[i].objects)
			show_one(&p.d[i], o, full, word, first, pprof);
	traced = print_traced(&p);
	print_free(&p);
	return traced;
}

/* The print of @name (and @older), shown; dies if @name traces nothing. */
static void view_print(const char *name, const struct opts *o, bool full,
		       bool *first)
{
	struct expect e = { name, o->older };
	long traced = -1;
	char *text;

	need_cache(name);
	if (snapshot(name, o->older, 1, &text))
		exit(1);
	if (sscanf(text, "Print of %*[^:]: %ld cache", &traced) == 1 && !traced)
		die("%s (%s; %s)", strcmp(name, "kmalloc") ?
		    "no cache is traced or holds records" :
		    "no kmalloc cache is traced or holds records",
		    "slabtrace status",
		    "slabtrace record -c CACHE -- COMMAND");
	if (show_print(text, o, full, &e, "ctl", first, NULL) < 0)
		exit(1);
	free(text);
}

/*
 * top and leaks: a print of each -c CACHE (or word), or without -c one
 * "print all", every -i seconds.
 */
static int cmd_view(struct opts *o, int argc, char **argv, bool full)
{
	long round;
	bool first;
	int i;

	/* slabtrace top kmalloc-64: the caches named, as with -c. */
	for (i = 0; i < argc; i++) {
		if (o->ncaches == MAX_CACHES)
			usage("%s: at most %d caches", cur->name, MAX_CACHES);
		o->caches[o->ncaches++] = argv[i];
	}
	if (o->rounds > 0 && !o->interval)
		usage("%s: -r goes with -i", cur->name);
	if (!o->ncaches)
		o->caches[o->ncaches++] = "all";
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
		for (i = 0; i < o->ncaches; i++)
			view_print(o->caches[i], o, full, &first);
		if (o->json)
			json_end();
		if (!o->interval || round == o->rounds)
			break;
		fflush(stdout);
		sleep_secs(o->interval, 0);
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
	char pprof_real[PATH_MAX];
	struct pprof *pprof = NULL;
	bool first = true, made;
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
	if (o->pprof) {
		out_file_as_root(o->pprof, pprof_real, sizeof(pprof_real));
		pprof = dump_pprof_new();
	}
	o->f.older = o->older;
	if (o->json)
		json_begin(0);
	traced = show_print(text, o, false, &e, argv[0], &first, pprof);
	if (traced < 0)
		exit(1);
	if (o->json)
		json_end();
	if (pprof) {
		made = access(pprof_real, F_OK);
		if (dump_pprof_write(pprof, pprof_real, when, traced))
			exit(1);
		if (made)
			out_give(pprof_real);
	}
	pprof_free(pprof);
	free(text);
	return 0;
}
