# SPDX-License-Identifier: GPL-2.0
# The readers of one CPU take turns, through both trees (ctf.c's CPU
# lock): a read() of /proc's kmemtrace/cpu0 stopped inside relay's read,
# its copy chosen and not done (relay_reader -U holds its pages with a
# userfaultfd), makes the ioctl and a read() of debugfs's cpu0 wait, so
# that no packet goes to two readers.  With a lock per inode the second
# reader took the same packet (first=1 second=1).
. /tests/lib.sh

K=kmemtrace
check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
# Small packets (2 KiB), filled by a trace of every cache.
echo 16 > $ST/$K/buffer_kb
echo 1 > $ST/$K/enable
for i in 1 2 3 4 5; do
	cat /proc/slabinfo > /dev/null
	ls -R /sys/kernel/slab > /dev/null
done
echo 0 > $ST/$K/enable
relay_reader -U $ST/$K/cpu0 $ST_DEBUGFS/$K/cpu0 > /tmp/turns.out 2>&1
cat /tmp/turns.out
check_eq "the ioctl in debugfs waited for the read in /proc" \
	"ioctl: waited=yes ret=0" "$(grep '^ioctl:' /tmp/turns.out)"
check_eq "a read in debugfs waited too, then read the next packet" \
	"read: waited=yes first=1 second=2" "$(grep '^read:' /tmp/turns.out)"
check "rmmod slabtrace" rmmod slabtrace
finish
