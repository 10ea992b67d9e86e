#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install what the host side of the harness needs, from Debian's packages,
# when something is missing.  Quiet when everything is there.
#
# Usage: deps.sh [ARCH...]	(an architecture of tests/arches.conf, all or default:
#				also that guest's QEMU)

set -euo pipefail
PKGS="busybox-static cpio debootstrap gcc gcc-multilib make gzip util-linux binutils zstd xz-utils mandoc"
# Each guest architecture's QEMU (tests/arches.conf's qemupkg column):
# the host's own always, another's when named.
arches=$(dirname "$0")/../arches.conf
qemupkg() { awk -v a="$1" '!/^#/ && NF && (a == "all" || $1 == a) { print $6 }' "$arches"; }
PKGS="$PKGS $(qemupkg x86_64)"
for a in "$@"; do
	case $a in
	all | default) PKGS="$PKGS $(qemupkg all | xargs)" ;;
	*) PKGS="$PKGS $(qemupkg "$a" | xargs)" ;;
	esac
done
PKGS=$(printf '%s\n' $PKGS | awk '!seen[$0]++' | xargs)
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "execns: error: missing packages:$missing; install them as root (apt-get install$missing)" >&2
	exit 2
fi
echo "execns: installing host packages:$missing" >&2
log=$(mktemp /tmp/execns-deps.XXXXXX)
# Another apt (unattended-upgrades, a second make) holds dpkg's lock for
# a while: wait for it rather than fail.
lock=-oDPkg::Lock::Timeout=600
if ! { apt-get "$lock" update -q && DEBIAN_FRONTEND=noninteractive \
	apt-get "$lock" install -y -q --no-install-recommends $missing; } >"$log" 2>&1; then
	tail -n 5 "$log" >&2
	echo "execns: error: apt-get install$missing failed: is the Debian package registry reachable? (log: $log)" >&2
	exit 2
fi
rm -f "$log"
