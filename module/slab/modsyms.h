/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's frames (modsyms.c): the name of a frame as a backtrace
 * shows it, and the names of frames in module code that went away.
 */
#ifndef _SLABTRACE_SLAB_MODSYMS_H
#define _SLABTRACE_SLAB_MODSYMS_H

#include <linux/stackdepot.h>
#include <linux/types.h>

#include "part.h"

struct seq_file;

/* The name of a frame, as a backtrace shows it. */
void leak_frame_name(char *buf, size_t size, depot_stack_handle_t handle,
		     unsigned long ip, bool offset);
/* What a frame's name escapes besides SLABTRACE_ESCAPE's: its spaces stay. */
#define LEAK_FRAME_ALSO	"\\"
void leak_frame_folded(char *buf, size_t size, const char *name,
		       const char *only);
void leak_stack_show(struct seq_file *m, depot_stack_handle_t handle);

/*
 * Names of frames in module code that went away: the module notifier
 * that keeps them (slab.c loads it), its stats line, and a count of the
 * modules gone.
 */
extern const struct leak_part leak_modsyms_part;
unsigned long leak_modsyms_gen(void);

#if IS_ENABLED(CONFIG_KUNIT)
/* Global only for the KUnit suites: static in the module (VISIBLE_IF_KUNIT). */
void leak_frame_strip(char *buf, size_t size, const char *name);
void leak_frame_show(struct seq_file *m, const char *name);
#endif

#endif /* _SLABTRACE_SLAB_MODSYMS_H */
