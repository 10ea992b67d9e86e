#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest (as /usr/local/bin/execns-trace): run one recipe of
# docs/tracing.md (/root/recipes/NAME, copied there by trace-run.sh as the
# doc writes it), from /root, where tracing/ is, and print its output.
#
# Usage: execns-trace perf|bpftrace|tracefs [CMDFILE [OUT]]
#   perf:     the recipe as written when CMDFILE is empty or missing, else
#             the recipe's perf command (its part before " -- ") around
#             sh CMDFILE and a second's wait; perf's counts in OUT, the
#             command's output in OUT.cmd
#   bpftrace: the recipe (bpftrace tracing/uidacct.bt; user.bt
#             there instead if there is one), from before sh CMDFILE until a second
#             after it (the frees: credentials after an RCU grace period,
#             a table's objects by the module's reaper), then SIGINT as
#             Ctrl-C; its output in
#             OUT, the recipe's programs' BPF recursion misses in
#             OUT.misses
#   tracefs:  the recipe as written; its output in OUT
# Exits with the recipe's (perf: perf's, which is the command's) or
# CMDFILE's status, 125 when bpftrace does not start.

tool=$1 cmd=${2:-} out=${3:-/tmp/trace-$1.out}
r=/root/recipes
[ -d /sys/kernel/tracing/events ] || mount -t tracefs tracefs /sys/kernel/tracing
# bpftrace's clang writes to /dev/fd/N, which devtmpfs lacks.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# custom: whether CMDFILE holds a command.
custom() { [ -n "$cmd" ] && grep -q '[^[:space:]]' "$cmd" 2>/dev/null; }

case $tool in
perf)
	if custom; then
		line=$(cat "$r/perf")
		# A second after CMD, for the frees: RCU callbacks drop the
		# credentials' references, the module's reaper frees a table's
		# objects once only the table holds them (every reap_ms).
		(cd /root && eval "${line%% -- *}"' -- sh -c '\''sh "$1"; rc=$?; sleep 1; exit $rc'\'' sh "$cmd"') \
			>"$out.cmd" 2>"$out"
	else
		(cd /root && sh "$r/perf") >"$out.cmd" 2>"$out"
	fi
	rc=$?
	cat "$out.cmd" "$out"
	exit $rc
	;;
tracefs)
	(cd /root && sh "$r/tracefs") >"$out" 2>&1
	rc=$?
	cat "$out"
	exit $rc
	;;
bpftrace)
	line=$(cat "$r/bpftrace")
	[ ! -f /root/tracing/user.bt ] || line="bpftrace tracing/user.bt"
	echo "execns-trace: $line"
	# exec: $! is bpftrace itself, which Ctrl-C (SIGINT) stops.
	(cd /root && eval "exec $line") >"$out" 2>"$out.err" &
	pid=$!
	# Attached once it prints its "Attached N probes" line (0.27), or
	# its first report (the interval probe, 5 s after attaching: 0.17
	# and 0.23 print only "Attaching N probes..." before they attach):
	# under TCG, building the BPF programs takes bpftrace tens of seconds.
	i=0
	while ! grep -qE 'Attached|TABLE' "$out" "$out.err" 2>/dev/null && [ $i -lt 3000 ]; do
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	echo "execns-trace: bpftrace attached after $((i / 10)) s"
	if ! kill -0 $pid 2>/dev/null || ! grep -qE 'Attached|TABLE' "$out" "$out.err"; then
		kill -INT $pid 2>/dev/null
		echo "execns-trace: bpftrace failed:"
		cat "$out" "$out.err"
		exit 125
	fi
	rc=0
	! custom || { sh "$cmd"; rc=$?; }
	sleep 1
	# Events BPF dropped because one of its programs already ran on that
	# CPU: the recursion_misses of bpftrace's programs (their fdinfo).
	cat /proc/$pid/fdinfo/* 2>/dev/null |
		awk '$1 == "recursion_misses:" { n += $2 } END { print n + 0 }' >"$out.misses"
	kill -INT $pid
	wait $pid
	cat "$out" "$out.err"
	echo "execns-trace: bpftrace programs' recursion misses: $(cat "$out.misses")"
	exit $rc
	;;
*) echo "usage: execns-trace perf|bpftrace|tracefs [CMDFILE [OUT]]" >&2; exit 2 ;;
esac
