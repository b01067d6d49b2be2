/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's contexts (context.c): who made an allocation, as a
 * record keeps it (record.h's struct slab_trace_who) and a print shows it.
 */
#ifndef _SLABTRACE_SLAB_CONTEXT_H
#define _SLABTRACE_SLAB_CONTEXT_H

#include <linux/types.h>

#include "record.h"

struct seq_file;

void slab_trace_ctx_fill(struct slab_trace_record *rec);
void slab_trace_ctx_show(struct seq_file *m, const struct slab_trace_who *w);
void slab_trace_syscall_show(struct seq_file *m, s16 syscall);

#endif /* _SLABTRACE_SLAB_CONTEXT_H */
