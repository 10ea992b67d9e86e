/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exec path: execve(2) plus namespace unsharing committed at exec time.
 */
#ifndef _EXECNS_EXEC_H
#define _EXECNS_EXEC_H

#include <linux/types.h>
/* The flags it accepts (EXECNS_FLAGS) are user space's too: uapi/execns.h. */
#include "uapi/execns.h"

struct pt_regs;

long execns_syscall(const struct pt_regs *uregs, bool compat);

#endif /* _EXECNS_EXEC_H */
