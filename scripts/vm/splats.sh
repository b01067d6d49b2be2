# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The kernel messages that fail a VM run (scripts/vm/run.sh): an extended
# regular expression for grep -E, matched against every line of the
# guest's console.  Sourced; scripts/tests/test_splats.sh checks it
# against the first line of each checker's report.
#
# "BUG:" and "WARNING:" catch most: an oops's cause, every WARN_ON, and
# the debug kernel's reports, "BUG: sleeping function called from invalid
# context" (DEBUG_ATOMIC_SLEEP), "BUG: KASAN: ...", lockdep's "WARNING:
# possible circular locking dependency detected" and "[ BUG: Invalid wait
# context ]", DEBUG_OBJECTS' "ODEBUG: ..." (which contains "BUG:"; its
# WARN prints a "WARNING:" line too), "WARNING: suspicious RCU usage".
# Lockdep's own troubles are "lockdep:..." and "INFO: lockdep is turned
# off."; the word alone is no splat: the debug kernel boots saying "RCU
# lockdep checking is enabled.".
SPLATS='BUG:|WARNING:|Oops|general protection|KASAN|lockdep:|lockdep is turned off'
SPLATS="$SPLATS|possible recursive locking"
SPLATS="$SPLATS|RCU stall|rcu_.*detected stall|self-detected stall"
SPLATS="$SPLATS|list_add corruption|list_del corruption|Kernel panic|Call Trace:"
SPLATS="$SPLATS|blocked for more than"
