/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabtrace's core, as its systems (slab_trace, kptrace, kmemtrace) see
 * it: a system's descriptor and the steps of loading (main.c), the one
 * door of the commands (ctl.c), the status (status.c), cache names
 * (caches.c), system call names (syscalls.c), and how names a user chose
 * are shown (in the log: escape.c).  The files are <slabtrace/files.h>,
 * the binary stream object <slabtrace/ctf.h>; kernel-version differences
 * are in include/wrapper/, one header per kernel API.
 * The lock order of the whole module is in main.c's header.
 */
#ifndef _SLABTRACE_CORE_H
#define _SLABTRACE_CORE_H

#include <linux/bug.h>
#include <linux/fs.h>
#include <linux/lockdep.h>
#include <linux/parser.h>
#include <linux/preempt.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <linux/types.h>

struct kmem_cache;
struct kobject;
struct slabtrace_file;

/*
 * What every probe relies on, and keeps where the kernel does not
 * (<wrapper/tracepoint.h>): preemption disabled.  Checked where a stock
 * kernel has no lockdep to check it: the test build (make test-modules)
 * warns, which fails the VM run.
 */
#ifdef SLABTRACE_TEST_BUILD
#define slabtrace_assert_probe_context()	WARN_ON_ONCE(preemptible())
#else
#define slabtrace_assert_probe_context()	lockdep_assert_preemption_disabled()
#endif

/*
 * How every name a user may have chosen (a command name, a cache name) is
 * shown: bytes that are not printable ASCII, spaces and backslashes as
 * escapes ("\n", "\x20"), so that no name can make a line of its own or
 * look like two fields.  kptrace's records use the same rule, and the log
 * lines too (slabtrace_esc(), below).
 */
#define SLABTRACE_ESCAPE	(ESCAPE_NAP | ESCAPE_APPEND | ESCAPE_SPACE | \
				 ESCAPE_SPECIAL | ESCAPE_HEX)
#define SLABTRACE_ESCAPE_ALSO	" \\"

/* @s, at most @max bytes of it, escaped. */
static inline void slabtrace_seq_name(struct seq_file *m, const char *s,
				      size_t max)
{
	seq_escape_mem(m, s, strnlen(s, max), SLABTRACE_ESCAPE,
		       SLABTRACE_ESCAPE_ALSO);
}

/* Longest cache name accepted (sysfs names of caches are shorter). */
#define SLABTRACE_NAME_MAX	64

/*
 * escape.c: names escaped into a buffer, no escape cut in two
 * (slabtrace_escape()); a word a user chose in a log line, where words
 * are quoted: the same rule, and a quote escaped too (slabtrace_esc()).
 * SLABTRACE_ESC_SIZE holds any cache name, each byte of it an escape
 * ("\xNN") at worst.
 */
#define SLABTRACE_ESCAPE_LOG	SLABTRACE_ESCAPE_ALSO "'"
#define SLABTRACE_ESC_SIZE	(4 * SLABTRACE_NAME_MAX + 4)
size_t slabtrace_escape(char *buf, size_t size, const char *s, size_t len,
			const char *only);
const char *slabtrace_esc(char *buf, size_t size, const char *s, size_t len);
/* slabtrace_esc() of the string @s into the array @buf. */
#define slabtrace_esc_str(buf, s) ({				\
	const char *__s = (s);					\
								\
	slabtrace_esc(buf, sizeof(buf) + __must_be_array(buf),	\
		      __s, strlen(__s));			\
})

/* Longest command accepted in one write to ctl. */
#define SLABTRACE_CMD_MAX	255
/*
 * Memory a command asks for in proportion to what is traced: it fails
 * rather than wake the OOM killer, and is charged to the caller's memory
 * cgroup.
 */
#define SLABTRACE_GFP_BIG	(GFP_KERNEL_ACCOUNT | __GFP_NORETRY | __GFP_NOWARN)

/*
 * main.c: loading is a list of steps, each undone by the steps' exits in
 * reverse.  A system's init may be such a list of its own.
 */
struct slabtrace_step {
	const char *name;
	int (*init)(void);		/* NULL: nothing to do */
	void (*exit)(void);		/* NULL: nothing to undo */
};

int slabtrace_step(const char *name);
int slabtrace_steps_init(const struct slabtrace_step *const *steps,
			 unsigned int n);
void slabtrace_steps_exit(const struct slabtrace_step *const *steps,
			  unsigned int n);

/* What match_token() gives for a word that is none of a system's commands. */
#define SLABTRACE_CMD_NONE	(-1)

/**
 * struct slabtrace_system - one system, as the core drives it
 * @name: its name, in the log of loading
 * @init: make its state; undo what it made before failing
 * @exit: undo @init, once its files are gone and nothing calls it
 * @cmds: the first words of its commands on ctl (match_token()), ending
 *	  with { SLABTRACE_CMD_NONE, NULL }
 * @command: run one: @cmd is the token of argv[0]; @file the open ctl it
 *	     was written to (NULL: the command came from elsewhere, a
 *	     stream's enable); called with no lock held
 * @status: its lines of the status file; no lock held
 * @next: "what to do next", for the status file's last line; false if it
 *	  has nothing to say
 * @help: its lines of what "help" logs, NULL-terminated
 * @ctl_open: NULL, or for the one system whose dump reading ctl shows:
 *	      open a seq_file on @file
 * @ctl_release: what closes it
 * @dir: the directory of @files below slabtrace's root
 * @files: its files, made once @init succeeded and removed, with every
 *	   other file, before @exit
 * @nr_files: how many
 */
struct slabtrace_system {
	const char *name;
	int (*init)(void);
	void (*exit)(void);
	const struct match_token *cmds;
	int (*command)(struct file *file, int cmd, int argc, char **argv);
	void (*status)(struct seq_file *m);
	bool (*next)(struct seq_file *m);
	const char *const *help;
	int (*ctl_open)(struct inode *inode, struct file *file);
	int (*ctl_release)(struct inode *inode, struct file *file);
	const char *dir;
	struct slabtrace_file *files;
	unsigned int nr_files;
};

/* The systems, in the order they load. */
extern const struct slabtrace_system leak_system;
extern const struct slabtrace_system kptrace_system;
extern const struct slabtrace_system kmemtrace_system;

/* ctl.c: the one door of the commands, ctl's and the streams' enable. */
char **slabtrace_ctl_split(const char *who, const char *what, char *buf,
			   size_t len, int *argc);
int slabtrace_ctl_run(struct file *file, int argc, char **argv);
int slabtrace_ctl_pid(const char *who, const char *arg, pid_t *pid);
int slabtrace_ctl_u32(const char *arg, u32 *n);
int slabtrace_ctl_ulong(const char *arg, unsigned long *n);

/* status.c: the status file; also what ctl shows before a print. */
void slabtrace_status_show(struct seq_file *m);

/**
 * struct slabtrace_cache_ref - a cache name, resolved once
 * @cache: the cache
 * @kobj: its kobject, referenced: it holds the cache's memory
 * @bucket: one of a kmem_buckets set, whose allocations the kmalloc
 *	    tracepoint counts as kmalloc-N's (v6.11)
 * @merged: 1 if other names share the cache, 0 if not, -errno if that
 *	    could not be found out
 * @aliases_more: names not in @aliases for lack of room
 * @aliases: when @merged, the other names: "name, name, ..."
 */
struct slabtrace_cache_ref {
	struct kmem_cache *cache;
	struct kobject *kobj;
	bool bucket;
	int merged;
	int aliases_more;
	char aliases[256];
};

/* caches.c: cache names to caches, objects to caches. */
int slabtrace_cache_resolve(const char *cmd, const char *name,
			    struct slabtrace_cache_ref *ref);
void slabtrace_cache_put(struct slabtrace_cache_ref *ref);
bool slabtrace_cache_destroyed(const struct slabtrace_cache_ref *ref);
bool slabtrace_kobj_destroyed(const struct kobject *kobj);
int slabtrace_caches_init(void);
struct kobject *slabtrace_cache_pin(const struct kmem_cache *s);
void slabtrace_cache_unpin(struct kobject *kobj);
unsigned int slabtrace_cache_slab_size(struct kobject *kobj);
struct kmem_cache *slabtrace_cache_of_object(const void *obj, bool *known);
/* A name of /sys/kernel/slab, its cache, its inode; false stops the walk. */
typedef bool (*slabtrace_cache_name_fn_t)(void *arg, const char *name,
					  const struct kmem_cache *s, u64 ino);
int slabtrace_caches_walk_names(slabtrace_cache_name_fn_t fn, void *arg);
/* A cache, resolved (the callee takes @ref over); < 0 stops the walk. */
typedef int (*slabtrace_cache_ref_fn_t)(void *arg, const char *name,
					struct slabtrace_cache_ref *ref);
int slabtrace_caches_each(slabtrace_cache_ref_fn_t fn, void *arg);
bool slabtrace_cache_is_kmalloc(const struct kmem_cache *s);

/* syscalls.c: the running kernel's numbering, generated at build time. */
const char *slabtrace_syscall_name(int nr, bool compat);
/* The most arguments a system call takes: the registers that pass them. */
#define SLABTRACE_SYSCALL_ARGS	6
int slabtrace_syscall_args(int nr, bool compat, unsigned int *nargs);
int slabtrace_syscall_max(bool compat);

/*
 * Global only for the KUnit suites: static in the module
 * (VISIBLE_IF_KUNIT, <kunit/visibility.h>).
 */
#if IS_ENABLED(CONFIG_KUNIT)
int slabtrace_ctl_command(struct file *file, char *buf, size_t len);
bool slabtrace_name_hint(const char *name, char *buf, size_t size);
#endif

#endif /* _SLABTRACE_CORE_H */
