// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the binary stream, the other way out of the hooks.
 *
 * "syscall start ctf [FILTER]" sends the finished calls here instead of to
 * the text queue (never to both): one CTF event per call in per-CPU relay
 * buffers (module/ctf.c, kmemtrace's format code), read through the files
 * of /sys/kernel/debug/slabtrace/kptrace_ctf/:
 *
 *   cpu0, cpu1, ...  0400  relay's per-CPU streams, from the first
 *                          "start ctf"; each "start ctf" makes new ones
 *   metadata         0400  the CTF metadata (TSDL) of the current stream;
 *                          a process holding it open is a reader, never
 *                          traced (as one holding kptrace_pipe open)
 *   buffer_kb        0400  KiB per CPU of the next stream: "syscall size"
 *                          rounded down to whole pages
 *   events           0400  events written: the total, then "cpuN COUNT"
 *   total_overruns   0400  events lost (buffer full), the same way
 *   abi_version      0400  KPT_CTF_ABI_VERSION
 *
 * The recorder (scripts/tools/kmemtrace/record.c, "kmemtrace-record -s") copies
 * the streams into a directory babeltrace2 reads.  The event layout is in
 * <uapi/slabtrace/kptrace.h>.
 *
 * Notes on locking
 * ----------------
 * - slabtrace_mutex: opening and closing the stream (kpt_ctf), and the
 *   files that read its state.  The stream is opened before the hooks
 *   are attached in ctf mode and closed only after they are detached.
 * - The hooks write with interrupts disabled, on their CPU's buffer
 *   (module/ctf.c's rule), and take no lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/utsname.h>
#include <uapi/slabtrace/kmemtrace.h>
#include <uapi/slabtrace/kptrace.h>

#include <slabtrace/ctf.h>
#include <slabtrace/kptrace.h>
#include <slabtrace/slabtrace.h>

static struct slabtrace_ctf kpt_ctf;
static struct dentry *ctf_dir;

/* Bytes per CPU of a stream for a queue size of @size: whole pages. */
static size_t ctf_bytes(unsigned long size)
{
	return round_down(size, PAGE_SIZE);
}

/**
 * kptrace_ctf_open - new per-CPU streams, replacing the last ones
 * @size: the queue size per CPU ("syscall size"); the stream takes it
 *	  rounded down to whole pages, in KMT_SUBBUFS packets
 *
 * Called with slabtrace_mutex held, the hooks detached.
 *
 * Return: 0, -ENOMEM, or -ENODEV once kptrace_ctf_exit() ran.
 */
int kptrace_ctf_open(unsigned long size)
{
	lockdep_assert_held(&slabtrace_mutex);
	if (!ctf_dir) {
		pr_warn_ratelimited("syscall: start ctf: the module is going\n");
		return -ENODEV;
	}
	slabtrace_ctf_close(&kpt_ctf);
	return slabtrace_ctf_open(&kpt_ctf, ctf_dir,
				  ctf_bytes(size) / KMT_SUBBUFS, KMT_SUBBUFS);
}

/* Close every open packet, for the reader.  No hook may be writing. */
void kptrace_ctf_flush(void)
{
	lockdep_assert_held(&slabtrace_mutex);
	slabtrace_ctf_flush(&kpt_ctf);
}

/**
 * kptrace_ctf_write - one finished call as an event
 * @call: the call, as sys_enter noted it
 * @end: its end, ktime_get_mono_fast_ns(): the event's time
 * @ret: its return value
 * @flags: KPTRACE_NORETURN, or 0
 *
 * Called by the hooks, with preemption disabled, in the task that made
 * the call.  A full buffer loses the event and counts it.
 */
void kptrace_ctf_write(const struct kptrace_call *call, u64 end, long ret,
		       u8 flags)
{
	bool compat = call->flags & KPTRACE_COMPAT;
	unsigned long irqs;
	unsigned int i;
	u8 *p;

	/* The flags are the stream's (kptrace.h); the fields back to back. */
	BUILD_BUG_ON(sizeof(current->comm) != KPT_CTF_COMM_LEN);
	BUILD_BUG_ON(KPT_CTF_OFF_ARGS + 8 * ARRAY_SIZE(call->args) !=
		     KPT_CTF_OFF_PID);
	BUILD_BUG_ON(KPT_CTF_OFF_COMM + KPT_CTF_COMM_LEN !=
		     KPT_CTF_OFF_PATH_LEN);
	BUILD_BUG_ON(KPT_CTF_OFF_PATH_LEN + 1 != KPT_CTF_PAYLOAD);
	local_irq_save(irqs);
	p = slabtrace_ctf_reserve_at(&kpt_ctf, compat ? KPT_CTF_SYSCALL_COMPAT :
					       KPT_CTF_SYSCALL,
				     KPT_CTF_PAYLOAD + call->data_len, end);
	if (p) {
		slabtrace_put_le32(p + KPT_CTF_OFF_NR, call->nr);
		slabtrace_put_le64(p + KPT_CTF_OFF_RET, ret);
		slabtrace_put_le64(p + KPT_CTF_OFF_DURATION,
				   end - call->start_ns);
		for (i = 0; i < ARRAY_SIZE(call->args); i++)
			slabtrace_put_le64(p + KPT_CTF_OFF_ARGS + 8 * i,
					   call->args[i]);
		slabtrace_put_le32(p + KPT_CTF_OFF_PID, task_tgid_nr(current));
		slabtrace_put_le32(p + KPT_CTF_OFF_TID, task_pid_nr(current));
		p[KPT_CTF_OFF_FLAGS] = call->flags | flags;
		/* comm is always NUL-padded (__set_task_comm()). */
		memcpy(p + KPT_CTF_OFF_COMM, current->comm, TASK_COMM_LEN);
		p[KPT_CTF_OFF_PATH_LEN] = call->data_len;
		memcpy(p + KPT_CTF_PAYLOAD, call->data, call->data_len);
	}
	local_irq_restore(irqs);
}

/* The names of one numbering as a CTF enum, or a plain integer if none. */
static void syscall_enum(struct seq_file *m, bool compat)
{
	int nr, max = slabtrace_syscall_max(compat), named = 0;
	const char *name;

	for (nr = 0; nr < max; nr++) {
		name = slabtrace_syscall_name(nr, compat);
		if (!name)
			continue;
		seq_printf(m, "%s\t\"%s\" = %d", named ? ",\n" :
			   "typealias enum : int32_t {\n", name, nr);
		named++;
	}
	seq_puts(m, named ? "\n} := " : "typealias int32_t := ");
	seq_printf(m, "%s;\n\n", compat ? "kpt_nr_compat_t" : "kpt_nr_t");
}

static int metadata_show(struct seq_file *m, void *v)
{
	unsigned int id;

	mutex_lock(&slabtrace_mutex);
	if (!kpt_ctf.chan) {
		mutex_unlock(&slabtrace_mutex);
		return -ENODATA;
	}
	slabtrace_ctf_metadata(m, &kpt_ctf);
	mutex_unlock(&slabtrace_mutex);
	seq_printf(m,
		   "env {\n"
		   "\tdomain = \"kernel\";\n"
		   "\ttracer_name = \"slabtrace-kptrace\";\n"
		   "\tkptrace_abi = %d;\n"
		   "\tsysname = \"%s\";\n"
		   "\tkernel_release = \"%s\";\n"
		   "};\n\n", KPT_CTF_ABI_VERSION, utsname()->sysname,
		   utsname()->release);
	seq_puts(m,
		 "typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
		 "typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
		 "typealias integer { size = 64; align = 8; signed = false; base = hex; } := uint64_hex_t;\n"
		 "typealias integer { size = 8; align = 8; signed = false; base = hex; } := uint8_hex_t;\n"
		 "typealias integer { size = 8; align = 8; signed = false; encoding = UTF8; } := kpt_char_t;\n\n");
	syscall_enum(m, false);
	syscall_enum(m, true);
	for (id = 0; id < KPT_CTF_NR_EVENTS; id++)
		seq_printf(m,
			   "event {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = 0;\n"
			   "\tfields := struct {\n"
			   "\t\t%s nr;\n"
			   "\t\tint64_t ret;\n"
			   "\t\tuint64_t duration_ns;\n"
			   "\t\tuint64_hex_t args[6];\n"
			   "\t\tint32_t pid;\n"
			   "\t\tint32_t tid;\n"
			   "\t\tuint8_hex_t flags;\n"
			   "\t\tkpt_char_t comm[16];\n"
			   "\t\tuint8_t path_len;\n"
			   "\t\tkpt_char_t path[path_len];\n"
			   "\t};\n};\n\n",
			   id == KPT_CTF_SYSCALL ? "syscall" : "syscall_compat",
			   id, id == KPT_CTF_SYSCALL ? "kpt_nr_t" :
			   "kpt_nr_compat_t");
	return 0;
}

/* Opening makes the process a reader: it is not traced until it closes. */
static int metadata_open(struct inode *inode, struct file *file)
{
	pid_t tgid = task_tgid_nr(current);
	int ret;

	ret = slabtrace_kptrace_reader(tgid, true);
	if (ret)
		return ret;
	ret = single_open_size(file, metadata_show, (void *)(long)tgid,
			       64 * 1024);
	if (ret)
		slabtrace_kptrace_reader(tgid, false);
	return ret;
}

static int metadata_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;

	slabtrace_kptrace_reader((pid_t)(long)m->private, false);
	return single_release(inode, file);
}

static const struct file_operations metadata_fops = {
	.owner = THIS_MODULE,
	.open = metadata_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = metadata_release,
};

static int buffer_kb_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%zu\n", ctf_bytes(slabtrace_kptrace_size()) / 1024);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(buffer_kb);

static int abi_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", KPT_CTF_ABI_VERSION);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(abi);

int kptrace_ctf_init(void)
{
	ctf_dir = debugfs_create_dir("kptrace_ctf", slabtrace_debugfs);
	if (IS_ERR(ctf_dir)) {
		ctf_dir = NULL;
		return -ENODEV;
	}
	debugfs_create_file("metadata", 0400, ctf_dir, NULL, &metadata_fops);
	debugfs_create_file("buffer_kb", 0400, ctf_dir, NULL, &buffer_kb_fops);
	slabtrace_ctf_count_files(ctf_dir, &kpt_ctf);
	debugfs_create_file("abi_version", 0400, ctf_dir, NULL, &abi_fops);
	return 0;
}

/*
 * At module exit, before slabtrace's directory goes (relay removes its own
 * files), with the hooks detached if they wrote here.  No stream opens
 * again.  Idempotent.
 */
void kptrace_ctf_exit(void)
{
	struct dentry *dir;

	mutex_lock(&slabtrace_mutex);
	slabtrace_ctf_close(&kpt_ctf);
	dir = ctf_dir;
	ctf_dir = NULL;
	mutex_unlock(&slabtrace_mutex);
	/* Outside the mutex: it waits for metadata_show(), which takes it. */
	debugfs_remove(dir);
}
