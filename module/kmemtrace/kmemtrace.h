/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace's internals, beside its code in module/kmemtrace/ and seen by
 * its KUnit suite, no other system.  The format is in
 * <uapi/slabtrace/kmemtrace.h> and <uapi/slabtrace/ctf.h>; the locking
 * rules are at the top of each file, the order of all the locks in
 * main.c's header.  Its public face is kmemtrace_system.
 */
#ifndef _SLABTRACE_KMEMTRACE_H
#define _SLABTRACE_KMEMTRACE_H

#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <uapi/slabtrace/kmemtrace.h>

#include <slabtrace/core.h>
#include <slabtrace/ctf.h>

struct dentry;
struct kmem_cache;
struct kobject;
struct seq_file;

/* Caches a trace's filter names, at most. */
#define KMEMTRACE_MAX_CACHES	16

/* Cache ids of the table: KMEMTRACE_CACHE_FIRST + slot. */
#define KMEMTRACE_CACHE_SLOTS	1024
#define KMEMTRACE_CACHE_PROBES	16	/* slots tried per lookup */

/* The addresses ptr holds above ptr_base: 2^48. */
#define KMEMTRACE_PTR_SPAN	BIT_ULL(8 * KMEMTRACE_PTR_SIZE)

/* The stream, and what selects the events of the current trace. */
struct kmemtrace_trace {
	struct slabtrace_stream stream;
	unsigned int nr_filter;			/* 0: every cache */
	struct slabtrace_cache_ref filter[KMEMTRACE_MAX_CACHES];
	/* " NAME NAME...", escaped (SLABTRACE_ESCAPE: 4 bytes a byte at most) */
	char filter_names[4 * SLABTRACE_CMD_MAX + 1];
	unsigned long call_site_base;		/* call_site field: offset */
	unsigned long ptr_base;			/* ptr field: offset */
};

/* probes.c: the events. */
int kmemtrace_probes_register(struct kmemtrace_trace *t);
void kmemtrace_probes_unregister(struct kmemtrace_trace *t);

/* cachetab.c: cache pointers to the small ids the events carry. */
struct kmemtrace_slot {
	const struct kmem_cache *cache;
	struct kobject *pin;		/* holds the cache's memory, or NULL */
	unsigned int slab_size;		/* kmemtrace_mutex; 0: not read yet */
};

extern struct kmemtrace_slot kmemtrace_slots[KMEMTRACE_CACHE_SLOTS];
u16 kmemtrace_cache_id(const struct kmem_cache *s);

/* The slot a lookup of @s tries first. */
static __always_inline unsigned int kmemtrace_cache_hash(const struct kmem_cache *s)
{
	return hash_ptr((void *)s, ilog2(KMEMTRACE_CACHE_SLOTS));
}

/* kmemtrace_cache_id(), inline when @s is in the slot it tries first. */
static __always_inline u16 kmemtrace_cache_id_fast(const struct kmem_cache *s)
{
	unsigned int slot = kmemtrace_cache_hash(s);

	if (likely(READ_ONCE(kmemtrace_slots[slot].cache) == s))
		return KMEMTRACE_CACHE_FIRST + slot;
	return kmemtrace_cache_id(s);
}

void kmemtrace_cachetab_reset(void);
unsigned long kmemtrace_cachetab_full(void);
int kmemtrace_caches_show(struct seq_file *m, bool tsdl);

/* kmemtrace.c: control, kmemtrace's mutex; files.c: the stream's part. */
extern struct mutex kmemtrace_mutex;
extern struct kmemtrace_trace kmemtrace_trace;
extern bool kmemtrace_running;
extern unsigned int kmemtrace_buffer_kb;
int kmemtrace_files_init(void);

/*
 * Global only for the KUnit suites: static in the module
 * (VISIBLE_IF_KUNIT, <kunit/visibility.h>).
 */
#if IS_ENABLED(CONFIG_KUNIT)
void kmemtrace_encode_alloc(u8 *p, const struct kmemtrace_trace *t,
			    unsigned long call_site, const void *ptr, size_t req,
			    size_t alloc, gfp_t gfp, u16 cache, int node);
void kmemtrace_encode_free(u8 *p, const struct kmemtrace_trace *t,
			   unsigned long call_site, const void *ptr, u16 cache);
int kmemtrace_start(char **names, int nr);
int kmemtrace_stop(void);
unsigned long kmemtrace_call_site_base(unsigned long kernel_text);
int kmemtrace_ptr_base(unsigned long lo, unsigned long hi, unsigned long *base);
void kmemtrace_linear_map(unsigned long *lo, unsigned long *hi);
#endif

#endif /* _SLABTRACE_KMEMTRACE_H */
