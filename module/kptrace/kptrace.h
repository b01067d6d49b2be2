/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kptrace's internals, beside its code in module/kptrace/ and seen by its
 * KUnit suite, no other system: the binary record of one finished system
 * call, the queue it waits in, its text form, the per-syscall summary,
 * the binary stream.  Each file of module/kptrace/ implements one block
 * below (the system call names are the core's, <slabtrace/core.h>); the
 * locking rules are at the top of those files, the order of all the
 * locks in main.c's header.  Its public face is kptrace_system.
 */
#ifndef _SLABTRACE_KPTRACE_H
#define _SLABTRACE_KPTRACE_H

#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <uapi/slabtrace/kptrace.h>

#include <slabtrace/files.h>

struct kmem_cache;
struct ring_buffer_event;
struct seq_file;

/* Bytes of a path argument kept, at most. */
#define KPTRACE_DATA_MAX	64
/* Longest text line of a record, with its newline. */
#define KPTRACE_LINE_MAX	768
/* Processes a pid filter names, at most. */
#define KPTRACE_MAX_PIDS	16
/* Per-CPU queue size when none is given (module parameter kptrace_size). */
#define KPTRACE_DEFAULT_SIZE	(2UL << 20)

/* The same bits as the binary stream's flags field. */
#define KPTRACE_COMPAT		KPTRACE_CTF_COMPAT	/* a 32-bit (ia32) system call */
#define KPTRACE_NORETURN	KPTRACE_CTF_NORETURN /* ended by the task's exit */
#define KPTRACE_DATA		KPTRACE_CTF_PATH	/* data[] holds a path argument */

/*
 * One finished system call, as queued: 104 bytes and the path, if any.
 * Timestamps are CLOCK_MONOTONIC ns, ktime_get_mono_fast_ns().
 */
struct kptrace_rec {
	u64 start_ns;
	u64 end_ns;
	u64 args[6];
	s64 ret;
	s32 nr;
	pid_t pid;			/* the process (tgid) */
	pid_t tid;
	u16 cpu;
	u8 flags;
	u8 data_len;
	char comm[TASK_COMM_LEN];
	char data[];			/* data_len bytes, no NUL */
};

/* The arguments of a call in flight, as sys_enter notes them. */
struct kptrace_call {
	u64 start_ns;
	unsigned long args[6];
	int nr;
	u8 flags;			/* KPTRACE_COMPAT, KPTRACE_DATA */
	u8 nargs;			/* of args[], the ones the call reads */
	u8 data_len;
	char data[KPTRACE_DATA_MAX];
};

/* kptrace.c: the hooks, the "syscall" commands, kptrace's mutex. */
extern struct mutex kptrace_mutex;

/*
 * queue.c: per-CPU binary records, drained in the order the calls ended;
 * its size, and the memory kptrace's buffers may take.
 */
int kptrace_mem_check(const char *what, u64 bytes);
int kptrace_queue_parse_size(const char *arg, unsigned long *size);
unsigned long kptrace_queue_size(void);
void kptrace_queue_resize(unsigned long size);
bool kptrace_queue_in_use(void);
int kptrace_queue_start(unsigned long size);
void kptrace_queue_stop(void);
void kptrace_queue_discard(void);
struct kptrace_rec *kptrace_queue_reserve(unsigned int data_len,
					  struct ring_buffer_event **event);
void kptrace_queue_commit(struct ring_buffer_event *event);
void kptrace_queue_drop(void);
int kptrace_queue_pop(struct kptrace_rec *rec, size_t size);
bool kptrace_queue_empty(void);
void kptrace_queue_reset(void);
void kptrace_queue_show_stats(struct seq_file *m);
unsigned long kptrace_queue_bytes(void);
unsigned long kptrace_queue_held(unsigned long *records);
void kptrace_queue_exit(void);
extern wait_queue_head_t kptrace_wait;

/*
 * kptrace/ctf.c: the binary stream.  What it calls in kptrace.c, which is
 * above it, kptrace.c gives it at init.
 */
struct kptrace_ctf_owner {
	struct mutex *lock;			/* kptrace_mutex */
	bool (*running)(void);			/* the hooks write here */
	void (*show_enable)(struct seq_file *m);	/* the enable file */
	int (*command)(int argc, char **argv);	/* "syscall ..." */
};

int kptrace_ctf_init(const struct kptrace_ctf_owner *o);
int kptrace_ctf_open(unsigned long size);
void kptrace_ctf_close(void);
void kptrace_ctf_flush(void);
void kptrace_ctf_drop(void);
void kptrace_ctf_write(const struct kptrace_call *call, u64 end, long ret,
		       u8 flags);
void kptrace_ctf_status(struct seq_file *m);
void kptrace_ctf_exit(void);

/* format.c: a record as one line of text. */
int kptrace_format(const struct kptrace_rec *rec, char *buf, size_t size);

/* summary.c: calls, errors and times per system call. */
int kptrace_summary_init(void);
void kptrace_summary_count(int nr, u8 flags, long ret, u64 duration);
void kptrace_summary_reset(void);
int kptrace_summary_show(struct seq_file *m);
void kptrace_summary_exit(void);

/*
 * files.c: queue, pipe, stats, summary, which the core makes; the
 * processes reading kptrace.
 */
#define KPTRACE_NR_FILES	4
extern struct slabtrace_file kptrace_files[KPTRACE_NR_FILES];
void kptrace_files_update_size(void);
void kptrace_files_exit(void);
int kptrace_readers_update(struct pid *tgid, bool add);
bool kptrace_is_reader(const struct pid *tgid);
/*
 * Changes (never to 0) whenever a process becomes or stops being a reader:
 * the hooks keep kptrace_is_reader()'s answer for a task until it does.
 * Read with smp_load_acquire().
 */
extern unsigned int kptrace_readers_seq;

/*
 * Global only for the KUnit suites: static in the module
 * (VISIBLE_IF_KUNIT, <kunit/visibility.h>).
 */
#if IS_ENABLED(CONFIG_KUNIT)
void kptrace_queue_counts(unsigned long *written, unsigned long *read,
			  unsigned long *dropped);
#endif

/* kptrace.c: a helper of the KUnit suite alone. */
#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
bool kptrace_tracing(void);
#endif

#endif /* _SLABTRACE_KPTRACE_H */
