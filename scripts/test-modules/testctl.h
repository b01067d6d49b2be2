/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the test modules' ctl files share: a write is one command, "WORD"
 * or "WORD N" (N decimal).  Not part of slabtrace.
 */
#ifndef _SLABTRACE_TESTCTL_H
#define _SLABTRACE_TESTCTL_H

#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/**
 * testctl_parse - the command a write to a ctl file gives
 * @buf: where its words go: @buf is the first
 * @size: its room
 * @ubuf: what was written
 * @len: its length
 * @arg: set to the second word, or NULL if there is none
 * @n: set to the second word's number, 0 if there is none
 *
 * Return: 0, -E2BIG, -EFAULT, or -EINVAL for a second word that is no number.
 */
static inline int testctl_parse(char *buf, size_t size, const char __user *ubuf,
				size_t len, char **arg, unsigned int *n)
{
	if (len >= size)
		return -E2BIG;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	strim(buf);
	*n = 0;
	*arg = strchr(buf, ' ');
	if (!*arg)
		return 0;
	*(*arg)++ = '\0';
	return kstrtouint(*arg, 10, n) ? -EINVAL : 0;
}

#endif /* _SLABTRACE_TESTCTL_H */
