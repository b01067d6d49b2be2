# SPDX-License-Identifier: GPL-2.0
#
# The user tools (included by the Makefile): what they are made of, and
# how the slabtrace command is built, for the host (make tools) and for the
# test VMs (make test-modules).
#
# scripts/tools/lib/ is the tools' small library: the module's files
# (stfiles.c), escaping, the one parser of the dump (dump.c) and the pprof
# encoder (pprof.c, protobuf-c's code generated from profile.proto into a
# build directory, never kept in the repository, with profile-types.h:
# lowercase names, pb_sample_t..., for its CamelCase types).

TOOLS_LIB := scripts/tools/lib/stfiles.c scripts/tools/lib/escape.c \
	scripts/tools/lib/dump.c scripts/tools/lib/pprof.c
SLABTRACE_SRCS := $(sort $(wildcard scripts/tools/slabtrace/*.c)) $(TOOLS_LIB)
KMT_RECORD_SRCS := scripts/tools/kmemtrace/record.c scripts/tools/lib/stfiles.c
KMT_REPORT_SRCS := scripts/tools/kmemtrace/report.c $(TOOLS_LIB)
TOOLS_HDRS := $(wildcard scripts/tools/lib/*.h scripts/tools/slabtrace/*.h)

# $(call build_slabtrace,CC,OUTPUT,GENDIR,CFLAGS,STATIC): the slabtrace
# command, linked with STATIC (-static, or nothing).  With --pprof when
# protoc-c is there and CC finds the static
# libraries of protobuf-c and zlib (Debian's libprotobuf-c-dev and
# zlib1g-dev: the host's); else without it (the arm64 guests), saying so.
pprof_ok = command -v protoc-c > /dev/null && \
	[ -f "$$($(1) -print-file-name=libprotobuf-c.a)" ] && \
	[ -f "$$($(1) -print-file-name=libz.a)" ]

define build_slabtrace
	@mkdir -p $(3) $(dir $(2))
	@if $(call pprof_ok,$(1)); then \
		set -e; \
		protoc-c --c_out=$(3) --proto_path=scripts/tools/lib profile.proto; \
		sed -n 's/^typedef struct \(Perftools__Profiles__\)\([A-Za-z]*\) .*/typedef struct \1\2 pb_\L\2_t;/p' \
			$(3)/profile.pb-c.h > $(3)/profile-types.h; \
		echo "$(1) $(5) $(4) -DSLABTRACE_PPROF -o $(2) ... -lprotobuf-c -lz"; \
		$(1) $(5) $(4) -DSLABTRACE_PPROF -I$(3) -o $(2) $(SLABTRACE_SRCS) \
			$(3)/profile.pb-c.c -lprotobuf-c -lz -lm; \
	else \
		echo "$(2): built without --pprof (it needs protobuf-c-compiler, and libprotobuf-c-dev and zlib1g-dev for $(1))"; \
		$(1) $(5) $(4) -o $(2) $(SLABTRACE_SRCS) -lm; \
	fi
endef

# $(call build_kmt_report,CC,OUTPUT,GENDIR,CFLAGS): kmemtrace-report, with
# libbabeltrace2 (dynamic), and --pprof as for build_slabtrace (GENDIR
# holds what build_slabtrace generated).
define build_kmt_report
	@if ! pkg-config --exists babeltrace2; then \
		rm -f $(2); \
		echo "make tools: kmemtrace-report not built: it needs libbabeltrace2 (apt install libbabeltrace2-dev)"; \
	elif $(call pprof_ok,$(1)) && [ -f $(3)/profile.pb-c.c ]; then \
		echo "$(1) $(4) -DSLABTRACE_PPROF -o $(2) ... -lbabeltrace2 -lprotobuf-c -lz"; \
		$(1) $(4) -DSLABTRACE_PPROF -I$(3) -o $(2) $(KMT_REPORT_SRCS) \
			$(3)/profile.pb-c.c $$(pkg-config --cflags --libs babeltrace2) \
			-lprotobuf-c -lz; \
	else \
		echo "$(2): built without --pprof (it needs protobuf-c-compiler, libprotobuf-c-dev and zlib1g-dev)"; \
		$(1) $(4) -o $(2) $(KMT_REPORT_SRCS) $$(pkg-config --cflags --libs babeltrace2); \
	fi
endef
