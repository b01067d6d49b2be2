# SPDX-License-Identifier: GPL-2.0
# Secure Boot's lockdown (issue 21 item 1): every file of the module is in
# /proc/slabtrace with debugfs's layout; with the kernel locked down for
# integrity, everything works through /proc/slabtrace: slab commands,
# print and its four read-outs, status and stats, kptrace's text queue
# and binary stream, kmemtrace (ctl and enable, buffer_kb, metadata,
# caches, cpuN); in debugfs the writable and the mapped files give EPERM
# and the read-only ones read.  Then, locked down for confidentiality,
# kmemtrace refuses to start and to be read (its events hold kernel
# addresses), with a log line saying why, and the rest works.  Lockdown
# is never lowered: the last test of its boot (scripts/check/check.sh runs it
# after relayrace, in a boot of its own).
. /tests/lib.sh

P=$ST
D=$ST_DEBUGFS
LK=/sys/kernel/security/lockdown

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
check_eq "/proc/slabtrace is root's (0500)" 500 "$(stat -c %a $P)"
# Every file, by the debugfs listing: the same in /proc, the same mode.
(cd $D && find . -type f | sort) > /tmp/d.files
(cd $P && find . -type f | sort) > /tmp/p.files
check "the debugfs tree has the files (ctl, kmemtrace/cpu0, kptrace/ctf/enable)" \
	sh -c "grep -qx ./ctl /tmp/d.files && grep -qx ./kmemtrace/cpu0 /tmp/d.files &&
		grep -qx ./kptrace/ctf/enable /tmp/d.files"
check_eq "the same files in /proc/slabtrace" "$(cat /tmp/d.files)" "$(cat /tmp/p.files)"
while read -r f; do
	echo "$f $(stat -c %a "$P/$f") $(stat -c %a "$D/$f")"
done < /tmp/d.files > /tmp/modes
check "every file has the same mode in both trees" awk '$2 != $3 { exit 1 }' /tmp/modes

mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
[ -w $LK ] || skip "this kernel has no lockdown LSM ($LK)"
echo integrity > $LK
check_eq "locked down for integrity" "none [integrity] confidentiality" "$(cat $LK)"

# perr FILE [TEXT]: the error writing TEXT to FILE ("ok" if none), or
# reading FILE without TEXT.
perr() {
	if [ $# -gt 1 ]; then
		out=$( (echo "$2" > "$1") 2>&1 ) && { echo ok; return; }
	else
		out=$(cat "$1" 2>&1 > /dev/null) && { echo ok; return; }
	fi
	echo "${out##*: }"
}
# The first 4 bytes of a file, as a little-endian word in hex.
magic() { od -A n -t x4 -N 4 "$1" | tr -d ' '; }

# --- slab_trace: commands, print and its read-outs.
check_eq "ctl: start dentry" ok "$(perr $P/ctl 'start dentry')"
mkdir /tmp/ld
for i in $(seq 200); do : > /tmp/ld/f$i; done
check_eq "ctl: print dentry" ok "$(perr $P/ctl 'print dentry')"
cat $P/ctl > /tmp/dump
check "the dump is of dentry" grep -q '^Dumping outstanding allocs from dentry' /tmp/dump
n=$(nobjs /tmp/dump)
check "the dump lists the 200 files' dentries ($n objects)" test "$n" -ge 200
check_eq "ctl: print dentry stacks" ok "$(perr $P/ctl 'print dentry stacks')"
for f in stacks folded folded_bytes; do
	check "slab/$f names d_alloc" grep -q 'd_alloc' $P/slab/$f
done
check "status: dentry is traced" grep -q '^cache dentry: tracing' $P/status
check "stats: dentry is traced" grep -q '^cache dentry tracing' $P/slab/stats
check_eq "ctl: stop dentry" ok "$(perr $P/ctl 'stop dentry')"
check_eq "ctl: reset dentry" ok "$(perr $P/ctl 'reset dentry')"
check_eq "a bad command still says why" "Invalid argument" "$(perr $P/ctl 'start')"

# --- kptrace: the text queue.
check_eq "ctl: syscall start comm kpt_probe" ok "$(perr $P/ctl 'syscall start comm kpt_probe')"
kpt_probe -g 10 > /dev/null
check_eq "ctl: syscall stop" ok "$(perr $P/ctl 'syscall stop')"
queued=$(sed -n 's/^queued: \([0-9]*\) bytes$/\1/p' $P/kptrace/stats)
check "kptrace/stats: bytes queued ($queued)" test "$queued" -gt 0
# procfs gives an inode its size when it is looked up, opened or read.
exec 3< $P/kptrace/queue
check_eq "kptrace's size, once open, is the bytes queued" "$queued" "$(stat -L -c %s /proc/self/fd/3)"
cat <&3 > /tmp/k.txt
exec 3<&-
check_eq "kptrace: the 10 getpid" 10 "$(grep -c '(getpid)' /tmp/k.txt)"
check_eq "kptrace's size once read" 0 "$(stat -c %s $P/kptrace/queue)"
check "kptrace/summary: getpid 10" grep -q '^getpid  *10 ' $P/kptrace/summary
check_eq "kptrace/pipe, O_NONBLOCK, empty: EAGAIN" "nonblock=-1 errno=11" \
	"$(kpt_probe -N $P/kptrace/pipe)"

# --- kptrace: the binary stream, started with enable.
K=$P/kptrace/ctf
check_eq "kptrace/ctf/buffer_kb: 16" ok "$(perr $K/buffer_kb 16)"
check_eq "kptrace/ctf/buffer_kb reads 16" 16 "$(cat $K/buffer_kb)"
check "the same setting as syscall size" grep -q '^queue size: 16384 bytes per CPU' $P/kptrace/stats
check_eq "kptrace/ctf/enable: 1 comm kpt_probe" ok "$(perr $K/enable '1 comm kpt_probe')"
check_eq "kptrace/ctf/enable reads the filter" "1 comm kpt_probe" "$(cat $K/enable)"
kpt_probe -g 10 > /dev/null
check_eq "kptrace/ctf/enable: 0" ok "$(perr $K/enable 0)"
check_eq "stopped" 0 "$(cat $K/enable)"
check "kptrace/ctf/metadata" grep -q 'tracer_name = "slabtrace-kptrace";' $K/metadata
check "kptrace/ctf/events: written" test "$(head -n 1 $K/events)" -ge 10
for c in $(cd $K && ls -d cpu*); do
	check_eq "kptrace/ctf/$c begins with a packet" c1fc1fc1 "$(magic $K/$c)"
done
check "status: the stream's buffers, kept" grep -q '^kptrace/ctf: stopped, its buffers (' $P/status

# --- kmemtrace: through ctl, then through enable.
M=$P/kmemtrace
check_eq "ctl: kmemtrace start kmalloc-64" ok "$(perr $P/ctl 'kmemtrace start kmalloc-64')"
check_eq "kmemtrace/enable reads it" "1 kmalloc-64" "$(cat $M/enable)"
check_eq "ctl: kmemtrace stop" ok "$(perr $P/ctl 'kmemtrace stop')"
check_eq "kmemtrace/buffer_kb: 16" ok "$(perr $M/buffer_kb 16)"
check_eq "kmemtrace/buffer_kb reads 16" 16 "$(cat $M/buffer_kb)"
check_eq "kmemtrace/enable: 1 dentry" ok "$(perr $M/enable '1 dentry')"
for i in $(seq 50); do : > /tmp/ld/g$i; done
check_eq "kmemtrace/enable: 0" ok "$(perr $M/enable 0)"
check "kmemtrace/metadata" grep -q 'tracer_name = "slabtrace-kmemtrace";' $M/metadata
check "kmemtrace/caches names dentry" grep -q ' dentry$' $M/caches
check "kmemtrace/events: written" test "$(head -n 1 $M/events)" -ge 50
check_eq "kmemtrace/total_overruns" 0 "$(head -n 1 $M/total_overruns)"
check_eq "kmemtrace/abi_version" 2 "$(cat $M/abi_version)"
for c in $(cd $M && ls -d cpu*); do
	check_eq "kmemtrace/$c begins with a packet" c1fc1fc1 "$(magic $M/$c)"
done
check "status: kmemtrace's buffers, kept" grep -q '^kmemtrace: stopped, its buffers (.* x 16 KiB)' $P/status

# --- debugfs, locked down: what can be written or mapped is refused.
for f in ctl kmemtrace/enable kmemtrace/buffer_kb kptrace/ctf/enable \
	kptrace/ctf/buffer_kb kmemtrace/cpu0 kptrace/ctf/cpu0; do
	check_eq "debugfs $f: EPERM" "Operation not permitted" "$(perr $D/$f)"
done
check_eq "debugfs ctl: no command" "Operation not permitted" "$(perr $D/ctl 'start dentry')"
for f in status slab/stats slab/stacks slab/folded slab/folded_bytes \
	kptrace/queue kptrace/stats kptrace/summary kmemtrace/metadata \
	kmemtrace/caches kmemtrace/events kmemtrace/total_overruns \
	kmemtrace/abi_version kptrace/ctf/metadata kptrace/ctf/events \
	kptrace/ctf/abi_version; do
	check_eq "debugfs $f reads" ok "$(perr $D/$f)"
done
check_eq "debugfs status is /proc's" "$(cat $P/status)" "$(cat $D/status)"

# --- confidentiality: kmemtrace's events hold kernel addresses.
echo confidentiality > $LK
check_eq "locked down for confidentiality" "none integrity [confidentiality]" "$(cat $LK)"
check_eq "ctl: kmemtrace start is refused" "Operation not permitted" \
	"$(perr $P/ctl 'kmemtrace start')"
check_eq "kmemtrace/enable: 1 is refused" "Operation not permitted" "$(perr $M/enable 1)"
check_eq "kmemtrace/cpu0 is refused" "Operation not permitted" "$(perr $M/cpu0)"
check_eq "kmemtrace/metadata is refused" "Operation not permitted" "$(perr $M/metadata)"
logged "kmemtrace: start: refused: the kernel is locked down for confidentiality, and the trace holds kernel addresses" \
	"kmemtrace: cpuN: refused: the kernel is locked down for confidentiality, and the trace holds kernel addresses" \
	"kmemtrace: metadata: refused: the kernel is locked down for confidentiality, and the trace holds kernel addresses"
check_eq "kmemtrace is not running" 0 "$(cat $M/enable)"
# The rest carries no kernel address (the dumps' follow kptr_restrict).
check_eq "ctl: start dentry" ok "$(perr $P/ctl 'start dentry')"
check_eq "ctl: print dentry" ok "$(perr $P/ctl 'print dentry')"
check "the dump reads" grep -q '^Dumping outstanding allocs from dentry' $P/ctl
check_eq "ctl: stop dentry" ok "$(perr $P/ctl 'stop dentry')"
check_eq "kptrace/ctf/enable: 1 comm kpt_probe" ok "$(perr $K/enable '1 comm kpt_probe')"
kpt_probe -g 3 > /dev/null
check_eq "kptrace/ctf/enable: 0" ok "$(perr $K/enable 0)"
check_eq "kptrace/ctf/cpu0 reads" c1fc1fc1 "$(magic $K/cpu0)"
check "kptrace/ctf/metadata reads" grep -q 'tracer_name = "slabtrace-kptrace";' $K/metadata

# --- rmmod: refused while a file of /proc/slabtrace is open, then done.
exec 3< $P/status
check "rmmod is refused as in use while /proc/slabtrace/status is open" rmmod_in_use
exec 3<&-
check "rmmod slabtrace" rmmod slabtrace
check "/proc/slabtrace is gone" test ! -e $P
check "and the debugfs tree" test ! -e $D

# --- Loading it again, locked down: the unsigned module is refused, and
# the slabtrace command says why (the kernel's log line) and what to do.
kv=$(uname -r)
mkdir -p /lib/modules/$kv
echo "$MODDIR/slabtrace.ko:" > /lib/modules/$kv/modules.dep
# Lockdown's log lines are ratelimited (10 in 5 s), and the files above
# made many: a new window, so that the refusal is logged.
sleep 6
check "insmod of the unsigned slabtrace.ko is refused" sh -c "! insmod $MODDIR/slabtrace.ko 2>/dev/null"
slabtrace status > /tmp/nl.out 2> /tmp/nl.err
check_eq "slabtrace status exits 1" 1 "$?"
cp /tmp/nl.err /out/lockdown-not-loaded.txt
check "it quotes the kernel's refusal" \
	grep -q "^slabtrace: the kernel refused a module for its signature: 'Lockdown: [^:]*: unsigned module loading is restricted; see man kernel_lockdown.7'$" /tmp/nl.err
check_eq "and says the module is unsigned, and how to sign it" \
	"slabtrace: the slabtrace module is not loaded, and this kernel loads only signed modules (Secure Boot): $MODDIR/slabtrace.ko is not signed (from a checkout: sudo make sign, then sudo make modules_install)" \
	"$(sed -n 2p /tmp/nl.err)"
rm /lib/modules/$kv/modules.dep
finish
