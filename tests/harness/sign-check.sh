#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make sign for real, and a guest that enforces signatures (KTAP).
#
# In the build root: a throwaway key and certificate (openssl req), then the
# Makefile's `make sign` on a copy of KERNEL's execns.ko, with the kernel's
# own scripts/sign-file from its headers; kmod's modinfo must then show the
# signer and the hash, and the file end in sign-file's marker.  Then a
# guest of KERNEL booted with module.sig_enforce=1 and the module not
# loaded (EXECNS_LOAD=no) runs tests/guest/test-execns-preflight, which
# holds the preflight's "no" and the kernel's refusal of the unsigned
# module to each other, and, given the signed copy, checks that the kernel
# refuses it for its key (no stock kernel trusts a throwaway key), having
# read the signature sign-file appended.
#
# Usage: sign-check.sh KERNEL

. "$(dirname "$0")/common.sh"

kernel=${1:?usage: sign-check.sh KERNEL}
kd=$(kdir "$kernel")
prepare_guest "$kernel"
release=$(cat "$kd/release")
d=/build/$TREE/sign-$kernel
signed=$(dirname "$(kmod "$kernel")")/execns-signed.ko


echo "KTAP version 1"
echo "1..5"
echo "# $kernel ($release)"
rm -rf "$ROOT$d"
mkdir -p "$ROOT$d"
cp "$TOP/Makefile" "$TOP/VERSION" "$ROOT$d/"
cp "$(kmod "$kernel")" "$ROOT$d/execns.ko"
# A key of this run only: nothing trusts it, and it is deleted with $d.
# The build root's openssl (linux-kbuild's sign-file is linked to its
# libcrypto; the openssl program came with it on every root made so far).
in_root openssl req -new -nodes -utf8 -sha256 -days 1 -batch -x509 -newkey rsa:2048 \
	-subj "/CN=execns throwaway test key/" -outform DER -out "$d/cert.der" \
	-keyout "$d/key.pem" >/dev/null 2>&1 ||
	die "openssl req failed to make a throwaway key in the build root (apt-get install openssl there)"

r=0
in_root make -C "$d" sign KDIR="/lib/modules/$release/build" KEY="$d/key.pem" CERT="$d/cert.der" \
	KO="$d/execns.ko" 2>&1 | sed 's/^/# /' || r=1
ktap_result "$r" "make sign KEY= CERT= with $release's scripts/sign-file"

info=$(in_root modinfo "$d/execns.ko" 2>&1 || true)
printf '%s\n' "$info" | grep -E '^(signer|sig_hashalgo|sig_key|vermagic):' | sed 's/^/# /'
r=0; printf '%s\n' "$info" | grep -qE '^signer: +execns throwaway test key$' || r=1
ktap_result "$r" "modinfo: signer is the throwaway key's subject"
r=0; printf '%s\n' "$info" | grep -qE '^sig_hashalgo: +sha256$' || r=1
ktap_result "$r" "modinfo: sig_hashalgo sha256"
r=0; [ "$(tail -c 28 "$ROOT$d/execns.ko")" = "~Module signature appended~" ] || r=1
ktap_result "$r" "the module ends in sign-file's marker (~Module signature appended~)"
cp "$ROOT$d/execns.ko" "$signed.$$" && mv -f "$signed.$$" "$signed"
rm -rf "$ROOT$d"

r=0
tdir=$(mktemp -d /tmp/execns-sign.XXXXXX)
cp "$signed" "$tdir/execns-signed.ko"
EXECNS_LOAD=no BOOTARGS="module.sig_enforce=1" EXECNS_PREBUILT=1 \
	"$TOP/tests/harness/vm.sh" "$kernel" run test-execns-preflight "$tdir/execns-signed.ko" |
	sed 's/^/    /' || r=1
rm -rf "$tdir"
ktap_result "$r" "a guest booted with module.sig_enforce=1: the preflight says no, the kernel refuses the unsigned and the untrusted signed module"
[ "$KTAP_FAILED" -eq 0 ]
