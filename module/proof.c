// SPDX-License-Identifier: GPL-2.0
/*
 * The load-time proof (see proof.h).  Three kinds of check, each one line
 * of /proc/execns/proof:
 *
 *  config: the kernel was built without link-time optimisation, which
 *	inlines across files; it is a release whose callers are listed here
 *	(compat.h); the symbol-table walkers the proof uses were resolved.
 *  copies: one walk of vmlinux's symbol table finds every symbol named
 *	after a hooked function.  There must be exactly one of the name, and
 *	no "NAME.SUFFIX" copy (.part.N, .isra.N, .constprop.N: GCC's clones)
 *	except NAME.cold, the function's own unlikely code, entered from it.
 *  sites: without LTO, GCC inlines a function only into callers in its
 *	own file.  The hooked functions' same-file callers are listed below,
 *	with the number of calls each one's source makes.  Each such caller
 *	in the symbol table must branch to the hooked entry at least that
 *	often, where the calls of a callee it inlined (an intermediate such
 *	as do_dec_rlimit_put_ucounts()) count as its own.  A clone of a
 *	caller is checked as the caller.  Where a hooked function has a
 *	mark, a function that only it calls in its file (put_ucounts():
 *	the out-of-line half of its reference drop), a caller must not call
 *	the mark: that call would be an inlined copy.  This also tells call
 *	sites the compiler merged (fewer branches than calls, no mark) from
 *	copies (a mark), and catches a call a stable update added.
 *
 * The list of callers is what the proof cannot see for itself: a release
 * not in compat.h's list is refused, not assumed to be like another.
 *
 * Ordering: the proof runs in init before any hook is initialised and
 * before the syscall and /proc/execns exist; its results are written once
 * and read afterwards without locks.
 */
#include <linux/kernel.h>
#include <linux/bitops.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/seq_file.h>
#include <linux/utsname.h>
#include "arch.h"
#include "symbols.h"
#include "proof.h"

/* Functions larger than this are not read (none of the listed is near). */
#define EXECNS_PROOF_MAX_TEXT	SZ_64K
#define EXECNS_PROOF_CLONES	4
#define EXECNS_PROOF_NAME	64

enum execns_proof_role {
	EXECNS_PROOF_HOOKED,	/* has a hook at its entry */
	EXECNS_PROOF_GLOBAL,	/* a caller that other files call: in the symbol table */
	EXECNS_PROOF_LOCAL,	/* a caller that may have been inlined away */
};

struct execns_proof_fn {
	const char *name;	/* NULL: not on this architecture */
	enum execns_proof_role role;
	const char *mark;	/* called by every copy of a hooked function */
	unsigned long mark_addr;
	/* From the symbol-table walk: */
	unsigned long addr;
	unsigned int copies;
	unsigned long cold;
	unsigned int nclones;
	unsigned long clone[EXECNS_PROOF_CLONES];
	char clone_name[EXECNS_PROOF_CLONES][EXECNS_PROOF_NAME];
};

enum {
	/* Hooked (uidhooks.c, handover.c, unshare.c). */
	EXECNS_FN_FREE_UID,
	EXECNS_FN_ALLOC_UID,
	EXECNS_FN_FIND_USER,
	EXECNS_FN_PUT_UCOUNTS,
	EXECNS_FN_ALLOC_UCOUNTS,
	EXECNS_FN_COMMIT_CREDS,
	EXECNS_FN_KSYS_UNSHARE,
	/* Their same-file callers: kernel/ucount.c, kernel/fork.c. */
	EXECNS_FN_GET_UCOUNTS,
	EXECNS_FN_INC_UCOUNT,
	EXECNS_FN_DEC_UCOUNT,
	EXECNS_FN_DO_DEC_RLIMIT,
	EXECNS_FN_DEC_RLIMIT,
	EXECNS_FN_INC_RLIMIT,
	EXECNS_FN_DO_SYS_UNSHARE,
	EXECNS_FN_SYS_UNSHARE,
	EXECNS_FN_COMPAT_SYS_UNSHARE,
	EXECNS_FN_COUNT
};

/*
 * kernel/user.c has no caller of free_uid(), alloc_uid() or find_user(),
 * nor kernel/cred.c of commit_creds(): those are called from other files
 * only.  get_ucounts() is an out-of-line function until ucounts became
 * rcuref-counted, and a header inline since.
 */
static struct execns_proof_fn execns_proof_fns[EXECNS_FN_COUNT] = {
	[EXECNS_FN_FREE_UID] = { .name = "free_uid", .role = EXECNS_PROOF_HOOKED },
	[EXECNS_FN_ALLOC_UID] = { .name = "alloc_uid", .role = EXECNS_PROOF_HOOKED },
	[EXECNS_FN_FIND_USER] = { .name = "find_user", .role = EXECNS_PROOF_HOOKED },
	[EXECNS_FN_PUT_UCOUNTS] = { .name = "put_ucounts", .role = EXECNS_PROOF_HOOKED,
				    .mark = EXECNS_PROOF_PUT_UCOUNTS_MARK },
	[EXECNS_FN_ALLOC_UCOUNTS] = { .name = "alloc_ucounts", .role = EXECNS_PROOF_HOOKED },
	[EXECNS_FN_COMMIT_CREDS] = { .name = "commit_creds", .role = EXECNS_PROOF_HOOKED },
	[EXECNS_FN_KSYS_UNSHARE] = { .name = "ksys_unshare", .role = EXECNS_PROOF_HOOKED },
	[EXECNS_FN_GET_UCOUNTS] = { .name = "get_ucounts", .role = EXECNS_PROOF_LOCAL },
	[EXECNS_FN_INC_UCOUNT] = { .name = "inc_ucount", .role = EXECNS_PROOF_GLOBAL },
	[EXECNS_FN_DEC_UCOUNT] = { .name = "dec_ucount", .role = EXECNS_PROOF_GLOBAL },
	[EXECNS_FN_DO_DEC_RLIMIT] = { .name = "do_dec_rlimit_put_ucounts", .role = EXECNS_PROOF_LOCAL },
	[EXECNS_FN_DEC_RLIMIT] = { .name = "dec_rlimit_put_ucounts", .role = EXECNS_PROOF_GLOBAL },
	[EXECNS_FN_INC_RLIMIT] = { .name = "inc_rlimit_get_ucounts", .role = EXECNS_PROOF_GLOBAL },
	/* SYSCALL_DEFINE's body, inlined into each ABI's wrapper. */
	[EXECNS_FN_DO_SYS_UNSHARE] = { .name = "__do_sys_unshare", .role = EXECNS_PROOF_LOCAL },
	[EXECNS_FN_SYS_UNSHARE] = { .name = EXECNS_ARCH_SYS_UNSHARE, .role = EXECNS_PROOF_GLOBAL },
	[EXECNS_FN_COMPAT_SYS_UNSHARE] = { .name = EXECNS_ARCH_COMPAT_SYS_UNSHARE, .role = EXECNS_PROOF_LOCAL },
};

/* @caller's source calls @callee @calls times (0: not in this release). */
struct execns_proof_edge {
	u8 caller;
	u8 callee;
	u8 calls;
};

static const struct execns_proof_edge execns_proof_edges[] = {
	{ EXECNS_FN_GET_UCOUNTS, EXECNS_FN_PUT_UCOUNTS, EXECNS_PROOF_UCOUNTS_PUT_ON_WRAP },
	{ EXECNS_FN_ALLOC_UCOUNTS, EXECNS_FN_PUT_UCOUNTS, EXECNS_PROOF_UCOUNTS_PUT_ON_WRAP },
	{ EXECNS_FN_INC_UCOUNT, EXECNS_FN_ALLOC_UCOUNTS, 1 },
	{ EXECNS_FN_INC_UCOUNT, EXECNS_FN_PUT_UCOUNTS, 1 },
	{ EXECNS_FN_DEC_UCOUNT, EXECNS_FN_PUT_UCOUNTS, 1 },
	{ EXECNS_FN_DO_DEC_RLIMIT, EXECNS_FN_PUT_UCOUNTS, 1 },
	{ EXECNS_FN_DEC_RLIMIT, EXECNS_FN_DO_DEC_RLIMIT, 1 },
	{ EXECNS_FN_INC_RLIMIT, EXECNS_FN_GET_UCOUNTS, 1 },
	{ EXECNS_FN_INC_RLIMIT, EXECNS_FN_DO_DEC_RLIMIT, EXECNS_PROOF_RLIMIT_UNWINDS },
	{ EXECNS_FN_SYS_UNSHARE, EXECNS_FN_DO_SYS_UNSHARE, 1 },
	{ EXECNS_FN_COMPAT_SYS_UNSHARE, EXECNS_FN_DO_SYS_UNSHARE, 1 },
	{ EXECNS_FN_DO_SYS_UNSHARE, EXECNS_FN_KSYS_UNSHARE, 1 },
};

/* The report: written by init only, then read by /proc/execns/proof. */
static char execns_proof_report[8192];	/* about 3 KiB on the kernels tested */
static size_t execns_proof_len;
static unsigned int execns_proof_checks, execns_proof_failures;
static bool execns_proof_ok;

static __printf(2, 3) void execns_proof_line(bool ok, const char *fmt, ...)
{
	char *line = execns_proof_report + execns_proof_len;
	size_t room = sizeof(execns_proof_report) - execns_proof_len;
	va_list args;
	size_t n;

	execns_proof_checks++;
	if (!ok)
		execns_proof_failures++;
	n = scnprintf(line, room, "%s ", ok ? "ok" : "FAIL");
	va_start(args, fmt);
	n += vscnprintf(line + n, room - n, fmt, args);
	va_end(args);
	if (!ok)	/* one dmesg line per unproven check */
		pr_warn("uid tables refused: %s\n", line + 5);
	n += scnprintf(line + n, room - n, "\n");
	execns_proof_len += n;
}

/* One symbol of vmlinux: is it a hooked function or caller, or a copy? */
static EXECNS_KALLSYMS_FN(execns_proof_symbol, data, name, addr)
{
	struct execns_proof_fn *f;
	const char *rest;
	size_t len;

	for (f = execns_proof_fns; f < execns_proof_fns + EXECNS_FN_COUNT; f++) {
		if (f->mark && !strcmp(name, f->mark))
			f->mark_addr = addr;
		if (!f->name || name[0] != f->name[0])
			continue;
		len = strlen(f->name);
		if (strncmp(name, f->name, len))
			continue;
		rest = name + len;
		if (!*rest) {
			f->copies++;
			f->addr = addr;
		} else if (!strcmp(rest, ".cold")) {
			f->cold = addr;
		} else if (*rest == '.') {
			if (f->nclones < EXECNS_PROOF_CLONES) {
				f->clone[f->nclones] = addr;
				strscpy(f->clone_name[f->nclones], name, EXECNS_PROOF_NAME);
			}
			f->nclones++;
		}
	}
	return 0;
}

/* Direct branches from the function at @from (and its .cold part, @cold) to @to. */
static int execns_proof_count(unsigned long from, unsigned long cold, unsigned long to)
{
	unsigned long size, off, base;
	unsigned int i, n = 0;
	u8 *code;

	for (i = 0; i < 2; i++) {
		base = i ? cold : from;
		if (!base)
			continue;
		if (!execns_call(kallsyms_lookup_size_offset)(base, &size, &off) || off ||
		    size > EXECNS_PROOF_MAX_TEXT)
			return -E2BIG;
		code = kmalloc(size, GFP_KERNEL);
		if (!code)
			return -ENOMEM;
		if (copy_from_kernel_nofault(code, (void *)base, size)) {
			kfree(code);
			return -EFAULT;
		}
		n += execns_count_branches(code, size, base,
						to - EXECNS_ARCH_ENTRY_BEFORE,
						to + EXECNS_ARCH_ENTRY_AFTER);
		kfree(code);
	}
	return n;
}

/* Branches from @from to @g's entry, or to a clone of @g (checked itself). */
static int execns_proof_branches(unsigned long from, unsigned long cold,
				 const struct execns_proof_fn *g)
{
	int n = 0, ret;
	unsigned int i;

	if (g->addr) {
		n = execns_proof_count(from, cold, g->addr);
		if (n < 0)
			return n;
	}
	for (i = 0; g->role != EXECNS_PROOF_HOOKED &&
		    i < min_t(unsigned int, g->nclones, EXECNS_PROOF_CLONES); i++) {
		ret = execns_proof_count(from, cold, g->clone[i]);
		if (ret < 0)
			return ret;
		n += ret;
	}
	return n;
}

/* What one caller's text must hold, per hooked function. */
struct execns_proof_need {
	unsigned long from, cold;
	unsigned int calls[EXECNS_FN_COUNT];	/* hooked: entry branches needed */
	unsigned int used[EXECNS_FN_COUNT];	/* others: branches accounted for */
	unsigned long inlined;			/* callees found inlined */
	int err;
};

/*
 * @need's caller makes @n calls to @g.  Calls to a hooked function must
 * be branches to its entry.  Calls to another caller are branches to it
 * (which is then checked on its own), or were inlined: then that callee's
 * own calls are this caller's to make.  The graph is acyclic and three
 * deep at most.
 */
static void execns_proof_demand(struct execns_proof_need *need, unsigned int g, unsigned int n)
{
	const struct execns_proof_edge *e;
	int b;

	if (!n)
		return;
	if (execns_proof_fns[g].role == EXECNS_PROOF_HOOKED) {
		need->calls[g] += n;
		return;
	}
	b = execns_proof_branches(need->from, need->cold, &execns_proof_fns[g]);
	if (b < 0) {
		need->err = b;
		return;
	}
	b = max(b - (int)need->used[g], 0);
	b = min_t(int, b, n);
	need->used[g] += b;
	n -= b;
	if (!n)
		return;
	need->inlined |= BIT(g);
	for (e = execns_proof_edges; e < execns_proof_edges + ARRAY_SIZE(execns_proof_edges); e++)
		if (e->caller == g)
			execns_proof_demand(need, e->callee, n * e->calls);
}

/* The names of the callers @mask says were inlined, for the report. */
static void execns_proof_names(char *buf, size_t len, unsigned long mask)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for_each_set_bit(i, &mask, EXECNS_FN_COUNT)
		n += scnprintf(buf + n, len - n, "%s%s", n ? ", " : " (inlined: ",
			       execns_proof_fns[i].name);
	if (n)
		scnprintf(buf + n, len - n, ")");
}

/*
 * Hooked function @h has a mark: @label's text holds a copy of @h exactly
 * when it calls the mark.  Fewer entry branches than source calls, with
 * no mark, are calls the compiler merged into one branch.
 */
static void execns_proof_marked(struct execns_proof_need *need, const char *label,
				unsigned int h, int found, const char *inlined)
{
	const struct execns_proof_fn *f = &execns_proof_fns[h];
	int marks;

	if (!f->mark_addr) {
		execns_proof_line(false, "site: %s: %s, the mark of a copy of %s, is not in the symbol table",
				  label, f->mark, f->name);
		return;
	}
	marks = execns_proof_count(need->from, need->cold, f->mark_addr);
	if (marks < 0) {
		need->err = marks;
		return;
	}
	if (marks)
		execns_proof_line(false, "site: %s holds an inlined copy of %s (it calls %s %d times)",
				  label, f->name, f->mark, marks);
	else if (!found)
		execns_proof_line(false, "site: %s never calls %s through its entry, where its source calls it %u times",
				  label, f->name, need->calls[h]);
	else
		execns_proof_line(true, "site: %s calls %s through its entry %d times for %u calls%s%s, and holds no copy (no call to %s)",
				  label, f->name, found, need->calls[h],
				  found < need->calls[h] ? ", merged" : "", inlined, f->mark);
}

/* Check one copy of caller @c (the function itself or a clone) at @from. */
static void execns_proof_caller(unsigned int c, const char *label, unsigned long from,
				unsigned long cold)
{
	struct execns_proof_need *need;
	const struct execns_proof_edge *e;
	char inlined[160];
	unsigned int h;
	bool any;
	int found;

	need = kzalloc(sizeof(*need), GFP_KERNEL);
	if (!need) {
		execns_proof_line(false, "site: %s: out of memory", label);
		return;
	}
	need->from = from;
	need->cold = cold;
	for (e = execns_proof_edges; e < execns_proof_edges + ARRAY_SIZE(execns_proof_edges); e++)
		if (e->caller == c)
			execns_proof_demand(need, e->callee, e->calls);
	execns_proof_names(inlined, sizeof(inlined), need->inlined);
	for (h = 0, any = false; h < EXECNS_FN_COUNT && !need->err; h++) {
		if (!need->calls[h])
			continue;
		any = true;
		found = execns_proof_branches(from, cold, &execns_proof_fns[h]);
		if (found < 0) {
			need->err = found;
			break;
		}
		if (execns_proof_fns[h].mark)
			execns_proof_marked(need, label, h, found, inlined);
		else
			execns_proof_line(found >= need->calls[h],
					  "site: %s calls %s through its entry %d of %u times%s",
					  label, execns_proof_fns[h].name, found, need->calls[h],
					  found >= need->calls[h] ? inlined :
					  " (the others were inlined, or reach a copy without the hook)");
	}
	if (need->err)
		execns_proof_line(false, "site: %s: cannot read its text (%d)", label, need->err);
	else if (!any)
		execns_proof_line(true, "site: %s reaches hooked functions only through callers checked on their own",
				  label);
	kfree(need);
}

static bool execns_proof_is_caller(unsigned int c)
{
	const struct execns_proof_edge *e;

	for (e = execns_proof_edges; e < execns_proof_edges + ARRAY_SIZE(execns_proof_edges); e++)
		if (e->caller == c && e->calls)
			return true;
	return false;
}

static void execns_proof_sites(void)
{
	const struct execns_proof_fn *f;
	unsigned int c, i;

	for (c = 0; c < EXECNS_FN_COUNT; c++) {
		f = &execns_proof_fns[c];
		if (!f->name || !execns_proof_is_caller(c))
			continue;
		if (f->addr)
			execns_proof_caller(c, f->name, f->addr, f->cold);
		else if (f->role != EXECNS_PROOF_LOCAL)
			execns_proof_line(false, "site: %s is not in the symbol table (renamed or inlined: this kernel's callers are not the ones listed for %s)",
					  f->name, EXECNS_PROOF_RELEASE);
		if (f->role == EXECNS_PROOF_HOOKED || !f->nclones)
			continue;
		if (f->nclones > EXECNS_PROOF_CLONES) {
			execns_proof_line(false, "site: %s has %u clones, more than the proof reads",
					  f->name, f->nclones);
			continue;
		}
		for (i = 0; i < f->nclones; i++)
			execns_proof_caller(c, f->clone_name[i], f->clone[i], 0);
	}
}

static void execns_proof_copies(void)
{
	const struct execns_proof_fn *f;

	for (f = execns_proof_fns; f < execns_proof_fns + EXECNS_FN_COUNT; f++) {
		if (f->role != EXECNS_PROOF_HOOKED)
			continue;
		if (f->nclones)
			execns_proof_line(false, "copies: %s has a compiler clone, %s%s, that callers reach without passing its hook",
					  f->name, f->clone_name[0],
					  f->nclones > 1 ? " and more" : "");
		else if (f->copies != 1)
			execns_proof_line(false, "copies: %u functions in the symbol table are named %s",
					  f->copies, f->name);
		else
			execns_proof_line(true, "copies: %s is one function, with no clone", f->name);
	}
}

/*
 * The checks that need no text: false when the rest cannot run.  LTO fails
 * the proof but not the walk: the copies and sites it still checks name
 * the inlining the linker did do, for the reader of dmesg.
 */
static bool execns_proof_config(void)
{
	bool ok = true;

	if (EXECNS_PROOF_LTO)
		execns_proof_line(false, "config: CONFIG_LTO_CLANG: the linker may have inlined a hooked function into a caller in any file, and the proof knows same-file callers only");
	else
		execns_proof_line(true, "config: no link-time optimisation: calls into another file are never inlined");
	if (!EXECNS_PROOF_RELEASE) {
		execns_proof_line(false, "config: %s is not a release whose callers the proof lists (%s; module/compat.h)",
				  init_utsname()->release, EXECNS_PROOF_RELEASES);
		ok = false;
	} else {
		execns_proof_line(true, "config: %s: callers listed for %s",
				  init_utsname()->release, EXECNS_PROOF_RELEASE);
	}
	if (!execns_have(kallsyms_on_each_symbol) || !execns_have(kallsyms_lookup_size_offset)) {
		execns_proof_line(false, "config: kallsyms_on_each_symbol or kallsyms_lookup_size_offset not found: cannot read the symbol table");
		ok = false;
	}
	return ok;
}

void execns_proof_init(void)
{
	if (execns_proof_config()) {
		execns_call(kallsyms_on_each_symbol)(execns_proof_symbol, NULL);
		execns_proof_copies();
		execns_proof_sites();
	}
	execns_proof_ok = !execns_proof_failures;
	if (execns_proof_ok)
		pr_info("load-time proof: %u checks passed: uid tables available\n",
			execns_proof_checks);
	else
		pr_warn("load-time proof: %u of %u checks failed: uid tables and forbid_unshare refused with EOPNOTSUPP (/proc/execns/proof; docs/design.md)\n",
			execns_proof_failures, execns_proof_checks);
}

bool execns_proof_passed(void)
{
	return execns_proof_ok;
}

void execns_proof_show(struct seq_file *m)
{
	seq_write(m, execns_proof_report, execns_proof_len);
	seq_printf(m, "verdict %s\n", execns_proof_ok ? "proven" : "refused");
}
