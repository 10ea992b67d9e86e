# SPDX-License-Identifier: GPL-2.0
# The guest's shell library: its KTAP writer, and the kernel-log and taint
# checks.  Sourced by the guest's /init, its test runner and every shell
# test program (installed in the guest as /usr/local/lib/execns/lib.sh, see
# vm.sh's make_initramfs), and by the host: vm.sh scans the console with
# the same pattern, and lint.sh checks the pattern against sample lines.
# Sourced, not run; plain POSIX sh (busybox ash in the guest, bash on the host).

# The KTAP writer of shell tests (the C tests' is lib/ktap.h), in the format
# run-tests and tests/harness/ktap-count.awk read:
#	ktap_start 3			"KTAP version 1" and the plan "1..3"
#	ktap_result 0 "NAME"		ok: 0 or OK (a command's status passes)
#	ktap_result SKIP "NAME" "WHY"	"ok N - NAME # SKIP WHY"
#	ktap_result 1 "NAME"		anything else: not ok
#	ktap_done			true when nothing failed
# ktap_start without a plan leaves it to a later "echo 1..N".
ktap_n=0
ktap_failed=0

ktap_start() {
	echo "KTAP version 1"
	[ -z "${1:-}" ] || echo "1..$1"
}

ktap_result() {	# ktap_result 0|OK|SKIP|other NAME [REASON]
	ktap_n=$((ktap_n + 1))
	case $1 in
	0|OK) echo "ok $ktap_n - $2" ;;
	SKIP) echo "ok $ktap_n - $2 # SKIP ${3:-}" ;;
	*) echo "not ok $ktap_n - $2"; ktap_failed=$((ktap_failed + 1)) ;;
	esac
}

ktap_done() {
	[ "$ktap_failed" -eq 0 ]
}

# EXECNS_BAD_LOG: an extended regex for a kernel-log line that reports a bug.
# Each alternative is a report's own wording, never a bare detector name:
# a clean debug kernel prints banners such as "rcu: RCU lockdep checking is
# enabled.", "kasan: KernelAddressSanitizer initialized" and "RCU callback
# double-/use-after-free debug is enabled.", and those must not trip it.
# - Oops, BUG: (KASAN, KFENCE, sleeping in atomic context, held lock freed,
#   ...), kernel BUG at, WARNING: (every WARN and lockdep's reports:
#   possible circular or recursive locking, inconsistent lock state, ...);
# - a SLUB report ("BUG kmalloc-64 (Not tainted): Redzone overwritten");
# - refcount_t:, DEBUG_LIST's corruptions, lockdep switching itself off;
# - UBSAN:, kmemleak's leak reports, slab poisoning, a GPF, a double free,
#   a use-after-free; a hung task and an RCU stall.
# A bare stack dump (Call Trace) is not one: every report above brings its
# own header, and the allocation-failure warnings that fault injection
# (fail-nth on the debug kernel) causes by design dump a stack too.
EXECNS_BAD_LOG='Oops|BUG:|kernel BUG|BUG [^ ]+ \((Not tainted|Tainted: [^)]*)\): |WARNING:|INFO: task .* blocked for more than|rcu: INFO: .*detected stall|refcount_t:|list_(add|del) corruption|list_add double add|inconsistent lock state|possible (circular|recursive) locking|turning off the locking correctness validator|UBSAN:|unreferenced object|suspected memory leak|Poison overwritten|Redzone|Object already free|general protection|double[ -]free|(^|[^/])use-after-free'

# EXECNS_TAINT_OK: the taint bits a run may leave: O (an out-of-tree module,
# 4096) and E (an unsigned module, 8192).  Any other bit fails the run.
EXECNS_TAINT_OK=12288

# EXECNS_EXPECTED_LOG: in the guest, a file where a test that makes the
# kernel report something on purpose (test-uidtab-pin's injected ftrace
# unregister failure, whose WARN_ONCE is the behaviour under test) appends
# an extended regex for that report's lines, before it causes it, and
# asserts the report itself (with kernel.panic_on_warn 0 around it: the
# harness boots with panic_on_warn=1).  Lines it matches are not bad, and
# while it is not empty the W taint (512, from a WARN) is allowed too.
EXECNS_EXPECTED_LOG=/tmp/execns-expected-log

# execns_bad_log: print the kernel log's bad lines; true when there are any.
execns_bad_log() {
	if [ -s "$EXECNS_EXPECTED_LOG" ]; then
		dmesg | grep -E "$EXECNS_BAD_LOG" | grep -vEf "$EXECNS_EXPECTED_LOG"
	else
		dmesg | grep -E "$EXECNS_BAD_LOG"
	fi
}

# EXECNS_EXPECTED_TAINT: in the guest, a file where a test that taints the
# kernel on purpose (test-uidtab-klp's livepatch: K, 32768) writes the
# taint's value, one a line, before it causes it.
EXECNS_EXPECTED_TAINT=/tmp/execns-expected-taint

# execns_taint_ok: true when the kernel carries no taint but O and E (and
# W after an expected WARN, see EXECNS_EXPECTED_LOG, and what
# EXECNS_EXPECTED_TAINT lists).
execns_taint_ok() {
	ok=$EXECNS_TAINT_OK
	[ ! -s "$EXECNS_EXPECTED_LOG" ] || ok=$((ok | 512))
	if [ -s "$EXECNS_EXPECTED_TAINT" ]; then
		while read -r t; do ok=$((ok | t)); done <"$EXECNS_EXPECTED_TAINT"
	fi
	[ $(( $(cat /proc/sys/kernel/tainted) & ~ok )) -eq 0 ]
}
