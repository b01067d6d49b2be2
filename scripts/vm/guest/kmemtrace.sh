# SPDX-License-Identifier: GPL-2.0
# kmemtrace: the files and their bad input; a recording of leaky's known
# allocations, saved in /out/kmemtrace/ for the host to read with
# babeltrace2 and kmemtrace-report (scripts/tests/test_kmemtrace.py), and
# one of widgets kept, with their addresses from leaky's kept file; a tiny
# buffer with no reader; the recorder and other users' traces (it refuses
# to start over one, fails on a restart and on a stop, and leaves them
# running); a cache destroyed and made again during a trace; rmmod refused
# while recording, done after; the recorder's errors.
. /tests/lib.sh

K=$ST/kmemtrace
N=1000
OUT=/out/kmemtrace
mkdir -p $OUT

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
check "insmod leaky.ko" insmod $MODDIR/leaky.ko
for f in enable buffer_kb; do
	check "$f is 0600" test "$(stat -c %a $K/$f)" = 600
done
for f in metadata caches abi_version total_overruns events cache_table_full; do
	check "$f is 0400" test "$(stat -c %a $K/$f)" = 400
done
check_eq "abi_version" 2 "$(cat $K/abi_version)"
check_eq "not enabled at load" 0 "$(cat $K/enable)"

# errno of a write of $2 to file $1 ("ok" when it succeeded).
kerr() {
	out=$( (echo "$2" > "$K/$1") 2>&1 ) && { echo ok; return; }
	echo "${out##*: }"
}

# --- Bad input.
check_eq "buffer_kb: not a number" "Invalid argument" "$(kerr buffer_kb abc)"
check_eq "buffer_kb: beyond 32 bits" "Numerical result out of range" "$(kerr buffer_kb 4294967296)"
check_eq "buffer_kb: too small" "Invalid argument" "$(kerr buffer_kb 8)"
check_eq "buffer_kb: not a multiple of 8" "Invalid argument" "$(kerr buffer_kb 100)"
check_eq "buffer_kb: two lines" "Invalid argument" "$(kerr buffer_kb "$(printf '1\n6')")"
# One write of 3 bytes (the shell's printf says nothing when it fails).
check "buffer_kb: a NUL byte is refused with EINVAL" sh -c \
	"printf '16\\0' | dd of=$K/buffer_kb bs=3 count=1 2>&1 | grep -q 'error writing.*: Invalid argument'"
check_eq "... and buffer_kb is as it was" 1024 "$(cat $K/buffer_kb)"
check_eq "enable: unknown cache" "No such file or directory" "$(kerr enable no_such_cache)"
check_eq "enable: empty" "Invalid argument" "$(kerr enable '')"
check_eq "enable: 0 with an argument" "Invalid argument" "$(kerr enable '0 kmalloc-64')"
check_eq "enable: overlong cache name" "File name too long" "$(kerr enable "$(printf '%070d' 0)")"
check_eq "enable: more than 16 caches" "Argument list too long" \
	"$(kerr enable "$(for i in $(seq 17); do printf 'kmalloc-64 '; done)")"
check_eq "ctl: kmemtrace with a bad verb" "Invalid argument" "$(ctl_errno 'kmemtrace go')"
check_eq "ctl: kmemtrace stop with an argument" "Invalid argument" "$(ctl_errno 'kmemtrace stop now')"
check_eq "still not enabled" 0 "$(cat $K/enable)"
check "ctl: kmemtrace start kmalloc-64" st kmemtrace start kmalloc-64
check_eq "enable shows the filter" "1 kmalloc-64" "$(cat $K/enable)"
check_eq "a second start is refused" "Device or resource busy" "$(kerr enable 1)"
check_eq "buffer_kb cannot change while tracing" "Device or resource busy" "$(kerr buffer_kb 64)"
check "ctl: kmemtrace stop" st kmemtrace stop
check_eq "stopped" 0 "$(cat $K/enable)"
logged "kmemtrace: buffer_kb: 'abc' is not a number" \
	"kmemtrace: buffer_kb: '4294967296' is out of range" \
	"kmemtrace: buffer_kb: '1\\n6' is not a number" \
	"kmemtrace: buffer_kb: NUL byte in the number" \
	"kmemtrace: buffer_kb: 8 is not a multiple of 8 in 16..65536" \
	"kmemtrace: buffer_kb: 100 is not a multiple of 8 in 16..65536" \
	"kmemtrace: no slab cache named 'no_such_cache'" \
	"kmemtrace: enable: empty input" \
	"kmemtrace: enable: 0 takes no argument" \
	"kmemtrace: cache name longer than 64 bytes" \
	"kmemtrace: at most 16 caches, not 17" \
	"ctl: kmemtrace takes start [CACHE...] or stop" \
	"kmemtrace: already started" \
	"kmemtrace: buffer_kb: cannot change while tracing"

# --- A recording of every cache while leaky churns: N widgets from
# leaky_alloc_widget(), N kmalloc(50) from leaky_alloc_buf(), all freed.
size=$(cat /sys/kernel/slab/leaky_widget/object_size)
slab=$(cat /sys/kernel/slab/leaky_widget/slab_size)
echo "$N $size" > $OUT/expected
check "record every cache during churn $N" \
	sh -c "kmemtrace-record -o $OUT/all -- sh -c 'echo churn $N > $LEAKY' > /tmp/rec.txt"
cat /tmp/rec.txt
cp /tmp/rec.txt $OUT/all.record.txt
check "the recorder says how many events" grep -q '^kmemtrace-record: [0-9]* events written, 0 lost' /tmp/rec.txt
check_eq "nothing lost with a reader" 0 "$(cat $K/total_overruns | head -n 1)"
cat $K/events > $OUT/all.events
check "the trace has metadata" grep -q '^/\* CTF 1.8 \*/' $OUT/all/ctf/metadata
check "the trace has kallsyms" grep -q ' leaky_alloc_buf' $OUT/all/kallsyms
check "the cache table names leaky_widget, with its sizes" \
	grep -q "^[0-9]* $size $slab leaky_widget\$" $OUT/all/caches
# Each cache's slab size is its slab_size file's (the object with its
# padding and metadata, perf's bytes_alloc), not the object size.
slab_sizes() {
	local id obj sl names name n=0 bad=0 padded=0
	while read -r id obj sl names; do
		name=${names%%,*}
		[ -r "/sys/kernel/slab/$name/slab_size" ] || continue
		n=$((n + 1))
		[ "$sl" = "$(cat "/sys/kernel/slab/$name/slab_size")" ] ||
			{ echo "$name: listed $sl, slab_size $(cat "/sys/kernel/slab/$name/slab_size")"; bad=$((bad + 1)); }
		[ "$sl" = "$obj" ] || padded=$((padded + 1))
	done < "$1"
	echo "$n caches, $bad wrong, $padded with a slab size above the object size"
}
sizes=$(slab_sizes $OUT/all/caches)
echo "$sizes"
check_eq "the cache table's slab sizes are slab_size's" 0 \
	"$(echo "$sizes" | sed -n 's/.* caches, \([0-9]*\) wrong.*/\1/p')"
check "... some larger than the object size (filp, dentry...)" \
	test "$(echo "$sizes" | sed -n 's/.* wrong, \([0-9]*\) with.*/\1/p')" -gt 0
check_eq "the cache table had room for every cache" 0 "$(cat $K/cache_table_full)"
check "a stream per CPU" test -s $OUT/all/ctf/cpu0
check "kfree events can name their cache (struct slab calibrated)" \
	sh -c "! dmesg | grep -qF \"slabtrace: cannot find an object's cache\""

# --- Both CPUs allocating at once, with the default buffer: a reader that
# keeps up loses nothing.
cat > /tmp/par.sh <<PAR
(for i in 1 2 3; do echo churn 5000 > $LEAKY; done) &
(for i in 1 2 3; do echo churn 5000 > $LEAKY; done) &
(for i in \$(seq 20); do cat /proc/slabinfo > /dev/null; done) &
wait
PAR
check "record two writers and a reader of slabinfo" \
	sh -c "kmemtrace-record -o /tmp/par -- sh /tmp/par.sh > /tmp/rec5.txt"
cat /tmp/rec5.txt
check "more than 60000 events, none lost" \
	awk '/events written/ { exit !($2 > 60000 && $5 == 0) }' /tmp/rec5.txt
check "both CPUs wrote" sh -c "awk 'NR > 1 && \$2 == 0 { exit 1 }' $K/events"
rm -rf /tmp/par

# --- Filtered: only leaky_widget.
check "record leaky_widget only" \
	sh -c "kmemtrace-record -o $OUT/widget -c leaky_widget -- sh -c 'echo churn $N > $LEAKY; echo bufs 3 > $LEAKY; echo free > $LEAKY' > /tmp/rec2.txt"
cp /tmp/rec2.txt $OUT/widget.record.txt
check_eq "filtered: exactly the widget allocations and frees" \
	"kmemtrace-record: $((2 * N)) events written, 0 lost, into $OUT/widget" "$(cat /tmp/rec2.txt)"

# --- The objects' addresses: leaky lists the widgets it keeps (kept);
# the host checks that ptr + ptr_base gives them back
# (scripts/tests/test_kmemtrace.py), on a machine whose linear map is not
# at PAGE_OFFSET too (arm64 with 52-bit VA on a CPU without LPA2).
check "record 5 widgets kept" \
	sh -c "kmemtrace-record -o $OUT/kept -c leaky_widget -- sh -c 'echo widgets 5 > $LEAKY' > /tmp/rec9.txt"
cp /sys/kernel/debug/leaky/kept $OUT/kept.addrs
check_eq "leaky lists the 5 widgets" 5 "$(grep -c '^[0-9a-f]\{16\}$' $OUT/kept.addrs)"
check "free them" sh -c "echo free > $LEAKY"
rm -f $OUT/kept/kallsyms

# --- The recorder's buffer: without -b 8 MiB a CPU for the recording,
# the old buffer_kb set back after; a larger one stays; -b's exactly.
check_eq "buffer_kb is 1024 before" 1024 "$(cat $K/buffer_kb)"
check "record without -b" \
	sh -c "kmemtrace-record -o /tmp/bk -- sh -c 'cat $K/buffer_kb > /tmp/bk.kb; grep ^kmemtrace: $ST/status > /tmp/bk.st' > /tmp/bk.txt 2>&1"
check_eq "without -b: buffer_kb 8192 while recording" 8192 "$(cat /tmp/bk.kb)"
check_eq "... and the trace's buffers" "kmemtrace: tracing, buffers $(nproc) x 8192 KiB" "$(cat /tmp/bk.st)"
check_eq "... 1024 again after" 1024 "$(cat $K/buffer_kb)"
check_eq "... no note" 1 "$(grep -c . /tmp/bk.txt)"
check "record with -b 64" \
	sh -c "kmemtrace-record -b 64 -o /tmp/bk -- sh -c 'cat $K/buffer_kb > /tmp/bk.kb' > /tmp/bk.txt 2>&1"
check_eq "-b 64: buffer_kb 64 while recording" 64 "$(cat /tmp/bk.kb)"
check_eq "... 1024 again after" 1024 "$(cat $K/buffer_kb)"
echo 16384 > $K/buffer_kb
check "record without -b, buffer_kb 16384" \
	sh -c "kmemtrace-record -o /tmp/bk -- sh -c 'cat $K/buffer_kb > /tmp/bk.kb' > /tmp/bk.txt 2>&1"
check_eq "a larger buffer_kb stays while recording" 16384 "$(cat /tmp/bk.kb)"
check_eq "... and after" 16384 "$(cat $K/buffer_kb)"
echo 1024 > $K/buffer_kb
rm -rf /tmp/bk

# A link where the recorder saves (its directory may be the sudo user's,
# given to that user): not followed; the recording fails, saying why.
mkdir -p /tmp/bl
echo precious > /tmp/victim
ln -s /tmp/victim /tmp/bl/caches
check "a link where it saves: the recorder fails" \
	sh -c "! kmemtrace-record -o /tmp/bl -- true > /tmp/bl.txt 2>&1"
check "... saying why" grep -q 'caches: Too many levels of symbolic links' /tmp/bl.txt
check_eq "... and leaves the link's target as it was" precious "$(cat /tmp/victim)"
rm -rf /tmp/bl /tmp/victim

# --- A tiny buffer with a reader that does not read: overruns.
check "record with a 16 KiB buffer (-b 16), reading late" \
	sh -c "kmemtrace-record -b 16 --lazy -o $OUT/tiny -- sh -c 'echo churn $N > $LEAKY' > /tmp/rec3.txt"
cat /tmp/rec3.txt
cp /tmp/rec3.txt $OUT/tiny.record.txt
lost=$(head -n 1 $K/total_overruns)
check "total_overruns is not 0 ($lost)" test "$lost" -gt 0
check "the recorder reports the loss" grep -q "events written, $lost lost" /tmp/rec3.txt
check "and per CPU" grep -q "^kmemtrace-record: cpu[0-9]* lost [0-9]* events" /tmp/rec3.txt
check_eq "-b 16 set back to 1024" 1024 "$(cat $K/buffer_kb)"

# --- Packets given back through the mapping (SLABTRACE_CTF_IOC_PUT_PACKETS,
# the recorder's way above): on a stopped trace, whose stop closed each
# CPU's packet, 0 is a no-op, another command is not the file's, 9 are
# more than a CPU has; one at a time, every closed packet goes back, and
# poll finds nothing left.  Then a packet half read cannot be given back.
# On x86, the same through the 32-bit compat ioctl.
PUTS="zero=ok other=ENOTTY nine=EINVAL put=[1-9][0-9]* refused=EINVAL ready=0"
for rr in relay_reader relay_reader32; do
	[ $rr = relay_reader ] || [ "$(uname -m)" = x86_64 ] || continue
	check "$rr: start for the packets given back" st kmemtrace start
	echo churn $N > $LEAKY
	check "$rr: stop" st kmemtrace stop
	$rr -P $K/cpu[0-9]* > /tmp/put.txt
	check "$rr -P: $(cat /tmp/put.txt)" grep -qx "$PUTS" /tmp/put.txt
	check "$rr: start for a packet half read" st kmemtrace start
	echo churn $N > $LEAKY
	check "$rr: stop" st kmemtrace stop
	check_eq "$rr -R: a packet half read is not given back" "read=1 put=EINVAL" \
		"$($rr -R $K/cpu0)"
done
# A reader waiting in poll() on a stopped trace's buffer, read to its end,
# wakes at the next start: POLLERR, the buffer is an earlier trace's.
check "start: a trace to read" st kmemtrace start
echo churn $N > $LEAKY
check "its stop" st kmemtrace stop
relay_reader -W $K/cpu0 > /tmp/wait.txt &
waiter=$!
check "relay_reader -W: waiting in poll()" until_true 30 grep -q '^waiting$' /tmp/wait.txt
sleep 1
check "a new start" st kmemtrace start
check "... wakes the reader waiting in poll() with POLLERR" \
	until_true 30 grep -q '^poll=ERR ' /tmp/wait.txt
check "kmemtrace stop" st kmemtrace stop
kill $waiter 2> /dev/null
wait $waiter 2> /dev/null
# A cpuN file is not opened for writing, nor its buffer mapped at an
# offset (relay's fault handler would add it to the buffer's address) or
# writable.
check_eq "relay_reader -O: no write open, no mapping at an offset, none writable" \
	"rdwr=EACCES offset=EINVAL write=EACCES" "$(relay_reader -O $K/cpu0)"
logged "kmemtrace: cpuN: opened for writing: refused, the file is read-only" \
	"kmemtrace: cpu0: mapped at offset 4 KiB: refused, a mapping starts at 0" \
	"kmemtrace: cpu0: mapped writable: refused, the buffer is read-only"
logged "kmemtrace: cpu0: more packets given back than closed (9 > " \
	"kmemtrace: cpu0: more packets given back than closed (1 > 0)" \
	"kmemtrace: cpu0: packets given back while one is half read"

# --- A cache named with a quote, a backslash and a space (oddcache.ko),
# created and allocated from while recording: the caches file has one
# word for it, escaped as the dumps write names, and the metadata the
# same word as its label, escaped for a TSDL literal, so that babeltrace2
# reads the trace (on the host, scripts/tests/test_kmemtrace.py).  Its
# kallsyms is not kept (babeltrace2 needs none; /out stays small).
# On x86 only (the host reads the x86 guests' recordings): the recorder's
# copy of kallsyms takes minutes on an emulated arm64 under load.
if [ "$(uname -m)" = x86_64 ]; then
	check "record oddcache's load" \
		sh -c "kmemtrace-record -o $OUT/odd -- insmod $MODDIR/oddcache.ko > /tmp/rec7.txt"
	check "the metadata's label of the cache 'oddcache \"q\\ name' is the caches file's, escaped" \
		grep -qF '"oddcache\134x20\042q\134\134\134x20name" = ' $OUT/odd/ctf/metadata
	check "the caches file has it as one word" \
		grep -qF ' oddcache\x20"q\\\x20name' $OUT/odd/caches
	# 'oddmerge, b' (merged with 'oddmerge' or not): one name, its comma
	# escaped where a cache's names are joined with ','.
	check "the caches file lists 'oddmerge, b' as one name" \
		grep -qE ' (oddmerge,)?oddmerge\\x2c\\x20b(,oddmerge)?$' $OUT/odd/caches
	check "... and so does the metadata's label" \
		grep -qF 'oddmerge\134x2c\134x20b' $OUT/odd/ctf/metadata
	rm -f $OUT/odd/kallsyms
	# slab_trace's stats file: one word too, escaped as the dumps write
	# names ("start all": no ctl word holds a space).
	check "start all" st start all
	check "slab/stats has it as one word, escaped as the dumps write names" \
		grep -qF 'cache oddcache\x20"q\\\x20name tracing ' $ST/slab/stats
	check "stop all" st stop all
	check "reset all" st reset all
	check "rmmod oddcache" rmmod oddcache
	# Twelve names of one merged cache, too long for the listing: as
	# many as fit, then ",+N", N the names left out, which with those
	# listed are all the names /sys/kernel/slab has for the cache.
	check "record oddcache many=1's load" \
		sh -c "kmemtrace-record -o $OUT/many -- insmod $MODDIR/oddcache.ko many=1 > /tmp/rec8.txt"
	rm -f $OUT/many/kallsyms
	dir=$(readlink /sys/kernel/slab/oddmany_a_long_name_to_fill_kmemtrace_listing_00)
	if [ -n "$dir" ]; then
		total=0
		for n in /sys/kernel/slab/*; do
			[ "$(readlink "$n")" = "$dir" ] && total=$((total + 1))
		done
		names=$(awk '/oddmany_/ { print $4 }' $OUT/many/caches)
		listed=$(echo "$names" | tr ',' '\n' | grep -vc '^+')
		more=$(echo "$names" | sed -n 's/.*,+\([0-9]*\)$/\1/p')
		check "the caches file: one line for the merged cache" \
			test "$(grep -c oddmany_ $OUT/many/caches)" = 1
		check "... its names fit in 384 bytes" test "${#names}" -le 384
		check "... and end with ',+N': $names" test -n "$more"
		check_eq "... those listed and N: all $total names" \
			"$total" "$((listed + ${more:-0}))"
	else
		skip_checks "4 checks: the oddmany caches are not merged on this kernel"
	fi
	check "rmmod oddcache many=1" rmmod oddcache
else
	skip_checks "a cache named with a quote: recorded on x86 only (kallsyms is slow to copy here)"
fi

# --- Other users' traces.  One running: the recorder does not start.
echo 1 > $K/enable
kmemtrace-record -o /tmp/busy -- true > /tmp/rec6.txt 2>&1
check_eq "a trace running: the recorder exits 1" 1 $?
check "... saying so" grep -q "^kmemtrace-record: kmemtrace is running already, another process's trace" /tmp/rec6.txt
check_eq "... and leaves it running" 1 "$(cut -c1 $K/enable)"
echo 0 > $K/enable
# Stopped and started again by another process while recording: an
# error, nothing saved, the other trace left running.  That trace took
# the recorder's 8 MiB, and buffer_kb cannot change while it runs: a
# second line says the old size was not set back.
kmemtrace-record -o /tmp/restart -- sh -c \
	"echo churn 100 > $LEAKY; echo 0 > $K/enable; echo 1 > $K/enable; echo churn 100 > $LEAKY" \
	> /tmp/rec7.txt 2>&1
check_eq "a restart while recording: exit 1" 1 $?
cat /tmp/rec7.txt
check "... saying so in one line" sh -c \
	"grep -c . /tmp/rec7.txt | grep -qx 2 && head -n 1 /tmp/rec7.txt | grep -q '^kmemtrace-record: the trace was restarted by another process (trace [0-9a-f-]*, now [0-9a-f-]*): nothing saved$'"
check_eq "... and that the buffer stays" \
	"kmemtrace-record: could not set the buffer back ($K/buffer_kb: 1024): kmemtrace: buffer_kb: cannot change while tracing" \
	"$(sed -n 2p /tmp/rec7.txt)"
check "... saving nothing" test ! -e /tmp/restart
check_eq "... and the other trace still runs" 1 "$(cut -c1 $K/enable)"
echo 0 > $K/enable
check_eq "... with buffer_kb 8192" 8192 "$(cat $K/buffer_kb)"
echo 1024 > $K/buffer_kb
# Stopped by another process: what came until then is saved; exit 1.
kmemtrace-record -o /tmp/stopped -- sh -c "echo churn 100 > $LEAKY; echo 0 > $K/enable" \
	> /tmp/rec8.txt 2>&1
check_eq "a stop by another process: exit 1" 1 $?
check "... saying so" grep -q '^kmemtrace-record: the trace was stopped by another process before the end' /tmp/rec8.txt
check "... with what came until then saved" test -s /tmp/stopped/ctf/metadata

# --- leaky_widget destroyed during a trace (rmmod leaky) and made again
# (insmod leaky): two ids, the first named as destroyed.
echo 4096 > $K/buffer_kb
check "kmemtrace start (every cache)" st kmemtrace start
echo churn 10 > $LEAKY
check "rmmod leaky while traced" rmmod leaky
check "insmod leaky.ko again" insmod $MODDIR/leaky.ko
echo churn 10 > $LEAKY
check "kmemtrace stop" st kmemtrace stop
cp $K/caches $OUT/reload.caches
check_eq "the destroyed leaky_widget keeps its id" 1 \
	"$(grep -c "^[0-9]* $size 0 leaky_widget(destroyed)\$" $OUT/reload.caches)"
check_eq "the new leaky_widget has another" 1 \
	"$(grep -c "^[0-9]* $size $slab leaky_widget\$" $OUT/reload.caches)"
echo 1024 > $K/buffer_kb

# --- Start at load, and rmmod while recording: refused (the recorder has
# the cpuN files mapped), then done once it stopped.
check "rmmod leaky" rmmod leaky
check "rmmod slabtrace" rmmod slabtrace
check "insmod slabtrace.ko kmemtrace=1 kmemtrace_buffer_kb=64" \
	insmod $MODDIR/slabtrace.ko kmemtrace=1 kmemtrace_buffer_kb=64
check_eq "enabled at load" 1 "$(cat $K/enable)"
check_eq "buffer_kb from the parameter" 64 "$(cat $K/buffer_kb)"
echo 0 > $K/enable
(while :; do cat /proc/slabinfo > /dev/null; done) 2>/dev/null &
storm=$!
kmemtrace-record -o /tmp/rm > /tmp/rec4.txt 2>&1 &
rec=$!
check "the recording started" until_true 30 stream_recording $K
sleep 1
check "rmmod slabtrace is refused while recording" rmmod_in_use
kill $storm $rec 2>/dev/null
wait 2>/dev/null
check "rmmod slabtrace once the recorder stopped" rmmod slabtrace
check "insmod slabtrace.ko again" insmod $MODDIR/slabtrace.ko
check "rmmod slabtrace" rmmod slabtrace
check "a bad kmemtrace_buffer_kb fails the load" sh -c "! insmod $MODDIR/slabtrace.ko kmemtrace_buffer_kb=7"
logged "kmemtrace_buffer_kb=7: not a multiple of 8 in 16..65536"

# --- The recorder says what is wrong, as the slabtrace command does.
err=$(kmemtrace-record -o /tmp/none -- true 2>&1)
check_eq "module not loaded" \
	"kmemtrace-record: the slabtrace module is not loaded, and none is installed for this kernel ($(uname -r)): install the slabtrace-dkms package; from a checkout: make && sudo insmod slabtrace.ko" "$err"
umount /sys/kernel/debug
err=$(kmemtrace-record -o /tmp/none -- true 2>&1)
check_eq "module not loaded, debugfs not mounted: the module is the cause" \
	"kmemtrace-record: the slabtrace module is not loaded, and none is installed for this kernel ($(uname -r)): install the slabtrace-dkms package; from a checkout: make && sudo insmod slabtrace.ko" "$err"
mount -t debugfs debugfs /sys/kernel/debug

# Each trace saved its kallsyms (7 MB on 6.12), the same file when no
# module came or went between them: kept once, as hard links, which the
# tar stream of /out to the host carries once.
for d in $OUT/*/; do
	[ "$d" = $OUT/all/ ] || ! cmp -s $OUT/all/kallsyms "$d/kallsyms" ||
		ln -f $OUT/all/kallsyms "$d/kallsyms"
done
finish
