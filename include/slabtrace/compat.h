/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels slabtrace builds for lives here:
 * Debian's 6.1 and 6.12, and the 6.12 UML kernel of the KUnit runner.
 *
 * The SLABTRACE_* feature macros are set by scripts/compat-probe.sh, which
 * greps the kernel's headers at build time; each says which version
 * changed what.  No other file tests a kernel version or a feature macro.
 */
#ifndef _SLABTRACE_COMPAT_H
#define _SLABTRACE_COMPAT_H

/*
 * What slabtrace cannot work without.  A kernel configured without it is
 * refused here, when the module is built, with one line saying why
 * (without these the build would stop at modpost's undefined symbols, or
 * the module would load and find no cache).  Debian's kernels, x86-64 and
 * arm64, have them all.  CONFIG_RANDOM_KMALLOC_CACHES is refused at load
 * (main.c).
 */
#ifndef CONFIG_SLUB
#error "slabtrace needs CONFIG_SLUB: it finds caches through SLUB's /sys/kernel/slab"
#endif
#ifndef CONFIG_SYSFS
#error "slabtrace needs CONFIG_SYSFS: it finds caches through SLUB's /sys/kernel/slab"
#endif
#ifndef CONFIG_STACKTRACE
#error "slabtrace needs CONFIG_STACKTRACE: backtraces come from stack_trace_save()"
#endif
#ifndef CONFIG_STACKDEPOT
#error "slabtrace needs CONFIG_STACKDEPOT: backtraces are kept in the stack depot"
#endif
#ifndef CONFIG_TRACEPOINTS
#error "slabtrace needs CONFIG_TRACEPOINTS: it hooks the kmem tracepoints"
#endif

#include <linux/audit.h>
#include <linux/module.h>
#include <linux/ring_buffer.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stackdepot.h>
#include <linux/stacktrace.h>
#include <linux/stddef.h>
#include <linux/string.h>
#if defined(CONFIG_X86_64) && defined(CONFIG_UNWINDER_ORC)
#include <asm/ptrace.h>
#include <asm/segment.h>
#include <asm/unwind.h>
#endif

/**
 * slabtrace_kmalloc_cache - the cache a kmalloc() of @size lands in
 * @size: bytes requested
 * @flags: the allocation's gfp flags
 * @caller: the allocation's call site
 *
 * The kmalloc tracepoint has no cache pointer.  This is the allocator's own
 * choice (kmalloc_slab()) computed from what the tracepoint reports, with the
 * kernel's public inlines.  v6.6 added the @caller argument of kmalloc_type()
 * for CONFIG_RANDOM_KMALLOC_CACHES; with that option on (not on Debian) the
 * tracepoint's call site is not always the value the allocator hashed, so
 * the module refuses to load there (main.c).
 *
 * Return: the cache, or NULL for sizes the page allocator serves.
 */
static __always_inline struct kmem_cache *
slabtrace_kmalloc_cache(size_t size, gfp_t flags, unsigned long caller)
{
	enum kmalloc_cache_type type;

	if (!size || size > KMALLOC_MAX_CACHE_SIZE)
		return NULL;
#ifdef SLABTRACE_KMALLOC_TYPE_CALLER
	type = kmalloc_type(flags, caller);
#else
	type = kmalloc_type(flags);
#endif
	return kmalloc_caches[type][__kmalloc_index(size, false)];
}

/*
 * v6.11 added kmem_buckets (CONFIG_SLAB_BUCKETS, on in Debian 6.12): sets
 * of kmalloc-sized caches whose allocations the kmalloc tracepoint
 * reports without a cache pointer (caches.c: is_bucket()).
 */
#ifdef SLABTRACE_KMEM_BUCKETS
#define SLABTRACE_HAS_KMEM_BUCKETS	true
#else
#define SLABTRACE_HAS_KMEM_BUCKETS	false
#endif

/**
 * slabtrace_depot_save_noalloc - save a stack trace without allocating
 * @entries: the trace
 * @nr: its length
 *
 * The stack depot allocates a new pool only for callers that allow it;
 * without that it uses the pool it has, or one another caller
 * preallocated, and fails when there is none.  v6.8 replaced
 * __stack_depot_save(entries, nr, extra_bits, gfp, can_alloc) by
 * stack_depot_save_flags(entries, nr, gfp, depot_flags), where the flag
 * is STACK_DEPOT_FLAG_CAN_ALLOC; both are exported.  Any context.
 *
 * Return: the handle, or 0 if the depot had no room.
 */
static inline depot_stack_handle_t
slabtrace_depot_save_noalloc(unsigned long *entries, unsigned int nr)
{
#ifdef SLABTRACE_DEPOT_SAVE_FLAGS
	return stack_depot_save_flags(entries, nr, GFP_NOWAIT, 0);
#else
	return __stack_depot_save(entries, nr, 0, GFP_NOWAIT, false);
#endif
}

/**
 * slabtrace_stack_walk_caller - a backtrace from the calling function's
 * caller on
 * @store: where the frames go, innermost first
 * @size: its room
 *
 * Inlined into a tracepoint probe (the function the tracepoint calls),
 * this walks from the probe's return address: the first frame is in the
 * tracepoint's iterator or in the allocator.  stack_trace_save() would
 * walk from its own frame, through arch_stack_walk(), itself and the
 * probe, before reaching them: four frames more of the unwinder's work at
 * every traced allocation, one of them in module code (two lookups of the
 * module tree).
 *
 * x86-64 with the ORC unwinder (Debian's kernels, 6.1 and 6.12): the walk
 * starts from registers built from the probe's own frame, through the
 * unwinder API (__unwind_start(), unwind_next_frame(),
 * unwind_get_return_address(), exported GPL since v4.14), as
 * arch_stack_walk() does from an interrupt's registers.
 * __builtin_frame_address(0) makes GCC give the probe a frame pointer:
 * fp[0] is the caller's saved frame pointer and fp[1] the return address,
 * and the caller's stack pointer is fp + 2.  The probe must be notrace
 * and NOKPROBE_SYMBOL(): the function graph tracer and kretprobes replace
 * a function's return address on the stack, and the unwinder only
 * recovers the ones it reads itself.  Elsewhere (arm64's frame records,
 * UML): stack_trace_save(), whose first frames the trim drops.
 *
 * Return: the number of frames stored.
 */
#if defined(CONFIG_X86_64) && defined(CONFIG_UNWINDER_ORC)
static __always_inline unsigned int
slabtrace_stack_walk_caller(unsigned long *store, unsigned int size)
{
	unsigned long *fp = __builtin_frame_address(0);
	struct unwind_state state __uninitialized;	/* __unwind_start()'s */
	struct pt_regs regs = {
		.ip = (unsigned long)__builtin_return_address(0),
		.sp = (unsigned long)(fp + 2),
		.bp = fp[0],
		.cs = __KERNEL_CS,
	};
	unsigned int nr = 0;
	unsigned long addr;

	if (!size)
		return 0;
	/* arch_stack_walk()'s order: the registers' frame, then the walk. */
	store[nr++] = regs.ip;
	for (__unwind_start(&state, current, &regs, NULL);
	     nr < size && !unwind_done(&state); unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		store[nr++] = addr;
	}
	return nr;
}
#else
static __always_inline unsigned int
slabtrace_stack_walk_caller(unsigned long *store, unsigned int size)
{
	return stack_trace_save(store, size, 0);
}
#endif

/*
 * Commit an event ring_buffer_lock_reserve() gave: between 6.1 and 6.12
 * ring_buffer_unlock_commit() lost its event argument.
 */
static inline int slabtrace_rb_commit(struct trace_buffer *buffer,
				      struct ring_buffer_event *event)
{
#ifdef SLABTRACE_RB_COMMIT_NO_EVENT
	return ring_buffer_unlock_commit(buffer);
#else
	return ring_buffer_unlock_commit(buffer, event);
#endif
}

/*
 * Threads the kernel runs for a process (io_uring's iou-wrk-N, vhost's
 * vhost-N): they are not in the system call of the task that made them,
 * though copy_thread() gave them its registers.  v5.12 added PF_IO_WORKER,
 * v6.4 PF_USER_WORKER (both kinds).
 */
#ifdef PF_USER_WORKER
#define SLABTRACE_PF_WORKER	(PF_IO_WORKER | PF_USER_WORKER)
#else
#define SLABTRACE_PF_WORKER	PF_IO_WORKER
#endif

/**
 * slabtrace_login_uid - the login user a task acts for
 * @tsk: the task
 *
 * The audit login UID: set at login (pam_loginuid), inherited by every
 * process of the login and kept by sudo and su.  audit_get_loginuid() is
 * an inline of <linux/audit.h> on 6.1 and 6.12, reading task->loginuid
 * with CONFIG_AUDITSYSCALL (Debian's kernels, x86-64 and arm64); without
 * it (the debug kernel, UML) every task's is INVALID_UID, "unset".
 *
 * Return: the UID, INVALID_UID if unset.
 */
static inline kuid_t slabtrace_login_uid(struct task_struct *tsk)
{
	return audit_get_loginuid(tsk);
}

#ifdef MODULE
/**
 * slabtrace_module_text - where a module's code is
 * @mod: the module
 * @start: its first byte of text
 * @end: the byte after its last
 *
 * v6.4 replaced the module's core_layout (base, text_size) by an array
 * of memory regions, mem[MOD_TEXT] the text.
 */
static inline void slabtrace_module_text(const struct module *mod,
					 unsigned long *start,
					 unsigned long *end)
{
#ifdef SLABTRACE_MODULE_MEMORY
	*start = (unsigned long)mod->mem[MOD_TEXT].base;
	*end = *start + mod->mem[MOD_TEXT].size;
#else
	*start = (unsigned long)mod->core_layout.base;
	*end = *start + mod->core_layout.text_size;
#endif
}
#endif /* MODULE */

/*
 * cgroup v2, for "start CACHE cgroup PATH": cgroup_get_from_path() is
 * exported on 6.1 and 6.12 (GPL); task_dfl_cgroup(), cgroup_is_descendant()
 * and cgroup_put() are inlines.  The KUnit runner's UML kernel has no
 * CONFIG_CGROUPS: there the filter is refused.
 */
#ifdef CONFIG_CGROUPS
#include <linux/cgroup.h>

static inline struct cgroup *slabtrace_cgroup_get(const char *path)
{
	return cgroup_get_from_path(path);
}

static inline void slabtrace_cgroup_put(struct cgroup *cgrp)
{
	cgroup_put(cgrp);
}

/* Whether current is in @cgrp or below it.  Any context but NMI. */
static __always_inline bool slabtrace_current_in_cgroup(struct cgroup *cgrp)
{
	bool in;

	rcu_read_lock();
	in = cgroup_is_descendant(task_dfl_cgroup(current), cgrp);
	rcu_read_unlock();
	return in;
}
#else
struct cgroup;

static inline struct cgroup *slabtrace_cgroup_get(const char *path)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static inline void slabtrace_cgroup_put(struct cgroup *cgrp)
{
}

static __always_inline bool slabtrace_current_in_cgroup(struct cgroup *cgrp)
{
	return false;
}
#endif

#endif /* _SLABTRACE_COMPAT_H */
