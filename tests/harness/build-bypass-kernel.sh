#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build (once) the bypass kernel of the matrix (KERNEL=bypass): the debug
# kernel (build-kernel.sh debug) with tests/bypass/*.patch applied: a
# kernel where put_ucounts(), a release, is inlined into dec_ucount(), which
# costs nothing, and alloc_ucounts(), a hooked function, into a new caller
# of the same file, which the module's load-time proof must find in the
# text and name (verdict partial).  It is built incrementally from a copy of the debug kernel's tree
# (only the patched files and the link are rebuilt: about 2 minutes), with
# "-bypass" appended to the release so that both can be installed.
#
# Layout as the debug kernel's: $EXECNS_CACHE/kernels/bypass/{vmlinuz,
# release,version,cc,key} and /lib/modules/RELEASE/build in the build root.
# The cache key is the debug kernel's key and the patches' hash.
#
# Usage: build-bypass-kernel.sh		(prints nothing on a warm cache)

. "$(dirname "$0")/common.sh"

name=bypass
out=$(kdir "$name")
dbg=$(kdir debug)
PATCHES=$TOP/tests/bypass
D=/usr/src/execns-built			# in the build root, beside the debug trees (build-kernel.sh)
CC_NAME=x86_64-linux-gnu-gcc-14
MK="ARCH=x86_64 CC=$CC_NAME HOSTCC=$CC_NAME LOCALVERSION=-bypass"

patch_hash() { cat "$PATCHES"/*.patch | sha256sum | cut -c1-12; }
key() { echo "$(cat "$dbg/key")-$(patch_hash)"; }

warm() {
	[ -s "$out/key" ] && [ -s "$out/vmlinuz" ] && [ -s "$dbg/key" ] || return 1
	[ "$(cat "$out/key")" = "$(key)" ] || return 1
	[ "$(readlink "$ROOT/lib/modules/$(cat "$out/release")/build")" = "$D/bypass-$(key)" ] &&
		[ -s "$ROOT$D/bypass-$(key)/Module.symvers" ]
}

build() {
	local k ver src build t0 release p
	k=$(key) ver=$(cat "$dbg/version")
	src=$D/bypass-src-$k build=$D/bypass-$k
	t0=$(date +%s)
	note "building the bypass kernel (the debug kernel with tests/bypass/*.patch, $(patch_hash))"
	rm -rf "$ROOT$src" "$ROOT$build"
	# The source as hard links to the debug kernel's pristine tree
	# (tree_link_copy, tree_apply: common.sh).
	tree_link_copy "$ROOT$D/src-$ver" "$ROOT$src" || die "copying the debug kernel's source failed"
	for p in "$PATCHES"/*.patch; do
		tree_apply "$ROOT$src" "$p" || die "$(basename "$p") does not apply to linux-source-6.12 $ver"
	done
	cp -a "$ROOT$D/debug-$(cat "$dbg/key")" "$ROOT$build" || die "copying the debug kernel's tree failed"
	# Built with the patched source mounted over the debug kernel's, in
	# in_root's private mount namespace: every command line then names the
	# same source directory as the copied tree's, and make rebuilds only
	# what the patches and the release string change.
	logged bypass-build.log in_root sh -c \
		"mount --bind $src $D/src-$ver && cd $build && nice -n 19 make $MK -j$(nproc) bzImage modules" ||
		die "building the bypass kernel failed (log: $LOGS/bypass-build.log)"
	release=$(in_root make -s -C "$build" $MK kernelrelease)
	mkdir -p "$ROOT/lib/modules/$release"
	ln -sfn "$build" "$ROOT/lib/modules/$release/build"
	find "$ROOT$D" -maxdepth 1 \( -name 'bypass-*' ! -name "bypass-$k" ! -name "bypass-src-$k" \) -exec rm -rf {} +

	rm -rf "$out.tmp" && mkdir -p "$out.tmp"
	cp "$ROOT$build/arch/x86/boot/bzImage" "$out.tmp/vmlinuz"
	printf '%s\n' "$release" >"$out.tmp/release"
	printf '%s\n' "$ver" >"$out.tmp/version"
	printf '%s\n' "$CC_NAME" >"$out.tmp/cc"
	printf '%s\n' "$k" >"$out.tmp/key"
	rm -rf "$out" && mv "$out.tmp" "$out"
	note "bypass kernel $release built in $(( $(date +%s) - t0 )) s"
}

main() {
	warm && exit 0
	"$TOP/tests/harness/build-kernel.sh" debug
	exec 7>"$EXECNS_CACHE/.bypass-kernel.lock"
	flock 7
	warm && exit 0
	build
}

main "$@"
