// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace(8): the command line over the module's files (/proc/slabtrace,
 * or /sys/kernel/debug/slabtrace: ../lib/stfiles.c picks).
 *
 *   slabtrace status
 *   slabtrace growth [-i SECS] [-r ROUNDS] [-n N] [--json]
 *                    [--prometheus FILE] [-- COMMAND...]
 *   slabtrace record -c CACHE... | -c all|kmalloc | --auto [-p PID]...
 *                    [-o DIR] [--settle SECS] [-n N] [--keep]
 *                    [--pprof FILE] -- COMMAND...   (or -p and no COMMAND)
 *   slabtrace top [-c CACHE|all|kmalloc]... [--bytes] [--module M]
 *                 [--comm C] [-p PID]... [--older MS] [-n N] [--json]
 *                 [-i SECS [-r ROUNDS]] [CACHE...]
 *   slabtrace leaks [the options of top but -i and -r]
 *   slabtrace report [the filters of top] [-n N] [--json | --folded]
 *                    [--pprof FILE] DUMP
 *   slabtrace start|stop|reset|mark CACHE|all|kmalloc
 *   slabtrace COMMAND --help; slabtrace --help; slabtrace --version
 *
 * Options may follow the operands (slabtrace report DUMP --json), but
 * for growth and record, where COMMAND's own options begin at COMMAND.
 * The short options mean the same in every tool of the family (-c a
 * cache, -o where to write, -n how many, -p a process, -i, -r, -h, -V).
 *
 * The module stays the one source of truth: every command here is a
 * write to ctl and a read of what the module prints; this program only
 * parses, groups, filters and explains.  Its files are listed in cli.h;
 * this one holds the commands, their options and their help.
 *
 * Static, libc only (and protobuf-c and zlib, statically, for --pprof
 * where they are): the same binary runs on Debian and in a busybox VM.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/pprof.h"
#include "cli.h"

/* What --help says of --pprof where this build cannot write profiles. */
#ifdef SLABTRACE_PPROF
#define PPROF_NOTE ""
#else
#define PPROF_NOTE ";\n" \
	"                     not in this build: it needs libprotobuf-c-dev,\n" \
	"                     protobuf-c-compiler and zlib1g-dev to be built"
#endif

static const char help_main[] =
	"usage: slabtrace COMMAND [OPTION...] [ARG...]\n"
	"       slabtrace COMMAND --help\n"
	"       slabtrace -h | --help | -V | --version\n"
	"\n"
	"  status     what is traced: records, drops, probes, kptrace\n"
	"  growth     which caches grew (steadily growing ones first)\n"
	"  record     trace caches around a command, save and show the top stacks\n"
	"  top        the stacks holding the most outstanding objects\n"
	"  leaks      every stack, with its full backtrace\n"
	"  report     top on a saved dump, no module needed\n"
	"  start, stop, reset, mark\n"
	"             the module's commands, their errors explained\n"
	"\n"
	"slabtrace COMMAND --help describes COMMAND's options; slabtrace(8) has it all.\n";

static const char help_status[] =
	"usage: slabtrace status\n"
	"\n"
	"What is traced and for how long, the records against their limit, the\n"
	"drops of every kind, the probes, the pool, kptrace (the system call\n"
	"trace), and what to do next.\n"
	"\n"
	"  -h, --help   this help\n";

static const char help_growth[] =
	"usage: slabtrace growth [-i SECS] [-r ROUNDS] [-n N] [--json] [--prometheus FILE]\n"
	"                        [-- COMMAND [ARG...]]\n"
	"\n"
	"Which slab caches grew, from /proc/slabinfo: sampled before, during and\n"
	"after COMMAND, or every SECS seconds.  TREND says what the samples show:\n"
	"grows (up in most of them, and still at the end: steadily growing ones\n"
	"come first), levels (grew, then stopped), once (in one step), grew\n"
	"(otherwise, or fewer than 4 samples), mixed (went down too).\n"
	"\n"
	"  -i, --interval SECS\n"
	"               seconds between samples (1; 0.5 while COMMAND runs)\n"
	"  -r, --rounds ROUNDS\n"
	"               samples after the first, without COMMAND (5; with\n"
	"               --prometheus: until SIGINT, SIGTERM or SIGHUP)\n"
	"  -n, --top N  show the first N caches (10; with --json: all)\n"
	"      --json   the caches that grew as one JSON document on one line\n"
	"      --prometheus FILE\n"
	"               after every sample, replace FILE (atomically) with every\n"
	"               cache's objects and bytes and slabtrace's own counters, in\n"
	"               Prometheus' text format (for node_exporter's textfile\n"
	"               collector: FILE ends in .prom)\n"
	"  -h, --help   this help\n";

static const char help_record[] =
	"usage: slabtrace record -c CACHE... | --auto [-p PID]... [-o DIR] [-n N]\n"
	"                        [--settle SECS] [--keep] [--only-leaks] [--pprof FILE]\n"
	"                        -- COMMAND [ARG...]\n"
	"       slabtrace record -c CACHE... -p PID... [-o DIR] [-n N] [--settle SECS]\n"
	"                        [--keep] [--only-leaks] [--pprof FILE]\n"
	"\n"
	"Trace caches around COMMAND: start them, run COMMAND, stop them, wait for\n"
	"deferred frees, save a snapshot into DIR and show the top stacks.  With -p\n"
	"and no COMMAND: trace those processes until SIGINT (^C), SIGTERM or SIGHUP.\n"
	"\n"
	"  -c, --cache CACHE   a cache to trace; again for more (at most 16); or\n"
	"                      one word: all (every slab cache), kmalloc (every\n"
	"                      kmalloc cache); a word only when no cache is traced\n"
	"      --auto          run COMMAND once untraced first, sampling the caches\n"
	"                      every 0.5 s, and trace the (up to three) that grew\n"
	"                      steadily meanwhile (else those that grew most)\n"
	"  -p, --pid PID       only the allocations of process PID, any thread of\n"
	"                      it (the module's filter); again, or PID,PID, for\n"
	"                      more (at most 8)\n"
	"  -o, --output DIR    where to save (slabtrace.out)\n"
	"      --settle SECS   seconds to wait for deferred frees (1)\n"
	"  -n, --top N         stacks to show (10), the stacks judged leaks first\n"
	"      --only-leaks    show only the stacks judged leaks\n"
	"      --keep          keep the records, stopped, for top and leaks\n"
	"      --pprof FILE    also write the snapshots as a gzipped pprof profile\n"
	"                      (go tool pprof FILE)" PPROF_NOTE "\n"
	"  -h, --help          this help\n"
	"\n"
	"record stops and resets only the caches it started.  A cache traced\n"
	"already (by hand, or left by a killed record) is shared: never stopped\n"
	"or reset.  A cache another record is tracing, or one that holds the\n"
	"records of a stopped trace, is refused.  SIGINT, SIGTERM or SIGHUP ends\n"
	"COMMAND; record then saves, cleans up and exits with 128 + the signal.\n"
	"With a word, record saves one print of all its caches (WORD.dump, ...).\n";

#define HELP_FILTERS \
	"      --bytes        rank by bytes, not objects\n" \
	"      --module M     only objects with a frame in module M\n" \
	"      --comm C       only objects allocated by command C (as dumps write it)\n" \
	"  -p, --pid PID      only objects allocated by thread PID (the dump's\n" \
	"                     \"PID N\": a thread's ID, the process's for its main\n" \
	"                     thread); again, or PID,PID, for more (at most 8)\n" \
	"      --older MS     only objects at least MS milliseconds old\n" \
	"      --only-leaks   only the stacks the module judged leaks\n"

static const char help_top[] =
	"usage: slabtrace top [-c CACHE]... [--bytes] [--module M] [--comm C] [-p PID]...\n"
	"                     [--older MS] [--only-leaks] [-n N] [--json]\n"
	"                     [-i SECS [-r ROUNDS]] [CACHE...]\n"
	"\n"
	"The stacks holding the most outstanding objects of each traced cache (or\n"
	"of each CACHE, named with -c or alone), from a fresh snapshot: one print\n"
	"of every traced cache, most bytes first, without CACHE.  The stacks the\n"
	"module judged leaks come first, and each stack shows its verdict: leak,\n"
	"live, kept or unknown.\n"
	"\n"
	"  -c, --cache CACHE  a cache to show (default: every cache traced, as\n"
	"                     -c all); all, kmalloc: every traced (kmalloc) cache\n"
	HELP_FILTERS
	"  -n, --top N        show the first N stacks (10)\n"
	"      --json         the report as one JSON document on one line\n"
	"  -i, --interval SECS  a report every SECS seconds, until killed\n"
	"  -r, --rounds ROUNDS  with -i: stop after ROUNDS reports\n"
	"  -h, --help         this help\n";

static const char help_leaks[] =
	"usage: slabtrace leaks [-c CACHE]... [--bytes] [--module M] [--comm C]\n"
	"                       [-p PID]... [--older MS] [--only-leaks] [-n N] [--json]\n"
	"                       [CACHE...]\n"
	"\n"
	"Every stack holding outstanding objects of each traced cache (or of each\n"
	"CACHE, named with -c or alone), with who allocated them, their ages, the\n"
	"module's verdict and its evidence, and the full backtrace; the stacks\n"
	"judged leaks first.\n"
	"\n"
	"  -c, --cache CACHE  a cache to show (default: every cache traced, as\n"
	"                     -c all); all, kmalloc: every traced (kmalloc) cache\n"
	HELP_FILTERS
	"  -n, --top N        show the first N stacks only\n"
	"      --json         the report as one JSON document on one line\n"
	"  -h, --help         this help\n";

static const char help_report[] =
	"usage: slabtrace report [--bytes] [--module M] [--comm C] [-p PID]...\n"
	"                        [--older MS] [--only-leaks] [-n N]\n"
	"                        [--json | --folded]\n"
	"                        [--pprof FILE] DUMP\n"
	"\n"
	"top on a saved per-object dump (record's CACHE.dump, or what reading\n"
	"ctl gave after a print, of a cache or of a word such as all; - reads\n"
	"standard input), no module needed.\n"
	"\n"
	HELP_FILTERS
	"  -n, --top N        show the first N stacks (10)\n"
	"      --json         the report as one JSON document on one line\n"
	"      --folded       every stack as a folded line (by objects; by bytes\n"
	"                     with --bytes), for slabtrace-flamegraph\n"
	"      --pprof FILE   also write the objects as a gzipped pprof profile\n"
	"                     (go tool pprof FILE)" PPROF_NOTE "\n"
	"  -h, --help         this help\n";

static const char help_plain[] =
	"usage: slabtrace start|stop|reset|mark CACHE|all|kmalloc\n"
	"       slabtrace start CACHE [pid PID...|comm NAME|cgroup PATH]\n"
	"                             [sample N|sample-bytes B]\n"
	"\n"
	"The module's commands, with their errors explained:\n"
	"  start CACHE   record every allocation from CACHE from now on; with a\n"
	"                filter, only those of these processes, this command\n"
	"                name, or this cgroup (v2 path, as /proc/PID/cgroup); with\n"
	"                sample N, 1 in N of them at random, with sample-bytes B,\n"
	"                1 per B bytes on average (reports estimate)\n"
	"  stop CACHE    record no new ones (frees still drop records)\n"
	"  reset CACHE   drop CACHE's records\n"
	"  mark CACHE    note the time (print CACHE since-mark shows what came after)\n"
	"  all, kmalloc  in place of CACHE: start every slab cache, or every kmalloc\n"
	"                cache (and kmalloc-large); the others, every traced one\n"
	"  -h, --help    this help\n";

enum {
	OPT_BYTES = 256, OPT_MODULE, OPT_COMM, OPT_SETTLE, OPT_OLDER, OPT_JSON,
	OPT_AUTO, OPT_KEEP, OPT_PPROF, OPT_PROMETHEUS, OPT_FOLDED,
	OPT_ONLY_LEAKS,
};

static const struct option long_opts[] = {
	{ "cache", required_argument, NULL, 'c' },
	{ "output", required_argument, NULL, 'o' },
	{ "settle", required_argument, NULL, OPT_SETTLE },
	{ "bytes", no_argument, NULL, OPT_BYTES },
	{ "module", required_argument, NULL, OPT_MODULE },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "pid", required_argument, NULL, 'p' },
	{ "top", required_argument, NULL, 'n' },
	{ "interval", required_argument, NULL, 'i' },
	{ "rounds", required_argument, NULL, 'r' },
	{ "older", required_argument, NULL, OPT_OLDER },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "auto", no_argument, NULL, OPT_AUTO },
	{ "keep", no_argument, NULL, OPT_KEEP },
	{ "pprof", required_argument, NULL, OPT_PPROF },
	{ "prometheus", required_argument, NULL, OPT_PROMETHEUS },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "only-leaks", no_argument, NULL, OPT_ONLY_LEAKS },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

const struct command *cur;	/* the command running */

/* "slabtrace CMD --help", where a usage error sends the user. */
char help_hint[64];

/*
 * A whole number of at least @min and at most INT_MAX (what an int of
 * growth's rounds and -n's rows holds: never cut short), or a usage error.
 */
static long count_arg(int opt, const char *arg, long min)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || *end || end == arg || n < min || n > INT_MAX ||
	    !isdigit((unsigned char)*arg))
		usage("%s: -%c takes a whole number from %ld to %d, not '%s'",
		      cur->name, opt, min, INT_MAX, arg);
	return n;
}

/* A long option's number (0 or more), or a usage error. */
static long long_count_arg(const char *opt, const char *arg)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || *end || end == arg || n < 0 || !isdigit((unsigned char)*arg))
		usage("%s: --%s takes a whole number (0 or more), not '%s'",
		      cur->name, opt, arg);
	return n;
}

/* Seconds, above 0 (or 0 too, with @zero), or a usage error; @opt names it. */
static double secs_arg(const char *opt, const char *arg, bool zero)
{
	char *end;
	double s;

	errno = 0;
	s = strtod(arg, &end);
	if (errno || *end || end == arg || !isfinite(s) || s < 0 || (!zero && !s) ||
	    s > 1e6)
		usage("%s: %s takes seconds (%s), not '%s'", cur->name, opt,
		      zero ? "0 or more" : "above 0", arg);
	return s;
}

/* -p PID[,PID...]: the processes into @f, at most FILTER_PIDS in all. */
static void pid_arg(struct filter *f, char *arg)
{
	char *p, *end;
	long n;

	while ((p = strsep(&arg, ","))) {
		errno = 0;
		n = strtol(p, &end, 10);
		if (errno || *end || !isdigit((unsigned char)*p) || n <= 0 || n > INT_MAX)
			usage("%s: -p takes process IDs (PID or PID,PID...), not '%s'",
			      cur->name, p);
		if (f->npids == FILTER_PIDS)
			usage("%s: -p: at most %d processes", cur->name, FILTER_PIDS);
		f->pids[f->npids++] = n;
	}
}

/* The short option @opt that @cur takes. */
static bool takes_short(int opt)
{
	const char *s = cur->shorts + strspn(cur->shorts, "+:");

	return opt > 0 && opt < 256 && strchr(s, opt);
}

static bool takes_long(int val)
{
	const int *l;

	for (l = cur->longs; l && *l; l++)
		if (*l == val)
			return true;
	return false;
}

static const char *long_name(int val)
{
	const struct option *o;

	for (o = long_opts; o->name; o++)
		if (o->val == val)
			return o->name;
	return "?";
}

/*
 * Parse the options of @cur in @argv (argv[0] is the command's name).
 * --help prints its help to stdout and exits 0.  Returns the index of the
 * first argument left.
 */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	int opt;

	memset(o, 0, sizeof(*o));
	o->top = -1;
	o->rounds = -1;
	o->settle = 1;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, cur->shorts, long_opts, NULL)) != -1) {
		if (opt >= OPT_BYTES && !takes_long(opt))
			usage("%s: --%s is not an option of %s", cur->name,
			      long_name(opt), cur->name);
		/* A long name of a short option this command has not. */
		if (opt != '?' && opt != ':' && opt < OPT_BYTES && !takes_short(opt))
			usage("%s: %s is not an option of %s", cur->name,
			      argv[optind - 1], cur->name);
		switch (opt) {
		case 'h':
			fputs(cur->help, stdout);
			exit(0);
		case 'V':
			print_version();
			exit(0);
		case 'c':
			if (o->ncaches == MAX_CACHES)
				usage("%s: at most %d caches (-c)", cur->name, MAX_CACHES);
			o->caches[o->ncaches++] = optarg;
			break;
		case 'n':
			o->top = count_arg(opt, optarg, 1);
			break;
		case 'o':
			o->out = optarg;
			break;
		case OPT_SETTLE:
			o->settle = secs_arg("--settle", optarg, true);
			break;
		case 'i':
			o->interval = secs_arg("-i", optarg, false);
			break;
		case 'p':
			pid_arg(&o->f, optarg);
			break;
		case 'r':
			o->rounds = count_arg(opt, optarg, 1);
			break;
		case OPT_BYTES:
			o->f.by_bytes = true;
			break;
		case OPT_MODULE:
			o->f.module = optarg;
			break;
		case OPT_COMM:
			o->f.comm = optarg;
			break;
		case OPT_OLDER:
			o->older = long_count_arg("older", optarg);
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_AUTO:
			o->autosel = true;
			break;
		case OPT_KEEP:
			o->keep = true;
			break;
		case OPT_PPROF:
			if (pprof_missing)
				die("--pprof: %s", pprof_missing);
			o->pprof = optarg;
			break;
		case OPT_PROMETHEUS:
			o->prometheus = optarg;
			break;
		case OPT_FOLDED:
			o->folded = true;
			break;
		case OPT_ONLY_LEAKS:
			o->f.only_leaks = true;
			break;
		case ':':
			usage("%s: %s needs an argument", cur->name, argv[optind - 1]);
		default:
			if (optopt && optopt < OPT_BYTES)
				usage("%s: -%c is not an option of %s", cur->name,
				      optopt, cur->name);
			usage("%s: %s is not an option of %s", cur->name,
			      argv[optind - 1], cur->name);
		}
	}
	return optind;
}

static const int longs_view[] = {
	OPT_BYTES, OPT_MODULE, OPT_COMM, OPT_OLDER, OPT_JSON, OPT_ONLY_LEAKS, 0,
};

static const int longs_record[] = {
	OPT_AUTO, OPT_KEEP, OPT_PPROF, OPT_SETTLE, OPT_ONLY_LEAKS, 0,
};

static const int longs_report[] = {
	OPT_BYTES, OPT_MODULE, OPT_COMM, OPT_OLDER, OPT_JSON,
	OPT_FOLDED, OPT_PPROF, OPT_ONLY_LEAKS, 0,
};

static const int longs_growth[] = { OPT_PROMETHEUS, OPT_JSON, 0 };

/*
 * The commands and their short options: "+" first where COMMAND follows
 * (growth, record: its options are its own); else getopt permutes, and
 * options may follow the operands.
 */
static const struct {
	struct command c;
	int (*run)(struct opts *o, int argc, char **argv);
} commands[] = {
	{ { "status", ":hV", NULL, help_status }, NULL },
	{ { "growth", "+:i:r:n:hV", longs_growth, help_growth }, cmd_growth },
	{ { "record", "+:c:o:n:p:hV", longs_record, help_record }, cmd_record },
	{ { "top", ":c:n:i:r:p:hV", longs_view, help_top }, cmd_top },
	{ { "leaks", ":c:n:p:hV", longs_view, help_leaks }, cmd_leaks },
	{ { "report", ":n:p:hV", longs_report, help_report }, cmd_report },
	{ { "start", ":hV", NULL, help_plain }, cmd_plain },
	{ { "stop", ":hV", NULL, help_plain }, cmd_plain },
	{ { "reset", ":hV", NULL, help_plain }, cmd_plain },
	{ { "mark", ":hV", NULL, help_plain }, cmd_plain },
};

int main(int argc, char **argv)
{
	struct opts o;
	size_t i;
	int n;

	prog_name = "slabtrace";
	stdout_check_at_exit();
	if (argc < 2) {
		fputs(help_main, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		fputs(help_main, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		print_version();
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].c.name))
			break;
	if (i == ARRAY_SIZE(commands)) {
		fprintf(stderr, "slabtrace: unknown command '%s'\n%s", argv[1], help_main);
		return EXIT_USAGE;
	}
	cur = &commands[i].c;
	snprintf(help_hint, sizeof(help_hint), "slabtrace %s --help", cur->name);
	n = parse_opts(argc - 1, argv + 1, &o);
	st_version_check();
	if (!commands[i].run) {
		if (n != argc - 1)
			usage("status: no arguments, not '%s'", argv[1 + n]);
		return st_status(cmd_status());
	}
	return st_status(commands[i].run(&o, argc - 1 - n, argv + 1 + n));
}
