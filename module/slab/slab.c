// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: the system, as the core drives it (leak_system): its
 * steps of loading, its commands, its files, what reading ctl shows.
 *
 * For the slab caches a user names, slab_trace keeps a record of every
 * object allocated and not yet freed, with the backtrace and context of
 * its allocation, taken from the kmem tracepoints (probes.c); "print"
 * takes a snapshot of a cache's records (print.c) that reading ctl,
 * slab/stacks, slab/folded and slab/folded_bytes show (dump.c, folded.c).
 *
 * Loading is a list of steps, steps[] below, each given by the file that
 * owns what it makes (its leak_part, part.h), undone in the reverse order
 * by unloading (or a load that fails).  It follows one rule: a step may
 * use only what the steps before it made, and its exit first stops every
 * notifier it owns, then frees.  The worker's exit (worker.c) stops every
 * job at once: the jobs of the steps before it free nothing before it; a
 * step after it registers its job before anything can ask for it, and a
 * job that runs once that step is undone finds nothing to do.  So nothing
 * is freed while something that uses it can still run: the table's
 * records go back to the pool, so the pool comes before the table.  What
 * commands make (the prints, the traced caches, following, the probes)
 * belongs to the last steps, whose exits undo it first.
 *
 * Notes on locking
 * ----------------
 * - leak_mutex (traced.c's) serialises the commands below (but
 *   "pool", which takes the pool's refill_mutex, and "limit", one
 *   WRITE_ONCE() the probes read), attaching the probes, and the set of
 *   traced caches; its place among the other locks is in
 *   main.c's header, what each file does under it in that file's notes.
 *
 * A command is sequenced here, and nothing below calls up: a command
 * (traced.c, print.c) changes the set, then cmd_cache() lets following
 * (follow.c), the users' prints (print.c) and the probes (probes.c) catch
 * up with it, in that order.  "start" is given the probes' attach, to
 * undo what it started if they cannot attach.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/parser.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stackdepot.h>
#include <linux/string.h>

#include <wrapper/cgroup.h>
#include <slabtrace/core.h>
#include <slabtrace/files.h>

#include "slab.h"

static unsigned long record_limit;
module_param(record_limit, ulong, 0400);
MODULE_PARM_DESC(record_limit, "most records kept, all caches together; 0: 1/64 of RAM's worth (\"limit N\" on ctl changes it)");

/* The default limit: records worth 1/64 of RAM, table included. */
static unsigned long default_limit(void)
{
	return (totalram_pages() << PAGE_SHIFT) / 64 /
	       LEAK_RECORD_BYTES;
}

/*
 * The worker's job: a stopped cache's last record went, or a scan for new
 * caches swept destroyed ones, or started some: detach idle probes, attach
 * missing ones, and let the prints of the caches swept go.
 */
static void idle_job(void)
{
	mutex_lock(&leak_mutex);
	leak_print_drop_stale();
	leak_probes_update();
	mutex_unlock(&leak_mutex);
}

/*
 * Its job, before anything can ask for it: the probes attach only once
 * loading is done.
 */
static int commands_init(void)
{
	leak_work_job(LEAK_JOB_IDLE, idle_job, 0);
	return 0;
}

static const struct slabtrace_step commands_step = {
	"slab_trace commands", commands_init, NULL
};

/*
 * Each file's step is in its leak_part (part.h).  The jobs of the files
 * below the worker are registered before it starts; the files after it
 * register theirs before anything can ask for them.
 */
static const struct slabtrace_step *const steps[] = {
	/* The record cache and the pool. */
	&leak_pool_part.step,
	/* Its records go back to the pool. */
	&leak_table_part.step,
	/* The probes count the lifetimes of the records they free. */
	&leak_lifetime_part.step,
	/* Traces saved late are given to records of the table. */
	&leak_stacks_part.step,
	/* The module notifier names the frames of records and snapshots. */
	&leak_modsyms_part.step,
	/*
	 * The jobs of the files above and below: it stops before any of
	 * them frees what a job uses, once the probes (which ask for jobs)
	 * are gone.
	 */
	&leak_work_part.step,
	/*
	 * What the commands make, undone first: the probes (none runs after
	 * this, nor will), following new caches, the traced caches and their
	 * records, the prints.
	 */
	&commands_step,
	&leak_prints_part.step,
	&leak_traced_part.step,
	&leak_follow_part.step,
	&leak_probes_part.step,
};

static int slab_init(void)
{
	leak_record_limit = record_limit ?: default_limit();
	return slabtrace_steps_init(steps, ARRAY_SIZE(steps));
}

static void slab_exit(void)
{
	slabtrace_steps_exit(steps, ARRAY_SIZE(steps));
}

enum {
	SLAB_CMD_START,
	SLAB_CMD_STOP,
	SLAB_CMD_PRINT,
	SLAB_CMD_MARK,
	SLAB_CMD_RESET,
	SLAB_CMD_POOL,
	SLAB_CMD_LIMIT,
};

/*
 * The commands (CACHE is a cache name, as /proc/slabinfo shows it,
 * kmalloc-large or percpu; or a word for a set of caches, sets.c: kmalloc,
 * every kmalloc cache; all, every cache):
 *
 *   start CACHE [FILTER] [sample N|sample-bytes B]
 *                 record every allocation from CACHE from now on, or
 *                 only those FILTER lets through (a new FILTER, or none,
 *                 replaces a traced cache's), or of those 1 in N at
 *                 random (2 to 1000000; each record stands for N), or
 *                 1 per B bytes allocated on average (64 to 1073741824;
 *                 an object of s bytes is recorded with the chance
 *                 1 - exp(-s / B), its record stands for the inverse):
 *                   pid PID [PID...]  of these processes (thread groups;
 *                                     at most 8)
 *                   comm NAME         of tasks of this command name
 *                   cgroup PATH       of tasks in this cgroup (v2; the
 *                                     path of /proc/PID/cgroup) or below
 *   stop CACHE    record no new ones; frees still drop records
 *   print CACHE [OPTION...]
 *                 snapshot CACHE's outstanding objects for reading ctl,
 *                 slab/stacks, slab/folded and slab/folded_bytes; the
 *                 options:
 *                   stacks           show groups by backtrace, not objects
 *                   top N            show the N groups with most bytes
 *                   older-than MS    only objects at least MS ms old
 *                   since-mark       only objects made after "mark"
 *   mark CACHE    set the epoch of since-mark to now
 *   reset CACHE   drop all of CACHE's records (a traced cache stays traced)
 *   pool N        keep N records ready per CPU (16 to 1048576)
 *   limit N       keep at most N records, all caches together (N >= 1)
 *
 * Numbers are decimal; one that does not fit is refused (-ERANGE).
 */
static const match_table_t slab_cmds = {
	{ SLAB_CMD_START, "start" },
	{ SLAB_CMD_STOP, "stop" },
	{ SLAB_CMD_PRINT, "print" },
	{ SLAB_CMD_MARK, "mark" },
	{ SLAB_CMD_RESET, "reset" },
	{ SLAB_CMD_POOL, "pool" },
	{ SLAB_CMD_LIMIT, "limit" },
	{ SLABTRACE_CMD_NONE, NULL },
};

enum { OPT_STACKS, OPT_TOP, OPT_OLDER, OPT_SINCE, OPT_ERR };

static const match_table_t print_options = {
	{ OPT_STACKS, "stacks" },
	{ OPT_TOP, "top" },
	{ OPT_OLDER, "older-than" },
	{ OPT_SINCE, "since-mark" },
	{ OPT_ERR, NULL },
};

/* The options of "print" in @argv (after the cache name). */
static int parse_print(int argc, char **argv, struct leak_print_opts *o)
{
	substring_t args[MAX_OPT_ARGS];
	char esc[SLABTRACE_ESC_SIZE];
	int i, ret;
	u32 *num;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < argc; i++) {
		switch (match_token(argv[i], print_options, args)) {
		case OPT_STACKS:
			o->stacks = true;
			continue;
		case OPT_SINCE:
			o->since_mark = true;
			continue;
		case OPT_TOP:
			num = &o->top;
			break;
		case OPT_OLDER:
			num = &o->older_than;
			break;
		default:
			pr_warn_ratelimited("ctl: print: unknown option '%s'\n",
					    slabtrace_esc_str(esc, argv[i]));
			return -EINVAL;
		}
		/* Not a number: -EINVAL; one beyond 32 bits: -ERANGE. */
		ret = ++i == argc ? -EINVAL : slabtrace_ctl_u32(argv[i], num);
		if (ret || (num == &o->top && !*num)) {
			pr_warn_ratelimited("ctl: print: %s takes a number%s\n", argv[i - 1],
					    num == &o->top ? " above 0" : "");
			return ret ?: -EINVAL;
		}
	}
	return 0;
}

static const match_table_t start_filters = {
	{ LEAK_FILTER_PID, "pid" },
	{ LEAK_FILTER_COMM, "comm" },
	{ LEAK_FILTER_CGROUP, "cgroup" },
	{ OPT_ERR, NULL },
};

/* The cgroup of "cgroup PATH", resolved now; into @f. */
static int parse_cgroup(const char *path, struct leak_filter *f)
{
	char esc[SLABTRACE_ESC_SIZE];
	struct cgroup *cgrp;

	if (path[0] != '/' || strlen(path) >= sizeof(f->path)) {
		pr_warn_ratelimited("ctl: start: cgroup takes a path from /, as /proc/PID/cgroup shows it, of less than %zu bytes\n",
				    sizeof(f->path));
		return -EINVAL;
	}
	cgrp = slabtrace_cgroup_get(path);
	if (IS_ERR(cgrp)) {
		if (PTR_ERR(cgrp) == -EOPNOTSUPP)
			pr_warn_ratelimited("ctl: start: this kernel has no cgroups\n");
		else
			pr_warn_ratelimited("ctl: start: no cgroup %s in the cgroup v2 hierarchy (%ld)\n",
					    slabtrace_esc_str(esc, path), PTR_ERR(cgrp));
		return PTR_ERR(cgrp);
	}
	f->cgroup = cgrp;
	strscpy(f->path, path, sizeof(f->path));
	return 0;
}

/*
 * The filter of "start CACHE FILTER", @argv its words: a new filter, which
 * the caller gives to leak_start(); NULL and -errno if bad.
 */
static struct leak_filter *parse_filter(int argc, char **argv, int *err)
{
	substring_t args[MAX_OPT_ARGS];
	struct leak_filter *f;
	int i, kind;

	kind = match_token(argv[0], start_filters, args);
	*err = -EINVAL;
	if (kind == OPT_ERR || argc < 2 ||
	    (kind == LEAK_FILTER_PID && argc > LEAK_MAX_PIDS + 1) ||
	    (kind != LEAK_FILTER_PID && argc != 2)) {
		pr_warn_ratelimited("ctl: start: a filter is 'pid PID...' (at most %d), 'comm NAME' or 'cgroup PATH', then maybe 'sample N' or 'sample-bytes B'\n",
				    LEAK_MAX_PIDS);
		return NULL;
	}
	f = leak_filter_alloc();
	if (!f) {
		*err = -ENOMEM;
		return NULL;
	}
	f->kind = kind;
	switch (kind) {
	case LEAK_FILTER_PID:
		for (i = 1; i < argc; i++) {
			*err = slabtrace_ctl_pid("ctl: start", argv[i],
						 &f->tgid[f->npids++]);
			if (*err)
				goto bad;
		}
		break;
	case LEAK_FILTER_COMM:
		if (strlen(argv[1]) >= TASK_COMM_LEN) {
			pr_warn_ratelimited("ctl: start: a command name has at most %d bytes\n",
					    TASK_COMM_LEN - 1);
			goto bad;
		}
		strscpy_pad(f->comm, argv[1], sizeof(f->comm));
		break;
	default:
		*err = parse_cgroup(argv[1], f);
		if (*err)
			goto bad;
		break;
	}
	*err = 0;
	return f;
bad:
	kfree(f);
	return NULL;
}

/* The N of "start CACHE ... sample N". */
static int parse_sample(const char *arg, u32 *n)
{
	int ret = slabtrace_ctl_u32(arg, n);
	char esc[SLABTRACE_ESC_SIZE];

	if (ret || *n < 2 || *n > LEAK_SAMPLE_MAX) {
		pr_warn_ratelimited("ctl: start: sample takes a decimal number from 2 to %u, not '%s'\n",
				    LEAK_SAMPLE_MAX,
				    slabtrace_esc_str(esc, arg));
		return ret ?: -ERANGE;
	}
	return 0;
}

/* The B of "start CACHE ... sample-bytes B". */
static int parse_sample_bytes(const char *arg, u32 *b)
{
	int ret = slabtrace_ctl_u32(arg, b);
	char esc[SLABTRACE_ESC_SIZE];

	if (ret || *b < LEAK_SAMPLE_BYTES_MIN ||
	    *b > LEAK_SAMPLE_BYTES_MAX) {
		pr_warn_ratelimited("ctl: start: sample-bytes takes a decimal number from %u to %u, not '%s'\n",
				    LEAK_SAMPLE_BYTES_MIN,
				    LEAK_SAMPLE_BYTES_MAX,
				    slabtrace_esc_str(esc, arg));
		return ret ?: -ERANGE;
	}
	return 0;
}

/*
 * A trailing "sample N" or "sample-bytes B" of "start CACHE ...": taken off
 * @argc.  Only one of them, once (-EINVAL).
 */
static int parse_sampling(int *argc, char **argv, u32 *every, u32 *bytes)
{
	unsigned int seen = 0;
	int ret;

	while (*argc > 3) {
		if (!strcmp(argv[*argc - 2], "sample"))
			ret = parse_sample(argv[*argc - 1], every);
		else if (!strcmp(argv[*argc - 2], "sample-bytes"))
			ret = parse_sample_bytes(argv[*argc - 1], bytes);
		else
			break;
		if (ret)
			return ret;
		*argc -= 2;
		if (++seen > 1) {
			pr_warn_ratelimited("ctl: start: one 'sample N' or 'sample-bytes B', not two\n");
			return -EINVAL;
		}
	}
	return 0;
}

/* "pool N" and "limit N": each has its own lock, not leak_mutex. */
static int cmd_pool_limit(int cmd, const char *arg)
{
	char esc[SLABTRACE_ESC_SIZE];
	unsigned long n;
	int ret;

	ret = slabtrace_ctl_ulong(arg, &n);
	if (ret) {
		pr_warn_ratelimited("ctl: %s takes a decimal number, not '%s'%s\n",
				    cmd == SLAB_CMD_POOL ? "pool" : "limit",
				    slabtrace_esc_str(esc, arg),
				    ret == -ERANGE ? " (too big)" : "");
		return ret;
	}
	if (cmd == SLAB_CMD_LIMIT) {
		if (!n) {
			pr_warn_ratelimited("ctl: limit: 0 would record nothing\n");
			return -EINVAL;
		}
		WRITE_ONCE(leak_record_limit, n);
		return 0;
	}
	if (n < LEAK_POOL_MIN || n > LEAK_POOL_MAX) {
		pr_warn_ratelimited("ctl: pool: %lu is not in %u..%u\n", n,
				    LEAK_POOL_MIN, LEAK_POOL_MAX);
		return -ERANGE;
	}
	return leak_pool_resize(&leak_pool, n);
}

/*
 * A command on one cache, under leak_mutex; a print keeps its
 * snapshot for @own too.
 */
static int cmd_cache(int cmd, const char *name,
		     const struct leak_print_opts *opts,
		     struct leak_filter *filter, u32 sample,
		     u32 sample_bytes, struct leak_reader *own)
{
	bool all = leak_word_of(name) == LEAK_WORD_ALL;
	struct leak_filter *follow;
	int ret;

	mutex_lock(&leak_mutex);
	leak_traced_sweep();
	switch (cmd) {
	case SLAB_CMD_START:
		/* "start all" follows new caches, with its filter and rate. */
		follow = all ? leak_filter_get(filter) : NULL;
		/* The depot gets a pool before the probes' first traces. */
		leak_stack_prime();
		ret = leak_start(name, filter, sample, sample_bytes,
				 leak_probes_update);
		if (!ret && all)
			leak_follow_start(follow, sample, sample_bytes,
					  leak_probes_update);
		leak_filter_put(follow);
		break;
	case SLAB_CMD_STOP:
		ret = leak_stop(name);
		if (all)
			leak_follow_stop();
		break;
	case SLAB_CMD_PRINT:
		ret = leak_print(own, name, opts);
		break;
	case SLAB_CMD_MARK:
		ret = leak_mark(name);
		break;
	default:
		/* "start all" does not start a cache "reset" forgot again. */
		ret = leak_reset(name, leak_follow_leave_out);
		break;
	}
	/*
	 * Following ends with the set; what "reset" left out is published;
	 * the prints of caches reset go; the probes go once nothing is
	 * traced and no record kept.
	 */
	leak_follow_update();
	leak_print_drop_stale();
	leak_probes_update();
	mutex_unlock(&leak_mutex);
	return ret;
}

/*
 * The reader of ctl @file opened to read (its seq_file's, slab_ctl_open()),
 * which keeps what it prints; NULL for ctl opened to write only, or a
 * command from elsewhere.
 */
static struct leak_reader *ctl_reader(struct file *file)
{
	struct seq_file *m;

	if (!file || !(file->f_mode & FMODE_READ))
		return NULL;
	m = file->private_data;
	return m->private;
}

/* leak_system's command handler: the words are checked here. */
static int slab_command(struct file *file, int cmd, int argc, char **argv)
{
	struct leak_print_opts opts = { };
	struct leak_filter *filter = NULL;
	u32 sample = 1, sample_bytes = 0;
	int ret;

	if (cmd == SLAB_CMD_POOL || cmd == SLAB_CMD_LIMIT) {
		if (argc != 2) {
			pr_warn_ratelimited("ctl: '%s' takes one number\n", argv[0]);
			return -EINVAL;
		}
		return cmd_pool_limit(cmd, argv[1]);
	}
	if (cmd == SLAB_CMD_PRINT && argc > 2) {
		ret = parse_print(argc - 2, argv + 2, &opts);
		if (ret)
			return ret;
	} else if (argc != 2 && (cmd != SLAB_CMD_START || argc < 2)) {
		pr_warn_ratelimited("ctl: '%s' takes one cache name, not %d words\n",
				    argv[0], argc - 1);
		return -EINVAL;
	}
	if (strlen(argv[1]) > SLABTRACE_NAME_MAX) {
		pr_warn_ratelimited("ctl: cache name longer than %d bytes\n",
				    SLABTRACE_NAME_MAX);
		return -ENAMETOOLONG;
	}
	if (cmd == SLAB_CMD_START) {
		ret = parse_sampling(&argc, argv, &sample, &sample_bytes);
		if (ret)
			return ret;
	}
	if (cmd == SLAB_CMD_START && argc > 2) {
		filter = parse_filter(argc - 2, argv + 2, &ret);
		if (!filter)
			return ret;
	}
	return cmd_cache(cmd, argv[1], &opts, filter, sample, sample_bytes,
			 ctl_reader(file));
}

/* Reading ctl: the snapshot (dump.c). */
static int slab_ctl_open(struct inode *inode, struct file *file)
{
	return leak_reader_open(file, &leak_dump_seq_ops);
}

static const char *const slab_help[] = {
	"  start CACHE [pid PID...|comm NAME|cgroup PATH] [sample N|sample-bytes B]",
	"                     record every allocation from CACHE (a /proc/slabinfo name, kmalloc-large, percpu), or only these tasks', or 1 in N, or 1 per B bytes",
	"                     CACHE may be a word, in every command: kmalloc (every kmalloc cache, kmalloc-large), all (every cache, kmalloc-large)",
	"  stop CACHE         record no new ones; frees still drop records",
	"  print CACHE [stacks] [top N] [older-than MS] [since-mark]",
	"                     snapshot the outstanding objects; then cat ctl, slab/stacks, slab/folded",
	"  mark CACHE         set the epoch of print ... since-mark",
	"  reset CACHE        drop CACHE's records and snapshots",
	"  pool N | limit N   records ready per CPU | records kept, all caches",
	NULL,
};

/* slab/: the views of the last print, and the stats. */
static struct slabtrace_file slab_files[] = {
	{ .name = "stats", .mode = 0400, .fops = &leak_stats_fops },
	{ .name = "stacks", .mode = 0400, .fops = &leak_view_fops,
	  .data = (void *)&leak_stacks_seq_ops },
	{ .name = "folded", .mode = 0400, .fops = &leak_view_fops,
	  .data = (void *)&leak_folded_seq_ops },
	{ .name = "folded_bytes", .mode = 0400, .fops = &leak_view_fops,
	  .data = (void *)&leak_folded_bytes_seq_ops },
};

const struct slabtrace_system leak_system = {
	.name = "slab_trace",
	.init = slab_init,
	.exit = slab_exit,
	.cmds = slab_cmds,
	.command = slab_command,
	.status = leak_status,
	.next = leak_next,
	.help = slab_help,
	.ctl_open = slab_ctl_open,
	.ctl_release = leak_view_release,
	.dir = "slab",
	.files = slab_files,
	.nr_files = ARRAY_SIZE(slab_files),
};
