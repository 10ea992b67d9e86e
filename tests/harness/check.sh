#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run the static checks, the in-guest test suite, the kmemleak self-test and
# the SystemTap checks on each named kernel, and sum the KTAP results.
# The last line is "N passed, N failed, N skipped" over all kernels.
#
# Usage: check.sh KERNEL...

. "$(dirname "$0")/common.sh"

[ $# -gt 0 ] || die "check.sh: no kernel named"
for k in "$@"; do
	kernel_field "$k" 1 >/dev/null
done

# Set up first, so a missing registry or package stops here, in one line.
for k in "$@"; do
	"$TOP/tests/harness/fetch-kernel.sh" "$k" || exit 2
done

pass=0 fail=0 skip=0 bad=

# tally NAME RC LOG: add LOG's KTAP results to the totals; a step that
# failed (a guest that died, a set-up that broke) with no failing test in
# its log counts as one failure.  Sets p, f and s for the caller's note.
tally() {
	read -r p f s < <(tr -d '\r' <"$3" | "$TOP/tests/harness/ktap-count.awk")
	rm -f "$3"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	if [ "$2" -ne 0 ]; then
		bad="$bad $1"
		[ "$f" -gt 0 ] || fail=$((fail + 1))
	fi
}

# Static checks first: W=1, sparse and checkpatch.
note "=== static checks ==="
log=$LOGS/check-lint.$$.log
set +e
"$TOP/tests/harness/lint.sh" "$@" | tee "$log"
rc=${PIPESTATUS[0]}
set -e
tally lint "$rc" "$log"

for k in "$@"; do
	note "=== $k: $(kernel_desc "$k") ==="
	if ! arch_has_guest "$(kernel_arch "$k")"; then
		# Counted as one skip: the static checks above are all that runs.
		note "$k: SKIP the guest suite and SystemTap: no $(kernel_arch "$k") guest yet (issue 13)"
		skip=$((skip + 1))
		continue
	fi
	set +e
	log=$LOGS/check-$k.$$.log
	: >"$log"
	EXECNS_RESULTS=$log "$TOP/tests/harness/vm.sh" "$k" check
	rc=$?
	set -e
	tally "$k" "$rc" "$log"
	note "$k: $p passed, $f failed, $s skipped (guest exit $rc)"
	if ! arch_native "$(kernel_arch "$k")"; then
		# stap, perf and bpftrace are the host's (x86_64) tools in the guest.
		note "$k: SKIP SystemTap, perf and bpftrace: no $(kernel_arch "$k") build of them here yet (issue 13)"
		skip=$((skip + 2))
		continue
	fi

	# Its own boot, and only where kmemleak is (skips at once elsewhere).
	note "=== $k: kmemleak self-test ==="
	set +e
	log=$LOGS/check-leak-$k.$$.log
	"$TOP/tests/harness/kmemleak-selftest.sh" "$k" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	set -e
	tally "$k-leak" "$rc" "$log"
	note "$k kmemleak self-test: $p passed, $f failed, $s skipped (exit $rc)"

	note "=== $k: SystemTap ==="
	set +e
	log=$LOGS/check-stap-$k.$$.log
	"$TOP/tests/harness/stap-check.sh" "$k" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	set -e
	tally "$k-stap" "$rc" "$log"
	note "$k SystemTap: $p passed, $f failed, $s skipped (exit $rc)"

	note "=== $k: perf and bpftrace ==="
	set +e
	log=$LOGS/check-trace-$k.$$.log
	"$TOP/tests/harness/trace-check.sh" "$k" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	set -e
	tally "$k-trace" "$rc" "$log"
	note "$k perf and bpftrace: $p passed, $f failed, $s skipped (exit $rc)"
done
[ -z "$bad" ] || note "failed on:$bad"
echo "$pass passed, $fail failed, $skip skipped"
[ -z "$bad" ] && [ "$fail" -eq 0 ]
