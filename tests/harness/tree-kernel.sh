#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A kernel tree of your own as a row of the matrix: `make check
# KERNEL=/path/to/linux` (make vm-run, suite, shell ... too) boots the
# tree's own image with execns.ko built against the tree, as virtme-ng
# boots a developer's build.  The tree must be configured and built (its
# .config, the image, Module.symvers), with what the guest needs built in
# (tests/kernels/guest.config lists it: the 8250 serial console, an
# initramfs, ...).  The module is built in the build root with the GCC
# major version the tree was built with, or the clang version's clang, lld
# and llvm for a tree built with LLVM=1 (installed there if missing); a
# tree outside the build root is mounted there at its own path for that
# (common.sh's in_root), so an O= tree's absolute paths keep working.
#
# The row is tree-BASENAME (a hash of the path appended when two trees
# share a basename), registered in $EXECNS_CACHE/trees.conf: architecture
# from the .config, the path as its suites column, flavour "-" (built, not
# fetched: check.sh and lint.sh handle it as they handle the debug
# kernel), and proof "any": no expectation, the guest reports the verdict
# it gets and runs or skips the uid-table programs by it.  No tracing
# tools lane: its BTF and debuginfo are whatever its configuration chose.
#
# Usage: tree-kernel.sh register PATH	register PATH, print the row's name
#        tree-kernel.sh NAME		(fetch-kernel.sh) the row's kernel
#					directory, again when the tree changed

. "$(dirname "$0")/common.sh"

BINDS=$EXECNS_CACHE/trees.binds

# cfg TREE OPTION: an option's value in TREE's .config (empty if unset).
cfg() { sed -n "s/^$2=//p" "$1/.config" | tr -d '"'; }

tree_arch() {
	if [ "$(cfg "$1" CONFIG_X86_64)" = y ]; then echo x86_64
	elif [ "$(cfg "$1" CONFIG_ARM64)" = y ]; then echo arm64
	elif [ "$(cfg "$1" CONFIG_S390)" = y ]; then echo s390x
	else die "KERNEL=$1: the guests boot x86_64, arm64 or s390x kernels; this .config is for none of them"
	fi
}

tree_image() { arch_fact "$1" image; }

register() {
	local t arch img name other
	if ! t=$(realpath -e "$1" 2>/dev/null) || [ ! -d "$t" ]; then
		die "KERNEL=$1: no such directory (give the path of a built kernel tree, its O= directory if it has one)"
	fi
	[ -s "$t/.config" ] ||
		die "KERNEL=$1: no .config: not a configured kernel tree (for an O= build give the O= directory)"
	[ -s "$t/include/config/kernel.release" ] ||
		die "KERNEL=$1: not built (no include/config/kernel.release): run make in it first"
	arch=$(tree_arch "$t")
	img=$(tree_image "$arch")
	[ -s "$t/$img" ] || die "KERNEL=$1: no $img: build the image (make -C $1)"
	[ -s "$t/Module.symvers" ] ||
		die "KERNEL=$1: no Module.symvers, which external modules build against: run make (or make modules) in it"
	[ "$(cfg "$t" CONFIG_CC_IS_GCC)" = y ] || [ "$(cfg "$t" CONFIG_CC_IS_CLANG)" = y ] ||
		die "KERNEL=$1: built with $(cfg "$t" CONFIG_CC_VERSION_TEXT); the build root builds modules with GCC or clang only"
	name=tree-$(basename "$t" | tr -c 'A-Za-z0-9._\n-' _)
	other=$(awk -v n="$name" '$1 == n { print $4 }' "$TREES_CONF" 2>/dev/null || true)
	[ -z "$other" ] || [ "$other" = "$t" ] ||
		name=$name-$(printf '%s' "$t" | md5sum | cut -c1-6)
	kernel_names | grep -qx "$name" && die "KERNEL=$1: its row name $name is taken by tests/kernels.conf; rename the directory"
	mkdir -p "$EXECNS_CACHE"
	exec 9>"$EXECNS_CACHE/.trees.lock"
	flock 9
	{
		awk -v n="$name" '$1 != n' "$TREES_CONF" 2>/dev/null || true
		printf '%s\t%s\tno\t%s\t-\tany\t-\tyour kernel tree %s (%s)\n' \
			"$name" "$arch" "$t" "$t" "$(cat "$t/include/config/kernel.release")"
	} >"$TREES_CONF.tmp"
	mv "$TREES_CONF.tmp" "$TREES_CONF"
	# Outside the build root, it (and an O= tree's source) is mounted in it.
	case $t in
	"$ROOT"/*) ;;
	*)
		{
			cat "$BINDS" 2>/dev/null || true
			echo "$t"
			[ ! -L "$t/source" ] || realpath -e "$t/source"
		} | sort -u >"$BINDS.tmp"
		mv "$BINDS.tmp" "$BINDS" ;;
	esac
	printf '%s\n' "$name"
}

# key TREE: what a build of execns.ko against TREE depends on (build-module.sh's stamp).
key() {
	{ cat "$1/.config" "$1/Module.symvers"; stat -c '%s %Y' "$1/$(tree_image "$(tree_arch "$1")")"; } |
		sha1sum | cut -c1-12
}

# compiler TREE ARCH: the build root's GCC of TREE's major version, or for
# a clang tree (LLVM=1) clang-N with lld and llvm of N (kbuild_cc passes
# LLVM=-N; clang cross-compiles by itself), installed there when missing.
compiler() {
	local major cc pkg need
	if [ "$(cfg "$1" CONFIG_CC_IS_CLANG)" = y ]; then
		major=$(( $(cfg "$1" CONFIG_CLANG_VERSION) / 10000 ))
		cc=clang-$major pkg="clang-$major lld-$major llvm-$major"
		need="$cc ld.lld-$major llvm-ar-$major"
	else
		major=$(( $(cfg "$1" CONFIG_GCC_VERSION) / 10000 ))
		cc=$(arch_cross "$2")gcc-$major
		pkg=gcc-$major
		arch_native "$2" || pkg=gcc-$major-$(arch_cross "$2" | sed 's/-$//; s/_/-/g')
		need=$cc
	fi
	if ! in_root sh -c "command -v $need" >/dev/null; then
		exec 8>"$EXECNS_CACHE/.root.lock"
		flock 8
		# shellcheck disable=SC2086 # one package, or clang's three
		logged "tree-cc.log" in_root apt-get install -y -q --no-install-recommends $pkg ||
			die "the tree was built with $(cfg "$1" CONFIG_CC_VERSION_TEXT); the build root has no $cc and cannot install $pkg (log: $LOGS/tree-cc.log)"
		exec 8>&-
	fi
	printf '%s\n' "$cc"
}

populate() {
	local name=$1 t arch out k f
	t=$(kernel_suites "$name") arch=$(kernel_arch "$name") out=$(kdir "$name")
	[ -d "$t" ] || die "KERNEL=$name: its tree $t is gone (make check KERNEL=PATH registers it again)"
	k=$(key "$t")
	[ "$(cat "$out/key" 2>/dev/null)" = "$k" ] && exit 0
	"$TOP/tests/harness/buildroot.sh"
	rm -rf "$out.tmp" && mkdir -p "$out.tmp/modules"
	cp "$t/$(tree_image "$arch")" "$out.tmp/vmlinuz"
	cat "$t/include/config/kernel.release" >"$out.tmp/release"
	printf 'tree-%s\n' "$k" >"$out.tmp/version"
	compiler "$t" "$arch" >"$out.tmp/cc"
	printf '%s\n' "$k" >"$out.tmp/key"
	case $t in
	"$ROOT"/*) printf '%s\n' "${t#"$ROOT"}" ;;
	*) printf '%s\n' "$t" ;;
	esac >"$out.tmp/kbuild"
	# The module the guest tests insmod (fetch-kernel.sh's MODULES), where
	# the tree built it.
	f=$(find "$t" -name binfmt_misc.ko -print -quit)
	[ -z "$f" ] || cp "$f" "$out.tmp/modules/"
	# A foreign guest's busybox and util-linux: those of the stock row of
	# its architecture (fetched first).
	if ! arch_native "$arch"; then
		f=$(kernel_names | while read -r r; do
			[ "$(kernel_arch "$r")" = "$arch" ] && [ "$(kernel_flavour "$r")" = "$(arch_deb "$arch")" ] &&
				{ echo "$r"; break; }
		done)
		"$TOP/tests/harness/fetch-kernel.sh" "$f"
		cp -a "$(kdir "$f")/busybox" "$(kdir "$f")/util-linux" "$out.tmp/"
	fi
	rm -rf "$out" && mv "$out.tmp" "$out"
	note "$name: $(cat "$out/release") from $t ($(cat "$out/cc"))"
}

case ${1:?usage: tree-kernel.sh register PATH | NAME} in
register) register "${2:?usage: tree-kernel.sh register PATH}" ;;
*) populate "$1" ;;
esac
