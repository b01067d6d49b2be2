/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's probes (probes.c): on the kmem and percpu tracepoints,
 * attached while needed.
 */
#ifndef _SLABTRACE_SLAB_PROBES_H
#define _SLABTRACE_SLAB_PROBES_H

#include <linux/types.h>

#include "part.h"

int leak_probes_update(void);
void leak_probes_state(bool *alloc, bool *free);
/* The probes (slab.c unloads them for good); their stats line. */
extern const struct leak_part leak_probes_part;

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/*
 * The KUnit suites' hooks: a probe that runs as in NMI, and hooks that run
 * where a race would.  Not in the benchmarks' kernel: the probes would pay
 * for them.
 */
extern bool leak_fake_nmi;
extern void (*leak_test_before_insert)(void);
extern void (*leak_test_before_detach)(void);
extern bool leak_fail_attach;
#endif

/* Helpers of the KUnit suites and the benchmarks (st_kunit.h). */
#if LEAK_TESTS
void leak_probes_idle(void);
#endif

#endif /* _SLABTRACE_SLAB_PROBES_H */
