#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# <wrapper/relay.h>: the prototype of relay's subbuf_start callback, and
# the helpers that call an .mmap_prepare hook from an .mmap one.
#   scripts/kbuild/compat/relay.sh SRCTREE
# Prints the -D flags; -DSLABTRACE_MISSING_SUBBUF_START if the callbacks
# have no subbuf_start.
h=${1:?usage: relay.sh SRCTREE}/include/linux/relay.h
# The member's declaration, from its name to the semicolon.
decl=$(sed -n '/(\*subbuf_start)/,/;/p' "$h" 2> /dev/null)
if [ -z "$decl" ]; then
	printf ' %s' -DSLABTRACE_MISSING_SUBBUF_START
elif ! echo "$decl" | grep -q prev_padding; then
	# between 6.12 and 7.2: no prev_padding argument
	printf ' %s' -DSLABTRACE_RELAY_SUBBUF_START_NO_PADDING
fi
# between 6.12 and 7.2: .mmap_prepare, and the helpers of stacked file
# systems for calling it from .mmap
grep -q 'void compat_set_desc_from_vma(' "${1}/include/linux/fs.h" 2> /dev/null &&
	grep -q 'int __compat_vma_mmap(' "${1}/include/linux/fs.h" 2> /dev/null &&
	printf ' %s' -DSLABTRACE_COMPAT_VMA_MMAP
exit 0
