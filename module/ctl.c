// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: /proc/slabtrace/ctl (and the same in debugfs), the command file.
 *
 * A write is one command; a read returns the snapshot of the last "print"
 * (dump.c).  A bad command fails the write with an errno and says why in
 * one kernel log line.
 *
 * Notes on locking
 * ----------------
 * - slabtrace_mutex is held across each command, so commands run one at a
 *   time; every handler below is called with it held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/fs.h>
#include <linux/parser.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <slabtrace/files.h>
#include <slabtrace/kmemtrace.h>
#include <slabtrace/kptrace.h>
#include <slabtrace/slabtrace.h>

enum {
	CMD_START,
	CMD_STOP,
	CMD_PRINT,
	CMD_RESET,
	CMD_MARK,
	CMD_SYSCALL,
	CMD_POOL,
	CMD_LIMIT,
	CMD_KMEMTRACE,
	CMD_HELP,
	CMD_ERR,
};

/*
 * The commands (CACHE is a cache name, as /proc/slabinfo shows it):
 *
 *   start CACHE   record every allocation from CACHE from now on
 *   stop CACHE    record no new ones; frees still drop records
 *   print CACHE [OPTION...]
 *                 snapshot CACHE's outstanding objects for reading ctl,
 *                 folded and folded_bytes; the options:
 *                   stacks           show groups by backtrace, not objects
 *                   top N            show the N groups with most bytes
 *                   older-than MS    only objects at least MS ms old
 *                   since-mark       only objects made after "mark"
 *   mark CACHE    set the epoch of since-mark to now
 *   reset CACHE   drop all of CACHE's records (a traced cache stays traced)
 *   pool N        keep N records ready per CPU (16 to 1048576)
 *   limit N       keep at most N records, all caches together (N >= 1)
 *   syscall ...   kptrace, the system call trace: see kptrace/kptrace.c
 *   kmemtrace start [CACHE...] | kmemtrace stop
 *                 kmemtrace, the binary alloc/free trace: see
 *                 kmemtrace/kmemtrace.c
 *   help          log the commands (status.c)
 *
 * Numbers are decimal; one that does not fit is refused (-ERANGE).
 */
static const match_table_t commands = {
	{ CMD_START, "start" },
	{ CMD_STOP, "stop" },
	{ CMD_PRINT, "print" },
	{ CMD_MARK, "mark" },
	{ CMD_RESET, "reset" },
	{ CMD_SYSCALL, "syscall" },
	{ CMD_POOL, "pool" },
	{ CMD_LIMIT, "limit" },
	{ CMD_KMEMTRACE, "kmemtrace" },
	{ CMD_HELP, "help" },
	{ CMD_ERR, NULL },
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
static int parse_print(int argc, char **argv, struct slab_trace_print_opts *o)
{
	substring_t args[MAX_OPT_ARGS];
	u32 *num;
	int i;

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
			pr_warn_ratelimited("ctl: print: unknown option '%*pE'\n",
					    (int)min_t(size_t, strlen(argv[i]), 16), argv[i]);
			return -EINVAL;
		}
		if (++i == argc || kstrtou32(argv[i], 10, num) ||
		    (num == &o->top && !*num)) {
			pr_warn_ratelimited("ctl: print: %s takes a number%s\n", argv[i - 1],
					    num == &o->top ? " above 0" : "");
			return -EINVAL;
		}
	}
	return 0;
}

/* "pool N" and "limit N". */
static int set_number(int cmd, const char *arg)
{
	unsigned long n;
	int ret;

	ret = kstrtoul(arg, 10, &n);
	if (ret) {
		pr_warn_ratelimited("ctl: %s takes a decimal number, not '%*pE'%s\n",
				    cmd == CMD_POOL ? "pool" : "limit",
				    (int)min_t(size_t, strlen(arg), 24), arg,
				    ret == -ERANGE ? " (too big)" : "");
		return ret;
	}
	if (cmd == CMD_LIMIT) {
		if (!n) {
			pr_warn_ratelimited("ctl: limit: 0 would record nothing\n");
			return -EINVAL;
		}
		WRITE_ONCE(slab_trace_record_limit, n);
		return 0;
	}
	if (n < SLAB_TRACE_POOL_MIN || n > SLAB_TRACE_POOL_MAX) {
		pr_warn_ratelimited("ctl: pool: %lu is not in %u..%u\n", n,
				    SLAB_TRACE_POOL_MIN, SLAB_TRACE_POOL_MAX);
		return -ERANGE;
	}
	return slab_trace_pool_resize(&slab_trace_pool, n);
}

static int run(int cmd, const char *name,
	       const struct slab_trace_print_opts *opts)
{
	switch (cmd) {
	case CMD_START:
		return slab_trace_start(name);
	case CMD_STOP:
		return slab_trace_stop(name);
	case CMD_PRINT:
		return slab_trace_print(name, opts);
	case CMD_MARK:
		return slab_trace_mark(name);
	default:
		return slab_trace_reset(name);
	}
}

/**
 * slabtrace_ctl_command - run one command written to ctl
 * @buf: the command, NUL-terminated at @len; modified
 * @len: its length as written
 *
 * Return: 0, or -errno: -E2BIG for an overlong command, -EINVAL for a
 * malformed one, -ENAMETOOLONG for an overlong cache name, and the errors
 * of the commands (-ENOENT: no such cache).
 */
int slabtrace_ctl_command(char *buf, size_t len)
{
	struct slab_trace_print_opts opts = { };
	substring_t args[MAX_OPT_ARGS];
	char **argv;
	int argc, cmd, ret;

	if (len > SLABTRACE_CMD_MAX) {
		pr_warn_ratelimited("ctl: command longer than %d bytes\n", SLABTRACE_CMD_MAX);
		return -E2BIG;
	}
	if (strlen(buf) != len) {
		pr_warn_ratelimited("ctl: NUL byte in command\n");
		return -EINVAL;
	}
	argv = argv_split(GFP_KERNEL, buf, &argc);
	if (!argv)
		return -ENOMEM;
	ret = -EINVAL;
	if (!argc) {
		pr_warn_ratelimited("ctl: empty command\n");
		goto out;
	}
	cmd = match_token(argv[0], commands, args);
	if (cmd == CMD_ERR) {
		pr_warn_ratelimited("ctl: unknown command '%*pE'\n",
				    (int)min_t(size_t, strlen(argv[0]), 16), argv[0]);
		goto out;
	}
	if (cmd == CMD_SYSCALL) {
		mutex_lock(&slabtrace_mutex);
		ret = kptrace_command(argc - 1, argv + 1);
		mutex_unlock(&slabtrace_mutex);
		goto out;
	}
	if (cmd == CMD_POOL || cmd == CMD_LIMIT) {
		if (argc != 2) {
			pr_warn_ratelimited("ctl: '%s' takes one number\n", argv[0]);
			goto out;
		}
		ret = set_number(cmd, argv[1]);
		goto out;
	}
	if (cmd == CMD_KMEMTRACE) {
		ret = kmemtrace_command(argc - 1, argv + 1);
		goto out;
	}
	if (cmd == CMD_HELP) {
		if (argc == 1)
			ret = slabtrace_help();
		else
			pr_warn_ratelimited("ctl: 'help' takes no arguments\n");
		goto out;
	}
	if (cmd == CMD_PRINT && argc > 2) {
		ret = parse_print(argc - 2, argv + 2, &opts);
		if (ret)
			goto out;
	} else if (argc != 2) {
		pr_warn_ratelimited("ctl: '%s' takes one cache name, not %d words\n",
				    argv[0], argc - 1);
		goto out;
	}
	if (strlen(argv[1]) > SLABTRACE_NAME_MAX) {
		pr_warn_ratelimited("ctl: cache name longer than %d bytes\n",
				    SLABTRACE_NAME_MAX);
		ret = -ENAMETOOLONG;
		goto out;
	}

	mutex_lock(&slabtrace_mutex);
	slab_trace_traced_sweep();
	ret = run(cmd, argv[1], &opts);
	mutex_unlock(&slabtrace_mutex);
out:
	argv_free(argv);
	return ret;
}

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	char *buf;
	int ret;

	if (len > SLABTRACE_CMD_MAX) {
		pr_warn_ratelimited("ctl: command longer than %d bytes\n", SLABTRACE_CMD_MAX);
		return -E2BIG;
	}
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = slabtrace_ctl_command(buf, len);
	kfree(buf);
	return ret ?: len;
}

static int ctl_open(struct inode *inode, struct file *file)
{
	if (!(file->f_mode & FMODE_READ))
		return 0;
	return slab_trace_reader_open(file, &slab_trace_dump_seq_ops);
}

static int ctl_release(struct inode *inode, struct file *file)
{
	if (!(file->f_mode & FMODE_READ))
		return 0;
	return slab_trace_reader_release(inode, file);
}

/* Opened for writing only, there is no seq_file to seek. */
static loff_t ctl_llseek(struct file *file, loff_t offset, int whence)
{
	if (!(file->f_mode & FMODE_READ))
		return noop_llseek(file, offset, whence);
	return seq_lseek(file, offset, whence);
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.open = ctl_open,
	.read = seq_read,
	.write = ctl_write,
	.llseek = ctl_llseek,
	.release = ctl_release,
};

static struct slabtrace_file ctl_file = {
	.name = "ctl",
	.mode = 0600,
	.fops = &ctl_fops,
};

int slabtrace_ctl_init(void)
{
	return slabtrace_files_add("", &ctl_file, 1);
}
