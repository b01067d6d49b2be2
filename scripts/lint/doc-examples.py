#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The shell examples of the user's guides, for the VM tests to run.

    scripts/lint/doc-examples.py [FILE...]

Reads README.md and Documentation/first-five-minutes.rst (or the FILEs
named) and prints one line per example command and per marker, for the
guest tests examples.sh (every command, in order, in a busybox VM) and
realdeb.sh (README.md's "On a real machine", on a Debian system).  A
malformed file is an error: a message per problem on standard error,
exit 1 (scripts/lint/check-docs.py runs it too).

What an example is (Documentation/testing.rst, "The guides' examples"):

- Markdown: every fenced block (```, or ```sh); each of its lines is a
  command, but blank lines and lines that are only a comment (#);
- reStructuredText: every literal block (after "::") and every
  ".. code-block:: sh" or "console" block; a line starting with "$ " or
  "# " (after the block's indentation) is a command, the prompt removed;
  the other lines are the output the guide shows;
- a line ending in a backslash goes on in the next one.

Markers, in a comment before the block they apply to (Markdown
"<!-- example: ... -->", reStructuredText ".. example: ..."):

- skip "TEXT": REASON   the block's commands containing TEXT do not run in
                        the busybox VM (apt, mokutil, make ...); REASON
                        says why.  Without "TEXT", the whole block.
                        realdeb.sh runs README.md's "On a real machine"
                        regardless: it is a Debian system.
- expect ERE            a line of the block's output matches ERE
                        (grep -E); if the guide shows output for the
                        block, one of those lines must match too.
- exit N                each command of the block exits N (default 0).

A block with no command, a marker before no block, a skip whose TEXT is
in no command, an expect the shown output does not match, are errors.

Output, a line each, fields separated by tabs:
KIND LOC BLOCK SECTION NOTE TEXT, where KIND is "run" (TEXT a command),
"skip" (a command not run; NOTE the reason), "expect" (TEXT an ERE) or
"exit" (TEXT the status); LOC is FILE:LINE, BLOCK numbers the blocks of
all files, SECTION is the innermost heading above; an empty field is "-".
"""
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILES = ["README.md", "Documentation/first-five-minutes.rst"]
MARK_MD = re.compile(r"^\s*<!-- example: (.*?) -->\s*$")
MARK_RST = re.compile(r"^\s*\.\. example: (.*)$")
SKIP = re.compile(r'^skip(?: "([^"]+)")?: (\S.*)$')
PROMPT = re.compile(r"^[$#] ")


class Block:
    def __init__(self, path, line, section, prompted):
        self.path, self.line, self.section = path, line, section
        self.prompted = prompted
        self.lines = []         # (line number, text without indentation)


def md_blocks(path, text):
    """Markdown: fenced blocks, their markers, headings."""
    section, fence, marks = "-", None, []
    for n, line in enumerate(text.splitlines(), 1):
        if fence is not None:
            if line.startswith("```"):
                yield fence, marks, None
                fence, marks = None, []
            else:
                fence.lines.append((n, line))
            continue
        m = MARK_MD.match(line)
        if m:
            marks.append((n, m.group(1)))
        elif line.startswith("```"):
            lang = line[3:].strip()
            if lang in ("", "sh"):
                fence = Block(path, n, section, False)
            elif marks:
                yield None, marks, "markers before a ```%s block" % lang
                marks = []
        elif re.match(r"^#+ ", line):
            section = line.lstrip("#").strip()
    if marks:
        yield None, marks, "markers before no block"


def rst_blocks(path, text):
    """reStructuredText: literal and code-block blocks, markers, headings."""
    lines = text.splitlines()
    section, marks, opener = "-", [], None
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        m = MARK_RST.match(line)
        if m:
            marks.append((i + 1, m.group(1)))
            i += 1
            continue
        if (line.strip() and re.match(r"^([=\-~^])\1{2,}$", nxt) and
                len(nxt) >= len(line.rstrip())):
            section = line.strip()
        cb = re.match(r"^(\s*)\.\. code-block:: (\S+)\s*$", line)
        if cb:
            opener = (len(cb.group(1)), cb.group(2) in ("sh", "console"))
        elif line.rstrip().endswith("::") and not line.lstrip().startswith(".."):
            opener = (len(line) - len(line.lstrip()), True)
        if not opener:
            i += 1
            continue
        indent, shell = opener
        opener = None
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        body = []
        k = j
        while k < len(lines):
            s = lines[k]
            if s.strip() and len(s) - len(s.lstrip()) <= indent:
                break
            body.append((k + 1, s))
            k += 1
        i = max(k, i + 1)
        if not body:
            continue
        if not shell:
            if marks:
                yield None, marks, "markers before a block that is not sh"
                marks = []
            continue
        cut = min(len(s) - len(s.lstrip()) for _, s in body if s.strip())
        b = Block(path, j + 1, section, True)
        b.lines = [(n, s[cut:]) for n, s in body]
        yield b, marks, None
        marks = []
    if marks:
        yield None, marks, "markers before no block"


def commands(b):
    """(line, command) of a block, continuations joined; its shown output."""
    cmds, shown, cont = [], [], None
    for n, s in b.lines:
        if cont is not None:
            cont = (cont[0], cont[1] + s.strip())
        elif b.prompted:
            if PROMPT.match(s):
                cont = (n, s[2:])
            else:
                if s.strip():
                    shown.append(s)
                continue
        else:
            if not s.strip() or s.lstrip().startswith("#"):
                continue
            cont = (n, s.strip())
        if cont[1].endswith("\\"):
            cont = (cont[0], cont[1][:-1])
            continue
        cmds.append(cont)
        cont = None
    if cont is not None:
        cmds.append(cont)
    return cmds, shown


def extract(path, rel, nblock, out, errors):
    with open(path) as f:
        text = f.read()
    parse = md_blocks if path.endswith(".md") else rst_blocks
    for b, marks, err in parse(rel, text):
        where = "%s:%d" % (rel, b.line if b else marks[0][0])
        if err:
            errors.append("%s: %s" % (where, err))
            continue
        nblock += 1
        cmds, shown = commands(b)
        if not cmds:
            errors.append("%s: a block with no command (mark it"
                          " 'example: skip: REASON')" % where)
            continue
        skips, extra = [], []
        for n, mk in marks:
            loc = "%s:%d" % (rel, n)
            s = SKIP.match(mk)
            if s:
                if s.group(1) and not any(s.group(1) in c for _, c in cmds):
                    errors.append('%s: skip "%s": no command of the block'
                                  " has it" % (loc, s.group(1)))
                skips.append((s.group(1), s.group(2)))
            elif mk.startswith("expect "):
                ere = mk[len("expect "):]
                try:
                    rx = re.compile(ere)
                except re.error as e:
                    errors.append("%s: expect: %s" % (loc, e))
                    continue
                if shown and not any(rx.search(s) for s in shown):
                    errors.append("%s: expect %s: no line the guide shows"
                                  " matches" % (loc, ere))
                extra.append(("expect", loc, ere))
            elif re.match(r"^exit [0-9]+$", mk):
                extra.append(("exit", loc, mk.split()[1]))
            else:
                errors.append("%s: unknown marker '%s'" % (loc, mk))
        for n, c in cmds:
            why = [r for t, r in skips if t is None or t in c]
            out.append(("skip" if why else "run", "%s:%d" % (rel, n), nblock,
                        b.section, why[0] if why else "-", c))
        for kind, loc, t in extra:
            out.append((kind, loc, nblock, b.section, "-", t))
    return nblock


def main():
    files = sys.argv[1:] or [os.path.join(TOP, f) for f in FILES]
    out, errors, nblock = [], [], 0
    for path in files:
        rel = os.path.relpath(path, TOP)
        nblock = extract(path, rel, nblock, out, errors)
    for e in errors:
        print("doc-examples: %s" % e, file=sys.stderr)
    if errors:
        return 1
    for row in out:
        print("\t".join(str(f).replace("\t", " ") for f in row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
