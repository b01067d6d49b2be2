// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: the binary stream object, per-CPU buffers of CTF 1.8 packets
 * on relay, with its directory and files.
 *
 * A stream (kmemtrace's, kptrace's "ctf") owns its directory, its common
 * files (enable, buffer_kb, metadata, abi_version, events,
 * total_overruns, cpu0..cpuN), its system's extra files, and its relay
 * channel, as kernel/trace/blktrace.c owns its own.  The system gives its
 * commands and event classes (struct slabtrace_stream_ops): writing
 * "1 ARGS" or "0" to enable runs its start or stop command through ctl's
 * door (ctl.c), the one parser of commands.
 *
 * Files outlive channels, never the reverse.  The cpuN files exist from
 * init to exit, one per possible CPU.  The channel is buffer-only (relay
 * makes no file of its own); opening cpuN takes the current channel's
 * buffer for that CPU under the stream's lock, with a reference (as
 * relay_file_open() does), and read, poll, mmap and release are relay's
 * own; an ioctl gives back the packets a reader copied from its mapping.
 * A start makes a new channel and closes the last one, whose buffers go
 * when the last file using them closes: no stop, start, buffer size or
 * rmmod frees a buffer a file uses (an open file pins the module,
 * files.c).  Opening cpuN before the first start gives ENODATA.
 *
 * Each CPU writes its own buffer, in no-overwrite mode: a full buffer
 * loses the new events, and counts them.  A relay sub-buffer is one CTF
 * packet: the subbuf_start callback, called by relay at every switch,
 * closes the previous packet (end time, size, events discarded so far) and
 * writes the header and context of the next one.  Relay's read() skips
 * the padding at the end of a sub-buffer, so a reader that takes only
 * closed packets gets them back to back, each packet_size long: a CTF
 * stream file.  Relay's read() also returns the open packet (its
 * content_size still 0), and counts those bytes read.
 *
 * A reader must take a sub-buffer only once its packet is closed: it maps
 * the buffer, waits for the packet at its position to have the sequence
 * number it expects and a non-zero content_size (stored last, with release
 * semantics), then either read()s exactly that many bytes, which also
 * tells relay the sub-buffer is free, or copies them from the mapping and
 * gives the sub-buffer back with SLABTRACE_CTF_IOC_PUT_PACKETS: one copy
 * of the events instead of two (scripts/tools/kmemtrace/record.c).
 *
 * Relay allocates its buffers with GFP_KERNEL, which can wake the OOM
 * killer: a start first checks that the buffers leave enough memory
 * available (MEM_MARGIN), and fails with ENOMEM otherwise.
 *
 * Notes on locking
 * ----------------
 * - The system's mutex (ops->lock): its commands, so every start and
 *   stop: the channel is replaced with it held.  The stream takes it
 *   around its calls into the system (enable's and buffer_kb's, the
 *   metadata's env).
 * - slabtrace_stream.lock (mutex): the channel (chan, cpu, uuid,
 *   clock_offset), written with it and the system's mutex held, read
 *   with either; a cpuN open takes its buffer under it alone.  Taken
 *   inside the system's mutex, outside relay's own mutex.
 * - slabtrace_stream.cpu_locks[N] (mutex): the reading of CPU N's
 *   buffers, through any cpuN file: its two inodes (/proc's and
 *   debugfs's) are two inode locks, which would not order a read() in one
 *   tree with a read() or an ioctl in the other on the rchan_buf's
 *   consumed counters.  Taken by cpu_read() around relay's read(), which
 *   takes the inode's lock inside it, and by the ioctl that gives packets
 *   back (cpu_ioctl()); taken alone, never on the event path.  Inside it
 *   only the inode's lock, then the reader's mmap_lock (copy_to_user()).
 * - No lock on the event path.  A CPU's buffer and struct
 *   slabtrace_stream_cpu are written by that CPU with interrupts disabled
 *   (an event, or a switch inside it), or by flush and close once no writer
 *   can run (the system unregistered its probes and waited for them).
 *   Events in NMI context are not written, only counted (lost_nmi).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/bits.h>
#include <linux/cpu.h>
#include <linux/err.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/relay.h>
#include <linux/sched.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>
#include <uapi/slabtrace/ctf.h>

#include <slabtrace/core.h>
#include <slabtrace/ctf.h>
#include <wrapper/relay.h>

#define TS_COMPACT_MAX	BIT_ULL(SLABTRACE_CTF_COMPACT_TS_BITS)

/*
 * The memory a start leaves available: 1/16 of RAM, at least 32 MiB.
 * MemAvailable (si_mem_available()) counts what can be had without
 * swapping; below that much the kernel starts killing.
 */
#define MEM_MARGIN_MIN	(SZ_32M >> PAGE_SHIFT)

/*
 * packet_open - write a packet's header and context
 * @s: the stream
 * @subbuf: the start of the sub-buffer
 * @cpu: the stream's CPU
 * @ts: its begin time
 *
 * content_size and packet_size stay 0 until the packet is closed.  The
 * sequence number is the last store, a release: a reader of the mapping
 * that sees it sees the zeroed content_size, not the one the sub-buffer's
 * previous packet left (include/uapi/slabtrace/ctf.h).
 */
static void packet_open(struct slabtrace_stream *s, void *subbuf,
			unsigned int cpu, u64 ts)
{
	struct slabtrace_stream_cpu *cc = per_cpu_ptr(s->cpu, cpu);
	u8 *p = subbuf;

	memset(p, 0, SLABTRACE_CTF_PACKET_SIZE);
	slabtrace_put_le32(p + offsetof(struct slabtrace_ctf_packet, magic),
			   SLABTRACE_CTF_MAGIC);
	memcpy(p + offsetof(struct slabtrace_ctf_packet, uuid), &s->uuid, 16);
	slabtrace_put_le64(p + offsetof(struct slabtrace_ctf_packet,
					timestamp_begin), ts);
	slabtrace_put_le32(p + offsetof(struct slabtrace_ctf_packet, cpu_id),
			   cpu);
	/* Pairs with the reader's acquire of the number (see above). */
	smp_store_release((__le64 *)(p + offsetof(struct slabtrace_ctf_packet,
						  packet_seq_num)),
			  cpu_to_le64(cc->seq++));
	cc->open = subbuf;
	cc->last_ts = ts;
}

/*
 * packet_close - finish a packet
 * @subbuf: its start
 * @size: the bytes it holds, header included
 * @ts: its end time
 * @lost: the events lost on its CPU since the trace began
 */
static void packet_close(void *subbuf, size_t size, u64 ts,
			 unsigned long lost)
{
	u8 *p = subbuf;
	__le64 bits = cpu_to_le64((u64)size * 8);

	slabtrace_put_le64(p + offsetof(struct slabtrace_ctf_packet,
					timestamp_end), ts);
	slabtrace_put_le64(p + offsetof(struct slabtrace_ctf_packet,
					events_discarded), lost);
	slabtrace_put_le64(p + offsetof(struct slabtrace_ctf_packet,
					packet_size), (u64)size * 8);
	/* The reader takes the packet once it sees this: the last store. */
	smp_store_release((__le64 *)(p + offsetof(struct slabtrace_ctf_packet,
						  content_size)), bits);
}

/* relay: a switch to @subbuf, from @prev (NULL at the first). */
static int subbuf_start(SLABTRACE_SUBBUF_START_PARAMS(buf, subbuf, prev))
{
	struct slabtrace_stream *s = buf->chan->private_data;
	struct slabtrace_stream_cpu *cc = per_cpu_ptr(s->cpu, buf->cpu);
	u64 now = cc->in_event ? cc->ts : slabtrace_ctf_clock();

	/* While the buffer is full relay calls again with the closed one. */
	if (prev && prev == cc->open) {
		packet_close(prev, buf->chan->subbuf_size -
				   slabtrace_relay_padding(buf, prev),
			     now, cc->lost);
		cc->open = NULL;
	}
	if (relay_buf_full(buf))
		return 0;
	packet_open(s, subbuf, buf->cpu, now);
	subbuf_start_reserve(buf, SLABTRACE_CTF_PACKET_SIZE);
	return 1;
}

/*
 * relay: a buffer-only channel makes no file; relay still asks, with no
 * name, and takes NULL for failure: it gets a pointer it never uses (the
 * buffer's dentry stays NULL), and the buffer is per CPU (not global).
 */
static struct dentry *create_buf_file(const char *filename,
				      struct dentry *parent, umode_t mode,
				      struct rchan_buf *buf, int *is_global)
{
	*is_global = 0;
	return (struct dentry *)buf;
}

static int remove_buf_file(struct dentry *dentry)
{
	return 0;
}

static const struct rchan_callbacks relay_callbacks = {
	.subbuf_start = subbuf_start,
	.create_buf_file = create_buf_file,
	.remove_buf_file = remove_buf_file,
};

/*
 * Refuse, under lockdown=confidentiality, what would show the kernel
 * addresses a stream's events hold: the reason tracefs is refused for.
 */
static int locked_down(struct slabtrace_stream *s, const char *what)
{
	int ret;

	if (!s->ops->kernel_addresses)
		return 0;
	ret = security_locked_down(LOCKDOWN_TRACEFS);
	if (ret)
		pr_warn_ratelimited("%s: %s: refused: the kernel is locked down for confidentiality, and the trace holds kernel addresses\n",
				    s->ops->dir, what);
	return ret;
}

/* Whether @bytes of buffers leave enough memory for everything else. */
static int mem_check(struct slabtrace_stream *s, unsigned long bytes)
{
	unsigned long avail = si_mem_available();
	unsigned long margin = max(totalram_pages() / 16, MEM_MARGIN_MIN);
	unsigned long need = DIV_ROUND_UP(bytes, PAGE_SIZE);

	if (need + margin <= avail)
		return 0;
	pr_warn_ratelimited("%s: start: %lu KiB of buffers would leave less than %lu MiB of the %lu MiB available: not started (a smaller buffer_kb?)\n",
			    s->ops->dir, bytes >> 10, margin >> (20 - PAGE_SHIFT),
			    avail >> (20 - PAGE_SHIFT));
	return -ENOMEM;
}

/*
 * The channel goes; its buffers stay while files use them.  Called with
 * the system's mutex and the stream's lock held; no writer may run.
 */
static void close_channel(struct slabtrace_stream *s)
{
	lockdep_assert_held(s->ops->lock);
	lockdep_assert_held(&s->lock);
	if (s->chan) {
		relay_close(s->chan);
		/*
		 * relay_close() marks the buffers finalized, which their
		 * poll() then says (POLLERR), but wakes no one: a reader
		 * already waiting there would sleep on.
		 */
		wake_up_interruptible_all(&s->closed);
	}
	s->chan = NULL;
	free_percpu(s->cpu);
	s->cpu = NULL;
}

/**
 * slabtrace_stream_open - new per-CPU buffers, in place of the last ones
 * @s: the stream
 * @subbuf_size: bytes of a sub-buffer (a packet)
 * @n_subbufs: sub-buffers per CPU
 *
 * The last channel's buffers go when the files reading them close.  The
 * new one has a new trace UUID.  Called with the system's mutex held, no
 * writer running.
 *
 * Return: 0; -EPERM under lockdown=confidentiality if the events hold
 * kernel addresses (the last buffers stay); -ENOMEM if the buffers would
 * leave too little memory, or cannot be had (no buffer left then).
 */
int slabtrace_stream_open(struct slabtrace_stream *s, size_t subbuf_size,
			  size_t n_subbufs)
{
	int ret;

	lockdep_assert_held(s->ops->lock);
	ret = locked_down(s, "start");
	if (ret)
		return ret;
	mutex_lock(&s->lock);
	close_channel(s);
	ret = mem_check(s, PAGE_ALIGN(subbuf_size * n_subbufs) *
			   num_online_cpus());
	if (ret)
		goto out;
	ret = -ENOMEM;
	s->cpu = alloc_percpu(struct slabtrace_stream_cpu);
	if (!s->cpu) {
		pr_warn_ratelimited("%s: start: cannot allocate the per-CPU state\n",
				    s->ops->dir);
		goto out;
	}
	uuid_gen(&s->uuid);
	s->clock_offset = ktime_get_real_ns() - slabtrace_ctf_clock();
	atomic_long_set(&s->lost_nmi, 0);
	/*
	 * relay_open() makes a buffer for each online CPU, and relay's
	 * hotplug step one for a CPU coming up on channels already listed:
	 * a CPU coming up in between would get neither.
	 */
	cpus_read_lock();
	s->chan = relay_open(NULL, NULL, subbuf_size, n_subbufs,
			     &relay_callbacks, s);
	cpus_read_unlock();
	if (s->chan) {
		ret = 0;
	} else {
		pr_warn_ratelimited("%s: start: cannot allocate %zu KiB per CPU\n",
				    s->ops->dir, subbuf_size * n_subbufs >> 10);
		close_channel(s);
	}
out:
	mutex_unlock(&s->lock);
	return ret;
}

/**
 * slabtrace_stream_close - give back the buffers of a start that failed
 * @s: the stream
 *
 * slabtrace_stream_open() took them, and the system could not start
 * writing (its table or its probes failed): no trace is kept for reading.
 * Called with the system's mutex held, no writer running.
 */
void slabtrace_stream_close(struct slabtrace_stream *s)
{
	lockdep_assert_held(s->ops->lock);
	mutex_lock(&s->lock);
	close_channel(s);
	mutex_unlock(&s->lock);
}

/*
 * Close every open packet.  The system's mutex held, no writer running.
 * Nothing on a stream whose init failed (a failed load's exit stops its
 * system, which flushes).
 */
void slabtrace_stream_flush(struct slabtrace_stream *s)
{
	if (!s->ops)
		return;
	lockdep_assert_held(s->ops->lock);
	if (s->chan)
		relay_flush(s->chan);
}

/**
 * slabtrace_ctf_event_header - encode an event header
 * @p: where
 * @id: the event id
 * @ts: the event's time
 * @last_ts: the time the reader's clock holds (previous event or packet)
 *
 * Compact (4 bytes) when @ts is less than 2^29 ns after @last_ts, else
 * extended (13 bytes).
 *
 * Return: its size.
 */
VISIBLE_IF_KUNIT unsigned int slabtrace_ctf_event_header(u8 *p, unsigned int id,
							 u64 ts, u64 last_ts)
{
	if (id < SLABTRACE_CTF_EXTENDED && ts >= last_ts &&
	    ts - last_ts < TS_COMPACT_MAX) {
		slabtrace_put_le32(p, id | (u32)(ts << SLABTRACE_CTF_COMPACT_ID_BITS));
		return SLABTRACE_CTF_HDR_COMPACT;
	}
	p[0] = SLABTRACE_CTF_EXTENDED;
	slabtrace_put_le32(p + 1, id);
	slabtrace_put_le64(p + 5, ts);
	return SLABTRACE_CTF_HDR_EXTENDED;
}

/**
 * slabtrace_stream_reserve_at - room for one event in this CPU's buffer
 * @s: the stream, started
 * @id: the event id
 * @payload: the size of its fields
 * @ts: the event's time, slabtrace_ctf_clock() read by the caller
 *
 * Called with interrupts disabled.  Writes the event header.
 *
 * Return: where to write the @payload bytes, or NULL when the event is
 * lost (counted).
 */
u8 *slabtrace_stream_reserve_at(struct slabtrace_stream *s, unsigned int id,
				size_t payload, u64 ts)
{
	struct slabtrace_stream_cpu *cc = this_cpu_ptr(s->cpu);
	struct rchan_buf *buf = *this_cpu_ptr(s->chan->buf);
	size_t len;
	u8 *p;

	lockdep_assert_irqs_disabled();
	if (unlikely(!buf)) {
		cc->lost++;
		return NULL;
	}
	len = payload + (ts >= cc->last_ts && ts - cc->last_ts < TS_COMPACT_MAX ?
			 SLABTRACE_CTF_HDR_COMPACT : SLABTRACE_CTF_HDR_EXTENDED);
	if (unlikely(buf->offset + len > s->chan->subbuf_size)) {
		cc->ts = ts;
		cc->in_event = true;
		len = relay_switch_subbuf(buf, len);
		cc->in_event = false;
		if (!len) {
			cc->lost++;
			return NULL;
		}
	}
	p = buf->data + buf->offset;
	len = slabtrace_ctf_event_header(p, id, ts, cc->last_ts) + payload;
	buf->offset += len;
	cc->last_ts = ts;
	cc->written++;
	return p + len - payload;
}

/**
 * slabtrace_stream_lose - count an event its system could not make
 * @s: the stream, started
 *
 * An event lost before it reached the buffer (kptrace: a call with no
 * entry to follow it) counts with those the full buffer lost: the next
 * packet's events_discarded and total_overruns say it.  Called with
 * preemption disabled, on this CPU's count.
 */
void slabtrace_stream_lose(struct slabtrace_stream *s)
{
	unsigned long flags;

	/* cc->lost is written by its CPU with interrupts off. */
	local_irq_save(flags);
	this_cpu_ptr(s->cpu)->lost++;
	local_irq_restore(flags);
}

/*
 * The events lost (buffer full) and written on @cpu since the start.
 * Called with the system's mutex or the stream's lock held.
 */
VISIBLE_IF_KUNIT unsigned long slabtrace_stream_lost(struct slabtrace_stream *s,
						     int cpu)
{
	lockdep_assert(lockdep_is_held(s->ops->lock) ||
		       lockdep_is_held(&s->lock));
	return s->cpu ? READ_ONCE(per_cpu_ptr(s->cpu, cpu)->lost) : 0;
}

VISIBLE_IF_KUNIT unsigned long slabtrace_stream_written(struct slabtrace_stream *s,
							int cpu)
{
	lockdep_assert(lockdep_is_held(s->ops->lock) ||
		       lockdep_is_held(&s->lock));
	return s->cpu ? READ_ONCE(per_cpu_ptr(s->cpu, cpu)->written) : 0;
}

/**
 * slabtrace_stream_enable - what writing enable does
 * @s: the stream
 * @buf: the words written, NUL-terminated at @len; modified
 * @len: their length as written
 *
 *   0               the system's stop command (nothing may follow)
 *   1 [ARGS...]     its start command, with ARGS
 *   ARGS...         the same as "1 ARGS..."
 *
 * The words are split by ctl's splitter and the command is run through
 * ctl's door (ctl.c), as if written to ctl.  Called with no lock held.
 *
 * Return: 0, -EINVAL (with a log line) for no words, a NUL byte or "0"
 * with more words, or what the command returns.
 */
VISIBLE_IF_KUNIT int slabtrace_stream_enable(struct slabtrace_stream *s,
					     char *buf, size_t len)
{
	char who[48], **argv, **cmd, **words;
	int argc, nr_cmd, skip, ret = -ENOMEM;
	bool stop;

	snprintf(who, sizeof(who), "%s: enable", s->ops->dir);
	argv = slabtrace_ctl_split(who, "input", buf, len, &argc);
	if (IS_ERR(argv))
		return PTR_ERR(argv);
	stop = !strcmp(argv[0], "0");
	if (stop && argc > 1) {
		pr_warn_ratelimited("%s: 0 takes no argument\n", who);
		ret = -EINVAL;
		goto out;
	}
	skip = stop || !strcmp(argv[0], "1");
	cmd = argv_split(GFP_KERNEL, stop ? s->ops->stop_cmd : s->ops->start_cmd,
			 &nr_cmd);
	if (!cmd)
		goto out;
	words = kcalloc(nr_cmd + argc - skip + 1, sizeof(*words), GFP_KERNEL);
	if (words) {
		memcpy(words, cmd, nr_cmd * sizeof(*words));
		memcpy(words + nr_cmd, argv + skip, (argc - skip) * sizeof(*words));
		ret = slabtrace_ctl_run(NULL, nr_cmd + argc - skip, words);
		kfree(words);
	}
	argv_free(cmd);
out:
	argv_free(argv);
	return ret;
}

/**
 * slabtrace_stream_buffer_kb - what writing buffer_kb does
 * @s: the stream
 * @arg: a decimal number of KiB, a trailing newline allowed,
 *	 NUL-terminated at @len
 * @len: its length as written
 *
 * Return: 0, or -EINVAL (not a number) or -ERANGE (beyond 32 bits) with a
 * log line saying which, or what the system's set_buffer_kb returns.
 */
VISIBLE_IF_KUNIT int slabtrace_stream_buffer_kb(struct slabtrace_stream *s,
						char *arg, size_t len)
{
	char esc[SLABTRACE_ESC_SIZE];
	u32 kb;
	int ret;

	if (strlen(arg) != len) {
		pr_warn_ratelimited("%s: buffer_kb: NUL byte in the number\n",
				    s->ops->dir);
		return -EINVAL;
	}
	ret = slabtrace_ctl_u32(arg, &kb);
	if (ret) {
		/* All of it but the one newline kstrtou32() allows. */
		if (len && arg[len - 1] == '\n')
			len--;
		pr_warn_ratelimited("%s: buffer_kb: '%s' is %s\n", s->ops->dir,
				    slabtrace_esc(esc, sizeof(esc), arg, len),
				    ret == -ERANGE ? "out of range" : "not a number");
		return ret;
	}
	mutex_lock(s->ops->lock);
	ret = s->ops->set_buffer_kb(kb);
	mutex_unlock(s->ops->lock);
	return ret;
}

/* enable: 0600; "0" or "1 [ARGS]" (the system's show_enable). */
static int enable_show(struct seq_file *m, void *v)
{
	struct slabtrace_stream *s = m->private;

	mutex_lock(s->ops->lock);
	s->ops->show_enable(m);
	mutex_unlock(s->ops->lock);
	return 0;
}

static int enable_open(struct inode *inode, struct file *file)
{
	return single_open(file, enable_show, slabtrace_file_data(inode));
}

/*
 * A write to enable or buffer_kb: at most @max bytes, given to @run
 * NUL-terminated.
 */
static ssize_t write_to(struct file *file, const char __user *ubuf,
			size_t len, const char *what, size_t max,
			int (*run)(struct slabtrace_stream *s, char *buf,
				   size_t len))
{
	struct slabtrace_stream *s = slabtrace_file_data(file_inode(file));
	char *buf;
	int ret;

	if (len > max) {
		pr_warn_ratelimited("%s: %s: longer than %zu bytes\n",
				    s->ops->dir, what, max);
		return -E2BIG;
	}
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = run(s, buf, len);
	kfree(buf);
	return ret ?: len;
}

static ssize_t enable_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	return write_to(file, ubuf, len, "enable", SLABTRACE_CMD_MAX,
			slabtrace_stream_enable);
}

static const struct file_operations enable_fops = {
	.owner = THIS_MODULE,
	.open = enable_open,
	.read = seq_read,
	.write = enable_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* buffer_kb: 0600; KiB per CPU of the next start. */
static int buffer_kb_show(struct seq_file *m, void *v)
{
	struct slabtrace_stream *s = m->private;

	seq_printf(m, "%u\n", s->ops->buffer_kb());
	return 0;
}

static int buffer_kb_open(struct inode *inode, struct file *file)
{
	return single_open(file, buffer_kb_show, slabtrace_file_data(inode));
}

static ssize_t buffer_kb_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	return write_to(file, ubuf, len, "buffer_kb", 32,
			slabtrace_stream_buffer_kb);
}

static const struct file_operations buffer_kb_fops = {
	.owner = THIS_MODULE,
	.open = buffer_kb_open,
	.read = seq_read,
	.write = buffer_kb_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/*
 * The TSDL every stream shares: the trace (byte order, UUID, packet
 * header), the clock, and the stream: its packet context and its event
 * header; then the env block, the system's entries last.  Called with
 * the system's mutex held and a channel.
 */
static void metadata_common(struct seq_file *m, struct slabtrace_stream *s)
{
	const struct slabtrace_stream_ops *ops = s->ops;
	u32 ns;
	u64 secs = div_u64_rem(s->clock_offset, NSEC_PER_SEC, &ns);

	lockdep_assert_held(ops->lock);
	seq_puts(m,
		 "/* CTF 1.8 */\n\n"
		 "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		 "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
		 "typealias integer { size = 16; align = 8; signed = true; } := int16_t;\n"
		 "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		 "typealias integer { size = 48; align = 8; signed = false; base = hex; } := uint48_hex_t;\n"
		 "typealias integer { size = 32; align = 8; signed = false; base = hex; } := uint32_hex_t;\n"
		 "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n\n");
	seq_printf(m,
		   "trace {\n"
		   "\tmajor = 1;\n\tminor = 8;\n"
		   "\tuuid = \"%pUb\";\n"
		   "\tbyte_order = le;\n"
		   "\tpacket.header := struct {\n"
		   "\t\tuint32_t magic;\n"
		   "\t\tuint8_t uuid[16];\n"
		   "\t\tuint32_t stream_id;\n"
		   "\t};\n"
		   "};\n\n", &s->uuid);
	seq_printf(m,
		   "clock {\n"
		   "\tname = \"monotonic\";\n"
		   "\tuuid = \"%pUb\";\n"
		   "\tdescription = \"monotonic clock, ns (ktime_get_mono_fast_ns)\";\n"
		   "\tfreq = 1000000000;\n"
		   "\toffset_s = %llu;\n"
		   "\toffset = %u;\n"
		   "};\n\n", &s->uuid, secs, ns);
	seq_puts(m,
		 "typealias integer { size = 29; align = 1; signed = false; map = clock.monotonic.value; } := uint29_clock_t;\n"
		 "typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_t;\n\n"
		 "stream {\n"
		 "\tid = 0;\n"
		 "\tevent.header := struct {\n"
		 "\t\tenum : integer { size = 3; align = 8; signed = false; } { compact = 0 ... 6, extended = 7 } id;\n"
		 "\t\tvariant <id> {\n"
		 "\t\t\tstruct { uint29_clock_t timestamp; } compact;\n"
		 "\t\t\tstruct { uint32_t id; uint64_clock_t timestamp; } extended;\n"
		 "\t\t} v;\n"
		 "\t} align(8);\n"
		 "\tpacket.context := struct {\n"
		 "\t\tuint64_clock_t timestamp_begin;\n"
		 "\t\tuint64_clock_t timestamp_end;\n"
		 "\t\tuint64_t content_size;\n"
		 "\t\tuint64_t packet_size;\n"
		 "\t\tuint64_t events_discarded;\n"
		 "\t\tuint64_t packet_seq_num;\n"
		 "\t\tuint32_t cpu_id;\n"
		 "\t};\n"
		 "};\n\n");
	seq_printf(m,
		   "env {\n"
		   "\tdomain = \"kernel\";\n"
		   "\ttracer_name = \"slabtrace-%s\";\n"
		   "\t%s_abi = %d;\n"
		   "\tsysname = \"%s\";\n"
		   "\tkernel_release = \"%s\";\n", ops->name, ops->name,
		   ops->abi_version, utsname()->sysname, utsname()->release);
	if (ops->metadata_env)
		ops->metadata_env(m);
	seq_puts(m, "};\n\n");
}

/* metadata: 0400; the current trace's TSDL, ENODATA before a start. */
static int metadata_show(struct seq_file *m, void *v)
{
	struct slabtrace_stream *s = slabtrace_file_data(file_inode(m->file));
	uuid_t uuid;
	int ret;

	mutex_lock(s->ops->lock);
	if (!s->chan) {
		mutex_unlock(s->ops->lock);
		return -ENODATA;
	}
	metadata_common(m, s);
	uuid = s->uuid;
	mutex_unlock(s->ops->lock);
	ret = s->ops->metadata_events(m);
	if (ret)
		return ret;
	/*
	 * The events' part (kmemtrace's cache table) is taken with the lock
	 * dropped: a trace started meanwhile would mix into this one's.
	 */
	mutex_lock(s->ops->lock);
	if (!uuid_equal(&uuid, &s->uuid)) {
		pr_warn_ratelimited("%s/metadata: a new trace started while it was read: read it again\n",
				    s->ops->name);
		ret = -EAGAIN;
	}
	mutex_unlock(s->ops->lock);
	return ret;
}

/*
 * The opener's struct pid, for the system's reader hook, is the
 * seq_file's: the hook keeps it referenced until the release.
 */
static int metadata_open(struct inode *inode, struct file *file)
{
	struct slabtrace_stream *s = slabtrace_file_data(inode);
	struct pid *tgid = task_tgid(current);
	int ret;

	ret = locked_down(s, "metadata");
	if (ret)
		return ret;
	ret = s->ops->reader ? s->ops->reader(tgid, true) : 0;
	if (ret)
		return ret;
	ret = single_open_size(file, metadata_show, tgid,
			       s->ops->metadata_size);
	if (ret && s->ops->reader)
		s->ops->reader(tgid, false);
	return ret;
}

static int metadata_release(struct inode *inode, struct file *file)
{
	struct slabtrace_stream *s = slabtrace_file_data(inode);
	struct seq_file *m = file->private_data;

	if (s->ops->reader)
		s->ops->reader(m->private, false);
	return single_release(inode, file);
}

static const struct file_operations metadata_fops = {
	.owner = THIS_MODULE,
	.open = metadata_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = metadata_release,
};

static int abi_show(struct seq_file *m, void *v)
{
	struct slabtrace_stream *s = slabtrace_file_data(file_inode(m->file));

	seq_printf(m, "%d\n", s->ops->abi_version);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(abi);

/* The events lost or written: the total, then per CPU, then NMI. */
static void show_counts(struct seq_file *m, struct slabtrace_stream *s,
			bool lost)
{
	unsigned long n, total = 0;
	int cpu;

	mutex_lock(&s->lock);
	for_each_possible_cpu(cpu)
		total += lost ? slabtrace_stream_lost(s, cpu) :
				slabtrace_stream_written(s, cpu);
	if (lost)
		total += atomic_long_read(&s->lost_nmi);
	seq_printf(m, "%lu\n", total);
	for_each_possible_cpu(cpu) {
		n = lost ? slabtrace_stream_lost(s, cpu) :
			   slabtrace_stream_written(s, cpu);
		if (n || cpu_online(cpu))
			seq_printf(m, "cpu%d %lu\n", cpu, n);
	}
	if (lost && atomic_long_read(&s->lost_nmi))
		seq_printf(m, "nmi %ld\n", atomic_long_read(&s->lost_nmi));
	mutex_unlock(&s->lock);
}

static int events_show(struct seq_file *m, void *v)
{
	show_counts(m, slabtrace_file_data(file_inode(m->file)), false);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(events);

static int overruns_show(struct seq_file *m, void *v)
{
	show_counts(m, slabtrace_file_data(file_inode(m->file)), true);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(overruns);

/*
 * cpuN: 0400; the current channel's buffer of CPU N at the open, held by
 * the file (a reference, as relay_file_open() takes) until it closes.
 */
static int cpu_open(struct inode *inode, struct file *file)
{
	struct slabtrace_file *f = slabtrace_file_of(inode);
	struct slabtrace_stream *s = f->data;
	struct rchan_buf *buf = NULL;
	int ret;

	ret = locked_down(s, "cpuN");
	if (ret)
		return ret;
	/* 0400 binds root too: a writable file would allow a writable map. */
	if (file->f_mode & FMODE_WRITE) {
		pr_warn_ratelimited("%s: cpuN: opened for writing: refused, the file is read-only\n",
				    s->ops->dir);
		return -EACCES;
	}
	mutex_lock(&s->lock);
	if (s->chan)
		buf = READ_ONCE(*per_cpu_ptr(s->chan->buf, f - s->cpu_files));
	if (buf)
		kref_get(&buf->kref);
	mutex_unlock(&s->lock);
	if (!buf)
		return -ENODATA;
	file->private_data = buf;
	return nonseekable_open(inode, file);
}

/*
 * The lock of a cpuN inode's CPU: the same for the file in both trees
 * (they share their struct slabtrace_file).
 */
VISIBLE_IF_KUNIT struct mutex *slabtrace_stream_cpu_lock(const struct inode *inode)
{
	struct slabtrace_file *f = slabtrace_file_of(inode);
	struct slabtrace_stream *s = f->data;

	return &s->cpu_locks[f - s->cpu_files];
}

/* Relay's read(), one reader of the CPU at a time in both trees. */
static ssize_t cpu_read(struct file *file, char __user *ubuf, size_t count,
			loff_t *ppos)
{
	struct mutex *lock = slabtrace_stream_cpu_lock(file_inode(file));
	ssize_t ret;

	if (mutex_lock_interruptible(lock))
		return -ERESTARTSYS;
	ret = relay_file_operations.read(file, ubuf, count, ppos);
	mutex_unlock(lock);
	return ret;
}

static __poll_t cpu_poll(struct file *file, poll_table *wait)
{
	struct slabtrace_file *f = slabtrace_file_of(file_inode(file));
	struct slabtrace_stream *s = f->data;

	poll_wait(file, &s->closed, wait);
	return relay_file_operations.poll(file, wait);
}

/*
 * Relay checks a mapping's length, not its offset, and its fault handler
 * adds the offset to the buffer's address: a mapping at an offset would
 * reach the vmalloc pages after the buffer.  So a mapping starts at 0.
 * A writable one is refused too, with a line that says so: a shared one
 * cannot be made anyway (the file is never open for writing, cpu_open()),
 * and a private one would write to copies of the pages, never to the
 * buffer, so the refusal only tells a reader its mistake (an mprotect()
 * of a private one later still gets copies).
 */
static int cpu_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct slabtrace_file *f = slabtrace_file_of(file_inode(file));
	struct slabtrace_stream *s = f->data;

	if (vma->vm_pgoff) {
		pr_warn_ratelimited("%s: cpu%td: mapped at offset %lu KiB: refused, a mapping starts at 0\n",
				    s->ops->dir, f - s->cpu_files,
				    vma->vm_pgoff << (PAGE_SHIFT - 10));
		return -EINVAL;
	}
	if (vma->vm_flags & VM_WRITE) {
		pr_warn_ratelimited("%s: cpu%td: mapped writable: refused, the buffer is read-only\n",
				    s->ops->dir, f - s->cpu_files);
		return -EACCES;
	}
	return slabtrace_relay_mmap(file, vma);
}

/*
 * Give back @n packets of @buf, read from its mapping.  Called with the
 * CPU's lock held (@lock): the count read here only grows meanwhile (the
 * writer adds packets, only the CPU's readers take them).
 */
static long put_packets(struct slabtrace_stream *s, struct mutex *lock,
			struct rchan_buf *buf, unsigned long n)
{
	size_t closed;
	long ret = 0;

	lockdep_assert_held(lock);
	closed = buf->subbufs_produced - buf->subbufs_consumed;
	if (buf->bytes_consumed) {
		pr_warn_ratelimited("%s: cpu%u: packets given back while one is half read\n",
				    s->ops->dir, buf->cpu);
		ret = -EINVAL;
	} else if (n > closed) {
		pr_warn_ratelimited("%s: cpu%u: more packets given back than closed (%lu > %zu)\n",
				    s->ops->dir, buf->cpu, n, closed);
		ret = -EINVAL;
	} else if (n) {
		/*
		 * The reader's loads from the mapping before the writer's
		 * stores into what it gives back (which relay orders no
		 * more than its read() does).
		 */
		smp_mb();
		relay_subbufs_consumed(buf->chan, buf->cpu, n);
	}
	return ret;
}

/*
 * SLABTRACE_CTF_IOC_PUT_PACKETS: the reader copied the next @n packets
 * from its mapping; relay may write over them (relay_subbufs_consumed(),
 * relay's interface for a reader that maps).  The CPU's lock orders it
 * with read(), which takes the same lock, and with another process's
 * ioctl, whichever tree their files are in; the inode's lock is not
 * needed: every reader of the buffer takes the CPU's lock first.
 */
static long cpu_ioctl(struct file *file, unsigned int cmd, unsigned long n)
{
	struct mutex *lock = slabtrace_stream_cpu_lock(file_inode(file));
	struct rchan_buf *buf = file->private_data;
	long ret;

	if (cmd != SLABTRACE_CTF_IOC_PUT_PACKETS)
		return -ENOTTY;
	if (mutex_lock_interruptible(lock))
		return -ERESTARTSYS;
	ret = put_packets(buf->chan->private_data, lock, buf, n);
	mutex_unlock(lock);
	return ret;
}

/* The reference goes; the last one frees the buffer, and its channel. */
static int cpu_release(struct inode *inode, struct file *file)
{
	return relay_file_operations.release(inode, file);
}

static const struct file_operations cpu_fops = {
	.owner = THIS_MODULE,
	.open = cpu_open,
	.read = cpu_read,
	.poll = cpu_poll,
	.mmap = cpu_mmap,
	.unlocked_ioctl = cpu_ioctl,
	.compat_ioctl = cpu_ioctl,
	.release = cpu_release,
};

/**
 * slabtrace_stream_status - what a stream holds, for status
 * @s: the stream
 * @m: where
 *
 * A line if it has buffers: tracing, or stopped with its buffers kept for
 * their readers.  Called with the system's mutex held.
 */
void slabtrace_stream_status(struct slabtrace_stream *s, struct seq_file *m)
{
	unsigned int nr = 0;
	int cpu;

	lockdep_assert_held(s->ops->lock);
	if (!s->chan)
		return;
	for_each_possible_cpu(cpu)
		nr += !!READ_ONCE(*per_cpu_ptr(s->chan->buf, cpu));
	if (s->ops->running())
		seq_printf(m, "%s: tracing, buffers %u x %zu KiB\n",
			   s->ops->dir, nr, s->chan->alloc_size >> 10);
	else
		seq_printf(m, "%s: stopped, its buffers (%u x %zu KiB) kept for reading until the next start or rmmod\n",
			   s->ops->dir, nr, s->chan->alloc_size >> 10);
}

/**
 * slabtrace_stream_init - a stream's directory and files
 * @s: the stream, zeroed
 * @ops: its system's part
 * @extra: the system's own files in the directory, or NULL
 * @nr_extra: how many
 *
 * Not with the system's mutex held.
 *
 * Return: 0 or -errno, with nothing made.
 */
int slabtrace_stream_init(struct slabtrace_stream *s,
			  const struct slabtrace_stream_ops *ops,
			  struct slabtrace_file *extra, unsigned int nr_extra)
{
	static const struct {
		const char *name;
		umode_t mode;
		const struct file_operations *fops;
	} common[SLABTRACE_STREAM_FILES] = {
		{ "enable", 0600, &enable_fops },
		{ "buffer_kb", 0600, &buffer_kb_fops },
		{ "metadata", 0400, &metadata_fops },
		{ "abi_version", 0400, &abi_fops },
		{ "events", 0400, &events_fops },
		{ "total_overruns", 0400, &overruns_fops },
	};
	unsigned int i;
	int cpu, ret;

	s->ops = ops;
	mutex_init(&s->lock);
	init_waitqueue_head(&s->closed);
	s->extra = extra;
	s->nr_extra = nr_extra;
	for (i = 0; i < SLABTRACE_STREAM_FILES; i++)
		s->files[i] = (struct slabtrace_file){
			.name = common[i].name,
			.mode = common[i].mode,
			.fops = common[i].fops,
			.data = s,
		};
	s->cpu_files = kcalloc(nr_cpu_ids, sizeof(*s->cpu_files), GFP_KERNEL);
	s->cpu_names = kcalloc(nr_cpu_ids, sizeof(*s->cpu_names), GFP_KERNEL);
	s->cpu_locks = kcalloc(nr_cpu_ids, sizeof(*s->cpu_locks), GFP_KERNEL);
	ret = -ENOMEM;
	if (!s->cpu_files || !s->cpu_names || !s->cpu_locks)
		goto err;
	for_each_possible_cpu(cpu)
		mutex_init(&s->cpu_locks[cpu]);
	ret = slabtrace_files_add(ops->dir, s->files, SLABTRACE_STREAM_FILES) ?:
	      slabtrace_files_add(ops->dir, extra, nr_extra);
	for_each_possible_cpu(cpu) {
		if (ret)
			break;
		snprintf(s->cpu_names[cpu], sizeof(s->cpu_names[cpu]), "cpu%d",
			 cpu);
		s->cpu_files[cpu] = (struct slabtrace_file){
			.name = s->cpu_names[cpu],
			.mode = 0400,
			.fops = &cpu_fops,
			.data = s,
		};
		ret = slabtrace_files_add(ops->dir, &s->cpu_files[cpu], 1);
	}
	if (ret)
		goto err;
	return 0;

err:
	slabtrace_stream_exit(s);
	return ret;
}

/**
 * slabtrace_stream_exit - the files go, then the channel
 * @s: the stream, initialised (or failing to be); its system stopped
 *     writing to it
 *
 * Its buffers go once no file uses them; none can be open at module
 * exit.  Not with the system's mutex held.  Idempotent.
 */
void slabtrace_stream_exit(struct slabtrace_stream *s)
{
	if (!s->ops)
		return;
	slabtrace_files_remove(s->files, SLABTRACE_STREAM_FILES);
	slabtrace_files_remove(s->extra, s->nr_extra);
	if (s->cpu_files)
		slabtrace_files_remove(s->cpu_files, nr_cpu_ids);
	mutex_lock(s->ops->lock);
	mutex_lock(&s->lock);
	close_channel(s);
	mutex_unlock(&s->lock);
	mutex_unlock(s->ops->lock);
	kfree(s->cpu_files);
	kfree(s->cpu_names);
	kfree(s->cpu_locks);
	s->cpu_files = NULL;
	s->cpu_names = NULL;
	s->cpu_locks = NULL;
	s->ops = NULL;
}
