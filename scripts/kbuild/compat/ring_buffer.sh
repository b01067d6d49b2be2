#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# <wrapper/ring_buffer.h>: ring_buffer_unlock_commit()'s arguments.
#   scripts/kbuild/compat/ring_buffer.sh SRCTREE
# Prints the -D flags; -DSLABTRACE_MISSING_RB_COMMIT if neither form is
# there.
h=${1:?usage: ring_buffer.sh SRCTREE}/include/linux/ring_buffer.h
if grep -q 'int ring_buffer_unlock_commit(struct trace_buffer \*buffer);' "$h" 2> /dev/null; then
	# v6.2: no event argument
	printf ' %s' -DSLABTRACE_RB_COMMIT_NO_EVENT
elif ! grep -q 'int ring_buffer_unlock_commit(struct trace_buffer \*buffer,' "$h" 2> /dev/null; then
	printf ' %s' -DSLABTRACE_MISSING_RB_COMMIT
fi
exit 0
