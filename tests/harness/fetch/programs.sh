# SPDX-License-Identifier: GPL-2.0
# fetch-kernel.sh's guest programs, sourced by it: a foreign guest's
# busybox and util-linux, the perf and bpftrace of a kernel's suites (the
# trace-tools mode), and a foreign kernel's staprun and stapio (the
# stap-runtime mode), each with the shared libraries it needs.  Uses
# fetch-kernel.sh's name, suites, arch, deb, out and APT_OPTS.

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
