#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build execns.ko for one kernel of the matrix, inside the build root, with
# the compiler that kernel's headers were configured with.  The sources are
# copied to a per-kernel directory so kernels never share objects.
#
# Every guest boot asks for the module (vm.sh), and kbuild takes 3 s of CPU
# to find nothing to do: when the sources, the kernel and the arguments are
# those of the last build, whose execns.ko is still there, it is not asked
# again.  EXECNS_REBUILD=1 deletes the objects first, so every file is
# compiled and its warnings shown again (lint.sh's W=1 check).
#
# Usage: build-module.sh KERNEL [extra kbuild arguments, e.g. C=1]

. "$(dirname "$0")/common.sh"

kernel=$1; shift
kd=$(kdir "$kernel")
"$TOP/tests/harness/fetch-kernel.sh" "$kernel"
release=$(cat "$kd/release")
b=/build/$TREE/$kernel
ko=$(kmod "$kernel")

# stamp: what the build depends on, as one hash: the sources, and the
# kernel's release, Debian version and compiler (the debug kernel's
# configuration too: its cache key).
stamp() {
	(cd "$TOP" && find Kbuild VERSION module -type f -print0 | sort -z | xargs -0 sha1sum
		cat "$kd/release" "$kd/version" "$kd/cc"
		[ ! -e "$kd/key" ] || cat "$kd/key") | sha1sum | cut -d' ' -f1
}

# Concurrent builds of one tree for one kernel would share objects.
exec 8>"$EXECNS_CACHE/.build-$TREE-$kernel.lock"
flock 8
if [ $# -eq 0 ] && [ "${EXECNS_REBUILD:-}" != 1 ] && [ -e "$ko" ] &&
	[ "$(cat "$ko.stamp" 2>/dev/null)" = "$(stamp)" ]; then
	exit 0
fi
rm -f "$ko.stamp"

mkdir -p "$ROOT$b"
cp "$TOP/Kbuild" "$TOP/VERSION" "$ROOT$b/"
rm -rf "$ROOT$b/module.new" && cp -r "$TOP/module" "$ROOT$b/module.new"
# Keep the objects of unchanged sources: replace only what differs.
(cd "$ROOT$b/module.new" && find . -type f) | while read -r f; do
	cmp -s "$ROOT$b/module.new/$f" "$ROOT$b/module/$f" || {
		mkdir -p "$(dirname "$ROOT$b/module/$f")"
		cp -p "$ROOT$b/module.new/$f" "$ROOT$b/module/$f"
	}
done
rm -rf "$ROOT$b/module.new"
[ "${EXECNS_REBUILD:-}" != 1 ] || find "$ROOT$b" \( -name '*.o' -o -name '*.ko' \) -delete
[ "${EXECNS_REBUILD:-}" != 1 ] || find "$ROOT$b" \( -name '*.o' -o -name '*.ko' \) -delete

# Always W=1: the module must be clean under it (make lint), and a kbuild
# flag change rebuilds every object, so the suite's build and lint's W=1
# and sparse (C=2, which only adds a checker pass) share one set.
if ! logged "build-$kernel.log" kbuild_ext "$kernel" "$b" CONFIG_DEBUG_INFO_BTF_MODULES= W=1 "$@"; then
	grep -iE 'error|warning' "$LOGS/build-$kernel.log" | head -n 20 >&2
	die "building execns.ko for $kernel ($release) failed (log: $LOGS/build-$kernel.log)"
fi
# Warnings, and kbuild's note that it skipped a C= checker it cannot run.
grep -E 'warning:|specified, but .* is not available' "$LOGS/build-$kernel.log" |
	grep -v 'pahole version differs' >&2 || true
mkdir -p "$(dirname "$ko")"
# By rename: a guest of this kernel in another lane of check.sh may be
# reading the last one into its initramfs.
cp "$ROOT$b/execns.ko" "$ko.$$"
mv -f "$ko.$$" "$ko"
# Whatever the arguments (W=1 is always on; C=2 adds a checker pass),
# execns.ko is the same, so the stamp is that of the sources.
stamp >"$ko.stamp"
