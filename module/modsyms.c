// SPDX-License-Identifier: GPL-2.0
/*
 * slabtrace: the names of frames in modules that were unloaded.
 *
 * A backtrace is a list of addresses, named by kallsyms when it is shown.
 * When a module goes, its addresses lose their names; the objects it
 * leaked do not go with it, and their backtraces are what the user wants
 * to read.  So when a module is about to be unloaded (MODULE_STATE_GOING,
 * its symbols still there), every frame in it of every distinct stack of
 * the records kept, and of the current snapshot, is named now
 * ("func+0x1b/0x20 [mod]") and the name kept, by address.  When a module
 * is loaded where one was, the names kept for those addresses are
 * dropped: they are the new module's now.
 * Recording costs nothing more: the work is done at unload.
 *
 * Notes on locking
 * ----------------
 * - slabtrace_mutex: walking the records and the snapshot, and every
 *   change to the table of names (the module notifier takes it).
 * - The table (an xarray by address) is read under RCU; a name is freed
 *   with kfree_rcu().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include <slabtrace/slabtrace.h>

struct modsym {
	struct rcu_head rcu;
	char name[];
};

static DEFINE_XARRAY(modsyms);

/* The name kept for @ip, or NULL.  Called under rcu_read_lock(). */
const char *slabtrace_modsym(unsigned long ip)
{
	struct modsym *s = xa_load(&modsyms, ip);

	return s ? s->name : NULL;
}

#ifdef CONFIG_MODULES
/* Name the frames of @handle that are in @mod.  Called with the mutex. */
static void keep_stack(struct module *mod, depot_stack_handle_t handle)
{
	char name[SLABTRACE_FRAME_MAX];
	unsigned long *entries;
	unsigned int i, nr;
	struct modsym *s;
	size_t len;

	lockdep_assert_held(&slabtrace_mutex);
	nr = handle ? stack_depot_fetch(handle, &entries) : 0;
	for (i = 0; i < nr; i++) {
		if (!within_module(entries[i], mod) ||
		    xa_load(&modsyms, entries[i]))
			continue;
		if (!slabtrace_frame_symbol(name, sizeof(name), entries[i],
					    true))
			continue;
		len = strlen(name) + 1;
		s = kmalloc(struct_size(s, name, len), GFP_KERNEL);
		if (!s)
			return;
		strscpy(s->name, name, len);
		if (xa_err(xa_store(&modsyms, entries[i], s, GFP_KERNEL)))
			kfree(s);
	}
}

/* The distinct stacks of the records, each named once. */
struct keep_walk {
	struct module *mod;
	struct xarray seen;
};

static int keep_record(const struct slabtrace_record *rec, void *arg)
{
	struct keep_walk *w = arg;

	if (!rec->stack || xa_load(&w->seen, rec->stack))
		return 0;
	/* Out of memory, the stack is only named more than once. */
	xa_store(&w->seen, rec->stack, xa_mk_value(0),
		 GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
	keep_stack(w->mod, rec->stack);
	return 0;
}

static void keep_snapshot(struct slabtrace_snapshot *snap, void *mod)
{
	unsigned long i;

	for (i = 0; i < snap->nr_groups; i++)
		keep_stack(mod, snap->groups[i]->stack);
}

/* @mod is going: name its frames in every record and in the snapshots. */
static void keep_module(struct module *mod)
{
	struct keep_walk w = { .mod = mod };

	xa_init(&w.seen);
	mutex_lock(&slabtrace_mutex);
	slabtrace_table_for_each(&slabtrace_records, keep_record, &w);
	slabtrace_snapshot_for_each(keep_snapshot, mod);
	mutex_unlock(&slabtrace_mutex);
	xa_destroy(&w.seen);
}

/* @mod is coming: the names kept for its addresses are stale. */
static void forget_module(struct module *mod)
{
	struct modsym *s;
	unsigned long ip;

	mutex_lock(&slabtrace_mutex);
	xa_for_each(&modsyms, ip, s) {
		if (within_module(ip, mod)) {
			xa_erase(&modsyms, ip);
			kfree_rcu(s, rcu);
		}
	}
	mutex_unlock(&slabtrace_mutex);
}

static int modsyms_notify(struct notifier_block *nb, unsigned long action,
			  void *data)
{
	if (action == MODULE_STATE_GOING)
		keep_module(data);
	else if (action == MODULE_STATE_COMING)
		forget_module(data);
	return NOTIFY_OK;
}

static struct notifier_block modsyms_nb = {
	.notifier_call = modsyms_notify,
};

int slabtrace_modsyms_init(void)
{
	return register_module_notifier(&modsyms_nb);
}

static void modsyms_unregister(void)
{
	unregister_module_notifier(&modsyms_nb);
}
#else /* !CONFIG_MODULES: no module ever goes */
int slabtrace_modsyms_init(void)
{
	return 0;
}

static void modsyms_unregister(void)
{
}
#endif

/* At module exit: nothing shows a backtrace any more. */
void slabtrace_modsyms_exit(void)
{
	struct modsym *s;
	unsigned long ip;

	modsyms_unregister();
	xa_for_each(&modsyms, ip, s)
		kfree(s);
	xa_destroy(&modsyms);
}
