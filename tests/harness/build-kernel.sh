#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build (once) one of the matrix's kernels built here from Debian's
# linux-source-6.12, newest in the suites of its tests/kernels.conf line:
# `make allnoconfig` plus tests/kernels/guest.config (what the guest and the
# module need) plus the row's own fragment, with the row's compiler (recipe
# below), in the build root.
#   debug: the bug detectors (KASAN, lockdep, UBSAN, kmemleak, fault
#          injection), GCC 14 as Debian's own 6.12 kernels;
#   lto:   clang 19 with ThinLTO, a kernel where the linker may inline
#          across files, which the module's load-time proof must refuse;
#   twin:  the in-tree twin, upstream/series applied to the source version
#          its "# base:" line names, GCC 14, guest.config only: execns(2)
#          without the module;
#   twin-debug: the same series with debug's fragments (not in the default
#          make check: the series under KASAN and lockdep);
#   twin-base: the twin without the series: the same source version, config
#          and compiler, the module's kernel for make bench's in-tree column
#          (not in make check).
# (The bypass kernel is the debug kernel's tree patched and rebuilt
# incrementally: build-bypass-kernel.sh.)
# The result has a stock kernel's layout: $EXECNS_CACHE/kernels/NAME/
# {vmlinuz,release,version,cc,key} and, in the build root,
# /lib/modules/RELEASE/build pointing at the built tree (with
# Module.symvers) that build-module.sh builds execns.ko against.
#
# The cache key is the source package's version, the compiler and the hash
# of the fragments' option lines (frag_hash): the same key is a warm cache
# (nothing runs); a changed option rebuilds.  The source version is
# resolved on the first build and kept, as a stock kernel's is (make
# fetch-refresh resolves it again).
#
# Usage: build-kernel.sh NAME		(prints nothing on a warm cache)

. "$(dirname "$0")/common.sh"

name=${1:?usage: build-kernel.sh NAME}
suites=$(kernel_suites "$name")
out=$(kdir "$name")
TOOLS="linux-source-6.12 flex bison xz-utils"
D=/usr/src/execns-built			# in the build root: src-VERSION, NAME-KEY

# The row's recipe: its fragments (tests/kernels/*.config, merged in this
# order) and its compiler, recorded as the kernel's cc for the module's
# build (kbuild_cc in common.sh turns it into make's arguments), with the
# build root's packages it needs.
case $name in
debug)
	FRAGMENTS="guest debug"
	CC_NAME=x86_64-linux-gnu-gcc-14	# what Debian's 6.12 kernels are built with
	PACKAGES=
	;;
lto)
	FRAGMENTS="guest lto"
	CC_NAME=clang-19		# trixie's, from the 6.12 kernel's own era
	PACKAGES="clang-19 lld-19 llvm-19"
	;;
twin)
	FRAGMENTS="guest twin"
	CC_NAME=x86_64-linux-gnu-gcc-14
	PACKAGES=
	SERIES=$TOP/upstream
	;;
twin-debug)
	# The series under the debug kernel's detectors (lockdep on the
	# exec's commit, KASAN on the tables); its release is the debug
	# kernel's with "-twin" after it.
	FRAGMENTS="guest debug"
	CC_NAME=x86_64-linux-gnu-gcc-14
	PACKAGES=
	SERIES=$TOP/upstream
	SUFFIX=-twin
	;;
twin-base)
	# What the series is measured against (make bench): the twin's
	# source version, config and compiler, and the module instead.
	FRAGMENTS="guest twin-base"
	CC_NAME=x86_64-linux-gnu-gcc-14
	PACKAGES=
	BASE_OF=$TOP/upstream
	;;
*) die "build-kernel.sh: no recipe for KERNEL=$name (debug, lto, twin, twin-debug or twin-base)" ;;
esac
# The build root has no plain gcc: the kernel's helpers use the same compiler.
MK="ARCH=x86_64 $(kbuild_cc "$CC_NAME" host)${SUFFIX:+ LOCALVERSION=$SUFFIX}"

SERIES=${SERIES:-} SUFFIX=${SUFFIX:-} BASE_OF=${BASE_OF:-}

# frag_hash: the hash of the fragments' option lines, those configure()
# checks, of the compiler and of the series' patches; a comment's edit in
# a fragment keeps the cache.
frag_files() { local f; for f in $FRAGMENTS; do echo "$TOP/tests/kernels/$f.config"; done; }
frag_lines() { frag_files | xargs cat | grep -E '^(CONFIG_|# CONFIG_[A-Z0-9_]+ is not set)'; }
frag_hash() {
	{
		frag_lines
		echo "$CC_NAME$SUFFIX"
		[ -z "$SERIES" ] || series_patches "$SERIES" | xargs cat
	} | sha256sum | cut -c1-12
}

warm() {
	local release
	[ -s "$out/key" ] && [ -s "$out/version" ] && [ -s "$out/vmlinuz" ] || return 1
	[ "$(cat "$out/key")" = "$(cat "$out/version")-$(frag_hash)" ] || return 1
	release=$(cat "$out/release")
	# The link is absolute inside the build root.
	[ "$(readlink "$ROOT/lib/modules/$release/build")" = "$D/$name-$(cat "$out/key")" ] &&
		[ -s "$ROOT$D/$name-$(cat "$out/key")/Module.symvers" ]
}

# newest_source: the newest linux-source-6.12 among the row's suites.
newest_source() {
	in_root apt-cache madison linux-source-6.12 | awk -v want=",$suites," '
		{ split($6, s, "/"); if (index(want, "," s[1] ",")) print $3 }' |
		sort -V | tail -n 1
}

# install_source VERSION: the source package and the tools its build needs
# (the build root already has make, bc, libelf-dev and GCC), and the
# recipe's compiler.
install_source() {
	exec 9>"$EXECNS_CACHE/.root.lock"
	flock 9
	if [ "$(in_root dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null)" != "$1" ] ||
		{ [ -n "$PACKAGES" ] && ! in_root dpkg-query -W $PACKAGES >/dev/null 2>&1; }; then
		note "installing linux-source-6.12 $1 ${PACKAGES:+and $PACKAGES }in the build root"
		logged "$name-source.log" in_root apt-get install -y -q --no-install-recommends \
			--allow-downgrades "linux-source-6.12=$1" ${TOOLS#linux-source-6.12} $PACKAGES ||
			die "installing linux-source-6.12=$1 in the build root failed (log: $LOGS/$name-source.log)"
	fi
	exec 9>&-
}

# unpack VERSION: the pristine source tree, once per version.
unpack() {
	local src=$D/src-$1
	[ -f "$ROOT$src/Makefile" ] && return 0
	rm -rf "$ROOT$src.tmp" && mkdir -p "$ROOT$src.tmp"
	tar -xJf "$ROOT/usr/src/linux-source-6.12.tar.xz" -C "$ROOT$src.tmp" --strip-components=1 ||
		die "unpacking linux-source-6.12 $1 failed"
	mv "$ROOT$src.tmp" "$ROOT$src"
}

# configure SRC BUILD: allnoconfig + the fragments through merge_config.sh,
# then every fragment line must be in the result as written.
configure() {
	local src=$1 build=$2 lost
	mkdir -p "$ROOT$build"
	frag_files | xargs cp -t "$ROOT$build"
	# merge_config.sh runs make itself: it takes ARCH and CC from MAKEFLAGS.
	logged "$name-config.log" in_root env MAKEFLAGS="$MK" sh -c \
		"cd $src && scripts/kconfig/merge_config.sh -n -O $build $(printf "$build/%s.config " $FRAGMENTS)" ||
		die "merge_config.sh failed (log: $LOGS/$name-config.log)"
	lost=$(frag_lines | while read -r line; do
		case $line in
		"# CONFIG_"*)
			opt=${line#\# }; opt=${opt%% *}
			! grep -q "^$opt=" "$ROOT$build/.config" || echo "$line"
			;;
		*)
			grep -qxF "$line" "$ROOT$build/.config" || echo "$line"
			;;
		esac
	done)
	if [ -n "$lost" ]; then
		printf '%s\n' "$lost" | sed 's/^/execns: not in the final .config: /' >&2
		die "tests/kernels/{${FRAGMENTS// /,}}.config ask for options the kernel did not take (log: $LOGS/$name-config.log)"
	fi
}

# patched SRC DST: DST, a hard-link copy of the pristine SRC with the
# series applied in order (tree_apply, common.sh).
patched() {
	local p
	tree_link_copy "$ROOT$1" "$ROOT$2" || die "copying $1 failed"
	for p in $(series_patches "$SERIES"); do
		tree_apply "$ROOT$2" "$p" >"$LOGS/$name-patch.log" 2>&1 ||
			die "${p##*/} does not apply to $1 (log: $LOGS/$name-patch.log)"
	done
}

build() {
	local ver key src build release t0
	ver=$(cat "$out/version" 2>/dev/null || true)
	# A series applies to the version it names, not to the newest.
	if [ -n "$SERIES" ]; then
		ver=$(series_base "$SERIES")
		[ -n "$ver" ] || die "$SERIES/series has no '# base: linux-source-6.12 VERSION' line"
	fi
	[ -z "$BASE_OF" ] || ver=$(series_base "$BASE_OF")
	[ -n "$ver" ] || ver=$(newest_source)
	[ -n "$ver" ] || die "no linux-source-6.12 in suites '$suites' for KERNEL=$name (is the registry reachable? try 'make fetch-refresh')"
	key=$ver-$(frag_hash)
	src=$D/src-$ver build=$D/$name-$key
	t0=$(date +%s)
	note "building the $name kernel (linux-source-6.12 $ver, $CC_NAME, fragments $FRAGMENTS: $(frag_hash))"
	install_source "$ver"
	unpack "$ver"
	if [ -n "$SERIES" ]; then
		patched "$src" "$build.src"
		src=$build.src
	fi
	configure "$src" "$build"
	# nice: other runs (QEMU guests) share the machine.
	logged "$name-build.log" in_root nice -n 19 make -C "$build" $MK -j"$(nproc)" bzImage modules ||
		die "building the $name kernel failed (log: $LOGS/$name-build.log)"
	[ -s "$ROOT$build/Module.symvers" ] || die "the $name kernel tree has no Module.symvers (log: $LOGS/$name-build.log)"
	release=$(in_root make -s -C "$build" $MK kernelrelease)
	mkdir -p "$ROOT/lib/modules/$release"
	ln -sfn "$build" "$ROOT/lib/modules/$release/build"
	# This row's trees of older keys are dead weight (about 1 GB each); a
	# source no built row's version names, too.  A key starts with the
	# version's digit: twin's pattern must not take twin-base's trees.
	find "$ROOT$D" -maxdepth 1 -name "$name-[0-9]*" ! -name "$name-$key" ! -name "$name-$key.src" -exec rm -rf {} +
	find "$ROOT$D" -maxdepth 1 -name 'src-*' ! -name "src-$ver" -print | while read -r s; do
		cat "$EXECNS_CACHE"/kernels/*/version 2>/dev/null | grep -qxF "${s##*/src-}" || rm -rf "$s"
	done

	rm -rf "$out.tmp" && mkdir -p "$out.tmp"
	cp "$ROOT$build/arch/x86/boot/bzImage" "$out.tmp/vmlinuz"
	printf '%s\n' "$release" >"$out.tmp/release"
	printf '%s\n' "$ver" >"$out.tmp/version"
	printf '%s\n' "$CC_NAME" >"$out.tmp/cc"
	printf '%s\n' "$key" >"$out.tmp/key"
	rm -rf "$out" && mv "$out.tmp" "$out"
	note "$name kernel $release built in $(( $(date +%s) - t0 )) s"
}

main() {
	warm && exit 0
	"$TOP/tests/harness/buildroot.sh"
	# One build at a time: a second caller waits, then finds it warm.
	exec 7>"$EXECNS_CACHE/.$name-kernel.lock"
	flock 7
	warm && exit 0
	build
}

main "$@"
