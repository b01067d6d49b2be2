#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What other tools make of slabtrace's output, read by the real readers
from Debian: pprof profiles (slabtrace record/report --pprof) by `go tool
pprof` (golang-go), Prometheus files (slabtrace growth --prometheus) by
`promtool check metrics` (prometheus) and node_exporter's textfile
collector (prometheus-node-exporter): those two unpacked into the cache by
scripts/deps/fetch-prometheus.sh, never installed.

    scripts/tests/test_interop.py [VM_OUT_DIR...]

pprof, on the dumps checked in (scripts/tests/cli/) and on what the cli
guest test saved (record's profile and dump; two prints before and after
leaky leaked 3 objects): `go tool pprof -top` shows the dump's totals,
`-traces` its stacks (objects per backtrace and system call, the biggest
first) with the frame names the dump has, `-raw` the sample types, labels,
mappings, time and duration; `-diff_base` of the two captures shows
exactly the leaked objects.  The expected figures come from the dump's
text, read here with a parser of the test's own.

Prometheus, on a fake tree (test_cli.py's) and on the file the guest test
wrote: promtool accepts the file; its figures are slabinfo's and the
stats file's; the file is replaced whole (a new inode each sample, no
temporary file left); without the module only slabtrace_up 0 is said of
it; node_exporter (only its textfile collector, on 127.0.0.1) serves the
figures.  The last line is "interop: N passed, N failed"; a missing
reader fails (SLABTRACE_REQUIRE_VM_OUT=1: missing VM output fails too).
"""

import collections
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_cli  # noqa: E402
import test_kmemtrace  # noqa: E402
import test_tools  # noqa: E402

VM_OUT = [d for d in sys.argv[1:] if os.path.isdir(d)]
DUMP = test_cli.DUMP
GO = shutil.which("go")


def prometheus_bin(name):
    """@name as scripts/deps/fetch-prometheus.sh unpacked it into the cache (the
    packages are never installed: their services would start), else on
    PATH; None if neither."""
    p = subprocess.run([os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts", "deps",
                                     "fetch-prometheus.sh")], capture_output=True, text=True)
    path = os.path.join(p.stdout.strip(), name)
    if p.returncode == 0 and os.access(path, os.X_OK):
        return path
    return shutil.which(name)


PROMTOOL = prometheus_bin("promtool")
NODE_EXPORTER = prometheus_bin("prometheus-node-exporter")
OBJ = re.compile(r"^Obj \S+, (\d+) bytes \(\d+ requested\), age [0-9.]+s, cpu \d+, "
                 r"(?:node \d+, )?(?:gfp [^,]+, )?(?:stack \d+ \(\w+\), )?"
                 r"from (.*?)(?: in syscall (.*))?:$")
FRAME = re.compile(r"^ #\d+ \[<[^>]*>\] in (\S+?)(?:\+\S+)?( \[\S+\])?$")


def read_dump(path, module=None):
    """The test's own reading of a per-object dump: {(names, syscall):
    [objects, bytes]}, names innermost first as "func [module]"; only the
    objects with a frame in @module if given."""
    stacks = collections.defaultdict(lambda: [0, 0])
    objs = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = OBJ.match(line)
            if m:
                objs.append([int(m.group(1)), m.group(3), []])
                continue
            m = FRAME.match(line)
            if m and objs:
                objs[-1][2].append(m.group(1) + (m.group(2) or ""))
    for size, syscall, frames in objs:
        if module and not any(f.endswith(" [%s]" % module) for f in frames):
            continue
        s = stacks[(tuple(frames), syscall)]
        s[0] += 1
        s[1] += size
    return dict(stacks)


def pprof(*args):
    p = subprocess.run([GO, "tool", "pprof"] + list(args), capture_output=True, text=True,
                       env=dict(os.environ, HOME=os.environ.get("HOME", "/root")))
    assert p.returncode == 0, p.stderr
    return p.stdout


def unit(index):
    """Bytes as bytes (not kB); counts as they are."""
    return ["-unit=byte"] if index.endswith("_space") else []


def traces(path, index):
    """go tool pprof -traces: {(names, syscall): value} of sample type
    @index, values added up by stack (pprof writes a sample per context)."""
    out = collections.Counter()
    text = pprof("-traces", *unit(index), "-sample_index=" + index, path)
    for block in re.split(r"(?m)^-{11}\+-+$", text)[1:]:
        labels, names, value = {}, [], None
        for line in block.splitlines():
            if not line.strip():
                continue
            m = re.match(r"^ +(\w+): +(.*)$", line)
            if m and value is None:
                labels[m.group(1)] = m.group(2)
                continue
            m = re.match(r"^ +(\d+)B? +(.*)$", line)
            if value is None and m:
                value, names = int(m.group(1)), [m.group(2)]
            elif value is not None:
                names.append(line.strip())
        if value is not None:
            out[(tuple(names), labels.get("syscall"))] += value
    return out


def top_total(path, index):
    m = re.search(r"Total samples = (\d+)B? *$",
                  pprof("-top", *unit(index), "-sample_index=" + index, path), re.M)
    return int(m.group(1))


def need(tool, what):
    if tool is None:
        raise AssertionError("%s not found: scripts/deps/deps.sh installs it (Prometheus' "
                             "programs: scripts/deps/fetch-prometheus.sh unpacks them)" % what)


def vm_files(*names):
    """[(dir, paths...)] of each VM output directory that has @names."""
    found = [(d,) + tuple(os.path.join(d, n) for n in names) for d in VM_OUT
             if all(os.path.exists(os.path.join(d, n)) for n in names)]
    if not found:
        if os.environ.get("SLABTRACE_REQUIRE_VM_OUT") == "1":
            raise AssertionError("no %s in %s" % (names[0], VM_OUT or "no VM output given"))
        raise unittest.SkipTest("no VM output (cli guest test)")
    return found


class Pprof(unittest.TestCase):
    def setUp(self):
        need(GO, "golang-go")
        self.tmp = tempfile.mkdtemp(prefix="slabtrace-pprof.")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def report(self, dump, *args):
        out = os.path.join(self.tmp, os.path.basename(dump) + ".pb.gz")
        p = subprocess.run([test_cli.BIN, "report", "--pprof", out] + list(args) + [dump],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        return out

    def same_as_the_dump(self, profile, dump, module=None):
        """The totals, stacks and frame names pprof shows are the dump's."""
        want = read_dump(dump, module)
        self.assertTrue(want, dump)
        objects = sum(v[0] for v in want.values())
        nbytes = sum(v[1] for v in want.values())
        self.assertEqual(top_total(profile, "inuse_objects"), objects, dump)
        self.assertEqual(top_total(profile, "inuse_space"), nbytes, dump)
        got_objects = traces(profile, "inuse_objects")
        got_bytes = traces(profile, "inuse_space")
        self.assertEqual(dict(got_objects), {k: v[0] for k, v in want.items()}, dump)
        self.assertEqual(dict(got_bytes), {k: v[1] for k, v in want.items()}, dump)
        # The biggest stack first, in pprof's traces as in the dump.
        self.assertEqual(got_objects.most_common(1)[0][0],
                         max(want.items(), key=lambda kv: kv[1][0])[0])
        names = {n for k in want for n in k[0]}
        self.assertEqual({n for k in got_objects for n in k[0]}, names)

    def test_the_dump_checked_in(self):
        self.same_as_the_dump(self.report(DUMP), DUMP)

    def test_a_sample_per_context(self):
        # One backtrace, six processes: a sample each, labelled with it.
        dump = os.path.join(self.tmp, "contexts.txt")
        with open(dump, "w") as f:
            f.write("Dumping outstanding allocs from kmalloc-64\ntraced 1.000s, 12 outstanding "
                    "(768 bytes), 0 records dropped\n-------------------------\n")
            for i in range(12):
                f.write("Obj %02d, 64 bytes (50 requested), age 0.100s, cpu 0, from PID %d sh:\n"
                        "----\n #01 [<a1>] in leak+0x1b/0x20 [m]\n\n" % (i, 10 + i % 6))
        profile = self.report(dump)
        self.same_as_the_dump(profile, dump)
        raw = pprof("-raw", profile)
        for pid in range(10, 16):
            self.assertRegex(raw, r"(?m)^ +2 +128: 1 \n +cache:\[kmalloc-64\] "
                             r"context:\[PID %d sh\]$" % pid)

    def test_verdict_label(self):
        # The module's verdict of each stack labels its samples:
        # go tool pprof -tagfocus verdict=leak keeps the leaks.
        dump = os.path.join(self.tmp, "verdicts.txt")
        with open(dump, "w") as f:
            f.write(test_tools.DUMP_V)
        profile = self.report(dump)
        raw = pprof("-raw", profile)
        self.assertIn("cache:[kmalloc-64] context:[softirq] verdict:[leak]", raw)
        self.assertIn("cache:[kmalloc-64] context:[PID 5 sh] syscall:[write] verdict:[live]", raw)
        top = pprof("-top", "-tagfocus", "verdict=leak", "-sample_index", "inuse_objects",
                    profile)
        self.assertRegex(top, r"(?m)^ +1 .* other$")
        self.assertNotRegex(top, r"(?m) leak \[m\]$")

    def test_filters_apply(self):
        self.same_as_the_dump(self.report(DUMP, "--module", "leaky"), DUMP, "leaky")

    def test_raw(self):
        raw = pprof("-raw", self.report(DUMP))
        self.assertIn("inuse_objects/count inuse_space/bytes", raw)
        self.assertRegex(raw, r"(?m)^ +20 +1280: 1 2 3 4 5 6 7 8 $")
        self.assertIn("cache:[kmalloc-64] context:[PID 616 sh] syscall:[write]", raw)
        self.assertRegex(raw, r"(?m)^ +1: 0x0 M=2 leaky_alloc_buf \[leaky\] :0 "
                         r"s=0\(leaky_alloc_buf\)$")
        self.assertRegex(raw, r"(?m)^1: 0x0/0x0/0x0 vmlinux +\[FN\]$")
        self.assertRegex(raw, r"(?m)^2: 0x0/0x0/0x0 leaky +\[FN\]$")
        self.assertIn("Duration: 773m", raw)
        # The capture time: when the dump was written.
        t = time.gmtime(os.stat(DUMP).st_mtime)
        self.assertIn("Time: %s" % time.strftime("%Y-%m-%d %H:%M:%S", t), raw)
        self.assertIn("Comment: kmalloc-64: traced 0.773s, 26 objects (1664 bytes), "
                      "0 records dropped; 26 objects (1664 bytes) pass the filters", raw)

    def test_a_print_of_all(self):
        # Every cache of the print in one profile, each sample labelled
        # with its cache; a comment a cache.
        raw = pprof("-raw", self.report(test_cli.PRINT_ALL))
        for n, nbytes, cache in ((3, 49152, "kmalloc-large"), (7, 1456, "leaky_widget"),
                                 (5, 320, "kmalloc-64")):
            self.assertRegex(raw, r"(?m)^ +%d +%d: [0-9 ]+\n +cache:\[%s\] " % (n, nbytes, cache))
            self.assertIn("Comment: %s: traced " % cache, raw)
        self.assertEqual(top_total(self.report(test_cli.PRINT_ALL), "inuse_objects"), 15)

    def test_gzipped(self):
        with open(self.report(DUMP), "rb") as f:
            self.assertEqual(f.read(2), b"\x1f\x8b")

    def test_diff_base_shows_the_leak(self):
        # Before: the dump without leaky's 5 orphans.
        with open(DUMP) as f:
            blocks = f.read().split("\n\n")
        before = os.path.join(self.tmp, "before.txt")
        with open(before, "w") as f:
            f.write("\n\n".join(b for b in blocks if "leaky_orphan_buf" not in b).replace(
                "26 outstanding (1664 bytes)", "21 outstanding (1344 bytes)"))
        self.diff_shows(self.report(before), self.report(DUMP),
                        {"leaky_orphan_buf [leaky]": (5, 320)})

    def diff_shows(self, before, after, want):
        """-diff_base: the functions with objects of their own (flat) are
        exactly @want's, with its objects and bytes."""
        got = {}
        for index, i in (("inuse_objects", 0), ("inuse_space", 1)):
            text = pprof("-top", *unit(index), "-sample_index=" + index, "-diff_base",
                         before, after)
            for line in text.splitlines():
                m = re.match(r"^ +(-?\d+)B? +\S+% +\S+% +\S+ +\S+% +(.*)$", line)
                if m and int(m.group(1)):
                    got.setdefault(m.group(2), [0, 0])[i] = int(m.group(1))
        self.assertEqual({k: tuple(v) for k, v in got.items()}, want)

    def test_record_in_the_vm(self):
        for d, profile, dump in vm_files("cli-record.pb.gz", "cli-record.dump"):
            self.same_as_the_dump(profile, dump)
            self.assertIn((("leaky_alloc_buf [leaky]", "keep [leaky]", "ctl_write [leaky]"),
                           "write"),
                          {(k[0][:3], k[1]) for k in traces(profile, "inuse_objects")}, d)

    def test_before_and_after_a_leak_in_the_vm(self):
        for d, before, after, bdump, adump in vm_files("cli-before.pb.gz", "cli-after.pb.gz",
                                                       "cli-before.dump", "cli-after.dump"):
            self.same_as_the_dump(before, bdump, "leaky")
            self.same_as_the_dump(after, adump, "leaky")
            self.diff_shows(before, after, {"leaky_orphan_buf [leaky]": (3, 192)})


def kmt_expected(trace):
    """What a kmemtrace recording holds, read by babeltrace2 (test_kmemtrace's
    reading): {sample type: {function: value}}, allocations by their call
    site's function, and the objects not freed by the end (an address
    allocated again was freed unseen); the bytes allocated as the report
    counts them (a kmem_cache_alloc's, its cache's slab size)."""
    rc, events, _, _ = test_kmemtrace.babeltrace(trace)
    slab = test_kmemtrace.slab_sizes(trace)
    assert rc == 0, trace
    syms = test_kmemtrace.Syms(trace)
    want = {t: collections.Counter() for t in ("alloc_objects", "alloc_space",
                                               "inuse_objects", "inuse_space")}
    live = {}
    for e in events:
        if e["name"] in ("kmem:kmalloc", "kmem:kmem_cache_alloc"):
            func = syms.func(e["cs"])
            want["alloc_objects"][func] += 1
            size = test_kmemtrace.bytes_allocated(e, slab)
            want["alloc_space"][func] += size
            live[e["ptr"]] = (func, size)
        else:
            live.pop(e["ptr"], None)
    for func, size in live.values():
        want["inuse_objects"][func] += 1
        want["inuse_space"][func] += size
    return want


class KmemtraceReport(unittest.TestCase):
    """kmemtrace-report --pprof: the allocations of the trace per call site
    and what is left of them, as babeltrace2 reads the trace's events."""

    def setUp(self):
        need(GO, "golang-go")
        if not test_cli.REPORT:
            self.skipTest("no kmemtrace-report (libbabeltrace2-dev)")
        self.tmp = tempfile.mkdtemp(prefix="slabtrace-kmt.")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def same_as_the_events(self, trace):
        profile = os.path.join(self.tmp, "kmt.pb.gz")
        p = subprocess.run([test_cli.REPORT, "--pprof", profile, trace],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        for index, want in kmt_expected(trace).items():
            got = traces(profile, index)
            self.assertTrue(all(len(k[0]) == 1 for k in got), trace)
            funcs = collections.Counter()
            for k, v in got.items():
                funcs[k[0][0]] += v
            self.assertEqual(+funcs, +want, "%s: %s" % (trace, index))
            self.assertEqual(top_total(profile, index), sum(want.values()), trace)
        # The totals the text report prints too.
        allocs = int(re.search(r"(\d+) allocations", p.stdout).group(1))
        self.assertEqual(top_total(profile, "alloc_objects"), allocs, trace)
        return profile

    def test_traces_checked_in(self):
        for name in ("tiny", "widget"):
            profile = self.same_as_the_events(os.path.join(HERE, "kmemtrace", name))
        # widget: leaky's 1000 widgets, each freed: nothing left.
        raw = pprof("-raw", profile)
        self.assertRegex(raw, r"(?m)^ +1000 +208000 +0 +0: 1 \n +cache:\[leaky_widget\]$")
        self.assertIn("alloc_objects/count alloc_space/bytes inuse_objects/count "
                      "inuse_space/bytes", raw)

    def test_traces_of_the_vm(self):
        found = [os.path.join(d, "kmemtrace", "all") for d in VM_OUT
                 if os.path.isdir(os.path.join(d, "kmemtrace", "all"))]
        if not found:
            if os.environ.get("SLABTRACE_REQUIRE_VM_OUT") == "1":
                raise AssertionError("no kmemtrace/all in %s" % (VM_OUT or "no VM output given"))
            self.skipTest("no kmemtrace recording in the VM output (guest test kmemtrace)")
        for trace in found:
            self.same_as_the_events(trace)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def metrics(text):
    """{'name{labels}': value} of an exposition-format text."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, value = line.rsplit(" ", 1)
            out[key] = float(value)
    return out


class Prometheus(unittest.TestCase):
    def setUp(self):
        self.fake = test_cli.Fake()
        self.prom = os.path.join(self.fake.root, "textfile", "slabtrace.prom")
        os.makedirs(os.path.dirname(self.prom))

    def tearDown(self):
        self.fake.close()

    def check_metrics(self, path):
        need(PROMTOOL, "prometheus (promtool)")
        with open(path) as f:
            p = subprocess.run([PROMTOOL, "check", "metrics"], stdin=f, capture_output=True,
                               text=True)
        self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "", ""), path)

    def sample(self, fake=None):
        """The metrics of one growth sample (promtool must accept them)."""
        rc, out, err = (fake or self.fake).run("growth", "-i", "0.01", "-r", "1",
                                               "--prometheus", self.prom)
        self.assertEqual(rc, 0, err)
        self.check_metrics(self.prom)
        with open(self.prom) as f:
            return metrics(f.read())

    def test_figures_and_promtool(self):
        m = self.sample()
        self.assertEqual(m['slabtrace_slab_objects{cache="kmalloc-64"}'], 1000)
        self.assertEqual(m['slabtrace_slab_bytes{cache="kmalloc-64"}'], 64000)
        self.assertEqual(m['slabtrace_slab_bytes{cache="leaky_widget"}'], 10 * 208)
        self.assertEqual(m["slabtrace_up"], 1)
        self.assertEqual(m["slabtrace_records"], 26)
        self.assertEqual(m["slabtrace_records_limit"], 330170)
        self.assertEqual(m["slabtrace_pool_free_records"], 8166)
        self.assertEqual(m['slabtrace_cache_tracing{cache="kmalloc-64"}'], 0)
        self.assertEqual(m['slabtrace_cache_records{cache="kmalloc-64"}'], 26)
        self.assertEqual(m['slabtrace_cache_drops_total{cache="kmalloc-64",kind="pool_empty"}'],
                         3)
        # A record kept without its backtrace is no drop: a family of its own.
        self.assertEqual(
            m['slabtrace_cache_incomplete_total{cache="kmalloc-64",kind="stack_store_full"}'], 1)
        self.assertNotIn('slabtrace_cache_drops_total{cache="kmalloc-64",kind="stack_store_full"}',
                         m)
        self.assertEqual(m['slabtrace_cache_filtered_total{cache="kmalloc-64"}'], 0)
        self.assertEqual(m["slabtrace_kptrace_dropped_total"], 2)
        self.assertEqual(len([k for k in m if k.startswith("slabtrace_slab_objects{")]), 5)
        self.assertEqual(os.listdir(os.path.dirname(self.prom)), ["slabtrace.prom"])

    def test_filtered_and_own_are_no_drops(self):
        # What a filter left out, and slabtrace's own allocations (never
        # recorded), have counters of their own; the module's kinds of
        # drop (module/slab/traced.c, 6.12: stack_walk_empty too) go where
        # they belong: lost, or kept without a detail.
        self.fake.write("slab/stats", test_cli.STATS.replace(
            "stack_walk_empty 0\n",
            "stack_walk_empty 5 own 7 filtered 4\n"))
        m = self.sample()
        self.assertEqual(m['slabtrace_cache_filtered_total{cache="kmalloc-64"}'], 4)
        self.assertEqual(m['slabtrace_cache_own_total{cache="kmalloc-64"}'], 7)
        self.assertEqual(
            m['slabtrace_cache_incomplete_total{cache="kmalloc-64",kind="stack_walk_empty"}'], 5)
        self.assertEqual(
            sorted(k for k in m if k.startswith("slabtrace_cache_drops_total{")),
            ['slabtrace_cache_drops_total{cache="kmalloc-64",kind="%s"}' % k
             for k in ("in_NMI", "limit_reached", "pool_empty")])

    def test_memory_held(self):
        self.fake.write("slab/stats", test_cli.STATS.replace(
            "stacks deferred 0\n", "stacks deferred 0\nsnapshots kept 1 alive 1 bytes 45056\n"))
        with open(os.path.join(self.fake.proc, "slabinfo"), "a") as f:
            f.write("slabtrace_record    8192    8192     48   85    1 : tunables    0    0    0 "
                    ": slabdata     97     97      0\n")
        m = self.sample()
        self.assertEqual(m['slabtrace_memory_bytes{part="records"}'], 8192 * 48)
        self.assertEqual(m['slabtrace_memory_bytes{part="snapshots"}'], 45056)

    def test_without_the_module(self):
        fake = test_cli.Fake(module=False)
        try:
            m = self.sample(fake)
            self.assertEqual(m["slabtrace_up"], 0)
            self.assertEqual([k for k in m if k.startswith("slabtrace_")
                              and not k.startswith("slabtrace_slab_")], ["slabtrace_up"])
        finally:
            fake.close()

    def test_rewritten_whole_every_sample_until_sigterm(self):
        p = self.fake.popen("growth", "-i", "0.05", "--prometheus", self.prom)
        try:
            self.fake.wait_for(lambda: os.path.exists(self.prom), "the file")
            # A reader holding the file open keeps a whole sample: the next
            # one is a new file renamed over it, never written into it.
            with open(self.prom) as first:
                self.fake.slabinfo(w=10, k=5000, d=8000)

                def grown():
                    with open(self.prom) as f:
                        return 'slabtrace_slab_objects{cache="kmalloc-64"} 5000\n' in f.read()
                self.fake.wait_for(grown, "the new sample in the file")
                self.assertNotEqual(os.fstat(first.fileno()).st_ino, os.stat(self.prom).st_ino)
                self.assertIn('slabtrace_slab_objects{cache="kmalloc-64"} 1000\n', first.read())
            self.assertIsNone(p.poll())
        finally:
            p.send_signal(signal.SIGTERM)
            out, err = p.communicate(timeout=20)
        self.assertEqual(p.returncode, 128 + signal.SIGTERM, err)
        self.assertIn("kmalloc-64", out)
        self.assertEqual(os.listdir(os.path.dirname(self.prom)), ["slabtrace.prom"])
        self.check_metrics(self.prom)

    def test_bad_file(self):
        rc, out, err = self.fake.run("growth", "-r", "1", "-i", "0.01", "--prometheus",
                                     os.path.join(self.fake.root, "no", "such", "x.prom"))
        self.assertEqual(rc, 1)
        # The temporary file is mkstemp()'s, beside FILE.
        self.assertRegex(err, r"^slabtrace: .*/no/such/x\.prom\.\w{6}: No such file or "
                         r"directory\n$")

    def test_node_exporter_serves_them(self):
        need(NODE_EXPORTER, "prometheus-node-exporter")
        self.sample()
        self.serve_and_find(os.path.dirname(self.prom), [
            'slabtrace_slab_objects{cache="kmalloc-64"} 1000',
            'slabtrace_cache_drops_total{cache="kmalloc-64",kind="pool_empty"} 3',
            "slabtrace_records 26"])

    def serve_and_find(self, directory, lines):
        """node_exporter with its textfile collector alone serves @lines."""
        port = free_port()
        ne = subprocess.Popen([NODE_EXPORTER, "--collector.disable-defaults",
                               "--collector.textfile",
                               "--collector.textfile.directory=" + directory,
                               "--web.listen-address=127.0.0.1:%d" % port],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            body = None
            for _ in range(100):
                try:
                    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port,
                                                timeout=5) as r:
                        body = r.read().decode()
                    break
                except OSError:
                    if ne.poll() is not None:
                        break
                    time.sleep(0.1)
            self.assertIsNotNone(body, "node_exporter did not answer")
            served = body.splitlines()
            for line in lines:
                self.assertIn(line, served)
            # The file was read without error.
            self.assertIn('node_textfile_scrape_error 0', served)
        finally:
            ne.terminate()
            ne.wait(timeout=20)

    def test_the_file_of_the_vm(self):
        for d, prom in vm_files("cli.prom"):
            self.check_metrics(prom)
            with open(prom) as f:
                m = metrics(f.read())
            self.assertEqual(m["slabtrace_up"], 1, d)
            self.assertGreaterEqual(m['slabtrace_cache_records{cache="kmalloc-64"}'], 7, d)
            self.assertGreater(m['slabtrace_memory_bytes{part="records"}'], 0, d)
            need(NODE_EXPORTER, "prometheus-node-exporter")
            tmp = tempfile.mkdtemp(prefix="slabtrace-textfile.")
            try:
                shutil.copy(prom, os.path.join(tmp, "slabtrace.prom"))
                self.serve_and_find(tmp, ["slabtrace_up 1"])
            finally:
                shutil.rmtree(tmp)


if __name__ == "__main__":
    test_cli.build()
    result = unittest.main(argv=[sys.argv[0], "-v"], exit=False).result
    nfail = len(result.failures) + len(result.errors)
    nskip = len(result.skipped)
    print("interop: %d passed, %d failed%s" % (result.testsRun - nfail - nskip, nfail,
                                              ", %d skipped" % nskip if nskip else ""))
    sys.exit(1 if nfail else 0)
