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

# The release's version, dkms.conf's PACKAGE_VERSION: what --version says.
TOOLS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)
TOOLS_DEFS := -DSLABTRACE_VERSION='"$(TOOLS_VERSION)"'

TOOLS_LIB := scripts/tools/lib/stfiles.c scripts/tools/lib/escape.c \
	scripts/tools/lib/dump.c scripts/tools/lib/pprof.c
SLABTRACE_SRCS := $(sort $(wildcard scripts/tools/slabtrace/*.c)) $(TOOLS_LIB)
KMEMTRACE_RECORD_SRCS := scripts/tools/kmemtrace/record.c scripts/tools/lib/stfiles.c
KMEMTRACE_REPORT_SRCS := scripts/tools/kmemtrace/report.c $(TOOLS_LIB)
TOOLS_HDRS := $(wildcard scripts/tools/lib/*.h scripts/tools/slabtrace/*.h)

# What the tools need beyond libc: protoc-c (protobuf-c-compiler) and the
# libraries of protobuf-c and zlib (libprotobuf-c-dev, zlib1g-dev) for
# --pprof; libbabeltrace2 (libbabeltrace2-dev, found by pkg-config) for
# kmemtrace-report.  Without them a build leaves out what needs them,
# saying so; with TOOLS_REQUIRE=1 (the Debian package's build) it fails
# instead, so that no package loses a feature its man pages describe.
PROTOC_C ?= protoc-c
PKG_CONFIG ?= pkg-config
TOOLS_REQUIRE ?=
# The Debian packages each needs (debian/control's Build-Depends has them).
PPROF_DEPS := protobuf-c-compiler libprotobuf-c-dev zlib1g-dev
REPORT_DEPS := libbabeltrace2-dev pkg-config
# $(call tools_missing,WHAT): say WHAT is left out, or fail with TOOLS_REQUIRE=1.
tools_missing = $(if $(filter 1,$(TOOLS_REQUIRE)),echo "make tools: $(1) (TOOLS_REQUIRE=1: the build fails rather than lose it)" >&2; exit 1,echo "make tools: $(1)")

# $(call build_slabtrace,CC,OUTPUT,GENDIR,CFLAGS,STATIC): the slabtrace
# command, linked with STATIC (-static, or nothing).  With --pprof when
# protoc-c is there and CC finds the libraries of protobuf-c and zlib
# (static ones with -static); else without it (the arm64 guests), saying so.
pprof_ok = command -v $(PROTOC_C) > /dev/null && \
	[ -f "$$($(1) -print-file-name=libprotobuf-c.$(if $(2),a,so))" ] && \
	[ -f "$$($(1) -print-file-name=libz.$(if $(2),a,so))" ]

define build_slabtrace
	@mkdir -p $(3) $(dir $(2))
	@if $(call pprof_ok,$(1),$(5)); then \
		set -e; \
		$(PROTOC_C) --c_out=$(3) --proto_path=scripts/tools/lib profile.proto; \
		sed -n 's/^typedef struct \(Perftools__Profiles__\)\([A-Za-z]*\) .*/typedef struct \1\2 pb_\L\2_t;/p' \
			$(3)/profile.pb-c.h > $(3)/profile-types.h; \
		echo "$(1) $(5) $(4) -DSLABTRACE_PPROF -o $(2) ... -lprotobuf-c -lz"; \
		$(1) $(5) $(4) $(TOOLS_DEFS) -DSLABTRACE_PPROF -I$(3) -o $(2) $(SLABTRACE_SRCS) \
			$(3)/profile.pb-c.c -lprotobuf-c -lz -lm; \
	else \
		$(call tools_missing,$(2): built without --pprof: it needs $(PPROF_DEPS) for $(1)); \
		$(1) $(5) $(4) $(TOOLS_DEFS) -o $(2) $(SLABTRACE_SRCS) -lm; \
	fi
endef

# $(call build_kmt_report,CC,OUTPUT,GENDIR,CFLAGS): kmemtrace-report, with
# libbabeltrace2 (dynamic), and --pprof as for build_slabtrace (GENDIR
# holds what build_slabtrace generated).
define build_kmt_report
	@if ! $(PKG_CONFIG) --exists babeltrace2; then \
		rm -f $(2); \
		$(call tools_missing,$(2): not built: it needs $(REPORT_DEPS)); \
	elif $(call pprof_ok,$(1)) && [ -f $(3)/profile.pb-c.c ]; then \
		echo "$(1) $(4) -DSLABTRACE_PPROF -o $(2) ... -lbabeltrace2 -lprotobuf-c -lz"; \
		$(1) $(4) $(TOOLS_DEFS) -DSLABTRACE_PPROF -I$(3) -o $(2) $(KMEMTRACE_REPORT_SRCS) \
			$(3)/profile.pb-c.c $$($(PKG_CONFIG) --cflags --libs babeltrace2) \
			-lprotobuf-c -lz; \
	else \
		$(call tools_missing,$(2): built without --pprof: it needs $(PPROF_DEPS)); \
		$(1) $(4) $(TOOLS_DEFS) -o $(2) $(KMEMTRACE_REPORT_SRCS) $$($(PKG_CONFIG) --cflags --libs babeltrace2); \
	fi
endef
