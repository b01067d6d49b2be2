/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of slabtrace(8) share.  One concern a file:
 *
 *   main.c      the commands, their options and help texts
 *   caches.c    cache names: does it exist, which did the user mean
 *   ctl.c       commands to the module (ctl), its reasons for refusing
 *   status.c    the stats file read, and slabtrace status
 *   run.c       running COMMAND, the signals, sleeping
 *   growth.c    /proc/slabinfo over time: slabtrace growth
 *   snapshot.c  a print, and what it shows, read in a session of its own
 *   view.c      top, leaks and report
 *   output.c    a dump as text, JSON, folded stacks, a pprof profile
 *   record.c    slabtrace record: ownership, the watchdog
 *   prometheus.c  growth's metrics in Prometheus' text format
 *
 * The dump itself is parsed by the tools' library (../lib/dump.c).
 */
#ifndef SLABTRACE_CLI_H
#define SLABTRACE_CLI_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdnoreturn.h>
#include <sys/types.h>

#include "../lib/dump.h"
#include "../lib/escape.h"
#include "../lib/stfiles.h"

#define JSON_VERSION 1
#define MAX_CACHES 16		/* -c: names given, not caches traced */

/* What the options of a command said. */
struct opts {
	const char *caches[MAX_CACHES];
	int ncaches;
	struct filter f;
	long older;		/* --older: the module's older-than */
	long top;		/* -n: stacks or caches shown */
	bool json, folded, autosel, keep;
	const char *out;
	const char *pprof;	/* --pprof FILE */
	const char *prometheus;	/* --prometheus FILE */
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

/* main.c */
extern const struct command *cur;	/* the command running */
extern char help_hint[64];		/* "slabtrace CMD --help" */
#define usage(...) usage_error(help_hint, __VA_ARGS__)

/* caches.c */
void slab_dir(char *buf, size_t size, const char *name);
void need_cache(const char *name);
void cache_identity(const char *name, char *buf, size_t size);
bool is_kmalloc_name(const char *name);
bool is_pseudo_cache(const char *name);

/* ctl.c */
void ctl_say_failed(const char *cmd, const char *reason);
noreturn void ctl_failed(const char *cmd, const char *reason);
int ctl_send(int fd, const char *cmd, char *why, size_t size);
int ctl_open(int flags, bool die_on_error);
int ctl_try(char *why, size_t size, const char *fmt, ...);
#define ctl(...) ctl_try(NULL, 0, __VA_ARGS__)
int cmd_plain(struct opts *o, int argc, char **argv);

/* status.c: the stats file. */
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
	struct traced *caches;	/* as many as stats lists */
	int n, cap;
};

const char *kv_get(const struct traced *t, const char *key);
bool read_stats(struct stats *s, bool die_on_error);
void stats_free(struct stats *s);
const struct traced *stats_find(const struct stats *s, const char *name);
const char *stats_line(const char *text, const char *head);
int cmd_status(void);

/* run.c */
extern atomic_int nsignals, signal_from_tty, last_signal;
double now(void);
bool sleep_secs(double s, int seen);
void catch_signals(void);
#define RUN_FAILED	(-1)	/* run_command(): COMMAND could not be run */
int run_command(char **argv, int since);

/* growth.c */
#define SERIES_MAX 64		/* samples kept a cache: thinned when full */

struct slab {
	char name[128];
	long active[2];		/* first and last sample */
	long bytes[2];		/* their bytes: each line's objects by its size */
	long prev;		/* the sample before the last */
	long series[SERIES_MAX];	/* its samples, evenly spaced */
	int nseries;
	int stride;		/* one sample in stride kept in series */
	int pending;		/* samples since the last one kept */
	bool tail;		/* series' last: the latest, off the stride */
	long objsize;		/* of two lines of one name, the larger */
	bool shrank;		/* went down between two samples */
	bool seen;
	char **aliases;		/* its merged names */
	int naliases;
};

struct slabs {
	struct slab *v;
	int n;
};

/* What a cache's samples show (slab_trend()). */
enum trend { TREND_GROWS, TREND_GREW, TREND_LEVELS, TREND_ONCE, TREND_MIXED };
extern const char *const trend_names[];

enum trend slab_trend(const struct slab *sl);
void slab_aliases(struct slabs *s);
void slabs_free(struct slabs *s);
int slab_grown(struct slabs *s);
double growth_sample(struct slabs *s, char **cmd, int *cmd_rc, int rounds,
		     double interval, const char *prometheus, int *samples);
void growth_print(struct slabs *s, double secs, int top);
int cmd_growth(struct opts *o, int argc, char **argv);

/* prometheus.c */
bool prometheus_write(const char *path, const struct slabs *s);

/* snapshot.c: what a print shows, ctl then the views of one snapshot. */
enum { VIEW_CTL, VIEW_STACKS, VIEW_FOLDED, VIEW_FOLDED_BYTES, NVIEWS };
int snapshot(const char *cache, long older, int nviews, char **texts);

/* output.c */
struct pprof;
void dump_print(const struct dump *d, long top, bool full);
void json_begin(long report);
void json_end(void);
void dump_json(const struct dump *d, long top, bool first);
void dump_folded(const struct dump *d, bool by_bytes, bool cache_frame);
struct pprof *dump_pprof_new(void);
void dump_pprof_add(struct pprof *p, const struct dump *d);
int dump_pprof_write(struct pprof *p, const char *path, double time,
		     double duration);

/* view.c */
double show_print(char *text, const struct opts *o, bool full,
		  const struct expect *e, const char *src, bool *first,
		  struct pprof *pprof);
int cmd_top(struct opts *o, int argc, char **argv);
int cmd_leaks(struct opts *o, int argc, char **argv);
int cmd_report(struct opts *o, int argc, char **argv);

/* record.c */
int cmd_record(struct opts *o, int argc, char **argv);

#endif
