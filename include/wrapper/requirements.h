/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What slabtrace cannot work without, and the kernels it refuses.
 *
 * Every object of the module is compiled with this header first (Kbuild
 * -include's it), so a kernel configured without one of these is refused
 * when the module is built, with one line saying why: without them the
 * build would stop at modpost's undefined symbols, or the module would
 * load and find no cache.  Debian's kernels, x86-64 and arm64, 6.1 to
 * 7.3, have them all.
 */
#ifndef _SLABTRACE_WRAPPER_REQUIREMENTS_H
#define _SLABTRACE_WRAPPER_REQUIREMENTS_H

#ifndef CONFIG_SLUB
#error "slabtrace needs CONFIG_SLUB: it finds caches through SLUB's /sys/kernel/slab"
#endif
#ifndef CONFIG_SYSFS
#error "slabtrace needs CONFIG_SYSFS: it finds caches through SLUB's /sys/kernel/slab"
#endif
#ifndef CONFIG_STACKTRACE
#error "slabtrace needs CONFIG_STACKTRACE: backtraces come from stack_trace_save()"
#endif
#ifndef CONFIG_STACKDEPOT
#error "slabtrace needs CONFIG_STACKDEPOT: backtraces are kept in the stack depot"
#endif
#ifndef CONFIG_TRACEPOINTS
#error "slabtrace needs CONFIG_TRACEPOINTS: it hooks the kmem tracepoints"
#endif

/*
 * A kernel API in none of the forms its wrapper knows: a kernel newer than
 * this slabtrace.  scripts/kbuild/compat/API.sh found none (dkms.conf asks
 * scripts/kbuild/compat-probe.sh --missing first, and skips such a kernel).
 */
#ifdef SLABTRACE_MISSING_KMALLOC_TYPE
#error "slabtrace does not know this kernel's kmalloc_type() (wrapper/kmalloc.h)"
#endif
#ifdef SLABTRACE_MISSING_DEPOT_SAVE
#error "slabtrace does not know this kernel's stack depot (wrapper/stackdepot.h)"
#endif
#ifdef SLABTRACE_MISSING_RB_COMMIT
#error "slabtrace does not know this kernel's ring buffer commit (wrapper/ring_buffer.h)"
#endif
#ifdef SLABTRACE_MISSING_MODULE_TEXT
#error "slabtrace does not know this kernel's module text (wrapper/module.h)"
#endif
#ifdef SLABTRACE_MISSING_SUBBUF_START
#error "slabtrace does not know this kernel's relay subbuf_start (wrapper/relay.h)"
#endif
#ifdef SLABTRACE_MISSING_INIT_FS
#error "slabtrace does not know how this kernel's kernel threads resolve a path (wrapper/fs.h)"
#endif
#ifdef SLABTRACE_MISSING_TP_CALL
#error "slabtrace does not know this kernel's tracepoint calls (wrapper/tracepoint.h)"
#endif
#ifdef SLABTRACE_MISSING_SYSCALL_TP
#error "slabtrace does not know this kernel's sys_enter tracepoint (wrapper/tracepoint.h)"
#endif
#ifdef SLABTRACE_MISSING_PROCESS_EXIT
#error "slabtrace does not know this kernel's sched_process_exit tracepoint (wrapper/tracepoint.h)"
#endif

/*
 * SLABTRACE_REFUSED_CONFIG: the option, if this kernel has one (else
 * ""), that spreads kmalloc()'s objects over copies of each kmalloc-N
 * cache by a value the kmalloc tracepoint does not report, so that an
 * object's cache cannot be known (<wrapper/kmalloc.h>).  The module
 * builds, and refuses to load with one line naming the option (main.c).
 * v6.6 added CONFIG_RANDOM_KMALLOC_CACHES (a hash of the call site);
 * between 6.12 and 7.2 CONFIG_KMALLOC_PARTITION_CACHES replaced it (a
 * hash, or the allocated type).
 * Neither is set in Debian's kernels.
 */
#if defined(CONFIG_RANDOM_KMALLOC_CACHES)
#define SLABTRACE_REFUSED_CONFIG	"CONFIG_RANDOM_KMALLOC_CACHES"
#elif defined(CONFIG_KMALLOC_PARTITION_CACHES)
#define SLABTRACE_REFUSED_CONFIG	"CONFIG_KMALLOC_PARTITION_CACHES"
#else
#define SLABTRACE_REFUSED_CONFIG	""
#endif

#endif /* _SLABTRACE_WRAPPER_REQUIREMENTS_H */
