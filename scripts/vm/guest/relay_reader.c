// SPDX-License-Identifier: GPL-2.0
/*
 * relay_reader: reads a stream's cpuN files the way a recorder does, in a
 * loop, for the relayrace VM test.  Built static (make test-modules).
 *
 *   relay_reader [-t SECONDS] FILE...
 *	for SECONDS (default 10), over and over, each FILE: open it, map
 *	its buffer (buffer_kb of its directory, KiB), check the packet
 *	magic at the start of the mapping, poll it, read what it has,
 *	unmap, close; then open and close it 16 times.  Then one line:
 *	"opens=N maps=N polls=N reads=N bytes=N enodata=N enoent=N
 *	 badsize=N badmagic=N other=N"
 *	enodata: no buffer yet; enoent: no such file; badsize: the buffer
 *	changed size between reading buffer_kb and mapping; badmagic: a
 *	mapping that did not start with a packet; other: any other error,
 *	printed once with its errno.
 *   relay_reader -H FIFO FILE
 *	open FILE, map its buffer, close the descriptor (the mapping keeps
 *	the file), print "mapped", wait for a line on FIFO, unmap, print
 *	"unmapped".
 *   relay_reader -P FILE...
 *	SLABTRACE_CTF_IOC_PUT_PACKETS on each FILE, a stopped trace's: 0
 *	packets, another command, 9 packets; then 1 packet at a time until
 *	refused (or more than the buffers hold went back), and a poll.
 *	One line: "zero=E other=E nine=E put=N refused=E ready=N", E an
 *	errno name or "ok", N the packets given back and the files poll
 *	still finds readable.
 *   relay_reader -O FILE
 *	what a mapping of FILE may not be: FILE opened for reading and
 *	writing, its buffer mapped at an offset of one page, mapped
 *	writable (privately).  One line: "rdwr=E offset=E write=E", E an
 *	errno name or "ok".
 *   relay_reader -R FILE
 *	read 1 byte of FILE, then put 1 packet: "read=N put=E".
 *   relay_reader -W FILE
 *	read FILE (a stopped trace's) to its end, print "waiting", then
 *	poll() it for 60 s: "poll=ERR", "poll=IN" or "poll=timeout" (and
 *	the seconds it waited).
 *   relay_reader -U FILE1 FILE2
 *	one CPU's two files (/proc's and debugfs's), a stopped trace's
 *	with 3 packets or more: read() one packet of FILE1 into pages a
 *	userfaultfd holds, so that the read stops inside relay's, its copy
 *	chosen and not done; meanwhile, from another thread, give 0
 *	packets back through FILE2 (first round), read 128 bytes of it
 *	(second round); then fill the pages.  A line a round:
 *	"ioctl: waited=yes|no ret=N" and "read: waited=yes|no first=SEQ
 *	second=SEQ": whether FILE2's call waited 2 s for FILE1's read, and
 *	the packet each read (FILE2's may be the next, never the same).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/userfaultfd.h>

#include "../../../include/uapi/slabtrace/ctf.h"

#define MAGIC SLABTRACE_CTF_MAGIC

static long opens, maps, polls, reads, bytes, enodata, enoent, badsize,
	    badmagic, other;

static void count_error(const char *what, const char *path)
{
	if (errno == ENODATA)
		enodata++;
	else if (errno == ENOENT)
		enoent++;
	else if (!other++)
		printf("relay_reader: %s %s: %s\n", what, path, strerror(errno));
}

/* The word at @map: a load the compiler makes (the buffer is the kernel's). */
static uint32_t first_word(const void *map)
{
	return __atomic_load_n((const uint32_t *)map, __ATOMIC_RELAXED);
}

/* The size of @path's buffer: its directory's buffer_kb, in whole pages. */
static size_t map_size(const char *path)
{
	char dir[4096], file[4200], kb[32] = "";
	long page = sysconf(_SC_PAGESIZE);
	size_t size;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(file, sizeof(file), "%s/buffer_kb", dirname(dir));
	f = fopen(file, "r");
	if (!f)
		return 0;
	if (!fgets(kb, sizeof(kb), f))
		kb[0] = '\0';
	fclose(f);
	size = strtoul(kb, NULL, 10) * 1024;
	return (size + page - 1) / page * page;
}

/* Open, map, check, poll, read, unmap, close @path once. */
static void once(const char *path, char *buf, size_t len)
{
	struct pollfd p = { .events = POLLIN };
	size_t size = map_size(path);
	void *map;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		count_error("open", path);
		return;
	}
	opens++;
	map = size ? mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
	if (map != MAP_FAILED) {
		maps++;
		if (first_word(map) != MAGIC)
			badmagic++;
	} else if (errno == EINVAL || !size) {
		badsize++;
	} else {
		count_error("mmap", path);
	}
	p.fd = fd;
	if (poll(&p, 1, 0) >= 0)
		polls++;
	else
		count_error("poll", path);
	n = read(fd, buf, len);
	if (n >= 0) {
		reads++;
		bytes += n;
	} else {
		count_error("read", path);
	}
	if (map != MAP_FAILED)
		munmap(map, size);
	close(fd);
	/* Then opens alone, the most of them: a start's new buffers meet one. */
	for (n = 0; n < 16; n++) {
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			count_error("open", path);
			continue;
		}
		opens++;
		close(fd);
	}
}

static int hold(const char *fifo, const char *path)
{
	size_t size = map_size(path);
	char line[16];
	void *map;
	FILE *f;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	close(fd);
	printf("mapped magic=%s\n",
	       first_word(map) == MAGIC ? "ok" : "bad");
	fflush(stdout);
	f = fopen(fifo, "r");
	if (!f || !fgets(line, sizeof(line), f))
		return 1;
	munmap(map, size);
	printf("unmapped\n");
	return 0;
}

/* "ok", or the name of the errno of a failed call. */
static const char *res(int ret)
{
	if (!ret)
		return "ok";
	switch (errno) {
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	case EACCES: return "EACCES";
	default: return strerror(errno);
	}
}

/* relay_reader -O: the mappings and the open that are refused. */
static int refused(const char *path)
{
	size_t size = map_size(path);
	int fd, rdwr, offset, write;
	void *map;

	fd = open(path, O_RDWR);
	rdwr = fd < 0 ? -1 : 0;
	printf("rdwr=%s ", res(rdwr));
	if (fd >= 0)
		close(fd);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, getpagesize());
	offset = map == MAP_FAILED ? -1 : 0;
	printf("offset=%s ", res(offset));
	if (map != MAP_FAILED)
		munmap(map, size);
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	write = map == MAP_FAILED ? -1 : 0;
	printf("write=%s\n", res(write));
	if (map != MAP_FAILED)
		munmap(map, size);
	close(fd);
	return 0;
}

static int give_back(int argc, char **argv)
{
	const char *zero = "", *other = "", *nine = "", *refused = "";
	int i, fd, put = 0, ready = 0, ret;
	struct pollfd p;

	for (i = 0; i < argc; i++) {
		fd = open(argv[i], O_RDONLY);
		if (fd < 0) {
			perror(argv[i]);
			return 1;
		}
		zero = res(ioctl(fd, SLABTRACE_CTF_IOC_PUT_PACKETS, 0UL));
		other = res(ioctl(fd, _IO(SLABTRACE_CTF_IOC_MAGIC, 2), 0UL));
		nine = res(ioctl(fd, SLABTRACE_CTF_IOC_PUT_PACKETS,
				 SLABTRACE_CTF_SUBBUFS + 1UL));
		/* A buffer holds SLABTRACE_CTF_SUBBUFS: no more can go back. */
		do
			ret = ioctl(fd, SLABTRACE_CTF_IOC_PUT_PACKETS, 1UL);
		while (!ret && ++put <= SLABTRACE_CTF_SUBBUFS * argc);
		refused = res(ret);
		p.fd = fd;
		p.events = POLLIN;
		ready += poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
		close(fd);
	}
	printf("zero=%s other=%s nine=%s put=%d refused=%s ready=%d\n", zero,
	       other, nine, put, refused, ready);
	return 0;
}

static int half_read(const char *path)
{
	int fd = open(path, O_RDONLY);
	char c;
	ssize_t n;

	if (fd < 0) {
		perror(path);
		return 1;
	}
	n = read(fd, &c, 1);
	printf("read=%zd put=%s\n", n,
	       res(ioctl(fd, SLABTRACE_CTF_IOC_PUT_PACKETS, 1UL)));
	close(fd);
	return 0;
}

/* A read() or the ioctl of -U, in a thread of its own. */
struct turn {
	int fd;
	void *buf;
	size_t len;
	int put;		/* give 0 packets back instead of reading */
	ssize_t ret;
	int done;
};

static void *take_turn(void *arg)
{
	struct turn *t = arg;

	if (t->put)
		t->ret = ioctl(t->fd, SLABTRACE_CTF_IOC_PUT_PACKETS, 0UL);
	else
		t->ret = read(t->fd, t->buf, t->len);
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Whether @t is done within @ms milliseconds. */
static int done_within(struct turn *t, int ms)
{
	while (ms-- > 0 && !__atomic_load_n(&t->done, __ATOMIC_ACQUIRE))
		usleep(1000);
	return __atomic_load_n(&t->done, __ATOMIC_ACQUIRE);
}

static unsigned long long le64_at(const unsigned char *p)
{
	unsigned long long v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

#define SEQ_AT	offsetof(struct slabtrace_ctf_packet, packet_seq_num)

/*
 * One round of -U: @fd1 reads the packet at @pkt in the mapping, stopped
 * in its copy while @fd2 takes its turn (@put: the ioctl, else a read).
 */
static int round_of(int uffd, const unsigned char *pkt, int fd1, int fd2, int put)
{
	size_t page = sysconf(_SC_PAGESIZE), size;
	struct turn first = { .fd = fd1 }, second = { .fd = fd2, .put = put };
	struct pollfd p = { .fd = uffd, .events = POLLIN };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffdio_copy copy = { 0 };
	static unsigned char head[128];
	struct uffd_msg msg;
	pthread_t t1, t2;
	void *fill;
	int waited;

	first.len = le64_at(pkt + offsetof(struct slabtrace_ctf_packet,
					   packet_size)) / 8;
	size = (first.len + page - 1) / page * page;
	if (!size) {
		fprintf(stderr, "no closed packet\n");
		return 1;
	}
	first.buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fill = mmap(NULL, size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (first.buf == MAP_FAILED || fill == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memset(fill, 0, size);
	reg.range.start = (uintptr_t)first.buf;
	reg.range.len = size;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		perror("UFFDIO_REGISTER");
		return 1;
	}
	pthread_create(&t1, NULL, take_turn, &first);
	if (poll(&p, 1, 10000) != 1 ||
	    read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT) {
		fprintf(stderr, "the first read did not stop\n");
		return 1;
	}
	/* The first is inside relay's read(): the second's turn. */
	second.buf = head;
	second.len = sizeof(head);
	pthread_create(&t2, NULL, take_turn, &second);
	waited = !done_within(&second, 2000);
	copy.dst = (uintptr_t)first.buf;
	copy.src = (uintptr_t)fill;
	copy.len = size;
	if (ioctl(uffd, UFFDIO_COPY, &copy)) {
		perror("UFFDIO_COPY");
		return 1;
	}
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	if (put) {
		printf("ioctl: waited=%s ret=%zd\n", waited ? "yes" : "no",
		       second.ret);
		return 0;
	}
	printf("read: waited=%s first=", waited ? "yes" : "no");
	if (first.ret >= (ssize_t)(SEQ_AT + 8))
		printf("%llu", le64_at((unsigned char *)first.buf + SEQ_AT));
	else
		printf("none(%zd)", first.ret);
	printf(" second=");
	if (second.ret >= (ssize_t)(SEQ_AT + 8))
		printf("%llu\n", le64_at(head + SEQ_AT));
	else
		printf("none(%zd)\n", second.ret);
	return 0;
}

static int two_readers(const char *path1, const char *path2)
{
	struct uffdio_api api = { .api = UFFD_API };
	size_t size = map_size(path1);
	int fd1, fd2, uffd, ret;
	unsigned char *map;

	fd1 = open(path1, O_RDONLY);
	fd2 = open(path2, O_RDONLY);
	if (fd1 < 0 || fd2 < 0) {
		perror("open");
		return 1;
	}
	map = size ? mmap(NULL, size, PROT_READ, MAP_SHARED, fd1, 0) : MAP_FAILED;
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		perror("userfaultfd");
		return 1;
	}
	/* Packet 0 with the ioctl, then packet 1 with a read. */
	ret = round_of(uffd, map, fd1, fd2, 1) ?:
	      round_of(uffd, map + size / SLABTRACE_CTF_SUBBUFS, fd1, fd2, 0);
	fflush(stdout);
	return ret;
}

/* Drain @path, then wait in poll() for what comes: data, or its end. */
static int wait_end(const char *path)
{
	static char buf[65536];
	struct pollfd p = { .events = POLLIN };
	time_t t0;
	int n;

	p.fd = open(path, O_RDONLY);
	if (p.fd < 0) {
		perror(path);
		return 1;
	}
	while (read(p.fd, buf, sizeof(buf)) > 0)
		;
	printf("waiting\n");
	fflush(stdout);
	t0 = time(NULL);
	n = poll(&p, 1, 60000);
	printf("poll=%s after %lds\n", n < 0 ? "error" : !n ? "timeout" :
	       p.revents & POLLERR ? "ERR" : p.revents & POLLIN ? "IN" : "other",
	       (long)(time(NULL) - t0));
	close(p.fd);
	return 0;
}

int main(int argc, char **argv)
{
	static char buf[65536];
	const char *fifo = NULL;
	long secs = 10;
	time_t end;
	int opt, i;

	while ((opt = getopt(argc, argv, "t:H:OPRUW")) != -1) {
		switch (opt) {
		case 'W':
			if (optind >= argc)
				return 2;
			return wait_end(argv[optind]);
		case 'O':
			if (optind >= argc)
				return 2;
			return refused(argv[optind]);
		case 'U':
			if (optind + 2 > argc)
				return 2;
			return two_readers(argv[optind], argv[optind + 1]);
		case 'P':
			if (optind >= argc)
				return 2;
			return give_back(argc - optind, argv + optind);
		case 'R':
			if (optind >= argc)
				return 2;
			return half_read(argv[optind]);
		case 't':
			secs = atol(optarg);
			break;
		case 'H':
			fifo = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc)
		return 2;
	if (fifo)
		return hold(fifo, argv[optind]);
	end = time(NULL) + secs;
	while (time(NULL) < end)
		for (i = optind; i < argc; i++)
			once(argv[i], buf, sizeof(buf));
	printf("opens=%ld maps=%ld polls=%ld reads=%ld bytes=%ld ", opens,
	       maps, polls, reads, bytes);
	printf("enodata=%ld enoent=%ld badsize=%ld badmagic=%ld other=%ld\n",
	       enodata, enoent, badsize, badmagic, other);
	return 0;
}
