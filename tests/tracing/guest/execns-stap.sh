#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest (as /usr/local/bin/execns-stap): start and stop the SystemTap
# modules that tests/tracing/host/stap-run.sh compiled into /root/stap/NAME.ko.
# Each one's output goes to /tmp/stap-NAME.out.
#
# Usage: execns-stap start NAME | stop NAME | run CMDFILE
#   run: start every module, run sh CMDFILE, stop them all and print each
#   one's output under "=== stap NAME ===".  Exits with CMDFILE's status.

D=/root/stap

start() {
	staprun -o "/tmp/stap-$1.out" "$D/$1.ko" 2>"/tmp/stap-$1.err" &
	echo $! >"/tmp/stap-$1.pid"
	i=0
	# Loaded, then a moment for stapio to start the probes.
	while [ ! -d "/sys/module/$1" ] && [ $i -lt 300 ]; do
		kill -0 $! 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	sleep 2
	if ! kill -0 $! 2>/dev/null; then
		echo "execns-stap: staprun $1 failed:"
		cat "/tmp/stap-$1.err"
		return 1
	fi
}

stop() {
	pid=$(cat "/tmp/stap-$1.pid" 2>/dev/null) || return 0
	kill -INT "$pid" 2>/dev/null
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	rm -f "/tmp/stap-$1.pid"
	[ -s "/tmp/stap-$1.err" ] && sed "s/^/execns-stap: $1: /" "/tmp/stap-$1.err"
	return 0
}

names() {
	for ko in "$D"/*.ko; do
		n=${ko##*/}
		echo "${n%.ko}"
	done
}

case $1 in
start) start "$2" ;;
stop) stop "$2" ;;
run)
	for n in $(names); do
		start "$n" || exit 125
	done
	sh "$2"
	rc=$?
	sleep 1		# let RCU callbacks and the module's reaper free user_structs
	for n in $(names); do
		stop "$n"
		echo "=== stap $n ==="
		cat "/tmp/stap-$n.out"
	done
	exit $rc
	;;
*) echo "usage: execns-stap start NAME | stop NAME | run CMDFILE" >&2; exit 2 ;;
esac
