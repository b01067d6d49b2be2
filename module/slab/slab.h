/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab_trace's internals, beside its code in module/slab/ and seen by its
 * KUnit suites, no other system: the records of the outstanding objects
 * of the traced caches, their table and pool, who made them, their
 * backtraces, the traced caches and the probes, print's snapshots and
 * what shows them.  Each block names the file that implements it; the
 * locking rules are at the top of those files, the order of all the
 * locks in main.c's header.  Its public face is slab_trace_system
 * (<slabtrace/core.h>).
 */
#ifndef _SLABTRACE_SLAB_H
#define _SLABTRACE_SLAB_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/kallsyms.h>
#include <linux/kref.h>
#include <linux/cpumask.h>
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/stackdepot.h>
#include <linux/timekeeping.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <slabtrace/core.h>
/* The sampler's divisions, as a 32-bit kernel can make them. */
#define slabtrace_div_u64(dividend, divisor)	div_u64(dividend, divisor)
#define slabtrace_div64_u64(dividend, divisor)	div64_u64(dividend, divisor)
#include <uapi/slabtrace/sample.h>

#include "hold.h"
#include "lifetime.h"
#include "pool.h"
#include "record.h"
#include "sets.h"
#include "stacks.h"
#include "table.h"
#include "worker.h"

struct kmem_cache;
struct kobject;
struct module;

/* slab.c: loading, the commands, slab_trace's mutex, the limit. */
extern struct mutex slab_trace_mutex;
extern struct kmem_cache *slab_trace_record_cache;
/* The record limit, all caches together; changed by "limit". */
extern unsigned long slab_trace_record_limit;

/* snapshot.c: copies of records in progress (see its Notes on locking). */
extern struct rw_semaphore slab_trace_print_sem;

/* context.c: who made an allocation (record.h's struct slab_trace_who). */
void slab_trace_ctx_fill(struct slab_trace_record *rec);
void slab_trace_ctx_show(struct seq_file *m, const struct slab_trace_who *w);
void slab_trace_syscall_show(struct seq_file *m, s16 syscall);

/*
 * traced.c: the caches being traced, or holding records, and what the
 * probes could not do for them.
 *
 * Why an allocation of a traced cache has no record, or an incomplete one.
 */
enum slab_trace_drop {
	SLAB_TRACE_DROP_POOL,		/* the pool was empty */
	SLAB_TRACE_DROP_LIMIT,		/* the record limit was reached */
	SLAB_TRACE_DROP_NMI,		/* allocated in NMI context */
	SLAB_TRACE_DROP_STACK,		/* kept, no backtrace: depot full */
	SLAB_TRACE_DROP_WALK,		/* kept, no backtrace: empty walk */
	SLAB_TRACE_DROP_MAX,
};

/* Drops that mean no record at all; the others only lose a detail. */
#define SLAB_TRACE_DROP_LOST_MAX	(SLAB_TRACE_DROP_NMI + 1)

extern const char *const slab_trace_drop_names[SLAB_TRACE_DROP_MAX];

/*
 * The cache pointer standing for a kind that has no cache: the address of
 * a byte of slab_trace_pseudo[], never a struct kmem_cache.
 */
extern const char slab_trace_pseudo[SLAB_TRACE_KINDS];

static inline struct kmem_cache *slab_trace_pseudo_cache(enum slab_trace_kind kind)
{
	return (struct kmem_cache *)&slab_trace_pseudo[kind];
}

/*
 * The bytes an object of @kind holds, @object_size for a cache's:
 * kmalloc-large takes whole pages, a percpu object its size on every
 * possible CPU.
 */
static inline unsigned long slab_trace_obj_bytes(u8 kind, unsigned int object_size,
						 u32 bytes_req)
{
	switch (kind) {
	case SLAB_TRACE_KIND_LARGE:
		return PAGE_SIZE << get_order(bytes_req);
	case SLAB_TRACE_KIND_PERCPU:
		return (unsigned long)bytes_req * num_possible_cpus();
	default:
		return object_size;
	}
}

static inline unsigned long slab_trace_bytes(u8 kind, unsigned int object_size,
					     const struct slab_trace_record *rec)
{
	return slab_trace_obj_bytes(kind, object_size, rec->bytes_req);
}

/* The range of "sample-bytes B": a record per B bytes allocated. */
#define SLAB_TRACE_SAMPLE_BYTES_MIN	64U
#define SLAB_TRACE_SAMPLE_BYTES_MAX	1073741824U

/*
 * "sample-bytes B": the chance, in 32-bit fixed point (1..2^32), that an
 * object of @bytes is recorded, p = 1 - exp(-bytes / B), as the slabtrace
 * command computes it too (<uapi/slabtrace/sample.h>).  The probe
 * (probes.c) and the estimates (slab_trace_weight()) take this same value,
 * so the estimates are unbiased whatever the approximation's error.
 */
static inline u64 slab_trace_sample_p(unsigned long bytes, u32 mean)
{
	return slabtrace_sample_p(bytes, mean);
}

/*
 * How many objects a record of an object of @bytes stands for, in 16-bit
 * fixed point: 1 unsampled, N sampled 1 in N, 1 / p sampled by bytes
 * (@mean B): Go's runtime/pprof scaleHeapSample() weighs a sample of a
 * heap profile by 1 / (1 - exp(-size / rate)) the same way.
 */
static inline u64 slab_trace_weight(u32 every, u32 mean, unsigned long bytes)
{
	if (!mean)
		return (u64)max(every, 1U) << 16;
	return slabtrace_sample_weight(slab_trace_sample_p(bytes, mean));
}

/*
 * What "start CACHE pid PID...|comm NAME|cgroup PATH" records: the
 * allocations of these processes (thread groups), of tasks of this name,
 * or of tasks in this cgroup (v2) or below it; never an interrupt's.
 * Published with RCU (slab_trace_traced.filter), freed after a grace
 * period (traced.c).
 */
#define SLAB_TRACE_MAX_PIDS	8
#define SLAB_TRACE_CGROUP_MAX	256	/* a cgroup path's bytes */

enum slab_trace_filter_kind {
	SLAB_TRACE_FILTER_PID,
	SLAB_TRACE_FILTER_COMM,
	SLAB_TRACE_FILTER_CGROUP,
};

struct slab_trace_filter {
	struct rcu_head rcu;
	/* Caches that have it ("start kmalloc|all FILTER" shares one). */
	refcount_t ref;
	u8 kind;			/* enum slab_trace_filter_kind */
	u8 npids;
	pid_t tgid[SLAB_TRACE_MAX_PIDS];
	char comm[TASK_COMM_LEN];	/* NUL-padded, as task->comm is */
	struct cgroup *cgroup;		/* referenced */
	char path[SLAB_TRACE_CGROUP_MAX];	/* the cgroup's, as given */
};

/* The text of a filter, escaped: "pid 5 6", "comm NAME", "cgroup PATH". */
#define SLAB_TRACE_FILTER_TEXT	(4 * SLAB_TRACE_CGROUP_MAX + 16)
struct slab_trace_filter *slab_trace_filter_alloc(void);
void slab_trace_filter_put(struct slab_trace_filter *f);
void slab_trace_filter_text(char *buf, size_t size,
			    const struct slab_trace_filter *f);

struct slab_trace_traced {
	struct slabtrace_cache_ref ref;
	/* NULL: every allocation; written under slab_trace_mutex. */
	struct slab_trace_filter __rcu *filter;
	/* Allocations the filter left out, per CPU (probes.c). */
	unsigned long __percpu *filtered;
	/* "start CACHE sample N": 1 in N allocations recorded; 1: all. */
	u32 sample_every;
	/* Per CPU: the sampler's xorshift32 state, never 0 (probes.c). */
	u32 __percpu *rng;
	/* kmalloc-large's sampler: a draw per address (probes.c). */
	u64 sample_seed;
	/* "start CACHE sample-bytes B": B, a record per B bytes; 0: none. */
	u32 sample_bytes;
	char name[SLABTRACE_NAME_MAX + 1];	/* as the user wrote it */
	unsigned int object_size;	/* 0 but for SLAB_TRACE_KIND_CACHE */
	u8 kind;			/* enum slab_trace_kind */
	bool kmalloc;		/* a kmalloc cache, or kmalloc-large */
	u16 id;			/* its records' owner in slab_trace_records */
	bool tracing;		/* written under slab_trace_mutex */
	u64 epoch;		/* ns: record stamps count from here */
	u64 started;		/* when tracing last started, ns */
	u64 traced_ns;		/* tracing time before @started */
	atomic_long_t drops[SLAB_TRACE_DROP_MAX];
	atomic_long_t replaced;	/* records of objects freed untraced */
	atomic_long_t own;	/* slabtrace's own allocations: not recorded */
	u32 mark;		/* "mark": records stamped >= mark; 0: none */
};

static inline long slab_trace_traced_count(const struct slab_trace_traced *tr)
{
	return slab_trace_table_owned(&slab_trace_records, tr->id);
}

/*
 * The published set, read by the probes under RCU, replaced whole
 * (traced.c).  A probe finds an event's traced cache in @by_cache, a hash
 * table of the caches' addresses with open addressing, at most half full,
 * so a lookup ends at the first empty slot after a probe or two, however
 * many caches are traced; and a record's cache in @by_id.
 */
struct slab_trace_set {
	struct rcu_head rcu;
	unsigned int nr;
	unsigned int mask;			/* slots of @by_cache - 1 */
	/*
	 * "start all" follows new caches (follow.c): a cache that is in
	 * neither @by_cache nor @skip is new.  @skip: the caches left out,
	 * a hash table as @by_cache is, of @skip_mask + 1 slots; NULL if
	 * not @follow.
	 */
	bool follow;
	unsigned int skip_mask;
	const struct kmem_cache **skip;
	struct slab_trace_traced **traced;	/* @nr, in the order started */
	struct slab_trace_traced **by_cache;	/* NULL: an empty slot */
	struct slab_trace_traced *by_id[SLAB_TRACE_MAX_OWNERS];
	struct slab_trace_traced *mem[];	/* @traced, then @by_cache */
};

extern struct slab_trace_set __rcu *slab_trace_active;

void slab_trace_follow_kick(void);

/*
 * An allocation from cache @s, not in @set: if @set follows new caches
 * and @s is not left out, @s is new (follow.c).  Any context.
 */
static __always_inline void slab_trace_follow_miss(const struct slab_trace_set *set,
						   const struct kmem_cache *s)
{
	unsigned int i, n;

	if (likely(!set->follow))
		return;
	i = hash_ptr(s, 32) & set->skip_mask;
	for (n = 0; n <= set->skip_mask; n++, i = (i + 1) & set->skip_mask) {
		if (set->skip[i] == s)
			return;
		if (!set->skip[i])
			break;
	}
	slab_trace_follow_kick();
}

/* The traced cache of cache @s (a pseudo cache too), or NULL; any context. */
static __always_inline struct slab_trace_traced *
slab_trace_traced_of(const struct slab_trace_set *set, const struct kmem_cache *s)
{
	unsigned int i = hash_ptr(s, 32) & set->mask, n;
	struct slab_trace_traced *tr;

	for (n = 0; n <= set->mask; n++, i = (i + 1) & set->mask) {
		tr = set->by_cache[i];
		if (!tr || tr->ref.cache == s)
			return tr;
	}
	return NULL;
}

/* The traced cache whose records have owner @id, or NULL if it left the set. */
static __always_inline struct slab_trace_traced *
slab_trace_traced_of_id(const struct slab_trace_set *set, u16 id)
{
	return id < SLAB_TRACE_MAX_OWNERS ? set->by_id[id] : NULL;
}

int slab_trace_resolve(const char *cmd, const char *name,
		       struct slabtrace_cache_ref *ref, u8 *kind);
/* The most "sample N" takes: a record stands for N allocations. */
#define SLAB_TRACE_SAMPLE_MAX	1000000U
int slab_trace_start(const char *name, struct slab_trace_filter *filter,
		     u32 sample_every, u32 sample_bytes);
unsigned long slab_trace_traced_filtered(const struct slab_trace_traced *tr);
int slab_trace_traced_word(enum slab_trace_word word,
			   struct slab_trace_traced ***trs);
int slab_trace_stop(const char *name);
int slab_trace_reset(const char *name);
int slab_trace_mark(const char *name);
struct slab_trace_traced *slab_trace_traced_find(const char *cmd,
						 const char *name,
						 struct slabtrace_cache_ref *ref);
u64 slab_trace_traced_time(const struct slab_trace_traced *tr, u64 now);
u32 slab_trace_stamp(const struct slab_trace_traced *tr, u64 now);
void slab_trace_traced_sweep(void);
void slab_trace_traced_exit(void);
struct slab_trace_filter *slab_trace_filter_get(struct slab_trace_filter *f);
int slab_trace_set_republish(void);
int slab_trace_start_new(struct slab_trace_filter *filter, u32 sample_every,
			 u32 sample_bytes,
			 bool (*left_out)(const struct kmem_cache *s));

/* follow.c: "start all" starts the caches created after it too. */
void slab_trace_follow_start(struct slab_trace_filter *filter,
			     u32 sample_every, u32 sample_bytes);
void slab_trace_follow_stop(void);
bool slab_trace_follow_leave_out(const struct slabtrace_cache_ref *ref);
int slab_trace_follow_publish(struct slab_trace_set *set);
void slab_trace_follow_status(struct seq_file *m);
int slab_trace_follow_init(void);
void slab_trace_follow_exit(void);
void slab_trace_follow_exit_work(void);

/* modsyms.c: the name of a frame, as a backtrace shows it. */
void slab_trace_frame_name(char *buf, size_t size, depot_stack_handle_t handle,
			   unsigned long ip, bool offset);
void slab_trace_frame_folded(char *buf, size_t size, const char *name);
void slab_trace_stack_show(struct seq_file *m, depot_stack_handle_t handle);

/* probes.c: the tracepoint probes, attached while needed. */
int slab_trace_probes_update(void);
void slab_trace_probes_state(bool *alloc, bool *free);
void slab_trace_probes_exit(void);

/*
 * What only the KUnit suites use: failure hooks (pool.c, stacks.c,
 * probes.c, table.c), hooks that run where a race would
 * (probes.c, snapshot.c), and a helper.  Not in the benchmarks' kernel:
 * the probes would pay for the hooks.
 */
#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
extern bool slab_trace_fake_nmi;
extern void (*slab_trace_test_before_insert)(void);
extern void (*slab_trace_test_before_detach)(void);
extern void (*slab_trace_test_after_copy)(void);
/* snapshot.c: the login user of the tests' prints and reads, if set. */
extern bool slab_trace_test_user_set;
extern kuid_t slab_trace_test_user;
#endif

/* Helpers of the KUnit suites and the benchmarks (st_kunit.h). */
#if SLAB_TRACE_TESTS
void slab_trace_probes_idle(void);
#endif

/* stats.c: the stats file, and slab_trace's part of status. */
extern const struct file_operations slab_trace_stats_fops;
void slab_trace_status(struct seq_file *m);
bool slab_trace_next(struct seq_file *m);

/* snapshot.c: what "print" takes and reading ctl shows. */
#define SLAB_TRACE_SNAP_PER_CHUNK \
	(PAGE_SIZE / sizeof(struct slab_trace_record))

/* What "print" was asked for (slab.c parses it). */
struct slab_trace_print_opts {
	bool stacks;			/* the aggregated view */
	bool since_mark;		/* only records made after "mark" */
	u32 top;			/* stacks shown; 0: all */
	u32 older_than;			/* ms; 0: any age */
};

/* A snapshot's records grouped by backtrace (aggregate.c groups them). */
#define SLAB_TRACE_GROUP_WHO	4	/* contexts listed per group */

struct slab_trace_group {
	struct slab_trace_group *next;	/* same stack, other system call */
	depot_stack_handle_t stack;
	s16 syscall;			/* as slab_trace_record.syscall */
	u8 nwho;
	u32 count;
	u32 more_who;			/* contexts beyond who[] */
	u64 bytes;
	u64 requested;
	u64 est_q16;			/* objects estimated, 16-bit fixed point */
	u64 est_bytes;			/* bytes estimated */
	u32 age_min;			/* ms */
	u32 age_max;
	u64 age_sum;
	struct slab_trace_who who[SLAB_TRACE_GROUP_WHO];
	u32 rank;			/* "Stack N" of the stacks view */
	struct slab_trace_verdict_in *in;	/* while grouping */
	struct slab_trace_verdict verdict;
};

struct slab_trace_snapshot {
	struct kref kref;
	struct list_head alive;		/* snapshot.c's list of them all */
	/*
	 * A print of a word ("print all"): a snapshot of no records, @name
	 * the word, whose @next are the parts, one per cache holding objects,
	 * most bytes first; each part is the snapshot of a cache, held by the
	 * print.  NULL for a print of one cache.
	 */
	struct slab_trace_snapshot *next;
	bool word;
	unsigned int nr_caches;		/* a word's: the caches it stands for */
	unsigned int nr_parts;		/* those with objects: @next's */
	unsigned long purges;		/* owner_purges[@owner] when copied */
	char name[SLABTRACE_NAME_MAX + 1];
	char aliases[256];		/* "" unless the cache is shared */
	struct slab_trace_print_opts opts;
	u32 mark;			/* the mark since-mark used */
	struct slab_trace_group **groups; /* most bytes first */
	unsigned long nr_groups;
	struct xarray by_stack;		/* stack handle -> its groups */
	unsigned long verdicts[SLABTRACE_VERDICTS];	/* groups judged so */
	u64 taken;			/* ns */
	u64 epoch;			/* of the records' stamps, ns */
	u64 traced_ns;
	bool tracing;
	unsigned int object_size;	/* 0: by record (slab_trace_bytes()) */
	u8 kind;			/* enum slab_trace_kind */
	u16 owner;			/* the records copied */
	long drops[SLAB_TRACE_DROP_MAX];
	unsigned long filtered;		/* left out by the filter */
	u32 sample_every;		/* records stand for this many */
	u32 sample_bytes;		/* or sampled by bytes: B; 0: not */
	u64 est_q16;			/* objects estimated (slab_trace_weight()) */
	u64 est_bytes;			/* bytes estimated */
	char filter[SLAB_TRACE_FILTER_TEXT];	/* "": none */
	long grow_failed;		/* the table's, all caches' */
	long replaced;
	unsigned long nr;
	unsigned long bytes;
	struct xarray chunks;		/* index -> page of records */
};

/*
 * Add what a record of an object of @bytes stands for to the estimates
 * @est_q16 and @est_bytes of a snapshot or group: the record itself
 * unsampled, N or 1 / p objects sampled (slab_trace_weight()).
 */
static inline void slab_trace_estimate(const struct slab_trace_snapshot *snap,
				       unsigned long bytes, u64 *est_q16,
				       u64 *est_bytes)
{
	u64 w = slab_trace_weight(snap->sample_every, snap->sample_bytes, bytes);

	*est_q16 += w;
	*est_bytes += (bytes * w) >> 16;
}

/* Whether the records of @snap stand for more objects than themselves. */
static inline bool slab_trace_sampled(const struct slab_trace_snapshot *snap)
{
	return snap->sample_every > 1 || snap->sample_bytes;
}

struct slab_trace_stack_texts;

/* An open ctl, stacks or folded file, reading: what its seq_file holds. */
struct slab_trace_reader {
	struct slab_trace_snapshot *snap;	/* referenced, or NULL */
	/* ctl opened to read and write: the last print it wrote, or NULL */
	struct slab_trace_snapshot *own;
	struct slab_trace_stack_texts *texts;	/* dump.c's, or NULL */
	/* What is shown: @snap, or a part of it, from position @part_pos. */
	struct slab_trace_snapshot *part;
	loff_t part_pos;
};

/* Seconds a login user's print is kept after its last print or read. */
extern unsigned int slab_trace_snapshot_idle;

int slab_trace_print(struct slab_trace_reader *own, const char *name,
		     const struct slab_trace_print_opts *opts);
void slab_trace_snapshots_alive(void (*fn)(struct slab_trace_snapshot *snap,
					   void *arg), void *arg);
void slab_trace_snapshot_drop_owner(u16 owner);
long slab_trace_snapshot_dropped(const struct slab_trace_snapshot *snap);
u32 slab_trace_snapshot_age(const struct slab_trace_snapshot *snap,
			    const struct slab_trace_record *rec);
struct slab_trace_snapshot *slab_trace_snapshot_seq(struct seq_file *m,
						    loff_t pos);
struct slab_trace_snapshot *
slab_trace_snapshot_part(struct seq_file *m, loff_t pos, loff_t first,
			 unsigned long (*len)(struct seq_file *m,
					      const struct slab_trace_snapshot *part));
int slab_trace_reader_open(struct file *file,
			   const struct seq_operations *ops);
int slab_trace_reader_release(struct inode *inode, struct file *file);
void slab_trace_snapshot_stats(unsigned long *kept, unsigned long *alive,
			       size_t *mem);
struct slab_trace_record *
slab_trace_snapshot_entry(struct slab_trace_snapshot *snap, unsigned long i);
void slab_trace_snapshot_exit(void);
void slab_trace_snapshot_exit_work(void);

/* aggregate.c: the records of a snapshot grouped by backtrace. */
int slab_trace_aggregate(struct slab_trace_snapshot *snap);
void slab_trace_groups_free(struct slab_trace_snapshot *snap);
const struct slab_trace_group *
slab_trace_group_of(struct slab_trace_snapshot *snap,
		    const struct slab_trace_record *rec);

/*
 * dump.c: the text of a snapshot; folded.c: its folded stacks, and the
 * read-only files of the views (their seq_operations as the file's data).
 */
extern const struct seq_operations slab_trace_dump_seq_ops;
extern const struct seq_operations slab_trace_stacks_seq_ops;
extern const struct seq_operations slab_trace_folded_seq_ops;
extern const struct seq_operations slab_trace_folded_bytes_seq_ops;
extern const struct file_operations slab_trace_view_fops;
void slab_trace_stack_texts_free(struct slab_trace_stack_texts *texts);

/* modsyms.c: names of frames in module code that went away. */
int slab_trace_modsyms_init(void);
const char *slab_trace_modsym(depot_stack_handle_t handle, unsigned long ip);
unsigned long slab_trace_modsyms_gen(void);
void slab_trace_modsyms_stats(long *events, long *walks);
void slab_trace_modsyms_exit(void);

/*
 * Global only for the KUnit suites: static in the module
 * (VISIBLE_IF_KUNIT, <kunit/visibility.h>).
 */
#if IS_ENABLED(CONFIG_KUNIT)
void slab_trace_frame_strip(char *buf, size_t size, const char *name);
void slab_trace_reader_clear(struct slab_trace_reader *r);
int slab_trace_snapshot_add(struct slab_trace_snapshot *snap,
			    const struct slab_trace_record *rec);
struct slab_trace_snapshot *slab_trace_snapshot_alloc(void);
struct slab_trace_snapshot *slab_trace_snapshot_get(struct slab_trace_reader *r);
void slab_trace_snapshot_publish(struct slab_trace_snapshot *snap,
				 struct slab_trace_reader *own);
void slab_trace_snapshot_put(struct slab_trace_snapshot *snap);
void slab_trace_snapshot_sweep(void);
#endif

/* traced.c, folded.c: helpers of the KUnit suites alone. */
#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
long slab_trace_traced_dropped(const struct slab_trace_traced *tr);
void slab_trace_folded_show(struct seq_file *m,
			    const struct slab_trace_snapshot *snap, bool bytes);
#endif

#endif /* _SLABTRACE_SLAB_H */
