/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's contexts (context.c): who made an allocation, as a
 * record keeps it (record.h's struct leak_who) and a print shows it.
 */
#ifndef _SLABTRACE_SLAB_CONTEXT_H
#define _SLABTRACE_SLAB_CONTEXT_H

#include <linux/types.h>

#include "record.h"

struct seq_file;

void leak_ctx_fill(struct leak_record *rec);
void leak_ctx_show(struct seq_file *m, const struct leak_who *w);
void leak_syscall_show(struct seq_file *m, s16 syscall);

#endif /* _SLABTRACE_SLAB_CONTEXT_H */
