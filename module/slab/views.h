/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's views of a print: its text (dump.c), its folded stacks
 * (folded.c), and the read-only files that show them (their seq_operations
 * as the file's data).
 */
#ifndef _SLABTRACE_SLAB_VIEWS_H
#define _SLABTRACE_SLAB_VIEWS_H

#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/types.h>

#include "record.h"

struct leak_snapshot;

extern const struct seq_operations leak_dump_seq_ops;
extern const struct seq_operations leak_stacks_seq_ops;
extern const struct seq_operations leak_folded_seq_ops;
extern const struct seq_operations leak_folded_bytes_seq_ops;
extern const struct file_operations leak_view_fops;
int leak_view_release(struct inode *inode, struct file *file);

#if LEAK_TESTS
struct leak_reader;

/* For the KUnit suites' and the benchmarks' readers (st_slab_kunit.h). */
void leak_view_clear(struct leak_reader *r);
#endif

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* A helper of the KUnit suites alone. */
void leak_folded_show(struct seq_file *m,
		      const struct leak_snapshot *snap, bool bytes);
#endif

#endif /* _SLABTRACE_SLAB_VIEWS_H */
