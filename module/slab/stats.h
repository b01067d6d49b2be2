/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's stats file and its part of status (stats.c).
 */
#ifndef _SLABTRACE_SLAB_STATS_H
#define _SLABTRACE_SLAB_STATS_H

#include <linux/fs.h>
#include <linux/types.h>

struct seq_file;

extern const struct file_operations leak_stats_fops;
void leak_status(struct seq_file *m);
bool leak_next(struct seq_file *m);

#endif /* _SLABTRACE_SLAB_STATS_H */
