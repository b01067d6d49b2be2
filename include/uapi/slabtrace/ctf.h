/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The packets of slabtrace's binary streams, kmemtrace's
 * (<kmemtrace.h>) and kptrace's (<kptrace.h>), as a recorder or a
 * program parsing them sees them.  A stream is CTF 1.8; the TSDL metadata
 * the module writes (its directory's "metadata" file) describes the same
 * layout, so a CTF reader needs nothing from here.
 *
 * Each CPU has its own stream, a sequence of packets, one per relay
 * sub-buffer (SLABTRACE_CTF_SUBBUFS per CPU buffer).  A packet is a header
 * (struct slabtrace_ctf_packet) then events.  An event is a 4-byte compact
 * header, 29 bits of time and 3 bits of event id, or, when the id is
 * SLABTRACE_CTF_EXTENDED, a 13-byte one: the id byte, a 32-bit id and a
 * 64-bit time; then the event's fields, byte-aligned, little-endian.
 */
#ifndef _UAPI_SLABTRACE_CTF_H
#define _UAPI_SLABTRACE_CTF_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SLABTRACE_CTF_MAGIC		0xC1FC1FC1
#define SLABTRACE_CTF_SUBBUFS		8	/* sub-buffers (packets) per CPU buffer */

/*
 * A reader takes a CPU's packets either with read() of its cpuN file, or
 * through a mapping of it: it copies the closed packets from the mapping,
 * then gives them back with this ioctl on that file, its argument the
 * number of packets, so that the CPU may write over them.  0 does nothing:
 * a reader asks with it whether the module has the ioctl (ENOTTY if not).
 * More packets than the CPU has closed since the last taken: EINVAL.  A
 * reader uses one way or the other, never both.  In the mapping, the
 * packet due is closed when its packet_seq_num, loaded first (acquire),
 * is the one due and then its content_size, loaded next (acquire), is
 * not 0; in the other order, the content_size of the packet given back
 * before may be read for it.
 */
#define SLABTRACE_CTF_IOC_MAGIC		0xC1
#define SLABTRACE_CTF_IOC_PUT_PACKETS	_IO(SLABTRACE_CTF_IOC_MAGIC, 1)

/* The event header. */
#define SLABTRACE_CTF_EXTENDED		7	/* the compact id of an extended header */
#define SLABTRACE_CTF_COMPACT_ID_BITS	3
#define SLABTRACE_CTF_COMPACT_TS_BITS	29
#define SLABTRACE_CTF_HDR_COMPACT	4
#define SLABTRACE_CTF_HDR_EXTENDED	13

/* The packet header and context, as they are at the start of a packet. */
struct slabtrace_ctf_packet {
	__u32 magic;
	__u8 uuid[16];			/* the trace's: new at each start */
	__u32 stream_id;
	__u64 timestamp_begin;		/* ns, the trace clock */
	__u64 timestamp_end;
	__u64 content_size;		/* bits; 0 while the packet is open */
	__u64 packet_size;		/* bits; = content_size */
	__u64 events_discarded;		/* lost on this CPU, since start */
	__u64 packet_seq_num;		/* 0, 1, ... per CPU */
	__u32 cpu_id;
} __attribute__((packed));

#define SLABTRACE_CTF_PACKET_SIZE	76

#endif /* _UAPI_SLABTRACE_CTF_H */
