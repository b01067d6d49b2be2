// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace record: trace caches around a command, save a snapshot of
 * each and show its top stacks (and write them as a pprof profile).
 *
 * record owns what it starts and nothing else.  While it decides, it
 * holds a lock on /sys/kernel/slab (flock: other slabtrace records wait);
 * a cache it starts stays locked (its /sys/kernel/slab/NAME directory, so
 * merged names share the lock; for kmalloc-large and percpu, which have
 * none, a stand-in in /run/slabtrace) until record has stopped and reset
 * it.  A cache traced already, by hand or left by a killed record, is shared:
 * never stopped or reset here.  A cache another record holds, or one
 * holding the records of a stopped trace, is refused.  SIGINT, SIGTERM
 * and SIGHUP end COMMAND, then record saves and cleans up.
 *
 * A word (-c all, -c kmalloc) is taken only when no cache is traced or
 * holds records: record then starts it, owns every cache it stands for
 * (their /sys/kernel/slab entries locked), and at the end stops, prints,
 * saves and resets the word as it would a cache.  Against
 * SIGKILL, a watchdog child in a session of its own waits on a pipe from
 * record: if the pipe closes without record's word that it cleaned up, the
 * watchdog stops (and resets, but with --keep) the caches record started.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/pprof.h"
#include "cli.h"

/* Seconds since the epoch: the time of a capture. */
static double wall_time(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The name of @cache's saved files, before their extension, into @buf. */
static void file_base(const char *cache, char *buf, size_t size)
{
	int i;

	snprintf(buf, size, "%s", cache);
	for (i = 0; buf[i]; i++)
		if (buf[i] == '/')
			buf[i] = '_';
}

/*
 * @text into DIR/CACHE.EXT; false, said, if it could not be written (or
 * is a link or a FIFO: out_fopen()).
 */
static bool save(const char *dir, const char *cache, const char *ext,
		 const char *text)
{
	char path[PATH_MAX + 300], name[256];
	bool ok;
	FILE *f;
	int e;

	file_base(cache, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/%s.%s", dir, name, ext);
	f = out_fopen(path);
	if (!f) {
		note("%s: %s", path, strerror(errno));
		return false;
	}
	/* Closed once, whatever failed: a full disk fails fclose() itself. */
	ok = fputs(text, f) >= 0;
	e = errno;
	if (fclose(f) && ok) {
		ok = false;
		e = errno;
	}
	if (!ok) {
		note("%s: %s", path, strerror(e));
		return false;
	}
	out_give(path);
	return true;
}

/*
 * --auto: the (up to three) caches that grew steadily while @cmd ran, its
 * samples every half second say (slab_trend()); if none did, those that
 * only grew, most bytes first, and it says so.
 */
static void auto_caches(struct opts *o, char **cmd)
{
	struct slabs s;
	int i, first, samples, rc;
	bool steady;
	double secs;

	printf("record: a first run of the command, to see which caches grow\n");
	secs = growth_sample(&s, cmd, &rc, 0, 0.5, NULL, &samples);
	if (nsignals)
		exit(st_status(128 + last_signal));
	if (rc == RUN_FAILED)
		exit(1);
	slab_aliases(&s);
	if (!slab_grown(&s))
		die("record --auto: no cache grew while the command ran; name one with -c");
	growth_print(&s, secs, 5);
	/*
	 * slab_grown() put the steadily growing ones first; slabtrace's own
	 * caches are never traced, nor taken for the others' trend.
	 */
	for (first = 0; first < s.n; first++)
		if (strncmp(s.v[first].name, "slabtrace", 9))
			break;
	if (first == s.n)
		die("record --auto: only slabtrace's own caches grew; name one with -c");
	steady = slab_trend(&s.v[first]) == TREND_GROWS;
	for (i = first; i < s.n && o->ncaches < 3; i++) {
		if (s.v[i].shrank || (steady && slab_trend(&s.v[i]) != TREND_GROWS))
			continue;
		if (!strncmp(s.v[i].name, "slabtrace", 9))
			continue;
		o->caches[o->ncaches++] = xstrdup(s.v[i].name);
	}
	if (!o->ncaches)
		o->caches[o->ncaches++] = xstrdup(s.v[first].name);
	if (!steady)
		printf("record: no cache grew steadily over the %d samples; %s\n",
		       samples, "tracing those that grew most");
	slabs_free(&s);
}

/*
 * @name as the module writes names, for a line to the terminal: --auto
 * takes names from /proc/slabinfo, which a module's cache may fill with
 * any byte.  In a static buffer: one name at a time.
 */
static const char *shown(const char *name)
{
	static char buf[4 * 128];	/* a name of /proc/slabinfo: 127 bytes */

	kernel_escape(name, buf, sizeof(buf));
	return buf;
}

/* A cache (or a word) record was asked to trace. */
struct rec_cache {
	const char *name;
	bool own;		/* started here: stopped and reset here */
	bool used;		/* traced here, owned or shared */
	int lock;		/* its entry (lock_cache()), locked while owned; -1 */
	int *locks;		/* a word's: its caches' entries, locked while owned */
	int nlocks;
};

struct rec {
	struct rec_cache c[MAX_CACHES];
	int n;
	bool keep;		/* --keep: stop, but no reset */
	pid_t watchdog;
	char filter[16 * FILTER_PIDS];	/* -p: " pid PID...", the start's; or "" */
};

/* flock(@how) @fd: @fd; -1 if it fails, -2 if another process holds it. */
static int lock_fd(int fd, int how)
{
	while (flock(fd, how)) {
		if (errno == EINTR)
			continue;
		close(fd);
		return errno == EWOULDBLOCK ? -2 : -1;
	}
	return fd;
}

/*
 * flock(@how) the directory @path: its fd; -1 if it cannot be opened (no
 * sysfs: no lock), -2 if another process holds it (with LOCK_NB).
 */
static int lock_dir(const char *path, int how)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	return fd < 0 ? -1 : lock_fd(fd, how);
}

/*
 * Lock the stand-in of a pseudo cache (kmalloc-large, percpu: no
 * /sys/kernel/slab entry), /run/slabtrace/@name.lock, made 0600 in a
 * directory made 0700, both root's: as lock_dir() (-1 where there is no
 * /run, as where there is no sysfs), but a stand-in that cannot be made
 * or is not record's own is said, and record exits 1.
 */
static int lock_standin(const char *name, int how)
{
	char path[PATH_MAX], file[64];
	struct stat st;
	int dfd, fd;

	snprintf(path, sizeof(path), "%s/slabtrace", st_run());
	snprintf(file, sizeof(file), "%s.lock", name);
	if (mkdir(path, 0700)) {
		/* No /run at all (a bare initramfs): nothing to lock, as no sysfs. */
		if (errno == ENOENT)
			return -1;
		if (errno != EEXIST)
			die("record: cannot lock %s: %s: %s", name, path,
			    strerror(errno));
	}
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st))
		die("record: cannot lock %s: %s: %s", name, path, strerror(errno));
	if (st.st_uid != geteuid() || (st.st_mode & 022))
		die("record: cannot lock %s: %s is not root's alone (uid %d, mode %03o)",
		    name, path, (int)st.st_uid, (unsigned int)(st.st_mode & 0777));
	fd = openat(dfd, file, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		die("record: cannot lock %s: %s/%s: %s", name, path, file,
		    strerror(errno));
	close(dfd);
	return lock_fd(fd, how);
}

/* Lock cache @name (lock_dir()): its /sys/kernel/slab entry, or stand-in. */
static int lock_cache(const char *name, int how)
{
	char path[PATH_MAX];

	if (is_pseudo_cache(name))
		return lock_standin(name, how);
	slab_dir(path, sizeof(path), name);
	return lock_dir(path, how);
}

static void unlock(struct rec_cache *c)
{
	int i;

	if (c->lock >= 0)
		close(c->lock);
	c->lock = -1;
	for (i = 0; i < c->nlocks; i++)
		close(c->locks[i]);
	free(c->locks);
	c->locks = NULL;
	c->nlocks = 0;
}

/* Add @fd, a lock taken for the word of @c, to its locks; -1, -2: none. */
static void word_lock_add(struct rec_cache *c, int fd)
{
	if (fd < 0)
		return;
	c->locks = xrealloc(c->locks, (c->nlocks + 1) * sizeof(*c->locks));
	c->locks[c->nlocks++] = fd;
}

/*
 * Lock the /sys/kernel/slab entries of the caches the word of @c stands
 * for, each directory once (merged names lead to one), and kmalloc-large's
 * stand-in (both words have it), as record locks a cache it owns: another
 * record then refuses them.  An entry another process holds (a record
 * that is letting its cache go) is left out.
 */
static void lock_word(struct rec_cache *c)
{
	char path[PATH_MAX], real[PATH_MAX], **seen = NULL;
	bool kmalloc = !strcmp(c->name, "kmalloc");
	int i, nseen = 0;
	struct dirent *de;
	DIR *d;

	slab_dir(path, sizeof(path), "");
	d = opendir(path);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || (kmalloc && !is_kmalloc_name(de->d_name)))
			continue;
		slab_dir(path, sizeof(path), de->d_name);
		if (!realpath(path, real))
			continue;
		for (i = 0; i < nseen && strcmp(seen[i], real); i++)
			;
		if (i < nseen)
			continue;
		seen = xrealloc(seen, (nseen + 1) * sizeof(*seen));
		seen[nseen++] = xstrdup(real);
		word_lock_add(c, lock_dir(real, LOCK_EX | LOCK_NB));
	}
	if (d)
		closedir(d);
	word_lock_add(c, lock_standin("kmalloc-large", LOCK_EX | LOCK_NB));
	for (i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
}

/*
 * Stop the caches of @r started here and, unless --keep, reset them,
 * saying nothing of what fails: record's way when a start failed (it said
 * so).
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
 * The watchdog's cleaning up of @c, which record (pid @record) started:
 * stopped and, unless --keep, reset, saying what it did, or what failed
 * and why (a cache it could not stop is not reset: its records are what
 * is left to see).
 */
static void watchdog_release(const struct rec *r, const struct rec_cache *c,
			     pid_t record)
{
	char why[1024], head[80];

	snprintf(head, sizeof(head), "record (pid %d) ended without cleaning up; its watchdog",
		 (int)record);
	if (ctl_try(why, sizeof(why), "stop %s", c->name)) {
		note("%s could not stop %s (%s): slabtrace status says if it is still traced",
		     head, shown(c->name), why);
		return;
	}
	if (!r->keep && ctl_try(why, sizeof(why), "reset %s", c->name)) {
		note("%s stopped %s but could not reset it (%s): slabtrace status shows it",
		     head, shown(c->name), why);
		return;
	}
	note("%s %s %s", head, r->keep ? "stopped" : "stopped and reset", shown(c->name));
}

/*
 * What record tells its watchdog, a byte each: WD_STARTING + i before it
 * starts cache i, WD_NOT_STARTED + i if that start failed, WD_DONE once
 * it cleaned up itself.
 */
#define WD_DONE		0
#define WD_STARTING	1
#define WD_NOT_STARTED	0x80

/*
 * The watchdog: waits in a session of its own, deaf to the terminal's
 * signals, for record's words on @fd.  It is there before record starts
 * a cache, and hears of each start before it is made, so that no moment
 * leaves a cache started with no one to stop it.  The pipe closing
 * without WD_DONE means record is gone without cleaning up (SIGKILL, a
 * crash): then the watchdog stops (and resets) the caches record was
 * starting or started, which were traced by no one before (record
 * decided under their locks).  It holds those caches' locks (their fds,
 * inherited) until then.
 */
static noreturn void watchdog_main(struct rec *r, int fd)
{
	pid_t record = getppid();
	unsigned char byte;
	ssize_t n;
	int i;

	setsid();
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	for (i = 0; i < r->n; i++)
		r->c[i].own = false;
	for (;;) {
		n = read(fd, &byte, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != 1)
			break;
		if (byte == WD_DONE)
			_exit(0);
		i = (byte & ~WD_NOT_STARTED) - WD_STARTING;
		if (i < 0 || i >= r->n)
			continue;
		r->c[i].own = !(byte & WD_NOT_STARTED);
		if (!r->c[i].own)
			unlock(&r->c[i]);
	}
	for (i = 0; i < r->n; i++)
		if (r->c[i].own)
			watchdog_release(r, &r->c[i], record);
	_exit(0);
}

/* The write end of the pipe to the watchdog; -1 if none. */
static int watchdog_fd = -1;

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
 * Fork the watchdog; @all, the lock of every record's decisions, is not
 * its to keep.
 */
static void watchdog_start(struct rec *r, int all)
{
	int p[2];
	pid_t pid;

	pid = fork_piped(p);
	if (!pid) {
		close(p[1]);
		if (all >= 0)
			close(all);
		watchdog_main(r, p[0]);
	}
	close(p[0]);
	watchdog_fd = p[1];
	r->watchdog = pid;
}

/* Tell the watchdog @word (WD_*) about cache @i. */
static void watchdog_tell(int word, int i)
{
	unsigned char byte = word + i;

	if (watchdog_fd >= 0 && write(watchdog_fd, &byte, 1) != 1)
		die("record: the watchdog is gone: %s", strerror(errno));
}

/* record cleaned up: the watchdog goes, and with it the caches' locks. */
static void watchdog_done(struct rec *r)
{
	int i;

	if (watchdog_fd >= 0) {
		unsigned char done = WD_DONE;

		if (write(watchdog_fd, &done, 1) != 1)
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
			 "slabtrace top -c ", shown(c->name), " reads it meanwhile");
	else if (print_is_word(c->name) && t)
		snprintf(buf, size, "%s%s%s",
			 "a cache is traced or holds records (slabtrace status shows them); ",
			 "record takes a word only when none is: stop and reset them first ",
			 "(slabtrace stop all; slabtrace reset all), or name caches with -c");
	else if (t && !t->tracing)
		snprintf(buf, size, "it holds the records of a stopped trace %s%s%s%s%s",
			 "(slabtrace leaks -c ", shown(c->name), " shows them, slabtrace reset ",
			 shown(c->name), " drops them)");
	else
		return false;
	return true;
}

/*
 * Whether @a and @b are one cache: one name, or two names SLUB merged
 * (their /sys/kernel/slab entries lead to one directory).
 */
static bool same_cache(const char *a, const char *b)
{
	char path[PATH_MAX], ra[PATH_MAX], rb[PATH_MAX];

	if (!strcmp(a, b))
		return true;
	slab_dir(path, sizeof(path), a);
	if (!realpath(path, ra))
		return false;
	slab_dir(path, sizeof(path), b);
	return realpath(path, rb) && !strcmp(ra, rb);
}

/*
 * Take the caches of @r: under the lock of /sys/kernel/slab, so that two
 * records decide one after the other, own the ones nobody traces (locked,
 * started), share the ones traced already, refuse the others: exit 1, or
 * with @autosel leave them out.  The watchdog starts first.
 */
static void rec_take(struct rec *r, bool autosel)
{
	char path[PATH_MAX], why[2048];
	const struct traced *t;
	bool no = false;
	struct stats s;
	int all, i;

	slab_dir(path, sizeof(path), "");
	all = lock_dir(path, LOCK_EX);
	read_stats(&s, true);
	for (i = 0; i < r->n; i++) {
		struct rec_cache *c = &r->c[i];

		if (print_is_word(c->name)) {
			/* Any cache traced or holding records: refused. */
			t = s.n ? &s.caches[0] : NULL;
			if (!t)
				lock_word(c);
		} else {
			c->lock = lock_cache(c->name, LOCK_EX | LOCK_NB);
			t = stats_find(&s, c->name);
		}
		if (refused(c, t, why, sizeof(why))) {
			note("record: not tracing %s: %s", shown(c->name), why);
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
	for (i = 0; i < r->n; i++)
		if (r->c[i].own) {
			watchdog_start(r, all);
			break;
		}
	for (i = 0; i < r->n; i++) {
		struct rec_cache *c = &r->c[i];

		if (!c->own)
			continue;
		watchdog_tell(WD_STARTING, i);
		if (!ctl_try(why, sizeof(why), "start %s%s", c->name, r->filter))
			continue;
		watchdog_tell(WD_NOT_STARTED + WD_STARTING, i);
		note("record: not tracing %s: %s", shown(c->name), why);
		c->own = false;
		c->used = false;
		unlock(c);
		if (autosel)
			continue;
		while (++i < r->n)
			r->c[i].own = false;	/* not started yet */
		release_quietly(r);
		watchdog_done(r);
		exit(1);
	}
	/* Other records may decide now. */
	if (all >= 0)
		close(all);
}

static const char *const saved_views[NVIEWS] = {
	"dump", "stacks", "folded", "folded_bytes",
};

/*
 * What record saved in @dir: a line of files for each cache (or word) of
 * @r it traced, and the command that draws the first one's flame graph.
 */
static void saved_say(const char *dir, const struct rec *r, bool reset,
		      bool shared)
{
	char base[256], first[256] = "";
	int i;

	printf("\nrecord: saved in %s/:\n", dir);
	for (i = 0; i < r->n; i++) {
		if (!r->c[i].used)
			continue;
		file_base(r->c[i].name, base, sizeof(base));
		printf("  ");
		put_escaped(stdout, base);
		printf(".dump (every object), ");
		put_escaped(stdout, base);
		printf(".stacks, ");
		put_escaped(stdout, base);
		printf(".folded, ");
		put_escaped(stdout, base);
		printf(".folded_bytes\n");
		if (!first[0])
			snprintf(first, sizeof(first), "%s", base);
	}
	printf("record: slabtrace-flamegraph %s/", dir);
	put_escaped(stdout, first);
	printf(".folded_bytes > leaks.svg draws a flame graph%s%s\n",
	       reset ? "; the records are reset" : "",
	       shared ? "; the shared caches are left as they were" : "");
}

int cmd_record(struct opts *o, int argc, char **argv)
{
	char dir[PATH_MAX], real[PATH_MAX], pprof_real[PATH_MAX], *texts[NVIEWS];
	char cmd[512], why[1024];
	bool first = true, saved = true, shared = false, owned = false;
	bool unsaved = false, unreadable = false, failed = false;
	bool unwritten = false;
	struct pprof *pprof = NULL;
	struct opts shown_o;
	double when = 0, duration = 0;
	int ended, captures = 0, waited = 0;
	struct rec r;
	int i, j, rc = 0;

	if (!argc && !o->f.npids)
		usage("record: no COMMAND (after --), and no -p PID to trace instead");
	if (!argc && o->autosel)
		usage("record: --auto runs COMMAND (after --): none given");
	if (o->json || o->interval || o->rounds > 0)
		usage("record: --json, -i and -r are for top");
	if (o->ncaches && o->autosel)
		usage("record: -c or --auto, not both");
	if (!o->ncaches && !o->autosel)
		usage("record: name the caches with -c CACHE, or let --auto find them");
	for (i = 0; i < o->ncaches; i++)
		if (o->ncaches > 1 && print_is_word(o->caches[i]))
			usage("record: -c %s stands for a set of caches: the only -c then",
			      o->caches[i]);
	st_check("ctl", R_OK | W_OK);
	for (i = 0; i < o->ncaches; i++)
		need_cache(o->caches[i]);
	for (i = 0; i < o->ncaches; i++)
		for (j = 0; j < i; j++)
			if (same_cache(o->caches[j], o->caches[i])) {
				char one[4 * 128];	/* as shown()'s */

				snprintf(one, sizeof(one), "%s", shown(o->caches[j]));
				usage("record: -c %s and -c %s are one cache: name it once",
				      one, shown(o->caches[i]));
			}
	snprintf(dir, sizeof(dir), "%s", o->out ? o->out : "slabtrace.out");
	/*
	 * Known now, not after COMMAND, when the snapshot has nowhere to go;
	 * written under its resolved path, which no other user can change.
	 */
	out_dir(dir, real, sizeof(real));
	if (o->pprof)
		out_file(o->pprof, pprof_real, sizeof(pprof_real));
	catch_signals();
	if (o->autosel)
		auto_caches(o, argv);
	memset(&r, 0, sizeof(r));
	r.keep = o->keep;
	for (i = 0, j = 0; i < o->f.npids; i++)
		j += snprintf(r.filter + j, sizeof(r.filter) - j, "%s %ld",
			      i ? "" : " pid", o->f.pids[i]);
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
			printf(" %s%s", shown(r.c[i].name), r.c[i].own ? "" : " (shared)");
		shared |= r.c[i].used && !r.c[i].own;
		owned |= r.c[i].own;
	}
	if (r.filter[0]) {
		putchar(',');
		put_escaped(stdout, r.filter);
	}
	if (argc)
		printf("; running");
	else
		printf("; until SIGINT (^C), SIGTERM or SIGHUP");
	for (i = 0; i < argc; i++) {
		putchar(' ');
		put_escaped(stdout, argv[i]);
	}
	printf("\n");
	if (shared)
		printf("record: %s, %s%s\n",
		       "a shared cache was traced before: it is not stopped or reset here",
		       "and its dump holds what it held before too",
		       r.filter[0] ? " (and of every process)" : "");
	fflush(stdout);
	if (!argc) {
		/*
		 * -p alone: the processes are traced until a signal says stop
		 * (the first one: none came yet, or it is passed at once).
		 */
		sleep_secs(-1, 0);
		waited = nsignals;
	} else if (!nsignals) {
		rc = run_command(argv, 0);
	} else {
		note("record: signal %d came before %s started: not run", (int)last_signal,
		     argv[0]);
	}
	ended = nsignals;
	for (i = 0; i < r.n; i++) {
		if (!r.c[i].own)
			continue;
		snprintf(cmd, sizeof(cmd), "stop %s", r.c[i].name);
		if (ctl_try(why, sizeof(why), "%s", cmd)) {
			ctl_say_failed(cmd, why);
			failed = true;
		}
	}
	if (o->settle > 0 && nsignals == ended) {
		printf("record: waiting %.1fs for deferred frees (RCU)\n", o->settle);
		sleep_secs(o->settle, ended);
	}
	if (o->pprof)
		pprof = dump_pprof_new();
	/*
	 * -p is the module's filter, by process (any thread of it); the
	 * dump's "PID N" is the allocating thread's ID: filtering by it again
	 * would hide the other threads' objects.  A shared cache's dump is of
	 * every process, as record says.
	 */
	shown_o = *o;
	shown_o.f.npids = 0;
	for (i = 0; i < r.n; i++) {
		struct expect e = { r.c[i].name, 0 };
		bool ok = true;
		double traced;

		if (!r.c[i].used)
			continue;
		if (nsignals != ended) {
			saved = false;
			break;
		}
		if (!captures++)
			when = wall_time();
		/* Said; the records kept, the other caches still captured. */
		if (snapshot(r.c[i].name, 0, NVIEWS, texts)) {
			failed = true;
			continue;
		}
		/* A view not saved ends this cache's saves, not the next's. */
		for (j = 0; j < NVIEWS && ok; j++)
			ok = save(real, r.c[i].name, saved_views[j], texts[j]);
		unsaved |= !ok;
		traced = show_print(texts[VIEW_CTL], &shown_o, false, &e, "ctl",
				    &first, pprof);
		/* Saved as it came, and the other caches still captured. */
		unreadable |= traced < 0;
		if (traced > duration)
			duration = traced;
		for (j = 0; j < NVIEWS; j++)
			free(texts[j]);
	}
	if (pprof && captures) {
		bool made = access(pprof_real, F_OK);

		/* Said; the snapshot is saved, and the records reset still. */
		unwritten = dump_pprof_write(pprof, pprof_real, when, duration);
		if (!unwritten && made)
			out_give(pprof_real);
	}
	pprof_free(pprof);
	/*
	 * What could not be saved, read or printed is kept, stopped (unless
	 * the stop failed), for leaks to show.
	 */
	if (unsaved || unreadable || failed)
		r.keep = true;
	for (i = 0; i < r.n; i++)
		if (r.c[i].own && !r.keep)
			ctl("reset %s", r.c[i].name);
	watchdog_done(&r);
	if (unsaved) {
		note("record: the snapshot could not all be saved in %s: %s", dir,
		     "the records are kept (slabtrace leaks -c CACHE shows them)");
		return 1;
	}
	if (unreadable) {
		note("record: a print could not be read (said above): %s %s, %s",
		     "saved as it came in", dir,
		     "and the records are kept (slabtrace leaks -c CACHE shows them)");
		return 1;
	}
	if (failed) {
		note("record: a stop or a print failed (said above): %s",
		     "the records are kept (slabtrace leaks -c CACHE shows them)");
		return 1;
	}
	if (!saved)
		note("record: signal %d: stopped%s what it started, saved what it had",
		     (int)last_signal, r.keep ? "" : " and reset");
	else
		saved_say(dir, &r, owned && !r.keep, shared);
	if (unwritten)
		return 1;
	/* Without COMMAND, the first signal is how record ends: no failure. */
	if (nsignals > waited)
		return 128 + last_signal;
	if (rc == RUN_FAILED)
		return 1;
	return rc ? 3 : 0;
}
