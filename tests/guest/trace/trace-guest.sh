#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest (as /usr/local/bin/execns-trace): run sh CMDFILE under one
# tracing tool and print the tool's output.
#
# Usage: execns-trace perf|bpftrace CMDFILE [OUT]
#   perf:     perf stat -a -x, -e 'execns:*' over the command
#   bpftrace: /root/trace/user.bt if there is one, else uidacct.bt, from
#             before the command until a second after it (RCU frees)
# Exits with CMDFILE's status, 125 when the tool does not start.

tool=$1 cmd=$2 out=${3:-/tmp/trace-$1.out}
[ -d /sys/kernel/tracing/events ] || mount -t tracefs tracefs /sys/kernel/tracing
# bpftrace's clang writes to /dev/fd/N, which devtmpfs lacks.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd

case $tool in
perf)
	# perf's own status is the command's; the counts go to $out.
	perf stat -a -x, -o "$out" -e 'execns:*' -- sh -c "sh $cmd; rc=\$?; sleep 1; exit \$rc"
	rc=$?
	cat "$out"
	exit $rc
	;;
bpftrace)
	bt=/root/trace/uidacct.bt
	[ -f /root/trace/user.bt ] && bt=/root/trace/user.bt
	bpftrace "$bt" >"$out" 2>"$out.err" &
	pid=$!
	# Attached once it prints its "Attached N probes" line (0.27), or
	# its first report (the interval probe, 5 s after attaching: 0.23
	# prints only "Attaching N probes..." before it attaches): under
	# TCG, building the BPF programs takes bpftrace tens of seconds.
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
	sh "$cmd"
	rc=$?
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
*) echo "usage: execns-trace perf|bpftrace CMDFILE [OUT]" >&2; exit 2 ;;
esac
