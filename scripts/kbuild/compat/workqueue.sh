#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# <wrapper/workqueue.h>: whether system_percpu_wq is there.
#   scripts/kbuild/compat/workqueue.sh SRCTREE
# Prints the -D flags.
h=${1:?usage: workqueue.sh SRCTREE}/include/linux/workqueue.h
# v6.17 (backported to Debian's 6.12): system_percpu_wq, system_wq deprecated
grep -q '^extern struct workqueue_struct \*system_percpu_wq;' "$h" 2> /dev/null &&
	printf ' %s' -DSLABTRACE_SYSTEM_PERCPU_WQ
exit 0
