# SPDX-License-Identifier: GPL-2.0
# Shared definitions for the host-side tracing scripts (tests/tracing/host/), on
# top of the harness's (tests/harness/common.sh).  Sourced, not run.

. "$(dirname "${BASH_SOURCE[0]}")/../../harness/common.sh"

# Kernel arguments of the tracing guests (stap, perf, bpftrace).  SystemTap
# and BPF drop an event that fires while one of their handlers already runs
# on the same CPU, and credentials drop their user_structs (the kernel's
# free_uid(), which the tapset's kprobe sees) from RCU callbacks in
# softirq, which can interrupt any handler.  rcu_nocbs=all runs those
# callbacks in rcuo kthreads instead (task context, bottom halves off), so
# no uid event can nest and the checks can demand exact counts.  Lazy RCU
# (6.9 and later) would then hold the frees back for up to 10 s; older
# kernels ignore the unknown dotted parameter.
TRACE_BOOTARGS="rcu_nocbs=all rcutree.enable_rcu_lazy=0"

# Why stap-check.sh compiles the SystemTap scripts for an s390x kernel but
# does not run them, as long as tests/tracing/host/percpu-probe does not load
# in its guest (check.sh and docs/tracing.md say the same).  Measured
# on unstable-s390x (Debian 7.2.13) in this QEMU (Debian 12's 7.2, TCG):
# a module's static per-CPU variable is addressed 4 GiB below where it is.
# s390x modules reach static data PC-relatively (larl), the module area
# lies 2 GiB below the kernel image and a module's per-CPU copy in the
# image's per-CPU area, so the distance is just over 2 GiB: in range for
# larl (+-4 GiB), but it lands 4 GiB short, as if the byte offset were a
# signed 32-bit number.  A 15-line test module with one DEFINE_PER_CPU
# oopsed alike (&var 0x3fefff51700, its per_cpu_ptr unmapped), with and
# without KASLR; execns.ko has no per-CPU variables.  SystemTap's runtime
# has one (its contexts), so staprun's module oopses as it loads, in
# _stp_runtime_context_trylock.
STAP_S390X_SKIP="not run: a module's static per-CPU variable does not work in this s390x guest (tests/tracing/host/percpu-probe oopsed in its init; under QEMU 7.2 TCG on Debian 7.2 s390x it is addressed 4 GiB short), and SystemTap's runtime has one: staprun's module oopses in _stp_runtime_context_trylock as it loads"

# tracing_vm KERNEL ROOT CMD [ADD]: run CMD in KERNEL's guest (vm.sh run),
# booted with TRACE_BOOTARGS, with ROOT's files copied over its / (the
# tools, the compiled scripts, the recipes) and every script of
# tests/tracing/guest as /usr/local/bin/NAME (execns-stap, execns-trace, and
# their checks).
tracing_vm() {
	local f
	mkdir -p "$2/usr/local/bin"
	for f in "$TOP"/tests/tracing/guest/execns-*.sh; do
		install -m 755 "$f" "$2/usr/local/bin/$(basename "$f" .sh)"
	done
	BOOTARGS="$TRACE_BOOTARGS ${BOOTARGS:-}" EXECNS_EXTRA_ROOT=$2 "$TOP/tests/harness/vm.sh" "$1" run "$3" "${4:-}"
}
