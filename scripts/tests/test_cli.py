#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of the command-line tools on the host: the slabtrace command
(scripts/tools/slabtrace/) and kmemtrace-record (scripts/tools/kmemtrace/)
against a fake tree, a debugfs (or /proc/slabtrace) directory with
slabtrace's files (plain files holding what the module printed in a VM
run, scripts/tests/cli/), a /proc/slabinfo and a /sys/kernel/slab with
merged names as symlinks.  The fake ctl is a plain file: the commands the
program writes are appended to it, after the dump it holds, and the tests
read them back; kmemtrace-record's fake streams are plain files of packets.
Also: every tool's --help and usage errors, the man pages, make tools,
install-tools and uninstall-tools, and what a warning does to a build.

    scripts/tests/test_cli.py [VM_OUT_DIR...] [TEST...]

Builds the programs with make tools into $TMPDIR (or uses $SLABTRACE_BIN
for slabtrace).
With VM output directories (build/KVER/vm-out after the cli guest test),
also parses the guest's "top --json" as JSON; SLABTRACE_REQUIRE_VM_OUT=1
fails rather than skips when there is none.  The last line is "cli: N
passed, N failed".  The VM tests scripts/vm/guest/cli.sh and kmemtrace.sh run
the same programs against the real module.
"""


import fcntl
import json
import os
import pty
import re
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
DUMP = os.path.join(HERE, "cli", "dump-6.12.txt")
STACKS = os.path.join(HERE, "cli", "stacks-6.12.txt")
# "print all" in a 6.12 VM (scripts/vm/guest/many.sh, leaky and bigleak
# keeping 7 widgets, 5 kmalloc(50) and 3 kmalloc(16384)): its summary line
# and three of its 22 caches' dumps, as they came (the summary's count made
# 3); and the module's folded lines of those three after that print.
PRINT_ALL = os.path.join(HERE, "cli", "print-all-6.12.txt")
FOLDED_ALL = os.path.join(HERE, "cli", "folded-all-6.12.txt")
BIN = os.environ.get("SLABTRACE_BIN")
RECORD = None
REPORT = None
VM_OUT = [d for d in sys.argv[1:] if os.path.isdir(d)]
DOC = os.path.join(TOP, "Documentation")

# Every KVER the Makefile knows, in its order (scripts/kernels/fetch-kernel.sh).
KVERS = ("6.1 6.1-rt 6.1-arm64 6.12 6.12-rt 6.12-arm64 6.12-deb13 6.12-deb13-rt 6.12-deb13-arm64 7.2 7.2-rt 7.2-arm64 7.3 7.3-rt 7.3-arm64 next next-rt next-arm64")

STATS = """records 26 limit 330170
table buckets 1024 grow_failed 0 grow_steps 0 most_moved_in_a_step 0
pool free 8166 per_cpu 4096 allocated 8192
stacks deferred 0
probes alloc on free on
cache kmalloc-64 stopped records 26 replaced 0 pool_empty 3 limit_reached 0 in_NMI 0 stack_store_full 1 stack_walk_empty 0
"""
STATS_IDLE = STATS.split("cache ")[0]
STATS_TRACING = STATS.replace(" stopped ", " tracing ")

STATUS = """slabtrace: 1 cache traced or holding records, 26 records (limit 330170), probes attached
cache kmalloc-64: stopped, traced 0.773s, 26 records, drops: pool empty 3, stack store full 1
kptrace: off
next: echo print kmalloc-64 > ctl; cat ctl (its outstanding objects); echo help > ctl: the commands, in dmesg
"""

SLABINFO = """slabinfo - version: 2.1
# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>
leaky_widget         {w}     200    208   19    1 : tunables    0    0    0 : slabdata      1      1      0
kmalloc-8k            16      16   8192    4    8 : tunables    0    0    0 : slabdata      4      4      0
kmalloc-64          {k}    2048     64   64    1 : tunables    0    0    0 : slabdata     32     32      0
dentry              {d}    9000    192   21    1 : tunables    0    0    0 : slabdata    400    400      0
Acpi-Namespace       400     400     48   85    1 : tunables    0    0    0 : slabdata      5      5      0
"""


def dump_of(name, older=None):
    """The VM's dump, as the module would print it for "print NAME
    [older-than OLDER]" (NAME as the dump writes it, escaped)."""
    with open(DUMP) as f:
        text = f.read()
    head = "Dumping outstanding allocs from " + name
    if older:
        head += " (older than %d ms)" % older
    return text.replace("Dumping outstanding allocs from kmalloc-64", head, 1)


def print_of(word="all", older=None):
    """PRINT_ALL as the module would print it for "print WORD
    [older-than OLDER]"."""
    with open(PRINT_ALL) as f:
        text = f.read()
    text = text.replace("Print of all:", "Print of %s:" % word, 1)
    if older:
        text = re.sub(r"(?m)^(Dumping outstanding allocs from \S+)$",
                      r"\1 (older than %d ms)" % older, text)
    return text


def sampled_dump(n, sampling):
    """A dump of N records of 64-byte kmalloc-64 objects, all of one stack,
    with the header's line SAMPLING ("sampled 1 in 10: estimated ...")."""
    dump = ("Dumping outstanding allocs from kmalloc-64\n"
            "traced 1.000s, %d outstanding (%d bytes), 0 records dropped\n"
            "%s; the counts below are of records\n"
            "-------------------------\n" % (n, 64 * n, sampling))
    for _ in range(n):
        dump += ("Obj 0000000000000001, 64 bytes (50 requested), age 0.001s, cpu 0, "
                 "node 0, gfp GFP_KERNEL, from PID 5 sh:\n----\n"
                 " #01 [<0000000000000002>] in f+0x1/0x2\n\n")
    return dump


def build():
    global BIN, RECORD, REPORT
    tmp = tempfile.mkdtemp(prefix="slabtrace-cli.")
    subprocess.run(["make", "--no-print-directory", "-s", "-C", TOP, "tools",
                    "TOOLS_OUT=" + tmp, "WERROR=1"], check=True, stdout=subprocess.DEVNULL)
    BIN = BIN or os.path.join(tmp, "slabtrace")
    RECORD = os.path.join(tmp, "kmemtrace-record")
    if os.path.exists(os.path.join(tmp, "kmemtrace-report")):
        REPORT = os.path.join(tmp, "kmemtrace-report")


class Fake:
    """A debugfs (or /proc/slabtrace), a /proc and a /sys in a temporary
    directory."""

    def __init__(self, module=True, mounted=True, in_proc=False):
        self.root = tempfile.mkdtemp(prefix="slabtrace-fake.")
        self.debugfs = os.path.join(self.root, "debug")
        self.proc = os.path.join(self.root, "proc")
        self.st = os.path.join(self.proc if in_proc else self.debugfs, "slabtrace")
        self.sys = os.path.join(self.root, "sys")
        self.slab = os.path.join(self.sys, "kernel", "slab")
        self.rundir = os.path.join(self.root, "run")
        for d in (self.debugfs, self.proc, self.slab, self.rundir):
            os.makedirs(d)
        for name in ("leaky_widget", "kmalloc-8k", "kmalloc-64", "dentry",
                     ":0000048"):
            os.makedirs(os.path.join(self.slab, name))
        for alias in ("Acpi-Namespace", "shared_policy_node", "ksm_mm_slot"):
            os.symlink(":0000048", os.path.join(self.slab, alias))
        self.slabinfo(w=10, k=1000, d=8000)
        if mounted:
            os.makedirs(os.path.join(self.debugfs, "tracing"))
        if module:
            os.makedirs(os.path.join(self.sys, "module", "slabtrace"))
            os.makedirs(self.st)
            shutil.copy(DUMP, os.path.join(self.st, "ctl"))
            self.write("slab/stats", STATS)
            shutil.copy(STACKS, os.path.join(self.st, "slab", "stacks"))
            self.write("slab/folded", "syscall:write;ctl_write [leaky] 20\n")
            self.write("slab/folded_bytes", "syscall:write;ctl_write [leaky] 1280\n")
            self.write("kptrace/stats", "written: 30\nread: 30\ndropped: 2\n"
                       "queued: 0 bytes\nqueue size: 2097152 bytes per CPU, 2 CPUs\n")

    def slabinfo(self, w, k, d):
        """A new /proc/slabinfo, replaced at once: never read half written."""
        path = os.path.join(self.proc, "slabinfo")
        with open(path + ".new", "w") as f:
            f.write(SLABINFO.format(w=w, k=k, d=d))
        os.replace(path + ".new", path)

    def rename_cache(self, name):
        """leaky_widget's /proc/slabinfo line named NAME (bytes): the
        file's path."""
        path = os.path.join(self.proc, "slabinfo")
        with open(path, "rb") as f:
            text = f.read()
        with open(path, "wb") as f:
            f.write(text.replace(b"leaky_widget ", name + b" "))
        return path

    def write(self, name, text):
        path = os.path.join(self.st, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def read(self, name):
        with open(os.path.join(self.st, name)) as f:
            return f.read()

    def commands(self):
        """What the program wrote to ctl: the lines after the dump."""
        lines = self.read("ctl").splitlines()
        return [x for x in lines if re.match(r"^(start|stop|print|reset|mark|syscall) ", x)]

    def env(self):
        return dict(os.environ, SLABTRACE_DEBUGFS=self.debugfs,
                    SLABTRACE_PROC=self.proc, SLABTRACE_SYSFS=self.sys,
                    SLABTRACE_KMSG=os.path.join(self.root, "no-kmsg"),
                    SLABTRACE_MODULES=os.path.join(self.root, "modules"),
                    SLABTRACE_DKMS=os.path.join(self.root, "dkms"),
                    SLABTRACE_ETC=os.path.join(self.root, "etc"),
                    SLABTRACE_RUN=self.rundir)

    def install(self, ko="updates/dkms/slabtrace.ko", signed=True, dkms="0.1",
                headers=True):
        """A slabtrace module in the running kernel's modules.dep (KO,
        relative to its directory; None: none), signed or not; DKMS's
        directory of version DKMS (None: no DKMS); the kernel's headers."""
        kdir = os.path.join(self.root, "modules", os.uname().release)
        os.makedirs(kdir, exist_ok=True)
        with open(os.path.join(kdir, "modules.dep"), "w") as f:
            f.write("kernel/fs/ext4/ext4.ko: kernel/fs/mbcache.ko\n")
            if ko:
                f.write("%s:\n" % ko)
        if ko:
            os.makedirs(os.path.dirname(os.path.join(kdir, ko)), exist_ok=True)
            with open(os.path.join(kdir, ko), "wb") as f:
                f.write(b"\x7fELF" + b"\0" * 100 +
                        (b"~Module signature appended~\n" if signed else b""))
        if headers:
            os.makedirs(os.path.join(kdir, "build"), exist_ok=True)
        if dkms:
            os.makedirs(os.path.join(self.root, "dkms", "slabtrace", dkms, "source"),
                        exist_ok=True)

    def run(self, *args, user=None, prog=None, env=None):
        cmd = [prog or BIN] + list(args)
        if user:
            cmd = ["setpriv", "--reuid=%d" % user, "--regid=%d" % user,
                   "--clear-groups"] + cmd
        p = subprocess.run(cmd, env=dict(self.env(), **(env or {})), cwd=self.root,
                           capture_output=True,
                           text=True, timeout=60)
        return p.returncode, p.stdout, p.stderr

    def popen(self, *args, prog=None):
        return subprocess.Popen([prog or BIN] + list(args), env=self.env(), cwd=self.root,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def wait_for(self, cond, what, secs=20):
        end = time.monotonic() + secs
        while not cond():
            if time.monotonic() > end:
                raise AssertionError("no %s within %d s" % (what, secs))
            time.sleep(0.02)

    def close(self):
        shutil.rmtree(self.root)


class Cli(unittest.TestCase):
    def setUp(self):
        self.fake = Fake()

    def tearDown(self):
        self.fake.close()

    def test_status(self):
        rc, out, err = self.fake.run("status")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.splitlines(), [
            "probes: alloc on, free on; records: 26 (limit 330170)",
            "cache kmalloc-64: stopped, 26 records, 0 replaced; drops: "
            "pool_empty 3, stack_store_full 1",
            "pool: 8166 free, 4096 per CPU",
            "kptrace: 30 calls written, 2 dropped, 0 bytes queued",
            "next: slabtrace top (the stacks holding most), slabtrace leaks (all of them)"])

    def test_a_module_of_another_version_is_said(self):
        # The packages upgraded, the old module still loaded.
        mine = self.fake.run("--version")[1].split()[1]
        version = os.path.join(self.fake.sys, "module", "slabtrace", "version")
        for v, said in ((mine, False), ("0.0-old", True)):
            with open(version, "w") as f:
                f.write(v + "\n")
            rc, out, err = self.fake.run("status")
            self.assertEqual(rc, 0, err)
            self.assertEqual("slabtrace: the slabtrace module loaded is version %s, these tools "
                             "%s: after an upgrade, sudo rmmod slabtrace; sudo modprobe "
                             "slabtrace\n" % (v, mine) in err, said, err)

    def test_status_from_the_status_file(self):
        # The module's own lines (from a 6.12 VM), but for its hint.
        self.fake.write("status", STATUS)
        rc, out, err = self.fake.run("status")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.splitlines(), STATUS.splitlines()[:2] + [
            "pool: 8166 free, 4096 per CPU",
            "kptrace: off, 30 calls written, 2 dropped, 0 bytes queued",
            "next: slabtrace top (the stacks holding most), slabtrace leaks (all of them)"])

    def test_status_keeps_the_modules_kptrace_line_whole(self):
        # The module's kptrace line is longer than a fixed buffer would keep.
        line = ("kptrace: off, its queue holds 2048 KiB for 123456 unread records "
                "(freed once read, or at syscall clear)")
        self.fake.write("status", STATUS.replace("kptrace: off", line))
        rc, out, err = self.fake.run("status")
        self.assertEqual(rc, 0, err)
        self.assertIn("\n%s, 30 calls written, 2 dropped, 0 bytes queued\n" % line, out)

    def test_status_keeps_the_modules_kptrace_line_without_its_counts(self):
        # kptrace/stats unreadable: the module's kptrace line all the same
        # (it was dropped with the counts).
        self.fake.write("status", STATUS)
        os.unlink(os.path.join(self.fake.st, "kptrace", "stats"))
        rc, out, err = self.fake.run("status")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.splitlines()[-2:], [
            "kptrace: off",
            "next: slabtrace top (the stacks holding most), slabtrace leaks (all of them)"])

    def test_status_nothing_traced(self):
        self.fake.write("slab/stats", STATS_IDLE)
        rc, out, err = self.fake.run("status")
        self.assertEqual(rc, 0, err)
        self.assertIn("caches: none traced", out)
        self.assertIn("next: slabtrace growth finds a growing cache", out)

    def test_status_rejects_other_stats(self):
        self.fake.write("slab/stats", "hello\n")
        rc, out, err = self.fake.run("status")
        self.assertEqual(rc, 1)
        self.assertIn("slab/stats: not the stats of this version of slabtrace", err)

    def test_prometheus_escapes_cache_names(self):
        # A name of /proc/slabinfo may hold any byte: in a label value as
        # the stats file writes names (\xNN), then \\ and \" escaped, so
        # that the file stays UTF-8 and its lines whole.
        self.fake.rename_cache(b'leaky\xff"q\\w')
        prom = os.path.join(self.fake.root, "slab.prom")
        rc, out, err = self.fake.run("growth", "-r", "2", "-i", "0.05", "--prometheus", prom)
        self.assertEqual(rc, 0, err)
        with open(prom, "rb") as f:
            metrics = f.read().decode("utf-8")
        self.assertIn('slabtrace_slab_objects{cache="leaky\\\\xff\\"q\\\\\\\\w"} 10\n',
                      metrics)
        # Written through a mkstemp() name, made readable for
        # node_exporter, and renamed over the file: none is left.
        self.assertEqual(os.stat(prom).st_mode & 0o777, 0o644)
        self.assertEqual([n for n in os.listdir(self.fake.root) if n.startswith("slab.prom")],
                         ["slab.prom"])

    def test_prometheus_reads_the_stats_once(self):
        # The stats file, read once and gone (a FIFO its writer removes
        # before it closes it): the metrics of what was read, no error.
        # It was read again, and the second read's failure ended growth.
        stats = os.path.join(self.fake.st, "slab", "stats")
        os.unlink(stats)
        os.mkfifo(stats)

        def writer():
            with open(stats, "w") as f:
                f.write(STATS)
                os.unlink(stats)
        t = threading.Thread(target=writer)
        t.start()
        prom = os.path.join(self.fake.root, "slab.prom")
        try:
            rc, out, err = self.fake.run("growth", "-r", "1", "-i", "0.05",
                                         "--prometheus", prom)
        finally:
            if os.path.exists(stats):
                open(stats, "r").close()
            t.join()
        self.assertEqual((rc, err), (0, ""))
        self.assertTrue(os.path.exists(prom))

    def test_prometheus_finds_a_module_loaded_later(self):
        # Not loaded when growth starts: /proc/slabtrace, made while it
        # samples, is read from then on.  It was looked for once, and
        # debugfs' slabtrace/ read for the life of the process.
        shutil.rmtree(self.fake.st)
        st = os.path.join(self.fake.proc, "slabtrace")
        prom = os.path.join(self.fake.root, "slab.prom")

        def up():
            with open(prom) as f:
                return f.read()
        p = self.fake.popen("growth", "-i", "0.05", "--prometheus", prom, "--", "sleep", "30")
        try:
            self.fake.wait_for(lambda: os.path.exists(prom), "a metrics file")
            self.assertIn("\nslabtrace_up 0\n", up())
            os.makedirs(os.path.join(st + ".new", "slab"))
            with open(os.path.join(st + ".new", "slab", "stats"), "w") as f:
                f.write(STATS)
            os.rename(st + ".new", st)
            self.fake.wait_for(lambda: "\nslabtrace_up 1\n" in up(), "slabtrace_up 1", 5)
            self.assertIn("\nslabtrace_records 26\n", up())
        finally:
            p.send_signal(signal.SIGINT)
            p.communicate(timeout=30)

    def test_files_under_proc_first(self):
        # /proc/slabtrace when it exists, though debugfs has the files too.
        debug = os.path.join(self.fake.debugfs, "slabtrace")
        fake = Fake(in_proc=True)
        try:
            shutil.copytree(fake.st, os.path.join(fake.debugfs, "slabtrace"))
            with open(os.path.join(fake.debugfs, "slabtrace", "ctl"), "w") as f:
                f.write(dump_of("dentry"))
            rc, out, err = fake.run("top", "-c", "kmalloc-64")
            self.assertEqual(rc, 0, err)
            self.assertEqual(fake.commands(), ["print kmalloc-64"])
            rc, out, err = fake.run("start", "dentry")
            self.assertEqual(fake.commands(), ["print kmalloc-64", "start dentry"])
            with open(os.path.join(fake.debugfs, "slabtrace", "ctl")) as f:
                self.assertNotIn("start dentry", f.read())
        finally:
            fake.close()
        self.assertTrue(os.path.isdir(debug))

    def test_top_ranks_the_leak_first(self):
        rc, out, err = self.fake.run("top", "-c", "kmalloc-64")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["print kmalloc-64"])
        lines = out.splitlines()
        self.assertEqual(lines[0], "kmalloc-64: 26 outstanding objects (1664 bytes), "
                         "traced 0.773s, 0 records dropped; 3 stacks")
        # A dump without verdicts (an older module): "-" in their column.
        self.assertRegex(lines[2], r"^ +1 +20 +1280 +1000  1\.207s  -        leaky_alloc_buf "
                         r"\[leaky\] < keep \[leaky\] < ctl_write \[leaky\]$")
        self.assertRegex(lines[3], r"^ +2 +5 +320 +200 .* leaky_orphan_buf \[leaky\]")
        self.assertEqual(len(lines), 5)

    def test_top_takes_the_cache_as_an_operand(self):
        # slabtrace top kmalloc-64, as -c kmalloc-64 (it was refused with
        # "no arguments but options").
        rc, out, err = self.fake.run("top", "kmalloc-64")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["print kmalloc-64"])
        self.assertEqual(out, self.fake.run("top", "-c", "kmalloc-64")[1])
        rc, out, err = self.fake.run("leaks", "kmalloc-64")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands()[-1], "print kmalloc-64")
        rc, out, err = self.fake.run("top", "kmalloc-6")
        self.assertEqual(rc, 1)
        self.assertIn("no such cache 'kmalloc-6' (did you mean kmalloc-64?)", err)

    def test_top_of_every_traced_cache(self):
        # One "print all", shown cache by cache in its order; however many
        # caches the stats list (no print of each).
        self.fake.write("slab/stats", STATS + "".join(
            "cache c%d tracing records 0 replaced 0\n" % i for i in range(40)))
        self.fake.write("ctl", print_of())
        rc, out, err = self.fake.run("top", "-n", "1")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["print all"])
        lines = out.splitlines()
        self.assertEqual(lines[0], "Print of all: 154 caches, 3 with outstanding objects, "
                         "most bytes first")
        self.assertEqual([x.split(":")[0] for x in lines if "outstanding objects (" in x],
                         ["kmalloc-large", "leaky_widget", "kmalloc-64"])
        self.assertRegex(out, r"\n +1 +3 +49152 +49152 .* bigleak_large \[bigleak\]")
        self.assertRegex(out, r"\n +1 +5 +320 +250 .* leaky_alloc_buf \[leaky\]")
        self.assertEqual(len(lines), 1 + 3 * 4)
        self.fake.write("ctl", print_of(older=1500))
        rc, out, err = self.fake.run("leaks", "--older", "1500")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands()[-1], "print all older-than 1500")
        self.assertEqual(out.count("#01 "), 3)

    def test_top_filters(self):
        rc, out, _ = self.fake.run("top", "-c", "kmalloc-64", "--pid", "617")
        self.assertIn("5 objects (320 bytes) pass the filters; 1 stacks", out)
        rc, out, _ = self.fake.run("top", "-c", "kmalloc-64", "--comm", "ls")
        self.assertIn("1 objects (64 bytes) pass the filters; 1 stacks", out)
        self.assertIn("get_mountpoint", out)
        rc, out, _ = self.fake.run("top", "-c", "kmalloc-64", "--module", "leaky")
        self.assertIn("25 objects (1600 bytes) pass the filters; 2 stacks", out)
        self.fake.write("ctl", dump_of("kmalloc-64", older=1500))
        rc, out, err = self.fake.run("top", "-c", "kmalloc-64", "--older", "1500")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands()[-1], "print kmalloc-64 older-than 1500")

    def test_pids(self):
        # -p like memleak's, and several: again, or PID,PID (the module's 8).
        for args in (("-p", "617"), ("--pid", "617"), ("-p", "614,617"), ("-p", "614", "-p", "617")):
            rc, out, err = self.fake.run("top", "-c", "kmalloc-64", *args)
            self.assertEqual(rc, 0, err)
        rc, out, _ = self.fake.run("top", "-c", "kmalloc-64", "-p", "617")
        self.assertIn("5 objects (320 bytes) pass the filters; 1 stacks", out)
        rc, out, _ = self.fake.run("top", "-c", "kmalloc-64", "-p", "616,617")
        self.assertIn("25 objects (1600 bytes) pass the filters; 2 stacks", out)
        rc, out, _ = self.fake.run("leaks", "-c", "kmalloc-64", "-p", "614", "-p", "617")
        self.assertIn("6 objects (384 bytes) pass the filters", out)
        rc, out, _ = self.fake.run("report", "-p", "616", DUMP)
        self.assertIn("20 objects (1280 bytes) pass the filters; 1 stacks", out)
        rc, _, err = self.fake.run("top", "-p", "1,2,3,4,5,6,7,8,9")
        self.assertEqual(rc, 2)
        self.assertIn("top: -p: at most 8 processes", err)
        for bad in ("x", "1,,2", "0", "-3", ""):
            rc, _, err = self.fake.run("top", "-p", bad)
            self.assertEqual(rc, 2, bad)
            self.assertIn("top: -p takes process IDs (PID or PID,PID...)", err)

    def test_top_periodic(self):
        self.fake.write("ctl", print_of())
        rc, out, err = self.fake.run("top", "-i", "0.1", "-r", "3", "-n", "1")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["print all"] * 3)
        heads = [line for line in out.splitlines() if line.startswith("--- ")]
        self.assertEqual(len(heads), 3)
        self.assertRegex(heads[2], r"^--- \d\d:\d\d:\d\d, report 3$")
        self.assertEqual(out.count("leaky_alloc_buf [leaky]"), 3)

    def test_top_periodic_json_is_one_document_a_line(self):
        rc, out, err = self.fake.run("top", "-c", "kmalloc-64", "-i", "0.1", "-r", "2",
                                     "--json")
        self.assertEqual(rc, 0, err)
        docs = [json.loads(line) for line in out.splitlines()]
        self.assertEqual([(d["version"], d["report"]) for d in docs], [(1, 1), (1, 2)])
        self.assertGreater(docs[1]["time"], 1.7e9)
        self.assertEqual(docs[0]["caches"][0]["stacks"][0]["objects"], 20)

    def test_json_is_whole_or_nothing(self):
        # A print that fails after another cache's was shown: no cut
        # document on standard output (a reader of -i's lines never gets
        # one), only the error and exit status 1.
        for args in (("top", "-c", "kmalloc-64", "-c", "kmalloc-128", "--json"),
                     ("top", "-c", "kmalloc-64", "-c", "kmalloc-128", "--json",
                      "-i", "0.1", "-r", "2")):
            rc, out, err = self.fake.run(*args)
            self.assertEqual((rc, out), (1, ""), args)
            self.assertIn("kmalloc-128", err)
        path = os.path.join(self.fake.root, "cut.dump")
        with open(path, "w") as f:
            f.write(open(DUMP).read()[:300])
        rc, out, err = self.fake.run("report", "--json", path)
        self.assertEqual((rc, out), (1, ""), err)

    def test_json(self):
        rc, out, err = self.fake.run("top", "-c", "kmalloc-64", "--json", "-n", "2")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.count("\n"), 1)
        doc = json.loads(out)
        self.assertEqual(doc["version"], 1)
        c = doc["caches"][0]
        self.assertEqual((c["cache"], c["outstanding"], c["bytes"], c["dropped"]),
                         ("kmalloc-64", 26, 1664, 0))
        self.assertEqual(len(c["stacks"]), 2)
        s = c["stacks"][0]
        self.assertEqual((s["rank"], s["objects"], s["bytes"], s["requested"],
                          s["age_max_ms"], s["syscall"]),
                         (1, 20, 1280, 1000, 1207, "write"))
        self.assertEqual(s["contexts"], [{"context": "PID 616 sh", "pid": 616}])
        self.assertEqual(s["frames"][0], {"function": "leaky_alloc_buf", "module": "leaky",
                                          "text": "leaky_alloc_buf+0x1b/0x20 [leaky]"})
        self.assertEqual(s["frames"][3]["module"], None)
        rc, out, err = self.fake.run("leaks", "-c", "kmalloc-64", "--json")
        self.assertEqual(len(json.loads(out)["caches"][0]["stacks"]), 3)

    def test_bytes_ranks_by_bytes(self):
        # One made-up group of 2 big objects against 3 small ones.
        dump = ("Dumping outstanding allocs from kmalloc-64\n"
                "traced 1.000s, 5 outstanding (4288 bytes), 0 records dropped\n"
                "-------------------------\n")
        for size, fn in ((64, "small"), (64, "small"), (64, "small"),
                         (2048, "big"), (2048, "big")):
            dump += ("Obj 0000000000000001, %d bytes (%d requested), age 0.001s, cpu 0, "
                     "from kthread kworker/0:1\\x20x (PID 7):\n----\n"
                     " #01 [<0000000000000002>] in %s+0x1/0x2\n\n" % (size, size, fn))
        self.fake.write("ctl", dump)
        _, out, _ = self.fake.run("top", "-c", "kmalloc-64")
        self.assertIn("   1        3        192", out)
        _, out, _ = self.fake.run("top", "-c", "kmalloc-64", "--bytes")
        self.assertIn("   1        2       4096", out)
        _, out, _ = self.fake.run("top", "-c", "kmalloc-64", "--comm", "kworker/0:1\\x20x")
        self.assertIn("5 outstanding", out)
        self.assertNotIn("pass the filters", out)
        _, out, _ = self.fake.run("leaks", "-c", "kmalloc-64", "--json")
        s = json.loads(out)["caches"][0]["stacks"][0]
        self.assertEqual(s["contexts"], [{"context": "kthread kworker/0:1\\x20x (PID 7)",
                                          "pid": 7}])

    def test_json_gfp_and_nodes(self):
        # Each stack lists the GFP flags and nodes of its objects, once
        # each; a dump of a module that did not say them gives empty lists.
        dump = ("Dumping outstanding allocs from kmalloc-64\n"
                "traced 1.000s, 3 outstanding (192 bytes), 0 records dropped\n"
                "-------------------------\n")
        for node, gfp in ((0, "GFP_KERNEL"), (1, "GFP_KERNEL"),
                          (0, "GFP_ATOMIC|__GFP_ZERO")):
            dump += ("Obj 0000000000000001, 64 bytes (64 requested), age 0.001s, cpu 0, "
                     "node %d, gfp %s, from PID 5 sh:\n----\n"
                     " #01 [<0000000000000002>] in f+0x1/0x2\n\n" % (node, gfp))
        self.fake.write("ctl", dump)
        rc, out, err = self.fake.run("leaks", "-c", "kmalloc-64", "--json")
        self.assertEqual(rc, 0, err)
        s = json.loads(out)["caches"][0]["stacks"][0]
        self.assertEqual(s["gfp"], ["GFP_KERNEL", "GFP_ATOMIC|__GFP_ZERO"])
        self.assertEqual(s["nodes"], [0, 1])
        self.assertEqual(s["contexts"], [{"context": "PID 5 sh", "pid": 5}])
        self.fake.write("ctl", open(DUMP).read())
        _, out, _ = self.fake.run("leaks", "-c", "kmalloc-64", "--json")
        s = json.loads(out)["caches"][0]["stacks"][0]
        self.assertEqual((s["gfp"], s["nodes"]), ([], []))

    def test_leaks_full_backtraces(self):
        rc, out, err = self.fake.run("leaks", "-c", "kmalloc-64")
        self.assertEqual(rc, 0, err)
        self.assertIn("from PID 616 sh in syscall write, age min/avg/max "
                      "1.207s/1.207s/1.207s", out)
        self.assertIn("       #08 entry_SYSCALL_64_after_hwframe+0x76/0x7e", out)
        self.assertEqual(out.count("#01 "), 3)

    def test_leaks_n_shows_n(self):
        rc, out, err = self.fake.run("leaks", "-c", "kmalloc-64", "-n", "1")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.count("#01 "), 1)
        rc, out, err = self.fake.run("leaks", "-c", "kmalloc-64", "-n", "2", "--json")
        self.assertEqual(len(json.loads(out)["caches"][0]["stacks"]), 2)

    def test_escapes_odd_bytes(self):
        self.fake.write("slab/stats", STATS.replace("cache kmalloc-64", "cache odd\033name"))
        _, out, _ = self.fake.run("status")
        self.assertIn("cache odd\\x1bname:", out)
        self.assertNotIn("\033", out)

    def test_dump_of_another_print_refused(self):
        # What another print would leave in ctl: dentry's
        # dump, and kmalloc-64's without the filter asked for.
        self.fake.write("ctl", dump_of("dentry"))
        rc, out, err = self.fake.run("top", "-c", "kmalloc-64")
        self.assertEqual((rc, out), (1, ""))
        self.assertIn("ctl: the dump is of 'dentry', not of the print made for "
                      "'kmalloc-64' (another print in between?)", err)
        self.fake.write("ctl", dump_of("kmalloc-64"))
        rc, out, err = self.fake.run("top", "-c", "kmalloc-64", "--older", "100")
        self.assertEqual(rc, 1)
        self.assertIn("'kmalloc-64 (older than 100 ms)'", err)

    def test_dump_names_escaped_as_the_module_does(self):
        os.makedirs(os.path.join(self.fake.slab, "odd name\\x"))
        self.fake.write("ctl", dump_of("odd\\x20name\\\\x"))
        rc, out, err = self.fake.run("top", "-c", "odd name\\x")
        self.assertEqual(rc, 0, err)

    def test_cut_short_dump_refused(self):
        with open(DUMP) as f:
            lines = f.read().splitlines(True)
        self.fake.write("ctl", "".join(lines[:26]))
        rc, out, err = self.fake.run("top", "-c", "kmalloc-64")
        self.assertEqual(rc, 1)
        self.assertIn("ctl: the dump is cut short: it lists 3 objects, its header counts 26",
                      err)
        cut = os.path.join(self.fake.root, "cut.txt")
        with open(cut, "w") as f:
            f.write("".join(lines[:26]))
        rc, out, err = self.fake.run("report", cut)
        self.assertEqual(rc, 1)
        self.assertIn("cut.txt: the dump is cut short", err)
        with open(cut, "w") as f:
            f.write(lines[0])
        rc, out, err = self.fake.run("report", cut)
        self.assertIn("cut short: no 'traced' line", err)

    def test_report_rejects_a_stacks_view(self):
        rc, out, err = self.fake.run("report", STACKS)
        self.assertEqual(rc, 1)
        self.assertIn("a stacks view, not a per-object dump", err)
        path = os.path.join(self.fake.root, "x.txt")
        with open(path, "w") as f:
            f.write("hello\n")
        rc, out, err = self.fake.run("report", path)
        self.assertEqual(rc, 1)
        self.assertIn("not a slabtrace dump", err)
        rc, out, err = self.fake.run("report", DUMP)
        self.assertEqual(rc, 0, err)
        self.assertIn("26 outstanding objects", out)

    def test_leaks_escape_the_evidence(self):
        # The dump's text is parsed, and a saved one may be anyone's: an
        # escape sequence in a verdict's evidence reaches the terminal as
        # "?", never raw.
        with open(os.path.join(HERE, "dump", "corpus", "verdicts.txt")) as f:
            text = f.read()
        self.assertIn("too few frees to tell", text)
        self.fake.write("ctl", text.replace("too few frees", "too few\x1b[2J frees"))
        rc, out, err = self.fake.run("leaks", "-c", "kmalloc-64")
        self.assertEqual(rc, 0, err)
        self.assertIn("too few?[2J frees to tell", out)
        self.assertNotIn("\x1b", out + err)

    def test_report_takes_what_its_help_promises(self):
        rc, usage, _ = self.fake.run("report", "--help")
        self.assertEqual(rc, 0)
        for opt in ("--bytes", "--module", "--comm", "--pid", "--older", "-n", "--json"):
            self.assertIn(opt, usage)
        for opt in ("-c", "-i", "-r"):
            self.assertNotIn(" %s " % opt, usage)
        rc, out, err = self.fake.run("report", "--bytes", "--module", "leaky", "--comm", "sh",
                                     "--pid", "616", "--older", "1000", "-n", "1", DUMP)
        self.assertEqual(rc, 0, err)
        self.assertIn("20 objects (1280 bytes) pass the filters", out)
        # Ages: 4 objects of 1.202s, 1 of 1.203s, 20 of 1.207s, 1 of 1.782s.
        rc, out, err = self.fake.run("report", "--older", "1783", DUMP)
        self.assertEqual(rc, 0, err)
        self.assertIn("0 objects (0 bytes) pass the filters; 0 stacks", out)
        rc, out, err = self.fake.run("report", "--json", "--older", "1203", DUMP)
        self.assertEqual(json.loads(out)["caches"][0]["matched_objects"], 22)

    def test_growth_around_a_command(self):
        p = os.path.join(self.fake.proc, "slabinfo")
        script = "sed -i 's/^kmalloc-64 *1000/kmalloc-64 5000/; " \
                 "s/^leaky_widget *10/leaky_widget 60/; s/^dentry *8000/dentry 7000/' " + p
        rc, out, err = self.fake.run("growth", "--", "sh", "-c", script)
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertIn("around the command", lines[0])
        self.assertTrue(lines[1].startswith("CACHE"))
        # Changed at once: a sample before and one after, no trend to tell.
        self.assertRegex(lines[2], r"^kmalloc-64 +64 +5000 +\+4000 +\+256000 .* grew +-$")
        self.assertRegex(lines[3], r"^leaky_widget +208 +60 +\+50 +\+10400 ")
        self.assertEqual(len(lines), 4, out)

    def test_growth_a_signal_ends_the_command(self):
        # SIGTERM to growth alone: COMMAND ends (not left running), the
        # table is shown, exit 128 + 15 (it was killed, COMMAND orphaned).
        p = self.fake.popen("growth", "--", "sleep", "30")
        time.sleep(1)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=20)
        self.assertEqual(p.returncode, 143, err)
        self.assertIn("no cache grew in", out)
        self.assertIn("slabtrace: sleep was killed by signal 15", err)

    def test_growth_a_failed_sample_ends_the_command(self):
        # A sample of the thread that fails while COMMAND runs (the metrics
        # file's directory gone; /proc/slabinfo unreadable): said, COMMAND
        # ended and reaped, exit 1.  The thread's exit(1) left it running.
        promdir = os.path.join(self.fake.root, "prom")
        prom = os.path.join(promdir, "slab.prom")
        slabinfo = os.path.join(self.fake.proc, "slabinfo")
        pidfile = os.path.join(self.fake.root, "cmd.pid")
        for args, breaks, said in (
                (("--prometheus", prom), "mv %s %s.old" % (promdir, promdir),
                 "slabtrace: %s/slab.prom" % promdir),
                ((), "echo garbage > %s.new; mv %s.new %s" % (slabinfo, slabinfo, slabinfo),
                 "slabtrace: %s: cannot read the line 'garbage'\n" % slabinfo)):
            os.makedirs(promdir)
            rc, out, err = self.fake.run(
                "growth", "-i", "0.05", *args, "--", "sh", "-c",
                "echo $$ > %s; %s; exec sleep 30 >/dev/null 2>&1" % (pidfile, breaks))
            with open(pidfile) as f:
                cmd = int(f.read())
            try:
                alive = os.kill(cmd, 0) is None
            except ProcessLookupError:
                alive = False
            if alive:
                os.kill(cmd, signal.SIGKILL)
            self.assertFalse(alive, "COMMAND left running")
            self.assertEqual(rc, 1, err)
            self.assertIn(said, err)
            self.assertIn("slabtrace: sh was killed by signal 15\n"
                          "slabtrace: a sample failed (said above): sh was stopped\n", err)
            self.assertEqual(out, "")
            shutil.rmtree(promdir + (".old" if args else ""))

    def test_growth_reads_a_name_with_spaces(self):
        # /proc/slabinfo writes a cache's name as it is: 'oddcache "q\\ name'
        # (oddcache.ko) holds two spaces.
        p = os.path.join(self.fake.proc, "slabinfo")
        script = "sed -i 's/^leaky_widget *10 /oddcache \"q\\\\ name  60 /' " + p
        rc, out, err = self.fake.run("growth", "--", "sh", "-c", script)
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r'\noddcache\\x20"q\\\\\\x20name +208 +60 ')

    def test_growth_escapes_a_name(self):
        # A module's cache may be named with any byte: an escape sequence
        # reaches the terminal escaped as the module writes names, never raw.
        p = os.path.join(self.fake.proc, "slabinfo")
        script = "sed -i 's/^leaky_widget *10 /leaky\x1b[2Jwidget 60 /' " + p
        rc, out, err = self.fake.run("growth", "--", "sh", "-c", script)
        self.assertEqual(rc, 0, err)
        self.assertIn("leaky\\e[2Jwidget", out)
        self.assertNotIn("\x1b", out + err)

    def test_growth_json_escapes_a_name(self):
        # "cache" is the name as the module writes it, as the table and
        # the metrics show it: byte 0xe9 was "\u00e9" (another name) and
        # a space stayed a space.
        p = self.fake.rename_cache(b"caf\xe9 x\\y")
        script = r"LC_ALL=C sed -i 's/^\(caf.*y\) *10 /\1 60 /' " + p
        rc, out, err = self.fake.run("growth", "--json", "--", "sh", "-c", script)
        self.assertEqual(rc, 0, err)
        self.assertEqual([c["cache"] for c in json.loads(out)["caches"]],
                         ["caf\\xe9\\x20x\\\\y"])

    def test_growth_trend_around_a_command(self):
        # Samples every 0.2 s while the command runs: dentry steps up four
        # times, kmalloc-64 (more bytes) once at the start, then stays.
        # The trend splits the steps between samples in quarters: dentry's
        # are in the middle of each (0.4, 1.2, 2.0 and 2.8 s of 3.2 s), so
        # a late sed still falls in its quarter.  Steps every 0.5 s, the
        # last 0.5 s before the end, put the last one on the last
        # quarter's edge: it fell before it in most runs on a fast host.
        p = os.path.join(self.fake.proc, "slabinfo")
        steps = "; ".join("sleep %s; sed -i 's/^dentry *%d/dentry %d/' %s" %
                          ("0.8" if i else "0.4", 8000 + 10 * i, 8010 + 10 * i, p)
                          for i in range(4))
        script = "sed -i 's/^kmalloc-64 *1000/kmalloc-64 5000/' %s; %s; sleep 0.4" % (p, steps)
        rc, out, err = self.fake.run("growth", "-i", "0.2", "--", "sh", "-c", script)
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertRegex(lines[0], r"^caches that grew in [0-9.]+s \(\d+ samples, around the "
                         r"command\), steadily growing ones first:$")
        self.assertGreaterEqual(int(re.search(r"\((\d+) samples", lines[0]).group(1)), 10)
        self.assertRegex(lines[2], r"^dentry .* \+40 .* grows ")
        self.assertRegex(lines[3], r"^kmalloc-64 .* \+4000 .* levels ")
        rc, out, err = self.fake.run("growth", "-r", "2", "--", "true")
        self.assertEqual(rc, 2)
        self.assertIn("-r is for sampling without a command", err)

    def test_growth_json(self):
        p = os.path.join(self.fake.proc, "slabinfo")
        script = "sed -i 's/^kmalloc-64 *1000/kmalloc-64 5000/; s/^dentry *8000/dentry 7000/' " + p
        rc, out, err = self.fake.run("growth", "--json", "--", "sh", "-c", script)
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(out.splitlines()), 1)
        doc = json.loads(out)
        self.assertEqual((doc["version"], doc["around"]), (1, "command"))
        self.assertEqual(doc["caches"], [{
            "cache": "kmalloc-64", "objsize": 64, "active": 5000, "objects": 4000,
            "bytes": 256000, "bytes_per_second": doc["caches"][0]["bytes_per_second"],
            "trend": "grew", "also_named": []}])
        # Merged names, and the samples' way.
        self.fake.slabinfo(w=10, k=1000, d=8000)
        rc, out, err = self.fake.run("growth", "--json", "-i", "0.3", "-r", "1")
        self.assertEqual(json.loads(out)["around"], "samples")

    def test_growth_exit_status_is_the_commands(self):
        # Measured, but COMMAND failed: 3, as record; it could not run: 1.
        rc, out, err = self.fake.run("growth", "--", "false")
        self.assertEqual(rc, 3, err)
        self.assertEqual(err, "slabtrace: false exited with 1\n")
        self.assertIn("no cache grew", out)
        rc, out, err = self.fake.run("growth", "--", "sh", "-c", "kill -TERM $$")
        self.assertEqual(rc, 3, err)
        self.assertIn("killed by signal 15", err)
        rc, out, err = self.fake.run("growth", "--", "/nonexistent")
        self.assertEqual((rc, out), (1, ""))
        self.assertEqual(err, "slabtrace: cannot run /nonexistent: No such file or directory\n")
        self.assertEqual(self.fake.run("growth", "--", "true")[0], 0)

    def test_growth_sampled_only_growing_first(self):
        # Each sample: kmalloc-64 up and down (mixed, but more bytes),
        # dentry only up, Acpi-Namespace with its merged names.
        # dentry rises between every two samples (a write every 0.25 s, a
        # sample every 0.3 s): steadily.
        self.fake.slabinfo(w=10, k=1000, d=8000)
        pid = os.fork()
        if not pid:
            for w, k, d in ((10, 9000, 8010), (10, 2000, 8020), (10, 3000, 8030),
                            (10, 2500, 8040), (10, 2600, 8050), (10, 2700, 8060)):
                time.sleep(0.25)
                self.fake.slabinfo(w=w, k=k, d=d)
            os._exit(0)
        rc, out, err = self.fake.run("growth", "-i", "0.3", "-r", "4")
        os.waitpid(pid, 0)
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertRegex(lines[2], r"^dentry .* grows ")
        self.assertRegex(lines[3], r"^kmalloc-64 .* mixed ")

    def growth_fed(self, texts, *args):
        """growth ARGS reading /proc/slabinfo from a FIFO that gives each of
        its samples the next of TEXTS, whenever it is taken: the series
        the same whatever the host's speed.  Returns rc, out, err."""
        path = os.path.join(self.fake.proc, "slabinfo")
        os.unlink(path)
        os.mkfifo(path)
        p = self.fake.popen("growth", *args)
        fds = os.path.join("/proc", str(p.pid), "fd")

        def reading():
            for fd in os.listdir(fds):
                try:
                    if os.readlink(os.path.join(fds, fd)) == path:
                        return True
                except OSError:
                    pass    # closed since
            return False
        try:
            for text in texts:
                # Closed once the reader holds it (it cannot have read EOF
                # yet), then the next offered once it let it go: one text a
                # sample, never two.
                with open(path, "w") as f:
                    f.write(text)
                    f.flush()
                    self.fake.wait_for(reading, "the sample taken")
                self.fake.wait_for(lambda: not reading(), "the sample read")
        finally:
            out, err = p.communicate(timeout=60)
        return p.returncode, out, err

    def test_growth_trend_whatever_the_number_of_samples(self):
        # kmalloc-64 flat for 6 tenths of the samples, then 10 objects up
        # at each: the same trend from 60 samples as from 120 (the series
        # full, its older points were twice as far apart as its newer ones:
        # "grows" from 120, "grew" from 60).
        trends = set()
        for n in (60, 120, 200):
            flat = n * 6 // 10
            texts = [SLABINFO.format(w=10, k=1000 + 10 * max(0, j - flat), d=8000)
                     for j in range(n)]
            rc, out, err = self.growth_fed(texts, "-i", "0.001", "-r", str(n - 1))
            self.assertEqual(rc, 0, err)
            self.assertIn("(%d samples)" % n, out)
            trend = re.search(r"\nkmalloc-64 .* (\S+) +-\n", out).group(1)
            trends.add(trend)
        self.assertEqual(len(trends), 1, trends)

    def test_growth_sums_two_caches_of_one_name(self):
        # Two modules' caches may share a name: two lines, one cache of
        # their sum (the second line replaced the first: "no cache grew").
        p = os.path.join(self.fake.proc, "slabinfo")
        with open(p, "a") as f:
            f.write("kmalloc-64           500     512     64   64    1 : tunables    0    0"
                    "    0 : slabdata      8      8      0\n")
        rc, out, err = self.fake.run("growth", "--", "sed", "-i",
                                     "s/^kmalloc-64 *1000 /kmalloc-64 1100 /", p)
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"\nkmalloc-64 +64 +1600 +\+100 +\+6400 .* grew +-\n")

    def test_growth_weighs_each_cache_of_one_name_by_its_size(self):
        # Two caches "foo" of 4096 and 64 bytes: each line's objects by
        # its own size (all were counted at the last line's size: 100
        # more 4096-byte objects said +6400 bytes, and its Prometheus
        # gauge 10,000 64-byte objects 40 MB).
        p = os.path.join(self.fake.proc, "slabinfo")
        with open(p, "a") as f:
            f.write("foo                   10      16   4096    8    8 : tunables    0    0"
                    "    0 : slabdata      2      2      0\n"
                    "foo                10000   10048     64   64    1 : tunables    0    0"
                    "    0 : slabdata    157    157      0\n")
        rc, out, err = self.fake.run("growth", "--", "sed", "-i", "s/^foo  *10 /foo 110 /", p)
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"\nfoo +4096 +10110 +\+100 +\+409600 ")
        prom = os.path.join(self.fake.root, "slab.prom")
        rc, out, err = self.fake.run("growth", "-r", "1", "-i", "0.05", "--prometheus", prom)
        self.assertEqual(rc, 0, err)
        with open(prom) as f:
            self.assertIn('slabtrace_slab_bytes{cache="foo"} %d\n' % (110 * 4096 + 10000 * 64),
                          f.read())

    def test_growth_json_keeps_each_merged_name_whole(self):
        # A name with a space is one name, and forty long names are all
        # there (they were joined into 512 bytes, cut mid-name, and split
        # at spaces: "odd name" became "odd" and "name").
        names = ["odd name"] + ["merged_cache_number_%02d" % i for i in range(40)]
        for name in names:
            os.symlink(":0000048", os.path.join(self.fake.slab, name))
        p = os.path.join(self.fake.proc, "slabinfo")
        rc, out, err = self.fake.run("growth", "--json", "--", "sed", "-i",
                                     "s/^Acpi-Namespace *400/Acpi-Namespace 500/", p)
        self.assertEqual(rc, 0, err)
        self.assertEqual(sorted(json.loads(out)["caches"][0]["also_named"]),
                         sorted(names + ["ksm_mm_slot", "shared_policy_node"]))
        rc, out, err = self.fake.run("growth", "--", "sed", "-i",
                                     "s/^Acpi-Namespace *500/Acpi-Namespace 600/", p)
        self.assertEqual(rc, 0, err)
        self.assertIn("odd name", out)
        self.assertIn("merged_cache_number_39", out)

    def test_growth_names_merged_caches(self):
        p = os.path.join(self.fake.proc, "slabinfo")
        rc, out, err = self.fake.run("growth", "--", "sed", "-i",
                                     "s/^Acpi-Namespace *400/Acpi-Namespace 500/", p)
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"Acpi-Namespace .* grew +ksm_mm_slot, shared_policy_node\n"
                         r"|Acpi-Namespace .* grew +shared_policy_node, ksm_mm_slot\n")

    def test_no_such_cache(self):
        rc, out, err = self.fake.run("record", "-c", "kmalloc-8192", "--", "true")
        self.assertEqual(rc, 1)
        self.assertEqual(err, "slabtrace: no such cache 'kmalloc-8192' "
                         "(did you mean kmalloc-8k?)\n")
        rc, out, err = self.fake.run("start", "dentyr")
        self.assertEqual(err, "slabtrace: no such cache 'dentyr' (did you mean dentry?)\n")
        rc, out, err = self.fake.run("top", "-c", "zzzzzzzzzzzz")
        self.assertEqual(err, "slabtrace: no such cache 'zzzzzzzzzzzz' "
                         "(the names are in /proc/slabinfo)\n")
        self.assertEqual(self.fake.commands(), [])

    def test_names_that_are_no_slab_cache(self):
        # The module traces these like caches; sysfs has no directory.
        for name in ("kmalloc-large", "percpu"):
            rc, out, err = self.fake.run("start", name)
            self.assertEqual((rc, err), (0, ""))
        self.assertEqual(self.fake.commands(), ["start kmalloc-large", "start percpu"])

    def test_status_says_what_a_filter_left_out(self):
        self.fake.write("slab/stats", STATS.replace(
            "stack_walk_empty 0\n", "stack_walk_empty 0 own 0 filtered 4\n"))
        rc, out, err = self.fake.run("status")
        self.assertEqual(rc, 0, err)
        self.assertIn("; drops: pool_empty 3, stack_store_full 1; filtered out 4\n", out)

    def sampled_estimates(self, n, rate, objects, nbytes):
        """A sampled dump of N records (sampled_dump()) at RATE ("sampled 1
        in 10") whose header says OBJECTS and NBYTES: top's header and
        leaks --json say the same.  Returns the dump and the JSON's cache."""
        dump = sampled_dump(n, "%s: estimated %d outstanding (%d bytes)"
                            % (rate, objects, nbytes))
        self.fake.write("ctl", dump)
        rc, out, err = self.fake.run("top", "-c", "kmalloc-64")
        self.assertEqual(rc, 0, err)
        self.assertIn("\n%s: estimated %d outstanding objects (%d bytes); "
                      "the counts below are of records\n" % (rate, objects, nbytes), out)
        _, out, _ = self.fake.run("leaks", "-c", "kmalloc-64", "--json")
        c = json.loads(out)["caches"][0]
        self.assertEqual((c["estimated_objects"], c["estimated_bytes"]), (objects, nbytes))
        return dump, c

    def test_sampled_dump_gives_estimates(self):
        # "start CACHE sample 10": each record stands for 10 objects.
        dump, c = self.sampled_estimates(3, "sampled 1 in 10", 30, 1920)
        self.assertEqual(c["sample_every"], 10)
        self.assertEqual((c["stacks"][0]["objects"], c["stacks"][0]["estimated_objects"]),
                         (3, 30))
        path = os.path.join(self.fake.root, "sampled.dump")
        with open(path, "w") as f:
            f.write(dump)
        rc, out, err = self.fake.run("report", "--folded", path)
        self.assertEqual((rc, out), (0, "f 30\n"), err)
        # Not sampled: the estimates are the counts.
        self.fake.write("ctl", open(DUMP).read())
        _, out, _ = self.fake.run("leaks", "-c", "kmalloc-64", "--json")
        c = json.loads(out)["caches"][0]
        self.assertEqual((c["sample_every"], c["estimated_objects"]), (1, 26))

    def test_folded_is_the_modules_for_a_call_without_backtrace_or_name(self):
        # module/slab/folded.c: a group of a system call whose backtrace was
        # not saved is "syscall:NAME;[unknown]"; a 32-bit call with no name
        # is "syscall:compat_NR".
        cases = [("write", " (backtrace not saved)\n", "syscall:write;[unknown] 1\n"),
                 ("451 (compat)", " #01 [<0000000000000002>] in f+0x1/0x2\n",
                  "syscall:compat_451;f 1\n"),
                 ("compat write", " (backtrace not saved)\n",
                  "syscall:compat_write;[unknown] 1\n")]
        for sys, stack, folded in cases:
            dump = ("Dumping outstanding allocs from kmalloc-64\n"
                    "traced 1.000s, 1 outstanding (64 bytes), 0 records dropped\n"
                    "-------------------------\n"
                    "Obj 0000000000000001, 64 bytes (50 requested), age 0.001s, cpu 0, "
                    "node 0, gfp GFP_KERNEL, from PID 5 sh in syscall %s:\n----\n%s\n"
                    % (sys, stack))
            path = os.path.join(self.fake.root, "nostack.dump")
            with open(path, "w") as f:
                f.write(dump)
            rc, out, err = self.fake.run("report", "--folded", path)
            self.assertEqual((rc, out), (0, folded), err)

    def test_long_function_names_are_whole(self):
        # KSYM_NAME_LEN is 512 since 6.1 (Rust's names): two functions that
        # differ after 255 bytes stay two, in the folded lines, the JSON
        # and top's table.
        fns = ["r" * 300 + "_a", "r" * 300 + "_b"]
        dump = ("Dumping outstanding allocs from kmalloc-64\n"
                "traced 1.000s, 2 outstanding (128 bytes), 0 records dropped\n"
                "-------------------------\n")
        for i, fn in enumerate(fns):
            dump += ("Obj 000000000000000%d, 64 bytes (50 requested), age 0.001s, "
                     "cpu 0, node 0, gfp GFP_KERNEL, from PID 5 sh:\n----\n"
                     " #01 [<0000000000000002>] in %s+0x1/0x2 [rmod]\n\n" % (i + 1, fn))
        path = os.path.join(self.fake.root, "long.dump")
        with open(path, "w") as f:
            f.write(dump)
        rc, out, err = self.fake.run("report", "--folded", path)
        self.assertEqual((rc, sorted(out.splitlines())),
                         (0, ["%s [rmod] 1" % fn for fn in fns]), err)
        rc, out, err = self.fake.run("report", "--json", path)
        self.assertEqual(rc, 0, err)
        self.assertEqual(sorted(s["frames"][0]["function"]
                                for s in json.loads(out)["caches"][0]["stacks"]), fns)
        rc, out, err = self.fake.run("report", path)
        self.assertEqual(rc, 0, err)
        for fn in fns:
            self.assertIn(" %s [rmod]\n" % fn, out)

    def test_sampled_by_bytes_dump_gives_estimates(self):
        # "start CACHE sample-bytes 8192": a record of 64 bytes stands for
        # 1 / (1 - exp(-64 / 8192)) = 128.5006 objects (the module's fixed
        # point), 3 of them for 385.5 objects, 24672 bytes.
        dump, c = self.sampled_estimates(3, "sampled 1 per 8192 bytes", 386, 24672)
        self.assertEqual((c["sample_every"], c["sample_bytes"]), (1, 8192))
        self.assertEqual((c["stacks"][0]["objects"], c["stacks"][0]["estimated_bytes"]),
                         (3, 24672))
        path = os.path.join(self.fake.root, "sampled.dump")
        with open(path, "w") as f:
            f.write(dump)
        rc, out, err = self.fake.run("report", "--folded", path)
        self.assertEqual((rc, out), (0, "f 386\n"), err)

    def test_sampled_by_bytes_estimates_are_the_modules(self):
        # The module weighs a record in 16-bit fixed point, round(2^48 / p)
        # with p = 1 - exp(-64 / 8192) = 0.0077821 (2^32 p = 33423700.7):
        # 8421419, 128.50066 objects, and adds (64 * 8421419) >> 16 = 8224
        # bytes a record.  13 records: 1671 objects and 106912 bytes, where
        # 13 * 64 / p = 106912.54 would round to 106913.
        _, c = self.sampled_estimates(13, "sampled 1 per 8192 bytes", 1671, 106912)
        self.assertEqual(c["stacks"][0]["estimated_bytes"], 106912)

    def test_sampled_by_bytes_ranks_by_estimates(self):
        # "sample-bytes 8192": 3 records of 64 bytes stand for 24672 bytes
        # (test above), 2 records of 2048 bytes for about 2 * 2048 /
        # (1 - exp(-1/4)) = 18516: the small objects hold more, though
        # their records hold less (192 bytes against 4096).
        dump = ("Dumping outstanding allocs from kmalloc-64\n"
                "traced 1.000s, 5 outstanding (4288 bytes), 0 records dropped\n"
                "sampled 1 per 8192 bytes: estimated 395 outstanding (43188 bytes); "
                "the counts below are of records\n"
                "-------------------------\n")
        for size, fn in ((2048, "big"), (2048, "big"), (64, "small"), (64, "small"),
                         (64, "small")):
            dump += ("Obj 0000000000000001, %d bytes (%d requested), age 0.001s, cpu 0, "
                     "from PID 5 sh:\n----\n"
                     " #01 [<0000000000000002>] in %s+0x1/0x2\n\n" % (size, size, fn))
        self.fake.write("ctl", dump)
        for args in ((), ("--bytes",)):
            rc, out, err = self.fake.run("top", "-c", "kmalloc-64", *args)
            self.assertEqual(rc, 0, err)
            self.assertIn("\n   1        3        192        192  ", out, args)
            self.assertIn("\n   2        2       4096       4096  ", out, args)
            _, out, _ = self.fake.run("leaks", "-c", "kmalloc-64", "--json", *args)
            stacks = json.loads(out)["caches"][0]["stacks"]
            self.assertEqual([(st["rank"], st["estimated_bytes"]) for st in stacks],
                             [(1, 24672), (2, 18516)], args)

    def test_start_with_a_filter(self):
        # The filter's words go to the module, which checks them.
        rc, out, err = self.fake.run("start", "kmalloc-64", "pid", "5", "6")
        self.assertEqual((rc, err), (0, ""))
        rc, out, err = self.fake.run("start", "kmalloc-64", "cgroup", "/lk")
        self.assertEqual((rc, err), (0, ""))
        rc, out, err = self.fake.run("stop", "kmalloc-64", "pid", "5")
        self.assertEqual(rc, 2)
        self.assertEqual(self.fake.commands(), ["start kmalloc-64 pid 5 6",
                                                "start kmalloc-64 cgroup /lk"])


class Words(unittest.TestCase):
    """The print of a word ("print all", "print kmalloc"): one print of
    many caches, read, checked and shown cache by cache."""

    def setUp(self):
        self.fake = Fake()
        self.fake.write("ctl", print_of())

    def tearDown(self):
        self.fake.close()

    def saved(self, text):
        path = os.path.join(self.fake.root, "saved.dump")
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_report_of_a_saved_print_of_all(self):
        rc, out, err = self.fake.run("report", PRINT_ALL)
        self.assertEqual(rc, 0, err)
        self.assertEqual([x for x in out.splitlines() if "outstanding objects" in x], [
            "Print of all: 154 caches, 3 with outstanding objects, most bytes first",
            "kmalloc-large: 3 outstanding objects (49152 bytes), traced 2.839s, "
            "0 records dropped; 1 stacks",
            "leaky_widget: 7 outstanding objects (1456 bytes), traced 2.841s, "
            "0 records dropped; 1 stacks",
            "kmalloc-64: 5 outstanding objects (320 bytes), traced 2.841s, "
            "0 records dropped; 1 stacks"])
        self.assertRegex(out, r"\n +1 +7 +1456 +1456 .* leaky_alloc_widget \[leaky\] < keep")

    def test_a_print_of_one_cache_says_cache(self):
        # "1 cache", as the module says it, read and said again.
        text = print_of().replace("Print of all: 154 caches, 3 with",
                                  "Print of all: 1 cache, 3 with", 1)
        rc, out, err = self.fake.run("report", self.saved(text))
        self.assertEqual(rc, 1, out)
        one = text.split("Dumping outstanding allocs from ")
        text = one[0].replace(", 3 with", ", 1 with") + "Dumping outstanding allocs from " + one[2]
        rc, out, err = self.fake.run("report", self.saved(text))
        self.assertEqual(rc, 0, err)
        self.assertIn("Print of all: 1 cache, 1 with outstanding objects", out)

    def test_json_covers_every_cache_of_the_print(self):
        rc, out, err = self.fake.run("leaks", "-c", "all", "--json")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["print all"])
        caches = json.loads(out)["caches"]
        self.assertEqual([(c["cache"], c["outstanding"], c["bytes"], c["stacks"][0]["objects"])
                          for c in caches],
                         [("kmalloc-large", 3, 49152, 3), ("leaky_widget", 7, 1456, 7),
                          ("kmalloc-64", 5, 320, 5)])
        self.assertEqual(caches[0]["stacks"][0]["frames"][0]["function"], "bigleak_large")
        # With a filter, JSON still lists each cache (0 matched).
        rc, out, err = self.fake.run("report", "--json", "--module", "bigleak", PRINT_ALL)
        self.assertEqual([c["matched_objects"] for c in json.loads(out)["caches"]], [3, 0, 0])

    def test_folded_starts_each_line_with_its_cache(self):
        # As the module's folded file after the same print.
        rc, out, err = self.fake.run("report", "--folded", PRINT_ALL)
        self.assertEqual(rc, 0, err)
        with open(FOLDED_ALL) as f:
            self.assertEqual(out, f.read())
        # A print of one cache: no cache frame, as the module's.
        rc, out, err = self.fake.run("report", "--folded", DUMP)
        self.assertTrue(out.startswith("syscall:write;entry_SYSCALL_64"), out)

    def test_filters_leave_out_caches_with_nothing_that_passes(self):
        rc, out, err = self.fake.run("top", "--module", "leaky")
        self.assertEqual(rc, 0, err)
        self.assertIn("Print of all: 154 caches, 3 with outstanding objects, most bytes first\n"
                      "2 of them with objects that pass the filters, shown below\n", out)
        self.assertNotIn("kmalloc-large", out)
        self.assertIn("leaky_widget: 7 outstanding", out)
        self.assertIn("kmalloc-64: 5 outstanding", out)

    def test_words_go_to_the_module(self):
        self.fake.write("ctl", print_of("kmalloc"))
        rc, out, err = self.fake.run("top", "-c", "kmalloc")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["print kmalloc"])
        self.assertTrue(out.startswith("Print of kmalloc: 154 caches, 3 with"), out)
        # A print of another word, or of a cache, is not the one asked for.
        rc, out, err = self.fake.run("top", "-c", "all")
        self.assertEqual((rc, out), (1, ""))
        self.assertIn("ctl: the dump is a print of 'kmalloc', not the print made for 'all' "
                      "(another print in between?)", err)
        self.fake.write("ctl", dump_of("kmalloc-64"))
        rc, out, err = self.fake.run("top", "-c", "kmalloc")
        self.assertEqual(rc, 1)
        self.assertIn("ctl: the dump is of 'kmalloc-64', not of the print made for 'kmalloc'",
                      err)
        rc, out, err = self.fake.run("top", "-c", "kmalloc-64", "-c", "all")
        self.assertEqual(rc, 1)
        self.assertIn("ctl: the dump is of 'kmalloc-64', not of the print made for 'all'", err)
        for word in ("all", "kmalloc"):
            rc, out, err = self.fake.run("start", word)
            self.assertEqual((rc, err), (0, ""))
        self.assertEqual(self.fake.commands()[-2:], ["start all", "start kmalloc"])

    def test_older_than_in_each_header(self):
        self.fake.write("ctl", print_of(older=100))
        rc, out, err = self.fake.run("top", "--older", "100")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["print all older-than 100"])
        self.fake.write("ctl", print_of())
        rc, out, err = self.fake.run("top", "--older", "100")
        self.assertEqual(rc, 1)
        self.assertIn("ctl: the dump is of 'kmalloc-large', not of the print made for "
                      "'all (older than 100 ms)'", err)

    def test_nothing_traced(self):
        self.fake.write("ctl", "Print of all: 0 caches, 0 with outstanding objects, "
                        "most bytes first\n")
        rc, out, err = self.fake.run("top")
        self.assertEqual((rc, out), (1, ""))
        self.assertEqual(err, "slabtrace: no cache is traced or holds records (slabtrace "
                         "status; slabtrace record -c CACHE -- COMMAND)\n")
        # Traced, but nothing outstanding: the summary says it.
        self.fake.write("ctl", "Print of all: 5 caches, 0 with outstanding objects, "
                        "most bytes first\n")
        rc, out, err = self.fake.run("top")
        self.assertEqual((rc, out), (0, "Print of all: 5 caches, 0 with outstanding objects, "
                                        "most bytes first\n"), err)

    def test_a_print_cut_short_is_refused(self):
        with open(PRINT_ALL) as f:
            lines = f.read().splitlines(True)
        last = max(i for i, x in enumerate(lines) if x.startswith("Dumping"))
        cases = [
            # The last cache's dump missing: two of three.
            (lines[:last], "the print is cut short: it holds 2 caches, "
             "its first line counts 3"),
            # Cut in the last cache's dump.
            (lines[:last + 10], "the dump is cut short: it lists 1 objects, "
             "its header counts 5"),
            # Its header alone.
            (lines[:last + 1], "the dump is cut short: no 'traced' line after its header"),
            # One more dump than the summary counts.
            (lines + lines[last:], "the print holds more than the 3 caches its first "
             "line counts"),
            # Dumps of several caches without the summary line (from ctl,
            # not the print of all).
            (lines[1:], "a second dump header",
             "the dump is of 'kmalloc-large', not of the print made for 'all'"),
            (["Print of all: 3 caches\n"] + lines[1:], "cannot read 'Print of all: 3 caches'"),
        ]
        for cut, why, *ctl_why in cases:
            path = self.saved("".join(cut))
            rc, out, err = self.fake.run("report", path)
            self.assertEqual((rc, out), (1, ""), why)
            # "FILE: why", or "FILE:LINE: why" for a line that is wrong.
            self.assertRegex(err, r"saved\.dump(:\d+)?: " + re.escape(why))
            self.fake.write("ctl", "".join(cut))
            rc, out, err = self.fake.run("top")
            self.assertEqual(rc, 1, why)
            self.assertRegex(err, r"ctl(:\d+)?: " + re.escape((ctl_why or [why])[0]))


def described(tc, helptext):
    """@tc checks that each option of @helptext's usage (the text before
    its first empty line) has a line of its own after it."""
    usage, _, rest = helptext.partition("\n\n")
    for opt in set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", usage)):
        tc.assertRegex(rest, r"(?m)^ +(-\w, )?%s\b" % re.escape(opt),
                       "%s not described" % opt)


COMMANDS = ("status", "growth", "record", "top", "leaks", "report", "start", "stop",
            "reset", "mark")


class Conventions(unittest.TestCase):
    """--help, --version and usage errors, as a new user tries them."""

    def setUp(self):
        self.fake = Fake()

    def tearDown(self):
        self.fake.close()

    def test_every_command_has_help(self):
        for cmd in COMMANDS:
            for opt in ("--help", "-h"):
                rc, out, err = self.fake.run(cmd, opt)
                self.assertEqual((rc, err), (0, ""), cmd)
                self.assertRegex(out, r"^usage: slabtrace [a-z|]*%s" % cmd)
                self.assertIn("-h, --help", out)
        self.assertEqual(self.fake.commands(), [])
        rc, out, err = self.fake.run("--help")
        self.assertEqual((rc, err), (0, ""))
        for cmd in COMMANDS:
            self.assertIn(cmd, out)
        self.assertEqual(self.fake.run("--version")[:2], (0, "slabtrace 0.1\n"))

    def test_every_option_described(self):
        # Each option of a usage line has a line of its own below.
        for cmd in COMMANDS:
            described(self, self.fake.run(cmd, "--help")[1])

    def test_usage_errors_exit_2(self):
        cases = [("status", "extra"), ("top", "-n", "0"), ("record", "--", "true"),
                 ("leaks", "-i", "1"), ("top", "-r", "2"), ("top", "--pid", "abc"),
                 ("growth", "--frob"), ("growth", "-x"), ("top", "-n"), ("start",),
                 ("stop", "a", "b"), ("report",), ("report", "-c", "x", DUMP),
                 ("record", "-c", "kmalloc-64", "--auto", "--", "true"),
                 ("record", "-c", "kmalloc-64"), ("record", "--json", "-c", "dentry", "--", "true"),
                 ("top", "-i", "0"), ("top", "-i", "x"), ("record", "-s", "-1", "--", "true"),
                 ("growth", "--cache", "x"), ("top", "--older", "1e3"), ("frobnicate",)]
        for args in cases:
            rc, out, err = self.fake.run(*args)
            self.assertEqual((rc, out), (2, ""), "%s: %s" % (args, err))
            if args[0] != "frobnicate":
                self.assertRegex(err, r"^slabtrace: .*\(slabtrace %s --help\)\n$" % args[0],
                                 args)
        rc, _, err = self.fake.run("frobnicate")
        self.assertIn("unknown command 'frobnicate'", err)
        rc, _, err = self.fake.run()
        self.assertEqual(rc, 2)
        self.assertEqual(self.fake.commands(), [])

    def test_output_to_a_full_disk(self):
        # Output that could not be written is a failure, said: exit 1, not 0.
        widget = os.path.join(HERE, "kmemtrace", "widget")
        runs = [[BIN] + a for a in (
            ["report", DUMP], ["report", "--folded", DUMP], ["report", "--json", DUMP],
            ["top", "-c", "kmalloc-64"], ["top", "--json", "-c", "kmalloc-64"],
            ["leaks", "-c", "kmalloc-64"], ["growth", "-r", "2", "-i", "0.05"],
            ["growth", "--json", "-r", "2", "-i", "0.05"], ["status"], ["--help"],
            ["top", "--help"], ["--version"],
            # A status other than 0 says more, and is kept: COMMAND failed.
            ["growth", "--", "sh", "-c", "exit 4"])]
        runs += [[RECORD, "--help"]]
        if REPORT:
            runs += [[REPORT, "--help"], [REPORT, widget], [REPORT, "--json", widget]]
        for cmd in runs:
            with open("/dev/full", "w") as full:
                p = subprocess.run(cmd, env=self.fake.env(), stdout=full,
                                   stderr=subprocess.PIPE, text=True, timeout=60)
            name = os.path.basename(cmd[0])
            self.assertEqual(p.returncode, 3 if "exit 4" in cmd else 1, cmd)
            self.assertTrue(p.stderr.endswith(
                "%s: standard output: No space left on device\n" % name), (cmd, p.stderr))

    def test_output_to_a_pipe_whose_reader_has_gone(self):
        # SIGPIPE ignored (as the recorders do): a reader that has gone is
        # not a failure, nothing anyone reads was lost; exit 0, nothing said.
        for cmd in ([BIN, "report", DUMP], [BIN, "--help"], [RECORD, "--help"]):
            r, w = os.pipe()
            os.close(r)
            p = subprocess.run(cmd, env=self.fake.env(), stdout=w, stderr=subprocess.PIPE,
                               text=True, timeout=60, restore_signals=False,
                               preexec_fn=lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN))
            os.close(w)
            self.assertEqual((p.returncode, p.stderr), (0, ""), cmd)

    def test_options_after_operands(self):
        # As kmemtrace-report, perf and bcc take them.
        for before, after in (((("report", "--json", DUMP), ("report", DUMP, "--json"))),
                              (("report", "-n", "1", DUMP), ("report", DUMP, "-n", "1")),
                              (("top", "-n", "1", "kmalloc-64"), ("top", "kmalloc-64", "-n", "1"))):
            a, b = self.fake.run(*before), self.fake.run(*after)
            self.assertEqual(a[0], 0, a[2])
            self.assertEqual(a, b, after)
        rc, out, err = self.fake.run("start", "kmalloc-64", "--help")
        self.assertEqual((rc, err), (0, ""))
        # But for growth and record, COMMAND's options are its own.
        rc, out, err = self.fake.run("growth", "--", "sh", "-c", "exit 0", "-n", "1")
        self.assertEqual(rc, 0, err)
        rc, out, err = self.fake.run("growth", "sh", "-c", "exit 0", "-x")
        self.assertEqual(rc, 0, err)

    def test_version_everywhere(self):
        with open(os.path.join(TOP, "dkms.conf")) as f:
            v = re.search(r'^PACKAGE_VERSION="(.*)"$', f.read(), re.M).group(1)
        progs = [("slabtrace", [BIN]), ("kmemtrace-record", [RECORD]),
                 ("flamegraph.py", [sys.executable, os.path.join(TOP, "scripts", "tools",
                                                                 "flamegraph.py")])]
        if REPORT:
            progs.append(("kmemtrace-report", [REPORT]))
        for name, cmd in progs:
            for opt in ("-V", "--version"):
                p = subprocess.run(cmd + [opt], capture_output=True, text=True)
                self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "%s %s\n" % (name, v), ""),
                                 (name, opt))
        for cmd in COMMANDS:
            self.assertEqual(self.fake.run(cmd, "--version")[:2], (0, "slabtrace %s\n" % v))

    def test_one_meaning_per_short_option(self):
        # The four tools are one family: a short option means one long
        # option wherever it is (as bcc's and perf's do), and has one.
        helps = {"slabtrace " + c: self.fake.run(c, "--help")[1] for c in COMMANDS}
        helps["kmemtrace-record"] = self.fake.run("--help", prog=RECORD)[1]
        if REPORT:
            helps["kmemtrace-report"] = self.fake.run("--help", prog=REPORT)[1]
        helps["slabtrace-flamegraph"] = subprocess.run(
            [sys.executable, os.path.join(TOP, "scripts", "tools", "flamegraph.py"), "--help"],
            capture_output=True, text=True).stdout
        meaning = {}
        for tool, text in helps.items():
            usage = text.partition("\n\n")[0]
            for short in set(re.findall(r"(?<![\w-])-([a-zA-Z])\b", usage)):
                m = re.search(r"(?m)^ +-%s, (--[a-z-]+)" % short, text)
                self.assertIsNotNone(m, "%s: -%s has no long name" % (tool, short))
                meaning.setdefault(short, {}).setdefault(m.group(1), []).append(tool)
        for short, longs in meaning.items():
            self.assertEqual(len(longs), 1, "-%s means %s" % (short, longs))
        self.assertEqual(list(meaning["p"]), ["--pid"])
        self.assertEqual(list(meaning["c"]), ["--cache"])
        self.assertEqual(list(meaning["V"]), ["--version"])

    def test_usage_error_messages(self):
        rc, _, err = self.fake.run("record", "--", "true")
        self.assertIn("name the caches with -c CACHE, or let --auto find them", err)
        rc, _, err = self.fake.run("top", "-n", "x")
        self.assertIn("top: -n takes a whole number from 1 to 2147483647, not 'x'", err)
        # Past an int: refused, never cut to 0 (no sample), to a negative
        # (sampling forever) or to nothing shown.
        for args in (("growth", "-r", "4294967296"), ("growth", "-r", "2147483648"),
                     ("growth", "-n", "4294967296"), ("top", "-n", "2147483648")):
            rc, out, err = self.fake.run(*args)
            self.assertEqual((rc, out), (2, ""), args)
            self.assertIn("takes a whole number from 1 to 2147483647, not '%s'" % args[2], err)
        self.assertEqual(self.fake.run("top", "-r", "2")[2],
                         "slabtrace: top: -r goes with -i (slabtrace top --help)\n")
        self.assertEqual(self.fake.run("leaks", "-i", "1")[2],
                         "slabtrace: leaks: -i is not an option of leaks "
                         "(slabtrace leaks --help)\n")


class Record(unittest.TestCase):
    """record owns the caches it starts, and nothing else."""

    def setUp(self):
        self.fake = Fake()
        self.fake.write("slab/stats", STATS_IDLE)
        self.out = os.path.join(self.fake.root, "rec")

    def tearDown(self):
        self.fake.close()

    def test_record(self):
        rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--settle", "0", "-o", self.out,
                                     "--", "sh", "-c", "exit 0")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["start kmalloc-64", "stop kmalloc-64",
                                                "print kmalloc-64", "reset kmalloc-64"])
        self.assertEqual(sorted(os.listdir(self.out)),
                         ["kmalloc-64.dump", "kmalloc-64.folded",
                          "kmalloc-64.folded_bytes", "kmalloc-64.stacks"])
        with open(os.path.join(self.out, "kmalloc-64.dump")) as f:
            self.assertTrue(f.read().startswith("Dumping outstanding allocs from kmalloc-64\n"))
        self.assertRegex(out, r"\n +1 +20 +1280 .* leaky_alloc_buf \[leaky\]")
        # What was saved, by name: the cache's, not "CACHE".
        self.assertIn("\nrecord: saved in %s/:\n  kmalloc-64.dump (every object), "
                      "kmalloc-64.stacks, kmalloc-64.folded, kmalloc-64.folded_bytes\n"
                      "record: slabtrace-flamegraph %s/kmalloc-64.folded_bytes > leaks.svg "
                      "draws a flame graph; the records are reset\n" % (self.out, self.out), out)
        self.assertNotIn("CACHE", out.split("record: saved in")[1])

    def test_record_only_leaks(self):
        # The print with verdicts: PID 616's stack a leak, PID 617's live,
        # get_mountpoint's none.  --only-leaks shows the leak alone; the
        # saved dump keeps every object.
        text = self.fake.read("ctl").replace(
            "-------------------------\n",
            "verdicts: 1 leak, 1 live, 0 kept, 0 unknown\n"
            "stack 1: leak (error path): 20 of 80 not freed, allocated steadily over 20.0 s; "
            "1.0 s-21.0 s old; 60 freed lived <1 ms median, <2 ms p99\n"
            "stack 2: live: all 5 younger than the freed ones' p99; 500 freed lived "
            "<4.0 s median, <4.0 s p99\n"
            "-------------------------\n", 1).replace(
            ", from PID 616", ", stack 1 (leak), from PID 616").replace(
            ", from PID 617", ", stack 2 (live), from PID 617")
        for only in (False, True):
            self.fake.write("ctl", text)
            out_dir = "%s-%d" % (self.out, only)
            rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--settle", "0",
                                         "-o", out_dir, *(["--only-leaks"] if only else []),
                                         "--", "true")
            self.assertEqual(rc, 0, err)
            self.assertRegex(out, r"\n +1 +20 +1280 .* leak +leaky_alloc_buf \[leaky\]")
            self.assertEqual("leaky_orphan_buf" in out, not only, out)
            self.assertEqual("get_mountpoint" in out, not only, out)
            with open(os.path.join(out_dir, "kmalloc-64.dump")) as f:
                self.assertEqual(f.read().count("\nObj "), 26)

    def test_record_on_a_full_disk(self):
        # The stacks view (1847 bytes) written whole to the buffer, then
        # fclose() fails: a full disk, a tmpfs of 16 KiB that the dump
        # (14.6 KB) fills, in a mount namespace of its own.  Said once,
        # the records kept, exit 1 (it was a second fclose of the same
        # FILE: an abort, exit 134).
        if os.geteuid() or subprocess.run(["unshare", "-m", "true"]).returncode:
            self.skipTest("a tmpfs of its own needs root (CAP_SYS_ADMIN)")
        os.makedirs(self.out, mode=0o700)
        rc, out, err = self.fake.run(
            "-m", "sh", "-c", 'mount -t tmpfs -o size=16k,mode=0700 none "$1" && shift && exec "$@"',
            "sh", self.out, BIN, "record", "-c", "kmalloc-64", "--settle", "0", "-o", self.out,
            "--", "true", prog="unshare")
        self.assertEqual(rc, 1, err)
        self.assertEqual(err.count("slabtrace: %s/kmalloc-64.stacks: No space left on device\n"
                                   % self.out), 1, err)
        self.assertIn("the records are kept", err)
        self.assertNotIn("reset kmalloc-64", self.fake.commands())

    def test_record_not_through_a_link(self):
        # DIR is the user's: a link in it, to a file root can write, is
        # not followed, nor is a FIFO no one reads waited for; said, the
        # records kept, exit 1.  Each the first file saved, the dump.
        target = os.path.join(self.fake.root, "victim")
        with open(target, "w") as f:
            f.write("precious\n")
        for n, (make, why) in enumerate(((lambda p: os.symlink(target, p),
                                          "Too many levels of symbolic links"),
                                         (os.mkfifo, "No such device or address"))):
            out_dir = "%s-%d" % (self.out, n)
            os.makedirs(out_dir)
            make(os.path.join(out_dir, "kmalloc-64.dump"))
            rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--settle", "0",
                                         "-o", out_dir, "--", "true")
            self.assertEqual(rc, 1, err)
            self.assertIn("%s/kmalloc-64.dump: %s\n" % (out_dir, why), err)
            self.assertIn("the records are kept", err)
            self.assertNotIn("reset kmalloc-64", self.fake.commands())
        with open(target) as f:
            self.assertEqual(f.read(), "precious\n")

    def test_record_a_print_it_cannot_read(self):
        # A print the parser refuses (here a context the module never
        # writes): said, the print saved as it came, the records kept
        # (no reset), exit 1; it was an exit in the middle of the
        # capture, the records reset by the watchdog.
        text = self.fake.read("ctl")
        self.fake.write("ctl", text.replace(", from PID", ", from nobody", 1))
        rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--settle", "0", "-o", self.out,
                                     "--", "true")
        self.assertEqual(rc, 1, err)
        self.assertIn("cannot read its context", err)
        self.assertIn("record: a print could not be read (said above): saved as it came in %s, "
                      "and the records are kept" % self.out, err)
        with open(os.path.join(self.out, "kmalloc-64.dump")) as f:
            self.assertIn(", from nobody", f.read())
        self.assertEqual(self.fake.commands(), ["start kmalloc-64", "stop kmalloc-64",
                                                "print kmalloc-64"])

    def test_record_a_print_that_fails(self):
        # A view that cannot be read (here: gone), as a print the module
        # refuses (ENOMEM): said, the records kept (no reset, no
        # watchdog's), the other views not saved, exit 1.  It was an exit
        # in the middle, and the watchdog reset the records.
        os.unlink(os.path.join(self.fake.st, "slab", "stacks"))
        rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--settle", "0", "-o", self.out,
                                     "--", "true")
        self.assertEqual(rc, 1, err)
        self.assertIn("/slab/stacks: No such file or directory\n", err)
        self.assertIn("record: a stop or a print failed (said above): the records are kept", err)
        self.assertNotIn("watchdog", err)
        self.assertEqual(self.fake.commands(), ["start kmalloc-64", "stop kmalloc-64",
                                                "print kmalloc-64"])

    def test_record_one_cache_twice(self):
        # One name twice, or two names SLUB merged: refused before anything
        # is traced, saying why (it was "another slabtrace record is
        # tracing it").
        for a, b in (("kmalloc-64", "kmalloc-64"), ("Acpi-Namespace", "ksm_mm_slot"),
                     ("Acpi-Namespace", ":0000048")):
            rc, out, err = self.fake.run("record", "-c", "dentry", "-c", a, "-c", b,
                                         "--settle", "0", "-o", self.out, "--", "true")
            self.assertEqual((rc, out), (2, ""), err)
            self.assertIn("slabtrace: record: -c %s and -c %s are one cache: name it once "
                          % (a, b), err)
            self.assertNotIn("another slabtrace record", err)
        self.assertEqual(self.fake.commands(), [])
        # Two caches are two (the fake's one dump fails the second print).
        rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "-c", "Acpi-Namespace",
                                     "--settle", "0", "-o", self.out, "--", "true")
        self.assertNotIn("one cache", err)
        self.assertEqual(self.fake.commands()[:2], ["start kmalloc-64", "start Acpi-Namespace"])

    def until_signal(self, sig, *args):
        """record -p ARGS without a command, sent SIG once it says it
        traces: its status, its first line, the rest of its output and
        its errors."""
        p = self.fake.popen("record", "-c", "kmalloc-64", *args,
                            "--settle", "0", "-o", self.out)
        try:
            line = p.stdout.readline()
            p.send_signal(sig)
            out, err = p.communicate(timeout=30)
        finally:
            p.kill()
        return p.returncode, line, out, err

    def test_record_pids_until_sigint(self):
        # memleak -p PID's way: the processes' allocations (the module's
        # pid filter), until ^C; then saved as after a command, exit 0.
        rc, line, out, err = self.until_signal(signal.SIGINT, "-p", "616,617", "-p", "9")
        self.assertEqual(line, "record: tracing kmalloc-64, pid 616 617 9; "
                         "until SIGINT (^C), SIGTERM or SIGHUP\n")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["start kmalloc-64 pid 616 617 9",
                                                "stop kmalloc-64", "print kmalloc-64",
                                                "reset kmalloc-64"])
        self.assertIn("record: saved in %s/:\n  kmalloc-64.dump" % self.out, out)
        rc, _, err = self.fake.run("record", "-c", "kmalloc-64", "--auto", "-p", "1")
        self.assertEqual(rc, 2)

    def test_record_pids_every_thread(self):
        # -p is the module's filter, by process (current->tgid): what the
        # dump holds is every thread's of those processes, each written as
        # "from PID TID".  record shows it all, not the objects of a
        # thread whose ID is a -p (it showed PID 617's alone: the 20 of
        # 616, another thread of the process, were hidden).
        rc, line, out, err = self.until_signal(signal.SIGINT, "-p", "617")
        self.assertIn("until SIGINT", line)
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands()[0], "start kmalloc-64 pid 617")
        self.assertRegex(out, r"\n +1 +20 +1280 .* leaky_alloc_buf \[leaky\]")
        self.assertNotIn("pass the filters", out)

    def test_record_pids_until_sighup(self):
        # A hang-up ends it as ^C does: saved, reset, exit 0.
        rc, line, out, err = self.until_signal(signal.SIGHUP, "-p", "616")
        self.assertIn("until SIGINT (^C), SIGTERM or SIGHUP", line)
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands()[-1], "reset kmalloc-64")
        self.assertIn("record: saved in %s/:\n  kmalloc-64.dump" % self.out, out)

    def test_record_of_a_command_that_cannot_run(self):
        rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--settle", "0", "-o", self.out,
                                     "--", "/nonexistent")
        self.assertEqual(rc, 1, err)
        self.assertIn("slabtrace: cannot run /nonexistent: No such file or directory\n", err)
        self.assertNotIn("exited with 127", err)
        self.assertEqual(self.fake.commands(), ["start kmalloc-64", "stop kmalloc-64",
                                                "print kmalloc-64", "reset kmalloc-64"])

    def test_record_keep_and_command_status(self):
        rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--settle", "0", "--keep",
                                     "--", "sh", "-c", "exit 4")
        self.assertEqual(rc, 3)
        self.assertIn("sh exited with 4", err)
        self.assertNotIn("reset kmalloc-64", self.fake.commands())
        self.assertTrue(os.path.isdir(os.path.join(self.fake.root, "slabtrace.out")))

    def test_record_auto(self):
        p = os.path.join(self.fake.proc, "slabinfo")
        self.fake.write("ctl", dump_of("leaky_widget"))
        rc, out, err = self.fake.run(
            "record", "--auto", "--settle", "0", "--", "sh", "-c",
            "sed -i 's/^leaky_widget *[0-9]*/leaky_widget 99/' " + p)
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["start leaky_widget", "stop leaky_widget",
                                                "print leaky_widget", "reset leaky_widget"])
        self.assertIn("record: a first run of the command", out)

    def test_record_auto_not_its_own_cache(self):
        # slabtrace_record grows steadily (another record's records), the
        # command's leaky_widget once: --auto traces leaky_widget, and
        # says none grew steadily (it took slabtrace_record's trend for
        # the others', found none to trace, and traced slabtrace_record).
        p = os.path.join(self.fake.proc, "slabinfo")
        with open(p) as f:
            text = f.read()
        with open(p + ".new", "w") as f:
            f.write(text + "slabtrace_record     100     100     64   64    1 : tunables    0    0"
                    "    0 : slabdata      1      1      0\n")
        os.replace(p + ".new", p)
        self.fake.write("ctl", dump_of("leaky_widget"))
        script = ("sed -i 's/^leaky_widget *[0-9]*/leaky_widget 99/' %s; n=100; i=0; "
                  "while [ $i -lt 8 ]; do n=$((n + 1000)); "
                  "sed -i \"s/^slabtrace_record *[0-9]*/slabtrace_record $n/\" %s; "
                  "sleep 0.5; i=$((i + 1)); done" % (p, p))
        rc, out, err = self.fake.run("record", "--auto", "--settle", "0", "--", "sh", "-c", script)
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["start leaky_widget", "stop leaky_widget",
                                                "print leaky_widget", "reset leaky_widget"])
        self.assertIn("record: no cache grew steadily", out)

    def test_record_auto_escapes_a_name(self):
        # --auto takes names from /proc/slabinfo, where a module's cache
        # may have any byte: escaped as the module writes names, never raw.
        p = os.path.join(self.fake.proc, "slabinfo")
        with open(p) as f:
            text = f.read()
        with open(p, "w") as f:
            f.write(text.replace("leaky_widget ", "leaky\x1b[2Jwidget "))
        self.fake.write("ctl", dump_of("leaky_widget"))
        rc, out, err = self.fake.run(
            "record", "--auto", "--settle", "0", "--", "sh", "-c",
            "sed -i 's/^leaky\x1b\\[2Jwidget *[0-9]*/leaky\x1b[2Jwidget 99/' " + p)
        self.assertIn("start leaky\x1b[2Jwidget", self.fake.commands())
        self.assertIn("record: tracing leaky\\e[2Jwidget; running", out)
        self.assertNotIn("\x1b", out + err)

    def test_a_cache_traced_already_is_shared(self):
        # Traced by hand (or left by a killed record): read, never stopped
        # or reset.
        self.fake.write("slab/stats", STATS_TRACING)
        rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--settle", "0", "-o", self.out,
                                     "--", "true")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["print kmalloc-64"])
        self.assertIn("record: tracing kmalloc-64 (shared); running true", out)
        self.assertIn("a shared cache was traced before: it is not stopped or reset here", out)
        self.assertTrue(os.path.exists(os.path.join(self.out, "kmalloc-64.dump")))

    def test_a_merged_name_of_a_traced_cache_is_shared(self):
        self.fake.write("slab/stats", STATS_TRACING.replace("kmalloc-64", "Acpi-Namespace"))
        self.fake.write("ctl", dump_of("shared_policy_node"))
        rc, out, err = self.fake.run("record", "-c", "shared_policy_node", "--settle", "0",
                                     "--", "true")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["print shared_policy_node"])

    def test_a_stopped_cache_with_an_odd_name_is_refused(self):
        # The stats file writes names escaped ("odd\\x20name"): record
        # finds the cache it names raw there all the same, and refuses it.
        odd = "odd name\x1b"
        os.makedirs(os.path.join(self.fake.slab, odd))
        self.fake.write("slab/stats", STATS.replace("cache kmalloc-64 ",
                                                    "cache odd\\x20name\\e "))
        rc, out, err = self.fake.run("record", "-c", odd, "--", "true")
        self.assertEqual(rc, 1, err)
        self.assertIn("it holds the records of a stopped trace", err)
        self.assertEqual(self.fake.commands(), [])

    def test_a_stopped_cache_with_records_is_refused(self):
        self.fake.write("slab/stats", STATS)
        rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--", "true")
        self.assertEqual(rc, 1)
        self.assertEqual(err, "slabtrace: record: not tracing kmalloc-64: it holds the records "
                         "of a stopped trace (slabtrace leaks -c kmalloc-64 shows them, "
                         "slabtrace reset kmalloc-64 drops them)\n")
        self.assertEqual(self.fake.commands(), [])

    def refused_as_held(self, name):
        """A second record of NAME, refused: another record holds it."""
        rc, out, err = self.fake.run("record", "-c", name, "--settle", "0", "-o",
                                     self.out + "2", "--", "true")
        self.assertEqual(rc, 1, err)
        self.assertEqual(err, "slabtrace: record: not tracing %s: another slabtrace "
                         "record is tracing it (slabtrace top -c %s reads it "
                         "meanwhile)\n" % (name, name))

    def test_two_records_of_one_cache(self):
        # The first holds Acpi-Namespace while its command runs; a second
        # record of it, or of another of its merged names, is refused and
        # touches nothing; the first ends as if alone.
        self.fake.write("ctl", dump_of("Acpi-Namespace"))
        first = self.fake.popen("record", "-c", "Acpi-Namespace", "--settle", "0", "-o", self.out,
                                "--", "sleep", "1.5")
        try:
            self.fake.wait_for(lambda: self.fake.commands() == ["start Acpi-Namespace"],
                               "start")
            for name in ("Acpi-Namespace", "ksm_mm_slot"):
                self.refused_as_held(name)
        finally:
            out, err = first.communicate(timeout=30)
        self.assertEqual(first.returncode, 0, err)
        self.assertEqual(self.fake.commands(),
                         ["start Acpi-Namespace", "stop Acpi-Namespace",
                          "print Acpi-Namespace", "reset Acpi-Namespace"])
        # Once it is done, the cache is free.
        rc, out, err = self.fake.run("record", "-c", "ksm_mm_slot", "--settle", "0", "--", "true")
        self.assertEqual(err.count("another slabtrace record"), 0, err)

    def test_two_records_of_a_pseudo_cache(self):
        # kmalloc-large and percpu have no /sys/kernel/slab entry: record
        # locks a stand-in, RUN/slabtrace/NAME.lock, so a second record
        # of one is refused as for a cache (it shared it, and the first
        # one's end reset it under the second); -c all and -c kmalloc
        # hold kmalloc-large's too.
        run = self.fake.rundir
        for first_cache, name in (("percpu", "percpu"), ("kmalloc-large", "kmalloc-large"),
                                  ("all", "kmalloc-large")):
            self.fake.write("ctl", dump_of(first_cache))
            first = self.fake.popen("record", "-c", first_cache, "--settle", "0",
                                    "-o", self.out, "--", "sleep", "1.5")
            try:
                self.fake.wait_for(lambda: "start " + first_cache in self.fake.commands(),
                                   "start")
                self.refused_as_held(name)
            finally:
                first.communicate(timeout=30)
            self.assertEqual(self.fake.commands().count("start " + first_cache), 1)
            self.assertEqual(self.fake.commands().count("start " + name), int(name == first_cache))
        self.assertEqual(stat.S_IMODE(os.stat(os.path.join(run, "slabtrace")).st_mode), 0o700)
        self.assertEqual(stat.S_IMODE(os.stat(os.path.join(run, "slabtrace",
                                                           "percpu.lock")).st_mode), 0o600)
        # Once the first is done, the stand-in is free; a real cache locks
        # no stand-in.
        rc, out, err = self.fake.run("record", "-c", "percpu", "--settle", "0", "--", "true")
        self.assertNotIn("another slabtrace record", err)
        self.assertEqual(sorted(os.listdir(os.path.join(run, "slabtrace"))),
                         ["kmalloc-large.lock", "percpu.lock"])

    def test_no_run_directory_no_stand_in(self):
        # A system with no /run at all (a bare initramfs): as without
        # sysfs, record locks nothing for kmalloc-large, and records.
        self.fake.write("ctl", dump_of("kmalloc-large"))
        env = {"SLABTRACE_RUN": os.path.join(self.fake.root, "no-such-run")}
        rc, out, err = self.fake.run("record", "-c", "kmalloc-large", "--settle", "0",
                                     "-o", self.out, "--", "true", env=env)
        self.assertEqual(rc, 0, err)
        self.assertIn("start kmalloc-large", self.fake.commands())
        self.assertFalse(os.path.exists(env["SLABTRACE_RUN"]))

    def test_a_lock_held_elsewhere_is_respected(self):
        fd = os.open(os.path.join(self.fake.slab, "kmalloc-64"), os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--", "true")
        finally:
            os.close(fd)
        self.assertEqual(rc, 1)
        self.assertEqual(self.fake.commands(), [])

    def signalled(self, sig, keep=False, cache="kmalloc-64"):
        """record around a long command, sent @sig once it runs."""
        pidfile = os.path.join(self.fake.root, "cmd.pid")
        if os.path.exists(pidfile):
            os.unlink(pidfile)

        def started():
            if not os.path.exists(pidfile):
                return False
            with open(pidfile) as f:
                return f.read().endswith("\n")

        rec = self.fake.popen("record", "-c", cache, "--settle", "0", "-o", self.out,
                              *(["--keep"] if keep else []), "--",
                              "sh", "-c", "echo $$ > %s; exec sleep 30" % pidfile)
        self.fake.wait_for(started, "command")
        with open(pidfile) as f:
            cmd = int(f.read())
        start = time.monotonic()
        rec.send_signal(sig)
        rec.wait(timeout=30)
        secs = time.monotonic() - start
        if sig == signal.SIGKILL:
            # The command outlives record (and holds its output pipes).
            os.kill(cmd, signal.SIGKILL)
        out, err = rec.communicate(timeout=30)
        return rec.returncode, out, err, secs

    def test_sigterm_ends_the_command_then_saves_and_cleans_up(self):
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            rc, out, err, secs = self.signalled(sig)
            self.assertEqual(rc, 128 + sig, err)
            self.assertLess(secs, 20)
            self.assertIn("sh was killed by signal %d" % (signal.SIGINT if sig == signal.SIGINT
                                                          else signal.SIGTERM), err)
            self.assertEqual(self.fake.commands()[-4:],
                             ["start kmalloc-64", "stop kmalloc-64", "print kmalloc-64",
                              "reset kmalloc-64"])
            self.assertTrue(os.path.exists(os.path.join(self.out, "kmalloc-64.dump")))
            os.unlink(os.path.join(self.out, "kmalloc-64.dump"))

    def test_out_dir_root_only_and_of_no_other_user(self):
        # What is saved is root's (the module's files are 0400/0600): the
        # files 0600, DIR 0700.
        rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--settle", "0", "-o",
                                     self.out, "--", "true")
        self.assertEqual(rc, 0, err)
        self.assertEqual(stat.S_IMODE(os.stat(self.out).st_mode), 0o700)
        for f in os.listdir(self.out):
            self.assertEqual(stat.S_IMODE(os.stat(os.path.join(self.out, f)).st_mode), 0o600, f)
        if os.geteuid():
            self.skipTest("chown needs root")
        # A directory another user made (who could link its files to
        # /etc/shadow), or one anybody may write in: refused at once.
        n = len(self.fake.commands())
        theirs = os.path.join(self.fake.root, "theirs")
        os.makedirs(os.path.join(theirs, "sub"))
        os.chown(theirs, 12345, 12345)
        open_ = os.path.join(self.fake.root, "open")
        os.makedirs(open_)
        os.chmod(open_, 0o777)
        for d, why in ((theirs, "%s belongs to uid 12345, who could put links in it" % theirs),
                       (os.path.join(theirs, "sub"),
                        "%s belongs to uid 12345, who could put links in it" % theirs),
                       (open_, "others may write in %s" % open_)):
            rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--settle", "0",
                                         "-o", d, "--", "true")
            self.assertEqual((rc, out), (1, ""), err)
            self.assertIn("slabtrace: %s: %s: save in a directory of yours\n" % (d, why), err)
        # Nothing is made in a directory another user owns.
        rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--settle", "0",
                                     "-o", os.path.join(theirs, "new"), "--", "true")
        self.assertEqual(rc, 1, err)
        self.assertIn("belongs to uid 12345", err)
        self.assertFalse(os.path.exists(os.path.join(theirs, "new")))
        self.assertEqual(self.fake.commands()[n:], [])
        # Their link to a directory of root's: what is saved goes where the
        # link led when it was checked, whatever the link says later.
        safe = os.path.join(self.fake.root, "safe")
        os.makedirs(safe, mode=0o700)
        os.symlink(safe, os.path.join(theirs, "link"))
        os.lchown(os.path.join(theirs, "link"), 12345, 12345)
        rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--settle", "0", "-o",
                                     os.path.join(theirs, "link"), "--", "true")
        self.assertEqual(rc, 0, err)
        self.assertIn("kmalloc-64.dump", os.listdir(safe))
        # COMMAND runs with the user's umask, not the recorder's 077.
        mask = os.umask(0o022)
        os.umask(mask)
        rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--settle", "0", "-o",
                                     self.out, "--", "sh", "-c", "umask; umask >&2")
        self.assertEqual(rc, 0, err)
        self.assertIn("%04o\n" % mask, err)
        # A --pprof FILE that is a link is not written through.
        target = os.path.join(self.fake.root, "target")
        with open(target, "w") as f:
            f.write("keep\n")
        link = os.path.join(self.fake.root, "p.pb.gz")
        os.symlink(target, link)
        rc, out, err = self.fake.run("report", "--pprof", link, DUMP)
        self.assertEqual(rc, 1, err)
        self.assertIn("Too many levels of symbolic links", err)
        with open(target) as f:
            self.assertEqual(f.read(), "keep\n")
        n = len(self.fake.commands())
        # The user sudo ran for may own it, and gets what was saved.
        os.chown(theirs, 12345, 0)
        rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--settle", "0",
                                     "-o", theirs, "--", "true",
                                     env={"SUDO_UID": "12345", "SUDO_GID": "12346"})
        self.assertEqual(rc, 0, err)
        saved = [os.path.join(theirs, f) for f in os.listdir(theirs)
                 if f not in ("sub", "link")]
        self.assertEqual(len(saved), 4)
        for f in saved:
            st = os.stat(f)
            self.assertEqual((st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)),
                             (12345, 12346, 0o600), f)

    def test_report_pprof_as_recorded(self):
        # Run as root (its input may be root's only), report --pprof makes
        # its file as record --pprof does: 0600, given to the user sudo
        # ran for; not in a directory anybody may write in.
        if os.geteuid():
            self.skipTest("chown needs root")
        sudo = {"SUDO_UID": "12345", "SUDO_GID": "12346"}
        runs = [(None, lambda prof: ["report", "--pprof", prof, DUMP])]
        if REPORT:
            widget = os.path.join(HERE, "kmemtrace", "widget")
            runs.append((REPORT, lambda prof: ["--pprof", prof, widget]))
        for i, (prog, argv) in enumerate(runs):
            prof = os.path.join(self.fake.root, "p%d.pb.gz" % i)
            rc, out, err = self.fake.run(*argv(prof), prog=prog, env=sudo)
            self.assertEqual(rc, 0, err)
            st = os.stat(prof)
            self.assertEqual((st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)),
                             (12345, 12346, 0o600), prog)
            anybodys = os.path.join(self.fake.root, "anybodys%d" % i)
            os.mkdir(anybodys)
            os.chmod(anybodys, 0o777)
            rc, out, err = self.fake.run(*argv(os.path.join(anybodys, "p.pb.gz")), prog=prog)
            self.assertEqual(rc, 1, err)
            self.assertIn("others may write in", err)
            self.assertEqual(os.listdir(anybodys), [])

    def test_a_snapshot_not_saved_is_kept(self):
        # -o names a file: said before anything is traced.
        path = os.path.join(self.fake.root, "afile")
        with open(path, "w") as f:
            f.write("x\n")
        n = len(self.fake.commands())
        rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--settle", "0", "-o", path,
                                     "--", "true")
        self.assertEqual(rc, 1)
        self.assertIn("afile: not a directory", err)
        self.assertEqual(self.fake.commands()[n:], [])
        # The dump cannot be written (a directory of its name): the
        # records are kept, stopped, not reset, and record says so.
        os.makedirs(os.path.join(self.out, "kmalloc-64.dump"))
        rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--settle", "0", "-o",
                                     self.out, "--", "true")
        self.assertEqual(rc, 1, err)
        self.assertIn("kmalloc-64.dump: Is a directory", err)
        self.assertIn("the records are kept (slabtrace leaks -c CACHE shows them)", err)
        self.assertEqual(self.fake.commands()[n:], ["start kmalloc-64", "stop kmalloc-64",
                                                    "print kmalloc-64"])

    def test_a_pprof_not_written_fails_after_the_cleanup(self):
        # --pprof FILE cannot be written (a directory of its name): said,
        # the snapshot saved, the cache reset by record itself (no
        # watchdog's), exit 1.  It was an exit before the reset, and the
        # watchdog's reset.
        prof = os.path.join(self.fake.root, "p.pb.gz")
        os.makedirs(prof)
        rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--settle", "0", "-o",
                                     self.out, "--pprof", prof, "--", "true")
        self.assertEqual(rc, 1, err)
        self.assertEqual(err, "slabtrace: %s: Is a directory\n" % prof)
        self.assertEqual(len(os.listdir(self.out)), 4)
        self.assertIn("the records are reset\n", out)
        self.assertEqual(self.fake.commands(), ["start kmalloc-64", "stop kmalloc-64",
                                                "print kmalloc-64", "reset kmalloc-64"])

    def test_a_signal_reaches_a_stopped_command(self):
        # The command stopped itself (as ^Z or SIGTTIN would): the SIGINT
        # record passes on comes with a SIGCONT, and its trap runs.
        n = len(self.fake.commands())
        rec = self.fake.popen("record", "-c", "kmalloc-64", "--settle", "0", "-o", self.out,
                              "--", "sh", "-c", "trap 'touch got; exit 0' INT; "
                              "echo $$ > started.tmp; mv started.tmp started; "
                              "kill -STOP $$; sleep 30")
        started = os.path.join(self.fake.root, "started")
        try:
            self.fake.wait_for(lambda: os.path.exists(started), "the command", secs=10)
            time.sleep(0.3)
            rec.send_signal(signal.SIGINT)
            out, err = rec.communicate(timeout=20)
        finally:
            if rec.poll() is None:
                # The stopped command holds record's output pipes.
                with open(started) as f:
                    os.kill(int(f.read()), signal.SIGKILL)
                rec.kill()
                rec.communicate()
        self.assertEqual(rec.returncode, 128 + signal.SIGINT, err)
        self.assertTrue(os.path.exists(os.path.join(self.fake.root, "got")))
        self.assertEqual(self.fake.commands()[n:], ["start kmalloc-64", "stop kmalloc-64",
                                                    "print kmalloc-64", "reset kmalloc-64"])

    def test_a_hang_up_to_the_session_leader_is_passed_on(self):
        # Record leads its session (ssh -t host slabtrace record ...) and
        # its terminal hangs up: the kernel sends SIGHUP to record alone.
        pid, fd = pty.fork()
        if not pid:
            os.chdir(self.fake.root)
            os.execve(BIN, [BIN, "record", "-c", "kmalloc-64", "--settle", "0", "-o",
                            self.out, "--", "sh", "-c", "touch started; sleep 30; touch done"],
                      self.fake.env())
        try:
            self.fake.wait_for(lambda: os.path.exists(os.path.join(self.fake.root, "started")),
                               "the command", secs=10)
            os.close(fd)
            for _ in range(200):
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                time.sleep(0.1)
            else:
                self.fail("record still waits for sleep 30 after the hang-up")
        finally:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        self.assertEqual(os.waitstatus_to_exitcode(status), 128 + signal.SIGHUP)
        self.assertFalse(os.path.exists(os.path.join(self.fake.root, "done")))
        self.assertEqual(self.fake.commands()[-1], "reset kmalloc-64")

    def test_sigterm_as_the_command_starts_is_not_lost(self):
        """SIGTERM sent the moment record has started its trace, before or
        while COMMAND is forked: record never waits the command's 30 s out."""
        for _ in range(20):
            n = len(self.fake.commands())
            rec = self.fake.popen("record", "-c", "kmalloc-64", "--settle", "0", "-o", self.out,
                                  "--", "sleep", "30")
            self.fake.wait_for(lambda: "start kmalloc-64" in self.fake.commands()[n:],
                               "start", secs=10)
            rec.send_signal(signal.SIGTERM)
            try:
                rec.wait(timeout=20)
            except subprocess.TimeoutExpired:
                rec.kill()
                rec.communicate()
                self.fail("SIGTERM lost: record still waits for sleep 30")
            out, err = rec.communicate()
            self.assertEqual(rec.returncode, 128 + signal.SIGTERM, err)
            self.assertEqual(self.fake.commands()[-3:],
                             ["stop kmalloc-64", "print kmalloc-64", "reset kmalloc-64"])

    def test_sigkill_the_watchdog_cleans_up(self):
        for keep in (False, True):
            rc, out, err, secs = self.signalled(signal.SIGKILL, keep)
            self.assertEqual(rc, -signal.SIGKILL)
            want = ["start kmalloc-64", "stop kmalloc-64"] + ([] if keep else
                                                              ["reset kmalloc-64"])
            self.fake.wait_for(lambda: self.fake.commands()[-len(want):] == want,
                               "the watchdog's commands")
            self.assertRegex(err, r"slabtrace: record \(pid \d+\) ended without cleaning up; "
                             r"its watchdog %s kmalloc-64\n" %
                             ("stopped" if keep else "stopped and reset"))


    def test_record_a_word(self):
        # Nothing traced: record starts the word, stops, prints, saves and
        # resets it as a cache; one file a view, named after the word.
        for word in ("all", "kmalloc"):
            self.fake.write("ctl", print_of(word))
            rc, out, err = self.fake.run("record", "-c", word, "--settle", "0", "-o", self.out,
                                         "--", "true")
            self.assertEqual(rc, 0, err)
            self.assertEqual(self.fake.commands(), ["start " + word, "stop " + word,
                                                    "print " + word, "reset " + word])
            self.assertEqual(sorted(x for x in os.listdir(self.out) if x.startswith(word)),
                             [word + ".dump", word + ".folded", word + ".folded_bytes",
                              word + ".stacks"])
            with open(os.path.join(self.out, word + ".dump")) as f:
                self.assertTrue(f.read().startswith(print_of(word)))
            self.assertIn("record: tracing %s; running true\n" % word, out)
            self.assertIn("record: saved in %s/:\n  %s.dump (every object), %s.stacks, "
                          "%s.folded, %s.folded_bytes\nrecord: slabtrace-flamegraph "
                          "%s/%s.folded_bytes > leaks.svg draws a flame graph; the records "
                          "are reset\n" % ((self.out,) + (word,) * 4 + (self.out, word)), out)
            self.assertIn("\nPrint of %s: 154 caches, 3 with outstanding objects" % word, out)
            self.assertRegex(out, r"\n +1 +3 +49152 .* bigleak_large \[bigleak\]")
            self.assertRegex(out, r"\n +1 +5 +320 .* leaky_alloc_buf \[leaky\]")

    def test_a_word_only_when_nothing_is_traced(self):
        for stats in (STATS_TRACING, STATS):
            self.fake.write("slab/stats", stats)
            rc, out, err = self.fake.run("record", "-c", "kmalloc", "--", "true")
            self.assertEqual((rc, out), (1, ""))
            self.assertEqual(err, "slabtrace: record: not tracing kmalloc: a cache is traced "
                             "or holds records (slabtrace status shows them); record takes a "
                             "word only when none is: stop and reset them first (slabtrace "
                             "stop all; slabtrace reset all), or name caches with -c\n")
        self.assertEqual(self.fake.commands(), [])
        rc, out, err = self.fake.run("record", "-c", "all", "-c", "dentry", "--", "true")
        self.assertEqual(rc, 2)
        self.assertIn("record: -c all stands for a set of caches: the only -c then", err)

    def test_a_word_record_holds_its_caches(self):
        # While it runs, another record of one of its caches is refused
        # (a random kmalloc cache's too: it was not taken for one);
        # one of a cache -c kmalloc does not stand for is not.
        os.makedirs(os.path.join(self.fake.slab, "kmalloc-rnd-01-64"))
        self.fake.write("ctl", print_of("kmalloc"))
        first = self.fake.popen("record", "-c", "kmalloc", "--settle", "0", "-o", self.out,
                                "--", "sleep", "1.5")
        try:
            self.fake.wait_for(lambda: self.fake.commands() == ["start kmalloc"], "start")
            for cache in ("kmalloc-8k", "kmalloc-rnd-01-64"):
                rc, out, err = self.fake.run("record", "-c", cache, "--settle", "0", "-o",
                                             self.out + "2", "--", "true")
                self.assertEqual(rc, 1, err)
                self.assertIn("record: not tracing %s: another slabtrace record is "
                              "tracing it" % cache, err)
            self.fake.write("ctl", dump_of("dentry") + "start kmalloc\n")
            rc, out, err = self.fake.run("record", "-c", "dentry", "--settle", "0", "-o",
                                         self.out + "2", "--", "true")
            self.assertEqual(rc, 0, err)
            self.fake.write("ctl", print_of("kmalloc") + "start kmalloc\n")
        finally:
            out, err = first.communicate(timeout=30)
        self.assertEqual(first.returncode, 0, err)
        self.assertEqual(self.fake.commands(), ["start kmalloc", "stop kmalloc",
                                                "print kmalloc", "reset kmalloc"])

    def test_the_watchdog_says_what_it_could_not_do(self):
        # The module gone while record runs: record fails, and its watchdog
        # cannot stop the cache: it says so and why, not that it did.
        script = "rm -rf %s %s" % (os.path.join(self.fake.sys, "module", "slabtrace"),
                                   self.fake.st)
        rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "--settle", "0",
                                     "--", "sh", "-c", script)
        self.assertEqual(rc, 1, err)
        self.assertRegex(err, r"\nslabtrace: record \(pid \d+\) ended without cleaning up; "
                         r"its watchdog could not stop kmalloc-64 \(No such file or "
                         r"directory\): slabtrace status says if it is still traced\n$")
        self.assertNotIn("stopped and reset", err)

    def test_sigkill_the_watchdog_stops_the_word(self):
        for keep in (False, True):
            rc, out, err, secs = self.signalled(signal.SIGKILL, keep, cache="all")
            self.assertEqual(rc, -signal.SIGKILL)
            want = ["start all", "stop all"] + ([] if keep else ["reset all"])
            self.fake.wait_for(lambda: self.fake.commands()[-len(want):] == want,
                               "the watchdog's commands")
            self.assertRegex(err, r"slabtrace: record \(pid \d+\) ended without cleaning up; "
                             r"its watchdog %s all\n" %
                             ("stopped" if keep else "stopped and reset"))

    def test_sigkill_as_the_trace_starts_the_watchdog_cleans_up(self):
        """SIGKILL the moment record's start reaches ctl (watched without
        sleeping): whenever it comes, the cache is stopped and reset."""
        ctl = os.path.join(self.fake.st, "ctl")
        for _ in range(20):
            with open(ctl) as f:
                n = len(f.read())

            def since():
                with open(ctl) as f:
                    return f.read()[n:]
            # No pipes: the command (if it started) outlives record for
            # its 30 s.
            rec = subprocess.Popen([BIN, "record", "-c", "kmalloc-64", "--settle", "0", "-o",
                                    self.out, "--", "sleep", "30"], env=self.fake.env(),
                                   cwd=self.fake.root, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
            end = time.monotonic() + 10
            while "start kmalloc-64" not in since():
                self.assertLess(time.monotonic(), end, "no start")
            rec.kill()
            rec.wait()
            self.fake.wait_for(lambda: since().splitlines()[-2:] ==
                               ["stop kmalloc-64", "reset kmalloc-64"],
                               "the watchdog's stop and reset", secs=10)

def packet(uuid, seq, size, cpu=0):
    """A closed kmemtrace packet of @size bytes, all header (struct kmt_packet)."""
    return struct.pack("<I16sIQQQQQQI", 0xC1FC1FC1, uuid, 0, 1000 + seq, 2000 + seq,
                       size * 8, size * 8, 0, seq, cpu).ljust(size, b"\0")


UUID_A = bytes(range(16))
UUID_B = bytes(range(16, 32))


def abi_version(sub):
    """The stream's ABI version the recorder was built with: its uapi header's."""
    name, macro = (("kmemtrace.h", "KMEMTRACE_ABI_VERSION") if sub == "kmemtrace"
                   else ("kptrace.h", "KPTRACE_CTF_ABI_VERSION"))
    with open(os.path.join(TOP, "include", "uapi", "slabtrace", name)) as f:
        return int(re.search(r"^#define %s\s+(\d+)$" % macro, f.read(), re.M).group(1))


def metadata(uuid):
    u = uuid.hex()
    return ('/* CTF 1.8 */\ntrace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = "%s-%s-%s-%s-%s";\n'
            '};\n' % (u[:8], u[8:12], u[12:16], u[16:20], u[20:]))


class Recorder(unittest.TestCase):
    """kmemtrace-record on a fake kmemtrace directory: 16 KiB per CPU,
    cpu0 a plain file of packets of 2 KiB (eight sub-buffers)."""

    def setUp(self):
        self.fake = Fake()
        self.out = os.path.join(self.fake.root, "kt")
        self.stream(UUID_A, 3)
        with open(os.path.join(self.fake.proc, "kallsyms"), "w") as f:
            f.write("ffffffff81000000 T fake\n")

    def stream(self, uuid, npackets, meta_uuid=None, sub="kmemtrace"):
        f = self.fake
        # KMEMTRACE_ABI_VERSION and KPTRACE_CTF_ABI_VERSION, as built in.
        f.write(sub + "/abi_version", "%d\n" % abi_version(sub))
        f.write(sub + "/buffer_kb", "16\n")
        f.write(sub + "/enable", "")
        f.write(sub + "/metadata", metadata(meta_uuid or uuid))
        f.write(sub + "/caches", "0 0 0 -\n")
        f.write(sub + "/events", "%d\ncpu0 %d\n" % (npackets, npackets))
        f.write(sub + "/total_overruns", "0\ncpu0 0\n")
        data = b"".join(packet(uuid, i, 2048) for i in range(npackets))
        with open(os.path.join(f.st, sub, "cpu0"), "wb") as out:
            out.write(data.ljust(16384, b"\0"))

    def tearDown(self):
        self.fake.close()

    def record(self, *args):
        return self.fake.run("-o", self.out, *args, prog=RECORD)

    def test_records_its_own_trace(self):
        rc, out, err = self.record("--", "true")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, "kmemtrace-record: 3 events written, 0 lost, into %s\n" % self.out)
        self.assertEqual(self.fake.read("kmemtrace/enable"), "1\n0\n")
        with open(os.path.join(self.out, "ctf", "cpu0"), "rb") as f:
            self.assertEqual(f.read(), b"".join(packet(UUID_A, i, 2048) for i in range(3)))
        with open(os.path.join(self.out, "ctf", "metadata")) as f:
            self.assertEqual(f.read(), metadata(UUID_A))

    def test_out_dir_root_only_and_of_no_other_user(self):
        # The trace's kallsyms and metadata hold the kernel's addresses.
        rc, out, err = self.record("--", "true")
        self.assertEqual(rc, 0, err)
        for d in (self.out, os.path.join(self.out, "ctf")):
            self.assertEqual(stat.S_IMODE(os.stat(d).st_mode), 0o700, d)
        for f in ("kallsyms", "caches", "ctf/metadata", "ctf/cpu0"):
            self.assertEqual(stat.S_IMODE(os.stat(os.path.join(self.out, f)).st_mode),
                             0o600, f)
        if os.geteuid():
            self.skipTest("chown needs root")
        theirs = os.path.join(self.fake.root, "theirs")
        os.makedirs(theirs)
        os.chown(theirs, 12345, 12345)
        rc, out, err = self.fake.run("-o", theirs, "--", "true", prog=RECORD)
        self.assertEqual((rc, out), (1, ""), err)
        self.assertIn("kmemtrace-record: %s: %s belongs to uid 12345, who could put links in "
                      "it: save in a directory of yours\n" % (theirs, theirs), err)
        self.assertEqual(os.listdir(theirs), [])
        # Run by sudo: what it made is the user's.
        mine = os.path.join(self.fake.root, "mine")
        rc, out, err = self.fake.run("-o", mine, "--", "true", prog=RECORD,
                                     env={"SUDO_UID": "12345", "SUDO_GID": "12346"})
        self.assertEqual(rc, 0, err)
        for f in ("", "ctf", "kallsyms", "caches", "overruns", "ctf/metadata", "ctf/cpu0"):
            st = os.stat(os.path.join(mine, f))
            self.assertEqual((st.st_uid, st.st_gid), (12345, 12346), f)

    def test_an_earlier_recording_in_dir_goes(self):
        # DIR held a recording with a CPU that is not recorded now: its
        # stream, of another trace, goes; a file not the recorder's stays.
        ctf = os.path.join(self.out, "ctf")
        os.makedirs(ctf)
        for name in ("cpu5", "cpu0", "notes.txt"):
            with open(os.path.join(ctf, name), "wb") as f:
                f.write(packet(UUID_B, 0, 2048))
        rc, out, err = self.record("--", "true")
        self.assertEqual(rc, 0, err)
        self.assertEqual(sorted(os.listdir(ctf)), ["cpu0", "metadata", "notes.txt"])
        with open(os.path.join(ctf, "cpu0"), "rb") as f:
            self.assertEqual(f.read(), b"".join(packet(UUID_A, i, 2048) for i in range(3)))

    def test_a_command_stopped_and_continued_is_still_recorded(self):
        # ^Z and fg: the command stops and goes on, the recording with it.
        # Once continued it writes a fourth packet and waits (3 s at most)
        # for the recorder to copy it while it runs.
        root = self.fake.root
        with open(os.path.join(root, "pkt3"), "wb") as f:
            f.write(packet(UUID_A, 3, 2048))
        script = ("(sleep 0.3; kill -CONT $$) & kill -STOP $$; "
                  "dd if=pkt3 of=%s bs=2048 seek=3 conv=notrunc 2>/dev/null; i=0; "
                  "while [ $i -lt 30 ]; do [ $(stat -c %%s kt/ctf/cpu0) -ge 8192 ] && "
                  "{ echo drained > mark; exit 0; }; sleep 0.1; i=$((i + 1)); done; "
                  "echo not > mark" % os.path.join(self.fake.st, "kmemtrace", "cpu0"))
        rc, out, err = self.record("--", "sh", "-c", script)
        self.assertEqual(rc, 0, err)
        with open(os.path.join(root, "mark")) as f:
            self.assertEqual(f.read(), "drained\n")

    def test_a_second_signal_kills_the_command(self):
        # A command that ignores SIGTERM: the recorder passes the first
        # SIGINT on and goes on copying; the second kills it (it never
        # gets to touch "done").
        root = self.fake.root
        rec = self.fake.popen("-o", self.out, "--", "sh", "-c",
                              "trap '' TERM; touch started; sleep 3; touch done", prog=RECORD)
        try:
            for _ in range(100):
                if os.path.exists(os.path.join(root, "started")):
                    break
                time.sleep(0.05)
            rec.send_signal(signal.SIGINT)
            time.sleep(0.3)
            rec.send_signal(signal.SIGINT)
            out, err = rec.communicate(timeout=30)
        finally:
            if rec.poll() is None:
                rec.kill()
        self.assertEqual(rec.returncode, 0, err)
        self.assertIn("3 events written", out)
        self.assertFalse(os.path.exists(os.path.join(root, "done")))

    def test_a_signal_at_the_start_runs_no_command(self):
        # SIGTERM while the recorder starts (waiting for the module's
        # version file, a FIFO here): the recording is stopped before
        # COMMAND starts, which is not run; it was run, and the SIGTERM
        # sent to it before its exec went to the recorder's handler,
        # which left "sleep 30" running.
        # The tools' own version: another would add a line to stderr.
        mine = (self.fake.run("--version")[1].split()[1] + "\n").encode()
        version = os.path.join(self.fake.sys, "module", "slabtrace", "version")
        os.mkfifo(version)
        fd = os.open(version, os.O_RDWR)
        ran = os.path.join(self.fake.root, "ran")
        rec = self.fake.popen("-o", self.out, "--", "sh", "-c", "touch ran; exec sleep 30",
                              prog=RECORD)
        try:
            fds = "/proc/%d/fd" % rec.pid
            self.fake.wait_for(lambda: any(os.path.realpath(os.path.join(fds, x)) == version
                                           for x in os.listdir(fds)), "open version file")
            time.sleep(0.1)
            start = time.monotonic()
            rec.send_signal(signal.SIGTERM)
            time.sleep(0.2)
            os.write(fd, mine)
            os.close(fd)
            fd = -1
            out, err = rec.communicate(timeout=20)
        finally:
            if fd >= 0:
                os.close(fd)
            if rec.poll() is None:
                rec.kill()
                rec.communicate()
        self.assertLess(time.monotonic() - start, 10)
        self.assertEqual(rec.returncode, 0, err)
        self.assertEqual(err, "kmemtrace-record: a signal came before sh started: not run\n")
        self.assertIn("3 events written", out)
        self.assertFalse(os.path.exists(ran))

    def test_more_than_1024_cpus(self):
        # 1100 CPUs (cpu1 to cpu1099 empty), recorded under the default
        # limit of 1024 open files: every stream is, the limit raised for
        # the recorder only.  It took the first 1024 cpuN files it read,
        # and said nothing of the others.
        import resource
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        if hard != resource.RLIM_INFINITY and hard < 2300:
            self.skipTest("a hard limit of open files under 2300")
        st = os.path.join(self.fake.st, "kmemtrace")
        for cpu in range(1, 1100):
            with open(os.path.join(st, "cpu%d" % cpu), "wb") as f:
                f.truncate(16384)
        nofile = os.path.join(self.fake.root, "nofile")
        p = subprocess.run([RECORD, "-o", self.out, "--", "sh", "-c", "ulimit -n > " + nofile],
                           env=self.fake.env(), cwd=self.fake.root, capture_output=True,
                           text=True, timeout=60, preexec_fn=lambda: resource.setrlimit(
                               resource.RLIMIT_NOFILE, (1024, hard)))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("3 events written", p.stdout)
        ctf = os.listdir(os.path.join(self.out, "ctf"))
        self.assertEqual(sorted(ctf), sorted(["metadata"] + ["cpu%d" % c for c in range(1100)]))
        with open(nofile) as f:
            self.assertEqual(f.read(), "1024\n")

    def test_lost_events_say_what_b_gives(self):
        # 5 events lost on cpu0 of a 16 KiB buffer: the counts, and the
        # -b that doubles the buffer.
        self.fake.write("kmemtrace/total_overruns", "5\ncpu0 5\n")
        rc, out, err = self.record("--", "true")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.splitlines(), [
            "kmemtrace-record: 3 events written, 5 lost, into %s" % self.out,
            "kmemtrace-record: cpu0 lost 5 events",
            "kmemtrace-record: a CPU filled its 16 KiB of buffer before the packets were "
            "read: -b 32 gives it more"])

    def test_lost_events_in_nmi_say_no_b(self):
        # Lost in NMI only (the total's rest): said, and no -b, which
        # cannot help.
        self.fake.write("kmemtrace/total_overruns", "4\ncpu0 0\nnmi 4\n")
        rc, out, err = self.record("--", "true")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.splitlines(), [
            "kmemtrace-record: 3 events written, 4 lost, into %s" % self.out,
            "kmemtrace-record: 4 events lost in NMI, which no buffer takes"])

    def test_lost_events_of_cpu12_are_not_cpu1s(self):
        # cpu1 recorded, without a line (offline now, nothing lost): the
        # line of cpu12 is not cpu1's.
        shutil.copy(os.path.join(self.fake.st, "kmemtrace", "cpu0"),
                    os.path.join(self.fake.st, "kmemtrace", "cpu1"))
        self.fake.write("kmemtrace/total_overruns", "5\ncpu0 0\ncpu12 5\n")
        rc, out, err = self.record("--", "true")
        self.assertNotIn("cpu1 lost", out)

    def test_lost_events_at_the_largest_buffer(self):
        # buffer_kb at -b's most (KMEMTRACE_BUFFER_KB_MAX): no larger -b
        # to give.  cpu0 is a sparse file of 64 MiB, a packet at the start
        # of each of its first three sub-buffers of 8 MiB.
        f = self.fake
        f.write("kmemtrace/buffer_kb", "65536\n")
        f.write("kmemtrace/total_overruns", "7\ncpu0 7\n")
        with open(os.path.join(f.st, "kmemtrace", "cpu0"), "wb") as out:
            for i in range(3):
                out.seek(i << 23)
                out.write(packet(UUID_A, i, 2048))
            out.truncate(64 << 20)
        rc, out, err = self.record("--", "true")
        self.assertEqual(rc, 0, err)
        self.assertIn("kmemtrace-record: 3 events written, 7 lost", out)
        self.assertTrue(out.endswith(
            "kmemtrace-record: a CPU filled its 65536 KiB of buffer, -b's most, before the "
            "packets were read\n"), out)

    def test_packets_of_another_trace(self):
        # The packets carry another UUID than the metadata: a restart
        # between the start and the streams' opening.
        self.stream(UUID_B, 3, meta_uuid=UUID_A)
        rc, out, err = self.record("--", "true")
        self.assertEqual((rc, out), (1, ""))
        self.assertRegex(err, r"^kmemtrace-record: cpu0: packet 0 is of trace 10111213-.*, "
                         r"not 00010203-.* \(restarted by another process\): nothing saved\n$")
        self.assertFalse(os.path.exists(self.out))
        self.assertEqual(self.fake.read("kmemtrace/enable"), "1\n0\n")

    def test_restarted_while_recording(self):
        # Another process stops the trace and starts its own: a new
        # metadata (UUID B), its "1" last in enable.  Nothing is saved,
        # and its trace is not stopped.
        meta = os.path.join(self.fake.st, "kmemtrace", "metadata")
        enable = os.path.join(self.fake.st, "kmemtrace", "enable")
        new = os.path.join(self.fake.root, "metadata.B")
        with open(new, "w") as f:
            f.write(metadata(UUID_B))
        rc, out, err = self.record("--", "sh", "-c", "echo 0 >> %s; cp %s %s; echo 1 >> %s"
                                   % (enable, new, meta, enable))
        self.assertEqual((rc, out), (1, ""), err)
        self.assertIn("the trace was restarted by another process (trace 00010203-0405-0607-"
                      "0809-0a0b0c0d0e0f, now 10111213-1415-1617-1819-1a1b1c1d1e1f): "
                      "nothing saved", err)
        self.assertEqual(self.fake.read("kmemtrace/enable"), "1\n0\n1\n")
        self.assertFalse(os.path.exists(self.out))

    def test_stopped_by_another_process(self):
        enable = os.path.join(self.fake.st, "kmemtrace", "enable")
        rc, out, err = self.record("--", "sh", "-c", "echo 0 >> " + enable)
        self.assertEqual(rc, 1)
        self.assertIn("3 events written", out)
        self.assertIn("the trace was stopped by another process before the end: %s holds "
                      "what came until then" % self.out, err)
        self.assertEqual(self.fake.read("kmemtrace/enable"), "1\n0\n")
        self.assertTrue(os.path.exists(os.path.join(self.out, "ctf", "metadata")))

    def test_the_commands_exit_status(self):
        # The trace is saved; COMMAND's failure said, exit 3 (as record's).
        rc, out, err = self.record("--", "sh", "-c", "exit 4")
        self.assertEqual(rc, 3, err)
        self.assertEqual(err, "kmemtrace-record: sh exited with 4\n")
        self.assertIn("3 events written", out)
        self.assertTrue(os.path.exists(os.path.join(self.out, "ctf", "metadata")))
        shutil.rmtree(self.out)
        self.stream(UUID_A, 3)
        rc, out, err = self.record("--", "/nonexistent")
        self.assertEqual(rc, 1, err)
        self.assertEqual(err, "kmemtrace-record: cannot run /nonexistent: "
                         "No such file or directory\n")

    def test_an_error_says_its_own_errno(self):
        # cpu0 a directory: its mmap fails (ENODEV).  The message says so,
        # not the errno of the trace's stop (the kmsg file it opens is
        # missing: ENOENT), which comes after it; the trace is stopped.
        cpu0 = os.path.join(self.fake.st, "kmemtrace", "cpu0")
        os.unlink(cpu0)
        os.mkdir(cpu0)
        rc, out, err = self.record("--", "true")
        self.assertEqual((rc, out), (1, ""), err)
        self.assertEqual(err, "kmemtrace-record: mmap %s: No such device\n" % cpu0)
        self.assertEqual(self.fake.read("kmemtrace/enable"), "1\n0\n")

    def test_a_recording_that_fails_ends_the_command(self):
        # The third packet's write fails (RLIMIT_FSIZE, SIGXFSZ ignored:
        # EFBIG) while COMMAND runs: COMMAND is ended, not left running
        # for 30 s (holding the pipes: the run would wait for it), and
        # the streams written go.
        def limit():
            import resource
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

        pidfile = os.path.join(self.fake.root, "pid")
        start = time.monotonic()
        p = subprocess.run([RECORD, "-o", self.out, "--", "sh", "-c",
                            "echo $$ > %s; exec sleep 30" % pidfile],
                           env=self.fake.env(), cwd=self.fake.root, capture_output=True,
                           text=True, timeout=20, preexec_fn=limit)
        self.assertLess(time.monotonic() - start, 10)
        self.assertEqual((p.returncode, p.stdout), (1, ""), p.stderr)
        self.assertEqual(p.stderr, "kmemtrace-record: cpu0: write: File too large: "
                         "nothing saved; sh was ended\n")
        self.assertFalse(os.path.exists(self.out))
        self.assertEqual(self.fake.read("kmemtrace/enable"), "1\n0\n")
        if os.path.exists(pidfile):
            with open(pidfile) as f:
                pid = int(f.read())
            self.assertRaises(ProcessLookupError, os.kill, pid, 0)

    def test_copy_failures_name_the_file_that_failed(self):
        # DIR/caches a directory: its write fails, and that is said, not
        # the module's caches (which it blamed).  kallsyms missing: its
        # read fails.  Either way the streams and metadata written go:
        # without the rest they are no trace (they stayed).
        os.makedirs(os.path.join(self.out, "caches"))
        rc, out, err = self.record("--", "true")
        self.assertEqual(rc, 1)
        self.assertEqual(err, "kmemtrace-record: cannot write %s/caches: Is a directory: "
                         "nothing saved\n" % self.out)
        self.assertEqual(os.listdir(self.out), ["caches"])
        shutil.rmtree(self.out)
        self.stream(UUID_A, 3)
        os.unlink(os.path.join(self.fake.proc, "kallsyms"))
        rc, out, err = self.record("--", "true")
        self.assertEqual(rc, 1)
        self.assertEqual(err, "kmemtrace-record: cannot read %s/kallsyms: No such file or "
                         "directory: nothing saved\n" % self.fake.proc)
        self.assertFalse(os.path.exists(self.out))
        # The last file, the overruns: its write failing is no trace either.
        os.makedirs(os.path.join(self.out, "overruns"))
        self.stream(UUID_A, 3)
        with open(os.path.join(self.fake.proc, "kallsyms"), "w") as f:
            f.write("ffffffff81000000 T _stext\n")
        rc, out, err = self.record("--", "true")
        self.assertEqual(rc, 1)
        self.assertEqual(err, "kmemtrace-record: cannot write %s/overruns: Is a directory: "
                         "nothing saved\n" % self.out)
        self.assertEqual(os.listdir(self.out), ["overruns"])

    def test_buffer_kb_that_is_no_size(self):
        # buffer_kb read, but no number: said so (a stale errno was).
        for text in ("garbage\n", "0\n", ""):
            self.fake.write("kmemtrace/buffer_kb", text)
            rc, out, err = self.record("--", "true")
            self.assertEqual((rc, out), (1, ""))
            self.assertEqual(err, "kmemtrace-record: %s/kmemtrace/buffer_kb: no buffer size "
                             "in KiB ('%s')\n" % (self.fake.st, text.strip()))

    def test_buffer_is_set_back(self):
        # -b is for this recording: the module's buffer_kb is set back
        # after (the fake file keeps what is written to it).
        rc, out, err = self.record("-b", "32", "--", "true")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.read("kmemtrace/buffer_kb"), "16\n32\n16\n")
        self.stream(UUID_A, 3)
        rc, out, err = self.record("-b", "16", "--", "true")
        self.assertEqual(self.fake.read("kmemtrace/buffer_kb"), "16\n")
        # An error after -b: set back too.
        self.stream(UUID_B, 3, meta_uuid=UUID_A)
        rc, out, err = self.record("-b", "32", "--", "true")
        self.assertEqual(rc, 1)
        self.assertEqual(self.fake.read("kmemtrace/buffer_kb"), "16\n32\n16\n")

    def test_buffer_by_default(self):
        # No -b: 8 MiB a CPU for this recording, set back after; a
        # buffer_kb as large stays untouched.
        rc, out, err = self.record("--", "true")
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(self.fake.read("kmemtrace/buffer_kb"), "16\n8192\n16\n")
        for kb in ("8192\n", "16384\n"):
            self.stream(UUID_A, 3)
            self.fake.write("kmemtrace/buffer_kb", kb)
            with open(os.path.join(self.fake.st, "kmemtrace", "cpu0"), "r+b") as f:
                f.truncate(int(kb) * 1024)
            shutil.rmtree(self.out)
            rc, out, err = self.record("--", "true")
            self.assertEqual((rc, err), (0, ""))
            self.assertEqual(self.fake.read("kmemtrace/buffer_kb"), kb)

    def test_syscall_size_is_set_back_and_keeps_an_unread_queue(self):
        self.stream(UUID_A, 1, sub="kptrace/ctf")
        self.fake.write("status", STATUS)
        status = os.path.join(self.fake.st, "status")
        play = ["sed", "-i", "s/kptrace: off/kptrace: tracing system calls/", status]
        # syscall size empties the text queue: refused while it holds records.
        self.fake.write("kptrace/stats", "written: 30\nread: 20\ndropped: 0\nqueued: 640 bytes\n"
                        "queue size: 2097152 bytes per CPU, 2 CPUs\n")
        rc, out, err = self.record("-s", "-b", "64", "--", *play)
        self.assertEqual(rc, 1)
        self.assertIn("-b would empty kptrace's queue, which holds 640 bytes of records "
                      "not read yet", err)
        self.assertEqual(self.fake.commands(), [])
        self.fake.write("kptrace/stats", "written: 30\nread: 30\ndropped: 0\nqueued: 0 bytes\n"
                        "queue size: 2097152 bytes per CPU, 2 CPUs\n")
        rc, out, err = self.record("-s", "-b", "64", "--", *play)
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["syscall size 64K", "syscall start ctf",
                                                "syscall stop", "syscall size 2097152"])

    def test_lost_calls_say_what_b_gives_up_to_kptraces_most(self):
        # -s: "syscall size" takes up to 256 MiB a CPU (KPTRACE_SIZE_KB_MAX),
        # more than kmemtrace's 64 MiB: a 64 MiB buffer that lost calls
        # is told -b 131072.  cpu0 is a sparse file of 64 MiB, a packet at
        # the start of its first sub-buffer of 8 MiB.
        self.stream(UUID_A, 1, sub="kptrace/ctf")
        f = self.fake
        status = os.path.join(f.st, "status")
        play = ["sed", "-i", "s/kptrace: off/kptrace: tracing system calls/", status]
        f.write("kptrace/stats", "written: 0\nread: 0\ndropped: 0\nqueued: 0 bytes\n"
                "queue size: 67108864 bytes per CPU, 2 CPUs\n")
        f.write("status", STATUS)
        f.write("kptrace/ctf/buffer_kb", "65536\n")
        f.write("kptrace/ctf/total_overruns", "9\ncpu0 9\n")
        with open(os.path.join(f.st, "kptrace", "ctf", "cpu0"), "wb") as out:
            out.write(packet(UUID_A, 0, 2048))
            out.truncate(64 << 20)
        rc, out, err = self.record("-s", "--", *play)
        self.assertEqual(rc, 0, err)
        self.assertIn("kmemtrace-record: 1 events written, 9 lost", out)
        self.assertTrue(out.endswith(
            "kmemtrace-record: a CPU filled its 65536 KiB of buffer before the packets were "
            "read: -b 131072 gives it more\n"), out)

    def test_syscall_size_by_default(self):
        # No -b: 16 MiB a CPU for this recording, set back after (above);
        # a size as large stays, and so does a queue holding records.
        self.stream(UUID_A, 1, sub="kptrace/ctf")
        status = os.path.join(self.fake.st, "status")
        play = ["sed", "-i", "s/kptrace: off/kptrace: tracing system calls/", status]
        for stats in ("written: 0\nread: 0\ndropped: 0\nqueued: 0 bytes\n"
                      "queue size: 16777216 bytes per CPU, 2 CPUs\n",
                      "written: 0\nread: 0\ndropped: 0\nqueued: 0 bytes\n"
                      "queue size: 33554432 bytes per CPU, 2 CPUs\n",
                      "written: 30\nread: 20\ndropped: 0\nqueued: 640 bytes\n"
                      "queue size: 2097152 bytes per CPU, 2 CPUs\n"):
            self.fake.write("status", STATUS)
            self.fake.write("ctl", "")
            self.fake.write("kptrace/stats", stats)
            rc, out, err = self.record("-s", "--", *play)
            self.assertEqual((rc, err), (0, ""))
            self.assertEqual(self.fake.commands(), ["syscall start ctf", "syscall stop"])

    def test_comm_and_pids_of_syscalls(self):
        self.stream(UUID_A, 1, sub="kptrace/ctf")
        status = os.path.join(self.fake.st, "status")
        play = ["sed", "-i", "s/kptrace: off/kptrace: tracing system calls/", status]
        for args, want in ((["--comm", "sh"], "syscall start ctf comm sh"),
                           (["-c", "sh"], "syscall start ctf comm sh"),
                           (["-p", "5,6", "--pid", "7"], "syscall start ctf pid 5 6 7")):
            self.fake.write("status", STATUS)
            self.fake.write("ctl", "")
            rc, out, err = self.record("--syscalls", *args, "--", *play)
            self.assertEqual(rc, 0, err)
            self.assertEqual(self.fake.commands(), ["syscall size 16384K", want, "syscall stop",
                                                    "syscall size 2097152"])

    def test_report_json(self):
        if not REPORT:
            self.skipTest("no libbabeltrace2")
        tiny = os.path.join(HERE, "kmemtrace", "tiny")
        rc, text, err = self.fake.run(tiny, prog=REPORT)
        self.assertEqual(rc, 0, err)
        rc, out, err = self.fake.run(tiny, "--json", "-n", "2", prog=REPORT)
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(out.splitlines()), 1)
        doc = json.loads(out)
        self.assertEqual(doc["version"], 1)
        self.assertEqual(len(doc["call_sites"]), 2)
        # The same figures as the text.
        t = doc["total"]
        self.assertIn("Total: %d events, %d allocations, %d frees, %d call sites\n"
                      % (doc["events"], t["allocs"], t["frees"], t["call_sites"]), text)
        self.assertIn("Double frees: %d\n" % t["double_frees"], text)
        first = doc["call_sites"][0]
        self.assertRegex(text, r"\n%s +%d +%d +%d " % (re.escape(first["call_site"]), first["hits"],
                                                       first["bytes_req"], first["bytes_alloc"]))
        self.assertIn("WARNING: the trace is incomplete: %d events lost" % doc["lost"], text)

    def test_report_a_cache_name_that_starts_with_a_digit(self):
        # An ABI 1 listing ("ID SIZE NAME") of 9p's cache: its name is
        # not a slab size followed by "p-fcall-cache".
        if not REPORT:
            self.skipTest("no libbabeltrace2")
        d = os.path.join(self.fake.root, "ninep")
        shutil.copytree(os.path.join(HERE, "kmemtrace", "tiny"), d)
        caches = os.path.join(d, "caches")
        with open(caches) as f:
            text = f.read()
        self.assertIn("\n227 6208 task_struct\n", text)
        with open(caches, "w") as f:
            f.write(text.replace("\n227 6208 task_struct\n", "\n227 6208 9p-fcall-cache\n"))
        rc, out, err = self.fake.run(d, "--json", prog=REPORT)
        self.assertEqual(rc, 0, err)
        c = {c["cache"]: c for c in json.loads(out)["caches"]}
        self.assertIn("9p-fcall-cache", c)
        self.assertEqual((c["9p-fcall-cache"]["bytes_alloc"], c["9p-fcall-cache"]["frag_percent"]),
                         (6208, 0))

    def test_report_json_keeps_utf8(self):
        # The trace's path in "trace": valid UTF-8 as it is (U+00E9,
        # U+1F600), and a byte of none (0xff) as U+FFFD, not as \u00ff,
        # which is U+00FF, a valid "\xc3\xbf"; each byte was \u00XX, so
        # U+00E9 read back as U+00C3 U+00A9.
        if not REPORT:
            self.skipTest("no libbabeltrace2")
        d = os.fsencode(self.fake.root) + b"/caf\xc3\xa9\xf0\x9f\x98\x80\xff"
        shutil.copytree(os.fsencode(os.path.join(HERE, "kmemtrace", "tiny")), d)
        p = subprocess.run([REPORT, d, "--json", "-n", "1"], env=self.fake.env(),
                           capture_output=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b'caf\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbd"', p.stdout)
        self.assertTrue(json.loads(p.stdout)["trace"].endswith("caf\u00e9\U0001f600\ufffd"))

    def test_a_packet_missing(self):
        with open(os.path.join(self.fake.st, "kmemtrace", "cpu0"), "r+b") as f:
            f.seek(2048)
            f.write(packet(UUID_A, 5, 2048))
        rc, out, err = self.record("--", "true")
        self.assertEqual(rc, 1)
        self.assertIn("cpu0: packet 5 where 1 was due: packets lost: nothing saved", err)

    def test_syscalls_refused_while_kptrace_traces(self):
        self.stream(UUID_A, 1, sub="kptrace/ctf")
        self.fake.write("status", STATUS.replace("kptrace: off", "kptrace: tracing system calls"))
        rc, out, err = self.record("-s", "--", "true")
        self.assertEqual(rc, 1)
        self.assertIn("kptrace is tracing already, another process's trace", err)
        self.assertEqual(self.fake.commands(), [])
        # Its own: started (the command plays the module's status), stopped.
        self.fake.write("status", STATUS)
        status = os.path.join(self.fake.st, "status")
        rc, out, err = self.record("-s", "-c", "sh", "--", "sed", "-i",
                                   "s/kptrace: off/kptrace: tracing system calls/", status)
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["syscall size 16384K", "syscall start ctf comm sh",
                                                "syscall stop", "syscall size 2097152"])
        self.assertIn("kmemtrace-record: recording\n", out)

    def test_under_proc(self):
        fake = Fake(in_proc=True)
        try:
            self.fake, old = fake, self.fake
            self.stream(UUID_A, 2)
            shutil.copy(os.path.join(old.proc, "kallsyms"), fake.proc)
            rc, out, err = self.record("--", "true")
            self.assertEqual(rc, 0, err)
            self.assertEqual(self.fake.read("kmemtrace/enable"), "1\n0\n")
        finally:
            self.fake = old
            fake.close()

    def test_causes(self):
        for f, want in ((Fake(module=False), "the slabtrace module is not loaded"),
                        (Fake(module=False, mounted=False), "the slabtrace module is not loaded"),
                        (Fake(), "the slabtrace module is loaded but ")):
            try:
                rc, out, err = f.run("--", "true", prog=RECORD)
            finally:
                f.close()
            self.assertEqual(rc, 1)
            self.assertIn(want, err)
            self.assertNotIn("ABI", err)

    @unittest.skipUnless(os.getuid() == 0 and shutil.which("setpriv"),
                         "needs root and setpriv to act as another user")
    def test_needs_root(self):
        os.chmod(self.fake.root, 0o755)
        os.chmod(self.fake.debugfs, 0o700)
        rc, _, err = self.fake.run("--", "true", user=65534, prog=RECORD)
        self.assertEqual(rc, 1)
        self.assertIn("needs root: %s is root's only (run it with sudo)" % self.fake.debugfs,
                      err)

    def test_help_and_usage(self):
        rc, out, err = self.fake.run("--help", prog=RECORD)
        self.assertEqual((rc, err), (0, ""))
        described(self, out)
        self.assertEqual(self.fake.run("--version", prog=RECORD)[1], "kmemtrace-record 0.1\n")
        for args in (["-x"], ["-o"], ["-p", "12a", "-s"], ["-p", "1"], ["-s", "-c", "a", "-p", "1"],
                     ["-s", "-c", "a_name_of_16_byte"], ["-b", "1k"], ["-b", ""], ["-l"],
                     ["--comm", "a"], ["-s", "--comm", "a", "-c", "b"],
                     ["-s", "-p", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"]):
            rc, out, err = self.fake.run(*args, prog=RECORD)
            self.assertEqual(rc, 2, args)
            self.assertRegex(err, r"\(kmemtrace-record --help\)\n$")

    @unittest.skipUnless(shutil.which("pkg-config"), "needs pkg-config")
    def test_report_help_and_usage(self):
        if not REPORT:
            self.skipTest("no libbabeltrace2")
        rc, out, err = self.fake.run("--help", prog=REPORT)
        self.assertEqual((rc, err), (0, ""))
        described(self, out)
        self.assertEqual(self.fake.run("--version", prog=REPORT)[1], "kmemtrace-report 0.1\n")
        for args in (["--sort", "x", "d"], ["--top", "x", "d"], [], ["a", "b"], ["--frob", "d"]):
            rc, out, err = self.fake.run(*args, prog=REPORT)
            self.assertEqual(rc, 2, args)
            self.assertRegex(err, r"\(kmemtrace-report --help\)\n$")


class Causes(unittest.TestCase):
    """Why the module's files cannot be reached, and what to do, as a user
    of the packages meets it: not loaded, not built for this kernel (no
    headers, a failed build), refused by Secure Boot."""

    def setUp(self):
        self.fake = Fake(module=False)
        self.krel = os.uname().release

    def tearDown(self):
        self.fake.close()

    def said(self, *args, prog=None):
        rc, out, err = self.fake.run(*(args or ("status",)), prog=prog)
        self.assertEqual((rc, out), (1, ""), err)
        self.assertNotIn("debugfs", err)
        return err

    def test_not_loaded(self):
        self.fake.install()
        for args in (("status",), ("top",), ("leaks",), ("start", "kmalloc-64"),
                     ("record", "-c", "kmalloc-64", "--", "true"),
                     ("record", "--auto", "--", "true")):
            self.assertEqual(self.said(*args),
                             "slabtrace: the slabtrace module is not loaded: "
                             "sudo modprobe slabtrace\n", args)
        self.assertEqual(self.said("--", "true", prog=RECORD),
                         "kmemtrace-record: the slabtrace module is not loaded: "
                         "sudo modprobe slabtrace\n")

    def test_not_loaded_nor_debugfs_mounted(self):
        # debugfs is not needed: /proc/slabtrace is where the files are.
        shutil.rmtree(os.path.join(self.fake.debugfs, "tracing"))
        self.fake.install()
        self.assertIn("is not loaded: sudo modprobe slabtrace", self.said())

    def test_compressed_module(self):
        self.fake.install(ko="updates/dkms/slabtrace.ko.xz")
        self.assertIn("is not loaded: sudo modprobe slabtrace", self.said())

    def test_no_headers_for_this_kernel(self):
        self.fake.install(ko=None, headers=False)
        self.assertEqual(self.said(),
                         "slabtrace: the slabtrace module is not loaded, and not built for this "
                         "kernel (%s): its headers are missing: sudo apt install "
                         "linux-headers-%s (DKMS then builds slabtrace for it), then sudo "
                         "modprobe slabtrace\n" % (self.krel, self.krel))

    def test_dkms_build_failed(self):
        self.fake.install(ko=None)
        err = self.said()
        self.assertIn("not built for this kernel (%s): dkms status slabtrace says why, " %
                      self.krel, err)
        self.assertIn("/dkms/slabtrace/0.1/build/make.log is DKMS's build log; "
                      "sudo dkms install slabtrace/0.1 -k %s tries again\n" % self.krel, err)

    def test_nothing_installed(self):
        self.fake.install(ko=None, dkms=None)
        self.assertEqual(self.said(),
                         "slabtrace: the slabtrace module is not loaded, and none is installed "
                         "for this kernel (%s): install the slabtrace-dkms package; from a "
                         "checkout: make && sudo insmod slabtrace.ko\n" % self.krel)
        self.fake.install(ko=None, dkms=None, headers=False)
        self.assertIn("none is installed for this kernel", self.said())

    def lockdown(self):
        sec = os.path.join(self.fake.sys, "kernel", "security")
        os.makedirs(sec)
        with open(os.path.join(sec, "lockdown"), "w") as f:
            f.write("none [integrity] confidentiality\n")

    def test_secure_boot_signed(self):
        self.fake.install()
        self.lockdown()
        self.assertEqual(self.said(),
                         "slabtrace: the slabtrace module is not loaded, and this kernel loads "
                         "only signed modules (Secure Boot), with a key it trusts: sudo modprobe "
                         "slabtrace; if that says 'Operation not permitted' or 'Key was rejected "
                         "by service', enrol DKMS's key once: sudo mokutil --import "
                         "/var/lib/dkms/mok.pub, reboot and confirm it in the MOK manager\n")

    def test_secure_boot_names_the_certificate_dkms_is_set_to(self):
        # DKMS signs with the mok_certificate of its configuration, the
        # last one set: framework.conf, then framework.conf.d/*.conf in
        # order; a commented line sets nothing; an empty value, or a quote
        # not closed, is DKMS's own key (as the package's postinst reads
        # them).
        conf = os.path.join(self.fake.root, "etc", "dkms")
        os.makedirs(os.path.join(conf, "framework.conf.d"))
        with open(os.path.join(conf, "framework.conf"), "w") as f:
            f.write("# mok_certificate=/not/this.der\nmok_certificate=/first.der # ours\n")
        with open(os.path.join(conf, "framework.conf.d", "10-mok.conf"), "w") as f:
            f.write('mok_signing_key="/var/lib/shim-signed/mok/MOK.priv"\n'
                    'mok_certificate="/var/lib/shim-signed/mok/MOK.der"\n')
        with open(os.path.join(conf, "framework.conf.d", "20-other.conf"), "w") as f:
            f.write("#mok_certificate=/not/that.der\n")
        self.fake.install()
        self.lockdown()
        self.assertTrue(self.said().endswith(
            "enrol DKMS's key once: sudo mokutil --import "
            "/var/lib/shim-signed/mok/MOK.der, reboot and confirm it in the MOK manager\n"))
        self.fake.install(signed=False)
        self.assertIn("then enrol DKMS's key once: sudo mokutil --import "
                      "/var/lib/shim-signed/mok/MOK.der,", self.said())
        last = os.path.join(conf, "framework.conf.d", "30-last.conf")
        for line, cert in (("mok_certificate='/a b.der'", "/a b.der"),
                           ('mok_certificate=""', "/var/lib/dkms/mok.pub"),
                           ('mok_certificate="/x.der', "/var/lib/dkms/mok.pub")):
            with open(last, "w") as f:
                f.write(line + "\n")
            self.assertIn("sudo mokutil --import %s, reboot" % cert, self.said(), line)
        os.unlink(last)
        os.unlink(os.path.join(conf, "framework.conf.d", "10-mok.conf"))
        self.assertIn("sudo mokutil --import /first.der, reboot", self.said())

    def test_secure_boot_unsigned(self):
        self.fake.install(signed=False)
        self.lockdown()
        ko = os.path.join(self.fake.root, "modules", self.krel, "updates/dkms/slabtrace.ko")
        err = self.said()
        self.assertIn("only signed modules (Secure Boot): %s is not signed: DKMS signs what "
                      "it builds when openssl is installed (sudo apt install openssl; "
                      "sudo dkms remove slabtrace/0.1 -k %s; sudo dkms install slabtrace/0.1 "
                      "-k %s); then enrol DKMS's key once: sudo mokutil --import "
                      "/var/lib/dkms/mok.pub" % (ko, self.krel, self.krel), err)

    def test_secure_boot_from_the_firmware(self):
        # No securityfs mounted: the firmware's SecureBoot variable says.
        self.fake.install()
        efi = os.path.join(self.fake.sys, "firmware", "efi", "efivars")
        os.makedirs(efi)
        var = os.path.join(efi, "SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c")
        with open(var, "wb") as f:
            f.write(b"\x06\0\0\0\x01")
        self.assertIn("only signed modules (Secure Boot)", self.said())
        with open(var, "wb") as f:
            f.write(b"\x06\0\0\0\x00")
        self.assertIn("is not loaded: sudo modprobe slabtrace", self.said())

    def test_refusal_in_the_kernel_log(self):
        self.fake.install()
        with open(os.path.join(self.fake.root, "no-kmsg"), "w") as f:
            f.write("6,1,2,-;loop: module loaded\n"
                    "5,2,3,-;Lockdown: modprobe: unsigned module loading is restricted; "
                    "see man kernel_lockdown.7\n")
        err = self.said()
        self.assertTrue(err.startswith("slabtrace: the kernel refused a module for its "
                                       "signature: 'Lockdown: modprobe: unsigned module "
                                       "loading is restricted; see man kernel_lockdown.7'\n"
                                       "slabtrace: the slabtrace module is not loaded, and "
                                       "this kernel loads only signed modules"), err)

    def test_loaded_without_procfs_nor_debugfs(self):
        # A module whose files are in debugfs only: then debugfs matters.
        fake = Fake(module=False, mounted=False)
        try:
            os.makedirs(os.path.join(fake.sys, "module", "slabtrace"))
            rc, _, err = fake.run("status")
        finally:
            fake.close()
        self.assertEqual(rc, 1)
        self.assertIn("debugfs is not mounted on", err)
        self.assertIn("(mount -t debugfs none ", err)

    @unittest.skipUnless(os.getuid() == 0 and shutil.which("setpriv"),
                         "needs root and setpriv to act as another user")
    def test_needs_root(self):
        fake = Fake()
        os.chmod(fake.root, 0o755)
        os.chmod(fake.debugfs, 0o700)
        rc, _, err = fake.run("status", user=65534)
        fake.close()
        self.assertEqual(rc, 1)
        self.assertIn("needs root:", err)
        self.assertIn("(run it with sudo)", err)


# Each man page, and the program whose --help it must cover.
MANS = {"slabtrace.8": None, "kmemtrace-record.8": "RECORD", "kmemtrace-report.1": "REPORT",
        "slabtrace-flamegraph.1": "scripts/tools/flamegraph.py"}


def man_text(page):
    with open(os.path.join(DOC, page)) as f:
        return f.read().replace("\\-", "-")


class ManPages(unittest.TestCase):
    @unittest.skipUnless(shutil.which("man") and shutil.which("groff"), "needs man-db and groff")
    def test_render_without_warnings(self):
        for page in MANS:
            path = os.path.join(DOC, page)
            p = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", path],
                               capture_output=True, text=True)
            self.assertEqual((p.returncode, p.stderr), (0, ""), page)
            p = subprocess.run(["man", "-l", path], capture_output=True, text=True,
                               env=dict(os.environ, MANWIDTH="80", MANPAGER="cat",
                                        LC_ALL="C.UTF-8"))
            self.assertEqual(p.returncode, 0, p.stderr)
            for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS",
                            "EXAMPLES", "SEE ALSO"):
                self.assertTrue("\n%s\n" % section in p.stdout, "%s: no %s" % (page, section))
            if page == "slabtrace.8":
                self.assertRegex(p.stdout, r"slabtrace\s+-\s+find\s+the\s+growing\s+slab\s+cache")
                self.assertIn("\nJSON OUTPUT\n", p.stdout)
                self.assertRegex(p.stdout, r"\(see\s+DEFERRED\s+FREES\)")

    def test_every_option_documented(self):
        fake = Fake(module=False)
        try:
            for page, prog in MANS.items():
                helps = []
                if prog is None:
                    helps = [fake.run(c, "--help")[1] for c in COMMANDS]
                    helps.append(fake.run("--help")[1])
                elif prog in ("RECORD", "REPORT"):
                    if not globals()[prog]:
                        # Built by make tools where its libraries are (CI).
                        if os.environ.get("SLABTRACE_REQUIRE_VM_OUT") == "1":
                            self.fail("%s not built: its man page unchecked" % page)
                        continue
                    helps = [fake.run("--help", prog=globals()[prog])[1]]
                else:
                    helps = [subprocess.run([sys.executable, os.path.join(TOP, prog), "--help"],
                                            capture_output=True, text=True).stdout]
                man = man_text(page)
                for h in helps:
                    for opt in set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", h)):
                        self.assertTrue(opt in man, "%s does not mention %s" % (page, opt))
                for cmd in (COMMANDS if prog is None else ()):
                    self.assertTrue(".B %s" % cmd in man, "slabtrace.8: no .B %s" % cmd)
        finally:
            fake.close()

    def test_examples_use_installed_commands(self):
        installed = ("slabtrace", "kmemtrace-record", "kmemtrace-report", "slabtrace-flamegraph",
                     "babeltrace2", "cat", "echo", "mount", "sudo", "go", "promtool")
        for page in MANS:
            man = man_text(page)
            ex = man[man.index(".SH EXAMPLES"):man.index(".SH SEE ALSO")]
            for line in re.findall(r"(?m)^[#$] (.*)$", ex):
                for cmd in re.split(r"\s*(?:\||&&|;)\s*", line):
                    word = cmd.split()[0]
                    self.assertIn(word, installed, "%s: %s" % (page, line))
                    self.assertNotIn("scripts/", cmd)


class Install(unittest.TestCase):
    def make(self, *args, env=None):
        p = subprocess.run(["make", "--no-print-directory", "-C", TOP] + list(args),
                           capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, **(env or {})))
        return p.returncode, p.stdout + p.stderr

    def test_install_copies_what_make_tools_built(self):
        tools = tempfile.mkdtemp(prefix="slabtrace-tools.")
        dest = tempfile.mkdtemp(prefix="slabtrace-install.")
        try:
            # Nothing built: install-tools says what to do, and compiles nothing.
            rc, out = self.make("install-tools", "TOOLS_OUT=" + tools, "DESTDIR=" + dest)
            self.assertEqual(rc, 2, out)
            self.assertIn("make install-tools: no %s/slabtrace: run make tools first" % tools,
                          out)
            self.assertNotRegex(out, r"\bcc\b|gcc")
            self.assertEqual(os.listdir(dest), [])
            rc, out = self.make("tools", "TOOLS_OUT=" + tools, "WERROR=1")
            self.assertEqual(rc, 0, out)
            rc, out = self.make("install-tools", "TOOLS_OUT=" + tools, "DESTDIR=" + dest,
                                "PREFIX=/opt/st")
            self.assertEqual(rc, 0, out)
            self.assertNotRegex(out, r"\bcc\b|gcc")
            want = ["opt/st/bin/slabtrace", "opt/st/bin/kmemtrace-record",
                    "opt/st/bin/slabtrace-flamegraph",
                    "opt/st/share/man/man8/slabtrace.8",
                    "opt/st/share/man/man8/kmemtrace-record.8",
                    "opt/st/share/man/man1/slabtrace-flamegraph.1"]
            if os.path.exists(os.path.join(tools, "kmemtrace-report")):
                want += ["opt/st/bin/kmemtrace-report",
                         "opt/st/share/man/man1/kmemtrace-report.1"]
            got = [os.path.relpath(os.path.join(d, f), dest)
                   for d, _, fs in os.walk(dest) for f in fs]
            self.assertEqual(sorted(got), sorted(want))
            self.assertEqual(subprocess.run([os.path.join(dest, "opt/st/bin/slabtrace"),
                                             "--version"], capture_output=True,
                                            text=True).stdout, "slabtrace 0.1\n")
            p = subprocess.run([os.path.join(dest, "opt/st/bin/slabtrace-flamegraph"), "--help"],
                               capture_output=True, text=True)
            self.assertTrue(p.stdout.startswith("usage: slabtrace-flamegraph "), p.stdout)
            for page in want:
                if "/man" in page:
                    with open(os.path.join(dest, page)) as f, \
                            open(os.path.join(DOC, os.path.basename(page))) as g:
                        self.assertEqual(f.read(), g.read())
            rc, out = self.make("uninstall-tools", "DESTDIR=" + dest, "PREFIX=/opt/st")
            self.assertEqual(rc, 0, out)
            self.assertEqual([f for _, _, fs in os.walk(dest) for f in fs], [])
        finally:
            shutil.rmtree(tools)
            shutil.rmtree(dest)


class Build(unittest.TestCase):
    """What make says to a newcomer (the Makefile, not the program)."""

    def make(self, *args, cwd=TOP):
        p = subprocess.run(["make", "--no-print-directory", "-C", cwd] + list(args),
                           capture_output=True, text=True, timeout=300)
        return p.returncode, p.stdout + p.stderr

    def test_each_target_installs_what_it_needs(self):
        # scripts/deps/deps.sh --list: what a group would install, nothing done.
        def deps(*groups):
            p = subprocess.run([os.path.join(TOP, "scripts", "deps", "deps.sh"), "--list"] +
                               list(groups), capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            return set(p.stdout.split("\n")) - {""}
        demo, check = deps("demo"), deps("check")
        self.assertIn("qemu-system-x86", demo)
        self.assertIn("busybox-static", demo)
        for p in ("chromium", "golang-go", "linux-source-6.12", "qemu-system-arm",
                  "libc6-dev-arm64-cross", "dkms", "lintian", "sparse", "arch arm64"):
            self.assertNotIn(p, demo)
            self.assertIn(p, check)
        self.assertLess(demo, check)
        self.assertNotIn("arch arm64", deps("deb"))
        self.assertIn("arch arm64", deps("compat"))
        for group in ("demo", "check", "deb", "debug", "compat", "realdeb"):
            # Never a daemon: Prometheus' programs are unpacked, not installed.
            self.assertFalse({"prometheus", "prometheus-node-exporter"} & deps(group), group)
        self.assertIn("unpacked prometheus prometheus-node-exporter", check)
        # Each target asks for its group.
        for path, call in (("scripts/vm/demo.sh", "scripts/deps/deps.sh demo"),
                           ("Makefile", "@scripts/deps/deps.sh vm"),
                           ("Makefile", "@scripts/deps/deps.sh debug"),
                           ("scripts/check/compat.sh", 'deps.sh" compat'),
                           ("scripts/tests/test_realdeb.sh", "scripts/deps/deps.sh realdeb")):
            with open(os.path.join(TOP, path)) as f:
                self.assertIn(call, f.read(), path)
        p = subprocess.run([os.path.join(TOP, "scripts", "deps", "deps.sh"), "--list", "frob"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("deps: unknown group 'frob'", p.stderr)

    def test_unknown_kver_stops_at_once(self):
        rc, out = self.make("KVER=6.99")
        self.assertEqual(rc, 2)
        self.assertIn("unknown KVER '6.99': Debian's kernels are %s, the debug kernel 6.12-debug"
                      % KVERS, out)
        self.assertNotIn("fetch-kernel", out)

    def test_no_headers_names_the_package(self):
        rc, out = self.make("KDIR=/nonexistent-headers")
        self.assertEqual(rc, 2)
        self.assertIn("make: no kernel headers in /nonexistent-headers", out)
        self.assertIn("sudo apt install linux-headers-%s" % os.uname().release, out)
        self.assertIn("make KVER=6.1 (or %s)" % KVERS.split(" ", 1)[1], out)

    @unittest.skipUnless(os.environ.get("SLABTRACE_BUILD_TESTS", "1") == "1",
                         "SLABTRACE_BUILD_TESTS=0")
    def test_a_new_warning_fails_only_the_projects_builds(self):
        # A warning the compiler of a later point release might add (here a
        # #warning in a header every file includes): a user's plain make
        # says it and builds; WERROR=1 (what KVER=... and make check use)
        # fails.  In a copy of the tree, against Debian's 6.12 headers.
        kdir = subprocess.run([os.path.join(TOP, "scripts", "kernels", "fetch-kernel.sh"), "6.12"],
                              capture_output=True, text=True).stdout.strip()
        if not kdir:
            self.skipTest("no 6.12 headers")
        tree = tempfile.mkdtemp(prefix="slabtrace-warn.")
        try:
            for d in ("module", "include", "scripts", "kunit-tests"):
                shutil.copytree(os.path.join(TOP, d), os.path.join(tree, d),
                                ignore=shutil.ignore_patterns("tests", "guest", "bench"))
            for f in ("Kbuild", "Makefile", "dkms.conf"):
                shutil.copy(os.path.join(TOP, f), tree)
            with open(os.path.join(tree, "warn.h"), "w") as f:
                f.write('#warning "a warning of a newer compiler"\n')
            kcflags = "KCFLAGS=-include " + os.path.join(tree, "warn.h")
            rc, out = self.make("KDIR=%s/build" % kdir, kcflags, "modules", cwd=tree)
            self.assertEqual(rc, 0, out)
            self.assertIn("a warning of a newer compiler", out)
            self.assertIn("(not fatal; WERROR=1 makes them so)", out)
            self.assertTrue(os.path.exists(os.path.join(tree, "slabtrace.ko")))
            # One file built again shows the warning: a second build of
            # them all would take 40 s more.
            os.utime(os.path.join(tree, "module", "escape.c"))
            rc, out = self.make("KDIR=%s/build" % kdir, kcflags, "WERROR=1", "modules",
                                cwd=tree)
            self.assertNotEqual(rc, 0, out)
            self.assertIn("kbuild: warnings in", out)
        finally:
            shutil.rmtree(tree)


class VmOutput(unittest.TestCase):
    def test_json_from_the_vm_parses(self):
        runs = [os.path.join(d, "cli-top.json") for d in VM_OUT
                if os.path.exists(os.path.join(d, "cli-top.json"))]
        if not runs:
            if os.environ.get("SLABTRACE_REQUIRE_VM_OUT") == "1":
                self.fail("no cli-top.json in %s" % (VM_OUT or "no VM output given"))
            self.skipTest("no VM output (cli guest test)")
        for path in runs:
            with open(path) as f:
                lines = f.read().splitlines()
            self.assertEqual(len(lines), 1, path)
            doc = json.loads(lines[0])
            self.assertEqual(doc["version"], 1)
            c = doc["caches"][0]
            self.assertEqual(c["cache"], "kmalloc-64")
            # Other programs may have left kmalloc-64 objects too.
            mine = [s for s in c["stacks"] if s["frames"][0]["function"] == "leaky_alloc_buf"]
            self.assertEqual(len(mine), 1, path)
            s = mine[0]
            self.assertEqual((s["objects"], s["bytes"], s["requested"], s["frames"][0]["module"],
                              s["frames"][1]["function"]), (7, 448, 350, "leaky", "keep"))
            with open(os.path.join(os.path.dirname(path), "cli-top-i.jsonl")) as f:
                docs = [json.loads(line) for line in f.read().splitlines()]
            self.assertEqual([(d["version"], d["report"], d["caches"][0]["cache"])
                              for d in docs], [(1, 1, "kmalloc-64"), (1, 2, "kmalloc-64")])
            # growth --json around leaky's 3000 buffers (slabinfo's counts
            # are short by up to a few slabs' worth).
            with open(os.path.join(os.path.dirname(path), "cli-growth.json")) as f:
                lines = f.read().splitlines()
            self.assertEqual(len(lines), 1, path)
            g = json.loads(lines[0])
            self.assertEqual((g["version"], g["around"], len(g["caches"])), (1, "command", 1))
            c = g["caches"][0]
            self.assertEqual((c["cache"], c["objsize"], c["trend"]), ("kmalloc-64", 64, "grew"))
            self.assertGreaterEqual(c["objects"], 2500)
            self.assertEqual(c["bytes"], 64 * c["objects"])


if __name__ == "__main__":
    build()
    # Arguments that are no directory: the tests to run (Causes, Cli.test_json).
    names = [a for a in sys.argv[1:] if not os.path.isdir(a)]
    result = unittest.main(argv=[sys.argv[0], "-v"] + names, exit=False).result
    nfail = len(result.failures) + len(result.errors)
    nskip = len(result.skipped)
    print("cli: %d passed, %d failed%s" % (result.testsRun - nfail - nskip, nfail,
                                          ", %d skipped" % nskip if nskip else ""))
    sys.exit(1 if nfail else 0)
