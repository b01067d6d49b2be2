// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: slab cache names to caches, and objects to caches, where
 * struct kmem_cache and struct slab are opaque.
 *
 * SLUB gives every cache a kobject, embedded in struct kmem_cache, and a
 * directory in /sys/kernel/slab/; a name merged into another cache is a
 * symlink to that cache's directory.  A name leads to the kobject through
 * exported calls (kernfs_find_and_get(), kset_find_obj(), which takes a
 * reference safely).  The kobject's offset in struct kmem_cache is
 * calibrated once, against three caches whose addresses kmalloc_caches[]
 * exports, which must agree.  (v6.8 made struct kmem_cache private; before
 * that, include/linux/slub_def.h still needed mm/slab.h to compile, so no
 * module could take offsetof() of it on either kernel.)  So is the word
 * of struct slab (mm/slab.h) that points to an object's cache, against
 * objects of the same three caches: kfree() does not say the cache.
 *
 * A command resolves a name once (slabtrace_cache_resolve()), into a
 * reference that carries what the commands want to know of the cache:
 * whether it is one of a kmem_buckets set, and whether other names are
 * merged into it, and which.
 *
 * The kobject reference is what keeps a cache's memory: SLUB frees a
 * struct kmem_cache from its kobject's release.  So a destroyed cache's
 * address is not reused for a new cache while slabtrace holds it, and
 * kmem_cache_destroy() shows as the kobject leaving sysfs (kobj->sd cleared
 * by sysfs_remove_dir()).
 *
 * Notes on locking
 * ----------------
 * - caches_lock (mutex): slab_kset, kobj_offset and slab_cache_word, set
 *   once by slabtrace_caches_init(), the first time a system needs them
 *   (under its own mutex: caches_lock nests inside any system's).
 *   slabtrace_cache_pin() and slabtrace_cache_of_object(), called by
 *   probes, read kobj_offset and slab_cache_word without it (READ_ONCE;
 *   0 until set).
 * - kset_find_obj() takes the kset's list_lock itself; the walks of
 *   /sys/kernel/slab take its inode's lock (iterate_dir()), and 7.3's
 *   kernfs holds its root's rwsem (read) across the directory read's
 *   actor, so the actor only copies names: a lookup there would take the
 *   rwsem again behind a writer (a cache being created) waiting for the
 *   first hold, a deadlock (slabtrace_caches_walk_names());
 *   slabtrace_cache_slab_size() takes kernfs's own lock in
 *   kernfs_find_and_get() and calls the attribute's show(), which takes
 *   none, as a read of the file would.  Their callers may hold their
 *   system's mutex: nothing in sysfs takes one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kernfs.h>
#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <wrapper/fs.h>
#include <wrapper/kmalloc.h>
#include <slabtrace/core.h>

#include "internal.h"

/* caches_lock: see Notes on locking. */
static DEFINE_MUTEX(caches_lock);
static struct kset *slab_kset;
static unsigned long kobj_offset;
/* The word of struct slab that is slab_cache, or 0 if it was not found. */
static unsigned int slab_cache_word;
static bool slab_cache_tried;
/* Words of struct slab searched (it overlays struct page: 8 words). */
#define SLAB_CACHE_WORDS	8

/* What the calibrations measure against: kmalloc caches kmalloc_caches[] gives. */
static const char *const known_names[] = {
	"kmalloc-128", "kmalloc-256", "kmalloc-1k",
};

static const size_t known_sizes[] = { 128, 256, 1024 };

static struct kmem_cache *known_cache(unsigned int i)
{
	const unsigned int index[] = {
		kmalloc_index(128), kmalloc_index(256), kmalloc_index(1024),
	};

	return kmalloc_caches[KMALLOC_NORMAL][index[i]];
}

static struct kmem_cache *kobj_to_cache(struct kobject *kobj)
{
	return (struct kmem_cache *)((char *)kobj - kobj_offset);
}

/* The kobject of the cache called @name, referenced; NULL if none. */
static struct kobject *name_to_kobj(const char *name)
{
	struct kernfs_node *kn;
	struct kobject *kobj;

	kn = kernfs_find_and_get(slab_kset->kobj.sd, name);
	if (!kn)
		return NULL;
	if (kernfs_type(kn) == KERNFS_LINK) {
		kobj = kset_find_obj(slab_kset, kn->symlink.target_kn->name);
		/*
		 * A link SLUB left when its cache went (a module's, unloaded)
		 * points at the removed directory; a cache made since may have
		 * its name (":0001000" is size and flags).  Not that cache.
		 */
		if (kobj && kobj->sd != kn->symlink.target_kn) {
			kobject_put(kobj);
			kobj = NULL;
		}
	} else {
		kobj = kset_find_obj(slab_kset, kn->name);
	}
	kernfs_put(kn);
	return kobj;
}

/* Where struct kmem_cache keeps its kobject.  Called with caches_lock held. */
static int calibrate_kobj(void)
{
	unsigned long off[ARRAY_SIZE(known_names)];
	struct kobject *kobj;
	unsigned int i;

	lockdep_assert_held(&caches_lock);
	for (i = 0; i < ARRAY_SIZE(known_names); i++) {
		kobj = name_to_kobj(known_names[i]);
		if (!kobj) {
			pr_err_ratelimited("no /sys/kernel/slab/%s to measure against\n",
					   known_names[i]);
			return -ENODEV;
		}
		off[i] = (unsigned long)kobj - (unsigned long)known_cache(i);
		kobject_put(kobj);
	}
	if (off[0] != off[1] || off[0] != off[2] || off[0] >= PAGE_SIZE ||
	    !IS_ALIGNED(off[0], sizeof(long))) {
		pr_err_ratelimited("cannot place the kobject in struct kmem_cache (offsets %ld %ld %ld)\n",
				   off[0], off[1], off[2]);
		return -ENODEV;
	}
	WRITE_ONCE(kobj_offset, off[0]);
	return 0;
}

/*
 * struct slab is mm/slab.h's, private: find its slab_cache pointer (the
 * word after the page flags on 6.12, after a two-word union on 6.1), and
 * believe a word only if objects of the three caches agree on it.  Called
 * with caches_lock held.
 */
static void calibrate_slab(void)
{
	void *obj[ARRAY_SIZE(known_sizes)] = { };
	struct kmem_cache **slab;
	unsigned int i, word, found = 0;

	lockdep_assert_held(&caches_lock);
	for (i = 0; i < ARRAY_SIZE(known_sizes); i++) {
		obj[i] = kmalloc(known_sizes[i], GFP_KERNEL);
		if (!obj[i] || !folio_test_slab(virt_to_folio(obj[i])))
			goto out;
	}
	for (word = 1; word < SLAB_CACHE_WORDS && !found; word++) {
		for (i = 0; i < ARRAY_SIZE(known_sizes); i++) {
			slab = (struct kmem_cache **)virt_to_folio(obj[i]);
			if (slab[word] != known_cache(i))
				break;
		}
		if (i == ARRAY_SIZE(known_sizes))
			found = word;
	}
out:
	for (i = 0; i < ARRAY_SIZE(known_sizes); i++)
		kfree(obj[i]);
	WRITE_ONCE(slab_cache_word, found);
	if (!found)
		pr_warn("cannot find an object's cache: kfree() events carry none\n");
}

/**
 * slabtrace_caches_init - find the caches and calibrate, if not done yet
 *
 * Done at the first need, not at load: /sys/kernel/slab appears at
 * late_initcall, after a built-in slabtrace initialises.  The object to
 * cache calibration is tried once, whatever sysfs says.
 *
 * Return: 0, or -ENODEV if names cannot be found on this kernel.
 */
int slabtrace_caches_init(void)
{
	struct kernfs_node *kn;
	int ret = 0;

	mutex_lock(&caches_lock);
	if (!slab_cache_tried) {
		slab_cache_tried = true;
		calibrate_slab();
	}
	if (slab_kset)
		goto out;
	kn = kernfs_find_and_get(kernel_kobj->sd, "slab");
	if (!kn || kernfs_type(kn) != KERNFS_DIR) {
		kernfs_put(kn);
		pr_err_ratelimited("no /sys/kernel/slab: slabtrace needs SLUB with sysfs\n");
		ret = -ENODEV;
		goto out;
	}
	slab_kset = kset_get(to_kset(kn->priv));
	kernfs_put(kn);
	ret = calibrate_kobj();
	if (ret) {
		kset_put(slab_kset);
		slab_kset = NULL;
	}
out:
	mutex_unlock(&caches_lock);
	return ret;
}

/**
 * slabtrace_cache_of_object - the cache an object belongs to
 * @obj: a slab object, or a page-allocator kmalloc() block
 * @known: set to whether the answer can be trusted (the calibration of
 *	   slabtrace_caches_init() found the word)
 *
 * No lock, no allocation: any context.
 *
 * Return: the cache, or NULL for memory that is not a slab's.
 */
struct kmem_cache *slabtrace_cache_of_object(const void *obj, bool *known)
{
	unsigned int word = READ_ONCE(slab_cache_word);
	struct folio *folio = virt_to_folio(obj);

	*known = word != 0;
	if (!word || !folio_test_slab(folio))
		return NULL;
	return ((struct kmem_cache **)folio)[word];
}

/* A name of /sys/kernel/slab, as the directory read gave it. */
struct walk_name {
	char name[SLABTRACE_NAME_MAX + 1];
	u64 ino;
};

struct name_walk {
	struct dir_context ctx;
	struct walk_name *v;
	unsigned int n, room;
};

/*
 * The directory read's actor: copies the name, nothing more (no lookup:
 * see the locking notes above).  Past @room it counts one more and stops
 * the read, which is then made again with more room.
 */
static bool name_actor(struct dir_context *ctx, const char *name, int len,
		       loff_t pos, u64 ino, unsigned int type)
{
	struct name_walk *w = container_of(ctx, struct name_walk, ctx);

	if (len > SLABTRACE_NAME_MAX || name[0] == '.')
		return true;
	if (w->n == w->room) {
		w->n++;
		return false;
	}
	memcpy(w->v[w->n].name, name, len);
	w->v[w->n].name[len] = '\0';
	w->v[w->n].ino = ino;
	w->n++;
	return true;
}

/* Every name of /sys/kernel/slab into @w (a read again with more room if needed). */
static int read_names(struct name_walk *w)
{
	unsigned int room = 512;
	struct file *dir;
	int ret;

	for (;;) {
		w->v = kvmalloc_array(room, sizeof(*w->v), SLABTRACE_GFP_BIG);
		if (!w->v)
			return -ENOMEM;
		w->room = room;
		w->n = 0;
		dir = slabtrace_filp_open("/sys/kernel/slab",
					  O_RDONLY | O_DIRECTORY);
		if (IS_ERR(dir))
			return PTR_ERR(dir);
		ret = iterate_dir(dir, &w->ctx);
		fput(dir);
		if (ret || w->n <= w->room)
			return ret;
		kvfree(w->v);
		w->v = NULL;
		room *= 2;
	}
}

/**
 * slabtrace_caches_walk_names - every name of /sys/kernel/slab
 * @fn: called with each name, the cache it leads to (to compare with
 *	caches the caller holds: no reference is taken) and the inode
 *	number of its sysfs entry; false stops
 * @arg: passed to @fn
 *
 * Reads /sys/kernel/slab in the caller's mount namespace (a kernel
 * thread's: userspace's first, <wrapper/fs.h>): sysfs symlinks can only be
 * enumerated through a directory read.  The names are copied during the
 * read and looked up after it.  Process context, slabtrace_caches_init()
 * done.
 *
 * Return: 0 or -errno.
 */
int slabtrace_caches_walk_names(slabtrace_cache_name_fn_t fn, void *arg)
{
	struct name_walk w = { .ctx.actor = name_actor };
	struct kernfs_node *kn, *dir;
	const struct kmem_cache *s;
	unsigned int i;
	int ret;

	ret = read_names(&w);
	for (i = 0; !ret && i < w.n; i++) {
		kn = kernfs_find_and_get(slab_kset->kobj.sd, w.v[i].name);
		if (!kn)
			continue;
		dir = kernfs_type(kn) == KERNFS_LINK ? kn->symlink.target_kn : kn;
		/*
		 * SLUB leaves a merged name's link when its cache goes (a
		 * module's, unloaded): its target removed (kernfs_active()
		 * false), whose priv is a freed cache.  No cache by that name.
		 */
		if (atomic_read(&dir->active) < 0) {
			kernfs_put(kn);
			continue;
		}
		s = kobj_to_cache(dir->priv);
		kernfs_put(kn);
		if (!fn(arg, w.v[i].name, s, w.v[i].ino))
			break;
	}
	kvfree(w.v);
	return ret;
}

/*
 * Add @name to the list in @buf ("name, name, ..."; @len bytes so far),
 * escaped as every name a user may have chosen is shown (SLABTRACE_ESCAPE):
 * a space or a comma in a name cannot split it.  A name that does not fit
 * is counted in @more.
 */
static void alias_add(char *buf, size_t size, size_t *len, int *more,
		      const char *name)
{
	size_t at = *len + (*len ? 2 : 0);
	int n;

	if (at + 1 < size) {
		n = string_escape_mem(name, strlen(name), buf + at,
				      size - at - 1, SLABTRACE_ESCAPE,
				      SLABTRACE_ESCAPE_ALSO);
		if (n < size - at) {
			if (*len)
				memcpy(buf + *len, ", ", 2);
			*len = at + n;
			buf[*len] = '\0';
			return;
		}
	}
	buf[*len] = '\0';	/* what a name that did not fit wrote */
	(*more)++;
}

/* The names of a merged cache: its own directory (":0000064") is no name. */
struct aliases {
	struct slabtrace_cache_ref *ref;
	const char *skip;		/* the name the user gave */
	size_t len;
	unsigned int names;		/* every name of the cache, @skip's too */
};

static bool alias_of(void *arg, const char *name, const struct kmem_cache *s,
		     u64 ino)
{
	struct aliases *a = arg;

	if (s != a->ref->cache || name[0] == ':')
		return true;
	a->names++;
	if (!strcmp(name, a->skip))
		return true;
	alias_add(a->ref->aliases, sizeof(a->ref->aliases), &a->len,
		  &a->ref->aliases_more, name);
	return true;
}

/*
 * Whether other names share @ref's cache, and which.  A mergeable cache
 * has a directory with a unique id (":A-0000176") and a symlink for each
 * name merged into it, one if nothing was: merged means two names or
 * more.  Any other cache is a directory of its own name.
 */
static void find_aliases(struct slabtrace_cache_ref *ref, const char *name)
{
	struct aliases a = { .ref = ref, .skip = name };
	int ret;

	ref->merged = 0;
	ref->aliases_more = 0;
	ref->aliases[0] = '\0';
	if (kobject_name(ref->kobj)[0] != ':')
		return;
	ret = slabtrace_caches_walk_names(alias_of, &a);
	ref->merged = ret < 0 ? ret : a.names >= 2;
}

/* "64", "8k", "2M": how a kmalloc cache's name gives its size. */
static void size_suffix(char *buf, size_t size, unsigned int bytes)
{
	if (bytes >= SZ_1M && !(bytes % SZ_1M))
		snprintf(buf, size, "%uM", bytes / SZ_1M);
	else if (bytes >= SZ_1K && !(bytes % SZ_1K))
		snprintf(buf, size, "%uk", bytes / SZ_1K);
	else
		snprintf(buf, size, "%u", bytes);
}

/*
 * Whether "@prefix-SUFFIX" is a cache of its own, of the size of @kmalloc
 * ("kmalloc-SUFFIX"); and whether @suffix (if not NULL) is SUFFIX.
 */
static bool bucket_of(const char *prefix, struct kmem_cache *kmalloc,
		      const char *suffix, bool *is_suffix)
{
	char sfx[16], name[SLABTRACE_NAME_MAX + 1];
	struct kobject *kobj, *kkobj;
	unsigned int bytes = kmem_cache_size(kmalloc);
	bool ok;

	size_suffix(sfx, sizeof(sfx), bytes);
	/* The suffix must be kmalloc's own: "kmalloc-SUFFIX" is @kmalloc. */
	snprintf(name, sizeof(name), "kmalloc-%s", sfx);
	kkobj = name_to_kobj(name);
	ok = kkobj && kobj_to_cache(kkobj) == kmalloc;
	kobject_put(kkobj);
	if (!ok || snprintf(name, sizeof(name), "%s-%s", prefix, sfx) >=
		   sizeof(name))
		return false;
	kobj = name_to_kobj(name);
	ok = kobj && kobj != kkobj && kmem_cache_size(kobj_to_cache(kobj)) == bytes;
	kobject_put(kobj);
	if (ok && suffix && !strcmp(suffix, sfx))
		*is_suffix = true;
	return ok;
}

/**
 * slabtrace_cache_is_kmalloc - whether a cache is one of kmalloc's own
 * @s: the cache
 *
 * Of any type: kmalloc-N, kmalloc-cg-N, kmalloc-rcl-N, dma-kmalloc-N
 * (kmalloc_caches[][], exported).
 */
bool slabtrace_cache_is_kmalloc(const struct kmem_cache *s)
{
	unsigned int t, i;

	for (t = 0; t < NR_KMALLOC_TYPES; t++)
		for (i = 0; i < ARRAY_SIZE(kmalloc_caches[t]); i++)
			if (s && kmalloc_caches[t][i] == s)
				return true;
	return false;
}

/* Whether @name is one of kmalloc's own caches, of any type. */
static bool is_kmalloc_cache(const char *name)
{
	struct kobject *kobj = name_to_kobj(name);
	bool found;

	if (!kobj)
		return false;
	found = slabtrace_cache_is_kmalloc(kobj_to_cache(kobj));
	kobject_put(kobj);
	return found;
}

/**
 * is_bucket - whether a cache is one of a kmem_buckets set
 * @name: the cache's name, which leads to a cache
 *
 * kmem_buckets_create(PREFIX, ...) (v6.11) makes one cache for each
 * kmalloc cache, "PREFIX-8" ... "PREFIX-8k", of its size and never
 * merged: "memdup_user-64", "msg_msg-64" on Debian's 6.12.  Their
 * allocations go through kmalloc, whose tracepoint carries no cache
 * pointer, so slabtrace counts them in the kmalloc-N cache of their size:
 * tracing one by its own name would record nothing.  A cache is taken for
 * one by what it is, not by its name: @name is PREFIX-SUFFIX, and
 * PREFIX-S exists, a cache of its own with kmalloc-S's object size, for
 * every kmalloc cache kmalloc-S, SUFFIX among them, and it is not one of
 * kmalloc's own (kmalloc-rcl-N, kmalloc-cg-N, dma-kmalloc-N are sets
 * too).  (A module that made such a set with kmem_cache_create() would be
 * refused too.)
 *
 * Return: true if it is; always false before v6.11.
 */
static bool is_bucket(const char *name)
{
	char prefix[SLABTRACE_NAME_MAX + 1];
	const char *dash = strrchr(name, '-');
	bool is_suffix = false;
	struct kmem_cache *s;
	unsigned int i, n = 0;

	if (!SLABTRACE_HAS_KMEM_BUCKETS || !dash || dash == name ||
	    dash - name > SLABTRACE_NAME_MAX)
		return false;
	memcpy(prefix, name, dash - name);
	prefix[dash - name] = '\0';
	/* kmalloc-rcl-N, kmalloc-cg-N, dma-kmalloc-N: complete sets too. */
	if (is_kmalloc_cache(name))
		return false;
	for (i = 0; i < ARRAY_SIZE(kmalloc_caches[KMALLOC_NORMAL]); i++) {
		s = kmalloc_caches[KMALLOC_NORMAL][i];
		if (!s)
			continue;
		if (!bucket_of(prefix, s, dash + 1, &is_suffix))
			return false;
		n++;
	}
	return n && is_suffix;
}

/**
 * slabtrace_name_hint - the name meant by an unknown cache name
 * @name: the name that is no cache
 * @buf: where the name meant goes
 * @size: its size
 *
 * kmalloc caches of 1024 bytes and more are named in kilobytes:
 * "kmalloc-8192" is "kmalloc-8k" (also "kmalloc-cg-8192", "dma-kmalloc-...").
 * slabtrace_caches_init() done.
 *
 * Return: whether a cache of the name meant exists, in @buf.
 */
VISIBLE_IF_KUNIT bool slabtrace_name_hint(const char *name, char *buf,
					  size_t size)
{
	const char *dash = strrchr(name, '-');
	struct kobject *kobj;
	unsigned int n;

	if (!dash || kstrtouint(dash + 1, 10, &n) || n < 1024 || n % 1024)
		return false;
	if (snprintf(buf, size, "%.*s-%uk", (int)(dash - name), name,
		     n / 1024) >= size)
		return false;
	kobj = name_to_kobj(buf);
	kobject_put(kobj);
	return kobj;
}

/*
 * The log line of @name, which is no cache: with the name meant when there
 * is one.  Not inlined: its buffers are on the stack of that line only.
 */
static noinline void log_no_cache(const char *cmd, const char *name)
{
	char meant[SLABTRACE_NAME_MAX + 1], esc[SLABTRACE_ESC_SIZE];
	char esc_meant[SLABTRACE_ESC_SIZE];

	if (slabtrace_name_hint(name, meant, sizeof(meant)))
		pr_warn_ratelimited("%s: no slab cache named '%s' (did you mean %s?)\n",
				    cmd, slabtrace_esc_str(esc, name),
				    slabtrace_esc_str(esc_meant, meant));
	else
		pr_warn_ratelimited("%s: no slab cache named '%s'\n", cmd,
				    slabtrace_esc_str(esc, name));
}

/**
 * slabtrace_cache_resolve - a cache name, as /proc/slabinfo shows it, to a cache
 * @cmd: the command asking, the first word of its log lines
 * @name: the name
 * @ref: filled in: the cache, a reference on its kobject, and what is
 *	 known of it (struct slabtrace_cache_ref); slabtrace_cache_put()
 *	 lets it go
 *
 * A name that is no cache is said in one log line, with the name meant
 * when there is one ("did you mean kmalloc-8k?").
 *
 * Return: 0; -ENAMETOOLONG for a name longer than SLABTRACE_NAME_MAX;
 * -ENOENT if there is no such cache; -ENODEV if caches cannot be found on
 * this kernel.
 */
int slabtrace_cache_resolve(const char *cmd, const char *name,
			    struct slabtrace_cache_ref *ref)
{
	struct kobject *kobj;
	int ret;

	if (strlen(name) > SLABTRACE_NAME_MAX) {
		pr_warn_ratelimited("%s: cache name longer than %d bytes\n", cmd,
				    SLABTRACE_NAME_MAX);
		return -ENAMETOOLONG;
	}
	ret = slabtrace_caches_init();
	if (ret) {
		pr_warn_ratelimited("%s: cannot look up slab caches on this kernel (%d)\n",
				    cmd, ret);
		return ret;
	}
	kobj = name_to_kobj(name);
	if (!kobj) {
		log_no_cache(cmd, name);
		return -ENOENT;
	}
	ref->kobj = kobj;
	ref->cache = kobj_to_cache(kobj);
	ref->bucket = is_bucket(name);
	find_aliases(ref, name);
	return 0;
}

/* One cache of slabtrace_caches_each(), and its names. */
struct each_cache {
	const struct kmem_cache *cache;
	u64 ino;				/* of @name in sysfs */
	char name[SLABTRACE_NAME_MAX + 1];	/* the one it goes by */
	char aliases[256];			/* the others */
	size_t len;
	int aliases_more;
	unsigned int names;
};

struct each_walk {
	struct each_cache *v;
	unsigned int n, room;
	int pass;			/* 0: count names, 1: names, 2: aliases */
};

/*
 * The name a cache goes by: kmalloc's own for a kmalloc cache; else the
 * name the cache was created with, which /proc/slabinfo shows: SLUB makes
 * its link right after the cache's directory, before any alias of a cache
 * merged into it, so it has the lowest inode number of the cache's names
 * (kernfs gives them out in increasing order).
 */
static bool better_name(const struct each_cache *c, const char *name, u64 ino)
{
	bool kmalloc = slabtrace_cache_is_kmalloc(c->cache);
	bool was = !strncmp(c->name, "kmalloc-", 8) ||
		   !strncmp(c->name, "dma-kmalloc-", 12);
	bool is = !strncmp(name, "kmalloc-", 8) ||
		  !strncmp(name, "dma-kmalloc-", 12);

	if (kmalloc && is != was)
		return is;
	return ino < c->ino;
}

static bool each_actor(void *arg, const char *name, const struct kmem_cache *s,
		       u64 ino)
{
	struct each_walk *w = arg;
	struct each_cache *c = NULL;
	unsigned int i;

	/* A merged cache's own directory (":0000064") is no name. */
	if (name[0] == ':')
		return true;
	if (!w->pass) {
		w->room++;
		return true;
	}
	for (i = 0; i < w->n && !c; i++)
		if (w->v[i].cache == s)
			c = &w->v[i];
	if (w->pass == 1) {
		if (!c) {
			if (w->n == w->room)
				return true;	/* a name added since the count */
			c = &w->v[w->n++];
			c->cache = s;
			c->ino = ino;
			strscpy(c->name, name, sizeof(c->name));
		} else if (better_name(c, name, ino)) {
			c->ino = ino;
			strscpy(c->name, name, sizeof(c->name));
		}
		return true;
	}
	if (!c || !strcmp(name, c->name))
		return true;
	c->names++;
	alias_add(c->aliases, sizeof(c->aliases), &c->len, &c->aliases_more,
		  name);
	return true;
}

/**
 * slabtrace_caches_each - every slab cache, once, resolved
 * @fn: called with each cache's name (the one it goes by: kmalloc's for a
 *	kmalloc cache, else the one it was created with, as /proc/slabinfo
 *	shows it) and a reference to it as
 *	slabtrace_cache_resolve() gives, which @fn takes over (it puts it
 *	if it keeps nothing); a negative return stops the walk with it
 * @arg: passed to @fn
 *
 * Three reads of /sys/kernel/slab (as slabtrace_caches_walk_names()),
 * however many caches, and no walk per cache for its aliases.  Process
 * context, slabtrace_caches_init() done.
 *
 * Return: 0, -ENOMEM, or the error of a walk or of @fn.
 */
int slabtrace_caches_each(slabtrace_cache_ref_fn_t fn, void *arg)
{
	struct each_walk w = { };
	struct slabtrace_cache_ref ref;
	struct each_cache *c;
	unsigned int i;
	int ret;

	for (w.pass = 0; w.pass < 3; w.pass++) {
		if (w.pass == 1) {
			w.v = kvcalloc(w.room, sizeof(*w.v), SLABTRACE_GFP_BIG);
			if (!w.v)
				return -ENOMEM;
		}
		ret = slabtrace_caches_walk_names(each_actor, &w);
		if (ret)
			goto out;
	}
	for (i = 0; i < w.n; i++) {
		c = &w.v[i];
		memset(&ref, 0, sizeof(ref));
		ref.kobj = name_to_kobj(c->name);
		if (!ref.kobj)
			continue;	/* destroyed meanwhile */
		ref.cache = kobj_to_cache(ref.kobj);
		if (ref.cache != c->cache) {
			slabtrace_cache_put(&ref);
			continue;
		}
		ref.bucket = is_bucket(c->name);
		ref.merged = c->names >= 1;
		ref.aliases_more = c->aliases_more;
		strscpy(ref.aliases, c->aliases, sizeof(ref.aliases));
		ret = fn(arg, c->name, &ref);
		if (ret < 0)
			break;
	}
out:
	kvfree(w.v);
	return ret < 0 ? ret : 0;
}

void slabtrace_cache_put(struct slabtrace_cache_ref *ref)
{
	kobject_put(ref->kobj);
	ref->kobj = NULL;
	ref->cache = NULL;
}

/* kmem_cache_destroy() took the cache of @kobj, held, out of sysfs. */
bool slabtrace_kobj_destroyed(const struct kobject *kobj)
{
	return !READ_ONCE(kobj->sd);
}

/* The same for @ref's cache (never: no kobject). */
bool slabtrace_cache_destroyed(const struct slabtrace_cache_ref *ref)
{
	return ref->kobj && slabtrace_kobj_destroyed(ref->kobj);
}

/**
 * slabtrace_cache_pin - hold a cache a probe sees
 * @s: a cache in use (an object of it is being allocated or freed)
 *
 * A reference on its kobject, as slabtrace_cache_resolve() takes: @s is
 * not freed, so no new cache takes its address, until
 * slabtrace_cache_unpin(), even if it is destroyed meanwhile.  No lock, no
 * allocation: any context.
 *
 * Return: the kobject, for slabtrace_cache_unpin(); NULL if the caches
 * were not found (slabtrace_caches_init()) or @s has no live kobject.
 */
struct kobject *slabtrace_cache_pin(const struct kmem_cache *s)
{
	unsigned long off = READ_ONCE(kobj_offset);

	if (!off)
		return NULL;
	return kobject_get_unless_zero((struct kobject *)((char *)s + off));
}

/**
 * slabtrace_cache_slab_size - the bytes an object of a cache takes in its slab
 * @kobj: the cache's kobject, held (slabtrace_cache_pin() or a reference)
 *
 * What the cache's slab_size file in /sys/kernel/slab says: the object
 * with its alignment and debugging metadata (SLUB's s->size, private to
 * mm/, what the kmem_cache_alloc tracepoint gives ftrace and perf as
 * bytes_alloc).  The attribute's show() is called as sysfs would
 * (kernfs: a sysfs file's node has its struct attribute as priv), found
 * under the cache's directory of /sys/kernel/slab, which must still be
 * @kobj's: no mount is needed.  Process context, slabtrace_caches_init()
 * done.
 *
 * Return: the size, or 0 if the cache has left sysfs (destroyed) or the
 * file cannot be read.
 */
unsigned int slabtrace_cache_slab_size(struct kobject *kobj)
{
	const struct sysfs_ops *ops = kobj->ktype ? kobj->ktype->sysfs_ops : NULL;
	struct kernfs_node *dir, *kn = NULL;
	unsigned int size = 0;
	char *page = NULL;

	if (!slab_kset || !ops || !ops->show)
		return 0;
	dir = kernfs_find_and_get(slab_kset->kobj.sd, kobject_name(kobj));
	if (!dir)
		return 0;
	if (kernfs_type(dir) != KERNFS_DIR || dir->priv != kobj)
		goto out;
	kn = kernfs_find_and_get(dir, "slab_size");
	if (!kn || kernfs_type(kn) != KERNFS_FILE)
		goto out;
	/* show() writes with sysfs_emit(): a page, page-aligned. */
	page = (char *)__get_free_page(GFP_KERNEL);
	if (!page)
		goto out;
	if (ops->show(kobj, kn->priv, page) > 0 &&
	    kstrtouint(strim(page), 10, &size))
		size = 0;
out:
	free_page((unsigned long)page);
	kernfs_put(kn);
	kernfs_put(dir);
	return size;
}

/* Let a cache slabtrace_cache_pin() held go.  Process context. */
void slabtrace_cache_unpin(struct kobject *kobj)
{
	kobject_put(kobj);
}

/* At module exit, once no system holds a cache. */
void slabtrace_caches_exit(void)
{
	mutex_lock(&caches_lock);
	if (slab_kset)
		kset_put(slab_kset);
	slab_kset = NULL;
	mutex_unlock(&caches_lock);
}
