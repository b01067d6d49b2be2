// SPDX-License-Identifier: GPL-2.0
/*
 * stressirq: allocates and frees slab objects in every context, for
 * slabtrace's stress test.  Not part of slabtrace.
 *
 * From load to rmmod, three sources each keep the last STRESSIRQ_KEEP
 * objects they allocated from the cache "stressirq_obj" (and as many
 * kmalloc(200) buffers), freeing the oldest at each allocation:
 *   - a timer, every jiffy: softirq context (on PREEMPT_RT the timer
 *     softirq runs in a thread, still "serving softirq");
 *   - an irq_work the timer queues: hardirq context, a self-IPI on x86.
 *     On PREEMPT_RT the slab allocator must not be called in hardirq
 *     context (its locks sleep there), so the irq_work is an ordinary one
 *     and runs in the per-CPU irq_work thread;
 *   - a kthread, "stressirq", every millisecond or so: task context.
 * A trace of stressirq_obj therefore always holds objects of each source.
 * rmmod while the cache is traced is part of the test.
 *
 * Notes on locking
 * ----------------
 * - ring.lock (raw spinlock, irq-safe, one per source): its ring.  Held
 *   only to swap a pointer: objects are allocated and freed outside it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/init.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

#define STRESSIRQ_KEEP	8

struct stressirq_obj {
	unsigned long magic;
	char payload[88];
};

struct ring {
	raw_spinlock_t lock;
	unsigned int next;
	void *objs[STRESSIRQ_KEEP];
	void *bufs[STRESSIRQ_KEEP];
};

enum { SRC_TASK, SRC_SOFTIRQ, SRC_HARDIRQ, NR_SRC };

static struct kmem_cache *obj_cache;
static struct ring rings[NR_SRC];
static struct timer_list tick;
static struct task_struct *worker;
static bool stopping;

/* A constructor: the cache is never merged with another. */
static void obj_ctor(void *p)
{
	struct stressirq_obj *o = p;

	o->magic = 0x57e55;
}

/* Not inlined: frame #01 of the records names the source. */
static noinline void stressirq_keep(struct ring *r, gfp_t gfp)
{
	void *obj = kmem_cache_alloc(obj_cache, gfp);
	void *buf = kmalloc(200, gfp);
	void *old_obj, *old_buf;
	unsigned long flags;

	raw_spin_lock_irqsave(&r->lock, flags);
	old_obj = r->objs[r->next];
	old_buf = r->bufs[r->next];
	r->objs[r->next] = obj;
	r->bufs[r->next] = buf;
	r->next = (r->next + 1) % STRESSIRQ_KEEP;
	raw_spin_unlock_irqrestore(&r->lock, flags);
	if (old_obj)
		kmem_cache_free(obj_cache, old_obj);
	kfree(old_buf);
}

static unsigned long hardirq_runs;

static noinline void stressirq_hardirq(struct irq_work *work)
{
	stressirq_keep(&rings[SRC_HARDIRQ], GFP_ATOMIC);
	/* Not a tail call: frame #02 of the records is this function. */
	WRITE_ONCE(hardirq_runs, hardirq_runs + 1);
}

static struct irq_work hardirq_work = IRQ_WORK_INIT(stressirq_hardirq);

static noinline void stressirq_softirq(struct timer_list *t)
{
	stressirq_keep(&rings[SRC_SOFTIRQ], GFP_ATOMIC);
	irq_work_queue(&hardirq_work);
	if (!READ_ONCE(stopping))
		mod_timer(&tick, jiffies + 1);
}

static noinline int stressirq_task(void *unused)
{
	while (!kthread_should_stop()) {
		stressirq_keep(&rings[SRC_TASK], GFP_KERNEL);
		usleep_range(1000, 2000);
	}
	return 0;
}

static void free_rings(void)
{
	unsigned int s, i;

	for (s = 0; s < NR_SRC; s++) {
		for (i = 0; i < STRESSIRQ_KEEP; i++) {
			if (rings[s].objs[i])
				kmem_cache_free(obj_cache, rings[s].objs[i]);
			kfree(rings[s].bufs[i]);
			rings[s].objs[i] = NULL;
			rings[s].bufs[i] = NULL;
		}
	}
}

static int __init stressirq_init(void)
{
	unsigned int s;

	for (s = 0; s < NR_SRC; s++)
		raw_spin_lock_init(&rings[s].lock);
	obj_cache = kmem_cache_create("stressirq_obj",
				      sizeof(struct stressirq_obj), 0, 0,
				      obj_ctor);
	if (!obj_cache)
		return -ENOMEM;
	worker = kthread_run(stressirq_task, NULL, "stressirq");
	if (IS_ERR(worker)) {
		kmem_cache_destroy(obj_cache);
		return PTR_ERR(worker);
	}
	timer_setup(&tick, stressirq_softirq, 0);
	mod_timer(&tick, jiffies + 1);
	return 0;
}

static void __exit stressirq_exit(void)
{
	WRITE_ONCE(stopping, true);
	timer_delete_sync(&tick);
	irq_work_sync(&hardirq_work);
	kthread_stop(worker);
	free_rings();
	kmem_cache_destroy(obj_cache);
}

module_init(stressirq_init);
module_exit(stressirq_exit);
MODULE_DESCRIPTION("Allocates in task, softirq and hardirq context (slabtrace stress test)");
MODULE_LICENSE("GPL");
