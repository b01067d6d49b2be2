#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/lint/doc-examples.py on made-up guides: what it takes for an example,
the markers, and the mistakes it refuses (testing.rst, "The guides'
examples").  The last line is "doc-examples: N passed, N failed"."""
import os
import subprocess
import sys
import tempfile

from checks import Checks

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(TOP, "scripts", "lint", "doc-examples.py")

MD = """# Title

## Section A

<!-- example: skip "apt install": no apt here -->
<!-- example: expect ^hello$ -->
```
sudo apt install ./x.deb
echo hello     # a comment
# only a comment

echo one \\
  two
```

```text
not an example
```
"""

RST = """Title
=====

.. example: exit 1
.. example: expect did you mean

Some text::

    # false
    output, did you mean this?
    $ echo user \\
    continued

Other
-----

.. code-block:: sh

    $ echo shell

.. code-block:: c

    int x;
"""


def run(c, files):
    """The tool's output rows (fields), its error lines, its status."""
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for name, text in files:
            p = os.path.join(d, name)
            with open(p, "w") as f:
                f.write(text)
            paths.append(p)
        r = subprocess.run([TOOL] + paths, capture_output=True, text=True)
    rows = [line.split("\t") for line in r.stdout.splitlines()]
    return rows, r.stderr.splitlines(), r.returncode


def main():
    c = Checks("doc-examples")
    rows, err, rc = run(c, [("a.md", MD), ("b.rst", RST)])
    c.check_eq("good guides: exit 0, no error", (0, []), (rc, err))
    got = [(r[0], r[1].split("/")[-1], r[2], r[3], r[4], r[5]) for r in rows]
    want = [
        ("skip", "a.md:8", "1", "Section A", "no apt here", "sudo apt install ./x.deb"),
        ("run", "a.md:9", "1", "Section A", "-", "echo hello     # a comment"),
        ("run", "a.md:12", "1", "Section A", "-", "echo one two"),
        ("expect", "a.md:6", "1", "Section A", "-", "^hello$"),
        ("run", "b.rst:9", "2", "Title", "-", "false"),
        ("run", "b.rst:11", "2", "Title", "-", "echo user continued"),
        ("exit", "b.rst:4", "2", "Title", "-", "1"),
        ("expect", "b.rst:5", "2", "Title", "-", "did you mean"),
        ("run", "b.rst:19", "3", "Other", "-", "echo shell"),
    ]
    c.check_eq("commands, skips, markers, sections, continuations", want, got)

    bad = [
        ("expect the shown output does not match",
         "Text::\n\n    # true\n    something else\n",
         ".. example: expect ^nothing$\n\n", "no line the guide shows matches"),
        ("skip of a text no command has",
         "Text::\n\n    # true\n", '.. example: skip "apt": why\n\n',
         'skip "apt": no command of the block has it'),
        ("a block with no command", "Text::\n\n    just output\n", "",
         "a block with no command"),
        ("a marker before no block", "Text.\n", ".. example: exit 1\n\n",
         "markers before no block"),
        ("an unknown marker", "Text::\n\n    # true\n", ".. example: sometimes\n\n",
         "unknown marker 'sometimes'"),
        ("a skip without a reason", "Text::\n\n    # true\n", ".. example: skip\n\n",
         "unknown marker 'skip'"),
    ]
    for what, body, marker, msg in bad:
        rows, err, rc = run(c, [("c.rst", marker + body)])
        c.check("refused: %s" % what,
                rc == 1 and not rows and len(err) == 1 and msg in err[0],
                "rc %d, stderr %r" % (rc, err))
    rows, err, rc = run(c, [("d.md", "<!-- example: skip: why -->\n```sh\nmake\n```\n"
                              "<!-- example: expect x -->\n```text\nx\n```\n")])
    c.check("refused: markers before a block that is not sh (Markdown)",
            rc == 1 and len(err) == 1 and "markers before a ```text block" in err[0],
            "rc %d, stderr %r" % (rc, err))
    rows, err, rc = run(c, [])
    c.check_eq("the project's guides are read without error", (0, []), (rc, err))
    c.check("... and give commands to run", any(r[0] == "run" for r in rows))
    return c.summary()


if __name__ == "__main__":
    sys.exit(main())
