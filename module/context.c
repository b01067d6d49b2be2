// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: the context of an allocation, as the dump shows it: "PID n
 * comm" for a task, "kthread NAME", "softirq" or "hardirq".
 *
 * Records keep the pid and the cpu themselves and point to an interned
 * (kind, comm) pair: a program's name is stored once, not once per object.
 * Interrupt contexts use static entries and intern nothing, so the intern
 * table is only touched from task context.
 *
 * Notes on locking
 * ----------------
 * - ctx_lock (spinlock): adding to ctx_hash and ctx_count.  Taken only in
 *   task context (by a probe, so with preemption off, maybe irqs off too).
 * - ctx_hash is read under RCU (the probes run with preemption disabled);
 *   entries are never removed before module exit, after the probes are
 *   unregistered and synchronised.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

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

#include <slabtrace/slabtrace.h>

/* Distinct (kind, comm) pairs kept; past this, new ones show as "?". */
#define CTX_MAX		4096

static DEFINE_HASHTABLE(ctx_hash, 8);
static DEFINE_SPINLOCK(ctx_lock);
static unsigned int ctx_count;

static const struct slabtrace_ctx ctx_softirq = {
	.kind = SLABTRACE_CTX_SOFTIRQ,
};

static const struct slabtrace_ctx ctx_hardirq = {
	.kind = SLABTRACE_CTX_HARDIRQ,
};

static const struct slabtrace_ctx ctx_unknown = {
	.kind = SLABTRACE_CTX_TASK,
	.comm = "?",
};

static u32 ctx_key(u8 kind, const char *comm)
{
	return jhash(comm, TASK_COMM_LEN, kind);
}

static const struct slabtrace_ctx *ctx_find(u32 key, u8 kind,
					    const char *comm)
{
	struct slabtrace_ctx *c;

	hash_for_each_possible_rcu(ctx_hash, c, node, key)
		if (c->kind == kind && !memcmp(c->comm, comm, TASK_COMM_LEN))
			return c;
	return NULL;
}

static const struct slabtrace_ctx *ctx_intern(u8 kind, const char *comm)
{
	const struct slabtrace_ctx *found;
	struct slabtrace_ctx *c;
	u32 key = ctx_key(kind, comm);

	found = ctx_find(key, kind, comm);
	if (likely(found))
		return found;

	/* Allocated before taking the lock: the probes' guard stops recursion. */
	c = kmalloc(sizeof(*c), GFP_NOWAIT | __GFP_NOWARN);
	if (!c)
		return &ctx_unknown;
	c->kind = kind;
	memcpy(c->comm, comm, TASK_COMM_LEN);

	spin_lock(&ctx_lock);
	found = ctx_find(key, kind, comm);
	if (!found && ctx_count < CTX_MAX) {
		hash_add_rcu(ctx_hash, &c->node, key);
		ctx_count++;
		found = c;
		c = NULL;
	}
	spin_unlock(&ctx_lock);
	kfree(c);
	return found ?: &ctx_unknown;
}

/* The system call current is in, or -1. */
static s16 current_syscall(void)
{
	if (!in_task() || (current->flags & PF_KTHREAD))
		return -1;
	return syscall_get_nr(current, task_pt_regs(current));
}

/**
 * slabtrace_ctx_fill - record where an allocation happens
 * @rec: the record being filled in
 *
 * Called from the probes: any context but NMI, preemption disabled.
 */
void slabtrace_ctx_fill(struct slabtrace_record *rec)
{
	char comm[TASK_COMM_LEN];
	u8 kind;

	rec->cpu = smp_processor_id();
	rec->syscall = -1;
	rec->pid = 0;
	if (in_hardirq()) {
		rec->ctx = &ctx_hardirq;
		return;
	}
	if (in_serving_softirq()) {
		rec->ctx = &ctx_softirq;
		return;
	}
	kind = current->flags & PF_KTHREAD ? SLABTRACE_CTX_KTHREAD :
					     SLABTRACE_CTX_TASK;
	/*
	 * Unlocked, like printk's %s of current->comm: a concurrent rename may
	 * tear it, never overrun it.  Padded, since the whole array is the key.
	 */
	strscpy_pad(comm, current->comm, sizeof(comm));
	rec->pid = task_pid_nr(current);
	rec->syscall = current_syscall();
	rec->ctx = ctx_intern(kind, comm);
}

/**
 * slabtrace_ctx_show - print the context of a record
 * @m: where
 * @rec: the record
 *
 * Return: 0.
 */
int slabtrace_ctx_show(struct seq_file *m, const struct slabtrace_record *rec)
{
	const struct slabtrace_ctx *c = rec->ctx;

	switch (c->kind) {
	case SLABTRACE_CTX_HARDIRQ:
		seq_puts(m, "hardirq");
		break;
	case SLABTRACE_CTX_SOFTIRQ:
		seq_puts(m, "softirq");
		break;
	case SLABTRACE_CTX_KTHREAD:
		seq_printf(m, "kthread %s (PID %d)", c->comm, rec->pid);
		break;
	default:
		seq_printf(m, "PID %d %s", rec->pid, c->comm);
		break;
	}
	return 0;
}

/* Called after the probes are unregistered and synchronised. */
void slabtrace_ctx_exit(void)
{
	struct slabtrace_ctx *c;
	struct hlist_node *tmp;
	unsigned int bkt;

	hash_for_each_safe(ctx_hash, bkt, tmp, c, node) {
		hash_del(&c->node);
		kfree(c);
	}
	ctx_count = 0;
}
