#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Prove `make dkms-install` for one kernel of the matrix with Debian's dkms,
# in the build root: the target runs there on a copy of this tree, with
# dkms's trees (source, build, install) private to this check, for the
# kernel's release R; the execns.ko it installs must carry vermagic R.
# dkms is installed in the build root on first use; it stays, with the
# module-signing key dkms makes once in the root's /var/lib/dkms.  Nothing
# else is kept.
#
# Usage: dkms-check.sh KERNEL	(exit 0: proved, 1: not, 2: could not run)

. "$(dirname "$0")/common.sh"

kernel=${1:?usage: dkms-check.sh KERNEL}
kd=$(kdir "$kernel")
"$TOP/tests/harness/fetch-kernel.sh" "$kernel"
release=$(cat "$kd/release")

# dkms in the build root, once (as tests/tracing/host/trace-run.sh installs
# perf), under the build root's lock (buildroot.sh's) so two trees do not
# run apt at once.
have_dkms() { in_root sh -c 'command -v dkms' >/dev/null 2>&1; }
if ! have_dkms; then
	exec 9>"$EXECNS_CACHE/.root.lock"
	flock 9
	if ! have_dkms; then
		note "installing dkms in the build root"
		logged root-dkms.log in_root apt-get install -y -q --no-install-recommends dkms ||
			die "installing dkms in the build root failed (log: $LOGS/root-dkms.log)"
	fi
	exec 9>&-
fi

# One work directory per tree and kernel, under the build root's /tmp.
w=/tmp/execns-dkms-$TREE-$kernel
trap 'rm -rf "${ROOT:?}$w"' EXIT
rm -rf "$ROOT$w"
mkdir -p "$ROOT$w/tree/tests" "$ROOT$w/src" "$ROOT$w/dkms" "$ROOT$w/lib/$release"
cp -r "$TOP/Makefile" "$TOP/Kbuild" "$TOP/VERSION" "$TOP/dkms.conf" "$TOP/module" "$ROOT$w/tree/"
cp "$KERNELS_CONF" "$ROOT$w/tree/tests/"
# dkms looks for a kernel's headers under its install tree.
ln -s "/lib/modules/$release/build" "$ROOT$w/lib/$release/build"

dkms="dkms --dkmstree $w/dkms --sourcetree $w/src --installtree $w/lib"
echo "make dkms-install for $release"
in_root make -C "$w/tree" dkms-install DKMS="$dkms" DKMS_SRCTREE="$w/src" DKMS_KERNEL="$release" || {
	cat "$ROOT$w"/dkms/execns/*/"$release"/*/log/make.log 2>/dev/null | tail -n 20
	echo "make dkms-install failed for $release"
	exit 1
}
ko=$w/lib/$release/updates/dkms/execns.ko
[ -f "$ROOT$ko" ] || { echo "no $ko after make dkms-install"; exit 1; }
vermagic=$(in_root modinfo -F vermagic "$ko")
echo "$ko: vermagic $vermagic"
[ "${vermagic%% *}" = "$release" ] || { echo "vermagic is not for $release"; exit 1; }
in_root $dkms status -m execns
