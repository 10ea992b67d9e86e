# SPDX-License-Identifier: GPL-2.0
# The test matrix's targets, included by the top Makefile: Debian's stock
# kernels (and the kernels built here, and your own tree) booted under
# QEMU by the scripts in tests/harness (docs/testing.md).

KERNEL ?= bookworm
# The matrix rows of ARCH (x86_64, arm64, s390x, i386, or all), or those whose
# check column says yes (default: make check's lane, which CI runs) or yes
# or all (every: make check-all's); KERNEL= names kernels directly.  `make
# check` takes the default rows unless ARCH= is given; the other matrix
# targets (lint, bench, stress, ...) the x86_64 ones.
rows = $(shell awk -v a=$(1) '!/^\#/ && NF && (a == "all" || $$2 == a || (a == "default" && $$3 == "yes") || (a == "every" && ($$3 == "yes" || $$3 == "all"))) { print $$1 }' tests/kernels.conf 2>/dev/null)
ARCH_GIVEN := $(filter command line environment,$(origin ARCH))
ARCH ?= x86_64
CHECK_ARCH := $(if $(ARCH_GIVEN),$(ARCH),default)
KERNELS := $(call rows,$(ARCH))
# The architectures of the kernels KERNEL= names (kernels.conf's arch
# column), for deps.sh: a foreign guest's QEMU only when one is asked for.
karchs = $(sort $(foreach k,$(1),$(shell cat tests/kernels.conf $(TREES_CONF) 2>/dev/null | awk -v k=$(k) '!/^\#/ && $$1 == k { print $$2; exit }')))
TREES_CONF := $(or $(EXECNS_CACHE),/var/cache/execns)/trees.conf
H := tests/harness
# The tracing scripts (docs/tracing.md, "Where the tracing files are").
T := tests/tracing/host
# KERNEL=/path/to/linux: a built kernel tree of your own, registered by
# tree-kernel.sh as a row (tree-NAME) the harness handles as any other.
ifneq ($(findstring /,$(KERNEL)),)
KTREES := $(foreach k,$(KERNEL),$(if $(findstring /,$(k)),$(shell $(H)/tree-kernel.sh register $(k) || echo '!'),$(k)))
$(if $(filter !,$(KTREES)),$(error KERNEL=$(KERNEL): not a built kernel tree (the line above says why)))
override KERNEL := $(KTREES)
endif
# KGIVEN: whether KERNEL= was given (on the command line, or as a tree);
# pick ROWS: the kernels it names, else ROWS.
KGIVEN = $(filter command line override,$(origin KERNEL))
pick = $(if $(KGIVEN),$(KERNEL),$(1))

# A foreign guest's QEMU only when one of its kernels is asked for.
deps:
	@$(H)/deps.sh $(ARCH) $(call karchs,$(KERNEL))

guest-progs: userspace
	$(MAKE) -C tests/guest

check:
	@$(H)/deps.sh $(if $(KGIVEN),$(ARCH) $(call karchs,$(KERNEL)),$(CHECK_ARCH))
	@$(H)/check.sh $(call pick,$(call rows,$(CHECK_ARCH)))

# make check's lane and the rows it leaves to this one (check column "all":
# a cold make check must stay within CI's hour; docs/testing.md).
check-all:
	@$(H)/deps.sh default
	@$(H)/check.sh $(call rows,every)

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
# make stap-run KERNEL=trixie SCRIPT=tracing/execns-trace.stp CMD="execns -t true"
stap-run: deps
	@$(T)/stap-run.sh $(KERNEL) "$(SCRIPT)" "$$CMD" "$(ADD)"

# One tracing tool in the guest around CMD, as docs/tracing.md's recipes
# run it, on the tools of the kernel's release: perf (perf stat -a -x, -e
# 'execns:*'; no CMD: the recipe as written), bpftrace
# (tracing/uidacct.bt, or BT=FILE), tracefs (the recipe as
# written) or stap (SCRIPT, default tracing/uidacct.stp), e.g.
# make trace-run KERNEL=backports TOOL=bpftrace CMD="test-uid-workload"
TOOL ?= perf
trace-run: deps
	@SCRIPT="$(SCRIPT)" BT="$(BT)" $(T)/trace-run.sh $(KERNEL) $(TOOL) "$$CMD" "$(ADD)"

# The SystemTap, perf and bpftrace checks of one kernel (KTAP).
trace-check: deps
	@$(T)/stap-check.sh $(KERNEL) && $(T)/trace-check.sh $(KERNEL)

# make sign in the build root and a guest booted with module.sig_enforce=1
# (KTAP; check.sh runs it on trixie).
sign-check: deps
	@$(H)/sign-check.sh $(KERNEL)

# The SystemTap checks alone (KTAP), e.g. make stap-check KERNEL=trixie-arm64.
stap-check: deps
	@$(T)/stap-check.sh $(KERNEL)

.PHONY: stap-run trace-run trace-check stap-check

shell: deps
	@$(H)/vm.sh $(KERNEL) shell "$(ADD)"

demo: deps
	@$(H)/vm.sh $(KERNEL) run "sh /usr/local/bin/execns-demo"

fetch: deps
	@for k in $(call pick,$(KERNELS)); do \
		$(H)/fetch-kernel.sh $$k || exit; done

# New package lists, and a kernel whose suites now have a newer one.
fetch-refresh: deps
	@for k in $(call pick,$(KERNELS)); do \
		$(H)/fetch-kernel.sh $$k refresh || exit; done

lint: deps
	@$(H)/lint.sh $(call pick,$(KERNELS))

# The README's table of kernels, from tests/kernels.conf (lint checks it).
kernel-table:
	@$(H)/kernel-table.sh --write

# Benchmarks (docs/evaluation.md) and the stress run, on every kernel or KERNEL=x.
# Knobs (environment or make variables): BENCH_BOOTS, BENCH_ROUNDS,
# BENCH_SAMPLES, BENCH_TABLES; STRESS_TABLES (the disarm proof's count),
# STRESS_PROCS, STRESS_ITERS, STRESS_DEPTH.
# Not the debug kernels by default (the recipes with the debug fragment):
# their detectors (KASAN, lockdep) are what their instruction counts would
# measure; nor the rows whose uid tables the load-time proof refuses or
# proves only in part (lto: half the benchmarks need a table, and what
# they time there may be the kernel's own objects).  twin and twin-base
# give the three-column table (execve, module, in-tree; bench.sh).
bench_rows = $(shell awk '!/^\#/ && NF && ($$6 == "proven" || $$6 == "in-tree") { print $$1 }' tests/kernels.conf)
debug_rows = $(patsubst tests/kernels/%.recipe,%,$(shell grep -l '^FRAGMENTS=.*\<debug\>' tests/kernels/*.recipe))
bench: deps
	@$(H)/bench.sh $(call pick,$(filter $(bench_rows),$(filter-out $(debug_rows),$(KERNELS))))

# docs/evaluation.md and its plots again from the kept raw output
# (tests/bench-results/), no guest; lint checks the page against it.
bench-report:
	@$(H)/bench-report.sh

stress: deps
	@$(H)/stress.sh $(call pick,$(KERNELS))

# N boots of one kernel around a trivial command, failures counted by cause,
# e.g. make soak KERNEL=backports N=30 (EXECNS_TCG_THREAD=multi to compare).
N ?= 30
soak: deps
	@$(H)/soak.sh $(KERNEL) $(N)

# The in-tree twin's series built after each of its patches, x86_64
# (KTAP; about 35 minutes on 2 cores, not in make check).
# build-kernel.sh twin first: it unpacks the source the series names.
upstream-bisect: deps
	@$(H)/build-kernel.sh twin && $(H)/upstream-bisect.sh

# Module build for one matrix kernel (always W=1), e.g. make kmod KERNEL=trixie EXTRA=C=1.
kmod: deps
	@$(H)/build-module.sh $(KERNEL) $(EXTRA)

.PHONY: deps guest-progs check check-all lint kernel-table vm-run suite shell demo fetch fetch-refresh kmod bench bench-report stress soak sign-check upstream-bisect
