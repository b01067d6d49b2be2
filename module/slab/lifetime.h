/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's leak verdicts: how long the freed objects of each stack
 * lived (lifetime.c), and what that and the ages of the outstanding ones
 * say (verdict.c).  A floor of its own: it knows stack handles, system
 * calls, owners and milliseconds, nothing of records, caches or prints.
 */
#ifndef _SLABTRACE_LIFETIME_H
#define _SLABTRACE_LIFETIME_H

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/stackdepot.h>
#include <linux/types.h>

#include <uapi/slabtrace/dump.h>

#include "part.h"
#include "record.h"

/*
 * Lifetimes and ages in powers of two of milliseconds: bucket 0 holds
 * 0 ms (under one: the records' clock counts whole ms), bucket i holds
 * [2^(i-1), 2^i) ms, the last everything from 2^26 ms (18.6 hours) on.
 */
#define LEAK_LIFE_BUCKETS	28

static inline unsigned int leak_life_bucket(u32 ms)
{
	return ms ? min_t(unsigned int, fls(ms), LEAK_LIFE_BUCKETS - 1) : 0;
}

/*
 * One more free in a bucket's count.  A hot stack can free 4 G objects of
 * one lifetime in a long trace (a million a second for 72 minutes): the
 * count stops at 2^31 (read as u32) rather than wrap to a few.
 */
static inline void leak_life_count(atomic_t *count)
{
	atomic_inc_unless_negative(count);
}

/* lifetime.c: the freed objects' lifetimes, per (stack, syscall, owner). */
#define LEAK_LIFE_OWNERS	2048	/* owners are below (record.h) */
void leak_lifetime_add(depot_stack_handle_t stack, s16 syscall,
		       u16 owner, u32 ms);
void leak_lifetime_get(depot_stack_handle_t stack, s16 syscall,
		       u16 owner, u64 freed[LEAK_LIFE_BUCKETS]);
void leak_lifetime_forget(const unsigned long *owners);
bool leak_lifetime_key_lost(depot_stack_handle_t stack, s16 syscall,
			    u16 owner);
void leak_lifetime_owner_get(u16 owner,
			     u64 freed[LEAK_LIFE_BUCKETS]);
void leak_lifetime_owners_get(u64 *const freed[LEAK_LIFE_OWNERS]);
/* The table (slab.c loads it); its stats line. */
extern const struct leak_part leak_lifetime_part;
#if IS_ENABLED(CONFIG_KUNIT)
/* Static in the module (VISIBLE_IF_KUNIT, <kunit/visibility.h>). */
void leak_lifetime_stats(unsigned int *used, unsigned int *slots,
			 unsigned long *lost);
#endif
/* The tests' alone: not built into the module (LEAK_TESTS, record.h). */
#if LEAK_TESTS
unsigned long leak_lifetime_lost(u16 owner);
#endif

/* verdict.c: what the numbers of one stack say. */
#define LEAK_VERDICT_BINS	16

/* What a stack's outstanding objects and its frees show, at a print. */
struct leak_verdict_in {
	u32 n;			/* outstanding objects */
	u32 window;		/* ms the records' clock ran: every age is below */
	/*
	 * ms: objects younger are not in the print (its older-than) or were
	 * not recorded (the time since the trace stopped), so no bin younger
	 * says whether arrivals went on.
	 */
	u32 hidden;
	u32 age_max;		/* ms: the oldest's */
	/* The outstanding objects by age, as the lifetimes are. */
	u32 ages[LEAK_LIFE_BUCKETS];
	/*
	 * And by age in LEAK_VERDICT_BINS equal bins of the window:
	 * bin i holds ages [i * w, (i + 1) * w), leak_verdict_bin().
	 */
	u32 born[LEAK_VERDICT_BINS];
	u64 freed[LEAK_LIFE_BUCKETS];	/* the stack's frees, by lifetime */
	/*
	 * The frees of its cache by lifetime, this stack's included: one
	 * array of LEAK_LIFE_BUCKETS for all the stacks of a print.
	 */
	const u64 *cache_freed;
	bool freed_lost;	/* some of its frees may not be counted */
	bool no_stack;		/* its records' backtraces were not saved */
};

extern const char *const leak_verdict_words[SLABTRACE_VERDICTS];

/*
 * A verdict and its evidence, one line: "leak (error path): 94 of ...".
 * The longest, an unknown's with every number at its largest, is 213
 * bytes.
 */
#define LEAK_EVIDENCE	256
struct leak_verdict {
	u8 word;		/* enum slabtrace_verdict */
	char text[LEAK_EVIDENCE];
};

/*
 * The width of an age bin of @window ms, at least 1 ms.  Rounded up in 64
 * bits: windows reach U32_MAX, where window + 15 wraps in u32.
 */
static inline u32 leak_verdict_width(u32 window)
{
	return max_t(u32, DIV_ROUND_UP_ULL(window, LEAK_VERDICT_BINS), 1);
}

static inline unsigned int leak_verdict_bin(u32 window, u32 age)
{
	return min_t(u32, age / leak_verdict_width(window),
		     LEAK_VERDICT_BINS - 1);
}

void leak_judge(const struct leak_verdict_in *in,
		struct leak_verdict *v);

#endif /* _SLABTRACE_LIFETIME_H */
