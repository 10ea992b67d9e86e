#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest (tests/harness/deb-use-check.sh installs it as
# /usr/local/lib/execns/deb-use and runs it with dash): the Debian
# packages used as README.md and the docs tell a user, with the packages'
# files only (deb-check.sh's autopkgtest-root: /usr/bin/execns, the
# execns.ko DKMS built, kmod, execns-dkms's examples, the tracing
# scripts), as KTAP, four results:
# 1. the modprobe.d example: copied to /etc/modprobe.d as shipped, modprobe
#    execns sets nothing (forbid_unshare N, unshare -i works); with its
#    forbid_unshare line uncommented, modprobe applies it: the parameter
#    reads Y, unshare -i and -U fail with EINVAL, rmmod is refused until 0
#    is written to the parameter, then succeeds;
# 2. the modules-load.d example: it names execns, and modprobe of each
#    name it lists loads the module (what systemd-modules-load does at
#    boot; the guest has no systemd);
# 3. SystemTap: the packaged /usr/share/execns/uidacct.stp, which
#    deb-check.sh compiled with the packaged tapset (no -I) against this
#    execns.ko, run with staprun around `execns -t true`: its last report
#    must show the table's uid 0 allocated and freed (a skip where
#    /root/stap has no such module: not the deb-trace row);
# 4. bpftrace: `bpftrace /usr/share/execns/uidacct.bt` with the kernel's
#    own release's bpftrace around `execns -t true`: @alloc and @free of
#    the table's uid 0, and "tables created 1 destroyed 1" (a skip where
#    the guest has no bpftrace, or bullseye's 0.11, which cannot run it:
#    docs/tracing.md).
# Plain POSIX sh, run by dash: the guest's busybox sh would run its own
# modprobe and rmmod applets ahead of kmod's.  kmod's are called by path,
# execns by its packaged path (/usr/local/bin has the tree's own build).

. /usr/local/lib/execns/lib.sh

EX=/usr/share/doc/execns-dkms/examples
EXECNS=/usr/bin/execns
MODPROBE=/usr/sbin/modprobe RMMOD=/usr/sbin/rmmod
P=/sys/module/execns/parameters

# retry30 WHAT CMD...: CMD again each second until it succeeds, 30 s at
# most; then says WHAT failed, with CMD's last output.
retry30() {
	what=$1
	shift
	i=0
	until out=$("$@" 2>&1); do
		[ $i -lt 30 ] || { echo "# $what, for 30 s: $out"; return 1; }
		sleep 1
		i=$((i + 1))
	done
}

# unload: rmmod execns, retried while the uid hooks stay armed after a
# table (disarm_delay_ms).
unload() { retry30 "rmmod execns" $RMMOD execns; }

# tables_gone: wait until the module has no uid table left: the reaper
# frees an unused table within reap_ms, after RCU's grace period.
tables_gone() {
	retry30 "waiting for 'tables 0'" grep -qx 'tables 0' /proc/execns/stats ||
		{ echo "# /proc/execns/stats: $(cat /proc/execns/stats)"; return 1; }
}

# around_table PID: a uid table made and dropped (execns -t true) while the
# tracer PID runs, then the tracer stopped (SIGINT: its last report) and
# waited for, 30 s at most.  Fails if the table did not come and go.
around_table() {
	rc=0
	out=$($EXECNS -t true 2>&1) || { echo "# execns -t true: $out"; rc=1; }
	tables_gone || rc=1
	sleep 1
	kill -INT "$1"
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	return $rc
}

# einval CMD...: CMD fails, saying EINVAL (busybox's unshare prints
# strerror's "Invalid argument").
einval() {
	out=$("$@" 2>&1) && { echo "# $*: succeeded while forbid_unshare=1"; return 1; }
	case $out in
	*"Invalid argument"*) echo "# $*: $out" ;;
	*) echo "# $*: failed, but not with EINVAL: $out"; return 1 ;;
	esac
}

ktap_start 4
[ ! -d /sys/module/execns ] || unload

# --- 1. /etc/modprobe.d/execns.conf from the example ---
ok=0
mkdir -p /etc/modprobe.d
if ! cp "$EX/modprobe.d/execns.conf" /etc/modprobe.d/execns.conf; then
	ok=1
elif ! out=$($MODPROBE execns 2>&1); then
	echo "# modprobe execns with the example as shipped: $out"
	ok=1
else
	echo "# as shipped: forbid_unshare $(cat $P/forbid_unshare), syscall_nr $(cat $P/syscall_nr)"
	[ "$(cat $P/forbid_unshare)" = N ] || { echo "# the example as shipped sets forbid_unshare"; ok=1; }
	out=$(unshare -i true 2>&1) || { echo "# unshare -i true with forbid_unshare off: $out"; ok=1; }
	unload || ok=1
	sed -i 's/^#options execns forbid_unshare=1$/options execns forbid_unshare=1/' /etc/modprobe.d/execns.conf
	if ! grep -qx 'options execns forbid_unshare=1' /etc/modprobe.d/execns.conf; then
		echo "# the example has no line '#options execns forbid_unshare=1' to uncomment"
		ok=1
	elif ! out=$($MODPROBE execns 2>&1); then
		echo "# modprobe execns with forbid_unshare=1 uncommented: $out"
		ok=1
	else
		v=$(cat $P/forbid_unshare)
		echo "# uncommented: forbid_unshare $v"
		[ "$v" = Y ] || ok=1
		einval unshare -i true || ok=1
		einval unshare -U true || ok=1
		if out=$($RMMOD execns 2>&1); then
			echo "# rmmod execns succeeded while forbid_unshare was 1"
			ok=1
		else
			echo "# rmmod while forbid_unshare=1: $out"
		fi
		echo 0 >$P/forbid_unshare || ok=1
		[ "$(cat $P/forbid_unshare 2>/dev/null)" = N ] || ok=1
		out=$(unshare -i true 2>&1) || { echo "# unshare -i true after writing 0: $out"; ok=1; }
		unload || ok=1
	fi
fi
rm -f /etc/modprobe.d/execns.conf
ktap_result $ok "the modprobe.d example: as shipped it sets nothing; with forbid_unshare=1 uncommented, modprobe applies it (unshare -i and -U fail with EINVAL, rmmod refused), and writing 0 lets rmmod unload"

# --- 2. /etc/modules-load.d/execns.conf from the example ---
ok=0
mkdir -p /etc/modules-load.d
cp "$EX/modules-load.d/execns.conf" /etc/modules-load.d/execns.conf || ok=1
# systemd-modules-load: one name a line, # and ; start comments.
names=$(grep -v '^[#;]' /etc/modules-load.d/execns.conf | tr -d ' \t' | grep -v '^$' | tr '\n' ' ')
echo "# modules-load.d/execns.conf names: $names"
[ "$names" = "execns " ] || ok=1
for n in $names; do
	out=$($MODPROBE "$n" 2>&1) || { echo "# modprobe $n: $out"; ok=1; }
done
{ [ -d /sys/module/execns ] && [ "$(cat $P/forbid_unshare 2>/dev/null)" = N ]; } ||
	{ echo "# execns is not loaded, or not with forbid_unshare off"; ok=1; }
ktap_result $ok "the modules-load.d example names execns, and modprobe of what it lists loads it with its defaults (as systemd-modules-load at boot)"
[ -d /sys/module/execns ] || $MODPROBE execns

# --- 3. the packaged uidacct.stp ---
name="SystemTap: /usr/share/execns/uidacct.stp built with the packaged tapset, run with staprun around execns -t true, shows the table's uid 0 allocated and freed"
ko=/root/stap/execns_uidacct.ko
if [ ! -f "$ko" ]; then
	ktap_result SKIP "$name" "no packaged script built for this kernel (deb-check.sh builds it for the deb-trace row of tests/kernels.conf)"
elif [ ! -d /sys/module/execns ]; then
	ktap_result 1 "$name"
else
	ok=0
	staprun -o /tmp/stap.out "$ko" 2>/tmp/stap.err &
	pid=$!
	i=0
	while [ ! -d /sys/module/execns_uidacct ] && [ $i -lt 300 ] && kill -0 $pid 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 2
	if ! kill -0 $pid 2>/dev/null; then
		echo "# staprun $ko failed:"
		sed 's/^/# /' /tmp/stap.err
		ok=1
	else
		around_table $pid || ok=1
		sed 's/^/# stap: /' /tmp/stap.out /tmp/stap.err
		# The last report: the lines after its last header.
		row=$(awk '$1 == "TABLE" { n = 0; next } { last[++n] = $0 } END { for (i = 1; i <= n; i++) print last[i] }' /tmp/stap.out |
			awk '$1 > 0 && $2 == 0 && $3 >= 1 && $4 == $3 { print; exit }')
		[ -n "$row" ] || { echo "# no row of a table's uid 0 allocated and freed in uidacct.stp's last report"; ok=1; }
	fi
	ktap_result $ok "$name"
fi

# --- 4. the packaged uidacct.bt ---
name="bpftrace: bpftrace /usr/share/execns/uidacct.bt around execns -t true shows the table's uid 0 allocated and freed, 1 table created and destroyed"
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
bv=$(bpftrace --version 2>/dev/null | head -n 1)
case $bv in
'') ktap_result SKIP "$name" "no bpftrace in this guest (deb-use-check.sh gives the deb-trace row its release's)" ;;
*' v0.1[01].'*) ktap_result SKIP "$name" "$bv cannot run uidacct.bt (docs/tracing.md, Kernels before 6.1)" ;;
*)
	ok=0
	echo "# $bv"
	bpftrace /usr/share/execns/uidacct.bt >/tmp/bt.out 2>/tmp/bt.err &
	pid=$!
	# Attached once it says so (0.27) or prints its first report.
	i=0
	while ! grep -qE 'Attached|TABLE' /tmp/bt.out /tmp/bt.err 2>/dev/null && [ $i -lt 3000 ] && kill -0 $pid 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	if ! kill -0 $pid 2>/dev/null || ! grep -qE 'Attached|TABLE' /tmp/bt.out /tmp/bt.err; then
		kill -INT $pid 2>/dev/null
		echo "# bpftrace did not start:"
		sed 's/^/# /' /tmp/bt.out /tmp/bt.err
		ok=1
	else
		echo "# bpftrace attached after $((i / 10)) s"
		around_table $pid || ok=1
		grep -v '^$' /tmp/bt.out | sed 's/^/# bpftrace: /'
		sed 's/^/# bpftrace: /' /tmp/bt.err
		t=$(sed -n 's/^@alloc\[\([1-9][0-9]*\), 0\]: 1$/\1/p' /tmp/bt.out | tail -n 1)
		{ [ -n "$t" ] && grep -qx "@free\[$t, 0\]: 1" /tmp/bt.out; } ||
			{ echo "# no @alloc[T, 0]: 1 and @free[T, 0]: 1 for a table T"; ok=1; }
		[ "$(grep '^tables created' /tmp/bt.out | tail -n 1)" = "tables created 1 destroyed 1" ] ||
			{ echo "# the last report does not say: tables created 1 destroyed 1"; ok=1; }
	fi
	ktap_result $ok "$name"
	;;
esac

[ ! -d /sys/module/execns ] || unload
ktap_done
