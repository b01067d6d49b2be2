// SPDX-License-Identifier: GPL-2.0
/*
 * The part of slabtrace(8) and kmemtrace-record(8) that is the same in
 * both (in scripts/tools/lib, the tools' small library): the root of the
 * module's files, the causes when they cannot be reached, the module's
 * reason for a refused command (its kernel log line), and messages.  See
 * stfiles.h.  Static, libc only.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "stfiles.h"

const char *prog_name = "slabtrace";

static void vnote(const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", prog_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* "PROG: MESSAGE" on standard error, after what stdout holds. */
void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}

/* note(), then exit 1: the program could not do its job. */
noreturn void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
	exit(1);
}

/*
 * "PROG: MESSAGE (HELP)", then exit 2: the program was called wrongly;
 * @help says where the usage is ("slabtrace top --help").
 */
noreturn void usage_error(const char *help, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", prog_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (%s)\n", help);
	exit(st_status(EXIT_USAGE));
}

/* The status the program exits with, as st_status() was told. */
static int status_told;

/*
 * Whether standard output is a pipe whose reader has gone.  A program
 * that ignores SIGPIPE (the recorders: a pipe to a command that exited is
 * no reason to leave a trace running) then lost nothing anyone reads.
 */
static bool stdout_reader_gone(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };
	struct stat sb;

	return !fstat(STDOUT_FILENO, &sb) && S_ISFIFO(sb.st_mode) &&
	       poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

/*
 * At exit, after everything else: standard output flushed and closed,
 * and a write that failed (a full disk) said, with exit 1 (or the status
 * st_status() was told, if not 0), not a 0 for output that never arrived.
 * A pipe whose reader has gone is not a failure.  _exit(): exit() may not
 * be called again from a handler of atexit().
 */
static void stdout_check(void)
{
	int e = 0;
	bool bad = ferror(stdout);

	if (fflush(stdout)) {
		bad = true;
		e = errno;
	}
	if (bad && (e == EPIPE || stdout_reader_gone()))
		bad = false;
	if (fclose(stdout) && !e && errno != EPIPE) {
		bad = true;
		e = errno;
	}
	if (!bad)
		return;
	fprintf(stderr, "%s: standard output: %s\n", prog_name,
		e ? strerror(e) : "write error");
	_exit(status_told ? status_told : 1);
}

/*
 * The status the program is about to exit with, returned: a failed write
 * to standard output keeps it if it is not 0 (128 + a signal, 3 for a
 * COMMAND that failed, 2 for a usage error say more than 1).
 */
int st_status(int status)
{
	status_told = status;
	return status;
}

/* Called first in main(): stdout_check() runs at exit. */
void stdout_check_at_exit(void)
{
	if (atexit(stdout_check))
		die("out of memory");
}

void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory");
	return p;
}

/* What is left to read from @fd, NUL-terminated; NULL with errno set. */
char *read_fd(int fd)
{
	size_t len = 0, cap = 65536;
	char *buf = xmalloc(cap);
	ssize_t n;

	for (;;) {
		if (cap - len < 4096) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return NULL;
		}
		if (!n)
			break;
		len += n;
	}
	buf[len] = 0;
	return buf;
}

/* The whole of a file, NUL-terminated; NULL with errno set on failure. */
char *read_all(const char *path)
{
	char *buf;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = read_fd(fd);
	e = errno;
	close(fd);
	errno = e;
	return buf;
}

static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

const char *st_procfs(void)
{
	return env_or("SLABTRACE_PROC", "/proc");
}

const char *st_sysfs(void)
{
	return env_or("SLABTRACE_SYSFS", "/sys");
}

const char *st_run(void)
{
	return env_or("SLABTRACE_RUN", "/run");
}

static const char *debugfs(void)
{
	return env_or("SLABTRACE_DEBUGFS", "/sys/kernel/debug");
}

/* Whether @root is the procfs one. */
static bool in_proc;

/*
 * The directory of the module's files: /proc/slabtrace when it exists,
 * else slabtrace/ in debugfs.  Picked once /proc/slabtrace is found: until
 * then, looked for again each time (a module loaded after the program
 * started, which reads on: growth --prometheus).
 */
const char *st_root(void)
{
	static char root[PATH_MAX];
	struct stat sb;

	if (in_proc)
		return root;
	snprintf(root, sizeof(root), "%s/slabtrace", st_procfs());
	in_proc = !stat(root, &sb) && S_ISDIR(sb.st_mode);
	if (!in_proc)
		snprintf(root, sizeof(root), "%s/slabtrace", debugfs());
	return root;
}

/* The path of the module's file @file ("ctl", "kmemtrace/enable"). */
void st_path(char *buf, size_t size, const char *file)
{
	snprintf(buf, size, "%s/%s", st_root(), file);
}

static bool denied(void)
{
	return errno == EACCES || errno == EPERM;
}

/* --- why the module is not loaded --- */

static const char *modules_dir(void)
{
	return env_or("SLABTRACE_MODULES", "/lib/modules");
}

static const char *dkms_dir(void)
{
	return env_or("SLABTRACE_DKMS", "/var/lib/dkms");
}

/* Where DKMS's configuration is: SLABTRACE_ETC/dkms/. */
static const char *etc_dir(void)
{
	return env_or("SLABTRACE_ETC", "/etc");
}

/*
 * The value of the last "mok_certificate=" of the file @path, if any, into
 * @buf: "PATH", 'PATH' or PATH up to a blank or a '#'; empty if a quote
 * is not closed.  As slabtrace-dkms' postinst reads it.
 */
static void conf_cert(const char *path, char *buf, size_t size)
{
	char *text = read_all(path), *line, *save = NULL, *v, *end;
	size_t n;

	if (!text)
		return;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t");
		if (strncmp(line, "mok_certificate=", 16))
			continue;
		v = line + 16;
		end = *v == '"' || *v == '\'' ? strchr(v + 1, *v) : NULL;
		if (end) {
			v++;
			n = end - v;
		} else {
			n = strcspn(v, " \t#\"'");
		}
		snprintf(buf, size, "%.*s", (int)n, v);
	}
	free(text);
}

/*
 * The certificate DKMS signs with, into @buf: the last mok_certificate
 * set by its configuration (framework.conf, then framework.conf.d/ *.conf
 * in order, as DKMS reads them), else (none, or empty) its own key's.
 */
static void dkms_cert(char *buf, size_t size)
{
	char path[PATH_MAX];
	glob_t g;
	size_t i;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/dkms/framework.conf", etc_dir());
	conf_cert(path, buf, size);
	snprintf(path, sizeof(path), "%s/dkms/framework.conf.d/*.conf", etc_dir());
	if (!glob(path, 0, NULL, &g)) {
		for (i = 0; i < g.gl_pathc; i++)
			conf_cert(g.gl_pathv[i], buf, size);
		globfree(&g);
	}
	if (!buf[0])
		snprintf(buf, size, "%s", "/var/lib/dkms/mok.pub");
}

/*
 * The slabtrace module modprobe would load for the kernel @krel, as
 * modules.dep lists it (DKMS and make modules_install run depmod), into
 * @buf; false if there is none.
 */
static bool installed_module(const char *krel, char *buf, size_t size)
{
	char path[PATH_MAX], *text, *line, *save = NULL;
	bool found = false;

	snprintf(path, sizeof(path), "%s/%s/modules.dep", modules_dir(), krel);
	text = read_all(path);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *base;

		if (!colon)
			continue;
		*colon = 0;
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		if (strcmp(base, "slabtrace.ko") && strncmp(base, "slabtrace.ko.", 13))
			continue;
		/* Relative to the kernel's directory, or absolute. */
		if (line[0] == '/')
			snprintf(buf, size, "%s", line);
		else
			snprintf(buf, size, "%s/%s/%s", modules_dir(), krel, line);
		found = true;
	}
	free(text);
	return found;
}

/*
 * Whether the kernel is locked down, as Secure Boot makes it: securityfs'
 * lockdown file ("none [integrity] confidentiality"), or, where securityfs
 * is not mounted, the firmware's SecureBoot variable.
 */
static bool locked_down(void)
{
	char path[PATH_MAX], *text;
	unsigned char v[5];
	bool on = false;
	int fd;

	snprintf(path, sizeof(path), "%s/kernel/security/lockdown", st_sysfs());
	text = read_all(path);
	if (text) {
		on = strstr(text, "[integrity]") || strstr(text, "[confidentiality]");
		free(text);
		return on;
	}
	snprintf(path, sizeof(path), "%s/firmware/efi/efivars/%s", st_sysfs(),
		 "SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* Four bytes of attributes, then the value: 1 when it is on. */
	on = read(fd, v, sizeof(v)) == sizeof(v) && v[4] == 1;
	close(fd);
	return on;
}

/*
 * Whether the module file @path is signed: 1 if it ends with the kernel's
 * signature marker, 0 if it does not, -1 if that cannot be told (a
 * compressed module, holding its signature inside).
 */
static int module_signed(const char *path)
{
	static const char marker[] = "~Module signature appended~\n";
	char tail[sizeof(marker) - 1];
	const char *ext = strrchr(path, '.');
	struct stat sb;
	int fd, ret = -1;

	if (!ext || strcmp(ext, ".ko"))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!fstat(fd, &sb) && sb.st_size > (off_t)sizeof(tail) &&
	    pread(fd, tail, sizeof(tail), sb.st_size - sizeof(tail)) ==
	    (ssize_t)sizeof(tail))
		ret = !memcmp(tail, marker, sizeof(tail));
	close(fd);
	return ret;
}

/*
 * The kernel's log line that refused a module for its signature, into
 * @buf (lockdown's "unsigned module loading is restricted", or module
 * signature enforcement's "Loading of ... is rejected"); false if the log
 * has none or cannot be read (it is root's).
 */
static bool refusal_logged(char *buf, size_t size)
{
	char chunk[8192], line[1024];
	size_t len = 0;
	bool found = false;
	ssize_t n, i;
	int fd;

	fd = open(env_or("SLABTRACE_KMSG", "/dev/kmsg"),
		  O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* One record a read from /dev/kmsg; lines of a plain file in tests. */
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		for (i = 0; i < n; i++) {
			const char *text;

			if (chunk[i] != '\n') {
				if (len < sizeof(line) - 1)
					line[len++] = chunk[i];
				continue;
			}
			line[len] = 0;
			len = 0;
			text = strchr(line, ';');
			if (!text++)
				continue;
			if ((!strncmp(text, "Lockdown: ", 10) &&
			     strstr(text, "unsigned module loading is restricted")) ||
			    (!strncmp(text, "Loading of ", 11) &&
			     strstr(text, " is rejected"))) {
				snprintf(buf, size, "%s", text);
				found = true;
			}
		}
	}
	close(fd);
	return found;
}

/* The version DKMS has of slabtrace (/var/lib/dkms/slabtrace/VERSION); false if none. */
static bool dkms_version(char *buf, size_t size)
{
	char path[PATH_MAX];
	struct dirent *de;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "%s/slabtrace", dkms_dir());
	d = opendir(path);
	while (d && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;	/* ., .., kernel-* links, original_module */
		snprintf(buf, size, "%s", de->d_name);
		found = true;
	}
	if (d)
		closedir(d);
	return found;
}

#define NOT_LOADED "the slabtrace module is not loaded"
#define LOCKED NOT_LOADED ", and this kernel loads only signed modules (Secure Boot)"
/* With the certificate dkms_cert() gives. */
#define ENROL "enrol DKMS's key once: sudo mokutil --import %s, " \
	"reboot and confirm it in the MOK manager"

/*
 * Dies saying why the module is not loaded and what to do: load it; or
 * build it for this kernel (its headers; DKMS's log); or, where Secure
 * Boot locks the kernel down, sign it and enrol the key.
 */
static noreturn void not_loaded(void)
{
	char ko[PATH_MAX], ver[256], path[PATH_MAX], logline[1024], todo[3 * PATH_MAX];
	char cert[PATH_MAX];
	const char *k;
	struct utsname u;
	bool dkms;

	uname(&u);
	k = u.release;
	dkms = dkms_version(ver, sizeof(ver));
	if (!installed_module(k, ko, sizeof(ko))) {
		snprintf(path, sizeof(path), "%s/%s/build", modules_dir(), k);
		if (!dkms)
			die("%s, and none is installed for this kernel (%s): %s", NOT_LOADED, k,
			    "install the slabtrace-dkms package; from a checkout: make && sudo insmod slabtrace.ko");
		if (access(path, F_OK))
			snprintf(todo, sizeof(todo), "%s%s%s",
				 "its headers are missing: sudo apt install linux-headers-", k,
				 " (DKMS then builds slabtrace for it), then sudo modprobe slabtrace");
		else
			snprintf(todo, sizeof(todo), "%s, %s/slabtrace/%s/%s%s -k %s tries again",
				 "dkms status slabtrace says why", dkms_dir(), ver,
				 "build/make.log is DKMS's build log; sudo dkms install slabtrace/",
				 ver, k);
		die("%s, and not built for this kernel (%s): %s", NOT_LOADED, k, todo);
	}
	if (refusal_logged(logline, sizeof(logline)))
		note("the kernel refused a module for its signature: '%s'", logline);
	else if (!locked_down())
		die("%s: sudo modprobe slabtrace", NOT_LOADED);
	dkms_cert(cert, sizeof(cert));
	if (module_signed(ko) == 0) {
		if (dkms)
			snprintf(todo, sizeof(todo), "%s%s -k %s; %s%s -k %s); then " ENROL,
				 "DKMS signs what it builds when openssl is installed (sudo apt install openssl; sudo dkms remove slabtrace/",
				 ver, k, "sudo dkms install slabtrace/", ver, k, cert);
		else
			snprintf(todo, sizeof(todo), "%s",
				 "from a checkout: sudo make sign, then sudo make modules_install");
		die(dkms ? "%s: %s is not signed: %s" : "%s: %s is not signed (%s)",
		    LOCKED, ko, todo);
	}
	die("%s, with a key it trusts: sudo modprobe slabtrace; if that says %s, " ENROL, LOCKED,
	    "'Operation not permitted' or 'Key was rejected by service'", cert);
}

/*
 * After an upgrade of the packages the module loaded is the old one until
 * it is loaded again: say so, once, if its version is not the tools'.
 */
void st_version_check(void)
{
	static bool checked;
	char path[PATH_MAX], *v;
	size_t n;

	if (checked)
		return;
	checked = true;
	snprintf(path, sizeof(path), "%s/module/slabtrace/version", st_sysfs());
	v = read_all(path);
	if (!v)
		return;
	n = strcspn(v, "\n");
	v[n] = '\0';
	if (strcmp(v, SLABTRACE_VERSION))
		note("the slabtrace module loaded is version %.40s, these tools %s: %s",
		     v, SLABTRACE_VERSION,
		     "after an upgrade, sudo rmmod slabtrace; sudo modprobe slabtrace");
	free(v);
}

/*
 * Dies with the cause if the module's file @file cannot be opened for
 * @mode (R_OK, W_OK): not root, module not loaded (and why: not built for
 * this kernel, refused by Secure Boot), debugfs not mounted (a module
 * without /proc/slabtrace), a module without that file.  Returns if it
 * can, or if it exists and fails for another reason (the caller says
 * which).
 */
void st_check(const char *file, int mode)
{
	char path[2 * PATH_MAX], mod[PATH_MAX];
	const char *dfs = debugfs();
	struct dirent *de;
	bool empty = true;
	DIR *d;

	st_path(path, sizeof(path), file);
	if (!access(path, F_OK)) {
		if (access(path, mode) && denied())
			die("needs root: %s is root's only (run it with sudo)", path);
		return;
	}
	if (denied())
		die("needs root: %s is root's only (run it with sudo)",
		    in_proc ? st_root() : dfs);
	if (in_proc)
		die("the slabtrace module is loaded but %s is missing (%s)", path,
		    "a module of another version?");
	snprintf(mod, sizeof(mod), "%s/module/slabtrace", st_sysfs());
	if (access(mod, F_OK))
		not_loaded();
	d = opendir(dfs);
	if (!d && denied())
		die("needs root: %s is root's only (run it with sudo)", dfs);
	while (d && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = false;
			break;
		}
	}
	if (d)
		closedir(d);
	if (empty)
		die("debugfs is not mounted on %s (mount -t debugfs none %s)",
		    dfs, dfs);
	die("the slabtrace module is loaded but %s is missing (%s)", path,
	    "a module of another version?");
}

/* --- the reason for a refused command: the module's kernel log line --- */

static int kmsg_fd = -1;

/* Remember where the kernel log ends, before a command. */
void kmsg_mark(void)
{
	if (kmsg_fd < 0)
		kmsg_fd = open(env_or("SLABTRACE_KMSG", "/dev/kmsg"),
			       O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
}

/*
 * The last "slabtrace: " line logged since kmsg_mark(), without the
 * prefix, into @buf; false if there is none.
 */
bool kmsg_reason(char *buf, size_t size)
{
	char rec[8192];
	bool found = false;
	ssize_t n;

	if (kmsg_fd < 0)
		return false;
	for (;;) {
		char *text, *nl;

		n = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (n <= 0)
			break;
		rec[n] = 0;
		text = strchr(rec, ';');
		if (!text)
			continue;
		text++;
		nl = strchr(text, '\n');
		if (nl)
			*nl = 0;
		if (strncmp(text, "slabtrace: ", 11))
			continue;
		snprintf(buf, size, "%s", text + 11);
		found = true;
	}
	return found;
}

/* The reason for a command that failed with @err: its log line, or the errno. */
void reason_of(int err, char *buf, size_t size)
{
	if (!kmsg_reason(buf, size))
		snprintf(buf, size, "%s (no reason in the kernel log)",
			 strerror(err));
}

/*
 * Whether @id may own a directory root writes into: root, or the user
 * sudo ran for (who could be root anyway).
 */
static bool trusted_id(unsigned long id, unsigned long self,
		       const char *sudo_var)
{
	const char *sudo = getenv(sudo_var);

	return id == 0 || id == self ||
	       (sudo && *sudo && strtoul(sudo, NULL, 10) == id);
}

/*
 * Dies unless root may write in @real (a resolved path: no link, no
 * "..") as the user of @shown: @real and every directory above it belong
 * to root or to the user sudo ran for, and none may be writable by others
 * (or their group) but one that is sticky (/tmp) above @real, or @real
 * itself if @sticky_ok (the directory of a file: the kernel's
 * protected_symlinks and protected_regular cover its entries).
 */
static void trusted_path(const char *shown, const char *real, bool sticky_ok)
{
	char path[PATH_MAX], *slash;
	bool first = true;
	struct stat st;

	snprintf(path, sizeof(path), "%s", real);
	for (;;) {
		const char *c = path[0] ? path : "/";

		if (stat(c, &st))
			die("%s: %s", c, strerror(errno));
		if (!trusted_id(st.st_uid, geteuid(), "SUDO_UID"))
			die("%s: %s belongs to uid %u, who could put links in it: %s",
			    shown, c, (unsigned int)st.st_uid,
			    "save in a directory of yours");
		/* o+w, g+w of another group; sticky 01000 */
		if (((st.st_mode & 0002) ||
		     ((st.st_mode & 0020) &&
		      !trusted_id(st.st_gid, getegid(), "SUDO_GID"))) &&
		    (!(st.st_mode & 01000) || (first && !sticky_ok)))
			die("%s: others may write in %s: save in a directory of yours",
			    shown, c);
		if (!path[0])
			return;
		slash = strrchr(path, '/');
		*slash = '\0';
		first = false;
	}
}

/*
 * @path's directory, resolved and checked (trusted_path()), into @real,
 * then "/" and its last name: where root may create @path.
 */
static void trusted_place(const char *path, char *real, size_t size)
{
	char *d = xstrdup(path), *b = xstrdup(path), rd[PATH_MAX];
	const char *base = basename(b);

	if (!*base || !strcmp(base, ".") || !strcmp(base, "..") ||
	    !strcmp(base, "/"))
		die("%s: name a directory to make", path);
	if (!realpath(dirname(d), rd))
		die("%s: %s", path, strerror(errno));
	trusted_path(path, rd, true);
	if ((size_t)snprintf(real, size, "%s/%s", strcmp(rd, "/") ? rd : "",
			     base) >= size)
		die("%s: %s", path, strerror(ENAMETOOLONG));
	free(d);
	free(b);
}

/* The umask the program started with, which COMMAND gets back. */
static mode_t user_umask;
static bool umask_set;

/* What a recorder makes is root's only: files 0600, directories 0700. */
static void umask_once(void)
{
	if (!umask_set) {
		user_umask = umask(077);
		umask_set = true;
	}
}

/* In the child, before COMMAND runs: its umask is the user's. */
void out_umask_restore(void)
{
	if (umask_set)
		umask(user_umask);
}

/**
 * out_dir - make @dir, where a recorder saves what it read, and check it
 * @dir: the directory (-o DIR)
 * @real: set to @dir resolved, where everything is to be written
 * @size: its size
 *
 * What is saved is root's to read: the module's files are 0400 and 0600,
 * and a trace's kallsyms and metadata hold the kernel's addresses.  So
 * the files are made 0600 (umask 077, given back to COMMAND by
 * out_umask_restore()) and @dir 0700.  Root must not write where another
 * user can put a link in its way (a /tmp/rec made by that user, holding
 * kmalloc-64.dump -> /etc/shadow): @dir's directory is checked before
 * @dir is made in it, then @dir (trusted_path()), and all is written
 * under @real, whose directories no other user can change.  Else exit 1
 * saying which.  A @dir made here goes to the user sudo ran for
 * (out_give()).
 */
void out_dir(const char *dir, char *real, size_t size)
{
	char place[PATH_MAX], full[PATH_MAX];
	bool made = false;
	struct stat st;

	umask_once();
	if (!realpath(dir, place)) {
		if (errno != ENOENT)
			die("%s: %s", dir, strerror(errno));
		trusted_place(dir, place, sizeof(place));
		if (!mkdir(place, 0700))
			made = true;
		else if (errno != EEXIST)
			die("%s: %s", dir, strerror(errno));
	}
	if (!realpath(place, full))
		die("%s: %s", dir, strerror(errno));
	if ((size_t)snprintf(real, size, "%s", full) >= size)
		die("%s: %s", dir, strerror(ENAMETOOLONG));
	if (stat(real, &st))
		die("%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		die("%s: not a directory", dir);
	if (access(real, W_OK | X_OK))
		die("%s: %s", dir, strerror(errno));
	trusted_path(dir, real, false);
	if (made)
		out_give(real);
}

/**
 * out_file - where root may create the file @path (--pprof FILE)
 * @path: the file
 * @real: set to its directory resolved, and its name
 * @size: its size
 *
 * Its directory is checked as out_dir() checks one (a sticky one such as
 * /tmp may be it), and files are made 0600.
 */
void out_file(const char *path, char *real, size_t size)
{
	umask_once();
	trusted_place(path, real, size);
}

/**
 * out_file_as_root - out_file() when root runs the program, else @path
 * @path: the file (report --pprof FILE, whose input may be root's only)
 * @real: set to where to write it
 * @size: its size
 *
 * A user writes where the user may, as the user's umask says; root,
 * through no link another user put there, 0600 (out_give() then gives
 * the file to the user sudo ran for).
 */
void out_file_as_root(const char *path, char *real, size_t size)
{
	if (!geteuid())
		out_file(path, real, size);
	else if ((size_t)snprintf(real, size, "%s", path) >= size)
		die("%s: %s", path, strerror(ENAMETOOLONG));
}

/**
 * out_open - create or truncate a file in out_dir()'s directory
 * @path: the file
 *
 * The directory is given to the user sudo ran for (out_give()), who may
 * put a link or a FIFO where root writes next: neither is followed or
 * waited for (O_NOFOLLOW: ELOOP; O_NONBLOCK: ENXIO for a FIFO no one
 * reads; a regular file's writes do not care), 0600.
 *
 * Return: the descriptor, or -1 with errno set.
 */
int out_open(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC, 0600);
}

/**
 * out_fopen - out_open() as a stdio stream
 * @path: the file
 *
 * Return: the stream, or NULL with errno set.
 */
FILE *out_fopen(const char *path)
{
	int fd = out_open(path), e;
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

/**
 * out_give - give what a recorder made to the user sudo ran for
 * @path: a file or directory it made (out_dir()'s, or in it)
 *
 * "sudo slabtrace record" in one's home leaves slabtrace.out to its user,
 * who reads it (slabtrace-flamegraph, go tool pprof) and removes it
 * without sudo: still 0600 or 0700, that user's only.  Not run by sudo,
 * or not as root: nothing to do.  A failure leaves @path root's (sudo
 * still reads it), and says so.
 */
void out_give(const char *path)
{
	const char *uid = getenv("SUDO_UID"), *gid = getenv("SUDO_GID");

	if (geteuid() || !uid || !*uid)
		return;
	if (lchown(path, strtoul(uid, NULL, 10),
		   gid && *gid ? (gid_t)strtoul(gid, NULL, 10) : (gid_t)-1))
		note("%s stays root's: %s", path, strerror(errno));
}
