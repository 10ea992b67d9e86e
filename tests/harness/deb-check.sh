#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages, for real, in the build root (KTAP): `make deb` on a
# copy of this tree there (dpkg-buildpackage -us -uc: the source package
# and the binaries), lintian on what it built, the source package and the
# binaries each a result of its own, then apt install of execns-dkms,
# execns, libexecns0 and libexecns-dev.  execns-dkms's postinst has DKMS
# build and install the module for every kernel whose headers the root
# holds (in a chroot whose running kernel is not installed, Debian's dkms
# builds for them all): for each KERNEL named, its execns.ko must be
# there, installed by DKMS, with that kernel's vermagic and architecture
# (arm64 and s390x: cross-built, as Debian's headers for them name their
# cross compiler).  Then the CLI and
# libexecns from the packages (a program built with pkg-config's flags
# runs against libexecns.so.0), the source package's autopkgtest
# dkms-build (packaging/debian/tests/) for one x86_64 kernel named, as
# autopkgtest would run it on a machine with the packages installed, and
# apt purge, after which nothing the packages or DKMS installed may be
# left.
# For each x86_64 Debian kernel named, beside the execns.ko DKMS built,
# what a guest needs to run the other autopkgtest, smoke, is kept as a
# root to lay over the guest's (stage_guest_root, below):
# tests/harness/autopkgtest-check.sh boots that kernel with it, and
# tests/harness/deb-use-check.sh too (the modprobe.d and modules-load.d
# examples, the packaged tracing scripts).  For the first kernel named
# with the deb-trace trait (tests/kernels.conf), the packaged uidacct.stp
# is compiled here, in the overlay, with the packaged tapset found where
# stap looks by default (no -I), and kept for that guest with staprun.
# The build tools (dkms, debhelper, dh-dkms, lintian, ...) are installed in
# the build root on first use and stay.  The packages are installed in an
# overlay of the build root (in_ovl: an upper directory of this tree's, over
# the shared root), never in the root itself, so other trees and lanes see
# none of it and two trees can run this at once; after apt purge, what is
# left in the upper directory is what the packages left behind.
# check.sh and lint.sh run this once per run (the common lane), not per row.
#
# Usage: deb-check.sh KERNEL...	(exit 0: all passed, 1: a failure, 2: could not run)

. "$(dirname "$0")/common.sh"

PKGS="execns-dkms execns libexecns0 libexecns-dev"
TOOLS="dkms debhelper dh-dkms lintian dpkg-dev build-essential pkgconf xz-utils zstd"
version=$(cat "$TOP/VERSION")


# The kernels' headers (and a foreign kernel's cross compiler), before the
# lock: fetch-kernel.sh takes it itself when it has work to do.
for k in "$@"; do
	kernel_built "$k" || "$TOP/tests/harness/fetch-kernel.sh" "$k"
done

exec 9>"$EXECNS_CACHE/.root.lock"
flock 9
have_tools() { in_root sh -c 'for c in dkms dh_dkms lintian dpkg-buildpackage cc pkg-config xz zstd; do command -v $c; done' >/dev/null 2>&1; }
if ! have_tools; then
	note "installing the packaging tools in the build root ($TOOLS)"
	# shellcheck disable=SC2086
	logged root-deb-tools.log in_root apt-get install -y -q --no-install-recommends $TOOLS ||
		die "installing $TOOLS in the build root failed (log: $LOGS/root-deb-tools.log)"
fi
flock -u 9

echo "KTAP version 1"
echo "1..$(($# + 9))"

w=/tmp/execns-deb-$TREE
ovl=$EXECNS_CACHE/deb-$TREE
trap 'rm -rf "${ROOT:?}${w:?}" "${ovl:?}"' EXIT
rm -rf "${ROOT:?}${w:?}"
mkdir -p "$ROOT$w/tree"
(cd "$TOP" && tar -c --exclude=build Kbuild Makefile VERSION dkms.conf COPYING LICENSES module userspace docs packaging tracing) |
	tar -x -C "$ROOT$w/tree"
d=$w/tree/build/deb
log=$LOGS/deb-build-$TREE.log
t=$SECONDS rc=0
in_root make -C "$w/tree" deb >"$log" 2>&1 || rc=1
debs=()
for p in $PKGS; do
	f=$(cd "$ROOT$d" && ls "${p}"_"${version}"_*.deb 2>/dev/null) || { rc=1; continue; }
	debs+=("$d/$f")
done
# The source package too (native: a .dsc and its .tar.xz), and the
# .changes that lists it with the binaries, which lintian reads below.
changes=execns_${version}_amd64.changes
for f in "execns_$version.dsc" "execns_$version.tar.xz" "$changes"; do
	[ -s "$ROOT$d/$f" ] || { echo "make deb made no $f" >>"$log"; rc=1; }
done
grep -q " execns_$version\.dsc\$" "$ROOT$d/$changes" 2>/dev/null ||
	{ echo "$changes does not list execns_$version.dsc" >>"$log"; rc=1; }
ktap_result $rc "make deb (dpkg-buildpackage -us -uc) builds the source package execns_$version.dsc and $PKGS, version $version ($((SECONDS - t)) s)" "$log"
[ "$rc" = 0 ] || { echo "# make deb failed: the rest cannot run (log: $log)"; exit 1; }

# lintian, once, on the .changes: the source package, the binaries and
# the .changes itself.  Every tag shown, pedantic ones too, and any of
# them fails, at error, warning, info or pedantic level (an override in
# packaging/debian, which says why it is one, shows as "O:" and passes).
# Two results from the one run: the source package's tags ("execns
# source:") and all the others; a lintian that failed without a tag
# fails both.
log=$LOGS/deb-lintian-$TREE.log
t=$SECONDS rc=0
in_root sh -c "cd $d && lintian --allow-root --fail-on error,warning,info,pedantic -I --pedantic --show-overrides $changes" >"$log" 2>&1 || rc=1
sed 's/^/# lintian: /' "$log"
tags_src=$(grep -cE '^[EWIP]: execns source: ' "$log" || true)
tags_bin=$(grep -E '^[EWIP]: ' "$log" | grep -cvE '^[EWIP]: execns source: ' || true)
lint_broke=0
[ "$rc" = 0 ] || [ $((tags_src + tags_bin)) -gt 0 ] || lint_broke=1
ktap_result $((lint_broke + tags_src)) "lintian on the source package (execns_$version.dsc, debian/tests included): no error, warning, info or pedantic tag ($((SECONDS - t)) s)"
ktap_result $((lint_broke + tags_bin)) "lintian on the binary packages and the .changes: no error, warning, info or pedantic tag"

# in_ovl CMD...: in_root, in the overlay of the build root whose changes
# are in $ovl/upper (kept from one call to the next).
rm -rf "$ovl"
mkdir -p "$ovl/upper" "$ovl/work" "$ovl/merged"
in_ovl() {
	unshare --mount --fork -- sh -c '
		o=$1 r=$2; shift 2
		mount -t overlay overlay -o "lowerdir=$r,upperdir=$o/upper,workdir=$o/work" "$o/merged" &&
		mount -t proc proc "$o/merged/proc" &&
		exec chroot "$o/merged" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
	' in_ovl "$ovl" "$ROOT" "$@"
}
# PKGS word-split on purpose, here and below.
# shellcheck disable=SC2086
purge() { in_ovl apt-get purge -y -q $PKGS; }
# shellcheck disable=SC2086
installed() { in_ovl dpkg-query -W -f='${db:Status-Status}\n' $PKGS 2>/dev/null | grep -q '^installed'; }
# Other tests put an execns.ko in the shared root (tests/tracing/host/stap-run.sh,
# in lib/modules/RELEASE/extra, where stap looks for it, at any time), and
# DKMS refuses to install over a module of the same version.  Each
# kernel's extra/ is made opaque in the overlay (removed and made again
# there: its lower contents stay hidden, whatever the root puts there
# later); for that, the root gets the empty extra/ that stap-run.sh would
# make.  Any other execns.ko is removed in the overlay, said here.
for r in "$ROOT"/usr/lib/modules/*/; do
	mkdir -p "${r}extra"
done
in_ovl sh -c 'for d in /usr/lib/modules/*/extra; do rm -rf "$d" && mkdir "$d"; done'
# DKMS builds for every kernel with headers; the kernels not named have
# theirs hidden in the overlay (the debug kernel's tree, unstable-s390x's
# headers, ...), so that it builds for those named and no more.
releases=" "
for k in "$@"; do
	kernel_built "$k" || releases="$releases$(cat "$(kdir "$k")/release") "
done
for b in "$ROOT"/usr/lib/modules/*/build; do
	r=${b%/build} r=${r##*/}
	case $releases in *" $r "*) ;; *) in_ovl rm -f "/usr/lib/modules/$r/build" ;; esac
done
# A foreign kernel built on its own architecture (Debian 11's arm64) has
# headers that cross-compile only where dpkg-architecture says the host
# is that architecture (its .kernelvariables); apt's DKMS pass, which
# builds for every kernel at once, cannot say so for one of them.  Such
# a kernel's headers are left out of that pass and built for after it,
# with the variables a Debian cross build sets (later_kernels).
later_kernels=()
for k in "$@"; do
	kernel_built "$k" || arch_native "$(kernel_arch "$k")" && continue
	# (i386's kernel is built by the root's own gcc: no cross prefix.)
	[ -n "$(arch_cross "$(kernel_arch "$k")")" ] || continue
	r=$(cat "$(kdir "$k")/release")
	grep -qs 'ifneq ($(DEB_BUILD_ARCH),$(DEB_HOST_ARCH))' "$(kbuild_host "$k")/.kernelvariables" || continue
	in_ovl mv "/usr/lib/modules/$r/build" "/usr/lib/modules/$r/build.later"
	later_kernels+=("$k")
done
for f in $(in_ovl find /usr/lib/modules -name 'execns.ko*' 2>/dev/null); do
	echo "# $f: left in the build root by another test; removed in the overlay"
	in_ovl rm -f "$f"
done
if installed; then
	echo "# $PKGS: installed in the build root by another test; purged in the overlay"
	logged deb-purge-old-$TREE.log purge || die "apt purge of $PKGS failed (log: $LOGS/deb-purge-old-$TREE.log)"
fi
# The baseline of the purge check below: what the upper directory holds now.
(cd "$ovl/upper" && find . ! -type d | sort) >"$ovl/before"

log=$LOGS/deb-install-$TREE.log
t=$SECONDS rc=0
in_ovl apt-get install -y -q --no-install-recommends "${debs[@]}" >"$log" 2>&1 || rc=1
grep -E '^Building for|^Error|[Ff]ailed' "$log" | sed 's/^/# /' || true
for k in "${later_kernels[@]}"; do
	r=$(cat "$(kdir "$k")/release") cross=$(arch_cross "$(kernel_arch "$k")")
	in_ovl mv "/usr/lib/modules/$r/build.later" "/usr/lib/modules/$r/build"
	echo "(DKMS for $r as a Debian cross build: DEB_HOST_ARCH=$(arch_deb "$(kernel_arch "$k")"))" >>"$log"
	in_ovl env DEB_BUILD_ARCH=amd64 DEB_HOST_ARCH="$(arch_deb "$(kernel_arch "$k")")" \
		DEB_HOST_GNU_TYPE="${cross%-}" dkms install -m execns -v "$version" -k "$r" >>"$log" 2>&1 || rc=1
done
# Any warning of dkms's fails it (a deprecated dkms.conf key, say): but
# the one that says there was no kernel to build for, when none was named.
# dkms's own lines start with the word (dpkg's and apt's name themselves).
warns=$(grep -E '^(Warning|WARNING|Deprecated)' "$log" |
	{ if [ $# -eq 0 ]; then grep -v 'No kernel headers were found'; else cat; fi; } || true)
[ -z "$warns" ] || { printf '%s\n' "$warns" | sed 's/^/# dkms: /'; rc=1; }
ktap_result $rc "apt install of $PKGS (an overlay of the build root), DKMS builds included, no dkms warning ($((SECONDS - t)) s)" "$log"
[ "$rc" = 0 ] || exit 1

# stage_guest_root K RELEASE: keep, beside kernel K's execns-dkms.ko, the
# root that autopkgtest-check.sh lays over K's guest (vm.sh's
# EXECNS_EXTRA_ROOT), so that packaging/debian/tests/smoke runs there as
# on a machine with the packages installed: the files execns and
# libexecns0 installed (dpkg -L); the execns.ko DKMS installed for
# RELEASE, with a modules.dep of its own (depmod -b: the root's may list
# the kernel's own modules, which the guest has not got); kmod, as
# modprobe, rmmod, modinfo and the rest (else the guest's busybox applets
# would stand in for them); dash, Debian's /bin/sh, to run the test in
# (the guest's busybox sh runs its own applets before any program on
# PATH, kmod's too); and the libraries of execns, kmod and dash (ldd, and
# the two kmod opens itself for compressed modules, which ldd does not
# list); and execns-dkms's examples (/usr/share/doc/execns-dkms/examples:
# the modprobe.d and modules-load.d files deb-use-check.sh installs).
# Made in the overlay, then copied out whole.
stage_guest_root() {
	local dest g=$w/guest-$1
	dest=$(dirname "$(kmod "$1")")/autopkgtest-root
	[ -e "$ROOT$w/stage-guest-root.sh" ] || cat >"$ROOT$w/stage-guest-root.sh" <<'EOF2'
set -e
g=$1 r=$2
rm -rf "$g"
mkdir -p "$g/lib/modules/$r" "$g/usr/bin" "$g/usr/sbin"
# (dpkg -L of two packages puts an empty line between their lists.)
dpkg -L execns libexecns0 | while read -r f; do
	[ -d "$f" ] || [ ! -e "$f" ] || printf '%s\n' "${f#/}"
done | tar -C / -cf - -T - | tar -C "$g" -xf -
[ -x "$g/usr/bin/execns" ] || { echo "no /usr/bin/execns from dpkg -L execns"; exit 1; }
dpkg -L execns-dkms | grep '^/usr/share/doc/execns-dkms/examples/' | while read -r f; do
	[ -d "$f" ] || printf '%s\n' "${f#/}"
done | tar -C / -cf - -T - | tar -C "$g" -xf -
[ -f "$g/usr/share/doc/execns-dkms/examples/modprobe.d/execns.conf" ] ||
	{ echo "no examples/modprobe.d/execns.conf from dpkg -L execns-dkms"; exit 1; }
cp -a "/lib/modules/$r/updates" "$g/lib/modules/$r/"
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ ! -e "/lib/modules/$r/$f" ] || cp "/lib/modules/$r/$f" "$g/lib/modules/$r/"
done
depmod -b "$g" "$r"
cp /usr/bin/kmod /usr/bin/dash "$g/usr/bin/"
for t in modprobe rmmod insmod lsmod modinfo depmod; do
	ln -s ../bin/kmod "$g/usr/sbin/$t"
done
{
	ldd /usr/bin/kmod /usr/bin/dash /usr/bin/execns |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $1 !~ /:$/ { print $1 }'
	ldconfig -p | awk '($1 == "liblzma.so.5" || $1 == "libzstd.so.1") && /x86-64/ { print $NF }'
} | sort -u | while read -r l; do
	mkdir -p "$g${l%/*}"
	cp -L "$l" "$g$l"
done
echo "staged in $g: $(find "$g" ! -type d | wc -l) files"
EOF2
	in_ovl sh "$w/stage-guest-root.sh" "$g" "$2" || return 1
	{ rm -rf "$dest" && mkdir -p "$dest"; } || return 1
	in_ovl tar -C "$g" -cf - . | tar -C "$dest" -xf - || return 1
	in_ovl rm -rf "$g"
}

# elf_machine FILE: the ELF machine of a module, compressed or not.
elf_machine() {
	in_ovl sh -c 'case $1 in
		*.xz) xz -dc "$1" ;; *.zst) zstd -qdc "$1" ;; *.gz) gzip -dc "$1" ;; *) cat "$1" ;;
		esac >/tmp/execns-deb-elf.ko && readelf -h /tmp/execns-deb-elf.ko | sed -n "s/^ *Machine: *//p"
		rm -f /tmp/execns-deb-elf.ko' sh "$1"
}
want_machine() { arch_fact "$1" elf; }

for k in "$@"; do
	if kernel_built "$k"; then
		ktap_skip "$k: execns.ko built by DKMS from execns-dkms" "not a packaged kernel: no linux-headers package to build against; DKMS builds for trixie's headers of the same source"
		continue
	fi
	release=$(cat "$(kdir "$k")/release")
	arch=$(kernel_arch "$k")
	log=$LOGS/deb-dkms-$TREE-$k.log
	rc=0
	(
		ko=$(in_ovl sh -c 'cd "$1" 2>/dev/null && ls execns.ko*' sh "/lib/modules/$release/updates/dkms" 2>/dev/null) || ko=
		if [ -z "$ko" ]; then
			echo "no /lib/modules/$release/updates/dkms/execns.ko* after apt install"
			in_ovl sh -c 'tail -n 20 /var/lib/dkms/execns/$1/$2/*/log/make.log' sh "$version" "$release"
			exit 1
		fi
		ko=/lib/modules/$release/updates/dkms/$ko
		status=$(in_ovl dkms status -m execns -v "$version" -k "$release")
		echo "dkms status: $status"
		case $status in *": installed"*) ;; *) echo "dkms does not list it as installed"; exit 1 ;; esac
		vermagic=$(in_ovl modinfo -F vermagic "$ko")
		machine=$(elf_machine "$ko")
		echo "$ko: vermagic $vermagic; machine $machine"
		[ "${vermagic%% *}" = "$release" ] || { echo "vermagic is not $release"; exit 1; }
		[ "$machine" = "$(want_machine "$arch")" ] || { echo "not an $arch module"; exit 1; }
		# Kept, uncompressed, for a guest suite on it:
		# make suite KERNEL=K EXECNS_MODULE=$(kmod K execns-dkms)
		mkdir -p "$(dirname "$(kmod "$k")")"
		in_ovl sh -c 'case $1 in *.xz) xz -dc "$1" ;; *.zst) zstd -qdc "$1" ;; *) cat "$1" ;; esac' sh "$ko" >"$(kmod "$k" execns-dkms)"
		echo "kept as $(kmod "$k" execns-dkms)"
		# The guest root of the autopkgtest smoke: for the x86_64
		# kernels (the packages are amd64) that load the module.
		if arch_native "$arch" && ! kernel_in_tree "$k"; then
			case $(kernel_proof "$k") in
			refused-insmod*) ;;
			*)
				stage_guest_root "$k" "$release" || { echo "staging the autopkgtest guest root failed"; exit 1; }
				echo "and the root for tests/harness/autopkgtest-check.sh $k: $(dirname "$(kmod "$k")")/autopkgtest-root"
				;;
			esac
		fi
	) >"$log" 2>&1 || rc=1
	sed 's/^/# /' "$log"
	ktap_result $rc "$k: DKMS built and installed execns.ko for $release ($arch) from execns-dkms"
done

# The packaged SystemTap script, built as docs/tracing.md tells a user
# with the packages installed and no source tree to build it: stap
# /usr/share/execns/uidacct.stp, with no -I, so stap must find the
# packaged tapset (/usr/share/systemtap/tapset/execns.stp) on its own
# default path; the module's types from the execns.ko DKMS installed
# (dkms.conf's STRIP[0]="no" keeps its debug information); its
# tracepoint definitions copied from execns-dkms's sources
# (/usr/src/execns-VERSION/module) into the kernel's build tree, and the
# kernel's real System.map where stap reads it (system-map.sh's, from a
# nokaslr boot), docs/tracing.md's set-up steps.  Built for another
# machine, the guest (stap -r RELEASE -p4 -m NAME, staprun there), with
# the kernel's compiler (-B CC=) and the harness's waits and handlers
# with interrupts off for TCG guests (-D..., docs/tracing.md), as
# stap-run.sh builds the tree's.  Like its STAP_MODULE_TRACEPOINTS, the
# compile sees /lib/modules/RELEASE without its source link, so that
# stap reads the module's tracepoint header only, not the kernel's 190
# (minutes of CPU the first time); the script probes no other.
# For the first kernel named with the deb-trace trait (tests/kernels.conf),
# before the autopkgtest dkms-build below rebuilds the module: the one
# stage_guest_root kept is the one the script is built against.  Kept, with
# the build root's staprun and stapio (the same SystemTap release as its
# stap) and their libraries, in deb-trace-root beside autopkgtest-root,
# for deb-use-check.sh.  The set-up's files are removed from the overlay
# afterwards (the purge check below sees what is left).
trace_k=
for k in "$@"; do
	if kernel_trait "$k" deb-trace && arch_native "$(kernel_arch "$k")" && ! kernel_built "$k" &&
		! kernel_in_tree "$k"; then
		case $(kernel_proof "$k") in refused*) continue ;; esac
		trace_k=$k
		break
	fi
done
name="the packaged uidacct.stp compiles with the packaged tapset (stap /usr/share/execns/uidacct.stp, no -I) against the DKMS-built execns.ko"
if [ -z "$trace_k" ]; then
	ktap_skip "$name" "no kernel named has the deb-trace trait (tests/kernels.conf: trixie)"
else
	log=$LOGS/deb-stap-$TREE-$trace_k.log
	trace_r=$(cat "$(kdir "$trace_k")/release")
	keep=$(dirname "$(kmod "$trace_k")")/deb-trace-root
	t=$SECONDS rc=0
	rm -rf "$keep"
	(
		"$TOP/tests/harness/system-map.sh" "$trace_k" || exit 1
		cat >"$ROOT$w/stap-pkg.sh" <<'EOF2'
set -e
r=$1 cc=$2 ver=$3 out=$4
ev=/lib/modules/$r/build/include/trace/events
mkdir -p "$ev"
cp "/usr/src/execns-$ver/module/trace.h" "$ev/execns.h"
cp "/usr/src/execns-$ver/module/uidtab.h" "$ev/"
echo "set-up: $ev/execns.h and uidtab.h from /usr/src/execns-$ver/module"
view=/tmp/execns-deb-stap-view
rm -rf "$view" && mkdir -p "$view/updates/dkms"
find "/lib/modules/$r" -mindepth 1 -maxdepth 1 ! -type d ! -name source -exec cp -P {} "$view/" \;
cp /lib/modules/"$r"/updates/dkms/execns.ko* "$view/updates/dkms/"
mount --bind "$view" "/lib/modules/$r"
rm -rf "$out" && mkdir -p "$out/x/root/stap" && cd "$out"
stap -V 2>&1 | head -n 1
# The tapset stap will find is the package's, and no other is on its path.
dpkg -S /usr/share/systemtap/tapset/execns.stp
[ "$(find /usr/share/systemtap/tapset -name 'execns*' | wc -l)" = 1 ] ||
	{ echo "more than one execns tapset on stap's path:"; find /usr/share/systemtap/tapset -name 'execns*'; exit 1; }
set -x
stap -r "$r" -p4 -m execns_uidacct -B CC="$cc" \
	-DMAXTRYLOCK=100000 -DTRYLOCKDELAY=1000 -DINTERRUPTIBLE=0 /usr/share/execns/uidacct.stp
set +x
mv execns_uidacct.ko x/root/stap/
for f in /usr/bin/staprun /usr/lib/systemtap/stapio $(ldd /usr/bin/staprun /usr/lib/systemtap/stapio |
	awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $1 !~ /:$/ { print $1 }' | sort -u); do
	mkdir -p "x${f%/*}"
	cp -L "$f" "x$f"
done
EOF2
		st=0
		in_ovl sh -c 'mkdir -p /usr/lib/debug/boot && cat >"/usr/lib/debug/boot/System.map-$1"' sh "$trace_r" \
			<"$(kdir "$trace_k")/System.map" || st=1
		[ "$st" != 0 ] ||
			in_ovl sh "$w/stap-pkg.sh" "$trace_r" "$(cat "$(kdir "$trace_k")/cc")" "$version" "$w/stap-pkg" || st=1
		in_ovl sh -c 'ev=/lib/modules/$1/build/include/trace/events
			rm -rf "$ev/execns.h" "$ev/uidtab.h" "/usr/lib/debug/boot/System.map-$1" /tmp/execns-deb-stap-view
			rmdir "$ev" /usr/lib/debug/boot /usr/lib/debug 2>/dev/null; true' sh "$trace_r"
		[ "$st" = 0 ] || exit 1
		mkdir -p "$keep" || exit 1
		in_ovl tar -C "$w/stap-pkg/x" -cf - . | tar -C "$keep" -xf - || exit 1
		in_ovl rm -rf "$w/stap-pkg"
		[ -s "$keep/root/stap/execns_uidacct.ko" ] && [ -x "$keep/usr/bin/staprun" ] || exit 1
		echo "kept for tests/harness/deb-use-check.sh $trace_k: $keep ($(find "$keep" ! -type d | wc -l) files)"
	) >"$log" 2>&1 || rc=1
	sed 's/^/# /' "$log"
	[ "$rc" = 0 ] || rm -rf "$keep"
	ktap_result $rc "$name for $trace_r ($trace_k) ($((SECONDS - t)) s)"
fi

# The source package's autopkgtest dkms-build (packaging/debian/tests/
# dkms-build), run as autopkgtest runs a test: as root, in the source
# tree, with the packages installed, and failing on any output to stderr
# (its Restrictions have no allow-stderr).  For one kernel
# (EXECNS_DKMS_KERNELS), the first x86_64 Debian kernel named: the apt
# install above built for each already, and this rebuilds from scratch.
# Its exit 77 (skippable: no kernel to build for) would be a failure here.
log=$LOGS/deb-autopkgtest-dkms-$TREE.log
apt_k=
for k in "$@"; do
	if arch_native "$(kernel_arch "$k")" && ! kernel_built "$k"; then
		apt_k=$k
		break
	fi
done
if [ -z "$apt_k" ]; then
	ktap_skip "autopkgtest dkms-build (packaging/debian/tests/dkms-build)" "no x86_64 Debian kernel named"
else
	apt_r=$(cat "$(kdir "$apt_k")/release")
	t=$SECONDS rc=0
	in_ovl env EXECNS_DKMS_KERNELS="$apt_r" sh -c 'cd "$1" && exec debian/tests/dkms-build' \
		sh "$d/execns-$version" >"$log" 2>"$log.err" || rc=$?
	sed 's/^/# /' "$log"
	sed 's/^/# stderr: /' "$log.err"
	st=0
	[ "$rc" = 0 ] && [ ! -s "$log.err" ] || st=1
	ktap_result $st "autopkgtest dkms-build (packaging/debian/tests/dkms-build) for $apt_r ($apt_k): exit $rc, nothing on stderr ($((SECONDS - t)) s)"
fi

# A kernel older than dkms.conf's BUILD_EXCLUSIVE_KERNEL (5.10): what a
# kernel package's postinst runs, dkms autoinstall, must skip the module,
# not fail (which would fail that postinst).  The release 4.19.0-27-amd64
# (Debian 10's) gets a headers directory of its own in the overlay; dkms
# decides on the release before it builds anything.
log=$LOGS/deb-dkms-old-$TREE.log
rc=0
old=4.19.0-27-amd64
(
	# (dkms takes a directory with an include/ for a kernel's headers.)
	in_ovl sh -c 'mkdir -p /usr/lib/modules/$1/build/include && echo "# not a tree" >/usr/lib/modules/$1/build/Makefile' sh "$old"
	in_ovl dkms autoinstall -k "$old" 2>&1
	st=$?
	echo "dkms autoinstall -k $old: exit $st"
	in_ovl dkms install -m execns -v "$version" -k "$old" 2>&1
	st2=$?
	echo "dkms install -m execns -k $old: exit $st2 (77: skipped)"
	status=$(in_ovl dkms status -m execns -v "$version" -k "$old")
	echo "dkms status: ${status:-(nothing)}"
	in_ovl rm -rf "/usr/lib/modules/$old"
	case $status in *"$old"*) st2=built ;; esac
	[ "$st" = 0 ] && [ "$st2" = 77 ] &&
		! in_ovl test -e "/var/lib/dkms/execns/$version/$old"
) >"$log" 2>&1 || rc=1
sed 's/^/# /' "$log"
ktap_result $rc "a kernel older than 5.10 ($old): dkms autoinstall succeeds and skips execns (BUILD_EXCLUSIVE_KERNEL), dkms install says 77, nothing built" "$log"

# The CLI and the library from the packages: execns --version, and a
# program built with pkg-config's flags, run against libexecns.so.0; it
# reads the uapi header (execns/uapi.h, through execns.h) as well.
log=$LOGS/deb-userspace-$TREE.log
rc=0
cat >"$ROOT$w/prog.c" <<'EOF'
#include <execns.h>
#include <stdio.h>

int main(void)
{
	printf("execns_available: %d\n", execns_available());
	printf("uapi: EXECNS_FLAGS %#x, %s\n", EXECNS_FLAGS, EXECNS_PROC_PROOF);
	return 0;
}
EOF
in_ovl sh -c '
	set -e
	v=$(execns --version)
	echo "execns --version: $v"
	case $v in *"$1"*) ;; *) echo "not version $1"; exit 1 ;; esac
	[ "$(pkg-config --modversion execns)" = "$1" ] || { echo "pkg-config: not version $1"; exit 1; }
	[ -f /usr/include/execns/uapi.h ] || { echo "libexecns-dev installed no /usr/include/execns/uapi.h"; exit 1; }
	cc -std=c11 -Wall -Wextra -Werror -o "$2/prog" "$2/prog.c" $(pkg-config --cflags --libs execns)
	ldd "$2/prog" | grep libexecns
	ldd "$2/prog" | grep -q "libexecns.so.0 => /usr/lib/.*/libexecns.so.0 "
	"$2/prog"
	for f in /usr/share/systemtap/tapset/execns.stp /usr/share/execns/uidacct.stp \
		/usr/share/execns/uidacct.bt /usr/share/execns/compat/task_euid.h; do
		[ -f "$f" ] || { echo "execns installed no $f"; exit 1; }
	done
	echo "tracing: the tapset where stap finds it, the scripts in /usr/share/execns"' \
	sh "$version" "$w" >"$log" 2>&1 || rc=1
sed 's/^/# /' "$log"
ktap_result $rc "execns --version and pkg-config say $version; a program built with pkg-config --cflags --libs execns (and the uapi header) runs against libexecns.so.0; the tapset and the tracing scripts are installed"

# apt purge: none of the packages' files (dpkg -L, directories aside),
# nothing of DKMS's (/usr/src/execns-*, /var/lib/dkms/execns, any
# execns.ko), and no other file the install made: what the upper
# directory gained, but for apt's, dpkg's and the loader's state, logs
# and caches, DKMS's signing key (dkms's own, made on its first build) and
# depmod's indexes (lib/modules/R/modules.*).
log=$LOGS/deb-purge-$TREE.log
t=$SECONDS rc=0
(
	# shellcheck disable=SC2086
	in_ovl dpkg -L $PKGS | sort -u >"$ovl/files"
	echo "$(wc -l <"$ovl/files") paths installed"
	purge || exit 1
	! installed || { echo "still installed after purge:"; in_ovl dpkg -l $PKGS; exit 1; }
	left=$(in_ovl sh -c 'while read -r f; do [ -d "$f" ] || [ ! -e "$f" ] || echo "$f"; done
		ls -d /usr/src/execns-[0-9]* /var/lib/dkms/execns 2>/dev/null
		find /usr/lib/modules -name "execns.ko*" 2>/dev/null' <"$ovl/files")
	(cd "$ovl/upper" && find . ! -type d ! -type c | sort) | comm -13 "$ovl/before" - |
		grep -vE '^\./(var/lib/(dpkg|apt|ucf)/|var/log/|var/cache/|etc/ld\.so\.cache$|var/lib/dkms/mok\.(key|pub)$|(usr/)?lib/modules/[^/]+/modules\.[a-z.]+$|tmp/|root/)' \
		>"$ovl/new" || true
	[ -z "$left" ] && [ ! -s "$ovl/new" ] || {
		echo "left behind after apt purge:"
		echo "$left"
		cat "$ovl/new"
		exit 1
	}
	echo "nothing left behind"
) >"$log" 2>&1 || rc=1
grep -vE '^(Reading|Building dependency|Solving|\(Reading database)' "$log" | sed 's/^/# /'
ktap_result $rc "apt purge leaves nothing behind (the packages' files, /usr/src/execns-*, /var/lib/dkms/execns, execns.ko*, any other new file) ($((SECONDS - t)) s)"
[ "$KTAP_FAILED" -eq 0 ]
