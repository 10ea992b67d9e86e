#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fetch (once) one kernel of the matrix: resolve the newest
# linux-image-FLAVOUR and linux-headers-FLAVOUR of its suites (FLAVOUR:
# its flavour column, e.g. amd64, cloud-amd64, rt-amd64, arm64-16k) through the build root's own apt
# configuration, unpack the vmlinuz into $EXECNS_CACHE/kernels/NAME, the
# modules the guest tests load into $EXECNS_CACHE/kernels/NAME/modules
# (decompressed: busybox insmod reads only plain .ko files), and install the
# headers in the build root; a foreign guest also gets its own busybox and
# util-linux's lsns and nsenter.  A cache filled before one of those parts
# existed gets it on the next run.
#
# A foreign architecture (arm64, s390x on this amd64 build root) is resolved
# through a private apt state for that architecture inside the root
# (/var/lib/execns-apt/DEBARCH), and its linux-headers-ABI package is
# unpacked into the root, not installed: the root's dpkg and apt never learn
# of a foreign architecture, so the x86_64 matrix, which every other user of
# the shared root relies on, resolves and upgrades exactly as before, and
# nothing foreign can be pulled in by a later install.  What those headers
# need from the root is installed for real, being native or arch-all: the
# same version's linux-headers-ABI-common (arch all), linux-kbuild
# (Multi-Arch: foreign, amd64 helpers serve every target) and the cross
# compiler their .config names.
#
# Usage: fetch-kernel.sh NAME	(prints nothing on a warm cache)
#        fetch-kernel.sh NAME trace-tools	(the perf and bpftrace of the
#        kernel's own suites, for the trace checks, in $EXECNS_CACHE/kernels/NAME/trace-tools)
#        fetch-kernel.sh NAME refresh	(make fetch-refresh: the package
#        lists again, and the kernel again if its suites now have a newer one)
#        fetch-kernel.sh NAME stap-runtime	(a foreign kernel's staprun and
#        stapio, for the SystemTap checks, in $EXECNS_CACHE/kernels/NAME/stap-runtime)

. "$(dirname "$0")/common.sh"

name=${1:?usage: fetch-kernel.sh NAME [trace-tools]}
# A kernel tree of your own is taken from the tree, not fetched.
if kernel_tree "$name"; then
	[ -z "${2:-}" ] || die "KERNEL=$name: a kernel tree of your own gets no $2 from Debian (no tracing tools lane)"
	exec "$TOP/tests/harness/tree-kernel.sh" "$name"
fi
suites=$(kernel_suites "$name")
# A suite written SUITE@VERSION pins the kernel to that version of SUITE's
# (tests/kernels.conf says when and why): pin_suite and pin_ver, and
# $suites keeps the row's other suites, where the guest's own programs
# come from (the suite itself when it is the only one).
pin_suite=
pin_ver=
case ,$suites, in
*@*@*) die "KERNEL=$name: more than one SUITE@VERSION in '$suites' (tests/kernels.conf)" ;;
*@*)
	pin_suite=$(printf '%s\n' "$suites" | tr , '\n' | sed -n 's/@.*//p')
	pin_ver=$(printf '%s\n' "$suites" | tr , '\n' | sed -n 's/^[^@]*@//p')
	suites=$(printf '%s\n' "$suites" | tr , '\n' | sed '/@/d' | paste -sd, -)
	suites=${suites:-$pin_suite}
	;;
esac
arch=$(kernel_arch "$name")
deb=$(arch_deb "$arch")
flavour=$(kernel_flavour "$name")
out=$(kdir "$name")

# apt-get/apt-cache options for $deb: none for the root's own architecture,
# a private state for a foreign one (see above).
APT_STATE=/var/lib/execns-apt/$deb
APT_OPTS=
if [ "$deb" != amd64 ]; then
	APT_OPTS="-o APT::Architecture=$deb -o APT::Architectures::=$deb"
	APT_OPTS="$APT_OPTS -o Dir::State::Lists=$APT_STATE/lists -o Dir::Cache=$APT_STATE/cache"
	APT_OPTS="$APT_OPTS -o Dir::State::status=/dev/null -o Acquire::Languages=none"
fi

# foreign_update: the private package lists of $deb (once; refresh below
# fetches them again).
foreign_update() {
	[ -n "$APT_OPTS" ] || return 0
	[ -d "$ROOT$APT_STATE/lists/partial" ] && return 0
	mkdir -p "$ROOT$APT_STATE/lists/partial" "$ROOT$APT_STATE/cache/archives/partial"
	# shellcheck disable=SC2086
	logged "apt-$deb.log" in_root apt-get $APT_OPTS -q update || lists_usable || {
		rm -rf "${ROOT:?}$APT_STATE/lists"
		die "apt-get update for $deb failed: is the Debian package registry reachable? (log: $LOGS/apt-$deb.log)"
	}
}

# lists_usable: after a failed apt-get update for $deb, whether every
# index that failed belongs to a suite the row does not use (this
# registry serves i386's bookworm-security and trixie-security lists with
# the wrong size): then the row's own lists are whole and apt ignores the
# others.
lists_usable() {
	local failed s
	failed=$(sed -n 's|^E: Failed to fetch .*/dists/\([^/]*\)/.*|\1|p' "$LOGS/apt-$deb.log" | sort -u)
	[ -n "$failed" ] || return 1
	for s in $failed; do
		case ,$suites,${pin_suite:+$pin_suite,} in *",$s,"*) return 1 ;; esac
	done
	note "apt-get update for $deb: the lists of $(echo $failed) failed (not KERNEL=$name's suites; log: $LOGS/apt-$deb.log)"
}

# newest VERSION of package $1 among the suites in $suites, from apt-cache madison.
newest() {
	# shellcheck disable=SC2086
	in_root apt-cache $APT_OPTS madison "$1" | awk -v want=",$suites," '
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
# feature without it.  CHANNEL_MODULES: the results channel's, where it is
# a virtio console the kernel has as modules (Debian 11's arm64:
# tests/guest/init loads them); most kernels have it built in, said nowhere.
MODULES="binfmt_misc"
CHANNEL_MODULES="virtio virtio_ring virtio_pci virtio_console"

# download IMAGE DIR: unpack the image package into DIR, with the
# dependencies that carry its files: from 6.12 on linux-image-ABI is a meta
# package and the vmlinuz is in linux-binary-ABI; on 7.x the modules are in
# linux-modules-ABI.
download() {
	local image=$1 x=$2 abi=${1#linux-image-} dl=/tmp/dl-$name extra deb

	rm -rf "$ROOT$dl" && mkdir -p "$ROOT$dl"
	# shellcheck disable=SC2086
	extra=$(in_root apt-cache $APT_OPTS depends "$image" | awk -v a="$abi" '
		$1 == "Depends:" && ($2 == "linux-binary-" a || $2 == "linux-modules-" a) { printf "%s ", $2 }')
	logged "download-$name.log" in_root sh -c "cd $dl && apt-get $APT_OPTS download $image $extra" ||
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

# fetch_busybox DIR: a foreign architecture's guest needs its own static
# busybox (the host's is x86_64): the newest busybox-static of the kernel's
# suites, unpacked to DIR/busybox.
fetch_busybox() {
	local dir=$1 v dl=/tmp/dl-$name-busybox

	v=$(newest busybox-static)
	[ -n "$v" ] || die "no busybox-static for $deb in suites '$suites'"
	rm -rf "$ROOT$dl" && mkdir -p "$ROOT$dl"
	logged "busybox-$name.log" in_root sh -c "cd $dl && apt-get $APT_OPTS download busybox-static=$v" ||
		die "downloading busybox-static for $deb failed (log: $LOGS/busybox-$name.log)"
	dpkg-deb -x "$ROOT$dl"/*.deb "$ROOT$dl/x" || die "cannot unpack busybox-static for $deb"
	# /bin until bookworm, /usr/bin since trixie.
	cp "$(find "$ROOT$dl/x" -path '*bin/busybox' -type f -print -quit)" "$dir/busybox" ||
		die "no busybox in busybox-static for $deb"
	rm -rf "$ROOT$dl"
}

# needed ELF: the sonames ELF links against.
needed() {
	readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'
}

# pin_suites FILE [SUITES]: an apt preferences file that makes the
# kernel's suites ($suites, or SUITES, comma-separated) the only candidates,
# so that apt-cache depends --recurse and apt-get download resolve a foreign
# guest's programs as that release has them (e.g. trixie's linux-perf for
# trixie's kernel), whatever else the private lists hold.
pin_suites() {
	local s
	for s in $(printf '%s' "${2:-$suites}" | tr , ' '); do
		printf 'Package: *\nPin: release n=%s\nPin-Priority: 990\n\n' "$s"
		printf 'Package: *\nPin: release a=%s\nPin-Priority: 990\n\n' "$s"
	done >"$1"
	printf 'Package: *\nPin: origin "*"\nPin-Priority: -1\n' >>"$1"
}

# lib_path X SONAME: SONAME under X in a directory the loader searches
# (lib, usr/lib, lib64, usr/lib64 and their multiarch subdirectories): the
# same name elsewhere, e.g. usr/lib/llvm-21/lib/libclang-21.so.21 behind
# usr/lib/s390x-linux-gnu's link to it, is not where the guest's loader
# looks.
lib_path() {
	find "$1" -name "$2" \( -type f -o -type l \) | awk -v x="$1" '{
		d = substr($0, length(x) + 1); sub(/\/[^\/]*$/, "", d)
		if (!found && d ~ /^\/(usr\/)?lib(64)?(\/[^\/]*-linux-gnu[^\/]*)?$/) { print; found = 1 }
	}'
}

# closure X R PROG...: copy into R/root, at their package paths, the loader
# and every library the programs R/bin/PROG need (readelf's NEEDED
# closure), found in the unpacked packages X.
closure() {
	local x=$1 r=$2 todo="" seen=" " elf so f interp p
	shift 2

	interp=$(readelf -l "$r/bin/$1" | sed -n 's/.*interpreter: \(.*\)\]$/\1/p')
	f=$(find "$x" -name "${interp##*/}" \( -type f -o -type l \) -print -quit)
	[ -n "$f" ] || die "no ${interp##*/} ($1's loader) in $deb's libc6"
	mkdir -p "$r/root${interp%/*}" && cp -L "$f" "$r/root$interp"
	for p in "$@"; do
		todo="${todo:+$todo }$r/bin/$p"
	done
	while [ -n "$todo" ]; do
		elf=${todo%% *} && todo=${todo#"$elf"} && todo=${todo# }
		for so in $(needed "$elf"); do
			case $seen in *" $so "*) continue ;; esac
			seen="$seen$so "
			f=$(lib_path "$x" "$so")
			[ -n "$f" ] || die "$deb's $*: $so is in no library directory of the packages their dependencies name (log: $LOGS/programs-$name.log)"
			mkdir -p "$r/root$(dirname "${f#"$x"}")"
			cp -L "$f" "$r/root${f#"$x"}"
			todo="${todo:+$todo }$r/root${f#"$x"}"
		done
	done
}

# resolve_download OPTS DL LOG PKG...: the packages and everything they
# depend on, resolved with apt OPTS and downloaded into DL in the root.
resolve_download() {
	local opts=$1 dl=$2 log=$3 p
	shift 3
	# shellcheck disable=SC2086
	in_root apt-cache $opts depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances "$@" 2>"$LOGS/$log" |
		awk '/^[^ <]/ { print $1 }' | sort -u >"$ROOT$dl/pkgs" || return 1
	for p in "$@"; do
		grep -qx "$p" "$ROOT$dl/pkgs" || { note "no $p for $deb in suites '$suites' (log: $LOGS/$log)"; return 1; }
	done
	logged "$log" in_root sh -c "cd $dl && xargs apt-get $opts download <pkgs"
}

# fetch_programs DIR "PKGS" PROG...: programs of a foreign architecture for
# its guest (the build root's are x86_64).  PKGS and every package they
# depend on (apt-cache depends --recurse, real packages only), as the
# kernel's suites (or those in $PROG_SUITES) have them, are downloaded and
# unpacked; each PROG (found as */bin/PROG or */sbin/PROG, or at PROG
# itself when it is a path, e.g. usr/lib/systemtap/stapio) goes to
# DIR/bin, its loader and libraries under DIR/root at their own paths,
# laid out as the guest's root.
fetch_programs() {
	local dir=$1 pkgs=$2 dl=/tmp/dl-$name-progs p f t=$1.tmp log=programs-$name.log names
	local opts="$APT_OPTS -o Dir::Etc::preferences=$dl/prefs -o Dir::Etc::preferencesparts=$dl/none"
	shift 2

	rm -rf "$ROOT$dl" "$t" && mkdir -p "$ROOT$dl/none" "$t/bin"
	pin_suites "$ROOT$dl/prefs" "${PROG_SUITES:-}"
	# The private lists are fetched once (foreign_update) and may be
	# older than the archive by now (unstable moves daily): a download
	# that fails is tried once more on lists fetched anew.
	# shellcheck disable=SC2086
	if ! resolve_download "$opts" "$dl" "$log" $pkgs; then
		note "fetching $pkgs for $deb failed on the package lists cached in the root; updating them"
		rm -rf "${ROOT:?}$APT_STATE/lists"
		foreign_update
		[ -n "$APT_OPTS" ] || logged root-update.log in_root apt-get -q update ||
			die "apt-get update in the build root failed: is the Debian package registry reachable? (log: $LOGS/root-update.log)"
		rm -f "$ROOT$dl"/*.deb
		# shellcheck disable=SC2086
		resolve_download "$opts" "$dl" "$log" $pkgs ||
			die "downloading $pkgs and their dependencies for $deb failed (log: $LOGS/$log)"
	fi
	for f in "$ROOT$dl"/*.deb; do
		dpkg-deb -x "$f" "$ROOT$dl/x" || die "cannot unpack $f"
	done
	names=()
	for p in "$@"; do
		case $p in
		*/*) f=$ROOT$dl/x/$p && [ -f "$f" ] || f= ;;
		# perf_5.10: bullseye's linux-perf-5.10 names it by release.
		*) f=$(find "$ROOT$dl/x" \( -path "*/bin/$p" -o -path "*/sbin/$p" -o -path "*/bin/${p}_[0-9]*" \) \
			-type f -print -quit) ;;
		esac
		[ -n "$f" ] || die "no $p in $deb's $pkgs"
		cp "$f" "$t/bin/${p##*/}"
		names+=("${p##*/}")
	done
	closure "$ROOT$dl/x" "$t" "${names[@]}"
	rm -rf "$ROOT$dl" "$dir" && mv "$t" "$dir"
}

# fetch_util_linux DIR: util-linux's lsns and nsenter for a foreign guest
# (test-execns-lsns; an x86_64 guest gets the build root's own), in
# DIR/util-linux.
fetch_util_linux() { fetch_programs "$1/util-linux" util-linux lsns nsenter; }

# fetch_trace_tools DIR: perf and bpftrace for a guest's trace checks, in
# DIR/trace-tools, as a user of the kernel's release has them: the kernel's
# suites' (bookworm's bpftrace 0.17 and perf 6.1, trixie's, ...), for
# x86_64 as for the other architectures; fetched only when a trace check
# first needs them.  Debian's linux-perf is one package for every kernel of
# a release: the kernel's suites give the one built from its own source.  A
# backports suite comes with the release it extends (trixie-backports:
# trixie too), where the rest of the tools and their libraries are; among
# both, the newer version of each package wins, as with apt-get -t.
fetch_trace_tools() {
	local s ps=$suites
	for s in $(printf '%s' "$suites" | tr , ' '); do
		case $s in *-backports) case ,$ps, in *,"${s%-backports}",*) ;; *) ps=$ps,${s%-backports} ;; esac ;; esac
	done
	PROG_SUITES=$ps fetch_programs "$1/trace-tools" "linux-perf bpftrace" perf bpftrace
}

# stap_suite VERSION: the suite whose systemtap-runtime for $deb is VERSION.
stap_suite() {
	# shellcheck disable=SC2086
	in_root apt-cache $APT_OPTS madison systemtap-runtime |
		awk -v v="$1" '$3 == v { split($6, s, "/"); print s[1]; exit }'
}

# fetch_stap_runtime DIR: staprun and stapio for a foreign guest's
# SystemTap checks (an x86_64 guest gets the build root's own), in
# DIR/stap-runtime, with the version in DIR/stap-runtime/version.  They
# must be the version of the build root's stap, which compiles the modules
# they load: staprun and the module's runtime speak one private protocol,
# and older ones fail (trixie's 5.1 staprun could not load a 5.6 module
# even on x86_64: "Can't resolve uprobe_unregister!").  So the suite is the
# one that has that version (unstable for the root's 5.6), not the
# kernel's: trixie-arm64's own suite has only 5.1.  stapio is looked for at
# the path staprun runs it from.
fetch_stap_runtime() {
	local want suite

	want=$(in_root dpkg-query -W -f='${Version}' systemtap) ||
		die "no systemtap in the build root (tests/harness/buildroot.sh installs it: rerun it)"
	suite=$(stap_suite "$want")
	if [ -z "$suite" ]; then
		rm -rf "${ROOT:?}$APT_STATE/lists"
		foreign_update
		suite=$(stap_suite "$want")
	fi
	[ -n "$suite" ] || die "no systemtap-runtime $want (the build root's stap) for $deb in any suite: 'make fetch-refresh', or install the stap the registry has in the root"
	note "fetching $name: $deb systemtap-runtime $want of $suite"
	PROG_SUITES=$suite fetch_programs "$1/stap-runtime" systemtap-runtime staprun usr/lib/systemtap/stapio
	printf '%s\n' "$want" >"$1/stap-runtime/version"
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

# trace_tools: perf and bpftrace of the fetched (or built) kernel's suites (once).
trace_tools() {
	[ -s "$out/release" ] || die "fetch-kernel.sh: fetch $name first (make fetch KERNEL=$name)"
	[ -d "$out/trace-tools" ] && exit 0
	exec 9>"$EXECNS_CACHE/.root.lock"
	flock 9
	[ -d "$out/trace-tools" ] && exit 0
	note "fetching $name: $deb perf and bpftrace of suites '$suites'"
	foreign_update
	fetch_trace_tools "$out"
	exit 0
}

# refresh: new package lists (the build root's, or $deb's private ones),
# then, if the newest image of the row's suites is not the cached one, drop
# the cached kernel so that main fetches the new one.  For the debug kernel,
# the newest source package of its recipe (build-kernel.sh rebuilds if it moved).
refresh() {
	local have want pkg
	exec 9>"$EXECNS_CACHE/.root.lock"
	flock 9
	if [ -z "$APT_OPTS" ]; then
		logged root-update.log in_root apt-get -q update ||
			die "apt-get update in the build root failed: is the Debian package registry reachable? (log: $LOGS/root-update.log)"
	else
		rm -rf "${ROOT:?}$APT_STATE/lists"
		foreign_update
	fi
	exec 9>&-
	have=$(cat "$out/version" 2>/dev/null || true)
	pkg=linux-image-$flavour
	! kernel_built "$name" || pkg=$(recipe_value "$(recipe_base "$name")" SOURCE)
	if [ -n "$pin_ver" ]; then
		want=$pin_ver
		note "$name: pinned by tests/kernels.conf to $pin_suite's $pin_ver; $pin_suite lists $(suites=$pin_suite newest "$pkg")"
	else
		want=$(newest "$pkg")
	fi
	[ -n "$want" ] || die "no $pkg in suites '$suites' for KERNEL=$name after apt-get update (check the suites in tests/kernels.conf)"
	if [ "$want" = "$have" ]; then
		note "$name: $pkg $have is still the ${pin_ver:+pinned version, not }newest in '${pin_suite:-$suites}'"
		exit 0
	fi
	note "$name: $pkg ${have:-(nothing cached)} -> $want"
	if kernel_built "$name"; then
		rm -f "$out/version"
	else
		rm -rf "$out"
	fi
}

# stap_runtime: staprun and stapio for the fetched foreign kernel, again
# whenever the build root's stap is another version than theirs.
stap_runtime() {
	local want

	[ -n "$APT_OPTS" ] || die "fetch-kernel.sh: $name's staprun and stapio come from the build root, not from here"
	[ -s "$out/release" ] || die "fetch-kernel.sh: fetch $name first (make fetch KERNEL=$name)"
	want=$(in_root dpkg-query -W -f='${Version}' systemtap 2>/dev/null) || want=
	[ "$want" = "$(cat "$out/stap-runtime/version" 2>/dev/null)" ] && exit 0
	exec 9>"$EXECNS_CACHE/.root.lock"
	flock 9
	[ "$want" = "$(cat "$out/stap-runtime/version" 2>/dev/null)" ] && exit 0
	foreign_update
	fetch_stap_runtime "$out"
	exit 0
}

main() {
	[ "${2:-}" != refresh ] || refresh
	# (before the built kernels' exec: their tools come from their suites too)
	[ "${2:-}" != trace-tools ] || trace_tools
	# The kernels built here, not fetched: same layout, their own scripts.
	[ "$(recipe_base "$name")" = "$name" ] || exec "$TOP/tests/harness/build-patched-kernel.sh" "$name"
	kernel_built "$name" && exec "$TOP/tests/harness/build-kernel.sh" "$name"
	[ "${2:-}" != stap-runtime ] || stap_runtime
	# tests/kernels.conf moved a pin: that version, not the cached one.
	if [ -n "$pin_ver" ] && [ -s "$out/version" ] && [ "$(cat "$out/version")" != "$pin_ver" ]; then
		note "$name: the cached kernel is $(cat "$out/version"), tests/kernels.conf pins $pin_ver"
		rm -rf "$out"
	fi
	if [ -s "$out/release" ] && [ -d "$ROOT/usr/src/linux-headers-$(cat "$out/release")" ]; then
		[ -d "$out/modules" ] && { [ -z "$APT_OPTS" ] ||
			{ [ -s "$out/busybox" ] && [ -d "$out/util-linux" ] &&
			  [ -L "$ROOT/usr/lib/modules/$(cat "$out/release")/source" ]; }; } && exit 0
		exec 9>"$EXECNS_CACHE/.root.lock"
		flock 9
		[ -z "$APT_OPTS" ] || source_link "$(cat "$out/release")"
		[ -d "$out/modules" ] || refetch_modules
		[ -z "$APT_OPTS" ] || [ -s "$out/busybox" ] || fetch_busybox "$out"
		[ -z "$APT_OPTS" ] || [ -d "$out/util-linux" ] || { foreign_update && fetch_util_linux "$out"; }
		exit 0
	fi
	"$TOP/tests/harness/buildroot.sh"
	exec 9>"$EXECNS_CACHE/.root.lock"
	flock 9
	foreign_update
	if [ -n "$pin_ver" ]; then
		fetch_pinned
	else
		fetch
	fi
}

main "$@"
