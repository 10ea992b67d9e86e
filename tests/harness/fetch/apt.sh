# SPDX-License-Identifier: GPL-2.0
# fetch-kernel.sh's package resolution, sourced by it: the private apt
# state of a foreign architecture, the newest version of a package among
# the row's suites, and the download of a package with the dependencies
# that carry its files.  Uses fetch-kernel.sh's name, suites, pin_suite,
# deb, APT_OPTS and APT_STATE.

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
