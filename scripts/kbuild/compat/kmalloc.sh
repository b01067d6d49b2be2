#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# <wrapper/kmalloc.h>: kmalloc_type()'s second argument, and kmem_buckets.
#   scripts/kbuild/compat/kmalloc.sh SRCTREE
# Prints the -D flags; -DSLABTRACE_MISSING_KMALLOC_TYPE if kmalloc_type()
# is none of the forms the wrapper knows.
h=${1:?usage: kmalloc.sh SRCTREE}/include/linux/slab.h
if grep -q 'kmalloc_type(gfp_t flags, kmalloc_token_t token)' "$h" 2> /dev/null; then
	# between 6.12 and 7.2: CONFIG_KMALLOC_PARTITION_CACHES's token
	printf ' %s' -DSLABTRACE_KMALLOC_TYPE_TOKEN
elif grep -q 'kmalloc_type(gfp_t flags, unsigned long caller)' "$h" 2> /dev/null; then
	# v6.6: CONFIG_RANDOM_KMALLOC_CACHES's call site
	printf ' %s' -DSLABTRACE_KMALLOC_TYPE_CALLER
elif ! grep -q 'kmalloc_type(gfp_t flags)' "$h" 2> /dev/null; then
	printf ' %s' -DSLABTRACE_MISSING_KMALLOC_TYPE
fi
# v6.11: kmem_buckets
grep -q 'kmem_buckets_create' "$h" 2> /dev/null &&
	printf ' %s' -DSLABTRACE_KMEM_BUCKETS
exit 0
