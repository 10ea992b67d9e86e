#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make stress: on each named kernel, booted with slub_debug=FZPU (sanity
# checks, red zones, poisoning, owner tracking), run tests/guest/stress-execns:
# first the disarm proof, STRESS_TABLES (default 10000) tables made and
# dropped one by one, each arming the uid hooks once and seeing them
# disarmed again; then STRESS_PROCS processes x STRESS_ITERS nested execns
# chains (up to STRESS_DEPTH links) with random flags, uid tables, setuid
# churn, fork storms at RLIMIT_NPROC, failing calls and concurrent rmmod
# attempts; then the module must unload with no table, user_struct or
# ucounts left, and the kernel log must be clean.
#
# Usage: stress.sh KERNEL...     Last line: "N kernels passed, N failed".

. "$(dirname "$0")/common.sh"

[ $# -gt 0 ] || die "stress.sh: no kernel named"
for k in "$@"; do
	kernel_field "$k" 1 >/dev/null
done
for k in "$@"; do
	"$TOP/tests/harness/fetch-kernel.sh" "$k" || exit 2
done

passed=0 failed=0
for k in "$@"; do
	note "=== stress on $k: $(kernel_desc "$k"), slub_debug=FZPU ==="
	log=$LOGS/stress-$k.log
	t0=$(date +%s)
	set +e
	EXECNS_RESULTS=$log EXECNS_TIMEOUT=${EXECNS_TIMEOUT:-3600} \
		BOOTARGS="slub_debug=FZPU ${BOOTARGS:-}" \
		"$TOP/tests/harness/vm.sh" "$k" run \
		"stress-execns ${STRESS_PROCS:-8} ${STRESS_ITERS:-30} ${STRESS_DEPTH:-3} ${STRESS_TABLES:-10000}" >/dev/null
	rc=$?
	set -e
	note "$k: guest ran $(($(date +%s) - t0)) s"
	tr -d '\r' <"$log" | grep -aE '^(ok|not ok|#|KTAP|1\.\.|execns-guest: (kernel|exit))' || true
	# /init checks the log after the run too; a dirty log fails the kernel.
	if grep -aqE 'execns-guest: (kernel log is not clean|kernel tainted)' "$log"; then
		rc=1
	fi
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		note "$k: stress passed"
	else
		failed=$((failed + 1))
		note "$k: stress FAILED (guest exit $rc; results: $log)"
	fi
done
echo "$passed kernels passed, $failed failed"
[ "$failed" -eq 0 ]
