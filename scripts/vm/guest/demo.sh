# SPDX-License-Identifier: GPL-2.0
# The demo (make demo): a leak hunt among normal activity, recorded as a
# transcript in /out/demo.txt, with the snapshot's raw dump and folded
# stacks in /out for the host to turn into leaks.svg.  As a test, it
# checks that the hunt puts the leak on top.
. /tests/lib.sh

out=/out/demo.txt
say() { echo "$*" >> $out; }
run() {
	echo "# $*" >> $out
	sh -c "$*" >> $out 2>&1
}

say "# Booted Debian's $(uname -r) kernel, $(nproc) CPUs."
run insmod $MODDIR/slabtrace.ko
run insmod $MODDIR/leaky.ko
run "echo start kmalloc-64 > /proc/slabtrace/ctl"
say "# The workload: normal activity, and leaky keeping 20 kmalloc(50)"
say "# buffers and forgetting 5 kmalloc(40) ones among 300 it frees."
run "ls -R /sys/kernel /proc/sys > /dev/null; cat /proc/slabinfo > /dev/null"
run "echo churn 300 > /sys/kernel/debug/leaky/ctl"
run "echo bufs 20 > /sys/kernel/debug/leaky/ctl"
run "echo orphans 5 > /sys/kernel/debug/leaky/ctl"
run "ls -R /sys/devices > /dev/null"
run "echo stop kmalloc-64 > /proc/slabtrace/ctl"
say "# Give short-lived objects time to go, then look at what stayed."
run "sleep 1"
run "echo print kmalloc-64 top 5 > /proc/slabtrace/ctl"
run "cat /proc/slabtrace/slab/stacks"
run "cat /proc/slabtrace/slab/folded > /out/leaks.folded"
run "cat /proc/slabtrace/ctl > /out/dump.txt"
cat $ST/slab/stacks > /tmp/stacks
check_eq "the demo's top stack is leaky's 20 buffers" \
	"Stack 1: 20 objects, 1280 bytes (1000 requested) leaky_alloc_buf" \
	"$(awk '/^Stack 1: /{ split($0, h, ", age"); s = h[1] } s && / #01 /{ sub(/.* in /, ""); sub(/\+.*/, ""); print s, $0; exit }' /tmp/stacks)"
check_eq "the demo's dump lists the 5 orphans" 5 "$(nobjs_from /out/dump.txt leaky_orphan_buf)"
run rmmod leaky
run rmmod slabtrace
finish
