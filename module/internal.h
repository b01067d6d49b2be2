/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What only the core's files share: the table of systems (main.c), and
 * the core's own steps of loading and unloading.
 */
#ifndef _SLABTRACE_INTERNAL_H
#define _SLABTRACE_INTERNAL_H

#include <slabtrace/core.h>

/* main.c: every system, in the order they load. */
extern const struct slabtrace_system *const slabtrace_systems[];
extern const unsigned int slabtrace_nr_systems;

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* ctl.c: a system of the KUnit suites, whose commands ctl runs too. */
extern const struct slabtrace_system *slabtrace_test_system;
#endif

/* ctl.c, status.c: the files of the core, made once the systems are up. */
int slabtrace_ctl_init(void);
int slabtrace_status_init(void);
void slabtrace_help(void);

/* caches.c */
void slabtrace_caches_exit(void);

#endif /* _SLABTRACE_INTERNAL_H */
