// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: how long the freed objects of each allocation stack lived,
 * counted at every free, for the leak verdicts (verdict.c).
 *
 * A record knows when its object was allocated; when the object is freed
 * (or its record found stale at the address's reuse), the probe adds its
 * lifetime to a log2 histogram of its (stack, system call, owner): the
 * key the stacks view groups by, and the traced cache.  The histograms
 * live in one table, allocated at load and never resized: open
 * addressing, a slot claimed by a cmpxchg of its key, at most
 * LIFE_PROBES slots looked at, counts added with atomic increments.  No
 * lock, no allocation, O(1) at every free; a free whose key finds no
 * slot is counted as lost, with a bit of its key's hash in its owner's
 * lost_keys, and its stack's verdict says it cannot tell (so does that
 * of a stack sharing the bit: one in LOST_KEY_BITS of the owner's).
 *
 * The table is kept small by what it holds: 28 counters a stack, not a
 * time series (the growth of what is outstanding is read off the
 * records' own stamps at print time, verdict.c).  When a traced cache
 * goes (reset, its cache destroyed, unload; not at stop, after which its
 * frees still count), the slots of its owner are emptied: a slot emptied
 * inside a run of claimed ones may let a key be claimed twice, so a
 * reader sums every slot of its key within LIFE_PROBES of its hash.
 *
 * Notes on locking
 * ----------------
 * - None of its own.  Probes claim and count with atomics, in any
 *   context but NMI (probes.c counts nothing there).
 * - leak_lifetime_forget() runs once no probe can count for those
 *   owners any more (traced.c releases an owner after
 *   tracepoint_synchronize_unregister(), with leak_mutex held, so
 *   one forget runs at a time); it publishes an emptied slot's key with
 *   release semantics, after its counts are zeroed, and the readers
 *   read a key with acquire: the counts they read after it are not
 *   those of the key before.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <kunit/visibility.h>

#include "lifetime.h"
#include "record.h"

static unsigned int lifetime_slots = 4096;
module_param(lifetime_slots, uint, 0400);
MODULE_PARM_DESC(lifetime_slots, "stacks whose freed objects' lifetimes are kept for the leak verdicts (16..1048576, rounded up to a power of two; default 4096, 128 bytes each)");

/* Slots looked at from a key's hash, claiming or reading. */
#define LIFE_PROBES	16

/* Set in every claimed key: a slot of key 0 is empty. */
#define KEY_USED	BIT_ULL(63)

struct life_slot {
	u64 key;	/* 0: empty; else KEY_USED | owner | syscall | stack */
	atomic_t freed[LEAK_LIFE_BUCKETS];
} ____cacheline_aligned;

static struct life_slot *slots;
static unsigned int slots_bits;
/* Frees whose key found no slot, by owner. */
static atomic_long_t lost[LEAK_LIFE_OWNERS];
/*
 * And which keys they were, by a bit of the key's hash: a stack judged
 * without some of its frees would look like a leak (fewer freed, none
 * old).  256 bits an owner, 64 KiB in all.
 */
#define LOST_KEY_SHIFT	8
#define LOST_KEY_BITS	BIT(LOST_KEY_SHIFT)
static unsigned long lost_keys[LEAK_LIFE_OWNERS][BITS_TO_LONGS(LOST_KEY_BITS)];

static inline u64 life_key(depot_stack_handle_t stack, s16 syscall, u16 owner)
{
	return KEY_USED | (u64)owner << 48 | (u64)(u16)syscall << 32 | stack;
}

static inline u16 key_owner(u64 key)
{
	return (key & ~KEY_USED) >> 48;
}

/**
 * leak_lifetime_add - an object lived @ms, from allocation to free
 * @stack: the depot handle of its allocation's backtrace
 * @syscall: the system call it was allocated in, as records say it
 * @owner: its record's owner (the traced cache)
 * @ms: how long it lived
 *
 * Context: Any context but NMI; no lock, no allocation.
 */
void leak_lifetime_add(depot_stack_handle_t stack, s16 syscall,
		       u16 owner, u32 ms)
{
	u64 key = life_key(stack, syscall, owner), cur;
	unsigned int mask = BIT(slots_bits) - 1;
	unsigned int i = hash_64(key, slots_bits), n;

	for (n = 0; n < LIFE_PROBES; n++, i = (i + 1) & mask) {
		cur = READ_ONCE(slots[i].key);
		if (cur == key)
			goto found;
		if (!cur) {
			cur = cmpxchg(&slots[i].key, 0, key);
			if (!cur || cur == key)
				goto found;
		}
	}
	atomic_long_inc(&lost[owner]);
	set_bit(hash_64(key, LOST_KEY_SHIFT), lost_keys[owner]);
	return;
found:
	leak_life_count(&slots[i].freed[leak_life_bucket(ms)]);
}

/**
 * leak_lifetime_get - the lifetimes counted for a key
 * @stack: as leak_lifetime_add() took it
 * @syscall: likewise
 * @owner: likewise
 * @freed: set to its counts, by bucket (leak_life_bucket())
 *
 * Context: Any context; the counts may move while they are read.
 */
void leak_lifetime_get(depot_stack_handle_t stack, s16 syscall,
		       u16 owner, u64 freed[LEAK_LIFE_BUCKETS])
{
	u64 key = life_key(stack, syscall, owner);
	unsigned int mask = BIT(slots_bits) - 1;
	unsigned int i = hash_64(key, slots_bits), n, b;

	memset(freed, 0, LEAK_LIFE_BUCKETS * sizeof(*freed));
	for (n = 0; n < LIFE_PROBES; n++, i = (i + 1) & mask) {
		/* Acquire: a slot claimed again, its counts zeroed first. */
		if (smp_load_acquire(&slots[i].key) != key)
			continue;
		for (b = 0; b < LEAK_LIFE_BUCKETS; b++)
			freed[b] += (u32)atomic_read(&slots[i].freed[b]);
	}
}

/**
 * leak_lifetime_forget - empty the slots of some owners
 * @owners: a bitmap of owners, none of whose records a probe can free
 *
 * Their lost frees are forgotten too.
 *
 * Context: Process context, one call at a time; walks the table.
 */
void leak_lifetime_forget(const unsigned long *owners)
{
	unsigned int i, b;
	u64 key;

	for (i = 0; i < BIT(slots_bits); i++) {
		if (!(i % 4096))
			cond_resched();
		key = READ_ONCE(slots[i].key);
		if (!key || !test_bit(key_owner(key), owners))
			continue;
		for (b = 0; b < LEAK_LIFE_BUCKETS; b++)
			atomic_set(&slots[i].freed[b], 0);
		/* Whoever claims it next counts from zero. */
		smp_store_release(&slots[i].key, 0);
	}
	for (i = 0; i < LEAK_LIFE_OWNERS; i++) {
		if (!test_bit(i, owners))
			continue;
		atomic_long_set(&lost[i], 0);
		bitmap_zero(lost_keys[i], LOST_KEY_BITS);
	}
}

/* Add the counts of @slot to @freed. */
static void slot_add(struct life_slot *slot, u64 freed[LEAK_LIFE_BUCKETS])
{
	unsigned int b;

	for (b = 0; b < LEAK_LIFE_BUCKETS; b++)
		freed[b] += (u32)atomic_read(&slot->freed[b]);
}

/*
 * The frees counted for @owner, all its stacks together, by lifetime
 * into @freed.
 * Context: process context; walks the table.
 */
void leak_lifetime_owner_get(u16 owner,
			     u64 freed[LEAK_LIFE_BUCKETS])
{
	unsigned int i;
	u64 key;

	memset(freed, 0, LEAK_LIFE_BUCKETS * sizeof(*freed));
	for (i = 0; i < BIT(slots_bits); i++) {
		if (!(i % 4096))
			cond_resched();
		/* Acquire: as leak_lifetime_get() reads a key. */
		key = smp_load_acquire(&slots[i].key);
		if (key && key_owner(key) == owner)
			slot_add(&slots[i], freed);
	}
}

/**
 * leak_lifetime_owners_get - leak_lifetime_owner_get() of many owners
 * @freed: by owner, NULL or the histogram its frees are added to
 *
 * In one walk of the table, however many owners: a print of "all"
 * judges each of its caches with its owner's (up to LEAK_MAX_CACHES of
 * them, and the table may be 128 MiB).
 *
 * Context: process context; walks the table.
 */
void leak_lifetime_owners_get(u64 *const freed[LEAK_LIFE_OWNERS])
{
	unsigned int i;
	u64 key;

	for (i = 0; i < BIT(slots_bits); i++) {
		if (!(i % 4096))
			cond_resched();
		/* Acquire: as leak_lifetime_get() reads a key. */
		key = smp_load_acquire(&slots[i].key);
		if (key && freed[key_owner(key)])
			slot_add(&slots[i], freed[key_owner(key)]);
	}
}

#if LEAK_TESTS
/* How many frees of @owner's found no slot. */
unsigned long leak_lifetime_lost(u16 owner)
{
	return atomic_long_read(&lost[owner]);
}
#endif

/*
 * Whether a free of a key found no slot: true also, now and then, of
 * another key of its owner's sharing its bit.
 */
bool leak_lifetime_key_lost(depot_stack_handle_t stack, s16 syscall,
			    u16 owner)
{
	return test_bit(hash_64(life_key(stack, syscall, owner),
				LOST_KEY_SHIFT), lost_keys[owner]);
}

/* For the stats file: slots in use, slots, frees not counted. */
VISIBLE_IF_KUNIT void leak_lifetime_stats(unsigned int *used,
					  unsigned int *nr,
					  unsigned long *nlost)
{
	unsigned int i;

	*used = 0;
	for (i = 0; i < BIT(slots_bits); i++) {
		if (!(i % 4096))
			cond_resched();
		*used += !!READ_ONCE(slots[i].key);
	}
	*nr = BIT(slots_bits);
	*nlost = 0;
	for (i = 0; i < LEAK_LIFE_OWNERS; i++)
		*nlost += atomic_long_read(&lost[i]);
}

/*
 * The table: lifetime_slots slots, rounded up to a power of two; a step of
 * loading (slab.c).  Return: 0, -EINVAL or -ENOMEM.
 */
static int lifetime_init(void)
{
	BUILD_BUG_ON(LEAK_MAX_OWNERS > LEAK_LIFE_OWNERS);
	if (lifetime_slots < 16 || lifetime_slots > 1048576) {
		pr_warn("lifetime_slots=%u: not in 16..1048576\n",
			lifetime_slots);
		return -EINVAL;
	}
	slots_bits = order_base_2(max(lifetime_slots, LIFE_PROBES));
	/* Up to 128 MiB: fails rather than wake the OOM killer. */
	slots = kvcalloc(BIT(slots_bits), sizeof(*slots),
			 GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
	if (!slots) {
		pr_warn("lifetime_slots=%u: no memory for %lu bytes\n",
			lifetime_slots, BIT(slots_bits) * sizeof(*slots));
		return -ENOMEM;
	}
	return 0;
}

static void lifetime_exit(void)
{
	kvfree(slots);
	slots = NULL;
}

/* "lifetimes stacks 12 of 4096 lost 0" */
static void lifetime_stats(struct seq_file *m)
{
	unsigned int used, nr;
	unsigned long nlost;

	leak_lifetime_stats(&used, &nr, &nlost);
	seq_printf(m, "lifetimes stacks %u of %u lost %lu\n", used, nr, nlost);
}

const struct leak_part leak_lifetime_part = {
	.step = { "lifetimes", lifetime_init, lifetime_exit },
	.stats = lifetime_stats,
};
