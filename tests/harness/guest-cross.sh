#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest's programs (libexecns, the CLI, tests/guest) for a foreign
# architecture's guest, static, with that kernel's cross compiler and
# Debian's cross libc (libc6-dev-DEBARCH-cross) in the build root.  The
# sources are copied to a directory there per tree, architecture and
# compiler (cross_dir); make rebuilds only what changed.  The compat
# programs (*-32: i386's on x86_64) are AArch32 ones on arm64, built with
# arm-linux-gnueabihf-gcc and libc6-dev-armhf-cross; s390x gets
# abi31-caller, a freestanding 31-bit program.
#
# Usage: guest-cross.sh KERNEL	(prints the directory of the programs)

. "$(dirname "$0")/common.sh"

kernel=${1:?usage: guest-cross.sh KERNEL}
arch=$(kernel_arch "$kernel")
deb=$(arch_deb "$arch")
cc=$(cat "$(kdir "$kernel")/cc")
g=$(cross_dir "$kernel")

exec 8>"$EXECNS_CACHE/.build-$TREE-guest-$arch.lock"
flock 8

# The compat ABI's compiler (same GCC version) and its Debian architecture;
# s390x's 31-bit caller is freestanding, built by the same compiler (-m31).
cc32= deb32= extra=
if [ "$arch" = arm64 ]; then
	cc32=arm-linux-gnueabihf-gcc-${cc##*-} deb32=armhf
fi
[ "$arch" != s390x ] || extra=build-$arch/abi31-caller

need=("libc6-dev-$deb-cross")
[ -z "$cc32" ] || need+=("libc6-dev-$deb32-cross" "gcc-${cc##*-}-${cc32%-gcc-*}")
missing=()
for p in "${need[@]}"; do
	in_root dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	(
		flock 9
		logged "libc-$deb.log" in_root apt-get install -y -q --no-install-recommends "${missing[@]}"
	) 9>"$EXECNS_CACHE/.root.lock" ||
		die "installing ${missing[*]} in the build root failed (log: $LOGS/libc-$deb.log)"
fi

mkdir -p "$ROOT$g/tests" "$ROOT$g/module"
cp -rp "$TOP/VERSION" "$TOP/userspace" "$ROOT$g/"
cp -rp "$TOP/tests/guest" "$ROOT$g/tests/"
# The uapi header, which userspace/include/execns/uapi.h links to.
cp -rp "$TOP/module/uapi" "$ROOT$g/module/"
# The host's (x86_64) objects must not be taken for ours.
rm -rf "$ROOT$g/userspace/build" "$ROOT$g/tests/guest/build"
if ! logged "guest-$arch.log" in_root sh -c "cd $g && make -C userspace B=build-$arch CC=$cc &&
	make -C tests/guest B=build-$arch US=../../userspace/build-$arch CC=$cc PROGS32= all $extra"; then
	grep -E 'error' "$LOGS/guest-$arch.log" | head -n 20 >&2
	die "building the guest programs for $arch failed (log: $LOGS/guest-$arch.log)"
fi
if [ -n "$cc32" ]; then
	# The programs the x86 build makes with -m32, under their -32 names.
	p32="test-execns-abi test-execns-slot post-rmmod-slot"
	if ! logged "guest-$arch-32.log" in_root sh -c "cd $g && make -C userspace B=build-$deb32 CC=$cc32 &&
		make -C tests/guest B=build-$deb32 US=../../userspace/build-$deb32 CC=$cc32 PROGS32= \
			$(for p in $p32; do printf 'build-%s/%s ' "$deb32" "$p"; done)"; then
		grep -E 'error' "$LOGS/guest-$arch-32.log" | head -n 20 >&2
		die "building the $deb32 guest programs failed (log: $LOGS/guest-$arch-32.log)"
	fi
	for p in $p32; do
		cp -p "$ROOT$g/tests/guest/build-$deb32/$p" "$ROOT$g/tests/guest/build-$arch/$p-32"
	done
fi
echo "$ROOT$g/tests/guest/build-$arch"
