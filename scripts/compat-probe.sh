#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build-time probe of the kernel headers in $1 (the kernel's srctree).
# Prints -D flags for include/slabtrace/compat.h; nothing else may read them.
# Each probe names the change it detects.
src=${1:?usage: compat-probe.sh SRCTREE}
slab=$src/include/linux/slab.h

# v6.6 added the caller argument (CONFIG_RANDOM_KMALLOC_CACHES).
grep -q 'kmalloc_type(gfp_t flags, unsigned long caller)' "$slab" 2>/dev/null &&
	printf ' %s' -DSLABTRACE_KMALLOC_TYPE_CALLER

# v6.4 replaced struct module's core_layout by mem[MOD_*].
grep -q 'struct module_memory' "$src/include/linux/module.h" 2>/dev/null &&
	printf ' %s' -DSLABTRACE_MODULE_MEMORY

# v6.8 replaced __stack_depot_save(..., can_alloc) by
# stack_depot_save_flags(..., depot_flags).
grep -q 'stack_depot_save_flags' "$src/include/linux/stackdepot.h" 2>/dev/null &&
	printf ' %s' -DSLABTRACE_DEPOT_SAVE_FLAGS

# v6.11 added kmem_buckets (kmem_buckets_create()).
grep -q 'kmem_buckets_create' "$slab" 2>/dev/null &&
	printf ' %s' -DSLABTRACE_KMEM_BUCKETS
# Between 6.1 and 6.12, ring_buffer_unlock_commit() lost its event argument.
grep -q 'int ring_buffer_unlock_commit(struct trace_buffer \*buffer);' \
	"$src/include/linux/ring_buffer.h" 2>/dev/null &&
	printf ' %s' -DSLABTRACE_RB_COMMIT_NO_EVENT
echo
