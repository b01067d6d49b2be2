/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Timers, for the test modules (scripts/test-modules/).
 *
 * hrtimer_setup(timer, function, clock, mode) came in v6.13 and
 * hrtimer_init() (then setting ->function by hand) went before 7.2.
 * scripts/kbuild/compat/timer.sh tells which from <linux/hrtimer.h>.
 * del_timer_sync() went too; timer_delete_sync(), in 6.1 already, is used
 * on every kernel.
 */
#ifndef _SLABTRACE_WRAPPER_TIMER_H
#define _SLABTRACE_WRAPPER_TIMER_H

#include <linux/hrtimer.h>
#include <linux/timer.h>

/* Initialize @timer to call @function; before any other use of it. */
static inline void
slabtrace_hrtimer_setup(struct hrtimer *timer,
			enum hrtimer_restart (*function)(struct hrtimer *),
			clockid_t clock_id, enum hrtimer_mode mode)
{
#ifdef SLABTRACE_HRTIMER_SETUP
	hrtimer_setup(timer, function, clock_id, mode);
#else
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
#endif
}

#endif /* _SLABTRACE_WRAPPER_TIMER_H */
