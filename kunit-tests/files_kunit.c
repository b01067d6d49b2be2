// SPDX-License-Identifier: GPL-2.0
/*
 * The "slabtrace_files" suite proves the file layer and the stream
 * object's files through the VFS, in a procfs and a debugfs mount of its
 * own: a file declared once is in both trees, with the same data and
 * mode, in a root-only directory; procfs's one struct proc_ops gives what
 * the file's own operations give, and for those the file lacks what the
 * VFS gives (EINVAL, ESPIPE, the default poll mask); removed, it is gone
 * from both.  Writing a stream's enable runs, through ctl's door, the
 * system's start command with the words after "1" (or all of them) and
 * its stop command for "0", and refuses anything else; buffer_kb tells a
 * non-number from an overflow.  A cpuN file opened before the first start
 * gets ENODATA; one opened before a restart keeps reading and mapping its
 * own buffer (the old trace's UUID), while a new open gets the new one,
 * and the old buffer goes when its last file closes (KASAN watches).
 * A cpuN file's two inodes have one lock, which read() and the ioctl take
 * in both trees: one reader of a CPU's buffer at a time.
 */
#include <kunit/test.h>
#include <linux/file.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/mman.h>
#include <linux/mount.h>
#include <linux/poll.h>
#include <linux/relay.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <uapi/slabtrace/ctf.h>

#include <slabtrace/ctf.h>
#include <slabtrace/files.h>
#include "../module/internal.h"
#include "st_kunit.h"

#define SUBBUF	2048
#define UBUF	(4 * PAGE_SIZE)

/* The two trees, mounted for the test, and a user buffer for read(). */
struct trees {
	struct vfsmount *mnt[2];	/* procfs, debugfs */
	char __user *ubuf;
};

static void mount_trees(struct kunit *test, struct trees *t)
{
	static const char *const types[] = { "proc", "debugfs" };
	struct file_system_type *fs;
	unsigned long addr;
	int i;

	for (i = 0; i < 2; i++) {
		fs = get_fs_type(types[i]);
		KUNIT_ASSERT_NOT_NULL(test, fs);
		t->mnt[i] = vfs_kern_mount(fs, 0, types[i], NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t->mnt[i]));
	}
	addr = kunit_vm_mmap(test, NULL, 0, UBUF, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE(test, !addr || IS_ERR_VALUE(addr));
	t->ubuf = (char __user *)addr;
}

static void unmount_trees(struct trees *t)
{
	/* Files closed by the test are released before the mounts go. */
	flush_delayed_fput();
	kern_unmount(t->mnt[0]);
	kern_unmount(t->mnt[1]);
}

static struct file *open_in(struct trees *t, int tree, const char *path,
			    int flags)
{
	return file_open_root_mnt(t->mnt[tree], path, flags, 0);
}

/* read() into @kbuf (NUL-terminated), through the user buffer. */
static ssize_t read_file(struct trees *t, struct file *f, char *kbuf,
			 size_t size)
{
	loff_t pos = 0;
	ssize_t n;

	n = vfs_read(f, t->ubuf, min_t(size_t, size - 1, UBUF), &pos);
	if (n > 0 && copy_from_user(kbuf, t->ubuf, n))
		return -EFAULT;
	kbuf[n > 0 ? n : 0] = '\0';
	return n;
}

static ssize_t write_file(struct trees *t, struct file *f, const char *s)
{
	loff_t pos = 0;

	if (copy_to_user(t->ubuf, s, strlen(s)))
		return -EFAULT;
	return vfs_write(f, t->ubuf, strlen(s), &pos);
}

/* Open @path in tree @tree, write @s, close: the write's return. */
static ssize_t write_path(struct trees *t, int tree, const char *path,
			  const char *s)
{
	struct file *f = open_in(t, tree, path, O_WRONLY);
	ssize_t n;

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = write_file(t, f, s);
	fput(f);
	return n;
}

static ssize_t read_path(struct trees *t, int tree, const char *path,
			 char *kbuf, size_t size)
{
	struct file *f = open_in(t, tree, path, O_RDONLY);
	ssize_t n;

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = read_file(t, f, kbuf, size);
	fput(f);
	return n;
}

/* Two files with what their operations did. */
static char written[32];

static ssize_t t_read(struct file *file, char __user *buf, size_t count,
		      loff_t *ppos)
{
	const char *s = slabtrace_file_data(file_inode(file));

	return simple_read_from_buffer(buf, count, ppos, s, strlen(s));
}

static ssize_t t_write(struct file *file, const char __user *buf,
		       size_t count, loff_t *ppos)
{
	memset(written, 0, sizeof(written));
	return simple_write_to_buffer(written, sizeof(written) - 1, ppos, buf,
				      count);
}

static __poll_t t_poll(struct file *file, poll_table *wait)
{
	return EPOLLPRI;
}

static const struct file_operations rw_fops = {
	.owner = THIS_MODULE,
	.read = t_read,
	.write = t_write,
	.llseek = default_llseek,
	.poll = t_poll,
};

static const struct file_operations ro_fops = {
	.owner = THIS_MODULE,
	.read = t_read,
};

static struct slabtrace_file test_files[] = {
	{ .name = "rw", .mode = 0600, .fops = &rw_fops, .data = "rw data\n" },
	{ .name = "ro", .mode = 0400, .fops = &ro_fops, .data = "ro data\n" },
};

static void both_trees(struct kunit *test)
{
	struct trees t;
	char buf[64];
	struct file *f;
	int tree;

	mount_trees(test, &t);
	KUNIT_ASSERT_EQ(test, slabtrace_files_add("kunit/files", test_files,
						  ARRAY_SIZE(test_files)), 0);
	f = open_in(&t, 0, "slabtrace", O_RDONLY | O_DIRECTORY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, file_inode(f)->i_mode & 0777, 0500);
	fput(f);
	for (tree = 0; tree < 2; tree++) {
		f = open_in(&t, tree, "slabtrace/kunit/files/rw", O_RDWR);
		KUNIT_ASSERT_FALSE(test, IS_ERR(f));
		KUNIT_EXPECT_PTR_EQ(test, slabtrace_file_of(file_inode(f)),
				    &test_files[0]);
		KUNIT_EXPECT_EQ(test, file_inode(f)->i_mode & 0777, 0600);
		KUNIT_EXPECT_EQ(test, read_file(&t, f, buf, sizeof(buf)), 8);
		KUNIT_EXPECT_STREQ(test, buf, "rw data\n");
		KUNIT_EXPECT_EQ(test, vfs_llseek(f, 3, SEEK_SET), 3);
		KUNIT_EXPECT_EQ(test, write_file(&t, f, "hello"), 5);
		KUNIT_EXPECT_STREQ(test, written, "hello");
		KUNIT_EXPECT_EQ(test, vfs_poll(f, NULL), EPOLLPRI);
		fput(f);

		/* What ro lacks is what the VFS gives for a file without it. */
		f = open_in(&t, tree, "slabtrace/kunit/files/ro", O_RDWR);
		KUNIT_ASSERT_FALSE(test, IS_ERR(f));
		KUNIT_EXPECT_EQ(test, file_inode(f)->i_mode & 0777, 0400);
		KUNIT_EXPECT_EQ(test, read_file(&t, f, buf, sizeof(buf)), 8);
		KUNIT_EXPECT_STREQ(test, buf, "ro data\n");
		KUNIT_EXPECT_EQ(test, write_file(&t, f, "x"), -EINVAL);
		KUNIT_EXPECT_EQ(test, vfs_llseek(f, 0, SEEK_SET), -ESPIPE);
		KUNIT_EXPECT_EQ(test, vfs_poll(f, NULL), DEFAULT_POLLMASK);
		fput(f);
	}
	slabtrace_files_remove(test_files, ARRAY_SIZE(test_files));
	for (tree = 0; tree < 2; tree++) {
		f = open_in(&t, tree, "slabtrace/kunit/files/ro", O_RDONLY);
		KUNIT_EXPECT_PTR_EQ(test, f, ERR_PTR(-ENOENT));
	}
	unmount_trees(&t);
}

/*
 * A stream of a system of the test's, whose commands ("kunit_stream start
 * ARGS", "kunit_stream stop") record what they were given.
 */
static DEFINE_MUTEX(rec_lock);
static char said[64];
static unsigned int kb_set = 64;

static int rec_command(struct file *file, int cmd, int argc, char **argv)
{
	int i, n;

	if (argc >= 2 && !strcmp(argv[1], "stop")) {
		if (argc > 2)
			return -EINVAL;
		strscpy(said, "stop", sizeof(said));
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "start"))
		return -EINVAL;
	n = scnprintf(said, sizeof(said), "start %d", argc - 2);
	for (i = 2; i < argc; i++)
		n += scnprintf(said + n, sizeof(said) - n, " %s", argv[i]);
	return 0;
}

static const match_table_t rec_cmds = {
	{ 0, "kunit_stream" },
	{ SLABTRACE_CMD_NONE, NULL },
};

static const struct slabtrace_system rec_system = {
	.name = "kunit",
	.cmds = rec_cmds,
	.command = rec_command,
};

static void rec_show(struct seq_file *m)
{
	seq_printf(m, "%s\n", said);
}

static bool rec_running(void)
{
	return false;
}

static unsigned int rec_kb(void)
{
	return kb_set;
}

static int rec_set_kb(unsigned int kb)
{
	kb_set = kb;
	return 0;
}

static int start_stream(struct slabtrace_stream *st);

/* A stream rec_events() restarts, once: a trace started mid-read. */
static struct slabtrace_stream *restart_in_events;

static int rec_events(struct seq_file *m)
{
	struct slabtrace_stream *st = restart_in_events;

	seq_puts(m, "event { name = \"kunit\"; };\n");
	restart_in_events = NULL;
	return st ? start_stream(st) : 0;
}

static const struct slabtrace_stream_ops rec_ops = {
	.name = "kunit",
	.dir = "kunit_stream",
	.abi_version = 7,
	.metadata_size = 16 * 1024,
	.lock = &rec_lock,
	.start_cmd = "kunit_stream start",
	.stop_cmd = "kunit_stream stop",
	.show_enable = rec_show,
	.running = rec_running,
	.buffer_kb = rec_kb,
	.set_buffer_kb = rec_set_kb,
	.metadata_events = rec_events,
};

/* Run "enable" with @s; what the commands were given, or the error. */
static const char *enable(struct slabtrace_stream *st, const char *s,
			  size_t len)
{
	static char err[16];
	char *buf = kmemdup_nul(s, len, GFP_KERNEL);
	int ret;

	strscpy(said, "nothing", sizeof(said));
	ret = buf ? slabtrace_stream_enable(st, buf, len) : -ENOMEM;
	kfree(buf);
	if (!ret)
		return said;
	snprintf(err, sizeof(err), "error %d", ret);
	return err;
}

/* Write @len bytes of @s to buffer_kb: the return. */
static int buffer_kb(struct slabtrace_stream *st, const char *s, size_t len)
{
	char *buf = kmemdup_nul(s, len, GFP_KERNEL);
	int ret = buf ? slabtrace_stream_buffer_kb(st, buf, len) : -ENOMEM;

	kfree(buf);
	return ret;
}

static const char *enable_str(struct slabtrace_stream *st, const char *s)
{
	return enable(st, s, strlen(s));
}

/*
 * A stream whose init failed or never ran: a failed load's exit stops
 * its system, which flushes it, then exits it; neither touches it (an
 * oops fails this case; the checks only say it stayed as it was).
 */
static void stream_never_made(struct kunit *test)
{
	struct slabtrace_stream st = { 0 };

	slabtrace_stream_flush(&st);
	slabtrace_stream_exit(&st);
	KUNIT_EXPECT_NULL(test, st.ops);
	KUNIT_EXPECT_NULL(test, st.chan);
}

static void stream_enable(struct kunit *test)
{
	struct slabtrace_stream *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct trees t;
	char buf[64];

	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_EQ(test, slabtrace_stream_init(st, &rec_ops, NULL, 0), 0);
	/* Its commands, through ctl's door. */
	WRITE_ONCE(slabtrace_test_system, &rec_system);
	KUNIT_EXPECT_STREQ(test, enable_str(st, "1\n"), "start 0");
	KUNIT_EXPECT_STREQ(test, enable_str(st, "1 kmalloc-64 dentry\n"),
			   "start 2 kmalloc-64 dentry");
	KUNIT_EXPECT_STREQ(test, enable_str(st, "comm  kpt_probe"),
			   "start 2 comm kpt_probe");
	KUNIT_EXPECT_STREQ(test, enable_str(st, "0\n"), "stop");
	KUNIT_EXPECT_STREQ(test, enable_str(st, ""), "error -22");
	KUNIT_EXPECT_STREQ(test, enable_str(st, "  "), "error -22");
	KUNIT_EXPECT_STREQ(test, enable_str(st, "0 now"), "error -22");
	KUNIT_EXPECT_STREQ(test, enable(st, "1\0 x", 4), "error -22");

	KUNIT_EXPECT_EQ(test, buffer_kb(st, "64k", 3), -EINVAL);
	KUNIT_EXPECT_EQ(test, buffer_kb(st, "-8", 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, buffer_kb(st, "+8", 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, buffer_kb(st, "16\00032", 5), -EINVAL);
	KUNIT_EXPECT_EQ(test, buffer_kb(st, "4294967296", 10), -ERANGE);
	KUNIT_EXPECT_EQ(test, kb_set, 64U);
	KUNIT_EXPECT_EQ(test, buffer_kb(st, "4096\n", 5), 0);
	KUNIT_EXPECT_EQ(test, kb_set, 4096U);

	/* The same, through the files of both trees. */
	mount_trees(test, &t);
	KUNIT_EXPECT_EQ(test, write_path(&t, 0, "slabtrace/kunit_stream/enable",
					 "1 pid 5\n"), 8);
	KUNIT_EXPECT_STREQ(test, said, "start 2 pid 5");
	KUNIT_EXPECT_EQ(test, read_path(&t, 1, "slabtrace/kunit_stream/enable",
					buf, sizeof(buf)), 14);
	KUNIT_EXPECT_STREQ(test, buf, "start 2 pid 5\n");
	KUNIT_EXPECT_EQ(test, write_path(&t, 1, "slabtrace/kunit_stream/enable",
					 "0"), 1);
	KUNIT_EXPECT_STREQ(test, said, "stop");
	KUNIT_EXPECT_EQ(test, write_path(&t, 0, "slabtrace/kunit_stream/buffer_kb",
					 "4294967296\n"), -ERANGE);
	KUNIT_EXPECT_EQ(test, write_path(&t, 0, "slabtrace/kunit_stream/buffer_kb",
					 "16\n"), 3);
	KUNIT_EXPECT_EQ(test, read_path(&t, 1, "slabtrace/kunit_stream/buffer_kb",
					buf, sizeof(buf)), 3);
	KUNIT_EXPECT_STREQ(test, buf, "16\n");
	KUNIT_EXPECT_EQ(test, read_path(&t, 0, "slabtrace/kunit_stream/abi_version",
					buf, sizeof(buf)), 2);
	KUNIT_EXPECT_STREQ(test, buf, "7\n");
	/* The door runs the same commands written to ctl. */
	KUNIT_EXPECT_EQ(test, st_cmd("kunit_stream start comm x\n"), 0);
	KUNIT_EXPECT_STREQ(test, said, "start 2 comm x");
	/* Its files released first, as the module's pin makes sure of. */
	unmount_trees(&t);
	slabtrace_stream_exit(st);
	WRITE_ONCE(slabtrace_test_system, NULL);
}

/* One event on this CPU, and a flush that closes its packet. */
static void one_event(struct kunit *test, struct slabtrace_stream *st)
{
	unsigned long flags;
	u8 *p;

	local_irq_save(flags);
	p = slabtrace_stream_reserve_at(st, 0, 8, slabtrace_ctf_clock());
	if (p)
		memset(p, 0x5a, 8);
	local_irq_restore(flags);
	KUNIT_ASSERT_NOT_NULL(test, p);
	mutex_lock(&rec_lock);
	slabtrace_stream_flush(st);
	mutex_unlock(&rec_lock);
}

static int start_stream(struct slabtrace_stream *st)
{
	int ret;

	mutex_lock(&rec_lock);
	ret = slabtrace_stream_open(st, SUBBUF, SLABTRACE_CTF_SUBBUFS);
	mutex_unlock(&rec_lock);
	return ret;
}

/* The first packet a cpuN file reads: magic, and the trace's UUID. */
static void expect_packet(struct kunit *test, struct trees *t, struct file *f,
			  const uuid_t *uuid)
{
	u8 *pkt = kunit_kzalloc(test, SUBBUF + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pkt);
	KUNIT_EXPECT_GE(test, read_file(t, f, pkt, SUBBUF + 1),
			(ssize_t)SLABTRACE_CTF_PACKET_SIZE);
	KUNIT_EXPECT_EQ(test, le32_to_cpup((__le32 *)pkt), SLABTRACE_CTF_MAGIC);
	KUNIT_EXPECT_EQ(test, memcmp(pkt + offsetof(struct slabtrace_ctf_packet,
						    uuid), uuid, 16), 0);
}

static void cpu_files(struct kunit *test)
{
	struct slabtrace_stream *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	const char *cpu0 = "slabtrace/kunit_stream/cpu0";
	struct file *old, *old_map, *new;
	char *meta = kunit_kzalloc(test, 4096, GFP_KERNEL);
	uuid_t uuid1, uuid2;
	unsigned long addr;
	char uuid_text[40];
	struct trees t;
	u8 magic[4];
	int tree;

	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_NOT_NULL(test, meta);
	/* The events go to this CPU's buffer: cpu0 is the one read. */
	KUNIT_ASSERT_EQ(test, raw_smp_processor_id(), 0);
	KUNIT_ASSERT_EQ(test, slabtrace_stream_init(st, &rec_ops, NULL, 0), 0);
	mount_trees(test, &t);
	for (tree = 0; tree < 2; tree++) {
		KUNIT_EXPECT_PTR_EQ(test, open_in(&t, tree, cpu0, O_RDONLY),
				    ERR_PTR(-ENODATA));
		KUNIT_EXPECT_EQ(test, read_path(&t, tree,
						"slabtrace/kunit_stream/metadata",
						meta, 4096), -ENODATA);
	}

	KUNIT_ASSERT_EQ(test, start_stream(st), 0);
	uuid1 = st->uuid;
	one_event(test, st);
	old = open_in(&t, 0, cpu0, O_RDONLY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(old));
	old_map = open_in(&t, 1, cpu0, O_RDONLY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(old_map));
	addr = kunit_vm_mmap(test, old_map, 0, st->chan->alloc_size, PROT_READ,
			     MAP_SHARED, 0);
	KUNIT_ASSERT_FALSE(test, !addr || IS_ERR_VALUE(addr));
	fput(old_map);		/* the mapping holds it */

	/* A restart: new buffers, a new UUID; the old files keep theirs. */
	KUNIT_ASSERT_EQ(test, start_stream(st), 0);
	uuid2 = st->uuid;
	KUNIT_EXPECT_NE(test, memcmp(&uuid1, &uuid2, 16), 0);
	KUNIT_EXPECT_EQ(test, vfs_poll(old, NULL), EPOLLERR);
	expect_packet(test, &t, old, &uuid1);
	KUNIT_EXPECT_EQ(test, copy_from_user(magic, (void __user *)addr, 4), 0UL);
	KUNIT_EXPECT_EQ(test, le32_to_cpup((__le32 *)magic), SLABTRACE_CTF_MAGIC);
	fput(old);

	one_event(test, st);
	for (tree = 0; tree < 2; tree++) {
		new = open_in(&t, tree, cpu0, O_RDONLY);
		KUNIT_ASSERT_FALSE(test, IS_ERR(new));
		if (!tree)
			expect_packet(test, &t, new, &uuid2);
		fput(new);
	}
	KUNIT_EXPECT_GT(test, read_path(&t, 1, "slabtrace/kunit_stream/metadata",
					meta, 4096), 0);
	snprintf(uuid_text, sizeof(uuid_text), "uuid = \"%pUb\"", &uuid2);
	KUNIT_EXPECT_NOT_NULL(test, strstr(meta, uuid_text));
	KUNIT_EXPECT_NOT_NULL(test, strstr(meta, "\tkunit_abi = 7;\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(meta, "event { name = \"kunit\"; };"));
	/* A restart between the header and the events: no mixed metadata. */
	restart_in_events = st;
	KUNIT_EXPECT_EQ(test, read_path(&t, 1, "slabtrace/kunit_stream/metadata",
					meta, 4096), -EAGAIN);
	KUNIT_EXPECT_NULL(test, restart_in_events);
	KUNIT_EXPECT_GT(test, read_path(&t, 1, "slabtrace/kunit_stream/metadata",
					meta, 4096), 0);
	snprintf(uuid_text, sizeof(uuid_text), "uuid = \"%pUb\"", &st->uuid);
	KUNIT_EXPECT_NOT_NULL(test, strstr(meta, uuid_text));

	/*
	 * The stream goes while the old buffer is still mapped; the files
	 * closed are released first, as the module's pin makes sure of.
	 */
	unmount_trees(&t);
	slabtrace_stream_exit(st);
}

/* A work item holding a CPU's lock for 100 ms: a reader in another tree. */
struct holder {
	struct work_struct work;
	struct mutex *lock;		/* the CPU's, held */
	struct completion locked;
	bool released;
};

static void hold_fn(struct work_struct *work)
{
	struct holder *h = container_of(work, struct holder, work);

	mutex_lock(h->lock);
	complete(&h->locked);
	msleep(100);
	WRITE_ONCE(h->released, true);
	mutex_unlock(h->lock);
}

/* Once this returns, @h holds @lock. */
static void hold(struct holder *h, struct mutex *lock)
{
	h->lock = lock;
	h->released = false;
	init_completion(&h->locked);
	INIT_WORK(&h->work, hold_fn);
	schedule_work(&h->work);
	wait_for_completion(&h->locked);
}

static void cpu_lock(struct kunit *test)
{
	struct slabtrace_stream *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct holder *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	u8 *pkt = kunit_kzalloc(test, SUBBUF + 1, GFP_KERNEL);
	const char *cpu0 = "slabtrace/kunit_stream/cpu0";
	struct file *f[2];
	struct mutex *lock;		/* cpu0's, both trees */
	struct trees t;
	long ret;
	int tree;

	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_NOT_NULL(test, pkt);
	KUNIT_ASSERT_EQ(test, raw_smp_processor_id(), 0);
	KUNIT_ASSERT_EQ(test, slabtrace_stream_init(st, &rec_ops, NULL, 0), 0);
	mount_trees(test, &t);
	KUNIT_ASSERT_EQ(test, start_stream(st), 0);
	one_event(test, st);
	for (tree = 0; tree < 2; tree++) {
		f[tree] = open_in(&t, tree, cpu0, O_RDONLY);
		KUNIT_ASSERT_FALSE(test, IS_ERR(f[tree]));
	}
	/* Two inodes, two inode locks, one CPU lock. */
	KUNIT_EXPECT_PTR_NE(test, file_inode(f[0]), file_inode(f[1]));
	lock = slabtrace_stream_cpu_lock(file_inode(f[0]));
	KUNIT_EXPECT_PTR_EQ(test, slabtrace_stream_cpu_lock(file_inode(f[1])),
			    lock);

	/* With it held, as by a reader in one tree, the ioctl waits... */
	hold(h, lock);
	ret = f[1]->f_op->unlocked_ioctl(f[1], SLABTRACE_CTF_IOC_PUT_PACKETS, 0);
	KUNIT_EXPECT_EQ(test, ret, 0L);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(h->released));
	flush_work(&h->work);

	/* ... and so does read(), in the other tree, then reads. */
	hold(h, lock);
	KUNIT_EXPECT_GE(test, read_file(&t, f[0], pkt, SUBBUF + 1),
			(ssize_t)SLABTRACE_CTF_PACKET_SIZE);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(h->released));
	flush_work(&h->work);
	KUNIT_EXPECT_EQ(test, le32_to_cpup((__le32 *)pkt), SLABTRACE_CTF_MAGIC);

	fput(f[0]);
	fput(f[1]);
	unmount_trees(&t);
	slabtrace_stream_exit(st);
}

static struct kunit_case files_cases[] = {
	KUNIT_CASE(both_trees),
	KUNIT_CASE(stream_never_made),
	KUNIT_CASE(stream_enable),
	KUNIT_CASE(cpu_files),
	KUNIT_CASE(cpu_lock),
	{}
};

static struct kunit_suite files_suite = {
	.name = "slabtrace_files",
	.test_cases = files_cases,
};

kunit_test_suite(files_suite);
