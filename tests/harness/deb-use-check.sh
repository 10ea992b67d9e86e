#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages used as README.md and the docs tell a user, beyond
# the autopkgtests, in a guest of each KERNEL named (KTAP, five results a
# kernel, one boot): loading with execns-dkms's modprobe.d and
# modules-load.d examples, and tracing with the packaged scripts, from the
# packages' files alone (tests/guest/deb-use.sh says what each result
# asserts; the fifth is the boot's: exit 0, kernel log clean, taint O/E
# only).
#
# The guest gets the root deb-check.sh kept for that kernel
# ($EXECNS_CACHE/modules/TREE/KERNEL/autopkgtest-root: the files execns
# and libexecns0 installed, execns-dkms's examples, the execns.ko DKMS
# built with its modules.dep, kmod and dash), as autopkgtest-check.sh
# does; where deb-check.sh also kept deb-trace-root (the deb-trace row of
# tests/kernels.conf: the packaged uidacct.stp compiled with the packaged
# tapset, staprun and stapio), that too, and the perf and bpftrace of
# the kernel's own release (fetch-kernel.sh KERNEL trace-tools, as
# trace-run.sh gives its guests), booted as the tracing guests are
# (TRACE_BOOTARGS, 2 GiB).  No /usr/local/share/execns or tracing/ of the
# tree goes in: the scripts run are the packaged ones.  The module is left
# unloaded at boot (EXECNS_LOAD=no): the test loads it with kmod's
# modprobe.
# Only the x86_64 Debian kernels whose guests load the module, as for the
# autopkgtest smoke.
#
# Usage: deb-use-check.sh KERNEL...	(after deb-check.sh KERNEL...;
#	exit 0: all passed, 1: a failure, 2: could not run)

. "$(dirname "$0")/../tracing/host/common.sh"

[ $# -gt 0 ] || die "deb-use-check.sh: no kernel named"
guest=$TOP/tests/guest/deb-use.sh
[ -f "$guest" ] || die "no $guest"
gpath=/usr/local/lib/execns/deb-use
# The guest's four results, by number, for the ones it did not report.
names=("the modprobe.d example" "the modules-load.d example"
	"SystemTap: the packaged uidacct.stp" "bpftrace: the packaged uidacct.bt")

# Said before the KTAP starts: a kernel without its packages cannot run.
packages_kept "$@"

extra=
trap 'rm -rf "$extra"' EXIT

echo "KTAP version 1"
echo "1..$(($# * 5))"
for k in "$@"; do
	if ! pkg_guest_row "$k"; then
		case $(kernel_proof "$k") in
		refused-insmod*) why="execns.ko refuses this kernel at insmod" ;;
		*) why="not an x86_64 Debian kernel: the packages are built for amd64, DKMS against Debian's headers" ;;
		esac
		for n in "${names[@]}" "the guest"; do
			ktap_skip "$k: $n" "$why"
		done
		continue
	fi
	d=$(dirname "$(kmod "$k")")
	echo "# the packages' files as deb-check.sh kept them for $k: $(date -r "$d/autopkgtest-root" '+%F %T')"
	rm -rf "$extra"
	extra=$(mktemp -d /tmp/execns-deb-use.XXXXXX)
	mem=
	# The release's bpftrace first: the libraries it shares with the
	# packages' programs (libstdc++, libzstd, libelf, ...) are then the
	# build root's, newer than its release's, which it runs on, where the
	# build root's programs (execns, kmod, dash, staprun) might not run on
	# older ones.  The C library's own (the loader, libc, libm, libresolv:
	# they call each other's GLIBC_PRIVATE symbols, so they must be of
	# one build) are all the build root's, whichever of them the packages'
	# programs need.
	if [ -d "$d/deb-trace-root" ]; then
		echo "# and the packaged uidacct.stp built for it: $(date -r "$d/deb-trace-root" '+%F %T')"
		"$TOP/tests/harness/fetch-kernel.sh" "$k" trace-tools
		t=$(kdir "$k")/trace-tools
		cp -a "$t/root/." "$extra/"
		mkdir -p "$extra/usr/local/bin"
		cp "$t/bin/"* "$extra/usr/local/bin/"
		cp -a "$d/deb-trace-root/." "$extra/"
		mem=2G
	fi
	cp -a "$d/autopkgtest-root/." "$extra/"
	for l in lib64/ld-linux-x86-64.so.2 usr/lib/x86_64-linux-gnu/{ld-linux-x86-64.so.2,libc.so.6,libm.so.6,libresolv.so.2}; do
		[ ! -e "$extra/$l" ] || cp -L "$ROOT/$l" "$extra/$l"
	done
	install -D -m 755 "$guest" "$extra$gpath"
	log=$LOGS/deb-use-$TREE-$k.log
	rc=0
	BOOTARGS="$TRACE_BOOTARGS ${BOOTARGS:-}" EXECNS_MEM=${mem:-${EXECNS_MEM:-}} \
		EXECNS_LOAD=no EXECNS_EXTRA_ROOT=$extra \
		"$TOP/tests/harness/vm.sh" "$k" run "/usr/bin/dash $gpath" >"$log" 2>"$log.err" || rc=$?
	{ grep -vE '^(not )?ok [0-9]+ - |^KTAP version|^1\.\.[0-9]+$' "$log" || true; } | sed 's/^# //; s/^/# /'
	sed 's/^/# vm.sh: /' "$log.err"
	for i in 1 2 3 4; do
		line=$(grep -m 1 -E "^(not )?ok $i - " "$log" || true)
		text=${line#* - }
		case $line in
		"ok $i - "*" # SKIP "*) ktap_skip "$k: ${text%% # SKIP *}" "${text#* # SKIP }" ;;
		"ok $i - "*) ktap_result 0 "$k: $text" ;;
		"not ok $i - "*) ktap_result 1 "$k: $text" ;;
		*) ktap_result 1 "$k: ${names[$((i - 1))]}: no result from the guest" ;;
		esac
	done
	st=0
	[ "$rc" = 0 ] || st=1
	! grep -qE 'kernel log is not clean|kernel tainted|the console shows bug reports|timed out|died without reporting' "$log.err" || st=1
	ktap_result $st "$k: the guest: exit $rc (want 0), kernel log clean, taint O/E only"
done
[ "$KTAP_FAILED" -eq 0 ]
