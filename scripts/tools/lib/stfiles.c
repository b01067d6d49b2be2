// SPDX-License-Identifier: GPL-2.0
/*
 * The part of slabtrace(8) and kmemtrace-record(8) that is the same in
 * both (in scripts/tools/lib, the tools' small library): the root of the
 * module's files, the causes when they cannot be reached, the module's
 * reason for a refused command (its kernel log line), and messages.  See
 * stfiles.h.  Static, libc only.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stfiles.h"

const char *prog_name = "slabtrace";

static void vnote(const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", prog_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* "PROG: MESSAGE" on standard error, after what stdout holds. */
void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}

/* note(), then exit 1: the program could not do its job. */
noreturn void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
	exit(1);
}

/*
 * "PROG: MESSAGE (HELP)", then exit 2: the program was called wrongly;
 * @help says where the usage is ("slabtrace top --help").
 */
noreturn void usage_error(const char *help, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", prog_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (%s)\n", help);
	exit(EXIT_USAGE);
}

void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory");
	return p;
}

/* What is left to read from @fd, NUL-terminated; NULL with errno set. */
char *read_fd(int fd)
{
	size_t len = 0, cap = 65536;
	char *buf = xmalloc(cap);
	ssize_t n;

	for (;;) {
		if (cap - len < 4096) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return NULL;
		}
		if (!n)
			break;
		len += n;
	}
	buf[len] = 0;
	return buf;
}

/* The whole of a file, NUL-terminated; NULL with errno set on failure. */
char *read_all(const char *path)
{
	char *buf;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = read_fd(fd);
	e = errno;
	close(fd);
	errno = e;
	return buf;
}

static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

const char *st_procfs(void)
{
	return env_or("SLABTRACE_PROC", "/proc");
}

const char *st_sysfs(void)
{
	return env_or("SLABTRACE_SYSFS", "/sys");
}

static const char *debugfs(void)
{
	return env_or("SLABTRACE_DEBUGFS", "/sys/kernel/debug");
}

/* Whether @root is the procfs one. */
static bool in_proc;

/*
 * The directory of the module's files: /proc/slabtrace when it exists,
 * else slabtrace/ in debugfs.  Picked once.
 */
const char *st_root(void)
{
	static char root[PATH_MAX];
	struct stat sb;

	if (root[0])
		return root;
	snprintf(root, sizeof(root), "%s/slabtrace", st_procfs());
	in_proc = !stat(root, &sb) && S_ISDIR(sb.st_mode);
	if (!in_proc)
		snprintf(root, sizeof(root), "%s/slabtrace", debugfs());
	return root;
}

/* The path of the module's file @file ("ctl", "kmemtrace/enable"). */
void st_path(char *buf, size_t size, const char *file)
{
	snprintf(buf, size, "%s/%s", st_root(), file);
}

static bool denied(void)
{
	return errno == EACCES || errno == EPERM;
}

/*
 * Dies with the cause if the module's file @file cannot be opened for
 * @mode (R_OK, W_OK): not root, debugfs not mounted, module not loaded,
 * a module without that file.  Returns if it can, or if it exists and
 * fails for another reason (the caller says which).
 */
void st_check(const char *file, int mode)
{
	char path[2 * PATH_MAX], mod[PATH_MAX];
	const char *dfs = debugfs();
	struct dirent *de;
	bool empty = true;
	DIR *d;

	st_path(path, sizeof(path), file);
	if (!access(path, F_OK)) {
		if (access(path, mode) && denied())
			die("needs root: %s is root's only (run it with sudo)", path);
		return;
	}
	if (denied())
		die("needs root: %s is root's only (run it with sudo)",
		    in_proc ? st_root() : dfs);
	if (in_proc)
		die("the slabtrace module is loaded but %s is missing (%s)", path,
		    "a module of another version?");
	d = opendir(dfs);
	if (!d && denied())
		die("needs root: %s is root's only (run it with sudo)", dfs);
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
		    dfs, dfs);
	snprintf(mod, sizeof(mod), "%s/module/slabtrace", st_sysfs());
	if (access(mod, F_OK))
		die("the slabtrace module is not loaded (insmod slabtrace.ko, %s)",
		    "or modprobe slabtrace after make modules_install");
	die("the slabtrace module is loaded but %s is missing (%s)", path,
	    "a module of another version?");
}

/* --- the reason for a refused command: the module's kernel log line --- */

static int kmsg_fd = -1;

/* Remember where the kernel log ends, before a command. */
void kmsg_mark(void)
{
	if (kmsg_fd < 0)
		kmsg_fd = open(env_or("SLABTRACE_KMSG", "/dev/kmsg"),
			       O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
}

/*
 * The last "slabtrace: " line logged since kmsg_mark(), without the
 * prefix, into @buf; false if there is none.
 */
bool kmsg_reason(char *buf, size_t size)
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

/* The reason for a command that failed with @err: its log line, or the errno. */
void reason_of(int err, char *buf, size_t size)
{
	if (!kmsg_reason(buf, size))
		snprintf(buf, size, "%s (no reason in the kernel log)",
			 strerror(err));
}
