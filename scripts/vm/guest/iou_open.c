// SPDX-License-Identifier: GPL-2.0
/*
 * iou_open: opens a file N times through io_uring, each open punted to an
 * io_uring worker thread (IOSQE_ASYNC), and keeps the files open, for the
 * VM test of the allocation contexts.  Raw system calls, no liburing:
 * built static with the host's gcc (make test-modules).
 *
 *   iou_open PATH N FIFO
 *
 * Prints "opened N" once the N opens completed, then waits for a line on
 * FIFO and exits (the files close then).
 */
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *map(int fd, size_t len, off_t off)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, fd, off);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

int main(int argc, char **argv)
{
	struct io_uring_params p;
	struct io_uring_sqe *sqes, *sqe;
	struct io_uring_cqe *cqe;
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_mask;
	unsigned int tail, head;
	char *sq, *cq, line[16];
	int ring, n, i, opened = 0;
	FILE *fifo;

	if (argc != 4) {
		fprintf(stderr, "usage: iou_open PATH N FIFO\n");
		return 2;
	}
	n = atoi(argv[2]);
	memset(&p, 0, sizeof(p));
	ring = syscall(__NR_io_uring_setup, 4, &p);
	if (ring < 0) {
		perror("io_uring_setup");
		return 1;
	}
	sq = map(ring, p.sq_off.array + p.sq_entries * sizeof(unsigned int),
		 IORING_OFF_SQ_RING);
	cq = map(ring, p.cq_off.cqes + p.cq_entries * sizeof(*cqe),
		 IORING_OFF_CQ_RING);
	sqes = map(ring, p.sq_entries * sizeof(*sqes), IORING_OFF_SQES);
	sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	sq_array = (unsigned int *)(sq + p.sq_off.array);
	cq_head = (unsigned int *)(cq + p.cq_off.head);
	cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);

	for (i = 0; i < n; i++) {
		tail = *sq_tail;
		sqe = &sqes[tail & *sq_mask];
		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = IORING_OP_OPENAT;
		sqe->fd = AT_FDCWD;
		sqe->addr = (unsigned long)argv[1];
		sqe->open_flags = O_RDONLY;
		/* Not inline in io_uring_enter(): by a worker thread. */
		sqe->flags = IOSQE_ASYNC;
		sqe->user_data = i;
		sq_array[tail & *sq_mask] = tail & *sq_mask;
		__atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
		if (syscall(__NR_io_uring_enter, ring, 1, 1,
			    IORING_ENTER_GETEVENTS, NULL, 0) < 0) {
			perror("io_uring_enter");
			return 1;
		}
		head = __atomic_load_n(cq_head, __ATOMIC_ACQUIRE);
		cqe = (struct io_uring_cqe *)(cq + p.cq_off.cqes) +
		      (head & *cq_mask);
		if (cqe->res < 0) {
			fprintf(stderr, "openat %d: %s\n", i, strerror(-cqe->res));
			return 1;
		}
		opened++;
		__atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
	}
	printf("opened %d\n", opened);
	fflush(stdout);
	fifo = fopen(argv[3], "r");
	if (!fifo || !fgets(line, sizeof(line), fifo))
		return 1;
	return 0;
}
