#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Static checks, printed as KTAP: for each kernel of the matrix a W=1 build,
# a sparse pass (C=2) and the IBT check (ibt-check.sh) of the module, and
# the kernel's calls of the hooked functions (hook-sites.sh); then
# checkpatch on its sources; the in-tree twin's series (upstream-check.sh:
# applies to its base, checkpatch --strict); and harness checks on the
# host: the guest's kernel-log pattern against sample reports and banners
# (log-pattern-check.sh), every shell script parses, make passing CMD to
# vm.sh and tests/tracing/host/stap-run.sh unexpanded, and every man page in docs/
# clean under mandoc -Tlint (Debian's mandoc, installed by deps.sh).  For
# each packaged kernel, also
# `make dkms-install` with Debian's dkms in the build root
# (dkms-check.sh): the module it installs has that kernel's vermagic.
# Once per run (the common part): dkms.conf's and the Debian changelog's
# versions are the file VERSION's, no C file but module/uapi/execns.h
# defines the flag mask (one_flag_mask), every path README.md's layout table
# names is in the tree, docs/evaluation.md is what bench-report.sh makes of
# the committed raw output (tests/bench-results/), no tracked file names
# one machine's paths or the project's own issue numbers, and the Debian
# packages (deb-check.sh, a KTAP subtest): make deb (the source package
# and the binaries), lintian on both, apt install with DKMS building the
# module for each kernel named, the autopkgtest dkms-build, apt purge;
# then the other autopkgtest, smoke, in a guest of the first x86_64 Debian
# kernel named (autopkgtest-check.sh, a KTAP subtest), on the packages
# deb-check.sh installed; and in one guest, the first kernel named with
# the deb-trace trait (else the smoke's), the packages as a user uses them
# (deb-use-check.sh, a KTAP subtest): the modprobe.d and modules-load.d
# examples, the packaged SystemTap and bpftrace scripts.
# The W=1 and sparse output of a kernel is reused while its inputs are
# those of the last build that produced it (w1_build); EXECNS_REBUILD=1
# compiles every file again anyway.
# checkpatch.pl comes from Debian's linux-source-6.1 package (fetched once).
#
# LINT_PARTS=kernels runs only the per-kernel checks, LINT_PARTS=common only
# the rest (check.sh runs each kernel's with that kernel's guests, so that
# its module builds never race another lane's; the kernels it names then
# are deb-check.sh's).
#
# Usage: lint.sh KERNEL...

. "$(dirname "$0")/common.sh"


# w1_key K: what kernel K's W=1 and sparse output depends on, as one hash:
# the module's sources and the kernel (build-module.sh's stamp of the
# modules now built), the build root's compiler and sparse as they
# report their versions, and the scripts that choose the flags.
w1_key() {
	local ko cc
	ko=$(kmod "$1") cc=$(cat "$(kdir "$1")/cc")
	"$TOP/tests/harness/build-module.sh" "$1" >/dev/null 2>&1 || return 1
	[ -s "$ko.stamp" ] || return 1
	{
		cat "$ko.stamp"
		in_root sh -c "$cc --version | head -n 1; sparse --version" 2>&1
		(cd "$TOP/tests/harness" && sha1sum lint.sh build-module.sh common.sh)
	} | sha1sum | cut -d' ' -f1
}

# w1_build K LOG: the W=1 C=1 rebuild of K's modules, its output in LOG.
# A build whose inputs are those of the last finished one (w1_key, its
# warnings included) is not run again: its output, in $(kmod K).w1, is copied instead, with a
# comment line that says so.  Same compiler, same flags, same files, same
# warnings: compiling them again would only cost 20 to 50 CPU-seconds a
# kernel.  EXECNS_REBUILD=1 (or any change) compiles them again.
w1_build() {
	local k=$1 log=$2 saved key rc=0
	saved=$(kmod "$k").w1
	key=$(w1_key "$k") || key=
	if [ -n "$key" ] && [ "${EXECNS_REBUILD:-}" != 1 ] &&
		[ "$(head -n 1 "$saved" 2>/dev/null)" = "$key" ]; then
		tail -n +2 "$saved" >"$log"
		echo "# W=1 and sparse output of an earlier build with the same inputs (key $key)"
		return 0
	fi
	rm -f "$saved"
	EXECNS_REBUILD=1 "$TOP/tests/harness/build-module.sh" "$k" W=1 C=1 >"$log" 2>&1 || rc=1
	if [ "$rc" -eq 0 ] && [ -n "$key" ] && [ "$(w1_key "$k")" = "$key" ]; then
		{ echo "$key"; cat "$log"; } >"$saved.$$" && mv -f "$saved.$$" "$saved"
	fi
	return "$rc"
}

# checkpatch_dir: scripts/checkpatch.pl and the data files it reads.
checkpatch_dir() {
	local d=$EXECNS_CACHE/checkpatch tmp
	if [ ! -x "$d/scripts/checkpatch.pl" ]; then
		tmp=$(mktemp -d)
		(cd "$tmp" && apt-get download -q linux-source-6.1) >"$LOGS/checkpatch.log" 2>&1 ||
			die "cannot download linux-source-6.1 for checkpatch.pl (log: $LOGS/checkpatch.log)"
		mkdir -p "$d"
		dpkg-deb --fsys-tarfile "$tmp"/linux-source-6.1_*.deb | tar -xO ./usr/src/linux-source-6.1.tar.xz |
			tar -xJ -C "$d" --strip-components=1 --wildcards \
				'linux-source-6.1/scripts/checkpatch.pl' 'linux-source-6.1/scripts/spelling.txt' \
				'linux-source-6.1/scripts/const_structs.checkpatch'
		rm -rf "$tmp"
	fi
	echo "$d"
}

# shell_syntax: every shell script of the tree (a #! line naming sh or
# bash, or a sourced *.sh) parses in the shell it is written for: dash for
# /bin/sh, as the guests run it.  Most of them run only in a guest or in
# one lane (the tracing scripts, the guest's init), where a typo would
# otherwise first show.
shell_syntax() {
	local f first sh rc=0
	while IFS= read -r f; do
		first=$(head -n 1 "$f")
		case $first in
		'#!/bin/sh'*) sh=dash ;;
		'#!'*bash*) sh=bash ;;
		'#!'*) continue ;;
		*) case $f in *.sh) sh=bash ;; *) continue ;; esac ;;
		esac
		"$sh" -n "$f" || { echo "${f#"$TOP"/}: $sh -n fails"; rc=1; }
	done < <(find "$TOP/module" "$TOP/packaging" "$TOP/tests" "$TOP/userspace" -name build -prune -o -type f -print | sort)
	return $rc
}

# make_passes_cmd: make vm-run and stap-run, with stand-ins for the scripts
# (H= and T=), hand over a CMD full of $, quotes and backquotes exactly as typed.
make_passes_cmd() {
	local stub cmd='echo $? $HOME "a  b" '\''c'\'' `id` $(x) $$' out want rc=0
	stub=$(mktemp -d)
	printf '#!/bin/sh\nexit 0\n' >"$stub/deps.sh"
	printf '#!/bin/sh\nprintf "[%%s]" "$3"\n' >"$stub/vm.sh"
	cp "$stub/vm.sh" "$stub/stap-run.sh"
	chmod +x "$stub"/*.sh
	want="[$cmd]"
	# As typed at a shell: not the variables of the make that runs this
	# check (make check KERNEL="a b" exports KERNEL and passes it down in
	# MAKEFLAGS, and the stub would see "b" as CMD).
	out=$(env -u MAKEFLAGS -u MFLAGS make -s -C "$TOP" vm-run KERNEL=bookworm H="$stub" CMD="$cmd")
	[ "$out" = "$want" ] || { echo "make vm-run CMD='$cmd' passed [$out]"; rc=1; }
	out=$(env -u MAKEFLAGS -u MFLAGS make -s -C "$TOP" stap-run KERNEL=bookworm H="$stub" T="$stub" SCRIPT=x.stp CMD="$cmd")
	[ "$out" = "$want" ] || { echo "make stap-run CMD='$cmd' passed [$out]"; rc=1; }
	out=$(CMD=$cmd env -u MAKEFLAGS -u MFLAGS make -s -C "$TOP" vm-run KERNEL=bookworm H="$stub")
	[ "$out" = "$want" ] || { echo "CMD='$cmd' make vm-run passed [$out]"; rc=1; }
	rm -rf "$stub"
	return $rc
}

# versions_match: dkms.conf's PACKAGE_VERSION and the version of
# packaging/debian/changelog's first entry are the file VERSION's.
versions_match() {
	local v d c rc=0
	v=$(cat "$TOP/VERSION")
	d=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TOP/dkms.conf")
	c=$(sed -n '1s/^execns (\([^)]*\)).*/\1/p' "$TOP/packaging/debian/changelog")
	echo "VERSION $v, dkms.conf $d, packaging/debian/changelog $c"
	[ "$d" = "$v" ] || { echo "dkms.conf: PACKAGE_VERSION=\"$d\" is not VERSION's $v: set it to \"$v\""; rc=1; }
	[ "$c" = "$v" ] || { echo "packaging/debian/changelog: version $c is not VERSION's $v: add an entry for $v (dch -v $v)"; rc=1; }
	return $rc
}

# readme_layout: every path README.md's layout table ("## Layout") names
# exists: each row's first column, from the top of the tree, and in its
# second each `NAME` with a dot or a slash in it, under the first (an
# absolute one, such as /proc/execns, is the running system's, not the
# tree's).  A table with no row fails too.
readme_layout() {
	local path what name rows=0 names=0 rc=0
	while IFS='|' read -r _ path what _; do
		path=$(printf '%s' "$path" | tr -d '` ')
		rows=$((rows + 1))
		[ -e "$TOP/$path" ] || { echo "README.md's layout names $path, which is not in the tree"; rc=1; continue; }
		while IFS= read -r name; do
			case $name in /* | *' '*) continue ;; *.* | */*) ;; *) continue ;; esac
			names=$((names + 1))
			[ -e "$TOP/${path%/}/$name" ] || { echo "README.md's layout names $name in $path, which is not there"; rc=1; }
		done < <(printf '%s\n' "$what" | awk -F'`' '{ for (i = 2; i < NF; i += 2) print $i }')
	done < <(sed -n '/^## Layout$/,/^## /p' "$TOP/README.md" | grep '^| `')
	echo "README.md's layout: $rows rows, $names names in them"
	[ "$rows" -gt 0 ] || { echo "README.md has no layout table (rows \"| \`PATH\` | WHAT |\" under \"## Layout\")"; rc=1; }
	return $rc
}

# hooked_functions_agree: the module's hooks (each EXECNS_REDIRECT_HOOK or
# EXECNS_WATCH_HOOK("NAME") in module/*.c) are the one list of hooked
# functions; the load-time proof's hooked entries (module/proof.c), the
# preflight's HOOKED and hook-sites.sh's hooked must name the same set.
# Each guard (EXECNS_GUARD_HOOK("NAME"), a caller the hooks rely on) must be
# a caller the proof checks.
hooked_functions_agree() {
	local want proof pre sites g rc=0 cond='\(EXECNS_[A-Z_]* ? \)\?'
	# A hook or entry a kernel may lack is written COND ? "NAME" : NULL.
	want=$(grep -ho "EXECNS_\(REDIRECT\|WATCH\)_HOOK($cond\"[a-z_]*\"" "$TOP"/module/*.c | sed 's/.*"\(.*\)"/\1/' | sort -u | xargs)
	for g in $(grep -ho "EXECNS_GUARD_HOOK($cond\"[a-z_]*\"" "$TOP"/module/*.c | sed 's/.*"\(.*\)"/\1/'); do
		tr '\n\t' '  ' <"$TOP/module/proof.c" | grep -q "\.name = $cond\"$g\"\( : NULL\)\?, *\.role = EXECNS_PROOF_GLOBAL" ||
			{ echo "the guard on $g is not a caller module/proof.c checks (EXECNS_PROOF_GLOBAL)"; rc=1; }
	done
	proof=$(tr '\n\t' '  ' <"$TOP/module/proof.c" | grep -o "\.name = $cond\"[a-z_]*\"\( : NULL\)\?, *\.role = EXECNS_PROOF_HOOKED" |
		sed 's/[^"]*"\([a-z_]*\)".*/\1/' | sort -u | xargs)
	pre=$(sed -n 's/^HOOKED="\(.*\)"$/\1/p' "$TOP/userspace/execns-preflight" | tr ' ' '\n' | sort -u | xargs)
	sites=$(sed -n 's/^hooked="\(.*\)"$/\1/p' "$TOP/tests/harness/hook-sites.sh" | tr ' ' '\n' | sort -u | xargs)
	echo "module/*.c hooks: $want"
	[ -n "$want" ] || { echo "no EXECNS_*_HOOK(\"NAME\") in module/*.c"; rc=1; }
	[ "$proof" = "$want" ] || { echo "module/proof.c's hooked entries ($proof) differ: list each hooked function there"; rc=1; }
	[ "$pre" = "$want" ] || { echo "userspace/execns-preflight's HOOKED ($pre) differs"; rc=1; }
	[ "$sites" = "$want" ] || { echo "tests/harness/hook-sites.sh's hooked ($sites) differs"; rc=1; }
	return $rc
}

# tree_is_portable: no tracked file names a path of one machine (a
# checkout under /work or /home, a scratch tree under /tmp such as a cold
# run's or a worktree's, a cache other than the documented
# /var/cache/execns) or an issue of the project's own tracker by its
# number: a reader of the tree has neither.  Each pattern is written so
# that it does not match itself.  4: not a git checkout (nothing tracked).
tree_is_portable() {
	local rc=0
	git -c safe.directory="$TOP" -C "$TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
		{ echo "not a git checkout"; return 4; }
	tracked_lacks -E '(^|[^[:alnum:]_.$}-])/(w[o]rk|h[o]me)/|/tmp/(c[o]ld|w[t]-)|/var/cache/execn[s]-' \
		"one machine's paths: say what the path is (the cache: \$EXECNS_CACHE, default /var/cache/execns)" || rc=1
	tracked_lacks -iE '\bi[s]sues? #?[0-9]' \
		"issues of the project's tracker by number: say what the issue asked for" || rc=1
	return $rc
}

# tracked_lacks GREP-OPTION PATTERN WHAT: whether no tracked file has a
# line matching PATTERN (git grep: 0 found, 1 nothing found, else an
# error); the lines found are printed, then that they name WHAT.
tracked_lacks() {
	local found=0
	git -c safe.directory="$TOP" -C "$TOP" grep -nI "$1" "$2" || found=$?
	case $found in
	0) echo "the lines above name $3"; return 1 ;;
	1) return 0 ;;
	*) echo "git grep failed"; return 1 ;;
	esac
}

# lint_step NAME TITLE CMD...: one check of the common part, its output in
# $LOGS/lint-NAME.log, reported as TITLE.
lint_step() {
	local log=$LOGS/lint-$1.log title=$2 rc=0
	shift 2
	"$@" >"$log" 2>&1 || rc=1
	ktap_result $rc "$title" "$log"
}

# subtest NAME TITLE CMD...: a harness script's KTAP as a subtest of the
# common part, indented, its stderr's last lines shown if it fails, and
# one result, TITLE with the script's name and wall time; fails as it does.
subtest() {
	local log=$LOGS/lint-$1-$TREE.log title=$2 rc=0 t=$SECONDS
	shift 2
	"$@" >"$log" 2>"$log.err" || rc=1
	sed 's/^/    /' "$log"
	[ "$rc" = 0 ] || sed 's/^/# /' "$log.err" | tail -n 20
	ktap_result $rc "$title (${1##*/}, $((SECONDS - t)) s)"
	return $rc
}

# join_lines FILE: FILE with each backslash-continued line read as one.
join_lines() {
	sed -e ':a' -e '/\\$/{N;s/\\\n//;ba}' "$1"
}

# one_flag_mask: the flags execns(2) accepts are defined once, in
# module/uapi/execns.h (EXECNS_NS_FLAGS, and the CLONE_NEW* values where
# libc lacks them), for the module, libexecns and the guest tests alike.
# No other C file of module/, userspace/ or tests/guest/ may #define a
# mask that names every one of EXECNS_NS_FLAGS' flags (its own copy of
# the mask; a test's subset is fine), or a CLONE_NEW* value.
one_flag_mask() {
	local uapi=module/uapi/execns.h flags n f line name bad=0
	flags=$(join_lines "$TOP/$uapi" | sed -n 's/^#define[[:space:]]*EXECNS_NS_FLAGS[[:space:]]//p' |
		grep -o 'CLONE_NEW[A-Z]*' | sort -u)
	n=$(grep -c . <<<"$flags")
	echo "$uapi: EXECNS_NS_FLAGS names $n flags:" $flags
	[ "$n" -gt 0 ] || { echo "$uapi: no #define EXECNS_NS_FLAGS"; return 1; }
	for f in $(cd "$TOP" && find module userspace tests/guest -name build -prune -o -type f -name '*.[ch]' -print | sort); do
		[ "$f" != "$uapi" ] || continue
		while IFS= read -r line; do
			name=$(sed 's/^[[:space:]]*#[[:space:]]*define[[:space:]]*\([A-Za-z0-9_]*\).*/\1/' <<<"$line")
			if [[ $name == CLONE_NEW* ]]; then
				echo "$f: #define $name: a CLONE_NEW* value of its own ($uapi has them)"
				bad=1
			elif [ "$(grep -o 'CLONE_NEW[A-Z]*' <<<"$line" | sort -u | grep -cxF "$flags")" -eq "$n" ]; then
				echo "$f: #define $name: the flag mask itself (use EXECNS_NS_FLAGS or EXECNS_FLAGS, $uapi)"
				bad=1
			fi
		done < <(join_lines "$TOP/$f" | grep '^[[:space:]]*#[[:space:]]*define[[:space:]].*CLONE_NEW')
	done
	return $bad
}

parts=${LINT_PARTS:-all}
deb_kernels=("$@")
case $parts in
all) plan=$(( $# * 5 + 16 )) ;;
kernels) plan=$(( $# * 5 )) ;;
common) plan=16; set -- ;;
*) die "lint.sh: LINT_PARTS must be all, kernels or common, not '$parts'" ;;
esac

echo "KTAP version 1"
echo "1..$plan"
for k in "$@"; do
	log=$LOGS/lint-$k.log
	if kernel_in_tree "$k"; then
		# No module for it; its series is the common part's
		# upstream-check.sh (checkpatch --strict, applies in order).
		for c in "W=1 build" "sparse (C=1, every file)" "no indirect branch into the kernel (IBT)" \
			"the kernel calls every hooked function through its entry (hook-sites.sh)" "make dkms-install"; do
			ktap_skip "$k: $c" "execns(2) is this kernel's own: no module to check (upstream/ is checked by upstream-check.sh)"
		done
		continue
	fi
	if kernel_built "$k" && [[ $(cat "$(kdir "$k")/cc") != clang-* ]]; then
		# The same 6.12 source as trixie's headers, whose W=1 and sparse
		# passes stand for it; KASAN's instrumentation would only add
		# frame-size noise.  (The lto kernel is clang's: its W=1 pass
		# is the only one with clang's warnings, so it runs.)
		why="same 6.12 source as the trixie headers; W=1 and sparse run there"
		! kernel_tree "$k" || why="a kernel tree of your own: the module is built against it W=1; sparse runs on Debian's headers"
		ktap_skip "$k: W=1 build" "$why"
		ktap_skip "$k: sparse (C=1, every file)" "$why"
		"$TOP/tests/harness/build-module.sh" "$k" >"$log" 2>&1 || true
	else
		# One build for both: every file compiled again (EXECNS_REBUILD:
		# up-to-date objects would print no warning, and the check would
		# pass whatever the code), and sparse on each (C=1).  gcc names
		# the option of each warning ("[-Wmissing-prototypes]"), sparse
		# none, which tells the two apart.  A finished build's output is
		# kept with its inputs' key (w1_key) and read again while they
		# are the same (w1_build).
		rc=0
		w1_build "$k" "$log" || rc=1
		grep 'warning:' "$log" | grep -v 'pahole version differs' >"$log.warnings" || true
		sparse=yes
		grep -q 'sparse is not available' "$log" && sparse=no
		w=$rc
		if [ $sparse = yes ]; then
			grep -q '\[-W' "$log.warnings" && w=1
		else
			[ ! -s "$log.warnings" ] || w=1
		fi
		ktap_result $w "$k: W=1 build without warnings" "$log"
		if [ $sparse = no ]; then
			# Debian's 7.x headers lack scripts/checker-valid.sh:
			# kbuild then skips sparse, which is no pass.
			ktap_skip "$k: sparse (C=1, every file) without warnings" "kbuild did not run sparse (the headers lack scripts/checker-valid.sh)"
		else
			w=$rc
			grep -qv '\[-W' "$log.warnings" && w=1
			ktap_result $w "$k: sparse (C=1, every file) without warnings" "$log"
		fi
		rm -f "$log.warnings"
	fi
	if ! arch_native "$(kernel_arch "$k")"; then
		# x86 machine-code checks; a cross build gets W=1 and sparse only.
		ktap_skip "$k: no indirect branch into the kernel (IBT)" "x86 only (IBT)"
		ktap_skip "$k: the kernel calls every hooked function through its entry (hook-sites.sh)" "x86 disassembly only"
		ktap_skip "$k: make dkms-install" "cross builds: dkms builds for the machine it runs on"
		continue
	fi
	rc=0
	"$TOP/tests/harness/ibt-check.sh" "$(kmod "$k")" >"$log" 2>&1 || rc=1
	ktap_result $rc "$k: no indirect branch into the kernel (IBT)" "$log"
	rc=0
	"$TOP/tests/harness/hook-sites.sh" "$k" >"$log" 2>&1 || rc=1
	case $(kernel_proof "$k") in
	refused* | partial*)
		# A row whose kernel has a path around a hook (tests/kernels.conf:
		# the load-time proof refuses uid tables, or proves them only in
		# part): the offline check must see it too.
		rc=$((1 - rc))
		ktap_result $rc "$k: hook-sites.sh finds the path around a hook that the load-time proof names ($(kernel_proof "$k"))" "$log" ;;
	*)
		ktap_result $rc "$k: the kernel calls every hooked function through its entry (hook-sites.sh)" "$log" ;;
	esac
	if kernel_built "$k"; then
		if kernel_tree "$k"; then
			ktap_skip "$k: make dkms-install" "a kernel tree of your own: dkms installs for packaged kernels; it runs on Debian's headers"
		else
			ktap_skip "$k: make dkms-install" "not a packaged kernel: its build tree belongs to its build script, which may be rebuilding it; dkms runs on the trixie headers of the same source"
		fi
		continue
	fi
	log=$LOGS/lint-dkms-$TREE-$k.log
	rc=0
	"$TOP/tests/harness/dkms-check.sh" "$k" >"$log" 2>&1 || rc=1
	ktap_result $rc "$k: make dkms-install (Debian's dkms) installs execns.ko with vermagic $(cat "$(kdir "$k")/release")" "$log"
done
if [ "$parts" = kernels ]; then
	[ "$KTAP_FAILED" -eq 0 ]
	exit
fi
cp=$(checkpatch_dir)
log=$LOGS/lint-checkpatch.log
rc=0
(cd "$TOP" && perl "$cp/scripts/checkpatch.pl" --no-tree --terse --show-types \
	--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG,LINUX_VERSION_CODE \
	--file module/*.c module/*.h module/arch/*/*.h module/arch/*/*.c module/uapi/*.h tests/guest/leak/*.c tests/guest/ipmod/*.c \
	tests/tracing/host/percpu-probe/*.c) >"$log" 2>&1 || rc=1
ktap_result $rc "checkpatch on module/, tests/guest/leak/, tests/guest/ipmod/ and tests/tracing/host/percpu-probe/" "$log"

# The in-tree twin's series: git am's format, applies to its pristine
# base, checkpatch --strict clean (a skip where the base is not unpacked:
# a run without the kernels built here).
log=$LOGS/lint-upstream.log
rc=0
"$TOP/tests/harness/upstream-check.sh" >"$log" 2>&1 || rc=$?
case $rc in
4) ktap_skip "upstream/: the series applies to its base and is checkpatch --strict clean" "$(head -n 1 "$log")" ;;
*) ktap_result $rc "upstream/: the series applies to its base and is checkpatch --strict clean ($(tail -n 1 "$log" | sed 's/^upstream\/series: //'))" "$log" ;;
esac

log=$LOGS/lint-log-pattern.log
rc=0
"$TOP/tests/harness/log-pattern-check.sh" >"$log" 2>&1 || rc=1
ktap_result $rc "kernel-log pattern: every sample report trips it, no clean banner does" "$log"
log=$LOGS/lint-shell-syntax.log
rc=0
shell_syntax >"$log" 2>&1 || rc=1
ktap_result $rc "shell scripts parse (bash -n, dash -n for /bin/sh ones): module/, packaging/, tests/, userspace/" "$log"
log=$LOGS/lint-make-cmd.log
rc=0
make_passes_cmd >"$log" 2>&1 || rc=1
ktap_result $rc "make vm-run and stap-run pass CMD unexpanded" "$log"
# man_facts (in docs/): what mandoc does not check.  Section 2 indexes
# system calls, so execns.2's NAME names execns alone (the library's
# functions are execns.3's); every command's page has EXAMPLES.
man_facts() {
	local p
	for p in ./*.1; do
		grep -q '^\.SH EXAMPLES' "$p" || echo "$p: no EXAMPLES section"
	done
	sed -n '/^\.SH NAME/{n;p;q}' execns.2 | grep -q '^execns \\-' ||
		echo "execns.2: its NAME line names more than the system call execns"
}
log=$LOGS/lint-man.log
rc=0
(cd "$TOP/docs" && mandoc -Tlint -W style ./*.[1-8] && man_facts) >"$log" 2>&1 || rc=1
[ ! -s "$log" ] || rc=1
ktap_result $rc "man pages lint-clean (mandoc -Tlint), each command's with EXAMPLES, execns.2's NAME the system call's alone: $(cd "$TOP/docs" && echo ./*.[1-8] | sed 's|\./||g')" "$log"
log=$LOGS/lint-kernel-table.log
rc=0
{ sed -n '/^<!-- kernel-table: /,/^<!-- \/kernel-table -->$/p' "$TOP/README.md" | sed '1d;$d' |
	diff -u - <("$TOP/tests/harness/kernel-table.sh"); } >"$log" 2>&1 || rc=1
ktap_result $rc "README.md's table of kernels is tests/kernels.conf's (make kernel-table writes it)" "$log"
lint_step readme-layout "every path README.md's layout table names is in the tree" readme_layout
lint_step evaluation "docs/evaluation.md is what tests/bench-results/ gives (bench-report.sh --check; make bench-report writes it)" "$TOP/tests/harness/bench-report.sh" --check
log=$LOGS/lint-portable.log
rc=0
tree_is_portable >"$log" 2>&1 || rc=$?
case $rc in
4) ktap_skip "no machine paths or tracker issue numbers in the tracked files" "$(head -n 1 "$log")" ;;
*) ktap_result $rc "no machine paths or tracker issue numbers in the tracked files" "$log" ;;
esac
lint_step hooked "one list of hooked functions: the module's hooks, the proof's, the preflight's and hook-sites.sh's agree" hooked_functions_agree
lint_step flag-mask "one flag mask: module/uapi/execns.h alone defines it and the CLONE_NEW* values (module/, userspace/, tests/guest/)" one_flag_mask
lint_step versions "dkms.conf's PACKAGE_VERSION and packaging/debian/changelog's version are VERSION's ($(cat "$TOP/VERSION"))" versions_match
# The Debian packages' checks as a subtest: its KTAP, indented.
deb_rc=0
subtest deb "Debian packages: make deb, lintian, apt install, DKMS for ${#deb_kernels[@]} kernels, autopkgtest dkms-build, the packaged SystemTap script built, apt purge" \
	"$TOP/tests/harness/deb-check.sh" "${deb_kernels[@]}" || deb_rc=1
# The autopkgtest smoke in one guest (one boot, as a vm-run), on
# the packages deb-check.sh just installed and kept for that kernel: the
# first kernel named that autopkgtest-check.sh runs it on.
apt_kernel=
for k in "${deb_kernels[@]}"; do
	arch_native "$(kernel_arch "$k")" && ! kernel_built "$k" && ! kernel_in_tree "$k" || continue
	case $(kernel_proof "$k") in refused-insmod*) continue ;; esac
	apt_kernel=$k
	break
done
name="Debian packages: the autopkgtest smoke (modprobe, execns --uts, a uid table, rmmod) in a guest"
if [ -z "$apt_kernel" ]; then
	ktap_skip "$name" "no x86_64 Debian kernel named"
elif [ "$deb_rc" != 0 ]; then
	ktap_skip "$name" "deb-check.sh failed, so its packages are not there to test"
else
	subtest autopkgtest "$name of $apt_kernel" "$TOP/tests/harness/autopkgtest-check.sh" "$apt_kernel" || true
fi
# The packages as README.md and the docs tell a user to use them, in one
# guest: the first kernel named with the deb-trace trait, for which
# deb-check.sh built the packaged SystemTap script (tests/kernels.conf:
# trixie), else the smoke's kernel, where the tracing results skip.
use_kernel=
for k in "${deb_kernels[@]}"; do
	kernel_trait "$k" deb-trace && arch_native "$(kernel_arch "$k")" && ! kernel_built "$k" &&
		! kernel_in_tree "$k" || continue
	case $(kernel_proof "$k") in refused*) continue ;; esac
	use_kernel=$k
	break
done
use_kernel=${use_kernel:-$apt_kernel}
name="Debian packages as a user uses them: the modprobe.d and modules-load.d examples, the packaged SystemTap and bpftrace scripts, in a guest"
if [ -z "$use_kernel" ]; then
	ktap_skip "$name" "no x86_64 Debian kernel named"
elif [ ! -d "$(dirname "$(kmod "$use_kernel")")/autopkgtest-root" ] || [ "$deb_rc" != 0 ]; then
	ktap_skip "$name" "deb-check.sh failed, so its packages are not there to test"
else
	subtest deb-use "$name of $use_kernel" "$TOP/tests/harness/deb-use-check.sh" "$use_kernel" || true
fi
[ "$KTAP_FAILED" -eq 0 ]
