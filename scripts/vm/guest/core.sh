# SPDX-License-Identifier: GPL-2.0
# slab_trace: the README's flow on kmalloc-64 and on a module's own cache,
# counts and frame #01 of known leaks, stop/free/reset, merged caches, bad
# input on ctl, and rmmod during an allocation storm.
. /tests/lib.sh

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
check "insmod leaky.ko" insmod $MODDIR/leaky.ko
check "ctl is 0600" test "$(stat -c %a $ST/ctl)" = 600

# --- The README's flow on kmalloc-64: kmalloc(50)'s cache, kmalloc-128
# where the smallest kmalloc cache is 128 bytes (arm64 before 6.5, whose
# ARCH_KMALLOC_MINALIGN was the cache line).
KM=kmalloc-64
KMB=64
[ -e /sys/kernel/slab/kmalloc-64 ] || { KM=kmalloc-128; KMB=128; }

# --- The files: one layout, in /proc/slabtrace and mirrored in debugfs,
# whose ctl works the same.
check_eq "/proc/slabtrace is root's (0500)" 500 "$(stat -c %a $ST)"
(cd $ST && find . -type f | grep -Ev '^./(kmemtrace|kptrace/ctf)/' | sort) > /tmp/files
check_eq "the files outside the streams" "./ctl
./kptrace/pipe
./kptrace/queue
./kptrace/stats
./kptrace/summary
./slab/folded
./slab/folded_bytes
./slab/stacks
./slab/stats
./status" "$(cat /tmp/files)"
for s in kmemtrace kptrace/ctf; do
	for f in enable buffer_kb metadata abi_version events total_overruns cpu0; do
		check "$s/$f" test -f $ST/$s/$f
	done
done
(cd $ST && find . | sort) > /tmp/p.files
(cd $ST_DEBUGFS && find . | sort) > /tmp/d.files
check_eq "debugfs has the same tree" "$(cat /tmp/p.files)" "$(cat /tmp/d.files)"
(cd $ST && find . -type f) | while read -r f; do
	echo "$f $(stat -c %a "$ST/$f") $(stat -c %a "$ST_DEBUGFS/$f")"
done > /tmp/modes
check "every file has the same mode in both" awk '$2 != $3 { exit 1 }' /tmp/modes
check_eq "every file is root's only (0600 or 0400)" "" \
	"$(awk '$2 != 600 && $2 != 400' /tmp/modes)"
check_eq "every module parameter is root's only (0400)" "" \
	"$(stat -c '%a %n' /sys/module/slabtrace/parameters/* | grep -v '^400 ')"
check "debugfs ctl: start $KM" sh -c "echo start $KM > $ST_DEBUGFS/ctl"
check "/proc's status says it is traced" grep -q "^cache $KM: tracing" $ST/status
check "debugfs ctl: print $KM" sh -c "echo print $KM > $ST_DEBUGFS/ctl"
check "debugfs ctl reads the dump" grep -q "^Dumping outstanding allocs from $KM\$" $ST_DEBUGFS/ctl
check "debugfs status" grep -q "^cache $KM: tracing" $ST_DEBUGFS/status
check "debugfs ctl: reset $KM" sh -c "echo stop $KM > $ST_DEBUGFS/ctl && echo reset $KM > $ST_DEBUGFS/ctl"
check "/proc's status: nothing traced" grep -q '^slabtrace: 0 caches' $ST/status

echo start $KM > $ST/ctl
echo bufs 3 > $LEAKY
echo churn 200 > $LEAKY
echo stop $KM > $ST/ctl
echo print $KM > $ST/ctl
cat $ST/ctl > /tmp/k64
cp /tmp/k64 /out/kmalloc-64.txt
check "the dump was taken" test -s /tmp/k64
check "dump starts with its header" \
	test "$(head -n 1 /tmp/k64)" = "Dumping outstanding allocs from $KM"
check_eq "header count = objects listed" "$(nobjs /tmp/k64)" "$(outstanding /tmp/k64)"
check_eq "kmalloc(50) leaks with frame #01 leaky_alloc_buf" 3 "$(nobjs_from /tmp/k64 leaky_alloc_buf)"
objs_from /tmp/k64 leaky_alloc_buf > /tmp/bufs
check_eq "they are $KMB bytes (50 requested)" 3 "$(grep -c ", $KMB bytes (50 requested), age " /tmp/bufs)"
check_eq "they come from this shell, in write()" 3 "$(grep -c "from PID $$ sh in syscall write:\$" /tmp/bufs)"
check_eq "their frame #02 is leaky's keep()" 3 \
	"$(grep -A1 '^ #01 .* in leaky_alloc_buf+' /tmp/k64 | grep -c '^ #02 \[<[0-9a-f]*>\] in keep+0x[0-9a-f]*/0x[0-9a-f]* \[leaky\]$')"

# Frees after stop drop records.
echo free > $LEAKY
dump $KM /tmp/k64b
check_eq "after stop, freeing drops the records" 0 "$(nobjs_from /tmp/k64b leaky_alloc_buf)"
echo bufs 2 > $LEAKY
dump $KM /tmp/k64c
check_eq "after stop, nothing new is recorded" 0 "$(nobjs_from /tmp/k64c leaky_alloc_buf)"
echo free > $LEAKY

# --- A module's own cache.
size=$(cat /sys/kernel/slab/leaky_widget/object_size)
check "start leaky_widget" st start leaky_widget
echo widgets 5 > $LEAKY
echo churn 50 > $LEAKY
dump leaky_widget /tmp/w
cp /tmp/w /out/leaky_widget.txt
check "header: 5 outstanding ($((5 * size)) bytes)" \
	grep -q "^traced [0-9]*\.[0-9][0-9][0-9]s, 5 outstanding ($((5 * size)) bytes), 0 records dropped\$" /tmp/w
check_eq "widgets with frame #01 leaky_alloc_widget" 5 "$(nobjs_from /tmp/w leaky_alloc_widget)"
check_eq "widget lines give their size, node and GFP flags" 5 "$(grep -c "^Obj [^ ]*, $size bytes ($size requested), age [0-9]*\.[0-9]*s, cpu [0-9]*, node [0-9]*, gfp GFP_KERNEL, stack [0-9]* ([a-z]*), from PID $$ sh in syscall write:\$" /tmp/w)"
check "reset leaky_widget" st reset leaky_widget
dump leaky_widget /tmp/w2
check_eq "reset drops every record" 0 "$(outstanding /tmp/w2)"
echo widgets 1 > $LEAKY
dump leaky_widget /tmp/w3
check_eq "a traced cache stays traced after reset" 1 "$(outstanding /tmp/w3)"
echo free > $LEAKY
dump leaky_widget /tmp/w4
check_eq "kmem_cache_free drops records" 0 "$(outstanding /tmp/w4)"
check "stop leaky_widget" st stop leaky_widget
check "reset of a stopped cache" st reset leaky_widget
check_eq "then it is not traced" "No data available" "$(ctl_errno 'print leaky_widget')"

# --- Merged caches: the header says so when the name is shared.
check "start dentry" st start dentry
dump dentry /tmp/d
if [ -L /sys/kernel/slab/dentry ]; then
	check "dentry is merged: the header says it is shared" grep -q '^shared with: ' /tmp/d
else
	check "dentry is not merged: no sharing line" sh -c "! grep -q '^shared with: ' /tmp/d"
fi
st stop dentry; st reset dentry
# A name that shares its cache: the first of a target with two links (a
# mergeable cache nothing merged into has a link of its own, alone: 7.3
# arm64's PING, whose header rightly names no other).
merged=$(for l in /sys/kernel/slab/*; do [ -L "$l" ] && echo "$(readlink "$l") ${l##*/}"; done |
	sort | awk '$1 == prev { print name; exit } { prev = $1; name = $2 }')
if [ -n "$merged" ]; then
	target=$(readlink /sys/kernel/slab/$merged)
	check "start merged cache $merged" st start "$merged"
	dump "$merged" /tmp/m
	cp /tmp/m /out/merged.txt
	check "its header lists the names it is shared with" grep -q '^shared with: .*(merged caches' /tmp/m
	others=$(for l in /sys/kernel/slab/*; do [ -L "$l" ] && [ "$(readlink $l)" = "$target" ] && [ "${l##*/}" != "$merged" ] && echo "${l##*/}"; done | head -n 1)
	[ -z "$others" ] || check "another name of it, $others, is listed" grep -q "^shared with: .*$others" /tmp/m
	check "starting it again by another name is harmless" st start "${target##*/}"
	st stop "$merged"; st reset "$merged"
fi
# A name with ", " in the list: escaped, so that it stays one name.
check "insmod oddcache.ko" insmod $MODDIR/oddcache.ko
if [ -L /sys/kernel/slab/oddmerge ]; then
	check "start oddmerge" st start oddmerge
	dump oddmerge /tmp/om
	check "its header lists 'oddmerge, b' as one name" \
		grep -qF 'shared with: oddmerge,\x20b (merged caches' /tmp/om
	st stop oddmerge; st reset oddmerge
else
	skip_checks "oddmerge: this kernel did not merge oddcache's two caches"
fi
check "rmmod oddcache" rmmod oddcache
# SLUB leaves the link of a merged name whose cache went, to a removed
# directory: no cache by that name, and walking the names (start all,
# kmemtrace's table) must not take the freed cache's memory for one.
if [ -L /sys/kernel/slab/oddmerge ] && [ ! -e /sys/kernel/slab/oddmerge ]; then
	check_eq "start oddmerge, its cache gone: no such cache" "No such file or directory" \
		"$(ctl_errno 'start oddmerge')"
	# A cache of the same size and flags takes the gone one's name: the
	# link left for oddmerge reads as its now, but is not its name.
	check "insmod oddcache.ko other=1" insmod $MODDIR/oddcache.ko other=1
	if [ -L /sys/kernel/slab/oddother ] &&
	   [ "$(readlink /sys/kernel/slab/oddother)" = "$(readlink /sys/kernel/slab/oddmerge)" ]; then
		check_eq "start oddmerge, its cache's name now oddother's: no such cache" \
			"No such file or directory" "$(ctl_errno 'start oddmerge')"
		check "start oddother" st start oddother
		dump oddother /tmp/oo
		check "oddother's print is of oddother" \
			grep -q '^Dumping outstanding allocs from oddother$' /tmp/oo
		check_eq "oddother is not shared with oddmerge" "" "$(grep -F oddmerge /tmp/oo)"
		st stop oddother; st reset oddother
	else
		skip_checks "oddother: its cache did not take oddmerge's old name"
	fi
	check "rmmod oddcache (other=1)" rmmod oddcache
else
	skip_checks "oddmerge's link to its gone cache: this kernel left none"
fi

# --- Bad input: errno and one log line each.  Nothing traced: a print
# afterwards finds no cache traced.
st reset $KM
mark "bad input"
check_eq "empty command" "Invalid argument" "$(ctl_errno '')"
check_eq "unknown verb" "Invalid argument" "$(ctl_errno "begin $KM")"
check_eq "missing name" "Invalid argument" "$(ctl_errno 'start')"
check_eq "extra words" "Invalid argument" "$(ctl_errno "start $KM now")"
check_eq "unknown cache" "No such file or directory" "$(ctl_errno 'start no_such_cache')"
check_eq "kmalloc-8192: no such cache" "No such file or directory" "$(ctl_errno 'start kmalloc-8192')"
logged "start: no slab cache named 'kmalloc-8192' (did you mean kmalloc-8k?)"
check_eq "own cache" "Operation not permitted" "$(ctl_errno 'start slabtrace_record')"
check_eq "print of an untraced cache" "No data available" "$(ctl_errno 'print kmalloc-128')"
check_eq "overlong name" "File name too long" "$(ctl_errno "start $(printf '%070d' 0)")"
check "embedded NUL is refused" sh -c "! printf 'start $KM\\000junk\\n' > $ST/ctl"
# dd: one write() (busybox's head reports procfs's refusal as EIO).
out=$( (dd if=/dev/urandom bs=4096 count=1 of=$ST/ctl) 2>&1 )
check "4 KiB of garbage: E2BIG" sh -c 'printf "%s\n" "$1" | grep -q "Argument list too long"' sh "$out"
check "stop of an untraced cache is harmless" st stop kmalloc-128
dmesg > /out/dmesg.txt
logged "ctl: empty command" "ctl: unknown command 'begin'" \
	"ctl: 'start' takes one cache name, not 0 words" \
	"start: no slab cache named 'no_such_cache'" \
	"start: slabtrace_record is slabtrace's own cache" \
	"print: kmalloc-128 is not traced" "ctl: NUL byte in command" \
	"ctl: command longer than 255 bytes" "stop: kmalloc-128 is not traced" \
	"ctl: cache name longer than 64 bytes"
check_eq "nothing traced after the bad commands" "No data available" "$(ctl_errno "print $KM")"
# An escape sequence in a name reaches the log escaped, never raw: the
# console would obey it.
esc=$(printf 'start \033[31mRED\033[0m')
check_eq "a name with an escape sequence: no such cache" "No such file or directory" "$(ctl_errno "$esc")"
dmesg > /tmp/dmesg
check "the log shows it escaped" grep -qF "slabtrace: start: no slab cache named '\e[31mRED\e[0m'" /tmp/dmesg
check_eq "no raw ESC byte in the log" 0 "$(grep -c "$(printf '\033')" /tmp/dmesg)"
# A byte above 0x9f (%pE would log it raw: the kernel's isprint() takes
# Latin-1 for printable), a quote and a backslash, in a cache name and in
# a command: escaped as the files escape names, the quote too.
odd=$(printf 'caf\351\047\134x41')
check_eq "a name with a byte 0xe9, a quote, a backslash: no such cache" \
	"No such file or directory" "$(ctl_errno "start $odd")"
check_eq "the same word as a command: unknown" "Invalid argument" "$(ctl_errno "$odd")"
dmesg > /tmp/dmesg
for msg in "start: no slab cache named 'caf\\xe9\\x27\\\\x41'" \
	"ctl: unknown command 'caf\\xe9\\x27\\\\x41'"; do
	check "the log shows it escaped: $msg" grep -qF "slabtrace: $msg" /tmp/dmesg
done
check_eq "no raw byte 0xe9 in the log" 0 "$(grep -c "$(printf '\351')" /tmp/dmesg)"
# A loop of bad commands does not flood the log: rate-limited.
# printk's default: 10 lines per 5 s per message.
before=$(grep -c "unknown command 'flood'" /tmp/dmesg)
t0=$(date +%s)
i=0
while [ $i -lt 200 ]; do
	echo flood > $ST/ctl 2>/dev/null
	i=$((i + 1))
done
most=$((10 * (($(date +%s) - t0) / 5 + 2)))
dmesg > /tmp/dmesg
flood=$(($(grep -c "unknown command 'flood'" /tmp/dmesg) - before))
check "200 bad commands: logged $flood times, at least once, at most $most" \
	test "$flood" -ge 1 -a "$flood" -le "$most"

# --- rmmod at any moment: while tracing, with records, during a storm.
st start $KM
st start leaky_widget
# Each loop appends a line per round: the test waits for rounds, not time.
rm -f /tmp/storm1 /tmp/storm2
(while :; do echo churn 100 > $LEAKY; echo >> /tmp/storm1; done) 2>/dev/null &
storm1=$!
(while :; do cat /proc/slabinfo /proc/self/status > /dev/null; echo >> /tmp/storm2; done) 2>/dev/null &
storm2=$!
rounds() { cat "$1" 2>/dev/null | wc -l; }
check "the storm is under way (2 rounds each)" until_true 60 \
	sh -c "[ \$(cat /tmp/storm1 2>/dev/null | wc -l) -ge 2 ] && [ \$(cat /tmp/storm2 2>/dev/null | wc -l) -ge 2 ]"
st print $KM
check "rmmod slabtrace during an allocation storm" rmmod slabtrace
r1=$(rounds /tmp/storm1)
r2=$(rounds /tmp/storm2)
check "the storm goes on after rmmod (2 more rounds each)" until_true 60 \
	sh -c "[ \$(cat /tmp/storm1 2>/dev/null | wc -l) -ge $((r1 + 2)) ] && [ \$(cat /tmp/storm2 2>/dev/null | wc -l) -ge $((r2 + 2)) ]"
kill $storm1 $storm2
wait 2>/dev/null
check "insmod slabtrace.ko again" insmod $MODDIR/slabtrace.ko
cat $ST/ctl > /tmp/ctl0
check_eq "ctl before any print: no snapshot, the state" \
	"No snapshot yet for this login user: print takes one.
slabtrace: 0 caches traced or holding records, 0 records (limit $(sed -n 's/^records 0 limit //p' $ST/slab/stats)), probes detached" \
	"$(head -n 2 /tmp/ctl0)"
check "ctl before any print: what to do next" \
	grep -qx 'next: echo start CACHE > ctl (a name from /proc/slabinfo); echo help > ctl: the commands, in dmesg' /tmp/ctl0
check_eq "status reads as ctl did" "$(tail -n +2 /tmp/ctl0)" "$(cat $ST/status)"
check "help" st help
logged "commands (echo COMMAND > /proc/slabtrace/ctl):" \
	"  help               these lines" \
	"  syscall start [ctf] [FILTER] | stop [ctf] | clear | size BYTES   kptrace"
check_eq "help takes no arguments" "Invalid argument" "$(ctl_errno "help me")"
# A loop of help does not flood the log either: the whole list at most 5
# times in 5 s.  The window the help above opened may go on into the
# loop: at most 2 windows more than the loop's 5 s steps.
mark "help in a loop"
t0=$(date +%s)
i=0
while [ $i -lt 30 ]; do
	echo help > $ST/ctl
	i=$((i + 1))
done
most=$((5 * (($(date +%s) - t0) / 5 + 2)))
logged "commands (echo COMMAND > /proc/slabtrace/ctl):"
helps=$(dmesg | grep -F -A 100000 "$TEST_MARK" | grep -c 'slabtrace: commands (echo')
check "30 helps: the list logged $helps times, at most $most" test "$helps" -le "$most"
check "rmmod leaky" rmmod leaky
check "rmmod slabtrace" rmmod slabtrace
finish
