// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: /proc/slabtrace/ctl (and the same in debugfs), the one door
 * of the commands.
 *
 * A write is one command: split into words here, and run by the system
 * whose table (struct slabtrace_system's cmds) has its first word; "help"
 * is the core's own.  A stream's enable comes in through the same door
 * (ctf.c: "1 ARGS" and "0" become its system's start and stop commands).
 * A bad command fails the write with an errno and says why in one kernel
 * log line.  Reading ctl shows the dump of the one system that has one
 * (slab_trace's print).  The process IDs of both pid filters (slab_trace's
 * "start CACHE pid", kptrace's "syscall start pid") are read here too
 * (slabtrace_ctl_pid()), in the writer's pid namespace.
 *
 * The commands of each system are listed above its command handler:
 * slab/slab.c (start, stop, print, mark, reset, pool, limit),
 * kptrace/kptrace.c (syscall ...), kmemtrace/kmemtrace.c (kmemtrace ...).
 *
 * Notes on locking
 * ----------------
 * - None here: a system's command handler is called with no lock held
 *   and takes its system's mutex (main.c's Locking).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/parser.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/threads.h>
#include <linux/uaccess.h>

#include <slabtrace/core.h>
#include <slabtrace/files.h>

#include "internal.h"

enum { CTL_HELP };

/* The core's own command. */
static const match_table_t core_cmds = {
	{ CTL_HELP, "help" },
	{ SLABTRACE_CMD_NONE, NULL },
};

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* A system of the tests', its commands after the real ones'. */
const struct slabtrace_system *slabtrace_test_system;
#endif

/**
 * slabtrace_ctl_split - the words of a command
 * @who: the first words of the log lines ("ctl", "kmemtrace: enable")
 * @what: what the input is called in them ("command", "input")
 * @buf: the input, NUL-terminated at @len
 * @len: its length as written
 * @argc: set to the number of words
 *
 * Return: the words (argv_free() frees them); ERR_PTR(-EINVAL) for input
 * with a NUL byte or without a word, said in the log; ERR_PTR(-ENOMEM).
 */
char **slabtrace_ctl_split(const char *who, const char *what, char *buf,
			   size_t len, int *argc)
{
	char **argv;

	if (strlen(buf) != len) {
		pr_warn_ratelimited("%s: NUL byte in %s\n", who, what);
		return ERR_PTR(-EINVAL);
	}
	argv = argv_split(GFP_KERNEL, buf, argc);
	if (!argv)
		return ERR_PTR(-ENOMEM);
	if (!*argc) {
		pr_warn_ratelimited("%s: empty %s\n", who, what);
		argv_free(argv);
		return ERR_PTR(-EINVAL);
	}
	return argv;
}

/**
 * slabtrace_ctl_pid - a process ID of a command, as the probes see it
 * @who: the first words of the log lines ("ctl: start", "syscall: start")
 * @arg: the word: decimal digits as /proc shows them, the first not 0,
 *	 no sign (kstrtoint() alone would take "+5" and "007")
 * @pid: set to the process's number in the initial pid namespace
 *
 * The number is the writer's, in the writer's pid namespace (a
 * container's root numbers its processes from 1); the probes compare the
 * initial namespace's (current->tgid, current->pid): a number of another
 * namespace is translated, which takes a process or thread of that number
 * there.  Both systems' pid filters take their numbers here.
 *
 * Return: 0; -EINVAL for a malformed number, -ERANGE for one no pid can
 * be (PID_MAX_LIMIT or more), -ESRCH for one with no process in the
 * writer's namespace (not the initial one), each said in one log line.
 */
int slabtrace_ctl_pid(const char *who, const char *arg, pid_t *pid)
{
	char esc[SLABTRACE_ESC_SIZE];
	struct pid *p;
	int ret;

	if (!isdigit(arg[0]) || arg[0] == '0' ||
	    strspn(arg, "0123456789") != strlen(arg)) {
		pr_warn_ratelimited("%s: bad pid '%s'\n", who,
				    slabtrace_esc_str(esc, arg));
		return -EINVAL;
	}
	/* A pid is below pid_max, which is at most PID_MAX_LIMIT. */
	ret = kstrtoint(arg, 10, pid);
	if (ret || *pid >= PID_MAX_LIMIT) {
		pr_warn_ratelimited("%s: pid '%s' is not in 1..%d\n", who,
				    slabtrace_esc_str(esc, arg),
				    (int)PID_MAX_LIMIT - 1);
		return -ERANGE;
	}
	if (task_active_pid_ns(current) == &init_pid_ns)
		return 0;
	rcu_read_lock();
	p = find_vpid(*pid);
	*pid = p ? pid_nr(p) : 0;
	rcu_read_unlock();
	if (!*pid) {
		pr_warn_ratelimited("%s: no process %s in the writer's pid namespace\n",
				    who, slabtrace_esc_str(esc, arg));
		return -ESRCH;
	}
	return 0;
}

/**
 * slabtrace_ctl_u32 - a number of a command: decimal digits only
 * @arg: the word
 * @n: set to its value
 *
 * kstrtou32() alone would take "+5" for 5: a sign is refused here, as in
 * pids, so that a command means what it shows.
 *
 * Return: 0, -EINVAL for anything but digits, -ERANGE beyond 32 bits.
 */
int slabtrace_ctl_u32(const char *arg, u32 *n)
{
	return isdigit(arg[0]) ? kstrtou32(arg, 10, n) : -EINVAL;
}

/* The same for an unsigned long ("pool N", "limit N"). */
int slabtrace_ctl_ulong(const char *arg, unsigned long *n)
{
	return isdigit(arg[0]) ? kstrtoul(arg, 10, n) : -EINVAL;
}

/* The system whose table has @word, and its token for it; NULL if none. */
static const struct slabtrace_system *system_of(char *word, int *cmd)
{
	substring_t args[MAX_OPT_ARGS];
	const struct slabtrace_system *sys;
	unsigned int i;

	for (i = 0; i < slabtrace_nr_systems; i++) {
		sys = slabtrace_systems[i];
		*cmd = match_token(word, sys->cmds, args);
		if (*cmd != SLABTRACE_CMD_NONE)
			return sys;
	}
#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
	sys = READ_ONCE(slabtrace_test_system);
	if (sys) {
		*cmd = match_token(word, sys->cmds, args);
		if (*cmd != SLABTRACE_CMD_NONE)
			return sys;
	}
#endif
	return NULL;
}

/**
 * slabtrace_ctl_run - run a command given as words
 * @file: the open ctl it was written to; NULL if it came another way
 * @argc: the number of words, at least 1
 * @argv: the words (argv_split()'s); a handler may reorder them
 *
 * Called with no lock held.
 *
 * Return: 0, or -errno: -EINVAL for an unknown command, and the errors of
 * the commands.
 */
int slabtrace_ctl_run(struct file *file, int argc, char **argv)
{
	substring_t args[MAX_OPT_ARGS];
	const struct slabtrace_system *sys;
	char esc[SLABTRACE_ESC_SIZE];
	int cmd;

	if (match_token(argv[0], core_cmds, args) == CTL_HELP) {
		if (argc != 1) {
			pr_warn_ratelimited("ctl: 'help' takes no arguments\n");
			return -EINVAL;
		}
		slabtrace_help();
		return 0;
	}
	sys = system_of(argv[0], &cmd);
	if (!sys) {
		pr_warn_ratelimited("ctl: unknown command '%s'\n",
				    slabtrace_esc_str(esc, argv[0]));
		return -EINVAL;
	}
	return sys->command(file, cmd, argc, argv);
}

/**
 * slabtrace_ctl_command - run one command written to ctl
 * @file: the open ctl; NULL for a command that did not come through one
 * @buf: the command, NUL-terminated at @len; modified
 * @len: its length as written
 *
 * Return: 0, or -errno: -E2BIG for an overlong command, -EINVAL for a
 * malformed one, and the errors of the commands.
 */
VISIBLE_IF_KUNIT int slabtrace_ctl_command(struct file *file, char *buf,
					   size_t len)
{
	char **argv, *nl;
	int argc, ret;

	if (len > SLABTRACE_CMD_MAX) {
		pr_warn_ratelimited("ctl: command longer than %d bytes\n", SLABTRACE_CMD_MAX);
		return -E2BIG;
	}
	/* "start a\nsample 5": two lines, which would be read as one command. */
	nl = strchr(buf, '\n');
	if (nl && nl[strspn(nl, " \t\n")]) {
		pr_warn_ratelimited("ctl: one command per write, not several lines\n");
		return -EINVAL;
	}
	argv = slabtrace_ctl_split("ctl", "command", buf, len, &argc);
	if (IS_ERR(argv))
		return PTR_ERR(argv);
	ret = slabtrace_ctl_run(file, argc, argv);
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
	ret = slabtrace_ctl_command(file, buf, len);
	kfree(buf);
	return ret ?: len;
}

/* The system whose dump reading ctl shows. */
static const struct slabtrace_system *dump_system(void)
{
	unsigned int i;

	for (i = 0; i < slabtrace_nr_systems; i++)
		if (slabtrace_systems[i]->ctl_open)
			return slabtrace_systems[i];
	return NULL;
}

/* Opened to read, a seq_file of that system's; to write only, nothing. */
static int ctl_open(struct inode *inode, struct file *file)
{
	const struct slabtrace_system *sys = dump_system();

	if (!(file->f_mode & FMODE_READ))
		return 0;
	return sys ? sys->ctl_open(inode, file) : -ENXIO;
}

static int ctl_release(struct inode *inode, struct file *file)
{
	if (!(file->f_mode & FMODE_READ))
		return 0;
	return dump_system()->ctl_release(inode, file);
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
