// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace(8): slabtrace growth, which caches grew, from /proc/slabinfo
 * sampled every few seconds, or before, during (every half second, by a
 * thread of its own) and after a command; the names merged with each
 * cache from /sys/kernel/slab's links.  Each cache's samples give its
 * trend (slab_trend()): a cache that grew once, at start-up, and stayed
 * is not growing.  With --prometheus, each sample's figures also go to a
 * file for node_exporter (prometheus.c).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/*
 * A line of /proc/slabinfo, "NAME ACTIVE NUM OBJSIZE PER PAGES : tunables
 * ...": read from the right, since a cache's name may hold spaces (the
 * kernel pads it with more).  False if it is not such a line.
 */
static bool slabinfo_line(char *line, char *name, size_t size, long *active,
			  long *num, long *objsize)
{
	char *p = strstr(line, " : tunables");
	int k;

	if (!p)
		return false;
	for (k = 0; k < 5; k++) {
		while (p > line && p[-1] == ' ')
			p--;
		while (p > line && p[-1] != ' ')
			p--;
	}
	if (sscanf(p, "%ld %ld %ld", active, num, objsize) != 3)
		return false;
	while (p > line && p[-1] == ' ')
		p--;
	if (p == line || (size_t)(p - line) >= size)
		return false;
	memcpy(name, line, p - line);
	name[p - line] = '\0';
	return true;
}

static struct slab *slab_find(struct slabs *s, const char *name)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return &s->v[i];
	return NULL;
}

/*
 * @sl's next sample.  The series keeps one sample in @sl->stride, evenly
 * spaced, the latest always its last point (dropped for the next, unless
 * on the stride): full, it keeps every other point and doubles the
 * stride.  So its points stand for the same spans whatever the number of
 * samples, and slab_trend() may split them by position.
 */
static void series_add(struct slab *sl, long active)
{
	int i;

	if (sl->tail) {
		sl->nseries--;
		sl->tail = false;
	}
	sl->series[sl->nseries++] = active;
	if (++sl->pending < sl->stride) {
		sl->tail = true;
		return;
	}
	sl->pending = 0;
	if (sl->nseries < SERIES_MAX)
		return;
	/* Every other kept: the last, between two kept ones, the latest. */
	for (i = 0; i < SERIES_MAX / 2; i++)
		sl->series[i] = sl->series[2 * i];
	sl->nseries = SERIES_MAX / 2;
	sl->series[sl->nseries++] = active;
	sl->tail = true;
	sl->pending = sl->stride;
	sl->stride *= 2;
}

/*
 * One sample of /proc/slabinfo; @first: the first of the series.  False,
 * said, if it could not be read.
 */
static bool slab_sample(struct slabs *s, bool first)
{
	char path[PATH_MAX], *text, *line, *save = NULL;
	int i;

	snprintf(path, sizeof(path), "%s/slabinfo", st_procfs());
	text = read_all(path);
	if (!text) {
		if (errno == EACCES || errno == EPERM)
			note("needs root: %s is root's only (run it with sudo)", path);
		else
			note("%s: %s (a kernel without slab statistics?)", path,
			     strerror(errno));
		return false;
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
		if (!slabinfo_line(line, name, sizeof(name), &active, &num,
				   &size)) {
			char shown[256];

			kernel_escape(line, shown, sizeof(shown));
			free(text);
			note("%s: cannot read the line '%.60s'", path, shown);
			return false;
		}
		sl = slab_find(s, name);
		if (!sl) {
			s->v = xrealloc(s->v, (s->n + 1) * sizeof(*sl));
			sl = &s->v[s->n++];
			memset(sl, 0, sizeof(*sl));
			snprintf(sl->name, sizeof(sl->name), "%s", name);
			sl->stride = 1;
			/* New since the first sample: from nothing. */
			if (!first)
				series_add(sl, 0);
		}
		/*
		 * Two lines of one name (two caches so named): their sum, in
		 * objects and in bytes, each line's objects by its own size.
		 */
		if (!sl->seen) {
			sl->prev = sl->active[1];
			sl->active[1] = 0;
			sl->bytes[1] = 0;
			sl->objsize = 0;
			series_add(sl, 0);
			sl->seen = true;
		}
		sl->active[1] += active;
		sl->bytes[1] += active * size;
		sl->series[sl->nseries - 1] += active;
		if (size > sl->objsize)
			sl->objsize = size;
	}
	free(text);
	for (i = 0; i < s->n; i++) {
		if (!s->v[i].seen)
			continue;
		if (first) {
			s->v[i].active[0] = s->v[i].active[1];
			s->v[i].bytes[0] = s->v[i].bytes[1];
		} else if (s->v[i].active[1] < s->v[i].prev) {
			s->v[i].shrank = true;
		}
	}
	/* A cache destroyed since: it shrank to nothing. */
	for (i = 0; i < s->n; i++) {
		if (!s->v[i].seen) {
			if (s->v[i].active[1])
				s->v[i].shrank = true;
			s->v[i].active[1] = 0;
			s->v[i].bytes[1] = 0;
			series_add(&s->v[i], 0);
		}
	}
	return true;
}

/* A sample, and its metrics into @prometheus if not NULL; false if not. */
static bool sample(struct slabs *s, bool first, const char *prometheus)
{
	return slab_sample(s, first) &&
	       (!prometheus || prometheus_write(prometheus, s));
}

const char *const trend_names[] = {
	[TREND_GROWS] = "grows",
	[TREND_GREW] = "grew",
	[TREND_LEVELS] = "levels",
	[TREND_ONCE] = "once",
	[TREND_MIXED] = "mixed",
};

/*
 * What the samples of a cache that grew say, from its steps (the
 * changes between samples), in four quarters of the samples:
 *   mixed   it went down between two samples
 *   grows   at least 4 steps; it rose over three quarters or more (their
 *           steps' sum above 0), the last one among them (still growing
 *           when the samples ended), and no step holds half of the growth
 *   levels  9 tenths of the growth or more in the first half: it grew,
 *           then stopped (a start-up)
 *   once    one step holds 8 tenths of the growth or more
 *   grew    none of these, or fewer than 3 steps: too few to tell
 */
enum trend slab_trend(const struct slab *sl)
{
	long net = sl->active[1] - sl->active[0], big = 0, d, late;
	long quarter[4] = { 0 };
	int k = sl->nseries - 1, rose = 0, i;

	if (sl->shrank)
		return TREND_MIXED;
	if (k < 3 || net <= 0)
		return TREND_GREW;
	for (i = 1; i <= k; i++) {
		d = sl->series[i] - sl->series[i - 1];
		quarter[(i - 1) * 4 / k] += d;
		if (d > big)
			big = d;
	}
	for (i = 0; i < 4; i++)
		rose += quarter[i] > 0;
	late = sl->series[k] - sl->series[k / 2];
	if (k >= 4 && rose >= 3 && quarter[3] > 0 && 2 * big < net)
		return TREND_GROWS;
	if (10 * late <= net)
		return TREND_LEVELS;
	if (10 * big >= 8 * net)
		return TREND_ONCE;
	return TREND_GREW;
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

			if (strcmp(tgt[i], base) || !strcmp(sl->name, de->d_name))
				continue;
			sl->aliases = xrealloc(sl->aliases,
					       (sl->naliases + 1) * sizeof(*sl->aliases));
			sl->aliases[sl->naliases++] = xstrdup(de->d_name);
		}
	}
	if (d)
		closedir(d);
	free(tgt);
}

static void slab_free(struct slab *sl)
{
	int i;

	for (i = 0; i < sl->naliases; i++)
		free(sl->aliases[i]);
	free(sl->aliases);
	sl->aliases = NULL;
	sl->naliases = 0;
}

void slabs_free(struct slabs *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		slab_free(&s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

static int slab_cmp(const void *pa, const void *pb)
{
	const struct slab *a = pa, *b = pb;
	long ga = a->bytes[1] - a->bytes[0];
	long gb = b->bytes[1] - b->bytes[0];
	bool sa = slab_trend(a) == TREND_GROWS, sb = slab_trend(b) == TREND_GROWS;

	if (sa != sb)
		return sa ? -1 : 1;
	if (a->shrank != b->shrank)
		return a->shrank ? 1 : -1;
	if (ga != gb)
		return ga > gb ? -1 : 1;
	return strcmp(a->name, b->name);
}

/*
 * Grown caches first: the steadily growing ones, then the others that
 * only grew, then the mixed ones; most bytes first among each.
 */
int slab_grown(struct slabs *s)
{
	int i, n = 0;

	for (i = 0; i < s->n; i++) {
		if (s->v[i].active[1] > s->v[i].active[0])
			s->v[n++] = s->v[i];
		else
			slab_free(&s->v[i]);
	}
	s->n = n;
	qsort(s->v, s->n, sizeof(*s->v), slab_cmp);
	return n;
}

/*
 * The thread that samples while a command runs.  A sample that fails (a
 * metrics file that cannot be written) is said, and told to the main
 * thread in @failed, with a SIGTERM that ends the command as a user's
 * would (run_command() passes it on and reaps it): no exit() here, which
 * would leave the command running.
 */
struct sampler {
	struct slabs *s;
	double interval;
	const char *prometheus;
	atomic_bool stop, failed;
	int samples;
};

static void *sampler_fn(void *arg)
{
	struct sampler *sp = arg;
	double next = now() + sp->interval;
	struct timespec tick = { 0, 20 * 1000 * 1000 };

	while (!atomic_load(&sp->stop)) {
		if (now() < next) {
			nanosleep(&tick, NULL);
			continue;
		}
		if (!sample(sp->s, false, sp->prometheus)) {
			atomic_store(&sp->failed, true);
			kill(getpid(), SIGTERM);
			break;
		}
		sp->samples++;
		next += sp->interval;
	}
	return NULL;
}

/*
 * Sample /proc/slabinfo before @cmd (if any: what run_command() says of it
 * into @cmd_rc), every @interval seconds while it runs and after it; or
 * @rounds times (forever if @rounds < 0, until a signal) @interval seconds
 * apart; after each sample, its metrics into the file @prometheus, if not
 * NULL.  Returns the seconds the samples span, and their number in
 * @samples; exits 1 if a sample fails (said), once @cmd has been ended
 * and reaped.
 */
double growth_sample(struct slabs *s, char **cmd, int *cmd_rc, int rounds,
		     double interval, const char *prometheus, int *samples)
{
	struct sampler sp = { s, interval, prometheus, false, false, 0 };
	double t0 = now();
	sigset_t all, old;
	pthread_t t;
	int i;

	memset(s, 0, sizeof(*s));
	if (!sample(s, true, prometheus))
		exit(1);
	*samples = 1;
	if (cmd) {
		/* The signals are the command's and record's: not the thread's. */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		if (pthread_create(&t, NULL, sampler_fn, &sp))
			die("growth: cannot start the sampling thread");
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		/* A signal since catch_signals() is passed on too. */
		*cmd_rc = run_command(cmd, 0);
		atomic_store(&sp.stop, true);
		pthread_join(t, NULL);
		if (atomic_load(&sp.failed))
			die("a sample failed (said above): %s was stopped",
			    cmd[0]);
		if (!sample(s, false, prometheus))
			exit(1);
		*samples += sp.samples + 1;
		return now() - t0;
	}
	for (i = 0; (rounds < 0 || i < rounds) && !nsignals; i++) {
		if (!sleep_secs(interval, 0))
			break;
		if (!sample(s, false, prometheus))
			exit(1);
		++*samples;
	}
	return now() - t0;
}

void growth_print(struct slabs *s, double secs, int top)
{
	int i, j;

	printf("%-24s %7s %9s %8s %10s %10s  %-6s %s\n", "CACHE", "OBJSIZE",
	       "ACTIVE", "+OBJS", "+BYTES", "BYTES/S", "TREND", "ALSO NAMED");
	for (i = 0; i < s->n && i < top; i++) {
		struct slab *sl = &s->v[i];
		long d = sl->active[1] - sl->active[0];
		long db = sl->bytes[1] - sl->bytes[0];
		char name[4 * sizeof(sl->name)];

		/* As the module writes names: a module's cache may have any. */
		kernel_escape(sl->name, name, sizeof(name));
		printf("%-24s %7ld %9ld %+8ld %+10ld %+10.0f  %-6s ", name,
		       sl->objsize, sl->active[1], d, db,
		       secs > 0 ? db / secs : 0.0,
		       trend_names[slab_trend(sl)]);
		for (j = 0; j < sl->naliases; j++) {
			fputs(j ? ", " : "", stdout);
			put_escaped(stdout, sl->aliases[j]);
		}
		puts(sl->naliases ? "" : "-");
	}
}

/*
 * The grown caches (the first @top; all if @top < 0) as one JSON document
 * on one line (slabtrace(8), JSON OUTPUT).
 */
static void growth_json(const struct slabs *s, double secs, bool around, long top)
{
	int i, j;

	printf("{\"version\": %d, \"seconds\": %.3f, \"around\": %s, \"caches\": [",
	       JSON_VERSION, secs, around ? "\"command\"" : "\"samples\"");
	for (i = 0; i < s->n && (top < 0 || i < top); i++) {
		const struct slab *sl = &s->v[i];
		long d = sl->active[1] - sl->active[0];
		long db = sl->bytes[1] - sl->bytes[0];
		char name[4 * sizeof(sl->name)];

		/* As the module writes names, and the table and metrics show them. */
		kernel_escape(sl->name, name, sizeof(name));
		printf("%s{\"cache\": ", i ? ", " : "");
		put_json_string(stdout, name);
		printf(", \"objsize\": %ld, \"active\": %ld, \"objects\": %ld, \"bytes\": %ld, ",
		       sl->objsize, sl->active[1], d, db);
		printf("\"bytes_per_second\": %.0f, \"trend\": \"%s\", \"also_named\": [",
		       secs > 0 ? db / secs : 0.0,
		       trend_names[slab_trend(sl)]);
		for (j = 0; j < sl->naliases; j++) {
			printf("%s", j ? ", " : "");
			put_json_string(stdout, sl->aliases[j]);
		}
		printf("]}");
	}
	printf("]}\n");
}

int cmd_growth(struct opts *o, int argc, char **argv)
{
	char **cmd = argc ? argv : NULL;
	int rounds = o->rounds > 0 ? o->rounds : 5, samples, rc = 0;
	double secs;
	struct slabs s;

	if (cmd && o->rounds > 0)
		usage("growth: -r is for sampling without a command");
	if (o->prometheus) {
		/* A service: samples until a signal, unless -r says otherwise. */
		if (o->rounds <= 0)
			rounds = -1;
		catch_signals();
	} else if (cmd) {
		/* A signal ends COMMAND, as record's does; the table is shown. */
		catch_signals();
	}
	secs = growth_sample(&s, cmd, &rc, rounds,
			     o->interval ? o->interval : cmd ? 0.5 : 1,
			     o->prometheus, &samples);
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
		printf("caches that grew in %.2fs (%d samples%s), steadily growing ones first:\n",
		       secs, samples, cmd ? ", around the command" : "");
		growth_print(&s, secs, o->top > 0 ? o->top : 10);
	}
	slabs_free(&s);
	if (nsignals)
		return 128 + last_signal;
	/* As record: measured, but COMMAND failed (it said how). */
	return rc ? 3 : 0;
}
