// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: system call names and path arguments, by number, in the
 * numbering of the kernel the module was built for.  syscall_table.h is
 * generated at build time from the kernel's own unistd_64.h and
 * unistd_32.h (scripts/kbuild/gen-syscalls.sh); nothing here is typed by hand.
 *
 * No locks: the tables are constant.
 */
#include <linux/kernel.h>

#include <slabtrace/core.h>

struct slabtrace_syscall {
	const char *name;
	u8 path_arg;			/* 1-based; 0: none */
};

#include "syscall_table.h"

static const struct slabtrace_syscall *syscall_entry(int nr, bool compat)
{
	const struct slabtrace_syscall *t = compat ? syscalls_32 : syscalls_64;
	int n = compat ? ARRAY_SIZE(syscalls_32) : ARRAY_SIZE(syscalls_64);

	if (nr < 0 || nr >= n || !t[nr].name)
		return NULL;
	return &t[nr];
}

/* The name of system call @nr, or NULL if the kernel has none. */
const char *slabtrace_syscall_name(int nr, bool compat)
{
	const struct slabtrace_syscall *s = syscall_entry(nr, compat);

	return s ? s->name : NULL;
}

/* Which argument of system call @nr is a path (0-based), or -1. */
int slabtrace_syscall_path_arg(int nr, bool compat)
{
	const struct slabtrace_syscall *s = syscall_entry(nr, compat);

	return s && s->path_arg ? s->path_arg - 1 : -1;
}

/* One more than the highest system call number. */
int slabtrace_syscall_max(bool compat)
{
	return compat ? ARRAY_SIZE(syscalls_32) : ARRAY_SIZE(syscalls_64);
}
