#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# execns-preflight (userspace/execns-preflight) in the guest, KTAP.
#
# On a plain boot (the suite's: the module loaded by run-tests), every row
# of the matrix must get a yes (exit 0) for the module the suite loaded,
# with the slot it took and the proof's verdict that tests/kernels.conf
# expects (/etc/execns/proof): "ok" when proven, "warn" saying partial
# when partial (uid tables offered, some accounting unproven), "warn"
# naming the failed check when refused, and a "warn" on forbid_unshare
# exactly where the proof refuses it.  Then two "no"s: without --module and no kernel
# headers in the guest (none are installed there), the headers check must
# fail with the exact Debian package; and given (--config) a copy of this
# kernel's own configuration with CONFIG_KPROBES taken out, the config
# check must fail naming it.  The running kernel has kprobes: that "no" is
# the script's reading of the configuration it is given, not of a kernel
# built without them.
#
# On a boot with module.sig_enforce=1 (check.sh's signature lane: vm.sh run
# with EXECNS_LOAD=no, as the module cannot be loaded there), the preflight
# must say no because of the signature and for no other reason, and the
# kernel must refuse the unsigned module as it said; a module signed with
# make sign (/root/execns-signed.ko, when the lane adds it) must pass the
# preflight with a warning, and the kernel must refuse it for its unknown
# key, not as unsigned: it read the signature sign-file appended.
#
# On a kernel with execns(2) of its own (the twin: /etc/execns/proof says
# in-tree, and run-tests loads no module), the preflight must say no in one
# line, that the module is not needed there and cannot serve uid tables,
# with the fix not to load it, and check nothing else, whatever options it
# is given; a usage error must still be one (exit 2); and what it says must
# hold: execns(1) works there with no module loaded.
#
# Exits 0 when every result passed, 1 otherwise.

set -eu
PATH=/usr/local/bin:$PATH
KO=/lib/modules/execns.ko
SIGNED=/root/execns-signed.ko
R=$(uname -r)
# The release as an extended regex (Debian's have a "+").
Rre=$(printf '%s\n' "$R" | sed 's/[].+*?^$()[{}|\\]/\\&/g')
out=/tmp/preflight.$$
# ktap_start, ktap_result STATUS NAME (0 passes), ktap_done
. /usr/local/lib/execns/lib.sh

# preflight ARG...: run it; its status in $rc, its output in $out (shown
# as KTAP comments).
preflight() {
	rc=0
	execns-preflight "$@" >"$out" 2>&1 || rc=$?
	sed 's/^/# /' "$out"
}

# line PATTERN: the output has a line matching the extended regex.
line() { grep -qE "$1" "$out"; }

# The twin's checks (see above).
in_tree() {
	no_line="^no   kernel: $Rre has execns\(2\) of its own \(/proc/self/ns/uidtab\): the execns module is not needed here, and cannot serve uid tables on it \(its load-time proof refuses them\)\$"
	echo "1..5"
	echo "# execns(2) is this kernel's own; no module is loaded"
	preflight
	r=0; [ "$rc" -eq 1 ] && line "$no_line" &&
		line '^     fix: do not load execns\.ko: execns\(1\) and libexecns call the kernel.s execns\(2\)' &&
		line "^execns-preflight: no, 1 check\(s\) failed on $Rre " || r=1
	ktap_result $r "no (exit $rc): one line saying the kernel has execns(2) of its own, the module not needed and unable to serve uid tables; fix: do not load it"
	r=0; [ "$(wc -l <"$out")" -eq 3 ] && [ "$(grep -c '^no ' "$out")" -eq 1 ] &&
		! grep -qE '^(ok|warn) ' "$out" || r=1
	ktap_result $r "nothing else is checked (no headers, config or slot line)"
	preflight --predict --config "/boot/config-$R" --syscall-nr 401
	r=0; [ "$rc" -eq 1 ] && line "$no_line" && [ "$(wc -l <"$out")" -eq 3 ] || r=1
	ktap_result $r "the same answer (exit $rc) with --predict, --config and --syscall-nr"
	preflight --syscall-nr x
	r=0; [ "$rc" -eq 2 ] || r=1
	ktap_result $r "a usage error is still one (exit $rc)"
	# "Not needed": the CLI reaches the kernel's execns(2) without the module.
	v=$(execns --version 2>&1) || true
	r=0; [ ! -e /sys/module/execns ] && [ -e /proc/self/ns/uidtab ] &&
		execns -H sh -c 'hostname preflight-inner' &&
		[ "$(hostname)" != preflight-inner ] &&
		[ "$(printf '%s\n' "$v" | sed -n 2p)" = "module not loaded; the kernel has execns(2) of its own" ] || r=1
	ktap_result $r "what it says holds: no module loaded, and execns -H runs through the kernel's execns(2)"
}

# The lockdown check reads securityfs; /init does not mount it.
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null || true

ktap_start
case "$(sed -n 1p /etc/execns/proof 2>/dev/null) $(cat /proc/cmdline) " in
in-tree\ *)
	in_tree
	;;
*" module.sig_enforce=1 "*)
	echo "1..$([ -e "$SIGNED" ] && echo 6 || echo 4)"
	echo "# booted with module.sig_enforce=1; the module is not loaded"
	preflight --module "$KO"
	r=0; [ "$rc" -eq 1 ] && line '^no   signatures: enforced \(.*module\.sig_enforce=1' &&
		line '^     fix: sign it: make sign KEY=.* CERT=' || r=1
	ktap_result $r "preflight says no (exit $rc): signatures enforced by module.sig_enforce=1, fix: make sign"
	r=0; [ "$(grep -c '^no ' "$out")" -eq 1 ] || r=1
	ktap_result $r "the signature is its only 'no'"
	dmesg -c >/dev/null
	ins=0; insmod "$KO" 2>/dev/null || ins=$?
	dmesg | sed 's/^/# /'
	r=0; [ "$ins" -ne 0 ] && [ ! -d /sys/module/execns ] || r=1
	ktap_result $r "insmod of the unsigned module fails, as the preflight said"
	r=0; dmesg | grep -q 'Loading of unsigned module is rejected' || r=1
	ktap_result $r "the kernel's reason: unsigned module rejected"
	if [ -e "$SIGNED" ]; then
		preflight --module "$SIGNED"
		r=0; [ "$rc" -eq 0 ] && line "^warn signatures: enforced .*; $SIGNED is signed" || r=1
		ktap_result $r "a module signed by make sign passes the preflight (exit $rc) with a warning on its key"
		dmesg -c >/dev/null
		ins=0; insmod "$SIGNED" 2>/dev/null || ins=$?
		dmesg | sed 's/^/# /'
		r=0; [ "$ins" -ne 0 ] && dmesg | grep -q 'Loading of module with unavailable key is rejected' || r=1
		ktap_result $r "the kernel reads its signature and refuses it for its key (not in its keyring), not as unsigned"
	fi
	;;
*)
	echo "1..13"
	expect=$(sed -n '1{s/ .*//;p;}' /etc/execns/proof)
	site=$(sed -n '1{s/^[a-z]* *//;p;}' /etc/execns/proof)
	slot=$(cat /sys/module/execns/parameters/syscall_nr 2>/dev/null || echo none)
	preflight --module "$KO"
	r=0; [ "$rc" -eq 0 ] && ! line '^no ' && line '^execns-preflight: yes' || r=1
	ktap_result $r "yes (exit $rc) for the loaded module on $R"
	r=0; line "^ok   module: $KO, built for $Rre\$" && line '^ok   headers: not needed' &&
		line '^ok   architecture: ' && line '^ok   config: CONFIG_MODULES, CONFIG_KPROBES' &&
		line '^ok   signatures: not enforced' || r=1
	ktap_result $r "module, headers (not needed), architecture, config and signatures are ok"
	r=0; line "^ok   syscall slot: execns is loaded, on syscall $slot " || r=1
	ktap_result $r "the slot line names the module's syscall ($slot)"
	# forbid_unshare: refused where a check refusing it or uid tables failed.
	if grep -qE '^FAIL .* \(refuses (forbid_unshare|uid tables)\)$' /proc/execns/proof; then
		forbid=refused
	else
		forbid=offered
	fi
	r=0
	case $expect in
	proven) line '^ok   uid tables: the load-time proof says proven' ;;
	partial) line '^warn uid tables: the load-time proof says partial: uid tables offered' ;;
	refused) line "^warn uid tables: the load-time proof says refused: .*$site" ;;
	*) false ;;
	esac || r=1
	case $forbid in
	refused) line '^warn forbid_unshare: the load-time proof refuses it: ' ;;
	*) ! line '^warn forbid_unshare: ' ;;
	esac || r=1
	ktap_result $r "the proof line agrees with tests/kernels.conf ($expect${site:+ $site}), and forbid_unshare is said to be $forbid"
	# The prediction from userspace: right on every proven row; where the
	# proof does not say proven it sees a configuration (lto's
	# CONFIG_LTO_CLANG) and a clone (a SITE with a dot: .part.N), not an
	# inlined copy, which only the proof finds.
	# (--evidence too: its lines are checked below, from this run's output.)
	preflight --module "$KO" --predict --evidence
	cp "$out" "$out.predict"
	r=0
	case $expect:$site in
	proven:*) line '^ok   uid tables: release .* \(predicted' ;;
	partial:CONFIG_* | partial:*.*) line "^warn uid tables: the load-time proof will be partial \(predicted\): .*$site" ;;
	refused:CONFIG_* | refused:*.*) line "^warn uid tables: the load-time proof will refuse them \(predicted\): .*$site" ;;
	# An inlined copy is invisible from userspace: the prediction says ok.
	partial:* | refused:*) line '^ok   uid tables: release .* \(predicted' ;;
	*) false ;;
	esac || r=1
	ktap_result $r "--predict: what userspace can see agrees ($expect${site:+ $site})"
	# --evidence: the proof's text scan, line for line, under the checks;
	# and from userspace alone (--predict), the signatures' symbols.
	preflight --module "$KO" --evidence
	# alloc_ucounts() and its lock only where credentials have ucounts (5.14 on).
	users='users: uidhash_lock: alloc_uid, the hooked function'
	! grep -qw inc_rlimit_ucounts /proc/kallsyms ||
		users='users: ucounts_lock: alloc_ucounts, the hooked function'
	# (No text lines where the proof cannot read the symbol table: Debian
	# 11's arm64.)
	r=0
	if ! grep -q 'cannot read the symbol table' /proc/execns/proof; then
		[ "$rc" -eq 0 ] && line '^     evidence: text: read [0-9]+ KiB' &&
			line '^     evidence: callers: alloc_uid: ' && line "^     evidence: $users" || r=1
	fi
	[ "$(grep -c '^     evidence: ' "$out")" -eq "$(grep -cE '^(ok|FAIL) (text|callers|users): ' /proc/execns/proof)" ] || r=1
	ktap_result $r "--evidence: every text, callers and users line of /proc/execns/proof, indented under the checks (exit $rc)"
	# ucounts_lock once, where the kernel has it in /proc/kallsyms (no
	# KALLSYMS_ALL: Debian 11's arm64 has none).
	n=0; ! grep -qw ucounts_lock /proc/kallsyms || n=1
	r=0; grep -qE "^     evidence: ucounts_lock: $n in /proc/kallsyms" "$out.predict" &&
		grep -qE '^     evidence: the callers and users are read from the kernel.s text at insmod' "$out.predict" || r=1
	ktap_result $r "--evidence --predict: the signatures' count in /proc/kallsyms, and where the rest is read"
	# No --module, no module installed under /lib/modules/$R, and no
	# headers in the guest.
	preflight
	if grep -q Debian /proc/version; then
		fix="apt install linux-headers-$R"
	else
		fix="install"
	fi
	r=0; [ "$rc" -eq 1 ] && line "^no   headers: /lib/modules/$Rre/build is missing" &&
		grep -qF "fix: $fix" "$out" || r=1
	ktap_result $r "no (exit $rc) without headers or a built module, fix: $fix"
	# A configuration without CONFIG_KPROBES: this kernel's own, edited.
	cfg=/boot/config-$R
	if [ ! -r "$cfg" ]; then
		echo "# no $cfg in the guest (vm.sh copies the headers' .config there)"
		ktap_result 1 "the kernel's configuration is in the guest"
		ktap_result 1 "a copy without CONFIG_KPROBES"
		ktap_result 1 "no for that configuration"
		ktap_result 1 "no for a configuration without CONFIG_MODULES"
	else
		ktap_result 0 "the kernel's configuration is in the guest ($cfg)"
		sed 's/^CONFIG_KPROBES=y$/# CONFIG_KPROBES is not set/' "$cfg" >/tmp/config-nokprobes
		r=0; grep -q '^CONFIG_KPROBES=y' "$cfg" && ! grep -q '^CONFIG_KPROBES=' /tmp/config-nokprobes || r=1
		ktap_result $r "the copy lacks CONFIG_KPROBES (the running kernel has it)"
		# Exported, not a prefix: an older busybox ash (bullseye's, in a
		# foreign guest) keeps a prefix assignment from a function's commands.
		export EXECNS_PREFLIGHT_CONFIG=/tmp/config-nokprobes
		preflight --module "$KO"
		unset EXECNS_PREFLIGHT_CONFIG
		r=0; [ "$rc" -eq 1 ] && line '^no   config: this kernel lacks CONFIG_KPROBES \(/tmp/config-nokprobes\)' &&
			[ "$(grep -c '^no ' "$out")" -eq 1 ] && line '^     fix: boot a kernel built with CONFIG_KPROBES' || r=1
		ktap_result $r "no (exit $rc) for that configuration (EXECNS_PREFLIGHT_CONFIG), naming CONFIG_KPROBES, and nothing else"
		# Without CONFIG_MODULES no module loads: one 'no', and the
		# signatures, the slot and the proof are not reported on.
		sed 's/^CONFIG_MODULES=y$/# CONFIG_MODULES is not set/' "$cfg" >/tmp/config-nomodules
		preflight --module "$KO" --config /tmp/config-nomodules
		r=0; [ "$rc" -eq 1 ] && line '^no   config: this kernel lacks CONFIG_MODULES ' &&
			[ "$(grep -c '^no ' "$out")" -eq 1 ] &&
			line '^     not checked: module signatures, the syscall slot and uid tables \(this kernel cannot load modules\)' &&
			! line '^(ok|warn|no) +(signatures|syscall slot|uid tables|forbid_unshare):' || r=1
		ktap_result $r "no (exit $rc) for a configuration without CONFIG_MODULES, and no line on signatures, the slot or uid tables"
	fi
	# The lockdown state unreadable (securityfs not mounted, in a mount
	# namespace of its own): where the kernel has the lockdown LSM,
	# signatures are not said to be unenforced.
	rc=0
	unshare -m sh -c 'umount /sys/kernel/security 2>/dev/null; exec execns-preflight --module "$1"' sh "$KO" >"$out" 2>&1 || rc=$?
	sed 's/^/# /' "$out"
	r=0
	if grep -q '^CONFIG_SECURITY_LOCKDOWN_LSM=y' "$cfg" 2>/dev/null; then
		line '^warn signatures: not enforced by sig_enforce or the configuration, but the lockdown state cannot be read ' &&
			! line '^ok   signatures: ' || r=1
		ktap_result $r "the lockdown state unreadable: signatures are a warning naming it, not ok (exit $rc)"
	else
		line '^ok   signatures: not enforced' || r=1
		ktap_result $r "securityfs unmounted on a kernel without the lockdown LSM: signatures not enforced, ok (exit $rc)"
	fi
	;;
esac
rm -f "$out" "$out.predict"
ktap_done
