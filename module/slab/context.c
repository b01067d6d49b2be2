// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: the context of an allocation, as the dump shows it: "PID n
 * comm" for a task, "kthread NAME", "softirq" or "hardirq".
 *
 * Records keep the pid and the cpu themselves and a 16-bit id of an
 * interned (kind, comm) pair: a program's name is stored once, not once
 * per object, and the id costs a record 2 bytes where a pointer would cost
 * 8.  Interrupt contexts have fixed ids and intern nothing, so the intern
 * table is only written from task context.  Its entries are allocated
 * once, at init: a probe never allocates.  When it is full, new names show
 * as "?" and are counted (SLABTRACE_DROP_CTX).
 *
 * Notes on locking
 * ----------------
 * - ctx_lock (raw spinlock, irq-safe): adding to ctx_hash, ctx_by_id[] and
 *   ctx_count.  Only taken in task context, by a probe, but a probe may
 *   run inside any irq-safe lock of its caller, and on PREEMPT_RT with
 *   preemption disabled: a raw spinlock, held with irqs off.
 * - ctx_hash and ctx_by_id[] are read locklessly: the probes under RCU
 *   (they run with preemption disabled), the dump at any time.  An entry
 *   is complete before it is published (hash_add_rcu(),
 *   smp_store_release()) and never removed before module exit, when the
 *   probes are unregistered and synchronised and no dump can be read.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compat.h>
#include <linux/hardirq.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <asm/syscall.h>

#include <slabtrace/compat.h>
#include <slabtrace/kptrace.h>
#include <slabtrace/slabtrace.h>

/* Distinct (kind, comm) pairs kept; past this, new ones show as "?". */
#define CTX_MAX		4096

enum {
	CTX_ID_UNKNOWN,
	CTX_ID_SOFTIRQ,
	CTX_ID_HARDIRQ,
	CTX_ID_FIRST,		/* the first interned one */
};

static struct slabtrace_ctx ctx_fixed[CTX_ID_FIRST] = {
	[CTX_ID_UNKNOWN] = { .kind = SLABTRACE_CTX_TASK, .comm = "?" },
	[CTX_ID_SOFTIRQ] = { .kind = SLABTRACE_CTX_SOFTIRQ },
	[CTX_ID_HARDIRQ] = { .kind = SLABTRACE_CTX_HARDIRQ },
};

static DEFINE_HASHTABLE(ctx_hash, 8);
static DEFINE_RAW_SPINLOCK(ctx_lock);
/* The entries ctx_by_id[CTX_ID_FIRST...] are taken from, in order. */
static struct slabtrace_ctx *ctx_store;
static struct slabtrace_ctx *ctx_by_id[CTX_MAX] = {
	&ctx_fixed[CTX_ID_UNKNOWN],
	&ctx_fixed[CTX_ID_SOFTIRQ],
	&ctx_fixed[CTX_ID_HARDIRQ],
};

static unsigned int ctx_count = CTX_ID_FIRST;

static_assert(U16_MAX + 1 >= CTX_MAX);

static u32 ctx_key(u8 kind, const char *comm)
{
	return jhash(comm, TASK_COMM_LEN, kind);
}

static struct slabtrace_ctx *ctx_find(u32 key, u8 kind, const char *comm)
{
	struct slabtrace_ctx *c;

	hash_for_each_possible_rcu(ctx_hash, c, node, key)
		if (c->kind == kind && !memcmp(c->comm, comm, TASK_COMM_LEN))
			return c;
	return NULL;
}

/* The id of (@kind, @comm), or CTX_ID_UNKNOWN if the table is full. */
static u16 ctx_intern(u8 kind, const char *comm)
{
	struct slabtrace_ctx *c, *found;
	u32 key = ctx_key(kind, comm);
	unsigned long flags;

	found = ctx_find(key, kind, comm);
	if (likely(found))
		return found->id;

	raw_spin_lock_irqsave(&ctx_lock, flags);
	found = ctx_find(key, kind, comm);
	if (!found && ctx_count < CTX_MAX) {
		c = &ctx_store[ctx_count - CTX_ID_FIRST];
		c->id = ctx_count;
		c->kind = kind;
		memcpy(c->comm, comm, TASK_COMM_LEN);
		/* Pairs with slabtrace_ctx_get(): *c is complete before. */
		smp_store_release(&ctx_by_id[ctx_count], c);
		ctx_count++;
		hash_add_rcu(ctx_hash, &c->node, key);
		found = c;
	}
	raw_spin_unlock_irqrestore(&ctx_lock, flags);
	return found ? found->id : CTX_ID_UNKNOWN;
}

/* The system call current is in, or -1. */
static s16 current_syscall(void)
{
	int nr;

	if (!in_task() || (current->flags & (PF_KTHREAD | SLABTRACE_PF_WORKER)))
		return -1;
	nr = syscall_get_nr(current, task_pt_regs(current));
	if (nr < 0 || nr >= SLABTRACE_SYSCALL_COMPAT)
		return -1;
	return in_compat_syscall() ? nr | SLABTRACE_SYSCALL_COMPAT : nr;
}

/**
 * slabtrace_ctx_fill - record where an allocation happens
 * @rec: the record being filled in
 *
 * Called from the probes: any context but NMI, preemption disabled.
 *
 * Return: false if the context could not be interned (shown as "?").
 */
bool slabtrace_ctx_fill(struct slabtrace_record *rec)
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
		kind = SLABTRACE_CTX_KTHREAD;
	else if (current->flags & SLABTRACE_PF_WORKER)
		kind = SLABTRACE_CTX_WORKER;
	else
		kind = SLABTRACE_CTX_TASK;
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

/* Contexts interned, and how many fit (for the stats). */
unsigned int slabtrace_ctx_count(void)
{
	return READ_ONCE(ctx_count) - CTX_ID_FIRST;
}

unsigned int slabtrace_ctx_capacity(void)
{
	return CTX_MAX - CTX_ID_FIRST;
}

/**
 * slabtrace_ctx_get - the context a record's id stands for
 * @id: slabtrace_record.ctx
 *
 * Return: the context; the "?" one for an id that was never given out.
 */
const struct slabtrace_ctx *slabtrace_ctx_get(u16 id)
{
	const struct slabtrace_ctx *c = NULL;

	if (id < CTX_MAX)	/* pairs with ctx_intern()'s release */
		c = smp_load_acquire(&ctx_by_id[id]);
	return c ?: &ctx_fixed[CTX_ID_UNKNOWN];
}

/**
 * slabtrace_ctx_show - print the context of a record
 * @m: where
 * @rec: the record
 *
 * "PID 212 cat", "kthread kworker/0:1 (PID 8)", "worker iou-wrk-212 (PID
 * 213)" (a process's io_uring or vhost thread: in no system call of its
 * own), "softirq", "hardirq";
 * the name escaped (SLABTRACE_ESCAPE): "PID 9 X\nObj" is one line.
 */
void slabtrace_ctx_show(struct seq_file *m, const struct slabtrace_record *rec)
{
	const struct slabtrace_ctx *c = slabtrace_ctx_get(rec->ctx);

	switch (c->kind) {
	case SLABTRACE_CTX_HARDIRQ:
		seq_puts(m, "hardirq");
		break;
	case SLABTRACE_CTX_SOFTIRQ:
		seq_puts(m, "softirq");
		break;
	case SLABTRACE_CTX_WORKER:
		seq_puts(m, "worker ");
		slabtrace_seq_name(m, c->comm, sizeof(c->comm));
		seq_printf(m, " (PID %d)", rec->pid);
		break;
	case SLABTRACE_CTX_KTHREAD:
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
 * slabtrace_syscall_show - print the system call a record was made in
 * @m: where
 * @rec: the record
 *
 * " in syscall openat", or nothing outside system calls.
 */
void slabtrace_syscall_show(struct seq_file *m,
			    const struct slabtrace_record *rec)
{
	bool compat = rec->syscall & SLABTRACE_SYSCALL_COMPAT;
	int nr = rec->syscall & ~SLABTRACE_SYSCALL_COMPAT;
	const char *name;

	if (rec->syscall < 0)
		return;
	name = slabtrace_syscall_name(nr, compat);
	if (name)
		seq_printf(m, " in syscall %s%s", compat ? "compat " : "", name);
	else
		seq_printf(m, " in syscall %d%s", nr, compat ? " (compat)" : "");
}

/* The table's entries, allocated once: the probes never allocate. */
int slabtrace_ctx_init(void)
{
	ctx_store = kvcalloc(CTX_MAX - CTX_ID_FIRST, sizeof(*ctx_store),
			     GFP_KERNEL);
	return ctx_store ? 0 : -ENOMEM;
}

/* Called after the probes are unregistered and synchronised. */
void slabtrace_ctx_exit(void)
{
	unsigned int i;

	for (i = CTX_ID_FIRST; i < ctx_count; i++)
		ctx_by_id[i] = NULL;
	hash_init(ctx_hash);
	ctx_count = CTX_ID_FIRST;
	kvfree(ctx_store);
	ctx_store = NULL;
}
