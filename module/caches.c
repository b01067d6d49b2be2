// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: slab cache names to caches, where struct kmem_cache is opaque.
 *
 * SLUB gives every cache a kobject, embedded in struct kmem_cache, and a
 * directory in /sys/kernel/slab/; a name merged into another cache is a
 * symlink to that cache's directory.  A name leads to the kobject through
 * exported calls (kernfs_find_and_get(), kset_find_obj(), which takes a
 * reference safely).  The kobject's offset in struct kmem_cache is
 * calibrated once, against three caches whose addresses kmalloc_caches[]
 * exports, which must agree.  (v6.8 made struct kmem_cache private; before
 * that, include/linux/slub_def.h still needed mm/slab.h to compile, so no
 * module could take offsetof() of it on either kernel.)
 *
 * The kobject reference is what keeps a traced cache's memory: SLUB frees
 * a struct kmem_cache from its kobject's release.  So a destroyed cache's
 * address is not reused for a new cache while slabtrace holds it, and
 * kmem_cache_destroy() shows as the kobject leaving sysfs (kobj->sd cleared
 * by sysfs_remove_dir()).
 *
 * Notes on locking
 * ----------------
 * - slabtrace_mutex: slab_kset and kobj_offset, set once by caches_init().
 *   slabtrace_cache_pin(), called by probes, reads kobj_offset without it
 *   (READ_ONCE; 0 until it is set).
 * - kset_find_obj() takes the kset's list_lock itself.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kernfs.h>
#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <slabtrace/compat.h>
#include <slabtrace/slabtrace.h>

static struct kset *slab_kset;
static unsigned long kobj_offset;

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
	if (kernfs_type(kn) == KERNFS_LINK)
		kobj = kset_find_obj(slab_kset, kn->symlink.target_kn->name);
	else
		kobj = kset_find_obj(slab_kset, kn->name);
	kernfs_put(kn);
	return kobj;
}

static int calibrate(void)
{
	static const char *const names[] = {
		"kmalloc-128", "kmalloc-256", "kmalloc-1k",
	};
	const unsigned int index[] = {
		kmalloc_index(128), kmalloc_index(256), kmalloc_index(1024),
	};
	unsigned long off[ARRAY_SIZE(names)];
	struct kobject *kobj;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		kobj = name_to_kobj(names[i]);
		if (!kobj) {
			pr_err("no /sys/kernel/slab/%s to measure against\n",
			       names[i]);
			return -ENODEV;
		}
		off[i] = (unsigned long)kobj -
			 (unsigned long)kmalloc_caches[KMALLOC_NORMAL][index[i]];
		kobject_put(kobj);
	}
	if (off[0] != off[1] || off[0] != off[2] || off[0] >= PAGE_SIZE ||
	    !IS_ALIGNED(off[0], sizeof(long))) {
		pr_err("cannot place the kobject in struct kmem_cache (offsets %ld %ld %ld)\n",
		       off[0], off[1], off[2]);
		return -ENODEV;
	}
	WRITE_ONCE(kobj_offset, off[0]);
	return 0;
}

/*
 * Done at the first command, not at load: /sys/kernel/slab appears at
 * late_initcall, after a built-in slabtrace initialises.
 */
static int caches_init(void)
{
	struct kernfs_node *kn;
	int ret;

	lockdep_assert_held(&slabtrace_mutex);
	if (slab_kset)
		return 0;
	kn = kernfs_find_and_get(kernel_kobj->sd, "slab");
	if (!kn || kernfs_type(kn) != KERNFS_DIR) {
		kernfs_put(kn);
		pr_err("no /sys/kernel/slab: slabtrace needs SLUB with sysfs\n");
		return -ENODEV;
	}
	slab_kset = kset_get(to_kset(kn->priv));
	kernfs_put(kn);
	ret = calibrate();
	if (ret) {
		kset_put(slab_kset);
		slab_kset = NULL;
	}
	return ret;
}

/**
 * slabtrace_caches_init - find the caches, if not done yet
 *
 * slabtrace_cache_get() does it itself; a user of slabtrace_cache_pin()
 * calls this first.  Called with slabtrace_mutex held.
 *
 * Return: 0, or -ENODEV if caches cannot be found on this kernel.
 */
int slabtrace_caches_init(void)
{
	return caches_init();
}

/**
 * slabtrace_cache_get - find a slab cache by the name /proc/slabinfo shows
 * @name: the name
 * @ref: filled in with the cache and a reference on its kobject
 *
 * Called with slabtrace_mutex held.
 *
 * Return: 0; -ENOENT if there is no such cache; -ENODEV if caches cannot
 * be found on this kernel.
 */
int slabtrace_cache_get(const char *name, struct slabtrace_cache_ref *ref)
{
	struct kobject *kobj;
	int ret;

	ret = caches_init();
	if (ret)
		return ret;
	kobj = name_to_kobj(name);
	if (!kobj)
		return -ENOENT;
	ref->kobj = kobj;
	ref->cache = kobj_to_cache(kobj);
	return 0;
}

void slabtrace_cache_put(struct slabtrace_cache_ref *ref)
{
	kobject_put(ref->kobj);
	ref->kobj = NULL;
	ref->cache = NULL;
}

/**
 * slabtrace_cache_pin - hold a cache a probe sees
 * @s: a cache in use (an object of it is being allocated or freed)
 *
 * A reference on its kobject, as slabtrace_cache_get() takes: @s is not
 * freed, so no new cache takes its address, until slabtrace_cache_unpin(),
 * even if it is destroyed meanwhile.  No lock, no allocation: any context.
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

/* Let a cache slabtrace_cache_pin() held go.  Process context. */
void slabtrace_cache_unpin(struct kobject *kobj)
{
	kobject_put(kobj);
}

/* kmem_cache_destroy() took the cache out of sysfs. */
bool slabtrace_cache_destroyed(const struct slabtrace_cache_ref *ref)
{
	return !READ_ONCE(ref->kobj->sd);
}

struct aliases {
	struct dir_context ctx;
	struct kernfs_node *target;
	const char *skip;
	char *buf;
	size_t size;
	size_t len;
	unsigned int more;
	unsigned int names;	/* every name of the cache, @skip's too */
};

static bool alias_actor(struct dir_context *ctx, const char *name, int len,
			loff_t pos, u64 ino, unsigned int type)
{
	struct aliases *a = container_of(ctx, struct aliases, ctx);
	char n[SLABTRACE_NAME_MAX + 1];
	struct kernfs_node *kn;
	bool match;

	if (type != DT_LNK || len > SLABTRACE_NAME_MAX)
		return true;
	memcpy(n, name, len);
	n[len] = '\0';
	kn = kernfs_find_and_get(slab_kset->kobj.sd, n);
	if (!kn)
		return true;
	match = kernfs_type(kn) == KERNFS_LINK &&
		kn->symlink.target_kn == a->target;
	kernfs_put(kn);
	if (!match)
		return true;
	a->names++;
	if (a->skip && !strcmp(n, a->skip))
		return true;
	if (a->len + len + 3 < a->size)
		a->len += scnprintf(a->buf + a->len, a->size - a->len, "%s%s",
				    a->len ? ", " : "", n);
	else
		a->more++;
	return true;
}

static int walk_aliases(struct aliases *a)
{
	struct file *dir;
	int ret;

	if (!a->target)
		return -ENOENT;
	dir = filp_open("/sys/kernel/slab", O_RDONLY | O_DIRECTORY, 0);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	ret = iterate_dir(dir, &a->ctx);
	fput(dir);
	return ret;
}

/**
 * slabtrace_cache_merged - whether several names share the cache
 * @ref: the cache
 *
 * A mergeable cache has a directory with a unique id (":A-0000176") and a
 * symlink for each name merged into it, one if nothing was: merged means
 * two names or more.
 *
 * Return: 1 if merged, 0 if not, or -errno.
 */
int slabtrace_cache_merged(const struct slabtrace_cache_ref *ref)
{
	struct aliases a = {
		.ctx.actor = alias_actor,
		.target = ref->kobj->sd,
	};
	int ret;

	if (kobject_name(ref->kobj)[0] != ':')
		return 0;
	ret = walk_aliases(&a);
	return ret < 0 ? ret : a.names >= 2;
}

/**
 * slabtrace_cache_aliases - list the other names of a merged cache
 * @ref: the cache
 * @name: the name not to list (the one the user gave)
 * @buf: where to write "name, name, ..."
 * @size: its size
 *
 * Reads /sys/kernel/slab in the caller's mount namespace: sysfs symlinks
 * can only be enumerated through a directory read.
 *
 * Return: the number of names not listed for lack of room, or -errno.
 */
int slabtrace_cache_aliases(const struct slabtrace_cache_ref *ref,
			    const char *name, char *buf, size_t size)
{
	struct aliases a = {
		.ctx.actor = alias_actor,
		.target = ref->kobj->sd,
		.skip = name,
		.buf = buf,
		.size = size,
	};
	int ret;

	buf[0] = '\0';
	ret = walk_aliases(&a);
	return ret < 0 ? ret : a.more;
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

/* Whether @name is one of kmalloc's own caches, of any type. */
static bool is_kmalloc_cache(const char *name)
{
	struct kobject *kobj = name_to_kobj(name);
	struct kmem_cache *s;
	unsigned int t, i;
	bool found = false;

	if (!kobj)
		return false;
	s = kobj_to_cache(kobj);
	for (t = 0; t < NR_KMALLOC_TYPES && !found; t++)
		for (i = 0; i < ARRAY_SIZE(kmalloc_caches[t]) && !found; i++)
			found = kmalloc_caches[t][i] == s;
	kobject_put(kobj);
	return found;
}

/**
 * slabtrace_cache_bucket - whether a cache is one of a kmem_buckets set
 * @name: the cache's name, which slabtrace_cache_get() found
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
 * Called with slabtrace_mutex held.
 *
 * Return: true if it is; always false before v6.11.
 */
bool slabtrace_cache_bucket(const char *name)
{
	char prefix[SLABTRACE_NAME_MAX + 1];
	const char *dash = strrchr(name, '-');
	bool is_suffix = false;
	struct kmem_cache *s;
	unsigned int i, n = 0;

	lockdep_assert_held(&slabtrace_mutex);
	if (!SLABTRACE_HAS_KMEM_BUCKETS || !dash || dash == name ||
	    dash - name > SLABTRACE_NAME_MAX || caches_init())
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

void slabtrace_caches_exit(void)
{
	if (slab_kset)
		kset_put(slab_kset);
	slab_kset = NULL;
}
