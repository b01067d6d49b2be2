// SPDX-License-Identifier: GPL-2.0
/*
 * Escaping for the tools' output: see escape.h.  Static, libc only.
 */
#include <stdio.h>
#include <string.h>

#include "escape.h"

/* Print @s with bytes that are not printable ASCII as \xNN. */
void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

/* @s with bytes that are not printable ASCII as "?", in place. */
char *escaped(char *s)
{
	char *p;

	for (p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	return s;
}

/*
 * @name as the module writes a name in a dump's header (SLABTRACE_ESCAPE,
 * include/slabtrace/core.h): printable ASCII as it is, but space and
 * backslash; \n \r \t \v \f, \\ \a \e; any other byte as \xNN.
 */
void kernel_escape(const char *name, char *buf, size_t size)
{
	static const char named[] = "\n\r\t\v\f\\\a\033";
	static const char letter[] = "nrtvf\\ae";
	size_t len = 0;

	buf[0] = 0;
	for (; *name && len + 5 < size; name++) {
		unsigned char c = *name;
		const char *n = c ? strchr(named, c) : NULL;

		if (c > ' ' && c < 0x7f && c != '\\')
			buf[len++] = c;
		else if (n)
			len += sprintf(buf + len, "\\%c", letter[n - named]);
		else
			len += sprintf(buf + len, "\\x%02x", c);
	}
	buf[len] = 0;
}

void put_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}
