#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Parse every Documentation/*.rst with docutils and fail on any warning or
# error, Sphinx's own directives (toctree) aside; then read the guides'
# shell examples as the VM test "examples" will (scripts/lint/doc-examples.py:
# a block with no command, a marker that applies to nothing, an "expect"
# that the output shown does not match).
#
# Then the guides' claims that can be checked against the code are
# checked, not read:
#
# - ".. check: sizeof(struct NAME) = N" before a paragraph or table that
#   gives N: N is the struct's size in the module built for 6.12 (pahole
#   reads its BTF; build/6.12/slabtrace.ko, which make check builds
#   first), and the text after the marker says N;
# - ".. check: errnos" before the table of ctl's errors: each command it
#   quotes in a row with a number (``pool 15``) is a test's, with that
#   row's errno (a KUnit expectation of kunit-tests/, or a VM test's
#   check of the errno's message), and each log line it quotes is one the
#   module can write (a pr_*() format of module/ matches it);
# - the Prometheus metrics of interop.rst: every family slabtrace growth
#   --prometheus writes (scripts/tools/slabtrace/prometheus.c) is in its
#   table and in its example file, with every kind of the module's drops
#   (module/slab/traced.c) and own;
# - a command the packages install is named by its installed name:
#   flamegraph.py only as the path of its source (scripts/tools/), or
#   beside slabtrace-flamegraph.
#
# The last line is "docs: N passed, N failed", one check per page, one for
# the examples, and one per claim.
import errno
import glob
import io
import os
import re
import subprocess
import sys

import docutils.core
from docutils.parsers.rst import Directive, directives


class Ignored(Directive):
    has_content = True
    optional_arguments = 1
    option_spec = {"maxdepth": directives.unchanged}

    def run(self):
        return []


directives.register_directive("toctree", Ignored)
top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
npass = nfail = 0


def ok(what):
    global npass
    npass += 1


def bad(what):
    global nfail
    print("FAIL: docs: %s" % what)
    nfail += 1


def read(path):
    with open(os.path.join(top, path)) as f:
        return f.read()


def guides():
    """The pages a user reads, README.md first: every Documentation/*.rst
    but how the project is tested (testing.rst, tests.rst)."""
    pages = ["README.md"] + sorted(os.path.relpath(p, top) for p in glob.glob(
        os.path.join(top, "Documentation", "*.rst")))
    return [p for p in pages if not p.endswith(("testing.rst", "tests.rst"))]


for page in sorted(glob.glob(os.path.join(top, "Documentation", "*.rst"))):
    err = io.StringIO()
    with open(page) as f:
        docutils.core.publish_doctree(f.read(), source_path=page,
                                      settings_overrides={"warning_stream": err,
                                                          "report_level": 2})
    if err.getvalue():
        print(err.getvalue(), end="")
        bad(os.path.relpath(page, top))
    else:
        ok(page)
ex = subprocess.run([os.path.join(top, "scripts", "lint", "doc-examples.py")],
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
if ex.returncode:
    print(ex.stderr, end="")
    bad("the guides' examples (scripts/lint/doc-examples.py)")
else:
    ok("examples")

# --- sizeof claims -------------------------------------------------------

SIZEOF = re.compile(r"^\.\. check: sizeof\(struct (\w+)\) = (\d+)$")


def struct_size(name):
    """The size of struct @name in the module built for 6.12, or None."""
    ko = os.path.join(top, "build", "6.12", "slabtrace.ko")
    if not os.path.exists(ko):
        return None
    p = subprocess.run(["pahole", "-C", name, ko], capture_output=True, text=True)
    m = re.search(r"/\* size: (\d+),", p.stdout)
    return int(m.group(1)) if m else None


for page in guides():
    lines = read(page).splitlines()
    for i, line in enumerate(lines):
        m = SIZEOF.match(line)
        if not m:
            continue
        where = "%s:%d: sizeof(struct %s)" % (page, i + 1, m.group(1))
        size = struct_size(m.group(1))
        after = "\n".join(lines[i + 1:i + 40])
        if size is None:
            bad("%s: no build/6.12/slabtrace.ko to read it from (make KVER=6.12 modules; "
                "pahole)" % where)
        elif size != int(m.group(2)):
            bad("%s is %d bytes, not %s" % (where, size, m.group(2)))
        elif not re.search(r"(?<![\d.])%s(?![\d.])" % m.group(2), after):
            bad("%s: the text after the marker does not say %s" % (where, m.group(2)))
        else:
            ok(where)

# --- the errno table -----------------------------------------------------

LOG_CALL = re.compile(r'pr_(?:warn|info|err|notice|debug)(?:_ratelimited|_once)?\(\s*'
                      r'((?:"(?:[^"\\]|\\.)*"\s*)+)')
SPEC = re.compile(r"%[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|z|t)?"
                  r"(?:p[A-Za-z]+|[diouxXcs])")


def log_formats():
    """Every pr_*() format of the module, as its literal pieces (between
    its conversions)."""
    out = []
    for path in glob.glob(os.path.join(top, "module", "**", "*.c"), recursive=True):
        with open(path) as f:
            for m in LOG_CALL.finditer(f.read()):
                fmt = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)))
                fmt = fmt.replace("\\n", "").replace('\\"', '"').replace("\\\\", "\\")
                pieces = SPEC.split(fmt)
                # "%s": a line made elsewhere, which says nothing here.
                if len(re.sub(r"[^A-Za-z]", "", "".join(pieces))) < 4:
                    continue
                out.append([p.replace("%%", "%") for p in pieces])
    return out


def logged(text, formats):
    """Whether a format writes @text; a @text ending in "..." is a line
    shown in part: whether a format writes a line that starts so."""
    part = "..." in text
    text = text.split("...")[0]
    for pieces in formats:
        cuts = [(len(pieces), 0)]
        if part:
            # A cut in a piece after a conversion keeps 10 bytes of it (or
            # all): else the conversion's ".*" would take any text.
            cuts = [(k, j) for k in range(len(pieces)) for j in range(len(pieces[k]) + 1)
                    if not k or j >= min(len(pieces[k]), 10)]
        for k, j in cuts:
            lits = pieces[:k] + ([pieces[k][:j]] if k < len(pieces) else [])
            # The format's own words are a third of the line at least, not ": ".
            if 3 * sum(map(len, lits)) < len(text):
                continue
            if re.fullmatch(".*".join(re.escape(x) for x in lits), text, re.S):
                return True
    return False


def tested(cmd, name):
    """Whether a test expects ctl command @cmd to fail with errno @name:
    a KUnit expectation (-ENAME on its line or the next two), or a VM
    test's check of the errno's message."""
    msg = os.strerror(getattr(errno, name))
    for path in glob.glob(os.path.join(top, "kunit-tests", "*.c")) + \
            glob.glob(os.path.join(top, "scripts", "vm", "guest", "*.sh")):
        with open(path) as f:
            lines = f.read().splitlines()
        for i, line in enumerate(lines):
            if cmd not in line:
                continue
            near = "\n".join(lines[max(0, i - 2):i + 3])
            if "-" + name in near or msg in near:
                return True
    return False


def errno_tables(page):
    """The rows of the tables after ".. check: errnos": (line, errno,
    the text of its 'when' column, of its log column)."""
    lines = read(page).splitlines()
    rows = []
    for i, line in enumerate(lines):
        if line.strip() != ".. check: errnos":
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("="):
            j += 1
        cols = [m.span() for m in re.finditer(r"=+", lines[j])]
        border = 0
        for k in range(j, len(lines)):
            if lines[k].startswith("="):
                border += 1
                if border == 3:
                    break
                continue
            if border < 2 or not lines[k].strip():
                continue
            text = lines[k].ljust(cols[-1][1])
            first = text[cols[0][0]:cols[1][0]].strip()
            when = text[cols[1][0]:cols[2][0]]
            log = text[cols[2][0]:]
            if first:
                rows.append([k + 1, first.strip("`"), when, log])
            elif rows:
                rows[-1][2] += " " + when
                rows[-1][3] += " " + log
    return rows


formats = log_formats()
VERB = re.compile(r"^(?:start|stop|print|reset|mark|pool|limit|sample|sample-bytes|syscall)\b")
for page in guides():
    for line, name, when, log in errno_tables(page):
        where = "%s:%d: %s" % (page, line, name)
        if not hasattr(errno, name):
            bad("%s: no such errno" % where)
            continue
        # The commands with their numbers (pool 15), not those with a
        # placeholder (pool N) or none (start percpu: a kernel's lack).
        for cmd in re.findall(r"``([^`]+)``", re.sub(r"\s+", " ", when)):
            if not VERB.match(cmd) or not re.search(r"\d", cmd) or \
                    re.search(r"\b[A-Z]+\b", cmd):
                continue
            if tested(cmd, name):
                ok(where)
            else:
                bad("%s: no test expects '%s' to fail with %s" % (where, cmd, name))
        for text in re.findall(r"``([^`]+)``", re.sub(r"\s+", " ", log)):
            if logged(text, formats):
                ok(where)
            else:
                bad("%s: the module writes no log line '%s'" % (where, text))

# --- Prometheus ----------------------------------------------------------

prom = read("scripts/tools/slabtrace/prometheus.c")
families = sorted(set(re.findall(r'(?:family|single)\(f, (?:st, |s, )?"(slabtrace_[a-z_]+)"',
                                  prom)))
interop = read("Documentation/interop.rst")
example = interop[interop.find("$ cat cli.prom"):]
example = example[:example.find("$ promtool")]
traced = read("module/slab/traced.c")
traced = traced[traced.find("leak_drop_names[LEAK_DROP_MAX] = {"):]
kinds = [k.replace(" ", "_") for k in re.findall(r'\] = "([^"]+)"', traced[:traced.find("};")])]
for fam in families:
    if "``%s``" % fam not in interop and "``%s{" % fam not in interop:
        bad("interop.rst: the metrics' table has no %s" % fam)
    elif not re.search(r"(?m)^ +%s[{ ]" % fam, example):
        bad("interop.rst: the example file has no %s" % fam)
    else:
        ok(fam)
for kind in kinds:
    if 'kind="%s"' % kind in example:
        ok(kind)
    else:
        bad("interop.rst: the example file has no kind=\"%s\" (module/slab/traced.c)" % kind)

# --- installed names -----------------------------------------------------

for page in guides():
    for n, line in enumerate(read(page).splitlines(), 1):
        for m in re.finditer(r"flamegraph\.py", line):
            if not line[:m.start()].endswith("scripts/tools/") and \
                    "slabtrace-flamegraph" not in line:
                bad("%s:%d: 'flamegraph.py': the packages and make install-tools install it "
                    "as slabtrace-flamegraph" % (page, n))
ok("installed names")

print("docs: %d passed, %d failed" % (npass, nfail))
sys.exit(1 if nfail else 0)
