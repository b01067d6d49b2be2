/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup v2, for "start CACHE cgroup PATH".
 *
 * No version difference (6.1 to 7.3): cgroup_get_from_path() is exported
 * (GPL); task_dfl_cgroup(), cgroup_is_descendant() and cgroup_put() are
 * inlines.  What differs is the configuration: the KUnit runner's UML
 * kernel has no CONFIG_CGROUPS, and there the filter is refused.
 */
#ifndef _SLABTRACE_WRAPPER_CGROUP_H
#define _SLABTRACE_WRAPPER_CGROUP_H

#include <linux/err.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>

#ifdef CONFIG_CGROUPS
#include <linux/cgroup.h>

static inline struct cgroup *slabtrace_cgroup_get(const char *path)
{
	return cgroup_get_from_path(path);
}

static inline void slabtrace_cgroup_put(struct cgroup *cgrp)
{
	cgroup_put(cgrp);
}

/* Whether current is in @cgrp or below it.  Any context but NMI. */
static __always_inline bool slabtrace_current_in_cgroup(struct cgroup *cgrp)
{
	bool in;

	rcu_read_lock();
	in = cgroup_is_descendant(task_dfl_cgroup(current), cgrp);
	rcu_read_unlock();
	return in;
}
#else
struct cgroup;

static inline struct cgroup *slabtrace_cgroup_get(const char *path)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static inline void slabtrace_cgroup_put(struct cgroup *cgrp)
{
}

static __always_inline bool slabtrace_current_in_cgroup(struct cgroup *cgrp)
{
	return false;
}
#endif

#endif /* _SLABTRACE_WRAPPER_CGROUP_H */
