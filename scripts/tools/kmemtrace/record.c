// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace-record(8): record a kmemtrace or kptrace stream into a directory.
 *
 *   kmemtrace-record [-o DIR] [-b KB] [-c CACHE]... [--lazy] [-- COMMAND...]
 *   kmemtrace-record -s [-o DIR] [-b KB] [--comm COMM | -p PID...] [--lazy]
 *                    [-- COMMAND...]
 *
 * Starts kmemtrace (every cache, or the -c ones), copies every CPU's
 * stream into DIR/ctf/cpuN as its packets close, and stops when COMMAND
 * exits or on SIGINT/SIGTERM/SIGHUP; then drains the rest and adds
 * DIR/ctf/metadata, DIR/caches and DIR/kallsyms, so the trace reads on
 * another machine (babeltrace2 DIR; kmemtrace-report DIR).  Prints the
 * events written and lost, and when events were lost, what -b gives the
 * next recording; exits 3 if COMMAND failed (the trace saved
 * all the same), as slabtrace record does.  -l reads nothing until
 * COMMAND exits (a reader that falls behind: the tests' way to make
 * overruns).  -b sets the module's buffer_kb for this recording: the
 * value it had is set back at the end.  Without -b it is raised to 8 MiB
 * (DEFAULT_BUFFER_KB; -s: 16 MiB, DEFAULT_SYSCALL_KB) for the recording,
 * set back too; a larger one stays, and so does the one it has if the
 * module refuses the start for memory (a note says so).
 *
 * -s records kptrace's system calls instead ("syscall start ctf" on ctl,
 * the files of kptrace/ctf/): every process but the recorder, or the
 * tasks named COMM (-c), or the PIDs (-p, up to 16); -b is then "syscall
 * size" (KiB, whole pages), refused while kptrace's text queue holds
 * records not read yet (the size empties it), and set back too.  The
 * recorder holds kptrace/ctf/metadata open from start to end: that makes
 * it a kptrace reader, never traced.  DIR
 * default kptrace.trace; no caches or kallsyms.  Says "recording" once
 * the calls are recorded, and at the end also the events the packets
 * say were discarded (their events_discarded, summed over the CPUs).
 *
 * The recorder owns the trace it starts, and only that one: it refuses to
 * start while another trace runs, and stops only its own.  Each start
 * makes a new trace with a new UUID, which every packet carries.  The
 * recorder reads the UUID from the metadata right after its start, and
 * checks it in every packet it takes and in the metadata again at the end:
 * a trace stopped and started again by another process meanwhile (whose
 * packets went to buffers this recorder does not hold, and whose metadata
 * would not describe the packets it did read) is an error, and nothing is
 * saved.  A trace stopped by another process is kept, and also an error:
 * the recording is cut short.  Any other error while it records (a write
 * that fails) stops the trace too, ends COMMAND, and saves nothing.
 *
 * A packet is taken only once closed: the buffer is mapped, and the
 * packet at the next position must carry the expected sequence number
 * and a non-zero content_size; then exactly that many bytes are copied
 * from the mapping to the file, and the packet is given back to the
 * module with SLABTRACE_CTF_IOC_PUT_PACKETS (see module/ctf.c).  A packet with a
 * later sequence number there means packets were lost: an error too.
 * poll() wakes the loop when a sub-buffer is complete.
 *
 * The files are found under the root stfiles.c picks (/proc/slabtrace,
 * else /sys/kernel/debug/slabtrace).  A static program: it runs in the
 * test VM's busybox system as on a Debian one.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../../include/uapi/slabtrace/kmemtrace.h"
#include "../../../include/uapi/slabtrace/kptrace.h"
#include "../lib/stfiles.h"

static const char help[] =
	"usage: kmemtrace-record [-o DIR] [-b KB] [-c CACHE]... [--lazy] [-- COMMAND [ARG...]]\n"
	"       kmemtrace-record -s [-o DIR] [-b KB] [--comm COMM | -p PID...] [--lazy]\n"
	"                        [-- COMMAND [ARG...]]\n"
	"\n"
	"Record kmemtrace's stream (every slab allocation and free) or, with -s,\n"
	"kptrace's (every system call) into DIR, a CTF trace, until COMMAND exits\n"
	"or a signal (INT, TERM, HUP) comes; then say how many events were\n"
	"written and lost (and, if some were, what -b gives the next one).\n"
	"\n"
	"  -o, --output DIR   where to write (kmemtrace.trace; -s: kptrace.trace)\n"
	"  -b, --buffer KB    KiB of buffer per CPU for this recording (16 to 65536,\n"
	"                     a multiple of 8; -s: the system call queue's size,\n"
	"                     whole pages); set back after.  Without: 8192 (-s:\n"
	"                     16384), or the size set if larger, or the size set\n"
	"                     if the start would leave too little memory\n"
	"  -c, --cache CACHE  record this cache only; again for more (at most 16)\n"
	"  -s, --syscalls     record kptrace's system calls, not kmemtrace\n"
	"      --comm COMM    -s: record the tasks named COMM only (-c COMM too)\n"
	"  -p, --pid PID      -s: record this process only; again, or PID,PID, for\n"
	"                     more (at most 16)\n"
	"      --lazy         read nothing until COMMAND exits (a reader that falls\n"
	"                     behind)\n"
	"  -h, --help         this help\n"
	"  -V, --version      the version\n"
	"\n"
	"It starts its own trace and stops only that one; another process's\n"
	"stop, or stop and start, while it records is an error (exit 1).  If\n"
	"COMMAND fails, the trace is saved and the exit status is 3.\n";

struct stream {
	int cpu;
	int fd;
	int out;
	const unsigned char *map;
	__u64 seq;		/* the next packet expected */
	__u64 discarded;	/* events_discarded of the last packet */
	__u64 bytes;
	int put;		/* the module gives packets back by ioctl */
};

/* One per cpuN file that has a buffer: as many as the module lists. */
static struct stream *streams;
static int nstreams;
/* The limit of open files, for COMMAND, if raised for the streams. */
static struct rlimit nofile;
static int nofile_raised;
static size_t subbuf_size, map_size;
static unsigned char *copybuf;		/* a packet, where read() takes it */
/* The stream's directory under the root: kmemtrace, or kptrace/ctf (-s). */
static const char *sub = "kmemtrace";
static int syscalls;			/* -s */
static int meta = -1;			/* -s: kptrace/ctf/metadata, held open */
/*
 * The stream's abi_version, held open from the first check to the end: an
 * open file of the module pins it, so rmmod is refused while this records,
 * from before its trace starts (not only once the cpuN files are open).
 */
static int pin = -1;
/* The UUID of the trace this recorder started; whether it started one. */
static unsigned char uuid0[16];
static int started;
/* Why the packets read do not make one trace; "" while they do. */
static char broken[256];
/* Set by the handlers; the main loop reads them after each poll(). */
static atomic_int stop_flag, child_done;

static __u64 le64(const unsigned char *p)
{
	__u64 v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The path of the stream's file @file into @buf. */
static void stream_path(char *buf, size_t size, const char *file)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "%s/%s", sub, file);
	st_path(buf, size, rel);
}

/* Write "@s\n" to @path: 0, or -errno (the module's reason via kmsg). */
static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC), err = 0;
	char line[4200];
	ssize_t n;

	if (fd < 0)
		return -errno;
	snprintf(line, sizeof(line), "%s\n", s);
	kmsg_mark();
	n = write(fd, line, strlen(line));
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

static long read_number(const char *path)
{
	char *text = read_all(path);
	long n;

	if (!text)
		return -1;
	n = *text ? strtol(text, NULL, 10) : -1;
	free(text);
	return n;
}

/*
 * Copy @src to @dst (both paths): 0; -1 if @src cannot be read, -2 if
 * @dst cannot be written, with errno set to why.
 */
static int copy_file(const char *src, const char *dst)
{
	char *text = read_all(src);
	int ret = 0, e = 0;
	FILE *f;

	if (!text)
		return -1;
	f = out_fopen(dst);
	if (!f || fputs(text, f) < 0) {
		e = errno;
		ret = -2;
	}
	if (f && fclose(f) && !ret) {
		e = errno;
		ret = -2;
	}
	if (f)
		out_give(dst);
	free(text);
	errno = e;
	return ret;
}

static noreturn void fail(const char *fmt, ...);

/* copy_file(), or fail() saying which file failed and why. */
static void copy_or_fail(const char *src, const char *dst)
{
	int ret = copy_file(src, dst);

	if (ret)
		fail("cannot %s %s: %s", ret == -1 ? "read" : "write",
		     ret == -1 ? src : dst, strerror(errno));
}

/* --- the trace: start, stop, whose it is --- */

/* The metadata of the stream now: its text, or NULL (no stream). */
static char *metadata_now(void)
{
	char path[PATH_MAX];

	if (syscalls) {
		/* Held open: read again from the start, made anew. */
		if (lseek(meta, 0, SEEK_SET) < 0)
			return NULL;
		return read_fd(meta);
	}
	stream_path(path, sizeof(path), "metadata");
	return read_all(path);
}

/* The trace's UUID in the metadata @text (trace { uuid = "..." }). */
static int metadata_uuid(const char *text, unsigned char uuid[16])
{
	const char *p = text ? strstr(text, "trace {") : NULL;
	int i, n;

	p = p ? strstr(p, "uuid = \"") : NULL;
	if (!p)
		return -1;
	p += 8;
	for (i = 0; i < 16; i++) {
		if (*p == '-')
			p++;
		if (sscanf(p, "%2hhx%n", &uuid[i], &n) != 1 || n != 2)
			return -1;
		p += 2;
	}
	return 0;
}

static void uuid_text(const unsigned char *u, char *buf)
{
	sprintf(buf, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* Whether the stream's metadata now is the started trace's; its UUID in @now. */
static int same_trace(unsigned char now[16])
{
	char *text = metadata_now();
	int same;

	memset(now, 0, 16);
	same = !metadata_uuid(text, now) && !memcmp(now, uuid0, 16);
	free(text);
	return same;
}

/* Whether kptrace traces (its line of the status file), for -s. */
static int kptrace_tracing(void)
{
	char path[PATH_MAX], *text;
	int on;

	st_path(path, sizeof(path), "status");
	text = read_all(path);
	on = text && strstr(text, "\nkptrace: tracing");
	free(text);
	return on;
}

/* Whether a trace runs: kmemtrace's enable says 1 (its last line), or kptrace's status. */
static int trace_running(void)
{
	char path[PATH_MAX], *text, *last;
	size_t len;
	int on;

	if (syscalls)
		return kptrace_tracing();
	stream_path(path, sizeof(path), "enable");
	text = read_all(path);
	if (!text)
		return 0;
	len = strlen(text);
	while (len && text[len - 1] == '\n')
		text[--len] = 0;
	last = strrchr(text, '\n');
	on = (last ? last[1] : text[0]) == '1';
	free(text);
	return on;
}

/* Start the trace: kmemtrace's caches, or kptrace's filter; 0 or -errno. */
static int trace_start(const char *filter)
{
	char path[PATH_MAX], cmd[4200];

	if (!syscalls) {
		stream_path(path, sizeof(path), "enable");
		return write_file(path, filter[0] ? filter : "1");
	}
	snprintf(cmd, sizeof(cmd), "syscall start ctf%s%s",
		 filter[0] ? " " : "", filter);
	st_path(path, sizeof(path), "ctl");
	return write_file(path, cmd);
}

/* Stop it, or close the packets again if it stopped; 0 or -errno. */
static int trace_stop(void)
{
	char path[PATH_MAX];

	if (syscalls) {
		st_path(path, sizeof(path), "ctl");
		return write_file(path, "syscall stop");
	}
	stream_path(path, sizeof(path), "enable");
	return write_file(path, "0");
}

/* On an error: the trace stops if it is the one started here, still running. */
static void stop_if_ours(void)
{
	unsigned char now[16];

	if (started && same_trace(now) && trace_running())
		trace_stop();
	started = 0;
}

/* COMMAND while it runs (its name), for fail() to end it. */
static pid_t child;
static const char *command;
/* DIR and DIR/ctf, once the streams are written there. */
static const char *out_path, *ctf_path;

static void remove_streams(const char *outdir, const char *ctfdir);

/*
 * COMMAND ends with a recording that failed, as with a signal: SIGTERM
 * (and SIGCONT, for one stopped), SIGKILL if it is still there 5 s on.
 */
static void end_command(void)
{
	int i, status;

	kill(child, SIGTERM);
	kill(child, SIGCONT);
	for (i = 0; i < 50 && waitpid(child, &status, WNOHANG) == 0; i++)
		poll(NULL, 0, 100);
	if (i == 50) {
		kill(child, SIGKILL);
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
	}
	child = 0;
}

/*
 * An error: the message first (its strerror(errno) is the error's, not
 * that of the clean-up's I/O), then the trace stops if it is ours, a
 * COMMAND that runs ends, and the streams written go (without their
 * metadata they are no trace); said, and exit 1.
 */
static noreturn void fail(const char *fmt, ...)
{
	char msg[1024], ended[300] = "";
	int written = nstreams > 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	stop_if_ours();
	if (child > 0) {
		end_command();
		snprintf(ended, sizeof(ended), "; %s was ended", command);
	}
	if (written)
		remove_streams(out_path, ctf_path);
	die("%s%s%s", msg, written ? ": nothing saved" : "", ended);
}

/* --- the streams --- */

/*
 * The packet due at @s's position @seq: its length in bytes once closed,
 * 0 while open (or not yet written), -1 if the packets are not one
 * trace's (why in broken).
 */
static long packet_ready(struct stream *s, __u64 seq)
{
	const unsigned char *hdr = s->map + (seq % KMEMTRACE_SUBBUFS) * subbuf_size;
	__u64 content, *cp, *sp, got;
	size_t len;

	/* The number first, then the size (include/uapi/slabtrace/ctf.h). */
	sp = (__u64 *)(hdr + offsetof(struct kmt_packet, packet_seq_num));
	got = __atomic_load_n(sp, __ATOMIC_ACQUIRE);
	got = le64((const unsigned char *)&got);
	if (got < seq)
		return 0;
	if (got > seq) {
		snprintf(broken, sizeof(broken),
			 "cpu%d: packet %llu where %llu was due: packets lost",
			 s->cpu, (unsigned long long)got, (unsigned long long)seq);
		return -1;
	}
	cp = (__u64 *)(hdr + offsetof(struct kmt_packet, content_size));
	content = __atomic_load_n(cp, __ATOMIC_ACQUIRE);
	if (le64((const unsigned char *)&content) == 0)
		return 0;
	if (memcmp(hdr + offsetof(struct kmt_packet, uuid), uuid0, 16)) {
		char a[40], b[40];

		uuid_text(uuid0, a);
		uuid_text(hdr + offsetof(struct kmt_packet, uuid), b);
		snprintf(broken, sizeof(broken),
			 "cpu%d: packet %llu is of trace %s, not %s (restarted by another process)",
			 s->cpu, (unsigned long long)seq, b, a);
		return -1;
	}
	len = le64((const unsigned char *)&content) / 8;
	if (len < KMEMTRACE_PACKET_SIZE || len > subbuf_size)
		fail("cpu%d: corrupt packet size %zu", s->cpu, len);
	return len;
}

/* @len bytes at @p to @s's file; fails on an error. */
static void write_all(struct stream *s, const unsigned char *p, size_t len)
{
	ssize_t n;

	for (; len; p += n, len -= n) {
		n = write(s->out, p, len);
		if (n <= 0)
			fail("cpu%d: write: %s", s->cpu, n ? strerror(errno) : "short");
	}
}

/* @len bytes of @s's buffer into @p, which read() frees in relay. */
static void read_packet(struct stream *s, unsigned char *p, size_t len)
{
	ssize_t n;

	for (; len; p += n, len -= n) {
		n = read(s->fd, p, len);
		if (n <= 0)
			fail("cpu%d: read: %s", s->cpu, n ? strerror(errno) : "short");
	}
}

/*
 * Take every closed packet of @s, in batches: all those closed when it
 * looks (a whole buffer at most), copied from the mapping to the file,
 * then given back with one SLABTRACE_CTF_IOC_PUT_PACKETS.  The events are
 * copied once, not twice as through read(), which takes them from a
 * module without the ioctl.  Return: the number taken;
 * -1 if the packets are not one trace's (why in broken).
 */
static int drain(struct stream *s)
{
	const unsigned char *hdr;
	int k, taken = 0;
	long size;

	while (!broken[0]) {
		for (k = 0; k < KMEMTRACE_SUBBUFS; k++) {
			size = packet_ready(s, s->seq + k);
			if (size < 0)
				return -1;
			if (!size)
				break;
			hdr = s->map + ((s->seq + k) % KMEMTRACE_SUBBUFS) * subbuf_size;
			s->discarded = le64(hdr + offsetof(struct kmt_packet,
							   events_discarded));
			if (!s->put) {
				read_packet(s, copybuf, size);
				hdr = copybuf;
			}
			write_all(s, hdr, size);
			s->bytes += size;
		}
		if (!k)
			return taken;
		if (s->put && ioctl(s->fd, SLABTRACE_CTF_IOC_PUT_PACKETS, (unsigned long)k))
			fail("cpu%d: giving back %d packets: %s", s->cpu, k,
			     strerror(errno));
		s->seq += k;
		taken += k;
	}
	return -1;
}

static int drain_all(void)
{
	int i, taken = 0;

	for (i = 0; i < nstreams; i++) {
		int n = drain(&streams[i]);

		if (n < 0)
			return -1;
		taken += n;
	}
	return taken;
}

/*
 * One wait of the recording: for a packet (@timeout ms at most), then
 * drained; with -l (@lazy), or once the trace is not this recorder's,
 * only a wait.  A buffer that reports an error (POLLERR: the trace
 * restarted by another process) waits 100 ms, not one: finish() says why.
 */
static void wait_and_drain(struct pollfd *pfd, int timeout, int lazy)
{
	struct timespec ms = { 0, 1000000 };
	int i, ready;

	if (lazy || broken[0]) {
		/* Not pause(): the signal may have come since the test. */
		poll(NULL, 0, 100);
		return;
	}
	ready = poll(pfd, nstreams, timeout);
	if (ready <= 0 || drain_all())
		return;
	for (i = 0; i < nstreams; i++)
		if (pfd[i].revents & (POLLERR | POLLHUP | POLLNVAL))
			ms.tv_nsec = 100000000;
	nanosleep(&ms, NULL);	/* a packet closing right now */
}

/* stop_flag counts the signals: a second one kills COMMAND. */
static void on_signal(int sig)
{
	if (sig == SIGCHLD)
		child_done = 1;
	else
		stop_flag++;
}

/* N of a file "cpuN", or -1 for any other name. */
static int cpu_of(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "cpu", 3))
		return -1;
	n = strtol(name + 3, &end, 10);
	return end == name + 3 || *end || n < 0 || n > INT_MAX ? -1 : (int)n;
}

/*
 * An earlier recording in @ctfdir goes: a CPU of its that is offline now
 * would leave its stream, of another trace, beside this one's metadata.
 * Only the recorder's own files (cpuN, metadata).
 */
static void clear_old(const char *ctfdir)
{
	struct dirent *de;
	DIR *d;

	d = opendir(ctfdir);
	if (!d)
		fail("%s: %s", ctfdir, strerror(errno));
	while ((de = readdir(d))) {
		if (cpu_of(de->d_name) < 0 && strcmp(de->d_name, "metadata"))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) && errno != ENOENT)
			fail("%s/%s: %s", ctfdir, de->d_name, strerror(errno));
	}
	closedir(d);
}

/*
 * Each stream holds two files open: with more CPUs than the limit of open
 * files allows (1024 by default, 512 CPUs), the soft limit is raised, up
 * to the hard one, for the recorder (COMMAND gets the one it had).
 */
static void room_for_streams(DIR *d)
{
	struct dirent *de;
	struct rlimit rl;
	rlim_t want = 32;

	while ((de = readdir(d)))
		if (cpu_of(de->d_name) >= 0)
			want += 2;
	rewinddir(d);
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= want)
		return;
	nofile = rl;
	rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
	nofile_raised = !setrlimit(RLIMIT_NOFILE, &rl);
}

static void open_streams(const char *ctfdir)
{
	char dir[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *de;
	int cpu, size = 0;
	DIR *d;

	stream_path(dir, sizeof(dir), "");
	d = opendir(dir);
	if (!d)
		fail("%s: %s", dir, strerror(errno));
	room_for_streams(d);
	while ((de = readdir(d))) {
		struct stream *s;

		cpu = cpu_of(de->d_name);
		if (cpu < 0)
			continue;
		if (nstreams == size) {
			size = size ? 2 * size : 64;
			streams = xrealloc(streams, size * sizeof(*streams));
		}
		s = &streams[nstreams];
		memset(s, 0, sizeof(*s));
		snprintf(path, sizeof(path), "%s%s", dir, de->d_name);
		s->cpu = cpu;
		s->fd = open(path, O_RDONLY | O_CLOEXEC);
		/* A possible CPU that was offline at the start has no buffer. */
		if (s->fd < 0 && errno == ENODATA)
			continue;
		if (s->fd < 0)
			fail("%s: %s", path, strerror(errno));
		/*
		 * Every page mapped now, not at its first copy while the
		 * workload runs: 664 instructions a call instead of 670-673
		 * (16 MiB a CPU, 1,000,000 getpid(), benchmarks.rst part 2).
		 */
		s->map = mmap(NULL, map_size, PROT_READ, MAP_SHARED | MAP_POPULATE,
			      s->fd, 0);
		if (s->map == MAP_FAILED)
			fail("mmap %s: %s", path, strerror(errno));
		/* Else (an older module, a plain file) read() takes them. */
		s->put = !ioctl(s->fd, SLABTRACE_CTF_IOC_PUT_PACKETS, 0UL);
		snprintf(path, sizeof(path), "%s/cpu%d", ctfdir, cpu);
		s->out = out_open(path);
		if (s->out < 0)
			fail("%s: %s", path, strerror(errno));
		out_give(path);
		nstreams++;
	}
	closedir(d);
	if (!nstreams)
		fail("no stream files in %s", dir);
}

/* What was written goes: it is no trace. */
static void remove_streams(const char *outdir, const char *ctfdir)
{
	static const char *const files[] = { "caches", "kallsyms", "overruns" };
	char path[PATH_MAX + 300];
	int i;

	for (i = 0; i < nstreams; i++) {
		snprintf(path, sizeof(path), "%s/cpu%d", ctfdir, streams[i].cpu);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/metadata", ctfdir);
	unlink(path);
	for (i = 0; i < (int)ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", outdir, files[i]);
		unlink(path);
	}
	rmdir(ctfdir);
	rmdir(outdir);
}

/* Events lost on @cpu per total_overruns (-1: in NMI); -1 if not listed. */
static long lost_on(int cpu)
{
	char line[128], path[PATH_MAX];
	long n = -1, got;
	FILE *f;
	int c;

	stream_path(path, sizeof(path), "total_overruns");
	f = fopen(path, "r");
	if (!f)
		return -1;
	/* "cpu12 5" is no line of cpu1's; cpu -1: the "nmi" line. */
	while (fgets(line, sizeof(line), f))
		if (cpu < 0 ? sscanf(line, "nmi %ld", &got) == 1 :
		    sscanf(line, "cpu%d %ld", &c, &got) == 2 && c == cpu) {
			n = got;
			break;
		}
	fclose(f);
	return n;
}

/*
 * Events lost while a buffer was full are counted in the next packet to
 * close; if none closed since, close one more (two flushes: the first
 * opens a packet where the reader made room, the second closes it), while
 * the stream is still this recorder's.
 */
static void account_losses(void)
{
	unsigned char now[16];
	int i, again = 0;

	for (i = 0; i < nstreams; i++)
		if (lost_on(streams[i].cpu) > (long)streams[i].discarded)
			again = 1;
	for (i = 0; again && i < 2; i++)
		if (same_trace(now) && !trace_running())
			trace_stop();
	if (again)
		drain_all();
}

static noreturn void bad_usage(const char *fmt, const char *arg)
{
	char msg[300];

	snprintf(msg, sizeof(msg), fmt, arg);
	usage_error("kmemtrace-record --help", "%s", msg);
}

/* -p PID[,PID...]: appended to the filter @pids ("pid 5 6"), at most 16. */
static void pid_arg(char *pids, size_t size, char *arg)
{
	char *p, *save = NULL;
	int n = 0;

	for (p = pids; (p = strchr(p, ' ')); p++)
		n++;
	for (p = strtok_r(arg, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (!p[0] || strspn(p, "0123456789") != strlen(p) || strlen(p) > 9)
			bad_usage("-p takes process IDs (PID or PID,PID...), not '%s'", p);
		if (n++ == 16 || strlen(pids) + strlen(p) + 6 > size)
			bad_usage("-p: at most 16 processes (%s)", p);
		strcat(pids, pids[0] ? " " : "pid ");
		strcat(pids, p);
	}
}

/* Why the start failed, said as the slabtrace command says it. */
static noreturn void start_failed(int err, const char *filter)
{
	char reason[1024], path[PATH_MAX], *text;

	if (err == -EBUSY && !syscalls) {
		stream_path(path, sizeof(path), "enable");
		text = read_all(path);
		if (text)
			text[strcspn(text, "\n")] = 0;
		die("kmemtrace is running already, another process's trace (%s: %s): stop it first",
		    path, text ? text : "?");
	}
	reason_of(-err, reason, sizeof(reason));
	die("cannot start (%s): %s", filter[0] ? filter : "everything", reason);
}

/*
 * What -b changed, set back at the end (at exit, on an error too): the
 * file and what it held.  The buffer is the module's, for whoever starts
 * the next trace: -b is for this recording only.
 */
static char restore_path[PATH_MAX], restore_value[64];
static long restore_kb;		/* what restore_value sets, in KiB per CPU */

static void restore_buffer(void)
{
	char reason[1024];
	int err;

	if (!restore_path[0])
		return;
	err = write_file(restore_path, restore_value);
	if (err) {
		reason_of(-err, reason, sizeof(reason));
		note("could not set the buffer back (%s: %s): %s", restore_path,
		     restore_value, reason);
	}
	restore_path[0] = 0;
}

/* A "key: N" line of @text (kptrace/stats), or -1. */
static long stats_number(const char *text, const char *key)
{
	const char *p = text ? strstr(text, key) : NULL;

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/*
 * Without -b: at least this much buffer per CPU (KiB).  kmemtrace's churn
 * of make bench-peers' part 3, at 176 instructions an event, filled the
 * 1 MiB of the module's default before the recorder came in one run of 5;
 * with 8 MiB none of 45 runs lost an event.  One CPU making system calls
 * back to back (part 2's getpid() loop) fills 8 MiB of kptrace events
 * (about 85,000 calls) in 86-94 M instructions, and in the 6.12 VM the
 * recorder sometimes ran only 80-120 M after a packet closed (the
 * emulator's 100 ms between its CPUs): 8 MiB lost calls in 1 or 2 runs of
 * 5 at 1,000,000 calls, 16 MiB in none of 45 (Documentation/benchmarks.rst).
 */
#define DEFAULT_BUFFER_KB	"8192"
#define DEFAULT_SYSCALL_KB	"16384"

/* What the stream recorded takes without -b. */
static const char *default_kb(void)
{
	return syscalls ? DEFAULT_SYSCALL_KB : DEFAULT_BUFFER_KB;
}

/*
 * Write @value to @path for a buffer of @kb KiB per CPU (-b, or
 * default_kb() with @dflt); @old, what to write to set it back (to
 * @cur_kb KiB), is kept for the end.  A refusal ends -b with the
 * module's reason; the default keeps the buffer of @cur_kb KiB, with a
 * note, and the recording starts all the same.
 */
static void change_buffer(const char *path, const char *value,
			  const char *old, const char *kb, long cur_kb, int dflt)
{
	char reason[1024];
	int err = write_file(path, value);

	if (err) {
		reason_of(-err, reason, sizeof(reason));
		if (!dflt)
			die("cannot set the buffer to %s KiB: %s", kb, reason);
		note("keeping the buffer of %ld KiB per CPU (%s KiB: %s)",
		     cur_kb, kb, reason);
		return;
	}
	snprintf(restore_path, sizeof(restore_path), "%s", path);
	snprintf(restore_value, sizeof(restore_value), "%s", old);
	restore_kb = cur_kb;
}

/*
 * -b with -s: "syscall size", which also empties kptrace's text queue:
 * refused while the queue holds records not read yet.  The size it had,
 * in bytes, is what is set back (@cur_kb KiB, the stream's buffer_kb,
 * which is in whole pages).  With @dflt (no -b: DEFAULT_SYSCALL_KB),
 * a size that is as large already stays, and so does a size the queue
 * does not let go: the recording starts all the same.  The module
 * allocates the buffers at the start, not here: a start refused for
 * memory sets the size it had back (keep_old_buffer()).
 */
static void set_syscall_size(const char *buffer_kb, int dflt, long cur_kb)
{
	char path[PATH_MAX], cmd[64], old[64], *stats;
	long queued, size, want = strtol(buffer_kb, NULL, 10) * 1024;

	st_path(path, sizeof(path), "kptrace/stats");
	stats = read_all(path);
	size = stats_number(stats, "queue size: ");
	queued = stats_number(stats, "queued: ");
	free(stats);
	if (size <= 0)
		die("%s: no queue size (a module of another version?)", path);
	if (size == want || (dflt && (size > want || queued > 0)))
		return;
	if (queued > 0)
		die("-b would empty kptrace's queue, which holds %ld bytes of %s (%s%s)",
		    queued, "records not read yet", st_root(),
		    "/kptrace/queue reads them, 'syscall clear' drops them");
	snprintf(cmd, sizeof(cmd), "syscall size %.20sK", buffer_kb);
	snprintf(old, sizeof(old), "syscall size %ld", size);
	st_path(path, sizeof(path), "ctl");
	change_buffer(path, cmd, old, buffer_kb, cur_kb, dflt);
}

/*
 * kmemtrace's buffer_kb (@path, @kb KiB now): -b's exactly; without,
 * DEFAULT_BUFFER_KB unless it is as large already.  The module allocates
 * the buffers at the start, not here: a start refused for memory sets the
 * size it had back (keep_old_buffer()).
 */
static void set_kmemtrace_size(const char *path, long kb, const char *buffer_kb)
{
	const char *want = buffer_kb ? buffer_kb : DEFAULT_BUFFER_KB;
	char old[32];

	snprintf(old, sizeof(old), "%ld", kb);
	if (buffer_kb ? kb != strtol(buffer_kb, NULL, 10) :
			kb < strtol(DEFAULT_BUFFER_KB, NULL, 10))
		change_buffer(path, want, old, want, kb, !buffer_kb);
}

/* The stream's buffer_kb now; its path into @path (PATH_MAX). */
static long buffer_kb_now(char *path)
{
	char *text, *end;
	long kb;

	stream_path(path, PATH_MAX, "buffer_kb");
	text = read_all(path);
	if (!text)
		die("%s: %s", path, strerror(errno));
	kb = strtol(text, &end, 10);
	if (end == text || (*end && *end != '\n') || kb <= 0)
		die("%s: no buffer size in KiB ('%.*s')", path,
		    (int)strcspn(text, "\n") < 40 ? (int)strcspn(text, "\n") : 40, text);
	free(text);
	return kb;
}

/* map_size and co. from the stream's buffer_kb now. */
static void size_buffers(void)
{
	char path[PATH_MAX];

	map_size = (size_t)buffer_kb_now(path) * 1024;
	subbuf_size = map_size / KMEMTRACE_SUBBUFS;
	free(copybuf);
	copybuf = xmalloc(subbuf_size);
}

/* -b: the buffer's size (syscall size with -s); then map_size and co. */
static void set_buffer(const char *buffer_kb)
{
	char path[PATH_MAX];
	long kb = buffer_kb_now(path);

	if (syscalls)
		set_syscall_size(buffer_kb ? buffer_kb : DEFAULT_SYSCALL_KB,
				 !buffer_kb, kb);
	else
		set_kmemtrace_size(path, kb, buffer_kb);
	atexit(restore_buffer);
	size_buffers();
}

/*
 * The start refused (@err) for memory, the default size set here (@dflt):
 * the size it had is set back, with a note, for one more try.  Whether it
 * was.
 */
static int keep_old_buffer(int err, int dflt)
{
	char reason[1024];

	if (err != -ENOMEM || !dflt || !restore_path[0])
		return 0;
	reason_of(-err, reason, sizeof(reason));
	note("keeping the buffer of %ld KiB per CPU (%s KiB: %s)", restore_kb,
	     default_kb(), reason);
	restore_buffer();
	size_buffers();
	return 1;
}

/*
 * Events were lost: a CPU filled its buffer before the recorder took the
 * packets (a wake-up that came late, or a CPU making events faster than
 * the recorder copies them).  Say what -b gives the next recording: twice
 * the buffer, up to the most the stream takes.
 */
static void hint_buffer(void)
{
	size_t kb = map_size / 1024, more = 2 * kb;
	size_t most = syscalls ? KPTRACE_SIZE_KB_MAX : KMEMTRACE_BUFFER_KB_MAX;

	if (more > most)
		more = most;
	printf("kmemtrace-record: a CPU filled its %zu KiB of buffer", kb);
	if (more > kb)
		printf(" before the packets were read: -b %zu gives it more\n", more);
	else
		printf(", -b's most, before the packets were read\n");
}

/*
 * The end: stop the trace if it is still ours, take the last packets, and
 * save the metadata and the rest if the packets make one trace with it;
 * else remove what was written.  The exit status.
 */
static int finish(const char *outdir, const char *ctfdir)
{
	static const unsigned char none[16];
	char path[PATH_MAX + 300], src[PATH_MAX], *text, a[40], b[40];
	int i, err, stopped_by_other = 0;
	unsigned char now[16];
	long lost, written, nmi;
	__u64 discarded = 0;
	FILE *f;

	/* Stop, if the trace is still ours: every open packet closes. */
	if (same_trace(now)) {
		if (trace_running()) {
			err = trace_stop();
			if (err)
				fail("cannot stop the trace: %s", strerror(-err));
		} else {
			stopped_by_other = 1;
		}
		if (!broken[0] && drain_all() >= 0)
			account_losses();
	} else if (!broken[0] && !memcmp(now, none, 16)) {
		snprintf(broken, sizeof(broken), "the trace is gone (slabtrace unloaded?)");
	} else if (!broken[0]) {
		uuid_text(uuid0, a);
		uuid_text(now, b);
		snprintf(broken, sizeof(broken),
			 "the trace was restarted by another process (trace %s, now %s)", a, b);
	}
	started = 0;

	snprintf(path, sizeof(path), "%s/metadata", ctfdir);
	text = broken[0] ? NULL : metadata_now();
	if (!broken[0] && (metadata_uuid(text, now) || memcmp(now, uuid0, 16)))
		snprintf(broken, sizeof(broken), "%s",
			 "the trace was restarted by another process at its end");
	if (broken[0]) {
		remove_streams(outdir, ctfdir);
		die("%s: nothing saved", broken);
	}
	/*
	 * Where a write's error is known only at close (NFS, quotas), and
	 * the last writes, the likeliest to meet a full disk: fail() removes
	 * what was written, as for an error while recording.
	 */
	for (i = 0; i < nstreams; i++)
		if (close(streams[i].out))
			fail("%s/cpu%d: %s", ctfdir, streams[i].cpu, strerror(errno));
	f = out_fopen(path);
	if (!f || fputs(text, f) < 0 || fclose(f))
		fail("%s: %s", path, strerror(errno));
	out_give(path);
	free(text);
	if (!syscalls) {
		snprintf(path, sizeof(path), "%s/caches", outdir);
		stream_path(src, sizeof(src), "caches");
		copy_or_fail(src, path);
		snprintf(path, sizeof(path), "%s/kallsyms", outdir);
		snprintf(src, sizeof(src), "%s/kallsyms", st_procfs());
		copy_or_fail(src, path);
	}
	snprintf(path, sizeof(path), "%s/overruns", outdir);
	stream_path(src, sizeof(src), "total_overruns");
	/* A module with no total_overruns (-1) has no file to keep. */
	if (copy_file(src, path) == -2)
		fail("cannot write %s: %s", path, strerror(errno));
	lost = read_number(src);
	stream_path(path, sizeof(path), "events");
	written = read_number(path);
	if (!same_trace(now)) {
		remove_streams(outdir, ctfdir);
		die("the trace was restarted by another process at its end: nothing saved");
	}

	printf("kmemtrace-record: %ld events written, %ld lost, into %s\n",
	       written, lost, outdir);
	for (i = 0; i < nstreams; i++)
		discarded += streams[i].discarded;
	if (syscalls)
		printf("kmemtrace-record: the packets say %llu discarded\n",
		       (unsigned long long)discarded);
	for (i = 0; i < nstreams; i++) {
		long l = lost_on(streams[i].cpu);

		if (l > 0)
			printf("kmemtrace-record: cpu%d lost %ld events\n",
			       streams[i].cpu, l);
	}
	/* Made in NMI, where no buffer is written: -b cannot help. */
	nmi = lost_on(-1);
	if (nmi > 0)
		printf("kmemtrace-record: %ld events lost in NMI, which no buffer takes\n",
		       nmi);
	if (lost > (nmi > 0 ? nmi : 0) || discarded > 0)
		hint_buffer();
	if (stopped_by_other)
		die("the trace was stopped by another process before the end: %s %s",
		    outdir, "holds what came until then");
	return 0;
}

int main(int argc, char **argv)
{
	enum { OPT_COMM = 256, OPT_LAZY };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "cache", required_argument, NULL, 'c' },
		{ "syscalls", no_argument, NULL, 's' },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "pid", required_argument, NULL, 'p' },
		{ "lazy", no_argument, NULL, OPT_LAZY },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *outdir = NULL, *buffer_kb = NULL, *comm = NULL;
	char caches[4096] = "", pids[400] = "", path[PATH_MAX], ctfdir[2048];
	static char outreal[2048 - 8];
	struct pollfd *pfd;
	int opt, lazy = 0, i, err, status = 0, execp[2], stopped, killed = 0;
	pid_t w;
	struct sigaction sa;
	sigset_t block, unblocked;
	char *text;

	prog_name = "kmemtrace-record";
	stdout_check_at_exit();
	opterr = 0;
	/* "+": COMMAND's options are its own (a "--" before it is optional). */
	while ((opt = getopt_long(argc, argv, "+:o:b:c:p:shV", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			outdir = optarg;
			break;
		case 'b':
			if (!optarg[0] || strspn(optarg, "0123456789") != strlen(optarg) ||
			    strlen(optarg) > 9)
				bad_usage("-b takes KiB, a whole number, not '%s'", optarg);
			buffer_kb = optarg;
			break;
		case 'c':
			if (strlen(caches) + strlen(optarg) + 2 > sizeof(caches))
				bad_usage("-c: too many names (%s)", optarg);
			strcat(caches, caches[0] ? " " : "");
			strcat(caches, optarg);
			break;
		case 'p':
			pid_arg(pids, sizeof(pids), optarg);
			break;
		case OPT_COMM:
			comm = optarg;
			break;
		case OPT_LAZY:
			lazy = 1;
			break;
		case 's':
			syscalls = 1;
			sub = "kptrace/ctf";
			break;
		case 'h':
			fputs(help, stdout);
			return 0;
		case 'V':
			print_version();
			return 0;
		case ':':
			bad_usage("%s needs an argument", argv[optind - 1]);
		default:
			bad_usage("unknown option %s", argv[optind - 1]);
		}
	}
	if (comm && !syscalls)
		bad_usage("--comm is for -s%s", "");
	if (comm && caches[0])
		bad_usage("-s: --comm or -c, not both%s", "");
	if (comm)
		snprintf(caches, sizeof(caches), "%s", comm);
	if (pids[0] && !syscalls)
		bad_usage("-p is for -s%s", "");
	if (pids[0] && caches[0])
		bad_usage("-s: --comm or -p, not both%s", "");
	if (syscalls && caches[0]) {
		if (strchr(caches, ' ') || strlen(caches) > 15)
			bad_usage("-s: --comm takes one command name of at most 15 bytes (%s)",
				  caches);
		memmove(caches + 5, caches, strlen(caches) + 1);
		memcpy(caches, "comm ", 5);
	}
	if (pids[0])
		snprintf(caches, sizeof(caches), "%s", pids);
	if (!outdir)
		outdir = syscalls ? "kptrace.trace" : "kmemtrace.trace";
	if (strlen(outdir) > sizeof(ctfdir) - 8)
		bad_usage("-o: a path too long (%s)", outdir);

	st_check(syscalls ? "kptrace/ctf/abi_version" : "kmemtrace/abi_version", R_OK);
	stream_path(path, sizeof(path), "abi_version");
	pin = open(path, O_RDONLY | O_CLOEXEC);
	if (pin < 0)
		die("%s: %s", path, strerror(errno));
	if (read_number(path) != (syscalls ? KPTRACE_CTF_ABI_VERSION : KMEMTRACE_ABI_VERSION))
		die("%s: not ABI %d: a slabtrace module of another version", path,
		    syscalls ? KPTRACE_CTF_ABI_VERSION : KMEMTRACE_ABI_VERSION);
	st_check(syscalls ? "ctl" : "kmemtrace/enable", W_OK);
	if (syscalls && kptrace_tracing())
		die("kptrace is tracing already, another process's trace (%s/status): %s",
		    st_root(), "stop it first (syscall stop)");
	/*
	 * Before the buffer's size changes: a signal from here on stops the
	 * recording and sets the size back.  A reader of standard output that
	 * went away is no reason to leave a trace running (SIGPIPE ignored:
	 * the write fails instead).
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	/* COMMAND stopped (^Z) and continued has not ended. */
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	set_buffer(buffer_kb);
	/* Written under its resolved path, which no other user can change. */
	out_dir(outdir, outreal, sizeof(outreal));
	outdir = outreal;
	snprintf(ctfdir, sizeof(ctfdir), "%s/ctf", outdir);
	if (!mkdir(ctfdir, 0700))
		out_give(ctfdir);
	else if (errno != EEXIST)
		die("mkdir %s: %s", ctfdir, strerror(errno));

	/* Held open from here on: kptrace does not trace its readers. */
	if (syscalls) {
		stream_path(path, sizeof(path), "metadata");
		meta = open(path, O_RDONLY | O_CLOEXEC);
		if (meta < 0)
			die("%s: %s", path, strerror(errno));
	}
	st_version_check();
	err = trace_start(caches);
	if (keep_old_buffer(err, !buffer_kb))
		err = trace_start(caches);
	if (err)
		start_failed(err, caches);
	started = 1;
	text = metadata_now();
	if (metadata_uuid(text, uuid0))
		fail("the metadata of the trace just started has no UUID");
	free(text);
	clear_old(ctfdir);
	out_path = outdir;
	ctf_path = ctfdir;
	open_streams(ctfdir);
	if (syscalls) {
		/* The calls from here on are recorded. */
		printf("kmemtrace-record: recording\n");
		fflush(stdout);
	}

	/*
	 * The signals wait while COMMAND forks: one that came before (during
	 * the start) stops the recording without it; one that comes after
	 * is sent to COMMAND, which takes it with the default action from
	 * its fork on, not the recorder's handler until its exec.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &unblocked);
	if (optind < argc && stop_flag) {
		note("a signal came before %s started: not run", argv[optind]);
	} else if (optind < argc) {
		/* The child's errno if it cannot run COMMAND (close-on-exec). */
		if (pipe2(execp, O_CLOEXEC))
			fail("pipe: %s", strerror(errno));
		fflush(stdout);
		command = argv[optind];
		child = fork();
		if (child < 0)
			fail("fork: %s", strerror(errno));
		if (!child) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			signal(SIGCHLD, SIG_DFL);
			/* An ignored signal stays ignored across exec. */
			signal(SIGPIPE, SIG_DFL);
			sigprocmask(SIG_SETMASK, &unblocked, NULL);
			if (nofile_raised)
				setrlimit(RLIMIT_NOFILE, &nofile);
			out_umask_restore();
			execvp(argv[optind], argv + optind);
			err = errno;
			/* The parent says why; if the pipe fails, the status does. */
			if (write(execp[1], &err, sizeof(err)) < 0)
				_exit(126);
			_exit(127);
		}
		close(execp[1]);
	}
	sigprocmask(SIG_SETMASK, &unblocked, NULL);
	pfd = xmalloc(nstreams * sizeof(*pfd));
	for (i = 0; i < nstreams; i++) {
		pfd[i].fd = streams[i].fd;
		pfd[i].events = POLLIN;
	}
	while (!stop_flag && !(child && child_done))
		wait_and_drain(pfd, 200, lazy);
	stopped = stop_flag;
	if (child && !child_done) {
		kill(child, SIGTERM);
		kill(child, SIGCONT);	/* a stopped COMMAND acts on it */
	}
	if (child) {
		/*
		 * The trace runs until finish(): drained while COMMAND ends,
		 * and a second signal kills a COMMAND that does not.
		 */
		while ((w = waitpid(child, &status, WNOHANG)) == 0 ||
		       (w < 0 && errno == EINTR)) {
			if (stop_flag >= 2 && !killed) {
				kill(child, SIGKILL);
				killed = 1;
			}
			wait_and_drain(pfd, 100, lazy);
		}
		child = 0;	/* waited for: no COMMAND for fail() to end */
		err = 0;
		while (read(execp[0], &err, sizeof(err)) < 0 && errno == EINTR)
			;
		close(execp[0]);
	}
	if (finish(outdir, ctfdir))
		return 1;
	if (!command)
		return 0;
	/* Saved, as slabtrace record does; COMMAND's failure said and exit 3. */
	if (err) {
		note("cannot run %s: %s", argv[optind], strerror(err));
		return 1;
	}
	/* A signal ended the recording, and COMMAND with it: no failure. */
	if (stopped)
		return 0;
	if (WIFSIGNALED(status)) {
		note("%s was killed by signal %d", argv[optind], WTERMSIG(status));
		return st_status(3);
	}
	if (WEXITSTATUS(status)) {
		note("%s exited with %d", argv[optind], WEXITSTATUS(status));
		return st_status(3);
	}
	return 0;
}
