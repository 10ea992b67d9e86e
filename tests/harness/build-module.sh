#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build execns.ko for one kernel of the matrix, inside the build root, with
# the compiler that kernel's headers were configured with.  The sources are
# copied to a per-kernel directory so kernels never share objects.
#
# Usage: build-module.sh KERNEL [extra kbuild arguments, e.g. C=1]

. "$(dirname "$0")/common.sh"

kernel=$1; shift
kd=$(kdir "$kernel")
"$TOP/tests/harness/fetch-kernel.sh" "$kernel"
release=$(cat "$kd/release")
b=/build/$TREE/$kernel

# Concurrent builds of one tree for one kernel would share objects.
exec 8>"$EXECNS_CACHE/.build-$TREE-$kernel.lock"
flock 8

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
mkdir -p "$(dirname "$(kmod "$kernel")")"
# By rename: a guest of this kernel in another lane of check.sh may be
# reading the last one into its initramfs.
cp "$ROOT$b/execns.ko" "$(kmod "$kernel").$$"
mv -f "$(kmod "$kernel").$$" "$(kmod "$kernel")"
