/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * What the parsers of a per-object dump (what reading ctl gives after
 * "print CACHE", module/slab/dump.c; scripts/tools/lib/dump.c reads it)
 * share with the module that writes it: the bounds of its numbers (a
 * number out of these is not the module's, and the dump is refused) and
 * the words of the stacks' leak verdicts.
 */
#ifndef _UAPI_SLABTRACE_DUMP_H
#define _UAPI_SLABTRACE_DUMP_H

/* Frames of a backtrace, #01 to this (slab_trace's LEAK_STACK_DEPTH). */
#define SLABTRACE_DUMP_FRAMES_MAX	32

/* "sampled 1 in N": N from 2 to this ("start CACHE ... sample N"). */
#define SLABTRACE_SAMPLE_EVERY_MAX	1000000U

/* "sampled 1 per B bytes": B in this range ("start ... sample-bytes B"). */
#define SLABTRACE_SAMPLE_BYTES_MIN	64U
#define SLABTRACE_SAMPLE_BYTES_MAX	1073741824U

/* An object's age, in ms: a u32 (leak_snapshot_age()). */
#define SLABTRACE_DUMP_AGE_MS_MAX	4294967295UL

/* The longest name of a cache a dump's header holds, escaped (\xNN). */
#define SLABTRACE_DUMP_NAME_MAX		(4 * 64)

/*
 * The leak verdict of a stack (module/slab/verdict.c), by the word a dump
 * writes for it: "stack 1 (leak)", "stack 1: leak (growing): ...", and
 * in the counts "verdicts: 2 leak, 3 live, 0 kept, 1 unknown".
 */
enum slabtrace_verdict {
	SLABTRACE_VERDICT_UNKNOWN,
	SLABTRACE_VERDICT_LEAK,
	SLABTRACE_VERDICT_LIVE,
	SLABTRACE_VERDICT_KEPT,
	SLABTRACE_VERDICTS
};

/* Their words: const char *const w[SLABTRACE_VERDICTS] = SLABTRACE_VERDICT_WORDS; */
#define SLABTRACE_VERDICT_WORDS {				\
	[SLABTRACE_VERDICT_UNKNOWN] = "unknown",		\
	[SLABTRACE_VERDICT_LEAK] = "leak",			\
	[SLABTRACE_VERDICT_LIVE] = "live",			\
	[SLABTRACE_VERDICT_KEPT] = "kept",			\
}

#endif /* _UAPI_SLABTRACE_DUMP_H */
