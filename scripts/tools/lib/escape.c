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

/*
 * The length of the UTF-8 sequence of two to four bytes at @s, or 0 if it
 * is none: a lead byte, its continuation bytes (the string's NUL is none),
 * no overlong form, no surrogate, nothing past U+10FFFF.
 */
static int utf8_len(const unsigned char *s)
{
	unsigned int cp, min;
	int n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
		min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
		min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * @s as a JSON string: valid UTF-8 as it is (a path, a name in any
 * language); a control byte or DEL as \u00XX; a byte of no valid UTF-8
 * sequence as U+FFFD, the replacement character, as a UTF-8 decoder
 * shows it (\u00XX would read back as another, valid, character: byte
 * 0xff as U+00FF, which is also what "\xc3\xbf" is).
 */
void put_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s) {
		unsigned char c = *s;
		int n = c >= 0x80 ? utf8_len((const unsigned char *)s) : 0;

		if (n) {
			fwrite(s, 1, n, f);
			s += n;
			continue;
		}
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c >= 0x80)
			fputs("\xef\xbf\xbd", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
		s++;
	}
	fputc('"', f);
}
