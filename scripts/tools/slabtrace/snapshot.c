// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace(8): a print, and what it shows.  The print is made and read
 * back by a child in a session of its own, through the file that wrote
 * it: the module keeps one snapshot per session, and another print of the
 * caller's session (a second slabtrace, a shell's "echo print") must not
 * come between.  The child sends each view's text through a pipe.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

/* The write end of record's pipe to its watchdog; -1 if none. */
int watchdog_fd = -1;

static void write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("write to the parent: %s", strerror(errno));
		p += n;
		len -= n;
	}
}

static bool read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

/* A text through a pipe: its length, then its bytes. */
static void blob_send(int fd, const char *text)
{
	size_t len = strlen(text);

	write_full(fd, &len, sizeof(len));
	write_full(fd, text, len);
}

static char *blob_recv(int fd)
{
	size_t len;
	char *text;

	if (!read_full(fd, &len, sizeof(len)) || len == SIZE_MAX)
		return NULL;
	text = xmalloc(len + 1);
	if (!read_full(fd, text, len)) {
		free(text);
		return NULL;
	}
	text[len] = 0;
	return text;
}

/* What a print shows: ctl, then the views of the same snapshot. */
static const char *const view_files[NVIEWS] = {
	"ctl", "slab/stacks", "slab/folded", "slab/folded_bytes",
};

/* The child of snapshot(): print, and send the first @nviews views to @out. */
static noreturn void snapshot_child(const char *cache, long older, int nviews,
				    int out)
{
	char cmd[512], why[1024], path[PATH_MAX];
	char *text;
	int fd, i;

	if (older)
		snprintf(cmd, sizeof(cmd), "print %s older-than %ld", cache, older);
	else
		snprintf(cmd, sizeof(cmd), "print %s", cache);
	fd = ctl_open(O_RDWR, true);
	if (ctl_send(fd, cmd, why, sizeof(why)))
		ctl_failed(cmd, why);
	st_path(path, sizeof(path), "ctl");
	if (lseek(fd, 0, SEEK_SET) < 0)
		die("%s: %s", path, strerror(errno));
	text = read_fd(fd);
	if (!text)
		die("%s: %s", path, strerror(errno));
	blob_send(out, text);
	free(text);
	for (i = VIEW_CTL + 1; i < nviews; i++) {
		st_path(path, sizeof(path), view_files[i]);
		text = read_all(path);
		if (!text)
			die("%s: %s", path, strerror(errno));
		blob_send(out, text);
		free(text);
	}
	exit(0);
}

/*
 * A child with a pipe (@p, close-on-exec) to talk over; its pid, 0 in the
 * child.  What stdout and stderr hold is written first, not twice.
 */
pid_t fork_piped(int p[2])
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
 * "print CACHE [older-than MS]", and the text of the first @nviews views
 * of view_files[] into @texts.  The print is made and read by a child in
 * a session of its own, through the file that wrote it: the module keeps
 * one snapshot per session, and no print of another process of ours can
 * come between.  If the print fails, the child says why and this exits
 * as it did.
 */
void snapshot(const char *cache, long older, int nviews, char **texts)
{
	int p[2], status, i;
	pid_t pid;

	pid = fork_piped(p);
	if (!pid) {
		close(p[0]);
		if (watchdog_fd >= 0)
			close(watchdog_fd);
		setsid();
		snapshot_child(cache, older, nviews, p[1]);
	}
	close(p[1]);
	for (i = 0; i < nviews; i++)
		texts[i] = blob_recv(p[0]);
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	if (!WIFEXITED(status))
		die("the print of %s was killed by signal %d", cache,
		    WTERMSIG(status));
	if (WEXITSTATUS(status))
		exit(WEXITSTATUS(status));
	for (i = 0; i < nviews; i++)
		if (!texts[i])
			die("the print of %s: %s unread", cache, view_files[i]);
}
