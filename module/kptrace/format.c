// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the text of one record, one line:
 *
 *   [start_ns] [end_ns] Syscall NR (name):(0x..., 0x..., 0x..., 0x...,
 *   0x..., 0x...) ret: R pid: P tid: T comm: C cpu: N data: "..."
 *
 * (one line: wrapped here).  A 32-bit call's name reads "compat NAME"; a call the task's exit ended
 * has "ret: -"; data is there only when a path argument could be read.
 * The command name and the data are escaped, so that a record is always
 * one line of space-separated fields: in the command name, spaces and
 * non-printable bytes are \xNN, a backslash \\; in the quoted data,
 * non-printable bytes are \xNN, '"' and '\' are \" and \\.
 *
 * No locks: a pure function of its arguments.
 */
#include <linux/kernel.h>
#include <linux/string_helpers.h>

#include <slabtrace/core.h>

#include "kptrace.h"

static int escape(char *buf, size_t size, const char *s, size_t len,
		  const char *also)
{
	return string_escape_mem(s, len, buf, size, SLABTRACE_ESCAPE, also);
}

/**
 * kptrace_format - format a record as a line of text
 * @rec: the record
 * @buf: where to write it, NUL-terminated
 * @size: room at @buf; KPTRACE_LINE_MAX always suffices
 *
 * Return: the length written, without the NUL.
 */
int kptrace_format(const struct kptrace_rec *rec, char *buf, size_t size)
{
	bool compat = rec->flags & KPTRACE_COMPAT;
	const char *name = slabtrace_syscall_name(rec->nr, compat);
	/* Each byte escapes to at most 4 ("\xNN"). */
	char comm[TASK_COMM_LEN * 4 + 1], data[KPTRACE_DATA_MAX * 4 + 1];
	int n, len;

	n = escape(comm, sizeof(comm) - 1, rec->comm,
		   strnlen(rec->comm, TASK_COMM_LEN), SLABTRACE_ESCAPE_ALSO);
	comm[min_t(int, n, sizeof(comm) - 1)] = '\0';

	len = scnprintf(buf, size, "[%llu] [%llu] Syscall %d (%s%s):",
			rec->start_ns, rec->end_ns, rec->nr,
			compat ? "compat " : "", name ?: "unknown");
	len += scnprintf(buf + len, size - len,
			 "(0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx) ",
			 rec->args[0], rec->args[1], rec->args[2], rec->args[3],
			 rec->args[4], rec->args[5]);
	if (rec->flags & KPTRACE_NORETURN)
		len += scnprintf(buf + len, size - len, "ret: -");
	else
		len += scnprintf(buf + len, size - len, "ret: %lld", rec->ret);
	len += scnprintf(buf + len, size - len,
			 " pid: %d tid: %d comm: %s cpu: %u", rec->pid,
			 rec->tid, comm, rec->cpu);
	if (rec->flags & KPTRACE_DATA) {
		n = escape(data, sizeof(data) - 1, rec->data,
			   min_t(size_t, rec->data_len, KPTRACE_DATA_MAX),
			   "\"\\");
		data[min_t(int, n, sizeof(data) - 1)] = '\0';
		len += scnprintf(buf + len, size - len, " data: \"%s\"", data);
	}
	len += scnprintf(buf + len, size - len, "\n");
	return len;
}
