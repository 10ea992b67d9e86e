# SPDX-License-Identifier: GPL-2.0
# fetch-kernel.sh's refresh mode (make fetch-refresh), sourced by it.

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
