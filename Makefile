# SPDX-License-Identifier: GPL-2.0
#
# slabtrace: out-of-tree build and the project's commands.
#
#   make                  build slabtrace.ko here, for the running kernel
#   make KVER=6.1|6.12|6.1-rt|6.12-rt   build in build/KVER/ against Debian's headers
#                         (fetched into ~/.cache/slabtrace, never installed)
#   make modules_install  install for KDIR's kernel (then depmod)
#   make demo             boot a VM, load slabtrace and a leaky module
#   make check            every test: builds, checkpatch, sparse, KUnit, VMs
#   make kunit            the KUnit suite only (UML, kunit.py)
#   make bench            benchmarks (UML without KASAN/lockdep)
#   make bench-peers      slabtrace and kptrace against bcc, bpftrace, perf,
#                         strace in a Debian 6.12 VM (slow; not in check)
#   make vm-test KVER=... TESTS=a,b   some VM tests on one kernel
#   make tools            kmemtrace-record and kmemtrace-report in build/tools/
#   make clean

KVER ?=
ifeq ($(KVER),)
KDIR ?= /lib/modules/$(shell uname -r)/build
BUILD := $(CURDIR)
else
KDIR ?= $(shell $(CURDIR)/scripts/fetch-kernel.sh $(KVER))/build
BUILD := $(CURDIR)/build/$(KVER)
endif

VM_TESTS ?= $(shell cd scripts/guest && ls *.sh | grep -v '^lib.sh$$' | grep -v '^lowmem.sh$$' | sed 's/\.sh$$//' | paste -sd, -)
TESTS ?= $(VM_TESTS)

.PHONY: all modules test-modules modules_install clean check demo kunit \
	vm-test checkpatch sparse shadow bench bench-peers tools

all: modules

shadow:
ifneq ($(BUILD),$(CURDIR))
	@scripts/shadow-tree.sh $(BUILD)
endif

modules: shadow
	@scripts/kbuild.sh $(KDIR) $(BUILD) modules

# slabtrace.ko plus what only the VM tests and the demo use: the leaky
# module, and the guest's test programs (static, any kernel), each also
# as a 32-bit program (NAME32) for the compat system calls.
GUEST_PROGS := $(patsubst scripts/guest/%.c,%,$(wildcard scripts/guest/*.c))

test-modules: shadow
	@scripts/kbuild.sh $(KDIR) $(BUILD) SLABTRACE_TEST_MODULES=m modules
	@cp $(BUILD)/scripts/demo/*.ko $(BUILD)/
	@mkdir -p $(BUILD)/bin
	@$(CC) -static -O2 -Wall -Wextra -Werror -o $(BUILD)/bin/kmemtrace-record \
		scripts/kmemtrace/record.c
	@for p in $(GUEST_PROGS); do \
		$(CC) -static -O2 -Wall -Wextra -Werror -o $(BUILD)/bin/$$p \
			scripts/guest/$$p.c || exit 1; \
		$(CC) -m32 -static -O2 -Wall -Wextra -Werror \
			-o $(BUILD)/bin/$${p}32 scripts/guest/$$p.c || exit 1; \
	done

# kmemtrace's userspace: the recorder (static, as in the guest) and the
# report (libbabeltrace2).
tools:
	@mkdir -p build/tools
	$(CC) -static -O2 -Wall -Wextra -Werror -o build/tools/kmemtrace-record \
		scripts/kmemtrace/record.c
	$(CC) -O2 -Wall -Wextra -Werror -o build/tools/kmemtrace-report \
		scripts/kmemtrace/report.c $$(pkg-config --cflags --libs babeltrace2)

modules_install:
	$(MAKE) -C $(KDIR) M=$(BUILD) modules_install

sparse: shadow
	@scripts/kbuild.sh $(KDIR) $(BUILD) C=2 modules

vm-test: test-modules
	scripts/vm-run.sh -o $(BUILD)/vm-out $(KVER) $(TESTS)

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

demo:
	scripts/demo.sh

clean:
	rm -rf build
	find . -path ./.git -prune -o \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -name '*.a' -o -name modules.order \
		-o -name Module.symvers -o -name .kbuild.log -o -name '.*.d' \) -print \
		| xargs rm -f
	rm -rf .tmp_versions
