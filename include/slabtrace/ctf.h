/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctf.c: per-CPU relay buffers of CTF 1.8 packets, shared by the systems
 * that write a binary stream (kmemtrace, kptrace).  One packet per relay
 * sub-buffer; the packet header is struct slabtrace_ctf_packet of
 * <uapi/slabtrace/ctf.h>, the event header its compact or extended
 * form.  The metadata's common part (trace, clock, stream) comes from
 * slabtrace_ctf_metadata(); each system adds its env and event classes.
 */
#ifndef _SLABTRACE_CTF_H
#define _SLABTRACE_CTF_H

#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/relay.h>
#include <linux/types.h>
#include <linux/uuid.h>

struct dentry;
struct seq_file;

/* Per CPU; written only by that CPU with interrupts off, or when idle. */
struct slabtrace_ctf_cpu {
	void *open;		/* the open packet's header, or NULL */
	u64 seq;		/* the next packet's number */
	u64 last_ts;		/* the clock as the reader will know it */
	u64 ts;			/* the time of the event being written */
	bool in_event;		/* a switch is made by an event at @ts */
	unsigned long written;	/* events */
	unsigned long lost;	/* events lost: buffer full */
};

struct slabtrace_ctf {
	struct rchan *chan;
	struct slabtrace_ctf_cpu __percpu *cpu;
	uuid_t uuid;
	u64 clock_offset;	/* realtime - monotonic at open, ns */
	atomic_long_t lost_nmi;	/* events lost: NMI context */
};

int slabtrace_ctf_open(struct slabtrace_ctf *c, struct dentry *dir,
		       size_t subbuf_size, size_t n_subbufs);
void slabtrace_ctf_flush(struct slabtrace_ctf *c);
void slabtrace_ctf_close(struct slabtrace_ctf *c);
u8 *slabtrace_ctf_reserve(struct slabtrace_ctf *c, unsigned int id,
			  size_t payload);
u8 *slabtrace_ctf_reserve_at(struct slabtrace_ctf *c, unsigned int id,
			     size_t payload, u64 ts);
void slabtrace_ctf_count_files(struct dentry *dir, struct slabtrace_ctf *c);
unsigned long slabtrace_ctf_lost(struct slabtrace_ctf *c, int cpu);
unsigned long slabtrace_ctf_written(struct slabtrace_ctf *c, int cpu);
void slabtrace_ctf_metadata(struct seq_file *m, struct slabtrace_ctf *c);
unsigned int slabtrace_ctf_event_header(u8 *p, unsigned int id, u64 ts,
					u64 last_ts);
void slabtrace_ctf_packet_open(struct slabtrace_ctf *c, void *subbuf,
			       unsigned int cpu, u64 ts);
void slabtrace_ctf_packet_close(void *subbuf, size_t size, u64 ts,
				unsigned long lost);

/* The trace clock: monotonic ns, safe in any context. */
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

#endif /* _SLABTRACE_CTF_H */
