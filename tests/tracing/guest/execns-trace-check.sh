#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest (as /usr/local/bin/execns-trace-check): the recipes of
# docs/tracing.md, run as the doc writes them (/root/recipes, copied from
# it by trace-run.sh) on the perf and bpftrace of the kernel's own release,
# as KTAP.  The doc's tracepoint table must name each event's fields as its
# format file does; the tracefs recipe must show a table's events; perf's
# recipe and bpftrace's (tracing/uidacct.bt) each watch one run of
# test-uid-workload (three tables, each with the uids its "# table T uids
# ..." line names, all ended, their user_structs freed by the module's
# reaper, before it exits) and their counts must match the workload's
# exactly.
# A tool that does not start here is a skip with its own error message.

# The guest's one KTAP writer (ktap_start, ktap_result, ktap_done).
. /usr/local/lib/execns/lib.sh

# expect OUT: the workload's tables and uids, from its output, in $tables,
# $nuids (user_structs allocated, and freed) and $ntables.
expect() {
	tables=$(sed -n 's/^# table \([0-9]*\) uids.*/\1/p' "$1")
	ntables=$(echo $tables | wc -w)
	nuids=$(sed -n 's/^# table [0-9]* uids //p' "$1" | wc -w)
}

# perf_count EVENT: its count in perf stat's CSV output.
perf_count() {
	awk -F, -v e="execns:$1" '$3 == e { print $1 }' /tmp/trace-perf.out
}

# The tools, as this guest has them (the kernel's own suites').
perf_v=$(perf --version 2>/dev/null | head -n 1) bt_v=$(bpftrace --version 2>/dev/null | head -n 1)
ktap_start 7
echo "# ${perf_v:-no perf}; ${bt_v:-no bpftrace}"
echo 'test-uid-workload >/tmp/work-bt.out 2>&1' >/tmp/work-bt.sh

# --- docs/tracing.md's tracepoint table against the events' format files ---
# /root/recipes/fields: "EVENT FIELD..." per event, from the doc's table.
ok=0
while read -r ev fields; do
	f=/sys/kernel/tracing/events/execns/${ev#execns:}/format
	want=$(printf '%s\n' $fields | sort | tr '\n' ' ')
	# "field:TYPE NAME;" (NAME[LEN] for arrays), common_* left out.
	have=$(sed -n 's/^[[:space:]]*field:[^;]*[ *]\([a-z_0-9]*\)\(\[[^]]*\]\)\{0,1\};.*/\1/p' "$f" 2>/dev/null |
		grep -v '^common_' | sort | tr '\n' ' ')
	[ "$want" = "$have" ] || { echo "# $ev: docs/tracing.md says: $want; its format file: ${have:-(none)}"; ok=1; }
done </root/recipes/fields
events=$(wc -l </root/recipes/fields)
# And every event of the module is in the table.
for d in /sys/kernel/tracing/events/execns/*/; do
	ev=$(basename "$d")
	grep -q "^execns:$ev " /root/recipes/fields || { echo "# execns:$ev is not in docs/tracing.md's table"; ok=1; }
done
ktap_result $ok "docs/tracing.md's tracepoint table: each of the $events events' fields as its format file names them"

# --- the tracefs recipe, as written ---
execns-trace tracefs >/tmp/tracefs.log 2>&1
rc=$?
sed 's/^/# /' /tmp/tracefs.log
t=/tmp/trace-tracefs.out
[ $rc -eq 0 ] &&
	grep -qE 'execns_call: pid=[0-9]+ comm=execns flags=CLONE_NEWUTS\|CLONE_NEWUSER filename=/[^ ]*/sh$' $t &&
	grep -qE 'table_create: id=[0-9]+ parent=0$' $t &&
	grep -qE 'uid_alloc: uid=0 table=[0-9]+ refs=[0-9]+ epoll_watches=0 pipe_bufs=0 unix_inflight=0 locked_vm=0 watches=0 user=' $t &&
	grep -qE 'execns_return: pid=[0-9]+ result=0 duration_ns=[0-9]+$' $t &&
	grep -qx '0' $t
ktap_result $? "tracefs recipe: execns_call, table_create, uid_alloc and execns_return with result=0 in the trace, and id -u printed 0 (exit $rc)"

# --- perf: the recipe, as written ---
if ! command -v perf >/dev/null; then
	ktap_result SKIP "perf recipe: perf stat -e 'execns:*'" "no perf in this guest"
	ktap_result SKIP "perf recipe: ucounts" "no perf in this guest"
elif ! execns-trace perf >/tmp/perf.log 2>&1 ||
	[ -z "$(perf_count uid_alloc)" ]; then
	sed 's/^/# /' /tmp/perf.log
	# No count at all, with an error of perf's own: perf cannot run here.
	# Anything else (an event missing, the workload failing) is a failure.
	reason=$(grep -viE '^#|^ *$|^ok |^not ok |^1\.\.|KTAP|execns:' /tmp/trace-perf.out | head -n 1)
	if ! grep -q 'execns:' /tmp/trace-perf.out 2>/dev/null && [ -n "$reason" ]; then
		ktap_result SKIP "perf recipe: perf stat -e 'execns:*'" "perf does not run here: $reason"
		ktap_result SKIP "perf recipe: ucounts" "perf does not run here"
	else
		ktap_result 1 "perf recipe: perf stat -a -x, -e 'execns:*' -- test-uid-workload"
		ktap_result 1 "perf recipe: ucounts"
	fi
else
	sed 's/^/# /' /tmp/perf.log
	expect /tmp/trace-perf.out.cmd
	a=$(perf_count uid_alloc) f=$(perf_count uid_free) tc=$(perf_count table_create)
	td=$(perf_count table_destroy) c=$(perf_count execns_call) r=$(perf_count execns_return)
	echo "# expected: $ntables tables, $nuids user_structs"
	[ "$ntables" -eq 3 ] && [ "$a" = "$nuids" ] && [ "$f" = "$nuids" ] &&
		[ "$tc" = "$ntables" ] && [ "$td" = "$ntables" ] && [ "$c" = "$ntables" ] && [ "$r" = "$ntables" ]
	ktap_result $? "perf recipe: uid_alloc $a, uid_free $f (want $nuids), table_create $tc, table_destroy $td, execns_call $c, execns_return $r (want $ntables)"
	ua=$(perf_count ucounts_alloc) uf=$(perf_count ucounts_free)
	if grep -qw set_cred_ucounts /proc/kallsyms; then
		[ "${ua:-0}" -gt 0 ] && [ "$ua" = "$uf" ]
		ktap_result $? "perf recipe: ucounts_alloc $ua = ucounts_free $uf, not 0"
	else
		# Credentials have no ucounts before 5.14: a table makes none.
		[ "$ua" = 0 ] && [ "$uf" = 0 ]
		ktap_result $? "perf recipe: ucounts_alloc $ua and ucounts_free $uf are 0 (this kernel's credentials have no ucounts)"
	fi
fi

# --- bpftrace ---
if ! command -v bpftrace >/dev/null; then
	ktap_result SKIP "bpftrace recipe: tracing/uidacct.bt" "no bpftrace in this guest"
	ktap_result SKIP "bpftrace recipe: tables" "no bpftrace in this guest"
elif [ ! -e /sys/kernel/btf/vmlinux ]; then
	# bpftrace parses tracepoint arguments from BTF ("BTF is required
	# for parsing tracepoint arguments"), which the debug kernel is built
	# without; started anyway, it spent its TCG start-up on that message.
	ktap_result SKIP "bpftrace recipe: tracing/uidacct.bt" "no kernel BTF (/sys/kernel/btf/vmlinux): bpftrace cannot parse tracepoint arguments without it"
	ktap_result SKIP "bpftrace recipe: tables" "no kernel BTF"
else
	execns-trace bpftrace /tmp/work-bt.sh /tmp/trace-bt.out >/tmp/bt.log 2>&1
	rc=$?
	sed 's/^/# /' /tmp/bt.log
	reason=$(grep -iE 'error|fail' /tmp/bt.log | grep -v execns-trace | head -n 1)
	if [ $rc -eq 125 ] && grep -q "linux/types.h' file not found" /tmp/bt.log; then
		# bpftrace before 0.12 (bullseye's 0.11) reads an #include from the
		# kernel's headers, not from BTF; the guest has none.
		ktap_result SKIP "bpftrace recipe: tracing/uidacct.bt" "this bpftrace ($(bpftrace --version 2>&1 | head -n 1)) needs the kernel's headers for the recipe's #include, which the guest does not have (docs/tracing.md)"
		ktap_result SKIP "bpftrace recipe: tables" "bpftrace did not start: no kernel headers"
	elif [ $rc -eq 125 ]; then
		# A start-up failure with BTF there (a script a bpftrace version
		# refuses, a verifier error) is a failure, not a skip.
		ktap_result 1 "bpftrace recipe: tracing/uidacct.bt starts: ${reason:-see the log above}"
		ktap_result 1 "bpftrace recipe: tables (bpftrace did not start)"
	else
		expect /tmp/work-bt.out
		# uidacct.bt's last report (END's), from its "uidacct:" line:
		# "@alloc[T, U]: N" and so on, as "T U ALLOC FREE LIVE" rows.
		awk '/uidacct: per/ { delete a; delete f; delete l; delete k; n = 0 }
			/^@(alloc|free|live)\[[0-9]+, [0-9]+\]: -?[0-9]+$/ {
				m = $1; sub(/\[.*/, "", m); key = $0; sub(/^[^[]*\[/, "", key)
				sub(/\].*/, "", key); sub(/, /, " ", key)
				if (!(key in k)) { k[key] = 1; order[++n] = key }
				if (m == "@alloc") a[key] = $NF; else if (m == "@free") f[key] = $NF; else l[key] = $NF
			}
			END { for (i = 1; i <= n; i++) print order[i], a[order[i]] + 0, f[order[i]] + 0, l[order[i]] + 0 }' \
			/tmp/trace-bt.out >/tmp/trace-bt.rows
		sed 's/^/# row: /' /tmp/trace-bt.rows
		ok=0 bad=0
		[ "$ntables" -eq 3 ] || ok=1
		for t in $tables; do
			for u in $(sed -n "s/^# table $t uids //p" /tmp/work-bt.out); do
				# TABLE UID ALLOC FREE LIVE
				awk -v t="$t" -v u="$u" '$1 == t && $2 == u && $3 == 1 && $4 == 1 && $5 == 0 { f = 1 } END { exit !f }' \
					/tmp/trace-bt.rows || { echo "# table $t uid $u: not one alloc and one free"; ok=1; bad=$((bad + 1)); }
			done
		done
		rows=$(wc -l </tmp/trace-bt.rows)
		[ "$rows" -eq "$nuids" ] || { echo "# $rows (table, uid) in the last report, want $nuids"; ok=1; }
		[ $rc -eq 0 ] || ok=1
		# Where RCU callbacks stay in softirq (no rcuo kthreads: Debian's
		# s390x kernels have no CONFIG_RCU_NOCB_CPU), an event can meet
		# a BPF program running on its CPU, and BPF drops it (a recursion
		# miss, which execns-trace counts).  The module's frees now fire
		# from its reaper, a worker, not from RCU callbacks, but the
		# allowance stays where events can nest: rows short of at most
		# that many events are expected there, and only there.
		misses=$(cat /tmp/trace-bt.out.misses 2>/dev/null)
		in_softirq=0
		grep -qs '^rcuo' /proc/[0-9]*/comm || in_softirq=1
		if [ $ok -ne 0 ] && [ $rc -eq 0 ] && [ "$ntables" -eq 3 ] && [ "$rows" -eq "$nuids" ] && [ "$bad" -gt 0 ] &&
			[ "$bad" -le "${misses:-0}" ] && [ $in_softirq -eq 1 ]; then
			ktap_result 0 "bpftrace recipe: each of the $nuids (table, uid) allocated once and freed once, but for $bad events BPF dropped ($misses recursion misses; RCU callbacks run in softirq here)"
		else
			ktap_result $ok "bpftrace recipe: each of the $nuids (table, uid) allocated once and freed once ($rows in the last report)"
		fi
		# The last report's counts; short of $ntables by at most the
		# misses, in all, where events can be dropped.
		created=$(sed -n 's/^tables created \([0-9]*\) destroyed [0-9]*$/\1/p' /tmp/trace-bt.out | tail -n 1)
		destroyed=$(sed -n 's/^tables created [0-9]* destroyed \([0-9]*\)$/\1/p' /tmp/trace-bt.out | tail -n 1)
		created=${created:--1} destroyed=${destroyed:--1}
		if [ "$created" -eq "$ntables" ] && [ "$destroyed" -eq "$ntables" ]; then
			ktap_result 0 "bpftrace recipe: $ntables tables created and destroyed"
		elif [ "$created" -ge 0 ] && [ "$created" -le "$ntables" ] && [ "$destroyed" -ge 0 ] &&
			[ "$destroyed" -le "$ntables" ] &&
			[ $((2 * ntables - created - destroyed)) -le "${misses:-0}" ] && [ $in_softirq -eq 1 ]; then
			ktap_result 0 "bpftrace recipe: $ntables tables created and destroyed, but for events BPF dropped ($misses recursion misses; RCU callbacks run in softirq here)"
		else
			ktap_result 1 "bpftrace recipe: $ntables tables created and destroyed (last report: created $created destroyed $destroyed)"
		fi
	fi
fi

# --- a BPF trampoline on a hooked function ---
# bpftrace's fexit on alloc_uid (kretfunc, the name bpftrace 0.17 knows;
# later ones take it as an alias of fexit) is a BPF trampoline, a direct
# call on the ftrace site the uid hook redirects (alloc_uid is the first
# hook armed; free_uid is hooked no more).  On x86 and arm64, arming the
# hook (registering its ops) tells the trampoline to continue the call
# where the hook sends it, and the workload's tables come and go, the
# module making each of their user_structs (/proc/execns/stats'
# user_allocs grows by the workload's 9: a setuid() whose alloc_uid() the
# trampoline ran past the redirect would get the kernel's user_struct
# instead, and not count); on s390x,
# where the hooks are parked and a filter change would not tell it, a new
# table is EBUSY while the trampoline is there (module/hook.c).
fexit_name="bpftrace fexit:alloc_uid attached while no table lives"
if ! command -v bpftrace >/dev/null || [ ! -e /sys/kernel/btf/vmlinux ]; then
	ktap_result SKIP "$fexit_name" "no bpftrace or no kernel BTF in this guest"
elif [ ! -e /proc/sys/net/core/bpf_jit_enable ]; then
	# BPF trampolines are JIT-compiled (Debian's s390x kernels are built
	# for z10, without CONFIG_BPF_JIT).
	ktap_result SKIP "$fexit_name" "this kernel has no BPF JIT, so no BPF trampoline (fexit) can sit on alloc_uid"
else
	printf '%s\n' 'kretfunc:alloc_uid { @allocs = count(); }' 'interval:s:1 { printf("attached\n"); }' >/tmp/fexit.bt
	: >/tmp/fexit.out
	bpftrace /tmp/fexit.bt >/tmp/fexit.out 2>&1 &
	pid=$!
	i=0
	while ! grep -q '^attached' /tmp/fexit.out && kill -0 $pid 2>/dev/null && [ $i -lt 3000 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if ! grep -q '^attached' /tmp/fexit.out; then
		kill $pid 2>/dev/null
		wait $pid
		sed 's/^/# /' /tmp/fexit.out
		# Only a kernel that cannot do it is a skip.
		# bpftrace before 0.12 (bullseye's 0.11) has no kretfunc for
		# 5.10 on amd64, and on arm64, which has no BPF trampoline before
		# 6.0, fails to load the program.
		if grep -qi 'not supported' /tmp/fexit.out ||
			{ grep -qiE 'not available for your kernel|Error loading program: kretfunc' /tmp/fexit.out &&
			  bpftrace --version 2>&1 | grep -qE 'v0\.([0-9]|1[01])\.'; }; then
			ktap_result SKIP "$fexit_name" "bpftrace cannot attach fexit here: $(grep -iE 'not supported|not available for your kernel|Error loading program' /tmp/fexit.out | head -n 1)"
		else
			ktap_result 1 "$fexit_name: bpftrace did not attach (its output above)"
		fi
	elif [ "$(uname -m)" = s390x ]; then
		execns -t true >/tmp/fexit-cli.out 2>&1
		rc=$?
		kill -INT $pid
		wait $pid
		sed 's/^/# /' /tmp/fexit-cli.out
		[ $rc -eq 125 ] && grep -qi 'busy' /tmp/fexit-cli.out &&
			dmesg | grep -q 'cannot hook alloc_uid: a BPF trampoline'
		ktap_result $? "$fexit_name: on s390x a new table is EBUSY, the module says why (execns -t exit $rc)"
	else
		a0=$(sed -n 's/^user_allocs //p' /proc/execns/stats)
		test-uid-workload >/tmp/work-fexit.out 2>&1
		rc=$?
		a1=$(sed -n 's/^user_allocs //p' /proc/execns/stats)
		made=$((${a1:-0} - ${a0:-0}))
		kill -INT $pid
		wait $pid
		sed 's/^/# /' /tmp/fexit.out
		sed 's/^/# /' /tmp/work-fexit.out
		expect /tmp/work-fexit.out
		allocs=$(sed -n 's/^@allocs: \([0-9]*\)$/\1/p' /tmp/fexit.out)
		[ $rc -eq 0 ] && [ "$ntables" -eq 3 ] && [ "$made" -eq "$nuids" ] && [ "${allocs:-0}" -gt 0 ]
		ktap_result $? "$fexit_name: the workload's $ntables tables come and go (exit $rc), the module made $made of their user_structs (want $nuids), fexit saw ${allocs:-no} alloc_uid calls"
	fi
fi

echo "execns-trace-check: $ktap_failed failed"
ktap_done
