// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: its files, one tree in two places.
 *
 * A file is declared once, as a struct slabtrace_file in its system's
 * table, and made twice: in /proc/slabtrace/, which lockdown leaves alone
 * (Secure Boot's lockdown=integrity refuses every debugfs file that can be
 * written or mapped), and in /sys/kernel/debug/slabtrace/, wherever debugfs
 * allows it.  Both inodes lead to the same struct slabtrace_file
 * (i_private), and its file_operations serve both trees: debugfs calls
 * them itself (debugfs_create_file_unsafe(); its open pins the module
 * through fops->owner), procfs through the one struct proc_ops below,
 * which dispatches every call to them, and whose open pins the module
 * until the file's release.  Once the module is live an open file pins
 * it: rmmod fails (EAGAIN, "in use") while one is open, mapped or
 * polled, and nothing a file uses goes before the file is closed.
 *
 * A load that fails is another matter: the module is freed whatever its
 * references (do_init_module()).  debugfs revokes nothing: a debugfs file
 * opened while a load fails would keep the freed module's
 * file_operations.  procfs revokes the files it removes (proc_remove()
 * waits for their handlers and calls their release), but not what an open
 * file left behind: a mapping of a stream's buffer (relay frees it), a
 * poll() queued on a wait queue of the module; and a read sleeping in a
 * file would hold the failing load in proc_remove().  So the debugfs tree
 * is made last, once every system is up (slabtrace_files_mirror(), a step
 * that cannot fail), and until then the procfs files refuse to open
 * (EAGAIN): no file is open while the load can still fail.  The trees go
 * at module exit (slabtrace_files_exit()), when no file can be open,
 * before any system tears down (main.c); on a failed load, when only
 * procfs's exist, none open.
 *
 * Notes on locking
 * ----------------
 * - files_lock (mutex): the directories, the list of files made, each
 *   file's dentry and pde, and whether the debugfs tree is made.  Taken
 *   inside a system's mutex (kptrace's commands set its queue's size), and
 *   before an inode's lock.
 * - Removing a file waits for its handlers that are running (procfs), and
 *   they may take a system's mutex or files_lock: no file is removed with
 *   either held.  The pointers are taken out under files_lock first.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/proc_fs.h>
#include <linux/string.h>

#include <slabtrace/files.h>

/* Directories: the root, and those the tables name ("kmemtrace", "a/b"). */
#define MAX_DIRS	16
#define DIR_PATH_MAX	32

struct st_dir {
	char path[DIR_PATH_MAX];	/* "" for the root */
	const char *name;		/* its last component */
	unsigned int parent;		/* index in dirs[]; the root's is 0 */
	struct dentry *dentry;		/* in debugfs, or NULL */
	struct proc_dir_entry *pde;	/* in procfs, or NULL */
};

/* files_lock: see Notes on locking. */
static DEFINE_MUTEX(files_lock);
static struct st_dir dirs[MAX_DIRS];
static unsigned int nr_dirs;
static LIST_HEAD(files_made);
/*
 * The debugfs tree is made (slabtrace_files_mirror()): new files go in it,
 * and the files open.  Read without the lock by the opens.
 */
static bool mirrored;

/*
 * procfs: every call goes to the file's own file_operations.  A missing
 * one gives what the VFS gives for a file without it.
 */
static int proc_file_open(struct inode *inode, struct file *file)
{
	const struct slabtrace_file *f = slabtrace_file_of(inode);
	int ret = 0;

	/* Not while the load can still fail (above). */
	if (!READ_ONCE(mirrored)) {
		pr_warn_ratelimited("%s: not open until the module has loaded\n",
				    f->name);
		return -EAGAIN;
	}
	/* As fops_get() does for debugfs: no open once rmmod has begun. */
	if (!try_module_get(THIS_MODULE))
		return -ENODEV;
	if (f->fops->open)
		ret = f->fops->open(inode, file);
	if (ret)
		module_put(THIS_MODULE);
	return ret;
}

/*
 * At close (procfs would call it at the file's removal for a file still
 * open: none is then, the pin keeping the module loaded while one is,
 * and none opening while a load can fail).  The module reference goes
 * last.
 */
static int proc_file_release(struct inode *inode, struct file *file)
{
	const struct slabtrace_file *f = slabtrace_file_of(inode);
	int ret = 0;

	if (f->fops->release)
		ret = f->fops->release(inode, file);
	module_put(THIS_MODULE);
	return ret;
}

static ssize_t proc_file_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	const struct slabtrace_file *f = slabtrace_file_of(file_inode(file));

	return f->fops->read ? f->fops->read(file, buf, count, ppos) : -EINVAL;
}

static ssize_t proc_file_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	const struct slabtrace_file *f = slabtrace_file_of(file_inode(file));

	return f->fops->write ? f->fops->write(file, buf, count, ppos) : -EINVAL;
}

static loff_t proc_file_lseek(struct file *file, loff_t offset, int whence)
{
	const struct slabtrace_file *f = slabtrace_file_of(file_inode(file));

	return f->fops->llseek ? f->fops->llseek(file, offset, whence) : -ESPIPE;
}

static __poll_t proc_file_poll(struct file *file, poll_table *wait)
{
	const struct slabtrace_file *f = slabtrace_file_of(file_inode(file));

	return f->fops->poll ? f->fops->poll(file, wait) : DEFAULT_POLLMASK;
}

static int proc_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	const struct slabtrace_file *f = slabtrace_file_of(file_inode(file));

	return f->fops->mmap ? f->fops->mmap(file, vma) : -ENODEV;
}

static long proc_file_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	const struct slabtrace_file *f = slabtrace_file_of(file_inode(file));

	return f->fops->unlocked_ioctl ?
	       f->fops->unlocked_ioctl(file, cmd, arg) : -ENOTTY;
}

#ifdef CONFIG_COMPAT
static long proc_file_compat_ioctl(struct file *file, unsigned int cmd,
				   unsigned long arg)
{
	const struct slabtrace_file *f = slabtrace_file_of(file_inode(file));

	return f->fops->compat_ioctl ?
	       f->fops->compat_ioctl(file, cmd, arg) : -ENOTTY;
}
#endif

static const struct proc_ops proc_file_ops = {
	.proc_open = proc_file_open,
	.proc_release = proc_file_release,
	.proc_read = proc_file_read,
	.proc_write = proc_file_write,
	.proc_lseek = proc_file_lseek,
	.proc_poll = proc_file_poll,
	.proc_mmap = proc_file_mmap,
	.proc_ioctl = proc_file_ioctl,
#ifdef CONFIG_COMPAT
	.proc_compat_ioctl = proc_file_compat_ioctl,
#endif
};

/* @d in debugfs, in its parent; nothing if debugfs has no room for it. */
static void mirror_dir(struct st_dir *d)
{
	struct dentry *parent = d == dirs ? NULL : dirs[d->parent].dentry;

	lockdep_assert_held(&files_lock);
	if (d != dirs && !parent)
		return;
	d->dentry = debugfs_create_dir(d->name, parent);
	if (IS_ERR(d->dentry))
		d->dentry = NULL;
}

/* @f in debugfs, in @dir; nothing if debugfs has no room for it. */
static void mirror_file(struct st_dir *dir, struct slabtrace_file *f)
{
	struct dentry *d;

	lockdep_assert_held(&files_lock);
	if (!dir->dentry)
		return;
	d = debugfs_create_file_unsafe(f->name, f->mode, dir->dentry, f,
				       f->fops);
	f->dentry = IS_ERR(d) ? NULL : d;
}

/*
 * The directory of @path, made in procfs at its first use, and in debugfs
 * too once the debugfs tree is made.  Called with files_lock held.
 */
static struct st_dir *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	char up[DIR_PATH_MAX];
	struct st_dir *parent, *d;
	unsigned int i;

	lockdep_assert_held(&files_lock);
	for (i = 0; i < nr_dirs; i++)
		if (!strcmp(dirs[i].path, path))
			return &dirs[i];
	if (!nr_dirs)
		return ERR_PTR(-ENODEV);	/* before init or after exit */
	if (WARN_ON_ONCE(!*name || strlen(path) >= DIR_PATH_MAX))
		return ERR_PTR(-EINVAL);
	strscpy(up, path, slash ? slash - path + 1 : 1);
	parent = dir_of(up);
	if (IS_ERR(parent))
		return parent;
	/* After the parent's: making it may have taken the last slot. */
	if (WARN_ON_ONCE(nr_dirs == MAX_DIRS))
		return ERR_PTR(-EINVAL);
	d = &dirs[nr_dirs];
	strscpy(d->path, path, DIR_PATH_MAX);
	d->name = d->path + (name - path);
	d->parent = parent - dirs;
	d->pde = parent->pde ? proc_mkdir_mode(name, 0500, parent->pde) : NULL;
	if (parent->pde && !d->pde)
		return ERR_PTR(-ENOMEM);
	if (mirrored)
		mirror_dir(d);
	nr_dirs++;
	return d;
}

/* Make @f in @dir's trees.  Called with files_lock held. */
static int make(struct st_dir *dir, struct slabtrace_file *f)
{
	lockdep_assert_held(&files_lock);
	/* procfs's inode has read and write; the _iter forms are not passed. */
	if (WARN_ON_ONCE(f->fops->read_iter || f->fops->write_iter))
		return -EINVAL;
	if (dir->pde) {
		f->pde = proc_create_data(f->name, f->mode, dir->pde,
					  &proc_file_ops, f);
		/* debugfs may lack a file; procfs, where there is one, may not. */
		if (!f->pde) {
			pr_err("cannot create the file %s\n", f->name);
			return -ENOMEM;
		}
	}
	if (mirrored)
		mirror_file(dir, f);
	/* Listed, for the debugfs tree and the removal. */
	f->dir = dir - dirs + 1;
	list_add_tail(&f->node, &files_made);
	return 0;
}

/**
 * slabtrace_files_add - make files in both trees
 * @dir: their directory: "" for the root, else a path below it ("kmemtrace")
 * @files: their declarations; the core fills in dentry, pde, dir and node, and
 *	   keeps them until slabtrace_files_remove() or slabtrace_files_exit()
 * @nr: how many
 *
 * In procfs at once; in debugfs at once if its tree is made, else with
 * it.  Not with a system's mutex held (a failure removes what was made).
 *
 * Return: 0, or -errno with none of them made.
 */
int slabtrace_files_add(const char *dir, struct slabtrace_file *files,
			unsigned int nr)
{
	struct st_dir *d;
	unsigned int i = 0;
	int ret;

	if (!nr)
		return 0;
	mutex_lock(&files_lock);
	d = dir_of(dir);
	ret = PTR_ERR_OR_ZERO(d);
	for (; !ret && i < nr; i++) {
		ret = make(d, &files[i]);
		if (ret)
			break;
	}
	mutex_unlock(&files_lock);
	if (ret)
		slabtrace_files_remove(files, nr);
	return ret;
}

/**
 * slabtrace_files_remove - remove files from both trees
 * @files: as given to slabtrace_files_add(); those not made, or removed
 *	   already, are skipped
 * @nr: how many
 *
 * Waits for their running handlers: not with a system's mutex held.
 */
void slabtrace_files_remove(struct slabtrace_file *files, unsigned int nr)
{
	struct proc_dir_entry *pde;
	struct dentry *dentry;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		mutex_lock(&files_lock);
		pde = files[i].pde;
		dentry = files[i].dentry;
		files[i].pde = NULL;
		files[i].dentry = NULL;
		if (files[i].dir)
			list_del(&files[i].node);
		files[i].dir = 0;
		mutex_unlock(&files_lock);
		proc_remove(pde);
		debugfs_remove(dentry);
	}
}

/**
 * slabtrace_file_set_size - the size stat shows
 * @f: the file
 * @size: in bytes
 *
 * The debugfs inode takes it at once; procfs keeps a size per entry,
 * given to each inode it makes (one per proc mount, at lookup), so an
 * inode procfs made earlier keeps its own until its file sets it (the
 * kptrace file does at open and read).
 */
void slabtrace_file_set_size(struct slabtrace_file *f, loff_t size)
{
	struct inode *inode;

	mutex_lock(&files_lock);
	if (f->pde)
		proc_set_size(f->pde, size);
	if (f->dentry) {
		inode = d_inode(f->dentry);
		inode_lock(inode);
		i_size_write(inode, size);
		inode_unlock(inode);
	}
	mutex_unlock(&files_lock);
}

/**
 * slabtrace_files_init - the root in procfs
 *
 * /proc/slabtrace (mode 0500); debugfs's root comes with the rest of its
 * tree (slabtrace_files_mirror()).  Without procfs the files are in debugfs
 * only, from then on.
 *
 * Return: 0, or -ENOMEM if /proc/slabtrace cannot be made and there is no
 * debugfs.
 */
int slabtrace_files_init(void)
{
	struct proc_dir_entry *pde = proc_mkdir_mode("slabtrace", 0500, NULL);

	if (!pde && !debugfs_initialized()) {
		pr_err("cannot create /proc/slabtrace, and there is no debugfs\n");
		return -ENOMEM;
	}
	if (!pde)
		pr_warn("cannot create /proc/slabtrace: the files are in debugfs only, once loaded\n");
	mutex_lock(&files_lock);
	dirs[0] = (struct st_dir){ .pde = pde, .name = "slabtrace" };
	nr_dirs = 1;
	mutex_unlock(&files_lock);
	return 0;
}

/**
 * slabtrace_files_mirror - the debugfs tree, once nothing can fail
 *
 * The last step of loading: every directory and file made so far, made
 * in debugfs too, and those made later at once.  Cannot fail: what debugfs
 * has no room for is in procfs only (or, without procfs, nowhere, said).
 */
void slabtrace_files_mirror(void)
{
	struct slabtrace_file *f;
	unsigned int i;

	mutex_lock(&files_lock);
	for (i = 0; i < nr_dirs; i++)
		mirror_dir(&dirs[i]);
	list_for_each_entry(f, &files_made, node) {
		mirror_file(&dirs[f->dir - 1], f);
		if (!f->pde && !f->dentry)
			pr_err("cannot create the file %s\n", f->name);
	}
	WRITE_ONCE(mirrored, true);
	if (!dirs[0].dentry)
		pr_info("no debugfs: the files are in /proc/slabtrace only\n");
	mutex_unlock(&files_lock);
}

/*
 * At module exit (or a failed load): both trees go, with every file still
 * in them.  No file is open then (proc_file_open()).  Not with a system's
 * mutex held.
 */
void slabtrace_files_exit(void)
{
	struct slabtrace_file *f, *tmp;
	struct proc_dir_entry *pde;
	struct dentry *dentry;

	mutex_lock(&files_lock);
	list_for_each_entry_safe(f, tmp, &files_made, node) {
		f->pde = NULL;
		f->dentry = NULL;
		f->dir = 0;
		list_del(&f->node);
	}
	pde = dirs[0].pde;
	dentry = dirs[0].dentry;
	memset(dirs, 0, sizeof(dirs));
	nr_dirs = 0;
	WRITE_ONCE(mirrored, false);
	mutex_unlock(&files_lock);
	proc_remove(pde);
	debugfs_remove(dentry);
}
