#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# <wrapper/timer.h> (the test modules): hrtimer_setup() or hrtimer_init().
#   scripts/kbuild/compat/timer.sh SRCTREE
# Prints the -D flags.
h=${1:?usage: timer.sh SRCTREE}/include/linux/hrtimer.h
# v6.13: hrtimer_setup(timer, function, clock, mode)
grep -q 'void hrtimer_setup(struct hrtimer \*timer' "$h" 2> /dev/null &&
	printf ' %s' -DSLABTRACE_HRTIMER_SETUP
exit 0
