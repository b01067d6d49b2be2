# SPDX-License-Identifier: GPL-2.0
#
# slabtrace: out-of-tree build and the project's commands.
#
#   make                  build slabtrace.ko here, for the running kernel
#   make KVER=6.1|6.12|6.1-rt|6.12-rt|6.1-arm64|6.12-arm64
#                         build in build/KVER/ against Debian's headers
#                         (fetched into ~/.cache/slabtrace, never installed;
#                         -arm64: cross-built with Debian's aarch64 gcc-12)
#   make modules_install  install for KDIR's kernel (then depmod)
#   make demo             boot a VM, load slabtrace and a leaky module
#   make check            every test: builds, checkpatch, sparse, KUnit, VMs
#   make kunit            the KUnit suite only (UML, kunit.py)
#   make bench            benchmarks (UML without KASAN/lockdep)
#   make bench-peers      slabtrace and kptrace against bcc, bpftrace, perf,
#                         strace in a Debian 6.12 VM (slow; not in check)
#   make vm-test KVER=... TESTS=a,b   some VM tests on one kernel
#   make stress [KVER=6.12] [STRESS_SECS=300] [STRESS_SEED=N]   the long
#                         stress run: the fuzzer for STRESS_SECS in a VM booted
#                         with slub_debug=FZPU init_on_free=1 (make check runs
#                         it for 45 s without them)
#   make tools            slabtrace, kmemtrace-record and kmemtrace-report in build/tools/
#   make install-tools    the slabtrace command and slabtrace(8) into PREFIX (/usr/local)
#   make compat [COMPAT=REGEX]   build against every 6.1/6.12 headers package
#                         the archive serves (build/compat.txt)
#   make clean

KVER ?=
KVERS := 6.1 6.12 6.1-rt 6.12-rt 6.1-arm64 6.12-arm64
ifneq ($(KVER),)
ifeq ($(filter $(KVER),$(KVERS)),)
$(error unknown KVER '$(KVER)': Debian's kernels are $(KVERS); without KVER, the running kernel)
endif
endif
ifeq ($(KVER),)
KDIR ?= /lib/modules/$(shell uname -r)/build
BUILD := $(CURDIR)
else
KDIR ?= $(shell $(CURDIR)/scripts/fetch-kernel.sh $(KVER))/build
BUILD := $(CURDIR)/build/$(KVER)
endif

# The guest's programs: for the kernel's arch, static, and on x86-64 also
# as 32-bit programs (NAME32) for the compat system calls.  arm64 guests
# get no 32-bit programs (Debian's arm-linux-gnueabihf compiler conflicts
# with gcc-multilib); the tests that need them skip, saying so.
ifneq ($(filter %-arm64,$(KVER)),)
CROSS_BIN := $(shell $(CURDIR)/scripts/fetch-cross.sh)
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
# scripts/clang-check.py.
ifneq ($(LLVM),)
ifneq ($(shell grep -qs '^CONFIG_CC_IS_CLANG=y' $(KDIR)/.config && echo y),y)
$(error LLVM=$(LLVM): the kernel in $(KDIR) was built with gcc ($(shell sed -n 's/^CONFIG_CC_VERSION_TEXT=//p' $(KDIR)/.config)), and a module must be built with the kernel's compiler; Debian's kernels are built with gcc-12, so LLVM=1 is not supported for them)
endif
endif

VM_TESTS ?= $(shell cd scripts/guest && ls *.sh | grep -v '^lib.sh$$' | grep -v '^lowmem' | sed 's/\.sh$$//' | paste -sd, -)
TESTS ?= $(VM_TESTS)

.PHONY: all headers modules test-modules modules_install clean check demo kunit \
	vm-test stress checkpatch sparse shadow bench bench-peers tools install-tools compat

all: modules

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
	@scripts/shadow-tree.sh $(BUILD)
endif

modules: shadow
	+@scripts/kbuild.sh $(KDIR) $(BUILD) $(KB_ARGS) modules

# slabtrace.ko plus what only the VM tests and the demo use: the leaky
# module, and the guest's test programs (static, any kernel of the arch),
# each also as a 32-bit program (NAME32) where GUEST_CC32 is set.
GUEST_PROGS := $(patsubst scripts/guest/%.c,%,$(wildcard scripts/guest/*.c))

test-modules: shadow
	+@scripts/kbuild.sh $(KDIR) $(BUILD) $(KB_ARGS) SLABTRACE_TEST_MODULES=m modules
	@cp $(BUILD)/scripts/demo/*.ko $(BUILD)/
	@mkdir -p $(BUILD)/bin
	@$(GUEST_CC) -static -O2 -Wall -Wextra -Werror -o $(BUILD)/bin/kmemtrace-record \
		scripts/kmemtrace/record.c
	@$(GUEST_CC) -static -O2 -Wall -Wextra -Werror -o $(BUILD)/bin/slabtrace \
		scripts/slabtrace.c
	@for p in $(GUEST_PROGS); do \
		$(GUEST_CC) -static -O2 -Wall -Wextra -Werror -o $(BUILD)/bin/$$p \
			scripts/guest/$$p.c || exit 1; \
		[ -z "$(GUEST_CC32)" ] || $(GUEST_CC32) -static -O2 -Wall -Wextra -Werror \
			-o $(BUILD)/bin/$${p}32 scripts/guest/$$p.c || exit 1; \
	done

# kmemtrace's userspace: the recorder (static, as in the guest) and the
# report (libbabeltrace2); the slabtrace command (static).
tools:
	@mkdir -p build/tools
	$(CC) -static -O2 -Wall -Wextra -Werror -o build/tools/slabtrace \
		scripts/slabtrace.c
	$(CC) -static -O2 -Wall -Wextra -Werror -o build/tools/kmemtrace-record \
		scripts/kmemtrace/record.c
	$(CC) -O2 -Wall -Wextra -Werror -o build/tools/kmemtrace-report \
		scripts/kmemtrace/report.c $$(pkg-config --cflags --libs babeltrace2)

# The slabtrace command alone (no libbabeltrace2 needed) and its man page.
PREFIX ?= /usr/local
install-tools:
	@mkdir -p build/tools
	$(CC) -static -O2 -Wall -Wextra -Werror -o build/tools/slabtrace \
		scripts/slabtrace.c
	install -D -m 0755 build/tools/slabtrace $(DESTDIR)$(PREFIX)/sbin/slabtrace
	install -D -m 0644 Documentation/slabtrace.8 \
		$(DESTDIR)$(PREFIX)/share/man/man8/slabtrace.8

modules_install:
	$(MAKE) -C $(KDIR) M=$(BUILD) $(KB_ARGS) modules_install

sparse: shadow
	+@scripts/kbuild.sh $(KDIR) $(BUILD) $(KB_ARGS) C=2 modules

vm-test: test-modules
	scripts/vm-run.sh -o $(BUILD)/vm-out $(KVER) $(TESTS)

# The guest test "stress" for STRESS_SECS, with SLUB's red zones and
# poisoning (a cheap KASAN: Debian's kernels have none).
STRESS_SECS ?= 300
STRESS_KVER := $(or $(KVER),6.12)
stress:
	@$(MAKE) --no-print-directory KVER=$(STRESS_KVER) test-modules
	rm -rf build/$(STRESS_KVER)/stress-out
	SLABTRACE_APPEND="slub_debug=FZPU init_on_free=1 stress_secs=$(STRESS_SECS)$(if \
		$(STRESS_SEED), stress_seed=$(STRESS_SEED))" \
		scripts/vm-run.sh -k -t $$(($(STRESS_SECS) + 600)) \
		-o build/$(STRESS_KVER)/stress-out $(STRESS_KVER) stress

kunit:
	scripts/kunit.sh

checkpatch:
	scripts/checkpatch.sh

bench:
	scripts/bench.sh

bench-peers:
	scripts/bench-peers.sh

check:
	scripts/check.sh

compat:
	scripts/compat.sh '$(value COMPAT)'

demo:
	scripts/demo.sh

clean:
	rm -rf build
	find . -path ./.git -prune -o \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -name '*.a' -o -name modules.order \
		-o -name Module.symvers -o -name .kbuild.log -o -name '.*.d' \) -print \
		| xargs rm -f
	rm -rf .tmp_versions
