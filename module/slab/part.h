/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a file of slab/ gives the two files that see them all: slab.c,
 * which loads the files in the order of its steps[] and unloads them in
 * the reverse order, and stats.c, which shows their lines of slab/stats.
 * One descriptor a file, instead of an init, an exit and a getter each in
 * its header.
 */
#ifndef _SLABTRACE_SLAB_PART_H
#define _SLABTRACE_SLAB_PART_H

#include <slabtrace/core.h>

struct seq_file;

struct leak_part {
	/* Its step of loading: its name, what it makes, what undoes it. */
	struct slabtrace_step step;
	/*
	 * Its line of slab/stats ("pool free 8190 per_cpu 4096 ..."), or
	 * NULL.  Called with no lock held; reads counters without lock.
	 */
	void (*stats)(struct seq_file *m);
};

#endif /* _SLABTRACE_SLAB_PART_H */
