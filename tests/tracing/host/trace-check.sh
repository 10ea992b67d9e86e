#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# docs/tracing.md's recipes (its tracepoint table, tracefs, perf and
# bpftrace) on one kernel, with the perf and bpftrace of its own release,
# as KTAP (tests/tracing/guest/execns-trace-check.sh in the guest, one boot for all).
#
# Usage: trace-check.sh KERNEL

. "$(dirname "$0")/common.sh"

kernel=${1:?usage: trace-check.sh KERNEL}
TRACE_GUEST_CMD=execns-trace-check exec "$TOP/tests/tracing/host/trace-run.sh" "$kernel" all ""
