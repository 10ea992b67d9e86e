# SPDX-License-Identifier: GPL-2.0
# A thin wrapper: the module is built by Kbuild, userspace by its own
# Makefile, and the kernel matrix by the scripts in tests/harness.

KDIR ?= /lib/modules/$(shell uname -r)/build
PREFIX ?= /usr/local
KERNEL ?= bookworm
# The matrix rows of ARCH (x86_64, arm64, s390x, or all), or those whose
# check column says yes (default); KERNEL= names kernels directly.  `make
# check` takes the default rows unless ARCH= is given; the other matrix
# targets (lint, bench, stress, ...) the x86_64 ones.
rows = $(shell awk -v a=$(1) '!/^\#/ && NF && (a == "all" || $$2 == a || (a == "default" && $$3 == "yes")) { print $$1 }' tests/kernels.conf 2>/dev/null)
ARCH_GIVEN := $(filter command line environment,$(origin ARCH))
ARCH ?= x86_64
CHECK_ARCH := $(if $(ARCH_GIVEN),$(ARCH),default)
KERNELS := $(call rows,$(ARCH))
# The architectures of the kernels KERNEL= names (kernels.conf's arch
# column), for deps.sh: a foreign guest's QEMU only when one is asked for.
karchs = $(sort $(foreach k,$(1),$(shell cat tests/kernels.conf $(TREES_CONF) 2>/dev/null | awk -v k=$(k) '!/^\#/ && $$1 == k { print $$2; exit }')))
TREES_CONF := $(or $(EXECNS_CACHE),/var/cache/execns)/trees.conf
H := tests/harness
# KERNEL=/path/to/linux: a built kernel tree of your own, registered by
# tree-kernel.sh as a row (tree-NAME) the harness handles as any other.
ifneq ($(findstring /,$(KERNEL)),)
KTREES := $(foreach k,$(KERNEL),$(if $(findstring /,$(k)),$(shell $(H)/tree-kernel.sh register $(k) || echo '!'),$(k)))
$(if $(filter !,$(KTREES)),$(error KERNEL=$(KERNEL): not a built kernel tree (the line above says why)))
override KERNEL := $(KTREES)
endif

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
DKMS_FILES := $(filter-out module/compat-probe.h,$(wildcard module/*.c module/*.h module/*.sh module/arch/*/*.h))
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

# Debian packages: execns-dkms (the module's sources, for DKMS; arch all),
# execns (CLI, execns.1, execns.2), libexecns0 and libexecns-dev, built
# with dpkg-buildpackage -us -uc -b from a copy of the tree with
# packaging/debian as its debian/, in DEB_DIR/execns-VERSION; the .debs
# land in DEB_DIR.  Needs dpkg-dev, debhelper and dh-dkms; tests/harness/
# deb-check.sh builds them in the build root, runs lintian, installs them
# and has DKMS build the module for the matrix's kernels.
DEB_DIR ?= build/deb
DEB_TREE := $(DEB_DIR)/execns-$(VERSION)
deb:
	@command -v dpkg-buildpackage >/dev/null && command -v dh_dkms >/dev/null || \
		{ echo "deb: error: dpkg-buildpackage or dh_dkms missing: apt install dpkg-dev debhelper dh-dkms" >&2; exit 1; }
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_TREE)
	tar -c --exclude=build --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		Kbuild Makefile VERSION dkms.conf module userspace $(wildcard docs/*.[1-9]) | tar -x -C $(DEB_TREE)
	cp -r packaging/debian $(DEB_TREE)/debian
	cd $(DEB_TREE) && dpkg-buildpackage -us -uc -b
	@ls $(DEB_DIR)/*.deb

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

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	$(MAKE) -C userspace clean
	$(MAKE) -C tests/guest clean
	rm -rf $(DEB_DIR)

# --- the kernel matrix (Debian stock kernels under QEMU) -------------------

# A foreign guest's QEMU only when one of its kernels is asked for.
deps:
	@$(H)/deps.sh $(ARCH) $(call karchs,$(KERNEL))

guest-progs: userspace
	$(MAKE) -C tests/guest

check:
	@$(H)/deps.sh $(if $(filter command line override,$(origin KERNEL)),$(ARCH) $(call karchs,$(KERNEL)),$(CHECK_ARCH))
	@$(H)/check.sh $(if $(filter command line override,$(origin KERNEL)),$(KERNEL),$(call rows,$(CHECK_ARCH)))

# CMD reaches the guest as typed: make would expand its $ (CMD='echo $$?'
# gave "deps"), so the exported variable is its unexpanded value and the
# recipes read it from the environment ("$$CMD"), never re-parsed.
override CMD := $(value CMD)
export CMD

vm-run: deps
	@$(H)/vm.sh $(KERNEL) run "$$CMD" "$(ADD)"

# One kernel's guest suite alone (no static or tool checks), or the test
# programs TESTS chooses: shell patterns, "!PATTERN" to leave out.
suite: deps
	@EXECNS_TESTS='$(TESTS)' $(H)/vm.sh $(KERNEL) check

# SystemTap scripts in the guest around CMD, e.g.
# make stap-run KERNEL=trixie SCRIPT=stap/execns-trace.stp CMD="execns -t true"
stap-run: deps
	@$(H)/stap-run.sh $(KERNEL) "$(SCRIPT)" "$$CMD" "$(ADD)"

# One tracing tool in the guest around CMD, as docs/tracing.md's recipes
# run it, on the tools of the kernel's release: perf (perf stat -a -x, -e
# 'execns:*'; no CMD: the recipe as written), bpftrace (trace/uidacct.bt,
# or BT=FILE), tracefs (the recipe as written) or stap (SCRIPT, default
# stap/uidacct.stp), e.g.
# make trace-run KERNEL=backports TOOL=bpftrace CMD="test-uid-workload"
TOOL ?= perf
trace-run: deps
	@SCRIPT="$(SCRIPT)" BT="$(BT)" $(H)/trace-run.sh $(KERNEL) $(TOOL) "$$CMD" "$(ADD)"

# The SystemTap, perf and bpftrace checks of one kernel (KTAP).
trace-check: deps
	@$(H)/stap-check.sh $(KERNEL) && $(H)/trace-check.sh $(KERNEL)

# make sign in the build root and a guest booted with module.sig_enforce=1
# (KTAP; check.sh runs it on trixie).
sign-check: deps
	@$(H)/sign-check.sh $(KERNEL)

# The SystemTap checks alone (KTAP), e.g. make stap-check KERNEL=trixie-arm64.
stap-check: deps
	@$(H)/stap-check.sh $(KERNEL)

.PHONY: stap-run trace-run trace-check stap-check sign-check

shell: deps
	@$(H)/vm.sh $(KERNEL) shell "$(ADD)"

demo: deps
	@$(H)/vm.sh $(KERNEL) run "sh /usr/local/bin/execns-demo"

fetch: deps
	@for k in $(if $(filter command line override,$(origin KERNEL)),$(KERNEL),$(KERNELS)); do \
		$(H)/fetch-kernel.sh $$k || exit; done

# New package lists, and a kernel whose suites now have a newer one.
fetch-refresh: deps
	@for k in $(if $(filter command line override,$(origin KERNEL)),$(KERNEL),$(KERNELS)); do \
		$(H)/fetch-kernel.sh $$k refresh || exit; done

lint: deps
	@$(H)/lint.sh $(if $(filter command line override,$(origin KERNEL)),$(KERNEL),$(KERNELS))

# Benchmarks (docs/evaluation.md) and the stress run, on every kernel or KERNEL=x.
# Knobs (environment or make variables): BENCH_BOOTS, BENCH_ROUNDS,
# BENCH_SAMPLES, BENCH_TABLES; STRESS_TABLES (the disarm proof's count),
# STRESS_PROCS, STRESS_ITERS, STRESS_DEPTH.
# Stock kernels only by default: the debug kernel's detectors (KASAN,
# lockdep) are what its instruction counts would measure.
bench: deps
	@$(H)/bench.sh $(if $(filter command line override,$(origin KERNEL)),$(KERNEL),$(filter-out debug,$(KERNELS)))

stress: deps
	@$(H)/stress.sh $(if $(filter command line override,$(origin KERNEL)),$(KERNEL),$(KERNELS))

# N boots of one kernel around a trivial command, failures counted by cause,
# e.g. make soak KERNEL=backports N=30 (EXECNS_TCG_THREAD=multi to compare).
N ?= 30
soak: deps
	@$(H)/soak.sh $(KERNEL) $(N)

# Module build for one matrix kernel (always W=1), e.g. make kmod KERNEL=trixie EXTRA=C=1.
kmod: deps
	@$(H)/build-module.sh $(KERNEL) $(EXTRA)

.PHONY: all module module-skipped userspace install uninstall preflight sign sign-check dkms-src dkms-install deb clean deps guest-progs check lint vm-run suite shell demo fetch fetch-refresh kmod bench stress soak
