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
 *   relay_reader -R FILE
 *	read 1 byte of FILE, then put 1 packet: "read=N put=E".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

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
	default: return strerror(errno);
	}
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

int main(int argc, char **argv)
{
	static char buf[65536];
	const char *fifo = NULL;
	long secs = 10;
	time_t end;
	int opt, i;

	while ((opt = getopt(argc, argv, "t:H:PR")) != -1) {
		switch (opt) {
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
