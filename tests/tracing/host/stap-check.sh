#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The SystemTap checks of one kernel, as KTAP (tests/tracing/guest/execns-stap-check.sh
# in the guest).  A kernel SystemTap cannot build for is a failure: stap-run.sh
# supplies what the kernel lacks (tracing/compat/task_euid.h on Linux 7.3).
# arm64 and s390x kernels get the same checks, cross-built; on an s390x
# kernel whose guest cannot run a module's static per-CPU variable
# (percpu_ok), the scripts are compiled and the run is a SKIP that says why
# (STAP_S390X_SKIP, common.sh).
#
# Usage: stap-check.sh KERNEL

. "$(dirname "$0")/common.sh"

kernel=$1
if kernel_built "$kernel"; then
	echo "KTAP version 1"
	echo "1..1"
	echo "ok 1 - systemtap tapset and scripts # SKIP not run on $kernel: it is built without debuginfo (DEBUG_INFO_NONE), and the trixie kernel's checks cover the same 6.12 source"
	exit 0
fi
scripts="$TOP/tests/tracing/guest/events.stp $TOP/tracing/uid-leaks.stp"
# Both probe the module's tracepoints and kprobes, no tracepoint of the
# kernel's own: stap need not compile the kernel's ~190 tracepoint headers
# (stap-run.sh's module_tracepoints).
export STAP_MODULE_TRACEPOINTS=1
# -t: stap names the reason of each probe hit it skipped, which the guest's
# check reads (tests/tracing/guest/execns-stap-check.sh).
export STAP_OPTS="-t${STAP_OPTS:+ $STAP_OPTS}"
rc=0
STAP_COMPILE_ONLY=1 "$TOP/tests/tracing/host/stap-run.sh" "$kernel" "$scripts" "" >"$LOGS/stap-$kernel-setup.log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
	echo "KTAP version 1"
	echo "1..1"
	if [ "$rc" -ne 125 ]; then	# not a compile failure: the set-up (System.map boot, ...) died
		sed 's/^/# /' "$LOGS/stap-$kernel-setup.log" | tail -n 5
		echo "not ok 1 - systemtap set-up for $kernel (log: $LOGS/stap-$kernel-setup.log)"
		exit 1
	fi
	{ grep -sE 'error|ERROR' "$LOGS/stap-$kernel-events.log" || true; } | head -n 5 | sed 's/^/# /'
	echo "not ok 1 - systemtap tapset and scripts compile (log: $LOGS/stap-$kernel-events.log)"
	exit 1
fi
# percpu_ok: whether a module's static per-CPU variable works in this
# kernel's guest: tests/tracing/host/percpu-probe, built like execns.ko and
# loaded in one boot (about 20 s).  SystemTap's runtime has such a
# variable; STAP_S390X_SKIP in common.sh says what failed on s390x.
# False only for that failure (the guest died in the probe's init, which
# vm.sh's console tail shows); a guest that failed otherwise is an error.
percpu_ok() {
	local b=/build/$TREE/percpu-probe-$kernel work rc=1
	rm -rf "$ROOT$b" && mkdir -p "$ROOT$b" && cp "$TOP"/tests/tracing/host/percpu-probe/* "$ROOT$b/"
	logged "percpu-probe-$kernel.log" kbuild_ext "$kernel" "$b" ||
		die "building tests/tracing/host/percpu-probe for $kernel failed (log: $LOGS/percpu-probe-$kernel.log)"
	work=$(mktemp -d /tmp/execns-percpu.XXXXXX)
	cp "$ROOT$b/percpu-probe.ko" "$work/"
	"$TOP/tests/harness/vm.sh" "$kernel" run 'insmod /root/percpu-probe.ko && echo percpu-probe: loaded' \
		"$work/percpu-probe.ko" >"$work/out" 2>>"$LOGS/percpu-probe-$kernel.log" || true
	grep -q '^percpu-probe: loaded' "$work/out" && rc=0
	rm -rf "$work"
	[ "$rc" -eq 0 ] && return 0
	grep -q 'percpu_probe_init' "$LOGS/percpu-probe-$kernel.log" ||
		die "$kernel: the per-CPU probe's guest failed for another reason (log: $LOGS/percpu-probe-$kernel.log)"
	return 1
}

# s390x: where a module's per-CPU variable fails (7.2 in this QEMU),
# staprun's module cannot load: compiled (above), not run.
if [ "$(kernel_arch "$kernel")" = s390x ] && ! percpu_ok; then
	echo "KTAP version 1"
	echo "1..2"
	echo "ok 1 - systemtap tapset and scripts compile for $kernel"
	echo "ok 2 - systemtap tapset and scripts in the guest # SKIP $STAP_S390X_SKIP (probe log: $LOGS/percpu-probe-$kernel.log)"
	exit 0
fi
# One run, no retry: its counts must be exact (tests/tracing/guest/execns-stap-check.sh).
STAP_GUEST_CMD="execns-stap-check" "$TOP/tests/tracing/host/stap-run.sh" "$kernel" "$scripts" ""
