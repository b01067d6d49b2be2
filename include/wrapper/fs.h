/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Opening a path from a kernel thread.
 *
 * Up to 7.2 a kernel thread resolves paths from init's root.  Between 7.2
 * and 7.3 the kernel threads' root became an empty one (nullfs): a
 * lookup from a kthread (a work item) must borrow userspace's first
 * fs_struct with scoped_with_init_fs(), or find nothing (ENOENT).
 * scripts/kbuild/compat/fs.sh tells from <linux/fs_struct.h>.  A user's task
 * keeps its own root and mount namespace.
 */
#ifndef _SLABTRACE_WRAPPER_FS_H
#define _SLABTRACE_WRAPPER_FS_H

#include <linux/fs.h>
#include <linux/sched.h>
#ifdef SLABTRACE_SCOPED_WITH_INIT_FS
#include <linux/fs_struct.h>
#endif

/**
 * slabtrace_filp_open - filp_open() that works from a kernel thread too
 * @name: an absolute path
 * @flags: open flags
 *
 * Context: process context (a user's task or a kernel thread).
 * Return: the file, or an ERR_PTR().
 */
static inline struct file *slabtrace_filp_open(const char *name, int flags)
{
#ifdef SLABTRACE_SCOPED_WITH_INIT_FS
	if (current->flags & PF_KTHREAD) {
		scoped_with_init_fs()
			return filp_open(name, flags, 0);
	}
#endif
	return filp_open(name, flags, 0);
}

#endif /* _SLABTRACE_WRAPPER_FS_H */
