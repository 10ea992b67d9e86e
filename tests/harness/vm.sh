#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot one stock kernel of the matrix in QEMU with the module loaded and run
# something in it: the test suite, one shell command, or an interactive shell.
# The guest is an initramfs (busybox-static, the module, the static test
# programs); its console streams to stdout and to $EXECNS_CACHE/logs.
#
# Usage: vm.sh KERNEL check
#        vm.sh KERNEL run "CMD" ["ADD FILES"]
#        vm.sh KERNEL shell ["ADD FILES"]
# Environment: BOOTARGS (extra kernel arguments), PARAMS (insmod parameters),
# EXECNS_TIMEOUT (seconds, default 600), EXECNS_ACCEL (kvm or tcg; probed),
# EXECNS_CONSOLE (where the console log goes), EXECNS_EXTRA_ROOT (a directory
# whose contents are copied over the guest's /, e.g. staprun and its libraries).
# Exit status: the guest's (CMD's status for run; 0/1 for check), 124 when
# the guest timed out or died without reporting.

. "$(dirname "$0")/common.sh"

kernel=$1 mode=$2
case $mode in
check) cmd= add= ;;
run) cmd=${3:?vm.sh: run needs a CMD}; add=${4:-} ;;
shell) cmd= add=${3:-} ;;
*) die "vm.sh: unknown mode '$mode'" ;;
esac
kernel_field "$kernel" 1 >/dev/null
for f in $add; do
	[ -e "$f" ] || die "ADD file '$f' does not exist"
done

"$TOP/tests/harness/fetch-kernel.sh" "$kernel"
"$TOP/tests/harness/build-module.sh" "$kernel"
logged guest-progs.log make -C "$TOP" -s guest-progs ||
	die "building the guest's test programs failed (log: $LOGS/guest-progs.log)"

kd=$(kdir "$kernel")
# One log per run (runs of one kernel may overlap); console-KERNEL.log
# points at the latest.
console=${EXECNS_CONSOLE:-$LOGS/console-$kernel.$$.log}
[ -n "${EXECNS_CONSOLE:-}" ] || ln -sfn "${console##*/}" "$LOGS/console-$kernel.log"
work=$(mktemp -d /tmp/execns-vm.XXXXXX)
trap 'rm -rf "$work"' EXIT

# make_initramfs: the whole guest, as one compressed cpio archive.
make_initramfs() {
	local r=$work/root
	mkdir -p "$r"/{bin,etc/execns,lib/modules,usr/local/bin,root,proc,sys,dev,tmp}
	cp /bin/busybox "$r/bin/busybox"
	install -m 755 "$TOP/tests/guest/init" "$r/init"
	install -m 755 "$TOP/tests/guest/run-tests" "$r/usr/local/bin/execns-run-tests"
	cp "$TOP"/tests/guest/build/* "$r/usr/local/bin/"
	cp "$(kmod "$kernel")" "$r/lib/modules/execns.ko"
	printf '%s\n' "$mode" >"$r/etc/execns/mode"
	printf '%s\n' "${PARAMS:-}" >"$r/etc/execns/params"
	printf '%s\n' "$cmd" >"$r/etc/execns/cmd"
	printf '%s\n' "$kernel" >"$r/etc/execns/kernel"
	for f in $add; do
		cp -r "$f" "$r/root/"
	done
	[ -z "${EXECNS_EXTRA_ROOT:-}" ] || cp -a "$EXECNS_EXTRA_ROOT/." "$r/"
	(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initramfs.gz"
}

# accel: kvm where it really works, else tcg.  Probed once and cached: on the
# development machines /dev/kvm exists but QEMU aborts with it.
accel() {
	local cache=$EXECNS_CACHE/accel
	if [ -n "${EXECNS_ACCEL:-}" ]; then
		echo "$EXECNS_ACCEL"
		return
	fi
	if [ ! -s "$cache" ]; then
		if [ -w /dev/kvm ] && timeout 20 qemu-system-x86_64 -accel kvm -cpu host -m 256M \
			-nographic -no-reboot -kernel "$kd/vmlinuz" -append "console=ttyS0 panic=-1 rdinit=/bin/false" \
			2>/dev/null | grep -q 'Kernel panic'; then
			echo kvm >"$cache"
		else
			echo tcg >"$cache"
		fi
	fi
	cat "$cache"
}

boot() {
	local a cpu
	# KASAN's shadow and kmemleak's pool: the debug kernel needs 2 GiB.
	[ "$kernel" != debug ] || : "${EXECNS_MEM:=2G}"
	a=$(accel)
	# Multi-threaded TCG and the kernel's int3 text patching do not mix:
	# 3 of 67 boots of 7.3 died under thread=multi, 0 of 120 under single.
	if [ "$a" = kvm ]; then cpu=host; else a=tcg,thread=single cpu=max; fi
	local args=(qemu-system-x86_64 -accel "$a" -cpu "$cpu" -m "${EXECNS_MEM:-1G}" -smp 2
		-nographic -no-reboot -nodefaults -serial stdio
		-kernel "$kd/vmlinuz" -initrd "$work/initramfs.gz"
		-append "console=ttyS0 panic=-1 oops=panic panic_on_warn=1 quiet ${BOOTARGS:-}")
	if [ "$mode" = shell ]; then
		"${args[@]}"
		return
	fi
	# SeaBIOS clears the screen over the serial line: drop its escapes.
	timeout --foreground -k 5 "${EXECNS_TIMEOUT:-600}" "${args[@]}" </dev/null |
		sed -u 's/\x1bc//g; s/\x1b\[[0-9;?]*[A-Za-z]//g' | tee "$console"
}

make_initramfs
boot
[ "$mode" = shell ] && exit 0
rc=$(sed -n 's/^execns-guest: exit \([0-9]*\).*/\1/p' "$console" | tail -n 1)
if [ -z "$rc" ]; then
	echo "execns: $kernel: the guest timed out or died without reporting (console: $console)" >&2
	exit 124
fi
exit "$rc"
