// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace-record: record a kmemtrace or kptrace stream into a directory.
 *
 *   kmemtrace-record [-o DIR] [-b KB] [-c CACHE]... [-l] [-- COMMAND...]
 *   kmemtrace-record -s [-o DIR] [-b KB] [-c COMM | -p PID...] [-l]
 *                    [-- COMMAND...]
 *
 * Starts kmemtrace (every cache, or the -c ones), copies every CPU's
 * stream into DIR/ctf/cpuN as its packets close, and stops when COMMAND
 * exits or on SIGINT/SIGTERM; then drains the rest and adds DIR/ctf/metadata,
 * DIR/caches and DIR/kallsyms, so the trace reads on another machine
 * (babeltrace2 DIR; kmemtrace-report DIR).  Prints the events written and
 * lost.  -l reads nothing until COMMAND exits (a reader that falls behind:
 * the tests' way to make overruns).
 *
 * -s records kptrace's system calls instead ("syscall start ctf" on ctl,
 * the files of kptrace_ctf/): every process but the recorder, or the
 * tasks named COMM (-c), or the PIDs (-p, up to 16); -b is then "syscall
 * size" (KiB, whole pages).  The recorder holds kptrace_ctf/metadata open
 * from start to end: that makes it a kptrace reader, never traced.  DIR
 * default kptrace.trace; no caches or kallsyms.  Says "recording" once
 * the calls are recorded, and at the end also the events the packets
 * say were discarded (their events_discarded, summed over the CPUs).
 *
 * A packet is taken only once closed: the buffer is mapped, and the
 * packet at the next position must carry the expected sequence number
 * and a non-zero content_size; then read() of exactly that many bytes
 * copies it and frees the sub-buffer (see module/ctf.c).  poll() wakes
 * the loop when a sub-buffer is complete.  A static program: it runs in
 * the test VM's busybox system as on a Debian one.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../include/uapi/slabtrace/kmemtrace.h"
#include "../../include/uapi/slabtrace/kptrace.h"

#define ST_DIR "/sys/kernel/debug/slabtrace"
#define KMT_DIR ST_DIR "/kmemtrace"
#define KPT_DIR ST_DIR "/kptrace_ctf"
#define MAX_CPUS 1024

struct stream {
	int cpu;
	int fd;
	int out;
	const unsigned char *map;
	__u64 seq;		/* the next packet expected */
	__u64 discarded;	/* events_discarded of the last packet */
	__u64 bytes;
};

static struct stream streams[MAX_CPUS];
static int nstreams;
static size_t subbuf_size, map_size;
static unsigned char *copybuf;
/* The stream's directory, and its start and stop commands. */
static const char *dir = KMT_DIR;
static int syscalls;			/* -s */
/* Set by the handlers; the main loop reads them after each poll(). */
static sig_atomic_t stop_flag, child_done;

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "kmemtrace-record: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "%s%s\n", errno ? ": " : "", errno ? strerror(errno) : "");
	exit(1);
}

static __u64 le64(const unsigned char *p)
{
	__u64 v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

static long read_number(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/* Copy @src to @dst (both paths); 0 or -1. */
static int copy_file(const char *src, const char *dst)
{
	char buf[65536];
	int in, out;
	ssize_t n;

	in = open(src, O_RDONLY);
	if (in < 0)
		return -1;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			n = -1;
			break;
		}
	close(in);
	close(out);
	return n < 0 ? -1 : 0;
}

/* Take every closed packet of @s.  Return: the number taken. */
static int drain(struct stream *s)
{
	const unsigned char *hdr;
	__u64 content, *cp;
	size_t len, got;
	ssize_t n;
	int taken = 0;

	for (;;) {
		hdr = s->map + (s->seq % KMT_SUBBUFS) * subbuf_size;
		cp = (__u64 *)(hdr + offsetof(struct kmt_packet, content_size));
		content = __atomic_load_n(cp, __ATOMIC_ACQUIRE);
		if (le64((const unsigned char *)&content) == 0 ||
		    le64(hdr + offsetof(struct kmt_packet, packet_seq_num)) != s->seq)
			return taken;
		len = le64((const unsigned char *)&content) / 8;
		if (len < KMT_PACKET_SIZE || len > subbuf_size)
			die("cpu%s: corrupt packet size", "");
		s->discarded = le64(hdr + offsetof(struct kmt_packet,
						   events_discarded));
		for (got = 0; got < len; got += n) {
			n = read(s->fd, copybuf + got, len - got);
			if (n <= 0)
				die("read of a stream: %s", n ? "error" : "short");
		}
		if (write(s->out, copybuf, len) != (ssize_t)len)
			die("write of %s", "a stream file");
		s->bytes += len;
		s->seq++;
		taken++;
	}
}

static int drain_all(void)
{
	int i, taken = 0;

	for (i = 0; i < nstreams; i++)
		taken += drain(&streams[i]);
	return taken;
}

static void on_signal(int sig)
{
	if (sig == SIGCHLD)
		child_done = 1;
	else
		stop_flag = 1;
}

static void open_streams(const char *ctfdir)
{
	char path[2100];
	struct dirent *de;
	DIR *d;
	int cpu;

	d = opendir(dir);
	if (!d)
		die("%s", dir);
	while ((de = readdir(d)) && nstreams < MAX_CPUS) {
		struct stream *s = &streams[nstreams];
		char *end;

		if (strncmp(de->d_name, "cpu", 3))
			continue;
		cpu = strtol(de->d_name + 3, &end, 10);
		if (end == de->d_name + 3 || *end)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		s->cpu = cpu;
		s->fd = open(path, O_RDONLY);
		if (s->fd < 0)
			die("%s", path);
		s->map = mmap(NULL, map_size, PROT_READ, MAP_SHARED, s->fd, 0);
		if (s->map == MAP_FAILED)
			die("mmap %s", path);
		snprintf(path, sizeof(path), "%s/cpu%d", ctfdir, cpu);
		s->out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (s->out < 0)
			die("%s", path);
		nstreams++;
	}
	closedir(d);
	if (!nstreams)
		die("no stream files in %s", dir);
}

/* Events lost on @cpu per total_overruns; -1 if not listed. */
static long lost_on(int cpu)
{
	char line[128], want[32], path[256];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/total_overruns", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	snprintf(want, sizeof(want), "cpu%d %%ld", cpu);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, want, &n) == 1)
			break;
	fclose(f);
	return n;
}

/* Start the trace: kmemtrace's caches, or kptrace's filter. */
static int trace_start(const char *filter)
{
	char cmd[4200];

	if (!syscalls)
		return write_file(KMT_DIR "/enable", filter[0] ? filter : "1");
	snprintf(cmd, sizeof(cmd), "syscall start ctf%s%s",
		 filter[0] ? " " : "", filter);
	return write_file(ST_DIR "/ctl", cmd);
}

/* Stop it, or close the packets again if it stopped. */
static int trace_stop(void)
{
	return syscalls ? write_file(ST_DIR "/ctl", "syscall stop") :
			  write_file(KMT_DIR "/enable", "0");
}

/* Copy what the open file @in reads to @dst; 0 or -1. */
static int copy_fd(int in, const char *dst)
{
	char buf[65536];
	ssize_t n;
	int out;

	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			n = -1;
			break;
		}
	close(out);
	return n < 0 ? -1 : 0;
}

/*
 * Events lost while a buffer was full are counted in the next packet to
 * close; if none closed since, close one more (two flushes: the first
 * opens a packet where the reader made room, the second closes it).
 */
static void account_losses(void)
{
	int i, again = 0;

	for (i = 0; i < nstreams; i++)
		if (lost_on(streams[i].cpu) > (long)streams[i].discarded)
			again = 1;
	if (!again)
		return;
	trace_stop();
	trace_stop();
	drain_all();
}

static void bad_usage(void)
{
	fputs("usage: kmemtrace-record [-o DIR] [-b KB] [-c CACHE]... [-l]", stderr);
	fputs(" [-- COMMAND...]\n", stderr);
	fputs("       kmemtrace-record -s [-o DIR] [-b KB] [-c COMM | -p PID...]", stderr);
	fputs(" [-l] [-- COMMAND...]\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *outdir = NULL, *buffer_kb = NULL;
	char caches[4096] = "", pids[400] = "", path[4096], ctfdir[2048];
	char cmd[64];
	struct pollfd pfd[MAX_CPUS];
	struct timespec ms = { 0, 1000000 };
	int opt, lazy = 0, i, ready;
	pid_t child = 0;
	long kb, lost, written;
	struct sigaction sa;
	int meta = -1;

	while ((opt = getopt(argc, argv, "+o:b:c:p:ls")) != -1) {
		switch (opt) {
		case 'o':
			outdir = optarg;
			break;
		case 'b':
			buffer_kb = optarg;
			break;
		case 'c':
			if (strlen(caches) + strlen(optarg) + 2 > sizeof(caches))
				bad_usage();
			strcat(caches, caches[0] ? " " : "");
			strcat(caches, optarg);
			break;
		case 'p':
			if (strlen(pids) + strlen(optarg) + 6 > sizeof(pids) ||
			    strspn(optarg, "0123456789") != strlen(optarg))
				bad_usage();
			strcat(pids, pids[0] ? " " : "pid ");
			strcat(pids, optarg);
			break;
		case 'l':
			lazy = 1;
			break;
		case 's':
			syscalls = 1;
			dir = KPT_DIR;
			break;
		default:
			bad_usage();
		}
	}
	if (pids[0] && (!syscalls || caches[0]))
		bad_usage();
	if (syscalls && caches[0]) {
		if (strchr(caches, ' ') || strlen(caches) > 15)
			bad_usage();
		memmove(caches + 5, caches, strlen(caches) + 1);
		memcpy(caches, "comm ", 5);
	}
	if (pids[0])
		snprintf(caches, sizeof(caches), "%s", pids);
	if (!outdir)
		outdir = syscalls ? "kptrace.trace" : "kmemtrace.trace";
	snprintf(path, sizeof(path), "%s/abi_version", dir);
	if (read_number(path) != (syscalls ? KPT_CTF_ABI_VERSION : KMT_ABI_VERSION))
		die("%s: not ABI 1 (is slabtrace loaded?)", path);
	if (buffer_kb && syscalls) {
		snprintf(cmd, sizeof(cmd), "syscall size %.20sK", buffer_kb);
		if (write_file(ST_DIR "/ctl", cmd))
			die("cannot set the size to %s KiB", buffer_kb);
	} else if (buffer_kb && write_file(KMT_DIR "/buffer_kb", buffer_kb)) {
		die("cannot set buffer_kb to %s", buffer_kb);
	}
	snprintf(path, sizeof(path), "%s/buffer_kb", dir);
	kb = read_number(path);
	if (kb <= 0)
		die("%s", path);
	map_size = (size_t)kb * 1024;
	subbuf_size = map_size / KMT_SUBBUFS;
	copybuf = malloc(subbuf_size);
	if (strlen(outdir) > sizeof(ctfdir) - 8)
		bad_usage();
	snprintf(ctfdir, sizeof(ctfdir), "%s/ctf", outdir);
	if ((mkdir(outdir, 0755) && errno != EEXIST) ||
	    (mkdir(ctfdir, 0755) && errno != EEXIST))
		die("mkdir %s", ctfdir);
	errno = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);

	/* Held open from here on: kptrace does not trace its readers. */
	if (syscalls) {
		meta = open(KPT_DIR "/metadata", O_RDONLY);
		if (meta < 0)
			die("%s", KPT_DIR "/metadata");
	}
	if (trace_start(caches))
		die("cannot start (%s; see dmesg)", caches[0] ? caches : "every one");
	errno = 0;
	open_streams(ctfdir);
	if (syscalls) {
		/* The calls from here on are recorded. */
		printf("kmemtrace-record: recording\n");
		fflush(stdout);
	}

	if (optind < argc) {
		child = fork();
		if (child < 0)
			die("%s", "fork");
		if (!child) {
			signal(SIGINT, SIG_DFL);
			execvp(argv[optind], argv + optind);
			die("exec %s", argv[optind]);
		}
	}
	for (i = 0; i < nstreams; i++) {
		pfd[i].fd = streams[i].fd;
		pfd[i].events = POLLIN;
	}
	while (!stop_flag && !(child && child_done)) {
		if (lazy) {
			pause();
			continue;
		}
		ready = poll(pfd, nstreams, 200);
		if (ready > 0 && !drain_all())
			nanosleep(&ms, NULL);	/* a packet closing right now */
	}
	if (child && !child_done)
		kill(child, SIGTERM);
	if (child)
		waitpid(child, NULL, 0);

	/* Stop: every open packet closes; then take them all. */
	if (trace_stop())
		die("cannot stop the trace%s", "");
	errno = 0;
	drain_all();
	account_losses();

	snprintf(path, sizeof(path), "%s/metadata", ctfdir);
	if (syscalls ? copy_fd(meta, path) :
	    copy_file(KMT_DIR "/metadata", path))
		die("copy of %s", "metadata");
	if (!syscalls) {
		snprintf(path, sizeof(path), "%s/caches", outdir);
		if (copy_file(KMT_DIR "/caches", path))
			die("copy of %s", "caches");
		snprintf(path, sizeof(path), "%s/kallsyms", outdir);
		if (copy_file("/proc/kallsyms", path))
			die("copy of %s", "/proc/kallsyms");
	}
	snprintf(path, sizeof(path), "%s/overruns", outdir);
	snprintf(cmd, sizeof(cmd), "%s/total_overruns", dir);
	copy_file(cmd, path);
	errno = 0;

	snprintf(path, sizeof(path), "%s/events", dir);
	written = read_number(path);
	lost = read_number(cmd);
	printf("kmemtrace-record: %ld events written, %ld lost, into %s\n",
	       written, lost, outdir);
	if (syscalls) {
		__u64 discarded = 0;

		for (i = 0; i < nstreams; i++)
			discarded += streams[i].discarded;
		printf("kmemtrace-record: the packets say %llu discarded\n",
		       (unsigned long long)discarded);
	}
	for (i = 0; i < nstreams; i++) {
		long l = lost_on(streams[i].cpu);

		if (l > 0)
			printf("kmemtrace-record: cpu%d lost %ld events\n",
			       streams[i].cpu, l);
	}
	return 0;
}
