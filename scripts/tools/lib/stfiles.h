/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the programs beside the module (slabtrace, kmemtrace-record) share:
 * where slabtrace's files are, why they cannot be reached when they
 * cannot (and, when the module is not loaded, why not and what to do),
 * the module's reason for a refused command, how a program says that it
 * failed (exit 1) or was called wrongly (exit 2), and its version.
 *
 * Every path to a file of the module is built by st_path(), under the one
 * root st_root() picks: /proc/slabtrace when it exists (procfs is not
 * subject to lockdown), else /sys/kernel/debug/slabtrace.
 *
 * For tests on a machine without the module, the trees can be moved:
 * SLABTRACE_PROC (default /proc), SLABTRACE_DEBUGFS (/sys/kernel/debug),
 * SLABTRACE_SYSFS (/sys), SLABTRACE_KMSG (/dev/kmsg), SLABTRACE_MODULES
 * (/lib/modules), SLABTRACE_DKMS (/var/lib/dkms).
 */
#ifndef SLABTRACE_STFILES_H
#define SLABTRACE_STFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdnoreturn.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The program's name, the prefix of its messages: set by main(). */
extern const char *prog_name;

/* The release's version, dkms.conf's PACKAGE_VERSION (tools.mk gives it). */
#ifndef SLABTRACE_VERSION
#error "SLABTRACE_VERSION: dkms.conf's PACKAGE_VERSION, given by scripts/tools/tools.mk"
#endif

/* --version, -V: "PROG VERSION" on standard output, as every tool says it. */
#define print_version() printf("%s %s\n", prog_name, SLABTRACE_VERSION)

/* Exit status of a usage error (a bad option, a missing argument). */
#define EXIT_USAGE	2

void note(const char *fmt, ...);
noreturn void die(const char *fmt, ...);
noreturn void usage_error(const char *help, const char *fmt, ...);
void stdout_check_at_exit(void);
int st_status(int status);

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *read_fd(int fd);
char *read_all(const char *path);

const char *st_procfs(void);
const char *st_sysfs(void);
const char *st_run(void);
const char *st_root(void);
void st_path(char *buf, size_t size, const char *file);
void st_check(const char *file, int mode);

void kmsg_mark(void);
bool kmsg_reason(char *buf, size_t size);
void reason_of(int err, char *buf, size_t size);
void st_version_check(void);
void out_dir(const char *dir, char *real, size_t size);
void out_file(const char *path, char *real, size_t size);
void out_file_as_root(const char *path, char *real, size_t size);
void out_umask_restore(void);
void out_give(const char *path);
int out_open(const char *path);
FILE *out_fopen(const char *path);

#endif
