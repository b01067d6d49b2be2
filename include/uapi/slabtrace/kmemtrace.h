/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kmemtrace: the events of a trace, as the recorder and the report parse
 * them.  The packets and event headers are those of every slabtrace stream
 * (<ctf.h>); the TSDL metadata the module writes
 * (/proc/slabtrace/kmemtrace/metadata) describes the same layout, so a CTF
 * reader needs nothing from this file.
 */
#ifndef _UAPI_SLABTRACE_KMEMTRACE_H
#define _UAPI_SLABTRACE_KMEMTRACE_H

#include <linux/types.h>

#include "ctf.h"

#define KMEMTRACE_ABI_VERSION		2
#define KMEMTRACE_BUFFER_KB_MIN		16
#define KMEMTRACE_BUFFER_KB_MAX		65536
#define KMEMTRACE_BUFFER_KB_DEFAULT	1024

/* Event ids. */
enum kmt_event_id {
	KMEMTRACE_KMALLOC,
	KMEMTRACE_KMEM_CACHE_ALLOC,
	KMEMTRACE_KFREE,
	KMEMTRACE_KMEM_CACHE_FREE,
	KMEMTRACE_NR_EVENTS,
};

/* Field sizes, in bytes, of the payloads. */
#define KMEMTRACE_CALL_SITE_SIZE	4	/* call_site - call_site_base */
#define KMEMTRACE_PTR_SIZE		6	/* ptr - ptr_base (48 bits) */
#define KMEMTRACE_ALLOC_PAYLOAD		26	/* call_site ptr req alloc gfp cache node */
#define KMEMTRACE_FREE_PAYLOAD		12	/* call_site ptr cache */

/* Cache ids: 0 is "no cache" (kfree of unknown, or the page allocator). */
#define KMEMTRACE_CACHE_NONE	0
#define KMEMTRACE_CACHE_PAGES	1	/* kmalloc served by the page allocator */
#define KMEMTRACE_CACHE_FIRST	2
#define KMEMTRACE_CACHE_UNKNOWN	0xffff	/* the table was full */

/* The packet format's names from before it was shared (<ctf.h>'s now). */
#define KMEMTRACE_SUBBUFS	SLABTRACE_CTF_SUBBUFS
#define KMEMTRACE_PACKET_SIZE	SLABTRACE_CTF_PACKET_SIZE
#define kmt_packet		slabtrace_ctf_packet

#endif /* _UAPI_SLABTRACE_KMEMTRACE_H */
