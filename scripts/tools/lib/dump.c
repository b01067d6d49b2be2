// SPDX-License-Identifier: GPL-2.0
/*
 * The one parser of the module's per-object dump: see dump.h.  Static,
 * libc only.
 *
 * What it reads may be anything: a file a user saved, cut or edited, or
 * no dump at all.  So it trusts nothing in it.  Each line is found by one
 * scan for its end and refused, unread, if it is longer than any the
 * module writes (LINE_MAX_BYTES); every number is a run of decimal digits
 * no greater than the module can write (<uapi/slabtrace/dump.h> and the
 * bounds below), read without overflow; every total is added with an
 * overflow check; and a line the module cannot have written is refused
 * with its number ("saved.dump:12: ...").  What it keeps grows with the lines it
 * accepted (a print's dumps as they come, not as its first line counts),
 * and a refusal frees all of it.  Groups and contexts are found through
 * hash tables, so that a dump of many stacks or many processes costs
 * time in proportion to its size.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../include/uapi/slabtrace/dump.h"
#include "../../../include/uapi/slabtrace/sample.h"
#include "dump.h"
#include "escape.h"
#include "stfiles.h"

/*
 * The longest line the module writes is shorter: an Obj line with every
 * GFP flag, a frame's name of KSYM_SYMBOL_LEN (666 bytes on 64 bits), the
 * 256 bytes of "shared with: " escaped, a filter of four cgroup paths.
 */
#define LINE_MAX_BYTES	4096
/* Counts (objects, records, drops), 2^48: more than any memory holds. */
#define COUNT_MAX	0x1000000000000L
/*
 * A cache's bytes, 2^60, and the bytes of one object (a percpu one on
 * every CPU), 2^40.
 */
#define BYTES_MAX	0x1000000000000000L
#define OBJ_BYTES_MAX	0x10000000000L
/* Traced for, in ms: a u64 of ns. */
#define TRACED_MS_MAX	((long)(UINT64_MAX / 1000000))
/* CPUs (NR_CPUS), NUMA nodes (MAX_NUMNODES), pids (PID_MAX_LIMIT). */
#define CPU_MAX		8191
#define NODE_MAX	1023
#define PID_MAX		4194304
/* Caches in the print of a word: more than a kernel has. */
#define CACHES_MAX	65536

static const char *const verdict_words[SLABTRACE_VERDICTS] =
	SLABTRACE_VERDICT_WORDS;

/* The word of verdict @v; "-" for VERDICT_NONE. */
const char *verdict_name(enum verdict v)
{
	return v > VERDICT_NONE && v < NVERDICTS ? verdict_words[v - 1] : "-";
}

/* The verdict named @word; VERDICT_NONE if none is. */
static enum verdict verdict_of(const char *word)
{
	int v;

	for (v = 0; v < SLABTRACE_VERDICTS; v++)
		if (!strcmp(word, verdict_words[v]))
			return v + 1;
	return VERDICT_NONE;
}

/* Where the parser is in the text, for reading and for its messages. */
struct reader {
	char *next;		/* the rest of the text */
	unsigned long nr;	/* the number of the line last read, from 1 */
	const char *src;	/* the input's name */
	bool unended;		/* the last line had no newline */
};

/* "SRC:N: WHY", N the line's number, as compilers name a line. */
static void refuse(const struct reader *r, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	note("%s:%lu: %s", r->src, r->nr, why);
}

/* Up to 60 bytes of @line for a message, bytes not printable as \xNN. */
static const char *quoted(const char *line, char *buf, size_t size)
{
	size_t len = 0;
	int i;

	for (i = 0; line[i] && i < 60 && len + 5 < size; i++) {
		unsigned char c = line[i];

		if (c < 0x20 || c >= 0x7f)
			len += sprintf(buf + len, "\\x%02x", c);
		else
			buf[len++] = c;
	}
	buf[len] = 0;
	return buf;
}

/*
 * The next line, its end made a NUL, or NULL at the end of the text.  A
 * line longer than the module writes is refused (NULL, *@bad set): one
 * scan for its end, no copy.
 */
static char *next_line(struct reader *r, bool *bad)
{
	char *line = r->next, *end;
	size_t len;

	if (!*line)
		return NULL;
	end = strchr(line, '\n');
	len = end ? (size_t)(end - line) : strlen(line);
	r->nr++;
	if (len > LINE_MAX_BYTES) {
		refuse(r, "%zu bytes, longer than any line of a dump", len);
		*bad = true;
		return NULL;
	}
	r->next = line + len;
	if (end)
		*r->next++ = 0;
	else
		r->unended = true;
	return line;
}

/* Past @lit at *@p, if it is there. */
static bool skip(char **p, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(*p, lit, n))
		return false;
	*p += n;
	return true;
}

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A decimal number at *@p, digits only, of at most @max; *@p past it. */
static bool number(char **p, long max, long *v)
{
	char *s = *p;
	long n = 0;

	if (!digit(*s))
		return false;
	for (; digit(*s); s++) {
		if (*s - '0' > max || n > (max - (*s - '0')) / 10)
			return false;
		n = n * 10 + (*s - '0');
	}
	*v = n;
	*p = s;
	return true;
}

/* "S.mmms" (show_secs() of the module) at *@p: in ms, at most @max_ms. */
static bool secs(char **p, long max_ms, long *ms)
{
	char *s = *p;
	long sec;
	int i, frac = 0;

	if (!number(&s, max_ms / 1000, &sec) || *s++ != '.')
		return false;
	for (i = 0; i < 3; i++, s++) {
		if (!digit(*s))
			return false;
		frac = frac * 10 + (*s - '0');
	}
	if (*s++ != 's' || sec * 1000 > max_ms - frac)
		return false;
	*ms = sec * 1000 + frac;
	*p = s;
	return true;
}

/* *@sum += @v, unless that overflows. */
static bool add(long *sum, long v)
{
	return !__builtin_add_overflow(*sum, v, sum);
}

/*
 * A hash table of the groups of a dump (by key) and of their contexts (by
 * group and who), while it is read: indexes into d->g and g->ctx, open
 * addressing, grown at half full.
 */
struct slot {
	uint64_t hash;
	int group;	/* index in d->g, + 1; 0: empty */
	int ctx;	/* index in its ctx, or -1: the group itself */
};

struct index {
	struct slot *slot;
	size_t size, used;	/* size: a power of 2 */
};

/* FNV-1a of @s, on @seed. */
static uint64_t hash_str(const char *s, uint64_t seed)
{
	uint64_t h = 14695981039346656037ULL ^ seed;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static void index_free(struct index *ix)
{
	free(ix->slot);
	memset(ix, 0, sizeof(*ix));
}

static void index_put(struct index *ix, uint64_t hash, int group, int ctx);

static void index_grow(struct index *ix)
{
	struct index old = *ix;
	size_t i;

	ix->size = old.size ? 2 * old.size : 256;
	ix->slot = xmalloc(ix->size * sizeof(*ix->slot));
	memset(ix->slot, 0, ix->size * sizeof(*ix->slot));
	ix->used = 0;
	for (i = 0; i < old.size; i++)
		if (old.slot[i].group)
			index_put(ix, old.slot[i].hash, old.slot[i].group - 1,
				  old.slot[i].ctx);
	free(old.slot);
}

static void index_put(struct index *ix, uint64_t hash, int group, int ctx)
{
	size_t i;

	if (2 * (ix->used + 1) > ix->size)
		index_grow(ix);
	for (i = hash & (ix->size - 1); ix->slot[i].group;
	     i = (i + 1) & (ix->size - 1))
		;
	ix->slot[i] = (struct slot){ hash, group + 1, ctx };
	ix->used++;
}

/* What a dump is read with, besides the dump. */
struct parse {
	struct reader r;
	struct index ix;
	bool in_obj;		/* reading an object's frames */
};

static struct group *group_get(struct dump *d, struct parse *ps,
			       const char *key)
{
	uint64_t h = hash_str(key, 0);
	struct slot *sl;
	size_t i;

	for (i = ps->ix.size ? h & (ps->ix.size - 1) : 0;
	     ps->ix.size && ps->ix.slot[i].group; i = (i + 1) & (ps->ix.size - 1)) {
		sl = &ps->ix.slot[i];
		if (sl->hash == h && sl->ctx < 0 &&
		    !strcmp(d->g[sl->group - 1].key, key))
			return &d->g[sl->group - 1];
	}
	if (d->ng == d->capg) {
		d->capg = d->capg ? 2 * d->capg : 64;
		d->g = xrealloc(d->g, d->capg * sizeof(*d->g));
	}
	memset(&d->g[d->ng], 0, sizeof(*d->g));
	d->g[d->ng].key = xstrdup(key);
	index_put(&ps->ix, h, d->ng, -1);
	return &d->g[d->ng++];
}

/* The context @who of @g, added if new. */
static struct context *context_get(struct dump *d, struct parse *ps,
				   struct group *g, const char *who, long pid)
{
	int gi = g - d->g;
	uint64_t h = hash_str(who, gi + 1);
	struct slot *sl;
	size_t i;

	for (i = h & (ps->ix.size - 1); ps->ix.slot[i].group;
	     i = (i + 1) & (ps->ix.size - 1)) {
		sl = &ps->ix.slot[i];
		if (sl->hash == h && sl->group == gi + 1 && sl->ctx >= 0 &&
		    !strcmp(g->ctx[sl->ctx].who, who))
			return &g->ctx[sl->ctx];
	}
	/* Room for a power of 2 of them. */
	if (!(g->nctx & (g->nctx - 1)))
		g->ctx = xrealloc(g->ctx, (g->nctx ? 2 * g->nctx : 1) * sizeof(*g->ctx));
	memset(&g->ctx[g->nctx], 0, sizeof(*g->ctx));
	g->ctx[g->nctx].who = xstrdup(who);
	g->ctx[g->nctx].pid = pid;
	index_put(&ps->ix, h, gi, g->nctx);
	return &g->ctx[g->nctx++];
}

/* One object of the dump, while its frames are read. */
struct object {
	long bytes, requested, age;
	long node;		/* -1: none said */
	char gfp[128];		/* "" if none said */
	char who[300];
	long pid;		/* who's; -1: none */
	char comm[300];		/* who's command, escaped */
	char syscall[64];
	long stack;		/* ", stack N (WORD)": N, and WORD's verdict */
	enum verdict verdict;
	char **frames;
	int nframes, cap;
};

static void object_clear(struct object *o)
{
	int i;

	for (i = 0; o->frames && i < o->nframes; i++)
		free(o->frames[i]);
	free(o->frames);
	memset(o, 0, sizeof(*o));
}

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

/*
 * The pid and command of a context as the module writes it ("PID 5 sh",
 * "kthread x (PID 5)", "worker x (PID 5)", "softirq", "hardirq"; the
 * command escaped, with no space, and empty for a task that named itself
 * "" (prctl(PR_SET_NAME)): "PID 5 "): false if @who is none of them.
 */
static bool who_parse(const char *who, long *pid, char *comm, size_t size)
{
	char *p = (char *)who, *name;
	size_t n;

	*pid = -1;
	comm[0] = 0;
	if (!strcmp(who, "softirq") || !strcmp(who, "hardirq")) {
		snprintf(comm, size, "%s", who);
		return true;
	}
	if (skip(&p, "PID ")) {
		if (!number(&p, PID_MAX, pid) || *p++ != ' ' || strchr(p, ' '))
			return false;
		snprintf(comm, size, "%s", p);
		return true;
	}
	if (!skip(&p, "kthread ") && !skip(&p, "worker "))
		return false;
	name = p;
	n = strcspn(p, " ");
	p += n;
	if (!skip(&p, " (PID ") || !number(&p, PID_MAX, pid) ||
	    strcmp(p, ")"))
		return false;
	snprintf(comm, size, "%.*s", (int)n, name);
	return true;
}

/* @o, read to its last frame, into @d's groups if it passes @f. */
static bool object_add(struct dump *d, struct parse *ps, struct object *o,
		       const struct filter *f)
{
	struct context *c;
	struct group *g;
	double w, wbytes;
	size_t len = 0;
	uint64_t wq16;
	char *key;
	bool ok;
	int i;

	ps->in_obj = false;
	d->listed++;
	if (o->age < f->older)
		goto out;
	if (!filter_pid(f, o->pid))
		goto out;
	if (f->comm && strcmp(o->comm, f->comm))
		goto out;
	if (f->only_leaks && o->verdict != VERDICT_LEAK)
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
	g = group_get(d, ps, key);
	free(key);
	if (!g->objects) {
		g->frames = o->frames;
		g->nframes = o->nframes;
		o->frames = NULL;
		g->syscall = o->syscall[0] ? xstrdup(o->syscall) : NULL;
		g->age_min = o->age;
		g->stack = o->stack;
		g->verdict = o->verdict;
	}
	/* Two of the module's stacks with one text: a leak if either is. */
	if (o->verdict == VERDICT_LEAK && g->verdict != VERDICT_LEAK) {
		g->stack = o->stack;
		g->verdict = o->verdict;
	}
	/*
	 * As the module adds them up (leak_estimate()), the bytes in
	 * 128 bits: a weight of up to 2^48 times up to 2^40 bytes.
	 */
	wq16 = object_weight(d, o->bytes);
	w = wq16 / 65536.0;
	wbytes = (double)(((__uint128_t)o->bytes * wq16) >> 16);
	c = context_get(d, ps, g, o->who, o->pid);
	ok = add(&g->objects, 1) && add(&g->bytes, o->bytes) &&
	     add(&g->requested, o->requested) && add(&g->age_sum, o->age) &&
	     add(&c->objects, 1) && add(&c->bytes, o->bytes) &&
	     add(&d->objects, 1) && add(&d->obj_bytes, o->bytes);
	if (!ok) {
		refuse(&ps->r, "the objects' totals overflow");
		return false;
	}
	g->est_objects += w;
	g->est_bytes += wbytes;
	if (o->age < g->age_min)
		g->age_min = o->age;
	if (o->age > g->age_max)
		g->age_max = o->age;
	group_note(g, o);
	c->est_objects += w;
	c->est_bytes += wbytes;
	d->est_objects += w;
	d->est_bytes += wbytes;
out:
	object_clear(o);
	return true;
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
static bool other_line(char *line)
{
	static const char *const heads[] = {
		"drops: ", "shared with: ", "----", "filter: ",
		"percpu objects: ",
		" (backtrace not saved)",
	};
	size_t i;
	long n;

	for (i = 0; i < ARRAY_SIZE(heads); i++)
		if (!strncmp(line, heads[i], strlen(heads[i])))
			return true;
	return number(&line, COUNT_MAX, &n) &&
	       !strncmp(line, " records replaced: ", 19);
}

/*
 * "verdicts: 2 leak, 2 live, 0 kept, 1 unknown", the stacks' verdicts:
 * into @d; false if @line is not that line.
 */
static bool verdicts_of(const char *line, struct dump *d)
{
	static const char *const after[] = { " leak, ", " live, ", " kept, ", " unknown" };
	static const enum verdict which[] = {
		VERDICT_LEAK, VERDICT_LIVE, VERDICT_KEPT, VERDICT_UNKNOWN
	};
	char *p = (char *)line;
	long v[ARRAY_SIZE(which)];
	size_t i;

	if (!skip(&p, "verdicts: "))
		return false;
	for (i = 0; i < ARRAY_SIZE(which); i++)
		if (!number(&p, COUNT_MAX, &v[i]) || !skip(&p, after[i]))
			return false;
	if (*p)
		return false;
	for (i = 0; i < ARRAY_SIZE(which); i++)
		d->verdicts[which[i]] = v[i];
	d->judged = true;
	return true;
}

/* "stack N: VERDICT...", a stack's verdict and its evidence: into @d. */
static bool evidence_of(const char *line, struct dump *d)
{
	char word[16];
	long n;
	int off = 0;

	if (sscanf(line, "stack %ld: %n%15[a-z]", &n, &off, word) != 2 ||
	    !off || n <= 0 || verdict_of(word) == VERDICT_NONE)
		return false;
	d->ev = xrealloc(d->ev, (d->nev + 1) * sizeof(*d->ev));
	d->ev[d->nev].stack = n;
	/* A saved dump may be anyone's: no raw control byte reaches a terminal. */
	d->ev[d->nev++].text = escaped(xstrdup(line + off));
	return true;
}

/* Each group's evidence, from the header's lines. */
static void evidence_attach(struct dump *d)
{
	int i, j;

	for (i = 0; i < d->ng; i++)
		for (j = 0; d->g[i].stack && j < d->nev; j++)
			if (d->ev[j].stack == d->g[i].stack)
				d->g[i].evidence = d->ev[j].text;
}

/*
 * "traced S.mmms, N outstanding (B bytes), D records dropped", the second
 * line of a dump, into @d.
 */
static bool traced_parse(char *p, struct dump *d)
{
	long ms;

	if (!skip(&p, "traced ") || !secs(&p, TRACED_MS_MAX, &ms) ||
	    !skip(&p, ", ") || !number(&p, COUNT_MAX, &d->outstanding) ||
	    !skip(&p, " outstanding (") || !number(&p, BYTES_MAX, &d->bytes) ||
	    !skip(&p, " bytes), ") || !number(&p, COUNT_MAX, &d->dropped) ||
	    strcmp(p, " records dropped"))
		return false;
	d->traced = ms / 1000.0;
	return true;
}

/*
 * "sampled 1 in N: estimated ..." or "sampled 1 per B bytes: estimated
 * ...", of a sampled trace, into @d: false if N or B is not one the module
 * takes.
 */
static bool sampled_parse(char *p, struct dump *d)
{
	long v;

	if (skip(&p, "sampled 1 in ")) {
		if (!number(&p, SLABTRACE_SAMPLE_EVERY_MAX, &v) || v < 2)
			return false;
		d->sample = v;
	} else if (skip(&p, "sampled 1 per ")) {
		if (!number(&p, SLABTRACE_SAMPLE_BYTES_MAX, &v) ||
		    v < SLABTRACE_SAMPLE_BYTES_MIN || !skip(&p, " bytes"))
			return false;
		d->sample_bytes = v;
	} else {
		return false;
	}
	return skip(&p, ": estimated ");
}

/*
 * "Obj ADDR, B bytes (R requested), age S.mmms, cpu C[, node N][, gfp
 * FLAGS][, stack N (VERDICT)], from WHO[ in syscall NAME]:", into @o; NULL, or what of it is
 * not the module's.
 */
static const char *obj_parse(char *p, struct object *o)
{
	char *who, *sys;
	size_t n;
	long cpu;

	memset(o, 0, sizeof(*o));
	o->node = -1;
	p += 4;
	n = strcspn(p, ", ");
	if (!n || n > 32)
		return "its address";
	p += n;
	if (!skip(&p, ", ") || !number(&p, OBJ_BYTES_MAX, &o->bytes) ||
	    !skip(&p, " bytes (") || !number(&p, OBJ_BYTES_MAX, &o->requested) ||
	    !skip(&p, " requested)"))
		return "its bytes";
	if (!skip(&p, ", age ") || !secs(&p, SLABTRACE_DUMP_AGE_MS_MAX, &o->age))
		return "its age";
	if (!skip(&p, ", cpu ") || !number(&p, CPU_MAX, &cpu))
		return "its CPU";
	if (skip(&p, ", node ") && !number(&p, NODE_MAX, &o->node))
		return "its node";
	if (skip(&p, ", gfp ")) {
		n = strcspn(p, ",");
		if (!n)
			return "its GFP flags";
		/* Many modifiers pass the room: the first of them, and "...". */
		if (n >= sizeof(o->gfp))
			snprintf(o->gfp, sizeof(o->gfp), "%.*s...",
				 (int)sizeof(o->gfp) - 4, p);
		else
			snprintf(o->gfp, sizeof(o->gfp), "%.*s", (int)n, p);
		p += n;
	}
	if (skip(&p, ", stack ")) {
		char word[16];

		if (!number(&p, COUNT_MAX, &o->stack) || !o->stack ||
		    !skip(&p, " ("))
			return "its stack";
		n = strcspn(p, ")");
		if (n >= sizeof(word))
			return "its stack's verdict";
		snprintf(word, sizeof(word), "%.*s", (int)n, p);
		o->verdict = verdict_of(word);
		p += n;
		if (o->verdict == VERDICT_NONE || !skip(&p, ")"))
			return "its stack's verdict";
	}
	if (!skip(&p, ", from "))
		return "its context";
	n = strlen(p);
	if (n < 2 || p[n - 1] != ':')
		return "its context";
	p[n - 1] = 0;
	who = p;
	sys = strstr(who, " in syscall ");
	if (sys) {
		*sys = 0;
		sys += 12;
		if (!*sys || strlen(sys) >= sizeof(o->syscall))
			return "its system call";
		snprintf(o->syscall, sizeof(o->syscall), "%s", sys);
	}
	if (strlen(who) >= sizeof(o->who) ||
	    !who_parse(who, &o->pid, o->comm, sizeof(o->comm)))
		return "its context";
	snprintf(o->who, sizeof(o->who), "%s", who);
	return NULL;
}

/* " #NN [<ADDR>] in FRAME", the next frame of @o; false if not. */
static bool frame_parse(char *p, struct object *o)
{
	char *end;
	long nr;

	if (!skip(&p, " #") || !number(&p, SLABTRACE_DUMP_FRAMES_MAX, &nr) ||
	    nr != o->nframes + 1 || !skip(&p, " [<"))
		return false;
	end = strstr(p, ">] in ");
	if (!end || end - p > 32 || !end[6])
		return false;
	if (o->nframes == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 16;
		o->frames = xrealloc(o->frames, o->cap * sizeof(*o->frames));
	}
	o->frames[o->nframes++] = xstrdup(end + 6);
	return true;
}

/*
 * dump_parse(), of a dump alone or (@part) of one cache's in the print of
 * a word, @more if another dump follows it there; @line0, the number of
 * the line before @text in the print.  On failure @d holds what was read
 * (dump_free() frees it).
 */
static bool parse_one(char *text, struct dump *d, const struct filter *f,
		      const struct expect *e, bool part, bool more,
		      const char *src, unsigned long line0)
{
	struct parse ps = { .r = { .next = text, .nr = line0, .src = src } };
	struct object o = { 0 };
	bool header = false, traced = false, bad = false, ok = false;
	bool whole = false;	/* the object read ended with its blank line */
	bool cut;
	char *line, q[300];
	const char *why;

	memset(d, 0, sizeof(*d));
	while ((line = next_line(&ps.r, &bad))) {
		if (!*line) {
			whole = ps.in_obj;
			continue;
		}
		if (!strncmp(line, "Dumping outstanding allocs from ", 32)) {
			char *p = line + 32;
			size_t n = strcspn(p, " ");

			if (header) {
				refuse(&ps.r, "a second dump header");
				goto out;
			}
			if (strstr(p, " (by stack")) {
				note("%s: a stacks view, not a per-object dump", src);
				goto out;
			}
			if (!n || n > SLABTRACE_DUMP_NAME_MAX) {
				refuse(&ps.r, "no cache name of the module's");
				goto out;
			}
			if (!header_is(p, e, part, src))
				goto out;
			snprintf(d->cache, sizeof(d->cache), "%.*s", (int)n, p);
			header = true;
		} else if (header && !traced && !strncmp(line, "traced ", 7)) {
			if (!traced_parse(line, d)) {
				refuse(&ps.r, "cannot read '%s'",
				       quoted(line, q, sizeof(q)));
				goto out;
			}
			traced = true;
		} else if (!strncmp(line, "Obj ", 4)) {
			if (!traced)
				break;
			if (ps.in_obj && !object_add(d, &ps, &o, f))
				goto out;
			why = obj_parse(line, &o);
			if (why) {
				refuse(&ps.r, "cannot read %s in '%s'", why,
				       quoted(line, q, sizeof(q)));
				goto out;
			}
			ps.in_obj = true;
			whole = false;
		} else if (!strncmp(line, " #", 2) && ps.in_obj) {
			whole = false;
			if (!frame_parse(line, &o)) {
				refuse(&ps.r, "not frame #%02d of the object: '%s'",
				       o.nframes + 1, quoted(line, q, sizeof(q)));
				goto out;
			}
		} else if (!strncmp(line, "Stack ", 6)) {
			note("%s: a stacks view, not a per-object dump", src);
			goto out;
		} else if (!header) {
			break;
		} else if (!strncmp(line, "sampled ", 8)) {
			if (!traced || ps.in_obj || d->sample || d->sample_bytes ||
			    !sampled_parse(line, d)) {
				refuse(&ps.r, "not a sampling the module does: '%s'",
				       quoted(line, q, sizeof(q)));
				goto out;
			}
		} else if (header && !ps.in_obj && verdicts_of(line, d)) {
			continue;
		} else if (header && !ps.in_obj && evidence_of(line, d)) {
			continue;
		} else if (!e->cache && !other_line(line)) {
			refuse(&ps.r, "not a line of a per-object dump: '%s'",
			       quoted(line, q, sizeof(q)));
			goto out;
		}
	}
	if (bad)
		goto out;
	/* The module ends every object with a blank line. */
	cut = ps.in_obj && !whole && !more;
	if (ps.in_obj && !object_add(d, &ps, &o, f))
		goto out;
	if (!header) {
		note("%s: not a slabtrace dump (no 'Dumping outstanding allocs' line)",
		     src);
		goto out;
	}
	if (!traced) {
		note("%s: the dump is cut short: no 'traced' line after its header", src);
		goto out;
	}
	if (!d->sample)
		d->sample = 1;
	evidence_attach(d);
	if (d->listed != d->outstanding) {
		note("%s: the dump is cut short: it lists %ld objects, its header counts %ld",
		     src, d->listed, d->outstanding);
		goto out;
	}
	/*
	 * Every line the module writes ends with a newline, and every object
	 * with a blank line: but the last object of a print's dumps but the
	 * last, whose blank line print_parse() took as the next dump's start.
	 */
	if (ps.r.unended || cut) {
		note("%s: the dump is cut short: its last %s is not whole", src,
		     ps.r.unended ? "line" : "object");
		goto out;
	}
	ok = true;
out:
	object_clear(&o);
	index_free(&ps.ix);
	return ok;
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
	return parse_one(text, d, f, e, false, false, src, 0);
}

/* Whether @name is a word of the module's for a set of caches. */
bool print_is_word(const char *name)
{
	return !strcmp(name, "all") || !strcmp(name, "kmalloc");
}

#define DUMP_HEAD "Dumping outstanding allocs from "

static const char more_than[] =
	"%s:%lu: the print holds more than the %ld caches its first line counts";

/*
 * The summary line of a print of a word, "Print of WORD: T caches, N with
 * outstanding objects, most bytes first" ("1 cache"), at @text, into @p
 * and @parts: the offset of the line after it; 0 (said, for @src) if
 * @text starts with no such line.
 */
static size_t summary_parse(char *text, struct print *p, long *parts,
			    const char *src)
{
	struct reader r = { .next = text, .src = src };
	char *line, *s, q[300];
	bool bad = false;
	size_t n;

	line = next_line(&r, &bad);
	if (!line)
		return 0;
	s = line + 9;
	n = strcspn(s, ":");
	if (!n || n >= sizeof(p->word))
		goto bad;
	snprintf(p->word, sizeof(p->word), "%.*s", (int)n, s);
	escaped(p->word);
	s += n;
	if (!skip(&s, ": ") || !number(&s, CACHES_MAX, &p->caches) ||
	    !skip(&s, p->caches == 1 ? " cache, " : " caches, ") ||
	    !number(&s, p->caches, parts) ||
	    strcmp(s, " with outstanding objects, most bytes first"))
		goto bad;
	return r.next - text;
bad:
	refuse(&r, "cannot read '%s'", quoted(line, q, sizeof(q)));
	return 0;
}

/* The number of lines of @s. */
static unsigned long lines_in(const char *s)
{
	unsigned long n = 0;

	while ((s = strchr(s, '\n'))) {
		n++;
		s++;
	}
	return n;
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
	unsigned long line0 = 1;
	char *part, *next;
	bool more;
	long parts = 0;
	size_t off;
	int cap = 0;

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
		note("%s:2: not a line of a print of %s", src, p->word);
		return false;
	}
	/* The dumps as they come: the summary's count is not trusted. */
	for (; *part; part = next) {
		next = strstr(part, "\n" DUMP_HEAD);
		more = next;
		if (next)
			*next++ = 0;
		else
			next = part + strlen(part);
		if (p->n == parts) {
			note(more_than, src, line0 + 1, parts);
			print_free(p);
			return false;
		}
		if (p->n == cap) {
			cap = cap ? 2 * cap : 8;
			p->d = xrealloc(p->d, cap * sizeof(*p->d));
		}
		if (!parse_one(part, &p->d[p->n++], f, e, true, more, src, line0)) {
			print_free(p);
			return false;
		}
		line0 += lines_in(part) + 1;
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
static bool sort_by_bytes, sort_by_estimates;

/* -1, 0 or 1: @a before, beside or after @b, the larger first. */
static int larger_first(double a, double b)
{
	return a > b ? -1 : a < b;
}

static int group_cmp(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;
	bool la = a->verdict == VERDICT_LEAK, lb = b->verdict == VERDICT_LEAK;
	int c;

	if (la != lb)
		return la ? -1 : 1;
	if (sort_by_estimates) {
		c = sort_by_bytes ? larger_first(a->est_bytes, b->est_bytes) : 0;
		if (!c)
			c = larger_first(a->est_objects, b->est_objects);
		if (c)
			return c;
	}
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
 * The stacks judged leaks first; then most objects (most bytes with
 * @by_bytes), then bytes, the oldest, and the backtrace, so that the order
 * is the same every time.  In a sampled dump, objects and bytes are first
 * the estimates: under "sample-bytes" a small object is recorded less
 * often than a large one, so the records alone would rank the stacks of
 * large objects above those that hold more.
 */
void dump_sort(struct dump *d, bool by_bytes)
{
	sort_by_bytes = by_bytes;
	sort_by_estimates = dump_sampled(d);
	if (d->ng)
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
	for (i = 0; i < d->nev; i++)
		free(d->ev[i].text);
	free(d->ev);
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
	char fn[FRAME_FN_SIZE], mod[FRAME_MOD_SIZE];

	frame_split(frame, fn, sizeof(fn), mod, sizeof(mod));
	if (mod[0])
		snprintf(buf, size, "%s [%s]", fn, mod);
	else
		snprintf(buf, size, "%s", fn);
}
