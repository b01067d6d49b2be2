/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctf.c: the binary stream object.  One per stream (kmemtrace's, kptrace's
 * "ctf"): its directory and common files, its relay channel of per-CPU CTF
 * 1.8 packets (<uapi/slabtrace/ctf.h>), their teardown.  A system supplies
 * its event classes, its commands (as words of ctl) and its extra files
 * through struct slabtrace_stream_ops, and writes events with
 * slabtrace_stream_reserve_at() (or, from its busiest probes, the inline
 * slabtrace_stream_reserve_fast()).
 */
#ifndef _SLABTRACE_CTF_H
#define _SLABTRACE_CTF_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/relay.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/types.h>
#include <linux/uuid.h>
#include <linux/wait.h>

#include <uapi/slabtrace/ctf.h>

#include <slabtrace/files.h>

struct pid;
struct seq_file;

/* Per CPU; written only by that CPU with interrupts off, or when idle. */
struct slabtrace_stream_cpu {
	void *open;		/* the open packet's header, or NULL */
	u64 seq;		/* the next packet's number */
	u64 last_ts;		/* the clock as the reader will know it */
	u64 ts;			/* the time of the event being written */
	bool in_event;		/* a switch is made by an event at @ts */
	unsigned long written;	/* events */
	unsigned long lost;	/* events lost: buffer full */
};

/**
 * struct slabtrace_stream_ops - what a system gives its stream
 * @name: the system: the metadata's tracer_name is "slabtrace-NAME" and
 *	  its ABI entry NAME_abi
 * @dir: the stream's directory below slabtrace's root, and the first word
 *	 of its log lines
 * @abi_version: what abi_version reads, and NAME_abi
 * @metadata_size: the first buffer for the metadata text
 * @kernel_addresses: its events hold kernel addresses: refused, started or
 *		      read, under lockdown=confidentiality
 * @lock: the system's mutex, which the stream holds while it calls
 *	  @show_enable, @set_buffer_kb and @metadata_env, and which the
 *	  system holds while it opens, flushes or shows the stream
 * @start_cmd: the ctl command that starts the stream ("kmemtrace start"):
 *	       writing "1 ARGS" (or "ARGS") to enable runs it with ARGS
 * @stop_cmd: the ctl command that stops it: writing "0" runs it
 * @show_enable: what reading enable gives, "0" or "1 [ARGS]" and a
 *		 newline; @lock held
 * @running: whether events are being written
 * @buffer_kb: KiB per CPU of the next start
 * @set_buffer_kb: set that, or fail with -errno and a log line; @lock
 *		   held
 * @metadata_env: its entries of the env block, after the common ones;
 *		  @lock held
 * @metadata_events: its types and event classes; no lock held
 * @reader: NULL, or called with the struct pid (task_tgid()) of the
 *	    process opening (@add) or having closed the metadata file; may
 *	    refuse the open
 */
struct slabtrace_stream_ops {
	const char *name;
	const char *dir;
	int abi_version;
	size_t metadata_size;
	bool kernel_addresses;
	struct mutex *lock;		/* the system's (see above) */
	const char *start_cmd;
	const char *stop_cmd;
	void (*show_enable)(struct seq_file *m);
	bool (*running)(void);
	unsigned int (*buffer_kb)(void);
	int (*set_buffer_kb)(unsigned int kb);
	void (*metadata_env)(struct seq_file *m);
	int (*metadata_events)(struct seq_file *m);
	int (*reader)(struct pid *tgid, bool add);
};

/* enable, buffer_kb, metadata, abi_version, events, total_overruns. */
#define SLABTRACE_STREAM_FILES	6

/**
 * struct slabtrace_stream - one binary stream
 * @ops: its system's part
 * @lock: the channel: @chan, @cpu, @uuid, @clock_offset are written with
 *	  it and the system's lock (@ops->lock) held, and read with either;
 *	  a cpuN open takes a buffer under it
 * @chan: the relay channel, buffer-only; NULL before the first start
 * @cpu: the packet writer's state of each CPU, for @chan
 * @uuid: the trace's, new at each start
 * @clock_offset: realtime - monotonic at the start, ns
 * @lost_nmi: events lost: in NMI context
 * @files: the common files
 * @extra: the system's own files in the directory
 * @nr_extra: how many
 * @cpu_files: cpu0, cpu1, ...: one per possible CPU, from init to exit
 * @cpu_names: their names
 * @cpu_locks: one per CPU, taken by every read() and ioctl of its cpuN
 *	       file, in either tree (ctf.c's "Notes on locking")
 */
struct slabtrace_stream {
	const struct slabtrace_stream_ops *ops;
	struct mutex lock;		/* the channel (see above) */
	struct rchan *chan;
	/* Woken when a channel closes: its files' poll() says POLLERR. */
	wait_queue_head_t closed;
	struct slabtrace_stream_cpu __percpu *cpu;
	uuid_t uuid;
	u64 clock_offset;
	atomic_long_t lost_nmi;
	struct slabtrace_file files[SLABTRACE_STREAM_FILES];
	struct slabtrace_file *extra;
	unsigned int nr_extra;
	struct slabtrace_file *cpu_files;
	char (*cpu_names)[16];
	struct mutex *cpu_locks;	/* a CPU's readers, both trees */
};

int slabtrace_stream_init(struct slabtrace_stream *s,
			  const struct slabtrace_stream_ops *ops,
			  struct slabtrace_file *extra, unsigned int nr_extra);
void slabtrace_stream_exit(struct slabtrace_stream *s);
int slabtrace_stream_open(struct slabtrace_stream *s, size_t subbuf_size,
			  size_t n_subbufs);
void slabtrace_stream_close(struct slabtrace_stream *s);
void slabtrace_stream_flush(struct slabtrace_stream *s);
void slabtrace_stream_status(struct slabtrace_stream *s, struct seq_file *m);
u8 *slabtrace_stream_reserve_at(struct slabtrace_stream *s, unsigned int id,
				size_t payload, u64 ts);
void slabtrace_stream_lose(struct slabtrace_stream *s);

/* The packets (<uapi/slabtrace/ctf.h>)'s clock: monotonic ns, safe in any context. */
static inline u64 slabtrace_ctf_clock(void)
{
	return ktime_get_mono_fast_ns();
}

/* Little-endian stores at any alignment (the header moved between 6.1 and 6.12). */
static inline void slabtrace_put_le16(u8 *p, u16 v)
{
	__le16 x = cpu_to_le16(v);

	memcpy(p, &x, sizeof(x));
}

static inline void slabtrace_put_le32(u8 *p, u32 v)
{
	__le32 x = cpu_to_le32(v);

	memcpy(p, &x, sizeof(x));
}

static inline void slabtrace_put_le64(u8 *p, u64 v)
{
	__le64 x = cpu_to_le64(v);

	memcpy(p, &x, sizeof(x));
}

static inline void slabtrace_put_le48(u8 *p, u64 v)
{
	slabtrace_put_le32(p, (u32)v);
	slabtrace_put_le16(p + 4, (u16)(v >> 32));
}

/**
 * slabtrace_stream_reserve_fast - slabtrace_stream_reserve_at(), inline
 * @s: the stream, started
 * @id: the event id
 * @payload: the size of its fields
 * @ts: the event's time, slabtrace_ctf_clock() read by the caller
 *
 * For the probes of the busiest events: the common case, a compact
 * header in the open packet, inline; anything else (no buffer, an
 * extended header, a packet switch) by slabtrace_stream_reserve_at().
 * Called with interrupts disabled.
 *
 * Return: as slabtrace_stream_reserve_at().
 */
static __always_inline u8 *slabtrace_stream_reserve_fast(struct slabtrace_stream *s,
							 unsigned int id,
							 size_t payload, u64 ts)
{
	struct slabtrace_stream_cpu *cc = this_cpu_ptr(s->cpu);
	struct rchan_buf *buf = *this_cpu_ptr(s->chan->buf);
	size_t len = SLABTRACE_CTF_HDR_COMPACT + payload;
	u8 *p;

	/* ts < last_ts wraps to a large difference: not compact either. */
	if (unlikely(!buf || id >= SLABTRACE_CTF_EXTENDED ||
		     ts - cc->last_ts >= BIT_ULL(SLABTRACE_CTF_COMPACT_TS_BITS) ||
		     buf->offset + len > s->chan->subbuf_size))
		return slabtrace_stream_reserve_at(s, id, payload, ts);
	p = buf->data + buf->offset;
	slabtrace_put_le32(p, id | (u32)(ts << SLABTRACE_CTF_COMPACT_ID_BITS));
	buf->offset += len;
	cc->last_ts = ts;
	cc->written++;
	return p + SLABTRACE_CTF_HDR_COMPACT;
}

/*
 * Global only for the KUnit suites: static in the module
 * (VISIBLE_IF_KUNIT, <kunit/visibility.h>).
 */
#if IS_ENABLED(CONFIG_KUNIT)
unsigned int slabtrace_ctf_event_header(u8 *p, unsigned int id, u64 ts,
					u64 last_ts);
int slabtrace_stream_buffer_kb(struct slabtrace_stream *s, char *arg,
			       size_t len);
int slabtrace_stream_enable(struct slabtrace_stream *s, char *buf,
			    size_t len);
unsigned long slabtrace_stream_lost(struct slabtrace_stream *s, int cpu);
unsigned long slabtrace_stream_written(struct slabtrace_stream *s, int cpu);
struct mutex *slabtrace_stream_cpu_lock(const struct inode *inode);
#endif

#endif /* _SLABTRACE_CTF_H */
