#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The in-tree twin's patch series (upstream/), checked on the host as a
# kernel maintainer would take it: every patch of upstream/series is a
# mail git am reads (subject, author, Signed-off-by), the series applies in
# order to the pristine source it names (its "# base:" line: Debian's
# linux-source-6.12 VERSION, unpacked in the build root by build-kernel.sh)
# with git apply, git am's engine, and each patch is clean under that
# source's own scripts/checkpatch.pl --strict (0 errors, 0 warnings, 0
# checks).  The tree is a hard-link copy: only the files a patch touches
# are copied, so the pristine source is never written.
#
# Usage: upstream-check.sh	(exit 0: all good; 1: a patch failed, the
#				 output says which; 4: the base is not here)

. "$(dirname "$0")/common.sh"

U=$TOP/upstream
base=$(series_base "$U")
[ -n "$base" ] || die "upstream/series has no '# base: linux-source-6.12 VERSION' line"
src=$ROOT/usr/src/execns-built/src-$base
if [ ! -f "$src/Makefile" ]; then
	echo "linux-source-6.12 $base is not unpacked in the build root ($src; make check KERNEL=debug unpacks it)"
	exit 4
fi
patches=$(series_patches "$U" | sed 's|.*/||')
rc=0
for f in "$U"/*.patch; do
	printf '%s\n' "$patches" | grep -qxF "${f##*/}" || { echo "${f##*/}: not in upstream/series"; rc=1; }
done

tmp=$(mktemp -d "$ROOT/usr/src/execns-upstream-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tree_link_copy "$src" "$tmp/linux" || die "cannot copy $src"
n=0
for p in $patches; do
	n=$((n + 1))
	f=$U/$p
	[ -f "$f" ] || { echo "$p: listed in upstream/series, not in upstream/"; rc=1; continue; }
	git mailinfo /dev/null /dev/null <"$f" >"$tmp/info" 2>/dev/null
	grep -q '^Subject: .' "$tmp/info" && grep -q '^Author: .' "$tmp/info" &&
		grep -q '^Signed-off-by: ' "$f" ||
		{ echo "$p: not a mail git am takes (Subject, From and Signed-off-by)"; rc=1; }
	if ! tree_apply "$tmp/linux" "$f" >"$tmp/apply" 2>&1; then
		echo "$p: does not apply after the $((n - 1)) before it:"
		sed 's/^/  /' "$tmp/apply"
		rc=1
		break
	fi
	# checkpatch exits 1 on any finding: the grep below reports it.
	(cd "$tmp/linux" && perl scripts/checkpatch.pl --strict --show-types "$f") >"$tmp/cp" 2>&1 || true
	if grep -q '^total: 0 errors, 0 warnings, 0 checks' "$tmp/cp"; then
		echo "$p: applies; checkpatch --strict: $(grep -o '^total: [^,]*, [^,]*, [^,]*' "$tmp/cp")"
	else
		echo "$p: checkpatch --strict is not clean:"
		grep -E '^(ERROR|WARNING|CHECK|total)' "$tmp/cp" | sed 's/^/  /'
		rc=1
	fi
done
echo "upstream/series: $n patches on linux-source-6.12 $base"
exit $rc
