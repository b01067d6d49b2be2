/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pprof profile (the gzipped profile.proto that `go tool pprof`, Parca,
 * Pyroscope and speedscope read), built sample by sample and written
 * once.  A sample is a stack of frames as slabtrace writes them
 * ("leaky_alloc_buf+0x1b/0x20 [leaky]", innermost first), one value per
 * sample type, and labels; samples of the same frames and labels are
 * added up into one.  Each distinct frame is one location; each
 * function ("leaky_alloc_buf [leaky]", named as the tools show it) one
 * function; each module, and the kernel ("vmlinux"), one mapping.
 *
 * The encoder is protobuf-c's, generated at build time from
 * profile.proto.  A tool built without protobuf-c (its static library
 * missing, as for the arm64 guests) has pprof_missing set to the reason
 * and must not call the others.
 */
#ifndef SLABTRACE_PPROF_H
#define SLABTRACE_PPROF_H

/* NULL if this build writes profiles; else why it cannot. */
extern const char *const pprof_missing;

struct pprof_label {
	const char *key;
	const char *str;	/* a string label, or NULL: */
	long long num;		/* a number, in */
	const char *unit;	/* NULL: none */
};

struct pprof;

struct pprof *pprof_new(const char *const types[][2], int ntypes);
void pprof_add(struct pprof *p, char *const *frames, int nframes,
	       const long long *values, const struct pprof_label *labels,
	       int nlabels);
void pprof_comment(struct pprof *p, const char *text);
int pprof_write(struct pprof *p, const char *path, double time,
		double duration);
void pprof_free(struct pprof *p);

#endif
