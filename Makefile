# SPDX-License-Identifier: GPL-2.0
#
# slabtrace: out-of-tree build and the project's commands.
#
#   make                  build slabtrace.ko here, for the running kernel, and
#                         the tools (make tools)
#   make KVER=...         build in build/KVER/ against Debian's headers
#                         (fetched into ~/.cache/slabtrace, never installed;
#                         -arm64: cross-built with Debian's aarch64 gcc).
#                         KVER names a kernel Debian ships and its flavour:
#                           6.1, 6.12          bookworm's (Debian 12), gcc-12
#                           6.12-deb13         trixie's (Debian 13), gcc-14
#                           7.2                sid's and forky's, gcc-16
#                           7.3                trixie-backports', gcc-14
#                           next               the newest of any suite,
#                                              experimental's rc included
#                         each also as KVER-rt (PREEMPT_RT) and KVER-arm64.
#                         All but bookworm's build in a root of their suite
#                         (scripts/kernels/suite-chroot.sh, debootstrap, once)
#   make KVER=6.12-debug  the same against the debug kernel: Debian's
#                         linux-source-6.12 with PREEMPT_RT, lockdep, KASAN,
#                         DEBUG_OBJECTS, built into ~/.cache/slabtrace the
#                         first time (about 10 minutes on two cores)
#   make modules_install  install for KDIR's kernel (in extra/, below the
#                         slabtrace-dkms package's updates/dkms/), and run
#                         depmod
#   make sign [SIGN_KEY=... SIGN_CERT=...]   sign slabtrace.ko (Secure Boot)
#                         with the kernel's scripts/sign-file; by default
#                         with DKMS's key, /var/lib/dkms/mok.key and mok.pub
#   make deb              the Debian packages slabtrace-dkms and
#                         slabtrace-tools in build/deb/ (debhelper, dh-dkms;
#                         lintian must find no error)
#   make demo             boot a VM, load slabtrace and a leaky module
#   make check            every test: builds, checkpatch, sparse, KUnit, VMs
#   make check-all-kernels   every VM test on every kernel Debian ships and
#                         each flavour (scripts/check/check-all-kernels.sh; make
#                         check boots a subset, Documentation/testing.rst)
#   make check-next       the newest kernel any Debian suite serves,
#                         experimental's rc included: built, booted (load,
#                         core), and what broke (scripts/check/check-next.sh)
#   make check-debug      the VM suites on the debug kernel (building it if
#                         needed), about 16 minutes; not part of make check,
#                         which it would take past CI's 45 minutes cold
#   make check-debian     the packages installed and README.md's commands
#                         run on a Debian system, in VMs: Debian 12 booting
#                         6.12 and 6.1, Debian 13 booting its 6.12 (and a
#                         kernel slabtrace is made not to know) and 7.3
#                         from trixie-backports (make check: 6.12 only)
#   make kunit            the KUnit suite only (UML, kunit.py)
#   make checkpatch       checkpatch.pl --strict on every source file
#                         (scripts/lint/checkpatch.sh)
#   make KVER=... sparse  the test build of the module with sparse (C=2)
#   make bench            benchmarks (UML without KASAN/lockdep)
#   make bench-peers      slabtrace and kptrace against bcc, bpftrace, perf,
#                         strace in a Debian 6.12 VM (slow; not in check)
#   make perf-frag        its part 5 alone: kmemtrace-report's fragmentation
#                         per call site against perf kmem stat --caller's
#   make vm-test KVER=... TESTS=a,b   some VM tests on one kernel
#   make stress [KVER=6.12] [STRESS_SECS=300] [STRESS_SEED=N]   the long
#                         stress run: the fuzzer for STRESS_SECS in a VM booted
#                         with slub_debug=FZPU init_on_free=1 (make check runs
#                         it for 45 s without them)
#   make tools            slabtrace, kmemtrace-record and (with libbabeltrace2)
#                         kmemtrace-report in build/tools/ (scripts/tools/)
#   make install-tools    copy what make tools built, slabtrace-flamegraph
#                         and the man pages into DESTDIR/PREFIX
#                         (/usr/local); compiles nothing (sudo after make)
#   make uninstall-tools  remove them
#   make compat [COMPAT=REGEX]   build against every headers package of every
#                         suite (bookworm, trixie and its backports, forky,
#                         sid, experimental), each in its suite's root with
#                         its compiler (build/compat.txt)
#   make clean

KVER ?=
KVERS := $(foreach k,6.1 6.12 6.12-deb13 7.2 7.3 next,$(k) $(k)-rt $(k)-arm64)
DEBUG_KVER := 6.12-debug
ifneq ($(KVER),)
ifeq ($(filter $(KVER),$(KVERS) $(DEBUG_KVER)),)
$(error unknown KVER '$(KVER)': Debian's kernels are $(KVERS), the debug kernel $(DEBUG_KVER); without KVER, the running kernel)
endif
endif
ifeq ($(KVER),)
KDIR ?= /lib/modules/$(shell uname -r)/build
BUILD := $(CURDIR)
else
KDIR ?= $(shell $(CURDIR)/scripts/kernels/fetch-kernel.sh $(KVER))/build
BUILD := $(CURDIR)/build/$(KVER)
endif

# A warning fails the project's own builds (KVER=..., make check: W=1,
# -Werror), so that none piles up.  A user's plain make, whose compiler may
# be a newer point release with warnings of its own, prints them and goes
# on.  WERROR=1 or WERROR=0 says otherwise (scripts/kbuild/kbuild.sh reads it).
ifeq ($(KVER),)
WERROR ?= 0
else
WERROR ?= 1
endif
export WERROR
TOOLS_CFLAGS := -O2 -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror)

# The guest's programs: for the kernel's arch, static, and on x86-64 also
# as 32-bit programs (NAME32) for the compat system calls.  arm64 guests
# get no 32-bit programs (Debian's arm-linux-gnueabihf compiler conflicts
# with gcc-multilib); the tests that need them skip, saying so.
ifneq ($(filter %-arm64,$(KVER)),)
CROSS_BIN := $(shell $(CURDIR)/scripts/kernels/fetch-cross.sh)
export PATH := $(CROSS_BIN):$(PATH)
GUEST_CC := aarch64-linux-gnu-gcc
GUEST_CC32 :=
# 6.12's headers set it themselves, 6.1's only when dpkg cross-builds.
KB_ARGS := CROSS_COMPILE=aarch64-linux-gnu-
else
GUEST_CC := $(CC)
GUEST_CC32 := $(CC) -m32
endif

# LLVM=1 builds with clang only for a kernel built with clang: a module
# must be built by the kernel's compiler, and Debian's kernels are built
# with gcc-12 (their headers set CC to it, so LLVM=1 would silently build
# with gcc).  For those, clang's view of the code is make check's
# scripts/lint/clang-check.py.
ifneq ($(LLVM),)
ifneq ($(shell grep -qs '^CONFIG_CC_IS_CLANG=y' $(KDIR)/.config && echo y),y)
$(error LLVM=$(LLVM): the kernel in $(KDIR) was built with gcc ($(shell sed -n 's/^CONFIG_CC_VERSION_TEXT=//p' $(KDIR)/.config)), and a module must be built with the kernel's compiler; Debian's kernels are built with gcc-12, so LLVM=1 is not supported for them)
endif
endif

# The tools' sources (absent from the DKMS package, which builds modules only).
-include scripts/tools/tools.mk

# Not in the default list: lowmem, lowmem_kptrace and streams_lowmem (a
# 256 MiB guest),
# relayrace and lockdown, realdeb (a Debian root file system)
# (slub_debug; lockdown is never lowered, so last in a boot of their own):
# make check runs them apart.
VM_TESTS ?= $(shell cd scripts/vm/guest && ls *.sh | grep -Ev '^(lib|lowmem|lowmem_.*|streams_lowmem|relayrace|lockdown|realdeb|runner_.*)\.sh$$' | sed 's/\.sh$$//' | paste -sd, -)
TESTS ?= $(VM_TESTS)

.PHONY: all headers modules test-modules guest-progs modules_install clean check demo kunit \
	vm-test stress checkpatch sparse shadow bench bench-peers perf-frag tools install-tools \
	uninstall-tools compat check-debug sign deb check-debian check-all-kernels \
	check-next

all: modules tools

# Headers first: a newcomer's make says what to install, not make's own
# "No such file or directory".
headers:
ifeq ($(KVER),)
	@[ -d "$(KDIR)" ] || { \
		echo "make: no kernel headers in $(KDIR)"; \
		echo "  for the running kernel: sudo apt install linux-headers-$$(uname -r)"; \
		echo "  or build for a Debian kernel fetched into ~/.cache/slabtrace:"; \
		echo "  make KVER=6.1 (or $(filter-out 6.1,$(KVERS)))"; \
		exit 1; }
else
	@[ -d "$(KDIR)" ] || { \
		echo "make: could not fetch Debian's $(KVER) headers (the lines above say why)"; \
		exit 1; }
endif

shadow: headers
ifneq ($(BUILD),$(CURDIR))
	@scripts/kbuild/shadow-tree.sh $(BUILD)
endif

modules: shadow
	+@scripts/kbuild/kbuild.sh $(KDIR) $(BUILD) $(KB_ARGS) modules

# slabtrace.ko plus what only the VM tests and the demo use: the leaky
# module, and the guest's test programs (static, any kernel of the arch),
# each also as a 32-bit program (NAME32) where GUEST_CC32 is set.
GUEST_PROGS := $(patsubst scripts/vm/guest/%.c,%,$(wildcard scripts/vm/guest/*.c))

test-modules: shadow
	+@scripts/kbuild/kbuild.sh $(KDIR) $(BUILD) $(KB_ARGS) SLABTRACE_TEST_MODULES=m modules
	@cp $(BUILD)/scripts/test-modules/*.ko $(BUILD)/
	@mkdir -p $(BUILD)/bin
	@# initleak's __init functions, for probepath: name, size, and how far
	@# the next symbol of the section is ("-": none, it is the last).
	@readelf -sW $(BUILD)/initleak.ko | awk ' \
		function hex(h, r, i) { for (i = 1; i <= length(h); i++) \
			r = r * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return r } \
		$$4 != "SECTION" && $$7 ~ /^[0-9]+$$/ && $$8 !~ /^[$$.]/ { v[NR] = hex($$2); n[NR] = $$8; s[NR] = $$3; x[NR] = $$7 } \
		END { for (i in n) if (n[i] ~ /^initleak_(alloc|init)$$/) { d = 0; \
			for (j in n) if (x[j] == x[i] && v[j] > v[i] && (!d || v[j] - v[i] < d)) d = v[j] - v[i]; \
			printf "%s %x %s\n", n[i], s[i], d ? sprintf("%x", d) : "-" } }' \
		> $(BUILD)/bin/initleak.syms
	+@mkdir -p $(GUEST_OUT) && flock $(GUEST_OUT).lock $(MAKE) --no-print-directory guest-progs
	@cp -p $(addprefix $(GUEST_OUT)/,$(GUEST_BINS)) $(BUILD)/bin/

# The guest's programs hang on the kernel's arch alone: built once for it
# into build/guest-ARCH, each again when its sources change, and copied
# into each kernel's build (eleven kernels in make check, 20 s of
# compiling each).  Under a lock: builds of two kernels may run at once.
GUEST_ARCH := $(if $(filter %-arm64,$(KVER)),arm64,$(shell uname -m))
GUEST_OUT := $(CURDIR)/build/guest-$(GUEST_ARCH)
GUEST_BINS := slabtrace kmemtrace-record $(GUEST_PROGS) \
	$(if $(GUEST_CC32),$(addsuffix 32,$(GUEST_PROGS)))
GUEST_CFLAGS := -static -O2 -Wall -Wextra -Werror
GUEST_DEPS := Makefile scripts/tools/tools.mk dkms.conf $(TOOLS_HDRS)

guest-progs: $(addprefix $(GUEST_OUT)/,$(GUEST_BINS))

$(GUEST_OUT)/slabtrace: $(SLABTRACE_SRCS) scripts/tools/lib/profile.proto $(GUEST_DEPS)
	$(call build_slabtrace,$(GUEST_CC),$@.tmp,$(GUEST_OUT)/gen,-O2 -Wall -Wextra -Werror,-static)
	@mv -f $@.tmp $@

$(GUEST_OUT)/kmemtrace-record: $(KMEMTRACE_RECORD_SRCS) $(GUEST_DEPS)
	@$(GUEST_CC) $(GUEST_CFLAGS) $(TOOLS_DEFS) -o $@.tmp $(KMEMTRACE_RECORD_SRCS)
	@mv -f $@.tmp $@

$(GUEST_OUT)/%32: scripts/vm/guest/%.c $(GUEST_DEPS)
	@$(GUEST_CC32) $(GUEST_CFLAGS) -o $@.tmp $<
	@mv -f $@.tmp $@

$(GUEST_OUT)/%: scripts/vm/guest/%.c $(GUEST_DEPS)
	@$(GUEST_CC) $(GUEST_CFLAGS) -o $@.tmp $<
	@mv -f $@.tmp $@

# The user tools (scripts/tools/, tools.mk): the slabtrace command and
# kmemtrace's recorder (static, libc only but for slabtrace's pprof
# encoder: they also run in the test VMs' busybox), and kmemtrace's report
# (libbabeltrace2), when the library is there.  TOOLS_STATIC= links the
# first two dynamically too (the Debian package does, as Debian's policy
# asks); CPPFLAGS, CFLAGS and LDFLAGS are added (dpkg's hardening flags,
# in the package).
TOOLS_STATIC ?= -static
TOOLS_ALLFLAGS = $(TOOLS_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS)
TOOLS_OUT ?= build/tools
# protobuf-c's generated code: beside, not in, what install copies.
TOOLS_GEN ?= $(TOOLS_OUT)-gen
tools:
	@mkdir -p $(TOOLS_OUT)
	$(call build_slabtrace,$(CC),$(TOOLS_OUT)/slabtrace,$(TOOLS_GEN),$(TOOLS_ALLFLAGS),$(TOOLS_STATIC))
	$(CC) $(TOOLS_STATIC) $(TOOLS_ALLFLAGS) $(TOOLS_DEFS) -o $(TOOLS_OUT)/kmemtrace-record \
		$(KMEMTRACE_RECORD_SRCS)
	$(call build_kmt_report,$(CC),$(TOOLS_OUT)/kmemtrace-report,$(TOOLS_GEN),$(TOOLS_ALLFLAGS))

# Copies only: build with make (or make tools) first, as yourself.
# Every program in BINDIR, as the Debian package has them: some need no
# root (slabtrace report, kmemtrace-report), and sudo finds the others.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
# program:directory:man page, of what install-tools copies.
INSTALLED := $(TOOLS_OUT)/slabtrace:$(BINDIR):slabtrace.8 \
	$(TOOLS_OUT)/kmemtrace-record:$(BINDIR):kmemtrace-record.8 \
	$(TOOLS_OUT)/kmemtrace-report:$(BINDIR):kmemtrace-report.1 \
	scripts/tools/flamegraph.py:$(BINDIR):slabtrace-flamegraph.1
install-tools:
	@for p in slabtrace kmemtrace-record; do \
		[ -x $(TOOLS_OUT)/$$p ] || { \
			echo "make install-tools: no $(TOOLS_OUT)/$$p: run make tools first, as yourself (install-tools compiles nothing)" >&2; \
			exit 1; }; \
	done
	@set -e; for e in $(INSTALLED); do \
		src=$${e%%:*}; rest=$${e#*:}; dir=$${rest%%:*}; man=$${rest#*:}; \
		if [ ! -e "$$src" ]; then \
			echo "make install-tools: $$src not built (make tools says why): not installed"; \
			continue; \
		fi; \
		name=$${man%.*}; sect=$${man##*.}; \
		echo "install $$src $(DESTDIR)$$dir/$$name"; \
		install -D -m 0755 "$$src" "$(DESTDIR)$$dir/$$name"; \
		install -D -m 0644 "Documentation/$$man" "$(DESTDIR)$(MANDIR)/man$$sect/$$man"; \
	done

uninstall-tools:
	@for e in $(INSTALLED); do \
		rest=$${e#*:}; dir=$${rest%%:*}; man=$${rest#*:}; \
		rm -f "$(DESTDIR)$$dir/$${man%.*}" "$(DESTDIR)$(MANDIR)/man$${man##*.}/$$man"; \
	done

# In extra/, as 6.1's kbuild put it (6.12's puts it in updates/): depmod
# then prefers the slabtrace-dkms package's updates/dkms/ when both are
# there, where a tie would go to whichever it found first.  One an earlier
# install left in updates/ itself would outrank it: it goes.
# Debian's headers have no System.map, so kbuild skips depmod: run here,
# unless the modules go elsewhere (INSTALL_MOD_PATH).  Not a test build
# (make test-modules, sparse, vm-test: its slabtrace.ko has the tests'
# hooks, such as the parameter fail_init, and its modules.order the test
# modules): make sign refuses it too.
modules_install:
	@modinfo=$$(PATH=$$PATH:/usr/sbin:/sbin command -v modinfo) || { \
		echo "make modules_install: no modinfo (kmod) to tell the module from the test build" >&2; \
		exit 1; }; \
	if $$modinfo -F parm $(BUILD)/slabtrace.ko 2> /dev/null | grep -q '^fail_init:'; then \
		echo "make modules_install: $(BUILD) holds the test build (make test-modules): make modules first" >&2; \
		exit 1; \
	fi
	$(MAKE) -C $(KDIR) M=$(BUILD) $(KB_ARGS) INSTALL_MOD_DIR=extra modules_install
	@old=$$(ls $(INSTALL_MOD_PATH)/lib/modules/$$(cat $(KDIR)/include/config/kernel.release)/updates/slabtrace.ko* 2> /dev/null) || true; \
	for f in $$old; do \
		echo "make modules_install: removing $$f, an earlier install's, which would outrank extra/"; \
		rm -f "$$f"; \
	done
	$(if $(INSTALL_MOD_PATH),,depmod -a $$(cat $(KDIR)/include/config/kernel.release))

# A key of your own: SIGN_KEY=key.pem SIGN_CERT=cert.der (make sign says
# how to make one when there is none).
SIGN_KEY ?= /var/lib/dkms/mok.key
SIGN_CERT ?= /var/lib/dkms/mok.pub
sign: headers
	@scripts/package/sign-module.sh $(KDIR) $(BUILD)/slabtrace.ko $(SIGN_KEY) $(SIGN_CERT)

deb:
	scripts/package/deb.sh

# The test build (make test-modules): what it has more is checked too,
# and the VM tests that follow find their hooks in slabtrace.ko.
sparse: shadow
	+@scripts/kbuild/kbuild.sh $(KDIR) $(BUILD) $(KB_ARGS) SLABTRACE_TEST_MODULES=m C=2 modules

vm-test: test-modules
	scripts/vm/run.sh -o $(BUILD)/vm-out $(KVER) $(TESTS)

# The guest test "stress" for STRESS_SECS, with SLUB's red zones and
# poisoning (a cheap KASAN: Debian's kernels have none).
STRESS_SECS ?= 300
STRESS_KVER := $(or $(KVER),6.12)
stress:
	@scripts/deps/deps.sh vm
	@$(MAKE) --no-print-directory KVER=$(STRESS_KVER) test-modules
	rm -rf build/$(STRESS_KVER)/stress-out
	SLABTRACE_APPEND="slub_debug=FZPU init_on_free=1 stress_secs=$(STRESS_SECS) st_budget=$$(($(STRESS_SECS) + 600))$(if \
		$(STRESS_SEED), stress_seed=$(STRESS_SEED))" \
		scripts/vm/run.sh -k -t $$(($(STRESS_SECS) + 600)) \
		-o build/$(STRESS_KVER)/stress-out $(STRESS_KVER) stress

kunit:
	scripts/check/kunit.sh

checkpatch:
	scripts/lint/checkpatch.sh

bench:
	scripts/bench/bench.sh

bench-peers:
	scripts/bench/peers.sh

perf-frag:
	BENCH_PARTS=5 scripts/bench/peers.sh

check:
	scripts/check/check.sh

# The guest tests on the debug kernel (scripts/kernels/debug-kernel.sh builds it
# the first time), where a sleeping lock or an allocation in a hook, a
# use-after-free or a bad lock order is reported whatever the timing, and
# the splat fails the run: every test in one boot, lowmem in another.
check-debug:
	@scripts/deps/deps.sh debug
	@$(MAKE) --no-print-directory KVER=$(DEBUG_KVER) test-modules
	rm -rf build/$(DEBUG_KVER)/vm-out build/$(DEBUG_KVER)/vm-lowmem
	@rc=0; \
	scripts/vm/run.sh -o build/$(DEBUG_KVER)/vm-out $(DEBUG_KVER) $(VM_TESTS) || rc=1; \
	SLABTRACE_VM_MEM=256 scripts/vm/run.sh -o build/$(DEBUG_KVER)/vm-lowmem \
		$(DEBUG_KVER) lowmem || rc=1; \
	exit $$rc

check-debian:
	scripts/tests/test_realdeb.sh 6.12 6.1 6.12-deb13 7.3

check-all-kernels:
	scripts/check/check-all-kernels.sh

check-next:
	scripts/check/check-next.sh

compat:
	scripts/check/compat.sh '$(value COMPAT)'

demo:
	scripts/vm/demo.sh

clean:
	rm -rf build
	find . -path ./.git -prune -o \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -name '*.a' -o -name modules.order \
		-o -name Module.symvers -o -name .kbuild.log -o -name '.*.d' \) -print \
		| xargs rm -f
	rm -rf .tmp_versions
