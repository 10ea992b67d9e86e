/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The load-time proof: before any uid hook may arm, show on the running
 * kernel's own text that no path reaches a user_struct or ucounts without
 * passing a hooked function's entry.  A hook sits at one function's entry
 * (hook.c); a compiler copy of that function (a clone such as
 * put_ucounts.part.0, a second function of the same name, or an inlined
 * copy in a caller) runs without it, and a table's object would then be
 * freed into the kernel's caches, or a kernel object into a table.
 *
 * The proof runs once, at init, and its verdict never changes.  When it
 * fails, the module still loads and execns() still unshares namespaces,
 * but uid tables (execns(CLONE_NEWUSER)) and forbid_unshare are refused
 * with EOPNOTSUPP; dmesg has one line per unproven check, and
 * /proc/execns/proof lists every check.  docs/design.md ("The load-time
 * proof") says what it checks and what it cannot see.
 */
#ifndef _EXECNS_PROOF_H
#define _EXECNS_PROOF_H

#include <linux/types.h>

struct seq_file;

/* Run the proof; it cannot fail the load. */
void execns_proof_init(void);

/* Whether the uid hooks (and forbid_unshare's) were proven; after init. */
bool execns_proof_passed(void);

/* "verdict proven|refused" after one "ok|FAIL CHECK: DETAIL" line per check. */
void execns_proof_show(struct seq_file *m);

#endif /* _EXECNS_PROOF_H */
