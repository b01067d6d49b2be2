// SPDX-License-Identifier: GPL-2.0
/*
 * slab_trace: the work the probes ask for, done in process context.
 *
 * A probe runs inside someone else's allocation, under any lock, the
 * workqueue's too: it cannot queue a work item itself.  It sets the bit
 * of a job and queues the one irq_work, which queues the work item of
 * each job whose bit is set; a job runs once however many times it was
 * asked for.  The jobs: refill the record pool (pool.c), grow the record
 * table (table.c), save the backtraces the stack depot had no room for
 * (stacks.c), start the caches created since "start all" (follow.c),
 * detach the probes once nothing is left for them (slab.c).  Each job is
 * registered by the file that owns it, at load, before anything can ask
 * for it (the probes attach only once loading is done); this file knows
 * nothing of what they do.
 *
 * Why a work item a job, not one for all: two jobs take leak_mutex
 * (the scan of new caches, the detach of idle probes), which a print
 * holds while it takes its snapshot, and the table's grow waits for its
 * grow_mutex, which a print holds while it copies the records.  Behind
 * them in one work item, the pool's refill would wait for the print, and
 * the probes would drop records meanwhile.  What is shared is the one irq_work, the bits, the
 * spacing of a job's runs and the one place that stops them all.
 *
 * Notes on locking
 * ----------------
 * - pending (bits, atomic): the jobs asked for.  A job's bit is cleared
 *   before the job runs: asked for while it runs, it runs again.
 * - jobs[].fn is written at load, before anything asks for the job;
 *   jobs[].not_before by
 *   the job's owner (under its own lock), read with no lock.
 * - stopped: written at load and unload, with no probe attached.
 * - No lock of this file's own; each job takes its owner's.
 */
#include <linux/bitops.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/workqueue.h>

#include <wrapper/workqueue.h>

#include "worker.h"

static struct leak_job_slot {
	void (*fn)(void);
	unsigned long gap;		/* jiffies from one run's start to the next */
	unsigned long not_before;	/* jiffies: a job that asked to wait */
	struct delayed_work work;
} jobs[LEAK_JOBS];

/*
 * The longest a job waits for its time: a not_before older than this is
 * long past (jiffies wrap in 49.7 days, at HZ=1000 on 32 bits), not ahead.
 */
#define WORK_MAX_WAIT	(60 * HZ)

static unsigned long pending;
/* No job is queued: before loading is done, and from unloading on. */
static bool stopped = true;

/* Queue each job asked for: now, or when it said it may run again. */
static void kick_fn(struct irq_work *iw)
{
	unsigned long now = jiffies, nb;
	unsigned int j;

	for (j = 0; j < LEAK_JOBS; j++) {
		if (!test_bit(j, &pending) || READ_ONCE(stopped))
			continue;
		nb = READ_ONCE(jobs[j].not_before);
		/*
		 * Due: brought forward if it was queued for later.  Not due:
		 * queued for then, unless it is queued already.
		 */
		if (time_after(nb, now) && nb - now <= WORK_MAX_WAIT)
			queue_delayed_work(SLABTRACE_SYSTEM_WQ, &jobs[j].work,
					   nb - now);
		else
			mod_delayed_work(SLABTRACE_SYSTEM_WQ, &jobs[j].work, 0);
	}
}

static struct irq_work kick = IRQ_WORK_INIT(kick_fn);

static void job_fn(struct work_struct *w)
{
	struct leak_job_slot *s =
		container_of(to_delayed_work(w), struct leak_job_slot, work);
	unsigned long now = jiffies, nb = READ_ONCE(s->not_before);

	/*
	 * Queued at once by a kick that came while the job ran, which then
	 * asked to wait (a refill that found no memory): it waits, still
	 * asked for, so that kicks queue nothing meanwhile.
	 */
	if (time_after(nb, now) && nb - now <= WORK_MAX_WAIT) {
		if (!READ_ONCE(stopped))
			queue_delayed_work(SLABTRACE_SYSTEM_WQ, &s->work,
					   nb - now);
		return;
	}
	/* Spaced before the bit clears: a kick from now on waits for it. */
	if (s->gap)
		WRITE_ONCE(s->not_before, jiffies + s->gap);
	clear_bit(s - jobs, &pending);
	/*
	 * Cleared before the job reads what it was asked for; pairs with
	 * the barrier in leak_work_kick().
	 */
	smp_mb__after_atomic();
	s->fn();
}

/**
 * leak_work_kick - ask for a job
 * @job: the job
 *
 * The caller changed what the job reads (a count, a list) before: the
 * barrier orders that before the bit is read, against job_fn(), which
 * clears the bit before the job reads it.  So either the bit is seen
 * clear and set again, or the job sees the change.  Once stopped, the bit
 * is set and nothing is queued.
 *
 * Context: Any context, a probe's in an NMI too (leak_follow_kick()): a
 * barrier, one atomic bit, one irq_work, queued only if the bit was clear;
 * irq_work_queue() is NMI-safe.
 */
void leak_work_kick(enum leak_job job)
{
	/* The caller's change before the bit's read (see above). */
	smp_mb();
	if (!test_bit(job, &pending) && !test_and_set_bit(job, &pending) &&
	    !READ_ONCE(stopped))
		irq_work_queue(&kick);
}

/**
 * leak_work_job - register a job, or say when it may run next
 * @job: the job
 * @fn: what it does, in process context (it may sleep); NULL: keep the
 *	one registered
 * @delay: with @fn, the least time from one run's start to the next's
 *	   (0: none); without, jiffies from now before it runs again,
 *	   however often asked (at most WORK_MAX_WAIT)
 *
 * Context: Process context.  Registered at load, before anything asks
 * for the job (the probes attach once loading is done); a job may call it
 * from its own function to
 * wait longer, and its owner to let the next run come at once (@delay 0:
 * a run waiting runs now).
 */
void leak_work_job(enum leak_job job, void (*fn)(void),
		   unsigned long delay)
{
	if (fn) {
		jobs[job].fn = fn;
		jobs[job].gap = delay;
		INIT_DELAYED_WORK(&jobs[job].work, job_fn);
		delay = 0;
	}
	WRITE_ONCE(jobs[job].not_before, jiffies + delay);
	/* Asked for and waiting: its kicks queue nothing until it runs. */
	if (!delay && test_bit(job, &pending) && !READ_ONCE(stopped))
		mod_delayed_work(SLABTRACE_SYSTEM_WQ, &jobs[job].work, 0);
}

#if LEAK_TESTS
/**
 * leak_work_flush - run every job asked for, and wait for them
 *
 * Jobs waiting for their time run now.  For the tests.
 *
 * Context: Process context, may sleep; never with leak_mutex held
 * (the scan of new caches and the detach of idle probes take it).  An
 * owner that must see its own job done while it holds that mutex does
 * the job itself, under the job's own lock (stacks.c, table.c).
 */
void leak_work_flush(void)
{
	unsigned int j;

	for (j = 0; j < LEAK_JOBS; j++)
		WRITE_ONCE(jobs[j].not_before, jiffies);
	irq_work_sync(&kick);
	kick_fn(&kick);
	for (j = 0; j < LEAK_JOBS; j++)
		if (jobs[j].fn)
			flush_delayed_work(&jobs[j].work);
}
#endif

/*
 * No job runs any more.  At unloading, once no probe can ask for a job; a
 * job running meanwhile may ask for another: that request is dropped.
 */
static void work_stop(void)
{
	unsigned int j;

	WRITE_ONCE(stopped, true);
	/* Stopped before a kick_fn that starts after this reads it. */
	smp_mb();
	/* A kick_fn that read "not stopped" has queued what it queues. */
	irq_work_sync(&kick);
	for (j = 0; j < LEAK_JOBS; j++)
		if (jobs[j].fn)
			cancel_delayed_work_sync(&jobs[j].work);
	/* What the jobs cancelled here kicked: queued nothing, stopped. */
	irq_work_sync(&kick);
	pending = 0;
}

/*
 * Jobs may run.  At loading, once the jobs of the files below are
 * registered; jobs asked for before (the pool's first refill) are queued
 * now.
 */
static int work_start(void)
{
	WRITE_ONCE(stopped, false);
	/* Pairs with the barrier of a kick that saw it stopped. */
	smp_mb();
	if (READ_ONCE(pending))
		irq_work_queue(&kick);
	return 0;
}

const struct leak_part leak_work_part = {
	.step = { "worker", work_start, work_stop },
};
