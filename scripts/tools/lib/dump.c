// SPDX-License-Identifier: GPL-2.0
/*
 * The one parser of the module's per-object dump: see dump.h.  Static,
 * libc only.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../include/uapi/slabtrace/sample.h"
#include "dump.h"
#include "escape.h"
#include "stfiles.h"

static long secs_to_ms(const char *s)
{
	long sec = 0, ms = 0;

	if (sscanf(s, "%ld.%3lds", &sec, &ms) != 2)
		return 0;
	return sec * 1000 + ms;
}

/* The pid and command of a context, "PID 5 sh", "kthread x (PID 5)". */
static void ctx_parse(const char *who, long *pid, char *comm, size_t size)
{
	const char *p;

	*pid = -1;
	comm[0] = 0;
	if (sscanf(who, "PID %ld %255s", pid, comm) == 2)
		return;
	p = strchr(who, ' ');
	if (p && (!strncmp(who, "kthread ", 8) || !strncmp(who, "worker ", 7))) {
		const char *q = strstr(p, " (PID ");

		if (q) {
			snprintf(comm, size, "%.*s", (int)(q - p - 1), p + 1);
			*pid = atol(q + 6);
		}
		return;
	}
	snprintf(comm, size, "%s", who);
}

static struct group *group_get(struct dump *d, const char *key)
{
	int i;

	for (i = 0; i < d->ng; i++)
		if (!strcmp(d->g[i].key, key))
			return &d->g[i];
	if (d->ng == d->capg) {
		d->capg = d->capg ? 2 * d->capg : 64;
		d->g = xrealloc(d->g, d->capg * sizeof(*d->g));
	}
	memset(&d->g[d->ng], 0, sizeof(*d->g));
	d->g[d->ng].key = xstrdup(key);
	return &d->g[d->ng++];
}

/* The context @who of @g, added if new. */
static struct context *context_get(struct group *g, const char *who, long pid)
{
	int i;

	for (i = 0; i < g->nctx; i++)
		if (!strcmp(g->ctx[i].who, who))
			return &g->ctx[i];
	g->ctx = xrealloc(g->ctx, (g->nctx + 1) * sizeof(*g->ctx));
	memset(&g->ctx[g->nctx], 0, sizeof(*g->ctx));
	g->ctx[g->nctx].who = xstrdup(who);
	g->ctx[g->nctx].pid = pid;
	return &g->ctx[g->nctx++];
}

/* One object of the dump, while its frames are read. */
struct object {
	long bytes, requested, age;
	long node;		/* -1: none said */
	char gfp[128];		/* "" if none said */
	char who[300];
	char syscall[64];
	char **frames;
	int nframes, cap;
};

static bool frame_in_module(const char *frame, const char *mod)
{
	const char *b = strrchr(frame, '[');
	size_t n = strlen(mod);

	return b && !strncmp(b + 1, mod, n) && b[1 + n] == ']';
}

/* Note @o's GFP flags and node in @g's lists, if new and there is room. */
static void group_note(struct group *g, const struct object *o)
{
	int i;

	for (i = 0; o->gfp[0] && i < g->ngfp; i++)
		if (!strcmp(g->gfp[i], o->gfp))
			break;
	if (o->gfp[0] && i == g->ngfp && g->ngfp < GROUP_GFPS)
		snprintf(g->gfp[g->ngfp++], sizeof(g->gfp[0]), "%s", o->gfp);
	for (i = 0; o->node >= 0 && i < g->nnode; i++)
		if (g->node[i] == o->node)
			break;
	if (o->node >= 0 && i == g->nnode && g->nnode < GROUP_NODES)
		g->node[g->nnode++] = o->node;
}

/*
 * What a record of an object of @bytes stands for, in 16-bit fixed point:
 * N sampled 1 in N; sampled by bytes, 1 / p as the module weighs it
 * (<uapi/slabtrace/sample.h>), so that the estimates here are the module's.
 */
static uint64_t object_weight(const struct dump *d, long bytes)
{
	if (d->sample_bytes)
		return slabtrace_sample_weight(slabtrace_sample_p(bytes, d->sample_bytes));
	return (uint64_t)dump_weight(d) << 16;
}

static void object_add(struct dump *d, struct object *o,
		       const struct filter *f)
{
	char comm[320], *key;
	struct context *c;
	struct group *g;
	double w, wbytes;
	size_t len = 0;
	uint64_t wq16;
	long pid;
	int i;

	ctx_parse(o->who, &pid, comm, sizeof(comm));
	d->listed++;
	if (o->age < f->older)
		goto out;
	if (!filter_pid(f, pid))
		goto out;
	if (f->comm && strcmp(comm, f->comm))
		goto out;
	if (f->module) {
		for (i = 0; i < o->nframes; i++)
			if (frame_in_module(o->frames[i], f->module))
				break;
		if (i == o->nframes)
			goto out;
	}
	for (i = 0; i < o->nframes; i++)
		len += strlen(o->frames[i]) + 1;
	key = xmalloc(len + strlen(o->syscall) + 2);
	len = sprintf(key, "%s", o->syscall);
	for (i = 0; i < o->nframes; i++)
		len += sprintf(key + len, "\n%s", o->frames[i]);
	g = group_get(d, key);
	free(key);
	if (!g->objects) {
		g->frames = o->frames;
		g->nframes = o->nframes;
		o->frames = NULL;
		g->syscall = o->syscall[0] ? xstrdup(o->syscall) : NULL;
		g->age_min = o->age;
	}
	/* As the module adds them up (slab_trace_estimate()). */
	wq16 = object_weight(d, o->bytes);
	w = wq16 / 65536.0;
	wbytes = (double)(((uint64_t)o->bytes * wq16) >> 16);
	g->objects++;
	g->bytes += o->bytes;
	g->est_objects += w;
	g->est_bytes += wbytes;
	g->requested += o->requested;
	g->age_sum += o->age;
	if (o->age < g->age_min)
		g->age_min = o->age;
	if (o->age > g->age_max)
		g->age_max = o->age;
	group_note(g, o);
	c = context_get(g, o->who, pid);
	c->objects++;
	c->bytes += o->bytes;
	c->est_objects += w;
	c->est_bytes += wbytes;
	d->objects++;
	d->obj_bytes += o->bytes;
	d->est_objects += w;
	d->est_bytes += wbytes;
out:
	for (i = 0; o->frames && i < o->nframes; i++)
		free(o->frames[i]);
	free(o->frames);
	memset(o, 0, sizeof(*o));
}

/*
 * Whether the header line @line (after "Dumping outstanding allocs from ")
 * is that of the print @e describes, or of a cache in it (@part: the
 * print of a word, whose headers name its caches); says why not, for
 * @src.
 */
static bool header_is(const char *line, const struct expect *e, bool part,
		      const char *src)
{
	char want[600], name[300], opts[64] = "";

	if (!e->cache)
		return true;
	if (e->older)
		snprintf(opts, sizeof(opts), " (older than %ld ms)", e->older);
	if (part)
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(line, " "), line);
	else
		kernel_escape(e->cache, name, sizeof(name));
	snprintf(want, sizeof(want), "%s%s", name, opts);
	if (!strcmp(line, want))
		return true;
	if (part)
		snprintf(want, sizeof(want), "%s%s", e->cache, opts);
	fflush(stdout);
	fprintf(stderr, "%s: %s: the dump is of '", prog_name, src);
	put_escaped(stderr, line);
	fputs("', not of the print made for '", stderr);
	put_escaped(stderr, want);
	fputs("' (another print in between?)\n", stderr);
	return false;
}

/*
 * Whether @line is one of the other lines a per-object dump has
 * (module/slab/dump.c, module/stacks.c): drops, merged names, replaced
 * records, the rules, a backtrace not saved.
 */
static bool other_line(const char *line)
{
	static const char *const heads[] = {
		"drops: ", "shared with: ", "----", "filter: ",
		"percpu objects: ",
		" (backtrace not saved)",
	};
	unsigned long n;
	size_t i;
	int off = 0;

	for (i = 0; i < ARRAY_SIZE(heads); i++)
		if (!strncmp(line, heads[i], strlen(heads[i])))
			return true;
	return sscanf(line, "%lu records replaced: %n", &n, &off) == 1 && off;
}

/* "sampled 1 per B bytes: ..." of a trace sampled by bytes: B, else 0. */
static long sample_bytes_of(const char *line)
{
	long b;
	int off = 0;

	return sscanf(line, "sampled 1 per %ld bytes: %n", &b, &off) == 1 &&
	       off && b > 0 ? b : 0;
}

/* "sampled 1 in N: ..." of a sampled trace's header: N, else 0. */
static long sample_of(const char *line)
{
	long n;
	int off = 0;

	return sscanf(line, "sampled 1 in %ld: %n", &n, &off) == 1 && off &&
	       n > 1 ? n : 0;
}

/*
 * dump_parse(), of a dump alone or (@part) of one cache's in the print of
 * a word.
 */
static bool parse_one(char *text, struct dump *d, const struct filter *f,
		      const struct expect *e, bool part, const char *src)
{
	struct object o = { 0 };
	bool in_obj = false, header = false, traced = false;
	char *line, *save = NULL;

	memset(d, 0, sizeof(*d));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int nr;
		int off = 0;

		if (!strncmp(line, "Dumping outstanding allocs from ", 32)) {
			char *p = line + 32;

			if (header) {
				note("%s: a second dump header", src);
				return false;
			}
			if (strstr(p, " (by stack")) {
				note("%s: a stacks view, not a per-object dump", src);
				return false;
			}
			if (!header_is(p, e, part, src))
				return false;
			snprintf(d->cache, sizeof(d->cache), "%.*s",
				 (int)strcspn(p, " "), p);
			header = true;
		} else if (header && !traced && !strncmp(line, "traced ", 7)) {
			char t[32];

			if (sscanf(line, "traced %31[0-9.]s, %ld outstanding (%ld bytes)",
				   t, &d->outstanding, &d->bytes) != 3) {
				note("%s: cannot read '%.60s'", src, line);
				return false;
			}
			d->traced = atof(t);
			if (strstr(line, "records dropped"))
				d->dropped = atol(strrchr(line, ',') + 2);
			traced = true;
		} else if (!strncmp(line, "Obj ", 4)) {
			char *p, *q;

			if (!traced)
				break;
			if (in_obj)
				object_add(d, &o, f);
			in_obj = true;
			p = strchr(line, ',');
			if (!p || sscanf(p, ", %ld bytes (%ld requested)",
					 &o.bytes, &o.requested) != 2) {
				note("%s: cannot read '%.60s'", src, line);
				return false;
			}
			p = strstr(line, ", age ");
			o.age = p ? secs_to_ms(p + 6) : 0;
			p = strstr(line, ", node ");
			o.node = p ? atol(p + 7) : -1;
			p = strstr(line, ", gfp ");
			if (p)
				snprintf(o.gfp, sizeof(o.gfp), "%.*s",
					 (int)strcspn(p + 6, ","), p + 6);
			p = strstr(line, ", from ");
			if (!p) {
				note("%s: cannot read '%.60s'", src, line);
				return false;
			}
			p += 7;
			q = strstr(p, " in syscall ");
			if (q) {
				snprintf(o.syscall, sizeof(o.syscall), "%.*s",
					 (int)(strlen(q + 12) - 1), q + 12);
				*q = 0;
			} else {
				p[strlen(p) - 1] = 0;	/* the ':' */
			}
			snprintf(o.who, sizeof(o.who), "%s", p);
		} else if (in_obj && sscanf(line, " #%u [<%*[^>]>] in %n", &nr,
					    &off) == 1 && off > 0) {
			if (o.nframes == o.cap) {
				o.cap = o.cap ? 2 * o.cap : 16;
				o.frames = xrealloc(o.frames,
						    o.cap * sizeof(*o.frames));
			}
			o.frames[o.nframes++] = xstrdup(line + off);
		} else if (!strncmp(line, "Stack ", 6)) {
			note("%s: a stacks view, not a per-object dump", src);
			return false;
		} else if (!header) {
			break;
		} else if (header && sample_of(line)) {
			d->sample = sample_of(line);
		} else if (header && sample_bytes_of(line)) {
			d->sample_bytes = sample_bytes_of(line);
		} else if (!e->cache && !other_line(line)) {
			note("%s: not a line of a per-object dump: '%.60s'", src, line);
			return false;
		}
	}
	if (in_obj)
		object_add(d, &o, f);
	if (!header) {
		note("%s: not a slabtrace dump (no 'Dumping outstanding allocs' line)",
		     src);
		return false;
	}
	if (!traced) {
		note("%s: the dump is cut short: no 'traced' line after its header", src);
		return false;
	}
	if (!d->sample)
		d->sample = 1;
	if (d->listed != d->outstanding) {
		note("%s: the dump is cut short: it lists %ld objects, its header counts %ld",
		     src, d->listed, d->outstanding);
		return false;
	}
	return true;
}

/*
 * Parse a per-object dump (what ctl returns after "print CACHE") into
 * groups of objects by backtrace and system call.  @src names the input
 * in errors; the dump must be of the print @e, and list as many objects
 * as its header counts.  A saved dump (@e names no cache) must have no
 * line a dump does not have: a file of another kind is refused, not read
 * as "0 objects".  Returns false if @text is not such a dump.
 */
bool dump_parse(char *text, struct dump *d, const struct filter *f,
		const struct expect *e, const char *src)
{
	return parse_one(text, d, f, e, false, src);
}

/* Whether @name is a word of the module's for a set of caches. */
bool print_is_word(const char *name)
{
	return !strcmp(name, "all") || !strcmp(name, "kmalloc");
}

#define DUMP_HEAD "Dumping outstanding allocs from "
#define SUMMARY "Print of %63[^:]: %ld caches, %ld with outstanding objects, most bytes first%n"
#define SUMMARY_1 "Print of %63[^:]: %ld cache, %ld with outstanding objects, most bytes first%n"

/*
 * The summary line of a print of a word, at @text, into @p: the offset of
 * the line after it; 0 (said, for @src) if @text starts with no such line.
 */
static size_t summary_parse(const char *text, struct print *p, long *parts,
			    const char *src)
{
	size_t len = strcspn(text, "\n");
	int off = 0;

	/* "1 cache", "2 caches". */
	if (sscanf(text, SUMMARY, p->word, &p->caches, parts, &off) != 3 &&
	    (sscanf(text, SUMMARY_1, p->word, &p->caches, parts, &off) != 3 ||
	     p->caches != 1))
		off = 0;
	if ((size_t)off != len || *parts < 0 || *parts > p->caches) {
		note("%s: cannot read '%.*s'", src, (int)(len > 80 ? 80 : len), text);
		return 0;
	}
	return len + (text[len] == '\n');
}

/*
 * Parse a print: a dump of one cache (dump_parse()), or the print of a
 * word, its summary line and the dump of each cache that it counts (each
 * read as dump_parse() reads a dump, but for the name in its header).
 * The print must be that of @e (of the word @e names; any if none), and
 * hold as many dumps as its summary counts.  Splits @text.  Returns false
 * (with nothing to free) if @text is no such print.
 */
bool print_parse(char *text, struct print *p, const struct filter *f,
		 const struct expect *e, const char *src)
{
	char *part, *next;
	long parts = 0;
	size_t off;

	memset(p, 0, sizeof(*p));
	if (strncmp(text, "Print of ", 9)) {
		p->d = xmalloc(sizeof(*p->d));
		p->n = 1;
		if (dump_parse(text, p->d, f, e, src))
			return true;
		print_free(p);
		return false;
	}
	off = summary_parse(text, p, &parts, src);
	if (!off)
		return false;
	if (e->cache && strcmp(p->word, e->cache)) {
		fflush(stdout);
		fprintf(stderr, "%s: %s: the dump is a print of '", prog_name, src);
		put_escaped(stderr, p->word);
		fputs("', not the print made for '", stderr);
		put_escaped(stderr, e->cache);
		fputs("' (another print in between?)\n", stderr);
		return false;
	}
	part = text + off;
	if (!parts && e->cache)
		return true;	/* what ctl holds after the print: not read */
	if (*part && strncmp(part, DUMP_HEAD, strlen(DUMP_HEAD))) {
		note("%s: not a line of a print of %s: '%.60s'", src, p->word, part);
		return false;
	}
	p->d = xmalloc((parts ? parts : 1) * sizeof(*p->d));
	for (; *part; part = next) {
		next = strstr(part, "\n" DUMP_HEAD);
		if (next)
			*next++ = 0;
		else
			next = part + strlen(part);
		if (p->n == parts) {
			note("%s: the print holds more than the %ld caches its first line counts",
			     src, parts);
			print_free(p);
			return false;
		}
		if (!parse_one(part, &p->d[p->n++], f, e, true, src)) {
			print_free(p);
			return false;
		}
	}
	if (p->n != parts) {
		note("%s: the print is cut short: it holds %d caches, its first line counts %ld",
		     src, p->n, parts);
		print_free(p);
		return false;
	}
	return true;
}

/* The longest any cache of @p was traced, in seconds. */
double print_traced(const struct print *p)
{
	double t = 0;
	int i;

	for (i = 0; i < p->n; i++)
		if (p->d[i].traced > t)
			t = p->d[i].traced;
	return t;
}

void print_free(struct print *p)
{
	int i;

	for (i = 0; i < p->n; i++)
		dump_free(&p->d[i]);
	free(p->d);
	memset(p, 0, sizeof(*p));
}

/* Set for group_cmp() by dump_sort(). */
static bool sort_by_bytes;

static int group_cmp(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;

	if (sort_by_bytes && a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->objects != b->objects)
		return a->objects > b->objects ? -1 : 1;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->age_max != b->age_max)
		return a->age_max > b->age_max ? -1 : 1;
	return strcmp(a->key, b->key);
}

/*
 * Most objects first (most bytes first with @by_bytes), then bytes, the
 * oldest, and the backtrace, so that the order is the same every time.
 */
void dump_sort(struct dump *d, bool by_bytes)
{
	sort_by_bytes = by_bytes;
	qsort(d->g, d->ng, sizeof(*d->g), group_cmp);
}

void dump_free(struct dump *d)
{
	int i, j;

	for (i = 0; i < d->ng; i++) {
		for (j = 0; j < d->g[i].nframes; j++)
			free(d->g[i].frames[j]);
		for (j = 0; j < d->g[i].nctx; j++)
			free(d->g[i].ctx[j].who);
		free(d->g[i].frames);
		free(d->g[i].ctx);
		free(d->g[i].syscall);
		free(d->g[i].key);
	}
	free(d->g);
	memset(d, 0, sizeof(*d));
}

/*
 * The function and the module of a frame, "leaky_alloc_buf+0x1b/0x20
 * [leaky]": "leaky_alloc_buf" into @fn, "leaky" into @mod ("" for the
 * kernel's own code).
 */
void frame_split(const char *frame, char *fn, size_t fn_size, char *mod,
		 size_t mod_size)
{
	const char *b = strrchr(frame, '[');

	snprintf(fn, fn_size, "%.*s", (int)strcspn(frame, "+ "), frame);
	if (b)
		snprintf(mod, mod_size, "%.*s", (int)strcspn(b + 1, "]"), b + 1);
	else
		snprintf(mod, mod_size, "%s", "");
}

/*
 * The name of a frame as the tools show it: the function, and its module
 * in brackets ("leaky_alloc_buf [leaky]", "vfs_write").
 */
void frame_func(const char *frame, char *buf, size_t size)
{
	char fn[256], mod[128];

	frame_split(frame, fn, sizeof(fn), mod, sizeof(mod));
	if (mod[0])
		snprintf(buf, size, "%s [%s]", fn, mod);
	else
		snprintf(buf, size, "%s", fn);
}
