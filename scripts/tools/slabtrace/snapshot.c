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
 * of view_files[] into @texts.  If the print fails, this says why and
 * exits 1.
 */
void snapshot(const char *cache, long older, int nviews, char **texts)
{
	char cmd[512], why[1024], path[PATH_MAX];
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
	texts[VIEW_CTL] = read_fd(fd);
	if (!texts[VIEW_CTL])
		die("%s: %s", path, strerror(errno));
	close(fd);
	for (i = VIEW_CTL + 1; i < nviews; i++) {
		st_path(path, sizeof(path), view_files[i]);
		texts[i] = read_all(path);
		if (!texts[i])
			die("%s: %s", path, strerror(errno));
	}
}
