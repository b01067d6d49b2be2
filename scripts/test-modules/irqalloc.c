// SPDX-License-Identifier: GPL-2.0
/*
 * irqalloc: keeps known numbers of kmalloc(50) objects (kmalloc-64)
 * allocated in task, softirq and hardirq context while other threads
 * churn kmalloc-64, for slabtrace's VM tests.  Not part of slabtrace.
 *
 * From load, until each source has kept its quota (module parameters):
 *   - a kthread "irqalloc" keeps @task objects, in irqalloc_task_alloc(),
 *     one every millisecond or so: task context;
 *   - a timer keeps @softirq objects, in irqalloc_softirq_alloc(), one a
 *     jiffy: softirq context;
 *   - an hrtimer keeps @hardirq objects, in irqalloc_hardirq_alloc(), one
 *     every 200 us: hardirq context.  On PREEMPT_RT the slab allocator
 *     must not be called in hardirq context, so there the hrtimer is a
 *     soft one and its objects are made in softirq context too;
 *   - meanwhile @churn kthreads per CPU ("irqalloc_churn") allocate and
 *     free kmalloc(50) objects in a loop, so that the interrupts above
 *     land, most of the time, inside the allocator and whatever traces it.
 * The churn stops once every quota is met.  The objects are kept until
 * rmmod.  /sys/kernel/debug/irqalloc/state (0400) says how many each
 * source keeps, what context its objects should be listed in, and "done"
 * once all are kept:
 *
 *   task 500 softirq 500 hardirq 500 hardirq_ctx hardirq done
 *
 * Notes on locking
 * ----------------
 * - Each source's array and count are written by that source alone (one
 *   kthread, one timer, one hrtimer, never running twice at once) and read
 *   after "done", which is published with release/acquire.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/init.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/vmalloc.h>

#include <wrapper/timer.h>

#define IRQALLOC_SIZE	50
#define IRQALLOC_MAX	100000
#define IRQALLOC_CHURN_MAX	4	/* churn threads per CPU, at most */

static unsigned int task = 500, softirq = 500, hardirq = 500, churn = 1;
module_param(task, uint, 0400);
MODULE_PARM_DESC(task, "objects kept from task context");
module_param(softirq, uint, 0400);
MODULE_PARM_DESC(softirq, "objects kept from softirq context (a timer)");
module_param(hardirq, uint, 0400);
MODULE_PARM_DESC(hardirq, "objects kept from hardirq context (an hrtimer)");
module_param(churn, uint, 0400);
MODULE_PARM_DESC(churn, "threads per CPU allocating and freeing meanwhile");

enum { SRC_TASK, SRC_SOFTIRQ, SRC_HARDIRQ, NR_SRC };

struct source {
	unsigned int quota;
	unsigned int kept;
	unsigned int failed;
	void **objs;
};

static struct source src[NR_SRC];
static atomic_t sources_done;
static struct task_struct *task_thread;
static struct task_struct **churners;
static unsigned int nr_churners;
static struct timer_list tick;
static struct hrtimer htick;
static struct dentry *dir;

/* One more object of source @s; whether it has its quota now. */
static bool keep(struct source *s, void *obj)
{
	if (obj)
		s->objs[s->kept++] = obj;
	else
		s->failed++;
	if (s->kept < s->quota && s->failed < s->quota)
		return false;
	/* Its objects are complete before "done" can be read. */
	smp_mb__before_atomic();
	atomic_inc(&sources_done);
	return true;
}

/* Not inlined, no tail call: frame #01 of each object names its source. */
static noinline void *irqalloc_task_alloc(void)
{
	void *p = kmalloc(IRQALLOC_SIZE, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static noinline void *irqalloc_softirq_alloc(void)
{
	void *p = kmalloc(IRQALLOC_SIZE, GFP_ATOMIC);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

/* GFP_NOWAIT: not the same code as the softirq's, which gcc would fold. */
static noinline void *irqalloc_hardirq_alloc(void)
{
	void *p = kmalloc(IRQALLOC_SIZE, GFP_NOWAIT);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static int task_fn(void *unused)
{
	while (!kthread_should_stop()) {
		if (src[SRC_TASK].kept < src[SRC_TASK].quota &&
		    keep(&src[SRC_TASK], irqalloc_task_alloc()))
			continue;
		usleep_range(1000, 2000);
	}
	return 0;
}

static void softirq_fn(struct timer_list *t)
{
	if (!keep(&src[SRC_SOFTIRQ], irqalloc_softirq_alloc()))
		mod_timer(&tick, jiffies + 1);
}

static enum hrtimer_restart hardirq_fn(struct hrtimer *t)
{
	if (keep(&src[SRC_HARDIRQ], irqalloc_hardirq_alloc()))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(200 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static bool all_done(void)
{
	return atomic_read_acquire(&sources_done) == NR_SRC;
}

/* kmalloc-64 objects made and freed until every source has its quota. */
static int churn_fn(void *unused)
{
	void *p;

	while (!kthread_should_stop()) {
		if (all_done()) {
			msleep_interruptible(100);
			continue;
		}
		p = kmalloc(IRQALLOC_SIZE, GFP_KERNEL);
		OPTIMIZER_HIDE_VAR(p);
		kfree(p);
		cond_resched();
	}
	return 0;
}

static int state_show(struct seq_file *m, void *v)
{
	bool done = all_done();

	seq_printf(m, "task %u softirq %u hardirq %u hardirq_ctx %s%s\n",
		   src[SRC_TASK].kept, src[SRC_SOFTIRQ].kept,
		   src[SRC_HARDIRQ].kept,
		   IS_ENABLED(CONFIG_PREEMPT_RT) ? "softirq" : "hardirq",
		   done ? " done" : "");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(state);

static void stop_threads(void)
{
	unsigned int i;

	for (i = 0; i < nr_churners; i++)
		kthread_stop(churners[i]);
	nr_churners = 0;
	kfree(churners);
	churners = NULL;
	if (task_thread)
		kthread_stop(task_thread);
	task_thread = NULL;
}

static void free_sources(void)
{
	unsigned int s, i;

	for (s = 0; s < NR_SRC; s++) {
		for (i = 0; src[s].objs && i < src[s].kept; i++)
			kfree(src[s].objs[i]);
		vfree(src[s].objs);
		src[s].objs = NULL;
	}
}

static int __init irqalloc_init(void)
{
	unsigned int quota[NR_SRC] = { task, softirq, hardirq };
	struct task_struct *t;
	unsigned int s, i;
	int cpu;

	if (churn > IRQALLOC_CHURN_MAX)
		return -EINVAL;
	for (s = 0; s < NR_SRC; s++) {
		if (!quota[s] || quota[s] > IRQALLOC_MAX)
			return -EINVAL;
		src[s].quota = quota[s];
		src[s].objs = vzalloc(array_size(quota[s], sizeof(void *)));
		if (!src[s].objs) {
			free_sources();
			return -ENOMEM;
		}
	}
	churners = kcalloc(num_online_cpus() * churn, sizeof(*churners),
			   GFP_KERNEL);
	if (!churners && churn) {
		free_sources();
		return -ENOMEM;
	}
	dir = debugfs_create_dir("irqalloc", NULL);
	debugfs_create_file("state", 0400, dir, NULL, &state_fops);
	for_each_online_cpu(cpu) {
		for (i = 0; i < churn; i++) {
			/* A CPU that came online meanwhile gets none. */
			if (nr_churners == num_online_cpus() * churn)
				break;
			t = kthread_create(churn_fn, NULL, "irqalloc_churn");
			if (IS_ERR(t))
				break;
			kthread_bind(t, cpu);
			churners[nr_churners++] = t;
			wake_up_process(t);
		}
	}
	task_thread = kthread_run(task_fn, NULL, "irqalloc");
	if (IS_ERR(task_thread)) {
		task_thread = NULL;
		stop_threads();
		debugfs_remove(dir);
		free_sources();
		return -ENOMEM;
	}
	timer_setup(&tick, softirq_fn, 0);
	mod_timer(&tick, jiffies + 1);
	/* Soft on PREEMPT_RT: no slab allocation in hardirq there. */
	slabtrace_hrtimer_setup(&htick, hardirq_fn, CLOCK_MONOTONIC,
				IS_ENABLED(CONFIG_PREEMPT_RT) ?
				HRTIMER_MODE_REL_SOFT : HRTIMER_MODE_REL_HARD);
	hrtimer_start(&htick, ns_to_ktime(200 * NSEC_PER_USEC),
		      IS_ENABLED(CONFIG_PREEMPT_RT) ? HRTIMER_MODE_REL_SOFT :
						      HRTIMER_MODE_REL_HARD);
	return 0;
}

static void __exit irqalloc_exit(void)
{
	debugfs_remove(dir);
	hrtimer_cancel(&htick);
	timer_delete_sync(&tick);
	stop_threads();
	free_sources();
}

module_init(irqalloc_init);
module_exit(irqalloc_exit);
MODULE_DESCRIPTION("Keeps kmalloc-64 objects made in task, softirq and hardirq context (slabtrace tests)");
MODULE_LICENSE("GPL");
