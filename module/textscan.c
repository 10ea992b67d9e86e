// SPDX-License-Identifier: GPL-2.0
/*
 * The scan of the kernel's core text (see textscan.h).
 *
 * The text is copied a chunk at a time with copy_from_kernel_nofault(), so
 * a hole in it fails the scan instead of the kernel, and decoded from
 * _stext on: each chunk starts where the last instruction decoded in the
 * one before ended, which keeps the instruction boundaries of s390 (2, 4
 * or 6 bytes).  A chunk is copied with a few bytes before it (x86's
 * operand field needs the ModRM byte before it) and after it (an
 * instruction, or arm64's adrp and the add that follows it, may cross the
 * chunk's end).  A site is mapped to its function by the symbol table.
 */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "arch.h"
#include "symbols.h"
#include "textscan.h"

#define EXECNS_SCAN_CHUNK	SZ_64K
#define EXECNS_SCAN_BEFORE	16
#define EXECNS_SCAN_AFTER	64

/* A site at @site is in a function: remember the function once. */
static void execns_scan_hit(struct execns_scan_target *t, unsigned long site)
{
	unsigned long size, off, start;
	unsigned int i;

	if (!execns_call(kallsyms_lookup_size_offset)(site, &size, &off))
		return;
	start = site - off;
	for (i = 0; i < min_t(unsigned int, t->nfns, EXECNS_SCAN_FNS); i++)
		if (t->fn[i] == start)
			return;
	if (t->nfns < EXECNS_SCAN_FNS)
		t->fn[t->nfns++] = start;
	else
		t->more++;
}

/* The targets of one scan, split by kind: most offsets need only the data ones. */
struct execns_scan_set {
	struct execns_scan_target *branch[EXECNS_SCAN_TARGETS], *data[EXECNS_SCAN_TARGETS];
	unsigned int nbranch, ndata;
};

/* Decode one chunk: @len bytes copied from @base, instructions from @from to @to. */
static size_t execns_scan_chunk(const struct execns_scan_set *set, const u8 *code,
				size_t len, unsigned long base, size_t from, size_t to)
{
	struct execns_scan_target *t;
	unsigned long dest;
	unsigned int k;
	size_t i, step;

	for (i = from; i < to; i += step) {
		step = execns_arch_branch(code + i, len - i, base + i, &dest);
		if (!step)
			break;
		for (k = 0; dest && k < set->nbranch; k++) {
			t = set->branch[k];
			if (dest >= t->lo && dest <= t->hi)
				execns_scan_hit(t, base + i);
		}
		for (k = 0; k < set->ndata; k++)
			if (execns_arch_refers(code, i, len, base, set->data[k]->data))
				execns_scan_hit(set->data[k], base + i);
	}
	return i;
}

long execns_textscan(struct execns_scan_target *t, unsigned int n)
{
	unsigned long stext = execns_symbol_addr("_stext");
	unsigned long etext = execns_symbol_addr("_etext");
	struct execns_scan_set set = { };
	unsigned long p, q, end;
	unsigned int k;
	size_t done;
	u8 *code;

	if (!stext || etext <= stext || !execns_have(kallsyms_lookup_size_offset))
		return -ENOENT;
	if (n > EXECNS_SCAN_TARGETS)
		return -E2BIG;
	for (k = 0; k < n; k++) {
		if (t[k].data)
			set.data[set.ndata++] = &t[k];
		else if (t[k].hi)
			set.branch[set.nbranch++] = &t[k];
	}
	code = kvmalloc(EXECNS_SCAN_BEFORE + EXECNS_SCAN_CHUNK + EXECNS_SCAN_AFTER, GFP_KERNEL);
	if (!code)
		return -ENOMEM;
	for (p = stext; p < etext; p = q + done) {
		q = max(p - EXECNS_SCAN_BEFORE, stext);
		end = min(p + EXECNS_SCAN_CHUNK + EXECNS_SCAN_AFTER, etext);
		if (copy_from_kernel_nofault(code, (void *)q, end - q)) {
			kvfree(code);
			return -EFAULT;
		}
		done = execns_scan_chunk(&set, code, end - q, q, p - q,
					 min(p + EXECNS_SCAN_CHUNK, etext) - q);
		if (q + done <= p)
			break;	/* the text ends inside an instruction */
		cond_resched();
	}
	kvfree(code);
	return etext - stext;
}
