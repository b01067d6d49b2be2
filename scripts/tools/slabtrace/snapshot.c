// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace(8): a print, and what it shows.  The print is written to ctl
 * opened for reading and writing, and read back through the same file:
 * the module shows a file that printed its own print, whatever another
 * process prints meanwhile (a second slabtrace, a shell's "echo print").
 * The other views are the same print's, the login user's latest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* What a print shows: ctl, then the views of the same snapshot. */
static const char *const view_files[NVIEWS] = {
	"ctl", "slab/stacks", "slab/folded", "slab/folded_bytes",
};

/*
 * "print CACHE [older-than MS]", and the text of the first @nviews views
 * of view_files[] into @texts.  Returns 0, or -1 if the print or a read
 * failed, having said why (then @texts holds nothing).  Dies if ctl
 * cannot be opened.
 */
int snapshot(const char *cache, long older, int nviews, char **texts)
{
	char cmd[512], why[1024], path[PATH_MAX];
	int fd, i = VIEW_CTL, e;

	if (older)
		snprintf(cmd, sizeof(cmd), "print %s older-than %ld", cache, older);
	else
		snprintf(cmd, sizeof(cmd), "print %s", cache);
	fd = ctl_open(O_RDWR, true);
	if (ctl_send(fd, cmd, why, sizeof(why))) {
		ctl_say_failed(cmd, why);
		close(fd);
		return -1;
	}
	st_path(path, sizeof(path), "ctl");
	texts[VIEW_CTL] = lseek(fd, 0, SEEK_SET) < 0 ? NULL : read_fd(fd);
	e = errno;
	close(fd);
	errno = e;
	while (texts[i] && ++i < nviews) {
		st_path(path, sizeof(path), view_files[i]);
		texts[i] = read_all(path);
	}
	if (i == nviews)
		return 0;
	note("%s: %s", path, strerror(errno));
	while (i-- > VIEW_CTL)
		free(texts[i]);
	return -1;
}
