#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build (once) a kernel of the matrix that is another row's built kernel
# with patches applied: the row's recipe, tests/kernels/NAME.recipe, names
# that row (BASE=) and the directory of its patches (PATCHES=, from the top
# of the tree).  KERNEL=bypass is the debug kernel with tests/bypass/*.patch:
# put_ucounts(), a release, inlined into dec_ucount(), which costs nothing,
# and alloc_ucounts(), a hooked function, into a new caller of the same
# file, which the module's load-time proof must find in the text and name
# (verdict partial).  It is built incrementally from a copy of the base
# kernel's tree (only the patched files and the link are rebuilt: under a
# minute), with "-NAME" appended to the release so that both can be
# installed.
#
# Layout as the base kernel's: $EXECNS_CACHE/kernels/NAME/{vmlinuz,
# release,version,cc,key} and /lib/modules/RELEASE/build in the build root.
# The cache key is the base kernel's key and the patches' hash.
#
# Usage: build-patched-kernel.sh NAME	(prints nothing on a warm cache)

. "$(dirname "$0")/common.sh"

[ $# -eq 1 ] || die "usage: build-patched-kernel.sh NAME"
name=$1
base=$(recipe_value "$name" BASE)
PATCHES=$TOP/$(recipe_value "$name" PATCHES)
[ -n "$base" ] && [ -d "$PATCHES" ] || die "KERNEL=$name: tests/kernels/$name.recipe names no BASE= row and PATCHES= directory"
out=$(kdir "$name")
dbg=$(kdir "$base")
D=/usr/src/execns-built			# in the build root, beside the base kernel's trees (build-kernel.sh)
CC_NAME=$(recipe_value "$base" CC_NAME)
MK="ARCH=x86_64 CC=$CC_NAME HOSTCC=$CC_NAME LOCALVERSION=-$name"

patch_hash() { cat "$PATCHES"/*.patch | sha256sum | cut -c1-12; }
key() { echo "$(cat "$dbg/key")-$(patch_hash)"; }

warm() {
	[ -s "$out/key" ] && [ -s "$out/vmlinuz" ] && [ -s "$dbg/key" ] || return 1
	[ "$(cat "$out/key")" = "$(key)" ] || return 1
	[ "$(readlink "$ROOT/lib/modules/$(cat "$out/release")/build")" = "$D/$name-$(key)" ] &&
		[ -s "$ROOT$D/$name-$(key)/Module.symvers" ]
}

build() {
	local k ver src build t0 release p
	k=$(key) ver=$(cat "$dbg/version")
	src=$D/$name-src-$k build=$D/$name-$k
	t0=$(date +%s)
	note "building the $name kernel (the $base kernel with ${PATCHES#"$TOP"/}/*.patch, $(patch_hash))"
	rm -rf "$ROOT$src" "$ROOT$build"
	# The source as hard links to the base kernel's pristine tree
	# (tree_link_copy, tree_apply: common.sh).
	tree_link_copy "$ROOT$D/src-$ver" "$ROOT$src" || die "copying the $base kernel's source failed"
	for p in "$PATCHES"/*.patch; do
		tree_apply "$ROOT$src" "$p" || die "$(basename "$p") does not apply to the $base kernel's source ($ver)"
	done
	cp -a "$ROOT$D/$base-$(cat "$dbg/key")" "$ROOT$build" || die "copying the $base kernel's tree failed"
	# Built with the patched source mounted over the base kernel's, in
	# in_root's private mount namespace: every command line then names the
	# same source directory as the copied tree's, and make rebuilds only
	# what the patches and the release string change.
	logged "$name-build.log" in_root sh -c \
		"mount --bind $src $D/src-$ver && cd $build && nice -n 19 make $MK -j$(nproc) bzImage modules" ||
		die "building the $name kernel failed (log: $LOGS/$name-build.log)"
	release=$(in_root make -s -C "$build" $MK kernelrelease)
	mkdir -p "$ROOT/lib/modules/$release"
	ln -sfn "$build" "$ROOT/lib/modules/$release/build"
	find "$ROOT$D" -maxdepth 1 \( -name "$name-*" ! -name "$name-$k" ! -name "$name-src-$k" \) -exec rm -rf {} +

	rm -rf "$out.tmp" && mkdir -p "$out.tmp"
	cp "$ROOT$build/arch/x86/boot/bzImage" "$out.tmp/vmlinuz"
	printf '%s\n' "$release" >"$out.tmp/release"
	printf '%s\n' "$ver" >"$out.tmp/version"
	printf '%s\n' "$CC_NAME" >"$out.tmp/cc"
	printf '%s\n' "$k" >"$out.tmp/key"
	rm -rf "$out" && mv "$out.tmp" "$out"
	note "$name kernel $release built in $(( $(date +%s) - t0 )) s"
}

main() {
	warm && exit 0
	"$TOP/tests/harness/build-kernel.sh" "$base"
	exec 7>"$EXECNS_CACHE/.$name-kernel.lock"
	flock 7
	warm && exit 0
	build
}

main "$@"
