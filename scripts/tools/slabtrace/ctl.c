// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace(8): commands to the module.  Each is a write to ctl; when the
 * module refuses one, the reason is the line it logged for it (read from
 * /dev/kmsg, stfiles.c), not the errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* "PROG: 'CMD' failed: REASON", both escaped. */
void ctl_say_failed(const char *cmd, const char *reason)
{
	fflush(stdout);
	fprintf(stderr, "%s: '", prog_name);
	put_escaped(stderr, cmd);
	fputs("' failed: ", stderr);
	put_escaped(stderr, reason);
	fputc('\n', stderr);
}

/* The same, and exit 1. */
noreturn void ctl_failed(const char *cmd, const char *reason)
{
	ctl_say_failed(cmd, reason);
	exit(1);
}

/*
 * Write the command @cmd to the open ctl @fd.  Returns 0, or -errno with
 * the module's reason in @why.  A newline ends the command, as echo's
 * does.
 */
int ctl_send(int fd, const char *cmd, char *why, size_t size)
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
int ctl_open(int flags, bool die_on_error)
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
int ctl_try(char *why, size_t size, const char *fmt, ...)
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

int cmd_plain(struct opts *o, int argc, char **argv)
{
	char words[256] = "";
	size_t n = 0;
	int i;

	(void)o;
	if (argc < 1 || (argc != 1 && strcmp(cur->name, "start")))
		usage("%s: one CACHE, not %d arguments", cur->name, argc);
	need_cache(argv[0]);
	/* start's filter: the module checks it. */
	for (i = 1; i < argc && n < sizeof(words); i++)
		n += snprintf(words + n, sizeof(words) - n, " %s", argv[i]);
	if (n >= sizeof(words))
		usage("%s: the filter is too long", cur->name);
	ctl("%s %s%s", cur->name, argv[0], words);
	return 0;
}
