/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The load-time proof: before the uid hooks arm, read on the running
 * kernel's own text whether every path to the functions they sit on passes
 * their entry.  A hook sits at one function's entry (hook.c); a compiler
 * copy of that function (a clone such as alloc_uid.part.0, a second
 * function of the same name, or an inlined copy in a caller) runs without
 * it.  No hooked function releases anything, so such a path gives a task
 * the kernel's object instead of its table's: accounting, never memory.
 *
 * It reads the symbol table (copies, clones), the same-file callers'
 * branches (sites), and the whole core text (textscan.c): every function
 * that names a hooked function's lock or mark must be that function or a
 * known release, so a copy nobody listed is found by what its code does.
 *
 * The proof runs once, at init, and its verdict never changes: "proven"
 * (every check passed), "partial" (uid tables offered; each failed check
 * names the counters that may stay global), or "refused" (uid tables
 * cannot work here: execns(CLONE_NEWUSER) fails with EOPNOTSUPP).
 * forbid_unshare, a security switch, is refused whenever its own hook is
 * unproven.  dmesg has one line per failed check and one verdict line;
 * /proc/execns/proof lists every check.  docs/design.md ("The load-time
 * proof") says what it checks and what it cannot see.
 */
#ifndef _EXECNS_PROOF_H
#define _EXECNS_PROOF_H

#include <linux/types.h>

struct seq_file;

/* Run the proof; it cannot fail the load. */
void execns_proof_init(void);

/* Whether uid tables may be made, and forbid_unshare armed; after init. */
bool execns_proof_tables(void);
bool execns_proof_forbid(void);

/*
 * Whether @ip (a return address) is in a function that makes credentials'
 * ucounts (set_cred_ucounts(), copy_creds(), any copy of either).  Any
 * context; notrace.
 */
bool execns_proof_cred_caller(unsigned long ip);

/* One "ok|FAIL CHECK: DETAIL" line per check, then "verdict proven|partial|refused". */
void execns_proof_show(struct seq_file *m);

#endif /* _EXECNS_PROOF_H */
