/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A percpu pointer used as a key (the percpu_alloc_percpu and
 * percpu_free_percpu tracepoints report the pointer alloc_percpu()
 * returned).
 *
 * gcc 16 with CONFIG_USE_X86_SEG_SUPPORT (Debian's 7.x on x86-64) makes
 * __percpu the __seg_gs named address space, and warns ("cast to generic
 * address space pointer from disjoint '__seg_gs' address space pointer")
 * at a cast of such a pointer to a plain one; a cast through an integer
 * is what percpu-defs.h itself does, and is the same value on every
 * kernel and compiler.  No feature test: the one form builds everywhere
 * (its test is the gcc-16 build, W=1, in make compat).
 */
#ifndef _SLABTRACE_WRAPPER_PERCPU_H
#define _SLABTRACE_WRAPPER_PERCPU_H

#include <linux/compiler.h>

/* The key of a percpu pointer: its value, as a plain pointer. */
static __always_inline const void *slabtrace_percpu_key(void __percpu *ptr)
{
	return (const void *)(__force unsigned long)ptr;
}

#endif /* _SLABTRACE_WRAPPER_PERCPU_H */
