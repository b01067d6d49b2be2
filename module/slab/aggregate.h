/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's grouping (aggregate.c): a snapshot's records grouped by
 * backtrace (snapshot.h's struct leak_group), and the verdict on
 * each.
 */
#ifndef _SLABTRACE_SLAB_AGGREGATE_H
#define _SLABTRACE_SLAB_AGGREGATE_H

#include <linux/stackdepot.h>
#include <linux/types.h>

#include "record.h"
#include "snapshot.h"

int leak_aggregate(struct leak_snapshot *snap);
const struct leak_group *
leak_group_of(struct leak_snapshot *snap,
	      const struct leak_record *rec);

#endif /* _SLABTRACE_SLAB_AGGREGATE_H */
