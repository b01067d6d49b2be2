// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: per-CPU buffers of CTF 1.8 packets, on relay.
 *
 * Each CPU writes its own relay buffer, in no-overwrite mode: a full
 * buffer loses the new events, and counts them.  A relay sub-buffer is one
 * CTF packet: the subbuf_start callback, called by relay at every switch,
 * closes the previous packet (end time, size, events discarded so far) and
 * writes the header and context of the next one.  Relay's read() skips
 * the padding at the end of a sub-buffer, so the bytes a reader gets are
 * the packets back to back, each packet_size long: a CTF stream file.
 *
 * A reader must take a sub-buffer only once its packet is closed: it maps
 * the buffer, waits for the packet at its position to have the sequence
 * number it expects and a non-zero content_size (stored last, with release
 * semantics), then read()s exactly that many bytes, which also tells relay
 * the sub-buffer is free (scripts/tools/kmemtrace/record.c).
 *
 * Notes on locking
 * ----------------
 * - No lock.  A CPU's buffer and struct slabtrace_ctf_cpu are written by
 *   that CPU with interrupts disabled (an event, or a switch inside it), or
 *   by slabtrace_ctf_flush()/close() once no writer can run (the caller
 *   unregistered its probes and waited for them).
 * - Events in NMI context are not written, only counted (lost_nmi).
 * - slabtrace_mutex: taken to show the count files; the users open and
 *   close their streams under it.
 */
#include <linux/bits.h>
#include <linux/debugfs.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/relay.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <uapi/slabtrace/kmemtrace.h>

#include <slabtrace/ctf.h>
#include <slabtrace/slabtrace.h>

#define TS_COMPACT_MAX	BIT_ULL(KMT_COMPACT_TS_BITS)

/**
 * slabtrace_ctf_packet_open - write a packet's header and context
 * @c: the stream set
 * @subbuf: the start of the sub-buffer
 * @cpu: the stream's CPU
 * @ts: its begin time
 *
 * content_size and packet_size stay 0 until the packet is closed.
 */
void slabtrace_ctf_packet_open(struct slabtrace_ctf *c, void *subbuf,
			       unsigned int cpu, u64 ts)
{
	struct slabtrace_ctf_cpu *cc = per_cpu_ptr(c->cpu, cpu);
	u8 *p = subbuf;

	memset(p, 0, KMT_PACKET_SIZE);
	slabtrace_put_le32(p + offsetof(struct kmt_packet, magic), KMT_MAGIC);
	memcpy(p + offsetof(struct kmt_packet, uuid), &c->uuid, 16);
	slabtrace_put_le64(p + offsetof(struct kmt_packet, timestamp_begin), ts);
	slabtrace_put_le64(p + offsetof(struct kmt_packet, packet_seq_num),
			   cc->seq++);
	slabtrace_put_le32(p + offsetof(struct kmt_packet, cpu_id), cpu);
	cc->open = subbuf;
	cc->last_ts = ts;
}

/**
 * slabtrace_ctf_packet_close - finish a packet
 * @subbuf: its start
 * @size: the bytes it holds, header included
 * @ts: its end time
 * @lost: the events lost on its CPU since the trace began
 */
void slabtrace_ctf_packet_close(void *subbuf, size_t size, u64 ts,
				unsigned long lost)
{
	u8 *p = subbuf;
	__le64 bits = cpu_to_le64((u64)size * 8);

	slabtrace_put_le64(p + offsetof(struct kmt_packet, timestamp_end), ts);
	slabtrace_put_le64(p + offsetof(struct kmt_packet, events_discarded),
			   lost);
	slabtrace_put_le64(p + offsetof(struct kmt_packet, packet_size),
			   (u64)size * 8);
	/* The reader takes the packet once it sees this: the last store. */
	smp_store_release((__le64 *)(p + offsetof(struct kmt_packet,
						  content_size)), bits);
}

/* relay: a switch to @subbuf, from @prev (NULL at the first). */
static int subbuf_start(struct rchan_buf *buf, void *subbuf, void *prev,
			size_t prev_padding)
{
	struct slabtrace_ctf *c = buf->chan->private_data;
	struct slabtrace_ctf_cpu *cc = per_cpu_ptr(c->cpu, buf->cpu);
	u64 now = cc->in_event ? cc->ts : slabtrace_ctf_clock();

	/* While the buffer is full relay calls again with the closed one. */
	if (prev && prev == cc->open) {
		slabtrace_ctf_packet_close(prev,
					   buf->chan->subbuf_size - prev_padding,
					   now, cc->lost);
		cc->open = NULL;
	}
	if (relay_buf_full(buf))
		return 0;
	slabtrace_ctf_packet_open(c, subbuf, buf->cpu, now);
	subbuf_start_reserve(buf, KMT_PACKET_SIZE);
	return 1;
}

static struct dentry *create_buf_file(const char *filename,
				      struct dentry *parent, umode_t mode,
				      struct rchan_buf *buf, int *is_global)
{
	*is_global = 0;
	/*
	 * Not debugfs' full proxy, which has no mmap: relay's own file
	 * operations, safe after the file goes (an open file holds the
	 * buffer, and relay is not in this module).
	 */
	return debugfs_create_file_unsafe(filename, 0400, parent, buf,
					  &relay_file_operations);
}

static int remove_buf_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks relay_callbacks = {
	.subbuf_start = subbuf_start,
	.create_buf_file = create_buf_file,
	.remove_buf_file = remove_buf_file,
};

/**
 * slabtrace_ctf_open - create the per-CPU buffers and their files
 * @c: zeroed, or closed
 * @dir: the debugfs directory of the files cpu0, cpu1, ...
 * @subbuf_size: bytes of a sub-buffer (a packet)
 * @n_subbufs: sub-buffers per CPU
 *
 * Return: 0 or -errno.
 */
int slabtrace_ctf_open(struct slabtrace_ctf *c, struct dentry *dir,
		       size_t subbuf_size, size_t n_subbufs)
{
	c->cpu = alloc_percpu(struct slabtrace_ctf_cpu);
	if (!c->cpu)
		return -ENOMEM;
	uuid_gen(&c->uuid);
	c->clock_offset = ktime_get_real_ns() - slabtrace_ctf_clock();
	atomic_long_set(&c->lost_nmi, 0);
	c->chan = relay_open("cpu", dir, subbuf_size, n_subbufs,
			     &relay_callbacks, c);
	if (!c->chan) {
		free_percpu(c->cpu);
		c->cpu = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Close every open packet.  No writer may run. */
void slabtrace_ctf_flush(struct slabtrace_ctf *c)
{
	if (c->chan)
		relay_flush(c->chan);
}

/* Free the buffers (after the last reader closes its file).  Idempotent. */
void slabtrace_ctf_close(struct slabtrace_ctf *c)
{
	if (c->chan)
		relay_close(c->chan);
	c->chan = NULL;
	free_percpu(c->cpu);
	c->cpu = NULL;
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
unsigned int slabtrace_ctf_event_header(u8 *p, unsigned int id, u64 ts,
					u64 last_ts)
{
	if (id < KMT_EXTENDED && ts >= last_ts && ts - last_ts < TS_COMPACT_MAX) {
		slabtrace_put_le32(p, id | (u32)(ts << KMT_COMPACT_ID_BITS));
		return KMT_HDR_COMPACT;
	}
	p[0] = KMT_EXTENDED;
	slabtrace_put_le32(p + 1, id);
	slabtrace_put_le64(p + 5, ts);
	return KMT_HDR_EXTENDED;
}

/**
 * slabtrace_ctf_reserve_at - room for one event in this CPU's buffer
 * @c: the streams
 * @id: the event id
 * @payload: the size of its fields
 * @ts: the event's time, slabtrace_ctf_clock() read by the caller
 *
 * Called with interrupts disabled.  Writes the event header.
 *
 * Return: where to write the @payload bytes, or NULL when the event is
 * lost (counted).
 */
u8 *slabtrace_ctf_reserve_at(struct slabtrace_ctf *c, unsigned int id,
			     size_t payload, u64 ts)
{
	struct slabtrace_ctf_cpu *cc = this_cpu_ptr(c->cpu);
	struct rchan_buf *buf = *this_cpu_ptr(c->chan->buf);
	size_t len;
	u8 *p;

	lockdep_assert_irqs_disabled();
	if (unlikely(!buf)) {
		cc->lost++;
		return NULL;
	}
	len = payload + (ts >= cc->last_ts && ts - cc->last_ts < TS_COMPACT_MAX ?
			 KMT_HDR_COMPACT : KMT_HDR_EXTENDED);
	if (unlikely(buf->offset + len > c->chan->subbuf_size)) {
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

/* As slabtrace_ctf_reserve_at(), at the time of the call. */
u8 *slabtrace_ctf_reserve(struct slabtrace_ctf *c, unsigned int id,
			  size_t payload)
{
	return slabtrace_ctf_reserve_at(c, id, payload, slabtrace_ctf_clock());
}

unsigned long slabtrace_ctf_lost(struct slabtrace_ctf *c, int cpu)
{
	return c->cpu ? READ_ONCE(per_cpu_ptr(c->cpu, cpu)->lost) : 0;
}

unsigned long slabtrace_ctf_written(struct slabtrace_ctf *c, int cpu)
{
	return c->cpu ? READ_ONCE(per_cpu_ptr(c->cpu, cpu)->written) : 0;
}

/* The events lost or written: the total, then per CPU, then NMI. */
static void show_counts(struct seq_file *m, struct slabtrace_ctf *c,
			bool lost)
{
	unsigned long n, total = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		total += lost ? slabtrace_ctf_lost(c, cpu) :
				slabtrace_ctf_written(c, cpu);
	if (lost)
		total += atomic_long_read(&c->lost_nmi);
	seq_printf(m, "%lu\n", total);
	for_each_possible_cpu(cpu) {
		n = lost ? slabtrace_ctf_lost(c, cpu) :
			   slabtrace_ctf_written(c, cpu);
		if (n || cpu_online(cpu))
			seq_printf(m, "cpu%d %lu\n", cpu, n);
	}
	if (lost && atomic_long_read(&c->lost_nmi))
		seq_printf(m, "nmi %ld\n", atomic_long_read(&c->lost_nmi));
}

static int events_show(struct seq_file *m, void *v)
{
	mutex_lock(&slabtrace_mutex);
	show_counts(m, m->private, false);
	mutex_unlock(&slabtrace_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(events);

static int overruns_show(struct seq_file *m, void *v)
{
	mutex_lock(&slabtrace_mutex);
	show_counts(m, m->private, true);
	mutex_unlock(&slabtrace_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(overruns);

/**
 * slabtrace_ctf_count_files - the files that count a stream set's events
 * @dir: where
 * @c: the streams (read as zeros while never opened); its user opens and
 *     closes them under slabtrace_mutex, which reading the files takes
 *
 * "events", the events written, and "total_overruns", the events lost
 * (buffer full, or in NMI context): each the total, then a "cpuN COUNT"
 * line per CPU online or with a count, then "nmi COUNT" for the lost ones
 * if any were in NMI context.
 */
void slabtrace_ctf_count_files(struct dentry *dir, struct slabtrace_ctf *c)
{
	debugfs_create_file("events", 0400, dir, c, &events_fops);
	debugfs_create_file("total_overruns", 0400, dir, c, &overruns_fops);
}

/**
 * slabtrace_ctf_metadata - the TSDL every stream of this file shares
 * @m: where
 * @c: the streams (their UUID and clock offset)
 *
 * The trace (byte order, UUID, packet header), the clock, and the stream:
 * its packet context and its event header.  The caller adds an env block
 * and the event classes, of stream 0.
 */
void slabtrace_ctf_metadata(struct seq_file *m, struct slabtrace_ctf *c)
{
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
		   "};\n\n", &c->uuid);
	seq_printf(m,
		   "clock {\n"
		   "\tname = \"monotonic\";\n"
		   "\tuuid = \"%pUb\";\n"
		   "\tdescription = \"monotonic clock, ns (ktime_get_mono_fast_ns)\";\n"
		   "\tfreq = 1000000000;\n"
		   "\toffset_s = %llu;\n"
		   "\toffset = %llu;\n"
		   "};\n\n", &c->uuid, div_u64(c->clock_offset, NSEC_PER_SEC),
		   c->clock_offset % NSEC_PER_SEC);
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
}
