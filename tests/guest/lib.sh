# SPDX-License-Identifier: GPL-2.0
# Shared by the guest's /init and test runner (installed in the guest as
# /usr/local/lib/execns/lib.sh) and by the host: vm.sh scans the console with
# the same pattern, and lint.sh checks the pattern against sample lines.
# Sourced, not run; plain POSIX sh (busybox ash in the guest, bash on the host).

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

# execns_taint_ok: true when the kernel carries no taint but O and E (and
# W after an expected WARN, see EXECNS_EXPECTED_LOG).
execns_taint_ok() {
	ok=$EXECNS_TAINT_OK
	[ ! -s "$EXECNS_EXPECTED_LOG" ] || ok=$((ok | 512))
	[ $(( $(cat /proc/sys/kernel/tainted) & ~ok )) -eq 0 ]
}
