// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace(8): the command line over /sys/kernel/debug/slabtrace/.
 *
 *   slabtrace status
 *   slabtrace growth [-i SECS] [-r ROUNDS] [-n N] [-- COMMAND...]
 *   slabtrace record [-c CACHE]... [--auto] [-o DIR] [-s SECS] [-n N]
 *                    [--keep] -- COMMAND...
 *   slabtrace top [-c CACHE]... [--bytes] [--module M] [--comm C] [--pid P]
 *                 [--older MS] [-n N] [--json]
 *   slabtrace leaks [same options as top]
 *   slabtrace start|stop|reset|mark CACHE
 *
 * The module stays the one source of truth: every command here is a
 * write to ctl and a read of what the module prints; this program only
 * parses, groups, filters and explains.  When a write fails, the reason is
 * the line the module logged for it (read from /dev/kmsg), not the errno.
 *
 * For tests on a machine without the module, the roots can be moved:
 * SLABTRACE_DEBUGFS (default /sys/kernel/debug), SLABTRACE_PROC (/proc),
 * SLABTRACE_SYSFS (/sys), SLABTRACE_KMSG (/dev/kmsg).
 *
 * Static, libc only: the same binary runs on Debian and in a busybox VM.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define VERSION "0.1"
#define JSON_VERSION 1

static char debugfs[1024];	/* where debugfs is mounted */
static char stdir[1100];	/* debugfs/slabtrace */
static const char *procfs = "/proc";
static const char *sysfs = "/sys";
static const char *kmsg_path = "/dev/kmsg";

/* "slabtrace: MESSAGE" on standard error, after what stdout holds. */
static void vnote(const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs("slabtrace: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}

static noreturn void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory");
	return p;
}

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

static void sleep_secs(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The whole of a file, NUL-terminated; NULL with errno set on failure. */
static char *read_all(const char *path)
{
	size_t len = 0, cap = 65536;
	char *buf;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	buf = xmalloc(cap);
	for (;;) {
		if (cap - len < 4096) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
	buf[len] = 0;
	return buf;
}

static void path_of(char *buf, const char *file)
{
	snprintf(buf, PATH_MAX, "%s/%s", stdir, file);
}

/*
 * Why the module cannot be reached: not root, debugfs not mounted, module
 * not loaded.  Dies with the cause if so.
 */
static void check_module(void)
{
	char ctl[PATH_MAX], mod[PATH_MAX];
	struct dirent *de;
	bool empty = true;
	DIR *d;

	path_of(ctl, "ctl");
	if (!access(ctl, F_OK)) {
		if (access(ctl, R_OK | W_OK) && (errno == EACCES || errno == EPERM))
			die("needs root: %s is root's only (run it with sudo)", ctl);
		return;
	}
	if (errno == EACCES || errno == EPERM)
		die("needs root: %s is root's only (run it with sudo)", debugfs);
	d = opendir(debugfs);
	if (!d && (errno == EACCES || errno == EPERM))
		die("needs root: %s is root's only (run it with sudo)", debugfs);
	while (d && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = false;
			break;
		}
	}
	if (d)
		closedir(d);
	if (empty)
		die("debugfs is not mounted on %s (mount -t debugfs none %s)",
		    debugfs, debugfs);
	snprintf(mod, sizeof(mod), "%s/module/slabtrace", sysfs);
	if (access(mod, F_OK))
		die("the slabtrace module is not loaded (insmod slabtrace.ko, %s)",
		    "or modprobe slabtrace after make modules_install");
	die("the slabtrace module is loaded but %s is missing (a module of another version?)",
	    ctl);
}

/* --- error reasons: the kernel log line of the failed command --- */

static int kmsg_fd = -1;

/* Remember where the kernel log ends, before a command. */
static void kmsg_mark(void)
{
	if (kmsg_fd < 0)
		kmsg_fd = open(kmsg_path, O_RDONLY | O_NONBLOCK);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
}

/*
 * The last "slabtrace: " line logged since kmsg_mark(), without the
 * prefix, into @buf; false if there is none.
 */
static bool kmsg_reason(char *buf, size_t size)
{
	char rec[8192];
	bool found = false;
	ssize_t n;

	if (kmsg_fd < 0)
		return false;
	for (;;) {
		char *text, *nl;

		n = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (n <= 0)
			break;
		rec[n] = 0;
		text = strchr(rec, ';');
		if (!text)
			continue;
		text++;
		nl = strchr(text, '\n');
		if (nl)
			*nl = 0;
		if (strncmp(text, "slabtrace: ", 11))
			continue;
		snprintf(buf, size, "%s", text + 11);
		found = true;
	}
	return found;
}

/*
 * The reason the module gave for a failed command: its last_error file
 * (if the module has one), else its kernel log line, else the errno.
 */
static void reason_of(int err, char *buf, size_t size)
{
	char path[PATH_MAX];
	char *text;

	if (kmsg_reason(buf, size))
		return;
	path_of(path, "last_error");
	text = read_all(path);
	if (text && *text) {
		text[strcspn(text, "\n")] = 0;
		snprintf(buf, size, "%s", text);
		free(text);
		return;
	}
	free(text);
	snprintf(buf, size, "%s (no reason in the kernel log)", strerror(err));
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

static bool cache_exists(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/kernel/slab/%s", sysfs, name);
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
	snprintf(path, sizeof(path), "%s/kernel/slab", sysfs);
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

	snprintf(path, sizeof(path), "%s/kernel/slab", sysfs);
	if (access(path, F_OK) || cache_exists(name))
		return;	/* no sysfs to ask: the module will say */
	fflush(stdout);
	fputs("slabtrace: no such cache '", stderr);
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
 * One command to ctl.  Returns 0, or -errno with the module's reason in
 * @why (when @why is not NULL; else dies with it).
 */
static int ctl_try(char *why, size_t size, const char *fmt, ...)
{
	char cmd[512], path[PATH_MAX], reason[1024];
	va_list ap;
	ssize_t n;
	int fd, err;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd) - 1, fmt, ap);
	va_end(ap);
	path_of(path, "ctl");
	kmsg_mark();
	/*
	 * A newline ends the command, as echo's does.  O_APPEND changes
	 * nothing for the module; a test's fake ctl, a plain file, keeps the
	 * commands after the dump it holds.
	 */
	strcat(cmd, "\n");
	fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0) {
		check_module();
		die("%s: %s", path, strerror(errno));
	}
	n = write(fd, cmd, strlen(cmd));
	err = n < 0 ? errno : 0;
	close(fd);
	if (!err)
		return 0;
	reason_of(err, reason, sizeof(reason));
	if (why) {
		snprintf(why, size, "%s", reason);
		return -err;
	}
	fflush(stdout);
	cmd[strlen(cmd) - 1] = 0;
	fputs("slabtrace: '", stderr);
	put_escaped(stderr, cmd);
	fputs("' failed: ", stderr);
	put_escaped(stderr, reason);
	fputc('\n', stderr);
	exit(1);
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
	path_of(path, "stats");
	s->text = read_all(path);
	if (!s->text) {
		check_module();
		die("%s: %s", path, strerror(errno));
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

static int cmd_status(int argc)
{
	unsigned long records = 0, limit = 0, pfree = 0, per_cpu = 0;
	unsigned int ctx = 0, ctx_max = 0;
	char path[PATH_MAX], alloc[8] = "?", freep[8] = "?";
	char *kpt, *text, *line, *save = NULL, kstate[64] = "";
	struct stats s;

	if (argc > 1)
		die("status takes no arguments");
	read_stats(&s);
	if (sscanf(stats_line(s.text, "records"), "records %lu limit %lu",
		   &records, &limit) != 2 ||
	    sscanf(stats_line(s.text, "pool"), "pool free %lu per_cpu %lu",
		   &pfree, &per_cpu) != 2 ||
	    sscanf(stats_line(s.text, "contexts"), "contexts %u of %u", &ctx,
		   &ctx_max) != 2 ||
	    sscanf(stats_line(s.text, "probes"), "probes alloc %7s free %7s",
		   alloc, freep) != 2)
		die("%s/stats: not the stats of this version of slabtrace", stdir);
	/*
	 * The module's status file says it for people (traced since when,
	 * drops by kind): shown as it is, but for its hint and kptrace line,
	 * which are said below with more.
	 */
	path_of(path, "status");
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
	path_of(path, "kptrace_stats");
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
	free(s.text);
	free(s.caches);
	return 0;
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

	snprintf(path, sizeof(path), "%s/slabinfo", procfs);
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

	snprintf(dir, sizeof(dir), "%s/kernel/slab", sysfs);
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

static int run_command(char **argv)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "slabtrace: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
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

static const char usage_growth[] =
	"usage: slabtrace growth [-i SECS] [-r ROUNDS] [-n N] [-- COMMAND...]\n";

static int cmd_growth(int argc, char **argv)
{
	double interval = 1, secs;
	int rounds = 5, top = 10, opt;
	struct slabs s;

	while ((opt = getopt(argc, argv, "+i:r:n:h")) != -1) {
		switch (opt) {
		case 'i':
			interval = atof(optarg);
			if (interval <= 0)
				die("growth: -i takes seconds above 0, not '%s'", optarg);
			break;
		case 'r':
			rounds = atoi(optarg);
			if (rounds < 1)
				die("growth: -r takes a count above 0, not '%s'", optarg);
			break;
		case 'n':
			top = atoi(optarg);
			if (top < 1)
				die("growth: -n takes a count above 0, not '%s'", optarg);
			break;
		default:
			fputs(usage_growth, stderr);
			return 2;
		}
	}
	secs = growth_sample(&s, optind < argc ? argv + optind : NULL, rounds,
			     interval);
	slab_aliases(&s);
	if (!slab_grown(&s)) {
		printf("no cache grew in %.1fs\n", secs);
		return 0;
	}
	printf("caches that grew in %.2fs (%s), only-growing ones first:\n",
	       secs, optind < argc ? "around the command" : "sampled");
	growth_print(&s, secs, top);
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
	long objects, obj_bytes;	/* after the filters */
};

struct filter {
	const char *module, *comm;
	long pid;
	bool by_bytes;
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
 * Parse a per-object dump (what ctl returns after "print CACHE") into
 * groups of objects by backtrace and system call.  @src names the input
 * in errors.  Returns false if @text is not such a dump.
 */
static bool dump_parse(char *text, struct dump *d, const struct filter *f,
		       const char *src)
{
	struct object o = { 0 };
	bool in_obj = false, header = false;
	char *line, *save = NULL;

	memset(d, 0, sizeof(*d));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int nr;
		int off = 0;

		if (!strncmp(line, "Dumping outstanding allocs from ", 32)) {
			char *p = line + 32;

			if (strstr(p, " (by stack")) {
				note("%s: a stacks view, not a per-object dump", src);
				return false;
			}
			snprintf(d->cache, sizeof(d->cache), "%.*s",
				 (int)strcspn(p, " "), p);
			header = true;
		} else if (!strncmp(line, "traced ", 7)) {
			char t[32];

			if (sscanf(line, "traced %31[0-9.]s, %ld outstanding (%ld bytes)",
				   t, &d->outstanding, &d->bytes) != 3) {
				note("%s: cannot read '%.60s'", src, line);
				return false;
			}
			d->traced = atof(t);
			if (strstr(line, "records dropped"))
				d->dropped = atol(strrchr(line, ',') + 2);
		} else if (!strncmp(line, "Obj ", 4)) {
			char *p, *q;

			if (!header)
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

static void dump_print(const struct dump *d, int top, bool full)
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
	for (i = 0; i < d->ng && (full || i < top); i++)
		group_print(&d->g[i], i + 1, full);
}

static void dump_json(const struct dump *d, int top, bool full)
{
	int i, j;

	printf("{\"cache\": ");
	put_json_string(stdout, d->cache);
	printf(", \"traced_s\": %.3f, \"outstanding\": %ld, \"bytes\": %ld",
	       d->traced, d->outstanding, d->bytes);
	printf(", \"dropped\": %ld, \"matched_objects\": %ld", d->dropped,
	       d->objects);
	printf(", \"matched_bytes\": %ld, \"stacks\": [", d->obj_bytes);
	for (i = 0; i < d->ng && (full || i < top); i++) {
		const struct group *g = &d->g[i];

		printf("%s\n    {\"rank\": %d, \"objects\": %ld", i ? "," : "",
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
			char fn[512];
			const char *mod = strrchr(g->frames[j], '[');

			snprintf(fn, sizeof(fn), "%.*s",
				 (int)strcspn(g->frames[j], "+ "), g->frames[j]);
			printf("%s{\"function\": ", j ? ", " : "");
			put_json_string(stdout, fn);
			printf(", \"module\": ");
			if (mod) {
				snprintf(fn, sizeof(fn), "%.*s",
					 (int)strcspn(mod + 1, "]"), mod + 1);
				put_json_string(stdout, fn);
			} else {
				printf("null");
			}
			printf(", \"text\": ");
			put_json_string(stdout, g->frames[j]);
			putchar('}');
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

/* "print CACHE [older-than MS]", then the objects ctl returns, parsed. */
static char *print_cache(const char *cache, long older)
{
	char path[PATH_MAX];
	char *text;

	if (older > 0)
		ctl("print %s older-than %ld", cache, older);
	else
		ctl("print %s", cache);
	path_of(path, "ctl");
	text = read_all(path);
	if (!text)
		die("%s: %s", path, strerror(errno));
	return text;
}

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

static void copy_view(const char *dir, const char *cache, const char *file)
{
	char path[PATH_MAX];
	char *text;

	path_of(path, file);
	text = read_all(path);
	if (!text)
		die("%s: %s", path, strerror(errno));
	save(dir, cache, file, text);
	free(text);
}

enum {
	OPT_BYTES = 256, OPT_MODULE, OPT_COMM, OPT_PID, OPT_OLDER, OPT_JSON,
	OPT_AUTO, OPT_KEEP,
};

static const struct option view_opts[] = {
	{ "cache", required_argument, NULL, 'c' },
	{ "bytes", no_argument, NULL, OPT_BYTES },
	{ "module", required_argument, NULL, OPT_MODULE },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "older", required_argument, NULL, OPT_OLDER },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "auto", no_argument, NULL, OPT_AUTO },
	{ "keep", no_argument, NULL, OPT_KEEP },
	{ "output", required_argument, NULL, 'o' },
	{ "settle", required_argument, NULL, 's' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct view_args {
	const char *caches[16];
	int ncaches;
	struct filter f;
	long older;
	int top;
	bool json, autosel, keep;
	const char *out;
	double settle;
	double interval;	/* top -i: seconds between reports */
	int rounds;		/* top -r: how many (0: until killed) */
	const char *input;	/* --input FILE: a saved dump, no module */
};

static long num_arg(const char *opt, const char *arg)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || *end || end == arg || n < 0)
		die("%s takes a number (0 or more), not '%s'", opt, arg);
	return n;
}

static int parse_view(int argc, char **argv, struct view_args *a,
		      const char *usage)
{
	int opt;

	memset(a, 0, sizeof(*a));
	a->f.pid = -1;
	a->top = 10;
	a->settle = 1;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+c:n:o:s:i:r:h", view_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'c':
			if (a->ncaches == 16)
				die("at most 16 caches (-c)");
			a->caches[a->ncaches++] = optarg;
			break;
		case 'n':
			a->top = num_arg("-n", optarg);
			if (!a->top)
				die("-n takes a count above 0");
			break;
		case 'o':
			a->out = optarg;
			break;
		case 's':
			a->settle = atof(optarg);
			break;
		case 'i':
			a->interval = atof(optarg);
			if (a->interval <= 0)
				die("-i takes seconds above 0, not '%s'", optarg);
			break;
		case 'r':
			a->rounds = num_arg("-r", optarg);
			break;
		case OPT_BYTES:
			a->f.by_bytes = true;
			break;
		case OPT_MODULE:
			a->f.module = optarg;
			break;
		case OPT_COMM:
			a->f.comm = optarg;
			break;
		case OPT_PID:
			a->f.pid = num_arg("--pid", optarg);
			break;
		case OPT_OLDER:
			a->older = num_arg("--older", optarg);
			break;
		case OPT_JSON:
			a->json = true;
			break;
		case OPT_AUTO:
			a->autosel = true;
			break;
		case OPT_KEEP:
			a->keep = true;
			break;
		default:
			fputs(usage, stderr);
			exit(2);
		}
	}
	return optind;
}

/* Group, sort and show one dump. */
static void show_dump(char *text, const struct view_args *a, bool full,
		      const char *src, bool *first)
{
	struct dump d;

	if (!dump_parse(text, &d, &a->f, src))
		die("%s: cannot read it as a dump", src);
	sort_filter = &a->f;
	qsort(d.g, d.ng, sizeof(*d.g), group_cmp);
	if (a->json) {
		printf("%s\n  ", *first ? "" : ",");
		dump_json(&d, a->top, full);
	} else {
		if (!*first)
			putchar('\n');
		dump_print(&d, a->top, full);
	}
	*first = false;
	dump_free(&d);
}

static const char usage_top[] =
	"usage: slabtrace top|leaks [-c CACHE]... [--bytes] [--module M] [--comm C]\n"
	"                 [--pid P] [--older MS] [-n N] [--json] [-i SECS [-r ROUNDS]]\n";

static int cmd_view(int argc, char **argv, bool full)
{
	struct view_args a;
	int i, round;
	struct stats s;
	bool first;

	if (parse_view(argc, argv, &a, usage_top) != argc) {
		fputs(usage_top, stderr);
		return 2;
	}
	if (a.autosel || a.keep || a.out)
		die("%s: --auto, --keep and -o are for record", argv[0]);
	if (a.interval && full)
		die("leaks: -i is for top");
	if (!a.ncaches) {
		read_stats(&s);
		for (i = 0; i < s.n && i < 16; i++)
			a.caches[a.ncaches++] = xstrdup(s.caches[i].name);
		if (!a.ncaches)
			die("no cache is traced or holds records (%s; %s)",
			    "slabtrace status",
			    "slabtrace record -c CACHE -- COMMAND");
	}
	if (a.rounds && !a.interval)
		die("%s: -r goes with -i", argv[0]);
	for (round = 1;; round++) {
		if (a.interval) {
			time_t t = time(NULL);
			char when[32];

			strftime(when, sizeof(when), "%H:%M:%S", localtime(&t));
			if (!a.json)
				printf("%s--- %s, report %d\n", round > 1 ? "\n" : "",
				       when, round);
		}
		first = true;
		if (a.json)
			printf("{\"version\": %d, \"caches\": [", JSON_VERSION);
		for (i = 0; i < a.ncaches; i++) {
			char *text;

			need_cache(a.caches[i]);
			text = print_cache(a.caches[i], a.older);
			show_dump(text, &a, full, "ctl", &first);
			free(text);
		}
		if (a.json)
			printf("\n]}\n");
		if (!a.interval || round == a.rounds)
			break;
		fflush(stdout);
		sleep_secs(a.interval);
	}
	return 0;
}

/* --- record --- */

static const char usage_record[] =
	"usage: slabtrace record [-c CACHE]... [--auto] [-o DIR] [-s SECS] [-n N] [--keep]\n"
	"                        -- COMMAND [ARG...]\n";

/* --auto: the caches that grew while @cmd ran, most bytes first. */
static void auto_caches(struct view_args *a, char **cmd)
{
	struct slabs s;
	double secs;
	int i;

	printf("record: a first run of the command, to see which caches grow\n");
	secs = growth_sample(&s, cmd, 0, 0);
	slab_aliases(&s);
	if (!slab_grown(&s))
		die("record --auto: no cache grew while the command ran; name one with -c");
	growth_print(&s, secs, 5);
	for (i = 0; i < s.n && a->ncaches < 3; i++) {
		if (s.v[i].shrank)
			continue;
		if (!strncmp(s.v[i].name, "slabtrace", 9))
			continue;
		a->caches[a->ncaches++] = xstrdup(s.v[i].name);
	}
	if (!a->ncaches)
		a->caches[a->ncaches++] = xstrdup(s.v[0].name);
	free(s.v);
}

static int cmd_record(int argc, char **argv)
{
	bool started[16] = { false }, first = true;
	char why[1024], dir[PATH_MAX];
	struct view_args a;
	int i, j, cmd, rc, n = 0;
	struct sigaction sa;

	cmd = parse_view(argc, argv, &a, usage_record);
	if (cmd >= argc) {
		fputs(usage_record, stderr);
		return 2;
	}
	if (a.json || a.f.module || a.f.comm || a.f.pid >= 0 || a.older)
		die("record: the filters are for top and leaks, on what record keeps (--keep)");
	if (a.interval || a.rounds)
		die("record: -i and -r are for top");
	if (a.ncaches && a.autosel)
		die("record: -c or --auto, not both");
	if (!a.ncaches && !a.autosel)
		die("record: name the caches with -c CACHE, or let --auto find them");
	if (a.settle < 0)
		die("record: -s takes seconds, 0 or more");
	check_module();
	for (i = 0; i < a.ncaches; i++)
		need_cache(a.caches[i]);
	snprintf(dir, sizeof(dir), "%s", a.out ? a.out : "slabtrace.out");
	if (mkdir(dir, 0755) && errno != EEXIST)
		die("%s: %s", dir, strerror(errno));
	if (a.autosel)
		auto_caches(&a, argv + cmd);
	for (i = 0; i < a.ncaches; i++) {
		if (ctl_try(why, sizeof(why), "start %s", a.caches[i])) {
			if (a.autosel) {
				note("not tracing %s: %s", a.caches[i], why);
				continue;
			}
			for (j = 0; j < i; j++)
				if (started[j])
					ctl_try(NULL, 0, "reset %s", a.caches[j]);
			die("start %s: %s", a.caches[i], why);
		}
		started[i] = true;
		n++;
	}
	if (!n)
		die("record: no cache could be traced");
	/* A ^C stops the command, not the recording (run_command). */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	printf("record: tracing");
	for (i = 0; i < a.ncaches; i++)
		if (started[i])
			printf(" %s", a.caches[i]);
	printf("; running");
	for (i = cmd; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	rc = run_command(argv + cmd);
	for (i = 0; i < a.ncaches; i++)
		if (started[i])
			ctl("stop %s", a.caches[i]);
	if (a.settle > 0) {
		printf("record: waiting %.1fs for deferred frees (RCU)\n",
		       a.settle);
		sleep_secs(a.settle);
	}
	for (i = 0; i < a.ncaches; i++) {
		char *text;

		if (!started[i])
			continue;
		text = print_cache(a.caches[i], 0);
		save(dir, a.caches[i], "dump", text);
		copy_view(dir, a.caches[i], "stacks");
		copy_view(dir, a.caches[i], "folded");
		copy_view(dir, a.caches[i], "folded_bytes");
		show_dump(text, &a, false, "ctl", &first);
		free(text);
		if (!a.keep)
			ctl("reset %s", a.caches[i]);
	}
	printf("\nrecord: saved in %s/: CACHE.dump (every object), CACHE.stacks,\n"
	       "CACHE.folded and CACHE.folded_bytes (flamegraph.py CACHE.folded_bytes > leaks.svg)%s\n",
	       dir, a.keep ? "" : "; the records are reset");
	return rc ? 3 : 0;
}

/* --- the plain commands --- */

static int cmd_plain(int argc, char **argv)
{
	if (argc != 2)
		die("usage: slabtrace %s CACHE", argv[0]);
	need_cache(argv[1]);
	ctl("%s %s", argv[0], argv[1]);
	return 0;
}

static const char usage_report[] =
	"usage: slabtrace report [--bytes] [--module M] [--comm C] [--pid P]\n"
	"                        [-n N] [--json] DUMP\n";

/* slabtrace report FILE: top/leaks on a saved dump, no module needed. */
static int cmd_report(int argc, char **argv)
{
	struct view_args a;
	bool first = true;
	char *text;
	int i;

	i = parse_view(argc, argv, &a, usage_report);
	if (i != argc - 1) {
		fputs(usage_report, stderr);
		return 2;
	}
	if (a.interval || a.rounds || a.older || a.ncaches)
		die("report: -i, -r, --older and -c are for top");
	text = read_all(argv[i]);
	if (!text)
		die("%s: %s", argv[i], strerror(errno));
	if (a.json)
		printf("{\"version\": %d, \"caches\": [", JSON_VERSION);
	show_dump(text, &a, false, argv[i], &first);
	if (a.json)
		printf("\n]}\n");
	free(text);
	return 0;
}

static const char usage[] =
	"usage: slabtrace COMMAND [OPTIONS]\n"
	"  status                      what is traced, records, drops, probes, kptrace\n"
	"  growth [-i SECS] [-r ROUNDS] [-n N] [-- COMMAND...]\n"
	"                              which caches grew (only-growing ones first)\n"
	"  record [-c CACHE]... [--auto] [-o DIR] [-s SECS] [-n N] [--keep] -- COMMAND...\n"
	"                              trace caches around COMMAND, save and show the top stacks\n"
	"  top [-c CACHE]... [--bytes] [--module M] [--comm C] [--pid P] [--older MS] [-n N] [--json]\n"
	"      [-i SECS [-r ROUNDS]]   the stacks holding the most outstanding objects,\n"
	"                              every SECS seconds with -i\n"
	"  leaks [same options]        every stack, with full backtraces\n"
	"  report [same options] DUMP  top on a saved dump (record's CACHE.dump)\n"
	"  start|stop|reset|mark CACHE the module's commands, with errors explained\n"
	"See slabtrace(8).\n";

int main(int argc, char **argv)
{
	const char *env;

	env = getenv("SLABTRACE_DEBUGFS");
	snprintf(debugfs, sizeof(debugfs), "%s", env ? env : "/sys/kernel/debug");
	snprintf(stdir, sizeof(stdir), "%s/slabtrace", debugfs);
	env = getenv("SLABTRACE_PROC");
	if (env)
		procfs = env;
	env = getenv("SLABTRACE_SYSFS");
	if (env)
		sysfs = env;
	env = getenv("SLABTRACE_KMSG");
	if (env)
		kmsg_path = env;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("slabtrace %s\n", VERSION);
		return 0;
	}
	argc--;
	argv++;
	if (!strcmp(argv[0], "status"))
		return cmd_status(argc);
	if (!strcmp(argv[0], "growth"))
		return cmd_growth(argc, argv);
	if (!strcmp(argv[0], "record"))
		return cmd_record(argc, argv);
	if (!strcmp(argv[0], "top"))
		return cmd_view(argc, argv, false);
	if (!strcmp(argv[0], "leaks"))
		return cmd_view(argc, argv, true);
	if (!strcmp(argv[0], "report"))
		return cmd_report(argc, argv);
	if (!strcmp(argv[0], "start") || !strcmp(argv[0], "stop") ||
	    !strcmp(argv[0], "reset") || !strcmp(argv[0], "mark"))
		return cmd_plain(argc, argv);
	fprintf(stderr, "slabtrace: unknown command '%s'\n%s", argv[0], usage);
	return 2;
}
