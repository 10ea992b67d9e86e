#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Make (once) the build root every kernel's module is built in: a Debian
# unstable chroot under $EXECNS_CACHE/root with apt sources for every suite the
# kernel matrix uses.  One root serves all kernels: it holds gcc-12 (for 6.1)
# and gcc-14 (for 6.12 and 7.3, whose kbuild helpers need a newer libc than
# the host's), SystemTap and each kernel's headers side by side.  5.10's
# headers bring bullseye's gcc-10 (and its cross compilers), which unstable
# no longer has: apt installs them from bullseye beside unstable's own.
#
# Usage: buildroot.sh		(idempotent; re-installs when PACKAGES change)

. "$(dirname "$0")/common.sh"

PACKAGES="gcc-12 gcc-14 make libelf-dev bc kmod sparse systemtap ca-certificates"
SUITE=unstable

# sources: the root's apt sources (a change to them re-runs the install).
sources() {
	cat <<-EOF
	# Written by execns tests/harness/buildroot.sh.
	Types: deb
	URIs: $MIRROR
	Suites: unstable
	Components: main
	Check-Valid-Until: no

	Types: deb
	URIs: $MIRROR
	Suites: bullseye bookworm trixie trixie-backports
	Components: main

	Types: deb
	URIs: $SEC_MIRROR
	Suites: bullseye-security bookworm-security trixie-security
	Components: main
	EOF
}

write_sources() {
	rm -f "$ROOT/etc/apt/sources.list"
	sources >"$ROOT/etc/apt/sources.list.d/execns.sources"
}

make_root() {
	local tmp=$ROOT.tmp
	command -v debootstrap >/dev/null || die "debootstrap is missing: run 'make deps' (or apt-get install debootstrap)"
	rm -rf "$tmp"
	note "creating the build root (Debian $SUITE, about 2 minutes) in $ROOT"
	logged debootstrap.log debootstrap --variant=minbase "$SUITE" "$tmp" "$MIRROR" ||
		die "debootstrap $SUITE failed: is the Debian package registry reachable? (log: $LOGS/debootstrap.log)"
	rm -rf "$ROOT"
	mv "$tmp" "$ROOT"
}

main() {
	exec 9>"$EXECNS_CACHE/.root.lock"
	flock 9
	[ -x "$ROOT/usr/bin/apt-get" ] || make_root
	local stamp
	stamp="$PACKAGES $MIRROR $(sources | md5sum | cut -c1-8)"
	[ "$(cat "$ROOT/.execns-packages" 2>/dev/null)" = "$stamp" ] && return 0
	write_sources
	# The foreign architectures' private lists (fetch-kernel.sh) were
	# fetched from the old sources: fetched again when next needed.
	rm -rf "$ROOT"/var/lib/execns-apt/*/lists
	note "installing the toolchains in the build root ($PACKAGES)"
	logged root-update.log in_root apt-get -q update ||
		die "apt-get update in the build root failed: is the Debian package registry reachable? (log: $LOGS/root-update.log)"
	logged root-install.log in_root apt-get install -y -q --no-install-recommends $PACKAGES ||
		die "installing $PACKAGES in the build root failed (log: $LOGS/root-install.log)"
	printf '%s\n' "$stamp" >"$ROOT/.execns-packages"
}

main "$@"
