#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of kmemtrace: babeltrace2 and kmemtrace-report on traces.

    scripts/tests/test_kmemtrace.py [VM_OUT_DIR...]
    scripts/tests/test_kmemtrace.py --check-in VM_OUT_DIR

On made-up traces (kmt_synth.py, the module's own metadata): the report's
rows, cross-CPU frees, unseen and double frees and its lost-events warning
are the ones the events imply; babeltrace2 reads both event header forms
and reports the same discarded events; the report decodes all 1.2 M
events of a big one (its speed is printed, not judged: a shared machine
makes any threshold flaky; kmemtrace.rst gives the measured rate).
On the traces checked in (scripts/tests/kmemtrace/, recorded once by the VM
test) and on those a VM run saved (VM_OUT_DIR/kmemtrace, from the guest
test kmemtrace.sh): babeltrace2 prints every event the module wrote, the
events of leaky's known allocations (N kmalloc(50) in leaky_alloc_buf(), N
widgets in leaky_alloc_widget(), all freed) have the counts and byte
totals it made, the report's rows say the same and agree with babeltrace2's
output row by row, a trace that lost events says so, and the widgets
leaky kept (kept.addrs, from its debugfs file kept) are at ptr + ptr_base.  --check-in
copies a VM run's small traces here, with kallsyms cut to what they use.
With SLABTRACE_REQUIRE_VM_OUT=1 a missing VM output fails rather than
skips.  The last line is "kmemtrace: N passed, N failed".
"""

import bisect
import json
import os
import re
import shutil
import subprocess
import sys

from checks import Checks
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import kmt_synth  # noqa: E402

DATA = os.path.join(HERE, "kmemtrace")
REPORT = os.path.join(TOP, "build", "tools", "kmemtrace-report")


_checks = Checks("kmemtrace")
check = _checks.check
check_eq = _checks.check_eq


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    return p.returncode, p.stdout, p.stderr


EVENT = re.compile(r'\] \(\+[?0-9.]+\) (kmem:\w+): \{ cpu_id = (\d+) \}, '
                   r'\{ call_site = (0x[0-9A-F]+), ptr = (0x[0-9A-F]+), '
                   r'(?:bytes_req = (\d+), bytes_alloc = (\d+), '
                   r'gfp_flags = 0x[0-9A-F]+, )?'
                   r'cache_id = \( (.*?) : container = (\d+) \)')


def babeltrace(tdir):
    """babeltrace2's events of @tdir, and its discarded-events total."""
    rc, out, err = run(["babeltrace2", tdir])
    events, discarded, other = [], 0, []
    for line in (out + err).splitlines():
        m = EVENT.search(line)
        if m:
            name, cpu, cs, ptr, req, alloc, label, cid = m.groups()
            events.append({"name": name, "cpu": int(cpu), "cs": int(cs, 16),
                           "ptr": int(ptr, 16), "req": int(req or 0),
                           "alloc": int(alloc or 0), "cache": label.strip('"'),
                           "id": int(cid)})
            continue
        m = re.search(r"Tracer discarded (\d+) events", line)
        if m:
            discarded += int(m.group(1))
            continue
        other.append(line)
    return rc, events, discarded, other


class Syms:
    """Text symbols of a trace's kallsyms, and its call_site_base."""

    def __init__(self, tdir):
        self.addr, self.name = [], []
        rows = []
        with open(os.path.join(tdir, "kallsyms")) as f:
            for line in f:
                p = line.split()
                if len(p) >= 3 and p[1] in "tT" and int(p[0], 16):
                    rows.append((int(p[0], 16), p[2] + (" " + p[3] if len(p) > 3 else "")))
        rows.sort()
        self.addr = [r[0] for r in rows]
        self.name = [r[1] for r in rows]
        meta = open(os.path.join(tdir, "ctf", "metadata")).read()
        self.base = int(re.search(r'call_site_base = "(0x[0-9a-f]+)"', meta).group(1), 16)

    def func(self, cs):
        """"name [module]" of the function holding call_site field @cs."""
        i = bisect.bisect_right(self.addr, self.base + cs) - 1
        return self.name[i] if i >= 0 else "?"

    def site(self, cs):
        """The report's name of a call site: "name+0xoff [module]"."""
        a = self.base + cs
        i = bisect.bisect_right(self.addr, a) - 1
        name = self.name[i].split(" ")
        return "%s+0x%x%s" % (name[0], a - self.addr[i],
                              " " + name[1] if len(name) > 1 else "")


def slab_sizes(tdir):
    """{cache id: slab size} of DIR/caches: "ID OBJECT_SIZE SLAB_SIZE NAME"
    (ABI 2); an ABI 1 listing, "ID OBJECT_SIZE NAME", has none."""
    sizes = {}
    for line in open(os.path.join(tdir, "caches")):
        p = line.split()
        if len(p) == 4 and p[2].isdigit() and int(p[2]):
            sizes[int(p[0])] = int(p[2])
    return sizes


def bytes_allocated(e, slab):
    """An allocation event's bytes allocated as the report counts them: a
    kmem_cache_alloc's, its cache's slab size (@slab: slab_sizes()), if
    the listing has one."""
    if e["name"] == "kmem:kmem_cache_alloc":
        return slab.get(e["id"], e["alloc"])
    return e["alloc"]


def report(tdir, *opts):
    rc, out, err = run([REPORT] + list(opts) + [tdir])
    rows = {}
    for line in out.splitlines():
        m = re.match(r"(\S+(?: \[\w+\])?) +(\d+) +(\d+) +(\d+) +([0-9.]+)% +(\d+)$", line)
        if m:
            rows[m.group(1)] = tuple(int(x) if i != 3 else x
                                     for i, x in enumerate(m.groups()[1:]))
    return rc, out, err, rows


def synthetic():
    """Made-up events with known outcomes."""
    meta = os.path.join(DATA, "widget", "ctf", "metadata")
    with tempfile.TemporaryDirectory() as t:
        # Site A: 10 kmalloc(50) on cpu0, 6 freed there, 4 on cpu1, 2 of
        # those freed again; site B: 5 widgets on cpu1, never freed; 3
        # frees of pointers never allocated; a gap of 2 s (extended
        # headers); 7 events discarded on cpu1.  fake_widget's objects are
        # 200 bytes in slots of 256 (DIR/caches): site B's bytes allocated
        # are 256 each, 21.88 % fragmentation, as perf kmem stat says.
        a, b = 0x81000010, 0xC0001008
        evs, ns = [], 1000
        for i in range(10):
            evs.append((ns, 0, "kmem:kmalloc", a, 0x1000 + 64 * i, 50, 64, 2))
            ns += 100
        for i in range(5):
            evs.append((ns, 1, "kmem:kmem_cache_alloc", b, 0x9000 + 256 * i, 200, 200, 3))
            ns += 100
        ns += 2 * 10**9
        for i in range(10):
            evs.append((ns, 0 if i < 6 else 1, "kmem:kfree", 0x81200000, 0x1000 + 64 * i, 2))
            ns += 100
        for i in (7, 8):
            evs.append((ns, 1, "kmem:kfree", 0x81200000, 0x1000 + 64 * i, 2))
            ns += 100
        for i in range(3):
            evs.append((ns, 0, "kmem:kfree", 0x81200000, 0x50000 + 8 * i, 0))
            ns += 100
        kmt_synth.write(t, meta, evs, per_packet=4, discarded={1: 7})
        with open(os.path.join(t, "kallsyms"), "w") as f:
            f.write("ffffffff81000000 T fake_alloc_a\nffffffff81100000 T other\n"
                    "ffffffff811fff00 T fake_free\nffffffffc0001000 t fake_alloc_b\t[fakemod]\n"
                    "ffffffffc0002000 t other_b\t[fakemod]\n")
        with open(os.path.join(t, "caches"), "w") as f:
            f.write("0 0 0 -\n1 0 0 (pages)\n2 64 64 kmalloc-64\n3 200 256 fake_widget\n")
        rc, bt, disc, other = babeltrace(t)
        check_eq("synthetic: babeltrace2 exits 0", 0, rc)
        check_eq("synthetic: babeltrace2 prints every event", len(evs), len(bt))
        check_eq("synthetic: ... with their times (extended headers too)",
                 [e[0] for e in evs],
                 sorted(e[0] for e in evs))  # the writer's order
        check_eq("synthetic: babeltrace2 reports 7 discarded events", 7, disc)
        check_eq("synthetic: babeltrace2 decodes bytes_req", 500 + 1000,
                 sum(e["req"] for e in bt))
        rc, out, err, rows = report(t, "--top", "0")
        check_eq("synthetic: report exits 0", 0, rc)
        check_eq("synthetic: site A row", (10, 500, 640, "21.88", 4),
                 rows.get("fake_alloc_a+0x10"))
        check_eq("synthetic: site B row (module): the slab size allocated",
                 (5, 1000, 1280, "21.88", 0), rows.get("fake_alloc_b+0x8 [fakemod]"))
        check("synthetic: the warning line", re.search(
            r"^WARNING: the trace is incomplete: 7 events lost", out, re.M), out)
        check("synthetic: the totals",
              "Total: 30 events, 15 allocations, 15 frees, 2 call sites\n" in out, out)
        check("synthetic: 3 frees of unseen pointers",
              "Frees of pointers never seen allocated: 3\n" in out, out)
        check("synthetic: 2 double frees", "Double frees: 2\n" in out, out)
        check("synthetic: cross-CPU frees 4", "Cross-CPU frees: 4\n" in out, out)
        check("synthetic: the double frees listed with their call site",
              len(re.findall(r"^  ptr\+0x(?:0000000011c0|000000001200)  cpu 1 +fake_free\+0x100$",
                             out, re.M)) == 2, out)
        check("synthetic: per-cache totals",
              re.search(r"^fake_widget +5 +0 +1000 +1280 +21.88%$", out, re.M), out)
        # The same trace with an ABI 1 listing (no slab size): the events'.
        with open(os.path.join(t, "caches"), "w") as f:
            f.write("0 0 -\n1 0 (pages)\n2 64 kmalloc-64\n3 200 fake_widget\n")
        rc, out, err, rows = report(t, "--top", "0")
        check_eq("synthetic: an ABI 1 listing: site B row as the events say",
                 (5, 1000, 1000, "0.00", 0), rows.get("fake_alloc_b+0x8 [fakemod]"))
        # A name the module escaped to more than 255 bytes (a cache's
        # names of odd bytes, each \xNN): read whole, not cut.
        odd = "\\x01" * 90 + ",fake_widget"
        with open(os.path.join(t, "caches"), "w") as f:
            f.write("0 0 0 -\n1 0 0 (pages)\n2 64 64 kmalloc-64\n3 200 256 %s\n" % odd)
        rc, out, err = run([REPORT, "--json", "--top", "0", t])
        check_eq("synthetic: a long escaped cache name, whole",
                 [odd, "kmalloc-64", "-"], [c["cache"] for c in json.loads(out)["caches"]]
                 if rc == 0 else err)
        # A trace directory may be anyone's: an escape sequence in a cache
        # name or a symbol reaches the terminal as "?", never raw.
        with open(os.path.join(t, "caches"), "w") as f:
            f.write("0 0 0 -\n1 0 0 (pages)\n2 64 64 kmalloc-64\n3 200 256 fake\x1b[2Jwidget\n")
        with open(os.path.join(t, "kallsyms")) as f:
            syms = f.read()
        with open(os.path.join(t, "kallsyms"), "w") as f:
            f.write(syms.replace("fake_alloc_a", "fake\x1b[2Jalloc_a"))
        rc, out, err = run([REPORT, "--top", "0", t])
        check("synthetic: a cache name and a symbol with ESC, shown as ?",
              rc == 0 and "fake?[2Jwidget" in out and "fake?[2Jalloc_a+0x10" in out, out)
        check("synthetic: ... and never raw", "\x1b" not in out + err, out)
        # A name of 400 bytes (KSYM_NAME_LEN is 512 since 6.1), whole: it
        # was cut at 255, the rest taken for a module.
        long_name = "fake_alloc_a_" + "r" * 387
        with open(os.path.join(t, "kallsyms"), "w") as f:
            f.write(syms.replace("fake_alloc_a", long_name))
        rc, out, err = run([REPORT, "--json", "--top", "0", t])
        check("synthetic: a symbol of 400 bytes, whole",
              rc == 0 and long_name + "+0x10" in
              [c["call_site"] for c in json.loads(out)["call_sites"]], out + err)
        with open(os.path.join(t, "kallsyms"), "w") as f:
            f.write(syms)
        rc, out, err, rows = report(t, "--sort", "hits", "--top", "1")
        check_eq("synthetic: --sort hits --top 1", ["fake_alloc_a+0x10"], list(rows))
        # Each key's order, from the sites' figures: A has 640 bytes
        # allocated, 10 hits, 500 requested, 4 cross-CPU frees; B 1280, 5,
        # 1000, 0; both 21.88 % fragmentation (a tie: by address, A's
        # first); site is by address.
        sa, sb = "fake_alloc_a+0x10", "fake_alloc_b+0x8 [fakemod]"
        figures = {sa: (640, 10, 500, 21.88, 4, a), sb: (1280, 5, 1000, 21.88, 0, b)}
        for i, key in enumerate(("bytes", "hits", "req", "frag", "cross", "site")):
            want = sorted(figures, key=lambda s: (-figures[s][i] if i < 5 else 0,
                                                  figures[s][5]))
            rc, out, err, rows = report(t, "--sort", key, "--top", "0")
            check_eq("synthetic: --sort %s orders the call sites %s" % (key, want),
                     want, list(rows))
        rc, out, err, rows = report(t, "--top", "0")
        check_eq("synthetic: bytes is the default order", [sb, sa], list(rows))
        rc, out, err = run([REPORT, "--list", "1", t])
        check_eq("synthetic: --list 1 lists one double free",
                 1, len(re.findall(r"^  ptr\+0x\w+  cpu 1 +fake_free\+0x100$", out, re.M)))
        check("synthetic: ... under its heading",
              "\nDouble frees (the first 1):\n" in out, out)
        rc, out, err = run([REPORT, "--list", "1001", t])
        check_eq("synthetic: --list 1001, more than the report keeps, fails", 2, rc)
        check("synthetic: ... saying so", "--list takes a number up to 1000" in err, err)
        rc, out, err, rows = report(t, "--sort", "bogus")
        check_eq("synthetic: a bad --sort fails", 2, rc)
        unreadable_checks(t)
        # A trace that is not kmemtrace's: its metadata makes the cache id
        # 32 bits, and a free holds 70000, past the report's table of
        # 65536 caches; refused with exit 1, never used as an index.
        wide = os.path.join(t, "wide")
        with open(meta) as f:
            text = f.read()
        check("synthetic: the metadata's cache_t is 16 bits",
              "typealias enum : uint16_t {" in text)
        with open(os.path.join(t, "wide-metadata"), "w") as f:
            f.write(text.replace("typealias enum : uint16_t {",
                                 "typealias enum : uint32_t {"))
        kmt_synth.write(wide, os.path.join(t, "wide-metadata"),
                        [(1000, 0, "kmem:kfree", 0x81200000, 0x1000, 70000)],
                        cache_fmt="<I")
        rc, out, err = run([REPORT, wide])
        check_eq("synthetic: a cache id of 70000 is refused", 1, rc)
        check("synthetic: ... saying why", "not kmemtrace's fields" in err, err)
        # Or a free event class with no fields: no payload to read.
        free_ev = re.search(r'event \{\n\tname = "kmem:kfree";.*?\n\};\n', text, re.S)
        check("synthetic: the metadata has kmem:kfree", free_ev)
        if free_ev:
            bare = text.replace(free_ev.group(0), free_ev.group(0).replace(
                re.search(r"\tfields := struct \{.*?\};\n", free_ev.group(0), re.S).group(0),
                ""))
            with open(os.path.join(t, "bare-metadata"), "w") as f:
                f.write(bare)
            kmt_synth.write(os.path.join(t, "bare"), os.path.join(t, "bare-metadata"),
                            [(1000, 0, "kmem:kfree", 0, 0, 0)], cache_fmt=None)
            rc, out, err = run([REPORT, os.path.join(t, "bare")])
            check_eq("synthetic: a free of no fields is refused", 1, rc)
            check("synthetic: ... saying why", "not kmemtrace's fields" in err, err)
        # A packet context without cpu_id (the member renamed), or of the
        # wrong type: refused with exit 1, not read (it was a crash).
        check("synthetic: the metadata's packet context has a uint32_t cpu_id",
              "\t\tuint32_t cpu_id;\n" in text)
        for i, (tag, field) in enumerate((
                ("without cpu_id", "\t\tuint32_t cpu_no;\n"),
                ("with a signed cpu_id",
                 "\t\tinteger { size = 32; align = 8; signed = true; } cpu_id;\n"))):
            d = os.path.join(t, "ctx%d" % i)
            with open(d + "-metadata", "w") as f:
                f.write(text.replace("\t\tuint32_t cpu_id;\n", field))
            kmt_synth.write(d, d + "-metadata",
                            [(1000, 0, "kmem:kmalloc", 0x81000010, 0x1000, 50, 64, 2)])
            rc, out, err = run([REPORT, d])
            check_eq("synthetic: a packet context %s is refused" % tag, 1, rc)
            check("synthetic: ... saying why", "kmemtrace's context (its cpu_id)" in err, err)

        # Speed: 1.2 M events.
        evs = []
        ns = 1000
        for i in range(600000):
            p = 0x100000 + (i % 50000) * 64
            evs.append((ns, i & 1, "kmem:kmalloc", 0x81000010 + (i % 300) * 16, p, 50, 64, 2))
            evs.append((ns + 10, (i & 1) ^ (i % 3 == 0), "kmem:kfree", 0x81200000, p, 2))
            ns += 20
        big = os.path.join(t, "big")
        kmt_synth.write(big, meta, evs, per_packet=4000)
        shutil.copy(os.path.join(t, "kallsyms"), big)
        rc, out, err, rows = report(big)
        m = re.search(r"(\d+) events decoded in [0-9.]+ s \((\d+) events/s\)", err)
        print("kmemtrace-report: %s" % (m.group(0) if m else err))
        check_eq("big: all 1.2 M events decoded", "1200000", m.group(1) if m else err)
        check("big: cross-CPU frees 200000", "Cross-CPU frees: 200000\n" in out)


def unreadable_checks(t):
    """A trace the user may not read (its kallsyms and caches, or DIR
    itself): said as such, not as "no CTF metadata" or not at all.  Root
    runs the report as nobody (setpriv), others meet a chmod 000."""
    user = []
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            print("SKIP: kmemtrace: unreadable trace files: no setpriv")
            return
        user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    mode = os.stat(t).st_mode & 0o7777
    os.chmod(t, 0o755)
    try:
        # The user must reach the trace and the report in the first place.
        if run(user + ["test", "-r", os.path.join(t, "ctf", "metadata"), "-a",
                       "-x", REPORT])[0]:
            print("SKIP: kmemtrace: unreadable trace files: %s out of the user's reach" % t)
            return
        for name in ("kallsyms", "caches"):
            os.chmod(os.path.join(t, name), 0)
        rc, out, err = run(user + [REPORT, "--top", "0", t])
        check_eq("unreadable: kallsyms and caches: the report still exits 0", 0, rc)
        for name, lost in (("kallsyms", "call sites shown as addresses"),
                           ("caches", "the caches unnamed")):
            check_eq("unreadable: %s: said once, and what it costs" % name, 1,
                     err.count("kmemtrace-report: %s/%s: Permission denied: %s\n"
                               % (t, name, lost)))
        for name in ("kallsyms", "caches"):
            os.chmod(os.path.join(t, name), 0o644)
        rc, out, err = run(user + [REPORT, os.path.join(t, "no-such-dir")])
        check_eq("unreadable: a DIR without metadata is no CTF metadata",
                 (1, "kmemtrace-report: %s/no-such-dir: no CTF metadata\n" % t), (rc, err))
        os.chmod(os.path.join(t, "ctf", "metadata"), 0)
        rc, out, err = run(user + [REPORT, t])
        check_eq("unreadable: its metadata: said as such, exit 1",
                 (1, "kmemtrace-report: %s/ctf/metadata: Permission denied\n" % t), (rc, err))
        os.chmod(os.path.join(t, "ctf", "metadata"), 0o644)
        os.chmod(t, 0)
        rc, out, err = run(user + [REPORT, t])
        check_eq("unreadable: DIR itself: said as such, exit 1",
                 (1, "kmemtrace-report: %s/ctf/metadata: Permission denied\n" % t), (rc, err))
    finally:
        os.chmod(t, mode)
        for name in ("kallsyms", "caches"):
            os.chmod(os.path.join(t, name), 0o644)
        os.chmod(os.path.join(t, "ctf", "metadata"), 0o644)


def leaky_checks(tag, tdir, n, size, written):
    """A recording of every cache during leaky's "churn N"."""
    rc, bt, disc, other = babeltrace(tdir)
    check_eq(tag + ": babeltrace2 exits 0", 0, rc)
    check_eq(tag + ": babeltrace2 prints nothing but events", [], other[:3])
    if written is not None:
        check_eq(tag + ": babeltrace2 prints every event written", written, len(bt))
    syms = Syms(tdir)
    buf = [e for e in bt if e["name"] == "kmem:kmalloc"
           and syms.func(e["cs"]) == "leaky_alloc_buf [leaky]"]
    wid = [e for e in bt if e["name"] == "kmem:kmem_cache_alloc"
           and syms.func(e["cs"]) == "leaky_alloc_widget [leaky]"]
    check_eq(tag + ": kmalloc events from leaky_alloc_buf", n, len(buf))
    check_eq(tag + ": their bytes_req total", 50 * n, sum(e["req"] for e in buf))
    check_eq(tag + ": their bytes_alloc total", 64 * n, sum(e["alloc"] for e in buf))
    check_eq(tag + ": all from kmalloc-64", {"kmalloc-64"},
             {e["cache"].split(",")[0] for e in buf})
    check_eq(tag + ": widget events from leaky_alloc_widget", n, len(wid))
    check_eq(tag + ": their bytes total", n * size, sum(e["alloc"] for e in wid))
    slab = slab_sizes(tdir)
    wslab = slab.get(wid[0]["id"], size) if wid else size
    check_eq(tag + ": all from leaky_widget", {"leaky_widget"}, {e["cache"] for e in wid})
    freed = {e["ptr"] for e in buf}
    frees = [e for e in bt if e["name"] == "kmem:kfree" and e["ptr"] in freed
             and syms.func(e["cs"]).endswith(" [leaky]")]
    check_eq(tag + ": each buffer kfree()d once, by leaky", n, len(frees))
    check_eq(tag + ": the kfree events name the buffers' cache", {"kmalloc-64"},
             {e["cache"].split(",")[0] for e in frees})
    wfreed = {e["ptr"] for e in wid}
    wfrees = [e for e in bt if e["name"] == "kmem:kmem_cache_free" and e["ptr"] in wfreed]
    check_eq(tag + ": each widget kmem_cache_free()d once", n, len(wfrees))
    rc, out, err, rows = report(tdir, "--top", "0", "--sort", "site")
    check_eq(tag + ": report exits 0", 0, rc)
    site = syms.site(buf[0]["cs"]) if buf else "?"
    check_eq(tag + ": report row of leaky_alloc_buf", (n, 50 * n, 64 * n, "21.88"),
             rows.get(site, ())[:4])
    site = syms.site(wid[0]["cs"]) if wid else "?"
    check_eq(tag + ": report row of leaky_alloc_widget", (n, n * size, n * wslab),
             rows.get(site, ())[:3])
    # Every row against babeltrace2's own decoding, a kmem_cache_alloc
    # event's bytes allocated its cache's slab size (DIR/caches).
    want = {}
    for e in bt:
        if e["name"] in ("kmem:kmalloc", "kmem:kmem_cache_alloc"):
            r = want.setdefault(syms.site(e["cs"]), [0, 0, 0])
            r[0] += 1
            r[1] += e["req"]
            r[2] += bytes_allocated(e, slab)
    got = {k: list(v[:3]) for k, v in rows.items()}
    check_eq(tag + ": every report row = babeltrace2's events", want, got)
    m = re.search(r"^Total: (\d+) events", out, re.M)
    check_eq(tag + ": report total = babeltrace2's", len(bt), int(m.group(1)) if m else -1)
    check(tag + ": no warning: nothing lost", "WARNING" not in out, out[:200])


def trace_checks(base, tag):
    """The traces of one kmemtrace.sh run, in @base."""
    n, size = map(int, open(os.path.join(base, "expected")).read().split())
    if os.path.isdir(os.path.join(base, "all")):
        written = int(open(os.path.join(base, "all.events")).readline())
        leaky_checks(tag + " all", os.path.join(base, "all"), n, size, written)
    w = os.path.join(base, "widget")
    rc, bt, disc, other = babeltrace(w)
    check_eq(tag + " widget: babeltrace2 prints the 2N events", 2 * n, len(bt))
    check_eq(tag + " widget: only leaky_widget", {"leaky_widget"}, {e["cache"] for e in bt})
    rc, out, err, rows = report(w)
    check(tag + " widget: report totals",
          "Total: %d events, %d allocations, %d frees, 1 call sites\n" % (2 * n, n, n) in out, out)
    check(tag + " widget: no unseen or double frees",
          "never seen allocated: 0\n" in out and "Double frees: 0\n" in out, out)
    wslab = slab_sizes(w).get(bt[0]["id"], size) if bt else size
    check(tag + " widget: the row", any(k.startswith("leaky_alloc_widget+") and
                                        v[:3] == (n, n * size, n * wslab)
                                        for k, v in rows.items()), rows)
    t = os.path.join(base, "tiny")
    rec = open(os.path.join(base, "tiny.record.txt")).read()
    m = re.search(r"(\d+) events written, (\d+) lost", rec)
    written, lost = int(m.group(1)), int(m.group(2))
    rc, bt, disc, other = babeltrace(t)
    check(tag + " tiny: events were lost (%d)" % lost, lost > 0)
    check_eq(tag + " tiny: babeltrace2 prints the events written", written, len(bt))
    check_eq(tag + " tiny: babeltrace2 reports the events lost", lost, disc)
    rc, out, err, rows = report(t)
    check(tag + " tiny: the report says the trace is incomplete",
          "WARNING: the trace is incomplete: %d events lost" % lost in out, out[:300])


def kept_checks(base, tag):
    """The widgets leaky kept (kept.addrs): ptr + ptr_base gives them back."""
    meta = open(os.path.join(base, "kept", "ctf", "metadata")).read()
    m = re.search(r'ptr_base = "0x([0-9a-f]+)";', meta)
    ptr_base = int(m.group(1), 16) if m else 0
    rc, bt, disc, other = babeltrace(os.path.join(base, "kept"))
    got = sorted("%016x" % ((ptr_base + e["ptr"]) % (1 << 64)) for e in bt
                 if e["name"] == "kmem:kmem_cache_alloc")
    want = sorted(open(os.path.join(base, "kept.addrs")).read().split())
    check_eq(tag + " kept: 5 widgets", 5, len(want))
    check_eq(tag + " kept: ptr + ptr_base = the widgets' addresses (base 0x%x)" % ptr_base,
             want, got)


def odd_checks(base, tag):
    """A VM run's trace of a cache named with a quote (oddcache.ko)."""
    rc, bt, disc, other = babeltrace(os.path.join(base, "odd"))
    check(tag + " odd: babeltrace2 reads the metadata of a cache named 'oddcache \"q\\ name'",
          rc == 0 and not [x for x in other if "ERROR" in x], "\n".join(other[:5]))
    # The label is the caches file's name (oddcache\x20"q\\\x20name), which
    # babeltrace2 prints as a C string.
    check_eq(tag + " odd: its 4 allocations, under its name", 4,
             len([e for e in bt if e["cache"] == r'oddcache\\x20\"q\\\\\\x20name' and
                  e["name"] == "kmem:kmem_cache_alloc"]))


def check_in(vmout):
    """Copy a VM run's small traces to scripts/tests/kmemtrace/."""
    src = os.path.join(vmout, "kmemtrace")
    for name in ("widget", "tiny"):
        d = os.path.join(DATA, name)
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(os.path.join(src, name), d)
        syms = Syms(d)
        rc, bt, disc, other = babeltrace(d)
        keep = set()
        for e in bt:
            i = bisect.bisect_right(syms.addr, syms.base + e["cs"]) - 1
            keep.update((i, i + 1))
        with open(os.path.join(d, "kallsyms"), "w") as f:
            for i in sorted(keep):
                if 0 <= i < len(syms.addr):
                    n = syms.name[i].split(" ")
                    f.write("%016x t %s%s\n" % (syms.addr[i], n[0],
                                                "\t" + n[1] if len(n) > 1 else ""))
    for f in ("expected", "tiny.record.txt", "widget.record.txt"):
        shutil.copy(os.path.join(src, f), DATA)


def main():
    if sys.argv[1:2] == ["--check-in"]:
        check_in(sys.argv[2])
        return 0
    if subprocess.run(["make", "-s", "-C", TOP, "tools", "WERROR=1"]).returncode:
        check("make tools", False)
    synthetic()
    trace_checks(DATA, "checked-in")
    require = os.environ.get("SLABTRACE_REQUIRE_VM_OUT") == "1"
    for d in sys.argv[1:]:
        base = os.path.join(d, "kmemtrace")
        tag = os.path.basename(os.path.dirname(os.path.abspath(d)))
        if os.path.isdir(base):
            trace_checks(base, tag)
            kept_checks(base, tag)
            # kmemtrace.sh records oddcache's load on x86 guests only.
            if not tag.endswith("-arm64"):
                odd_checks(base, tag)
        elif require:
            check("VM output in " + base, False)
    return _checks.summary()


if __name__ == "__main__":
    sys.exit(main())
