# SPDX-License-Identifier: GPL-2.0
# runner_nocheck: a test that ends well without a single check or skip
# (scripts/tests/test_runner.sh runs it): the runner must fail it by
# name, as it would a test cut short by a stray "exit 0".
. /tests/lib.sh
finish
