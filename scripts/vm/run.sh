#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Boot a Debian kernel under QEMU with a busybox initramfs holding our modules
# and guest tests, run the named tests, and judge the console.
#
#   scripts/vm/run.sh [-o OUTDIR] [-t SECONDS] [-k] [-r ROOTFS] [-a FILE]...
#                     KVER TEST[,TEST...]
#
# KVER is 6.1, 6.12, 6.1-rt, 6.12-rt, 6.1-arm64, 6.12-arm64 or 6.12-debug; the modules
# must already be built in build/KVER/ (make KVER=... test-modules).  Each
# TEST is scripts/vm/guest/TEST.sh; the guides' shell examples
# (scripts/lint/doc-examples.py) are in the guest's /tests/doc-examples.txt.
# Files the guest leaves in /out are copied (tar over a virtio serial
# port; over the second UART on an x86 kernel without virtio_console) to
# OUTDIR.  -k keeps the console log in OUTDIR
# even on success.  -a FILE puts FILE in the guest's /lib/slabtrace too.
#
# -r ROOTFS boots a Debian root file system (an uncompressed cpio archive
# from scripts/vm/debian-rootfs.sh) instead of busybox: the guest has Debian's
# programs, and of ours only /init, /tests and /lib/slabtrace, unpacked
# over it.
#
# x86-64 kernels boot in qemu-system-x86_64 (console ttyS0); arm64 kernels
# in qemu-system-aarch64 -M virt -cpu max (console ttyAMA0) with Debian's
# busybox-static:arm64 (scripts/kernels/fetch-kernel.sh) in the initramfs.
# SLABTRACE_ARM64_CPU overrides the CPU model (max,pauth=off boots about
# three times faster: pointer authentication is slow to emulate;
# max,lpa2=off is a CPU without LPA2, on which a kernel built for 52-bit VA
# runs with 48, its linear map 2^52 - 2^48 above PAGE_OFFSET).
#
# Each test has its own time budget: its "# vm-budget: SECONDS" line, else
# 600 s, twice that on arm64, three times on the debug kernel; /init stops
# a test that overruns it ("FAIL: TEST: ran out of its budget of Ns") and
# runs the next.  -t SECONDS is the whole run's timeout, by default the
# sum of the budgets, a minute each more, a boot and 5 minutes.  The line
# "TIME: vm: TEST Ns of Bs, ..." says how long each took.
#
# The run fails on: a FAIL line, a test exiting non-zero, a missing END or
# DONE marker (guest hung, crashed or timed out), or a kernel splat in the
# console (scripts/vm/splats.sh).  The last line is "vm KVER: N passed, N failed", plus ", N
# skipped" when a guest test printed "SKIP: test: why" (it cannot run on
# this kernel or arch) instead of its checks.
#
# A boot that never reaches /init (a panic while booting, or no "ST-VM:
# kernel" line within SLABTRACE_BOOT_TIMEOUT seconds, default 180 and a
# second per MiB of initramfs) is
# retried once; if the second boot fails too, the run is one failure,
# "FAIL: vm: boot failed twice, no test ran (...)", not test failures.
# A booted guest whose tests print nothing (kernel messages aside; /init
# says "ST-VM: ALIVE" every minute while a test runs) and that sends no
# byte of /out for SLABTRACE_IDLE_TIMEOUT seconds (default 180) is
# stopped and fails the run ("guest hung"): its user space no longer
# runs.  A test a minute past its budget, which /init could not stop, is
# too; an oops ends it at once (oops=panic, -no-reboot).
#
# The guest's crng is not ready when the tests run (TCG, no entropy
# device), and %p would print "(____ptrval____)" until it is: the kernel
# is booted with debug_boot_weak_hash, which hashes pointers without it.
#
# SLABTRACE_APPEND adds kernel parameters to every boot (make stress:
# "slub_debug=FZPU init_on_free=1 stress_secs=N"; a NAME=VALUE the kernel
# does not know reaches the guest tests as an environment variable).
#
# SLABTRACE_ACCEL overrides the accelerator (default tcg,thread=single; KVM
# cannot boot these kernels on this project's machines).
# SLABTRACE_VM_MEM is the guest's memory in MiB (default 1024; the lowmem
# test wants 256).
#
# The debug kernel (6.12-debug: KASAN, lockdep, PREEMPT_RT) runs the guest
# several times slower: its timeouts (the budgets, the boot's, the idle
# one) are three times as long (arm64's, emulated, twice), and it is
# booted with kasan_multi_shot, so that every KASAN report is printed,
# not only the first.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/vm/splats.sh"
out=
tmo=
keep=
rootfs=
extra=
while getopts o:t:kr:a: opt; do
	case $opt in
	o) out=$OPTARG ;;
	t) tmo=$OPTARG ;;
	k) keep=1 ;;
	r) rootfs=$OPTARG ;;
	a) extra="$extra
$OPTARG" ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
kver=${1:?usage: scripts/vm/run.sh [-o OUTDIR] [-t SECONDS] [-k] [-r ROOTFS] [-a FILE]... KVER TEST[,TEST...]}
tests=${2:?no tests named}
# slow: the factor of the timeouts (the boot's, the idle one) and of each
# test's budget, for guests that run slower: the debug kernel's, and
# arm64's (emulated -cpu max).
slow=1
case $kver in *-debug) slow=3 ;; *-arm64) slow=2 ;; esac
idle_tmo=${SLABTRACE_IDLE_TIMEOUT:-$((180 * slow))}
accel=${SLABTRACE_ACCEL:-tcg,thread=single}

kdir=$("$top/scripts/kernels/fetch-kernel.sh" "$kver")
bdir=$top/build/$kver
work=$(mktemp -d "${TMPDIR:-/tmp}/slabtrace-vm.XXXXXX")
qpid=
trap '[ -z "$qpid" ] || kill "$qpid" 2>/dev/null; rm -rf "$work"' EXIT

# The machine: QEMU, its options, the console, and the device /init
# sends /out to: a virtio serial port (/dev/vport0p1), into out.tar.  On
# x86 a second UART too (/dev/ttyS1, into out-serial.tar), which /init
# takes when the kernel has no virtio console: it carried /out before,
# at about 200 KB/s under TCG (80 s for 16 MB; the virtio port: 2 s).
outdev="-device virtio-serial-pci -chardev file,id=out,path=$work/out.tar -device virtserialport,chardev=out"
case $kver in
*-arm64)
	qemu="qemu-system-aarch64 -M virt -cpu ${SLABTRACE_ARM64_CPU:-max}"
	cons=ttyAMA0
	append=
	busybox=$kdir/busybox ;;
*)
	qemu="qemu-system-x86_64"
	cons=ttyS0
	# SLABTRACE_OUT_UART=1: no virtio port (scripts/tests/test_runner.sh).
	if [ -n "${SLABTRACE_OUT_UART:-}" ]; then
		outdev="-serial file:$work/out-serial.tar"
	else
		outdev="-serial file:$work/out-serial.tar $outdev"
	fi
	append=no_timer_check
	busybox=/bin/busybox ;;
esac
[ "$slow" -eq 1 ] || append="$append kasan_multi_shot"

# initramfs: busybox, init, guest tests, our modules, guest programs;
# over a Debian root file system (-r), only init, tests and modules, these
# in usr/lib/slabtrace: bookworm's /lib is a symlink to usr/lib, and the
# kernel would replace it with an entry "lib" of ours.
root=$work/root
mods=$root/lib/slabtrace
[ -z "$rootfs" ] || mods=$root/usr/lib/slabtrace
mkdir -p "$root/tests" "$mods"
[ -n "$rootfs" ] || mkdir -p "$root/bin" "$root/sbin" "$root/proc" "$root/sys" \
	"$root/dev" "$root/tmp" "$root/out"
if [ -z "$rootfs" ]; then
	cp "$busybox" "$root/bin/busybox"
	ln -s busybox "$root/bin/sh"
fi
cp "$top/scripts/vm/guest/init" "$root/init"
cp "$top"/scripts/vm/guest/*.sh "$root/tests/"
# The guides' shell examples, for the guest tests examples and realdeb.
"$top/scripts/lint/doc-examples.py" > "$root/tests/doc-examples.txt" ||
	echo "vm $kver: scripts/lint/doc-examples.py failed: no examples for the guest" >&2
chmod 755 "$root/init"
for ko in "$bdir"/*.ko; do
	[ -e "$ko" ] && cp "$ko" "$mods/"
done
echo "$extra" | while read -r f; do
	[ -z "$f" ] || cp "$f" "$mods/"
done
# The kernel's modules for the /out port where they are not built in
# (6.1: virtio_pci, virtio_console; on amd64 virtio and virtio_ring too),
# loaded by /init from /lib/boot in this order.
n=0
boot=$root/lib/boot
[ -z "$rootfs" ] || boot=$root/usr/lib/boot
for m in virtio/virtio_ring virtio/virtio virtio/virtio_pci_modern_dev \
	virtio/virtio_pci_legacy_dev virtio/virtio_pci char/virtio_console; do
	ko=$kdir/modules/kernel/drivers/$m.ko
	[ -e "$ko" ] || continue
	mkdir -p "$boot"
	n=$((n + 1))
	cp "$ko" "$boot/$n-${m#*/}.ko"
done
if [ -d "$bdir/bin" ] && [ -z "$rootfs" ]; then
	cp -r "$bdir/bin/." "$root/bin/"
fi
(cd "$root" && find . | cpio -o -H newc --quiet) > "$work/initrd.cpio"
gzip -1 "$work/initrd.cpio"
# The kernel unpacks concatenated archives in order, later files over
# earlier ones.
cat ${rootfs:+"$rootfs"} "$work/initrd.cpio.gz" > "$work/initrd"
rm "$work/initrd.cpio.gz"

# The boot's timeout: 180 s, and a second per MiB of initramfs, which the
# kernel unpacks before /init says a word (a Debian root file system is
# 470 MiB: more than 180 s under TCG on a busy host).
boot_tmo=${SLABTRACE_BOOT_TIMEOUT:-$(((180 + ($(stat -c %s "$work/initrd") >> 20)) * slow))}
# The whole run's timeout, a backstop for a guest that stops no test
# (/init stops a test that overruns its budget): each test's budget (its
# "# vm-budget:" line, else 600 s, times slow, as /init reads it) and a
# minute more, a boot, and the transfer of /out.
if [ -z "$tmo" ]; then
	tmo=$((boot_tmo + 300))
	for t in $(echo "$tests" | tr , ' '); do
		b=$(sed -n 's/^# vm-budget: \([0-9][0-9]*\)$/\1/p' \
			"$top/scripts/vm/guest/$t.sh" 2>/dev/null | head -n 1)
		tmo=$((tmo + ${b:-600} * slow + 60))
	done
fi

console=$work/console.log
# boot: one QEMU run; rc is QEMU's exit status (124: the timeout).  A
# boot that does not reach /init's first line ("ST-VM: kernel") within
# $boot_tmo seconds is stopped there: it is a boot failure, not a test's.
# A booted guest whose tests print nothing for $idle_tmo seconds is hung
# (a dead kernel after an oops, a deadlock, a guest that only prints RCU
# stall reports): it is stopped too, rather than left to the overall
# timeout.  Progress is a console line that is not a kernel message
# (kernel messages start with "[ seconds]").
booted=0
hung=0
overran=
boot() {
	: > "$console"
	: > "$work/out.tar"
	: > "$work/out-serial.tar"
	rc=0
	stopped=
	# shellcheck disable=SC2086
	timeout --foreground "$tmo" $qemu \
		-accel "$accel" -smp 2 -m "${SLABTRACE_VM_MEM:-1024}" -nodefaults -display none \
		-no-reboot -monitor none \
		-kernel "$kdir/vmlinuz" -initrd "$work/initrd" \
		-append "console=$cons panic=-1 oops=panic loglevel=7 ${append:+$append }noirqdebug debug_boot_weak_hash st_slow=$slow st_tests=$tests${SLABTRACE_APPEND:+ $SLABTRACE_APPEND}${1:+ $1}" \
		-serial "file:$console" $outdev \
		< /dev/null > "$work/qemu.log" 2>&1 &
	qpid=$!
	waited=0
	idle=0
	size=-1
	outsize=0
	cur=
	began=0
	while kill -0 "$qpid" 2>/dev/null; do
		sleep 1
		waited=$((waited + 1))
		if [ "$booted" -eq 0 ]; then
			if grep -q '^ST-VM: kernel' "$console"; then
				booted=1
			elif [ "$waited" -ge "$boot_tmo" ]; then
				stopped="no /init after ${boot_tmo}s, stopped"
				kill "$qpid" 2>/dev/null || true
				break
			fi
			continue
		fi
		# Progress: a line of the tests, or bytes of /out.
		now=$(grep -vc '^\[' "$console" || true)
		outnow=$(stat -c %s "$work/out.tar" "$work/out-serial.tar")
		if [ "$now" = "$size" ] && [ "$outnow" = "$outsize" ]; then
			idle=$((idle + 1))
		else
			idle=0
			size=$now
			outsize=$outnow
		fi
		if [ "$idle" -ge "$idle_tmo" ]; then
			hung=1
			kill "$qpid" 2>/dev/null || true
			break
		fi
		# A test a minute past its budget: /init's watchdog could not
		# stop it (a task stuck in the kernel).
		now=$(grep -E '^ST-VM: (BEGIN|END) ' "$console" | tail -n 1 | tr -d '\r')
		[ "$now" = "$cur" ] || { cur=$now; began=$waited; }
		case $cur in
		"ST-VM: BEGIN "*" budget="*s)
			b=${cur##* budget=}
			b=${b%s}
			if [ $((waited - began)) -ge $((b + 60)) ]; then
				overran="${cur#ST-VM: BEGIN }"
				kill "$qpid" 2>/dev/null || true
				break
			fi ;;
		esac
	done
	wait "$qpid" || rc=$?
	qpid=
	grep -q '^ST-VM: kernel' "$console" && booted=1
	return 0
}

# boot_failure: why the last boot did not reach /init, in one line.
boot_failure() {
	sed -e 's/\r$//' "$console" | grep -E 'Kernel panic|BUG:|Oops' | head -n 1 | grep . ||
		echo "${stopped:-qemu exited with $rc}; last console line: '$(sed -e 's/\r$//' "$console" | tail -n 1)'"
}

# Under host load, TCG guests sometimes die while booting (FACTS.md: "IO-APIC
# + timer doesn't work!" on 2 of 5 rt boots; no_timer_check skips that
# check).  A boot that never reached /init is retried once; its console is
# kept as boot1-console.log in OUTDIR.  SLABTRACE_BOOT1_APPEND adds
# kernel parameters to the first boot only: "rdinit=/nonexistent" makes it
# fail, to see the retry work.
boot "${SLABTRACE_BOOT1_APPEND:-}"
boot_note=
if [ "$booted" -eq 0 ]; then
	why=$(boot_failure)
	boot_note="first boot did not reach /init ($why); retried"
	echo "vm $kver: $boot_note" >&2
	if [ -n "$out" ]; then
		mkdir -p "$out"
		sed -e 's/\r$//' "$console" > "$out/boot1-console.log"
	fi
	boot
fi

if [ "$booted" -eq 0 ]; then
	sed -e 's/\r$//' "$console" > "$work/console.txt"
	why=$(boot_failure)
	echo "FAIL: vm: boot failed twice, no test ran ($why)"
	if [ -n "$out" ]; then
		mkdir -p "$out"
		cp "$work/console.txt" "$out/console.log"
	else
		echo "--- console (last 30 lines) ---"
		tail -n 30 "$work/console.txt"
	fi
	echo "vm $kver: 0 passed, 1 failed"
	exit 1
fi

unpacked=1
if [ -n "$out" ]; then
	mkdir -p "$out"
	[ -s "$work/out.tar" ] || mv "$work/out-serial.tar" "$work/out.tar"
	if [ -s "$work/out.tar" ] && ! tar -C "$out" -xf "$work/out.tar"; then
		unpacked=0
		cp "$work/out.tar" "$out/out.tar"
	fi
fi

sed -e 's/\r$//' "$console" > "$work/console.txt"
exec 3>&1
judge() {
	c=$work/console.txt
	grep -E '^(PASS|FAIL|SKIP): ' "$c" || true
	npass=$(grep -c '^PASS: ' "$c" || true)
	nfail=$(grep -c '^FAIL: ' "$c" || true)
	nskip=$(grep -c '^SKIP: ' "$c" || true)
	if [ -n "$overran" ]; then
		echo "FAIL: vm: test ${overran% *} ran a minute past its budget of ${overran##*=}, which /init could not stop: guest stopped"
		nfail=$((nfail + 1))
	elif [ "$hung" -eq 1 ]; then
		echo "FAIL: vm: guest hung: no test output for ${idle_tmo}s, stopped"
		nfail=$((nfail + 1))
	elif [ "$rc" -eq 124 ]; then
		echo "FAIL: vm: guest timed out after ${tmo}s"
		nfail=$((nfail + 1))
	elif [ "$rc" -ne 0 ]; then
		echo "FAIL: vm: qemu exited with $rc: $(tail -n 3 "$work/qemu.log")"
		nfail=$((nfail + 1))
	fi
	times=
	for t in $(echo "$tests" | tr , ' '); do
		end=$(grep "^ST-VM: END $t rc=" "$c" | tail -n 1)
		trc=$(echo "$end" | sed -n 's/^ST-VM: END [^ ]* rc=\([0-9]*\).*/\1/p')
		case $trc in
		0) # A test passes by its checks: none at all is a failure.
		   if ! grep -Eq "^(PASS|SKIP): $t: " "$c"; then
			echo "FAIL: vm: test $t ran no check"
			nfail=$((nfail + 1))
		   fi ;;
		"") echo "FAIL: vm: test $t did not finish"
		    nfail=$((nfail + 1)) ;;
		*) if ! grep -q "^FAIL: $t: " "$c"; then
			echo "FAIL: vm: test $t exited rc=$trc"
			nfail=$((nfail + 1))
		   fi ;;
		esac
		budget=$(sed -n "s/^ST-VM: BEGIN $t budget=//p" "$c" | tail -n 1)
		[ -z "$end" ] || times="$times${times:+, }$t ${end##* } of $budget"
	done
	# How long each test took, of its budget.
	[ -z "$times" ] || echo "TIME: vm: $times"
	if [ "$unpacked" -eq 0 ]; then
		echo "FAIL: vm: could not unpack the guest's /out"
		nfail=$((nfail + 1))
	fi
	if ! grep -q '^ST-VM: DONE' "$c"; then
		echo "FAIL: vm: guest did not reach DONE"
		nfail=$((nfail + 1))
	fi
	# Splats from /init's first line on: before it, the kernel was
	# booting, nothing of ours had run, and a report then (an RCU stall,
	# a soft lockup of swapper) says that the host starved the guest.
	first=$(grep -n '^ST-VM: kernel' "$c" | head -n 1 | cut -d: -f 1)
	if tail -n +"${first:-1}" "$c" | grep -Eq "$SPLATS"; then
		echo "FAIL: vm: kernel splat in the console:"
		grep -En "$SPLATS" "$c" | awk -F: -v f="${first:-1}" '$1 >= f' |
			head -n 20 | sed 's/^/    /'
		nfail=$((nfail + 1))
	else
		echo "PASS: vm: console free of splats"
		npass=$((npass + 1))
	fi
	if [ "${first:-1}" -gt 1 ] && head -n "$first" "$c" | grep -Eq "$SPLATS"; then
		echo "NOTE: vm: the kernel reported while it booted, before /init and any test (a host too busy for the guest):"
		head -n "$first" "$c" | grep -En "$SPLATS" | head -n 5 | sed 's/^/    /'
	fi
	[ -z "$boot_note" ] || echo "NOTE: vm: $boot_note"
	skipped=
	[ "$nskip" -eq 0 ] || skipped=", $nskip skipped"
	echo "vm $kver: $npass passed, $nfail failed$skipped"
	[ "$nfail" -eq 0 ]
}
status=0
judge || status=1
if [ -n "$out" ] && { [ "$status" -ne 0 ] || [ -n "$keep" ]; }; then
	cp "$work/console.txt" "$out/console.log"
fi
if [ "$status" -ne 0 ] && [ -z "$out" ]; then
	echo "--- console (last 60 lines) ---"
	tail -n 60 "$work/console.txt"
fi
exit $status
