#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run the static checks, the in-guest test suite and the SystemTap checks on
# each named kernel, and sum the KTAP results.
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

# Static checks first: W=1, sparse and checkpatch.
note "=== static checks ==="
log=$LOGS/check-lint.$$.log
set +e
"$TOP/tests/harness/lint.sh" "$@" | tee "$log"
rc=${PIPESTATUS[0]}
set -e
read -r p f s < <("$TOP/tests/harness/ktap-count.awk" "$log")
pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
[ "$rc" -eq 0 ] || { bad="$bad lint"; [ "$f" -gt 0 ] || fail=$((fail + 1)); }

for k in "$@"; do
	note "=== $k: $(kernel_desc "$k") ==="
	set +e
	log=$LOGS/check-$k.$$.log
	: >"$log"
	EXECNS_CONSOLE=$log "$TOP/tests/harness/vm.sh" "$k" check
	rc=$?
	set -e
	read -r p f s < <(tr -d '\r' <"$log" | "$TOP/tests/harness/ktap-count.awk")
	rm -f "$log"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	if [ "$rc" -ne 0 ]; then
		bad="$bad $k"
		# A guest that died or timed out has failed even if no test said so.
		[ "$f" -gt 0 ] || fail=$((fail + 1))
	fi
	note "$k: $p passed, $f failed, $s skipped (guest exit $rc)"

	note "=== $k: SystemTap ==="
	set +e
	log=$LOGS/check-stap-$k.$$.log
	"$TOP/tests/harness/stap-check.sh" "$k" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	set -e
	read -r p f s < <(tr -d '\r' <"$log" | "$TOP/tests/harness/ktap-count.awk")
	rm -f "$log"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	if [ "$rc" -ne 0 ]; then
		bad="$bad $k-stap"
		[ "$f" -gt 0 ] || fail=$((fail + 1))
	fi
	note "$k SystemTap: $p passed, $f failed, $s skipped (exit $rc)"
done
[ -z "$bad" ] || note "failed on:$bad"
echo "$pass passed, $fail failed, $skip skipped"
[ -z "$bad" ] && [ "$fail" -eq 0 ]
