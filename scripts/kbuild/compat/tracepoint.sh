#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# <wrapper/tracepoint.h>: whether the tracepoints call their probes with
# preemption disabled, as the probes need, or preemptible.
#   scripts/kbuild/compat/tracepoint.sh SRCTREE
# Prints the -D flags; -DSLABTRACE_MISSING_TP_CALL if __DO_TRACE's call of
# the probes is none of the forms the wrapper knows.
h=${1:?usage: tracepoint.sh SRCTREE}/include/linux/tracepoint.h
s=$1/include/trace/events/syscalls.h
if grep -q 'guard(srcu_fast_notrace)(&tracepoint_srcu);' "$h" 2> /dev/null; then
	# after 6.12 (Debian's 7.2): probes called under SRCU-fast, preemptible
	printf ' %s' -DSLABTRACE_TP_PREEMPTIBLE
elif ! grep -q 'preempt_disable_notrace();' "$h" 2> /dev/null; then
	printf ' %s' -DSLABTRACE_MISSING_TP_CALL
fi
# after 6.12 (Debian's 7.2): sys_enter and sys_exit may fault, their
# probes called under RCU tasks trace, preemptible
grep -q '^TRACE_EVENT_SYSCALL(sys_enter,' "$s" 2> /dev/null &&
	printf ' %s' -DSLABTRACE_SYSCALL_TP_PREEMPTIBLE
exit 0
