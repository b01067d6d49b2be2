// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: the context of an allocation, as the dump shows it: "PID n
 * comm" for a task, "kthread NAME", "softirq" or "hardirq".
 *
 * Records keep the pid and the cpu themselves and a 16-bit id of an
 * interned (kind, comm) pair: a program's name is stored once, not once
 * per object, and the id costs a record 2 bytes where a pointer would cost
 * 8.  Interrupt contexts have fixed ids and intern nothing, so the table
 * is only written from task context.  Its entries come in chunks of
 * CTX_CHUNK, allocated outside the probes: a probe never allocates.
 *
 * Any user can make new names (prctl(PR_SET_NAME)), so entries are
 * reclaimed.  When a probe finds no free entry, the name shows as "?"
 * (with its pid), is counted (SLAB_TRACE_DROP_CTX), and a sweep is kicked
 * (irq_work, then a work item, at most one a second): it marks the ids
 * that records and snapshots use, takes the others out of the hash,
 * waits for the probes that may have found one (synchronize_rcu()),
 * looks at the records again for those, and frees the entries nobody
 * uses.  A walk of the records that fails (no memory, the caller killed)
 * frees nothing: every candidate goes back into the hash.  If less than
 * a quarter of the table is free then, it grows by a chunk, up to
 * CTX_MAX: names still in use (objects outstanding) are never lost, only
 * new ones wait for the next sweep.
 *
 * "In syscall N" is said only of a task whose saved registers are a user
 * mode's: a task forked from a kernel thread (a usermode helper before
 * its exec) has zeroed ones, whose system call number would read 0.
 *
 * Notes on locking
 * ----------------
 * - ctx_lock (raw spinlock, irq-safe): adding to and removing from
 *   ctx_hash, ctx_free, ctx_used, ctx_capacity, ctx_chunks[].  Taken by
 *   probes in task context, which may run inside any irq-safe lock of
 *   their caller, and on PREEMPT_RT with preemption disabled: a raw
 *   spinlock, held with irqs off, for a bounded bitmap search; the sweep
 *   holds it for SWEEP_BATCH ids at a time.
 * - ctx_hash and the entries are read locklessly: the probes under RCU
 *   (they run with preemption disabled), the dump at any time.  An entry
 *   is complete before it is published (hash_add_rcu()); it is reused
 *   only after a grace period and only when no record or snapshot holds
 *   its id.
 * - The sweep takes slab_trace_mutex, then slab_trace_print_sem for writing
 *   (no print is copying records), then the snapshots' list lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/compat.h>
#include <linux/hardirq.h>
#include <linux/hashtable.h>
#include <linux/irq_work.h>
#include <linux/jhash.h>
#include <linux/ptrace.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <asm/syscall.h>

#include <wrapper/sched.h>
#include <wrapper/workqueue.h>

#include "slab.h"

/* Entries are allocated CTX_CHUNK at a time, up to CTX_MAX: ids are u16. */
#define CTX_CHUNK	4096
#define CTX_CHUNKS	16
#define CTX_MAX		(CTX_CHUNK * CTX_CHUNKS)
/* Ids the sweep looks at per hold of ctx_lock: a few microseconds. */
#define SWEEP_BATCH	256

enum {
	CTX_ID_UNKNOWN,
	CTX_ID_SOFTIRQ,
	CTX_ID_HARDIRQ,
	CTX_ID_FIRST,		/* the first interned one */
};

static struct slab_trace_ctx ctx_fixed[CTX_ID_FIRST] = {
	[CTX_ID_UNKNOWN] = { .kind = SLAB_TRACE_CTX_TASK, .comm = "?" },
	[CTX_ID_SOFTIRQ] = { .kind = SLAB_TRACE_CTX_SOFTIRQ },
	[CTX_ID_HARDIRQ] = { .kind = SLAB_TRACE_CTX_HARDIRQ },
};

static DEFINE_HASHTABLE(ctx_hash, 8);
/* Adding to and removing from ctx_hash, and the table's state below. */
static DEFINE_RAW_SPINLOCK(ctx_lock);
static struct slab_trace_ctx *ctx_chunks[CTX_CHUNKS];
static unsigned long *ctx_free;		/* CTX_MAX bits: 1 = a free entry */
static unsigned int ctx_capacity;	/* ids below it have entries */
static unsigned int ctx_used;		/* interned, the fixed ones too */
static unsigned int ctx_hint;		/* where to look for a free one */
static atomic_long_t ctx_reclaimed;
static atomic_long_t ctx_sweeps;
static unsigned long ctx_last_sweep;	/* jiffies */

static_assert(U16_MAX + 1 >= CTX_MAX);

static u32 ctx_key(u8 kind, const char *comm)
{
	return jhash(comm, TASK_COMM_LEN, kind);
}

/* The entry of a given-out id; fixed ones are not in the chunks. */
static struct slab_trace_ctx *ctx_entry(unsigned int id)
{
	struct slab_trace_ctx *chunk;

	/* Pairs with the release in ctx_grow(). */
	chunk = smp_load_acquire(&ctx_chunks[id / CTX_CHUNK]);
	return chunk ? &chunk[id % CTX_CHUNK] : NULL;
}

static struct slab_trace_ctx *ctx_find(u32 key, u8 kind, const char *comm)
{
	struct slab_trace_ctx *c;

	hash_for_each_possible_rcu(ctx_hash, c, node, key)
		if (c->kind == kind && !memcmp(c->comm, comm, TASK_COMM_LEN))
			return c;
	return NULL;
}

static void ctx_sweep_kick_fn(struct irq_work *work);
static struct irq_work ctx_sweep_kick = IRQ_WORK_INIT(ctx_sweep_kick_fn);

/* The id of (@kind, @comm), or CTX_ID_UNKNOWN if the table is full. */
static u16 ctx_intern(u8 kind, const char *comm)
{
	struct slab_trace_ctx *c, *found;
	u32 key = ctx_key(kind, comm);
	unsigned long flags;
	unsigned int id;

	found = ctx_find(key, kind, comm);
	if (likely(found))
		return found->id;

	raw_spin_lock_irqsave(&ctx_lock, flags);
	found = ctx_find(key, kind, comm);
	if (!found) {
		id = find_next_bit(ctx_free, ctx_capacity, ctx_hint);
		if (id >= ctx_capacity)
			id = find_first_bit(ctx_free, ctx_capacity);
		if (id < ctx_capacity) {
			__clear_bit(id, ctx_free);
			c = ctx_entry(id);
			c->id = id;
			c->kind = kind;
			memcpy(c->comm, comm, TASK_COMM_LEN);
			/* *c is complete before readers can find it. */
			hash_add_rcu(ctx_hash, &c->node, key);
			ctx_used++;
			ctx_hint = id + 1;
			found = c;
		}
	}
	raw_spin_unlock_irqrestore(&ctx_lock, flags);
	if (!found)
		irq_work_queue(&ctx_sweep_kick);
	return found ? found->id : CTX_ID_UNKNOWN;
}

/* The system call current is in, or -1. */
static s16 current_syscall(void)
{
	struct pt_regs *regs;
	int nr;

	if (!in_task() || (current->flags & (PF_KTHREAD | SLABTRACE_PF_WORKER)))
		return -1;
	/* Not a user's registers: forked from a kernel thread, before exec. */
	regs = task_pt_regs(current);
	if (!user_mode(regs))
		return -1;
	nr = syscall_get_nr(current, regs);
	if (nr < 0 || nr >= SLAB_TRACE_SYSCALL_COMPAT)
		return -1;
	return in_compat_syscall() ? nr | SLAB_TRACE_SYSCALL_COMPAT : nr;
}

/**
 * slab_trace_ctx_fill - record where an allocation happens
 * @rec: the record being filled in
 *
 * Called from the probes: any context but NMI, preemption disabled.
 *
 * Return: false if the context could not be interned (shown as "?").
 */
bool slab_trace_ctx_fill(struct slab_trace_record *rec)
{
	char comm[TASK_COMM_LEN];
	u8 kind;

	rec->cpu = smp_processor_id();
	rec->syscall = -1;
	rec->pid = 0;
	if (in_hardirq()) {
		rec->ctx = CTX_ID_HARDIRQ;
		return true;
	}
	if (in_serving_softirq()) {
		rec->ctx = CTX_ID_SOFTIRQ;
		return true;
	}
	if (current->flags & PF_KTHREAD)
		kind = SLAB_TRACE_CTX_KTHREAD;
	else if (current->flags & SLABTRACE_PF_WORKER)
		kind = SLAB_TRACE_CTX_WORKER;
	else
		kind = SLAB_TRACE_CTX_TASK;
	/*
	 * Unlocked, like printk's %s of current->comm: a concurrent rename may
	 * tear it, never overrun it.  Padded, since the whole array is the key.
	 */
	strscpy_pad(comm, current->comm, sizeof(comm));
	rec->pid = task_pid_nr(current);
	rec->syscall = current_syscall();
	rec->ctx = ctx_intern(kind, comm);
	return rec->ctx != CTX_ID_UNKNOWN;
}

/* Contexts interned, how many fit now, and at most (for the stats). */
unsigned int slab_trace_ctx_count(void)
{
	return READ_ONCE(ctx_used) - CTX_ID_FIRST;
}

unsigned int slab_trace_ctx_capacity(void)
{
	return READ_ONCE(ctx_capacity) - CTX_ID_FIRST;
}

unsigned int slab_trace_ctx_max(void)
{
	return CTX_MAX - CTX_ID_FIRST;
}

/* Entries reclaimed, and sweeps made, since load. */
long slab_trace_ctx_reclaimed(void)
{
	return atomic_long_read(&ctx_reclaimed);
}

long slab_trace_ctx_sweeps(void)
{
	return atomic_long_read(&ctx_sweeps);
}

/**
 * slab_trace_ctx_get - the context a record's id stands for
 * @id: slab_trace_record.ctx
 *
 * Return: the context; the "?" one for an id that was never given out.
 */
const struct slab_trace_ctx *slab_trace_ctx_get(u16 id)
{
	const struct slab_trace_ctx *c;

	if (id < CTX_ID_FIRST)
		return &ctx_fixed[id];
	c = ctx_entry(id);
	return c ?: &ctx_fixed[CTX_ID_UNKNOWN];
}

/**
 * slab_trace_ctx_show - print the context of a record
 * @m: where
 * @rec: the record
 *
 * "PID 212 cat", "kthread kworker/0:1 (PID 8)", "worker iou-wrk-212 (PID
 * 213)" (a process's io_uring or vhost thread: in no system call of its
 * own), "softirq", "hardirq";
 * the name escaped (SLABTRACE_ESCAPE): "PID 9 X\nObj" is one line.
 */
void slab_trace_ctx_show(struct seq_file *m, const struct slab_trace_record *rec)
{
	const struct slab_trace_ctx *c = slab_trace_ctx_get(rec->ctx);

	switch (c->kind) {
	case SLAB_TRACE_CTX_HARDIRQ:
		seq_puts(m, "hardirq");
		break;
	case SLAB_TRACE_CTX_SOFTIRQ:
		seq_puts(m, "softirq");
		break;
	case SLAB_TRACE_CTX_WORKER:
		seq_puts(m, "worker ");
		slabtrace_seq_name(m, c->comm, sizeof(c->comm));
		seq_printf(m, " (PID %d)", rec->pid);
		break;
	case SLAB_TRACE_CTX_KTHREAD:
		seq_puts(m, "kthread ");
		slabtrace_seq_name(m, c->comm, sizeof(c->comm));
		seq_printf(m, " (PID %d)", rec->pid);
		break;
	default:
		seq_printf(m, "PID %d ", rec->pid);
		slabtrace_seq_name(m, c->comm, sizeof(c->comm));
		break;
	}
}

/**
 * slab_trace_syscall_show - print the system call a record was made in
 * @m: where
 * @rec: the record
 *
 * " in syscall openat", or nothing outside system calls.
 */
void slab_trace_syscall_show(struct seq_file *m,
			     const struct slab_trace_record *rec)
{
	bool compat = rec->syscall & SLAB_TRACE_SYSCALL_COMPAT;
	int nr = rec->syscall & ~SLAB_TRACE_SYSCALL_COMPAT;
	const char *name;

	if (rec->syscall < 0)
		return;
	name = slabtrace_syscall_name(nr, compat);
	if (name)
		seq_printf(m, " in syscall %s%s", compat ? "compat " : "", name);
	else
		seq_printf(m, " in syscall %d%s", nr, compat ? " (compat)" : "");
}

/* Add a chunk of entries.  Called from the sweep or at init. */
static int ctx_grow(void)
{
	struct slab_trace_ctx *chunk;
	unsigned long flags;
	unsigned int n = READ_ONCE(ctx_capacity) / CTX_CHUNK;

	if (n >= CTX_CHUNKS)
		return -ENOSPC;
	chunk = kvcalloc(CTX_CHUNK, sizeof(*chunk),
			 GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
	if (!chunk)
		return -ENOMEM;
	raw_spin_lock_irqsave(&ctx_lock, flags);
	/* Pairs with ctx_entry(): the chunk's zeroes are seen before it. */
	smp_store_release(&ctx_chunks[n], chunk);
	/* Chunk 0's first ids are the fixed ones: never given out. */
	bitmap_set(ctx_free, n ? n * CTX_CHUNK : CTX_ID_FIRST,
		   n ? CTX_CHUNK : CTX_CHUNK - CTX_ID_FIRST);
	WRITE_ONCE(ctx_capacity, (n + 1) * CTX_CHUNK);
	raw_spin_unlock_irqrestore(&ctx_lock, flags);
	return 0;
}

static int mark_record(const struct slab_trace_record *rec, void *used)
{
	__set_bit(rec->ctx, used);
	return 0;
}

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* The tests set it to see the sweep's walk of the records fail. */
bool slab_trace_fail_table_walk;
#endif

/* Mark the ids the records use in @used: 0, or the walk's error. */
static int mark_records(unsigned long *used)
{
#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
	if (READ_ONCE(slab_trace_fail_table_walk))
		return -ENOMEM;
#endif
	return slab_trace_table_for_each(&slab_trace_records, mark_record, used);
}

/*
 * Take the entries of ids [@from, @to) that are given out and not in
 * @used out of the hash, and mark them in @cand: SWEEP_BATCH ids a hold.
 */
static void unhash_unused(const unsigned long *used, unsigned long *cand,
			  unsigned int from, unsigned int to)
{
	unsigned long flags;
	unsigned int id, end;
	u64 t0;

	for (; from < to; from = end) {
		end = min(from + SWEEP_BATCH, to);
		t0 = slab_trace_hold_start();
		raw_spin_lock_irqsave(&ctx_lock, flags);
		for (id = from; id < end; id++) {
			if (test_bit(id, ctx_free) || test_bit(id, used))
				continue;
			hash_del_rcu(&ctx_entry(id)->node);
			__set_bit(id, cand);
		}
		raw_spin_unlock_irqrestore(&ctx_lock, flags);
		slab_trace_hold_end(SLAB_TRACE_HOLD_CTX, t0, end - from);
		cond_resched();
	}
}

/*
 * The candidates of @cand below @to: those in @used (or all, if @keep_all)
 * go back into the hash, the others are freed.  SWEEP_BATCH ids a hold.
 *
 * Return: the number freed.
 */
static long settle(const unsigned long *used, const unsigned long *cand,
		   unsigned int to, bool keep_all)
{
	struct slab_trace_ctx *c;
	unsigned long flags;
	unsigned int id, end, from;
	long freed = 0;
	u64 t0;

	for (from = 0; from < to; from = end) {
		end = min(from + SWEEP_BATCH, to);
		id = from;
		t0 = slab_trace_hold_start();
		raw_spin_lock_irqsave(&ctx_lock, flags);
		for_each_set_bit_from(id, cand, end) {
			c = ctx_entry(id);
			if (keep_all || test_bit(id, used)) {
				hash_add_rcu(ctx_hash, &c->node,
					     ctx_key(c->kind, c->comm));
				continue;
			}
			__set_bit(id, ctx_free);
			ctx_used--;
			freed++;
		}
		raw_spin_unlock_irqrestore(&ctx_lock, flags);
		slab_trace_hold_end(SLAB_TRACE_HOLD_CTX, t0, end - from);
		cond_resched();
	}
	return freed;
}

static void mark_snapshot(struct slab_trace_snapshot *snap, void *used)
{
	unsigned long i;

	for (i = 0; i < snap->nr; i++)
		__set_bit(slab_trace_snapshot_entry(snap, i)->ctx, used);
}

/**
 * slab_trace_ctx_sweep - free the entries no record or snapshot uses
 *
 * Grows the table when less than a quarter of it is free after.  A walk of
 * the records that fails frees nothing.  May sleep; the work item calls
 * it, and the unit tests.
 *
 * Return: the number of entries freed, or -ENOMEM, or the error of the
 * walk (then nothing was freed).
 */
long slab_trace_ctx_sweep(void)
{
	unsigned long *used, *cand;
	unsigned int capacity;
	long freed;
	int ret;

	used = bitmap_zalloc(CTX_MAX, GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
	cand = bitmap_zalloc(CTX_MAX, GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
	if (!used || !cand) {
		bitmap_free(used);
		bitmap_free(cand);
		return -ENOMEM;
	}
	mutex_lock(&slab_trace_mutex);
	down_write(&slab_trace_print_sem);
	ret = mark_records(used);
	if (ret)
		goto out;
	slab_trace_snapshots_alive(mark_snapshot, used);

	/* Out of the hash: no probe finds them any more ... */
	capacity = READ_ONCE(ctx_capacity);
	unhash_unused(used, cand, CTX_ID_FIRST, capacity);
	/* ... once those that found one have put their records in. */
	synchronize_rcu();
	bitmap_zero(used, CTX_MAX);
	ret = mark_records(used);
	/* Without the records' ids, none is known to be unused. */
	freed = settle(used, cand, capacity, ret != 0);
out:
	up_write(&slab_trace_print_sem);
	mutex_unlock(&slab_trace_mutex);
	bitmap_free(used);
	bitmap_free(cand);
	WRITE_ONCE(ctx_last_sweep, jiffies);
	if (ret) {
		pr_warn_ratelimited("context table: the sweep could not walk the records (%d): nothing reclaimed\n",
				    ret);
		return ret;
	}
	atomic_long_inc(&ctx_sweeps);
	atomic_long_add(freed, &ctx_reclaimed);
	/* Still mostly full: the names are in use. */
	if (capacity - READ_ONCE(ctx_used) < capacity / 4 &&
	    ctx_grow() == -ENOMEM)
		pr_warn_ratelimited("context table: no memory to grow past %u entries\n",
				    capacity);
	return freed;
}

static void ctx_sweep_fn(struct work_struct *work)
{
	slab_trace_ctx_sweep();
}

static DECLARE_DELAYED_WORK(ctx_sweep_work, ctx_sweep_fn);

/* A probe found the table full: sweep, at most once a second. */
static void ctx_sweep_kick_fn(struct irq_work *work)
{
	unsigned long next = READ_ONCE(ctx_last_sweep) + HZ;

	queue_delayed_work(SLABTRACE_SYSTEM_WQ, &ctx_sweep_work,
			   time_after(next, jiffies) ? next - jiffies : 0);
}

/* The first chunk of entries; the probes never allocate. */
int slab_trace_ctx_init(void)
{
	int ret;

	ctx_free = bitmap_zalloc(CTX_MAX, GFP_KERNEL);
	if (!ctx_free)
		return -ENOMEM;
	ctx_used = CTX_ID_FIRST;
	ctx_last_sweep = jiffies - HZ;
	ret = ctx_grow();
	if (ret) {
		bitmap_free(ctx_free);
		ctx_free = NULL;
	}
	return ret;
}

/* Called after the probes are unregistered and synchronised. */
void slab_trace_ctx_exit(void)
{
	unsigned int i;

	irq_work_sync(&ctx_sweep_kick);
	cancel_delayed_work_sync(&ctx_sweep_work);
	hash_init(ctx_hash);
	for (i = 0; i < CTX_CHUNKS; i++) {
		kvfree(ctx_chunks[i]);
		ctx_chunks[i] = NULL;
	}
	ctx_capacity = 0;
	ctx_used = CTX_ID_FIRST;
	ctx_hint = 0;
	bitmap_free(ctx_free);
	ctx_free = NULL;
}
