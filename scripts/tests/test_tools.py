#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of the user tools' views of a dump: scripts/tools/flamegraph.py
and the slabtrace command's report (scripts/tools/slabtrace/, the one
parser of the dump in scripts/tools/lib/dump.c).

    scripts/tests/test_tools.py [VM_OUT_DIR...]

On made-up input: the flame graph is well-formed XML, has one rectangle
per merged frame, each as wide as its share of the total, and escapes odd
names; slabtrace report groups, counts, ages and sorts as the kernel does,
and writes folded stacks and JSON.  On what a VM run saved
(build/KVER/vm-out, from the leakviews guest test: one snapshot as
objects, as stacks and as folded stacks): the report's groups of the
objects dump are the kernel's groups, its folded stacks the kernel's, and
the kernel's folded stacks render.  With SLABTRACE_REQUIRE_VM_OUT=1 (make
check) a missing VM output fails rather than skips.  Builds slabtrace with
make tools into $TMPDIR, or uses $SLABTRACE_BIN.  The last line is
"tools: N passed, N failed".
"""

import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "scripts", "tools"))
import flamegraph  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
VM_OUT = [d for d in sys.argv[1:] if os.path.isdir(d)]


def tmp(name, text):
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), name)
    with open(path, "w") as f:
        f.write(text)
    return path


def run(main, argv):
    """(exit code, stdout, stderr) of a tool's main()."""
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = main(argv)
    finally:
        sys.stdout, sys.stderr = old
    return code, out.getvalue(), err.getvalue()


def frames_of(svg_text):
    """(name, count, width) of each frame, from its tooltip; each frame has
    one rectangle, and the legend's are the only others."""
    root = ET.fromstring(svg_text)
    out = []
    for g in root.iter(SVG + "g"):
        if g.get("class") != "frame":
            continue
        rect, title = g.find(SVG + "rect"), g.find(SVG + "title")
        m = re.match(r"^(.*) \((\d+) \S+, [0-9.]+%\)$", title.text)
        assert g.get("data-name") == m.group(1)
        out.append((m.group(1), int(m.group(2)), float(rect.get("width"))))
    legend = [g for g in root.iter(SVG + "g") if g.get("class") == "legend"]
    assert len(out) + len(legend) == len(list(root.iter(SVG + "rect")))
    return out


def prefixes(folded_lines):
    """The distinct frames of a merged tree: distinct stack prefixes."""
    seen = set()
    for line in folded_lines:
        stack = line.rsplit(" ", 1)[0].split(";")
        for i in range(1, len(stack) + 1):
            seen.add(tuple(stack[:i]))
    return seen


class FlameGraph(unittest.TestCase):
    LINES = ["a;b;c 3", "a;b;d 1", "a;e 4", "f 2", "a;b;c 1"]

    def test_well_formed_and_one_rect_per_frame(self):
        svg = flamegraph.render(flamegraph.parse(self.LINES), "t", "objects")
        frames = frames_of(svg)
        # "all", then a, a;b, a;b;c, a;b;d, a;e, f.
        self.assertEqual(len(frames), len(prefixes(self.LINES)) + 1)
        self.assertEqual(len(frames), 7)

    def test_widths_proportional(self):
        width = 1000
        svg = flamegraph.render(flamegraph.parse(self.LINES), "t", "objects", width)
        frames = frames_of(svg)
        total = 11
        for name, count, w in frames:
            self.assertAlmostEqual(w, count * (width - 2 * flamegraph.MARGIN) / total,
                                   places=2, msg=name)
        counts = {name: count for name, count, _ in frames}
        self.assertEqual(counts["all"], 11)
        self.assertEqual(counts["a"], 9)
        self.assertEqual(counts["c"], 4)

    def test_odd_names_escaped(self):
        lines = ['x<y>&"z;q\'r [mod] 2', "plain 1"]
        svg = flamegraph.render(flamegraph.parse(lines), "<title>", "bytes")
        names = [n for n, _, _ in frames_of(svg)]
        self.assertIn('x<y>&"z', names)
        self.assertIn("q'r [mod]", names)

    def test_control_characters_and_bad_utf8(self):
        # A frame name with a control character, and bytes that are not
        # UTF-8: a well-formed SVG all the same, "?" and U+FFFD in their
        # places.  On standard input too (the script reads it as UTF-8).
        data = b"a;b\x01c 5\nx\xff\xfey 2\n"
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "st-ctl.folded")
        with open(path, "wb") as f:
            f.write(data)
        code, out, err = run(flamegraph.main, ["--title", "t\x02", path])
        self.assertEqual(code, 0, err)
        names = [n for n, _, _ in frames_of(out)]
        self.assertIn("b?c", names)
        self.assertIn("x\ufffd\ufffdy", names)
        p = subprocess.run([sys.executable, os.path.join(TOP, "scripts", "tools", "flamegraph.py"),
                            "--weight", "objects"], input=data, capture_output=True,
                           env=dict(os.environ, LC_ALL="C"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("b?c", [n for n, _, _ in frames_of(p.stdout.decode())])

    def test_deep_stacks(self):
        # Thousands of frames (stackcollapse scripts make such): no
        # recursion limit.
        line = ";".join("f%d" % i for i in range(5000)) + " 1"
        names = [n for n, _, _ in frames_of(flamegraph.render(
            flamegraph.parse([line]), "t", "objects", minwidth=0))]
        self.assertEqual(len(names), 5001)

    def test_title_total_legend_script(self):
        svg = flamegraph.render(flamegraph.parse(self.LINES), "t&", "bytes")
        root = ET.fromstring(svg)
        title = [t for t in root.iter(SVG + "text") if t.get("id") == "title"][0]
        self.assertEqual(title.text, "t& (11 bytes)")
        self.assertEqual([t.text for g in root.iter(SVG + "g") if g.get("class") == "legend"
                          for t in g.iter(SVG + "text")],
                         ["kernel function", "module function", "system call",
                          "leaking stack"])
        script = root.find(SVG + "script").text
        for fn in ("function fg_zoom_to", "function fg_search_for", "function fg_show"):
            self.assertIn(fn, script)
        self.assertEqual(root.get("onload"), "fg_init()")

    def test_leaking_stacks_red(self):
        # A stack ending in [leak] is red, and so is every frame all of
        # whose stacks are leaks; a frame shared with a live stack is not.
        lines = ["syscall:write;a;b;leak_fn [m];[leak] 5", "syscall:write;a;c 3"]
        root = ET.fromstring(flamegraph.render(flamegraph.parse(lines), "t", "objects"))
        fill = {g.get("data-name"): g.find(SVG + "rect").get("fill")
                for g in root.iter(SVG + "g") if g.get("class") == "frame"}

        def red(name):
            r, g, b = map(int, fill[name][4:-1].split(","))
            return r >= 200 and g < 60 and b < 60

        self.assertEqual([n for n in ("all", "syscall:write", "a", "b", "leak_fn [m]",
                                      "[leak]", "c") if red(n)],
                         ["b", "leak_fn [m]", "[leak]"])

    def test_minwidth_prunes_into_the_parent(self):
        # At 1180 pixels for 100001, the stack of 1 is 0.012 px wide.
        lines = ["a;b 100000", "a;tiny;deeper 1"]
        names = [n for n, _, _ in frames_of(flamegraph.render(flamegraph.parse(lines), "t",
                                                              "bytes"))]
        self.assertEqual(names, ["all", "a", "b"])
        frames = frames_of(flamegraph.render(flamegraph.parse(lines), "t", "bytes",
                                             minwidth=0))
        self.assertEqual([n for n, _, _ in frames], ["all", "a", "b", "tiny", "deeper"])
        # "a" keeps the pruned count in its width either way.
        self.assertEqual(frames[1][1], 100001)
        code, out, _ = run(flamegraph.main, ["--minwidth", "0", tmp("st-mw.folded",
                                                                  "\n".join(lines))])
        self.assertIn('data-name="tiny"', out)
        code, out, _ = run(flamegraph.main, [tmp("st-mw.folded", "\n".join(lines))])
        self.assertNotIn('data-name="tiny"', out)

    def test_bad_input(self):
        with self.assertRaises(ValueError):
            flamegraph.parse(["a;b"])
        with self.assertRaises(ValueError):
            flamegraph.parse(["a;b x"])
        with self.assertRaises(ValueError):
            flamegraph.parse(["a;b -3"])
        self.assertEqual(flamegraph.parse([]).count, 0)

    def test_utf8_whatever_the_locale(self):
        # The SVG is UTF-8, as it says, in any locale (U+FFFD for a byte
        # that is not UTF-8 was an UnicodeEncodeError in an ASCII one);
        # standard output that cannot be written is said, exit 1.
        script = os.path.join(TOP, "scripts", "tools", "flamegraph.py")
        env = dict(os.environ, PYTHONIOENCODING="ascii")
        p = subprocess.run([sys.executable, script, "--weight", "objects"],
                           input=b"a;caf\xff;b 5\n", capture_output=True, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("caf\ufffd", [n for n, _, _ in frames_of(p.stdout.decode("utf-8"))])
        with open("/dev/full", "w") as full:
            p = subprocess.run([sys.executable, script, "--weight", "objects"],
                               input=b"a;b 5\n", stdout=full, stderr=subprocess.PIPE, env=env)
        self.assertEqual((p.returncode, p.stderr.decode()),
                         (1, "flamegraph.py: standard output: No space left on device\n"))

    def test_cli(self):
        path = tmp("st-flame-test.folded", "a;b 2\nc 1\n")
        try:
            code, out, err = run(flamegraph.main, ["--title", "T&", "--weight", "bytes",
                                                   "--width", "500", path])
            self.assertEqual(code, 0)
            frames = frames_of(out)
            self.assertEqual(frames[0], ("all", 3, 500 - 2 * flamegraph.MARGIN))
            self.assertIn("T&amp;", out)
            self.assertIn("(2 bytes,", out)
            tmp("st-flame-test.folded", "a;b\n")
            code, out, err = run(flamegraph.main, [path])
            self.assertEqual((code, out), (1, ""))
            self.assertIn("line 1: no count", err)
            code, out, err = run(flamegraph.main, ["--weight", "bytes", path + ".missing"])
            self.assertEqual(code, 1)
        finally:
            os.unlink(path)

    def test_no_stacks_is_an_error(self):
        for text, why in (("", "no stacks (empty input)"), ("\n\n", "no stacks (empty input)"),
                          ("a;b 0\nc 0\n", "no stacks (their counts are all 0)")):
            path = tmp("st-flame-empty.folded", text)
            code, out, err = run(flamegraph.main, [path])
            self.assertEqual((code, out), (1, ""), text)
            self.assertIn("%s: %s" % (path, why), err)

    def exits(self, argv):
        """The exit status of a usage error (argparse exits)."""
        with self.assertRaises(SystemExit) as e:
            run(flamegraph.main, argv)
        return e.exception.code

    def test_bad_width_is_a_usage_error(self):
        path = tmp("st-flame-w.folded", "a;b 2\n")
        for argv in (["--width", "0"], ["--width", "-5"], ["--width", "20"],
                     ["--minwidth", "-1"]):
            self.assertEqual(self.exits(argv + [path]), 2, argv)
        self.assertEqual(run(flamegraph.main, ["--width", "21", path])[0], 0)

    def test_title_says_what_the_counts_are(self):
        # The file's name says it (folded: objects, folded_bytes: bytes);
        # --weight says it otherwise, and must where nothing does.
        def title(argv):
            code, out, err = run(flamegraph.main, argv)
            self.assertEqual(code, 0, err)
            root = ET.fromstring(out)
            return [t for t in root.iter(SVG + "text") if t.get("id") == "title"][0].text

        objects = tmp("kmalloc-64.folded", "a;b 2\nc 1\n")
        nbytes = tmp("kmalloc-64.folded_bytes", "a;b 128\nc 64\n")
        other = tmp("st-flame.txt", "a;b 2\n")
        self.assertEqual(title([objects]), "slabtrace: outstanding allocations (3 objects)")
        self.assertEqual(title([nbytes]), "slabtrace: outstanding allocations (192 bytes)")
        self.assertEqual(title(["--weight", "bytes", objects]),
                         "slabtrace: outstanding allocations (3 bytes)")
        self.assertEqual(title(["--weight", "objects", other]),
                         "slabtrace: outstanding allocations (2 objects)")
        self.assertEqual(self.exits([other]), 2)
        self.assertEqual(self.exits([]), 2)  # standard input


DUMP = """Dumping outstanding allocs from kmalloc-64
traced 3.000s, 4 outstanding (256 bytes), 0 records dropped
-------------------------
Obj 01, 64 bytes (50 requested), age 0.100s, cpu 0, from PID 5 sh in syscall write:
----
 #01 [<a1>] in leak+0x1b/0x20 [m]
 #02 [<a2>] in caller+0x5/0x10

Obj 02, 64 bytes (40 requested), age 0.600s, cpu 1, from PID 6 sh in syscall write:
----
 #01 [<a1>] in leak+0x1b/0x20 [m]
 #02 [<a2>] in caller+0x5/0x10

Obj 03, 64 bytes (64 requested), age 0.201s, cpu 0, from softirq:
----
 #01 [<b1>] in other+0x2/0x8

Obj 04, 64 bytes (50 requested), age 2.000s, cpu 0, from PID 5 sh in syscall write:
----
 #01 [<a1>] in leak+0x1b/0x20 [m]
 #02 [<a2>] in caller+0x5/0x10

"""


def slabtrace_bin():
    """The slabtrace command: $SLABTRACE_BIN, or built once by make tools."""
    global BIN
    if BIN is None:
        BIN = os.environ.get("SLABTRACE_BIN")
    if BIN is None:
        out = tempfile.mkdtemp(prefix="slabtrace-tools.")
        p = subprocess.run(["make", "--no-print-directory", "-C", TOP, "tools",
                            "TOOLS_OUT=" + out, "WERROR=1"], capture_output=True, text=True)
        if p.returncode:
            raise AssertionError("make tools: " + p.stdout + p.stderr)
        BIN = os.path.join(out, "slabtrace")
    return BIN


BIN = None


def report(*args, stdin=None):
    """(exit code, stdout, stderr) of slabtrace report ARGS."""
    p = subprocess.run([slabtrace_bin(), "report"] + list(args), input=stdin,
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def report_json(path, *args):
    """The caches element of report --json's document, every stack."""
    rc, out, err = report("--json", "-n", "1000000", *args, path)
    assert rc == 0, err
    return json.loads(out)["caches"][0]


STACK = re.compile(r"^Stack (\d+): (\d+) objects?, (\d+) bytes \((\d+) requested\), "
                   r"age min/avg/max (\d+)\.(\d{3})s/(\d+)\.(\d{3})s/(\d+)\.(\d{3})s, "
                   r"from (.*?): ((leak|live|kept|unknown)\b.*)$")
FRAME = re.compile(r"^ #\d+ \[<[^>]*>\] in (.*)$")


def parse_stacks(lines):
    """The groups of the kernel's stacks view, in its order: the oracle the
    report's grouping is checked against."""
    groups, g = [], None
    for line in lines:
        line = line.rstrip("\n")
        m = STACK.match(line)
        if m:
            who, sep, syscall = m.group(11).partition(" in syscall ")
            g = {"objects": int(m.group(2)), "bytes": int(m.group(3)),
                 "requested": int(m.group(4)),
                 "age_min_ms": int(m.group(5)) * 1000 + int(m.group(6)),
                 "age_avg_ms": int(m.group(7)) * 1000 + int(m.group(8)),
                 "age_max_ms": int(m.group(9)) * 1000 + int(m.group(10)),
                 "syscall": syscall if sep else None, "evidence": m.group(12),
                 "verdict": m.group(13), "frames": []}
            groups.append(g)
            continue
        m = FRAME.match(line)
        if m and g is not None:
            g["frames"].append(m.group(1))
        elif not line:
            g = None
    return groups


KEYS = ("objects", "bytes", "requested", "age_min_ms", "age_avg_ms", "age_max_ms", "syscall",
        "verdict", "evidence")


def group_keys(stack):
    """A JSON stack's figures and frames, to compare with the kernel's."""
    frames = [f if isinstance(f, str) else f["text"] for f in stack["frames"]]
    return repr([stack[k] for k in KEYS] + [frames])


class Report(unittest.TestCase):
    def setUp(self):
        self.path = tmp("st-report-test.txt", DUMP)

    def tearDown(self):
        os.unlink(self.path)

    def test_groups(self):
        c = report_json(self.path)
        self.assertEqual((c["cache"], c["outstanding"], c["bytes"]), ("kmalloc-64", 4, 256))
        g = c["stacks"]
        self.assertEqual([x["objects"] for x in g], [3, 1])
        self.assertEqual(g[0]["bytes"], 192)
        self.assertEqual(g[0]["requested"], 140)
        self.assertEqual((g[0]["age_min_ms"], g[0]["age_avg_ms"], g[0]["age_max_ms"]),
                         (100, 900, 2000))
        self.assertEqual([x["context"] for x in g[0]["contexts"]], ["PID 5 sh", "PID 6 sh"])
        self.assertEqual(g[0]["syscall"], "write")
        self.assertIsNone(g[1]["syscall"])

    def test_folded(self):
        self.assertEqual(report("--folded", self.path)[1],
                         "syscall:write;caller;leak [m] 3\nother 1\n")
        self.assertEqual(report("--folded", "--bytes", self.path)[1],
                         "syscall:write;caller;leak [m] 192\nother 64\n")
        self.assertEqual(report("--folded", "--older", "500", self.path)[1],
                         "syscall:write;caller;leak [m] 2\n")
        # A name with ';' (it separates the frames), a compat call, no backtrace.
        odd = DUMP.replace("in syscall write:", "in syscall compat write:").replace(
            "caller+0x5", "call;er+0x5").replace(" #01 [<b1>] in other+0x2/0x8\n", "")
        rc, out, err = report("--folded", "-", stdin=odd)
        self.assertEqual((rc, out), (0, "syscall:compat_write;call:er;leak [m] 3\n[unknown] 1\n"),
                         err)

    def test_folded_escapes_odd_bytes(self):
        # A saved dump may hold any byte: in folded stacks, as in the text,
        # one that is not printable ASCII is \xNN (an ESC, a CR that split
        # the line went out raw), ';' is ':'; slabtrace-flamegraph reads them.
        odd = DUMP.replace("in syscall write:", "in syscall wr\x1bite:").replace(
            "in leak+", "in le\x1b[2Ja\rk\u00e9;+")
        path = tmp("st-report-odd.txt", odd)
        try:
            rc, out, err = report("--folded", path)
        finally:
            os.unlink(path)
        self.assertEqual((rc, out), (0, "syscall:wr\\x1bite;caller;le\\x1b[2Ja\\x0dk"
                                        "\\xc3\\xa9: [m] 3\nother 1\n"), err)
        folded = tmp("st-report-odd.folded", out)
        try:
            code, svg, err = run(flamegraph.main, [folded])
        finally:
            os.unlink(folded)
        self.assertEqual(code, 0, err)
        self.assertIn("le\\x1b[2Ja\\x0dk\\xc3\\xa9: [m]", [n for n, _, _ in frames_of(svg)])

    def test_text(self):
        rc, out, _ = report("-n", "1", self.path)
        self.assertEqual(rc, 0)
        self.assertIn("kmalloc-64: 4 outstanding objects (256 bytes), traced 3.000s, "
                      "0 records dropped; 2 stacks", out)
        self.assertRegex(out, r"(?m)^   1        3        192        140  2\.000s  -        "
                         r"leak \[m\] < caller$")
        self.assertNotIn("other", out)

    def test_json(self):
        rc, out, _ = report("--json", self.path)
        self.assertEqual(out.count("\n"), 1)
        data = json.loads(out)
        self.assertEqual(data["version"], 1)
        c = data["caches"][0]
        self.assertEqual((c["cache"], c["traced_s"], c["outstanding"], c["bytes"],
                          c["dropped"], c["matched_objects"], c["matched_bytes"]),
                         ("kmalloc-64", 3.0, 4, 256, 0, 4, 256))
        self.assertEqual([(g["rank"], g["objects"], g["bytes"], g["age_max_ms"])
                          for g in c["stacks"]], [(1, 3, 192, 2000), (2, 1, 64, 201)])
        self.assertEqual(c["stacks"][0]["contexts"],
                         [{"context": "PID 5 sh", "pid": 5}, {"context": "PID 6 sh", "pid": 6}])
        self.assertEqual(c["stacks"][1]["contexts"], [{"context": "softirq", "pid": -1}])
        self.assertEqual(c["stacks"][0]["frames"][0],
                         {"function": "leak", "module": "m", "text": "leak+0x1b/0x20 [m]"})
        rc, out, _ = report("--json", "-n", "1", self.path)
        self.assertEqual(len(json.loads(out)["caches"][0]["stacks"]), 1)

    def test_more_contexts_counts_contexts(self):
        # Six processes: four are named, "more" is the other two (not their objects).
        objs = "".join("Obj %02d, 64 bytes (50 requested), age 0.100s, cpu 0, from PID %d sh:\n"
                       "----\n #01 [<a1>] in leak+0x1b/0x20 [m]\n\n" % (i, 10 + i % 6)
                       for i in range(12))
        text = ("Dumping outstanding allocs from kmalloc-64\ntraced 1.000s, 12 outstanding "
                "(768 bytes), 0 records dropped\n-------------------------\n" + objs)
        rc, out, err = report("--json", "-", stdin=text)
        s = json.loads(out)["caches"][0]["stacks"][0]
        self.assertEqual((len(s["contexts"]), s["more_contexts"]), (4, 2), err)

    def test_bad_input(self):
        rc, out, err = report("--folded", "--json", self.path)
        self.assertEqual(rc, 2)
        # Input it does not understand is refused, never "0 objects".
        header = DUMP.split("\n", 1)[0]
        for text, why in (
                ("", "not a slabtrace dump (no 'Dumping outstanding allocs' line)"),
                ("a;b 3\n", "not a slabtrace dump"),
                (header + " (by stack)\ntraced 1.000s, 0 outstanding (0 bytes) in 0 "
                 "stacks, 0 records dropped\n", "a stacks view, not a per-object dump"),
                (header + "\n", "cut short: no 'traced' line"),
                (DUMP[:DUMP.index("Obj 03")], "cut short: it lists 2 objects, its header "
                 "counts 4"),
                (DUMP.replace("-\nObj ", "-\nStack 1: 3 objects, 192 bytes (150 "
                              "requested), age min/avg/max 0.100s/0.100s/0.100s, from "
                              "PID 1 sh:\nObj ", 1), "a stacks view"),
                # Every object listed, the last one cut: before its blank
                # line, in its last frame's line, after its "Obj" line.
                (DUMP[:-1], "the dump is cut short: its last object is not whole"),
                (DUMP[:-9], "the dump is cut short: its last line is not whole"),
                (DUMP[:DUMP.rindex("----\n #01") + 5],
                 "the dump is cut short: its last object is not whole"),
                (DUMP + DUMP, "a second dump header"),
                (DUMP + "garbage\n", "not a line of a per-object dump: 'garbage'"),
                ("No snapshot yet for this login user: print takes one.\n" + DUMP,
                 "not a slabtrace dump (no 'Dumping outstanding allocs' line)")):
            tmp("st-report-test.txt", text)
            rc, out, err = report("--folded", self.path)
            self.assertEqual((rc, out), (1, ""), text)
            self.assertIn(why, err)


# DUMP as a module that judges its stacks writes it: stack 1 (other+...)
# a leak, stack 2 live.
DUMP_V = DUMP.replace("-------------------------\n",
                      "verdicts: 1 leak, 1 live, 0 kept, 0 unknown\n"
                      "stack 1: leak (error path): 10 of 80 not freed, allocated steadily over "
                      "20.0 s; 1.0 s-21.0 s old; 70 freed lived <1 ms median, <2 ms p99\n"
                      "stack 2: live: all 3 younger than the freed ones' p99; 500 freed lived "
                      "<4.0 s median, <4.0 s p99\n"
                      "-------------------------\n").replace(
    ", from PID", ", stack 2 (live), from PID").replace(
    ", from softirq", ", stack 1 (leak), from softirq")


class Verdicts(unittest.TestCase):
    def setUp(self):
        self.path = tmp("st-verdicts-test.txt", DUMP_V)

    def tearDown(self):
        os.unlink(self.path)

    def test_bad_verdict_counts_refused(self):
        # Digits only, bounded, as every number of the dump: a sign, a
        # count past what the module writes, or one past a long, refused.
        for bad in ("-1 leak", "+1 leak", " 1 leak", "99999999999999999999 leak",
                    "281474976710657 leak"):
            tmp("st-verdicts-test.txt", DUMP_V.replace("verdicts: 1 leak", "verdicts: " + bad))
            rc, out, err = report(self.path)
            self.assertEqual((rc, out), (1, ""), bad)
            self.assertIn("not a line of a per-object dump: 'verdicts: ", err)

    def test_leaks_first_with_their_counts(self):
        rc, out, err = report(self.path)
        self.assertEqual(rc, 0, err)
        self.assertIn("\nverdicts of its stacks: 1 leak, 1 live, 0 kept, 0 unknown\n", out)
        rows = [l.split() for l in out.splitlines() if re.match(r"^ +\d+ ", l)]
        self.assertEqual([(r[0], r[1], r[5], r[6]) for r in rows],
                         [("1", "1", "leak", "other"), ("2", "3", "live", "leak")])

    def test_only_leaks(self):
        rc, out, err = report("--only-leaks", "--json", self.path)
        c = json.loads(out)["caches"][0]
        self.assertEqual([(g["objects"], g["verdict"]) for g in c["stacks"]], [(1, "leak")], err)
        self.assertEqual(c["matched_objects"], 1)
        # The header's counts stay those of every stack.
        self.assertEqual(c["verdicts"], {"leak": 1, "live": 1, "kept": 0, "unknown": 0})

    def test_json_evidence(self):
        rc, out, err = report("--json", self.path)
        g = json.loads(out)["caches"][0]["stacks"]
        self.assertEqual([x["verdict"] for x in g], ["leak", "live"], err)
        self.assertTrue(g[0]["evidence"].startswith("leak (error path): 10 of 80 not freed"))
        self.assertTrue(g[1]["evidence"].startswith("live: all 3 younger"))
        # A dump of a module without verdicts: none, and the old order.
        rc, out, err = report("--json", "-", stdin=DUMP)
        c = json.loads(out)["caches"][0]
        self.assertIsNone(c["verdicts"])
        self.assertEqual([(x["objects"], x["verdict"], x["evidence"]) for x in c["stacks"]],
                         [(3, None, None), (1, None, None)])

    def test_only_leaks_in_every_view(self):
        for cmd in ("top", "leaks", "record", "report"):
            p = subprocess.run([slabtrace_bin(), cmd, "--help"], capture_output=True,
                               text=True)
            self.assertIn("--only-leaks", p.stdout, cmd)

    def test_folded_marks_the_leak(self):
        self.assertEqual(report("--folded", self.path)[1],
                         "other;[leak] 1\nsyscall:write;caller;leak [m] 3\n")

    def test_saved_print_of_a_word(self):
        text = ("Print of all: 2 caches, 1 with outstanding objects, most bytes first\n" +
                DUMP_V)
        rc, out, err = report("--json", "-", stdin=text)
        self.assertEqual(rc, 0, err)
        self.assertEqual(json.loads(out)["caches"][0]["stacks"][0]["verdict"], "leak")


def vm_file(name):
    """@name in every VM output directory given; all of them, or none."""
    required = os.environ.get("SLABTRACE_REQUIRE_VM_OUT") == "1"
    if not VM_OUT:
        if required:
            raise AssertionError("no VM output directory given")
        raise unittest.SkipTest("no VM output")
    paths = [os.path.join(d, name) for d in VM_OUT]
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        if required:
            raise AssertionError("missing: %s" % ", ".join(missing))
        raise unittest.SkipTest("missing: %s" % ", ".join(missing))
    return paths


class AgainstTheKernel(unittest.TestCase):
    def test_report_groups_are_the_kernels(self):
        for path in vm_file("objects.txt"):
            d = os.path.dirname(path)
            mine = report_json(path, "--bytes")["stacks"]
            with open(os.path.join(d, "stacks-file.txt")) as f:
                kernel = parse_stacks(f)
            self.assertGreaterEqual(len(kernel), 2, d)
            self.assertEqual(sorted(group_keys(g) for g in mine),
                             sorted(group_keys(g) for g in kernel), d)
            self.assertEqual([g["bytes"] for g in kernel],
                             sorted((g["bytes"] for g in kernel), reverse=True))
            # Leaks first, then most bytes.
            order = [(g["verdict"] != "leak", -g["bytes"]) for g in mine]
            self.assertEqual(order, sorted(order))

    def test_report_folded_is_the_kernels(self):
        for path in vm_file("objects.txt"):
            rc, out, err = report("--folded", path)
            self.assertEqual(rc, 0, err)
            with open(os.path.join(os.path.dirname(path), "objects.folded")) as f:
                kernel = f.read().splitlines()
            self.assertEqual(sorted(out.splitlines()), sorted(kernel))

    def test_kernel_folded_renders(self):
        for path in vm_file("stacks.folded") + vm_file("leaks.folded"):
            with open(path) as f:
                lines = f.read().splitlines()
            self.assertTrue(lines)
            svg = flamegraph.render(flamegraph.parse(lines), "t", "objects")
            frames = frames_of(svg)
            self.assertEqual(len(frames), len(prefixes(lines)) + 1)
            total = sum(int(l.rsplit(" ", 1)[1]) for l in lines)
            self.assertEqual(frames[0], ("all", total, flamegraph.WIDTH - 2 * flamegraph.MARGIN))


if __name__ == "__main__":
    result = unittest.main(argv=[sys.argv[0], "-v"], exit=False).result
    failed = len(result.failures) + len(result.errors)
    passed = result.testsRun - failed - len(result.skipped)
    nskip = len(result.skipped)
    print("tools: %d passed, %d failed%s" % (passed, failed,
                                            ", %d skipped" % nskip if nskip else ""))
    sys.exit(1 if failed else 0)
