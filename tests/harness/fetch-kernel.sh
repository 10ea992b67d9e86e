#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fetch (once) one kernel of the matrix: resolve the newest linux-image-amd64
# and linux-headers-amd64 of its suites through the build root's own apt
# configuration, unpack the vmlinuz into $EXECNS_CACHE/kernels/NAME, the
# modules the guest tests load into $EXECNS_CACHE/kernels/NAME/modules
# (decompressed: busybox insmod reads only plain .ko files), and install the
# headers in the build root.  A cache from before modules/ existed gets it
# on the next run.
#
# Usage: fetch-kernel.sh NAME	(prints nothing on a warm cache)

. "$(dirname "$0")/common.sh"

name=${1:?usage: fetch-kernel.sh NAME}
suites=$(kernel_field "$name" 2)
out=$(kdir "$name")

# newest VERSION of package $1 among the suites in $suites, from apt-cache madison.
newest() {
	in_root apt-cache madison "$1" | awk -v want=",$suites," '
		{ split($6, s, "/"); if (index(want, "," s[1] ",")) print $3 }' |
	while read -r v; do
		if [ -z "${best:-}" ] || dpkg --compare-versions "$v" gt "$best"; then
			best=$v
		fi
		echo "$best"
	done | tail -n 1
}

# The modules the guest tests insmod (binfmt_misc: test-execns-binfmt).
# One built into a kernel has no .ko: it is left out, and its test finds the
# feature without it.
MODULES="binfmt_misc"

# download IMAGE DIR: unpack the image package into DIR, with the
# dependencies that carry its files: from 6.12 on linux-image-ABI is a meta
# package and the vmlinuz is in linux-binary-ABI; on 7.x the modules are in
# linux-modules-ABI.
download() {
	local image=$1 x=$2 abi=${1#linux-image-} dl=/tmp/dl-$name extra deb

	rm -rf "$ROOT$dl" && mkdir -p "$ROOT$dl"
	extra=$(in_root apt-cache depends "$image" | awk -v a="$abi" '
		$1 == "Depends:" && ($2 == "linux-binary-" a || $2 == "linux-modules-" a) { printf "%s ", $2 }')
	logged "download-$name.log" in_root sh -c "cd $dl && apt-get download $image $extra" ||
		die "downloading $image failed (log: $LOGS/download-$name.log; if the archive dropped it, 'make fetch-refresh')"
	mkdir -p "$x"
	for deb in "$ROOT$dl"/*.deb; do
		dpkg -x "$deb" "$x"
	done
	rm -rf "$ROOT$dl"
}

# keep_modules X DIR: the $MODULES found under the unpacked X, plain, in DIR.
keep_modules() {
	local x=$1 dir=$2 m f

	mkdir -p "$dir"
	for m in $MODULES; do
		f=$(find "$x" -type f -name "$m.ko*" -print -quit)
		if [ -z "$f" ]; then
			note "$name: no $m.ko in the kernel's packages (built in?)"
			continue
		fi
		case $f in
		*.ko.xz) xz -dc "$f" ;;
		*.ko.zst) zstd -dcq "$f" ;;
		*.ko.gz) gzip -dc "$f" ;;
		*) cat "$f" ;;
		esac >"$dir/$m.ko" || die "cannot decompress $f"
	done
}

# refetch_modules: modules/ for a cache filled before it existed.
refetch_modules() {
	local abi t=$out.modules.tmp

	abi=$(cat "$out/release")
	note "fetching $name: modules for the guest from linux-image-$abi"
	rm -rf "$t"
	download "linux-image-$abi" "$t/x"
	keep_modules "$t/x" "$t/modules"
	mv "$t/modules" "$out/modules"
	rm -rf "$t"
}

# dep PKG=VER PREFIX: the dependency of PKG=VER whose name starts with PREFIX.
dep() {
	in_root apt-cache depends "$1" | awk -v p="$2" '$1 == "Depends:" && index($2, p) == 1 { print $2; exit }'
}

fetch() {
	local iver hver image headers abi

	iver=$(newest linux-image-amd64)
	hver=$(newest linux-headers-amd64)
	[ -n "$iver" ] && [ -n "$hver" ] ||
		die "no linux-image-amd64/linux-headers-amd64 in suites '$suites' for KERNEL=$name (is the registry reachable? try 'make fetch-refresh')"
	image=$(dep "linux-image-amd64=$iver" linux-image-)
	headers=$(dep "linux-headers-amd64=$hver" linux-headers-)
	abi=${image#linux-image-}
	[ "$headers" = "linux-headers-$abi" ] ||
		die "KERNEL=$name: image $image and headers $headers disagree on the ABI (archive mid-update? retry later)"

	note "fetching $name: $image ($iver) and its headers"
	logged "headers-$name.log" in_root apt-get install -y -q --no-install-recommends "$headers" ||
		die "installing $headers in the build root failed (log: $LOGS/headers-$name.log)"

	rm -rf "$out.tmp" && mkdir -p "$out.tmp"
	download "$image" "$out.tmp/x"
	find "$out.tmp/x" -type f \( -name 'vmlinuz*' \) -exec cp {} "$out.tmp/vmlinuz" \; -quit
	[ -s "$out.tmp/vmlinuz" ] || die "no vmlinuz in $image or its linux-binary package"
	keep_modules "$out.tmp/x" "$out.tmp/modules"
	rm -rf "$out.tmp/x"
	printf '%s\n' "$abi" >"$out.tmp/release"
	printf '%s\n' "$iver" >"$out.tmp/version"
	# The compiler the headers were configured with, e.g. gcc-14.
	sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' \
		"$ROOT/usr/src/linux-headers-$abi/.config" >"$out.tmp/cc"
	[ -s "$out.tmp/cc" ] || die "cannot tell the compiler of $headers (no CONFIG_CC_VERSION_TEXT)"
	rm -rf "$out" && mv "$out.tmp" "$out"
}

main() {
	# The debug kernel is built here, not fetched: same layout, its own script.
	[ "$name" = debug ] && exec "$TOP/tests/harness/build-debug-kernel.sh"
	if [ -s "$out/release" ] && [ -d "$ROOT/usr/src/linux-headers-$(cat "$out/release")" ]; then
		[ -d "$out/modules" ] && exit 0
		exec 9>"$EXECNS_CACHE/.root.lock"
		flock 9
		[ -d "$out/modules" ] || refetch_modules
		exit 0
	fi
	"$TOP/tests/harness/buildroot.sh"
	exec 9>"$EXECNS_CACHE/.root.lock"
	flock 9
	fetch
}

main "$@"
