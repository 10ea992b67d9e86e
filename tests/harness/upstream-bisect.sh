#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Is the in-tree twin's series bisectable?  Builds the x86_64 kernel of the
# twin row's configuration (allnoconfig + tests/kernels/guest.config +
# twin.config, GCC 14, in the build root) on the pristine source the
# series names, then again after each patch, incrementally, and asserts
# that every step builds its bzImage with no compiler, linker, modpost or
# objtool warning.  A bisect that lands between two patches needs exactly
# this.  KTAP: one result for the base, one per patch.
#
# Not part of make check: the base build is the twin's (478 s on 2 cores
# here) and each patch rebuilds what includes the headers it touches
# (patch 1's syscalls.h, most of the tree): 33 minutes in all.
# arm64 and s390x are built with the whole series only (upstream/README.md):
# their patches (3, 4) touch nothing but syscall tables.
#
# Usage: upstream-bisect.sh	(make upstream-bisect; exit 0: every step
#				 built clean; 1: one did not, its result
#				 says which; 4: the base is not unpacked)

. "$(dirname "$0")/common.sh"

U=$TOP/upstream
FRAGMENTS="guest twin"
CC_NAME=x86_64-linux-gnu-gcc-14
MK="ARCH=x86_64 $(kbuild_cc "$CC_NAME" host)"

base=$(series_base "$U")
[ -n "$base" ] || die "upstream/series has no '# base: linux-source-6.12 VERSION' line"
src=/usr/src/execns-built/src-$base
if [ ! -f "$ROOT$src/Makefile" ]; then
	echo "linux-source-6.12 $base is not unpacked in the build root ($src; make check KERNEL=twin unpacks it)"
	exit 4
fi

# The trees live under the build root, where the compiler is; removed
# whatever happens.
tmp=$(mktemp -d "$ROOT/usr/src/execns-bisect.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
t=/usr/src/${tmp##*/}
tree_link_copy "$ROOT$src" "$tmp/linux" || die "cannot copy $src"
mkdir -p "$tmp/build"
for f in $FRAGMENTS; do cp "$TOP/tests/kernels/$f.config" "$tmp/build/"; done
logged upstream-bisect-config.log in_root env MAKEFLAGS="$MK" sh -c \
	"cd $t/linux && scripts/kconfig/merge_config.sh -n -O $t/build $(printf "$t/build/%s.config " $FRAGMENTS)" ||
	die "merge_config.sh failed (log: $LOGS/upstream-bisect-config.log)"

# step NAME: build the tree as it is now (olddefconfig first: a patch may
# bring a Kconfig option) and report NAME.  Make prints each warning with
# "warning:" (the compiler's, the linker's, modpost's and objtool's).
step() {
	local log=$LOGS/upstream-bisect-$KTAP_N.log t0 rc=0 w
	t0=$(date +%s)
	in_root nice -n 19 make -C "$t/build" $MK -j"$(nproc)" olddefconfig bzImage >"$log" 2>&1 || rc=$?
	w=$(grep -c 'warning:' "$log" || true)
	if [ "$rc" -eq 0 ] && [ "$w" -ne 0 ]; then
		grep 'warning:' "$log" | head -n 20 >"$log.w"
		mv "$log.w" "$log"
		rc=1
	fi
	ktap_result "$rc" "$1: bzImage builds, $w warnings ($(( $(date +%s) - t0 )) s)" "$log"
}

patches=$(series_patches "$U")
echo "KTAP version 1"
echo "1..$(( $(printf '%s\n' "$patches" | wc -l) + 1 ))"
step "linux-source-6.12 $base, pristine"
for p in $patches; do
	if ! tree_apply "$tmp/linux" "$p" >"$LOGS/upstream-bisect-apply.log" 2>&1; then
		ktap_result 1 "${p##*/}: applies" "$LOGS/upstream-bisect-apply.log"
		break
	fi
	step "${p##*/}"
done
[ "$KTAP_FAILED" -eq 0 ]
