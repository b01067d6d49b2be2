#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# A second compiler's opinion: clang -fsyntax-only on every C file of the
# module and the test modules, with the flags kbuild gave gcc for it (W=1
# included), minus the gcc-only ones.  Debian's kernels are built with
# gcc-12, so clang cannot build the module for them (see LLVM=1 in the
# Makefile), but it parses the same code with the same headers and warns
# about things gcc lets through.
#
#   scripts/lint/clang-check.py KVER
#
# KVER must be built (make KVER=... test-modules): the flags come from
# kbuild's .*.o.cmd files in build/KVER/.  A clang warning in one of our
# files, or an error anywhere, fails the file.  The last line is "clang: N passed, N failed", one check per
# file.
import os
import re
import shlex
import shutil
import subprocess
import sys

# gcc's options that clang does not know, or that mean nothing to a syntax
# check.
DROP = re.compile(r"""^-(
    Wp,.*|c|fconserve-stack|fno-allow-store-data-races|mindirect-branch.*|
    mfunction-return=.*|mharden-sls=.*|mrecord-mcount|mskip-rax-setup|
    mpreferred-stack-boundary=.*|falign-jumps=.*|falign-loops=.*|
    mno-fp-ret-in-387|ftrivial-auto-var-init=.*|fno-stack-clash-protection|
    mstack-protector-guard.*|fmin-function-alignment=.*|
    fzero-call-used-regs=.*|fno-ipa-.*|fsanitize-coverage.*|
    fno-var-tracking-assignments|fno-inline-functions-called-once|
    mbranch-protection=.*|mabi=lp64|mlittle-endian|mgeneral-regs-only|
    mno-outline-atomics|fpatchable-function-entry=.*|pg|mfentry|
    Wimplicit-fallthrough=.*|Werror=designated-init|Wno-main|
    Wmissing-include-dirs|Wcast-function-type|mtune=.*|
    fno-asynchronous-unwind-tables|fno-unwind-tables|g|gdwarf.*
)$""", re.X)


def main():
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    kver = sys.argv[1]
    bdir = os.path.join(top, "build", kver)
    fetch = os.path.join(top, "scripts", "kernels", "fetch-kernel.sh")
    kdir = subprocess.run([fetch, kver],
                          check=True, capture_output=True, text=True).stdout.strip()
    kdir = os.path.join(kdir, "build")
    clang = os.environ.get("CLANG", "clang")
    if not shutil.which(clang):
        sys.exit("clang-check: no %s" % clang)
    target = "aarch64-linux-gnu" if kver.endswith("-arm64") else "x86_64-linux-gnu"
    cmds = []
    for sub in ("module", "scripts/test-modules"):
        for d, _, files in os.walk(os.path.join(bdir, sub)):
            cmds += [os.path.join(d, f) for f in files
                     if f.startswith(".") and f.endswith(".o.cmd")]
    npass = nfail = 0
    for cmd in sorted(cmds):
        saved = src = None
        with open(cmd) as f:
            for line in f:
                if line.startswith("savedcmd_"):
                    saved = line.split(":=", 1)[1]
                elif line.startswith("source_"):
                    src = line.split(":=", 1)[1].strip()
        if not saved or not src or not src.endswith(".c") or src.endswith(".mod.c"):
            continue
        # A .cmd left by an older build whose source is gone: not ours now.
        if not os.path.exists(os.path.join(kdir, src)):
            continue
        # The compiler's command, up to the objtool run that follows it.
        argv = shlex.split(saved)
        if ";" in argv:
            argv = argv[:argv.index(";")]
        argv = argv[1:]
        args = []
        skip = False
        for a in argv:
            if skip:
                skip = False
            elif a == "-o":
                skip = True
            elif not DROP.match(a):
                args.append(a)
        r = subprocess.run([clang, "--target=" + target, "-fsyntax-only",
                            "-Wno-unknown-warning-option"] + args,
                           cwd=kdir, capture_output=True, text=True)
        name = os.path.relpath(src, bdir)
        # Ours: a diagnostic in a file of this tree.  The kernel's
        # headers, configured for gcc, draw warnings of their own from
        # clang (x86's __seg_gs percpu accessors): those are not counted,
        # their errors are.
        ours = [l for l in r.stderr.splitlines()
                if re.match(r"\S+:\d+:\d+: (warning|error):", l) and
                (l.startswith(bdir + "/") or ": error:" in l)]
        if r.returncode == 0 and not ours:
            npass += 1
        else:
            for l in ours or r.stderr.splitlines()[-20:]:
                print(l.replace(bdir + "/", ""))
            print("FAIL: clang: %s" % name)
            nfail += 1
    print("clang: %d passed, %d failed" % (npass, nfail))
    sys.exit(1 if nfail else 0)


if __name__ == "__main__":
    main()
