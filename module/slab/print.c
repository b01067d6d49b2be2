// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: "print", a snapshot of one cache's records taken at one
 * moment (snapshot.c), which reading ctl then formats (dump.c), and
 * reading folded and folded_bytes too (folded.c).  The records are
 * filtered as they are copied (older-than, since-mark) and grouped by
 * backtrace once copied (aggregate.c), whichever view was asked for.  A
 * print that does not fit fails with -ENOMEM (snapshot.c), and a print
 * whose caller is killed stops.
 *
 * A print is kept for its login user (the audit login UID, which sudo
 * keeps from the user's login; "unset" is one more user), not for the
 * process or the session that printed it: reading ctl, slab/stacks,
 * slab/folded and slab/folded_bytes shows the reader's login user's latest
 * print, whoever made it, so "echo print X | sudo tee ctl; sudo cat ctl"
 * works, each sudo in a session of its own, and two users printing two
 * caches do not clobber each other.  A file opened for reading and
 * writing that writes a print also keeps it as its own: its reads show
 * that print, whatever anyone prints meanwhile (slabtrace(8) reads its
 * prints so).  A user's print goes:
 * - at that user's next print, or rmmod;
 * - at the end of the command that reset its cache, or that found the
 *   cache destroyed, or of the worker's job after a scan did
 *   (leak_print_drop_stale()); and at its user's read, whoever
 *   purged its records (leak_print_get());
 * - leak_print_idle seconds (10 minutes unless the module
 *   parameter snapshot_idle_secs says otherwise) after its last print or
 *   read: a delayed work sweeps them, armed for the first to expire;
 * - when a ninth user prints: at most SNAP_USERS are kept, the one used
 *   least recently goes.
 * A file's own print goes when the file prints again or is closed.
 * Readers hold a reference on the one they started on, dropped when they
 * close.  The stats show what they all hold ("snapshots").
 *
 * A print copies with leak_mutex dropped; a reset of its cache
 * meanwhile waits for the copy, then drops the cache's records: the copy
 * is then of records that no longer exist, and the print fails (EBUSY)
 * rather than publish it.
 *
 * Notes on locking
 * ----------------
 * - leak_mutex: users[], each reader's own print
 *   (leak_reader.own: set by a print through its file, taken by its
 *   reads), and the (re)arming of sweep_work.
 * - leak_print_sem (traced.c's): held for reading while records are
 *   copied, with leak_mutex dropped so that other commands go on;
 *   held for writing (traced.c) while a cache's records are purged, so
 *   that a copy never sees a record of an owner id given out again.  Taken
 *   after leak_mutex, never before it.  leak_purges[] tells a
 *   copy that a purge came between.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include <wrapper/audit.h>
#include <wrapper/workqueue.h>

#include "aggregate.h"
#include "lifetime.h"
#include "print.h"
#include "record.h"
#include "sets.h"
#include "snapshot.h"
#include "stacks.h"
#include "table.h"
#include "traced.h"

unsigned int leak_print_idle = 600;
module_param_named(snapshot_idle_secs, leak_print_idle, uint, 0400);
MODULE_PARM_DESC(snapshot_idle_secs, "seconds a login user's print is kept after its last print or read (1..86400; default 600)");

/* Login users whose print is kept, at most. */
#define SNAP_USERS	8

/* A login user's latest print; @snap NULL: a free slot. */
static struct {
	kuid_t user;			/* INVALID_UID: unset */
	struct leak_snapshot *snap;
	unsigned long used;		/* jiffies: its print, or its last read */
} users[SNAP_USERS];

static void sweep_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(sweep_work, sweep_fn);
static bool sweep_off;		/* rmmod: not again */

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* The tests' login user, if set: they cannot set an audit login UID. */
bool leak_test_user_set;
kuid_t leak_test_user;
#endif

/* The login user a print or a read of current's is kept for. */
static kuid_t login_user(void)
{
#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
	if (READ_ONCE(leak_test_user_set))
		return leak_test_user;
#endif
	return slabtrace_login_uid(current);
}

#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
/* Run by a print once it has copied, before it takes the mutex again. */
void (*leak_test_after_copy)(void);
#endif

/**
 * leak_print_part - the part of a print a position shows
 * @m: the reader, after leak_print_seq() found its snapshot
 * @pos: the position
 * @first: the position of the first part's first item
 * @len: how many positions a part takes in this view
 *
 * For a print of one cache, the snapshot itself, from @first; for a
 * print of a word, the part @pos is in.  The reader keeps the part and
 * its first position (r->part, r->part_pos), so a read going forward
 * finds each next part at once.
 *
 * Return: the part, or NULL past the end.
 */
struct leak_snapshot *
leak_print_part(struct seq_file *m, loff_t pos, loff_t first,
		unsigned long (*len)(struct seq_file *m,
				     const struct leak_snapshot *part))
{
	struct leak_reader *r = m->private;

	if (!r->snap->word) {
		r->part = r->snap;
		r->part_pos = first;
		return r->part;
	}
	if (!r->part || r->part == r->snap || pos < r->part_pos) {
		r->part = r->snap->next;
		r->part_pos = first;
	}
	while (r->part && pos >= r->part_pos + len(m, r->part)) {
		r->part_pos += len(m, r->part);
		r->part = r->part->next;
	}
	return r->part;
}

/**
 * leak_reader_open - open a file that shows the snapshot
 * @file: ctl (opened to read), stacks, folded or folded_bytes
 * @ops: its seq_file operations; m->private is a struct leak_reader
 *
 * Return: 0 or -ENOMEM.
 */
int leak_reader_open(struct file *file, const struct seq_operations *ops)
{
	return seq_open_private(file, ops, sizeof(struct leak_reader));
}

/*
 * What a reader holds goes: its snapshot, its own print (a view's text
 * went first, leak_view_release()).  Called when nothing else uses
 * the reader (its file closes).
 */
VISIBLE_IF_KUNIT void leak_reader_clear(struct leak_reader *r)
{
	if (r->snap)
		leak_snapshot_put(r->snap);
	r->snap = NULL;
	if (r->own)
		leak_snapshot_put(r->own);
	r->own = NULL;
}

/* A reader closes: what it holds goes. */
int leak_reader_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;

	leak_reader_clear(m->private);
	return seq_release_private(inode, file);
}

/* The slot of current's login user, or -1.  Called with leak_mutex. */
static int user_slot(void)
{
	kuid_t user = login_user();
	int i;

	lockdep_assert_held(&leak_mutex);
	for (i = 0; i < SNAP_USERS; i++)
		if (users[i].snap && uid_eq(users[i].user, user))
			return i;
	return -1;
}

static void slot_free(int i)
{
	leak_snapshot_put(users[i].snap);
	users[i].snap = NULL;
	users[i].user = INVALID_UID;
}

/*
 * Drop the prints unused for leak_print_idle seconds; arm the
 * work for the first of those left to expire.  Called with
 * leak_mutex held.
 */
static void sweep_locked(void)
{
	unsigned long idle = READ_ONCE(leak_print_idle) * HZ;
	unsigned long now = jiffies, next = 0;
	bool kept = false;
	int i;

	lockdep_assert_held(&leak_mutex);
	for (i = 0; i < SNAP_USERS; i++) {
		if (!users[i].snap)
			continue;
		if (time_after_eq(now, users[i].used + idle)) {
			slot_free(i);
			continue;
		}
		if (!kept || time_before(users[i].used + idle, next))
			next = users[i].used + idle;
		kept = true;
	}
	if (kept && !sweep_off)
		mod_delayed_work(SLABTRACE_SYSTEM_WQ, &sweep_work, next - now);
}

/**
 * leak_print_sweep - free the prints idle for too long
 *
 * May sleep.
 */
VISIBLE_IF_KUNIT void leak_print_sweep(void)
{
	mutex_lock(&leak_mutex);
	sweep_locked();
	mutex_unlock(&leak_mutex);
}

static void sweep_fn(struct work_struct *work)
{
	leak_print_sweep();
}

/**
 * leak_print_stats - what the snapshots hold, for the stats
 * @kept: prints kept for login users
 * @alive: snapshots not freed (the kept ones, files' own prints, and
 *	   those readers still hold)
 * @mem: about how many bytes those hold: records, groups, headers
 *
 * May sleep.
 */
VISIBLE_IF_KUNIT void leak_print_stats(unsigned long *kept,
				       unsigned long *alive, size_t *mem)
{
	int i;

	*kept = 0;
	mutex_lock(&leak_mutex);
	for (i = 0; i < SNAP_USERS; i++)
		*kept += !!users[i].snap;
	mutex_unlock(&leak_mutex);
	leak_snapshot_mem(alive, mem);
}

/* Whether a print is of records purged since it was copied. */
static bool stale(const struct leak_snapshot *snap)
{
	const struct leak_snapshot *part;

	if (!snap->word)
		return snap->purges != leak_purges[snap->owner];
	for (part = snap->next; part; part = part->next)
		if (part->purges != leak_purges[part->owner])
			return true;
	return false;
}

/**
 * leak_print_drop_stale - forget the prints of caches reset
 *
 * After a command that reset a cache or found it destroyed (traced.c
 * purged its records): the users' prints of it go now (readers and files
 * that printed keep theirs until they close); a scan's sweep leaves them
 * to the next read (leak_print_get()) or command.  Called with
 * leak_mutex held.
 */
void leak_print_drop_stale(void)
{
	int i;

	lockdep_assert_held(&leak_mutex);
	for (i = 0; i < SNAP_USERS; i++)
		if (users[i].snap && stale(users[i].snap))
			slot_free(i);
}

/**
 * leak_print_get - what a reader shows from its start
 * @r: the reader, or NULL (then only the user's print counts)
 *
 * Its file's own print, if it wrote one; else current's login user's
 * latest, which this read keeps from going idle.
 *
 * Return: the snapshot, referenced; NULL if there is none.
 */
VISIBLE_IF_KUNIT struct leak_snapshot *leak_print_get(struct leak_reader *r)
{
	struct leak_snapshot *snap = NULL;
	int i;

	mutex_lock(&leak_mutex);
	if (r && r->own) {
		snap = r->own;
	} else {
		i = user_slot();
		/* Its cache reset or destroyed since, by a command or a scan. */
		if (i >= 0 && stale(users[i].snap)) {
			slot_free(i);
			i = -1;
		}
		if (i >= 0) {
			snap = users[i].snap;
			users[i].used = jiffies;
			sweep_locked();
		}
	}
	if (snap)
		kref_get(&snap->kref);
	mutex_unlock(&leak_mutex);
	return snap;
}

/**
 * leak_print_seq - the snapshot a seq_file reader is showing
 * @m: the reader, whose ->private holds a reference on it
 * @pos: where it reads
 *
 * A reader starting from offset 0 moves to its file's own print, if it
 * wrote one, else to its login user's latest, so that "echo print X >
 * ctl; cat ctl" shows X; one reading further on keeps the snapshot it
 * started with, also when an lseek() or a pread() elsewhere has the
 * kernel's traverse() start it again from record 0 (m->read_pos, still
 * where the reader was, is not 0 then), and also when that was no
 * snapshot (the state text before any print): a print made meanwhile
 * would show from the middle of its text.  Its release puts m->private.
 *
 * Return: the snapshot, or NULL before the first print.
 */
struct leak_snapshot *leak_print_seq(struct seq_file *m,
				     loff_t pos)
{
	struct leak_reader *r = m->private;
	struct leak_snapshot *snap;

	if (!pos && (!m->read_pos || !r->started)) {
		snap = leak_print_get(r);
		if (r->snap)
			leak_snapshot_put(r->snap);
		r->snap = snap;
		r->part = NULL;
		r->started = true;
	}
	return r->snap;
}

static bool snapshot_takes(const struct leak_snapshot *snap,
			   const struct leak_record *rec)
{
	if (rec->owner != snap->owner)
		return false;
	if (snap->opts.since_mark && rec->stamp < snap->mark)
		return false;
	return leak_snapshot_age(snap, rec) >= snap->opts.older_than;
}

static int fill_one(const struct leak_record *rec, void *snap)
{
	return snapshot_takes(snap, rec) ? leak_snapshot_add(snap, rec) : 0;
}

/*
 * The other names of @ref's cache, for the dump's "shared with" line: as
 * many as @ref kept, then how many did not fit.  @snap->aliases has room
 * for both (snapshot.h).
 */
VISIBLE_IF_KUNIT void
leak_snapshot_aliases(struct leak_snapshot *snap,
		      const struct slabtrace_cache_ref *ref)
{
	size_t len;

	snap->aliases[0] = '\0';
	if (ref->merged <= 0)
		return;
	len = strscpy(snap->aliases, ref->aliases, sizeof(snap->aliases));
	if (ref->aliases_more)
		scnprintf(snap->aliases + len, sizeof(snap->aliases) - len,
			  " and %d more", ref->aliases_more);
}

/* What @snap copies from the traced cache @tr, @aliases its other names. */
static void snapshot_of(struct leak_snapshot *snap,
			const struct leak_traced *tr,
			const struct slabtrace_cache_ref *aliases)
{
	const struct leak_filter *filter;
	int i;

	snap->mark = tr->mark;
	snap->epoch = tr->epoch;
	snap->traced_ns = leak_traced_time(tr, snap->taken);
	snap->tracing = tr->tracing;
	/* stopped is 0 where a cache never traced was left stopped. */
	snap->stopped_ms = 0;
	if (!tr->tracing && tr->stopped >= tr->epoch &&
	    snap->taken > tr->stopped)
		snap->stopped_ms = min_t(u64, U32_MAX,
					 div_u64(snap->taken - tr->stopped,
						 NSEC_PER_MSEC));
	snap->object_size = tr->object_size;
	snap->kind = tr->kind;
	for (i = 0; i < LEAK_DROP_MAX; i++)
		snap->drops[i] = atomic_long_read(&tr->drops[i]);
	snap->owner = tr->id;
	snap->purges = leak_purges[tr->id];
	snap->filtered = leak_traced_filtered(tr);
	snap->sample_every = tr->sample_every;
	snap->sample_bytes = tr->sample_bytes;
	filter = rcu_dereference_protected(tr->filter,
					   lockdep_is_held(&leak_mutex));
	if (filter)
		leak_filter_text(snap->filter, sizeof(snap->filter), filter);
	snap->grow_failed = atomic_long_read(&leak_records.grow_failed);
	snap->replaced = atomic_long_read(&tr->replaced);
	leak_snapshot_aliases(snap, aliases);
}

/* The parts of a print of a word, by record owner, while it copies. */
struct parts {
	struct leak_snapshot *by_owner[LEAK_MAX_OWNERS];
	u64 *freed[LEAK_LIFE_OWNERS];	/* by_owner[]'s cache_freed */
};

static int fill_part(const struct leak_record *rec, void *arg)
{
	struct leak_snapshot *part;

	part = ((struct parts *)arg)->by_owner[rec->owner];
	return part && snapshot_takes(part, rec) ?
	       leak_snapshot_add(part, rec) : 0;
}

/*
 * Copy the records of the snapshots @snaps[0..@n) (of distinct owners), in
 * one walk of the table, and group them.  Drops leak_mutex while
 * it copies.
 */
static int copy_records(struct leak_snapshot **snaps, unsigned int n)
{
	char esc[SLABTRACE_ESC_SIZE];
	struct parts *parts = NULL;
	unsigned int i;
	int ret = 0;

	lockdep_assert_held(&leak_mutex);
	/* Backtraces the depot had no room for when they were taken. */
	leak_stack_flush();
	if (n > 1) {
		parts = kvzalloc(sizeof(*parts), SLABTRACE_GFP_BIG);
		if (!parts)
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			parts->by_owner[snaps[i]->owner] = snaps[i];
			parts->freed[snaps[i]->owner] = snaps[i]->cache_freed;
		}
	}
	/*
	 * The copy, with the mutex dropped: other commands go on, and a reset
	 * of these caches waits for it (leak_print_sem).  Taken again
	 * after the rwsem is released, in the order the others take them.
	 */
	down_read(&leak_print_sem);
	mutex_unlock(&leak_mutex);
	if (n)
		ret = leak_table_for_each(&leak_records,
					  parts ? fill_part : fill_one,
					  parts ? (void *)parts : snaps[0], true);
	/* The caches' frees by lifetime, for the verdicts: one walk. */
	if (!ret && parts)
		leak_lifetime_owners_get(parts->freed);
	else if (!ret && n)
		leak_lifetime_owner_get(snaps[0]->owner, snaps[0]->cache_freed);
	/* A word's part with no record is not shown: nothing to judge. */
	for (i = 0; !ret && i < n; i++)
		if (!parts || snaps[i]->nr)
			ret = leak_aggregate(snaps[i]);
	up_read(&leak_print_sem);
	kvfree(parts);
#if IS_ENABLED(CONFIG_SLABTRACE_KUNIT_TEST)
	if (leak_test_after_copy)
		leak_test_after_copy();
#endif
	mutex_lock(&leak_mutex);
	for (i = 0; !ret && i < n; i++) {
		if (leak_purges[snaps[i]->owner] == snaps[i]->purges)
			continue;
		pr_warn_ratelimited("print: %s was reset while its records were copied: print again\n",
				    slabtrace_esc_str(esc, snaps[i]->name));
		ret = -EBUSY;
	}
	return ret;
}

/* What a part weighs in the order of a word's print: most bytes first. */
static u64 part_bytes(const struct leak_snapshot *part)
{
	return leak_sampled(part) ? part->est_bytes : part->bytes;
}

static int part_cmp(const void *a, const void *b)
{
	const struct leak_snapshot *pa = *(void * const *)a;
	const struct leak_snapshot *pb = *(void * const *)b;

	if (part_bytes(pa) != part_bytes(pb))
		return part_bytes(pa) < part_bytes(pb) ? 1 : -1;
	return strcmp(pa->name, pb->name);
}

/*
 * "print WORD": one snapshot of every traced cache of the word, in one
 * walk of the records, into @head.
 */
static int print_word(struct leak_snapshot *head,
		      enum leak_word word)
{
	struct leak_snapshot **parts = NULL, **tail;
	struct leak_traced **trs;
	unsigned int i, nomark = 0;
	int n, ret;

	n = leak_traced_word(word, &trs);
	if (n < 0)
		return n;
	head->word = true;
	head->nr_caches = n;
	for (i = 0; head->opts.since_mark && i < n; i++)
		nomark += !trs[i]->mark;
	if (nomark) {
		pr_warn_ratelimited("print: since-mark: %u caches of %s have no mark\n",
				    nomark, head->name);
		ret = -EINVAL;
		goto out;
	}
	ret = -ENOMEM;
	parts = kvcalloc(max(n, 1), sizeof(*parts), SLABTRACE_GFP_BIG);
	if (!parts)
		goto out;
	for (i = 0; i < n; i++) {
		parts[i] = leak_snapshot_alloc();
		if (!parts[i])
			goto out;
		strscpy(parts[i]->name, trs[i]->name, sizeof(parts[i]->name));
		parts[i]->opts = head->opts;
		parts[i]->taken = head->taken;
		snapshot_of(parts[i], trs[i], &trs[i]->ref);
	}
	ret = copy_records(parts, n);
	if (ret)
		goto out;
	sort(parts, n, sizeof(*parts), part_cmp, NULL);
	tail = &head->next;
	for (i = 0; i < n; i++) {
		if (!parts[i]->nr)
			continue;
		*tail = parts[i];
		tail = &parts[i]->next;
		parts[i] = NULL;
		head->nr_parts++;
	}
out:
	for (i = 0; parts && i < n; i++) {
		if (!parts[i])
			continue;
		/* What leak_print() says of a copy that failed. */
		head->nr += parts[i]->nr;
		leak_snapshot_put(parts[i]);
	}
	kvfree(parts);
	kfree(trs);
	return ret;
}

/* "print CACHE": a snapshot of the cache's records, into @snap. */
static int print_cache(struct leak_snapshot *snap)
{
	char esc[SLABTRACE_ESC_SIZE];
	struct slabtrace_cache_ref ref;
	struct leak_traced *tr;

	tr = leak_traced_find("print", snap->name, &ref);
	if (IS_ERR(tr))
		return PTR_ERR(tr);
	if (snap->opts.since_mark && !tr->mark) {
		pr_warn_ratelimited("print: since-mark: %s has no mark\n",
				    slabtrace_esc_str(esc, snap->name));
		slabtrace_cache_put(&ref);
		return -EINVAL;
	}
	snapshot_of(snap, tr, &ref);
	slabtrace_cache_put(&ref);
	return copy_records(&snap, 1);
}

/**
 * leak_print_publish - make a print what its login user reads
 * @snap: the print; its reference is taken over
 * @own: the reader of the file that wrote the print, which keeps it as
 *	 its own; NULL if none (a file opened for writing only)
 *
 * The user's last print goes, or, with every slot taken, the one used
 * least recently.  Called with leak_mutex held.
 */
VISIBLE_IF_KUNIT void leak_print_publish(struct leak_snapshot *snap,
					 struct leak_reader *own)
{
	int i, slot = user_slot();

	lockdep_assert_held(&leak_mutex);
	for (i = 0; slot < 0 && i < SNAP_USERS; i++)
		if (!users[i].snap)
			slot = i;
	if (slot < 0) {
		slot = 0;
		for (i = 1; i < SNAP_USERS; i++)
			if (time_before(users[i].used, users[slot].used))
				slot = i;
	}
	if (users[slot].snap)
		slot_free(slot);
	if (own) {
		if (own->own)
			leak_snapshot_put(own->own);
		kref_get(&snap->kref);
		own->own = snap;
	}
	users[slot].user = login_user();
	users[slot].snap = snap;
	users[slot].used = jiffies;
	sweep_locked();
}

/**
 * leak_print - take the snapshot that reading ctl shows next
 * @own: the reader of the file that wrote the command, which keeps the
 *	 print as its own (a file opened for reading and writing); NULL if
 *	 none
 * @name: the cache, as the user names it, or a word for the traced
 *	  caches of a set (one snapshot of each, taken in one walk)
 * @opts: the view and the filters
 *
 * The print is current's login user's latest (leak_print_publish()).
 * Called with leak_mutex held; drops it while it copies the records.
 *
 * Return: 0, -ENOENT for an unknown cache, -ENODATA for a cache that is
 * not traced, -EINVAL for since-mark without a mark, -ENOMEM (the copy is
 * made with __GFP_NORETRY: it fails rather than wake the OOM killer),
 * -EINTR if the caller was killed, -EBUSY if a cache was reset while
 * its records were being copied.
 */
int leak_print(struct leak_reader *own, const char *name,
	       const struct leak_print_opts *opts)
{
	char esc[SLABTRACE_ESC_SIZE];
	enum leak_word word = leak_word_of(name);
	struct leak_snapshot *snap;
	unsigned long nr;
	int ret;

	lockdep_assert_held(&leak_mutex);
	snap = leak_snapshot_alloc();
	if (!snap)
		return -ENOMEM;
	strscpy(snap->name, name, sizeof(snap->name));
	snap->opts = *opts;
	snap->taken = ktime_get_mono_fast_ns();
	ret = word ? print_word(snap, word) : print_cache(snap);
	if (ret) {
		nr = snap->nr;
		if (ret == -ENOMEM)
			pr_warn_ratelimited("print: no memory for a copy of %lu records of %s\n",
					    nr, slabtrace_esc_str(esc, name));
		leak_snapshot_put(snap);
		return ret;
	}
	leak_print_publish(snap, own);
	return 0;
}

/* A step of loading (slab.c): only its parameter to check. */
static int print_init(void)
{
	if (!leak_print_idle || leak_print_idle > 86400) {
		pr_warn("snapshot_idle_secs=%u: not in 1..86400\n",
			leak_print_idle);
		return -EINVAL;
	}
	return 0;
}

/*
 * At module exit, once the traced caches are gone: no reader is left, the
 * module is pinned while open.  The prints kept for users go, then the
 * sweep's work, which takes leak_mutex, is not left queued.
 */
static void print_exit(void)
{
	int i;

	mutex_lock(&leak_mutex);
	sweep_off = true;
	for (i = 0; i < SNAP_USERS; i++)
		if (users[i].snap)
			slot_free(i);
	mutex_unlock(&leak_mutex);
	cancel_delayed_work_sync(&sweep_work);
}

/* "snapshots kept 1 alive 1 bytes 45056" */
static void print_stats(struct seq_file *m)
{
	unsigned long kept, alive;
	size_t mem;

	leak_print_stats(&kept, &alive, &mem);
	seq_printf(m, "snapshots kept %lu alive %lu bytes %zu\n", kept, alive,
		   mem);
}

const struct leak_part leak_prints_part = {
	.step = { "prints", print_init, print_exit },
	.stats = print_stats,
};
