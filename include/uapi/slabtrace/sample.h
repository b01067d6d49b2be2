/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Sampling by bytes ("start CACHE sample-bytes B"): the chance that an
 * object is recorded and what its record stands for.  The module's probe
 * and estimates and the slabtrace command's (scripts/tools/lib/dump.c)
 * take them from here, so that an estimate the command makes from a
 * dump's records is the module's to the last bit.  Integers only.  Its
 * two 64-bit divisions are slabtrace_div_u64() (by a 32-bit divisor) and
 * slabtrace_div64_u64(): plain divisions, unless the includer defined
 * them first (the module does, as div_u64() and div64_u64(): a 32-bit
 * kernel has no plain 64-bit division).
 */
#ifndef _UAPI_SLABTRACE_SAMPLE_H
#define _UAPI_SLABTRACE_SAMPLE_H

#include <linux/types.h>

#ifndef slabtrace_div_u64
#define slabtrace_div_u64(dividend, divisor)	((__u64)(dividend) / (__u32)(divisor))
#endif
#ifndef slabtrace_div64_u64
#define slabtrace_div64_u64(dividend, divisor)	((__u64)(dividend) / (__u64)(divisor))
#endif

/* p and 1: 2^32. */
#define SLABTRACE_SAMPLE_ONE	(1ULL << 32)

/*
 * The chance, in 32-bit fixed point (1..2^32), that an object of @bytes
 * is recorded when sampled 1 per @mean bytes: p = 1 - exp(-bytes / B),
 * the chance that a Poisson process of mean interval B bytes over the
 * allocated bytes (as tcmalloc's, jemalloc's and Go's heap profilers
 * sample) falls in the object.  No floating point: t = bytes / B in Q32,
 * halved k times to below 1/16, where four terms of the series of
 * 1 - exp(-t) are within 1e-7 of it relatively, then doubled back with
 * 1 - exp(-2t) = p (2 - p).  Never 0; 2^32 from 23 B (exp(-23) < 2^-32)
 * and for objects of 2 GiB or more.  The sampler and the estimates
 * (slabtrace_sample_weight()) take this same value, so the estimates are
 * unbiased whatever the approximation's error.
 */
static inline __u64 slabtrace_sample_p(__u64 bytes, __u32 mean)
{
	__u64 t, t2, t3, t4, p;
	int k = 0;

	if (bytes >= 23ULL * mean || bytes >= 1ULL << 31)
		return SLABTRACE_SAMPLE_ONE;
	t = slabtrace_div_u64(bytes << 32, mean);
	while (t >= 1ULL << 28) {
		t >>= 1;
		k++;
	}
	t2 = (t * t) >> 32;
	t3 = (t2 * t) >> 32;
	t4 = (t3 * t) >> 32;
	p = t - t2 / 2 + t3 / 6 - t4 / 24;
	while (k--) {
		if (p > SLABTRACE_SAMPLE_ONE - 1)
			p = SLABTRACE_SAMPLE_ONE - 1;
		p = 2 * p - ((p * p) >> 32);
	}
	if (p < 1)
		return 1;
	return p > SLABTRACE_SAMPLE_ONE ? SLABTRACE_SAMPLE_ONE : p;
}

/*
 * How many objects a record recorded with chance @p (slabtrace_sample_p())
 * stands for, 1 / p, in 16-bit fixed point, rounded: Go's runtime/pprof
 * scaleHeapSample() weighs a sample of a heap profile the same way.  A
 * record of an object of s bytes stands for (s * weight) >> 16 bytes.
 */
static inline __u64 slabtrace_sample_weight(__u64 p)
{
	return slabtrace_div64_u64((1ULL << 48) + p / 2, p);
}

#endif /* _UAPI_SLABTRACE_SAMPLE_H */
