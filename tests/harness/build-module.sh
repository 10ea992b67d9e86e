#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build execns.ko for one kernel of the matrix, inside the build root, with
# the compiler that kernel's headers were configured with, and beside it the
# suite's IP modifiers, tests/guest/ipmod's IPMODIFY probe and livepatch
# (the livepatch only where the kernel has CONFIG_LIVEPATCH; with the same
# flags, so lint's W=1 and sparse passes cover it too).  The sources are
# copied to a per-kernel directory so kernels never share objects.
#
# Every guest boot asks for the modules (vm.sh), and kbuild takes 3 s of
# CPU to find nothing to do: when the sources, the kernel and its compiler
# are those of the last build, whose modules are still there, it is not
# asked again (a build with arguments always runs).  EXECNS_REBUILD=1
# deletes the objects first, so every file is compiled and its warnings
# shown again (lint.sh's W=1 and sparse check).
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
	(cd "$TOP" && find Kbuild VERSION module tests/guest/ipmod -type f -print0 | sort -z | xargs -0 sha1sum
		cat "$kd/release" "$kd/version" "$kd/cc"
		[ ! -e "$kd/key" ] || cat "$kd/key") | sha1sum | cut -d' ' -f1
}

# Concurrent builds of one tree for one kernel would share objects.
exec 8>"$EXECNS_CACHE/.build-$TREE-$kernel.lock"
flock 8
if [ $# -eq 0 ] && [ "${EXECNS_REBUILD:-}" != 1 ] &&
	[ -e "$ko" ] && [ -e "$(kmod "$kernel" execns_ipmod)" ] &&
	[ "$(cat "$ko.stamp" 2>/dev/null)" = "$(stamp)" ]; then
	exit 0
fi
rm -f "$ko.stamp"

# sync_dir SRC DST: DST becomes a copy of SRC, but only the files that
# differ are replaced, so the objects of unchanged sources are kept.
sync_dir() {
	rm -rf "$2.new" && cp -r "$1" "$2.new"
	(cd "$2.new" && find . -type f) | while read -r f; do
		cmp -s "$2.new/$f" "$2/$f" || {
			mkdir -p "$(dirname "$2/$f")"
			cp -p "$2.new/$f" "$2/$f"
		}
	done
	rm -rf "$2.new"
}

# Taken before the copy: a source saved during the build must not label
# these objects.
s=$(stamp)
mkdir -p "$ROOT$b"
cp "$TOP/Kbuild" "$TOP/VERSION" "$ROOT$b/"
sync_dir "$TOP/module" "$ROOT$b/module"
sync_dir "$TOP/tests/guest/ipmod" "$ROOT$b-ipmod"
[ "${EXECNS_REBUILD:-}" != 1 ] ||
	find "$ROOT$b" "$ROOT$b-ipmod" \( -name '*.o' -o -name '*.ko' \) -delete
# A livepatch left from a build with CONFIG_LIVEPATCH must not be shipped.
rm -f "$ROOT$b-ipmod/execns_klp.ko"

# Always W=1: the module must be clean under it (make lint), and a kbuild
# flag change rebuilds every object, so the suite's build and lint's W=1
# and sparse rebuild (C=1, which only adds a checker pass) share one set.
if ! logged "build-$kernel.log" kbuild_ext "$kernel" "$b" CONFIG_DEBUG_INFO_BTF_MODULES= W=1 "$@"; then
	grep -iE 'error|warning' "$LOGS/build-$kernel.log" | head -n 20 >&2
	die "building execns.ko for $kernel ($release) failed (log: $LOGS/build-$kernel.log)"
fi
if ! logged "build-$kernel-ipmod.log" kbuild_ext "$kernel" "$b-ipmod" CONFIG_DEBUG_INFO_BTF_MODULES= W=1 "$@"; then
	grep -iE 'error|warning' "$LOGS/build-$kernel-ipmod.log" | head -n 20 >&2
	die "building the IPMODIFY probe (tests/guest/ipmod) for $kernel ($release) failed (log: $LOGS/build-$kernel-ipmod.log)"
fi
# Warnings, and kbuild's note that it skipped a C= checker it cannot run.
cat "$LOGS/build-$kernel.log" "$LOGS/build-$kernel-ipmod.log" |
	grep -E 'warning:|specified, but .* is not available' |
	grep -v 'pahole version differs' >&2 || true
mkdir -p "$(dirname "$ko")"
# By rename: a guest of this kernel in another lane of check.sh may be
# reading the last one into its initramfs.
rm -f "$(kmod "$kernel" execns_klp)"
for m in "$b/execns" "$b-ipmod/execns_ipmod" "$b-ipmod/execns_klp"; do
	[ -e "$ROOT$m.ko" ] || continue
	cp "$ROOT$m.ko" "$(kmod "$kernel" "${m##*/}").$$"
	mv -f "$(kmod "$kernel" "${m##*/}").$$" "$(kmod "$kernel" "${m##*/}")"
done
# Whatever the arguments (W=1 is always on; C= adds a checker pass), the
# modules are the same, so the stamp is that of the sources.
printf '%s\n' "$s" >"$ko.stamp"
