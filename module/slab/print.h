/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's prints (print.c): the snapshot "print" takes, kept for the
 * login user who printed, and the readers of the files that show it.
 */
#ifndef _SLABTRACE_SLAB_PRINT_H
#define _SLABTRACE_SLAB_PRINT_H

#include <linux/seq_file.h>
#include <linux/types.h>
#include <linux/uidgid.h>

#include "snapshot.h"

struct file;
struct inode;
struct slab_trace_stack_texts;

/* An open ctl, stacks or folded file, reading: what its seq_file holds. */
struct slab_trace_reader {
	struct slab_trace_snapshot *snap;	/* referenced, or NULL */
	/* ctl opened to read and write: the last print it wrote, or NULL */
	struct slab_trace_snapshot *own;
	struct slab_trace_stack_texts *texts;	/* dump.c's, or NULL */
	/* What is shown: @snap, or a part of it, from position @part_pos. */
	struct slab_trace_snapshot *part;
	loff_t part_pos;
};

/* Seconds a login user's print is kept after its last print or read. */
extern unsigned int slab_trace_print_idle;

int slab_trace_print(struct slab_trace_reader *own, const char *name,
		     const struct slab_trace_print_opts *opts);
void slab_trace_print_drop_stale(void);
struct slab_trace_snapshot *slab_trace_print_seq(struct seq_file *m,
						 loff_t pos);
struct slab_trace_snapshot *
slab_trace_print_part(struct seq_file *m, loff_t pos, loff_t first,
		      unsigned long (*len)(struct seq_file *m,
					   const struct slab_trace_snapshot *part));
int slab_trace_reader_open(struct file *file,
			   const struct seq_operations *ops);
int slab_trace_reader_release(struct inode *inode, struct file *file);
void slab_trace_print_stats(unsigned long *kept, unsigned long *alive,
			    size_t *mem);
void slab_trace_print_exit(void);
void slab_trace_print_exit_work(void);

/*
 * Global only for the KUnit suites: static in the module
 * (VISIBLE_IF_KUNIT, <kunit/visibility.h>).
 */
#if IS_ENABLED(CONFIG_KUNIT)
void slab_trace_reader_clear(struct slab_trace_reader *r);
struct slab_trace_snapshot *slab_trace_print_get(struct slab_trace_reader *r);
void slab_trace_print_publish(struct slab_trace_snapshot *snap,
			      struct slab_trace_reader *own);
void slab_trace_print_sweep(void);
#endif

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/*
 * A hook that runs where a race would, and the login user of the tests'
 * prints and reads, if set.
 */
extern void (*slab_trace_test_after_copy)(void);
extern bool slab_trace_test_user_set;
extern kuid_t slab_trace_test_user;
#endif

#endif /* _SLABTRACE_SLAB_PRINT_H */
