// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: trace system calls into a queue, one record per finished call.
 *
 * sys_enter notes the start time, the arguments and, for the calls that
 * take a path, the first bytes of the path (read from user memory without
 * faulting), in an in-flight entry of the task; sys_exit turns the entry
 * into a record and queues it.  A call that never returns (exit,
 * exit_group, or one in a task that dies in the kernel) is recorded when
 * the task exits (sched_process_exit); one a fatal signal interrupts
 * returns first, and sys_exit sees it.  A finished call goes to the text queue
 * (queue.c), or, after "syscall start ctf", to the binary stream (ctf.c)
 * instead.  The tracepoints are found by name with
 * for_each_kernel_tracepoint(): sys_enter and sys_exit are not exported.
 *
 * The in-flight entries, one per traced task, are kptrace_tasks entries
 * allocated at "syscall start" and freed at "syscall stop", with a fixed
 * hash table of buckets indexing them by task_struct pointer: a power of
 * two of buckets, at least kptrace_tasks, never resized.  A task takes a
 * free entry at its first traced call, keeps it from call to call, and
 * gives it back at its exit, or when a new filter does not trace it.
 * The hooks never allocate and take no sleeping lock, on any kernel (on
 * PREEMPT_RT even a GFP_NOWAIT allocation, which an rhashtable makes when
 * an insertion finds it full,
 * or a spinlock_t may sleep, and so may 6.1's rhashtable bucket locks,
 * which disable bottom halves): an entry comes from the free list, a
 * bucket is changed under a short raw spinlock, and a bucket holds at
 * most KPTRACE_CHAIN_MAX entries, so every loop of a hook is bounded.  A task
 * that finds no free entry, or its bucket full, has its calls counted as
 * dropped.  Processes reading kptrace are never traced: each
 * read would queue a record for the next read (files.c knows them; a
 * task's entry keeps the answer until the readers change).
 *
 * The system, as the core drives it (kptrace_system), is at the end: its
 * one command word, "syscall", its lines of status and help, its files
 * (kptrace/files.c) and its stream (kptrace/ctf.c).
 *
 * Notes on locking
 * ----------------
 * - kptrace_mutex: attaching and detaching the hooks (tracing), the
 *   output (to_ctf, set only while the hooks are detached), the filter
 *   pointer's updates, the entries' and the buckets' allocation and
 *   freeing (only while the hooks are detached).
 * - The hooks run with preemption disabled (where 7.x's tracepoints do
 *   not, by <wrapper/tracepoint.h>), in task context: an RCU read-side
 *   critical section.  They read filter under RCU (sched), and walk a
 *   bucket under RCU (hlist_for_each_entry_rcu()).
 * - bucket_locks[] (raw spinlocks, KPTRACE_LOCKS stripes): bucket b is changed
 *   only under bucket_locks[b % KPTRACE_LOCKS], held for one hlist insertion
 *   or removal (and the count of at most KPTRACE_CHAIN_MAX entries before an
 *   insertion).  Taken by the hooks, in task context, and by the sweep
 *   after a new filter (table_sweep(), preemption disabled), never nested,
 *   never with another lock of ours.
 * - An in-flight entry is only written by its own task's hooks, or given
 *   back after a grace period (call_rcu(), so that no walk of its old
 *   bucket still reaches it when it is reused in another); the detach
 *   waits for those (rcu_barrier()) before it frees the entries.  It is
 *   given back by its task's exit, or by the sweep if a new filter does
 *   not trace its task: whichever clears its task first, under its
 *   bucket's lock.
 * - entries_lock (raw spinlock, irq-safe): the free entries' list, taken
 *   by the hooks and by the RCU callback that gives an entry back (the
 *   start builds the list before either can run).  entry_get() peeks at
 *   entries_free without it (READ_ONCE()): NULL there means none to take,
 *   and a stale pointer only costs the lock.
 * - last_entry (per CPU): written and read by the hooks of its CPU only,
 *   cleared by the detach once they are gone.  An entry's task is set by
 *   its own task's hook as it enters a bucket, and cleared as it leaves
 *   it, both under the bucket's lock; other CPUs read it with READ_ONCE and
 *   use the entry only if it is their current task.
 * - Order: kptrace_mutex before queue.c's queue_lock, the stream's lock
 *   and files.c's files_lock; the raw spinlocks are innermost and never
 *   nested (main.c's Locking).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compat.h>
#include <linux/hash.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/parser.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <asm/syscall.h>
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>

#include <slabtrace/core.h>
#include <slabtrace/ctf.h>
#include <wrapper/tracepoint.h>

#include "kptrace.h"

/* kptrace_mutex: see Notes on locking. */
DEFINE_MUTEX(kptrace_mutex);

/* In-flight entries: traced tasks alive at once. */
#define KPTRACE_TASKS_MIN	4U
#define KPTRACE_TASKS_MAX	SZ_1M
static unsigned int kptrace_tasks = 4096;

static int set_tasks_param(const char *val, const struct kernel_param *kp)
{
	char esc[SLABTRACE_ESC_SIZE];
	unsigned int n;
	int ret = kstrtouint(val, 10, &n);

	if (!ret && (n < KPTRACE_TASKS_MIN || n > KPTRACE_TASKS_MAX))
		ret = -ERANGE;
	if (ret) {
		pr_warn("kptrace_tasks=%s: not a number in %u..%u\n",
			slabtrace_esc_str(esc, val),
			KPTRACE_TASKS_MIN, KPTRACE_TASKS_MAX);
		return ret;
	}
	*(unsigned int *)kp->arg = n;
	return 0;
}

static const struct kernel_param_ops tasks_param_ops = {
	.set = set_tasks_param,
	.get = param_get_uint,
};

module_param_cb(kptrace_tasks, &tasks_param_ops, &kptrace_tasks, 0400);
MODULE_PARM_DESC(kptrace_tasks, "kptrace: traced tasks alive at once, 4..1048576 (default 4096)");

/* Stripes of bucket locks: bucket b's is bucket_locks[b % KPTRACE_LOCKS]. */
#define KPTRACE_LOCKS	64
/* Entries in one bucket, at most: a walk of a bucket ends within this. */
#define KPTRACE_CHAIN_MAX	16

struct kptrace_task {
	struct hlist_node node;		/* in its bucket */
	struct task_struct *task;	/* the key; NULL out of the buckets */
	struct rcu_head rcu;
	struct kptrace_task *next_free;	/* on entries_free */
	bool active;			/* between sys_enter and sys_exit */
	bool reader;			/* kptrace_is_reader(), at readers_seq */
	unsigned int readers_seq;	/* 0: not asked yet */
	struct kptrace_call call;
};

enum { FILTER_ALL, FILTER_PID, FILTER_COMM };

struct kptrace_filter {
	struct rcu_head rcu;
	int mode;
	unsigned int npids;
	pid_t pids[KPTRACE_MAX_PIDS];
	char comm[TASK_COMM_LEN];
};

static struct kptrace_task *entries;	/* kptrace_tasks of them */
static DEFINE_PER_CPU(struct kptrace_task *, last_entry);
static struct kptrace_task *entries_free;
/* entries_free, the list of free entries (irq-safe; see above). */
static DEFINE_RAW_SPINLOCK(entries_lock);
static struct hlist_head *buckets;	/* 1 << bucket_bits of them */
static unsigned int bucket_bits;
/* Bucket b's chain is changed under bucket_locks[b % KPTRACE_LOCKS]. */
static raw_spinlock_t bucket_locks[KPTRACE_LOCKS];
static struct kptrace_filter __rcu *filter;
static bool tracing;
/* The hooks write to the binary stream (kptrace/ctf.c), not the queue. */
static bool to_ctf;

static struct tracepoint *tp_sys_enter, *tp_sys_exit, *tp_process_exit;

static bool task_traced(struct task_struct *task)
{
	const struct kptrace_filter *f = rcu_dereference_sched(filter);
	unsigned int i;

	if (!f)
		return false;
	switch (f->mode) {
	case FILTER_PID:
		for (i = 0; i < f->npids; i++)
			if (f->pids[i] == task->tgid || f->pids[i] == task->pid)
				return true;
		return false;
	case FILTER_COMM:
		/* Both NUL-padded: f->comm by strscpy_pad(), comm by the kernel. */
		return !memcmp(task->comm, f->comm, TASK_COMM_LEN);
	default:
		return true;
	}
}

/* Up to KPTRACE_DATA_MAX bytes of a user string, without faulting. */
static bool copy_path(struct kptrace_call *t, unsigned long uaddr)
{
	size_t n = min_t(size_t, KPTRACE_DATA_MAX,
			 PAGE_SIZE - offset_in_page(uaddr));
	const void __user *p = (const void __user *)uaddr;

	if (copy_from_user_nofault(t->data, p, n))
		return false;
	t->data_len = strnlen(t->data, n);
	/* No NUL before the page ends: the rest may be on the next page. */
	if (t->data_len == n && n < KPTRACE_DATA_MAX &&
	    !copy_from_user_nofault(t->data + n, p + n, KPTRACE_DATA_MAX - n))
		t->data_len += strnlen(t->data + n, KPTRACE_DATA_MAX - n);
	return true;
}

/*
 * A free entry, zeroed, or NULL.  Any context.  With none left (tasks a
 * user keeps in calls can use them all), a call looks without the lock:
 * every CPU's calls would take it only to find the list empty.
 */
static struct kptrace_task *entry_get(void)
{
	struct kptrace_task *t;
	unsigned long flags;

	if (!READ_ONCE(entries_free))
		return NULL;
	raw_spin_lock_irqsave(&entries_lock, flags);
	t = entries_free;
	if (t)
		WRITE_ONCE(entries_free, t->next_free);
	raw_spin_unlock_irqrestore(&entries_lock, flags);
	if (t)
		memset(t, 0, sizeof(*t));
	return t;
}

static void entry_put(struct kptrace_task *t)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&entries_lock, flags);
	t->next_free = entries_free;
	WRITE_ONCE(entries_free, t);
	raw_spin_unlock_irqrestore(&entries_lock, flags);
}

/*
 * The entries, all free, and their buckets, empty.  Called at start with
 * kptrace_mutex held, the hooks detached.
 */
static int table_alloc(void)
{
	unsigned int i, nr = roundup_pow_of_two(kptrace_tasks);
	int ret;

	lockdep_assert_held(&kptrace_mutex);
	ret = kptrace_mem_check("the table of tasks",
				(u64)kptrace_tasks * sizeof(*entries) +
				(u64)nr * sizeof(*buckets));
	if (ret)
		return ret;
	entries = kvcalloc(kptrace_tasks, sizeof(*entries), SLABTRACE_GFP_BIG);
	buckets = kvcalloc(nr, sizeof(*buckets), SLABTRACE_GFP_BIG);
	if (!entries || !buckets) {
		kvfree(entries);
		kvfree(buckets);
		entries = NULL;
		buckets = NULL;
		pr_warn_ratelimited("syscall: start: no memory for %u tasks\n",
				    kptrace_tasks);
		return -ENOMEM;
	}
	bucket_bits = ilog2(nr);
	for (i = 0; i + 1 < kptrace_tasks; i++)
		entries[i].next_free = &entries[i + 1];
	entries_free = entries;
	return 0;
}

/*
 * Free the entries and the buckets (NULL or not).  Called at stop with
 * kptrace_mutex held, once no hook runs.
 */
static void table_free(void)
{
	int cpu;

	lockdep_assert_held(&kptrace_mutex);
	/* The entries of exited tasks, given back after a grace period. */
	rcu_barrier();
	for_each_possible_cpu(cpu)
		per_cpu(last_entry, cpu) = NULL;
	kvfree(entries);
	kvfree(buckets);
	entries = NULL;
	buckets = NULL;
	entries_free = NULL;
}

static unsigned int bucket_of(const struct task_struct *task)
{
	return hash_ptr((void *)task, bucket_bits);
}

/* @task's entry, or NULL.  Called by the hooks (RCU readers). */
static struct kptrace_task *table_lookup(const struct task_struct *task)
{
	struct kptrace_task *t;
	unsigned int n = 0;

	/* A bucket holds at most KPTRACE_CHAIN_MAX entries (table_insert()). */
	hlist_for_each_entry_rcu(t, &buckets[bucket_of(task)], node) {
		if (READ_ONCE(t->task) == task)
			return t;
		if (++n == KPTRACE_CHAIN_MAX)
			break;
	}
	return NULL;
}

/*
 * Make @t, a free entry, @task's and put it in its bucket: false if the
 * bucket is full (@t's task stays NULL).  The task is set under the
 * bucket's lock, as table_remove() clears it: an entry whose task is set
 * is in its bucket.
 */
static bool table_insert(struct kptrace_task *t, struct task_struct *task)
{
	unsigned int b = bucket_of(task), n = 0;
	raw_spinlock_t *lock = &bucket_locks[b % KPTRACE_LOCKS];
	struct kptrace_task *pos;

	raw_spin_lock(lock);
	hlist_for_each_entry(pos, &buckets[b], node)
		n++;
	if (n < KPTRACE_CHAIN_MAX) {
		WRITE_ONCE(t->task, task);
		hlist_add_head_rcu(&t->node, &buckets[b]);
	}
	raw_spin_unlock(lock);
	return n < KPTRACE_CHAIN_MAX;
}

static void kptrace_task_free_rcu(struct rcu_head *head)
{
	entry_put(container_of(head, struct kptrace_task, rcu));
}

/*
 * Take @t out of its bucket if it is still @task's; it is free again
 * after a grace period.  @task's exit and table_sweep() may both try: the
 * first, under the bucket's lock, finds its task set and clears it, the
 * other finds it cleared.  With its task NULL no lookup and no last_entry
 * matches it.  In an RCU-sched read-side section.
 */
static void table_remove(struct kptrace_task *t, struct task_struct *task)
{
	unsigned int b = bucket_of(task);
	raw_spinlock_t *lock = &bucket_locks[b % KPTRACE_LOCKS];
	bool mine;

	raw_spin_lock(lock);
	mine = READ_ONCE(t->task) == task;
	if (mine) {
		WRITE_ONCE(t->task, NULL);
		hlist_del_rcu(&t->node);
	}
	raw_spin_unlock(lock);
	if (mine)
		call_rcu(&t->rcu, kptrace_task_free_rcu);
}

/*
 * A new filter is set: give back the entries of the tasks it does not
 * trace, which would otherwise keep them until they exit, and leave none
 * for the tasks it traces.  A call in flight in such a task goes
 * unrecorded, as at a stop.  Called with kptrace_mutex held and the hooks
 * attached, after a grace period (set_filter()): no hook still makes an
 * entry for a task of the old filter.  A task made traced or not by a
 * rename meanwhile may keep an entry until it exits.  An entry's task,
 * read under RCU-sched, is alive until the section ends: its exit clears
 * the entry (kptrace_process_exit()) before the task can be released,
 * whose last reference goes after a grace period.
 */
static void table_sweep(void)
{
	struct task_struct *task;
	bool removed = false;
	unsigned int i;

	lockdep_assert_held(&kptrace_mutex);
	for (i = 0; i < kptrace_tasks; i++) {
		rcu_read_lock_sched();
		task = READ_ONCE(entries[i].task);
		if (task && !task_traced(task)) {
			table_remove(&entries[i], task);
			removed = true;
		}
		rcu_read_unlock_sched();
		if (!(i % 1024))
			cond_resched();
	}
	/* Free for the new filter's tasks when the command returns. */
	if (removed)
		rcu_barrier();
}

/*
 * The in-flight entry of @task, the task running the hook.  The entry the
 * last hook on this CPU used first (last_entry): a task making call
 * after call on one CPU finds it there without a lookup.  An entry out of
 * the buckets always has task NULL, so a stale last_entry whose task is
 * @task is @task's entry.  The entries are never freed while the hooks
 * can run, and one taken out of its bucket (by @task's own exit, or by
 * table_sweep()) is given back only after a grace period, which the
 * hook, running with preemption disabled, holds off: it stays valid
 * until the hook returns.
 */
static struct kptrace_task *task_entry(struct task_struct *task, bool create)
{
	struct kptrace_task *t = this_cpu_read(last_entry);

	if (likely(t && READ_ONCE(t->task) == task))
		return t;
	t = table_lookup(task);
	if (!t && create) {
		t = entry_get();
		if (!t)
			return NULL;
		if (!table_insert(t, task)) {
			/* Never in a bucket: free again at once. */
			entry_put(t);
			return NULL;
		}
	}
	if (t)
		this_cpu_write(last_entry, t);
	return t;
}

/*
 * Whether @t's task, the current one, reads kptrace (files.c): asked once,
 * and again only when the readers have changed since.
 */
static bool entry_reader(struct kptrace_task *t)
{
	/* Pairs with files.c's release: readers[] as new as seq. */
	unsigned int seq = smp_load_acquire(&kptrace_readers_seq);

	if (unlikely(t->readers_seq != seq)) {
		t->reader = kptrace_is_reader(task_tgid(current));
		t->readers_seq = seq;
	}
	return t->reader;
}

/*
 * Whether call @id is a 32-bit one (ia32, arm32), numbered in the compat
 * table.  x86-64's x32 calls, which in_compat_syscall() counts too, take
 * the 64-bit numbers with __X32_SYSCALL_BIT set and 64-bit registers:
 * they are native calls here, the bit taken off @id (whether the kernel
 * runs them, syscall.x32=y, or refuses them with ENOSYS).  x32's own
 * calls, 512 and up, have no name in the 64-bit table: unknown numbers.
 */
static __always_inline bool call_compat(long *id)
{
#ifdef CONFIG_X86_X32_ABI
	/* An ia32 call's number is the ia32 table's, whatever its bits. */
	if (in_ia32_syscall())
		return true;
	if (*id >= 0 && (*id & __X32_SYSCALL_BIT))
		*id &= ~__X32_SYSCALL_BIT;
	return false;
#else
	return in_compat_syscall();
#endif
}

static __always_inline void sys_enter_hook(struct pt_regs *regs, long id)
{
	struct kptrace_call *c;
	struct kptrace_task *t;
	unsigned int nargs, i;
	int arg;

	slabtrace_assert_probe_context();
	if (!task_traced(current))
		return;
	t = task_entry(current, true);
	if (!t) {
		/* The task's first traced call, and no entry to follow it. */
		if (kptrace_is_reader(task_tgid(current)))
			return;
		if (READ_ONCE(to_ctf))
			kptrace_ctf_drop();
		else
			kptrace_queue_drop();
		return;
	}
	if (entry_reader(t))
		return;
	c = &t->call;
	c->flags = call_compat(&id) ? KPTRACE_COMPAT : 0;
	c->nr = id;
	syscall_get_arguments(current, regs, c->args);
	/* An ia32 call's arguments: the low halves, all its wrappers read. */
	if (c->flags & KPTRACE_COMPAT)
		for (i = 0; i < ARRAY_SIZE(c->args); i++)
			c->args[i] = (u32)c->args[i];
	c->data_len = 0;
	arg = slabtrace_syscall_args(id, c->flags & KPTRACE_COMPAT, &nargs);
	c->nargs = nargs;
	if (arg >= 0 && copy_path(c, c->args[arg]))
		c->flags |= KPTRACE_DATA;
	c->start_ns = ktime_get_mono_fast_ns();
	t->active = true;
}

/*
 * Each hook keeps the tracepoints' old promise itself, where 7.x does
 * not (<wrapper/tracepoint.h>): on one CPU (last_entry, the summary, the
 * buffers), in an RCU read-side section (the filter, the buckets).
 */
static void kptrace_sys_enter(void *data, struct pt_regs *regs, long id)
{
	slabtrace_syscall_tp_begin();
	sys_enter_hook(regs, id);
	slabtrace_syscall_tp_end();
}

/* Queue the record of call @c, made in place in the queue. */
static void queue_rec(const struct kptrace_call *c, u64 end, long ret,
		      u8 flags)
{
	struct ring_buffer_event *ev;
	struct kptrace_rec *rec;
	unsigned int i;

	rec = kptrace_queue_reserve(c->data_len, &ev);
	if (!rec)
		return;
	rec->start_ns = c->start_ns;
	rec->end_ns = end;
	for (i = 0; i < ARRAY_SIZE(c->args); i++)
		rec->args[i] = c->args[i];
	rec->ret = ret;
	rec->nr = c->nr;
	rec->pid = task_tgid_nr(current);
	rec->tid = task_pid_nr(current);
	rec->cpu = smp_processor_id();
	rec->flags = c->flags | flags;
	rec->data_len = c->data_len;
	/* NUL-padded by __set_task_comm(). */
	memcpy(rec->comm, current->comm, sizeof(rec->comm));
	memcpy(rec->data, c->data, c->data_len);
	kptrace_queue_commit(ev);
}

/* Write @t's call to the queue or the stream, and count it in the summary. */
static void finish(struct kptrace_task *t, long ret, u8 flags)
{
	const struct kptrace_call *c = &t->call;
	u64 end = ktime_get_mono_fast_ns();

	slabtrace_assert_probe_context();
	t->active = false;
	if (READ_ONCE(to_ctf))
		kptrace_ctf_write(c, end, ret, flags);
	else
		queue_rec(c, end, ret, flags);
	kptrace_summary_count(c->nr, c->flags | flags, ret, end - c->start_ns);
}

static void kptrace_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct kptrace_task *t;

	slabtrace_syscall_tp_begin();
	t = task_entry(current, false);
	if (t && t->active) {
		/* A call that made the task a reader (its open()) is not traced. */
		if (entry_reader(t))
			t->active = false;
		else
			finish(t, ret, 0);
	}
	slabtrace_syscall_tp_end();
}

/* The task exits: a call still in flight will not return. */
static void kptrace_process_exit(void *data, SLABTRACE_PROCESS_EXIT_PARAMS(p))
{
	struct kptrace_task *t;

	slabtrace_tp_begin();
	t = task_entry(p, false);
	if (t) {
		/* Not a reader's: one that opened kptrace meanwhile. */
		if (t->active && !entry_reader(t))
			finish(t, 0, KPTRACE_NORETURN);
		table_remove(t, p);
	}
	slabtrace_tp_end();
}

/*
 * The hooks are attached with tracepoint_probe_register(), which takes a
 * function of any type (the three tracepoints are not exported, so they
 * are found by name).  This function, never called nor emitted, has the
 * compiler check the hooks' types against the tracepoints' declarations:
 * a kernel with kCFI checks the type at every call of a probe.
 */
static inline void __maybe_unused kptrace_hook_types(void)
{
	/* Without them (UML, KUnit's kernel) the header declares nothing. */
#ifdef CONFIG_HAVE_SYSCALL_TRACEPOINTS
	register_trace_sys_enter(kptrace_sys_enter, NULL);
	register_trace_sys_exit(kptrace_sys_exit, NULL);
#endif
	register_trace_sched_process_exit(kptrace_process_exit, NULL);
}

static void find_tracepoint(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sys_enter"))
		tp_sys_enter = tp;
	else if (!strcmp(tp->name, "sys_exit"))
		tp_sys_exit = tp;
	else if (!strcmp(tp->name, "sched_process_exit"))
		tp_process_exit = tp;
}

/* Detach the hooks and drop the calls in flight, after a whole start. */
static void kptrace_detach(void)
{
	lockdep_assert_held(&kptrace_mutex);
	tracepoint_probe_unregister(tp_sys_enter, (void *)kptrace_sys_enter, NULL);
	tracepoint_probe_unregister(tp_sys_exit, (void *)kptrace_sys_exit, NULL);
	tracepoint_probe_unregister(tp_process_exit, (void *)kptrace_process_exit,
				    NULL);
	tracepoint_synchronize_unregister();
	table_free();
	if (!to_ctf)
		kptrace_queue_stop();
	WRITE_ONCE(tracing, false);
}

/*
 * Attach the hooks, with the output and the table they need.  A failure
 * undoes only what was done: unregistering a probe that never was makes
 * the kernel warn.
 */
static int kptrace_attach(void)
{
	int ret;

	lockdep_assert_held(&kptrace_mutex);
	if (!tp_sys_enter)
		for_each_kernel_tracepoint(find_tracepoint, NULL);
	if (!tp_sys_enter || !tp_sys_exit || !tp_process_exit) {
		pr_warn_ratelimited("syscall: this kernel has no sys_enter, sys_exit or sched_process_exit tracepoint\n");
		return -ENODEV;
	}
	if (to_ctf)
		ret = kptrace_ctf_open(kptrace_queue_size());
	else
		ret = kptrace_queue_start(kptrace_queue_size());
	if (ret)
		return ret;
	ret = table_alloc();
	if (ret)
		goto err_output;
	WRITE_ONCE(tracing, true);
	/* Exit before enter, so that no call starts whose end goes unseen. */
	ret = tracepoint_probe_register(tp_process_exit,
					(void *)kptrace_process_exit, NULL);
	if (ret)
		goto err_hooks;
	ret = tracepoint_probe_register(tp_sys_exit, (void *)kptrace_sys_exit,
					NULL);
	if (ret)
		goto err_process_exit;
	ret = tracepoint_probe_register(tp_sys_enter, (void *)kptrace_sys_enter,
					NULL);
	if (ret)
		goto err_sys_exit;
	if (!to_ctf) {
		/* The queue file's size follows from now on (size_work). */
		kptrace_files_update_size();
	}
	return 0;

err_sys_exit:
	tracepoint_probe_unregister(tp_sys_exit, (void *)kptrace_sys_exit, NULL);
err_process_exit:
	tracepoint_probe_unregister(tp_process_exit,
				    (void *)kptrace_process_exit, NULL);
err_hooks:
	pr_warn_ratelimited("syscall: cannot attach to the syscall tracepoints (%d)\n",
			    ret);
	tracepoint_synchronize_unregister();
	table_free();
	WRITE_ONCE(tracing, false);
err_output:
	if (to_ctf)
		kptrace_ctf_close();
	else
		kptrace_queue_stop();
	return ret;
}

static int set_filter(struct kptrace_filter *f)
{
	struct kptrace_filter *old;
	int ret = 0;

	lockdep_assert_held(&kptrace_mutex);
	old = rcu_replace_pointer(filter, f, lockdep_is_held(&kptrace_mutex));
	if (old) {
		/* No hook still takes an entry for a task of the old filter. */
		synchronize_rcu();
		kfree(old);
		table_sweep();
	} else {
		ret = kptrace_attach();
	}
	if (ret) {
		RCU_INIT_POINTER(filter, NULL);
		synchronize_rcu();
		kfree(f);
	}
	return ret;
}

static int kptrace_start(int argc, char **argv)
{
	bool ctf = argc > 1 && !strcmp(argv[1], "ctf");
	struct kptrace_filter *f;
	unsigned int i;
	int ret = -EINVAL;

	if (ctf) {
		/* "start ctf FILTER" is "start FILTER", to the stream. */
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	if (argc == 1) {
		f->mode = FILTER_ALL;
	} else if (!strcmp(argv[1], "pid") && argc >= 3 &&
		   argc - 2 <= KPTRACE_MAX_PIDS) {
		f->mode = FILTER_PID;
		for (i = 2; i < argc; i++) {
			ret = slabtrace_ctl_pid("syscall: start", argv[i],
						&f->pids[f->npids]);
			if (ret)
				goto bad;
			f->npids++;
		}
	} else if (!strcmp(argv[1], "comm") && argc == 3) {
		if (strlen(argv[2]) >= TASK_COMM_LEN) {
			pr_warn_ratelimited("syscall: start: a command name has at most %d bytes\n",
					    TASK_COMM_LEN - 1);
			goto bad;
		}
		f->mode = FILTER_COMM;
		strscpy_pad(f->comm, argv[2], sizeof(f->comm));
	} else {
		pr_warn_ratelimited("syscall: start takes nothing, 'pid PID...' (at most %d) or 'comm NAME', after an optional 'ctf'\n",
				    KPTRACE_MAX_PIDS);
		goto bad;
	}
	/* A bad filter is EINVAL whatever is traced; a good one may wait. */
	if (tracing && ctf != to_ctf) {
		pr_warn_ratelimited("syscall: start: tracing to the %s: stop first\n",
				    to_ctf ? "binary stream" : "queue");
		ret = -EBUSY;
		goto bad;
	}
	if (tracing)
		pr_info_ratelimited("syscall: start: new filter\n");
	else
		WRITE_ONCE(to_ctf, ctf);
	return set_filter(f);
bad:
	kfree(f);
	return ret;
}

static int kptrace_stop(void)
{
	struct kptrace_filter *old;

	/*
	 * Close the stream's open packets, even when stopped: one opened
	 * where the reader made room since carries the count of events lost
	 * while the buffer was full (the recorder's last step).
	 */
	if (!tracing) {
		kptrace_ctf_flush();
		pr_info_ratelimited("syscall: stop: not tracing\n");
		return 0;
	}
	kptrace_detach();
	kptrace_ctf_flush();
	old = rcu_replace_pointer(filter, NULL,
				  lockdep_is_held(&kptrace_mutex));
	kfree_rcu(old, rcu);
	kptrace_files_update_size();
	return 0;
}

static int set_size(const char *arg)
{
	unsigned long size;
	int ret;

	ret = kptrace_queue_parse_size(arg, &size);
	if (ret)
		return ret;
	if (tracing) {
		pr_warn_ratelimited("syscall: size: stop tracing first\n");
		return -EBUSY;
	}
	/* The next start makes a queue of the new size. */
	kptrace_queue_resize(size);
	kptrace_files_update_size();
	return 0;
}

/* "syscall stop ctf": the stream's stop, not the queue's. */
static int stop_ctf(void)
{
	if (tracing && !to_ctf) {
		pr_warn_ratelimited("syscall: stop ctf: the calls go to the text queue, not to the binary stream ('syscall stop' stops them)\n");
		return -EBUSY;
	}
	return kptrace_stop();
}

/*
 * The "syscall" commands of ctl (argv[0] is the word after "syscall"):
 *
 *   syscall start                  trace every process
 *   syscall start pid PID [PID...] trace these processes (or threads)
 *   syscall start comm NAME        trace the tasks with this command name
 *   syscall start ctf [FILTER]     the same, into the binary stream
 *                                  (kptrace/ctf.c) instead of the queue;
 *                                  a new stream each time
 *   syscall stop                   stop; queued records stay readable,
 *                                  the queue is freed once they are read
 *   syscall stop ctf               stop the binary stream; refused while
 *                                  the calls go to the queue (the stream's
 *                                  "enable" writes it for "0")
 *   syscall clear                  empty (free) the queue, zero the
 *                                  counters and the summary; not while
 *                                  tracing
 *   syscall size BYTES             queue size per CPU (K and M suffixes),
 *                                  and the next stream's; empties (frees)
 *                                  the queue; not while tracing
 *
 * Called with kptrace_mutex held.
 */
static int kptrace_command(int argc, char **argv)
{
	enum { K_START, K_STOP, K_CLEAR, K_SIZE, K_ERR };
	static const match_table_t verbs = {
		{ K_START, "start" },
		{ K_STOP, "stop" },
		{ K_CLEAR, "clear" },
		{ K_SIZE, "size" },
		{ K_ERR, NULL },
	};
	substring_t args[MAX_OPT_ARGS];
	int verb;

	lockdep_assert_held(&kptrace_mutex);
	verb = argc ? match_token(argv[0], verbs, args) : K_ERR;
	if (verb == K_ERR) {
		pr_warn_ratelimited("syscall: expected start, stop, clear or size\n");
		return -EINVAL;
	}
	if (verb == K_STOP && argc == 2 && !strcmp(argv[1], "ctf"))
		return stop_ctf();
	if ((verb == K_STOP || verb == K_CLEAR) && argc != 1) {
		pr_warn_ratelimited("syscall: %s takes no argument\n", argv[0]);
		return -EINVAL;
	}
	if (verb == K_SIZE && argc != 2) {
		pr_warn_ratelimited("syscall: size takes one size in bytes\n");
		return -EINVAL;
	}
	switch (verb) {
	case K_START:
		return kptrace_start(argc, argv);
	case K_STOP:
		return kptrace_stop();
	case K_SIZE:
		return set_size(argv[1]);
	default:
		if (tracing) {
			/* The counters are the hooks' own while they run. */
			pr_warn_ratelimited("syscall: clear: stop tracing first\n");
			return -EBUSY;
		}
		kptrace_queue_reset();
		kptrace_summary_reset();
		kptrace_files_update_size();
		return 0;
	}
}

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* Whether the hooks are attached (for the tests). */
bool kptrace_tracing(void)
{
	return READ_ONCE(tracing);
}
#endif

/* Whether the hooks write to the binary stream. */
static bool kptrace_ctf_tracing(void)
{
	return READ_ONCE(tracing) && READ_ONCE(to_ctf);
}

/*
 * The binary stream's enable: "1 [FILTER]", the words of "syscall start
 * ctf", while the hooks write to it; else "0".  Called with
 * kptrace_mutex held.
 */
static void kptrace_ctf_show_enable(struct seq_file *m)
{
	const struct kptrace_filter *f;
	unsigned int i;

	f = rcu_dereference_protected(filter, lockdep_is_held(&kptrace_mutex));
	if (!f || !kptrace_ctf_tracing()) {
		seq_puts(m, "0\n");
		return;
	}
	seq_putc(m, '1');
	if (f->mode == FILTER_PID)
		seq_puts(m, " pid");
	for (i = 0; f->mode == FILTER_PID && i < f->npids; i++)
		seq_printf(m, " %d", f->pids[i]);
	if (f->mode == FILTER_COMM) {
		seq_puts(m, " comm ");
		slabtrace_seq_name(m, f->comm, sizeof(f->comm));
	}
	seq_putc(m, '\n');
}

/*
 * kptrace's lines of the status file: tracing or off, the memory a
 * stopped trace's queue holds until its records are read, and its
 * stream's buffers.
 */
static void kptrace_status(struct seq_file *m)
{
	unsigned long records, bytes = kptrace_queue_held(&records);

	mutex_lock(&kptrace_mutex);
	seq_printf(m, "kptrace: %s", tracing ? "tracing system calls" : "off");
	if (bytes)
		seq_printf(m, ", its queue holds %lu KiB for %lu unread records (freed once read, or at syscall clear)",
			   bytes >> 10, records);
	seq_putc(m, '\n');
	kptrace_ctf_status(m);
	mutex_unlock(&kptrace_mutex);
}

/* What the binary stream calls here: ctf.c calls nothing above it. */
static const struct kptrace_ctf_owner ctf_owner = {
	.lock = &kptrace_mutex,
	.running = kptrace_ctf_tracing,
	.show_enable = kptrace_ctf_show_enable,
	.command = kptrace_command,
};

static int kptrace_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < KPTRACE_LOCKS; i++)
		raw_spin_lock_init(&bucket_locks[i]);
	ret = kptrace_summary_init();
	if (ret)
		return ret;
	ret = kptrace_ctf_init(&ctf_owner);
	if (ret)
		kptrace_summary_exit();
	return ret;
}

/* At module exit, or a load that failed, once every file is gone. */
static void kptrace_exit(void)
{
	mutex_lock(&kptrace_mutex);
	if (tracing)
		kptrace_stop();
	mutex_unlock(&kptrace_mutex);
	/* Nothing writes to the stream any more: its buffers go. */
	kptrace_ctf_exit();
	kptrace_files_exit();
	/* The stop freed the entries; the queue may hold unread records. */
	kptrace_queue_exit();
	kptrace_summary_exit();
}

/* kptrace_system's command handler: "syscall ...". */
static int kptrace_run(struct file *file, int cmd, int argc, char **argv)
{
	int ret;

	mutex_lock(&kptrace_mutex);
	ret = kptrace_command(argc - 1, argv + 1);
	mutex_unlock(&kptrace_mutex);
	return ret;
}

static const match_table_t kptrace_cmds = {
	{ 0, "syscall" },
	{ SLABTRACE_CMD_NONE, NULL },
};

static const char *const kptrace_help[] = {
	"  syscall start [ctf] [FILTER] | stop [ctf] | clear | size BYTES   kptrace, the system call trace",
	NULL,
};

const struct slabtrace_system kptrace_system = {
	.name = "kptrace",
	.init = kptrace_init,
	.exit = kptrace_exit,
	.cmds = kptrace_cmds,
	.command = kptrace_run,
	.status = kptrace_status,
	.help = kptrace_help,
	.dir = "kptrace",
	.files = kptrace_files,
	.nr_files = ARRAY_SIZE(kptrace_files),
};
