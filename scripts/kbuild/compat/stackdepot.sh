#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# <wrapper/stackdepot.h>: how to save a trace without allocating.
#   scripts/kbuild/compat/stackdepot.sh SRCTREE
# Prints the -D flags; -DSLABTRACE_MISSING_DEPOT_SAVE if neither form is
# there.
h=${1:?usage: stackdepot.sh SRCTREE}/include/linux/stackdepot.h
if grep -q 'stack_depot_save_flags(unsigned long \*entries' "$h" 2> /dev/null; then
	# v6.8: stack_depot_save_flags(entries, nr, gfp, depot_flags)
	printf ' %s' -DSLABTRACE_DEPOT_SAVE_FLAGS
elif ! grep -q '__stack_depot_save(unsigned long \*entries' "$h" 2> /dev/null; then
	printf ' %s' -DSLABTRACE_MISSING_DEPOT_SAVE
fi
exit 0
