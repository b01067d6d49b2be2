# SPDX-License-Identifier: GPL-2.0
# The demo (make demo): the README's leak hunt, recorded as a transcript in
# /out/demo.txt.  As a test, it checks that the hunt finds the leak.
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
run "echo start kmalloc-64 > /sys/kernel/debug/slabtrace/ctl"
say "# The workload: leaky keeps 3 kmalloc(50) buffers, and churns 100 more."
run "echo bufs 3 > /sys/kernel/debug/leaky/ctl"
run "echo churn 100 > /sys/kernel/debug/leaky/ctl"
run "echo stop kmalloc-64 > /sys/kernel/debug/slabtrace/ctl"
run "echo print kmalloc-64 > /sys/kernel/debug/slabtrace/ctl"
run "cat /sys/kernel/debug/slabtrace/ctl"
cat $ST/ctl > /tmp/dump
check_eq "the demo's dump shows leaky's 3 buffers" 3 "$(objs_from /tmp/dump leaky_alloc_buf | wc -l)"
run rmmod leaky
run rmmod slabtrace
finish
