// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: the names of frames, as backtraces show them, and those of
 * frames in module code that went away, kept.
 *
 * A backtrace is a list of addresses, named by kallsyms when it is shown.
 * Module code can go while the objects it allocated stay, and their
 * backtraces are what the user wants to read:
 * - a module's __init text is freed once its init function has returned
 *   (MODULE_STATE_LIVE); a frame in it has no name after that;
 * - a module's text goes when it is unloaded (MODULE_STATE_GOING);
 * - and a module loaded later (MODULE_STATE_COMING) may land at the same
 *   addresses: kallsyms would name the old frames after the new module.
 * So at LIVE, every frame in the module's init text, and at GOING, every
 * frame in the module, of every distinct stack of the records kept and of
 * the snapshots (those kept for users and those open files still read), is
 * named while its symbols are still there ("func+0x1b/0x20 [mod]"), and
 * the name kept.  kallsyms sizes a module's function up to the next
 * symbol, and its text's last one up to the end of that text (a page:
 * "init_fn+0x33/0x1000") or to a symbol of what follows; the name kept
 * gives that one its own size, from the module's symbol table.  At COMING, a frame in the
 * new module's range that has no name kept (it was saved after its code
 * went, say) is kept as "?": no frame is ever named after a module loaded
 * after its allocation.  Names are kept by (stack, address), not by
 * address: the same address in a stack saved after the new module came
 * is the new module's, and kallsyms names it; unless the whole trace is
 * one the depot held already (a module reloaded at the same address):
 * the depot hands back the old handle, with the old module's names.
 * Recording costs a compare
 * or two a frame (the probes note the module pages their frames are in,
 * leak_stack_in_module()); the work is done at module load and
 * unload, and only for a module that a saved trace may have a frame in:
 * the modules that udev loads at boot, or any module in no trace, cost
 * no walk of the records however many there are (on x86-64; elsewhere
 * every module event walks).
 *
 * Readers that cache the text of backtraces (dump.c) empty their cache
 * when leak_modsyms_gen() changes: once per module notification
 * that walked, after the names are kept (a module no saved trace has a
 * frame in changes the name of no frame a reader has).
 *
 * Notes on locking
 * ----------------
 * - leak_mutex, then leak_print_sem for writing (no print is
 *   filling a snapshot): walking the records and the snapshots, every
 *   change to the table of names (the module notifier takes them), and
 *   modsyms_gen's increments (read with no lock).
 * - The table (an rhashtable by stack and address) is read under RCU; an
 *   entry is never removed before module exit.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/rcupdate.h>
#include <linux/rhashtable.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stackdepot.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "aggregate.h"
#include "modsyms.h"
#include "record.h"
#include "snapshot.h"
#include "stacks.h"
#include "table.h"
#include "traced.h"

struct modsym_key {
	unsigned long ip;
	depot_stack_handle_t handle;
};

struct modsym {
	struct rhash_head node;
	struct modsym_key key;
	char name[];
};

static const struct rhashtable_params modsym_params = {
	.head_offset = offsetof(struct modsym, node),
	.key_offset = offsetof(struct modsym, key),
	/* Not the padding after the handle. */
	.key_len = offsetofend(struct modsym_key, handle),
	.automatic_shrinking = true,
};

static struct rhashtable modsyms;
static unsigned long modsyms_gen;
/* Module events seen, and those that walked the records (the stats). */
static atomic_long_t module_events, module_walks;

/*
 * Changes whenever a saved frame's name may have changed: a module it may
 * be in came or went.
 */
unsigned long leak_modsyms_gen(void)
{
	return READ_ONCE(modsyms_gen);
}

/* "modules events 12 walks 1": module events seen, and how many walked. */
static void modsyms_stats(struct seq_file *m)
{
	seq_printf(m, "modules events %ld walks %ld\n",
		   atomic_long_read(&module_events),
		   atomic_long_read(&module_walks));
}

/**
 * modsym - the name kept for a frame of a stack
 * @handle: the stack
 * @ip: the frame's address
 *
 * Called under rcu_read_lock().
 *
 * Return: the name, or NULL if kallsyms is to name the frame.
 */
static const char *modsym(depot_stack_handle_t handle, unsigned long ip)
{
	struct modsym_key key = { .ip = ip, .handle = handle };
	struct modsym *s;

	s = rhashtable_lookup(&modsyms, &key, modsym_params);
	return s ? s->name : NULL;
}

#ifdef CONFIG_MODULES
/* What to keep, for which frames. */
struct keep_walk {
	struct module *mod;
	unsigned long action;		/* MODULE_STATE_* */
	struct xarray seen;		/* stacks done */
	bool nomem;			/* a name could not be kept */
};

#ifdef SLABTRACE_TEST_BUILD
/*
 * Test builds only: keep_name() fails as it may, out of memory.  Set at
 * load (every parameter is 0400).
 */
static bool fail_keep_name;
module_param(fail_keep_name, bool, 0400);
MODULE_PARM_DESC(fail_keep_name, "for slabtrace's tests: keeping a frame's name fails with ENOMEM");
#endif

static bool frame_in_walk(const struct keep_walk *w, unsigned long ip)
{
	if (w->action == MODULE_STATE_LIVE)
		return within_module_init(ip, w->mod);
	return within_module(ip, w->mod);
}

#ifdef CONFIG_KALLSYMS
/*
 * The size of the function of @mod that starts at @start, if kallsyms
 * gave it @size because no symbol of its section follows it there (the
 * end of the module's text or init text did, or a symbol of what comes
 * after): its own size in the module's symbol table.  Otherwise @size.
 */
static unsigned long own_size(struct module *mod, unsigned long start,
			      unsigned long size)
{
	struct mod_kallsyms *ks;
	const typeof(*ks->symtab) *sym, *fn = NULL;
	unsigned long own = size;
	unsigned int i;

	preempt_disable();
	ks = rcu_dereference_sched(mod->kallsyms);
	for (i = 1; i < ks->num_symtab && !fn; i++) {
		sym = &ks->symtab[i];
		if (sym->st_value == start && sym->st_size &&
		    sym->st_shndx != SHN_UNDEF)
			fn = sym;
	}
	for (i = 1; fn && i < ks->num_symtab; i++) {
		sym = &ks->symtab[i];
		/* A symbol of its section where kallsyms' size ends. */
		if (sym->st_shndx == fn->st_shndx &&
		    sym->st_value == start + size && ks->strtab[sym->st_name])
			fn = NULL;
	}
	if (fn && fn->st_size < size)
		own = fn->st_size;
	preempt_enable();
	return own;
}
#else
static unsigned long own_size(struct module *mod, unsigned long start,
			      unsigned long size)
{
	return size;
}
#endif

/*
 * What kallsyms calls frame @ip of the walk's module, "func+0x1b/0x20
 * [mod]", with the size own_size() gives.
 *
 * Return: false if @ip has no symbol.
 */
static bool name_frame(const struct keep_walk *w, unsigned long ip, char *buf,
		       size_t size)
{
	char mod[MODULE_NAME_LEN + 4] = "";	/* " [mod]" */
	unsigned long off, len;
	char *plus, *end;

	if (!leak_frame_symbol(buf, size, ip, true))
		return false;
	plus = strrchr(buf, '+');
	if (!plus || sscanf(plus, "+%lx/%lx", &off, &len) != 2 || off > ip)
		return true;
	end = strchr(plus, ' ');
	if (end)
		strscpy(mod, end, sizeof(mod));
	/* kallsyms' own format (sprint_symbol()). */
	snprintf(plus, size - (plus - buf), "+%#lx/%#lx%s", off,
		 own_size(w->mod, ip - off, len), mod);
	return true;
}

/* Keep @name for frame @ip of stack @handle. */
static int keep_name(depot_stack_handle_t handle, unsigned long ip,
		     const char *name)
{
	size_t len = strlen(name) + 1;
	struct modsym *s;
	int ret;

#ifdef SLABTRACE_TEST_BUILD
	if (fail_keep_name)
		return -ENOMEM;
#endif
	s = kzalloc(struct_size(s, name, len),
		    GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
	if (!s)
		return -ENOMEM;
	s->key.ip = ip;
	s->key.handle = handle;
	memcpy(s->name, name, len);
	ret = rhashtable_lookup_insert_fast(&modsyms, &s->node, modsym_params);
	if (ret)
		kfree(s);
	return ret == -EEXIST ? 0 : ret;
}

/* Name the frames of @handle in the walk's range.  Called with the mutex. */
static void keep_stack(struct keep_walk *w, depot_stack_handle_t handle)
{
	char name[LEAK_FRAME_MAX];
	unsigned long *entries;
	unsigned int i, nr;
	bool kept;

	lockdep_assert_held(&leak_mutex);
	if (!handle || xa_load(&w->seen, handle))
		return;
	/* Out of memory, the stack is only looked at more than once. */
	xa_store(&w->seen, handle, xa_mk_value(0),
		 GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
	nr = stack_depot_fetch(handle, &entries);
	for (i = 0; i < nr; i++) {
		if (!frame_in_walk(w, entries[i]))
			continue;
		rcu_read_lock();
		kept = modsym(handle, entries[i]);
		rcu_read_unlock();
		if (kept)
			continue;
		/* Coming: what is there now is not what was. */
		if (w->action == MODULE_STATE_COMING ||
		    !name_frame(w, entries[i], name, sizeof(name)))
			strscpy(name, "?", sizeof(name));
		if (keep_name(handle, entries[i], name)) {
			w->nomem = true;
			return;
		}
	}
}

static int keep_record(const struct leak_record *rec, void *arg)
{
	keep_stack(arg, rec->stack);
	return 0;
}

static void keep_snapshot(struct leak_snapshot *snap, void *arg)
{
	unsigned long i;

	for (i = 0; i < snap->nr_groups; i++)
		keep_stack(arg, snap->groups[i]->stack);
}

static int modsyms_notify(struct notifier_block *nb, unsigned long action,
			  void *data)
{
	struct keep_walk w = { .mod = data, .action = action };
	char esc[SLABTRACE_ESC_SIZE];

	if (action != MODULE_STATE_LIVE && action != MODULE_STATE_GOING &&
	    action != MODULE_STATE_COMING)
		return NOTIFY_DONE;
	atomic_long_inc(&module_events);
	/* Most modules are in no trace: nothing to name. */
	if (!leak_stack_in_module(w.mod, action == MODULE_STATE_LIVE))
		return NOTIFY_DONE;
	atomic_long_inc(&module_walks);
	/* The traces still to be saved are records' stacks too. */
	leak_stack_flush();
	xa_init(&w.seen);
	mutex_lock(&leak_mutex);
	down_write(&leak_print_sem);
	/* Not killable: rmmod's ^C would leave its frames unnamed. */
	if (leak_table_for_each(&leak_records, keep_record, &w, false))
		w.nomem = true;
	/* Those kept for users, and those only open files still read. */
	leak_snapshots_alive(keep_snapshot, &w);
	WRITE_ONCE(modsyms_gen, modsyms_gen + 1);
	up_write(&leak_print_sem);
	mutex_unlock(&leak_mutex);
	xa_destroy(&w.seen);
	if (w.nomem)
		pr_warn_ratelimited("modules: no memory to name the frames of %s in every record: some show as '?'\n",
				    slabtrace_esc_str(esc, w.mod->name));
	return NOTIFY_OK;
}

static struct notifier_block modsyms_nb = {
	.notifier_call = modsyms_notify,
};

static int modsyms_register(void)
{
	return register_module_notifier(&modsyms_nb);
}

static void modsyms_unregister(void)
{
	unregister_module_notifier(&modsyms_nb);
}
#else /* !CONFIG_MODULES: no module ever comes or goes */
static int modsyms_register(void)
{
	return 0;
}

static void modsyms_unregister(void)
{
}
#endif

/* A step of loading (slab.c). */
static int modsyms_init(void)
{
	int ret = rhashtable_init(&modsyms, &modsym_params);

	if (ret)
		return ret;
	ret = modsyms_register();
	if (ret)
		rhashtable_destroy(&modsyms);
	return ret;
}

static void modsym_free(void *ptr, void *arg)
{
	kfree(ptr);
}

/* At module exit: nothing shows a backtrace any more. */
static void modsyms_exit(void)
{
	modsyms_unregister();
	rhashtable_free_and_destroy(&modsyms, modsym_free, NULL);
}

const struct leak_part leak_modsyms_part = {
	.step = { "module notifier", modsyms_init, modsyms_exit },
	.stats = modsyms_stats,
};

/**
 * leak_frame_strip - a frame's name without its offset
 * @buf: where to write it
 * @size: its size
 * @name: "func+0x1b/0x20 [mod]", or "func+0x1b/0x20"
 *
 * "func [mod]", or "func"; a name with no offset is copied as it is.
 */
VISIBLE_IF_KUNIT void leak_frame_strip(char *buf, size_t size,
				       const char *name)
{
	const char *plus = strchr(name, '+'), *mod = strchr(name, ' ');

	if (!plus || (mod && mod < plus))
		strscpy(buf, name, size);
	else
		scnprintf(buf, size, "%.*s%s", (int)(plus - name), name,
			  mod ?: "");
}

/**
 * leak_frame_name - the name of a frame, as a backtrace shows it
 * @buf: where to write it
 * @size: its size
 * @handle: the stack the frame is in
 * @ip: the frame's address
 * @offset: "func+0x1b/0x20 [mod]" if true, "func [mod]" if false
 *
 * A frame in module code that went (an unloaded module, a module's freed
 * __init text) keeps the name it had (modsyms.c).  An address with no
 * symbol is "?": %pS would print it raw, and the only address a reader
 * sees is the one %pK hashes.
 */
void leak_frame_name(char *buf, size_t size, depot_stack_handle_t handle,
		     unsigned long ip, bool offset)
{
	const char *kept;

	rcu_read_lock();
	kept = modsym(handle, ip);
	if (kept && offset)
		strscpy(buf, kept, size);
	else if (kept)
		leak_frame_strip(buf, size, kept);
	rcu_read_unlock();
	if (!kept && !leak_frame_symbol(buf, size, ip, offset))
		strscpy(buf, "?", size);
}

/**
 * leak_frame_folded - a name as a folded stack can hold it
 * @buf: where to write it
 * @size: its size
 * @name: a frame's name (leak_frame_name(), without offset), or a
 *	  cache's
 * @only: the printable bytes escaped too, as the dump escapes each name:
 *	  LEAK_FRAME_ALSO for a frame's, SLABTRACE_ESCAPE_ALSO for a cache's
 *
 * Folded stacks separate frames with ';' and end with " COUNT": a ';'
 * becomes ':'.  Any other byte is escaped as the dump escapes it
 * (SLABTRACE_ESCAPE): one that is not printable ASCII as \xNN (or "\n",
 * "\e", ... for those that have a letter), a backslash as "\\", so that
 * no two names fold into one, and "slabtrace report --folded" of a dump
 * writes the lines this module writes.  A frame's spaces stay ("func
 * [mod]"): readers take the count after the last one.  What does not fit
 * in @buf is left out, from the first escape that does not fit whole.
 */
void leak_frame_folded(char *buf, size_t size, const char *name,
		       const char *only)
{
	slabtrace_escape(buf, size, name, strlen(name), only);
	strreplace(buf, ';', ':');
}

/**
 * leak_frame_show - print a frame's name
 * @m: where
 * @name: the name (leak_frame_name())
 *
 * Symbol and module names come from code root loaded, and nothing keeps
 * a control byte out of a module's name.  A byte that is not printable
 * ASCII, and a backslash, is escaped as in every other name
 * (SLABTRACE_ESCAPE), so no name can make a frame line of its own.
 * Spaces stay: "func [mod]".
 */
VISIBLE_IF_KUNIT void leak_frame_show(struct seq_file *m, const char *name)
{
	seq_escape_mem(m, name, strlen(name), SLABTRACE_ESCAPE, LEAK_FRAME_ALSO);
}

/**
 * leak_stack_show - print a saved trace, one numbered frame a line
 * @m: where
 * @handle: the stack depot handle
 *
 * Addresses follow the %pK rules (kptr_restrict) of the reader.
 */
void leak_stack_show(struct seq_file *m, depot_stack_handle_t handle)
{
	char name[LEAK_FRAME_MAX];
	unsigned long *entries;
	unsigned int i, nr = 0;

	if (handle)
		nr = stack_depot_fetch(handle, &entries);
	if (!nr) {
		/* Why: the header's drops (stack store full, stack walk empty). */
		seq_puts(m, " (backtrace not saved)\n");
		return;
	}
	for (i = 0; i < nr; i++) {
		leak_frame_name(name, sizeof(name), handle, entries[i],
				true);
		seq_printf(m, " #%02u [<%pK>] in ", i + 1, (void *)entries[i]);
		leak_frame_show(m, name);
		seq_putc(m, '\n');
	}
}
