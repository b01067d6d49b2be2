#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of make bench-peers (scripts/bench/peers.sh boots it as
# /init's work in the peers rootfs, scripts/vm/debian-rootfs.sh peers).  Every traced
# run of a workload (/bench/wl) is paired with an untraced run just before
# it; each pair is one line on the console:
#
#   BENCH PART TOOL ROUND UNTRACED_NS TRACED_NS EVENTS LOST
#
# NS are guest nanoseconds, which under -icount shift=0 are guest
# instructions; EVENTS the events the tool had to handle in the traced run
# (allocations in the traced caches for part 1, each with its free in
# the same run; system calls for part 2); LOST what it lost of
# them ("-" where the tool has no way to lose any or to say).  Other lines:
# "INFO ..." (caches, versions, start-up times), "FAIL ...", and
#
#   NA PART TOOL REASON
#
# for a row whose start command this module rejects (a slabtrace
# without "start all" or sampling): the row is reported, not failed.
#
# Kernel parameters (environment): bench_pairs (5), bench_files (file
# churn iterations, 10000), bench_getpid (getpid() calls, 100000),
# bench_parts (1,2,3,4,5), bench_frag_files (part 5's churn, 2000),
# bench_sample (part 1's sampling rows: 1 allocation in 100),
# bench_sample_bytes (part 1's sampled-bytes row: 1 per 32768 bytes),
# bench_leak_every (part 1's leaking churn keeps every 30th file: about
# 1 % of its allocations),
# bench_scale (outstanding records for part 4,
# comma separated: 1000000), bench_text_max (read the whole text dump
# of at most this many records: 1000000), bench_tools (only the rows of
# these tools, comma separated, each a whole name like kptrace:binary or
# the name before the ':' like slabtrace: all), bench_profile (also
# profile with perf, PROFILE lines: "slabtrace" its probes on the churn's
# caches, a tool of part 2 like kptrace:binary the getpid() calls it
# traces, "kmemtrace" part 3's recording of the churn; none by default),
# bench_kptrace_kb (kptrace:binary's -b; "default", the default: none).
set -u

PAIRS=${bench_pairs:-5}
FILES=${bench_files:-10000}
GETPIDS=${bench_getpid:-100000}
KPTRACE_KB=${bench_kptrace_kb:-default}
PARTS=${bench_parts:-1,2,3,4,5}
FRAG_FILES=${bench_frag_files:-2000}
SAMPLE=${bench_sample:-100}
SAMPLE_BYTES=${bench_sample_bytes:-32768}
LEAK_EVERY=${bench_leak_every:-30}
SCALE=$(echo "${bench_scale:-1000000}" | tr , ' ')
TOOLS=${bench_tools:-all}
PROFILE=${bench_profile:-}
B=/bench
ST=/proc/slabtrace
T=/sys/kernel/tracing

info() { echo "INFO $*"; }
# wl_ns WORKLOAD...: one run's guest ns.  The files a leaking churn kept
# go first, outside the clock: a run that found them would open them
# without allocating their inodes.
wl_ns() {
	rm -f /tmp/wl.*
	"$B/wl" "$@" | sed -n 's/^ns=\([0-9]*\).*/\1/p'
}
now_ns() { date +%s%N; }

# wait_for FILE PATTERN SECONDS PID: until FILE has a line matching
# PATTERN; fails at once if process PID has exited.
wait_for() {
	local n=$(($3 * 10))
	while ! grep -q "$2" "$1" 2>/dev/null; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		kill -0 "$4" 2>/dev/null || return 1
		sleep 0.1
	done
}

# stop_bg PID: SIGINT, then SIGKILL after 20 s (bpftrace 0.17 can hang on
# SIGINT).
stop_bg() {
	local n=200
	kill -INT "$1" 2>/dev/null
	while kill -0 "$1" 2>/dev/null; do
		n=$((n - 1))
		if [ "$n" -le 0 ]; then
			echo "INFO watchdog: SIGKILL to $(cat /proc/$1/comm 2>/dev/null) $1"
			kill -KILL "$1" 2>/dev/null
			break
		fi
		sleep 0.1
	done
	wait "$1" 2>/dev/null
}

# started NAME T0: log a tool's start-up time (wall clock, guest ns).
started() { info "startup $1 $(( ($(now_ns) - $2) / 1000000 )) ms"; }

# --- Part 1: leak tracing of the file churn.

# The kmem events of one churn, from the kernel's hist triggers:
# kmem_cache_free by cache name (6.12's kmem_cache_alloc event has no
# name; in a churn, frees match allocations), kmalloc by bytes_alloc.
HIST_CA='hist:keys=common_pid'
HIST_CF='hist:keys=name:sort=hitcount.descending:size=256'
HIST_KM='hist:keys=bytes_alloc:sort=hitcount.descending:size=256'
HIST_KF='hist:keys=common_pid'
count_kmem() {
	local e c n
	echo "$HIST_CA" > "$T/events/kmem/kmem_cache_alloc/trigger"
	echo "$HIST_CF" > "$T/events/kmem/kmem_cache_free/trigger"
	echo "$HIST_KM" > "$T/events/kmem/kmalloc/trigger"
	echo "$HIST_KF" > "$T/events/kmem/kfree/trigger"
	"$B/wl" files "$FILES" > /dev/null
	for e in kmem_cache_alloc kmalloc kmem_cache_free kfree; do
		cat "$T/events/kmem/$e/hist" > "/tmp/hist.$e"
	done
	echo "!$HIST_CA" > "$T/events/kmem/kmem_cache_alloc/trigger"
	echo "!$HIST_CF" > "$T/events/kmem/kmem_cache_free/trigger"
	echo "!$HIST_KM" > "$T/events/kmem/kmalloc/trigger"
	echo "!$HIST_KF" > "$T/events/kmem/kfree/trigger"
	KMEM_EVENTS=0
	for e in kmem_cache_alloc kmalloc kmem_cache_free kfree; do
		n=$(sed -n 's/^ *Hits: *//p' "/tmp/hist.$e")
		info "kmem events of one churn: $e ${n:-?}"
		KMEM_EVENTS=$((KMEM_EVENTS + ${n:-0}))
	done
	info "kmem events of one churn: total $KMEM_EVENTS"
	# Allocations per cache: "NAME COUNT", most first.
	{
		sed -n 's/^{ name: *\([^ }]*\) *} hitcount: *\([0-9]*\)/\1 \2/p' /tmp/hist.kmem_cache_free
		sed -n 's/^{ bytes_alloc: *\([0-9]*\) *} hitcount: *\([0-9]*\)/kmalloc-\1 \2/p' /tmp/hist.kmalloc |
			sed 's/^kmalloc-1024 /kmalloc-1k /; s/^kmalloc-2048 /kmalloc-2k /; s/^kmalloc-4096 /kmalloc-4k /; s/^kmalloc-8192 /kmalloc-8k /'
	} | sort -k2,2nr > /tmp/percache
	sed 's/^/INFO per cache: /' /tmp/percache | head -n 20
	# The caches the churn allocates from at least once per 2 iterations,
	# and the events (allocations and frees) in them.
	CACHES=$(awk -v min=$((FILES / 2)) '$2 >= min { print $1 }' /tmp/percache | paste -sd' ')
	ONE=${BENCH_ONE:-${CACHES%% *}}
	EV_ALL=$(awk -v min=$((FILES / 2)) '$2 >= min { s += $2 } END { print s + 0 }' /tmp/percache)
	EV_ONE=$(awk -v c="$ONE" '$1 == c { print $2; exit }' /tmp/percache)
	KMEM_ALLOCS=$(awk '{ s += $2 } END { print s + 0 }' /tmp/percache)
	info "caches the churn uses: $CACHES"
	info "one cache: $ONE"
	info "allocations in the traced caches: one ${EV_ONE:=0}, all $EV_ALL, every cache $KMEM_ALLOCS"
}

# leak_size: the objects one leaking churn leaves in the churn's caches,
# counted by slabtrace (records still outstanding after the run), against
# the churn's allocations; and what the sampled rows should see of them.
leak_size() {
	local c n total=0 per='' sizes=''
	rm -f /tmp/wl.*
	if ! slab_start "$CACHES"; then
		echo "FAIL leak_size: a start failed:"
		sed 's/^/FAIL   /' /tmp/slabtrace.out
		return
	fi
	"$B/wl" leak "$FILES" "$LEAK_EVERY" > /dev/null
	for c in $CACHES; do
		echo "stop $c" > $ST/ctl
		echo "print $c top 1" > $ST/ctl
		n=$(sed -n 's/.*, \([0-9]*\) outstanding (.*/\1/p' $ST/ctl | head -n 1)
		echo "reset $c" > $ST/ctl
		total=$((total + ${n:-0}))
		per="$per $c ${n:-?}"
		sizes="$sizes $c $(cat "/sys/kernel/slab/$c/object_size" 2>/dev/null || echo 0) ${n:-0}"
	done
	info "leak: every ${LEAK_EVERY}th file kept, $((FILES / LEAK_EVERY)) files a run, $total objects left in the churn's caches ($(awk -v l=$total -v a="$KMEM_ALLOCS" 'BEGIN { printf "%.2f", 100 * l / a }') % of its $KMEM_ALLOCS allocations; sampling 1 in $SAMPLE):$per"
	leak_expect "$sizes"
	rm -f /tmp/wl.*
}

# leak_expect "CACHE SIZE LEFT...": the records a run a sampled row
# should make, of the leak (none with the chance e^-records) and in all,
# from the churn's allocations per cache (/tmp/percache) and their object
# sizes (the bytes sample-bytes draws by: p = 1 - exp(-size / B)).
leak_expect() {
	printf '%s\n' "$1" | awk -v b="$SAMPLE_BYTES" -v n="$SAMPLE" -v ev="$EV_ALL" '
	FNR == NR { alloc[$1] = $2; next }
	{
		for (i = 1; i + 2 <= NF; i += 3) {
			p = 1 - exp(-$(i + 1) / b)
			leak += $(i + 2) * p; left += $(i + 2)
			bytes += $(i + 2) * $(i + 1)
			all += alloc[$i] * p
			sizes = sizes " " $i " " $(i + 1)
		}
	}
	END {
		printf "INFO leak sampled: object sizes:%s; the leak %d bytes a run\n", sizes, bytes
		printf "INFO leak sampled: sample %d records about %.1f of the leak a run, %.0f of the %d allocations in the churn'"'"'s caches\n", n, left / n, ev / n, ev
		printf "INFO leak sampled-bytes: sample-bytes %d records about %.1f of the leak a run, %.0f of the %d allocations in the churn'"'"'s caches\n", b, leak, all, ev
	}' /tmp/percache -
}

# slab_start CACHES: start each; a cache that does not start fails the
# row (start_tool says why), with the ones started stopped again.
slab_start() {
	local c
	for c in $1; do
		echo "start $c" > $ST/ctl 2> /tmp/slabtrace.out && continue
		slab_stop "$1" 2> /dev/null
		return 1
	done
}
# slab_lost: LOST, the records the traced caches dropped (the stats
# file's pool_empty, limit_reached and in_NMI: the header's "records
# dropped"), read before their reset clears them.
slab_lost() {
	LOST=$(awk '$1 == "cache" {
		for (i = 3; i < NF; i++)
			if ($i == "pool_empty" || $i == "limit_reached" || $i == "in_NMI")
				d += $(i + 1)
	} END { print d + 0 }' $ST/slab/stats)
}
slab_stop() {
	local c
	for c in $1; do
		echo "stop $c" > $ST/ctl
	done
	slab_lost
	for c in $1; do
		echo "reset $c" > $ST/ctl
	done
}

# wanted TOOL: whether bench_tools asks for TOOL's rows.
wanted() {
	[ "$TOOLS" = all ] && return 0
	case ,$TOOLS, in *,"$1",* | *,"${1%%:*}",*) return 0 ;; esac
	return 1
}

# start_tool TOOL WORKLOAD...: start_TOOL, or say why it did not start.
# Returns 2 if start_TOOL did (the module rejects the row's command: an
# NA line), 1 if it failed.
start_tool() {
	local rc
	start_"${1%%:*}" "$@"
	rc=$?
	[ "$rc" -eq 0 ] && return 0
	[ "$rc" -eq 2 ] && return 2
	echo "FAIL $1 did not start:"
	sed 's/^/FAIL   /' /tmp/"${1%%:*}".out 2>/dev/null | tail -n 30
	[ -n "${BG:-}" ] && kill -KILL "$BG" 2>/dev/null
	return 1
}

# pair PART TOOL ROUND EVENTS WORKLOAD...: untraced run, then
# tool_start TOOL, traced run, tool_stop TOOL; one BENCH line.
pair() {
	local part=$1 tool=$2 round=$3 ev=$4 base traced
	shift 4
	wanted "$tool" || return 0
	base=$(wl_ns "$@")
	LOST=-
	start_tool "$tool" "$@" || { [ $? -eq 2 ] && echo "NA $part $tool $NA"; return; }
	if [ -n "${WRAP:-}" ]; then
		rm -f /tmp/wl.*
		traced=$($WRAP "$B/wl" "$@" 2> /tmp/wrap.err | tee /tmp/wrap.out |
			sed -n 's/^ns=\([0-9]*\).*/\1/p')
	else
		traced=$(wl_ns "$@")
	fi
	stop_"${tool%%:*}" "$tool" "$@"
	case $base,$traced in
	*[!0-9,]* | ,* | *,)
		echo "FAIL $tool round $round: a run gave no time (untraced '$base', traced '$traced')"
		[ -n "${WRAP:-}" ] && sed 's/^/FAIL   /' /tmp/wrap.err | tail -n 10
		return
		;;
	esac
	echo "BENCH $part $tool $round $base $traced $ev $LOST"
}

# bracket PART TOOL EVENTS WORKLOAD...: for the tools whose start-up
# takes minutes under TCG (bcc compiles its program with clang, bpftrace
# with LLVM): one untraced run, tool_start, PAIRS traced runs, tool_stop,
# one untraced run; each traced run is paired with the mean of the two
# untraced runs around them.  One BENCH line per traced run.
bracket() {
	local part=$1 tool=$2 ev=$3 b1 b2 r
	local -a traced
	shift 3
	wanted "$tool" || return 0
	b1=$(wl_ns "$@")
	LOST=-
	start_tool "$tool" "$@" || { [ $? -eq 2 ] && echo "NA $part $tool $NA"; return; }
	for r in $(seq "$PAIRS"); do
		traced[$r]=$(wl_ns "$@")
		if ! kill -0 "$BG" 2>/dev/null; then
			echo "FAIL $tool exited during traced run $r:"
			tail -n 20 /tmp/"${tool%%:*}".out | sed 's/^/FAIL   /'
			traced[$r]=
		fi
	done
	stop_"${tool%%:*}" "$tool" "$@"
	b2=$(wl_ns "$@")
	info "bracket $tool untraced before $b1 after $b2"
	case $b1,$b2 in
	*[!0-9,]* | ,* | *,)
		echo "FAIL $tool: an untraced run gave no time"
		return
		;;
	esac
	for r in $(seq "$PAIRS"); do
		[ -n "${traced[$r]}" ] &&
			echo "BENCH $part $tool $r $(((b1 + b2) / 2)) ${traced[$r]} $ev $LOST"
	done
}

# slab_try CMD: run a start command the module may not have (return 2,
# NA says why).
slab_try() {
	local err
	err=$( (echo "$1" > $ST/ctl) 2>&1) && return 0
	NA="the module rejects '$1': ${err##*: }"
	return 2
}

# leak_found WHO TEXT: where the leaking churn's stacks (made by open())
# rank among TEXT's outstanding stacks, given largest first, each
# starting with a line that does not start with a blank: an INFO line.
leak_found() {
	printf '%s\n' "$2" | awk -v who="$1" '
	/^[^ \t]/ { n++ }
	n && /openat/ && !rank { rank = n }
	END {
		if (rank == 1)
			printf "INFO leak %s: found, the leaking stack first of %d\n", who, n
		else if (rank)
			printf "INFO leak %s: found, the leaking stack number %d of %d\n", who, rank, n
		else
			printf "INFO leak %s: NOT found in %d stacks\n", who, n
	}'
}

# leak_first WHO FILE: whether the largest outstanding stack, by
# estimated bytes, of a print of every cache ("print all stacks top 1") in
# FILE was made by open() (the leaking churn's).  The print is a line
# "Print of all: T caches, N with outstanding objects, most bytes first",
# then each cache's dump: "Dumping outstanding allocs from CACHE (by
# stack, top 1)", its header lines down to "-------------------------",
# and its largest stack by bytes, "Stack 1: 3 objects, 2256 bytes (...),
# age ..., from ..., estimated 300 objects (225600 bytes) in syscall
# openat:", "----", its frames (" #01 [<...>] in do_sys_openat2+0x...")
# and a blank line.  Sampled 1 in N, a stack's estimated bytes are N times
# its bytes: a cache's largest stack is its largest estimated, and the
# largest of the caches' first stacks the largest of all.
leak_first() {
	awk -v who="$1" '
	/^Print of [^ ]*: [0-9]+ caches, / { summary = $0; next }
	/^Dumping outstanding allocs from / {
		cache = substr($0, 33)
		sub(/ \(by stack.*$/, "", cache)
		cur = 0
		next
	}
	/^Stack [0-9]+: / {
		cur = ++n
		name[n] = cache
		# Sampled: ", estimated X objects (Y bytes)"; else the bytes.
		if (match($0, /, estimated [0-9]+ objects \([0-9]+ bytes\)/)) {
			e = substr($0, RSTART, RLENGTH)
			sub(/^.*\(/, "", e)
			sub(/ bytes\)$/, "", e)
		} else {
			e = $0
			sub(/^Stack [0-9]+: [0-9]+ objects?, /, "", e)
			sub(/ bytes.*$/, "", e)
		}
		est[n] = e + 0
		isopen[n] = /openat/
		next
	}
	/^$/ { cur = 0; next }
	cur && /openat/ { isopen[cur] = 1 }
	END {
		if (summary == "") {
			printf "INFO leak %s: NOT found: no \"Print of\" line (not a print of a word)\n", who
			exit
		}
		for (i = 1; i <= n; i++) {
			if (!top || est[i] > est[top])
				top = i
			if (isopen[i] && (!lead || est[i] > est[lead]))
				lead = i
		}
		rank = 0
		for (i = 1; lead && i <= n; i++)
			if (est[i] > est[lead] || (est[i] == est[lead] && i < lead))
				rank++
		if (!n)
			printf "INFO leak %s: NOT found: no stack (%s)\n", who, summary
		else if (top == lead)
			printf "INFO leak %s: found, the leaking stack first of %d caches'"'"' first stacks (%s, %d bytes estimated)\n", who, n, name[lead], est[lead]
		else if (lead)
			printf "INFO leak %s: found, the leaking stack number %d of %d caches'"'"' first stacks (%s, %d bytes estimated; first %s, %d bytes)\n", who, rank + 1, n, name[lead], est[lead], name[top], est[top]
		else
			printf "INFO leak %s: NOT found in %d caches'"'"' first stacks (first %s, %d bytes estimated)\n", who, n, name[top], est[top]
	}' "$2"
}

# slab_leak WHO: stop the churn's caches, traced sampled (1 in N or by
# bytes), and say what they found: the estimated objects and bytes
# outstanding (the leak), and in which caches the first stack was made by
# open() (the leaking churn's).
slab_leak() {
	local c est bytes total=0 total_bytes=0 found='' other=''
	for c in $CACHES; do
		echo "stop $c" > $ST/ctl
	done
	slab_lost
	for c in $CACHES; do
		echo "print $c top 1" > $ST/ctl
		cat $ST/ctl > /tmp/leak.out
		# "sampled 1 in N: estimated X outstanding (Y bytes); ..." or
		# "sampled 1 per B bytes: estimated X outstanding (Y bytes); ..."
		read -r est bytes < <(sed -n \
			-e 's/^sampled 1 in [0-9]*: estimated \([0-9]*\) outstanding (\([0-9]*\) bytes).*/\1 \2/p' \
			-e 's/^sampled 1 per [0-9]* bytes: estimated \([0-9]*\) outstanding (\([0-9]*\) bytes).*/\1 \2/p' \
			/tmp/leak.out | head -n 1)
		total=$((total + ${est:-0}))
		total_bytes=$((total_bytes + ${bytes:-0}))
		if [ "${est:-0}" -gt 0 ]; then
			if grep -q openat /tmp/leak.out; then
				found="$found $c"
			else
				other="$other $c"
			fi
		fi
		echo "reset $c" > $ST/ctl
	done
	info "leak $1: estimated $total objects outstanding ($total_bytes bytes); the first stack made by open() in:${found:- none}; by something else in:${other:- none}"
}

# slab_start_sampled RATE: "start CACHE RATE" for each of the churn's
# caches ("sample N", "sample-bytes B"); if the module rejects one, none
# stays traced (return 2, NA says why).
slab_start_sampled() {
	local c d
	for c in $CACHES; do
		slab_try "start $c $1" && continue
		for d in $CACHES; do
			echo "stop $d" > $ST/ctl
			echo "reset $d" > $ST/ctl
		done 2> /dev/null
		return 2
	done
}

# slab_module KO: slabtrace's module replaced by $B/KO, idle (no cache
# traced), outside the runs' clocks.
slab_module() {
	busybox rmmod slabtrace && busybox insmod "$B/$1" ||
		{ echo "FAIL loading $1"; return 1; }
}

# slabtrace:one, :all (the churn's caches, by name), :every ("start all":
# every cache); on the leaking churn, :sampled (the churn's caches, "start
# CACHE sample N"), :sampled-bytes (the churn's caches, "start CACHE
# sample-bytes B") and :every-sampled ("start all sample N"); :one-nolife
# and :every-nolife as :one and :every, with the build of the module whose
# free path counts no lifetimes for the leak verdicts (peers.sh).
start_slabtrace() {
	case $1 in
	*:one-nolife)
		slab_module slabtrace-nolife.ko || return 1
		# Failed, the row is not run: the module of the next rows back.
		slab_start "$ONE" || { slab_module slabtrace.ko; return 1; }
		;;
	*:every-nolife)
		slab_module slabtrace-nolife.ko || return 1
		slab_try "start all" || { slab_module slabtrace.ko; return 2; }
		;;
	*:one) slab_start "$ONE" ;;
	*:every) slab_try "start all" ;;
	*:every-sampled) slab_try "start all sample $SAMPLE" ;;
	*:sampled) slab_start_sampled "sample $SAMPLE" ;;
	*:sampled-bytes) slab_start_sampled "sample-bytes $SAMPLE_BYTES" ;;
	*) slab_start "$CACHES" ;;
	esac
}
stop_slabtrace() {
	case $1 in
	*:one-nolife)
		slab_stop "$ONE"
		slab_module slabtrace.ko
		;;
	*:every-nolife)
		echo "stop all" > $ST/ctl
		slab_lost
		echo "reset all" > $ST/ctl
		slab_module slabtrace.ko
		;;
	*:one) slab_stop "$ONE" ;;
	*:sampled | *:sampled-bytes) slab_leak "$1" ;;
	*:every | *:every-sampled)
		echo "stop all" > $ST/ctl
		slab_lost
		if [ "$1" = slabtrace:every-sampled ]; then
			echo "print all stacks top 1" > $ST/ctl
			cat $ST/ctl > /tmp/leak.out
			leak_first "$1" /tmp/leak.out
		fi
		echo "reset all" > $ST/ctl
		;;
	*) slab_stop "$CACHES" ;;
	esac
}

# memleak:all, :combined (--combined-only), :sampled (-s N; the leaking
# churn's stacks are looked for in its last report, which comes every 5
# s of guest time: the stop waits for one).
start_memleak() {
	local t0 opt=
	[ "$1" = memleak:combined ] && opt=--combined-only
	[ "$1" = memleak:sampled ] && opt="-s $SAMPLE"
	t0=$(now_ns)
	# Python buffers its own output: stdbuf does not reach it.
	PYTHONUNBUFFERED=1 memleak-bpfcc $opt > /tmp/memleak.out 2>&1 &
	BG=$!
	wait_for /tmp/memleak.out 'Attaching to kernel allocators' 600 "$BG" || return 1
	sleep 1
	started "$1" "$t0"
}
stop_memleak() {
	if [ "$1" = memleak:sampled ]; then
		sleep 6
		# Its reports: "[time] Top 10 stacks with outstanding
		# allocations:", then "\tN bytes in M allocations from
		# stack" and the frames, the largest last: the last report's
		# stacks, largest first, one line each.
		leak_found "$1" "$(awk '/stacks with outstanding allocations/ { n = 0; next }
			/bytes in [0-9]* allocations from stack/ { n++; st[n] = $0; next }
			n { st[n] = st[n] " " $0 }
			END { for (i = n; i > 0; i--) { sub(/^[ \t]*/, "", st[i]); print st[i] } }' /tmp/memleak.out)"
	fi
	stop_bg "$BG"
}

cat > /tmp/leak.bt <<'EOF'
BEGIN { printf("ready\n"); }
tracepoint:kmem:kmem_cache_alloc { @a[args->ptr] = kstack; }
tracepoint:kmem:kmalloc { @a[args->ptr] = kstack; }
tracepoint:kmem:kmem_cache_free { delete(@a[args->ptr]); }
tracepoint:kmem:kfree { delete(@a[args->ptr]); }
END { clear(@a); }
EOF

start_bpftrace() {
	local t0
	t0=$(now_ns)
	stdbuf -oL -eL bpftrace /tmp/leak.bt > /tmp/bpftrace.out 2>&1 &
	BG=$!
	wait_for /tmp/bpftrace.out '^ready' 600 "$BG" || return 1
	sleep 1
	started "$1" "$t0"
}
stop_bpftrace() {
	stop_bg "$BG"
	# "Lost N events", once per read of the perf buffer that lost some:
	# the sum, for the bracket's runs together.
	LOST=$(awk '{ for (i = 1; i < NF; i++) if ($i == "Lost" && $(i + 1) ~ /^[0-9]+$/) s += $(i + 1) }
		END { print s + 0 }' /tmp/bpftrace.out)
	[ "$LOST" = 0 ] && LOST=-
}

# --- Part 2: system call tracing of getpid().

# kptrace:binary: kmemtrace-record -s into /tmp (tmpfs), the binary
# stream, with -b KPTRACE_KB unless that is "default" (the recorder's own
# size, 16 MiB a CPU: under the emulator's round robin of the two CPUs,
# getpid() back to back filled 8 MiB before the recorder ran in some runs,
# benchmarks.rst); LOST is what its packets say was discarded
# (events_discarded).
start_kptrace() {
	echo "syscall clear" > $ST/ctl
	if [ "$1" = kptrace:binary ]; then
		# Not the last run's "recording" line: wait_for may look first.
		rm -rf /tmp/kb /tmp/kptrace.out
		bopt=
		[ "$KPTRACE_KB" = default ] || bopt="-b $KPTRACE_KB"
		# shellcheck disable=SC2086 # bopt: none, or -b and its number
		"$B/kmemtrace-record" -s $bopt -c wl -o /tmp/kb > /tmp/kptrace.out 2>&1 &
		BG=$!
		wait_for /tmp/kptrace.out '^kmemtrace-record: recording' 60 "$BG" || return 1
		return 0
	fi
	if [ "$1" = kptrace:reader ]; then
		cat $ST/kptrace/pipe > /dev/null &
		BG=$!
		sleep 0.2
	fi
	echo "syscall start comm wl" > $ST/ctl
}
stop_kptrace() {
	if [ "$1" = kptrace:binary ]; then
		kill -INT "$BG"
		wait "$BG" 2>/dev/null
		LOST=$(sed -n 's/^kmemtrace-record: the packets say \([0-9]*\) discarded$/\1/p' /tmp/kptrace.out)
		info "kptrace $1: $(grep -v recording /tmp/kptrace.out | tr '\n' ' ') bytes $(du -sb /tmp/kb/ctf | cut -f1); summary $(grep '^getpid' $ST/kptrace/summary | tr -s ' '); queue $(tr '\n' ' ' < $ST/kptrace/stats)"
		echo "syscall clear" > $ST/ctl
		return
	fi
	echo "syscall stop" > $ST/ctl
	LOST=$(sed -n 's/^dropped: //p' $ST/kptrace/stats)
	if [ "$1" = kptrace:reader ]; then
		sleep 1
		kill "$BG" 2>/dev/null
		wait "$BG" 2>/dev/null
	fi
	info "kptrace $1 stats: $(tr '\n' ' ' < $ST/kptrace/stats)"
	echo "syscall clear" > $ST/ctl
}

SYSCOUNT=$(command -v syscount || command -v bpf-syscount || command -v syscount-bpfcc)
start_syscount() {
	local t0
	t0=$(now_ns)
	stdbuf -oL -eL "$SYSCOUNT" > /tmp/syscount.out 2>&1 &
	BG=$!
	wait_for /tmp/syscount.out 'Tracing\|Ctrl' 600 "$BG" || return 1
	sleep 1
	started "$1" "$t0"
}
stop_syscount() {
	local n
	stop_bg "$BG"
	# System-wide: the count includes the other processes' few getpid()s.
	n=$(awk '$1 == "getpid" { print $2 }' /tmp/syscount.out | head -n 1)
	[ -n "$n" ] && LOST=$(($3 > n ? $3 - n : 0))
	[ -n "$n" ] || { info "syscount output:"; sed 's/^/INFO   /' /tmp/syscount.out | head -n 20; }
}

start_perf() { WRAP="perf trace -s -o /tmp/perf.out --"; }
stop_perf() {
	local n
	WRAP=
	n=$(awk '$1 == "getpid" { print $2; exit }' /tmp/perf.out)
	info "perf trace: LOST $(sed -n 's/.*LOST \([0-9]*\) events.*/\1/p' /tmp/perf.out | awk '{ s += $1 } END { print s + 0 }') events"
	[ -n "$n" ] && LOST=$(($3 - n))
	[ -n "$n" ] || { info "perf trace output:"; sed 's/^/INFO   /' /tmp/perf.out | head -n 30; }
}

start_strace() { WRAP="strace -c -f -o /tmp/strace.out"; }
stop_strace() {
	local n
	WRAP=
	n=$(awk '$NF == "getpid" { print $4; exit }' /tmp/strace.out)
	[ -n "$n" ] && LOST=$(($3 - n))
	[ -n "$n" ] || { info "strace output:"; sed 's/^/INFO   /' /tmp/strace.out | head -n 20; }
}

# --- Part 3: event streams of the churn, every kmem event written to a
# file in /tmp (tmpfs): kmemtrace-record (slabtrace's relay stream, the
# four slab events), perf kmem record (perf's ring buffers, the slab
# events), trace-cmd record -e kmem (ftrace's, every kmem event: page
# allocations and rss_stat too).  LOST is what the tool says it lost;
# the INFO line gives the events written and the bytes.

PAIRS_DONE_TC=
# The recording in a directory of its own: next to the churn's files in
# /tmp it made tmpfs's offset tree of /tmp work harder in later pairs
# (maple_node frees 611 -> 30,600 a run; benchmarks.rst, part 3).
mkdir -p /tmp/ktd
start_kmemtrace() { rm -rf /tmp/ktd/kt; WRAP="$B/kmemtrace-record -o /tmp/ktd/kt --"; }
stop_kmemtrace() {
	WRAP=
	LOST=$(sed -n 's/^kmemtrace-record: [0-9]* events written, \([0-9]*\) lost.*/\1/p' /tmp/wrap.out)
	info "stream kmemtrace events $(sed -n 's/^kmemtrace-record: \([0-9]*\) events written.*/\1/p' /tmp/wrap.out) bytes $(du -sb /tmp/ktd/kt/ctf | cut -f1)"
	rm -rf /tmp/ktd/kt
}
start_perfkmem() { rm -f /tmp/perf.data; WRAP="perf kmem record -q -o /tmp/perf.data --"; }
stop_perfkmem() {
	local ev
	WRAP=
	# "LOST events: N", "LOST_SAMPLES events: N", "SAMPLE events: N (x%)"
	perf report -i /tmp/perf.data --stats > /tmp/perf.stats 2>/dev/null
	LOST=$(awk '$1 ~ /^LOST/ && $2 == "events:" { s += $3 } END { print s + 0 }' /tmp/perf.stats)
	ev=$(awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }' /tmp/perf.stats)
	info "stream perfkmem events ${ev:-?} bytes $(stat -c %s /tmp/perf.data)"
	rm -f /tmp/perf.data
}
start_tracecmd() { rm -f /tmp/tc.dat; WRAP="trace-cmd record -e kmem -o /tmp/tc.dat"; }
stop_tracecmd() {
	local ev
	WRAP=
	# The per-CPU buffer stats it saved: "overrun: N", "dropped events:
	# N", "read events: N".  Its data is compressed: bytes per event are
	# given uncompressed too ("N bytes in size (M uncompressed)").
	trace-cmd report --stat -i /tmp/tc.dat > /tmp/tc.stat 2>&1
	LOST=$(awk '$1 == "overrun:" { s += $2 } $1 == "dropped" && $2 == "events:" { s += $3 } END { print s + 0 }' /tmp/tc.stat)
	ev=$(awk '$1 == "read" && $2 == "events:" { s += $3 } END { print s + 0 }' /tmp/tc.stat)
	info "stream tracecmd events $ev bytes $(stat -c %s /tmp/tc.dat) uncompressed $(sed -n 's/.*(\([0-9]*\) uncompressed).*/\1/p' /tmp/wrap.err | awk '{ s += $1 } END { print s + 0 }')"
	[ "$PAIRS_DONE_TC" ] || { sed 's/^/INFO   trace-cmd --stat: /' /tmp/tc.stat | head -n 40; PAIRS_DONE_TC=1; }
	rm -f /tmp/tc.dat
}

# --- Part 4: scale.  N outstanding kmalloc-64 objects (the leaky module's
# "bufs", kmalloc(50) each), kept untraced and then traced: the difference
# in MemAvailable is what slabtrace holds for N records, all included
# (records, table, stacks, pool).  Then the time of each read-out, and the
# memory held after a print and after reset.  One line each:
#   SCALE N WHAT VALUE UNIT

# mem: the memory counters the scale part reads, in bytes, one line.
mem() {
	awk '/^(MemFree|Slab|SUnreclaim|VmallocUsed|Percpu|KernelStack|PageTables):/ { printf "%s %.0f ", $1, $2 * 1024 } END { print "" }' /proc/meminfo
	grep '^slabtrace' /proc/slabinfo | awk '{ printf "slabinfo %s %s objs of %s B; ", $1, $3, $4 } END { print "" }'
}
# used: SUnreclaim + VmallocUsed + Percpu, in bytes: what a module's
# kmalloc, vmalloc and percpu allocations take.
used() { awk '/^(SUnreclaim|VmallocUsed|Percpu):/ { s += $2 } END { printf "%.0f\n", s * 1024 }' /proc/meminfo; }
memavail() { echo $(($(awk '/^MemFree/ { print $2 }' /proc/meminfo) * 1024)); }
# keep N: the leaky module allocates N buffers, 10000 a write (a write
# that allocates a million at once would hold its lock for seconds).
keep() {
	local left=$1 k
	while [ "$left" -gt 0 ]; do
		k=$((left < 10000 ? left : 10000))
		echo "bufs $k" > /sys/kernel/debug/leaky/ctl || { echo "FAIL bufs $k"; return 1; }
		left=$((left - k))
	done
}
# timed WHAT N COMMAND...: guest ns (instructions) of COMMAND.
timed() {
	local what=$1 n=$2 t0 t1
	shift 2
	t0=$(now_ns)
	"$@"
	t1=$(now_ns)
	echo "SCALE $n $what $((t1 - t0)) ns"
}
scale() {
	local n=$1 m0 m1 m2 m3 m4 m5 u0 u1 u2 u3 u4 u5
	sync
	echo "SCALE $n mem-before $(mem)"
	m0=$(memavail); u0=$(used)
	timed "keep-untraced" "$n" keep "$n"
	m1=$(memavail); u1=$(used)
	echo "SCALE $n mem-untraced-kept $(mem)"
	echo free > /sys/kernel/debug/leaky/ctl
	sleep 1
	echo "limit $((n + n / 4))" > $ST/ctl
	echo "pool 65536" > $ST/ctl
	m2=$(memavail); u2=$(used)
	echo "SCALE $n mem-freed-pool-set $(mem)"
	echo "start kmalloc-64" > $ST/ctl
	timed "keep-traced" "$n" keep "$n"
	echo "stop kmalloc-64" > $ST/ctl
	m3=$(memavail); u3=$(used)
	echo "SCALE $n mem-traced-kept $(mem)"
	echo "SCALE $n untraced-keep-bytes $((m0 - m1)) B (MemFree), $((u1 - u0)) B (SUnreclaim+VmallocUsed+Percpu)"
	echo "SCALE $n traced-keep-bytes $((m2 - m3)) B (MemFree), $((u3 - u2)) B (SUnreclaim+VmallocUsed+Percpu)"
	echo "SCALE $n bytes-per-record $(( (u3 - u2 - (u1 - u0)) / n )) B"
	echo "SCALE $n stats $(grep -E '^(records|table|pool)' $ST/slab/stats | tr '\n' ' ')"
	timed print "$n" sh -c "echo 'print kmalloc-64' > $ST/ctl"
	m4=$(memavail); u4=$(used)
	echo "SCALE $n held-after-print $((u4 - u3)) B ($((m3 - m4)) B MemFree)"
	echo "SCALE $n header $(head -n 2 $ST/ctl | tail -n 1)"
	# The whole dump as text (one object a paragraph): up to a million.
	if [ "$n" -le "${bench_text_max:-1000000}" ]; then
		timed read-text "$n" sh -c "cat $ST/ctl | wc -c > /tmp/textbytes"
		echo "SCALE $n text $(cat /tmp/textbytes) B"
	fi
	timed print-stacks "$n" sh -c "echo 'print kmalloc-64 stacks' > $ST/ctl"
	timed read-stacks "$n" sh -c "cat $ST/ctl > /tmp/stacks.txt"
	echo "SCALE $n stacks-text $(wc -c < /tmp/stacks.txt) B"
	timed read-folded "$n" sh -c "cat $ST/slab/folded > /tmp/folded.txt"
	echo "SCALE $n folded-text $(wc -c < /tmp/folded.txt) B"
	rm -f /tmp/stacks.txt /tmp/folded.txt
	timed reset "$n" sh -c "echo 'reset kmalloc-64' > $ST/ctl"
	echo free > /sys/kernel/debug/leaky/ctl
	sleep 1
	m5=$(memavail); u5=$(used)
	echo "SCALE $n held-after-reset $((u5 - u2)) B ($((m2 - m5)) B MemFree), objects freed too"
	echo "SCALE $n mem-after-reset $(mem)"
}

# profile TOOL WORKLOAD...: where the instructions go while TOOL traces
# WORKLOAD: perf samples every CPU on cpu-clock, which under -icount ticks
# with guest instructions.  The report's top symbols, self and with
# children, as PROFILE lines.
profile() {
	local tool=$1
	shift
	echo 0 > /proc/sys/kernel/kptr_restrict
	echo -1 > /proc/sys/kernel/perf_event_paranoid
	start_tool "$tool" "$@" || return
	# A tool that wraps the workload (kmemtrace-record) wraps perf, which
	# samples every CPU while the workload runs: the recorder's draining
	# is in the profile, its work after the workload (the copy of
	# kallsyms) is not.
	${WRAP:-} perf record -q -e cpu-clock -F 20000 -a -g -o /tmp/perf.data -- \
		"$B/wl" "$@" > /tmp/wrap.out 2> /tmp/perf.err ||
		sed 's/^/FAIL perf record: /' /tmp/perf.err
	stop_"${tool%%:*}" "$tool" "$@"
	perf report -i /tmp/perf.data --stdio --no-children --sort sym \
		-g none --percent-limit 0.3 2> /dev/null | grep -v '^#' |
		grep -v '^$' | head -n 70 | sed 's/^/PROFILE self /'
	perf report -i /tmp/perf.data --stdio --children --sort sym \
		-g none --percent-limit 1 2> /dev/null | grep -v '^#' |
		grep -v '^$' | head -n 70 | sed 's/^/PROFILE children /'
	rm -f /tmp/perf.data
}

# --- Part 5: kmemtrace's fragmentation per call site against perf kmem
# stat --caller's.  One churn recorded by both at once (kmemtrace-record
# runs perf kmem record, which runs the churn); the trace and perf's table
# go to the host as a tar on the second serial port (/dev/ttyS1), whose
# kmemtrace-report and scripts/tests/test_perf_frag.py compare them.
frag() {
	local d=/tmp/frag
	rm -rf $d /tmp/perf.data
	mkdir -p $d
	echo 0 > /proc/sys/kernel/kptr_restrict
	echo "$FRAG_FILES" > $d/files
	uname -r > $d/kernel
	"$B/kmemtrace-record" -o $d/kt -- perf kmem record -q -o /tmp/perf.data -- \
		"$B/wl" files "$FRAG_FILES" > $d/record.txt 2>&1 ||
		{ echo "FAIL frag: the recording:"; sed 's/^/FAIL   /' $d/record.txt | tail -n 20; }
	perf kmem -i /tmp/perf.data --caller stat > $d/perf-kmem-stat.txt 2> $d/perf.err ||
		{ echo "FAIL frag: perf kmem stat:"; sed 's/^/FAIL   /' $d/perf.err | tail -n 20; }
	rm -f /tmp/perf.data
	info "frag: $(grep events $d/record.txt | tr '\n' ' ')"
	stty -F /dev/ttyS1 raw -echo 2>/dev/null
	tar -C $d -czf /dev/ttyS1 . && info "frag: $(du -sb $d | cut -f1) bytes sent to the host"
	rm -rf $d
}

# --- The run.
info "kernel $(uname -r), $(nproc) cpus, $(awk '/MemTotal/ { print $2 }' /proc/meminfo) kB"
for p in bpftrace bpfcc-tools libbpf-tools strace linux-perf trace-cmd; do
	info "version $(dpkg-query -W -f '${Package} ${Version}' $p 2>/dev/null)"
done
info "pairs $PAIRS, churn $FILES files, $GETPIDS getpid()"
t0=$(now_ns)
busybox insmod $B/slabtrace.ko || echo "FAIL insmod slabtrace.ko"
echo "start kmalloc-64" > $ST/ctl
started "slabtrace (insmod, start)" "$t0"
echo "stop kmalloc-64" > $ST/ctl
echo "reset kmalloc-64" > $ST/ctl

case ,$PARTS, in
*,1,*)
	count_kmem
	for r in $(seq "$PAIRS"); do
		pair 1 slabtrace:one "$r" "$EV_ONE" files "$FILES"
		pair 1 slabtrace:one-nolife "$r" "$EV_ONE" files "$FILES"
		pair 1 slabtrace:all "$r" "$EV_ALL" files "$FILES"
	done
	[ "$PROFILE" = slabtrace ] && profile slabtrace:all files "$FILES"
	bracket 1 bpftrace:all "$KMEM_ALLOCS" files "$FILES"
	bracket 1 memleak:all "$KMEM_ALLOCS" files "$FILES"
	bracket 1 memleak:combined "$KMEM_ALLOCS" files "$FILES"
	# "start all", and sampling on the churn that leaks every
	# LEAK_EVERY-th file, against memleak -s at the same rate.
	leak_size
	for r in $(seq "$PAIRS"); do
		pair 1 slabtrace:every "$r" "$KMEM_ALLOCS" files "$FILES"
		pair 1 slabtrace:every-nolife "$r" "$KMEM_ALLOCS" files "$FILES"
		pair 1 slabtrace:sampled "$r" "$EV_ALL" leak "$FILES" "$LEAK_EVERY"
		pair 1 slabtrace:sampled-bytes "$r" "$EV_ALL" leak "$FILES" "$LEAK_EVERY"
		pair 1 slabtrace:every-sampled "$r" "$KMEM_ALLOCS" leak "$FILES" "$LEAK_EVERY"
	done
	bracket 1 memleak:sampled "$KMEM_ALLOCS" leak "$FILES" "$LEAK_EVERY"
	rm -f /tmp/wl.*
	;;
esac

case ,$PARTS, in
*,2,*)
	for r in $(seq "$PAIRS"); do
		pair 2 kptrace:noreader "$r" "$GETPIDS" getpid "$GETPIDS"
		pair 2 kptrace:reader "$r" "$GETPIDS" getpid "$GETPIDS"
		pair 2 kptrace:binary "$r" "$GETPIDS" getpid "$GETPIDS"
		pair 2 syscount "$r" "$GETPIDS" getpid "$GETPIDS"
		pair 2 perf:trace "$r" "$GETPIDS" getpid "$GETPIDS"
		pair 2 strace "$r" "$GETPIDS" getpid "$GETPIDS"
	done
	case $PROFILE in
	"" | slabtrace) ;;
	*) profile "$PROFILE" getpid "$GETPIDS" ;;
	esac
	;;
esac
case ,$PARTS, in
*,3,*)
	[ -n "${KMEM_EVENTS:-}" ] || count_kmem
	for r in $(seq "$PAIRS"); do
		pair 3 kmemtrace "$r" "$KMEM_EVENTS" files "$FILES"
		pair 3 perfkmem "$r" "$KMEM_EVENTS" files "$FILES"
		pair 3 tracecmd "$r" "$KMEM_EVENTS" files "$FILES"
	done
	[ "$PROFILE" = kmemtrace ] && profile kmemtrace files "$FILES"
	;;
esac

case ,$PARTS, in
*,4,*)
	busybox insmod $B/leaky.ko || echo "FAIL insmod leaky.ko"
	for n in $SCALE; do
		scale "$n"
	done
	;;
esac

case ,$PARTS, in
*,5,*) frag ;;
esac
echo "BENCH-DONE"
