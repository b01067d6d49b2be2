# SPDX-License-Identifier: GPL-2.0
# storm: a contention storm.  Seven busy caches are traced while six tasks
# allocate from them in parallel for STORM_SECS (20) seconds and another
# loop prints them and reads ctl; then stop and reset.  Every command
# succeeded, every task and the print loop ran, prints listed objects, and
# the kernel logged no splat (scripts/vm/run.sh also fails the run on one
# in the console).  On PREEMPT_RT a probe that takes a sleeping lock shows
# up here as "BUG: scheduling while atomic" (contended locks only: a
# single task never shows it).
. /tests/lib.sh

CACHES="kmalloc-32 kmalloc-64 kmalloc-128 kmalloc-192 kmalloc-256 kmalloc-512 dentry"
SECS=${STORM_SECS:-20}
# ctl COMMAND: one command, with echo: its status is the write's.
ctl() { echo "$*" > "$ST/ctl"; }

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
log_mark
for c in $CACHES; do
	check "start $c" ctl start $c
done

rm -rf /tmp/storm
mkdir /tmp/storm
# task N COMMAND...: COMMAND again and again until /tmp/storm/stop exists;
# a line per round in /tmp/storm/N.rounds, a line per failed command in
# /tmp/storm/errors.  Each COMMAND's status is its own: output to
# /dev/null, errors to N.stderr.
task() {
	n=$1
	shift
	while [ ! -e /tmp/storm/stop ]; do
		if ! "$@" > /dev/null 2> /tmp/storm/$n.stderr; then
			echo "task $n: '$*' failed: $(head -n 1 /tmp/storm/$n.stderr)" >> /tmp/storm/errors
		fi
		echo >> /tmp/storm/$n.rounds
	done
}
# find: the stable parts of /proc.  The storm's own short-lived processes
# come and go in /proc/PID, and find fails on one that went between
# readdir() and lstat(): that would be a race of the test, not a failure.
task 1 ls -R /sys/kernel &
p1=$!
task 2 cat /proc/slabinfo &
p2=$!
task 3 find /proc/sys /proc/1/ -maxdepth 2 &
p3=$!
task 4 ls -R /sys/kernel &
p4=$!
task 5 cat /proc/slabinfo &
p5=$!
task 6 find /proc/sys /proc/1/ -maxdepth 2 &
p6=$!
# The print loop: print and read every traced cache in turn.
(
	while [ ! -e /tmp/storm/stop ]; do
		for c in $CACHES; do
			if ! ctl print $c 2> /tmp/storm/print.stderr; then
				echo "print $c failed: $(cat /tmp/storm/print.stderr)" >> /tmp/storm/errors
			elif ! cat $ST/ctl > /tmp/storm/dump 2> /tmp/storm/print.stderr; then
				echo "cat ctl after print $c failed: $(cat /tmp/storm/print.stderr)" >> /tmp/storm/errors
			elif grep -q '^Obj ' /tmp/storm/dump; then
				touch /tmp/storm/seen.$c
			fi
		done
		echo >> /tmp/storm/print.rounds
	done
) &
pp=$!
sleep "$SECS"
touch /tmp/storm/stop
for p in $p1 $p2 $p3 $p4 $p5 $p6 $pp; do
	wait $p
done

rounds() { cat /tmp/storm/$1.rounds 2>/dev/null | wc -l; }
echo "storm: rounds of the tasks: $(for n in 1 2 3 4 5 6 print; do printf '%s ' "$(rounds $n)"; done)"
for n in 1 2 3 4 5 6; do
	check "task $n ran" test "$(rounds $n)" -gt 0
done
check "the print loop went round every cache" test "$(rounds print)" -gt 0
[ -e /tmp/storm/errors ] && sed 's/^/storm: /' /tmp/storm/errors
check_eq "every command of the storm succeeded" 0 "$(cat /tmp/storm/errors 2>/dev/null | wc -l)"
check "prints during the storm listed objects" sh -c "ls /tmp/storm | grep -q '^seen\\.'"
echo "storm: caches whose prints listed objects: $(cd /tmp/storm && ls seen.* 2>/dev/null | sed 's/^seen\.//' | tr '\n' ' ')"

for c in $CACHES; do
	check "stop $c" ctl stop $c
done
for c in $CACHES; do
	dump $c /tmp/storm/final
	check_eq "$c: the header counts the objects listed" "$(nobjs /tmp/storm/final)" "$(outstanding /tmp/storm/final)"
done
cp /tmp/storm/final /out/storm-dentry.txt
for c in $CACHES; do
	check "reset $c" ctl reset $c
	check_eq "$c is not traced after reset" "No data available" "$(ctl_errno "print $c")"
done
check "rmmod slabtrace" rmmod slabtrace

no_splat_since "during the storm" storm-dmesg.txt
finish
