#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot one stock kernel of the matrix in QEMU with the module loaded and run
# something in it: the test suite, one shell command, or an interactive shell.
# The guest is an initramfs (busybox-static, the module, the static test
# programs, tests/guest/init as /init).
#
# Usage: vm.sh KERNEL check
#        vm.sh KERNEL run "CMD" ["ADD FILES"]
#        vm.sh KERNEL shell ["ADD FILES"]
#
# Two channels, two serial ports (the legacy 16550s, built into all three
# kernels, so no extra guest module is needed):
# - ttyS0, the console, carries only the kernel log (all of it but debug
#   messages; `make shell` shows warnings and worse).  It is saved to
#   $LOGS/console-KERNEL.PID.log (console-KERNEL.log links the latest) and,
#   after the run, scanned with tests/guest/lib.sh's bug-report pattern; what
#   it finds is printed on stderr.  `tail -f` it to watch a boot.
# - ttyS1, the results channel, carries the job's output byte for byte: the
#   KTAP of check, or CMD's stdout and stderr (one stream, in the order
#   written) for run.  It streams to stdout and is saved, raw, to
#   $LOGS/results-KERNEL.PID.log.  The guest ends it with a newline and a
#   trailer of "execns-guest: ..." lines: the last, "execns-guest: exit N",
#   gives vm.sh's exit status, the others (insmod failed, kernel log not
#   clean, tainted) go to stderr.  So the status is right whatever CMD
#   prints or leaves unfinished, and stdout gets exactly what CMD printed.
# In shell mode the console is the terminal (kernel messages included).
# arm64 and s390x have no second UART: their console is the board's one
# UART (ttyAMA0) or SCLP's (ttysclp0), their results channel a virtio
# console (hvc0).
#
# Environment: BOOTARGS (extra kernel arguments), PARAMS (insmod parameters),
# EXECNS_TIMEOUT (seconds, default 600), EXECNS_ACCEL (kvm or tcg; probed),
# EXECNS_TCG_THREAD (single, the default, or multi), EXECNS_QEMU_ARGS (more
# QEMU options, word-split), EXECNS_SMP (vCPUs, default 2), EXECNS_CONSOLE and
# EXECNS_RESULTS (where the two channels are saved), EXECNS_TESTS (check:
# shell patterns of the test programs to run, "!PATTERN" for those not to,
# e.g. 'test-uidtab-*' or '!test-execns-failnth'), EXECNS_EXTRA_ROOT (a
# directory whose contents are copied over the guest's /, e.g. staprun and
# its libraries), EXECNS_PREBUILT=1 (skip fetching the kernel and building
# the module and guest programs: a caller that boots many times did it).
# Exit status: the guest's (CMD's status for run, also when the kernel log
# is not clean, which stderr then says; 0/1 for check; 125 when insmod
# failed), 124 when the guest timed out or died without reporting.

. "$(dirname "$0")/common.sh"

kernel=$1 mode=$2
case $mode in
check) cmd= add= ;;
run) cmd=${3:?vm.sh: run needs a CMD}; add=${4:-} ;;
shell) cmd= add=${3:-} ;;
*) die "vm.sh: unknown mode '$mode'" ;;
esac
kernel_field "$kernel" 1 >/dev/null
arch=$(kernel_arch "$kernel")
# The guest's QEMU: tests/arches.conf's qemu and the package with it.
qemu=$(arch_fact "$arch" qemu)
command -v "$qemu" >/dev/null ||
	die "$qemu is missing: run 'make deps ARCH=$arch' (Debian's $(arch_fact "$arch" qemupkg))"
for f in $add; do
	[ -e "$f" ] || die "ADD file '$f' does not exist"
done

kd=$(kdir "$kernel")
# The guest's busybox and programs: the host's for x86_64, cross-built
# (guest-cross.sh) and fetched (fetch-kernel.sh) for another architecture.
[ "${EXECNS_PREBUILT:-}" = 1 ] || prepare_guest "$kernel"
progs=$TOP/tests/guest/build busybox=/bin/busybox results_port=/dev/$(arch_fact "$arch" ktap)
# An i386 guest's execns.ko refuses to load (module/arch/x86/native32.c):
# no test program of the suite runs there, so none is built for it.
if [ "$arch" = i386 ]; then
	progs="" busybox=$kd/busybox
elif ! arch_native "$arch"; then
	progs=$ROOT$(cross_dir "$kernel")/tests/guest/build-$arch busybox=$kd/busybox
fi

# One log per channel and run (runs of one kernel may overlap);
# console-KERNEL.log and results-KERNEL.log point at the latest.
console=${EXECNS_CONSOLE:-$LOGS/console-$kernel.$$.log}
[ -n "${EXECNS_CONSOLE:-}" ] || ln -sfn "${console##*/}" "$LOGS/console-$kernel.log"
results=${EXECNS_RESULTS:-$LOGS/results-$kernel.$$.log}
[ -n "${EXECNS_RESULTS:-}" ] || ln -sfn "${results##*/}" "$LOGS/results-$kernel.log"
# Keep the last 20 of each.
for f in console results; do
	find "$LOGS" -maxdepth 1 -name "$f-$kernel.[0-9]*.log" -printf '%T@ %p\n' |
		sort -rn | tail -n +21 | cut -d' ' -f2- | xargs -r rm -f
done
work=$(mktemp -d /tmp/execns-vm.XXXXXX)
trap 'rm -rf "$work"' EXIT

# util_linux ROOT: an x86_64 guest's util-linux lsns and nsenter, from the
# build root (it is Priority: required, so debootstrap put it there), for
# test-execns-lsns, with their shared libraries (ldd) and the loader at
# their own paths.  The
# programs go to /usr/local/lib/execns/util-linux, apart from busybox's
# nsenter applet.
util_linux() {
	local r=$1 f
	mkdir -p "$r/usr/local/lib/execns/util-linux"
	for f in /usr/bin/lsns /usr/bin/nsenter; do
		[ -x "$ROOT$f" ] || die "no $f in the build root $ROOT (util-linux, in every debootstrap minbase: reinstall it there)"
		cp "$ROOT$f" "$r/usr/local/lib/execns/util-linux/"
	done
	for f in $(in_root ldd /usr/bin/lsns /usr/bin/nsenter |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $1 !~ /:$/ { print $1 }' | sort -u); do
		mkdir -p "$r$(dirname "$f")"
		cp -L "$ROOT$f" "$r$f"
	done
}

# make_initramfs: the whole guest, as one cpio archive, uncompressed: the
# guest's gunzip under TCG cost more than reading the archive whole (a
# plain trixie boot: 8.3 CPU-seconds against 9.8 with gzip -1; tracing
# guests carry 300 MB of perf, bpftrace and LLVM).
make_initramfs() {
	local r=$work/root
	mkdir -p "$r"/{bin,etc/execns,lib/modules,usr/local/bin,usr/local/lib/execns,root,proc,sys,dev,tmp}
	cp "$busybox" "$r/bin/busybox"
	install -m 755 "$TOP/tests/guest/init" "$r/init"
	install -m 644 "$TOP/tests/guest/lib.sh" "$r/usr/local/lib/execns/lib.sh"
	install -m 755 "$TOP/tests/guest/run-tests" "$r/usr/local/bin/execns-run-tests"
	install -m 644 "$TOP/tests/guest/needs-uid-tables" "$r/usr/local/lib/execns/needs-uid-tables"
	install -m 644 "$TOP/tests/guest/module-only" "$r/usr/local/lib/execns/module-only"
	[ -z "$progs" ] || cp "$progs"/* "$r/usr/local/bin/"
	# The build root's util-linux is x86_64; another architecture's comes
	# with its kernel (fetch-kernel.sh), laid out as a root.
	if [ "$arch" = x86_64 ]; then
		util_linux "$r"
	elif [ -d "$kd/util-linux" ]; then
		cp -a "$kd/util-linux/root/." "$r/"
		mkdir -p "$r/usr/local/lib/execns/util-linux"
		cp "$kd/util-linux/bin/"* "$r/usr/local/lib/execns/util-linux/"
	fi
	# EXECNS_MODULE=FILE: that execns.ko instead of build-module.sh's
	# (deb-check.sh keeps the one DKMS built as execns-dkms.ko beside it).
	# None for a kernel with execns(2) of its own (the twin).
	if ! kernel_in_tree "$kernel"; then
		cp "${EXECNS_MODULE:-$(kmod "$kernel")}" "$r/lib/modules/execns.ko"
		cp "$(kmod "$kernel" execns_ipmod)" "$r/lib/modules/"
		# The livepatch exists only for a kernel with CONFIG_LIVEPATCH.
		[ ! -e "$(kmod "$kernel" execns_klp)" ] || cp "$(kmod "$kernel" execns_klp)" "$r/lib/modules/"
	fi
	[ ! -d "$kd/modules" ] || cp -r "$kd/modules" "$r/lib/modules/extra"
	printf '%s\n' "$mode" >"$r/etc/execns/mode"
	printf '%s\n' "${PARAMS:-}" >"$r/etc/execns/params"
	printf '%s\n' "${EXECNS_TESTS:-}" >"$r/etc/execns/tests"
	printf '%s\n' "$cmd" >"$r/etc/execns/cmd"
	printf '%s\n' "$kernel" >"$r/etc/execns/kernel"
	# The load-time proof's expected verdict (tests/kernels.conf: proven,
	# partial WORD, refused SITE, refused-insmod WORD, in-tree or any):
	# run-tests holds the module's /proc/execns/proof to it, and runs the
	# uid-table programs unless it is refused.
	kernel_proof "$kernel" >"$r/etc/execns/proof"
	printf '%s\n' "$results_port" >"$r/etc/execns/results"
	# EXECNS_LOAD=no: run and shell modes leave the module unloaded (a
	# guest booted with module.sig_enforce=1, where it cannot load).
	printf '%s\n' "${EXECNS_LOAD:-yes}" >"$r/etc/execns/load"
	# The kernel's configuration where Debian's linux-image puts it, from
	# its headers (execns-preflight reads it).
	# (kbuild_host: the build root's link, or a tree of your own.)
	local rel b
	rel=$(cat "$kd/release")
	b=$(kbuild_host "$kernel" 2>/dev/null || true)
	if [ -n "$b" ] && [ -r "$b/.config" ]; then
		mkdir -p "$r/boot"
		cp "$b/.config" "$r/boot/config-$rel"
	fi
	for f in $add; do
		cp -r "$f" "$r/root/"
	done
	[ -z "${EXECNS_EXTRA_ROOT:-}" ] || cp -a "$EXECNS_EXTRA_ROOT/." "$r/"
	(cd "$r" && find . | cpio -o -H newc --quiet) >"$work/initramfs.cpio"
}

# accel: kvm where it really works, else tcg.  Probed once and cached: on the
# development machines /dev/kvm exists but QEMU aborts with it.
accel() {
	local cache=$EXECNS_CACHE/accel
	if [ -n "${EXECNS_ACCEL:-}" ]; then
		echo "$EXECNS_ACCEL"
		return
	fi
	# Written whole (rename): check.sh's lanes may probe at the same time.
	if [ ! -s "$cache" ]; then
		if [ -w /dev/kvm ] && timeout 20 qemu-system-x86_64 -accel kvm -cpu host -m 256M \
			-nographic -no-reboot -kernel "$kd/vmlinuz" -append "console=ttyS0 panic=-1 rdinit=/bin/false" \
			2>/dev/null | grep -q 'Kernel panic'; then
			echo kvm >"$cache.$$"
		else
			echo tcg >"$cache.$$"
		fi
		mv "$cache.$$" "$cache"
	fi
	cat "$cache"
}

# results_filter: the results channel from stdin to stdout, without the
# trailer.  The trailer is the run of "execns-guest: " lines that ends the
# stream, so such lines are held until a later line shows they were output;
# each line's newline is held until more output follows, because the last
# one is the guest's separator.  CMD's output thus arrives exactly as
# written.  The trailer's lines but the exit line go to stderr.
results_filter() {
	perl -e '$| = 1;
		my @held; my $nl = 0;
		sub out { for my $l (@_) { print "\n" if $nl; $nl = ($l =~ s/\n$//); print $l } }
		while (<STDIN>) {
			if (/^execns-guest: .*\n$/) { push @held, $_; next }
			out(@held, $_); @held = ();
		}
		if (@held && $held[-1] =~ /^execns-guest: exit \d+$/) {
			print STDERR grep { !/^execns-guest: exit / } @held;
		} else {
			out(@held); print "\n" if $nl;
		}'
}

boot() {
	local a cpu
	# KASAN's shadow and kmemleak's pool: the debug kernel needs 2 GiB.
	! kernel_built "$kernel" || : "${EXECNS_MEM:=2G}"
	# ... and a whole suite on it takes 6-7 minutes on a loaded 2-core host.
	! kernel_built "$kernel" || : "${EXECNS_TIMEOUT:=1800}"
	# KVM is probed for x86_64 only, with an x86_64 kernel: a foreign
	# kernel would fail the probe and cache tcg for every later x86 run.
	a=tcg
	[ "$arch" != x86_64 ] || a=$(accel)
	# Multi-threaded TCG and the kernel's int3 text patching do not mix:
	# 3 of 67 boots of 7.3 died under thread=multi, 0 of 120 under single
	# (make soak, 2026-12-04: 1 of 30 under multi, 0 of 30 under single).
	if [ "$a" = kvm ]; then
		cpu=host
	else
		a=tcg,thread=${EXECNS_TCG_THREAD:-single} cpu=$(arch_fact "$arch" cpu)
	fi
	# noirqdebug: Debian 11's PREEMPT_RT kernel runs the 8250 handler in a
	# thread, which under TCG on a busy host finds the results UART
	# (ttyS1, IRQ 3) already served often enough for the spurious-IRQ
	# detector to disable that IRQ ("irq 3: nobody cared"), and the
	# results stop; the detector judges hardware, not the module.
	# The console is the whole kernel log (costs no measurable time), but
	# a shell's terminal gets warnings and worse only.
	local level=loglevel=7
	[ "$mode" = shell ] && level=quiet
	# The machine per architecture (tests/arches.conf, which says why
	# each is so); con is its console, the kernel log, and the results
	# channel the second UART (ttyS1) or, where the machine has one UART,
	# a virtio console (hvc0) on vser.
	local machine con vser fw m
	machine=("$qemu" -accel "$a" -cpu "$cpu")
	m=$(arch_fact "$arch" machine) fw=$(arch_fact "$arch" firmware)
	[ -z "$m" ] || machine+=(-M "$m")
	[ -z "$fw" ] || machine+=(-bios "$fw")
	con=$(arch_fact "$arch" console) vser=$(arch_fact "$arch" vserial)
	local args=("${machine[@]}" -m "${EXECNS_MEM:-1G}" -smp "${EXECNS_SMP:-2}"
		-nographic -no-reboot -nodefaults
		-kernel "$kd/vmlinuz" -initrd "$work/initramfs.cpio"
		-append "console=$con panic=-1 oops=panic panic_on_warn=1 noirqdebug $level ${BOOTARGS:-}")
	local port=(-serial stdio) noport=(-serial null)
	if [ -n "$vser" ]; then
		args+=(-device "$vser")
		port=(-chardev stdio,id=results -device virtconsole,chardev=results)
		noport=(-chardev null,id=results -device virtconsole,chardev=results)
	fi
	# Extra QEMU options, word-split (e.g. "-icount shift=0,sleep=off").
	# shellcheck disable=SC2206
	[ -z "${EXECNS_QEMU_ARGS:-}" ] || args+=($EXECNS_QEMU_ARGS)
	if [ "$mode" = shell ]; then
		"${args[@]}" -serial stdio "${noport[@]}"
		return
	fi
	set +e
	timeout --foreground -k 5 "${EXECNS_TIMEOUT:-600}" "${args[@]}" \
		-serial "file:$console" "${port[@]}" </dev/null | tee "$results" | results_filter
	qemu_rc=${PIPESTATUS[0]}
	set -e
}

# console_text: the console log without its carriage returns.
console_text() {
	tr -d '\r' <"$console"
}

make_initramfs
boot
[ "$mode" = shell ] && exit 0
. "$TOP/tests/guest/lib.sh"
bad=$(console_text | grep -aE "$EXECNS_BAD_LOG" || true)
# Less the reports a test caused on purpose and declared (EXECNS_EXPECTED_LOG
# in lib.sh), which the guest's runner lists in its results.
expected=$(tr -d '\r' <"$results" | sed -n 's/^# expected, as its test declared: //p')
if [ -n "$expected" ] && [ -n "$bad" ]; then
	bad=$(printf '%s\n' "$bad" | grep -avEf <(printf '%s\n' "$expected") || true)
fi
rc=$(tail -n 1 "$results" | sed -n 's/^execns-guest: exit \([0-9]*\)$/\1/p')
if [ -z "$rc" ]; then
	if [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
		note "$kernel: the guest timed out after ${EXECNS_TIMEOUT:-600}s (console: $console)"
	else
		note "$kernel: the guest died without reporting (console: $console)"
	fi
	console_text | tail -n 25 | sed 's/^/  /' >&2
	exit 124
fi
if [ -n "$bad" ]; then
	note "$kernel: the console shows bug reports (console: $console):"
	printf '%s\n' "$bad" | head -n 25 | sed 's/^/  /' >&2
fi
exit "$rc"
