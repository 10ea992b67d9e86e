# SPDX-License-Identifier: GPL-2.0
# A thin wrapper: the module is built by Kbuild, userspace by its own
# Makefile, and the kernel matrix by the scripts in tests/harness.

KDIR ?= /lib/modules/$(shell uname -r)/build
PREFIX ?= /usr/local
KERNEL ?= bookworm
# The matrix rows of ARCH (x86_64, arm64, s390x, i386, or all), or those whose
# check column says yes (default); KERNEL= names kernels directly.  `make
# check` takes the default rows unless ARCH= is given; the other matrix
# targets (lint, bench, stress, ...) the x86_64 ones.
rows = $(shell awk -v a=$(1) '!/^\#/ && NF && (a == "all" || $$2 == a || (a == "default" && $$3 == "yes")) { print $$1 }' tests/kernels.conf)
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

all: module userspace

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

userspace:
	$(MAKE) -C userspace

install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	$(MAKE) -C userspace install PREFIX=$(PREFIX)

VERSION := $(shell cat VERSION)
# DKMS: the module's sources (no objects, no compat-probe.h of another
# kernel) in DKMS_SRCTREE/execns-VERSION, then dkms add, build and install
# for DKMS_KERNEL (the running kernel by default, as dkms's).  Running it
# again replaces an earlier add of the same version.  DKMS may carry dkms's
# options: tests/harness/dkms-check.sh runs this target in the build root
# with private trees, e.g.
# make dkms-install DKMS="dkms --dkmstree T --sourcetree S --installtree I" \
#	DKMS_SRCTREE=S DKMS_KERNEL=6.1.0-57-amd64
DKMS ?= dkms
DKMS_SRCTREE ?= /usr/src
DKMS_KERNEL ?= $(shell uname -r)
DKMS_SRC := $(DKMS_SRCTREE)/execns-$(VERSION)
DKMS_FILES := $(filter-out module/compat-probe.h,$(wildcard module/*.c module/*.h module/*.sh module/arch/*/*.h))
dkms-install:
	if [ -n "$$($(DKMS) status -m execns -v $(VERSION))" ]; then \
		$(DKMS) remove -m execns -v $(VERSION) --all; fi
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp Kbuild VERSION $(DKMS_SRC)/
	cp --parents $(DKMS_FILES) $(DKMS_SRC)/
	sed 's/@VERSION@/$(VERSION)/' dkms.conf >$(DKMS_SRC)/dkms.conf
	$(DKMS) add -m execns -v $(VERSION)
	$(DKMS) build -m execns -v $(VERSION) -k $(DKMS_KERNEL)
	$(DKMS) install -m execns -v $(VERSION) -k $(DKMS_KERNEL)

uninstall:
	$(MAKE) -C userspace uninstall PREFIX=$(PREFIX)

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

# One tracing tool in the guest around CMD: perf (perf stat -a -e 'execns:*'),
# bpftrace (trace/uidacct.bt, or BT=FILE) or stap (SCRIPT, default
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

.PHONY: all module userspace install uninstall preflight sign dkms-install clean deps guest-progs check lint vm-run suite shell demo fetch fetch-refresh kmod bench stress soak
