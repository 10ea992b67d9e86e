#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The module's hooks sit at the entry of kernel functions (ftrace, module/
# hook.c).  A call that does not go through that entry escapes them: a copy
# GCC inlined into its caller, or a clone (alloc_uid.part.0, .isra,
# .constprop) that callers call instead.  No hooked function releases
# anything (module/uidhooks.c: a table's objects are the kernel's kind,
# freed by the kernel's own free_uid() and put_ucounts()), so for uid
# accounting such a path gives a task of a table the kernel's object
# instead of its table's (accounting, not memory), and for ksys_unshare
# it escapes forbid_unshare.  This checks, in the kernel's own machine
# code, that the paths the module depends on still call the hooked
# functions:
#   - no link-time optimisation (no CONFIG_LTO_CLANG): without it GCC inlines
#     only inside one file, and the callers below include the same-file ones
#     (kernel/cred.c's set_cred_ucounts and copy_creds for alloc_ucounts,
#     which is redirected only for calls from there);
#   - no clone of a hooked function in the symbol table;
#   - each caller below has a call (or tail jump) to each function named
#     (a|b: to one of them, e.g. a callee or the function it calls, where
#     the compiler may inline the one into the caller);
#   - every function that names uidhash_lock or ucounts_lock (which any
#     copy of alloc_uid, find_user or alloc_ucounts must take) is one of
#     them, a release, or (ucounts_lock) calls no slab allocator: a copy in
#     a caller nobody listed is found by what its code does.
# A caller missing from the symbol table (renamed, or inlined into its own
# caller) fails the check: read the new kernel's source and update the list.
#
# The module proves the same at load on every architecture (module/proof.c,
# /proc/execns/proof); this is the independent offline check, from objdump.
#
# Usage: hook-sites.sh KERNEL		(KTAP; stock kernels get their
# System.map from system-map.sh and vmlinux from vmlinuz; the debug kernel
# has both in its build tree)

. "$(dirname "$0")/common.sh"

kernel=${1:?usage: hook-sites.sh KERNEL}
kd=$(kdir "$kernel")
# The build tree: the build root's link, or a tree of your own.
build=$(kbuild_host "$kernel")

# hooked: the functions module/uidhooks.c, handover.c and unshare.c hook
# (free_uid and put_ucounts are not hooked: a clone of them costs nothing).
hooked="alloc_uid alloc_ucounts find_user commit_creds ksys_unshare"

# CALLER (a|b: the first of them in the symbol table; ?a: a static
# function that may be inlined into all its callers, which are checked
# then): CALLEES (a|b: a call to either).  copy_creds calls
# set_cred_ucounts, or alloc_ucounts where GCC inlined set_cred_ucounts
# into it (Debian's 6.1); the setuid family calls alloc_uid through
# set_user() where GCC kept it (Debian's 5.10).  The lines marked "ucounts:"
# are for a kernel whose credentials carry ucounts (5.14 on: it has
# inc_rlimit_ucounts()); before, nothing of the module's touches them.
sites() {
	cat <<-'LIST' | if [ -n "$cred_ucounts" ]; then sed 's/^ucounts: //'; else sed '/^ucounts: /d'; fi
	ucounts: set_cred_ucounts: alloc_ucounts
	ucounts: copy_creds: set_cred_ucounts|alloc_ucounts
	?set_user: alloc_uid
	__sys_setuid: alloc_uid|set_user commit_creds
	__sys_setreuid: alloc_uid|set_user commit_creds
	__sys_setresuid: alloc_uid|set_user commit_creds
	__do_sys_setpriority|__x64_sys_setpriority: find_user
	__do_sys_getpriority|__x64_sys_getpriority: find_user
	__do_sys_unshare|__x64_sys_unshare: ksys_unshare
	LIST
}

work=$(mktemp -d /tmp/execns-sites.XXXXXX)
trap 'rm -rf "$work"' EXIT

# vmlinux: the build tree's, or the ELF image inside vmlinuz (found by its
# compressor's magic, as the kernel's scripts/extract-vmlinux does).
vmlinux() {
	local magic tool off
	if [ -s "$build/vmlinux" ] && [ -s "$build/System.map" ]; then
		echo "$build/vmlinux"
		return
	fi
	for magic in '\x28\xb5\x2f\xfd:zstd' '\xfd\x37\x7a\x58\x5a\x00:xz' '\x1f\x8b\x08:gzip'; do
		tool=${magic#*:}
		for off in $(LC_ALL=C grep -obUaP "${magic%:*}" "$kd/vmlinuz" | cut -d: -f1); do
			tail -c +$((off + 1)) "$kd/vmlinuz" | $tool -dc >"$work/vmlinux" 2>/dev/null
			[ "$(head -c 4 "$work/vmlinux" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] && {
				echo "$work/vmlinux"
				return
			}
		done
	done
	return 1
}

if [ -s "$build/vmlinux" ] && [ -s "$build/System.map" ]; then
	map=$build/System.map
else
	"$TOP/tests/harness/system-map.sh" "$kernel"
	map=$kd/System.map
fi
elf=$(vmlinux) || die "$kernel: no vmlinux in $kd/vmlinuz"


result() { ktap_result "$1" "$kernel: $2"; }

addr() { awk -v s="$1" '$3 == s && $2 ~ /^[tTW]$/ { print $1; exit }' "$map"; }
# end ADDR: the address of the next text symbol after ADDR.
end() { awk -v a="$1" '$2 ~ /^[tTW]$/ && $1 > a { print $1 }' "$map" | sort | head -n 1; }

# LOCK: HOOKED... (ALLOCATES: yes when every hooked user allocates): the
# file-static locks every copy of a hooked function must take.  Each
# function of the lock's file (the hooked functions' text, 64 KiB either
# side: one file's code is contiguous without LTO) that names the lock must
# be a hooked one, a release (RELEASES), or, where every hooked user
# allocates, one that calls no slab allocator: the module's own text scan
# (module/proof.c) judges the same way, from its own decoder.
locks() {
	cat <<-'LIST' | if [ -n "$cred_ucounts" ]; then cat; else sed '/alloc_ucounts/d'; fi
	uidhash_lock: alloc_uid find_user: no
	ucounts_lock: alloc_ucounts: yes
	LIST
}
RELEASES="free_uid free_user put_ucounts hlist_add_ucounts"

cred_ucounts=$(addr inc_rlimit_ucounts)
[ -n "$cred_ucounts" ] || hooked=${hooked/ alloc_ucounts/}

echo "KTAP version 1"
echo "1..$((2 + $(sites | wc -l) + $(locks | wc -l)))"
rc=0
# (CONFIG_LTO_NONE exists only since 5.12, LTO with it.)
! grep -qE '^CONFIG_LTO_CLANG(_THIN|_FULL)?=y' "$build/.config" || rc=1
result $rc "no link-time optimisation (no CONFIG_LTO_CLANG): calls into another file are never inlined"

clones=$(awk -v h=" $hooked " '$2 ~ /^[tT]$/ { f = $3; sub(/\..*/, "", f)
	if (f != $3 && $3 !~ /\.cold$/ && index(h, " " f " ")) print $3 }' "$map" | tr '\n' ' ')
rc=0
[ -z "$clones" ] || rc=1
result $rc "no compiler clone of a hooked function${clones:+: $clones}"

while IFS=: read -r callers callees; do
	caller= a=
	for c in ${callers//|/ }; do
		a=$(addr "${c#\?}")
		if [ -n "$a" ]; then
			caller=${c#\?}
			break
		fi
	done
	if [ -z "$caller" ] && [ "${callers#\?}" != "$callers" ]; then
		result 0 "${callers#\?}: inlined into its callers, which are checked on their own"
		continue
	elif [ -z "$caller" ]; then
		result 1 "$callers: not in the symbol table (renamed or inlined: update tests/harness/hook-sites.sh)"
		continue
	fi
	objdump -d --no-show-raw-insn --start-address="0x$a" --stop-address="0x$(end "$a")" "$elf" >"$work/dis"
	missing=
	for f in $callees; do
		found=no
		for g in ${f//|/ }; do
			t=$(addr "$g")
			[ -n "$t" ] || continue
			! grep -qE "(call|jmp) +(0x)?$t\b" "$work/dis" || found=yes
		done
		[ $found = yes ] || missing="$missing $f"
	done
	rc=0
	[ -z "$missing" ] || rc=1
	result $rc "$caller calls${callees//|/ or } through their entries${missing:+ (no call to:${missing//|/ or })}"
done < <(sites)
# data_addr NAME: a data symbol's address (System.map types b, d, B, D).
data_addr() { awk -v s="$1" '$3 == s && $2 ~ /^[bBdD]$/ { print $1; exit }' "$map"; }

while IFS=: read -r lock users allocates; do
	la=$(data_addr "$lock")
	lo= hi=
	for f in $users; do
		a=$(addr "$f")
		[ -n "$a" ] || continue
		[ -n "$lo" ] && [ $((16#$a)) -ge $((16#$lo)) ] || lo=$a
		[ -n "$hi" ] && [ $((16#$a)) -le $((16#$hi)) ] || hi=$a
	done
	if [ -z "$la" ] || [ -z "$lo" ]; then
		result 1 "$lock: not in the symbol table with its users ($users)"
		continue
	fi
	objdump -d --no-show-raw-insn --start-address=$(printf '0x%x' $((16#$lo - 65536))) \
		--stop-address=$(printf '0x%x' $((16#$hi + 65536))) "$elf" >"$work/dis"
	# Each function that names the lock, and whether it calls the allocator,
	# by address: a vmlinux from vmlinuz has no symbols, so System.map
	# names the functions (the last text symbol at or before an address)
	# and the call targets.
	{
		awk '$2 ~ /^[tTW]$/ { print "S", $1, $3 }' "$map"
		awk -v la="$la" '
			/^ *[0-9a-f]+:/ { a = $1; sub(/:$/, "", a) } 
			index($0, "0x" la) || index($0, la " <") { print "L", a }
			/call +(0x)?[0-9a-f]+/ { if (match($0, /call +(0x)?[0-9a-f]+/)) { t = substr($0, RSTART, RLENGTH); sub(/call +(0x)?/, "", t); print "C", a, t } }' "$work/dis"
	} | sort -k2,2 -s | awk '
		$1 == "S" { fn = $3; sym[$2] = $3; next }
		$1 == "L" { named[fn] = 1; next }
		$1 == "C" { calls[fn] = calls[fn] " " $3 }
		END {
			for (f in named) {
				how = "none"
				n = split(calls[f], t, " ")
				for (i = 1; i <= n; i++)
					if (sym[t[i]] ~ /^(kmalloc|__kmalloc|kmem_cache_alloc)/)
						how = "allocates"
				print f, how
			}
		}' | sort >"$work/users"
	seen= bad=
	while read -r fn how; do
		base=${fn%%.*}
		case " $users " in *" $fn "*) seen="$seen $fn" ;; *)
			case " $RELEASES " in *" $base "*) ;; *)
				[ "$allocates" = " yes" ] && [ "$how" = none ] || bad="$bad $fn" ;;
			esac ;;
		esac
	done <"$work/users"
	missing=
	for f in $users; do
		case " $seen " in *" $f "*) ;; *) missing="$missing $f" ;; esac
	done
	rc=0
	[ -z "$bad$missing" ] || rc=1
	result $rc "the functions naming $lock ($(cut -d' ' -f1 "$work/users" | xargs | sed 's/ /, /g')) are its users$users, releases or, for a lock whose users allocate, functions that do not${bad:+; a copy of$users may be in:$bad}${missing:+; not found naming it:$missing}"
done < <(locks)
[ "$KTAP_FAILED" -eq 0 ]
