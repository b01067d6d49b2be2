# SPDX-License-Identifier: GPL-2.0
# runner_bigout: for scripts/tests/test_runner.sh (not one of make check's
# guest suites): what runner_overrun left is gone (its process, its
# module), and 4 MiB in /out, which /init sends to the host after the
# tests, saying nothing on the console meanwhile (over the second UART,
# about 20 s under TCG).
. /tests/lib.sh

child=$(cat /tmp/runner_overrun.child)
check "what the test over its budget left was stopped" sh -c "! kill -0 $child 2>/dev/null"
check "... and the module it loaded unloaded" sh -c "! grep -q '^leaky ' /proc/modules"
yes slabtrace | head -c 4194304 > /out/bigout.txt
check_eq "4 MiB in /out" 4194304 "$(wc -c < /out/bigout.txt)"
finish
