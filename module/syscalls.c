// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: system call names, path arguments and argument counts, by
 * number, in the numbering of the kernel the module was built for.
 * syscall_table.h is generated at build time from the kernel's own
 * unistd_64.h and unistd_32.h, and the counts from its sys_NAME
 * prototypes in <linux/syscalls.h> (scripts/kbuild/gen-syscalls.sh);
 * nothing here is typed by hand.
 *
 * No locks: the tables are constant.
 */
#include <linux/kernel.h>

#include <slabtrace/core.h>

struct slabtrace_syscall {
	const char *name;
	u8 path_arg;			/* 1-based; 0: none */
	u8 nargs;			/* 6 where the headers do not say */
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

/**
 * slabtrace_syscall_args - what system call @nr takes, in one lookup
 * @nr: its number
 * @compat: in the compat numbering
 * @nargs: set to how many argument registers it reads: 0 to 6, 6 where
 *	   the kernel's headers do not say (a compat call, an arch's own, a
 *	   number with no name)
 *
 * Return: which argument is a path (0-based), or -1.
 */
int slabtrace_syscall_args(int nr, bool compat, unsigned int *nargs)
{
	const struct slabtrace_syscall *s = syscall_entry(nr, compat);

	*nargs = s ? s->nargs : SLABTRACE_SYSCALL_ARGS;
	return s && s->path_arg ? s->path_arg - 1 : -1;
}

/* One more than the highest system call number. */
int slabtrace_syscall_max(bool compat)
{
	return compat ? ARRAY_SIZE(syscalls_32) : ARRAY_SIZE(syscalls_64);
}
