# SPDX-License-Identifier: GPL-2.0
# fetch-kernel.sh's stock kernels, sourced by it: the image, the modules
# the guest loads, the headers installed (or, for a foreign architecture,
# unpacked) in the build root, and a pinned version from the pool.  Uses
# fetch-kernel.sh's name, suites, arch, deb, flavour, out and APT_OPTS.

# The modules the guest tests insmod (binfmt_misc: test-execns-binfmt).
# One built into a kernel has no .ko: it is left out, and its test finds the
# feature without it.  CHANNEL_MODULES: the results channel's, where it is
# a virtio console the kernel has as modules (Debian 11's arm64:
# tests/guest/init loads them); most kernels have it built in, said nowhere.
MODULES="binfmt_misc"
CHANNEL_MODULES="virtio virtio_ring virtio_pci virtio_console"


# keep_modules X DIR: the $MODULES found under the unpacked X, plain, in DIR.
keep_modules() {
	local x=$1 dir=$2 m f

	mkdir -p "$dir"
	for m in $MODULES $CHANNEL_MODULES; do
		f=$(find "$x" -type f -name "$m.ko*" -print -quit)
		if [ -z "$f" ]; then
			case " $MODULES " in
			*" $m "*) note "$name: no $m.ko in the kernel's packages (built in?)" ;;
			esac
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
	# shellcheck disable=SC2086
	in_root apt-cache $APT_OPTS depends "$1" | awk -v p="$2" '$1 == "Depends:" && index($2, p) == 1 { print $2; exit }'
}

# headers_cc ABI: the compiler the headers of ABI were configured with, e.g.
# gcc-14 or aarch64-linux-gnu-gcc-14, as this root names it: a foreign
# kernel built natively on its own architecture (bullseye's arm64 5.10:
# "gcc-10") is built for here by that GCC's cross compiler.
headers_cc() {
	local cc cross

	cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' "$ROOT/usr/src/linux-headers-$1/.config")
	cross=$(arch_cross "$arch")
	arch_native "$arch" && cross=
	case $cc in
	gcc-[0-9]*) printf '%s%s\n' "$cross" "$cc" ;;
	*) printf '%s\n' "$cc" ;;
	esac
}

# foreign_headers PKG ABI VERSION: PKG (linux-headers-ABI for $deb) as its
# suites list it, into the build root (headers_into_root), with its -common
# and linux-kbuild packages of the same VERSION.  ABI ends in the flavour
# (6.12.117+deb13-arm64-16k); every flavour of a release shares one
# linux-headers-VERSION-common.
foreign_headers() {
	local pkg=$1 abi=$2 ver=$3 dl=/tmp/dl-$name-headers

	rm -rf "$ROOT$dl" && mkdir -p "$ROOT$dl"
	logged "headers-$name.log" in_root sh -c "cd $dl && apt-get $APT_OPTS download $pkg=$ver" ||
		die "downloading $pkg failed (log: $LOGS/headers-$name.log)"
	headers_into_root "$ROOT$dl"/*.deb "$abi" \
		"linux-headers-${abi%-"$flavour"}-common=$ver" "$(kbuild_of "$pkg=$ver")"
	rm -rf "$ROOT$dl"
}

# headers_into_root DEB ABI PKG...: the foreign headers package file DEB
# unpacked into the build root as apt would have installed it, and what
# they need from the root installed for real: PKG... (their -common and
# linux-kbuild packages, as name=version or as package files in the root)
# and the cross compiler their .config names.
headers_into_root() {
	local file=$1 abi=$2 t=$1.x cc src=/usr/src/linux-headers-$2
	shift 2

	dpkg-deb -x "$file" "$t" || die "cannot unpack ${file##*/}"
	[ -d "$t$src" ] || die "${file##*/} has no $src"
	rm -rf "$ROOT$src" && mv "$t$src" "$ROOT$src"
	rm -rf "$t"
	mkdir -p "$ROOT/usr/lib/modules/$abi"
	ln -sfn "../../../src/linux-headers-$abi" "$ROOT/usr/lib/modules/$abi/build"
	source_link "$abi"

	cc=$(headers_cc "$abi")
	case $cc in
	"$(arch_cross "$arch")"gcc-[0-9]*) ;;
	*) die "${file##*/} was configured with '$cc', not a $(arch_cross "$arch")gcc-N this root can install" ;;
	esac
	# A native i386 kernel is built by i386's own gcc-N: the root's
	# gcc-N, which kbuild's ARCH=i386 runs with -m32, builds for it.
	local gcc="gcc-${cc##*-}-${cc%-gcc-*}"
	[ "$arch" != i386 ] || gcc=$cc
	logged "headers-$name.log" in_root apt-get install -y -q --no-install-recommends \
		"$@" "$gcc" ||
		die "installing what ${file##*/} needs in the build root failed (log: $LOGS/headers-$name.log)"
}

# source_link ABI: /usr/lib/modules/ABI/source, the link to the -common
# headers (the kernel's own include/) that the installed package makes:
# tests/tracing/host/stap-run.sh reads linux/cred.h through it.
source_link() {
	ln -sfn "../../../src/linux-headers-${1%-"$flavour"}-common" "$ROOT/usr/lib/modules/$1/source"
}

# kbuild_of PKG=VER: the linux-kbuild package PKG depends on.
kbuild_of() { dep "$1" linux-kbuild-; }

fetch() {
	local iver hver image headers abi

	iver=$(newest "linux-image-$flavour")
	hver=$(newest "linux-headers-$flavour")
	[ -n "$iver" ] && [ -n "$hver" ] ||
		die "no linux-image-$flavour/linux-headers-$flavour in suites '$suites' for KERNEL=$name (is the registry reachable? try 'make fetch-refresh')"
	image=$(dep "linux-image-$flavour=$iver" linux-image-)
	headers=$(dep "linux-headers-$flavour=$hver" linux-headers-)
	abi=${image#linux-image-}
	[ "$headers" = "linux-headers-$abi" ] ||
		die "KERNEL=$name: image $image and headers $headers disagree on the ABI (archive mid-update? retry later)"

	note "fetching $name: $image ($iver) and its headers"
	if [ -z "$APT_OPTS" ]; then
		logged "headers-$name.log" in_root apt-get install -y -q --no-install-recommends "$headers" ||
			die "installing $headers in the build root failed (log: $LOGS/headers-$name.log)"
	else
		foreign_headers "$headers" "$abi" "$hver"
	fi

	rm -rf "$out.tmp" && mkdir -p "$out.tmp"
	download "$image" "$out.tmp/x"
	finish_fetch "$abi" "$iver"
}

# pool_get DL PKG ARCH: PKG's $pin_ver package file for ARCH, downloaded
# by its file name from the archive's pool into DL (a directory in the
# root, given and printed as a host path).  No package list names it any
# more, so no list's checksum covers it: apt-helper checks it against its
# line in tests/pool.sha256 instead.  The kernel's packages are built from
# the source package linux, a signed image from linux-signed-ARCH.
pool_get() {
	local dl=$1 f=$2_${pin_ver#*:}_$3.deb src sum

	sum=$(awk -v f="$f" '!/^#/ && $2 == f { print $1; exit }' "$TOP/tests/pool.sha256")
	[ -n "$sum" ] ||
		die "no SHA-256 of $f in tests/pool.sha256 (KERNEL=$name is pinned to $pin_suite's $pin_ver): add the sha256sum line of a copy you trust"
	for src in linux "linux-signed-$3"; do
		if in_root /usr/lib/apt/apt-helper download-file \
			"$MIRROR/pool/main/l/$src/$f" "${dl#"$ROOT"}/$f" "SHA256:$sum" >>"$LOGS/pool-$name.log" 2>&1; then
			printf '%s\n' "$dl/$f"
			return 0
		fi
	done
	die "the archive's pool at $MIRROR has no $f, or not one with its SHA-256 in tests/pool.sha256 (log: $LOGS/pool-$name.log): tests/kernels.conf pins KERNEL=$name to $pin_suite's $pin_ver, so pin a version the registry serves"
}

# file_dep DEB PREFIX: the dependency of the package file DEB whose name
# starts with PREFIX (all of them with -a).
file_dep() {
	local all=
	[ "$1" != -a ] || { all=1 && shift; }
	dpkg-deb -f "$1" Depends | tr , '\n' |
		awk -v p="$2" -v all="$all" 'index($1, p) == 1 { print $1; if (!all) exit }'
}

# fetch_pinned: the kernel of a SUITE@VERSION row, from the pool.  The
# meta packages of that version name the ABI, the headers package its
# -common and linux-kbuild packages, the image package the packages that
# carry its files (linux-binary-ABI, linux-modules-ABI, as download()).
fetch_pinned() {
	local dl=$ROOT/tmp/dl-$name-pool image headers common kbuild abi f p

	[ -n "$APT_OPTS" ] ||
		die "KERNEL=$name: tests/kernels.conf pins an $arch kernel; only a foreign one (arm64, s390x) can be pinned, its headers being unpacked, not installed by name"
	rm -rf "$dl" "$out.tmp" && mkdir -p "$dl" "$out.tmp/x"
	: >"$LOGS/pool-$name.log"
	f=$(pool_get "$dl" "linux-image-$flavour" "$deb")
	image=$(file_dep "$f" linux-image-)
	[ -n "$image" ] || die "${f##*/} names no linux-image-ABI"
	abi=${image#linux-image-}
	note "fetching $name: $image ($pin_ver, $pin_suite's, pinned by tests/kernels.conf) and its headers, from the pool"

	headers=$(pool_get "$dl" "linux-headers-$abi" "$deb")
	common=$(pool_get "$dl" "linux-headers-${abi%-"$flavour"}-common" all)
	kbuild=$(file_dep "$headers" linux-kbuild-)
	[ -n "$kbuild" ] || die "${headers##*/} names no linux-kbuild package"
	kbuild=$(pool_get "$dl" "$kbuild" amd64)
	headers_into_root "$headers" "$abi" "${common#"$ROOT"}" "${kbuild#"$ROOT"}"

	f=$(pool_get "$dl" "$image" "$deb")
	dpkg -x "$f" "$out.tmp/x"
	for p in $(file_dep -a "$f" linux-binary-) $(file_dep -a "$f" linux-modules-); do
		dpkg -x "$(pool_get "$dl" "$p" "$deb")" "$out.tmp/x"
	done
	rm -rf "$dl"
	finish_fetch "$abi" "$pin_ver"
}

# finish_fetch ABI VERSION: from the image packages unpacked in
# $out.tmp/x, the kernel's cache directory $out.
finish_fetch() {
	local abi=$1 ver=$2

	find "$out.tmp/x" -type f \( -name 'vmlinuz*' \) -exec cp {} "$out.tmp/vmlinuz" \; -quit
	[ -s "$out.tmp/vmlinuz" ] || die "no vmlinuz in linux-image-$abi or its linux-binary package"
	keep_modules "$out.tmp/x" "$out.tmp/modules"
	rm -rf "$out.tmp/x"
	[ -z "$APT_OPTS" ] || fetch_busybox "$out.tmp"
	[ -z "$APT_OPTS" ] || fetch_util_linux "$out.tmp"
	printf '%s\n' "$abi" >"$out.tmp/release"
	printf '%s\n' "$ver" >"$out.tmp/version"
	# The compiler the headers were configured with, e.g. gcc-14.
	headers_cc "$abi" >"$out.tmp/cc"
	[ -s "$out.tmp/cc" ] || die "cannot tell the compiler of linux-headers-$abi (no CONFIG_CC_VERSION_TEXT)"
	rm -rf "$out" && mv "$out.tmp" "$out"
}
