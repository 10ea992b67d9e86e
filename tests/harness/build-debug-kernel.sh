#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build (once) the debug kernel of the matrix (KERNEL=debug): Debian's
# linux-source-6.12, newest in the suites of its tests/kernels.conf line,
# configured as `make allnoconfig` plus tests/debug-kernel.config (the
# guest's needs and the kernel's bug detectors), built in the build root with
# the compiler of Debian's own 6.12 kernels.  The result has a stock kernel's
# layout: $EXECNS_CACHE/kernels/debug/{vmlinuz,release,version,cc} and, in
# the build root, /lib/modules/RELEASE/build pointing at the built tree
# (with Module.symvers) that build-module.sh builds execns.ko against.
#
# The cache key is the source package's version and the hash of the
# fragment's option lines (frag_hash): the same key is a warm cache (nothing
# runs); a changed option rebuilds.
# The source version is resolved on the first build and kept, as a stock
# kernel's is (make fetch-refresh resolves it again).
#
# Usage: build-debug-kernel.sh		(prints nothing on a warm cache)

. "$(dirname "$0")/common.sh"

name=debug
suites=$(kernel_suites "$name")
out=$(kdir "$name")
FRAGMENT=$TOP/tests/debug-kernel.config
CC_NAME=x86_64-linux-gnu-gcc-14		# what Debian's 6.12 kernels are built with
TOOLS="linux-source-6.12 flex bison xz-utils"
D=/usr/src/execns-debug			# in the build root
# The build root has no plain gcc: the kernel's helpers use the same compiler.
MK="ARCH=x86_64 CC=$CC_NAME HOSTCC=$CC_NAME"

# frag_hash: the hash of the fragment's option lines, those configure()
# checks; a comment's edit keeps the cache.
frag_lines() { grep -E '^(CONFIG_|# CONFIG_[A-Z0-9_]+ is not set)' "$FRAGMENT"; }
frag_hash() { frag_lines | sha256sum | cut -c1-12; }

warm() {
	local release
	[ -s "$out/key" ] && [ -s "$out/version" ] && [ -s "$out/vmlinuz" ] || return 1
	[ "$(cat "$out/key")" = "$(cat "$out/version")-$(frag_hash)" ] || return 1
	release=$(cat "$out/release")
	# The link is absolute inside the build root.
	[ "$(readlink "$ROOT/lib/modules/$release/build")" = "$D/build-$(cat "$out/key")" ] &&
		[ -s "$ROOT$D/build-$(cat "$out/key")/Module.symvers" ]
}

# newest_source: the newest linux-source-6.12 among the row's suites.
newest_source() {
	in_root apt-cache madison linux-source-6.12 | awk -v want=",$suites," '
		{ split($6, s, "/"); if (index(want, "," s[1] ",")) print $3 }' |
		sort -V | tail -n 1
}

# install_source VERSION: the source package and the tools its build needs
# (the build root already has make, bc, libelf-dev and the compilers).
install_source() {
	exec 9>"$EXECNS_CACHE/.root.lock"
	flock 9
	if [ "$(in_root dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null)" != "$1" ]; then
		note "installing linux-source-6.12 $1 in the build root"
		logged debug-source.log in_root apt-get install -y -q --no-install-recommends \
			--allow-downgrades "linux-source-6.12=$1" ${TOOLS#linux-source-6.12} ||
			die "installing linux-source-6.12=$1 in the build root failed (log: $LOGS/debug-source.log)"
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

# configure SRC BUILD: allnoconfig + the fragment through merge_config.sh,
# then every fragment line must be in the result as written.
configure() {
	local src=$1 build=$2 lost
	mkdir -p "$ROOT$build"
	cp "$FRAGMENT" "$ROOT$build/execns-debug.config"
	# merge_config.sh runs make itself: it takes ARCH and CC from MAKEFLAGS.
	logged debug-config.log in_root env MAKEFLAGS="$MK" sh -c \
		"cd $src && scripts/kconfig/merge_config.sh -n -O $build $build/execns-debug.config" ||
		die "merge_config.sh failed (log: $LOGS/debug-config.log)"
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
		die "tests/debug-kernel.config asks for options the kernel did not take (log: $LOGS/debug-config.log)"
	fi
}

build() {
	local ver key src build release t0
	ver=$(cat "$out/version" 2>/dev/null || true)
	[ -n "$ver" ] || ver=$(newest_source)
	[ -n "$ver" ] || die "no linux-source-6.12 in suites '$suites' for KERNEL=$name (is the registry reachable? try 'make fetch-refresh')"
	key=$ver-$(frag_hash)
	src=$D/src-$ver build=$D/build-$key
	t0=$(date +%s)
	note "building the debug kernel (linux-source-6.12 $ver, fragment $(frag_hash)); about 13 minutes of CPU: 7 on 2 idle cores"
	install_source "$ver"
	unpack "$ver"
	configure "$src" "$build"
	# nice: other runs (QEMU guests) share the machine.
	logged debug-build.log in_root nice -n 19 make -C "$build" $MK -j"$(nproc)" bzImage modules ||
		die "building the debug kernel failed (log: $LOGS/debug-build.log)"
	[ -s "$ROOT$build/Module.symvers" ] || die "the debug kernel tree has no Module.symvers (log: $LOGS/debug-build.log)"
	release=$(in_root make -s -C "$build" $MK kernelrelease)
	mkdir -p "$ROOT/lib/modules/$release"
	ln -sfn "$build" "$ROOT/lib/modules/$release/build"
	# Trees of older keys are dead weight (about 1 GB each).
	find "$ROOT$D" -maxdepth 1 -name 'build-*' ! -name "build-$key" -exec rm -rf {} +
	find "$ROOT$D" -maxdepth 1 -name 'src-*' ! -name "src-$ver" -exec rm -rf {} +

	rm -rf "$out.tmp" && mkdir -p "$out.tmp"
	cp "$ROOT$build/arch/x86/boot/bzImage" "$out.tmp/vmlinuz"
	printf '%s\n' "$release" >"$out.tmp/release"
	printf '%s\n' "$ver" >"$out.tmp/version"
	printf '%s\n' "$CC_NAME" >"$out.tmp/cc"
	printf '%s\n' "$key" >"$out.tmp/key"
	rm -rf "$out" && mv "$out.tmp" "$out"
	note "debug kernel $release built in $(( $(date +%s) - t0 )) s"
}

main() {
	warm && exit 0
	"$TOP/tests/harness/buildroot.sh"
	# One build at a time: a second caller waits, then finds it warm.
	exec 7>"$EXECNS_CACHE/.debug-kernel.lock"
	flock 7
	warm && exit 0
	build
}

main "$@"
