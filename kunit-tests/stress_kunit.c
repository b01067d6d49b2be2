// SPDX-License-Identifier: GPL-2.0
/*
 * The "slabtrace_stress" suite runs the commands and the probes side by
 * side: two kthreads allocate and free (a cache of their own and
 * kmalloc-64) while the test loops start/print/stop/reset.  Under lockdep
 * and KASAN nothing may be reported, and once the workers have freed
 * everything a cache traced throughout holds no record: no free was lost.
 *
 * UML has one CPU and no preemption: here the two sides take turns only
 * where one of them sleeps (a command's mutex or allocation, a worker's
 * cond_resched()), never inside a probe.  The races on several CPUs are
 * the VM test stress's (make stress, and the short run of make check).
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/slab.h>

#include "st_slab_kunit.h"

#define OBJS	32

static struct kmem_cache *stress_cache;

static void stress_ctor(void *obj)
{
}

/* @arg: the worker's count of finished rounds. */
static int worker(void *arg)
{
	void *objs[OBJS], *small[OBJS / 4];
	atomic_t *done = arg;
	unsigned int i, round = 0;

	while (!kthread_should_stop()) {
		for (i = 0; i < OBJS; i++)
			objs[i] = kmem_cache_alloc(stress_cache, GFP_KERNEL);
		for (i = 0; i < ARRAY_SIZE(small); i++)
			small[i] = kmalloc(40 + i, GFP_KERNEL);
		/* Free in an order that differs from round to round. */
		for (i = 0; i < OBJS; i++)
			kmem_cache_free(stress_cache,
					objs[(i * 7 + round) % OBJS]);
		for (i = 0; i < ARRAY_SIZE(small); i++)
			kfree(small[i]);
		round++;
		atomic_inc(done);
		cond_resched();
	}
	return 0;
}

static void slabtrace_stress_commands_vs_probes(struct kunit *test)
{
	/* Each command changes the state; a round ends where it began. */
	static const char *const script[] = {
		"start st_kunit_stress", "start kmalloc-64",
		"print st_kunit_stress", "stop kmalloc-64",
		"print kmalloc-64", "reset st_kunit_stress",
		"print st_kunit_stress", "stop st_kunit_stress",
		"print st_kunit_stress", "reset kmalloc-64",
		"reset st_kunit_stress",
	};
	static atomic_t done[2];
	struct task_struct *w[2];
	unsigned long end;
	unsigned int i, rounds = 0, target[2];

	for (i = 0; i < ARRAY_SIZE(w); i++) {
		atomic_set(&done[i], 0);
		w[i] = kthread_run(worker, &done[i], "st_stress/%u", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(w[i]));
	}
	/* At least one round of commands, however slowly the machine runs. */
	end = jiffies + 2 * HZ;
	do {
		for (i = 0; i < ARRAY_SIZE(script); i++)
			KUNIT_EXPECT_EQ_MSG(test, st_cmd("%s\n", script[i]), 0,
					    "%s", script[i]);
		rounds++;
	} while (time_before(jiffies, end));
	/*
	 * Traced throughout two whole rounds of each worker (counted, not
	 * timed), then they finish: every object they made was freed.
	 */
	KUNIT_EXPECT_EQ(test, st_cmd("reset st_kunit_stress\n"), 0);
	KUNIT_EXPECT_EQ(test, st_cmd("start st_kunit_stress\n"), 0);
	for (i = 0; i < ARRAY_SIZE(w); i++)
		target[i] = atomic_read(&done[i]) + 2;
	for (i = 0; i < ARRAY_SIZE(w); i++)
		while (atomic_read(&done[i]) < target[i])
			usleep_range(1000, 2000);
	for (i = 0; i < ARRAY_SIZE(w); i++)
		kthread_stop(w[i]);
	KUNIT_EXPECT_EQ(test, st_outstanding(test, "st_kunit_stress"), 0);
	kunit_info(test, "%u rounds of %zu commands\n", rounds,
		   ARRAY_SIZE(script));
}

static int slabtrace_stress_suite_init(struct kunit_suite *suite)
{
	stress_cache = kmem_cache_create("st_kunit_stress", 96, 0, 0,
					 stress_ctor);
	return stress_cache ? 0 : -ENOMEM;
}

static void slabtrace_stress_suite_exit(struct kunit_suite *suite)
{
	kmem_cache_destroy(stress_cache);
}

static void slabtrace_stress_exit(struct kunit *test)
{
	st_cmd("stop st_kunit_stress\n");
	st_cmd("reset st_kunit_stress\n");
	st_cmd("stop kmalloc-64\n");
	st_cmd("reset kmalloc-64\n");
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(leak_active));
	st_expect_lockdep_clean(test);
}

static struct kunit_case slabtrace_stress_cases[] = {
	KUNIT_CASE_SLOW(slabtrace_stress_commands_vs_probes),
	{}
};

static struct kunit_suite slabtrace_stress_suite = {
	.name = "slabtrace_stress",
	.suite_init = slabtrace_stress_suite_init,
	.suite_exit = slabtrace_stress_suite_exit,
	.exit = slabtrace_stress_exit,
	.test_cases = slabtrace_stress_cases,
};

kunit_test_suite(slabtrace_stress_suite);

MODULE_LICENSE("GPL");
