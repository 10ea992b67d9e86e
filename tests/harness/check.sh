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
	# A foreign kernel's perf and bpftrace too (the build root's serve x86_64).
	arch_native "$(kernel_arch "$k")" || "$TOP/tests/harness/fetch-kernel.sh" "$k" trace-tools || exit 2
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

# step NAME TITLE SCRIPT ARG...: run one of the harness's KTAP scripts,
# its output on the terminal and tallied under NAME.
step() {
	local name=$1 title=$2 script=$3 log rc
	shift 3
	note "=== $title ==="
	log=$LOGS/check-$name.$$.log
	set +e
	"$TOP/tests/harness/$script" "$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	set -e
	tally "$name" "$rc" "$log"
	note "$title: $p passed, $f failed, $s skipped (exit $rc)"
}

# Static checks first: W=1, sparse, IBT, hook sites, DKMS and checkpatch.
step lint "static checks" lint.sh "$@"

for k in "$@"; do
	note "=== $k: $(kernel_desc "$k") ==="
	set +e
	log=$LOGS/check-$k.$$.log
	: >"$log"
	EXECNS_RESULTS=$log "$TOP/tests/harness/vm.sh" "$k" check
	rc=$?
	set -e
	tally "$k" "$rc" "$log"
	note "$k: $p passed, $f failed, $s skipped (guest exit $rc)"
	# Its own boot, and only where kmemleak is (skips at once elsewhere;
	# the x86_64 kernels only, as before).
	if arch_native "$(kernel_arch "$k")"; then
		step "$k-leak" "$k: kmemleak self-test" kmemleak-selftest.sh "$k"
	fi
	# On arm64 and s390x one KTAP skip that says why (STAP_FOREIGN_SKIP in
	# common.sh): SystemTap is not wired for their guests yet.
	step "$k-stap" "$k: SystemTap" stap-check.sh "$k"
	# perf and bpftrace: the build root's for x86_64, Debian's arm64 and
	# s390x builds of the kernel's own suites for those (fetch-kernel.sh
	# NAME trace-tools).
	step "$k-trace" "$k: perf and bpftrace" trace-check.sh "$k"
done
[ -z "$bad" ] || note "failed on:$bad"
echo "$pass passed, $fail failed, $skip skipped"
[ -z "$bad" ] && [ "$fail" -eq 0 ]
