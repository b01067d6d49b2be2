/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Committing a ring buffer event.
 *
 * v6.2 (between Debian's 6.1 and 6.12) dropped the event argument of
 * ring_buffer_unlock_commit(): the buffer knows the event it reserved.
 * scripts/kbuild/compat/ring_buffer.sh tells which from <linux/ring_buffer.h>.
 */
#ifndef _SLABTRACE_WRAPPER_RING_BUFFER_H
#define _SLABTRACE_WRAPPER_RING_BUFFER_H

#include <linux/ring_buffer.h>

/* Commit an event ring_buffer_lock_reserve() gave.  Any context. */
static inline int slabtrace_rb_commit(struct trace_buffer *buffer,
				      struct ring_buffer_event *event)
{
#ifdef SLABTRACE_RB_COMMIT_NO_EVENT
	return ring_buffer_unlock_commit(buffer);
#else
	return ring_buffer_unlock_commit(buffer, event);
#endif
}

#endif /* _SLABTRACE_WRAPPER_RING_BUFFER_H */
