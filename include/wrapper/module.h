/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a module's code is.
 *
 * v6.4 replaced struct module's core_layout (base, text_size) by an array
 * of memory regions, mem[MOD_TEXT] the text.  scripts/kbuild/compat/module.sh
 * tells which from <linux/module.h>.
 */
#ifndef _SLABTRACE_WRAPPER_MODULE_H
#define _SLABTRACE_WRAPPER_MODULE_H

#include <linux/module.h>

#ifdef MODULE
/**
 * slabtrace_module_text - where a module's code is
 * @mod: the module
 * @start: its first byte of text
 * @end: the byte after its last
 */
static inline void slabtrace_module_text(const struct module *mod,
					 unsigned long *start,
					 unsigned long *end)
{
#ifdef SLABTRACE_MODULE_MEMORY
	*start = (unsigned long)mod->mem[MOD_TEXT].base;
	*end = *start + mod->mem[MOD_TEXT].size;
#else
	*start = (unsigned long)mod->core_layout.base;
	*end = *start + mod->core_layout.text_size;
#endif
}
#endif /* MODULE */

#endif /* _SLABTRACE_WRAPPER_MODULE_H */
