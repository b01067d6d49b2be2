/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabtrace internals shared by the files of module/ and by the KUnit
 * suites.  Each block names the file that implements it; the locking rules
 * are at the top of those files.
 */
#ifndef _SLABTRACE_SLABTRACE_H
#define _SLABTRACE_SLABTRACE_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/irq_work.h>
#include <linux/kallsyms.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/stackdepot.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

struct kmem_cache;
struct kobject;
struct seq_file;

/* Longest cache name accepted on ctl (sysfs names of caches are shorter). */
#define SLABTRACE_NAME_MAX	64
/* Longest command accepted in one write to ctl. */
#define SLABTRACE_CMD_MAX	255
/* Caches traced, or stopped but still holding records, at once. */
#define SLABTRACE_MAX_CACHES	16
/* Frames walked per allocation, before the tracer's own are trimmed. */
#define SLABTRACE_STACK_DEPTH	32

/* main.c */
extern struct mutex slabtrace_mutex;
extern struct kmem_cache *slabtrace_record_cache;
extern struct dentry *slabtrace_debugfs;

/* context.c: who made an allocation. */
enum slabtrace_ctx_kind {
	SLABTRACE_CTX_TASK,
	SLABTRACE_CTX_KTHREAD,
	SLABTRACE_CTX_SOFTIRQ,
	SLABTRACE_CTX_HARDIRQ,
};

/*
 * A context is interned: one per (kind, comm) seen, shared by all records
 * through its id, never freed before module exit.
 */
struct slabtrace_ctx {
	struct hlist_node node;
	u16 id;
	u8 kind;
	char comm[TASK_COMM_LEN];
};

struct slabtrace_record;
void slabtrace_ctx_fill(struct slabtrace_record *rec, gfp_t gfp);
const struct slabtrace_ctx *slabtrace_ctx_get(u16 id);
void slabtrace_ctx_show(struct seq_file *m, const struct slabtrace_record *rec);
void slabtrace_syscall_show(struct seq_file *m,
			    const struct slabtrace_record *rec);
void slabtrace_ctx_exit(void);

/*
 * table.c: the outstanding objects of one cache.  40 bytes: the stack and
 * the context are stored once each, elsewhere, and named by 32- and 16-bit
 * handles; the time is in milliseconds since the cache's trace began
 * (slabtrace_traced.epoch), which lasts 49 days.
 */
struct slabtrace_record {
	struct slabtrace_record *next;	/* hash chain, under its stripe lock */
	const void *obj;		/* the object: the key */
	u32 stamp;			/* allocated at epoch + stamp ms */
	depot_stack_handle_t stack;	/* 0: the stack could not be saved */
	pid_t pid;			/* 0 in interrupts */
	u32 bytes_req;
	u16 ctx;			/* slabtrace_ctx_get() */
	u16 cpu;
	s16 syscall;			/* -1: none; | SLABTRACE_SYSCALL_COMPAT */
};

/* slabtrace_record.syscall of a 32-bit system call. */
#define SLABTRACE_SYSCALL_COMPAT	0x4000

#define SLABTRACE_TABLE_LOCKS	128

struct slabtrace_buckets {
	unsigned long mask;		/* number of buckets - 1 */
	struct slabtrace_record *head[];
};

/* One stripe of a table, on a cacheline of its own. */
struct slabtrace_stripe {
	/* Chains of the buckets b with b % SLABTRACE_TABLE_LOCKS == i, and: */
	spinlock_t lock;
	/* the bucket array those chains are in (see grow). */
	struct slabtrace_buckets *buckets;
} ____cacheline_aligned_in_smp;

struct slabtrace_table {
	struct slabtrace_stripe stripe[SLABTRACE_TABLE_LOCKS];
	struct slabtrace_buckets *buckets;	/* under grow_mutex */
	atomic_long_t nr;
	/* Moving records between arrays; iterating.  Before a stripe lock. */
	struct mutex grow_mutex;
	struct work_struct grow_work;
	struct irq_work grow_kick;	/* queues grow_work from a probe */
};

int slabtrace_table_init(struct slabtrace_table *t);
void slabtrace_table_destroy(struct slabtrace_table *t);
void slabtrace_table_flush(struct slabtrace_table *t);
struct slabtrace_record *slabtrace_table_insert(struct slabtrace_table *t,
						struct slabtrace_record *rec);
struct slabtrace_record *slabtrace_table_remove(struct slabtrace_table *t,
						const void *obj);

static inline long slabtrace_table_count(struct slabtrace_table *t)
{
	return atomic_long_read(&t->nr);
}

struct slabtrace_table_iter {
	struct slabtrace_table *t;
	unsigned long bucket;
	unsigned int need;		/* room the last bucket wanted */
};

void slabtrace_table_iter_start(struct slabtrace_table_iter *it,
				struct slabtrace_table *t);
int slabtrace_table_iter_next(struct slabtrace_table_iter *it,
			      struct slabtrace_record *buf, unsigned int room);
void slabtrace_table_iter_stop(struct slabtrace_table_iter *it);
int slabtrace_table_for_each(struct slabtrace_table *t,
			     int (*fn)(const struct slabtrace_record *rec,
				       void *arg),
			     void *arg);

/* caches.c: cache names to caches. */
struct slabtrace_cache_ref {
	struct kmem_cache *cache;
	struct kobject *kobj;		/* holds the cache's memory */
};

int slabtrace_cache_get(const char *name, struct slabtrace_cache_ref *ref);
void slabtrace_cache_put(struct slabtrace_cache_ref *ref);
bool slabtrace_cache_merged(const struct slabtrace_cache_ref *ref);
bool slabtrace_cache_destroyed(const struct slabtrace_cache_ref *ref);
int slabtrace_cache_aliases(const struct slabtrace_cache_ref *ref,
			    const char *name, char *buf, size_t size);
void slabtrace_caches_exit(void);

/* traced.c: the caches being traced, or holding records. */
struct slabtrace_traced {
	struct slabtrace_cache_ref ref;
	char name[SLABTRACE_NAME_MAX + 1];	/* as the user wrote it */
	unsigned int object_size;
	bool tracing;		/* written under slabtrace_mutex */
	u64 epoch;		/* ns: record stamps count from here */
	u64 started;		/* when tracing last started, ns */
	u64 traced_ns;		/* tracing time before @started */
	atomic_long_t dropped;	/* allocations not recorded: no memory */
	atomic_long_t replaced;	/* records of objects freed untraced */
	u32 mark;		/* "mark": records stamped >= mark; 0: none */
	struct slabtrace_table table;
};

/* The published set, read by the probes under RCU. */
struct slabtrace_set {
	struct rcu_head rcu;
	unsigned int nr;
	struct slabtrace_traced *traced[SLABTRACE_MAX_CACHES];
};

extern struct slabtrace_set __rcu *slabtrace_active;

int slabtrace_start(const char *name);
int slabtrace_stop(const char *name);
int slabtrace_reset(const char *name);
int slabtrace_mark(const char *name);
struct slabtrace_traced *slabtrace_traced_find(const char *cmd,
					       const char *name);
u64 slabtrace_traced_time(const struct slabtrace_traced *tr, u64 now);
u32 slabtrace_stamp(const struct slabtrace_traced *tr, u64 now);
void slabtrace_traced_sweep(void);
void slabtrace_traced_exit(void);

/* stacks.c */
#define SLABTRACE_FRAME_MAX	KSYM_SYMBOL_LEN	/* a frame's name */
unsigned int slabtrace_stack_trim(const unsigned long *entries,
				  unsigned int nr, unsigned long call_site);
void slabtrace_frame_strip(char *buf, size_t size, const char *name);
void slabtrace_frame_name(char *buf, size_t size, unsigned long ip,
			  bool offset);
void slabtrace_frame_folded(char *buf, size_t size, const char *name);
depot_stack_handle_t slabtrace_stack_store(unsigned long *entries,
					   unsigned int nr,
					   unsigned long call_site, gfp_t gfp);
void slabtrace_stack_show(struct seq_file *m, depot_stack_handle_t handle);
int slabtrace_stack_first(depot_stack_handle_t handle, unsigned long *ip);

/* probes.c */
#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
extern bool slabtrace_fail_record_alloc;
#endif
void slabtrace_evict_elsewhere(struct slabtrace_set *set,
			       struct slabtrace_traced *tr, const void *obj);
int slabtrace_probes_update(void);
void slabtrace_probes_state(bool *alloc, bool *free);
void slabtrace_probes_idle(void);
void slabtrace_probes_exit(void);

/* snapshot.c: what "print" takes and reading ctl shows. */
#define SLABTRACE_SNAP_PER_CHUNK \
	(PAGE_SIZE / sizeof(struct slabtrace_record))

/* What "print" was asked for (ctl.c parses it). */
struct slabtrace_print_opts {
	bool stacks;			/* the aggregated view */
	bool since_mark;		/* only records made after "mark" */
	u32 top;			/* stacks shown; 0: all */
	u32 older_than;			/* ms; 0: any age */
};

/* aggregate.c: the records of a snapshot grouped by backtrace. */
#define SLABTRACE_GROUP_WHO	4	/* contexts listed per group */

struct slabtrace_group {
	depot_stack_handle_t stack;
	s16 syscall;			/* as slabtrace_record.syscall */
	u8 nwho;
	u32 count;
	u32 more_who;			/* contexts beyond who[] */
	u64 bytes;
	u64 requested;
	u32 age_min;			/* ms */
	u32 age_max;
	u64 age_sum;
	struct {
		pid_t pid;
		u16 ctx;
	} who[SLABTRACE_GROUP_WHO];
};

struct slabtrace_snapshot {
	struct kref kref;
	char name[SLABTRACE_NAME_MAX + 1];
	char aliases[256];		/* "" unless the cache is shared */
	struct slabtrace_print_opts opts;
	u32 mark;			/* the mark since-mark used */
	struct slabtrace_group **groups; /* most bytes first */
	unsigned long nr_groups;
	u64 taken;			/* ns */
	u64 epoch;			/* of the records' stamps, ns */
	u64 traced_ns;
	bool tracing;
	unsigned int object_size;
	long dropped;
	long replaced;
	unsigned long nr;
	unsigned long bytes;
	struct xarray chunks;		/* index -> page of records */
};

int slabtrace_print(const char *name, const struct slabtrace_print_opts *opts);
struct slabtrace_snapshot *slabtrace_snapshot_alloc(void);
void slabtrace_snapshot_publish(struct slabtrace_snapshot *snap);
int slabtrace_snapshot_add(struct slabtrace_snapshot *snap,
			   const struct slabtrace_record *rec);
struct slabtrace_snapshot *slabtrace_snapshot_get(void);
struct slabtrace_snapshot *slabtrace_snapshot_current(void);
u32 slabtrace_snapshot_age(const struct slabtrace_snapshot *snap,
			   const struct slabtrace_record *rec);
struct slabtrace_snapshot *slabtrace_snapshot_seq(struct seq_file *m,
						  loff_t pos);
void slabtrace_snapshot_put(struct slabtrace_snapshot *snap);
struct slabtrace_record *
slabtrace_snapshot_entry(struct slabtrace_snapshot *snap, unsigned long i);
void slabtrace_snapshot_exit(void);

int slabtrace_aggregate(struct slabtrace_snapshot *snap);
void slabtrace_groups_free(struct slabtrace_snapshot *snap);

/* dump.c: the text of a snapshot; folded.c: its folded stacks. */
extern const struct seq_operations slabtrace_dump_seq_ops;
extern const struct seq_operations slabtrace_stacks_seq_ops;
int slabtrace_folded_init(void);
void slabtrace_folded_show(struct seq_file *m,
			   const struct slabtrace_snapshot *snap, bool bytes);

/* modsyms.c: names of frames in modules that went away. */
int slabtrace_modsyms_init(void);
const char *slabtrace_modsym(unsigned long ip);
void slabtrace_modsyms_exit(void);

/* ctl.c */
int slabtrace_ctl_command(char *buf, size_t len);
int slabtrace_ctl_init(void);

#endif /* _SLABTRACE_SLABTRACE_H */
