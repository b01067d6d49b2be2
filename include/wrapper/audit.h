/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The audit login UID of a task.
 *
 * No version difference (6.1 to 7.3): audit_get_loginuid() is an inline
 * of <linux/audit.h> reading task->loginuid with CONFIG_AUDITSYSCALL
 * (Debian's kernels, x86-64 and arm64); without it (the debug kernel,
 * UML) it returns INVALID_UID.  The wrapper keeps that one place to
 * change if the kernel's does.
 */
#ifndef _SLABTRACE_WRAPPER_AUDIT_H
#define _SLABTRACE_WRAPPER_AUDIT_H

#include <linux/audit.h>
#include <linux/sched.h>

/**
 * slabtrace_login_uid - the login user a task acts for
 * @tsk: the task
 *
 * Set at login (pam_loginuid), inherited by every process of the login
 * and kept by sudo and su.
 *
 * Return: the UID, INVALID_UID if unset.
 */
static inline kuid_t slabtrace_login_uid(struct task_struct *tsk)
{
	return audit_get_loginuid(tsk);
}

#endif /* _SLABTRACE_WRAPPER_AUDIT_H */
