#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The kmemleak self-test of one kernel, as KTAP: proof that
# post-rmmod-kmemleak, the suite's "nothing left behind" check, can fail.
# A boot of its own (a leak would make the suite's kernel-log check fail)
# loads tests/guest/leak's module, which leaks objects on purpose, and runs
# the same post-rmmod-kmemleak: it must fail, name the leaking function in
# the report's backtrace, and the guest's kernel-log check must trip on
# kmemleak's line.  A kernel without CONFIG_DEBUG_KMEMLEAK (the stock ones)
# skips without booting.
#
# Usage: kmemleak-selftest.sh KERNEL

. "$(dirname "$0")/common.sh"

kernel=${1:?usage: kmemleak-selftest.sh KERNEL}
"$TOP/tests/harness/fetch-kernel.sh" "$kernel"
kd=$(kdir "$kernel")
NAME="kmemleak self-test: post-rmmod-kmemleak fails on a leak"
n=0

echo "KTAP version 1"
echo "1..3"
# The kernel's .config, in its build tree.
config=$(cat "$(kbuild_host "$kernel")/.config") ||
	die "no .config in $kernel's build tree ($(kbuild_dir "$kernel") in the build root)"
if ! grep -qx 'CONFIG_DEBUG_KMEMLEAK=y' <<<"$config"; then
	for t in "$NAME" "kmemleak self-test: the report names the leak's backtrace" \
		"kmemleak self-test: the kernel-log check trips on the leak"; do
		echo "ok $((++n)) - $t # SKIP $kernel is built without CONFIG_DEBUG_KMEMLEAK"
	done
	exit 0
fi

# The leaking module, built like execns.ko (build-module.sh) in a directory of its own.
b=/build/$TREE/$kernel-leak
exec 8>"$EXECNS_CACHE/.build-$TREE-$kernel-leak.lock"
flock 8
rm -rf "$ROOT$b" && mkdir -p "$ROOT$b"
cp "$TOP"/tests/guest/leak/Kbuild "$TOP"/tests/guest/leak/*.c "$ROOT$b/"
logged "build-$kernel-leak.log" kbuild_ext "$kernel" "$b" ||
	die "building the leak module for $kernel failed (log: $LOGS/build-$kernel-leak.log)"
work=$(mktemp -d /tmp/execns-leak.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp "$ROOT$b/execns_leak.ko" "$work/"

set +e
"$TOP/tests/harness/vm.sh" "$kernel" run \
	'insmod /root/execns_leak.ko && post-rmmod-kmemleak' "$work/execns_leak.ko" \
	>"$work/out" 2>"$work/err"
rc=$?
set -e
sed 's/^/# /' "$work/out"
sed 's/^/# stderr: /' "$work/err"

ok() {	# ok N CONDITION-STATUS NAME
	if [ "$2" -eq 0 ]; then echo "ok $1 - $3"; else echo "not ok $1 - $3"; failed=1; fi
}
failed=0
r=0
[ "$rc" = 1 ] && grep -qE '^not ok 2 - no unreferenced object .*\(([1-9][0-9]*) reported\)' "$work/out" || r=1
ok 1 $r "$NAME (exit $rc)"
r=0
grep -q 'unreferenced object' "$work/out" && grep -qE 'execns_leak_one\+0x[0-9a-f]+/0x[0-9a-f]+ \[execns_leak\]' "$work/out" || r=1
ok 2 $r "kmemleak self-test: the report names the leak's backtrace (execns_leak_one)"
r=0
grep -qE 'kmemleak: [0-9]+ new suspected memory leaks' "$work/err" || r=1
ok 3 $r "kmemleak self-test: the kernel-log check trips on the leak"
exit $failed
