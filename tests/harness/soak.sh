#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make soak: boot one kernel N times with the module loaded around a trivial
# command, and count the boots that failed, by cause:
#   timeout      no report before the per-boot timeout (a hang)
#   oops-before  the guest died on a kernel report before the module loaded
#   oops-after   ... once the module was loading or loaded (its first
#                "execns:" line on the console precedes the report)
#   died         no report, no timeout and nothing on the console
#   insmod       the module did not load (exit 125)
#   exit         CMD exited non-zero
#   log          CMD passed, but the guest found its kernel log not clean
#                or tainted
# Prints a line per boot, a table, and one summary line last.  Logs of the
# failed boots are kept in $LOGS/soak-KERNEL.PID/.
#
# Usage: soak.sh KERNEL N [CMD]      (CMD defaults to "true")
# Environment: EXECNS_TCG_THREAD (single, the default, or multi),
# EXECNS_TIMEOUT (seconds per boot, default 180), and vm.sh's others.
# Exit status: 0 when every boot passed, 1 otherwise.

. "$(dirname "$0")/common.sh"

kernel=${1:?usage: soak.sh KERNEL N [CMD]} n=${2:?usage: soak.sh KERNEL N [CMD]} cmd=${3:-true}
kernel_field "$kernel" 1 >/dev/null
case $n in
'' | *[!0-9]* | 0) die "soak.sh: N must be a number of boots (1 or more), not '$n'" ;;
esac
thread=${EXECNS_TCG_THREAD:-single}

prepare_guest "$kernel"
. "$TOP/tests/guest/lib.sh"

dir=$LOGS/soak-$kernel.$$
mkdir -p "$dir"
causes="timeout oops-before oops-after died insmod exit log"
declare -A count boots
for c in ok $causes; do
	count[$c]=0 boots[$c]=
done

# classify I RC: the cause of boot I's result RC, from its three logs.
classify() {
	local con=$dir/console.$1 res=$dir/results.$1 err=$dir/stderr.$1 first module
	if [ "$2" = 124 ]; then
		if grep -q 'timed out after' "$err"; then
			echo timeout
			return
		fi
		first=$(tr -d '\r' <"$con" | grep -naE "$EXECNS_BAD_LOG|Kernel panic" | head -n 1 | cut -d: -f1)
		if [ -z "$first" ]; then
			echo died
			return
		fi
		module=$(tr -d '\r' <"$con" | grep -naE '^\[ *[0-9.]+\] execns: ' | head -n 1 | cut -d: -f1)
		if [ -n "$module" ] && [ "$module" -lt "$first" ]; then
			echo oops-after
		else
			echo oops-before
		fi
		return
	fi
	case $2 in
	0) grep -qE '^execns-guest: (kernel log is not clean|kernel tainted)' "$res" && echo log || echo ok ;;
	125) grep -q '^execns-guest: insmod' "$res" && echo insmod || echo exit ;;
	*) echo exit ;;
	esac
}

note "soak: $n boots of $kernel ($(kernel_desc "$kernel")), tcg thread=$thread, CMD '$cmd'"
start=$(date +%s)
for i in $(seq 1 "$n"); do
	t0=$(date +%s%N)
	rc=0
	EXECNS_PREBUILT=1 EXECNS_TIMEOUT=${EXECNS_TIMEOUT:-180} EXECNS_TCG_THREAD=$thread \
		EXECNS_CONSOLE=$dir/console.$i EXECNS_RESULTS=$dir/results.$i \
		"$TOP/tests/harness/vm.sh" "$kernel" run "$cmd" >/dev/null 2>"$dir/stderr.$i" || rc=$?
	c=$(classify "$i" "$rc")
	count[$c]=$((count[$c] + 1))
	boots[$c]="${boots[$c]} $i"
	printf 'boot %3d: %-11s exit %3d  %3d.%d s\n' "$i" "$c" "$rc" \
		$((($(date +%s%N) - t0) / 1000000000)) $((($(date +%s%N) - t0) / 100000000 % 10))
	[ "$c" != ok ] || rm -f "$dir/console.$i" "$dir/results.$i" "$dir/stderr.$i"
done
elapsed=$(($(date +%s) - start))

printf '\n%-12s %5s  %s\n' cause boots which
for c in ok $causes; do
	printf '%-12s %5d  %s\n' "$c" "${count[$c]}" "${boots[$c]# }"
done
failed=$((n - count[ok]))
[ "$failed" -gt 0 ] || rmdir "$dir" 2>/dev/null || true
summary=
for c in $causes; do
	summary="$summary${summary:+, }$c ${count[$c]}"
done
logs=
[ "$failed" -eq 0 ] || logs="; logs: $dir"
echo "soak $kernel thread=$thread: $n boots, ${count[ok]} passed, $failed failed ($summary); $((elapsed / n)) s per boot$logs"
[ "$failed" -eq 0 ]
