// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the queue of finished system calls.
 *
 * The kernel's ring_buffer, one per CPU, in its non-overwriting mode: the
 * hooks write a binary record on the CPU they run on, in place (reserve,
 * fill, commit), and a full queue refuses it, which is counted as dropped;
 * nothing is allocated and nothing waits.  A record is written when its
 * call ends, on the CPU it ends on, so each CPU's queue is in the order its
 * calls ended; a reader takes the record that ended first of all the
 * CPUs' oldest, and consumes it: the records come out in the order the
 * calls ended, whichever CPU they ran on (a merge of sorted queues).  Not
 * by start time: that would need the records of calls still running, a
 * long call holding back every other.
 *
 * Its size ("syscall size", the module parameter kptrace_size) is kept
 * here, for the next queue and the next binary stream (ctf.c).
 *
 * The queue exists only while it is needed: "syscall start" makes it (if
 * records of an earlier trace do not still hold it), after checking that
 * it takes at most half the memory available (kptrace_mem_check());
 * once tracing stopped, it is freed as soon as it is empty: at "syscall
 * stop" if nothing is queued, else when a reader takes the last record,
 * or at "syscall clear" or "syscall size", which empty it.  Until then
 * kptrace_stats and status say how much memory it holds.
 *
 * Notes on locking
 * ----------------
 * - queue_lock (mutex): kptrace_buffer's creation and freeing, in_use
 *   (read without it by kptrace_queue_in_use(), files.c's size update),
 *   the reader side (peeking and consuming across CPUs,
 *   n_read), resetting.  The writers (the hooks, preemption disabled)
 *   take nothing of ours: ring_buffer_lock_reserve() and its commit
 *   serialise with the readers themselves.
 * - kptrace_buffer is RCU-protected: a reader that does not take
 *   queue_lock (kptrace_queue_empty(), which a waiting reader's wakeup
 *   condition calls, and kptrace_queue_bytes()) reads it under
 *   rcu_read_lock(); the queue is freed a grace period after it is
 *   unpublished.  The hooks use it without RCU: they run only while the
 *   queue is in use (in_use, between kptrace_queue_start() and
 *   kptrace_queue_stop(), which is called once they are detached), and a
 *   queue in use is never freed.
 * - n_written and n_dropped are per CPU, written only by their CPU's hooks.
 * - A hook never wakes a reader itself: the wait queue's lock is a
 *   sleeping lock on PREEMPT_RT.  It queues an irq_work, which wakes the
 *   readers (in a kernel thread on PREEMPT_RT, in hardirq otherwise); a
 *   burst of calls costs one wakeup, not one each.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/ring_buffer.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include <wrapper/ring_buffer.h>
#include <slabtrace/core.h>

#include "kptrace.h"

DECLARE_WAIT_QUEUE_HEAD(kptrace_wait);

static void wake_fn(struct irq_work *work)
{
	wake_up_interruptible(&kptrace_wait);
}

static struct irq_work wake_work = IRQ_WORK_INIT(wake_fn);

#define KPTRACE_SIZE_MIN	PAGE_SIZE
#define KPTRACE_SIZE_MAX	((unsigned long)KPTRACE_SIZE_KB_MAX << 10)

/* Bytes per CPU of the next queue and stream ("syscall size"). */
static unsigned long kptrace_size = KPTRACE_DEFAULT_SIZE;

/**
 * kptrace_queue_parse_size - a queue size, for "syscall size" and kptrace_size=
 * @arg: decimal bytes with an optional K or M suffix (KiB, MiB): "4096",
 *	 "64K", "2M"; no sign, no hex, a trailing newline allowed
 * @size: the bytes
 *
 * Not memparse(), which wraps on overflow: "17592186044417M" would be 1M.
 *
 * Return: 0; -EINVAL if @arg is not such a size; -ERANGE if it overflows
 * or is outside KPTRACE_SIZE_MIN..KPTRACE_SIZE_MAX.
 */
int kptrace_queue_parse_size(const char *arg, unsigned long *size)
{
	size_t len = strcspn(arg, "\n"), digits = strspn(arg, "0123456789");
	char num[24], esc[SLABTRACE_ESC_SIZE];
	size_t zeros;
	unsigned int shift = 0;
	u64 n;
	int ret;

	if (digits && digits + 1 == len && (arg[digits] == 'K' ||
					    arg[digits] == 'M'))
		shift = arg[digits] == 'K' ? 10 : 20;
	/* Leading zeros are not a size's digits: 000064K is 64K. */
	zeros = digits ? min(strspn(arg, "0"), digits - 1) : 0;
	if (!digits || (digits != len && !shift) || strlen(arg + len) > 1) {
		ret = -EINVAL;
	} else if (digits - zeros >= sizeof(num)) {
		ret = -ERANGE;
	} else {
		memcpy(num, arg + zeros, digits - zeros);
		num[digits - zeros] = '\0';
		ret = kstrtou64(num, 10, &n);
		if (!ret && (check_shl_overflow(n, shift, &n) ||
			     n < KPTRACE_SIZE_MIN || n > KPTRACE_SIZE_MAX))
			ret = -ERANGE;
	}
	if (ret) {
		pr_warn_ratelimited("syscall: size: '%s' is not a size from %lu to %lu bytes (decimal, K or M)%s\n",
				    slabtrace_esc_str(esc, arg),
				    KPTRACE_SIZE_MIN, KPTRACE_SIZE_MAX,
				    ret == -ERANGE ? ": out of range" : "");
		return ret;
	}
	*size = n;
	return 0;
}

static int set_size_param(const char *val, const struct kernel_param *kp)
{
	return kptrace_queue_parse_size(val, kp->arg);
}

static const struct kernel_param_ops size_param_ops = {
	.set = set_size_param,
	.get = param_get_ulong,
};

module_param_cb(kptrace_size, &size_param_ops, &kptrace_size, 0400);
MODULE_PARM_DESC(kptrace_size, "kptrace queue size per CPU, bytes (default 2 MiB)");

static struct trace_buffer __rcu *kptrace_buffer;
/* kptrace_buffer's creation and freeing, in_use, the reading (see above). */
static DEFINE_MUTEX(queue_lock);
static bool in_use;			/* between start and stop */
static unsigned long n_read;
static DEFINE_PER_CPU(unsigned long, n_written);
static DEFINE_PER_CPU(unsigned long, n_dropped);

/* The queue, for its owner.  Called with queue_lock held. */
static struct trace_buffer *locked_buffer(void)
{
	return rcu_dereference_protected(kptrace_buffer,
					 lockdep_is_held(&queue_lock));
}

/*
 * The queue, for the hooks: it is in use while they run, and a queue in
 * use is never freed (Notes on locking).
 */
static struct trace_buffer *writer_buffer(void)
{
	return rcu_dereference_protected(kptrace_buffer, 1);
}

/* Free the queue, if any.  Called with queue_lock held, not in use. */
static void queue_free(void)
{
	struct trace_buffer *b = locked_buffer();

	lockdep_assert_held(&queue_lock);
	if (!b)
		return;
	RCU_INIT_POINTER(kptrace_buffer, NULL);
	/* Lockless readers (kptrace_queue_empty()) may still look at it. */
	synchronize_rcu();
	ring_buffer_free(b);
}

/* Free the queue if it is idle and empty.  Called with queue_lock held. */
static void queue_trim(void)
{
	struct trace_buffer *b = locked_buffer();

	lockdep_assert_held(&queue_lock);
	if (b && !in_use && !ring_buffer_entries(b))
		queue_free();
}

/**
 * kptrace_mem_check - whether a command may allocate @bytes
 * @what: what for, in the log line
 * @bytes: how much
 *
 * A command's buffers take at most half the memory available
 * (si_mem_available()): a start that would take more fails at once,
 * rather than leave the system short (or wake the OOM killer).
 *
 * Return: 0, or -ENOMEM (logged).
 */
int kptrace_mem_check(const char *what, u64 bytes)
{
	u64 avail = (u64)si_mem_available() << PAGE_SHIFT;

	if (bytes <= avail / 2)
		return 0;
	pr_warn_ratelimited("syscall: start: %s would take %llu KiB, more than half the %llu KiB available\n",
			    what, bytes >> 10, avail >> 10);
	return -ENOMEM;
}

/**
 * kptrace_queue_start - the queue, for a trace to write to
 * @size: bytes per CPU, if it must be made (kptrace_queue_size())
 *
 * Makes the queue unless the records of an earlier trace still hold it
 * (of the same size: "syscall size" discards it).
 * The hooks may write to it once this returned 0, until
 * kptrace_queue_stop().
 *
 * Return: 0; -ENOMEM if it would take more than half the memory
 * available (logged) or could not be allocated.
 */
int kptrace_queue_start(unsigned long size)
{
	struct trace_buffer *b;
	int ret = 0;

	mutex_lock(&queue_lock);
	if (locked_buffer())
		goto out;
	ret = kptrace_mem_check("the queue",
				(u64)PAGE_ALIGN(size) * num_possible_cpus());
	if (ret)
		goto out;
	/* The ring buffer allocates with __GFP_RETRY_MAYFAIL: no OOM kill. */
	b = ring_buffer_alloc(size, 0);
	if (!b) {
		pr_warn_ratelimited("syscall: start: no memory for a queue of %lu bytes per CPU\n",
				    size);
		ret = -ENOMEM;
		goto out;
	}
	rcu_assign_pointer(kptrace_buffer, b);
out:
	if (!ret)
		WRITE_ONCE(in_use, true);
	mutex_unlock(&queue_lock);
	return ret;
}

/*
 * The trace stopped, its hooks are detached: the queue is freed now if it
 * is empty, else once a reader took its last record (or at a reset).
 */
void kptrace_queue_stop(void)
{
	mutex_lock(&queue_lock);
	WRITE_ONCE(in_use, false);
	queue_trim();
	mutex_unlock(&queue_lock);
}

/* Free the queue, and the records it holds.  Not while it is in use. */
void kptrace_queue_discard(void)
{
	mutex_lock(&queue_lock);
	if (!WARN_ON_ONCE(in_use))
		queue_free();
	mutex_unlock(&queue_lock);
}

/* "syscall size": the queue goes; the next start makes one of @size. */
void kptrace_queue_resize(unsigned long size)
{
	kptrace_queue_discard();
	WRITE_ONCE(kptrace_size, size);
}

/* Bytes per CPU of the next queue, and of the next binary stream. */
unsigned long kptrace_queue_size(void)
{
	return READ_ONCE(kptrace_size);
}

/* Whether a trace writes to the queue (its size changes). */
bool kptrace_queue_in_use(void)
{
	return READ_ONCE(in_use);
}

/* A call the hooks could not follow (no entry): counted as dropped. */
void kptrace_queue_drop(void)
{
	this_cpu_inc(n_dropped);
}

/**
 * kptrace_queue_reserve - room for a record, written in place
 * @data_len: the bytes of its data[]
 * @event: for kptrace_queue_commit()
 *
 * Called by the hooks, with preemption disabled, while the queue is in
 * use; a full queue counts the record as dropped.
 *
 * Return: the record to fill, then commit; NULL if the queue is full.
 */
struct kptrace_rec *kptrace_queue_reserve(unsigned int data_len,
					  struct ring_buffer_event **event)
{
	*event = ring_buffer_lock_reserve(writer_buffer(),
					  sizeof(struct kptrace_rec) + data_len);
	if (!*event) {
		this_cpu_inc(n_dropped);
		return NULL;
	}
	return ring_buffer_event_data(*event);
}

/* Queue the record kptrace_queue_reserve() gave, and wake the readers. */
void kptrace_queue_commit(struct ring_buffer_event *event)
{
	slabtrace_rb_commit(writer_buffer(), event);
	this_cpu_inc(n_written);
	if (wq_has_sleeper(&kptrace_wait))
		irq_work_queue(&wake_work);
}

/* The CPU whose oldest record ended first, or -1.  Called with queue_lock. */
static int oldest_cpu(struct trace_buffer *b)
{
	struct ring_buffer_event *ev;
	const struct kptrace_rec *r;
	u64 end = U64_MAX;
	int cpu, best = -1;

	lockdep_assert_held(&queue_lock);
	for_each_possible_cpu(cpu) {
		ev = ring_buffer_peek(b, cpu, NULL, NULL);
		if (!ev)
			continue;
		r = ring_buffer_event_data(ev);
		if (r->end_ns < end) {
			end = r->end_ns;
			best = cpu;
		}
	}
	return best;
}

/**
 * kptrace_queue_pop - take the oldest record out of the queue
 * @rec: where to copy it
 * @size: room at @rec, at least sizeof(*rec) + KPTRACE_DATA_MAX
 *
 * The last record of a queue no trace writes to frees the queue.
 *
 * Return: its length, 0 if the queue is empty.
 */
int kptrace_queue_pop(struct kptrace_rec *rec, size_t size)
{
	struct ring_buffer_event *ev;
	struct trace_buffer *b;
	int cpu, len = 0;

	mutex_lock(&queue_lock);
	b = locked_buffer();
	if (!b)
		goto out;
	cpu = oldest_cpu(b);
	if (cpu < 0)
		goto out;
	ev = ring_buffer_consume(b, cpu, NULL, NULL);
	if (!ev)
		goto out;
	/* The event's length is padded: the record says its own. */
	len = min_t(size_t, ring_buffer_event_length(ev), size);
	memcpy(rec, ring_buffer_event_data(ev), len);
	rec->data_len = min_t(size_t, rec->data_len, len - sizeof(*rec));
	len = sizeof(*rec) + rec->data_len;
	n_read++;
out:
	queue_trim();
	mutex_unlock(&queue_lock);
	return len;
}

/*
 * Whether no record is there for a reader: the waiting readers' wakeup
 * condition.  Not ring_buffer_entries(), which counts a record as its
 * commit begins, before a reader can take it (and a record committed
 * inside another's reservation, by an interrupt on that CPU, until the
 * outer one is committed): the woken readers found nothing and spun.
 * Process context; takes the buffer's reader locks (raw), one at a time.
 */
bool kptrace_queue_empty(void)
{
	struct trace_buffer *b;
	bool empty;

	rcu_read_lock();
	b = rcu_dereference(kptrace_buffer);
	empty = !b || ring_buffer_empty(b);
	rcu_read_unlock();
	return empty;
}

/* Bytes queued, all CPUs.  Takes no lock. */
unsigned long kptrace_queue_bytes(void)
{
	struct trace_buffer *b;
	unsigned long bytes = 0;
	int cpu;

	rcu_read_lock();
	b = rcu_dereference(kptrace_buffer);
	if (b)
		for_each_possible_cpu(cpu)
			bytes += ring_buffer_bytes_cpu(b, cpu);
	rcu_read_unlock();
	return bytes;
}

/* Bytes of records the queue can hold, all CPUs: 0 when it is freed. */
static unsigned long allocated(void)
{
	struct trace_buffer *b = locked_buffer();
	unsigned long bytes = 0;
	int cpu;

	lockdep_assert_held(&queue_lock);
	if (b)
		for_each_possible_cpu(cpu)
			bytes += ring_buffer_size(b, cpu);
	return bytes;
}

/**
 * kptrace_queue_held - what a queue no trace writes to holds
 * @records: set to the records it holds
 *
 * Return: the bytes it was allocated (all CPUs), 0 if there is no such
 * queue (none, or one in use).
 */
unsigned long kptrace_queue_held(unsigned long *records)
{
	unsigned long bytes = 0;

	*records = 0;
	mutex_lock(&queue_lock);
	if (!in_use && locked_buffer()) {
		*records = ring_buffer_entries(locked_buffer());
		bytes = allocated();
	}
	mutex_unlock(&queue_lock);
	return bytes;
}

/*
 * Empty the queue and zero the counters; a queue no trace writes to is
 * freed.  Nothing may be writing to it.
 */
void kptrace_queue_reset(void)
{
	int cpu;

	mutex_lock(&queue_lock);
	if (in_use)
		ring_buffer_reset(locked_buffer());
	else
		queue_free();
	for_each_possible_cpu(cpu) {
		per_cpu(n_written, cpu) = 0;
		per_cpu(n_dropped, cpu) = 0;
	}
	n_read = 0;
	mutex_unlock(&queue_lock);
}

/* Records written, read and dropped since the last reset. */
VISIBLE_IF_KUNIT void kptrace_queue_counts(unsigned long *written,
					   unsigned long *read,
					   unsigned long *dropped)
{
	int cpu;

	*written = 0;
	*dropped = 0;
	for_each_possible_cpu(cpu) {
		*written += per_cpu(n_written, cpu);
		*dropped += per_cpu(n_dropped, cpu);
	}
	*read = READ_ONCE(n_read);
}

/* The contents of kptrace_stats. */
void kptrace_queue_show_stats(struct seq_file *m)
{
	unsigned long written, read, dropped;

	kptrace_queue_counts(&written, &read, &dropped);
	mutex_lock(&queue_lock);
	seq_printf(m, "written: %lu\nread: %lu\ndropped: %lu\n", written,
		   read, dropped);
	seq_printf(m, "queued: %lu bytes\nqueue size: %lu bytes per CPU, %u CPUs\n",
		   kptrace_queue_bytes(), kptrace_queue_size(),
		   num_possible_cpus());
	seq_printf(m, "allocated: %lu bytes\n", allocated());
	mutex_unlock(&queue_lock);
}

/* At module exit, after the hooks are gone. */
void kptrace_queue_exit(void)
{
	irq_work_sync(&wake_work);
	mutex_lock(&queue_lock);
	WRITE_ONCE(in_use, false);
	queue_free();
	mutex_unlock(&queue_lock);
}
