#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Compile SystemTap scripts for one kernel of the matrix on the host (in the
# build root, against the tapset in tracing/tapset) and run them in the guest,
# with the module loaded, around a shell command; print each one's output.
#
# Usage: stap-run.sh KERNEL "SCRIPT..." "CMD" ["ADD FILES"]
# Environment: STAP_OPTS (more stap options, e.g. "-G interval=2"),
# STAP_GUEST_CMD (run this in the guest instead of the start/CMD/stop
# wrapper; the modules are in /root/stap), STAP_COMPILE_ONLY=1,
# STAP_MODULE_TRACEPOINTS=1 (stap sees the module's tracepoints only, not
# the kernel's: see module_tracepoints below).
# Exit status: CMD's, 125 when a script does not compile or load.
# CMD is run by the guest's sh as given (make stap-run passes it unexpanded,
# so CMD='echo $HOME' means the guest's $HOME).  The guest runs through
# vm.sh: CMD's and the scripts' output come on stdout (the results channel),
# the kernel log goes to the console log.
#
# stap needs the kernel's real symbol table: Debian's System.map is a
# placeholder, so the first run for a kernel boots it with nokaslr and
# keeps /proc/kallsyms, read over the results channel, as
# $EXECNS_CACHE/kernels/NAME/System.map.
# It also needs execns.ko's debuginfo: the module is installed in the build
# root's /lib/modules/RELEASE/extra, where stap looks for it.
# An arm64 or s390x kernel's scripts are cross-built (stap -a ARCH and the
# kernel's cross compiler, as build-module.sh builds execns.ko) and loaded
# by that architecture's staprun and stapio (fetch-kernel.sh NAME
# stap-runtime: Debian's systemtap-runtime of the build root's stap
# version).

. "$(dirname "$0")/common.sh"

kernel=${1:?usage: stap-run.sh KERNEL SCRIPTS CMD [ADD]} scripts=${2:?no SCRIPT} cmd=${3:-} add=${4:-}
kernel_field "$kernel" 1 >/dev/null
kd=$(kdir "$kernel")
"$TOP/tests/harness/fetch-kernel.sh" "$kernel"
"$TOP/tests/harness/build-module.sh" "$kernel"
release=$(cat "$kd/release")
cc=$(cat "$kd/cc")
arch=$(kernel_arch "$kernel")

work=$(mktemp -d /tmp/execns-stap.XXXXXX)
trap 'rm -rf "$work"' EXIT

# system_map: the kernel's real System.map (system-map.sh), where stap
# looks for it in the build root.
system_map() {
	local map=$kd/System.map
	"$TOP/tests/harness/system-map.sh" "$kernel"
	mkdir -p "$ROOT/usr/lib/debug/boot"
	cmp -s "$map" "$ROOT/usr/lib/debug/boot/System.map-$release" ||
		cp "$map" "$ROOT/usr/lib/debug/boot/System.map-$release"
}

# kernel_opts: stap options this kernel needs, probed in its headers in the
# build root (never by version number), in $kopts.  What systemtap 5.6's
# runtime lacks for a kernel goes in one header of this kernel's, passed
# as -B KCFLAGS=-include (-D cannot carry it: stap takes only NAME=VALUE
# there):
# - task_euid(), which Linux 7.3 removed: tracing/compat/task_euid.h, where
#   linux/cred.h lacks it;
# - on kernels whose tracepoint.h has DECLARE_TRACE_EVENT (6.16 and
#   later), stap 5.6 type-checks every tracepoint callback against
#   check_trace_callback_type_NAME_tp, the name only DECLARE_TRACE() makes
#   there: a TRACE_EVENT()'s checker keeps its plain name.  The check is
#   on wherever its autoconf test compiles (not on x86_64 7.3, whose
#   __seg_gs percpu pointers fail it; on s390x 7.2 it is), and there the
#   module's events do not build ("implicit declaration of function
#   check_trace_callback_type_execns_call_tp").  trace_event_tp(), from
#   module/trace.h, maps each event's _tp name to its real checker, so
#   the type check still runs;
# - on kernels whose struct ns_common has no ns_type (before 7.x), stap
#   5.6's stap_fs.h reads proc_ns_operations' type instead, but only where
#   its autoconf test (autoconf-pr33574-pno-type.c) compiles, and on 5.10
#   it does not: that kernel's linux/proc_ns.h uses size_t without
#   including its definition, so the runtime fails on ns_common's missing
#   ns_type.  The test's answer is given here, from the headers.
# Another architecture's kernel: stap's -a takes the kernel's ARCH= name,
# and kbuild the binutils prefix that goes with the cross compiler $cc.
kopts=
kernel_opts() {
	local compat=/build/stap-$kernel/compat mods=/lib/modules/$release
	arch_native "$arch" ||
		kopts="$kopts -a $(arch_kbuild "$arch") -B CROSS_COMPILE=$(arch_cross "$arch")"
	rm -rf "$ROOT$compat" && cp -r "$TOP/tracing/compat" "$ROOT$compat"
	# In the build root: its /lib/modules links may be absolute.
	in_root test -f "$mods/source/include/linux/cred.h" ||
		die "$kernel: no linux/cred.h in the headers of $release in the build root"
	: >"$ROOT$compat/kernel.h"
	in_root grep -qE '^#[[:space:]]*define[[:space:]]+task_euid\(' "$mods/source/include/linux/cred.h" ||
		echo '#include "task_euid.h"' >>"$ROOT$compat/kernel.h"
	if in_root grep -qE '^#[[:space:]]*define[[:space:]]+DECLARE_TRACE_EVENT\(' "$mods/source/include/linux/tracepoint.h"; then
		trace_event_tp >"$ROOT$compat/trace_event_tp.h"
		echo '#include "trace_event_tp.h"' >>"$ROOT$compat/kernel.h"
	fi
	if ! in_root grep -qE '[[:space:]]ns_type;' "$mods/source/include/linux/ns_common.h" &&
		in_root grep -qE '^[[:space:]]+int[[:space:]]+type;' "$mods/source/include/linux/proc_ns.h"; then
		echo '#define STAPCONF_PR33574_PNO_TYPE 1' >>"$ROOT$compat/kernel.h"
	fi
	# One header, as one -B KCFLAGS: a second would replace the first.
	[ ! -s "$ROOT$compat/kernel.h" ] || kopts="$kopts -B KCFLAGS=-include$compat/kernel.h"
	# The module's tracepoints (kernel.trace("execns:...") in the tapset):
	# stap reads tracepoint definitions from the kernel build tree's
	# include/trace/events only.  The module headers trace.h includes
	# ("uidtab.h", for EXECNS_TABLE_REFS) go beside it, where its quoted
	# includes look first.  stap caches its query of each header by the
	# header's own name and mtime, a failed one as an empty object, so
	# execns.h is touched whenever a header it includes changes (without
	# uidtab.h, its first query failed, and stayed failed until then).
	local h hdrs
	hdrs=$(sed -n 's/^#[[:space:]]*include[[:space:]]*"\([a-z0-9_-]*\.h\)".*/\1/p' "$TOP/module/trace.h" | tr '\n' ' ')
	mkdir -p "$ROOT/build/stap-$kernel/trace-headers"
	cp "$TOP/module/trace.h" "$ROOT/build/stap-$kernel/trace-headers/execns.h"
	for h in $hdrs; do
		[ -f "$TOP/module/$h" ] || die "module/trace.h includes \"$h\", which is not in module/"
		cp "$TOP/module/$h" "$ROOT/build/stap-$kernel/trace-headers/$h"
	done
	in_root sh -c "d=$mods/build/include/trace/events &&
		mkdir -p \$d && changed= &&
		for h in $hdrs execns.h; do
			cmp -s /build/stap-$kernel/trace-headers/\$h \$d/\$h && continue
			cp /build/stap-$kernel/trace-headers/\$h \$d/\$h || exit 1
			changed=1
		done &&
		{ [ -z \"\$changed\" ] || touch \$d/execns.h; }"
}

# trace_event_tp: the header that gives each event of module/trace.h
# (TRACE_EVENT and DEFINE_EVENT) the _tp checker name stap 5.6 uses.
trace_event_tp() {
	local n
	printf '/* Generated by tests/tracing/host/stap-run.sh from module/trace.h (see kernel_opts there). */\n'
	sed -nE 's/^TRACE_EVENT\(([a-z0-9_]+),.*/\1/p; s/^DEFINE_EVENT\([a-z0-9_]+, *([a-z0-9_]+),.*/\1/p' \
		"$TOP/module/trace.h" | while read -r n; do
		printf '#define check_trace_callback_type_%s_tp check_trace_callback_type_%s\n' "$n" "$n"
	done
}

# module_tracepoints: with STAP_MODULE_TRACEPOINTS=1, the command that
# makes stap see the module's tracepoints only, in $scope (run in stap's
# mount namespace, in_root's).  stap's tracepoint query (any
# kernel.trace probe) compiles every tracepoint header it finds, one
# object each: the build tree's (include/trace/events/execns.h alone, see
# kernel_opts) and those of the source tree that /lib/modules/RELEASE/
# source names, some 190 of the kernel's own.  The first time, for each
# kernel, that cost 300 to 670 CPU-seconds, half of a cold make check's
# CPU.  Bind-mounting over /lib/modules/RELEASE a directory with its files
# and links but the source link, and extra/execns.ko, leaves stap no
# source tree, so it compiles the one header.  (No other module is there:
# kernel/ and the rest of extra/ are left out.)  It suits only scripts
# that probe no tracepoint of the kernel's own and no module but execns;
# a tapset alias may (scheduler.* and others use kernel.trace, and would
# then fall back to kprobes or find nothing), which is why it is not the
# default.
scope=
module_tracepoints() {
	local mods=/lib/modules/$release view=/build/stap-$kernel/modules
	[ "${STAP_MODULE_TRACEPOINTS:-}" = 1 ] || return 0
	rm -rf "$ROOT$view" && mkdir -p "$ROOT$view/extra"
	in_root find "$mods" -mindepth 1 -maxdepth 1 ! -type d ! -name source -exec cp -P {} "$view/" \;
	cp "$work/execns.ko" "$ROOT$view/extra/"
	scope="mount --bind $view $mods || { echo 'stap-run.sh: cannot bind-mount $view over $mods' >&2; exit 1; };"
}

# compile SCRIPT: NAME.ko in $work/x/root/stap; NAME from the file name.
compile() {
	local script=$1 name base=/build/stap-$kernel
	name=$(basename "$script" .stp | tr 'A-Z-' 'a-z_' | tr -cd 'a-z0-9_')
	# Unchanged script, tapset and module: the last build stands.
	if cmp -s "$script" "$ROOT$base/$name.stp" && [ -s "$ROOT$base/$name.ko" ] &&
		[ "${scope:+$scope }$kopts ${STAP_OPTS:-}" = "$(cat "$ROOT$base/$name.opts" 2>/dev/null)" ] &&
		cmp -s "$work/execns.ko" "$ROOT$base/$name.execns.ko" &&
		[ -z "$(find "$TOP/tracing/tapset" "$TOP/tracing/compat" "$TOP/module/trace.h" "$TOP/module/uidtab.h" "$kd/System.map" -newer "$ROOT$base/$name.ko")" ]; then
		cp "$ROOT$base/$name.ko" "$work/x/root/stap/"
		return
	fi
	cp "$script" "$ROOT$base/$name.stp"
	rm -f "$ROOT$base/$name.ko"
	# Longer waits for the scripts' global locks: a TCG vCPU on a busy
	# host can stall while holding one, and a probe that gives up is lost.
	# Handlers with interrupts off (INTERRUPTIBLE=0): an RCU callback's
	# event in softirq cannot meet a running handler, which stap skips.
	if ! logged "stap-$kernel-$name.log" in_root sh -c \
		"${scope:+$scope }cd $base && stap -r $release -p4 -m $name -B CC=$cc -I tapset \
			-DMAXTRYLOCK=100000 -DTRYLOCKDELAY=1000 -DINTERRUPTIBLE=0 $kopts ${STAP_OPTS:-} $name.stp"; then
		grep -E 'error|ERROR' "$LOGS/stap-$kernel-$name.log" | head -n 5 >&2
		note "$kernel: $script does not compile (log: $LOGS/stap-$kernel-$name.log)"
		exit 125
	fi
	cp "$work/execns.ko" "$ROOT$base/$name.execns.ko"
	printf '%s\n' "${scope:+$scope }$kopts ${STAP_OPTS:-}" >"$ROOT$base/$name.opts"
	cp "$ROOT$base/$name.ko" "$work/x/root/stap/"
}

# runtime: staprun, stapio, their libraries and the loader, into $work/x:
# the build root's for x86_64, else the kernel's architecture's.
runtime() {
	if arch_native "$arch"; then
		root_runtime
	else
		foreign_runtime
	fi
}

# root_runtime: the build root's own staprun and stapio (x86_64), with
# their shared libraries (ldd) and the loader.
root_runtime() {
	local f
	for f in /usr/bin/staprun /usr/lib/systemtap/stapio \
		$(in_root ldd /usr/bin/staprun /usr/lib/systemtap/stapio |
			awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $1 !~ /:$/ { print $1 }' | sort -u); do
		mkdir -p "$work/x$(dirname "$f")"
		cp -L "$ROOT$f" "$work/x$f"
	done
}

# foreign_runtime: an arm64 or s390x guest's staprun and stapio, fetched
# once per kernel with their libraries laid out as a root.  They are
# unstable's, newer than the C library of an older guest (Debian 11's
# 2.31, in /lib, which the loader searches before /usr/lib), so they keep
# their own: the runtime's root goes under $p, and staprun and stapio
# (where staprun runs it from) are scripts that start each with the
# runtime's own loader and libraries.
foreign_runtime() {
	local t=$kd/stap-runtime p=/opt/execns-stap loader libs f
	"$TOP/tests/harness/fetch-kernel.sh" "$kernel" stap-runtime
	mkdir -p "$work/x$p" "$work/x/usr/bin" "$work/x/usr/lib/systemtap"
	cp -a "$t/root/." "$work/x$p/"
	cp "$t/bin/staprun" "$t/bin/stapio" "$work/x$p/"
	loader=$(cd "$work/x$p" && find lib -maxdepth 1 -name 'ld*.so.1' | head -n 1)
	[ -n "$loader" ] || die "$kernel: no loader in the fetched SystemTap runtime ($t/root/lib)"
	libs=$(cd "$work/x$p" && find . -name '*.so*' ! -type d | sed 's|^\.||; s|/[^/]*$||' | sort -u |
		sed "s|^|$p|" | paste -sd: -)
	for f in staprun:usr/bin/staprun stapio:usr/lib/systemtap/stapio; do
		printf '#!/bin/sh\nexec '\''%s'\'' --library-path '\''%s'\'' '\''%s'\'' "$@"\n' \
			"$p/$loader" "$libs" "$p/${f%%:*}" >"$work/x/${f#*:}"
		chmod 755 "$work/x/${f#*:}"
	done
}

system_map
mkdir -p "$ROOT/lib/modules/$release/extra" "$ROOT/build/stap-$kernel" "$work/x/root/stap" "$work/x/usr/local/bin"
# One module throughout: the scripts are built against its debuginfo and
# the guest loads it (over the one vm.sh builds, which could be newer).
cp "$(kmod "$kernel")" "$work/execns.ko"
cp "$work/execns.ko" "$ROOT/lib/modules/$release/extra/execns.ko"
rm -rf "$ROOT/build/stap-$kernel/tapset" && cp -r "$TOP/tracing/tapset" "$ROOT/build/stap-$kernel/"
kernel_opts
module_tracepoints
for s in $scripts; do
	[ -f "$s" ] || die "no SystemTap script '$s'"
	compile "$s"
done
[ "${STAP_COMPILE_ONLY:-}" = 1 ] && exit 0
runtime
mkdir -p "$work/x/lib/modules" "$work/x/etc"
cp "$work/execns.ko" "$work/x/lib/modules/execns.ko"
printf '%s\n' "$cmd" >"$work/x/etc/execns-stap-cmd"
tracing_vm "$kernel" "$work/x" "${STAP_GUEST_CMD:-execns-stap run /etc/execns-stap-cmd}" "$add"
