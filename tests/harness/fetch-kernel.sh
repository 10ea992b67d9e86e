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
if ! arch_native "$arch"; then
	APT_OPTS="-o APT::Architecture=$deb -o APT::Architectures::=$deb"
	APT_OPTS="$APT_OPTS -o Dir::State::Lists=$APT_STATE/lists -o Dir::Cache=$APT_STATE/cache"
	APT_OPTS="$APT_OPTS -o Dir::State::status=/dev/null -o Acquire::Languages=none"
fi

# The parts, by responsibility (tests/harness/fetch/): package resolution,
# stock kernels, guest programs and tracing tools, refresh.
# shellcheck source=tests/harness/fetch/apt.sh
. "$TOP/tests/harness/fetch/apt.sh"
# shellcheck source=tests/harness/fetch/image.sh
. "$TOP/tests/harness/fetch/image.sh"
# shellcheck source=tests/harness/fetch/programs.sh
. "$TOP/tests/harness/fetch/programs.sh"
# shellcheck source=tests/harness/fetch/refresh.sh
. "$TOP/tests/harness/fetch/refresh.sh"

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
