# SPDX-License-Identifier: GPL-2.0
# The module loads, creates its debugfs directory and unloads cleanly.
. /tests/lib.sh

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
check "debugfs directory exists" test -d $ST
check "rmmod slabtrace" rmmod slabtrace
check "debugfs directory removed" test ! -e $ST
check "insmod again after rmmod" insmod $MODDIR/slabtrace.ko
check "rmmod again" rmmod slabtrace
finish
