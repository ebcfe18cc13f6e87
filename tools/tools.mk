# tools/tools.mk: libaw, awctl and their test programs.
#
# The top Makefile includes it (`include tools/tools.mk`, anywhere: it keeps
# the includer's default goal); it also runs alone from the top of the tree:
#	make -f tools/tools.mk awtools
#	make -f tools/tools.mk install-tools PREFIX=/usr DESTDIR=/tmp/stage
# Paths are relative to the top of the tree; everything is built in build/.

aw_goal := $(.DEFAULT_GOAL)

HOSTCC ?= gcc
PREFIX ?= /usr/local
AW_VERSION ?= $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
AW_CFLAGS := -O2 -g -Wall -Wextra -Werror -Iinclude/uapi -Itools
# The host's stand-ins for the kernel headers that the pure files (see
# include/aw_pure.h) include: first in the search, before the system's.
AW_SHIM := -Itools/include
AW_SHIM_HDR := $(wildcard tools/include/*/*.h)
# What host programs add to the software engine's pure format code.
AW_SW_HOST := tools/sw_format_host.c
AW_SW_HOST_HDR := tools/sw_format_host.h
AW_UAPI := include/uapi/awkit.h
AW_TOOLS := build/tools/awctl build/lib/libaw.so.0 build/lib/libaw.so \
	build/lib/libaw.a build/lib/aw.pc build/tools/awfuzz \
	build/tools/aw_libtest

.PHONY: awtools install-tools

awtools: $(AW_TOOLS)

# One position-independent object for both libraries; only AW_API exported.
build/lib/libaw.o: tools/libaw.c tools/libaw.h $(AW_UAPI)
	@mkdir -p build/lib
	$(HOSTCC) $(AW_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

build/lib/libaw.so.0: build/lib/libaw.o
	$(HOSTCC) -shared -Wl,-soname,libaw.so.0 -Wl,-z,defs -o $@ $<

build/lib/libaw.so: build/lib/libaw.so.0
	ln -sf libaw.so.0 $@

build/lib/libaw.a: build/lib/libaw.o
	rm -f $@
	ar rcs $@ $<

aw_pc = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(AW_VERSION)|' $(1)

build/lib/aw.pc: tools/aw.pc.in tools/tools.mk
	@mkdir -p build/lib
	$(call aw_pc,$<) >$@

# awctl carries libaw in it: nothing to find at run time. It also links
# engines/sw/sw_format.c, the code the kernel reads its superblocks with,
# built on the shim, and the host-only tools/sw_format_host.c.
build/tools/awctl: tools/awctl.c tools/nvme_id.c tools/nvme_id.h tools/libaw.h \
		engines/sw/sw_format.c engines/sw/sw_format.h include/aw_pure.h \
		$(AW_SW_HOST) $(AW_SW_HOST_HDR) $(AW_SHIM_HDR) \
		$(AW_UAPI) build/lib/libaw.a
	@mkdir -p build/tools
	$(HOSTCC) $(AW_SHIM) $(AW_CFLAGS) -Iinclude -Iengines/sw -o $@ $< \
		tools/nvme_id.c engines/sw/sw_format.c $(AW_SW_HOST) \
		build/lib/libaw.a

build/tools/awfuzz: tests/tools/awfuzz.c $(AW_UAPI)
	@mkdir -p build/tools
	$(HOSTCC) $(AW_CFLAGS) -o $@ $<

# The library test links the shared library, found next door in build/lib.
build/tools/aw_libtest: tests/tools/aw_libtest.c tools/libaw.h $(AW_UAPI) \
		build/lib/libaw.so
	@mkdir -p build/tools
	$(HOSTCC) $(AW_CFLAGS) -o $@ $< -Lbuild/lib -law \
		-Wl,-rpath,'$$ORIGIN/../lib'

install-tools: awtools
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/include
	install -m 0755 build/tools/awctl $(DESTDIR)$(PREFIX)/sbin/awctl
	install -m 0755 build/lib/libaw.so.0 $(DESTDIR)$(PREFIX)/lib/libaw.so.0
	ln -sf libaw.so.0 $(DESTDIR)$(PREFIX)/lib/libaw.so
	install -m 0644 build/lib/libaw.a $(DESTDIR)$(PREFIX)/lib/libaw.a
	install -m 0644 tools/libaw.h $(DESTDIR)$(PREFIX)/include/libaw.h
	install -m 0644 $(AW_UAPI) $(DESTDIR)$(PREFIX)/include/awkit.h
	$(call aw_pc,tools/aw.pc.in) >$(DESTDIR)$(PREFIX)/lib/pkgconfig/aw.pc

# Included: give the includer its default goal back. Alone: build the tools.
ifeq ($(firstword $(MAKEFILE_LIST)),$(lastword $(MAKEFILE_LIST)))
.DEFAULT_GOAL := awtools
else
.DEFAULT_GOAL := $(aw_goal)
endif
