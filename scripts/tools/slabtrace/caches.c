// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace(8): cache names.  Whether a name is a cache (/sys/kernel/slab),
 * the name the user probably meant when it is not, and which cache a
 * name is whatever it is called (merged names lead to one directory).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static int levenshtein(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int *row, ret;

	if (la > 64 || lb > 64)
		return 99;
	row = xmalloc((lb + 1) * sizeof(*row));
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		int diag = row[0], up;

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			int best;

			up = row[j];
			best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	ret = row[lb];
	free(row);
	return ret;
}

/* /sys/kernel/slab/@name into @buf. */
void slab_dir(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/kernel/slab%s%s", st_sysfs(), *name ? "/" : "",
		 name);
}

/*
 * One of the names the module traces like a cache, which have no
 * /sys/kernel/slab entry: the page allocator's kmalloc()s and
 * alloc_percpu().
 */
bool is_pseudo_cache(const char *name)
{
	return !strcmp(name, "kmalloc-large") || !strcmp(name, "percpu");
}

/* A cache of /sys/kernel/slab, or a pseudo cache. */
static bool cache_exists(const char *name)
{
	char path[PATH_MAX];

	if (is_pseudo_cache(name))
		return true;
	slab_dir(path, sizeof(path), name);
	return !access(path, F_OK);
}

/*
 * The name the user probably meant, into @buf: "kmalloc-8192" is
 * "kmalloc-8k"; else the closest name in /sys/kernel/slab (at most 3
 * edits).  False if nothing is close.
 */
static bool suggest(const char *name, char *buf, size_t size)
{
	char path[PATH_MAX], alt[256];
	const char *num;
	struct dirent *de;
	int best = 4;
	DIR *d;

	num = strrchr(name, '-');
	if (num && strlen(name) < 200) {
		char *end;
		unsigned long n = strtoul(num + 1, &end, 10);

		if (!*end && n >= 1024 && !(n % 1024)) {
			snprintf(alt, sizeof(alt), "%.*s-%luk",
				 (int)(num - name), name, n / 1024);
			if (cache_exists(alt)) {
				snprintf(buf, size, "%s", alt);
				return true;
			}
		}
	}
	slab_dir(path, sizeof(path), "");
	d = opendir(path);
	if (!d)
		return false;
	while ((de = readdir(d))) {
		int dist;

		if (de->d_name[0] == '.' || de->d_name[0] == ':')
			continue;
		dist = levenshtein(name, de->d_name);
		if (dist < best) {
			best = dist;
			snprintf(buf, size, "%s", de->d_name);
		}
	}
	closedir(d);
	return best < 4;
}

/*
 * Dies if @name is no cache, with the name meant if one is close.  The
 * module's words for sets of caches (all, kmalloc) pass.
 */
void need_cache(const char *name)
{
	char path[PATH_MAX], alt[256];

	slab_dir(path, sizeof(path), "");
	if (access(path, F_OK) || cache_exists(name) || print_is_word(name))
		return;	/* no sysfs to ask: the module will say */
	fflush(stdout);
	fprintf(stderr, "%s: no such cache '", prog_name);
	put_escaped(stderr, name);
	if (suggest(name, alt, sizeof(alt))) {
		fputs("' (did you mean ", stderr);
		put_escaped(stderr, alt);
		fputs("?)\n", stderr);
	} else {
		fputs("' (the names are in /proc/slabinfo)\n", stderr);
	}
	exit(1);
}

/*
 * Whether @name is that of a kmalloc cache, of any type, as the module's
 * kmalloc word has them (kmalloc_caches[][]): kmalloc-64, kmalloc-cg-1k,
 * kmalloc-rcl-8k, dma-kmalloc-512, kmalloc-rnd-01-64
 * (CONFIG_RANDOM_KMALLOC_CACHES).
 */
bool is_kmalloc_name(const char *name)
{
	size_t n;

	if (!strncmp(name, "dma-", 4))
		name += 4;
	if (strncmp(name, "kmalloc-", 8))
		return false;
	name += 8;
	if (!strncmp(name, "cg-", 3)) {
		name += 3;
	} else if (!strncmp(name, "rcl-", 4)) {
		name += 4;
	} else if (!strncmp(name, "rnd-", 4)) {
		n = strspn(name + 4, "0123456789");
		if (n && name[4 + n] == '-')
			name += 4 + n + 1;
	}
	n = strspn(name, "0123456789");
	return n && (!name[n] || (name[n] == 'k' && !name[n + 1]));
}

/*
 * The cache @name is, whatever its name: the directory its
 * /sys/kernel/slab entry leads to (merged names are links to one), into
 * @buf; @name itself without sysfs.
 */
void cache_identity(const char *name, char *buf, size_t size)
{
	char path[PATH_MAX], real[PATH_MAX];

	slab_dir(path, sizeof(path), name);
	snprintf(buf, size, "%s", realpath(path, real) ? real : name);
}
