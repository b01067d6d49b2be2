# SPDX-License-Identifier: GPL-2.0
# The slabtrace command with the module's words, as the docs use them:
# "record -c kmalloc -- COMMAND" traces every kmalloc cache around a
# command that leaks from kmalloc() (leaky's kmalloc(50), bigleak's
# kmalloc(16384)), finds both leaking stacks, saves one print of the word
# that report reads again, and resets the word; a word is refused while a
# cache is traced; after SIGKILL the watchdog stops and resets the word.
# top after "start all" is one print, shown cache by cache, most bytes
# first.  What the commands printed is left in /out/many-cli-*.txt (the
# examples of slabtrace.rst and slabtrace(8) come from there).
. /tests/lib.sh

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
check "insmod leaky.ko" insmod $MODDIR/leaky.ko
check "insmod bigleak.ko" insmod $MODDIR/bigleak.ko
BIG=/sys/kernel/debug/bigleak/ctl
log_mark

none_traced() { slabtrace status | grep -q '^slabtrace: 0 caches traced'; }
some_traced() { ! none_traced; }

# --- record -c kmalloc around a command that leaks from kmalloc().
# (The examples test saves in /tmp/rec too: nothing of it may count here.)
rm -rf /tmp/rec
slabtrace record -c kmalloc -o /tmp/rec -- \
	sh -c "echo bufs 6 > $LEAKY; echo large 3 > $BIG; echo widgets 4 > $LEAKY" \
	> /out/many-cli-record.txt 2>&1
check_eq "record -c kmalloc exits 0" 0 $?
check "record says it traces kmalloc" \
	grep -q '^record: tracing kmalloc; running sh -c ' /out/many-cli-record.txt
check "record shows one print of the word" \
	grep -Eq '^Print of kmalloc: [0-9]+ caches, [0-9]+ with outstanding objects, most bytes first$' \
	/out/many-cli-record.txt
check "record finds leaky's 6 kmalloc(50) in kmalloc-64" \
	grep -Eq '^ +[0-9]+ +6 +384 +300 .* leaky_alloc_buf \[leaky\] < keep \[leaky\]' \
	/out/many-cli-record.txt
check "record finds bigleak's 3 kmalloc(16384) in kmalloc-large" \
	grep -Eq '^ +[0-9]+ +3 +49152 +49152 .* bigleak_large \[bigleak\] < keep \[bigleak\]' \
	/out/many-cli-record.txt
check "kmalloc-large comes before kmalloc-64 (most bytes first)" \
	test "$(grep -n '^kmalloc-large: ' /out/many-cli-record.txt | cut -d: -f1)" -lt \
	"$(grep -n '^kmalloc-64: ' /out/many-cli-record.txt | cut -d: -f1)"
check "no leaky_widget: not a kmalloc cache" \
	sh -c "! grep -q '^leaky_widget: ' /out/many-cli-record.txt"
for f in dump stacks folded folded_bytes; do
	check "record saved kmalloc.$f" test -s /tmp/rec/kmalloc.$f
done
cp /tmp/rec/kmalloc.dump /out/many-cli-kmalloc.dump
check "the saved print is the word's" \
	grep -q '^Print of kmalloc: ' /tmp/rec/kmalloc.dump
check "the saved folded lines start with their cache" \
	grep -q '^kmalloc-64;.*;leaky_alloc_buf \[leaky\] 6$' /tmp/rec/kmalloc.folded
slabtrace report /tmp/rec/kmalloc.dump > /out/many-cli-report.txt 2>&1
check_eq "report reads the saved print" 0 $?
check "report finds the 6 buffers again" \
	grep -Eq '^ +[0-9]+ +6 +384 +300 .* leaky_alloc_buf \[leaky\]' /out/many-cli-report.txt
slabtrace report --folded /tmp/rec/kmalloc.dump | sort > /tmp/rec.cli
sort /tmp/rec/kmalloc.folded > /tmp/rec.module
check "report --folded gives the module's folded lines, cache first" cmp -s /tmp/rec.cli /tmp/rec.module
check "record reset the word: nothing traced after" none_traced
echo free > $LEAKY

# --- a word only when nothing is traced.
slabtrace start dentry
slabtrace record -c all -- true > /out/many-cli-refused.txt 2>&1
check_eq "record -c all with dentry traced exits 1" 1 $?
check "... saying why and what to do" \
	grep -q '^slabtrace: record: not tracing all: a cache is traced or holds records (slabtrace status shows them); record takes a word only when none is' \
	/out/many-cli-refused.txt
check "... and leaves dentry traced" \
	sh -c "slabtrace status | grep -q '^cache dentry: tracing'"
slabtrace stop dentry
slabtrace reset dentry

# --- SIGKILL: the watchdog stops and resets the word.
slabtrace record -c all --settle 0 -o /tmp/many-cli-rk -- sh -c 'echo $$ > /tmp/many-cli-rk.pid; exec sleep 60' \
	> /out/many-cli-sigkill.txt 2>&1 &
rec=$!
check "record -c all traces caches" until_true 60 some_traced
kill -KILL $rec
wait $rec 2>/dev/null
check "after SIGKILL, the watchdog stops and resets all" until_true 60 none_traced
check "... and says so" until_true 10 grep -q \
	'^slabtrace: record (pid [0-9]*) ended without cleaning up; its watchdog stopped and reset all$' \
	/out/many-cli-sigkill.txt
kill "$(cat /tmp/many-cli-rk.pid)"

# --- top after "echo start all > ctl": every cache in one print.
echo start all > $ST/ctl
echo widgets 5 > $LEAKY
echo bufs 4 > $LEAKY
echo large 2 > $BIG
slabtrace top -n 1 > /out/many-cli-top.txt 2>&1
check_eq "top exits 0" 0 $?
check "top: one print of all" \
	grep -Eq '^Print of all: [0-9]+ caches, [0-9]+ with outstanding objects, most bytes first$' \
	/out/many-cli-top.txt
check "top shows several caches" \
	test "$(grep -Ec '^[^ ]+: [0-9]+ outstanding objects \(' /out/many-cli-top.txt)" -ge 3
check "top shows leaky_widget's 5 widgets" \
	grep -Eq '^ +1 +5 +[0-9]+ +[0-9]+ .* leaky_alloc_widget \[leaky\]' /out/many-cli-top.txt
check "top shows kmalloc-large's 2 objects" \
	grep -Eq '^ +1 +2 +32768 +32768 .* bigleak_large \[bigleak\]' /out/many-cli-top.txt
check_eq "each cache once" "" \
	"$(sed -n 's/^\([^ ]*\): [0-9]* outstanding objects (.*/\1/p' /out/many-cli-top.txt | sort | uniq -d)"
slabtrace top --module leaky > /out/many-cli-top-leaky.txt 2>&1
# A third cache showed here once in a make check on 7.3: an allocation
# the slab allocator makes for itself under leaky's frames (7.x's sheaves
# are kmalloc'ed) is leaky's too.  Any cache may show, only with stacks
# that have a frame of leaky's; bigleak's kmalloc-large never.
check "top --module leaky: leaky_widget's 5 widgets" \
	grep -Eq '^leaky_widget: 5 outstanding objects ' /out/many-cli-top-leaky.txt
check "top --module leaky: kmalloc-64's 4 buffers" \
	grep -Eq '^ +[0-9]+ +4 +256 +200 .* leaky_alloc_buf \[leaky\]' /out/many-cli-top-leaky.txt
check_eq "top --module leaky: not bigleak's kmalloc-large" "" \
	"$(grep '^kmalloc-large:' /out/many-cli-top-leaky.txt)"
slabtrace leaks --module leaky > /out/many-cli-leaks-leaky.txt 2>&1
check_eq "leaks --module leaky: every stack has a frame of leaky's" "0 of 2+" \
	"$(awk '/^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+s /{ if (n && !ok) bad++; n++; ok = 0 }
		/ \[leaky\]$/ { ok = 1 }
		END { if (n && !ok) bad++; m = (n >= 2) ? "2+" : n; printf "%d of %s\n", bad, m }' \
		/out/many-cli-leaks-leaky.txt)"
slabtrace leaks -c kmalloc --json > /out/many-cli-leaks.json
check_eq "leaks -c kmalloc --json exits 0" 0 $?
check "leaks -c kmalloc: kmalloc-large's stacks" grep -q '"cache": "kmalloc-large"' /out/many-cli-leaks.json
check "leaks -c kmalloc: not leaky_widget" sh -c "! grep -q '\"cache\": \"leaky_widget\"' /out/many-cli-leaks.json"
slabtrace stop all
slabtrace reset all
check "stop all, reset all: nothing traced" none_traced
echo free > $LEAKY

check "rmmod leaky, bigleak" rmmod leaky bigleak
check "rmmod slabtrace" rmmod slabtrace
no_splat_since "through the CLI's words" many-cli-dmesg.txt
finish
