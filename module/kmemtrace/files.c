// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: the files of /sys/kernel/debug/slabtrace/kmemtrace/ besides
 * relay's per-CPU streams cpu0, cpu1, ...:
 *
 *   enable          0600  "0", "1", or cache names; reads "0" or "1 [NAME...]"
 *   buffer_kb       0600  KiB per CPU for the next trace
 *   metadata        0400  the CTF metadata (TSDL) of the current trace
 *   caches          0400  "ID OBJECT_SIZE NAME[,ALIAS...]" of the caches seen
 *   abi_version     0400  KMT_ABI_VERSION
 *   total_overruns  0400  events lost: the total, then "cpuN LOST" lines
 *   events          0400  events written: the total, then "cpuN WRITTEN"
 *
 * Notes on locking
 * ----------------
 * - Each handler takes slabtrace_mutex around what it reads or changes of
 *   the trace (kmemtrace.c), except caches listing, which takes it itself.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>
#include <uapi/slabtrace/kmemtrace.h>

#include <slabtrace/kmemtrace.h>

static const char *const event_names[KMT_NR_EVENTS] = {
	[KMT_KMALLOC] = "kmem:kmalloc",
	[KMT_KMEM_CACHE_ALLOC] = "kmem:kmem_cache_alloc",
	[KMT_KFREE] = "kmem:kfree",
	[KMT_KMEM_CACHE_FREE] = "kmem:kmem_cache_free",
};

static int metadata_show(struct seq_file *m, void *v)
{
	struct kmt_trace *t = &kmt_trace;
	unsigned int id;
	int ret;

	mutex_lock(&slabtrace_mutex);
	if (!t->ctf.chan) {
		mutex_unlock(&slabtrace_mutex);
		return -ENODATA;
	}
	slabtrace_ctf_metadata(m, &t->ctf);
	seq_printf(m,
		   "env {\n"
		   "\tdomain = \"kernel\";\n"
		   "\ttracer_name = \"slabtrace-kmemtrace\";\n"
		   "\tkmemtrace_abi = %d;\n"
		   "\tsysname = \"%s\";\n"
		   "\tkernel_release = \"%s\";\n"
		   "\tcall_site_base = \"0x%lx\";\n"
		   "\tptr_base = \"0x%lx\";\n"
		   "};\n\n", KMT_ABI_VERSION, utsname()->sysname,
		   utsname()->release, t->call_site_base, t->ptr_base);
	mutex_unlock(&slabtrace_mutex);
	ret = kmt_caches_show(m, true);
	if (ret)
		return ret;
	for (id = 0; id < KMT_NR_EVENTS; id++) {
		bool alloc = id == KMT_KMALLOC || id == KMT_KMEM_CACHE_ALLOC;

		seq_printf(m,
			   "event {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = 0;\n"
			   "\tfields := struct {\n"
			   "\t\tuint32_hex_t call_site;\n"
			   "\t\tuint48_hex_t ptr;\n", event_names[id], id);
		if (alloc)
			seq_puts(m, "\t\tuint32_t bytes_req;\n"
				 "\t\tuint32_t bytes_alloc;\n"
				 "\t\tuint32_hex_t gfp_flags;\n"
				 "\t\tcache_t cache_id;\n"
				 "\t\tint16_t node;\n");
		else
			seq_puts(m, "\t\tcache_t cache_id;\n");
		seq_puts(m, "\t};\n};\n\n");
	}
	return 0;
}

static int metadata_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, metadata_show, NULL, 256 * 1024);
}

static const struct file_operations metadata_fops = {
	.owner = THIS_MODULE,
	.open = metadata_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int caches_show(struct seq_file *m, void *v)
{
	return kmt_caches_show(m, false);
}

static int caches_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, caches_show, NULL, 128 * 1024);
}

static const struct file_operations caches_fops = {
	.owner = THIS_MODULE,
	.open = caches_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int enable_show(struct seq_file *m, void *v)
{
	mutex_lock(&slabtrace_mutex);
	seq_printf(m, "%d%s\n", kmt_running,
		   kmt_running ? kmt_trace.filter_names : "");
	mutex_unlock(&slabtrace_mutex);
	return 0;
}

static int enable_open(struct inode *inode, struct file *file)
{
	return single_open(file, enable_show, NULL);
}

/* "0": stop; "1": start, every cache; "NAME...": start, those caches. */
static ssize_t enable_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	char *buf, **argv;
	int argc, ret;

	if (len > SLABTRACE_CMD_MAX) {
		pr_warn_ratelimited("kmemtrace: enable: longer than %d bytes\n",
				    SLABTRACE_CMD_MAX);
		return -E2BIG;
	}
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = -EINVAL;
	if (strlen(buf) != len) {
		pr_warn_ratelimited("kmemtrace: enable: NUL byte in input\n");
		goto out_buf;
	}
	argv = argv_split(GFP_KERNEL, buf, &argc);
	ret = -ENOMEM;
	if (!argv)
		goto out_buf;
	ret = -EINVAL;
	if (!argc) {
		pr_warn_ratelimited("kmemtrace: enable: empty input\n");
		goto out;
	}
	mutex_lock(&slabtrace_mutex);
	if (argc == 1 && !strcmp(argv[0], "0"))
		ret = kmt_stop();
	else if (argc == 1 && !strcmp(argv[0], "1"))
		ret = kmt_start(NULL, 0);
	else
		ret = kmt_start(argv, argc);
	mutex_unlock(&slabtrace_mutex);
out:
	argv_free(argv);
out_buf:
	kfree(buf);
	return ret ?: len;
}

static const struct file_operations enable_fops = {
	.owner = THIS_MODULE,
	.open = enable_open,
	.read = seq_read,
	.write = enable_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int buffer_kb_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%u\n", READ_ONCE(kmt_buffer_kb));
	return 0;
}

static int buffer_kb_open(struct inode *inode, struct file *file)
{
	return single_open(file, buffer_kb_show, NULL);
}

/* A number of KiB: a multiple of 8 in KMT_BUFFER_KB_MIN..MAX. */
static ssize_t buffer_kb_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	unsigned int kb;
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 10, &kb);
	if (ret) {
		pr_warn_ratelimited("kmemtrace: buffer_kb: not a number\n");
		return ret;
	}
	if (kb < KMT_BUFFER_KB_MIN || kb > KMT_BUFFER_KB_MAX || kb % 8) {
		pr_warn_ratelimited("kmemtrace: buffer_kb: %u is not a multiple of 8 in %d..%d\n",
				    kb, KMT_BUFFER_KB_MIN, KMT_BUFFER_KB_MAX);
		return -EINVAL;
	}
	mutex_lock(&slabtrace_mutex);
	if (kmt_running) {
		pr_warn_ratelimited("kmemtrace: buffer_kb: cannot change while tracing\n");
		ret = -EBUSY;
	} else {
		WRITE_ONCE(kmt_buffer_kb, kb);
	}
	mutex_unlock(&slabtrace_mutex);
	return ret ?: len;
}

static const struct file_operations buffer_kb_fops = {
	.owner = THIS_MODULE,
	.open = buffer_kb_open,
	.read = seq_read,
	.write = buffer_kb_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int abi_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", KMT_ABI_VERSION);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(abi);

int kmt_files_init(void)
{
	debugfs_create_file("enable", 0600, kmt_dir, NULL, &enable_fops);
	debugfs_create_file("buffer_kb", 0600, kmt_dir, NULL, &buffer_kb_fops);
	debugfs_create_file("metadata", 0400, kmt_dir, NULL, &metadata_fops);
	debugfs_create_file("caches", 0400, kmt_dir, NULL, &caches_fops);
	debugfs_create_file("abi_version", 0400, kmt_dir, NULL, &abi_fops);
	slabtrace_ctf_count_files(kmt_dir, &kmt_trace.ctf);
	return 0;
}
