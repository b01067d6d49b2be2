# SPDX-License-Identifier: GPL-2.0
# Whose print a reader sees.  A print belongs to its login user (the
# audit login UID), not to the process or session that made it: printed
# from one session, it reads from another (each sudo is a session of its
# own); two login users printing two caches each read their own; a ctl
# opened to read and write reads back the print it wrote, whatever the
# user prints after; at most 8 users' prints are kept; a print goes after
# snapshot_idle_secs without a print or a read, and at reset.  The stats
# count what they hold.
. /tests/lib.sh

# The default: 10 minutes.
check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
check_eq "snapshot_idle_secs is 600 by default" 600 \
	"$(cat /sys/module/slabtrace/parameters/snapshot_idle_secs)"
check "rmmod slabtrace" rmmod slabtrace
check "snapshot_idle_secs=0 is refused" sh -c "! insmod $MODDIR/slabtrace.ko snapshot_idle_secs=0 2>/dev/null"
logged "snapshot_idle_secs=0: not in 1..86400"

# Long enough that a guest stalled a few seconds (two TCG guests on two
# host CPUs) does not expire a print between the steps below.
IDLE=20
check "insmod slabtrace.ko snapshot_idle_secs=$IDLE" insmod $MODDIR/slabtrace.ko snapshot_idle_secs=$IDLE
check "insmod leaky.ko" insmod $MODDIR/leaky.ko
st start kmalloc-64
st start leaky_widget
echo bufs 3 > $LEAKY
echo widgets 2 > $LEAKY
# snaps: "KEPT ALIVE" from the stats; snap_bytes: the bytes they hold.
snaps() { sed -n 's/^snapshots kept \([0-9]*\) alive \([0-9]*\) bytes [0-9]*$/\1 \2/p' $ST/slab/stats; }
snap_bytes() { sed -n 's/^snapshots kept [0-9]* alive [0-9]* bytes \([0-9]*\)$/\1/p' $ST/slab/stats; }
header() { head -n 1 "$1" | sed 's/^Dumping outstanding allocs from //'; }

# --- The sudo case: print in one session, read in others.
setsid sh -c "echo print kmalloc-64 > $ST/ctl"
setsid cat $ST/ctl > /tmp/other.txt
check_eq "a print of another session reads here" kmalloc-64 "$(header /tmp/other.txt)"
check_eq "with leaky's 3 buffers" 3 "$(objs_from /tmp/other.txt leaky_alloc_buf | wc -l)"
setsid cat $ST/slab/folded > /tmp/other.folded
check "and its folded stacks" grep -q ';leaky_alloc_buf \[leaky\] 3$' /tmp/other.folded
check_eq "the stats: one kept" "1 1" "$(snaps)"
check "with its bytes" test "$(snap_bytes)" -gt 0
grep '^snapshots ' $ST/slab/stats > /out/dumps-stats.txt

# --- A ctl opened to read and write reads the print it wrote.
exec 3<> $ST/ctl
echo "print leaky_widget" >&3
st print kmalloc-64
cat <&3 > /tmp/own.txt
check_eq "the file's own print, whoever printed after" leaky_widget "$(header /tmp/own.txt)"
check_eq "... its 2 widgets" 2 "$(objs_from /tmp/own.txt leaky_alloc_widget | wc -l)"
check_eq "the user's latest is the print after" kmalloc-64 "$(setsid cat $ST/ctl | head -n 1 | sed 's/^Dumping outstanding allocs from //')"
check_eq "the stats: one kept, two alive" "1 2" "$(snaps)"
grep '^snapshots ' $ST/slab/stats >> /out/dumps-stats.txt
exec 3>&-
check_eq "closed, its own goes" "1 1" "$(snaps)"

# --- Two login users (/proc/self/loginuid, written as root while unset).
if [ -w /proc/self/loginuid ] && sh -c 'echo 1001 > /proc/self/loginuid' 2>/dev/null; then
	as() { u=$1; shift; sh -c "echo $u > /proc/self/loginuid && $*"; }
	as 1001 "echo print kmalloc-64 > $ST/ctl"
	as 1002 "echo print leaky_widget > $ST/ctl"
	as 1001 "cat $ST/ctl" > /tmp/u1.txt
	as 1002 "cat $ST/ctl" > /tmp/u2.txt
	check_eq "user 1001 reads its print" kmalloc-64 "$(header /tmp/u1.txt)"
	check_eq "user 1002 reads its own" leaky_widget "$(header /tmp/u2.txt)"
	as 1002 "cat $ST/slab/folded" > /tmp/u2.folded
	check "... and its folded stacks" grep -q ';leaky_alloc_widget \[leaky\] 2$' /tmp/u2.folded
	check_eq "the stats: three kept (this shell's, 1001's, 1002's)" "3 3" "$(snaps)"
	# Eight users at most: 2001 to 2008 print, then the least recently
	# used goes for each new one.
	for u in 2001 2002 2003 2004 2005 2006 2007 2008; do
		as $u "echo print kmalloc-64 > $ST/ctl"
	done
	check_eq "the stats: eight kept" "8 8" "$(snaps)"
	as 1001 "head -n 1 $ST/ctl" > /tmp/u1.txt
	check "the first users' went" grep -q '^No snapshot yet for this login user' /tmp/u1.txt
	as 2008 "head -n 1 $ST/ctl" > /tmp/u8.txt
	check_eq "the last one's is there" kmalloc-64 "$(header /tmp/u8.txt)"
else
	skip_checks "two login users: this kernel has no writable /proc/self/loginuid (CONFIG_AUDIT off)"
fi

# --- Idle: a print no one makes or reads goes after snapshot_idle_secs.
st reset leaky_widget
st reset kmalloc-64
check_eq "reset drops the users' prints of its cache" "0 0" "$(snaps)"
st print kmalloc-64
sleep 10
cat $ST/ctl > /dev/null
sleep 10
check_eq "a read keeps it (20 s after the print, 10 s after the read)" "1 1" "$(snaps)"
none() { [ "$(snaps)" = "0 0" ]; }
check "it goes $IDLE s after the read" until_true 30 none
check "then ctl shows the state" grep -q '^No snapshot yet for this login user' $ST/ctl

echo free > $LEAKY
check "rmmod leaky" rmmod leaky
st print kmalloc-64
check "rmmod slabtrace, a print kept" rmmod slabtrace
finish
