// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: its files, in /proc/slabtrace/kptrace/ and the same in debugfs
 * (kptrace_system's files, which the core makes):
 *
 * queue (0400)    reading drains the queue, in the order the calls ended,
 *                 one line a call; returns 0 once it is empty.  Its size
 *                 is the bytes queued.
 * pipe (0400)     the same, but a read waits for calls to come, like
 *                 ftrace's trace_pipe; poll() and O_NONBLOCK work.
 * stats (0400)    records written, read, dropped; bytes queued; the
 *                 queue's size, and the bytes it was allocated (0 when
 *                 there is none).
 * summary (0400)  calls, errors and times per system call.
 *
 * A line taken from the queue belongs to the open file that took it: a
 * short read keeps the rest for that file's next read.
 *
 * The size of kptrace is set after reads, at commands, and every 100 ms
 * while a trace writes to the queue (size_work); procfs keeps one inode per mount, which takes
 * the size when it is looked up, opened or read (files.c).
 *
 * A process that has one of them open (or kptrace/ctf/metadata: ctf.c)
 * is a reader, whose own calls are never traced: its read() calls would
 * fill the queue it drains.  It is known by its struct pid, referenced
 * while it is a reader: a number could be reused by a process that reads
 * nothing, once the one that opened has exited (and left its file to a
 * child).  The hooks ask kptrace_is_reader() again only
 * when kptrace_readers_seq has changed since they last asked for the task.
 *
 * Notes on locking
 * ----------------
 * - readers_lock (spinlock): readers[], reader_refs[], nr_readers and
 *   kptrace_readers_seq, taken alone by the files' open and release; the
 *   hooks read them without it (a reader that just opened may see one
 *   more of its calls traced), comparing pointers, never following one.
 *   kptrace_readers_seq is stored with release semantics after
 *   readers[]: a hook that loads it with acquire semantics sees readers[]
 *   as new as it.
 * - kptrace_reader.lock (mutex): one open file's pending line.
 * - The inode lock of queue: its i_size.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <wrapper/workqueue.h>

#include <slabtrace/files.h>

#include "kptrace.h"

struct kptrace_reader {
	struct mutex lock;		/* the pending line */
	struct pid *tgid;		/* the process that opened the file */
	size_t len;			/* of line */
	size_t off;			/* already read */
	char line[KPTRACE_LINE_MAX];
	union {
		struct kptrace_rec rec;
		char space[sizeof(struct kptrace_rec) + KPTRACE_DATA_MAX];
	};
};

/* Processes that may have kptrace open at once. */
#define KPTRACE_MAX_READERS	8

/* readers[], reader_refs[] and nr_readers (the hooks read them locklessly). */
static DEFINE_SPINLOCK(readers_lock);
static struct pid *readers[KPTRACE_MAX_READERS];	/* referenced */
static unsigned int reader_refs[KPTRACE_MAX_READERS];
static unsigned int nr_readers;		/* readers[] in use */
/* Changes when readers[] does; never 0, which no task has seen (kptrace.h). */
unsigned int kptrace_readers_seq = 1;

/* Whether @tgid has a kptrace file open.  Called by the hooks: no lock. */
bool kptrace_is_reader(const struct pid *tgid)
{
	unsigned int i;

	if (likely(!READ_ONCE(nr_readers)))
		return false;
	for (i = 0; i < KPTRACE_MAX_READERS; i++)
		if (READ_ONCE(readers[i]) == tgid)
			return true;
	return false;
}

/* A new kptrace_readers_seq, after readers[].  Called with readers_lock held. */
static void readers_changed(void)
{
	unsigned int seq = kptrace_readers_seq + 1;

	lockdep_assert_held(&readers_lock);
	/* Pairs with entry_reader()'s acquire: readers[] is visible first. */
	smp_store_release(&kptrace_readers_seq, seq ? seq : 1);
}

/**
 * kptrace_readers_update - a process opened or closed a kptrace file
 * @tgid: the process (task_tgid()); the closing may happen in another
 *	  process (the last fput() of a shared file): the caller passes the
 *	  one it opened with, which a reader's entry keeps referenced
 * @add: opened (true) or closed
 *
 * A process that reads kptrace is never traced: its own read() calls
 * would fill the queue it drains.  At most KPTRACE_MAX_READERS processes
 * have kptrace open at once; the next one's open fails rather than see
 * its own calls.
 *
 * Return: 0, or -EUSERS if @add and KPTRACE_MAX_READERS other processes are
 * readers already.
 */
int kptrace_readers_update(struct pid *tgid, bool add)
{
	unsigned int i, free = KPTRACE_MAX_READERS;
	struct pid *gone = NULL;
	int ret = 0;

	spin_lock(&readers_lock);
	for (i = 0; i < KPTRACE_MAX_READERS; i++) {
		if (readers[i] == tgid)
			break;
		if (!readers[i] && free == KPTRACE_MAX_READERS)
			free = i;
	}
	if (add) {
		if (i == KPTRACE_MAX_READERS && free < KPTRACE_MAX_READERS) {
			i = free;
			WRITE_ONCE(readers[i], get_pid(tgid));
			WRITE_ONCE(nr_readers, nr_readers + 1);
			readers_changed();
		}
		if (i < KPTRACE_MAX_READERS)
			reader_refs[i]++;
		else
			ret = -EUSERS;
	} else if (i < KPTRACE_MAX_READERS && !--reader_refs[i]) {
		gone = readers[i];
		WRITE_ONCE(readers[i], NULL);
		WRITE_ONCE(nr_readers, nr_readers - 1);
		readers_changed();
	}
	spin_unlock(&readers_lock);
	put_pid(gone);
	if (ret)
		pr_warn_ratelimited("kptrace: %u processes have it open already: no more readers\n",
				    KPTRACE_MAX_READERS);
	return ret;
}

static void size_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(size_work, size_work_fn);
/*
 * size_lock (mutex): one read of the bytes queued and its set at a time,
 * so that a set of a count read before a "syscall clear" cannot land
 * after the clear's own, in the files' sizes or in the inode a reader
 * opened.  Inside kptrace_mutex (a command's update), outside files_lock
 * and the inodes' locks.
 */
static DEFINE_MUTEX(size_lock);

/* The size of the inode @file was opened with (procfs: one per mount). */
static void update_size_of(struct file *file)
{
	struct inode *inode = file_inode(file);

	mutex_lock(&size_lock);
	inode_lock(inode);
	i_size_write(inode, kptrace_queue_bytes());
	inode_unlock(inode);
	mutex_unlock(&size_lock);
}

static int reader_open(struct inode *inode, struct file *file)
{
	struct kptrace_reader *r = kzalloc(sizeof(*r), GFP_KERNEL);
	int ret;

	if (!r)
		return -ENOMEM;
	mutex_init(&r->lock);
	r->tgid = task_tgid(current);
	ret = kptrace_readers_update(r->tgid, true);
	if (ret) {
		kfree(r);
		return ret;
	}
	file->private_data = r;
	return nonseekable_open(inode, file);
}

static int reader_release(struct inode *inode, struct file *file)
{
	struct kptrace_reader *r = file->private_data;

	kptrace_readers_update(r->tgid, false);
	mutex_destroy(&r->lock);
	kfree(r);
	return 0;
}

/* Copy out lines, taking calls from the queue as needed. */
static ssize_t drain(struct kptrace_reader *r, char __user *ubuf, size_t count)
{
	size_t done = 0, n;

	lockdep_assert_held(&r->lock);
	while (done < count) {
		if (r->off == r->len) {
			/*
			 * Writers on other CPUs can refill the queue as fast
			 * as it drains: a signal ends a long read short.
			 */
			if (done && signal_pending(current))
				break;
			cond_resched();
			if (!kptrace_queue_pop(&r->rec, sizeof(r->space)))
				break;
			r->len = kptrace_format(&r->rec, r->line,
						sizeof(r->line));
			r->off = 0;
		}
		n = min(count - done, r->len - r->off);
		if (copy_to_user(ubuf + done, r->line + r->off, n))
			return done ?: -EFAULT;
		r->off += n;
		done += n;
	}
	return done;
}

static bool ready(struct kptrace_reader *r)
{
	return r->off < r->len || !kptrace_queue_empty();
}

static ssize_t kptrace_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct kptrace_reader *r = file->private_data;
	ssize_t ret;

	mutex_lock(&r->lock);
	ret = drain(r, ubuf, count);
	mutex_unlock(&r->lock);
	kptrace_files_update_size();
	update_size_of(file);
	return ret;
}

static int kptrace_open(struct inode *inode, struct file *file)
{
	int ret = reader_open(inode, file);

	if (!ret)
		update_size_of(file);
	return ret;
}

static ssize_t pipe_read(struct file *file, char __user *ubuf, size_t count,
			 loff_t *ppos)
{
	struct kptrace_reader *r = file->private_data;
	ssize_t ret;

	for (;;) {
		mutex_lock(&r->lock);
		ret = drain(r, ubuf, count);
		mutex_unlock(&r->lock);
		if (ret || !count)
			break;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(kptrace_wait, ready(r)))
			return -ERESTARTSYS;
	}
	kptrace_files_update_size();
	return ret;
}

static __poll_t pipe_poll(struct file *file, poll_table *wait)
{
	struct kptrace_reader *r = file->private_data;

	poll_wait(file, &kptrace_wait, wait);
	return ready(r) ? EPOLLIN | EPOLLRDNORM : 0;
}

static const struct file_operations kptrace_fops = {
	.owner = THIS_MODULE,
	.open = kptrace_open,
	.read = kptrace_read,
	.release = reader_release,
};

static const struct file_operations pipe_fops = {
	.owner = THIS_MODULE,
	.open = reader_open,
	.read = pipe_read,
	.poll = pipe_poll,
	.release = reader_release,
};

static int stats_show(struct seq_file *m, void *v)
{
	kptrace_queue_show_stats(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int summary_show(struct seq_file *m, void *v)
{
	return kptrace_summary_show(m);
}
DEFINE_SHOW_ATTRIBUTE(summary);

/* kptrace_files[0] is queue: kptrace_files_update_size() sets its size. */
struct slabtrace_file kptrace_files[KPTRACE_NR_FILES] = {
	{ .name = "queue", .mode = 0400, .fops = &kptrace_fops },
	{ .name = "pipe", .mode = 0400, .fops = &pipe_fops },
	{ .name = "stats", .mode = 0400, .fops = &stats_fops },
	{ .name = "summary", .mode = 0400, .fops = &summary_fops },
};

/* Make the size of kptrace the bytes queued. */
void kptrace_files_update_size(void)
{
	mutex_lock(&size_lock);
	slabtrace_file_set_size(&kptrace_files[0], kptrace_queue_bytes());
	mutex_unlock(&size_lock);
	if (kptrace_queue_in_use())
		mod_delayed_work(SLABTRACE_SYSTEM_WQ, &size_work, HZ / 10);
}

static void size_work_fn(struct work_struct *work)
{
	kptrace_files_update_size();
}

/* At module exit, once tracing stopped: nothing re-arms size_work. */
void kptrace_files_exit(void)
{
	cancel_delayed_work_sync(&size_work);
}
