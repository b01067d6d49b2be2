// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: the leak verdict of one stack, from how long its freed
 * objects lived (lifetime.c) and how old its outstanding ones are.  Pure
 * functions of the numbers a print gathers (struct leak_verdict_in):
 * no state, no lock, the same answer for the same numbers.
 *
 * The question is which outstanding objects outlived, by far, what this
 * stack's objects normally live, and whether such objects keep coming.
 *
 * 1. The horizon tau: eight times the 99th percentile of the freed
 *    lifetimes, at least 1 s; while fewer than 16 were freed, eight times
 *    the longest of them (a few frees are no percentile, but say how
 *    long an object may live: kdamond's regions on 7.3, split off and
 *    merged back tens of seconds later), 1 s while none was.
 * 2. R, the outstanding objects older than tau, and D, the freed ones that
 *    had lived longer than tau before they went.  An object of a stack
 *    that frees what it allocates, late or not, is freed after it passed
 *    tau about as often as one is still outstanding past it: D is not
 *    small beside R (a long-tailed lifetime, an LRU, a deferred free).
 *    An object forgotten on a rare path is never freed: D stays 0.
 * 3. Whether the R keep coming: their allocation times, in 16 equal bins
 *    of the trace, are spread over the part of the trace older than tau,
 *    reach its youngest quarter, and do not die out (the younger half
 *    holds at least a quarter of what the older half holds).  Objects
 *    made at one moment and kept (a warm-up) fill a bin or two; a set
 *    that grew and levelled off stops short of the present.  A print's
 *    older-than hides the younger objects: the bins younger than it are
 *    left out as those younger than tau are.
 *
 * A leak is all three: R >= 8 objects past tau, D <= R / 8, and steady
 * arrivals over at least 5 s of trace past tau, shown by at least 8
 * objects in the bins all past tau (an object past tau in the bin that
 * straddles it shows no arrival time: a stack seen only lately, as the
 * maple nodes of a few short-lived processes whose exit frees them in
 * bulk, where no tracepoint sees it, is "unknown").  "error path" when the
 * stack frees most of what it allocates (it has 16 frees or more, and
 * more frees than R), "growing" when it frees (almost) nothing; but a
 * stack that frees nothing is not called a leak in a cache that frees
 * objects that old seldom (fewer than one for every OLD_PER_FREED of the
 * stack's R, other stacks' frees past tau counted): vmalloc's lazy purge
 * frees vmap_area's objects in batches, thousands at once, and a minute
 * of forks may see none of them.  Not a leak: "live"
 * when nothing outlived tau or D says old objects do get freed; "kept"
 * for a burst or a set that levelled off.  "unknown" when there are too
 * few objects or too little trace to tell, with what would decide.
 * Documentation/leak-views.rst has the measurements the thresholds come
 * from.
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string.h>

#include "lifetime.h"

/* Frees that make a lifetime known. */
#define FREED_MIN	16
/* The horizon: this many times the freed lifetimes' p99, at least ... */
#define TAU_FACTOR	8
#define TAU_MIN_MS	1024U		/* a power of two, as tau is */
/* Objects past the horizon needed to call a leak. */
#define OLD_MIN		8
/* At most one freed past the horizon for this many outstanding past it. */
#define OLD_PER_FREED	8
/* Trace past the horizon needed: in ms and in bins. */
#define OLD_SPAN_MIN_MS	5000U
#define OLD_BINS_MIN	4
/* Arrivals die out when the younger half has less than 1 / this. */
#define DYING		4

const char *const leak_verdict_words[SLABTRACE_VERDICTS] =
	SLABTRACE_VERDICT_WORDS;

/* The ms the lifetimes of bucket @b are below. */
static u32 bucket_top(unsigned int b)
{
	return 1U << min(b, LEAK_LIFE_BUCKETS - 1);
}

/* The ms the lifetimes of bucket @b are at least. */
static u32 bucket_start(unsigned int b)
{
	return b ? bucket_top(b - 1) : 0;
}

/* The bucket of the @pct percentile of @h (of @total > 0 entries). */
static unsigned int percentile(const u64 *h, u64 total, unsigned int pct)
{
	u64 sum = 0;
	unsigned int b;

	for (b = 0; b < LEAK_LIFE_BUCKETS - 1; b++) {
		sum += h[b];
		if (sum * 100 >= total * pct)
			break;
	}
	return b;
}

/* "870 ms", "12.5 s", "340 s": room for any u64. */
#define MS_TEXT	24
static const char *ms_text(char *buf, size_t size, u64 ms)
{
	u32 rem;
	u64 s = div_u64_rem(ms, 1000, &rem);	/* no 64-bit % on 32 bits */

	if (ms < 1000)
		snprintf(buf, size, "%llu ms", ms);
	else if (ms < 100000)
		snprintf(buf, size, "%llu.%u s", s, rem / 100);
	else
		snprintf(buf, size, "%llu s", s);
	return buf;
}

/* What the verdict works with, from the numbers. */
struct judging {
	const struct leak_verdict_in *in;
	u64 freed;		/* F: frees counted */
	unsigned int p50, p99;	/* their buckets */
	unsigned int top;	/* the bucket tau is made from */
	u32 tau;		/* ms: the horizon; U32_MAX: past the buckets */
	u64 old;		/* R: outstanding past tau */
	u64 freed_old;		/* D: freed past tau */
	u64 cache_old;		/* freed past tau by the cache's other stacks */
	u32 w;			/* ms a bin */
	unsigned int first;	/* the first bin all past tau */
	unsigned int bins;	/* m: bins past tau */
	unsigned int filled;	/* of those, with objects */
	unsigned int oldest;	/* the oldest bin with objects */
	unsigned int youngest;	/* the youngest bin past tau with objects */
	u64 in_bins;		/* objects in the bins past tau */
	u64 older_half, younger_half;
};

static void measure(struct judging *j)
{
	const struct leak_verdict_in *in = j->in;
	unsigned int b, t, top;

	for (b = 0; b < LEAK_LIFE_BUCKETS; b++)
		j->freed += in->freed[b];
	j->tau = TAU_MIN_MS;
	if (j->freed) {
		j->p50 = percentile(in->freed, j->freed, 50);
		j->p99 = percentile(in->freed, j->freed, 99);
		/* Too few for a percentile: the longest lifetime seen. */
		top = j->freed >= FREED_MIN ? j->p99 :
		      percentile(in->freed, j->freed, 100);
		j->top = top;
		/* Up to 2^26 ms, where the last bucket starts. */
		if (top < LEAK_LIFE_BUCKETS - 4)
			j->tau = max(j->tau, bucket_top(top) * TAU_FACTOR);
		else
			j->tau = U32_MAX; /* past every bucket: nothing is older */
	}
	/* tau = 2^k: its bucket, k + 1, starts at it. */
	t = j->tau == U32_MAX ? LEAK_LIFE_BUCKETS : ilog2(j->tau) + 1;
	for (b = t; b < LEAK_LIFE_BUCKETS; b++) {
		j->old += in->ages[b];
		j->freed_old += in->freed[b];
		j->cache_old += in->cache_freed[b];
	}
	j->cache_old -= min(j->cache_old, j->freed_old);

	j->w = leak_verdict_width(in->window);
	/*
	 * The bins all past tau, and past what the print hides: its
	 * older-than, or a stopped trace, leaves the younger bins empty,
	 * which is no sign that arrivals stopped.
	 */
	j->first = j->tau == U32_MAX ? LEAK_VERDICT_BINS :
		   min_t(u32, DIV_ROUND_UP_ULL(max(j->tau, in->hidden), j->w),
			 LEAK_VERDICT_BINS);
	j->bins = LEAK_VERDICT_BINS - j->first;
	j->youngest = LEAK_VERDICT_BINS;
	for (b = j->first; b < LEAK_VERDICT_BINS; b++) {
		if (!in->born[b])
			continue;
		j->filled++;
		j->in_bins += in->born[b];
		j->oldest = b;
		if (j->youngest == LEAK_VERDICT_BINS)
			j->youngest = b;
		/* Bins past tau, younger half first (an odd middle: neither). */
		if (2 * (b - j->first) + 1 < j->bins)
			j->younger_half += in->born[b];
		else if (2 * (b - j->first) + 1 > j->bins)
			j->older_half += in->born[b];
	}
}

/* Appends to @v's text, as far as it has room. */
static __printf(2, 3) void add(struct leak_verdict *v, const char *fmt, ...)
{
	size_t len = strlen(v->text);
	va_list args;

	va_start(args, fmt);
	vscnprintf(v->text + len, sizeof(v->text) - len, fmt, args);
	va_end(args);
}

/* The verdict is @word: its text starts with it. */
static void begin(struct leak_verdict *v, enum slabtrace_verdict word)
{
	v->word = word;
	strscpy(v->text, leak_verdict_words[word], sizeof(v->text));
}

/*
 * "<2 ms" for bucket @b; ">=67108 s" for the last, which holds every
 * lifetime from its start on.
 */
static const char *bucket_text(char *buf, size_t size, unsigned int b)
{
	char ms[MS_TEXT];

	if (b == LEAK_LIFE_BUCKETS - 1)
		snprintf(buf, size, ">=%s",
			 ms_text(ms, sizeof(ms), bucket_start(b)));
	else
		snprintf(buf, size, "<%s", ms_text(ms, sizeof(ms), bucket_top(b)));
	return buf;
}

/* Its text ends with "; 750 freed lived <1 ms median, <2 ms p99". */
static void end(struct leak_verdict *v, const struct judging *j)
{
	char a[MS_TEXT + 2], b[MS_TEXT + 2];

	if (!j->freed) {
		add(v, "; none freed");
		return;
	}
	add(v, "; %llu freed lived %s median, %s p99", j->freed,
	    bucket_text(a, sizeof(a), j->p50),
	    bucket_text(b, sizeof(b), j->p99));
}

/*
 * Not enough to tell: say what there is (@old objects past tau, or all
 * @n younger) and what would decide.
 */
static void unknown(struct leak_verdict *v, const struct judging *j,
		    const char *want)
{
	char a[MS_TEXT];

	begin(v, SLABTRACE_VERDICT_UNKNOWN);
	if (j->old)
		add(v, ": %llu of %u older than %s", j->old, j->in->n,
		    ms_text(a, sizeof(a), j->tau));
	else if (j->tau == U32_MAX)
		/* No horizon: freed ones lived past what the buckets tell. */
		add(v, ": %u object%s, and freed ones lived %s or more",
		    j->in->n, j->in->n == 1 ? "" : "s",
		    ms_text(a, sizeof(a), bucket_start(j->top)));
	else
		add(v, ": %u object%s, all younger than %s", j->in->n,
		    j->in->n == 1 ? "" : "s", ms_text(a, sizeof(a), j->tau));
	add(v, ": %s", want);
	end(v, j);
}

/* Nothing outlived tau, and frees say how long objects live: live. */
static void young(struct leak_verdict *v, const struct judging *j)
{
	char a[MS_TEXT];

	begin(v, SLABTRACE_VERDICT_LIVE);
	if (j->in->age_max >= bucket_top(j->p99) && j->tau == U32_MAX) {
		add(v, ": %u outstanding, and freed ones lived %s or more (p99)",
		    j->in->n, ms_text(a, sizeof(a), bucket_start(j->p99)));
		end(v, j);
		return;
	}
	add(v, ": all %u younger than ", j->in->n);
	if (j->in->age_max < bucket_top(j->p99))
		add(v, "the freed ones' p99");
	else
		add(v, "%s, %u times the freed ones' p99",
		    ms_text(a, sizeof(a), j->tau), j->tau / bucket_top(j->p99));
	end(v, j);
}

/* Objects past tau, but freed ones lived as long: live. */
static void long_lived(struct leak_verdict *v, const struct judging *j)
{
	char a[MS_TEXT];

	begin(v, SLABTRACE_VERDICT_LIVE);
	add(v, ": %llu older than %s, ", j->old, ms_text(a, sizeof(a), j->tau));
	add(v, "and %llu freed ones lived that long", j->freed_old);
	end(v, j);
}

static void leak(struct leak_verdict *v, const struct judging *j,
		 bool error_path)
{
	char a[MS_TEXT], b[MS_TEXT];

	begin(v, SLABTRACE_VERDICT_LEAK);
	add(v, " (%s): %llu of %llu not freed, ",
	    error_path ? "error path" : "growing", j->old,
	    j->freed + j->in->n);
	add(v, "allocated steadily over %s; ",
	    ms_text(a, sizeof(a), (u64)(j->oldest - j->youngest + 1) * j->w));
	add(v, "%s-%s old", ms_text(a, sizeof(a), j->tau),
	    ms_text(b, sizeof(b), j->in->age_max));
	end(v, j);
}

/* Made at once (@burst), or over a while that ended: kept. */
static void kept(struct leak_verdict *v, const struct judging *j,
		 bool burst)
{
	char a[MS_TEXT], b[MS_TEXT];
	u64 ago = (u64)j->youngest * j->w;

	begin(v, SLABTRACE_VERDICT_KEPT);
	if (burst)
		add(v, ": %llu allocated within %s, %s ago, none since", j->old,
		    ms_text(a, sizeof(a), 2 * j->w), ms_text(b, sizeof(b), ago));
	else
		add(v, ": %llu allocated over %s until %s ago: levelled off",
		    j->old,
		    ms_text(a, sizeof(a), (u64)(j->oldest - j->youngest + 1) * j->w),
		    ms_text(b, sizeof(b), ago));
	end(v, j);
}

/**
 * leak_judge - the verdict of one stack, with its evidence
 * @in: its numbers
 * @v: set to the verdict, its text one line (no newline)
 *
 * Context: Any context; a pure function of @in.
 */
void leak_judge(const struct leak_verdict_in *in,
		struct leak_verdict *v)
{
	struct judging j = { .in = in };
	bool spread, recent, dying, error_path;
	char want[112];

	/* Objects of any stack: their frees are not told apart (probes.c). */
	if (in->no_stack) {
		begin(v, SLABTRACE_VERDICT_UNKNOWN);
		add(v, ": %u object%s, backtrace not saved", in->n,
		    in->n == 1 ? "" : "s");
		return;
	}
	measure(&j);
	/* Frees not counted: fewer freed, none old, looks like a leak. */
	if (in->freed_lost) {
		begin(v, SLABTRACE_VERDICT_UNKNOWN);
		add(v, ": %u object%s, %sfrees not counted: ", in->n,
		    in->n == 1 ? "" : "s", j.freed ? "some " : "");
		add(v, "the lifetime table was full (slab/stats)");
		return;
	}
	if (!j.old) {
		if (j.freed >= FREED_MIN)
			young(v, &j);
		else
			unknown(v, &j, "too few frees to tell; trace longer");
		return;
	}
	if (j.freed_old * OLD_PER_FREED > j.old) {
		long_lived(v, &j);
		return;
	}
	if (j.bins < OLD_BINS_MIN || (u64)j.bins * j.w < OLD_SPAN_MIN_MS) {
		unknown(v, &j, "too short a trace past that to tell; trace longer");
		return;
	}
	if (j.old < OLD_MIN) {
		unknown(v, &j, "too few to tell; trace longer, or mark and run again");
		return;
	}
	/* Past tau, but fewer than OLD_MIN in the bins all past it. */
	if (j.in_bins < OLD_MIN) {
		unknown(v, &j, "arriving only lately; trace longer");
		return;
	}
	/* Spread over the bins past tau, as far as their number allows. */
	spread = 2 * j.filled >= min_t(u64, j.bins, j.in_bins);
	recent = j.youngest < j.first + DIV_ROUND_UP(j.bins, 4);
	dying = j.younger_half * DYING < j.older_half;
	error_path = j.freed >= FREED_MIN && j.freed > j.old;
	if (spread && recent && !dying && !error_path &&
	    j.cache_old * OLD_PER_FREED < j.old) {
		/* A cache that seldom frees objects that old: batches? */
		snprintf(want, sizeof(want),
			 "other stacks freed %llu that old: a batch may free them later; trace longer",
			 j.cache_old);
		unknown(v, &j, want);
		return;
	}
	if (spread && recent && !dying)
		leak(v, &j, error_path);
	/* A burst, with two bins or more of nothing since. */
	else if (j.oldest - j.youngest <= 1 && j.youngest >= j.first + 2)
		kept(v, &j, true);
	else if (spread && !recent)
		kept(v, &j, false);
	else if (spread)
		unknown(v, &j, "arriving ever more slowly; trace longer");
	else if (recent)
		unknown(v, &j, "arriving only lately; trace longer");
	else
		unknown(v, &j, "allocated at scattered times; trace longer, or mark and run again");
}
