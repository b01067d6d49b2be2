#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of the slabtrace command (scripts/slabtrace.c) on the host,
against a fake tree: a debugfs directory with slabtrace's files (plain
files holding what the module printed in a VM run, scripts/tests/cli/),
a /proc/slabinfo and a /sys/kernel/slab with merged names as symlinks.
The fake ctl is a plain file: the commands the program writes are
appended to it, after the dump it holds, and the tests read them back.

    scripts/tests/test_cli.py [VM_OUT_DIR...]

Builds the program into $TMPDIR (or uses $SLABTRACE_BIN).  With VM output
directories (build/KVER/vm-out after the cli guest test), also parses the
guest's "top --json" as JSON; SLABTRACE_REQUIRE_VM_OUT=1 fails rather than
skips when there is none.  The last line
is "cli: N passed, N failed".  The VM test scripts/guest/cli.sh runs the
same program against the real module.
"""

import json
import re  # noqa: F401
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
DUMP = os.path.join(HERE, "cli", "dump-6.12.txt")
STACKS = os.path.join(HERE, "cli", "stacks-6.12.txt")
BIN = os.environ.get("SLABTRACE_BIN")
VM_OUT = [d for d in sys.argv[1:] if os.path.isdir(d)]

STATS = """records 26 limit 330170
table buckets 1024 grow_failed 0 grow_steps 0 most_moved_in_a_step 0
pool free 8166 per_cpu 4096 allocated 8192
contexts 5 of 4093
stacks deferred 0
probes alloc on free on
cache kmalloc-64 stopped records 26 replaced 0 pool_empty 3 limit_reached 0 in_NMI 0 stack_store_full 1 context_store_full 0
"""

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


def build():
    global BIN
    if BIN:
        return
    BIN = os.path.join(tempfile.mkdtemp(prefix="slabtrace-cli."), "slabtrace")
    subprocess.run(["cc", "-O2", "-Wall", "-Wextra", "-Werror", "-o", BIN,
                    os.path.join(TOP, "scripts", "slabtrace.c")], check=True)


class Fake:
    """A debugfs, a /proc and a /sys in a temporary directory."""

    def __init__(self, module=True, mounted=True):
        self.root = tempfile.mkdtemp(prefix="slabtrace-fake.")
        self.debugfs = os.path.join(self.root, "debug")
        self.st = os.path.join(self.debugfs, "slabtrace")
        self.proc = os.path.join(self.root, "proc")
        self.sys = os.path.join(self.root, "sys")
        slab = os.path.join(self.sys, "kernel", "slab")
        for d in (self.debugfs, self.proc, slab):
            os.makedirs(d)
        for name in ("leaky_widget", "kmalloc-8k", "kmalloc-64", "dentry",
                     ":0000048"):
            os.makedirs(os.path.join(slab, name))
        for alias in ("Acpi-Namespace", "shared_policy_node", "ksm_mm_slot"):
            os.symlink(":0000048", os.path.join(slab, alias))
        self.slabinfo(w=10, k=1000, d=8000)
        if mounted:
            os.makedirs(os.path.join(self.debugfs, "tracing"))
        if module:
            os.makedirs(os.path.join(self.sys, "module", "slabtrace"))
            os.makedirs(self.st)
            shutil.copy(DUMP, os.path.join(self.st, "ctl"))
            self.write("stats", STATS)
            shutil.copy(STACKS, os.path.join(self.st, "stacks"))
            self.write("folded", "syscall:write;ctl_write [leaky] 20\n")
            self.write("folded_bytes", "syscall:write;ctl_write [leaky] 1280\n")
            self.write("kptrace_stats", "written: 30\nread: 30\ndropped: 2\n"
                       "queued: 0 bytes\nqueue size: 2097152 bytes per CPU, 2 CPUs\n")

    def slabinfo(self, w, k, d):
        """A new /proc/slabinfo, replaced at once: never read half written."""
        path = os.path.join(self.proc, "slabinfo")
        with open(path + ".new", "w") as f:
            f.write(SLABINFO.format(w=w, k=k, d=d))
        os.replace(path + ".new", path)

    def write(self, name, text):
        with open(os.path.join(self.st, name), "w") as f:
            f.write(text)

    def commands(self):
        """What the program wrote to ctl: the lines after the dump."""
        with open(os.path.join(self.st, "ctl")) as f:
            lines = f.read().splitlines()
        with open(DUMP) as f:
            n = len(f.read().splitlines())
        return lines[n:]

    def run(self, *args, user=None):
        env = dict(os.environ, SLABTRACE_DEBUGFS=self.debugfs,
                   SLABTRACE_PROC=self.proc, SLABTRACE_SYSFS=self.sys,
                   SLABTRACE_KMSG=os.path.join(self.root, "no-kmsg"))
        cmd = [BIN] + list(args)
        if user:
            cmd = ["setpriv", "--reuid=%d" % user, "--regid=%d" % user,
                   "--clear-groups"] + cmd
        p = subprocess.run(cmd, env=env, cwd=self.root, capture_output=True,
                           text=True, timeout=60)
        return p.returncode, p.stdout, p.stderr

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
            "pool: 8166 free, 4096 per CPU; contexts: 5 of 4093",
            "kptrace: 30 calls written, 2 dropped, 0 bytes queued",
            "next: slabtrace top (the stacks holding most), slabtrace leaks (all of them)"])

    def test_status_from_the_status_file(self):
        # The module's own lines (from a 6.12 VM), but for its hint.
        self.fake.write("status", STATUS)
        rc, out, err = self.fake.run("status")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.splitlines(), STATUS.splitlines()[:2] + [
            "pool: 8166 free, 4096 per CPU; contexts: 5 of 4093",
            "kptrace: off, 30 calls written, 2 dropped, 0 bytes queued",
            "next: slabtrace top (the stacks holding most), slabtrace leaks (all of them)"])

    def test_status_nothing_traced(self):
        self.fake.write("stats", STATS.split("cache ")[0])
        rc, out, err = self.fake.run("status")
        self.assertEqual(rc, 0, err)
        self.assertIn("caches: none traced", out)
        self.assertIn("next: slabtrace growth finds a growing cache", out)

    def test_status_rejects_other_stats(self):
        self.fake.write("stats", "hello\n")
        rc, out, err = self.fake.run("status")
        self.assertEqual(rc, 1)
        self.assertIn("stats: not the stats of this version of slabtrace", err)

    def test_top_ranks_the_leak_first(self):
        rc, out, err = self.fake.run("top", "-c", "kmalloc-64")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["print kmalloc-64"])
        lines = out.splitlines()
        self.assertEqual(lines[0], "kmalloc-64: 26 outstanding objects (1664 bytes), "
                         "traced 0.773s, 0 records dropped; 3 stacks")
        self.assertRegex(lines[2], r"^ +1 +20 +1280 +1000  1\.207s  leaky_alloc_buf "
                         r"\[leaky\] < keep \[leaky\] < ctl_write \[leaky\]$")
        self.assertRegex(lines[3], r"^ +2 +5 +320 +200 .* leaky_orphan_buf \[leaky\]")
        self.assertEqual(len(lines), 5)

    def test_top_of_every_traced_cache(self):
        rc, out, err = self.fake.run("top", "-n", "1")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["print kmalloc-64"])
        self.assertEqual(len(out.splitlines()), 3)

    def test_top_filters(self):
        rc, out, _ = self.fake.run("top", "-c", "kmalloc-64", "--pid", "617")
        self.assertIn("5 objects (320 bytes) pass the filters; 1 stacks", out)
        rc, out, _ = self.fake.run("top", "-c", "kmalloc-64", "--comm", "ls")
        self.assertIn("1 objects (64 bytes) pass the filters; 1 stacks", out)
        self.assertIn("get_mountpoint", out)
        rc, out, _ = self.fake.run("top", "-c", "kmalloc-64", "--module", "leaky")
        self.assertIn("25 objects (1600 bytes) pass the filters; 2 stacks", out)
        rc, out, _ = self.fake.run("top", "-c", "kmalloc-64", "--older", "1500")
        self.assertEqual(self.fake.commands()[-1], "print kmalloc-64 older-than 1500")

    def test_top_periodic(self):
        rc, out, err = self.fake.run("top", "-i", "0.1", "-r", "3", "-n", "1")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["print kmalloc-64"] * 3)
        heads = [line for line in out.splitlines() if line.startswith("--- ")]
        self.assertEqual(len(heads), 3)
        self.assertRegex(heads[2], r"^--- \d\d:\d\d:\d\d, report 3$")
        self.assertEqual(out.count("leaky_alloc_buf [leaky]"), 3)
        rc, out, err = self.fake.run("top", "-i", "0.1", "-r", "2", "--json")
        docs = [json.loads(d) for d in out.split("\n]}\n") if d.strip()
                for d in [d + "\n]}"]]
        self.assertEqual(len(docs), 2)
        rc, _, err = self.fake.run("top", "-r", "2")
        self.assertEqual((rc, err), (1, "slabtrace: top: -r goes with -i\n"))
        rc, _, err = self.fake.run("leaks", "-i", "1")
        self.assertEqual((rc, err), (1, "slabtrace: leaks: -i is for top\n"))

    def test_json(self):
        rc, out, err = self.fake.run("top", "-c", "kmalloc-64", "--json", "-n", "2")
        self.assertEqual(rc, 0, err)
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

    def test_leaks_full_backtraces(self):
        rc, out, err = self.fake.run("leaks", "-c", "kmalloc-64")
        self.assertEqual(rc, 0, err)
        self.assertIn("from PID 616 sh in syscall write, age min/avg/max "
                      "1.207s/1.207s/1.207s", out)
        self.assertIn("       #08 entry_SYSCALL_64_after_hwframe+0x76/0x7e", out)
        self.assertEqual(out.count("#01 "), 3)

    def test_escapes_odd_bytes(self):
        self.fake.write("stats", STATS.replace("cache kmalloc-64", "cache odd\033name"))
        _, out, _ = self.fake.run("status")
        self.assertIn("cache odd\\x1bname:", out)
        self.assertNotIn("\033", out)

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

    def test_growth_around_a_command(self):
        p = os.path.join(self.fake.proc, "slabinfo")
        script = "sed -i 's/^kmalloc-64 *1000/kmalloc-64 5000/; " \
                 "s/^leaky_widget *10/leaky_widget 60/; s/^dentry *8000/dentry 7000/' " + p
        rc, out, err = self.fake.run("growth", "--", "sh", "-c", script)
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertIn("around the command", lines[0])
        self.assertTrue(lines[1].startswith("CACHE"))
        self.assertRegex(lines[2], r"^kmalloc-64 +64 +5000 +\+4000 +\+256000 .* grows +-$")
        self.assertRegex(lines[3], r"^leaky_widget +208 +60 +\+50 +\+10400 ")
        self.assertEqual(len(lines), 4, out)

    def test_growth_sampled_only_growing_first(self):
        # Each sample: kmalloc-64 up and down (mixed, but more bytes),
        # dentry only up, Acpi-Namespace with its merged names.
        self.fake.slabinfo(w=10, k=1000, d=8000)
        pid = os.fork()
        if not pid:
            import time
            for w, k, d in ((10, 9000, 8010), (10, 2000, 8020), (10, 3000, 8030)):
                time.sleep(0.3)
                self.fake.slabinfo(w=w, k=k, d=d)
            os._exit(0)
        rc, out, err = self.fake.run("growth", "-i", "0.3", "-r", "4")
        os.waitpid(pid, 0)
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertRegex(lines[2], r"^dentry .* grows ")
        self.assertRegex(lines[3], r"^kmalloc-64 .* mixed ")

    def test_growth_names_merged_caches(self):
        p = os.path.join(self.fake.proc, "slabinfo")
        rc, out, err = self.fake.run("growth", "--", "sed", "-i",
                                     "s/^Acpi-Namespace *400/Acpi-Namespace 500/", p)
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"Acpi-Namespace .* grows +ksm_mm_slot, shared_policy_node\n"
                         r"|Acpi-Namespace .* grows +shared_policy_node, ksm_mm_slot\n")

    def test_record(self):
        out_dir = os.path.join(self.fake.root, "rec")
        rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "-s", "0", "-o", out_dir,
                                     "--", "sh", "-c", "exit 0")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["start kmalloc-64", "stop kmalloc-64",
                                                "print kmalloc-64", "reset kmalloc-64"])
        self.assertEqual(sorted(os.listdir(out_dir)),
                         ["kmalloc-64.dump", "kmalloc-64.folded",
                          "kmalloc-64.folded_bytes", "kmalloc-64.stacks"])
        with open(os.path.join(out_dir, "kmalloc-64.dump")) as f:
            self.assertTrue(f.read().startswith("Dumping outstanding allocs from kmalloc-64\n"))
        self.assertRegex(out, r"\n +1 +20 +1280 .* leaky_alloc_buf \[leaky\]")

    def test_record_keep_and_command_status(self):
        rc, out, err = self.fake.run("record", "-c", "kmalloc-64", "-s", "0", "--keep",
                                     "--", "sh", "-c", "exit 4")
        self.assertEqual(rc, 3)
        self.assertIn("sh exited with 4", err)
        self.assertNotIn("reset kmalloc-64", self.fake.commands())
        self.assertTrue(os.path.isdir(os.path.join(self.fake.root, "slabtrace.out")))

    def test_record_auto(self):
        p = os.path.join(self.fake.proc, "slabinfo")
        rc, out, err = self.fake.run(
            "record", "--auto", "-s", "0", "--", "sh", "-c",
            "sed -i 's/^leaky_widget *[0-9]*/leaky_widget 99/' " + p)
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fake.commands(), ["start leaky_widget", "stop leaky_widget",
                                                "print leaky_widget", "reset leaky_widget"])
        self.assertIn("record: a first run of the command", out)

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

    def test_usage_errors(self):
        rc, _, err = self.fake.run("record", "--", "true")
        self.assertEqual(rc, 1)
        self.assertIn("name the caches with -c CACHE, or let --auto find them", err)
        rc, _, err = self.fake.run("top", "-n", "x")
        self.assertIn("-n takes a number", err)
        rc, _, err = self.fake.run("frobnicate")
        self.assertEqual(rc, 2)
        self.assertIn("unknown command 'frobnicate'", err)


class Causes(unittest.TestCase):
    def test_debugfs_not_mounted(self):
        fake = Fake(module=False, mounted=False)
        rc, _, err = fake.run("status")
        fake.close()
        self.assertEqual(rc, 1)
        self.assertIn("debugfs is not mounted on", err)
        self.assertIn("(mount -t debugfs none ", err)

    def test_module_not_loaded(self):
        fake = Fake(module=False)
        rc, _, err = fake.run("top")
        fake.close()
        self.assertEqual(rc, 1)
        self.assertIn("the slabtrace module is not loaded (insmod slabtrace.ko", err)

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


MAN = os.path.join(TOP, "Documentation", "slabtrace.8")


class ManPage(unittest.TestCase):
    @unittest.skipUnless(shutil.which("man") and shutil.which("groff"), "needs man-db and groff")
    def test_renders_without_warnings(self):
        p = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", MAN],
                           capture_output=True, text=True)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        p = subprocess.run(["man", "-l", MAN], capture_output=True, text=True,
                           env=dict(os.environ, MANWIDTH="80", MANPAGER="cat", LC_ALL="C.UTF-8"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"slabtrace\s+-\s+find\s+the\s+growing\s+slab\s+cache")
        self.assertIn("\nJSON OUTPUT\n", p.stdout)
        self.assertRegex(p.stdout, r"\(see\s+DEFERRED\s+FREES\)")

    def test_every_command_and_option_documented(self):
        _, usage, _ = Fake.run(Fake(module=False), "--help")
        with open(MAN) as f:
            man = f.read().replace("\\-", "-")
        words = set(w for line in usage.splitlines()[1:] for w in line.split()
                    if w[0].isalpha() or w.startswith("-"))
        for w in sorted(words):
            w = w.strip("[].").split("|")[0]
            if w.startswith("-") or w in ("status", "growth", "record", "top", "leaks",
                                          "report", "start"):
                self.assertIn(w, man, "slabtrace(8) does not mention %s" % w)

    def test_install_tools(self):
        dest = tempfile.mkdtemp(prefix="slabtrace-install.")
        try:
            p = subprocess.run(["make", "--no-print-directory", "-C", TOP, "install-tools",
                                "DESTDIR=" + dest], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            prog = os.path.join(dest, "usr/local/sbin/slabtrace")
            self.assertEqual(subprocess.run([prog, "--version"], capture_output=True,
                                            text=True).stdout, "slabtrace 0.1\n")
            with open(os.path.join(dest, "usr/local/share/man/man8/slabtrace.8")) as f, \
                    open(MAN) as g:
                self.assertEqual(f.read(), g.read())
        finally:
            shutil.rmtree(dest)


class Build(unittest.TestCase):
    """What make says to a newcomer (the Makefile, not the program)."""

    def make(self, *args):
        p = subprocess.run(["make", "--no-print-directory", "-C", TOP] + list(args),
                           capture_output=True, text=True, timeout=120)
        return p.returncode, p.stdout + p.stderr

    def test_unknown_kver_stops_at_once(self):
        rc, out = self.make("KVER=6.99")
        self.assertEqual(rc, 2)
        self.assertIn("unknown KVER '6.99': Debian's kernels are 6.1 6.12 6.1-rt 6.12-rt 6.1-arm64 6.12-arm64, the debug kernel 6.12-debug", out)
        self.assertNotIn("fetch-kernel", out)

    def test_no_headers_names_the_package(self):
        rc, out = self.make("KDIR=/nonexistent-headers")
        self.assertEqual(rc, 2)
        self.assertIn("make: no kernel headers in /nonexistent-headers", out)
        self.assertIn("sudo apt install linux-headers-%s" % os.uname().release, out)
        self.assertIn("make KVER=6.1 (or 6.12 6.1-rt 6.12-rt 6.1-arm64 6.12-arm64)", out)


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
                doc = json.load(f)
            self.assertEqual(doc["version"], 1)
            c = doc["caches"][0]
            self.assertEqual(c["cache"], "kmalloc-64")
            # Other programs may have left kmalloc-64 objects too.
            mine = [s for s in c["stacks"] if s["frames"][0]["function"] == "leaky_alloc_buf"]
            self.assertEqual(len(mine), 1, path)
            s = mine[0]
            self.assertEqual((s["objects"], s["bytes"], s["requested"], s["frames"][0]["module"],
                              s["frames"][1]["function"]), (7, 448, 350, "leaky", "keep"))


if __name__ == "__main__":
    build()
    result = unittest.main(argv=[sys.argv[0], "-v"], exit=False).result
    nfail = len(result.failures) + len(result.errors)
    print("cli: %d passed, %d failed" % (result.testsRun - nfail - len(result.skipped), nfail))
    sys.exit(1 if nfail else 0)
