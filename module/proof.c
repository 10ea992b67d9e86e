// SPDX-License-Identifier: GPL-2.0
/*
 * The load-time proof (see proof.h).  Four kinds of check, each one line
 * of /proc/execns/proof, each ending in what its failure costs:
 *
 *  config: the kernel was built without link-time optimisation, which
 *	inlines across files; the symbol-table walkers the proof uses were
 *	resolved.
 *  copies: one walk of vmlinux's symbol table finds every symbol named
 *	after a hooked function or a kernel object uid tables use.  There
 *	must be exactly one of the name, and no "NAME.SUFFIX" copy (.part.N,
 *	.isra.N, .constprop.N: GCC's clones) except NAME.cold, the
 *	function's own unlikely code, entered from it.
 *  sites: without LTO, GCC inlines a function only into callers in its
 *	own file.  The hooked functions' same-file callers are listed below,
 *	with the number of calls each one's source makes.  Each such caller
 *	in the symbol table must branch to the hooked entry at least that
 *	often, where the calls of a callee it inlined count as its own.  A
 *	clone of a caller is checked as the caller.
 *
 *  text: one scan of the core kernel text (textscan.c) lists the callers
 *	of each hooked function and judges every function that names a
 *	signature (a lock the hooked functions take, a function only they
 *	call): see execns_proof_text().
 *
 * No hooked function releases anything (uidhooks.c): a path around a hook
 * gives a task the kernel's object instead of its table's, which costs
 * accounting, never memory.  So most failures leave uid tables offered
 * and name the counters that may stay global ("verdict partial"); only
 * what uid tables cannot work without refuses them (the hand-over's
 * commit_creds(), the kernel's lock and cache), and forbid_unshare, a
 * security switch, is refused when its own hook is unproven.
 *
 * Ordering: the proof runs in init before any hook is initialised and
 * before the syscall and /proc/execns exist; its results are written once
 * and read afterwards without locks.
 */
#include <linux/kernel.h>
#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/kallsyms.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/seq_file.h>
#include <linux/kprobes.h>
#include "arch.h"
#include "symbols.h"
#include "proof.h"
#include "textscan.h"
#include "fault.h"
#include "uapi/execns.h"

/* Functions larger than this are not read (none of the listed is near). */
#define EXECNS_PROOF_MAX_TEXT	SZ_64K
#define EXECNS_PROOF_CLONES	4
#define EXECNS_PROOF_NAME	64

enum execns_proof_role {
	EXECNS_PROOF_HOOKED,	/* has a hook at its entry */
	EXECNS_PROOF_GLOBAL,	/* a caller that other files call: in the symbol table */
	EXECNS_PROOF_LOCAL,	/* a caller that may have been inlined away */
	EXECNS_PROOF_DATA,	/* a kernel object uid tables use: one of the name */
	EXECNS_PROOF_MARK,	/* a function only hooked functions call (the text scan) */
};

/* What a failed check about a function costs. */
enum execns_proof_cost {
	EXECNS_COST_NONE,	/* callers: their hooked callee says */
	EXECNS_COST_ACCOUNTING,	/* tables offered, some counters may stay global */
	EXECNS_COST_TABLES,	/* uid tables refused */
	EXECNS_COST_FORBID,	/* forbid_unshare refused */
};

struct execns_proof_fn {
	const char *name;	/* NULL: not on this architecture */
	enum execns_proof_role role;
	enum execns_proof_cost cost;
	const char *global;	/* ACCOUNTING: what may stay global */
	/* From the symbol-table walk: */
	unsigned long addr;
	unsigned int copies;
	unsigned long cold;
	unsigned int nclones;
	unsigned long clone[EXECNS_PROOF_CLONES];
	char clone_name[EXECNS_PROOF_CLONES][EXECNS_PROOF_NAME];
	const char *found;	/* DATA not counted by the walk: how it was found */
};

enum {
	/* Hooked (uidhooks.c, handover.c, unshare.c). */
	EXECNS_FN_ALLOC_UID,
	EXECNS_FN_FIND_USER,
	EXECNS_FN_ALLOC_UCOUNTS,
	EXECNS_FN_COMMIT_CREDS,
	EXECNS_FN_KSYS_UNSHARE,
	/*
	 * The callers that make credentials' ucounts (kernel/cred.c), the only
	 * ones alloc_ucounts() is redirected for, and the same-file callers of
	 * ksys_unshare() (kernel/fork.c).
	 */
	EXECNS_FN_SET_CRED_UCOUNTS,
	EXECNS_FN_COPY_CREDS,
	EXECNS_FN_DO_SYS_UNSHARE,
	EXECNS_FN_SYS_UNSHARE,
	EXECNS_FN_COMPAT_SYS_UNSHARE,
	/* The kernel's own lock and cache a table's objects are made with. */
	EXECNS_FN_UIDHASH_LOCK,
	EXECNS_FN_UCOUNTS_LOCK,
	EXECNS_FN_UID_CACHEP,
	/*
	 * Marks: functions that, in the kernel's source, only a hooked
	 * function calls, from another file (so every copy of the hooked
	 * function must branch to them).
	 */
	EXECNS_FN_UNSHARE_NSPROXY,
	EXECNS_FN_PROC_ID_CONNECTOR,
	EXECNS_FN_COUNT
};

#define EXECNS_USER_COUNTERS "epoll_watches, pipe_bufs, unix_inflight, locked_vm, nr_watches"
#define EXECNS_RLIMIT_COUNTERS "nproc, sigpending, msgqueue, memlock"

/*
 * kernel/user.c has no caller of alloc_uid() or find_user(), nor
 * kernel/cred.c of commit_creds(): those are called from other files only.
 * alloc_ucounts() is called from kernel/cred.c's set_cred_ucounts(), which
 * kernel/cred.c's copy_creds() calls for clone(CLONE_NEWUSER) (and GCC
 * inlines there on Debian's 6.1, 6.12 and 7.3), and from kernel/ucount.c's
 * inc_ucount(), whose calls must reach the kernel's own alloc_ucounts().
 */
static struct execns_proof_fn execns_proof_fns[EXECNS_FN_COUNT] = {
	[EXECNS_FN_ALLOC_UID] = { .name = "alloc_uid", .role = EXECNS_PROOF_HOOKED,
		.cost = EXECNS_COST_ACCOUNTING,
		.global = "after setuid() in a table: " EXECNS_USER_COUNTERS ", "
			  EXECNS_RLIMIT_COUNTERS },
	[EXECNS_FN_FIND_USER] = { .name = "find_user", .role = EXECNS_PROOF_HOOKED,
		.cost = EXECNS_COST_ACCOUNTING,
		.global = "the users PRIO_USER and IOPRIO_WHO_USER look up" },
	/* Nameless where credentials have no ucounts (compat.h): not checked. */
	[EXECNS_FN_ALLOC_UCOUNTS] = { .name = EXECNS_CRED_UCOUNTS ? "alloc_ucounts" : NULL,
		.role = EXECNS_PROOF_HOOKED,
		.cost = EXECNS_COST_ACCOUNTING,
		.global = "for credentials a table's tasks change: " EXECNS_RLIMIT_COUNTERS },
	[EXECNS_FN_COMMIT_CREDS] = { .name = "commit_creds", .role = EXECNS_PROOF_HOOKED,
		.cost = EXECNS_COST_TABLES },
	[EXECNS_FN_KSYS_UNSHARE] = { .name = "ksys_unshare", .role = EXECNS_PROOF_HOOKED,
		.cost = EXECNS_COST_FORBID },
	[EXECNS_FN_SET_CRED_UCOUNTS] = { .name = EXECNS_CRED_UCOUNTS ? "set_cred_ucounts" : NULL,
		.role = EXECNS_PROOF_GLOBAL },
	[EXECNS_FN_COPY_CREDS] = { .name = "copy_creds", .role = EXECNS_PROOF_GLOBAL },
	/* SYSCALL_DEFINE's body, inlined into each ABI's wrapper. */
	[EXECNS_FN_DO_SYS_UNSHARE] = { .name = "__do_sys_unshare", .role = EXECNS_PROOF_LOCAL },
	[EXECNS_FN_SYS_UNSHARE] = { .name = EXECNS_ARCH_SYS_UNSHARE, .role = EXECNS_PROOF_GLOBAL },
	[EXECNS_FN_COMPAT_SYS_UNSHARE] = { .name = EXECNS_ARCH_COMPAT_SYS_UNSHARE,
		.role = EXECNS_PROOF_LOCAL },
	[EXECNS_FN_UIDHASH_LOCK] = { .name = "uidhash_lock", .role = EXECNS_PROOF_DATA,
		.cost = EXECNS_COST_TABLES },
	[EXECNS_FN_UCOUNTS_LOCK] = { .name = EXECNS_CRED_UCOUNTS ? "ucounts_lock" : NULL,
		.role = EXECNS_PROOF_DATA,
		.cost = EXECNS_COST_TABLES },
	[EXECNS_FN_UID_CACHEP] = { .name = "uid_cachep", .role = EXECNS_PROOF_DATA,
		.cost = EXECNS_COST_TABLES },
	[EXECNS_FN_UNSHARE_NSPROXY] = { .name = "unshare_nsproxy_namespaces",
		.role = EXECNS_PROOF_MARK },
	/* CONFIG_PROC_EVENTS only. */
	[EXECNS_FN_PROC_ID_CONNECTOR] = { .name = "proc_id_connector", .role = EXECNS_PROOF_MARK },
};

/* @caller's source calls @callee @calls times. */
struct execns_proof_edge {
	u8 caller;
	u8 callee;
	u8 calls;
};

static const struct execns_proof_edge execns_proof_edges[] = {
	{ EXECNS_FN_COPY_CREDS, EXECNS_FN_SET_CRED_UCOUNTS, 1 },
	{ EXECNS_FN_SET_CRED_UCOUNTS, EXECNS_FN_ALLOC_UCOUNTS, 1 },
	{ EXECNS_FN_SYS_UNSHARE, EXECNS_FN_DO_SYS_UNSHARE, 1 },
	{ EXECNS_FN_COMPAT_SYS_UNSHARE, EXECNS_FN_DO_SYS_UNSHARE, 1 },
	{ EXECNS_FN_DO_SYS_UNSHARE, EXECNS_FN_KSYS_UNSHARE, 1 },
};

/* The report: written by init only, then read by /proc/execns/proof. */
static char execns_proof_report[16384];	/* 2.5 to 3.5 KiB on the kernels tested */
static size_t execns_proof_len;
static unsigned int execns_proof_checks, execns_proof_failures;
static unsigned int execns_proof_dropped;	/* lines the report had no room for */
static unsigned long execns_proof_costs;	/* BIT(cost) of each failed check */

static const char *const execns_proof_cost_text[] = {
	[EXECNS_COST_NONE] = "",
	[EXECNS_COST_ACCOUNTING] = EXECNS_PROOF_COSTS_ACCOUNTING,
	[EXECNS_COST_TABLES] = EXECNS_PROOF_REFUSES_TABLES,
	[EXECNS_COST_FORBID] = EXECNS_PROOF_REFUSES_FORBID,
};

/*
 * One check: a line of the report, which stops growing when full (the
 * count still counts), and one dmesg line for a failure, with what it
 * costs.  @global: for an accounting cost, what may stay global.
 */
static __printf(4, 5) void execns_proof_line(bool ok, enum execns_proof_cost cost,
					     const char *global, const char *fmt, ...)
{
	static char line[1024];	/* init only: one caller at a time */
	va_list args;
	size_t n;

	execns_proof_checks++;
	va_start(args, fmt);
	n = vscnprintf(line, sizeof(line), fmt, args);
	va_end(args);
	if (!ok) {
		execns_proof_failures++;
		execns_proof_costs |= BIT(cost);
		n += scnprintf(line + n, sizeof(line) - n, "%s", execns_proof_cost_text[cost]);
		if (cost == EXECNS_COST_ACCOUNTING)
			scnprintf(line + n, sizeof(line) - n, "%s" EXECNS_PROOF_MAY_STAY_GLOBAL,
				  global);
		pr_warn("load-time proof: %s\n", line);
	}
	/* Whole lines only; the ones that do not fit are counted (and logged if failed). */
	n = strlen(line) + sizeof(EXECNS_PROOF_FAIL " ");	/* "FAIL", a space, the newline */
	if (execns_proof_len + n >= execns_fault_report_cap(sizeof(execns_proof_report))) {
		execns_proof_dropped++;
		return;
	}
	execns_proof_len += scnprintf(execns_proof_report + execns_proof_len,
				      sizeof(execns_proof_report) - execns_proof_len,
				      "%s %s\n", ok ? EXECNS_PROOF_OK : EXECNS_PROOF_FAIL, line);
}

/* A failed check about @f costs what @f's hook, or its hooked callee's, does. */
#define execns_proof_fn_line(ok, f, fmt, ...) do {				\
	const struct execns_proof_fn *__f = (f);				\
										\
	execns_proof_line(ok, __f->cost, __f->global, fmt, ##__VA_ARGS__);	\
} while (0)

/* One symbol of vmlinux: is it a hooked function or caller, or a copy? */
static EXECNS_KALLSYMS_FN(execns_proof_symbol, data, name, addr)
{
	struct execns_proof_fn *f;
	const char *rest;
	size_t len;

	for (f = execns_proof_fns; f < execns_proof_fns + EXECNS_FN_COUNT; f++) {
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

/*
 * Every symbol of vmlinux through execns_proof_symbol(), or where the
 * kernel has no kallsyms_on_each_symbol() (Debian 11's arm64: 5.10 builds
 * it for livepatch only), every text symbol: such a kernel has no
 * CONFIG_KALLSYMS_ALL, so its table holds no data symbols to miss.
 */
static void execns_proof_walk(void)
{
	static char name[KSYM_NAME_LEN];	/* init only */
	unsigned long addr;

	if (execns_have(kallsyms_on_each_symbol)) {
		execns_call(kallsyms_on_each_symbol)(execns_proof_symbol, NULL);
		return;
	}
	for (addr = execns_next_text_symbol(0, name); addr;
	     addr = execns_next_text_symbol(addr, name))
		execns_kallsyms_fn_call(execns_proof_symbol, NULL, name, addr);
}

/*
 * A copy of the whole function starting at @start, its size in *@size
 * (kfree() it), or an ERR_PTR: not a function's start, larger than the
 * proof reads, no memory, or text that cannot be read.
 */
static u8 *execns_proof_read_fn(unsigned long start, unsigned long *size)
{
	unsigned long off;
	u8 *code;

	if (!execns_call(kallsyms_lookup_size_offset)(start, size, &off) || off ||
	    *size > EXECNS_PROOF_MAX_TEXT)
		return ERR_PTR(-E2BIG);
	code = kmalloc(*size, GFP_KERNEL);
	if (!code)
		return ERR_PTR(-ENOMEM);
	if (copy_from_kernel_nofault(code, (void *)start, *size)) {
		kfree(code);
		return ERR_PTR(-EFAULT);
	}
	return code;
}

/* Direct branches from the function at @from (and its .cold part, @cold) to @to. */
static int execns_proof_count(unsigned long from, unsigned long cold, unsigned long to)
{
	unsigned long size, base;
	unsigned int i, n = 0;
	u8 *code;

	for (i = 0; i < 2; i++) {
		base = i ? cold : from;
		if (!base)
			continue;
		code = execns_proof_read_fn(base, &size);
		if (IS_ERR(code))
			return PTR_ERR(code);
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

	/* A function this kernel does not have is called by no one. */
	if (!n || !execns_proof_fns[g].name)
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
		execns_proof_line(false, EXECNS_COST_TABLES, NULL, "site: %s: out of memory",
				  label);
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
		execns_proof_fn_line(found >= need->calls[h], &execns_proof_fns[h],
				     "site: %s calls %s through its entry %d of %u times%s",
				     label, execns_proof_fns[h].name, found, need->calls[h],
				     found >= need->calls[h] ? inlined :
				     " (the others were inlined, or reach a copy without the hook)");
	}
	if (need->err)
		execns_proof_line(false, EXECNS_COST_TABLES, NULL,
				  "site: %s: cannot read its text (%d)", label, need->err);
	else if (!any)
		execns_proof_line(true, EXECNS_COST_NONE, NULL,
				  "site: %s reaches hooked functions only through callers checked on their own",
				  label);
	kfree(need);
}

static bool execns_proof_is_caller(unsigned int c)
{
	const struct execns_proof_edge *e;

	for (e = execns_proof_edges; e < execns_proof_edges + ARRAY_SIZE(execns_proof_edges); e++)
		if (e->caller == c && e->calls && execns_proof_fns[e->callee].name)
			return true;
	return false;
}

/* The hooked function a caller's failure is about (its first callee's). */
static const struct execns_proof_fn *execns_proof_hooked_of(unsigned int c)
{
	const struct execns_proof_edge *e;

	if (execns_proof_fns[c].role == EXECNS_PROOF_HOOKED)
		return &execns_proof_fns[c];
	for (e = execns_proof_edges; e < execns_proof_edges + ARRAY_SIZE(execns_proof_edges); e++)
		if (e->caller == c)
			return execns_proof_hooked_of(e->callee);
	return &execns_proof_fns[c];
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
			execns_proof_fn_line(false, execns_proof_hooked_of(c),
					     "site: %s is not in the symbol table (renamed or inlined: its calls cannot be checked)",
					     f->name);
		if (f->role == EXECNS_PROOF_HOOKED || !f->nclones)
			continue;
		if (f->nclones > EXECNS_PROOF_CLONES) {
			execns_proof_fn_line(false, execns_proof_hooked_of(c),
					     "site: %s has %u clones, more than the proof reads",
					     f->name, f->nclones);
			continue;
		}
		for (i = 0; i < f->nclones; i++)
			execns_proof_caller(c, f->clone_name[i], f->clone[i], 0);
	}
}

/*
 * The kernel objects the walk could not count: where the symbol table has
 * no data symbols, observe.c watched the kernel use its lock and cache;
 * where the walk read text symbols only (no kallsyms_on_each_symbol) but
 * symbols.c found one by name, that lookup stands.  A lock's address
 * stands in for its symbol (the text scan's mark); uid_cachep's own
 * address is never needed.
 */
static void execns_proof_uncounted(void)
{
	static const struct {
		unsigned int fn;
		const void *const *addr;
		bool watched;
	} objs[] = {
		{ EXECNS_FN_UIDHASH_LOCK, (const void *const *)&execns_syms.uidhash_lock, true },
		{ EXECNS_FN_UCOUNTS_LOCK, (const void *const *)&execns_syms.ucounts_lock, false },
		{ EXECNS_FN_UID_CACHEP, (const void *const *)&execns_syms.uid_cachep, true },
	};
	static const char by_watching[] =
		"it has no data symbols): found by watching alloc_uid() and free_uid() use it";
	static const char by_name[] =
		"the walk of text symbols cannot count data symbols): found by name";
	struct execns_proof_fn *f;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		f = &execns_proof_fns[objs[i].fn];
		if (!f->name || f->copies)
			continue;
		if (execns_syms.user_objs_observed && objs[i].watched)
			f->found = by_watching;
		else if (!execns_have(kallsyms_on_each_symbol) && *objs[i].addr)
			f->found = by_name;
		else
			continue;
		f->addr = (unsigned long)*objs[i].addr;
		f->copies = !!f->addr;
	}
}

static void execns_proof_copies(void)
{
	const struct execns_proof_fn *f;
	const char *kind;

	for (f = execns_proof_fns; f < execns_proof_fns + EXECNS_FN_COUNT; f++) {
		if (!f->name || (f->role != EXECNS_PROOF_HOOKED && f->role != EXECNS_PROOF_DATA))
			continue;
		kind = f->role == EXECNS_PROOF_DATA ? "symbols" : "functions";
		if (f->found)
			execns_proof_fn_line(true, f, "copies: %s is not in the walk (%s",
					     f->name, f->found);
		else if (f->nclones && f->role == EXECNS_PROOF_HOOKED)
			execns_proof_fn_line(false, f,
					     "copies: %s has a compiler clone, %s%s, that callers reach without passing its hook",
					     f->name, f->clone_name[0],
					     f->nclones > 1 ? " and more" : "");
		else if (f->copies != 1)
			execns_proof_fn_line(false, f,
					     "copies: %u %s in the symbol table are named %s",
					     f->copies, kind, f->name);
		else
			execns_proof_fn_line(true, f, "copies: %s is one %s%s", f->name,
					     kind[0] == 's' ? "symbol" : "function",
					     kind[0] == 's' ? "" : ", with no clone");
	}
}

/*
 * The checks that need no text: false when the rest cannot run.  LTO leaves
 * every hook unproven, but the copies and sites it still checks name the
 * inlining the linker did do, for the reader of dmesg.
 */
static bool execns_proof_config(void)
{
	bool ok = true;

	if (EXECNS_PROOF_LTO) {
		execns_proof_line(false, EXECNS_COST_ACCOUNTING,
				  "any counter a table keeps",
				  "config: CONFIG_LTO_CLANG: the linker may have inlined a hooked function into a caller in any file, and the proof knows same-file callers only");
		execns_proof_line(false, EXECNS_COST_FORBID, NULL,
				  "config: CONFIG_LTO_CLANG: ksys_unshare() may have a caller in another file that holds a copy of it");
	} else {
		execns_proof_line(true, EXECNS_COST_NONE, NULL,
				  "config: no link-time optimisation: calls into another file are never inlined");
	}
	if (!execns_have(kallsyms_lookup_size_offset)) {
		execns_proof_line(false, EXECNS_COST_TABLES, NULL,
				  "config: kallsyms_lookup_size_offset not found: cannot read the symbol table");
		execns_proof_costs |= BIT(EXECNS_COST_FORBID);
		ok = false;
	} else if (!execns_have(kallsyms_on_each_symbol)) {
		execns_proof_line(true, EXECNS_COST_NONE, NULL,
				  "config: no kallsyms_on_each_symbol: the proof walks the text symbols from _stext to _etext, each found from the one before by its size");
	}
	return ok;
}

/*
 * The text of the functions that make credentials' ucounts: each copy of
 * set_cred_ucounts() and copy_creds() (clones and .cold parts included).
 * alloc_ucounts() is redirected only for calls from there (uidhooks.c).
 */
#define EXECNS_PROOF_CRED_RANGES	(2 * (EXECNS_PROOF_CLONES + 2))
static struct {
	unsigned long start, end;
} execns_proof_cred_text[EXECNS_PROOF_CRED_RANGES];
static unsigned int execns_proof_ncred;

static void execns_proof_cred_range(unsigned long addr)
{
	unsigned long size, off;

	if (!addr || execns_proof_ncred == EXECNS_PROOF_CRED_RANGES ||
	    !execns_call(kallsyms_lookup_size_offset)(addr, &size, &off) || off)
		return;
	execns_proof_cred_text[execns_proof_ncred].start = addr;
	execns_proof_cred_text[execns_proof_ncred].end = addr + size;
	execns_proof_ncred++;
}

static void execns_proof_cred_callers(void)
{
	static const unsigned int fns[] = { EXECNS_FN_SET_CRED_UCOUNTS, EXECNS_FN_COPY_CREDS };
	const struct execns_proof_fn *f;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(fns); i++) {
		f = &execns_proof_fns[fns[i]];
		execns_proof_cred_range(f->addr);
		execns_proof_cred_range(f->cold);
		for (j = 0; j < min_t(unsigned int, f->nclones, EXECNS_PROOF_CLONES); j++)
			execns_proof_cred_range(f->clone[j]);
	}
}

/* notrace and lockless: alloc_ucounts()'s hook callback asks it. */
bool notrace execns_proof_cred_caller(unsigned long ip)
{
	unsigned int i;

	for (i = 0; i < execns_proof_ncred; i++)
		if (ip >= execns_proof_cred_text[i].start && ip < execns_proof_cred_text[i].end)
			return true;
	return false;
}

NOKPROBE_SYMBOL(execns_proof_cred_caller);

/*
 * The text scan (textscan.c): read the kernel's own text for every
 * function that branches to a hooked entry (the callers, listed as
 * evidence) and for every function that names a signature: an object each
 * copy of a hooked function must name, so that a copy the symbol table
 * does not show (inlined into a caller a backport added, say) is found by
 * what its code does.  Every function naming a signature must be one of
 * its hooked functions or a release the kernel runs as it wrote it (those
 * never reach a hook: uidhooks.c); any other may hold a copy that runs
 * without the hook, which costs what that hook's failure costs.  And each
 * hooked function must itself be found naming its signature, or the scan
 * cannot read this kernel's code, and says so.
 */
struct execns_proof_sig {
	u8 mark;		/* a lock the hooked functions take, or a mark they call */
	u8 nhooked;
	u8 hooked[2];
	bool allocates;		/* every hooked function allocates (the others are lookups) */
	const char *const *releases;	/* other users, by name (without .suffix) */
};

static const char *const execns_uidhash_releases[] = { "free_uid", "free_user", NULL };
/* hlist_add_ucounts(): init_ucounts's insertion, at boot. */
static const char *const execns_ucounts_releases[] = { "put_ucounts", "hlist_add_ucounts", NULL };
static const char *const execns_no_releases[] = { NULL };

static const struct execns_proof_sig execns_proof_sigs[] = {
	/* find_user() allocates nothing: a copy of it looks like a release. */
	{ EXECNS_FN_UIDHASH_LOCK, 2, { EXECNS_FN_ALLOC_UID, EXECNS_FN_FIND_USER }, false,
	  execns_uidhash_releases },
	{ EXECNS_FN_UCOUNTS_LOCK, 1, { EXECNS_FN_ALLOC_UCOUNTS }, true, execns_ucounts_releases },
	{ EXECNS_FN_UNSHARE_NSPROXY, 1, { EXECNS_FN_KSYS_UNSHARE }, false, execns_no_releases },
	{ EXECNS_FN_PROC_ID_CONNECTOR, 1, { EXECNS_FN_COMMIT_CREDS }, false, execns_no_releases },
};

/* Scratch for names, init only. */
static char execns_proof_names_buf[768];
static char execns_proof_sym[KSYM_NAME_LEN + 32];

/* One line per hooked function: the functions found branching to its entry. */
static void execns_proof_callers(const struct execns_proof_fn *f,
				 const struct execns_scan_target *t)
{
	size_t n = 0;
	unsigned int i;

	execns_proof_names_buf[0] = '\0';
	for (i = 0; i < t->nfns; i++)
		n += scnprintf(execns_proof_names_buf + n, sizeof(execns_proof_names_buf) - n,
			       "%s%ps", i ? ", " : ": ", (void *)t->fn[i]);
	execns_proof_line(true, EXECNS_COST_NONE, NULL,
			  "callers: %s: %u%s function%s in the text branch to its entry%s",
			  f->name, t->nfns, t->more ? "+" : "", t->nfns == 1 && !t->more ? "" : "s",
			  execns_proof_names_buf);
}

/*
 * Whether the function at @start branches to the slab allocator: every
 * copy of alloc_uid() and alloc_ucounts() makes its object, where a
 * release or a lookup that takes the same lock (put_ucounts() inlined into
 * dec_ucount(), say) makes none.  The allocator's entry points have been
 * named kmalloc*, __kmalloc* or kmem_cache_alloc* in every release.
 * Negative: the text could not be read.
 */
static int execns_proof_allocates(unsigned long start)
{
	static const char *const prefix[] = { "kmalloc", "__kmalloc", "kmem_cache_alloc" };
	unsigned long size, dest;
	size_t i, step;
	unsigned int k;
	int ret = 0;
	u8 *code;

	code = execns_proof_read_fn(start, &size);
	if (IS_ERR(code))
		return PTR_ERR(code);
	for (i = 0; i < size && !ret; i += step) {
		step = execns_arch_branch(code + i, size - i, start + i, &dest);
		if (!step)
			break;
		if (!dest || (dest >= start && dest < start + size))
			continue;
		snprintf(execns_proof_sym, sizeof(execns_proof_sym), "%ps", (void *)dest);
		for (k = 0; k < ARRAY_SIZE(prefix) && !ret; k++)
			ret = !strncmp(execns_proof_sym, prefix[k], strlen(prefix[k]));
	}
	kfree(code);
	return ret;
}

/* Judge @start, a function found naming @sig's mark. */
static void execns_proof_user(const struct execns_proof_sig *sig, unsigned long start,
			      bool by_alloc)
{
	const struct execns_proof_fn *m = &execns_proof_fns[sig->mark], *h;
	const char *const *r;
	unsigned int i;
	size_t n = 0;
	char *dot;
	int alloc;

	snprintf(execns_proof_sym, sizeof(execns_proof_sym), "%ps", (void *)start);
	for (i = 0; i < sig->nhooked; i++) {
		h = &execns_proof_fns[sig->hooked[i]];
		if (start == h->addr || start == h->cold) {
			execns_proof_line(true, EXECNS_COST_NONE, NULL,
					  "users: %s: %s, the hooked function", m->name,
					  execns_proof_sym);
			return;
		}
	}
	dot = strchr(execns_proof_sym, '.');
	if (dot)
		*dot = '\0';
	for (r = sig->releases; *r; r++) {
		if (!strcmp(execns_proof_sym, *r)) {
			execns_proof_line(true, EXECNS_COST_NONE, NULL,
					  "users: %s: %ps, a release, which no hook needs",
					  m->name, (void *)start);
			return;
		}
	}
	/* A lock whose hooked users all allocate: one that does not is no copy. */
	alloc = by_alloc ? execns_proof_allocates(start) : 1;
	if (!alloc) {
		execns_proof_line(true, EXECNS_COST_NONE, NULL,
				  "users: %s: %ps takes it but allocates nothing: no copy of %s (a release, or a lookup of an existing object, inlined)",
				  m->name, (void *)start, execns_proof_fns[sig->hooked[0]].name);
		return;
	}
	execns_proof_names_buf[0] = '\0';
	for (i = 0; i < sig->nhooked; i++)
		n += scnprintf(execns_proof_names_buf + n, sizeof(execns_proof_names_buf) - n,
			       "%s%s", i ? " or " : "", execns_proof_fns[sig->hooked[i]].name);
	h = &execns_proof_fns[sig->hooked[0]];
	execns_proof_fn_line(false, h,
			     "users: %s: %ps names it and is neither %s nor a release the proof knows%s: it may hold a copy of %s that runs without the hook",
			     m->name, (void *)start, execns_proof_names_buf,
			     !by_alloc ? "" :
			     alloc < 0 ? " (its text could not be read)" : ", and it allocates",
			     execns_proof_names_buf);
}

/* Every function naming @sig's mark (@t) judged, and its hooked functions found. */
static void execns_proof_sig_check(const struct execns_proof_sig *sig,
				   const struct execns_scan_target *t)
{
	const struct execns_proof_fn *m = &execns_proof_fns[sig->mark], *h;
	bool found, by_alloc;
	unsigned int i, j;

	if (!m->addr || m->copies != 1) {
		execns_proof_line(true, EXECNS_COST_NONE, NULL,
				  "users: %s is not in this kernel (once): %s is judged by the symbol table alone",
				  m->name, execns_proof_fns[sig->hooked[0]].name);
		return;
	}
	/*
	 * The allocator test tells copies only if each hooked function is
	 * seen allocating; otherwise every unknown user counts as a copy.
	 */
	by_alloc = sig->allocates;
	for (i = 0; i < sig->nhooked && by_alloc; i++)
		by_alloc = execns_proof_allocates(execns_proof_fns[sig->hooked[i]].addr) == 1;
	for (i = 0; i < t->nfns; i++)
		execns_proof_user(sig, t->fn[i], by_alloc);
	if (t->more)
		execns_proof_fn_line(false, &execns_proof_fns[sig->hooked[0]],
				     "users: %s: more functions name it than the proof reads (%u sites past %u functions)",
				     m->name, t->more, t->nfns);
	for (i = 0; i < sig->nhooked; i++) {
		h = &execns_proof_fns[sig->hooked[i]];
		for (j = 0, found = false; j < t->nfns && !found; j++)
			found = t->fn[j] == h->addr || t->fn[j] == h->cold;
		if (!found)
			execns_proof_fn_line(false, h,
					     "users: %s was not found naming %s: the text scan cannot read this kernel's code",
					     h->name, m->name);
	}
}

static void execns_proof_text(void)
{
	const struct execns_proof_sig *sig;
	struct execns_proof_fn *f;
	struct execns_scan_target *t;
	unsigned int i;
	long read;

	BUILD_BUG_ON(EXECNS_FN_COUNT > EXECNS_SCAN_TARGETS);
	t = kcalloc(EXECNS_FN_COUNT, sizeof(*t), GFP_KERNEL);
	if (!t) {
		execns_proof_line(false, EXECNS_COST_TABLES, NULL, "text: out of memory");
		return;
	}
	for (i = 0; i < EXECNS_FN_COUNT; i++) {
		f = &execns_proof_fns[i];
		if (!f->addr || f->copies != 1 || f->role == EXECNS_PROOF_DATA)
			continue;
		if (f->role == EXECNS_PROOF_HOOKED || f->role == EXECNS_PROOF_MARK) {
			t[i].lo = f->addr - EXECNS_ARCH_ENTRY_BEFORE;
			t[i].hi = f->addr + EXECNS_ARCH_ENTRY_AFTER;
		}
	}
	for (sig = execns_proof_sigs;
	     sig < execns_proof_sigs + ARRAY_SIZE(execns_proof_sigs); sig++)
		if (execns_proof_fns[sig->mark].role == EXECNS_PROOF_DATA &&
		    execns_proof_fns[sig->mark].copies == 1)
			t[sig->mark].data = execns_proof_fns[sig->mark].addr;
	read = execns_textscan(t, EXECNS_FN_COUNT);
	if (read < 0) {
		execns_proof_line(false, EXECNS_COST_ACCOUNTING, "any counter a table keeps",
				  "text: the kernel's text could not be read (%ld): copies of hooked functions the symbol table does not show cannot be found",
				  read);
		goto free;
	}
	execns_proof_line(true, EXECNS_COST_NONE, NULL,
			  "text: read %ld KiB of the kernel's text, _stext to _etext",
			  read / SZ_1K);
	for (i = 0; i < EXECNS_FN_COUNT; i++)
		if (execns_proof_fns[i].role == EXECNS_PROOF_HOOKED && execns_proof_fns[i].addr)
			execns_proof_callers(&execns_proof_fns[i], &t[i]);
	for (sig = execns_proof_sigs;
	     sig < execns_proof_sigs + ARRAY_SIZE(execns_proof_sigs); sig++)
		if (execns_proof_fns[sig->mark].name)
			execns_proof_sig_check(sig, &t[sig->mark]);
free:
	kfree(t);
}

static const char *execns_proof_verdict(void)
{
	if (!execns_proof_failures)
		return EXECNS_VERDICT_PROVEN;
	return execns_proof_costs & BIT(EXECNS_COST_TABLES) ?
	       EXECNS_VERDICT_REFUSED : EXECNS_VERDICT_PARTIAL;
}

void execns_proof_init(void)
{
	if (execns_proof_config()) {
		execns_proof_walk();
		execns_proof_uncounted();
		execns_proof_copies();
		execns_proof_sites();
		execns_proof_text();
		execns_proof_cred_callers();
	}
	if (!execns_proof_failures)
		pr_info("load-time proof: %u checks passed: uid tables available, their accounting exact\n",
			execns_proof_checks);
	else
		pr_warn("load-time proof: %u of %u checks failed: uid tables %s, forbid_unshare %s ("
			EXECNS_PROC_PROOF "; docs/security.md)\n",
			execns_proof_failures, execns_proof_checks,
			execns_proof_tables() ? "available, some accounting may stay global" :
						"refused",
			execns_proof_forbid() ? "available" : "refused");
}

bool execns_proof_tables(void)
{
	return !(execns_proof_costs & BIT(EXECNS_COST_TABLES));
}

bool execns_proof_forbid(void)
{
	return !(execns_proof_costs & (BIT(EXECNS_COST_FORBID) | BIT(EXECNS_COST_TABLES)));
}

/*
 * The report, after the entry window the branch counts used: how far
 * before and after a symbol a direct branch still starts its function
 * (module/arch/.../execns-arch.h).
 */
void execns_proof_show(struct seq_file *m)
{
	seq_printf(m, EXECNS_PROOF_WINDOW " -%d +%d\n", EXECNS_ARCH_ENTRY_BEFORE,
		   EXECNS_ARCH_ENTRY_AFTER);
	seq_write(m, execns_proof_report, execns_proof_len);
	if (execns_proof_dropped)
		seq_printf(m, EXECNS_PROOF_TRUNCATED " %u lines did not fit (each failed check is also in the kernel log)\n",
			   execns_proof_dropped);
	seq_printf(m, EXECNS_PROOF_VERDICT " %s\n", execns_proof_verdict());
}
