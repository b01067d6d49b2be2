/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one parser of the module's per-object dump (what reading ctl gives
 * after "print CACHE"), for every tool: it reads the header, groups the
 * objects by backtrace and system call as the module's stacks view does,
 * keeps who allocated them (per context), and refuses anything else: a
 * stacks view, a second header, a dump cut short (fewer objects than its
 * header counts, or its last object or line not whole).
 *
 * A print of a word ("print all", "print kmalloc") is a summary line,
 * "Print of WORD: T caches, N with outstanding objects, most bytes first",
 * then N such dumps, one a cache: print_parse() reads either kind into a
 * struct print, each dump checked as a dump alone is, and the print cut
 * short if it holds fewer dumps than its summary counts.
 *
 * A module that judges its stacks (module/slab/verdict.c) writes their
 * verdicts into the dump: the header counts them ("verdicts: 2 leak, ...")
 * and gives each stack's line ("stack 1: leak (error path): ..."), each
 * object names its stack and verdict (", stack 1 (leak), from ..."); a
 * group takes its objects' verdict and its stack's line.  A dump without
 * them (an older module) parses as before, its groups with no verdict.
 *
 * A frame is kept as the dump writes it after "in ":
 * "leaky_alloc_buf+0x1b/0x20 [leaky]" (function+offset/size [module]).
 */
#ifndef SLABTRACE_DUMP_H
#define SLABTRACE_DUMP_H

#include <stdbool.h>
#include <stddef.h>

#include "../../../include/uapi/slabtrace/dump.h"

/* Processes -p names at most: as many as the module's "pid" filter takes. */
#define FILTER_PIDS	8

/* Which objects count: the filters of top, leaks and report. */
struct filter {
	const char *module, *comm;
	long pids[FILTER_PIDS];	/* the first npids; none: any process */
	int npids;
	long older;		/* ms; applied by the parser (report only) */
	bool by_bytes;		/* rank by bytes (dump_sort) */
	bool only_leaks;	/* the objects of stacks judged leaks */
};

/*
 * The module's leak verdict of a stack (<uapi/slabtrace/dump.h>), one up;
 * VERDICT_NONE in a dump of a module that gave none.
 */
enum verdict {
	VERDICT_NONE,
	VERDICT_UNKNOWN = 1 + SLABTRACE_VERDICT_UNKNOWN,
	VERDICT_LEAK = 1 + SLABTRACE_VERDICT_LEAK,
	VERDICT_LIVE = 1 + SLABTRACE_VERDICT_LIVE,
	VERDICT_KEPT = 1 + SLABTRACE_VERDICT_KEPT,
	NVERDICTS = 1 + SLABTRACE_VERDICTS
};

const char *verdict_name(enum verdict v);
/* Whether an object of process @pid passes @f's processes. */
static inline bool filter_pid(const struct filter *f, long pid)
{
	int i;

	for (i = 0; i < f->npids; i++)
		if (f->pids[i] == pid)
			return true;
	return !f->npids;
}

/* Who allocated some of a group's objects: one context of the dump. */
struct context {
	char *who;		/* "PID 5 sh", "kthread x (PID 7)", "softirq" */
	long pid;		/* -1: none */
	long objects, bytes;
	double est_objects, est_bytes;	/* what the records stand for */
};

/* Kinds of GFP flags and nodes a group keeps: the first seen. */
#define GROUP_GFPS	4
#define GROUP_NODES	8

/* The objects of one backtrace and system call. */
struct group {
	char *key;		/* frames and syscall, for grouping */
	char **frames;
	int nframes;
	char *syscall;		/* or NULL */
	long objects, bytes, requested;
	double est_objects, est_bytes;	/* what the records stand for */
	long age_min, age_max, age_sum;		/* ms */
	struct context *ctx;	/* in the order first seen */
	int nctx;
	char gfp[GROUP_GFPS][128];	/* "GFP_KERNEL|__GFP_ZERO", as dumped */
	int ngfp;
	long node[GROUP_NODES];		/* NUMA nodes of the objects' memory */
	int nnode;
	long stack;		/* the module's "stack N" of its verdict; 0: none */
	enum verdict verdict;
	const char *evidence;	/* the verdict's line, the dump's; or NULL */
};

/* A stack's verdict, as the header of a per-object dump gives it. */
struct evidence {
	long stack;
	char *text;		/* "leak (error path): 94 of 800 not freed, ..." */
};

struct dump {
	char cache[260];	/* as the header writes it (escaped) */
	double traced;		/* seconds */
	long outstanding, bytes, dropped;
	long sample;		/* "start ... sample N": a record is N; else 1 */
	long sample_bytes;	/* "start ... sample-bytes B": B; else 0 */
	struct group *g;
	int ng, capg;
	long listed;			/* objects the dump lists */
	long objects, obj_bytes;	/* after the filters */
	double est_objects, est_bytes;	/* what their records stand for */
	bool judged;			/* the header counts verdicts */
	long verdicts[NVERDICTS];	/* stacks judged so, all of the dump's */
	struct evidence *ev;		/* each stack's verdict line */
	int nev;
};

/* The print a dump must come from: its cache and older-than (0: none). */
struct expect {
	const char *cache;	/* or word; NULL: any (a saved dump) */
	long older;
};

/* What a print holds: one dump, or a word's, in the module's order. */
struct print {
	char word[64];		/* "all", "kmalloc"; "" for a print of a cache */
	long caches;		/* a word's: the traced caches it stood for */
	struct dump *d;		/* most bytes first */
	int n;
};

/* What one record of @d stands for: N if sampled 1 in N, else 1. */
static inline long dump_weight(const struct dump *d)
{
	return d->sample > 1 ? d->sample : 1;
}

/* Whether a record of @d stands for more than itself. */
static inline bool dump_sampled(const struct dump *d)
{
	return d->sample > 1 || d->sample_bytes;
}

/* An estimate, rounded, as the module rounds it (at most LONG_MAX). */
static inline long dump_est(double v)
{
	return v + 0.5 < 9.2e18 ? (long)(v + 0.5) : 9200000000000000000L;
}

bool dump_parse(char *text, struct dump *d, const struct filter *f,
		const struct expect *e, const char *src);
void dump_sort(struct dump *d, bool by_bytes);
void dump_free(struct dump *d);

bool print_is_word(const char *name);
bool print_parse(char *text, struct print *p, const struct filter *f,
		 const struct expect *e, const char *src);
double print_traced(const struct print *p);
void print_free(struct print *p);

/*
 * A frame's function, as long as the kernel's (KSYM_NAME_LEN: 512 since
 * 6.1, for Rust's names), its module (MODULE_NAME_LEN, 56 on 64-bit),
 * and the two as frame_func() writes them ("func [mod]").
 */
#define FRAME_FN_SIZE	512
#define FRAME_MOD_SIZE	128
#define FRAME_FUNC_SIZE	(FRAME_FN_SIZE + FRAME_MOD_SIZE + 3)

void frame_split(const char *frame, char *fn, size_t fn_size, char *mod,
		 size_t mod_size);
void frame_func(const char *frame, char *buf, size_t size);

#endif
