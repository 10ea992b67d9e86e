#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build (once) one of the matrix's kernels built here from a Debian
# linux-source-X.Y, newest in the suites of its tests/kernels.conf line:
# `make allnoconfig` plus tests/kernels/guest.config (what the guest and the
# module need) plus the row's own fragments, with the row's compiler, as its
# tests/kernels/NAME.recipe says, in the build root.  The recipes:
#   debug: the bug detectors (KASAN, lockdep, UBSAN, kmemleak, fault
#          injection), GCC 14 as Debian's own 6.12 kernels;
#   bullseye-debug: the same detectors on Debian 11's 5.10, GCC 10;
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
# incrementally: build-patched-kernel.sh.)
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
D=/usr/src/execns-built			# in the build root: src-VERSION, NAME-KEY

# The row's recipe, tests/kernels/NAME.recipe (shell assignments): SOURCE,
# the Debian source package (linux-source-X.Y); FRAGMENTS,
# tests/kernels/*.config merged in this order; CC_NAME, its compiler,
# recorded as the kernel's cc for the module's build (kbuild_cc in
# common.sh turns it into make's arguments); PACKAGES, what else the build
# root needs; SERIES, a directory whose series is applied to the version
# its "# base:" line names (BASE_OF: that version, without the series);
# SUFFIX, a LOCALVERSION; ABSENT, the fragments' options this source does
# not have, left out rather than failing the build.
recipe=$TOP/tests/kernels/$name.recipe
[ -f "$recipe" ] || die "build-kernel.sh: no recipe for KERNEL=$name (tests/kernels/$name.recipe)"
SOURCE=linux-source-6.12 FRAGMENTS= CC_NAME= PACKAGES= SERIES= BASE_OF= SUFFIX= ABSENT=
# shellcheck source=/dev/null
. "$recipe"
[ -n "$FRAGMENTS" ] && [ -n "$CC_NAME" ] || die "$recipe: FRAGMENTS and CC_NAME are required"
[ -z "$SERIES" ] || SERIES=$TOP/$SERIES
[ -z "$BASE_OF" ] || BASE_OF=$TOP/$BASE_OF
TOOLS="$SOURCE flex bison xz-utils"
MK="ARCH=x86_64 $(kbuild_cc "$CC_NAME" host)${SUFFIX:+ LOCALVERSION=$SUFFIX}"


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

# newest_source: the newest $SOURCE among the row's suites.
newest_source() {
	in_root apt-cache madison "$SOURCE" | awk -v want=",$suites," '
		{ split($6, s, "/"); if (index(want, "," s[1] ",")) print $3 }' |
		sort -V | tail -n 1
}

# install_source VERSION: the source package and the tools its build needs
# (the build root already has make, bc, libelf-dev and GCC), and the
# recipe's compiler.
install_source() {
	exec 9>"$EXECNS_CACHE/.root.lock"
	flock 9
	if [ "$(in_root dpkg-query -W -f='${Version}' "$SOURCE" 2>/dev/null)" != "$1" ] ||
		{ [ -n "$PACKAGES" ] && ! in_root dpkg-query -W $PACKAGES >/dev/null 2>&1; }; then
		note "installing $SOURCE $1 ${PACKAGES:+and $PACKAGES }in the build root"
		logged "$name-source.log" in_root apt-get install -y -q --no-install-recommends \
			--allow-downgrades "$SOURCE=$1" ${TOOLS#"$SOURCE"} $PACKAGES ||
			die "installing $SOURCE=$1 in the build root failed (log: $LOGS/$name-source.log)"
	fi
	exec 9>&-
}

# unpack VERSION: the pristine source tree, once per version.
unpack() {
	local src=$D/src-$1
	[ -f "$ROOT$src/Makefile" ] && return 0
	rm -rf "$ROOT$src.tmp" && mkdir -p "$ROOT$src.tmp"
	tar -xJf "$ROOT/usr/src/$SOURCE.tar.xz" -C "$ROOT$src.tmp" --strip-components=1 ||
		die "unpacking $SOURCE $1 failed"
	mv "$ROOT$src.tmp" "$ROOT$src"
}

# configure SRC BUILD: allnoconfig + the fragments through merge_config.sh,
# then every fragment line must be in the result as written.
# absent SRC CONFIG_X: whether a fragment line for X may be left out: the
# recipe's ABSENT lists X (options an older source lacks, e.g.
# CONFIG_X86_KERNEL_IBT on 5.10) and the source's Kconfig files indeed do
# not define it.  Any other lost line fails the build, a misspelt one too.
absent() {
	case " $ABSENT " in *" $2 "*) ;; *) return 1 ;; esac
	! grep -rqsE "^(menu)?config ${2#CONFIG_}\$" "$ROOT$1" --include='Kconfig*' &&
		note "$name: $2 left out: $SOURCE has no such option (its recipe's ABSENT)"
}

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
			opt=${line%%=*}
			grep -qxF "$line" "$ROOT$build/.config" || absent "$src" "$opt" || echo "$line"
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
	[ -n "$ver" ] || die "no $SOURCE in suites '$suites' for KERNEL=$name (is the registry reachable? try 'make fetch-refresh')"
	key=$ver-$(frag_hash)
	src=$D/src-$ver build=$D/$name-$key
	t0=$(date +%s)
	note "building the $name kernel ($SOURCE $ver, $CC_NAME, fragments $FRAGMENTS: $(frag_hash))"
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
	find "$ROOT$D" -maxdepth 1 -name "src-${SOURCE#linux-source-}.*" ! -name "src-$ver" -print | while read -r s; do
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
