#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# perf and bpftrace over the module's tracepoints on one kernel, as KTAP
# (tests/guest/trace/trace-check.sh in the guest, one boot for both tools).
#
# Usage: trace-check.sh KERNEL

. "$(dirname "$0")/common.sh"

kernel=${1:?usage: trace-check.sh KERNEL}
TRACE_GUEST_CMD=execns-trace-check exec "$TOP/tests/harness/trace-run.sh" "$kernel" all ""
