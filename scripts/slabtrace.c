// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace(8): the command line over the module's files (/proc/slabtrace,
 * or /sys/kernel/debug/slabtrace: stfiles.c picks).
 *
 *   slabtrace status
 *   slabtrace growth [-i SECS] [-r ROUNDS] [-n N] [-- COMMAND...]
 *   slabtrace record -c CACHE... | --auto [-o DIR] [-s SECS] [-n N]
 *                    [--keep] -- COMMAND...
 *   slabtrace top [-c CACHE]... [--bytes] [--module M] [--comm C] [--pid P]
 *                 [--older MS] [-n N] [--json] [-i SECS [-r ROUNDS]]
 *   slabtrace leaks [the options of top but -i and -r]
 *   slabtrace report [the filters of top] [-n N] [--json] DUMP
 *   slabtrace start|stop|reset|mark CACHE
 *   slabtrace COMMAND --help; slabtrace --help; slabtrace --version
 *
 * The module stays the one source of truth: every command here is a
 * write to ctl and a read of what the module prints; this program only
 * parses, groups, filters and explains.  When a write fails, the reason is
 * the line the module logged for it (read from /dev/kmsg), not the errno.
 *
 * A print is read back by a child in a session of its own, through the
 * file that wrote it: the module keeps one snapshot per session, and
 * another print of the caller's session (a second slabtrace, a shell's
 * "echo print") must not come between.  The dump's header must then name
 * the cache and the filter asked for, and list as many objects as it
 * counts.
 *
 * record owns what it starts and nothing else.  While it decides, it
 * holds a lock on /sys/kernel/slab (flock: other slabtrace records wait);
 * a cache it starts stays locked (its /sys/kernel/slab/NAME directory, so
 * merged names share the lock) until record has stopped and reset it.  A
 * cache traced already, by hand or left by a killed record, is shared:
 * never stopped or reset here.  A cache another record holds, or one
 * holding the records of a stopped trace, is refused.  SIGINT, SIGTERM
 * and SIGHUP end COMMAND, then record saves and cleans up.  Against
 * SIGKILL, a watchdog child in a session of its own waits on a pipe from
 * record: if the pipe closes without record's word that it cleaned up, the
 * watchdog stops (and resets, but with --keep) the caches record started.
 *
 * Static, libc only: the same binary runs on Debian and in a busybox VM.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stfiles.h"

#define VERSION "0.1"
#define JSON_VERSION 1
#define MAX_CACHES 16		/* -c, as the module traces at most */

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

/* Print @s with bytes that are not printable ASCII as \xNN. */
static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

/* @s with bytes that are not printable ASCII as "?", in place. */
static char *escaped(char *s)
{
	char *p;

	for (p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	return s;
}

/*
 * @name as the module writes a name in a dump's header (SLABTRACE_ESCAPE,
 * include/slabtrace/slabtrace.h): printable ASCII as it is, but space and
 * backslash; \n \r \t \v \f, \\ \a \e; any other byte as \xNN.
 */
static void kernel_escape(const char *name, char *buf, size_t size)
{
	static const char named[] = "\n\r\t\v\f\\\a\033";
	static const char letter[] = "nrtvf\\ae";
	size_t len = 0;

	buf[0] = 0;
	for (; *name && len + 5 < size; name++) {
		unsigned char c = *name;
		const char *n = c ? strchr(named, c) : NULL;

		if (c > ' ' && c < 0x7f && c != '\\')
			buf[len++] = c;
		else if (n)
			len += sprintf(buf + len, "\\%c", letter[n - named]);
		else
			len += sprintf(buf + len, "\\x%02x", c);
	}
	buf[len] = 0;
}

static void put_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Signals record took (on_signal()); 0 in the other commands. */
static atomic_int nsignals;

/* Sleep @s seconds; false if a signal came meanwhile. */
static bool sleep_secs(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };
	int seen = nsignals;

	while (nanosleep(&ts, &ts) && errno == EINTR)
		if (nsignals != seen)
			return false;
	return true;
}

/* --- cache names --- */

static int levenshtein(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int *row, ret;

	if (la > 64 || lb > 64)
		return 99;
	row = xmalloc((lb + 1) * sizeof(*row));
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		int diag = row[0], up;

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			int best;

			up = row[j];
			best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	ret = row[lb];
	free(row);
	return ret;
}

/* /sys/kernel/slab/@name into @buf. */
static void slab_dir(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/kernel/slab%s%s", st_sysfs(), *name ? "/" : "",
		 name);
}

static bool cache_exists(const char *name)
{
	char path[PATH_MAX];

	slab_dir(path, sizeof(path), name);
	return !access(path, F_OK);
}

/*
 * The name the user probably meant, into @buf: "kmalloc-8192" is
 * "kmalloc-8k"; else the closest name in /sys/kernel/slab (at most 3
 * edits).  False if nothing is close.
 */
static bool suggest(const char *name, char *buf, size_t size)
{
	char path[PATH_MAX], alt[256];
	const char *num;
	struct dirent *de;
	int best = 4;
	DIR *d;

	num = strrchr(name, '-');
	if (num && strlen(name) < 200) {
		char *end;
		unsigned long n = strtoul(num + 1, &end, 10);

		if (!*end && n >= 1024 && !(n % 1024)) {
			snprintf(alt, sizeof(alt), "%.*s-%luk",
				 (int)(num - name), name, n / 1024);
			if (cache_exists(alt)) {
				snprintf(buf, size, "%s", alt);
				return true;
			}
		}
	}
	slab_dir(path, sizeof(path), "");
	d = opendir(path);
	if (!d)
		return false;
	while ((de = readdir(d))) {
		int dist;

		if (de->d_name[0] == '.' || de->d_name[0] == ':')
			continue;
		dist = levenshtein(name, de->d_name);
		if (dist < best) {
			best = dist;
			snprintf(buf, size, "%s", de->d_name);
		}
	}
	closedir(d);
	return best < 4;
}

/* Dies if @name is no cache, with the name meant if one is close. */
static void need_cache(const char *name)
{
	char path[PATH_MAX], alt[256];

	slab_dir(path, sizeof(path), "");
	if (access(path, F_OK) || cache_exists(name))
		return;	/* no sysfs to ask: the module will say */
	fflush(stdout);
	fprintf(stderr, "%s: no such cache '", prog_name);
	put_escaped(stderr, name);
	if (suggest(name, alt, sizeof(alt))) {
		fputs("' (did you mean ", stderr);
		put_escaped(stderr, alt);
		fputs("?)\n", stderr);
	} else {
		fputs("' (the names are in /proc/slabinfo)\n", stderr);
	}
	exit(1);
}

/*
 * The cache @name is, whatever its name: the directory its
 * /sys/kernel/slab entry leads to (merged names are links to one), into
 * @buf; @name itself without sysfs.
 */
static void cache_identity(const char *name, char *buf, size_t size)
{
	char path[PATH_MAX], real[PATH_MAX];

	slab_dir(path, sizeof(path), name);
	snprintf(buf, size, "%s", realpath(path, real) ? real : name);
}

/* --- commands to ctl --- */

/* "PROG: 'CMD' failed: REASON", both escaped, and exit 1. */
static noreturn void ctl_failed(const char *cmd, const char *reason)
{
	fflush(stdout);
	fprintf(stderr, "%s: '", prog_name);
	put_escaped(stderr, cmd);
	fputs("' failed: ", stderr);
	put_escaped(stderr, reason);
	fputc('\n', stderr);
	exit(1);
}

/*
 * Write the command @cmd to the open ctl @fd.  Returns 0, or -errno with
 * the module's reason in @why.  A newline ends the command, as echo's
 * does.
 */
static int ctl_send(int fd, const char *cmd, char *why, size_t size)
{
	char line[512];
	ssize_t n;
	int err;

	snprintf(line, sizeof(line), "%s\n", cmd);
	kmsg_mark();
	n = write(fd, line, strlen(line));
	if (n >= 0)
		return 0;
	err = errno;
	reason_of(err, why, size);
	return -err;
}

/*
 * Open ctl: O_APPEND changes nothing for the module; a test's fake ctl, a
 * plain file, keeps the commands after the dump it holds.  Dies with the
 * cause if it cannot (@die), else returns -1 with errno set.
 */
static int ctl_open(int flags, bool die_on_error)
{
	char path[PATH_MAX];
	int fd;

	st_path(path, sizeof(path), "ctl");
	fd = open(path, flags | O_APPEND | O_CLOEXEC);
	if (fd < 0 && die_on_error) {
		int e = errno;

		st_check("ctl", flags == O_RDWR ? R_OK | W_OK : W_OK);
		die("%s: %s", path, strerror(e));
	}
	return fd;
}

/*
 * One command to ctl.  Returns 0, or -errno with the module's reason in
 * @why (when @why is not NULL; else dies with it).
 */
static int ctl_try(char *why, size_t size, const char *fmt, ...)
{
	char cmd[512], reason[1024];
	va_list ap;
	int fd, ret;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fd = ctl_open(O_WRONLY, !why);
	if (fd < 0) {
		snprintf(why, size, "%s", strerror(errno));
		return -errno;
	}
	ret = ctl_send(fd, cmd, reason, sizeof(reason));
	close(fd);
	if (!ret)
		return 0;
	if (!why)
		ctl_failed(cmd, reason);
	snprintf(why, size, "%s", reason);
	return ret;
}

#define ctl(...) ctl_try(NULL, 0, __VA_ARGS__)

/* --- stats: what is traced --- */

struct kv {
	char key[48];
	char val[48];
};

struct traced {
	char name[256];		/* as stats shows it (escaped) */
	bool tracing;
	struct kv kv[32];
	int nkv;
};

struct stats {
	char *text;
	struct traced *caches;
	int n;
};

static const char *kv_get(const struct traced *t, const char *key)
{
	int i;

	for (i = 0; i < t->nkv; i++)
		if (!strcmp(t->kv[i].key, key))
			return t->kv[i].val;
	return NULL;
}

static void read_stats(struct stats *s)
{
	char path[PATH_MAX], *line, *save = NULL;

	memset(s, 0, sizeof(*s));
	st_path(path, sizeof(path), "stats");
	s->text = read_all(path);
	if (!s->text) {
		int e = errno;

		st_check("stats", R_OK);
		die("%s: %s", path, strerror(e));
	}
	for (line = strtok_r(s->text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct traced *t;
		char *w, *k, *p = NULL;

		if (strncmp(line, "cache ", 6))
			continue;
		s->caches = xrealloc(s->caches, (s->n + 1) * sizeof(*t));
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
	/* strtok_r cut the text: read it again for the global lines. */
	free(s->text);
	s->text = read_all(path);
	if (!s->text)
		die("%s: %s", path, strerror(errno));
}

static void stats_free(struct stats *s)
{
	free(s->text);
	free(s->caches);
}

/* The traced cache that is @name, by any of its names; NULL if none. */
static const struct traced *stats_find(const struct stats *s, const char *name)
{
	char want[PATH_MAX], id[PATH_MAX];
	int i;

	cache_identity(name, want, sizeof(want));
	for (i = 0; i < s->n; i++) {
		cache_identity(s->caches[i].name, id, sizeof(id));
		if (!strcmp(id, want))
			return &s->caches[i];
	}
	return NULL;
}

/* The line of @text that starts with "@head ", or "". */
static const char *stats_line(const char *text, const char *head)
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

			if (!strcmp(k, "records") || !strcmp(k, "replaced"))
				continue;
			if (!strcmp(t->kv[j].val, "0"))
				continue;
			printf("%s %s %s", any ? "," : "", k, t->kv[j].val);
			any = true;
		}
		printf("%s\n", any ? "" : " none");
	}
}

static int cmd_status(void)
{
	unsigned long records = 0, limit = 0, pfree = 0, per_cpu = 0;
	unsigned int ctx = 0, ctx_max = 0;
	char path[PATH_MAX], alloc[8] = "?", freep[8] = "?";
	char *kpt, *text, *line, *save = NULL, kstate[64] = "";
	struct stats s;

	read_stats(&s);
	if (sscanf(stats_line(s.text, "records"), "records %lu limit %lu",
		   &records, &limit) != 2 ||
	    sscanf(stats_line(s.text, "pool"), "pool free %lu per_cpu %lu",
		   &pfree, &per_cpu) != 2 ||
	    sscanf(stats_line(s.text, "contexts"), "contexts %u of %u", &ctx,
		   &ctx_max) != 2 ||
	    sscanf(stats_line(s.text, "probes"), "probes alloc %7s free %7s",
		   alloc, freep) != 2)
		die("%s/stats: not the stats of this version of slabtrace", st_root());
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
				snprintf(kstate, sizeof(kstate), "%s, ", line + 9);
			else if (strncmp(line, "next: ", 6))
				printf("%s\n", escaped(line));
		}
		free(text);
	} else {
		printf("probes: alloc %s, free %s; records: %lu (limit %lu)\n",
		       alloc, freep, records, limit);
		status_of_stats(&s);
	}
	printf("pool: %lu free, %lu per CPU; contexts: %u of %u\n", pfree,
	       per_cpu, ctx, ctx_max);
	st_path(path, sizeof(path), "kptrace_stats");
	kpt = read_all(path);
	if (kpt) {
		char *w = strstr(kpt, "written: "), *dr = strstr(kpt, "dropped: ");
		char *q = strstr(kpt, "queued: ");

		printf("kptrace: %s%lu calls written, %lu dropped, %lu bytes queued\n",
		       kstate, w ? strtoul(w + 9, NULL, 10) : 0,
		       dr ? strtoul(dr + 9, NULL, 10) : 0,
		       q ? strtoul(q + 8, NULL, 10) : 0);
		free(kpt);
	}
	if (s.n)
		printf("next: %s, %s\n", "slabtrace top (the stacks holding most)",
		       "slabtrace leaks (all of them)");
	else
		printf("next: %s; %s\n", "slabtrace growth finds a growing cache",
		       "slabtrace record -c CACHE -- COMMAND traces it");
	stats_free(&s);
	return 0;
}

/* --- options: one table, each command takes its part --- */

static const char help_main[] =
	"usage: slabtrace COMMAND [OPTION...] [ARG...]\n"
	"       slabtrace COMMAND --help\n"
	"       slabtrace --help | --version\n"
	"\n"
	"  status     what is traced: records, drops, probes, kptrace\n"
	"  growth     which caches grew (only-growing ones first)\n"
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
	"usage: slabtrace growth [-i SECS] [-r ROUNDS] [-n N] [-- COMMAND [ARG...]]\n"
	"\n"
	"Which slab caches grew, from /proc/slabinfo: sampled before and after\n"
	"COMMAND, or every SECS seconds.  Caches that only grew come first.\n"
	"\n"
	"  -i SECS      seconds between samples, without COMMAND (1)\n"
	"  -r ROUNDS    samples after the first, without COMMAND (5)\n"
	"  -n N         show the first N caches (10)\n"
	"  -h, --help   this help\n";

static const char help_record[] =
	"usage: slabtrace record -c CACHE... | --auto [-o DIR] [-s SECS] [-n N] [--keep]\n"
	"                        -- COMMAND [ARG...]\n"
	"\n"
	"Trace caches around COMMAND: start them, run COMMAND, stop them, wait for\n"
	"deferred frees, save a snapshot into DIR and show the top stacks.\n"
	"\n"
	"  -c, --cache CACHE   a cache to trace; again for more (at most 16)\n"
	"      --auto          run COMMAND once untraced first, and trace the (up\n"
	"                      to three) caches that only grew meanwhile\n"
	"  -o, --output DIR    where to save (slabtrace.out)\n"
	"  -s, --settle SECS   seconds to wait for deferred frees (1)\n"
	"  -n N                stacks to show (10)\n"
	"      --keep          keep the records, stopped, for top and leaks\n"
	"  -h, --help          this help\n"
	"\n"
	"record stops and resets only the caches it started.  A cache traced\n"
	"already (by hand, or left by a killed record) is shared: never stopped\n"
	"or reset.  A cache another record is tracing, or one that holds the\n"
	"records of a stopped trace, is refused.  SIGINT, SIGTERM or SIGHUP ends\n"
	"COMMAND; record then saves, cleans up and exits with 128 + the signal.\n";

#define HELP_FILTERS \
	"      --bytes        rank by bytes, not objects\n" \
	"      --module M     only objects with a frame in module M\n" \
	"      --comm C       only objects allocated by command C (as dumps write it)\n" \
	"      --pid P        only objects allocated by process P\n" \
	"      --older MS     only objects at least MS milliseconds old\n"

static const char help_top[] =
	"usage: slabtrace top [-c CACHE]... [--bytes] [--module M] [--comm C] [--pid P]\n"
	"                     [--older MS] [-n N] [--json] [-i SECS [-r ROUNDS]]\n"
	"\n"
	"The stacks holding the most outstanding objects of each traced cache (or\n"
	"of each CACHE), from a fresh snapshot.\n"
	"\n"
	"  -c, --cache CACHE  a cache to show (default: every cache traced)\n"
	HELP_FILTERS
	"  -n N               show the first N stacks (10)\n"
	"      --json         the report as one JSON document on one line\n"
	"  -i SECS            a report every SECS seconds, until killed\n"
	"  -r ROUNDS          with -i: stop after ROUNDS reports\n"
	"  -h, --help         this help\n";

static const char help_leaks[] =
	"usage: slabtrace leaks [-c CACHE]... [--bytes] [--module M] [--comm C]\n"
	"                       [--pid P] [--older MS] [-n N] [--json]\n"
	"\n"
	"Every stack holding outstanding objects of each traced cache (or of each\n"
	"CACHE), with who allocated them, their ages and the full backtrace.\n"
	"\n"
	"  -c, --cache CACHE  a cache to show (default: every cache traced)\n"
	HELP_FILTERS
	"  -n N               show the first N stacks only\n"
	"      --json         the report as one JSON document on one line\n"
	"  -h, --help         this help\n";

static const char help_report[] =
	"usage: slabtrace report [--bytes] [--module M] [--comm C] [--pid P]\n"
	"                        [--older MS] [-n N] [--json] DUMP\n"
	"\n"
	"top on a saved per-object dump (record's CACHE.dump, or what reading\n"
	"ctl gave after a print), no module needed.\n"
	"\n"
	HELP_FILTERS
	"  -n N               show the first N stacks (10)\n"
	"      --json         the report as one JSON document on one line\n"
	"  -h, --help         this help\n";

static const char help_plain[] =
	"usage: slabtrace start|stop|reset|mark CACHE\n"
	"\n"
	"The module's commands, with their errors explained:\n"
	"  start CACHE   record every allocation from CACHE from now on\n"
	"  stop CACHE    record no new ones (frees still drop records)\n"
	"  reset CACHE   drop CACHE's records\n"
	"  mark CACHE    note the time (print CACHE since-mark shows what came after)\n"
	"  -h, --help    this help\n";

enum {
	OPT_BYTES = 256, OPT_MODULE, OPT_COMM, OPT_PID, OPT_OLDER, OPT_JSON,
	OPT_AUTO, OPT_KEEP,
};

static const struct option long_opts[] = {
	{ "cache", required_argument, NULL, 'c' },
	{ "output", required_argument, NULL, 'o' },
	{ "settle", required_argument, NULL, 's' },
	{ "bytes", no_argument, NULL, OPT_BYTES },
	{ "module", required_argument, NULL, OPT_MODULE },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "older", required_argument, NULL, OPT_OLDER },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "auto", no_argument, NULL, OPT_AUTO },
	{ "keep", no_argument, NULL, OPT_KEEP },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct filter {
	const char *module, *comm;
	long pid;		/* -1: any */
	long older;		/* ms; applied here by report only */
	bool by_bytes;
};

/* What the options of a command said. */
struct opts {
	const char *caches[MAX_CACHES];
	int ncaches;
	struct filter f;
	long older;		/* --older: the module's older-than */
	long top;		/* -n: stacks or caches shown */
	bool json, autosel, keep;
	const char *out;
	double settle;
	double interval;	/* -i: seconds between reports or samples */
	long rounds;		/* -r */
};

struct command {
	const char *name;
	const char *shorts;	/* getopt's option string */
	const int *longs;	/* the long options it takes, 0-ended */
	const char *help;
};

static const struct command *cur;	/* the command running */

/* "slabtrace CMD --help", where a usage error sends the user. */
static char help_hint[64];

#define usage(...) usage_error(help_hint, __VA_ARGS__)

/* A whole number of at least @min, or a usage error. */
static long count_arg(int opt, const char *arg, long min)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || *end || end == arg || n < min || !isdigit((unsigned char)*arg))
		usage("%s: -%c takes a whole number of at least %ld, not '%s'",
		      cur->name, opt, min, arg);
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

/* Seconds, above 0 (or 0 too, with @zero), or a usage error. */
static double secs_arg(int opt, const char *arg, bool zero)
{
	char *end;
	double s;

	errno = 0;
	s = strtod(arg, &end);
	if (errno || *end || end == arg || !isfinite(s) || s < 0 || (!zero && !s) ||
	    s > 1e6)
		usage("%s: -%c takes seconds (%s), not '%s'", cur->name, opt,
		      zero ? "0 or more" : "above 0", arg);
	return s;
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
	o->f.pid = -1;
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
		if (opt != '?' && opt != ':' && opt < OPT_BYTES &&
		    !strchr(cur->shorts + 2, opt))
			usage("%s: %s is not an option of %s", cur->name,
			      argv[optind - 1], cur->name);
		switch (opt) {
		case 'h':
			fputs(cur->help, stdout);
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
		case 's':
			o->settle = secs_arg(opt, optarg, true);
			break;
		case 'i':
			o->interval = secs_arg(opt, optarg, false);
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
		case OPT_PID:
			o->f.pid = long_count_arg("pid", optarg);
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

/* --- growth: /proc/slabinfo over time --- */

struct slab {
	char name[128];
	long active[2];		/* first and last sample */
	long objsize;
	bool shrank;		/* went down between two samples */
	bool seen;
	char aliases[512];
};

struct slabs {
	struct slab *v;
	int n;
};

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
static void slab_aliases(struct slabs *s)
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
static int slab_grown(struct slabs *s)
{
	int i, n = 0;

	for (i = 0; i < s->n; i++)
		if (s->v[i].active[1] > s->v[i].active[0])
			s->v[n++] = s->v[i];
	s->n = n;
	qsort(s->v, s->n, sizeof(*s->v), slab_cmp);
	return n;
}

/* Whether a signal came from the terminal (^C, a hang-up): COMMAND got it too. */
static atomic_int signal_from_tty, last_signal;

/*
 * Run @argv and wait for it; its exit status, or 128 + the signal that
 * killed it.  A signal record took meanwhile (nsignals) is passed on to it,
 * SIGINT as SIGINT and the others as SIGTERM, unless it came from the
 * terminal, which sent it to COMMAND as well; a second one kills it.
 */
static int run_command(char **argv)
{
	int first = nsignals, seen = nsignals;
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: cannot run %s: %s\n", prog_name, argv[0],
			strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
		if (nsignals == seen)
			continue;
		if (nsignals - first > 1)
			kill(pid, SIGKILL);
		else if (!signal_from_tty)
			kill(pid, last_signal == SIGINT ? SIGINT : SIGTERM);
		seen = nsignals;
	}
	if (WIFSIGNALED(status)) {
		note("%s was killed by signal %d", argv[0], WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	if (WEXITSTATUS(status))
		note("%s exited with %d", argv[0], WEXITSTATUS(status));
	return WEXITSTATUS(status);
}

/*
 * Sample /proc/slabinfo around @cmd (if any), or @rounds times @interval
 * seconds apart.  Returns the seconds the samples span.
 */
static double growth_sample(struct slabs *s, char **cmd, int rounds,
			    double interval)
{
	double t0 = now();
	int i;

	memset(s, 0, sizeof(*s));
	slab_sample(s, true);
	if (cmd) {
		run_command(cmd);
		slab_sample(s, false);
	} else {
		for (i = 0; i < rounds; i++) {
			sleep_secs(interval);
			slab_sample(s, false);
		}
	}
	return now() - t0;
}

static void growth_print(struct slabs *s, double secs, int top)
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

static int cmd_growth(struct opts *o, int argc, char **argv)
{
	char **cmd = argc ? argv : NULL;
	double secs;
	struct slabs s;

	if (cmd && (o->interval || o->rounds > 0))
		usage("growth: -i and -r are for sampling, without a command");
	secs = growth_sample(&s, cmd, o->rounds > 0 ? o->rounds : 5,
			     o->interval ? o->interval : 1);
	slab_aliases(&s);
	if (!slab_grown(&s)) {
		printf("no cache grew in %.1fs\n", secs);
		return 0;
	}
	printf("caches that grew in %.2fs (%s), only-growing ones first:\n",
	       secs, cmd ? "around the command" : "sampled");
	growth_print(&s, secs, o->top > 0 ? o->top : 10);
	free(s.v);
	return 0;
}

/* --- dumps: parse what reading ctl returns --- */

struct group {
	char *key;		/* frames and syscall, for grouping */
	char **frames;
	int nframes;
	char *syscall;		/* or NULL */
	long objects, bytes, requested;
	long age_min, age_max, age_sum;		/* ms */
	char *who[4];
	int nwho, more_who;
	long pids[4];
};

struct dump {
	char cache[256];
	double traced;
	long outstanding, bytes, dropped;
	struct group *g;
	int ng, capg;
	long listed;			/* objects the dump lists */
	long objects, obj_bytes;	/* after the filters */
};

/* The print a dump must come from: its cache and older-than (0: none). */
struct expect {
	const char *cache;	/* NULL: any (a saved dump) */
	long older;
};

static long secs_to_ms(const char *s)
{
	long sec = 0, ms = 0;

	if (sscanf(s, "%ld.%3lds", &sec, &ms) != 2)
		return 0;
	return sec * 1000 + ms;
}

/* The pid and command of a context, "PID 5 sh", "kthread x (PID 5)". */
static void ctx_parse(const char *who, long *pid, char *comm, size_t size)
{
	const char *p;

	*pid = -1;
	comm[0] = 0;
	if (sscanf(who, "PID %ld %255s", pid, comm) == 2)
		return;
	p = strchr(who, ' ');
	if (p && (!strncmp(who, "kthread ", 8) || !strncmp(who, "worker ", 7))) {
		const char *q = strstr(p, " (PID ");

		if (q) {
			snprintf(comm, size, "%.*s", (int)(q - p - 1), p + 1);
			*pid = atol(q + 6);
		}
		return;
	}
	snprintf(comm, size, "%s", who);
}

static struct group *group_get(struct dump *d, const char *key)
{
	int i;

	for (i = 0; i < d->ng; i++)
		if (!strcmp(d->g[i].key, key))
			return &d->g[i];
	if (d->ng == d->capg) {
		d->capg = d->capg ? 2 * d->capg : 64;
		d->g = xrealloc(d->g, d->capg * sizeof(*d->g));
	}
	memset(&d->g[d->ng], 0, sizeof(*d->g));
	d->g[d->ng].key = xstrdup(key);
	return &d->g[d->ng++];
}

struct object {
	long bytes, requested, age;
	char who[300];
	char syscall[64];
	char **frames;
	int nframes, cap;
};

static bool frame_in_module(const char *frame, const char *mod)
{
	const char *b = strrchr(frame, '[');
	size_t n = strlen(mod);

	return b && !strncmp(b + 1, mod, n) && b[1 + n] == ']';
}

static void object_add(struct dump *d, struct object *o,
		       const struct filter *f)
{
	char comm[320], *key;
	struct group *g;
	size_t len = 0;
	long pid;
	int i;

	ctx_parse(o->who, &pid, comm, sizeof(comm));
	d->listed++;
	if (o->age < f->older)
		goto out;
	if (f->pid >= 0 && pid != f->pid)
		goto out;
	if (f->comm && strcmp(comm, f->comm))
		goto out;
	if (f->module) {
		for (i = 0; i < o->nframes; i++)
			if (frame_in_module(o->frames[i], f->module))
				break;
		if (i == o->nframes)
			goto out;
	}
	for (i = 0; i < o->nframes; i++)
		len += strlen(o->frames[i]) + 1;
	key = xmalloc(len + strlen(o->syscall) + 2);
	len = sprintf(key, "%s", o->syscall);
	for (i = 0; i < o->nframes; i++)
		len += sprintf(key + len, "\n%s", o->frames[i]);
	g = group_get(d, key);
	free(key);
	if (!g->objects) {
		g->frames = o->frames;
		g->nframes = o->nframes;
		o->frames = NULL;
		g->syscall = o->syscall[0] ? xstrdup(o->syscall) : NULL;
		g->age_min = o->age;
	}
	g->objects++;
	g->bytes += o->bytes;
	g->requested += o->requested;
	g->age_sum += o->age;
	if (o->age < g->age_min)
		g->age_min = o->age;
	if (o->age > g->age_max)
		g->age_max = o->age;
	for (i = 0; i < g->nwho; i++)
		if (!strcmp(g->who[i], o->who))
			break;
	if (i == g->nwho) {
		if (g->nwho < 4) {
			g->pids[g->nwho] = pid;
			g->who[g->nwho++] = xstrdup(o->who);
		} else {
			g->more_who++;
		}
	}
	d->objects++;
	d->obj_bytes += o->bytes;
out:
	for (i = 0; o->frames && i < o->nframes; i++)
		free(o->frames[i]);
	free(o->frames);
	memset(o, 0, sizeof(*o));
}

/*
 * Whether the header line @line (after "Dumping outstanding allocs from ")
 * is that of the print @e describes; says why not, for @src.
 */
static bool header_is(const char *line, const struct expect *e, const char *src)
{
	char want[600], name[300];

	if (!e->cache)
		return true;
	kernel_escape(e->cache, name, sizeof(name));
	if (e->older)
		snprintf(want, sizeof(want), "%s (older than %ld ms)", name, e->older);
	else
		snprintf(want, sizeof(want), "%s", name);
	if (!strcmp(line, want))
		return true;
	fflush(stdout);
	fprintf(stderr, "%s: %s: the dump is of '", prog_name, src);
	put_escaped(stderr, line);
	fputs("', not of the print made for '", stderr);
	put_escaped(stderr, want);
	fputs("' (another print in between?)\n", stderr);
	return false;
}

/*
 * Parse a per-object dump (what ctl returns after "print CACHE") into
 * groups of objects by backtrace and system call.  @src names the input
 * in errors; the dump must be of the print @e, and list as many objects
 * as its header counts.  Returns false if @text is not such a dump.
 */
static bool dump_parse(char *text, struct dump *d, const struct filter *f,
		       const struct expect *e, const char *src)
{
	struct object o = { 0 };
	bool in_obj = false, header = false, traced = false;
	char *line, *save = NULL;

	memset(d, 0, sizeof(*d));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int nr;
		int off = 0;

		if (!strncmp(line, "Dumping outstanding allocs from ", 32)) {
			char *p = line + 32;

			if (header) {
				note("%s: a second dump header", src);
				return false;
			}
			if (strstr(p, " (by stack")) {
				note("%s: a stacks view, not a per-object dump", src);
				return false;
			}
			if (!header_is(p, e, src))
				return false;
			snprintf(d->cache, sizeof(d->cache), "%.*s",
				 (int)strcspn(p, " "), p);
			header = true;
		} else if (header && !traced && !strncmp(line, "traced ", 7)) {
			char t[32];

			if (sscanf(line, "traced %31[0-9.]s, %ld outstanding (%ld bytes)",
				   t, &d->outstanding, &d->bytes) != 3) {
				note("%s: cannot read '%.60s'", src, line);
				return false;
			}
			d->traced = atof(t);
			if (strstr(line, "records dropped"))
				d->dropped = atol(strrchr(line, ',') + 2);
			traced = true;
		} else if (!strncmp(line, "Obj ", 4)) {
			char *p, *q;

			if (!traced)
				break;
			if (in_obj)
				object_add(d, &o, f);
			in_obj = true;
			p = strchr(line, ',');
			if (!p || sscanf(p, ", %ld bytes (%ld requested)",
					 &o.bytes, &o.requested) != 2) {
				note("%s: cannot read '%.60s'", src, line);
				return false;
			}
			p = strstr(line, ", age ");
			o.age = p ? secs_to_ms(p + 6) : 0;
			p = strstr(line, ", from ");
			if (!p) {
				note("%s: cannot read '%.60s'", src, line);
				return false;
			}
			p += 7;
			q = strstr(p, " in syscall ");
			if (q) {
				snprintf(o.syscall, sizeof(o.syscall), "%.*s",
					 (int)(strlen(q + 12) - 1), q + 12);
				*q = 0;
			} else {
				p[strlen(p) - 1] = 0;	/* the ':' */
			}
			snprintf(o.who, sizeof(o.who), "%s", p);
		} else if (in_obj && sscanf(line, " #%u [<%*[^>]>] in %n", &nr,
					    &off) == 1 && off > 0) {
			if (o.nframes == o.cap) {
				o.cap = o.cap ? 2 * o.cap : 16;
				o.frames = xrealloc(o.frames,
						    o.cap * sizeof(*o.frames));
			}
			o.frames[o.nframes++] = xstrdup(line + off);
		} else if (!strncmp(line, "Stack ", 6)) {
			note("%s: a stacks view, not a per-object dump", src);
			return false;
		}
	}
	if (in_obj)
		object_add(d, &o, f);
	if (!header) {
		note("%s: not a slabtrace dump (no 'Dumping outstanding allocs' line)",
		     src);
		return false;
	}
	if (!traced) {
		note("%s: the dump is cut short: no 'traced' line after its header", src);
		return false;
	}
	if (d->listed != d->outstanding) {
		note("%s: the dump is cut short: it lists %ld objects, its header counts %ld",
		     src, d->listed, d->outstanding);
		return false;
	}
	return true;
}

static const struct filter *sort_filter;

static int group_cmp(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;

	if (sort_filter->by_bytes && a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->objects != b->objects)
		return a->objects > b->objects ? -1 : 1;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->age_max != b->age_max)
		return a->age_max > b->age_max ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* The function of a frame: "leaky_alloc_buf+0x1b/0x20 [leaky]" → name. */
static void frame_func(const char *frame, char *buf, size_t size)
{
	size_t n = strcspn(frame, "+ ");
	const char *mod = strrchr(frame, '[');

	if (mod)
		snprintf(buf, size, "%.*s %s", (int)n, frame, mod);
	else
		snprintf(buf, size, "%.*s", (int)n, frame);
}

static void print_ms(long ms)
{
	printf("%ld.%03lds", ms / 1000, ms % 1000);
}

static void group_print(const struct group *g, int rank, bool full)
{
	char fn[512];
	int i;

	printf("%4d %8ld %10ld %10ld  ", rank, g->objects, g->bytes,
	       g->requested);
	print_ms(g->age_max);
	printf("  ");
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
	for (i = 0; i < g->nwho; i++) {
		printf("%s", i ? ", " : "");
		put_escaped(stdout, g->who[i]);
	}
	if (g->more_who)
		printf(" and %d more", g->more_who);
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
static void dump_print(const struct dump *d, long top, bool full)
{
	int i;

	put_escaped(stdout, d->cache);
	printf(": %ld outstanding objects (%ld bytes), traced %.3fs, %ld records dropped",
	       d->outstanding, d->bytes, d->traced, d->dropped);
	if (d->objects != d->outstanding)
		printf("; %ld objects (%ld bytes) pass the filters",
		       d->objects, d->obj_bytes);
	printf("; %d stacks\n", d->ng);
	if (!d->ng)
		return;
	printf("%4s %8s %10s %10s  %-7s  %s\n", "#", "objects", "bytes",
	       "requested", "age max", full ? "who, ages, backtrace" :
	       "allocated in (innermost first)");
	for (i = 0; i < d->ng && (top < 0 || i < top); i++)
		group_print(&d->g[i], i + 1, full);
}

/* One element of "frames": function, module, the frame as written. */
static void frame_json(const char *frame)
{
	const char *mod = strrchr(frame, '[');
	char fn[512];

	snprintf(fn, sizeof(fn), "%.*s", (int)strcspn(frame, "+ "), frame);
	printf("{\"function\": ");
	put_json_string(stdout, fn);
	printf(", \"module\": ");
	if (mod) {
		snprintf(fn, sizeof(fn), "%.*s", (int)strcspn(mod + 1, "]"), mod + 1);
		put_json_string(stdout, fn);
	} else {
		printf("null");
	}
	printf(", \"text\": ");
	put_json_string(stdout, frame);
	putchar('}');
}

/*
 * The cache's element of "caches" (slabtrace(8), JSON OUTPUT), on the
 * line it is on: the first @top groups (all if @top < 0).
 */
static void dump_json(const struct dump *d, long top)
{
	int i, j;

	printf("{\"cache\": ");
	put_json_string(stdout, d->cache);
	printf(", \"traced_s\": %.3f, \"outstanding\": %ld, \"bytes\": %ld",
	       d->traced, d->outstanding, d->bytes);
	printf(", \"dropped\": %ld, \"matched_objects\": %ld", d->dropped,
	       d->objects);
	printf(", \"matched_bytes\": %ld, \"stacks\": [", d->obj_bytes);
	for (i = 0; i < d->ng && (top < 0 || i < top); i++) {
		const struct group *g = &d->g[i];

		printf("%s{\"rank\": %d, \"objects\": %ld", i ? ", " : "",
		       i + 1, g->objects);
		printf(", \"bytes\": %ld, \"requested\": %ld", g->bytes,
		       g->requested);
		printf(", \"age_min_ms\": %ld, \"age_avg_ms\": %ld", g->age_min,
		       g->age_sum / g->objects);
		printf(", \"age_max_ms\": %ld, \"syscall\": ", g->age_max);
		if (g->syscall)
			put_json_string(stdout, g->syscall);
		else
			printf("null");
		printf(", \"contexts\": [");
		for (j = 0; j < g->nwho; j++) {
			printf("%s{\"context\": ", j ? ", " : "");
			put_json_string(stdout, g->who[j]);
			printf(", \"pid\": %ld}", g->pids[j]);
		}
		printf("], \"more_contexts\": %d, \"frames\": [", g->more_who);
		for (j = 0; j < g->nframes; j++) {
			printf("%s", j ? ", " : "");
			frame_json(g->frames[j]);
		}
		printf("]}");
	}
	printf("]}");
}

static void dump_free(struct dump *d)
{
	int i, j;

	for (i = 0; i < d->ng; i++) {
		for (j = 0; j < d->g[i].nframes; j++)
			free(d->g[i].frames[j]);
		for (j = 0; j < d->g[i].nwho; j++)
			free(d->g[i].who[j]);
		free(d->g[i].frames);
		free(d->g[i].syscall);
		free(d->g[i].key);
	}
	free(d->g);
}

/* --- a print, and what it shows, in a session of its own --- */

/* The write end of record's pipe to its watchdog; -1 if none. */
static int watchdog_fd = -1;

static void write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("write to the parent: %s", strerror(errno));
		p += n;
		len -= n;
	}
}

static bool read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

/* A text through a pipe: its length, then its bytes. */
static void blob_send(int fd, const char *text)
{
	size_t len = strlen(text);

	write_full(fd, &len, sizeof(len));
	write_full(fd, text, len);
}

static char *blob_recv(int fd)
{
	size_t len;
	char *text;

	if (!read_full(fd, &len, sizeof(len)) || len == SIZE_MAX)
		return NULL;
	text = xmalloc(len + 1);
	if (!read_full(fd, text, len)) {
		free(text);
		return NULL;
	}
	text[len] = 0;
	return text;
}

/* What a print shows: ctl, then the views of the same snapshot. */
enum { VIEW_CTL, VIEW_STACKS, VIEW_FOLDED, VIEW_FOLDED_BYTES, NVIEWS };
static const char *const view_files[NVIEWS] = {
	"ctl", "stacks", "folded", "folded_bytes",
};

/* The child of snapshot(): print, and send the first @nviews views to @out. */
static noreturn void snapshot_child(const char *cache, long older, int nviews,
				    int out)
{
	char cmd[512], why[1024], path[PATH_MAX];
	char *text;
	int fd, i;

	if (older)
		snprintf(cmd, sizeof(cmd), "print %s older-than %ld", cache, older);
	else
		snprintf(cmd, sizeof(cmd), "print %s", cache);
	fd = ctl_open(O_RDWR, true);
	if (ctl_send(fd, cmd, why, sizeof(why)))
		ctl_failed(cmd, why);
	st_path(path, sizeof(path), "ctl");
	if (lseek(fd, 0, SEEK_SET) < 0)
		die("%s: %s", path, strerror(errno));
	text = read_fd(fd);
	if (!text)
		die("%s: %s", path, strerror(errno));
	blob_send(out, text);
	free(text);
	for (i = VIEW_CTL + 1; i < nviews; i++) {
		st_path(path, sizeof(path), view_files[i]);
		text = read_all(path);
		if (!text)
			die("%s: %s", path, strerror(errno));
		blob_send(out, text);
		free(text);
	}
	exit(0);
}

/*
 * A child with a pipe (@p, close-on-exec) to talk over; its pid, 0 in the
 * child.  What stdout and stderr hold is written first, not twice.
 */
static pid_t fork_piped(int p[2])
{
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	return pid;
}

/*
 * "print CACHE [older-than MS]", and the text of the first @nviews views
 * of view_files[] into @texts.  The print is made and read by a child in
 * a session of its own, through the file that wrote it: the module keeps
 * one snapshot per session, and no print of another process of ours can
 * come between.  If the print fails, the child says why and this exits
 * as it did.
 */
static void snapshot(const char *cache, long older, int nviews, char **texts)
{
	int p[2], status, i;
	pid_t pid;

	pid = fork_piped(p);
	if (!pid) {
		close(p[0]);
		if (watchdog_fd >= 0)
			close(watchdog_fd);
		setsid();
		snapshot_child(cache, older, nviews, p[1]);
	}
	close(p[1]);
	for (i = 0; i < nviews; i++)
		texts[i] = blob_recv(p[0]);
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	if (!WIFEXITED(status))
		die("the print of %s was killed by signal %d", cache,
		    WTERMSIG(status));
	if (WEXITSTATUS(status))
		exit(WEXITSTATUS(status));
	for (i = 0; i < nviews; i++)
		if (!texts[i])
			die("the print of %s: %s unread", cache, view_files[i]);
}

/* --- top, leaks, report --- */

/* Stacks shown: -n, else 10 (all in leaks). */
static long shown(const struct opts *o, bool full)
{
	return o->top > 0 ? o->top : full ? -1 : 10;
}

/*
 * A JSON document (slabtrace(8), JSON OUTPUT) starts; @report is its
 * number with -i, 0 without.
 */
static void json_begin(long report)
{
	struct timespec ts;

	printf("{\"version\": %d", JSON_VERSION);
	if (report) {
		clock_gettime(CLOCK_REALTIME, &ts);
		printf(", \"report\": %ld, \"time\": %lld.%03ld", report,
		       (long long)ts.tv_sec, ts.tv_nsec / 1000000);
	}
	printf(", \"caches\": [");
}

static void json_end(void)
{
	printf("]}\n");
}

/* Group, sort and show one dump; exits if it is not the one of @e. */
static void show_dump(char *text, const struct opts *o, bool full,
		      const struct expect *e, const char *src, bool *first)
{
	struct dump d;

	if (!dump_parse(text, &d, &o->f, e, src))
		exit(1);
	sort_filter = &o->f;
	qsort(d.g, d.ng, sizeof(*d.g), group_cmp);
	if (o->json) {
		printf("%s", *first ? "" : ", ");
		dump_json(&d, shown(o, full));
	} else {
		if (!*first)
			putchar('\n');
		dump_print(&d, shown(o, full), full);
	}
	*first = false;
	dump_free(&d);
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
		read_stats(&s);
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
			show_dump(text, o, full, &e, "ctl", &first);
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

static int cmd_top(struct opts *o, int argc, char **argv)
{
	return cmd_view(o, argc, argv, false);
}

static int cmd_leaks(struct opts *o, int argc, char **argv)
{
	return cmd_view(o, argc, argv, true);
}

/* slabtrace report DUMP: top on a saved dump, no module needed. */
static int cmd_report(struct opts *o, int argc, char **argv)
{
	struct expect e = { NULL, 0 };
	bool first = true;
	char *text;

	if (argc != 1)
		usage("report: one DUMP, not %d arguments", argc);
	text = read_all(argv[0]);
	if (!text)
		die("%s: %s", argv[0], strerror(errno));
	o->f.older = o->older;
	if (o->json)
		json_begin(0);
	show_dump(text, o, false, &e, argv[0], &first);
	if (o->json)
		json_end();
	free(text);
	return 0;
}

/* --- record --- */

static void save(const char *dir, const char *cache, const char *ext,
		 const char *text)
{
	char path[PATH_MAX + 300], name[256];
	FILE *f;
	int i;

	snprintf(name, sizeof(name), "%s", cache);
	for (i = 0; name[i]; i++)
		if (name[i] == '/')
			name[i] = '_';
	snprintf(path, sizeof(path), "%s/%s.%s", dir, name, ext);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		die("%s: %s", path, strerror(errno));
}

/* --auto: the caches that grew while @cmd ran, most bytes first. */
static void auto_caches(struct opts *o, char **cmd)
{
	struct slabs s;
	double secs;
	int i;

	printf("record: a first run of the command, to see which caches grow\n");
	secs = growth_sample(&s, cmd, 0, 0);
	if (nsignals)
		exit(128 + last_signal);
	slab_aliases(&s);
	if (!slab_grown(&s))
		die("record --auto: no cache grew while the command ran; name one with -c");
	growth_print(&s, secs, 5);
	for (i = 0; i < s.n && o->ncaches < 3; i++) {
		if (s.v[i].shrank)
			continue;
		if (!strncmp(s.v[i].name, "slabtrace", 9))
			continue;
		o->caches[o->ncaches++] = xstrdup(s.v[i].name);
	}
	if (!o->ncaches)
		o->caches[o->ncaches++] = xstrdup(s.v[0].name);
	free(s.v);
}

/* A cache record was asked to trace. */
struct rec_cache {
	const char *name;
	bool own;		/* started here: stopped and reset here */
	bool used;		/* traced here, owned or shared */
	int lock;		/* its /sys/kernel/slab entry, locked while owned; -1 */
};

struct rec {
	struct rec_cache c[MAX_CACHES];
	int n;
	bool keep;		/* --keep: stop, but no reset */
	pid_t watchdog;
};

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	last_signal = sig;
	signal_from_tty = si->si_code == SI_KERNEL;
	nsignals++;
}

/* No SA_RESTART: a wait or a sleep returns, and record looks. */
static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * flock(@how) the directory @path: its fd; -1 if it cannot be opened (no
 * sysfs: no lock), -2 if another process holds it (with LOCK_NB).
 */
static int lock_dir(const char *path, int how)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (flock(fd, how)) {
		if (errno == EINTR)
			continue;
		close(fd);
		return errno == EWOULDBLOCK ? -2 : -1;
	}
	return fd;
}

static void unlock(struct rec_cache *c)
{
	if (c->lock >= 0)
		close(c->lock);
	c->lock = -1;
}

/*
 * Stop the caches of @r started here and, unless --keep, reset them; the
 * watchdog's way, which says nothing of what fails (record may have done
 * it already).
 */
static void release_quietly(const struct rec *r)
{
	char why[1024];
	int i;

	for (i = 0; i < r->n; i++) {
		if (!r->c[i].own)
			continue;
		ctl_try(why, sizeof(why), "stop %s", r->c[i].name);
		if (!r->keep)
			ctl_try(why, sizeof(why), "reset %s", r->c[i].name);
	}
}

/*
 * The watchdog: waits in a session of its own, deaf to the terminal's
 * signals, for record's word (a byte) on @fd.  The pipe closing without it
 * means record is gone without cleaning up (SIGKILL, a crash): then the
 * watchdog does it.  It holds the caches' locks (their fds, inherited)
 * until then.
 */
static noreturn void watchdog_main(const struct rec *r, int fd)
{
	pid_t record = getppid();
	char byte;
	ssize_t n;
	int i;

	setsid();
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	do
		n = read(fd, &byte, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1)
		_exit(0);
	release_quietly(r);
	for (i = 0; i < r->n; i++)
		if (r->c[i].own)
			note("record (pid %d) ended without cleaning up; its watchdog %s %s",
			     (int)record, r->keep ? "stopped" : "stopped and reset",
			     r->c[i].name);
	_exit(0);
}

static void watchdog_start(struct rec *r)
{
	int p[2];
	pid_t pid;

	pid = fork_piped(p);
	if (!pid) {
		close(p[1]);
		watchdog_main(r, p[0]);
	}
	close(p[0]);
	watchdog_fd = p[1];
	r->watchdog = pid;
}

/* record cleaned up: the watchdog goes, and with it the caches' locks. */
static void watchdog_done(struct rec *r)
{
	int i;

	if (watchdog_fd >= 0) {
		if (write(watchdog_fd, "", 1) != 1)
			note("the watchdog (pid %d) is gone", (int)r->watchdog);
		close(watchdog_fd);
		watchdog_fd = -1;
		while (waitpid(r->watchdog, NULL, 0) < 0 && errno == EINTR)
			;
	}
	for (i = 0; i < r->n; i++)
		unlock(&r->c[i]);
}

/*
 * Why record will not trace @c, given what stats says of it (@t, NULL if
 * it is not traced), into @buf; false if it will.
 */
static bool refused(const struct rec_cache *c, const struct traced *t,
		    char *buf, size_t size)
{
	if (c->lock == -2)
		snprintf(buf, size, "another slabtrace record is tracing it (%s%s%s)",
			 "slabtrace top -c ", c->name, " reads it meanwhile");
	else if (t && !t->tracing)
		snprintf(buf, size, "it holds the records of a stopped trace %s%s%s%s%s",
			 "(slabtrace leaks -c ", c->name, " shows them, slabtrace reset ",
			 c->name, " drops them)");
	else
		return false;
	return true;
}

/*
 * Take the caches of @r: under the lock of /sys/kernel/slab, so that two
 * records decide one after the other, own the ones nobody traces (locked,
 * started), share the ones traced already, refuse the others: exit 1, or
 * with @autosel leave them out.  Then the watchdog starts.
 */
static void rec_take(struct rec *r, bool autosel)
{
	char path[PATH_MAX], why[1024];
	const struct traced *t;
	bool no = false;
	struct stats s;
	int all, i;

	slab_dir(path, sizeof(path), "");
	all = lock_dir(path, LOCK_EX);
	read_stats(&s);
	for (i = 0; i < r->n; i++) {
		struct rec_cache *c = &r->c[i];

		slab_dir(path, sizeof(path), c->name);
		c->lock = lock_dir(path, LOCK_EX | LOCK_NB);
		t = stats_find(&s, c->name);
		if (refused(c, t, why, sizeof(why))) {
			note("record: not tracing %s: %s", c->name, why);
			no = true;
			continue;
		}
		c->used = true;
		c->own = !t;
		if (!c->own)
			unlock(c);
	}
	stats_free(&s);
	if (no && !autosel)
		exit(1);
	for (i = 0; i < r->n; i++) {
		struct rec_cache *c = &r->c[i];

		if (!c->own || !ctl_try(why, sizeof(why), "start %s", c->name))
			continue;
		note("record: not tracing %s: %s", c->name, why);
		c->own = false;
		c->used = false;
		unlock(c);
		if (autosel)
			continue;
		while (++i < r->n)
			r->c[i].own = false;	/* not started yet */
		release_quietly(r);
		exit(1);
	}
	/* Not inherited by the watchdog: other records may decide now. */
	if (all >= 0)
		close(all);
	for (i = 0; i < r->n; i++)
		if (r->c[i].own) {
			watchdog_start(r);
			break;
		}
}

static const char *const saved_views[NVIEWS] = {
	"dump", "stacks", "folded", "folded_bytes",
};

static int cmd_record(struct opts *o, int argc, char **argv)
{
	char dir[PATH_MAX], *texts[NVIEWS];
	bool first = true, saved = true, shared = false, owned = false;
	int ended;
	struct rec r;
	int i, j, rc = 0;

	if (!argc)
		usage("record: no COMMAND (after --)");
	if (o->json || o->interval || o->rounds > 0)
		usage("record: --json, -i and -r are for top");
	if (o->ncaches && o->autosel)
		usage("record: -c or --auto, not both");
	if (!o->ncaches && !o->autosel)
		usage("record: name the caches with -c CACHE, or let --auto find them");
	st_check("ctl", R_OK | W_OK);
	for (i = 0; i < o->ncaches; i++)
		need_cache(o->caches[i]);
	snprintf(dir, sizeof(dir), "%s", o->out ? o->out : "slabtrace.out");
	if (mkdir(dir, 0755) && errno != EEXIST)
		die("%s: %s", dir, strerror(errno));
	catch_signals();
	if (o->autosel)
		auto_caches(o, argv);
	memset(&r, 0, sizeof(r));
	r.keep = o->keep;
	for (i = 0; i < o->ncaches; i++) {
		r.c[r.n].name = o->caches[i];
		r.c[r.n++].lock = -1;
	}
	rec_take(&r, o->autosel);
	for (i = 0; i < r.n && !r.c[i].used; i++)
		;
	if (i == r.n)
		die("record: no cache could be traced");
	printf("record: tracing");
	for (i = 0; i < r.n; i++) {
		if (r.c[i].used)
			printf(" %s%s", r.c[i].name, r.c[i].own ? "" : " (shared)");
		shared |= r.c[i].used && !r.c[i].own;
		owned |= r.c[i].own;
	}
	printf("; running");
	for (i = 0; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	if (shared)
		printf("record: %s, %s\n",
		       "a shared cache was traced before: it is not stopped or reset here",
		       "and its dump holds what it held before too");
	if (!nsignals)
		rc = run_command(argv);
	else
		note("record: signal %d came before %s started: not run", (int)last_signal,
		     argv[0]);
	ended = nsignals;
	for (i = 0; i < r.n; i++)
		if (r.c[i].own)
			ctl("stop %s", r.c[i].name);
	if (o->settle > 0 && nsignals == ended) {
		printf("record: waiting %.1fs for deferred frees (RCU)\n", o->settle);
		sleep_secs(o->settle);
	}
	for (i = 0; i < r.n; i++) {
		struct expect e = { r.c[i].name, 0 };

		if (!r.c[i].used)
			continue;
		if (nsignals != ended) {
			saved = false;
			break;
		}
		snapshot(r.c[i].name, 0, NVIEWS, texts);
		for (j = 0; j < NVIEWS; j++)
			save(dir, r.c[i].name, saved_views[j], texts[j]);
		show_dump(texts[VIEW_CTL], o, false, &e, "ctl", &first);
		for (j = 0; j < NVIEWS; j++)
			free(texts[j]);
	}
	for (i = 0; i < r.n; i++)
		if (r.c[i].own && !r.keep)
			ctl("reset %s", r.c[i].name);
	watchdog_done(&r);
	if (!saved)
		note("record: signal %d: stopped%s what it started, saved what it had",
		     (int)last_signal, r.keep ? "" : " and reset");
	else
		printf("\nrecord: saved in %s/: CACHE.dump (every object), CACHE.stacks,\n"
		       "CACHE.folded and CACHE.folded_bytes (%s)%s%s\n", dir,
		       "slabtrace-flamegraph CACHE.folded_bytes > leaks.svg",
		       owned && !r.keep ? "; the records are reset" : "",
		       shared ? "; the shared caches are left as they were" : "");
	if (nsignals)
		return 128 + last_signal;
	return rc ? 3 : 0;
}

/* --- the plain commands --- */

static int cmd_plain(struct opts *o, int argc, char **argv)
{
	(void)o;
	if (argc != 1)
		usage("%s: one CACHE, not %d arguments", cur->name, argc);
	need_cache(argv[0]);
	ctl("%s %s", cur->name, argv[0]);
	return 0;
}

static const int longs_view[] = {
	OPT_BYTES, OPT_MODULE, OPT_COMM, OPT_PID, OPT_OLDER, OPT_JSON, 0,
};

static const int longs_record[] = { OPT_AUTO, OPT_KEEP, 0 };

static const struct {
	struct command c;
	int (*run)(struct opts *o, int argc, char **argv);
} commands[] = {
	{ { "status", "+:h", NULL, help_status }, NULL },
	{ { "growth", "+:i:r:n:h", NULL, help_growth }, cmd_growth },
	{ { "record", "+:c:o:s:n:h", longs_record, help_record }, cmd_record },
	{ { "top", "+:c:n:i:r:h", longs_view, help_top }, cmd_top },
	{ { "leaks", "+:c:n:h", longs_view, help_leaks }, cmd_leaks },
	{ { "report", "+:n:h", longs_view, help_report }, cmd_report },
	{ { "start", "+:h", NULL, help_plain }, cmd_plain },
	{ { "stop", "+:h", NULL, help_plain }, cmd_plain },
	{ { "reset", "+:h", NULL, help_plain }, cmd_plain },
	{ { "mark", "+:h", NULL, help_plain }, cmd_plain },
};

int main(int argc, char **argv)
{
	struct opts o;
	size_t i;
	int n;

	prog_name = "slabtrace";
	if (argc < 2) {
		fputs(help_main, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		fputs(help_main, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("slabtrace %s\n", VERSION);
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
	if (!commands[i].run) {
		if (n != argc - 1)
			usage("status: no arguments, not '%s'", argv[1 + n]);
		return cmd_status();
	}
	return commands[i].run(&o, argc - 1 - n, argv + 1 + n);
}
