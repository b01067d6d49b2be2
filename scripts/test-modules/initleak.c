// SPDX-License-Identifier: GPL-2.0
/*
 * initleak: allocates from its __init code, for slabtrace's VM tests.  Not
 * part of slabtrace.
 *
 * At load, initleak_alloc(), in the module's __init text, kmallocs
 * INITLEAK_NR objects of 200 bytes (kmalloc-256) and keeps them until
 * rmmod.  Once the load is done the kernel frees that text, and the next
 * module loaded may land at its addresses: a backtrace that names its
 * frames by kallsyms at print time would show "?" or the new module's
 * functions.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>
#include <linux/slab.h>

#define INITLEAK_NR	8
#define INITLEAK_SIZE	200

static void *objs[INITLEAK_NR];

/* Not inlined: frame #01 of the records is this function, #02 the init. */
static noinline int __init initleak_alloc(void)
{
	unsigned int i;

	for (i = 0; i < INITLEAK_NR; i++) {
		objs[i] = kmalloc(INITLEAK_SIZE, GFP_KERNEL);
		if (!objs[i])
			return -ENOMEM;
	}
	return 0;
}

static void initleak_free(void)
{
	unsigned int i;

	for (i = 0; i < INITLEAK_NR; i++)
		kfree(objs[i]);
}

static int __init initleak_init(void)
{
	int ret = initleak_alloc();

	if (ret)
		initleak_free();
	return ret;
}

static void __exit initleak_exit(void)
{
	initleak_free();
}

module_init(initleak_init);
module_exit(initleak_exit);
MODULE_DESCRIPTION("slabtrace test: allocations from __init text");
MODULE_LICENSE("GPL");
