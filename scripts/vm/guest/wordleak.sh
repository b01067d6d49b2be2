# SPDX-License-Identifier: GPL-2.0
# A command on a word of which no cache is traced ("reset kmalloc",
# "mark kmalloc" with only dentry traced) keeps no memory: the kernel's
# own count of kmalloc objects (/proc/slabinfo) does not grow by one a
# command.  slabtrace hides its own allocations from itself, so only the
# kernel's accounting can see such a leak.
. /tests/lib.sh

N=3000

# The active objects of every kmalloc-N cache (where a small kmalloc()
# goes), summed.
kmalloc_objs() {
	awk '$1 ~ /^kmalloc-[0-9]+k?$/ { n += $2 } END { print n + 0 }' /proc/slabinfo
}

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
check "start dentry" st start dentry
check_eq "reset kmalloc, none traced: nothing to do" ok "$(ctl_errno "reset kmalloc")"
check_eq "mark kmalloc, none traced: nothing to do" ok "$(ctl_errno "mark kmalloc")"
log_mark
before=$(kmalloc_objs)
i=0
while [ $i -lt $N ]; do
	echo reset kmalloc > $ST/ctl
	echo mark kmalloc > $ST/ctl
	i=$((i + 1))
done
after=$(kmalloc_objs)
echo "kmalloc objects: $before before $((2 * N)) commands, $after after" > /out/wordleak.txt
# A leak of one object a command is 6000 more; the slabs' per-CPU
# caching blurs the count by a few hundred.
check "$((2 * N)) commands on an untraced word: kmalloc objects $before -> $after, fewer than $N more" \
	test $((after - before)) -lt $N
check "rmmod slabtrace" rmmod slabtrace
no_splat_since "through the commands" wordleak-dmesg.txt
finish
