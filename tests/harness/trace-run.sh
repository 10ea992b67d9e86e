#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run one tracing tool over a shell command in a guest of the matrix, with
# the module loaded, and print the tool's output: perf (perf stat -a -e
# 'execns:*'), bpftrace (trace/uidacct.bt, or BT=FILE) or stap (stap-run.sh
# with SCRIPT, default stap/uidacct.stp).  perf and bpftrace are Debian's,
# copied into the initramfs with their shared libraries: for an x86_64
# kernel the build root's (installed there on first use), for arm64 and
# s390x the kernel's architecture's, of its own suites (fetch-kernel.sh
# NAME trace-tools, once per kernel).
#
# Usage: trace-run.sh KERNEL TOOL "CMD" ["ADD FILES"]
# Environment: TRACE_GUEST_CMD (run this in the guest instead, e.g.
# execns-trace-check; the tools are in PATH), BT, SCRIPT, STAP_OPTS.
# Exit status: the guest's.

. "$(dirname "$0")/common.sh"

kernel=${1:?usage: trace-run.sh KERNEL perf|bpftrace|stap CMD [ADD]} tool=${2:?no TOOL} cmd=${3:-} add=${4:-}
case $tool in
stap) exec "$TOP/tests/harness/stap-run.sh" "$kernel" "${SCRIPT:-$TOP/stap/uidacct.stp}" "$cmd" "$add" ;;
perf | bpftrace | all) ;;
*) die "unknown TOOL '$tool' (perf, bpftrace or stap)" ;;
esac
kernel_field "$kernel" 1 >/dev/null

work=$(mktemp -d /tmp/execns-trace.XXXXXX)
trap 'rm -rf "$work"' EXIT

# tools: perf and bpftrace in the build root, once (as buildroot.sh does).
# Under the build root's lock: check.sh's lanes may get here together.
have_tools() { in_root sh -c 'command -v perf && command -v bpftrace' >/dev/null 2>&1; }
tools() {
	have_tools && return
	exec 9>"$EXECNS_CACHE/.root.lock"
	flock 9
	if ! have_tools; then
		note "installing linux-perf and bpftrace in the build root"
		logged root-trace-tools.log in_root apt-get install -y -q --no-install-recommends linux-perf bpftrace ||
			die "installing linux-perf and bpftrace in the build root failed (log: $LOGS/root-trace-tools.log)"
	fi
	exec 9>&-
}

# copy BINARY...: each binary, its shared libraries and the loader, into $work/x.
copy() {
	local f
	for f in "$@" $(in_root ldd "$@" |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $1 !~ /:$/ { print $1 }' | sort -u); do
		mkdir -p "$work/x$(dirname "$f")"
		cp -L "$ROOT$f" "$work/x$f"
	done
}

# foreign_tools: a foreign kernel's perf and bpftrace (both, whatever
# TOOL is: they come as one fetch), in the guest's /usr/local/bin.
foreign_tools() {
	local t
	"$TOP/tests/harness/fetch-kernel.sh" "$kernel"
	"$TOP/tests/harness/fetch-kernel.sh" "$kernel" trace-tools
	t=$(kdir "$kernel")/trace-tools
	cp -a "$t/root/." "$work/x/"
	cp "$t/bin/"* "$work/x/usr/local/bin/"
}

mkdir -p "$work/x/usr/local/bin" "$work/x/root/trace" "$work/x/etc"
# The initramfs is unpacked into a tmpfs of at most half the RAM, and the
# tools with LLVM are 300 MB and more (unstable's s390x ones, LLVM 21: 331
# MB; with 1 GiB their unpacking failed, "Initramfs unpacking failed:
# write error").  The archive itself is uncompressed (vm.sh) and held in
# RAM until unpacked.
: "${EXECNS_MEM:=2G}"
export EXECNS_MEM
if ! arch_native "$(kernel_arch "$kernel")"; then
	foreign_tools
else
	tools
	case $tool in
	perf) copy /usr/bin/perf ;;
	bpftrace) copy /usr/bin/bpftrace ;;
	all) copy /usr/bin/perf /usr/bin/bpftrace ;;
	esac
fi
cp "$TOP"/trace/*.bt "$work/x/root/trace/"
[ -z "${BT:-}" ] || cp "$BT" "$work/x/root/trace/user.bt"
install -m 755 "$TOP/tests/guest/trace/trace-guest.sh" "$work/x/usr/local/bin/execns-trace"
install -m 755 "$TOP/tests/guest/trace/trace-check.sh" "$work/x/usr/local/bin/execns-trace-check"
printf '%s\n' "$cmd" >"$work/x/etc/execns-trace-cmd"
BOOTARGS="$TRACE_BOOTARGS ${BOOTARGS:-}" EXECNS_EXTRA_ROOT=$work/x EXECNS_TIMEOUT=${EXECNS_TIMEOUT:-600} "$TOP/tests/harness/vm.sh" "$kernel" run \
	"${TRACE_GUEST_CMD:-execns-trace $tool /etc/execns-trace-cmd}" "$add"
