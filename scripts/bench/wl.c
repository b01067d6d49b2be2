// SPDX-License-Identifier: GPL-2.0
/*
 * wl: the workloads of make bench-peers (scripts/bench/peers.sh), built
 * static and run in the guest.  Each prints one line, "ns=N ops=M", N the
 * CLOCK_MONOTONIC nanoseconds of its loop: under QEMU's -icount shift=0 the
 * guest clock advances one nanosecond per guest instruction, so N counts
 * the instructions both vCPUs ran meanwhile (the workload's, and any
 * tracer's on either CPU).
 *
 *   wl files N [DIR]   N times: create DIR/wl.I (default DIR /tmp, a
 *                      tmpfs), write 64 bytes, fstat, close, stat, unlink
 *   wl leak N EVERY [DIR]  the file churn, but every EVERY-th file is
 *                      closed and kept (not unlinked): its inode, dentry
 *                      and their LSM and policy parts stay allocated, a
 *                      leak for the tracers to find; the files an earlier
 *                      run kept are removed first, before the clock starts
 *   wl getpid N        getpid() N times, as system calls
 *   wl seed            credit 256 bits of entropy to the kernel's pool
 *                      (RNDADDENTROPY): under -icount the jitter entropy
 *                      source finds none, the crng never initialises, and
 *                      Python's os.urandom() (bcc's tools) blocks forever
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/random.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The file churn: @n files in @dir; every @every-th kept (0: none). */
static int churn(const char *dir, long n, long every)
{
	char path[256], buf[64];
	struct stat st;
	long i;

	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/wl.%ld", dir, i);
		fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0) {
			perror(path);
			return 1;
		}
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			return 1;
		fstat(fd, &st);
		close(fd);
		stat(path, &st);
		if (!every || i % every)
			unlink(path);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long t0, t1;
	const char *dir = "/tmp";
	char path[256];
	long i, n, every = 0;
	int dirarg = 3;

	if (argc == 2 && !strcmp(argv[1], "seed")) {
		struct {
			struct rand_pool_info info;
			unsigned char bytes[32];
		} e = { .info = { .entropy_count = 256, .buf_size = 32 } };
		int fd = open("/dev/urandom", O_WRONLY);
		unsigned long long t = now();

		memcpy(e.bytes, &t, sizeof(t));
		if (fd < 0 || ioctl(fd, RNDADDENTROPY, &e) < 0) {
			perror("RNDADDENTROPY");
			return 1;
		}
		return 0;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: wl files N [DIR] | wl leak N EVERY [DIR] | wl getpid N\n");
		return 2;
	}
	n = atol(argv[2]);
	if (!strcmp(argv[1], "leak")) {
		if (argc < 4 || atol(argv[3]) < 1) {
			fprintf(stderr, "wl: leak N EVERY [DIR], EVERY >= 1\n");
			return 2;
		}
		every = atol(argv[3]);
		dirarg = 4;
	}
	if (argc > dirarg)
		dir = argv[dirarg];
	if (every)
		for (i = 0; i < n; i += every) {
			snprintf(path, sizeof(path), "%s/wl.%ld", dir, i);
			unlink(path);
		}
	if (!strcmp(argv[1], "files") || every) {
		t0 = now();
		if (churn(dir, n, every))
			return 1;
		t1 = now();
	} else if (!strcmp(argv[1], "getpid")) {
		t0 = now();
		for (i = 0; i < n; i++)
			syscall(SYS_getpid);
		t1 = now();
	} else {
		fprintf(stderr, "wl: unknown workload '%s'\n", argv[1]);
		return 2;
	}
	printf("ns=%llu ops=%ld\n", t1 - t0, n);
	return 0;
}
