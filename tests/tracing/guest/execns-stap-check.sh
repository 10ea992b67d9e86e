#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest (as /usr/local/bin/execns-stap-check): the SystemTap checks
# of make check, as KTAP.  tests/tracing/guest/events.stp (every tapset event)
# and tracing/uid-leaks.stp watch test-uid-workload: three tables with setuid()s
# that end, one setuid() in the global table, and one table that is still
# held when the events are read.

S=execns-stap
ev=/tmp/stap-events.out
leaks=/tmp/stap-uid_leaks.out
# The guest's one KTAP writer (ktap_start, ktap_result, ktap_done).
. /usr/local/lib/execns/lib.sh

# has COUNT "TEXT": the events output has exactly COUNT lines containing TEXT.
has() {
	[ "$(grep -cF -- "$2" "$ev")" -eq "$1" ]
}

# wait_tables N TENTHS: until /proc/execns/stats counts N tables, for at
# most TENTHS tenths of a second, then a second more.
wait_tables() {
	i=0
	while [ "$(sed -n 's/^tables //p' /proc/execns/stats)" != "$1" ] && [ $i -lt "$2" ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 1
}

ktap_start 11
$S start events && $S start uid_leaks
ktap_result $? "staprun starts the tapset's test script and uid-leaks.stp"

test-uid-workload hold >/tmp/work.out 2>&1
rc=$?
sed 's/^/    /' /tmp/work.out
ktap_result $rc "test-uid-workload hold"
# The finished tables' credentials go in RCU callbacks, which a loaded TCG
# guest can delay for seconds, and then the module's reaper frees their
# user_structs and the tables: wait until only the held table is left.
wait_tables 1 300
live=$(grep -c '^uid ' /proc/execns/tables)
$S stop events 2>&1 | tee /tmp/stap-stop.out
held=$(sed -n 's/^# held table \([0-9]*\) .*/\1/p' /tmp/work.out)
kill -TERM -"$(cat /tmp/execns-hold.pid)"
wait_tables 0 100
$S stop uid_leaks 2>&1 | tee -a /tmp/stap-stop.out
skipped=$(sed -n 's/.*skipped probes: \([0-9]*\).*/\1/p' /tmp/stap-stop.out | sort -n | tail -n 1)
echo "# events:"
sed 's/^/# /' "$ev"
echo "# uid-leaks.stp:"
sed 's/^/# /' "$leaks"

# A runtime that cannot read memory in a probe at all (SystemTap 5.6's on
# Debian 11's arm64 kernel: the kernel's own string field reads
# "<unreadable>", and the first dereference of the tapset's is a read
# fault, at which stap stops) leaves no event to check: the rest is a
# SKIP saying so (docs/tracing.md), not a verdict on the tapset.
if grep -q 'ERROR: read fault' /tmp/stap-stop.out && grep -q 'filename="<unreadable>"' "$ev"; then
	why="SystemTap's runtime cannot read memory in a probe on $(uname -r) ($(sed -n 's/.*ERROR: \(read fault\) \[[^]]*\] \(at [^ ]*\).*/\1 \2/p' /tmp/stap-stop.out | head -n 1); the kernel's own filename field <unreadable>; docs/tracing.md)"
	for t in "execns.call and execns.return" "the tables' events" "the held table" "the global table" \
		"execns.uid.find" "module tables: allocs - frees" "uid-leaks.stp" "source of each event" \
		"no probe hit skipped or missed"; do
		ktap_result SKIP "$t" "$why"
	done
	ktap_done
	exit 0
fi

has 4 'EV execns.call flags=CLONE_NEWUSER filename="/proc/self/exe" ' &&
	has 4 'EV execns.return result=0 '
ktap_result $? "execns.call: flags by name and filename, execns.return: result, 4 calls"

ok=0
tables=$(sed -n 's/^# table \([0-9]*\) uids.*/\1/p' /tmp/work.out)
for t in $tables; do
	has 1 "EV execns.table.create id=$t parent=0 " && has 1 "EV execns.table.destroy id=$t parent=0 " || ok=1
	for u in $(sed -n "s/^# table $t uids //p" /tmp/work.out); do
		has 1 "EV execns.uid.alloc uid=$u table=$t " && has 1 "EV execns.uid.free uid=$u table=$t " || {
			echo "# table $t uid $u: not one alloc and one free"; ok=1; }
	done
done
[ -n "$tables" ] || ok=1
ktap_result $ok "tables $(echo $tables): created, each uid allocated and freed once, destroyed"

has 1 "EV execns.table.create id=$held parent=0 " && has 0 "EV execns.table.destroy id=$held " &&
	has 1 "EV execns.uid.alloc uid=0 table=$held " && has 1 "EV execns.uid.alloc uid=3000 table=$held " &&
	has 0 "table=$held refs=0"
ktap_result $? "held table $held: created, uids 0 and 3000 allocated, nothing freed"

has 1 'EV execns.uid.alloc uid=5000 table=0 ' && has 1 'EV execns.uid.free uid=5000 table=0 ' &&
	! grep -E 'EV execns.uid.(alloc|free) uid=(1000|1001|1002|2000|3000) table=0 ' "$ev"
ktap_result $? "global table: uid 5000 allocated and freed; the module's uids never counted there"

grep -q 'EV execns.uid.find uid=1000 table=[1-9]' "$ev"
ktap_result $? "execns.uid.find: the lookups in the tables"

allocs=$(grep -cE 'EV execns.uid.alloc .* table=[1-9]' "$ev")
frees=$(grep -cE 'EV execns.uid.free .* table=[1-9]' "$ev")
[ $((allocs - frees)) -eq "$live" ] && [ "$live" -eq 2 ]
ktap_result $? "module tables: allocs ($allocs) - frees ($frees) = live user_structs in /proc/execns/tables ($live)"

! grep -q '^not freed' "$leaks" && grep -q '^uid-leaks: .* 0 not freed$' "$leaks"
ktap_result $? "uid-leaks.stp reports nothing once the workload has ended"

# The module tables' events come from tracepoints, table 0's from kprobes.
! grep -E 'EV execns\.(call|return|table\.|uid\.[a-z]+ uid=[0-9]+ table=[1-9]).* source=kprobe' "$ev" &&
	! grep -E 'EV execns\.uid\.[a-z]+ uid=[0-9]+ table=0 .* source=tracepoint' "$ev" &&
	grep -q 'table=0 .* source=kprobe' "$ev" && grep -q 'table=[1-9].* source=tracepoint' "$ev"
ktap_result $? "source: module tables and execns(2) from tracepoints, table 0 from kprobes"

# Nothing lost: stap's own count of probe hits it skipped (a handler that
# met another on its CPU, a lock it gave up on, a kprobe that missed), each
# reason named (stap -t).  The harness boots this guest with
# rcu_nocbs=all, so the RCU callbacks that drop credentials' user_structs
# (the kernel's free_uid(), for table 0's and a module table's alike) run
# in kthreads, not in softirq, and no probe can interrupt another: any
# skip is a failure.  A kernel without CONFIG_RCU_NOCB_CPU (Debian's
# s390x) ignores rcu_nocbs and runs them in softirq, which can interrupt a
# kprobe handler on its CPU; kprobes do not nest, so the kprobe on
# free_uid then misses that call.  There, and only for that reason, skips
# are expected.  The module's own frees come from its reaper (a worker)
# and reach the tapset through tracepoints: a missed free_uid() can cost
# only table 0's counts.
# Per script ("execns-stap: NAME: WARNING: ..." lines): 1 when every
# skip it counted is a missed kprobe on free_uid, else 0.
explained=$(awk '
	/skipped probes: / { n = $0; sub(/.*skipped probes: /, "", n); skipped[$2] = n + 0 }
	/Skipped due to missed kprobe on .kprobe\.function\("free_uid"\).: / { free_uid[$2] += $NF }
	END { ok = 1; for (s in skipped) if (skipped[s] != free_uid[s]) ok = 0; print ok }' /tmp/stap-stop.out)
# RCU callbacks are offloaded when rcuo kthreads run.
if [ "${skipped:-0}" -eq 0 ] && ! grep -qi 'missed' /tmp/stap-stop.out; then
	ktap_result 0 "no probe hit skipped or missed"
elif [ "${skipped:-0}" -gt 0 ] && ! grep -qs '^rcuo' /proc/[0-9]*/comm && [ "$explained" = 1 ]; then
	ktap_result 0 "no probe hit skipped or missed but $skipped free_uid calls from softirq, which the kprobe missed (no CONFIG_RCU_NOCB_CPU here, so rcu_nocbs=all cannot move RCU callbacks out of softirq)"
else
	ktap_result 1 "no probe hit skipped or missed (skipped: ${skipped:-0}; every one a missed kprobe on free_uid: $explained; kernel arguments: $(cat /proc/cmdline))"
fi

echo "execns-stap-check: $ktap_failed failed"
ktap_done
