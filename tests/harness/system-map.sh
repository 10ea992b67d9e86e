#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A real System.map for a stock kernel of the matrix, in $kd/System.map
# (Debian's package ships a placeholder; the real one is in the -dbg
# package, which the suites do not keep for old kernels).  It comes from
# /proc/kallsyms of one nokaslr boot, so its addresses are the link-time ones
# of the vmlinux inside vmlinuz.  The dump travels over vm.sh's results
# channel, apart from kernel messages, gzip keeps it short on the serial
# line, base64 (or where busybox has none, bullseye's, uuencode -m without
# its first and last lines) keeps it text, and _stext proves it whole.  Cached: later calls print nothing.
#
# Usage: system-map.sh KERNEL		(exit 2 with one line if no map)

. "$(dirname "$0")/common.sh"

kernel=${1:?usage: system-map.sh KERNEL}
kd=$(kdir "$kernel")
map=$kd/System.map
log=$LOGS/kallsyms-$kernel.console.log
for try in 1 2; do
	[ -s "$map" ] && break
	note "$kernel: reading /proc/kallsyms from a nokaslr boot for System.map (try $try)"
	BOOTARGS=nokaslr EXECNS_CONSOLE=$log EXECNS_RESULTS=$LOGS/kallsyms-$kernel.results.log EXECNS_TIMEOUT=900 "$TOP/tests/harness/vm.sh" "$kernel" run \
		'echo 0 >/proc/sys/kernel/kptr_restrict; grep -v "\[" /proc/kallsyms | gzip -c |
		if command -v base64 >/dev/null; then base64; else uuencode -m - | sed "1d;\$d"; fi' \
		2>/dev/null | base64 -d 2>/dev/null | gunzip 2>/dev/null >"$map.tmp" &&
		grep -q ' T _stext$' "$map.tmp" && mv "$map.tmp" "$map"
done
rm -f "$map.tmp"
[ -s "$map" ] || die "$kernel: no symbol table from two kallsyms boots (console: $log)"
