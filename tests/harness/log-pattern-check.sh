#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host-side test of the guest's kernel-log check (tests/guest/lib.sh's
# EXECNS_BAD_LOG): every sample report below must match it and no sample
# clean line may, under busybox grep (as in the guest) and GNU grep (as in
# vm.sh's console scan).  Prints the lines that go wrong; exit 0 when none.
#
# Usage: log-pattern-check.sh

. "$(dirname "$0")/common.sh"
. "$TOP/tests/guest/lib.sh"

# Reports, as the kernel words them (stock and debug kernels).
bad='[   12.345678] BUG: KASAN: slab-use-after-free in free_uid+0x2a/0x90
[    3.100000] WARNING: possible circular locking dependency detected
[    3.100000] WARNING: possible recursive locking detected
[    3.100000] inconsistent lock state
[    3.100000] WARNING: suspicious RCU usage
[    3.100000] BUG: held lock freed!
[    3.100000] turning off the locking correctness validator.
[    4.200000] UBSAN: shift-out-of-bounds in module/uidtab.c:120:5
[    5.000000] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)
unreferenced object 0xffff888003a1b2c0 (size 64):
[    6.000000] BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580
[    7.000000] Oops: general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP NOPTI
[    7.000000] Oops: 0000 [#1] PREEMPT SMP NOPTI
[    7.000000] general protection fault, probably for non-canonical address 0xdead000000000100
[    8.000000] kernel BUG at kernel/module/main.c:830!
[    8.000000] WARNING: CPU: 1 PID: 190 at module/uidtab.c:88 execns_uidtab_put+0x5c/0x70 [execns]
[    8.000000] refcount_t: underflow; use-after-free.
[    8.000000] refcount_t: saturated; leaking memory.
[    9.000000] list_add corruption. next->prev should be prev (ffff888004f2c0e8), but was 0000000000000000.
[    9.000000] list_del corruption, ffff888004f2c0e8->next is LIST_POISON1 (dead000000000100)
[    9.000000] list_add double add: new=ffff888004f2c0e8, prev=ffff888004f2c0e8, next=ffff888004f2c100.
[   10.000000] BUG kmalloc-64 (Tainted: G           OE     ): Poison overwritten
[   10.000000] BUG uid_cache (Not tainted): Redzone overwritten
[   10.000000] Redzone  ffff888003a1b300: bb bb bb bb bb bb bb bb  ........
[   10.000000] BUG kmalloc-32 (Not tainted): Object already free
[   11.000000] BUG: KASAN: double-free in execns_uidtab_put+0x40/0x90 [execns]
[   11.000000] double free detected in uid table
[   11.000000] BUG: KASAN: use-after-free in find_user+0x33/0x80
use-after-free read of uid table 3
[   12.000000] BUG: KFENCE: out-of-bounds read in alloc_uid+0x8/0x90
[   12.000000] BUG: unable to handle page fault for address: ffffffffc0201000
[   13.000000] INFO: task test-execns-th:201 blocked for more than 120 seconds.
[   13.000000] rcu: INFO: rcu_preempt self-detected stall on CPU'

# Lines a clean boot prints, on a stock kernel and on a lockdep, KASAN,
# UBSAN and kmemleak one, and an allocation failure that fault injection
# caused (its stack dump has no report header).
clean='[    0.000000] Kernel command line: console=ttyS0 panic=-1 oops=panic panic_on_warn=1 quiet
[    0.000000] rcu: 	RCU lockdep checking is enabled.
[    0.000000] rcu: RCU lockdep checking is enabled.
[    0.000000] rcu: 	RCU callback double-/use-after-free debug is enabled.
[    0.000000] rcu: 	RCU debug extended QS entry/exit.
[    0.000000] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar
[    0.000000] ... MAX_LOCKDEP_SUBCLASSES:  8
[    0.000000] ... MAX_LOCKDEP_KEYS:        8192
[    0.000000]  memory used by lock dependency info: 6365 kB
[    0.000000] kasan: KernelAddressSanitizer initialized
[    0.000000] KASAN: KernelAddressSanitizer initialized (generic)
[    0.300000] kmemleak: Kernel memory leak detector initialized (mem pool available: 15846)
[    0.300000] kmemleak: Automatic memory scanning thread started
[    0.400000] Freeing unused kernel image (initmem) memory: 2800K
[    0.500000] Run /init as init process
[    1.000000] execns: resolved 21 kernel symbols (2 optional ones absent)
[    1.000000] execns: loading out-of-tree module taints kernel.
[    1.000000] execns: module verification failed: signature and/or required key missing - tainting kernel
[    9.000000] reboot: Power down
[   59.537794] test-execns-fai: vmalloc error: size 4096, vm_struct allocation failed, mode:0xcc0(GFP_KERNEL), nodemask=(null)
[   59.540687] Call Trace:'

fails=0
for g in "busybox grep" "grep"; do
	while IFS= read -r l; do
		printf '%s\n' "$l" | $g -qE "$EXECNS_BAD_LOG" && continue
		echo "# $g: a report does not match: $l"
		fails=$((fails + 1))
	done <<<"$bad"
	while IFS= read -r l; do
		printf '%s\n' "$l" | $g -qE "$EXECNS_BAD_LOG" || continue
		echo "# $g: a clean line matches: $l"
		fails=$((fails + 1))
	done <<<"$clean"
done
echo "# $(wc -l <<<"$bad") reports, $(wc -l <<<"$clean") clean lines, busybox and GNU grep: $fails wrong"
[ "$fails" -eq 0 ]
