// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_probe: makes known system calls, for the kptrace VM test.  Built
 * static with the host's gcc (make test-modules) and run in the guest.
 *
 *   kpt_probe [-n NAME] [-w FIFO] [-m PATH] [-g N] [-f PATH] [-l LEN] [-b]
 *             [-W FILE [-c N] [-K]]
 *   kpt_probe -P FILE   poll FILE for input for 2 s: "poll=RET revents=0xR"
 *   kpt_probe -N FILE   read FILE with O_NONBLOCK: "nonblock=RET errno=E"
 *   kpt_probe -x        x86-64: one getpid() through the x32 ABI (its
 *                       number with __X32_SYSCALL_BIT, 0x40000000), which
 *                       returns the pid with syscall.x32=y and -ENOSYS
 *                       without: "x32getpid=RET errno=E"; built -m32, the
 *                       same number as an ia32 call (-ENOSYS; on arm64
 *                       too: a number no table has)
 *   kpt_probe -i        x86-64, built 64-bit: close() as an ia32 call (int
 *                       $0x80, number 6) of fd 0xdeadbeef00000063, which
 *                       the kernel reads as 99 (the register's low half):
 *                       "int80close=RET" (-9, EBADF)
 *   kpt_probe -o        overlap a long call and short ones on two CPUs: a
 *                       child on CPU 0 sleeps 60 s in nanosleep(); the
 *                       parent, on CPU 1, waits until /proc says the
 *                       child is in nanosleep(), calls getpid() 10 times,
 *                       then ends the sleep with SIGUSR1 (EINTR) and
 *                       waits for the child: "overlap=STATUS".  No step
 *                       depends on how fast the guest runs.
 *
 *   -n NAME  rename itself first (prctl PR_SET_NAME)
 *   -w FIFO  print "pid=PID" (one getpid() system call), then wait for a
 *            line on FIFO
 *   -m PATH  then openat(AT_FDCWD, PATH, O_RDONLY) once: a marker, after
 *            which a test counts the calls (whatever it traced before it
 *            -- startup, the "pid=" line, the FIFO -- does not matter)
 *   -g N     getpid() N times
 *   -f PATH  openat(AT_FDCWD, PATH, O_RDONLY) once
 *   -l LEN   open /dev/null and write LEN bytes to it once
 *   -b       then print "busy" and getpid() forever
 *   -W FILE  the leaky module's ctl, for -c and -K
 *   -c N     N times: rename itself "ctxI" (I from 0) and write "churn 1"
 *            to FILE (a widget allocated and freed under each name)
 *   -K       write "widgets 1" to FILE: a widget kept, allocated under
 *            its name (-n)
 *
 * It prints what it did, in order, one line per step: "pid=PID",
 * "mark=PATH openat=RET", "getpid=RET calls=N" (the last call's return,
 * and how many it made), "openat=RET errno=E", "write=RET", "busy"; and
 * ends with exit_group(0).  stdout is flushed before a wait and before the
 * busy loop, so a test can wait for those lines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long getpid_raw(void)
{
	/* Not glibc's getpid(): it might not enter the kernel. */
	return syscall(SYS_getpid);
}

static int poll_file(const char *path)
{
	struct pollfd p = { .events = POLLIN };
	int ret;

	p.fd = open(path, O_RDONLY);
	if (p.fd < 0)
		return 1;
	ret = poll(&p, 1, 2000);
	printf("poll=%d revents=0x%x\n", ret, p.revents);
	return 0;
}

static int read_nonblock(const char *path)
{
	char buf[64];
	long ret;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return 1;
	ret = read(fd, buf, sizeof(buf));
	printf("nonblock=%ld errno=%d\n", ret, ret < 0 ? errno : 0);
	return 0;
}

/* Write @cmd to @path, in one write(). */
static int leaky(const char *path, const char *cmd)
{
	int fd = open(path, O_WRONLY), ret;

	if (fd < 0)
		return -1;
	ret = write(fd, cmd, strlen(cmd)) == (ssize_t)strlen(cmd) ? 0 : -1;
	close(fd);
	return ret;
}

/* @n names, each allocating and freeing a widget. */
static int churn_names(const char *path, long n)
{
	char name[32];
	long i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "ctx%ld", i);
		prctl(PR_SET_NAME, name);
		if (leaky(path, "churn 1\n"))
			return -1;
	}
	printf("names=%ld\n", n);
	return 0;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	syscall(SYS_nanosleep, &ts, NULL);
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* Whether @pid is in nanosleep() now (/proc/PID/syscall's first number). */
static int in_nanosleep(pid_t pid)
{
	char path[64], buf[64] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 && atol(buf) == SYS_nanosleep;
}

static int long_and_short(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	int p[2], i, status = -1;
	pid_t child;
	char c = 0;

	if (pipe(p))
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		/* No SA_RESTART: the signal ends the sleep, which returns. */
		sigaction(SIGUSR1, &sa, NULL);
		pin(0);
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		sleep_ms(60000);
		_exit(0);
	}
	pin(1);
	if (read(p[0], &c, 1) != 1)
		return 1;
	/* poll(), not nanosleep(): the child's is the one in the trace. */
	for (i = 0; i < 60000 && !in_nanosleep(child); i++)
		poll(NULL, 0, 1);
	for (i = 0; i < 10; i++)
		getpid_raw();
	kill(child, SIGUSR1);
	waitpid(child, &status, 0);
	printf("overlap=%d\n", status);
	return 0;
}

static int x32_getpid(void)
{
	long ret = syscall(0x40000000 | SYS_getpid);

	printf("x32getpid=%ld errno=%d\n", ret, ret < 0 ? errno : 0);
	return 0;
}

static int int80_close(void)
{
#if defined(__x86_64__)
	long ret;

	/* int $0x80 from 64-bit code zeroes r8-r11 on its way back. */
	asm volatile ("int $0x80"
		      : "=a" (ret)
		      : "a" (6L), "b" (0xdeadbeef00000063UL)
		      : "memory", "r8", "r9", "r10", "r11");
	printf("int80close=%ld\n", ret);
	return 0;
#else
	return 2;
#endif
}

int main(int argc, char **argv)
{
	const char *fifo = NULL, *path = NULL, *mark = NULL, *ctl = NULL;
	long n = 0, len = -1, i, ret = 0, names = 0;
	int opt, fd, busy = 0, keep = 0;
	char buf[4096], line[16];
	FILE *f;

	while ((opt = getopt(argc, argv, "n:w:m:g:f:l:bP:N:oixW:c:K")) != -1) {
		switch (opt) {
		case 'x':
			return x32_getpid();
		case 'i':
			return int80_close();
		case 'P':
			return poll_file(optarg);
		case 'N':
			return read_nonblock(optarg);
		case 'o':
			return long_and_short();
		case 'n':
			prctl(PR_SET_NAME, optarg);
			break;
		case 'w':
			fifo = optarg;
			break;
		case 'm':
			mark = optarg;
			break;
		case 'g':
			n = atol(optarg);
			break;
		case 'f':
			path = optarg;
			break;
		case 'l':
			len = atol(optarg);
			break;
		case 'b':
			busy = 1;
			break;
		case 'W':
			ctl = optarg;
			break;
		case 'c':
			names = atol(optarg);
			break;
		case 'K':
			keep = 1;
			break;
		default:
			return 2;
		}
	}
	if (ctl && names && churn_names(ctl, names))
		return 1;
	if (ctl && keep) {
		if (leaky(ctl, "widgets 1\n"))
			return 1;
		printf("kept=1\n");
	}
	if (fifo) {
		printf("pid=%ld\n", getpid_raw());
		fflush(stdout);
		f = fopen(fifo, "r");
		if (!f || !fgets(line, sizeof(line), f))
			return 1;
		fclose(f);
	}
	if (mark) {
		ret = syscall(SYS_openat, AT_FDCWD, mark, O_RDONLY);
		printf("mark=%s openat=%ld\n", mark, ret);
	}
	for (i = 0; i < n; i++)
		ret = getpid_raw();
	if (n)
		printf("getpid=%ld calls=%ld\n", ret, n);
	if (path) {
		ret = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
		printf("openat=%ld errno=%d\n", ret, ret < 0 ? errno : 0);
	}
	if (len >= 0 && len <= (long)sizeof(buf)) {
		fd = open("/dev/null", O_WRONLY);
		memset(buf, 'k', sizeof(buf));
		printf("write=%ld\n", (long)write(fd, buf, len));
		close(fd);
	}
	if (busy)
		printf("busy\n");
	fflush(stdout);
	while (busy)
		getpid_raw();
	/* exit_group(), which does not return. */
	_exit(0);
}
