/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kmemtrace: the binary format of a trace, as the recorder and the report
 * parse it.  The trace is CTF 1.8; the TSDL metadata the module writes
 * (/sys/kernel/debug/slabtrace/kmemtrace/metadata) describes the same
 * layout, so a CTF reader needs nothing from this file.
 *
 * A stream (one per CPU) is a sequence of packets, one per relay
 * sub-buffer.  A packet is a header (struct kmt_packet) then events.  An
 * event is a 4-byte compact header, 29 bits of time and 3 bits of event id,
 * or, when the id is KMT_EXTENDED, a 13-byte one: the id byte, a 32-bit id
 * and a 64-bit time; then the event's fields, byte-aligned, little-endian.
 */
#ifndef _UAPI_SLABTRACE_KMEMTRACE_H
#define _UAPI_SLABTRACE_KMEMTRACE_H

#include <linux/types.h>

#define KMT_ABI_VERSION		1
#define KMT_MAGIC		0xC1FC1FC1
#define KMT_SUBBUFS		8	/* sub-buffers per CPU buffer */
#define KMT_BUFFER_KB_MIN	16
#define KMT_BUFFER_KB_MAX	65536
#define KMT_BUFFER_KB_DEFAULT	1024

/* Event ids. */
enum kmt_event_id {
	KMT_KMALLOC,
	KMT_KMEM_CACHE_ALLOC,
	KMT_KFREE,
	KMT_KMEM_CACHE_FREE,
	KMT_NR_EVENTS,
	KMT_EXTENDED = 7,
};

#define KMT_COMPACT_ID_BITS	3
#define KMT_COMPACT_TS_BITS	29
#define KMT_HDR_COMPACT		4
#define KMT_HDR_EXTENDED	13

/* Field sizes, in bytes, of the payloads. */
#define KMT_CALL_SITE_SIZE	4	/* call_site - call_site_base */
#define KMT_PTR_SIZE		6	/* ptr - ptr_base (48 bits) */
#define KMT_ALLOC_PAYLOAD	26	/* call_site ptr req alloc gfp cache node */
#define KMT_FREE_PAYLOAD	12	/* call_site ptr cache */

/* Cache ids: 0 is "no cache" (kfree of unknown, or the page allocator). */
#define KMT_CACHE_NONE		0
#define KMT_CACHE_PAGES		1	/* kmalloc served by the page allocator */
#define KMT_CACHE_FIRST		2
#define KMT_CACHE_UNKNOWN	0xffff	/* the table was full */

/* The packet header and context, as they are at the start of a packet. */
struct kmt_packet {
	__u32 magic;
	__u8 uuid[16];
	__u32 stream_id;
	__u64 timestamp_begin;		/* ns, the trace clock */
	__u64 timestamp_end;
	__u64 content_size;		/* bits; 0 while the packet is open */
	__u64 packet_size;		/* bits; = content_size */
	__u64 events_discarded;		/* lost on this CPU, since start */
	__u64 packet_seq_num;		/* 0, 1, ... per CPU */
	__u32 cpu_id;
} __attribute__((packed));

#define KMT_PACKET_SIZE		76

#endif /* _UAPI_SLABTRACE_KMEMTRACE_H */
