/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the tools write names that came from the kernel or the user: for a
 * terminal (bytes that are not printable ASCII as \xNN, or "?"), as the
 * module escapes a name in a dump's header, and as JSON strings.
 */
#ifndef SLABTRACE_ESCAPE_H
#define SLABTRACE_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

void put_escaped(FILE *f, const char *s);
char *escaped(char *s);
void kernel_escape(const char *name, char *buf, size_t size);
void put_json_string(FILE *f, const char *s);

#endif
