// SPDX-License-Identifier: GPL-2.0
/*
 * kptrace: the binary stream, the other way out of the hooks.
 *
 * "syscall start ctf [FILTER]" sends the finished calls here instead of to
 * the text queue (never to both): one CTF event per call in the per-CPU
 * buffers of a stream (module/ctf.c), read through its files in
 * /proc/slabtrace/kptrace/ctf/: the stream's common files (cpu0, cpu1, ...,
 * metadata, events, total_overruns, abi_version), and
 *
 *   enable       0600  "1 [FILTER]" is "syscall start ctf [FILTER]", "0"
 *                      "syscall stop ctf" (refused while the calls go to
 *                      the text queue); reads "1 [FILTER]" while the calls
 *                      come here, else "0"
 *   buffer_kb    0600  KiB per CPU of the next stream: "syscall size"
 *                      rounded down to whole pages; writing N is
 *                      "syscall size NK"
 *
 * A process holding metadata open is a reader, never traced (as one
 * holding kptrace/pipe open).  The recorder
 * (scripts/tools/kmemtrace/record.c, "kmemtrace-record -s") copies the
 * streams into a directory babeltrace2 reads.  The event layout is in
 * <uapi/slabtrace/kptrace.h>.
 *
 * Notes on locking
 * ----------------
 * - kptrace_mutex (kptrace.c's, given at init with the rest of what the
 *   stream calls there): the commands, so opening and flushing the
 *   stream, and what the stream calls (its ops' lock).
 *   The stream is opened before the hooks are attached in ctf mode, and
 *   replaced only after they are detached.
 * - The hooks write with interrupts disabled, on their CPU's buffer
 *   (module/ctf.c's rule), and take no lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <uapi/slabtrace/ctf.h>
#include <uapi/slabtrace/kptrace.h>

#include <slabtrace/ctf.h>
#include <slabtrace/core.h>

#include "kptrace.h"

static struct slabtrace_stream kptrace_stream;
/* What the stream calls in kptrace.c, given at init (kptrace_ctf_init()). */
static const struct kptrace_ctf_owner *owner;

/* Bytes per CPU of a stream for a queue size of @size: whole pages. */
static size_t ctf_bytes(unsigned long size)
{
	return round_down(size, PAGE_SIZE);
}

/**
 * kptrace_ctf_open - new per-CPU streams, replacing the last ones
 * @size: the queue size per CPU ("syscall size"); the stream takes it
 *	  rounded down to whole pages, in SLABTRACE_CTF_SUBBUFS packets
 *
 * Called with kptrace_mutex held, the hooks detached.
 *
 * Return: 0, -ENOMEM, or -ENODEV once kptrace_ctf_exit() ran.
 */
int kptrace_ctf_open(unsigned long size)
{
	lockdep_assert_held(owner->lock);
	if (!kptrace_stream.ops) {
		pr_warn_ratelimited("syscall: start ctf: the module is going\n");
		return -ENODEV;
	}
	return slabtrace_stream_open(&kptrace_stream,
				     ctf_bytes(size) / SLABTRACE_CTF_SUBBUFS,
				     SLABTRACE_CTF_SUBBUFS);
}

/* Give back the streams of a start that failed.  No hook may be writing. */
void kptrace_ctf_close(void)
{
	lockdep_assert_held(owner->lock);
	slabtrace_stream_close(&kptrace_stream);
}

/* Close every open packet, for the reader.  No hook may be writing. */
void kptrace_ctf_flush(void)
{
	lockdep_assert_held(owner->lock);
	slabtrace_stream_flush(&kptrace_stream);
}

/*
 * A call the hooks could not follow (no in-flight entry): one event lost,
 * counted as the stream counts its own.  Called by the hooks.
 */
void kptrace_ctf_drop(void)
{
	slabtrace_stream_lose(&kptrace_stream);
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
	/* Only the registers the call reads: a getpid() event is 51 bytes. */
	unsigned int i, nargs = call->nargs;
	unsigned long irqs;
	u8 *p;

	/* The flags are the stream's (kptrace.h); the fields back to back. */
	BUILD_BUG_ON(sizeof(current->comm) != KPTRACE_CTF_COMM_LEN);
	BUILD_BUG_ON(ARRAY_SIZE(call->args) != SLABTRACE_SYSCALL_ARGS);
	BUILD_BUG_ON(KPTRACE_CTF_OFF_COMM + KPTRACE_CTF_COMM_LEN !=
		     KPTRACE_CTF_OFF_NARGS);
	BUILD_BUG_ON(KPTRACE_CTF_OFF_NARGS + 1 != KPTRACE_CTF_OFF_ARGS);
	BUILD_BUG_ON(KPTRACE_CTF_OFF_ARGS + 1 != KPTRACE_CTF_PAYLOAD);
	local_irq_save(irqs);
	p = slabtrace_stream_reserve_fast(&kptrace_stream, compat ?
					  KPTRACE_CTF_SYSCALL_COMPAT : KPTRACE_CTF_SYSCALL,
					  KPTRACE_CTF_PAYLOAD + 8 * nargs +
					  call->data_len, end);
	if (p) {
		slabtrace_put_le32(p + KPTRACE_CTF_OFF_NR, call->nr);
		slabtrace_put_le64(p + KPTRACE_CTF_OFF_RET, ret);
		slabtrace_put_le64(p + KPTRACE_CTF_OFF_DURATION,
				   end - call->start_ns);
		slabtrace_put_le32(p + KPTRACE_CTF_OFF_PID, task_tgid_nr(current));
		slabtrace_put_le32(p + KPTRACE_CTF_OFF_TID, task_pid_nr(current));
		p[KPTRACE_CTF_OFF_FLAGS] = call->flags | flags;
		/* comm is always NUL-padded (__set_task_comm()). */
		memcpy(p + KPTRACE_CTF_OFF_COMM, current->comm, TASK_COMM_LEN);
		p[KPTRACE_CTF_OFF_NARGS] = nargs;
		for (i = 0; i < nargs; i++)
			slabtrace_put_le64(p + KPTRACE_CTF_OFF_ARGS + 8 * i,
					   call->args[i]);
		p += 8 * nargs;
		/* path_len and path[], after args[]. */
		p[KPTRACE_CTF_OFF_ARGS] = call->data_len;
		memcpy(p + KPTRACE_CTF_PAYLOAD, call->data, call->data_len);
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

/* Its types, the system call numberings as enums, the two event classes. */
static int metadata_events(struct seq_file *m)
{
	unsigned int id;

	seq_puts(m,
		 "typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
		 "typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
		 "typealias integer { size = 64; align = 8; signed = false; base = hex; } := uint64_hex_t;\n"
		 "typealias integer { size = 8; align = 8; signed = false; base = hex; } := uint8_hex_t;\n"
		 "typealias integer { size = 8; align = 8; signed = false; encoding = UTF8; } := kpt_char_t;\n\n");
	syscall_enum(m, false);
	syscall_enum(m, true);
	for (id = 0; id < KPTRACE_CTF_NR_EVENTS; id++)
		seq_printf(m,
			   "event {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = 0;\n"
			   "\tfields := struct {\n"
			   "\t\t%s nr;\n"
			   "\t\tint64_t ret;\n"
			   "\t\tuint64_t duration_ns;\n"
			   "\t\tint32_t pid;\n"
			   "\t\tint32_t tid;\n"
			   "\t\tuint8_hex_t flags;\n"
			   "\t\tkpt_char_t comm[16];\n"
			   "\t\tuint8_t nargs;\n"
			   "\t\tuint64_hex_t args[nargs];\n"
			   "\t\tuint8_t path_len;\n"
			   "\t\tkpt_char_t path[path_len];\n"
			   "\t};\n};\n\n",
			   id == KPTRACE_CTF_SYSCALL ? "syscall" : "syscall_compat",
			   id, id == KPTRACE_CTF_SYSCALL ? "kpt_nr_t" :
			   "kpt_nr_compat_t");
	return 0;
}

static unsigned int buffer_kb(void)
{
	return ctf_bytes(kptrace_queue_size()) / 1024;
}

/* "syscall size NK": the queue's size and the next stream's are one. */
static int set_buffer_kb(unsigned int kb)
{
	char size_word[] = "size", num[16], *words[3];

	lockdep_assert_held(owner->lock);
	snprintf(num, sizeof(num), "%uK", kb);
	words[0] = size_word;
	words[1] = num;
	words[2] = NULL;
	return owner->command(2, words);
}

/* The members kptrace.c owns are set by kptrace_ctf_init(). */
static struct slabtrace_stream_ops stream_ops = {
	.name = "kptrace",
	.dir = "kptrace/ctf",
	.abi_version = KPTRACE_CTF_ABI_VERSION,
	.metadata_size = 64 * 1024,
	.start_cmd = "syscall start ctf",
	.stop_cmd = "syscall stop ctf",
	.buffer_kb = buffer_kb,
	.set_buffer_kb = set_buffer_kb,
	.metadata_events = metadata_events,
	.reader = kptrace_readers_update,
};

/* Its line of the status file.  Called with kptrace_mutex held. */
void kptrace_ctf_status(struct seq_file *m)
{
	slabtrace_stream_status(&kptrace_stream, m);
}

/**
 * kptrace_ctf_init - the stream, its directory and files
 * @o: what the stream asks of kptrace.c: its mutex, whether the hooks
 *     write here, the enable file's line, the "syscall" command
 *
 * Context: Process context, at loading; not with kptrace_mutex held.
 * Return: 0 or a negative errno.
 */
int kptrace_ctf_init(const struct kptrace_ctf_owner *o)
{
	owner = o;
	stream_ops.lock = o->lock;
	stream_ops.running = o->running;
	stream_ops.show_enable = o->show_enable;
	return slabtrace_stream_init(&kptrace_stream, &stream_ops, NULL, 0);
}

/*
 * At module exit, with the hooks detached if they wrote here: the files
 * go, then the buffers.  No stream opens again.  Idempotent.
 */
void kptrace_ctf_exit(void)
{
	slabtrace_stream_exit(&kptrace_stream);
}
