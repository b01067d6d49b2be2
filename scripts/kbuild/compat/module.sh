#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# <wrapper/module.h>: where struct module keeps its text.
#   scripts/kbuild/compat/module.sh SRCTREE
# Prints the -D flags; -DSLABTRACE_MISSING_MODULE_TEXT if neither form is
# there.
h=${1:?usage: module.sh SRCTREE}/include/linux/module.h
if grep -q 'struct module_memory mem\[' "$h" 2> /dev/null; then
	# v6.4: mem[MOD_TEXT]
	printf ' %s' -DSLABTRACE_MODULE_MEMORY
elif ! grep -q 'struct module_layout core_layout' "$h" 2> /dev/null; then
	printf ' %s' -DSLABTRACE_MISSING_MODULE_TEXT
fi
exit 0
