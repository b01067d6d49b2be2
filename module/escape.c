// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: how a log line shows a word a user chose (a cache name, a
 * command's word, a number that was none): escaped as the files escape a
 * name (SLABTRACE_ESCAPE, <slabtrace/core.h>), a quote too, and cut with
 * "..." where it does not fit the caller's buffer.  vsprintf's %pE is not
 * that rule: by default it leaves bytes 0xa0 to 0xff raw (the kernel's
 * isprint() takes them for Latin-1) and escapes neither a quote nor a
 * backslash, so a quoted word could end its quotes early or read as an
 * escape it is not.  The folded stacks (slab/modsyms.c) take the same
 * loop, which never cuts an escape in two.
 *
 * No locks, no allocation.
 */
#include <linux/string.h>
#include <linux/string_helpers.h>

#include <slabtrace/core.h>

/**
 * slabtrace_escape - bytes escaped as names are, whole escapes only
 * @buf: where to write them
 * @size: its size
 * @s: the bytes, not NUL-terminated
 * @len: how many
 * @only: the printable bytes escaped too (SLABTRACE_ESCAPE_ALSO, or a
 *	  rule's own)
 *
 * string_escape_mem() with SLABTRACE_ESCAPE, but what does not fit in
 * @buf is left out from the first escape that does not fit whole: no
 * escape is cut in two.
 *
 * Context: Any context.
 * Return: how many bytes of @s are in @buf, escaped and NUL-terminated
 * (if @size).
 */
size_t slabtrace_escape(char *buf, size_t size, const char *s, size_t len,
			const char *only)
{
	size_t used = 0, i;
	char one[4];
	int n;

	for (i = 0; i < len; i++) {
		n = string_escape_mem(s + i, 1, one, sizeof(one),
				      SLABTRACE_ESCAPE, only);
		if (used + n >= size)
			break;
		memcpy(buf + used, one, n);
		used += n;
	}
	if (size)
		buf[used] = '\0';
	return i;
}

/**
 * slabtrace_esc - a word a user chose, as a log line shows it
 * @buf: where to write it; SLABTRACE_ESC_SIZE bytes hold any cache name
 * @size: its size, 4 or more
 * @s: the word, not NUL-terminated
 * @len: its length
 *
 * Every byte is escaped as in a file's names (SLABTRACE_ESCAPE: "\n",
 * "\e", "\\", "\xe9"), and a space and a quote as "\x20" and "\x27": a
 * word can neither look like two, nor end the quotes around it, nor make
 * a line of its own.  An escape is never cut: a word whose escapes do not
 * fit in @buf ends with "..." after the last one that does.  For
 * pr_*("... '%s' ...", slabtrace_esc(buf, sizeof(buf), s, strlen(s))).
 *
 * Context: Any context.
 * Return: @buf, NUL-terminated.
 */
const char *slabtrace_esc(char *buf, size_t size, const char *s, size_t len)
{
	static const char dots[] = "...";

	if (slabtrace_escape(buf, size, s, len, SLABTRACE_ESCAPE_LOG) < len &&
	    size >= sizeof(dots)) {
		slabtrace_escape(buf, size - strlen(dots), s, len,
				 SLABTRACE_ESCAPE_LOG);
		strscpy(buf + strlen(buf), dots, sizeof(dots));
	}
	return buf;
}
