#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# <wrapper/fs.h>: whether a kernel thread must borrow userspace's root to
# resolve a path.
#   scripts/kbuild/compat/fs.sh SRCTREE
# Prints the -D flags.
h=${1:?usage: fs.sh SRCTREE}/include/linux/fs_struct.h
# between 7.2 and 7.3: kernel threads' root is empty (nullfs), and
# userspace's is borrowed with scoped_with_init_fs(); userspace_init_fs
# without that macro is a kernel whose way this slabtrace does not know.
if grep -q '#define scoped_with_init_fs()' "$h" 2> /dev/null; then
	printf ' %s' -DSLABTRACE_SCOPED_WITH_INIT_FS
elif grep -q 'userspace_init_fs' "$h" 2> /dev/null; then
	printf ' %s' -DSLABTRACE_MISSING_INIT_FS
fi
exit 0
