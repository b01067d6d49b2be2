// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: its stream's part (module/ctf.c makes the directory
 * /proc/slabtrace/kmemtrace/ and its common files): the commands enable
 * runs ("kmemtrace start" and "kmemtrace stop", through ctl's door), what
 * buffer_kb sets, the metadata's env entries and event classes, and its
 * own files:
 *
 *   caches            0400  "ID OBJECT_SIZE NAME[,ALIAS...]" of the caches seen
 *   cache_table_full  0400  events written with cache "?": the table was full
 *
 * Notes on locking
 * ----------------
 * - The stream calls show_enable, set_buffer_kb and metadata_env with
 *   kmemtrace_mutex held (its ops' lock), as kmemtrace.c wants; listing
 *   the caches takes it itself (cachetab.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/seq_file.h>
#include <uapi/slabtrace/kmemtrace.h>

#include "kmemtrace.h"

static const char *const event_names[KMEMTRACE_NR_EVENTS] = {
	[KMEMTRACE_KMALLOC] = "kmem:kmalloc",
	[KMEMTRACE_KMEM_CACHE_ALLOC] = "kmem:kmem_cache_alloc",
	[KMEMTRACE_KFREE] = "kmem:kfree",
	[KMEMTRACE_KMEM_CACHE_FREE] = "kmem:kmem_cache_free",
};

/* The env entries of kmemtrace's own: the bases of the offsets. */
static void metadata_env(struct seq_file *m)
{
	lockdep_assert_held(&kmemtrace_mutex);
	seq_printf(m,
		   "\tcall_site_base = \"0x%lx\";\n"
		   "\tptr_base = \"0x%lx\";\n", kmemtrace_trace.call_site_base,
		   kmemtrace_trace.ptr_base);
}

/* The cache table as an enum, then the four event classes. */
static int metadata_events(struct seq_file *m)
{
	unsigned int id;
	int ret;

	ret = kmemtrace_caches_show(m, true);
	if (ret)
		return ret;
	for (id = 0; id < KMEMTRACE_NR_EVENTS; id++) {
		bool alloc = id == KMEMTRACE_KMALLOC || id == KMEMTRACE_KMEM_CACHE_ALLOC;

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

static int caches_show(struct seq_file *m, void *v)
{
	return kmemtrace_caches_show(m, false);
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

/* Events of this trace written with cache "?": the table was full. */
static int full_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%lu\n", kmemtrace_cachetab_full());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(full);

/* kmemtrace's files besides the stream's own. */
static struct slabtrace_file extra_files[] = {
	{ .name = "caches", .mode = 0400, .fops = &caches_fops },
	{ .name = "cache_table_full", .mode = 0400, .fops = &full_fops },
};

/* enable: "0", or "1" and the caches named. */
static void show_enable(struct seq_file *m)
{
	lockdep_assert_held(&kmemtrace_mutex);
	seq_printf(m, "%d%s\n", kmemtrace_running,
		   kmemtrace_running ? kmemtrace_trace.filter_names : "");
}

static bool running(void)
{
	return READ_ONCE(kmemtrace_running);
}

static unsigned int buffer_kb(void)
{
	return READ_ONCE(kmemtrace_buffer_kb);
}

/* A number of KiB: a multiple of 8 in KMEMTRACE_BUFFER_KB_MIN..MAX. */
static int set_buffer_kb(unsigned int kb)
{
	lockdep_assert_held(&kmemtrace_mutex);
	if (kb < KMEMTRACE_BUFFER_KB_MIN || kb > KMEMTRACE_BUFFER_KB_MAX || kb % 8) {
		pr_warn_ratelimited("kmemtrace: buffer_kb: %u is not a multiple of 8 in %d..%d\n",
				    kb, KMEMTRACE_BUFFER_KB_MIN, KMEMTRACE_BUFFER_KB_MAX);
		return -EINVAL;
	}
	if (kmemtrace_running) {
		pr_warn_ratelimited("kmemtrace: buffer_kb: cannot change while tracing\n");
		return -EBUSY;
	}
	WRITE_ONCE(kmemtrace_buffer_kb, kb);
	return 0;
}

static const struct slabtrace_stream_ops stream_ops = {
	.name = "kmemtrace",
	.dir = "kmemtrace",
	.abi_version = KMEMTRACE_ABI_VERSION,
	.metadata_size = 256 * 1024,
	.kernel_addresses = true,
	.lock = &kmemtrace_mutex,
	.start_cmd = "kmemtrace start",
	.stop_cmd = "kmemtrace stop",
	.show_enable = show_enable,
	.running = running,
	.buffer_kb = buffer_kb,
	.set_buffer_kb = set_buffer_kb,
	.metadata_env = metadata_env,
	.metadata_events = metadata_events,
};

/* The stream, its directory and files.  Not with kmemtrace_mutex held. */
int kmemtrace_files_init(void)
{
	return slabtrace_stream_init(&kmemtrace_trace.stream, &stream_ops,
				     extra_files, ARRAY_SIZE(extra_files));
}
