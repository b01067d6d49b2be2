/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabtrace's files: each declared once, made in two trees with one
 * layout, /proc/slabtrace/ (works under lockdown) and
 * /sys/kernel/debug/slabtrace/ (where debugfs allows it; made last, once
 * the load cannot fail).  module/files.c.
 */
#ifndef _SLABTRACE_FILES_H
#define _SLABTRACE_FILES_H

#include <linux/fs.h>
#include <linux/list.h>
#include <linux/types.h>

struct dentry;
struct proc_dir_entry;

/**
 * struct slabtrace_file - one file of slabtrace, in both trees
 * @name: its name in its directory
 * @mode: 0400 or 0600 (the directories are root's)
 * @fops: what serves it in both trees; .owner = THIS_MODULE, .read and
 *	  .write (not the _iter forms)
 * @data: what slabtrace_file_data() returns for its inodes
 * @dentry: the core's: the debugfs file, or NULL
 * @pde: the core's: the procfs file, or NULL
 * @dir: the core's: 1 + the index of its directory while made, else 0
 * @node: the core's: in its list of the files made
 */
struct slabtrace_file {
	const char *name;
	umode_t mode;
	const struct file_operations *fops;
	void *data;
	struct dentry *dentry;
	struct proc_dir_entry *pde;
	unsigned int dir;
	struct list_head node;
};

int slabtrace_files_init(void);
void slabtrace_files_mirror(void);
void slabtrace_files_exit(void);
int slabtrace_files_add(const char *dir, struct slabtrace_file *files,
			unsigned int nr);
void slabtrace_files_remove(struct slabtrace_file *files, unsigned int nr);
void slabtrace_file_set_size(struct slabtrace_file *f, loff_t size);

/* The file an inode of either tree is (procfs's pde_data() is i_private). */
static inline struct slabtrace_file *slabtrace_file_of(const struct inode *inode)
{
	return inode->i_private;
}

/* Its data, whichever tree the inode is in. */
static inline void *slabtrace_file_data(const struct inode *inode)
{
	return slabtrace_file_of(inode)->data;
}

#endif /* _SLABTRACE_FILES_H */
