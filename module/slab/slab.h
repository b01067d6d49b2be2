/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's internals, all of them: what slab.c, which loads slab_trace
 * and runs its commands, and the KUnit suites see.  Every other file of
 * module/slab/ includes only the headers of the files below it, each
 * header that of one file (or, for record.h, hold.h and views.h, of what
 * several share).  The locking rules are at the top of the files, the
 * order of all the locks in main.c's header.  slab_trace's public face is
 * leak_system (<slabtrace/core.h>).
 *
 * From the ground up: a record and who made it (record.h); what each file
 * gives loading and the stats (part.h); the worker
 * (worker.h); the pool, the table and the backtraces (pool.h, table.h,
 * stacks.h); the names commands take (sets.h); the lifetimes and
 * verdicts (lifetime.h); the traced caches (traced.h); following new
 * caches (follow.h); the probes (probes.h); the contexts (context.h);
 * the snapshots, their groups, the prints and the frames' names
 * (snapshot.h, aggregate.h, print.h, modsyms.h); the views and the stats (views.h, stats.h).
 */
#ifndef _SLABTRACE_SLAB_H
#define _SLABTRACE_SLAB_H

#include <slabtrace/core.h>

#include "aggregate.h"
#include "context.h"
#include "follow.h"
#include "hold.h"
#include "lifetime.h"
#include "modsyms.h"
#include "part.h"
#include "pool.h"
#include "print.h"
#include "probes.h"
#include "record.h"
#include "sets.h"
#include "snapshot.h"
#include "stacks.h"
#include "stats.h"
#include "table.h"
#include "traced.h"
#include "views.h"
#include "worker.h"

#endif /* _SLABTRACE_SLAB_H */
