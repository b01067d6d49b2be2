#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The one parser of the module's dump (scripts/tools/lib/dump.c) on
input that is not the module's, with AddressSanitizer and
UndefinedBehaviorSanitizer.

    scripts/tests/test_dump.py [FUZZ_RUNS]

0. The bounds of <uapi/slabtrace/dump.h> are the module's (traced.h, stacks.h).
1. slabtrace, built with clang -fsanitize=address,undefined (leaks
   included, every report fatal): `slabtrace report` reads each file of
   scripts/tests/dump/corpus/ and the dumps of scripts/tests/cli/ (what
   VM runs and the module wrote), and
   refuses each made-up bad input below, with exit status 1 and a message
   "FILE:LINE: why" naming the line; no sanitizer report.
2. The plain build (make tools): a 64 MiB frame line is refused with
   little more memory than the input itself (the parser copies none of it).
3. The libFuzzer harness (scripts/tests/dump/fuzz.c): every corpus file,
   then FUZZ_RUNS (20000) inputs made from them with seed 1, so that a
   run is the same every time; an input that crashes it is left in
   build/dump-fuzz/ (fuzz FILE runs it again).

The last line is "dump: N passed, N failed".
"""

import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from checks import Checks  # noqa: E402

CORPUS = os.path.join(HERE, "dump", "corpus")
# And the dumps the slabtrace command's tests read.
SEEDS = sorted([os.path.join(CORPUS, n) for n in os.listdir(CORPUS)] +
               [os.path.join(HERE, "cli", n) for n in ("dump-6.12.txt", "print-all-6.12.txt")])
# Where libFuzzer leaves an input that crashed (build/dump-fuzz/crash-...).
ARTIFACTS = os.path.join(TOP, "build", "dump-fuzz")
LIB = ["scripts/tools/lib/dump.c", "scripts/tools/lib/escape.c",
       "scripts/tools/lib/stfiles.c"]
SAN = ["-g", "-O1", "-fno-omit-frame-pointer", "-fsanitize=address,undefined",
       "-fno-sanitize-recover=all"]
ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=99",
           UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=98")

DUMP = """Dumping outstanding allocs from kmalloc-64
traced 3.000s, 2 outstanding (128 bytes), 0 records dropped
-------------------------
Obj 0000000000000001, 64 bytes (50 requested), age 0.100s, cpu 0, node 0, gfp GFP_KERNEL, from PID 5 sh in syscall write:
----
 #01 [<00000000000000a1>] in leak+0x1b/0x20 [m]
 #02 [<00000000000000a2>] in keep+0x2c/0x90 [m]

Obj 0000000000000002, 64 bytes (40 requested), age 0.600s, cpu 1, node 0, gfp GFP_KERNEL, from PID 6 sh in syscall write:
----
 #01 [<00000000000000a1>] in leak+0x1b/0x20 [m]
 #02 [<00000000000000a2>] in keep+0x2c/0x90 [m]
"""
OBJ2 = "Obj 0000000000000002, 64 bytes (40 requested), age 0.600s"
FRAME2 = " #02 [<00000000000000a2>] in keep+0x2c/0x90 [m]\n\nObj 0000000000000002"
SAMPLED = "-------------------------\n"
EST = "estimated 20 outstanding (1280 bytes); the counts below are of records\n"

# (what, the input, its line, why): each is refused.
BAD = [
    ("an age beyond a u32 of ms, 99999999999999999999.999 s",
     DUMP.replace("age 0.600s", "age 99999999999999999999.999s"), 9,
     "cannot read its age"),
    ("an age of 4294967.296 s, 1 ms beyond a u32",
     DUMP.replace("age 0.600s", "age 4294967.296s"), 9, "cannot read its age"),
    ("a header's bytes of 2^64 - 1",
     DUMP.replace("(128 bytes)", "(18446744073709551615 bytes)"), 2,
     "cannot read 'traced 3.000s, 2 outstanding (18446744073709551615"),
    ("a negative count", DUMP.replace("2 outstanding", "-2 outstanding"), 2,
     "cannot read 'traced 3.000s, -2 outstanding"),
    ("a print of 4294967295 caches",
     "Print of all: 4294967295 caches, 1 with outstanding objects, most bytes first\n" + DUMP,
     1, "cannot read 'Print of all: 4294967295 caches"),
    ("more caches with objects than caches",
     "Print of all: 1 cache, 3 with outstanding objects, most bytes first\n" + DUMP,
     1, "cannot read 'Print of all: 1 cache, 3 with"),
    ("sampled 1 per 1 bytes (64 at least)",
     DUMP.replace(SAMPLED, "sampled 1 per 1 bytes: " + EST + SAMPLED), 3,
     "not a sampling the module does: 'sampled 1 per 1 bytes"),
    ("sampled 1 in 4294967297 (1000000 at most)",
     DUMP.replace(SAMPLED, "sampled 1 in 4294967297: " + EST + SAMPLED), 3,
     "not a sampling the module does: 'sampled 1 in 4294967297"),
    ("sampled 1 in 1", DUMP.replace(SAMPLED, "sampled 1 in 1: " + EST + SAMPLED), 3,
     "not a sampling the module does"),
    ("a second sampling line",
     DUMP.replace(SAMPLED, "sampled 1 in 10: " + EST + "sampled 1 in 20: " + EST + SAMPLED),
     4, "not a sampling the module does: 'sampled 1 in 20"),
    ("an object of 2^64 bytes",
     DUMP.replace("64 bytes (40", "18446744073709551616 bytes (40"), 9,
     "cannot read its bytes"),
    ("CPU 1000000", DUMP.replace("cpu 1,", "cpu 1000000,"), 9, "cannot read its CPU"),
    ("node 4096", DUMP.replace("cpu 1, node 0", "cpu 1, node 4096"), 9,
     "cannot read its node"),
    ("pid 99999999", DUMP.replace("PID 6 sh", "PID 99999999 sh"), 9,
     "cannot read its context"),
    ("a context the module never writes", DUMP.replace("PID 6 sh", "nobody"), 9,
     "cannot read its context"),
    ("an Obj line without its ':'",
     DUMP.replace("PID 6 sh in syscall write:", "PID 6 sh in syscall write"), 9,
     "cannot read its context"),
    ("frame #03 after #01", DUMP.replace(" #02 [", " #03 [", 1), 7,
     "not frame #02 of the object"),
    ("a 33rd frame",
     DUMP.replace(FRAME2, FRAME2.split("\n")[0] + "\n" +
                  "".join(" #%02d [<a%d>] in f%d+0x1/0x2\n" % (i, i, i) for i in range(3, 34)) +
                  "\nObj 0000000000000002"), 38, "not frame #33 of the object"),
    # Leaks on refusal: the first object's frames are read when the
    # second object's line is refused.
    ("a bad object after one with frames",
     DUMP.replace(OBJ2, "Obj 0000000000000002, 64 bytes (40 requested), age x"), 9,
     "cannot read its age"),
    ("a line of 8 KiB", DUMP.replace(" #02 [<00000000000000a2>] in keep",
                                     " #02 [<00000000000000a2>] in " + "k" * 8192, 1), 7,
     "%d bytes, longer than any line of a dump" % (29 + 8192 + 14)),
    ("a saved file with a line a dump has not", DUMP + "garbage\n", 13,
     "not a line of a per-object dump: 'garbage'"),
]


# The bounds the parser takes from <uapi/slabtrace/dump.h>, and the
# module's own: the same numbers (a drift would refuse real dumps, or
# accept what the module cannot write).
BOUNDS = [("SLABTRACE_DUMP_FRAMES_MAX", "module/slab/stacks.h", "LEAK_STACK_DEPTH"),
          ("SLABTRACE_SAMPLE_EVERY_MAX", "module/slab/traced.h", "LEAK_SAMPLE_MAX"),
          ("SLABTRACE_SAMPLE_BYTES_MIN", "module/slab/traced.h", "LEAK_SAMPLE_BYTES_MIN"),
          ("SLABTRACE_SAMPLE_BYTES_MAX", "module/slab/traced.h", "LEAK_SAMPLE_BYTES_MAX")]


def define(path, name):
    """The value of #define @name in @path, as written."""
    with open(os.path.join(TOP, path)) as f:
        m = re.search(r"^#define\s+%s\s+(\S+)" % name, f.read(), re.M)
    return m.group(1) if m else None


def version():
    """dkms.conf's PACKAGE_VERSION, as scripts/tools/tools.mk passes it."""
    with open(os.path.join(TOP, "dkms.conf")) as f:
        return re.search(r'^PACKAGE_VERSION="(.*)"$', f.read(), re.M).group(1)


def build(cc, out, srcs, flags):
    cmd = [cc] + flags + ['-DSLABTRACE_VERSION="%s"' % version(), "-o", out] + srcs + ["-lm"]
    r = subprocess.run(cmd, cwd=TOP, capture_output=True, text=True)
    return r.returncode == 0, r.stderr[-2000:]


def maxrss_kib(cmd):
    """Exit status and the peak memory (KiB) of @cmd, alone in a child."""
    probe = ("import resource, subprocess, sys\n"
             "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,"
             " stderr=subprocess.DEVNULL).returncode\n"
             "print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    out = subprocess.run([sys.executable, "-c", probe] + cmd, capture_output=True,
                         text=True).stdout.split()
    return int(out[0]), int(out[1])


def main():
    c = Checks("dump")
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    for name, path, theirs in BOUNDS:
        mine = define("include/uapi/slabtrace/dump.h", name)
        c.check_eq("%s is the module's %s" % (name, theirs), mine, define(path, theirs))
    tmp = tempfile.mkdtemp(prefix="slabtrace-dump.")
    try:
        # 1. The slabtrace command with the sanitizers.
        st = os.path.join(tmp, "slabtrace")
        srcs = sorted("scripts/tools/slabtrace/" + f
                      for f in os.listdir(os.path.join(TOP, "scripts/tools/slabtrace"))
                      if f.endswith(".c")) + LIB + ["scripts/tools/lib/pprof.c"]
        ok, err = build("clang", st, srcs, SAN)
        c.check("slabtrace builds with -fsanitize=address,undefined", ok, err)
        if not ok:
            return c.summary()
        for path in SEEDS:
            r = subprocess.run([st, "report", path], capture_output=True, text=True, env=ENV)
            c.check("report reads %s, with no sanitizer report" % os.path.basename(path),
                    r.returncode == 0 and "Sanitizer" not in r.stderr, r.stderr[-1500:])
        for what, text, line, why in BAD:
            path = os.path.join(tmp, "bad.dump")
            with open(path, "w") as f:
                f.write(text)
            r = subprocess.run([st, "report", path], capture_output=True, text=True, env=ENV)
            want = "slabtrace: %s:%d: %s" % (path, line, why)
            c.check("refused, naming line %d: %s" % (line, what),
                    r.returncode == 1 and r.stdout == "" and r.stderr.startswith(want) and
                    "Sanitizer" not in r.stderr and "runtime error" not in r.stderr,
                    "exit %d, stderr %r, wanted %r" % (r.returncode, r.stderr[-1500:], want))

        # 2. A 64 MiB frame line, the plain build: one scan, no copy.
        plain = os.path.join(tmp, "slabtrace-plain")
        ok, err = build("cc", plain, srcs, ["-O2"])
        c.check("slabtrace builds without sanitizers", ok, err)
        big = os.path.join(tmp, "big.dump")
        size = 64 << 20
        with open(big, "w") as f:
            head = DUMP.split(" #02")[0]
            f.write(head + " #02 [<00000000000000a2>] in " + "k" * size + "\n")
        rc, kib = maxrss_kib([plain, "report", big])
        # The input, read whole (read_all(), up to twice its size while
        # it grows), and a few MiB: no copy of the line.
        c.check("a 64 MiB frame line is refused with at most the input's memory "
                "(%d MiB)" % (kib >> 10), rc == 1 and kib < (2 * size >> 10) + 16384,
                "exit %d, %d KiB" % (rc, kib))
        os.unlink(big)

        # 3. libFuzzer.
        fz = os.path.join(tmp, "fuzz")
        ok, err = build("clang", fz, ["scripts/tests/dump/fuzz.c"] + LIB,
                        SAN[:-2] + ["-fsanitize=fuzzer,address,undefined",
                                    "-fno-sanitize-recover=all",
                                    "-Dfuzz_one_input=LLVMFuzzerTestOneInput"])
        c.check("the fuzz harness builds with libFuzzer", ok, err)
        if ok:
            os.makedirs(ARTIFACTS, exist_ok=True)
            r = subprocess.run([fz, "-close_fd_mask=2", "-artifact_prefix=%s/" % ARTIFACTS] +
                               SEEDS,
                               capture_output=True, text=True, env=ENV)
            c.check("fuzz: every corpus file, no sanitizer report", r.returncode == 0,
                    r.stderr[-3000:])
            work = os.path.join(tmp, "corpus")
            os.mkdir(work)
            for path in SEEDS:
                shutil.copy(path, work)
            r = subprocess.run([fz, "-seed=1", "-runs=%d" % runs, "-max_len=16384",
                                "-close_fd_mask=2", "-timeout=20", "-rss_limit_mb=2048",
                                "-artifact_prefix=%s/" % ARTIFACTS,
                                work], capture_output=True, text=True, env=ENV)
            last = [x.split("\t")[0] + " done" for x in r.stderr.splitlines()
                    if re.match(r"#\d+\s+DONE", x)]
            c.check("fuzz -seed=1 -runs=%d: no crash, leak or undefined behaviour (%s)"
                    % (runs, last[-1] if last else "?"), r.returncode == 0, r.stderr[-3000:])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return c.summary()


if __name__ == "__main__":
    sys.exit(main())
