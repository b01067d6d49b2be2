/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the slabtrace KUnit suites: run a ctl command, check
 * lockdep.  slab_trace's suites have more (st_slab_kunit.h).
 */
#ifndef _SLABTRACE_ST_KUNIT_H
#define _SLABTRACE_ST_KUNIT_H

#include <kunit/test.h>
#include <linux/debug_locks.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#include <slabtrace/core.h>

/* Run one ctl command, as "echo CMD > ctl" would (the newline included). */
static inline __printf(1, 2) int st_cmd(const char *fmt, ...)
{
	va_list ap;
	char *buf;
	int ret;

	va_start(ap, fmt);
	buf = kvasprintf(GFP_KERNEL, fmt, ap);
	va_end(ap);
	if (!buf)
		return -ENOMEM;
	ret = slabtrace_ctl_command(NULL, buf, strlen(buf));
	kfree(buf);
	return ret;
}

/* A suite's exit: lockdep must not have found anything. */
static inline void st_expect_lockdep_clean(struct kunit *test)
{
	KUNIT_EXPECT_TRUE_MSG(test, debug_locks,
			      "lockdep reported a problem (see the log)");
}

#endif /* _SLABTRACE_ST_KUNIT_H */
