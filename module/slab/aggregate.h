/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's grouping (aggregate.c): a snapshot's records grouped by
 * backtrace (snapshot.h's struct slab_trace_group), and the verdict on
 * each.
 */
#ifndef _SLABTRACE_SLAB_AGGREGATE_H
#define _SLABTRACE_SLAB_AGGREGATE_H

#include <linux/stackdepot.h>
#include <linux/types.h>

#include "record.h"
#include "snapshot.h"

int slab_trace_aggregate(struct slab_trace_snapshot *snap);
const struct slab_trace_group *
slab_trace_group_of(struct slab_trace_snapshot *snap,
		    const struct slab_trace_record *rec);

#endif /* _SLABTRACE_SLAB_AGGREGATE_H */
