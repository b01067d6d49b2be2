// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: allocation backtraces, trimmed to start at the allocator's
 * caller and deduplicated in the stack depot.
 *
 * The probes walk the stack from their caller on (<wrapper/unwind.h>:
 * slabtrace_stack_walk_caller(), the ORC unwinder from the probe's own
 * frame on x86-64, stack_trace_save() elsewhere), so a walk begins with
 * the tracer's frames: the tracepoint's iterator, the allocator, and with
 * stack_trace_save() the probe and the walker too.  How many there are
 * depends on the kernel and on what the compiler inlined, so no fixed skip
 * count is right.  The tracepoint gives the allocator's return address
 * (call_site); the trace keeps the frames from that address on.  If the
 * unwinder did not see it, the frames are trimmed by symbol name instead,
 * after the last one that belongs to the tracer or the allocator, the way
 * mm/kfence/report.c finds the start of its reports.
 *
 * An allocation made through slabtrace's own code (a frame of the walk in
 * its text) is not recorded.  Only a task's own frames say so: in an
 * interrupt the walk goes on into the interrupted task, which may be in
 * slabtrace's code while the interrupt's allocation is someone else's;
 * there the walk is cut at the interrupt's entry (filter_irq_stacks(), as
 * the stack depot does itself) and not checked.
 *
 * A frame is named when it is shown (modsyms.c, above this file): by
 * kallsyms (leak_frame_symbol(), here), or, if its code went
 * meanwhile (a module unloaded, a module's __init text freed), by the
 * name modsyms.c kept before it went.  So that modsyms.c looks at the
 * records only for a module that a saved trace has a frame in, the
 * probes note the pages of module space their frames are in, a bit each,
 * never cleared (leak_stack_in_module()).  On x86-64 only, where
 * all code outside the kernel's own text (modules, BPF programs,
 * trampolines) is in module space; a frame in vmalloc space makes every
 * module event a walk, as if nothing were noted.  arm64 places its
 * kernel image in vmalloc space and, with KASLR, modules outside module
 * space: there every module event walks.
 *
 * The probes save traces without letting the depot allocate
 * (<wrapper/stackdepot.h>).
 * When its pools are full the trace is deferred: once its record is in
 * the table, kept in one of a few slots with the identities of the
 * records waiting for it, and a work item saves it from process context,
 * where the depot may allocate (which also gives the depot a new pool for
 * the next traces), then gives the handle to those records.  A record's
 * identity is its object, owner and stamp, and a tag (leak_who.defer_tag)
 * given to it before it is in the table, only when its trace is deferred:
 * its object may be freed and its address allocated again in the same
 * millisecond by the same cache, and that record, never deferred or
 * deferred under another tag, must not get this trace.  Only a trace
 * that finds no room (every slot taken, or its slot's waiters), or that
 * the work cannot save either, is lost, counted (LEAK_DROP_STACK);
 * the depot is shared with KASAN and page_owner and capped, so it may
 * also refuse for good.  "start" primes the depot (a depot that nobody
 * let allocate has no pool at all).  No reference is taken
 * on the saved traces (6.12's STACK_DEPOT_FLAG_GET and stack_depot_put()):
 * it would cost an atomic operation on a shared counter at every traced
 * allocation and free, for traces that are few (one per code path, not per
 * object) and that 6.1's depot could never free anyway.
 *
 * Each CPU keeps the handles of the traces it saved last, by a hash of
 * their frames (stack_cache): an allocation's trace is most often one
 * saved before, since a workload repeats its code paths, and a hit there
 * (a multiply a frame, in the pass that looks for slabtrace's own code,
 * the depot's copy fetched and compared inline) costs less
 * than the depot's own save, which hashes the frames with jhash2, looks
 * for interrupt entries in them and walks a bucket.  The slots hold only
 * handles, which stay valid (no reference is put, above).
 *
 * Notes on locking
 * ----------------
 * - stack_cache: no lock.  A slot is one handle, read and written once
 *   (READ_ONCE/WRITE_ONCE) by the probes, on their CPU or, preempted and
 *   moved, another's: an interrupt or another CPU may overwrite it
 *   between the read and the compare, which compares the trace the
 *   handle read names, never the slot again.
 * - defer_lock (raw spinlock, irq-safe): defer_slot[] and defer_nr.  A
 *   probe only trylocks it: busy, the trace is lost and counted.  Taken
 *   before nothing; the work drops it before it touches the table.
 * - defer_mutex: one drain at a time, the worker's job or a flush (a
 *   print's, with leak_mutex held: taken after it).
 * - The stack depot has its own locks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/bitmap.h>
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/stacktrace.h>
#include <linux/string.h>

#include <wrapper/module.h>
#include <wrapper/stackdepot.h>

#include "stacks.h"
#include "table.h"
#include "traced.h"
#include "worker.h"

/* Functions whose frames come before the allocator's caller. */
static const char *const tracer_prefixes[] = {
	"leak_", "slabtrace_", "__traceiter_", "__bpf_trace_",
	"kmalloc", "__kmalloc", "kmem_cache_alloc", "__kmem_cache_alloc",
	"slab_alloc", "__slab_alloc", "___slab_alloc", "__do_kmalloc",
	"kfree", "kmem_cache_free", "stack_trace_save", "arch_stack_walk",
	"pcpu_alloc", "__alloc_percpu",
};

static bool tracer_frame(unsigned long ip)
{
	char name[64];
	unsigned int i;

	/* "%ps" drops the offset: the bare name, maybe truncated. */
	snprintf(name, sizeof(name), "%ps", (void *)ip);
	for (i = 0; i < ARRAY_SIZE(tracer_prefixes); i++)
		if (str_has_prefix(name, tracer_prefixes[i]))
			return true;
	return false;
}

/* The tracer's frames are among the first few; a caller's never are. */
#define TRACER_FRAMES_MAX	12

/*
 * The function @ip is in, as kallsyms prints it ("NAME+0xOFF/0xSIZE"):
 * its start and size; false if it has no symbol, or (@want not NULL) is
 * not named @want.  kallsyms_lookup_size_offset() is not exported.
 */
static bool function_of(unsigned long ip, const char *want,
			unsigned long *start, unsigned long *size)
{
	char name[KSYM_SYMBOL_LEN];
	unsigned long off;
	char *plus;

	snprintf(name, sizeof(name), "%pS", (void *)ip);
	plus = strrchr(name, '+');
	if (!plus || sscanf(plus, "+%lx/%lx", &off, size) != 2 ||
	    off >= *size)
		return false;
	*plus = '\0';
	if (want && strcmp(name, want))
		return false;
	*start = ip - off;
	return true;
}

/*
 * Before 6.10, alloc_percpu() is __alloc_percpu() or __alloc_percpu_gfp(),
 * functions that call pcpu_alloc(), whose tracepoint reports its own
 * return address: in the wrapper, where the compiler made no tail call
 * (arm64's frame pointers keep every call); the caller is the next frame.
 * From 6.10 they are macros calling pcpu_alloc_noprof() from the caller.
 * Each wrapper's start and size, found by name at load.
 */
#ifndef __alloc_percpu
static unsigned long pcpu_wrap[2][2];

static void pcpu_wrap_init(void)
{
	const unsigned long fn[2] = {
		(unsigned long)__alloc_percpu, (unsigned long)__alloc_percpu_gfp,
	};
	unsigned long start, size;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fn); i++) {
		if (function_of(fn[i], NULL, &start, &size)) {
			pcpu_wrap[i][0] = start;
			pcpu_wrap[i][1] = size;
		}
	}
}

static __always_inline bool pcpu_wrapper(unsigned long ip)
{
	return ip - pcpu_wrap[0][0] < pcpu_wrap[0][1] ||
	       ip - pcpu_wrap[1][0] < pcpu_wrap[1][1];
}
#else
static inline void pcpu_wrap_init(void)
{
}

static __always_inline bool pcpu_wrapper(unsigned long ip)
{
	return false;
}
#endif

/**
 * leak_stack_trim - where the allocator's caller is in a trace
 * @entries: the trace, innermost frame first
 * @nr: its length
 * @call_site: the allocator's return address; in one of 6.1's
 *	       alloc_percpu() wrappers, the frame after it is the caller's
 *
 * Return: the index of the first frame to keep; 0 if nothing is known to
 * be the tracer's.
 */
VISIBLE_IF_KUNIT unsigned int leak_stack_trim(const unsigned long *entries,
					      unsigned int nr,
					      unsigned long call_site)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (entries[i] == call_site)
			return i + 1 < nr && pcpu_wrapper(call_site) ? i + 1 : i;
	/* Slow, and rare: symbolise the first frames. */
	for (i = min(nr, TRACER_FRAMES_MAX); i > 0; i--)
		if (tracer_frame(entries[i - 1]))
			return i < nr ? i : 0;
	return 0;
}

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* The tests set them to see the depot full, for a probe or for the work. */
bool leak_fail_depot;
bool leak_fail_drain;

static bool depot_fails(void)
{
	return READ_ONCE(leak_fail_depot);
}

static bool drain_fails(void)
{
	return READ_ONCE(leak_fail_drain);
}
#else
static bool depot_fails(void)
{
	return false;
}

static bool drain_fails(void)
{
	return false;
}
#endif

/* A record waiting for a deferred trace. */
struct waiter {
	const void *obj;
	u32 stamp;
	u16 owner;
	u16 tag;			/* its leak_who.defer_tag */
};

/* A trace the depot had no room for, and the records waiting for it. */
struct deferred {
	u32 hash;
	unsigned int nr;
	unsigned int nr_waiters;
	unsigned long entries[LEAK_STACK_DEPTH];
	struct waiter waiters[LEAK_STACK_WAITERS];
};

/* defer_slot[] and defer_nr; a probe only trylocks it. */
static DEFINE_RAW_SPINLOCK(defer_lock);
static struct deferred defer_slot[LEAK_STACK_DEFER];
/* One drain at a time: a flush waits for the worker's.  And its buffer. */
static DEFINE_MUTEX(defer_mutex);
static struct deferred defer_buf;	/* under defer_mutex */
static unsigned int defer_nr;
static atomic_long_t defer_count;
/*
 * The last tag given to a deferred record.  Only a probe whose depot has
 * no room takes one: a saved trace costs no atomic operation for it.  A
 * tag comes round again after 65,535 more: a waiter could then be taken
 * only for a record of its object, owner and millisecond made 65,535
 * deferrals after its own.
 */
static atomic_t defer_tags;

/*
 * A new tag: 1 to U16_MAX in turn, never 0 (a record never deferred).
 * The low 16 bits of the count, skipping 0 (65,536 divides 2^32, so the
 * turn stays even when the count wraps).
 */
static u16 defer_tag_new(void)
{
	u16 tag = atomic_inc_return(&defer_tags);

	return tag ? tag : (u16)atomic_inc_return(&defer_tags);
}

/*
 * A deferred trace the depot could not save either: the records still
 * waiting for it keep no backtrace, counted as the probes count a trace
 * with no room (LEAK_DROP_STACK), so that the print's drops say why.  A
 * waiter whose record is gone counts nothing: its object was freed, or
 * its cache reset or released, and the owner id may be another cache's
 * by now.  leak_table_set_stack() with no stack only finds the record.
 */
static void defer_lost(const struct deferred *d)
{
	const struct waiter *w;
	const struct leak_set *set;
	struct leak_traced *tr;
	unsigned int i;

	rcu_read_lock();
	set = rcu_dereference(leak_active);
	for (i = 0; set && i < d->nr_waiters; i++) {
		w = &d->waiters[i];
		if (!leak_table_set_stack(&leak_records, w->obj, w->owner,
					  w->stamp, w->tag, 0))
			continue;
		tr = leak_traced_of_id(set, w->owner);
		if (tr)
			atomic_long_inc(&tr->drops[LEAK_DROP_STACK]);
	}
	rcu_read_unlock();
}

/*
 * Take the deferred traces out of their slots one by one, into @d, save
 * each in the depot (letting it allocate if @can_sleep) and give it to the
 * records waiting for it.
 */
static void defer_drain(struct deferred *d, bool can_sleep)
{
	depot_stack_handle_t handle;
	unsigned long flags;
	unsigned int i;

	for (;;) {
		raw_spin_lock_irqsave(&defer_lock, flags);
		if (defer_nr)
			*d = defer_slot[--defer_nr];
		else
			d->nr = 0;
		raw_spin_unlock_irqrestore(&defer_lock, flags);
		if (!d->nr)
			break;
		if (drain_fails())
			handle = 0;
		else if (can_sleep)
			handle = stack_depot_save(d->entries, d->nr,
						  GFP_KERNEL | __GFP_NORETRY |
						  __GFP_NOWARN);
		else
			handle = slabtrace_depot_save_noalloc(d->entries, d->nr);
		if (!handle)
			defer_lost(d);
		for (i = 0; handle && i < d->nr_waiters; i++)
			leak_table_set_stack(&leak_records,
					     d->waiters[i].obj,
					     d->waiters[i].owner,
					     d->waiters[i].stamp,
					     d->waiters[i].tag, handle);
		if (can_sleep)
			cond_resched();
	}
}

/* The worker's job: save the deferred traces, letting the depot allocate. */
static void defer_job(void)
{
	/* Not allocated: a flush that found no memory would not wait. */
	mutex_lock(&defer_mutex);
	defer_drain(&defer_buf, true);
	mutex_unlock(&defer_mutex);
}

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/*
 * What the work does, at once and without sleeping (the depot has room):
 * the tests run it where a probe could be overtaken by the work.
 */
void leak_stack_drain_now(void)
{
	static struct deferred d;

	defer_drain(&d, false);
}

/* The @n tags given after the count @v: the tests look at its wrap. */
void leak_defer_tags_after(int v, u16 *tags, unsigned int n)
{
	atomic_set(&defer_tags, v);
	while (n--)
		*tags++ = defer_tag_new();
}
#endif

/* The slot holding this trace, or a new one; NULL if none is free. */
static struct deferred *defer_find(u32 hash, const unsigned long *entries,
				   unsigned int nr)
{
	struct deferred *d;
	unsigned int i;

	lockdep_assert_held(&defer_lock);
	for (i = 0; i < defer_nr; i++) {
		d = &defer_slot[i];
		if (d->hash == hash && d->nr == nr &&
		    !memcmp(d->entries, entries, nr * sizeof(entries[0])))
			return d;
	}
	if (defer_nr == LEAK_STACK_DEFER)
		return NULL;
	d = &defer_slot[defer_nr++];
	d->hash = hash;
	d->nr = nr;
	d->nr_waiters = 0;
	memcpy(d->entries, entries, nr * sizeof(entries[0]));
	return d;
}

/* Keep a trace for later, if there is room, with its record's identity. */
static bool defer(const struct waiter *w, const unsigned long *entries,
		  unsigned int nr)
{
	u32 hash = jhash(entries, nr * sizeof(entries[0]), 0);
	struct deferred *d;
	unsigned long flags;
	bool kept = false;

	if (!raw_spin_trylock_irqsave(&defer_lock, flags))
		return false;
	d = defer_find(hash, entries, nr);
	if (d && d->nr_waiters < LEAK_STACK_WAITERS) {
		d->waiters[d->nr_waiters++] = *w;
		kept = true;
	}
	raw_spin_unlock_irqrestore(&defer_lock, flags);
	if (kept)
		atomic_long_inc(&defer_count);
	leak_work_kick(LEAK_JOB_STACKS);
	return kept;
}

/**
 * leak_stack_prime - let the depot allocate before tracing starts
 *
 * A depot nobody saved to with allocation allowed has no pool at all: the
 * probes' first traces would all be deferred.  Saving the caller's own
 * trace from process context gives it one.  May sleep.
 */
void leak_stack_prime(void)
{
	unsigned long entries[LEAK_STACK_DEPTH];
	unsigned int nr;

	nr = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	stack_depot_save(entries, nr, GFP_KERNEL | __GFP_NORETRY |
				      __GFP_NOWARN);
}

unsigned long leak_walk_end, leak_walk_end_size;

/**
 * leak_stack_find_end - find where the probes' walks may end
 *
 * do_syscall_64(): a walk from a 64-bit system call goes on from there
 * into the entry code and its registers, the same in every walk, for
 * frames of the unwinder's work and a failed search of the user address
 * the registers hold (<wrapper/unwind.h>).  kallsyms_lookup_name() is not
 * exported: the function is found by name, with its size, in a walk of
 * the caller, a task starting the tracing with a write to ctl (a system
 * call).  Once found, for good; until then (a caller not in a system
 * call, an arch or kernel with no such function) the walks go to the
 * stack's end.
 *
 * Context: process context.
 */
void leak_stack_find_end(void)
{
	unsigned long entries[LEAK_STACK_DEPTH], start, size;
	unsigned int nr, i;

	/* Only the ORC walk of <wrapper/unwind.h> can stop: no search. */
	if (!IS_ENABLED(CONFIG_X86_64) || !IS_ENABLED(CONFIG_UNWINDER_ORC) ||
	    leak_walk_end_size)
		return;
	nr = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	for (i = 0; i < nr; i++) {
		if (!function_of(entries[i], "do_syscall_64", &start, &size))
			continue;
		WRITE_ONCE(leak_walk_end, start);
		WRITE_ONCE(leak_walk_end_size, size);
		return;
	}
}

/* slabtrace's own code: an allocation made through it is not recorded. */
static unsigned long own_start, own_end;

#if defined(CONFIG_MODULES) && defined(CONFIG_X86_64)
/*
 * The pages of module space that saved traces have frames in, a bit each
 * (32 KiB of bits), or NULL if that could not be allocated: then every
 * module event walks.  Set by the probes (a bit already set is only
 * read), read by the module notifier; a bit is never cleared, so a
 * module loaded where a traced one was walks too, which is what a walk
 * was for.
 */
#define MOD_PAGES	((MODULES_END - MODULES_VADDR) >> PAGE_SHIFT)
static unsigned long *mod_seen;
/* A frame in vmalloc space was saved: no module space of its own. */
static bool mod_elsewhere;

static void mod_seen_init(void)
{
	mod_seen = kvcalloc(BITS_TO_LONGS(MOD_PAGES), sizeof(long),
			    GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
	if (!mod_seen)
		pr_info("no memory for the module pages of saved traces: every module load and unload walks the records\n");
}

static void mod_seen_exit(void)
{
	kvfree(mod_seen);
	mod_seen = NULL;
}

static __always_inline bool mod_seen_ready(void)
{
	return mod_seen;
}

/*
 * Note @ip's page if it is in module space: two compares for a frame of
 * the kernel's text, a bit read for one in a module.  Any context.
 */
static __always_inline void mod_note(unsigned long ip)
{
	unsigned long page = (ip - MODULES_VADDR) >> PAGE_SHIFT;

	if (ip >= MODULES_VADDR && page < MOD_PAGES) {
		if (!test_bit(page, mod_seen))
			set_bit(page, mod_seen);
	} else if (unlikely(ip >= VMALLOC_START && ip < VMALLOC_END) &&
		   !READ_ONCE(mod_elsewhere)) {
		WRITE_ONCE(mod_elsewhere, true);
	}
}

/* Whether a noted page has a byte of @mod (of its init text, @init). */
static bool mod_page_of(unsigned long page, struct module *mod, bool init)
{
	unsigned long first = MODULES_VADDR + (page << PAGE_SHIFT);
	unsigned long last = first + PAGE_SIZE - 1;

	if (init)
		return within_module_init(first, mod) ||
		       within_module_init(last, mod);
	return within_module(first, mod) || within_module(last, mod);
}

/**
 * leak_stack_in_module - whether a saved trace may have a frame in @mod
 * @mod: a module coming, going, or whose init text goes
 * @init: in its init text only
 *
 * Context: process context (the module notifier); @mod's memory is where
 * it is for the whole call.
 *
 * Return: false if no trace saved since slabtrace was loaded has a frame
 * in @mod's pages (or in what was at those pages before @mod); true if
 * one may, and always where pages are not noted (not x86-64, no memory
 * for the bitmap, a frame saved in vmalloc space).
 */
bool leak_stack_in_module(struct module *mod, bool init)
{
	unsigned long page;

	if (!mod_seen || READ_ONCE(mod_elsewhere))
		return true;
	for_each_set_bit(page, mod_seen, MOD_PAGES)
		if (mod_page_of(page, mod, init))
			return true;
	return false;
}
#else
static void mod_seen_init(void)
{
}

static void mod_seen_exit(void)
{
}

static __always_inline bool mod_seen_ready(void)
{
	return false;
}

static __always_inline void mod_note(unsigned long ip)
{
}

bool leak_stack_in_module(struct module *mod, bool init)
{
	return true;
}
#endif

/* A step of loading (slab.c), before any probe: the depot, too. */
static int stacks_init(void)
{
	int ret;

#ifdef MODULE
	slabtrace_module_text(THIS_MODULE, &own_start, &own_end);
#endif
	pcpu_wrap_init();
	mod_seen_init();
	leak_work_job(LEAK_JOB_STACKS, defer_job, 0);
	ret = stack_depot_init();
	if (ret)
		mod_seen_exit();
	return ret;
}

/* At unloading, once no probe runs and no module event comes. */
static void stacks_exit(void)
{
	mod_seen_exit();
}

#define STACK_CACHE_BITS	6

struct stack_cache {
	depot_stack_handle_t slot[1 << STACK_CACHE_BITS];
};

static DEFINE_PER_CPU(struct stack_cache, stack_cache);

/* A step of the hash that picks a trace's slot in stack_cache. */
static __always_inline u64 slot_step(u64 h, unsigned long ip)
{
	return (h ^ ip) * GOLDEN_RATIO_64;
}

#if LEAK_TESTS
/*
 * The slot of stack_cache a trace's handle is kept in: the hash
 * scan_frames() takes in its pass, alone, for the tests.
 */
VISIBLE_IF_KUNIT unsigned int leak_stack_slot(const unsigned long *entries,
					      unsigned int nr)
{
	u64 h = nr;
	unsigned int i;

	for (i = 0; i < nr; i++)
		h = slot_step(h, entries[i]);
	return hash_64(h, STACK_CACHE_BITS);
}
#endif

/*
 * Whether @ip is in the kernel's own image: on x86-64 the image lies
 * between __START_KERNEL_map and MODULES_VADDR, above every other mapping
 * (the direct map, vmalloc space) and below module space, where
 * modules (slabtrace built as one: its own code; built in, it has none
 * to look for), BPF programs and trampolines are.  Such a frame is
 * neither slabtrace's nor on a module page: two compares instead of the
 * own-code check and mod_note()'s, for most frames of a trace.
 * Elsewhere (arm64, UML) no shortcut: false.
 */
static __always_inline bool image_frame(unsigned long ip)
{
#if defined(CONFIG_X86_64) && !defined(CONFIG_UML)
	return ip >= __START_KERNEL_map && ip < MODULES_VADDR;
#else
	return false;
#endif
}

/*
 * Every frame of a backtrace about to be saved, in one pass: whether one
 * is in slabtrace's own code (looked for if @own), the module pages they
 * are in, noted, and the trace's slot in stack_cache (leak_stack_slot()'s
 * hash), in *@slot.
 */
static __always_inline bool scan_frames(const unsigned long *entries,
					unsigned int nr, bool own,
					unsigned int *slot)
{
	bool note = mod_seen_ready();
	u64 h = nr;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		h = slot_step(h, entries[i]);
		if (image_frame(entries[i]))
			continue;
		if (own && entries[i] >= own_start && entries[i] < own_end)
			return true;
		if (note)
			mod_note(entries[i]);
	}
	*slot = hash_64(h, STACK_CACHE_BITS);
	return false;
}

/* Whether two traces of @nr frames are the same: inline, no memcmp(). */
static __always_inline bool same_frames(const unsigned long *a,
					const unsigned long *b,
					unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/*
 * The handle of a trace of @nr frames whose slot in stack_cache is @slot
 * (scan_frames()): the one kept there if it names the same frames,
 * else the depot's, kept.
 */
static __always_inline depot_stack_handle_t
save_in_slot(unsigned long *entries, unsigned int nr, unsigned int slot)
{
	/* Preemptible in the tests: any CPU's slot will do. */
	depot_stack_handle_t *p = &raw_cpu_ptr(&stack_cache)->slot[slot];
	depot_stack_handle_t handle = READ_ONCE(*p);
	unsigned long *saved;

	if (handle && stack_depot_fetch(handle, &saved) == nr &&
	    same_frames(saved, entries, nr))
		return handle;
	handle = slabtrace_depot_save_noalloc(entries, nr);
	if (handle)
		WRITE_ONCE(*p, handle);
	return handle;
}

#if LEAK_TESTS
/**
 * leak_stack_save - a trace's depot handle, without letting it allocate
 * @entries: the trace
 * @nr: its length
 *
 * From this CPU's stack_cache when the handle kept in the trace's slot
 * names the same frames; else from the depot, and kept.
 *
 * Context: Any context but NMI (a probe); no lock of its own.
 * Return: the handle, or 0 if the depot had no room.
 */
VISIBLE_IF_KUNIT depot_stack_handle_t leak_stack_save(unsigned long *entries,
						      unsigned int nr)
{
	return save_in_slot(entries, nr, leak_stack_slot(entries, nr));
}
#endif

/*
 * The part of a walk that is the allocation's backtrace: from the
 * allocator's caller on, and in an interrupt up to the interrupt's entry
 * (what lies beyond is the interrupted task's).  Sets *@first to its first
 * frame's index.
 *
 * Return: its length; 0 if the walk had no frame of the caller.
 */
static __always_inline unsigned int
backtrace_of(unsigned long *entries, unsigned int nr, unsigned long call_site,
	     unsigned int *first)
{
	*first = leak_stack_trim(entries, nr, call_site);
	if (*first >= nr)
		return 0;
	nr -= *first;
	if (!in_task())
		nr = filter_irq_stacks(entries + *first, nr);
	return nr;
}

/**
 * leak_stack_store - save a backtrace from the allocator's caller on
 * @rec: the record it is for, not yet in the table; its ->stack is set
 *	 here (0 if not saved), and its ->who.defer_tag (0 unless -EAGAIN)
 * @entries: the walk (slabtrace_stack_walk_caller(), from the
 *	     probe's caller on: each frame walked costs, so the walk starts as
 *	     shallow as it can)
 * @nr: its length, at most LEAK_STACK_DEPTH
 * @call_site: the allocator's return address, as the tracepoint gives it
 *
 * Context: Any context but NMI (a probe); never allocates, never waits
 * (the depot's own lock is a raw spinlock).
 * Return: 0 when saved; -EAGAIN when the depot had no room: @rec has a
 * new defer tag, and once it is in the table, leak_stack_defer() has the
 * trace saved later; -ENODATA when the walk had no frame of the caller;
 * -EPERM when a task's backtrace passes through slabtrace's own code:
 * slabtrace's allocations, made directly or through a kernel helper
 * (argv_split(), seq_open(), an xarray's nodes), are not recorded.
 */
int leak_stack_store(struct leak_record *rec, unsigned long *entries,
		     unsigned int nr, unsigned long call_site)
{
	unsigned int first, slot;

	rec->stack = 0;
	rec->who.defer_tag = 0;
	nr = backtrace_of(entries, nr, call_site, &first);
	if (!nr)
		return -ENODATA;
	if (scan_frames(entries + first, nr, in_task(), &slot))
		return -EPERM;
	if (likely(!depot_fails()))
		rec->stack = save_in_slot(entries + first, nr, slot);
	if (likely(rec->stack))
		return 0;
	/*
	 * Before the record is in the table (the stripe lock publishes it to
	 * leak_table_set_stack()): set after, it could tag a record of the
	 * same identity that replaced this one meanwhile.
	 */
	rec->who.defer_tag = defer_tag_new();
	return -EAGAIN;
}

/**
 * leak_stack_defer - have a backtrace saved later, for a record
 * @obj: the record's object
 * @owner: its owner
 * @stamp: its stamp
 * @tag: its defer tag, which leak_stack_store() gave it
 * @entries: the walk leak_stack_store() could not save
 * @nr: its length
 * @call_site: the allocator's return address
 *
 * Called from the probes, once the record is in the table: the work that
 * gives out the saved traces finds it there.  (It may be freed meanwhile,
 * and its address used again, even by the same cache in the same
 * millisecond: that record has another tag, or none, and gets nothing.)
 *
 * Context: Any context but NMI (a probe); never allocates; only tries the
 * deferred traces' raw spinlock.
 * Return: false if there was no room: the record has no backtrace.
 */
bool leak_stack_defer(const void *obj, u16 owner, u32 stamp, u16 tag,
		      unsigned long *entries, unsigned int nr,
		      unsigned long call_site)
{
	struct waiter w = {
		.obj = obj, .stamp = stamp, .owner = owner, .tag = tag,
	};
	unsigned int first;

	nr = backtrace_of(entries, nr, call_site, &first);
	return nr && defer(&w, entries + first, nr);
}

/* Let the deferred saves finish (before a print).  May sleep. */
void leak_stack_flush(void)
{
	/* Drained here; a drain the worker has under way is waited for. */
	defer_job();
}

/* Traces saved later than their allocation, since load (for the stats). */
VISIBLE_IF_KUNIT long leak_stack_deferred(void)
{
	return atomic_long_read(&defer_count);
}

/* "stacks deferred 3" */
static void stacks_stats(struct seq_file *m)
{
	seq_printf(m, "stacks deferred %ld\n", leak_stack_deferred());
}

const struct leak_part leak_stacks_part = {
	.step = { "stack depot", stacks_init, stacks_exit },
	.stats = stacks_stats,
};

#if LEAK_TESTS
/**
 * leak_stack_first - the first frame of a saved trace (for the tests)
 * @handle: the stack depot handle
 * @ip: where to store it
 *
 * Return: 0, or -ENOENT if @handle holds no trace.
 */
int leak_stack_first(depot_stack_handle_t handle, unsigned long *ip)
{
	unsigned long *entries;

	if (!handle || !stack_depot_fetch(handle, &entries))
		return -ENOENT;
	*ip = entries[0];
	return 0;
}
#endif

/**
 * leak_frame_symbol - what kallsyms calls a frame
 * @buf: where to write it
 * @size: its size
 * @ip: the frame's address
 * @offset: with "+0x1b/0x20" or not
 *
 * Return: false, with @buf holding nothing a user may see, if @ip has no
 * symbol.
 */
bool leak_frame_symbol(char *buf, size_t size, unsigned long ip,
		       bool offset)
{
	snprintf(buf, size, offset ? "%pS" : "%ps", (void *)ip);
	/* No symbol: vsprintf printed the raw address. */
	if (str_has_prefix(buf, "0x")) {
		buf[0] = '\0';
		return false;
	}
	return true;
}
