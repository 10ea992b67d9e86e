#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The source package's autopkgtest smoke (packaging/debian/tests/smoke) in
# a guest of each KERNEL named, as autopkgtest runs it on a machine with
# the packages installed (KTAP, one result a kernel).  autopkgtest's own
# testbeds boot whatever kernel their image has; this runs the test
# unchanged on the matrix's kernels instead.
#
# The guest gets the root deb-check.sh kept for that kernel
# ($EXECNS_CACHE/modules/TREE/KERNEL/autopkgtest-root: the files execns
# and libexecns0 installed, the execns.ko DKMS built and installed for the
# kernel with its modules.dep, kmod and dash), laid over its own
# (EXECNS_EXTRA_ROOT), and the test from this tree, run by dash, which is
# Debian's /bin/sh, the shell its #! names on a testbed: the guest's
# busybox sh would run its own modprobe, rmmod and modinfo applets ahead
# of kmod's on PATH (Debian's busybox-static prefers its applets).  The
# module is left unloaded at boot (EXECNS_LOAD=no): the test loads it
# itself, with modprobe.  The test must exit 0, or 77 (skipped) where tests/kernels.conf
# says the load-time proof refuses uid tables, and print no failure line
# ("smoke: FAIL: ...": the guest merges the test's stderr into its
# stdout, so unlike autopkgtest this cannot hold it to an empty stderr);
# the guest's kernel log must stay clean and its taint O/E only, as for
# every vm.sh run.
# Only the x86_64 Debian kernels whose guests load the module: the
# packages are built for amd64, and DKMS builds against Debian's headers.
#
# Usage: autopkgtest-check.sh KERNEL...	(after deb-check.sh KERNEL...;
#	exit 0: all passed, 1: a failure, 2: could not run)

. "$(dirname "$0")/common.sh"

[ $# -gt 0 ] || die "autopkgtest-check.sh: no kernel named"
smoke=$TOP/packaging/debian/tests/smoke
[ -x "$smoke" ] || die "no executable $smoke"
# Where the test sits in the guest (beside the guest's own scripts).
gsmoke=/usr/local/lib/execns/autopkgtest/smoke

# Said before the KTAP starts: a kernel without its packages cannot run.
packages_kept "$@"

extra=
trap 'rm -rf "$extra"' EXIT

echo "KTAP version 1"
echo "1..$#"
for k in "$@"; do
	name="$k: autopkgtest smoke (packaging/debian/tests/smoke) in a guest with the packages' files"
	if ! pkg_guest_row "$k"; then
		case $(kernel_proof "$k") in
		refused-insmod*) ktap_skip "$name" "execns.ko refuses this kernel at insmod" ;;
		*) ktap_skip "$name" "not an x86_64 Debian kernel: the packages are built for amd64, DKMS against Debian's headers" ;;
		esac
		continue
	fi
	case $(kernel_proof "$k") in
	refused*) want=77 ;;	# the smoke skips its uid table there
	*) want=0 ;;
	esac
	root=$(dirname "$(kmod "$k")")/autopkgtest-root
	echo "# the packages' files as deb-check.sh kept them for $k: $(date -r "$root" '+%F %T')"

	rm -rf "$extra"
	extra=$(mktemp -d /tmp/execns-autopkgtest.XXXXXX)
	cp -a "$root/." "$extra/"
	install -D -m 755 "$smoke" "$extra$gsmoke"
	log=$LOGS/autopkgtest-$TREE-$k.log
	rc=0
	EXECNS_LOAD=no EXECNS_EXTRA_ROOT=$extra \
		"$TOP/tests/harness/vm.sh" "$k" run "/usr/bin/dash $gsmoke" >"$log" 2>"$log.err" || rc=$?
	sed 's/^/# /' "$log"
	sed 's/^/# vm.sh: /' "$log.err"
	st=0
	[ "$rc" = "$want" ] || st=1
	! grep -q '^smoke: FAIL: ' "$log" || st=1
	! grep -qE 'kernel log is not clean|kernel tainted|the console shows bug reports|timed out|died without reporting' "$log.err" || st=1
	ktap_result $st "$name: exit $rc (want $want)"
done
[ "$KTAP_FAILED" -eq 0 ]
