/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exec path: execve(2) plus namespace unsharing committed at exec time.
 */
#ifndef _EXECNS_EXEC_H
#define _EXECNS_EXEC_H

#include <linux/types.h>

struct pt_regs;

/*
 * The kernel namespaces execns unshares; it also accepts CLONE_NEWUSER, which
 * here means a new uid table.  Anything else is EINVAL.
 */
#define EXECNS_NS_FLAGS (CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNS | \
			 CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWCGROUP | \
			 CLONE_NEWTIME)

long execns_syscall(const struct pt_regs *uregs, bool compat);

#endif /* _EXECNS_EXEC_H */
