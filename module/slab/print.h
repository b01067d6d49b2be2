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

#include "part.h"
#include "snapshot.h"

struct file;
struct inode;
struct leak_stack_texts;

/* An open ctl, stacks or folded file, reading: what its seq_file holds. */
struct leak_reader {
	struct leak_snapshot *snap;	/* referenced, or NULL */
	bool started;			/* @snap taken, at offset 0 */
	/* ctl opened to read and write: the last print it wrote, or NULL */
	struct leak_snapshot *own;
	struct leak_stack_texts *texts;	/* dump.c's, or NULL */
	/* What is shown: @snap, or a part of it, from position @part_pos. */
	struct leak_snapshot *part;
	loff_t part_pos;
};

/* Seconds a login user's print is kept after its last print or read. */
extern unsigned int leak_print_idle;

int leak_print(struct leak_reader *own, const char *name,
	       const struct leak_print_opts *opts);
void leak_print_drop_stale(void);
struct leak_snapshot *leak_print_seq(struct seq_file *m,
				     loff_t pos);
struct leak_snapshot *
leak_print_part(struct seq_file *m, loff_t pos, loff_t first,
		unsigned long (*len)(struct seq_file *m,
				     const struct leak_snapshot *part));
int leak_reader_open(struct file *file,
		     const struct seq_operations *ops);
int leak_reader_release(struct inode *inode, struct file *file);
/* The prints kept for users (slab.c unloads them); their stats line. */
extern const struct leak_part leak_prints_part;

/*
 * Global only for the KUnit suites: static in the module
 * (VISIBLE_IF_KUNIT, <kunit/visibility.h>).
 */
#if IS_ENABLED(CONFIG_KUNIT)
void leak_reader_clear(struct leak_reader *r);
struct leak_snapshot *leak_print_get(struct leak_reader *r);
void leak_print_publish(struct leak_snapshot *snap,
			struct leak_reader *own);
void leak_snapshot_aliases(struct leak_snapshot *snap,
			   const struct slabtrace_cache_ref *ref);
void leak_print_sweep(void);
void leak_print_stats(unsigned long *kept, unsigned long *alive,
		      size_t *mem);
#endif

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/*
 * A hook that runs where a race would, and the login user of the tests'
 * prints and reads, if set.
 */
extern void (*leak_test_after_copy)(void);
extern bool leak_test_user_set;
extern kuid_t leak_test_user;
#endif

#endif /* _SLABTRACE_SLAB_PRINT_H */
