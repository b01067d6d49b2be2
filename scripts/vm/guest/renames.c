// SPDX-License-Identifier: GPL-2.0
/*
 * renames: what any user can do to the names of a tracer's records.  As
 * user nobody, renames itself (prctl(PR_SET_NAME)) before each of N
 * anonymous mappings, which it keeps (a vm_area_struct each, made under
 * a name of its own), says so, then goes on renaming itself before each
 * mapping it makes and unmaps at once, until killed.
 *
 *   renames N
 *
 * Prints "kept N" once the N mappings are made; the names are "rnI", I
 * from 0 (never more than 15 bytes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

static void *map_as(unsigned long i)
{
	char name[16];
	void *p;

	snprintf(name, sizeof(name), "rn%lu", i);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	/* Read-only pages next to each other would merge into one area. */
	p = mmap(NULL, 4096, (i & 1) ? PROT_READ : PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

int main(int argc, char **argv)
{
	unsigned long i, n = argc == 2 ? strtoul(argv[1], NULL, 10) : 0;

	if (!n) {
		fprintf(stderr, "usage: renames N\n");
		return 2;
	}
	if (setgid(65534) || setuid(65534)) {
		perror("setuid nobody");
		return 1;
	}
	for (i = 0; i < n; i++)
		map_as(i);
	printf("kept %lu\n", n);
	fflush(stdout);
	for (;; i++)
		munmap(map_as(i), 4096);
}
