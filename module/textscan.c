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
 * instruction may cross the chunk's end).  A site is mapped to its
 * function by the symbol table, which also tells where each function
 * starts: there the architecture's state (arm64's registers) is reset.
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

/*
 * The targets of one scan, split by kind, and what the architecture keeps
 * of the function being read (its registers on arm64), reset at each
 * function's start: @fn_end is where the current one ends.
 */
struct execns_scan_set {
	struct execns_scan_target *branch[EXECNS_SCAN_TARGETS], *data[EXECNS_SCAN_TARGETS];
	unsigned int nbranch, ndata;
	struct execns_arch_scan st;
	unsigned long fn_end;
};

/*
 * At @ip: a new function's start resets the architecture's state (none on
 * x86 and s390, which need no lookup for it).
 */
static void execns_scan_function(struct execns_scan_set *set, unsigned long ip)
{
	unsigned long size, off;

	if (!sizeof(set->st) || ip < set->fn_end)
		return;
	if (execns_call(kallsyms_lookup_size_offset)(ip, &size, &off) && size > off)
		set->fn_end = ip - off + size;
	else
		set->fn_end = ip + 1;
	execns_arch_scan_reset(&set->st);
}

/* Decode one chunk: @len bytes copied from @base, instructions from @from to @to. */
static size_t execns_scan_chunk(struct execns_scan_set *set, const u8 *code,
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
		if (!set->ndata)
			continue;
		execns_scan_function(set, base + i);
		for (k = 0; k < set->ndata; k++)
			if (execns_arch_refers(&set->st, code, i, len, base, set->data[k]->data))
				execns_scan_hit(set->data[k], base + i);
		execns_arch_scan_step(&set->st, code, i, len, base);
	}
	return i;
}

/* Scan [@start, @end): the bytes read, or -EFAULT. */
static long execns_scan_range(struct execns_scan_set *set, u8 *code,
			      unsigned long start, unsigned long end)
{
	unsigned long p, q, top;
	size_t done;

	for (p = start; p < end; p = q + done) {
		q = max(p - EXECNS_SCAN_BEFORE, start);
		top = min(p + EXECNS_SCAN_CHUNK + EXECNS_SCAN_AFTER, end);
		if (copy_from_kernel_nofault(code, (void *)q, top - q))
			return -EFAULT;
		done = execns_scan_chunk(set, code, top - q, q, p - q,
					 min(p + EXECNS_SCAN_CHUNK, end) - q);
		if (q + done <= p)
			break;	/* the text ends inside an instruction */
		cond_resched();
	}
	return end - start;
}

/*
 * The architecture's hole (execns-arch.h): text the host must not read,
 * skipped when both its ends are known and lie inside [@stext, @etext].
 */
static bool execns_scan_hole(unsigned long stext, unsigned long etext,
			     unsigned long *start, unsigned long *end)
{
	const char *s = EXECNS_ARCH_TEXT_HOLE_START, *e = EXECNS_ARCH_TEXT_HOLE_END;

	*start = s ? execns_symbol_addr(s) : 0;
	*end = e ? execns_symbol_addr(e) : 0;
	return *start >= stext && *start < *end && *end <= etext;
}

long execns_textscan(struct execns_scan_target *t, unsigned int n)
{
	unsigned long stext = execns_symbol_addr("_stext");
	unsigned long etext = execns_symbol_addr("_etext");
	struct execns_scan_set *set;
	unsigned long hole, hole_end;
	long ret, read;
	unsigned int k;
	u8 *code;

	if (!stext || etext <= stext || !execns_have(kallsyms_lookup_size_offset))
		return -ENOENT;
	if (n > EXECNS_SCAN_TARGETS)
		return -E2BIG;
	/* Off the stack: arm64's registers are 1 KiB. */
	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!set)
		return -ENOMEM;
	for (k = 0; k < n; k++) {
		if (t[k].data)
			set->data[set->ndata++] = &t[k];
		else if (t[k].hi)
			set->branch[set->nbranch++] = &t[k];
	}
	read = -ENOMEM;
	code = kvmalloc(EXECNS_SCAN_BEFORE + EXECNS_SCAN_CHUNK + EXECNS_SCAN_AFTER, GFP_KERNEL);
	if (!code)
		goto free_set;
	if (!execns_scan_hole(stext, etext, &hole, &hole_end)) {
		hole = etext;
		hole_end = etext;
	}
	read = execns_scan_range(set, code, stext, hole);
	if (read >= 0 && hole_end < etext) {
		ret = execns_scan_range(set, code, hole_end, etext);
		read = ret < 0 ? ret : read + ret;
	}
	kvfree(code);
free_set:
	kfree(set);
	return read;
}
