// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: the cache table, cache pointers to the 16-bit ids events
 * carry, and its listing with the caches' names, object sizes and slab
 * sizes (the "caches" file, and the cache enumeration of the metadata).
 *
 * A probe finds or claims a slot by open addressing, at most
 * KMEMTRACE_CACHE_PROBES slots from the pointer's hash, claiming an empty one
 * with cmpxchg(); a full neighbourhood gives KMEMTRACE_CACHE_UNKNOWN, counted
 * (the cache_table_full file).  The probe that claims a slot pins the
 * cache (a reference on its kobject, slabtrace_cache_pin()): a cache
 * destroyed during the trace keeps its memory, so no new cache takes its
 * address and its id, until the table is reset (the next start, or
 * rmmod).  Slots are cleared and the pins dropped only when no probe is
 * registered.  Names are looked up when the table is listed, by walking
 * /sys/kernel/slab, and each escaped, its commas too, before a cache's
 * names are joined with ','; a pinned cache no longer there was destroyed,
 * and is listed under its own sysfs name, with "(destroyed)".  A cache's slab
 * size (its slab_size file: what an object takes in the slab, which the
 * events cannot carry: the tracepoint gives the probe the object size
 * only) is read when the table is first listed with the cache in it, and
 * kept in the slot for the rest of the trace; 0 if the cache was
 * destroyed before that.
 *
 * Notes on locking
 * ----------------
 * - No lock on the slots: a slot's cache goes from NULL to a pointer once
 *   per trace, then its pin from NULL to the kobject (WRITE_ONCE).
 * - kmemtrace_mutex: resetting the table (the callers hold it, the probes
 *   unregistered), and listing it (a reset must not drop a pin the
 *   listing reads); a slot's slab_size, which only the listing writes.
 */
#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <uapi/slabtrace/kmemtrace.h>

#include <slabtrace/core.h>

#include "kmemtrace.h"

/* The probes' inline lookup reads it too (kmemtrace_cache_id_fast()). */
struct kmemtrace_slot kmemtrace_slots[KMEMTRACE_CACHE_SLOTS];
static atomic_long_t table_full;

/**
 * kmemtrace_cache_id - the id of a cache in this trace
 * @s: the cache
 *
 * Safe in any context but NMI.
 *
 * Return: KMEMTRACE_CACHE_FIRST + its slot, or KMEMTRACE_CACHE_UNKNOWN.
 */
u16 kmemtrace_cache_id(const struct kmem_cache *s)
{
	unsigned int h = kmemtrace_cache_hash(s);
	const struct kmem_cache *cur;
	unsigned int i, slot;

	for (i = 0; i < KMEMTRACE_CACHE_PROBES; i++) {
		slot = (h + i) & (KMEMTRACE_CACHE_SLOTS - 1);
		cur = READ_ONCE(kmemtrace_slots[slot].cache);
		if (!cur) {
			cur = cmpxchg(&kmemtrace_slots[slot].cache, NULL, s);
			if (!cur) {
				/* Claimed: @s is in use, so it can be pinned. */
				WRITE_ONCE(kmemtrace_slots[slot].pin,
					   slabtrace_cache_pin(s));
				return KMEMTRACE_CACHE_FIRST + slot;
			}
		}
		if (cur == s)
			return KMEMTRACE_CACHE_FIRST + slot;
	}
	atomic_long_inc(&table_full);
	return KMEMTRACE_CACHE_UNKNOWN;
}

/*
 * A new trace, or rmmod: the slots cleared, the caches let go.  No probe
 * may run.  Called with kmemtrace_mutex held.
 */
void kmemtrace_cachetab_reset(void)
{
	unsigned int i;

	lockdep_assert_held(&kmemtrace_mutex);
	for (i = 0; i < KMEMTRACE_CACHE_SLOTS; i++)
		if (kmemtrace_slots[i].pin)
			slabtrace_cache_unpin(kmemtrace_slots[i].pin);
	memset(kmemtrace_slots, 0, sizeof(kmemtrace_slots));
	atomic_long_set(&table_full, 0);
}

/* Events that got KMEMTRACE_CACHE_UNKNOWN. */
unsigned long kmemtrace_cachetab_full(void)
{
	return atomic_long_read(&table_full);
}

/* A cache's names, each escaped: 96 bytes of them, each byte "\xNN" at worst. */
#define NAMES_MAX	(4 * 96)
/* Room kept at the end of a slot's names for ",+N": the names left out. */
#define NAMES_MORE	8
/*
 * What a name escapes besides SLABTRACE_ESCAPE's bytes: a space and a
 * backslash, as everywhere; the ',' that joins a cache's names, so that
 * "a,b" is two names and "a\x2cb" one; and what starts the listing's own
 * words, so that no name reads as one: '+' (",+N"), '(' ("(pages)",
 * "(destroyed)") and '?'.
 */
#define NAMES_ESCAPE_ALSO	SLABTRACE_ESCAPE_ALSO ",+(?"

struct listing {
	char (*names)[NAMES_MAX];	/* per slot: "name,alias,...", escaped */
	unsigned int *size;		/* per slot: object size */
	unsigned int *slab_size;	/* per slot: its copy, for the listing */
	unsigned int *more;		/* per slot: names that did not fit */
};

/* Add @name, escaped, to the slot of its cache, if the trace saw the cache. */
static bool list_name(void *arg, const char *name, const struct kmem_cache *s,
		      u64 ino)
{
	struct listing *l = arg;
	const struct kmem_cache *cache;
	char esc[SLABTRACE_ESC_SIZE];
	size_t used, len;
	unsigned int i;

	for (i = 0; i < KMEMTRACE_CACHE_SLOTS; i++) {
		cache = READ_ONCE(kmemtrace_slots[i].cache);
		if (cache != s)
			continue;
		/* A cache is read only while the slot's pin holds it. */
		if (READ_ONCE(kmemtrace_slots[i].pin))
			l->size[i] = kmem_cache_size((struct kmem_cache *)cache);
		used = strlen(l->names[i]);
		/* A merged cache's own directory, ":0000064", goes last. */
		if (name[0] == ':' && used)
			break;
		if (used && l->names[i][0] == ':')
			used = 0;
		slabtrace_escape(esc, sizeof(esc), name, strlen(name),
				 NAMES_ESCAPE_ALSO);
		len = strlen(esc);
		if (used + len + 2 < NAMES_MAX - NAMES_MORE)
			scnprintf(l->names[i] + used, NAMES_MAX - used, "%s%s",
				  used ? "," : "", esc);
		else
			l->more[i]++;
		break;
	}
	return true;
}

/*
 * Fill @l from /sys/kernel/slab, then name the pinned caches it did not
 * list: destroyed since the trace saw them.  Called with kmemtrace_mutex
 * held (the pins stay).
 */
static void list_names(struct listing *l)
{
	struct slabtrace_cache_ref ref;
	const char *name;
	unsigned int i;
	size_t used;

	lockdep_assert_held(&kmemtrace_mutex);
	if (!slabtrace_caches_init())
		slabtrace_caches_walk_names(list_name, l);
	for (i = 0; i < KMEMTRACE_CACHE_SLOTS; i++) {
		/*
		 * A probe sets the pin after the cache (its cmpxchg orders
		 * them): acquired, the pin shows the cache, also on arm64.
		 */
		ref.kobj = smp_load_acquire(&kmemtrace_slots[i].pin);
		if (!ref.kobj || l->names[i][0])
			continue;
		ref.cache = (struct kmem_cache *)READ_ONCE(kmemtrace_slots[i].cache);
		l->size[i] = kmem_cache_size(ref.cache);
		name = kobject_name(ref.kobj);
		slabtrace_escape(l->names[i], NAMES_MAX, name, strlen(name),
				 NAMES_ESCAPE_ALSO);
		used = strlen(l->names[i]);
		if (slabtrace_cache_destroyed(&ref))
			scnprintf(l->names[i] + used, NAMES_MAX - used,
				  "(destroyed)");
	}
}

/*
 * The slab size of each pinned cache not read yet: once per cache and
 * trace.  Called with kmemtrace_mutex held.
 */
static void read_slab_sizes(void)
{
	struct kobject *pin;
	unsigned int i;

	lockdep_assert_held(&kmemtrace_mutex);
	for (i = 0; i < KMEMTRACE_CACHE_SLOTS; i++) {
		pin = READ_ONCE(kmemtrace_slots[i].pin);
		if (pin && !kmemtrace_slots[i].slab_size)
			kmemtrace_slots[i].slab_size = slabtrace_cache_slab_size(pin);
	}
}

/*
 * @name, a slot's names as the listing writes them, inside a TSDL string
 * literal ("..."), so that the label babeltrace2 reads back is the
 * listing's: a quote or a backslash would end the literal or start an
 * escape; those, and the bytes that are not printable ASCII (the
 * listing's escapes leave none), go as octal escapes (\042, \134), which
 * TSDL takes as C does.
 */
static void tsdl_name(struct seq_file *m, const char *name)
{
	seq_escape_mem(m, name, strnlen(name, NAMES_MAX),
		       ESCAPE_NAP | ESCAPE_APPEND | ESCAPE_OCTAL, "\"\\");
}

/**
 * kmemtrace_caches_show - list the caches the trace saw
 * @m: where
 * @tsdl: as a TSDL enumeration, the metadata's "cache_t"; else as the
 *        "caches" file: "ID OBJECT_SIZE SLAB_SIZE NAME[,ALIAS...]" lines
 *        (SLAB_SIZE 0: unknown, the cache was destroyed before it was
 *        listed), each name escaped as the dumps escape them (a space is
 *        \x20: one word) and its commas too (\x2c: one name), as
 *        many as fit in NAMES_MAX and then ",+N", the number left
 *        out; the labels of the TSDL enumeration are the same text
 *
 * Return: 0 or -ENOMEM.
 */
int kmemtrace_caches_show(struct seq_file *m, bool tsdl)
{
	/* The slots in use, taken with the names: one trace's, not two. */
	DECLARE_BITMAP(used, KMEMTRACE_CACHE_SLOTS);
	struct listing l = { };
	unsigned int i;
	size_t len;
	int ret = 0;

	l.names = kvcalloc(KMEMTRACE_CACHE_SLOTS, NAMES_MAX, SLABTRACE_GFP_BIG);
	l.size = kvcalloc(KMEMTRACE_CACHE_SLOTS, sizeof(*l.size),
			  SLABTRACE_GFP_BIG);
	l.slab_size = kvcalloc(KMEMTRACE_CACHE_SLOTS, sizeof(*l.slab_size),
			       SLABTRACE_GFP_BIG);
	l.more = kvcalloc(KMEMTRACE_CACHE_SLOTS, sizeof(*l.more),
			  SLABTRACE_GFP_BIG);
	if (!l.names || !l.size || !l.slab_size || !l.more) {
		ret = -ENOMEM;
		goto out;
	}
	mutex_lock(&kmemtrace_mutex);
	list_names(&l);
	read_slab_sizes();
	for (i = 0; i < KMEMTRACE_CACHE_SLOTS; i++) {
		l.slab_size[i] = kmemtrace_slots[i].slab_size;
		__assign_bit(i, used, READ_ONCE(kmemtrace_slots[i].cache));
	}
	mutex_unlock(&kmemtrace_mutex);

	if (tsdl)
		seq_printf(m, "typealias enum : uint16_t {\n\t\"-\" = %d,\n\t\"(pages)\" = %d,\n\t\"?\" = %d,\n",
			   KMEMTRACE_CACHE_NONE, KMEMTRACE_CACHE_PAGES, KMEMTRACE_CACHE_UNKNOWN);
	else
		seq_printf(m, "%d 0 0 -\n%d 0 0 (pages)\n", KMEMTRACE_CACHE_NONE,
			   KMEMTRACE_CACHE_PAGES);
	for_each_set_bit(i, used, KMEMTRACE_CACHE_SLOTS) {
		if (!l.names[i][0])
			strscpy(l.names[i], "?", NAMES_MAX);
		if (l.more[i]) {
			len = strlen(l.names[i]);
			scnprintf(l.names[i] + len, NAMES_MAX - len, ",+%u",
				  l.more[i]);
		}
		if (tsdl) {
			seq_puts(m, "\t\"");
			tsdl_name(m, l.names[i]);
			seq_printf(m, "\" = %u,\n", KMEMTRACE_CACHE_FIRST + i);
		} else {
			seq_printf(m, "%u %u %u %s\n", KMEMTRACE_CACHE_FIRST + i,
				   l.size[i], l.slab_size[i], l.names[i]);
		}
	}
	if (tsdl)
		seq_puts(m, "} := cache_t;\n\n");
out:
	kvfree(l.names);
	kvfree(l.size);
	kvfree(l.slab_size);
	kvfree(l.more);
	return ret;
}
