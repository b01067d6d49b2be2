#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench-peers: slabtrace and kptrace against the peer tools (bcc's
# memleak, bpftrace, syscount, perf trace, strace) in one boot of Debian's
# 6.12 kernel, in guest instructions.
#
#   scripts/bench/peers.sh            (environment: see below)
#
# Boots the peers rootfs (scripts/vm/debian-rootfs.sh peers, cached) under QEMU TCG
# with -icount shift=0,sleep=off: the guest clock then advances one
# nanosecond per guest instruction, so a run's "time" is the instructions
# both vCPUs executed during it, whatever the host's load.  The guest
# (scripts/bench/peers-guest.sh) pairs every traced run with an untraced one just
# before it; this script turns the pairs into added cost = (traced -
# untraced) / untraced, and guest instructions per traced event =
# (traced - untraced) / events, medians and ranges over the pairs.  A row
# whose start command the module rejects (slabtrace's "start all" and
# sampling rows, on a module without them) is listed as not available.
#
# The rows slabtrace:one-nolife and :every-nolife load a second build of
# the module, build/6.12-nolife (SLABTRACE_NO_LIFETIME=1, Kbuild), whose
# free path does not count lifetimes for the leak verdicts: paired round
# by round with slabtrace:one and :every, the cost of that counting.
#
# Writes build/bench/peers.csv (one row per pair), build/bench/peers.txt
# (the table) and build/bench/console.log, and prints the table; part 5
# leaves its recordings in build/bench/frag/.
#
#   BENCH_PAIRS (5)  BENCH_FILES (10000)  BENCH_GETPID (100000)
#   BENCH_PARTS (1,2,3,4,5)  BENCH_SCALE (1000000)
#   BENCH_FRAG_FILES (2000)  part 5's churn: kmemtrace-report's
#                      fragmentation per call site against perf kmem stat
#                      --caller's (scripts/tests/test_perf_frag.py; the
#                      script exits 1 if they differ); make perf-frag runs
#                      this part alone
#   BENCH_SAMPLE (100)  part 1's sampled rows: slabtrace "start all sample
#                      N" and memleak -s N, on the churn that leaks
#   BENCH_SAMPLE_BYTES (32768)  its sampled-bytes row: slabtrace "start
#                      CACHE sample-bytes B" on the churn's caches
#   BENCH_LEAK_EVERY (30)  that churn keeps every Nth file (wl leak): its
#                      inode and dentry, about 1 % of its allocations
#   BENCH_MEM (3072 MiB)  BENCH_TIMEOUT (7200 s)
#   BENCH_TOOLS (all)  only these tools' rows, comma separated, each a
#                      whole name (kptrace:binary) or the name before the
#                      ':' (slabtrace, memleak): to iterate without waiting
#                      for the minutes bcc and bpftrace take to start
#   BENCH_KPTRACE_KB (default)  kptrace:binary's buffer per CPU, the
#                      recorder's -b; "default": no -b, the recorder's
#                      16384 (benchmarks.rst, part 2, says why)
#   BENCH_PROFILE=TOOL  also profile with perf in the guest (samples by
#                      guest instructions) and print the report's top
#                      symbols (PROFILE lines): "slabtrace" its probes on
#                      the churn's caches, a part 2 tool (kptrace:binary)
#                      the getpid() calls it traces, "kmemtrace" part 3's
#                      recording of the churn (probes and recorder)
#   BENCH_CONSOLE=FILE  only recompute the table from a console log
#   BENCH_OUT (build/bench)  where the files go
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
out=${BENCH_OUT:-$top/build/bench}
mkdir -p "$out"
console=${BENCH_CONSOLE:-}

if [ -z "$console" ]; then
	kdir=$("$top/scripts/kernels/fetch-kernel.sh" 6.12)
	make -C "$top" -s KVER=6.12 test-modules
	# The slabtrace:*-nolife rows' module: the free path without the
	# leak verdicts' lifetime counting (Kbuild).
	"$top/scripts/kbuild/shadow-tree.sh" "$top/build/6.12-nolife"
	"$top/scripts/kbuild/kbuild.sh" "$kdir/build" "$top/build/6.12-nolife" -s \
		SLABTRACE_NO_LIFETIME=1 modules
	rootfs=$("$top/scripts/vm/debian-rootfs.sh" peers 6.12)

	ov=$out/overlay
	rm -rf "$ov"
	mkdir -p "$ov/bench"
	cp "$top/scripts/bench/peers-init" "$ov/init"
	cp "$top/scripts/bench/peers-guest.sh" "$ov/bench/peers.sh"
	cp "$top/build/6.12/slabtrace.ko" "$top/build/6.12/leaky.ko" \
		"$top/build/6.12/bin/kmemtrace-record" "$ov/bench/"
	cp "$top/build/6.12-nolife/slabtrace.ko" "$ov/bench/slabtrace-nolife.ko"
	${CC:-gcc} -static -O2 -Wall -Wextra -Werror -o "$ov/bench/wl" "$top/scripts/bench/wl.c"
	chmod 755 "$ov/init" "$ov/bench/peers.sh"
	# The rootfs, then our files: the kernel unpacks concatenated archives
	# in order, later files replacing earlier ones.
	(cd "$ov" && find . | cpio -o -H newc --quiet) > "$out/overlay.cpio"
	cat "$rootfs" "$out/overlay.cpio" > "$out/initrd.cpio"

	console=$out/console.log
	rm -rf "$out/frag" "$out/frag.tgz"
	echo "bench-peers: booting (icount; this takes a while: tail -f $console)" >&2
	timeout --foreground "${BENCH_TIMEOUT:-7200}" qemu-system-x86_64 \
		-accel tcg,thread=single -icount shift=0,sleep=off \
		-smp 2 -m "${BENCH_MEM:-3072}" -nodefaults -display none -no-reboot -monitor none \
		-kernel "$kdir/vmlinuz" -initrd "$out/initrd.cpio" \
		-append "console=ttyS0 panic=-1 loglevel=4 no_timer_check rdinit=/init bench_pairs=${BENCH_PAIRS:-5} bench_files=${BENCH_FILES:-10000} bench_getpid=${BENCH_GETPID:-100000} bench_parts=${BENCH_PARTS:-1,2,3,4,5} bench_frag_files=${BENCH_FRAG_FILES:-2000} bench_sample=${BENCH_SAMPLE:-100} bench_sample_bytes=${BENCH_SAMPLE_BYTES:-32768} bench_leak_every=${BENCH_LEAK_EVERY:-30} bench_scale=${BENCH_SCALE:-1000000} bench_tools=${BENCH_TOOLS:-all} bench_profile=${BENCH_PROFILE:-} bench_kptrace_kb=${BENCH_KPTRACE_KB:-default}" \
		-serial "file:$console" -serial "file:$out/frag.tgz" < /dev/null > "$out/qemu.log" 2>&1 || true
	rm -f "$out/initrd.cpio" "$out/overlay.cpio"
	rm -rf "$ov"
	sed -i 's/\r$//' "$console"
fi

# A run that did not finish, or a row that failed, fails the command; the
# table keeps what was measured, and the FAIL lines.
rc=0
if ! grep -q '^BENCH-DONE' "$console"; then
	echo "bench-peers: the guest did not finish; the table has what it measured" >&2
	rc=1
fi
grep '^FAIL' "$console" >&2 && rc=1

# Part 5: the guest's tar of the recordings, compared here.
if [ -s "$out/frag.tgz" ]; then
	mkdir -p "$out/frag"
	tar -C "$out/frag" -xzf "$out/frag.tgz" && rm -f "$out/frag.tgz"
	make -s -C "$top" tools
	"$top/scripts/tests/test_perf_frag.py" "$out/frag" > "$out/frag.txt" || rc=1
	cat "$out/frag.txt"
elif [ -z "${BENCH_CONSOLE:-}" ] && case ,${BENCH_PARTS:-1,2,3,4,5}, in *,5,*) ;; *) false ;; esac; then
	echo "bench-peers: part 5 brought no recording back" >&2
	rc=1
fi
grep -q '^FAIL frag' "$console" && rc=1

csv=$out/peers.csv
grep '^SCALE [0-9]* [a-z-]* [0-9-]* ' "$console" | awk '{ print $2 "," $3 "," $4 "," $5 }' > "$out/scale.csv"
echo "part,tool,round,untraced_ns,traced_ns,events,lost,added_cost,ins_per_event" > "$csv"
grep '^BENCH [0-9]' "$console" | awk '
{
	added = ($6 - $5) / $5
	per = $7 > 0 ? ($6 - $5) / $7 : 0
	printf "%s,%s,%s,%s,%s,%s,%s,%.4f,%.0f\n", $2, $3, $4, $5, $6, $7, $8, added, per
}' >> "$csv"

# The table: per tool, the median and range of the added cost and of the
# instructions per event, the median of the untraced run, and the losses.
table=$out/peers.txt
{
	grep '^INFO \(kernel\|version\|pairs\|caches\|one cache\|kmem events of one churn: total\|allocations in the traced\|startup\|leak\)' "$console" |
		sed 's/^INFO /# /' | sort | uniq -c | awk '{ c = $1; $1 = ""; sub(/^ /, ""); print $0 (c > 1 ? "  (x" c ")" : "") }'
	tail -n +2 "$csv" | sort -t, -k1,1n -k2,2 -s | awk -F, '
	function median(a, n,   i, j, t) {
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function flush(   m, p, b) {
		if (!n)
			return
		m = median(ac, n); lo = ac[1]; hi = ac[n]
		p = median(pe, n); plo = pe[1]; phi = pe[n]
		b = median(un, n)
		printf "%-4s %-23s %5d %12.0f %14d %9.3f %7.3f-%-7.3f %8.0f %7.0f-%-7.0f %s\n", part, tool, n, b, ev, m, lo, hi, p, plo, phi, lost
		n = 0; lost = ""
	}
	BEGIN {
		printf "%-4s %-23s %5s %12s %14s %9s %15s %8s %15s %s\n", "part", "tool", "pairs", "untraced_ns", "events/run", "added", "added range", "ins/ev", "ins/ev range", "lost per run"
	}
	{
		if ($1 != part || $2 != tool)
			flush()
		part = $1; tool = $2; ev = $6
		n++
		ac[n] = $8; pe[n] = $9; un[n] = $4
		lost = lost (lost == "" ? "" : " ") $7
	}
	END { flush() }'
	# Rows whose command the module rejected.
	grep '^NA ' "$console" | sort -u | awk '{
		p = $2; t = $3; $1 = $2 = $3 = ""; sub(/^ +/, "")
		printf "%-4s %-23s not available: %s\n", p, t, $0
	}'
	# Part 3's streams: events written and bytes, per run.
	grep '^INFO stream ' "$console" | awk '
	{
		n[$3]++
		ev[$3] = ev[$3] " " $5
		if ($5 > 0)
			bpe[$3] = bpe[$3] sprintf(" %.1f", $7 / $5) ($9 > 0 ? sprintf(" (%.1f uncompressed)", $9 / $5) : "")
	}
	END {
		for (t in n)
			printf "stream %-10s events written:%s; bytes per event:%s\n", t, ev[t], bpe[t]
	}' | sort
	grep '^SCALE ' "$console" | sed 's/^SCALE /scale /'
	grep '^FAIL' "$console" || true
} > "$table"
cat "$table"
echo "bench-peers: $csv, $table, $console" >&2
exit $rc
