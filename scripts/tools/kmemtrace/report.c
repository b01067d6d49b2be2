// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace-report(1): a recorded kmemtrace trace, per allocation call site.
 *
 *   kmemtrace-report [--sort KEY] [-n N] [--list N] [--json] [--pprof FILE] DIR
 *   kmemtrace-report --help | --version
 *
 * DIR is what kmemtrace-record wrote (DIR/ctf is the CTF trace; DIR/caches
 * and DIR/kallsyms name caches and call sites).  The events are decoded by
 * libbabeltrace2 (src.ctf.fs, utils.muxer: one time-ordered stream of all
 * CPUs) into a simple sink.  Per call site (symbol+offset [module]): hits,
 * bytes requested and allocated (a kmem_cache_alloc event's, the cache's
 * slab size from DIR/caches: the event carries the object size), internal
 * fragmentation, frees on another
 * CPU than the allocation's; per cache; totals; frees of pointers never seen
 * allocated and double frees, counted and the first N listed; a warning
 * when the trace lost events.  --sort: bytes (default), hits, req, frag,
 * cross, site.  -n, --top N: that many call sites (default 20, 0: all).
 * --json: the same as one JSON document on one line.  Options may follow
 * DIR.
 * --pprof FILE: the allocations and what is left of them as a pprof profile
 * (../lib/pprof.c), a sample per call site and cache.
 */
#define _GNU_SOURCE
#include <babeltrace2/babeltrace.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../../include/uapi/slabtrace/kmemtrace.h"
#include "../lib/escape.h"
#include "../lib/pprof.h"
#include "../lib/stfiles.h"

/* The library's uint64_t, the type of its counts. */
#define bt_u64 __typeof__(bt_value_integer_unsigned_get(NULL))

struct site {
	__u32 call_site;	/* 0: empty slot */
	__u64 hits, req, alloc, frees, cross;
};

struct cache {
	__u64 allocs, frees, req, alloc;
	char *name;		/* as DIR/caches has it, escaped; NULL: none */
	unsigned int size;
	unsigned int slab_size;	/* 0: unknown (an ABI 1 listing, or gone) */
};

/* An object: its pointer (field value), allocating site, CPU, state. */
struct obj {
	__u64 ptr;		/* + 1; 0: empty slot */
	__u32 site;
	__u32 bytes;		/* allocated */
	__u16 cpu;
	__u16 cache;		/* its id */
	__u8 live;
};

struct bad {
	__u64 ptr;
	__u32 call_site;
	__u32 cpu;
};

#define LIST_MAX 1000

static struct {
	struct site *sites;
	size_t nsites, sites_cap;
	struct obj *objs;
	size_t nobjs, objs_cap;
	struct cache caches[KMEMTRACE_CACHE_UNKNOWN + 1];
	__u64 events, allocs, frees, req, alloc, cross, discarded;
	__u64 unseen, doubles;
	struct bad unseen_list[LIST_MAX], double_list[LIST_MAX];
	const bt_packet *packet;
	__u32 cpu;
	int error;
	struct pprof *pprof;	/* --pprof */
	__u64 first_ns, last_ns;	/* the events' times */
} st;

/* "symbol+0xoff [module]": a name of up to 511 bytes, its module's 55. */
#define SITE_MAX	640
static void sym_name(__u32 cs, char *buf, size_t size);

/* With --pprof: the allocation types, then what is left of them. */
static const char *const pprof_types[][2] = {
	{ "alloc_objects", "count" }, { "alloc_space", "bytes" },
	{ "inuse_objects", "count" }, { "inuse_space", "bytes" },
};

/* One allocation (or, @live, one object left) of @bytes at @cs from @cache. */
static void pprof_object(__u32 cs, unsigned int cache, __u64 bytes, bool live)
{
	long long v[4] = { 0 };
	struct pprof_label label = { .key = "cache", .str = "?" };
	char name[SITE_MAX], *frame = name;

	sym_name(cs, name, sizeof(name));
	if (cache <= KMEMTRACE_CACHE_UNKNOWN && st.caches[cache].name)
		label.str = st.caches[cache].name;
	v[live ? 2 : 0] = 1;
	v[live ? 3 : 1] = bytes;
	pprof_add(st.pprof, &frame, 1, v, &label, 1);
}

/* The time of @msg's event in ns, if its stream has a clock. */
static void event_time(const bt_message *msg, const bt_event *ev)
{
	const bt_stream_class *sc =
		bt_stream_borrow_class_const(bt_event_borrow_stream_const(ev));
	const bt_clock_snapshot *cs;
	int64_t ns;

	if (!bt_stream_class_borrow_default_clock_class_const(sc))
		return;
	cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
	if (bt_clock_snapshot_get_ns_from_origin(cs, &ns))
		return;
	if (!st.first_ns)
		st.first_ns = ns;
	st.last_ns = ns;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		fprintf(stderr, "kmemtrace-report: out of memory\n");
		exit(1);
	}
	return p;
}

static inline __u64 mix(__u64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static struct site *site_get(__u32 cs)
{
	size_t i, j;

	if (st.nsites * 2 >= st.sites_cap) {
		struct site *old = st.sites;
		size_t oldcap = st.sites_cap;

		st.sites_cap = oldcap ? oldcap * 2 : 1024;
		st.sites = xcalloc(st.sites_cap, sizeof(*st.sites));
		for (i = 0; i < oldcap; i++) {
			if (!old[i].hits && !old[i].frees)
				continue;
			for (j = mix(old[i].call_site); st.sites[j & (st.sites_cap - 1)].hits ||
			     st.sites[j & (st.sites_cap - 1)].frees; j++)
				;
			st.sites[j & (st.sites_cap - 1)] = old[i];
		}
		free(old);
	}
	for (i = mix(cs);; i++) {
		struct site *s = &st.sites[i & (st.sites_cap - 1)];

		if (!s->hits && !s->frees) {
			s->call_site = cs;
			st.nsites++;
			return s;
		}
		if (s->call_site == cs)
			return s;
	}
}

/* The slot of @ptr, claimed if @create. */
static struct obj *obj_get(__u64 ptr, int create)
{
	size_t i, j;

	if (create && st.nobjs * 2 >= st.objs_cap) {
		struct obj *old = st.objs;
		size_t oldcap = st.objs_cap;

		st.objs_cap = oldcap ? oldcap * 2 : 65536;
		st.objs = xcalloc(st.objs_cap, sizeof(*st.objs));
		for (i = 0; i < oldcap; i++) {
			if (!old[i].ptr)
				continue;
			for (j = mix(old[i].ptr); st.objs[j & (st.objs_cap - 1)].ptr; j++)
				;
			st.objs[j & (st.objs_cap - 1)] = old[i];
		}
		free(old);
	}
	if (!st.objs_cap)
		return NULL;
	for (i = mix(ptr + 1);; i++) {
		struct obj *o = &st.objs[i & (st.objs_cap - 1)];

		if (o->ptr == ptr + 1)
			return o;
		if (!o->ptr) {
			if (!create)
				return NULL;
			o->ptr = ptr + 1;
			st.nobjs++;
			return o;
		}
	}
}

static __u64 ufield(const bt_field *s, __u64 i)
{
	const bt_field *f;

	f = bt_field_structure_borrow_member_field_by_index_const(s, i);
	return bt_field_integer_unsigned_get_value(f);
}

/*
 * Whether the payload @f of event class @id has the fields on_event()
 * reads: the first @n members unsigned integers, the cache id (member
 * @cache) one of the table's.  The metadata is the trace's own: a trace
 * that is not kmemtrace's, or is damaged, must not make an index of it.
 */
static bool payload_ok(const bt_field *f, __u64 id, __u64 n, __u64 cache)
{
	const bt_field *m;
	__u64 i;

	if (!f || id > KMEMTRACE_KMEM_CACHE_FREE ||
	    bt_field_get_class_type(f) != BT_FIELD_CLASS_TYPE_STRUCTURE ||
	    bt_field_class_structure_get_member_count(bt_field_borrow_class_const(f)) < n)
		return false;
	for (i = 0; i < n; i++) {
		m = bt_field_structure_borrow_member_field_by_index_const(f, i);
		if (!bt_field_class_type_is(bt_field_get_class_type(m),
					    BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
			return false;
	}
	return ufield(f, cache) <= KMEMTRACE_CACHE_UNKNOWN;
}

static void on_event(const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const bt_field *f = bt_event_borrow_payload_field_const(ev);
	__u64 id = bt_event_class_get_id(bt_event_borrow_class_const(ev));
	const bt_packet *pkt = bt_event_borrow_packet_const(ev);
	bool alloc_ev = id == KMEMTRACE_KMALLOC || id == KMEMTRACE_KMEM_CACHE_ALLOC;
	struct cache *c;
	struct obj *o;
	__u64 ptr;
	__u32 cs;

	if (!payload_ok(f, id, alloc_ev ? 6 : 3, alloc_ev ? 5 : 2)) {
		if (!st.error)
			fprintf(stderr, "kmemtrace-report: event %llu: not kmemtrace's fields\n",
				(unsigned long long)id);
		st.error = 1;
		return;
	}
	cs = ufield(f, 0);
	ptr = ufield(f, 1);
	if (pkt != st.packet) {
		/* The packet context is optional in CTF: a trace may lack it. */
		const bt_field *ctx = pkt ? bt_packet_borrow_context_field_const(pkt) : NULL;

		if (ctx && bt_field_get_class_type(ctx) == BT_FIELD_CLASS_TYPE_STRUCTURE)
			ctx = bt_field_structure_borrow_member_field_by_name_const(ctx, "cpu_id");
		else
			ctx = NULL;
		if (!ctx || !bt_field_class_type_is(bt_field_get_class_type(ctx),
						    BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
			if (!st.error)
				fprintf(stderr, "kmemtrace-report: %s\n",
					"a packet without kmemtrace's context (its cpu_id)");
			st.error = 1;
			return;
		}
		st.packet = pkt;
		st.cpu = bt_field_integer_unsigned_get_value(ctx);
	}
	st.events++;
	if (st.pprof)
		event_time(msg, ev);
	if (alloc_ev) {
		struct site *s = site_get(cs);
		__u64 req = ufield(f, 2), alloc = ufield(f, 3);

		/* The event's bytes_alloc is the object size; perf's, s->size. */
		c = &st.caches[ufield(f, 5)];
		if (id == KMEMTRACE_KMEM_CACHE_ALLOC && c->slab_size)
			alloc = c->slab_size;
		s->hits++;
		s->req += req;
		s->alloc += alloc;
		c->allocs++;
		c->req += req;
		c->alloc += alloc;
		st.allocs++;
		st.req += req;
		st.alloc += alloc;
		o = obj_get(ptr, 1);
		o->site = cs;
		o->cpu = st.cpu;
		o->live = 1;
		o->bytes = alloc;
		o->cache = ufield(f, 5);
		if (st.pprof)
			pprof_object(cs, o->cache, alloc, false);
		return;
	}
	st.frees++;
	c = &st.caches[ufield(f, 2)];
	c->frees++;
	o = obj_get(ptr, 0);
	if (!o || !o->live) {
		struct bad *b = NULL;

		if (!o) {
			if (st.unseen < LIST_MAX)
				b = &st.unseen_list[st.unseen];
			st.unseen++;
		} else {
			if (st.doubles < LIST_MAX)
				b = &st.double_list[st.doubles];
			st.doubles++;
		}
		if (b) {
			b->ptr = ptr;
			b->call_site = cs;
			b->cpu = st.cpu;
		}
		return;
	}
	o->live = 0;
	if (o->cpu != st.cpu) {
		site_get(o->site)->cross++;
		st.cross++;
	}
}

static bt_graph_simple_sink_component_consume_func_status
consume(bt_message_iterator *it, void *data)
{
	bt_message_array_const msgs;
	bt_u64 n, count;
	__u64 i;

	(void)data;

	switch (bt_message_iterator_next(it, &msgs, &n)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	default:
		st.error = 1;
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (i = 0; i < n; i++) {
		switch (bt_message_get_type(msgs[i])) {
		case BT_MESSAGE_TYPE_EVENT:
			on_event(msgs[i]);
			break;
		case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
			if (bt_message_discarded_events_get_count(msgs[i], &count) ==
			    BT_PROPERTY_AVAILABILITY_AVAILABLE)
				st.discarded += count;
			break;
		default:
			break;
		}
		bt_message_put_ref(msgs[i]);
	}
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

static const bt_component_class_source *
source_class(const char *plugin, const char *name, const bt_plugin **p)
{
	if (bt_plugin_find(plugin, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, p) !=
	    BT_PLUGIN_FIND_STATUS_OK) {
		fprintf(stderr, "kmemtrace-report: no babeltrace2 plugin '%s'\n", plugin);
		exit(1);
	}
	return bt_plugin_borrow_source_component_class_by_name_const(*p, name);
}

/* Decode @ctfdir into st. */
static void decode(const char *ctfdir)
{
	const bt_component_class_filter *mux_cls;
	const bt_component_class_source *src_cls;
	const bt_component_source *src;
	const bt_component_filter *mux;
	const bt_component_sink *sink;
	const bt_port_output *out;
	const bt_port_input *in;
	const bt_plugin *ctf, *utils;
	bt_value *params, *inputs;
	bt_graph_run_status rs;
	bt_graph *graph;
	__u64 i, n;

	graph = bt_graph_create(0);
	src_cls = source_class("ctf", "fs", &ctf);
	if (bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &utils) !=
	    BT_PLUGIN_FIND_STATUS_OK) {
		fprintf(stderr, "kmemtrace-report: no babeltrace2 plugin 'utils'\n");
		exit(1);
	}
	mux_cls = bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer");
	params = bt_value_map_create();
	inputs = bt_value_array_create();
	bt_value_array_append_string_element(inputs, ctfdir);
	bt_value_map_insert_entry(params, "inputs", inputs);
	if (bt_graph_add_source_component(graph, src_cls, "src", params,
					  BT_LOGGING_LEVEL_ERROR, &src) ||
	    bt_graph_add_filter_component(graph, mux_cls, "mux", NULL,
					  BT_LOGGING_LEVEL_ERROR, &mux) ||
	    bt_graph_add_simple_sink_component(graph, "sink", NULL, consume,
					       NULL, NULL, &sink)) {
		fprintf(stderr, "kmemtrace-report: %s: not a CTF trace babeltrace2 can read\n",
			ctfdir);
		exit(1);
	}
	n = bt_component_source_get_output_port_count(src);
	for (i = 0; i < n; i++) {
		out = bt_component_source_borrow_output_port_by_index_const(src, i);
		in = bt_component_filter_borrow_input_port_by_index_const(mux, i);
		if (bt_graph_connect_ports(graph, out, in, NULL)) {
			fprintf(stderr, "kmemtrace-report: cannot connect the streams\n");
			exit(1);
		}
	}
	out = bt_component_filter_borrow_output_port_by_index_const(mux, 0);
	in = bt_component_sink_borrow_input_port_by_index_const(sink, 0);
	if (bt_graph_connect_ports(graph, out, in, NULL)) {
		fprintf(stderr, "kmemtrace-report: cannot connect the sink\n");
		exit(1);
	}
	do {
		rs = bt_graph_run(graph);
	} while (rs == BT_GRAPH_RUN_STATUS_AGAIN);
	if (rs != BT_GRAPH_RUN_STATUS_OK || st.error) {
		fprintf(stderr, "kmemtrace-report: %s: decoding failed\n", ctfdir);
		exit(1);
	}
	bt_value_put_ref(inputs);
	bt_value_put_ref(params);
	bt_graph_put_ref(graph);
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
}

/* Symbols, from DIR/kallsyms: text symbols sorted by address. */
struct sym {
	__u64 addr;
	char *name;		/* "name" or "name [module]" */
};

static struct sym *syms;
static size_t nsyms;
static __u64 call_site_base;

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * @path could not be opened: said, with what is @lost, unless it is
 * missing (a trace need not have it).
 */
static void unreadable(const char *path, const char *lost)
{
	if (errno != ENOENT)
		fprintf(stderr, "kmemtrace-report: %s: %s: %s\n", path,
			strerror(errno), lost);
}

static void load_kallsyms(const char *path)
{
	/* KSYM_NAME_LEN is 512 since 6.1 (Rust's names), a module's 56. */
	char line[1200], name[512], mod[512], type;
	size_t cap = 0;
	__u64 addr;
	FILE *f = fopen(path, "r");
	int n;

	if (!f) {
		unreadable(path, "call sites shown as addresses");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		mod[0] = '\0';
		n = sscanf(line, "%llx %c %511s %511s", &addr, &type, name, mod);
		if (n < 3 || (type != 't' && type != 'T') || !addr)
			continue;
		if (nsyms == cap) {
			cap = cap ? cap * 2 : 65536;
			syms = realloc(syms, cap * sizeof(*syms));
			if (!syms)
				exit(1);
		}
		syms[nsyms].addr = addr;
		if (asprintf(&syms[nsyms].name, "%s%s%s", name, mod[0] ? " " : "",
			     mod) < 0)
			exit(1);
		escaped(syms[nsyms].name);
		nsyms++;
	}
	fclose(f);
	qsort(syms, nsyms, sizeof(*syms), sym_cmp);
}

/* "symbol+0xoff [module]", or the address. */
static void sym_name(__u32 cs, char *buf, size_t size)
{
	__u64 addr = call_site_base + cs;
	size_t lo = 0, hi = nsyms;
	const char *sp;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - syms[lo - 1].addr > 0x100000) {
		snprintf(buf, size, "0x%llx", addr);
		return;
	}
	sp = strchr(syms[lo - 1].name, ' ');
	if (sp)
		snprintf(buf, size, "%.*s+0x%llx%s",
			 (int)(sp - syms[lo - 1].name), syms[lo - 1].name,
			 addr - syms[lo - 1].addr, sp);
	else
		snprintf(buf, size, "%s+0x%llx", syms[lo - 1].name,
			 addr - syms[lo - 1].addr);
}

/*
 * DIR/caches: "ID OBJECT_SIZE SLAB_SIZE NAME" lines (ABI 2), or
 * "ID OBJECT_SIZE NAME" (ABI 1: no slab size).  A name may start with
 * digits (9p-fcall-cache): a third number is one only if a blank ends it.
 * NAME is the module's escaped list of names, up to 4 bytes a byte of
 * it: read whole, whatever its length.
 */
static void load_caches(const char *path)
{
	unsigned int id, size, slab_size;
	char *line = NULL, *name = NULL;
	FILE *f = fopen(path, "r");
	size_t cap = 0;
	int end;

	if (!f) {
		unreadable(path, "the caches unnamed");
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		slab_size = 0;
		end = 0;
		if (sscanf(line, "%u %u %u%n", &id, &size, &slab_size, &end) != 3 ||
		    (line[end] != ' ' && line[end] != '\t') ||
		    sscanf(line + end, " %ms", &name) != 1) {
			slab_size = 0;
			if (sscanf(line, "%u %u %ms", &id, &size, &name) != 3)
				goto next;
		}
		if (id > KMEMTRACE_CACHE_UNKNOWN)
			goto next;
		free(st.caches[id].name);
		/* The trace may be anyone's: no raw control byte is printed. */
		st.caches[id].name = escaped(name);
		name = NULL;
		st.caches[id].size = size;
		st.caches[id].slab_size = slab_size;
next:
		free(name);
		name = NULL;
	}
	free(line);
	fclose(f);
}

/* call_site_base from the metadata's env. */
static void load_base(const char *path)
{
	char line[256];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " call_site_base = \"0x%llx\";",
			   &call_site_base) == 1)
			break;
	fclose(f);
}

static long file_number(const char *path)
{
	FILE *f = fopen(path, "r");
	long n = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%ld", &n) != 1)
		n = 0;
	fclose(f);
	return n;
}

/* Of @alloc, what was not asked for; 0 if the sizes say more was. */
static double frag(__u64 req, __u64 alloc)
{
	return alloc > req ? 100.0 * (double)(alloc - req) / (double)alloc : 0;
}

static enum { BY_BYTES, BY_HITS, BY_REQ, BY_FRAG, BY_CROSS, BY_SITE, NKEYS } sort_key;

static int site_cmp(const void *a, const void *b)
{
	const struct site *x = a, *y = b;
	double fx, fy;

	switch (sort_key) {
	case BY_HITS:
		if (x->hits != y->hits)
			return x->hits < y->hits ? 1 : -1;
		break;
	case BY_REQ:
		if (x->req != y->req)
			return x->req < y->req ? 1 : -1;
		break;
	case BY_FRAG:
		fx = frag(x->req, x->alloc);
		fy = frag(y->req, y->alloc);
		if (fx != fy)
			return fx < fy ? 1 : -1;
		break;
	case BY_CROSS:
		if (x->cross != y->cross)
			return x->cross < y->cross ? 1 : -1;
		break;
	case BY_SITE:
		break;
	default:
		if (x->alloc != y->alloc)
			return x->alloc < y->alloc ? 1 : -1;
	}
	return x->call_site < y->call_site ? -1 : x->call_site > y->call_site;
}

/* Most bytes allocated first, then most frees, then by name. */
static int cache_cmp(const void *a, const void *b)
{
	const struct cache *x = *(struct cache * const *)a;
	const struct cache *y = *(struct cache * const *)b;

	if (x->alloc != y->alloc)
		return x->alloc < y->alloc ? 1 : -1;
	if (x->frees != y->frees)
		return x->frees < y->frees ? 1 : -1;
	return strcmp(x->name ?: "", y->name ?: "");
}

static void list_bad(const char *what, __u64 n, const struct bad *b,
		     unsigned int max)
{
	char name[SITE_MAX];
	__u64 i;

	if (!n)
		return;
	printf("\n%s (the first %llu):\n", what,
	       n < max ? n : max);
	for (i = 0; i < n && i < max && i < LIST_MAX; i++) {
		sym_name(b[i].call_site, name, sizeof(name));
		printf("  ptr+0x%012llx  cpu %-3u  %s\n", b[i].ptr,
		       b[i].cpu, name);
	}
}

/*
 * The profile: what is left of the allocations added, its time the
 * trace's (its metadata's modification time), its duration from the
 * first event to the last.
 */
static void write_pprof(const char *file, const char *dir, __u64 lost)
{
	char path[4200], *line;
	struct stat sb;
	double when = 0;
	bool made;
	size_t i;

	for (i = 0; i < st.objs_cap; i++)
		if (st.objs[i].ptr && st.objs[i].live)
			pprof_object(st.objs[i].site, st.objs[i].cache,
				     st.objs[i].bytes, true);
	if (asprintf(&line, "kmemtrace %s: %llu allocations, %llu frees, %llu events lost",
		     dir, st.allocs, st.frees, lost) < 0)
		die("out of memory");
	pprof_comment(st.pprof, line);
	free(line);
	snprintf(path, sizeof(path), "%s/ctf/metadata", dir);
	if (!stat(path, &sb) || !stat(dir, &sb))
		when = sb.st_mtim.tv_sec + sb.st_mtim.tv_nsec / 1e9;
	made = access(file, F_OK);
	if (pprof_write(st.pprof, file, when,
			(st.last_ns - st.first_ns) / 1e9)) {
		int e = errno;

		die("%s: %s", file, strerror(e));
	}
	if (made)
		out_give(file);
	pprof_free(st.pprof);
}

#ifdef SLABTRACE_PPROF
#define PPROF_NOTE ""
#else
#define PPROF_NOTE "                     (not in this build: it needs protobuf-c-compiler,\n" \
	"                     libprotobuf-c-dev and zlib1g-dev to be built)\n"
#endif

static const char help[] =
	"usage: kmemtrace-report [--sort KEY] [-n N] [--list N] [--json] [--pprof FILE] DIR\n"
	"       kmemtrace-report -h | --help | -V | --version\n"
	"\n"
	"Read a trace kmemtrace-record wrote into DIR and print, per allocation\n"
	"call site, the allocations, bytes requested and allocated, internal\n"
	"fragmentation and frees on another CPU; the same per cache; totals;\n"
	"frees of pointers never seen allocated and double frees.\n"
	"\n"
	"      --sort KEY     order of the call sites: bytes (allocated, the\n"
	"                     default), hits, req (bytes requested), frag, cross\n"
	"                     (cross-CPU frees), site (address)\n"
	"  -n, --top N        call sites shown (20; 0: all)\n"
	"      --list N       frees of unseen pointers and double frees listed (10)\n"
	"      --json         the report as one JSON document on one line\n"
	"      --pprof FILE   also write a gzipped pprof profile (go tool pprof\n"
	"                     FILE): per call site and cache (label), the\n"
	"                     allocations (alloc_objects, alloc_space) and what is\n"
	"                     left of them at the end (inuse_objects, inuse_space)\n"
	PPROF_NOTE
	"  -h, --help         this help\n"
	"  -V, --version      the version\n";

/* A usage error: what is wrong, where the usage is, exit 2. */
static void bad_usage(const char *what, const char *arg)
{
	fprintf(stderr, "kmemtrace-report: %s%s%s (kmemtrace-report --help)\n",
		what, arg ? " " : "", arg ? arg : "");
	exit(2);
}

/* What the report shows: the sorted call sites and caches, the totals. */
struct report {
	const char *dir;
	struct site *sites;	/* sorted */
	size_t nsites;
	struct cache **caches;	/* sorted */
	size_t ncaches;
	__u64 lost;
	unsigned int top, list;	/* 0: all call sites; none listed */
};

static void print_text(const struct report *r)
{
	char name[SITE_MAX];
	size_t j;

	printf("kmemtrace report: %s\n", r->dir);
	if (r->lost)
		printf("WARNING: the trace is incomplete: %llu events lost %s%llu%s\n",
		       r->lost, "(", st.discarded, " reported in its packets)");
	printf("\n%-48s %10s %14s %14s %7s %10s\n", "Call site", "Hits",
	       "Bytes req", "Bytes alloc", "Frag%", "Cross-CPU");
	for (j = 0; j < r->nsites && (!r->top || j < r->top); j++) {
		const struct site *s = &r->sites[j];

		sym_name(s->call_site, name, sizeof(name));
		printf("%-48s %10llu %14llu %14llu %6.2f%% %10llu\n", name, s->hits,
		       s->req, s->alloc, frag(s->req, s->alloc), s->cross);
	}
	if (j < r->nsites)
		printf("... %zu more call sites (--top 0: all)\n", r->nsites - j);

	printf("\n%-40s %10s %10s %14s %14s %7s\n", "Cache", "Allocs", "Frees",
	       "Bytes req", "Bytes alloc", "Frag%");
	for (j = 0; j < r->ncaches; j++) {
		const struct cache *c = r->caches[j];

		printf("%-40.40s %10llu %10llu %14llu %14llu %6.2f%%\n",
		       c->name ?: "?", c->allocs, c->frees, c->req,
		       c->alloc, frag(c->req, c->alloc));
	}

	printf("\nTotal: %llu events, %llu allocations, %llu frees, %zu call sites\n",
	       st.events, st.allocs, st.frees, r->nsites);
	printf("Bytes requested %llu, allocated %llu, fragmentation %.2f%%\n",
	       st.req, st.alloc, frag(st.req, st.alloc));
	printf("Cross-CPU frees: %llu\n", st.cross);
	printf("Frees of pointers never seen allocated: %llu\n", st.unseen);
	printf("Double frees: %llu\n", st.doubles);
	if (r->list) {
		list_bad("Frees of pointers never seen allocated", st.unseen,
			 st.unseen_list, r->list);
		list_bad("Double frees", st.doubles, st.double_list, r->list);
	}
}

/* The first @max of @n bad frees as a JSON array. */
static void json_bad(__u64 n, const struct bad *b, unsigned int max)
{
	char name[SITE_MAX];
	__u64 i;

	putchar('[');
	for (i = 0; i < n && i < max && i < LIST_MAX; i++) {
		sym_name(b[i].call_site, name, sizeof(name));
		printf("%s{\"ptr\": \"0x%012llx\", \"cpu\": %u, \"call_site\": ",
		       i ? ", " : "", b[i].ptr, b[i].cpu);
		put_json_string(stdout, name);
		putchar('}');
	}
	putchar(']');
}

/*
 * The report as one JSON document on one line (kmemtrace-report(1), JSON
 * OUTPUT): what the text says, by the same names; fields are only added.
 */
static void print_json(const struct report *r)
{
	char name[SITE_MAX];
	size_t j;

	printf("{\"version\": 1, \"trace\": ");
	put_json_string(stdout, r->dir);
	printf(", \"events\": %llu, \"lost\": %llu, \"discarded\": %llu, \"call_sites\": [",
	       st.events, r->lost, st.discarded);
	for (j = 0; j < r->nsites && (!r->top || j < r->top); j++) {
		const struct site *s = &r->sites[j];

		sym_name(s->call_site, name, sizeof(name));
		printf("%s{\"call_site\": ", j ? ", " : "");
		put_json_string(stdout, name);
		printf(", \"hits\": %llu, \"bytes_req\": %llu, \"bytes_alloc\": %llu, ",
		       s->hits, s->req, s->alloc);
		printf("\"frag_percent\": %.2f, \"cross_cpu_frees\": %llu}",
		       frag(s->req, s->alloc), s->cross);
	}
	printf("], \"caches\": [");
	for (j = 0; j < r->ncaches; j++) {
		const struct cache *c = r->caches[j];

		printf("%s{\"cache\": ", j ? ", " : "");
		if (c->name)
			put_json_string(stdout, c->name);
		else
			printf("null");
		printf(", \"allocs\": %llu, \"frees\": %llu, \"bytes_req\": %llu, ",
		       c->allocs, c->frees, c->req);
		printf("\"bytes_alloc\": %llu, \"frag_percent\": %.2f}", c->alloc,
		       frag(c->req, c->alloc));
	}
	printf("], \"total\": {\"allocs\": %llu, \"frees\": %llu, \"call_sites\": %zu, ",
	       st.allocs, st.frees, r->nsites);
	printf("\"bytes_req\": %llu, \"bytes_alloc\": %llu, \"frag_percent\": %.2f, ",
	       st.req, st.alloc, frag(st.req, st.alloc));
	printf("\"cross_cpu_frees\": %llu, \"unseen_frees\": %llu, \"double_frees\": %llu}",
	       st.cross, st.unseen, st.doubles);
	printf(", \"unseen_frees\": ");
	json_bad(st.unseen, st.unseen_list, r->list);
	printf(", \"double_frees\": ");
	json_bad(st.doubles, st.double_list, r->list);
	printf("}\n");
}

/* A number of 0 or more for option @opt, or a usage error. */
static unsigned int count_arg(const char *opt, const char *arg)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(arg, &end, 10);
	if (errno || *end || !isdigit((unsigned char)*arg) || n > UINT_MAX)
		bad_usage(opt, arg);
	return n;
}

int main(int argc, char **argv)
{
	enum { OPT_SORT = 256, OPT_LIST, OPT_JSON, OPT_PPROF };
	static const struct option opts[] = {
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "top", required_argument, NULL, 'n' },
		{ "list", required_argument, NULL, OPT_LIST },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "pprof", required_argument, NULL, OPT_PPROF },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const keys[NKEYS] = {
		"bytes", "hits", "req", "frag", "cross", "site",
	};
	struct report r = { .top = 20, .list = 10 };
	char path[4200], ctfdir[4100];
	const char *pprof_file = NULL;
	char pprof_real[PATH_MAX];
	struct timespec t0, t1;
	bool json = false;
	__u64 overruns;
	struct stat sb;
	unsigned int i;
	size_t j;
	double secs;
	int opt;

	prog_name = "kmemtrace-report";
	stdout_check_at_exit();
	opterr = 0;
	/* No "+": options may follow DIR. */
	while ((opt = getopt_long(argc, argv, ":n:hV", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_SORT:
			for (i = 0; i < NKEYS; i++)
				if (!strcmp(optarg, keys[i]))
					break;
			if (i == NKEYS)
				bad_usage("--sort takes bytes, hits, req, frag, cross or site, not",
					  optarg);
			sort_key = i;
			break;
		case 'n':
			r.top = count_arg("-n (--top) takes a number, not", optarg);
			break;
		case OPT_LIST:
			r.list = count_arg("--list takes a number, not", optarg);
			/* The report keeps the first LIST_MAX of each. */
			if (r.list > LIST_MAX)
				bad_usage("--list takes a number up to 1000, not", optarg);
			break;
		case OPT_JSON:
			json = true;
			break;
		case 'h':
			fputs(help, stdout);
			return 0;
		case 'V':
			print_version();
			return 0;
		case OPT_PPROF:
			if (pprof_missing) {
				fprintf(stderr, "kmemtrace-report: --pprof: %s\n",
					pprof_missing);
				return 1;
			}
			pprof_file = optarg;
			break;
		case ':':
			bad_usage("an argument is missing after", argv[optind - 1]);
			break;
		default:
			bad_usage("unknown option", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		bad_usage("one DIR, the trace, is needed", NULL);
	r.dir = argv[optind];
	if (strlen(r.dir) > 4000)
		bad_usage("a path too long:", r.dir);
	snprintf(ctfdir, sizeof(ctfdir), "%s/ctf", r.dir);
	/* DIR/ctf, or DIR itself when it has none (not when DIR is unreadable). */
	if (stat(ctfdir, &sb) && errno == ENOENT)
		snprintf(ctfdir, sizeof(ctfdir), "%s", r.dir);
	snprintf(path, sizeof(path), "%s/metadata", ctfdir);
	if (access(path, R_OK)) {
		if (errno == ENOENT)
			fprintf(stderr, "kmemtrace-report: %s: no CTF metadata\n", r.dir);
		else
			fprintf(stderr, "kmemtrace-report: %s: %s\n", path, strerror(errno));
		return 1;
	}
	load_base(path);
	snprintf(path, sizeof(path), "%s/kallsyms", r.dir);
	load_kallsyms(path);
	snprintf(path, sizeof(path), "%s/caches", r.dir);
	load_caches(path);
	snprintf(path, sizeof(path), "%s/overruns", r.dir);
	overruns = file_number(path);

	if (pprof_file) {
		out_file_as_root(pprof_file, pprof_real, sizeof(pprof_real));
		st.pprof = pprof_new(pprof_types, 4);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	decode(ctfdir);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;

	r.lost = st.discarded > overruns ? st.discarded : overruns;
	r.sites = xcalloc(st.nsites + 1, sizeof(*r.sites));
	for (j = 0; j < st.sites_cap; j++)
		if (st.sites[j].hits)
			r.sites[r.nsites++] = st.sites[j];
	qsort(r.sites, r.nsites, sizeof(*r.sites), site_cmp);
	r.caches = xcalloc(KMEMTRACE_CACHE_UNKNOWN + 1, sizeof(*r.caches));
	for (i = 0; i <= KMEMTRACE_CACHE_UNKNOWN; i++)
		if (st.caches[i].allocs || st.caches[i].frees)
			r.caches[r.ncaches++] = &st.caches[i];
	qsort(r.caches, r.ncaches, sizeof(*r.caches), cache_cmp);
	if (json)
		print_json(&r);
	else
		print_text(&r);
	fprintf(stderr, "kmemtrace-report: %llu events decoded in %.3f s (%.0f events/s)\n",
		st.events, secs, secs > 0 ? st.events / secs : 0);
	if (st.pprof)
		write_pprof(pprof_real, r.dir, r.lost);
	return 0;
}
