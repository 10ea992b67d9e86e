#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: boot each named kernel BENCH_BOOTS times, run every benchmark
# in each guest (tests/guest/bench-execns.c), keep the raw output in
# tests/bench-results/KERNEL-BOOT.txt, then regenerate the report from every
# kernel's kept raw output (bench-report.sh: docs/evaluation.md and its
# plots; each ratio with its spread over rounds and boots and whether its
# target is met).
#
# Usage: bench.sh KERNEL...            run, then regenerate the report
#        bench.sh --report [KERNEL...] regenerate it only (bench-report.sh)
# Environment: BENCH_SAMPLES (per variant and comparison, default 240),
# BENCH_ROUNDS (rounds they are split into, default 3), BENCH_BOOTS (guest
# boots per kernel, default 2), BENCH_FROM (the first boot to run, keeping
# the earlier ones' raw output; default 1), BENCH_TABLES (default 10000),
# BENCH_SWEEP_ALL (1: the live-tables sweep in every boot, not only the
# first), BENCH_CLOCK (icount, the default, or wall: see below), and
# vm.sh's (EXECNS_MEM, EXECNS_TIMEOUT, BOOTARGS, PARAMS).

. "$(dirname "$0")/common.sh"

if [ "${1:-}" = --report ]; then
	shift
	exec "$(dirname "$0")/bench-report.sh" "$@"
fi
[ $# -gt 0 ] || die "bench.sh: no kernel named"
for k in "$@"; do
	kernel_field "$k" 1 >/dev/null
done

RAW=$TOP/tests/bench-results
mkdir -p "$RAW"

if ! command -v gnuplot >/dev/null; then
	note "installing gnuplot (Debian's gnuplot-nox) for the plots"
	logged gnuplot-install.log apt-get install -y --no-install-recommends gnuplot-nox ||
		die "installing gnuplot-nox failed (log: $LOGS/gnuplot-install.log)"
fi

BOOTS=${BENCH_BOOTS:-2}
# The guest's clock.  icount (the default): QEMU counts guest instructions
# and the guest's clocks advance 1 ns per instruction (shift=0), idle time
# is skipped (sleep=off) and never waited for (align=off), so a timing is a
# count of executed instructions, the same in every run and whatever else
# the host does.  One vCPU: with -icount, a 2-vCPU guest stops while
# bringing up its second CPU (6.1, 2026-12-04).  BENCH_CLOCK=wall: 2 vCPUs
# and wall-clock time under TCG, as noisy as the host.
case ${BENCH_CLOCK:-icount} in
icount) smp=1 qemu_args="-icount shift=0,sleep=off,align=off" ;;
wall) smp=2 qemu_args= ;;
*) die "BENCH_CLOCK is icount or wall, not '$BENCH_CLOCK'" ;;
esac
for k in "$@"; do
	"$TOP/tests/harness/fetch-kernel.sh" "$k" || exit 2
done
for k in "$@"; do
	# BENCH_FROM=N: keep boots 1..N-1 of an earlier run, boot from N on.
	from=${BENCH_FROM:-1}
	[ "$from" -gt 1 ] || rm -f "$RAW/$k"-[0-9]*.txt "$RAW/$k.txt"
	for boot in $(seq "$from" "$BOOTS"); do
		note "=== bench on $k, boot $boot of $BOOTS: $(kernel_desc "$k") ==="
		raw=$RAW/$k-$boot.txt
		log=$LOGS/bench-$k-$boot.log
		t0=$(date +%s)
		# The live-tables sweep takes a minute and a half and has no
		# rounds: boot 1 only unless BENCH_SWEEP_ALL=1.
		only=
		[ "$boot" = 1 ] || [ "${BENCH_SWEEP_ALL:-0}" = 1 ] || only=exec,make_drop,table_in,module
		set +e
		EXECNS_RESULTS=$log EXECNS_TIMEOUT=${EXECNS_TIMEOUT:-3600} \
			EXECNS_SMP=$smp EXECNS_QEMU_ARGS=$qemu_args \
			"$TOP/tests/harness/vm.sh" "$k" run \
			"${only:+BENCH_ONLY=$only }bench-execns ${BENCH_SAMPLES:-240} ${BENCH_TABLES:-10000} ${BENCH_ROUNDS:-3}" >/dev/null
		rc=$?
		set -e
		{
			echo "# kernel $(cat "$(kdir "$k")/release" 2>/dev/null || echo "$k") ($k), boot $boot, $(($(date +%s) - t0)) s, clock ${BENCH_CLOCK:-icount}"
			tr -d '\r' <"$log" |
				grep -aE '^(result|ratio|round|hook|tables|slab|bench|# bench|# [0-9]+ tables|# left)' || true
		} >"$raw"
		# The guest's own verdict, from the results channel.
		grc=$(tr -d '\r' <"$log" | sed -n 's/^execns-guest: exit \([0-9]*\).*/\1/p' | tail -n 1)
		[ "$grc" = 0 ] && rc=0
		if [ "$rc" -ne 0 ] || ! grep -q '^bench: done' "$raw"; then
			grep -a 'bench: \|execns-guest' "$log" >&2 || true
			die "bench on $k boot $boot failed (guest exit $rc; results: $log)"
		fi
	done
done

# The report, from every kernel's kept raw output (this run's and earlier).
exec "$TOP/tests/harness/bench-report.sh" "$@"
