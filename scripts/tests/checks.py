# SPDX-License-Identifier: GPL-2.0
"""PASS/FAIL lines and their count, for the host tests that print them.

    from checks import Checks
    c = Checks("kmemtrace")
    c.check("what", ok, "detail")      # PASS: kmemtrace: what
    c.check_eq("what", want, got)
    return c.summary()                 # "kmemtrace: N passed, N failed"; 1 if any failed
"""


class Checks:
    def __init__(self, name):
        self.name = name
        self.npass = 0
        self.nfail = 0

    def check(self, what, ok, detail=""):
        if ok:
            self.npass += 1
            print("PASS: %s: %s" % (self.name, what))
        else:
            self.nfail += 1
            print("FAIL: %s: %s%s" % (self.name, what,
                                      " (%s)" % detail if detail else ""))

    def check_eq(self, what, want, got):
        self.check(what, want == got, "expected %r, got %r" % (want, got))

    def summary(self):
        print("%s: %d passed, %d failed" % (self.name, self.npass, self.nfail))
        return 1 if self.nfail else 0
