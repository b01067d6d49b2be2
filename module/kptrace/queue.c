// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the queue of finished system calls.
 *
 * The kernel's ring_buffer, one per CPU, in its non-overwriting mode: the
 * hooks write a binary record on the CPU they run on, in place (reserve,
 * fill, commit), and a full queue
 * refuses it, which is counted as dropped; nothing is allocated and nothing
 * waits.  A record is written when its call ends, on the CPU it ends on,
 * so each CPU's queue is in the order its calls ended; a reader takes the
 * record that ended first of all the CPUs' oldest, and consumes it: the
 * records come out in the order the calls ended, whichever CPU they ran on
 * (a merge of sorted queues).  Not by start time: that would need the
 * records of calls still running, a long call holding back every other.
 *
 * Notes on locking
 * ----------------
 * - queue_lock (mutex): the reader side (peeking and consuming across
 *   CPUs, n_read), resizing and resetting, and creating kptrace_buffer.
 *   The writers (the hooks, preemption disabled) take nothing of ours:
 *   ring_buffer_lock_reserve() and its commit serialise with the readers
 *   themselves.
 * - kptrace_buffer is set once, under queue_lock, before any hook can
 *   run, and freed at module exit after they are gone.
 * - n_written and n_dropped are per CPU, written only by their CPU's hooks.
 * - A hook never wakes a reader itself: the wait queue's lock is a
 *   sleeping lock on PREEMPT_RT.  It queues an irq_work, which wakes the
 *   readers (in a kernel thread on PREEMPT_RT, in hardirq otherwise); a
 *   burst of calls costs one wakeup, not one each.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/ring_buffer.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include <slabtrace/compat.h>
#include <slabtrace/kptrace.h>

DECLARE_WAIT_QUEUE_HEAD(kptrace_wait);

static void wake_fn(struct irq_work *work)
{
	wake_up_interruptible(&kptrace_wait);
}

static struct irq_work wake_work = IRQ_WORK_INIT(wake_fn);

static struct trace_buffer *kptrace_buffer;
static DEFINE_MUTEX(queue_lock);
static unsigned long queue_size;	/* per CPU, bytes */
static unsigned long n_read;
static DEFINE_PER_CPU(unsigned long, n_written);
static DEFINE_PER_CPU(unsigned long, n_dropped);

/**
 * kptrace_queue_init - create the queue, if it does not exist yet
 * @size: bytes per CPU
 *
 * Return: 0 or -ENOMEM.
 */
int kptrace_queue_init(unsigned long size)
{
	int ret = 0;

	mutex_lock(&queue_lock);
	if (!kptrace_buffer) {
		kptrace_buffer = ring_buffer_alloc(size, 0);
		if (kptrace_buffer)
			queue_size = size;
		else
			ret = -ENOMEM;
	}
	mutex_unlock(&queue_lock);
	return ret;
}

/**
 * kptrace_queue_resize - empty the queue and give each CPU @size bytes
 * @size: bytes per CPU
 *
 * Nothing may be writing to the queue.
 *
 * Return: 0, or -ENOMEM (the queue keeps its old size).
 */
int kptrace_queue_resize(unsigned long size)
{
	int ret = 0;

	mutex_lock(&queue_lock);
	if (kptrace_buffer) {
		ring_buffer_reset(kptrace_buffer);
		ret = ring_buffer_resize(kptrace_buffer, size,
					 RING_BUFFER_ALL_CPUS);
	}
	if (!ret)
		queue_size = size;
	mutex_unlock(&queue_lock);
	return ret;
}

/* A call the hooks could not follow (no memory): counted as dropped. */
void kptrace_queue_drop(void)
{
	this_cpu_inc(n_dropped);
}

/**
 * kptrace_queue_reserve - room for a record, written in place
 * @data_len: the bytes of its data[]
 * @event: for kptrace_queue_commit()
 *
 * Called by the hooks, with preemption disabled; a full queue counts the
 * record as dropped.
 *
 * Return: the record to fill, then commit; NULL if the queue is full.
 */
struct kptrace_rec *kptrace_queue_reserve(unsigned int data_len,
					  struct ring_buffer_event **event)
{
	*event = ring_buffer_lock_reserve(kptrace_buffer,
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
	slabtrace_rb_commit(kptrace_buffer, event);
	this_cpu_inc(n_written);
	if (wq_has_sleeper(&kptrace_wait))
		irq_work_queue(&wake_work);
}

/* The CPU whose oldest record ended first, or -1.  Called with queue_lock. */
static int oldest_cpu(void)
{
	struct ring_buffer_event *ev;
	const struct kptrace_rec *r;
	u64 end = U64_MAX;
	int cpu, best = -1;

	lockdep_assert_held(&queue_lock);
	for_each_possible_cpu(cpu) {
		ev = ring_buffer_peek(kptrace_buffer, cpu, NULL, NULL);
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
 * Return: its length, 0 if the queue is empty.
 */
int kptrace_queue_pop(struct kptrace_rec *rec, size_t size)
{
	struct ring_buffer_event *ev;
	int cpu, len = 0;

	mutex_lock(&queue_lock);
	if (!kptrace_buffer)
		goto out;
	cpu = oldest_cpu();
	if (cpu < 0)
		goto out;
	ev = ring_buffer_consume(kptrace_buffer, cpu, NULL, NULL);
	if (!ev)
		goto out;
	/* The event's length is padded: the record says its own. */
	len = min_t(size_t, ring_buffer_event_length(ev), size);
	memcpy(rec, ring_buffer_event_data(ev), len);
	rec->data_len = min_t(size_t, rec->data_len, len - sizeof(*rec));
	len = sizeof(*rec) + rec->data_len;
	n_read++;
out:
	mutex_unlock(&queue_lock);
	return len;
}

bool kptrace_queue_empty(void)
{
	return !kptrace_buffer || !ring_buffer_entries(kptrace_buffer);
}

/* Bytes queued, all CPUs. */
unsigned long kptrace_queue_bytes(void)
{
	unsigned long bytes = 0;
	int cpu;

	if (!kptrace_buffer)
		return 0;
	for_each_possible_cpu(cpu)
		bytes += ring_buffer_bytes_cpu(kptrace_buffer, cpu);
	return bytes;
}

/* Bytes per CPU the queue has, or will have when created. */
unsigned long kptrace_queue_size(void)
{
	return queue_size;
}

/* Empty the queue and zero the counters.  Nothing may be writing to it. */
void kptrace_queue_reset(void)
{
	int cpu;

	mutex_lock(&queue_lock);
	if (kptrace_buffer)
		ring_buffer_reset(kptrace_buffer);
	for_each_possible_cpu(cpu) {
		per_cpu(n_written, cpu) = 0;
		per_cpu(n_dropped, cpu) = 0;
	}
	n_read = 0;
	mutex_unlock(&queue_lock);
}

/* Records written, read and dropped since the last reset. */
void kptrace_queue_counts(unsigned long *written, unsigned long *read,
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
		   kptrace_queue_bytes(), queue_size, num_possible_cpus());
	mutex_unlock(&queue_lock);
}

/* At module exit, after the hooks are gone. */
void kptrace_queue_exit(void)
{
	irq_work_sync(&wake_work);
	if (kptrace_buffer)
		ring_buffer_free(kptrace_buffer);
	kptrace_buffer = NULL;
}
