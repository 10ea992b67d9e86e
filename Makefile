# SPDX-License-Identifier: GPL-2.0
# A thin wrapper: the module is built by Kbuild, userspace by its own
# Makefile; then install, DKMS, Debian packages, preflight and signing.
# The test matrix's targets (check, suite, vm-run, lint, bench, ...) are
# in tests/matrix.mk, included at the end.

KDIR ?= /lib/modules/$(shell uname -r)/build
PREFIX ?= /usr/local
# Plain `make` builds userspace always, and the module when KDIR holds a
# kernel build tree; without one it says, in one line, what the module
# needs and leaves it out (exit 0).  `make module` and `make install` need it.
KREL_RUNNING := $(shell uname -r)
ifeq ($(origin KDIR),file)
NO_KDIR = no kernel headers at $(KDIR): apt install linux-headers-$(KREL_RUNNING) (or make KDIR=/path/to/kernel/build)
else
NO_KDIR = KDIR=$(KDIR) is not a kernel build tree (no Makefile there): point KDIR at one, e.g. /lib/modules/RELEASE/build
endif
HAVE_KDIR = $(wildcard $(KDIR)/Makefile)

all: userspace $(if $(HAVE_KDIR),module,module-skipped)

module-skipped: userspace
	@echo "module: not built: $(NO_KDIR)" >&2

module:
	@$(if $(HAVE_KDIR),:,echo "module: error: $(NO_KDIR)" >&2; exit 1)
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

userspace:
	$(MAKE) -C userspace

# install and uninstall mirror each other: the module (kbuild's
# modules_install, into lib/modules/RELEASE/updates, or extra before Linux
# 6.4, or INSTALL_MOD_DIR) and depmod, then userspace (PREFIX, DESTDIR).
# INSTALL_MOD_PATH stages the module as kbuild's does (depmod -b there).
# RELEASE is KDIR's kernel's, not necessarily the running one: R of a
# KDIR /lib/modules/R/build (Debian's headers: their kernel.release is
# the upstream version), else the tree's include/config/kernel.release.
KREL = $(or $(patsubst /lib/modules/%/build,%,$(filter /lib/modules/%/build,$(KDIR:%/=%))),$(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null),$(KREL_RUNNING))
MODDIR = $(INSTALL_MOD_PATH)/lib/modules/$(KREL)
DEPMOD ?= depmod
# depmod only where the release's module tree exists (a staging
# INSTALL_MOD_PATH may hold nothing else).
run_depmod = if [ -e $(MODDIR)/modules.order ] || [ -z "$(INSTALL_MOD_PATH)" ]; then \
	$(DEPMOD) $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) -a $(KREL); fi

install: module userspace
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	$(run_depmod)
	$(MAKE) -C userspace install PREFIX=$(PREFIX)

uninstall:
	rm -f $(foreach d,updates extra $(INSTALL_MOD_DIR),$(MODDIR)/$(d)/execns.ko $(MODDIR)/$(d)/execns.ko.xz $(MODDIR)/$(d)/execns.ko.zst $(MODDIR)/$(d)/execns.ko.gz)
	for d in updates extra; do [ ! -d $(MODDIR)/$$d ] || rmdir --ignore-fail-on-non-empty $(MODDIR)/$$d; done
	@if [ -d $(MODDIR) ]; then $(run_depmod); fi
	$(MAKE) -C userspace uninstall PREFIX=$(PREFIX)

VERSION := $(shell cat VERSION)
# DKMS: the module's sources (no objects, no compat-probe.h of another
# kernel) in DKMS_SRCTREE/execns-VERSION, then dkms add, build and install
# for DKMS_KERNEL (the running kernel by default, as dkms's).  Running it
# again replaces an earlier add of the same version.  DKMS may carry dkms's
# options: tests/harness/dkms-check.sh runs this target in the build root
# with private trees, e.g.
# make dkms-install DKMS="dkms --dkmstree T --sourcetree S --installtree I" \
#	DKMS_SRCTREE=S DKMS_KERNEL=6.1.0-57-amd64
# dkms-src alone copies the sources to DKMS_SRC (the Debian package's
# execns-dkms takes them so).
DKMS ?= dkms
DKMS_SRCTREE ?= /usr/src
DKMS_KERNEL ?= $(shell uname -r)
DKMS_SRC ?= $(DKMS_SRCTREE)/execns-$(VERSION)
DKMS_FILES := $(filter-out module/compat-probe.h,$(wildcard module/*.c module/*.h module/*.sh module/arch/*/*.[ch] module/arch/*/*.mk module/uapi/*.h))
dkms-src:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp Kbuild VERSION dkms.conf $(DKMS_SRC)/
	cp --parents $(DKMS_FILES) $(DKMS_SRC)/

dkms-install:
	if [ -n "$$($(DKMS) status -m execns -v $(VERSION))" ]; then \
		$(DKMS) remove -m execns -v $(VERSION) --all; fi
	$(MAKE) dkms-src
	$(DKMS) add -m execns -v $(VERSION)
	$(DKMS) build -m execns -v $(VERSION) -k $(DKMS_KERNEL)
	$(DKMS) install -m execns -v $(VERSION) -k $(DKMS_KERNEL)

# Debian packages: execns-dkms (the module's sources, for DKMS, and the
# modprobe.d and modules-load.d examples of packaging/examples; arch all),
# execns (CLI, execns.1, execns.2), libexecns0 and libexecns-dev, and the
# source package (native: execns_VERSION.dsc and .tar.xz, which carries
# the autopkgtests, debian/tests/), built with dpkg-buildpackage -us -uc
# from a copy of the tree with packaging/debian as its debian/, in
# DEB_DIR/execns-VERSION; the .debs, the source package and the .changes
# that lists them all land in DEB_DIR.  Needs dpkg-dev, debhelper and
# dh-dkms; tests/harness/deb-check.sh builds them in the build root, runs
# lintian on the source and the binaries, installs them, has DKMS build
# the module for the matrix's kernels and runs the autopkgtests.
DEB_DIR ?= build/deb
DEB_TREE := $(DEB_DIR)/execns-$(VERSION)
deb:
	@command -v dpkg-buildpackage >/dev/null && command -v dh_dkms >/dev/null || \
		{ echo "deb: error: dpkg-buildpackage or dh_dkms missing: apt install dpkg-dev debhelper dh-dkms" >&2; exit 1; }
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_TREE)
	tar -c --exclude=build --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		Kbuild Makefile VERSION dkms.conf module userspace $(wildcard docs/*.[1-9]) \
		tracing packaging/examples COPYING LICENSES | tar -x -C $(DEB_TREE)
	cp -r packaging/debian $(DEB_TREE)/debian
	cd $(DEB_TREE) && dpkg-buildpackage -us -uc
	@ls $(DEB_DIR)/*.dsc $(DEB_DIR)/*.deb

# Whether execns.ko can be built, loaded and used on the running kernel
# (userspace/execns-preflight, installed beside the CLI): for the tree's
# execns.ko once it is built; PREFLIGHT= passes it options, e.g.
# make preflight PREFLIGHT='--syscall-nr 401'.
preflight:
	@sh userspace/execns-preflight $(if $(wildcard execns.ko),--module execns.ko) $(PREFLIGHT)

# Sign the built execns.ko for a machine that enforces module signatures
# (docs/signing.md): make sign KEY=key.pem CERT=cert.der [KO=execns.ko],
# with the kernel's own scripts/sign-file (from its headers).
SIGN_HASH ?= sha256
SIGN_FILE ?= $(KDIR)/scripts/sign-file
KO ?= execns.ko
sign:
	@test -n "$(KEY)" && test -n "$(CERT)" || \
		{ echo "make sign: KEY= and CERT= are needed: make sign KEY=key.pem CERT=cert.der (docs/signing.md)" >&2; exit 2; }
	@test -r "$(KO)" || { echo "make sign: no $(KO) to sign: build it first (make module)" >&2; exit 2; }
	@test -x "$(SIGN_FILE)" || { echo "make sign: no $(SIGN_FILE): install the kernel headers (linux-headers-$$(uname -r)) or give SIGN_FILE=" >&2; exit 2; }
	$(SIGN_FILE) $(SIGN_HASH) $(KEY) $(CERT) $(KO)

# A kernel developer's checks before posting, against KDIR's tree:
# checkpatch --strict --codespell on module/ (CHECKPATCH= where KDIR has
# no scripts/checkpatch.pl: Debian's headers do not ship it, its
# linux-source-X.Y does), and sparse on every file with W=1.
# Three files keep a layout that --strict flags, and only they are
# checked without those types: uapi/execns.h picks the syscall number of
# the ABI a user program is compiled for by the compiler's own
# architecture macros, as a uapi header must (ARCH_DEFINES); trace.h's events are laid out as the
# kernel's trace headers are (samples/trace_events/): TP_PROTO() and the
# rest one tab in under TRACE_EVENT(, not under its parenthesis
# (PARENTHESIS_ALIGNMENT), and TP_STRUCT__entry( and TP_fast_assign(
# ending their lines (OPEN_ENDED_LINE); compat.h's for-each macros
# assign and test their cursor argument in the loop, as list.h's do
# (MACRO_ARG_REUSE).  Every file's findings are shown before make fails.
CHECKPATCH ?= $(KDIR)/scripts/checkpatch.pl
# checkpatch finds codespell's dictionary through python3, which may not be
# the one Debian's codespell package is for (a pyenv's): name it directly.
CODESPELL_DICT ?= $(firstword $(wildcard /usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt /usr/share/codespell/dictionary.txt))
CHECKPATCH_STRICT = perl $(CHECKPATCH) --no-tree --strict --codespell \
	$(if $(CODESPELL_DICT),--codespellfile $(CODESPELL_DICT)) --ignore FILE_PATH_CHANGES
STYLE_FILES = $(filter-out module/compat.h module/trace.h,$(wildcard module/*.[ch] module/arch/*/*.[ch]))
style:
	@test -x "$(CHECKPATCH)" || test -r "$(CHECKPATCH)" || \
		{ echo "make style: no $(CHECKPATCH): give CHECKPATCH=/path/to/linux/scripts/checkpatch.pl (Debian: linux-source-X.Y has it)" >&2; exit 2; }
	rc=0; \
	$(CHECKPATCH_STRICT) -f $(STYLE_FILES) || rc=1; \
	$(CHECKPATCH_STRICT) --ignore MACRO_ARG_REUSE -f module/compat.h || rc=1; \
	$(CHECKPATCH_STRICT) --ignore PARENTHESIS_ALIGNMENT,OPEN_ENDED_LINE -f module/trace.h || rc=1; \
	$(CHECKPATCH_STRICT) --ignore ARCH_DEFINES -f module/uapi/execns.h || rc=1; \
	exit $$rc

sparse:
	@command -v sparse >/dev/null || { echo "make sparse: no sparse: apt install sparse" >&2; exit 2; }
	@$(if $(HAVE_KDIR),:,echo "make sparse: error: $(NO_KDIR)" >&2; exit 1)
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 W=1 modules

# make help: one line per target.
help:
	@printf '%-15s %s\n' \
		all 'userspace, and the module when KDIR holds a kernel build tree' \
		module 'execns.ko against KDIR (default: the running kernel'"'"'s headers)' \
		userspace 'the execns CLI, libexecns and execns-preflight' \
		install 'the module (and depmod) and userspace; uninstall undoes it' \
		dkms-install 'the module'"'"'s sources into DKMS, built and installed for KDIR'"'"'s kernel' \
		deb 'the Debian packages, source package included (build/deb)' \
		preflight 'whether execns.ko can be loaded and used on the running kernel' \
		sign 'sign execns.ko: KEY= CERT= (docs/signing.md)' \
		style 'checkpatch --strict --codespell on module/ (CHECKPATCH=)' \
		sparse 'sparse (C=2) and W=1 on every module file, against KDIR' \
		clean 'remove what the builds made' \
		demo 'boot Debian'"'"'s stock 6.1 kernel in QEMU and watch execns at work' \
		check 'the test suite on the default rows of tests/kernels.conf, in QEMU' \
		check-all 'check, plus the rows whose check column says all (left out of its hour)' \
		suite 'one row'"'"'s guest suite: KERNEL= [TESTS=]' \
		vm-run 'boot a row and run CMD= in it' \
		shell 'a shell in a row'"'"'s guest' \
		lint 'W=1, sparse, checkpatch, man pages, packages, on the rows' \
		kmod 'the module for one row: KERNEL= [EXTRA=]' \
		bench 'make bench: A/B ratios in one guest run per row' \
		bench-report 'docs/evaluation.md and its plots from the kept raw output' \
		stress 'the stress run (tables, chains, rmmod races) on the rows' \
		soak 'N boots of one row: KERNEL= N=' \
		stap-run 'SystemTap scripts around CMD= in a row'"'"'s guest' \
		stap-check 'the SystemTap checks of one row' \
		trace-run 'a tracing recipe (TOOL=perf or bpftrace) around CMD=' \
		trace-check 'the SystemTap, perf and bpftrace checks of one row' \
		sign-check 'signed loading under module.sig_enforce=1 in a guest' \
		fetch 'fetch the rows'"'"' kernels; fetch-refresh resolves them again' \
		kernel-table 'write the README'"'"'s table of kernels from tests/kernels.conf' \
		upstream-bisect 'build the in-tree twin after each of its patches'

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	$(MAKE) -C userspace clean
	$(MAKE) -C tests/guest clean
	rm -rf $(DEB_DIR)

.PHONY: all module module-skipped userspace install uninstall preflight sign style sparse help dkms-src dkms-install deb clean

# The test matrix (absent from the Debian packages' copy of the tree).
-include tests/matrix.mk
