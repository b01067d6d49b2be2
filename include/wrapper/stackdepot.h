/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Saving a trace in the stack depot without letting it allocate.
 *
 * v6.8 replaced __stack_depot_save(entries, nr, extra_bits, gfp,
 * can_alloc) by stack_depot_save_flags(entries, nr, gfp, depot_flags),
 * where the flag is STACK_DEPOT_FLAG_CAN_ALLOC; both are exported.
 * scripts/kbuild/compat/stackdepot.sh tells which from <linux/stackdepot.h>.
 */
#ifndef _SLABTRACE_WRAPPER_STACKDEPOT_H
#define _SLABTRACE_WRAPPER_STACKDEPOT_H

#include <linux/gfp.h>
#include <linux/stackdepot.h>

/**
 * slabtrace_depot_save_noalloc - save a stack trace without allocating
 * @entries: the trace
 * @nr: its length
 *
 * The stack depot allocates a new pool only for callers that allow it;
 * without that it uses the pool it has, or one another caller
 * preallocated, and fails when there is none.
 *
 * Context: Any context.
 * Return: the handle, or 0 if the depot had no room.
 */
static inline depot_stack_handle_t
slabtrace_depot_save_noalloc(unsigned long *entries, unsigned int nr)
{
#ifdef SLABTRACE_DEPOT_SAVE_FLAGS
	return stack_depot_save_flags(entries, nr, GFP_NOWAIT, 0);
#else
	return __stack_depot_save(entries, nr, 0, GFP_NOWAIT, false);
#endif
}

#endif /* _SLABTRACE_WRAPPER_STACKDEPOT_H */
