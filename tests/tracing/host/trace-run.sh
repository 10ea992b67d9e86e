#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run one tracing tool over a shell command in a guest of the matrix, with
# the module loaded, and print the tool's output: perf (docs/tracing.md's
# recipe, perf stat -a -x, -e 'execns:*', around CMD; with no CMD the
# recipe exactly as written), bpftrace (the recipe, bpftrace
# tracing/uidacct.bt, or BT=FILE, around CMD), tracefs (the recipe as
# written; no CMD) or stap (stap-run.sh with SCRIPT, default
# tracing/uidacct.stp).  perf and bpftrace are Debian's, of the kernel's own
# suites (bookworm's bpftrace 0.17 and perf 6.1 for bookworm, and so on;
# fetch-kernel.sh NAME trace-tools, once per kernel), copied into the
# initramfs with their shared libraries.
#
# Usage: trace-run.sh KERNEL TOOL "CMD" ["ADD FILES"]
# Environment: TRACE_GUEST_CMD (run this in the guest instead, e.g.
# execns-trace-check; the tools are in PATH), BT, SCRIPT, STAP_OPTS.
# Exit status: the guest's.

. "$(dirname "$0")/common.sh"

kernel=${1:?usage: trace-run.sh KERNEL perf|bpftrace|tracefs|stap CMD [ADD]} tool=${2:?no TOOL} cmd=${3:-} add=${4:-}
case $tool in
stap) exec "$TOP/tests/tracing/host/stap-run.sh" "$kernel" "${SCRIPT:-$TOP/tracing/uidacct.stp}" "$cmd" "$add" ;;
perf | bpftrace | tracefs | all) ;;
*) die "unknown TOOL '$tool' (perf, bpftrace, tracefs or stap)" ;;
esac
kernel_field "$kernel" 1 >/dev/null
[ "$tool" != tracefs ] || [ -z "$cmd" ] ||
	die "TOOL=tracefs runs docs/tracing.md's tracefs recipe as written there, which has its own command: leave CMD empty"

work=$(mktemp -d /tmp/execns-trace.XXXXXX)
trap 'rm -rf "$work"' EXIT

# row_tools: the perf and bpftrace of the kernel's own suites (both,
# whatever TOOL is: they come as one fetch), in the guest's
# /usr/local/bin: bookworm's bpftrace 0.17 and perf 6.1 for bookworm, and so
# on, as a user of that release has them (fetch-kernel.sh NAME trace-tools,
# once per kernel).
row_tools() {
	local t
	"$TOP/tests/harness/fetch-kernel.sh" "$kernel"
	"$TOP/tests/harness/fetch-kernel.sh" "$kernel" trace-tools
	t=$(kdir "$kernel")/trace-tools
	cp -a "$t/root/." "$work/x/"
	cp "$t/bin/"* "$work/x/usr/local/bin/"
}

mkdir -p "$work/x/usr/local/bin" "$work/x/root/tracing" "$work/x/etc"
# The initramfs is unpacked into a tmpfs of at most half the RAM, and the
# tools with LLVM are 300 MB and more (unstable's s390x ones, LLVM 21: 331
# MB; with 1 GiB their unpacking failed, "Initramfs unpacking failed:
# write error").  The archive itself is uncompressed (vm.sh) and held in
# RAM until unpacked.
: "${EXECNS_MEM:=2G}"
export EXECNS_MEM
[ "$tool" = tracefs ] || row_tools
cp "$TOP"/tracing/*.bt "$work/x/root/tracing/"
# The recipes of docs/tracing.md, as written there: each fenced block
# after a "<!-- recipe: NAME -->" line, in the guest's /root/recipes/NAME
# (run from /root, where tracing/ is, as a user runs them from the
# tree).
mkdir -p "$work/x/root/recipes"
awk -v d="$work/x/root/recipes" '
	/^<!-- recipe: [a-z]+ -->$/ { name = $3; next }
	name != "" && /^```/ { if (out) { close(out); out = ""; name = "" } else out = d "/" name; next }
	out { print > out }' "$TOP/docs/tracing.md"
# The tracepoint table of docs/tracing.md, "EVENT FIELD..." per event,
# for the guest to hold against the events' format files.
awk '/^## Tracepoints/ { t = 1; next } t && /^## / { t = 0 }
	t && /^\| `execns:/ {
		split($0, c, "|"); ev = c[2]; f = c[3]
		gsub(/\([^)]*\)/, "", f); gsub(/[`, ]+/, " ", f)
		n = split(ev, e, "`")
		for (i = 2; i <= n; i += 2) print e[i], f
	}' "$TOP/docs/tracing.md" >"$work/x/root/recipes/fields"
for r in tracefs perf bpftrace fields; do
	[ -s "$work/x/root/recipes/$r" ] || die "docs/tracing.md has no '$r' recipe (a fenced block after <!-- recipe: $r -->, or the tracepoint table)"
done
[ -z "${BT:-}" ] || cp "$BT" "$work/x/root/tracing/user.bt"
printf '%s\n' "$cmd" >"$work/x/etc/execns-trace-cmd"
EXECNS_TIMEOUT=${EXECNS_TIMEOUT:-600} tracing_vm "$kernel" "$work/x" \
	"${TRACE_GUEST_CMD:-execns-trace $tool /etc/execns-trace-cmd}" "$add"
