// SPDX-License-Identifier: GPL-2.0
/*
 * A pprof profile, encoded by protobuf-c and gzipped by zlib: see
 * pprof.h.  The tables (strings, functions, locations, mappings) are
 * kept with one hash of their keys, so a profile of thousands of frames
 * is built in linear time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump.h"
#include "pprof.h"
#include "stfiles.h"

#ifndef SLABTRACE_PPROF

/* Without protobuf-c: the options that write profiles refuse at once. */
const char *const pprof_missing =
	"not in this build (it needs protobuf-c-compiler, libprotobuf-c-dev, zlib1g-dev)";

struct pprof *pprof_new(const char *const types[][2], int ntypes)
{
	die("%s (%d sample types asked for %s)", pprof_missing, ntypes,
	    types[0][0]);
}

void pprof_add(struct pprof *p, char *const *frames, int nframes,
	       const long long *values, const struct pprof_label *labels,
	       int nlabels)
{
	(void)p;
	(void)frames;
	(void)nframes;
	(void)values;
	(void)labels;
	(void)nlabels;
}

void pprof_comment(struct pprof *p, const char *text)
{
	(void)p;
	(void)text;
}

int pprof_write(struct pprof *p, const char *path, double time,
		double duration)
{
	(void)p;
	(void)path;
	(void)time;
	(void)duration;
	errno = EOPNOTSUPP;
	return -1;
}

void pprof_free(struct pprof *p)
{
	(void)p;
}

#else

#include <zlib.h>

#include "profile.pb-c.h"
#include "profile-types.h"

const char *const pprof_missing;

/*
 * Key → index: "s" strings, "f" functions, "l" locations, "m" mappings,
 * "S" samples.
 */
struct slot {
	char *key;
	size_t index;
};

struct pprof {
	struct slot *hash;
	size_t hash_size, hash_used;
	char **strings;
	size_t nstrings;
	pb_valuetype_t **types;
	int ntypes;
	pb_sample_t **samples;
	size_t nsamples;
	pb_mapping_t **mappings;
	size_t nmappings;
	pb_location_t **locations;
	size_t nlocations;
	pb_function_t **functions;
	size_t nfunctions;
	int64_t *comments;
	size_t ncomments;
	char *key;		/* pprof_add()'s, kept between calls */
	size_t key_size;
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static struct slot *slot_of(struct slot *hash, size_t size, const char *key)
{
	size_t i = fnv1a(key) & (size - 1);

	while (hash[i].key && strcmp(hash[i].key, key))
		i = (i + 1) & (size - 1);
	return &hash[i];
}

/*
 * The index of @kind's entry @name, as @kind and @name joined; a new one
 * (the next of @count, which is incremented) if there is none, with
 * *@added set.
 */
static size_t lookup(struct pprof *p, char kind, const char *name,
		     size_t *count, bool *added)
{
	struct slot *s;
	char *key;

	if (asprintf(&key, "%c%s", kind, name) < 0)
		die("out of memory");
	if (2 * (p->hash_used + 1) > p->hash_size) {
		size_t size = p->hash_size ? 2 * p->hash_size : 1024, i;
		struct slot *hash = xmalloc(size * sizeof(*hash));

		for (i = 0; i < p->hash_size; i++)
			if (p->hash[i].key)
				*slot_of(hash, size, p->hash[i].key) = p->hash[i];
		free(p->hash);
		p->hash = hash;
		p->hash_size = size;
	}
	s = slot_of(p->hash, p->hash_size, key);
	*added = !s->key;
	if (s->key) {
		free(key);
		return s->index;
	}
	s->key = key;
	s->index = (*count)++;
	p->hash_used++;
	return s->index;
}

/* Grow the array *@v of @n pointers by one. */
static void *push(void *v, size_t n)
{
	return xrealloc(v, (n + 1) * sizeof(void *));
}

static int64_t string(struct pprof *p, const char *s)
{
	size_t n = p->nstrings;
	bool added;
	size_t i = lookup(p, 's', s, &n, &added);

	if (added) {
		p->strings = push(p->strings, p->nstrings);
		p->strings[p->nstrings++] = xstrdup(s);
	}
	return i;
}

/* The id of the mapping of module @mod ("" is the kernel's). */
static uint64_t mapping(struct pprof *p, const char *mod)
{
	size_t n = p->nmappings;
	bool added;
	size_t i = lookup(p, 'm', mod, &n, &added);
	pb_mapping_t *m;

	if (added) {
		m = xmalloc(sizeof(*m));
		perftools__profiles__mapping__init(m);
		m->id = i + 1;
		m->filename = string(p, mod[0] ? mod : "vmlinux");
		m->has_functions = true;
		p->mappings = push(p->mappings, p->nmappings);
		p->mappings[p->nmappings++] = m;
	}
	return i + 1;
}

static uint64_t function(struct pprof *p, const char *frame)
{
	size_t n = p->nfunctions;
	char name[FRAME_FUNC_SIZE], fn[FRAME_FN_SIZE], mod[FRAME_MOD_SIZE];
	bool added;
	size_t i;
	pb_function_t *f;

	frame_func(frame, name, sizeof(name));
	i = lookup(p, 'f', name, &n, &added);
	if (added) {
		frame_split(frame, fn, sizeof(fn), mod, sizeof(mod));
		f = xmalloc(sizeof(*f));
		perftools__profiles__function__init(f);
		f->id = i + 1;
		f->name = string(p, name);
		f->system_name = string(p, fn);
		p->functions = push(p->functions, p->nfunctions);
		p->functions[p->nfunctions++] = f;
	}
	return i + 1;
}

/* The id of the location of @frame, one for each frame as written. */
static uint64_t location(struct pprof *p, const char *frame)
{
	size_t n = p->nlocations;
	char fn[FRAME_FN_SIZE], mod[FRAME_MOD_SIZE];
	bool added;
	size_t i = lookup(p, 'l', frame, &n, &added);
	pb_location_t *l;

	if (added) {
		frame_split(frame, fn, sizeof(fn), mod, sizeof(mod));
		l = xmalloc(sizeof(*l));
		perftools__profiles__location__init(l);
		l->id = i + 1;
		l->mapping_id = mapping(p, mod);
		l->n_line = 1;
		l->line = xmalloc(sizeof(*l->line));
		l->line[0] = xmalloc(sizeof(pb_line_t));
		perftools__profiles__line__init(l->line[0]);
		l->line[0]->function_id = function(p, frame);
		p->locations = push(p->locations, p->nlocations);
		p->locations[p->nlocations++] = l;
	}
	return i + 1;
}

/* A profile whose samples have @ntypes values: @types' (type, unit). */
struct pprof *pprof_new(const char *const types[][2], int ntypes)
{
	struct pprof *p = xmalloc(sizeof(*p));
	int i;

	string(p, "");
	mapping(p, "");		/* the kernel: the main binary, mapping[0] */
	p->types = xmalloc(ntypes * sizeof(*p->types));
	for (i = 0; i < ntypes; i++) {
		p->types[i] = xmalloc(sizeof(pb_valuetype_t));
		perftools__profiles__value_type__init(p->types[i]);
		p->types[i]->type = string(p, types[i][0]);
		p->types[i]->unit = string(p, types[i][1]);
	}
	p->ntypes = ntypes;
	return p;
}

/*
 * The key of a sample: its frames and labels, each ended by a byte no
 * frame or label has.  Into @buf (*@size bytes, grown as needed).
 */
static void sample_key(char **buf, size_t *size, char *const *frames,
		       int nframes, const struct pprof_label *labels,
		       int nlabels)
{
	size_t len = 0, need;
	int i;

	for (i = 0; i < nframes + nlabels; i++) {
		char num[32];
		const char *k = i < nframes ? "" : labels[i - nframes].key;
		const char *v = i < nframes ? frames[i] : labels[i - nframes].str;

		if (!v) {
			snprintf(num, sizeof(num), "%lld", labels[i - nframes].num);
			v = num;
		}
		need = len + strlen(k) + strlen(v) + 3;
		if (need > *size) {
			*size = 2 * need;
			*buf = xrealloc(*buf, *size);
		}
		len += sprintf(*buf + len, "%s\x01%s\x02", k, v);
	}
	if (!*size)
		*buf = xrealloc(*buf, *size = 1);
	(*buf)[len] = 0;
}

/*
 * A sample: @frames (innermost first), @values (one a type), @labels.  A
 * sample with the frames and labels of one added before is added to it.
 */
void pprof_add(struct pprof *p, char *const *frames, int nframes,
	       const long long *values, const struct pprof_label *labels,
	       int nlabels)
{
	size_t n = p->nsamples, k;
	pb_sample_t *s;
	bool added;
	int i;

	sample_key(&p->key, &p->key_size, frames, nframes, labels, nlabels);
	k = lookup(p, 'S', p->key, &n, &added);
	if (!added) {
		for (i = 0; i < p->ntypes; i++)
			p->samples[k]->value[i] += values[i];
		return;
	}
	s = xmalloc(sizeof(*s));
	perftools__profiles__sample__init(s);
	s->n_location_id = nframes;
	s->location_id = xmalloc((nframes + 1) * sizeof(*s->location_id));
	for (i = 0; i < nframes; i++)
		s->location_id[i] = location(p, frames[i]);
	s->n_value = p->ntypes;
	s->value = xmalloc(p->ntypes * sizeof(*s->value));
	for (i = 0; i < p->ntypes; i++)
		s->value[i] = values[i];
	s->n_label = nlabels;
	s->label = xmalloc((nlabels + 1) * sizeof(*s->label));
	for (i = 0; i < nlabels; i++) {
		pb_label_t *l = xmalloc(sizeof(*l));

		perftools__profiles__label__init(l);
		l->key = string(p, labels[i].key);
		if (labels[i].str) {
			l->str = string(p, labels[i].str);
		} else {
			l->num = labels[i].num;
			if (labels[i].unit)
				l->num_unit = string(p, labels[i].unit);
		}
		s->label[i] = l;
	}
	p->samples = push(p->samples, p->nsamples);
	p->samples[p->nsamples++] = s;
}

/* A line of free text, which pprof shows with the profile. */
void pprof_comment(struct pprof *p, const char *text)
{
	p->comments = xrealloc(p->comments, (p->ncomments + 1) * sizeof(int64_t));
	p->comments[p->ncomments++] = string(p, text);
}

/*
 * @len bytes of @buf, gzipped, into @path (not through a link at its end:
 * root writes it): 0, or -1 with errno set.
 */
static int gzip_to(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		      0666);
	__auto_type gz = fd < 0 ? NULL : gzdopen(fd, "wb");
	int ret = 0;

	if (!gz) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	errno = 0;
	if (len && gzwrite(gz, buf, len) != (int)len) {
		errno = errno ? errno : EIO;
		ret = -1;
	}
	if (gzclose(gz) != Z_OK && !ret) {
		errno = errno ? errno : EIO;
		ret = -1;
	}
	return ret;
}

/*
 * Write the profile, gzipped, to @path: captured at @time (seconds since
 * the epoch) over @duration seconds.  Returns 0, or -1 with errno set.
 */
int pprof_write(struct pprof *p, const char *path, double time,
		double duration)
{
	pb_profile_t pr = PERFTOOLS__PROFILES__PROFILE__INIT;
	size_t len;
	uint8_t *buf;
	int ret;

	pr.n_sample_type = p->ntypes;
	pr.sample_type = p->types;
	pr.n_sample = p->nsamples;
	pr.sample = p->samples;
	pr.n_mapping = p->nmappings;
	pr.mapping = p->mappings;
	pr.n_location = p->nlocations;
	pr.location = p->locations;
	pr.n_function = p->nfunctions;
	pr.function = p->functions;
	pr.n_string_table = p->nstrings;
	pr.string_table = p->strings;
	pr.n_comment = p->ncomments;
	pr.comment = p->comments;
	pr.time_nanos = (int64_t)(time * 1e9);
	pr.duration_nanos = (int64_t)(duration * 1e9);
	len = perftools__profiles__profile__get_packed_size(&pr);
	buf = xmalloc(len);
	perftools__profiles__profile__pack(&pr, buf);
	ret = gzip_to(path, buf, len);
	free(buf);
	return ret;
}

void pprof_free(struct pprof *p)
{
	size_t i, j;

	if (!p)
		return;
	for (i = 0; i < p->hash_size; i++)
		free(p->hash[i].key);
	for (i = 0; i < p->nstrings; i++)
		free(p->strings[i]);
	for (i = 0; i < (size_t)p->ntypes; i++)
		free(p->types[i]);
	for (i = 0; i < p->nsamples; i++) {
		for (j = 0; j < p->samples[i]->n_label; j++)
			free(p->samples[i]->label[j]);
		free(p->samples[i]->label);
		free(p->samples[i]->location_id);
		free(p->samples[i]->value);
		free(p->samples[i]);
	}
	for (i = 0; i < p->nmappings; i++)
		free(p->mappings[i]);
	for (i = 0; i < p->nlocations; i++) {
		free(p->locations[i]->line[0]);
		free(p->locations[i]->line);
		free(p->locations[i]);
	}
	for (i = 0; i < p->nfunctions; i++)
		free(p->functions[i]);
	free(p->hash);
	free(p->strings);
	free(p->types);
	free(p->samples);
	free(p->mappings);
	free(p->locations);
	free(p->functions);
	free(p->comments);
	free(p->key);
	free(p);
}

#endif
