#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run the static checks, the in-guest test suite, the kmemleak self-test and
# the SystemTap and perf/bpftrace checks on each named kernel, and sum the
# KTAP results.  The last line is "N passed, N failed, N skipped" over all
# kernels.
#
# Kernels run side by side, in EXECNS_JOBS lanes at once (default: one more
# than the host's CPUs). A TCG guest (thread=single) keeps at most one host
# CPU busy, and less while its tests sleep or wait for RCU (trixie's suite:
# 33 CPU-seconds in 82 s). A kernel is two lanes: its static checks, suite
# and kmemleak self-test; its tracing tools (SystemTap, perf, bpftrace).
# The tests split_tests names get a guest and a lane of their own (the
# debug kernel's fail-nth sweeps). Lanes start longest first, so that no
# long one starts last and runs on alone. A kernel's static checks stay in
# the lane of its suite; all its module builds go through build-module.sh,
# which takes a lock per kernel. A lane's output is printed whole when it
# ends, every step with its wall and CPU time; EXECNS_JOBS=1 runs the lanes
# one after another and prints as it goes. The measured runs are in the
# README.
#
# Usage: check.sh KERNEL...

. "$(dirname "$0")/common.sh"

[ $# -gt 0 ] || die "check.sh: no kernel named"
kernels=("$@")
for k in "$@"; do
	kernel_field "$k" 1 >/dev/null
done
jobs=${EXECNS_JOBS:-$(($(nproc) + 1))}
case $jobs in
'' | *[!0-9]* | 0) die "EXECNS_JOBS must be a number of lanes (1 or more), not '$jobs'" ;;
esac

# Set up first, so a missing registry or package stops here, in one line.
# The debug, bypass and lto kernels are built, not fetched: on a cold cache
# that is most of the set-up, CPU-bound (at nice 19) where the rest mostly
# downloads, so it runs beside the rest and is waited for at the end.
# The locks keep apt runs in the build root one at a time (the build
# holds one of its own); an apt run beside the build only adds packages
# (the root's toolchains are installed first, by buildroot.sh).  The
# build is a process group of its own (set -m), so that an interrupt can
# stop all of it (stop_debug: a background job of a script ignores
# SIGINT); a set-up step that fails waits for it instead (setup_failed):
# it is cached for the next run.
debug_pid=
stop_debug() {
	kill -TERM -- "-$debug_pid" 2>/dev/null
	exit 130
}
setup_failed() {
	[ -z "$debug_pid" ] || note "waiting for the debug kernel's build before stopping"
	[ -z "$debug_pid" ] || wait "$debug_pid" || true
	exit 2
}
# The kernels built here, one after the other in one background job (the
# bypass kernel starts from the debug kernel's tree).
built=()
for k in "$@"; do
	! kernel_built "$k" || built+=("$k")
done
if [ "${#built[@]}" -gt 0 ]; then
	set -m
	(for k in "${built[@]}"; do "$TOP/tests/harness/fetch-kernel.sh" "$k" || exit 1; done) &
	debug_pid=$!
	set +m
	trap stop_debug INT TERM
fi
for k in "$@"; do
	! kernel_built "$k" || continue
	"$TOP/tests/harness/fetch-kernel.sh" "$k" || setup_failed
	# The perf and bpftrace of the kernel's own suites (every row's), a
	# foreign kernel's staprun and stapio too (the build root's serve
	# x86_64).  (tools_row: only for a row that gets a tracing tools lane.)
	! tools_row "$k" || "$TOP/tests/harness/fetch-kernel.sh" "$k" trace-tools || setup_failed
	arch_native "$(kernel_arch "$k")" || ! tools_row "$k" || "$TOP/tests/harness/fetch-kernel.sh" "$k" stap-runtime || setup_failed
done
# What the lanes would otherwise build at the same time: the host's guest
# programs, shared by every x86_64 kernel.  (guest-cross.sh takes a lock
# per architecture; each module build, one per kernel.)
for k in "$@"; do
	if arch_native "$(kernel_arch "$k")"; then
		logged guest-progs.log make -C "$TOP" -s guest-progs || {
			note "error: building the guest's test programs failed (log: $LOGS/guest-progs.log)"
			setup_failed
		}
		break
	fi
done
if [ -n "$debug_pid" ]; then
	wait "$debug_pid" || die "the debug kernel's set-up failed (its error is above)"
	trap - INT TERM
fi

out=$(mktemp -d /tmp/execns-check.XXXXXX)
trap 'rm -rf "$out"' EXIT
note "set-up: $SECONDS s"

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

# cpu VAR: set VAR to the CPU seconds this shell's finished children have
# used (user and system, QEMU's guests included).  Wall time says little
# with lanes sharing the cores; this says what a step costs.  (times, a
# builtin, must run in this shell, not in $(...): a subshell would count
# its own children, none.)
cpu() {
	local f=$out/times.$BASHPID
	times >"$f"
	printf -v "$1" '%s' "$(awk 'NR == 2 {
		split($0, t, /[ms]/)
		print int(t[1] * 60 + t[2] + t[3] * 60 + t[4])
	}' "$f")"
}

# step NAME TITLE CMD...: run one of the harness's KTAP commands, its output
# on the lane's output and tallied under NAME.
step() {
	local name=$1 title=$2 log rc t0=$SECONDS c0 c1
	cpu c0
	shift 2
	note "=== $title ==="
	log=$LOGS/check-$name.$$.log
	set +e
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	set -e
	cpu c1
	tally "$name" "$rc" "$log"
	note "$title: $p passed, $f failed, $s skipped (exit $rc, $((SECONDS - t0)) s, CPU $((c1 - c0)) s)"
}

# split_tests K: the test program of kernel K's suite that boots a guest of
# its own, in a lane of its own (its traits' split=PROGRAM, one name:
# kernel_lane leaves it out with a single "!NAME").  The debug kernel's
# fail-nth sweeps take about 4 of its suite's 7 minutes; split off, the
# longest lane is no longer twice any other.
split_tests() {
	kernel_trait "$1" split || true
}

# suite K NAME [TESTS]: one guest running K's suite (vm.sh check), or the
# test programs TESTS chooses (EXECNS_TESTS), tallied under NAME.
suite() {
	local k=$1 name=$2 log rc t0=$SECONDS c0 c1
	cpu c0
	set +e
	log=$LOGS/check-$name.$$.log
	: >"$log"
	EXECNS_TESTS=${3:-} EXECNS_RESULTS=$log "$TOP/tests/harness/vm.sh" "$k" check
	rc=$?
	set -e
	cpu c1
	tally "$name" "$rc" "$log"
	note "$name: $p passed, $f failed, $s skipped (guest exit $rc, $((SECONDS - t0)) s, CPU $((c1 - c0)) s)"
}

# TREE_TESTS: what the debug kernel's tree runs when booted as a kernel
# tree of your own (tree_suite): the proof, whose expectation the guest
# takes from the verdict, namespaces, and a uid table.
TREE_TESTS="test-execns-proof test-execns-flags test-uidtab-setuid"

# tree_suite K: kernel K's build tree, named by its path as a user names
# theirs (make check KERNEL=/path/to/linux: tree-kernel.sh), booted with
# TREE_TESTS.
tree_suite() {
	local t
	t=$("$TOP/tests/harness/tree-kernel.sh" register "$(kbuild_host "$1")") || return
	note "$1's tree $(kbuild_host "$1") is row $t"
	EXECNS_TESTS=$TREE_TESTS "$TOP/tests/harness/vm.sh" "$t" check
}

# kernel_lane K: kernel K's static checks, suite (but split_tests) and
# kmemleak self-test; the debug kernel's tree as a tree of your own; the
# suite alone on the twin (kernel_in_tree).
kernel_lane() {
	local k=$1 h=$TOP/tests/harness split
	note "=== $k: $(kernel_desc "$k") ==="
	if kernel_in_tree "$k"; then
		# No module: the suite alone (its series is the common lane's
		# upstream-check.sh).
		suite "$k" "$k"
		return
	fi
	step "$k-lint" "$k: static checks" env LINT_PARTS=kernels "$h/lint.sh" "$k"
	split=$(split_tests "$k")
	suite "$k" "$k" "${split:+!$split}"
	# make sign for real, and a boot with module.sig_enforce=1 where the
	# preflight must say no (test-execns-preflight): one row is enough
	# (traits: sign).
	! kernel_trait "$k" sign || step "$k-sign" "$k: make sign, and a guest with module.sig_enforce=1" "$h/sign-check.sh" "$k"
	! kernel_trait "$k" tree || step "$k-tree" "$k: its tree as a kernel tree of your own" tree_suite "$k"
	# Its own boot, and only where kmemleak is (skips at once elsewhere;
	# the x86_64 kernels only, as before).
	if arch_native "$(kernel_arch "$k")"; then
		step "$k-leak" "$k: kmemleak self-test" "$h/kmemleak-selftest.sh" "$k"
	fi
}

# tools_lane K: the tracing tools on kernel K, each in a guest of its own.
tools_lane() {
	local k=$1 t=$TOP/tests/tracing/host
	note "=== $k: tracing tools ==="
	# Cross-built for arm64 and s390x; on an s390x kernel whose guest
	# cannot load a module with a static per-CPU variable, compiled, and
	# the guest run one KTAP skip that says why (STAP_S390X_SKIP in
	# tests/tracing/host/common.sh).
	step "$k-stap" "$k: SystemTap" "$t/stap-check.sh" "$k"
	# docs/tracing.md's recipes on the perf and bpftrace of the kernel's
	# own suites (fetch-kernel.sh NAME trace-tools).
	step "$k-trace" "$k: perf and bpftrace" "$t/trace-check.sh" "$k"
}

# split_lane K: kernel K's split_tests, in a guest of their own.
split_lane() {
	note "=== $1: $(split_tests "$1"), in a guest of its own ==="
	suite "$1" "$1-split" "$(split_tests "$1")"
}

# common_lane: the static checks that belong to no kernel (checkpatch, the
# log pattern, make's CMD passing, versions), and the Debian packages, for
# the run's kernels (DKMS builds the module for each).
common_lane() {
	step lint "static checks (checkpatch, harness, Debian packages)" env LINT_PARTS=common "$TOP/tests/harness/lint.sh" "${kernels[@]}"
}

# lane NAME CMD...: run CMD with the totals of this lane alone, then leave
# them in $out/NAME.sum.  With lanes, the output goes to $out/NAME.out and
# is printed whole at the end, under a lock so two lanes never interleave.
# A lane that stops early (a set-up step that died) counts as one failure.
lane() {
	local name=$1 t0=$SECONDS rc=0 c0 c1
	cpu c0
	shift
	pass=0 fail=0 skip=0 bad=
	if [ "$jobs" -gt 1 ]; then
		"$@" >"$out/$name.out" 2>&1 || rc=$?
		{
			flock 9
			cat "$out/$name.out"
		} 9>"$out/print.lock"
	else
		"$@" || rc=$?
	fi
	if [ "$rc" -ne 0 ]; then
		note "$name: stopped early (exit $rc)"
		bad="$bad $name" fail=$((fail + 1))
	fi
	cpu c1
	note "$name: done in $((SECONDS - t0)) s, CPU $((c1 - c0)) s"
	echo "$pass $fail $skip $bad" >"$out/$name.sum"
}

# run_lane NAME: the common static checks, kernel K's split_tests (NAME
# K-split) or tracing tools (K-tools), or kernel NAME's lane.  With lanes,
# every lane but the split ones runs at nice 5: those are the longest
# single guests (one TCG thread each, no faster than one CPU), and the
# scheduler then gives each a CPU of its own while the other lanes share
# what is left, their guests' idle time included.
run_lane() {
	case $1 in
	common) lane common common_lane ;;
	*-split) lane "$1" split_lane "${1%-split}" ;;
	*-tools) lane "$1" tools_lane "${1%-tools}" ;;
	*) lane "$1" kernel_lane "$1" ;;
	esac
}

# The lanes, longest first, so that none starts late and runs on alone at
# the end, and many short ones last, to fill the gaps: the split-off tests
# (debug's fail-nth sweeps, 4-6 minutes), the debug kernel's (the rest of
# its suite and its kmemleak self-test, under its detectors), the foreign
# architectures' (TCG of another instruction set), the x86_64 kernels',
# then each kernel's tracing tools (1.5 to 4 minutes each).  The common
# checks start right after the split-off tests: the Debian packages'
# DKMS builds (deb-check.sh) make theirs one of the longer lanes.
# In the matrix's order (the totals): each kernel, its split-off lane, its
# tools.
order=() matrix=()
for k in "$@"; do
	matrix+=("$k")
	[ -z "$(split_tests "$k")" ] || { order+=("$k-split"); matrix+=("$k-split"); }
	! tools_row "$k" || matrix+=("$k-tools")
done
order+=(common)
for k in "$@"; do
	! kernel_built "$k" || order+=("$k")
done
for k in "$@"; do
	arch_native "$(kernel_arch "$k")" || order+=("$k")
done
for k in "$@"; do
	! kernel_built "$k" || continue
	! arch_native "$(kernel_arch "$k")" || order+=("$k")
done
for k in "$@"; do
	tools_row "$k" || continue
	arch_native "$(kernel_arch "$k")" || order+=("$k-tools")
done
for k in "$@"; do
	tools_row "$k" || continue
	! arch_native "$(kernel_arch "$k")" || order+=("$k-tools")
done
for name in "${order[@]}"; do
	if [ "$jobs" -eq 1 ]; then
		run_lane "$name"
		continue
	fi
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n || true
	done
	note "$name: started"
	case $name in
	*-split) run_lane "$name" & ;;
	*) (renice -n 5 -p "$BASHPID" >/dev/null && run_lane "$name") & ;;
	esac
done
wait

# The totals, one line per lane in the matrix's order.
pass=0 fail=0 skip=0 bad=
for name in common "${matrix[@]}"; do
	read -r p f s b <"$out/$name.sum" || die "check.sh: lane $name left no totals"
	note "$name: $p passed, $f failed, $s skipped"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s)) bad="$bad${b:+ $b}"
done
[ -z "$bad" ] || note "failed on:$bad"
echo "$pass passed, $fail failed, $skip skipped"
[ -z "$bad" ] && [ "$fail" -eq 0 ]
