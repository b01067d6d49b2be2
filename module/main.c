// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: module init and exit.
 *
 * slabtrace is a core and three systems.  slab_trace (module/slab/) keeps,
 * for the slab caches a user names, a record of every object allocated
 * and not yet freed, with the backtrace and context of its allocation;
 * kptrace (module/kptrace/) traces system calls, into a text queue or a
 * binary stream; kmemtrace (module/kmemtrace/) writes every allocation and
 * free as a binary event.  The core (the files at module/'s top) has
 * what they share: the files, in /proc/slabtrace and debugfs (files.c),
 * the binary stream object (ctf.c), the one door of the commands
 * (ctl.c), the status (status.c), cache names (caches.c), system call
 * names (syscalls.c).
 * Each system is one struct slabtrace_system (<slabtrace/core.h>), its
 * public face; its internals are in a header beside its code, which no
 * other system includes.  Documentation/architecture.rst draws the whole.
 *
 * Loading makes the tree of files in procfs, then brings up each system
 * in turn (its init, then its files), then opens the door: ctl and status,
 * and last, when nothing can fail any more, mirrors the tree in debugfs
 * (which, unlike procfs, cannot revoke a file opened during a failed load).
 * Unloading, and a load that fails, is one function, teardown(): every
 * file goes first, so that nothing reaches a system any more, then the
 * systems go, the last first, then the core.  A system's init may itself
 * be a list of steps (slabtrace_steps_init()), undone in reverse.  When
 * the exit runs no command can: every file of slabtrace pins the module
 * while it is open, and none can be opened once it is going (nor before
 * the load is done: files.c).
 *
 * Locking
 * -------
 * Each system has one mutex for its commands and its state, which its
 * command handler, its files and its work items take; ctl.c and status.c
 * call a system with no lock held, and no system's mutex is ever held
 * while another's is taken.  From the outside in:
 *
 *   The kernel's module notifier chain (its rwsem): slab_trace's notifiers
 *     (slab/modsyms.c, slab/follow.c) take leak_mutex in it, so no
 *     module notifier is registered with leak_mutex held.
 *   leak_mutex (slab/traced.c): the traced caches, the probes'
 *     attachment, following, the prints kept.  Nested inside it:
 *       leak_print_sem (rwsem, slab/traced.c), held for reading
 *         while a print copies records with leak_mutex dropped,
 *         for writing while records are purged or walked by the module
 *         notifier (slab/modsyms.c);
 *       t->grow_mutex (slab/table.c), by iterators and purges, inside
 *         leak_print_sem;
 *       snapshots_lock (slab/snapshot.c), innermost of these mutexes;
 *       p->refill_mutex (slab/pool.c), for "pool N" and refills;
 *       caches_lock (caches.c), as a name is resolved;
 *       defer_mutex (slab/stacks.c), one drain of the deferred
 *         backtraces at a time (a print's, the worker's).
 *     slab_trace's jobs (slab/worker.c: a work item each) take their
 *     owners' locks above, none of the worker's own.
 *   kptrace_mutex (kptrace/kptrace.c): the hooks' attachment, the
 *     filter, the output, the in-flight entries.  Nested inside it:
 *       queue_lock (kptrace/queue.c), the text queue;
 *       the stream's lock (ctf.c), then relay's own mutex;
 *       size_lock (kptrace/files.c), then files_lock (files.c), then
 *         an inode's lock, to size a file.
 *   kmemtrace_mutex (kmemtrace/kmemtrace.c): the trace, its filter, its
 *     buffer size, the cache table's pins.  Nested inside it: caches_lock,
 *     the stream's lock (then relay's), as above.
 *   readers_lock (kptrace/files.c, spinlock): kptrace's readers, taken
 *     alone, by the files' open and release.
 *   A kptrace reader's lock (kptrace/files.c, a mutex per open queue or
 *     pipe file), held by its read: queue_lock nests inside it, as the
 *     read takes records, and so does the reader's mmap_lock
 *     (copy_to_user()).
 *   A stream's CPU lock (ctf.c, cpu_locks[N], a mutex per CPU of the
 *     stream), taken alone, by the read() and the ioctl of cpuN in
 *     either tree: one reader of a CPU's buffer at a time.  Nested inside
 *     it: the cpuN inode's lock, taken by relay's read(), then the
 *     reader's mmap_lock (copy_to_user()).
 *   The raw spinlocks, innermost, each held for a bounded step and never
 *   two at once, taken by tracepoint probes in any context but NMI: the
 *   table's stripe locks (slab/table.c), each CPU's pool list
 *   (slab/pool.c), defer_lock
 *   (slab/stacks.c, only ever trylocked by a probe), kptrace's
 *   entries_lock and bucket_locks[] (kptrace/kptrace.c).
 *
 * Tracepoint probes are registered and unregistered with their system's
 * mutex held, and what they use is freed only after
 * tracepoint_synchronize_unregister() (slab/probes.c, kptrace/kptrace.c,
 * kmemtrace/probes.c): they read the system's state under RCU (sched),
 * never a mutex.  Work items and irq_work of a system are stopped by its
 * exit before what they use goes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/init.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <slabtrace/core.h>
#include <slabtrace/files.h>
#include <wrapper/requirements.h>

#include "internal.h"

const struct slabtrace_system *const slabtrace_systems[] = {
	&leak_system,
	&kptrace_system,
	&kmemtrace_system,
};

const unsigned int slabtrace_nr_systems = ARRAY_SIZE(slabtrace_systems);

#ifdef SLABTRACE_TEST_BUILD
/*
 * Test builds only (make test-modules): the VM test "load" fails each step
 * in turn to see every unwinding path, and holds the last one a while
 * (fail_init_ms) for a reader trying to open a file of the failing load.
 */
static unsigned int fail_init;
module_param(fail_init, uint, 0400);
MODULE_PARM_DESC(fail_init, "for slabtrace's tests: fail step N of loading with ENOMEM");

/* How long the failing step waits first: a window for a reader's open. */
static unsigned int fail_init_ms;
module_param(fail_init_ms, uint, 0400);
MODULE_PARM_DESC(fail_init_ms, "for slabtrace's tests: wait this long (ms, at most 10000) before failing step fail_init");

static unsigned int steps_begun;
#endif

/**
 * slabtrace_step - a step of loading begins
 * @name: what it makes, for the log
 *
 * Every step of loading, the core's and the systems', starts here: the
 * test build's fail_init=N fails the Nth.
 *
 * Return: 0, or -ENOMEM if the step is to fail.
 */
int slabtrace_step(const char *name)
{
#ifdef SLABTRACE_TEST_BUILD
	if (++steps_begun == fail_init) {
		pr_info("fail_init=%u: failing step %u of loading (%s)\n",
			fail_init, fail_init, name);
		msleep(min(fail_init_ms, 10000U));
		return -ENOMEM;
	}
#endif
	return 0;
}

/**
 * slabtrace_steps_exit - undo steps, the last first
 * @steps: the steps
 * @n: how many of them were done
 */
void slabtrace_steps_exit(const struct slabtrace_step *const *steps,
			  unsigned int n)
{
	while (n--)
		if (steps[n]->exit)
			steps[n]->exit();
}

/**
 * slabtrace_steps_init - do steps in order
 * @steps: the steps (each file may give its own: a list of pointers); a
 *	step's init undoes what it did before failing
 * @n: how many
 *
 * Return: 0, or the error of the step that failed, with the steps before
 * it undone.
 */
int slabtrace_steps_init(const struct slabtrace_step *const *steps,
			 unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = slabtrace_step(steps[i]->name);
		if (!ret && steps[i]->init)
			ret = steps[i]->init();
		if (ret) {
			slabtrace_steps_exit(steps, i);
			return ret;
		}
	}
	return 0;
}

/*
 * Module exit, and a load that failed once @n systems were up: every file
 * goes, then the systems, the last first, then the core.
 */
static void teardown(unsigned int n)
{
	slabtrace_files_exit();
	while (n--)
		slabtrace_systems[n]->exit();
	slabtrace_caches_exit();
}

static int __init slabtrace_init(void)
{
	const struct slabtrace_system *sys;
	unsigned int i;
	int ret;

	/*
	 * kmalloc() spreads its objects over copies of each kmalloc-N cache
	 * by a value the kmalloc tracepoint does not report (a hash of the
	 * call site, or the allocated type): objects would be counted in
	 * the wrong copy (<wrapper/requirements.h>).
	 */
	if (SLABTRACE_REFUSED_CONFIG[0]) {
		pr_err("not supported on kernels with %s: a kmalloc() object's cache cannot be known\n",
		       SLABTRACE_REFUSED_CONFIG);
		return -EOPNOTSUPP;
	}
	ret = slabtrace_step("file trees") ?: slabtrace_files_init();
	if (ret)
		return ret;
	for (i = 0; i < slabtrace_nr_systems; i++) {
		sys = slabtrace_systems[i];
		/* A system's init undoes what it did before failing. */
		ret = slabtrace_step(sys->name) ?: sys->init();
		if (ret) {
			teardown(i);
			return ret;
		}
		ret = slabtrace_step("its files") ?:
		      slabtrace_files_add(sys->dir, sys->files, sys->nr_files);
		if (ret) {
			teardown(i + 1);
			return ret;
		}
	}
	/* Last: no command can come before everything is in place. */
	ret = slabtrace_step("ctl and status") ?:
	      slabtrace_status_init() ?: slabtrace_ctl_init();
	if (ret) {
		teardown(slabtrace_nr_systems);
		return ret;
	}
	/* Once nothing can fail: debugfs revokes no file (files.c). */
	slabtrace_files_mirror();
	return 0;
}

static void __exit slabtrace_exit(void)
{
	teardown(slabtrace_nr_systems);
}

module_init(slabtrace_init);
module_exit(slabtrace_exit);
MODULE_DESCRIPTION("Trace outstanding slab allocations with their backtraces");
MODULE_LICENSE("GPL");
MODULE_VERSION(SLABTRACE_VERSION);
