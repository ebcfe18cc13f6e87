# awkit: block atomic writes for Debian 12's kernels. `make help` lists targets.
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
ifdef KVER
KVERS := $(KVER)
else
KVERS = $(shell sh tests/qemu/kernels.sh)
endif
MODULE_DIRS := awscsi awblk engines awfs
MODULE_SRC := Kbuild include compat $(MODULE_DIRS)
HOSTCC ?= gcc
CFLAGS_HOST := -O2 -g -Wall -Wextra -Werror -Iinclude -Iawscsi
UNIT_TESTS := $(patsubst tests/unit/%.c,build/unit/%,$(wildcard tests/unit/test_*.c))
TOOLS := build/tools/awtorn build/tools/awcrash build/tools/awbench build/tools/awfsx build/tools/awpgcrash \
	build/tools/aw32 build/tools/awremoverace build/tools/awstable build/tools/awcreatefault \
	build/tools/awlowerrace

include tools/tools.mk

.PHONY: all modules unit tools check crash demo bench deps dkms-install dkms-remove clean help

all: modules tools

help:
	@echo "make            build the modules for every target kernel ($(KVERS)) and the tools"
	@echo "make KVER=...   build for one kernel"
	@echo "make deps       install what awkit needs from Debian's packages"
	@echo "make check      unit tests, build, DKMS install, then the QEMU guest cases on each kernel"
	@echo "make check CASE=name   run one guest case (or a pattern: CASE='4*')"
	@echo "make check BUSY=2   the same beside 2 CPU hogs (a loaded machine), with time limits x3"
	@echo "make check PARALLEL=1   the kernels side by side, limits x2 (default: one after the other)"
	@echo "make crash      the sw engine's long power-cut run: CUTS per kernel (500), SEED;"
	@echo "                CASE=60-pg-powercut or 61-mariadb-powercut: the databases' (CUTS per engine)"
	@echo "make demo       boot a guest and show atomic limits and a power-cut run"
	@echo "make bench      benchmarks, side by side with the kernel's peers: PROFILE=cpu|disk (both),"
	@echo "                ONLY=sw, awfs, untorn, pass, db or a list such as sw,awfs (those rows;"
	@echo "                db: PostgreSQL and MariaDB, only when named), QUICK=1 (three short runs a side)"
	@echo "make dkms-install / dkms-remove   install or remove the awkit DKMS package"
	@echo "make install-tools [PREFIX=/usr/local]   install awctl, libaw and its header"

deps:
	@sh tests/qemu/deps.sh

# Each kernel builds in its own copy of the sources, so both can coexist.
modules:
	@set -e; for k in $(KVERS); do \
		mkdir -p build/$$k; \
		cp -rup $(MODULE_SRC) build/$$k/; \
		echo "== building modules for $$k"; \
		$(MAKE) -s -C /lib/modules/$$k/build M=$(CURDIR)/build/$$k W=1 modules \
			>build/$$k/build.log 2>&1 || { cat build/$$k/build.log; exit 1; }; \
		if grep -iE 'warning:|error:' build/$$k/build.log; then \
			echo "build for $$k has compiler warnings"; exit 1; fi; \
		ls build/$$k/*/*.ko build/$$k/engines/*/*.ko; \
	done

# The pure files build into the modules and, on the kernel-header shim
# (tools/include/, AW_SHIM from tools/tools.mk), into the host tests.
PURE_SRC := awscsi/awscsi_logic.c engines/scsi/scsi_vpd.c awblk/awblk_logic.c \
	engines/nvme/nvme_identify.c engines/sw/sw_format.c awfs/awfs_logic.c
PURE_HDR := awscsi/awscsi_logic.h engines/scsi/scsi_vpd.h awblk/awblk_logic.h \
	engines/nvme/nvme_identify.h engines/sw/sw_format.h awfs/awfs_logic.h \
	include/aw_pure.h include/aw_limits.h

build/unit/%: tests/unit/%.c tests/unit/check.h $(PURE_SRC) $(PURE_HDR) \
		$(AW_SW_HOST) $(AW_SW_HOST_HDR) $(AW_SHIM_HDR)
	@mkdir -p build/unit
	$(HOSTCC) $(AW_SHIM) $(CFLAGS_HOST) -Iawblk -Iengines/scsi \
		-Iengines/nvme -Iengines/sw -Iawfs -Itools -o $@ $< \
		$(PURE_SRC) $(AW_SW_HOST)

# Host tests of tools too: awctl format on image files.
UNIT_SCRIPTS := $(wildcard tests/unit/test_*.sh)

unit: $(UNIT_TESTS) build/tools/awctl
	@set -e; for t in $(UNIT_TESTS); do echo "== $$t"; $$t; done; \
	for t in $(UNIT_SCRIPTS); do echo "== $$t"; sh $$t build/tools/awctl; done

build/tools/%: tests/tools/%.c tests/tools/stamp.h tests/tools/pagever.h
	@mkdir -p build/tools
	$(HOSTCC) $(CFLAGS_HOST) -pthread -o $@ $<

tools: $(TOOLS) awtools

build/tools/awbench: tests/bench/awbench.c tools/libaw.h build/lib/libaw.a
	@mkdir -p build/tools
	$(HOSTCC) $(AW_CFLAGS) -pthread -o $@ $< build/lib/libaw.a

# A 32-bit caller of libaw and the ioctls (gcc-multilib), static: the guest
# needs no 32-bit loader.
build/tools/aw32: tests/tools/aw32.c tools/libaw.c tools/libaw.h include/uapi/awkit.h include/uapi/awfs.h
	@mkdir -p build/tools
	$(HOSTCC) -m32 -static -D_FILE_OFFSET_BITS=64 $(AW_CFLAGS) -o $@ $< tools/libaw.c

dkms-install: deps
	@sh tests/qemu/dkms.sh install $(VERSION) $(KVERS)

dkms-remove:
	@sh tests/qemu/dkms.sh remove $(VERSION)

check: deps
	@$(MAKE) --no-print-directory unit
	@$(MAKE) --no-print-directory modules tools
	@$(MAKE) --no-print-directory dkms-install
	@sh tests/qemu/selftest.sh
	@KVERS="$(KVERS)" AW_PARALLEL=$(PARALLEL) $(if $(BUSY),AW_SLOW=3 sh tests/qemu/busy.sh $(BUSY)) bash tests/qemu/run.sh check $(CASE)

# The software engine's long power-cut run (41-awsw-crash with CUTS cuts of
# atomic writes per kernel, so 1000 in all by default, about 20 minutes per
# kernel under TCG); prints each kernel's cut count, seed and result. CASE
# picks another power-cut case (60-pg-powercut, 61-mariadb-powercut: CUTS
# per engine, about 25 s a trial).
CUTS ?= 500
PARALLEL ?= 0
crash: deps
	@$(MAKE) --no-print-directory modules tools
	@KVERS="$(KVERS)" AW_CRASH_CUTS=$(CUTS) AWKIT_SEED=$(SEED) bash tests/qemu/run.sh crash $(CASE)

demo: deps
	@$(MAKE) --no-print-directory modules tools
	@KVERS="$(lastword $(KVERS))" bash tests/qemu/run.sh demo

# Benchmark profiles: cpu (inline devices), disk (latency and flush cost).
PROFILE ?= cpu disk
comma := ,
space := $(empty) $(empty)
bench: deps
	@$(MAKE) --no-print-directory modules tools
	@KVERS="$(KVERS)" AWKIT_BENCH_ONLY="$(ONLY)" AWKIT_BENCH_PROFILE="$(subst $(space),$(comma),$(PROFILE))" \
		bash tests/qemu/run.sh bench $(if $(QUICK),quick)

clean:
	rm -rf build
