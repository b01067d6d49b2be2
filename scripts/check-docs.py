#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Parse every Documentation/*.rst with docutils and fail on any warning or
# error, Sphinx's own directives (toctree) aside; then read the guides'
# shell examples as the VM test "examples" will (scripts/doc-examples.py:
# a block with no command, a marker that applies to nothing, an "expect"
# that the output shown does not match).  The last line is "docs: N
# passed, N failed", one check per page and one for the examples.
import glob
import io
import os
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
top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
npass = nfail = 0
for page in sorted(glob.glob(os.path.join(top, "Documentation", "*.rst"))):
    err = io.StringIO()
    with open(page) as f:
        docutils.core.publish_doctree(f.read(), source_path=page,
                                      settings_overrides={"warning_stream": err,
                                                          "report_level": 2})
    if err.getvalue():
        print(err.getvalue(), end="")
        print("FAIL: docs: %s" % os.path.relpath(page, top))
        nfail += 1
    else:
        npass += 1
ex = subprocess.run([os.path.join(top, "scripts", "doc-examples.py")],
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
if ex.returncode:
    print(ex.stderr, end="")
    print("FAIL: docs: the guides' examples (scripts/doc-examples.py)")
    nfail += 1
else:
    npass += 1
print("docs: %d passed, %d failed" % (npass, nfail))
sys.exit(1 if nfail else 0)
