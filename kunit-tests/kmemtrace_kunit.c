// SPDX-License-Identifier: GPL-2.0
/*
 * The "slabtrace_kmemtrace" suite proves kmemtrace's encoder and buffers
 * without tracepoints: the event header's two forms, bit by bit; the
 * payloads' sizes and fields; CTF packets in relay sub-buffers, their
 * header, the switch to the next one with the padding left out of the
 * closed packet's size; the probes' inline reserve writing the bytes the
 * out-of-line one writes; events lost to a full buffer, counted, and carried
 * by the next packet that closes; the cache table's ids, a cache
 * destroyed and another made during a trace kept apart, the slab size
 * listed for each cache (its slab_size, not the object size), a name with
 * a comma listed as one name, in the file and the metadata; and a real
 * trace of kmalloc-64 holding the events of one kmalloc(50) and kfree().
 */
#include <kunit/test.h>
#include <linux/irqflags.h>
#include <linux/relay.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <uapi/slabtrace/ctf.h>
#include <uapi/slabtrace/kmemtrace.h>

#include "../module/kmemtrace/kmemtrace.h"
#include "st_kunit.h"

#define SUBBUF	2048

static u64 le(const u8 *p, unsigned int n)
{
	u64 v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* A field of a packet's header: 32 bits for magic and cpu_id, else 64. */
#define PKT32(p, f) le((p) + offsetof(struct slabtrace_ctf_packet, f), 4)
#define PKT(p, f) le((p) + offsetof(struct slabtrace_ctf_packet, f), 8)

static void header_forms(struct kunit *test)
{
	u8 b[16];
	u64 ts = 0x123456789ULL;

	KUNIT_EXPECT_EQ(test, sizeof(struct slabtrace_ctf_packet),
			SLABTRACE_CTF_PACKET_SIZE);
	/* Compact: 3 bits of id, the low 29 bits of the time. */
	KUNIT_EXPECT_EQ(test, slabtrace_ctf_event_header(b, 2, ts, ts - 5), 4U);
	KUNIT_EXPECT_EQ(test, le(b, 4) & 7, 2ULL);
	KUNIT_EXPECT_EQ(test, le(b, 4) >> 3, ts & (BIT_ULL(29) - 1));
	KUNIT_EXPECT_EQ(test, slabtrace_ctf_event_header(b, 0, ts,
							 ts - BIT_ULL(29) + 1), 4U);
	/* Extended: 2^29 ns or more since the last, time backwards, id 7+. */
	KUNIT_EXPECT_EQ(test, slabtrace_ctf_event_header(b, 3, ts,
							 ts - BIT_ULL(29)), 13U);
	KUNIT_EXPECT_EQ(test, b[0], SLABTRACE_CTF_EXTENDED);
	KUNIT_EXPECT_EQ(test, le(b + 1, 4), 3ULL);
	KUNIT_EXPECT_EQ(test, le(b + 5, 8), ts);
	KUNIT_EXPECT_EQ(test, slabtrace_ctf_event_header(b, 1, ts, ts + 1), 13U);
	KUNIT_EXPECT_EQ(test, slabtrace_ctf_event_header(b, 9, ts, ts), 13U);
	KUNIT_EXPECT_EQ(test, le(b + 1, 4), 9ULL);
}

/* The call_site window holds x86-64's last 4 GiB, arm64's kernel +- 2 GiB. */
static void call_site_window(struct kunit *test)
{
	unsigned long arm64_kfree = 0xffffc0887ff00000UL;

	KUNIT_EXPECT_EQ(test, kmemtrace_call_site_base(0xffffffff81234567UL),
			0xffffffff00000000UL);
	KUNIT_EXPECT_EQ(test, kmemtrace_call_site_base(0xffffffffbff00000UL),
			0xffffffff00000000UL);
	/* A kfree() near the top of its 2 GiB: modules 2 GiB above still fit. */
	KUNIT_EXPECT_EQ(test, kmemtrace_call_site_base(arm64_kfree),
			arm64_kfree - SZ_2G);
	KUNIT_EXPECT_LT(test, arm64_kfree + SZ_2G - 1 -
			kmemtrace_call_site_base(arm64_kfree), SZ_4G);
}

/*
 * ptr_base: the linear map's lowest address in use, rounded down to 1 GiB;
 * refused if the memory spans 2^48 bytes or more from there.
 */
static void ptr_base(struct kunit *test)
{
	unsigned long x86 = 0xffff8d4840000000UL, arm64 = 0xffff000000000000UL;
	unsigned long lpa2 = 0xfff0000000000000UL;
	unsigned long base = 1, lo, hi;
	void *p;

	/* x86-64: memory from pfn 0 or 1, the base page_offset_base. */
	KUNIT_EXPECT_EQ(test, kmemtrace_ptr_base(x86, x86 + SZ_16G, &base), 0);
	KUNIT_EXPECT_EQ(test, base, x86);
	KUNIT_EXPECT_EQ(test, kmemtrace_ptr_base(x86 + SZ_4K, x86 + SZ_16G, &base), 0);
	KUNIT_EXPECT_EQ(test, base, x86);
	/*
	 * arm64 built for 52-bit VA (PAGE_OFFSET 0xfff0000000000000) on a
	 * CPU without LPA2: the linear map at 0xffff000000000000 and up,
	 * 2^52 - 2^48 above PAGE_OFFSET.
	 */
	KUNIT_EXPECT_EQ(test, kmemtrace_ptr_base(arm64 + 0x12345000, arm64 + SZ_8G, &base), 0);
	KUNIT_EXPECT_EQ(test, base, arm64);
	KUNIT_EXPECT_EQ(test, kmemtrace_ptr_base(arm64 + SZ_1G + SZ_4K, arm64 + SZ_8G, &base), 0);
	KUNIT_EXPECT_EQ(test, base, arm64 + SZ_1G);
	/*
	 * Up to 2^48 bytes above the base; not one more (arm64 with LPA2:
	 * the linear map is 2^52 - 2^47 bytes from 0xfff0000000000000);
	 * not hi below lo.
	 */
	KUNIT_EXPECT_EQ(test, kmemtrace_ptr_base(lpa2 + SZ_4K, lpa2 + BIT_ULL(48), &base), 0);
	KUNIT_EXPECT_EQ(test, base, lpa2);
	base = 1;
	KUNIT_EXPECT_EQ(test, kmemtrace_ptr_base(lpa2 + SZ_4K, lpa2 + BIT_ULL(48) + 1, &base),
			-EOVERFLOW);
	KUNIT_EXPECT_EQ(test, kmemtrace_ptr_base(arm64 + SZ_1G, arm64, &base), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, base, 1UL);	/* not set */

	/* This machine: its memory fits, a slab object within. */
	kmemtrace_linear_map(&lo, &hi);
	KUNIT_ASSERT_EQ(test, kmemtrace_ptr_base(lo, hi, &base), 0);
	p = kunit_kmalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_GE(test, (unsigned long)p, lo);
	KUNIT_EXPECT_LT(test, (unsigned long)p, hi);
	KUNIT_EXPECT_LT(test, (unsigned long)p - base, BIT_ULL(48));
#if defined(CONFIG_X86_64) && !defined(CONFIG_UML)
	KUNIT_EXPECT_EQ(test, base, PAGE_OFFSET);	/* the traces as before */
#endif
}

static void payloads(struct kunit *test)
{
	struct kmemtrace_trace *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	u8 b[KMEMTRACE_ALLOC_PAYLOAD + 1];

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->call_site_base = 0x1000000;
	t->ptr_base = 0x40000000;
	memset(b, 0xaa, sizeof(b));
	kmemtrace_encode_alloc(b, t, 0x1000000 + 0x1234, (void *)0x40000000 + 0xabcdef0,
			       50, 64, (__force gfp_t)0xcc0, 0x2b, NUMA_NO_NODE);
	KUNIT_EXPECT_EQ(test, le(b, 4), 0x1234ULL);
	KUNIT_EXPECT_EQ(test, le(b + 4, 6), 0xabcdef0ULL);
	KUNIT_EXPECT_EQ(test, le(b + 10, 4), 50ULL);
	KUNIT_EXPECT_EQ(test, le(b + 14, 4), 64ULL);
	KUNIT_EXPECT_EQ(test, le(b + 18, 4), 0xcc0ULL);
	KUNIT_EXPECT_EQ(test, le(b + 22, 2), 0x2bULL);
	KUNIT_EXPECT_EQ(test, le(b + 24, 2), 0xffffULL);	/* node -1 */
	KUNIT_EXPECT_EQ(test, b[KMEMTRACE_ALLOC_PAYLOAD], 0xaa);	/* no more */

	memset(b, 0xaa, sizeof(b));
	kmemtrace_encode_free(b, t, 0x1000000 + 0x10, (void *)0x40000000 + 0x88, 7);
	KUNIT_EXPECT_EQ(test, le(b, 4), 0x10ULL);
	KUNIT_EXPECT_EQ(test, le(b + 4, 6), 0x88ULL);
	KUNIT_EXPECT_EQ(test, le(b + 10, 2), 7ULL);
	KUNIT_EXPECT_EQ(test, b[KMEMTRACE_FREE_PAYLOAD], 0xaa);

	/* A call site out of the 4 GiB window is all ones, not wrapped. */
	kmemtrace_encode_free(b, t, 0x10, (void *)0x40000000, 0);
	KUNIT_EXPECT_EQ(test, le(b, 4), 0xffffffffULL);
	/* The average of an alloc/free pair with compact headers. */
	KUNIT_EXPECT_LE(test, (SLABTRACE_CTF_HDR_COMPACT * 2 + KMEMTRACE_ALLOC_PAYLOAD +
			       KMEMTRACE_FREE_PAYLOAD) / 2, 24);
}

/* Write @n free events on this CPU; return how many got room. */
static unsigned int write_events(struct slabtrace_stream *c, unsigned int n,
				 unsigned int *cpu)
{
	unsigned long flags;
	unsigned int i, ok = 0;
	u8 *p;

	local_irq_save(flags);
	*cpu = smp_processor_id();
	for (i = 0; i < n; i++) {
		/* The probes' inline path; the switches and losses its fallback's. */
		p = slabtrace_stream_reserve_fast(c, KMEMTRACE_KFREE,
						  KMEMTRACE_FREE_PAYLOAD,
						  slabtrace_ctf_clock());
		if (p) {
			memset(p, 0x5a, KMEMTRACE_FREE_PAYLOAD);
			ok++;
		}
	}
	local_irq_restore(flags);
	return ok;
}

/* A stream of the test's, in a directory of its own, started. */
/* The test streams' "system" lock. */
static DEFINE_MUTEX(test_lock);

static void no_show(struct seq_file *m)
{
	seq_puts(m, "0\n");
}

static bool not_running(void)
{
	return false;
}

static unsigned int no_kb(void)
{
	return SUBBUF * SLABTRACE_CTF_SUBBUFS / 1024;
}

static int no_set_kb(unsigned int kb)
{
	return -EINVAL;
}

static int no_events(struct seq_file *m)
{
	return 0;
}

static const struct slabtrace_stream_ops test_ops = {
	.name = "kunit",
	.dir = "kmemtrace_kunit",
	.abi_version = 1,
	.metadata_size = 4096,
	.lock = &test_lock,
	.start_cmd = "kmt_kunit start",
	.stop_cmd = "kmt_kunit stop",
	.show_enable = no_show,
	.running = not_running,
	.buffer_kb = no_kb,
	.set_buffer_kb = no_set_kb,
	.metadata_events = no_events,
};

static struct slabtrace_stream *new_stream(struct kunit *test)
{
	struct slabtrace_stream *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, slabtrace_stream_init(c, &test_ops, NULL, 0), 0);
	mutex_lock(&test_lock);
	ret = slabtrace_stream_open(c, SUBBUF, SLABTRACE_CTF_SUBBUFS);
	mutex_unlock(&test_lock);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return c;
}

static void flush(struct slabtrace_stream *c)
{
	mutex_lock(&test_lock);
	slabtrace_stream_flush(c);
	mutex_unlock(&test_lock);
}

/*
 * A count of @cpu's events (slabtrace_stream_lost() or _written()), read
 * under the stream's lock.
 */
static unsigned long counted(unsigned long (*count)(struct slabtrace_stream *, int),
			     struct slabtrace_stream *c, int cpu)
{
	unsigned long n;

	mutex_lock(&c->lock);
	n = count(c, cpu);
	mutex_unlock(&c->lock);
	return n;
}

static void packets(struct kunit *test)
{
	struct slabtrace_stream *c = new_stream(test);
	const unsigned int ev = SLABTRACE_CTF_HDR_COMPACT + KMEMTRACE_FREE_PAYLOAD;
	unsigned int cpu, per_packet, cpu2;
	struct rchan_buf *buf;
	const u8 *p0, *p1;
	size_t used;

	/* Fill packet 0 exactly, then one more event: a switch. */
	per_packet = (SUBBUF - SLABTRACE_CTF_PACKET_SIZE) / ev;
	KUNIT_ASSERT_EQ(test, write_events(c, per_packet, &cpu), per_packet);
	buf = *per_cpu_ptr(c->chan->buf, cpu);
	p0 = buf->start;
	KUNIT_EXPECT_EQ(test, PKT32(p0, magic), (u64)SLABTRACE_CTF_MAGIC);
	KUNIT_EXPECT_EQ(test, memcmp(p0 + offsetof(struct slabtrace_ctf_packet, uuid),
				     &c->uuid, 16), 0);
	KUNIT_EXPECT_EQ(test, PKT(p0, packet_seq_num), 0ULL);
	KUNIT_EXPECT_EQ(test, PKT32(p0, cpu_id), (u64)cpu);
	KUNIT_EXPECT_EQ(test, PKT(p0, content_size), 0ULL);	/* open */
	used = SLABTRACE_CTF_PACKET_SIZE + per_packet * ev;
	KUNIT_EXPECT_EQ(test, buf->offset, used);
	/* The first event's header is right after the packet's. */
	KUNIT_EXPECT_EQ(test, p0[SLABTRACE_CTF_PACKET_SIZE] & 7, KMEMTRACE_KFREE);

	KUNIT_ASSERT_EQ(test, write_events(c, 1, &cpu2), 1U);
	KUNIT_ASSERT_EQ(test, cpu2, cpu);	/* the suite runs on one CPU */
	p1 = buf->start + SUBBUF;
	/* Packet 0 closed: its size leaves the padding out. */
	KUNIT_EXPECT_EQ(test, PKT(p0, content_size), (u64)used * 8);
	KUNIT_EXPECT_EQ(test, PKT(p0, packet_size), (u64)used * 8);
	KUNIT_EXPECT_EQ(test, buf->padding[0], SUBBUF - used);
	KUNIT_EXPECT_LT(test, buf->padding[0], (size_t)ev);
	KUNIT_EXPECT_GE(test, PKT(p0, timestamp_end), PKT(p0, timestamp_begin));
	KUNIT_EXPECT_EQ(test, PKT(p0, events_discarded), 0ULL);
	/* Packet 1: open, numbered 1, holding the event. */
	KUNIT_EXPECT_EQ(test, PKT32(p1, magic), (u64)SLABTRACE_CTF_MAGIC);
	KUNIT_EXPECT_EQ(test, PKT(p1, packet_seq_num), 1ULL);
	KUNIT_EXPECT_EQ(test, PKT(p1, content_size), 0ULL);
	KUNIT_EXPECT_GE(test, PKT(p1, timestamp_begin), PKT(p0, timestamp_end));
	KUNIT_EXPECT_EQ(test, buf->offset, (size_t)SLABTRACE_CTF_PACKET_SIZE + ev);
	KUNIT_EXPECT_EQ(test, counted(slabtrace_stream_written, c, cpu),
			(unsigned long)per_packet + 1);

	/* A flush closes packet 1 with its one event. */
	flush(c);
	KUNIT_EXPECT_EQ(test, PKT(p1, content_size),
			(u64)(SLABTRACE_CTF_PACKET_SIZE + ev) * 8);
	slabtrace_stream_exit(c);
}

/*
 * Write free events at times @ts, through the inline reserve or the
 * out-of-line one, into a new channel of @c; copy what follows the first
 * packet's header to @out.  Return: its length.
 */
static size_t write_at(struct kunit *test, struct slabtrace_stream *c,
		       bool fast, const u64 *ts, unsigned int n, u8 *out)
{
	struct rchan_buf *buf;
	unsigned long flags;
	unsigned int i, cpu;
	size_t len;
	int ret;
	u8 *p;

	mutex_lock(&test_lock);
	ret = slabtrace_stream_open(c, SUBBUF, SLABTRACE_CTF_SUBBUFS);
	mutex_unlock(&test_lock);
	KUNIT_ASSERT_EQ(test, ret, 0);
	local_irq_save(flags);
	cpu = smp_processor_id();
	for (i = 0; i < n; i++) {
		p = fast ? slabtrace_stream_reserve_fast(c, KMEMTRACE_KFREE,
							 KMEMTRACE_FREE_PAYLOAD, ts[i]) :
			   slabtrace_stream_reserve_at(c, KMEMTRACE_KFREE,
						       KMEMTRACE_FREE_PAYLOAD, ts[i]);
		if (p)
			memset(p, i, KMEMTRACE_FREE_PAYLOAD);
	}
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, counted(slabtrace_stream_written, c, cpu), (unsigned long)n);
	buf = *per_cpu_ptr(c->chan->buf, cpu);
	len = buf->offset - SLABTRACE_CTF_PACKET_SIZE;
	memcpy(out, buf->data + SLABTRACE_CTF_PACKET_SIZE, len);
	return len;
}

/*
 * The inline reserve writes what slabtrace_stream_reserve_at() writes:
 * the same times through each give the same bytes after the packet
 * header, compact and extended headers alike.
 */
static void reserve_fast(struct kunit *test)
{
	struct slabtrace_stream *c = new_stream(test);
	u8 *a = kunit_kzalloc(test, SUBBUF, GFP_KERNEL);
	u8 *b = kunit_kzalloc(test, SUBBUF, GFP_KERNEL);
	u64 base = slabtrace_ctf_clock() + BIT_ULL(28);
	const u64 ts[] = {
		base, base + 5, base + BIT_ULL(29) + 5,	/* compact, extended */
		base + BIT_ULL(29) + 4,			/* backwards: extended */
		base + 2 * BIT_ULL(29) + 3,		/* 2^29 - 1 later: compact */
		base + 2 * BIT_ULL(29) + 3,		/* the same time: compact */
	};
	size_t la, lb;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	la = write_at(test, c, false, ts, ARRAY_SIZE(ts), a);
	lb = write_at(test, c, true, ts, ARRAY_SIZE(ts), b);
	KUNIT_EXPECT_EQ(test, la, ARRAY_SIZE(ts) * KMEMTRACE_FREE_PAYLOAD +
			4 * SLABTRACE_CTF_HDR_COMPACT + 2 * SLABTRACE_CTF_HDR_EXTENDED);
	KUNIT_EXPECT_EQ(test, lb, la);
	KUNIT_EXPECT_EQ(test, memcmp(a, b, la), 0);
	KUNIT_EXPECT_EQ(test, a[0] & 7, KMEMTRACE_KFREE);
	KUNIT_EXPECT_EQ(test, b[2 * (SLABTRACE_CTF_HDR_COMPACT + KMEMTRACE_FREE_PAYLOAD)],
			SLABTRACE_CTF_EXTENDED);
	slabtrace_stream_exit(c);
}

static void overruns(struct kunit *test)
{
	struct slabtrace_stream *c = new_stream(test);
	const unsigned int ev = SLABTRACE_CTF_HDR_COMPACT + KMEMTRACE_FREE_PAYLOAD;
	unsigned int per_packet = (SUBBUF - SLABTRACE_CTF_PACKET_SIZE) / ev;
	unsigned int cpu, ok, n = per_packet * SLABTRACE_CTF_SUBBUFS + 100;
	struct rchan_buf *buf;
	const u8 *last;

	/* Nobody reads: SLABTRACE_CTF_SUBBUFS packets' worth, the rest lost. */
	ok = write_events(c, n, &cpu);
	KUNIT_EXPECT_EQ(test, ok, per_packet * SLABTRACE_CTF_SUBBUFS);
	KUNIT_EXPECT_EQ(test, counted(slabtrace_stream_lost, c, cpu), (unsigned long)(n - ok));
	KUNIT_EXPECT_EQ(test, counted(slabtrace_stream_written, c, cpu), (unsigned long)ok);
	buf = *per_cpu_ptr(c->chan->buf, cpu);
	last = buf->start + (SLABTRACE_CTF_SUBBUFS - 1) * SUBBUF;
	KUNIT_EXPECT_EQ(test, PKT(last, packet_seq_num), (u64)SLABTRACE_CTF_SUBBUFS - 1);
	/* Closed by the first loss, so it carries none. */
	KUNIT_EXPECT_EQ(test, PKT(last, events_discarded), 0ULL);
	/* A flush of a full buffer changes nothing. */
	flush(c);
	KUNIT_EXPECT_EQ(test, counted(slabtrace_stream_lost, c, cpu), (unsigned long)(n - ok));
	/* The reader frees one; two flushes: a packet that counts the loss. */
	relay_subbufs_consumed(c->chan, cpu, 1);
	flush(c);
	flush(c);
	KUNIT_EXPECT_EQ(test, PKT(buf->start, packet_seq_num), (u64)SLABTRACE_CTF_SUBBUFS);
	KUNIT_EXPECT_EQ(test, PKT(buf->start, events_discarded), (u64)(n - ok));
	KUNIT_EXPECT_EQ(test, PKT(buf->start, content_size),
			(u64)SLABTRACE_CTF_PACKET_SIZE * 8);
	slabtrace_stream_exit(c);
}

static void reset_cachetab(void)
{
	mutex_lock(&kmemtrace_mutex);
	kmemtrace_cachetab_reset();
	mutex_unlock(&kmemtrace_mutex);
}

/* Fake caches, 8 bytes apart, zeroed: no live kobject, so none is pinned. */
#define FAKES	3000

static void cache_ids(struct kunit *test)
{
	char *fake = kunit_kzalloc(test, FAKES * 8 + PAGE_SIZE, GFP_KERNEL);
	unsigned int i, unknown = 0;
	u16 a, b, id;

	KUNIT_ASSERT_NOT_NULL(test, fake);
	reset_cachetab();
	a = kmemtrace_cache_id((void *)&fake[0]);
	b = kmemtrace_cache_id((void *)&fake[8]);
	KUNIT_EXPECT_GE(test, a, KMEMTRACE_CACHE_FIRST);
	KUNIT_EXPECT_LT(test, a, KMEMTRACE_CACHE_FIRST + KMEMTRACE_CACHE_SLOTS);
	KUNIT_EXPECT_NE(test, a, b);
	KUNIT_EXPECT_EQ(test, kmemtrace_cache_id((void *)&fake[0]), a);
	KUNIT_EXPECT_EQ(test, kmemtrace_cache_id((void *)&fake[8]), b);
	/* More caches than slots: the rest are KMEMTRACE_CACHE_UNKNOWN, counted. */
	for (i = 2; i < FAKES; i++) {
		id = kmemtrace_cache_id((void *)&fake[i * 8]);
		if (id == KMEMTRACE_CACHE_UNKNOWN)
			unknown++;
	}
	/* FAKES - 1 caches: fake[8] came twice. */
	KUNIT_EXPECT_GE(test, unknown, FAKES - 1 - KMEMTRACE_CACHE_SLOTS);
	KUNIT_EXPECT_EQ(test, kmemtrace_cachetab_full(), (unsigned long)unknown);
	/* Known ones keep their ids. */
	KUNIT_EXPECT_EQ(test, kmemtrace_cache_id((void *)&fake[0]), a);
	/* The probes' inline lookup agrees, in its first slot or not. */
	for (i = 0; i < FAKES; i++)
		KUNIT_EXPECT_EQ(test, kmemtrace_cache_id_fast((void *)&fake[i * 8]),
				kmemtrace_cache_id((void *)&fake[i * 8]));
	reset_cachetab();
	KUNIT_EXPECT_EQ(test, kmemtrace_cachetab_full(), 0UL);
}

static void kmt_kunit_ctor(void *obj)
{
}

/* What the "caches" file says of cache id @id: "SIZE SLAB_SIZE NAME", or NULL. */
static const char *caches_line(struct kunit *test, u16 id)
{
	struct seq_file m = { };
	char want[16], *line, *next;

	m.size = 128 * 1024;
	m.buf = kunit_kzalloc(test, m.size + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.buf);
	KUNIT_ASSERT_EQ(test, kmemtrace_caches_show(&m, false), 0);
	KUNIT_ASSERT_LT(test, m.count, m.size);
	snprintf(want, sizeof(want), "%u ", id);
	for (next = m.buf; (line = strsep(&next, "\n")) && *line; )
		if (str_has_prefix(line, want))
			return line + strlen(want);
	return NULL;
}

/*
 * A cache destroyed during a trace, and a new one made after it: they get
 * different ids (the table holds the first, so the second cannot take its
 * address), and the listing names both, the first as destroyed.
 */
static void cache_reused(struct kunit *test)
{
	struct kmem_cache *gone, *next;
	const char *line;
	u16 id_gone, id_next;

	KUNIT_ASSERT_EQ(test, slabtrace_caches_init(), 0);
	mutex_lock(&kmemtrace_mutex);
	kmemtrace_cachetab_reset();
	mutex_unlock(&kmemtrace_mutex);
	/* With a constructor: never merged, its own sysfs name. */
	gone = kmem_cache_create("kmt_kunit_gone", 200, 0, 0, kmt_kunit_ctor);
	KUNIT_ASSERT_NOT_NULL(test, gone);
	id_gone = kmemtrace_cache_id(gone);
	kmem_cache_destroy(gone);
	next = kmem_cache_create("kmt_kunit_next", 200, 0, 0, kmt_kunit_ctor);
	KUNIT_ASSERT_NOT_NULL(test, next);
	id_next = kmemtrace_cache_id(next);
	KUNIT_EXPECT_PTR_NE(test, next, gone);
	KUNIT_EXPECT_NE(test, id_next, id_gone);
	line = caches_line(test, id_gone);
	KUNIT_EXPECT_NOT_NULL(test, line);
	if (line)
		KUNIT_EXPECT_STREQ(test, line, "200 0 kmt_kunit_gone(destroyed)");
	line = caches_line(test, id_next);
	KUNIT_EXPECT_NOT_NULL(test, line);
	if (line)
		KUNIT_EXPECT_NOT_NULL(test, strstr(line, " kmt_kunit_next"));
	kmem_cache_destroy(next);
	reset_cachetab();
	st_expect_lockdep_clean(test);
}

/* The object and slab sizes the listing gives cache @id, named @name. */
static void listed(struct kunit *test, u16 id, const char *name,
		   unsigned int *obj, unsigned int *slab)
{
	const char *line = caches_line(test, id);
	char got[64] = "";
	int n;

	KUNIT_ASSERT_NOT_NULL(test, line);
	n = sscanf(line, "%u %u %63s", obj, slab, got);
	KUNIT_EXPECT_EQ(test, n, 3);
	KUNIT_EXPECT_STREQ(test, got, name);
}

/*
 * A cache of 200-byte objects aligned to @align, never merged (a
 * constructor), seen first by a new table: its id in *@id.
 */
static struct kmem_cache *seen_cache(struct kunit *test, const char *name,
				     unsigned int align, u16 *id)
{
	struct kmem_cache *s;

	KUNIT_ASSERT_EQ(test, slabtrace_caches_init(), 0);
	reset_cachetab();
	s = kmem_cache_create(name, 200, align, 0, kmt_kunit_ctor);
	KUNIT_ASSERT_NOT_NULL(test, s);
	*id = kmemtrace_cache_id(s);
	return s;
}

/*
 * The listing's slab size is the cache's slab_size (what an object takes
 * in the slab, as perf's bytes_alloc), not its object size: 200-byte
 * objects aligned to 64 take a multiple of 64, at least 256 (more with
 * KASAN's metadata).  Read once: the cache destroyed afterwards keeps it.
 */
static void slab_sizes(struct kunit *test)
{
	unsigned int obj = 0, slab = 0;
	struct kmem_cache *s;
	u16 id;

	s = seen_cache(test, "kmt_kunit_padded", 64, &id);
	listed(test, id, "kmt_kunit_padded", &obj, &slab);
	KUNIT_EXPECT_EQ(test, obj, 200U);
	KUNIT_EXPECT_GE(test, slab, 256U);
	KUNIT_EXPECT_EQ(test, slab % 64, 0U);
	kmem_cache_destroy(s);
	listed(test, id, "kmt_kunit_padded(destroyed)", &obj, &slab);
	KUNIT_EXPECT_GE(test, slab, 256U);
	reset_cachetab();
	st_expect_lockdep_clean(test);
}

/*
 * A name with a comma and a space is one name in the listing, its comma
 * \x2c where a cache's names are joined with ',', and the metadata's
 * label is the same text (its backslashes \134 in the TSDL literal).  A
 * name's '+', '(' and '?' are escaped too: "+3(destroyed)?" is not read
 * as a listing's ",+3", a destroyed cache's name or the unknown cache.
 */
static void name_with_comma(struct kunit *test)
{
	unsigned int obj = 0, slab = 0;
	struct seq_file m = { };
	struct kmem_cache *s;
	char want[64];
	u16 id;

	s = seen_cache(test, "kmt,kunit odd", 0, &id);
	listed(test, id, "kmt\\x2ckunit\\x20odd", &obj, &slab);
	m.size = 128 * 1024;
	m.buf = kunit_kzalloc(test, m.size + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.buf);
	KUNIT_ASSERT_EQ(test, kmemtrace_caches_show(&m, true), 0);
	snprintf(want, sizeof(want), "\t\"kmt\\134x2ckunit\\134x20odd\" = %u,\n", id);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(m.buf, want), "no %s", want);
	kmem_cache_destroy(s);
	/* Nor does a name read as the listing's ",+N", "(destroyed)" or "?". */
	s = seen_cache(test, "+3(destroyed)?", 0, &id);
	listed(test, id, "\\x2b3\\x28destroyed)\\x3f", &obj, &slab);
	kmem_cache_destroy(s);
	reset_cachetab();
	st_expect_lockdep_clean(test);
}

/* The allocation and free the "probes" case looks for. */
static noinline void *kmt_kunit_alloc(void)
{
	void *p = kmalloc(50, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

struct found {
	unsigned int allocs, frees;
	u64 req, alloc;
	u16 cache_alloc, cache_free;
};

/* Decode the closed packets of @cpu's buffer, looking for @ptr. */
static void scan(struct kunit *test, struct slabtrace_stream *c, int cpu,
		 const void *ptr, struct found *f)
{
	struct rchan_buf *buf = *per_cpu_ptr(c->chan->buf, cpu);
	size_t sub = c->chan->subbuf_size, off, end, len;
	u64 want = (unsigned long)ptr - kmemtrace_trace.ptr_base;
	unsigned int i, id;
	const u8 *pkt, *e;

	for (i = 0; i < SLABTRACE_CTF_SUBBUFS; i++) {
		pkt = buf->start + i * sub;
		if (PKT32(pkt, magic) != SLABTRACE_CTF_MAGIC || !PKT(pkt, content_size))
			continue;
		end = PKT(pkt, content_size) / 8;
		KUNIT_ASSERT_LE(test, end, sub);
		for (off = SLABTRACE_CTF_PACKET_SIZE; off < end; off += len) {
			e = pkt + off;
			id = e[0] & 7;
			len = SLABTRACE_CTF_HDR_COMPACT;
			if (id == SLABTRACE_CTF_EXTENDED) {
				id = le(e + 1, 4);
				len = SLABTRACE_CTF_HDR_EXTENDED;
			}
			KUNIT_ASSERT_LT(test, id, (unsigned int)KMEMTRACE_NR_EVENTS);
			e += len;
			if (id <= KMEMTRACE_KMEM_CACHE_ALLOC) {
				len += KMEMTRACE_ALLOC_PAYLOAD;
				if (le(e + 4, 6) != want)
					continue;
				f->allocs++;
				f->req += le(e + 10, 4);
				f->alloc += le(e + 14, 4);
				f->cache_alloc = le(e + 22, 2);
			} else {
				len += KMEMTRACE_FREE_PAYLOAD;
				if (le(e + 4, 6) != want)
					continue;
				f->frees++;
				f->cache_free = le(e + 10, 2);
			}
		}
	}
}

/* A real trace of kmalloc-64: the events of one kmalloc(50) and kfree. */
static void probes(struct kunit *test)
{
	char name[] = "kmalloc-64", *names[] = { name };
	struct found f = { };
	void *p;
	int cpu;

	mutex_lock(&kmemtrace_mutex);
	KUNIT_ASSERT_EQ(test, kmemtrace_start(names, 1), 0);
	mutex_unlock(&kmemtrace_mutex);
	p = kmt_kunit_alloc();
	KUNIT_ASSERT_NOT_NULL(test, p);
	kfree(p);
	mutex_lock(&kmemtrace_mutex);
	kmemtrace_stop();
	mutex_unlock(&kmemtrace_mutex);

	for_each_online_cpu(cpu)
		scan(test, &kmemtrace_trace.stream, cpu, p, &f);
	KUNIT_EXPECT_EQ(test, f.allocs, 1U);
	KUNIT_EXPECT_EQ(test, f.req, 50ULL);
	/* The tracepoint's: the slab size, 128 with KASAN's metadata. */
	KUNIT_EXPECT_GE(test, f.alloc, 64ULL);
	KUNIT_EXPECT_EQ(test, f.frees, 1U);
	/* kfree() found the object's cache: the allocation's. */
	KUNIT_EXPECT_GE(test, f.cache_alloc, KMEMTRACE_CACHE_FIRST);
	KUNIT_EXPECT_EQ(test, f.cache_free, f.cache_alloc);
	KUNIT_EXPECT_EQ(test,
			counted(slabtrace_stream_lost, &kmemtrace_trace.stream,
				raw_smp_processor_id()), 0UL);
	st_expect_lockdep_clean(test);
}

static struct kunit_case kmemtrace_cases[] = {
	KUNIT_CASE(header_forms),
	KUNIT_CASE(call_site_window),
	KUNIT_CASE(ptr_base),
	KUNIT_CASE(payloads),
	KUNIT_CASE(packets),
	KUNIT_CASE(reserve_fast),
	KUNIT_CASE(overruns),
	KUNIT_CASE(cache_ids),
	KUNIT_CASE(cache_reused),
	KUNIT_CASE(slab_sizes),
	KUNIT_CASE(name_with_comma),
	KUNIT_CASE(probes),
	{}
};

static struct kunit_suite kmemtrace_suite = {
	.name = "slabtrace_kmemtrace",
	.test_cases = kmemtrace_cases,
};

kunit_test_suite(kmemtrace_suite);
