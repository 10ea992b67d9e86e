# SPDX-License-Identifier: GPL-2.0
# Shared definitions for the host-side harness scripts.  Sourced, not run.
#
# Everything fetched or built for a kernel lives under $EXECNS_CACHE, outside
# the repository, so a warm run re-uses it.  Noisy steps log to
# $EXECNS_CACHE/logs and fail with one line that names the log.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
EXECNS_CACHE=${EXECNS_CACHE:-/var/cache/execns}
ROOT=$EXECNS_CACHE/root			# the build root (Debian unstable chroot)
LOGS=$EXECNS_CACHE/logs
MIRROR=${EXECNS_MIRROR:-http://deb.debian.org/debian}
SEC_MIRROR=${EXECNS_SEC_MIRROR:-http://deb.debian.org/debian-security}
KERNELS_CONF=$TOP/tests/kernels.conf
# Kernel trees of your own (make check KERNEL=/path/to/linux), registered
# by tree-kernel.sh as rows of the same form as tests/kernels.conf's.
TREES_CONF=$EXECNS_CACHE/trees.conf

die() { printf 'execns: error: %s\n' "$*" >&2; exit 2; }
note() { printf 'execns: %s\n' "$*" >&2; }

# KTAP for the harness's own checks (lint.sh, hook-sites.sh, sign-check.sh,
# deb-check.sh): ktap_result STATUS NAME [LOG] prints "ok N - NAME", or,
# when STATUS is not 0, the last 30 lines of LOG as comments and "not ok N
# - NAME"; ktap_skip NAME REASON a skip.  KTAP_N counts the results,
# KTAP_FAILED the failures (a script ends with [ "$KTAP_FAILED" -eq 0 ]).
KTAP_N=0 KTAP_FAILED=0
ktap_result() {
	KTAP_N=$((KTAP_N + 1))
	if [ "$1" = 0 ]; then
		echo "ok $KTAP_N - $2"
	else
		[ -z "${3:-}" ] || [ ! -e "$3" ] || tail -n 30 "$3" | sed 's/^/# /'
		echo "not ok $KTAP_N - $2"
		KTAP_FAILED=$((KTAP_FAILED + 1))
	fi
}
ktap_skip() {
	KTAP_N=$((KTAP_N + 1))
	echo "ok $KTAP_N - $1 # SKIP $2"
}

mkdir -p "$LOGS"

# kernel_names: the names in tests/kernels.conf, in order.
kernel_names() { awk '!/^#/ && NF { print $1 }' "$KERNELS_CONF"; }

# kernel_rows: the lines of tests/kernels.conf and of the registered trees.
kernel_rows() { cat "$KERNELS_CONF" "$TREES_CONF" 2>/dev/null || true; }

# kernel_field NAME COLUMN: one column of a kernel's line; dies on an unknown name.
kernel_field() {
	local v
	v=$(kernel_rows | awk -v n="$1" -v c="$2" '!/^#/ && $1 == n { print $c; exit }')
	[ -n "$v" ] || die "unknown KERNEL '$1' (known: $(kernel_names | tr '\n' ' '), or the path of a built kernel tree)"
	printf '%s\n' "$v"
}

# kernel_desc NAME: the "what" column of a kernel's line (the eighth on).
kernel_desc() {
	kernel_rows | awk -v n="$1" '!/^#/ && $1 == n { for (i = 1; i <= 7; i++) $i = ""; sub(/^ +/, ""); print; exit }'
}

# kernel_trait NAME WORD: whether a row's traits column (the seventh: "-"
# or words joined by commas) has WORD, or WORD=VALUE, whose VALUE it
# prints.  The words check.sh reads: sign (make sign and a guest with
# module.sig_enforce=1), tree (the kernel's build tree booted as a tree
# of your own), split=PROGRAM (that test program in a guest and a lane
# of its own); and the common lane's deb-trace (deb-check.sh and
# deb-use-check.sh: the packaged tracing scripts, built and run on the
# first such row named).
kernel_trait() {
	local t
	for t in $(kernel_field "$1" 7 | tr ',' ' '); do
		case $t in
		"$2") return 0 ;;
		"$2"=*) printf '%s\n' "${t#*=}"; return 0 ;;
		esac
	done
	return 1
}

# kernel_tree NAME: whether a row is a kernel tree of your own
# (tree-kernel.sh): its suites column is the tree's path.
kernel_tree() { case $(kernel_suites "$1") in /*) return 0 ;; esac; return 1; }

# kernel_arch NAME: a kernel's architecture (x86_64, arm64, s390x, i386).
kernel_arch() { kernel_field "$1" 2; }

# kernel_suites NAME: a kernel's suites column.
kernel_suites() { kernel_field "$1" 4; }

# kernel_flavour NAME: Debian's flavour of a kernel (amd64, cloud-amd64,
# rt-amd64, arm64, arm64-16k, s390x, ...): the FLAVOUR of the
# linux-image-FLAVOUR and linux-headers-FLAVOUR packages fetched for it;
# "-" for the kernels built here (debug, bypass).
kernel_flavour() { kernel_field "$1" 5; }

# kernel_proof NAME: the verdict the module's load-time proof must give on
# a kernel, as the guest finds it in /etc/execns/proof: "proven", or
# "partial WORD" (the column's partial:WORD: uid tables offered, some of
# their accounting unproven) or "refused SITE" (refused:SITE: uid tables
# refused), WORD or SITE being part of the proof's first failed check; or
# "refused-insmod WORD" where execns.ko refuses the kernel at insmod
# (run-tests asserts that instead).
kernel_proof() {
	local v
	v=$(kernel_field "$1" 6)
	case $v in
	proven) echo proven ;;
	any) echo any ;;
	in-tree) echo in-tree ;;
	partial:?*) printf 'partial %s\n' "${v#partial:}" ;;
	refused:?*) printf 'refused %s\n' "${v#refused:}" ;;
	refused-insmod:?*) printf 'refused-insmod %s\n' "${v#refused-insmod:}" ;;
	*) die "KERNEL=$1: proof column '$v' in tests/kernels.conf is neither proven, partial:WORD, refused:SITE, refused-insmod:WORD nor in-tree" ;;
	esac
}

# kernel_in_tree NAME: whether a kernel has execns(2) of its own (proof
# column in-tree: the twin, upstream/): no module is built for it or
# loaded in its guests.
kernel_in_tree() { [ "$(kernel_field "$1" 6)" = in-tree ]; }

# kernel_built NAME: whether a kernel is built, not fetched (flavour "-":
# debug, bypass, a tree of your own): its own build script, KASAN's memory
# and time.
kernel_built() { [ "$(kernel_flavour "$1")" = - ]; }

# recipe_value NAME VAR: VAR= of a built kernel's recipe,
# tests/kernels/NAME.recipe (empty if it has none).
recipe_value() { sed -n "s/^$2=//p" "$TOP/tests/kernels/$1.recipe" 2>/dev/null; }

# recipe_base NAME: the row whose source a built kernel is made of: its
# recipe's BASE= for another row's kernel with patches
# (build-patched-kernel.sh), else NAME itself.
recipe_base() {
	local b
	b=$(recipe_value "$1" BASE)
	printf '%s\n' "${b:-$1}"
}

# tools_row K: whether kernel K gets a tracing tools lane in check.sh: the rows of
# Debian's main flavour of each architecture (amd64, arm64, s390x) and the
# kernels built here, not the other flavours (cloud-amd64, rt-amd64,
# arm64-16k: the same source and the same tools as their main flavour,
# at 3-5 CPU-minutes a row; `make trace-check KERNEL=K` runs them), nor a
# row whose uid tables the load-time proof refuses or proves only in part
# (every tracing check counts a uid table's events exactly, and where a
# hook is unproven some may be the kernel's, as on bypass), nor a tree of
# your own (proof "any": its BTF and debuginfo are whatever its
# configuration chose).
tools_row() {
	local f
	f=$(kernel_flavour "$1")
	case $(kernel_proof "$1") in refused* | partial* | any | in-tree) return 1 ;; esac
	[ "$f" = - ] || [ "$f" = "$(arch_deb "$(kernel_arch "$1")")" ]
}

# pkg_guest_row K: whether K's guest can run the Debian packages' own tests
# (autopkgtest-check.sh, deb-use-check.sh): an x86_64 Debian kernel, as
# the packages are amd64 and DKMS builds against Debian's headers, that
# execns.ko does not refuse at insmod.
pkg_guest_row() {
	arch_native "$(kernel_arch "$1")" && ! kernel_built "$1" && ! kernel_in_tree "$1" &&
		case $(kernel_proof "$1") in refused-insmod*) false ;; esac
}

# packages_kept K...: dies unless deb-check.sh kept the installed packages'
# files (autopkgtest-root) for each such K's guest.
packages_kept() {
	local k r
	for k in "$@"; do
		kernel_field "$k" 1 >/dev/null
		r=$(dirname "$(kmod "$k")")/autopkgtest-root
		! pkg_guest_row "$k" || [ -d "$r" ] ||
			die "$k: no packages kept for its guest ($r): run tests/harness/deb-check.sh $k first"
	done
}

# arch_fact ARCH COLUMN: one fact about a guest architecture, from
# tests/arches.conf (COLUMN by name: deb, kbuild, cross, qemu, qemupkg,
# machine, cpu, firmware, console, ktap, vserial, image, elf); "-" prints
# as nothing, "+" as a space.  Dies on an unknown architecture.
ARCHES_CONF=$TOP/tests/arches.conf
arch_fact() {
	local v
	v=$(awk -v a="$1" -v c="$2" '
		/^# arch\t/ { for (i = 2; i <= NF; i++) col[$i] = i - 1; next }
		/^#/ || !NF { next }
		$1 == a { if (!(c in col)) exit 2; print $col[c]; found = 1; exit }
		END { if (!found) exit 1 }' "$ARCHES_CONF") ||
		die "unknown architecture '$1' or fact '$2' (tests/arches.conf: $(arch_names | xargs))"
	[ "$v" = - ] && v=
	printf '%s\n' "${v//+/ }"
}

# arch_names: the architectures of tests/arches.conf.
arch_names() { awk '!/^#/ && NF { print $1 }' "$ARCHES_CONF"; }

# arch_deb ARCH, arch_kbuild ARCH, arch_cross ARCH: Debian's name for an
# architecture, the kernel's ARCH= for it, and its cross-tool prefix.
arch_deb() { arch_fact "$1" deb; }
arch_kbuild() { arch_fact "$1" kbuild; }
arch_cross() { arch_fact "$1" cross; }

# Whether ARCH is this machine's own (the build root and the host are
# x86_64): its guest programs are the host's, and the x86-only checks apply.
arch_native() { [ "$1" = x86_64 ]; }

kdir() { printf '%s/kernels/%s\n' "$EXECNS_CACHE" "$1"; }

# kbuild_dir KERNEL: its kbuild tree, as a path in the build root: the
# build link of its release, or a tree of your own (kdir's kbuild file).
kbuild_dir() {
	local kd
	kd=$(kdir "$1")
	if [ -s "$kd/kbuild" ]; then
		cat "$kd/kbuild"
	else
		printf '/lib/modules/%s/build\n' "$(cat "$kd/release")"
	fi
}

# kbuild_host KERNEL: the same tree, as a path on this machine.
kbuild_host() {
	local kd b t
	kd=$(kdir "$1")
	if [ -s "$kd/kbuild" ]; then
		b=$(cat "$kd/kbuild")
		if [ -e "$b/.config" ]; then printf '%s\n' "$b"; else printf '%s%s\n' "$ROOT" "$b"; fi
		return
	fi
	b=/lib/modules/$(cat "$kd/release")/build
	t=$(readlink "$ROOT$b") || die "$1: no build tree for $(cat "$kd/release") in the build root"
	case $t in
	/*) printf '%s%s\n' "$ROOT" "$t" ;;
	*) printf '%s%s/%s\n' "$ROOT" "${b%/build}" "$t" ;;
	esac
}

# cross_dir KERNEL: where guest-cross.sh builds a foreign kernel's guest
# programs in the build root: one directory per tree, architecture and
# compiler, as tests/guest/Makefile does not rebuild when only CC changes
# (trixie-s390x's programs are gcc-14's, unstable-s390x's gcc-16's).
cross_dir() {
	local cc
	cc=$(cat "$(kdir "$1")/cc") || die "no compiler recorded for $1 (run make fetch KERNEL=$1)"
	printf '/build/%s/guest-%s-%s\n' "$TREE" "$(kernel_arch "$1")" "${cc##*-linux-gnu-}"
}

# prepare_guest KERNEL: what a boot of KERNEL needs built and fetched: the
# kernel, execns.ko for it (not for the twin: kernel_in_tree), and the guest's test programs (the host's for
# x86_64, cross-built by guest-cross.sh for another architecture).
prepare_guest() {
	"$TOP/tests/harness/fetch-kernel.sh" "$1"
	kernel_in_tree "$1" || "$TOP/tests/harness/build-module.sh" "$1"
	if arch_native "$(kernel_arch "$1")"; then
		logged guest-progs.log make -C "$TOP" -s guest-progs ||
			die "building the guest's test programs failed (log: $LOGS/guest-progs.log)"
	elif [ "$(kernel_arch "$1")" = i386 ]; then
		:	# execns.ko refuses to load there: vm.sh runs no test program
	else
		"$TOP/tests/harness/guest-cross.sh" "$1" >/dev/null
	fi
}

# Module objects and the built modules belong to one source tree, so two
# checkouts (git worktrees) can test different sources at once.
# kmod KERNEL [NAME]: where build-module.sh leaves NAME.ko (default execns)
# for KERNEL.
TREE=$(printf '%s' "$TOP" | md5sum | cut -c1-8)
kmod() { printf '%s/modules/%s/%s/%s.ko\n' "$EXECNS_CACHE" "$TREE" "$1" "${2:-execns}"; }

# kbuild_ext KERNEL DIR [ARG...]: `make modules` of the external module in
# DIR (a build-root path) against KERNEL's headers, with the compiler they
# were configured with and, for another architecture, its ARCH= and cross
# binutils.  execns.ko, the IPMODIFY probe, the kmemleak self-test's module
# and the per-CPU probe are all built this way.
kbuild_ext() {
	local k=$1 dir=$2 kd arch cross=()
	shift 2
	kd=$(kdir "$k") arch=$(kernel_arch "$k")
	arch_native "$arch" ||
		cross=(ARCH="$(arch_kbuild "$arch")" CROSS_COMPILE="$(arch_cross "$arch")")
	# shellcheck disable=SC2046 # one or two words, none with a space
	in_root make -C "$(kbuild_dir "$k")" M="$dir" $(kbuild_cc "$(cat "$kd/cc")") \
		"${cross[@]}" "$@" modules
}

# kbuild_cc CC [host]: kbuild's arguments for compiler CC as a kernel's cc
# file names it: a GCC is CC= (and HOSTCC= with "host", for a kernel's own
# build); clang-N is LLVM=-N, clang and LLVM's binutils of version N
# throughout, as kbuild requires of a clang kernel's modules.
kbuild_cc() {
	case $1 in
	clang-*) echo "LLVM=-${1#clang-}" ;;
	*) echo "CC=$1${2:+ HOSTCC=$1}" ;;
	esac
}

# tree_link_copy PRISTINE COPY: COPY becomes a copy of the source tree
# PRISTINE made of hard links (seconds, no space), to be patched by
# tree_apply, which never writes through a link into PRISTINE.
tree_link_copy() {
	rm -rf "$2" && cp -al "$1" "$2"
}

# tree_apply TREE PATCH: apply PATCH (a git or plain unified diff, -p1) to
# a tree_link_copy, with git apply (git am's engine; a whitespace error
# fails).  Each file PATCH touches first gets its own copy, so the
# pristine tree it links to stays pristine.  Prints git apply's complaint
# and fails when it does not apply.
tree_apply() {
	local tree=$1 patch=$2 f
	sed -n 's|^+++ b/||p' "$patch" | while read -r f; do
		f=$tree/$f
		[ ! -e "$f" ] || [ "$(stat -c %h "$f")" -eq 1 ] ||
			{ cp -p "$f" "$f.own" && mv "$f.own" "$f"; }
	done
	(cd "$tree" && git apply --whitespace=error-all "$patch")
}

# series_patches DIR: the patches DIR/series lists, in order, as paths.
series_patches() {
	grep -v '^#' "$1/series" | sed '/^ *$/d; s|^|'"$1"'/|'
}

# series_base DIR: the linux-source-6.12 version DIR/series's "# base:" line
# names (the pristine source its patches apply to).
series_base() {
	sed -n 's/^# base: linux-source-6.12 \([^ ]*\).*/\1/p' "$1/series"
}

# logged LOG CMD...: run CMD with its output in $LOGS/LOG (the caller's
# error message names it).
logged() {
	local log=$LOGS/$1; shift
	"$@" >"$log" 2>&1
}

# in_root CMD...: run CMD in the build root, in a private mount namespace so
# its /proc (objtool needs one) vanishes with it, whatever happens.  The
# kernel trees of your own outside the build root (tree-kernel.sh's
# trees.binds) are mounted there at their own paths, so their kbuild files,
# which name them, work unchanged.
in_root() {
	unshare --mount --fork -- sh -c '
		r=$1; shift
		mount -t proc proc "$r/proc"
		if [ -s "$r/../trees.binds" ]; then
			while read -r p; do
				[ -d "$p" ] && mkdir -p "$r$p" && mount --bind "$p" "$r$p"
			done <"$r/../trees.binds"
		fi
		exec chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
	' in_root "$ROOT" "$@"
}
