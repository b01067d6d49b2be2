// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: the context of an allocation, as the dump shows it: "PID n
 * comm" for a task, "kthread NAME (PID n)", "worker NAME (PID n)",
 * "softirq" or "hardirq", and the system call it was made in.
 *
 * Each record keeps its own copy of the task's name, as kmemleak's objects
 * do (struct leak_who, 24 bytes of a 64-byte record).  Why not one
 * copy per name, shared through an id: that was measured and replaced.
 * Interning (kind, name) pairs in a table of 65,536 saved 16 bytes a
 * record (records of 48 bytes, not 64), but cost 561 lines, a raw lock, a
 * hash lookup in every traced allocation (18 ns of make bench's steps; a
 * copy of 16 bytes is a few) and, since any user makes new names
 * (prctl(PR_SET_NAME)), a sweep of every record and snapshot to reclaim
 * them, under leak_mutex: an unprivileged loop of renames kept it
 * full, and with vm_area_struct traced made every command, insmod and
 * rmmod wait for sweeps (insmod + rmmod 2.7 s and 5.4 s where they took
 * 0.1 s), and the hash's chains, keyed with a fixed seed, could be made
 * long on purpose.  A copy has none of that: what a user does with names
 * costs the probe the same 16 bytes whatever it is.
 *
 * "In syscall N" is said only of a task whose saved registers are a user
 * mode's: a task forked from a kernel thread (a usermode helper before
 * its exec) has zeroed ones, whose system call number would read 0.
 *
 * No locks: the probes write a record they own; the readers show copies.
 */
#include <linux/compat.h>
#include <linux/hardirq.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <asm/syscall.h>
#include <asm/word-at-a-time.h>

#include <wrapper/sched.h>

#include <slabtrace/core.h>

#include "context.h"
#include "record.h"

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
	if (nr < 0 || nr >= LEAK_SYSCALL_COMPAT)
		return -1;
	return in_compat_syscall() ? nr | LEAK_SYSCALL_COMPAT : nr;
}

/*
 * strscpy_pad(@dst, @src, TASK_COMM_LEN), inline, with no call to
 * strscpy() and then to memset() for the padding: a comm is two words,
 * copied a word at a time, as strscpy() reads them, each masked after its
 * first NUL and the words after it zero.  Where unaligned words are slow,
 * strscpy_pad() itself (leak_who.comm is not aligned).
 */
static __always_inline void comm_copy(char *dst, const char *src)
{
#ifdef CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS
	const struct word_at_a_time k = WORD_AT_A_TIME_CONSTANTS;
	unsigned long c, bits;
	bool end = false;
	unsigned int i;

	BUILD_BUG_ON(TASK_COMM_LEN % sizeof(long));
	for (i = 0; i < TASK_COMM_LEN; i += sizeof(long)) {
		c = end ? 0 : read_word_at_a_time(src + i);
		if (!end && has_zero(c, &bits, &k)) {
			bits = prep_zero_mask(c, bits, &k);
			c &= zero_bytemask(create_zero_mask(bits));
			end = true;
		}
		memcpy(dst + i, &c, sizeof(c));	/* one store */
	}
	/* A name torn by a rename with no NUL: cut, as strscpy() would. */
	if (unlikely(!end))
		dst[TASK_COMM_LEN - 1] = '\0';
#else
	strscpy_pad(dst, src, TASK_COMM_LEN);
#endif
}

/**
 * leak_ctx_fill - record where an allocation happens
 * @rec: the record being filled in
 *
 * Context: Any context but NMI, preemption disabled (a probe).
 */
void leak_ctx_fill(struct leak_record *rec)
{
	struct leak_who *w = &rec->who;

	rec->cpu = smp_processor_id();
	rec->syscall = -1;
	w->pid = 0;
	if (in_hardirq() || in_serving_softirq()) {
		w->ctx = in_hardirq() ? LEAK_CTX_HARDIRQ :
					LEAK_CTX_SOFTIRQ;
		memset(w->comm, 0, sizeof(w->comm));
		return;
	}
	if (current->flags & PF_KTHREAD)
		w->ctx = LEAK_CTX_KTHREAD;
	else if (current->flags & SLABTRACE_PF_WORKER)
		w->ctx = LEAK_CTX_WORKER;
	else
		w->ctx = LEAK_CTX_TASK;
	/*
	 * Unlocked, like printk's %s of current->comm: a concurrent rename may
	 * tear it, never overrun it.  Padded: groups compare whole arrays.
	 */
	BUILD_BUG_ON(sizeof(w->comm) != TASK_COMM_LEN);
	comm_copy(w->comm, current->comm);
	w->pid = task_pid_nr(current);
	rec->syscall = current_syscall();
}

/**
 * leak_ctx_show - print who made an allocation
 * @m: where
 * @w: a record's, or a group's
 *
 * "PID 212 cat", "kthread kworker/0:1 (PID 8)", "worker iou-wrk-212 (PID
 * 213)" (a process's io_uring or vhost thread: in no system call of its
 * own), "softirq", "hardirq"; the name escaped (SLABTRACE_ESCAPE): "PID 9
 * X\nObj" is one line.
 */
void leak_ctx_show(struct seq_file *m, const struct leak_who *w)
{
	switch (w->ctx) {
	case LEAK_CTX_HARDIRQ:
		seq_puts(m, "hardirq");
		break;
	case LEAK_CTX_SOFTIRQ:
		seq_puts(m, "softirq");
		break;
	case LEAK_CTX_WORKER:
	case LEAK_CTX_KTHREAD:
		seq_puts(m, w->ctx == LEAK_CTX_WORKER ? "worker " : "kthread ");
		slabtrace_seq_name(m, w->comm, sizeof(w->comm));
		seq_printf(m, " (PID %d)", w->pid);
		break;
	default:
		seq_printf(m, "PID %d ", w->pid);
		slabtrace_seq_name(m, w->comm, sizeof(w->comm));
		break;
	}
}

/**
 * leak_syscall_show - print the system call an allocation was made in
 * @m: where
 * @syscall: leak_record.syscall
 *
 * " in syscall openat", or nothing outside system calls.
 */
void leak_syscall_show(struct seq_file *m, s16 syscall)
{
	bool compat = syscall & LEAK_SYSCALL_COMPAT;
	int nr = syscall & ~LEAK_SYSCALL_COMPAT;
	const char *name;

	if (syscall < 0)
		return;
	name = slabtrace_syscall_name(nr, compat);
	if (name)
		seq_printf(m, " in syscall %s%s", compat ? "compat " : "", name);
	else
		seq_printf(m, " in syscall %d%s", nr, compat ? " (compat)" : "");
}
