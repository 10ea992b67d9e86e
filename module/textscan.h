/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scan of the running kernel's core text, _stext to _etext, for the
 * functions that branch to an address range or name a kernel object: the
 * load-time proof's evidence (proof.c), read from the machine code the CPU
 * runs rather than from a list of releases.  Instructions are decoded by
 * the architecture's execns_arch_branch() and execns_arch_refers()
 * (execns-arch.h).  The text of modules (a livepatch's, another module's
 * copy of a function), init text freed after boot and the architecture's
 * hole (arm64: KVM's hypervisor text, which the host must not read under
 * protected KVM) are not read.
 */
#ifndef _EXECNS_TEXTSCAN_H
#define _EXECNS_TEXTSCAN_H

#include <linux/types.h>

/* Targets per scan. */
#define EXECNS_SCAN_TARGETS	16

/* Functions remembered per target; more are counted, not named. */
#define EXECNS_SCAN_FNS	32

struct execns_scan_target {
	/* What to find: branches landing in [lo, hi], or, if @data, naming it. */
	unsigned long lo, hi;
	unsigned long data;
	/* What was found: the start of each function, in text order. */
	unsigned int nfns;
	unsigned int more;		/* sites in functions past the first EXECNS_SCAN_FNS */
	unsigned long fn[EXECNS_SCAN_FNS];
};

/*
 * Scan for @n targets; the bytes of text read, or a negative errno (the
 * text could not be read, or _stext and _etext were not found).  Sleeps;
 * about 1 ms per MiB of x86 text on a 2020s CPU.
 */
long execns_textscan(struct execns_scan_target *t, unsigned int n);

#endif /* _EXECNS_TEXTSCAN_H */
