#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fetch (once) one kernel of the matrix: resolve the newest linux-image-amd64
# and linux-headers-amd64 of its suites through the build root's own apt
# configuration, unpack the vmlinuz into $EXECNS_CACHE/kernels/NAME
# and install the headers in the build root.
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

# dep PKG=VER PREFIX: the dependency of PKG=VER whose name starts with PREFIX.
dep() {
	in_root apt-cache depends "$1" | awk -v p="$2" '$1 == "Depends:" && index($2, p) == 1 { print $2; exit }'
}

fetch() {
	local iver hver image headers abi dl extra

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

	dl=/tmp/dl-$name
	rm -rf "$ROOT$dl" && mkdir -p "$ROOT$dl"
	# From 6.12 on, linux-image-ABI is a meta package and the vmlinuz lives
	# in a dependency (linux-binary-ABI); take any such dependency along.
	extra=$(in_root apt-cache depends "$image" |
		awk -v a="$abi" '$1 == "Depends:" && $2 == "linux-binary-" a { print $2 }')
	logged "download-$name.log" in_root sh -c "cd $dl && apt-get download $image $extra" ||
		die "downloading $image failed (log: $LOGS/download-$name.log)"

	rm -rf "$out.tmp" && mkdir -p "$out.tmp/x"
	for deb in "$ROOT$dl"/*.deb; do
		dpkg -x "$deb" "$out.tmp/x"
	done
	find "$out.tmp/x" -type f \( -name 'vmlinuz*' \) -exec cp {} "$out.tmp/vmlinuz" \; -quit
	[ -s "$out.tmp/vmlinuz" ] || die "no vmlinuz in $image $extra"
	rm -rf "$out.tmp/x" "$ROOT$dl"
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
	[ -s "$out/release" ] && [ -d "$ROOT/usr/src/linux-headers-$(cat "$out/release")" ] && exit 0
	"$TOP/tests/harness/buildroot.sh"
	exec 9>"$EXECNS_CACHE/.root.lock"
	flock 9
	fetch
}

main "$@"
