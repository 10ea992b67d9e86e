#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The SystemTap checks of one kernel, as KTAP (tests/guest/trace/stap-check.sh
# in the guest).  A kernel SystemTap cannot build for is a failure: stap-run.sh
# supplies what the kernel lacks (stap/compat/task_euid.h on Linux 7.3).
# arm64 and s390x kernels get the same checks, cross-built; on s390x the
# scripts are compiled but not run (STAP_S390X_SKIP in common.sh).
#
# Usage: stap-check.sh KERNEL

. "$(dirname "$0")/common.sh"

kernel=$1
if [ "$kernel" = debug ]; then
	echo "KTAP version 1"
	echo "1..1"
	echo "ok 1 - systemtap tapset and scripts # SKIP not run on the debug kernel: it is built without debuginfo (DEBUG_INFO_NONE), and the trixie kernel's checks cover the same 6.12 source"
	exit 0
fi
scripts="$TOP/tests/guest/trace/events.stp $TOP/stap/uid-leaks.stp"
rc=0
STAP_COMPILE_ONLY=1 "$TOP/tests/harness/stap-run.sh" "$kernel" "$scripts" "" >"$LOGS/stap-$kernel-setup.log" 2>&1 || rc=$?
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
# s390x: compiled (above), not loaded (STAP_S390X_SKIP in common.sh).
if [ "$(kernel_arch "$kernel")" = s390x ]; then
	echo "KTAP version 1"
	echo "1..2"
	echo "ok 1 - systemtap tapset and scripts compile for $kernel"
	echo "ok 2 - systemtap tapset and scripts in the guest # SKIP $STAP_S390X_SKIP"
	exit 0
fi
# One run, no retry: its counts must be exact (tests/guest/trace/stap-check.sh).
STAP_GUEST_CMD="execns-stap-check" "$TOP/tests/harness/stap-run.sh" "$kernel" "$scripts" ""
